// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The explorer's pictures against the figures behind them: memory over the step stacked by category (the
// engine's memory walk, a linear axis, labels that never overlap), time per module as bars of compute and
// exposed communication (the schedule's), remat marked in the timeline and in memory, and the mesh with the
// link level of every axis.

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include <QDir>
#include <QFont>
#include <QHBoxLayout>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include "core/mesh_draft.h"
#include "core/mesh_picture.h"
#include "core/plan_breakdown.h"
#include "core/plan_editor.h"
#include "core/remat_choices.h"
#include "core/schedule_timeline.h"
#include "shardscope/plan/experts.h"
#include "ui_test_support.h"
#include "widgets/graph_view.h"
#include "widgets/main_window.h"
#include "widgets/memory_chart.h"
#include "widgets/mesh_view.h"
#include "widgets/module_time_chart.h"
#include "widgets/plan_breakdown_view.h"

using namespace shardscope;
using namespace shardscope::ui;

namespace {

bool near(double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

// A training step of GPT with two layers on data=2,model=2: FSDP over data, Megatron over model.
std::shared_ptr<const ProblemView> gpt() {
    static const auto view = [] {
        ProblemSpec spec;
        spec.model = "zoo:gpt:layers=2";
        spec.mesh = "data=2,model=2";
        spec.hardware = "h100";
        spec.train = true;
        return fixtures::loadView(spec);
    }();
    return view;
}

plan::Plan fsdpTp(const ProblemView& view, plan::Remat remat) {
    const cost::CostModel& model = *view.problem->costModel;
    auto plan = plan::expertPlan("fsdp-tp", model.planContext(), model.mesh());
    if (!plan)
        qFatal("expert plan fsdp-tp: %s", plan.errorMessage().c_str());
    plan::Plan out = std::move(plan).value();
    if (remat != plan::Remat::None)
        for (const std::string& family : view.blocks().families)
            out.remat.push_back({family, remat});
    return out;
}

PlanBreakdown breakdownOf(const ProblemView& view, const plan::Plan& plan) {
    cost::Evaluator evaluator(*view.problem->costModel);
    return computeBreakdown(view, evaluator, plan);
}

// A font of a fixed pixel size, so that whether labels find room does not depend on the machine's default.
QFont smallFont() {
    QFont font;
    font.setPixelSize(12);
    return font;
}

MeshAxisDraft axis(const char* name, const char* size, const char* bandwidth = "", const char* latency = "") {
    return {QString::fromLatin1(name), QString::fromLatin1(size), QString::fromLatin1(bandwidth),
            QString::fromLatin1(latency)};
}

// Every pair of `rects` apart, and each inside `area`.
void checkApart(const std::vector<MemoryChart::Label>& labels, const QRectF& area) {
    for (std::size_t i = 0; i < labels.size(); ++i) {
        QVERIFY2(area.contains(labels[i].rect), qPrintable(labels[i].text));
        for (std::size_t j = i + 1; j < labels.size(); ++j)
            QVERIFY2(!labels[i].rect.intersects(labels[j].rect),
                     qPrintable(labels[i].text + QStringLiteral(" / ") + labels[j].text));
    }
}

}  // namespace

class TestUiPictures : public QObject {
    Q_OBJECT

private slots:
    void memoryStacksTheEngineWalkByCategory() {
        const auto view = gpt();
        const plan::Plan plan = fsdpTp(*view, plan::Remat::None);
        const PlanBreakdown b = breakdownOf(*view, plan);
        const cost::Evaluation& e = b.evaluation;
        const MemoryOverStep& m = b.memory;
        QCOMPARE(m.parts.size(), m.ops.size());
        QCOMPARE(m.bytes.size(), m.ops.size());
        QVERIFY(m.withoutRemat.empty());  // no remat: nothing to compare with

        // Each sample's categories are the engine's walk at that op, and add up to the total.
        cost::Evaluator evaluator(*view->problem->costModel);
        evaluator.evaluate(plan);
        for (std::size_t s = 0; s < m.ops.size(); s += 7) {
            const cost::MemoryBreakdown live = evaluator.liveAt(m.ops[s]);
            QCOMPARE(m.parts[s].parameters, live.parameters);
            QCOMPARE(m.parts[s].activations, live.activations);
            QCOMPARE(m.parts[s].temporaries, live.temporaries);
            QVERIFY(near(m.parts[s].total(), m.bytes[s]));
        }
        // The peak sample is the evaluation's peak, its categories the evaluation's at the peak.
        const auto peak = std::find(m.ops.begin(), m.ops.end(), e.peakOp);
        QVERIFY(peak != m.ops.end());
        const auto at = static_cast<std::size_t>(peak - m.ops.begin());
        QVERIFY(near(m.bytes[at], e.peakMemory));
        QVERIFY(near(*std::max_element(m.bytes.begin(), m.bytes.end()), e.peakMemory));
        QVERIFY(near(m.parts[at].activations, e.atPeak.activations));
        QVERIFY(near(m.parts[at].optimizerState, e.atPeak.optimizerState));
        QVERIFY(m.parts[at].gradients > 0 || m.parts[at].optimizerState > 0);  // a training step

        // The chart stacks the same figures: the top band at each sample is the total.
        MemoryChart chart;
        chart.resize(640, 300);
        chart.setCurves({memoryCurveOf(m, QStringLiteral("fsdp-tp"))}, m.opCount);
        QVERIFY(chart.isStacked());
        for (std::size_t s = 0; s < m.ops.size(); s += 11) {
            const std::vector<double> stack = chart.stackAt(s);
            QCOMPARE(stack.size(), std::size_t{kMemoryCategories});
            QVERIFY(std::is_sorted(stack.begin(), stack.end()));
            QVERIFY(near(stack.back(), m.bytes[s]));
        }
        QVERIFY(chart.axis().top >= e.peakMemory);
        QVERIFY(!chart.grab().isNull());

        // Two curves to compare are lines, not stacks.
        MemoryChart compare;
        compare.setCurves({memoryCurveOf(m, QStringLiteral("a")), memoryCurveOf(m, QStringLiteral("b"))},
                          m.opCount);
        QVERIFY(!compare.isStacked());
        QVERIFY(compare.stackAt(0).empty());
    }

