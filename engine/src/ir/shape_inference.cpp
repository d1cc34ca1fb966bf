// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/ir/shape_inference.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <string>

namespace shardscope::ir {
namespace {

using Types = std::vector<TensorType>;

// (size - 1) * dilation + 1 + low + high: the extent of a dilated, padded dimension (of a window: low = high
// = 0); nullopt when it overflows.
std::optional<std::int64_t> dilatedExtent(std::int64_t size, std::int64_t dilation, std::int64_t low = 0,
                                          std::int64_t high = 0) {
    std::int64_t n = 0;
    if (__builtin_mul_overflow(size - 1, dilation, &n) || __builtin_add_overflow(n, 1, &n) ||
        __builtin_add_overflow(n, low, &n) || __builtin_add_overflow(n, high, &n))
        return std::nullopt;
    return n;
}

std::string dimsToString(const Dims& dims) {
    std::string out = "[";
    for (std::size_t i = 0; i < dims.size(); ++i)
        out += (i ? ", " : "") + std::to_string(dims[i]);
    return out + "]";
}

class Inference {
public:
    Inference(const Graph& graph, const Op& op, std::span<const TensorType> declared)
        : graph_(graph), op_(op), declared_(declared) {}

    Result<Types> run();

private:
    Diagnostic error(const std::string& message) const {
        return makeError("ir.invalid-op", "'stablehlo." + std::string(mnemonic(op_.kind)) + "': " + message,
                         op_.location);
    }
    const TensorType& operand(std::size_t i) const { return graph_.type(op_.operands[i]); }
    std::size_t operandCount() const { return op_.operands.size(); }

    // Checks that `dims` are distinct and within [0, rank).
    std::optional<Diagnostic> checkDims(const Dims& dims, int rank, const char* what) const {
        std::set<std::int64_t> seen;
        for (auto d : dims) {
            if (d < 0 || d >= rank)
                return error(std::string(what) + " " + dimsToString(dims) + " has dimension " +
                             std::to_string(d) + " outside a rank-" + std::to_string(rank) + " tensor");
            if (!seen.insert(d).second)
                return error(std::string(what) + " " + dimsToString(dims) + " repeats dimension " +
                             std::to_string(d));
        }
        return std::nullopt;
    }
    std::optional<Diagnostic> expectOperands(std::size_t n) const {
        if (operandCount() != n)
            return error("expects " + std::to_string(n) + " operand(s), got " +
                         std::to_string(operandCount()));
        return std::nullopt;
    }
    Result<Types> needDeclared(std::size_t n) const {
        if (declared_.size() != n)
            return error("needs " + std::to_string(n) + " declared result type(s), got " +
                         std::to_string(declared_.size()));
        return Types(declared_.begin(), declared_.end());
    }

    Result<Types> elementwise();
    Result<Types> dotGeneral();
    Result<Types> convolution();
    Result<Types> reduce();
    Result<Types> reduceWindow();
    Result<Types> gather();
    Result<Types> structural();

