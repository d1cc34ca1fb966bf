// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/pipeline_view.h"

#include <algorithm>
#include <cmath>

#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "core/pipeline_choices.h"
#include "core/plan_breakdown.h"
#include "core/plan_editor.h"

namespace shardscope::ui {

namespace {

constexpr double kFitMargin = 0.02;
constexpr double kMinSpan = 1e-9;
constexpr double kHitSlop = 2;
constexpr double kDragThreshold = 4;
constexpr int kLegendMicrobatches = 10;  // the palette's length: later microbatches repeat its colours

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

// Dark text on light boxes (forwards), white on dark ones.
QColor inkOn(const QColor& fill) {
    return fill.lightnessF() > 0.6 ? QColor(0x1f, 0x29, 0x33) : Qt::white;
}

}  // namespace

// --- PipelineCanvas ---

PipelineCanvas::PipelineCanvas(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("pipelineCanvas"));
    setMouseTracking(true);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    setFocusPolicy(Qt::ClickFocus);
}

QSize PipelineCanvas::sizeHint() const {
    return {760, 240};
}

QSize PipelineCanvas::minimumSizeHint() const {
    return {240, 6 * fontMetrics().height()};
}

bool PipelineCanvas::drawable() const {
    return chart_ && chart_->staged && !chart_->rows.empty();
}

QString PipelineCanvas::placeholderText() const {
    if (!chart_)
        return tr("No plan evaluated yet");
    if (!chart_->staged)
        return chart_->absent;
    if (chart_->rows.empty())
        return tr("The staged plan has no schedule to draw");
    return {};
}

void PipelineCanvas::setChart(std::shared_ptr<const PipelineChart> chart) {
    chart_ = std::move(chart);
    tip_.clear();
    if (fitted_ || !drawable())
        fit();
    else
        setView(viewStart_, viewSpan_);
    update();
}

double PipelineCanvas::fullSpan() const {
    const double step = chart_ ? chart_->stepTime : 0;
    return step > 0 ? step * (1 + kFitMargin) : 1e-3;
}

void PipelineCanvas::setView(double start, double span) {
    const double full = fullSpan();
    span = std::clamp(span, std::min(kMinSpan, full), full);
    start = std::clamp(start, 0.0, full - span);
    viewStart_ = start;
    viewSpan_ = span;
    update();
}

void PipelineCanvas::fit() {
    fitted_ = true;
    setView(0, fullSpan());
}

void PipelineCanvas::zoomBy(double factor, std::optional<double> anchor) {
    if (!drawable() || factor <= 0)
        return;
    const QRectF plot = plotArea();
    const double x = std::clamp(anchor.value_or(plot.center().x()), plot.left(), plot.right());
    const double t = timeAt(x);
    const double span = std::clamp(viewSpan_ / factor, std::min(kMinSpan, fullSpan()), fullSpan());
    fitted_ = false;
    setView(t - (x - plot.left()) / plot.width() * span, span);
}

void PipelineCanvas::panBy(double pixels) {
    if (!drawable())
        return;
    fitted_ = false;
    setView(viewStart_ + pixels * viewSpan_ / plotArea().width(), viewSpan_);
}

// A strip above the rows for the step marker; the rows, labelled on the left with the stage's name and its
// peak memory and in-flight count; the time axis; the legend.
PipelineCanvas::Geometry PipelineCanvas::geometry() const {
    const QFontMetricsF metrics(font());
    Geometry g;
    g.lineHeight = metrics.height();
    double labels = metrics.horizontalAdvance(tr("time (ms)"));
    const int rows = chart_ ? static_cast<int>(chart_->rows.size()) : 0;
    if (chart_)
        for (const PipelineRow& row : chart_->rows)
            labels = std::max({labels, metrics.horizontalAdvance(row.name),
                               metrics.horizontalAdvance(pipelineRowDetail(row))});
    const double left = std::min(labels + 18, width() * 0.4);
    const double top = g.lineHeight + 6;
    const double below = 6 + g.lineHeight + 6 + 2 * (g.lineHeight + 2) + 4;  // axis labels, two legend lines
    const double room = std::max(1.0, height() - top - below);
    g.rowHeight = rows > 0 ? std::clamp(room / rows, 2 * g.lineHeight + 6, 3 * g.lineHeight + 12) : 0;
    g.plot = QRectF(left, top, std::max(10.0, width() - left - 10), g.rowHeight * rows);
    return g;
}

