// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The SPMD simulation (spmd.h): per-device blocks, explicit collectives, ops run by the interpreter's
// OpRunner on buffers that hold only what a device has.
#include "shardscope/interpret/spmd.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <tuple>

#include "numerics.h"
#include "ops.h"
#include "shardscope/analysis/factor_rule.h"
#include "shardscope/ir/verifier.h"

namespace shardscope::interpret {

namespace {

using analysis::FactorKind;
using cost::CollectiveKind;
using ir::OpKind;
using ir::ValueId;
using plan::AxisList;
using Layout = std::vector<AxisList>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::int64_t kMaxDevices = 64;

std::uint32_t maskOf(const Layout& layout) {
    std::uint32_t m = 0;
    for (const auto& list : layout)
        m |= list.mask();
    return m;
}

// A hyper-rectangle of a tensor in global coordinates.
struct Box {
    std::vector<std::int64_t> offset, size;
    std::int64_t elements() const {
        std::int64_t n = 1;
        for (auto s : size)
            n *= s;
        return n;
    }
};

std::optional<Box> intersect(const Box& a, const Box& b) {
    Box r;
    for (std::size_t k = 0; k < a.size.size(); ++k) {
        const std::int64_t lo = std::max(a.offset[k], b.offset[k]);
        const std::int64_t hi = std::min(a.offset[k] + a.size[k], b.offset[k] + b.size[k]);
        if (hi <= lo)
            return std::nullopt;
        r.offset.push_back(lo);
        r.size.push_back(hi - lo);
    }
    return r;
}

std::vector<std::int64_t> stridesOf(const std::vector<std::int64_t>& shape) {
    std::vector<std::int64_t> strides(shape.size(), 1);
    for (std::size_t k = shape.size(); k-- > 1;)
        strides[k - 1] = strides[k] * shape[k];
    return strides;
}

// Calls f(source index, destination index) for every element of `region`, where `source` and `destination`
// are the boxes two buffers hold (row-major).
template <typename F>
void forEachIn(const Box& region, const Box& source, const Box& destination, F&& f) {
    const std::size_t rank = region.size.size();
    if (region.elements() == 0)
        return;
    const auto ss = stridesOf(source.size), ds = stridesOf(destination.size);
    std::vector<std::int64_t> index(rank, 0);
    for (std::int64_t n = 0, total = region.elements(); n < total; ++n) {
        std::int64_t s = 0, d = 0;
        for (std::size_t k = 0; k < rank; ++k) {
            const std::int64_t g = region.offset[k] + index[k];
            s += (g - source.offset[k]) * ss[k];
            d += (g - destination.offset[k]) * ds[k];
        }
        f(static_cast<std::size_t>(s), static_cast<std::size_t>(d));
        for (std::size_t k = rank; k-- > 0;) {
            if (++index[k] < region.size[k])
                break;
            index[k] = 0;
        }
    }
}

Box wholeOf(const ir::TensorType& type) {
    return Box{std::vector<std::int64_t>(type.shape.size(), 0), type.shape};
}

// The devices of a mesh, numbered row-major over its axes (axis 0 major).
class Devices {
public:
    explicit Devices(const mesh::Mesh& mesh) {
        for (const auto& axis : mesh.axes)
            sizes_.push_back(axis.size);
        for (auto s : sizes_)
            count_ *= s;
    }
    std::int64_t count() const { return count_; }
    std::int64_t coordinate(std::int64_t device, int axis) const {
        std::int64_t stride = 1;
        for (std::size_t a = static_cast<std::size_t>(axis) + 1; a < sizes_.size(); ++a)
            stride *= sizes_[a];
        return (device / stride) % sizes_[static_cast<std::size_t>(axis)];
    }
    // The devices that share `device`'s coordinates on every axis outside `axes`, `device` first.
    std::vector<std::int64_t> group(std::int64_t device, std::uint32_t axes) const {
        std::vector<std::int64_t> out{device};
        for (std::int64_t e = 0; e < count_; ++e) {
            if (e == device)
                continue;
            bool same = true;
            for (std::size_t a = 0; a < sizes_.size() && same; ++a)
                if (!((axes >> a) & 1u) &&
                    coordinate(e, static_cast<int>(a)) != coordinate(device, static_cast<int>(a)))
                    same = false;
            if (same)
                out.push_back(e);
        }
        return out;
    }
    // The block of a tensor of `shape` laid out as `layout` that `device` holds; nullopt when a dimension is
    // not divisible by its axes.
    std::optional<Box> box(const ir::Shape& shape, const Layout& layout, std::int64_t device) const {
        Box b;
        for (std::size_t k = 0; k < shape.size(); ++k) {
            std::int64_t n = 1, index = 0;
            if (k < layout.size())
                for (int i = 0; i < layout[k].size(); ++i) {
                    const int axis = layout[k][i];
                    index = index * sizes_[static_cast<std::size_t>(axis)] + coordinate(device, axis);
                    n *= sizes_[static_cast<std::size_t>(axis)];
                }
            if (shape[k] % n != 0)
                return std::nullopt;
            b.offset.push_back(index * (shape[k] / n));
            b.size.push_back(shape[k] / n);
        }
        return b;
    }

private:
    std::vector<std::int64_t> sizes_;
    std::int64_t count_ = 1;
};

// How partial results combine, and whether the combination is a sum (only sums stay partial through add).
struct Combiner {
    BinaryKernel kernel;
    bool sum = false;
    double identity = 0;  // kernel(identity, x) == x
};

Combiner sumCombiner() {
    return Combiner{[](double a, double b) { return a + b; }, true, 0};
}

struct Distributed {
    Layout layout;
    std::uint32_t partial = 0;   // axes the shards are partial over
    Combiner combiner;           // valid when partial
    std::vector<Tensor> shards;  // per device
    std::vector<Tensor> summed;  // the shards all-reduced over `partial`, once a consumer needed them
    bool present = false;
};

std::string layoutText(const Layout& layout, const mesh::Mesh& mesh) {
    return plan::TensorSharding{layout}.toString(mesh);
}

// Values a region of `op` (or a region nested in it) uses that are defined outside `op`.
bool usesOuterValues(const ir::Graph& graph, const ir::Op& op) {
    std::set<std::uint32_t> defined;
    std::vector<const ir::Op*> stack{&op};
    std::vector<ValueId> used;
    while (!stack.empty()) {
        const ir::Op* o = stack.back();
        stack.pop_back();
        for (const auto& region : o->regions) {
            for (ValueId a : region.arguments)
                defined.insert(a.index);
            for (ir::OpId id : region.ops) {
                const ir::Op& inner = graph.op(id);
                for (ValueId r : inner.results)
                    defined.insert(r.index);
                used.insert(used.end(), inner.operands.begin(), inner.operands.end());
                stack.push_back(&inner);
            }
            used.insert(used.end(), region.results.begin(), region.results.end());
        }
    }
    for (ValueId v : used)
        if (!defined.count(v.index))
            return true;
    return false;
}

class Simulator {
public:
    Simulator(const cost::CostModel& model, const Options& options)
        : graph_(model.graph()),
          mesh_(model.mesh()),
          devices_(model.mesh()),
          runner_(model.graph(), options),
          evaluator_(model),
          state_(model.graph().values.size()) {}

