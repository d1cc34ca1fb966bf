// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/cost/cost_model.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <tuple>
#include <type_traits>
#include <unordered_map>

#include "cost/kernels.h"
#include "cost/pipeline.h"
#include "shardscope/cost/schedule.h"
#include "shardscope/ir/statistics.h"

namespace shardscope::cost {

using analysis::AtomId;
using analysis::FactorKind;
using ir::ValueId;
using plan::AxisList;
using plan::TensorClass;

std::string_view toString(CollectiveKind kind) {
    switch (kind) {
        case CollectiveKind::AllGather:
            return "all-gather";
        case CollectiveKind::ReduceScatter:
            return "reduce-scatter";
        case CollectiveKind::AllReduce:
            return "all-reduce";
        case CollectiveKind::AllToAll:
            return "all-to-all";
        case CollectiveKind::CollectivePermute:
            return "collective-permute";
    }
    return "?";
}

std::string_view toString(Fusion fusion) {
    return fusion == Fusion::Xla ? "xla" : "none";
}
std::string_view toString(Attention attention) {
    return attention == Attention::Fused ? "fused" : "materialized";
}
std::optional<Fusion> parseFusion(std::string_view text) {
    if (text == "xla")
        return Fusion::Xla;
    if (text == "none")
        return Fusion::None;
    return std::nullopt;
}
std::string_view toString(Runtime runtime) {
    return runtime == Runtime::Xla ? "xla" : "eager";
}
std::optional<Runtime> parseRuntime(std::string_view text) {
    if (text == "xla")
        return Runtime::Xla;
    if (text == "eager")
        return Runtime::Eager;
    return std::nullopt;
}
std::optional<Attention> parseAttention(std::string_view text) {
    if (text == "fused")
        return Attention::Fused;
    if (text == "materialized")
        return Attention::Materialized;
    return std::nullopt;
}

namespace {

// Where one factor sits in one tensor of an op: the atoms of that dimension it covers.
struct Occurrence {
    std::uint16_t tensor = 0;  // index into OpInfo::tensors
    std::uint16_t dimension = 0;
    std::uint32_t firstAtom = 0, atomCount = 0;  // a run of the dimension's atoms (space.dimensionAtoms)
    bool aligned = true;                         // the factor covers whole atoms
};

struct FactorInfo {
    std::int64_t size = 1;
    FactorKind kind = FactorKind::PassThrough;
    bool batch = false;  // covers atoms of the batch group's names (Runtime::Eager)
    std::vector<Occurrence> occurrences;
};

struct TensorInfo {
    ValueId value;
    bool result = false;
    std::vector<std::vector<int>> dimensionFactors;  // factor indices major to minor per dimension
};

struct OpInfo {
    ir::OpId id;
    std::vector<FactorInfo> factors;
    std::vector<TensorInfo> tensors;  // operands, then results
    std::size_t operandCount = 0;
    bool readsParameter = false;  // an operand is a parameter (Runtime::Eager restricts how it moves)
    double flops = 0;
    ir::ElementType element = ir::ElementType::F32;
    bool free = false;    // costs nothing (constants, reshapes)
    bool linear = false;  // keeps partial sums partial (add, subtract, negate, reshape, transpose)
    // A dot_general or convolution: each factor's role in the GEMM it runs as (kernel efficiency depends on
    // the local m, n, k): rows (batch folded in), columns, contraction; empty for other ops.
    enum class Gemm : std::uint8_t { Rows, Columns, Contraction };
    std::vector<Gemm> gemm;
};

// FLOPs of one execution of `op`, control-flow regions included: while bodies trip-count times (the condition
// once more), the most expensive branch of a case or if. Reduce-like bodies are combiners flopsOf already
// counts.
double workOf(const ir::Graph& graph, const ir::Op& op) {
    double total = ir::flopsOf(graph, op);
    if (ir::category(op.kind) != ir::OpCategory::Control || op.regions.empty())
        return total;
    std::vector<double> regions;
    for (const auto& r : op.regions) {
        double sum = 0;
        for (ir::OpId id : r.ops)
            sum += workOf(graph, graph.op(id));
        regions.push_back(sum);
    }
    if (op.kind == ir::OpKind::While && regions.size() == 2) {
        const auto* loop = std::get_if<ir::LoopAttributes>(&op.attributes);
        const double trips = loop ? static_cast<double>(loop->tripCount) : 1.0;
        return total + (trips + 1) * regions[0] + trips * regions[1];
    }
    return total + *std::max_element(regions.begin(), regions.end());
}

// Ops XLA fuses into their consumers and never writes out: they take no memory and no time of their own.
bool rematerialized(ir::OpKind kind) {
    return kind == ir::OpKind::BroadcastInDim || kind == ir::OpKind::Iota;
}

// A dynamic_slice of a contiguous block of a function argument (a layer of a stacked weight, as a scan reads
// it): a view of the argument's buffer that its consumers read in place (XLA fuses the slice into them, or
// hands the GEMM an offset), so it computes nothing and takes no memory of its own.
bool argumentView(const ir::Graph& g, const ir::Op& op) {
    if (op.kind != ir::OpKind::DynamicSlice || op.operands.empty() || op.results.empty())
        return false;
    if (g.value(op.operands[0]).producer.valid())
        return false;
    const ir::Shape& whole = g.type(op.operands[0]).shape;
    const ir::Shape& piece = g.type(op.results[0]).shape;
    if (whole.size() != piece.size())
        return false;
    std::size_t last = 0;  // the last dimension cut; those before it must be cut to one entry
    for (std::size_t d = 0; d < whole.size(); ++d)
        if (piece[d] != whole[d])
            last = d;
    for (std::size_t d = 0; d < last; ++d)
        if (piece[d] != 1)
            return false;
    return true;
}

// A sharding constraint (custom_call @Sharding, as sdy.sharding_constraint and with_sharding_constraint
// import) only says how a value is laid out: it computes nothing and takes no memory of its own (the value
// lives on in its place); a reshard it needs is priced like any other.
bool shardingConstraint(const ir::Op& op) {
    const auto* call = std::get_if<ir::CustomCallAttributes>(&op.attributes);
    return op.kind == ir::OpKind::CustomCall && call && call->target == "Sharding";
}

// The devices a collective runs on: the group's size and slowest link, and its pieces by link level when it
// spans several (mesh::groupLevels; empty otherwise).
struct CollectiveGroup {
    mesh::AxisGroupLink link;
    std::vector<mesh::AxisLevel> levels;
};

// A ring step of `kind` (all-gather, reduce-scatter, all-to-all, permute: `α(n−1) + (n−1)/n·B/bw`) or an
// all-reduce (the faster of that ring, twice, and a tree) of `bytes` on n devices of one link.
// `latencyShare` is the part of the latency this collective pays: 1, or less for a tensor that frameworks
// move in buckets with others (bucketShare).
double flatCollectiveTime(CollectiveKind kind, double bytes, double n, const mesh::Link& link,
                          double latencyShare) {
    if (n <= 1)
        return 0;
    const double bw = link.bandwidth > 0 ? link.bandwidth : 1e30;
    const double alpha = link.latency * latencyShare;
    const double one = alpha * (n - 1) + (n - 1) / n * bytes / bw;
    if (kind != CollectiveKind::AllReduce)
        return one;
    // NCCL runs an all-reduce as a ring or as a (double binary) tree, whichever its tuner predicts faster:
    // the tree pays log2(n) latencies instead of n − 1 per phase, which wins for small messages on large
    // groups.
    const double tree = 2 * (alpha * std::ceil(std::log2(n)) + bytes / bw);
    return std::min(2 * one, tree);
}

// A collective on a group of one link level is priced flat on it. On several levels (fastest first, n_0 ×
// n_1 × ... × n_k devices) it runs hierarchically, as NCCL's multi-node rings and trees do
// (docs/cost-model.md): a reduce-scatter or all-gather is one ring per level, level j moving B_j = B / (n_0
// ⋯ n_{j−1}); an all-reduce reduce-scatters down to the outermost level, all-reduces B_k there and
// all-gathers back; an all-to-all sends each level the share of B bound for the devices first reached there.
// A permute crosses the group's slowest link as before.
double collectiveTime(CollectiveKind kind, double bytes, const CollectiveGroup& group,
                      double latencyShare = 1) {
    const auto& levels = group.levels;
    if (levels.size() < 2 || kind == CollectiveKind::CollectivePermute)
        return flatCollectiveTime(kind, bytes, static_cast<double>(group.link.devices), group.link.link,
                                  latencyShare);
    const double n = static_cast<double>(group.link.devices);
    double time = 0, piece = bytes, reached = 1;
    for (std::size_t j = 0; j < levels.size(); ++j) {
        const double nj = static_cast<double>(levels[j].devices);
        const mesh::Link& link = levels[j].link;
        if (kind == CollectiveKind::AllToAll) {
            const double peers = reached * nj - reached;  // devices first reached on this level
            const double bw = link.bandwidth > 0 ? link.bandwidth : 1e30;
            time += link.latency * latencyShare * peers + peers / n * bytes / bw;
        } else if (kind == CollectiveKind::AllReduce && j + 1 == levels.size()) {
            time += flatCollectiveTime(CollectiveKind::AllReduce, piece, nj, link, latencyShare);
        } else {
            const double ring =
                flatCollectiveTime(CollectiveKind::ReduceScatter, piece, nj, link, latencyShare);
            time += kind == CollectiveKind::AllReduce ? 2 * ring : ring;
        }
        reached *= nj;
        piece /= nj;
    }
    return time;
}

// Gradients and parameters are reduced and gathered in buckets (PyTorch DDP's 25 MB default, Megatron's
// gradient buffers, FSDP's per-module flat parameters): a tensor of `bytes` pays its share of one bucket's
// latency.
constexpr double kBucketBytes = 25e6;
double bucketShare(plan::TensorClass c, double bytes) {
    const bool modelState = c == plan::TensorClass::Parameter || c == plan::TensorClass::Gradient ||
                            c == plan::TensorClass::OptimizerState;
    return modelState ? std::min(1.0, bytes / kBucketBytes) : 1.0;
}

}  // namespace

// Everything the cost model reads about a problem apart from the mesh and the hardware: the ops as it prices
// them, their kernels, the remat blocks, the op classes and the schedule's structure. A model and its
// microbatch models (CostModel::microbatchModel: the same graph on other meshes) share one.
struct ModelStructure {
    const ir::Graph* graph;
    const analysis::DecisionSpace* space;
    CostOptions options;  // its fusion, attention, launch time and prefetch shape the structure
    plan::PlanContext planContext;
    std::vector<OpInfo> ops;
    std::vector<std::vector<std::uint32_t>> valueOps;  // top-level ops touching each value
    std::vector<std::int32_t> producer;  // body index of each value's producer, -1 for arguments
    std::vector<std::int32_t> lastUse;   // body index of the last top-level use, -1 when unused
    std::vector<char> topLevel;          // value of the function body (not inside a region)
    std::vector<char> output, donated;   // a function result; an argument a result is donated to
    detail::KernelPlan kernels;          // which ops run together and which values take memory
    // Rematerialization (plan::Remat), for a training step: per block of layers and policy, the kernels that
    // run again before the block's backward and the forward values that are then not kept in between.
    struct RematBlock {
        std::int32_t firstBackward =
            -1;  // body index of the block's first backward op: where the recompute runs
        std::array<std::vector<std::uint32_t>, plan::kRematCount> kernels;  // kernels each policy runs again
        std::array<bool, plan::kRematCount> drops{};                        // the policy drops any value
        // Per policy: the stored values its recompute reads that it does not compute itself (the block's
        // inputs, and for dots-saveable the saved dot results), kept until the recompute.
        std::array<std::vector<ValueId>, plan::kRematCount> sources;
    };
    const plan::LayerBlocks& blocks() const { return planContext.blocks(); }
    std::vector<RematBlock> rematBlocks;
    std::vector<std::int32_t>
        rematBlockOf;  // per value: the block whose forward produced it and whose backward reads it
    std::vector<std::uint8_t>
        rematDrops;  // per value: bit p set when policy p recomputes it instead of keeping it
    std::vector<std::int32_t> forwardEnd;    // per value: its last use in the forward pass
    std::vector<std::uint8_t> recomputedBy;  // per body op: bit p set when policy p runs it again
    std::vector<std::int32_t> bodyIndexOf;   // per OpId: its index in graph.body (-1 inside regions)
    std::vector<char> argumentSlice;         // per value: a view of an argument (argumentView, reshaped)
    std::vector<double>
        launchDiscount;  // per kernel: the launch time it does not pay (an optimizer update's)
    std::vector<double> fullBytes;
    std::array<std::vector<ValueId>, 3> modelStateValues;  // parameters, gradients, optimizer states
    double totalFlops = 0;
    std::vector<char>
        stepOnce;  // per body op: the optimizer update's (run once per step, after the backward)
    // Each op's tensors' values (OpInfo::tensors, operands then results) in one array: op i's from
    // tensorStart[i] to tensorStart[i + 1], its results from resultStart[i]. The evaluator's sweeps read
    // these rather than the ops' own vectors.
    std::vector<std::uint32_t> tensorValues, tensorStart, resultStart;
    std::vector<char> linearOp;                            // per op: OpInfo::linear
    std::vector<std::uint32_t> valueOpList, valueOpStart;  // valueOps in one array, by value
    // Each value's atoms, dimension by dimension, each dimension ended by kEndOfDimension: value v's from
    // layoutStart[v] to layoutStart[v + 1]. An evaluator reads its mask and hashes its local layout from
    // them.
    static constexpr std::uint32_t kEndOfDimension = 0xFFFFFFFFu;
    std::vector<std::uint32_t> layoutAtoms, layoutStart;
    std::vector<std::uint32_t> atomValue;  // per atom: its value's index

    // `updateParameters`: the parameters one multi-tensor update launch covers (0: this graph's; a shallow
    // copy of a model (layer classes) takes the model's, so that its update kernels are priced alike).
    ModelStructure(const ir::Graph& g, const analysis::DecisionSpace& s, CostOptions o,
                   std::size_t updateParameters = 0)
        : graph(&g), space(&s), options(o), planContext(g, s), updateLaunchParameters(updateParameters) {
        build();
    }
    std::size_t updateLaunchParameters = 0;

