// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The edited plan's simulated step (docs/cost-model.md) as lanes of boxes in seconds, what the Timeline dock
// draws: the kernels of the compute stream, then the collectives on one lane per device group, as the Chrome
// trace shows them (cost::stepLanes). Plain values computed once per evaluation, so painting only reads them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <QString>

#include "core/plan_state.h"
#include "core/problem_view.h"

namespace shardscope::ui {

// What a box is coloured by: a kernel, or the kind of its collective (in cost::CollectiveKind's order).
enum class TimelineKind : std::uint8_t {
    Compute,
    AllGather,
    ReduceScatter,
    AllReduce,
    AllToAll,
    CollectivePermute,
};
inline constexpr int kTimelineKinds = static_cast<int>(TimelineKind::CollectivePermute) + 1;

struct TimelineBox {
    double start = 0, end = 0;    // seconds from the step's start
    double bytes = 0;             // a collective's (cost::Collective::bytes); 0 for a kernel
    std::uint32_t bodyIndex = 0;  // the kernel's op, or the op causing the collective (index into graph.body)
    std::int32_t collective = -1;  // index into Evaluation::collectives; -1 for a kernel
    TimelineKind kind = TimelineKind::Compute;
    // Remat: a kernel that first recomputes its block's forward (the cost model charges the recompute to the
    // block's first backward op).
    bool recompute = false;
    double duration() const { return end - start; }
};

struct TimelineLane {
    QString name;                    // "compute", "collectives over data+model"
    std::uint32_t axes = 0;          // the device group (bit i = mesh axis i); 0 for the compute lane
    std::vector<TimelineBox> boxes;  // by start (then end)
    double busy = 0;                 // the boxes' total duration
    double longest = 0;              // the longest box's duration (bounds the search of boxesIn)
};

struct TimelineSpan {
    double start = 0, end = 0;
};

struct ScheduleTimeline {
    std::uint64_t revision = 0;  // the PlanState's
    // lanes[0] is the compute lane; the others follow cost::stepLanes (device groups as they first appear).
    std::vector<TimelineLane> lanes;
    // Where the compute lane idles within [0, stepTime): waiting for collectives, i.e. exposed communication.
    std::vector<TimelineSpan> idle;
    double stepTime = 0;
    double computeTime = 0;  // the compute lane's busy time
    double idleTime = 0;     // the idle spans' total: stepTime − computeTime

    // The range [first, last) of lanes[lane].boxes that may overlap [from, to); every box outside it does
    // not.
    std::pair<std::size_t, std::size_t> boxesIn(std::size_t lane, double from, double to) const;
    std::size_t boxCount() const;
    std::size_t recomputeCount() const;  // kernels marked `recompute`
};

// The timeline of `state`'s evaluation of a plan of `model`'s problem: a kernel per top-level op with compute
// time, at [opStart, opStart + opComputeTime); a box per collective at [collectiveStart, collectiveEnd) on
// its device group's lane. Boxes of the plan's remat points (rematPoints) are marked `recompute`. O(n log n)
// in the boxes; no Qt widgets, safe off the UI thread.
ScheduleTimeline scheduleTimeline(const cost::CostModel& model, const PlanState& state);

// "compute", "all-gather", ...: the legend's words.
QString timelineKindName(TimelineKind kind);
// What a box wide enough says inside it: its op's label or kind for a kernel, the kind for a collective.
QString timelineBoxLabel(const ProblemView& problem, const TimelineBox& box);
// A box in words for its tooltip: the op (index, label, kind, location), the collective's kind, group and
// bytes, its duration and where it runs in the step.
QString describeTimelineBox(const ProblemView& problem, const TimelineLane& lane, const TimelineBox& box);

}  // namespace shardscope::ui
