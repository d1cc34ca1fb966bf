// Expert plans (DESIGN.md §6): the strategies people write by hand, each as a plan in the decision language, so
// they can be evaluated, shown, edited and used to seed the search.
//
// Names are found by their labels where the model has them (the zoo's and labelled imports': `batch`, `seq`,
// `*.heads`, `*.kv_heads`, `*.d_ff`, `*.experts`), and by structure otherwise (the batch is the leading
// dimension of the largest input). Mesh axes play roles by name: `data`/`batch`/`dp`/`fsdp` for data
// parallelism, `model`/`tensor`/`tp`/`mp` for tensor parallelism, `expert`/`ep` for experts; without such names
// the first axis is data and the last is model. One-dimensional strategies (dp, zero*, megatron, megatron-sp,
// ep) use every mesh axis for their dimension, major first; two-dimensional ones (dp-tp, fsdp-tp) put the
// batch on every axis but the model axis.
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

// Builds expert plan `id` for this model and mesh. Errors: an unknown id (listing the known ones), a model
// without what the strategy needs (no batch, no labelled heads/d_ff names for megatron, no experts for ep),
// a mesh without the axes it needs (dp-tp on a one-axis mesh).
Result<Plan> expertPlan(std::string_view id, const PlanContext& context, const mesh::Mesh& mesh);

}  // namespace shardscope::plan