QRectF PipelineCanvas::plotArea() const {
    return geometry().plot;
}

double PipelineCanvas::xOf(double seconds) const {
    const QRectF plot = plotArea();
    return plot.left() + (seconds - viewStart_) / viewSpan_ * plot.width();
}

double PipelineCanvas::timeAt(double x) const {
    const QRectF plot = plotArea();
    return viewStart_ + (x - plot.left()) / plot.width() * viewSpan_;
}

QRectF PipelineCanvas::boxRect(std::size_t box) const {
    if (!drawable() || box >= chart_->boxes.size())
        return {};
    const Geometry g = geometry();
    const PipelineBox& b = chart_->boxes[box];
    const double x0 = xOf(b.start);
    const double top = g.plot.top() + b.row * g.rowHeight + 4;
    return QRectF(x0, top, std::max(xOf(b.end) - x0, 1.0), g.rowHeight - 8);
}

const PipelineBox* PipelineCanvas::boxAt(QPointF point) const {
    if (!drawable())
        return nullptr;
    const Geometry g = geometry();
    if (!g.plot.contains(point) || g.rowHeight <= 0)
        return nullptr;
    const int row = static_cast<int>((point.y() - g.plot.top()) / g.rowHeight);
    const auto [first, last] = chart_->rowBoxes(row);
    const double t = timeAt(point.x());
    const double slop = kHitSlop * viewSpan_ / g.plot.width();
    const PipelineBox* best = nullptr;
    double bestDistance = slop;
    for (std::size_t i = first; i < last; ++i) {
        const PipelineBox& box = chart_->boxes[i];
        const double distance = t < box.start ? box.start - t : (t >= box.end ? t - box.end : 0);
        if (distance <= bestDistance && (!best || distance < bestDistance)) {
            best = &box;
            bestDistance = distance;
        }
    }
    return best;
}

QString PipelineCanvas::tipAt(QPointF point) const {
    if (const PipelineBox* box = boxAt(point))
        return describePipelineBox(*chart_, *box);
    if (!drawable())
        return {};
    const Geometry g = geometry();
    // Over a row's label: the stage's figures in full.
    if (point.x() < g.plot.left() && point.y() >= g.plot.top() && point.y() < g.plot.bottom()) {
        const auto row = static_cast<std::size_t>((point.y() - g.plot.top()) / g.rowHeight);
        if (row >= chart_->rows.size())
            return {};
        const PipelineRow& r = chart_->rows[row];
        QStringList chunks;
        for (std::size_t c = 0; c < chart_->chunks.size(); ++c)
            if (chart_->chunks[c].row == static_cast<int>(row))
                chunks << tr("chunk %1: %2").arg(c).arg(chart_->chunks[c].blocks);
        return tr("%1\npeak memory %2 per device\nat most %3 microbatch chunks in flight\nbusy %4, done at "
                  "%5")
                   .arg(r.name, bytesLabel(r.peakMemory))
                   .arg(r.inFlight)
                   .arg(timeLabel(r.busyTime), timeLabel(r.end)) +
               (chunks.isEmpty() ? QString() : QStringLiteral("\n") + chunks.join(u'\n'));
    }
    if (g.plot.contains(point))
        return tr("idle: the pipeline's bubble");
    return {};
}

