// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Builds graphs op by op with result types inferred from the operands, for the model zoo and tests.
//
// Errors do not throw: the first inconsistency (say, a contraction of mismatched sizes) is recorded, later
// calls return invalid ids and do nothing, and finish() returns the diagnostic naming the op and its
// location.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/ir/graph.h"

namespace shardscope::ir {

class GraphBuilder {
public:
    explicit GraphBuilder(std::string graphName, std::string sourceFile = {});
    // Continues an existing graph: new arguments, ops and outputs are appended to it.
    explicit GraphBuilder(Graph existing);
    GraphBuilder(const GraphBuilder&) = delete;
    GraphBuilder& operator=(const GraphBuilder&) = delete;

    // Module-path scopes: inside `auto s = b.scope("layers.3")`, parameter("w") is named "layers.3.w" and op
    // labels are prefixed the same way.
    class Scope {
    public:
        Scope(GraphBuilder& builder, std::string_view name);
        ~Scope();
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        GraphBuilder& builder_;
        std::size_t previousLength_;
    };
    Scope scope(std::string_view name) { return Scope(*this, name); }
    // The current scope joined with `leaf` ("layers.3.mlp.w1"); the scope alone when leaf is empty.
    std::string path(std::string_view leaf = {}) const;

    ValueId argument(ArgumentRole role, std::string_view name, TensorType type,
                     std::vector<std::string> dimensionLabels = {});
    ValueId parameter(std::string_view name, Shape shape, ElementType element,
                      std::vector<std::string> dimensionLabels = {}) {
        return argument(ArgumentRole::Parameter, name, TensorType{std::move(shape), element},
                        std::move(dimensionLabels));
    }
    ValueId input(std::string_view name, Shape shape, ElementType element,
                  std::vector<std::string> dimensionLabels = {}) {
        return argument(ArgumentRole::Input, name, TensorType{std::move(shape), element},
                        std::move(dimensionLabels));
    }
    void output(ValueId value, std::string_view name, std::optional<std::size_t> aliasedArgument = {});

    // Stacked parameters, as a scan over layers keeps them (JAX's nn.scan, MaxText's scan_layers): while
    // `layers` is positive, parameter() creates one argument of shape [layers, shape...] (its first dimension
    // labelled "layers") and returns its slice at `index` (a dynamic_slice and a reshape where ops are being
    // inserted). stackParameters(0, {}) ends it.
    void stackParameters(std::int64_t layers, ValueId index);

    // Generic op: results inferred, or `declaredResults` when the kind cannot be inferred (custom_call,
    // opaque).
    std::vector<ValueId> op(OpKind kind, std::vector<ValueId> operands,
                            OpAttributes attributes = NoAttributes{}, std::string_view label = {},
                            std::vector<Region> regions = {}, std::vector<TensorType> declaredResults = {});
    ValueId op1(OpKind kind, std::vector<ValueId> operands, OpAttributes attributes = NoAttributes{},
                std::string_view label = {});

    ValueId unary(OpKind kind, ValueId x, std::string_view label = {});
    ValueId binary(OpKind kind, ValueId lhs, ValueId rhs, std::string_view label = {});
    ValueId add(ValueId a, ValueId b, std::string_view label = {}) {
        return binary(OpKind::Add, a, b, label);
    }
    ValueId subtract(ValueId a, ValueId b, std::string_view label = {}) {
        return binary(OpKind::Subtract, a, b, label);
    }
    ValueId multiply(ValueId a, ValueId b, std::string_view label = {}) {
        return binary(OpKind::Multiply, a, b, label);
    }
    ValueId divide(ValueId a, ValueId b, std::string_view label = {}) {
        return binary(OpKind::Divide, a, b, label);
    }
    ValueId maximum(ValueId a, ValueId b, std::string_view label = {}) {
        return binary(OpKind::Maximum, a, b, label);
    }
    ValueId compare(ValueId lhs, ValueId rhs, CompareDirection direction, std::string_view label = {});
    ValueId select(ValueId predicate, ValueId onTrue, ValueId onFalse, std::string_view label = {});
    ValueId convert(ValueId x, ElementType element, std::string_view label = {});

    // A splat constant of the given type.
    ValueId constant(double value, TensorType type, std::string_view label = {});
    ValueId scalar(double value, ElementType element) { return constant(value, TensorType{{}, element}); }
    ValueId iota(TensorType type, std::int64_t dimension, std::string_view label = {});

    ValueId broadcastInDim(ValueId x, Shape shape, Dims dims, std::string_view label = {});
    // Broadcasts a scalar or a tensor whose dimensions align with the trailing dimensions of `shape`.
    ValueId broadcastTo(ValueId x, const Shape& shape, std::string_view label = {});
    ValueId reshape(ValueId x, Shape shape, std::string_view label = {});
    ValueId transpose(ValueId x, Dims permutation, std::string_view label = {});
    ValueId slice(ValueId x, Dims start, Dims limit, Dims strides = {}, std::string_view label = {});
    ValueId concatenate(std::vector<ValueId> xs, std::int64_t dimension, std::string_view label = {});
    ValueId pad(ValueId x, ValueId paddingValue, Dims low, Dims high, Dims interior = {},
                std::string_view label = {});

    ValueId dotGeneral(ValueId lhs, ValueId rhs, DotDimensions dims, std::string_view label = {});
    // Two-operand einsum ("bsd,df->bsf") as one dot_general plus, where the output order needs it, a
    // transpose. Letters only in one operand and absent from the output are summed first.
    ValueId einsum(std::string_view spec, ValueId lhs, ValueId rhs, std::string_view label = {});
    // reduce over `dims` with the given combiner; the init value is the combiner's identity.
    ValueId reduce(ValueId x, Dims dims, Reducer reducer, std::string_view label = {});
    ValueId reduceWindow(ValueId x, WindowAttributes window, std::string_view label = {});
    ValueId convolution(ValueId input, ValueId kernel, ConvolutionAttributes attributes,
                        std::string_view label = {});
    ValueId gather(ValueId operand, ValueId indices, GatherAttributes attributes,
                   std::string_view label = {});

    // A nested region (a reduce body, a sort comparator, a loop body): creates arguments of the given types,
    // runs `body` with new ops inserted into the region, and makes what it returns the region's results.
    Region region(const std::vector<TensorType>& argumentTypes,
                  const std::function<std::vector<ValueId>(const std::vector<ValueId>&)>& body);

    const Graph& graph() const { return graph_; }
    // By value: adding ops may reallocate the value table, so a reference would not survive the next call.
    TensorType type(ValueId v) const { return graph_.type(v); }
    bool failed() const { return error_.has_value(); }
    // Records an error (the first one wins) so finish() fails with it.
    void fail(std::string code, std::string message);

    // Verifies and returns the graph, or the first error met while building.
    Result<Graph> finish() &&;

private:
    SourceLocation locationFor(std::string_view label) const;
    Region reducerBody(Reducer reducer, ElementType element);

    Graph graph_;
    std::string sourceFile_;
    std::string scope_;
    std::vector<OpId>* insertion_ = &graph_.body;  // where new ops go
    std::int64_t stackedLayers_ = 0;               // stackParameters
    ValueId stackIndex_;
    std::optional<Diagnostic> error_;
};

}  // namespace shardscope::ir
