// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Plans and their application (docs/design.md, "Plans").
//
// A plan is an ordered list of decisions `(name-or-group, axis)` plus resolutions of repeated-name conflicts.
// Applying it gives every tensor dimension its ordered mesh axes, in Shardy's style: `[{"data"}, {},
// {"model"}]`.
//
// One extension to docs/design.md, "Plans": a decision may be restricted to tensors of some classes
// (TensorClass). Names unify a parameter with its gradient and optimizer states (the update is elementwise),
// so "shard the optimizer states but not the parameters" (ZeRO-1) or "...and the gradients" (ZeRO-2) cannot
// be said with names alone. An unrestricted decision (the default) reaches every class.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shardscope/analysis/decision_space.h"
#include "shardscope/analysis/layer_blocks.h"
#include "shardscope/ir/graph.h"
#include "shardscope/mesh/mesh.h"

namespace shardscope::plan {

// What a tensor is for; decides memory accounting and which tensors a restricted decision reaches.
enum class TensorClass : std::uint8_t {
    Activation,       // everything not below: batch inputs, forward and backward intermediates
    Parameter,        // parameter arguments and the results donated to them (the updated parameters)
    Gradient,         // the gradient of a parameter (ir::Graph::gradients)
    OptimizerState,   // optimizer-state arguments (moments, fp32 master weights, step) and their updated
                      // results
    OptimizerUpdate,  // intermediates of the optimizer update: values computed from a gradient or an
                      // optimizer state
};
inline constexpr int kTensorClassCount = 5;
using TensorClassMask = std::uint8_t;
inline constexpr TensorClassMask kAllTensorClasses = (1u << kTensorClassCount) - 1;
constexpr TensorClassMask maskOf(TensorClass c) {
    return static_cast<TensorClassMask>(1u << static_cast<unsigned>(c));
}
std::string_view toString(
    TensorClass c);  // "activation", "parameter", "gradient", "optimizer_state", "optimizer_update"
std::optional<TensorClass> parseTensorClass(std::string_view text);

// The class of every value of `graph` (indexed by ValueId), nested-region values included (as Activation).
std::vector<TensorClass> classifyTensors(const ir::Graph& graph);

// An ordered list of at most 8 mesh axes (indices into Mesh::axes), major first: the axes of one dimension.
class AxisList {
public:
    int size() const {
        int n = 0;
        for (std::uint32_t b = bits_; b != 0; b >>= 4)
            ++n;
        return n;
    }
    bool empty() const { return bits_ == 0; }
    int operator[](int i) const { return static_cast<int>((bits_ >> (4 * i)) & 0xF) - 1; }
    void push(int axis) { bits_ |= static_cast<std::uint32_t>(axis + 1) << (4 * size()); }
    void append(const AxisList& other) {
        for (int i = 0; i < other.size(); ++i)
            push(other[i]);
    }
    std::uint32_t mask() const {
        std::uint32_t m = 0;
        for (std::uint32_t b = bits_; b != 0; b >>= 4)
            m |= 1u << ((b & 0xF) - 1);
        return m;
    }
    bool contains(int axis) const { return (mask() >> axis) & 1u; }
    std::uint32_t bits() const { return bits_; }
    friend bool operator==(const AxisList&, const AxisList&) = default;

private:
    std::uint32_t bits_ = 0;
};

// Product of the sizes of the axes in `mask`.
std::int64_t devicesOf(const mesh::Mesh& mesh, std::uint32_t axisMask);

// A tensor's sharding: for each dimension, its mesh axes major to minor.
struct TensorSharding {
    std::vector<AxisList> dimensions;
    std::uint32_t mask() const;  // every axis the tensor uses
    // Shardy's form `[{"data"}, {}, {"model", "x"}]`.
    std::string toString(const mesh::Mesh& mesh) const;
    friend bool operator==(const TensorSharding&, const TensorSharding&) = default;
};

struct Decision {
    enum class Target : std::uint8_t { Group, Name };
    Target target = Target::Group;
    std::uint32_t index = 0;                      // a GroupId or NameId index, per `target`
    int axis = 0;                                 // index into Mesh::axes
    TensorClassMask tensors = kAllTensorClasses;  // only tensors of these classes take the axis
    friend bool operator==(const Decision&, const Decision&) = default;
};

// For a repeated name: which of a tensor's dimensions carrying the name gets the axis, counted major to minor
// (0 = the first, the default without a resolution). The others stay whole there.
struct Resolution {
    analysis::NameId name;
    int dimension = 0;
    friend bool operator==(const Resolution&, const Resolution&) = default;
};

// Rematerialization (docs/design.md, "Plans"): which forward values of a block of layers stay in memory until
// the backward pass; the others are recomputed there (their ops run twice). Never changes a sharding.
//  - none: every forward value the backward reads is kept;
//  - selective (Korthikanti et al. 2022): the attention core (the score-sized values between q·kᵀ and ·v) is
//    recomputed; with fused attention it is never stored anyway, so selective equals none there;
//  - full: only the block's inputs are kept; the block's forward runs again before its backward;
//  - dots-saveable (JAX's checkpoint_policies.dots_saveable): the results of dot_general and convolution are
//    kept, everything else of the block is recomputed.
enum class Remat : std::uint8_t { None, Selective, Full, DotsSaveable };
inline constexpr int kRematCount = 4;
std::string_view toString(Remat policy);  // "none", "selective", "full", "dots-saveable"
std::optional<Remat> parseRemat(std::string_view text);

// The repeated blocks of a model (analysis/layer_blocks.h): from the ops' source names ("layers.3.mlp.fc" is
// in block "layers.3" of family "layers.*"), else from the repetition of its ops.
using analysis::LayerBlocks;
using analysis::layerBlocks;

// A rematerialization decision: `policy` for the blocks `target` names, a family ("layers.*") or one block
// ("layers.3").
struct RematDecision {
    std::string target;
    Remat policy = Remat::None;
    friend bool operator==(const RematDecision&, const RematDecision&) = default;
};

// The policy of every block (indexed like LayerBlocks::blocks): the last decision naming the block or its
// family, none where no decision does. Targets that name no block are ignored (plans are validated when
// parsed).
std::vector<Remat> rematPerBlock(const LayerBlocks& blocks, const std::vector<RematDecision>& remat);
// The same into `policy`, its buffer reused.
void rematPerBlock(const LayerBlocks& blocks, const std::vector<RematDecision>& remat,
                   std::vector<Remat>& policy);

// Pipeline parallelism (docs/design.md, "Plans", "Pipelines"): one mesh axis splits the model's repeated
// layers into contiguous stages; the batch runs through them in microbatches under a schedule.
//  - gpipe: every microbatch's forward, then every backward (keeps M microbatches' activations);
//  - 1f1b: after p − s − 1 warm-up forwards, stage s alternates one forward and one backward
//  (PipeDream-Flush,
//    Megatron's default; keeps at most p);
//  - interleaved: 1f1b over v virtual stages per device, layer chunks assigned round-robin (Megatron's
//    interleaved schedule; a smaller bubble for more point-to-point transfers; microbatches divisible by p).
enum class PipelineSchedule : std::uint8_t { GPipe, OneFOneB, Interleaved };
inline constexpr int kPipelineScheduleCount = 3;
std::string_view toString(PipelineSchedule schedule);  // "gpipe", "1f1b", "interleaved"
std::optional<PipelineSchedule> parsePipelineSchedule(std::string_view text);

struct Pipeline {
    int axis = 0;    // index into Mesh::axes: the axis whose devices hold the stages
    int stages = 2;  // p: divides the axis size; the axis's other factor (size / p) stays an
                     // SPMD axis of that size for the plan's decisions on it
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    int virtualStages = 1;            // v: chunks of layers per device (2 or more only with interleaved)
    std::vector<int> layersPerStage;  // per chunk (p·v of them, in layer order): the user's split; empty:
                                      // balanced by the chunks' cost
    friend bool operator==(const Pipeline&, const Pipeline&) = default;
};

struct Plan {
    std::string label;
    std::vector<Decision> decisions;  // priority order: an earlier decision wins a competition for an axis
    std::size_t pinned = 0;  // the first `pinned` decisions are the user's pins (the search keeps them)
    std::vector<Decision> forbidden;  // decisions the user forbade (the search never adds them)
    std::vector<Resolution> resolutions;
    std::vector<RematDecision>
        remat;  // in order: a later decision overrides an earlier one for the blocks both name
    // The step's batch runs as this many microbatches, one after another, their gradients accumulated (and
    // reduced once, after the last); with a pipeline they flow through its stages.
    int microbatches = 1;
    std::optional<Pipeline> pipeline;
    friend bool operator==(const Plan&, const Plan&) = default;
};

// Where a decision could not reach an occurrence of its name (docs/design.md, "Plans" "competition sites").
struct CompetitionSite {
    enum class Reason : std::uint8_t {
        AxisInUse,       // the tensor already uses the axis (an earlier decision, or the name on another
                         // dimension)
        NotDivisible,    // the atom's size is not divisible by the product of its axes
        MajorUnsharded,  // a more major atom of the same dimension is not fully sharded (Shardy's rule)
    };
    std::size_t decision = 0;  // index into Plan::decisions
    analysis::AtomId atom;
    Reason reason = Reason::AxisInUse;
};
std::string_view toString(CompetitionSite::Reason reason);

// Everything a plan application needs that does not depend on the plan: built once per model.
class PlanContext {
public:
    PlanContext(const ir::Graph& graph, const analysis::DecisionSpace& space);
    const ir::Graph& graph() const { return *graph_; }
    const analysis::DecisionSpace& space() const { return *space_; }
    const std::vector<TensorClass>& classes() const { return classes_; }
    // What applying a decision reads of an atom of a name: the atom, its dimension and size, and where
    // majorsOf() finds its major atoms. A name's atoms are ordered by (value, dimension, major to minor) and
    // laid out name after name, so that applyPlan reads memory in sequence.
    struct NameAtom {
        std::uint32_t atom;  // AtomId index
        std::int32_t dimension;
        std::int64_t size;
        std::uint32_t majors;
        analysis::AtomId id() const { return analysis::AtomId{atom}; }
    };
    // A more major atom of the same dimension with a size above 1: it must be fully sharded (the product of
    // its axes its size) before an atom of the dimension takes an axis.
    struct MajorAtom {
        std::uint32_t atom;  // AtomId index
        std::int64_t size;
    };
    // The atoms of a name.
    std::span<const NameAtom> nameAtoms(analysis::NameId name) const {
        const std::uint32_t begin = nameAtomsBegin_[name.index];
        return {flatAtoms_.data() + begin, nameAtomsBegin_[name.index + 1] - begin};
    }
    // The runs of nameAtoms(name) on one value (a value's atoms are consecutive there): the value, its tensor
    // class and the end of its run.
    struct ValueRun {
        ir::ValueId value;
        TensorClass tensorClass;
        std::uint32_t end;
    };
    const std::vector<ValueRun>& valueRunsOf(analysis::NameId name) const { return nameRuns_[name.index]; }
    // The major atoms of an atom of nameAtoms(), major to minor.
    std::span<const MajorAtom> majorsOf(const NameAtom& atom) const {
        return {majors_.data() + atom.majors, (&atom + 1)->majors - atom.majors};
    }
    // The names a decision reaches.
    std::vector<analysis::NameId> namesOf(const Decision& decision) const;
    // A decision's target in words: the group's or the name's label.
    std::string targetLabel(const Decision& decision) const;
    // The model's blocks of layers (layerBlocks of the graph), which remat decisions name.
    const LayerBlocks& blocks() const { return blocks_; }
    // pipelineLayers(blocks()), worked out once.
    const std::vector<std::int32_t>& pipelineLayers() const { return pipelineLayers_; }
    // The group of the batch dimension: the group labelled `batch` (the zoo's, labelled imports'), else the
    // group of the leading dimension of the largest input; none for a model without inputs.
    std::optional<analysis::GroupId> batchGroup() const { return batch_; }

private:
    const ir::Graph* graph_;
    const analysis::DecisionSpace* space_;
    std::vector<TensorClass> classes_;
    std::vector<std::vector<ValueRun>> nameRuns_;
    // Every name's atoms, name after name, then one more that ends the last one's major atoms; a name's
    // start, per name and one past the last; the major atoms of each.
    std::vector<NameAtom> flatAtoms_;
    std::vector<std::uint32_t> nameAtomsBegin_;
    std::vector<MajorAtom> majors_;
    LayerBlocks blocks_;
    std::vector<std::int32_t> pipelineLayers_;
    std::optional<analysis::GroupId> batch_;
};

// The result of applying a plan: the axes of every atom, and the competition sites.
struct AppliedPlan {
    std::vector<AxisList> atomAxes;  // indexed by AtomId
    std::vector<CompetitionSite> competitions;
    // The sharding of one value (its dimensions' atoms' axes concatenated major to minor).
    TensorSharding sharding(const analysis::DecisionSpace& space, ir::ValueId value) const;
};

// Applies `plan` (docs/design.md, "Plans"): decisions in order; each occurrence of a decided name takes the
// axis unless the tensor already uses it, the atom's size is not divisible by the product of its axes, or a
// more major atom of the dimension is not fully sharded; those occurrences become competition sites.
// Decisions whose axis or target is out of range are ignored (plans are validated when parsed).
// Deterministic; linear in the atoms of the decided names.
AppliedPlan applyPlan(const PlanContext& context, const mesh::Mesh& mesh, const Plan& plan);
// The same into `out`, reusing its buffers: applying plan after plan into one AppliedPlan allocates nothing
// once they have grown.
void applyPlan(const PlanContext& context, const mesh::Mesh& mesh, const Plan& plan, AppliedPlan& out);

// Why `plan`'s microbatches or pipeline cannot run on `mesh` for this model, or none when they can: an axis
// out of range, stages below 2 or not dividing the axis size, more chunks (stages × virtual stages) than the
// model's layers (LayerBlocks' largest family) or no such layers, a schedule and virtual-stage count that do
// not go together (virtual stages need interleaved, interleaved needs 2 or more and microbatches divisible by
// the stages), a split whose length or sum is wrong or that leaves a chunk empty, microbatches below 1 or
// above the batch. Whether the batch divides into the microbatches on every device is known only when the
// plan is applied (cost::Evaluation::pipeline says so).
std::optional<std::string> pipelineProblem(const PlanContext& context, const mesh::Mesh& mesh,
                                           const Plan& plan);

// The size of the batch dimension: the largest name of PlanContext::batchGroup; 0 for a model without one.
std::int64_t batchSize(const PlanContext& context);

// The examples one replica computes under `plan`: the batch over the devices that the plan's decisions on the
// batch group reaching activations give it, a pipeline's axis counted over its stages; 1 when that does not
// divide or the model has no batch.
std::int64_t localBatch(const PlanContext& context, const mesh::Mesh& mesh, const Plan& plan);

// The layer blocks a pipeline splits, in order (the blocks of LayerBlocks' family with the most blocks); none
// for a model without repeated layers.
std::vector<std::int32_t> pipelineLayers(const LayerBlocks& blocks);

}  // namespace shardscope::plan
