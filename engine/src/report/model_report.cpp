// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/report/model_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

namespace shardscope::report {
namespace {

std::string withPrefix(double value, const char* const* prefixes, int count, double step, const char* unit) {
    int i = 0;
    while (i + 1 < count && std::abs(value) >= step) {
        value /= step;
        ++i;
    }
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, i == 0 ? "%.0f%s%s" : "%.2f %s%s", value, prefixes[i], unit);
    return buffer;
}

nlohmann::json argumentJson(const ir::Graph& g, const ir::Argument& a) {
    const auto& t = g.type(a.value);
    nlohmann::json j{{"name", a.name},
                     {"role", ir::toString(a.role)},
                     {"shape", t.shape},
                     {"element_type", ir::toString(t.element)},
                     {"bytes", t.bytes()}};
    if (!a.dimensionLabels.empty())
        j["dimension_labels"] = a.dimensionLabels;
    if (a.sharding)
        j["sharding"] = a.sharding->text;
    return j;
}

}  // namespace

std::string formatCount(double count) {
    static const char* const kPrefixes[] = {"", "K", "M", "B", "T"};
    return withPrefix(count, kPrefixes, 5, 1000.0, "");
}

std::string formatTime(double seconds) {
    char buffer[64];
    if (seconds >= 1)
        std::snprintf(buffer, sizeof buffer, "%.3f s", seconds);
    else if (seconds >= 1e-3)
        std::snprintf(buffer, sizeof buffer, "%.3f ms", seconds * 1e3);
    else
        std::snprintf(buffer, sizeof buffer, "%.1f us", seconds * 1e6);
    return buffer;
}

std::string formatBytes(double bytes) {
    static const char* const kPrefixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
    return withPrefix(bytes, kPrefixes, 6, 1024.0, "B");
}

std::string formatFlops(double flops) {
    static const char* const kPrefixes[] = {"", "K", "M", "G", "T", "P", "E"};
    return withPrefix(flops, kPrefixes, 7, 1000.0, "FLOP");
}

std::string modelInfoText(const LoadedModel& model, const ir::GraphStatistics& s,
                          const TrainingSummary* training) {
    const auto& g = model.graph;
    std::ostringstream out;
    out << "model       " << model.displayName << "  (" << model.description << ")\n";
    out << "parameters  " << formatCount(static_cast<double>(s.parameterCount)) << "  (" << s.parameterCount
        << ", " << formatBytes(static_cast<double>(s.parameterBytes)) << ")\n";
    out << (training ? "step        " : "forward     ") << formatFlops(s.flops) << ", "
        << formatBytes(s.bytesAccessed) << " read+written, "
        << formatBytes(static_cast<double>(s.activationBytes)) << " of op results\n";
    out << "ops         " << s.opCount << "\n";
    if (g.partitioned)
        out << "partitioned by hand (sdy.manual_computation): imported as its global program; its shardings "
               "are the reference plan\n";
    for (const auto& mesh : g.meshes) {
        out << "mesh        @" << mesh.name << " [";
        for (std::size_t i = 0; i < mesh.axes.size(); ++i)
            out << (i ? ", " : "") << mesh.axes[i].first << "=" << mesh.axes[i].second;
        out << "]\n";
    }
    std::size_t annotated = 0;
    for (const auto& a : g.arguments)
        annotated += a.sharding.has_value();
    if (annotated)
        out << "shardings   " << annotated << " of " << g.arguments.size()
            << " arguments carry a sharding (kept as the reference plan)\n";
    if (training) {
        out << "training    " << training->optimizer << (training->mixedPrecision ? ", mixed precision" : "")
            << ": " << training->forwardOps << " forward (with loss), " << training->backwardOps
            << " backward, " << training->updateOps << " update ops\n";
        out << "step bytes  parameters " << formatBytes(static_cast<double>(s.parameterBytes))
            << ", gradients " << formatBytes(static_cast<double>(training->gradientBytes))
            << ", optimizer state " << formatBytes(static_cast<double>(s.optimizerStateBytes)) << "\n";
        char ratio[32];
        std::snprintf(ratio, sizeof ratio, "%.2f",
                      training->forwardFlops > 0 ? s.flops / training->forwardFlops : 0.0);
        out << "step FLOPs  " << formatFlops(s.flops) << " (" << ratio << " x the forward pass)\n";
    }
    std::size_t parameters = 0, states = 0;
    for (const auto& a : g.arguments) {
        if (a.role == ir::ArgumentRole::Parameter) {
            ++parameters;
            continue;
        }
        if (a.role == ir::ArgumentRole::OptimizerState) {
            ++states;
            continue;
        }
        out << "input       " << a.name << ": " << g.type(a.value).toString() << " (" << ir::toString(a.role)
            << ")\n";
    }
    out << "            + " << parameters << " parameter tensors"
        << (states ? " and " + std::to_string(states) + " optimizer state tensors" : "") << "\n";
    std::size_t donated = 0;
    for (const auto& o : g.outputs) {
        if (o.aliasedArgument) {
            ++donated;
            continue;
        }
        out << "output      " << (o.name.empty() ? "(unnamed)" : o.name) << ": " << g.type(o.value).toString()
            << "\n";
    }
    if (donated)
        out << "            + " << donated << " updated tensors donated to their arguments\n";
    out << "\nop kinds:\n";
    std::vector<std::pair<std::string, std::int64_t>> kinds(s.opsByKind.begin(), s.opsByKind.end());
    std::stable_sort(kinds.begin(), kinds.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [kind, count] : kinds) {
        char line[96];
        std::snprintf(line, sizeof line, "  %-26s %8lld\n", kind.c_str(), static_cast<long long>(count));
        out << line;
    }
    return out.str();
}

