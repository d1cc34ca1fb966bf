// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "analysis/factor_rule_builder.h"

#include <cstddef>
#include <utility>

namespace shardscope::analysis {

namespace {

// The dimensions of `tensors` the factor goes to: in range, and (for a size-1 factor) still without a factor.
std::vector<std::vector<int>*> targets(std::vector<TensorFactors>& tensors,
                                       const std::vector<ir::Shape>& shapes,
                                       const std::vector<std::int64_t>& dims, std::int64_t size) {
    std::vector<std::vector<int>*> out;
    for (std::size_t t = 0; t < tensors.size() && t < dims.size(); ++t) {
        const std::int64_t dim = dims[t];
        if (dim < 0 || dim >= static_cast<std::int64_t>(shapes[t].size()))
            continue;
        auto& factors = tensors[t][static_cast<std::size_t>(dim)];
        if (size == 1 && !factors.empty())
            continue;
        out.push_back(&factors);
    }
    return out;
}

std::vector<TensorFactors> emptyMappings(const std::vector<ir::Shape>& shapes) {
    std::vector<TensorFactors> out;
    out.reserve(shapes.size());
    for (const auto& shape : shapes)
        out.emplace_back(shape.size());
    return out;
}

}  // namespace

FactorRuleBuilder::FactorRuleBuilder(std::vector<ir::Shape> operandShapes,
                                     std::vector<ir::Shape> resultShapes)
    : operandShapes_(std::move(operandShapes)), resultShapes_(std::move(resultShapes)) {
    rule_.operands = emptyMappings(operandShapes_);
    rule_.results = emptyMappings(resultShapes_);
}

FactorRuleBuilder FactorRuleBuilder::forOp(const ir::Graph& graph, const ir::Op& op) {
    std::vector<ir::Shape> operands, results;
    operands.reserve(op.operands.size());
    results.reserve(op.results.size());
    for (ir::ValueId v : op.operands)
        operands.push_back(graph.type(v).shape);
    for (ir::ValueId v : op.results)
        results.push_back(graph.type(v).shape);
    return FactorRuleBuilder(std::move(operands), std::move(results));
}

FactorRuleBuilder& FactorRuleBuilder::add(const std::vector<std::int64_t>& operandDims,
                                          const std::vector<std::int64_t>& resultDims, std::int64_t size,
                                          FactorKind kind, bool blocked) {
    auto dims = targets(rule_.operands, operandShapes_, operandDims, size);
    const auto resultTargets = targets(rule_.results, resultShapes_, resultDims, size);
    dims.insert(dims.end(), resultTargets.begin(), resultTargets.end());
    if (dims.empty())
        return *this;  // a size-1 factor with nowhere to go, or dimensions out of range
    const int factor = static_cast<int>(rule_.factors.size());
    rule_.factors.push_back(Factor{size, kind, blocked});
    for (auto* d : dims)
        d->push_back(factor);
    return *this;
}

FactorRuleBuilder& FactorRuleBuilder::addToAll(std::int64_t operandDim, std::int64_t resultDim,
                                               std::int64_t size, FactorKind kind, bool blocked) {
    return add(std::vector<std::int64_t>(operandShapes_.size(), operandDim),
               std::vector<std::int64_t>(resultShapes_.size(), resultDim), size, kind, blocked);
}

FactorRuleBuilder& FactorRuleBuilder::addPointwise(const ir::Shape& shape,
                                                   const std::function<FactorKind(std::int64_t)>& kindOf,
                                                   bool blocked) {
    for (std::size_t d = 0; d < shape.size(); ++d) {
        const auto dim = static_cast<std::int64_t>(d);
        addToAll(dim, shape[d], kindOf ? kindOf(dim) : FactorKind::PassThrough, blocked);
    }
    return *this;
}

FactorRuleBuilder& FactorRuleBuilder::addPointwiseWithKindForMismatch(const ir::Shape& inShape,
                                                                      const ir::Shape& outShape,
                                                                      FactorKind mismatchKind,
                                                                      bool mismatchBlocked) {
    for (std::size_t d = 0; d < inShape.size(); ++d) {
        const bool match = d < outShape.size() && inShape[d] == outShape[d];
        addToAll(static_cast<std::int64_t>(d), inShape[d], match ? FactorKind::PassThrough : mismatchKind,
                 !match && mismatchBlocked);
    }
    return *this;
}

FactorRule FactorRuleBuilder::build() const {
    FactorRule rule = rule_;
    auto fill = [&rule](std::vector<TensorFactors>& tensors, const std::vector<ir::Shape>& shapes) {
        for (std::size_t t = 0; t < tensors.size(); ++t)
            for (std::size_t d = 0; d < tensors[t].size(); ++d)
                if (tensors[t][d].empty()) {
                    tensors[t][d].push_back(static_cast<int>(rule.factors.size()));
                    const std::int64_t size = shapes[t][d];
                    rule.factors.push_back(Factor{
                        size, size <= 1 ? FactorKind::PassThrough : FactorKind::NeedReplication, false});
                }
    };
    fill(rule.operands, operandShapes_);
    fill(rule.results, resultShapes_);
    return rule;
}

}  // namespace shardscope::analysis