    void build() {
        const ir::Graph& g = *graph;
        const std::size_t nv = g.values.size();
        valueOps.assign(nv, {});
        producer.assign(nv, -1);
        lastUse.assign(nv, -1);
        topLevel.assign(nv, 0);
        output.assign(nv, 0);
        donated.assign(nv, 0);
        fullBytes.assign(nv, 0);
        for (std::size_t v = 0; v < nv; ++v) {
            fullBytes[v] = static_cast<double>(g.values[v].type.bytes());
        }
        for (const auto& a : g.arguments)
            topLevel[a.value.index] = 1;
        for (const auto& o : g.outputs) {
            output[o.value.index] = 1;
            if (o.aliasedArgument && *o.aliasedArgument < g.arguments.size())
                donated[g.arguments[*o.aliasedArgument].value.index] = 1;
        }
        for (const auto& a : g.arguments) {
            if (a.role == ir::ArgumentRole::Parameter)
                modelStateValues[0].push_back(a.value);
            if (a.role == ir::ArgumentRole::OptimizerState)
                modelStateValues[2].push_back(a.value);
        }
        for (const auto& [value, argument] : g.gradients)
            modelStateValues[1].push_back(value);

        ops.resize(g.body.size());
        const auto batchGroup = planContext.batchGroup();
        for (std::size_t i = 0; i < g.body.size(); ++i) {
            const ir::Op& op = g.op(g.body[i]);
            const auto& rule = space->rules[i];
            OpInfo& info = ops[i];
            info.id = g.body[i];
            info.operandCount = op.operands.size();
            info.flops = workOf(g, op);
            totalFlops += info.flops;
            if (!op.operands.empty())
                info.element = g.type(op.operands.front()).element;
            else if (!op.results.empty())
                info.element = g.type(op.results.front()).element;
            info.free = op.kind == ir::OpKind::Constant || op.kind == ir::OpKind::Reshape ||
                        op.kind == ir::OpKind::OptimizationBarrier || op.kind == ir::OpKind::BitcastConvert ||
                        rematerialized(op.kind) || shardingConstraint(op) || argumentView(g, op) ||
                        stackedGradient(op);
            info.linear = op.kind == ir::OpKind::Add || op.kind == ir::OpKind::Subtract ||
                          op.kind == ir::OpKind::Negate || op.kind == ir::OpKind::Reshape ||
                          op.kind == ir::OpKind::Transpose;
            auto addTensors = [&](const std::vector<ValueId>& values,
                                  const std::vector<analysis::TensorFactors>& factors, bool result) {
                for (std::size_t t = 0; t < values.size(); ++t) {
                    TensorInfo ti;
                    ti.value = values[t];
                    ti.result = result;
                    if (t < factors.size())
                        ti.dimensionFactors = factors[t];
                    ti.dimensionFactors.resize(g.type(values[t]).shape.size());
                    info.tensors.push_back(std::move(ti));
                }
            };
            addTensors(op.operands, rule.operands, false);
            for (ValueId v : op.operands)
                info.readsParameter =
                    info.readsParameter || planContext.classes()[v.index] == plan::TensorClass::Parameter;
            addTensors(op.results, rule.results, true);
            info.factors.resize(rule.factors.size());
            for (std::size_t f = 0; f < rule.factors.size(); ++f) {
                info.factors[f].size = rule.factors[f].size;
                info.factors[f].kind = rule.factors[f].kind;
            }
            if ((op.kind == ir::OpKind::DotGeneral || op.kind == ir::OpKind::Convolution) &&
                info.tensors.size() >= 3) {
                // Rows: factors of the lhs (batch dimensions too); columns: the rhs's alone; contraction:
                // reductions.
                info.gemm.assign(rule.factors.size(), OpInfo::Gemm::Rows);
                std::vector<char> inLhs(rule.factors.size(), 0);
                for (const auto& dim : info.tensors[0].dimensionFactors)
                    for (int f : dim)
                        inLhs[static_cast<std::size_t>(f)] = 1;
                for (std::size_t f = 0; f < rule.factors.size(); ++f) {
                    if (rule.factors[f].kind == FactorKind::Reduction)
                        info.gemm[f] = OpInfo::Gemm::Contraction;
                    else if (!inLhs[f])
                        info.gemm[f] = OpInfo::Gemm::Columns;
                }
            }
            for (std::size_t t = 0; t < info.tensors.size(); ++t) {
                const auto& ti = info.tensors[t];
                const auto& dims = space->dimensionAtoms[ti.value.index];
                for (std::size_t d = 0; d < ti.dimensionFactors.size() && d < dims.size(); ++d) {
                    const auto& list = ti.dimensionFactors[d];
                    const auto& atoms = dims[d];
                    const std::int64_t dimSize = g.type(ti.value).shape[d];
                    std::int64_t product = 1;
                    for (int f : list)
                        product *= rule.factors[static_cast<std::size_t>(f)].size;
                    const bool mismatch = list.size() == 1 && product != dimSize;
                    std::int64_t stride = 1;
                    for (std::size_t k = list.size(); k-- > 0;) {
                        const int f = list[k];
                        const std::int64_t size = rule.factors[static_cast<std::size_t>(f)].size;
                        Occurrence occ;
                        occ.tensor = static_cast<std::uint16_t>(t);
                        occ.dimension = static_cast<std::uint16_t>(d);
                        if (mismatch) {
                            occ.firstAtom = 0;
                            occ.atomCount = static_cast<std::uint32_t>(atoms.size());
                        } else {
                            // Atoms from the minor end: those spanning [stride, stride·size).
                            std::int64_t p = 1;
                            int first = -1, last = -1;
                            bool startOk = stride == 1, endOk = false;
                            for (std::size_t a = atoms.size(); a-- > 0;) {
                                const std::int64_t before = p;
                                p *= space->atom(atoms[a]).size;
                                if (before == stride)
                                    startOk = true;
                                if (before >= stride && p <= stride * size) {
                                    if (last < 0)
                                        last = static_cast<int>(a);
                                    first = static_cast<int>(a);
                                }
                                if (p == stride * size)
                                    endOk = true;
                            }
                            occ.aligned = startOk && endOk;
                            if (first >= 0) {
                                occ.firstAtom = static_cast<std::uint32_t>(first);
                                occ.atomCount = static_cast<std::uint32_t>(last - first + 1);
                            }
                        }
                        auto& factor = info.factors[static_cast<std::size_t>(f)];
                        for (std::uint32_t a = occ.firstAtom;
                             a < occ.firstAtom + occ.atomCount && a < atoms.size(); ++a) {
                            const auto name = space->atom(atoms[a]).name;
                            factor.batch = factor.batch || (batchGroup && name.valid() &&
                                                            space->name(name).group == *batchGroup);
                        }
                        factor.occurrences.push_back(occ);
                        stride *= size;
                    }
                }
            }
            auto touch = [&](ValueId v) {
                auto& list = valueOps[v.index];
                if (list.empty() || list.back() != i)
                    list.push_back(static_cast<std::uint32_t>(i));
            };
            for (ValueId v : op.operands) {
                touch(v);
                lastUse[v.index] = static_cast<std::int32_t>(i);
            }
            for (ValueId v : op.results) {
                touch(v);
                producer[v.index] = static_cast<std::int32_t>(i);
                topLevel[v.index] = 1;
            }
            // Values of the function used inside this op's regions count as used by this op.
            auto nested = [&](auto&& self, const ir::Op& o) -> void {
                for (const auto& r : o.regions)
                    for (ir::OpId id : r.ops) {
                        for (ValueId v : g.op(id).operands)
                            lastUse[v.index] = std::max(lastUse[v.index], static_cast<std::int32_t>(i));
                        self(self, g.op(id));
                    }
            };
            nested(nested, op);
        }
        std::vector<char> freeOp(ops.size()), transparentOp(ops.size());
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const ir::Op& op = g.op(g.body[i]);
            freeOp[i] = ops[i].free;
            const bool bitcast = op.kind == ir::OpKind::Reshape || op.kind == ir::OpKind::BitcastConvert ||
                                 op.kind == ir::OpKind::OptimizationBarrier;
            transparentOp[i] = rematerialized(op.kind) || shardingConstraint(op) || argumentView(g, op) ||
                               stackedGradient(op) || (options.fusion == Fusion::Xla && bitcast);
        }
        detail::KernelInputs in;
        in.graph = &g;
        in.producer = &producer;
        in.lastUse = &lastUse;
        in.output = &output;
        in.donated = &donated;
        in.topLevel = &topLevel;
        in.freeOp = &freeOp;
        in.transparentOp = &transparentOp;
        kernels = detail::planKernels(in, options.fusion, options.attention);
        bodyIndexOf.assign(g.ops.size(), -1);
        for (std::size_t i = 0; i < g.body.size(); ++i)
            bodyIndexOf[g.body[i].index] = static_cast<std::int32_t>(i);
        // The optimizer update's ops: after the backward, every result an optimizer state, an update
        // intermediate or an updated parameter.
        stepOnce.assign(g.body.size(), 0);
        for (std::size_t i = g.backwardStart > 0 ? g.backwardStart : g.body.size(); i < g.body.size(); ++i) {
            const auto& results = g.op(g.body[i]).results;
            bool update = !results.empty();
            for (ValueId r : results) {
                const auto c = planContext.classes()[r.index];
                update = update && (c == TensorClass::OptimizerUpdate || c == TensorClass::OptimizerState ||
                                    c == TensorClass::Parameter);
            }
            stepOnce[i] = update;
        }
        // The optimizer update runs as multi-tensor kernels (PyTorch's foreach and fused optimizers, XLA's
        // horizontal fusion of the update's loop fusions): one launch covers that kernel of every parameter,
        // so each parameter's update kernel pays 1/P of a launch and streams at a large transfer's
        // efficiency. Stacked (scanned) and per-layer parameters then cost alike.
        launchDiscount.assign(kernels.kernels.size(), 0);
        if (g.backwardStart > 0 && !modelStateValues[0].empty()) {
            const double share =
                1.0 / static_cast<double>(updateLaunchParameters > 0 ? updateLaunchParameters
                                                                     : modelStateValues[0].size());
            for (std::size_t k = 0; k < kernels.kernels.size(); ++k) {
                bool update = !kernels.kernels[k].ops.empty();
                for (std::uint32_t i : kernels.kernels[k].ops)
                    update = update && stepOnce[i];
                if (update)
                    launchDiscount[k] = options.launchTime * (1 - share);
            }
        }
        argumentSlice.assign(nv, 0);
        for (ir::OpId id : g.body) {
            const ir::Op& op = g.op(id);
            const bool view =
                argumentView(g, op) || (op.kind == ir::OpKind::Reshape && !op.operands.empty() &&
                                        argumentSlice[op.operands[0].index]);
            if (view && op.results.size() == 1)
                argumentSlice[op.results[0].index] = 1;
        }
        buildRemat();
        buildOpClasses();
        buildSchedule();
        tensorStart.assign(1, 0);
        for (const OpInfo& info : ops) {
            resultStart.push_back(static_cast<std::uint32_t>(tensorValues.size() + info.operandCount));
            for (const auto& ti : info.tensors)
                tensorValues.push_back(ti.value.index);
            tensorStart.push_back(static_cast<std::uint32_t>(tensorValues.size()));
            linearOp.push_back(info.linear);
        }
        buildKernelClasses();
        flatten(valueOps, valueOpList, valueOpStart);
        atomValue.reserve(space->atoms.size());
        for (const auto& atom : space->atoms)
            atomValue.push_back(atom.value.index);
        layoutStart.assign(1, 0);
        for (std::size_t v = 0; v < g.values.size(); ++v) {
            if (v < space->dimensionAtoms.size())
                for (const auto& dim : space->dimensionAtoms[v]) {
                    for (AtomId a : dim)
                        layoutAtoms.push_back(a.index);
                    layoutAtoms.push_back(kEndOfDimension);
                }
            layoutStart.push_back(static_cast<std::uint32_t>(layoutAtoms.size()));
        }
    }

    // Top-level ops that are copies of one another (the ops of repeated layers, forward and backward): the
    // same factors and occurrences, tensor sizes, roles, atoms per dimension and operand pattern, so that
    // costOp prices them alike for alike local shardings, up to their ids. opClass[i] is op i's class (0 to
    // classCount - 1), or -1 when no other op is a copy of it.
    std::vector<std::int32_t> opClass;
    std::size_t classCount = 0;

    // Everything costOp reads about op i apart from the plan and the ids, as words.
    std::vector<std::uint64_t> opShape(std::size_t i) const {
        const OpInfo& info = ops[i];
        std::vector<std::uint64_t> w;
        auto word = [&](auto x) { w.push_back(static_cast<std::uint64_t>(x)); };
        auto real = [&](double x) { w.push_back(std::bit_cast<std::uint64_t>(x)); };
        word(info.operandCount), word(info.readsParameter), real(info.flops), word(info.element),
            word(info.free), word(info.linear), word(info.gemm.size());
        for (auto role : info.gemm)
            word(role);
        word(info.factors.size());
        for (const auto& f : info.factors) {
            word(f.size), word(f.kind), word(f.batch), word(f.occurrences.size());
            for (const auto& o : f.occurrences)
                word(o.tensor), word(o.dimension), word(o.firstAtom), word(o.atomCount), word(o.aligned);
        }
        word(info.tensors.size());
        for (std::size_t t = 0; t < info.tensors.size(); ++t) {
            const auto& ti = info.tensors[t];
            std::size_t same = t;  // the first tensor with the same value
            for (std::size_t u = 0; u < t; ++u)
                if (info.tensors[u].value == ti.value) {
                    same = u;
                    break;
                }
            word(same), word(ti.result), real(fullBytes[ti.value.index]),
                word(planContext.classes()[ti.value.index]), word(ti.dimensionFactors.size());
            for (const auto& list : ti.dimensionFactors) {
                word(list.size());
                for (int f : list)
                    word(f);
            }
            const auto& dims = space->dimensionAtoms[ti.value.index];
            word(dims.size());
            for (const auto& atoms : dims) {
                word(atoms.size());
                for (AtomId a : atoms)
                    word(space->atom(a).size);
            }
        }
        return w;
    }

    void buildOpClasses() {
        classCount = groupCopies(
            ops.size(), [&](std::size_t i) { return opShape(i); }, opClass);
    }

    // Kernels that are copies of one another (a repeated layer's): the same kind and launch discount, their
    // ops (and the q·kᵀ an attention backward recomputes) of the same op classes in order, their stored
    // reads and writes the same tensors of those ops. Such kernels take the same time when their ops have
    // the same records, so an Evaluator prices a kernel of a class once per combination of its ops' local
    // shardings. kernelClass[k] is kernel k's class, or -1 (an op outside every op class, or no copy).
    std::vector<std::int32_t> kernelClass;
    std::size_t kernelClassCount = 0;
    // A shallow copy's (layer classes): per kernel, the weights its ops' FLOPs and its stored reads' bytes
    // count with when it stands for a kernel of the model that grows with the depth (a fused sum of every
    // layer's contribution to a tensor they all read; matchKernels). Empty for weight 1 (every kernel of a
    // model).
    struct KernelWeights {
        std::vector<double> ops, reads;
    };
    std::vector<KernelWeights> kernelWeights;
    // Per body op: the kernels whose time reads its record (its own, and an attention backward that
    // recomputes it), op i's from opKernelStart[i] to opKernelStart[i + 1]. A kernel also reads the local
    // bytes of the values it reads or writes, which are its ops' tensors (a change re-costs the op) but for
    // the inputs of a value it recomputes: per kernel, those outside values (kernel k's from outsideStart[k]
    // to outsideStart[k + 1]), and per value the kernels it is outside of.
    std::vector<std::uint32_t> opKernelList, opKernelStart, outsideList, outsideStart, valueKernelList,
        valueKernelStart;

    // Everything kernelTimes reads about kernel k apart from its ops' records, as words; empty when it has an
    // op outside every op class.
    std::vector<std::uint64_t> kernelShape(std::size_t k) const {
        const detail::Kernel& kernel = kernels.kernels[k];
        const std::vector<std::uint32_t> members = membersOf(kernel);
        std::vector<std::uint64_t> w{static_cast<std::uint64_t>(kernel.kind), kernel.ops.size(),
                                     std::bit_cast<std::uint64_t>(launchDiscount[k])};
        for (std::uint32_t i : members) {
            if (opClass[i] < 0)
                return {};
            w.push_back(static_cast<std::uint64_t>(opClass[i]));
        }
        // A stored value by the first of the members' tensors that holds it, else (an input of a value the
        // kernel recomputes) by its size: an evaluator then adds its layout to the kernel's key.
        for (const auto* values : {&kernel.reads, &kernel.writes}) {
            w.push_back(values->size());
            for (ValueId v : *values) {
                const std::int64_t p = memberTensor(members, v);
                w.push_back(p >= 0 ? static_cast<std::uint64_t>(p) : ~std::uint64_t{0});
                if (p < 0)
                    w.push_back(std::bit_cast<std::uint64_t>(fullBytes[v.index]));
            }
        }
        return w;
    }
    // The ops whose records a kernel's time reads: its own, and the q·kᵀ an attention backward recomputes.
    static std::vector<std::uint32_t> membersOf(const detail::Kernel& kernel) {
        std::vector<std::uint32_t> members(kernel.ops.begin(), kernel.ops.end());
        if (kernel.recomputedOp >= 0)
            members.push_back(static_cast<std::uint32_t>(kernel.recomputedOp));
        return members;
    }
    // The position of value v among the tensors of `members` (the member, its tensor), or -1.
    std::int64_t memberTensor(const std::vector<std::uint32_t>& members, ValueId v) const {
        for (std::size_t p = 0; p < members.size(); ++p)
            for (std::uint32_t t = tensorStart[members[p]]; t < tensorStart[members[p] + 1]; ++t)
                if (tensorValues[t] == v.index)
                    return static_cast<std::int64_t>((p << 32) | (t - tensorStart[members[p]]));
        return -1;
    }

    void buildKernelClasses() {
        const std::size_t count = kernels.kernels.size();
        kernelClassCount = groupCopies(
            count, [&](std::size_t k) { return kernelShape(k); }, kernelClass);
        std::vector<std::vector<std::uint32_t>> byOp(ops.size()), byValue(graph->values.size()),
            outside(count);
        for (std::size_t k = 0; k < count; ++k) {
            const detail::Kernel& kernel = kernels.kernels[k];
            const std::vector<std::uint32_t> members = membersOf(kernel);
            for (std::uint32_t i : members)
                byOp[i].push_back(static_cast<std::uint32_t>(k));
            for (const auto* values : {&kernel.reads, &kernel.writes})
                for (ValueId v : *values)
                    if (memberTensor(members, v) < 0) {
                        byValue[v.index].push_back(static_cast<std::uint32_t>(k));
                        outside[k].push_back(v.index);
                    }
        }
        flatten(outside, outsideList, outsideStart);
        flatten(byOp, opKernelList, opKernelStart);
        flatten(byValue, valueKernelList, valueKernelStart);
    }
    static void flatten(const std::vector<std::vector<std::uint32_t>>& lists,
                        std::vector<std::uint32_t>& flat, std::vector<std::uint32_t>& start) {
        start.assign(1, 0);
        for (const auto& list : lists) {
            flat.insert(flat.end(), list.begin(), list.end());
            start.push_back(static_cast<std::uint32_t>(flat.size()));
        }
    }

    // Groups `count` things by their shapes (`shapeOf`, a vector of words; empty: no class): `classOf` gets
    // each thing's class (0 to the returned count - 1), or -1 when no other thing has its shape.
    template <typename ShapeOf>
    static std::size_t groupCopies(std::size_t count, ShapeOf shapeOf, std::vector<std::int32_t>& classOf) {
        classOf.assign(count, -1);
        std::size_t classes = 0;
        // By hash of the shape: the first thing of each shape seen, and its class once a copy turns up.
        std::unordered_map<std::uint64_t, std::vector<std::pair<std::uint32_t, std::vector<std::uint64_t>>>>
            firsts;
        for (std::size_t i = 0; i < count; ++i) {
            std::vector<std::uint64_t> shape = shapeOf(i);
            if (shape.empty())
                continue;
            std::uint64_t h = 1469598103934665603ull;
            for (std::uint64_t x : shape)
                h = (h ^ x) * 1099511628211ull;
            auto& candidates = firsts[h];
            bool matched = false;
            for (const auto& [first, firstShape] : candidates)
                if (firstShape == shape) {
                    if (classOf[first] < 0)
                        classOf[first] = static_cast<std::int32_t>(classes++);
                    classOf[i] = classOf[first];
                    matched = true;
                    break;
                }
            if (!matched)
                candidates.emplace_back(static_cast<std::uint32_t>(i), std::move(shape));
        }
        return classes;
    }

    // The gradient of a stacked parameter, concatenated from its layers' pieces: each piece is written in its
    // place (a scan's backward updates the stacked gradient slice by slice), so the concatenation moves
    // nothing.
    bool stackedGradient(const ir::Op& op) const {
        return op.kind == ir::OpKind::Concatenate && op.results.size() == 1 &&
               planContext.classes()[op.results[0].index] == plan::TensorClass::Gradient;
    }

    std::vector<std::int32_t>
        prefetchFrom;  // per body op: the first op of the block `prefetch` blocks before its own
    std::vector<std::int32_t>
        launchOf;  // per body op: the op that launches its kernel (itself for a free op)
    std::vector<std::int32_t>
        readyPoint;  // per body op: the op whose kernel's end makes its result available, -1 = at the start
    std::vector<std::int32_t>
        firstNeed;  // per value: the earliest launch of a kernel reading it after it is produced, -1
    std::vector<std::int32_t>
        nextStepUse;  // per value donated to an argument: the earliest launch reading the argument, else -1

