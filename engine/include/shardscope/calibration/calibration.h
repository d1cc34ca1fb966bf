// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Calibration (docs/cost-model.md "Truth is measured"): published, measured training runs as data, each
// predicted by the cost model with the plan the framework ran, and the error of those predictions.
//
// Runs are data, not code. The built-in ones are resources/calibration/published_runs.json, compiled into the
// engine; users write their own in the same format (docs/calibration.md):
//
//   {"format": "shardscope-calibration-runs", "version": 1, "runs": [{
//      "id": "megatron-7.1b", "source": "Megatron-LM README ...", "table": "row 7.1B: ...",
//      "model": "zoo:megatron-7.1b:batch=192,seq=4096",       // the zoo model; batch = the global batch
//      "train": {"optimizer": "adam", "mixed_precision": true},
//      "hardware": "h100", "mesh": "data=48,model=2",          // as --hardware and --mesh take them
//      "devices": 96, "pipeline_parallel": 1,                  // devices = mesh devices; the plan's stages
//      "plan": "megatron-sp@model+zero1@data", "remat": "none",
//      "global_batch": 192, "micro_batch": null,               // null: not published
//      "measured": {"value": 465.9, "unit": "TFLOP/s per GPU", "model_flops_per_step": 3.578e16},
//      "measured_step_s": 0.80003, "derivation": "...", "notes": "..."}]}
//
// An optional "fusion" ("xla" or "none") says how the framework ran the step's ops (eager PyTorch: "none"),
// and an optional "attention" ("fused" or "materialized") how it ran attention (before FlashAttention:
// "materialized"), an optional "runtime" ("xla" or "eager", cost::Runtime) how its framework runs ops whose
// layouts disagree. "unit" is "s/iter" (the step time itself), "TFLOP/s per GPU" (needs
// "model_flops_per_step": step = flops / (devices × value·1e12)) or "tokens/s per GPU" (needs
// "tokens_per_gpu_per_step": step = tokens / value); "memory_gib" (the published peak per GPU) is optional.
// "measured_step_s" must agree with that derivation within 0.1%, so a typo in either shows. "micro_batch",
// "table" and "notes" may be null or absent; keys starting with '_' are comments; any other unknown key is an
// error.
//
// A plan is an expert plan as plan::expertPlan reads it: an id over the whole mesh, or a composition
// `ID@AXIS+ID@AXIS...` ("megatron-sp@model+zero2@data": Megatron-Core's tensor + sequence parallelism inside
// the node with its distributed optimizer over the data ranks); the run's "remat" is applied to it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardscope/cost/cost_model.h"
#include "shardscope/diagnostic.h"
#include "shardscope/plan/plan.h"

namespace shardscope::calibration {

// The rematerialisation policies a run may name (docs/design.md, "Plans"): "none", "selective", "full",
// "dots-saveable".
const std::vector<std::string>& rematPolicies();

struct Measurement {
    double value = 0;
    std::string unit;                 // "s/iter", "TFLOP/s per GPU" or "tokens/s per GPU"
    double modelFlopsPerStep = 0;     // with "TFLOP/s per GPU"
    double tokensPerGpuPerStep = 0;   // with "tokens/s per GPU"
    std::optional<double> memoryGiB;  // the published peak memory per GPU, GiB
    friend bool operator==(const Measurement&, const Measurement&) = default;
};

struct Run {
    std::string id;
    std::string source;  // the citation
    std::string table;   // where in it: table and row
    std::string model;   // "zoo:NAME:..." (or a model file path)
    std::string optimizer = "adam";
    bool mixedPrecision = true;
    std::string hardware;  // a built-in profile id or a profile .json path
    std::string mesh;      // "data=48,model=2"
    std::int64_t devices = 0;
    std::int64_t pipelineParallel = 1;
    std::string plan;   // an expert id or a composition (see above)
    std::string remat;  // one of rematPolicies()
    // How the framework compiled the step, when it differs from the default (XLA-style fusion): "none" for
    // eager PyTorch, whose ops run one kernel each.
    std::optional<cost::Fusion> fusion;
    // How it ran attention, when not as flash attention: "materialized" for runs before FlashAttention.
    std::optional<cost::Attention> attention;
    // How its framework runs ops whose layouts disagree: "eager" for PyTorch and Megatron-LM (cost::Runtime).
    std::optional<cost::Runtime> runtime;
    std::int64_t globalBatch = 0;
    std::optional<std::int64_t> microBatch;
    Measurement measured;
    double measuredStepSeconds = 0;
    std::string derivation;
    std::string notes;

    friend bool operator==(const Run&, const Run&) = default;
};

// The step time `measured` implies on `devices` devices: the value itself (s/iter), model FLOPs / (devices ×
// FLOP/s), or tokens per GPU / (tokens/s per GPU). 0 when the unit is unknown or a needed figure is missing.
double derivedStepSeconds(const Measurement& measured, std::int64_t devices);

// Parses runs in the format above. `origin` names the text in errors, which also name the row:
// "runs.json: run 3 (megatron-16b): 'devices' is 96, but mesh data=48,model=4 × pipeline 1 has 192 devices".
// Checks every key's type, the remat policy, the unit and its figures, the derivation (0.1%), the mesh's
// syntax and its device count, that the zoo model parses and its batch equals global_batch, and that ids are
// unique. The text is at most 4 MiB and holds at most 10000 runs. Hardware profiles and plans are checked by
// predict().
Result<std::vector<Run>> parseRuns(std::string_view jsonText, std::string_view origin);

// The runs of resources/calibration/published_runs.json, parsed on each call.
Result<std::vector<Run>> builtinRuns();

struct Prediction {
    // The plan's decisions in words, then its rematerialization: "(layers.*.attn.heads, model), ..., remat
    // layers.*: selective".
    std::string plan;
    double stepSeconds = 0;
    double peakBytes = 0;      // per device
    double capacityBytes = 0;  // device memory × (1 − reserve)
    bool feasible = false;
    double ratio = 0;  // predicted / measured step time
    friend bool operator==(const Prediction&, const Prediction&) = default;
};

// Predicts one run: loads its training step (loadProblem with the run's model, optimizer, precision, hardware
// and mesh), builds its plan with the run's remat policy for every block family (plan::withRemat) and
// evaluates it. A published micro batch sets the plan's microbatches (the local batch in microbatches of that
// size). Errors: a plan whose pipeline stages are not the run's pipeline_parallel, a staged plan that cannot
// run ("calibration.pipeline"), and those of loading the problem (an unknown hardware profile, ...) or
// building the plan, prefixed with the run's id.
Result<Prediction> predict(const Run& run, const cost::CostOptions& options = {});

// What became of one run.
struct Outcome {
    enum class Status { Predicted, Failed };
    Status status = Status::Failed;
    Prediction prediction;                // when Predicted
    std::vector<Diagnostic> diagnostics;  // the errors when Failed
};
// predict() for one run, never failing as a whole: an error makes the run Failed.
Outcome calibrate(const Run& run, const cost::CostOptions& options = {});

struct Summary {
    std::size_t predicted = 0;  // runs with a prediction
    double medianError = 0;     // median over them of |predicted/measured − 1|
    double worstError = 0;      // the largest |predicted/measured − 1|
    std::string worstRun;       // its run's id ("" when none was predicted)
};
// `outcomes[i]` belongs to `runs[i]`; only Predicted outcomes count. Ties for the worst go to the first.
Summary summarize(const std::vector<Run>& runs, const std::vector<Outcome>& outcomes);

}  // namespace shardscope::calibration
