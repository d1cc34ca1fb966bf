// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The Pipeline dock: ui/core's PipelineChart against the evaluation it draws (one box per task, rows per
// stage, colours per microbatch), the "no pipeline" state, setting and removing a pipeline through the
// PlanEditor (undoable, re-evaluated), a choice that cannot run, the dock's controls and the graph's stage
// bands.
#include <algorithm>
#include <memory>
#include <set>

#include <QComboBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>

#include "core/pipeline_chart.h"
#include "core/pipeline_choices.h"
#include "core/plan_editor.h"
#include "shardscope/plan/experts.h"
#include "widgets/graph_view.h"
#include "widgets/main_window.h"
#include "widgets/pipeline_view.h"

#include "ui_test_support.h"

using namespace shardscope;
using namespace shardscope::ui;

namespace {

constexpr int kTimeoutMs = 60'000;
using StatePtr = std::shared_ptr<const PlanState>;

// A four-layer GPT training step on a mesh with a pipeline axis (what ptd-p needs: pipe, data and model).
ProblemSpec gptSpec() {
    ProblemSpec spec;
    spec.model = "zoo:gpt:layers=4";
    spec.mesh = "pipe=2,data=2,model=2";
    spec.hardware = "h100";
    spec.train = true;
    return spec;
}

std::shared_ptr<const ProblemView> gpt() {
    static const auto view = fixtures::loadView(gptSpec());
    return view;
}

plan::Plan expert(const ProblemView& view, const std::string& id) {
    const cost::CostModel& model = *view.problem->costModel;
    auto plan = plan::expertPlan(id, model.planContext(), model.mesh());
    if (!plan)
        qFatal("expert plan %s: %s", id.c_str(), plan.errorMessage().c_str());
    return std::move(plan).value();
}

StatePtr stateOf(const ProblemView& view, plan::Plan plan) {
    auto state = std::make_shared<PlanState>();
    state->revision = 3;
    state->evaluation = cost::evaluate(*view.problem->costModel, plan);
    state->plan = std::move(plan);
    return state;
}

StatePtr settledState(PlanEditor& editor) {
    if (!QTest::qWaitFor(
            [&] { return !editor.isEvaluating() && editor.state() && editor.state()->plan == editor.plan(); },
            kTimeoutMs))
        qFatal("timed out evaluating");
    return editor.state();
}

}  // namespace