    // The schedule's structure (docs/cost-model.md): parameter gathers may start `prefetch` blocks of layers
    // ahead of their use (ops outside any block count as blocks of one op).
    void buildSchedule() {
        const ir::Graph& g = *graph;
        const std::size_t n = g.body.size();
        const plan::LayerBlocks& b = blocks();
        std::vector<std::int32_t> segmentStarts;
        std::vector<std::int32_t> segmentOf(n, 0);
        for (std::size_t i = 0; i < n; ++i) {
            if (i == 0 || b.blockOfOp[i] < 0 || b.blockOfOp[i] != b.blockOfOp[i - 1])
                segmentStarts.push_back(static_cast<std::int32_t>(i));
            segmentOf[i] = static_cast<std::int32_t>(segmentStarts.size()) - 1;
        }
        prefetchFrom.assign(n, 0);
        const auto ahead = static_cast<std::int32_t>(std::max(0, options.prefetch));
        // Prefetch 0: a gather is issued only as the kernel before its use starts.
        for (std::size_t i = 0; i < n; ++i)
            prefetchFrom[i] =
                ahead == 0 ? static_cast<std::int32_t>(i)
                           : segmentStarts[static_cast<std::size_t>(std::max(0, segmentOf[i] - ahead))];
        // A value is needed when the first kernel reading it launches: an op fused into a later kernel (a
        // weight gradient's transpose fused into its optimizer update) does not need it where it stands.
        launchOf.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            const std::int32_t k = kernels.kernelOf[i];
            launchOf[i] =
                k < 0 ? static_cast<std::int32_t>(i)
                      : static_cast<std::int32_t>(kernels.kernels[static_cast<std::size_t>(k)].ops.back());
        }
        // A kernel's own result is there when it ends; a value computed inside a fusion (a weight gradient's
        // transpose in its update's fusion) could be as soon as what it is computed from is: a reduction of
        // it is the reduction of its source, which XLA moves there.
        readyPoint.assign(n, -1);
        for (std::size_t i = 0; i < n; ++i) {
            const std::int32_t k = kernels.kernelOf[i];
            if (k >= 0 && (launchOf[i] == static_cast<std::int32_t>(i) ||
                           kernels.kernels[static_cast<std::size_t>(k)].ops.size() == 1)) {
                readyPoint[i] = static_cast<std::int32_t>(i);
                continue;
            }
            for (ValueId v : g.op(g.body[i]).operands) {
                const std::int32_t p = producer[v.index];
                if (p < 0)
                    continue;
                const bool inside = kernels.kernelOf[static_cast<std::size_t>(p)] < 0 ||
                                    kernels.kernelOf[static_cast<std::size_t>(p)] == k;
                readyPoint[i] = std::max(readyPoint[i], inside ? readyPoint[static_cast<std::size_t>(p)]
                                                               : launchOf[static_cast<std::size_t>(p)]);
            }
        }
        const auto earliestLaunch = [&](std::size_t v, std::int32_t after) {
            std::int32_t first = -1;
            for (std::uint32_t i : valueOps[v])
                if (static_cast<std::int32_t>(i) > after && (first < 0 || launchOf[i] < first))
                    first = launchOf[i];
            return first;
        };
        nextStepUse.assign(g.values.size(), -1);
        for (const auto& o : g.outputs)
            if (o.aliasedArgument && *o.aliasedArgument < g.arguments.size())
                nextStepUse[o.value.index] = earliestLaunch(g.arguments[*o.aliasedArgument].value.index, -1);
        firstNeed.assign(g.values.size(), -1);
        for (std::size_t v = 0; v < g.values.size(); ++v)
            firstNeed[v] = earliestLaunch(v, producer[v]);
    }

    // What each policy recomputes (plan.h): full everything the block's forward computed, dots-saveable all
    // but the results of dots and convolutions, selective the attention core (its values other than the
    // dots').
    void buildRemat() {
        const ir::Graph& g = *graph;
        const std::size_t n = g.body.size(), start = g.backwardStart;
        const std::size_t nv = g.values.size();
        rematBlockOf.assign(nv, -1);
        rematDrops.assign(nv, 0);
        recomputedBy.assign(n, 0);
        const plan::LayerBlocks& blocks = planContext.blocks();
        rematBlocks.assign(blocks.blocks.size(), {});  // without a backward pass no block recomputes anything
        if (start == 0 || start >= n)
            return;
        for (std::size_t i = start; i < n; ++i) {
            const std::int32_t b = blocks.blockOfOp[i];
            if (b >= 0 && rematBlocks[static_cast<std::size_t>(b)].firstBackward < 0)
                rematBlocks[static_cast<std::size_t>(b)].firstBackward = static_cast<std::int32_t>(i);
        }
        forwardEnd.assign(nv, -1);
        for (std::size_t v = 0; v < nv; ++v)
            for (std::uint32_t i : valueOps[v])
                if (i < start)
                    forwardEnd[v] = std::max(forwardEnd[v], static_cast<std::int32_t>(i));
        auto isDot = [&](std::size_t i) {
            const auto kind = g.op(g.body[i]).kind;
            return kind == ir::OpKind::DotGeneral || kind == ir::OpKind::Convolution;
        };
        constexpr auto kSelective = static_cast<std::size_t>(plan::Remat::Selective),
                       kFull = static_cast<std::size_t>(plan::Remat::Full),
                       kDots = static_cast<std::size_t>(plan::Remat::DotsSaveable);
        for (std::size_t i = 0; i < start; ++i) {
            const std::int32_t b = blocks.blockOfOp[i];
            if (b < 0)
                continue;
            RematBlock& block = rematBlocks[static_cast<std::size_t>(b)];
            if (block.firstBackward < 0)
                continue;
            const ir::Op& op = g.op(g.body[i]);
            for (ValueId r : op.results) {
                if (!kernels.stored[r.index] || output[r.index] ||
                    kernels.lastUse[r.index] < block.firstBackward)
                    continue;
                std::uint8_t drops = 1u << kFull;
                if (!isDot(i))
                    drops |= 1u << kDots;
                // A fused attention keeps only its statistics: selective has nothing to drop there.
                const std::int32_t k = kernels.kernelOf[i];
                const bool fused = k >= 0 && kernels.kernels[static_cast<std::size_t>(k)].kind ==
                                                 detail::KernelKind::AttentionForward;
                if (kernels.attentionCore[i] && !isDot(i) && !fused)
                    drops |= 1u << kSelective;
                rematBlockOf[r.index] = b;
                rematDrops[r.index] = drops;
                for (std::size_t p = 0; p < plan::kRematCount; ++p)
                    if ((drops >> p) & 1u)
                        block.drops[p] = true;
            }
        }
        // The kernels run again: those wholly in one block's forward, when the policy drops something there.
        for (std::size_t k = 0; k < kernels.kernels.size(); ++k) {
            const auto& kernel = kernels.kernels[k];
            const std::int32_t b = blocks.blockOfOp[kernel.ops.front()];
            if (b < 0 || kernel.ops.back() >= start)
                continue;
            bool one = true, dot = false, core = false;
            for (std::uint32_t i : kernel.ops) {
                one = one && blocks.blockOfOp[i] == b;
                dot = dot || isDot(i);
                core = core || kernels.attentionCore[i];
            }
            RematBlock& block = rematBlocks[static_cast<std::size_t>(b)];
            if (!one || block.firstBackward < 0)
                continue;
            auto add = [&](std::size_t p) {
                if (!block.drops[p])
                    return;
                block.kernels[p].push_back(static_cast<std::uint32_t>(k));
                for (std::uint32_t i : kernel.ops)
                    recomputedBy[i] |= static_cast<std::uint8_t>(1u << p);
            };
            add(kFull);
            if (!dot)
                add(kDots);
            if (core)
                add(kSelective);
        }
        std::vector<char> recomputed(g.values.size(), 0);
        for (auto& block : rematBlocks)
            for (std::size_t p = 0; p < plan::kRematCount; ++p) {
                for (std::uint32_t k : block.kernels[p])
                    for (ValueId v : kernels.kernels[k].writes)
                        recomputed[v.index] = 1;
                for (std::uint32_t k : block.kernels[p])
                    for (ValueId v : kernels.kernels[k].reads)
                        if (!recomputed[v.index] && producer[v.index] >= 0 &&
                            std::find(block.sources[p].begin(), block.sources[p].end(), v) ==
                                block.sources[p].end())
                            block.sources[p].push_back(v);
                for (std::uint32_t k : block.kernels[p])
                    for (ValueId v : kernels.kernels[k].writes)
                        recomputed[v.index] = 0;
            }
    }
};

// A model: its structure (shared with its microbatch models) and its mesh and hardware.
struct CostModel::Data {
    std::shared_ptr<const ModelStructure> structure;
    mesh::Mesh mesh;
    mesh::HardwareProfile hardware;
    CostOptions options;

    std::vector<mesh::AxisGroupLink> groupLinks;  // by axis mask
    // By axis mask: the devices and link a collective over those axes moves data on (the accumulated axes
    // left out: their shards are the same devices' microbatches).
    std::vector<CollectiveGroup> collectiveLinks;
    std::uint32_t accumulated = 0;
    // A microbatch model's: the model it is of and its key there (CostModel::microbatchModel's arguments).
    const CostModel* base = nullptr;
    std::tuple<int, int, int> microbatchKey;
    // CostModel::microbatchModel's models, by (pipeline axis, stages, microbatches).
    mutable std::mutex microbatchMutex;
    mutable std::map<std::tuple<int, int, int>, std::unique_ptr<CostModel>> microbatchModels;
    // CostModel::shallowCopies's.
    mutable std::once_flag shallowOnce;
    mutable std::unique_ptr<CostModel::ShallowCopies> shallow;
    mutable std::string shallowWhy;  // why there are none

    Data(std::shared_ptr<const ModelStructure> s, mesh::Mesh on, mesh::HardwareProfile h, CostOptions o,
         std::uint32_t accumulatedAxes)
        : structure(std::move(s)),
          mesh(std::move(on)),
          hardware(std::move(h)),
          options(o),
          accumulated(accumulatedAxes) {
        largeGemmEfficiency = hardware.matmulEfficiency(1e9, 1e9, 1e9);
        groupLinks.resize(std::size_t{1} << mesh.axes.size());
        collectiveLinks.resize(groupLinks.size());
        for (std::size_t m = 0; m < groupLinks.size(); ++m) {
            groupLinks[m] = mesh::groupLink(mesh, static_cast<std::uint32_t>(m));
            const auto moving = static_cast<std::uint32_t>(m) & ~accumulated;
            collectiveLinks[m] = {mesh::groupLink(mesh, moving), mesh::groupLevels(mesh, moving)};
        }
        // The streams: one per mesh axis, a collective on several axes on the stream of the slowest.
        streamOf.assign(groupLinks.size(), 0);
        for (std::size_t m = 1; m < groupLinks.size(); ++m) {
            double slowest = 0;
            for (std::size_t a = 0; a < mesh.axes.size(); ++a)
                if (((m >> a) & 1u) && (slowest == 0 || mesh.axes[a].link.bandwidth < slowest)) {
                    slowest = mesh.axes[a].link.bandwidth;
                    streamOf[m] = static_cast<std::int32_t>(a);
                }
        }
    }

    double devices(std::uint32_t mask) const { return static_cast<double>(groupLinks[mask].devices); }

    // The time of one kernel computing `flops` in `element` and moving `bytes` of HBM (docs/cost-model.md):
    // max(FLOPs / (peak·matmul efficiency), bytes / (HBM·memory efficiency)) + launch. The efficiencies come
    // from the hardware profile's tables at the kernel's local GEMM shape (rows, columns, contraction; none:
    // the table's large-GEMM plateau) and bytes, or are options.efficiency for everything when that is set.
    // A multi-tensor kernel (the optimizer update's) streams every parameter's piece at once: its memory
    // efficiency is the table's for a large transfer.
    double kernelTime(ir::ElementType element, double flops, double bytes, const double* gemm,
                      bool multiTensor = false) const {
        const double peak = hardware.peak(element);
        double flopEfficiency = options.efficiency, memoryEfficiency = options.efficiency;
        if (options.efficiency <= 0) {
            flopEfficiency =
                gemm ? hardware.matmulEfficiency(gemm[0], gemm[1], gemm[2]) : largeGemmEfficiency;
            memoryEfficiency = hardware.memoryEfficiency(multiTensor ? std::max(bytes, 1e9) : bytes);
        }
        const double flopTime = peak > 0 && flopEfficiency > 0 ? flops / (peak * flopEfficiency) : 0;
        const double memTime = hardware.hbmBandwidth > 0 && memoryEfficiency > 0
                                   ? bytes / (hardware.hbmBandwidth * memoryEfficiency)
                                   : 0;
        return std::max(flopTime, memTime) + options.launchTime;
    }
    double largeGemmEfficiency = 0;
    std::vector<std::int32_t> streamOf;  // per axis mask: the communication stream (its slowest axis)
};

namespace {
// scatteredLayout into `produced`, its buffer reused.
void scatteredLayoutInto(const std::vector<AxisList>& required, const std::vector<AxisList>& have,
                         std::uint32_t scattered, std::vector<AxisList>& produced) {
    produced = required;
    for (std::size_t k = 0; k < produced.size() && k < have.size(); ++k)
        for (int i = 0; i < have[k].size(); ++i)
            if ((scattered >> have[k][i]) & 1u)
                produced[k].push(have[k][i]);
}
}  // namespace

std::vector<AxisList> scatteredLayout(const std::vector<AxisList>& required,
                                      const std::vector<AxisList>& have, std::uint32_t scattered) {
    std::vector<AxisList> produced;
    scatteredLayoutInto(required, have, scattered, produced);
    return produced;
}

ReshardAxes reshardAxes(const std::vector<AxisList>& from, const std::vector<AxisList>& to) {
    std::uint32_t a = 0, r = 0;
    for (const auto& list : from)
        a |= list.mask();
    for (const auto& list : to)
        r |= list.mask();
    const std::uint32_t common = a & r;
    ReshardAxes axes;
    axes.gathered = a & ~r;
    const std::size_t rank = std::max(from.size(), to.size());
    for (std::size_t k = 0; k < rank; ++k) {
        const AxisList f = k < from.size() ? from[k] : AxisList{};
        const AxisList t = k < to.size() ? to[k] : AxisList{};
        AxisList x, y;
        for (int i = 0; i < f.size(); ++i)
            if ((common >> f[i]) & 1u)
                x.push(f[i]);
        for (int i = 0; i < t.size(); ++i)
            if ((common >> t[i]) & 1u)
                y.push(t[i]);
        // Kept axes keep their blocks only when they stay in the same order as the major part of both lists.
        bool prefix = x == y;
        for (int i = 0; i < x.size() && prefix; ++i)
            prefix = f[i] == x[i] && t[i] == x[i];
        if (!prefix)
            axes.exchanged |= x.mask() | y.mask();
    }
    return axes;
}

CostModel::CostModel(const ir::Graph& graph, const analysis::DecisionSpace& space, mesh::Mesh mesh,
                     mesh::HardwareProfile hardware, CostOptions options)
    : CostModel(graph, space, std::move(mesh), std::move(hardware), options, 0) {}
CostModel::CostModel(const ir::Graph& graph, const analysis::DecisionSpace& space, mesh::Mesh mesh,
                     mesh::HardwareProfile hardware, CostOptions options, std::uint32_t accumulated)
    : data_(std::make_unique<Data>(std::make_shared<const ModelStructure>(graph, space, options),
                                   std::move(mesh), std::move(hardware), options, accumulated)) {}
CostModel::CostModel(const Data& base, mesh::Mesh mesh, std::uint32_t accumulated)
    : data_(std::make_unique<Data>(base.structure, std::move(mesh), base.hardware, base.options,
                                   accumulated)) {}
CostModel::CostModel(const Data& full, std::shared_ptr<const ModelStructure> structure)
    : data_(std::make_unique<Data>(std::move(structure), full.mesh, full.hardware, full.options,
                                   full.accumulated)) {}
CostModel::~CostModel() = default;

