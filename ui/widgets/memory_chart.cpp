// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/memory_chart.h"

#include <algorithm>
#include <cmath>

#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

namespace shardscope::ui {

namespace {

const QColor kPalette[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x61, 0x1e), QColor(0x2c, 0xa0, 0x2c)};

// A round step for axis ticks: 1, 2 or 5 times a power of ten.
double niceStep(double range, int ticks) {
    if (range <= 0)
        return 1;
    const double raw = range / ticks;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * power)
            return m * power;
    return 10 * power;
}

}  // namespace

MemoryCurve memoryCurveOf(const MemoryOverStep& memory, const QString& name, const QColor& color) {
    return {name, color, memory.ops, memory.bytes, memory.capacity, memory.peakOp, memory.peak};
}

MemoryChart::MemoryChart(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setObjectName(QStringLiteral("memoryChart"));
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
}

QSize MemoryChart::sizeHint() const {
    return {560, 260};
}

QSize MemoryChart::minimumSizeHint() const {
    return {200, 120};
}

void MemoryChart::setCurves(std::vector<MemoryCurve> curves, std::size_t opCount) {
    curves_ = std::move(curves);
    opCount_ = opCount;
    double highest = 1, capacity = 0;
    for (std::size_t i = 0; i < curves_.size(); ++i) {
        MemoryCurve& c = curves_[i];
        if (!c.color.isValid())
            c.color = kPalette[i % std::size(kPalette)];
        highest = std::max(highest, c.peak);
        for (double b : c.bytes)
            highest = std::max(highest, b);
        capacity = std::max(capacity, c.capacity);
    }
    // A capacity far above the curves would flatten them to the axis: then the capacity is only named at the
    // top ("capacity ... above") and the curves get the height.
    top_ = (capacity > 0 && capacity <= 3 * highest ? std::max(highest, capacity) : highest) * 1.1;
    hoverOp_ = -1;
    update();
}

void MemoryChart::setOpText(std::function<QString(std::size_t)> text) {
    opText_ = std::move(text);
}

QRectF MemoryChart::plotArea() const {
    const QFontMetrics metrics(font());
    const double left = metrics.horizontalAdvance(QStringLiteral("000.0 MB")) + 10;
    const double bottom = metrics.height() * 2 + 6;
    const double top = metrics.height() + 8;
    return QRectF(left, top, std::max(10.0, width() - left - 12), std::max(10.0, height() - top - bottom));
}

double MemoryChart::xOf(double op) const {
    const QRectF area = plotArea();
    const double span = opCount_ > 1 ? static_cast<double>(opCount_ - 1) : 1;
    return area.left() + area.width() * op / span;
}

double MemoryChart::yOf(double bytes) const {
    const QRectF area = plotArea();
    return area.bottom() - area.height() * bytes / top_;
}

double MemoryChart::valueAt(const MemoryCurve& curve, std::size_t op) {
    const auto after = std::upper_bound(curve.ops.begin(), curve.ops.end(), op);
    if (after == curve.ops.begin())
        return curve.bytes.empty() ? 0 : curve.bytes.front();
    const auto i = static_cast<std::size_t>(after - curve.ops.begin()) - 1;
    return i < curve.bytes.size() ? curve.bytes[i] : 0;
}