    Result<Simulation> run(const plan::Plan& plan, const std::vector<Tensor>& arguments) {
        if (devices_.count() > kMaxDevices)
            return makeError("simulate.too-many-devices", "the simulation runs at most " +
                                                              std::to_string(kMaxDevices) +
                                                              " devices; the mesh " + mesh_.toString() +
                                                              " has " + std::to_string(devices_.count()));
        if (Status verified = ir::verifyGraph(graph_); !verified)
            return Result<Simulation>::failure(verified.diagnostics());
        if (arguments.size() != graph_.arguments.size())
            return makeError("interpret.argument", "the graph takes " +
                                                       std::to_string(graph_.arguments.size()) +
                                                       " arguments, got " + std::to_string(arguments.size()));
        evaluator_.evaluate(plan);
        for (std::size_t i = 0; i < arguments.size(); ++i)
            if (Status s = bindArgument(i, arguments[i]); !s)
                return Result<Simulation>::failure(s.diagnostics());
        for (std::size_t i = 0; i < graph_.body.size(); ++i)
            if (Status s = runOp(i); !s)
                return Result<Simulation>::failure(s.diagnostics());
        Simulation simulation;
        simulation.devices = devices_.count();
        for (std::size_t o = 0; o < graph_.outputs.size(); ++o) {
            auto assembled = assemble(o);
            if (!assembled)
                return Result<Simulation>::failure(assembled.diagnostics());
            simulation.outputs.push_back(std::move(*assembled));
        }
        simulation.collectives = std::move(collectives_);
        return simulation;
    }

private:
    void record(CollectiveKind kind, std::uint32_t axes, ir::OpId op, ValueId value) {
        collectives_.push_back({kind, axes, op, value});
    }

