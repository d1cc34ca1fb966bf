// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/ir/builder.h"

#include <algorithm>
#include <map>

#include "shardscope/ir/shape_inference.h"
#include "shardscope/ir/verifier.h"

namespace shardscope::ir {

GraphBuilder::GraphBuilder(std::string graphName, std::string sourceFile)
    : sourceFile_(std::move(sourceFile)) {
    graph_.name = std::move(graphName);
}

GraphBuilder::GraphBuilder(Graph existing) : graph_(std::move(existing)) {}

GraphBuilder::Scope::Scope(GraphBuilder& builder, std::string_view name)
    : builder_(builder), previousLength_(builder.scope_.size()) {
    if (!builder_.scope_.empty())
        builder_.scope_ += ".";
    builder_.scope_ += name;
}

GraphBuilder::Scope::~Scope() {
    builder_.scope_.resize(previousLength_);
}

std::string GraphBuilder::path(std::string_view leaf) const {
    if (scope_.empty())
        return std::string(leaf);
    if (leaf.empty())
        return scope_;
    return scope_ + "." + std::string(leaf);
}

SourceLocation GraphBuilder::locationFor(std::string_view label) const {
    SourceLocation loc;
    loc.file = sourceFile_;
    loc.name = path(label);
    return loc;
}

void GraphBuilder::fail(std::string code, std::string message) {
    if (!error_)
        error_ = makeError(std::move(code), std::move(message), locationFor({}));
}

void GraphBuilder::stackParameters(std::int64_t layers, ValueId index) {
    stackedLayers_ = layers;
    stackIndex_ = index;
}

ValueId GraphBuilder::argument(ArgumentRole role, std::string_view name, TensorType type,
                               std::vector<std::string> dimensionLabels) {
    if (failed())
        return {};
    if (role == ArgumentRole::Parameter && stackedLayers_ > 0) {
        const std::int64_t layers = stackedLayers_;
        stackedLayers_ = 0;  // the stacked argument itself is a plain parameter
        TensorType stacked = type;
        stacked.shape.insert(stacked.shape.begin(), layers);
        if (!dimensionLabels.empty())
            dimensionLabels.insert(dimensionLabels.begin(), "layers");
        const ValueId all = argument(role, name, stacked, std::move(dimensionLabels));
        stackedLayers_ = layers;
        std::vector<ValueId> operands{all, stackIndex_};
        const ValueId zero = constant(0, graph_.type(stackIndex_), name);
        for (std::size_t d = 0; d < type.shape.size(); ++d)
            operands.push_back(zero);
        Shape sizes = type.shape;
        sizes.insert(sizes.begin(), 1);
        const ValueId slice =
            op1(OpKind::DynamicSlice, std::move(operands), DynamicSliceAttributes{sizes}, name);
        return reshape(slice, type.shape, name);
    }
    ValueId v = graph_.addValue(std::move(type));
    Argument a;
    a.value = v;
    a.role = role;
    a.name = path(name);
    a.dimensionLabels = std::move(dimensionLabels);
    a.location = locationFor(name);
    graph_.arguments.push_back(std::move(a));
    return v;
}

void GraphBuilder::output(ValueId value, std::string_view name, std::optional<std::size_t> aliasedArgument) {
    if (failed())
        return;
    Output out;
    out.value = value;
    out.name = std::string(name);
    out.aliasedArgument = aliasedArgument;
    graph_.outputs.push_back(std::move(out));
}

std::vector<ValueId> GraphBuilder::op(OpKind kind, std::vector<ValueId> operands, OpAttributes attributes,
                                      std::string_view label, std::vector<Region> regions,
                                      std::vector<TensorType> declaredResults) {
    if (failed())
        return {};
    for (auto v : operands)
        if (!v.valid() || v.index >= graph_.values.size()) {
            fail("ir.builder", "'stablehlo." + std::string(mnemonic(kind)) + "' at " + path(label) +
                                   " was given an undefined operand");
            return {};
        }
    Op probe;
    probe.kind = kind;
    probe.operands = operands;
    probe.attributes = attributes;
    probe.regions = regions;
    probe.location = locationFor(label);
    auto types = inferResultTypes(graph_, probe, declaredResults);
    if (!types) {
        error_ = types.diagnostics().front();
        return {};
    }
    OpId id = graph_.addOp(kind, std::move(operands), *types, std::move(attributes), probe.location);
    graph_.op(id).regions = std::move(regions);
    insertion_->push_back(id);
    return graph_.op(id).results;
}

ValueId GraphBuilder::op1(OpKind kind, std::vector<ValueId> operands, OpAttributes attributes,
                          std::string_view label) {
    auto results = op(kind, std::move(operands), std::move(attributes), label);
    return results.empty() ? ValueId{} : results.front();
}

ValueId GraphBuilder::unary(OpKind kind, ValueId x, std::string_view label) {
    return op1(kind, {x}, {}, label);
}

ValueId GraphBuilder::binary(OpKind kind, ValueId lhs, ValueId rhs, std::string_view label) {
    return op1(kind, {lhs, rhs}, {}, label);
}

ValueId GraphBuilder::compare(ValueId lhs, ValueId rhs, CompareDirection direction, std::string_view label) {
    CompareAttributes attributes{direction, CompareType::Default};
    if (!failed() && lhs.valid() && lhs.index < graph_.values.size()) {
        auto e = type(lhs).element;
        attributes.type = isFloat(e)      ? CompareType::Float
                          : isUnsigned(e) ? CompareType::Unsigned
                                          : CompareType::Signed;
    }
    return op1(OpKind::Compare, {lhs, rhs}, attributes, label);
}

ValueId GraphBuilder::select(ValueId predicate, ValueId onTrue, ValueId onFalse, std::string_view label) {
    return op1(OpKind::Select, {predicate, onTrue, onFalse}, {}, label);
}

ValueId GraphBuilder::convert(ValueId x, ElementType element, std::string_view label) {
    auto r = op(OpKind::Convert, {x}, {}, label, {}, {TensorType{{}, element}});
    return r.empty() ? ValueId{} : r.front();
}

ValueId GraphBuilder::constant(double value, TensorType type, std::string_view label) {
    auto r = op(OpKind::Constant, {}, ConstantAttributes{{value}}, label, {}, {std::move(type)});
    return r.empty() ? ValueId{} : r.front();
}

ValueId GraphBuilder::iota(TensorType type, std::int64_t dimension, std::string_view label) {
    auto r = op(OpKind::Iota, {}, DimensionAttribute{dimension}, label, {}, {std::move(type)});
    return r.empty() ? ValueId{} : r.front();
}

ValueId GraphBuilder::broadcastInDim(ValueId x, Shape shape, Dims dims, std::string_view label) {
    auto r = op(OpKind::BroadcastInDim, {x}, BroadcastDimensions{std::move(dims)}, label, {},
                {TensorType{std::move(shape), ElementType::F32}});
    return r.empty() ? ValueId{} : r.front();
}

ValueId GraphBuilder::broadcastTo(ValueId x, const Shape& shape, std::string_view label) {
    if (failed())
        return {};
    const int rank = type(x).rank();
    const int target = static_cast<int>(shape.size());
    if (rank > target) {
        fail("ir.builder", "cannot broadcast " + type(x).toString() + " to rank " + std::to_string(target));
        return {};
    }
    if (type(x).shape == shape)
        return x;
    Dims dims;
    for (int i = 0; i < rank; ++i)
        dims.push_back(target - rank + i);
    return broadcastInDim(x, shape, std::move(dims), label);
}

ValueId GraphBuilder::reshape(ValueId x, Shape shape, std::string_view label) {
    auto r = op(OpKind::Reshape, {x}, {}, label, {}, {TensorType{std::move(shape), ElementType::F32}});
    return r.empty() ? ValueId{} : r.front();
}

ValueId GraphBuilder::transpose(ValueId x, Dims permutation, std::string_view label) {
    return op1(OpKind::Transpose, {x}, Permutation{std::move(permutation)}, label);
}

ValueId GraphBuilder::slice(ValueId x, Dims start, Dims limit, Dims strides, std::string_view label) {
    return op1(OpKind::Slice, {x}, SliceAttributes{std::move(start), std::move(limit), std::move(strides)},
               label);
}

ValueId GraphBuilder::concatenate(std::vector<ValueId> xs, std::int64_t dimension, std::string_view label) {
    return op1(OpKind::Concatenate, std::move(xs), DimensionAttribute{dimension}, label);
}

ValueId GraphBuilder::pad(ValueId x, ValueId paddingValue, Dims low, Dims high, Dims interior,
                          std::string_view label) {
    return op1(OpKind::Pad, {x, paddingValue},
               PadAttributes{std::move(low), std::move(high), std::move(interior)}, label);
}

ValueId GraphBuilder::dotGeneral(ValueId lhs, ValueId rhs, DotDimensions dims, std::string_view label) {
    return op1(OpKind::DotGeneral, {lhs, rhs}, std::move(dims), label);
}

ValueId GraphBuilder::einsum(std::string_view spec, ValueId lhs, ValueId rhs, std::string_view label) {
    if (failed())
        return {};
    auto comma = spec.find(',');
    auto arrow = spec.find("->");
    if (comma == std::string_view::npos || arrow == std::string_view::npos || arrow < comma) {
        fail("ir.einsum", "einsum '" + std::string(spec) + "' is not of the form 'ab,bc->ac'");
        return {};
    }
    std::string a(spec.substr(0, comma)), b(spec.substr(comma + 1, arrow - comma - 1)),
        out(spec.substr(arrow + 2));
    if (static_cast<int>(a.size()) != type(lhs).rank() || static_cast<int>(b.size()) != type(rhs).rank()) {
        fail("ir.einsum", "einsum '" + std::string(spec) + "' does not match operand ranks " +
                              type(lhs).toString() + ", " + type(rhs).toString());
        return {};
    }
    // Sum away letters that appear in one operand only and not in the output.
    auto sumAway = [&](ValueId& v, std::string& letters, const std::string& other) {
        Dims dims;
        std::string kept;
        for (std::size_t i = 0; i < letters.size(); ++i) {
            char c = letters[i];
            if (other.find(c) == std::string::npos && out.find(c) == std::string::npos)
                dims.push_back(static_cast<std::int64_t>(i));
            else
                kept += c;
        }
        if (!dims.empty()) {
            v = reduce(v, dims, Reducer::Add, label);
            letters = kept;
        }
    };
    sumAway(lhs, a, b);
    sumAway(rhs, b, a);
    DotDimensions dims;
    std::string produced;
    for (std::size_t i = 0; i < a.size(); ++i) {
        auto j = b.find(a[i]);
        if (j == std::string::npos)
            continue;
        if (out.find(a[i]) != std::string::npos) {
            dims.lhsBatching.push_back(static_cast<std::int64_t>(i));
            dims.rhsBatching.push_back(static_cast<std::int64_t>(j));
            produced += a[i];
        } else {
            dims.lhsContracting.push_back(static_cast<std::int64_t>(i));
            dims.rhsContracting.push_back(static_cast<std::int64_t>(j));
        }
    }
    for (char c : a)
        if (b.find(c) == std::string::npos)
            produced += c;
    for (char c : b)
        if (a.find(c) == std::string::npos)
            produced += c;
    if (produced.size() != out.size()) {
        fail("ir.einsum", "einsum '" + std::string(spec) + "' output letters do not match its inputs");
        return {};
    }
    ValueId result = dotGeneral(lhs, rhs, std::move(dims), label);
    if (produced == out)
        return result;
    Dims permutation;
    for (char c : out) {
        auto p = produced.find(c);
        if (p == std::string::npos) {
            fail("ir.einsum", "einsum '" + std::string(spec) + "' output letter '" + std::string(1, c) +
                                  "' is in no input");
            return {};
        }
        permutation.push_back(static_cast<std::int64_t>(p));
    }
    return transpose(result, std::move(permutation), label);
}

Region GraphBuilder::region(const std::vector<TensorType>& argumentTypes,
                            const std::function<std::vector<ValueId>(const std::vector<ValueId>&)>& body) {
    Region result;
    for (const auto& t : argumentTypes)
        result.arguments.push_back(graph_.addValue(t));
    std::vector<OpId>* outer = insertion_;
    insertion_ = &result.ops;
    result.results = body(result.arguments);
    insertion_ = outer;
    return result;
}

Region GraphBuilder::reducerBody(Reducer reducer, ElementType element) {
    const TensorType scalarType{{}, element};
    return region({scalarType, scalarType}, [&](const std::vector<ValueId>& args) {
        return std::vector<ValueId>{binary(reducerOpKind(reducer), args[0], args[1])};
    });
}

ValueId GraphBuilder::reduce(ValueId x, Dims dims, Reducer reducer, std::string_view label) {
    if (failed())
        return {};
    const ElementType element = type(x).element;
    ValueId init = constant(reducerIdentity(reducer, element), TensorType{{}, element}, label);
    Region body = reducerBody(reducer, element);
    auto r =
        op(OpKind::Reduce, {x, init}, ReduceAttributes{std::move(dims), reducer}, label, {std::move(body)});
    return r.empty() ? ValueId{} : r.front();
}

ValueId GraphBuilder::reduceWindow(ValueId x, WindowAttributes window, std::string_view label) {
    if (failed())
        return {};
    const ElementType element = type(x).element;
    ValueId init = constant(reducerIdentity(window.reducer, element), TensorType{{}, element}, label);
    Region body = reducerBody(window.reducer, element);
    auto r = op(OpKind::ReduceWindow, {x, init}, std::move(window), label, {std::move(body)});
    return r.empty() ? ValueId{} : r.front();
}

ValueId GraphBuilder::convolution(ValueId input, ValueId kernel, ConvolutionAttributes attributes,
                                  std::string_view label) {
    return op1(OpKind::Convolution, {input, kernel}, std::move(attributes), label);
}

ValueId GraphBuilder::gather(ValueId operand, ValueId indices, GatherAttributes attributes,
                             std::string_view label) {
    return op1(OpKind::Gather, {operand, indices}, std::move(attributes), label);
}

Result<Graph> GraphBuilder::finish() && {
    if (error_)
        return *error_;
    auto status = verifyGraph(graph_);
    if (!status)
        return Result<Graph>::failure(status.diagnostics());
    return std::move(graph_);
}

}  // namespace shardscope::ir
