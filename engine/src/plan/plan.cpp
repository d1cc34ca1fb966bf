// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/plan/plan.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <span>
#include <utility>

namespace shardscope::plan {

using analysis::AtomId;
using analysis::NameId;
using ir::ValueId;

namespace {
constexpr std::array<std::string_view, kTensorClassCount> kClassNames{"activation", "parameter", "gradient",
                                                                      "optimizer_state", "optimizer_update"};
}

std::string_view toString(TensorClass c) {
    return kClassNames[static_cast<std::size_t>(c)];
}

std::optional<TensorClass> parseTensorClass(std::string_view text) {
    for (std::size_t i = 0; i < kClassNames.size(); ++i)
        if (kClassNames[i] == text)
            return static_cast<TensorClass>(i);
    return std::nullopt;
}

std::vector<TensorClass> classifyTensors(const ir::Graph& graph) {
    std::vector<TensorClass> classes(graph.values.size(), TensorClass::Activation);
    // Seeds of the optimizer update: optimizer states and gradients.
    std::vector<char> update(graph.values.size(), 0);
    for (const auto& a : graph.arguments) {
        if (a.role == ir::ArgumentRole::Parameter)
            classes[a.value.index] = TensorClass::Parameter;
        if (a.role == ir::ArgumentRole::OptimizerState) {
            classes[a.value.index] = TensorClass::OptimizerState;
            update[a.value.index] = 1;
        }
    }
    for (const auto& [value, argument] : graph.gradients)
        update[value.index] = 1;
    // A layer of a stacked parameter (dynamic_slice at a scan's counter, reshaped to the layer's shape) is
    // that layer's parameter: gathered, prefetched and sharded as an unrolled model's.
    for (ir::OpId id : graph.body) {
        const ir::Op& op = graph.op(id);
        if ((op.kind == ir::OpKind::DynamicSlice || op.kind == ir::OpKind::Reshape) && !op.operands.empty() &&
            op.results.size() == 1 && classes[op.operands[0].index] == TensorClass::Parameter)
            classes[op.results[0].index] = TensorClass::Parameter;
    }
    for (ir::OpId id : graph.body) {
        const ir::Op& op = graph.op(id);
        const bool fromUpdate = std::any_of(op.operands.begin(), op.operands.end(),
                                            [&](ValueId v) { return update[v.index] != 0; });
        if (!fromUpdate)
            continue;
        for (ValueId r : op.results) {
            update[r.index] = 1;
            classes[r.index] = TensorClass::OptimizerUpdate;
        }
    }
    for (const auto& [value, argument] : graph.gradients)
        classes[value.index] = TensorClass::Gradient;
    // The pieces a stacked parameter's gradient is concatenated from (one per layer of a scan) are gradients
    // too: each is reduced, bucketed and sharded as the gradient of its layer's slice.
    for (const auto& [value, argument] : graph.gradients) {
        const ir::Value& v = graph.value(value);
        if (v.producer.valid() && graph.op(v.producer).kind == ir::OpKind::Concatenate)
            for (ValueId piece : graph.op(v.producer).operands)
                // through the reshape that gave the layer's gradient the stacked shape, to the op that
                // computed it
                for (ValueId p = piece; p.valid();) {
                    classes[p.index] = TensorClass::Gradient;
                    const ir::Value& made = graph.value(p);
                    const bool reshaped =
                        made.producer.valid() && graph.op(made.producer).kind == ir::OpKind::Reshape;
                    p = reshaped ? graph.op(made.producer).operands[0] : ValueId{};
                }
    }
    for (const auto& o : graph.outputs) {
        if (!o.aliasedArgument || *o.aliasedArgument >= graph.arguments.size())
            continue;
        const auto role = graph.arguments[*o.aliasedArgument].role;
        if (role == ir::ArgumentRole::Parameter)
            classes[o.value.index] = TensorClass::Parameter;
        if (role == ir::ArgumentRole::OptimizerState)
            classes[o.value.index] = TensorClass::OptimizerState;
    }
    return classes;
}

std::int64_t devicesOf(const mesh::Mesh& mesh, std::uint32_t axisMask) {
    std::int64_t n = 1;
    for (std::size_t i = 0; i < mesh.axes.size(); ++i)
        if ((axisMask >> i) & 1u)
            n *= mesh.axes[i].size;
    return n;
}

std::uint32_t TensorSharding::mask() const {
    std::uint32_t m = 0;
    for (const auto& d : dimensions)
        m |= d.mask();
    return m;
}

std::string TensorSharding::toString(const mesh::Mesh& mesh) const {
    std::string out = "[";
    for (std::size_t d = 0; d < dimensions.size(); ++d) {
        if (d)
            out += ", ";
        out += "{";
        for (int i = 0; i < dimensions[d].size(); ++i) {
            if (i)
                out += ", ";
            const int axis = dimensions[d][i];
            out += "\"" +
                   (axis >= 0 && static_cast<std::size_t>(axis) < mesh.axes.size() ? mesh.axes[axis].name
                                                                                   : std::string("?")) +
                   "\"";
        }
        out += "}";
    }
    return out + "]";
}

std::string_view toString(CompetitionSite::Reason reason) {
    switch (reason) {
        case CompetitionSite::Reason::AxisInUse:
            return "axis in use";
        case CompetitionSite::Reason::NotDivisible:
            return "not divisible";
        case CompetitionSite::Reason::MajorUnsharded:
            return "major atom not fully sharded";
    }
    return "?";
}

namespace {

std::optional<analysis::GroupId> findBatchGroup(const ir::Graph& graph,
                                                const analysis::DecisionSpace& space) {
    for (std::size_t g = 0; g < space.groups.size(); ++g) {
        const std::string& label = space.groups[g].label;
        const auto dot = label.rfind('.');
        std::string tail = dot == std::string::npos ? label : label.substr(dot + 1);
        tail = tail.substr(0, tail.find('#'));  // "batch#2": a second group of that label
        if (tail == "batch")
            return analysis::GroupId{static_cast<std::uint32_t>(g)};
    }
    const ir::Argument* largest = nullptr;
    for (const auto& a : graph.arguments)
        if (a.role == ir::ArgumentRole::Input && graph.type(a.value).rank() > 0 &&
            (!largest || graph.type(a.value).bytes() > graph.type(largest->value).bytes()))
            largest = &a;
    if (!largest)
        return std::nullopt;
    const auto names = space.namesOf(largest->value, 0);
    if (names.empty())
        return std::nullopt;
    return space.name(names.front()).group;
}

}  // namespace

PlanContext::PlanContext(const ir::Graph& graph, const analysis::DecisionSpace& space)
    : graph_(&graph),
      space_(&space),
      classes_(classifyTensors(graph)),
      nameRuns_(space.names.size()),
      blocks_(layerBlocks(graph)),
      pipelineLayers_(plan::pipelineLayers(blocks_)) {
    // Whether a more major atom of the atom's dimension has a size above 1 (only then can "a more major atom
    // is not fully sharded" stop a decision there).
    std::vector<char> hasMajor(space.atoms.size(), 0);
    for (const auto& dims : space.dimensionAtoms)
        for (const auto& dim : dims) {
            bool major = false;
            for (AtomId a : dim) {
                hasMajor[a.index] = major ? 1 : 0;
                major = major || space.atom(a).size > 1;
            }
        }
    nameAtomsBegin_.reserve(space.names.size() + 1);
    for (std::size_t n = 0; n < space.names.size(); ++n) {
        auto atoms = space.names[n].atoms;
        // Atom ids grow major to minor within a dimension (they are made dimension by dimension).
        std::sort(atoms.begin(), atoms.end(), [&](AtomId a, AtomId b) {
            const auto& x = space.atom(a);
            const auto& y = space.atom(b);
            if (x.value != y.value)
                return x.value.index < y.value.index;
            if (x.dimension != y.dimension)
                return x.dimension < y.dimension;
            return a.index < b.index;
        });
        for (std::uint32_t i = 1; i <= atoms.size(); ++i)
            if (i == atoms.size() || space.atom(atoms[i]).value != space.atom(atoms[i - 1]).value) {
                const ValueId value = space.atom(atoms[i - 1]).value;
                nameRuns_[n].push_back({value, classes_[value.index], i});
            }
        nameAtomsBegin_.push_back(static_cast<std::uint32_t>(flatAtoms_.size()));
        for (AtomId a : atoms) {
            const auto& atom = space.atom(a);
            flatAtoms_.push_back(
                {a.index, atom.dimension, atom.size, static_cast<std::uint32_t>(majors_.size())});
            if (!hasMajor[a.index])
                continue;
            for (AtomId major :
                 space.dimensionAtoms[atom.value.index][static_cast<std::size_t>(atom.dimension)]) {
                if (major == a)
                    break;
                if (space.atom(major).size > 1)
                    majors_.push_back({major.index, space.atom(major).size});
            }
        }
    }
    nameAtomsBegin_.push_back(static_cast<std::uint32_t>(flatAtoms_.size()));
    flatAtoms_.push_back({0, 0, 1, static_cast<std::uint32_t>(majors_.size())});
    batch_ = findBatchGroup(graph, space);
}

std::vector<NameId> PlanContext::namesOf(const Decision& decision) const {
    if (decision.target == Decision::Target::Name) {
        if (decision.index >= space_->names.size())
            return {};
        return {NameId{decision.index}};
    }
    if (decision.index >= space_->groups.size())
        return {};
    return space_->groups[decision.index].names;
}

std::string PlanContext::targetLabel(const Decision& decision) const {
    if (decision.target == Decision::Target::Name)
        return decision.index < space_->names.size() ? space_->names[decision.index].label : "?";
    return decision.index < space_->groups.size() ? space_->groups[decision.index].label : "?";
}

TensorSharding AppliedPlan::sharding(const analysis::DecisionSpace& space, ValueId value) const {
    TensorSharding s;
    const auto& dims = space.dimensionAtoms[value.index];
    s.dimensions.resize(dims.size());
    for (std::size_t d = 0; d < dims.size(); ++d)
        for (AtomId a : dims[d])
            s.dimensions[d].append(atomAxes[a.index]);
    return s;
}

namespace {

// A plan's resolutions by name, the last one of a name winning.
class ResolutionsByName {
public:
    ResolutionsByName(const std::vector<Resolution>& resolutions, std::size_t names) {
        for (const auto& r : resolutions)
            if (r.name.index < names)
                sorted_.push_back(r);
        std::stable_sort(sorted_.begin(), sorted_.end(), [](const Resolution& a, const Resolution& b) {
            return a.name.index < b.name.index;
        });
    }
    // The dimension picked for `name`'s occurrences (0: the first, as without a resolution).
    int of(NameId name) const {
        if (sorted_.empty())
            return 0;
        const auto after =
            std::upper_bound(sorted_.begin(), sorted_.end(), name.index,
                             [](std::uint32_t n, const Resolution& r) { return n < r.name.index; });
        return after != sorted_.begin() && (after - 1)->name == name ? (after - 1)->dimension : 0;
    }

private:
    std::vector<Resolution> sorted_;
};

// Whether `divisor` (>= 1) divides `size`, as size % divisor == 0 but without a 64-bit division in the common
// cases (a power of two, 32-bit operands).
bool divides(std::int64_t divisor, std::int64_t size) {
    if ((divisor & (divisor - 1)) == 0)
        return (size & (divisor - 1)) == 0;
    constexpr std::int64_t k32 = 0xFFFFFFFF;
    if (size >= 0 && size <= k32 && divisor <= k32)
        return static_cast<std::uint32_t>(size) % static_cast<std::uint32_t>(divisor) == 0;
    return size % divisor == 0;
}

// applyPlan's decisions, with the axes each value uses as a mask of `Mask` (uint8_t for meshes of up to 8
// axes: a small array, mostly in cache, read once per value a decided name reaches).
template <typename Mask>
void applyDecisions(const PlanContext& context, const mesh::Mesh& mesh, const Plan& plan,
                    AppliedPlan& applied) {
    const auto& space = context.space();
    AxisList* const atomAxes = applied.atomAxes.data();
    // The axes each value uses: kept per thread, so that applying plan after plan allocates nothing.
    thread_local std::vector<Mask> used;
    used.assign(context.graph().values.size(), 0);
    const ResolutionsByName resolutions(plan.resolutions, space.names.size());
    // Sizes by an AxisList's 4-bit code of an axis (its index + 1).
    std::array<std::int64_t, 16> sizeOfCode{};
    sizeOfCode.fill(1);
    for (std::size_t i = 0; i < mesh.axes.size() && i + 1 < sizeOfCode.size(); ++i)
        sizeOfCode[i + 1] = mesh.axes[i].size;
    auto axesSize = [&](AxisList list) {
        std::int64_t n = 1;
        for (std::uint32_t b = list.bits(); b != 0; b >>= 4)
            n *= sizeOfCode[b & 0xF];
        return n;
    };

    for (std::size_t di = 0; di < plan.decisions.size(); ++di) {
        const Decision& decision = plan.decisions[di];
        if (decision.axis < 0 || static_cast<std::size_t>(decision.axis) >= mesh.axes.size())
            continue;
        const std::int64_t axisSize = mesh.axes[static_cast<std::size_t>(decision.axis)].size;
        const auto bit = static_cast<Mask>(1u << decision.axis);
        // Offers the axis to one occurrence of the name on a value that uses the axes `usedAxes`.
        auto offer = [&](const PlanContext::NameAtom& at, Mask& usedAxes) __attribute__((always_inline)) {
            const AtomId a = at.id();
            if (usedAxes & bit) {
                applied.competitions.push_back({di, a, CompetitionSite::Reason::AxisInUse});
                return;
            }
            AxisList& axes = atomAxes[at.atom];
            if (!divides(axesSize(axes) * axisSize, at.size)) {
                applied.competitions.push_back({di, a, CompetitionSite::Reason::NotDivisible});
                return;
            }
            for (const auto& major : context.majorsOf(at))
                if (axesSize(atomAxes[major.atom]) != major.size) {
                    applied.competitions.push_back({di, a, CompetitionSite::Reason::MajorUnsharded});
                    return;
                }
            axes.push(decision.axis);
            usedAxes |= bit;
        };
        const NameId single{decision.index};
        std::span<const NameId> names;
        if (decision.target == Decision::Target::Name && decision.index < space.names.size())
            names = {&single, 1};
        else if (decision.target == Decision::Target::Group && decision.index < space.groups.size())
            names = space.groups[decision.index].names;
        for (NameId name : names) {
            const PlanContext::NameAtom* const atoms = context.nameAtoms(name).data();
            const int pick = resolutions.of(name);
            std::uint32_t i = 0;
            for (const auto& [value, tensorClass, end] : context.valueRunsOf(name)) {
                const std::uint32_t begin = std::exchange(i, end);
                if (!((decision.tensors >> static_cast<unsigned>(tensorClass)) & 1u))
                    continue;
                Mask& usedAxes = used[value.index];
                // A tensor carrying the name on several dimensions offers the resolved one first: the run's
                // dimensions ascend, so the pick-th distinct one is found in a pass.
                std::optional<std::int32_t> first;
                if (pick > 0) {
                    int distinct = 0;
                    for (std::uint32_t k = begin + 1; k < end && !first; ++k)
                        if (atoms[k].dimension != atoms[k - 1].dimension && ++distinct == pick)
                            first = atoms[k].dimension;
                }
                if (first) {
                    for (std::uint32_t k = begin; k < end; ++k)
                        if (atoms[k].dimension == *first)
                            offer(atoms[k], usedAxes);
                    for (std::uint32_t k = begin; k < end; ++k)
                        if (atoms[k].dimension != *first)
                            offer(atoms[k], usedAxes);
                } else {
                    for (std::uint32_t k = begin; k < end; ++k)
                        offer(atoms[k], usedAxes);
                }
            }
        }
    }
}

}  // namespace

AppliedPlan applyPlan(const PlanContext& context, const mesh::Mesh& mesh, const Plan& plan) {
    AppliedPlan applied;
    applyPlan(context, mesh, plan, applied);
    return applied;
}

void applyPlan(const PlanContext& context, const mesh::Mesh& mesh, const Plan& plan, AppliedPlan& out) {
    out.atomAxes.assign(context.space().atoms.size(), AxisList{});
    out.competitions.clear();
    if (mesh.axes.size() <= static_cast<std::size_t>(std::numeric_limits<std::uint8_t>::digits))
        applyDecisions<std::uint8_t>(context, mesh, plan, out);
    else
        applyDecisions<std::uint32_t>(context, mesh, plan, out);
}

}  // namespace shardscope::plan

