// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Two plans side by side: headline figures, the decisions that differ, collectives per kind, and the ops
// whose shardings differ.
#pragma once

#include <cstddef>
#include <memory>

#include <QString>
#include <QWidget>

#include "core/plan_comparison.h"

class QGridLayout;
class QLabel;
class QPushButton;
class QTableView;
class QVBoxLayout;

namespace shardscope::ui {

// Compares plans on a worker thread (PlanComparer) and shows the newest comparison asked for; until it
// arrives the previous one stays, marked as being replaced. Clicking an op whose shardings differ emits
// locateOp.
class CompareView : public QWidget {
    Q_OBJECT

public:
    explicit CompareView(QWidget* parent = nullptr);

    // Compares `planA` of `a` with `planB` of `b` (the same ProblemView, or two of the same model from two
    // sessions or workspace files; what cannot be compared is said in the view). Returns at once.
    void compare(std::shared_ptr<const ProblemView> a, plan::Plan planA, QString nameA,
                 std::shared_ptr<const ProblemView> b, plan::Plan planB, QString nameB);
    // Shows no comparison and drops the one being computed (another model is shown).
    void clear();
    // The comparison shown, or nullptr.
    const std::shared_ptr<const PlanComparison>& comparison() const { return shown_; }
    bool isComparing() const;

    // The area below the tables reserved for both plans' memory curves: setMemoryChart() puts a chart there
    // (the view takes ownership and replaces any earlier one); feed it from `comparisonShown`.
    void setMemoryChart(QWidget* chart);
    QWidget* memoryChart() const { return memoryChart_; }

    // The models behind the tables (for tests and for the window's own actions).
    DecisionDifferenceModel* decisionModel() const { return decisions_; }
    CollectiveDifferenceModel* collectiveModel() const { return collectives_; }
    ShardingDifferenceModel* shardingModel() const { return shardings_; }
    QTableView* shardingTable() const { return opsTable_; }

signals:
    // The user asked to see op `bodyIndex` (an index into graph().body of plan A's problem) on the graph.
    void locateOp(std::size_t bodyIndex);
    // A new comparison is on screen (both evaluations are in it, for the memory curves).
    void comparisonShown(std::shared_ptr<const shardscope::ui::PlanComparison> comparison);
    // The user asked to preview plan A or B on the graph and the other panels (B only when it is a plan of
    // A's problem).
    void previewRequested(bool planB);

private:
    void showComparison(std::shared_ptr<const PlanComparison> comparison);
    void showHeadline(const PlanComparison& comparison);

    PlanComparer* comparer_;
    std::shared_ptr<const PlanComparison> shown_;
    DecisionDifferenceModel* decisions_;
    CollectiveDifferenceModel* collectives_;
    ShardingDifferenceModel* shardings_;
    QLabel* title_;
    QLabel* notes_;
    QLabel* busy_;
    QPushButton* previewA_;
    QPushButton* previewB_;
    QGridLayout* headline_;
    QLabel* decisionsTitle_;
    QLabel* opsTitle_;
    QTableView* opsTable_;
    QVBoxLayout* memoryArea_;
    QWidget* memoryChart_ = nullptr;
    QLabel* memoryPlaceholder_ = nullptr;
};

}  // namespace shardscope::ui
