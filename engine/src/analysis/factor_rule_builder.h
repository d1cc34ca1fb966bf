// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Builds a FactorRule factor by factor, in the manner of Shardy's OpShardingRuleBuilder
// (shardy/dialect/sdy/transforms/propagation/op_sharding_rule_builder.h), so that the per-op rules in
// factor_rule.cpp read like Shardy's registry and can be compared with it line by line.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "shardscope/analysis/factor_rule.h"

namespace shardscope::analysis {

// "This tensor has no dimension for the factor."
inline constexpr std::int64_t kNullDim = -1;

class FactorRuleBuilder {
public:
    FactorRuleBuilder(std::vector<ir::Shape> operandShapes, std::vector<ir::Shape> resultShapes);
    // A builder for the operands and results of `op`.
    static FactorRuleBuilder forOp(const ir::Graph& graph, const ir::Op& op);

    // Adds a factor of `size` made of dimension operandDims[k] of operand k and resultDims[k] of result k.
    // kNullDim (and entries past the end of either list) leave that tensor out; a dimension outside a
    // tensor's rank is ignored, so malformed attributes never index out of range (the rule then fails
    // verifyFactorRule and factorRule() falls back to the opaque rule). As in Shardy, a size-1 factor only
    // goes to dimensions that have no factor yet (a convolution's per-group input feature of size 1 stays out
    // of the input's feature dimension), and a factor that goes nowhere is not added.
    FactorRuleBuilder& add(const std::vector<std::int64_t>& operandDims,
                           const std::vector<std::int64_t>& resultDims, std::int64_t size,
                           FactorKind kind = FactorKind::PassThrough, bool blocked = false);
    // Adds a factor made of dimension `operandDim` of every operand and `resultDim` of every result
    // (kNullDim: none); tensors whose rank does not reach the dimension are left out (scalars, as Shardy
    // does).
    FactorRuleBuilder& addToAll(std::int64_t operandDim, std::int64_t resultDim, std::int64_t size,
                                FactorKind kind = FactorKind::PassThrough, bool blocked = false);
    // Shardy's addFactor(dim, size): dimension `dim` of every operand and result.
    FactorRuleBuilder& addToAll(std::int64_t dim, std::int64_t size,
                                FactorKind kind = FactorKind::PassThrough, bool blocked = false) {
        return addToAll(dim, dim, size, kind, blocked);
    }
    // One factor per dimension of `shape`, shared by every tensor that has the dimension (Shardy's
    // addPointwise). `kindOf` gives each dimension's kind (pass-through when empty).
    FactorRuleBuilder& addPointwise(const ir::Shape& shape,
                                    const std::function<FactorKind(std::int64_t)>& kindOf = {},
                                    bool blocked = false);
    // Shardy's addPointwiseWithDiffTypeForMismatch: one factor per dimension of `inShape`, of `inShape`'s
    // size, shared by every tensor; where `inShape` and `outShape` differ, the factor has `mismatchKind` (and
    // is blocked when `mismatchBlocked`). The mismatching tensors then hold a factor larger or smaller than
    // their dimension: see FactorRule's size contract.
    FactorRuleBuilder& addPointwiseWithKindForMismatch(const ir::Shape& inShape, const ir::Shape& outShape,
                                                       FactorKind mismatchKind, bool mismatchBlocked = false);

    // The rule so far. Every dimension still without a factor gets a factor of its own size, need-replication
    // unless the size is 0 or 1. (Shardy adds a size-1 factor, which is the same for size-1 dimensions and,
    // for larger ones, equally forbids sharding the dimension at this op; ours keeps sizes multiplying up.)
    FactorRule build() const;

private:
    std::vector<ir::Shape> operandShapes_, resultShapes_;
    FactorRule rule_;
};

}  // namespace shardscope::analysis
