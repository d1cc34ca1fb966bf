// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/calibration/calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <nlohmann/json.hpp>
#include <set>

#include "shardscope/mesh/mesh.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/session/problem.h"
#include "shardscope/zoo/zoo.h"

namespace shardscope::calibration {
namespace detail {
// resources/calibration/*.json as (file name, text), in the generated builtin_calibration.cpp.
const std::vector<std::pair<std::string_view, std::string_view>>& builtinCalibrationFiles();
}  // namespace detail

namespace {

constexpr std::string_view kFormat = "shardscope-calibration-runs";
constexpr std::int64_t kVersion = 1;
constexpr std::size_t kMaxTextBytes = std::size_t{4} << 20;
constexpr std::size_t kMaxRuns = 10000;
constexpr double kDerivationTolerance = 1e-3;
const std::string kParseCode = "calibration.parse";

const std::string kUnitSeconds = "s/iter";
const std::string kUnitFlops = "TFLOP/s per GPU";
const std::string kUnitTokens = "tokens/s per GPU";

using nlohmann::json;

std::string formatNumber(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", value);
    return buffer;
}

// Reads one run; the first error wins and names the file and the row.
class RunReader {
public:
    RunReader(std::string origin, std::size_t index, const json& row)
        : origin_(std::move(origin)), index_(index), row_(row) {}

    Result<Run> read() {
        if (!row_.is_object())
            return fail("must be an object");
        static const std::set<std::string> kKeys{"id",          "source",   "table",
                                                 "model",       "train",    "hardware",
                                                 "mesh",        "devices",  "pipeline_parallel",
                                                 "plan",        "remat",    "global_batch",
                                                 "micro_batch", "measured", "measured_step_s",
                                                 "derivation",  "notes",    "fusion",
                                                 "attention",   "runtime"};
        if (row_.contains("id") && row_["id"].is_string())
            id_ = row_["id"].get<std::string>();
        for (auto it = row_.begin(); it != row_.end(); ++it)
            if (!it.key().starts_with("_") && !kKeys.count(it.key()))
                return fail("unknown key '" + it.key() + "'");
        Run r;
        if (!text("id", r.id) || !text("source", r.source) || !text("model", r.model) ||
            !text("hardware", r.hardware) || !text("mesh", r.mesh) || !text("plan", r.plan) ||
            !text("remat", r.remat) || !text("derivation", r.derivation) || !optionalText("table", r.table) ||
            !optionalText("notes", r.notes))
            return *error_;
        if (!train(r) || !integer("devices", r.devices) ||
            !integer("pipeline_parallel", r.pipelineParallel) || !integer("global_batch", r.globalBatch) ||
            !microBatch(r) || !measured(r) || !positive(row_, "measured_step_s", r.measuredStepSeconds))
            return *error_;
        std::string fusion;
        if (!optionalText("fusion", fusion))
            return *error_;
        if (!fusion.empty()) {
            r.fusion = cost::parseFusion(fusion);
            if (!r.fusion)
                return fail("unknown fusion '" + fusion + "' (xla or none)");
        }
        std::string runtime;
        if (!optionalText("runtime", runtime))
            return *error_;
        if (!runtime.empty()) {
            r.runtime = cost::parseRuntime(runtime);
            if (!r.runtime)
                return fail("unknown runtime '" + runtime + "' (xla or eager)");
        }
        std::string attention;
        if (!optionalText("attention", attention))
            return *error_;
        if (!attention.empty()) {
            r.attention = cost::parseAttention(attention);
            if (!r.attention)
                return fail("unknown attention '" + attention + "' (fused or materialized)");
        }
        const auto& policies = rematPolicies();
        if (std::find(policies.begin(), policies.end(), r.remat) == policies.end())
            return fail("unknown remat policy '" + r.remat + "' (none, selective, full or dots-saveable)");
        if (!consistent(r))
            return *error_;
        return r;
    }

private:
    // Records the first error; false, for `return reject(...)` in the readers below.
    bool reject(const std::string& message) {
        fail(message);
        return false;
    }
    Diagnostic fail(const std::string& message) {
        if (!error_) {
            std::string where = origin_ + ": run " + std::to_string(index_ + 1);
            if (!id_.empty())
                where += " (" + id_ + ")";
            error_ = makeError(kParseCode, where + ": " + message);
        }
        return *error_;
    }

