// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/timeline_view.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/plan_breakdown.h"

namespace shardscope::ui {

namespace {

// Colours of Tableau's palette, in TimelineKind's order; the idle shading in a red none of them uses.
const std::array<QColor, kTimelineKinds> kKindColors = {
    QColor(0x4e, 0x79, 0xa7),  // compute
    QColor(0xf2, 0x8e, 0x2b),  // all-gather
    QColor(0x59, 0xa1, 0x4f),  // reduce-scatter
    QColor(0xb0, 0x7a, 0xa1),  // all-reduce
    QColor(0xed, 0xc9, 0x48),  // all-to-all
    QColor(0x76, 0xb7, 0xb2),  // collective-permute
};
const QColor kIdleColor(0xe1, 0x57, 0x59, 120);
const QColor kRecomputeColor(0x8b, 0x1a, 0x8b);

constexpr double kNarrow = 0.5;  // px: boxes narrower than this are merged into spans
constexpr double kHitSlop = 3;   // px around a box that still hovers or clicks it

// Draws intervals narrower than kNarrow px, given in start order, as one rectangle per pixel column they
// touch: in the colour of the kind that covers most of the column, as opaque as they cover it (at least a
// little, so a lone short collective still shows). Neighbouring columns that come out alike are drawn as one
// rectangle.
class ColumnMerger {
public:
    ColumnMerger(QPainter& painter, double top, double height)
        : painter_(painter), top_(top), height_(height) {}
    ~ColumnMerger() { flush(); }
    ColumnMerger(const ColumnMerger&) = delete;
    ColumnMerger& operator=(const ColumnMerger&) = delete;

    void add(double x0, double x1, int kind, const QColor& color) {
        colors_[static_cast<std::size_t>(kind)] = color;
        while (x0 < x1) {
            const double column = std::floor(x0);
            const double end = std::min(x1, column + 1);
            if (!columnOpen_ || column != column_) {
                closeColumn();
                columnOpen_ = true;
                column_ = column;
                covered_.fill(0);
            }
            covered_[static_cast<std::size_t>(kind)] += end - x0;
            x0 = end;
        }
    }

    // Draws what is pending (before a wide box is drawn over it).
    void flush() {
        closeColumn();
        if (!runOpen_)
            return;
        runOpen_ = false;
        painter_.fillRect(QRectF(runStart_, top_, runEnd_ - runStart_, height_), runColor_);
    }

private:
    void closeColumn() {
        if (!columnOpen_)
            return;
        columnOpen_ = false;
        const auto most =
            static_cast<std::size_t>(std::max_element(covered_.begin(), covered_.end()) - covered_.begin());
        double total = 0;
        for (double c : covered_)
            total += c;
        QColor color = colors_[most];
        const double opacity = std::round(std::clamp(total, 0.35, 1.0) * 16) / 16;  // steps, so runs merge
        color.setAlphaF(static_cast<float>(opacity * color.alphaF()));
        if (runOpen_ && column_ == runEnd_ && color == runColor_) {
            runEnd_ = column_ + 1;
            return;
        }
        flush();
        runOpen_ = true;
        runStart_ = column_;
        runEnd_ = column_ + 1;
        runColor_ = color;
    }

