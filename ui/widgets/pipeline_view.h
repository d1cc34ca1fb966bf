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
#include "widgets/time_canvas.h"

class QComboBox;
class QLabel;
class QPainter;
class QPushButton;
class QSpinBox;

namespace shardscope::ui {

class PlanEditor;

// Draws a PipelineChart: one row per stage (its name, peak memory and in-flight count at the label), a box
// per task at [start, end). The wheel zooms around the cursor, dragging pans, hovering names a box. Without a
// chart, or with a chart of a plan that is not staged, it says why in the middle.
class PipelineCanvas : public TimeCanvas {
    Q_OBJECT

public:
    explicit PipelineCanvas(QWidget* parent = nullptr);

    // Shows `chart` (nullptr: "No plan evaluated yet"). Fits the step unless the user zoomed since the last
    // fit.
    void setChart(std::shared_ptr<const PipelineChart> chart);
    const std::shared_ptr<const PipelineChart>& chart() const { return chart_; }

    // Geometry in widget coordinates: where the rows are drawn, box `box`'s rectangle, and the box under
    // `point` (nullptr for none).
    QRectF plotArea() const override;
    QRectF boxRect(std::size_t box) const;
    const PipelineBox* boxAt(QPointF point) const;
    QString placeholderText() const override;
    QString tipAt(QPointF point) const override;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    bool hasContent() const override;
    double stepTime() const override { return chart_ ? chart_->stepTime : 0; }
    void paintRows(QPainter& painter) const override;
    void paintBoxes(QPainter& painter) const override;
    void paintLegend(QPainter& painter) const override;

private:
    struct Geometry {
        QRectF plot;
        double rowHeight = 0;
        double lineHeight = 0;
    };
    Geometry geometry() const;

    std::shared_ptr<const PipelineChart> chart_;
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
    ZoomButtons zoom_;
    QPushButton* toggle_;
    QComboBox* axis_;
    QComboBox* stages_;
    QComboBox* schedule_;
    QSpinBox* virtual_;
    QSpinBox* microbatches_;
    bool refreshing_ = false;
};

}  // namespace shardscope::ui
