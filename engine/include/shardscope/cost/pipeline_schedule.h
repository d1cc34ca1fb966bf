// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The pipeline schedules (docs/cost-model.md "Pipelines"), simulated: each device runs its microbatches'
// forward and backward work in the order its schedule gives, a chunk's forward waits for the previous chunk's
// (plus the transfer between them), its backward for the next chunk's backward (plus the transfer back).
#pragma once

#include <vector>

#include "shardscope/cost/cost_model.h"
#include "shardscope/diagnostic.h"
#include "shardscope/plan/plan.h"

namespace shardscope::cost {

// The work of one step: per chunk (stages × virtual stages of them, in layer order; chunk c on device
// c mod stages), one microbatch's forward and backward time, the transfer time to the next chunk and the
// bytes of activations its forward keeps for its backward.
struct PipelineWork {
    plan::PipelineSchedule schedule = plan::PipelineSchedule::OneFOneB;
    int stages = 1, virtualStages = 1, microbatches = 1;
    bool backward = true;  // false for a forward-only program
    std::vector<double> forward, backwardTime, send, activationBytes;
};

struct PipelineRun {
    std::vector<PipelineTask> tasks;  // forward and backward tasks, by device then start
    std::vector<double> busy, end;    // per device: its work, its last task's end
    std::vector<int> inFlight;  // per device: chunk-microbatches forwarded and not yet backward, at most
    std::vector<double> peakActivationBytes;  // per device: the activations they keep, at most
    double makespan = 0;
    double bubbleFraction = 0;  // 1 − Σ busy / (stages × makespan)
};

// The order device `device` runs its work in: (forward?, chunk, microbatch).
//  - gpipe: every microbatch's forward, then every backward;
//  - 1f1b: stages − device − 1 warm-up forwards, then one forward and one backward alternately, then the
//    remaining backwards;
//  - interleaved (Megatron): forwards in groups of `stages` microbatches per chunk, chunks in turn; (stages −
//    device − 1)·2 + (virtual stages − 1)·stages warm-up forwards, then alternately, backwards mirrored.
struct PipelineStep {
    bool forward = true;
    int chunk = 0, microbatch = 0;
    friend bool operator==(const PipelineStep&, const PipelineStep&) = default;
};
std::vector<PipelineStep> pipelineOrder(const PipelineWork& work, int device);

// Simulates `work`. Errors: sizes that disagree (per-chunk lists not of stages × virtual stages entries),
// counts below 1, negative times, and an order that cannot run (not reachable with the schedules above).
Result<PipelineRun> simulatePipeline(const PipelineWork& work);

}  // namespace shardscope::cost