std::string modelInfoJson(const LoadedModel& model, const ir::GraphStatistics& s,
                          const TrainingSummary* training) {
    const auto& g = model.graph;
    nlohmann::json inputs = nlohmann::json::array(), outputs = nlohmann::json::array(),
                   parameters = nlohmann::json::array();
    for (const auto& a : g.arguments)
        if (a.role != ir::ArgumentRole::OptimizerState)
            (a.role == ir::ArgumentRole::Parameter ? parameters : inputs).push_back(argumentJson(g, a));
    for (const auto& o : g.outputs) {
        const auto& t = g.type(o.value);
        nlohmann::json j{{"name", o.name}, {"shape", t.shape}, {"element_type", ir::toString(t.element)}};
        if (o.aliasedArgument)
            j["aliases_argument"] = *o.aliasedArgument;
        outputs.push_back(j);
    }
    nlohmann::json j{
        {"version", kModelInfoJsonVersion},
        {"model",
         {{"source", model.source}, {"name", model.displayName}, {"description", model.description}}},
        {"ops", {{"total", s.opCount}, {"by_kind", s.opsByKind}}},
        {"parameters",
         {{"count", s.parameterCount},
          {"bytes", s.parameterBytes},
          {"tensors", parameters.size()},
          {"list", parameters}}},
        {"flops", s.flops},
        {"bytes",
         {{"parameters", s.parameterBytes},
          {"optimizer_state", s.optimizerStateBytes},
          {"inputs", s.inputBytes},
          {"outputs", s.outputBytes},
          {"activations", s.activationBytes},
          {"accessed", s.bytesAccessed}}},
        {"inputs", inputs},
        {"outputs", outputs},
        {"partitioned", g.partitioned},
    };
    nlohmann::json meshes = nlohmann::json::array();
    for (const auto& mesh : g.meshes) {
        nlohmann::json axes = nlohmann::json::array();
        for (const auto& [axis, size] : mesh.axes)
            axes.push_back({{"name", axis}, {"size", size}});
        meshes.push_back({{"name", mesh.name}, {"axes", axes}});
    }
    j["meshes"] = meshes;
    if (training) {
        j["training"] = {{"optimizer", training->optimizer},
                         {"mixed_precision", training->mixedPrecision},
                         {"ops",
                          {{"forward", training->forwardOps},
                           {"backward", training->backwardOps},
                           {"update", training->updateOps}}},
                         {"bytes",
                          {{"parameters", s.parameterBytes},
                           {"gradients", training->gradientBytes},
                           {"optimizer_state", s.optimizerStateBytes}}},
                         {"flops", s.flops},
                         {"forward_flops", training->forwardFlops}};
    }
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";  // names need not be UTF-8
}

}  // namespace shardscope::report
