// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The cost model (docs/cost-model.md): a plan's per-op execution shardings, collectives, step time and
// per-device peak memory, on a mesh of a given hardware.
//
// Choices made where docs/design.md is silent (also in the README):
// - Partial sums are reduced lazily, as XLA's all-reduce reassociation does: a result left partial over axes
// it
//   is replicated on stays partial through add, subtract, negate, reshape and transpose when every operand is
//   partial over the same axes, and is all-reduced once where a consumer needs the sum (or at a function
//   result). So Megatron's backward `dx = dq·Wqᵀ + dk·Wkᵀ + dv·Wvᵀ` costs one all-reduce, not three. The
//   all-reduce is attributed to the op that produced the value it reduces.
// - A value resharded alike for several ops (x gathered for the q, k and v projections) is resharded once, at
//   its first use; the copy counts as a temporary of each op that uses it (not in between). Each op still
//   chooses its execution as if it paid for the reshard itself.
// - An op's compute uses the peak of its first operand's element type; constants and reshapes cost nothing; a
//   control op (while, case) costs its regions' work (while bodies trip-count times), divided by the devices
//   its own execution sharding splits it over.
// - Memory: a value lives from its producer to its last top-level use (uses inside regions count for the
//   op that holds the region); arguments live the whole step unless a result is donated to them, then until
//   their last use; results live to the end. Temporaries (resharded operands, results before their reduction)
//   live for their op.
// - Ops run as kernels (CostOptions::fusion, ::attention; the rules are in engine/src/cost/kernels.h): a
// fused
//   kernel reads its stored inputs and writes its stored outputs once and takes
//   max(FLOPs / (peak·eff), bytes / (HBM·eff)) + one launch; only stored values take memory. Broadcasts and
//   iotas are always folded into their users: their operands live on in their place. The efficiencies come
//   from the hardware profile's tables at the kernel's local GEMM shape and bytes (CostOptions::efficiency
//   0).
// - An all-reduce takes the faster of a ring and a tree (2·(α·⌈log2 n⌉ + B/bw)), as NCCL's tuner picks.
//   Gradients, parameters and optimizer states move in 25 MB buckets: such a tensor pays its share of the
//   latency.
// - Rematerialization (Plan::remat, per block of layers): a value the block's policy drops lives in the
// forward
//   and again from the block's recompute (its first backward op) to its last use; the values the recompute
//   reads live until it; the recomputed kernels and their collectives run again there (in the schedule a
//   recomputed value's collective is ready when that op's kernel may start, and the op waits for it).
// - The step time is the makespan of a simulated schedule (schedule.h): kernels in program order on one
// compute
//   stream, one communication stream per mesh axis (a collective on several axes on its slowest axis's); a
//   reshard before the op that needs it, a reduction before its result's first use, parameter gathers no
//   earlier than CostOptions::prefetch blocks ahead (their buffers counted in memory meanwhile), an updated
//   parameter's gather under the next step's forward (steady state).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shardscope/analysis/decision_space.h"
#include "shardscope/analysis/layer_repeat.h"
#include "shardscope/ir/graph.h"
#include "shardscope/mesh/hardware.h"
#include "shardscope/mesh/mesh.h"
#include "shardscope/plan/plan.h"

