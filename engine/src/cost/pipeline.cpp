// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "cost/pipeline.h"

#include "shardscope/cost/pipeline_schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <tuple>

namespace shardscope::cost {

std::string_view toString(PipelineTask::Kind kind) {
    switch (kind) {
        case PipelineTask::Kind::Forward:
            return "forward";
        case PipelineTask::Kind::Backward:
            return "backward";
        case PipelineTask::Kind::GradientSync:
            return "gradient-sync";
        case PipelineTask::Kind::Update:
            return "update";
    }
    return "forward";
}

MicrobatchProgram microbatchProgram(const CostModel& model, const plan::Plan& plan) {
    const auto& context = model.planContext();
    MicrobatchProgram program;
    program.problem = plan::pipelineProblem(context, model.mesh(), plan);
    const bool runnable = !program.problem.has_value();
    const int axis = runnable && plan.pipeline ? plan.pipeline->axis : -1;
    const int stages = runnable && plan.pipeline ? plan.pipeline->stages : 1;
    const int microbatches = runnable ? plan.microbatches : 1;
    program.model = &model.microbatchModel(axis, stages, microbatches);
    program.plan = plan;
    program.plan.pipeline.reset();
    program.plan.microbatches = 1;
    const auto batch = context.batchGroup();
    if (microbatches > 1 && batch)
        program.plan.decisions.push_back(
            {plan::Decision::Target::Group, batch->index, static_cast<int>(model.mesh().axes.size())});
    return program;
}

plan::AppliedPlan appliedPlan(const CostModel& model, const plan::Plan& plan) {
    if (!staged(plan))
        return plan::applyPlan(model.planContext(), model.mesh(), plan);
    const MicrobatchProgram program = microbatchProgram(model, plan);
    return plan::applyPlan(program.model->planContext(), program.model->mesh(), program.plan);
}

namespace detail {

using ir::ValueId;
using plan::TensorClass;

namespace {

// `list` without mesh axis `axis`.
plan::AxisList without(const plan::AxisList& list, int axis) {
    plan::AxisList out;
    for (int i = 0; i < list.size(); ++i)
        if (list[i] != axis)
            out.push(list[i]);
    return out;
}

}  // namespace

StagedEvaluator::Anchors::Anchors(const CostModel& model) {
    const ir::Graph& g = model.graph();
    const auto& blocks = model.planContext().blocks();
    const std::size_t n = g.body.size();

    const auto& pipelineLayers = model.planContext().pipelineLayers();
    layers = pipelineLayers.size();
    std::vector<std::int32_t> layerOfBlock(blocks.blocks.size(), -1);
    for (std::size_t l = 0; l < pipelineLayers.size(); ++l)
        layerOfBlock[static_cast<std::size_t>(pipelineLayers[l])] = static_cast<std::int32_t>(l);

    const std::size_t backwardStart = g.backwardStart;
    phase.assign(n, Phase::Forward);
    for (std::size_t i = backwardStart > 0 ? backwardStart : n; i < n; ++i) {
        phase[i] = updatesOnce(model, i) ? Phase::Update : Phase::Backward;
    }

    // Anchors: a layer op's layer; a forward op outside the layers the last layer before it (-1 before the
    // first: the embedding goes with the first chunk, the head with the last); an argument its first user's;
    // a backward or update op outside the layers the largest anchor of what it reads (the gradients of the
    // head, the loss and their parameters go with the last chunk, the embedding's with the first). An op that
    // reads nothing anchored yet (an optimizer update's first step on a moment, m·β1) takes its users'
    // anchor, found in a second pass backwards, so a parameter's optimizer states go where its gradient does.
    op.assign(n, -1);
    value.assign(g.values.size(), -1);
    std::vector<char> anchored(g.values.size(), 0), pending(n, 0);
    std::vector<std::int32_t> firstUser(g.values.size(), -1);
    std::vector<std::vector<std::int32_t>> users(g.values.size());
    std::int32_t current = -1;
    for (std::size_t i = 0; i < n; ++i) {
        const ir::Op& o = g.op(g.body[i]);
        const std::int32_t block = i < blocks.blockOfOp.size() ? blocks.blockOfOp[i] : -1;
        const std::int32_t layer = block >= 0 ? layerOfBlock[static_cast<std::size_t>(block)] : -1;
        std::int32_t a = current;
        if (layer >= 0) {
            a = layer;
        } else if (phase[i] != Phase::Forward) {
            std::int32_t best = -2;
            for (ValueId v : o.operands)
                if (anchored[v.index])
                    best = std::max(best, value[v.index]);
            pending[i] = best < -1;
            a = pending[i] ? current : best;
        }
        op[i] = a;
        if (phase[i] == Phase::Forward)
            current = std::max(current, a);
        for (ValueId v : o.operands) {
            users[v.index].push_back(static_cast<std::int32_t>(i));
            if (firstUser[v.index] < 0)
                firstUser[v.index] = static_cast<std::int32_t>(i);
            if (!anchored[v.index] && !g.value(v).producer.valid() && !pending[i]) {
                value[v.index] = a;  // an argument: where it is first used
                anchored[v.index] = 1;
            }
        }
        if (!pending[i])
            for (ValueId r : o.results) {
                value[r.index] = a;
                anchored[r.index] = 1;
            }
    }
    for (std::size_t k = n; k-- > 0;) {
        if (!pending[k])
            continue;
        std::int32_t best = -2;
        for (ValueId r : g.op(g.body[k]).results)
            for (std::int32_t u : users[r.index])
                best = std::max(best, op[static_cast<std::size_t>(u)]);
        op[k] = best >= -1 ? best : current;
        for (ValueId r : g.op(g.body[k]).results)
            value[r.index] = op[k];
    }
    // An argument first read by such an op goes where that op went.
    for (std::size_t v = 0; v < g.values.size(); ++v)
        if (!anchored[v] && firstUser[v] >= 0 && !g.values[v].producer.valid())
            value[v] = op[static_cast<std::size_t>(firstUser[v])];
    findUses(g);
}

StagedEvaluator::Anchors::Anchors(const CostModel& copy, const Anchors& model,
                                  const analysis::ShallowGraph& shallow, const ir::Graph& full)
    : layers(model.layers) {
    const ir::Graph& g = copy.graph();
    const std::size_t n = g.body.size();
    phase.assign(n, Phase::Forward);
    for (std::size_t i = g.backwardStart > 0 ? g.backwardStart : n; i < n; ++i)
        phase[i] = updatesOnce(copy, i) ? Phase::Update : Phase::Backward;
    op.assign(n, -1);
    value.assign(g.values.size(), -1);
    for (std::size_t i = 0; i < n; ++i) {
        op[i] = model.op[shallow.fullBody[i]];
        for (ValueId r : g.op(g.body[i]).results)
            value[r.index] = op[i];
    }
    for (const auto& a : full.arguments)
        if (const ValueId v = shallow.valueStandsFor[a.value.index]; v.valid())
            value[v.index] = model.value[a.value.index];
    findUses(g);
}

void StagedEvaluator::Anchors::findUses(const ir::Graph& g) {
    const std::size_t n = g.body.size();
    bodyIndexOf.assign(g.ops.size(), -1);
    lastUse.assign(g.values.size(), -1);
    lastForwardUser.assign(g.values.size(), -1);
    for (std::size_t i = 0; i < n; ++i) {
        bodyIndexOf[g.body[i].index] = static_cast<std::int32_t>(i);
        for (ValueId v : g.op(g.body[i]).operands) {
            lastUse[v.index] = static_cast<std::int32_t>(i);
            if (phase[i] == Phase::Forward)
                lastForwardUser[v.index] = std::max(lastForwardUser[v.index], op[i]);
        }
    }
}

StagedEvaluator::StagedEvaluator(const CostModel& model, EvaluatorOptions options)
    : model_(&model), options_(options), anchors_(model) {
    microbatchAxis_ = static_cast<std::uint32_t>(model.mesh().axes.size());
    using enum EvaluatorOptions::LayerClasses;
    if (options_.layerClasses != Off) {
        const CostModel::ShallowCopies* copies = model.shallowCopies();
        if (copies && (options_.layerClasses == Always || copies->pays))
            copyLayers_ = lineUp(model, anchors_, *copies);
        if (!copyLayers_)
            options_.layerClasses = Off;
    }
}
StagedEvaluator::~StagedEvaluator() = default;

// Where the copies' layers are in the model's: the buckets of the layer ops the first copy leaves out are
// one run of whole periods, and those the second keeps of them one period at a period's boundary. Null when
// they are not so.
std::unique_ptr<StagedEvaluator::CopyLayers> StagedEvaluator::lineUp(const CostModel& model,
                                                                     const Anchors& anchors,
                                                                     const CostModel::ShallowCopies& copies) {
    auto out = std::make_unique<CopyLayers>();
    out->periods = copies.periods;
    for (const auto& c : copies.copies)
        out->anchors.emplace_back(*c.model, anchors, c.shallow, model.graph());
    const auto& blocks = model.planContext().blocks();
    const auto& layers = model.planContext().pipelineLayers();
    std::vector<char> layerBlock(blocks.blocks.size(), 0);
    for (const auto l : layers)
        layerBlock[static_cast<std::size_t>(l)] = 1;
    const std::size_t n = anchors.op.size(), buckets = anchors.layers + 1;
    std::vector<char> kept1(n, 0), kept2(n, 0);
    for (std::uint32_t i : copies.copies[0].shallow.fullBody)
        kept1[i] = 1;
    for (std::uint32_t i : copies.copies[1].shallow.fullBody)
        kept2[i] = 1;
    // Per bucket: whether the first copy leaves out layer ops there, and whether the second keeps them all.
    std::vector<char> gap(buckets, 0), kept(buckets, 0), leftOut(buckets, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const std::int32_t block = i < blocks.blockOfOp.size() ? blocks.blockOfOp[i] : -1;
        if (block < 0 || !layerBlock[static_cast<std::size_t>(block)] || kept1[i])
            continue;
        const auto b = static_cast<std::size_t>(anchors.op[i]) + 1;
        gap[b] = 1;
        (kept2[i] ? kept : leftOut)[b] = 1;
    }
    const auto run = [&](const std::vector<char>& in) -> std::pair<std::size_t, std::size_t> {
        const auto begin = static_cast<std::size_t>(std::find(in.begin(), in.end(), 1) - in.begin());
        std::size_t end = begin;
        while (end < in.size() && in[end])
            ++end;
        if (begin == in.size() ||
            std::find(in.begin() + static_cast<std::ptrdiff_t>(end), in.end(), 1) != in.end())
            return {0, 0};
        return {begin, end};
    };
    std::tie(out->gapBegin, out->gapEnd) = run(gap);
    const auto [k0, k1] = run(kept);
    out->kept = k0;
    out->period = k1 - k0;
    for (std::size_t b = 0; b < buckets; ++b)
        if (kept[b] && leftOut[b])
            return nullptr;  // the second copy keeps part of a layer
    if (out->period == 0 || out->gapBegin == out->gapEnd || k0 < out->gapBegin || k1 > out->gapEnd ||
        (k0 - out->gapBegin) % out->period != 0 ||
        static_cast<double>(out->gapEnd - out->gapBegin) != out->periods * static_cast<double>(out->period))
        return nullptr;
    return out;
}

// The smallest largest chunk: contiguous chunks of at least one layer each, found by bisection on the bound
// with a greedy fill (a chunk takes layers while it stays under the bound and leaves one for each later
// chunk).
std::vector<int> StagedEvaluator::split(const std::vector<double>& layerCost, int chunks) const {
    const int layers = static_cast<int>(layerCost.size());
    auto fill = [&](double bound, std::vector<int>* out) {
        int next = 0;
        for (int c = 0; c < chunks; ++c) {
            const int left = chunks - c - 1;
            double sum = layerCost[static_cast<std::size_t>(next)];
            int taken = 1;
            if (c == chunks - 1) {
                for (int l = next + 1; l < layers; ++l)
                    sum += layerCost[static_cast<std::size_t>(l)];
                taken = layers - next;
            } else {
                while (next + taken < layers - left &&
                       sum + layerCost[static_cast<std::size_t>(next) + static_cast<std::size_t>(taken)] <=
                           bound) {
                    sum += layerCost[static_cast<std::size_t>(next) + static_cast<std::size_t>(taken)];
                    ++taken;
                }
            }
            if (sum > bound)
                return false;
            if (out)
                out->push_back(taken);
            next += taken;
        }
        return true;
    };
    double lo = 0, hi = 0;
    for (double c : layerCost) {
        lo = std::max(lo, c);
        hi += c;
    }
    for (int i = 0; i < 60 && hi - lo > 1e-12 * std::max(1.0, hi); ++i) {
        const double mid = (lo + hi) / 2;
        if (fill(mid, nullptr))
            hi = mid;
        else
            lo = mid;
    }
    // Among the splits within that bound, one that levels the chunks: each takes layers while that brings it
    // closer to an equal share of what is left (the greedy fill above front-loads).
    std::vector<int> out;
    {
        double left = std::accumulate(layerCost.begin(), layerCost.end(), 0.0);
        int next = 0;
        bool within = true;
        for (int c = 0; c < chunks && within; ++c) {
            const int chunksLeft = chunks - c - 1;
            const double share = left / (chunksLeft + 1);
            double sum = layerCost[static_cast<std::size_t>(next)];
            int taken = 1;
            while (next + taken < layers - chunksLeft) {
                const double more =
                    layerCost[static_cast<std::size_t>(next) + static_cast<std::size_t>(taken)];
                const bool last = c == chunks - 1;
                // (A tie, as alike layers make, within rounding: the chunk stops.)
                if (!last && (sum + more > hi * (1 + 1e-9) ||
                              std::abs(sum + more - share) >= std::abs(sum - share) - 1e-9 * share))
                    break;
                sum += more;
                ++taken;
            }
            within = sum <= hi * (1 + 1e-9);
            out.push_back(taken);
            next += taken;
            left -= sum;
        }
        if (!within || next != layers)
            out.clear();
    }
    if (out.empty() && (!fill(hi, &out) || static_cast<int>(out.size()) != chunks)) {
        // Equal counts (costs all zero, or rounding): as many layers per chunk as can be.
        out.assign(static_cast<std::size_t>(chunks), layers / chunks);
        for (int c = 0; c < layers % chunks; ++c)
            ++out[static_cast<std::size_t>(c)];
    }
    return out;
}

const Evaluation& StagedEvaluator::evaluate(const plan::Plan& plan,
                                            std::optional<plan::AppliedPlan> applied) {
    const auto& context = model_->planContext();
    const MicrobatchProgram program = microbatchProgram(*model_, plan);
    const auto& problem = program.problem;
    const bool runnable = !problem.has_value();
    const int microbatches = runnable ? plan.microbatches : 1;
    microbatchModel_ = program.model;
    auto& evaluator = evaluators_[program.model];
    if (!evaluator)
        evaluator = std::make_unique<Evaluator>(*program.model, options_);
    current_ = evaluator.get();
    const Evaluation* priced =
        applied ? &current_->evaluate(program.plan, std::move(*applied)) : &current_->evaluate(program.plan);
    // From layer classes: the copies' work per layer stands for the model's, or the plan is evaluated in
    // full.
    std::array<LayerClassCopy, 2> copies;
    LayerWork& work = work_[0];
    if (priced->fromLayerClasses) {
        copies = {layerClassCopy(*current_, 0), layerClassCopy(*current_, 1)};
        for (std::size_t k = 0; k < 2; ++k)
            collect(copyLayers_->anchors[k], *copies[k].model, *copies[k].evaluator, *copies[k].evaluation,
                    work_[k + 1]);
        if (!extrapolate(work_[1], work_[2], work)) {
            auto& full = fullEvaluators_[program.model];
            if (!full)
                full = std::make_unique<Evaluator>(
                    *program.model, EvaluatorOptions{.shareOpClasses = options_.shareOpClasses});
            current_ = full.get();
            priced = &current_->evaluate(program.plan);
            copies = {};
        }
    }
    const Evaluation& microbatch = *priced;
    if (!microbatch.fromLayerClasses)
        collect(anchors_, *microbatchModel_, *current_, microbatch, work);

    evaluation_ = microbatch;
    evaluation_.pipeline.emplace();
    PipelineEvaluation& result = *evaluation_.pipeline;
    result.pipeline = runnable ? plan.pipeline : std::nullopt;
    result.microbatches = microbatches;
    if (problem)
        result.problem = *problem;

    // The microbatch decision's sites are not the user's; a batch it could not split makes the plan
    // unrunnable. (From layer classes, the first copy's sites say so; the user's are not kept.)
    const Evaluation& sites = copies[0].evaluation ? *copies[0].evaluation : microbatch;
    const auto& space = copies[0].model ? copies[0].model->planContext().space() : context.space();
    evaluation_.competitions.clear();
    for (const auto& site : sites.competitions) {
        if (site.decision < plan.decisions.size()) {
            if (!microbatch.fromLayerClasses)
                evaluation_.competitions.push_back(site);
        } else if (site.reason == plan::CompetitionSite::Reason::NotDivisible && result.problem.empty()) {
            result.problem = "the batch does not divide into " + std::to_string(microbatches) +
                             " microbatches on every device (a dimension of " +
                             std::to_string(space.atom(site.atom).size) +
                             " is split over the other axes already)";
        }
    }
    // Collectives over the microbatch axis alone move nothing; the axis is left out of the others.
    const std::uint32_t micro = std::uint32_t{1} << microbatchAxis_;
    std::size_t kept = 0;
    for (std::size_t j = 0; j < evaluation_.collectives.size(); ++j) {
        Collective c = evaluation_.collectives[j];
        c.axes &= ~micro;
        if (c.axes == 0)
            continue;
        evaluation_.collectives[kept] = c;
        evaluation_.collectiveStart[kept] = evaluation_.collectiveStart[j];
        evaluation_.collectiveEnd[kept] = evaluation_.collectiveEnd[j];
        ++kept;
    }
    evaluation_.collectives.resize(kept);
    evaluation_.collectiveStart.resize(kept);
    evaluation_.collectiveEnd.resize(kept);

    price(microbatch, work);
    // Each op's chunk (the explorer's pipeline chart); from layer classes there are no per-op figures.
    result.chunkOfOp.clear();
    if (!microbatch.fromLayerClasses && chunkOfLayer_.size() >= anchors_.layers)
        for (std::int32_t a : anchors_.op)
            result.chunkOfOp.push_back(chunkOf(static_cast<std::size_t>(a) + 1));
    if (!result.problem.empty())
        evaluation_.feasible = false;
    return evaluation_;
}

// One microbatch's work per bucket, from its program's evaluation on `microbatchModel`: the model's, or a
// shallow copy's, whose anchors put its work in the model's layers.
void StagedEvaluator::collect(const Anchors& anchors, const CostModel& microbatchModel,
                              const Evaluator& evaluator, const Evaluation& mb, LayerWork& w) const {
    const ir::Graph& g = microbatchModel.graph();
    const auto& classes = microbatchModel.planContext().classes();
    const std::size_t n = g.body.size(), buckets = anchors.layers + 1;
    for (auto field : kPerLayer)
        (w.*field).assign(buckets, 0);
    const auto bucket = [](std::int32_t anchor) { return static_cast<std::size_t>(anchor) + 1; };
    for (const Collective& c : mb.collectives) {
        const std::int32_t i =
            c.op.valid() && c.op.index < anchors.bodyIndexOf.size() ? anchors.bodyIndexOf[c.op.index] : -1;
        if (i < 0)
            continue;
        const bool once = runsOncePerStep(microbatchModel, c);
        (once ? w.stepCollectives
              : w.microbatchCollectives)[bucket(anchors.op[static_cast<std::size_t>(i)])] += c.time;
    }
    // A kernel's time plus the wait before it on the compute stream. (The microbatch's schedule does not wait
    // for the step's gradient reductions, CostModel with accumulated axes: a wait here is for the
    // microbatch's own communication.)
    double streamEnd = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (mb.opComputeTime[i] <= 0)
            continue;
        const double start = i < mb.opStart.size() ? mb.opStart[i] : streamEnd;
        const double compute = mb.opComputeTime[i];
        const double busy = compute + std::max(0.0, start - streamEnd);
        streamEnd = start + compute;
        const std::size_t b = bucket(anchors.op[i]);
        switch (anchors.phase[i]) {
            case Phase::Forward:
                w.forward[b] += busy;
                w.compute[b] += compute;
                break;
            case Phase::Backward:
                w.backward[b] += busy;
                w.compute[b] += compute;
                break;
            case Phase::Update:
                w.update[b] += compute;
                break;
        }
    }
    // A forward value crosses every boundary from its op's bucket to its last forward user's; it is kept for
    // the backward when the backward reads it.
    const bool backward = g.backwardStart > 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (anchors.phase[i] != Phase::Forward)
            continue;
        const std::size_t from = bucket(anchors.op[i]);
        for (ValueId r : g.op(g.body[i]).results) {
            const double bytes = evaluator.localBytes(r);
            for (std::size_t b = from; b < bucket(anchors.lastForwardUser[r.index]); ++b)
                w.crossing[b] += bytes;
            if (backward && anchors.lastUse[r.index] >= static_cast<std::int32_t>(g.backwardStart) &&
                classes[r.index] == TensorClass::Activation && microbatchModel.takesMemory(r))
                w.kept[from] += bytes;
        }
    }
    w.keptWalk = backward ? evaluator.liveAt(g.backwardStart).activations : 0;
    // Model states: a parameter or optimizer state where it is first used, a gradient where it is produced.
    for (std::size_t v = 0; v < g.values.size(); ++v) {
        const TensorClass c = classes[v];
        const bool argument = !g.values[v].producer.valid();
        const bool state = (argument && (c == TensorClass::Parameter || c == TensorClass::OptimizerState) &&
                            anchors.lastUse[v] >= 0) ||
                           c == TensorClass::Gradient;
        if (!state)
            continue;
        const double bytes = evaluator.localBytes(ValueId{static_cast<std::uint32_t>(v)});
        (c == TensorClass::Parameter  ? w.parameters
         : c == TensorClass::Gradient ? w.gradients
                                      : w.optimizerState)[bucket(anchors.value[v])] += bytes;
    }
}