void PipelineCanvas::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    if (!drawable()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect().adjusted(12, 8, -12, -8), Qt::AlignCenter | Qt::TextWordWrap,
                         placeholderText());
        return;
    }
    const Geometry g = geometry();
    paintRows(painter, g);
    paintAxis(painter, g);
    painter.save();
    painter.setClipRect(g.plot);
    paintBoxes(painter, g);
    painter.restore();
    // The step's end.
    const double end = xOf(chart_->stepTime);
    if (end >= g.plot.left() - 1 && end <= g.plot.right() + 1) {
        const QColor text = palette().color(QPalette::Text);
        painter.setPen(QPen(text, 1.5, Qt::DashLine));
        painter.drawLine(QPointF(end, 2), QPointF(end, g.plot.bottom()));
        const QString label = tr("step %1").arg(timeLabel(chart_->stepTime));
        const double w = QFontMetricsF(font()).horizontalAdvance(label) + 8;
        painter.setPen(text);
        painter.drawText(QRectF(end + w <= width() ? end + 4 : end - w, 0, w, g.lineHeight + 4),
                         Qt::AlignLeft | Qt::AlignVCenter, label);
    }
    paintLegend(painter, g);
}

void PipelineCanvas::paintRows(QPainter& painter, const Geometry& g) const {
    // A stage's colour at the left of its label: the graph's stage bands use the same.
    const QFontMetricsF metrics(font());
    const double labelWidth = g.plot.left() - 14;
    for (std::size_t r = 0; r < chart_->rows.size(); ++r) {
        const QRectF row(0, g.plot.top() + static_cast<double>(r) * g.rowHeight, width(), g.rowHeight);
        if (r % 2 == 1)
            painter.fillRect(row, palette().color(QPalette::AlternateBase));
        if (chart_->hasPipeline)
            painter.fillRect(QRectF(1, row.top() + 4, 4, row.height() - 8),
                             pipelineStageColor(static_cast<int>(r)));
        const double middle = row.center().y();
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(QRectF(8, middle - g.lineHeight, labelWidth, g.lineHeight),
                         Qt::AlignLeft | Qt::AlignBottom,
                         metrics.elidedText(chart_->rows[r].name, Qt::ElideRight, labelWidth));
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(QRectF(8, middle, labelWidth, g.lineHeight), Qt::AlignLeft | Qt::AlignTop,
                         metrics.elidedText(pipelineRowDetail(chart_->rows[r]), Qt::ElideRight, labelWidth));
    }
}

void PipelineCanvas::paintAxis(QPainter& painter, const Geometry& g) const {
    const QRectF& plot = g.plot;
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
        painter.drawText(QRectF(x - 50, plot.bottom() + 5, 100, g.lineHeight),
                         Qt::AlignHCenter | Qt::AlignTop, QString::number(ms, 'f', decimals));
    }
    painter.drawText(QRectF(6, plot.bottom() + 5, plot.left() - 12, g.lineHeight),
                     Qt::AlignLeft | Qt::AlignTop, tr("time (ms)"));
    painter.setPen(QPen(grid, 0));
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
}

void PipelineCanvas::paintBoxes(QPainter& painter, const Geometry& g) const {
    // A few hundred tasks at most per stage: each drawn on its own, a pixel apart once wide enough, labelled
    // (F3, B3) once the label fits. Backwards carry a hatch as well as their darker shade.
    const QFontMetricsF metrics(font());
    for (const PipelineBox& box : chart_->boxes) {
        if (box.end < viewStart_ || box.start > viewEnd())
            continue;
        const double x0 = xOf(box.start), x1 = xOf(box.end);
        const double w = x1 - x0 >= 3 ? x1 - x0 - 1 : std::max(x1 - x0, 1.0);
        const double top = g.plot.top() + box.row * g.rowHeight + 4;
        const QRectF r(x0, top, w, g.rowHeight - 8);
        painter.fillRect(r, box.color);
        if (box.kind == PipelineBoxKind::Backward && w >= 4) {
            QColor hatch = box.color.darker(150);
            hatch.setAlpha(110);
            painter.fillRect(r, QBrush(hatch, Qt::BDiagPattern));
        }
        const QString label = pipelineBoxLabel(box);
        if (metrics.horizontalAdvance(label) + 4 <= w) {
            painter.setPen(inkOn(box.color));
            painter.drawText(r, Qt::AlignCenter, label);
        }
    }
}

