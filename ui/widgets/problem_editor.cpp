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
#include "shardscope/analysis/resize.h"
#include "shardscope/input_file.h"
#include "shardscope/mesh/mesh.h"

namespace shardscope::ui {

namespace {

// The editor shows bandwidths in GB/s and latencies in µs; the engine's mesh syntax wants bytes/s and
// seconds.
constexpr double kBytesPerGB = 1e9;
constexpr double kSecondsPerMicrosecond = 1e-6;

QString number(double value) {
    return QString::number(value, 'g', 15);
}

// The first error of a failed engine call, without the code: what the user can act on.
template <typename T>
QString firstError(const Result<T>& result) {
    for (const Diagnostic& d : result.diagnostics())
        if (d.severity == Severity::Error)
            return toQString(d.message);
    return QObject::tr("unknown error");
}

QString linkText(double bandwidth, double latency) {
    return QObject::tr("%1 GB/s, %2 µs")
        .arg(number(bandwidth / kBytesPerGB), number(latency / kSecondsPerMicrosecond));
}

QString hardwareSummary(const mesh::HardwareProfile& h) {
    const QString peak = QString::number(h.peak(ir::ElementType::BF16) / 1e12, 'g', 4);
    return QObject::tr(
               "<b>%1</b><br>"
               "%2 TFLOP/s dense bf16<br>"
               "%3 GB HBM at %4 TB/s<br>"
               "%5 per domain on %6 (%7)<br>"
               "across domains: %8 (%9)")
        .arg(toQString(h.displayName).toHtmlEscaped(), peak, QString::number(h.memoryBytes / 1e9, 'g', 4),
             QString::number(h.hbmBandwidth / 1e12, 'g', 3), QString::number(h.devicesPerDomain),
             toQString(h.fastLinkName).toHtmlEscaped(), linkText(h.fastLink.bandwidth, h.fastLink.latency),
             toQString(h.slowLinkName).toHtmlEscaped(), linkText(h.slowLink.bandwidth, h.slowLink.latency));
}

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

QString cellText(const QTableWidget* table, int row, int column) {
    const QTableWidgetItem* item = table->item(row, column);
    return item ? item->text().trimmed() : QString();
}

}  // namespace

ProblemEditor::ProblemEditor(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildHardwareBox());
    layout->addWidget(buildMeshBox(), 1);
    layout->addWidget(buildSizesBox());
    layout->addWidget(buildTrainingBox());
    layout->addWidget(buildCostBox());

    errorLabel_ = new QLabel;
    errorLabel_->setObjectName(QStringLiteral("errorLabel"));
    errorLabel_->setWordWrap(true);
    errorLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    errorLabel_->setStyleSheet(QStringLiteral("color: #b00020;"));
    layout->addWidget(errorLabel_);

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
    load->setToolTip(tr("A hardware profile in Shardscope's JSON format (see resources/hardware/)"));
    row->addWidget(hardwareCombo_, 1);
    row->addWidget(load);
    layout->addLayout(row);
    hardwareSummary_ = new QLabel;
    hardwareSummary_->setObjectName(QStringLiteral("hardwareSummary"));
    hardwareSummary_->setWordWrap(true);
    hardwareSummary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(hardwareSummary_);

    for (const mesh::HardwareProfile& profile : mesh::builtinHardware())
        addHardwareChoice(toQString(profile.id), toQString(profile.displayName));
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
    layout->addWidget(meshTable_, 1);

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

