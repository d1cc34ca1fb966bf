// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The plan editor (pins, forbids, conflict choices with undo/redo, evaluated in the background) and the
// problem loader (models, workspaces, plans carried across a change of mesh).
#include <memory>

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>
#include <QUndoStack>

#include "core/plan_editor.h"
#include "core/problem_loader.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/session/plan_source.h"
#include "shardscope/store/workspace.h"
#include "test_paths.h"
#include "ui_test_support.h"

using namespace shardscope;
using namespace shardscope::ui;

namespace {

constexpr int kTimeoutMs = 60'000;
using ProblemPtr = std::shared_ptr<const ProblemView>;
using StatePtr = std::shared_ptr<const PlanState>;

ProblemRequest demoRequest(const std::string& mesh = "data=2,model=4") {
    ProblemRequest request;
    request.spec.model = "zoo:demo";
    request.spec.mesh = mesh;
    return request;
}

// Waits until the editor has evaluated its current plan; returns that state.
StatePtr settledState(PlanEditor& editor) {
    if (!QTest::qWaitFor(
            [&] { return !editor.isEvaluating() && editor.state() && editor.state()->plan == editor.plan(); },
            kTimeoutMs))
        qFatal("timed out evaluating");
    return editor.state();
}

plan::Decision groupDecision(const ProblemView& problem, const std::string& label, const std::string& axis) {
    auto decision = session::decisionFromLabel(label + "=" + axis, problem.space(), problem.mesh(), "test");
    if (!decision || decision->target != plan::Decision::Target::Group)
        qFatal("no group %s", label.c_str());
    return *decision;
}

}  // namespace

