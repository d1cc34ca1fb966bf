// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The Timeline dock: ui/core's ScheduleTimeline against the evaluation it draws (and the Chrome trace's
// lanes), the canvas's fit, zoom, pan and click, and the main window selecting the op of a clicked box.
#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTextBrowser>
#include <QToolButton>
#include <QWheelEvent>

#include "core/plan_breakdown.h"
#include "core/plan_editor.h"
#include "core/schedule_timeline.h"
#include "shardscope/export/trace.h"
#include "shardscope/plan/experts.h"
#include "widgets/graph_view.h"
#include "widgets/main_window.h"
#include "widgets/timeline_view.h"

#include "ui_test_support.h"

using namespace shardscope;
using namespace shardscope::ui;

namespace {

constexpr int kLoadTimeoutMs = 60'000;

// A small training step with collectives over both axes: GPT with two layers, FSDP over data, Megatron over
// model.
ProblemSpec gptSpec() {
    ProblemSpec spec;
    spec.model = "zoo:gpt:layers=2";
    spec.mesh = "data=2,model=2";
    spec.hardware = "h100";
    spec.train = true;
    return spec;
}

std::shared_ptr<const ProblemView> gpt() {
    static const auto view = fixtures::loadView(gptSpec());
    return view;
}

std::shared_ptr<const PlanState> fsdpTpState(const ProblemView& view) {
    const cost::CostModel& model = *view.problem->costModel;
    auto plan = plan::expertPlan("fsdp-tp", model.planContext(), model.mesh());
    if (!plan)
        qFatal("expert plan fsdp-tp: %s", plan.errorMessage().c_str());
    auto state = std::make_shared<PlanState>();
    state->revision = 7;
    state->evaluation = cost::evaluate(model, *plan);
    state->plan = std::move(plan).value();
    return state;
}

bool near(double a, double b, double scale) {
    return std::abs(a - b) <= 1e-9 * std::max(1e-12, scale);
}

// The Chrome trace's thread names by tid.
QStringList traceThreadNames(const cost::CostModel& model, const cost::Evaluation& evaluation) {
    const QJsonDocument trace =
        QJsonDocument::fromJson(QByteArray::fromStdString(exporting::chromeTrace(model, evaluation)));
    QStringList names;
    for (const QJsonValue& value : trace.object().value(QStringLiteral("traceEvents")).toArray()) {
        const QJsonObject event = value.toObject();
        if (event.value(QStringLiteral("name")).toString() != QLatin1String("thread_name"))
            continue;
        const int tid = event.value(QStringLiteral("tid")).toInt();
        while (names.size() <= tid)
            names.append(QString());
        names[tid] = event.value(QStringLiteral("args")).toObject().value(QStringLiteral("name")).toString();
    }
    return names;
}

// The index of the longest box of `lane`.
std::size_t longestBox(const TimelineLane& lane) {
    const auto it = std::max_element(lane.boxes.begin(), lane.boxes.end(), [](const auto& a, const auto& b) {
        return a.duration() < b.duration();
    });
    return static_cast<std::size_t>(it - lane.boxes.begin());
}

// Zooms around box `box` of `lane` until it is wide enough to click; returns its centre.
QPoint reveal(TimelineCanvas& canvas, std::size_t lane, std::size_t box) {
    for (int i = 0; i < 60 && canvas.boxRect(lane, box).width() < 12; ++i)
        canvas.zoomBy(2, canvas.boxRect(lane, box).center().x());
    return canvas.boxRect(lane, box).center().toPoint();
}

void sendWheel(QWidget* widget, QPointF at, QPoint angle, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
    QWheelEvent wheel(at, widget->mapToGlobal(at), QPoint(), angle, Qt::NoButton, modifiers,
                      Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(widget, &wheel);
    QVERIFY(wheel.isAccepted());
}

void sendMouse(QWidget* widget, QEvent::Type type, QPointF at, Qt::MouseButtons buttons) {
    const Qt::MouseButton button = type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton;
    QMouseEvent event(type, at, widget->mapToGlobal(at), button, buttons, Qt::NoModifier);
    QCoreApplication::sendEvent(widget, &event);
}

}  // namespace

class TestUiTimeline : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // the main window's QSettings go to a test location
        QCoreApplication::setOrganizationName(QStringLiteral("Shardscope"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_ui_timeline"));
    }

    // Every kernel and every collective of the evaluation, once, where the schedule put it, on the lane the
    // trace puts it on; the idle spans are the step's time without compute.
    void lanesAndBoxesFollowTheSchedule() {
        const auto view = gpt();
        const cost::CostModel& model = *view->problem->costModel;
        const auto state = fsdpTpState(*view);
        const cost::Evaluation& e = state->evaluation;
        const ir::Graph& graph = view->graph();
        QVERIFY(!e.collectives.empty());
        QVERIFY(e.stepTime > 0);

        const ScheduleTimeline timeline = scheduleTimeline(model, *state);
        QCOMPARE(timeline.revision, std::uint64_t{7});
        QCOMPARE(timeline.stepTime, e.stepTime);

        // Lanes: compute first, then the device groups as the trace names and orders them.
        QVERIFY(timeline.lanes.size() >= 3);
        QCOMPARE(timeline.lanes.front().name, QStringLiteral("compute"));
        QCOMPARE(timeline.lanes.front().axes, 0u);
        QStringList names;
        for (const TimelineLane& lane : timeline.lanes)
            names.append(lane.name);
        QCOMPARE(names, traceThreadNames(model, e));
        QVERIFY(names.contains(QStringLiteral("collectives over data")));
        QVERIFY(names.contains(QStringLiteral("collectives over model")));
        std::vector<std::uint32_t> groupsInOrder;
        for (const cost::Collective& c : e.collectives)
            if (std::find(groupsInOrder.begin(), groupsInOrder.end(), c.axes) == groupsInOrder.end())
                groupsInOrder.push_back(c.axes);
        QCOMPARE(timeline.lanes.size(), groupsInOrder.size() + 1);
        for (std::size_t l = 1; l < timeline.lanes.size(); ++l)
            QCOMPARE(timeline.lanes[l].axes, groupsInOrder[l - 1]);

        // Kernels: one per op with compute time, at its start, for its time.
        std::set<std::size_t> withCompute;
        for (std::size_t i = 0; i < e.opComputeTime.size(); ++i)
            if (e.opComputeTime[i] > 0)
                withCompute.insert(i);
        QVERIFY(!withCompute.empty());
        const TimelineLane& compute = timeline.lanes.front();
        QCOMPARE(compute.boxes.size(), withCompute.size());
        std::set<std::size_t> kernels;
        for (const TimelineBox& box : compute.boxes) {
            QCOMPARE(box.kind, TimelineKind::Compute);
            QCOMPARE(box.collective, -1);
            kernels.insert(box.bodyIndex);
            QCOMPARE(box.start, e.opStart[box.bodyIndex]);
            QCOMPARE(box.end, e.opStart[box.bodyIndex] + e.opComputeTime[box.bodyIndex]);
        }
        QVERIFY(kernels == withCompute);

        // Collectives: each once, on the lane of its axes, from its start to its end, caused by its op.
        std::vector<int> seen(e.collectives.size(), 0);
        for (std::size_t l = 1; l < timeline.lanes.size(); ++l) {
            const TimelineLane& lane = timeline.lanes[l];
            QVERIFY(!lane.boxes.empty());
            for (const TimelineBox& box : lane.boxes) {
                QVERIFY(box.collective >= 0 &&
                        static_cast<std::size_t>(box.collective) < e.collectives.size());
                const auto j = static_cast<std::size_t>(box.collective);
                const cost::Collective& c = e.collectives[j];
                ++seen[j];
                QCOMPARE(lane.axes, c.axes);
                QCOMPARE(box.start, e.collectiveStart[j]);
                QCOMPARE(box.end, e.collectiveEnd[j]);
                QCOMPARE(box.bytes, c.bytes);
                QCOMPARE(static_cast<int>(box.kind), 1 + static_cast<int>(c.kind));
                QVERIFY(box.bodyIndex < graph.body.size());
                QVERIFY(graph.body[box.bodyIndex] == c.op);
            }
        }
        QVERIFY(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));

        // Every lane in start order, within the step; boxesIn finds every box overlapping a window.
        for (std::size_t l = 0; l < timeline.lanes.size(); ++l) {
            const auto& boxes = timeline.lanes[l].boxes;
            QVERIFY(std::is_sorted(boxes.begin(), boxes.end(),
                                   [](const auto& a, const auto& b) { return a.start < b.start; }));
            for (const TimelineBox& box : boxes)
                QVERIFY(box.start >= 0 && box.end >= box.start && box.end <= e.stepTime * (1 + 1e-12));
            for (double f : {0.0, 0.1, 0.37, 0.5, 0.9}) {
                const double from = f * e.stepTime, to = from + 0.05 * e.stepTime;
                const auto [first, last] = timeline.boxesIn(l, from, to);
                for (std::size_t i = 0; i < boxes.size(); ++i)
                    if (boxes[i].end > from && boxes[i].start < to)
                        QVERIFY2(i >= first && i < last,
                                 qPrintable(QStringLiteral("lane %1 box %2").arg(l).arg(i)));
            }
        }

        // The compute lane idles for what is left of the step, never under a kernel.
        QVERIFY(near(timeline.computeTime, e.computeTime, e.stepTime));
        QVERIFY(near(timeline.computeTime + timeline.idleTime, e.stepTime, e.stepTime));
        for (const TimelineSpan& span : timeline.idle) {
            QVERIFY(span.end > span.start);
            const auto [first, last] = timeline.boxesIn(0, span.start, span.end);
            for (std::size_t i = first; i < last; ++i) {
                const TimelineBox& kernel = compute.boxes[i];
                QVERIFY(kernel.end <= span.start + 1e-9 * e.stepTime ||
                        kernel.start >= span.end - 1e-9 * e.stepTime);
            }
        }
    }

