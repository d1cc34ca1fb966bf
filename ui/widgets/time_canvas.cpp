// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/time_canvas.h"

#include <algorithm>
#include <cmath>

#include <QBoxLayout>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolButton>
#include <QToolTip>
#include <QWheelEvent>

#include "core/plan_breakdown.h"

namespace shardscope::ui {

namespace {

constexpr double kFitMargin = 0.02;   // of the step, right of its end: room for the step marker
constexpr double kMinSpan = 1e-9;     // seconds: zoom stops at a nanosecond across the plot
constexpr double kDragThreshold = 4;  // px a press moves before it is a drag, not a click

// A round step for axis ticks: 1, 2 or 5 times a power of ten.
double niceStep(double range, int ticks) {
    if (range <= 0)
        return 1;
    const double raw = range / ticks;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0})
        if (raw <= m * power)
            return m * power;
    return 10 * power;
}

}  // namespace

TimeCanvas::TimeCanvas(DragStart dragStart, QWidget* parent) : QWidget(parent), dragStart_(dragStart) {
    setMouseTracking(true);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    setFocusPolicy(Qt::ClickFocus);
}

void TimeCanvas::clickedAt(QPointF) {}

void TimeCanvas::contentChanged() {
    tip_.clear();
    if (fitted_ || !hasContent())
        fit();
    else
        setView(viewStart_, viewSpan_);  // clamped to the new step
}

QString TimeCanvas::axisTitle() const {
    return tr("time (ms)");
}

double TimeCanvas::fullSpan() const {
    const double step = stepTime();
    return step > 0 ? step * (1 + kFitMargin) : 1e-3;
}

void TimeCanvas::setView(double start, double span) {
    const double full = fullSpan();
    span = std::clamp(span, std::min(kMinSpan, full), full);
    start = std::clamp(start, 0.0, full - span);
    if (start == viewStart_ && span == viewSpan_)
        return;
    viewStart_ = start;
    viewSpan_ = span;
    update();
}

void TimeCanvas::fit() {
    fitted_ = true;
    setView(0, fullSpan());
}

void TimeCanvas::zoomBy(double factor, std::optional<double> anchor) {
    if (!hasContent() || factor <= 0)
        return;
    const QRectF plot = plotArea();
    const double x = std::clamp(anchor.value_or(plot.center().x()), plot.left(), plot.right());
    const double t = timeAt(x);
    const double span = std::clamp(viewSpan_ / factor, std::min(kMinSpan, fullSpan()), fullSpan());
    fitted_ = false;
    setView(t - (x - plot.left()) / plot.width() * span, span);
}

void TimeCanvas::panBy(double pixels) {
    if (!hasContent())
        return;
    fitted_ = false;
    setView(viewStart_ + pixels * viewSpan_ / plotArea().width(), viewSpan_);
}

double TimeCanvas::xOf(double seconds) const {
    const QRectF plot = plotArea();
    return plot.left() + (seconds - viewStart_) / viewSpan_ * plot.width();
}

double TimeCanvas::timeAt(double x) const {
    const QRectF plot = plotArea();
    return viewStart_ + (x - plot.left()) / plot.width() * viewSpan_;
}

void TimeCanvas::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    if (!hasContent()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect().adjusted(12, 8, -12, -8), Qt::AlignCenter | Qt::TextWordWrap,
                         placeholderText());
        return;
    }
    const QRectF plot = plotArea();
    const double lineHeight = QFontMetricsF(font()).height();
    paintRows(painter);
    paintAxis(painter, plot, lineHeight);
    painter.save();
    painter.setClipRect(plot);
    paintBoxes(painter);
    painter.restore();
    paintStepEnd(painter, plot, lineHeight);
    paintLegend(painter);
}

void TimeCanvas::paintAxis(QPainter& painter, const QRectF& plot, double lineHeight) const {
    // Round steps in ms, about 80 px apart, with as many decimals as the step needs; a faint line across the
    // rows at each.
    const double stepMs = niceStep(viewSpan_ * 1e3, std::max(2, static_cast<int>(plot.width() / 80)));
    const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(stepMs) + 1e-9)));
    const QColor grid = palette().color(QPalette::Mid);
    const QColor text = palette().color(QPalette::Text);
    const auto last = static_cast<long long>(std::floor(viewEnd() * 1e3 / stepMs));
    for (auto k = static_cast<long long>(std::ceil(viewStart_ * 1e3 / stepMs)); k <= last; ++k) {
        const double ms = static_cast<double>(k) * stepMs;
        const double x = xOf(ms * 1e-3);
        painter.setPen(QPen(grid.lighter(125), 0, Qt::DotLine));
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        painter.setPen(QPen(grid, 0));
        painter.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4));
        painter.setPen(text);
        painter.drawText(QRectF(x - 50, plot.bottom() + 5, 100, lineHeight), Qt::AlignHCenter | Qt::AlignTop,
                         QString::number(ms, 'f', decimals));
    }
    painter.drawText(QRectF(6, plot.bottom() + 5, plot.left() - 12, lineHeight), Qt::AlignLeft | Qt::AlignTop,
                     axisTitle());
    painter.setPen(QPen(grid, 0));
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
}

