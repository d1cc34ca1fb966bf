// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Size and work of one execution of a graph: op counts, parameters, FLOPs and bytes.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "shardscope/ir/graph.h"

namespace shardscope::ir {

struct GraphStatistics {
    std::map<std::string, std::int64_t> opsByKind;  // mnemonic -> count, nested regions included
    std::int64_t opCount = 0;                       // ops in the body and all regions
    std::int64_t parameterCount = 0;                // elements of Parameter arguments
    std::int64_t parameterBytes = 0;
    std::int64_t optimizerStateBytes = 0;
    std::int64_t inputBytes = 0;  // Input arguments
    std::int64_t outputBytes = 0;
    std::int64_t activationBytes = 0;  // all op results of the body (no reuse: an upper bound)
    double flops = 0;                  // see flopsOf
    double bytesAccessed = 0;          // operands read + results written, per op
};

// FLOPs of one execution of `op` (one pass; while bodies are counted trip-count times by computeStatistics):
// dot_general 2·(result elements)·(contracted size); convolution 2·(output elements)·(input features per
// group)·(kernel window); elementwise one per result element; reduce and reduce_window one per input
// element (per window element); data movement (reshape, transpose, broadcast, slice, ...) zero.
double flopsOf(const Graph& graph, const Op& op);

GraphStatistics computeStatistics(const Graph& graph);

}  // namespace shardscope::ir
