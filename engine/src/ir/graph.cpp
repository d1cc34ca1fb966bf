// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/ir/graph.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

namespace shardscope::ir {
namespace {
constexpr std::array<std::string_view, 5> kRoleNames{"parameter", "optimizer_state", "input", "constant",
                                                     "other"};
}

std::string_view toString(ArgumentRole role) {
    return kRoleNames[static_cast<std::size_t>(role)];
}

std::optional<ArgumentRole> parseArgumentRole(std::string_view text) {
    for (std::size_t i = 0; i < kRoleNames.size(); ++i)
        if (kRoleNames[i] == text)
            return static_cast<ArgumentRole>(i);
    return std::nullopt;
}

ValueId Graph::addValue(TensorType type) {
    values.push_back(Value{std::move(type), OpId{}, 0});
    return ValueId{static_cast<std::uint32_t>(values.size() - 1)};
}

OpId Graph::addOp(OpKind kind, std::vector<ValueId> operands, const std::vector<TensorType>& resultTypes,
                  OpAttributes attributes, SourceLocation location) {
    OpId id{static_cast<std::uint32_t>(ops.size())};
    Op op;
    op.kind = kind;
    op.operands = std::move(operands);
    op.attributes = std::move(attributes);
    op.location = std::move(location);
    for (std::size_t i = 0; i < resultTypes.size(); ++i) {
        values.push_back(Value{resultTypes[i], id, static_cast<std::uint32_t>(i)});
        op.results.push_back(ValueId{static_cast<std::uint32_t>(values.size() - 1)});
    }
    ops.push_back(std::move(op));
    return id;
}

const Argument* Graph::argumentFor(ValueId id) const {
    for (const auto& a : arguments)
        if (a.value == id)
            return &a;
    return nullptr;
}

std::vector<OpId> Graph::allOpsInOrder() const {
    std::vector<OpId> out;
    out.reserve(ops.size());
    std::function<void(const std::vector<OpId>&)> visit = [&](const std::vector<OpId>& list) {
        for (OpId id : list) {
            if (id.index >= ops.size())
                continue;
            out.push_back(id);
            for (const auto& region : ops[id.index].regions)
                visit(region.ops);
        }
    };
    visit(body);
    return out;
}

std::optional<double> constantScalar(const Graph& graph, ValueId v) {
    if (!v.valid() || v.index >= graph.values.size())
        return std::nullopt;
    const Value& value = graph.value(v);
    if (!value.producer.valid())
        return std::nullopt;
    const Op& op = graph.op(value.producer);
    const auto* c = std::get_if<ConstantAttributes>(&op.attributes);
    if (op.kind != OpKind::Constant || !c || c->values.size() != 1 || !std::isfinite(c->values.front()))
        return std::nullopt;
    return c->values.front();
}

void removeUnreachable(Graph& graph) {
    const std::vector<OpId> kept = graph.allOpsInOrder();
    std::vector<std::uint32_t> opIndex(graph.ops.size(), OpId::kInvalid);
    std::vector<char> liveValue(graph.values.size(), 0);
    auto live = [&](ValueId v) {
        if (v.valid() && v.index < liveValue.size())
            liveValue[v.index] = 1;
    };
    for (const OpId id : kept) {
        const Op& op = graph.op(id);
        for (ValueId v : op.operands)
            live(v);
        for (ValueId v : op.results)
            live(v);
        for (const auto& region : op.regions) {
            for (ValueId v : region.arguments)
                live(v);
            for (ValueId v : region.results)
                live(v);
        }
    }
    for (const auto& a : graph.arguments)
        live(a.value);
    for (const auto& o : graph.outputs)
        live(o.value);
    for (const auto& [v, argument] : graph.gradients)
        live(v);
    // Keep the ops in their table order (ids grow with creation, which some readers rely on).
    std::vector<OpId> order = kept;
    std::sort(order.begin(), order.end());
    if (order.size() == graph.ops.size() &&
        std::all_of(liveValue.begin(), liveValue.end(), [](char c) { return c != 0; }))
        return;
    for (std::size_t i = 0; i < order.size(); ++i)
        opIndex[order[i].index] = static_cast<std::uint32_t>(i);
    std::vector<std::uint32_t> valueIndex(graph.values.size(), ValueId::kInvalid);
    std::vector<Value> values;
    for (std::size_t v = 0; v < graph.values.size(); ++v) {
        if (!liveValue[v])
            continue;
        valueIndex[v] = static_cast<std::uint32_t>(values.size());
        Value value = graph.values[v];
        value.producer = value.producer.valid() && value.producer.index < opIndex.size() &&
                                 opIndex[value.producer.index] != OpId::kInvalid
                             ? OpId{opIndex[value.producer.index]}
                             : OpId{};
        values.push_back(std::move(value));
    }
    auto mapValue = [&](ValueId& v) {
        if (v.valid() && v.index < valueIndex.size())
            v = ValueId{valueIndex[v.index]};
    };
    auto mapOp = [&](OpId& id) { id = OpId{opIndex[id.index]}; };
    std::vector<Op> ops;
    ops.reserve(order.size());
    for (const OpId id : order) {
        Op op = std::move(graph.ops[id.index]);
        for (ValueId& v : op.operands)
            mapValue(v);
        for (ValueId& v : op.results)
            mapValue(v);
        for (auto& region : op.regions) {
            for (ValueId& v : region.arguments)
                mapValue(v);
            for (ValueId& v : region.results)
                mapValue(v);
            for (OpId& r : region.ops)
                mapOp(r);
        }
        ops.push_back(std::move(op));
    }
    for (OpId& id : graph.body)
        mapOp(id);
    for (auto& a : graph.arguments)
        mapValue(a.value);
    for (auto& o : graph.outputs)
        mapValue(o.value);
    for (auto& [v, argument] : graph.gradients)
        mapValue(v);
    graph.values = std::move(values);
    graph.ops = std::move(ops);
}

}  // namespace shardscope::ir
