// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The rematerialization choices of the plan dock: the model's block families and the policy a plan gives
// each, in the UI's words.
#pragma once

#include <cstddef>
#include <vector>

#include <QList>
#include <QString>
#include <QStringList>

#include "core/problem_view.h"

namespace shardscope::ui {

struct RematFamily {
    QString family;  // "layers.*"
    int blocks = 0;  // blocks of the family ("layers.0", "layers.1", ...)
    int policy =
        0;  // index into rematPolicyNames(): the last remat decision naming the family; 0 (none) without
    int overridden = 0;  // blocks of the family that a decision naming the block gives another policy
};

// The families whose policy the user may set: those of the problem's blocks (ProblemView::blocks), in order
// of first appearance; none for a graph without a backward pass (there is nothing to keep or recompute).
QList<RematFamily> rematFamilies(const ProblemView& problem, const plan::Plan& plan);

// The policies as the engine and plan files name them, in plan::Remat order: none, selective, full,
// dots-saveable.
QStringList rematPolicyNames();
// What a policy keeps and recomputes, one sentence (for tooltips).
QString rematPolicyDescription(int policy);

// Where a plan's rematerialization runs: a block whose policy is not none recomputes its forward just before
// its first backward op, and the cost model charges that recompute to the op (and runs the recomputed
// collectives there).
struct RematPoint {
    std::size_t bodyIndex = 0;  // the block's first backward op (index into graph.body)
    QString block;              // "layers.3"
    int policy = 0;             // index into rematPolicyNames()
};
// In program order; none without a backward pass.
std::vector<RematPoint> rematPoints(const ir::Graph& graph, const plan::LayerBlocks& blocks,
                                    const plan::Plan& plan);
std::vector<RematPoint> rematPoints(const ProblemView& problem, const plan::Plan& plan);

}  // namespace shardscope::ui