class TestUiPipeline : public QObject {
    Q_OBJECT

private slots:
    void chartHasOneBoxPerTaskOnItsStage() {
        const auto view = gpt();
        const StatePtr state = stateOf(*view, expert(*view, "ptd-p"));
        const auto& evaluation = state->evaluation.pipeline;
        QVERIFY(evaluation && evaluation->pipeline);
        QVERIFY(evaluation->problem.empty());
        const PipelineChart chart = pipelineChart(*view, *state);
        QCOMPARE(chart.revision, 3u);
        QVERIFY(chart.staged);
        QVERIFY(chart.hasPipeline);
        QVERIFY(chart.absent.isEmpty());
        QCOMPARE(chart.rows.size(), std::size_t{2});  // pipe=2: two stages
        QCOMPARE(chart.microbatches, evaluation->microbatches);
        QVERIFY(chart.microbatches >= 2);
        QCOMPARE(chart.boxes.size(), evaluation->tasks.size());
        for (std::size_t r = 0; r < chart.rows.size(); ++r) {
            QCOMPARE(chart.rows[r].peakMemory, evaluation->stages[r].peakMemory);
            QCOMPARE(chart.rows[r].inFlight, evaluation->stages[r].inFlight);
        }

        // Every task is one box on its device's row, at its times; each row's boxes in time order.
        std::multiset<std::tuple<int, int, int, int, double, double>> tasks, boxes;
        for (const cost::PipelineTask& t : evaluation->tasks) {
            const bool perMicrobatch =
                t.kind == cost::PipelineTask::Kind::Forward || t.kind == cost::PipelineTask::Kind::Backward;
            tasks.insert({t.device, static_cast<int>(t.kind), t.chunk, perMicrobatch ? t.microbatch : -1,
                          t.start, t.end});
        }
        for (const PipelineBox& b : chart.boxes)
            boxes.insert({b.row, static_cast<int>(b.kind), b.chunk, b.microbatch, b.start, b.end});
        QVERIFY(tasks == boxes);
        for (std::size_t i = 1; i < chart.boxes.size(); ++i) {
            const PipelineBox& a = chart.boxes[i - 1];
            const PipelineBox& b = chart.boxes[i];
            QVERIFY(a.row < b.row || (a.row == b.row && a.start <= b.start));
        }
        for (int row = 0; row < 2; ++row) {
            const auto [first, last] = chart.rowBoxes(row);
            QVERIFY(first < last);
            int forwards = 0, backwards = 0;
            for (std::size_t i = first; i < last; ++i) {
                QCOMPARE(chart.boxes[i].row, row);
                forwards += chart.boxes[i].kind == PipelineBoxKind::Forward;
                backwards += chart.boxes[i].kind == PipelineBoxKind::Backward;
            }
            QCOMPARE(forwards, chart.microbatches);  // one chunk per stage without virtual stages
            QCOMPARE(backwards, chart.microbatches);
        }

        // Colours: one per microbatch, the forward lighter than the backward; sync and update apart.
        for (const PipelineBox& b : chart.boxes)
            QCOMPARE(b.color, pipelineBoxColor(b.kind, b.microbatch));
        std::set<QRgb> forwardColours;
        for (int m = 0; m < chart.microbatches; ++m) {
            const QColor forward = pipelineBoxColor(PipelineBoxKind::Forward, m);
            const QColor backward = pipelineBoxColor(PipelineBoxKind::Backward, m);
            QVERIFY(forward.lightness() > backward.lightness());
            QCOMPARE(forward.hue(), backward.hue());
            forwardColours.insert(forward.rgb());
        }
        QCOMPARE(forwardColours.size(), static_cast<std::size_t>(std::min(chart.microbatches, 10)));
        QVERIFY(pipelineBoxColor(PipelineBoxKind::GradientSync, -1) !=
                pipelineBoxColor(PipelineBoxKind::Update, -1));
        QVERIFY(std::any_of(chart.boxes.begin(), chart.boxes.end(),
                            [](const PipelineBox& b) { return b.kind == PipelineBoxKind::Update; }));

        // The header says the pipeline in words.
        QVERIFY2(chart.header.startsWith(QLatin1String("Pipeline over pipe: 2 stages, 1f1b")),
                 qPrintable(chart.header));
        QVERIFY(chart.header.contains(QStringLiteral("%1 microbatches").arg(chart.microbatches)));
        QVERIFY(chart.header.contains(QLatin1String("bubble ")));
        QVERIFY(chart.header.contains(QLatin1String("step ")));
        QVERIFY(describePipelineBox(chart, chart.boxes.front()).contains(QLatin1String("microbatch")));
        QVERIFY(pipelineRowDetail(chart.rows.front()).contains(QLatin1String("in flight")));
    }

    void planWithoutPipelineSaysSo() {
        const auto view = gpt();
        const StatePtr state = stateOf(*view, expert(*view, "dp-tp"));
        QVERIFY(!state->evaluation.pipeline);
        const PipelineChart chart = pipelineChart(*view, *state);
        QVERIFY(!chart.staged);
        QVERIFY(!chart.hasPipeline);
        QVERIFY(chart.boxes.empty());
        QVERIFY2(chart.absent.startsWith(QLatin1String("No pipeline: ")), qPrintable(chart.absent));
        QVERIFY(chart.absent.contains(QLatin1String("ptd-p")));
        QVERIFY(pipelineStageOfOp(*state).empty());

        PipelineCanvas canvas;
        canvas.setChart(std::make_shared<const PipelineChart>(chart));
        QCOMPARE(canvas.placeholderText(), chart.absent);
        canvas.setChart(nullptr);
        QCOMPARE(canvas.placeholderText(), QStringLiteral("No plan evaluated yet"));
    }