namespace shardscope::cost {

struct ModelStructure;  // a graph's plan-independent structure (engine/src/cost/cost_model.cpp)

// How ops become kernels (engine/src/cost/kernels.h states the rules): XLA's producer-consumer fusion with
// recomputation of cheap values, or one kernel per op with every value stored (the model before fusion).
enum class Fusion : std::uint8_t { Xla, None };
// Scaled-dot-product attention priced as a flash-attention kernel, or as the ops of the graph.
enum class Attention : std::uint8_t { Fused, Materialized };
std::string_view toString(Fusion fusion);        // "xla", "none"
std::string_view toString(Attention attention);  // "fused", "materialized"
std::optional<Fusion> parseFusion(std::string_view text);
std::optional<Attention> parseAttention(std::string_view text);

// How the runtime executes an op whose operands' layouts disagree (docs/cost-model.md "Op execution
// sharding").
// - Xla: any consistent candidate, the cheapest (GSPMD/Shardy may gather a small weight and exchange the
//   activations all-to-all, as sequence-parallel attention does).
// - Eager: as PyTorch DTensor and Megatron-LM modules run: a parameter is never gathered or exchanged over a
// mesh
//   axis the op gives to a dimension other than the batch (FSDP/ZeRO's gather frees an axis for the batch or
//   leaves it unused); tensor-parallel weights stay where they are and the activations move (Megatron's
//   all-gather before a column-parallel layer). An op with no such candidate falls back to the cheapest.
enum class Runtime : std::uint8_t { Xla, Eager };
std::string_view toString(Runtime runtime);  // "xla", "eager"
std::optional<Runtime> parseRuntime(std::string_view text);

struct CostOptions {
    Fusion fusion = Fusion::Xla;
    Attention attention = Attention::Fused;
    Runtime runtime = Runtime::Xla;
    // Fraction of peak FLOP/s and HBM bandwidth a kernel reaches: 0 takes them from the hardware profile's
    // efficiency tables at each kernel's local shape (mesh/hardware.h); a value in (0, 1] is used for every
    // kernel.
    double efficiency = 0;
    double launchTime = 5e-6;  // per op, seconds
    int prefetch = 1;  // blocks of layers a parameter all-gather may run ahead of its use (FSDP's prefetch);
                       // 0: only as the kernel before its use starts
    double memoryReserve =
        0.1;  // fraction of device memory kept free: feasible when peak <= memory·(1 - reserve)
    friend bool operator==(const CostOptions&, const CostOptions&) = default;
};

enum class CollectiveKind : std::uint8_t { AllGather, ReduceScatter, AllReduce, AllToAll, CollectivePermute };
std::string_view toString(CollectiveKind kind);  // "all-gather", "reduce-scatter", ...

// The time of one collective of `kind` whose devices hold `bytes` each (the gathered or reduced buffer; an
// all-to-all's local buffer) on the axes of `mesh` in `axisMask` (docs/cost-model.md, "Collective time"):
// flat on mesh::groupLink when the group sits on one link level, hierarchically over mesh::groupLevels
// otherwise. `latencyShare` scales the latency term (a bucketed tensor's share). 0 on one device.
double collectiveTime(CollectiveKind kind, double bytes, const mesh::Mesh& mesh, std::uint32_t axisMask,
                      double latencyShare = 1);

struct Collective {
    CollectiveKind kind = CollectiveKind::AllGather;
    std::uint32_t axes = 0;  // mesh axes of the device group (bit i = Mesh::axes[i])
    double bytes = 0;        // B of docs/cost-model.md: the gathered buffer (all-gather, reduce-scatter,
                             // all-reduce) or the local one (all-to-all, permute)
    double time = 0;         // seconds
    ir::OpId op;             // the op that causes it
    ir::ValueId value;       // the tensor it moves
    bool rerun = false;      // run again by its block's recompute (remat); `op` is then the recompute's
    friend bool operator==(const Collective&, const Collective&) = default;
};

// The device groups of the collectives that turn a tensor laid out as `from` into `to` (one AxisList per
// dimension, major first): the axes to all-gather (in `from`, not in `to`) and the axes to exchange
// all-to-all (kept, but holding different blocks afterwards: moved to another dimension or another position
// in theirs, or with a dropped axis major to them in `from` or an added axis major to them in `to`, which
// renumbers their blocks). Axes only in `to` are a local slice. Every device finds the data it needs on the
// devices that share its coordinates outside `gathered | exchanged` (the SPMD simulation checks this).
struct ReshardAxes {
    std::uint32_t gathered = 0, exchanged = 0;
    friend bool operator==(const ReshardAxes&, const ReshardAxes&) = default;
};
ReshardAxes reshardAxes(const std::vector<plan::AxisList>& from, const std::vector<plan::AxisList>& to);

// The layout a reduce-scatter over `scattered` leaves a result in that an op produced as `required` and that
// is to be laid out as `have`: each device keeps its piece of its own block, so the scattered axes come minor
// to the required ones, in the dimensions (and order) `have` puts them in. Resharding that to `have` may
// still need an exchange (reshardAxes).
std::vector<plan::AxisList> scatteredLayout(const std::vector<plan::AxisList>& required,
                                            const std::vector<plan::AxisList>& have, std::uint32_t scattered);

// Bytes per device, at the peak or in total.
struct MemoryBreakdown {
    double parameters = 0, gradients = 0, optimizerState = 0, activations = 0, temporaries = 0;
    double total() const { return parameters + gradients + optimizerState + activations + temporaries; }
};

// Per-device bytes of the tensors ZeRO counts as model states, whatever their lifetimes: parameter arguments,
// gradients and optimizer-state arguments.
struct ModelStates {
    double parameters = 0, gradients = 0, optimizerState = 0;
    double total() const { return parameters + gradients + optimizerState; }
};

// How one top-level op runs: the mesh axes of each factor of its rule, its compute and the collectives it
// causes.
struct OpExecution {
    std::vector<plan::AxisList> factorAxes;  // indexed like the op's FactorRule::factors
    double flops = 0;                        // local FLOPs per device
    double computeTime = 0;
    double temporaryBytes = 0;
};

// A step run as microbatches (plan::Plan::microbatches), through pipeline stages when the plan has a pipeline
// (docs/cost-model.md "Pipelines"). The program of one microbatch is priced once, on the devices of one stage
// (the pipeline axis shrunk to its SPMD remainder, the batch split into the microbatches); its ops are then
// split into chunks of layers (a stage's, or with virtual stages each of its chunks), and the schedule is
// simulated over the chunks.
struct PipelineChunk {
    int device = 0;                  // its position on the pipeline axis (0 without a pipeline)
    int firstLayer = 0, layers = 0;  // into plan::pipelineLayers
    // One microbatch: the chunk's kernels plus the communication they wait for in the microbatch's schedule.
    double forwardTime = 0, backwardTime = 0;
    // Activations sent to the next chunk per microbatch (gradients come back alike), and their transfer time
    // on the pipeline axis's link; 0 for the last chunk.
    double sendBytes = 0, sendTime = 0;
    // Once per step, after the chunk's last backward: its gradients' reductions and its optimizer update.
    double gradientSyncTime = 0, updateTime = 0;
    double activationBytes = 0;  // one microbatch's forward values kept for the backward
};

// One device position on the pipeline axis (one in all without a pipeline).
struct PipelineStage {
    double peakMemory = 0;  // model states + the activations in flight at most + the microbatch's working set
    MemoryBreakdown atPeak;
    ModelStates modelStates;
    int inFlight = 0;     // microbatch chunks whose forward ran and whose backward did not, at most
    double busyTime = 0;  // forward and backward work over the step
    double end = 0;       // when its last task ends
};

// A task of the simulated pipeline schedule.
struct PipelineTask {
    enum class Kind : std::uint8_t { Forward, Backward, GradientSync, Update };
    Kind kind = Kind::Forward;
    int device = 0, chunk = 0, microbatch = 0;  // microbatch -1 for the once-per-step tasks
    double start = 0, end = 0;
};
std::string_view toString(PipelineTask::Kind kind);  // "forward", "backward", "gradient-sync", "update"

struct PipelineEvaluation {
    std::optional<plan::Pipeline> pipeline;  // none: microbatches without a pipeline (gradient accumulation)
    int microbatches = 1;
    std::vector<PipelineChunk> chunks;    // in layer order
    std::vector<PipelineStage> stages;    // per device position on the pipeline axis
    std::vector<PipelineTask> tasks;      // by device, then start
    std::vector<std::int32_t> chunkOfOp;  // per top-level op: its chunk
    // 1 − the devices' forward and backward work / (stages × the time from the first forward to the last
    // backward): the schedule's idle share.
    double bubbleFraction = 0;
    double microbatchTime = 0;  // one microbatch's whole program on one stage's devices (its schedule)
    // Why the plan cannot run as staged ("" when it can): the batch does not divide into the microbatches on
    // every device, or plan::pipelineProblem's reasons. The evaluation is then infeasible.
    std::string problem;
};

struct Evaluation {
    std::vector<Collective> collectives;  // in program order of their ops
    std::vector<double>
        opComputeTime;  // per top-level op (index into graph.body), seconds: its kernel's (charged
                        // to the kernel's last op) and the recompute that runs before it
    // The simulated schedule (docs/cost-model.md): when each op with compute time starts on the compute
    // stream, and when each collective runs on its stream (parallel to `collectives`). stepTime is its
    // makespan: max(computeTime, busiest stream) <= stepTime <= computeTime + collectiveTime.
    std::vector<double> opStart;
    std::vector<double> collectiveStart, collectiveEnd;
    double computeTime = 0, collectiveTime = 0, stepTime = 0;
    double peakMemory = 0;   // bytes per device
    std::size_t peakOp = 0;  // index into graph.body where the peak is reached
    MemoryBreakdown atPeak;
    ModelStates modelStates;
    double capacity = 0;  // device memory × (1 − reserve)
    bool feasible = false;
    std::vector<plan::CompetitionSite> competitions;
    // Per top-level op: the bytes per device live while it runs (liveAt's total; peakMemory is the largest).
    std::vector<double> opMemory;
    // Priced from layer classes (EvaluatorOptions::layerClasses): the step's figures only (step, compute and
    // collective time, peak memory and its breakdown, model states, feasibility); no collectives, per-op
    // times or memory, or competitions.
    bool fromLayerClasses = false;
    // A plan with microbatches or a pipeline: the schedule over its chunks. The fields above then describe
    // the step: collectives, opComputeTime, opStart and the collectives' times are one microbatch's (on one
    // stage's devices); computeTime and collectiveTime are the busiest device's over the step (point-to-point
    // transfers included); stepTime is the schedule's makespan (the bubble may make it exceed compute +
    // collectives); peakMemory, atPeak and modelStates are the stage with the largest peak's.
    std::optional<PipelineEvaluation> pipeline;
};

// Everything about a problem that does not depend on the plan. The graph and decision space must outlive it.
class CostModel {
public:
    CostModel(const ir::Graph& graph, const analysis::DecisionSpace& space, mesh::Mesh mesh,
              mesh::HardwareProfile hardware, CostOptions options = {});
    // `accumulated`: mesh axes whose shards run one after another on the same devices (a step's
    // microbatches): they divide local sizes like any axis, but collectives over them move nothing (a partial
    // sum over them is a local accumulation).
    CostModel(const ir::Graph& graph, const analysis::DecisionSpace& space, mesh::Mesh mesh,
              mesh::HardwareProfile hardware, CostOptions options, std::uint32_t accumulated);
    ~CostModel();
    CostModel(const CostModel&) = delete;
    CostModel& operator=(const CostModel&) = delete;

