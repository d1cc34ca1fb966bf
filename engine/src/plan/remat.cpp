// Rematerialization decisions and the blocks of layers they name (plan.h).
#include <algorithm>
#include <array>
#include <cctype>
#include <unordered_map>

#include "shardscope/plan/plan.h"

namespace shardscope::plan {

namespace {
constexpr std::array<std::string_view, kRematCount> kRematNames{"none", "selective", "full", "dots-saveable"};

bool decimal(std::string_view s) {
    return !s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}
}  // namespace

std::string_view toString(Remat policy) { return kRematNames[static_cast<std::size_t>(policy)]; }

std::optional<Remat> parseRemat(std::string_view text) {
    for (std::size_t i = 0; i < kRematNames.size(); ++i)
        if (kRematNames[i] == text) return static_cast<Remat>(i);
    return std::nullopt;
}

LayerBlocks layerBlocks(const ir::Graph& graph) {
    LayerBlocks out;
    out.blockOfOp.assign(graph.body.size(), -1);
    std::unordered_map<std::string, std::int32_t> blockIds;
    std::unordered_map<std::string, std::uint32_t> familyIds;
    for (std::size_t i = 0; i < graph.body.size(); ++i) {
        const std::string& name = graph.op(graph.body[i]).location.name;
        // The first component that is a decimal index, after at least one other component.
        std::size_t start = 0;
        while (start < name.size()) {
            std::size_t end = name.find('.', start);
            if (end == std::string::npos) end = name.size();
            if (start > 0 && decimal(std::string_view(name).substr(start, end - start))) {
                const std::string block = name.substr(0, end);
                auto [it, added] = blockIds.try_emplace(block, static_cast<std::int32_t>(out.blocks.size()));
                if (added) {
                    const std::string family = name.substr(0, start) + "*";
                    auto [f, newFamily] = familyIds.try_emplace(family, static_cast<std::uint32_t>(out.families.size()));
                    if (newFamily) out.families.push_back(family);
                    out.blocks.push_back(block);
                    out.familyOfBlock.push_back(f->second);
                }
                out.blockOfOp[i] = it->second;
                break;
            }
            start = end + 1;
        }
    }
    return out;
}

std::vector<Remat> rematPerBlock(const LayerBlocks& blocks, const std::vector<RematDecision>& remat) {
    std::vector<Remat> policy(blocks.blocks.size(), Remat::None);
    for (const auto& decision : remat)
        for (std::size_t b = 0; b < blocks.blocks.size(); ++b)
            if (decision.target == blocks.blocks[b] || decision.target == blocks.families[blocks.familyOfBlock[b]]) policy[b] = decision.policy;
    return policy;
}

}  // namespace shardscope::plan
