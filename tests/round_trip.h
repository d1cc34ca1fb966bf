// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The round trip of a plan through StableHLO (issue 19 part 8): export the plan (Shardy or GSPMD shardings,
// every
// --constraints choice), import the text again and evaluate its reference plan: the step time, the
// collectives (kind, axes, bytes) and the peak memory are those of the plan itself. Shared by tst_round_trip
// (the zoo) and tst_round_trip_shared (the shared models).
#pragma once

#include <QtTest>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "shardscope/cost/cost_model.h"
#include "shardscope/export/stablehlo_export.h"
#include "shardscope/import/format.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/ir/printer.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/reference_plan.h"
#include "shardscope/session/problem.h"

namespace shardscope::testing {

struct RoundTripCase {
    std::string model;  // zoo:... or a file
    bool train = false;
    std::string mesh;
    std::vector<std::string> plans;  // expert ids; the first that applies is used, or each with `every`
    bool every = true;
};

// What one round trip gave back, against the plan itself.
struct RoundTripRow {
    std::string model, mode, plan, format, constraints;
    double stepTime = 0, stepTimeBack = 0;
    double peak = 0, peakBack = 0;
    std::size_t collectives = 0, collectivesBack = 0;
    bool sameCollectives = false;
    std::string problem;  // an error on the way, else empty
    // Decisions of the plan that change no argument's or result's sharding (they shard intermediate values
    // only): without constraints the text cannot carry them, and a difference is expected, not a failure.
    int hidden = 0;
    // Every argument and result came back with the plan's sharding: all `--constraints none` writes. A
    // difference is then the interior's, which that choice cannot carry (the reference plan reads decisions
    // from the boundary alone; their order and reach inside can differ).
    bool boundaryKept = false;

