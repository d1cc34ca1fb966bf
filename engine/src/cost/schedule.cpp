// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/cost/schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <sstream>
#include <string>
#include <utility>

// The kernels are scheduled in program order. A kernel's waited transfers are resolved on demand: each
// stream schedules its transfers in FIFO order up to the one wanted, and a transfer whose afterTransfer is on
// another stream not yet that far pushes that stream's work on `pending_` first. A stream appears on
// `pending_` at most once (meeting it again is a cycle), so the stack is bounded by S and each transfer is
// scheduled once: O(K + T + S + Σ waits). Transfers no kernel waits for are scheduled at the end, when every
// kernel time is known.

namespace shardscope::cost {
namespace {

constexpr std::int32_t kMaxStreams = 1 << 20;

std::string number(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

bool fail(Diagnostic* error, const char* code, std::string message) {
    if (error)
        *error = makeError(code, std::move(message));
    return false;
}

bool badDuration(double duration) {
    return !std::isfinite(duration) || duration < 0;
}

bool outOfRange(std::int32_t index, std::size_t size, bool noneAllowed) {
    return index < (noneAllowed ? -1 : 0) || (index >= 0 && static_cast<std::size_t>(index) >= size);
}

bool validate(const Step& step, Diagnostic* error) {
    const std::size_t kernels = step.kernels.size(), transfers = step.transfers.size();
    constexpr auto kMaxIndex = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
    if (kernels > kMaxIndex || transfers > kMaxIndex)
        return fail(error, "schedule.index",
                    "more than " + std::to_string(kMaxIndex) + " kernels or transfers");
    if (step.streams < 0 || step.streams > kMaxStreams)
        return fail(error, "schedule.stream",
                    "the stream count " + std::to_string(step.streams) + " is not in [0, " +
                        std::to_string(kMaxStreams) + "]");
    for (std::size_t i = 0; i < kernels; ++i) {
        const auto& kernel = step.kernels[i];
        const auto name = [i] { return "kernel " + std::to_string(i); };  // built only for an error
        if (badDuration(kernel.duration))
            return fail(error, "schedule.duration",
                        name() + ": duration " + number(kernel.duration) + " is negative or not finite");
        for (const std::int32_t w : kernel.waitsFor)
            if (outOfRange(w, transfers, false))
                return fail(error, "schedule.index",
                            name() + " waits for transfer " + std::to_string(w) + ", out of range (" +
                                std::to_string(transfers) + " transfers)");
    }
    for (std::size_t j = 0; j < transfers; ++j) {
        const auto& transfer = step.transfers[j];
        const auto name = [j] { return "transfer " + std::to_string(j); };
        if (badDuration(transfer.duration))
            return fail(error, "schedule.duration",
                        name() + ": duration " + number(transfer.duration) + " is negative or not finite");
        if (transfer.stream < 0 || transfer.stream >= step.streams)
            return fail(error, "schedule.stream",
                        name() + ": stream " + std::to_string(transfer.stream) + " out of range (" +
                            std::to_string(step.streams) + " streams)");
        const auto kernelIndex = [&](const char* field, std::int32_t k) {
            return fail(error, "schedule.index",
                        name() + ": " + field + " kernel " + std::to_string(k) + " out of range (" +
                            std::to_string(kernels) + " kernels)");
        };
        if (outOfRange(transfer.readyAfter, kernels, true))
            return kernelIndex("readyAfter", transfer.readyAfter);
        if (outOfRange(transfer.issueAfter, kernels, true))
            return kernelIndex("issueAfter", transfer.issueAfter);
        if (outOfRange(transfer.afterTransfer, transfers, true))
            return fail(error, "schedule.index",
                        name() + ": afterTransfer " + std::to_string(transfer.afterTransfer) +
                            " out of range (" + std::to_string(transfers) + " transfers)");
    }
    return true;
}

}  // namespace

// Schedules transfer `target` and every transfer it depends on. Kernels [0, kernelsDone) have their times;
// when kernelsDone < K, kernel kernelsDone waits for `target`, so nothing on the way may depend on it or a
// later one.
bool ScheduleSimulator::resolve(const Step& step, std::int32_t target, std::int32_t kernelsDone,
                                Schedule& out, Diagnostic* error) {
    if (out.transferEnd[target] >= 0)
        return true;
    const auto streamOf = [&](std::int32_t j) { return step.transfers[j].stream; };
    pending_.clear();
    pending_.push_back(target);
    inProgress_[streamOf(target)] = 1;
    while (!pending_.empty()) {
        const std::int32_t wanted = pending_.back();
        const std::int32_t s = streamOf(wanted);
        if (out.transferEnd[wanted] >= 0) {
            inProgress_[s] = 0;
            pending_.pop_back();
            continue;
        }
        const std::int32_t j = cursor_[s];  // not −1: `wanted` is on s and not scheduled yet
        const ScheduledTransfer& t = step.transfers[j];
        const auto blocked = [&](const char* why, std::int32_t k) {
            std::string message = "kernel " + std::to_string(kernelsDone) + " waits for transfer " +
                                  std::to_string(target) + ", which ";
            if (j != target)
                message += "comes after transfer " + std::to_string(j) +
                           " (by stream order or afterTransfer), which ";
            return fail(error, "schedule.blocked", message + why + std::to_string(k));
        };
        if (t.readyAfter >= kernelsDone)
            return blocked("is ready only at the end of kernel ", t.readyAfter);
        if (t.issueAfter >= kernelsDone)
            return blocked("is issued only at the start of kernel ", t.issueAfter);
        const std::int32_t before = t.afterTransfer;
        if (before >= 0 && out.transferEnd[before] < 0) {
            if (inProgress_[streamOf(before)])
                return fail(error, "schedule.cycle",
                            "transfer " + std::to_string(j) + " waits for transfer " +
                                std::to_string(before) + ", which cannot end before transfer " +
                                std::to_string(j) +
                                " starts (a cycle through afterTransfer and stream order)");
            inProgress_[streamOf(before)] = 1;
            pending_.push_back(before);
            continue;
        }
        double start = streamFree_[s];
        if (t.readyAfter >= 0)
            start = std::max(start, out.kernelEnd[t.readyAfter]);
        if (t.issueAfter >= 0)
            start = std::max(start, out.kernelStart[t.issueAfter]);
        if (before >= 0)
            start = std::max(start, out.transferEnd[before]);
        out.transferStart[j] = start;
        out.transferEnd[j] = streamFree_[s] = start + t.duration;
        out.streamBusy[s] += t.duration;
        cursor_[s] = nextOnStream_[j];
    }
    return true;
}

bool ScheduleSimulator::simulate(const Step& step, Schedule& out, Diagnostic* error) {
    if (!validate(step, error))
        return false;
    const std::size_t kernels = step.kernels.size(), transfers = step.transfers.size();
    const auto streams = static_cast<std::size_t>(step.streams);
    try {  // the only allocations: nothing below allocates but an error's message
        out.kernelStart.assign(kernels, 0);
        out.kernelEnd.assign(kernels, 0);
        out.transferStart.assign(transfers, -1);
        out.transferEnd.assign(transfers, -1);  // −1 = not scheduled yet
        out.streamBusy.assign(streams, 0);
        cursor_.assign(streams, -1);
        streamFree_.assign(streams, 0);
        inProgress_.assign(streams, 0);
        nextOnStream_.resize(transfers);
        pending_.reserve(streams);  // holds each stream at most once
    } catch (const std::bad_alloc&) {
        return fail(error, "schedule.memory",
                    "out of memory for a step of " + std::to_string(kernels) + " kernels and " +
                        std::to_string(transfers) + " transfers");
    }
    for (std::size_t j = transfers; j-- > 0;) {
        const std::int32_t s = step.transfers[j].stream;
        nextOnStream_[j] = cursor_[s];
        cursor_[s] = static_cast<std::int32_t>(j);
    }

    double clock = 0;
    out.computeBusy = 0;
    for (std::size_t i = 0; i < kernels; ++i) {
        const ScheduledKernel& kernel = step.kernels[i];
        double start = clock;
        for (const std::int32_t w : kernel.waitsFor) {
            if (!resolve(step, w, static_cast<std::int32_t>(i), out, error))
                return false;
            start = std::max(start, out.transferEnd[w]);
        }
        out.kernelStart[i] = start;
        out.kernelEnd[i] = clock = start + kernel.duration;
        out.computeBusy += kernel.duration;
    }
    for (std::size_t j = 0; j < transfers; ++j)
        if (!resolve(step, static_cast<std::int32_t>(j), static_cast<std::int32_t>(kernels), out, error))
            return false;

    out.makespan = clock;
    for (const double free : streamFree_)
        out.makespan = std::max(out.makespan, free);
    out.exposedCommunication = out.makespan - out.computeBusy;
    return true;
}

Result<Schedule> simulate(const Step& step) {
    ScheduleSimulator simulator;
    Schedule schedule;
    Diagnostic error;
    if (!simulator.simulate(step, schedule, &error))
        return error;
    return schedule;
}

}  // namespace shardscope::cost
