// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Where a model repeats alike layers, and a shallower copy of it that leaves some of them out. A plan that
// decides alike layers alike prices the same on every copy of them, so the cost model prices a deep model
// from two shallow copies (cost/cost_model.h, EvaluatorOptions::layerClasses; docs/design.md, "Layer
// classes").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "shardscope/analysis/layer_blocks.h"
#include "shardscope/ir/graph.h"

namespace shardscope::analysis {

// Blocks (LayerBlocks::blocks, in order) that are copies of one another: block j and block j + period have
// the same ops in the same order (kind, attributes, regions, result types), wired alike (an operand is the
// same result of the op at the same place of the block at the same distance, the same value made outside the
// blocks or read by several, or an argument of the same type and role only that block reads). The gap,
// [gapStart, gapEnd), is a whole number of periods, at least two, inside the longest such stretch of
// blocks, with at least a period (and as many blocks as any wire spans) of the stretch kept on each side:
// its blocks can be left out and what the blocks after it read from them read from the same place a gap
// earlier (and before it, a gap later). No op outside the blocks reads a value of the gap. nullopt when the
// model has no such gap.
struct LayerRepeat {
    std::size_t period = 0;
    std::size_t gapStart = 0, gapEnd = 0;
    friend bool operator==(const LayerRepeat&, const LayerRepeat&) = default;
};
std::optional<LayerRepeat> layerRepeat(const ir::Graph& graph, const LayerBlocks& blocks);

// The graph without the blocks [gapStart + periodsKept·period, gapEnd) of `repeat` (periodsKept less than
// the gap's periods): their ops, the arguments only they read (a layer's parameters and optimizer states)
// and the outputs and gradients of those. The kept blocks read what they read from the blocks left out from
// the same place a gap nearer (layerRepeat). Program order and the ops' source names are kept.
// What stands for the model's ops and values in the copy: itself where the copy keeps it; for an op of a
// block left out, the op at its place in the block of the last kept period before them (alike, so priced
// alike by a plan that decides alike layers alike), and for a value that op's result. (A kept op reading a
// value left out reads in the copy the same place a gap nearer: before the gap for readers after it, after it
// for readers before.)
struct ShallowGraph {
    ir::Graph graph;
    std::vector<std::uint32_t> fullBody;  // per body op: its index in the model's body
    std::size_t blocksLeftOut = 0;
    std::vector<std::int32_t> standsFor;  // per body op of the model: the copy's body op, -1 for none
    std::vector<ir::ValueId>
        valueStandsFor;  // per top-level value of the model: the copy's, invalid for none
};
ShallowGraph shallowGraph(const ir::Graph& graph, const LayerBlocks& blocks, const LayerRepeat& repeat,
                          std::size_t periodsKept);

}  // namespace shardscope::analysis