void PipelineCanvas::paintLegend(QPainter& painter, const Geometry& g) const {
    // First line: a light and a dark swatch per microbatch colour; second: the once-per-step tasks.
    const QFontMetricsF metrics(font());
    const double line = g.lineHeight + 2;
    double y = g.plot.bottom() + 6 + g.lineHeight + 6;
    double x = 6;
    painter.setPen(palette().color(QPalette::Text));
    const QString lead = tr("microbatch (light forward, dark backward):");
    painter.drawText(QPointF(x, y + metrics.ascent()), lead);
    x += metrics.horizontalAdvance(lead) + 8;
    const int shown = std::min(chart_->microbatches, kLegendMicrobatches);
    for (int m = 0; m < shown && x + 40 < width(); ++m) {
        painter.fillRect(QRectF(x, y + 2, 8, g.lineHeight - 4),
                         pipelineBoxColor(PipelineBoxKind::Forward, m));
        painter.fillRect(QRectF(x + 8, y + 2, 8, g.lineHeight - 4),
                         pipelineBoxColor(PipelineBoxKind::Backward, m));
        painter.setPen(palette().color(QPalette::Text));
        const QString number = QString::number(m);
        painter.drawText(QPointF(x + 19, y + metrics.ascent()), number);
        x += 19 + metrics.horizontalAdvance(number) + 10;
    }
    if (chart_->microbatches > kLegendMicrobatches && x + 40 < width())
        painter.drawText(QPointF(x, y + metrics.ascent()), tr("(colours repeat)"));
    y += line;
    x = 6;
    for (PipelineBoxKind kind : {PipelineBoxKind::GradientSync, PipelineBoxKind::Update}) {
        painter.fillRect(QRectF(x, y + 2, 12, g.lineHeight - 4), pipelineBoxColor(kind, -1));
        painter.setPen(palette().color(QPalette::Text));
        const QString name = pipelineBoxKindName(kind);
        painter.drawText(QPointF(x + 16, y + metrics.ascent()), name);
        x += 16 + metrics.horizontalAdvance(name) + 14;
    }
    painter.drawText(QPointF(x, y + metrics.ascent()), tr("empty: idle (the bubble)"));
}

void PipelineCanvas::wheelEvent(QWheelEvent* event) {
    event->accept();
    if (!drawable())
        return;
    const QPoint delta = event->angleDelta();
    if (std::abs(delta.x()) > std::abs(delta.y())) {
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

void PipelineCanvas::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !drawable()) {
        QWidget::mousePressEvent(event);
        return;
    }
    pressedAt_ = event->position();
    pressedViewStart_ = viewStart_;
    dragging_ = false;
    event->accept();
}

void PipelineCanvas::mouseMoveEvent(QMouseEvent* event) {
    if (pressedAt_ && (event->buttons() & Qt::LeftButton)) {
        const double dx = event->position().x() - pressedAt_->x();
        if (!dragging_ && std::abs(dx) >= kDragThreshold) {
            dragging_ = true;
            setCursor(Qt::ClosedHandCursor);
            QToolTip::hideText();
        }
        if (dragging_) {
            fitted_ = false;
            setView(pressedViewStart_ - dx * viewSpan_ / plotArea().width(), viewSpan_);
        }
        return;
    }
    const QString tip = tipAt(event->position());
    if (tip == tip_)
        return;
    tip_ = tip;
    if (tip_.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), tip_, this);
}

void PipelineCanvas::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !pressedAt_) {
        QWidget::mouseReleaseEvent(event);
        return;
    }
    pressedAt_.reset();
    dragging_ = false;
    unsetCursor();
}

