// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Result types of ops from their operands and attributes: the one place that knows each kind's shape rule.
// The builder uses it to create results; the verifier uses it to check them.
#pragma once

#include <span>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/ir/graph.h"

namespace shardscope::ir {

// Returns the result types `op` must have given its operands, attributes and regions, or an error naming the
// violated constraint. `declared` are the result types the source states (the op's own results when
// verifying; what the caller asks for when building). They supply what operands cannot determine: the
// element type of convert and dot_general's preferred type, the shape of broadcast_in_dim, reshape, iota and
// constant, and the whole type of custom_call, opaque, rng and collective results, which are trusted.
// Assumes every operand id refers to an existing value.
Result<std::vector<TensorType>> inferResultTypes(const Graph& graph, const Op& op,
                                                 std::span<const TensorType> declared);

}  // namespace shardscope::ir