    bool text(const char* key, std::string& out) {
        const auto it = row_.find(key);
        if (it == row_.end() || !it->is_string() || it->get<std::string>().empty())
            return reject(std::string("'") + key + "' must be a non-empty string");
        out = it->get<std::string>();
        return true;
    }
    bool optionalText(const char* key, std::string& out) {
        const auto it = row_.find(key);
        if (it == row_.end() || it->is_null())
            return true;
        if (!it->is_string())
            return reject(std::string("'") + key + "' must be a string or null");
        out = it->get<std::string>();
        return true;
    }
    bool integer(const char* key, std::int64_t& out) {
        const auto it = row_.find(key);
        if (it == row_.end() || !it->is_number_integer() || it->get<std::int64_t>() < 1)
            return reject(std::string("'") + key + "' must be a positive integer");
        out = it->get<std::int64_t>();
        return true;
    }
    bool positive(const json& object, const char* key, double& out, const std::string& path = "") {
        const auto it = object.find(key);
        if (it == object.end() || !it->is_number() || !std::isfinite(it->get<double>()) ||
            !(it->get<double>() > 0))
            return reject("'" + path + key + "' must be a positive number");
        out = it->get<double>();
        return true;
    }

    bool train(Run& r) {
        const auto it = row_.find("train");
        if (it == row_.end() || !it->is_object())
            return reject("'train' must be an object {\"optimizer\", \"mixed_precision\"}");
        for (auto k = it->begin(); k != it->end(); ++k)
            if (!k.key().starts_with("_") && k.key() != "optimizer" && k.key() != "mixed_precision")
                return reject("unknown key 'train." + k.key() + "'");
        const auto optimizer = it->find("optimizer");
        if (optimizer == it->end() || !optimizer->is_string())
            return reject("'train.optimizer' must be a string (sgd, adam or adamw)");
        r.optimizer = optimizer->get<std::string>();
        const auto mixed = it->find("mixed_precision");
        if (mixed == it->end() || !mixed->is_boolean())
            return reject("'train.mixed_precision' must be true or false");
        r.mixedPrecision = mixed->get<bool>();
        return true;
    }

    bool microBatch(Run& r) {
        const auto it = row_.find("micro_batch");
        if (it == row_.end() || it->is_null())
            return true;
        std::int64_t value = 0;
        if (!integer("micro_batch", value))
            return false;
        r.microBatch = value;
        return true;
    }

    bool measured(Run& r) {
        const auto it = row_.find("measured");
        if (it == row_.end() || !it->is_object())
            return reject("'measured' must be an object {\"value\", \"unit\", ...}");
        for (auto k = it->begin(); k != it->end(); ++k)
            if (!k.key().starts_with("_") && k.key() != "value" && k.key() != "unit" &&
                k.key() != "model_flops_per_step" && k.key() != "tokens_per_gpu_per_step" &&
                k.key() != "memory_gib")
                return reject("unknown key 'measured." + k.key() + "'");
        Measurement& m = r.measured;
        if (!positive(*it, "value", m.value, "measured."))
            return false;
        const auto unit = it->find("unit");
        if (unit == it->end() || !unit->is_string())
            return reject("'measured.unit' must be a string");
        m.unit = unit->get<std::string>();
        if (m.unit == kUnitFlops) {
            if (!positive(*it, "model_flops_per_step", m.modelFlopsPerStep, "measured."))
                return false;
        } else if (m.unit == kUnitTokens) {
            if (!positive(*it, "tokens_per_gpu_per_step", m.tokensPerGpuPerStep, "measured."))
                return false;
        } else if (m.unit != kUnitSeconds) {
            return reject("unknown unit '" + m.unit + "' (" + kUnitSeconds + ", " + kUnitFlops + " or " +
                          kUnitTokens + ")");
        }
        if (it->contains("memory_gib") && !(*it)["memory_gib"].is_null()) {
            double gib = 0;
            if (!positive(*it, "memory_gib", gib, "measured."))
                return false;
            m.memoryGiB = gib;
        }
        return true;
    }

    // The figures that must agree with each other: the derivation, the mesh's devices, the model's batch.
    bool consistent(const Run& r) {
        const double derived = derivedStepSeconds(r.measured, r.devices);
        if (std::abs(derived - r.measuredStepSeconds) > kDerivationTolerance * derived)
            return reject("'measured_step_s' is " + formatNumber(r.measuredStepSeconds) + " s, but " +
                          formatNumber(r.measured.value) + " " + r.measured.unit + " gives " +
                          formatNumber(derived) + " s");
        // Only the axes and sizes matter here; the links come from the hardware when the run is predicted.
        auto mesh = mesh::makeMesh(r.mesh, mesh::HardwareProfile{});
        if (!mesh)
            return reject("mesh: " + mesh.diagnostics().front().message);
        if (r.devices != mesh->devices())
            return reject("'devices' is " + std::to_string(r.devices) + ", but mesh " + r.mesh + " has " +
                          std::to_string(mesh->devices()) + " (a pipeline's axis is part of the mesh)");
        if (r.pipelineParallel < 1)
            return reject("'pipeline_parallel' must be 1 or more");
        if (r.microBatch && *r.microBatch > r.globalBatch)
            return reject("'micro_batch' (" + std::to_string(*r.microBatch) + ") exceeds 'global_batch' (" +
                          std::to_string(r.globalBatch) + ")");
        if (r.model.starts_with("zoo:")) {
            auto spec = zoo::parseModelSpec(std::string_view(r.model).substr(4));
            if (!spec)
                return reject("model: " + spec.diagnostics().front().message);
            const auto batch = spec->options.find("batch");
            if (batch != spec->options.end() && batch->second != std::to_string(r.globalBatch))
                return reject("the model's batch is " + batch->second + ", but 'global_batch' is " +
                              std::to_string(r.globalBatch) +
                              " (a zoo model's batch is the global batch: write " + r.model +
                              ",batch=" + std::to_string(r.globalBatch) + ")");
        }
        return true;
    }

