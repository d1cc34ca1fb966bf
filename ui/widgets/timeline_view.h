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

class QLabel;
class QPainter;
class QToolButton;

namespace shardscope::ui {

// Draws a ScheduleTimeline. Boxes narrower than half a pixel are not drawn one by one: each lane draws them
// as one rectangle per pixel column (alike neighbours joined), as opaque as they fill it, so a step of tens
// of thousands of boxes paints in time proportional to the visible boxes plus the widget's width.
class TimelineCanvas : public QWidget {
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

    // The times shown at the plot's left and right edges, in seconds.
    double viewStart() const { return viewStart_; }
    double viewEnd() const { return viewStart_ + viewSpan_; }
    // Shows the whole step.
    void fit();
    // Zooms in (factor > 1) or out keeping the time under widget x `anchor` in place (the plot's centre when
    // none). The range stays within the step and no narrower than a nanosecond.
    void zoomBy(double factor, std::optional<double> anchor = std::nullopt);
    // Moves the range by `pixels` (positive: later times come into view).
    void panBy(double pixels);

    // Outlines the boxes of body op `bodyIndex` (none: no outline).
    void setSelectedOp(std::optional<std::size_t> bodyIndex);
    // Geometry in widget coordinates: the area the lanes are drawn in, the x of a time, the rectangle of box
    // `box` of lane `lane`, and the box under `point` (within 3 px), or nullptr.
    QRectF plotArea() const;
    double xOf(double seconds) const;
    double timeAt(double x) const;
    QRectF boxRect(std::size_t lane, std::size_t box) const;
    const TimelineBox* boxAt(QPointF point, std::size_t* lane = nullptr) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    // The user clicked a box: its op, index into graph.body.
    void opClicked(std::size_t bodyIndex);

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    struct Geometry;
    struct LegendEntry {
        QColor color;
        QString name;
    };
    // Where things go now (cached: painting asks for every box).
    const Geometry& geometry() const;
    // The top left of each legend entry, the first line at `top`.
    std::vector<QPointF> placeLegend(double top) const;
    void paintLanes(QPainter& painter, const Geometry& g) const;
    void paintAxis(QPainter& painter, const Geometry& g) const;
    void paintIdle(QPainter& painter, const Geometry& g) const;
    void paintBoxes(QPainter& painter, const Geometry& g, std::size_t lane) const;
    void paintSelection(QPainter& painter) const;
    void paintStepEnd(QPainter& painter, const Geometry& g) const;
    void paintLegend(QPainter& painter, const Geometry& g) const;
    double fullSpan() const;
    void setView(double start, double span);
    void showTip(QPointF point, QPoint global);
    // What the tooltip at `point` says: the box's description, the idle time under it, or "".
    QString tipAt(QPointF point) const;

    std::shared_ptr<const ScheduleTimeline> timeline_;
    std::shared_ptr<const ProblemView> problem_;
    std::vector<LegendEntry> legend_;
    mutable std::unique_ptr<Geometry> geometry_;  // for geometryFor_; dropped when the font or lanes change
    mutable QSize geometryFor_;
    double viewStart_ = 0, viewSpan_ = 1e-3;
    bool fitted_ = true;  // no zoom or pan since the last fit: a new timeline is fitted too
    std::optional<std::size_t> selected_;
    // A press starts a drag once it moves a few pixels; a release without one is a click.
    std::optional<QPointF> pressedAt_;
    double pressedViewStart_ = 0;
    bool dragging_ = false;
    QString tip_;  // the tooltip shown ("" for none)
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
    QToolButton* fit_;
    QToolButton* zoomIn_;
    QToolButton* zoomOut_;
};

}  // namespace shardscope::ui
