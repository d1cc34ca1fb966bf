// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/export/trace.h"

#include <nlohmann/json.hpp>

#include "shardscope/cost/step_lanes.h"
#include "shardscope/ir/op_kind.h"

namespace shardscope::exporting {

using nlohmann::json;

namespace {

// The schedule (process 1): per stage device a thread for its forwards, backwards and updates (the compute
// stream) and one for its gradient reductions (its communication stream), in device order.
void pipelineEvents(const mesh::Mesh& mesh, const cost::PipelineEvaluation& pipeline, json& events) {
    const std::string axis = pipeline.pipeline && pipeline.pipeline->axis >= 0 &&
                                     static_cast<std::size_t>(pipeline.pipeline->axis) < mesh.axes.size()
                                 ? mesh.axes[static_cast<std::size_t>(pipeline.pipeline->axis)].name
                                 : std::string();
    events.push_back(
        {{"name", "process_name"},
         {"ph", "M"},
         {"pid", 1},
         {"tid", 0},
         {"args",
          {{"name",
            pipeline.pipeline
                ? "pipeline schedule (" + std::to_string(pipeline.microbatches) + " microbatches)"
                : "gradient accumulation (" + std::to_string(pipeline.microbatches) + " microbatches)"}}}});
    for (std::size_t d = 0; d < pipeline.stages.size(); ++d) {
        const std::string device =
            pipeline.pipeline ? "stage " + std::to_string(d) + " (" + axis + " " + std::to_string(d) + ")"
                              : std::string("device");
        events.push_back(
            {{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 2 * d}, {"args", {{"name", device}}}});
        events.push_back({{"name", "thread_name"},
                          {"ph", "M"},
                          {"pid", 1},
                          {"tid", 2 * d + 1},
                          {"args", {{"name", device + ": gradient sync"}}}});
    }
    for (const cost::PipelineTask& task : pipeline.tasks) {
        const std::string chunk = "chunk" + std::to_string(task.chunk);
        std::string name;
        switch (task.kind) {
            case cost::PipelineTask::Kind::Forward:
                name = "F mb" + std::to_string(task.microbatch) + " " + chunk;
                break;
            case cost::PipelineTask::Kind::Backward:
                name = "B mb" + std::to_string(task.microbatch) + " " + chunk;
                break;
            case cost::PipelineTask::Kind::GradientSync:
                name = "gradient sync " + chunk;
                break;
            case cost::PipelineTask::Kind::Update:
                name = "update " + chunk;
                break;
        }
        json args{{"chunk", task.chunk}};
        if (task.microbatch >= 0)
            args["microbatch"] = task.microbatch;
        if (task.chunk >= 0 && static_cast<std::size_t>(task.chunk) < pipeline.chunks.size()) {
            const cost::PipelineChunk& c = pipeline.chunks[static_cast<std::size_t>(task.chunk)];
            args["first_layer"] = c.firstLayer;
            args["layers"] = c.layers;
        }
        const bool sync = task.kind == cost::PipelineTask::Kind::GradientSync;
        events.push_back({{"name", name},
                          {"cat", std::string(cost::toString(task.kind))},
                          {"ph", "X"},
                          {"pid", 1},
                          {"tid", 2 * static_cast<std::size_t>(std::max(0, task.device)) + (sync ? 1 : 0)},
                          {"ts", task.start * 1e6},
                          {"dur", std::max(0.0, task.end - task.start) * 1e6},
                          {"args", args}});
    }
}

}  // namespace

std::string chromeTrace(const cost::CostModel& model, const cost::Evaluation& evaluation) {
    const ir::Graph& graph = model.graph();
    const mesh::Mesh& mesh = model.mesh();
    json events = json::array();
    const cost::PipelineEvaluation* pipeline =
        evaluation.pipeline && evaluation.pipeline->problem.empty() ? &*evaluation.pipeline : nullptr;
    events.push_back(
        {{"name", "process_name"},
         {"ph", "M"},
         {"pid", 0},
         {"tid", 0},
         {"args",
          {{"name", pipeline ? "one microbatch on one stage's devices"
                             : "device (each of " + std::to_string(mesh.devices()) + " runs this)"}}}});
    // One thread per lane: compute (tid 0), then one per device group, in the order the groups first appear.
    const cost::StepLanes lanes = cost::stepLanes(mesh, evaluation);
    for (std::size_t tid = 0; tid < lanes.lanes.size(); ++tid)
        events.push_back({{"name", "thread_name"},
                          {"ph", "M"},
                          {"pid", 0},
                          {"tid", tid},
                          {"args", {{"name", lanes.lanes[tid].name}}}});
    // Collectives where the schedule put them, on their group's thread.
    for (std::size_t j = 0; j < evaluation.collectives.size(); ++j) {
        const cost::Collective& c = evaluation.collectives[j];
        const double start = j < evaluation.collectiveStart.size() ? evaluation.collectiveStart[j] : 0;
        std::size_t opIndex = 0;
        while (opIndex < graph.body.size() && graph.body[opIndex] != c.op)
            ++opIndex;
        events.push_back(
            {{"name", std::string(cost::toString(c.kind))},
             {"cat", "collective"},
             {"ph", "X"},
             {"pid", 0},
             {"tid", lanes.laneOfCollective[j]},
             {"ts", start * 1e6},
             {"dur", c.time * 1e6},
             {"args",
              {{"op", opIndex}, {"bytes", c.bytes}, {"tensor", "%" + std::to_string(c.value.index)}}}});
    }
    // Kernels on the compute thread, at their simulated start (an op without time of its own is fused into
    // the kernel a later op launches).
    for (std::size_t i = 0; i < graph.body.size(); ++i) {
        const double compute = i < evaluation.opComputeTime.size() ? evaluation.opComputeTime[i] : 0;
        if (compute <= 0)
            continue;
        const ir::Op& op = graph.op(graph.body[i]);
        json args{{"op", i}};
        if (!op.location.name.empty())
            args["label"] = op.location.name;
        if (op.location.line > 0)
            args["location"] = op.location.toString();
        events.push_back({{"name", std::string(ir::mnemonic(op.kind))},
                          {"cat", "compute"},
                          {"ph", "X"},
                          {"pid", 0},
                          {"tid", 0},
                          {"ts", (i < evaluation.opStart.size() ? evaluation.opStart[i] : 0) * 1e6},
                          {"dur", compute * 1e6},
                          {"args", args}});
    }
    json other{{"generator", "shardscope"},
               {"mesh", mesh.toString()},
               {"step_time_s", evaluation.stepTime},
               {"peak_memory_bytes", evaluation.peakMemory}};
    if (pipeline) {
        pipelineEvents(mesh, *pipeline, events);
        other["microbatches"] = pipeline->microbatches;
        other["stages"] = pipeline->stages.size();
        other["bubble_fraction"] = pipeline->bubbleFraction;
        other["microbatch_time_s"] = pipeline->microbatchTime;
        if (pipeline->pipeline)
            other["schedule"] = std::string(plan::toString(pipeline->pipeline->schedule));
    }
    const json trace{{"traceEvents", events}, {"displayTimeUnit", "ms"}, {"otherData", other}};
    return trace.dump(1, ' ', false, json::error_handler_t::replace) + "\n";  // op names need not be UTF-8
}

}  // namespace shardscope::exporting