    // The tooltip names the op and, for a collective, its kind, device group and bytes.
    void boxesAreDescribed() {
        const auto view = gpt();
        const ScheduleTimeline timeline = scheduleTimeline(*view->problem->costModel, *fsdpTpState(*view));
        const TimelineLane& lane = timeline.lanes[1];
        const TimelineBox& collective = lane.boxes[longestBox(lane)];
        const QString text = describeTimelineBox(*view, lane, collective);
        QVERIFY2(text.contains(opText(*view, collective.bodyIndex)), qPrintable(text));
        QVERIFY2(text.contains(timelineKindName(collective.kind)), qPrintable(text));
        QVERIFY2(text.contains(bytesLabel(collective.bytes)), qPrintable(text));
        QVERIFY2(text.contains(lane.name.mid(QStringLiteral("collectives ").size())),
                 qPrintable(text));  // "over data"
        const TimelineBox& kernel = timeline.lanes[0].boxes.front();
        QVERIFY(
            describeTimelineBox(*view, timeline.lanes[0], kernel).contains(opText(*view, kernel.bodyIndex)));
        QCOMPARE(timelineKindName(TimelineKind::Compute), QStringLiteral("compute"));
        QCOMPARE(timelineKindName(TimelineKind::AllReduce), QStringLiteral("all-reduce"));
    }

