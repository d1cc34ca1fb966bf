// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Factor rules per op kind, after Shardy's op_sharding_rule_registry.cc (openxla/shardy,
// shardy/dialect/sdy/transforms/propagation/). Each case below says where it follows Shardy and where, and
// why, it does not. The conformance test (tests/tst_factor_rules.cpp) checks them against Shardy's own
// expectations.
//
// Where we differ from Shardy on purpose (none of these cases is in the conformance file unless noted):
// - Shardy gives no rule to constant, iota, while, case, if, optimization_barrier and rng (it handles control
//   flow with data-flow edges); every op needs one here. Constant, iota and rng results get pass-through
//   factors (each device can make its own part); while and optimization_barrier tie operand i to result i;
//   case and if results get factors of their own (the analysis ties them to the branch results).
// - Shardy adds a size-1 factor to a dimension no factor covers (a convolution's kernel or output spatial
//   dimension that the window factors do not reach); such a dimension cannot be sharded at the op, so here it
//   gets a need-replication factor of its own size instead. A convolution input spatial dimension whose two
//   window factors would not multiply to its size (Shardy's 7 = [3, 2]) keeps only the major one. Only rules
//   that would otherwise break the size contract of factor_rule.h change.
// - pad and reduce_window treat a dimension with non-zero edge padding (or a non-unit window, stride or
//   dilation) as permutation even when its size does not change: the data moves (Shardy's conformance file
//   shows reduce_window doing so).
// - A scatter's index-batch dimensions are reductions only when every result is combined by the same single
//   associative op (add, multiply, max, min, and, or, xor); a scatter that overwrites, or mixes combiners
//   (Shardy's "unsupported multi reduction op"), needs them replicated.
// - Attributes our IR does not carry (yet) are inferred from types: batch-norm feature_index from the scale's
//   size, triangular_solve's left_side from the shapes (transpose_a is taken as NO_TRANSPOSE), an FFT's
//   length count from a DimensionsAttribute holding fft_length when present, else 1.
// - The importer does not keep a custom call's own `sdy.sharding_rule` attribute, so such rules are unseen:
//   an unknown target gets the opaque rule.
#include "shardscope/analysis/factor_rule.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <variant>

#include "analysis/factor_rule_builder.h"

namespace shardscope::analysis {

namespace {

using ir::Dims;
using ir::Graph;
using ir::Op;
using ir::OpKind;
using ir::Shape;
using Dim = std::int64_t;

bool contains(const Dims& dims, Dim d) {
    return std::find(dims.begin(), dims.end(), d) != dims.end();
}
Dim rankOf(const Shape& s) {
    return static_cast<Dim>(s.size());
}
Dim at(const Shape& s, Dim d) {
    return d >= 0 && d < rankOf(s) ? s[static_cast<std::size_t>(d)] : 0;
}
bool inRange(Dim d, const Shape& s) {
    return d >= 0 && d < rankOf(s);
}
bool allInRange(const Dims& dims, const Shape& s) {
    return std::all_of(dims.begin(), dims.end(), [&](Dim d) { return inRange(d, s); });
}
std::vector<Dim> repeat(std::size_t n, Dim d) {
    return std::vector<Dim>(n, d);
}
// `dims` with entry `index` set to `d` (other entries kNullDim), for adding a factor to one tensor.
std::vector<Dim> only(std::size_t count, std::size_t index, Dim d) {
    std::vector<Dim> dims(count, kNullDim);
    if (index < count)
        dims[index] = d;
    return dims;
}

// What a rule derivation sees of an op.
struct Context {
    const Graph& graph;
    const Op& op;