    void microbatchesAloneAccumulateOnOneRow() {
        const auto view = gpt();
        plan::Plan plan = expert(*view, "dp-tp");
        plan.microbatches = 2;
        const StatePtr state = stateOf(*view, plan);
        const PipelineChart chart = pipelineChart(*view, *state);
        QVERIFY(chart.staged);
        QVERIFY(!chart.hasPipeline);
        QCOMPARE(chart.rows.size(), std::size_t{1});
        QVERIFY2(chart.header.startsWith(QLatin1String("No pipeline: 2 microbatches")),
                 qPrintable(chart.header));
        QCOMPARE(std::count_if(chart.boxes.begin(), chart.boxes.end(),
                               [](const PipelineBox& b) { return b.kind == PipelineBoxKind::Forward; }),
                 2);
    }

    void stageOfEveryOp() {
        const auto view = gpt();
        const StatePtr state = stateOf(*view, expert(*view, "ptd-p"));
        const std::vector<int> stages = pipelineStageOfOp(*state);
        QCOMPARE(stages.size(), view->graph().body.size());
        QVERIFY(std::all_of(stages.begin(), stages.end(), [](int s) { return s >= -1 && s < 2; }));
        QVERIFY(std::find(stages.begin(), stages.end(), 0) != stages.end());
        QVERIFY(std::find(stages.begin(), stages.end(), 1) != stages.end());
        QVERIFY(pipelineStageColor(0) != pipelineStageColor(1));
    }

    void choicesFollowTheMesh() {
        const auto view = gpt();
        QVERIFY(defaultPipelineAxis(view->mesh()) == std::optional<int>(0));
        QCOMPARE(pipelineStageChoices(view->mesh(), 0), QList<int>({2}));
        QVERIFY(pipelineStageChoices(view->mesh(), 7).isEmpty());
        QCOMPARE(pipelineScheduleNames(), QStringList({"gpipe", "1f1b", "interleaved"}));
        QCOMPARE(pipelineLayerCount(*view), 4);
        int microbatches = 0;
        const auto suggested = suggestedPipeline(*view, plan::Plan{}, &microbatches);
        QVERIFY(suggested);
        QCOMPARE(suggested->axis, 0);
        QCOMPARE(suggested->stages, 2);
        QVERIFY(microbatches >= 2);
        QCOMPARE(pipelineAxisLabel(view->mesh(), 0), QStringLiteral("pipe (2)"));
    }

    void settingAPipelineIsUndoable() {
        PlanEditor editor;
        editor.setProblem(gpt());
        const StatePtr before = settledState(editor);
        QVERIFY(!before->evaluation.pipeline);
        const int steps = editor.undoStack()->count();

        plan::Pipeline pipeline;
        pipeline.axis = 0;
        pipeline.stages = 2;
        pipeline.schedule = plan::PipelineSchedule::GPipe;
        QCOMPARE(editor.setStaging(4, pipeline), QString());
        QCOMPARE(editor.undoStack()->count(), steps + 1);
        QVERIFY(
            editor.undoStack()->undoText().startsWith(QLatin1String("Pipeline over pipe: 2 stages, gpipe")));
        const StatePtr staged = settledState(editor);
        QVERIFY(staged->evaluation.pipeline);
        QVERIFY(staged->evaluation.pipeline->pipeline == std::optional<plan::Pipeline>(pipeline));
        QCOMPARE(staged->evaluation.pipeline->microbatches, 4);
        QVERIFY(staged->evaluation.stepTime != before->evaluation.stepTime);

        // The same again changes nothing and adds no step.
        QCOMPARE(editor.setStaging(4, pipeline), QString());
        QCOMPARE(editor.undoStack()->count(), steps + 1);

        editor.undoStack()->undo();
        QVERIFY(!editor.plan().pipeline);
        QCOMPARE(editor.plan().microbatches, 1);
        QVERIFY(!settledState(editor)->evaluation.pipeline);
        editor.undoStack()->redo();
        QVERIFY(editor.plan().pipeline == std::optional<plan::Pipeline>(pipeline));
        QVERIFY(settledState(editor)->evaluation.pipeline);

        // Removing it keeps the microbatches: gradient accumulation.
        QCOMPARE(editor.setStaging(4, std::nullopt), QString());
        const StatePtr accumulated = settledState(editor);
        QVERIFY(accumulated->evaluation.pipeline);
        QVERIFY(!accumulated->evaluation.pipeline->pipeline);
        QCOMPARE(accumulated->evaluation.pipeline->microbatches, 4);
    }