    connect(meshTable_, &QTableWidget::itemChanged, this, [this] {
        if (updating_)
            return;
        meshSourceError_.clear();
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
        meshSourceError_.clear();
        revalidate();
        meshTable_->editItem(meshTable_->item(meshTable_->rowCount() - 1, AxisNameColumn));
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        meshSourceError_.clear();
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
    sizesEdit_->setToolTip(tr("Plan the model at another global batch or sequence length (batch=N,seq=N): every shape "
                              "is derived again from the dimensions that carry them. Empty: the sizes the model has."));
    form->addRow(tr("Global sizes"), sizesEdit_);
    connect(sizesEdit_, &QLineEdit::textEdited, this, [this] { revalidate(); });
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
    return box;
}

QWidget* ProblemEditor::buildCostBox() {
    auto* box = new QGroupBox(tr("Cost model"));
    auto* form = new QFormLayout(box);
    efficiencySpin_ = spin(QStringLiteral("efficiencySpin"), 0.0, 1.0, 0.05, 2,
                           tr("Fraction of peak FLOP/s and HBM bandwidth every kernel reaches; \"by shape\" takes it from "
                              "the hardware profile's tables, by each kernel's local shape"));
    efficiencySpin_->setSpecialValueText(tr("by shape"));
    prefetchSpin_ = spin(QStringLiteral("prefetchSpin"), 0.0, 16.0, 1.0, 0,
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
    return box;
}

int ProblemEditor::addHardwareChoice(const QString& key, const QString& label) {
    HardwareChoice choice{key, std::nullopt, {}};
    // A workspace session's spec carries its profile inline, as JSON, so the workspace opens anywhere.
    auto loaded = key.startsWith(QLatin1Char('{'))
                      ? mesh::parseHardware(key.toStdString(), "the workspace's hardware profile")
                      : mesh::loadHardware(key.toStdString());
    if (loaded)
        choice.profile = std::move(loaded.value());
    else
        choice.error = firstError(loaded);
    hardware_.push_back(std::move(choice));
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

const ProblemEditor::HardwareChoice* ProblemEditor::currentHardware() const {
    const int index = hardwareCombo_->currentIndex();
    return index >= 0 && index < static_cast<int>(hardware_.size())
               ? &hardware_[static_cast<std::size_t>(index)]
               : nullptr;
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
    const QString trimmed = meshSpec.trimmed();
    // A mesh written out as JSON (a workspace session's, inline) or in a .json file, the way loadProblem
    // reads it.
    std::optional<Result<mesh::Mesh>> parsed;
    if (trimmed.startsWith(QLatin1Char('{'))) {
        parsed = mesh::parseMesh(trimmed.toStdString(), "the workspace's mesh");
    } else if (trimmed.endsWith(QStringLiteral(".json"))) {
        // Bounded, and a FIFO or a device is refused instead of blocking the window.
        auto text = readInputFile(trimmed.toStdString(), "mesh file", kMaxJsonFileBytes);
        parsed = text ? mesh::parseMesh(*text, trimmed.toStdString()) : Result<mesh::Mesh>::failure(text.diagnostics());
    }
    meshSourceError_.clear();
    if (trimmed.endsWith(QStringLiteral(".json")) && !parsed)
        meshSourceError_ = tr("Mesh: cannot read '%1'").arg(trimmed);
    else if (parsed && !parsed->ok())
        meshSourceError_ = tr("Mesh: %1").arg(firstError(*parsed));
    if (parsed) {
        // The table cannot show what did not parse; it starts empty and the error says why.
        if (parsed->ok()) {
            // Links the hardware would give the axes anyway stay empty: only real overrides show as edits.
            const HardwareChoice* hardware = currentHardware();
            QStringList plain;
            for (const mesh::MeshAxis& axis : (*parsed)->axes)
                plain << toQString(axis.name) + QLatin1Char('=') + QString::number(axis.size);
            const auto laidOut =
                hardware && hardware->profile
                    ? mesh::makeMesh(plain.join(QLatin1Char(',')).toStdString(), *hardware->profile)
                    : Result<mesh::Mesh>(makeError("mesh", "no hardware"));
            for (std::size_t i = 0; i < (*parsed)->axes.size(); ++i) {
                const mesh::MeshAxis& axis = (*parsed)->axes[i];
                const mesh::Link* usual = laidOut ? &laidOut->axes[i].link : nullptr;
                const bool sameBandwidth = usual && usual->bandwidth == axis.link.bandwidth;
                const bool sameLatency = usual && usual->latency == axis.link.latency;
                addAxis(toQString(axis.name), QString::number(axis.size),
                        sameBandwidth ? QString() : number(axis.link.bandwidth / kBytesPerGB),
                        sameLatency ? QString() : number(axis.link.latency / kSecondsPerMicrosecond));
            }
        }
        updating_ = wasUpdating;
        return;
    }
    for (const QString& item : trimmed.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QStringList parts = item.split(QLatin1Char(':'));
        const QString head = parts.front();
        const qsizetype equals = head.indexOf(QLatin1Char('='));
        QString bandwidth, latency;
        QString rest;  // options the table has no column for stay in the name cell, for the engine to report
        for (qsizetype i = 1; i < parts.size(); ++i) {
            const QString option = parts[i].trimmed();
            bool ok = false;
            const double value = option.section(QLatin1Char('='), 1).trimmed().toDouble(&ok);
            if (ok && option.startsWith(QStringLiteral("bw=")))
                bandwidth = number(value / kBytesPerGB);
            else if (ok && option.startsWith(QStringLiteral("lat=")))
                latency = number(value / kSecondsPerMicrosecond);
            else
                rest += QLatin1Char(':') + option;
        }
        if (equals < 0)
            addAxis(item.trimmed(), QString());
        else
            addAxis(head.left(equals).trimmed() + rest, head.mid(equals + 1).trimmed(), bandwidth, latency);
    }
    updating_ = wasUpdating;
}

QString ProblemEditor::meshText() const {
    QStringList axes;
    for (int row = 0; row < meshTable_->rowCount(); ++row) {
        QString axis = cellText(meshTable_, row, AxisNameColumn) + QLatin1Char('=') +
                       cellText(meshTable_, row, AxisSizeColumn);
        bool ok = false;
        const QString bandwidth = cellText(meshTable_, row, BandwidthColumn);
        const double gbps = bandwidth.toDouble(&ok);
        if (!bandwidth.isEmpty())
            axis += QStringLiteral(":bw=") + (ok ? number(gbps * kBytesPerGB) : bandwidth);
        const QString latency = cellText(meshTable_, row, LatencyColumn);
        const double microseconds = latency.toDouble(&ok);
        if (!latency.isEmpty())
            axis += QStringLiteral(":lat=") + (ok ? number(microseconds * kSecondsPerMicrosecond) : latency);
        axes << axis;
    }
    return axes.join(QLatin1Char(','));
}

void ProblemEditor::setSpec(const ProblemSpec& spec) {
    base_ = spec;
    {
        const QString key = toQString(spec.hardware);
        int index = -1;
        for (int i = 0; i < hardwareCombo_->count(); ++i)
            if (hardwareCombo_->itemData(i).toString().compare(key, Qt::CaseInsensitive) == 0)
                index = i;
        if (index < 0 && key.startsWith(QLatin1Char('{'))) {
            index = addHardwareChoice(key, tr("Workspace profile"));
            if (const auto& profile = hardware_.back().profile)
                hardwareCombo_->setItemText(index, tr("%1 (workspace)").arg(toQString(profile->displayName)));
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
    sizesEdit_->setText(toQString(analysis::globalSizesText(spec.sizes)));
    mixedPrecisionCheck_->setChecked(spec.mixedPrecision);
    efficiencySpin_->setValue(spec.cost.efficiency);
    prefetchSpin_->setValue(spec.cost.prefetch);
    reserveSpin_->setValue(spec.cost.memoryReserve);
    launchSpin_->setValue(spec.cost.launchTime / kSecondsPerMicrosecond);
    updateTrainingEnabled();
    revalidate();
}

ProblemSpec ProblemEditor::spec() const {
    ProblemSpec out = base_;
    if (const HardwareChoice* hardware = currentHardware())
        out.hardware = hardware->key.toStdString();
    out.mesh = meshText().toStdString();
    out.train = trainCheck_->isChecked();
    out.optimizer = optimizerCombo_->currentText().toStdString();
    out.loss = lossCombo_->currentText().toStdString();
    out.lossOutput = lossOutputCombo_->currentText().trimmed().toStdString();
    // Sizes that do not parse keep the spec's (revalidate() says why and Apply stays disabled).
    if (auto sizes = analysis::parseGlobalSizes(sizesEdit_->text().toStdString()))
        out.sizes = std::move(sizes).value();
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

QString ProblemEditor::errorText() const {
    return errorText_;
}

void ProblemEditor::updateTrainingEnabled() {
    const bool train = trainCheck_->isChecked();
    optimizerCombo_->setEnabled(train);
    lossCombo_->setEnabled(train);
    lossOutputCombo_->setEnabled(train);
    mixedPrecisionCheck_->setEnabled(train);
}

void ProblemEditor::revalidate() {
    const bool wasUpdating = std::exchange(updating_, true);
    QString error;
    const HardwareChoice* hardware = currentHardware();
    if (!hardware) {
        error = tr("Choose a hardware profile");
        hardwareSummary_->clear();
    } else if (!hardware->profile) {
        error = tr("Hardware: %1").arg(hardware->error);
        hardwareSummary_->setText(QString());
    } else {
        hardwareSummary_->setText(hardwareSummary(*hardware->profile));
    }

    for (int row = 0; row < meshTable_->rowCount(); ++row) {
        meshTable_->item(row, LinkColumn)->setText(QString());
        for (const auto& [column, what] :
             {std::pair{BandwidthColumn, tr("bandwidth")}, std::pair{LatencyColumn, tr("latency")}}) {
            const QString text = cellText(meshTable_, row, column);
            bool ok = true;
            if (!text.isEmpty())
                text.toDouble(&ok);
            if (!ok && error.isEmpty())
                error = tr("Mesh axis '%1': the %2 must be a number, got '%3'")
                            .arg(cellText(meshTable_, row, AxisNameColumn), what, text);
        }
    }

    if (error.isEmpty())
        error = meshSourceError_;
    if (auto sizes = analysis::parseGlobalSizes(sizesEdit_->text().toStdString()); !sizes && error.isEmpty())
        error = tr("Global sizes: %1").arg(firstError(sizes));
    const mesh::HardwareProfile noHardware;
    const mesh::HardwareProfile& profile = hardware && hardware->profile ? *hardware->profile : noHardware;
    const auto mesh = mesh::makeMesh(meshText().toStdString(), profile);
    if (!mesh) {
        if (error.isEmpty())
            error = tr("Mesh: %1").arg(firstError(mesh));
        deviceCount_->setText(tr("? devices"));
    } else {
        const std::int64_t devices = mesh->devices();
        const std::int64_t domain = std::max<std::int64_t>(1, profile.devicesPerDomain);
        deviceCount_->setText(devices > domain && devices % domain == 0
                                  ? tr("%1 devices (%2 × %3)").arg(devices).arg(devices / domain).arg(domain)
                                  : tr("%1 devices").arg(devices));
        // The links without the user's overrides tell which of the hardware's links an axis lies on.
        QStringList plain;
        for (const mesh::MeshAxis& axis : mesh->axes)
            plain << toQString(axis.name) + QLatin1Char('=') + QString::number(axis.size);
        const auto laidOut = mesh::makeMesh(plain.join(QLatin1Char(',')).toStdString(), profile);
        for (int row = 0; row < meshTable_->rowCount() && row < static_cast<int>(mesh->axes.size()); ++row) {
            const mesh::Link& link = mesh->axes[static_cast<std::size_t>(row)].link;
            // The table is narrow in a dock: "fast"/"slow" in the cell, the link's full name in the tooltip.
            QString kind, name;
            if (laidOut && hardware && hardware->profile) {
                const bool fast = laidOut->axes[static_cast<std::size_t>(row)].link == profile.fastLink;
                kind = fast ? tr("fast") : tr("slow");
                name = toQString(fast ? profile.fastLinkName : profile.slowLinkName);
                if (!(link == laidOut->axes[static_cast<std::size_t>(row)].link)) {
                    kind = tr("%1, edited").arg(kind);
                    name = tr("%1, with the figures edited").arg(name);
                }
            }
            const QString text = linkText(link.bandwidth, link.latency);
            QTableWidgetItem* item = meshTable_->item(row, LinkColumn);
            item->setText(kind.isEmpty() ? text : kind + QStringLiteral(": ") + text);
            item->setToolTip(name);
        }
    }

    errorText_ = error;
    errorLabel_->setText(error);
    errorLabel_->setVisible(!error.isEmpty());
    applyButton_->setEnabled(error.isEmpty());
    updating_ = wasUpdating;
}

}  // namespace shardscope::ui