    void memoryAxisIsLinearAndLabelled() {
        const double kib = 1024, mib = kib * 1024, gib = mib * 1024;
        const struct {
            double highest;
            const char* unit;
        } cases[] = {{900, "bytes"},     {5000, "KiB"},        {13.98 * mib, "MiB"}, {700 * mib, "MiB"},
                     {1.2 * gib, "GiB"}, {67.06 * gib, "GiB"}, {79.9 * gib, "GiB"},  {3 * 1024 * gib, "TiB"}};
        for (const auto& c : cases) {
            const MemoryAxis axis = memoryAxis(c.highest);
            QCOMPARE(axis.unitName, QString::fromLatin1(c.unit));
            QVERIFY(axis.top >= c.highest);
            QVERIFY(axis.top < c.highest * 2.5);
            QVERIFY2(axis.ticks.size() >= 3 && axis.ticks.size() <= 12,
                     qPrintable(QString::number(axis.ticks.size())));
            QCOMPARE(axis.ticks.front(), 0.0);
            QCOMPARE(axis.ticks.back(), axis.top);
            for (std::size_t i = 1; i < axis.ticks.size(); ++i)
                QVERIFY(near(axis.ticks[i] - axis.ticks[i - 1], axis.step));
            // A step of 1, 2 or 5 times a power of ten of the unit: labels read as round numbers.
            const double mantissa =
                axis.step / axis.unit / std::pow(10.0, std::floor(std::log10(axis.step / axis.unit)));
            QVERIFY2(near(mantissa, 1) || near(mantissa, 2) || near(mantissa, 5),
                     qPrintable(QString::number(mantissa)));
            QCOMPARE(axis.label(0), QStringLiteral("0"));
            QCOMPARE(axis.label(axis.step * 2), QString::number(axis.step * 2 / axis.unit, 'g', 6));
        }

        // On the chart: equal byte steps are equal pixel steps.
        MemoryCurve curve;
        curve.ops = {0, 5, 10};
        curve.bytes = {10 * gib, 40 * gib, 20 * gib};
        curve.peak = 40 * gib;
        curve.peakOp = 5;
        curve.capacity = 72 * gib;
        MemoryChart chart;
        chart.resize(600, 300);
        chart.setCurves({curve}, 11);
        QCOMPARE(chart.axis().unitName, QStringLiteral("GiB"));
        QVERIFY(chart.axis().top >= 72 * gib);  // the capacity is on the axis
        const double y0 = chart.yOf(0);
        const double step = chart.yOf(chart.axis().step) - y0;
        QVERIFY(step < 0);
        for (std::size_t i = 0; i < chart.axis().ticks.size(); ++i)
            QVERIFY(std::abs(chart.yOf(chart.axis().ticks[i]) - (y0 + static_cast<double>(i) * step)) < 1e-6);
        QVERIFY(std::abs(chart.yOf(chart.axis().top) - chart.plotArea().top()) < 1e-6);
        QVERIFY(std::abs(y0 - chart.plotArea().bottom()) < 1e-6);
    }