    const ir::Graph& graph() const;
    const analysis::DecisionSpace& space() const;
    const mesh::Mesh& mesh() const;
    const mesh::HardwareProfile& hardware() const;
    const CostOptions& options() const;
    const plan::PlanContext& planContext() const;
    // FLOPs of one step divided by (devices × peak): the lower bound of docs/design.md, "Search"'s reward.
    double lowerBoundTime() const;
    // Whether a value takes memory of its own (kernels.h: fusion outputs, kernel results, arguments), and the
    // attentions priced as flash-attention kernels.
    bool takesMemory(ir::ValueId value) const;
    std::size_t fusedAttentions() const;
    // Top-level ops that are copies of one another (the ops of repeated layers, forward and backward: the
    // same sharding rule, tensor sizes and roles) form classes; an Evaluator prices an op of a class once per
    // local sharding and gives its copies that price. `classes` counts the classes, `ops` the ops in them.
    struct OpClasses {
        std::size_t classes = 0, ops = 0;
    };
    OpClasses opClasses() const;

    // The model of one microbatch of this step on the devices of one pipeline stage: the mesh with the axis
    // `pipelineAxis` (-1: none) divided by `stages`, and an accumulated axis of `microbatches` appended (the
    // last). Built on first use and kept; thread-safe. The graph and decision space are this model's, and so
    // is everything derived from them alone (the ops as priced, kernels, op classes, remat blocks): a
    // microbatch model costs its mesh's link tables, not a second build.
    const CostModel& microbatchModel(int pipelineAxis, int stages, int microbatches) const;

