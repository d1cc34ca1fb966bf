// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/fixed_pitch_font.h"

#include <cmath>

#include <QFontDatabase>
#include <QFontInfo>
#include <QFontMetricsF>
#include <QStringList>

namespace shardscope::ui {

bool isFixedPitch(const QFont& font) {
    const QFontMetricsF metrics(font);
    const double width = metrics.horizontalAdvance(QLatin1Char('W'));
    if (width <= 0)
        return false;
    for (const QLatin1Char glyph : {QLatin1Char('i'), QLatin1Char('m'), QLatin1Char('.'), QLatin1Char('0')})
        if (std::abs(metrics.horizontalAdvance(glyph) - width) > 0.01 * width)
            return false;
    return true;
}

QFont fixedPitchFont(const QList<QFont>& preferred) {
    const QFont system = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    const auto sized = [&](QFont font) {
        if (system.pointSizeF() > 0)
            font.setPointSizeF(system.pointSizeF());
        return font;
    };
    for (const QFont& font : preferred)
        if (isFixedPitch(font))
            return font;
    if (isFixedPitch(system))
        return system;
    QStringList families{QStringLiteral("DejaVu Sans Mono"),
                         QStringLiteral("Noto Sans Mono"),
                         QStringLiteral("Liberation Mono"),
                         QStringLiteral("Ubuntu Mono"),
                         QStringLiteral("Cascadia Mono"),
                         QStringLiteral("Consolas"),
                         QStringLiteral("Menlo"),
                         QStringLiteral("SF Mono"),
                         QStringLiteral("Courier New"),
                         QStringLiteral("Courier")};
    for (const QString& family : QFontDatabase::families())
        if (QFontDatabase::isFixedPitch(family) && !families.contains(family))
            families << family;
    for (const QString& family : families) {
        if (!QFontDatabase::hasFamily(family))
            continue;
        QFont font = sized(QFont(family));
        font.setStyleHint(QFont::Monospace, QFont::PreferDefault);
        font.setFixedPitch(true);
        // Matched by family: a family that resolves to another face (a substitution) is not the one asked
        // for.
        if (QFontInfo(font).family().compare(family, Qt::CaseInsensitive) == 0 && isFixedPitch(font))
            return font;
    }
    QFont hinted = system;
    hinted.setStyleHint(QFont::Monospace);
    hinted.setFixedPitch(true);
    if (isFixedPitch(hinted))
        return hinted;
    hinted.setStyleHint(QFont::TypeWriter);
    return hinted;
}

}  // namespace shardscope::ui
