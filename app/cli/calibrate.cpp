// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// `shardscope-cli calibrate`: the cost model's predictions of published, measured training runs beside the
// measurements (the runs and their predictions are the engine's: shardscope/calibration/calibration.h).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "shardscope/calibration/calibration.h"
#include "shardscope/input_file.h"

namespace cli {

using namespace shardscope;
using calibration::Outcome;
using calibration::Run;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string printed(const char* format, auto... values) {
    char line[512];
    std::snprintf(line, sizeof line, format, values...);
    return line;
}

// "zoo:megatron-7.1b:batch=192,seq=4096" -> "megatron-7.1b"; a file path stays as it is.
std::string modelName(const std::string& model) {
    if (!model.starts_with("zoo:"))
        return model;
    const std::string rest = model.substr(4);
    return rest.substr(0, rest.find(':'));
}

const char* statusName(Outcome::Status status) {
    switch (status) {
        case Outcome::Status::Predicted:
            return "predicted";
        case Outcome::Status::Failed:
            return "error";
    }
    return "error";
}

std::string firstError(const std::vector<Diagnostic>& diagnostics) {
    for (const auto& d : diagnostics)
        if (d.severity == Severity::Error)
            return d.message + " [" + d.code + "]";
    return "unknown error";
}

void printText(const std::vector<Run>& runs, const std::vector<Outcome>& outcomes,
               const calibration::Summary& summary) {
    std::size_t idWidth = 2, modelWidth = 5, planWidth = 4;
    for (const auto& run : runs) {
        idWidth = std::max(idWidth, run.id.size());
        modelWidth = std::max(modelWidth, modelName(run.model).size());
        planWidth = std::max(planWidth, run.plan.size());
    }
    const int iw = static_cast<int>(idWidth), mw = static_cast<int>(modelWidth),
              pw = static_cast<int>(planWidth);
    std::cout << printed("%-*s  %-*s  %5s  %-*s  %-10s  %10s  %10s  %6s  %14s  %s\n", iw, "id", mw, "model",
                         "GPUs", pw, "plan", "remat", "predicted", "measured", "ratio", "peak GiB", "fits");
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const Run& run = runs[i];
        const Outcome& outcome = outcomes[i];
        const std::string& remat = run.remat;
        std::cout << printed("%-*s  %-*s  %5lld  %-*s  %-10s  ", iw, run.id.c_str(), mw,
                             modelName(run.model).c_str(), static_cast<long long>(run.devices), pw,
                             run.plan.c_str(), remat.c_str());
        const std::string measured = printed("%.3f s", run.measuredStepSeconds);
        if (outcome.status == Outcome::Status::Failed) {
            std::cout << printed("%10s  %10s  ", "-", measured.c_str())
                      << "error: " << firstError(outcome.diagnostics) << "\n";
            continue;
        }
        const auto& p = outcome.prediction;
        std::string peak = printed("%.1f", p.peakBytes / kGiB);
        if (run.measured.memoryGiB)
            peak += printed(" (%.1f)", *run.measured.memoryGiB);
        std::cout << printed(
            "%10s  %10s  %6.2f  %14s  %s\n", printed("%.3f s", p.stepSeconds).c_str(), measured.c_str(),
            p.ratio, peak.c_str(),
            p.feasible ? "yes" : printed("no (%.1f GiB usable)", p.capacityBytes / kGiB).c_str());
    }
    std::cout << "\nratio = predicted / measured step time; peak GiB per GPU, predicted (published)\n";
    if (summary.predicted == 0) {
        std::cout << "no run was predicted\n";
        return;
    }
    std::cout << printed("median |error| %.1f%%, worst %.1f%% (%s) over %zu predicted runs\n",
                         100 * summary.medianError, 100 * summary.worstError, summary.worstRun.c_str(),
                         summary.predicted);
}