namespace {

// Matches a shallow copy's kernels to the model's (CostModel::shallowCopies). Every op the copy keeps runs in
// the kernel that stands for its kernel in the model: the same kind, recompute, launch discount and writes,
// and ops and stored reads that are the model's or stand for them (analysis::ShallowGraph::standsFor), of
// the same sizes. A kernel of the model with ops or reads in the layers left out (a fused sum of every
// layer's contribution to a tensor they all read, whose work grows with the depth) is priced on the copy
// with its standing-in ops and reads weighted by how many they stand for, as the model prices it. Returns
// the body index in the model of an op that runs otherwise, or nullopt.
std::optional<std::uint32_t> matchKernels(const ModelStructure& full, ModelStructure& copy,
                                          const analysis::ShallowGraph& shallow) {
    const auto& fullBody = shallow.fullBody;
    const detail::KernelPlan &fk = full.kernels, &ck = copy.kernels;
    std::vector<std::int32_t> fullKernel(ck.kernels.size(), -1);
    for (std::size_t i = 0; i < fullBody.size(); ++i) {
        const std::int32_t kc = ck.kernelOf[i], kf = fk.kernelOf[fullBody[i]];
        if ((kc < 0) != (kf < 0))
            return fullBody[i];
        if (kc < 0)
            continue;
        std::int32_t& seen = fullKernel[static_cast<std::size_t>(kc)];
        if (seen >= 0 && seen != kf)
            return fullBody[i];
        seen = kf;
    }
    copy.kernelWeights.assign(ck.kernels.size(), {});
    for (std::size_t kc = 0; kc < ck.kernels.size(); ++kc) {
        const detail::Kernel& a = ck.kernels[kc];
        const auto kf = static_cast<std::size_t>(fullKernel[kc]);
        const detail::Kernel& b = fk.kernels[kf];
        const std::uint32_t at = fullBody[a.ops.back()];
        if (a.kind != b.kind || (a.recomputedOp < 0) != (b.recomputedOp < 0) ||
            (a.recomputedOp >= 0 && fullBody[static_cast<std::size_t>(a.recomputedOp)] !=
                                        static_cast<std::uint32_t>(b.recomputedOp)) ||
            copy.launchDiscount[kc] != full.launchDiscount[kf] || a.writes.size() != b.writes.size())
            return at;
        ModelStructure::KernelWeights weights{std::vector<double>(a.ops.size(), 0),
                                              std::vector<double>(a.reads.size(), 0)};
        for (std::uint32_t o : b.ops) {
            const std::int32_t stand = shallow.standsFor[o];
            const auto it = std::lower_bound(a.ops.begin(), a.ops.end(), static_cast<std::uint32_t>(stand));
            if (stand < 0 || it == a.ops.end() || *it != static_cast<std::uint32_t>(stand))
                return at;
            weights.ops[static_cast<std::size_t>(it - a.ops.begin())] += 1;
        }
        // The place among `values` of the copy's value standing for the model's v, of the same size, or -1:
        // what the op standing for a kernel op that reads v reads in its place, by the same operands,
        // directly or through values the kernel recomputes (a value of the layers left out stands in a layer
        // before them for readers after them, and after them for readers before); else (a write) the result
        // standing for v.
        std::vector<std::size_t> path;  // operand indices from a kernel op to v
        const std::function<bool(ValueId, ValueId, int)> reach = [&](ValueId u, ValueId v, int depth) {
            if (u == v)
                return true;
            const std::int32_t p = full.producer[u.index];
            if (depth == 0 || p < 0 || full.kernels.stored[u.index])
                return false;
            const auto& operands = full.graph->op(full.graph->body[static_cast<std::size_t>(p)]).operands;
            for (std::size_t j = 0; j < operands.size(); ++j) {
                path.push_back(j);
                if (reach(operands[j], v, depth - 1))
                    return true;
                path.pop_back();
            }
            return false;
        };
        const auto standIn = [&](const std::vector<ValueId>& values, ValueId v) -> std::ptrdiff_t {
            ValueId stand = shallow.valueStandsFor[v.index];
            for (std::uint32_t o : b.ops) {
                const auto& operands = full.graph->op(full.graph->body[o]).operands;
                path.assign(1, 0);
                for (; path[0] < operands.size(); ++path[0])
                    if (reach(operands[path[0]], v, 4))
                        break;
                if (path[0] == operands.size())
                    continue;
                std::int32_t reader = shallow.standsFor[o];
                for (std::size_t step = 0; step < path.size(); ++step) {
                    if (reader < 0)
                        return -1;
                    const ir::Op& op = copy.graph->op(copy.graph->body[static_cast<std::size_t>(reader)]);
                    stand = path[step] < op.operands.size() ? op.operands[path[step]] : ValueId{};
                    reader = stand.valid() ? copy.producer[stand.index] : -1;
                }
                break;
            }
            const auto it = std::find(values.begin(), values.end(), stand);
            if (!stand.valid() || it == values.end() ||
                copy.fullBytes[stand.index] != full.fullBytes[v.index])
                return -1;
            return it - values.begin();
        };
        for (ValueId v : b.reads) {
            const std::ptrdiff_t r = standIn(a.reads, v);
            if (r < 0)
                return at;
            weights.reads[static_cast<std::size_t>(r)] += 1;
        }
        for (ValueId v : b.writes)
            if (standIn(a.writes, v) < 0)
                return at;
        const auto one = [](const std::vector<double>& w) {
            return std::all_of(w.begin(), w.end(), [](double x) { return x == 1; });
        };
        if (one(weights.ops) && one(weights.reads))
            continue;
        const auto some = [](const std::vector<double>& w) {
            return std::all_of(w.begin(), w.end(), [](double x) { return x >= 1; });
        };
        if (a.kind != detail::KernelKind::Fusion || !some(weights.ops) || !some(weights.reads))
            return at;
        copy.kernelWeights[kc] = std::move(weights);
        copy.kernelClass[kc] = -1;  // priced on its own
    }
    return std::nullopt;
}

}  // namespace

namespace {

// The groups and names of a shallow copy's space that the model's stand for: those of the same atoms of
// every value both have (one the copy keeps, made by an op it keeps or an argument). A group whose atoms are
// in several of the copy's groups, or whose copy's group also holds another group's atoms, maps to none
// (-1), and so does one with no atom in the copy; names likewise. (Labels alone would not do: a name without
// a role is numbered, "N17", and numbers differ between the copies.) `outside`: per name of the model,
// whether every value carrying it is one the copy keeps (it is a name of the layers the copy keeps only).
void mapByAtoms(const ModelStructure& full, CostModel::ShallowCopies::Copy& copy,
                std::vector<char>& outside) {
    const analysis::DecisionSpace& space = *full.space;
    const analysis::DecisionSpace& cs = copy.space;
    const analysis::ShallowGraph& shallow = copy.shallow;
    constexpr std::int32_t kUnseen = -1, kSplit = -2;
    std::vector<std::int32_t> groupTo(space.groups.size(), kUnseen), groupFrom(cs.groups.size(), kUnseen),
        nameTo(space.names.size(), kUnseen), nameFrom(cs.names.size(), kUnseen);
    const auto link = [&](std::vector<std::int32_t>& to, std::vector<std::int32_t>& from, std::uint32_t a,
                          std::uint32_t b) {
        std::int32_t& t = to[a];
        t = t == kUnseen ? static_cast<std::int32_t>(b) : (t == static_cast<std::int32_t>(b) ? t : kSplit);
        std::int32_t& f = from[b];
        f = f == kUnseen ? static_cast<std::int32_t>(a) : (f == static_cast<std::int32_t>(a) ? f : kSplit);
    };
    const auto split = [&](analysis::AtomId atom) {
        const analysis::NameId n = space.atom(atom).name;
        if (n.valid()) {
            nameTo[n.index] = kSplit;
            groupTo[space.name(n).group.index] = kSplit;
        }
    };
    for (std::size_t v = 0; v < full.graph->values.size(); ++v) {
        if (!full.topLevel[v] || v >= space.dimensionAtoms.size())
            continue;
        const std::int32_t p = full.producer[v];
        const bool kept =
            p < 0 ? shallow.valueStandsFor[v].valid()
                  : shallow.standsFor[static_cast<std::size_t>(p)] >= 0 &&
                        shallow.fullBody[static_cast<std::size_t>(
                            shallow.standsFor[static_cast<std::size_t>(p)])] == static_cast<std::uint32_t>(p);
        const auto& dims = space.dimensionAtoms[v];
        if (!kept) {
            for (const auto& atoms : dims)
                for (analysis::AtomId atom : atoms)
                    if (const analysis::NameId n = space.atom(atom).name; n.valid())
                        outside[n.index] = 0;
            continue;
        }
        const auto& copyDims = cs.dimensionAtoms[shallow.valueStandsFor[v].index];
        for (std::size_t d = 0; d < dims.size(); ++d) {
            const bool same = d < copyDims.size() && copyDims[d].size() == dims[d].size();
            for (std::size_t i = 0; i < dims[d].size(); ++i) {
                const analysis::Atom& a = space.atom(dims[d][i]);
                if (!same || cs.atom(copyDims[d][i]).size != a.size ||
                    cs.atom(copyDims[d][i]).name.valid() != a.name.valid()) {
                    split(dims[d][i]);
                    continue;
                }
                if (!a.name.valid())
                    continue;
                const analysis::NameId b = cs.atom(copyDims[d][i]).name;
                link(nameTo, nameFrom, a.name.index, b.index);
                link(groupTo, groupFrom, space.name(a.name).group.index, cs.name(b).group.index);
            }
        }
    }
    const auto mapped = [](const std::vector<std::int32_t>& to, const std::vector<std::int32_t>& from,
                           std::vector<std::int32_t>& out) {
        out.assign(to.size(), -1);
        for (std::size_t a = 0; a < to.size(); ++a)
            if (to[a] >= 0 && from[static_cast<std::size_t>(to[a])] == static_cast<std::int32_t>(a))
                out[a] = to[a];
    };
    mapped(groupTo, groupFrom, copy.group);
    mapped(nameTo, nameFrom, copy.name);
}

// The blocks of a shallow copy that the model's are: the copy's block whose ops are all and only the
// model's block's ops (-1: a block some of whose ops the copy leaves out, or none).
std::vector<std::int32_t> mapBlocks(const ModelStructure& full, const CostModel::ShallowCopies::Copy& copy,
                                    const ModelStructure& copyStructure) {
    const auto& blocks = full.blocks();
    const auto& copyBlocks = copyStructure.blocks();
    std::vector<std::int32_t> to(blocks.blocks.size(), -1), from(copyBlocks.blocks.size(), -1);
    std::vector<std::size_t> ops(blocks.blocks.size(), 0), keptOps(blocks.blocks.size(), 0);
    for (const std::int32_t b : blocks.blockOfOp)
        if (b >= 0)
            ++ops[static_cast<std::size_t>(b)];
    constexpr std::int32_t kSplit = -2;
    const auto& fullBody = copy.shallow.fullBody;
    for (std::size_t j = 0; j < fullBody.size() && j < copyBlocks.blockOfOp.size(); ++j) {
        const std::int32_t b = fullBody[j] < blocks.blockOfOp.size() ? blocks.blockOfOp[fullBody[j]] : -1;
        const std::int32_t c = copyBlocks.blockOfOp[j];
        if (b < 0 || c < 0) {
            if (b >= 0)
                to[static_cast<std::size_t>(b)] = kSplit;
            if (c >= 0)
                from[static_cast<std::size_t>(c)] = kSplit;
            continue;
        }
        ++keptOps[static_cast<std::size_t>(b)];
        std::int32_t& t = to[static_cast<std::size_t>(b)];
        t = t == -1 ? c : (t == c ? t : kSplit);
        std::int32_t& f = from[static_cast<std::size_t>(c)];
        f = f == -1 ? b : (f == b ? f : kSplit);
    }
    for (std::size_t b = 0; b < to.size(); ++b)
        if (to[b] < 0 || keptOps[b] != ops[b] ||
            from[static_cast<std::size_t>(to[b])] != static_cast<std::int32_t>(b))
            to[b] = -1;
    return to;
}

}  // namespace

bool CostModel::ShallowCopies::planOn(std::size_t k, const plan::Plan& plan, plan::Plan& out) const {
    if (staged(plan))
        return false;
    const Copy& c = copies[k];
    out.decisions.clear();
    out.resolutions.clear();
    out.remat.clear();
    for (plan::Decision d : plan.decisions) {
        const auto& map = d.target == plan::Decision::Target::Group ? c.group : c.name;
        if (d.index >= map.size() || map[d.index] < 0)
            return false;
        d.index = static_cast<std::uint32_t>(map[d.index]);
        out.decisions.push_back(d);
    }
    for (plan::Resolution r : plan.resolutions) {
        if (r.name.index >= c.name.size() || c.name[r.name.index] < 0)
            return false;
        r.name = analysis::NameId{static_cast<std::uint32_t>(c.name[r.name.index])};
        out.resolutions.push_back(r);
    }
    // A remat decision on a family, or on a block the copy keeps (by its label in the copy).
    const auto& families = c.model->planContext().blocks().families;
    for (auto r : plan.remat) {
        if (std::find(families.begin(), families.end(), r.target) == families.end()) {
            const auto it = std::find(blockLabels.begin(), blockLabels.end(), r.target);
            const auto b = static_cast<std::size_t>(it - blockLabels.begin());
            if (it == blockLabels.end() || c.block[b] < 0)
                return false;
            r.target = c.model->planContext().blocks().blocks[static_cast<std::size_t>(c.block[b])];
        }
        out.remat.push_back(std::move(r));
    }
    return true;
}

const CostModel::ShallowCopies* CostModel::shallowCopies(std::string* why) const {
    if (data_->base)
        return data_->base->shallowCopies(why);
    std::call_once(data_->shallowOnce, [&] {
        const ModelStructure& s = *data_->structure;
        const auto& blocks = s.blocks();
        const auto repeat = analysis::layerRepeat(*s.graph, blocks);
        if (!repeat || data_->accumulated != 0) {
            data_->shallowWhy =
                data_->accumulated != 0
                    ? "a model of accumulated microbatches"
                    : "no stretch of alike layers long enough to leave two periods of them out";
            return;
        }
        auto copies = std::make_unique<ShallowCopies>();
        std::array<std::shared_ptr<ModelStructure>, 2> structures;
        for (std::size_t k = 0; k < 2; ++k) {
            auto& c = copies->copies[k];
            c.shallow = analysis::shallowGraph(*s.graph, blocks, *repeat, k);
            c.space = analysis::analyze(c.shallow.graph);
            structures[k] = std::make_shared<ModelStructure>(c.shallow.graph, c.space, data_->options,
                                                             s.modelStateValues[0].size());
        }
        const auto& [first, second] = copies->copies;
        copies->periods =
            static_cast<double>(first.shallow.blocksLeftOut) / static_cast<double>(repeat->period);
        // A group maps to the copy's group its atoms are in (mapByAtoms) when that is so in both copies and
        // its names grow by the same count a period; a name alone in its group (deciding it decides the
        // group) maps likewise.
        const analysis::DecisionSpace& space = *s.space;
        std::vector<char> outside(space.names.size(), 1);  // in both copies: the first keeps fewer values
        for (std::size_t k = 0; k < 2; ++k)
            mapByAtoms(s, copies->copies[k], outside);
        const auto grows = [&](double full, double a, double b) {
            return full == a + copies->periods * (b - a);
        };
        for (std::size_t g = 0; g < space.groups.size(); ++g) {
            const std::int32_t a = first.group[g], b = second.group[g];
            if (a < 0 || b < 0 ||
                !grows(static_cast<double>(space.groups[g].names.size()),
                       static_cast<double>(first.space.groups[static_cast<std::size_t>(a)].names.size()),
                       static_cast<double>(second.space.groups[static_cast<std::size_t>(b)].names.size())))
                copies->copies[0].group[g] = copies->copies[1].group[g] = -1;
        }
        const auto alone = [](const analysis::DecisionSpace& in, std::int32_t n) {
            return n >= 0 && in.group(in.names[static_cast<std::size_t>(n)].group).names.size() == 1;
        };
        // A name of the layers both keep maps whatever its group: deciding it decides the same layer in the
        // model and in both copies, and none of the layers left out.
        for (std::size_t n = 0; n < space.names.size(); ++n)
            if (!outside[n] && (!alone(space, static_cast<std::int32_t>(n)) ||
                                !alone(first.space, first.name[n]) || !alone(second.space, second.name[n])))
                copies->copies[0].name[n] = copies->copies[1].name[n] = -1;
        // Every op a copy keeps runs in the kernel that stands for its kernel in the model (matchKernels).
        for (std::size_t k = 0; k < 2; ++k)
            if (const auto op = matchKernels(s, *structures[k], copies->copies[k].shallow)) {
                const std::string& name = s.graph->op(s.graph->body[*op]).location.name;
                data_->shallowWhy = "op " + std::to_string(*op) + (name.empty() ? "" : " ('" + name + "')") +
                                    " runs in a kernel that fuses across the layers a copy leaves out";
                return;
            }
        for (const auto& w : structures[0]->kernelWeights)
            copies->grownKernels += !w.ops.empty();
        copies->blockLabels = blocks.blocks;
        for (std::size_t k = 0; k < 2; ++k)
            copies->copies[k].block = mapBlocks(s, copies->copies[k], *structures[k]);
        for (std::size_t k = 0; k < 2; ++k)
            copies->copies[k].model.reset(new CostModel(*data_, std::move(structures[k])));
        std::vector<std::int64_t> inSecond(s.graph->body.size(), -1);
        for (std::size_t i = 0; i < second.shallow.fullBody.size(); ++i)
            inSecond[second.shallow.fullBody[i]] = static_cast<std::int64_t>(i);
        for (std::uint32_t full : first.shallow.fullBody) {
            if (inSecond[full] < 0)
                return;  // not reached: the second copy keeps every op the first does
            copies->secondOp.push_back(static_cast<std::uint32_t>(inSecond[full]));
        }
        copies->pays =
            2 * (first.shallow.graph.body.size() + second.shallow.graph.body.size()) <= s.graph->body.size();
        data_->shallow = std::move(copies);
    });
    if (why)
        *why = data_->shallowWhy;
    return data_->shallow.get();
}
const CostModel& CostModel::microbatchModel(int pipelineAxis, int stages, int microbatches) const {
    const std::lock_guard lock(data_->microbatchMutex);
    auto& slot = data_->microbatchModels[{pipelineAxis, stages, microbatches}];
    if (!slot) {
        mesh::Mesh m = data_->mesh;
        if (pipelineAxis >= 0 && pipelineAxis < static_cast<int>(m.axes.size()) && stages > 0) {
            auto& axis = m.axes[static_cast<std::size_t>(pipelineAxis)];
            axis = mesh::innerPart(axis, axis.size / stages);
        }
        mesh::MeshAxis micro;
        micro.name = "microbatches";
        micro.size = microbatches;
        micro.link.bandwidth = 1e30;
        micro.link.latency = 0;
        m.axes.push_back(micro);
        const std::uint32_t accumulated = std::uint32_t{1} << (m.axes.size() - 1);
        // The same graph on another mesh: it shares this model's structure, and its shallow copies are this
        // model's copies' microbatch models.
        slot.reset(new CostModel(*data_, std::move(m), accumulated));
        slot->data_->base = this;
        slot->data_->microbatchKey = {pipelineAxis, stages, microbatches};
    }
    return *slot;
}
const ir::Graph& CostModel::graph() const {
    return *data_->structure->graph;
}
const analysis::DecisionSpace& CostModel::space() const {
    return *data_->structure->space;
}
const mesh::Mesh& CostModel::mesh() const {
    return data_->mesh;
}
const mesh::HardwareProfile& CostModel::hardware() const {
    return data_->hardware;
}
const CostOptions& CostModel::options() const {
    return data_->options;
}
const plan::PlanContext& CostModel::planContext() const {
    return data_->structure->planContext;
}
CostModel::OpClasses CostModel::opClasses() const {
    OpClasses out{data_->structure->classCount, 0};
    for (std::int32_t c : data_->structure->opClass)
        out.ops += c >= 0 ? 1 : 0;
    return out;
}
bool CostModel::takesMemory(ir::ValueId value) const {
    return data_->structure->topLevel[value.index] && data_->structure->kernels.stored[value.index];
}
std::size_t CostModel::fusedAttentions() const {
    return data_->options.attention == Attention::Fused ? data_->structure->kernels.attentions : 0;
}
double CostModel::lowerBoundTime() const {
    const double peak = data_->hardware.peak(ir::ElementType::BF16);
    return data_->structure->totalFlops /
           (data_->devices((1u << data_->mesh.axes.size()) - 1) * (peak > 0 ? peak : 1));
}

