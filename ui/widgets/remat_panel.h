// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The plan dock's rematerialization choices: one policy per block family of the model, set on the edited plan
// (an undoable edit of the PlanEditor like any other).
#pragma once

#include <QList>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QFormLayout;
class QLabel;

namespace shardscope::ui {

class PlanEditor;

// Follows the editor: rebuilt when the problem's families change, refreshed on every change of the plan
// (edit, undo, redo). Each family's combo box (object name "remat:FAMILY", e.g. "remat:layers.*") lists the
// policies; choosing one calls PlanEditor::setRemat. Without families (a forward graph, a model without
// blocks of layers) a note says why there is nothing to choose.
class RematPanel : public QWidget {
    Q_OBJECT

public:
    explicit RematPanel(PlanEditor* editor, QWidget* parent = nullptr);

    // The combo box of `family`, or nullptr.
    QComboBox* comboOf(const QString& family) const;

private:
    void refresh();

    PlanEditor* editor_;
    QFormLayout* form_;
    QLabel* note_;
    QStringList families_;  // those the form shows, in order
    QList<QComboBox*> combos_;
};

}  // namespace shardscope::ui
