// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The lanes one device's simulated step is shown in: the Chrome trace (export/trace.h) and the explorer's
// timeline draw the same picture, so they take its lanes and their names from here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shardscope/cost/cost_model.h"
#include "shardscope/mesh/mesh.h"

namespace shardscope::cost {

// The device group of `axisMask` (bit i = mesh.axes[i]) by its axes' names in mesh order, joined by '+':
// "data", "data+model". Returns "no axis" for an empty group; bits beyond the mesh's axes are ignored.
std::string axisGroupName(const mesh::Mesh& mesh, std::uint32_t axisMask);

struct StepLane {
    std::uint32_t axes = 0;  // the device group its collectives run on (0 for the compute lane)
    std::string name;        // "compute", "collectives over data", "collectives over data+model"
    friend bool operator==(const StepLane&, const StepLane&) = default;
};

struct StepLanes {
    // lanes[0] is the compute lane (the kernels); then one lane per device group that collectives run on, in
    // the order the groups first appear in Evaluation::collectives.
    std::vector<StepLane> lanes;
    // Parallel to Evaluation::collectives: the index into `lanes` of each collective's lane (always >= 1).
    std::vector<std::uint32_t> laneOfCollective;
    friend bool operator==(const StepLanes&, const StepLanes&) = default;
};

// The lanes of `evaluation`'s step on `mesh`. A lane is a device group, not a schedule stream: collectives
// over different groups may share a stream (a group runs on its slowest axis's), yet show on lanes of their
// own.
StepLanes stepLanes(const mesh::Mesh& mesh, const Evaluation& evaluation);

}  // namespace shardscope::cost
