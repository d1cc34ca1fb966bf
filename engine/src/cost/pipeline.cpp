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
    const bool runnable = !plan::pipelineProblem(context, model.mesh(), plan).has_value();
    const int axis = runnable && plan.pipeline ? plan.pipeline->axis : -1;
    const int stages = runnable && plan.pipeline ? plan.pipeline->stages : 1;
    const int microbatches = runnable ? plan.microbatches : 1;
    MicrobatchProgram program;
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

StagedEvaluator::StagedEvaluator(const CostModel& model) : model_(&model) {
    const ir::Graph& g = model.graph();
    const auto& classes = model.planContext().classes();
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
        const ir::Op& op = g.op(g.body[i]);
        bool update = !op.results.empty();
        for (ValueId r : op.results) {
            const TensorClass c = classes[r.index];
            update = update && (c == TensorClass::OptimizerUpdate || c == TensorClass::OptimizerState ||
                                c == TensorClass::Parameter);
        }
        phase_[i] = update ? Phase::Update : Phase::Backward;
    }

    // Anchors: a layer op's layer; a forward op outside the layers the last layer before it (-1 before the
    // first: the embedding goes with the first chunk, the head with the last); an argument its first forward
    // user's; a backward or update op outside the layers the largest anchor of what it reads (the gradients
    // of the head, the loss and their parameters go with the last chunk, the embedding's with the first).
    anchor_.assign(n, -1);
    valueAnchor_.assign(g.values.size(), -1);
    lastUse_.assign(g.values.size(), -1);
    lastForwardUserAnchor_.assign(g.values.size(), -1);
    std::vector<char> anchored(g.values.size(), 0);
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
            a = best >= -1 ? best : current;
        }
        anchor_[i] = a;
        if (phase_[i] == Phase::Forward)
            current = std::max(current, a);
        for (ValueId v : op.operands) {
            lastUse_[v.index] = static_cast<std::int32_t>(i);
            if (!anchored[v.index] && !g.value(v).producer.valid()) {
                valueAnchor_[v.index] = a;  // an argument: where it is first used
                anchored[v.index] = 1;
            }
            if (phase_[i] == Phase::Forward)
                lastForwardUserAnchor_[v.index] = std::max(lastForwardUserAnchor_[v.index], a);
        }
        for (ValueId r : op.results) {
            valueAnchor_[r.index] = a;
            anchored[r.index] = 1;
        }
    }
}

