// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// dot_general and convolution: sums of products. Floats accumulate in double and are rounded once to the
// result type (at least as accurate as any accumulation order StableHLO allows); integers accumulate modulo
// 2^64 and wrap to the result type, as an integer machine would.
#include <algorithm>

#include "interpret/index.h"
#include "interpret/numerics.h"
#include "interpret/ops.h"

namespace shardscope::interpret {

using ir::Dims;
using ir::TensorType;

namespace {

// Sums products of lhs and rhs elements into a result element.
class Accumulator {
public:
    Accumulator(ir::ElementType lhs, ir::ElementType rhs, ir::ElementType result)
        : lhs_(lhs),
          rhs_(rhs),
          result_(result),
          integer_(integerBits(result) > 1 && integerBits(lhs) > 1 && integerBits(rhs) > 1) {}

    void add(double a, double b) {
        if (integer_)
            bits_ += pattern(a, lhs_) * pattern(b, rhs_);
        else
            sum_ += a * b;
    }
    double value() const { return integer_ ? integerValue(bits_, result_) : sum_; }

private:
    // Sign-extended, so that a result wider than the operands (i8 x i8 -> i32) is right too.
    static std::uint64_t pattern(double v, ir::ElementType type) {
        return isSignedInteger(type) ? static_cast<std::uint64_t>(signedValue(v, type))
                                     : unsignedValue(v, type);
    }