// ---------------------------------------------------------------------------------------------------------------

namespace {

struct OpRecord {
    OpExecution execution;
    std::vector<Collective> collectives;   // reshards, reduce-scatters, permutes
    std::vector<std::uint64_t> shareKeys;  // per collective: the target layout of an operand reshard
                                           // (shareKey adds the value), else 0
    std::vector<std::uint32_t> partial;    // per result: axes it is left partial over (all-reduced lazily)
    // Per collective: the position of its value among the op's tensors. A record serves every op of its
    // class (the ops differ only in their ids): the sweep gives each collective the op's own id and value.
    std::vector<std::uint32_t> tensorOf;
};

using DimAxes = std::vector<AxisList>;

// The key under which the sweep shares an operand reshard: its layout key (OpRecord::shareKeys) and the
// value.
std::uint64_t shareKey(std::uint64_t layout, ValueId value) {
    return (layout ^ ((static_cast<std::uint64_t>(value.index) + 1) * 0xC2B2AE3D27D4EB4Full)) | 1;
}

// A set of non-zero 64-bit keys that clears in constant time (a new generation) and allocates only to grow:
// open addressing, linear probing.
class KeySet {
public:
    void clear() {
        if (++generation_ == 0) {
            std::fill(stamps_.begin(), stamps_.end(), 0);
            generation_ = 1;
        }
        size_ = 0;
    }
    // Inserts `key`; false when it was there already.
    bool insert(std::uint64_t key) {
        if (2 * (size_ + 1) > keys_.size())
            grow();
        const std::size_t mask = keys_.size() - 1;
        for (std::size_t at = (key * 0x9E3779B97F4A7C15ull) >> 20 & mask;; at = (at + 1) & mask) {
            if (stamps_[at] != generation_) {
                stamps_[at] = generation_;
                keys_[at] = key;
                ++size_;
                return true;
            }
            if (keys_[at] == key)
                return false;
        }
    }

private:
    void grow() {
        std::vector<std::uint64_t> keys;
        for (std::size_t at = 0; at < keys_.size(); ++at)
            if (stamps_[at] == generation_)
                keys.push_back(keys_[at]);
        keys_.assign(std::max<std::size_t>(64, 2 * keys_.size()), 0);
        stamps_.assign(keys_.size(), 0);
        generation_ = 1;
        size_ = 0;
        for (std::uint64_t key : keys)
            insert(key);
    }
    std::vector<std::uint64_t> keys_;
    std::vector<std::uint32_t> stamps_;
    std::uint32_t generation_ = 1;
    std::size_t size_ = 0;
};

}  // namespace

struct Evaluator::State {
    const CostModel* model;
    const CostModel::Data* d;
    const ModelStructure* s;  // the model's structure (shared with its microbatch models)
    bool valid = false;
    // Plans with microbatches or a pipeline (cost/pipeline.h); lastStaged: the last plan was one.
    std::unique_ptr<detail::StagedEvaluator> staged;
    bool lastStaged = false;
    plan::AppliedPlan applied;
    plan::AppliedPlan spare;  // the plan applied before `applied`: buffers for the next
    std::vector<double> localBytes;
    std::vector<std::uint32_t> valueMask;  // axes each value uses
    // A hash of each value's local layout (its atoms' axes by dimension), which op signatures combine.
    std::vector<std::uint64_t> layoutHash;
    Evaluation evaluation;
    std::size_t recosted = 0;
    // Scratch, kept between evaluations.
    std::vector<char> opDirty, valueDirty, needsReduce;
    std::vector<std::uint32_t> pending, reduceAxes, dirtyValues, dirtyOps;
    std::vector<std::array<double, 5>> delta;
    KeySet shared;
    std::vector<plan::RematDecision> remat;  // the plan's, as last evaluated
    std::vector<plan::Remat> blockPolicy;    // per block of layers
    bool rematSet = false;
    std::vector<std::int32_t> keptUntil;  // per value: a block's recompute needs it until then (-1: no)
    std::vector<double> kernelTime;       // per kernel, kept between evaluations
    // Kernels to price again (an op whose record they read was re-costed), and per kernel class the prices
    // it made lately, by its ops' record keys (0: none), replaced in turn.
    std::vector<char> kernelDirty;
    std::vector<std::uint32_t> dirtyKernels;
    struct KernelMemo {
        std::uint64_t key = 0;
        double time = 0;
    };
    // Slots a pool (below) keeps before it evicts an unused one, and prices a kernel class keeps.
    static constexpr std::size_t kMemoSlots = 4;
    std::vector<std::array<KernelMemo, kMemoSlots>> kernelMemos;
    std::vector<std::uint8_t> kernelMemoNext;
    std::vector<Collective> recomputed;          // collectives of recomputed ops, run again
    std::vector<Collective> mergedCollectives;   // the step's collectives in order, for the swap
    std::vector<std::uint64_t> collectiveOrder;  // (op + 1) << 32 | position, sorted
    // The step's schedule, rebuilt per evaluation in reused buffers.
    ScheduleSimulator simulator;
    Step step;
    std::vector<std::vector<std::int32_t>> spareWaits;  // waitsFor buffers of kernels a smaller step let go
    Schedule schedule;
    std::vector<std::int32_t> taskAt, taskOp, transferOrder, neededBy;
    std::vector<ScheduledTransfer> sortedTransfers;
    std::vector<std::int32_t> bucketStart;
    static std::int32_t readyKey(const ScheduledTransfer& t) { return std::max(t.readyAfter, t.issueAfter); }
    std::vector<double> prefetched;  // per body op: bytes of parameters gathered ahead, live during it
    // Records, pooled per class of ops (CostModel::Data::opClass; an op outside every class, or every op when
    // classes are not shared, is a class of its own): each slot holds the record made for one local sharding
    // (its key, made in its epoch; reset() starts a new one) and counts the ops whose current record it is.
    // An op points at its slot; a new sharding takes a slot no op uses (the class's earlier shardings stay as
    // memos, so a search moving back and forth finds them), or a new slot when every one is in use.
    struct Slot {
        OpRecord record;
        std::uint64_t key = 0;
        std::uint32_t epoch = 0, users = 0;
    };
    struct Pool {
        std::vector<Slot> slots;
        std::uint32_t next = 0;  // where the search for a free slot starts (round robin)
    };
    static constexpr std::uint32_t kNoSlot = ~0u;
    std::vector<Pool> pools;
    std::vector<std::uint32_t> poolOf, slotOf;  // per op
    std::vector<std::uint64_t> opKey;           // per op: its current record's key (its local shardings)
    std::uint32_t epoch = 1;
    bool shareClasses = true;
    std::size_t priced = 0;         // ops costOp priced in the last evaluate (not from a memo or a copy)
    std::size_t kernelsPriced = 0;  // kernels kernelPrice priced in the last evaluate
    const OpRecord& record(std::size_t i) const { return pools[poolOf[i]].slots[slotOf[i]].record; }
    // Of each op's current record, what the sweeps read, in flat arrays (recost keeps them): its results'
    // partial axes (by CostModel::Data::tensorValues slot), its collectives' count, its compute time, FLOPs
    // and temporary bytes.
    std::vector<std::uint32_t> partialOf, collectiveCount;
    std::vector<double> opCompute, opFlops, opTemporary;
    // Buffers costOp reuses (an Evaluator is used by one thread).
    mutable std::vector<DimAxes> scratchActuals;
    mutable std::vector<std::vector<AxisList>> scratchOptions;
    mutable DimAxes scratchRequired, scratchProduced;
    mutable std::vector<std::uint32_t> scratchClaims;
    mutable std::vector<AxisList> scratchBest, scratchChoice;
    mutable std::vector<std::size_t> scratchIndex;

    explicit State(const CostModel& m) : model(&m), d(&m.data()), s(m.data().structure.get()) {}

    // Layer classes (EvaluatorOptions::layerClasses): evaluators of the model's shallow copies, and the last
    // evaluation extrapolated from theirs.
    EvaluatorOptions::LayerClasses layerClasses = EvaluatorOptions::LayerClasses::Off;
    std::array<std::unique_ptr<Evaluator>, 2> shallowEvaluators;
    std::array<const Evaluation*, 2> shallowEvaluations{};  // theirs of the last plan
    std::array<plan::Plan, 2> copyPlans;                    // the last plan on each copy
    Evaluation layerEvaluation;
    // Whether the shallow copies' schedules (a, b: their evaluators' states after evaluating the plan) hold
    // at the model's depth: every kernel and transfer of the first copy, its time and the times of what it
    // waits for extrapolated to the depth as the figures are (a + periods·(b − a)), still starts when the
    // last of those ends and not before any of them, and so does the step's end. A wait that binds at a
    // shallow depth and not at the model's (a parameter gather that holds up the forward of a few layers but
    // not of many) changes the schedule's critical path: such a plan is evaluated in full.
    struct ScheduleScratch {
        std::vector<std::int32_t> firstA, firstB, sortedB, previousA, previousB, last;
        std::vector<std::pair<double, double>> waits;
    };
    ScheduleScratch scheduleScratch;  // sameSchedule's buffers
    bool sameSchedule(const State& a, const State& b, const CostModel::ShallowCopies& copies) {
        const double n = copies.periods;
        const double span = a.evaluation.stepTime + n * (b.evaluation.stepTime - a.evaluation.stepTime);
        const double tolerance = 1e-12 * std::max(span, b.evaluation.stepTime);
        // An event of the first copy at time `at`, after constraints `before` (pairs of the two copies'
        // times): at the depth it is at none of them early, and at one of them.
        const auto holds = [&](std::pair<double, double> at,
                               std::initializer_list<std::pair<double, double>> before,
                               const std::vector<std::pair<double, double>>* more = nullptr) {
            const auto grown = [&](std::pair<double, double> x) {
                return x.first + n * (x.second - x.first);
            };
            const double t = grown(at);
            double latest = 0;
            for (const auto& c : before)
                latest = std::max(latest, grown(c));
            if (more)
                for (const auto& c : *more)
                    latest = std::max(latest, grown(c));
            return latest <= t + tolerance && latest >= t - tolerance;
        };
        const auto& sa = a.schedule;
        const auto& sb = b.schedule;
        const auto& ta = a.step.transfers;
        const auto& tb = b.step.transfers;
        // The second copy's transfer of each collective of the first: the same op's, at the same place among
        // its collectives.
        const auto firstOf = [](const State& st, std::vector<std::int32_t>& first) {
            first.assign(st.s->ops.size() + 1, 0);
            for (const Collective& c : st.evaluation.collectives)
                ++first[static_cast<std::size_t>(st.s->bodyIndexOf[c.op.index]) + 1];
            for (std::size_t i = 1; i < first.size(); ++i)
                first[i] += first[i - 1];
        };
        auto& firstA = scheduleScratch.firstA;
        auto& firstB = scheduleScratch.firstB;
        auto& sortedB = scheduleScratch.sortedB;
        auto& previousA = scheduleScratch.previousA;
        auto& previousB = scheduleScratch.previousB;
        auto& last = scheduleScratch.last;
        auto& waits = scheduleScratch.waits;
        sortedB.resize(tb.size());
        firstOf(a, firstA);
        firstOf(b, firstB);
        for (std::size_t j = 0; j < tb.size(); ++j)
            sortedB[static_cast<std::size_t>(b.transferOrder[j])] = static_cast<std::int32_t>(j);
        const auto secondTransfer = [&](std::size_t ja) -> std::int32_t {
            const auto ca = static_cast<std::size_t>(a.transferOrder[ja]);
            const auto i = static_cast<std::size_t>(a.s->bodyIndexOf[a.evaluation.collectives[ca].op.index]);
            const std::size_t ib = copies.secondOp[i];
            const std::int32_t count = firstA[i + 1] - firstA[i];
            if (firstB[ib + 1] - firstB[ib] != count)
                return -1;
            return sortedB[static_cast<std::size_t>(firstB[ib] + static_cast<std::int32_t>(ca) - firstA[i])];
        };
        // Kernels: after the kernel before, and after what they wait for (the same count, in the same order).
        for (std::size_t k = 0; k < a.taskOp.size(); ++k) {
            const std::size_t ib = copies.secondOp[static_cast<std::size_t>(a.taskOp[k])];
            const std::int32_t kb = b.taskAt[ib];
            if (kb < 0 || b.taskOp[static_cast<std::size_t>(kb)] != static_cast<std::int32_t>(ib))
                return false;
            const auto& wa = a.step.kernels[k].waitsFor;
            const auto& wb = b.step.kernels[static_cast<std::size_t>(kb)].waitsFor;
            if (wa.size() != wb.size())
                return false;
            waits.clear();
            for (std::size_t w = 0; w < wa.size(); ++w)
                waits.emplace_back(sa.transferEnd[static_cast<std::size_t>(wa[w])],
                                   sb.transferEnd[static_cast<std::size_t>(wb[w])]);
            const std::pair<double, double> previous{
                k > 0 ? sa.kernelEnd[k - 1] : 0.0,
                kb > 0 ? sb.kernelEnd[static_cast<std::size_t>(kb) - 1] : 0.0};
            if (!holds({sa.kernelStart[k], sb.kernelStart[static_cast<std::size_t>(kb)]}, {previous}, &waits))
                return false;
        }
        // Transfers: after the one before on their stream, the kernel they are ready after and the one they
        // are issued after.
        const auto previousOnStream = [&last](const std::vector<ScheduledTransfer>& t,
                                              std::vector<std::int32_t>& out) {
            last.clear();
            out.assign(t.size(), -1);
            for (std::size_t j = 0; j < t.size(); ++j) {
                const auto st = static_cast<std::size_t>(t[j].stream);
                if (last.size() <= st)
                    last.resize(st + 1, -1);
                out[j] = last[st];
                last[st] = static_cast<std::int32_t>(j);
            }
        };
        previousOnStream(ta, previousA);
        previousOnStream(tb, previousB);
        for (std::size_t j = 0; j < ta.size(); ++j) {
            const std::int32_t jb = secondTransfer(j);
            if (jb < 0)
                return false;
            const ScheduledTransfer& x = ta[j];
            const ScheduledTransfer& y = tb[static_cast<std::size_t>(jb)];
            const std::int32_t px = previousA[j], py = previousB[static_cast<std::size_t>(jb)];
            if ((x.readyAfter < 0) != (y.readyAfter < 0) || (x.issueAfter < 0) != (y.issueAfter < 0) ||
                (px < 0) != (py < 0))
                return false;
            const auto at = [](const std::vector<double>& times, std::int32_t i) {
                return i < 0 ? 0.0 : times[static_cast<std::size_t>(i)];
            };
            if (!holds({sa.transferStart[j], sb.transferStart[static_cast<std::size_t>(jb)]},
                       {{at(sa.transferEnd, px), at(sb.transferEnd, py)},
                        {at(sa.kernelEnd, x.readyAfter), at(sb.kernelEnd, y.readyAfter)},
                        {at(sa.kernelStart, x.issueAfter), at(sb.kernelStart, y.issueAfter)}}))
                return false;
        }
        // The step ends with the last kernel or the last transfer of a stream.
        waits.clear();
        const auto lastOn = [](const std::vector<ScheduledTransfer>& t, std::size_t stream) {
            for (std::size_t j = t.size(); j-- > 0;)
                if (static_cast<std::size_t>(t[j].stream) == stream)
                    return static_cast<std::int32_t>(j);
            return std::int32_t{-1};
        };
        const std::size_t streams = static_cast<std::size_t>(std::max(a.step.streams, b.step.streams));
        for (std::size_t st = 0; st < streams; ++st) {
            const std::int32_t x = lastOn(ta, st), y = lastOn(tb, st);
            waits.emplace_back(x < 0 ? 0.0 : sa.transferEnd[static_cast<std::size_t>(x)],
                               y < 0 ? 0.0 : sb.transferEnd[static_cast<std::size_t>(y)]);
        }
        const std::pair<double, double> computeEnd{sa.kernelEnd.empty() ? 0.0 : sa.kernelEnd.back(),
                                                   sb.kernelEnd.empty() ? 0.0 : sb.kernelEnd.back()};
        return holds({a.evaluation.stepTime, b.evaluation.stepTime}, {computeEnd}, &waits);
    }

