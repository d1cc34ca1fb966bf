// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Expert plans (docs/design.md, "Search"): the strategies people write by hand, each as a plan in the
// decision language, so they can be evaluated, shown, edited and used to seed the search.
//
// Names are found by their labels (`batch`, `seq`, `*.heads`, `*.kv_heads`, `*.d_ff`, `*.experts`): the
// zoo's, and those the analysis infers for imports from their names and structure
// (analysis/dimension_roles.h); a model without a `batch` label takes the leading dimension of its largest
// input. Mesh axes play roles by name: `data`/`batch`/`dp`/`fsdp` for data parallelism,
// `model`/`tensor`/`tp`/`mp` for tensor parallelism, `expert`/`ep` for experts; without such names the first
// axis is data and the last is model. One-dimensional strategies (dp, zero*, megatron, megatron-sp, ep) use
// every mesh axis for their dimension, major first; two-dimensional ones (dp-tp, fsdp-tp) put the batch on
// every axis but the model axis.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/plan/plan.h"

namespace shardscope::plan {

struct ExpertInfo {
    std::string id;
    std::string description;
};

// dp, zero1, zero2, zero3 (alias fsdp), megatron, megatron-sp, dp-tp, fsdp-tp, ep.
const std::vector<ExpertInfo>& expertPlans();

// Builds expert plan `id` for this model and mesh. `id` is parts joined by '+': strategies and at most one
// rematerialization policy.
// - A strategy is an expert's id on the whole mesh, or ID@AXIS on that one mesh axis:
// "megatron-sp@model+zero2@data"
//   is Megatron-Core's layout (tensor and sequence parallelism on the model axis, the batch and a distributed
//   optimizer on the data axis). A later strategy shards parameters, gradients and optimizer states along
//   groups no earlier one decided (ZeRO on data picks d_model where Megatron took d_ff and heads).
// - A policy ("fsdp+full", "megatron-sp+selective", "zero3+dots-saveable") applies to every block family of
// the
//   model (Plan::remat, one decision per family).
// Labels: a single strategy keeps its id ("zero3", "zero3+full"); a composition is labelled as written.
// Errors: an empty part, an unknown id (listing the known ones) or axis, an unknown policy (listing the
// four), a policy for a graph without a backward pass or a model without blocks of layers, a model without
// what the strategy needs (no input to take a batch from, no labelled heads/d_ff names for megatron, no
// experts for ep), a mesh without the axes it needs (dp-tp on a one-axis mesh). Warnings: a model exported
// with a batch of one (its inputs' leading dimension is 1) has no batch name to shard; the strategy is built
// without it (ZeRO and tensor parallelism still shard what they shard) and says so (plan.batch-of-one).
Result<Plan> expertPlan(std::string_view id, const PlanContext& context, const mesh::Mesh& mesh);

// The policies tried, in order, on an expert plan that does not fit (docs/design.md, "Search" "with the remat
// each needs to fit"): the cheapest recompute first.
inline constexpr Remat kRematFallbacks[] = {Remat::Selective, Remat::DotsSaveable, Remat::Full};

// The ids of expert `id`'s remat variants, in kRematFallbacks order ("zero3+selective", ...), for a training
// step of a model with blocks of layers; none otherwise (rematerialization changes nothing there).
std::vector<std::string> rematVariants(std::string_view id, const PlanContext& context);

// `plan` with `policy` for every family of `blocks` (its remat decisions replaced); none for Remat::None.
Plan withRemat(Plan plan, Remat policy, const LayerBlocks& blocks);

}  // namespace shardscope::plan