// The model's work from the copies' (summed into the model's buckets): outside the gap the first's plus
// `periods` times what the second adds (the figures of the step extrapolate so); in the gap the first's (an
// op it keeps may be anchored there by what it reads) plus what the second adds at the same place in the
// period it keeps. False when the second adds work in the gap outside that period: the plan is then
// evaluated in full.
bool StagedEvaluator::extrapolate(const LayerWork& a, const LayerWork& b, LayerWork& w) const {
    const CopyLayers& lines = *copyLayers_;
    const double n = lines.periods;
    const std::size_t buckets = anchors_.layers + 1;
    for (auto field : kPerLayer) {
        const auto& x = a.*field;
        const auto& y = b.*field;
        auto& out = w.*field;
        out.assign(buckets, 0);
        for (std::size_t f = 0; f < buckets; ++f) {
            if (f < lines.gapBegin || f >= lines.gapEnd) {
                out[f] = x[f] + n * (y[f] - x[f]);
                continue;
            }
            const bool inKept = f >= lines.kept && f < lines.kept + lines.period;
            if (!inKept && y[f] != x[f])
                return false;
            const std::size_t at = lines.kept + (f - lines.gapBegin) % lines.period;
            out[f] = x[f] + (y[at] - x[at]);
        }
    }
    w.keptWalk = a.keptWalk + n * (b.keptWalk - a.keptWalk);
    return true;
}

