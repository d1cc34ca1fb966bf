// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/memory_chart.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

namespace shardscope::ui {

namespace {

const QColor kPalette[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x61, 0x1e), QColor(0x2c, 0xa0, 0x2c)};
const QColor kCapacityColor(0xc0, 0x30, 0x30);
const QColor kWithoutRematColor(0x55, 0x55, 0x55);

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

// The index of the newest sample at or before `op`, or ops.size() when there is none.
std::size_t sampleAt(const std::vector<std::size_t>& ops, std::size_t op) {
    const auto after = std::upper_bound(ops.begin(), ops.end(), op);
    if (after == ops.begin())
        return ops.empty() ? 0 : ops.size();
    return static_cast<std::size_t>(after - ops.begin()) - 1;
}

}  // namespace

MemoryCurve memoryCurveOf(const MemoryOverStep& memory, const QString& name, const QColor& color) {
    MemoryCurve curve;
    curve.name = name;
    curve.color = color;
    curve.ops = memory.ops;
    curve.bytes = memory.bytes;
    curve.parts = memory.parts;
    curve.withoutRemat = memory.withoutRemat;
    curve.peakWithoutRemat = memory.peakWithoutRemat;
    curve.capacity = memory.capacity;
    curve.peakOp = memory.peakOp;
    curve.peak = memory.peak;
    return curve;
}

QString memoryCategoryName(int category) {
    switch (category) {
        case 0:
            return MemoryChart::tr("parameters");
        case 1:
            return MemoryChart::tr("gradients");
        case 2:
            return MemoryChart::tr("optimizer state");
        case 3:
            return MemoryChart::tr("activations");
        default:
            return MemoryChart::tr("temporaries");
    }
}

QColor memoryCategoryColor(int category) {
    static const QColor colors[kMemoryCategories] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b),
                                                     QColor(0x76, 0xb7, 0xb2), QColor(0x59, 0xa1, 0x4f),
                                                     QColor(0xed, 0xc9, 0x48)};
    return colors[std::clamp(category, 0, kMemoryCategories - 1)];
}

double memoryCategoryBytes(const cost::MemoryBreakdown& parts, int category) {
    switch (category) {
        case 0:
            return parts.parameters;
        case 1:
            return parts.gradients;
        case 2:
            return parts.optimizerState;
        case 3:
            return parts.activations;
        default:
            return parts.temporaries;
    }
}

QString MemoryAxis::label(double bytes) const {
    return QString::number(bytes / unit, 'g', 6);
}

