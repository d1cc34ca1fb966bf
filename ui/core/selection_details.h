// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// What the details panel says about the selection: rich text (Qt's HTML subset) built from the problem and
// the evaluated plan.
#pragma once

#include <cstddef>

#include <QString>

#include "core/plan_state.h"
#include "core/problem_view.h"

namespace shardscope::ui {

// An op of the body (`bodyIndex` into graph.body): kind, location, factor rule, operands and results with
// their shardings, compute time and the collectives it causes under `state` (may be null), the conflicts it
// is a site of.
QString describeOp(const ProblemView& problem, const PlanState* state, std::size_t bodyIndex);
// A name: size, group, tensors, bytes, FLOPs, the axes the plan gives it, its conflicts.
QString describeName(const ProblemView& problem, const PlanState* state, analysis::NameId name);
// A group: its role, names, bytes and FLOPs.
QString describeGroup(const ProblemView& problem, const PlanState* state, analysis::GroupId group);
// A graph argument (parameter, optimizer state, input): its role, type and sharding.
QString describeArgument(const ProblemView& problem, const PlanState* state, std::size_t argumentIndex);
// A module of the module tree: its path, ops, compute time.
QString describeModule(const ProblemView& problem, const PlanState* state, int module);

}  // namespace shardscope::ui
