// ui/widgets: the main window, and the `shardscope` executable's --screenshot mode.
#include <algorithm>
#include <memory>

#include <QAbstractItemModel>
#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>

#include "core/model_loader.h"
#include "shardscope/report/model_report.h"
#include "widgets/main_window.h"

using namespace shardscope;
using namespace shardscope::ui;

namespace {

constexpr int kLoadTimeoutMs = 60'000;

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
    gui.start(QStringLiteral(SHARDSCOPE_GUI), arguments);
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

        const auto* text = window.findChild<QPlainTextEdit*>(QStringLiteral("stableHloView"));
        QVERIFY(text);
        QCOMPARE(text->toPlainText(), model->stableHlo);
        QVERIFY(text->isReadOnly());
        QVERIFY(text->font().fixedPitch() || text->fontInfo().fixedPitch());

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
        QSignalSpy started(window.findChild<ModelLoader*>(), &ModelLoader::busyChanged);

        // Completion only runs in a focused line edit, as when a person types.
        window.activateWindow();
        chooser->lineEdit()->setFocus();
        QTRY_VERIFY(chooser->lineEdit()->hasFocus());
        chooser->clearEditText();
        QTest::keyClicks(chooser->lineEdit(), source);
        QTest::keyClick(chooser->lineEdit(), Qt::Key_Return);
        QVERIFY(shown.wait(kLoadTimeoutMs));
        QThreadPool::globalInstance()->waitForDone();
        QTest::qWait(50);
        QCOMPARE(shown.count(), 1);
        QCOMPARE(started.count(), 2);  // busy once, idle once: one load
        QCOMPARE(window.currentModel()->source, source);
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
