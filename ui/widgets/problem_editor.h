// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The problem editor: the hardware, mesh, training step and cost options a model is planned with.
#pragma once

#include <vector>

#include <QString>
#include <QWidget>

#include "core/mesh_draft.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;
class QWidget;

namespace shardscope::ui {

class MeshView;

// Edits a ProblemSpec, for a dock. The hardware is a built-in profile or a profile file; the mesh is a table
// of axes (name, size, optional bandwidth in GB/s and latency in µs overriding the link the hardware gives
// the axis), written out in makeMesh's syntax ("data=8,model=4:bw=4e+11:lat=2e-06") and checked by the engine
// on every edit: the engine's error shows under the table and Apply stays disabled until the spec is valid.
// The spec's model and dimensions pass through unchanged; its global sizes (batch=N,seq=N) are a line of
// text. Child widgets carry object names (hardwareCombo, meshTable, addAxisButton, removeAxisButton,
// deviceCount, meshPicture, errorLabel, trainCheck, optimizerCombo, lossCombo, lossOutputCombo (editable:
// empty for the first output, a name or index, or "all"), mixedPrecisionCheck, efficiencySpin, prefetchSpin,
// reserveSpin, launchSpin, sizesEdit, applyButton, revertButton, unappliedLabel).
class ProblemEditor : public QWidget {
    Q_OBJECT

public:
    enum MeshColumn {
        AxisNameColumn,
        AxisSizeColumn,
        BandwidthColumn,
        LatencyColumn,
        LinkColumn,
        MeshColumnCount
    };

    explicit ProblemEditor(QWidget* parent = nullptr);

    // Shows `spec` for editing (and remembers it for Revert). A mesh given as JSON (inline, as a workspace
    // session's spec has it, or a .json file) shows its axes, with the links that differ from what the
    // hardware gives as overrides; spec() then writes it in makeMesh's syntax. Hardware given inline as JSON
    // stays JSON. A hardware profile or mesh that does not load shows its error.
    void setSpec(const ProblemSpec& spec);
    // The spec as edited (whether or not it is valid).
    ProblemSpec spec() const;
    // The mesh string the table describes.
    QString meshText() const;
    // The functions a StableHLO module without @main offers as its entry (ProblemLoader::entryChoices): the
    // entry field lists them, the typed text kept.
    void setEntryChoices(const QStringList& functions);
    // Whether the settings shown differ from those last given to setSpec (the model shown was planned with
    // those): the panel then says they are not applied yet (unappliedLabel).
    bool isUnapplied() const;
    // Why the spec cannot be applied (the engine's message), or "" when it can.
    QString errorText() const;
    bool isValid() const { return errorText_.isEmpty(); }

signals:
    // The user pressed Apply with a valid spec.
    void applied(shardscope::ProblemSpec spec);
    void unappliedChanged(bool unapplied);

private:
    QWidget* buildHardwareBox();
    QWidget* buildMeshBox();
    QWidget* buildSizesBox();
    QWidget* buildTrainingBox();
    QWidget* buildCostBox();
    int addHardwareChoice(const QString& key, const QString& label);
    void loadHardwareFile();
    void addAxis(const QString& name, const QString& size, const QString& bandwidth = {},
                 const QString& latency = {});
    void removeSelectedAxes();
    void setMeshRows(const QString& meshSpec);
    // The mesh table's axes, as typed.
    std::vector<MeshAxisDraft> tableAxes() const;
    // Checks the hardware and mesh with the engine; updates the summary, links, device count, error and
    // Apply.
    void revalidate();
    void updateTrainingEnabled();
    void updateUnapplied();

    ProblemSpec base_;
    ProblemSpec shown_;  // base_ as the editor writes it back (a JSON mesh as makeMesh text): "applied"
    // The hardware choices (parallel to hardwareCombo_'s items) and, until the user edits the table, why the
    // spec's mesh JSON could not be shown.
    MeshDraft draft_;
    QString errorText_;
    bool updating_ = false;

    QComboBox* hardwareCombo_ = nullptr;
    QLabel* hardwareSummary_ = nullptr;
    QTableWidget* meshTable_ = nullptr;
    QLabel* deviceCount_ = nullptr;
    MeshView* meshPicture_ = nullptr;  // the mesh as typed, as a picture (meshPicture)
    QLabel* errorLabel_ = nullptr;
    QCheckBox* trainCheck_ = nullptr;
    QComboBox* optimizerCombo_ = nullptr;
    QComboBox* lossCombo_ = nullptr;
    QComboBox* lossOutputCombo_ = nullptr;
    QLineEdit* sizesEdit_ = nullptr;  // the spec's global sizes, "batch=256,seq=4096"
    QComboBox* entryCombo_ =
        nullptr;  // the StableHLO function to import ("": @main, else the only public one)
    QCheckBox* mixedPrecisionCheck_ = nullptr;
    QDoubleSpinBox* efficiencySpin_ = nullptr;
    QDoubleSpinBox* prefetchSpin_ = nullptr;
    QDoubleSpinBox* reserveSpin_ = nullptr;
    QDoubleSpinBox* launchSpin_ = nullptr;
    QPushButton* applyButton_ = nullptr;
    QLabel* unappliedLabel_ = nullptr;
};

}  // namespace shardscope::ui
