// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/cost/step_lanes.h"

#include <map>

namespace shardscope::cost {

std::string axisGroupName(const mesh::Mesh& mesh, std::uint32_t axisMask) {
    std::string name;
    for (std::size_t i = 0; i < mesh.axes.size() && i < 32; ++i)
        if ((axisMask >> i) & 1u)
            name += (name.empty() ? "" : "+") + mesh.axes[i].name;
    return name.empty() ? "no axis" : name;
}

StepLanes stepLanes(const mesh::Mesh& mesh, const Evaluation& evaluation) {
    StepLanes out;
    out.lanes.push_back({0, "compute"});
    out.laneOfCollective.reserve(evaluation.collectives.size());
    std::map<std::uint32_t, std::uint32_t> laneOf;
    for (const Collective& c : evaluation.collectives) {
        const auto [it, added] = laneOf.emplace(c.axes, static_cast<std::uint32_t>(out.lanes.size()));
        if (added)
            out.lanes.push_back({c.axes, "collectives over " + axisGroupName(mesh, c.axes)});
        out.laneOfCollective.push_back(it->second);
    }
    return out;
}

}  // namespace shardscope::cost