    void capacityAndPeakLabelsNeverOverlap() {
        const double gib = 1024.0 * 1024 * 1024;
        // Peaks just under, at and over the capacity, at the left, middle and right of the step, for one
        // curve and two to compare (same capacity and different), on small and large charts.
        for (const double share : {0.5, 0.9, 0.97, 1.0, 1.03}) {
            for (const std::size_t peakOp : {std::size_t{0}, std::size_t{50}, std::size_t{99}}) {
                for (const QSize size : {QSize(260, 140), QSize(560, 260), QSize(1100, 420)}) {
                    for (const int curves : {1, 2, 3}) {
                        std::vector<MemoryCurve> list;
                        for (int c = 0; c < curves; ++c) {
                            MemoryCurve curve;
                            curve.name = QStringLiteral("plan %1").arg(c);
                            curve.ops = {0, peakOp, 99};
                            std::sort(curve.ops.begin(), curve.ops.end());
                            curve.ops.erase(std::unique(curve.ops.begin(), curve.ops.end()), curve.ops.end());
                            curve.capacity = (c == 2 ? 60 : 72) * gib;
                            curve.peak = share * 72 * gib * (1 - 0.01 * c);
                            curve.peakOp = peakOp;
                            curve.bytes.assign(curve.ops.size(), curve.peak / 2);
                            curve.bytes[static_cast<std::size_t>(
                                std::find(curve.ops.begin(), curve.ops.end(), peakOp) - curve.ops.begin())] =
                                curve.peak;
                            if (c == 0) {
                                curve.withoutRemat.assign(curve.ops.size(), curve.peak * 1.02);
                                curve.peakWithoutRemat = curve.peak * 1.02;
                            }
                            list.push_back(std::move(curve));
                        }
                        MemoryChart chart;
                        chart.setFont(smallFont());
                        chart.resize(size);
                        chart.setCurves(list, 100);
                        const auto labels = chart.labels();
                        const auto capacities = std::count_if(
                            labels.begin(), labels.end(),
                            [](const auto& l) { return l.kind == MemoryChart::Label::Kind::Capacity; });
                        const auto peaks = std::count_if(labels.begin(), labels.end(), [](const auto& l) {
                            return l.kind == MemoryChart::Label::Kind::Peak;
                        });
                        checkApart(labels, chart.plotArea());
                        // On a chart of ordinary size every label finds room; on a small one, a single
                        // plan's capacity and peak still do (others may be left to the tooltip).
                        if (curves == 1 || size.height() >= 260) {
                            QCOMPARE(capacities, curves == 3 ? 3 : 1);
                            QCOMPARE(peaks, curves);
                        }
                    }
                }
            }
        }
        // A capacity far above the curves is named, off the scale, and still apart from the peak.
        MemoryCurve small;
        small.ops = {0, 1, 2};
        small.bytes = {1e6, 3e6, 2e6};
        small.peak = 3e6;
        small.peakOp = 1;
        small.capacity = 72 * gib;
        MemoryChart chart;
        chart.setFont(smallFont());
        chart.resize(400, 200);
        chart.setCurves({small}, 3);
        QVERIFY(chart.axis().top < small.capacity);
        const auto labels = chart.labels();
        QCOMPARE(labels.size(), std::size_t{2});
        QVERIFY(labels.front().text.contains(QStringLiteral("off the scale")));
        checkApart(labels, chart.plotArea());
    }

