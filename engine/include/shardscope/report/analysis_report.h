// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// What `shardscope-cli analyze` reports: names, groups and conflicts, as text and as versioned JSON.
#pragma once

#include <cstddef>
#include <string>

#include "shardscope/analysis/decision_space.h"
#include "shardscope/session/model_source.h"

namespace shardscope::report {

inline constexpr int kAnalysisJsonVersion = 1;

// Summary, groups by bytes, the `maxNames` largest names (0 = all) and every conflict with its sites.
std::string analysisText(const LoadedModel& model, const analysis::DecisionSpace& space,
                         std::size_t maxNames = 40);

// {"version", "model", "atoms", "names": [{id, label, size, group, tensors, bytes, flops}], "groups": [{id,
// label, names, bytes, flops}], "conflicts": [{kind, name, label, sites: [{op, location, tensor,
// dimensions}], options}]}.
std::string analysisJson(const LoadedModel& model, const analysis::DecisionSpace& space);

}  // namespace shardscope::report