void TimeCanvas::paintStepEnd(QPainter& painter, const QRectF& plot, double lineHeight) const {
    const double step = stepTime();
    const double end = xOf(step);
    if (end < plot.left() - 1 || end > plot.right() + 1)
        return;
    const QColor text = palette().color(QPalette::Text);
    painter.setPen(QPen(text, 1.5, Qt::DashLine));
    painter.drawLine(QPointF(end, 2), QPointF(end, plot.bottom()));
    const QString label = tr("step %1").arg(timeLabel(step));
    const double w = QFontMetricsF(font()).horizontalAdvance(label) + 8;
    const double x = end + w <= width() ? end + 4 : end - w;
    painter.setPen(text);
    painter.drawText(QRectF(x, 0, w, lineHeight + 4), Qt::AlignLeft | Qt::AlignVCenter, label);
}

void TimeCanvas::wheelEvent(QWheelEvent* event) {
    // Always taken: the wheel zooms the canvas and never scrolls the panels around it.
    event->accept();
    if (!hasContent())
        return;
    const QPoint delta = event->angleDelta();
    if (std::abs(delta.x()) > std::abs(delta.y())) {  // a sideways wheel or touchpad swipe pans
        panBy(-delta.x() / 120.0 * plotArea().width() / 10);
        return;
    }
    if (event->modifiers() & Qt::ShiftModifier) {
        panBy(-delta.y() / 120.0 * plotArea().width() / 10);
        return;
    }
    if (delta.y() != 0)
        zoomBy(std::pow(1.25, delta.y() / 120.0), event->position().x());
}

void TimeCanvas::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !hasContent()) {
        QWidget::mousePressEvent(event);
        return;
    }
    pressedAt_ = event->position();
    pressedViewStart_ = viewStart_;
    dragging_ = false;
    event->accept();
}

void TimeCanvas::mouseMoveEvent(QMouseEvent* event) {
    if (pressedAt_ && (event->buttons() & Qt::LeftButton)) {
        const double dx = event->position().x() - pressedAt_->x();
        const double dy =
            dragStart_ == DragStart::AnyDirection ? std::abs(event->position().y() - pressedAt_->y()) : 0;
        if (!dragging_ && std::abs(dx) + dy >= kDragThreshold) {
            dragging_ = true;
            cursorBeforeDrag_.reset();
            if (testAttribute(Qt::WA_SetCursor))
                cursorBeforeDrag_ = cursor();
            setCursor(Qt::ClosedHandCursor);
            QToolTip::hideText();
        }
        if (dragging_) {
            fitted_ = false;
            setView(pressedViewStart_ - dx * viewSpan_ / plotArea().width(), viewSpan_);
        }
        return;
    }
    showTip(event->position(), event->globalPosition().toPoint());
}

void TimeCanvas::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !pressedAt_) {
        QWidget::mouseReleaseEvent(event);
        return;
    }
    const bool click = !dragging_;
    pressedAt_.reset();
    dragging_ = false;
    if (click) {
        clickedAt(event->position());
        return;
    }
    if (cursorBeforeDrag_)
        setCursor(*cursorBeforeDrag_);
    else
        unsetCursor();
}

void TimeCanvas::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_Plus:
        case Qt::Key_Equal:
            zoomBy(1.5);
            break;
        case Qt::Key_Minus:
            zoomBy(1 / 1.5);
            break;
        case Qt::Key_0:
            fit();
            break;
        case Qt::Key_Left:
            panBy(-plotArea().width() / 10);
            break;
        case Qt::Key_Right:
            panBy(plotArea().width() / 10);
            break;
        default:
            QWidget::keyPressEvent(event);
            return;
    }
    event->accept();
}

void TimeCanvas::leaveEvent(QEvent*) {
    tip_.clear();
    QToolTip::hideText();
}

void TimeCanvas::showTip(QPointF point, QPoint global) {
    const QString tip = tipAt(point);
    if (tip == tip_)
        return;
    tip_ = tip;
    if (tip_.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(global, tip_, this);
}

ZoomButtons::ZoomButtons(TimeCanvas* canvas, QWidget* parent)
    : fit(new QToolButton(parent)), zoomIn(new QToolButton(parent)), zoomOut(new QToolButton(parent)) {
    fit->setText(TimeCanvas::tr("Fit"));
    fit->setToolTip(TimeCanvas::tr("Show the whole step (0)"));
    zoomIn->setText(QStringLiteral("+"));
    zoomIn->setToolTip(TimeCanvas::tr("Zoom in (wheel up, +)"));
    zoomOut->setText(QStringLiteral("−"));
    zoomOut->setToolTip(TimeCanvas::tr("Zoom out (wheel down, −)"));
    QObject::connect(fit, &QToolButton::clicked, canvas, &TimeCanvas::fit);
    QObject::connect(zoomIn, &QToolButton::clicked, canvas, [canvas] { canvas->zoomBy(1.5); });
    QObject::connect(zoomOut, &QToolButton::clicked, canvas, [canvas] { canvas->zoomBy(1 / 1.5); });
}

void ZoomButtons::addTo(QBoxLayout* layout) const {
    layout->addWidget(fit);
    layout->addWidget(zoomOut);
    layout->addWidget(zoomIn);
}

void ZoomButtons::setEnabled(bool enabled) const {
    for (QToolButton* button : {fit, zoomIn, zoomOut})
        button->setEnabled(enabled);
}

}  // namespace shardscope::ui