    void choiceThatCannotRunLeavesThePlan() {
        PlanEditor editor;
        editor.setProblem(gpt());
        settledState(editor);
        const plan::Plan before = editor.plan();
        const int steps = editor.undoStack()->count();

        plan::Pipeline interleaved;
        interleaved.axis = 0;
        interleaved.stages = 2;
        interleaved.schedule = plan::PipelineSchedule::Interleaved;
        interleaved.virtualStages = 2;
        QCOMPARE(
            editor.setStaging(3, interleaved),
            QStringLiteral("the interleaved schedule needs microbatches (3) divisible by the stages (2)"));
        plan::Pipeline three;
        three.axis = 0;
        three.stages = 3;
        QVERIFY(
            editor.setStaging(2, three).contains(QLatin1String("needs 2 or more stages dividing its size")));
        QVERIFY(editor.plan() == before);
        QCOMPARE(editor.undoStack()->count(), steps);
    }

    void dockSetsThePipelineAndSaysWhyNot() {
        PlanEditor editor;
        PipelineView view(&editor);
        view.resize(1000, 420);
        view.show();
        editor.setProblem(gpt());
        settledState(editor);
        auto* toggle = view.findChild<QPushButton*>(QStringLiteral("pipelineToggle"));
        auto* schedule = view.findChild<QComboBox*>(QStringLiteral("pipelineSchedule"));
        auto* microbatches = view.findChild<QSpinBox*>(QStringLiteral("pipelineMicrobatches"));
        QVERIFY(toggle && schedule && microbatches);
        QCOMPARE(toggle->text(), QStringLiteral("Add pipeline"));

        // The plan without a pipeline: the canvas says so.
        view.showState(editor.problem(), editor.state());
        QTRY_VERIFY_WITH_TIMEOUT(view.canvas()->chart(), kTimeoutMs);
        QVERIFY(view.canvas()->placeholderText().startsWith(QLatin1String("No pipeline: ")));

        // Add: the suggested pipeline on pipe, with microbatches that can run.
        toggle->click();
        QVERIFY(editor.plan().pipeline);
        QCOMPARE(editor.plan().pipeline->axis, 0);
        QCOMPARE(editor.plan().pipeline->stages, 2);
        QVERIFY(editor.plan().microbatches >= 2);
        QCOMPARE(toggle->text(), QStringLiteral("Remove pipeline"));
        QCOMPARE(microbatches->value(), editor.plan().microbatches);
        const StatePtr staged = settledState(editor);
        view.showState(editor.problem(), staged);
        QTRY_VERIFY_WITH_TIMEOUT(view.canvas()->chart() && view.canvas()->chart()->hasPipeline, kTimeoutMs);
        QVERIFY(view.headerText().startsWith(QLatin1String("Pipeline over pipe: 2 stages, 1f1b")));
        QVERIFY(view.canvas()->placeholderText().isEmpty());
        const auto chart = view.canvas()->chart();
        const QRectF plot = view.canvas()->plotArea();
        for (std::size_t i = 0; i < chart->boxes.size(); ++i) {
            const QRectF box = view.canvas()->boxRect(i);
            QVERIFY(box.top() >= plot.top() + chart->boxes[i].row * plot.height() / 2);
            QVERIFY(box.bottom() <= plot.top() + (chart->boxes[i].row + 1) * plot.height() / 2);
        }
        const std::size_t widest =
            static_cast<std::size_t>(std::max_element(chart->boxes.begin(), chart->boxes.end(),
                                                      [](const PipelineBox& a, const PipelineBox& b) {
                                                          return a.duration() < b.duration();
                                                      }) -
                                     chart->boxes.begin());
        const QPointF centre = view.canvas()->boxRect(widest).center();
        QCOMPARE(view.canvas()->boxAt(centre), &chart->boxes[widest]);
        QCOMPARE(view.canvas()->tipAt(centre), describePipelineBox(*chart, chart->boxes[widest]));

        // Zooming keeps a narrower range; Fit shows the whole step again.
        view.canvas()->zoomBy(4);
        QVERIFY(view.canvas()->viewEnd() - view.canvas()->viewStart() < chart->stepTime);
        view.canvas()->fit();
        QVERIFY(view.canvas()->viewEnd() >= chart->stepTime);

        // Three microbatches run under 1f1b; interleaved then cannot: the message, and the plan stays.
        microbatches->setValue(3);
        QCOMPARE(editor.plan().microbatches, 3);
        QVERIFY(view.messageText().isEmpty());
        const int steps = editor.undoStack()->count();
        schedule->setCurrentIndex(static_cast<int>(plan::PipelineSchedule::Interleaved));
        emit schedule->activated(schedule->currentIndex());
        QCOMPARE(
            view.messageText(),
            QStringLiteral(
                "Cannot run: the interleaved schedule needs microbatches (3) divisible by the stages (2)"));
        QVERIFY(editor.plan().pipeline->schedule == plan::PipelineSchedule::OneFOneB);
        QCOMPARE(editor.undoStack()->count(), steps);
        // Four do: the draft applies.
        microbatches->setValue(4);
        QVERIFY(view.messageText().isEmpty());
        QVERIFY(editor.plan().pipeline->schedule == plan::PipelineSchedule::Interleaved);
        QCOMPARE(editor.plan().pipeline->virtualStages, 2);
        QCOMPARE(editor.plan().microbatches, 4);

        // Remove, then undo brings it back and the controls follow.
        toggle->click();
        QVERIFY(!editor.plan().pipeline);
        QCOMPARE(toggle->text(), QStringLiteral("Add pipeline"));
        editor.undoStack()->undo();
        QVERIFY(editor.plan().pipeline);
        QCOMPARE(toggle->text(), QStringLiteral("Remove pipeline"));
        QCOMPARE(schedule->currentIndex(), static_cast<int>(plan::PipelineSchedule::Interleaved));
    }