    QPainter& painter_;
    double top_, height_;
    bool columnOpen_ = false;
    double column_ = 0;
    std::array<double, kTimelineKinds> covered_{};
    std::array<QColor, kTimelineKinds> colors_{};
    bool runOpen_ = false;
    double runStart_ = 0, runEnd_ = 0;
    QColor runColor_;
};

}  // namespace

// Where things go, from the font and the widget's size: a strip above the lanes for the step marker's label,
// the lanes (labels on the left), the time axis below them, then the legend.
struct TimelineCanvas::Geometry {
    QRectF plot;  // the lanes, right of their labels
    double laneHeight = 0;
    double lineHeight = 0;
};

const TimelineCanvas::Geometry& TimelineCanvas::geometry() const {
    if (geometry_ && geometryFor_ == size())
        return *geometry_;
    const QFontMetricsF metrics(font());
    geometry_ = std::make_unique<Geometry>();
    geometryFor_ = size();
    Geometry& g = *geometry_;
    g.lineHeight = metrics.height();
    double labels = metrics.horizontalAdvance(axisTitle());
    const int lanes = laneCount();
    if (timeline_)
        for (const TimelineLane& lane : timeline_->lanes)
            labels = std::max(labels, metrics.horizontalAdvance(lane.name));
    const double left = std::min(labels + 16, width() * 0.4);
    const double top = g.lineHeight + 6;
    const std::vector<QPointF> legend = placeLegend(0);
    const double legendHeight = legend.empty() ? 0 : legend.back().y() + g.lineHeight + 4;
    const double below = 6 + g.lineHeight + 6 + legendHeight;  // ticks and their labels, the legend
    const double room = std::max(1.0, height() - top - below);
    g.laneHeight = lanes > 0 ? std::clamp(room / lanes, g.lineHeight + 4, 2 * g.lineHeight + 10) : 0;
    g.plot = QRectF(left, top, std::max(10.0, width() - left - 10), g.laneHeight * lanes);
    return g;
}

TimelineCanvas::~TimelineCanvas() = default;

void TimelineCanvas::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange)
        geometry_.reset();
    TimeCanvas::changeEvent(event);
}

TimelineCanvas::TimelineCanvas(QWidget* parent) : TimeCanvas(DragStart::AnyDirection, parent) {
    setObjectName(QStringLiteral("timelineCanvas"));
    setCursor(Qt::OpenHandCursor);
}

QSize TimelineCanvas::sizeHint() const {
    return {760, 220};
}

QSize TimelineCanvas::minimumSizeHint() const {
    const int line = fontMetrics().height();
    return {240, 3 * line + 22 + std::max(1, laneCount()) * (line + 4)};
}

int TimelineCanvas::laneCount() const {
    return timeline_ ? static_cast<int>(timeline_->lanes.size()) : 0;
}

void TimelineCanvas::setTimeline(std::shared_ptr<const ScheduleTimeline> timeline,
                                 std::shared_ptr<const ProblemView> problem) {
    if (problem != problem_)
        selected_.reset();  // an op of another model
    timeline_ = std::move(timeline);
    problem_ = std::move(problem);
    geometry_.reset();
    // The legend: the kinds drawn, and the idle shading.
    legend_.clear();
    if (timeline_) {
        bool shown[kTimelineKinds] = {};
        for (const TimelineLane& lane : timeline_->lanes)
            for (const TimelineBox& box : lane.boxes)
                shown[static_cast<int>(box.kind)] = true;
        for (int k = 0; k < kTimelineKinds; ++k)
            if (shown[k])
                legend_.push_back({kKindColors[static_cast<std::size_t>(k)],
                                   timelineKindName(static_cast<TimelineKind>(k))});
        if (timeline_->idleTime > 0)
            legend_.push_back({kIdleColor, tr("compute idle (exposed communication)")});
        if (timeline_->recomputeCount() > 0)
            legend_.push_back({kRecomputeColor, tr("recompute (remat)"), Qt::BDiagPattern});
    }
    contentChanged();
    updateGeometry();
    update();
}

void TimelineCanvas::setSelectedOp(std::optional<std::size_t> bodyIndex) {
    if (selected_ == bodyIndex)
        return;
    selected_ = bodyIndex;
    update();
}

QRectF TimelineCanvas::plotArea() const {
    return geometry().plot;
}

QString TimelineCanvas::placeholderText() const {
    return timeline_ ? QString() : tr("No plan evaluated yet");
}