    Status bindArgument(std::size_t i, const Tensor& given) {
        const ir::Argument& argument = graph_.arguments[i];
        const ir::TensorType& type = graph_.type(argument.value);
        if (given.type != type || static_cast<std::int64_t>(given.values.size()) != type.elements())
            return makeError("interpret.argument",
                             "argument #" + std::to_string(i) + " expects " + type.toString() + ", got " +
                                 given.type.toString(),
                             argument.location);
        Tensor full = given;
        for (double& v : full.values)
            v = roundToElement(v, type.element);
        Distributed& d = state_[argument.value.index];
        d.layout = evaluator_.sharding(argument.value).dimensions;
        d.present = true;
        auto shards = cut(full, d.layout, "argument #" + std::to_string(i) + " '" + argument.name + "'",
                          argument.location);
        if (!shards)
            return Status::failure(shards.diagnostics());
        d.shards = std::move(*shards);
        return Success{};
    }

    // Every device's block of `full` under `layout`.
    Result<std::vector<Tensor>> cut(const Tensor& full, const Layout& layout, const std::string& what,
                                    const SourceLocation& location) const {
        std::vector<Tensor> shards;
        const Box whole = wholeOf(full.type);
        for (std::int64_t device = 0; device < devices_.count(); ++device) {
            auto b = devices_.box(full.type.shape, layout, device);
            if (!b)
                return makeError("simulate.not-divisible",
                                 what + " of type " + full.type.toString() + " cannot be laid out as " +
                                     layoutText(layout, mesh_) + ": a dimension is not divisible by its axes",
                                 location);
            Tensor shard = Tensor::filled(ir::TensorType{b->size, full.type.element}, 0.0);
            forEachIn(*b, whole, *b, [&](std::size_t s, std::size_t d) { shard.values[d] = full.values[s]; });
            shards.push_back(std::move(shard));
        }
        return shards;
    }

    // Moves `shards` of a tensor of `type` from layout `from` to layout `to`. Each device takes what it needs
    // from the devices of its group over the dropped and moved axes (or, with `group` given, over those), and
    // fails if the data is not there. Records the all-gather and all-to-all when `op` is given.
    Result<std::vector<Tensor>> reshard(const std::vector<Tensor>& shards, const ir::TensorType& type,
                                        const Layout& from, const Layout& to, const ir::Op& op, ValueId value,
                                        bool recordIt) {
        if (from == to)
            return shards;
        const auto [dropped, moved] = cost::reshardAxes(from, to);
        const std::uint32_t group = dropped | moved;
        std::vector<Tensor> out;
        for (std::int64_t device = 0; device < devices_.count(); ++device) {
            auto target = devices_.box(type.shape, to, device);
            if (!target)
                return opError(op,
                               "cannot lay out %" + std::to_string(value.index) + " (" + type.toString() +
                                   ") as " + layoutText(to, mesh_) +
                                   ": a dimension is not divisible by its axes",
                               "simulate.not-divisible");
            Tensor block = Tensor::filled(ir::TensorType{target->size, type.element}, 0.0);
            std::vector<char> covered(static_cast<std::size_t>(target->elements()), 0);
            for (std::int64_t e : devices_.group(device, group)) {
                auto source = devices_.box(type.shape, from, e);
                if (!source)
                    continue;
                auto region = intersect(*target, *source);
                if (!region)
                    continue;
                const Tensor& held = shards[static_cast<std::size_t>(e)];
                forEachIn(*region, *source, *target, [&](std::size_t s, std::size_t d) {
                    if (!covered[d]) {
                        block.values[d] = held.values[s];
                        covered[d] = 1;
                    }
                });
            }
            for (char c : covered)
                if (!c)
                    return opError(op,
                                   "resharding %" + std::to_string(value.index) + " from " +
                                       layoutText(from, mesh_) + " to " + layoutText(to, mesh_) +
                                       " needs data from devices outside the collective's group",
                                   "simulate.inconsistent");
            out.push_back(std::move(block));
        }
        if (recordIt) {
            if (dropped)
                record(CollectiveKind::AllGather, dropped, ir::OpId{opIdOf(op)}, value);
            if (moved)
                record(CollectiveKind::AllToAll, moved, ir::OpId{opIdOf(op)}, value);
        }
        return out;
    }