    // The widget shows the state, fits the step, zooms around the cursor, pans by dragging and reports
    // clicks.
    void viewShowsFitsZoomsAndClicks() {
        const auto problem = gpt();
        const auto state = fsdpTpState(*problem);
        TimelineView view;
        view.resize(900, 300);
        view.show();
        TimelineCanvas* canvas = view.canvas();
        auto* fit = view.findChild<QToolButton*>(QStringLiteral("timelineFit"));
        QVERIFY(fit);

        // Empty: no lanes, nothing to fit.
        QCOMPARE(canvas->laneCount(), 0);
        QVERIFY(!fit->isEnabled());
        QVERIFY(view.summaryText().isEmpty());
        QVERIFY(!view.grab().isNull());

        view.showState(problem, state);
        const ScheduleTimeline expected = scheduleTimeline(*problem->problem->costModel, *state);
        QCOMPARE(canvas->laneCount(), static_cast<int>(expected.lanes.size()));
        QVERIFY(canvas->timeline());
        QCOMPARE(canvas->timeline()->boxCount(), expected.boxCount());
        QVERIFY(fit->isEnabled());
        QVERIFY(!view.summaryText().isEmpty());
        QVERIFY(!view.grab().isNull());

        // Fitted: the whole step across the plot, its end near the right edge.
        const QRectF plot = canvas->plotArea();
        const double step = expected.stepTime;
        QCOMPARE(canvas->viewStart(), 0.0);
        QCOMPARE(canvas->xOf(0), plot.left());
        QVERIFY(canvas->xOf(step) <= plot.right());
        QVERIFY(canvas->xOf(step) >= plot.right() - 0.05 * plot.width());
        const double fullSpan = canvas->viewEnd() - canvas->viewStart();

        // The wheel zooms in around the cursor (and is taken, so a scroll area around it does not scroll).
        const QPointF at(plot.left() + 0.3 * plot.width(), plot.center().y());
        const double under = canvas->timeAt(at.x());
        sendWheel(canvas, at, QPoint(0, 120));
        QVERIFY(canvas->viewEnd() - canvas->viewStart() < fullSpan * 0.9);
        QVERIFY(std::abs(canvas->timeAt(at.x()) - under) < 1e-6 * step);
        sendWheel(canvas, at, QPoint(0, 240), Qt::ControlModifier);
        QVERIFY(std::abs(canvas->timeAt(at.x()) - under) < 1e-6 * step);
        const double zoomedSpan = canvas->viewEnd() - canvas->viewStart();
        QVERIFY(zoomedSpan < fullSpan / 1.5);

        // Dragging left by 100 px shows later times, and is no click.
        QSignalSpy selected(&view, &TimelineView::opSelected);
        const double startBefore = canvas->viewStart();
        sendMouse(canvas, QEvent::MouseButtonPress, at, Qt::LeftButton);
        sendMouse(canvas, QEvent::MouseMove, at - QPointF(50, 0), Qt::LeftButton);
        sendMouse(canvas, QEvent::MouseMove, at - QPointF(100, 0), Qt::LeftButton);
        sendMouse(canvas, QEvent::MouseButtonRelease, at - QPointF(100, 0), Qt::NoButton);
        QVERIFY(std::abs(canvas->viewStart() - (startBefore + 100 * zoomedSpan / plot.width())) <
                1e-6 * step);
        QCOMPARE(selected.count(), 0);

        // Fit shows the whole step again.
        QTest::mouseClick(fit, Qt::LeftButton);
        QCOMPARE(canvas->viewStart(), 0.0);
        QCOMPARE(canvas->viewEnd(), fullSpan);

        // A click on a kernel, then on a collective, selects its op.
        const TimelineLane& kernels = canvas->timeline()->lanes[0];
        const std::size_t kernel = longestBox(kernels);
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, reveal(*canvas, 0, kernel));
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.takeFirst().first().value<std::size_t>(),
                 std::size_t{kernels.boxes[kernel].bodyIndex});
        canvas->fit();
        const TimelineLane& lane = canvas->timeline()->lanes[1];
        const std::size_t collective = longestBox(lane);
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, reveal(*canvas, 1, collective));
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.takeFirst().first().value<std::size_t>(),
                 std::size_t{lane.boxes[collective].bodyIndex});

        // Inside a scroll area, the wheel zooms the timeline and leaves the scroll bar alone.
        QScrollArea area;
        auto* tall = new TimelineView;
        tall->setMinimumHeight(2000);
        area.setWidget(tall);
        area.setWidgetResizable(true);
        area.resize(900, 400);
        area.show();
        tall->showState(problem, state);
        QCOMPARE(area.verticalScrollBar()->value(), 0);
        const QRectF tallPlot = tall->canvas()->plotArea();
        sendWheel(tall->canvas(), tallPlot.center(), QPoint(0, -120));
        sendWheel(tall->canvas(), tallPlot.center(), QPoint(0, 120));
        QCOMPARE(area.verticalScrollBar()->value(), 0);

        // Nothing to show again.
        view.showState(problem, nullptr);
        QCOMPARE(canvas->laneCount(), 0);
        QVERIFY(!fit->isEnabled());
    }

    // The dock follows the edited plan, and clicking a box selects its op as the graph and the conflicts do.
    void clickingABoxSelectsItsOpInTheWindow() {
        MainWindow window;
        window.setAttribute(Qt::WA_DontShowOnScreen);
        window.show();
        QSignalSpy settled(&window, &MainWindow::settled);
        window.setSpec(gptSpec());
        window.setPlanToOpen(QStringLiteral("expert:fsdp-tp"));
        window.openModel(QString::fromStdString(gptSpec().model));
        QVERIFY(settled.wait(kLoadTimeoutMs));
        QVERIFY(!window.showDock(QStringLiteral("no such panel")));
        QVERIFY(window.showDock(QStringLiteral("timeline")));
        QCoreApplication::processEvents();

        TimelineView* timeline = window.timelineView();
        const auto state = window.planEditor()->state();
        QVERIFY(state && timeline->canvas()->timeline());
        QCOMPARE(timeline->canvas()->timeline()->revision, state->revision);
        const ScheduleTimeline expected =
            scheduleTimeline(*window.currentModel()->problem->costModel, *state);
        QCOMPARE(timeline->canvas()->laneCount(), static_cast<int>(expected.lanes.size()));
        QCOMPARE(timeline->canvas()->timeline()->boxCount(), expected.boxCount());

        const TimelineLane& lane = timeline->canvas()->timeline()->lanes[1];
        const std::size_t box = longestBox(lane);
        const std::size_t body = lane.boxes[box].bodyIndex;
        QTest::mouseClick(timeline->canvas(), Qt::LeftButton, Qt::NoModifier,
                          reveal(*timeline->canvas(), 1, box));
        auto* details = window.findChild<QTextBrowser*>(QStringLiteral("detailsView"));
        QVERIFY(details);
        QVERIFY2(details->toPlainText().contains(QStringLiteral("#%1 of the body").arg(body)),
                 qPrintable(details->toPlainText()));
        // The graph opens the op's module and selects it.
        GraphView* graph = window.graphView();
        QTRY_VERIFY_WITH_TIMEOUT(!graph->isLayoutBusy() && graph->selectedNode() && graph->projection(),
                                 kLoadTimeoutMs);
        const auto& ops = graph->projection()->nodes[static_cast<std::size_t>(*graph->selectedNode())].ops;
        QVERIFY(std::find(ops.begin(), ops.end(), body) != ops.end());

        // A new plan: the timeline follows it.
        window.planEditor()->replacePlan({}, QStringLiteral("no plan"));
        QTRY_VERIFY_WITH_TIMEOUT(
            !window.planEditor()->isEvaluating() && window.planEditor()->state()->plan.decisions.empty(),
            kLoadTimeoutMs);
        QCOMPARE(timeline->canvas()->timeline()->revision, window.planEditor()->state()->revision);
    }
};

QTEST_MAIN(TestUiTimeline)
#include "tst_ui_timeline.moc"