    void rematShowsItsSavingAndItsRecompute() {
        const auto view = gpt();
        const plan::Plan plain = fsdpTp(*view, plan::Remat::None);
        const plan::Plan full = fsdpTp(*view, plan::Remat::Full);
        const std::vector<RematPoint> points = rematPoints(*view, full);
        QCOMPARE(points.size(), view->blocks().blocks.size());
        QVERIFY(rematPoints(*view, plain).empty());
        for (const RematPoint& point : points) {
            QVERIFY(point.bodyIndex >= view->graph().backwardStart);
            QCOMPARE(point.policy, static_cast<int>(plan::Remat::Full));
        }

        // Memory: the line without remat is the plain plan's walk, above the remat plan's peak.
        const PlanBreakdown withRemat = breakdownOf(*view, full);
        const PlanBreakdown without = breakdownOf(*view, plain);
        const MemoryOverStep& m = withRemat.memory;
        QCOMPARE(m.withoutRemat.size(), m.ops.size());
        QCOMPARE(m.ops, without.memory.ops);
        for (std::size_t s = 0; s < m.ops.size(); ++s)
            QVERIFY(near(m.withoutRemat[s], without.memory.bytes[s]));
        QVERIFY(near(m.peakWithoutRemat, without.evaluation.peakMemory));
        QVERIFY(m.peakWithoutRemat > m.peak);
        MemoryChart chart;
        chart.resize(700, 300);
        chart.setCurves({memoryCurveOf(m, QStringLiteral("full"))}, m.opCount);
        const auto labels = chart.labels();
        QVERIFY(std::any_of(labels.begin(), labels.end(), [](const auto& l) {
            return l.kind == MemoryChart::Label::Kind::PeakWithoutRemat;
        }));
        checkApart(labels, chart.plotArea());

        // Time: the recompute is what the remat points' kernels take beyond the plain plan's.
        double recompute = 0;
        for (const OpTime& op : withRemat.ops) {
            recompute += op.recompute;
            const bool point = std::any_of(points.begin(), points.end(),
                                           [&](const RematPoint& p) { return p.bodyIndex == op.bodyIndex; });
            if (!point)
                QCOMPARE(op.recompute, 0.0);
            else
                QVERIFY(near(op.recompute, op.compute - without.ops[op.bodyIndex].compute));
        }
        QVERIFY(recompute > 0);
        QVERIFY(near(recompute, withRemat.evaluation.computeTime - without.evaluation.computeTime));

        // Timeline: the remat points' kernels are marked, nothing else is; none without remat.
        auto state = std::make_shared<PlanState>();
        state->plan = full;
        state->evaluation = withRemat.evaluation;
        const ScheduleTimeline timeline = scheduleTimeline(*view->problem->costModel, *state);
        std::set<std::size_t> marked;
        for (const TimelineBox& box : timeline.lanes.front().boxes)
            if (box.recompute)
                marked.insert(box.bodyIndex);
        std::set<std::size_t> expected;
        for (const RematPoint& point : points)
            if (withRemat.ops[point.bodyIndex].compute > 0)
                expected.insert(point.bodyIndex);
        QCOMPARE(marked, expected);
        QCOMPARE(timeline.recomputeCount(), expected.size());
        for (const TimelineBox& box : timeline.lanes.front().boxes)
            if (box.recompute)
                QVERIFY(describeTimelineBox(*view, timeline.lanes.front(), box)
                            .contains(QStringLiteral("remat")));
        state->plan = plain;
        state->evaluation = without.evaluation;
        const ScheduleTimeline bare = scheduleTimeline(*view->problem->costModel, *state);
        QCOMPARE(bare.recomputeCount(), std::size_t{0});
        for (const TimelineLane& lane : bare.lanes)
            QVERIFY(std::none_of(lane.boxes.begin(), lane.boxes.end(),
                                 [](const auto& b) { return b.recompute; }));
    }