Evaluator& StagedEvaluator::microbatchEvaluator(int pipelineAxis, int stages, int microbatches) {
    auto& slot = evaluators_[{pipelineAxis, stages, microbatches}];
    if (!slot)
        slot = std::make_unique<Evaluator>(model_->microbatchModel(pipelineAxis, stages, microbatches));
    return *slot;
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
                       sum + layerCost[static_cast<std::size_t>(next + taken)] <= bound) {
                    sum += layerCost[static_cast<std::size_t>(next + taken)];
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
                const double more = layerCost[static_cast<std::size_t>(next + taken)];
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

const Evaluation& StagedEvaluator::evaluate(const plan::Plan& plan) {
    const auto& context = model_->planContext();
    const auto problem = plan::pipelineProblem(context, model_->mesh(), plan);
    const bool runnable = !problem.has_value();
    const int axis = runnable && plan.pipeline ? plan.pipeline->axis : -1;
    const int stages = runnable && plan.pipeline ? plan.pipeline->stages : 1;
    const int microbatches = runnable ? plan.microbatches : 1;
    current_ = &microbatchEvaluator(axis, stages, microbatches);
    const Evaluation& microbatch = current_->evaluate(microbatchProgram(*model_, plan).plan);

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

    price(plan, microbatch);
    if (!result.problem.empty())
        evaluation_.feasible = false;
    return evaluation_;
}

void StagedEvaluator::price(const plan::Plan& plan, const Evaluation& mb) {
    PipelineEvaluation& result = *evaluation_.pipeline;
    const ir::Graph& g = model_->graph();
    const auto& classes = model_->planContext().classes();
    const CostModel& stageModel =
        model_->microbatchModel(result.pipeline ? result.pipeline->axis : -1,
                                result.pipeline ? result.pipeline->stages : 1, result.microbatches);
    const std::size_t n = g.body.size();
    const bool pipelined = result.pipeline.has_value();
    const int p = pipelined ? result.pipeline->stages : 1;
    const int v = pipelined ? result.pipeline->virtualStages : 1;
    const int chunks = layerCount_ > 0 ? p * v : 1;
    const int m = result.microbatches;
    const bool backward = g.backwardStart > 0;

    // Collectives: once per step (gradient reductions, anything the update causes) or per microbatch.
    std::vector<double> stepCollective(n, 0), microbatchCollective(n, 0);
    for (const Collective& c : mb.collectives) {
        const std::int32_t i =
            c.op.valid() && c.op.index < bodyIndexOf_.size() ? bodyIndexOf_[c.op.index] : -1;
        if (i < 0)
            continue;
        // A sum over the microbatches (a weight gradient's), a gradient's or the update's: once per step.
        const bool once = ((c.axes >> microbatchAxis_) & 1u) != 0 ||
                          phase_[static_cast<std::size_t>(i)] == Phase::Update ||
                          (c.value.valid() && classes[c.value.index] == TensorClass::Gradient);
        (once ? stepCollective : microbatchCollective)[static_cast<std::size_t>(i)] += c.time;
    }
    // Each kernel's time plus the wait before it on the compute stream (the communication it is exposed to).
    std::vector<double> busy(n, 0), compute(n, 0);
    double streamEnd = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (mb.opComputeTime[i] <= 0)
            continue;
        const double start = i < mb.opStart.size() ? mb.opStart[i] : streamEnd;
        compute[i] = mb.opComputeTime[i];
        // The microbatch's schedule does not wait for the step's gradient reductions (CostModel with
        // accumulated axes): a wait here is for the microbatch's own communication.
        busy[i] = compute[i] + std::max(0.0, start - streamEnd);
        streamEnd = start + compute[i];
    }

    // The layer split: the user's, else balanced by each layer's forward and backward time (the embedding's
    // counted with the first layer, the head's with the last).
    std::vector<int> perChunk;
    if (layerCount_ == 0) {
        perChunk = {0};
    } else if (pipelined && !result.pipeline->layersPerStage.empty()) {
        perChunk = result.pipeline->layersPerStage;
    } else if (chunks == 1) {
        perChunk = {static_cast<int>(layerCount_)};
    } else {
        std::vector<double> layerCost(layerCount_, 0);
        for (std::size_t i = 0; i < n; ++i)
            if (phase_[i] != Phase::Update)
                layerCost[static_cast<std::size_t>(std::max(anchor_[i], 0))] += busy[i];
        perChunk = split(layerCost, chunks);
    }
    std::vector<std::int32_t> chunkOfLayer(std::max<std::size_t>(layerCount_, 1), 0);
    result.chunks.assign(static_cast<std::size_t>(chunks), {});
    {
        int layer = 0;
        for (int c = 0; c < chunks; ++c) {
            auto& chunk = result.chunks[static_cast<std::size_t>(c)];
            chunk.device = c % p;
            chunk.firstLayer = layer;
            chunk.layers = perChunk[static_cast<std::size_t>(c)];
            for (int l = 0; l < chunk.layers && layer < static_cast<int>(chunkOfLayer.size()); ++l)
                chunkOfLayer[static_cast<std::size_t>(layer++)] = c;
        }
    }
    auto chunkOf = [&](std::int32_t anchor) {
        return anchor < 0 ? 0 : chunkOfLayer[static_cast<std::size_t>(anchor)];
    };
    result.chunkOfOp.assign(n, 0);
    std::vector<double> forwardCompute(static_cast<std::size_t>(chunks), 0),
        backwardCompute(static_cast<std::size_t>(chunks), 0),
        chunkCollectives(static_cast<std::size_t>(chunks), 0);
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<std::size_t>(chunkOf(anchor_[i]));
        result.chunkOfOp[i] = static_cast<std::int32_t>(c);
        auto& chunk = result.chunks[c];
        switch (phase_[i]) {
            case Phase::Forward:
                chunk.forwardTime += busy[i];
                forwardCompute[c] += compute[i];
                break;
            case Phase::Backward:
                chunk.backwardTime += busy[i];
                backwardCompute[c] += compute[i];
                break;
            case Phase::Update:
                chunk.updateTime += compute[i];
                break;
        }
        chunk.gradientSyncTime += stepCollective[i];
        chunkCollectives[c] += microbatchCollective[i];
    }

    // Activations sent between chunks (local bytes of one microbatch), and the values kept for the backward.
    const auto* link =
        pipelined ? &model_->mesh().axes[static_cast<std::size_t>(result.pipeline->axis)].link : nullptr;
    double keptRaw = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (phase_[i] != Phase::Forward)
            continue;
        for (ValueId r : g.op(g.body[i]).results) {
            const double bytes = current_->localBytes(r);
            const int from = chunkOf(anchor_[i]);
            const int to = chunkOf(lastForwardUserAnchor_[r.index]);
            for (int c = from; c < to; ++c)
                result.chunks[static_cast<std::size_t>(c)].sendBytes += bytes;
            if (backward && lastUse_[r.index] >= static_cast<std::int32_t>(g.backwardStart) &&
                classes[r.index] == TensorClass::Activation && stageModel.takesMemory(r)) {
                result.chunks[static_cast<std::size_t>(from)].activationBytes += bytes;
                keptRaw += bytes;
            }
        }
    }
    // Rematerialization keeps less than every value the backward reads: scale to what the microbatch's memory
    // walk holds when the backward starts.
    const double keptWalk = backward ? current_->liveAt(g.backwardStart).activations : 0;
    const double keptScale = keptRaw > 0 ? std::min(1.0, keptWalk / keptRaw) : 0;
    for (auto& chunk : result.chunks) {
        chunk.activationBytes *= keptScale;
        if (link && p > 1 && chunk.sendBytes > 0)
            chunk.sendTime = link->latency + chunk.sendBytes / (link->bandwidth > 0 ? link->bandwidth : 1e30);
    }
    result.chunks.back().sendBytes = 0;
    result.chunks.back().sendTime = 0;

    // Model states per device position.
    result.stages.assign(static_cast<std::size_t>(p), {});
    for (std::size_t v2 = 0; v2 < g.values.size(); ++v2) {
        const TensorClass c = classes[v2];
        const ValueId value{static_cast<std::uint32_t>(v2)};
        const bool argument = !g.values[v2].producer.valid();
        if (!((argument && (c == TensorClass::Parameter || c == TensorClass::OptimizerState)) ||
              c == TensorClass::Gradient))
            continue;
        if (lastUse_[v2] < 0 && argument)
            continue;
        const int chunk = chunkOf(valueAnchor_[v2]);
        auto& states = result.stages[static_cast<std::size_t>(chunk % p)].modelStates;
        const double bytes = current_->localBytes(value);
        (c == TensorClass::Parameter  ? states.parameters
         : c == TensorClass::Gradient ? states.gradients
                                      : states.optimizerState) += bytes;
    }
    // The microbatch's working set: what it holds at its peak besides model states, beyond the activations it
    // keeps for the backward (those are counted per microbatch in flight).
    const double workingSet = std::max(
        0.0, mb.atPeak.activations + mb.atPeak.temporaries - std::min(keptWalk, mb.atPeak.activations));

    // The schedule of the forward and backward work, then each device's once-per-step tail: each chunk's
    // gradient reductions after its last backward (one communication stream per device), its update after
    // them.
    PipelineWork work;
    work.schedule = pipelined ? result.pipeline->schedule : plan::PipelineSchedule::OneFOneB;
    work.stages = p;
    work.virtualStages = layerCount_ > 0 ? v : 1;
    work.microbatches = m;
    work.backward = backward;
    for (const auto& chunk : result.chunks) {
        work.forward.push_back(chunk.forwardTime);
        work.backwardTime.push_back(chunk.backwardTime);
        work.send.push_back(chunk.sendTime);
        work.activationBytes.push_back(chunk.activationBytes);
    }
    auto run = simulatePipeline(work);
    if (!run) {  // not reachable: the plan was checked and the times are sums of non-negative ones
        result.problem = run.diagnostics().front().message;
        return;
    }
    result.tasks = std::move(run->tasks);
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
    result.bubbleFraction = run->bubbleFraction;
    result.microbatchTime = mb.stepTime;

    // The step as a whole: the busiest device's compute and communication, the makespan, the largest peak.
    std::size_t busiest = 0, fullest = 0;
    for (std::size_t d = 1; d < result.stages.size(); ++d) {
        if (result.stages[d].busyTime > result.stages[busiest].busyTime)
            busiest = d;
        if (result.stages[d].peakMemory > result.stages[fullest].peakMemory)
            fullest = d;
    }
    double computeTime = 0, collectiveTime = 0;
    for (std::size_t c = busiest; c < C; c += static_cast<std::size_t>(p)) {
        computeTime +=
            static_cast<double>(m) * (forwardCompute[c] + backwardCompute[c]) + result.chunks[c].updateTime;
        collectiveTime += static_cast<double>(m) * chunkCollectives[c] + result.chunks[c].gradientSyncTime;
        // Per microbatch it sends its output forward and, in the backward, its input's gradient back.
        collectiveTime += static_cast<double>(m) * (result.chunks[c].sendTime +
                                                    (backward && c > 0 ? result.chunks[c - 1].sendTime : 0));
    }
    evaluation_.computeTime = computeTime;
    evaluation_.collectiveTime = collectiveTime;
    evaluation_.stepTime = stepEnd;
    const auto& worst = result.stages[fullest];
    evaluation_.peakMemory = worst.peakMemory;
    evaluation_.atPeak = worst.atPeak;
    evaluation_.modelStates = worst.modelStates;
    evaluation_.feasible = worst.peakMemory <= evaluation_.capacity;
    (void)plan;
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

}  // namespace detail
}  // namespace shardscope::cost