// The layers of each chunk: the user's split, else balanced by each layer's forward and backward time (the
// embedding's counted with the first layer, the head's with the last).
std::vector<int> StagedEvaluator::layerSplit(const std::optional<plan::Pipeline>& pipeline, int chunks,
                                             const LayerWork& work) const {
    const std::size_t layers = anchors_.layers;
    if (layers == 0)
        return {0};
    if (pipeline && !pipeline->layersPerStage.empty())
        return pipeline->layersPerStage;
    if (chunks == 1)
        return {static_cast<int>(layers)};
    std::vector<double> layerCost(layers, 0);
    for (std::size_t b = 0; b <= layers; ++b)
        layerCost[b == 0 ? 0 : b - 1] += work.forward[b] + work.backward[b];
    return split(layerCost, chunks);
}

// Each chunk's layers, per-microbatch forward and backward times, once-per-step sync and update; the pure
// compute and per-microbatch collectives per chunk into `compute` and `collectives`. The activations each
// chunk sends to the next per microbatch (at their local size; the gradients come back alike) and their
// time on the pipeline axis's link, and the activations it keeps for its backward, scaled to what the
// microbatch's memory walk holds when the backward starts (rematerialization keeps less than every value
// the backward reads).
void StagedEvaluator::chunkTimes(const std::vector<int>& perChunk, int stages, const LayerWork& work,
                                 std::vector<double>& compute, std::vector<double>& collectives) {
    PipelineEvaluation& result = *evaluation_.pipeline;
    const auto chunks = perChunk.size();
    const std::size_t layers = anchors_.layers;
    chunkOfLayer_.assign(std::max<std::size_t>(layers, 1), 0);
    result.chunks.assign(chunks, {});
    int layer = 0;
    for (std::size_t c = 0; c < chunks; ++c) {
        auto& chunk = result.chunks[c];
        chunk.device = static_cast<int>(c) % stages;
        chunk.firstLayer = layer;
        chunk.layers = perChunk[c];
        for (int l = 0; l < chunk.layers && layer < static_cast<int>(chunkOfLayer_.size()); ++l)
            chunkOfLayer_[static_cast<std::size_t>(layer++)] = static_cast<std::int32_t>(c);
    }
    compute.assign(chunks, 0);
    collectives.assign(chunks, 0);
    double keptRaw = 0;
    for (std::size_t b = 0; b <= layers; ++b)
        keptRaw += work.kept[b];
    const double keptScale = keptRaw > 0 ? std::min(1.0, work.keptWalk / keptRaw) : 0;
    for (std::size_t b = 0; b <= layers; ++b) {
        const auto c = static_cast<std::size_t>(chunkOf(b));
        auto& chunk = result.chunks[c];
        chunk.forwardTime += work.forward[b];
        chunk.backwardTime += work.backward[b];
        chunk.updateTime += work.update[b];
        chunk.gradientSyncTime += work.stepCollectives[b];
        chunk.activationBytes += work.kept[b];
        compute[c] += work.compute[b];
        collectives[c] += work.microbatchCollectives[b];
    }
    const auto* link = result.pipeline
                           ? &model_->mesh().axes[static_cast<std::size_t>(result.pipeline->axis)].link
                           : nullptr;
    for (std::size_t c = 0; c + 1 < chunks; ++c) {
        auto& chunk = result.chunks[c];
        const auto last = static_cast<std::size_t>(chunk.firstLayer) + static_cast<std::size_t>(chunk.layers);
        chunk.sendBytes = last < work.crossing.size() ? work.crossing[last] : 0;
        if (link && chunk.sendBytes > 0)
            chunk.sendTime = link->latency + chunk.sendBytes / (link->bandwidth > 0 ? link->bandwidth : 1e30);
    }
    for (auto& chunk : result.chunks)
        chunk.activationBytes *= keptScale;
}

