// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Plans as versioned JSON (the file users save, edit and pass to `shardscope-cli evaluate --plan`).
//
// {"format": "shardscope-plan", "version": 1, "label": "...", "mesh": "data=8,model=4",
//  "decisions": [{"group": "batch", "axis": "data"},
//                {"name": "layers.0.mlp.d_ff", "axis": "model", "tensors": ["optimizer_state", "gradient"]}],
//  "pinned": 0, "forbidden": [...decisions...], "resolutions": [{"name": "seq", "dimension": 1}],
//  "remat": [{"target": "layers.*", "policy": "full"}, {"target": "layers.0", "policy": "none"}]}
//
// Decisions name their target by label (a group's role label or a name's label, as `analyze` prints them) and
// their axis by name, so a plan survives re-analysis of the same model. `tensors` is optional (every class).
// "remat" (Plan::remat, in order) is written only when the plan has rematerialization decisions; its targets
// are the block families and blocks of plan::layerBlocks ("layers.*", "layers.3"), its policies those of
// plan::toString(Remat): "none", "selective", "full", "dots-saveable". "microbatches" (Plan::microbatches) is
// written when it is not 1, "pipeline" (Plan::pipeline) when the plan has one:
//   "microbatches": 8, "pipeline": {"axis": "pipe", "stages": 2, "schedule": "1f1b", "virtual_stages": 1,
//                                   "layers_per_stage": [40, 44]}
// where "stages" defaults to the axis size, "schedule" to "1f1b", "virtual_stages" to 1 and an absent
// "layers_per_stage" balances the chunks by cost.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/plan/plan.h"

namespace shardscope::plan {

inline constexpr int kPlanJsonVersion = 1;

// The plan as pretty-printed JSON. parsePlan(toJson(p, c, m), c, m) == p.
std::string toJson(const Plan& plan, const PlanContext& context, const mesh::Mesh& mesh);

// Parses a plan for this model and mesh. Errors name `origin` and the entry: not JSON, another format, a
// newer version, an unknown group, name, axis or tensor class (listing the mesh's axes and the plan's own
// mesh, for a plan of another model or mesh), a bad resolution (an unknown name, a dimension the name does
// not have), a bad remat decision (not an object of two strings, an unknown policy listing the four, a target
// that names no block or family of this model, listing some of its families), microbatches or a pipeline
// that cannot run (plan.pipeline: pipelineProblem's reasons, an unknown key or axis). Warnings: those of
// checkDivisibility.
//
// With `missingAxes` = Drop (carrying a plan to another mesh of the same model), a decision or forbidden
// decision whose axis the mesh lacks is left out instead, with a warning (code "plan.axis-dropped") that
// names it, e.g. "the plan: decisions[1] (layers.*.mlp.d_ff, model) is left out: the mesh has no axis 'model'
// (it has data)"; pins left out shorten the pinned prefix. Every other error still fails.
enum class MissingAxes : std::uint8_t { Fail, Drop };
Result<Plan> parsePlan(std::string_view json, const PlanContext& context, const mesh::Mesh& mesh,
                       std::string_view origin, MissingAxes missingAxes = MissingAxes::Fail);

// Warnings (code "plan.not-divisible") for the decisions of `plan` that shard nothing because the mesh does
// not divide their names: every occurrence the decision reaches was skipped as not divisible (docs/design.md,
// "Plans"), e.g. "plan.json: decision 1 (batch, data) shards nothing: data=3 divides no dimension of batch
// (size 8); use an axis whose size divides 8, or another mesh". Decisions that lose their axis to an earlier
// one are not reported (that is the plan's priority at work). `origin` starts each message: a file, "--pin",
// "expert:dp".
std::vector<Diagnostic> checkDivisibility(const Plan& plan, const PlanContext& context,
                                          const mesh::Mesh& mesh, std::string_view origin);

// The same objects inside a larger document (evaluation and search output): a decision in words.
std::string decisionText(const Decision& decision, const PlanContext& context, const mesh::Mesh& mesh);
// A rematerialization decision in words: "layers.*: full".
std::string rematText(const RematDecision& remat);
// A plan's microbatches and pipeline in words: "pipeline pipe: 2 stages, 1f1b, 8 microbatches", "4
// microbatches"; "" for a plan without either.
std::string pipelineText(const Plan& plan, const mesh::Mesh& mesh);

}  // namespace shardscope::plan
