// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/module_time_chart.h"

#include <algorithm>

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace shardscope::ui {

namespace {

const QColor kComputeColor(0x4e, 0x79, 0xa7);
const QColor kExposedColor(0xe1, 0x57, 0x59);

}  // namespace

ModuleTimeChart::ModuleTimeChart(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("moduleTimeChart"));
    setMouseTracking(true);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
}

void ModuleTimeChart::setBars(std::vector<ModuleTimeBar> bars, double stepTime) {
    bars_ = std::move(bars);
    stepTime_ = stepTime;
    // What the percentages are of: the step, or the bars' sum without one.
    total_ = stepTime;
    if (total_ <= 0)
        for (const ModuleTimeBar& b : bars_)
            total_ += b.total();
    layoutSize_ = QSize();
    setMinimumHeight(sizeHint().height());  // a scroll area around it scrolls rather than squeezes
    updateGeometry();
    update();
}

ModuleTimeChart::Layout ModuleTimeChart::layout() const {
    if (!layoutSize_.isValid() || layoutSize_ != size()) {
        layout_ = computeLayout();
        layoutSize_ = size();
    }
    return layout_;
}

void ModuleTimeChart::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange)
        layoutSize_ = QSize();
    QWidget::changeEvent(event);
}

ModuleTimeChart::Layout ModuleTimeChart::computeLayout() const {
    const QFontMetricsF metrics(font());
    Layout l;
    l.row = metrics.height() + 6;
    l.top = l.row + 6;  // the legend
    double widest = 0;
    for (const ModuleTimeBar& bar : bars_)
        widest = std::max(widest, metrics.horizontalAdvance(bar.label) + 12.0 * bar.depth);
    l.labelWidth = std::min(widest + 12, width() * 0.4);
    l.barLeft = l.labelWidth + 4;
    const double valueWidth = metrics.horizontalAdvance(QStringLiteral("000.00 ms (100.0%)")) + 8;
    l.barWidth = std::max(20.0, width() - l.barLeft - valueWidth);
    double longest = 0;
    for (const ModuleTimeBar& bar : bars_)
        longest = std::max(longest, bar.total());
    l.scale = longest > 0 ? l.barWidth / longest : 0;
    return l;
}

QRectF ModuleTimeChart::computeRect(std::size_t bar) const {
    if (bar >= bars_.size())
        return {};
    const Layout l = layout();
    const double y = l.top + static_cast<double>(bar) * l.row + 2;
    return QRectF(l.barLeft, y, bars_[bar].compute * l.scale, l.row - 4);
}

QRectF ModuleTimeChart::exposedRect(std::size_t bar) const {
    if (bar >= bars_.size())
        return {};
    const QRectF compute = computeRect(bar);
    const Layout l = layout();
    return QRectF(compute.right(), compute.top(), bars_[bar].exposed * l.scale, compute.height());
}

int ModuleTimeChart::barAt(QPointF point) const {
    const Layout l = layout();
    if (point.y() < l.top || l.row <= 0)
        return -1;
    const auto row = static_cast<std::size_t>((point.y() - l.top) / l.row);
    return row < bars_.size() ? static_cast<int>(row) : -1;
}

QSize ModuleTimeChart::sizeHint() const {
    const QFontMetrics metrics(font());
    return {560, (metrics.height() + 6) * (static_cast<int>(bars_.size()) + 1) + 12};
}

QSize ModuleTimeChart::minimumSizeHint() const {
    return {200, 60};
}

QString ModuleTimeChart::valueText(const ModuleTimeBar& bar) const {
    const double total = total_;
    return tr("%1 (%2%)")
        .arg(timeLabel(bar.total()))
        .arg(total > 0 ? 100 * bar.total() / total : 0, 0, 'f', 1);
}

void ModuleTimeChart::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    const QFontMetricsF metrics(font());
    const QColor text = palette().color(QPalette::Text);
    if (bars_.empty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("No time to show"));
        return;
    }
    const Layout l = layout();

    // Legend.
    double x = l.barLeft;
    const auto entry = [&](const QBrush& brush, const QString& name) {
        painter.fillRect(QRectF(x, 6, 12, metrics.height() - 4), brush);
        painter.setPen(text);
        painter.drawText(QPointF(x + 16, 4 + metrics.ascent()), name);
        x += 16 + metrics.horizontalAdvance(name) + 14;
    };
    entry(kComputeColor, tr("compute"));
    entry(kExposedColor, tr("exposed communication"));
    if (std::any_of(bars_.begin(), bars_.end(), [](const ModuleTimeBar& b) { return b.recompute > 0; }))
        entry(QBrush(kComputeColor.darker(150), Qt::BDiagPattern), tr("recompute (remat)"));

    for (std::size_t i = 0; i < bars_.size(); ++i) {
        const ModuleTimeBar& bar = bars_[i];
        const QRectF compute = computeRect(i), exposed = exposedRect(i);
        const double y = compute.top();
        if (i % 2 == 1)
            painter.fillRect(QRectF(0, y - 2, width(), l.row), palette().color(QPalette::AlternateBase));
        painter.setPen(text);
        const double indent = 4 + 12.0 * bar.depth;
        const QString label = metrics.elidedText(bar.label, Qt::ElideMiddle, l.labelWidth - indent);
        painter.drawText(QRectF(indent, y - 2, l.labelWidth - indent, l.row),
                         Qt::AlignLeft | Qt::AlignVCenter, label);
        painter.fillRect(compute, kComputeColor);
        if (bar.recompute > 0 && bar.compute > 0) {
            QRectF hatched = compute;
            hatched.setLeft(compute.right() - compute.width() * std::min(1.0, bar.recompute / bar.compute));
            painter.fillRect(hatched, QBrush(kComputeColor.darker(170), Qt::BDiagPattern));
        }
        painter.fillRect(exposed, kExposedColor);
        painter.setPen(text);
        painter.drawText(QRectF(exposed.right() + 6, y - 2, width() - exposed.right() - 6, l.row),
                         Qt::AlignLeft | Qt::AlignVCenter, valueText(bar));
    }
}

void ModuleTimeChart::mousePressEvent(QMouseEvent* event) {
    const int bar = barAt(event->position());
    if (event->button() == Qt::LeftButton && bar >= 0)
        emit barClicked(static_cast<std::size_t>(bar));
}

void ModuleTimeChart::mouseMoveEvent(QMouseEvent* event) {
    const int at = barAt(event->position());
    if (at < 0) {
        QToolTip::hideText();
        return;
    }
    const ModuleTimeBar& bar = bars_[static_cast<std::size_t>(at)];
    QString tip =
        bar.label + QStringLiteral("\n") +
        tr("compute %1, exposed communication %2").arg(timeLabel(bar.compute), timeLabel(bar.exposed));
    if (bar.collectives > bar.exposed)
        tip +=
            QStringLiteral("\n") +
            tr("its collectives take %1, the rest overlapped with compute").arg(timeLabel(bar.collectives));
    if (bar.recompute > 0)
        tip += QStringLiteral("\n") +
               tr("of the compute, %1 recomputes the forward (remat)").arg(timeLabel(bar.recompute));
    if (bar.firstOp >= 0)
        tip += QStringLiteral("\n") + tr("Click to show its first op");
    QToolTip::showText(event->globalPosition().toPoint(), tip, this);
}

}  // namespace shardscope::ui
