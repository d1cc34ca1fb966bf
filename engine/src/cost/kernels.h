// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// How a step's top-level ops run as kernels, and which values take memory (docs/cost-model.md).
// Plan-independent: built once per CostModel; the Evaluator prices each kernel with the plan's local shapes.
//
// The rules (also in docs/cost-model.md):
// - Free ops run no kernel and store nothing: constants, broadcast_in_dim, iota, reshape, bitcast_convert and
//   sharding constraints. Their operands stay live in their place (XLA folds them into every user).
// - Fused attention (Attention::Fused). A dot_general S = q·kᵀ whose result reaches, through fusible ops
// only,
//   an exponential, a reduction and a second dot_general O = P·v is one flash-attention forward kernel: the
//   ops between (scale, mask, softmax, dropout) and the score-sized values that only feed them (masks,
//   dropout draws) belong to it. Every later op that reads one of its score-sized values, or a value such an
//   op produced (the backward's dP = dO·vᵀ, the softmax gradient, dQ, dK, dV), is the flash-attention
//   backward kernel. Values inside these kernels are never stored; the kernels read q, k, v (and dO) and
//   write O, the softmax statistics and dQ, dK, dV. The backward recomputes the scores: it adds the FLOPs of
//   q·kᵀ once more (FlashAttention-2's count: 5 matmuls backward against 2 forward).
// - Loop fusion (Fusion::Xla), XLA's producer-consumer fusion: elementwise ops, convert, transpose, slice,
// pad,
//   concatenate, reverse and rng (random numbers are generated in the kernel that uses them) are fusible; a
//   reduction is fusible as the root of its fusion (it takes its producers, never joins its consumer).
//   Walking the program backwards, a fusible op whose results are all read by fusible ops of one fusion joins
//   that fusion; otherwise it roots a fusion of its own. Dots, convolutions, gathers, scatters, custom calls,
//   control flow and the rest are kernels of one op.
// - Storage. A value takes memory when it leaves its kernel (a kernel op, a function result, or another
// kernel
//   reads it), except a cheap value that the later kernels can recompute: a value of a fusible, non-reduction
//   op whose readers are all fusible is recomputed in each reader when it is computed from at most eight
//   stored values and those that would otherwise die before its last use hold less than half its bytes. So
//   layer norm keeps its centred input but not the normalised one, GeLU keeps its input but none of its
//   intermediates, and the residual stream is stored. Nothing computed from random numbers is recomputed (a
//   dropout mask is kept).
// - A value that is not stored keeps the values it is computed from live until its own last use.
// Fusion::None and Attention::Materialized turn the rules off: every op a kernel, every value stored (but the
// free ops', as before fusion).
#pragma once

#include <cstdint>
#include <vector>

#include "shardscope/cost/cost_model.h"
#include "shardscope/ir/graph.h"

namespace shardscope::cost::detail {

enum class KernelKind : std::uint8_t { Op, Fusion, AttentionForward, AttentionBackward };

struct Kernel {
    KernelKind kind = KernelKind::Op;
    std::vector<std::uint32_t> ops;   // body indices, in program order; the last one launches it
    std::vector<ir::ValueId> reads;   // stored values read from outside the kernel
    std::vector<ir::ValueId> writes;  // stored values it produces
    std::int32_t recomputedOp = -1;   // attention backward: the body index of the q·kᵀ it recomputes
};

struct KernelPlan {
    std::vector<Kernel> kernels;         // ordered by their last op
    std::vector<std::int32_t> kernelOf;  // per body op; -1 for free ops
    std::vector<char> stored;            // per value
    std::vector<std::int32_t> lastUse;   // per value: the last body index it must stay in memory for
    std::vector<char> attentionCore;  // per body op: the forward of an attention (q·kᵀ to ·v), fused or not
    std::size_t attentions = 0;       // attentions found (fused into kernels under Attention::Fused)
};

struct KernelInputs {
    const ir::Graph* graph = nullptr;
    const std::vector<std::int32_t>* producer = nullptr;  // body index per value, -1 for arguments
    const std::vector<std::int32_t>* lastUse =
        nullptr;                                 // direct last use per value (regions count for their holder)
    const std::vector<char>* output = nullptr;   // per value: a function result
    const std::vector<char>* donated = nullptr;  // per value: an argument a result is donated to
    const std::vector<char>* topLevel = nullptr;       // per value
    const std::vector<char>* freeOp = nullptr;         // per body op: runs no kernel (see above)
    const std::vector<char>* transparentOp = nullptr;  // per body op: free, and its results take no memory
};

// Returns the kernels of the step under `fusion` and `attention`.
KernelPlan planKernels(const KernelInputs& in, Fusion fusion, Attention attention);

}  // namespace shardscope::cost::detail