    std::uint32_t opIdOf(const ir::Op& op) const {
        return static_cast<std::uint32_t>(&op - graph_.ops.data());
    }

    // Combines the shards over the groups of `axes`: every device of a group ends with the same combination,
    // taken in ascending device order and rounded to `element` after each step.
    std::vector<Tensor> allReduce(const std::vector<Tensor>& shards, std::uint32_t axes,
                                  const Combiner& combiner, ir::ElementType element) const {
        std::vector<Tensor> out;
        for (std::int64_t device = 0; device < devices_.count(); ++device) {
            auto members = devices_.group(device, axes);
            std::sort(members.begin(), members.end());
            Tensor sum = shards[static_cast<std::size_t>(members.front())];
            for (std::size_t m = 1; m < members.size(); ++m) {
                const Tensor& other = shards[static_cast<std::size_t>(members[m])];
                for (std::size_t i = 0; i < sum.values.size(); ++i)
                    sum.values[i] = roundToElement(combiner.kernel(sum.values[i], other.values[i]), element);
            }
            out.push_back(std::move(sum));
        }
        return out;
    }

    // A value's shards with partial sums completed (all-reduced once, at its producer, when first needed).
    const std::vector<Tensor>& summed(ValueId v) {
        Distributed& d = state_[v.index];
        if (d.partial == 0)
            return d.shards;
        if (d.summed.empty()) {
            d.summed = allReduce(d.shards, d.partial, d.combiner, graph_.type(v).element);
            record(CollectiveKind::AllReduce, d.partial, graph_.value(v).producer, v);
        }
        return d.summed;
    }

    // The single binary op of a one-op region (a reduce or scatter body), if that is what it is.
    const ir::Op* singleBinaryOp(const ir::Op& op) const {
        if (op.regions.size() != 1 || op.regions[0].ops.size() != 1)
            return nullptr;
        const ir::Op& inner = graph_.op(op.regions[0].ops[0]);
        return ir::category(inner.kind) == ir::OpCategory::ElementwiseBinary ? &inner : nullptr;
    }

    // How partial results of `op` combine, and what fills positions a device does not hold along a sharded
    // reduction factor, if the simulation knows: sums for dot_general, convolution and gather (an index
    // outside the device's rows reads 0), the body for single-result reduce and scatter.
    std::optional<Combiner> combinerOf(const ir::Op& op) const {
        if (op.kind == OpKind::DotGeneral || op.kind == OpKind::Convolution || op.kind == OpKind::Gather)
            return sumCombiner();
        if ((op.kind != OpKind::Reduce && op.kind != OpKind::Scatter) || op.results.size() != 1)
            return std::nullopt;
        const ir::Op* inner = singleBinaryOp(op);
        if (!inner)
            return std::nullopt;
        const ir::ElementType element = graph_.type(op.results[0]).element;
        auto kernel = binaryKernel(*inner, element);
        if (!kernel)
            return std::nullopt;
        Combiner combiner{*kernel, inner->kind == OpKind::Add, 0};
        const bool real = ir::isFloat(element);
        switch (inner->kind) {
            case OpKind::Add:
            case OpKind::Or:
                combiner.identity = 0;
                break;
            case OpKind::Multiply:
                combiner.identity = 1;
                break;
            case OpKind::Maximum:
                if (!real)
                    return std::nullopt;
                combiner.identity = -std::numeric_limits<double>::infinity();
                break;
            case OpKind::Minimum:
                if (!real)
                    return std::nullopt;
                combiner.identity = std::numeric_limits<double>::infinity();
                break;
            default:
                return std::nullopt;
        }
        return combiner;
    }