    const Shape& operand(std::size_t i) const {
        static const Shape kNone;
        return i < op.operands.size() ? graph.type(op.operands[i]).shape : kNone;
    }
    const Shape& result(std::size_t i) const {
        static const Shape kNone;
        return i < op.results.size() ? graph.type(op.results[i]).shape : kNone;
    }
    std::size_t operandCount() const { return op.operands.size(); }
    std::size_t resultCount() const { return op.results.size(); }
    FactorRuleBuilder builder() const { return FactorRuleBuilder::forOp(graph, op); }
    template <typename T>
    const T* attributes() const {
        return std::get_if<T>(&op.attributes);
    }
    // The op producing `value`, if any.
    const Op* producer(ir::ValueId value) const {
        const ir::Value& v = graph.value(value);
        return v.producer.valid() ? &graph.op(v.producer) : nullptr;
    }
};

using Derived = std::optional<FactorRule>;

// Every dimension of every tensor is its own need-replication factor (size-1 dimensions pass through, as they
// would in Shardy: there is nothing to shard).
FactorRule opaqueRule(const Context& c) {
    FactorRuleBuilder b = c.builder();
    auto kind = [](Dim size) { return size == 1 ? FactorKind::PassThrough : FactorKind::NeedReplication; };
    for (std::size_t t = 0; t < c.operandCount(); ++t)
        for (Dim d = 0; d < rankOf(c.operand(t)); ++d)
            b.add(only(c.operandCount(), t, d), {}, at(c.operand(t), d), kind(at(c.operand(t), d)));
    for (std::size_t t = 0; t < c.resultCount(); ++t)
        for (Dim d = 0; d < rankOf(c.result(t)); ++d)
            b.add({}, only(c.resultCount(), t, d), at(c.result(t), d), kind(at(c.result(t), d)));
    return b.build();
}

// Shardy's buildPointwise: one factor per dimension of the first result, shared by every operand and result
// of that shape; scalars (an implicitly broadcast select predicate or clamp bound) have no dimensions. A
// tensor of any other shape would be malformed; its dimensions become need-replication factors of their own.
FactorRule pointwiseRule(const Context& c, const std::function<FactorKind(Dim)>& kindOf = {},
                         bool blocked = false) {
    const Shape& shape = c.resultCount() ? c.result(0) : c.operand(0);
    std::vector<bool> operandFits(c.operandCount()), resultFits(c.resultCount());
    for (std::size_t t = 0; t < c.operandCount(); ++t)
        operandFits[t] = c.operand(t) == shape;
    for (std::size_t t = 0; t < c.resultCount(); ++t)
        resultFits[t] = c.result(t) == shape;
    FactorRuleBuilder b = c.builder();
    for (Dim d = 0; d < rankOf(shape); ++d) {
        std::vector<Dim> operandDims(c.operandCount(), kNullDim), resultDims(c.resultCount(), kNullDim);
        for (std::size_t t = 0; t < operandDims.size(); ++t)
            if (operandFits[t])
                operandDims[t] = d;
        for (std::size_t t = 0; t < resultDims.size(); ++t)
            if (resultFits[t])
                resultDims[t] = d;
        b.add(operandDims, resultDims, at(shape, d), kindOf ? kindOf(d) : FactorKind::PassThrough, blocked);
    }
    for (std::size_t t = 0; t < c.operandCount(); ++t)
        if (!operandFits[t])
            for (Dim d = 0; d < rankOf(c.operand(t)); ++d)
                b.add(only(c.operandCount(), t, d), {}, at(c.operand(t), d), FactorKind::NeedReplication);
    for (std::size_t t = 0; t < c.resultCount(); ++t)
        if (!resultFits[t])
            for (Dim d = 0; d < rankOf(c.result(t)); ++d)
                b.add({}, only(c.resultCount(), t, d), at(c.result(t), d), FactorKind::NeedReplication);
    return b.build();
}

// Operand i and result i share their factors, pair by pair (while, optimization_barrier, variadic collectives
// of mixed shapes). Unpaired tensors get factors of their own.
FactorRule pairwiseRule(const Context& c) {
    FactorRuleBuilder b = c.builder();
    const std::size_t pairs = std::min(c.operandCount(), c.resultCount());
    for (std::size_t t = 0; t < pairs; ++t) {
        const bool same = c.operand(t) == c.result(t);
        for (Dim d = 0; d < rankOf(c.result(t)); ++d)
            b.add(same ? only(c.operandCount(), t, d) : std::vector<Dim>{}, only(c.resultCount(), t, d),
                  at(c.result(t), d));
    }
    for (std::size_t t = 0; t < c.resultCount(); ++t)
        for (Dim d = 0; d < rankOf(c.result(t)); ++d)
            if (t >= pairs)
                b.add({}, only(c.resultCount(), t, d), at(c.result(t), d));
    return b.build();  // unpaired operands and mismatched pairs: need-replication fill
}

// Results whose every dimension is free (constant, iota, rng, case and if results).
FactorRule freeResultsRule(const Context& c) {
    FactorRuleBuilder b = c.builder();
    for (std::size_t t = 0; t < c.resultCount(); ++t)
        for (Dim d = 0; d < rankOf(c.result(t)); ++d)
            b.add({}, only(c.resultCount(), t, d), at(c.result(t), d));
    return b.build();
}

bool allShapesEqual(const Context& c) {
    const Shape& first = c.operandCount() ? c.operand(0) : c.result(0);
    for (std::size_t t = 0; t < c.operandCount(); ++t)
        if (c.operand(t) != first)
            return false;
    for (std::size_t t = 0; t < c.resultCount(); ++t)
        if (c.result(t) != first)
            return false;
    return true;
}

// ----- collectives (already-partitioned programs) -----

// all_gather, reduce_scatter, all_to_all: the dimensions a collective gathers, scatters, splits or
// concatenates differ in size between operand and result and need replication; the others pass through.
Derived collectiveRule(const Context& c, const std::vector<Dim>& collectiveDims) {
    const Shape& in = c.operand(0);
    const Shape& out = c.result(0);
    if (in.size() != out.size())
        return std::nullopt;
    FactorRuleBuilder b = c.builder();
    for (Dim d = 0; d < rankOf(in); ++d) {
        if (std::find(collectiveDims.begin(), collectiveDims.end(), d) != collectiveDims.end()) {
            b.addToAll(d, kNullDim, at(in, d), FactorKind::NeedReplication);
            b.addToAll(kNullDim, d, at(out, d), FactorKind::NeedReplication);
        } else {
            b.addToAll(d, at(in, d));
        }
    }
    return b.build();
}

// ----- structural ops, alphabetical as in Shardy's registry -----

// Our IR keeps no feature_index for batch norm (importer gap): the feature dimension is the one whose size is
// the scale's; when several match, dimension 1 (NCHW) if it matches, else the last match (NHWC).
std::optional<Dim> batchNormFeatureDim(const Context& c) {
    if (const auto* a = c.attributes<ir::DimensionAttribute>())
        return inRange(a->dimension, c.operand(0)) ? std::optional<Dim>(a->dimension) : std::nullopt;
    const Shape& x = c.operand(0);
    const Shape& scale = c.operand(1);
    if (scale.size() != 1)
        return std::nullopt;
    std::vector<Dim> matches;
    for (Dim d = 0; d < rankOf(x); ++d)
        if (at(x, d) == scale[0])
            matches.push_back(d);
    if (matches.empty())
        return std::nullopt;
    if (matches.size() > 1 && std::find(matches.begin(), matches.end(), 1) != matches.end())
        return 1;
    return matches.back();
}

// batch_norm_inference (x, scale, offset, mean, variance) -> y; batch_norm_training (x, scale, offset) ->
// (y, mean, variance); batch_norm_grad (x, scale, mean, variance, dy) -> (dx, dscale, doffset). The feature
// dimension is shared with the per-feature vectors; the other dimensions pass through x and its same-shaped
// companions. Approximation: the statistics of training and grad are sums over those dimensions, so sharding
// them also needs a small all-reduce of per-feature vectors that the rule does not express.
Derived batchNormRule(const Context& c) {
    const auto feature = batchNormFeatureDim(c);
    if (!feature)
        return std::nullopt;
    const Shape& x = c.operand(0);
    FactorRuleBuilder b = c.builder();
    for (Dim d = 0; d < rankOf(x); ++d) {
        std::vector<Dim> operandDims(c.operandCount(), kNullDim), resultDims(c.resultCount(), kNullDim);
        for (std::size_t t = 0; t < c.operandCount(); ++t) {
            if (c.operand(t) == x)
                operandDims[t] = d;
            else if (d == *feature && c.operand(t).size() == 1)
                operandDims[t] = 0;
        }
        for (std::size_t t = 0; t < c.resultCount(); ++t) {
            if (c.result(t) == x)
                resultDims[t] = d;
            else if (d == *feature && c.result(t).size() == 1)
                resultDims[t] = 0;
        }
        b.add(operandDims, resultDims, at(x, d));
    }
    return b.build();
}

// As Shardy: any dimension but the extra innermost one of the narrower element type.
Derived bitcastConvertRule(const Context& c) {
    const Shape& in = c.operand(0);
    const Shape& out = c.result(0);
    FactorRuleBuilder b = c.builder();
    b.addPointwise(in.size() < out.size() ? in : out);
    if (in.size() < out.size())
        b.add({}, {rankOf(out) - 1}, out.back(), FactorKind::NeedReplication);
    else if (in.size() > out.size())
        b.add({rankOf(in) - 1}, {}, in.back(), FactorKind::NeedReplication);
    return b.build();
}

// As Shardy: mapped dimensions are shared; a size-1 operand dimension expanded in place gets its own size-1
// factor and the result dimension a factor of its own, as does every broadcast dimension.
Derived broadcastInDimRule(const Context& c) {
    const auto* a = c.attributes<ir::BroadcastDimensions>();
    const Shape& in = c.operand(0);
    const Shape& out = c.result(0);
    if (!a || a->dims.size() != in.size() || !allInRange(a->dims, out))
        return std::nullopt;
    std::vector<Dim> outToIn(out.size(), kNullDim);
    for (std::size_t i = 0; i < a->dims.size(); ++i)
        outToIn[static_cast<std::size_t>(a->dims[i])] = static_cast<Dim>(i);
    FactorRuleBuilder b = c.builder();
    for (Dim outDim = 0; outDim < rankOf(out); ++outDim) {
        Dim inDim = outToIn[static_cast<std::size_t>(outDim)];
        if (inDim != kNullDim && at(in, inDim) == 1 && at(out, outDim) != 1) {
            b.add({inDim}, {}, 1);
            inDim = kNullDim;
        }
        b.add({inDim}, {outDim}, at(out, outDim));
    }
    return b.build();
}

// As Shardy: batch dimensions pass through, the two matrix dimensions need replication.
Derived choleskyRule(const Context& c) {
    const Dim batch = rankOf(c.operand(0)) - 2;
    return pointwiseRule(
        c, [batch](Dim d) { return d < batch ? FactorKind::PassThrough : FactorKind::NeedReplication; });
}

// As Shardy: pointwise; the concatenated dimension is a permutation when the operands are all slices, or
// slices of one tensor and that tensor itself (re-assembling one tensor), and needs replication otherwise.
// Its factor has the result's size. A single operand is an identity and passes through.
Derived concatenateRule(const Context& c) {
    const auto* a = c.attributes<ir::DimensionAttribute>();
    const Shape& out = c.result(0);
    if (!a || !inRange(a->dimension, out))
        return std::nullopt;
    const Dim dim = a->dimension;
    auto sliceSource = [&](ir::ValueId v) -> std::optional<ir::ValueId> {
        const Op* p = c.producer(v);
        if (p && p->kind == OpKind::Slice && !p->operands.empty())
            return p->operands[0];
        return std::nullopt;
    };
    auto base = [&](ir::ValueId v) { return sliceSource(v).value_or(v); };
    bool allSlices = true, anySlice = false, sameBase = true, identity = true;
    for (std::size_t t = 0; t < c.operandCount(); ++t) {
        const bool slice = sliceSource(c.op.operands[t]).has_value();
        allSlices = allSlices && slice;
        anySlice = anySlice || slice;
        sameBase = sameBase && base(c.op.operands[t]) == base(c.op.operands[0]);
        identity = identity && at(c.operand(t), dim) == at(out, dim);
    }
    const FactorKind kind = identity                              ? FactorKind::PassThrough
                            : allSlices || (sameBase && anySlice) ? FactorKind::Permutation
                                                                  : FactorKind::NeedReplication;
    return c.builder()
        .addPointwise(out, [&](Dim d) { return d == dim ? kind : FactorKind::PassThrough; })
        .build();
}

// As Shardy: batch-group and feature-group factors, the per-group batch, per spatial dimension a
// number-of-windows factor (permutation, input and output) and a window-size factor (reduction, input and
// kernel) in decreasing size, the per-group input feature (reduction) and the output feature.
Derived convolutionRule(const Context& c) {
    const auto* a = c.attributes<ir::ConvolutionAttributes>();
    const Shape& lhs = c.operand(0);
    const Shape& rhs = c.operand(1);
    const Shape& out = c.result(0);
    if (!a || a->batchGroupCount < 1 || a->featureGroupCount < 1)
        return std::nullopt;
    if (!inRange(a->inputBatch, lhs) || !inRange(a->inputFeature, lhs) || !allInRange(a->inputSpatial, lhs) ||
        !inRange(a->kernelInputFeature, rhs) || !inRange(a->kernelOutputFeature, rhs) ||
        !allInRange(a->kernelSpatial, rhs) || !inRange(a->outputBatch, out) ||
        !inRange(a->outputFeature, out) || !allInRange(a->outputSpatial, out) ||
        a->inputSpatial.size() != a->kernelSpatial.size() ||
        a->inputSpatial.size() != a->outputSpatial.size())
        return std::nullopt;
    FactorRuleBuilder b = c.builder();
    if (a->batchGroupCount > 1)
        b.add({a->inputBatch, a->kernelOutputFeature}, {a->outputFeature}, a->batchGroupCount);
    b.add({a->inputBatch, kNullDim}, {a->outputBatch}, at(out, a->outputBatch));
    for (std::size_t k = 0; k < a->inputSpatial.size(); ++k) {
        const Dim lhsDim = a->inputSpatial[k], rhsDim = a->kernelSpatial[k], outDim = a->outputSpatial[k];
        const Dim numWindows = at(out, outDim), windowSize = at(rhs, rhsDim), lhsSize = at(lhs, lhsDim);
        Dim remaining = lhsSize, added = 1;
        auto addSpatial = [&](Dim size, bool contracting) {
            size = std::min(remaining, size);
            // Shardy adds the minor factor even when the two do not multiply to the input size (7 = [3, 2]);
            // then one factor alone stands for the dimension (a mismatch factor, see factor_rule.h).
            if (size <= 1 || (added > 1 && added * size != lhsSize))
                return;
            b.add({lhsDim, contracting ? rhsDim : kNullDim}, {contracting ? kNullDim : outDim}, size,
                  contracting ? FactorKind::Reduction : FactorKind::Permutation);
            remaining /= size;
            added *= size;
        };
        if (numWindows >= windowSize) {
            addSpatial(numWindows, false);
            addSpatial(windowSize, true);
        } else {
            addSpatial(windowSize, true);
            addSpatial(numWindows, false);
        }
    }
    if (a->featureGroupCount > 1)
        b.add({a->inputFeature, a->kernelOutputFeature}, {a->outputFeature}, a->featureGroupCount);
    b.add({a->inputFeature, a->kernelInputFeature}, {}, at(rhs, a->kernelInputFeature),
          FactorKind::Reduction);
    b.add({kNullDim, a->kernelOutputFeature}, {a->outputFeature},
          at(out, a->outputFeature) / (a->batchGroupCount * a->featureGroupCount));
    return b.build();  // kernel or output spatial dimensions no window factor reaches: need-replication fill
}

// Top-k over the last dimension (mhlo.topk, TopK, chlo.top_k) as Shardy: the operand's last dimension needs
// replication and is blocked; the other dimensions pass through to both results.
Derived topKRule(const Context& c) {
    if (c.resultCount() == 0)
        return std::nullopt;
    return c.builder()
        .addPointwiseWithKindForMismatch(c.operand(0), c.result(0), FactorKind::NeedReplication, true)
        .build();
}

bool usedByRngBitGenerator(const Context& c) {
    if (c.op.results.empty())
        return false;
    const ir::ValueId v = c.op.results[0];
    return std::any_of(c.graph.ops.begin(), c.graph.ops.end(), [&](const Op& user) {
        return user.kind == OpKind::RngBitGenerator &&
               std::find(user.operands.begin(), user.operands.end(), v) != user.operands.end();
    });
}

// Custom calls Shardy's registry knows, by target; anything else gets the opaque rule.
Derived customCallRule(const Context& c) {
    const auto* a = c.attributes<ir::CustomCallAttributes>();
    if (!a)
        return std::nullopt;
    const std::string& target = a->target;
    static const std::set<std::string, std::less<>> kPointwise = {
        "Sharding",  // sharding constraints (sdy.sharding_constraint, sdy.reshard import as this)
        "annotate_device_placement",
        "Cholesky",
        "CompactWyHelper",
        "InspectSharding",
        "InvertDiagBlocksLowerTriangular",
        "InvertDiagBlocksUpperTriangular",
        "LayoutConstraint",
        "mhlo.erf",
        "MoveToDevice",
        "MoveToHost",
        "X64SplitHigh",
        "X64SplitLow",
        "xla.megascale.provide_metadata"};
    if (kPointwise.count(target))
        return pointwiseRule(c);
    if (target == "X64Combine") {
        // The initial state of an rng_bit_generator must be replicated and cannot be resharded after the
        // combine.
        const bool rng = usedByRngBitGenerator(c);
        return pointwiseRule(
            c, [rng](Dim) { return rng ? FactorKind::NeedReplication : FactorKind::PassThrough; }, rng);
    }
    const Shape& in = c.operand(0);
    const Dim rank = rankOf(in);
    auto batchDims = [&](FactorRuleBuilder& b) {
        for (Dim d = 0; d + 2 < rank; ++d)
            b.addToAll(d, at(in, d));
    };
    if (target == "Eigh") {
        if (c.operandCount() != 1 || c.resultCount() != 2 || rank < 2)
            return std::nullopt;
        FactorRuleBuilder b = c.builder();
        batchDims(b);
        b.add({rank - 2}, {rank - 2, kNullDim}, at(in, rank - 2));
        b.add({rank - 1}, {rank - 1, rank - 2}, at(in, rank - 1));
        return b.build();
    }
    if (target == "Qr" || target == "QrDecompositionBlock") {
        if (c.operandCount() != 1 || c.resultCount() != 2 || rank < 2)
            return std::nullopt;
        FactorRuleBuilder b = c.builder();
        batchDims(b);
        b.add({rank - 2}, {rank - 2, kNullDim}, at(in, rank - 2), FactorKind::NeedReplication);
        b.add({rank - 1}, {rank - 1, kNullDim}, at(in, rank - 1), FactorKind::NeedReplication);
        b.add({kNullDim}, {kNullDim, rank - 2}, at(c.result(1), rank - 2), FactorKind::NeedReplication);
        return b.build();
    }
    if (target == "ProductOfElementaryHouseholderReflectors") {
        if (c.operandCount() != 2 || c.resultCount() != 1 || rank < 2)
            return std::nullopt;
        FactorRuleBuilder b = c.builder();
        batchDims(b);
        b.add({rank - 2, kNullDim}, {rank - 2}, at(in, rank - 2), FactorKind::NeedReplication);
        b.add({rank - 1, kNullDim}, {rank - 1}, at(in, rank - 1), FactorKind::NeedReplication);
        b.add({kNullDim, rank - 2}, {}, at(c.operand(1), rank - 2), FactorKind::NeedReplication);
        return b.build();
    }
    if (target == "mhlo.topk" || target == "TopK")
        return topKRule(c);
    if (target == "ApproxTopK" || target == "PartialReduce") {
        // (operand, iota, init value, init index) -> (values, indices); the reduced dimension passes through
        // the two inputs and is a new blocked need-replication factor in the two results.
        if (c.operandCount() != 4 || c.resultCount() != 2 || c.operand(0).size() != c.result(0).size())
            return std::nullopt;
        const Shape& out = c.result(0);
        FactorRuleBuilder b = c.builder();
        for (Dim d = 0; d < rank; ++d) {
            if (at(in, d) == at(out, d)) {
                b.addToAll(d, at(in, d));
            } else {
                b.add({d, d, kNullDim, kNullDim}, {}, at(in, d));
                b.add({}, {d, d}, at(out, d), FactorKind::NeedReplication, true);
            }
        }
        return b.build();
    }
    if (target == "SPMDFullToShardShape" || target == "SPMDShardToFullShape") {
        // Boundaries of manually partitioned code (not in Shardy's registry, which converts them away): equal
        // dimensions pass through; the manually sharded ones differ in size and are cut.
        const Shape& out = c.result(0);
        if (in.size() != out.size())
            return std::nullopt;
        FactorRuleBuilder b = c.builder();
        for (Dim d = 0; d < rank; ++d) {
            if (at(in, d) == at(out, d)) {
                b.add({d}, {d}, at(in, d));
            } else {
                b.add({d}, {}, at(in, d), FactorKind::NeedReplication, true);
                b.add({}, {d}, at(out, d), FactorKind::NeedReplication, true);
            }
        }
        return b.build();
    }
    return std::nullopt;  // tpu_custom_call, host callbacks and unknown targets
}

// As Shardy: batching dimensions, then the free dimensions of lhs and rhs, then the contracting dimensions
// (reduction).
Derived dotGeneralRule(const Context& c) {
    const auto* a = c.attributes<ir::DotDimensions>();
    const Shape& lhs = c.operand(0);
    const Shape& rhs = c.operand(1);
    if (!a || a->lhsBatching.size() != a->rhsBatching.size() ||
        a->lhsContracting.size() != a->rhsContracting.size() || !allInRange(a->lhsBatching, lhs) ||
        !allInRange(a->rhsBatching, rhs) || !allInRange(a->lhsContracting, lhs) ||
        !allInRange(a->rhsContracting, rhs))
        return std::nullopt;
    FactorRuleBuilder b = c.builder();
    Dim outDim = 0;
    for (std::size_t k = 0; k < a->lhsBatching.size(); ++k)
        b.add({a->lhsBatching[k], a->rhsBatching[k]}, {outDim++}, at(lhs, a->lhsBatching[k]));
    for (Dim d = 0; d < rankOf(lhs); ++d)
        if (!contains(a->lhsContracting, d) && !contains(a->lhsBatching, d))
            b.add({d, kNullDim}, {outDim++}, at(lhs, d));
    for (Dim d = 0; d < rankOf(rhs); ++d)
        if (!contains(a->rhsContracting, d) && !contains(a->rhsBatching, d))
            b.add({kNullDim, d}, {outDim++}, at(rhs, d));
    for (std::size_t k = 0; k < a->lhsContracting.size(); ++k)
        b.add({a->lhsContracting[k], a->rhsContracting[k]}, {}, at(lhs, a->lhsContracting[k]),
              FactorKind::Reduction);
    return b.build();
}

// As Shardy: a sliced dimension needs replication and is blocked (the start is only known at run time).
Derived dynamicSliceRule(const Context& c) {
    const Shape& in = c.operand(0);
    const Shape& out = c.result(0);
    if (in.size() != out.size())
        return std::nullopt;
    FactorRuleBuilder b = c.builder();
    for (Dim d = 0; d < rankOf(in); ++d) {
        const bool same = at(in, d) == at(out, d);
        b.add({d}, {d}, at(in, d), same ? FactorKind::PassThrough : FactorKind::NeedReplication, !same);
    }
    return b.build();
}

bool isConstant(const Context& c, ir::ValueId v) {
    const Op* p = c.producer(v);
    if (!p)
        return false;
    if (p->kind == OpKind::Constant)
        return true;
    const auto* opaque = std::get_if<ir::OpaqueAttributes>(&p->attributes);
    return p->kind == OpKind::Opaque && opaque && opaque->name == "sdy.constant";
}

// As Shardy: a dimension the update covers entirely is shared by operand, update and result; a sliced
// dimension stays sharded in operand and result (each device updates its own part) while the update's
// dimension is a factor of its own that needs replication, unless every start index is a constant.
Derived dynamicUpdateSliceRule(const Context& c) {
    const Shape& operand = c.operand(0);
    const Shape& update = c.operand(1);
    if (operand.size() != update.size())
        return std::nullopt;
    bool constantIndices = true;
    for (std::size_t t = 2; t < c.operandCount(); ++t)
        constantIndices = constantIndices && isConstant(c, c.op.operands[t]);
    FactorRuleBuilder b = c.builder();
    for (Dim d = 0; d < rankOf(operand); ++d) {
        if (at(operand, d) == at(update, d)) {
            b.add({d, d}, {d}, at(operand, d));
        } else {
            b.add({d, kNullDim}, {d}, at(operand, d));
            b.add({kNullDim, d}, {}, at(update, d),
                  constantIndices ? FactorKind::PassThrough : FactorKind::NeedReplication);
        }
    }
    return b.build();
}

// As Shardy: leading dimensions are batch; the transformed trailing dimensions need replication; the last one
// is blocked when its size changes (RFFT, IRFFT). The length count comes from a DimensionsAttribute holding
// fft_length; our importer does not keep it yet, and then one transformed dimension is assumed.
Derived fftRule(const Context& c) {
    const Shape& in = c.operand(0);
    const Shape& out = c.result(0);
    if (in.empty() || in.size() != out.size())
        return std::nullopt;
    Dim lengths = 1;
    if (const auto* a = c.attributes<ir::DimensionsAttribute>())
        lengths = static_cast<Dim>(a->dimensions.size());
    lengths = std::clamp<Dim>(lengths, 1, rankOf(in));
    FactorRuleBuilder b = c.builder();
    for (Dim d = 0; d < rankOf(in); ++d) {
        if (d < rankOf(in) - lengths)
            b.addToAll(d, at(in, d));
        else if (d < rankOf(in) - 1)
            b.addToAll(d, at(in, d), FactorKind::NeedReplication);
        else
            b.addToAll(d, at(in, d), FactorKind::NeedReplication, in.back() != out.back());
    }
    return b.build();
}

// Factors of gather and scatter, after Shardy's addGatherScatterFactors: `add(inputDim, indicesDim,
// slicesDim, size, kind, blocked)` adds one factor. `indexBatchKind` is the kind of an index-batch dimension
// that the input does not have (pass-through for gather; reduction or need-replication for scatter).
using GatherScatterAdd = std::function<void(Dim, Dim, Dim, Dim, FactorKind, bool)>;

bool addGatherScatterFactors(bool isScatter, FactorKind indexBatchKind, const Shape& input,
                             const Shape& slices, const Shape& indices, Dim indexVectorDim,
                             const Dims& offsetDims, const Dims& collapsedSliceDims,
                             const Dims& inputBatchingDims, const Dims& indicesBatchingDims,
                             const GatherScatterAdd& add) {
    if (inputBatchingDims.size() != indicesBatchingDims.size())
        return false;
    Dim inputDim = 0, batchDimPos = 0;
    for (Dim slicesDim = 0; slicesDim < rankOf(slices); ++slicesDim) {
        const Dim slicesSize = at(slices, slicesDim);
        if (contains(offsetDims, slicesDim)) {
            while (contains(collapsedSliceDims, inputDim) || contains(inputBatchingDims, inputDim))
                ++inputDim;
            if (!inRange(inputDim, input))
                return false;
            const Dim inputSize = at(input, inputDim);
            if (inputSize == slicesSize) {
                add(inputDim, kNullDim, slicesDim, inputSize, FactorKind::PassThrough, false);
            } else if (isScatter) {
                // Shardy's conformance file: both the operand's and the update's window need replication.
                add(inputDim, kNullDim, kNullDim, inputSize, FactorKind::NeedReplication, false);
                add(kNullDim, kNullDim, slicesDim, slicesSize, FactorKind::NeedReplication, false);
            } else if (slicesSize == 1) {
                // Keeping the operand dimension sharded needs an all-reduce of the result.
                add(inputDim, kNullDim, kNullDim, inputSize, FactorKind::Reduction, false);
                add(kNullDim, kNullDim, slicesDim, slicesSize, FactorKind::NeedReplication, false);
            } else {
                add(inputDim, kNullDim, slicesDim, inputSize, FactorKind::NeedReplication, true);
            }
            ++inputDim;
        } else {
            const Dim indicesDim = batchDimPos < indexVectorDim ? batchDimPos : batchDimPos + 1;
            if (!inRange(indicesDim, indices))
                return false;
            const auto it = std::find(indicesBatchingDims.begin(), indicesBatchingDims.end(), indicesDim);
            const bool explicitBatch = it != indicesBatchingDims.end();
            const Dim inputBatchDim =
                explicitBatch ? inputBatchingDims[static_cast<std::size_t>(it - indicesBatchingDims.begin())]
                              : kNullDim;
            if (explicitBatch && !inRange(inputBatchDim, input))
                return false;
            add(inputBatchDim, indicesDim, slicesDim, slicesSize,
                explicitBatch ? FactorKind::PassThrough : indexBatchKind, false);
            ++batchDimPos;
        }
    }
    for (Dim collapsed : collapsedSliceDims) {
        if (!inRange(collapsed, input))
            return false;
        // Keeping a gather's collapsed operand dimension sharded needs an all-reduce of the result.
        add(collapsed, kNullDim, kNullDim, at(input, collapsed),
            isScatter ? FactorKind::PassThrough : FactorKind::Reduction, false);
    }
    if (indexVectorDim < rankOf(indices))
        add(kNullDim, indexVectorDim, kNullDim, at(indices, indexVectorDim), FactorKind::NeedReplication,
            false);
    return true;
}

Derived gatherRule(const Context& c) {
    const auto* a = c.attributes<ir::GatherAttributes>();
    if (!a || c.operandCount() != 2 || c.resultCount() != 1)
        return std::nullopt;
    FactorRuleBuilder b = c.builder();
    const bool ok = addGatherScatterFactors(
        false, FactorKind::PassThrough, c.operand(0), c.result(0), c.operand(1), a->indexVectorDim,
        a->offsetDims, a->collapsedSliceDims, a->operandBatchingDims, a->startIndicesBatchingDims,
        [&](Dim inputDim, Dim indicesDim, Dim slicesDim, Dim size, FactorKind kind, bool blocked) {
            b.add({inputDim, indicesDim}, {slicesDim}, size, kind, blocked);
        });
    if (!ok)
        return std::nullopt;
    return b.build();
}

// The single associative op combining every result of a scatter body with its update, or nullopt.
std::optional<OpKind> scatterCombiner(const Context& c) {
    if (c.op.regions.empty())
        return std::nullopt;
    const ir::Region& body = c.op.regions.front();
    const std::size_t n = c.resultCount();
    if (body.results.size() != n || body.arguments.size() != 2 * n)
        return std::nullopt;
    std::optional<OpKind> combiner;
    for (std::size_t k = 0; k < n; ++k) {
        const Op* p = c.producer(body.results[k]);
        if (!p || p->operands.size() != 2)
            return std::nullopt;
        static const std::set<OpKind> kAssociative = {OpKind::Add,     OpKind::Multiply, OpKind::Maximum,
                                                      OpKind::Minimum, OpKind::And,      OpKind::Or,
                                                      OpKind::Xor};
        if (!kAssociative.count(p->kind))
            return std::nullopt;
        const std::set<ir::ValueId> args(p->operands.begin(), p->operands.end());
        if (args != std::set<ir::ValueId>{body.arguments[k], body.arguments[n + k]})
            return std::nullopt;
        if (combiner && *combiner != p->kind)
            return std::nullopt;
        combiner = p->kind;
    }
    return combiner;
}

// As Shardy; the operands are N inputs, the indices and N updates, the results N tensors shaped like the
// inputs.
Derived scatterRule(const Context& c) {
    const auto* a = c.attributes<ir::ScatterAttributes>();
    const std::size_t n = c.resultCount();
    if (!a || n == 0 || c.operandCount() != 2 * n + 1)
        return std::nullopt;
    const FactorKind indexBatchKind =
        scatterCombiner(c) ? FactorKind::Reduction : FactorKind::NeedReplication;
    FactorRuleBuilder b = c.builder();
    const bool ok = addGatherScatterFactors(
        true, indexBatchKind, c.operand(0), c.operand(n + 1), c.operand(n), a->indexVectorDim,
        a->updateWindowDims, a->insertedWindowDims, a->inputBatchingDims, a->scatterIndicesBatchingDims,
        [&](Dim inputDim, Dim indicesDim, Dim updateDim, Dim size, FactorKind kind, bool blocked) {
            std::vector<Dim> operandDims = repeat(n, inputDim);
            operandDims.push_back(indicesDim);
            operandDims.insert(operandDims.end(), n, updateDim);
            b.add(operandDims, repeat(n, inputDim), size, kind, blocked);
        });
    if (!ok)
        return std::nullopt;
    return b.build();
}

// Whether window dimension `d` leaves the data where it is: unit window, stride and dilations, no padding.
bool trivialWindow(const ir::WindowAttributes& w, std::size_t d) {
    auto one = [d](const Dims& v) { return d >= v.size() || v[d] == 1; };
    const bool unpadded = d >= w.padding.size() || (w.padding[d].first == 0 && w.padding[d].second == 0);
    return one(w.windowDimensions) && one(w.windowStrides) && one(w.baseDilations) &&
           one(w.windowDilations) && unpadded;
}

// As Shardy: each dimension of the padded operand is a factor of the operand's size; a dimension that is
// padded is a permutation.
Derived padRule(const Context& c) {
    const auto* a = c.attributes<ir::PadAttributes>();
    const Shape& in = c.operand(0);
    const Shape& out = c.result(0);
    if (in.size() != out.size())
        return std::nullopt;
    FactorRuleBuilder b = c.builder();
    for (Dim d = 0; d < rankOf(in); ++d) {
        auto nonZero = [d](const Dims* v) {
            return v && static_cast<std::size_t>(d) < v->size() && (*v)[static_cast<std::size_t>(d)] != 0;
        };
        const bool moved = at(in, d) != at(out, d) ||
                           (a && (nonZero(&a->low) || nonZero(&a->high) || nonZero(&a->interior)));
        b.add({d}, {d}, at(in, d), moved ? FactorKind::Permutation : FactorKind::PassThrough);
    }
    return b.build();
}

// As Shardy: reduced dimensions are reductions of the inputs; the others pass through to the results.
Derived reduceRule(const Context& c) {
    const auto* a = c.attributes<ir::ReduceAttributes>();
    const std::size_t n = c.resultCount();
    if (!a || n == 0 || c.operandCount() != 2 * n)
        return std::nullopt;
    const Shape& in = c.operand(0);
    if (!allInRange(a->dimensions, in))
        return std::nullopt;
    FactorRuleBuilder b = c.builder();
    Dim outDim = 0;
    for (Dim d = 0; d < rankOf(in); ++d) {
        const std::vector<Dim> operandDims = repeat(n, d);
        if (contains(a->dimensions, d))
            b.add(operandDims, {}, at(in, d), FactorKind::Reduction);
        else
            b.add(operandDims, repeat(n, outDim++), at(in, d));
    }
    return b.build();
}

// As Shardy: one factor per dimension of the result's size (the number of windows), shared by inputs and
// results, a permutation unless the window leaves that dimension alone.
Derived reduceWindowRule(const Context& c) {
    const auto* w = c.attributes<ir::WindowAttributes>();
    const Shape& in = c.operand(0);
    const Shape& out = c.result(0);
    if (!w || in.size() != out.size())
        return std::nullopt;
    FactorRuleBuilder b = c.builder();
    for (Dim d = 0; d < rankOf(out); ++d) {
        const bool trivial = at(in, d) == at(out, d) && trivialWindow(*w, static_cast<std::size_t>(d));
        b.addToAll(d, at(out, d), trivial ? FactorKind::PassThrough : FactorKind::Permutation);
    }
    return b.build();
}

// Shardy's reshape algorithm: walk both shapes, adding common factors of the gcd of what is left of the
// current input and output dimensions, so that `[8, 4, 5] -> [2, 16, 5]` becomes `([ij, k, l])->([i, jk,
// l])`.
Derived reshapeRule(const Context& c) {
    const Shape& in = c.operand(0);
    const Shape& out = c.result(0);
    const std::int64_t elements = ir::elementCount(in);
    if (elements == 0 || elements != ir::elementCount(out))
        return std::nullopt;
    FactorRuleBuilder b = c.builder();
    const Dim inRank = rankOf(in), outRank = rankOf(out);
    Dim inDim = 0, outDim = 0;
    std::int64_t prodDimSizesIn = 1, prodDimSizesOut = 1, prodFactorsIn = 1, prodFactorsOut = 1;
    while (inDim < inRank || outDim < outRank) {
        if (inDim < inRank && at(in, inDim) == 1) {
            b.add({inDim++}, {}, 1);
            continue;
        }
        if (outDim < outRank && at(out, outDim) == 1) {
            b.add({}, {outDim++}, 1);
            continue;
        }
        if (inDim < inRank && prodDimSizesIn == prodFactorsIn)
            prodDimSizesIn *= at(in, inDim);
        if (outDim < outRank && prodDimSizesOut == prodFactorsOut)
            prodDimSizesOut *= at(out, outDim);
        std::int64_t nextIn = prodDimSizesIn / prodFactorsIn;
        std::int64_t nextOut = prodDimSizesOut / prodFactorsOut;
        const std::int64_t gcd = std::gcd(nextIn, nextOut);
        auto nextIfDiverged = [gcd](std::int64_t next, std::int64_t smallerProd, std::int64_t largerProd) {
            if (largerProd % smallerProd == 0 && next % (largerProd / smallerProd) == 0)
                return largerProd / smallerProd;
            if (next > gcd)
                return next / gcd;
            return next;
        };
        if (prodFactorsIn == prodFactorsOut) {
            if (gcd > 1) {
                b.add({inDim}, {outDim}, gcd);
                prodFactorsIn *= gcd;
                prodFactorsOut *= gcd;
            } else {
                if (nextIn <= 1 || nextOut <= 1)
                    return std::nullopt;  // cannot happen for equal element counts
                b.add({inDim}, {}, nextIn);
                prodFactorsIn *= nextIn;
                b.add({}, {outDim}, nextOut);
                prodFactorsOut *= nextOut;
            }
        } else if (prodFactorsIn < prodFactorsOut) {
            nextIn = nextIfDiverged(nextIn, prodFactorsIn, prodFactorsOut);
            b.add({inDim}, {}, nextIn);
            prodFactorsIn *= nextIn;
        } else {
            nextOut = nextIfDiverged(nextOut, prodFactorsOut, prodFactorsIn);
            b.add({}, {outDim}, nextOut);
            prodFactorsOut *= nextOut;
        }
        if (inDim < inRank && prodDimSizesIn == prodFactorsIn)
            ++inDim;
        if (outDim < outRank && prodDimSizesOut == prodFactorsOut)
            ++outDim;
    }
    return b.build();
}

// As Shardy: pointwise; a reversed dimension is a permutation.
Derived reverseRule(const Context& c) {
    const auto* a = c.attributes<ir::DimensionsAttribute>();
    const Dims reversed = a ? a->dimensions : Dims{};
    return pointwiseRule(
        c, [&](Dim d) { return contains(reversed, d) ? FactorKind::Permutation : FactorKind::PassThrough; });
}

// As Shardy: the state is replicated and blocked (in and out); the output's dimensions are free.
Derived rngBitGeneratorRule(const Context& c) {
    if (c.operandCount() != 1 || c.resultCount() != 2)
        return std::nullopt;
    const Shape& state = c.operand(0);
    FactorRuleBuilder b = c.builder();
    for (Dim d = 0; d < rankOf(state); ++d)
        b.add({d}, {d, kNullDim}, at(state, d), FactorKind::NeedReplication, true);
    for (Dim d = 0; d < rankOf(c.result(1)); ++d)
        b.add({}, {kNullDim, d}, at(c.result(1), d));
    return b.build();
}

// Shardy's newer rule: where the window moves data, the source dimension is a need-replication factor of its
// own and the operand/result dimension a permutation; elsewhere one factor is shared by all three.
Derived selectAndScatterRule(const Context& c) {
    const auto* w = c.attributes<ir::WindowAttributes>();
    const Shape& operand = c.operand(0);
    const Shape& source = c.operand(1);
    if (!w || operand.size() != source.size())
        return std::nullopt;
    FactorRuleBuilder b = c.builder();
    for (Dim d = 0; d < rankOf(operand); ++d) {
        if (at(operand, d) == at(source, d) && trivialWindow(*w, static_cast<std::size_t>(d))) {
            b.add({d, d}, {d}, at(operand, d));
        } else {
            b.add({kNullDim, d}, {}, at(source, d), FactorKind::NeedReplication);
            b.add({d, kNullDim}, {d}, at(operand, d), FactorKind::Permutation);
        }
    }
    return b.build();
}

// As Shardy: a sliced dimension is a permutation factor of the operand's size (the start is static, so the
// data can be shifted to keep it sharded).
Derived sliceRule(const Context& c) {
    const Shape& in = c.operand(0);
    const Shape& out = c.result(0);
    if (in.size() != out.size())
        return std::nullopt;
    FactorRuleBuilder b = c.builder();
    for (Dim d = 0; d < rankOf(in); ++d)
        b.add({d}, {d}, at(in, d),
              at(in, d) == at(out, d) ? FactorKind::PassThrough : FactorKind::Permutation);
    return b.build();
}

// As Shardy: the sort dimension needs replication, blocked when it is the only dimension larger than 1.
Derived sortRule(const Context& c) {
    const auto* a = c.attributes<ir::SortAttributes>();
    const Shape& shape = c.operand(0);
    Dim dim = a ? a->dimension : -1;
    if (dim < 0)
        dim += rankOf(shape);
    if (!inRange(dim, shape))
        return std::nullopt;
    bool blocked = true;
    for (Dim d = 0; d < rankOf(shape); ++d)
        blocked = blocked && (d == dim || at(shape, d) == 1);
    FactorRuleBuilder b = c.builder();
    for (Dim d = 0; d < rankOf(shape); ++d) {
        if (d == dim)
            b.addToAll(d, at(shape, d), FactorKind::NeedReplication, blocked);
        else
            b.addToAll(d, at(shape, d));
    }
    return b.build();
}

Derived transposeRule(const Context& c) {
    const auto* a = c.attributes<ir::Permutation>();
    const Shape& in = c.operand(0);
    if (!a || a->permutation.size() != in.size() || !allInRange(a->permutation, in))
        return std::nullopt;
    FactorRuleBuilder b = c.builder();
    for (std::size_t outDim = 0; outDim < a->permutation.size(); ++outDim)
        b.add({a->permutation[outDim]}, {static_cast<Dim>(outDim)}, at(in, a->permutation[outDim]));
    return b.build();
}

// As Shardy: batch dimensions pass through; the matrix dimensions need replication. Our IR keeps neither
// left_side nor transpose_a (importer gap): left_side is read from the shapes (left when a's order matches
// b's rows, right when it matches b's columns; left when b is square) and transpose_a is taken as
// NO_TRANSPOSE.
Derived triangularSolveRule(const Context& c) {
    const Shape& a = c.operand(0);
    const Shape& bShape = c.operand(1);
    const Dim rank = rankOf(a);
    if (rank < 2 || bShape.size() != a.size())
        return std::nullopt;
    const Dim dim1 = rank - 2, dim2 = rank - 1;
    const bool leftSide = at(a, dim2) == at(bShape, dim1) || at(a, dim2) != at(bShape, dim2);
    const bool transposeA = false;
    FactorRuleBuilder b = c.builder();
    for (Dim d = 0; d < dim1; ++d)
        b.addToAll(d, at(a, d));
    if (leftSide) {
        const Dim nonContracting = transposeA ? dim2 : dim1, contracting = transposeA ? dim1 : dim2;
        b.add({nonContracting, dim1}, {}, at(a, nonContracting), FactorKind::NeedReplication);
        b.add({kNullDim, dim2}, {dim2}, at(bShape, dim2), FactorKind::NeedReplication);
        b.add({contracting, kNullDim}, {dim1}, at(a, contracting), FactorKind::NeedReplication);
    } else {
        const Dim nonContracting = transposeA ? dim1 : dim2, contracting = transposeA ? dim2 : dim1;
        b.add({kNullDim, dim1}, {dim1}, at(bShape, dim1), FactorKind::NeedReplication);
        b.add({nonContracting, dim2}, {}, at(a, nonContracting), FactorKind::NeedReplication);
        b.add({contracting, kNullDim}, {dim2}, at(a, contracting), FactorKind::NeedReplication);
    }
    return b.build();
}

Derived derive(const Context& c) {
    const OpKind kind = c.op.kind;
    if (ir::isElementwise(kind))
        return pointwiseRule(c);
    switch (ir::category(kind)) {
        case ir::OpCategory::Collective:
            switch (kind) {
                case OpKind::AllGather:
                case OpKind::ReduceScatter: {
                    const auto* a = c.attributes<ir::CollectiveAttributes>();
                    if (!a)
                        return std::nullopt;
                    return collectiveRule(c, {a->dimension});
                }
                case OpKind::AllToAll: {
                    const auto* a = c.attributes<ir::CollectiveAttributes>();
                    if (!a)
                        return std::nullopt;
                    return collectiveRule(c, {a->dimension, a->concatDimension});
                }
                default:  // all_reduce, collective_permute
                    return allShapesEqual(c) ? pointwiseRule(c) : pairwiseRule(c);
            }
        case ir::OpCategory::Control:
            if (kind == OpKind::While)
                return pairwiseRule(c);
            return freeResultsRule(c);  // case, if: the results come from the branches
        case ir::OpCategory::Opaque: {
            const auto* a = c.attributes<ir::OpaqueAttributes>();
            if (a && a->name == "chlo.top_k")
                return topKRule(c);
            if (a && a->name == "sdy.constant")
                return freeResultsRule(c);
            return std::nullopt;
        }
        default:
            break;
    }
    switch (kind) {
        case OpKind::BatchNormGrad:
        case OpKind::BatchNormInference:
        case OpKind::BatchNormTraining:
            return batchNormRule(c);
        case OpKind::BitcastConvert:
            return bitcastConvertRule(c);
        case OpKind::BroadcastInDim:
            return broadcastInDimRule(c);
        case OpKind::Cholesky:
            return choleskyRule(c);
        case OpKind::Concatenate:
            return concatenateRule(c);
        case OpKind::Constant:
        case OpKind::Iota:
        case OpKind::Rng:
            return freeResultsRule(c);  // rng's shape operand: need-replication fill
        case OpKind::Convolution:
            return convolutionRule(c);
        case OpKind::CustomCall:
            return customCallRule(c);
        case OpKind::DotGeneral:
            return dotGeneralRule(c);
        case OpKind::DynamicSlice:
            return dynamicSliceRule(c);
        case OpKind::DynamicUpdateSlice:
            return dynamicUpdateSliceRule(c);
        case OpKind::Fft:
            return fftRule(c);
        case OpKind::Gather:
            return gatherRule(c);
        case OpKind::OptimizationBarrier:
            return pairwiseRule(c);
        case OpKind::Pad:
            return padRule(c);
        case OpKind::Reduce:
            return reduceRule(c);
        case OpKind::ReduceWindow:
            return reduceWindowRule(c);
        case OpKind::Reshape:
            return reshapeRule(c);
        case OpKind::Reverse:
            return reverseRule(c);
        case OpKind::RngBitGenerator:
            return rngBitGeneratorRule(c);
        case OpKind::Scatter:
            return scatterRule(c);
        case OpKind::SelectAndScatter:
            return selectAndScatterRule(c);
        case OpKind::Slice:
            return sliceRule(c);
        case OpKind::Sort:
            return sortRule(c);
        case OpKind::Transpose:
            return transposeRule(c);
        case OpKind::TriangularSolve:
            return triangularSolveRule(c);
        default:
            return std::nullopt;
    }
}

// ----- notation -----

std::string factorName(std::size_t index) {
    constexpr std::size_t kZ = 'z' - 'i';
    if (index <= kZ)
        return std::string(1, static_cast<char>('i' + index));
    return "z_" + std::to_string(index - kZ);
}

}  // namespace

FactorRule factorRule(const ir::Graph& graph, const ir::Op& op) {
    const Context c{graph, op};
    if (Derived rule = derive(c); rule && verifyFactorRule(*rule, graph, op).ok())
        return *rule;
    return opaqueRule(c);
}

std::string FactorRule::toString() const {
    std::string out;
    auto tensors = [&out](const std::vector<TensorFactors>& list) {
        out += '(';
        for (std::size_t t = 0; t < list.size(); ++t) {
            if (t)
                out += ", ";
            out += '[';
            for (std::size_t d = 0; d < list[t].size(); ++d) {
                if (d)
                    out += ", ";
                for (int f : list[t][d])
                    out += factorName(static_cast<std::size_t>(f));
            }
            out += ']';
        }
        out += ')';
    };
    tensors(operands);
    out += "->";
    tensors(results);
    if (!factors.empty()) {
        out += " {";
        for (std::size_t f = 0; f < factors.size(); ++f)
            out += (f ? ", " : "") + factorName(f) + "=" + std::to_string(factors[f].size);
        out += '}';
    }
    auto list = [&](const char* name, const std::function<bool(const Factor&)>& in) {
        std::string names;
        for (std::size_t f = 0; f < factors.size(); ++f)
            if (in(factors[f]))
                names += (names.empty() ? "" : ", ") + factorName(f);
        if (!names.empty())
            out += std::string(" ") + name + "={" + names + "}";
    };
    list("reduction", [](const Factor& f) { return f.kind == FactorKind::Reduction; });
    list("need_replication", [](const Factor& f) { return f.kind == FactorKind::NeedReplication; });
    list("permutation", [](const Factor& f) { return f.kind == FactorKind::Permutation; });
    list("blocked_propagation", [](const Factor& f) { return f.blockedPropagation; });
    if (custom)
        out += ", custom";
    return out;
}

bool equivalent(const FactorRule& a, const FactorRule& b) {
    if (a.custom != b.custom || a.factors.size() != b.factors.size() ||
        a.operands.size() != b.operands.size() || a.results.size() != b.results.size())
        return false;
    const std::size_t n = a.factors.size();
    std::vector<int> aToB(n, -1), bToA(n, -1);
    auto match = [&](const std::vector<TensorFactors>& as, const std::vector<TensorFactors>& bs) {
        for (std::size_t t = 0; t < as.size(); ++t) {
            if (as[t].size() != bs[t].size())
                return false;
            for (std::size_t d = 0; d < as[t].size(); ++d) {
                if (as[t][d].size() != bs[t][d].size())
                    return false;
                for (std::size_t k = 0; k < as[t][d].size(); ++k) {
                    const int fa = as[t][d][k], fb = bs[t][d][k];
                    if (fa < 0 || fb < 0 || static_cast<std::size_t>(fa) >= n ||
                        static_cast<std::size_t>(fb) >= n)
                        return false;
                    auto& ab = aToB[static_cast<std::size_t>(fa)];
                    auto& ba = bToA[static_cast<std::size_t>(fb)];
                    if (ab == -1 && ba == -1) {
                        ab = fb;
                        ba = fa;
                    } else if (ab != fb || ba != fa) {
                        return false;
                    }
                }
            }
        }
        return true;
    };
    if (!match(a.operands, b.operands) || !match(a.results, b.results))
        return false;
    // Mapped factors must agree; factors used nowhere must agree as multisets.
    auto key = [](const Factor& f) {
        return std::make_tuple(f.size, static_cast<int>(f.kind), f.blockedPropagation);
    };
    std::multiset<std::tuple<std::int64_t, int, bool>> unusedA, unusedB;
    for (std::size_t f = 0; f < n; ++f) {
        if (aToB[f] >= 0 && !(a.factors[f] == b.factors[static_cast<std::size_t>(aToB[f])]))
            return false;
        if (aToB[f] < 0)
            unusedA.insert(key(a.factors[f]));
        if (bToA[f] < 0)
            unusedB.insert(key(b.factors[f]));
    }
    return unusedA == unusedB;
}

namespace {

// A recursive-descent reader of Shardy's notation.
class RuleParser {
public:
    explicit RuleParser(std::string_view text) : text_(text) {}