    std::string origin_;
    std::size_t index_;
    const json& row_;
    std::string id_;
    std::optional<Diagnostic> error_;
};

Result<std::vector<Run>> parseRunsUnchecked(std::string_view text, const std::string& where) {
    auto fail = [&](const std::string& message) { return makeError(kParseCode, where + ": " + message); };
    if (text.size() > kMaxTextBytes)
        return fail("larger than 4 MiB; calibration runs are a short list");
    const json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded())
        return fail("invalid JSON");
    if (!doc.is_object())
        return fail("expected a JSON object with 'format', 'version' and 'runs'");
    for (auto it = doc.begin(); it != doc.end(); ++it)
        if (!it.key().starts_with("_") && it.key() != "format" && it.key() != "version" && it.key() != "runs")
            return fail("unknown key '" + it.key() + "'");
    if (!doc.contains("format") || doc["format"] != std::string(kFormat))
        return fail("'format' must be \"" + std::string(kFormat) + "\"");
    if (!doc.contains("version") || !doc["version"].is_number_integer())
        return fail("'version' must be an integer");
    if (doc["version"].get<std::int64_t>() != kVersion)
        return fail("version " + doc["version"].dump() + " is not supported (this build reads version " +
                    std::to_string(kVersion) + ")");
    if (!doc.contains("runs") || !doc["runs"].is_array())
        return fail("'runs' must be an array");
    const json& rows = doc["runs"];
    if (rows.size() > kMaxRuns)
        return fail("more than " + std::to_string(kMaxRuns) + " runs");
    std::vector<Run> runs;
    std::set<std::string> ids;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        auto run = RunReader(where, i, rows[i]).read();
        if (!run)
            return Result<std::vector<Run>>::failure(run.diagnostics());
        if (!ids.insert(run->id).second)
            return fail("run " + std::to_string(i + 1) + " (" + run->id + "): the id '" + run->id +
                        "' is used by an earlier run");
        runs.push_back(std::move(run).value());
    }
    return runs;
}

// Every diagnostic of `from` with "run ID: " in front of its message.
std::vector<Diagnostic> aboutRun(const Run& run, std::vector<Diagnostic> from) {
    for (auto& d : from)
        d.message = "run " + run.id + ": " + d.message;
    return from;
}