    void moduleBarsAddUpToTheSchedule() {
        const auto view = gpt();
        const PlanBreakdown b = breakdownOf(*view, fsdpTp(*view, plan::Remat::Full));
        const cost::Evaluation& e = b.evaluation;
        QVERIFY(!e.pipeline);

        // Per op: compute + exposed communication is the schedule's makespan, the exposed part the compute
        // stream's idle time on the timeline.
        double compute = 0, exposed = 0;
        for (const OpTime& op : b.ops) {
            QVERIFY(op.exposed >= 0);
            compute += op.compute;
            exposed += op.exposed;
        }
        QVERIFY(near(compute, e.computeTime));
        QVERIFY(near(compute + exposed, e.stepTime));
        auto state = std::make_shared<PlanState>();
        state->plan = b.plan;
        state->evaluation = e;
        const ScheduleTimeline timeline = scheduleTimeline(*view->problem->costModel, *state);
        QVERIFY(std::abs(exposed - timeline.idleTime) <= 1e-6 * e.stepTime);

        // Per module, at every depth: the bars partition the ops.
        const int deepest = moduleTreeDepth(b);
        QVERIFY(deepest >= 2);
        for (int depth = 1; depth <= deepest; ++depth) {
            const std::vector<ModuleTimeBar> bars = moduleTimeBars(*view, b, depth);
            QVERIFY(!bars.empty());
            double total = 0, barsCompute = 0;
            std::set<int> modules;
            for (const ModuleTimeBar& bar : bars) {
                QVERIFY(bar.depth <= depth);
                QVERIFY(modules.insert(bar.module).second);
                QVERIFY(bar.recompute <= bar.compute * (1 + 1e-12));
                total += bar.total();
                barsCompute += bar.compute;
                QVERIFY(bar.firstOp >= 0);
                const int owner = view->modules.moduleOfOp[static_cast<std::size_t>(bar.firstOp)];
                // The first op is the module's or one of its submodules'.
                int at = owner;
                while (at >= 0 && at != bar.module)
                    at = view->modules.modules[static_cast<std::size_t>(at)].parent;
                QCOMPARE(at, bar.module);
            }
            QVERIFY2(near(total, e.stepTime),
                     qPrintable(QString::number(total) + " vs " + QString::number(e.stepTime)));
            QVERIFY(near(barsCompute, e.computeTime));
        }

        // The table's Exposed column gives the same figures.
        PlanTimeModel table;
        table.setBreakdown(view, std::make_shared<const PlanBreakdown>(b));
        QVERIFY(near(table.index(0, PlanTimeModel::ExposedColumn).data(SortRole).toDouble(), exposed));
        QCOMPARE(table.headerData(PlanTimeModel::ExposedColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Exposed"));

        // With microbatches the ops are one microbatch's program: the bars add up to its schedule.
        plan::Plan staged = b.plan;
        staged.microbatches = 2;
        const PlanBreakdown m = breakdownOf(*view, staged);
        QVERIFY(m.evaluation.pipeline);
        QVERIFY(m.evaluation.pipeline->problem.empty());
        double microbatch = 0;
        for (const ModuleTimeBar& bar : moduleTimeBars(*view, m, 1))
            microbatch += bar.total();
        QVERIFY2(near(microbatch, m.evaluation.pipeline->microbatchTime),
                 qPrintable(QString::number(microbatch) + " vs " +
                            QString::number(m.evaluation.pipeline->microbatchTime)));

        // The chart draws the bars to scale and says which was clicked.
        const std::vector<ModuleTimeBar> bars = moduleTimeBars(*view, b, 1);
        ModuleTimeChart chart;
        chart.resize(700, 400);
        chart.setBars(bars, e.stepTime);
        QCOMPARE(chart.bars().size(), bars.size());
        const auto longest = static_cast<std::size_t>(
            std::max_element(bars.begin(), bars.end(),
                             [](const auto& x, const auto& y) { return x.total() < y.total(); }) -
            bars.begin());
        const double full = chart.computeRect(longest).width() + chart.exposedRect(longest).width();
        QVERIFY(full > 100);
        for (std::size_t i = 0; i < bars.size(); ++i) {
            QVERIFY(std::abs(chart.computeRect(i).width() - full * bars[i].compute / bars[longest].total()) <
                    1e-6);
            QVERIFY(std::abs(chart.exposedRect(i).width() - full * bars[i].exposed / bars[longest].total()) <
                    1e-6);
            QCOMPARE(chart.exposedRect(i).left(), chart.computeRect(i).right());
            if (i > 0)
                QVERIFY(chart.computeRect(i).top() >= chart.computeRect(i - 1).bottom());
        }
        QSignalSpy clicked(&chart, &ModuleTimeChart::barClicked);
        const QRectF target = chart.computeRect(longest);
        QTest::mouseClick(&chart, Qt::LeftButton, Qt::NoModifier, target.center().toPoint());
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.first().first().value<std::size_t>(), longest);
        QVERIFY(!chart.grab().isNull());
    }

    void meshPictureShowsEveryAxisWithItsLinkLevel() {
        MeshDraft draft;
        const int h100 = draft.addHardware(QStringLiteral("h100"));
        const auto profile = mesh::loadHardware("h100");
        QVERIFY(profile.ok());
        const std::vector<mesh::LinkLevel> levels = profile->linkLevels();
        QVERIFY(levels.size() >= 2);
        const QString nvlink = QString::fromStdString(levels[0].name);
        const QString network = QString::fromStdString(levels[1].name);

        // data=4,model=4 on 8-GPU nodes: model inside a node; data 2 inside × 2 across nodes.
        MeshDraftCheck check = draft.check(h100, {axis("data", "4"), axis("model", "4")}, {});
        QVERIFY2(check.error.isEmpty(), qPrintable(check.error));
        const MeshPicture& p = check.picture;
        QCOMPARE(p.devices, std::int64_t{16});
        QCOMPARE(p.axes.size(), std::size_t{2});
        QCOMPARE(p.axes[1].name, QStringLiteral("model"));
        QVERIFY(p.axes[1].across);
        QVERIFY(!p.axes[0].across);
        QCOMPARE(p.axes[1].levels.size(), std::size_t{1});
        QCOMPARE(p.axes[1].levels[0].name, nvlink);
        QCOMPARE(p.axes[0].levels.size(), std::size_t{2});
        QCOMPARE(p.axes[0].levels[0].name, nvlink);
        QCOMPARE(p.axes[0].levels[0].devices, std::int64_t{2});
        QCOMPARE(p.axes[0].levels[1].name, network);
        QCOMPARE(p.domainDevices, std::int64_t{8});
        QCOMPARE(p.columns * p.rows, p.devices);

        // Every device in its own cell; a step along an axis moves the way the axis runs.
        std::set<std::pair<std::int64_t, std::int64_t>> cells;
        for (std::int64_t d = 0; d < p.devices; ++d)
            QVERIFY(cells.insert(p.cellOf(d)).second);
        MeshView view;
        view.resize(400, view.heightForWidth(400));
        view.setPicture(p);
        for (std::size_t a = 0; a < p.axes.size(); ++a) {
            const QRectF first = view.cellRect(p.deviceAlong(a, 0)),
                         second = view.cellRect(p.deviceAlong(a, 1));
            QVERIFY(!first.intersects(second));
            if (p.axes[a].across)
                QVERIFY(second.left() > first.left() && second.top() == first.top());
            else
                QVERIFY(second.top() > first.top() && second.left() == first.left());
        }
        for (std::int64_t d = 0; d + 1 < p.devices; ++d)
            QVERIFY(!view.cellRect(d).isEmpty());
        const QStringList lines = view.axisLines();
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines[0].startsWith(QStringLiteral("data")) && lines[0].contains(nvlink) &&
                lines[0].contains(network));
        QVERIFY(lines[1].startsWith(QStringLiteral("model")) && lines[1].contains(nvlink) &&
                !lines[1].contains(network));
        QVERIFY(!view.grab().isNull());

        // Three link levels: a pod axis on the pod network, three axes laid out across, down, across.
        const int pods = draft.addHardware(QStringLiteral("h100-2pods"));
        check = draft.check(pods, {axis("pod", "2"), axis("data", "32"), axis("model", "8")}, {});
        QVERIFY2(check.error.isEmpty(), qPrintable(check.error));
        const auto podProfile = mesh::loadHardware("h100-2pods");
        QVERIFY(podProfile.ok());
        const auto podLevels = podProfile->linkLevels();
        QCOMPARE(podLevels.size(), std::size_t{3});
        const MeshPicture& q = check.picture;
        QCOMPARE(q.axes.size(), std::size_t{3});
        QCOMPARE(q.axes[0].levels.back().name, QString::fromStdString(podLevels[2].name));
        QCOMPARE(q.axes[1].levels.back().name, QString::fromStdString(podLevels[1].name));
        QCOMPARE(q.axes[2].levels.back().name, QString::fromStdString(podLevels[0].name));
        QVERIFY(q.axes[0].across && !q.axes[1].across && q.axes[2].across);
        QCOMPARE(q.columns, std::int64_t{16});
        QCOMPARE(q.rows, std::int64_t{32});
        for (const MeshPictureAxis& axis : q.axes)
            for (const MeshPictureLevel& level : axis.levels)
                QVERIFY(!level.name.isEmpty());

        // Figures the user typed are not the hardware's link.
        check = draft.check(h100, {axis("data", "2"), axis("model", "4", "100", "3")}, {});
        QVERIFY2(check.error.isEmpty(), qPrintable(check.error));
        QVERIFY(check.picture.axes[1].edited);
        QVERIFY(check.picture.axes[1].levels.front().name.isEmpty());
        QCOMPARE(check.picture.axes[1].levels.front().bandwidth, 100e9);
        QVERIFY(!check.picture.axes[0].edited);

        // A mesh that does not build has no picture.
        check = draft.check(h100, {axis("data", "0")}, {});
        QVERIFY(!check.error.isEmpty());
        QCOMPARE(check.picture.devices, std::int64_t{0});
    }

