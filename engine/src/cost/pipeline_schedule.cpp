// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/cost/pipeline_schedule.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace shardscope::cost {

namespace {

// pipelineOrder into `order` (cleared; its buffer reused).
void fillPipelineOrder(const PipelineWork& work, int device, std::vector<PipelineStep>& order) {
    const int p = work.stages, v = work.virtualStages, m = work.microbatches, d = device;
    order.clear();
    // Unit k of a device's forwards (and, mirrored over its chunks, of its backwards): microbatches in groups
    // of p per chunk, the device's chunks in turn (Megatron's interleaving; with one chunk simply k).
    auto forwardUnit = [&](int k) -> PipelineStep {
        if (v == 1)
            return {true, d, k};
        return {true, ((k / p) % v) * p + d, (k / (p * v)) * p + k % p};
    };
    auto backwardUnit = [&](int k) -> PipelineStep {
        if (v == 1)
            return {false, d, k};
        return {false, (v - 1 - (k / p) % v) * p + d, (k / (p * v)) * p + k % p};
    };
    const int units = m * v;
    if (work.schedule == plan::PipelineSchedule::GPipe || !work.backward) {
        for (int k = 0; k < units; ++k)
            order.push_back(forwardUnit(k));
        if (work.backward)
            for (int k = 0; k < units; ++k)
                order.push_back(backwardUnit(k));
        return;
    }
    const int warmup = std::min(units, v == 1 ? p - d - 1 : (p - d - 1) * 2 + (v - 1) * p);
    for (int k = 0; k < warmup; ++k)
        order.push_back(forwardUnit(k));
    for (int k = 0; k < units - warmup; ++k) {
        order.push_back(forwardUnit(warmup + k));
        order.push_back(backwardUnit(k));
    }
    for (int k = units - warmup; k < units; ++k)
        order.push_back(backwardUnit(k));
}

}  // namespace

std::vector<PipelineStep> pipelineOrder(const PipelineWork& work, int device) {
    std::vector<PipelineStep> order;
    fillPipelineOrder(work, device, order);
    return order;
}

Result<PipelineRun> simulatePipeline(const PipelineWork& work) {
    const int p = work.stages, v = work.virtualStages, m = work.microbatches;
    if (p < 1 || v < 1 || m < 1)
        return makeError("pipeline.counts",
                         "a pipeline needs 1 or more stages, virtual stages and microbatches");
    const auto C = static_cast<std::size_t>(p) * static_cast<std::size_t>(v);
    const auto M = static_cast<std::size_t>(m);
    for (const auto* list : {&work.forward, &work.backwardTime, &work.send, &work.activationBytes})
        if (list->size() != C)
            return makeError("pipeline.sizes", "per-chunk lists need " + std::to_string(C) +
                                                   " entries (stages × "
                                                   "virtual stages), not " +
                                                   std::to_string(list->size()));
    for (std::size_t c = 0; c < C; ++c)
        if (!(work.forward[c] >= 0) || !(work.backwardTime[c] >= 0) || !(work.send[c] >= 0))
            return makeError("pipeline.times", "chunk " + std::to_string(c) + " has a negative or NaN time");

    // Each device's order and the ends so far: kept per thread (they only grow), so that a search pricing
    // pipeline after pipeline does not allocate them each time.
    thread_local std::vector<std::vector<PipelineStep>> order;
    thread_local std::vector<double> forwardEnd, backwardEnd;
    thread_local std::vector<std::size_t> next;
    if (order.size() < static_cast<std::size_t>(p))
        order.resize(static_cast<std::size_t>(p));
    std::size_t remaining = 0;
    for (int d = 0; d < p; ++d) {
        fillPipelineOrder(work, d, order[static_cast<std::size_t>(d)]);
        remaining += order[static_cast<std::size_t>(d)].size();
    }
    constexpr double kNotYet = -1;
    forwardEnd.assign(C * M, kNotYet);
    backwardEnd.assign(C * M, kNotYet);
    next.assign(static_cast<std::size_t>(p), 0);
    PipelineRun run;
    run.tasks.reserve(remaining);
    run.busy.assign(static_cast<std::size_t>(p), 0);
    run.end.assign(static_cast<std::size_t>(p), 0);
    while (remaining > 0) {
        bool progress = false;
        for (int d = 0; d < p; ++d) {
            const auto di = static_cast<std::size_t>(d);
            const auto& list = order[di];
            while (next[di] < list.size()) {
                const PipelineStep s = list[next[di]];
                const auto c = static_cast<std::size_t>(s.chunk);
                const std::size_t k = c * M + static_cast<std::size_t>(s.microbatch);
                double ready = 0;
                if (s.forward) {
                    if (c > 0) {
                        if (forwardEnd[k - M] == kNotYet)
                            break;
                        ready = forwardEnd[k - M] + work.send[c - 1];
                    }
                } else {
                    if (forwardEnd[k] == kNotYet)
                        break;
                    ready = forwardEnd[k];
                    if (c + 1 < C) {
                        if (backwardEnd[k + M] == kNotYet)
                            break;
                        ready = std::max(ready, backwardEnd[k + M] + work.send[c]);
                    }
                }
                const double start = std::max(ready, run.end[di]);
                const double duration = s.forward ? work.forward[c] : work.backwardTime[c];
                (s.forward ? forwardEnd : backwardEnd)[k] = start + duration;
                run.end[di] = start + duration;
                run.busy[di] += duration;
                run.tasks.push_back({s.forward ? PipelineTask::Kind::Forward : PipelineTask::Kind::Backward,
                                     d, s.chunk, s.microbatch, start, start + duration});
                ++next[di];
                --remaining;
                progress = true;
            }
        }
        if (!progress)
            return makeError("pipeline.deadlock", "the pipeline schedule cannot run: every device waits");
    }
    std::stable_sort(run.tasks.begin(), run.tasks.end(), [](const PipelineTask& a, const PipelineTask& b) {
        return a.device != b.device ? a.device < b.device : a.start < b.start;
    });
    // What each device keeps: a forward's activations live until its backward ends.
    run.inFlight.assign(static_cast<std::size_t>(p), 0);
    run.peakActivationBytes.assign(static_cast<std::size_t>(p), 0);
    for (int d = 0; d < p; ++d) {
        const auto di = static_cast<std::size_t>(d);
        double live = 0;
        int count = 0;
        for (const PipelineStep& s : order[di]) {
            const double bytes = work.activationBytes[static_cast<std::size_t>(s.chunk)];
            if (s.forward) {
                live += bytes;
                run.inFlight[di] = std::max(run.inFlight[di], ++count);
                run.peakActivationBytes[di] = std::max(run.peakActivationBytes[di], live);
            } else {
                live -= bytes;
                --count;
            }
        }
        run.makespan = std::max(run.makespan, run.end[di]);
    }
    double work_ = 0;
    for (double b : run.busy)
        work_ += b;
    run.bubbleFraction =
        run.makespan > 0 ? std::max(0.0, 1 - work_ / (static_cast<double>(p) * run.makespan)) : 0;
    return run;
}

}  // namespace shardscope::cost
