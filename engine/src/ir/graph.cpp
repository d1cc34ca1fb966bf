#include "shardscope/ir/graph.h"

#include <array>
#include <functional>

namespace shardscope::ir {
namespace {
constexpr std::array<std::string_view, 5> kRoleNames{"parameter", "optimizer_state", "input", "constant", "other"};
}

std::string_view toString(ArgumentRole role) { return kRoleNames[static_cast<std::size_t>(role)]; }

std::optional<ArgumentRole> parseArgumentRole(std::string_view text) {
    for (std::size_t i = 0; i < kRoleNames.size(); ++i)
        if (kRoleNames[i] == text) return static_cast<ArgumentRole>(i);
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
        if (a.value == id) return &a;
    return nullptr;
}

std::vector<OpId> Graph::allOpsInOrder() const {
    std::vector<OpId> out;
    out.reserve(ops.size());
    std::function<void(const std::vector<OpId>&)> visit = [&](const std::vector<OpId>& list) {
        for (OpId id : list) {
            if (id.index >= ops.size()) continue;
            out.push_back(id);
            for (const auto& region : ops[id.index].regions) visit(region.ops);
        }
    };
    visit(body);
    return out;
}

}  // namespace shardscope::ir
