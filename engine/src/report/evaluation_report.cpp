// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/report/evaluation_report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "shardscope/plan/plan_json.h"
#include "shardscope/report/model_report.h"

namespace shardscope::report {
namespace {

std::string axesText(const mesh::Mesh& mesh, std::uint32_t mask) {
    std::string out;
    for (std::size_t i = 0; i < mesh.axes.size(); ++i)
        if ((mask >> i) & 1u)
            out += (out.empty() ? "" : ",") + mesh.axes[i].name;
    return out;
}

nlohmann::json axesJson(const mesh::Mesh& mesh, std::uint32_t mask) {
    nlohmann::json out = nlohmann::json::array();
    for (std::size_t i = 0; i < mesh.axes.size(); ++i)
        if ((mask >> i) & 1u)
            out.push_back(mesh.axes[i].name);
    return out;
}

std::string opText(const ir::Graph& g, ir::OpId id) {
    if (!id.valid())
        return "(function result)";
    const auto& op = g.op(id);
    std::string out(ir::mnemonic(op.kind));
    if (!op.location.name.empty())
        out += " " + op.location.name;
    return out;
}

std::string linkText(const mesh::Link& link) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.0f GB/s, %.1f us", link.bandwidth / 1e9, link.latency * 1e6);
    return buffer;
}

std::string formatPercent(double fraction) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f%%", fraction * 100);
    return buffer;
}

// The "pipeline" object of evaluationJson.
nlohmann::json pipelineJson(const cost::PipelineEvaluation& p, const mesh::Mesh& mesh) {
    using nlohmann::json;
    json chunks = json::array();
    for (const auto& k : p.chunks)
        chunks.push_back({{"device", k.device},
                          {"first_layer", k.firstLayer},
                          {"layers", k.layers},
                          {"forward_time_s", k.forwardTime},
                          {"backward_time_s", k.backwardTime},
                          {"send_bytes", k.sendBytes},
                          {"send_time_s", k.sendTime},
                          {"gradient_sync_time_s", k.gradientSyncTime},
                          {"update_time_s", k.updateTime},
                          {"activation_bytes", k.activationBytes}});
    json stages = json::array();
    for (const auto& s : p.stages)
        stages.push_back({{"peak_memory_bytes", s.peakMemory},
                          {"memory_breakdown",
                           {{"parameters", s.atPeak.parameters},
                            {"gradients", s.atPeak.gradients},
                            {"optimizer_state", s.atPeak.optimizerState},
                            {"activations", s.atPeak.activations},
                            {"temporaries", s.atPeak.temporaries}}},
                          {"in_flight", s.inFlight},
                          {"busy_time_s", s.busyTime},
                          {"end_s", s.end}});
    json out{{"microbatches", p.microbatches},
             {"bubble_fraction", p.bubbleFraction},
             {"microbatch_time_s", p.microbatchTime},
             {"chunks", chunks},
             {"per_stage", stages},
             {"problem", p.problem.empty() ? json(nullptr) : json(p.problem)}};
    if (p.pipeline) {
        const auto& pl = *p.pipeline;
        out["axis"] = pl.axis >= 0 && static_cast<std::size_t>(pl.axis) < mesh.axes.size()
                          ? mesh.axes[static_cast<std::size_t>(pl.axis)].name
                          : std::string("?");
        out["stages"] = pl.stages;
        out["schedule"] = std::string(plan::toString(pl.schedule));
        out["virtual_stages"] = pl.virtualStages;
    } else {
        out["axis"] = nullptr;
        out["stages"] = 1;
        out["schedule"] = nullptr;
        out["virtual_stages"] = 1;
    }
    return out;
}

