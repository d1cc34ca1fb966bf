// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// An evaluated plan as the UI shows it.
#pragma once

#include <cstdint>
#include <vector>

#include "shardscope/cost/cost_model.h"
#include "shardscope/plan/plan.h"

namespace shardscope::ui {

// One plan of the problem shown and its evaluation, computed off the UI thread and never changed afterwards
// (shared through std::shared_ptr<const PlanState>). `revision` increases with every edit of the plan, so a
// view can tell a newer state from an older one.
struct PlanState {
    std::uint64_t revision = 0;
    plan::Plan plan;
    cost::Evaluation evaluation;
    // The sharding of every value of the graph, indexed by ValueId::index (values inside nested regions have
    // an empty sharding: no dimensions).
    std::vector<plan::TensorSharding> shardings;
};

}  // namespace shardscope::ui
