// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Per-op factor rules in the style of Shardy's OpShardingRule (docs/design.md, "Factor rules").
//
// A rule lists factors, each with a size and a kind, and for every operand and result dimension the factors
// (major to minor) whose sizes multiply to the dimension's size. Sharding a factor shards it alike in every
// tensor it appears in; the kind says what that costs at this op.
//
// Sizes. Every dimension's factor sizes multiply to the dimension's size, with one exception that Shardy
// makes and we keep: a dimension whose size differs between the tensors of the op (a sliced, padded,
// concatenated or windowed dimension, a top-k dimension, a truncated FFT dimension, a gathered slice) may
// carry a single *mismatch factor* of kind permutation or need-replication whose size is the dimension's size
// in another tensor of the op (the operand's for slice and pad, the result's for concatenate and
// reduce_window, ...). Consumers that split dimensions into factor-sized pieces must treat a mismatch factor
// as covering its whole dimension in each tensor. verifyFactorRule() checks exactly this contract.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/ir/graph.h"

namespace shardscope::analysis {

enum class FactorKind : std::uint8_t {
    PassThrough,      // sharding flows freely through the op
    Reduction,        // sharding it leaves partial sums: the result needs an all-reduce or reduce-scatter
    NeedReplication,  // must be unsharded at this op
    Permutation,      // may be sharded but costs a permute / halo exchange
};

struct Factor {
    std::int64_t size = 1;
    FactorKind kind = FactorKind::PassThrough;
    bool blockedPropagation = false;  // the analysis must not unify names through this factor
    friend bool operator==(const Factor&, const Factor&) = default;
};

// Factor indices of one tensor: for each dimension, the factors it is made of, major to minor.
using TensorFactors = std::vector<std::vector<int>>;

struct FactorRule {
    std::vector<Factor> factors;
    std::vector<TensorFactors> operands;  // one per op operand, in order (a scalar has no dimensions)
    std::vector<TensorFactors> results;   // one per op result, in order
    bool custom = false;  // Shardy marks some rules `custom` (e.g. custom_call with a known rule)

    // Shardy's notation: `([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}`. Factors are lettered
    // i, j,
    // ..., z, then z_1, z_2, ... in index order; a dimension of several factors prints them run together
    // (`[ij, k]`), a scalar prints `[]`, and a rule without factors has no size list (`([], [])->([])`). The
    // kind lists follow in Shardy's order (reduction, need_replication, permutation, blocked_propagation),
    // each only when non-empty, then `, custom`.
    std::string toString() const;
    friend bool operator==(const FactorRule&, const FactorRule&) = default;
};

// The factor rule of `op` (an op of `graph`), derived from its operand and result types, its attributes and,
// where Shardy looks at them, its neighbours (the producers of a concatenate's operands, the constant indices
// of a dynamic_update_slice, the users of an X64Combine). Ops without a known rule (opaque, unknown
// custom_call, ...) get a rule in which every dimension of every operand and result is its own
// need-replication factor; so does any op whose attributes do not fit its types. Never fails; the result
// always passes verifyFactorRule(). The cases where we differ from Shardy are listed in factor_rule.cpp.
FactorRule factorRule(const ir::Graph& graph, const ir::Op& op);

// Whether two rules are equal up to renaming their factors (and the order of the factor list): the same
// tensors and dimensions, each dimension made of corresponding factors in the same order, corresponding
// factors of equal size, kind and blocking, and the same `custom` flag.
bool equivalent(const FactorRule& a, const FactorRule& b);

// Parses Shardy's notation as toString() prints it, with or without the `#sdy.op_sharding_rule<...>` wrapper
// (a missing closing `>` is accepted). Factor letters need not be in iota order; a factor missing from the
// size list is an error. Errors name the column and what was expected.
Result<FactorRule> parseFactorRule(std::string_view text);

// Checks that `rule` fits `op`: one mapping per operand and result, one entry per dimension, factor indices
// in range, no factor twice in one tensor, every factor used, and the size contract above. Errors say which
// tensor and dimension is wrong.
Status verifyFactorRule(const FactorRule& rule, const ir::Graph& graph, const ir::Op& op);

}  // namespace shardscope::analysis
