// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Kind-specific attributes of ops, as small value types. Dimension numbers follow StableHLO's definitions.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "shardscope/ir/op_kind.h"
#include "shardscope/ir/types.h"

namespace shardscope::ir {

using Dims = std::vector<std::int64_t>;

struct NoAttributes {
    friend bool operator==(const NoAttributes&, const NoAttributes&) = default;
};

struct DotDimensions {
    Dims lhsBatching, rhsBatching, lhsContracting, rhsContracting;
    friend bool operator==(const DotDimensions&, const DotDimensions&) = default;
};

// broadcast_in_dim: operand dimension i maps to result dimension dims[i].
struct BroadcastDimensions {
    Dims dims;
    friend bool operator==(const BroadcastDimensions&, const BroadcastDimensions&) = default;
};

// transpose: result dimension i is operand dimension permutation[i].
struct Permutation {
    Dims permutation;
    friend bool operator==(const Permutation&, const Permutation&) = default;
};

// The body's combiner when it is a single well-known op; Other when the body is anything else.
enum class Reducer : std::uint8_t { Add, Multiply, Maximum, Minimum, And, Or, Other };

// reduce: operands are N inputs then N init values; the body combines them.
struct ReduceAttributes {
    Dims dimensions;
    Reducer reducer = Reducer::Add;
    friend bool operator==(const ReduceAttributes&, const ReduceAttributes&) = default;
};

// reduce_window and select_and_scatter. Empty vectors mean the defaults (strides 1, no dilation, no padding).
struct WindowAttributes {
    Dims windowDimensions, windowStrides, baseDilations, windowDilations;
    std::vector<std::pair<std::int64_t, std::int64_t>> padding;
    Reducer reducer = Reducer::Add;
    friend bool operator==(const WindowAttributes&, const WindowAttributes&) = default;
};

struct ConvolutionAttributes {
    std::int64_t inputBatch = 0, inputFeature = 1;
    Dims inputSpatial;
    std::int64_t kernelInputFeature = 0, kernelOutputFeature = 1;
    Dims kernelSpatial;
    std::int64_t outputBatch = 0, outputFeature = 1;
    Dims outputSpatial;
    Dims windowStrides, lhsDilation, rhsDilation;                // empty = all 1
    std::vector<std::pair<std::int64_t, std::int64_t>> padding;  // empty = no padding
    std::int64_t featureGroupCount = 1, batchGroupCount = 1;

    // JAX's default layout, [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]: input [N, spatial..., C], kernel
    // [spatial..., I, O], output [N, spatial..., C]; unit strides, no padding or dilation.
    static ConvolutionAttributes channelsLast(int spatialRank = 2);
    friend bool operator==(const ConvolutionAttributes&, const ConvolutionAttributes&) = default;
};

struct SliceAttributes {
    Dims start, limit, strides;
    friend bool operator==(const SliceAttributes&, const SliceAttributes&) = default;
};

struct PadAttributes {
    Dims low, high, interior;
    friend bool operator==(const PadAttributes&, const PadAttributes&) = default;
};

// concatenate, iota, and ops with one dimension attribute.
struct DimensionAttribute {
    std::int64_t dimension = 0;
    friend bool operator==(const DimensionAttribute&, const DimensionAttribute&) = default;
};

// reverse.
struct DimensionsAttribute {
    Dims dimensions;
    friend bool operator==(const DimensionsAttribute&, const DimensionsAttribute&) = default;
};

enum class CompareDirection : std::uint8_t { EQ, NE, GE, GT, LE, LT };
enum class CompareType : std::uint8_t { Default, Float, TotalOrder, Signed, Unsigned };

struct CompareAttributes {
    CompareDirection direction = CompareDirection::EQ;
    CompareType type = CompareType::Default;
    friend bool operator==(const CompareAttributes&, const CompareAttributes&) = default;
};

struct GatherAttributes {
    Dims offsetDims, collapsedSliceDims, operandBatchingDims, startIndicesBatchingDims, startIndexMap;
    std::int64_t indexVectorDim = 0;
    Dims sliceSizes;
    bool indicesAreSorted = false;
    friend bool operator==(const GatherAttributes&, const GatherAttributes&) = default;
};

struct ScatterAttributes {
    Dims updateWindowDims, insertedWindowDims, inputBatchingDims, scatterIndicesBatchingDims,
        scatterDimsToOperandDims;
    std::int64_t indexVectorDim = 0;
    bool indicesAreSorted = false, uniqueIndices = false;
    friend bool operator==(const ScatterAttributes&, const ScatterAttributes&) = default;
};

struct DynamicSliceAttributes {
    Dims sliceSizes;
    friend bool operator==(const DynamicSliceAttributes&, const DynamicSliceAttributes&) = default;
};

struct SortAttributes {
    std::int64_t dimension = -1;
    bool isStable = false;
    friend bool operator==(const SortAttributes&, const SortAttributes&) = default;
};

// The literal of a constant. Empty = not known (elided or resource-backed); one value = splat;
// otherwise one value per element in row-major order.
struct ConstantAttributes {
    std::vector<double> values;
    friend bool operator==(const ConstantAttributes&, const ConstantAttributes&) = default;
};

struct CustomCallAttributes {
    std::string target;
    std::string backendConfig;
    friend bool operator==(const CustomCallAttributes&, const CustomCallAttributes&) = default;
};

// An op we do not model: its full name as written in the source ("chlo.top_k", "mhlo.foo").
struct OpaqueAttributes {
    std::string name;
    friend bool operator==(const OpaqueAttributes&, const OpaqueAttributes&) = default;
};

// while: how many times the body runs; estimated when the source does not make it evident.
struct LoopAttributes {
    std::int64_t tripCount = 1;
    bool tripCountKnown = false;
    friend bool operator==(const LoopAttributes&, const LoopAttributes&) = default;
};

// Collectives of already-partitioned programs: the device groups, as written.
struct CollectiveAttributes {
    std::vector<std::vector<std::int64_t>> replicaGroups;
    std::int64_t dimension = -1;        // all_gather / reduce_scatter / all_to_all split or concat dimension
    std::int64_t concatDimension = -1;  // all_to_all
    Reducer reducer = Reducer::Add;
    friend bool operator==(const CollectiveAttributes&, const CollectiveAttributes&) = default;
};

// Identity of a combiner for element type `element` (0 for add, -inf for maximum, ...), and the op it
// applies.
double reducerIdentity(Reducer reducer, ElementType element);
OpKind reducerOpKind(Reducer reducer);

using OpAttributes =
    std::variant<NoAttributes, DotDimensions, BroadcastDimensions, Permutation, ReduceAttributes,
                 WindowAttributes, ConvolutionAttributes, SliceAttributes, PadAttributes, DimensionAttribute,
                 DimensionsAttribute, CompareAttributes, GatherAttributes, ScatterAttributes,
                 DynamicSliceAttributes, SortAttributes, ConstantAttributes, CustomCallAttributes,
                 OpaqueAttributes, LoopAttributes, CollectiveAttributes>;

}  // namespace shardscope::ir
