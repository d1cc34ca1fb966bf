// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/remat_choices.h"

#include <algorithm>
#include <cstdint>

#include <QObject>

#include "core/text.h"

namespace shardscope::ui {

QList<RematFamily> rematFamilies(const ProblemView& problem, const plan::Plan& plan) {
    QList<RematFamily> out;
    const plan::LayerBlocks& blocks = problem.blocks();
    if (problem.graph().backwardStart == 0)
        return out;
    const std::vector<plan::Remat> perBlock = plan::rematPerBlock(blocks, plan.remat);
    for (std::size_t f = 0; f < blocks.families.size(); ++f) {
        RematFamily family;
        family.family = toQString(blocks.families[f]);
        plan::Remat policy = plan::Remat::None;
        for (const auto& decision : plan.remat)
            if (decision.target == blocks.families[f])
                policy = decision.policy;
        family.policy = static_cast<int>(policy);
        for (std::size_t b = 0; b < blocks.blocks.size(); ++b) {
            if (blocks.familyOfBlock[b] != f)
                continue;
            ++family.blocks;
            if (b < perBlock.size() && perBlock[b] != policy)
                ++family.overridden;
        }
        out.append(family);
    }
    return out;
}

std::vector<RematPoint> rematPoints(const ProblemView& problem, const plan::Plan& plan) {
    return rematPoints(problem.graph(), problem.blocks(), plan);
}

std::vector<RematPoint> rematPoints(const ir::Graph& graph, const plan::LayerBlocks& blocks,
                                    const plan::Plan& plan) {
    std::vector<RematPoint> out;
    const std::size_t start = graph.backwardStart;
    const std::size_t n = std::min(graph.body.size(), blocks.blockOfOp.size());
    if (start == 0 || start >= n || plan.remat.empty())
        return out;
    const std::vector<plan::Remat> perBlock = plan::rematPerBlock(blocks, plan.remat);
    std::vector<char> seen(blocks.blocks.size(), 0);
    for (std::size_t i = start; i < n; ++i) {
        const std::int32_t b = blocks.blockOfOp[i];
        if (b < 0 || seen[static_cast<std::size_t>(b)])
            continue;
        seen[static_cast<std::size_t>(b)] = 1;
        const auto block = static_cast<std::size_t>(b);
        if (block < perBlock.size() && perBlock[block] != plan::Remat::None)
            out.push_back({i, toQString(blocks.blocks[block]), static_cast<int>(perBlock[block])});
    }
    return out;
}

QStringList rematPolicyNames() {
    QStringList names;
    for (int p = 0; p < plan::kRematCount; ++p)
        names << toQString(plan::toString(static_cast<plan::Remat>(p)));
    return names;
}

QString rematPolicyDescription(int policy) {
    switch (static_cast<plan::Remat>(policy)) {
        case plan::Remat::None:
            return QObject::tr("Keep every forward value the backward pass reads");
        case plan::Remat::Selective:
            return QObject::tr(
                "Recompute the attention core (scores and probabilities) in the backward pass; "
                "with fused attention it is never stored anyway");
        case plan::Remat::Full:
            return QObject::tr(
                "Keep only each block's input; run the block's forward again before its backward");
        case plan::Remat::DotsSaveable:
            return QObject::tr(
                "Keep the matmul outputs, recompute everything else of the block "
                "(JAX's dots_saveable)");
    }
    return {};
}

}  // namespace shardscope::ui
