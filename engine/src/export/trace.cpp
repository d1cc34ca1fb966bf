// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/export/trace.h"

#include <nlohmann/json.hpp>

#include "shardscope/cost/step_lanes.h"
#include "shardscope/ir/op_kind.h"

namespace shardscope::exporting {

using nlohmann::json;

std::string chromeTrace(const cost::CostModel& model, const cost::Evaluation& evaluation) {
    const ir::Graph& graph = model.graph();
    const mesh::Mesh& mesh = model.mesh();
    json events = json::array();
    events.push_back(
        {{"name", "process_name"},
         {"ph", "M"},
         {"pid", 0},
         {"tid", 0},
         {"args", {{"name", "device (each of " + std::to_string(mesh.devices()) + " runs this)"}}}});
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
    const json trace{{"traceEvents", events},
                     {"displayTimeUnit", "ms"},
                     {"otherData",
                      {{"generator", "shardscope"},
                       {"mesh", mesh.toString()},
                       {"step_time_s", evaluation.stepTime},
                       {"peak_memory_bytes", evaluation.peakMemory}}}};
    return trace.dump(1, ' ', false, json::error_handler_t::replace) + "\n";  // op names need not be UTF-8
}

}  // namespace shardscope::exporting
