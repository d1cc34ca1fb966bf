// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The schedule of one step (docs/cost-model.md "Schedule"): kernels on one compute stream in program order,
// transfers (collectives) on S communication streams, one per mesh axis or link. The step time is the
// makespan.
//
// Semantics:
// - Kernel i starts at max(end of kernel i−1, end of every transfer it waits for) and runs `duration`.
// - Each stream runs its transfers one at a time, in the order they appear in Step::transfers (FIFO by issue
//   order: a transfer never overtakes an earlier one on its stream, even if it is ready sooner).
// - Transfer j starts at max(end of kernel readyAfter, start of kernel issueAfter, end of transfer
//   afterTransfer, end of the previous transfer on its stream); −1 leaves out a term.
// Everything starts as early as these constraints allow, so the result does not depend on the order in which
// the simulation visits the work. It satisfies
//   max(Σ kernels, busiest stream) ≤ makespan ≤ Σ kernels + Σ transfers.
#pragma once

#include <cstdint>
#include <vector>

#include "shardscope/diagnostic.h"

namespace shardscope::cost {

struct ScheduledKernel {
    double duration = 0;                 // seconds, finite, >= 0
    std::vector<std::int32_t> waitsFor;  // transfers whose output it reads (indices into Step::transfers)
    friend bool operator==(const ScheduledKernel&, const ScheduledKernel&) = default;
};

struct ScheduledTransfer {
    double duration = 0;           // seconds, finite, >= 0
    std::int32_t stream = 0;       // 0 <= stream < Step::streams
    std::int32_t readyAfter = -1;  // kernel whose end makes its input ready; −1 = ready at 0 (a parameter)
    std::int32_t issueAfter = -1;  // kernel whose start it may not precede (bounds FSDP prefetch); −1 = none
    std::int32_t afterTransfer = -1;  // transfer that must end first (a reduce-scatter feeding an all-gather)
    friend bool operator==(const ScheduledTransfer&, const ScheduledTransfer&) = default;
};

// One step's work. A caller that builds a Step per evaluation keeps its buffers by reusing one Step (resize
// the vectors and clear each kernel's waitsFor rather than clearing `kernels`).
struct Step {
    std::vector<ScheduledKernel> kernels;      // in program order
    std::vector<ScheduledTransfer> transfers;  // in issue order
    std::int32_t streams = 0;                  // S, 0 <= S <= 2^20
    friend bool operator==(const Step&, const Step&) = default;
};

// Times in seconds from the start of the step.
struct Schedule {
    std::vector<double> kernelStart, kernelEnd;      // per kernel
    std::vector<double> transferStart, transferEnd;  // per transfer
    std::vector<double> streamBusy;                  // per stream: Σ durations of its transfers
    double makespan = 0;                             // max of all ends (0 for an empty step)
    double computeBusy = 0;                          // Σ kernel durations
    double exposedCommunication = 0;                 // makespan − computeBusy (>= 0)
    friend bool operator==(const Schedule&, const Schedule&) = default;
};

// Simulates steps, keeping its scratch buffers between calls so that a search evaluating many plans does not
// allocate once the buffers have grown. Not thread-safe; use one per thread.
class ScheduleSimulator {
public:
    // Fills `out` with the schedule of `step`, reusing out's buffers. Time O(K + T + S + Σ waits), memory
    // O(K + T + S); allocates only to grow the buffers (and for an error's message).
    // Returns false when the step cannot be scheduled, and then sets *error (when given) to an error naming
    // the kernel or transfer at fault; `out` is unspecified. Codes: "schedule.duration" (negative or not
    // finite), "schedule.stream" (stream outside [0, S), or S outside [0, 2^20]), "schedule.index" (a kernel
    // or transfer index out of range), "schedule.blocked" (kernel i waits for a transfer that cannot start
    // before kernel i starts: itself, or a transfer it follows by stream order or afterTransfer, is ready or
    // issued only at kernel i or later), "schedule.cycle" (transfers that wait for each other through
    // afterTransfer and stream order), "schedule.memory" (the buffers cannot grow). Never throws.
    bool simulate(const Step& step, Schedule& out, Diagnostic* error = nullptr);

private:
    bool resolve(const Step& step, std::int32_t target, std::int32_t kernelsDone, Schedule& out,
                 Diagnostic* error);

    std::vector<std::int32_t> nextOnStream_;  // per transfer: the next transfer on its stream, or −1
    std::vector<std::int32_t> cursor_;        // per stream: its first transfer not yet scheduled, or −1
    std::vector<double> streamFree_;          // per stream: the end of its last scheduled transfer
    std::vector<char> inProgress_;            // per stream: on `pending_`
    std::vector<std::int32_t> pending_;       // transfers being resolved, each waiting for the one above it
};

// Convenience: a one-off simulation; the errors are those of ScheduleSimulator::simulate.
Result<Schedule> simulate(const Step& step);

}  // namespace shardscope::cost
