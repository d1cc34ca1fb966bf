// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/pipeline_view.h"

#include <algorithm>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include "core/pipeline_choices.h"
#include "core/plan_breakdown.h"
#include "core/plan_editor.h"

namespace shardscope::ui {

namespace {

constexpr double kHitSlop = 2;
constexpr int kLegendMicrobatches = 10;  // the palette's length: later microbatches repeat its colours

// Dark text on light boxes (forwards), white on dark ones.
QColor inkOn(const QColor& fill) {
    return fill.lightnessF() > 0.6 ? QColor(0x1f, 0x29, 0x33) : Qt::white;
}

}  // namespace

// --- PipelineCanvas ---

PipelineCanvas::PipelineCanvas(QWidget* parent) : TimeCanvas(DragStart::AlongTime, parent) {
    setObjectName(QStringLiteral("pipelineCanvas"));
}

QSize PipelineCanvas::sizeHint() const {
    return {760, 240};
}

QSize PipelineCanvas::minimumSizeHint() const {
    return {240, 6 * fontMetrics().height()};
}

bool PipelineCanvas::hasContent() const {
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
    contentChanged();
    update();
}

// A strip above the rows for the step marker; the rows, labelled on the left with the stage's name and its
// peak memory and in-flight count; the time axis; the legend.
PipelineCanvas::Geometry PipelineCanvas::geometry() const {
    const QFontMetricsF metrics(font());
    Geometry g;
    g.lineHeight = metrics.height();
    double labels = metrics.horizontalAdvance(axisTitle());
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

QRectF PipelineCanvas::boxRect(std::size_t box) const {
    if (!hasContent() || box >= chart_->boxes.size())
        return {};
    const Geometry g = geometry();
    const PipelineBox& b = chart_->boxes[box];
    const double x0 = xOf(b.start);
    const double top = g.plot.top() + b.row * g.rowHeight + 4;
    return QRectF(x0, top, std::max(xOf(b.end) - x0, 1.0), g.rowHeight - 8);
}

const PipelineBox* PipelineCanvas::boxAt(QPointF point) const {
    if (!hasContent())
        return nullptr;
    const Geometry g = geometry();
    if (!g.plot.contains(point) || g.rowHeight <= 0)
        return nullptr;
    const int row = static_cast<int>((point.y() - g.plot.top()) / g.rowHeight);
    const auto [first, last] = chart_->rowBoxes(row);
    const double t = timeAt(point.x());
    const double slop = kHitSlop * viewSpan() / g.plot.width();
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
    if (!hasContent())
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

void PipelineCanvas::paintRows(QPainter& painter) const {
    const Geometry g = geometry();
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

void PipelineCanvas::paintBoxes(QPainter& painter) const {
    const Geometry g = geometry();
    // A few hundred tasks at most per stage: each drawn on its own, a pixel apart once wide enough, labelled
    // (F3, B3) once the label fits. Backwards carry a hatch as well as their darker shade.
    const QFontMetricsF metrics(font());
    for (const PipelineBox& box : chart_->boxes) {
        if (box.end < viewStart() || box.start > viewEnd())
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

void PipelineCanvas::paintLegend(QPainter& painter) const {
    const Geometry g = geometry();
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

// --- PipelineView ---

PipelineView::PipelineView(PlanEditor* editor, QWidget* parent)
    : QWidget(parent),
      editor_(editor),
      charter_(new PipelineCharter(this)),
      canvas_(new PipelineCanvas(this)),
      header_(new QLabel(this)),
      problem_(new QLabel(this)),
      message_(new QLabel(this)),
      zoom_(canvas_, this),
      toggle_(new QPushButton(this)),
      axis_(new QComboBox(this)),
      stages_(new QComboBox(this)),
      schedule_(new QComboBox(this)),
      virtual_(new QSpinBox(this)),
      microbatches_(new QSpinBox(this)) {
    setObjectName(QStringLiteral("pipelineView"));
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
    zoom_.addTo(top);
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

    connect(charter_, &PipelineCharter::charted, this, [this](std::shared_ptr<const PipelineChart> chart) {
        header_->setText(chart ? chart->header : QString());
        problem_->setText(chart && !chart->problem.isEmpty()
                              ? tr("Cannot run as staged: %1").arg(chart->problem)
                              : QString());
        problem_->setVisible(!problem_->text().isEmpty());
        canvas_->setChart(std::move(chart));
        zoom_.setEnabled(canvas_->chart() && canvas_->chart()->staged);
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
