// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// What the Timeline and Pipeline canvases share: a window onto a step's time, rows of boxes across it.
#pragma once

#include <optional>

#include <QCursor>
#include <QWidget>

class QBoxLayout;
class QPainter;
class QToolButton;

namespace shardscope::ui {

// Rows of a step's boxes against time: the visible time window and its zoom, pan and fit; the wheel (zooms
// around the cursor, sideways or with Shift pans), dragging (pans), the keys (+, -, 0, arrows); the tooltip
// of what is under the pointer; the time axis under the rows and the step's end above them. Subclasses say
// what they show, where the rows go, and paint them.
class TimeCanvas : public QWidget {
    Q_OBJECT

public:
    // AnyDirection: a press that moves a few pixels any way is a drag (it is no click then); AlongTime: only
    // a horizontal move is.
    enum class DragStart { AnyDirection, AlongTime };

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

    // Geometry in widget coordinates: the area the rows are drawn in, the x of a time and the time at an x.
    virtual QRectF plotArea() const = 0;
    double xOf(double seconds) const;
    double timeAt(double x) const;
    // What the canvas says instead of a picture ("" when it draws one).
    virtual QString placeholderText() const = 0;
    // What the tooltip at `point` says ("" for nothing).
    virtual QString tipAt(QPointF point) const = 0;

protected:
    explicit TimeCanvas(DragStart dragStart, QWidget* parent);

    // Whether there is a step to draw; without one the canvas shows placeholderText() and ignores the
    // wheel, zoom, pan and presses.
    virtual bool hasContent() const = 0;
    // When the step ends, in seconds (0 when there is none).
    virtual double stepTime() const = 0;
    // The rows' backgrounds and labels; the boxes (clipped to the plot); the legend under the axis.
    virtual void paintRows(QPainter& painter) const = 0;
    virtual void paintBoxes(QPainter& painter) const = 0;
    virtual void paintLegend(QPainter& painter) const = 0;
    // A press released at `point` without a drag.
    virtual void clickedAt(QPointF point);

    // After new content: fits it when the user has not zoomed or panned since the last fit, else keeps their
    // range within the new step. Drops the tooltip.
    void contentChanged();
    double viewSpan() const { return viewSpan_; }
    // The label of the time axis (the rows' labels share its column).
    QString axisTitle() const;

    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    double fullSpan() const;
    void setView(double start, double span);
    void paintAxis(QPainter& painter, const QRectF& plot, double lineHeight) const;
    void paintStepEnd(QPainter& painter, const QRectF& plot, double lineHeight) const;
    void showTip(QPointF point, QPoint global);

    DragStart dragStart_;
    double viewStart_ = 0, viewSpan_ = 1e-3;
    bool fitted_ = true;  // no zoom or pan since the last fit: new content is fitted too
    // A press starts a drag once it moves a few pixels; a release without one is a click.
    std::optional<QPointF> pressedAt_;
    double pressedViewStart_ = 0;
    bool dragging_ = false;
    std::optional<QCursor> cursorBeforeDrag_;  // none: the canvas had no cursor of its own
    QString tip_;                              // the tooltip shown ("" for none)
};

// The Fit, zoom-in and zoom-out buttons a dock shows above its canvas: children of `parent`, wired to
// `canvas`.
struct ZoomButtons {
    ZoomButtons(TimeCanvas* canvas, QWidget* parent);
    // Adds them as Fit, −, +.
    void addTo(QBoxLayout* layout) const;
    void setEnabled(bool enabled) const;

    QToolButton* fit;
    QToolButton* zoomIn;
    QToolButton* zoomOut;
};

}  // namespace shardscope::ui
