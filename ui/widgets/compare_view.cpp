// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/compare_view.h"

#include <algorithm>
#include <cmath>

#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace shardscope::ui {

namespace {

QTableView* tableFor(QAbstractItemModel* model, QWidget* parent, const QString& objectName) {
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(SortRole);
    auto* table = new QTableView(parent);
    table->setObjectName(objectName);
    table->setModel(proxy);
    table->setSortingEnabled(true);
    table->sortByColumn(-1, Qt::AscendingOrder);  // the model's order until the user picks a column
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setAlternatingRowColors(true);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setStretchLastSection(true);
    return table;
}

QWidget* titled(const QString& title, QLabel** label, QWidget* content, QWidget* parent) {
    auto* box = new QWidget(parent);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 4, 0, 0);
    auto* heading = new QLabel(title, box);
    QFont bold = heading->font();
    bold.setBold(true);
    heading->setFont(bold);
    layout->addWidget(heading);
    layout->addWidget(content, 1);
    if (label)
        *label = heading;
    return box;
}

// "B is 1.52× A" in the direction that reads naturally: the ratio B / A, and which is better.
QString ratioText(double a, double b, bool lowerIsBetter) {
    if (a <= 0 && b <= 0)
        return QObject::tr("both none");
    if (a <= 0)
        return QObject::tr("only B has any");
    if (b <= 0)
        return QObject::tr("only A has any");
    const double ratio = b / a;
    if (std::abs(ratio - 1.0) < 5e-4)
        return QObject::tr("= (×1.000)");
    const bool bBetter = lowerIsBetter ? ratio < 1 : ratio > 1;
    return QObject::tr("×%1 %2")
        .arg(ratio, 0, 'f', 3)
        .arg(bBetter ? QObject::tr("(B better)") : QObject::tr("(A better)"));
}

}  // namespace

CompareView::CompareView(QWidget* parent)
    : QWidget(parent),
      comparer_(new PlanComparer(this)),
      decisions_(new DecisionDifferenceModel(this)),
      collectives_(new CollectiveDifferenceModel(this)),
      shardings_(new ShardingDifferenceModel(this)),
      title_(new QLabel(this)),
      notes_(new QLabel(this)),
      busy_(new QLabel(tr("Comparing…"), this)),
      previewA_(new QPushButton(tr("Preview A"), this)),
      previewB_(new QPushButton(tr("Preview B"), this)),
      headline_(new QGridLayout) {
    title_->setObjectName(QStringLiteral("compareTitle"));
    QFont big = title_->font();
    big.setPointSizeF(big.pointSizeF() * 1.2);
    big.setBold(true);
    title_->setFont(big);
    title_->setWordWrap(true);
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    notes_->setObjectName(QStringLiteral("compareNotes"));
    notes_->setWordWrap(true);
    notes_->setStyleSheet(QStringLiteral("QLabel { color: #8a5a00; }"));
    notes_->hide();
    busy_->setStyleSheet(QStringLiteral("QLabel { color: #666; }"));
    busy_->hide();
    headline_->setHorizontalSpacing(18);

    auto* decisionsTable = tableFor(decisions_, this, QStringLiteral("compareDecisions"));
    auto* collectivesTable = tableFor(collectives_, this, QStringLiteral("compareCollectives"));
    opsTable_ = tableFor(shardings_, this, QStringLiteral("compareOps"));
    opsTable_->setToolTip(tr("Click an op to show it on the graph"));
    opsTable_->setTextElideMode(Qt::ElideMiddle);  // module paths differ at their ends: "layers.3…mlp.w1"
    collectivesTable->horizontalHeader()->setSectionResizeMode(
        QHeaderView::ResizeToContents);  // five rows at most
    decisionsTable->horizontalHeader()->setSectionResizeMode(DecisionDifferenceModel::DecisionColumn,
                                                             QHeaderView::Stretch);
    decisionsTable->horizontalHeader()->setStretchLastSection(false);
    connect(opsTable_, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const QVariant body = index.data(ShardingDifferenceModel::BodyIndexRole);
        if (body.isValid())
            emit locateOp(static_cast<std::size_t>(body.toULongLong()));
    });

    // Memory curves of both plans go here (another panel's chart, set by the window).
    auto* memoryBox = new QWidget(this);
    memoryBox->setObjectName(QStringLiteral("compareMemoryArea"));
    memoryBox->setMinimumHeight(140);
    memoryArea_ = new QVBoxLayout(memoryBox);
    memoryArea_->setContentsMargins(0, 0, 0, 0);
    memoryPlaceholder_ = new QLabel(tr("Both plans' memory over the step will be drawn here."), memoryBox);
    memoryPlaceholder_->setAlignment(Qt::AlignCenter);
    memoryPlaceholder_->setStyleSheet(QStringLiteral("QLabel { color: #888; }"));
    memoryArea_->addWidget(memoryPlaceholder_);

    auto* left = new QSplitter(Qt::Vertical, this);
    left->addWidget(titled(tr("Decisions"), &decisionsTitle_, decisionsTable, left));
    left->addWidget(titled(tr("Collectives per kind"), nullptr, collectivesTable, left));
    auto* right = new QSplitter(Qt::Vertical, this);
    right->addWidget(titled(tr("Ops whose shardings differ"), &opsTitle_, opsTable_, right));
    right->addWidget(titled(tr("Memory over the step"), nullptr, memoryBox, right));
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    auto* columns = new QSplitter(Qt::Horizontal, this);
    columns->addWidget(left);
    columns->addWidget(right);
    columns->setStretchFactor(0, 1);
    columns->setStretchFactor(1, 1);

    auto* top = new QHBoxLayout;
    top->addWidget(title_, 1);
    top->addWidget(busy_);
    previewA_->setObjectName(QStringLiteral("comparePreviewA"));
    previewB_->setObjectName(QStringLiteral("comparePreviewB"));
    previewA_->setToolTip(tr("Show plan A on the graph, Cost and Breakdown without editing it"));
    previewB_->setToolTip(tr("Show plan B on the graph, Cost and Breakdown without editing it"));
    top->addWidget(previewA_);
    top->addWidget(previewB_);
    connect(previewA_, &QPushButton::clicked, this, [this] { emit previewRequested(false); });
    connect(previewB_, &QPushButton::clicked, this, [this] { emit previewRequested(true); });
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(notes_);
    layout->addLayout(headline_);
    layout->addWidget(columns, 1);

    connect(comparer_, &PlanComparer::compared, this, &CompareView::showComparison);
    connect(comparer_, &PlanComparer::comparingChanged, busy_, &QWidget::setVisible);
    showComparison(nullptr);
}

