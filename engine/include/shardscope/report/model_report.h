// What `shardscope-cli info` reports about a model, as text for people and as versioned JSON for programs.
#pragma once

#include <string>

#include "shardscope/ir/statistics.h"
#include "shardscope/model_source.h"

namespace shardscope::report {

inline constexpr int kModelInfoJsonVersion = 1;

// Human-readable summary: the model, its inputs and outputs, op counts by kind, parameters, FLOPs, bytes.
std::string modelInfoText(const LoadedModel& model, const ir::GraphStatistics& statistics);

// JSON object (pretty-printed) with "version", "model", "ops", "parameters", "flops", "bytes",
// "inputs", "outputs"; see the README's file formats section.
std::string modelInfoJson(const LoadedModel& model, const ir::GraphStatistics& statistics);

// "124.4 M", "1.75 T": counts with SI prefixes; "1.50 GiB" for bytes; "3.2 TFLOP" for FLOPs.
std::string formatCount(double count);
std::string formatBytes(double bytes);
std::string formatFlops(double flops);

}  // namespace shardscope::report
