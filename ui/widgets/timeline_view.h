// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The Timeline dock: the edited plan's simulated step as the Chrome trace shows it, a lane for the compute
// stream and one per device group of collectives, with the time the compute stream idles (exposed
// communication) shaded. Wheel zooms around the cursor, dragging pans, hovering names a box, clicking one
// selects its op.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include <QColor>
#include <QWidget>

#include "core/schedule_timeline.h"
#include "widgets/time_canvas.h"

class QLabel;
class QPainter;

namespace shardscope::ui {

// Draws a ScheduleTimeline. Boxes narrower than half a pixel are not drawn one by one: each lane draws them
// as one rectangle per pixel column (alike neighbours joined), as opaque as they fill it, so a step of tens
// of thousands of boxes paints in time proportional to the visible boxes plus the widget's width.
class TimelineCanvas : public TimeCanvas {
    Q_OBJECT

public:
    explicit TimelineCanvas(QWidget* parent = nullptr);
    ~TimelineCanvas() override;

    // Shows `timeline` (nullptr: the empty message). Fits the whole step unless the user has zoomed or panned
    // since the last fit, then keeps their range.
    void setTimeline(std::shared_ptr<const ScheduleTimeline> timeline,
                     std::shared_ptr<const ProblemView> problem);
    const std::shared_ptr<const ScheduleTimeline>& timeline() const { return timeline_; }
    int laneCount() const;

    // Outlines the boxes of body op `bodyIndex` (none: no outline).
    void setSelectedOp(std::optional<std::size_t> bodyIndex);
    // Geometry in widget coordinates: the area the lanes are drawn in, the rectangle of box `box` of lane
    // `lane`, and the box under `point` (within 3 px), or nullptr.
    QRectF plotArea() const override;
    QRectF boxRect(std::size_t lane, std::size_t box) const;
    const TimelineBox* boxAt(QPointF point, std::size_t* lane = nullptr) const;
    QString placeholderText() const override;
    // The box's description, the idle time under `point`, or "".
    QString tipAt(QPointF point) const override;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    // The user clicked a box: its op, index into graph.body.
    void opClicked(std::size_t bodyIndex);

protected:
    bool hasContent() const override { return timeline_ != nullptr; }
    double stepTime() const override { return timeline_ ? timeline_->stepTime : 0; }
    void paintRows(QPainter& painter) const override;
    void paintBoxes(QPainter& painter) const override;
    void paintLegend(QPainter& painter) const override;
    void clickedAt(QPointF point) override;
    void changeEvent(QEvent* event) override;

private:
    struct Geometry;
    struct LegendEntry {
        QColor color;
        QString name;
        Qt::BrushStyle style = Qt::SolidPattern;
    };
    // Where things go now (cached: painting asks for every box).
    const Geometry& geometry() const;
    // The top left of each legend entry, the first line at `top`.
    std::vector<QPointF> placeLegend(double top) const;
    void paintIdle(QPainter& painter, const Geometry& g) const;
    void paintLane(QPainter& painter, const Geometry& g, std::size_t lane) const;
    void paintSelection(QPainter& painter) const;
    // Remat: recompute boxes hatched, with a mark above each however narrow it is.
    void paintRecompute(QPainter& painter, const Geometry& g) const;

    std::shared_ptr<const ScheduleTimeline> timeline_;
    std::shared_ptr<const ProblemView> problem_;
    std::vector<LegendEntry> legend_;
    mutable std::unique_ptr<Geometry> geometry_;  // for geometryFor_; dropped when the font or lanes change
    mutable QSize geometryFor_;
    std::optional<std::size_t> selected_;
};

// The dock's widget: Fit and zoom buttons with the step's summary above the canvas.
class TimelineView : public QWidget {
    Q_OBJECT

public:
    explicit TimelineView(QWidget* parent = nullptr);

    // Shows `state`'s schedule for `problem` (either null: "No plan evaluated yet").
    void showState(std::shared_ptr<const ProblemView> problem, std::shared_ptr<const PlanState> state);
    // Outlines the op selected elsewhere.
    void setSelectedOp(std::optional<std::size_t> bodyIndex) { canvas_->setSelectedOp(bodyIndex); }
    TimelineCanvas* canvas() const { return canvas_; }
    // The summary line ("" when nothing is shown), for tests.
    QString summaryText() const;

signals:
    // The user clicked a box of op `bodyIndex` (index into graph.body).
    void opSelected(std::size_t bodyIndex);

private:
    TimelineCanvas* canvas_;
    QLabel* summary_;
    ZoomButtons zoom_;
};

}  // namespace shardscope::ui
