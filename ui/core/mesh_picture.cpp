// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/mesh_picture.h"

#include <algorithm>
#include <optional>

#include <QCoreApplication>
#include <QStringList>

#include "core/text.h"

namespace shardscope::ui {

namespace {

QString gbPerSecond(double bandwidth) {
    return QCoreApplication::translate("MeshPicture", "%1 GB/s")
        .arg(QString::number(bandwidth / 1e9, 'g', 4));
}

}  // namespace

std::size_t linkLevelOf(const std::vector<mesh::LinkLevel>& levels, const mesh::Link& link) {
    for (std::size_t j = 0; j < levels.size(); ++j)
        if (levels[j].link == link)
            return j;
    return levels.size();
}

Result<mesh::Mesh> plainMeshLayout(const mesh::Mesh& mesh, const mesh::HardwareProfile& profile) {
    QStringList plain;
    for (const mesh::MeshAxis& axis : mesh.axes)
        plain << toQString(axis.name) + QLatin1Char('=') + QString::number(axis.size);
    return mesh::makeMesh(plain.join(QLatin1Char(',')).toStdString(), profile);
}

QString MeshPictureAxis::linkText() const {
    const auto nameOf = [](const MeshPictureLevel& level) {
        return level.name.isEmpty() ? QCoreApplication::translate("MeshPicture", "a link of your figures")
                                    : level.name;
    };
    if (levels.size() == 1)
        return nameOf(levels.front()) + QStringLiteral(", ") + gbPerSecond(levels.front().bandwidth);
    QStringList parts;
    for (const MeshPictureLevel& level : levels)
        parts << QCoreApplication::translate("MeshPicture", "%1 on %2 (%3)")
                     .arg(level.devices)
                     .arg(nameOf(level), gbPerSecond(level.bandwidth));
    return parts.join(QStringLiteral(" × "));
}

std::vector<std::int64_t> MeshPicture::coordinates(std::int64_t device) const {
    std::vector<std::int64_t> out(axes.size(), 0);
    for (std::size_t a = axes.size(); a-- > 0;) {
        const std::int64_t size = std::max<std::int64_t>(1, axes[a].size);
        out[a] = device % size;
        device /= size;
    }
    return out;
}

std::int64_t MeshPicture::gridStride(std::size_t axis) const {
    std::int64_t stride = 1;
    for (std::size_t a = axis + 1; a < axes.size(); ++a)
        if (axes[a].across == axes[axis].across)
            stride *= axes[a].size;
    return stride;
}

std::pair<std::int64_t, std::int64_t> MeshPicture::cellOf(std::int64_t device) const {
    const std::vector<std::int64_t> c = coordinates(device);
    std::int64_t column = 0, row = 0;
    for (std::size_t a = 0; a < axes.size(); ++a)
        (axes[a].across ? column : row) += c[a] * gridStride(a);
    return {column, row};
}

std::int64_t MeshPicture::deviceAlong(std::size_t axis, std::int64_t position) const {
    std::int64_t stride = 1;
    for (std::size_t a = axis + 1; a < axes.size(); ++a)
        stride *= axes[a].size;
    return position * stride;
}

MeshPicture meshPicture(const mesh::Mesh& mesh, const mesh::HardwareProfile* hardware) {
    MeshPicture out;
    out.devices = mesh.devices();
    std::vector<mesh::LinkLevel> levels;
    std::optional<mesh::Mesh> plain;
    if (hardware) {
        out.hardware = toQString(hardware->displayName);
        levels = hardware->linkLevels();
        if (!levels.empty() && levels.front().devices > 0) {
            out.domainDevices = levels.front().devices;
            out.domainName = toQString(levels.front().name);
        }
        if (auto laidOut = plainMeshLayout(mesh, *hardware))
            plain = std::move(laidOut.value());
    }
    const std::size_t n = mesh.axes.size();
    for (std::size_t a = 0; a < n; ++a) {
        const mesh::MeshAxis& axis = mesh.axes[a];
        MeshPictureAxis picture;
        picture.name = toQString(axis.name);
        picture.size = axis.size;
        picture.across = (n - 1 - a) % 2 == 0;  // the minor axis across, the next down, and so on
        const bool known = plain && a < plain->axes.size();
        picture.edited = known && !(plain->axes[a] == axis);
        const std::vector<mesh::AxisLevel> pieces =
            axis.levels.empty() ? std::vector<mesh::AxisLevel>{{axis.size, axis.link}} : axis.levels;
        for (const mesh::AxisLevel& piece : pieces) {
            MeshPictureLevel level;
            level.devices = piece.devices;
            level.bandwidth = piece.link.bandwidth;
            level.latency = piece.link.latency;
            const std::size_t j = linkLevelOf(levels, piece.link);
            if (!picture.edited && j < levels.size())
                level.name = toQString(levels[j].name);
            picture.levels.push_back(level);
        }
        out.axes.push_back(std::move(picture));
    }
    for (const MeshPictureAxis& axis : out.axes)
        (axis.across ? out.columns : out.rows) *= axis.size;
    return out;
}

}  // namespace shardscope::ui
