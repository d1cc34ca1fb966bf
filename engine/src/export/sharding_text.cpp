// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/export/sharding_text.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace shardscope::exporting {
namespace {

std::string joined(const std::vector<std::int64_t>& values) {
    std::string text;
    for (std::size_t i = 0; i < values.size(); ++i)
        text += (i ? "," : "") + std::to_string(values[i]);
    return text;
}

}  // namespace

std::string shardyMesh(const mesh::Mesh& mesh, std::string_view name) {
    std::string text = "sdy.mesh @" + std::string(name) + " = <[";
    for (std::size_t i = 0; i < mesh.axes.size(); ++i)
        text += (i ? ", \"" : "\"") + mesh.axes[i].name + "\"=" + std::to_string(mesh.axes[i].size);
    return text + "]>";
}

std::string shardySharding(const plan::TensorSharding& sharding, const mesh::Mesh& mesh,
                           std::string_view meshName) {
    return "#sdy.sharding<@" + std::string(meshName) + ", " + sharding.toString(mesh) + ">";
}

std::string gspmdSharding(const plan::TensorSharding& sharding, int rank, const mesh::Mesh& mesh) {
    const auto size = [&](int axis) { return mesh.axes[static_cast<std::size_t>(axis)].size; };
    // The tile count of every dimension, and the order in which the tile assignment walks the mesh axes: each
    // dimension's axes major to minor, then the unused ones (the replicated last tile dimension).
    std::vector<std::int64_t> tiles(static_cast<std::size_t>(rank), 1);
    std::vector<int> order;
    std::uint32_t used = 0;
    for (int d = 0; d < rank && d < static_cast<int>(sharding.dimensions.size()); ++d) {
        const plan::AxisList& axes = sharding.dimensions[static_cast<std::size_t>(d)];
        for (int i = 0; i < axes.size(); ++i) {
            if (size(axes[i]) == 1)
                continue;
            tiles[static_cast<std::size_t>(d)] *= size(axes[i]);
            order.push_back(axes[i]);
            used |= 1u << axes[i];
        }
    }
    if (order.empty())
        return "{replicated}";
    std::int64_t replicated = 1;
    for (int axis = 0; axis < static_cast<int>(mesh.axes.size()); ++axis) {
        if ((used >> axis) & 1u || size(axis) == 1)
            continue;
        replicated *= size(axis);
        order.push_back(axis);
    }
    if (replicated > 1)
        tiles.push_back(replicated);

    // The device order is iota(mesh shape) transposed by `order`. Canonical form: drop size-1 axes (done),
    // then merge axes that are adjacent in the mesh and stay adjacent (in the same order) in `order`.
    std::vector<int> meshAxes;  // the axes of `order`, in mesh order
    for (int axis = 0; axis < static_cast<int>(mesh.axes.size()); ++axis)
        if (std::find(order.begin(), order.end(), axis) != order.end())
            meshAxes.push_back(axis);
    // Groups: maximal runs of `order` whose axes are consecutive in meshAxes.
    std::vector<std::vector<int>> groups;
    auto rankOf = [&](int axis) {
        return static_cast<int>(std::find(meshAxes.begin(), meshAxes.end(), axis) - meshAxes.begin());
    };
    for (const int axis : order) {
        if (!groups.empty() && rankOf(groups.back().back()) + 1 == rankOf(axis))
            groups.back().push_back(axis);
        else
            groups.push_back({axis});
    }
    // The reshape dims are the groups in mesh order; the transpose lists, for each group in `order`, its
    // rank.
    std::vector<std::size_t> byMesh(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g)
        byMesh[g] = g;
    std::sort(byMesh.begin(), byMesh.end(), [&](std::size_t a, std::size_t b) {
        return rankOf(groups[a].front()) < rankOf(groups[b].front());
    });
    std::vector<std::int64_t> dims;
    for (const std::size_t g : byMesh) {
        std::int64_t product = 1;
        for (const int axis : groups[g])
            product *= size(axis);
        dims.push_back(product);
    }
    std::vector<std::int64_t> transpose(groups.size());
    for (std::size_t position = 0; position < byMesh.size(); ++position)
        transpose[byMesh[position]] = static_cast<std::int64_t>(position);
    std::string text = "{devices=[" + joined(tiles) + "]<=[";
    if (groups.size() == 1) {
        text += std::to_string(dims.front()) + "]";
    } else {
        text += joined(dims) + "]T(" + joined(transpose) + ")";
    }
    if (replicated > 1)
        text += " last_tile_dim_replicate";
    return text + "}";
}

}  // namespace shardscope::exporting
