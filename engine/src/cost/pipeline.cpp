// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "cost/pipeline.h"

#include "shardscope/cost/pipeline_schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

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

StagedEvaluator::StagedEvaluator(const CostModel& model, EvaluatorOptions options)
    : model_(&model), options_(options) {
    const ir::Graph& g = model.graph();
    const auto& blocks = model.planContext().blocks();
    const std::size_t n = g.body.size();
    microbatchAxis_ = static_cast<std::uint32_t>(model.mesh().axes.size());

    bodyIndexOf_.assign(g.ops.size(), -1);
    for (std::size_t i = 0; i < n; ++i)
        bodyIndexOf_[g.body[i].index] = static_cast<std::int32_t>(i);

    const auto layers = plan::pipelineLayers(blocks);
    layerCount_ = layers.size();
    std::vector<std::int32_t> layerOfBlock(blocks.blocks.size(), -1);
    for (std::size_t l = 0; l < layers.size(); ++l)
        layerOfBlock[static_cast<std::size_t>(layers[l])] = static_cast<std::int32_t>(l);

    const std::size_t backwardStart = g.backwardStart;
    phase_.assign(n, Phase::Forward);
    for (std::size_t i = backwardStart > 0 ? backwardStart : n; i < n; ++i) {
        phase_[i] = updatesOnce(model, i) ? Phase::Update : Phase::Backward;
    }

    // Anchors: a layer op's layer; a forward op outside the layers the last layer before it (-1 before the
    // first: the embedding goes with the first chunk, the head with the last); an argument its first user's;
    // a backward or update op outside the layers the largest anchor of what it reads (the gradients of the
    // head, the loss and their parameters go with the last chunk, the embedding's with the first). An op that
    // reads nothing anchored yet (an optimizer update's first step on a moment, m·β1) takes its users'
    // anchor, found in a second pass backwards, so a parameter's optimizer states go where its gradient does.
    anchor_.assign(n, -1);
    valueAnchor_.assign(g.values.size(), -1);
    lastUse_.assign(g.values.size(), -1);
    lastForwardUserAnchor_.assign(g.values.size(), -1);
    std::vector<char> anchored(g.values.size(), 0), pending(n, 0);
    std::vector<std::int32_t> firstUser(g.values.size(), -1);
    std::vector<std::vector<std::int32_t>> users(g.values.size());
    std::int32_t current = -1;
    for (std::size_t i = 0; i < n; ++i) {
        const ir::Op& op = g.op(g.body[i]);
        const std::int32_t block = i < blocks.blockOfOp.size() ? blocks.blockOfOp[i] : -1;
        const std::int32_t layer = block >= 0 ? layerOfBlock[static_cast<std::size_t>(block)] : -1;
        std::int32_t a = current;
        if (layer >= 0) {
            a = layer;
        } else if (phase_[i] != Phase::Forward) {
            std::int32_t best = -2;
            for (ValueId v : op.operands)
                if (anchored[v.index])
                    best = std::max(best, valueAnchor_[v.index]);
            pending[i] = best < -1;
            a = pending[i] ? current : best;
        }
        anchor_[i] = a;
        if (phase_[i] == Phase::Forward)
            current = std::max(current, a);
        for (ValueId v : op.operands) {
            lastUse_[v.index] = static_cast<std::int32_t>(i);
            users[v.index].push_back(static_cast<std::int32_t>(i));
            if (firstUser[v.index] < 0)
                firstUser[v.index] = static_cast<std::int32_t>(i);
            if (!anchored[v.index] && !g.value(v).producer.valid() && !pending[i]) {
                valueAnchor_[v.index] = a;  // an argument: where it is first used
                anchored[v.index] = 1;
            }
            if (phase_[i] == Phase::Forward)
                lastForwardUserAnchor_[v.index] = std::max(lastForwardUserAnchor_[v.index], a);
        }
        if (!pending[i])
            for (ValueId r : op.results) {
                valueAnchor_[r.index] = a;
                anchored[r.index] = 1;
            }
    }
    for (std::size_t k = n; k-- > 0;) {
        if (!pending[k])
            continue;
        std::int32_t best = -2;
        for (ValueId r : g.op(g.body[k]).results)
            for (std::int32_t u : users[r.index])
                best = std::max(best, anchor_[static_cast<std::size_t>(u)]);
        anchor_[k] = best >= -1 ? best : current;
        for (ValueId r : g.op(g.body[k]).results)
            valueAnchor_[r.index] = anchor_[k];
    }
    // An argument first read by such an op goes where that op went.
    for (std::size_t v = 0; v < g.values.size(); ++v)
        if (!anchored[v] && firstUser[v] >= 0 && !g.values[v].producer.valid())
            valueAnchor_[v] = anchor_[static_cast<std::size_t>(firstUser[v])];
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
                if (!last &&
                    (sum + more > hi * (1 + 1e-9) || std::abs(sum + more - share) >= std::abs(sum - share)))
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
    const Evaluation& microbatch =
        applied ? current_->evaluate(program.plan, std::move(*applied)) : current_->evaluate(program.plan);

    evaluation_ = microbatch;
    evaluation_.pipeline.emplace();
    PipelineEvaluation& result = *evaluation_.pipeline;
    result.pipeline = runnable ? plan.pipeline : std::nullopt;
    result.microbatches = microbatches;
    if (problem)
        result.problem = *problem;

    // The microbatch decision's sites are not the user's; a batch it could not split makes the plan
    // unrunnable.
    evaluation_.competitions.clear();
    for (const auto& site : microbatch.competitions) {
        if (site.decision < plan.decisions.size()) {
            evaluation_.competitions.push_back(site);
        } else if (site.reason == plan::CompetitionSite::Reason::NotDivisible && result.problem.empty()) {
            const auto& atom = context.space().atom(site.atom);
            result.problem = "the batch does not divide into " + std::to_string(microbatches) +
                             " microbatches on every device (a dimension of " + std::to_string(atom.size) +
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

    price(microbatch);
    if (!result.problem.empty())
        evaluation_.feasible = false;
    return evaluation_;
}

// Per top-level op of the microbatch's program: its kernel's time plus the wait before it on the compute
// stream (the communication it is exposed to), and its collectives' time, run once per step (gradient
// reductions, the update's) or per microbatch.
const StagedEvaluator::OpTimes& StagedEvaluator::opTimes(const Evaluation& mb) {
    const std::size_t n = model_->graph().body.size();
    OpTimes& t = times_;
    t.busy.assign(n, 0);
    t.compute.assign(n, 0);
    t.stepCollective.assign(n, 0);
    t.microbatchCollective.assign(n, 0);
    for (const Collective& c : mb.collectives) {
        const std::int32_t i =
            c.op.valid() && c.op.index < bodyIndexOf_.size() ? bodyIndexOf_[c.op.index] : -1;
        if (i < 0)
            continue;
        const bool once = runsOncePerStep(*microbatchModel_, c);
        (once ? t.stepCollective : t.microbatchCollective)[static_cast<std::size_t>(i)] += c.time;
    }
    double streamEnd = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (mb.opComputeTime[i] <= 0)
            continue;
        const double start = i < mb.opStart.size() ? mb.opStart[i] : streamEnd;
        t.compute[i] = mb.opComputeTime[i];
        // The microbatch's schedule does not wait for the step's gradient reductions (CostModel with
        // accumulated axes): a wait here is for the microbatch's own communication.
        t.busy[i] = t.compute[i] + std::max(0.0, start - streamEnd);
        streamEnd = start + t.compute[i];
    }
    return t;
}

// The layers of each chunk: the user's split, else balanced by each layer's forward and backward time (the
// embedding's counted with the first layer, the head's with the last).
std::vector<int> StagedEvaluator::layerSplit(const std::optional<plan::Pipeline>& pipeline, int chunks,
                                             const OpTimes& times) const {
    if (layerCount_ == 0)
        return {0};
    if (pipeline && !pipeline->layersPerStage.empty())
        return pipeline->layersPerStage;
    if (chunks == 1)
        return {static_cast<int>(layerCount_)};
    std::vector<double> layerCost(layerCount_, 0);
    for (std::size_t i = 0; i < phase_.size(); ++i)
        if (phase_[i] != Phase::Update)
            layerCost[static_cast<std::size_t>(std::max(anchor_[i], 0))] += times.busy[i];
    return split(layerCost, chunks);
}

// Each chunk's layers, per-microbatch forward and backward times, once-per-step sync and update, and each
// op's chunk; the pure compute and per-microbatch collectives per chunk into `compute` and `collectives`.
void StagedEvaluator::chunkTimes(const std::vector<int>& perChunk, int stages, const OpTimes& times,
                                 std::vector<double>& compute, std::vector<double>& collectives) {
    PipelineEvaluation& result = *evaluation_.pipeline;
    const auto chunks = perChunk.size();
    chunkOfLayer_.assign(std::max<std::size_t>(layerCount_, 1), 0);
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
    const std::size_t n = phase_.size();
    result.chunkOfOp.assign(n, 0);
    compute.assign(chunks, 0);
    collectives.assign(chunks, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<std::size_t>(chunkOf(anchor_[i]));
        result.chunkOfOp[i] = static_cast<std::int32_t>(c);
        auto& chunk = result.chunks[c];
        switch (phase_[i]) {
            case Phase::Forward:
                chunk.forwardTime += times.busy[i];
                compute[c] += times.compute[i];
                break;
            case Phase::Backward:
                chunk.backwardTime += times.busy[i];
                compute[c] += times.compute[i];
                break;
            case Phase::Update:
                chunk.updateTime += times.compute[i];
                break;
        }
        chunk.gradientSyncTime += times.stepCollective[i];
        collectives[c] += times.microbatchCollective[i];
    }
}

// The activations each chunk sends to the next per microbatch (at their local size; the gradients come back
// alike) and their time on the pipeline axis's link, and the activations it keeps for its backward, scaled to
// what the microbatch's memory walk holds when the backward starts (rematerialization keeps less than every
// value the backward reads). Returns that walk's figure.
double StagedEvaluator::transfersAndKeptActivations() {
    PipelineEvaluation& result = *evaluation_.pipeline;
    const ir::Graph& g = model_->graph();
    const auto& classes = model_->planContext().classes();
    const CostModel& microbatchModel = *microbatchModel_;
    const bool backward = g.backwardStart > 0;
    double keptRaw = 0;
    for (std::size_t i = 0; i < phase_.size(); ++i) {
        if (phase_[i] != Phase::Forward)
            continue;
        for (ValueId r : g.op(g.body[i]).results) {
            const double bytes = current_->localBytes(r);
            const int from = chunkOf(anchor_[i]);
            const int to = chunkOf(lastForwardUserAnchor_[r.index]);
            for (int c = from; c < to; ++c)
                result.chunks[static_cast<std::size_t>(c)].sendBytes += bytes;
            if (backward && lastUse_[r.index] >= static_cast<std::int32_t>(g.backwardStart) &&
                classes[r.index] == TensorClass::Activation && microbatchModel.takesMemory(r)) {
                result.chunks[static_cast<std::size_t>(from)].activationBytes += bytes;
                keptRaw += bytes;
            }
        }
    }
    const double keptWalk = backward ? current_->liveAt(g.backwardStart).activations : 0;
    const double keptScale = keptRaw > 0 ? std::min(1.0, keptWalk / keptRaw) : 0;
    const auto* link = result.pipeline
                           ? &model_->mesh().axes[static_cast<std::size_t>(result.pipeline->axis)].link
                           : nullptr;
    for (auto& chunk : result.chunks) {
        chunk.activationBytes *= keptScale;
        if (link && chunk.sendBytes > 0)
            chunk.sendTime = link->latency + chunk.sendBytes / (link->bandwidth > 0 ? link->bandwidth : 1e30);
    }
    result.chunks.back().sendBytes = 0;
    result.chunks.back().sendTime = 0;
    return keptWalk;
}

// The model states of each device position: a parameter or optimizer state where it is first used, a
// gradient where it is produced.
void StagedEvaluator::modelStates(int stages) {
    PipelineEvaluation& result = *evaluation_.pipeline;
    const ir::Graph& g = model_->graph();
    const auto& classes = model_->planContext().classes();
    result.stages.assign(static_cast<std::size_t>(stages), {});
    for (std::size_t v = 0; v < g.values.size(); ++v) {
        const TensorClass c = classes[v];
        const bool argument = !g.values[v].producer.valid();
        const bool state = (argument && (c == TensorClass::Parameter || c == TensorClass::OptimizerState) &&
                            lastUse_[v] >= 0) ||
                           c == TensorClass::Gradient;
        if (!state)
            continue;
        auto& states = result.stages[static_cast<std::size_t>(chunkOf(valueAnchor_[v]) % stages)].modelStates;
        const double bytes = current_->localBytes(ValueId{static_cast<std::uint32_t>(v)});
        (c == TensorClass::Parameter  ? states.parameters
         : c == TensorClass::Gradient ? states.gradients
                                      : states.optimizerState) += bytes;
    }
}

// Simulates the forward and backward work, then each device's once-per-step tail: each chunk's gradient
// reductions after its last backward (one communication stream per device), its update after them; fills the
// stages' times and memory. Returns the step's end, or a negative value when the schedule cannot run.
double StagedEvaluator::schedule(double workingSet) {
    PipelineEvaluation& result = *evaluation_.pipeline;
    const int p = static_cast<int>(result.stages.size());
    PipelineWork work;
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
    std::vector<double> lastWork(C, 0);
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
        std::vector<std::size_t> mine;
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

void StagedEvaluator::price(const Evaluation& mb) {
    PipelineEvaluation& result = *evaluation_.pipeline;
    const int p = result.pipeline ? result.pipeline->stages : 1;
    const int v = result.pipeline ? result.pipeline->virtualStages : 1;
    const int chunks = layerCount_ > 0 ? p * v : 1;
    const OpTimes& times = opTimes(mb);
    std::vector<double> compute, collectives;
    chunkTimes(layerSplit(result.pipeline, chunks, times), p, times, compute, collectives);
    const double kept = transfersAndKeptActivations();
    modelStates(p);
    // The microbatch's working set: what it holds at its peak besides model states, beyond the activations it
    // keeps for the backward (those are counted per microbatch in flight).
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