    void breakdownFollowsTheEditedPlanInTheWindow() {
        MainWindow window;
        window.setAttribute(Qt::WA_DontShowOnScreen);
        window.show();
        QVERIFY(!window.showDock(QStringLiteral("breakdown:no such tab")));
        QVERIFY(window.showDock(QStringLiteral("breakdown:memory")));
        auto* view = window.findChild<PlanBreakdownView*>(QStringLiteral("planBreakdown"));
        QVERIFY(view);
        QCOMPARE(view->tabs()->tabText(view->tabs()->currentIndex()), QStringLiteral("Memory"));

        // Settled once the breakdown in view is computed too: it is the edited plan's.
        QSignalSpy settled(&window, &MainWindow::settled);
        ProblemSpec spec;
        spec.model = "zoo:gpt:layers=2";
        spec.mesh = "data=2,model=2";
        spec.train = true;
        window.setSpec(spec);
        window.setPlanToOpen(QStringLiteral("expert:fsdp-tp+full"));
        window.openModel(QString::fromStdString(spec.model));
        QVERIFY(settled.wait(60'000));
        QVERIFY(!view->isComputing());
        QVERIFY(view->breakdown());
        QVERIFY(view->breakdown()->plan == window.planEditor()->state()->plan);
        QVERIFY(!view->breakdown()->plan.remat.empty());
        QVERIFY(view->memoryChart()->isStacked());
        QVERIFY(!view->memoryChart()->curves().front().withoutRemat.empty());

        // Clicking a module's bar shows its first op on the graph.
        QVERIFY(window.showDock(QStringLiteral("breakdown:time")));
        QCoreApplication::processEvents();
        ModuleTimeChart* chart = view->moduleTimeChart();
        QVERIFY(!chart->bars().empty());
        const auto bar = static_cast<std::size_t>(
            std::max_element(chart->bars().begin(), chart->bars().end(),
                             [](const auto& a, const auto& b) { return a.total() < b.total(); }) -
            chart->bars().begin());
        const long long first = chart->bars()[bar].firstOp;
        QVERIFY(first >= 0);
        QSignalSpy located(view, &PlanBreakdownView::locateOp);
        QTest::mouseClick(chart, Qt::LeftButton, Qt::NoModifier, chart->computeRect(bar).center().toPoint());
        QCOMPARE(located.count(), 1);
        QCOMPARE(located.first().first().value<std::size_t>(), static_cast<std::size_t>(first));
        GraphView* graph = window.graphView();
        QTRY_VERIFY_WITH_TIMEOUT(!graph->isLayoutBusy() && graph->selectedNode() && graph->projection(),
                                 60'000);
        const auto& ops = graph->projection()->nodes[static_cast<std::size_t>(*graph->selectedNode())].ops;
        QVERIFY(std::find(ops.begin(), ops.end(), static_cast<std::size_t>(first)) != ops.end());

        // An edit: the breakdown follows it.
        window.planEditor()->replacePlan({}, QStringLiteral("no plan"));
        QTRY_VERIFY_WITH_TIMEOUT(
            !view->isComputing() && view->breakdown() && view->breakdown()->plan.decisions.empty(), 60'000);
        QVERIFY(view->memoryChart()->curves().front().withoutRemat.empty());
    }

    // The mesh picture of docs/explorer.md, for a person to look at (set SHARDSCOPE_PANEL_SHOTS to a
    // directory): data=4,model=4 on H100 nodes beside pod=2,data=32,model=8 on two pods.
    void meshScreenshot() {
        const QString dir = qEnvironmentVariable("SHARDSCOPE_PANEL_SHOTS");
        if (dir.isEmpty())
            QSKIP("SHARDSCOPE_PANEL_SHOTS not set");
        QDir().mkpath(dir);
        MeshDraft draft;
        const int h100 = draft.addHardware(QStringLiteral("h100"));
        const int pods = draft.addHardware(QStringLiteral("h100-2pods"));
        QWidget pair;
        pair.setAutoFillBackground(true);
        pair.setBackgroundRole(QPalette::Base);
        auto* layout = new QHBoxLayout(&pair);
        auto* left = new MeshView;
        left->setPicture(draft.check(h100, {axis("data", "4"), axis("model", "4")}, {}).picture);
        auto* right = new MeshView;
        right->setPicture(
            draft.check(pods, {axis("pod", "2"), axis("data", "32"), axis("model", "8")}, {}).picture);
        layout->addWidget(left, 2);
        layout->addWidget(right, 3);
        pair.resize(880, 10);
        pair.show();
        QCoreApplication::processEvents();
        pair.resize(
            880, std::max(left->heightForWidth(left->width()), right->heightForWidth(right->width())) + 20);
        QCoreApplication::processEvents();
        QVERIFY(pair.grab().save(dir + QStringLiteral("/mesh.png")));
    }
};

QTEST_MAIN(TestUiPictures)
#include "tst_ui_pictures.moc"