    struct Data;
    const Data& data() const { return *data_; }

    // The shallow copies layer classes price on (EvaluatorOptions::layerClasses): built on first use and
    // kept; thread-safe. Null, and `why` (when given) says why, when the model repeats no layers a copy could
    // leave out (analysis::layerRepeat), or a kept op would run in a kernel of a copy that does not stand for
    // its kernel in the model (one fusing a layer with what the copy puts beside it). A kernel summing every
    // layer's contribution to a tensor they all read is priced on a copy as the model's.
    struct ShallowCopies;
    const ShallowCopies* shallowCopies(std::string* why = nullptr) const;

private:
    // A shallow copy of the model `full`: the structure of its graph (analysis::shallowGraph) on `full`'s
    // mesh, hardware and options.
    CostModel(const Data& full, std::shared_ptr<const ModelStructure> structure);
    // A microbatch model: `base`'s graph, decision space, options and structure on `mesh`.
    CostModel(const Data& base, mesh::Mesh mesh, std::uint32_t accumulated);
    std::unique_ptr<Data> data_;
};

// Layer classes (EvaluatorOptions::layerClasses): two shallow copies of a model that repeats alike layers
// (analysis::shallowGraph), the second a period of layers deeper, each with its own analysis and cost model
// (on the model's mesh, hardware and options; its optimizer update's launches shared by the model's
// parameters), and how a plan of the model reads on them.
struct CostModel::ShallowCopies {
    struct Copy {
        analysis::ShallowGraph shallow;
        analysis::DecisionSpace space;
        std::unique_ptr<CostModel> model;
        // Per group and per name of the model's space: the one of this copy's that holds the same atoms of
        // the values both have, -1: none (a name of a layer the copy leaves out, a group whose atoms are in
        // several of the copy's or share one with another group's, a group whose names do not grow by a
        // period's from one copy to the other, a name of the layers left out, or of them and others but not
        // alone in its group).
        std::vector<std::int32_t> group, name;
        // Per block of the model's (LayerBlocks::blocks): this copy's block of the same ops, -1: none (a
        // block of the layers left out).
        std::vector<std::int32_t> block;
    };
    std::array<Copy, 2> copies;
    // How many times the model repeats what the second copy adds to the first: the model's figures are the
    // first's plus `periods` times the difference.
    double periods = 0;
    // Per body op of the first copy: the same op's index in the second's body.
    std::vector<std::uint32_t> secondOp;
    // Kernels of the model whose work grows with the depth (a fused sum of every layer's contribution to a
    // tensor they all read): each copy prices its own as the model's, its ops and reads standing for those of
    // the layers left out weighted by how many they stand for.
    std::size_t grownKernels = 0;
    std::vector<std::string> blockLabels;  // the model's blocks (LayerBlocks::blocks), for planOn
    // Whether pricing on the copies pays: together they have at most half the model's ops (an Evaluator uses
    // them only then unless told always; a model of a dozen layers is about as fast to price in full).
    bool pays = false;

