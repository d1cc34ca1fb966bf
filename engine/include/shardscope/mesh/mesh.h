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

// A piece of an axis (or of a group of axes) on one link level: `devices` of its devices, each step between
// them on `link`.
struct AxisLevel {
    std::int64_t devices = 1;
    Link link;
    friend bool operator==(const AxisLevel&, const AxisLevel&) = default;
};

struct MeshAxis {
    std::string name;  // [A-Za-z_][A-Za-z0-9_]*
    std::int64_t size = 1;
    Link link;  // the bandwidth and latency one device sees on this axis (its outermost level's)
    // An axis spanning several link levels (16 GPUs on 8-GPU nodes: 8 on NVLink times 2 nodes on InfiniBand):
    // its size factored by level, innermost first, every factor at least 2, their product `size`, and `link`
    // the last one's. Empty: the whole axis is on `link`.
    std::vector<AxisLevel> levels;
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

// Parses `name=size[:bw=B][:lat=L],...` and lays it out on `hardware`'s link levels (linkLevels(), of D_0 <
// D_1 < ... devices, the last unbounded). An axis of size n and stride s (the product of the sizes of the
// axes minor to it) keeps m_j of its positions inside one level-j block: n when the whole mesh fits in the
// block (devices() <= D_j) or s·n divides D_j; 1 when s is a multiple of D_j; D_j / s when that divides n
// (and s divides D_j); otherwise (an irregular layout) the m_{j-1} of the level inside it. When the
// factors m_j / m_{j-1} leave the axis on one level, it gets that level's link as before: on two levels,
// fastLink when s·n <= devicesPerDomain and devicesPerDomain % (s·n) == 0 or the whole mesh fits in one
// domain, slowLink otherwise (on an 8-GPU node "data=8,model=4" puts model on NVLink and data on
// InfiniBand). An axis the factors split over several levels ("data=16" on 8-GPU nodes: 8 on NVLink × 2 on
// InfiniBand) gets them as MeshAxis::levels and the outermost level's link. `bw=` (bytes/s) and `lat=`
// (seconds) override the axis's (outermost) link figures and put the whole axis on that one link. Spaces
// around names and numbers are ignored.
// Errors: an empty spec, an item that is not name=size (`--mesh expects name=size,...`), an unknown option,
// a size below 1, a repeated name, more than kMaxMeshAxes axes, more than 2^40 devices.
Result<Mesh> makeMesh(std::string_view spec, const HardwareProfile& hardware);

// The mesh as JSON, the way users write their own:
//   {"axes": [{"name": "data", "size": 8, "bandwidth_bytes_per_s": 5e10, "latency_s": 8e-6}, ...]}
// An axis spanning several levels gives them instead of its bandwidth and latency, innermost first:
//   {"name": "data", "size": 16, "levels": [{"devices": 8, "bandwidth_bytes_per_s": 4.5e11,
//    "latency_s": 2e-6}, {"devices": 2, "bandwidth_bytes_per_s": 5e10, "latency_s": 8e-6}]}
// parseMesh(toJson(m), ...) returns m.
std::string toJson(const Mesh& mesh);

// Reads the JSON above; every axis key is required (either "levels", or "bandwidth_bytes_per_s" and
// "latency_s"), keys starting with '_' are ignored, others are errors. The axes obey makeMesh's rules
// (names, sizes >= 1, no repeats, 1..kMaxMeshAxes axes); bandwidths must be positive, latencies
// non-negative; "levels" holds 2 to kMaxLinkLevels entries of at least 2 devices whose product is the axis's
// size. `origin` names the text in errors.
Result<Mesh> parseMesh(std::string_view jsonText, std::string_view origin);

// The axis restricted to its `devices` innermost positions (the rest of the axis taken by something else,
// such as pipeline stages on its outer positions): size `devices`, its levels cut from the outermost in,
// its link the outermost remaining level's. Assumes 1 <= devices and devices divides axis.size; a level
// the cut does not divide keeps the part that does (gcd), which is exact for the layouts makeMesh builds.
MeshAxis innerPart(const MeshAxis& axis, std::int64_t devices);

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

// The group of axes in `axisMask` by link level, for pricing a collective hierarchically: the pieces of the
// group's axes (an axis without levels is one piece of its size on its link), size-1 pieces left out, pieces
// on equal links multiplied together, ordered fastest first (bandwidth descending, then latency
// ascending). The product of the devices is groupLink(mesh, axisMask).devices. Fewer than two entries: the
// group sits on one level, and groupLink describes it fully.
std::vector<AxisLevel> groupLevels(const Mesh& mesh, std::uint32_t axisMask);

}  // namespace shardscope::mesh
