// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/problem_editor.h"

#include <algorithm>
#include <functional>
#include <utility>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/text.h"
#include "widgets/mesh_view.h"

namespace shardscope::ui {

namespace {

// The launch time shows in µs; the spec holds seconds.
constexpr double kSecondsPerMicrosecond = 1e-6;

QDoubleSpinBox* spin(const QString& objectName, double minimum, double maximum, double step, int decimals,
                     const QString& toolTip) {
    auto* box = new QDoubleSpinBox;
    box->setObjectName(objectName);
    box->setRange(minimum, maximum);
    box->setSingleStep(step);
    box->setDecimals(decimals);
    box->setToolTip(toolTip);
    return box;
}

// Whether two specs plan the same way as far as the editor edits them.
bool sameSettings(const ProblemSpec& a, const ProblemSpec& b) {
    return a.hardware == b.hardware && a.mesh == b.mesh && a.sizes == b.sizes && a.entry == b.entry &&
           a.train == b.train && a.optimizer == b.optimizer && a.loss == b.loss &&
           a.lossOutput == b.lossOutput && a.mixedPrecision == b.mixedPrecision &&
           a.cost.efficiency == b.cost.efficiency && a.cost.prefetch == b.cost.prefetch &&
           a.cost.memoryReserve == b.cost.memoryReserve && a.cost.launchTime == b.cost.launchTime;
}

QString cellText(const QTableWidget* table, int row, int column) {
    const QTableWidgetItem* item = table->item(row, column);
    return item ? item->text().trimmed() : QString();
}

}  // namespace

ProblemEditor::ProblemEditor(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    // The mesh first, its picture under its axes: in sight at the dock's default height.
    layout->addWidget(buildMeshBox(), 1);
    layout->addWidget(buildHardwareBox());
    layout->addWidget(buildSizesBox());
    layout->addWidget(buildTrainingBox());
    layout->addWidget(buildCostBox());

    errorLabel_ = new QLabel;
    errorLabel_->setObjectName(QStringLiteral("errorLabel"));
    errorLabel_->setWordWrap(true);
    errorLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    errorLabel_->setStyleSheet(QStringLiteral("color: #b00020;"));
    layout->addWidget(errorLabel_);

    unappliedLabel_ =
        new QLabel(tr("Not applied yet: Apply plans the model shown with these settings, and a "
                      "model opened next opens with them."));
    unappliedLabel_->setObjectName(QStringLiteral("unappliedLabel"));
    unappliedLabel_->setWordWrap(true);
    unappliedLabel_->setStyleSheet(QStringLiteral("QLabel { color: #8a5a00; font-weight: bold; }"));
    unappliedLabel_->hide();
    layout->addWidget(unappliedLabel_);

    auto* buttons = new QHBoxLayout;
    auto* revert = new QPushButton(tr("Revert"));
    revert->setObjectName(QStringLiteral("revertButton"));
    revert->setToolTip(tr("Back to the problem as it was loaded"));
    applyButton_ = new QPushButton(tr("Apply"));
    applyButton_->setObjectName(QStringLiteral("applyButton"));
    applyButton_->setDefault(true);
    applyButton_->setToolTip(tr("Reload the problem with these settings"));
    buttons->addStretch(1);
    buttons->addWidget(revert);
    buttons->addWidget(applyButton_);
    layout->addLayout(buttons);

    connect(revert, &QPushButton::clicked, this, [this] { setSpec(base_); });
    connect(applyButton_, &QPushButton::clicked, this, [this] {
        revalidate();
        if (isValid())
            emit applied(spec());
    });
    setSpec(ProblemSpec{});
}

QWidget* ProblemEditor::buildHardwareBox() {
    auto* box = new QGroupBox(tr("Hardware"));
    auto* layout = new QVBoxLayout(box);
    auto* row = new QHBoxLayout;
    hardwareCombo_ = new QComboBox;
    hardwareCombo_->setObjectName(QStringLiteral("hardwareCombo"));
    hardwareCombo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    auto* load = new QPushButton(tr("Load profile file…"));
    load->setObjectName(QStringLiteral("loadHardwareButton"));
    load->setToolTip(
        tr("A hardware profile saved as a JSON file: the device's memory and speed, and its links"));
    row->addWidget(hardwareCombo_, 1);
    row->addWidget(load);
    layout->addLayout(row);
    hardwareSummary_ = new QLabel;
    hardwareSummary_->setObjectName(QStringLiteral("hardwareSummary"));
    hardwareSummary_->setWordWrap(true);
    hardwareSummary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(hardwareSummary_);

    for (const HardwareChoice& builtin : MeshDraft::builtinHardware())
        addHardwareChoice(builtin.key, builtin.displayName);
    connect(hardwareCombo_, &QComboBox::currentIndexChanged, this, [this] { revalidate(); });
    connect(load, &QPushButton::clicked, this, &ProblemEditor::loadHardwareFile);
    return box;
}

QWidget* ProblemEditor::buildMeshBox() {
    auto* box = new QGroupBox(tr("Mesh"));
    auto* layout = new QVBoxLayout(box);
    meshTable_ = new QTableWidget(0, MeshColumnCount);
    meshTable_->setObjectName(QStringLiteral("meshTable"));
    meshTable_->setHorizontalHeaderLabels({tr("Axis"), tr("Size"), tr("GB/s"), tr("µs"), tr("Link")});
    meshTable_->horizontalHeaderItem(BandwidthColumn)
        ->setToolTip(tr("Bandwidth per device and direction; empty: the hardware's link"));
    meshTable_->horizontalHeaderItem(LatencyColumn)
        ->setToolTip(tr("Latency of one step; empty: the hardware's link"));
    meshTable_->horizontalHeaderItem(LinkColumn)->setToolTip(tr("The link the axis gets on this hardware"));
    meshTable_->verticalHeader()->setVisible(false);
    QHeaderView* header = meshTable_->horizontalHeader();
    header->setStretchLastSection(true);
    header->setSectionResizeMode(AxisNameColumn, QHeaderView::Interactive);
    for (const int column : {AxisSizeColumn, BandwidthColumn, LatencyColumn})
        header->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    meshTable_->setColumnWidth(AxisNameColumn, 80);
    meshTable_->verticalHeader()->setDefaultSectionSize(meshTable_->fontMetrics().height() + 8);
    meshTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
    meshTable_->setToolTip(tr("Major axis first: the last axis varies fastest and gets the fast link"));
    layout->addWidget(meshTable_);

    auto* row = new QHBoxLayout;
    auto* add = new QPushButton(tr("Add axis"));
    add->setObjectName(QStringLiteral("addAxisButton"));
    auto* remove = new QPushButton(tr("Remove axis"));
    remove->setObjectName(QStringLiteral("removeAxisButton"));
    deviceCount_ = new QLabel;
    deviceCount_->setObjectName(QStringLiteral("deviceCount"));
    row->addWidget(add);
    row->addWidget(remove);
    row->addStretch(1);
    row->addWidget(deviceCount_);
    layout->addLayout(row);
    meshPicture_ = new MeshView;
    meshPicture_->setToolTip(tr("The devices of the mesh as typed, each axis with the links it runs on"));
    layout->addWidget(meshPicture_);

    connect(meshTable_, &QTableWidget::itemChanged, this, [this] {
        if (updating_)
            return;
        draft_.clearMeshSourceError();
        revalidate();
    });
    connect(add, &QPushButton::clicked, this, [this] {
        // A fresh name that makeMesh accepts, so adding an axis never makes the mesh invalid by itself.
        int n = meshTable_->rowCount();
        QString name;
        do {
            name = QStringLiteral("axis%1").arg(n++);
        } while (!meshTable_->findItems(name, Qt::MatchExactly).isEmpty());
        addAxis(name, QStringLiteral("1"));
        draft_.clearMeshSourceError();
        revalidate();
        meshTable_->editItem(meshTable_->item(meshTable_->rowCount() - 1, AxisNameColumn));
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        draft_.clearMeshSourceError();
        removeSelectedAxes();
        revalidate();
    });
    return box;
}

QWidget* ProblemEditor::buildSizesBox() {
    auto* box = new QGroupBox(tr("Model sizes"));
    auto* form = new QFormLayout(box);
    sizesEdit_ = new QLineEdit;
    sizesEdit_->setObjectName(QStringLiteral("sizesEdit"));
    sizesEdit_->setPlaceholderText(tr("as exported, e.g. batch=256,seq=4096"));
    sizesEdit_->setToolTip(
        tr("Plan the model at another global batch or sequence length (batch=N,seq=N): every shape "
           "is derived again from the dimensions that carry them. Empty: the sizes the model has."));
    form->addRow(tr("Global sizes"), sizesEdit_);
    connect(sizesEdit_, &QLineEdit::textEdited, this, [this] { revalidate(); });
    entryCombo_ = new QComboBox;
    entryCombo_->setObjectName(QStringLiteral("entryCombo"));
    entryCombo_->setEditable(true);
    entryCombo_->lineEdit()->setPlaceholderText(tr("@main, or the only public function"));
    entryCombo_->setToolTip(
        tr("StableHLO: the function to plan, for a module with several public functions and no @main "
           "(as --entry NAME). Empty: @main, else the only public function."));
    form->addRow(tr("Entry function"), entryCombo_);
    connect(entryCombo_, &QComboBox::currentTextChanged, this, &ProblemEditor::updateUnapplied);
    return box;
}

QWidget* ProblemEditor::buildTrainingBox() {
    auto* box = new QGroupBox(tr("Training step"));
    auto* form = new QFormLayout(box);
    trainCheck_ = new QCheckBox(tr("Plan the whole training step"));
    trainCheck_->setObjectName(QStringLiteral("trainCheck"));
    trainCheck_->setToolTip(
        tr("Forward, backward and optimizer update (about 3-4 times the ops of the forward pass)"));
    optimizerCombo_ = new QComboBox;
    optimizerCombo_->setObjectName(QStringLiteral("optimizerCombo"));
    optimizerCombo_->addItems({QStringLiteral("sgd"), QStringLiteral("adam"), QStringLiteral("adamw")});
    lossCombo_ = new QComboBox;
    lossCombo_->setObjectName(QStringLiteral("lossCombo"));
    lossCombo_->addItems({QStringLiteral("auto"), QStringLiteral("cross-entropy"),
                          QStringLiteral("mean-square"), QStringLiteral("sum")});
    lossCombo_->setToolTip(tr("auto: cross-entropy for a model ending in logits, else the mean square"));
    lossOutputCombo_ = new QComboBox;
    lossOutputCombo_->setObjectName(QStringLiteral("lossOutputCombo"));
    lossOutputCombo_->setEditable(true);
    lossOutputCombo_->addItem(QStringLiteral("all"));
    lossOutputCombo_->setCurrentIndex(-1);
    lossOutputCombo_->lineEdit()->setPlaceholderText(tr("first output"));
    lossOutputCombo_->setToolTip(
        tr("The output the loss is taken of: empty for the first, an output's name or "
           "index (0, 1, ...), or all for the sum of every output's loss"));
    mixedPrecisionCheck_ = new QCheckBox(tr("Mixed precision (bf16 compute, f32 master weights)"));
    mixedPrecisionCheck_->setObjectName(QStringLiteral("mixedPrecisionCheck"));
    form->addRow(trainCheck_);
    form->addRow(tr("Optimizer"), optimizerCombo_);
    form->addRow(tr("Loss"), lossCombo_);
    form->addRow(tr("Loss output"), lossOutputCombo_);
    form->addRow(mixedPrecisionCheck_);
    connect(trainCheck_, &QCheckBox::toggled, this, &ProblemEditor::updateTrainingEnabled);
    for (QComboBox* combo : {optimizerCombo_, lossCombo_, lossOutputCombo_})
        connect(combo, &QComboBox::currentTextChanged, this, &ProblemEditor::updateUnapplied);
    connect(mixedPrecisionCheck_, &QCheckBox::toggled, this, &ProblemEditor::updateUnapplied);
    return box;
}

QWidget* ProblemEditor::buildCostBox() {
    auto* box = new QGroupBox(tr("Cost model"));
    auto* form = new QFormLayout(box);
    efficiencySpin_ =
        spin(QStringLiteral("efficiencySpin"), 0.0, 1.0, 0.05, 2,
             tr("Fraction of peak FLOP/s and HBM bandwidth every kernel reaches; \"by shape\" takes it from "
                "the hardware profile's tables, by each kernel's local shape"));
    efficiencySpin_->setSpecialValueText(tr("by shape"));
    prefetchSpin_ =
        spin(QStringLiteral("prefetchSpin"), 0.0, 16.0, 1.0, 0,
             tr("Blocks of layers a parameter all-gather may run ahead of its use (FSDP prefetch)"));
    reserveSpin_ =
        spin(QStringLiteral("reserveSpin"), 0.0, 0.95, 0.05, 2,
             tr("Fraction of device memory kept free: a plan fits when its peak stays below the rest"));
    launchSpin_ = spin(QStringLiteral("launchSpin"), 0.0, 1000.0, 1.0, 1, tr("Fixed cost of every op"));
    launchSpin_->setSuffix(tr(" µs"));
    form->addRow(tr("Efficiency"), efficiencySpin_);
    form->addRow(tr("Prefetch"), prefetchSpin_);
    form->addRow(tr("Memory reserve"), reserveSpin_);
    form->addRow(tr("Launch time"), launchSpin_);
    for (QDoubleSpinBox* field : {efficiencySpin_, prefetchSpin_, reserveSpin_, launchSpin_})
        connect(field, &QDoubleSpinBox::valueChanged, this, &ProblemEditor::updateUnapplied);
    return box;
}

int ProblemEditor::addHardwareChoice(const QString& key, const QString& label) {
    draft_.addHardware(key);
    const QSignalBlocker blocker(hardwareCombo_);
    hardwareCombo_->addItem(label, key);
    const int index = hardwareCombo_->count() - 1;
    hardwareCombo_->setItemData(index, key, Qt::ToolTipRole);
    return index;
}

void ProblemEditor::loadHardwareFile() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Load hardware profile"), QString(),
                                                      tr("Hardware profiles (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    int index = hardwareCombo_->findData(path);
    if (index < 0)
        index = addHardwareChoice(path, QFileInfo(path).fileName());
    hardwareCombo_->setCurrentIndex(index);
    revalidate();
}

void ProblemEditor::addAxis(const QString& name, const QString& size, const QString& bandwidth,
                            const QString& latency) {
    const bool wasUpdating = std::exchange(updating_, true);
    const int row = meshTable_->rowCount();
    meshTable_->insertRow(row);
    meshTable_->setItem(row, AxisNameColumn, new QTableWidgetItem(name));
    auto* sizeItem = new QTableWidgetItem(size);
    sizeItem->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    meshTable_->setItem(row, AxisSizeColumn, sizeItem);
    for (const auto& [column, text] :
         {std::pair{BandwidthColumn, bandwidth}, std::pair{LatencyColumn, latency}}) {
        auto* item = new QTableWidgetItem(text);
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        meshTable_->setItem(row, column, item);
    }
    auto* link = new QTableWidgetItem;
    link->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    link->setForeground(palette().brush(QPalette::Disabled, QPalette::Text));
    meshTable_->setItem(row, LinkColumn, link);
    updating_ = wasUpdating;
}

void ProblemEditor::removeSelectedAxes() {
    QList<int> rows;
    for (const QModelIndex& index : meshTable_->selectionModel()->selectedRows())
        rows << index.row();
    if (rows.isEmpty() && meshTable_->currentRow() >= 0)
        rows << meshTable_->currentRow();
    std::sort(rows.begin(), rows.end(), std::greater<>());
    for (const int row : rows)
        meshTable_->removeRow(row);
}

void ProblemEditor::setMeshRows(const QString& meshSpec) {
    const bool wasUpdating = std::exchange(updating_, true);
    meshTable_->setRowCount(0);
    for (const MeshAxisDraft& axis : draft_.readMesh(meshSpec, hardwareCombo_->currentIndex()))
        addAxis(axis.name, axis.size, axis.bandwidth, axis.latency);
    updating_ = wasUpdating;
}

std::vector<MeshAxisDraft> ProblemEditor::tableAxes() const {
    std::vector<MeshAxisDraft> axes;
    for (int row = 0; row < meshTable_->rowCount(); ++row)
        axes.push_back({cellText(meshTable_, row, AxisNameColumn), cellText(meshTable_, row, AxisSizeColumn),
                        cellText(meshTable_, row, BandwidthColumn),
                        cellText(meshTable_, row, LatencyColumn)});
    return axes;
}

QString ProblemEditor::meshText() const {
    return MeshDraft::meshText(tableAxes());
}

void ProblemEditor::setSpec(const ProblemSpec& spec) {
    base_ = spec;
    const bool wasUpdating = std::exchange(updating_, true);
    {
        const QString key = toQString(spec.hardware);
        int index = -1;
        for (int i = 0; i < hardwareCombo_->count(); ++i)
            if (hardwareCombo_->itemData(i).toString().compare(key, Qt::CaseInsensitive) == 0)
                index = i;
        if (index < 0 && key.startsWith(QLatin1Char('{'))) {
            index = addHardwareChoice(key, tr("Workspace profile"));
            if (const HardwareChoice& choice = draft_.hardwareChoices().back(); choice.loaded())
                hardwareCombo_->setItemText(index, tr("%1 (workspace)").arg(choice.displayName));
            hardwareCombo_->setItemData(index, tr("The profile saved in the workspace"), Qt::ToolTipRole);
        } else if (index < 0) {
            index =
                addHardwareChoice(key, QFileInfo(key).fileName().isEmpty() ? key : QFileInfo(key).fileName());
        }
        const QSignalBlocker blocker(hardwareCombo_);
        hardwareCombo_->setCurrentIndex(index);
    }
    setMeshRows(toQString(spec.mesh));
    trainCheck_->setChecked(spec.train);
    // A value the combo does not list (a newer engine's) is kept, for loadProblem to judge.
    for (const auto& [combo, value] :
         {std::pair{optimizerCombo_, spec.optimizer}, std::pair{lossCombo_, spec.loss}}) {
        if (combo->findText(toQString(value)) < 0)
            combo->addItem(toQString(value));
        combo->setCurrentText(toQString(value));
    }
    lossOutputCombo_->setCurrentText(toQString(spec.lossOutput));
    sizesEdit_->setText(MeshDraft::sizesText(spec));
    entryCombo_->setCurrentText(spec.entry.empty() ? QString() : u'@' + toQString(spec.entry));
    mixedPrecisionCheck_->setChecked(spec.mixedPrecision);
    efficiencySpin_->setValue(spec.cost.efficiency);
    prefetchSpin_->setValue(spec.cost.prefetch);
    reserveSpin_->setValue(spec.cost.memoryReserve);
    launchSpin_->setValue(spec.cost.launchTime / kSecondsPerMicrosecond);
    updateTrainingEnabled();
    updating_ = wasUpdating;
    shown_ = this->spec();
    revalidate();
}

bool ProblemEditor::isUnapplied() const {
    return !sameSettings(spec(), shown_);
}

void ProblemEditor::updateUnapplied() {
    if (updating_ || !unappliedLabel_)
        return;  // mid-update, or still being built
    const bool unapplied = isUnapplied();
    unappliedLabel_->setVisible(unapplied);
    emit unappliedChanged(unapplied);
}

ProblemSpec ProblemEditor::spec() const {
    ProblemSpec out = base_;
    const auto& choices = draft_.hardwareChoices();
    if (const int hardware = hardwareCombo_->currentIndex();
        hardware >= 0 && hardware < static_cast<int>(choices.size()))
        out.hardware = choices[static_cast<std::size_t>(hardware)].key.toStdString();
    out.mesh = meshText().toStdString();
    out.train = trainCheck_->isChecked();
    out.optimizer = optimizerCombo_->currentText().toStdString();
    out.loss = lossCombo_->currentText().toStdString();
    out.lossOutput = lossOutputCombo_->currentText().trimmed().toStdString();
    QString entry = entryCombo_->currentText().trimmed();
    if (entry.startsWith(u'@'))
        entry.remove(0, 1);
    out.entry = entry.toStdString();
    // Sizes that do not parse keep the spec's (revalidate() says why and Apply stays disabled).
    MeshDraft::applySizes(sizesEdit_->text(), out);
    out.mixedPrecision = mixedPrecisionCheck_->isChecked();
    // Spin boxes round to their decimals: an untouched value keeps the spec's own figure.
    auto edited = [](const QDoubleSpinBox* box, double original, double scale = 1.0) {
        const double shown = QString::number(original / scale, 'f', box->decimals()).toDouble();
        return box->value() == shown ? original : box->value() * scale;
    };
    out.cost.efficiency = edited(efficiencySpin_, base_.cost.efficiency);
    out.cost.prefetch = prefetchSpin_->value() < 0.5 ? 0 : static_cast<int>(prefetchSpin_->value() + 0.5);
    out.cost.memoryReserve = edited(reserveSpin_, base_.cost.memoryReserve);
    out.cost.launchTime = edited(launchSpin_, base_.cost.launchTime, kSecondsPerMicrosecond);
    return out;
}

void ProblemEditor::setEntryChoices(const QStringList& functions) {
    const QString typed = entryCombo_->currentText();
    entryCombo_->clear();
    for (const QString& f : functions)
        entryCombo_->addItem(u'@' + f);
    entryCombo_->setCurrentText(typed);
}

QString ProblemEditor::errorText() const {
    return errorText_;
}

void ProblemEditor::updateTrainingEnabled() {
    updateUnapplied();
    const bool train = trainCheck_->isChecked();
    optimizerCombo_->setEnabled(train);
    lossCombo_->setEnabled(train);
    lossOutputCombo_->setEnabled(train);
    mixedPrecisionCheck_->setEnabled(train);
}

void ProblemEditor::revalidate() {
    const bool wasUpdating = std::exchange(updating_, true);
    const MeshDraftCheck check =
        draft_.check(hardwareCombo_->currentIndex(), tableAxes(), sizesEdit_->text());
    hardwareSummary_->setText(check.hardwareSummary);
    for (int row = 0; row < meshTable_->rowCount(); ++row)
        meshTable_->item(row, LinkColumn)->setText(QString());
    deviceCount_->setText(check.deviceCount);
    meshPicture_->setPicture(check.picture);
    // The table as tall as its axes (three rows at least), so that the picture under it stays in view.
    const int rows = std::max(3, meshTable_->rowCount());
    meshTable_->setFixedHeight(meshTable_->horizontalHeader()->sizeHint().height() +
                               rows * meshTable_->verticalHeader()->defaultSectionSize() +
                               2 * meshTable_->frameWidth() + 2);
    for (int row = 0; row < meshTable_->rowCount() && row < static_cast<int>(check.links.size()); ++row) {
        const MeshAxisLink& link = check.links[static_cast<std::size_t>(row)];
        QTableWidgetItem* item = meshTable_->item(row, LinkColumn);
        item->setText(link.text);
        item->setToolTip(link.toolTip);
    }

    errorText_ = check.error;
    errorLabel_->setText(check.error);
    errorLabel_->setVisible(!check.error.isEmpty());
    applyButton_->setEnabled(check.error.isEmpty());
    updating_ = wasUpdating;
    updateUnapplied();
}

}  // namespace shardscope::ui