QRectF TimelineCanvas::boxRect(std::size_t lane, std::size_t box) const {
    if (!timeline_ || lane >= timeline_->lanes.size() || box >= timeline_->lanes[lane].boxes.size())
        return {};
    const Geometry& g = geometry();
    const TimelineBox& b = timeline_->lanes[lane].boxes[box];
    const double top = g.plot.top() + static_cast<double>(lane) * g.laneHeight + 3;
    const double x0 = xOf(b.start);
    return QRectF(x0, top, std::max(xOf(b.end) - x0, 1.0), g.laneHeight - 6);
}

const TimelineBox* TimelineCanvas::boxAt(QPointF point, std::size_t* lane) const {
    if (!timeline_)
        return nullptr;
    const Geometry& g = geometry();
    if (!g.plot.contains(point) || g.laneHeight <= 0)
        return nullptr;
    const auto l = static_cast<std::size_t>((point.y() - g.plot.top()) / g.laneHeight);
    if (l >= timeline_->lanes.size())
        return nullptr;
    const double t = timeAt(point.x());
    const double slop = kHitSlop * viewSpan() / g.plot.width();
    const auto [first, last] = timeline_->boxesIn(l, t - slop, t + slop);
    const TimelineBox* best = nullptr;
    double bestDistance = slop;
    for (std::size_t i = first; i < last; ++i) {
        const TimelineBox& box = timeline_->lanes[l].boxes[i];
        const double distance = t < box.start ? box.start - t : (t >= box.end ? t - box.end : 0);
        if (distance <= bestDistance &&
            (!best || distance < bestDistance || box.duration() < best->duration())) {
            best = &box;
            bestDistance = distance;
        }
    }
    if (best && lane)
        *lane = l;
    return best;
}

void TimelineCanvas::paintBoxes(QPainter& painter) const {
    const Geometry& g = geometry();
    paintIdle(painter, g);
    for (std::size_t l = 0; l < timeline_->lanes.size(); ++l)
        paintLane(painter, g, l);
    paintRecompute(painter, g);
    paintSelection(painter);
}

void TimelineCanvas::paintRecompute(QPainter& painter, const Geometry& g) const {
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    for (std::size_t l = 0; l < timeline_->lanes.size(); ++l) {
        const double top = g.plot.top() + static_cast<double>(l) * g.laneHeight + 3;
        const auto [first, last] = timeline_->boxesIn(l, viewStart(), viewEnd());
        for (std::size_t i = first; i < last; ++i) {
            const TimelineBox& box = timeline_->lanes[l].boxes[i];
            if (!box.recompute)
                continue;
            const double x0 = xOf(box.start), x1 = xOf(box.end);
            painter.fillRect(QRectF(x0, top, std::max(1.0, x1 - x0), g.laneHeight - 6),
                             QBrush(kRecomputeColor, Qt::BDiagPattern));
            const double x = std::clamp((x0 + x1) / 2, g.plot.left(), g.plot.right());
            QPolygonF mark;
            mark << QPointF(x - 4, top - 3) << QPointF(x + 4, top - 3) << QPointF(x, top + 3);
            painter.setPen(Qt::NoPen);
            painter.setBrush(kRecomputeColor);
            painter.drawPolygon(mark);
        }
    }
    painter.restore();
}

void TimelineCanvas::paintRows(QPainter& painter) const {
    const Geometry& g = geometry();
    const QFontMetricsF metrics(font());
    const double labelWidth = g.plot.left() - 12;
    for (std::size_t l = 0; l < timeline_->lanes.size(); ++l) {
        const QRectF lane(0, g.plot.top() + static_cast<double>(l) * g.laneHeight, width(), g.laneHeight);
        if (l % 2 == 1)
            painter.fillRect(lane, palette().color(QPalette::AlternateBase));
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(QRectF(6, lane.top(), labelWidth, lane.height()), Qt::AlignLeft | Qt::AlignVCenter,
                         metrics.elidedText(timeline_->lanes[l].name, Qt::ElideMiddle, labelWidth));
    }
}

