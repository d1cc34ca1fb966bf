// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The CLI and the explorer are two front doors to one engine session stage (engine/.../session/). Where their
// copies of it used to drift, both doors are driven on the same input here and must answer alike: a model
// file that changed since its workspace was made, an expert plan the mesh cannot divide, and which decisions
// two plans share.
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/plan_comparison.h"
#include "core/plan_editor.h"
#include "core/search_runner.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/session/problem.h"
#include "shardscope/session/workspace_session.h"
#include "shardscope/store/workspace.h"
#include "test_paths.h"
#include "test_support.h"
#include "ui_test_support.h"

using namespace shardscope;
using namespace shardscope::ui;

namespace {

using shardscope::testing::cli;
using shardscope::testing::Run;

// The message of a CLI diagnostic line ("shardscope-cli: error: MESSAGE [code]" or "shardscope-cli: warning:
// ...").
QString messageOf(const QString& line) {
    QString text = line;
    for (const char* prefix : {"shardscope-cli: error: ", "shardscope-cli: warning: "})
        if (text.startsWith(QLatin1String(prefix)))
            text = text.mid(static_cast<int>(qstrlen(prefix)));
    if (text.endsWith(']') && text.contains(" ["))
        text = text.left(text.lastIndexOf(" ["));
    return text;
}

const QByteArray kTinyModel =
    "func.func @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16x32xf32>) -> tensor<8x32xf32> {\n"
    "  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, "
    "tensor<16x32xf32>) -> tensor<8x32xf32>\n"
    "  return %0 : tensor<8x32xf32>\n"
    "}\n";

}  // namespace

class TestFrontDoors : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

private slots:
    // A workspace made from a model file, the file changed since: the CLI's search and the explorer's search
    // (recording into that workspace) both refuse, with the same words, and leave the workspace as it was.
    void aChangedModelFileIsRefusedByBoth() {
        const QString model = dir_.filePath("tiny.mlir");
        const QString workspace = dir_.filePath("tiny.shardscope");
        testing::writeAll(model, kTinyModel);
        QCOMPARE(
            cli({"search", model, "--mesh", "data=2", "--budget", "5it", "--workspace", workspace}).exitCode,
            0);
        QByteArray changed = kTinyModel;
        changed.replace("8x", "16x");
        testing::writeAll(model, changed);
        const testing::Snapshot before = testing::snapshot(workspace);

        const Run r = cli({"search", model, "--mesh", "data=2", "--budget", "5it", "--workspace", workspace});
        QCOMPARE(r.exitCode, 1);
        const QString cliMessage = messageOf(r.err.trimmed());
        QVERIFY2(cliMessage.contains("has changed since"), qPrintable(r.err));

        // The explorer opened the changed file, then records a search into the workspace.
        ProblemSpec spec;
        spec.model = model.toStdString();
        spec.mesh = "data=2";
        SearchRunner runner;
        QSignalSpy failed(&runner, &SearchRunner::failed);
        search::SearchOptions options;
        options.budget.iterations = 5;
        QVERIFY(runner.start(fixtures::loadView(spec), plan::Plan{}, options, workspace));
        QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 60000);
        QCOMPARE(failed.first().first().toString(), cliMessage);
        QTRY_VERIFY(!runner.isActive());
        QCOMPARE(testing::snapshot(workspace), before);
    }

    // An expert plan whose decisions a mesh of 3 cannot divide: the CLI's evaluate warns, and the explorer's
    // "start from" gives the same warnings.
    void aDivisibilityWarningComesFromBoth() {
        const Run r = cli({"evaluate", "zoo:demo", "--mesh", "data=3", "--plan", "expert:dp"});
        QCOMPARE(r.exitCode, 0);
        QStringList cliWarnings;
        for (const QString& line : r.err.split('\n', Qt::SkipEmptyParts))
            if (line.startsWith("shardscope-cli: warning: "))
                cliWarnings << messageOf(line);
        QVERIFY2(!cliWarnings.isEmpty(), qPrintable(r.err));
        QVERIFY2(cliWarnings.front().contains("shards nothing"), qPrintable(cliWarnings.front()));

        ProblemSpec spec;
        spec.model = "zoo:demo";
        spec.mesh = "data=3";
        PlanEditor editor;
        editor.setProblem(fixtures::loadView(spec));
        QStringList explorerWarnings;
        QCOMPARE(editor.openPlan(QStringLiteral("expert:dp"), &explorerWarnings), QString());
        QCOMPARE(explorerWarnings, cliWarnings);
    }

    // Two plans with the same decisions in another order, and one decision only one has: the CLI's compare
    // and the explorer's comparison match the decisions alike (by their words, not by position).
    void theSameComparisonMatching() {
        const QString path = dir_.filePath("compare.shardscope");
        ProblemSpec spec;
        spec.model = "zoo:demo";
        spec.mesh = "data=2,model=2";
        auto problem = loadProblem(spec);
        QVERIFY2(problem, problem.errorMessage().c_str());
        const auto& context = (*problem)->costModel->planContext();
        const auto& mesh = (*problem)->mesh;
        auto megatron = plan::expertPlan("megatron", context, mesh);
        QVERIFY2(megatron && megatron->decisions.size() >= 2, "megatron needs two decisions");
        plan::Plan reversed = *megatron;
        std::reverse(reversed.decisions.begin(), reversed.decisions.end());
        plan::Plan fewer = *megatron;
        fewer.decisions.pop_back();
        {
            auto record = session::modelRecord(spec);
            QVERIFY(record);
            auto created = store::Workspace::create(path.toStdString(), *record);
            QVERIFY2(created, created.errorMessage().c_str());
            auto added = created->addSession("s", R"({"problem": )" + problemSpecJson(**problem) + "}");
            QVERIFY(added);
            for (const plan::Plan* p : {&reversed, &fewer}) {
                store::PlanRecord plan;
                plan.session = *added;
                plan.plan = plan::toJson(*p, context, mesh);
                plan.evaluation = "{}";
                plan.origin = "user";
                created->savePlan(std::move(plan));
            }
            QVERIFY(created->flush());
        }
        const Run r = cli({"compare", path + ":1", path + ":2", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const auto out = nlohmann::json::parse(r.out.toStdString());
        QStringList cliRows;
        for (const auto& row : out["matching"])
            cliRows << QString::fromStdString(row["decision"].get<std::string>() + " in " +
                                              row["in"].get<std::string>());

        auto a = session::openRecordedPlan(path.toStdString() + ":1");
        auto b = session::openRecordedPlan(path.toStdString() + ":2");
        QVERIFY(a && b);
        const plan::Plan planA = a->plan, planB = b->plan;
        const auto viewA = fixtures::viewOf(std::move(a->problem), "a");
        const auto viewB = fixtures::viewOf(std::move(b->problem), "b");
        const PlanComparison comparison = comparePlans(viewA, planA, "a", viewB, planB, "b");
        QStringList explorerRows;
        for (const auto& d : comparison.decisions)
            explorerRows << d.text + " in " +
                                (d.side == DecisionDifference::Side::Both    ? "both"
                                 : d.side == DecisionDifference::Side::OnlyA ? "a"
                                                                             : "b");
        QCOMPARE(explorerRows, cliRows);
        // All of the reversed plan's decisions but one are shared, whatever their position.
        QCOMPARE(comparison.onlyA(), 1);
        QCOMPARE(comparison.onlyB(), 0);
    }
};

QTEST_MAIN(TestFrontDoors)
#include "tst_front_doors.moc"
