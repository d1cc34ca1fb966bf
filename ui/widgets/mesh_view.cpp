// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/mesh_view.h"

#include <algorithm>
#include <cmath>

#include <QPainter>

namespace shardscope::ui {

namespace {

const QColor kAxisColors[] = {QColor(0xd6, 0x27, 0x28), QColor(0x1f, 0x77, 0xb4), QColor(0x2c, 0xa0, 0x2c),
                              QColor(0x94, 0x67, 0xbd), QColor(0xff, 0x7f, 0x0e), QColor(0x8c, 0x56, 0x4b),
                              QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf)};

QColor axisColor(std::size_t axis) {
    return kAxisColors[axis % std::size(kAxisColors)];
}

constexpr double kMaxCell = 34;
constexpr double kMaxGridHeight = 300;

}  // namespace

MeshView::MeshView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("meshPicture"));
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

void MeshView::setPicture(MeshPicture picture) {
    picture_ = std::move(picture);
    updateGeometry();
    update();
}

QStringList MeshView::axisLines() const {
    QStringList lines;
    for (const MeshPictureAxis& axis : picture_.axes)
        lines << tr("%1 × %2 %3: %4")
                     .arg(axis.name)
                     .arg(axis.size)
                     .arg(axis.across ? tr("across") : tr("down"), axis.linkText());
    return lines;
}

int MeshView::rulers(bool across) const {
    return static_cast<int>(std::count_if(picture_.axes.begin(), picture_.axes.end(),
                                          [&](const MeshPictureAxis& a) { return a.across == across; }));
}

double MeshView::gapsBefore(std::int64_t index, bool across) const {
    double gaps = 0;
    for (std::size_t a = 0; a < picture_.axes.size(); ++a) {
        if (picture_.axes[a].across != across)
            continue;
        const std::int64_t stride = picture_.gridStride(a);
        if (stride > 1)
            gaps += static_cast<double>(index / stride);
    }
    return gaps;
}

QStringList MeshView::legendLines() const {
    QStringList lines = axisLines();
    if (picture_.domainDevices > 0 && picture_.domainDevices < picture_.devices)
        lines << tr("Shades and thick lines: nodes of %1 devices on %2")
                     .arg(picture_.domainDevices)
                     .arg(picture_.domainName);
    return lines;
}