    // `plan` on copy k, into `out` (its buffers reused); false when it may decide the layers left out
    // differently from one another (a decision or resolution the copy has no group or name for, the remat of
    // a block left out) or has microbatches or a pipeline (a staged evaluator prices those from the copies'
    // microbatch programs).
    bool planOn(std::size_t k, const plan::Plan& plan, plan::Plan& out) const;
};

class Evaluator;
namespace detail {
// The staged evaluator reads the copies' evaluations of a microbatch program priced from layer classes.
struct LayerClassCopy;
LayerClassCopy layerClassCopy(const Evaluator& evaluator, std::size_t k);
}  // namespace detail

// Evaluates plans against one CostModel. Keeps the last plan's state, so evaluating a plan that differs from
// the previous one in a few decisions re-costs only the ops whose tensors changed sharding (plus two linear
// sweeps for partial sums and memory); each op also remembers its costs for its last two local shardings. Not
// thread-safe; use one Evaluator per thread (they may share a CostModel).
struct EvaluatorOptions {
    // Ops of one class (CostModel::opClasses) share their prices: an op whose copy was priced for the same
    // local shardings takes that price (exactly what pricing it would give), and so do the kernels that are
    // copies of one another (their ops of the same classes, priced alike). Off: every op and kernel is priced
    // on its own, as the exactness tests compare.
    bool shareOpClasses = true;
    // Layer classes (docs/cost-model.md, "Layer classes"): a plan that decides the layers a model's shallow
    // copies leave out alike (decisions on groups, on names alone in theirs or on names of the layers the
    // copies keep; rematerialization by family or of blocks the copies keep) is priced on two shallow copies
    // of the model (analysis/layer_repeat.h), one a period of layers deeper than the other, and extrapolated
    // to the model's depth: the same step time and memory as the full evaluation (to rounding) in time that
    // grows with the distinct layers, not the depth. With microbatches or a pipeline, the copies' work per
    // layer stands for the model's layers before the schedule is simulated. Such an evaluation has the step's
    // figures only (Evaluation::fromLayerClasses; a pipeline's chunks, devices and tasks too, but no
    // chunkOfOp), and the per-op accessors below answer for the last full one. Other plans, and models
    // without repeated layers, are evaluated in full. WherePaying uses the copies only where they are at most
    // half the model (ShallowCopies::pays); Always wherever the model has them (the exactness tests).
    enum class LayerClasses : std::uint8_t { Off, WherePaying, Always };
    LayerClasses layerClasses = LayerClasses::Off;
};

class Evaluator {
public:
    explicit Evaluator(const CostModel& model, EvaluatorOptions options = {});
    ~Evaluator();
    Evaluator(Evaluator&&) noexcept;
    Evaluator& operator=(Evaluator&&) noexcept;

