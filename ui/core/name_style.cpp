// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/name_style.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include <QStringList>

#include "core/text.h"

namespace shardscope::ui {

namespace {

struct Lab {
    double l = 0, a = 0, b = 0;
};

double linear(double c) {
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

double gamma(double c) {
    return c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1 / 2.4) - 0.055;
}

// Björn Ottosson's OKLab (2020), from and to linear sRGB.
Lab oklab(const QColor& color) {
    const double r = linear(color.redF()), g = linear(color.greenF()), b = linear(color.blueF());
    const double l = std::cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
    const double m = std::cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
    const double s = std::cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
    return {0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s,
            1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s,
            0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s};
}

// The sRGB colour of `lab`, or nothing when it lies outside the sRGB gamut.
std::optional<QColor> srgb(const Lab& lab) {
    const double l = std::pow(lab.l + 0.3963377774 * lab.a + 0.2158037573 * lab.b, 3);
    const double m = std::pow(lab.l - 0.1055613458 * lab.a - 0.0638541728 * lab.b, 3);
    const double s = std::pow(lab.l - 0.0894841775 * lab.a - 1.2914855480 * lab.b, 3);
    const std::array<double, 3> rgb{4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
                                    -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
                                    -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s};
    for (const double c : rgb)
        if (c < -1e-4 || c > 1 + 1e-4)
            return std::nullopt;
    const auto channel = [](double c) {
        return static_cast<int>(std::lround(255 * gamma(std::clamp(c, 0.0, 1.0))));
    };
    return QColor(channel(rgb[0]), channel(rgb[1]), channel(rgb[2]));
}

double distance(const Lab& x, const Lab& y) {
    return std::hypot(x.l - y.l, x.a - y.a, x.b - y.b);
}

// Farthest-point sampling over a grid of light in-gamut colours (OKLCH: 5 lightnesses, 6 chromas, 72 hues),
// starting from a light blue. Deterministic: ties go to the earlier candidate.
std::vector<QColor> buildPalette() {
    std::vector<Lab> candidates;
    std::vector<QColor> colors;
    for (int li = 0; li < 5; ++li)
        for (int ci = 0; ci < 6; ++ci)
            for (int hi = 0; hi < 72; ++hi) {
                const double hue = hi * 5.0 * 3.14159265358979323846 / 180;
                const double chroma = 0.04 + 0.025 * ci;
                const Lab lab{0.74 + 0.05 * li, chroma * std::cos(hue), chroma * std::sin(hue)};
                if (const auto color = srgb(lab)) {
                    candidates.push_back(oklab(*color));  // as rounded to 8 bits
                    colors.push_back(*color);
                }
            }
    std::vector<QColor> palette;
    std::vector<double> nearest(candidates.size(), std::numeric_limits<double>::max());
    const Lab first = oklab(QColor(0x9e, 0xc5, 0xf0));
    std::size_t next = 0;
    for (std::size_t i = 0; i < candidates.size(); ++i)
        if (distance(candidates[i], first) < distance(candidates[next], first))
            next = i;
    while (palette.size() < kNamePaletteSize && palette.size() < candidates.size()) {
        palette.push_back(colors[next]);
        const Lab chosen = candidates[next];
        std::size_t farthest = 0;
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            nearest[i] = std::min(nearest[i], distance(candidates[i], chosen));
            if (nearest[i] > nearest[farthest])
                farthest = i;
        }
        next = farthest;
    }
    return palette;
}

}  // namespace

QColor paletteColor(std::size_t index) {
    static const std::vector<QColor> palette = buildPalette();
    return palette[index % palette.size()];
}

QColor mixInOklab(const QColor& a, const QColor& b, double t) {
    const Lab x = oklab(a), y = oklab(b);
    const double s = std::clamp(t, 0.0, 1.0);
    const Lab mixed{x.l + (y.l - x.l) * s, x.a + (y.a - x.a) * s, x.b + (y.b - x.b) * s};
    // Pulled toward grey (same lightness) until it fits sRGB: the lightness, which orders a scale, stays.
    for (double chroma = 1; chroma > 0; chroma -= 0.05)
        if (const auto colour = srgb({mixed.l, mixed.a * chroma, mixed.b * chroma}))
            return *colour;
    return srgb({mixed.l, 0, 0}).value_or(QColor(Qt::gray));
}

double oklabLightness(const QColor& colour) {
    return oklab(colour).l;
}

double perceptualDistance(const QColor& a, const QColor& b) {
    return 100 * distance(oklab(a), oklab(b));
}

QColor nameColor(const analysis::DecisionSpace&, analysis::NameId name) {
    return paletteColor(name.index);
}

QString shortNameLabel(const analysis::DecisionSpace& space, analysis::NameId name) {
    const std::string& label = space.name(name).label;
    const auto dot = label.rfind('.');
    return toQString(dot == std::string::npos ? std::string_view(label)
                                              : std::string_view(label).substr(dot + 1));
}

std::vector<ShardingPart> shardingParts(const analysis::DecisionSpace& space, const mesh::Mesh& mesh,
                                        ir::ValueId value, const ir::TensorType& type,
                                        const plan::TensorSharding& sharding) {
    std::vector<ShardingPart> parts;
    const int rank = static_cast<int>(type.shape.size());
    parts.reserve(static_cast<std::size_t>(rank));
    for (int d = 0; d < rank; ++d) {
        ShardingPart part;
        if (value.index < space.dimensionAtoms.size()) {
            for (const auto name : space.namesOf(value, d)) {
                if (!part.text.isEmpty())
                    part.text += QChar(0x00B7);
                else
                    part.name = name;
                part.text += shortNameLabel(space, name);
            }
        }
        if (part.text.isEmpty())
            part.text = QString::number(type.shape[static_cast<std::size_t>(d)]);
        if (d < static_cast<int>(sharding.dimensions.size()) && !sharding.dimensions[d].empty()) {
            const auto& axes = sharding.dimensions[d];
            part.text += QLatin1Char('@');
            for (int i = 0; i < axes.size(); ++i) {
                if (i > 0)
                    part.text += QLatin1Char(',');
                const auto axis = static_cast<std::size_t>(axes[i]);
                part.text += axis < mesh.axes.size() ? toQString(mesh.axes[axis].name) : QStringLiteral("?");
            }
        }
        parts.push_back(std::move(part));
    }
    return parts;
}

QString shardingText(const analysis::DecisionSpace& space, const mesh::Mesh& mesh, ir::ValueId value,
                     const ir::TensorType& type, const plan::TensorSharding& sharding) {
    QStringList dimensions;
    for (ShardingPart& part : shardingParts(space, mesh, value, type, sharding))
        dimensions << std::move(part.text);
    return QLatin1Char('[') + dimensions.join(QStringLiteral(", ")) + QLatin1Char(']');
}

}  // namespace shardscope::ui
