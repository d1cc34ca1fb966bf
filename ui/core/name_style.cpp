// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/name_style.h"

#include <cstdint>
#include <string_view>

#include "core/text.h"

namespace shardscope::ui {

QColor nameColor(const analysis::DecisionSpace& space, analysis::NameId name) {
    // FNV-1a of the label, spread over the hue circle; saturation and value vary a little with more bits so
    // that neighbours in hue still differ.
    std::uint64_t hash = 1469598103934665603ull;
    for (const unsigned char c : space.name(name).label) {
        hash ^= c;
        hash *= 1099511628211ull;
    }
    const int hue = static_cast<int>(hash % 360);
    const int saturation = 90 + static_cast<int>((hash >> 16) % 60);
    const int value = 225 + static_cast<int>((hash >> 24) % 25);
    return QColor::fromHsv(hue, saturation, value);
}

QString shortNameLabel(const analysis::DecisionSpace& space, analysis::NameId name) {
    const std::string& label = space.name(name).label;
    const auto dot = label.rfind('.');
    return toQString(dot == std::string::npos ? std::string_view(label)
                                              : std::string_view(label).substr(dot + 1));
}

QString shardingText(const analysis::DecisionSpace& space, const mesh::Mesh& mesh, ir::ValueId value,
                     const ir::TensorType& type, const plan::TensorSharding& sharding) {
    QString text = QStringLiteral("[");
    const int rank = static_cast<int>(type.shape.size());
    for (int d = 0; d < rank; ++d) {
        if (d > 0)
            text += QStringLiteral(", ");
        QString dimension;
        if (value.index < space.dimensionAtoms.size()) {
            for (const auto name : space.namesOf(value, d)) {
                if (!dimension.isEmpty())
                    dimension += QChar(0x00B7);
                dimension += shortNameLabel(space, name);
            }
        }
        if (dimension.isEmpty())
            dimension = QString::number(type.shape[static_cast<std::size_t>(d)]);
        text += dimension;
        if (d < static_cast<int>(sharding.dimensions.size()) && !sharding.dimensions[d].empty()) {
            const auto& axes = sharding.dimensions[d];
            text += QLatin1Char('@');
            for (int i = 0; i < axes.size(); ++i) {
                if (i > 0)
                    text += QLatin1Char(',');
                const auto axis = static_cast<std::size_t>(axes[i]);
                text += axis < mesh.axes.size() ? toQString(mesh.axes[axis].name) : QStringLiteral("?");
            }
        }
    }
    return text + QLatin1Char(']');
}

}  // namespace shardscope::ui