void CompareView::compare(std::shared_ptr<const ProblemView> a, plan::Plan planA, QString nameA,
                          std::shared_ptr<const ProblemView> b, plan::Plan planB, QString nameB) {
    comparer_->compare(std::move(a), std::move(planA), std::move(nameA), std::move(b), std::move(planB),
                       std::move(nameB));
}

void CompareView::clear() {
    comparer_->clear();
    showComparison(nullptr);
}

bool CompareView::isComparing() const {
    return comparer_->isComparing();
}

void CompareView::setMemoryChart(QWidget* chart) {
    if (memoryChart_ == chart)
        return;
    delete memoryChart_;
    delete memoryPlaceholder_;
    memoryPlaceholder_ = nullptr;
    memoryChart_ = chart;
    if (chart)
        memoryArea_->addWidget(chart);
}

void CompareView::showComparison(std::shared_ptr<const PlanComparison> comparison) {
    shown_ = std::move(comparison);
    decisions_->setComparison(shown_);
    collectives_->setComparison(shown_);
    shardings_->setComparison(shown_);
    while (QLayoutItem* item = headline_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    previewA_->setEnabled(shown_ != nullptr);
    previewB_->setEnabled(shown_ && shown_->problemB == shown_->problemA);
    if (!shown_) {
        title_->setText(tr("Pick two plans to compare"));
        notes_->hide();
        return;
    }
    const PlanComparison& c = *shown_;
    title_->setText(tr("A: %1 (%2)   vs   B: %3 (%4)").arg(c.nameA, c.meshA, c.nameB, c.meshB));
    notes_->setText(c.notes.join(QLatin1Char('\n')));
    notes_->setVisible(!c.notes.isEmpty());
    decisionsTitle_->setText(tr("Decisions: %1 only in A, %2 only in B, %3 in both")
                                 .arg(c.onlyA())
                                 .arg(c.onlyB())
                                 .arg(static_cast<int>(c.decisions.size()) - c.onlyA() - c.onlyB()));
    opsTitle_->setText(c.shardingsCompared ? tr("Ops whose shardings differ: %1").arg(c.ops.size())
                                           : tr("Ops whose shardings differ: not comparable"));
    showHeadline(c);
    // Op labels are module paths: wide enough to read, never wider than a third of the table.
    opsTable_->resizeColumnToContents(ShardingDifferenceModel::OpColumn);
    opsTable_->setColumnWidth(ShardingDifferenceModel::OpColumn,
                              std::min(opsTable_->columnWidth(ShardingDifferenceModel::OpColumn),
                                       std::max(260, opsTable_->viewport()->width() / 3)));
    opsTable_->resizeColumnToContents(ShardingDifferenceModel::ValuesColumn);
    emit comparisonShown(shown_);
}

void CompareView::showHeadline(const PlanComparison& c) {
    auto add = [this](int row, int column, const QString& text, bool bold = false) {
        auto* label = new QLabel(text, this);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        if (bold) {
            QFont font = label->font();
            font.setBold(true);
            label->setFont(font);
        }
        headline_->addWidget(label, row, column, column == 0 ? Qt::AlignLeft : Qt::AlignRight);
        return label;
    };
    add(0, 1, c.nameA, true);
    add(0, 2, c.nameB, true);
    add(0, 3, tr("B / A"), true);
    struct Line {
        QString what;
        double a, b;
        bool bytes;
    };
    const Line lines[] = {{tr("Step time"), c.a.stepTime, c.b.stepTime, false},
                          {tr("Compute"), c.a.computeTime, c.b.computeTime, false},
                          {tr("Collectives"), c.a.collectiveTime, c.b.collectiveTime, false},
                          {tr("Peak memory"), c.a.peakMemory, c.b.peakMemory, true}};
    int row = 1;
    for (const Line& line : lines) {
        auto text = [&](double v) {
            return line.bytes ? PlanComparison::bytesText(v) : PlanComparison::timeText(v);
        };
        add(row, 0, line.what);
        add(row, 1, text(line.a), row == 1);
        add(row, 2, text(line.b), row == 1);
        add(row, 3, ratioText(line.a, line.b, true));
        ++row;
    }
    add(row, 0, tr("Fits in memory"));
    auto* fitsA = add(row, 1, c.a.feasible ? tr("yes") : tr("no"));
    auto* fitsB = add(row, 2, c.b.feasible ? tr("yes") : tr("no"));
    for (auto [label, fits] : {std::pair{fitsA, c.a.feasible}, std::pair{fitsB, c.b.feasible}})
        label->setStyleSheet(fits ? QStringLiteral("QLabel { color: #2d6a2d; }")
                                  : QStringLiteral("QLabel { color: #a12622; font-weight: bold; }"));
    headline_->setColumnStretch(4, 1);
}

}  // namespace shardscope::ui