    Status runOp(std::size_t index) {
        const ir::Op& op = graph_.op(graph_.body[index]);
        const ir::OpId opId = graph_.body[index];
        if (usesOuterValues(graph_, op))
            return opError(op, "its regions use values defined outside it, which the simulation cannot run",
                           "simulate.unsupported");
        const analysis::FactorRule rule = analysis::factorRule(graph_, op);
        const std::vector<AxisList>& factorAxes = evaluator_.execution(index).factorAxes;
        auto axesOf = [&](int f) {
            return static_cast<std::size_t>(f) < factorAxes.size() ? factorAxes[static_cast<std::size_t>(f)]
                                                                   : AxisList{};
        };
        auto required = [&](const std::vector<analysis::TensorFactors>& tensors, std::size_t t,
                            std::size_t rank) {
            Layout layout(rank);
            if (t < tensors.size())
                for (std::size_t k = 0; k < rank && k < tensors[t].size(); ++k)
                    for (int f : tensors[t][k])
                        layout[k].append(axesOf(f));
            return layout;
        };
        std::uint32_t reduction = 0, permutation = 0;
        for (std::size_t f = 0; f < rule.factors.size(); ++f) {
            const std::uint32_t m = axesOf(static_cast<int>(f)).mask();
            if (rule.factors[f].kind == FactorKind::Reduction)
                reduction |= m;
            if (rule.factors[f].kind == FactorKind::Permutation)
                permutation |= m;
        }
        // Dimensions of a tensor that carry a sharded factor of `kind`.
        auto dimsWith = [&](const std::vector<analysis::TensorFactors>& tensors, std::size_t t,
                            std::size_t rank, FactorKind kind) {
            std::vector<char> flags(rank, 0);
            if (t < tensors.size())
                for (std::size_t k = 0; k < rank && k < tensors[t].size(); ++k)
                    for (int f : tensors[t][k])
                        if (rule.factors[static_cast<std::size_t>(f)].kind == kind && !axesOf(f).empty())
                            flags[k] = 1;
            return flags;
        };

        // The cost model's lazy rule: a linear op of operands partial over the same axes stays partial.
        const bool linear = op.kind == OpKind::Add || op.kind == OpKind::Subtract ||
                            op.kind == OpKind::Negate || op.kind == OpKind::Reshape ||
                            op.kind == OpKind::Transpose;
        std::uint32_t common = 0;
        bool usePartial = linear && !op.operands.empty();
        for (std::size_t t = 0; t < op.operands.size() && usePartial; ++t) {
            const Distributed& d = state_[op.operands[t].index];
            if (d.partial == 0 || (t > 0 && d.partial != common) || !d.combiner.sum)
                usePartial = false;
            common = d.partial;
        }
        std::vector<Layout> have;
        for (ValueId r : op.results) {
            have.push_back(evaluator_.sharding(r).dimensions);
            have.back().resize(graph_.type(r).shape.size());
            if ((reduction & ~maskOf(have.back())) != 0 || (maskOf(have.back()) & common) != 0)
                usePartial = false;
        }

        // Operands: resharded to the op's requirement, then gathered along sharded permutation factors.
        std::vector<std::vector<Tensor>> local(op.operands.size());
        std::vector<Layout> computeLayouts;
        bool replicated = !usePartial;
        for (std::size_t t = 0; t < op.operands.size(); ++t) {
            const ValueId v = op.operands[t];
            const ir::TensorType& type = graph_.type(v);
            Distributed& d = state_[v.index];
            if (!d.present)
                return opError(op, "operand %" + std::to_string(v.index) + " has no value",
                               "interpret.internal");
            const Layout need = required(rule.operands, t, type.shape.size());
            const std::vector<Tensor>& source = usePartial ? d.shards : summed(v);
            const auto key = std::make_tuple(v.index, layoutKey(need), usePartial);
            auto cached = reshards_.find(key);
            if (cached == reshards_.end()) {
                auto moved = reshard(source, type, d.layout, need, op, v, true);
                if (!moved)
                    return Status::failure(moved.diagnostics());
                cached = reshards_.emplace(key, std::move(*moved)).first;
            }
            Layout compute = need;
            const auto permuted = dimsWith(rule.operands, t, type.shape.size(), FactorKind::Permutation);
            for (std::size_t k = 0; k < compute.size(); ++k)
                if (permuted[k])
                    compute[k] = AxisList{};
            if (compute == need) {
                local[t] = cached->second;
            } else {
                auto gathered = reshard(cached->second, type, need, compute, op, v, false);
                if (!gathered)
                    return Status::failure(gathered.diagnostics());
                local[t] = std::move(*gathered);
            }
            if (maskOf(compute) != 0)
                replicated = false;
            computeLayouts.push_back(std::move(compute));
        }

        std::optional<Combiner> combiner;
        if (reduction) {
            combiner = combinerOf(op);
            if (!combiner)
                return opError(
                    op, "a sharded reduction factor leaves partial results the simulation cannot combine",
                    "simulate.unsupported");
        }

        // Each device computes its blocks of the results.
        std::vector<Layout> produced;
        for (std::size_t r = 0; r < op.results.size(); ++r)
            produced.push_back(required(rule.results, r, graph_.type(op.results[r]).shape.size()));
        std::vector<std::vector<Tensor>> results(op.results.size());
        for (std::int64_t device = 0; device < devices_.count(); ++device) {
            Tensors global;
            if (replicated && device > 0) {
                global = replicatedResults_;
            } else {
                Tensors embedded;
                for (std::size_t t = 0; t < op.operands.size(); ++t) {
                    auto e =
                        embed(op, t, local[t][static_cast<std::size_t>(device)], computeLayouts[t], device,
                              dimsWith(rule.operands, t, computeLayouts[t].size(), FactorKind::Reduction),
                              local, combiner, reduction);
                    if (!e)
                        return Status::failure(e.diagnostics());
                    embedded.push_back(std::move(*e));
                }
                Operands pointers;
                for (const Tensor& e : embedded)
                    pointers.push_back(&e);
                auto ran = runner_.run(op, pointers);
                if (!ran)
                    return Status::failure(ran.diagnostics());
                global = std::move(*ran);
                if (replicated)
                    replicatedResults_ = global;
            }
            for (std::size_t r = 0; r < op.results.size(); ++r) {
                const ir::TensorType& type = graph_.type(op.results[r]);
                auto b = devices_.box(type.shape, produced[r], device);
                if (!b)
                    return opError(op,
                                   "its result #" + std::to_string(r) + " (" + type.toString() +
                                       ") cannot be laid out as " + layoutText(produced[r], mesh_),
                                   "simulate.not-divisible");
                Tensor block = Tensor::filled(ir::TensorType{b->size, type.element}, 0.0);
                const Tensor& g = global[r];
                forEachIn(*b, wholeOf(type), *b,
                          [&](std::size_t s, std::size_t d) { block.values[d] = g.values[s]; });
                results[r].push_back(std::move(block));
            }
        }
        replicatedResults_.clear();

        // Results: reduce-scatter where the result is sharded on a reduction axis, keep the rest partial,
        // then reshard to the tensor's own sharding.
        for (std::size_t r = 0; r < op.results.size(); ++r) {
            const ValueId v = op.results[r];
            const ir::TensorType& type = graph_.type(v);
            const std::uint32_t scatter = reduction & maskOf(have[r]);
            std::vector<Tensor> shards = std::move(results[r]);
            Layout layout = produced[r];
            if (scatter) {
                // Reduce-scatter: sum over the group, each device keeping its piece of its own block.
                const Layout scattered = cost::scatteredLayout(layout, have[r], scatter);
                auto kept = reshard(allReduce(shards, scatter, *combiner, type.element), type, layout,
                                    scattered, op, v, false);
                if (!kept)
                    return Status::failure(kept.diagnostics());
                shards = std::move(*kept);
                layout = scattered;
                record(CollectiveKind::ReduceScatter, scatter, opId, v);
            }
            if (permutation)
                record(CollectiveKind::CollectivePermute, permutation, opId, v);
            auto placed = reshard(shards, type, layout, have[r], op, v, true);
            if (!placed)
                return Status::failure(placed.diagnostics());
            Distributed& d = state_[v.index];
            d.layout = have[r];
            d.present = true;
            d.shards = std::move(*placed);
            if (usePartial) {
                d.partial = common;
                d.combiner = state_[op.operands[0].index].combiner;
            } else {
                d.partial = reduction & ~maskOf(have[r]);
                if (d.partial)
                    d.combiner = *combiner;
            }
        }
        return Success{};
    }