double MeshView::legendHeight(double width) const {
    const QFontMetricsF metrics(font());
    const QStringList lines = legendLines();
    double height = 8;
    for (int i = 0; i < lines.size(); ++i) {
        const double left = i < static_cast<int>(picture_.axes.size()) ? 26 : 8;
        height += metrics
                      .boundingRect(QRectF(left, 0, std::max(40.0, width - left - 8), 10'000),
                                    Qt::TextWordWrap, lines[i])
                      .height() +
                  2;
    }
    return height;
}

MeshView::Geometry MeshView::geometry(double width) const {
    const QFontMetricsF metrics(font());
    const double ruler = metrics.height() + 6;
    Geometry g;
    g.left = 8 + rulers(false) * ruler;
    g.top = metrics.height() + 8 + rulers(true) * ruler;
    if (picture_.devices <= 0 || picture_.devices > kMaxDrawnDevices)
        return g;
    const auto columns = static_cast<double>(picture_.columns), rows = static_cast<double>(picture_.rows);
    const double gapsAcross = gapsBefore(picture_.columns - 1, true);
    const double gapsDown = gapsBefore(picture_.rows - 1, false);
    // Gaps between blocks of an outer axis are 40% of a cell (at least 3 px).
    const double available = std::max(10.0, width - g.left - 12);
    g.cell = std::min(kMaxCell, std::min((available - 3 * gapsAcross) / (columns + 0.4 * gapsAcross),
                                         (kMaxGridHeight - 3 * gapsDown) / (rows + 0.4 * gapsDown)));
    g.cell = std::max(2.0, g.cell);
    g.gap = std::max(3.0, 0.4 * g.cell);
    g.width = columns * g.cell + gapsAcross * g.gap;
    g.height = rows * g.cell + gapsDown * g.gap;
    return g;
}

QRectF MeshView::cellRect(std::int64_t device) const {
    return cellRect(device, geometry(width()));
}

QRectF MeshView::cellRect(std::int64_t device, const Geometry& g) const {
    if (device < 0 || device >= picture_.devices || picture_.devices > kMaxDrawnDevices)
        return {};
    const auto [column, row] = picture_.cellOf(device);
    return QRectF(g.left + static_cast<double>(column) * g.cell + gapsBefore(column, true) * g.gap,
                  g.top + static_cast<double>(row) * g.cell + gapsBefore(row, false) * g.gap, g.cell, g.cell);
}

int MeshView::heightForWidth(int width) const {
    const Geometry g = geometry(width);
    return static_cast<int>(std::ceil(g.top + g.height + 8 + legendHeight(width)));
}

QSize MeshView::sizeHint() const {
    return {360, heightForWidth(360)};
}

QSize MeshView::minimumSizeHint() const {
    return {160, heightForWidth(160)};
}

void MeshView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QFontMetricsF metrics(font());
    const QColor text = palette().color(QPalette::Text);
    if (picture_.devices <= 0) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("No mesh to draw"));
        return;
    }
    const Geometry g = geometry(width());
    painter.setPen(text);
    const QString title = picture_.hardware.isEmpty()
                              ? tr("%1 devices").arg(picture_.devices)
                              : tr("%1 devices of %2").arg(picture_.devices).arg(picture_.hardware);
    painter.drawText(QPointF(8, 4 + metrics.ascent()),
                     metrics.elidedText(title, Qt::ElideRight, width() - 16));

    const bool drawn = picture_.devices <= kMaxDrawnDevices;
    if (drawn) {
        // Cells, shaded by node (the innermost link level's domain), numbered when there is room.
        const QColor shades[] = {QColor(0xe8, 0xef, 0xf7), QColor(0xf4, 0xee, 0xe0)};
        const bool numbers = g.cell >= 22 && picture_.devices <= 256;
        QFont small = font();
        small.setPointSizeF(std::max(6.0, font().pointSizeF() * 0.8));
        painter.setFont(small);
        for (std::int64_t d = 0; d < picture_.devices; ++d) {
            const QRectF cell = cellRect(d, g).adjusted(0.5, 0.5, -0.5, -0.5);
            const std::int64_t domain = picture_.domainDevices > 0 ? d / picture_.domainDevices : 0;
            painter.fillRect(cell, shades[domain % 2]);
            if (g.cell >= 6) {
                painter.setPen(QPen(palette().color(QPalette::Mid), 0));
                painter.drawRect(cell);
            }
            if (numbers) {
                painter.setPen(text);
                painter.drawText(cell, Qt::AlignCenter, QString::number(d));
            }
        }
        painter.setFont(font());
        // Thick lines between neighbouring cells in different nodes.
        if (picture_.domainDevices > 0 && picture_.domainDevices < picture_.devices) {
            std::vector<std::int64_t> deviceAt(static_cast<std::size_t>(picture_.columns * picture_.rows),
                                               -1);
            for (std::int64_t d = 0; d < picture_.devices; ++d) {
                const auto [column, row] = picture_.cellOf(d);
                deviceAt[static_cast<std::size_t>(row * picture_.columns + column)] = d;
            }
            const auto at = [&](std::int64_t column, std::int64_t row) {
                return deviceAt[static_cast<std::size_t>(row * picture_.columns + column)];
            };
            painter.setPen(QPen(text, 2.2));
            for (std::int64_t row = 0; row < picture_.rows; ++row)
                for (std::int64_t column = 0; column < picture_.columns; ++column) {
                    const std::int64_t d = at(column, row);
                    const QRectF r = cellRect(d, g);
                    if (column + 1 < picture_.columns) {
                        const std::int64_t right = at(column + 1, row);
                        if (right / picture_.domainDevices != d / picture_.domainDevices) {
                            const double x = (r.right() + cellRect(right, g).left()) / 2;
                            painter.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
                        }
                    }
                    if (row + 1 < picture_.rows) {
                        const std::int64_t below = at(column, row + 1);
                        if (below / picture_.domainDevices != d / picture_.domainDevices) {
                            const double y = (r.bottom() + cellRect(below, g).top()) / 2;
                            painter.drawLine(QPointF(r.left(), y), QPointF(r.right(), y));
                        }
                    }
                }
        }
        // A ruler per axis from device 0 along it: across above the grid, down on its left; the minor one
        // nearest.
        const double ruler = metrics.height() + 6;
        int across = 0, down = 0;
        for (std::size_t a = picture_.axes.size(); a-- > 0;) {
            const MeshPictureAxis& axis = picture_.axes[a];
            const QRectF first = cellRect(0, g), last = cellRect(picture_.deviceAlong(a, axis.size - 1), g);
            const QColor color = axisColor(a);
            const QString label = tr("%1 ×%2").arg(axis.name).arg(axis.size);
            const double labelWidth = metrics.horizontalAdvance(label) + 8;
            painter.setPen(QPen(color, 1.6));
            if (axis.across) {
                const double y = g.top - (across++ + 0.5) * ruler;
                const double x0 = first.center().x(), x1 = std::max(last.center().x(), x0 + 1);
                painter.drawLine(QPointF(x0, y), QPointF(x1, y));
                for (std::int64_t p = 0; p < axis.size && axis.size <= 64; ++p) {
                    const double x = cellRect(picture_.deviceAlong(a, p), g).center().x();
                    painter.drawLine(QPointF(x, y - 3), QPointF(x, y + 3));
                }
                const QRectF box(std::max(2.0, (x0 + x1) / 2 - labelWidth / 2), y - metrics.height() / 2,
                                 labelWidth, metrics.height());
                painter.fillRect(box, palette().color(QPalette::Base));
                painter.drawText(box, Qt::AlignCenter, label);
            } else {
                const double x = g.left - (down++ + 0.5) * ruler;
                const double y0 = first.center().y(), y1 = std::max(last.center().y(), y0 + 1);
                painter.drawLine(QPointF(x, y0), QPointF(x, y1));
                for (std::int64_t p = 0; p < axis.size && axis.size <= 64; ++p) {
                    const double y = cellRect(picture_.deviceAlong(a, p), g).center().y();
                    painter.drawLine(QPointF(x - 3, y), QPointF(x + 3, y));
                }
                painter.save();
                painter.translate(x, (y0 + y1) / 2);
                painter.rotate(-90);
                const QRectF box(-labelWidth / 2, -metrics.height() / 2, labelWidth, metrics.height());
                painter.fillRect(box, palette().color(QPalette::Base));
                painter.drawText(box, Qt::AlignCenter, label);
                painter.restore();
            }
        }
    }

    // A line per axis naming its links, and what the shades and thick lines are; wrapped to the width.
    double y = (drawn ? g.top + g.height : g.top) + 10;
    const QStringList lines = legendLines();
    for (int i = 0; i < lines.size(); ++i) {
        const bool axis = i < static_cast<int>(picture_.axes.size());
        const double left = axis ? 26 : 8;
        const QRectF box(left, y, std::max(40.0, width() - left - 8), 10'000);
        const QRectF used = metrics.boundingRect(box, Qt::TextWordWrap, lines[i]);
        if (axis)
            painter.fillRect(QRectF(8, y + 3, 12, metrics.height() - 6),
                             axisColor(static_cast<std::size_t>(i)));
        painter.setPen(axis ? text : palette().color(QPalette::PlaceholderText));
        painter.drawText(box, Qt::TextWordWrap, lines[i]);
        y += used.height() + 2;
    }
}

}  // namespace shardscope::ui