    bool sameStep() const {
        return std::abs(stepTime - stepTimeBack) <= 1e-9 * std::max(std::abs(stepTime), 1e-30);
    }
    bool samePeak() const { return std::abs(peak - peakBack) <= 1e-9 * std::max(std::abs(peak), 1.0); }
    bool same() const { return sameStep() && sameCollectives && samePeak(); }
    bool ok() const {
        return problem.empty() && (same() || (constraints == "none" && (hidden > 0 || boundaryKept)));
    }
};

inline std::vector<std::tuple<int, std::uint32_t, double>> collectiveMultiset(const cost::Evaluation& e) {
    std::vector<std::tuple<int, std::uint32_t, double>> out;
    for (const auto& c : e.collectives)
        out.emplace_back(static_cast<int>(c.kind), c.axes, c.bytes);
    std::sort(out.begin(), out.end());
    return out;
}

// How many decisions of `plan` change no argument's or result's sharding when left out.
inline int hiddenDecisions(const Problem& problem, const plan::Plan& plan) {
    const auto& context = problem.costModel->planContext();
    const ir::Graph& graph = problem.model.graph;
    auto boundary = [&](const plan::Plan& p) {
        const auto applied = plan::applyPlan(context, problem.mesh, p);
        std::vector<plan::TensorSharding> out;
        for (const auto& a : graph.arguments)
            out.push_back(applied.sharding(problem.space, a.value));
        for (const auto& o : graph.outputs)
            out.push_back(applied.sharding(problem.space, o.value));
        return out;
    };
    const auto full = boundary(plan);
    int hidden = 0;
    for (std::size_t i = 0; i < plan.decisions.size(); ++i) {
        plan::Plan without = plan;
        without.decisions.erase(without.decisions.begin() + static_cast<std::ptrdiff_t>(i));
        if (boundary(without) == full) {
            const auto all = plan::applyPlan(context, problem.mesh, plan);
            const auto less = plan::applyPlan(context, problem.mesh, without);
            bool changes = false;
            for (std::size_t v = 0; v < graph.values.size() && !changes; ++v) {
                const ir::ValueId id{static_cast<std::uint32_t>(v)};
                changes = all.sharding(problem.space, id) != less.sharding(problem.space, id);
            }
            hidden += changes;
        }
    }
    return hidden;
}

inline std::string fileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

// Every round trip of `c`: the plans that apply, both formats, the three constraint choices. As the CLI's
// export does, a StableHLO file is patched in its own text; a training step, a zoo model or an ONNX file is
// printed.
inline std::vector<RoundTripRow> roundTrips(const RoundTripCase& c) {
    std::vector<RoundTripRow> rows;
    ProblemSpec spec;
    spec.model = c.model;
    spec.train = c.train;
    spec.mesh = c.mesh;
    const bool file = c.model.rfind("zoo:", 0) != 0;
    const std::string bytes = file ? fileBytes(c.model) : std::string();
    auto loaded = loadProblem(spec, file ? &bytes : nullptr);
    const std::string mode = c.train ? "train" : "forward";
    if (!loaded) {
        RoundTripRow row;
        row.model = c.model;
        row.mode = mode;
        row.plan = row.format = row.constraints = "-";
        row.problem = "load: " + loaded.errorMessage();
        rows.push_back(row);
        return rows;
    }
    const Problem& problem = **loaded;
    const ir::Graph& graph = problem.model.graph;
    std::string text = bytes, name = c.model;
    // Weights the import made parameters have no arguments in the file's text: printed, as the CLI does.
    const bool lifted = std::any_of(problem.warnings.begin(), problem.warnings.end(),
                                    [](const Diagnostic& d) { return d.code == import::kWeightsLiftedCode; });
    if (c.train || !file || lifted || import::detectFormat(bytes) != import::ModelFormat::StableHlo) {
        ir::PrintOptions printing;
        printing.moduleName = "round_trip";
        text = ir::printStableHlo(graph, printing);
        name = c.model + " (as StableHLO)";
    }
    for (const auto& id : c.plans) {
        auto plan = plan::expertPlan(id, problem.costModel->planContext(), problem.mesh);
        if (!plan)
            continue;
        const cost::Evaluation original = cost::evaluate(*problem.costModel, *plan);
        const auto applied = plan::applyPlan(problem.costModel->planContext(), problem.mesh, *plan);
        const int hidden = hiddenDecisions(problem, *plan);
        for (const auto format : {exporting::ShardingFormat::Shardy, exporting::ShardingFormat::Gspmd})
            for (const auto choice : {exporting::ConstraintChoice::None, exporting::ConstraintChoice::Key,
                                      exporting::ConstraintChoice::All}) {
                RoundTripRow row;
                row.model = c.model;
                row.mode = mode;
                row.plan = id;
                row.format = format == exporting::ShardingFormat::Shardy ? "shardy" : "gspmd";
                row.constraints = exporting::toString(choice);
                row.hidden = hidden;
                row.stepTime = original.stepTime;
                row.peak = original.peakMemory;
                row.collectives = original.collectives.size();
                const auto shardings = exporting::entryShardings(graph, problem.space, applied, choice);
                auto exported =
                    exporting::exportStableHlo(text, name, graph, problem.mesh, shardings, format);
                if (!exported) {
                    row.problem = "export: " + exported.errorMessage();
                    rows.push_back(row);
                    continue;
                }
                ProblemSpec again;
                again.model = "round_trip.mlir";
                again.mesh = c.mesh;
                auto back = loadProblem(again, &*exported);
                if (!back) {
                    row.problem = "import: " + back.errorMessage();
                    rows.push_back(row);
                    continue;
                }
                const Problem& reimported = **back;
                auto reference =
                    plan::referencePlan(reimported.model.graph, reimported.space, reimported.mesh);
                const cost::Evaluation evaluation = cost::evaluate(*reimported.costModel, *reference);
                row.stepTimeBack = evaluation.stepTime;
                row.peakBack = evaluation.peakMemory;
                row.collectivesBack = evaluation.collectives.size();
                row.sameCollectives = collectiveMultiset(original) == collectiveMultiset(evaluation);
                const auto returned =
                    plan::applyPlan(reimported.costModel->planContext(), reimported.mesh, *reference);
                const ir::Graph& g2 = reimported.model.graph;
                row.boundaryKept = g2.arguments.size() == graph.arguments.size() &&
                                   g2.outputs.size() == graph.outputs.size();
                for (std::size_t a = 0; row.boundaryKept && a < graph.arguments.size(); ++a)
                    row.boundaryKept =
                        applied.sharding(problem.space, graph.arguments[a].value).toString(problem.mesh) ==
                        returned.sharding(reimported.space, g2.arguments[a].value).toString(reimported.mesh);
                for (std::size_t o = 0; row.boundaryKept && o < graph.outputs.size(); ++o)
                    row.boundaryKept =
                        applied.sharding(problem.space, graph.outputs[o].value).toString(problem.mesh) ==
                        returned.sharding(reimported.space, g2.outputs[o].value).toString(reimported.mesh);
                rows.push_back(row);
            }
        if (!c.every)
            break;
    }
    return rows;
}

// The table of `rows`, one line each, and whether all match.
inline bool printRoundTrips(const std::vector<RoundTripRow>& rows) {
    bool all = true;
    qInfo("%-58s %-7s %-8s %-6s %-5s | %-25s | %-13s | %-21s | %s", "model", "mode", "plan", "format",
          "cons.", "step time (plan / back)", "collectives", "peak MiB (plan / back)", "match");
    for (const auto& r : rows) {
        all = all && r.ok();
        if (!r.problem.empty()) {
            qInfo("%-58s %-7s %-8s %-6s %-5s | %s", r.model.substr(0, 58).c_str(), r.mode.c_str(),
                  r.plan.c_str(), r.format.c_str(), r.constraints.c_str(), r.problem.c_str());
            continue;
        }
        qInfo("%-58s %-7s %-8s %-6s %-5s | %10.4g / %10.4g us | %5zu / %5zu | %9.4f / %9.4f | %s%s%s%s",
              r.model.substr(0, 58).c_str(), r.mode.c_str(), r.plan.c_str(), r.format.c_str(),
              r.constraints.c_str(), r.stepTime * 1e6, r.stepTimeBack * 1e6, r.collectives, r.collectivesBack,
              r.peak / 1048576.0, r.peakBack / 1048576.0,
              r.same() ? "yes"
              : r.ok() ? "n/a (the boundary came back; none carries no interior sharding):"
                       : "NO:",
              r.sameStep() ? "" : " step", r.sameCollectives ? "" : " collectives",
              r.samePeak() ? "" : " peak");
    }
    return all;
}

}  // namespace shardscope::testing