// The model states of each device position.
void StagedEvaluator::modelStates(int stages, const LayerWork& work) {
    PipelineEvaluation& result = *evaluation_.pipeline;
    result.stages.assign(static_cast<std::size_t>(stages), {});
    for (std::size_t b = 0; b < work.parameters.size(); ++b) {
        auto& states = result.stages[static_cast<std::size_t>(chunkOf(b) % stages)].modelStates;
        states.parameters += work.parameters[b];
        states.gradients += work.gradients[b];
        states.optimizerState += work.optimizerState[b];
    }
}

// Simulates the forward and backward work, then each device's once-per-step tail: each chunk's gradient
// reductions after its last backward (one communication stream per device), its update after them; fills the
// stages' times and memory. Returns the step's end, or a negative value when the schedule cannot run.
double StagedEvaluator::schedule(double workingSet) {
    PipelineEvaluation& result = *evaluation_.pipeline;
    const int p = static_cast<int>(result.stages.size());
    PipelineWork& work = pipelineWork_;
    work.forward.clear();
    work.backwardTime.clear();
    work.send.clear();
    work.activationBytes.clear();
    work.schedule = result.pipeline ? result.pipeline->schedule : plan::PipelineSchedule::OneFOneB;
    work.stages = p;
    work.virtualStages = static_cast<int>(result.chunks.size()) / p;
    work.microbatches = result.microbatches;
    work.backward = model_->graph().backwardStart > 0;
    for (const auto& chunk : result.chunks) {
        work.forward.push_back(chunk.forwardTime);
        work.backwardTime.push_back(chunk.backwardTime);
        work.send.push_back(chunk.sendTime);
        work.activationBytes.push_back(chunk.activationBytes);
    }
    auto run = simulatePipeline(work);
    if (!run) {  // not reachable: the plan was checked and the times are sums of non-negative ones
        result.problem = run.diagnostics().front().message;
        return -1;
    }
    result.tasks = std::move(run->tasks);
    result.bubbleFraction = run->bubbleFraction;
    const std::size_t C = result.chunks.size();
    std::vector<double>& lastWork = lastWork_;
    lastWork.assign(C, 0);
    for (const auto& task : result.tasks)
        lastWork[static_cast<std::size_t>(task.chunk)] =
            std::max(lastWork[static_cast<std::size_t>(task.chunk)], task.end);
    double stepEnd = 0;
    for (int d = 0; d < p; ++d) {
        const auto di = static_cast<std::size_t>(d);
        auto& stage = result.stages[di];
        stage.busyTime = run->busy[di];
        stage.inFlight = run->inFlight[di];
        stage.atPeak.parameters = stage.modelStates.parameters;
        stage.atPeak.gradients = stage.modelStates.gradients;
        stage.atPeak.optimizerState = stage.modelStates.optimizerState;
        stage.atPeak.activations = run->peakActivationBytes[di];
        stage.atPeak.temporaries = workingSet;
        stage.peakMemory = stage.atPeak.total();
        std::vector<std::size_t>& mine = deviceChunks_;
        mine.clear();
        for (std::size_t c = di; c < C; c += static_cast<std::size_t>(p))
            mine.push_back(c);
        std::stable_sort(mine.begin(), mine.end(),
                         [&](std::size_t a, std::size_t b) { return lastWork[a] < lastWork[b]; });
        double commFree = 0, computeFree = run->end[di];
        for (std::size_t c : mine) {
            const auto& chunk = result.chunks[c];
            double ready = lastWork[c];
            if (chunk.gradientSyncTime > 0) {
                const double start = std::max(ready, commFree);
                commFree = start + chunk.gradientSyncTime;
                result.tasks.push_back(
                    {PipelineTask::Kind::GradientSync, d, static_cast<int>(c), -1, start, commFree});
                ready = commFree;
            }
            if (chunk.updateTime > 0) {
                const double start = std::max(ready, computeFree);
                computeFree = start + chunk.updateTime;
                result.tasks.push_back(
                    {PipelineTask::Kind::Update, d, static_cast<int>(c), -1, start, computeFree});
            }
        }
        stage.end = std::max({run->end[di], commFree, computeFree});
        stepEnd = std::max(stepEnd, stage.end);
    }
    std::stable_sort(result.tasks.begin(), result.tasks.end(),
                     [](const PipelineTask& a, const PipelineTask& b) {
                         return a.device != b.device ? a.device < b.device : a.start < b.start;
                     });
    return stepEnd;
}

