// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Rematerialization decisions (plan.h); the blocks of layers they name are analysis/layer_blocks.h's.
#include <array>

#include "shardscope/plan/plan.h"

namespace shardscope::plan {

namespace {
constexpr std::array<std::string_view, kRematCount> kRematNames{"none", "selective", "full", "dots-saveable"};
}  // namespace

std::string_view toString(Remat policy) {
    return kRematNames[static_cast<std::size_t>(policy)];
}

std::optional<Remat> parseRemat(std::string_view text) {
    for (std::size_t i = 0; i < kRematNames.size(); ++i)
        if (kRematNames[i] == text)
            return static_cast<Remat>(i);
    return std::nullopt;
}

std::vector<Remat> rematPerBlock(const LayerBlocks& blocks, const std::vector<RematDecision>& remat) {
    std::vector<Remat> policy;
    rematPerBlock(blocks, remat, policy);
    return policy;
}

void rematPerBlock(const LayerBlocks& blocks, const std::vector<RematDecision>& remat,
                   std::vector<Remat>& policy) {
    policy.assign(blocks.blocks.size(), Remat::None);
    for (const auto& decision : remat)
        for (std::size_t b = 0; b < blocks.blocks.size(); ++b)
            if (decision.target == blocks.blocks[b] ||
                decision.target == blocks.families[blocks.familyOfBlock[b]])
                policy[b] = decision.policy;
}

}  // namespace shardscope::plan
