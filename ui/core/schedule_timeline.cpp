// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/schedule_timeline.h"

#include <algorithm>

#include <QCoreApplication>

#include "core/plan_breakdown.h"
#include "core/remat_choices.h"
#include "core/text.h"
#include "shardscope/cost/step_lanes.h"
#include "shardscope/ir/op_kind.h"

namespace shardscope::ui {

namespace {

static_assert(static_cast<int>(TimelineKind::CollectivePermute) ==
              1 + static_cast<int>(cost::CollectiveKind::CollectivePermute));

TimelineKind kindOf(cost::CollectiveKind kind) {
    return static_cast<TimelineKind>(1 + static_cast<int>(kind));
}

void finish(TimelineLane& lane) {
    std::sort(lane.boxes.begin(), lane.boxes.end(), [](const TimelineBox& a, const TimelineBox& b) {
        return a.start != b.start ? a.start < b.start : a.end < b.end;
    });
    for (const TimelineBox& box : lane.boxes) {
        lane.busy += box.duration();
        lane.longest = std::max(lane.longest, box.duration());
    }
}

// Where the kernels (by start) leave the compute stream idle before `stepTime`. Gaps below `tolerance` are
// rounding, not waiting.
std::vector<TimelineSpan> idleSpans(const std::vector<TimelineBox>& kernels, double stepTime,
                                    double tolerance) {
    std::vector<TimelineSpan> idle;
    double cursor = 0;
    for (const TimelineBox& kernel : kernels) {
        if (kernel.start > cursor + tolerance)
            idle.push_back({cursor, kernel.start});
        cursor = std::max(cursor, kernel.end);
    }
    if (stepTime > cursor + tolerance)
        idle.push_back({cursor, stepTime});
    return idle;
}

QString msText(double seconds) {
    return QCoreApplication::translate("ScheduleTimeline", "%1 ms").arg(seconds * 1e3, 0, 'f', 3);
}

}  // namespace

std::pair<std::size_t, std::size_t> ScheduleTimeline::boxesIn(std::size_t lane, double from,
                                                              double to) const {
    if (lane >= lanes.size())
        return {0, 0};
    const TimelineLane& l = lanes[lane];
    // A box overlapping `from` starts no earlier than from − longest.
    const auto first = std::lower_bound(l.boxes.begin(), l.boxes.end(), from - l.longest,
                                        [](const TimelineBox& box, double t) { return box.start < t; });
    const auto last = std::lower_bound(first, l.boxes.end(), to,
                                       [](const TimelineBox& box, double t) { return box.start < t; });
    return {static_cast<std::size_t>(first - l.boxes.begin()),
            static_cast<std::size_t>(last - l.boxes.begin())};
}

std::size_t ScheduleTimeline::recomputeCount() const {
    if (lanes.empty())
        return 0;
    return static_cast<std::size_t>(std::count_if(lanes.front().boxes.begin(), lanes.front().boxes.end(),
                                                  [](const TimelineBox& box) { return box.recompute; }));
}

std::size_t ScheduleTimeline::boxCount() const {
    std::size_t count = 0;
    for (const TimelineLane& lane : lanes)
        count += lane.boxes.size();
    return count;
}

ScheduleTimeline scheduleTimeline(const cost::CostModel& model, const PlanState& state) {
    const ir::Graph& graph = model.graph();
    const cost::Evaluation& e = state.evaluation;
    ScheduleTimeline out;
    out.revision = state.revision;
    out.stepTime = e.stepTime;

    const cost::StepLanes lanes = cost::stepLanes(model.mesh(), e);
    out.lanes.resize(lanes.lanes.size());
    for (std::size_t l = 0; l < lanes.lanes.size(); ++l) {
        out.lanes[l].name = toQString(lanes.lanes[l].name);
        out.lanes[l].axes = lanes.lanes[l].axes;
    }

    const std::size_t n = std::min(graph.body.size(), e.opComputeTime.size());
    std::vector<char> rematAt(graph.body.size(), 0);
    for (const RematPoint& point : rematPoints(graph, model.planContext().blocks(), state.plan))
        rematAt[point.bodyIndex] = 1;
    TimelineLane& compute = out.lanes.front();
    for (std::size_t i = 0; i < n; ++i) {
        const double time = e.opComputeTime[i];
        if (time <= 0)
            continue;
        const double start = i < e.opStart.size() ? e.opStart[i] : 0;
        compute.boxes.push_back({start, start + time, 0, static_cast<std::uint32_t>(i), -1,
                                 TimelineKind::Compute, rematAt[i] != 0});
    }

    std::vector<std::uint32_t> bodyIndexOfOp(graph.ops.size(), static_cast<std::uint32_t>(graph.body.size()));
    for (std::size_t i = 0; i < graph.body.size(); ++i)
        bodyIndexOfOp[graph.body[i].index] = static_cast<std::uint32_t>(i);
    for (std::size_t j = 0; j < e.collectives.size(); ++j) {
        const cost::Collective& c = e.collectives[j];
        const double start = j < e.collectiveStart.size() ? e.collectiveStart[j] : 0;
        const double end = j < e.collectiveEnd.size() ? e.collectiveEnd[j] : start + c.time;
        const std::uint32_t body = c.op.index < bodyIndexOfOp.size()
                                       ? bodyIndexOfOp[c.op.index]
                                       : static_cast<std::uint32_t>(graph.body.size());
        out.lanes[lanes.laneOfCollective[j]].boxes.push_back(
            {start, end, c.bytes, body, static_cast<std::int32_t>(j), kindOf(c.kind)});
    }

    for (TimelineLane& lane : out.lanes)
        finish(lane);
    out.computeTime = compute.busy;
    out.idle = idleSpans(compute.boxes, out.stepTime, 1e-9 * out.stepTime);
    for (const TimelineSpan& span : out.idle)
        out.idleTime += span.end - span.start;
    return out;
}

QString timelineKindName(TimelineKind kind) {
    if (kind == TimelineKind::Compute)
        return QCoreApplication::translate("ScheduleTimeline", "compute");
    return toQString(cost::toString(static_cast<cost::CollectiveKind>(static_cast<int>(kind) - 1)));
}

QString timelineBoxLabel(const ProblemView& problem, const TimelineBox& box) {
    if (box.kind != TimelineKind::Compute)
        return timelineKindName(box.kind);
    const ir::Graph& graph = problem.graph();
    if (box.bodyIndex >= graph.body.size())
        return {};
    const ir::Op& op = graph.op(graph.body[box.bodyIndex]);
    return op.location.name.empty() ? toQString(ir::mnemonic(op.kind)) : toQString(op.location.name);
}

QString describeTimelineBox(const ProblemView& problem, const TimelineLane& lane, const TimelineBox& box) {
    const ir::Graph& graph = problem.graph();
    QStringList lines;
    if (box.bodyIndex < graph.body.size()) {
        const ir::Op& op = graph.op(graph.body[box.bodyIndex]);
        QString first = opText(problem, box.bodyIndex);
        if (!op.location.name.empty())
            first += QStringLiteral(" · ") + toQString(ir::mnemonic(op.kind));
        lines << first;
        if (op.location.line > 0)
            lines << toQString(op.location.toString());
    }
    if (box.kind == TimelineKind::Compute)
        lines << QCoreApplication::translate("ScheduleTimeline", "kernel: %1").arg(timeLabel(box.duration()));
    if (box.recompute)
        lines << QCoreApplication::translate("ScheduleTimeline",
                                             "remat: first recomputes its layer block's forward");
    else
        lines << QCoreApplication::translate("ScheduleTimeline", "%1 over %2: %3, %4")
                     .arg(timelineKindName(box.kind),
                          toQString(cost::axisGroupName(problem.mesh(), lane.axes)), bytesLabel(box.bytes),
                          timeLabel(box.duration()));
    lines << QCoreApplication::translate("ScheduleTimeline", "from %1 to %2")
                 .arg(msText(box.start), msText(box.end));
    return lines.join(u'\n');
}

}  // namespace shardscope::ui