    Result<FactorRule> parse() {
        FactorRule rule;
        skip();
        const bool wrapped = consume("#sdy.op_sharding_rule");
        if (wrapped && !consume("<"))
            return error("'<' after #sdy.op_sharding_rule");
        if (!wrapped)
            consume("<");
        if (!tensors(rule.operands))
            return failure();
        if (!consume("->"))
            return error("'->' between operands and results");
        if (!tensors(rule.results))
            return failure();
        std::vector<std::int64_t> sizes;
        std::vector<bool> sized;
        if (consume("{")) {
            do {
                const auto index = symbol();
                if (!index)
                    return failure();
                if (!consume("="))
                    return error("'=' after a factor name");
                const auto size = integer();
                if (!size)
                    return failure();
                if (*index >= sizes.size())
                    sizes.resize(*index + 1, 0), sized.resize(*index + 1, false);
                if (sized[*index])
                    return error("each factor's size once");
                sizes[*index] = *size;
                sized[*index] = true;
            } while (consume(","));
            if (!consume("}"))
                return error("'}' to close the factor sizes");
        }
        rule.factors.resize(sizes.size());
        for (std::size_t f = 0; f < sizes.size(); ++f) {
            if (!sized[f])
                return error("a size for factor " + factorName(f));
            rule.factors[f].size = sizes[f];
        }
        for (const auto* list : {&rule.operands, &rule.results})
            for (const auto& tensor : *list)
                for (const auto& dim : tensor)
                    for (int f : dim)
                        if (static_cast<std::size_t>(f) >= rule.factors.size())
                            return error("a size for factor " + factorName(static_cast<std::size_t>(f)));
        std::vector<bool> typed(rule.factors.size(), false);
        while (true) {
            skip();
            std::optional<FactorKind> kind;
            bool blocked = false;
            if (consume("reduction"))
                kind = FactorKind::Reduction;
            else if (consume("need_replication"))
                kind = FactorKind::NeedReplication;
            else if (consume("permutation"))
                kind = FactorKind::Permutation;
            else if (consume("blocked_propagation"))
                blocked = true;
            else
                break;
            if (!consume("=") || !consume("{"))
                return error("'={' after a factor kind");
            if (!consume("}")) {
                do {
                    const auto index = symbol();
                    if (!index)
                        return failure();
                    if (*index >= rule.factors.size())
                        return error("a factor that has a size");
                    Factor& factor = rule.factors[*index];
                    if (blocked) {
                        factor.blockedPropagation = true;
                    } else {
                        if (typed[*index])
                            return error("each factor in one kind list only");
                        typed[*index] = true;
                        factor.kind = *kind;
                    }
                } while (consume(","));
                if (!consume("}"))
                    return error("'}' to close the factor list");
            }
        }
        if (consume(",")) {
            if (!consume("custom"))
                return error("'custom' after ','");
            rule.custom = true;
        }
        const bool closed = consume(">");
        skip();
        if (!closed && pos_ < text_.size())
            return error("the end of the rule");
        return rule;
    }

private:
    void skip() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
            ++pos_;
    }
    bool consume(std::string_view literal) {
        skip();
        if (text_.substr(pos_, literal.size()) != literal)
            return false;
        pos_ += literal.size();
        return true;
    }
    Result<FactorRule> error(const std::string& expected) {
        if (!error_)
            error_ = makeError("analysis.rule-syntax", "column " + std::to_string(pos_ + 1) + ": expected " +
                                                           expected + ", found '" +
                                                           std::string(text_.substr(pos_, 20)) + "'");
        return failure();
    }
    Result<FactorRule> failure() const { return Result<FactorRule>::failure({*error_}); }
    bool fail(const std::string& expected) {
        (void)error(expected);
        return false;
    }
    // i..z, then z_1, z_2, ...
    std::optional<std::size_t> symbol() {
        skip();
        if (pos_ >= text_.size() || text_[pos_] < 'i' || text_[pos_] > 'z') {
            fail("a factor name (i, j, ..., z, z_1, ...)");
            return std::nullopt;
        }
        const std::size_t index = static_cast<std::size_t>(text_[pos_++] - 'i');
        if (index == 'z' - 'i' && pos_ + 1 < text_.size() && text_[pos_] == '_' &&
            std::isdigit(static_cast<unsigned char>(text_[pos_ + 1]))) {
            ++pos_;
            std::size_t n = 0;
            while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
                n = n * 10 + static_cast<std::size_t>(text_[pos_++] - '0');
            if (n == 0) {
                fail("z_1 or later");
                return std::nullopt;
            }
            return index + n;
        }
        return index;
    }
    std::optional<std::int64_t> integer() {
        skip();
        const std::size_t start = pos_;
        std::int64_t value = 0;
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
            if (value > (std::numeric_limits<std::int64_t>::max() - 9) / 10) {
                fail("a smaller size");
                return std::nullopt;
            }
            value = value * 10 + (text_[pos_++] - '0');
        }
        if (pos_ == start) {
            fail("a size");
            return std::nullopt;
        }
        return value;
    }
    // `([i, j], [], [ij, k])`
    bool tensors(std::vector<TensorFactors>& out) {
        if (!consume("("))
            return fail("'(' to open a tensor list");
        if (consume(")"))
            return true;
        do {
            if (!consume("["))
                return fail("'[' to open a tensor");
            TensorFactors tensor;
            if (!consume("]")) {
                do {
                    std::vector<int> dim;
                    skip();
                    do {
                        const auto index = symbol();
                        if (!index)
                            return false;
                        dim.push_back(static_cast<int>(*index));
                    } while (pos_ < text_.size() && text_[pos_] >= 'i' && text_[pos_] <= 'z');
                    tensor.push_back(std::move(dim));
                } while (consume(","));
                if (!consume("]"))
                    return fail("']' to close a tensor");
            }
            out.push_back(std::move(tensor));
        } while (consume(","));
        if (!consume(")"))
            return fail("')' to close a tensor list");
        return true;
    }

