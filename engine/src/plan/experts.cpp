// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/plan/experts.h"

#include <algorithm>
#include <optional>
#include <set>

namespace shardscope::plan {

using analysis::GroupId;
using analysis::NameId;

const std::vector<ExpertInfo>& expertPlans() {
    static const std::vector<ExpertInfo> list{
        {"dp",
         "data parallel: the batch over every device; parameters, gradients and optimizer states replicated"},
        {"zero1",
         "ZeRO-1: data parallel with optimizer states (and the update) sharded over the data devices"},
        {"zero2", "ZeRO-2: ZeRO-1 with gradients sharded too (reduce-scatter instead of all-reduce)"},
        {"zero3",
         "ZeRO-3 / FSDP: parameters, gradients and optimizer states all sharded; weights gathered per use"},
        {"megatron",
         "Megatron tensor parallelism: attention heads and the MLP hidden width over every device"},
        {"megatron-sp",
         "Megatron tensor parallelism plus sequence parallelism of the residual stream (Korthikanti et al.)"},
        {"dp-tp", "2-D: the batch over the data axes, Megatron tensor parallelism over the model axis"},
        {"fsdp-tp", "2-D: FSDP over the data axes, Megatron tensor parallelism over the model axis"},
        {"ep",
         "expert parallelism (GShard): the batch over every device, MoE experts over the expert (or every) "
         "axis"},
        {"pp",
         "pipeline parallelism: the layers in stages over the pipeline axis (1F1B, microbatches of one "
         "example); compose it, e.g. zero1@data+pp@pipe"},
        {"pp-interleaved",
         "pipeline parallelism with Megatron's interleaved 1F1B schedule, 2 chunks per device"},
        {"ptd-p",
         "PTD-P (Narayanan et al. 2021): Megatron tensor parallelism on the model axis, pipeline stages on "
         "the "
         "pipeline axis, data parallelism on the others"},
        {"fsdp-pp", "FSDP over the data axes with pipeline stages on the pipeline axis"},
    };
    return list;
}

namespace {

std::string lastComponent(const std::string& label) {
    const auto dot = label.rfind('.');
    std::string tail = dot == std::string::npos ? label : label.substr(dot + 1);
    const auto hash = tail.find('#');
    return hash == std::string::npos ? tail : tail.substr(0, hash);
}

// The input PlanContext::batchGroup falls back to: the largest with at least one dimension.
const ir::Argument* largestInput(const ir::Graph& graph) {
    const ir::Argument* largest = nullptr;
    for (const auto& a : graph.arguments)
        if (a.role == ir::ArgumentRole::Input && graph.type(a.value).rank() > 0 &&
            (!largest || graph.type(a.value).bytes() > graph.type(largest->value).bytes()))
            largest = &a;
    return largest;
}

bool isOneOf(const std::string& name, std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

class Builder {
public:
    Builder(const PlanContext& c, const mesh::Mesh& m) : c_(c), m_(m) {}

    std::vector<int> allAxes() const {
        std::vector<int> out;
        for (std::size_t i = 0; i < m_.axes.size(); ++i)
            out.push_back(static_cast<int>(i));
        return out;
    }
    int modelAxis() const {
        for (std::size_t i = 0; i < m_.axes.size(); ++i)
            if (isOneOf(m_.axes[i].name, {"model", "tensor", "tp", "mp"}))
                return static_cast<int>(i);
        return static_cast<int>(m_.axes.size()) - 1;
    }
    std::vector<int> dataAxes() const {
        std::vector<int> out;
        const int model = modelAxis();
        for (std::size_t i = 0; i < m_.axes.size(); ++i)
            if (static_cast<int>(i) != model)
                out.push_back(static_cast<int>(i));
        return out;
    }
    std::vector<int> expertAxes() const {
        for (std::size_t i = 0; i < m_.axes.size(); ++i)
            if (isOneOf(m_.axes[i].name, {"expert", "experts", "ep"}))
                return {static_cast<int>(i)};
        return allAxes();
    }

    // Groups whose label ends in one of `tails`, by bytes.
    std::vector<GroupId> groupsEnding(std::initializer_list<std::string_view> tails) const {
        std::vector<GroupId> out;
        const auto& space = c_.space();
        for (std::size_t g = 0; g < space.groups.size(); ++g)
            if (isOneOf(lastComponent(space.groups[g].label), tails))
                out.push_back(GroupId{static_cast<std::uint32_t>(g)});
        return out;
    }

    std::optional<GroupId> batch() const { return c_.batchGroup(); }

    void add(GroupId group, const std::vector<int>& axes, TensorClassMask tensors = kAllTensorClasses) {
        for (int axis : axes)
            plan_.decisions.push_back({Decision::Target::Group, group.index, axis, tensors});
    }

    // FSDP's parameter sharding: groups by the parameter bytes they reach, each added while it reaches a
    // parameter no earlier group reached.
    void shardParameters(const std::vector<int>& axes, TensorClassMask tensors,
                         const std::set<std::uint32_t>& skip) {
        const auto& space = c_.space();
        const auto& classes = c_.classes();
        std::vector<std::pair<double, std::uint32_t>> ranked;
        std::vector<std::vector<std::uint32_t>> reached(space.groups.size());
        std::int64_t devices = 1;
        for (int axis : axes)
            devices *= m_.axes[static_cast<std::size_t>(axis)].size;
        for (std::size_t g = 0; g < space.groups.size(); ++g) {
            if (skip.count(static_cast<std::uint32_t>(g)))
                continue;
            // A group the devices do not divide would shard nothing.
            if (space.groups[g].names.empty() ||
                space.name(space.groups[g].names.front()).size % devices != 0)
                continue;
            double bytes = 0;
            std::set<std::uint32_t> values;
            for (NameId n : space.groups[g].names)
                for (auto a : space.name(n).atoms) {
                    const auto v = space.atom(a).value;
                    if (classes[v.index] == TensorClass::Parameter && values.insert(v.index).second)
                        bytes += static_cast<double>(c_.graph().type(v).bytes());
                }
            reached[g].assign(values.begin(), values.end());
            if (bytes > 0)
                ranked.emplace_back(-bytes, static_cast<std::uint32_t>(g));
        }
        std::sort(ranked.begin(), ranked.end());
        std::set<std::uint32_t> covered;
        for (const auto& [negBytes, g] : ranked) {
            bool fresh = false;
            for (auto v : reached[g])
                fresh = fresh || !covered.count(v);
            if (!fresh)
                continue;
            covered.insert(reached[g].begin(), reached[g].end());
            add(GroupId{g}, axes, tensors);
        }
    }

    Plan take(std::string label) {
        plan_.label = std::move(label);
        return std::move(plan_);
    }

private:
    const PlanContext& c_;
    const mesh::Mesh& m_;
    Plan plan_;
};

}  // namespace

Plan withRemat(Plan plan, Remat policy, const LayerBlocks& blocks) {
    plan.remat.clear();
    if (policy != Remat::None)
        for (const auto& family : blocks.families)
            plan.remat.push_back({family, policy});
    return plan;
}

std::vector<std::string> rematVariants(std::string_view id, const PlanContext& context) {
    std::vector<std::string> out;
    if (context.graph().backwardStart == 0 || context.blocks().families.empty())
        return out;
    std::string base(id);
    if (base == "fsdp")
        base = "zero3";
    for (Remat policy : kRematFallbacks)
        out.push_back(base + "+" + std::string(toString(policy)));
    return out;
}

namespace {

Result<Plan> shardingExpert(std::string_view requested, const PlanContext& context, const mesh::Mesh& mesh,
                            const std::set<std::uint32_t>& decided);

bool isPipelineExpert(std::string_view id) {
    return id == "pp" || id == "pp-interleaved" || id == "ptd-p" || id == "fsdp-pp";
}

// The axis a pipeline takes: one named pipe, pipeline, pp or stage.
std::optional<int> pipelineAxis(const mesh::Mesh& mesh) {
    for (std::size_t i = 0; i < mesh.axes.size(); ++i)
        if (isOneOf(mesh.axes[i].name, {"pipe", "pipeline", "pp", "stage", "stages"}))
            return static_cast<int>(i);
    return std::nullopt;
}

std::string trimmed(std::string_view text) {
    while (!text.empty() && text.front() == ' ')
        text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ')
        text.remove_suffix(1);
    return std::string(text);
}

}  // namespace

Result<Plan> expertPlan(std::string_view requested, const PlanContext& context, const mesh::Mesh& mesh) {
    const std::string whole(requested);
    // The parts joined by '+': strategies (ID or ID@AXIS) and at most one remat policy.
    std::vector<std::string> parts;
    for (std::size_t start = 0; start <= requested.size();) {
        const auto plus = requested.find('+', start);
        const auto end = plus == std::string_view::npos ? requested.size() : plus;
        parts.push_back(trimmed(requested.substr(start, end - start)));
        start = end + 1;
    }
    std::optional<Remat> policy;
    Plan out;
    std::set<std::uint32_t>
        decided;  // groups earlier parts gave an axis: a later part shards parameters elsewhere
    std::vector<Diagnostic> warnings;
    std::size_t strategies = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::string& part = parts[i];
        if (part.empty())
            return makeError("plan.unknown-expert",
                             "expert plan '" + whole +
                                 "': an empty part (write ID, ID@AXIS or a remat policy, joined by '+')");
        const auto at = part.find('@');
        const bool strategy = i == 0 || at != std::string::npos ||
                              std::any_of(expertPlans().begin(), expertPlans().end(),
                                          [&](const ExpertInfo& e) { return e.id == part; }) ||
                              part == "fsdp";
        if (!strategy) {
            policy = parseRemat(part);
            if (!policy)
                return makeError("plan.unknown-remat", "expert plan '" + whole + "': unknown remat policy '" +
                                                           part +
                                                           "' (none, selective, full or dots-saveable)");
            continue;
        }
        ++strategies;
        mesh::Mesh scope = mesh;
        std::vector<int> axisOf;  // the axes of `scope` as indices into `mesh`
        if (at == std::string::npos) {
            for (std::size_t a = 0; a < mesh.axes.size(); ++a)
                axisOf.push_back(static_cast<int>(a));
        } else {
            const std::string axisName = trimmed(std::string_view(part).substr(at + 1));
            const auto axis = mesh.axisIndex(axisName);
            if (!axis)
                return makeError("plan.mesh-axes", "expert plan '" + whole + "': the mesh has no axis '" +
                                                       axisName + "' (it has " + mesh.toString() + ")");
            scope.axes = {mesh.axes[static_cast<std::size_t>(*axis)]};
            axisOf = {*axis};
        }
        const std::string id = trimmed(std::string_view(part).substr(0, at));
        if (isPipelineExpert(id)) {
            // The pipeline axis: the one written after '@' (pp, pp-interleaved), else the one named pipe.
            const std::optional<int> pipe =
                at == std::string::npos ? pipelineAxis(mesh) : std::optional<int>(axisOf.front());
            if (!pipe)
                return makeError("plan.mesh-axes", "expert plan '" + whole + "': '" + id +
                                                       "' needs a pipeline axis: name one pipe (e.g. "
                                                       "data=8,pipe=4,model=8) or write " +
                                                       id + "@AXIS");
            if (out.pipeline)
                return makeError("plan.pipeline", "expert plan '" + whole + "': more than one pipeline");
            if (id == "ptd-p" || id == "fsdp-pp") {
                // The inner strategy on the other axes.
                mesh::Mesh rest;
                axisOf.clear();
                for (std::size_t a = 0; a < mesh.axes.size(); ++a)
                    if (static_cast<int>(a) != *pipe) {
                        rest.axes.push_back(mesh.axes[a]);
                        axisOf.push_back(static_cast<int>(a));
                    }
                if (id == "ptd-p" && rest.axes.size() < 2)
                    return makeError(
                        "plan.mesh-axes",
                        "expert plan '" + whole +
                            "' needs a data, a pipeline and a model axis, e.g. data=8,pipe=4,model=8");
                if (rest.axes.empty())
                    return makeError("plan.mesh-axes", "expert plan '" + whole +
                                                           "' needs a data axis beside the pipeline axis");
                auto inner = shardingExpert(id == "ptd-p" ? "dp-tp" : "zero3", context, rest, decided);
                if (!inner)
                    return inner;
                for (const auto& d : inner.diagnostics())
                    if (std::find(warnings.begin(), warnings.end(), d) == warnings.end())
                        warnings.push_back(d);
                for (Decision decision : inner->decisions) {
                    decision.axis = axisOf[static_cast<std::size_t>(decision.axis)];
                    if (decision.target == Decision::Target::Group)
                        decided.insert(decision.index);
                    if (std::find(out.decisions.begin(), out.decisions.end(), decision) ==
                        out.decisions.end())
                        out.decisions.push_back(decision);
                }
                out.resolutions.insert(out.resolutions.end(), inner->resolutions.begin(),
                                       inner->resolutions.end());
            }
            Pipeline pipeline;
            pipeline.axis = *pipe;
            pipeline.stages = static_cast<int>(mesh.axes[static_cast<std::size_t>(*pipe)].size);
            if (id == "pp-interleaved") {
                pipeline.schedule = PipelineSchedule::Interleaved;
                pipeline.virtualStages = 2;
            }
            out.pipeline = pipeline;
            if (strategies == 1)
                out.label = id;
            continue;
        }
        auto plan = shardingExpert(id, context, scope, decided);
        if (!plan)
            return plan;
        for (const auto& d : plan.diagnostics())
            if (std::find(warnings.begin(), warnings.end(), d) == warnings.end())
                warnings.push_back(d);
        if (strategies == 1)
            out.label = plan->label;
        for (Decision decision : plan->decisions) {
            decision.axis = axisOf[static_cast<std::size_t>(decision.axis)];
            if (decision.target == Decision::Target::Group)
                decided.insert(decision.index);
            if (std::find(out.decisions.begin(), out.decisions.end(), decision) == out.decisions.end())
                out.decisions.push_back(decision);
        }
        out.resolutions.insert(out.resolutions.end(), plan->resolutions.begin(), plan->resolutions.end());
    }
    if (strategies > 1)
        out.label = whole;
    if (out.pipeline) {
        // Microbatches of one example per pipeline.
        out.microbatches =
            static_cast<int>(std::clamp<std::int64_t>(localBatch(context, mesh, out), 1, 1 << 20));
        // The interleaved schedule needs microbatches divisible by the stages: the nearest such count.
        const int stages = out.pipeline->stages;
        if (out.pipeline->schedule == PipelineSchedule::Interleaved && out.microbatches % stages != 0)
            out.microbatches = std::max(1, out.microbatches / stages) * stages;
        if (auto problem = pipelineProblem(context, mesh, out))
            return makeError("plan.pipeline", "expert plan '" + whole + "': " + *problem);
    }
    auto withWarnings = [&](Plan plan) {
        Result<Plan> result(std::move(plan));
        for (const auto& w : warnings)
            result.addDiagnostic(w);
        return result;
    };
    if (!policy || *policy == Remat::None)
        return withWarnings(std::move(out));
    if (context.graph().backwardStart == 0)
        return makeError("plan.remat-needs-training",
                         "expert plan '" + whole +
                             "' recomputes activations in the backward pass, and this graph has none (use a "
                             "training step: --train)");
    const LayerBlocks& blocks = context.blocks();
    if (blocks.families.empty())
        return makeError("plan.remat-no-blocks", "expert plan '" + whole +
                                                     "' recomputes blocks of layers, and this model has none "
                                                     "(no op name has an index, like layers.3)");
    const std::string label = out.label;
    out = withRemat(std::move(out), *policy, blocks);
    out.label = strategies > 1 ? whole : label + "+" + std::string(toString(*policy));
    return withWarnings(std::move(out));
}

namespace {

Result<Plan> shardingExpert(std::string_view requested, const PlanContext& context, const mesh::Mesh& mesh,
                            const std::set<std::uint32_t>& decided) {
    std::string id(requested);
    if (id == "fsdp")
        id = "zero3";
    const auto& list = expertPlans();
    if (std::none_of(list.begin(), list.end(), [&](const ExpertInfo& e) { return e.id == id; })) {
        std::string known;
        for (const auto& e : list)
            known += (known.empty() ? "" : ", ") + e.id;
        return makeError("plan.unknown-expert",
                         "unknown expert plan '" + std::string(requested) + "' (known: " + known + ", fsdp)");
    }
    if (mesh.axes.empty())
        return makeError("plan.empty-mesh", "expert plans need a mesh with at least one axis");
    Builder b(context, mesh);
    const auto batch = b.batch();
    const ir::Argument* input = batch ? nullptr : largestInput(context.graph());
    if (!batch && !input)
        return makeError(
            "plan.no-batch",
            "expert plan '" + id + "' needs a batch dimension, and this model has no input to take it from");
    const auto heads = b.groupsEnding({"heads", "kv_heads"});
    const auto hidden = b.groupsEnding({"d_ff"});
    const bool twoD = id == "dp-tp" || id == "fsdp-tp";
    if (twoD && mesh.axes.size() < 2)
        return makeError(
            "plan.mesh-axes",
            "expert plan '" + id + "' needs a mesh with a data and a model axis, e.g. data=8,model=4");
    const bool tensorParallel = id == "megatron" || id == "megatron-sp" || twoD;
    if (tensorParallel && heads.empty() && hidden.empty())
        return makeError("plan.no-hidden-names",
                         "expert plan '" + id +
                             "' needs names labelled heads or d_ff (attention heads, MLP hidden width); "
                             "this model has none: decide its names by hand");
    const std::vector<int> all = b.allAxes();
    const std::vector<int> tp = twoD ? std::vector<int>{b.modelAxis()} : all;
    const std::vector<int> data = twoD ? b.dataAxes() : all;
    std::set<std::uint32_t> skip = decided;
    if (batch)
        skip.insert(batch->index);
    if (id == "megatron" || id == "megatron-sp") {
        for (auto g : heads)
            b.add(g, tp);
        for (auto g : hidden)
            b.add(g, tp);
        if (id == "megatron-sp") {
            const auto seq = b.groupsEnding({"seq"});
            if (seq.empty())
                return makeError("plan.no-sequence", "expert plan 'megatron-sp' needs a name labelled seq");
            for (auto g : seq)
                b.add(g, tp);
        }
        return b.take(id);
    }
    // A model exported with a batch of one has no batch name: the plan is built without it, and says so.
    std::optional<Diagnostic> batchOfOne;
    if (batch) {
        b.add(*batch, data);
    } else {
        std::int64_t devices = 1;
        for (int axis : data)
            devices *= mesh.axes[static_cast<std::size_t>(axis)].size;
        batchOfOne = makeWarning("plan.batch-of-one",
                                 "expert plan '" + id + "': this model's batch has size 1 (input '" +
                                     input->name + "' is " + context.graph().type(input->value).toString() +
                                     "), so its " + std::to_string(devices) +
                                     " data-parallel devices all compute the same examples; "
                                     "export the model with a batch divisible by " +
                                     std::to_string(devices));
    }
    auto finish = [&](std::string label) {
        Result<Plan> plan = b.take(std::move(label));
        if (batchOfOne)
            plan.addDiagnostic(*batchOfOne);
        return plan;
    };
    if (id == "dp")
        return finish(id);
    if (id == "ep") {
        const auto experts = b.groupsEnding({"experts"});
        if (experts.empty())
            return makeError("plan.no-experts",
                             "expert plan 'ep' needs a mixture-of-experts model (names labelled experts)");
        for (auto g : experts)
            b.add(g, b.expertAxes());
        return finish(id);
    }
    if (twoD) {
        for (auto g : heads)
            b.add(g, tp), skip.insert(g.index);
        for (auto g : hidden)
            b.add(g, tp), skip.insert(g.index);
        if (id == "dp-tp")
            return finish(id);
    }
    TensorClassMask tensors = kAllTensorClasses;
    if (id == "zero1")
        tensors = maskOf(TensorClass::OptimizerState) | maskOf(TensorClass::OptimizerUpdate);
    if (id == "zero2")
        tensors = maskOf(TensorClass::OptimizerState) | maskOf(TensorClass::OptimizerUpdate) |
                  maskOf(TensorClass::Gradient);
    b.shardParameters(data, tensors, skip);
    return finish(id);
}

}  // namespace

}  // namespace shardscope::plan