    void graphShowsStageBands() {
        const auto view = gpt();
        const StatePtr state = stateOf(*view, expert(*view, "ptd-p"));
        GraphView graph;
        graph.resize(800, 600);
        QSignalSpy finished(&graph, &GraphView::layoutFinished);
        graph.setProblem(view);
        graph.setPlanState(state);
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() && !graph.isLayoutBusy(), kTimeoutMs);
        const auto projection = graph.projection();
        QVERIFY(projection);
        std::set<int> seen;
        for (std::size_t n = 0; n < projection->nodes.size(); ++n)
            for (int s : graph.nodeStages(static_cast<int>(n)))
                seen.insert(s);
        QCOMPARE(seen, std::set<int>({0, 1}));
        graph.setStageBandsShown(false);
        for (std::size_t n = 0; n < projection->nodes.size(); ++n)
            QVERIFY(graph.nodeStages(static_cast<int>(n)).empty());
        graph.setStageBandsShown(true);
        graph.setPlanState(stateOf(*view, expert(*view, "dp-tp")));
        for (std::size_t n = 0; n < projection->nodes.size(); ++n)
            QVERIFY(graph.nodeStages(static_cast<int>(n)).empty());
    }

    void windowHasThePipelineDock() {
        MainWindow window;
        QVERIFY(window.pipelineView());
        QVERIFY(window.showDock(QStringLiteral("pipeline")));
    }
};

QTEST_MAIN(TestUiPipeline)
#include "tst_ui_pipeline.moc"