    static std::vector<std::uint32_t> layoutKey(const Layout& layout) {
        std::vector<std::uint32_t> key;
        for (const auto& list : layout)
            key.push_back(list.bits());
        return key;
    }

    // Operand `t` of `op` as device `device` sees it: a buffer of the operand's global shape with the
    // device's block in place; positions outside it are the reduction's identity along sharded reduction
    // factors (a reduce's init value) and NaN (0 for integers) elsewhere. A scatter's inputs count once in
    // the sum of the partial results: on the devices off coordinate 0 of the reduction axes they are the
    // identity throughout.
    Result<Tensor> embed(const ir::Op& op, std::size_t t, const Tensor& block, const Layout& layout,
                         std::int64_t device, const std::vector<char>& reductionDims,
                         const std::vector<std::vector<Tensor>>& local,
                         const std::optional<Combiner>& combiner, std::uint32_t reductionAxes) const {
        const ir::TensorType& type = graph_.type(op.operands[t]);
        if (op.kind == OpKind::Scatter && combiner && t < op.results.size()) {
            bool first = true;
            for (std::size_t a = 0; a < mesh_.axes.size(); ++a)
                if (((reductionAxes >> a) & 1u) && devices_.coordinate(device, static_cast<int>(a)) != 0)
                    first = false;
            if (!first)
                return Tensor::filled(type, combiner->identity);
        }
        if (maskOf(layout) == 0)
            return block;
        Tensor full = Tensor::filled(type, ir::isFloat(type.element) ? kNaN : 0.0);
        const auto b = devices_.box(type.shape, layout, device);
        if (!b)
            return opError(
                op, "operand #" + std::to_string(t) + " cannot be laid out as " + layoutText(layout, mesh_),
                "simulate.not-divisible");
        bool anyReduction = false;
        Box slab = *b;
        for (std::size_t k = 0; k < reductionDims.size(); ++k)
            if (reductionDims[k]) {
                anyReduction = true;
                slab.offset[k] = 0;
                slab.size[k] = type.shape[k];
            }
        if (anyReduction) {
            double identity = combiner ? combiner->identity : 0;
            if (op.kind == OpKind::Reduce) {
                const std::size_t inputs = op.operands.size() / 2;
                if (t >= inputs)
                    return opError(op, "an init value is sharded", "simulate.unsupported");
                identity = local[inputs + t][static_cast<std::size_t>(device)].values.at(0);
            }
            if (!ir::isFloat(type.element) && std::isinf(identity))
                identity = 0;
            forEachIn(slab, wholeOf(type), wholeOf(type),
                      [&](std::size_t, std::size_t d) { full.values[d] = identity; });
        }
        forEachIn(*b, *b, wholeOf(type),
                  [&](std::size_t s, std::size_t d) { full.values[d] = block.values[s]; });
        return full;
    }

