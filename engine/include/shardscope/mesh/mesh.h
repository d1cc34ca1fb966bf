// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Device meshes (docs/design.md, "Plans"): named axes with sizes, each with the link a device sees along it.
//
// A mesh is written `name=size,...`, major axis first ("data=8,model=4": 32 devices, device d at coordinates
// (d / 4, d % 4)). makeMesh() lays it out on a hardware profile to give every axis its link; parseMesh()
// reads a mesh whose links the user wrote out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/mesh/hardware.h"

namespace shardscope::mesh {

// A mesh has at most this many axes (an axis set fits in a 32-bit mask with room to spare; no real mesh
// needs more).
inline constexpr int kMaxMeshAxes = 8;

struct MeshAxis {
    std::string name;  // [A-Za-z_][A-Za-z0-9_]*
    std::int64_t size = 1;
    Link link;  // the bandwidth and latency one device sees on this axis
    friend bool operator==(const MeshAxis&, const MeshAxis&) = default;
};

struct Mesh {
    std::vector<MeshAxis>
        axes;  // major to minor; device coordinates are row-major (the last axis varies fastest)

    // The product of the axis sizes (1 for a mesh without axes).
    std::int64_t devices() const;
    std::optional<int> axisIndex(std::string_view name) const;
    // "data=8,model=4": the axes without their links.
    std::string toString() const;
    friend bool operator==(const Mesh&, const Mesh&) = default;
};

// Parses `name=size[:bw=B][:lat=L],...` and lays it out on `hardware`. An axis of size n and stride s (the
// product of the sizes of the axes minor to it) stays inside one domain, and gets hardware.fastLink, when
// s·n <= devicesPerDomain and devicesPerDomain % (s·n) == 0, or when the whole mesh fits in one domain
// (devices() <= devicesPerDomain); any other axis spans domains and gets hardware.slowLink. So on an 8-GPU
// node "data=8,model=4" puts model on NVLink and data on InfiniBand. `bw=` (bytes/s) and `lat=` (seconds)
// override the chosen link's figures for that axis. Spaces around names and numbers are ignored.
// Errors: an empty spec, an item that is not name=size (`--mesh expects name=size,...`), an unknown option,
// a size below 1, a repeated name, more than kMaxMeshAxes axes, more than 2^40 devices.
Result<Mesh> makeMesh(std::string_view spec, const HardwareProfile& hardware);

// The mesh as JSON, the way users write their own:
//   {"axes": [{"name": "data", "size": 8, "bandwidth_bytes_per_s": 5e10, "latency_s": 8e-6}, ...]}
// parseMesh(toJson(m), ...) returns m.
std::string toJson(const Mesh& mesh);

// Reads the JSON above; every axis key is required, keys starting with '_' are ignored, others are errors.
// The axes obey makeMesh's rules (names, sizes >= 1, no repeats, 1..kMaxMeshAxes axes); bandwidths must be
// positive, latencies non-negative. `origin` names the text in errors.
Result<Mesh> parseMesh(std::string_view jsonText, std::string_view origin);

// A collective over several axes at once.
struct AxisGroupLink {
    std::int64_t devices = 1;  // the product of the group's sizes
    Link link;                 // the slowest axis's: the minimum bandwidth and the maximum latency
    friend bool operator==(const AxisGroupLink&, const AxisGroupLink&) = default;
};

// The group of axes whose bits are set in `axisMask` (bit i = mesh.axes[i]; bits beyond the axes are
// ignored). Axes of size 1 move nothing and do not slow the group, unless every axis in it has size 1. An
// empty group is {1 device, Link{}}: nothing to send.
AxisGroupLink groupLink(const Mesh& mesh, std::uint32_t axisMask);

}  // namespace shardscope::mesh