// The microbatches and pipeline of a staged step: the schedule, then a line per chunk and per stage.
std::string pipelineText(const plan::Plan& plan, const mesh::Mesh& mesh, const cost::PipelineEvaluation& p) {
    std::ostringstream out;
    out << "pipeline      " << plan::pipelineText(plan, mesh);
    if (p.pipeline)
        out << "; bubble " << formatPercent(p.bubbleFraction);
    out << "; one microbatch " << formatTime(p.microbatchTime) << "\n";
    if (!p.problem.empty())
        out << "  CANNOT RUN: " << p.problem << "\n";
    if (!p.pipeline)
        return out.str();
    out << "  chunk device layers     forward   backward       send     sync   update\n";
    for (std::size_t c = 0; c < p.chunks.size(); ++c) {
        const auto& k = p.chunks[c];
        char line[160];
        std::snprintf(line, sizeof line, "  %5zu %6d %3d-%-3d %10s %10s %10s %8s %8s\n", c, k.device,
                      k.firstLayer, k.firstLayer + k.layers - 1, formatTime(k.forwardTime).c_str(),
                      formatTime(k.backwardTime).c_str(), formatTime(k.sendTime).c_str(),
                      formatTime(k.gradientSyncTime).c_str(), formatTime(k.updateTime).c_str());
        out << line;
    }
    out << "  stage   busy        end         peak  in flight\n";
    for (std::size_t d = 0; d < p.stages.size(); ++d) {
        const auto& s = p.stages[d];
        char line[160];
        std::snprintf(line, sizeof line, "  %5zu %10s %10s %12s %4d\n", d, formatTime(s.busyTime).c_str(),
                      formatTime(s.end).c_str(), formatBytes(s.peakMemory).c_str(), s.inFlight);
        out << line;
    }
    return out.str();
}

}  // namespace

