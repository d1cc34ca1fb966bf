// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// ui/widgets: the main window, and the `shardscope` executable's --screenshot mode.
#include <algorithm>
#include <memory>

#include <QAbstractItemModel>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFontMetricsF>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>
#include <QUndoStack>

#include "core/plan_editor.h"
#include "core/plan_export.h"
#include "core/plan_table_model.h"
#include "core/problem_loader.h"
#include "core/search_runner.h"
#include "core/search_tree_model.h"
#include "shardscope/report/model_report.h"
#include "test_paths.h"
#include "widgets/cost_panel.h"
#include "widgets/export_dialog.h"
#include "widgets/fixed_pitch_font.h"
#include "widgets/graph_view.h"
#include "widgets/main_window.h"
#include "widgets/model_text_view.h"
#include "widgets/search_panel.h"
#include "widgets/session_docks.h"

using namespace shardscope;
using namespace shardscope::ui;

namespace {

constexpr int kLoadTimeoutMs = 60'000;

QString toQStringForTest(const std::string& text) {
    return QString::fromStdString(text);
}

bool anyLabelContains(const QWidget& widget, const QString& text) {
    const auto labels = widget.findChildren<QLabel*>();
    return std::any_of(labels.begin(), labels.end(), [&](const QLabel* label) {
        return label->isVisibleTo(&widget) && label->text().contains(text);
    });
}

// Runs the `shardscope` executable on the offscreen platform until it exits.
bool runGui(QProcess& gui, const QStringList& arguments) {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    gui.setProcessEnvironment(environment);
    gui.start(shardscope::testing::guiPath(), arguments);
    return gui.waitForFinished(kLoadTimeoutMs);
}

}  // namespace

class TestUiMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location
        QCoreApplication::setOrganizationName(QStringLiteral("Shardscope"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_ui_mainwindow"));
    }

    // A large model's text arrives a slice per turn of the event loop once the view is shown (the window
    // never waits for it), whole and in order; a new text replaces one still arriving.
    void modelTextArrivesInSlices() {
        QString text;
        for (int line = 0; text.size() < 5 * ModelTextView::kSliceBytes; ++line)
            text += QStringLiteral("  %%%1 = stablehlo.add %%%2, %%%2 : tensor<8x128xf32>\n")
                        .arg(line + 1)
                        .arg(line);
        ModelTextView view;
        QSignalSpy loaded(&view, &ModelTextView::loaded);
        // Out of sight, it waits to come into sight.
        view.showText(text);
        QVERIFY(view.isLoading() && !view.isArriving());
        QTest::qWait(20);
        QVERIFY(view.toPlainText().isEmpty());
        view.setInView(true);
        QVERIFY(view.isArriving());
        view.showText(QStringLiteral("first\n").repeated(200'000));
        QVERIFY(view.isLoading());
        view.showText(text);
        QVERIFY(view.isLoading());
        QVERIFY(view.toPlainText().size() < text.size());  // only the first slice so far
        QVERIFY(view.toPlainText().size() >= ModelTextView::kSliceBytes / 2);
        QVERIFY(loaded.wait(10'000));
        QVERIFY(!view.isLoading());
        QCOMPARE(loaded.size(), 1);
        QCOMPARE(view.toPlainText(), text);
        view.showText(QString());
        QVERIFY(!view.isLoading());
        QVERIFY(view.toPlainText().isEmpty());
    }

    void showsTheDemo() {
        MainWindow window;
        window.show();
        QSignalSpy shown(&window, &MainWindow::modelShown);
        window.openModel(defaultModelSource());
        QVERIFY(shown.wait(kLoadTimeoutMs));

        const auto model = window.currentModel();
        QVERIFY(model);
        QCOMPARE(model->source, QStringLiteral("zoo:demo"));
        QVERIFY(window.windowTitle().contains(model->displayName));

        const auto* summary = window.findChild<QWidget*>(QStringLiteral("summaryPanel"));
        QVERIFY(summary);
        const QString parameters = QString::fromStdString(
            report::formatCount(static_cast<double>(model->statistics.parameterCount)));
        // Labels added to a visible panel show from the event loop.
        QTRY_VERIFY2(anyLabelContains(*summary, parameters), qUtf8Printable(parameters));

        const auto* text = window.findChild<ModelTextView*>(QStringLiteral("stableHloView"));
        QVERIFY(text);
        // The text fills while its tab is in front.
        QVERIFY(window.showDock(QStringLiteral("stableHloDock")));
        QTRY_VERIFY(!text->isLoading());
        QCOMPARE(text->toPlainText(), model->stableHlo);
        QVERIFY(text->isReadOnly());
        // Fixed-pitch as it resolves here, measured: not the family's name nor fontconfig's word for it (the
        // system's "monospace" may resolve to a proportional face).
        QVERIFY2(isFixedPitch(text->font()), qPrintable(text->fontInfo().family()));
        const QFontMetricsF glyphs(text->font());
        QCOMPARE(glyphs.horizontalAdvance(QLatin1Char('i')), glyphs.horizontalAdvance(QLatin1Char('W')));

        const auto* parametersView = window.findChild<QTableView*>(QStringLiteral("parametersView"));
        const auto* opKindsView = window.findChild<QTableView*>(QStringLiteral("opKindsView"));
        QVERIFY(parametersView && opKindsView);
        QVERIFY(parametersView->model()->rowCount() > 0);
        QCOMPARE(opKindsView->model()->rowCount(), static_cast<int>(model->statistics.opsByKind.size()));
        // Op kinds open sorted by count, most frequent first.
        const QAbstractItemModel* opKinds = opKindsView->model();
        QVERIFY(opKinds->index(0, 1).data().toLongLong() >=
                opKinds->index(opKinds->rowCount() - 1, 1).data().toLongLong());
    }

    void reportsAFailureAndKeepsTheModelShown() {
        MainWindow window;
        window.show();
        QSignalSpy shown(&window, &MainWindow::modelShown);
        QSignalSpy failed(&window, &MainWindow::modelFailed);
        window.openModel(defaultModelSource());
        QVERIFY(shown.wait(kLoadTimeoutMs));

        window.openModel(QStringLiteral("zoo:no-such-model"));
        QVERIFY(failed.wait(kLoadTimeoutMs));
        QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("zoo:no-such-model")));
        const auto* summary = window.findChild<QWidget*>(QStringLiteral("summaryPanel"));
        QTRY_VERIFY(anyLabelContains(*summary, QStringLiteral("zoo:no-such-model")));
        QVERIFY(window.currentModel());
        QCOMPARE(window.currentModel()->source, defaultModelSource());
    }

    // A StableHLO module with two public functions and no @main does not open by itself: the failure offers
    // its functions in the editor's entry field, and Apply opens the module with the one chosen.
    void aModuleWithoutMainOpensWithTheEntryChosen() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("two.mlir"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(
            "func.func public @f(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {\n"
            "  %0 = stablehlo.negate %a : tensor<8x16xf32>\n"
            "  return %0 : tensor<8x16xf32>\n"
            "}\n"
            "func.func public @g(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {\n"
            "  %0 = stablehlo.add %a, %b : tensor<4x4xf32>\n"
            "  return %0 : tensor<4x4xf32>\n"
            "}\n");
        file.close();
        MainWindow window;
        window.show();
        QSignalSpy shown(&window, &MainWindow::modelShown);
        QSignalSpy failed(&window, &MainWindow::modelFailed);
        window.openModel(path);
        QVERIFY(failed.wait(kLoadTimeoutMs));
        QVERIFY2(failed.first().first().toString().contains(QStringLiteral("no entry function")),
                 qPrintable(failed.first().first().toString()));
        auto* entry = window.findChild<QComboBox*>(QStringLiteral("entryCombo"));
        QVERIFY(entry);
        QCOMPARE(entry->count(), 2);
        QCOMPARE(entry->itemText(0), QStringLiteral("@f"));
        QCOMPARE(entry->itemText(1), QStringLiteral("@g"));
        const auto* summary = window.findChild<QWidget*>(QStringLiteral("summaryPanel"));
        QTRY_VERIFY(anyLabelContains(*summary, QStringLiteral("Choose the entry function")));
        entry->setCurrentIndex(1);
        window.findChild<QPushButton*>(QStringLiteral("applyButton"))->click();
        QVERIFY(shown.wait(kLoadTimeoutMs));
        QVERIFY(window.currentModel());
        QCOMPARE(window.currentModel()->source, path);
        QCOMPARE(window.currentModel()->problem->spec.entry, std::string("g"));
        QCOMPARE(window.currentModel()->problem->model.graph.arguments.size(), std::size_t{2});
    }

    void enterInTheChooserOpensTheModelOnce_data() {
        QTest::addColumn<QString>("source");
        QTest::newRow("listed preset") << QStringLiteral("zoo:gpt2-small");
        QTest::newRow("typed options") << QStringLiteral("zoo:gpt:layers=1,seq=64,d_model=128,heads=4");
        QTest::newRow("family that prefixes presets") << QStringLiteral("zoo:gpt");
    }

    void enterInTheChooserOpensTheModelOnce() {
        QFETCH(QString, source);
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* chooser = window.findChild<QComboBox*>(QStringLiteral("modelChooser"));
        QVERIFY(chooser && chooser->isEditable());
        QSignalSpy shown(&window, &MainWindow::modelShown);
        QSignalSpy started(window.findChild<ProblemLoader*>(), &ProblemLoader::busyChanged);

        // Completion only runs in a focused line edit, as when a person types.
        window.activateWindow();
        chooser->lineEdit()->setFocus();
        QTRY_VERIFY(chooser->lineEdit()->hasFocus());
        chooser->clearEditText();
        QTest::keyClicks(chooser->lineEdit(), source);
        QTest::keyClick(chooser->lineEdit(), Qt::Key_Return);
        QVERIFY(shown.wait(kLoadTimeoutMs));
        QTest::qWait(50);  // loads report in order: any earlier one has reported by now
        QCOMPARE(shown.count(), 1);
        QCOMPARE(started.count(), 2);  // busy once, idle once: one load
        QCOMPARE(window.currentModel()->source, source);
    }

    // The walk-through: open the demo, select a name, pin a decision, see the cost re-evaluated.
    void selectANamePinADecisionAndSeeTheNewCost() {
        MainWindow window;
        window.show();
        QSignalSpy settled(&window, &MainWindow::settled);
        window.openModel(defaultModelSource());
        QVERIFY(settled.wait(kLoadTimeoutMs));
        const auto problem = window.currentModel();
        auto* editor = window.planEditor();
        auto* cost = window.findChild<CostPanel*>(QStringLiteral("costPanel"));
        QVERIFY(cost && editor->state());
        const QString before = cost->stepTimeText();
        QVERIFY(!before.isEmpty());

        // Select the d_ff group in the Names panel: the details describe it.
        auto* names = window.findChild<QTreeView*>(QStringLiteral("namesView"));
        QVERIFY(names);
        const QModelIndexList matches = names->model()->match(names->model()->index(0, 0), Qt::DisplayRole,
                                                              QStringLiteral("layers.*.mlp.d_ff"), 1,
                                                              Qt::MatchExactly | Qt::MatchRecursive);
        QCOMPARE(matches.size(), 1);
        names->setCurrentIndex(matches.first());
        auto* details = window.findChild<QTextBrowser*>(QStringLiteral("detailsView"));
        QVERIFY(details && details->toPlainText().contains(QStringLiteral("layers.*.mlp.d_ff")));

        // Pin it on the model axis (what the Names panel's menu does): the plan is re-evaluated in the
        // background.
        const auto& groups = problem->space().groups;
        const auto dff = std::find_if(groups.begin(), groups.end(), [](const analysis::Group& g) {
            return g.label == "layers.*.mlp.d_ff";
        });
        plan::Decision decision{plan::Decision::Target::Group,
                                static_cast<std::uint32_t>(dff - groups.begin()),
                                *problem->mesh().axisIndex("model")};
        editor->pin(decision);
        QTRY_VERIFY_WITH_TIMEOUT(!editor->isEvaluating() && editor->state()->plan == editor->plan(),
                                 kLoadTimeoutMs);
        const cost::Evaluation expected = cost::evaluate(*problem->problem->costModel, editor->plan());
        QCOMPARE(cost->stepTimeText(), toQStringForTest(report::formatTime(expected.stepTime)));
        QVERIFY(cost->stepTimeText() != before);
        auto* decisions = window.findChild<QTableView*>(QStringLiteral("decisionsView"));
        QVERIFY(decisions && decisions->model()->rowCount() == 1);
        QVERIFY(details->toPlainText().contains(QStringLiteral("model")));  // "Sharded on model"

        // Undo brings the old cost back.
        editor->undoStack()->undo();
        QTRY_VERIFY_WITH_TIMEOUT(!editor->isEvaluating() && editor->state()->plan.decisions.empty(),
                                 kLoadTimeoutMs);
        QCOMPARE(cost->stepTimeText(), before);
        QCOMPARE(decisions->model()->rowCount(), 0);
    }

    // Mesh and training changes plan the model again and keep the plan where its names and axes still exist.
    void applyingANewMeshKeepsThePlan() {
        MainWindow window;
        QSignalSpy settled(&window, &MainWindow::settled);
        window.setPlanToOpen(QStringLiteral("expert:dp-tp"));
        window.openModel(defaultModelSource());
        QVERIFY(settled.wait(kLoadTimeoutMs));
        const plan::Plan before = window.planEditor()->plan();
        QVERIFY(!before.decisions.empty());
        ProblemSpec spec = window.spec();
        spec.mesh = "data=4,model=2";
        spec.train = true;
        window.applySpec(spec);
        QVERIFY(settled.wait(kLoadTimeoutMs));
        const auto problem = window.currentModel();
        QCOMPARE(problem->mesh().toString(), std::string("data=4,model=2"));
        QVERIFY(problem->problem->spec.train);
        QCOMPARE(window.planEditor()->plan().decisions.size(), before.decisions.size());
        QVERIFY(window.planEditor()->state()->evaluation.modelStates.optimizerState >
                0);  // a training step now
    }

    // At the window's default size, the Mesh and training dock shows the mesh picture under the axes without
    // scrolling.
    void meshPictureInSightAtTheDefaultSize() {
        MainWindow window;
        window.show();
        QSignalSpy settled(&window, &MainWindow::settled);
        window.openModel(defaultModelSource());
        QVERIFY(settled.wait(kLoadTimeoutMs));
        QVERIFY(window.showDock(QStringLiteral("problem")));
        auto* dock = window.findChild<QDockWidget*>(QStringLiteral("problemDock"));
        QVERIFY(dock);
        auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
        auto* picture = dock->findChild<QWidget*>(QStringLiteral("meshPicture"));
        QVERIFY(scroll && picture);
        QTRY_VERIFY(picture->isVisible() && picture->height() > 0);
        QCOMPARE(scroll->verticalScrollBar()->value(), 0);
        const QRect shown(picture->mapTo(scroll->viewport(), QPoint()), picture->size());
        QVERIFY2(scroll->viewport()->rect().contains(shown),
                 qPrintable(QStringLiteral("picture at y %1 to %2 in a %3 px high dock")
                                .arg(shown.top())
                                .arg(shown.bottom())
                                .arg(scroll->viewport()->height())));
    }

    // Issue 9's must-show: a search fills the Plans table as it runs; its workspace, closed and reopened,
    // shows the same plans and the same tree.
    void aSearchIsSavedAndReopens() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("demo.shardscope"));
        int plansFound = 0;
        std::int64_t nodes = 0;
        {
            MainWindow window;
            QSignalSpy settled(&window, &MainWindow::settled);
            window.openModel(defaultModelSource());
            QVERIFY(settled.wait(kLoadTimeoutMs));
            SessionDocks* session = window.sessionDocks();
            SearchPanel* panel = session->searchPanel();
            panel->setWorkspacePath(path);
            search::SearchOptions options = panel->options();
            options.budget.seconds = 3.0;
            options.threads = 1;
            panel->setOptions(options);
            QSignalSpy finished(panel->runner(), &SearchRunner::finished);
            QSignalSpy best(panel->runner(), &SearchRunner::newBest);
            QVERIFY(panel->startSearch());
            // The table fills while the search runs: the expert seeds once the session is recorded.
            QTRY_VERIFY_WITH_TIMEOUT(session->plans()->rowCount() > 0 || !finished.isEmpty(), kLoadTimeoutMs);
            QVERIFY2(finished.isEmpty(), "the search ended before the table had a row");
            QVERIFY(finished.wait(kLoadTimeoutMs));
            QVERIFY(!best.isEmpty());
            // Once the search has ended the file is read again: the tree, and the table (experts and the
            // plans found, now with their ids).
            QTRY_VERIFY_WITH_TIMEOUT(session->tree()->storedNodeCount() > 0, kLoadTimeoutMs);
            nodes = session->tree()->storedNodeCount();
            QTRY_VERIFY_WITH_TIMEOUT(!session->plans()->isLoading() && session->plans()->rowCount() > 0,
                                     kLoadTimeoutMs);
            plansFound = session->plans()->rowCount();
        }
        MainWindow reopened;
        QSignalSpy settled(&reopened, &MainWindow::settled);
        reopened.openModel(path);
        QVERIFY(settled.wait(kLoadTimeoutMs));
        QCOMPARE(reopened.currentModel()->workspacePath, path);
        SessionDocks* session = reopened.sessionDocks();
        QTRY_VERIFY_WITH_TIMEOUT(!session->plans()->isLoading() && session->plans()->rowCount() == plansFound,
                                 kLoadTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(session->tree()->storedNodeCount(), nodes, kLoadTimeoutMs);
        // The session's best plan is the one shown.
        QVERIFY(!reopened.planEditor()->plan().decisions.empty());
    }

    // Pictures of each panel, for the README and for a look at them (in build/tests/ui_screenshot/).
    void picturesEachPanel() {
        MainWindow window;
        window.setAttribute(Qt::WA_DontShowOnScreen);
        window.show();
        QSignalSpy settled(&window, &MainWindow::settled);
        window.setPlanToOpen(QStringLiteral("expert:dp-tp"));
        window.openModel(defaultModelSource());
        QVERIFY(settled.wait(kLoadTimeoutMs));
        const QString folder = shardscope::testing::binaryDir() + QStringLiteral("/tests/ui_screenshot");
        QDir().mkpath(folder);
        for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
            dock->raise();
            QCoreApplication::processEvents();
            const QImage image = dock->widget()->grab().toImage();
            QVERIFY2(!image.isNull() && image.width() > 0, qPrintable(dock->objectName()));
            QVERIFY(image.save(folder + u'/' + dock->objectName() + QStringLiteral(".png")));
        }
    }

    // File ▸ Export writes every format the engine offers; a file it cannot write is named in the dialog.
    void exportsEveryFormat() {
        MainWindow window;
        QSignalSpy settled(&window, &MainWindow::settled);
        window.setPlanToOpen(QStringLiteral("expert:dp-tp"));
        window.openModel(defaultModelSource());
        QVERIFY(settled.wait(kLoadTimeoutMs));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (const ExportFormat& format : exportFormats()) {
            ExportDialog dialog(window.currentModel(), window.planEditor()->plan());
            QSignalSpy exported(&dialog, &ExportDialog::exported);
            const QString path = dir.filePath(format.id + u'.' + format.suffix);
            dialog.setFormat(format.id);
            dialog.setPath(path);
            dialog.findChild<QDialogButtonBox*>()->accepted();
            QVERIFY2(exported.wait(kLoadTimeoutMs), qUtf8Printable(dialog.errorText()));
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray text = file.readAll();
            if (format.id == QLatin1String("evaluation"))
                QVERIFY(QJsonDocument::fromJson(text).object().contains(QStringLiteral("step_time_s")));
            else if (format.id == QLatin1String("report"))
                QVERIFY(text.contains("step time"));
            else if (format.id == QLatin1String("trace"))
                QVERIFY(
                    QJsonDocument::fromJson(text).object().value(QStringLiteral("traceEvents")).isArray());
            else if (format.id == QLatin1String("jax"))
                QVERIFY(text.contains("PartitionSpec") && text.contains("\"layers.0.mlp.fc.weight\": P("));
            else if (format.id == QLatin1String("dtensor"))
                QVERIFY(text.contains("init_device_mesh") && text.contains("\"layers.0.mlp.fc.weight\": ("));
            else if (format.id == QLatin1String("parallelize"))
                QVERIFY(text.contains("parallelize_module(model, mesh[") &&
                        text.contains("\"layers.0.mlp.fc\": ColwiseParallel("));
            else if (format.id == QLatin1String("torchtitan"))
                QVERIFY(text.contains("[parallelism]") && text.contains("data_parallel_shard_degree"));
            else if (format.id == QLatin1String("megatron"))
                QVERIFY(text.contains("PARALLEL_ARGS=(") && text.contains("--tensor-model-parallel-size"));
            else if (format.id == QLatin1String("shardy") || format.id == QLatin1String("gspmd"))
                QVERIFY(text.contains(format.id == QLatin1String("shardy")
                                          ? "= sdy.sharding_constraint %"
                                          : "= stablehlo.custom_call @Sharding(%"));
            else {
                PlanEditor editor;
                editor.setProblem(window.currentModel());
                QCOMPARE(editor.openPlan(path), QString());
                QVERIFY(editor.plan() == window.planEditor()->plan());
            }
        }
        ExportDialog dialog(window.currentModel(), window.planEditor()->plan());
        dialog.setPath(dir.filePath(QStringLiteral("missing/plan.json")));
        dialog.findChild<QDialogButtonBox*>()->accepted();
        QTRY_VERIFY_WITH_TIMEOUT(dialog.errorText().contains(QStringLiteral("missing/plan.json")),
                                 kLoadTimeoutMs);
    }

    void remembersRecentSources() {
        MainWindow window;
        QSignalSpy shown(&window, &MainWindow::modelShown);
        window.openModel(QStringLiteral("zoo:gpt:layers=1,seq=64,d_model=128,heads=4"));
        QVERIFY(shown.wait(kLoadTimeoutMs));
        QCOMPARE(MainWindow::recentSources().value(0),
                 QStringLiteral("zoo:gpt:layers=1,seq=64,d_model=128,heads=4"));
    }

    void layoutIsSavedOnClose() {
        {
            MainWindow window;
            window.show();
            window.close();
        }
        const QSettings settings;
        QVERIFY(settings.contains(QStringLiteral("mainWindow/geometry")));
        QVERIFY(settings.contains(QStringLiteral("mainWindow/state")));
        MainWindow restored;
        restored.restoreLayout();
        restored.show();
        QVERIFY(QTest::qWaitForWindowExposed(&restored));
    }

    void screenshotIsAPicture() {
        MainWindow window;
        window.show();
        QSignalSpy shown(&window, &MainWindow::modelShown);
        window.openModel(defaultModelSource());
        QVERIFY(shown.wait(kLoadTimeoutMs));

        const QPixmap grabbed = window.grab();
        QVERIFY(!grabbed.isNull());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("window.png"));
        QString error;
        QVERIFY2(window.saveScreenshot(path, &error), qUtf8Printable(error));
        const QImage image(path);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), grabbed.size());

        QVERIFY(!window.saveScreenshot(dir.filePath(QStringLiteral("missing/window.png")), &error));
        QVERIFY(error.contains(QStringLiteral("missing/window.png")));
    }

    void executableTakesAScreenshot_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("writable");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("stderrNames");
        QTest::newRow("demo") << QString() << true << 0 << QString();
        QTest::newRow("bad model") << QStringLiteral("zoo:no-such-model") << true << 1
                                   << QStringLiteral("zoo:no-such-model");
        QTest::newRow("unwritable") << QString() << false << 1 << QStringLiteral("demo.png");
    }

    void executableTakesAScreenshot() {
        QFETCH(QString, model);
        QFETCH(bool, writable);
        QFETCH(int, exitCode);
        QFETCH(QString, stderrNames);

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path =
            dir.filePath(writable ? QStringLiteral("demo.png") : QStringLiteral("missing/demo.png"));
        QStringList arguments{QStringLiteral("--screenshot"), path};
        if (!model.isEmpty())
            arguments << model;

        QProcess gui;
        QVERIFY(runGui(gui, arguments));
        const QString errors = QString::fromUtf8(gui.readAllStandardError());
        QCOMPARE(gui.exitStatus(), QProcess::NormalExit);
        QVERIFY2(gui.exitCode() == exitCode, qUtf8Printable(errors));
        if (exitCode == 0) {
            const QImage image(path);
            QVERIFY(!image.isNull());
            QVERIFY(image.width() >= 800 && image.height() >= 600);
        } else {
            // One line of ours (Qt may add its own warnings around it).
            const QStringList ours =
                errors.split(u'\n').filter(QRegularExpression(QStringLiteral("^shardscope: ")));
            QVERIFY2(ours.size() == 1, qUtf8Printable(errors));
            QVERIFY2(ours.first().contains(stderrNames), qUtf8Printable(errors));
        }
    }

    void helpDescribesTheCommandLine() {
        QProcess gui;
        QVERIFY(runGui(gui, {QStringLiteral("--help")}));
        QCOMPARE(gui.exitCode(), 0);
        const QString help = QString::fromUtf8(gui.readAllStandardOutput());
        QVERIFY(help.contains(QStringLiteral("--screenshot")));
        QVERIFY(help.contains(QStringLiteral("MODEL")));
    }
};

QTEST_MAIN(TestUiMainWindow)
#include "tst_ui_mainwindow.moc"
