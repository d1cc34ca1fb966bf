// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A plan in the words of the frameworks users train with (docs/export.md, "Frameworks"): the parameters'
// shardings as a JAX snippet of PartitionSpecs and as PyTorch DTensor placements, a parallelize_module plan,
// and the plan's parallelism as degrees: a TorchTitan job config and Megatron-LM arguments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shardscope/cost/cost_model.h"
#include "shardscope/ir/graph.h"
#include "shardscope/mesh/mesh.h"
#include "shardscope/plan/plan.h"

namespace shardscope::exporting {

// One parameter argument and its sharding.
struct ParameterSharding {
    std::string name;  // the argument's name ("layers.0.mlp.fc.weight"), or "%argN" without one
    ir::TensorType type;
    plan::TensorSharding sharding;
};

// The graph's parameter arguments (role Parameter) with their shardings, in argument order. `shardings` is
// indexed by ValueId::index (e.g. AppliedPlan::sharding of every value).
std::vector<ParameterSharding> parameterShardings(const ir::Graph& graph,
                                                  const std::vector<plan::TensorSharding>& shardings);

// Python for JAX: the mesh (`Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))`, devices
// row-major as the plan assumes) and a dict from parameter name to `PartitionSpec` (`P(None, "model")`, a
// tuple for several axes on one dimension: `P(("data", "model"), None)`), plus `NamedSharding`s built from
// it. With rematerialization decisions (Plan::remat), also `remat_policies`, a list of (block or family,
// policy) in the plan's order, and `checkpointed(block, fn)`, which wraps a block's forward function in
// `jax.checkpoint` with the policy of the last entry naming the block ("layers.3") or its family
// ("layers.*"): none → no checkpoint; full → `jax.checkpoint_policies.nothing_saveable`; dots-saveable →
// `dots_saveable`; selective → `save_anything_except_these_names("attention_scores", "attention_probs")`,
// with a comment saying to tag the attention core with `checkpoint_name`.
std::string jaxSnippet(const mesh::Mesh& mesh, const std::vector<ParameterSharding>& parameters,
                       const std::vector<plan::RematDecision>& remat = {});

// Python for PyTorch: the DeviceMesh (`init_device_mesh("cuda", (4, 2), mesh_dim_names=("data", "model"))`)
// and, per parameter, its DTensor placements, one per mesh dimension: `Shard(d)` when tensor dimension d uses
// that mesh axis, else `Replicate()`. A dimension split over several axes is sharded on each of them, major
// axis first (DTensor's order is mesh order, so a dimension whose axes are not in mesh order is flagged in a
// comment). With rematerialization decisions, also `remat_policies` as for JAX and `apply_remat(model)`,
// which wraps each block module ("layers.3") in torch.distributed's `checkpoint_wrapper`: plainly for full;
// with an op-level selective-checkpoint context (TorchTitan's selective AC) that recomputes the attention ops
// for selective and saves only the matmuls for dots-saveable.
std::string dtensorSnippet(const mesh::Mesh& mesh, const std::vector<ParameterSharding>& parameters,
                           const std::vector<plan::RematDecision>& remat = {});

// One module's tensor-parallel style in a PyTorch `parallelize_module` plan.
struct ModuleStyle {
    enum class Kind : std::uint8_t { Colwise, Rowwise, Sequence };
    std::string module;  // the module's path: the parameter names' common prefix ("layers.0.attn.q_proj")
    Kind kind = Kind::Colwise;
    int axis = 0;               // the mesh axis the style parallelises over (its 1-D sub-mesh)
    std::string inputLayouts;   // Colwise: "Shard(d)" when the input arrives sharded on dimension d; else ""
    std::string outputLayouts;  // Rowwise: "Shard(d)" when the output leaves sharded on dimension d; else ""
    int sequenceDim = 1;        // Sequence: the activation dimension sharded over the axis
    friend bool operator==(const ModuleStyle&, const ModuleStyle&) = default;
};

// A plan's parameters as PyTorch's tensor parallelism says them.
struct ParallelizePlan {
    std::vector<ModuleStyle> styles;          // in parameter order
    std::vector<ParameterSharding> leftover;  // sharded parameters no style covers (their DTensor placements)
    std::vector<std::string> notes;           // why each left-over parameter is left over, one line each
};

// Reads tensor-parallel styles off the plan (shardings indexed by ValueId::index) and the module structure of
// the parameter names (`layers.0.mlp.fc.weight`: module `layers.0.mlp.fc`):
// - a Linear is a module with a 2-D weight that a dot_general consumes (through convert, transpose and
//   sharding constraints): the weight's contracting dimension there is its input features, the other its
//   output features, so [in, out] (JAX, the zoo) and [out, in] (torch.nn.Linear) weights read alike;
// - ColwiseParallel on axis a when the output-feature dimension and the dot's matching result dimension carry
//   a; RowwiseParallel when the input-feature dimension and the activation's contracting dimension carry a (a
//   sharded contraction: partial sums, as Megatron's row-parallel layer). input_layouts (Colwise) and
//   output_layouts (Rowwise) are set when the activation going in, or the result coming out, is sharded on
//   another dimension over a (sequence parallelism: `Shard(1)`). A bias sharded like the style shards it
//   (Colwise: on its features; Rowwise: replicated) is covered by the style;
// - SequenceParallel on axis a for a module whose parameters are all 1-D (a norm) when a is an axis some
//   Linear is tensor-parallel on, the parameters are replicated over a, and the activation they scale carries
//   a on a dimension other than its last (sequence_dim, 1 by default);
// - anything else sharded (weights of other ops, embeddings, data-parallel or FSDP axes, a module parallel on
//   two axes, parameters without a module path) is left over, with a note.
ParallelizePlan parallelizePlan(const ir::Graph& graph, const mesh::Mesh& mesh,
                                const std::vector<plan::TensorSharding>& shardings);

// Python for PyTorch: the DeviceMesh, one `parallelize_module(model, mesh["axis"], plan)` per tensor-parallel
// axis with its dict of module path to ColwiseParallel/RowwiseParallel/SequenceParallel, and the left-over
// parameters' DTensor placements (as dtensorSnippet writes them) with the notes as comments; and the
// rematerialization decisions' `apply_remat(model)` as dtensorSnippet writes it.
std::string parallelizeSnippet(const mesh::Mesh& mesh, const ParallelizePlan& plan,
                               const std::vector<plan::RematDecision>& remat = {});

// A plan's parallelism as the degrees training frameworks take (TorchTitan, Megatron-LM): each mesh axis gets
// the role its decisions give it, and what no degree says is listed in `lost`.
struct TrainingParallelism {
    enum class Role : std::uint8_t { None, DataReplicate, DataShard, Tensor, Context, Pipeline };
    struct Axis {
        std::string name;
        std::int64_t size = 1;  // the pipeline axis: its SPMD remainder (size / stages)
        Role role = Role::None;
    };
    std::vector<Axis> axes;  // in mesh order (major first); axes of size 1 left out
    std::int64_t devices = 1;
    // Degrees, 1 when unused: products of their axes' sizes (the pipeline's is its stages).
    std::int64_t dataReplicate = 1, dataShard = 1, tensor = 1, context = 1, expert = 1;
    bool sequenceParallel = false;  // a tensor-parallel axis also shards the sequence
    // Sharding over the data axes beyond the parameters: ZeRO-1 (States), ZeRO-2 (StatesAndGradients), on
    // data-parallel axes whose parameters stay replicated.
    enum class OptimizerSharding : std::uint8_t { None, States, StatesAndGradients };
    OptimizerSharding optimizerSharding = OptimizerSharding::None;
    std::int64_t batch = 0;  // the step's (global) batch; 0: the model has no batch name
    int microbatches = 1;
    std::optional<plan::Pipeline> pipeline;  // layersPerStage filled: the plan's split or the evaluation's
    std::vector<std::string> layers;         // the repeated layers (plan::pipelineLayers): "layers.0", ...
    std::vector<plan::Remat> remat;          // per layer
    std::vector<std::string> lost;           // what the degrees cannot say, one sentence each
};

// Reads the degrees off `plan` applied on `mesh` (`applied`): a tensor-parallel axis is one some
// parallelize_module style uses (parallelizePlan); a data axis shards the batch, sharded (FSDP) when it also
// shards parameters on names other than experts, else replicated; an axis sharding only the sequence is
// context parallel; the expert degree is the data axes that shard an `experts` name. The pipeline's split is
// the plan's, else the balanced one of `evaluation` (when given, with one chunk per stage × virtual stage).
// Axes of other use (or none) are listed in `lost`.
TrainingParallelism trainingParallelism(const plan::PlanContext& context, const mesh::Mesh& mesh,
                                        const plan::Plan& plan, const plan::AppliedPlan& applied,
                                        const cost::PipelineEvaluation* evaluation = nullptr);

// A framework's configuration text and what it could not say (each also a comment in `text`).
struct FrameworkConfig {
    std::string text;
    std::vector<std::string> lost;
};

// TOML for TorchTitan's job config (torchtitan/config/job_config.py, the version with
// pipeline_parallel_split_points): [parallelism] with data_parallel_replicate_degree,
// data_parallel_shard_degree, tensor_parallel_degree, context_parallel_degree, pipeline_parallel_degree,
// expert_parallel_degree (when > 1), pipeline_parallel_schedule ("GPipe", "1F1B", "Interleaved1F1B"),
// pipeline_parallel_split_points (the first layer of every chunk but the first, e.g. ["layers.4"]) and
// pipeline_parallel_microbatch_size; [training] local_batch_size and global_batch_size (gradient
// accumulation when their ratio exceeds the data-parallel degree); [activation_checkpoint] mode. What has no
// option (ZeRO-1/2, tensor parallelism without sequence parallelism, remat other than none or full on every
// layer, ...) is a `# lost:` comment and an entry of `lost`.
FrameworkConfig torchTitanConfig(const TrainingParallelism& parallelism, const std::string& title);

// Megatron-LM command-line arguments (megatron/training/arguments.py) as a bash array: --num-layers,
// --tensor-model-parallel-size, --sequence-parallel, --context-parallel-size, --pipeline-model-parallel-size,
// --num-layers-per-virtual-pipeline-stage (interleaved, equal chunks), --decoder-first-pipeline-num-layers /
// --decoder-last-pipeline-num-layers (an uneven split whose middle stages are equal),
// --expert-model-parallel-size, --micro-batch-size, --global-batch-size, --use-distributed-optimizer
// (ZeRO-1/2), --use-torch-fsdp2 (parameters sharded over the data axes), --recompute-granularity,
// --recompute-method and --recompute-num-layers. The data-parallel size is Megatron's remainder. What has no
// flag (GPipe, other splits, dots-saveable, ...) is a `# lost:` comment and an entry of `lost`.
FrameworkConfig megatronArguments(const TrainingParallelism& parallelism, const std::string& title);

}  // namespace shardscope::exporting