std::string evaluationText(const LoadedModel& model, const cost::CostModel& cm, const plan::Plan& plan,
                           const cost::Evaluation& e, std::size_t maxCollectives) {
    std::ostringstream out;
    const auto& g = model.graph;
    const auto& mesh = cm.mesh();
    out << "model         " << model.displayName << "  (" << g.body.size() << " ops)\n";
    out << "mesh          " << mesh.toString() << " = " << mesh.devices() << " x "
        << cm.hardware().displayName << "\n";
    for (const auto& a : mesh.axes) {
        out << "                " << a.name << "=" << a.size << ": ";
        if (a.levels.empty())
            out << linkText(a.link);
        for (std::size_t l = 0; l < a.levels.size(); ++l)
            out << (l ? "; " : "") << a.levels[l].devices << " on " << linkText(a.levels[l].link);
        out << "\n";
    }
    out << "plan          " << (plan.label.empty() ? "(unnamed)" : plan.label) << ": ";
    if (plan.decisions.empty())
        out << "no decisions (everything replicated)";
    for (std::size_t i = 0; i < plan.decisions.size(); ++i)
        out << (i ? ", " : "") << plan::decisionText(plan.decisions[i], cm.planContext(), mesh);
    out << "\n";
    // Rematerialization matters to a training step only (the backward pass is what reads the kept values).
    if (!plan.remat.empty() || g.backwardStart > 0) {
        out << "remat         ";
        if (plan.remat.empty())
            out << "none (every forward value the backward pass reads is kept)";
        for (std::size_t i = 0; i < plan.remat.size(); ++i)
            out << (i ? ", " : "") << plan::rematText(plan.remat[i]);
        out << "\n";
    }
    if (e.pipeline)
        out << pipelineText(plan, mesh, *e.pipeline);
    out << "step time     " << formatTime(e.stepTime) << "  (compute " << formatTime(e.computeTime)
        << ", collectives " << formatTime(e.collectiveTime) << "; lower bound "
        << formatTime(cm.lowerBoundTime()) << ")\n";
    out << "peak memory   " << formatBytes(e.peakMemory) << " per device of " << formatBytes(e.capacity)
        << " usable (" << formatBytes(cm.hardware().memoryBytes) << " less "
        << cm.options().memoryReserve * 100 << "% reserve): " << (e.feasible ? "fits" : "DOES NOT FIT")
        << "\n";
    if (e.peakOp < g.body.size())
        out << "  reached at  " << opText(g, g.body[e.peakOp]) << "\n";
    const auto& b = e.atPeak;
    out << "  at the peak parameters " << formatBytes(b.parameters) << ", gradients "
        << formatBytes(b.gradients) << ", optimizer state " << formatBytes(b.optimizerState)
        << ", activations " << formatBytes(b.activations) << ", temporaries " << formatBytes(b.temporaries)
        << "\n";
    const auto& s = e.modelStates;
    out << "model states  parameters " << formatBytes(s.parameters) << ", gradients "
        << formatBytes(s.gradients) << ", optimizer state " << formatBytes(s.optimizerState) << " (total "
        << formatBytes(s.total()) << " per device)\n";
    std::map<std::string, std::tuple<std::size_t, double, double>> byKind;
    for (const auto& c : e.collectives) {
        auto& [n, bytes, time] = byKind[std::string(cost::toString(c.kind))];
        ++n, bytes += c.bytes, time += c.time;
    }
    out << "collectives   " << e.collectives.size() << (e.collectives.empty() ? " (none)" : "") << "\n";
    for (const auto& [kind, v] : byKind)
        out << "  " << kind << ": " << std::get<0>(v) << ", " << formatBytes(std::get<1>(v)) << ", "
            << formatTime(std::get<2>(v)) << "\n";
    if (!e.collectives.empty()) {
        std::vector<const cost::Collective*> sorted;
        for (const auto& c : e.collectives)
            sorted.push_back(&c);
        std::stable_sort(sorted.begin(), sorted.end(), [](auto* x, auto* y) { return x->time > y->time; });
        const std::size_t n = maxCollectives == 0 ? sorted.size() : std::min(maxCollectives, sorted.size());
        out << "  slowest " << n << ":\n";
        for (std::size_t i = 0; i < n; ++i) {
            const auto& c = *sorted[i];
            char line[96];
            std::snprintf(line, sizeof line, "    %-18s %-12s %12s %12s  ",
                          std::string(cost::toString(c.kind)).c_str(), axesText(mesh, c.axes).c_str(),
                          formatBytes(c.bytes).c_str(), formatTime(c.time).c_str());
            out << line << opText(g, c.op) << "  " << g.type(c.value).toString() << "\n";
        }
    }
    if (!e.opComputeTime.empty()) {
        std::vector<std::size_t> order(e.opComputeTime.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        const std::size_t n = std::min<std::size_t>(10, order.size());
        std::partial_sort(
            order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
            [&](std::size_t x, std::size_t y) { return e.opComputeTime[x] > e.opComputeTime[y]; });
        out << "slowest ops   (compute per device)\n";
        for (std::size_t k = 0; k < n; ++k) {
            const std::size_t i = order[k];
            char line[64];
            std::snprintf(line, sizeof line, "  %12s %5.1f%%  ", formatTime(e.opComputeTime[i]).c_str(),
                          e.computeTime > 0 ? 100 * e.opComputeTime[i] / e.computeTime : 0.0);
            out << line << opText(g, g.body[i]) << "\n";
        }
    }
    out << "competitions  " << e.competitions.size() << " site(s) where a decision lost its axis\n";
    return out.str();
}

std::string evaluationJson(const LoadedModel& model, const cost::CostModel& cm, const plan::Plan& plan,
                           const cost::Evaluation& e) {
    using nlohmann::json;
    const auto& g = model.graph;
    const auto& mesh = cm.mesh();
    json axes = json::array();
    for (const auto& a : mesh.axes) {
        json axis{{"name", a.name},
                  {"size", a.size},
                  {"bandwidth_bytes_per_s", a.link.bandwidth},
                  {"latency_s", a.link.latency}};
        for (const auto& level : a.levels)
            axis["levels"].push_back({{"devices", level.devices},
                                      {"bandwidth_bytes_per_s", level.link.bandwidth},
                                      {"latency_s", level.link.latency}});
        axes.push_back(std::move(axis));
    }
    json collectives = json::array();
    json byKind = json::object();
    for (const auto& c : e.collectives) {
        const std::string kind(cost::toString(c.kind));
        json item{{"kind", kind},
                  {"axes", axesJson(mesh, c.axes)},
                  {"bytes", c.bytes},
                  {"time_s", c.time},
                  {"tensor", g.type(c.value).toString()}};
        if (c.op.valid()) {
            const auto& op = g.op(c.op);
            item["op"] = std::string(ir::mnemonic(op.kind));
            item["label"] = op.location.name;
            item["location"] = op.location.toString();
        } else {
            item["op"] = nullptr;
        }
        collectives.push_back(std::move(item));
        auto& k = byKind[kind];
        if (k.is_null())
            k = {{"count", 0}, {"bytes", 0.0}, {"time_s", 0.0}};
        k["count"] = k.value("count", 0) + 1;
        k["bytes"] = k.value("bytes", 0.0) + c.bytes;
        k["time_s"] = k.value("time_s", 0.0) + c.time;
    }
    json peakOp = nullptr;
    if (e.peakOp < g.body.size()) {
        const auto& op = g.op(g.body[e.peakOp]);
        peakOp = {{"op", std::string(ir::mnemonic(op.kind))},
                  {"label", op.location.name},
                  {"location", op.location.toString()}};
    }
    json out{
        {"version", kEvaluationJsonVersion},
        {"model", {{"source", model.source}, {"name", model.displayName}, {"ops", g.body.size()}}},
        {"mesh", {{"axes", axes}, {"devices", mesh.devices()}, {"spec", mesh.toString()}}},
        {"hardware",
         {{"id", cm.hardware().id},
          {"name", cm.hardware().displayName},
          {"memory_bytes", cm.hardware().memoryBytes}}},
        {"plan", json::parse(plan::toJson(plan, cm.planContext(), mesh))},
        {"step_time_s", e.stepTime},
        {"compute_time_s", e.computeTime},
        {"collective_time_s", e.collectiveTime},
        {"lower_bound_time_s", cm.lowerBoundTime()},
        {"peak_memory_bytes", e.peakMemory},
        {"capacity_bytes", e.capacity},
        {"feasible", e.feasible},
        {"peak_op", peakOp},
        {"memory_breakdown",
         {{"parameters", e.atPeak.parameters},
          {"gradients", e.atPeak.gradients},
          {"optimizer_state", e.atPeak.optimizerState},
          {"activations", e.atPeak.activations},
          {"temporaries", e.atPeak.temporaries}}},
        {"model_states",
         {{"parameters", e.modelStates.parameters},
          {"gradients", e.modelStates.gradients},
          {"optimizer_state", e.modelStates.optimizerState}}},
        {"collectives", collectives},
        {"collectives_by_kind", byKind},
        {"competition_sites", e.competitions.size()},
    };
    if (e.pipeline)
        out["pipeline"] = pipelineJson(*e.pipeline, mesh);
    // The ops that take the most compute time (all of them would be as large as the graph).
    std::vector<std::size_t> order(e.opComputeTime.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    const std::size_t n = std::min<std::size_t>(20, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                      [&](std::size_t x, std::size_t y) { return e.opComputeTime[x] > e.opComputeTime[y]; });
    json slowest = json::array();
    for (std::size_t k = 0; k < n; ++k) {
        const auto& op = g.op(g.body[order[k]]);
        slowest.push_back({{"op", std::string(ir::mnemonic(op.kind))},
                           {"label", op.location.name},
                           {"location", op.location.toString()},
                           {"time_s", e.opComputeTime[order[k]]}});
    }
    out["slowest_ops"] = slowest;
    return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
           "\n";  // names need not be UTF-8
}

std::string warningsJson(const std::vector<Diagnostic>& diagnostics) {
    using nlohmann::json;
    json out = json::array();
    for (const auto& d : diagnostics) {
        if (d.severity == Severity::Error)
            continue;
        json w{{"message", d.message},
               {"code", d.code},
               {"severity", d.severity == Severity::Warning ? "warning" : "note"}};
        if (!d.location.file.empty())
            w["file"] = d.location.file;
        if (d.location.line > 0)
            w["line"] = d.location.line;
        if (d.location.column > 0)
            w["column"] = d.location.column;
        if (!d.location.name.empty())
            w["op"] = d.location.name;
        out.push_back(std::move(w));
    }
    return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string withWarnings(const std::string& reportJson, const std::vector<Diagnostic>& warnings) {
    using nlohmann::json;
    auto value = json::parse(reportJson, nullptr, false);
    if (value.is_discarded() || !value.is_object())
        return reportJson;
    value["warnings"] = json::parse(warningsJson(warnings));
    // Names, labels and paths need not be UTF-8: such bytes become U+FFFD rather than an exception.
    return value.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace shardscope::report
