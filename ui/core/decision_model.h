// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The decisions panel's model: the current plan's decisions in priority order, then the forbidden ones.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>

#include <QString>

#include "core/column_table_model.h"
#include "core/plan_state.h"
#include "core/problem_view.h"

namespace shardscope::ui {

// The classes a decision reaches in words: "all", or the class names joined by ", " ("optimizer_state,
// gradient" order follows plan::TensorClass).
QString tensorClassesText(plan::TensorClassMask classes);

// Which decision a row of the DecisionModel shows.
struct ShownDecision {
    bool forbidden = false;
    bool resolution = false;  // a conflict choice: `index` is into plan.resolutions
    std::size_t index = 0;    // into plan.decisions, plan.forbidden or plan.resolutions
    friend bool operator==(const ShownDecision&, const ShownDecision&) = default;
};

// A row of the DecisionModel.
struct DecisionRow {
    ShownDecision decision;
    QString target, axis, classes, status;
    std::size_t targeted = 0;  // atoms the decision targets
    // Competition sites of the decision, by plan::CompetitionSite::Reason.
    std::size_t axisInUse = 0, notDivisible = 0, majorUnsharded = 0;
    std::size_t reached() const {
        return targeted - std::min(targeted, axisInUse + notDivisible + majorUnsharded);
    }
};

// One row per decision of the plan in priority order, then one row per forbidden decision, then one row per
// conflict choice (a resolution of a repeated name: target the name, axis "dimension N", status "conflict
// choice"). Columns: priority (1-based; empty for forbidden and choice rows), target
// (PlanContext::targetLabel), mesh axis, tensor classes, status ("pinned" for the plan's first `pinned`
// decisions, "forbidden", "conflict choice", or empty) and "reached": of the atoms the
// decision targets (its names' atoms on tensors of its classes), how many took the axis, as "reached /
// targeted"; the others are the decision's competition sites in the evaluation (SortRole: the fraction
// reached).
class DecisionModel : public ColumnTableModel<DecisionRow> {
    Q_OBJECT

public:
    enum Column {
        PriorityColumn,
        TargetColumn,
        AxisColumn,
        ClassesColumn,
        StatusColumn,
        ReachedColumn,
        ColumnCount
    };

    enum Role {
        // The row's index into plan.decisions, or into plan.forbidden for a forbidden row (uint).
        DecisionIndexRole = SortRole + 1,
        // Whether the row is a forbidden decision (bool).
        ForbiddenRole,
        // Whether the row is a pinned decision (bool).
        PinnedRole,
        // Whether the row is a conflict choice: DecisionIndexRole is then into plan.resolutions (bool).
        ResolutionRole,
    };

    // Which decision a row shows.
    using RowDecision = ShownDecision;

    explicit DecisionModel(QObject* parent = nullptr);

    // nullptr empties the table; a new problem forgets the plan state.
    void setProblem(std::shared_ptr<const ProblemView> problem);
    // Shows `state`'s plan (a reset: rows come and go with the plan). Assumes `state` belongs to the current
    // problem; nullptr empties the table.
    void setPlanState(std::shared_ptr<const PlanState> state);

    std::optional<RowDecision> decisionAt(const QModelIndex& index) const;
    // The decision a row shows; assumes decisionAt(index) is set and not a resolution.
    const plan::Decision& decision(const RowDecision& row) const;

protected:
    QVariant rowData(const DecisionRow& row, const QModelIndex& index, int role) const override;

private:
    void rebuild();

    std::shared_ptr<const ProblemView> problem_;
    std::shared_ptr<const PlanState> state_;
};

}  // namespace shardscope::ui
