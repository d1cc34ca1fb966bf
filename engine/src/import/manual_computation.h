// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// sdy.manual_computation turned back into its global program (issue 19, part 5).
//
// A manual computation's body is written per device for its manual axes: each block argument is the local
// piece of an operand under its in_sharding, each result the local piece of a result under its out_sharding,
// and collectives over the manual axes (stablehlo.all_reduce, all_gather, reduce_scatter, all_to_all;
// Shardy's sdy.all_reduce, all_gather, all_slice, reduce_scatter naming a manual axis) move data between
// devices. The global program is the same ops on global shapes without those collectives, when the global op
// already means what the collective does: a dot or reduce over a sharded dimension leaves partial results
// that an all_reduce (or reduce_scatter) sums, an all_gather undoes a dimension's sharding, an all_to_all
// moves it. The manual axes of every dimension are inferred through the body (union-find over dimensions,
// from the in_shardings), checked against the out_shardings, and every op is checked to mean the same on
// global shapes. Whatever cannot be said globally is refused with one line that says why.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/ir/graph.h"

namespace shardscope::import {

// A collective of Shardy's dialect as the importer met it (it imports as a `Sharding` custom call carrying
// its out_sharding): the op's name and the axes text after it (`[{"x"}, {}]`, `{"x"}`), empty in the generic
// form.
struct ShardyCollective {
    std::string op;    // "sdy.all_reduce", ...
    std::string axes;  // as written, brackets included; empty when unknown (generic form)
};

// A parsed sdy.manual_computation. The body's ops are in `graph.ops` (not in any block) with local shapes.
struct ManualComputation {
    std::vector<std::string> manualAxes;      // as written
    std::vector<std::string> inShardings;     // one `<@mesh, [...]>` per operand
    std::vector<std::string> outShardings;    // one per result
    std::vector<ir::ValueId> operands;        // global values
    std::vector<ir::TensorType> resultTypes;  // global types
    ir::Region body;
    SourceLocation location;
};

struct GlobalProgram {
    std::vector<ir::OpId> ops;         // to run where the manual computation stood, in order
    std::vector<ir::ValueId> results;  // the values of the manual computation's results
    bool manual = false;               // some manual axis of more than one device was given up
};

// Rewrites the body of `computation` into its global program, in place in `graph`: block arguments become the
// operands, result types and size-dependent attributes (slice limits, dynamic_slice sizes, feature groups)
// become global, collectives over manual axes are dropped, Shardy annotations inside gain the manual axes
// (major to minor, before the free ones). The dropped ops and the block arguments stay in `graph.ops` and
// `graph.values` unreferenced (ir::removeUnreachable cleans them). `shardyCollectives` says which `Sharding`
// custom calls of the body are Shardy collectives (by OpId index). Errors (code stablehlo.manual-computation,
// one line, at the op concerned) say why the body has no global meaning: an op that mixes a sharded dimension
// with a whole one (a replicated operand reused by every shard), a collective of a value that holds no
// partial results over its axes (it would add up copies), a slice or concatenation across shards, a device
// index (partition_id), a collective_permute (a ring or halo step), replica groups that match no mesh axes,
// an out_sharding the body does not give, a mesh or axis the module does not declare.
Result<GlobalProgram> globalProgram(ir::Graph& graph, const ManualComputation& computation,
                                    const std::map<std::uint32_t, ShardyCollective>& shardyCollectives);

}  // namespace shardscope::import
