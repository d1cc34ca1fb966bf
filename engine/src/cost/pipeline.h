// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Staged evaluation (docs/cost-model.md "Pipelines"): a plan with microbatches or a pipeline, priced from one
// microbatch's program on one stage's devices and a simulation of the pipeline schedule over its chunks.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "shardscope/analysis/layer_repeat.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/cost/pipeline_schedule.h"

namespace shardscope::cost::detail {

// Whether top-level op `opIndex` (into graph.body) belongs to the optimizer update: after the backward pass,
// every result an optimizer state, an update intermediate or an updated parameter. It runs once per step.
bool updatesOnce(const CostModel& model, std::size_t opIndex);

// Whether a collective of a step in microbatches runs once per step, after the last microbatch, rather than
// in every one: a sum over the model's accumulated axes (a weight gradient's), a gradient's reduction, or one
// the optimizer update causes.
bool runsOncePerStep(const CostModel& model, const Collective& collective);

// Copy k's model, evaluator and evaluation of the last plan an Evaluator priced from layer classes (all null
// when it has none).
struct LayerClassCopy {
    const CostModel* model = nullptr;
    const Evaluator* evaluator = nullptr;
    const Evaluation* evaluation = nullptr;
};

// What cost::Evaluator does for a plan with Plan::microbatches > 1 or a Plan::pipeline. Not thread-safe.
// With layer classes (EvaluatorOptions::layerClasses) the microbatch's program is priced on the model's
// shallow copies, and its work per layer on them stands for the model's (docs/cost-model.md "Layer classes").
class StagedEvaluator {
public:
    explicit StagedEvaluator(const CostModel& model, EvaluatorOptions options = {});
    ~StagedEvaluator();
    // `applied`, when given, is cost::appliedPlan(model, plan): the microbatch program's applied plan.
    const Evaluation& evaluate(const plan::Plan& plan, std::optional<plan::AppliedPlan> applied = {});
    // After evaluate(), as cost::Evaluator's (the microbatch axis left out of shardings and executions).
    plan::TensorSharding sharding(ir::ValueId value) const;
    const OpExecution& execution(std::size_t opIndex) const;
    double localBytes(ir::ValueId value) const;
    MemoryBreakdown liveAt(std::size_t opIndex) const;
    std::size_t opsRecosted() const;
    std::size_t opsPriced() const;
    std::size_t kernelsPriced() const;

private:
    enum class Phase : std::uint8_t { Forward, Backward, Update };
    // Where a graph's ops and values go in a pipeline, fixed per graph. An anchor is a layer (into
    // plan::pipelineLayers), -1 before the layers; the work is summed per anchor + 1 (a "bucket").
    struct Anchors {
        explicit Anchors(const CostModel& model);
        // A shallow copy's (analysis::ShallowGraph): each op and value anchored as the model's that it is,
        // so that its work is summed into the model's buckets.
        Anchors(const CostModel& copy, const Anchors& model, const analysis::ShallowGraph& shallow,
                const ir::Graph& full);
        std::vector<Phase> phase;                   // per body op
        std::vector<std::int32_t> op;               // per body op
        std::vector<std::int32_t> value;            // per value: its producer's, an argument its first user's
        std::vector<std::int32_t> lastForwardUser;  // per value: the largest anchor of a forward op using it
        std::vector<std::int32_t> lastUse;          // per value: the last top-level op using it, -1: none
        std::vector<std::int32_t> bodyIndexOf;      // per OpId
        std::size_t layers = 0;

    private:
        void findUses(const ir::Graph& graph);  // lastForwardUser, lastUse and bodyIndexOf from the ops'
    };
    // One microbatch's work per bucket: the forward and backward kernels with the waits before them on the
    // compute stream (the communication they are exposed to), their compute alone, the optimizer update's,
    // the collectives run once per step (gradient reductions, the update's) and per microbatch, the
    // activations its forward keeps for the backward (not yet scaled to the memory walk), the activations
    // crossing the boundary after the bucket, and the model states anchored there.
    struct LayerWork {
        std::vector<double> forward, backward, compute, update, stepCollectives, microbatchCollectives, kept,
            crossing, parameters, gradients, optimizerState;
        double keptWalk = 0;  // the activations the microbatch's memory walk holds when the backward starts
    };
    static constexpr std::array<std::vector<double> LayerWork::*, 11> kPerLayer{
        &LayerWork::forward,   &LayerWork::backward,        &LayerWork::compute,
        &LayerWork::update,    &LayerWork::stepCollectives, &LayerWork::microbatchCollectives,
        &LayerWork::kept,      &LayerWork::crossing,        &LayerWork::parameters,
        &LayerWork::gradients, &LayerWork::optimizerState};
    // The shallow copies' anchors (their work summed into the model's buckets), and where their layers are
    // in the model's: the first copy leaves out the buckets [gapBegin, gapEnd), whole periods of `period`
    // buckets; the second keeps the period [kept, kept + period) of them.
    struct CopyLayers {
        std::vector<Anchors> anchors;
        std::size_t gapBegin = 0, gapEnd = 0, kept = 0, period = 0;
        double periods = 0;
    };
    static std::unique_ptr<CopyLayers> lineUp(const CostModel& model, const Anchors& anchors,
                                              const CostModel::ShallowCopies& copies);

    // The steps of pricing a plan into evaluation_.pipeline (pipeline.cpp says what each does).
    void collect(const Anchors& anchors, const CostModel& microbatchModel, const Evaluator& evaluator,
                 const Evaluation& microbatch, LayerWork& work) const;
    bool extrapolate(const LayerWork& first, const LayerWork& second, LayerWork& work) const;
    void price(const Evaluation& microbatch, const LayerWork& work);
    std::vector<int> layerSplit(const std::optional<plan::Pipeline>& pipeline, int chunks,
                                const LayerWork& work) const;
    std::vector<int> split(const std::vector<double>& layerCost, int chunks) const;
    void chunkTimes(const std::vector<int>& perChunk, int stages, const LayerWork& work,
                    std::vector<double>& compute, std::vector<double>& collectives);
    void modelStates(int stages, const LayerWork& work);
    double schedule(double workingSet);
    // The chunk of bucket `b` under the current split.
    int chunkOf(std::size_t b) const { return b == 0 ? 0 : chunkOfLayer_[b - 1]; }

    const CostModel* model_;
    EvaluatorOptions options_;
    Anchors anchors_;
    std::unique_ptr<CopyLayers> copyLayers_;  // with layer classes, when the copies line up
    std::map<const CostModel*, std::unique_ptr<Evaluator>> evaluators_;      // per microbatch model
    std::map<const CostModel*, std::unique_ptr<Evaluator>> fullEvaluators_;  // without layer classes
    const CostModel* microbatchModel_ = nullptr;                             // the last plan's
    Evaluator* current_ = nullptr;                                           // its evaluator
    std::uint32_t microbatchAxis_ = 0;  // the axis index the microbatch models append
    Evaluation evaluation_;
    std::array<LayerWork, 3> work_;  // the model's, and the copies'
    // schedule's buffers, kept from one evaluation to the next.
    PipelineWork pipelineWork_;
    std::vector<double> lastWork_;
    std::vector<std::size_t> deviceChunks_;
    mutable OpExecution execution_;
    std::vector<std::int32_t> chunkOfLayer_;  // under the last evaluated split
};

}  // namespace shardscope::cost::detail