void MemoryChart::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QRectF area = plotArea();
    const QFontMetrics metrics(font());
    const QColor grid = palette().color(QPalette::Mid);
    const QColor text = palette().color(QPalette::Text);

    if (curves_.empty() || opCount_ == 0) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("No plan to chart"));
        return;
    }

    // Axes and ticks.
    painter.setPen(QPen(grid, 0));
    // Steps round in the unit the labels use (KiB, MiB, GiB), so the ticks read 2 MiB, 4 MiB, ...
    const double unit = std::pow(1024.0, std::max(0.0, std::floor(std::log(top_) / std::log(1024.0))));
    const double yStep = niceStep(top_ / unit, 5) * unit;
    for (double b = 0; b <= top_; b += yStep) {
        const double y = yOf(b);
        painter.setPen(QPen(grid.lighter(130), 0, Qt::DotLine));
        painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
        painter.setPen(text);
        painter.drawText(QRectF(0, y - metrics.height() / 2.0, area.left() - 6, metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter, b == 0 ? QStringLiteral("0") : bytesLabel(b));
    }
    const double xStep = std::max(1.0, niceStep(static_cast<double>(opCount_), 6));
    for (double op = 0; op < static_cast<double>(opCount_); op += xStep) {
        const double x = xOf(op);
        painter.setPen(QPen(grid, 0));
        painter.drawLine(QPointF(x, area.bottom()), QPointF(x, area.bottom() + 4));
        painter.setPen(text);
        painter.drawText(QRectF(x - 40, area.bottom() + 4, 80, metrics.height()),
                         Qt::AlignHCenter | Qt::AlignTop, QLocale().toString(static_cast<qlonglong>(op)));
    }
    painter.setPen(QPen(grid, 0));
    painter.drawRect(area);
    painter.setPen(text);
    painter.drawText(
        QRectF(area.left(), area.bottom() + 4 + metrics.height(), area.width(), metrics.height()),
        Qt::AlignHCenter, tr("op in program order"));

    // Capacities: one neutral line when every curve has the same, else one per curve in its colour.
    const bool sameCapacity = std::all_of(curves_.begin(), curves_.end(), [&](const MemoryCurve& c) {
        return c.capacity == curves_.front().capacity;
    });
    for (std::size_t i = 0; i < curves_.size(); ++i) {
        const MemoryCurve& c = curves_[i];
        if (c.capacity <= 0 || (sameCapacity && i > 0))
            continue;
        const QColor color = sameCapacity ? QColor(0xc0, 0x30, 0x30) : c.color;
        painter.setPen(QPen(color, 1.5, Qt::DashLine));
        if (c.capacity > top_) {
            const double y = area.top() + static_cast<double>(i) * metrics.height();
            painter.drawText(QRectF(area.left() + 4, y + 1, area.width() - 8, metrics.height()),
                             Qt::AlignLeft | Qt::AlignTop,
                             tr("capacity %1 (above)").arg(bytesLabel(c.capacity)));
            continue;
        }
        const double y = yOf(c.capacity);
        painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
        painter.drawText(
            QRectF(area.left() + 4, y - metrics.height() - 1, area.width() - 8, metrics.height()),
            Qt::AlignRight | Qt::AlignBottom, tr("capacity %1").arg(bytesLabel(c.capacity)));
    }

    // The curves as step lines, then their peaks.
    painter.save();
    painter.setClipRect(area.adjusted(-1, -1, 1, 1));
    for (const MemoryCurve& c : curves_) {
        if (c.ops.empty())
            continue;
        QPainterPath path;
        path.moveTo(xOf(static_cast<double>(c.ops.front())), yOf(c.bytes.front()));
        for (std::size_t i = 1; i < c.ops.size() && i < c.bytes.size(); ++i) {
            const double x = xOf(static_cast<double>(c.ops[i]));
            path.lineTo(x, yOf(c.bytes[i - 1]));
            path.lineTo(x, yOf(c.bytes[i]));
        }
        path.lineTo(xOf(static_cast<double>(opCount_ - 1)), yOf(c.bytes.back()));
        QPainterPath fill = path;
        fill.lineTo(xOf(static_cast<double>(opCount_ - 1)), area.bottom());
        fill.lineTo(xOf(static_cast<double>(c.ops.front())), area.bottom());
        fill.closeSubpath();
        QColor shade = c.color;
        shade.setAlpha(curves_.size() > 1 ? 30 : 50);
        painter.fillPath(fill, shade);
        painter.setPen(QPen(c.color, 1.6));
        painter.drawPath(path);
    }
    painter.restore();
    for (const MemoryCurve& c : curves_) {
        const QPointF peak(xOf(static_cast<double>(c.peakOp)), yOf(c.peak));
        painter.setPen(QPen(c.color.darker(140), 1.5));
        painter.setBrush(Qt::white);
        painter.drawEllipse(peak, 4, 4);
        const QString label = tr("peak %1 at #%2").arg(bytesLabel(c.peak)).arg(c.peakOp);
        const double w = metrics.horizontalAdvance(label) + 4;
        const double x = std::clamp(peak.x() + 6, area.left(), area.right() - w);
        painter.drawText(QPointF(x, std::max(peak.y() - 6, area.top() + metrics.ascent())), label);
    }

    // Legend (only when there is something to tell apart).
    if (curves_.size() > 1) {
        double x = area.left();
        for (const MemoryCurve& c : curves_) {
            painter.fillRect(QRectF(x, 4, 12, metrics.height() - 4), c.color);
            painter.setPen(text);
            painter.drawText(QPointF(x + 16, 2 + metrics.ascent()), c.name);
            x += 16 + metrics.horizontalAdvance(c.name) + 16;
        }
    }

    if (hoverOp_ >= 0) {
        const double x = xOf(static_cast<double>(hoverOp_));
        painter.setPen(QPen(text, 0, Qt::DotLine));
        painter.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
    }
}

void MemoryChart::mouseMoveEvent(QMouseEvent* event) {
    const QRectF area = plotArea();
    if (curves_.empty() || opCount_ == 0 || !area.contains(event->position())) {
        leaveEvent(event);
        return;
    }
    const double span = opCount_ > 1 ? static_cast<double>(opCount_ - 1) : 1;
    const auto op =
        static_cast<long>(std::lround((event->position().x() - area.left()) / area.width() * span));
    if (op != hoverOp_) {
        hoverOp_ = std::clamp(op, 0L, static_cast<long>(opCount_ - 1));
        const auto at = static_cast<std::size_t>(hoverOp_);
        QString tip = opText_ ? opText_(at) : tr("#%1").arg(at);
        for (const MemoryCurve& c : curves_)
            tip += QStringLiteral("\n") + (curves_.size() > 1 ? c.name + QStringLiteral(": ") : QString()) +
                   bytesLabel(valueAt(c, at));
        QToolTip::showText(event->globalPosition().toPoint(), tip, this);
        update();
    }
}

void MemoryChart::leaveEvent(QEvent*) {
    if (hoverOp_ < 0)
        return;
    hoverOp_ = -1;
    QToolTip::hideText();
    update();
}

}  // namespace shardscope::ui