MemoryAxis memoryAxis(double highest) {
    MemoryAxis axis;
    const double h = std::max(highest, 1.0);
    static const char* const kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    const int k = std::clamp(static_cast<int>(std::floor(std::log(h) / std::log(1024.0))), 0, 4);
    axis.unit = std::pow(1024.0, k);
    axis.unitName = QString::fromLatin1(kUnits[k]);
    axis.step = niceStep(h / axis.unit, 5) * axis.unit;
    if (k == 0)
        axis.step = std::max(1.0, std::round(axis.step));
    // Room above the highest curve for its peak's marker.
    const auto count = static_cast<long>(std::ceil(h * 1.04 / axis.step - 1e-9));
    axis.top = static_cast<double>(std::max(1L, count)) * axis.step;
    for (long i = 0; i <= std::max(1L, count); ++i)
        axis.ticks.push_back(static_cast<double>(i) * axis.step);
    return axis;
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

bool MemoryChart::isStacked() const {
    return curves_.size() == 1 && !curves_.front().parts.empty();
}

void MemoryChart::setCurves(std::vector<MemoryCurve> curves, std::size_t opCount) {
    curves_ = std::move(curves);
    opCount_ = opCount;
    double highest = 1, capacity = 0;
    for (std::size_t i = 0; i < curves_.size(); ++i) {
        MemoryCurve& c = curves_[i];
        if (!c.color.isValid())
            c.color = kPalette[i % std::size(kPalette)];
        highest = std::max({highest, c.peak, c.peakWithoutRemat});
        for (double b : c.bytes)
            highest = std::max(highest, b);
        for (double b : c.withoutRemat)
            highest = std::max(highest, b);
        capacity = std::max(capacity, c.capacity);
    }
    // A capacity far above the curves would flatten them to the axis: then it is only named ("off the
    // scale") and the curves get the height.
    if (capacity > 0 && capacity <= kCapacityRange * highest)
        highest = std::max(highest, capacity);
    axis_ = memoryAxis(highest);
    hoverOp_ = -1;
    legend_ = makeLegend();
    bandTops_ = makeBandTops();
    areaSize_ = QSize();
    update();
}

void MemoryChart::setOpText(std::function<QString(std::size_t)> text) {
    opText_ = std::move(text);
}

std::vector<MemoryChart::LegendEntry> MemoryChart::makeLegend() const {
    std::vector<LegendEntry> out;
    if (isStacked()) {
        for (int c = 0; c < kMemoryCategories; ++c) {
            const auto& parts = curves_.front().parts;
            const bool any = std::any_of(parts.begin(), parts.end(), [c](const cost::MemoryBreakdown& p) {
                return memoryCategoryBytes(p, c) > 0;
            });
            if (any)
                out.push_back({memoryCategoryColor(c), memoryCategoryName(c)});
        }
    } else if (curves_.size() > 1) {
        for (const MemoryCurve& c : curves_)
            out.push_back({c.color, c.name});
    }
    if (std::any_of(curves_.begin(), curves_.end(),
                    [](const MemoryCurve& c) { return !c.withoutRemat.empty(); }))
        out.push_back({kWithoutRematColor, tr("without remat"), true});
    return out;
}

std::vector<QRectF> MemoryChart::legendRects(double* bottom) const {
    const QFontMetricsF metrics(font());
    const double h = metrics.height();
    const double left = metrics.horizontalAdvance(axis_.unitName + tr(" per device")) + 24;
    double x = left, y = 4;
    std::vector<QRectF> rects;
    for (const LegendEntry& entry : legend()) {
        const double w = 16 + metrics.horizontalAdvance(entry.name);
        if (x > left && x + w > width() - 8) {
            x = left;
            y += h + 2;
        }
        rects.emplace_back(x, y, w, h);
        x += w + 14;
    }
    if (bottom)
        *bottom = y + h + 6;
    return rects;
}

QRectF MemoryChart::plotArea() const {
    if (areaSize_.isValid() && areaSize_ == size())
        return area_;
    const QFontMetricsF metrics(font());
    double top = 0;
    legendRects(&top);
    QString widest = QStringLiteral("0");
    for (double t : axis_.ticks)
        if (axis_.label(t).size() > widest.size())
            widest = axis_.label(t);
    const double left = metrics.horizontalAdvance(widest) + 14;
    const double bottom = metrics.height() * 2 + 6;
    area_ = QRectF(left, top, std::max(10.0, width() - left - 12), std::max(10.0, height() - top - bottom));
    areaSize_ = size();
    return area_;
}

double MemoryChart::xOf(double op) const {
    const QRectF area = plotArea();
    const double span = opCount_ > 1 ? static_cast<double>(opCount_ - 1) : 1;
    return area.left() + area.width() * op / span;
}

double MemoryChart::yOf(double bytes) const {
    const QRectF area = plotArea();
    return area.bottom() - area.height() * bytes / axis_.top;
}

double MemoryChart::valueAt(const std::vector<std::size_t>& ops, const std::vector<double>& values,
                            std::size_t op) {
    if (values.empty())
        return 0;
    const std::size_t i = sampleAt(ops, op);
    return i < values.size() ? values[i] : values.front();
}

std::vector<double> MemoryChart::stackAt(std::size_t sample) const {
    std::vector<double> tops;
    if (!isStacked() || sample >= curves_.front().parts.size())
        return tops;
    for (const std::vector<double>& band : bandTops_)
        tops.push_back(band[sample]);
    return tops;
}

std::vector<std::vector<double>> MemoryChart::makeBandTops() const {
    std::vector<std::vector<double>> bands;
    if (!isStacked())
        return bands;
    const auto& parts = curves_.front().parts;
    bands.assign(kMemoryCategories, std::vector<double>(parts.size()));
    for (std::size_t s = 0; s < parts.size(); ++s) {
        double sum = 0;
        for (int c = 0; c < kMemoryCategories; ++c) {
            sum += memoryCategoryBytes(parts[s], c);
            bands[static_cast<std::size_t>(c)][s] = sum;
        }
    }
    return bands;
}

std::vector<MemoryChart::Label> MemoryChart::labels() const {
    std::vector<Label> out;
    if (curves_.empty() || opCount_ == 0)
        return out;
    const QRectF area = plotArea();
    const QFontMetricsF metrics(font());
    const double h = metrics.height();
    std::vector<double> lines;  // capacity lines' y: peak labels avoid them when they can
    auto free = [&](const QRectF& r) {
        return std::none_of(out.begin(), out.end(),
                            [&](const Label& l) { return l.rect.adjusted(-2, -1, 2, 1).intersects(r); });
    };
    auto clampIn = [&](QRectF r) {
        r.moveLeft(
            std::clamp(r.left(), area.left() + 2, std::max(area.left() + 2, area.right() - r.width() - 2)));
        r.moveTop(
            std::clamp(r.top(), area.top() + 1, std::max(area.top() + 1, area.bottom() - r.height() - 1)));
        return r;
    };
    // Tries `candidates` in order: the first free one that crosses no capacity line, else the first free
    // one, else rows down the plot (at the first candidate's x, then at either side) until one is free. A
    // label with no room anywhere is left out (the tooltip still tells). Text wider than the plot is elided.
    auto place = [&](Label label, std::vector<QRectF> candidates) {
        const double widest = area.width() - 4;
        if (metrics.horizontalAdvance(label.text) + 6 > widest) {
            label.text = metrics.elidedText(label.text, Qt::ElideRight, widest - 6);
            for (QRectF& r : candidates)
                r.setWidth(widest);
        }
        for (int pass = 0; pass < 2; ++pass)
            for (QRectF r : candidates) {
                r = clampIn(r);
                const bool crosses = std::any_of(lines.begin(), lines.end(), [&](double y) {
                    return y >= r.top() - 1 && y <= r.bottom() + 1;
                });
                if (free(r) && (pass == 1 || !crosses)) {
                    label.rect = r;
                    out.push_back(std::move(label));
                    return;
                }
            }
        const QRectF first = clampIn(candidates.front());
        for (double y = area.top() + 1; y + h <= area.bottom() - 1; y += h + 2)
            for (const double x : {first.left(), area.left() + 2, area.right() - first.width() - 2}) {
                const QRectF r = clampIn(QRectF(x, y, first.width(), first.height()));
                if (free(r)) {
                    label.rect = r;
                    out.push_back(std::move(label));
                    return;
                }
            }
    };

    const bool sameCapacity = std::all_of(curves_.begin(), curves_.end(), [&](const MemoryCurve& c) {
        return c.capacity == curves_.front().capacity;
    });
    int offScale = 0;
    for (std::size_t i = 0; i < curves_.size(); ++i) {
        const MemoryCurve& c = curves_[i];
        if (c.capacity <= 0 || (sameCapacity && i > 0))
            continue;
        Label label{Label::Kind::Capacity, i, {}, {}};
        if (c.capacity > axis_.top) {
            label.text = tr("capacity %1 (off the scale)").arg(bytesLabel(c.capacity));
            const double w = metrics.horizontalAdvance(label.text) + 6;
            place(std::move(label),
                  {QRectF(area.right() - w - 2, area.top() + 1 + offScale++ * (h + 2), w, h)});
            continue;
        }
        label.text = tr("capacity %1").arg(bytesLabel(c.capacity));
        const double w = metrics.horizontalAdvance(label.text) + 6;
        const double y = yOf(c.capacity);
        place(std::move(label),
              {QRectF(area.right() - w - 2, y - h - 2, w, h), QRectF(area.right() - w - 2, y + 2, w, h),
               QRectF(area.left() + 2, y - h - 2, w, h)});
        lines.push_back(y);
    }
    auto placePeak = [&](Label label, QPointF at) {
        const double w = metrics.horizontalAdvance(label.text) + 6;
        place(std::move(label),
              {QRectF(at.x() + 8, at.y() - h - 4, w, h), QRectF(at.x() - 8 - w, at.y() - h - 4, w, h),
               QRectF(at.x() + 8, at.y() + 4, w, h), QRectF(at.x() - 8 - w, at.y() + 4, w, h)});
    };
    for (std::size_t i = 0; i < curves_.size(); ++i) {
        const MemoryCurve& c = curves_[i];
        const QString name = curves_.size() > 1 ? c.name + QStringLiteral(": ") : QString();
        placePeak(
            {Label::Kind::Peak, i, name + tr("peak %1 at #%2").arg(bytesLabel(c.peak)).arg(c.peakOp), {}},
            QPointF(xOf(static_cast<double>(c.peakOp)), yOf(c.peak)));
    }
    for (std::size_t i = 0; i < curves_.size(); ++i) {
        const MemoryCurve& c = curves_[i];
        if (c.withoutRemat.empty())
            continue;
        const auto top = std::max_element(c.withoutRemat.begin(), c.withoutRemat.end());
        const auto sample = static_cast<std::size_t>(top - c.withoutRemat.begin());
        const double op = sample < c.ops.size() ? static_cast<double>(c.ops[sample]) : 0;
        placePeak(
            {Label::Kind::PeakWithoutRemat,
             i,
             tr("without remat %1 (remat saves %2)")
                 .arg(bytesLabel(c.peakWithoutRemat), bytesLabel(std::max(0.0, c.peakWithoutRemat - c.peak))),
             {}},
            QPointF(xOf(op), yOf(*top)));
    }
    return out;
}

QPainterPath MemoryChart::stepPath(const std::vector<std::size_t>& ops, const std::vector<double>& values,
                                   bool closed) const {
    QPainterPath path;
    if (ops.empty() || values.empty())
        return path;
    const double first = xOf(static_cast<double>(ops.front())), last = xOf(static_cast<double>(opCount_ - 1));
    const double bottom = plotArea().bottom();
    if (closed) {
        path.moveTo(first, bottom);
        path.lineTo(first, yOf(values.front()));
    } else {
        path.moveTo(first, yOf(values.front()));
    }
    for (std::size_t i = 1; i < ops.size() && i < values.size(); ++i) {
        const double x = xOf(static_cast<double>(ops[i]));
        path.lineTo(x, yOf(values[i - 1]));
        path.lineTo(x, yOf(values[i]));
    }
    path.lineTo(last, yOf(values.back()));
    if (closed) {
        path.lineTo(last, bottom);
        path.closeSubpath();
    }
    return path;
}

void MemoryChart::paintLine(QPainter& painter, const MemoryCurve& curve, const std::vector<double>& values,
                            const QPen& pen, bool fill) const {
    if (curve.ops.empty() || values.empty())
        return;
    if (fill) {
        QColor shade = pen.color();
        shade.setAlpha(curves_.size() > 1 ? 30 : 50);
        painter.fillPath(stepPath(curve.ops, values, true), shade);
    }
    painter.setPen(pen);
    painter.setBrush(Qt::NoBrush);
    painter.drawPath(stepPath(curve.ops, values, false));
}

void MemoryChart::paintStack(QPainter& painter, const MemoryCurve& curve) const {
    // Top category first, each band filled from the axis up to its cumulative top: the lower ones cover the
    // rest.
    for (int c = kMemoryCategories - 1; c >= 0 && static_cast<std::size_t>(c) < bandTops_.size(); --c)
        painter.fillPath(stepPath(curve.ops, bandTops_[static_cast<std::size_t>(c)], true),
                         memoryCategoryColor(c));
    paintLine(painter, curve, curve.bytes, QPen(palette().color(QPalette::Text), 1.2), false);
}

void MemoryChart::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QRectF area = plotArea();
    const QFontMetricsF metrics(font());
    const QColor grid = palette().color(QPalette::Mid);
    const QColor text = palette().color(QPalette::Text);

    if (curves_.empty() || opCount_ == 0) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("No plan to chart"));
        return;
    }

    // The y axis: linear, its unit named above it.
    for (double b : axis_.ticks) {
        const double y = yOf(b);
        painter.setPen(QPen(grid.lighter(130), 0, Qt::DotLine));
        painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
        painter.setPen(text);
        painter.drawText(QRectF(0, y - metrics.height() / 2.0, area.left() - 6, metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter, axis_.label(b));
    }
    painter.drawText(QPointF(4, 4 + metrics.ascent()), axis_.unitName + tr(" per device"));
    const double xStep = std::max(1.0, niceStep(static_cast<double>(opCount_), 6));
    for (double op = 0; op < static_cast<double>(opCount_); op += xStep) {
        const double x = xOf(op);
        painter.setPen(QPen(grid, 0));
        painter.drawLine(QPointF(x, area.bottom()), QPointF(x, area.bottom() + 4));
        painter.setPen(text);
        painter.drawText(QRectF(x - 40, area.bottom() + 4, 80, metrics.height()),
                         Qt::AlignHCenter | Qt::AlignTop, QLocale().toString(static_cast<qlonglong>(op)));
    }
    painter.drawText(
        QRectF(area.left(), area.bottom() + 4 + metrics.height(), area.width(), metrics.height()),
        Qt::AlignHCenter, tr("op in program order"));

    // The curves: one stacked by category, or lines to compare; the plan without remat dashed.
    painter.save();
    painter.setClipRect(area.adjusted(-1, -1, 1, 1));
    if (isStacked())
        paintStack(painter, curves_.front());
    else
        for (const MemoryCurve& c : curves_)
            paintLine(painter, c, c.bytes, QPen(c.color, 1.6), true);
    for (const MemoryCurve& c : curves_)
        paintLine(painter, c, c.withoutRemat,
                  QPen(curves_.size() > 1 ? c.color : kWithoutRematColor, 1.4, Qt::DashLine), false);
    painter.restore();
    painter.setPen(QPen(grid, 0));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(area);

    // Capacities: one line when every curve has the same, else one per curve in its colour.
    const bool sameCapacity = std::all_of(curves_.begin(), curves_.end(), [&](const MemoryCurve& c) {
        return c.capacity == curves_.front().capacity;
    });
    for (std::size_t i = 0; i < curves_.size(); ++i) {
        const MemoryCurve& c = curves_[i];
        if (c.capacity <= 0 || c.capacity > axis_.top || (sameCapacity && i > 0))
            continue;
        painter.setPen(QPen(sameCapacity ? kCapacityColor : c.color, 1.5, Qt::DashLine));
        const double y = yOf(c.capacity);
        painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
    }
    for (const MemoryCurve& c : curves_) {
        const QPointF peak(xOf(static_cast<double>(c.peakOp)), yOf(c.peak));
        painter.setPen(QPen(c.color.darker(140), 1.5));
        painter.setBrush(Qt::white);
        painter.drawEllipse(peak, 4, 4);
    }

    // Labels where they do not overlap, on a light backing so that lines under them stay readable.
    QColor backing = palette().color(QPalette::Base);
    backing.setAlpha(210);
    for (const Label& label : labels()) {
        painter.fillRect(label.rect, backing);
        const MemoryCurve& c = curves_[label.curve];
        painter.setPen(label.kind == Label::Kind::Capacity
                           ? (sameCapacity ? kCapacityColor : c.color)
                           : (label.kind == Label::Kind::Peak ? c.color.darker(140) : kWithoutRematColor));
        painter.drawText(label.rect, Qt::AlignCenter, label.text);
    }

    // Legend.
    const std::vector<LegendEntry> entries = legend();
    const std::vector<QRectF> rects = legendRects();
    for (std::size_t i = 0; i < entries.size() && i < rects.size(); ++i) {
        const QRectF& r = rects[i];
        if (entries[i].dashed) {
            painter.setPen(QPen(entries[i].color, 1.6, Qt::DashLine));
            painter.drawLine(QPointF(r.left(), r.center().y()), QPointF(r.left() + 12, r.center().y()));
        } else {
            painter.fillRect(QRectF(r.left(), r.top() + 3, 12, r.height() - 6), entries[i].color);
        }
        painter.setPen(text);
        painter.drawText(QPointF(r.left() + 16, r.top() + metrics.ascent()), entries[i].name);
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
    if (op == hoverOp_)
        return;
    hoverOp_ = std::clamp(op, 0L, static_cast<long>(opCount_ - 1));
    const auto at = static_cast<std::size_t>(hoverOp_);
    QString tip = opText_ ? opText_(at) : tr("#%1").arg(at);
    for (const MemoryCurve& c : curves_) {
        tip += QStringLiteral("\n") + (curves_.size() > 1 ? c.name + QStringLiteral(": ") : QString()) +
               bytesLabel(valueAt(c.ops, c.bytes, at));
        if (isStacked()) {
            const std::size_t s = sampleAt(c.ops, at);
            for (int k = kMemoryCategories - 1; k >= 0 && s < c.parts.size(); --k)
                tip += QStringLiteral("\n  %1: %2")
                           .arg(memoryCategoryName(k), bytesLabel(memoryCategoryBytes(c.parts[s], k)));
        }
        if (!c.withoutRemat.empty())
            tip += QStringLiteral("\n") +
                   tr("without remat: %1").arg(bytesLabel(valueAt(c.ops, c.withoutRemat, at)));
    }
    QToolTip::showText(event->globalPosition().toPoint(), tip, this);
    update();
}

void MemoryChart::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange)
        areaSize_ = QSize();
    QWidget::changeEvent(event);
}

void MemoryChart::leaveEvent(QEvent*) {
    if (hoverOp_ < 0)
        return;
    hoverOp_ = -1;
    QToolTip::hideText();
    update();
}

}  // namespace shardscope::ui