    // `plan` priced from the shallow copies, or null when it is to be evaluated in full.
    const Evaluation* byLayerClasses(const plan::Plan& plan) {
        using enum EvaluatorOptions::LayerClasses;
        const CostModel::ShallowCopies* copies = layerClasses != Off ? model->shallowCopies() : nullptr;
        if (!copies || (layerClasses == WherePaying && !copies->pays))
            return nullptr;
        if (!copies->planOn(0, plan, copyPlans[0]) || !copies->planOn(1, plan, copyPlans[1]))
            return nullptr;
        std::array<const Evaluation*, 2> e{};
        for (std::size_t k = 0; k < 2; ++k) {
            if (!shallowEvaluators[k]) {
                // A microbatch model's copies are its model's copies' microbatch models.
                const CostModel& copy = *copies->copies[k].model;
                const auto [axis, stages, microbatches] = d->microbatchKey;
                shallowEvaluators[k] = std::make_unique<Evaluator>(
                    d->base ? copy.microbatchModel(axis, stages, microbatches) : copy,
                    EvaluatorOptions{.shareOpClasses = shareClasses});
            }
            e[k] = &shallowEvaluators[k]->evaluate(copyPlans[k]);
            shallowEvaluations[k] = e[k];
        }
        if (e[0]->opMemory.empty() ||
            !sameSchedule(*shallowEvaluators[0]->state_, *shallowEvaluators[1]->state_, *copies))
            return nullptr;
        // The model's figures: the first copy's plus `periods` times what the second adds. The peak is the
        // largest op's so extrapolated: an op of the layers left out lives as an op of the layer before or
        // after them, by as much per layer, so the largest is one both copies keep.
        const double periods = copies->periods;
        const auto grown = [&](double a, double b) { return a + periods * (b - a); };
        Evaluation& out = layerEvaluation;
        out.fromLayerClasses = true;
        out.computeTime = grown(e[0]->computeTime, e[1]->computeTime);
        out.collectiveTime = grown(e[0]->collectiveTime, e[1]->collectiveTime);
        out.stepTime = grown(e[0]->stepTime, e[1]->stepTime);
        out.modelStates = {grown(e[0]->modelStates.parameters, e[1]->modelStates.parameters),
                           grown(e[0]->modelStates.gradients, e[1]->modelStates.gradients),
                           grown(e[0]->modelStates.optimizerState, e[1]->modelStates.optimizerState)};
        std::size_t at = 0;
        out.peakMemory = -1;
        for (std::size_t i = 0; i < e[0]->opMemory.size(); ++i) {
            const double m = grown(e[0]->opMemory[i], e[1]->opMemory[copies->secondOp[i]]);
            if (m > out.peakMemory)
                out.peakMemory = m, at = i;
        }
        out.peakOp = copies->copies[0].shallow.fullBody[at];
        const MemoryBreakdown a = shallowEvaluators[0]->liveAt(at),
                              b = shallowEvaluators[1]->liveAt(copies->secondOp[at]);
        out.atPeak = {grown(a.parameters, b.parameters), grown(a.gradients, b.gradients),
                      grown(a.optimizerState, b.optimizerState), grown(a.activations, b.activations),
                      grown(a.temporaries, b.temporaries)};
        out.capacity = d->hardware.memoryBytes * (1 - d->options.memoryReserve);
        out.feasible = out.peakMemory <= out.capacity;
        return &out;
    }

    static std::uint32_t maskOf(const DimAxes& dims) {
        std::uint32_t m = 0;
        for (const auto& a : dims)
            m |= a.mask();
        return m;
    }

    double local(ValueId v, std::uint32_t mask) const { return s->fullBytes[v.index] / d->devices(mask); }
    double share(ValueId v, double bytes) const {
        return bucketShare(s->planContext.classes()[v.index], bytes);
    }

    // Adds the collectives that turn layout `from` into `to` of value v (all-gather the dropped axes,
    // all-to-all the moved ones, slice the added ones for free). Returns their time.
    double reshard(const DimAxes& from, const DimAxes& to, ValueId v, ir::OpId op,
                   std::vector<Collective>* out) const {
        const auto [dropped, moved] = reshardAxes(from, to);
        const std::uint32_t common = maskOf(from) & maskOf(to);
        double time = 0;
        const double kept = local(v, common);
        if (dropped) {
            const double t =
                collectiveTime(CollectiveKind::AllGather, kept, d->collectiveLinks[dropped], share(v, kept));
            time += t;
            if (out)
                out->push_back({CollectiveKind::AllGather, dropped, kept, t, op, v});
        }
        if (moved) {
            const double t =
                collectiveTime(CollectiveKind::AllToAll, kept, d->collectiveLinks[moved], share(v, kept));
            time += t;
            if (out)
                out->push_back({CollectiveKind::AllToAll, moved, kept, t, op, v});
        }
        return time;
    }

    // Costs one candidate: factor axes `choice`. Fills `record` when given.
    double costCandidate(const OpInfo& info, const std::vector<AxisList>& choice,
                         const std::vector<DimAxes>& actuals, OpRecord* record) const {
        double time = 0, bytes = 0, temp = 0;
        std::uint32_t all = 0, reduction = 0, permutation = 0;
        for (std::size_t f = 0; f < info.factors.size(); ++f) {
            const std::uint32_t m = choice[f].mask();
            all |= m;
            if (info.factors[f].kind == FactorKind::Reduction)
                reduction |= m;
            if (info.factors[f].kind == FactorKind::Permutation)
                permutation |= m;
        }
        std::vector<Collective>* out = record ? &record->collectives : nullptr;
        for (std::size_t t = 0; t < info.tensors.size(); ++t) {
            const TensorInfo& ti = info.tensors[t];
            DimAxes& required = scratchRequired;
            required.assign(ti.dimensionFactors.size(), AxisList{});
            for (std::size_t k = 0; k < ti.dimensionFactors.size(); ++k)
                for (int f : ti.dimensionFactors[k])
                    required[k].append(choice[static_cast<std::size_t>(f)]);
            const std::uint32_t rmask = maskOf(required);
            const double localRequired = local(ti.value, rmask);
            bytes += localRequired;
            const DimAxes& have = actuals[t];
            if (!ti.result) {
                if (!(required == have)) {
                    const std::size_t before = out ? out->size() : 0;
                    time += reshard(have, required, ti.value, info.id, out);
                    if (out) {
                        // Another op resharding this value alike shares the copy (the sweep counts it once,
                        // keyed by this layout and the value, so that ops of one class share their records).
                        std::uint64_t key = 0x9E3779B97F4A7C15ull;
                        for (const auto& list : required)
                            key = (key ^ list.bits()) * 0x100000001B3ull;
                        // One key per collective of the reshard (an all-gather and an all-to-all are both
                        // kept).
                        record->shareKeys.resize(before, 0);
                        for (std::size_t j = before; j < out->size(); ++j)
                            record->shareKeys.push_back((key + (j - before) * 0xD6E8FEB86659FD93ull) | 1);
                    }
                    temp += localRequired;
                }
                continue;
            }
            // Result: produced as `required`, partial over the reduction axes.
            const std::uint32_t hmask = maskOf(have);
            const std::uint32_t scatter = reduction & hmask;
            if (scatter) {
                const double t2 = collectiveTime(CollectiveKind::ReduceScatter, localRequired,
                                                 d->collectiveLinks[scatter], share(ti.value, localRequired));
                time += t2;
                if (out)
                    out->push_back(
                        {CollectiveKind::ReduceScatter, scatter, localRequired, t2, info.id, ti.value});
            }
            if (reduction & ~hmask) {
                // All-reduced lazily by the sweep; priced here for choosing the candidate.
                const double t2 = collectiveTime(CollectiveKind::AllReduce, local(ti.value, hmask),
                                                 d->collectiveLinks[reduction & ~hmask],
                                                 share(ti.value, local(ti.value, hmask)));
                time += t2;
            }
            if (record)
                record->partial[t - info.operandCount] = reduction & ~hmask;
            if (permutation) {
                const double t2 = collectiveTime(CollectiveKind::CollectivePermute, localRequired,
                                                 d->collectiveLinks[permutation]);
                time += t2;
                if (out)
                    out->push_back({CollectiveKind::CollectivePermute, permutation, localRequired, t2,
                                    info.id, ti.value});
            }
            if (!(required == have) || reduction) {
                DimAxes& produced = scratchProduced;
                scatteredLayoutInto(required, have, scatter, produced);
                time += reshard(produced, have, ti.value, info.id, out);
                temp += localRequired;
            }
        }
        const double devicesAll = d->devices(all);
        const double flops = info.flops / devicesAll;
        double compute = 0;
        if (!info.free) {
            double gemm[3] = {1, 1, 1};
            for (std::size_t f = 0; f < info.gemm.size(); ++f)
                gemm[static_cast<std::size_t>(info.gemm[f])] *=
                    static_cast<double>(info.factors[f].size) / d->devices(choice[f].mask());
            compute = d->kernelTime(info.element, flops, bytes, info.gemm.empty() ? nullptr : gemm);
        }
        if (record) {
            record->shareKeys.resize(record->collectives.size(), 0);
            record->execution.factorAxes = choice;
            record->execution.flops = flops;
            record->execution.computeTime = compute;
            record->execution.temporaryBytes = temp;
        }
        return time + compute;
    }

    // Runtime::Eager: no parameter operand is gathered or exchanged over an axis `choice` gives to a factor
    // other than the batch (FSDP's gather frees an axis for the batch or leaves it unused; a tensor-parallel
    // weight is never gathered so that the activations can keep a sequence or hidden axis).
    bool keepsParameters(const OpInfo& info, const std::vector<AxisList>& choice,
                         const std::vector<DimAxes>& actuals) const {
        std::uint32_t otherAxes = 0;
        for (std::size_t f = 0; f < info.factors.size(); ++f)
            if (!info.factors[f].batch)
                otherAxes |= choice[f].mask();
        for (std::size_t t = 0; t < info.operandCount; ++t) {
            const TensorInfo& ti = info.tensors[t];
            if (s->planContext.classes()[ti.value.index] != plan::TensorClass::Parameter)
                continue;
            DimAxes& required = scratchRequired;
            required.assign(ti.dimensionFactors.size(), AxisList{});
            for (std::size_t k = 0; k < ti.dimensionFactors.size(); ++k)
                for (int f : ti.dimensionFactors[k])
                    required[k].append(choice[static_cast<std::size_t>(f)]);
            const auto moved = reshardAxes(actuals[t], required);
            if ((moved.gathered | moved.exchanged) & otherAxes)
                return false;
        }
        return true;
    }

    bool validChoice(const OpInfo& info, const std::vector<AxisList>& choice) const {
        std::uint32_t seen = 0;
        for (std::size_t f = 0; f < info.factors.size(); ++f) {
            const std::uint32_t m = choice[f].mask();
            if (seen & m)
                return false;
            seen |= m;
            if (m && (info.factors[f].kind == FactorKind::NeedReplication))
                return false;
            if (info.factors[f].size % static_cast<std::int64_t>(d->devices(m)) != 0)
                return false;
        }
        // A factor may only be sharded when the factors major to it in the same dimension are fully sharded.
        for (const auto& ti : info.tensors)
            for (const auto& list : ti.dimensionFactors) {
                bool open = false;
                for (int f : list) {
                    const auto& c = choice[static_cast<std::size_t>(f)];
                    if (open && !c.empty())
                        return false;
                    if (static_cast<std::int64_t>(d->devices(c.mask())) !=
                        info.factors[static_cast<std::size_t>(f)].size)
                        open = true;
                }
            }
        return true;
    }

    // A hash of the shardings of op i's tensors (their layouts, in order): everything costOp reads that a
    // plan changes.
    std::uint64_t signature(std::size_t i) const {
        std::uint64_t h = 1469598103934665603ull;
        for (std::uint32_t t = s->tensorStart[i]; t < s->tensorStart[i + 1]; ++t)
            h = (h ^ layoutHash[s->tensorValues[t]]) * 1099511628211ull;
        return h;
    }

    // Makes op i's current record the one for its present local shardings: a record its class (its pool)
    // still holds for them, made by any op of the class, else costOp's.
    void recost(std::size_t i) {
        select(i);
        publish(i);
    }
    // What the sweeps read of op i's current record, into the flat arrays.
    void publish(std::size_t i) {
        const OpRecord& rec = record(i);
        std::copy(rec.partial.begin(), rec.partial.end(), partialOf.begin() + s->resultStart[i]);
        collectiveCount[i] = static_cast<std::uint32_t>(rec.collectives.size());
        opCompute[i] = rec.execution.computeTime;
        opFlops[i] = rec.execution.flops;
        opTemporary[i] = rec.execution.temporaryBytes;
    }
    void select(std::size_t i) {
        const std::uint64_t key = signature(i);
        Pool& pool = pools[poolOf[i]];
        const std::uint32_t old = slotOf[i];
        if (old != kNoSlot && pool.slots[old].key == key && pool.slots[old].epoch == epoch)
            return;
        const auto slots = static_cast<std::uint32_t>(pool.slots.size());
        std::uint32_t slot = kNoSlot;
        for (std::uint32_t k = 0; k < slots && slot == kNoSlot; ++k)
            if (pool.slots[k].epoch == epoch && pool.slots[k].key == key)
                slot = k;
        if (old != kNoSlot)
            --pool.slots[old].users;
        if (slot == kNoSlot) {
            slot = freeSlot(pool);
            Slot& fresh = pool.slots[slot];
            costOp(i, fresh.record);
            ++priced;
            fresh.key = key;
            fresh.epoch = epoch;
        }
        ++pool.slots[slot].users;
        slotOf[i] = slot;
        opKey[i] = key;
    }
    // A slot of `pool` no op uses: one of an earlier epoch, else when the pool holds kMemoSlots the next
    // unused one in turn (so that the latest shardings stay), else a new one.
    std::uint32_t freeSlot(Pool& pool) const {
        const auto slots = static_cast<std::uint32_t>(pool.slots.size());
        for (std::uint32_t k = 0; k < slots; ++k)
            if (pool.slots[k].epoch != epoch)
                return k;
        if (slots >= kMemoSlots)
            for (std::uint32_t k = 0; k < slots; ++k) {
                const std::uint32_t slot = (pool.next + k) % slots;
                if (pool.slots[slot].users == 0) {
                    pool.next = (slot + 1) % slots;
                    return slot;
                }
            }
        pool.slots.emplace_back();
        return slots;
    }
    // A new epoch: every op is priced again, and no slot is in use.
    void clearPools() {
        if (poolOf.size() != s->ops.size()) {
            poolOf.resize(s->ops.size());
            std::uint32_t next = shareClasses ? static_cast<std::uint32_t>(s->classCount) : 0;
            for (std::size_t i = 0; i < s->ops.size(); ++i)
                poolOf[i] =
                    shareClasses && s->opClass[i] >= 0 ? static_cast<std::uint32_t>(s->opClass[i]) : next++;
            pools.resize(next);
        }
        slotOf.assign(s->ops.size(), kNoSlot);
        opKey.assign(s->ops.size(), 0);
        for (Pool& pool : pools)
            for (Slot& slot : pool.slots)
                slot.users = 0;
    }

    void costOp(std::size_t i, OpRecord& record) const {
        const OpInfo& info = s->ops[i];
        std::vector<DimAxes>& actuals = scratchActuals;  // grows only, so that its layouts keep their buffers
        if (actuals.size() < info.tensors.size())
            actuals.resize(info.tensors.size());
        for (std::size_t t = 0; t < info.tensors.size(); ++t) {
            const auto& dims = s->space->dimensionAtoms[info.tensors[t].value.index];
            actuals[t].assign(dims.size(), AxisList{});
            for (std::size_t k = 0; k < dims.size(); ++k)
                for (AtomId a : dims[k])
                    actuals[t][k].append(applied.atomAxes[a.index]);
        }
        // Each factor's proposals: the axes each occurrence carries (the result's first).
        const std::size_t nf = info.factors.size();
        std::vector<std::vector<AxisList>>& options = scratchOptions;
        if (options.size() < nf)
            options.resize(nf);
        std::vector<std::uint32_t>& claims = scratchClaims;
        claims.assign(nf, 0);
        for (std::size_t f = 0; f < nf; ++f) {
            const auto& factor = info.factors[f];
            std::vector<AxisList>& proposals = options[f];
            proposals.clear();
            auto add = [&](const Occurrence& occ) {
                AxisList axes;
                if (occ.aligned) {
                    const auto& atoms =
                        s->space->dimensionAtoms[info.tensors[occ.tensor].value.index][occ.dimension];
                    for (std::uint32_t a = occ.firstAtom;
                         a < occ.firstAtom + occ.atomCount && a < atoms.size(); ++a)
                        axes.append(applied.atomAxes[atoms[a].index]);
                }
                if (std::find(proposals.begin(), proposals.end(), axes) == proposals.end())
                    proposals.push_back(axes);
            };
            for (const auto& occ : factor.occurrences)
                if (info.tensors[occ.tensor].result)
                    add(occ);
            for (const auto& occ : factor.occurrences)
                if (!info.tensors[occ.tensor].result)
                    add(occ);
            if (factor.kind == FactorKind::NeedReplication)
                proposals.assign(1, AxisList{});
            for (const auto& p : proposals)
                claims[f] |= p.mask();
            if (proposals.empty())
                proposals.push_back(AxisList{});
        }
        // Disputed factors (several proposals, or an axis another factor claims) may also go unsharded.
        for (std::size_t f = 0; f < nf; ++f) {
            std::uint32_t others = 0;
            for (std::size_t h = 0; h < nf; ++h)
                if (h != f)
                    others |= claims[h];
            const bool disputed = options[f].size() > 1 || (claims[f] & others) != 0;
            auto& o = options[f];
            if (disputed && std::find(o.begin(), o.end(), AxisList{}) == o.end())
                o.push_back(AxisList{});
            // Proposals whose axes do not divide the factor are not candidates.
            o.erase(std::remove_if(o.begin(), o.end(),
                                   [&](const AxisList& a) {
                                       return info.factors[f].size %
                                                  static_cast<std::int64_t>(d->devices(a.mask())) !=
                                              0;
                                   }),
                    o.end());
            if (o.empty())
                o.push_back(AxisList{});
        }
        // Enumerate (bounded); keep the cheapest valid candidate, the first on ties (the result's proposals).
        std::size_t count = 1;
        for (std::size_t f = 0; f < nf; ++f) {
            count *= options[f].size();
            if (count > 4096)
                break;
        }
        if (count > 4096)
            for (std::size_t f = 0; f < nf; ++f)
                options[f].resize(std::min<std::size_t>(options[f].size(), 2)), count = 0;
        std::vector<AxisList>& best = scratchBest;
        std::vector<AxisList>& choice = scratchChoice;
        best.clear();
        choice.assign(nf, AxisList{});
        double bestCost = 0;
        bool found = false, foundEager = false;
        const bool eager = d->options.runtime == Runtime::Eager && info.readsParameter;
        std::vector<std::size_t>& index = scratchIndex;
        index.assign(nf, 0);
        if (count == 1) {
            // One candidate (the common case): no need to price it twice.
            for (std::size_t f = 0; f < nf; ++f)
                choice[f] = options[f].front();
            if (validChoice(info, choice))
                found = true, best = choice;
        }
        while (count != 1) {
            for (std::size_t f = 0; f < nf; ++f)
                choice[f] = options[f][index[f]];
            if (validChoice(info, choice)) {
                const bool keeps = !eager || keepsParameters(info, choice, actuals);
                // Under Runtime::Eager a candidate that keeps the parameters beats any that does not.
                if (keeps || !foundEager) {
                    const double c = costCandidate(info, choice, actuals, nullptr);
                    if (!found || (eager && keeps && !foundEager) || c < bestCost) {
                        found = true;
                        foundEager = foundEager || (eager && keeps);
                        bestCost = c;
                        best = choice;
                    }
                }
            }
            std::size_t f = 0;
            while (f < nf && ++index[f] == options[f].size())
                index[f++] = 0;
            if (f == nf)
                break;
        }
        if (!found)
            best.assign(nf, AxisList{});
        record.collectives.clear();
        record.shareKeys.clear();
        record.partial.assign(info.tensors.size() - info.operandCount, 0);
        costCandidate(info, best, actuals, &record);
        record.tensorOf.clear();
        for (const Collective& c : record.collectives) {
            std::uint32_t t = 0;
            while (t + 1 < info.tensors.size() && info.tensors[t].value != c.value)
                ++t;
            record.tensorOf.push_back(t);
        }
    }

