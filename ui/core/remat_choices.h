// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The rematerialization choices of the plan dock: the model's block families and the policy a plan gives
// each, in the UI's words.
#pragma once

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

}  // namespace shardscope::ui