void PipelineCanvas::keyPressEvent(QKeyEvent* event) {
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

void PipelineCanvas::leaveEvent(QEvent*) {
    tip_.clear();
    QToolTip::hideText();
}

// --- PipelineView ---

PipelineView::PipelineView(PlanEditor* editor, QWidget* parent)
    : QWidget(parent),
      editor_(editor),
      charter_(new PipelineCharter(this)),
      canvas_(new PipelineCanvas(this)),
      header_(new QLabel(this)),
      problem_(new QLabel(this)),
      message_(new QLabel(this)),
      fit_(new QToolButton(this)),
      zoomIn_(new QToolButton(this)),
      zoomOut_(new QToolButton(this)),
      toggle_(new QPushButton(this)),
      axis_(new QComboBox(this)),
      stages_(new QComboBox(this)),
      schedule_(new QComboBox(this)),
      virtual_(new QSpinBox(this)),
      microbatches_(new QSpinBox(this)) {
    setObjectName(QStringLiteral("pipelineView"));
    fit_->setText(tr("Fit"));
    fit_->setToolTip(tr("Show the whole step (0)"));
    zoomIn_->setText(QStringLiteral("+"));
    zoomIn_->setToolTip(tr("Zoom in (wheel up, +)"));
    zoomOut_->setText(QStringLiteral("−"));
    zoomOut_->setToolTip(tr("Zoom out (wheel down, −)"));
    header_->setObjectName(QStringLiteral("pipelineHeader"));
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    header_->setWordWrap(true);
    problem_->setObjectName(QStringLiteral("pipelineProblem"));
    problem_->setWordWrap(true);
    problem_->setStyleSheet(QStringLiteral("color: #c62828;"));
    message_->setObjectName(QStringLiteral("pipelineMessage"));
    message_->setWordWrap(true);
    message_->setStyleSheet(QStringLiteral("color: #c62828;"));
    toggle_->setObjectName(QStringLiteral("pipelineToggle"));
    axis_->setObjectName(QStringLiteral("pipelineAxis"));
    stages_->setObjectName(QStringLiteral("pipelineStages"));
    schedule_->setObjectName(QStringLiteral("pipelineSchedule"));
    virtual_->setObjectName(QStringLiteral("pipelineVirtualStages"));
    microbatches_->setObjectName(QStringLiteral("pipelineMicrobatches"));
    axis_->setToolTip(tr("The mesh axis whose devices hold the stages"));
    stages_->setToolTip(
        tr("Stages: a divisor of the axis size; the rest of the axis stays an ordinary axis"));
    const QStringList schedules = pipelineScheduleNames();
    for (int s = 0; s < schedules.size(); ++s) {
        schedule_->addItem(schedules[s]);
        schedule_->setItemData(s, pipelineScheduleDescription(s), Qt::ToolTipRole);
    }
    virtual_->setRange(1, 64);
    virtual_->setToolTip(tr("Chunks of layers per device (2 or more with the interleaved schedule)"));
    microbatches_->setRange(1, 1 << 16);
    microbatches_->setToolTip(
        tr("The step's batch runs as this many microbatches one after another; without a pipeline their "
           "gradients accumulate (gradient accumulation)"));
    microbatches_->setKeyboardTracking(false);
    virtual_->setKeyboardTracking(false);

    auto* top = new QHBoxLayout;
    top->setContentsMargins(4, 2, 4, 0);
    top->addWidget(fit_);
    top->addWidget(zoomOut_);
    top->addWidget(zoomIn_);
    top->addSpacing(8);
    top->addWidget(header_, 1);
    auto* controls = new QHBoxLayout;
    controls->setContentsMargins(4, 0, 4, 2);
    controls->addWidget(toggle_);
    controls->addSpacing(6);
    const auto labelled = [&](const QString& text, QWidget* field) {
        auto* label = new QLabel(text, this);
        label->setBuddy(field);
        controls->addWidget(label);
        controls->addWidget(field);
        controls->addSpacing(6);
    };
    labelled(tr("&Axis"), axis_);
    labelled(tr("S&tages"), stages_);
    labelled(tr("Sc&hedule"), schedule_);
    labelled(tr("&Virtual stages"), virtual_);
    labelled(tr("&Microbatches"), microbatches_);
    controls->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(top);
    layout->addWidget(canvas_, 1);
    layout->addWidget(problem_);
    layout->addLayout(controls);
    layout->addWidget(message_);

    connect(fit_, &QToolButton::clicked, canvas_, &PipelineCanvas::fit);
    connect(zoomIn_, &QToolButton::clicked, canvas_, [this] { canvas_->zoomBy(1.5); });
    connect(zoomOut_, &QToolButton::clicked, canvas_, [this] { canvas_->zoomBy(1 / 1.5); });
    connect(charter_, &PipelineCharter::charted, this, [this](std::shared_ptr<const PipelineChart> chart) {
        header_->setText(chart ? chart->header : QString());
        problem_->setText(chart && !chart->problem.isEmpty()
                              ? tr("Cannot run as staged: %1").arg(chart->problem)
                              : QString());
        problem_->setVisible(!problem_->text().isEmpty());
        canvas_->setChart(std::move(chart));
        for (QToolButton* button : {fit_, zoomIn_, zoomOut_})
            button->setEnabled(canvas_->chart() && canvas_->chart()->staged);
    });
    connect(toggle_, &QPushButton::clicked, this, &PipelineView::toggle);
    connect(axis_, &QComboBox::activated, this, [this] {
        fillStages(axis_->currentData().toInt(), stages_->currentData().toInt());
        applyDraft();
    });
    connect(stages_, &QComboBox::activated, this, &PipelineView::applyDraft);
    connect(schedule_, &QComboBox::activated, this, [this](int schedule) {
        // Virtual stages go with the interleaved schedule and only with it.
        const bool interleaved = schedule == static_cast<int>(plan::PipelineSchedule::Interleaved);
        const QSignalBlocker blocker(virtual_);
        if (interleaved && virtual_->value() < 2)
            virtual_->setValue(2);
        if (!interleaved)
            virtual_->setValue(1);
        applyDraft();
    });
    connect(virtual_, &QSpinBox::valueChanged, this, &PipelineView::applyDraft);
    connect(microbatches_, &QSpinBox::valueChanged, this, &PipelineView::applyMicrobatches);
    connect(editor_, &PlanEditor::planChanged, this, &PipelineView::refresh);
    showState(nullptr, nullptr);
    refresh();
}

void PipelineView::showState(std::shared_ptr<const ProblemView> problem,
                             std::shared_ptr<const PlanState> state) {
    charter_->chart(std::move(problem), std::move(state));
}

QString PipelineView::headerText() const {
    return header_->text();
}

QString PipelineView::problemText() const {
    return problem_->text();
}

QString PipelineView::messageText() const {
    return message_->text();
}

void PipelineView::setMessage(const QString& text) {
    message_->setText(text.isEmpty() ? QString() : tr("Cannot run: %1").arg(text));
    message_->setVisible(!text.isEmpty());
}

void PipelineView::fillStages(int axis, int stages) {
    const auto& problem = editor_->problem();
    const QSignalBlocker blocker(stages_);
    stages_->clear();
    if (!problem)
        return;
    const int layers = pipelineLayerCount(*problem);
    int chosen = -1, largest = -1;
    for (int s : pipelineStageChoices(problem->mesh(), axis)) {
        stages_->addItem(QString::number(s), s);
        if (s == stages)
            chosen = stages_->count() - 1;
        if (s <= layers)
            largest = stages_->count() - 1;
    }
    stages_->setCurrentIndex(chosen >= 0 ? chosen : std::max(largest, stages_->count() - 1));
}

void PipelineView::refresh() {
    refreshing_ = true;
    const auto& problem = editor_->problem();
    const plan::Plan& plan = editor_->plan();
    std::optional<plan::Pipeline> shown = plan.pipeline;
    int microbatches = plan.microbatches;
    if (!shown && problem) {
        int suggested = 1;
        shown = suggestedPipeline(*problem, plan, &suggested);
    }
    {
        const QSignalBlocker a(axis_), s(schedule_), v(virtual_), m(microbatches_);
        axis_->clear();
        if (problem)
            for (int i = 0; i < static_cast<int>(problem->mesh().axes.size()); ++i)
                axis_->addItem(pipelineAxisLabel(problem->mesh(), i), i);
        const plan::Pipeline p = shown.value_or(plan::Pipeline{});
        axis_->setCurrentIndex(axis_->findData(p.axis));
        fillStages(p.axis, p.stages);
        schedule_->setCurrentIndex(static_cast<int>(p.schedule));
        virtual_->setValue(p.virtualStages);
        microbatches_->setValue(microbatches);
    }
    const bool has = plan.pipeline.has_value();
    toggle_->setText(has ? tr("Remove pipeline") : tr("Add pipeline"));
    toggle_->setToolTip(has ? tr("Run the step without pipeline stages (the microbatches stay)")
                            : tr("Split the model's layers into stages over the chosen axis"));
    toggle_->setEnabled(problem && (has || shown));
    for (QWidget* w : std::initializer_list<QWidget*>{axis_, stages_, schedule_})
        w->setEnabled(problem && shown && stages_->count() > 0);
    virtual_->setEnabled(problem && shown &&
                         schedule_->currentIndex() == static_cast<int>(plan::PipelineSchedule::Interleaved));
    microbatches_->setEnabled(problem != nullptr);
    setMessage(QString());
    refreshing_ = false;
}

std::optional<plan::Pipeline> PipelineView::draft() const {
    if (axis_->currentIndex() < 0 || stages_->currentIndex() < 0)
        return std::nullopt;
    plan::Pipeline p;
    p.axis = axis_->currentData().toInt();
    p.stages = stages_->currentData().toInt();
    p.schedule = static_cast<plan::PipelineSchedule>(std::max(0, schedule_->currentIndex()));
    p.virtualStages = virtual_->value();
    // The user's layer split (from a plan file) holds while the chunks stay the same.
    const auto& current = editor_->plan().pipeline;
    if (current && current->stages == p.stages && current->virtualStages == p.virtualStages)
        p.layersPerStage = current->layersPerStage;
    return p;
}

void PipelineView::applyDraft() {
    virtual_->setEnabled(schedule_->currentIndex() == static_cast<int>(plan::PipelineSchedule::Interleaved));
    if (refreshing_ || !editor_->plan().pipeline)
        return;  // without a pipeline the controls are a draft until "Add pipeline"
    const auto pipeline = draft();
    if (!pipeline) {
        setMessage(tr("a pipeline needs an axis of 2 or more devices"));
        return;
    }
    setMessage(editor_->setStaging(microbatches_->value(), pipeline));
}

void PipelineView::toggle() {
    if (editor_->plan().pipeline) {
        setMessage(editor_->setStaging(editor_->plan().microbatches, std::nullopt));
        return;
    }
    const auto pipeline = draft();
    if (!pipeline)
        return;
    // A pipeline of one microbatch is all bubble: start from what the suggestion found can run.
    int microbatches = microbatches_->value();
    if (microbatches <= 1 && editor_->problem())
        microbatches = suggestedMicrobatches(*editor_->problem(), editor_->plan(), *pipeline);
    setMessage(editor_->setStaging(microbatches, pipeline));
}

void PipelineView::applyMicrobatches() {
    if (refreshing_)
        return;
    // With a pipeline, the controls' (the plan's own while they show an axis that cannot hold one).
    std::optional<plan::Pipeline> pipeline = editor_->plan().pipeline;
    if (pipeline)
        if (const auto drafted = draft())
            pipeline = drafted;
    setMessage(editor_->setStaging(microbatches_->value(), pipeline));
}

}  // namespace shardscope::ui
