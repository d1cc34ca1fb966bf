// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A plan's breakdown as tabs: its collectives (click one to locate its op), its time per module as bars of
// compute and exposed communication (click one to locate the module) above the table per module or per op,
// and its memory over the step stacked by category with the peak's breakdown. Computed in the background; the
// view never blocks.
#pragma once

#include <cstddef>
#include <memory>

#include <QWidget>

#include "core/plan_breakdown.h"

class QComboBox;
class QSpinBox;
class QLabel;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace shardscope::ui {

class MemoryChart;
class ModuleTimeChart;

class PlanBreakdownView : public QWidget {
    Q_OBJECT

public:
    explicit PlanBreakdownView(QWidget* parent = nullptr);

    // Shows nothing until the next showPlan(); nullptr empties the view.
    void setProblem(std::shared_ptr<const ProblemView> problem);
    // Computes `plan`'s breakdown in the background and shows it when done (a newer call supersedes it).
    // `caption` says which plan it is ("the edited plan", "plan 3 (preview)"); empty: the plan's label, or
    // "this plan".
    void showPlan(const plan::Plan& plan, const QString& caption = {});
    // The caption of the breakdown shown or being computed ("Breakdown of the edited plan").
    QString statusText() const;
    // The breakdown shown, or nullptr.
    const std::shared_ptr<const PlanBreakdown>& breakdown() const { return breakdown_; }
    bool isComputing() const { return inspector_->isBusy(); }

    PlanCollectiveModel* collectiveModel() const { return collectives_; }
    PlanTimeModel* timeModel() const { return times_; }
    MemoryChart* memoryChart() const { return chart_; }
    ModuleTimeChart* moduleTimeChart() const { return moduleChart_; }
    QSpinBox* moduleDepth() const { return depth_; }
    QTabWidget* tabs() const { return tabs_; }

signals:
    // The user clicked a collective or an op: show body op `bodyIndex` on the graph.
    void locateOp(std::size_t bodyIndex);
    // A breakdown is shown (after showPlan()).
    void breakdownShown();
    // The latest showPlan() is done: shown or failed (isComputing() is false).
    void computingEnded();

private:
    void display(std::shared_ptr<const PlanBreakdown> breakdown);
    void locate(const QModelIndex& index, int role);
    void showModuleBars();

    std::shared_ptr<const ProblemView> problem_;
    std::shared_ptr<const PlanBreakdown> breakdown_;
    QString caption_;  // of the plan asked for last
    PlanInspector* inspector_;
    PlanCollectiveModel* collectives_;
    PlanTimeModel* times_;
    QSortFilterProxyModel* collectivesSorted_;
    QSortFilterProxyModel* timesSorted_;
    QTabWidget* tabs_;
    QTableView* collectiveTable_;
    QTableView* timeTable_;
    QComboBox* grouping_;
    QLabel* status_;
    QLabel* collectiveSummary_;
    MemoryChart* chart_;
    QLabel* peak_;
    ModuleTimeChart* moduleChart_;
    QSpinBox* depth_;
};

}  // namespace shardscope::ui
