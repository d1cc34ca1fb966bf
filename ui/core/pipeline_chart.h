// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The edited plan's pipeline schedule (cost::PipelineEvaluation, docs/cost-model.md "Pipelines and
// microbatches") as rows of boxes in seconds, what the Pipeline dock draws: one row per device position on
// the pipeline axis (a stage), one box per task of the simulated schedule, coloured by microbatch. Plain
// values computed off the UI thread once per evaluation (PipelineCharter), so painting only reads them.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <QColor>
#include <QObject>
#include <QString>

#include "core/job_queue.h"
#include "core/plan_state.h"
#include "core/problem_view.h"

namespace shardscope::ui {

enum class PipelineBoxKind : std::uint8_t { Forward, Backward, GradientSync, Update };

struct PipelineBox {
    double start = 0, end = 0;  // seconds from the step's start
    int row = 0;                // the stage (device position on the pipeline axis)
    int chunk = 0;              // index into PipelineChart::chunks
    int microbatch = -1;        // -1 for the once-per-step gradient sync and update
    PipelineBoxKind kind = PipelineBoxKind::Forward;
    QColor color;  // pipelineBoxColor(kind, microbatch)
    double duration() const { return end - start; }
};

struct PipelineRow {
    QString name;           // "stage 0"
    double peakMemory = 0;  // bytes per device
    int inFlight = 0;       // microbatch chunks held at most
    double busyTime = 0;    // forward and backward work
    double end = 0;         // when its last task ends
};

struct PipelineChunkInfo {
    int row = 0;
    int firstLayer = 0, layers = 0;
    QString blocks;  // the layer blocks it holds, "layers.0–layers.2"
};

struct PipelineChart {
    std::uint64_t revision = 0;  // the PlanState's
    // False when the plan runs its step in one go (no microbatches, no pipeline): `absent` says so.
    bool staged = false;
    bool hasPipeline = false;
    QString absent;  // why there is nothing to draw, in words ("No pipeline: ...")
    QString
        header;  // the pipeline in words: axis, stages, schedule, virtual stages, microbatches, bubble, step
    QString problem;  // why the staged plan cannot run ("" when it can): the evaluation's
    std::vector<PipelineRow> rows;
    std::vector<PipelineChunkInfo> chunks;
    std::vector<PipelineBox> boxes;  // by row, then start
    int microbatches = 1;
    double bubbleFraction = 0;
    double stepTime = 0;  // the schedule's makespan (its last task's end)

    // The boxes of row `row` (a range of `boxes`).
    std::pair<std::size_t, std::size_t> rowBoxes(int row) const;
};

// The chart of `state`'s evaluation on `problem`. O(tasks log tasks); no widgets, safe off the UI thread.
PipelineChart pipelineChart(const ProblemView& problem, const PlanState& state);

// A box's colour: one hue per microbatch (cycling through a palette of ten), light for its forward and dark
// for its backward; grey for the gradient sync, dark grey for the update.
QColor pipelineBoxColor(PipelineBoxKind kind, int microbatch);
// A stage's colour (cycling through a palette of eight), as the graph's stage bands show it.
QColor pipelineStageColor(int stage);
// "forward", "backward", "gradient sync", "update".
QString pipelineBoxKindName(PipelineBoxKind kind);
// What a box wide enough says inside it: "F3", "B3", "sync", "update".
QString pipelineBoxLabel(const PipelineBox& box);
// A box in words for its tooltip: kind, microbatch, chunk and its layers, stage, duration and times.
QString describePipelineBox(const PipelineChart& chart, const PipelineBox& box);
// A row's label line under its name: "peak 1.02 GiB · 4 in flight".
QString pipelineRowDetail(const PipelineRow& row);

// The stage of every body op under `state`'s pipeline (index into graph.body; -1 where the op has no chunk),
// or empty when the plan has no pipeline.
std::vector<int> pipelineStageOfOp(const PlanState& state);

// Computes charts on a worker thread, the newest request winning.
class PipelineCharter : public QObject {
    Q_OBJECT

public:
    explicit PipelineCharter(QObject* parent = nullptr);
    ~PipelineCharter() override;

    // Starts charting `state` of `problem` (either null: `charted(nullptr)` at once, dropping any request).
    void chart(std::shared_ptr<const ProblemView> problem, std::shared_ptr<const PlanState> state);
    bool isBusy() const { return busy_; }

signals:
    void charted(std::shared_ptr<const shardscope::ui::PipelineChart> chart);

private:
    bool busy_ = false;
    JobQueue jobs_{"pipeline chart"};
    LatestJob charts_{jobs_};  // last: destroyed first
};

}  // namespace shardscope::ui