    std::string_view text_;
    std::size_t pos_ = 0;
    std::optional<Diagnostic> error_;
};

}  // namespace

Result<FactorRule> parseFactorRule(std::string_view text) {
    return RuleParser(text).parse();
}

Status verifyFactorRule(const FactorRule& rule, const ir::Graph& graph, const ir::Op& op) {
    auto fail = [](const std::string& message) { return Status(makeError("analysis.factor-rule", message)); };
    if (rule.operands.size() != op.operands.size() || rule.results.size() != op.results.size())
        return fail("the rule has " + std::to_string(rule.operands.size()) + " operand and " +
                    std::to_string(rule.results.size()) + " result mappings, the op " +
                    std::to_string(op.operands.size()) + " operands and " +
                    std::to_string(op.results.size()) + " results");
    const std::size_t n = rule.factors.size();
    for (std::size_t f = 0; f < n; ++f)
        if (rule.factors[f].size < 0)
            return fail("factor " + factorName(f) + " has a negative size");
    std::vector<bool> used(n, false);
    auto check = [&](const TensorFactors& mapping, const ir::TensorType& type,
                     const std::string& what) -> Status {
        if (mapping.size() != type.shape.size())
            return fail(what + " has " + std::to_string(mapping.size()) + " dimension mappings for " +
                        type.toString());
        std::set<int> seen;
        for (std::size_t d = 0; d < mapping.size(); ++d) {
            const std::string where = what + " dimension " + std::to_string(d);
            if (mapping[d].empty())
                return fail(where + " has no factor");
            std::int64_t product = 1;
            bool overflow = false;
            for (int f : mapping[d]) {
                if (f < 0 || static_cast<std::size_t>(f) >= n)
                    return fail(where + " names a factor out of range");
                if (!seen.insert(f).second)
                    return fail(where + ": factor " + factorName(static_cast<std::size_t>(f)) +
                                " appears twice in one tensor");
                used[static_cast<std::size_t>(f)] = true;
                const std::int64_t size = rule.factors[static_cast<std::size_t>(f)].size;
                if (size != 0 && product > std::numeric_limits<std::int64_t>::max() / size)
                    overflow = true;
                else
                    product *= size;
            }
            const std::int64_t dimSize = type.shape[d];
            if (!overflow && product == dimSize)
                continue;
            const bool mismatchFactor =
                mapping[d].size() == 1 &&
                rule.factors[static_cast<std::size_t>(mapping[d][0])].kind != FactorKind::PassThrough;
            if (!mismatchFactor)
                return fail(where + " (size " + std::to_string(dimSize) +
                            ") is not the product of its factors");
        }
        return Success{};
    };
    for (std::size_t t = 0; t < op.operands.size(); ++t)
        if (Status s = check(rule.operands[t], graph.type(op.operands[t]), "operand " + std::to_string(t));
            !s)
            return s;
    for (std::size_t t = 0; t < op.results.size(); ++t)
        if (Status s = check(rule.results[t], graph.type(op.results[t]), "result " + std::to_string(t)); !s)
            return s;
    for (std::size_t f = 0; f < n; ++f)
        if (!used[f])
            return fail("factor " + factorName(f) + " appears in no tensor");
    return Success{};
}

}  // namespace shardscope::analysis