    void refreshLocalBytes(ValueId v) {
        std::uint32_t m = 0;
        std::uint64_t h = 0x84222325CBF29CE4ull;
        for (std::uint32_t k = s->layoutStart[v.index]; k < s->layoutStart[v.index + 1]; ++k) {
            const std::uint32_t atom = s->layoutAtoms[k];
            std::uint64_t word = 0xFFu;  // the end of a dimension
            if (atom != ModelStructure::kEndOfDimension) {
                m |= applied.atomAxes[atom].mask();
                word = applied.atomAxes[atom].bits();
            }
            h = (h ^ word) * 1099511628211ull;
        }
        valueMask[v.index] = m;
        layoutHash[v.index] = h;
        localBytes[v.index] = local(v, m);
    }

    void sweep() {
        const auto& g = *s->graph;
        Evaluation& e = evaluation;
        e.collectives.clear();
        e.opComputeTime.resize(s->ops.size());
        e.computeTime = 0;
        e.collectiveTime = 0;
        // Lazy partial sums.
        pending.assign(g.values.size(), 0);
        needsReduce.assign(g.values.size(), 0);
        reduceAxes.assign(g.values.size(), 0);
        const std::uint32_t* values = s->tensorValues.data();
        for (std::size_t i = 0; i < s->ops.size(); ++i) {
            const std::uint32_t first = s->tensorStart[i], results = s->resultStart[i],
                                end = s->tensorStart[i + 1];
            std::uint32_t common = 0;
            bool allPartial = s->linearOp[i] && results > first;
            for (std::uint32_t t = first; t < results && allPartial; ++t) {
                const auto m = pending[values[t]];
                if (m == 0 || (t > first && m != common))
                    allPartial = false;
                common = m;
            }
            bool resultsFree = true;
            for (std::uint32_t t = results; t < end; ++t)
                if (partialOf[t] != 0 || (valueMask[values[t]] & common))
                    resultsFree = false;
            if (allPartial && resultsFree) {
                for (std::uint32_t t = results; t < end; ++t)
                    pending[values[t]] = common;
            } else {
                for (std::uint32_t t = first; t < results; ++t) {
                    const std::uint32_t v = values[t];
                    if (pending[v])
                        needsReduce[v] = 1, reduceAxes[v] = pending[v];
                }
                for (std::uint32_t t = results; t < end; ++t)
                    pending[values[t]] = partialOf[t];
            }
        }
        for (const auto& o : g.outputs)
            if (pending[o.value.index])
                needsReduce[o.value.index] = 1, reduceAxes[o.value.index] = pending[o.value.index];
        // Collectives in program order, each op's lazily reduced results after its own collectives; an
        // operand reshard another op already made (same value, same layout) is not made again.
        shared.clear();
        kernelTimes();
        recomputed.clear();
        for (std::size_t i = 0; i < s->ops.size(); ++i) {
            // Most ops cause no collective and reduce no result: the flat arrays tell without their record.
            bool reduces = false;
            for (std::uint32_t t = s->resultStart[i]; t < s->tensorStart[i + 1] && !reduces; ++t)
                reduces = needsReduce[values[t]] != 0;
            if (collectiveCount[i] == 0 && !reduces)
                continue;
            const ir::OpId id = g.body[i];
            const std::size_t firstOfOp = e.collectives.size();
            if (collectiveCount[i] > 0) {
                const OpRecord& rec = record(i);
                for (std::size_t k = 0; k < rec.collectives.size(); ++k) {
                    const ValueId value{values[s->tensorStart[i] + rec.tensorOf[k]]};
                    if (rec.shareKeys[k] && !shared.insert(shareKey(rec.shareKeys[k], value)))
                        continue;
                    Collective& c = e.collectives.emplace_back(rec.collectives[k]);
                    c.op = id;
                    c.value = value;
                    e.collectiveTime += c.time;
                }
            }
            for (std::uint32_t r = s->resultStart[i]; r < s->tensorStart[i + 1]; ++r) {
                const ValueId v{values[r]};
                if (!needsReduce[v.index])
                    continue;
                const double b = localBytes[v.index];
                const double t = collectiveTime(CollectiveKind::AllReduce, b,
                                                d->collectiveLinks[reduceAxes[v.index]], share(v, b));
                e.collectives.push_back({CollectiveKind::AllReduce, reduceAxes[v.index], b, t, id, v});
                e.collectiveTime += t;
            }
            const std::int32_t rerun =
                blockPolicy.empty() || firstOfOp == e.collectives.size() ? -1 : rerunAt(id);
            if (rerun >= 0)
                for (std::size_t k = firstOfOp; k < e.collectives.size(); ++k) {
                    Collective again = e.collectives[k];
                    again.op = g.body[static_cast<std::size_t>(rerun)];
                    again.rerun = true;
                    recomputed.push_back(again);
                }
        }
        if (!recomputed.empty()) {
            // In program order: a recomputed collective runs where its block's backward begins.
            for (const auto& c : recomputed)
                e.collectiveTime += c.time;
            e.collectives.insert(e.collectives.end(), recomputed.begin(), recomputed.end());
            // In program order, stably (the recomputed ones after the others at the same op): sorted by op
            // then position, into reused buffers (std::stable_sort would allocate).
            collectiveOrder.clear();
            for (std::size_t j = 0; j < e.collectives.size(); ++j)
                collectiveOrder.push_back(
                    (static_cast<std::uint64_t>(
                         static_cast<std::uint32_t>(s->bodyIndexOf[e.collectives[j].op.index]) + 1u)
                     << 32) |
                    j);
            std::sort(collectiveOrder.begin(), collectiveOrder.end());
            mergedCollectives.clear();
            for (const std::uint64_t key : collectiveOrder)
                mergedCollectives.push_back(e.collectives[key & 0xFFFFFFFFu]);
            std::swap(e.collectives, mergedCollectives);
        }
        simulate();
        memory();
    }

    // The step as a schedule (schedule.h): the ops that take time run in program order on the compute stream;
    // each collective runs on its stream once its input is ready, a reshard before the op that needs it, a
    // reduction of a result before the result's first use; parameter gathers start no earlier than `prefetch`
    // blocks ahead. The step time is the makespan.
    void simulate() {
        Evaluation& e = evaluation;
        const std::size_t n = s->ops.size();
        taskAt.assign(n + 1, -1);
        taskOp.clear();
        std::size_t tasks = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (e.opComputeTime[i] > 0)
                ++tasks;
        // The kernels past `tasks` hand their waitsFor buffers to the spares, and new ones take them back.
        for (std::size_t k = tasks; k < step.kernels.size(); ++k)
            spareWaits.push_back(std::move(step.kernels[k].waitsFor));
        const std::size_t had = step.kernels.size();
        step.kernels.resize(tasks);
        for (std::size_t k = had; k < tasks && !spareWaits.empty(); ++k) {
            step.kernels[k].waitsFor = std::move(spareWaits.back());
            spareWaits.pop_back();
        }
        for (std::int32_t i = static_cast<std::int32_t>(n) - 1, next = static_cast<std::int32_t>(tasks);
             i >= 0; --i) {
            if (e.opComputeTime[static_cast<std::size_t>(i)] > 0)
                --next;
            taskAt[static_cast<std::size_t>(i)] = next < static_cast<std::int32_t>(tasks) ? next : -1;
        }
        for (std::size_t i = 0; i < n; ++i)
            if (e.opComputeTime[i] > 0) {
                auto& k = step.kernels[taskOp.size()];
                k.duration = e.opComputeTime[i];
                k.waitsFor.clear();
                taskOp.push_back(static_cast<std::int32_t>(i));
            }
        const std::size_t c = e.collectives.size();
        step.transfers.resize(c);
        step.streams = static_cast<std::int32_t>(std::max<std::size_t>(1, d->mesh.axes.size()));
        prefetched.assign(n + 1, 0);
        neededBy.assign(c, -1);
        for (std::size_t j = 0; j < c; ++j) {
            const Collective& col = e.collectives[j];
            const std::int32_t i = s->bodyIndexOf[col.op.index];
            ScheduledTransfer t;
            t.duration = col.time;
            // A step in microbatches reduces its gradients (sums over the microbatches, and what the update
            // moves) once, after the last one (cost/pipeline.h prices that): such a transfer takes no time
            // here and no kernel waits for it.
            const bool deferred = d->accumulated != 0 && detail::runsOncePerStep(*model, col);
            if (deferred)
                t.duration = 0;
            t.stream = d->streamOf[col.axes];
            const std::int32_t p = col.value.valid() ? s->producer[col.value.index] : -1;
            std::int32_t consumer = i;
            if (p == i && s->nextStepUse[col.value.index] >= 0) {
                // An updated parameter gathered after the update: in the steady state it runs under the next
                // step's forward (Megatron's overlapped parameter gather, FSDP's prefetch) and is needed
                // where the step first reads the parameter.
                t.readyAfter = -1;
                consumer = s->nextStepUse[col.value.index];
            } else if (col.rerun && !(p < 0 || s->argumentSlice[col.value.index])) {
                // A collective of a rematerialized op, run again by its block's recompute: its input exists
                // again only once the recompute has started (the kernel before the block's first backward op,
                // which the recompute is charged to, has ended), and that op waits for it.
                const std::int32_t k = i < 0 ? -1 : taskAt[static_cast<std::size_t>(i)];
                t.readyAfter = k > 0 ? k - 1 : -1;
                consumer = i;
            } else if (p == i) {  // a reduction of op i's result, needed where the result is first used
                const std::int32_t ready = s->readyPoint[static_cast<std::size_t>(i)];
                t.readyAfter = ready < 0 ? -1 : taskAt[static_cast<std::size_t>(ready)];
                consumer = s->firstNeed[col.value.index];
            } else {  // a reshard of an operand of op i
                // An argument, or a layer of a stacked one, is there from the start and may be prefetched.
                const bool argument = p < 0 || s->argumentSlice[col.value.index];
                const std::int32_t ready = argument ? -1 : s->readyPoint[static_cast<std::size_t>(p)];
                t.readyAfter = ready < 0 ? -1 : taskAt[static_cast<std::size_t>(ready)];
                consumer = i < 0 ? -1 : s->launchOf[static_cast<std::size_t>(i)];
                if (argument && i >= 0) {
                    const std::int32_t from = s->prefetchFrom[static_cast<std::size_t>(i)];
                    t.issueAfter = std::min(taskAt[static_cast<std::size_t>(from)],
                                            taskAt[static_cast<std::size_t>(consumer)] - 1);
                    // The gathered buffer is live from when it may be issued to its use.
                    if (t.issueAfter >= 0 && col.kind == CollectiveKind::AllGather &&
                        taskOp[static_cast<std::size_t>(t.issueAfter)] < i) {
                        prefetched[static_cast<std::size_t>(
                            taskOp[static_cast<std::size_t>(t.issueAfter)])] += col.bytes;
                        prefetched[static_cast<std::size_t>(i)] -=
                            col.bytes;  // a difference array, summed below
                    }
                }
            }
            if (t.readyAfter < -1 || i < 0)
                t.readyAfter = -1;
            step.transfers[j] = t;
            const std::int32_t k = consumer < 0 ? -1 : taskAt[static_cast<std::size_t>(consumer)];
            // A kernel cannot wait for a transfer that starts after it: the wait moves to the next kernel.
            const std::int32_t after = std::max(t.readyAfter, t.issueAfter);
            neededBy[j] =
                k < 0 || deferred
                    ? -1
                    : (k > after ? k : (after + 1 < static_cast<std::int32_t>(tasks) ? after + 1 : -1));
        }
        // Issue order per stream: by readiness, then program order (a stream never holds back a ready
        // transfer behind one that is not).
        for (std::size_t i = 1; i < prefetched.size(); ++i)
            prefetched[i] += prefetched[i - 1];
        // A counting sort on the kernel a transfer waits for (−1 to tasks − 1): stable, linear.
        bucketStart.assign(tasks + 2, 0);
        for (std::size_t j = 0; j < c; ++j) {
            const int bucket = readyKey(step.transfers[j]) + 2;
            ++bucketStart[static_cast<std::size_t>(bucket)];
        }
        for (std::size_t k = 1; k < bucketStart.size(); ++k)
            bucketStart[k] += bucketStart[k - 1];
        transferOrder.resize(c);
        for (std::size_t j = 0; j < c; ++j) {
            const int bucket = readyKey(step.transfers[j]) + 1;
            transferOrder[static_cast<std::size_t>(bucketStart[static_cast<std::size_t>(bucket)]++)] =
                static_cast<std::int32_t>(j);
        }
        sortedTransfers.resize(c);
        for (std::size_t j = 0; j < c; ++j)
            sortedTransfers[j] = step.transfers[static_cast<std::size_t>(transferOrder[j])];
        step.transfers.swap(sortedTransfers);
        for (std::size_t j = 0; j < c; ++j) {
            const std::int32_t k = neededBy[static_cast<std::size_t>(transferOrder[j])];
            if (k >= 0)
                step.kernels[static_cast<std::size_t>(k)].waitsFor.push_back(static_cast<std::int32_t>(j));
        }
        e.collectiveStart.assign(c, 0);
        e.collectiveEnd.assign(c, 0);
        e.opStart.assign(n, 0);
        if (simulator.simulate(step, schedule)) {
            e.stepTime = schedule.makespan;
            for (std::size_t j = 0; j < c; ++j) {
                const auto original = static_cast<std::size_t>(transferOrder[j]);
                e.collectiveStart[original] = schedule.transferStart[j];
                e.collectiveEnd[original] = schedule.transferEnd[j];
            }
            for (std::size_t k = 0; k < taskOp.size(); ++k)
                e.opStart[static_cast<std::size_t>(taskOp[k])] = schedule.kernelStart[k];
        } else {
            // Not reachable by construction; the serial bound keeps the evaluation sound if it ever is.
            e.stepTime = e.computeTime + e.collectiveTime;
        }
    }

    // Each kernel's time, charged to the op that launches it (its last). A kernel is priced again only when
    // an op whose record it reads was re-costed (dirtyKernels).
    void kernelTimes() {
        Evaluation& e = evaluation;
        for (std::uint32_t k : dirtyKernels) {
            kernelDirty[k] = 0;
            kernelTime[k] = priceKernel(k);
        }
        dirtyKernels.clear();
        std::fill(e.opComputeTime.begin(), e.opComputeTime.end(), 0.0);
        const auto& kernels = s->kernels.kernels;
        for (std::size_t k = 0; k < kernels.size(); ++k) {
            e.opComputeTime[kernels[k].ops.back()] = kernelTime[k];
            e.computeTime += kernelTime[k];
        }
        // Rematerialization: the kernels a block's policy runs again, charged to its first backward op.
        for (std::size_t b = 0; b < blockPolicy.size(); ++b) {
            const auto p = static_cast<std::size_t>(blockPolicy[b]);
            const auto& block = s->rematBlocks[b];
            double time = 0;
            for (std::uint32_t k : block.kernels[p])
                time += kernelTime[k];
            if (time == 0)
                continue;
            e.opComputeTime[static_cast<std::size_t>(block.firstBackward)] += time;
            e.computeTime += time;
        }
    }