void TimelineCanvas::paintIdle(QPainter& painter, const Geometry& g) const {
    // Full lane height behind the kernels, so a wait reads as a gap in the compute lane.
    const double top = g.plot.top() + 1, height = g.laneHeight - 2;
    ColumnMerger narrow(painter, top, height);
    const auto& idle = timeline_->idle;
    auto it = std::lower_bound(idle.begin(), idle.end(), viewStart(),
                               [](const TimelineSpan& s, double t) { return s.end < t; });
    for (; it != idle.end() && it->start < viewEnd(); ++it) {
        const double x0 = xOf(it->start), x1 = xOf(it->end);
        if (x1 - x0 < kNarrow) {
            narrow.add(x0, x1, 0, kIdleColor);
            continue;
        }
        narrow.flush();
        painter.fillRect(QRectF(x0, top, x1 - x0, height), kIdleColor);
    }
}

void TimelineCanvas::paintLane(QPainter& painter, const Geometry& g, std::size_t l) const {
    // Wide boxes one by one (a pixel apart once they are wide enough to tell apart, named once the name
    // fits), narrow ones merged by pixel column.
    const TimelineLane& lane = timeline_->lanes[l];
    const double top = g.plot.top() + static_cast<double>(l) * g.laneHeight + 3;
    const double height = g.laneHeight - 6;
    const QFontMetricsF metrics(font());
    ColumnMerger narrow(painter, top, height);
    const auto [first, last] = timeline_->boxesIn(l, viewStart(), viewEnd());
    for (std::size_t i = first; i < last; ++i) {
        const TimelineBox& box = lane.boxes[i];
        const auto kind = static_cast<std::size_t>(box.kind);
        const double x0 = xOf(box.start), x1 = xOf(box.end);
        if (x1 - x0 < kNarrow) {
            narrow.add(x0, x1, static_cast<int>(kind), kKindColors[kind]);
            continue;
        }
        narrow.flush();
        const double w = x1 - x0 >= 3 ? x1 - x0 - 1 : x1 - x0;
        painter.fillRect(QRectF(x0, top, w, height), kKindColors[kind]);
        if (w <= 40 || !problem_)
            continue;
        const double left = std::max(x0, g.plot.left()) + 3;
        const QRectF inside(left, top, std::min(x0 + w, g.plot.right()) - 3 - left, height);
        const QString name = timelineBoxLabel(*problem_, box);
        const QString label = metrics.elidedText(name, Qt::ElideLeft, inside.width());
        // A label's end says what it is (layers.3.mlp.fc1), if enough of it shows.
        if (label == name || label.size() >= 8) {
            painter.setPen(Qt::white);
            painter.drawText(inside, Qt::AlignLeft | Qt::AlignVCenter, label);
        }
    }
}

void TimelineCanvas::paintSelection(QPainter& painter) const {
    // The selected op's boxes outlined, at least a few pixels wide so that a narrow one shows.
    if (!selected_)
        return;
    painter.setPen(QPen(palette().color(QPalette::Highlight), 2));
    painter.setBrush(Qt::NoBrush);
    for (std::size_t l = 0; l < timeline_->lanes.size(); ++l) {
        const auto [first, last] = timeline_->boxesIn(l, viewStart(), viewEnd());
        for (std::size_t i = first; i < last; ++i) {
            if (timeline_->lanes[l].boxes[i].bodyIndex != *selected_)
                continue;
            QRectF r = boxRect(l, i);
            if (r.width() < 4)
                r.adjust(-(4 - r.width()) / 2, 0, (4 - r.width()) / 2, 0);
            painter.drawRect(r.adjusted(-1, -1, 1, 1));
        }
    }
}

void TimelineCanvas::paintLegend(QPainter& painter) const {
    const Geometry& g = geometry();
    const QFontMetricsF metrics(font());
    const std::vector<QPointF> at = placeLegend(g.plot.bottom() + 6 + g.lineHeight + 6);
    painter.setPen(palette().color(QPalette::Text));
    for (std::size_t i = 0; i < legend_.size(); ++i) {
        painter.fillRect(QRectF(at[i].x(), at[i].y() + 2, 12, g.lineHeight - 4),
                         QBrush(legend_[i].color, legend_[i].style));
        painter.drawText(QPointF(at[i].x() + 16, at[i].y() + metrics.ascent()), legend_[i].name);
    }
}

