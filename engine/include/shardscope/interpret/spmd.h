// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// SPMD simulation: runs a graph under a plan on a simulated mesh, one local shard per device, with every
// collective executed explicitly, so a plan can be checked numerically against the unsharded program.
//
// What it runs is what the cost model prices (docs/cost-model.md): every tensor lives on each device as the
// block its sharding (plan::AppliedPlan, via cost::Evaluator::sharding) gives that device, and every
// top-level op runs as its execution sharding (cost::Evaluator::execution) says:
// - operands are resharded from their tensor sharding to the op's requirement by data exchange between the
//   devices of the collective's group only (all-gather of the dropped axes, all-to-all of the moved ones, a
//   local slice for added ones); an exchange that would need a device outside that group is an error, so a
//   collective priced on too small a group is caught;
// - each device computes its block of the op from its local operand blocks alone: the local block is placed
// at
//   its global offset, positions the device does not hold are NaN (0 for integers) except along sharded
//   reduction factors, where they are the reduction's identity (0 for dot_general and convolution, the init
//   value for reduce); the device keeps its result block. A result that reads a position the device does not
//   hold comes out NaN and fails the comparison, so a factor rule or an execution sharding that claims more
//   locality than the op has is caught;
// - a sharded reduction factor leaves partial results: they are reduce-scattered (summed over the group, each
//   device keeping its block) where the result is sharded on the axis, and otherwise stay partial and are
//   all-reduced where a consumer needs the sum, following the cost model's lazy rule (add, subtract, negate,
//   reshape and transpose of operands partial over the same axes stay partial);
// - a sharded permutation factor (slice, pad, concatenate, windows) is run as a gather of that dimension from
// the
//   group standing in for the halo exchange (collective-permute) the cost model prices;
// - an op whose operands are all replicated runs once and each device takes its block of the result (so rng
//   draws match the unsharded run: like a counter-based generator keyed by global position);
// - function outputs are all-reduced if still partial, then assembled from the devices' blocks; every device
//   holding a copy of an element must hold the same value, or the simulation fails naming the output.
// The simulation records the collectives it executed, comparable to cost::Evaluation::collectives.
//
// Limits: ops whose regions use values defined outside them, and sharded reduction factors of ops other than
// dot_general, convolution and single-op reduce bodies, are errors (naming the op); every device computes on
// global-shape buffers, so memory and time are about (devices + 1) times those of interpret::run.
#pragma once

#include <cstdint>
#include <vector>

#include "shardscope/cost/cost_model.h"
#include "shardscope/diagnostic.h"
#include "shardscope/interpret/interpreter.h"
#include "shardscope/plan/plan.h"

namespace shardscope::interpret {

// A collective the simulation executed.
struct ExecutedCollective {
    cost::CollectiveKind kind = cost::CollectiveKind::AllGather;
    std::uint32_t axes = 0;  // the mesh axes of the device group (bit i = Mesh::axes[i])
    ir::OpId op;             // the consumer for reshards, the producer for reductions and permutes
    ir::ValueId value;       // the tensor it moves
    friend bool operator==(const ExecutedCollective&, const ExecutedCollective&) = default;
};

struct Simulation {
    std::vector<Tensor> outputs;                  // one per graph output, assembled from the devices' blocks
    std::vector<ExecutedCollective> collectives;  // in execution order
    std::int64_t devices = 0;
};

// Runs model.graph() on `arguments` (one per graph argument, of its type) under `plan` on model.mesh().
// Errors: those interpret::run reports, a mesh of more than 64 devices, the limits above, and an
// inconsistency of the plan's execution (a reshard needing devices outside its group, devices disagreeing on
// a replicated output), each naming the op or output.
Result<Simulation> simulate(const cost::CostModel& model, const plan::Plan& plan,
                            const std::vector<Tensor>& arguments, const Options& options = {});

// The largest disagreement between two lists of outputs: per element |actual - expected| divided by the
// largest |expected| of that output (1 when that is 0). 0 when equal; +infinity when the lists or shapes
// differ or a value is NaN in one list only.
double scaledDifference(const std::vector<Tensor>& expected, const std::vector<Tensor>& actual);

// Arguments to run `graph` on, drawn from std::mt19937_64(seed): floats normal(0, 0.3), optimizer states
// uniform in [0, 0.1) (second moments must not be negative), integers uniform in [0, integerBound) (token ids
// and labels: pass the vocabulary size), i1 values 0 or 1.
std::vector<Tensor> sampleArguments(const ir::Graph& graph, std::uint64_t seed, std::int64_t integerBound);

}  // namespace shardscope::interpret
