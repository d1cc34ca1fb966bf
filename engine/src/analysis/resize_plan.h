// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Which names a resize scales, and to what (the first half of analysis::resize, resize.h): the names of each
// key's role, the dimension the user's size means, names that follow a resized one across a border, and the
// batch of one that has no name.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "shardscope/analysis/decision_space.h"
#include "shardscope/analysis/resize.h"

namespace shardscope::analysis {

// Past this many elements a size is refused (resize.overflow).
inline constexpr std::int64_t kMaxResizedElements = std::int64_t{1} << 62;

// a * b, or nullopt when negative or past kMaxResizedElements.
std::optional<std::int64_t> resizedProduct(std::int64_t a, std::int64_t b);

struct SizePlan {
    std::map<std::uint32_t, std::int64_t> newSize;  // NameId index -> its new size
    // A batch of one (no name carries it): the new batch, and the argument dimensions that are the batch.
    std::int64_t unitBatch = 0;
    std::vector<std::pair<ir::ValueId, int>> seeds;
    std::vector<SizeChange> changes;   // one per key, in key order
    std::vector<Diagnostic> warnings;  // names of a role left at their size
    // "batch 1 -> 8, seq 7 -> 128".
    std::string changesText() const;
};

// The plan for `sizes` (keys as canonicalSizeKey, values positive) on `graph`, whose analysis is `space`.
// Errors as resize() describes them: resize.key (an unknown key, a key no dimension has the role of, listing
// the keys the model takes), resize.size (a size not positive, or not a multiple of the pieces reshapes split
// off the dimension it means).
Result<SizePlan> planSizes(const ir::Graph& graph, const DecisionSpace& space, const GlobalSizes& sizes);

}  // namespace shardscope::analysis