std::vector<QPointF> TimelineCanvas::placeLegend(double top) const {
    // Left to right, wrapping onto more lines when the widget is narrow.
    const QFontMetricsF metrics(font());
    std::vector<QPointF> at;
    QPointF next(6, top);
    for (const LegendEntry& entry : legend_) {
        const double w = 16 + metrics.horizontalAdvance(entry.name) + 14;
        if (next.x() > 6 && next.x() + w > width())
            next = QPointF(6, next.y() + metrics.height() + 2);
        at.push_back(next);
        next.rx() += w;
    }
    return at;
}

void TimelineCanvas::clickedAt(QPointF point) {
    if (const TimelineBox* box = boxAt(point)) {
        setSelectedOp(box->bodyIndex);
        emit opClicked(box->bodyIndex);
    }
}

QString TimelineCanvas::tipAt(QPointF point) const {
    std::size_t lane = 0;
    if (const TimelineBox* box = boxAt(point, &lane))
        return problem_ ? describeTimelineBox(*problem_, timeline_->lanes[lane], *box) : QString();
    // Over the compute lane's idle shading: how long it waits.
    const Geometry& g = geometry();
    if (!timeline_ || !g.plot.contains(point) || point.y() >= g.plot.top() + g.laneHeight)
        return {};
    const double t = timeAt(point.x());
    const auto& idle = timeline_->idle;
    const auto it = std::lower_bound(idle.begin(), idle.end(), t,
                                     [](const TimelineSpan& s, double at) { return s.end <= at; });
    if (it == idle.end() || it->start > t)
        return {};
    return tr("compute idle for %1: waiting for collectives").arg(timeLabel(it->end - it->start));
}

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent), canvas_(new TimelineCanvas(this)), summary_(new QLabel(this)), zoom_(canvas_, this) {
    setObjectName(QStringLiteral("timelineView"));
    zoom_.fit->setObjectName(QStringLiteral("timelineFit"));
    zoom_.zoomIn->setObjectName(QStringLiteral("timelineZoomIn"));
    zoom_.zoomOut->setObjectName(QStringLiteral("timelineZoomOut"));
    summary_->setObjectName(QStringLiteral("timelineSummary"));
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* buttons = new QHBoxLayout;
    buttons->setContentsMargins(4, 2, 4, 0);
    zoom_.addTo(buttons);
    buttons->addSpacing(8);
    buttons->addWidget(summary_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(buttons);
    layout->addWidget(canvas_, 1);

    connect(canvas_, &TimelineCanvas::opClicked, this, &TimelineView::opSelected);
    showState(nullptr, nullptr);
}

void TimelineView::showState(std::shared_ptr<const ProblemView> problem,
                             std::shared_ptr<const PlanState> state) {
    if (!problem || !state) {
        canvas_->setTimeline(nullptr, nullptr);
        summary_->clear();
    } else {
        auto timeline =
            std::make_shared<const ScheduleTimeline>(scheduleTimeline(*problem->problem->costModel, *state));
        const ScheduleTimeline& t = *timeline;
        const double share = t.stepTime > 0 ? t.idleTime / t.stepTime : 0;
        summary_->setText(tr("step %1 · compute %2 · compute idle %3 (%4%) · %5 kernels, %6 collectives")
                              .arg(timeLabel(t.stepTime), timeLabel(t.computeTime), timeLabel(t.idleTime))
                              .arg(share * 100, 0, 'f', 1)
                              .arg(t.lanes.front().boxes.size())
                              .arg(t.boxCount() - t.lanes.front().boxes.size()));
        canvas_->setTimeline(std::move(timeline), std::move(problem));
    }
    zoom_.setEnabled(canvas_->timeline() != nullptr);
}

QString TimelineView::summaryText() const {
    return summary_->text();
}

}  // namespace shardscope::ui
