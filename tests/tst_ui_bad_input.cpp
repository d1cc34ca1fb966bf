// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Bad input in the explorer (issue 11, item 4): a damaged workspace, a plan of another model, settings that
// cannot be applied, a plan the mesh cannot divide. Each says what is wrong in the window, and the model, the
// plan and the undo history the window had stay as they were; a file that failed to open is not modified.
#include <QCryptographicHash>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "core/plan_editor.h"
#include "core/problem_loader.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/store/workspace.h"
#include "test_support.h"
#include "ui_test_support.h"
#include "widgets/main_window.h"
#include "widgets/session_docks.h"

using namespace shardscope;
using namespace shardscope::ui;

namespace {

using shardscope::testing::readAll;
using shardscope::testing::snapshot;
using shardscope::testing::Snapshot;
using shardscope::testing::writeAll;

constexpr int kLoadTimeoutMs = 60'000;
// batch 8: a data axis of 3 divides nothing of it.
const QString kModel = QStringLiteral("zoo:gpt:layers=2,d_model=64,heads=4,seq=32,batch=8,vocab=128");

// What the window holds that a failure must not touch.
struct Work {
    std::shared_ptr<const ProblemView> model;
    plan::Plan plan;
    int undoCount = 0, undoIndex = 0;
    std::string mesh;
};
Work workOf(const MainWindow& window) {
    return {window.currentModel(), window.planEditor()->plan(), window.planEditor()->undoStack()->count(),
            window.planEditor()->undoStack()->index(), window.spec().mesh};
}
void compareWork(const Work& now, const Work& before) {
    QVERIFY(now.model == before.model);
    QVERIFY(now.plan == before.plan);
    QCOMPARE(now.undoCount, before.undoCount);
    QCOMPARE(now.undoIndex, before.undoIndex);
    QCOMPARE(now.mesh, before.mesh);
}

}  // namespace

