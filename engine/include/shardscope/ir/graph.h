// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The graph IR (docs/design.md, "The graph IR"): one function of SSA tensor values and ops in program order.
//
// All values and ops of a graph, including those inside nested regions, live in one table each and are named
// by typed ids. The top-level body and every region list their ops in program order; program order is a
// valid schedule. A Graph is a plain value: copyable, comparable by content, and safe to read from many
// threads at once.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/ir/attributes.h"
#include "shardscope/ir/ids.h"
#include "shardscope/ir/op_kind.h"
#include "shardscope/ir/types.h"

namespace shardscope::ir {

struct ValueTag;
struct OpTag;
using ValueId = Id<ValueTag>;
using OpId = Id<OpTag>;

// What a function argument is for; it decides memory accounting and which decisions make sense.
enum class ArgumentRole : std::uint8_t { Parameter, OptimizerState, Input, Constant, Other };
std::string_view toString(ArgumentRole role);
std::optional<ArgumentRole> parseArgumentRole(std::string_view text);

// A sharding the source already carries, kept verbatim for the reference plan: Shardy's
// `#sdy.sharding<@mesh, [{"x"}, {}]>` or a GSPMD string such as `{devices=[4,1]<=[4]}`.
struct ShardingAnnotation {
    enum class Format : std::uint8_t { Shardy, Gspmd };
    Format format = Format::Shardy;
    std::string text;
    friend bool operator==(const ShardingAnnotation&, const ShardingAnnotation&) = default;
};

// A device mesh the source declares (`sdy.mesh @mesh = <["data"=4, "model"=2]>`).
struct MeshDeclaration {
    std::string name;
    std::vector<std::pair<std::string, std::int64_t>> axes;
    friend bool operator==(const MeshDeclaration&, const MeshDeclaration&) = default;
};

struct Value {
    TensorType type;
    OpId producer;  // invalid for function and region arguments
    std::uint32_t resultIndex = 0;
    friend bool operator==(const Value&, const Value&) = default;
};

// A nested block: reduce bodies, sort comparators, while condition and body, case branches.
struct Region {
    std::vector<ValueId> arguments;
    std::vector<OpId> ops;
    std::vector<ValueId> results;  // the operands of the region's terminator
    friend bool operator==(const Region&, const Region&) = default;
};

struct Op {
    OpKind kind = OpKind::Opaque;
    std::vector<ValueId> operands;
    std::vector<ValueId> results;
    OpAttributes attributes;
    std::vector<Region> regions;
    SourceLocation
        location;  // where the op came from; location.name is its label (module path or source name)
    std::optional<ShardingAnnotation> sharding;  // a sharding the source put on the op's results
    friend bool operator==(const Op&, const Op&) = default;
};

struct Argument {
    ValueId value;
    ArgumentRole role = ArgumentRole::Other;
    std::string name;                          // module path ("layers.3.mlp.w1") or the source's own name
    std::vector<std::string> dimensionLabels;  // optional hints, one per dimension ("batch", "seq", ...)
    SourceLocation location;
    std::optional<ShardingAnnotation> sharding;
    friend bool operator==(const Argument&, const Argument&) = default;
};

struct Output {
    ValueId value;
    std::string name;
    // The argument whose buffer this result reuses (donation, as JAX does for updated parameters).
    std::optional<std::size_t> aliasedArgument;
    std::optional<ShardingAnnotation> sharding;
    friend bool operator==(const Output&, const Output&) = default;
};

class Graph {
public:
    std::string name = "main";
    std::vector<Value> values;
    std::vector<Op> ops;
    std::vector<Argument> arguments;
    std::vector<Output> outputs;
    std::vector<OpId> body;               // top-level ops in program order
    std::vector<MeshDeclaration> meshes;  // meshes the source declares
    // The source was partitioned by hand (sdy.manual_computation over some mesh axis) and has been turned
    // back into its global program; its manual shardings are annotations the reference plan reads.
    bool partitioned = false;
    // Values known to be the gradient of a parameter argument: (gradient value, argument index). Set by the
    // training-step builder; empty for imported graphs. The cost model counts these tensors as gradients
    // (docs/cost-model.md memory breakdown, ZeRO's model states).
    std::vector<std::pair<ValueId, std::size_t>> gradients;
    // For a training step: the index into `body` of the first op of the backward pass (the forward and the
    // loss come before it). 0 when unknown (imported graphs); rematerialization needs it.
    std::size_t backwardStart = 0;

    const Value& value(ValueId id) const { return values[id.index]; }
    Value& value(ValueId id) { return values[id.index]; }
    const Op& op(OpId id) const { return ops[id.index]; }
    Op& op(OpId id) { return ops[id.index]; }
    const TensorType& type(ValueId id) const { return values[id.index].type; }

    // Adds a value with no producer (an argument of the function or of a region).
    ValueId addValue(TensorType type);
    // Appends an op to `ops` (not to any body) and creates its results. Returns the op's id.
    OpId addOp(OpKind kind, std::vector<ValueId> operands, const std::vector<TensorType>& resultTypes,
               OpAttributes attributes = NoAttributes{}, SourceLocation location = {});

    // The argument whose value is `id`, if any.
    const Argument* argumentFor(ValueId id) const;
    // Every op reachable from the body, nested regions included, in program order (parents first).
    std::vector<OpId> allOpsInOrder() const;

    friend bool operator==(const Graph&, const Graph&) = default;
};

// The one value of a constant op's literal (a scalar or a splat) when `v` is made by one, finite.
std::optional<double> constantScalar(const Graph& graph, ValueId v);

// Drops the ops that neither the body nor a region of a kept op lists, and the values that no argument, kept
// op or kept region defines, renumbering what stays (program order and every reference kept). A graph without
// such leftovers is returned unchanged.
void removeUnreachable(Graph& graph);

}  // namespace shardscope::ir
