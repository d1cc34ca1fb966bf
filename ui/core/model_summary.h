// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The headline figures of a loaded model, formatted for people.
#pragma once

#include <QList>
#include <QString>

#include "core/plan_state.h"
#include "core/problem_view.h"

namespace shardscope::ui {

struct SummaryLine {
    QString label;
    QString value;
    QString toolTip;  // what the figure means, or the exact value behind a rounded one
};

// Model, parameters, FLOPs per forward pass, parameter bytes, activation bytes and ops, in that order (the
// summary panel lists the warnings under them).
QList<SummaryLine> summaryOf(const ProblemView& model);

// What a plan costs, for the cost summary: the memory bar's figures and the lines below it.
struct CostSummary {
    double peakMemory = 0, capacity = 0;  // bytes per device
    bool feasible = false;
    QString stepTime;          // "12.345 ms"
    QString verdict;           // "fits: 61% of the usable memory" / "does not fit: 140% ..."
    QList<SummaryLine> lines;  // time split, memory at peak, model states, collectives by kind, sites
};
CostSummary costSummaryOf(const ProblemView& problem, const PlanState& state);

}  // namespace shardscope::ui
