// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A device mesh as a picture: its devices as a grid (the minor axis across, the next down, further axes as
// blocks of those), each axis with the link levels of the hardware it runs on (NVLink, InfiniBand, the pod
// network...), and the devices each innermost link level joins (a node).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <QString>

#include "shardscope/diagnostic.h"
#include "shardscope/mesh/hardware.h"
#include "shardscope/mesh/mesh.h"

namespace shardscope::ui {

// The index into `levels` of the level on `link`; levels.size() when none is.
std::size_t linkLevelOf(const std::vector<mesh::LinkLevel>& levels, const mesh::Link& link);
// The axes of `mesh` laid out on `profile` by themselves (without link figures the user wrote).
Result<mesh::Mesh> plainMeshLayout(const mesh::Mesh& mesh, const mesh::HardwareProfile& profile);

struct MeshPictureLevel {
    QString name;              // the hardware's name for the link; "" when the figures are the user's own
    std::int64_t devices = 1;  // the axis's devices on this level
    double bandwidth = 0;      // bytes/s per device, one direction
    double latency = 0;        // seconds
};

struct MeshPictureAxis {
    QString name;
    std::int64_t size = 1;
    bool across = true;                    // laid out across the picture (else down)
    bool edited = false;                   // its link figures are the user's, not the hardware's
    std::vector<MeshPictureLevel> levels;  // innermost first; one for an axis on one link level
    // Its links in words: "NVLink 4 through NVSwitch, 450 GB/s" or "2 on NVLink 4 × 2 on InfiniBand NDR".
    QString linkText() const;
};

struct MeshPicture {
    QString hardware;                   // the profile's display name; "" without one
    std::vector<MeshPictureAxis> axes;  // as the mesh's, major first
    std::int64_t devices = 0;           // 0: no mesh
    std::int64_t columns = 1, rows = 1;
    std::int64_t domainDevices = 0;  // devices the innermost link level joins (a node); 0: unknown
    QString domainName;              // that level's name

    // Device d's coordinates on the axes (row-major: the last axis varies fastest) and its cell in the
    // grid (column, row).
    std::vector<std::int64_t> coordinates(std::int64_t device) const;
    std::pair<std::int64_t, std::int64_t> cellOf(std::int64_t device) const;
    // The device whose coordinate on axis `axis` is `position` and 0 on the others.
    std::int64_t deviceAlong(std::size_t axis, std::int64_t position) const;
    // The columns (across) or rows (down) one step of axis `axis` moves.
    std::int64_t gridStride(std::size_t axis) const;
};

// The picture of `mesh` on `hardware` (nullptr: links by their figures only).
MeshPicture meshPicture(const mesh::Mesh& mesh, const mesh::HardwareProfile* hardware);

}  // namespace shardscope::ui