void StagedEvaluator::price(const Evaluation& mb, const LayerWork& work) {
    PipelineEvaluation& result = *evaluation_.pipeline;
    const int p = result.pipeline ? result.pipeline->stages : 1;
    const int v = result.pipeline ? result.pipeline->virtualStages : 1;
    const int chunks = anchors_.layers > 0 ? p * v : 1;
    std::vector<double> compute, collectives;
    chunkTimes(layerSplit(result.pipeline, chunks, work), p, work, compute, collectives);
    modelStates(p, work);
    // The microbatch's working set: what it holds at its peak besides model states, beyond the activations it
    // keeps for the backward (those are counted per microbatch in flight).
    const double kept = work.keptWalk;
    const double workingSet =
        std::max(0.0, mb.atPeak.activations + mb.atPeak.temporaries - std::min(kept, mb.atPeak.activations));
    const double stepEnd = schedule(workingSet);
    if (stepEnd < 0)
        return;
    result.microbatchTime = mb.stepTime;

    // The step as a whole: the busiest device's compute and communication, the makespan, the largest peak.
    std::size_t busiest = 0, fullest = 0;
    for (std::size_t d = 1; d < result.stages.size(); ++d) {
        if (result.stages[d].busyTime > result.stages[busiest].busyTime)
            busiest = d;
        if (result.stages[d].peakMemory > result.stages[fullest].peakMemory)
            fullest = d;
    }
    const auto m = static_cast<double>(result.microbatches);
    const bool backward = model_->graph().backwardStart > 0;
    double computeTime = 0, collectiveTime = 0;
    for (std::size_t c = busiest; c < result.chunks.size(); c += static_cast<std::size_t>(p)) {
        const auto& chunk = result.chunks[c];
        computeTime += m * compute[c] + chunk.updateTime;
        // Per microbatch it sends its output forward and, in the backward, its input's gradient back.
        collectiveTime += m * collectives[c] + chunk.gradientSyncTime +
                          m * (chunk.sendTime + (backward && c > 0 ? result.chunks[c - 1].sendTime : 0));
    }
    evaluation_.computeTime = computeTime;
    evaluation_.collectiveTime = collectiveTime;
    evaluation_.stepTime = stepEnd;
    const auto& worst = result.stages[fullest];
    evaluation_.peakMemory = worst.peakMemory;
    evaluation_.atPeak = worst.atPeak;
    evaluation_.modelStates = worst.modelStates;
    evaluation_.feasible = worst.peakMemory <= evaluation_.capacity;
}

plan::TensorSharding StagedEvaluator::sharding(ValueId value) const {
    plan::TensorSharding s = current_->sharding(value);
    for (auto& d : s.dimensions)
        d = without(d, static_cast<int>(microbatchAxis_));
    return s;
}

const OpExecution& StagedEvaluator::execution(std::size_t opIndex) const {
    execution_ = current_->execution(opIndex);
    for (auto& f : execution_.factorAxes)
        f = without(f, static_cast<int>(microbatchAxis_));
    return execution_;
}

double StagedEvaluator::localBytes(ValueId value) const {
    return current_->localBytes(value);
}

MemoryBreakdown StagedEvaluator::liveAt(std::size_t opIndex) const {
    return current_->liveAt(opIndex);
}

std::size_t StagedEvaluator::opsRecosted() const {
    return current_->opsRecosted();
}

std::size_t StagedEvaluator::opsPriced() const {
    return current_->opsPriced();
}
std::size_t StagedEvaluator::kernelsPriced() const {
    return current_->kernelsPriced();
}

}  // namespace detail
}  // namespace shardscope::cost
