// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The explorer on every real model of ../shared: each opens, is evaluated and laid out, and the largest one
// is pictured (ui_screenshot/, beside the demo's).
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QMap>
#include <QSignalSpy>
#include <QTest>

#include "core/plan_editor.h"
#include "core/problem_loader.h"
#include "test_paths.h"
#include "widgets/graph_view.h"
#include "widgets/main_window.h"

using namespace shardscope::ui;

namespace {

constexpr int kTimeoutMs = 120'000;

QString sharedModels() {
    return (shardscope::testing::sharedDir() + QStringLiteral("/models"));
}

QStringList modelFiles() {
    QStringList files;
    for (const QString& folder : {QStringLiteral("stablehlo"), QStringLiteral("onnx")}) {
        const QDir dir(sharedModels() + u'/' + folder);
        for (const QString& name :
             dir.entryList({QStringLiteral("*.mlir"), QStringLiteral("*.onnx")}, QDir::Files, QDir::Name))
            files.append(dir.filePath(name));
    }
    return files;
}

}  // namespace

class TestUiSharedModels : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (!QDir(sharedModels()).exists())
            QSKIP("../shared/models is absent (a user's clone): nothing to open");
        QDir().mkpath(shardscope::testing::binaryDir() + QStringLiteral("/tests/ui_screenshot"));
    }

    void opensEverySharedModel_data() {
        QTest::addColumn<QString>("path");
        for (const QString& path : modelFiles())
            QTest::newRow(qPrintable(QFileInfo(path).fileName())) << path;
    }

    void opensEverySharedModel() {
        QFETCH(QString, path);
        MainWindow window;
        window.setAttribute(Qt::WA_DontShowOnScreen);
        window.show();
        QSignalSpy settled(&window, &MainWindow::settled);
        QSignalSpy failed(&window, &MainWindow::modelFailed);
        window.openModel(path);
        const bool ended =
            QTest::qWaitFor([&] { return !settled.isEmpty() || !failed.isEmpty(); }, kTimeoutMs);
        QVERIFY2(
            ended,
            qUtf8Printable(
                QStringLiteral("still waiting: loading %1, model %2, evaluating %3, state %4, laying out %5")
                    .arg(window.findChild<ProblemLoader*>()->isBusy())
                    .arg(window.currentModel() != nullptr)
                    .arg(window.planEditor()->isEvaluating())
                    .arg(window.planEditor()->state() != nullptr)
                    .arg(window.graphView()->isLayoutBusy())));
        QVERIFY2(failed.isEmpty(),
                 qUtf8Printable(failed.isEmpty() ? QString() : failed.first().first().toString()));
        QVERIFY(window.currentModel());
        QVERIFY(window.planEditor()->state());
        QVERIFY(window.graphView()->projection() && !window.graphView()->projection()->nodes.empty());
        opCounts_.insert(path, window.currentModel()->statistics.opCount);
    }

    // The picture of the largest shared model (by ops, as the previous test found them) for the README.
    void picturesTheLargestModel() {
        QString largest;
        qint64 largestOps = -1;
        for (auto it = opCounts_.cbegin(); it != opCounts_.cend(); ++it)
            if (it.value() > largestOps) {
                largest = it.key();
                largestOps = it.value();
            }
        if (largest.isEmpty())
            QSKIP("no shared model opened");
        MainWindow window;
        window.setAttribute(Qt::WA_DontShowOnScreen);
        window.show();
        QSignalSpy settled(&window, &MainWindow::settled);
        window.openModel(largest);
        QVERIFY(settled.wait(kTimeoutMs));
        const QString file =
            (shardscope::testing::binaryDir() + QStringLiteral("/tests/ui_screenshot/%1.png"))
                .arg(QFileInfo(largest).completeBaseName());
        QString error;
        QVERIFY2(window.saveScreenshot(file, &error), qUtf8Printable(error));
        const QImage image(file);
        QVERIFY(!image.isNull() && image.width() >= 800);
    }

private:
    QMap<QString, qint64> opCounts_;
};

QTEST_MAIN(TestUiSharedModels)
#include "tst_ui_shared_models.moc"