class TestUiBadInput : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;

    // A window showing kModel on data=2,model=2 with two undoable edits (an expert plan, then a pin).
    void openWithWork(MainWindow& window) {
        QSignalSpy settled(&window, &MainWindow::settled);
        ProblemSpec spec = window.spec();
        spec.mesh = "data=2,model=2";
        window.setSpec(spec);
        window.openModel(kModel);
        QVERIFY(settled.wait(kLoadTimeoutMs));
        QVERIFY(window.openPlan(QStringLiteral("expert:megatron")));
        const auto& space = window.currentModel()->space();
        window.planEditor()->pin(
            {plan::Decision::Target::Name, static_cast<std::uint32_t>(space.names.size() - 1), 0});
        QCOMPARE(window.planEditor()->undoStack()->count(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(!window.planEditor()->isEvaluating(), kLoadTimeoutMs);
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("Shardscope"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_ui_bad_input"));
    }

    // File ▸ Open on a truncated or corrupted workspace: the failure names the file and says what to do; the
    // window keeps its model, plan and undo history; the file is not modified.
    void aDamagedWorkspaceFailsToOpenAndChangesNothing_data() {
        QTest::addColumn<QString>("damage");
        QTest::newRow("truncated") << "truncated";
        QTest::newRow("noise in the middle") << "noise";
    }
    void aDamagedWorkspaceFailsToOpenAndChangesNothing() {
        QFETCH(QString, damage);
        const QString path = dir_.filePath(QStringLiteral("damaged-%1.shardscope").arg(damage));
        {
            auto created = store::Workspace::create(path.toStdString(), {kModel.toStdString(), {}, {}, "{}"});
            QVERIFY(created);
            auto session = created->addSession("s", "{}");
            QVERIFY(session);
            for (int i = 0; i < 300; ++i) {
                store::PlanRecord record;
                record.session = *session;
                record.plan = std::string(400, 'p') + std::to_string(i);
                record.origin = "search";
                created->savePlan(record);
            }
            QVERIFY(created->flush());
        }
        QByteArray bytes = readAll(path);
        if (damage == "truncated") {
            bytes.truncate(bytes.size() / 2);
        } else {
            const qsizetype at = (bytes.size() / 4096 / 2) * 4096;
            for (qsizetype i = 0; i < 4096; ++i)
                bytes[at + i] = static_cast<char>((i * 7919 + 13) & 0xff);
        }
        writeAll(path, bytes);
        QTest::qWait(20);
        const Snapshot before = snapshot(path);

        MainWindow window;
        window.show();
        openWithWork(window);
        const Work work = workOf(window);
        QSignalSpy failed(&window, &MainWindow::modelFailed);
        window.openModel(path);
        QVERIFY(failed.wait(kLoadTimeoutMs));
        const QString expected = "Cannot open " + path + ": '" + path +
                                 "' is damaged (truncated or corrupted) and cannot be opened; it is left as "
                                 "it was (restore a copy, or "
                                 "start a new workspace from the model)";
        QCOMPARE(failed.first().first().toString(), expected);
        QCOMPARE(window.statusBar()->currentMessage(), expected);
        compareWork(workOf(window), work);
        QCOMPARE(snapshot(path), before);
        QVERIFY(!QFile::exists(path + "-wal"));
    }

    // Plan ▸ Open plan with a plan saved for another model: refused, naming the file and the first unknown
    // label; the plan and its undo history stay.
    void aPlanOfAnotherModelIsRefused() {
        // The plan of the 1-layer MLP family's model: its groups are not the GPT's.
        ProblemSpec otherSpec;
        otherSpec.model = "zoo:mlp:layers=2";
        otherSpec.mesh = "data=2,model=2";
        const auto other = fixtures::loadView(otherSpec);
        const auto& otherModel = *other->problem->costModel;
        auto expert = plan::expertPlan("megatron", otherModel.planContext(), otherModel.mesh());
        QVERIFY(expert);
        const QString path = dir_.filePath(QStringLiteral("mlp-plan.json"));
        writeAll(path, QByteArray::fromStdString(
                           plan::toJson(*expert, otherModel.planContext(), otherModel.mesh())));
        const std::string firstLabel = otherModel.planContext().targetLabel(expert->decisions.front());

        MainWindow window;
        window.show();
        openWithWork(window);
        const Work work = workOf(window);
        QString error;
        QVERIFY(!window.openPlan(path, &error));
        const QString expected = "Cannot open the plan " + path + ": decisions[0]: unknown group '" +
                                 QString::fromStdString(firstLabel) +
                                 "': this model has no group of that label (is the plan for another model? "
                                 "run `shardscope-cli analyze` for "
                                 "this model's groups)";
        QCOMPARE(error, expected);
        QCOMPARE(window.statusBar()->currentMessage(), expected);
        compareWork(workOf(window), work);
    }

    // Settings that cannot be loaded (a mesh axis of size 0, a hardware file that is not there) fail the
    // Apply with the engine's reason; the window keeps its model, plan, undo history and settings.
    void settingsThatCannotBeAppliedChangeNothing_data() {
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<QString>("hardware");
        QTest::addColumn<QString>("reason");
        QTest::newRow("zero axis") << "data=0,model=2"
                                   << "h100"
                                   << "mesh axis 'data' has size 0; sizes must be at least 1";
        QTest::newRow("negative axis") << "data=-4"
                                       << "h100"
                                       << "mesh axis 'data' has size -4; sizes must be at least 1";
        QTest::newRow("missing hardware file")
            << "data=2" << dir_.filePath(QStringLiteral("gone.json")) << "";
    }
    void settingsThatCannotBeAppliedChangeNothing() {
        QFETCH(QString, mesh);
        QFETCH(QString, hardware);
        QFETCH(QString, reason);
        MainWindow window;
        window.show();
        openWithWork(window);
        const Work work = workOf(window);
        QSignalSpy failed(&window, &MainWindow::modelFailed);
        ProblemSpec spec = window.spec();
        spec.mesh = mesh.toStdString();
        spec.hardware = hardware.toStdString();
        window.applySpec(spec);
        QVERIFY(failed.wait(kLoadTimeoutMs));
        const QString message = failed.first().first().toString();
        QVERIFY2(message.startsWith("Cannot apply the settings to " + kModel + ": "), qPrintable(message));
        if (!reason.isEmpty())
            QCOMPARE(message, "Cannot apply the settings to " + kModel + ": " + reason);
        else
            QVERIFY2(message.contains(hardware), qPrintable(message));
        compareWork(workOf(window), work);
        // The next open uses the settings the window had, not the ones that failed.
        QSignalSpy settled(&window, &MainWindow::settled);
        window.openModel(QStringLiteral("zoo:demo"));
        QVERIFY(settled.wait(kLoadTimeoutMs));
        QCOMPARE(window.currentModel()->mesh().toString(), std::string("data=2,model=2"));
    }

    // Apply of a mesh that lacks one of the plan's axes keeps the decisions (and pins) on the axes it has,
    // and the status bar says which decisions were left out and why. (Before, the whole plan was dropped.)
    void aMeshLackingAnAxisOfThePlanKeepsTheRest() {
        MainWindow window;
        window.show();
        openWithWork(window);
        const plan::Plan before = window.planEditor()->plan();
        const mesh::Mesh oldMesh = window.currentModel()->mesh();
        std::vector<std::string> kept, left;
        std::size_t keptPins = 0;
        for (std::size_t i = 0; i < before.decisions.size(); ++i) {
            const auto& d = before.decisions[i];
            const std::string axis = oldMesh.axes[static_cast<std::size_t>(d.axis)].name;
            const std::string label = window.currentModel()->problem->costModel->planContext().targetLabel(d);
            (axis == "data" ? kept : left).push_back(label + "@" + axis);
            if (axis == "data" && i < before.pinned)
                ++keptPins;
        }
        QVERIFY2(!kept.empty() && !left.empty(), "the fixture's plan must use both axes");
        QSignalSpy settled(&window, &MainWindow::settled);
        ProblemSpec spec = window.spec();
        spec.mesh = "data=4";
        window.applySpec(spec);
        QVERIFY(settled.wait(kLoadTimeoutMs));
        QCOMPARE(window.currentModel()->mesh().toString(), std::string("data=4"));
        const plan::Plan after = window.planEditor()->plan();
        std::vector<std::string> now;
        for (const auto& d : after.decisions)
            now.push_back(window.currentModel()->problem->costModel->planContext().targetLabel(d) + "@" +
                          window.currentModel()->mesh().axes[static_cast<std::size_t>(d.axis)].name);
        QCOMPARE(now, kept);
        QCOMPARE(after.pinned, keptPins);
        const QString message = window.statusBar()->currentMessage();
        const QString first = QString::fromStdString(left.front());
        const QString label = first.left(first.indexOf('@'));
        QVERIFY2(message.startsWith("the plan: decisions[") &&
                     message.contains("] (" + label +
                                      ", model) is left out: the mesh has no axis 'model' (it has data)"),
                 qPrintable(message));
        if (left.size() > 1)
            QVERIFY2(message.endsWith(QStringLiteral(" (and %1 more)").arg(left.size() - 1)),
                     qPrintable(message));
    }

    // An expert plan on a mesh that divides nothing of its name opens (the user may change the mesh next) and
    // the status bar says which decision shards nothing and why.
    void aPlanTheMeshCannotDivideIsSaid() {
        MainWindow window;
        window.show();
        QSignalSpy settled(&window, &MainWindow::settled);
        ProblemSpec spec = window.spec();
        spec.mesh = "data=3,model=2";
        window.setSpec(spec);
        window.openModel(kModel);
        QVERIFY(settled.wait(kLoadTimeoutMs));
        QVERIFY(window.openPlan(QStringLiteral("expert:dp")));
        QCOMPARE(window.statusBar()->currentMessage(),
                 QStringLiteral("expert:dp: decision 1 (batch, data) shards nothing: data=3 divides no "
                                "dimension of batch (size 8); use an axis "
                                "whose size divides 8, or another mesh"));
        QCOMPARE(window.planEditor()->plan().decisions.size(),
                 std::size_t{2});  // dp puts the batch on every axis
    }

    // Compare ▸ with a workspace of another model: refused with a message; nothing is compared.
    void comparingWithAWorkspaceOfAnotherModelIsRefused() {
        const QString path = dir_.filePath(QStringLiteral("mlp.shardscope"));
        {
            ProblemSpec otherSpec;
            otherSpec.model = "zoo:mlp:layers=2";
            otherSpec.mesh = "data=2,model=2";
            auto problem = loadProblem(otherSpec);
            QVERIFY(problem);
            auto created = store::Workspace::create(path.toStdString(), {"zoo:mlp:layers=2", {}, {}, "{}"});
            QVERIFY(created);
            QVERIFY(created->addSession("s", R"({"problem": )" + problemSpecJson(**problem) + "}"));
        }
        MainWindow window;
        window.show();
        openWithWork(window);
        const Work work = workOf(window);
        QSignalSpy messages(window.sessionDocks(), &SessionDocks::message);
        QSignalSpy failures(window.sessionDocks(), &SessionDocks::failure);
        window.sessionDocks()->compareWithWorkspace(path);
        QTRY_VERIFY_WITH_TIMEOUT(failures.size() == 1, kLoadTimeoutMs);
        QCOMPARE(messages.size(), 1);  // "Opening…"
        const QString refusal = failures.last().first().toString();
        QVERIFY2(refusal.startsWith("Cannot compare with " + path + ": it holds the model "),
                 qPrintable(refusal));
        QVERIFY2(refusal.endsWith("(compare with a workspace of the same model)"), qPrintable(refusal));
        // An error of the session: kept in the Messages log.
        const MessageLog* log = window.messageLog();
        QCOMPARE(log->message(log->rowCount() - 1).text, refusal);
        QCOMPARE(log->message(log->rowCount() - 1).severity, LogMessage::Severity::Error);
        compareWork(workOf(window), work);
    }
};

QTEST_MAIN(TestUiBadInput)
#include "tst_ui_bad_input.moc"