    ir::ElementType lhs_, rhs_, result_;
    bool integer_;
    double sum_ = 0;
    std::uint64_t bits_ = 0;
};

bool contains(const Dims& dims, std::int64_t d) {
    return std::find(dims.begin(), dims.end(), d) != dims.end();
}

// Offsets, within a tensor of `strides`, of every index over `dims` (sizes from `shape`), in row-major order.
std::vector<std::int64_t> offsetsOver(const Dims& dims, const ir::Shape& shape,
                                      const std::vector<std::int64_t>& strides) {
    ir::Shape sizes;
    for (auto d : dims)
        sizes.push_back(shape[d]);
    std::vector<std::int64_t> offsets;
    for (IndexIterator it(sizes); !it.done(); it.next()) {
        std::int64_t offset = 0;
        for (std::size_t i = 0; i < dims.size(); ++i)
            offset += it[i] * strides[dims[i]];
        offsets.push_back(offset);
    }
    return offsets;
}

}  // namespace

// result[batch..., lhs free..., rhs free...] = sum over the contracting index of lhs * rhs.
Result<Tensor> dotGeneral(const ir::Op& op, const Tensor& lhs, const Tensor& rhs, const TensorType& type) {
    const auto* dims = std::get_if<ir::DotDimensions>(&op.attributes);
    if (!dims)
        return opError(op, "has no dimension numbers");
    Dims lhsFree, rhsFree;
    for (std::int64_t d = 0; d < lhs.type.rank(); ++d)
        if (!contains(dims->lhsBatching, d) && !contains(dims->lhsContracting, d))
            lhsFree.push_back(d);
    for (std::int64_t d = 0; d < rhs.type.rank(); ++d)
        if (!contains(dims->rhsBatching, d) && !contains(dims->rhsContracting, d))
            rhsFree.push_back(d);
    const auto lhsStrides = rowMajorStrides(lhs.type.shape), rhsStrides = rowMajorStrides(rhs.type.shape);
    const auto lhsContracting = offsetsOver(dims->lhsContracting, lhs.type.shape, lhsStrides);
    const auto rhsContracting = offsetsOver(dims->rhsContracting, rhs.type.shape, rhsStrides);
    const std::size_t batch = dims->lhsBatching.size();

    Tensor out = zeros(type);
    for (IndexIterator it(type.shape); !it.done(); it.next()) {
        std::int64_t lhsBase = 0, rhsBase = 0;
        for (std::size_t i = 0; i < batch; ++i) {
            lhsBase += it[i] * lhsStrides[dims->lhsBatching[i]];
            rhsBase += it[i] * rhsStrides[dims->rhsBatching[i]];
        }
        for (std::size_t i = 0; i < lhsFree.size(); ++i)
            lhsBase += it[batch + i] * lhsStrides[lhsFree[i]];
        for (std::size_t i = 0; i < rhsFree.size(); ++i)
            rhsBase += it[batch + lhsFree.size() + i] * rhsStrides[rhsFree[i]];
        Accumulator sum(lhs.type.element, rhs.type.element, type.element);
        for (std::size_t k = 0; k < lhsContracting.size(); ++k)
            sum.add(lhs.values[lhsBase + lhsContracting[k]], rhs.values[rhsBase + rhsContracting[k]]);
        out.values[it.position()] = sum.value();
    }
    return out;
}

// StableHLO convolution. For an output index (batch b, feature o, spatial s):
//   with feature_group_count G, o belongs to group g = o / (O / G) and reads input features
//   [g * Ci, (g + 1) * Ci) where Ci is the kernel's input-feature size;
//   with batch_group_count G, o belongs to group g = o / (O / G) and reads input batch g * B_out + b;
//   spatially, kernel position k reads the padded, lhs-dilated input at s * stride + k * rhs_dilation, which
//   is input element (p - pad_low) / lhs_dilation when that division is exact and in range, and 0 otherwise.
Result<Tensor> convolution(const ir::Op& op, const Tensor& lhs, const Tensor& rhs, const TensorType& type) {
    const auto* c = std::get_if<ir::ConvolutionAttributes>(&op.attributes);
    if (!c)
        return opError(op, "has no dimension numbers");
    const std::int64_t outFeatures = rhs.type.shape[c->kernelOutputFeature];
    const std::int64_t featureGroups = c->featureGroupCount, batchGroups = c->batchGroupCount;
    if (featureGroups > 1 && batchGroups > 1)
        return opError(op, "cannot have both feature_group_count and batch_group_count above 1");
    if (outFeatures % featureGroups != 0 || outFeatures % batchGroups != 0)
        return opError(op, "kernel output features " + std::to_string(outFeatures) +
                               " are not divisible by the group count");
    const std::size_t spatial = c->inputSpatial.size();
    auto vec = [](const Dims& v, std::size_t i) { return v.empty() ? std::int64_t{1} : v[i]; };

    const auto lhsStrides = rowMajorStrides(lhs.type.shape), rhsStrides = rowMajorStrides(rhs.type.shape);
    const std::int64_t kernelInFeatures = rhs.type.shape[c->kernelInputFeature];
    const std::int64_t outBatch = type.shape[c->outputBatch];
    ir::Shape kernelWindow;
    for (auto d : c->kernelSpatial)
        kernelWindow.push_back(rhs.type.shape[d]);

    Tensor out = zeros(type);
    for (IndexIterator it(type.shape); !it.done(); it.next()) {
        const std::int64_t b = it[c->outputBatch], o = it[c->outputFeature];
        const std::int64_t featureGroup = o / (outFeatures / featureGroups);
        const std::int64_t batchGroup = o / (outFeatures / batchGroups);
        const std::int64_t lhsBase = (batchGroup * outBatch + b) * lhsStrides[c->inputBatch] +
                                     featureGroup * kernelInFeatures * lhsStrides[c->inputFeature];
        const std::int64_t rhsBase = o * rhsStrides[c->kernelOutputFeature];
        Accumulator sum(lhs.type.element, rhs.type.element, type.element);
        for (IndexIterator k(kernelWindow); !k.done(); k.next()) {
            std::int64_t lhsOffset = lhsBase, rhsOffset = rhsBase;
            bool inside = true;
            for (std::size_t i = 0; i < spatial && inside; ++i) {
                const std::int64_t lhsDilation = vec(c->lhsDilation, i);
                const std::int64_t low = c->padding.empty() ? 0 : c->padding[i].first;
                const std::int64_t p =
                    it[c->outputSpatial[i]] * vec(c->windowStrides, i) + k[i] * vec(c->rhsDilation, i) - low;
                inside =
                    p >= 0 && p % lhsDilation == 0 && p / lhsDilation < lhs.type.shape[c->inputSpatial[i]];
                lhsOffset += (p / lhsDilation) * lhsStrides[c->inputSpatial[i]];
                rhsOffset += k[i] * rhsStrides[c->kernelSpatial[i]];
            }
            if (!inside)
                continue;
            for (std::int64_t f = 0; f < kernelInFeatures; ++f)
                sum.add(lhs.values[lhsOffset + f * lhsStrides[c->inputFeature]],
                        rhs.values[rhsOffset + f * rhsStrides[c->kernelInputFeature]]);
        }
        out.values[it.position()] = sum.value();
    }
    return out;
}

}  // namespace shardscope::interpret
