// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// What `shardscope-cli info` reports about a model, as text for people and as versioned JSON for programs.
#pragma once

#include <string>

#include "shardscope/ir/statistics.h"
#include "shardscope/session/model_source.h"

namespace shardscope::report {

inline constexpr int kModelInfoJsonVersion = 1;

// How a training step was built from the model, for `info --train`.
struct TrainingSummary {
    std::string optimizer;  // "adam", "adamw", "sgd"
    bool mixedPrecision = false;
    std::size_t forwardOps = 0, backwardOps = 0,
                updateOps = 0;  // top-level ops per phase (loss counts as forward)
    double forwardFlops = 0;    // of the model alone, for the ratio
    std::int64_t gradientBytes = 0;
};

// Human-readable summary: the model, its inputs and outputs, op counts by kind, parameters, FLOPs, bytes;
// with `training`, `model.graph` is the training step and a section on its phases and bytes is added.
std::string modelInfoText(const LoadedModel& model, const ir::GraphStatistics& statistics,
                          const TrainingSummary* training = nullptr);

// JSON object (pretty-printed) with "version", "model", "ops", "parameters", "flops", "bytes",
// "inputs", "outputs", "partitioned", "meshes" and, with `training`, "training"; see the README.
std::string modelInfoJson(const LoadedModel& model, const ir::GraphStatistics& statistics,
                          const TrainingSummary* training = nullptr);

// "124.4 M", "1.75 T": counts with SI prefixes; "1.50 GiB" for bytes; "3.2 TFLOP" for FLOPs.
std::string formatCount(double count);
std::string formatBytes(double bytes);
std::string formatFlops(double flops);
// "1.234 s", "12.345 ms" or "56.7 us".
std::string formatTime(double seconds);

}  // namespace shardscope::report
