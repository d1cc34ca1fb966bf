// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Staged evaluation (docs/cost-model.md "Pipelines"): a plan with microbatches or a pipeline, priced from one
// microbatch's program on one stage's devices and a simulation of the pipeline schedule over its chunks.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "shardscope/cost/cost_model.h"

namespace shardscope::cost::detail {

// Whether top-level op `opIndex` (into graph.body) belongs to the optimizer update: after the backward pass,
// every result an optimizer state, an update intermediate or an updated parameter. It runs once per step.
bool updatesOnce(const CostModel& model, std::size_t opIndex);

// Whether a collective of a step in microbatches runs once per step, after the last microbatch, rather than
// in every one: a sum over the model's accumulated axes (a weight gradient's), a gradient's reduction, or one
// the optimizer update causes.
bool runsOncePerStep(const CostModel& model, const Collective& collective);

// What cost::Evaluator does for a plan with Plan::microbatches > 1 or a Plan::pipeline. Not thread-safe.
class StagedEvaluator {
public:
    explicit StagedEvaluator(const CostModel& model, EvaluatorOptions options = {});
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
    struct OpTimes {
        std::vector<double> busy, compute, stepCollective, microbatchCollective;  // per body op
    };

    // The steps of pricing `microbatch` into evaluation_.pipeline (pipeline.cpp says what each does).
    void price(const Evaluation& microbatch);
    // Fills times_ (its buffers kept between evaluations).
    const OpTimes& opTimes(const Evaluation& microbatch);
    std::vector<int> layerSplit(const std::optional<plan::Pipeline>& pipeline, int chunks,
                                const OpTimes& times) const;
    std::vector<int> split(const std::vector<double>& layerCost, int chunks) const;
    void chunkTimes(const std::vector<int>& perChunk, int stages, const OpTimes& times,
                    std::vector<double>& compute, std::vector<double>& collectives);
    double transfersAndKeptActivations();
    void modelStates(int stages);
    double schedule(double workingSet);
    // The chunk of an op or value anchored at `anchor` (a layer; -1 before the layers) under the current
    // split.
    int chunkOf(std::int32_t anchor) const {
        return anchor < 0 ? 0 : chunkOfLayer_[static_cast<std::size_t>(anchor)];
    }

    const CostModel* model_;
    EvaluatorOptions options_;
    std::map<const CostModel*, std::unique_ptr<Evaluator>> evaluators_;  // per microbatch model
    const CostModel* microbatchModel_ = nullptr;                         // the last plan's
    Evaluator* current_ = nullptr;                                       // its evaluator
    std::uint32_t microbatchAxis_ = 0;  // the axis index the microbatch models append
    Evaluation evaluation_;
    OpTimes times_;
    mutable OpExecution execution_;
    // The graph's structure, fixed per model.
    std::vector<Phase> phase_;               // per body op
    std::vector<std::int32_t> anchor_;       // per body op: its layer (into pipelineLayers), -1 before them
    std::vector<std::int32_t> valueAnchor_;  // per value: its producer's anchor, an argument its first user's
    std::vector<std::int32_t>
        lastForwardUserAnchor_;              // per value: the largest anchor of a forward op using it
    std::vector<std::int32_t> lastUse_;      // per value: the last top-level op using it, -1: none
    std::vector<std::int32_t> bodyIndexOf_;  // per OpId
    std::size_t layerCount_ = 0;
    std::vector<std::int32_t> chunkOfLayer_;  // under the last evaluated split
};

}  // namespace shardscope::cost::detail