void printJson(const std::vector<Run>& runs, const std::vector<Outcome>& outcomes,
               const calibration::Summary& summary) {
    using json = nlohmann::ordered_json;
    json rows = json::array();
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const Run& run = runs[i];
        const Outcome& outcome = outcomes[i];
        json measured{{"value", run.measured.value}, {"unit", run.measured.unit}};
        if (run.measured.memoryGiB)
            measured["memory_gib"] = *run.measured.memoryGiB;
        json row{{"id", run.id},
                 {"source", run.source},
                 {"table", run.table},
                 {"model", run.model},
                 {"hardware", run.hardware},
                 {"mesh", run.mesh},
                 {"devices", run.devices},
                 {"pipeline_parallel", run.pipelineParallel},
                 {"plan", run.plan},
                 {"remat", run.remat},
                 {"global_batch", run.globalBatch},
                 {"micro_batch", run.microBatch ? json(*run.microBatch) : json(nullptr)},
                 {"measured", measured},
                 {"measured_step_s", run.measuredStepSeconds},
                 {"derivation", run.derivation},
                 {"status", statusName(outcome.status)}};
        if (outcome.status == Outcome::Status::Predicted) {
            const auto& p = outcome.prediction;
            row["predicted"] = {{"step_s", p.stepSeconds},          {"ratio", p.ratio},
                                {"peak_memory_bytes", p.peakBytes}, {"capacity_bytes", p.capacityBytes},
                                {"feasible", p.feasible},           {"decisions", p.plan}};
        }
        if (outcome.status == Outcome::Status::Failed) {
            json errors = json::array();
            for (const auto& d : outcome.diagnostics)
                errors.push_back(d.toString());
            row["errors"] = errors;
        }
        rows.push_back(std::move(row));
    }
    json out{{"version", 1},
             {"runs", rows},
             {"summary",
              {{"predicted", summary.predicted},
               {"median_abs_error", summary.medianError},
               {"worst_abs_error", summary.worstError},
               {"worst_run", summary.worstRun.empty() ? json(nullptr) : json(summary.worstRun)}}}};
    std::cout << out.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace

CLI::App* addCalibrateCommand(CLI::App& app) {
    auto* command = app.add_subcommand(
        "calibrate",
        "predict published measured training runs (Megatron-LM, TorchTitan, ...) and compare "
        "the step time and memory with what was measured");
    command->add_flag("--json")->description("machine-readable output (versioned JSON object)");
    command->add_option("--run", "only the run with this id");
    command->add_option("--runs",
                        "a runs .json file in the calibration format (default: the built-in published runs)");
    return command;
}

int calibrate(const CLI::App& command) {
    const bool json = command.count("--json") > 0;
    const auto only = command.get_option("--run")->results();
    const auto file = command.get_option("--runs")->results();
    Result<std::vector<Run>> runs = [&]() -> Result<std::vector<Run>> {
        if (file.empty())
            return calibration::builtinRuns();
        auto text = readInputFile(file.front(), "runs file", kMaxJsonFileBytes);
        if (!text)
            return Result<std::vector<Run>>::failure(text.diagnostics());
        return calibration::parseRuns(*text, file.front());
    }();
    if (!runs) {
        for (const auto& d : runs.diagnostics())
            std::cerr << "shardscope-cli: " << d.toString() << "\n";
        return 1;
    }
    std::vector<Run> chosen;
    for (const auto& run : *runs)
        if (only.empty() || run.id == only.front())
            chosen.push_back(run);
    if (chosen.empty() && only.empty()) {
        std::cerr << "shardscope-cli: error: " << (file.empty() ? "the built-in runs" : file.front())
                  << " hold no runs\n";
        return 1;
    }
    if (chosen.empty()) {
        std::string ids;
        for (const auto& run : *runs)
            ids += (ids.empty() ? "" : ", ") + run.id;
        std::cerr << "shardscope-cli: error: no calibration run '" << only.front() << "' (runs: " << ids
                  << ")\n";
        return 1;
    }
    std::vector<Outcome> outcomes;
    for (const auto& run : chosen)
        outcomes.push_back(calibration::calibrate(run));
    const auto summary = calibration::summarize(chosen, outcomes);
    if (json)
        printJson(chosen, outcomes, summary);
    else
        printText(chosen, outcomes, summary);
    return 0;
}

}  // namespace cli