    // Output `o` assembled from the devices' blocks, which must agree where they overlap.
    Result<Tensor> assemble(std::size_t o) {
        const ir::Output& output = graph_.outputs[o];
        const ValueId v = output.value;
        const ir::TensorType& type = graph_.type(v);
        const std::string what =
            "output #" + std::to_string(o) + (output.name.empty() ? "" : " '" + output.name + "'");
        if (!state_[v.index].present)
            return makeError("interpret.internal", what + " was never computed");
        const std::vector<Tensor>& shards = summed(v);
        const Layout& layout = state_[v.index].layout;
        Tensor full = Tensor::filled(type, 0.0);
        std::vector<std::int64_t> holder(static_cast<std::size_t>(type.elements()), -1);
        const Box whole = wholeOf(type);
        for (std::int64_t device = 0; device < devices_.count(); ++device) {
            auto b = devices_.box(type.shape, layout, device);
            if (!b)
                return makeError("simulate.not-divisible",
                                 what + " cannot be laid out as " + layoutText(layout, mesh_));
            const Tensor& shard = shards[static_cast<std::size_t>(device)];
            std::optional<std::string> disagreement;
            forEachIn(*b, *b, whole, [&](std::size_t s, std::size_t d) {
                const double x = shard.values[s];
                if (holder[d] < 0) {
                    full.values[d] = x;
                    holder[d] = device;
                } else if (!disagreement &&
                           !(x == full.values[d] || (std::isnan(x) && std::isnan(full.values[d])))) {
                    disagreement = "devices " + std::to_string(holder[d]) + " and " + std::to_string(device) +
                                   " hold different values of " + what + " at element " + std::to_string(d) +
                                   ": " + std::to_string(full.values[d]) + " and " + std::to_string(x);
                }
            });
            if (disagreement)
                return makeError("simulate.inconsistent", *disagreement);
        }
        return full;
    }