    const Graph& graph_;
    const Op& op_;
    std::span<const TensorType> declared_;
};

Result<Types> Inference::elementwise() {
    const auto cat = category(op_.kind);
    if (cat == OpCategory::ElementwiseUnary) {
        if (auto e = expectOperands(1))
            return *e;
        TensorType t = operand(0);
        switch (op_.kind) {
            case OpKind::Convert:
                if (declared_.size() != 1)
                    return error("needs the result element type");
                t.element = declared_[0].element;
                break;
            case OpKind::IsFinite:
                t.element = ElementType::I1;
                break;
            case OpKind::OtherElementwise:
                if (declared_.size() == 1)
                    t.element = declared_[0].element;
                break;
            case OpKind::Real:
            case OpKind::Imag:
                if (t.element == ElementType::C64)
                    t.element = ElementType::F32;
                else if (t.element == ElementType::C128)
                    t.element = ElementType::F64;
                break;
            default:
                break;
        }
        return Types{t};
    }
    if (cat == OpCategory::ElementwiseBinary) {
        if (auto e = expectOperands(2))
            return *e;
        const auto &a = operand(0), &b = operand(1);
        if (a.shape != b.shape)
            return error("operand shapes differ: " + a.toString() + " and " + b.toString());
        if (a.element != b.element)
            return error("operand element types differ: " + a.toString() + " and " + b.toString());
        TensorType t = a;
        if (op_.kind == OpKind::Compare)
            t.element = ElementType::I1;
        if (op_.kind == OpKind::Complex)
            t.element = a.element == ElementType::F64 ? ElementType::C128 : ElementType::C64;
        return Types{t};
    }
    // select(pred, on_true, on_false) and clamp(min, operand, max).
    if (auto e = expectOperands(3))
        return *e;
    if (op_.kind == OpKind::Select) {
        const auto &p = operand(0), &t = operand(1), &f = operand(2);
        if (p.element != ElementType::I1)
            return error("predicate must be i1, got " + p.toString());
        if (t != f)
            return error("branches differ: " + t.toString() + " and " + f.toString());
        if (!p.shape.empty() && p.shape != t.shape)
            return error("predicate " + p.toString() + " is neither a scalar nor of the branches' shape " +
                         t.toString());
        return Types{t};
    }
    const auto &lo = operand(0), &x = operand(1), &hi = operand(2);
    for (const auto* bound : {&lo, &hi}) {
        if (bound->element != x.element || (!bound->shape.empty() && bound->shape != x.shape))
            return error("bound " + bound->toString() + " must be a scalar or match the operand " +
                         x.toString());
    }
    return Types{x};
}

Result<Types> Inference::dotGeneral() {
    if (auto e = expectOperands(2))
        return *e;
    const auto* dims = std::get_if<DotDimensions>(&op_.attributes);
    if (!dims)
        return error("missing dot dimension numbers");
    const auto &lhs = operand(0), &rhs = operand(1);
    if (dims->lhsBatching.size() != dims->rhsBatching.size())
        return error("lhs and rhs batching dimensions differ in number");
    if (dims->lhsContracting.size() != dims->rhsContracting.size())
        return error("lhs and rhs contracting dimensions differ in number");
    Dims lhsUsed = dims->lhsBatching, rhsUsed = dims->rhsBatching;
    lhsUsed.insert(lhsUsed.end(), dims->lhsContracting.begin(), dims->lhsContracting.end());
    rhsUsed.insert(rhsUsed.end(), dims->rhsContracting.begin(), dims->rhsContracting.end());
    if (auto e = checkDims(lhsUsed, lhs.rank(), "lhs batching+contracting dimensions"))
        return *e;
    if (auto e = checkDims(rhsUsed, rhs.rank(), "rhs batching+contracting dimensions"))
        return *e;
    for (std::size_t i = 0; i < dims->lhsBatching.size(); ++i) {
        auto l = lhs.shape[dims->lhsBatching[i]], r = rhs.shape[dims->rhsBatching[i]];
        if (l != r)
            return error("batching dimension sizes differ: lhs dimension " +
                         std::to_string(dims->lhsBatching[i]) + " is " + std::to_string(l) +
                         ", rhs dimension " + std::to_string(dims->rhsBatching[i]) + " is " +
                         std::to_string(r));
    }
    for (std::size_t i = 0; i < dims->lhsContracting.size(); ++i) {
        auto l = lhs.shape[dims->lhsContracting[i]], r = rhs.shape[dims->rhsContracting[i]];
        if (l != r)
            return error("contracting dimension sizes differ: lhs dimension " +
                         std::to_string(dims->lhsContracting[i]) + " is " + std::to_string(l) +
                         ", rhs dimension " + std::to_string(dims->rhsContracting[i]) + " is " +
                         std::to_string(r));
    }
    TensorType result;
    result.element = declared_.size() == 1 ? declared_[0].element : lhs.element;
    for (auto d : dims->lhsBatching)
        result.shape.push_back(lhs.shape[d]);
    for (int d = 0; d < lhs.rank(); ++d)
        if (std::find(lhsUsed.begin(), lhsUsed.end(), d) == lhsUsed.end())
            result.shape.push_back(lhs.shape[d]);
    for (int d = 0; d < rhs.rank(); ++d)
        if (std::find(rhsUsed.begin(), rhsUsed.end(), d) == rhsUsed.end())
            result.shape.push_back(rhs.shape[d]);
    return Types{result};
}

Result<Types> Inference::convolution() {
    if (auto e = expectOperands(2))
        return *e;
    const auto* c = std::get_if<ConvolutionAttributes>(&op_.attributes);
    if (!c)
        return error("missing convolution dimension numbers");
    const auto &in = operand(0), &k = operand(1);
    const std::size_t spatial = c->inputSpatial.size();
    if (in.rank() != static_cast<int>(spatial) + 2 || k.rank() != in.rank())
        return error("input " + in.toString() + " and kernel " + k.toString() + " need rank " +
                     std::to_string(spatial + 2));
    if (c->kernelSpatial.size() != spatial || c->outputSpatial.size() != spatial)
        return error("input, kernel and output have different numbers of spatial dimensions");
    Dims inDims = c->inputSpatial, kDims = c->kernelSpatial, outDims = c->outputSpatial;
    inDims.insert(inDims.end(), {c->inputBatch, c->inputFeature});
    kDims.insert(kDims.end(), {c->kernelInputFeature, c->kernelOutputFeature});
    outDims.insert(outDims.end(), {c->outputBatch, c->outputFeature});
    if (auto e = checkDims(inDims, in.rank(), "input dimensions"))
        return *e;
    if (auto e = checkDims(kDims, k.rank(), "kernel dimensions"))
        return *e;
    if (auto e = checkDims(outDims, in.rank(), "output dimensions"))
        return *e;
    auto vec = [&](const Dims& v, std::int64_t fallback, std::size_t i) {
        return v.empty() ? fallback : v[i];
    };
    for (const Dims* v : {&c->windowStrides, &c->lhsDilation, &c->rhsDilation})
        if (!v->empty() && v->size() != spatial)
            return error("window attribute size differs from spatial rank");
    if (!c->padding.empty() && c->padding.size() != spatial)
        return error("padding size differs from spatial rank");
    if (c->featureGroupCount < 1 || c->batchGroupCount < 1)
        return error("group counts must be positive");
    if (in.shape[c->inputFeature] != k.shape[c->kernelInputFeature] * c->featureGroupCount)
        return error("input features " + std::to_string(in.shape[c->inputFeature]) +
                     " != kernel input features " + std::to_string(k.shape[c->kernelInputFeature]) +
                     " x feature_group_count " + std::to_string(c->featureGroupCount));
    if (in.shape[c->inputBatch] % c->batchGroupCount != 0)
        return error("batch not divisible by batch_group_count");
    TensorType out;
    out.element = declared_.size() == 1 ? declared_[0].element : in.element;
    out.shape.assign(in.shape.size(), 0);
    out.shape[c->outputBatch] = in.shape[c->inputBatch] / c->batchGroupCount;
    out.shape[c->outputFeature] = k.shape[c->kernelOutputFeature];
    for (std::size_t i = 0; i < spatial; ++i) {
        std::int64_t lhsDil = vec(c->lhsDilation, 1, i), rhsDil = vec(c->rhsDilation, 1, i);
        std::int64_t stride = vec(c->windowStrides, 1, i);
        if (lhsDil < 1 || rhsDil < 1 || stride < 1)
            return error("strides and dilations must be positive");
        std::int64_t lo = c->padding.empty() ? 0 : c->padding[i].first;
        std::int64_t hi = c->padding.empty() ? 0 : c->padding[i].second;
        const auto base = dilatedExtent(in.shape[c->inputSpatial[i]], lhsDil, lo, hi);
        const auto window = dilatedExtent(k.shape[c->kernelSpatial[i]], rhsDil);
        if (!base || !window)
            return error("spatial dimension " + std::to_string(i) +
                         " overflows with its dilation and padding");
        out.shape[c->outputSpatial[i]] = *base < *window ? 0 : (*base - *window) / stride + 1;
    }
    return Types{out};
}

Result<Types> Inference::reduce() {
    const auto* a = std::get_if<ReduceAttributes>(&op_.attributes);
    if (!a)
        return error("missing reduce dimensions");
    if (operandCount() == 0 || operandCount() % 2 != 0)
        return error("expects inputs followed by as many init values");
    const std::size_t n = operandCount() / 2;
    const auto& first = operand(0);
    if (auto e = checkDims(a->dimensions, first.rank(), "dimensions"))
        return *e;
    Types out;
    for (std::size_t i = 0; i < n; ++i) {
        if (operand(i).shape != first.shape)
            return error("inputs have different shapes");
        const auto& init = operand(n + i);
        if (!init.shape.empty())
            return error("init value " + init.toString() + " must be a scalar");
        TensorType t{{}, init.element};
        for (int d = 0; d < first.rank(); ++d)
            if (std::find(a->dimensions.begin(), a->dimensions.end(), d) == a->dimensions.end())
                t.shape.push_back(first.shape[d]);
        out.push_back(t);
    }
    return out;
}

Result<Types> Inference::reduceWindow() {
    const auto* w = std::get_if<WindowAttributes>(&op_.attributes);
    if (!w)
        return error("missing window attributes");
    if (op_.kind == OpKind::SelectAndScatter) {
        if (auto e = expectOperands(3))
            return *e;
        return Types{operand(0)};
    }
    if (operandCount() == 0 || operandCount() % 2 != 0)
        return error("expects inputs followed by as many init values");
    const std::size_t n = operandCount() / 2;
    const auto& first = operand(0);
    const auto rank = static_cast<std::size_t>(first.rank());
    if (w->windowDimensions.size() != rank)
        return error("window_dimensions must have one entry per dimension");
    for (const Dims* v : {&w->windowStrides, &w->baseDilations, &w->windowDilations})
        if (!v->empty() && v->size() != rank)
            return error("window attribute sizes differ from the rank");
    if (!w->padding.empty() && w->padding.size() != rank)
        return error("padding must have one pair per dimension");
    Shape shape(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        auto at = [&](const Dims& v) { return v.empty() ? std::int64_t{1} : v[i]; };
        if (w->windowDimensions[i] < 1 || at(w->windowStrides) < 1 || at(w->baseDilations) < 1 ||
            at(w->windowDilations) < 1)
            return error("window sizes, strides and dilations must be positive");
        std::int64_t lo = w->padding.empty() ? 0 : w->padding[i].first;
        std::int64_t hi = w->padding.empty() ? 0 : w->padding[i].second;
        const auto base = dilatedExtent(first.shape[i], at(w->baseDilations), lo, hi);
        const auto window = dilatedExtent(w->windowDimensions[i], at(w->windowDilations));
        if (!base || !window)
            return error("dimension " + std::to_string(i) + " overflows with its dilation and padding");
        shape[i] = *base < *window ? 0 : (*base - *window) / at(w->windowStrides) + 1;
    }
    Types out;
    for (std::size_t i = 0; i < n; ++i) {
        if (operand(i).shape != first.shape)
            return error("inputs have different shapes");
        if (!operand(n + i).shape.empty())
            return error("init values must be scalars");
        out.push_back(TensorType{shape, operand(n + i).element});
    }
    return out;
}

Result<Types> Inference::gather() {
    if (auto e = expectOperands(2))
        return *e;
    const auto* g = std::get_if<GatherAttributes>(&op_.attributes);
    if (!g)
        return error("missing gather dimension numbers");
    const auto &operandType = operand(0), &indices = operand(1);
    if (g->sliceSizes.size() != static_cast<std::size_t>(operandType.rank()))
        return error("slice_sizes " + dimsToString(g->sliceSizes) + " needs one entry per operand dimension");
    for (int d = 0; d < operandType.rank(); ++d)
        if (g->sliceSizes[d] < 0 || g->sliceSizes[d] > operandType.shape[d])
            return error("slice size " + std::to_string(g->sliceSizes[d]) + " of dimension " +
                         std::to_string(d) + " exceeds the operand " + operandType.toString());
    Dims removed = g->collapsedSliceDims;
    removed.insert(removed.end(), g->operandBatchingDims.begin(), g->operandBatchingDims.end());
    if (auto e = checkDims(removed, operandType.rank(), "collapsed+batching dimensions"))
        return *e;
    if (g->indexVectorDim < 0 || g->indexVectorDim > indices.rank())
        return error("index_vector_dim " + std::to_string(g->indexVectorDim) + " is out of range");
    Shape offsets;
    for (int d = 0; d < operandType.rank(); ++d)
        if (std::find(removed.begin(), removed.end(), d) == removed.end())
            offsets.push_back(g->sliceSizes[d]);
    if (offsets.size() != g->offsetDims.size())
        return error("offset_dims " + dimsToString(g->offsetDims) + " must name " +
                     std::to_string(offsets.size()) + " result dimensions");
    Shape batch;
    for (int d = 0; d < indices.rank(); ++d)
        if (d != g->indexVectorDim)
            batch.push_back(indices.shape[d]);
    const int rank = static_cast<int>(batch.size() + offsets.size());
    if (auto e = checkDims(g->offsetDims, rank, "offset_dims"))
        return *e;
    TensorType out{Shape(rank), operandType.element};
    std::size_t bi = 0, oi = 0;
    Dims sortedOffsets = g->offsetDims;
    std::sort(sortedOffsets.begin(), sortedOffsets.end());
    for (int d = 0; d < rank; ++d) {
        if (std::binary_search(sortedOffsets.begin(), sortedOffsets.end(), d))
            out.shape[d] = offsets[oi++];
        else
            out.shape[d] = batch[bi++];
    }
    return Types{out};
}

Result<Types> Inference::structural() {
    switch (op_.kind) {
        case OpKind::Constant: {
            auto r = needDeclared(1);
            if (!r)
                return r;
            const auto* c = std::get_if<ConstantAttributes>(&op_.attributes);
            if (c && c->values.size() > 1 &&
                static_cast<std::int64_t>(c->values.size()) != r->at(0).elements())
                return error("literal has " + std::to_string(c->values.size()) + " values for " +
                             r->at(0).toString());
            return r;
        }
        case OpKind::Iota: {
            auto r = needDeclared(1);
            if (!r)
                return r;
            const auto* d = std::get_if<DimensionAttribute>(&op_.attributes);
            if (!d || d->dimension < 0 || d->dimension >= r->at(0).rank())
                return error("iota_dimension is out of range for " + r->at(0).toString());
            return r;
        }
        case OpKind::BroadcastInDim: {
            if (auto e = expectOperands(1))
                return *e;
            auto r = needDeclared(1);
            if (!r)
                return r;
            const auto* b = std::get_if<BroadcastDimensions>(&op_.attributes);
            const auto& in = operand(0);
            TensorType out{r->at(0).shape, in.element};
            if (!b || b->dims.size() != static_cast<std::size_t>(in.rank()))
                return error("broadcast_dimensions must have one entry per operand dimension of " +
                             in.toString());
            if (auto e = checkDims(b->dims, out.rank(), "broadcast_dimensions"))
                return *e;
            for (int i = 0; i < in.rank(); ++i)
                if (in.shape[i] != 1 && in.shape[i] != out.shape[b->dims[i]])
                    return error("operand dimension " + std::to_string(i) + " of size " +
                                 std::to_string(in.shape[i]) + " cannot broadcast to result dimension " +
                                 std::to_string(b->dims[i]) + " of size " +
                                 std::to_string(out.shape[b->dims[i]]));
            return Types{out};
        }
        case OpKind::Reshape: {
            if (auto e = expectOperands(1))
                return *e;
            auto r = needDeclared(1);
            if (!r)
                return r;
            TensorType out{r->at(0).shape, operand(0).element};
            if (out.elements() != operand(0).elements())
                return error("cannot reshape " + operand(0).toString() + " (" +
                             std::to_string(operand(0).elements()) + " elements) to " + out.toString() +
                             " (" + std::to_string(out.elements()) + ")");
            return Types{out};
        }
        case OpKind::Transpose: {
            if (auto e = expectOperands(1))
                return *e;
            const auto* p = std::get_if<Permutation>(&op_.attributes);
            const auto& in = operand(0);
            if (!p || p->permutation.size() != static_cast<std::size_t>(in.rank()))
                return error("permutation must have one entry per dimension of " + in.toString());
            if (auto e = checkDims(p->permutation, in.rank(), "permutation"))
                return *e;
            TensorType out{{}, in.element};
            for (auto d : p->permutation)
                out.shape.push_back(in.shape[d]);
            return Types{out};
        }
        case OpKind::Slice: {
            if (auto e = expectOperands(1))
                return *e;
            const auto* s = std::get_if<SliceAttributes>(&op_.attributes);
            const auto& in = operand(0);
            const auto rank = static_cast<std::size_t>(in.rank());
            if (!s || s->start.size() != rank || s->limit.size() != rank ||
                (!s->strides.empty() && s->strides.size() != rank))
                return error("start, limit and strides must have one entry per dimension of " +
                             in.toString());
            TensorType out{Shape(rank), in.element};
            for (std::size_t d = 0; d < rank; ++d) {
                std::int64_t stride = s->strides.empty() ? 1 : s->strides[d];
                if (s->start[d] < 0 || s->start[d] > s->limit[d] || s->limit[d] > in.shape[d] || stride < 1)
                    return error("slice [" + std::to_string(s->start[d]) + ":" + std::to_string(s->limit[d]) +
                                 "] of dimension " + std::to_string(d) + " is outside " + in.toString());
                out.shape[d] = s->limit[d] == s->start[d] ? 0 : (s->limit[d] - s->start[d] - 1) / stride + 1;
            }
            return Types{out};
        }
        case OpKind::Pad: {
            if (auto e = expectOperands(2))
                return *e;
            const auto* p = std::get_if<PadAttributes>(&op_.attributes);
            const auto& in = operand(0);
            const auto rank = static_cast<std::size_t>(in.rank());
            if (!p || p->low.size() != rank || p->high.size() != rank ||
                (!p->interior.empty() && p->interior.size() != rank))
                return error("padding must have one entry per dimension of " + in.toString());
            if (!operand(1).shape.empty())
                return error("padding value must be a scalar");
            TensorType out{Shape(rank), in.element};
            for (std::size_t d = 0; d < rank; ++d) {
                std::int64_t interior = p->interior.empty() ? 0 : p->interior[d];
                if (interior < 0)
                    return error("interior padding must be non-negative");
                // The elements spread by interior padding, then the edges (which may be negative).
                const auto spread = interior == std::numeric_limits<std::int64_t>::max() ? std::nullopt
                                    : in.shape[d] == 0 ? std::optional<std::int64_t>(0)
                                                       : dilatedExtent(in.shape[d], interior + 1);
                if (!spread || __builtin_add_overflow(*spread, p->low[d], &out.shape[d]) ||
                    __builtin_add_overflow(out.shape[d], p->high[d], &out.shape[d]))
                    return error("padding of dimension " + std::to_string(d) + " overflows");
                if (out.shape[d] < 0)
                    return error("padding makes dimension " + std::to_string(d) + " negative");
            }
            return Types{out};
        }
        case OpKind::Concatenate: {
            const auto* c = std::get_if<DimensionAttribute>(&op_.attributes);
            if (operandCount() == 0)
                return error("needs at least one operand");
            TensorType out = operand(0);
            if (!c || c->dimension < 0 || c->dimension >= out.rank())
                return error("dimension is out of range for " + out.toString());
            for (std::size_t i = 1; i < operandCount(); ++i) {
                const auto& t = operand(i);
                if (t.rank() != out.rank() || t.element != out.element)
                    return error("operands " + out.toString() + " and " + t.toString() + " are incompatible");
                for (int d = 0; d < t.rank(); ++d)
                    if (d != c->dimension && t.shape[d] != operand(0).shape[d])
                        return error("operand " + std::to_string(i) + " " + t.toString() +
                                     " differs outside the concatenated dimension");
                if (__builtin_add_overflow(out.shape[c->dimension], t.shape[c->dimension],
                                           &out.shape[c->dimension]))
                    return error("the concatenated dimension overflows");
            }
            return Types{out};
        }
        case OpKind::DynamicSlice: {
            const auto* s = std::get_if<DynamicSliceAttributes>(&op_.attributes);
            if (operandCount() < 1)
                return error("needs an operand");
            const auto& in = operand(0);
            if (!s || s->sliceSizes.size() != static_cast<std::size_t>(in.rank()) ||
                operandCount() != 1 + s->sliceSizes.size())
                return error("needs one start index and one slice size per dimension of " + in.toString());
            for (int d = 0; d < in.rank(); ++d)
                if (s->sliceSizes[d] < 0 || s->sliceSizes[d] > in.shape[d])
                    return error("slice size exceeds dimension " + std::to_string(d) + " of " +
                                 in.toString());
            return Types{TensorType{s->sliceSizes, in.element}};
        }
        case OpKind::DynamicUpdateSlice: {
            if (operandCount() < 2)
                return error("needs an operand and an update");
            const auto &in = operand(0), &update = operand(1);
            if (update.rank() != in.rank() || operandCount() != 2 + static_cast<std::size_t>(in.rank()))
                return error("needs an update of the operand's rank and one start index per dimension");
            for (int d = 0; d < in.rank(); ++d)
                if (update.shape[d] > in.shape[d])
                    return error("update " + update.toString() + " exceeds " + in.toString());
            return Types{in};
        }
        case OpKind::Gather:
            return gather();
        case OpKind::Scatter: {
            if (operandCount() < 3 || (operandCount() - 1) % 2 != 0)
                return error("expects inputs, indices, then one update per input");
            const std::size_t n = (operandCount() - 1) / 2;
            Types out;
            for (std::size_t i = 0; i < n; ++i)
                out.push_back(operand(i));
            return out;
        }
        case OpKind::Sort: {
            if (operandCount() == 0)
                return error("needs at least one operand");
            const auto* s = std::get_if<SortAttributes>(&op_.attributes);
            const int rank = operand(0).rank();
            std::int64_t dim = s ? s->dimension : -1;
            if (dim < -rank || dim >= rank)
                return error("sort dimension out of range");
            Types out;
            for (std::size_t i = 0; i < operandCount(); ++i) {
                if (operand(i).shape != operand(0).shape)
                    return error("operands have different shapes");
                out.push_back(operand(i));
            }
            return out;
        }
        case OpKind::Reverse: {
            if (auto e = expectOperands(1))
                return *e;
            const auto* d = std::get_if<DimensionsAttribute>(&op_.attributes);
            if (d)
                if (auto e = checkDims(d->dimensions, operand(0).rank(), "dimensions"))
                    return *e;
            return Types{operand(0)};
        }
        case OpKind::OptimizationBarrier: {
            Types out;
            for (std::size_t i = 0; i < operandCount(); ++i)
                out.push_back(operand(i));
            return out;
        }
        case OpKind::DotGeneral:
            return dotGeneral();
        case OpKind::Convolution:
            return convolution();
        case OpKind::Reduce:
            return reduce();
        case OpKind::ReduceWindow:
        case OpKind::SelectAndScatter:
            return reduceWindow();
        case OpKind::BitcastConvert: {
            if (auto e = expectOperands(1))
                return *e;
            auto r = needDeclared(1);
            if (!r)
                return r;
            if (bitWidth(operand(0).element) == bitWidth(r->at(0).element) &&
                operand(0).shape != r->at(0).shape)
                return error("same-width bitcast must keep the shape " + shapeToString(operand(0).shape));
            return r;
        }
        default:
            return needDeclared(declared_.size());
    }
}

Result<Types> Inference::run() {
    for (auto v : op_.operands)
        if (!v.valid() || v.index >= graph_.values.size())
            return error("refers to an operand that does not exist");
    switch (category(op_.kind)) {
        case OpCategory::ElementwiseUnary:
        case OpCategory::ElementwiseBinary:
        case OpCategory::ElementwiseTernary:
            return elementwise();
        case OpCategory::Structural:
            return structural();
        case OpCategory::Control: {
            if (op_.kind == OpKind::While) {
                Types out;
                for (std::size_t i = 0; i < operandCount(); ++i)
                    out.push_back(operand(i));
                return out;
            }
            // case / if: the branches' results.
            if (op_.regions.empty())
                return needDeclared(declared_.size());
            Types out;
            for (auto v : op_.regions.front().results) {
                if (!v.valid() || v.index >= graph_.values.size())
                    return error("branch returns an undefined value");
                out.push_back(graph_.type(v));
            }
            for (const auto& region : op_.regions) {
                if (region.results.size() != out.size())
                    return error("branches return different numbers of values");
                for (std::size_t i = 0; i < out.size(); ++i)
                    if (region.results[i].index >= graph_.values.size() ||
                        graph_.type(region.results[i]) != out[i])
                        return error("branches return different types");
            }
            return out;
        }
        case OpCategory::Collective:
            if (op_.kind == OpKind::AllReduce) {
                Types out;
                for (std::size_t i = 0; i < operandCount(); ++i)
                    out.push_back(operand(i));
                return out;
            }
            return needDeclared(declared_.size());
        case OpCategory::Opaque:
            return needDeclared(declared_.size());
    }
    return error("unknown op kind");
}

}  // namespace

Result<std::vector<TensorType>> inferResultTypes(const Graph& graph, const Op& op,
                                                 std::span<const TensorType> declared) {
    return Inference(graph, op, declared).run();
}

}  // namespace shardscope::ir
