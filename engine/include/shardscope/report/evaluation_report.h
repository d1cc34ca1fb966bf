// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// What `shardscope-cli evaluate` reports: a plan's step time, memory and collectives, as text and as
// versioned JSON.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "shardscope/cost/cost_model.h"
#include "shardscope/diagnostic.h"
#include "shardscope/session/model_source.h"

namespace shardscope::report {

inline constexpr int kEvaluationJsonVersion = 1;

// Summary (the plan's decisions, and its rematerialization decisions for a training step or when it has
// some), memory at the peak and model states, collectives by kind and the `maxCollectives` slowest (0 = all).
std::string evaluationText(const LoadedModel& model, const cost::CostModel& costModel, const plan::Plan& plan,
                           const cost::Evaluation& evaluation, std::size_t maxCollectives = 20);

// {"version": 1, "model", "mesh": {"axes": [{name, size, bandwidth_bytes_per_s, latency_s}], "devices"},
//  "hardware": {"id", "name", "memory_bytes"}, "plan": <the plan's JSON object, its "remat" decisions
//  included>, "step_time_s", "compute_time_s", "collective_time_s", "lower_bound_time_s",
//  "peak_memory_bytes", "capacity_bytes", "feasible", "peak_op": {op, label, location},
//  "memory_breakdown": {parameters, gradients, optimizer_state, activations, temporaries} (bytes per device
//  at the peak), "model_states": {parameters, gradients, optimizer_state} (bytes per device of those tensors,
//  whatever their lifetimes), "collectives": [{kind, axes: [names], bytes, time_s, op, label, location,
//  tensor}], "collectives_by_kind": {kind: {count, bytes, time_s}}, "competition_sites", "slowest_ops": [{op,
//  label, location, time_s}] (the 20 with the most compute time per device), and for a plan with microbatches
//  or a pipeline "pipeline": {axis, stages, microbatches, schedule, virtual_stages, bubble_fraction,
//  microbatch_time_s, problem, chunks: [{device, first_layer, layers, forward_time_s, backward_time_s,
//  send_bytes, send_time_s, gradient_sync_time_s, update_time_s, activation_bytes}], per_stage:
//  [{peak_memory_bytes, memory_breakdown, in_flight, busy_time_s, end_s}]} (cost::PipelineEvaluation)}.
std::string evaluationJson(const LoadedModel& model, const cost::CostModel& costModel, const plan::Plan& plan,
                           const cost::Evaluation& evaluation);

// The warnings and notes among `diagnostics` as the "warnings" array of every JSON report: one object each
// with "message", "code", "severity" and, where known, "file", "line", "column" and "op" (the source's name
// for it).
std::string warningsJson(const std::vector<Diagnostic>& diagnostics);
// `reportJson` (a JSON object) indented, with "warnings": warningsJson(warnings) added, and a final newline.
std::string withWarnings(const std::string& reportJson, const std::vector<Diagnostic>& warnings);

}  // namespace shardscope::report