    const ir::Graph& graph_;
    const mesh::Mesh& mesh_;
    Devices devices_;
    OpRunner runner_;
    cost::Evaluator evaluator_;
    std::vector<Distributed> state_;
    std::map<std::tuple<std::uint32_t, std::vector<std::uint32_t>, bool>, std::vector<Tensor>> reshards_;
    Tensors replicatedResults_;
    std::vector<ExecutedCollective> collectives_;
};

}  // namespace

Result<Simulation> simulate(const cost::CostModel& model, const plan::Plan& plan,
                            const std::vector<Tensor>& arguments, const Options& options) {
    if (plan.microbatches != 1 || plan.pipeline) {
        // A pipeline computes what its microbatches compute, stage after stage on the same values, and sums
        // their gradients: the microbatch program with its microbatch axis simulated as devices.
        if (auto problem = plan::pipelineProblem(model.planContext(), model.mesh(), plan))
            return makeError("simulate.pipeline", "the plan's pipeline cannot run: " + *problem);
        const cost::MicrobatchProgram program = cost::microbatchProgram(model, plan);
        auto result = Simulator(*program.model, options).run(program.plan, arguments);
        if (result) {
            // The microbatch axis is time, not devices: leave it out of the executed collectives' groups.
            const std::uint32_t micro = std::uint32_t{1} << model.mesh().axes.size();
            result->devices /= program.model->mesh().axes.back().size;
            for (auto& c : result->collectives)
                c.axes &= ~micro;
            std::erase_if(result->collectives, [](const ExecutedCollective& c) { return c.axes == 0; });
        }
        return result;
    }
    return Simulator(model, options).run(plan, arguments);
}

double scaledDifference(const std::vector<Tensor>& expected, const std::vector<Tensor>& actual) {
    constexpr double kInfinity = std::numeric_limits<double>::infinity();
    if (expected.size() != actual.size())
        return kInfinity;
    double worst = 0;
    for (std::size_t o = 0; o < expected.size(); ++o) {
        const Tensor& e = expected[o];
        const Tensor& a = actual[o];
        if (e.type != a.type || e.values.size() != a.values.size())
            return kInfinity;
        double scale = 0;
        for (double x : e.values)
            if (std::isfinite(x))
                scale = std::max(scale, std::abs(x));
        if (scale == 0)
            scale = 1;
        for (std::size_t i = 0; i < e.values.size(); ++i) {
            const double x = e.values[i], y = a.values[i];
            if (std::isnan(x) || std::isnan(y)) {
                if (std::isnan(x) != std::isnan(y))
                    return kInfinity;
                continue;
            }
            if (x == y)
                continue;
            worst = std::max(worst, std::abs(x - y) / scale);
        }
    }
    return worst;
}

std::vector<Tensor> sampleArguments(const ir::Graph& graph, std::uint64_t seed, std::int64_t integerBound) {
    std::mt19937_64 random(seed);
    std::normal_distribution<double> normal(0.0, 0.3);
    std::uniform_real_distribution<double> moment(0.0, 0.1);
    std::uniform_int_distribution<std::int64_t> integer(0, std::max<std::int64_t>(1, integerBound) - 1);
    std::uniform_int_distribution<int> bit(0, 1);
    std::vector<Tensor> out;
    for (const auto& argument : graph.arguments) {
        Tensor t = Tensor::filled(graph.type(argument.value), 0.0);
        for (double& v : t.values) {
            if (t.type.element == ir::ElementType::I1)
                v = bit(random);
            else if (ir::isInteger(t.type.element))
                v = static_cast<double>(integer(random));
            else if (argument.role == ir::ArgumentRole::OptimizerState)
                v = moment(random);
            else
                v = normal(random);
        }
        out.push_back(std::move(t));
    }
    return out;
}

}  // namespace shardscope::interpret
