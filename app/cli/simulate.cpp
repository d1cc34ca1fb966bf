// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The simulate command: checks a plan numerically. The model runs once unsharded and once under the plan on a
// simulated mesh (interpret/spmd.h); the outputs must agree and the collectives the simulation had to execute
// must be the ones the cost model priced.
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "cli.h"
#include "shardscope/interpret/interpreter.h"
#include "shardscope/interpret/spmd.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/session/plan_source.h"

namespace cli {

using namespace shardscope;
using nlohmann::json;

namespace {

using CollectiveKey = std::tuple<cost::CollectiveKind, std::uint32_t, std::uint32_t>;  // kind, axes, value

std::map<CollectiveKey, int> countsOf(const std::vector<interpret::ExecutedCollective>& list) {
    std::map<CollectiveKey, int> counts;
    for (const auto& c : list)
        ++counts[{c.kind, c.axes, c.value.index}];
    return counts;
}

std::map<CollectiveKey, int> countsOf(const std::vector<cost::Collective>& list) {
    std::map<CollectiveKey, int> counts;
    for (const auto& c : list)
        ++counts[{c.kind, c.axes, c.value.index}];
    return counts;
}

std::string byKind(const std::map<CollectiveKey, int>& counts) {
    std::map<std::string, int> kinds;
    for (const auto& [key, n] : counts)
        kinds[std::string(cost::toString(std::get<0>(key)))] += n;
    std::string out;
    for (const auto& [kind, n] : kinds)
        out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + kind;
    return out.empty() ? "none" : out;
}

std::string axesText(std::uint32_t axes, const mesh::Mesh& mesh) {
    std::string out;
    for (std::size_t a = 0; a < mesh.axes.size(); ++a)
        if ((axes >> a) & 1u)
            out += (out.empty() ? "" : ",") + mesh.axes[a].name;
    return out;
}

}  // namespace

int simulate(const std::string& source, const import::ImportOptions& options, const TrainingFlags& training,
             const ProblemFlags& flags, const std::string& planText, std::uint64_t seed,
             std::int64_t integerRange, double tolerance, bool asJson) {
    auto problem = loadProblem(specOf(source, options, training, flags));
    if (!report(problem))
        return 1;
    const Problem& p = **problem;
    printDiagnostics(p.warnings);
    const cost::CostModel& costModel = *p.costModel;
    auto chosen = session::planFromSource(planText, costModel);
    if (!report(chosen))
        return 1;
    const ir::Graph& graph = p.model.graph;
    const auto arguments = interpret::sampleArguments(graph, seed, integerRange);
    auto reference = interpret::run(graph, arguments);
    if (!report(reference))
        return 1;
    auto simulated = interpret::simulate(costModel, *chosen, arguments);
    if (!report(simulated))
        return 1;

    double worst = 0;
    json outputs = json::array();
    for (std::size_t o = 0; o < graph.outputs.size(); ++o) {
        const double d = interpret::scaledDifference({(*reference)[o]}, {simulated->outputs[o]});
        worst = std::max(worst, d);
        outputs.push_back({{"name", graph.outputs[o].name}, {"scaled_difference", d}});
    }
    const auto evaluation = cost::evaluate(costModel, *chosen);
    const auto executed = countsOf(simulated->collectives), priced = countsOf(evaluation.collectives);
    const bool same = executed == priced, match = worst <= tolerance;

    if (asJson) {
        json differences = json::array();
        auto add = [&](const std::map<CollectiveKey, int>& a, const std::map<CollectiveKey, int>& b,
                       const char* side) {
            for (const auto& [key, n] : a) {
                const auto it = b.find(key);
                if (it != b.end() && it->second == n)
                    continue;
                differences.push_back({{"side", side},
                                       {"kind", cost::toString(std::get<0>(key))},
                                       {"axes", axesText(std::get<1>(key), p.mesh)},
                                       {"value", std::get<2>(key)},
                                       {"count", n}});
            }
        };
        add(executed, priced, "executed only");
        add(priced, executed, "priced only");
        std::cout << jsonText(json{
                         {"version", 1},
                         {"devices", simulated->devices},
                         {"tolerance", tolerance},
                         {"max_scaled_difference", worst},
                         {"outputs", outputs},
                         {"collectives",
                          {{"executed", simulated->collectives.size()},
                           {"priced", evaluation.collectives.size()},
                           {"same", same},
                           {"differences", differences}}},
                         {"match", match && same},
                         {"warnings", warningsJson(joinedDiagnostics(p.warnings, chosen.diagnostics()))}})
                  << "\n";
        return match && same ? 0 : 1;
    }
    if (const plan::Plan& plan = *chosen; plan.pipeline || plan.microbatches != 1)
        std::printf(
            "Simulated on %s as %d microbatches whose gradients are summed, each on one stage's %lld "
            "devices (%s), one local shard per device:\n",
            p.mesh.toString().c_str(), plan.microbatches, static_cast<long long>(simulated->devices),
            plan::pipelineText(*chosen, p.mesh).c_str());
    else
        std::printf("Simulated on %s (%lld devices), one local shard per device:\n",
                    p.mesh.toString().c_str(), static_cast<long long>(simulated->devices));
    std::printf("  outputs: largest scaled difference from the unsharded run %.3g (tolerance %.3g): %s\n",
                worst, tolerance, match ? "match" : "MISMATCH");
    for (std::size_t o = 0; o < graph.outputs.size(); ++o) {
        const double d = outputs[o]["scaled_difference"].get<double>();
        if (d > tolerance)
            std::printf("    output #%zu '%s': %.3g\n", o, graph.outputs[o].name.c_str(), d);
    }
    std::printf("  collectives executed: %s\n", byKind(executed).c_str());
    std::printf("  collectives priced:   %s%s\n", byKind(priced).c_str(),
                same ? " (the same, tensor by tensor)" : " (DIFFERENT)");
    if (!same) {
        auto show = [&](const std::map<CollectiveKey, int>& a, const std::map<CollectiveKey, int>& b,
                        const char* side) {
            for (const auto& [key, n] : a) {
                const auto it = b.find(key);
                if (it != b.end() && it->second == n)
                    continue;
                const ir::Value& v = graph.values[std::get<2>(key)];
                const std::string where = v.producer.valid() ? graph.op(v.producer).location.toString()
                                                             : std::string("an argument");
                std::printf("    %s: %d %s over %s of %%%u (%s)\n", side, n,
                            std::string(cost::toString(std::get<0>(key))).c_str(),
                            axesText(std::get<1>(key), p.mesh).c_str(), std::get<2>(key), where.c_str());
            }
        };
        show(executed, priced, "executed only");
        show(priced, executed, "priced only");
    }
    return match && same ? 0 : 1;
}

}  // namespace cli
