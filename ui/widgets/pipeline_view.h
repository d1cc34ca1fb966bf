// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The Pipeline dock: the edited plan's pipeline schedule as a picture (stages as rows, time across, a box per
// forward and backward of each microbatch, the gradient sync and the update; the bubble is the empty space),
// the pipeline in words above it, and under it the controls that set the plan's pipeline and microbatches
// (each change one undoable edit of the PlanEditor).
#pragma once

#include <memory>
#include <optional>

#include <QWidget>

#include "core/pipeline_chart.h"

class QComboBox;
class QLabel;
class QPainter;
class QPushButton;
class QSpinBox;
class QToolButton;

namespace shardscope::ui {

class PlanEditor;

// Draws a PipelineChart: one row per stage (its name, peak memory and in-flight count at the label), a box
// per task at [start, end). The wheel zooms around the cursor, dragging pans, hovering names a box. Without a
// chart, or with a chart of a plan that is not staged, it says why in the middle.
class PipelineCanvas : public QWidget {
    Q_OBJECT

public:
    explicit PipelineCanvas(QWidget* parent = nullptr);

    // Shows `chart` (nullptr: "No plan evaluated yet"). Fits the step unless the user zoomed since the last
    // fit.
    void setChart(std::shared_ptr<const PipelineChart> chart);
    const std::shared_ptr<const PipelineChart>& chart() const { return chart_; }

    double viewStart() const { return viewStart_; }
    double viewEnd() const { return viewStart_ + viewSpan_; }
    void fit();
    // Zooms in (factor > 1) or out keeping the time under widget x `anchor` (the plot's centre when none).
    void zoomBy(double factor, std::optional<double> anchor = std::nullopt);
    void panBy(double pixels);

    // Geometry in widget coordinates: where the rows are drawn, box `box`'s rectangle, and the box under
    // `point` (nullptr for none).
    QRectF plotArea() const;
    QRectF boxRect(std::size_t box) const;
    const PipelineBox* boxAt(QPointF point) const;
    // What the canvas says instead of a picture ("" when it draws one).
    QString placeholderText() const;
    // What the tooltip at `point` says ("" for nothing).
    QString tipAt(QPointF point) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    struct Geometry {
        QRectF plot;
        double rowHeight = 0;
        double lineHeight = 0;
    };
    Geometry geometry() const;
    bool drawable() const;
    double fullSpan() const;
    double xOf(double seconds) const;
    double timeAt(double x) const;
    void setView(double start, double span);
    void paintRows(QPainter& painter, const Geometry& g) const;
    void paintAxis(QPainter& painter, const Geometry& g) const;
    void paintBoxes(QPainter& painter, const Geometry& g) const;
    void paintLegend(QPainter& painter, const Geometry& g) const;

    std::shared_ptr<const PipelineChart> chart_;
    double viewStart_ = 0, viewSpan_ = 1e-3;
    bool fitted_ = true;
    std::optional<QPointF> pressedAt_;
    double pressedViewStart_ = 0;
    bool dragging_ = false;
    QString tip_;
};

// The dock's widget: zoom buttons and the pipeline in words, the canvas, the evaluation's problem (when the
// staged plan cannot run), and the controls: Add/Remove pipeline, axis, stages, schedule, virtual stages,
// microbatches. With a pipeline every change applies at once; without one the pipeline controls are a draft
// that "Add pipeline" applies, and microbatches alone set gradient accumulation. A choice that cannot run
// (plan::pipelineProblem) leaves the plan as it was and says why under the controls.
class PipelineView : public QWidget {
    Q_OBJECT

public:
    explicit PipelineView(PlanEditor* editor, QWidget* parent = nullptr);

    // Charts `state` of `problem` off the UI thread (either null: "No plan evaluated yet").
    void showState(std::shared_ptr<const ProblemView> problem, std::shared_ptr<const PlanState> state);
    PipelineCanvas* canvas() const { return canvas_; }
    PipelineCharter* charter() const { return charter_; }
    // For tests: the header line, the evaluation's problem, and the controls' message ("" when none).
    QString headerText() const;
    QString problemText() const;
    QString messageText() const;

private:
    void refresh();  // the controls from the edited plan
    void fillStages(int axis, int stages);
    void applyDraft();  // the controls' pipeline to the plan (when it has one)
    void toggle();      // add the draft, or remove the pipeline
    void applyMicrobatches();
    void setMessage(const QString& text);
    std::optional<plan::Pipeline> draft() const;

    PlanEditor* editor_;
    PipelineCharter* charter_;
    PipelineCanvas* canvas_;
    QLabel* header_;
    QLabel* problem_;
    QLabel* message_;
    QToolButton* fit_;
    QToolButton* zoomIn_;
    QToolButton* zoomOut_;
    QPushButton* toggle_;
    QComboBox* axis_;
    QComboBox* stages_;
    QComboBox* schedule_;
    QSpinBox* virtual_;
    QSpinBox* microbatches_;
    bool refreshing_ = false;
};

}  // namespace shardscope::ui