    void markKernel(std::uint32_t k) {
        if (!kernelDirty[k])
            kernelDirty[k] = 1, dirtyKernels.push_back(k);
    }
    // Kernel k's time: the price its class (ModelStructure::kernelClass) made for the same records of its
    // ops, else kernelPrice's.
    double priceKernel(std::size_t k) {
        const std::int32_t c = shareClasses ? s->kernelClass[k] : -1;
        if (c < 0) {
            ++kernelsPriced;
            return kernelPrice(k);
        }
        const detail::Kernel& kernel = s->kernels.kernels[k];
        std::uint64_t key = 0x243F6A8885A308D3ull;
        const auto mix = [&](std::uint64_t word) {
            key = (key ^ word) * 0x100000001B3ull;
            key ^= key >> 29;
        };
        for (std::uint32_t i : kernel.ops)
            mix(opKey[i]);
        if (kernel.recomputedOp >= 0)
            mix(opKey[static_cast<std::size_t>(kernel.recomputedOp)]);
        for (std::uint32_t j = s->outsideStart[k]; j < s->outsideStart[k + 1]; ++j)
            mix(layoutHash[s->outsideList[j]]);
        key |= 1;  // 0 marks an empty memo
        auto& memos = kernelMemos[static_cast<std::size_t>(c)];
        for (const KernelMemo& memo : memos)
            if (memo.key == key)
                return memo.time;
        KernelMemo& fresh = memos[kernelMemoNext[static_cast<std::size_t>(c)]++ % memos.size()];
        fresh = {key, kernelPrice(k)};
        ++kernelsPriced;
        return fresh.time;
    }
    // Prices kernel k: a kernel of one op keeps the op's own price; a fused one reads its inputs and writes
    // its outputs once.
    double kernelPrice(std::size_t k) const {
        const detail::Kernel& kernel = s->kernels.kernels[k];
        double time = 0;
        if (kernel.kind == detail::KernelKind::Op) {
            for (std::uint32_t i : kernel.ops)
                time += opCompute[i];
        } else {
            double flops = 0, bytes = 0;
            const ModelStructure::KernelWeights* weights =
                k < s->kernelWeights.size() && !s->kernelWeights[k].ops.empty() ? &s->kernelWeights[k]
                                                                                : nullptr;
            if (weights) {
                for (std::size_t o = 0; o < kernel.ops.size(); ++o)
                    flops += weights->ops[o] * opFlops[kernel.ops[o]];
                for (std::size_t r = 0; r < kernel.reads.size(); ++r)
                    bytes += weights->reads[r] * localBytes[kernel.reads[r].index];
            } else {
                for (std::uint32_t i : kernel.ops)
                    flops += opFlops[i];
                for (ValueId v : kernel.reads)
                    bytes += localBytes[v.index];
            }
            if (kernel.recomputedOp >= 0)
                flops += opFlops[static_cast<std::size_t>(kernel.recomputedOp)];
            for (ValueId v : kernel.writes)
                bytes += localBytes[v.index];
            // An attention kernel runs its GEMMs at the shape of q·kᵀ (its contraction is the head size).
            const double* gemm = nullptr;
            double shape[3] = {1, 1, 1};
            const std::size_t first =
                kernel.recomputedOp >= 0 ? static_cast<std::size_t>(kernel.recomputedOp) : kernel.ops.front();
            if (kernel.kind != detail::KernelKind::Fusion && !s->ops[first].gemm.empty()) {
                const auto& info = s->ops[first];
                const auto& axes = record(first).execution.factorAxes;
                for (std::size_t f = 0; f < info.gemm.size() && f < axes.size(); ++f)
                    shape[static_cast<std::size_t>(info.gemm[f])] *=
                        static_cast<double>(info.factors[f].size) / d->devices(axes[f].mask());
                gemm = shape;
            }
            time = d->kernelTime(s->ops[kernel.ops.front()].element, flops, bytes, gemm,
                                 s->launchDiscount[k] > 0);
        }
        return time - s->launchDiscount[k];
    }

    // The plan's rematerialization per block, and how long each block's recompute keeps values.
    void setRemat(const std::vector<plan::RematDecision>& next) {
        if (rematSet && next == remat)
            return;
        rematSet = true;
        lives.clear();
        remat = next;
        plan::rematPerBlock(s->blocks(), remat, blockPolicy);
        keptUntil.assign(s->graph->values.size(), -1);
        for (std::size_t b = 0; b < blockPolicy.size(); ++b) {
            const auto& block = s->rematBlocks[b];
            const auto p = static_cast<std::size_t>(blockPolicy[b]);
            if (!block.drops[p])
                continue;
            for (ValueId v : block.sources[p])
                keptUntil[v.index] = std::max(keptUntil[v.index], block.firstBackward);
        }
    }

    // The op a rematerialized op's collective runs again at (its block's first backward op), or -1.
    std::int32_t rerunAt(ir::OpId op) const {
        const std::int32_t i = s->bodyIndexOf[op.index];
        if (i < 0 || s->recomputedBy.empty())
            return -1;
        const std::int32_t b = s->blocks().blockOfOp[static_cast<std::size_t>(i)];
        if (b < 0)
            return -1;
        const auto p = static_cast<unsigned>(blockPolicy[static_cast<std::size_t>(b)]);
        return (s->recomputedBy[static_cast<std::size_t>(i)] >> p) & 1u
                   ? s->rematBlocks[static_cast<std::size_t>(b)].firstBackward
                   : -1;
    }

    // The top-level ops during which value v is live (from its producer to its last use, docs/cost-model.md),
    // and its memory category (0 parameters, 1 gradients, 2 optimizer state, 3 activations). A value its
    // block's rematerialization recomputes lives twice: in the forward pass, and again from the block's
    // recompute to its last use (`second`, else {-1, -1}).
    struct Lifetime {
        std::int32_t from = 0, to = 0;
        std::pair<std::int32_t, std::int32_t> second{-1, -1};
    };
    Lifetime lifetime(std::size_t v) const {
        const std::int32_t end = static_cast<std::int32_t>(s->ops.size()) - 1;
        std::int32_t from = s->producer[v] < 0 ? 0 : s->producer[v];
        std::int32_t to = s->kernels.lastUse[v];
        if (s->producer[v] < 0 && !s->donated[v])
            to = end;  // arguments live the whole step unless donated
        if (s->output[v])
            to = end;
        if (!keptUntil.empty())
            to = std::max(to, keptUntil[v]);
        Lifetime life{from, std::max(from, to)};
        const std::int32_t b = s->rematBlockOf.empty() ? -1 : s->rematBlockOf[v];
        if (b >= 0 && !blockPolicy.empty() &&
            ((s->rematDrops[v] >> static_cast<unsigned>(blockPolicy[static_cast<std::size_t>(b)])) & 1u)) {
            const std::int32_t again = s->rematBlocks[static_cast<std::size_t>(b)].firstBackward;
            life.to = std::max(from, std::min(life.to, s->forwardEnd[v]));
            if (again <= life.to)
                life.to = std::max(life.to, s->kernels.lastUse[v]);
            else
                life.second = {again, std::max(again, s->kernels.lastUse[v])};
        }
        return life;
    }
    int category(std::size_t v) const {
        switch (s->planContext.classes()[v]) {
            case TensorClass::Parameter:
                return 0;
            case TensorClass::Gradient:
                return 1;
            case TensorClass::OptimizerState:
                return 2;
            default:
                return 3;
        }
    }

    // The values that take memory (top-level and stored), in order, with their lifetimes and categories
    // under the plan's remat (setRemat clears it; memory() fills it).
    struct Live {
        std::uint32_t value;
        std::uint32_t category;
        Lifetime life;
    };
    std::vector<Live> lives;
    void findLives() {
        if (!lives.empty())
            return;
        for (std::size_t v = 0; v < s->graph->values.size(); ++v)
            if (s->topLevel[v] && s->kernels.stored[v])
                lives.push_back(
                    {static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(category(v)), lifetime(v)});
    }

    MemoryBreakdown liveAt(std::size_t i) const {
        std::array<double, 5> live{};
        const auto at = static_cast<std::int32_t>(i);
        for (const Live& l : lives) {
            const Lifetime& life = l.life;
            if ((at >= life.from && at <= life.to) || (at >= life.second.first && at <= life.second.second))
                live[l.category] += localBytes[l.value];
        }
        if (i < slotOf.size() && slotOf[i] != kNoSlot)
            live[4] = record(i).execution.temporaryBytes + (i < prefetched.size() ? prefetched[i] : 0);
        return {live[0], live[1], live[2], live[3], live[4]};
    }

    void memory() {
        const auto& g = *s->graph;
        const std::size_t n = s->ops.size();
        // Categories: 0 parameters, 1 gradients, 2 optimizer state, 3 activations, 4 temporaries.
        delta.assign(n + 1, std::array<double, 5>{});
        findLives();
        for (const Live& l : lives) {
            if (n == 0)
                break;
            const Lifetime& life = l.life;
            const std::size_t c = l.category;
            const double bytes = localBytes[l.value];
            delta[static_cast<std::size_t>(life.from)][c] += bytes;
            delta[static_cast<std::size_t>(life.to) + 1][c] -= bytes;
            if (life.second.first >= 0) {
                delta[static_cast<std::size_t>(life.second.first)][c] += bytes;
                delta[static_cast<std::size_t>(life.second.second) + 1][c] -= bytes;
            }
        }
        for (std::size_t i = 0; i < n; ++i) {
            const double temporary = opTemporary[i] + (i < prefetched.size() ? prefetched[i] : 0);
            delta[i][4] += temporary;
            delta[i + 1][4] -= temporary;
        }
        std::array<double, 5> live{};
        Evaluation& e = evaluation;
        e.peakMemory = -1;
        e.peakOp = 0;
        e.opMemory.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            double total = 0;
            for (int c = 0; c < 5; ++c)
                total += (live[static_cast<std::size_t>(c)] += delta[i][static_cast<std::size_t>(c)]);
            e.opMemory[i] = total;
            if (total > e.peakMemory) {
                e.peakMemory = total;
                e.peakOp = i;
                e.atPeak = {live[0], live[1], live[2], live[3], live[4]};
            }
        }
        if (n == 0) {
            double total = 0;
            for (std::size_t v = 0; v < g.values.size(); ++v)
                total += s->topLevel[v] ? localBytes[v] : 0;
            e.peakMemory = total;
        }
        e.atPeak.parameters = std::max(0.0, e.atPeak.parameters);
        e.modelStates = {};
        for (ValueId v : s->modelStateValues[0])
            e.modelStates.parameters += localBytes[v.index];
        for (ValueId v : s->modelStateValues[1])
            e.modelStates.gradients += localBytes[v.index];
        for (ValueId v : s->modelStateValues[2])
            e.modelStates.optimizerState += localBytes[v.index];
        e.capacity = d->hardware.memoryBytes * (1 - d->options.memoryReserve);
        e.feasible = e.peakMemory <= e.capacity;
    }

    // `next` is left holding the plan applied before (its buffers, for the next applyPlan).
    const Evaluation& evaluate(plan::AppliedPlan& next) {
        const auto& g = *s->graph;
        recosted = 0;
        priced = 0;
        kernelsPriced = 0;
        if (!valid) {
            std::swap(applied, next);
            localBytes.assign(g.values.size(), 0);
            valueMask.assign(g.values.size(), 0);
            layoutHash.assign(g.values.size(), 0);
            for (std::size_t v = 0; v < g.values.size(); ++v)
                refreshLocalBytes(ValueId{static_cast<std::uint32_t>(v)});
            clearPools();
            partialOf.assign(s->tensorValues.size(), 0);
            collectiveCount.assign(s->ops.size(), 0);
            opCompute.assign(s->ops.size(), 0);
            opFlops.assign(s->ops.size(), 0);
            opTemporary.assign(s->ops.size(), 0);
            for (std::size_t i = 0; i < s->ops.size(); ++i)
                recost(i);
            recosted = s->ops.size();
            const std::size_t kernels = s->kernels.kernels.size();
            kernelTime.assign(kernels, 0);
            kernelDirty.assign(kernels, 1);
            dirtyKernels.resize(kernels);
            std::iota(dirtyKernels.begin(), dirtyKernels.end(), 0u);
            kernelMemos.assign(s->kernelClassCount, {});
            kernelMemoNext.assign(s->kernelClassCount, 0);
            valid = true;
        } else {
            // The atoms the plan changed, compared a block at a time (most blocks are alike), their values,
            // and the ops that read or write those values.
            if (opDirty.size() != s->ops.size())
                opDirty.assign(s->ops.size(), 0), valueDirty.assign(g.values.size(), 0);
            dirtyValues.clear();
            dirtyOps.clear();
            static_assert(std::has_unique_object_representations_v<AxisList>, "compared as bytes");
            constexpr std::size_t kBlock = 16;
            const std::size_t atoms = next.atomAxes.size();
            for (std::size_t block = 0; block < atoms; block += kBlock) {
                const std::size_t end = std::min(atoms, block + kBlock);
                if (std::memcmp(next.atomAxes.data() + block, applied.atomAxes.data() + block,
                                (end - block) * sizeof(AxisList)) == 0)
                    continue;
                for (std::size_t a = block; a < end; ++a) {
                    if (next.atomAxes[a] == applied.atomAxes[a])
                        continue;
                    const std::uint32_t v = s->atomValue[a];
                    if (!valueDirty[v])
                        valueDirty[v] = 1, dirtyValues.push_back(v);
                }
            }
            std::swap(applied, next);
            for (std::uint32_t v : dirtyValues) {
                valueDirty[v] = 0;
                refreshLocalBytes(ValueId{v});
                for (std::uint32_t k = s->valueKernelStart[v]; k < s->valueKernelStart[v + 1]; ++k)
                    markKernel(s->valueKernelList[k]);
                for (std::uint32_t k = s->valueOpStart[v]; k < s->valueOpStart[v + 1]; ++k) {
                    const std::uint32_t op = s->valueOpList[k];
                    if (!opDirty[op])
                        opDirty[op] = 1, dirtyOps.push_back(op);
                }
            }
            for (std::uint32_t op : dirtyOps) {
                opDirty[op] = 0;
                recost(op);
                for (std::uint32_t k = s->opKernelStart[op]; k < s->opKernelStart[op + 1]; ++k)
                    markKernel(s->opKernelList[k]);
            }
            recosted = dirtyOps.size();
        }
        evaluation.competitions = applied.competitions;
        sweep();
        return evaluation;
    }
};

Evaluator::Evaluator(const CostModel& model, EvaluatorOptions options)
    : state_(std::make_unique<State>(model)) {
    state_->shareClasses = options.shareOpClasses;
    state_->layerClasses = options.layerClasses;
}
Evaluator::~Evaluator() = default;
Evaluator::Evaluator(Evaluator&&) noexcept = default;
Evaluator& Evaluator::operator=(Evaluator&&) noexcept = default;
bool staged(const plan::Plan& plan) {
    return plan.microbatches != 1 || plan.pipeline.has_value();
}

const Evaluation& Evaluator::evaluate(const plan::Plan& plan) {
    if (const Evaluation* e = state_->byLayerClasses(plan))
        return *e;
    if (staged(plan))
        return stagedEvaluate(plan, std::nullopt);
    state_->lastStaged = false;
    state_->setRemat(plan.remat);
    plan::applyPlan(state_->s->planContext, state_->d->mesh, plan, state_->spare);
    return state_->evaluate(state_->spare);
}
const Evaluation& Evaluator::evaluate(const plan::Plan& plan, plan::AppliedPlan applied) {
    if (const Evaluation* e = state_->byLayerClasses(plan))
        return *e;
    if (staged(plan))
        return stagedEvaluate(plan, std::move(applied));
    state_->lastStaged = false;
    state_->setRemat(plan.remat);
    return state_->evaluate(applied);
}
const Evaluation& Evaluator::stagedEvaluate(const plan::Plan& plan,
                                            std::optional<plan::AppliedPlan> applied) {
    if (!state_->staged)
        state_->staged = std::make_unique<detail::StagedEvaluator>(
            *state_->model,
            EvaluatorOptions{.shareOpClasses = state_->shareClasses, .layerClasses = state_->layerClasses});
    state_->lastStaged = true;
    return state_->staged->evaluate(plan, std::move(applied));
}
void Evaluator::reset() {
    state_->valid = false;
    ++state_->epoch;
    state_->staged.reset();
}
plan::TensorSharding Evaluator::sharding(ValueId value) const {
    if (state_->lastStaged)
        return state_->staged->sharding(value);
    return state_->applied.sharding(*state_->s->space, value);
}
const OpExecution& Evaluator::execution(std::size_t opIndex) const {
    if (state_->lastStaged)
        return state_->staged->execution(opIndex);
    return state_->record(opIndex).execution;
}
double Evaluator::localBytes(ValueId value) const {
    if (state_->lastStaged)
        return state_->staged->localBytes(value);
    return state_->localBytes[value.index];
}
MemoryBreakdown Evaluator::liveAt(std::size_t opIndex) const {
    if (state_->lastStaged)
        return state_->staged->liveAt(opIndex);
    return state_->liveAt(opIndex);
}
std::size_t Evaluator::opsPriced() const {
    return state_->lastStaged ? state_->staged->opsPriced() : state_->priced;
}
std::size_t Evaluator::kernelsPriced() const {
    return state_->lastStaged ? state_->staged->kernelsPriced() : state_->kernelsPriced;
}
std::size_t Evaluator::opsRecosted() const {
    if (state_->lastStaged)
        return state_->staged->opsRecosted();
    return state_->recosted;
}

namespace detail {

LayerClassCopy layerClassCopy(const Evaluator& evaluator, std::size_t k) {
    const Evaluator::State& s = *evaluator.state_;
    if (!s.shallowEvaluators[k] || !s.shallowEvaluations[k])
        return {};
    return {s.shallowEvaluators[k]->state_->model, s.shallowEvaluators[k].get(), s.shallowEvaluations[k]};
}

bool updatesOnce(const CostModel& model, std::size_t opIndex) {
    return opIndex < model.data().structure->stepOnce.size() && model.data().structure->stepOnce[opIndex];
}

bool runsOncePerStep(const CostModel& model, const Collective& c) {
    const CostModel::Data& d = model.data();
    const ModelStructure& s = *d.structure;
    const std::int32_t i = c.op.valid() && c.op.index < s.bodyIndexOf.size() ? s.bodyIndexOf[c.op.index] : -1;
    return (c.axes & d.accumulated) != 0 || (i >= 0 && s.stepOnce[static_cast<std::size_t>(i)]) ||
           (c.value.valid() && s.planContext.classes()[c.value.index] == plan::TensorClass::Gradient);
}

}  // namespace detail

Evaluation evaluate(const CostModel& model, const plan::Plan& plan) {
    Evaluator evaluator(model);
    return evaluator.evaluate(plan);
}

double collectiveTime(CollectiveKind kind, double bytes, const mesh::Mesh& mesh, std::uint32_t axisMask,
                      double latencyShare) {
    return collectiveTime(kind, bytes,
                          CollectiveGroup{mesh::groupLink(mesh, axisMask), mesh::groupLevels(mesh, axisMask)},
                          latencyShare);
}

}  // namespace shardscope::cost
