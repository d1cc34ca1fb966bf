// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The attributes of an op in the generic form (`<{dot_dimension_numbers = #stablehlo.dot<...>}>`) as the IR's
// attribute structs, a while loop's trip count, and the values of dense<...> constants.
#include "dense_elements.h"
#include "stablehlo_parser.h"

namespace shardscope::import::stablehlo_import {

using namespace ir;

Reducer reducerOf(const Graph& g, const Region& r) {
    if (r.ops.size() != 1)
        return Reducer::Other;
    switch (g.op(r.ops.front()).kind) {
        case OpKind::Add:
            return Reducer::Add;
        case OpKind::Multiply:
            return Reducer::Multiply;
        case OpKind::Maximum:
            return Reducer::Maximum;
        case OpKind::Minimum:
            return Reducer::Minimum;
        case OpKind::And:
            return Reducer::And;
        case OpKind::Or:
            return Reducer::Or;
        default:
            return Reducer::Other;
    }
}

namespace {

constexpr std::size_t kMaxDenseElements = std::size_t{1} << 20;

DotDimensions dotDimensions(const Attr& dims) {
    return DotDimensions{
        intsOf(dims.field("lhs_batching_dimensions")), intsOf(dims.field("rhs_batching_dimensions")),
        intsOf(dims.field("lhs_contracting_dimensions")), intsOf(dims.field("rhs_contracting_dimensions"))};
}

// reduce_window's, or select_and_scatter's (whose second region combines).
WindowAttributes windowAttributes(OpKind kind, const AttrDict& d, const Graph& g, const Pending& p) {
    WindowAttributes w;
    w.windowDimensions = intsOf(lookup(d, "window_dimensions"));
    w.windowStrides = intsOf(lookup(d, "window_strides"));
    w.baseDilations = intsOf(lookup(d, "base_dilations"));
    w.windowDilations = intsOf(lookup(d, "window_dilations"));
    w.padding = pairsOf(lookup(d, "padding"));
    const std::size_t bodyIndex = kind == OpKind::SelectAndScatter ? 1 : 0;
    w.reducer = p.regions.size() > bodyIndex ? reducerOf(g, p.regions[bodyIndex]) : Reducer::Other;
    return w;
}

// `#stablehlo.conv<raw [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>` or its key = value form; false when neither.
bool convolutionDimensions(const Attr& dims, ConvolutionAttributes& c) {
    if (!dims.items.empty())
        return parseConvLayout(dims.items.front().text, c);
    if (!dims.field("input_batch_dimension"))
        return false;
    c.inputBatch = dims.field("input_batch_dimension")->integer;
    c.inputFeature = intsOf(dims.field("input_feature_dimension")).at(0);
    c.inputSpatial = intsOf(dims.field("input_spatial_dimensions"));
    c.kernelInputFeature = intsOf(dims.field("kernel_input_feature_dimension")).at(0);
    c.kernelOutputFeature = intsOf(dims.field("kernel_output_feature_dimension")).at(0);
    c.kernelSpatial = intsOf(dims.field("kernel_spatial_dimensions"));
    c.outputBatch = intsOf(dims.field("output_batch_dimension")).at(0);
    c.outputFeature = intsOf(dims.field("output_feature_dimension")).at(0);
    c.outputSpatial = intsOf(dims.field("output_spatial_dimensions"));
    return true;
}

// nullopt when the dimension numbers cannot be read.
std::optional<ConvolutionAttributes> convolutionAttributes(const Attr& dims, const AttrDict& d) {
    ConvolutionAttributes c;
    if (!convolutionDimensions(dims, c))
        return std::nullopt;
    c.windowStrides = intsOf(lookup(d, "window_strides"));
    c.padding = pairsOf(lookup(d, "padding"));
    c.lhsDilation = intsOf(lookup(d, "lhs_dilation"));
    c.rhsDilation = intsOf(lookup(d, "rhs_dilation"));
    groupCountsFrom(d, c);
    return c;
}

GatherAttributes gatherAttributes(const Attr& dims, const Attr& sliceSizes, const AttrDict& d) {
    GatherAttributes g;
    g.offsetDims = intsOf(dims.field("offset_dims"));
    g.collapsedSliceDims = intsOf(dims.field("collapsed_slice_dims"));
    g.operandBatchingDims = intsOf(dims.field("operand_batching_dims"));
    g.startIndicesBatchingDims = intsOf(dims.field("start_indices_batching_dims"));
    g.startIndexMap = intsOf(dims.field("start_index_map"));
    if (const Attr* v = dims.field("index_vector_dim"))
        g.indexVectorDim = v->integer;
    g.sliceSizes = intsOf(&sliceSizes);
    if (const Attr* s = lookup(d, "indices_are_sorted"))
        g.indicesAreSorted = s->integer != 0;
    return g;
}

ScatterAttributes scatterAttributes(const Attr& dims, const AttrDict& d) {
    ScatterAttributes s;
    s.updateWindowDims = intsOf(dims.field("update_window_dims"));
    s.insertedWindowDims = intsOf(dims.field("inserted_window_dims"));
    s.inputBatchingDims = intsOf(dims.field("input_batching_dims"));
    s.scatterIndicesBatchingDims = intsOf(dims.field("scatter_indices_batching_dims"));
    s.scatterDimsToOperandDims = intsOf(dims.field("scatter_dims_to_operand_dims"));
    if (const Attr* v = dims.field("index_vector_dim"))
        s.indexVectorDim = v->integer;
    if (const Attr* v = lookup(d, "indices_are_sorted"))
        s.indicesAreSorted = v->integer != 0;
    if (const Attr* v = lookup(d, "unique_indices"))
        s.uniqueIndices = v->integer != 0;
    return s;
}

SortAttributes sortAttributes(const AttrDict& d) {
    SortAttributes s;
    if (const Attr* v = lookup(d, "dimension"))
        s.dimension = v->integer;
    if (const Attr* v = lookup(d, "is_stable"))
        s.isStable = v->integer != 0;
    return s;
}

CollectiveAttributes collectiveAttributes(OpKind kind, const AttrDict& d, const Graph& g, const Pending& p) {
    CollectiveAttributes c;
    if (const Attr* groups =
            lookup(d, kind == OpKind::CollectivePermute ? "source_target_pairs" : "replica_groups")) {
        const Dims flat = intsOf(groups);
        const auto& shape = groups->type.shape;
        const std::size_t width =
            shape.size() == 2 && shape[1] > 0 ? static_cast<std::size_t>(shape[1]) : flat.size();
        for (std::size_t i = 0; width > 0 && i + width <= flat.size(); i += width)
            c.replicaGroups.emplace_back(flat.begin() + static_cast<std::ptrdiff_t>(i),
                                         flat.begin() + static_cast<std::ptrdiff_t>(i + width));
    }
    for (const char* key : {"all_gather_dim", "scatter_dimension", "split_dimension"})
        if (const Attr* v = lookup(d, key))
            c.dimension = v->integer;
    if (const Attr* v = lookup(d, "concat_dimension"))
        c.concatDimension = v->integer;
    if (!p.regions.empty())
        c.reducer = reducerOf(g, p.regions.front());
    return c;
}

}  // namespace

const Attr& Parser::requiredAttribute(const AttrDict& d, std::string_view key, std::size_t at) {
    if (const Attr* a = lookup(d, key))
        return *a;
    lex_.failAt(at, "'" + opName_ + "' is missing its '" + std::string(key) + "' attribute");
}

OpAttributes Parser::attributesFor(OpKind kind, const AttrDict& d, const Pending& p, std::size_t at) {
    auto need = [&](std::string_view key) -> const Attr& { return requiredAttribute(d, key, at); };
    switch (kind) {
        case OpKind::DotGeneral:
            return dotDimensions(need("dot_dimension_numbers"));
        case OpKind::BroadcastInDim:
            return BroadcastDimensions{intsOf(&need("broadcast_dimensions"))};
        case OpKind::Transpose:
            return Permutation{intsOf(&need("permutation"))};
        case OpKind::Reduce:
            return ReduceAttributes{intsOf(&need("dimensions")), p.regions.empty()
                                                                     ? Reducer::Other
                                                                     : reducerOf(graph_, p.regions.front())};
        case OpKind::ReduceWindow:
        case OpKind::SelectAndScatter:
            return windowAttributes(kind, d, graph_, p);
        case OpKind::Convolution: {
            const auto c = convolutionAttributes(need("dimension_numbers"), d);
            if (!c)
                lex_.failAt(at, "cannot read the convolution's dimension numbers");
            return *c;
        }
        case OpKind::Slice:
            return SliceAttributes{intsOf(&need("start_indices")), intsOf(&need("limit_indices")),
                                   intsOf(lookup(d, "strides"))};
        case OpKind::Pad:
            return PadAttributes{intsOf(&need("edge_padding_low")), intsOf(&need("edge_padding_high")),
                                 intsOf(lookup(d, "interior_padding"))};
        case OpKind::Concatenate:
            return DimensionAttribute{need("dimension").integer};
        case OpKind::Iota:
            return DimensionAttribute{need("iota_dimension").integer};
        case OpKind::Compare: {
            const auto direction = comparisonDirection(wordOf(&need("comparison_direction")));
            if (!direction)
                lex_.failAt(at, "unknown comparison direction");
            return CompareAttributes{*direction, compareType(wordOf(lookup(d, "compare_type")))};
        }
        case OpKind::Gather: {
            const Attr& dims = need("dimension_numbers");
            return gatherAttributes(dims, need("slice_sizes"), d);
        }
        case OpKind::Scatter:
            return scatterAttributes(need("scatter_dimension_numbers"), d);
        case OpKind::DynamicSlice:
            return DynamicSliceAttributes{intsOf(&need("slice_sizes"))};
        case OpKind::Fft:
            return DimensionsAttribute{intsOf(lookup(d, "fft_length"))};
        case OpKind::BatchNormGrad:
        case OpKind::BatchNormInference:
        case OpKind::BatchNormTraining:
            return DimensionAttribute{need("feature_index").integer};
        case OpKind::Sort:
            return sortAttributes(d);
        case OpKind::Reverse:
            return DimensionsAttribute{intsOf(&need("dimensions"))};
        case OpKind::Constant: {
            const Attr& value = need("value");
            if (p.resultTypes.size() != 1 || value.resource)
                return ConstantAttributes{};
            return ConstantAttributes{decodeDense(value.text, p.resultTypes.front(), at)};
        }
        case OpKind::CustomCall: {
            const Attr* target = lookup(d, "call_target_name");
            return CustomCallAttributes{target ? target->text : std::string(), backendConfigOf(d)};
        }
        case OpKind::AllGather:
        case OpKind::AllReduce:
        case OpKind::AllToAll:
        case OpKind::CollectivePermute:
        case OpKind::ReduceScatter:
            return collectiveAttributes(kind, d, graph_, p);
        default:
            return NoAttributes{};
    }
}

// Trip count of `while`: a condition `iter < limit` (or <=, !=) with constant limit and constant start.
LoopAttributes Parser::loopAttributes(const Pending& p) const {
    LoopAttributes loop;
    if (p.regions.size() != 2)
        return loop;
    const Region& cond = p.regions[0];
    if (cond.results.size() != 1)
        return loop;
    const Value& result = graph_.value(cond.results[0]);
    if (!result.producer.valid())
        return loop;
    const Op& compare = graph_.op(result.producer);
    if (compare.kind != OpKind::Compare || compare.operands.size() != 2)
        return loop;
    auto argumentIndex = [&](ValueId v) -> std::optional<std::size_t> {
        for (std::size_t i = 0; i < cond.arguments.size(); ++i)
            if (cond.arguments[i] == v)
                return i;
        return std::nullopt;
    };
    const auto index = argumentIndex(compare.operands[0]);
    const auto limit = constantScalar(graph_, compare.operands[1]);
    if (!index || !limit || *index >= p.operands.size())
        return loop;
    const auto start = constantScalar(graph_, p.operands[*index]);
    if (!start)
        return loop;
    const auto direction = std::get<CompareAttributes>(compare.attributes).direction;
    double trips = *limit - *start;
    if (direction == CompareDirection::LE)
        trips += 1;
    else if (direction != CompareDirection::LT && direction != CompareDirection::NE)
        return loop;
    if (trips < 0 || trips > 1e12)
        return loop;
    loop.tripCount = static_cast<std::int64_t>(trips);
    loop.tripCountKnown = true;
    return loop;
}

// dense<...> literal text -> element values (row-major; one value for a splat). Empty when too large to keep.
std::vector<double> Parser::decodeDense(const std::string& literal, const TensorType& type, std::size_t at) {
    auto values = decodeDenseElements(literal, type, kMaxDenseElements);
    if (!values)
        lex_.failAt(at, values.diagnostics().front().message);
    return std::move(values).value();
}

}  // namespace shardscope::import::stablehlo_import
