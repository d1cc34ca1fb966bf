// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Loops unrolled for planning: a `while` that counts a carried integer from a constant by a constant step to
// a constant limit (JAX's scan and fori_loop, nn.scan over stacked layer weights, MaxText's scan_layers)
// becomes its body repeated trip-count times, the counter a constant in each copy. Each copy's ops are
// labelled with the iteration as a layer index ("layers.3.attn.q_proj", "jit(f)/while.3/body/dot_general"),
// so the analysis sees the loop's iterations as repeated layers (names through the carried values, one name
// for the stacked layer dimension that every copy slices at its own index) and the cost model prices every
// iteration with its schedule (prefetch across iterations, rematerialization per iteration, the optimizer
// update of each slice).
//
// A case (or if) whose index is a constant becomes the branch it takes.
//
// Loops whose trip count is not static, or whose copies would pass the op limit, are kept (and priced as one
// op whose work counts trip-count times); each kept loop is named in a warning.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/ir/graph.h"

namespace shardscope::ir {

struct UnrollOptions {
    std::size_t maxOps =
        2'000'000;  // a graph past this many ops keeps its remaining loops (the importers' cap)
};

struct UnrolledLoops {
    std::size_t unrolled = 0;  // loops replaced by their iterations (nested ones counted once per copy)
    std::vector<Diagnostic> warnings;  // loops kept, with why
};

// The trip count of a counted loop, or nothing when `op` is not one (not a while, or a counter that is not a
// carried constant start, constant step and constant limit).
std::optional<std::int64_t> countedTrips(const Graph& graph, const Op& op);

// Unrolls the counted loops of `graph` in place (nested loops too) and inlines the branches constants choose,
// then drops the leftovers.
UnrolledLoops unrollLoops(Graph& graph, const UnrollOptions& options = {});

}  // namespace shardscope::ir