    // Evaluates `plan` (incrementally against the previous call). The reference stays valid until the next
    // call.
    const Evaluation& evaluate(const plan::Plan& plan);
    // The same, for a caller that has applied the plan already (`applied` must be appliedPlan(model, plan)).
    const Evaluation& evaluate(const plan::Plan& plan, plan::AppliedPlan applied);
    // Forgets the previous state (and the op costs it remembers): the next evaluate() re-costs every op.
    void reset();

    // After evaluate(): the sharding of a value, the execution of a top-level op (index into graph.body).
    plan::TensorSharding sharding(ir::ValueId value) const;
    const OpExecution& execution(std::size_t opIndex) const;
    double localBytes(ir::ValueId value) const;
    // Bytes per device live while top-level op `opIndex` runs (the memory walk of docs/cost-model.md at that
    // point).
    MemoryBreakdown liveAt(std::size_t opIndex) const;
    std::size_t opsRecosted() const;  // ops re-costed by the last evaluate()
    std::size_t opsPriced() const;    // of those, the ops priced anew (not remembered or shared)
    // Kernels priced anew by the last evaluate(): only those reading a re-costed op's record, and of a class
    // of kernels (copies, as of repeated layers) only one per combination of its ops' records.
    std::size_t kernelsPriced() const;

private:
    friend detail::LayerClassCopy detail::layerClassCopy(const Evaluator&, std::size_t);
    const Evaluation& stagedEvaluate(const plan::Plan& plan, std::optional<plan::AppliedPlan> applied);
    struct State;
    std::unique_ptr<State> state_;
};

// What one microbatch of a plan with microbatches or a pipeline runs (docs/cost-model.md "Pipelines and
// microbatches"): the model CostModel::microbatchModel gives for the plan's pipeline axis, stages and
// microbatches, and `plan` without its pipeline and microbatches with the batch group split over the
// accumulated axis last (when there are microbatches and a batch). The SPMD simulation runs it (its
// accumulated axis as devices) to check a pipelined plan numerically; the staged evaluation prices it. A plan
// whose pipeline cannot run (plan::pipelineProblem) gets the model of one microbatch on the whole mesh.
struct MicrobatchProgram {
    const CostModel* model = nullptr;
    plan::Plan plan;
    std::optional<std::string> problem;  // plan::pipelineProblem's reason the staging cannot run, if any
};
MicrobatchProgram microbatchProgram(const CostModel& model, const plan::Plan& plan);

// Whether an Evaluator prices `plan` as a step in microbatches (and pipeline stages): it has either.
bool staged(const plan::Plan& plan);

// The atoms' axes an Evaluator prices `plan` by: plan::applyPlan on the model's mesh, or for a plan with
// microbatches or a pipeline, its microbatch program's on that program's model. Two plans with the same
// applied plan (and the same staging and remat) have the same evaluation, so a search keys plans by it.
plan::AppliedPlan appliedPlan(const CostModel& model, const plan::Plan& plan);

// Convenience: a one-off evaluation.
Evaluation evaluate(const CostModel& model, const plan::Plan& plan);

}  // namespace shardscope::cost
