// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/plan_breakdown_view.h"

#include <algorithm>

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "widgets/memory_chart.h"
#include "widgets/module_time_chart.h"

namespace shardscope::ui {

namespace {

QTableView* makeTable(QAbstractItemModel* model, QWidget* parent) {
    auto* table = new QTableView(parent);
    table->setModel(model);
    table->setSortingEnabled(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setWordWrap(false);
    return table;
}

QSortFilterProxyModel* sorted(QAbstractItemModel* model, QObject* parent) {
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(SortRole);
    return proxy;
}

}  // namespace

PlanBreakdownView::PlanBreakdownView(QWidget* parent)
    : QWidget(parent),
      inspector_(new PlanInspector(this)),
      collectives_(new PlanCollectiveModel(this)),
      times_(new PlanTimeModel(this)),
      collectivesSorted_(sorted(collectives_, this)),
      timesSorted_(sorted(times_, this)),
      tabs_(new QTabWidget(this)),
      collectiveTable_(makeTable(collectivesSorted_, this)),
      timeTable_(makeTable(timesSorted_, this)),
      grouping_(new QComboBox(this)),
      status_(new QLabel(this)),
      collectiveSummary_(new QLabel(this)),
      chart_(new MemoryChart(this)),
      peak_(new QLabel(this)),
      moduleChart_(new ModuleTimeChart(this)),
      depth_(new QSpinBox(this)) {
    setObjectName(QStringLiteral("planBreakdown"));
    status_->setStyleSheet(QStringLiteral("QLabel { color: #666; }"));

    auto* collectivesPage = new QWidget(this);
    auto* collectivesLayout = new QVBoxLayout(collectivesPage);
    collectivesLayout->setContentsMargins(0, 4, 0, 0);
    collectivesLayout->addWidget(collectiveSummary_);
    collectivesLayout->addWidget(collectiveTable_);
    collectiveTable_->setToolTip(tr("Click a collective to show the op that causes it"));
    tabs_->addTab(collectivesPage, tr("Collectives"));

    auto* timePage = new QWidget(this);
    auto* timeLayout = new QVBoxLayout(timePage);
    timeLayout->setContentsMargins(0, 4, 0, 0);
    grouping_->addItem(tr("Per module"));
    grouping_->addItem(tr("Per op"));
    // Bars per module (a picture) or the table per module or per op.
    auto* view = new QComboBox(timePage);
    view->setObjectName(QStringLiteral("timeView"));
    view->addItem(tr("Bars"));
    view->addItem(tr("Table"));
    auto* groupingRow = new QHBoxLayout;
    groupingRow->addWidget(new QLabel(tr("Time as"), timePage));
    groupingRow->addWidget(view);
    groupingRow->addWidget(grouping_);
    auto* depthLabel = new QLabel(tr("down to module level"), timePage);
    groupingRow->addWidget(depthLabel);
    depth_->setObjectName(QStringLiteral("moduleDepth"));
    depth_->setRange(1, 1);
    depth_->setToolTip(tr("How deep into the module tree the bars go: 1 for the top-level modules"));
    groupingRow->addWidget(depth_);
    groupingRow->addStretch();
    timeLayout->addLayout(groupingRow);
    auto* moduleScroll = new QScrollArea(timePage);
    moduleScroll->setWidget(moduleChart_);
    moduleScroll->setWidgetResizable(true);
    moduleScroll->setFrameShape(QFrame::NoFrame);
    moduleChart_->setToolTip(tr("Click a bar to show the module's first op"));
    auto* timeViews = new QStackedWidget(timePage);
    timeViews->addWidget(moduleScroll);
    timeViews->addWidget(timeTable_);
    timeLayout->addWidget(timeViews);
    grouping_->hide();
    connect(view, &QComboBox::currentIndexChanged, this, [this, timeViews, depthLabel](int index) {
        timeViews->setCurrentIndex(index);
        grouping_->setVisible(index == 1);
        depthLabel->setVisible(index == 0);
        depth_->setVisible(index == 0);
    });
    tabs_->addTab(timePage, tr("Time"));

    auto* memoryPage = new QWidget(this);
    // The chart takes the height; the peak's figures stand beside it.
    auto* memoryLayout = new QHBoxLayout(memoryPage);
    memoryLayout->setContentsMargins(0, 4, 0, 0);
    memoryLayout->addWidget(chart_, 1);
    peak_->setWordWrap(true);
    peak_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    peak_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    peak_->setFixedWidth(
        peak_->fontMetrics().horizontalAdvance(QStringLiteral("optimizer state  000.00 MiB")) + 40);
    auto* peakScroll = new QScrollArea(memoryPage);
    peakScroll->setWidget(peak_);
    peakScroll->setWidgetResizable(false);
    peakScroll->setFrameShape(QFrame::NoFrame);
    peakScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    peakScroll->setFixedWidth(peak_->width() + 16);
    memoryLayout->addWidget(peakScroll);
    tabs_->addTab(memoryPage, tr("Memory"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(status_);
    layout->addWidget(tabs_);

    connect(inspector_, &PlanInspector::inspected, this, [this](std::shared_ptr<const PlanBreakdown> b) {
        display(std::move(b));
        emit computingEnded();
    });
    connect(inspector_, &PlanInspector::failed, this, [this](const QString& message) {
        status_->setText(message);
        emit computingEnded();
    });
    connect(collectiveTable_, &QTableView::clicked, this,
            [this](const QModelIndex& index) { locate(index, PlanCollectiveModel::BodyIndexRole); });
    connect(timeTable_, &QTableView::clicked, this,
            [this](const QModelIndex& index) { locate(index, PlanTimeModel::BodyIndexRole); });
    connect(depth_, &QSpinBox::valueChanged, this, &PlanBreakdownView::showModuleBars);
    connect(moduleChart_, &ModuleTimeChart::barClicked, this, [this](std::size_t bar) {
        const auto& bars = moduleChart_->bars();
        if (bar < bars.size() && bars[bar].firstOp >= 0)
            emit locateOp(static_cast<std::size_t>(bars[bar].firstOp));
    });
    connect(grouping_, &QComboBox::currentIndexChanged, this, [this](int index) {
        times_->setGrouping(index == 0 ? PlanTimeModel::Grouping::Module : PlanTimeModel::Grouping::Op);
        // Per module reads best in the tree's order; per op, slowest first.
        if (index == 0)
            timeTable_->sortByColumn(-1, Qt::AscendingOrder);
        else
            timeTable_->sortByColumn(PlanTimeModel::TotalColumn, Qt::DescendingOrder);
    });
    timeTable_->sortByColumn(-1, Qt::AscendingOrder);
    collectiveTable_->sortByColumn(-1, Qt::AscendingOrder);
    setProblem(nullptr);
}

void PlanBreakdownView::setProblem(std::shared_ptr<const ProblemView> problem) {
    problem_ = std::move(problem);
    {
        // A new model's bars start at its layers (two levels down), or as deep as its tree goes.
        const QSignalBlocker blocker(depth_);
        depth_->setRange(1, 2);
        depth_->setValue(2);
    }
    inspector_->setProblem(problem_);
    chart_->setOpText([keep = problem_](std::size_t op) { return keep ? opText(*keep, op) : QString(); });
    caption_.clear();
    display(nullptr);
    status_->setText(problem_ ? tr("The breakdown of the plan shown comes here once it is evaluated")
                              : tr("No model open"));
}

void PlanBreakdownView::showPlan(const plan::Plan& plan, const QString& caption) {
    if (!problem_)
        return;
    caption_ = caption;
    inspector_->inspect(plan);
    status_->setText(caption.isEmpty() ? tr("Computing the breakdown…")
                                       : tr("Computing the breakdown of %1…").arg(caption));
}

QString PlanBreakdownView::statusText() const {
    return status_->text();
}

void PlanBreakdownView::display(std::shared_ptr<const PlanBreakdown> breakdown) {
    breakdown_ = std::move(breakdown);
    collectives_->setBreakdown(breakdown_);
    times_->setBreakdown(problem_, breakdown_);
    for (int c = 0; c < PlanCollectiveModel::ColumnCount - 1; ++c)
        collectiveTable_->resizeColumnToContents(c);
    for (int c = 0; c < PlanTimeModel::ColumnCount - 1; ++c)
        timeTable_->resizeColumnToContents(c);
    showModuleBars();
    if (!breakdown_) {
        chart_->setCurves({}, 0);
        peak_->clear();
        collectiveSummary_->clear();
        return;
    }
    const cost::Evaluation& e = breakdown_->evaluation;
    const QString label = !caption_.isEmpty()           ? caption_
                          : breakdown_->label.isEmpty() ? tr("this plan")
                                                        : breakdown_->label;
    status_->setText(tr("Breakdown of %1").arg(label));

    double moved = 0, spent = 0;
    for (const auto& c : breakdown_->collectives) {
        moved += c.bytes;
        spent += c.time;
    }
    collectiveSummary_->setText(
        breakdown_->collectives.empty()
            ? tr("No collectives: every op runs on local data")
            : tr("%1, %2 moved")
                      .arg(breakdown_->collectives.size() == 1
                               ? tr("1 collective")
                               : tr("%L1 collectives").arg(breakdown_->collectives.size()),
                           bytesLabel(moved)) +
                  tr(", %1").arg(timeLabel(spent)));

    const MemoryOverStep& m = breakdown_->memory;
    chart_->setCurves({memoryCurveOf(m, label)}, m.opCount);

    const cost::MemoryBreakdown& p = m.atPeak;
    const QString part =
        QStringLiteral("<tr><td style='padding-right:12px'>%1</td><td align=right>%2</td></tr>");
    QString table = QStringLiteral("<b>") +
                    tr("Peak %1 of %2 at %3")
                        .arg(bytesLabel(m.peak), bytesLabel(m.capacity),
                             problem_ ? opText(*problem_, m.peakOp).toHtmlEscaped() : QString()) +
                    QStringLiteral("</b>") + (e.feasible ? QString() : tr(" — does not fit")) +
                    QStringLiteral("<table>");
    table += part.arg(tr("parameters"), bytesLabel(p.parameters));
    table += part.arg(tr("gradients"), bytesLabel(p.gradients));
    table += part.arg(tr("optimizer state"), bytesLabel(p.optimizerState));
    table += part.arg(tr("activations"), bytesLabel(p.activations));
    table += part.arg(tr("temporaries"), bytesLabel(p.temporaries));
    table += QStringLiteral("</table>");
    if (!m.withoutRemat.empty())
        table +=
            tr("Without rematerialization the peak would be %1: remat saves %2 (the dashed line).")
                .arg(bytesLabel(m.peakWithoutRemat), bytesLabel(std::max(0.0, m.peakWithoutRemat - m.peak)));
    if (e.pipeline)
        table +=
            QStringLiteral("<br>") +
            tr("The chart follows one microbatch on one pipeline stage; the peak is the fullest stage's, "
               "with the activations of the microbatches in flight.");
    peak_->setText(table);
    peak_->resize(peak_->width(), peak_->heightForWidth(peak_->width()));
    emit breakdownShown();
}

void PlanBreakdownView::showModuleBars() {
    if (!breakdown_ || !problem_) {
        moduleChart_->setBars({}, 0);
        return;
    }
    const QSignalBlocker blocker(depth_);
    depth_->setRange(1, std::max(1, moduleTreeDepth(*breakdown_)));
    double total = 0;
    for (const OpTime& op : breakdown_->ops)
        total += op.compute + op.exposed;
    moduleChart_->setBars(moduleTimeBars(*problem_, *breakdown_, depth_->value()), total);
}

void PlanBreakdownView::locate(const QModelIndex& index, int role) {
    bool ok = false;
    const qlonglong body = index.data(role).toLongLong(&ok);
    if (ok && body >= 0)
        emit locateOp(static_cast<std::size_t>(body));
}

}  // namespace shardscope::ui