class TestUiPlanEditor : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        demo_ = fixtures::loadThroughLoader(demoRequest());
        QVERIFY(demo_);
        QVERIFY(!demo_->modules.modules.empty());
    }

    void evaluatesInTheBackgroundAndMatchesTheEngine() {
        PlanEditor editor;
        QSignalSpy evaluated(&editor, &PlanEditor::evaluated);
        // Whoever hears that an evaluation ended must find its result (the window's "settled" relies on it).
        int endedWithoutState = 0;
        connect(&editor, &PlanEditor::evaluatingChanged, this, [&](bool evaluating) {
            if (!evaluating && (!editor.state() || editor.state()->plan != editor.plan()))
                ++endedWithoutState;
        });
        editor.setProblem(demo_);
        QVERIFY(editor.isEvaluating());  // setProblem returns before the evaluation
        const StatePtr empty = settledState(editor);
        QVERIFY(empty->plan.decisions.empty());
        QVERIFY(empty->evaluation.stepTime > 0);
        QCOMPARE(empty->shardings.size(), demo_->graph().values.size());

        // Pin the d_ff group on the model axis: the cost changes, equals a fresh evaluation, and the tensors
        // carry it.
        const plan::Decision dff = groupDecision(*demo_, "layers.*.mlp.d_ff", "model");
        editor.pin(dff);
        QCOMPARE(editor.plan().decisions.size(), std::size_t{1});
        QCOMPARE(editor.plan().pinned, std::size_t{1});
        const StatePtr pinned = settledState(editor);
        QVERIFY(pinned->revision > empty->revision);
        const cost::Evaluation fresh = cost::evaluate(*demo_->problem->costModel, pinned->plan);
        QCOMPARE(pinned->evaluation.stepTime, fresh.stepTime);
        QCOMPARE(pinned->evaluation.peakMemory, fresh.peakMemory);
        QVERIFY(pinned->evaluation.peakMemory < empty->evaluation.peakMemory);
        const int model = *demo_->mesh().axisIndex("model");
        std::size_t carriers = 0;
        for (const auto& sharding : pinned->shardings)
            carriers += (sharding.mask() >> model) & 1u;
        QVERIFY(carriers > 0);
        QVERIFY(evaluated.count() >= 2);
        QCOMPARE(endedWithoutState, 0);
    }

    void undoAndRedoRestorePlansAndCosts() {
        PlanEditor editor;
        editor.setProblem(demo_);
        const double before = settledState(editor)->evaluation.stepTime;
        const plan::Decision batch = groupDecision(*demo_, "batch", "data");
        editor.pin(batch);
        const double after = settledState(editor)->evaluation.stepTime;
        QVERIFY(after != before);
        QVERIFY(editor.undoStack()->canUndo());
        QVERIFY(editor.undoStack()->undoText().contains(QStringLiteral("batch")));

        editor.undoStack()->undo();
        QVERIFY(editor.plan().decisions.empty());
        QCOMPARE(settledState(editor)->evaluation.stepTime, before);
        editor.undoStack()->redo();
        QCOMPARE(editor.plan().decisions.size(), std::size_t{1});
        QCOMPARE(settledState(editor)->evaluation.stepTime, after);

        // An edit that changes nothing is not a step.
        const int steps = editor.undoStack()->count();
        editor.pin(batch);
        QCOMPARE(editor.undoStack()->count(), steps);
    }

    void forbidAllowRemoveAndResolve() {
        PlanEditor editor;
        editor.setProblem(demo_);
        const plan::Decision batch = groupDecision(*demo_, "batch", "data");
        const plan::Decision dff = groupDecision(*demo_, "layers.*.mlp.d_ff", "model");
        editor.pin(batch);
        editor.pin(dff);
        QCOMPARE(editor.plan().pinned, std::size_t{2});
        QVERIFY(editor.plan().decisions[0] == batch);  // pins keep the order they were made in

        editor.forbid(dff);
        QCOMPARE(editor.plan().decisions.size(), std::size_t{1});
        QCOMPARE(editor.plan().pinned, std::size_t{1});
        QCOMPARE(editor.plan().forbidden.size(), std::size_t{1});
        editor.allow(0);
        QVERIFY(editor.plan().forbidden.empty());
        editor.removeDecision(0);
        QVERIFY(editor.plan().decisions.empty());
        QCOMPARE(editor.plan().pinned, std::size_t{0});

        // Repeated names: choosing the second dimension records a resolution; the first is the default.
        const auto& conflicts = demo_->space().conflicts;
        const auto repeated = std::find_if(
            conflicts.begin(), conflicts.end(),
            [](const analysis::Conflict& c) { return c.kind == analysis::ConflictKind::RepeatedName; });
        QVERIFY(repeated != conflicts.end());
        editor.resolve(repeated->name, 1);
        QCOMPARE(editor.plan().resolutions.size(), std::size_t{1});
        QCOMPARE(editor.plan().resolutions[0].dimension, 1);
        editor.resolve(repeated->name, 0);
        QVERIFY(editor.plan().resolutions.empty());
        settledState(editor);
    }

    void anExpertPlanKeepsThePins() {
        PlanEditor editor;
        editor.setProblem(demo_);
        const plan::Decision batch = groupDecision(*demo_, "batch", "model");  // unusual on purpose
        editor.pin(batch);
        auto megatron = plan::expertPlan("megatron", demo_->problem->costModel->planContext(), demo_->mesh());
        QVERIFY(megatron.ok());
        editor.replacePlan(*megatron, QStringLiteral("megatron"));
        QVERIFY(editor.plan().decisions.front() == batch);
        QCOMPARE(editor.plan().pinned, std::size_t{1});
        QCOMPARE(editor.plan().decisions.size(),
                 megatron->decisions.size() + 1 -
                     static_cast<std::size_t>(
                         std::count(megatron->decisions.begin(), megatron->decisions.end(), batch)));
        editor.undoStack()->undo();
        QCOMPARE(editor.plan().decisions.size(), std::size_t{1});
    }

    // A preview is evaluated like the edited plan but leaves it, its pins and its history alone; editing the
    // preview merges the pins in; an edit or a new problem ends it.
    void previewsWithoutEditing() {
        PlanEditor editor;
        editor.setProblem(demo_);
        const plan::Decision batch = groupDecision(*demo_, "batch", "model");
        const plan::Decision forbidden = groupDecision(*demo_, "layers.*.mlp.d_ff", "data");
        editor.pin(batch);
        editor.forbid(forbidden);
        const StatePtr edited = settledState(editor);
        const plan::Plan before = editor.plan();
        const int history = editor.undoStack()->count();
        auto dp = plan::expertPlan("dp-tp", demo_->problem->costModel->planContext(), demo_->mesh());
        QVERIFY(dp.ok());

        QSignalSpy changed(&editor, &PlanEditor::previewChanged);
        QSignalSpy previewed(&editor, &PlanEditor::previewEvaluated);
        QSignalSpy evaluated(&editor, &PlanEditor::evaluated);
        editor.preview(*dp, QStringLiteral("plan 7"));
        QCOMPARE(changed.size(), 1);
        QVERIFY(editor.isPreviewing());
        QCOMPARE(editor.shownCaption(), QStringLiteral("plan 7 (preview)"));
        QVERIFY(editor.isEvaluating());
        QVERIFY(previewed.wait(kTimeoutMs));
        QVERIFY(!editor.isEvaluating());
        QCOMPARE(editor.previewState()->plan, *dp);
        QCOMPARE(editor.shownState(), editor.previewState());
        QCOMPARE(editor.previewState()->evaluation.stepTime,
                 cost::evaluate(*demo_->problem->costModel, *dp).stepTime);
        QCOMPARE(editor.plan(), before);
        QCOMPARE(editor.state(), edited);
        QCOMPARE(editor.undoStack()->count(), history);
        QVERIFY(evaluated.isEmpty());

        // Edit it: one step, the pin first and the forbidden decision kept; the preview ends.
        editor.editPreview();
        QVERIFY(!editor.isPreviewing());
        QCOMPARE(editor.shownCaption(), QStringLiteral("the edited plan"));
        QCOMPARE(editor.undoStack()->count(), history + 1);
        QCOMPARE(editor.undoStack()->undoText(), QStringLiteral("Edit plan 7"));
        QCOMPARE(editor.plan(), session::keepingPins(before, *dp));
        QCOMPARE(editor.plan().decisions.front(), batch);
        QVERIFY(editor.plan().pinned >= 1);
        QCOMPARE(editor.plan().forbidden, before.forbidden);
        settledState(editor);

        // An edit (here an undo) ends a preview; so does a new problem.
        editor.preview(*dp, QStringLiteral("plan 7"));
        QVERIFY(editor.isPreviewing());
        editor.undoStack()->undo();
        QVERIFY(!editor.isPreviewing());
        QCOMPARE(editor.plan(), before);
        editor.preview(*dp, QStringLiteral("plan 7"));
        editor.setProblem(demo_);
        QVERIFY(!editor.isPreviewing());
        QVERIFY(editor.shownState() == nullptr || editor.shownState() == editor.state());
        settledState(editor);
        // Ending by hand shows the edited plan's state again; the preview's evaluation is never reported (an
        // edit's evaluation, queued after it, reports after anything it could have posted).
        previewed.clear();
        editor.preview(*dp, QStringLiteral("plan 8"));
        editor.endPreview();
        QCOMPARE(editor.shownState(), editor.state());
        QVERIFY(!editor.isEvaluating());
        editor.pin(batch);
        settledState(editor);
        QVERIFY(previewed.isEmpty());
    }

    void opensAndSavesPlans() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        PlanEditor editor;
        editor.setProblem(demo_);
        QCOMPARE(editor.openPlan(QStringLiteral("expert:dp-tp")), QString());
        QVERIFY(!editor.plan().decisions.empty());
        const plan::Plan saved = editor.plan();
        const QString path = dir.filePath(QStringLiteral("plan.json"));
        QCOMPARE(editor.savePlan(path), QString());

        PlanEditor other;
        other.setProblem(demo_);
        QCOMPARE(other.openPlan(path), QString());
        QVERIFY(other.plan() == saved);
        QVERIFY(other.undoStack()->canUndo());

        // Each failure says what and where, and leaves the plan as it was.
        QVERIFY(other.openPlan(QStringLiteral("expert:no-such-expert"))
                    .contains(QStringLiteral("no-such-expert")));
        QVERIFY(other.openPlan(dir.filePath(QStringLiteral("missing.json")))
                    .contains(QStringLiteral("missing.json")));
        QFile bad(dir.filePath(QStringLiteral("bad.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(
            R"({"format": "shardscope-plan", "version": 1, "decisions": [{"group": "no.such.group", "axis": "data"}]})");
        bad.close();
        const QString error = other.openPlan(bad.fileName());
        QVERIFY2(
            error.contains(QStringLiteral("bad.json")) && error.contains(QStringLiteral("no.such.group")),
            qUtf8Printable(error));
        QVERIFY(other.plan() == saved);
        QVERIFY(!other.savePlan(dir.filePath(QStringLiteral("missing/plan.json"))).isEmpty());
        // The demo carries no shardings: its reference plan is empty, and one undoable step.
        QCOMPARE(other.openPlan(QStringLiteral("reference")), QString());
        QVERIFY(other.plan().decisions.empty());
        settledState(other);
    }

    void onlyTheNewestPlanReports() {
        PlanEditor editor;
        editor.setProblem(demo_);
        settledState(editor);
        QSignalSpy evaluated(&editor, &PlanEditor::evaluated);
        const plan::Decision batch = groupDecision(*demo_, "batch", "data");
        for (int i = 0; i < 20; ++i) {
            editor.pin(batch);
            editor.removeDecision(0);
        }
        editor.pin(batch);
        const StatePtr last = settledState(editor);
        QVERIFY(last->plan == editor.plan());
        QTest::qWait(50);
        // Superseded evaluations are skipped or dropped: far fewer reports than edits, the last one the
        // newest.
        QVERIFY2(evaluated.count() < 41, qPrintable(QString::number(evaluated.count())));
        QCOMPARE(evaluated.last().first().value<StatePtr>()->revision, last->revision);
    }

    void aNewProblemDropsTheOldEvaluation() {
        PlanEditor editor;
        editor.setProblem(demo_);
        editor.setProblem(demo_);  // at once: the first problem's evaluation must not report as the second's
        const StatePtr state = settledState(editor);
        QVERIFY(editor.undoStack()->count() == 0);
        QVERIFY(state);
    }

    void carriesThePlanAcrossAMeshChange() {
        auto megatron = plan::expertPlan("dp-tp", demo_->problem->costModel->planContext(), demo_->mesh());
        QVERIFY(megatron.ok());
        ProblemRequest request = demoRequest("data=4,model=2");
        request.carriedPlan =
            plan::toJson(*megatron, demo_->problem->costModel->planContext(), demo_->mesh());
        const ProblemPtr wider = fixtures::loadThroughLoader(request);
        QVERIFY(wider);
        QCOMPARE(wider->initialPlan.decisions.size(), megatron->decisions.size());
        QVERIFY(wider->warnings.isEmpty());

        // A mesh without the model axis keeps the decisions on data and leaves out those on model, one plan
        // warning each.
        request = demoRequest("data=8");
        request.carriedPlan =
            plan::toJson(*megatron, demo_->problem->costModel->planContext(), demo_->mesh());
        const ProblemPtr flat = fixtures::loadThroughLoader(request);
        QVERIFY(flat);
        std::size_t onData = 0;
        QStringList leftOut;
        for (std::size_t i = 0; i < megatron->decisions.size(); ++i) {
            const auto& d = megatron->decisions[i];
            if (demo_->mesh().axes[static_cast<std::size_t>(d.axis)].name == "data") {
                ++onData;
                continue;
            }
            leftOut << QStringLiteral(
                           "the plan: decisions[%1] (%2, model) is left out: the mesh has no axis 'model' "
                           "(it has data)")
                           .arg(i)
                           .arg(QString::fromStdString(
                               demo_->problem->costModel->planContext().targetLabel(d)));
        }
        QVERIFY(onData > 0 && !leftOut.isEmpty());
        QCOMPARE(flat->initialPlan.decisions.size(), onData);
        QCOMPARE(flat->planWarnings, leftOut);
        for (const QString& warning : leftOut)
            QVERIFY(flat->warnings.contains(warning));
    }

    void opensAWorkspaceSessionWithItsBestPlan() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("demo.shardscope"));
        const auto& context = demo_->problem->costModel->planContext();
        auto dp = plan::expertPlan("dp", context, demo_->mesh());
        auto megatron = plan::expertPlan("megatron", context, demo_->mesh());
        QVERIFY(dp.ok() && megatron.ok());
        {
            store::ModelRecord model;
            model.source = "zoo:demo";
            auto workspace = store::Workspace::create(path.toStdString(), model);
            QVERIFY(workspace.ok());
            const std::string settings = R"({"problem": )" + problemSpecJson(*demo_->problem) + "}";
            auto session = workspace->addSession("first", settings);
            QVERIFY(session.ok());
            for (const auto* candidate : {&*dp, &*megatron}) {
                const auto evaluation = cost::evaluate(*demo_->problem->costModel, *candidate);
                store::PlanRecord record;
                record.session = *session;
                record.plan = plan::toJson(*candidate, context, demo_->mesh());
                record.stepTime = evaluation.stepTime;
                record.peakMemory = evaluation.peakMemory;
                record.feasible = evaluation.feasible;
                workspace->savePlan(record);
            }
            QVERIFY(workspace->flush().ok());
        }
        QVERIFY(isWorkspaceFile(path));
        QVERIFY(!isWorkspaceFile(shardscope::testing::sourceDir() + QStringLiteral("/README.md")));
        QVERIFY(!isWorkspaceFile(dir.filePath(QStringLiteral("missing"))));

        ProblemRequest request;
        request.workspace = path;
        const ProblemPtr opened = fixtures::loadThroughLoader(request);
        QVERIFY(opened);
        QCOMPARE(opened->workspacePath, path);
        QCOMPARE(opened->session, std::int64_t{1});
        QCOMPARE(opened->source, path);
        const double dpTime = cost::evaluate(*demo_->problem->costModel, *dp).stepTime;
        const double megatronTime = cost::evaluate(*demo_->problem->costModel, *megatron).stepTime;
        const auto& best = dpTime <= megatronTime ? *dp : *megatron;
        QVERIFY(opened->initialPlan == best);

        request.session = 7;
        ProblemLoader loader;
        QSignalSpy failed(&loader, &ProblemLoader::failed);
        loader.load(request);
        QVERIFY(failed.wait(kTimeoutMs));
        QVERIFY2(failed.first().first().toString().contains(QStringLiteral("no session 7")),
                 qUtf8Printable(failed.first().first().toString()));
    }

    void reportsABadModelByName() {
        ProblemRequest request = demoRequest();
        request.spec.model = "zoo:no-such-model";
        ProblemLoader loader;
        QSignalSpy failed(&loader, &ProblemLoader::failed);
        loader.load(request);
        QVERIFY(failed.wait(kTimeoutMs));
        QVERIFY(failed.first().first().toString().contains(QStringLiteral("zoo:no-such-model")));
        request.spec.model = "zoo:demo";
        request.spec.mesh = "data=3,model=0";
        loader.load(request);
        QVERIFY(failed.wait(kTimeoutMs));
        QVERIFY(failed.last().first().toString().contains(QStringLiteral("model")));
    }

private:
    ProblemPtr demo_;
};

QTEST_GUILESS_MAIN(TestUiPlanEditor)
#include "tst_ui_plan_editor.moc"