Result<Prediction> predictUnchecked(const Run& run, const cost::CostOptions& options) {
    ProblemSpec spec;
    spec.model = run.model;
    spec.train = true;
    spec.optimizer = run.optimizer;
    spec.mixedPrecision = run.mixedPrecision;
    spec.hardware = run.hardware;
    spec.mesh = run.mesh;
    spec.cost = options;
    if (run.fusion)
        spec.cost.fusion = *run.fusion;
    if (run.attention)
        spec.cost.attention = *run.attention;
    if (run.runtime)
        spec.cost.runtime = *run.runtime;
    auto problem = loadProblem(spec);
    if (!problem)
        return Result<Prediction>::failure(aboutRun(run, problem.diagnostics()));
    const cost::CostModel& model = *(*problem)->costModel;
    auto plan = plan::expertPlan(run.plan, model.planContext(), model.mesh());
    if (!plan)
        return Result<Prediction>::failure(aboutRun(run, plan.diagnostics()));
    // The run's recompute policy for every block of layers (validated by parseRuns).
    plan = plan::withRemat(std::move(plan).value(), plan::parseRemat(run.remat).value_or(plan::Remat::None),
                           model.planContext().blocks());
    const int stages = plan->pipeline ? plan->pipeline->stages : 1;
    if (stages != run.pipelineParallel)
        return makeError("calibration.pipeline",
                         "run " + run.id + ": it ran " + std::to_string(run.pipelineParallel) +
                             " pipeline stages, but plan " + run.plan + " has " + std::to_string(stages) +
                             (stages == 1 ? " (add +pp@AXIS on a mesh axis of that size)" : ""));
    // A published micro batch: the local batch in microbatches of that size (gradient accumulation, or the
    // pipeline's microbatches, which the pp expert makes one example each).
    if (run.microBatch && *run.microBatch > 0) {
        const std::int64_t perExample =
            plan->pipeline ? plan->microbatches : plan::localBatch(model.planContext(), model.mesh(), *plan);
        plan->microbatches = static_cast<int>(std::max<std::int64_t>(1, perExample / *run.microBatch));
    }
    const cost::Evaluation evaluation = cost::evaluate(model, *plan);
    Prediction p;
    for (const auto& decision : plan->decisions)
        p.plan +=
            (p.plan.empty() ? "" : ", ") + plan::decisionText(decision, model.planContext(), model.mesh());
    for (const auto& remat : plan->remat)
        p.plan += (p.plan.empty() ? "remat " : ", remat ") + plan::rematText(remat);
    if (const std::string staged = plan::pipelineText(*plan, model.mesh()); !staged.empty())
        p.plan += (p.plan.empty() ? "" : ", ") + staged;
    if (evaluation.pipeline && !evaluation.pipeline->problem.empty())
        return makeError("calibration.pipeline", "run " + run.id + ": " + evaluation.pipeline->problem);
    p.stepSeconds = evaluation.stepTime;
    p.peakBytes = evaluation.peakMemory;
    p.capacityBytes = evaluation.capacity;
    p.feasible = evaluation.feasible;
    p.ratio = evaluation.stepTime / run.measuredStepSeconds;
    Result<Prediction> result(std::move(p));
    result.addDiagnostics(
        aboutRun(run, plan::checkDivisibility(*plan, model.planContext(), model.mesh(), "plan " + run.plan)));
    return result;
}

}  // namespace

const std::vector<std::string>& rematPolicies() {
    static const std::vector<std::string> policies{"none", "selective", "full", "dots-saveable"};
    return policies;
}

double derivedStepSeconds(const Measurement& m, std::int64_t devices) {
    if (!(m.value > 0))
        return 0;
    if (m.unit == kUnitSeconds)
        return m.value;
    if (m.unit == kUnitFlops)
        return devices > 0 ? m.modelFlopsPerStep / (static_cast<double>(devices) * m.value * 1e12) : 0;
    if (m.unit == kUnitTokens)
        return m.tokensPerGpuPerStep / m.value;
    return 0;
}

Result<std::vector<Run>> parseRuns(std::string_view jsonText, std::string_view origin) {
    const std::string where(origin);
    try {
        return parseRunsUnchecked(jsonText, where);
    } catch (
        const std::exception& e) {  // std::bad_alloc, or a json accessor this reader should not have reached
        return makeError(kParseCode, where + ": " + e.what());
    }
}

Result<std::vector<Run>> builtinRuns() {
    std::vector<Run> all;
    for (const auto& [name, text] : detail::builtinCalibrationFiles()) {
        auto runs = parseRuns(text, name);
        if (!runs)
            return runs;
        for (auto& run : *runs)
            all.push_back(std::move(run));
    }
    return all;
}

Result<Prediction> predict(const Run& run, const cost::CostOptions& options) {
    try {
        return predictUnchecked(run, options);
    } catch (const std::exception& e) {  // std::bad_alloc from a model too large to build
        return makeError("calibration.predict", "run " + run.id + ": " + e.what());
    }
}

Outcome calibrate(const Run& run, const cost::CostOptions& options) {
    Outcome outcome;
    auto prediction = predict(run, options);
    if (!prediction) {
        outcome.diagnostics = prediction.diagnostics();
        return outcome;
    }
    outcome.status = Outcome::Status::Predicted;
    outcome.prediction = std::move(prediction).value();
    return outcome;
}

Summary summarize(const std::vector<Run>& runs, const std::vector<Outcome>& outcomes) {
    Summary s;
    std::vector<double> errors;
    for (std::size_t i = 0; i < outcomes.size() && i < runs.size(); ++i) {
        if (outcomes[i].status != Outcome::Status::Predicted)
            continue;
        const double error = std::abs(outcomes[i].prediction.ratio - 1.0);
        errors.push_back(error);
        if (s.worstRun.empty() || error > s.worstError) {
            s.worstError = error;
            s.worstRun = runs[i].id;
        }
    }
    s.predicted = errors.size();
    if (errors.empty())
        return s;
    std::sort(errors.begin(), errors.end());
    const std::size_t n = errors.size();
    s.medianError = n % 2 == 1 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
    return s;
}

}  // namespace shardscope::calibration