namespace shardscope::plan {

std::string_view toString(PipelineSchedule schedule) {
    switch (schedule) {
        case PipelineSchedule::GPipe:
            return "gpipe";
        case PipelineSchedule::OneFOneB:
            return "1f1b";
        case PipelineSchedule::Interleaved:
            return "interleaved";
    }
    return "1f1b";
}

std::optional<PipelineSchedule> parsePipelineSchedule(std::string_view text) {
    for (int s = 0; s < kPipelineScheduleCount; ++s)
        if (toString(static_cast<PipelineSchedule>(s)) == text)
            return static_cast<PipelineSchedule>(s);
    return std::nullopt;
}

std::vector<std::int32_t> pipelineLayers(const LayerBlocks& blocks) {
    std::vector<std::size_t> count(blocks.families.size(), 0);
    for (std::uint32_t f : blocks.familyOfBlock)
        ++count[f];
    std::size_t family = 0;
    for (std::size_t f = 1; f < count.size(); ++f)
        if (count[f] > count[family])
            family = f;
    std::vector<std::int32_t> layers;
    for (std::size_t b = 0; b < blocks.blocks.size(); ++b)
        if (blocks.familyOfBlock[b] == family)
            layers.push_back(static_cast<std::int32_t>(b));
    return layers;
}

std::int64_t batchSize(const PlanContext& context) {
    const auto batch = context.batchGroup();
    if (!batch)
        return 0;
    std::int64_t size = 1;
    for (analysis::NameId n : context.space().group(*batch).names)
        size = std::max(size, context.space().name(n).size);
    return size;
}

std::int64_t localBatch(const PlanContext& context, const mesh::Mesh& mesh, const Plan& plan) {
    const auto batch = context.batchGroup();
    const std::int64_t size = batchSize(context);
    if (!batch || size < 1)
        return 1;
    std::int64_t devices = 1;
    std::uint32_t counted = 0;
    for (const Decision& d : plan.decisions) {
        const auto axis = static_cast<std::size_t>(d.axis);
        if (d.target != Decision::Target::Group || d.index != batch->index ||
            !(d.tensors & maskOf(TensorClass::Activation)) || d.axis < 0 || axis >= mesh.axes.size() ||
            ((counted >> axis) & 1u))
            continue;
        counted |= 1u << axis;
        std::int64_t n = mesh.axes[axis].size;
        if (plan.pipeline && plan.pipeline->axis == d.axis && plan.pipeline->stages > 0 &&
            n % plan.pipeline->stages == 0)
            n /= plan.pipeline->stages;
        devices *= n;
    }
    return size % devices == 0 ? size / devices : 1;
}

std::optional<std::string> pipelineProblem(const PlanContext& context, const mesh::Mesh& mesh,
                                           const Plan& plan) {
    if (plan.microbatches < 1)
        return "microbatches must be 1 or more, not " + std::to_string(plan.microbatches);
    if (context.batchGroup()) {
        const std::int64_t size = batchSize(context);
        if (plan.microbatches > size)
            return std::to_string(plan.microbatches) + " microbatches are more than the batch of " +
                   std::to_string(size);
    } else if (plan.microbatches > 1) {
        return "the model has no batch dimension to split into microbatches";
    }
    if (!plan.pipeline)
        return std::nullopt;
    const Pipeline& p = *plan.pipeline;
    if (p.axis < 0 || p.axis >= static_cast<int>(mesh.axes.size()))
        return "the pipeline's mesh axis " + std::to_string(p.axis) + " is not an axis of mesh " +
               mesh.toString();
    const auto& axis = mesh.axes[static_cast<std::size_t>(p.axis)];
    if (p.stages < 2 || axis.size % p.stages != 0)
        return "a pipeline on axis " + axis.name + " (size " + std::to_string(axis.size) +
               ") needs 2 or more stages dividing its size, not " + std::to_string(p.stages);
    if (mesh.axes.size() >= static_cast<std::size_t>(mesh::kMaxMeshAxes))
        return "a pipeline needs a mesh of fewer than " + std::to_string(mesh::kMaxMeshAxes) + " axes";
    if (p.virtualStages < 1)
        return "virtual stages must be 1 or more";
    if (p.schedule == PipelineSchedule::Interleaved) {
        if (p.virtualStages < 2)
            return "the interleaved schedule needs 2 or more virtual stages per device";
        if (plan.microbatches % p.stages != 0)
            return "the interleaved schedule needs microbatches (" + std::to_string(plan.microbatches) +
                   ") divisible by the stages (" + std::to_string(p.stages) + ")";
    } else if (p.virtualStages != 1) {
        return "virtual stages need the interleaved schedule, not " + std::string(toString(p.schedule));
    }
    const auto& layers = context.pipelineLayers();
    const std::size_t chunks = static_cast<std::size_t>(p.stages) * static_cast<std::size_t>(p.virtualStages);
    if (layers.empty())
        return "the model has no repeated layers to split into pipeline stages";
    if (chunks > layers.size())
        return std::to_string(chunks) +
               " pipeline chunks (stages × virtual stages) are more than the model's " +
               std::to_string(layers.size()) + " layers";
    if (!p.layersPerStage.empty()) {
        if (p.layersPerStage.size() != chunks)
            return "the layer split has " + std::to_string(p.layersPerStage.size()) +
                   " entries, not one per chunk (" + std::to_string(chunks) + ")";
        std::size_t sum = 0;
        for (int n : p.layersPerStage) {
            if (n < 1)
                return "the layer split leaves a chunk without layers";
            sum += static_cast<std::size_t>(n);
        }
        if (sum != layers.size())
            return "the layer split covers " + std::to_string(sum) + " layers, but the model has " +
                   std::to_string(layers.size());
    }
    return std::nullopt;
}

}  // namespace shardscope::plan
