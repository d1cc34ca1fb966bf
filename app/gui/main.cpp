// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The explorer: `shardscope [MODEL]`, or `shardscope --screenshot FILE [MODEL]` to picture it and exit.
#include <cstdio>

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QTimer>

#include "core/problem_loader.h"
#include "widgets/main_window.h"

namespace {

void complain(const QString& message) {
    std::fprintf(stderr, "shardscope: %s\n", qUtf8Printable(message));
}

}  // namespace

int main(int argc, char* argv[]) {
    using shardscope::ui::MainWindow;

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Shardscope"));
    QApplication::setApplicationName(QStringLiteral("Shardscope"));
    QApplication::setApplicationVersion(QStringLiteral(SHARDSCOPE_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/shardscope-256.png")));
    // The installed desktop entry's id (packaging/): Wayland compositors match the window to it and its icon.
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.shardscope.Shardscope"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Explores how to shard a machine-learning model across a mesh of accelerators."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("model"),
        QStringLiteral("What to open: a zoo name such as zoo:gpt2-small or zoo:gpt:layers=4, a model file "
                       "(StableHLO or ONNX), or a workspace file (default %1).")
            .arg(shardscope::ui::defaultModelSource()),
        QStringLiteral("[MODEL]"));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QStringLiteral(
            "Open MODEL, wait until its plan is evaluated and its graph laid out, save a picture of "
            "the window to FILE (PNG) and exit. Without a display, add -platform offscreen."),
        QStringLiteral("FILE"));
    parser.addOption(screenshotOption);
    const QCommandLineOption planOption(
        QStringLiteral("plan"),
        QStringLiteral(
            "Start from PLAN: expert:ID (dp, zero1, zero2, zero3, fsdp, megatron, megatron-sp, dp-tp, "
            "fsdp-tp, ep), expert:ID+REMAT (REMAT: selective, full or dots-saveable for every block "
            "family, e.g. expert:fsdp+full) or a plan JSON file."),
        QStringLiteral("PLAN"));
    parser.addOption(planOption);
    const QCommandLineOption meshOption(
        QStringLiteral("mesh"),
        QStringLiteral(
            "The device mesh, e.g. data=8,model=4 (with :bw=GB/s:lat=us per axis), or a mesh .json file "
            "(default data=2,model=4)."),
        QStringLiteral("MESH"));
    const QCommandLineOption hardwareOption(
        QStringLiteral("hardware"),
        QStringLiteral(
            "A built-in hardware profile (h100, h100-2pods, h100-96gb-500w, h200, a100, tpu-v4, tpu-v5e, "
            "tpu-v5p) or a profile .json "
            "file (default h100)."),
        QStringLiteral("HARDWARE"));
    const QCommandLineOption trainOption(
        QStringLiteral("train"),
        QStringLiteral("Plan the whole training step (Adam), not the forward pass."));
    parser.addOption(meshOption);
    parser.addOption(hardwareOption);
    parser.addOption(trainOption);
    const QCommandLineOption findOption(
        QStringLiteral("find"),
        QStringLiteral(
            "Once the model is shown, find TEXT in the graph (an op kind or location, a parameter name, "
            "a value such as %12) and centre on it."),
        QStringLiteral("TEXT"));
    parser.addOption(findOption);
    const QCommandLineOption showDockOption(
        QStringLiteral("show-dock"),
        QStringLiteral(
            "Bring the panel NAME to the front of its tab group (e.g. timeline, breakdown, stableHlo), as "
            "for a screenshot of it; NAME:TAB also opens a tab inside it (e.g. breakdown:memory)."),
        QStringLiteral("NAME"));
    parser.addOption(showDockOption);
    parser.process(app);

    const QStringList models = parser.positionalArguments();
    if (models.size() > 1) {
        complain(QStringLiteral("expected at most one MODEL, got %1 (see --help)").arg(models.size()));
        return 2;
    }

    MainWindow window;
    shardscope::ProblemSpec spec = window.spec();
    if (parser.isSet(meshOption))
        spec.mesh = parser.value(meshOption).toStdString();
    if (parser.isSet(hardwareOption))
        spec.hardware = parser.value(hardwareOption).toStdString();
    if (parser.isSet(trainOption))
        spec.train = true;
    window.setSpec(spec);
    if (parser.isSet(planOption))
        window.setPlanToOpen(parser.value(planOption));
    if (parser.isSet(findOption))
        window.setFindOnOpen(parser.value(findOption));
    if (parser.isSet(screenshotOption)) {
        const QString path = parser.value(screenshotOption);
        window.setAttribute(Qt::WA_DontShowOnScreen);
        QObject::connect(&window, &MainWindow::settled, &app, [&window, path] {
            // Let the panels lay out their new contents before the picture is taken.
            QTimer::singleShot(0, &window, [&window, path] {
                QString error;
                const bool saved = window.saveScreenshot(path, &error);
                if (!saved)
                    complain(error);
                QApplication::exit(saved ? 0 : 1);
            });
        });
        QObject::connect(&window, &MainWindow::modelFailed, &app, [](const QString& message) {
            complain(message);
            QApplication::exit(1);
        });
    } else {
        window.restoreLayout();
    }
    window.show();
    if (parser.isSet(showDockOption) && !window.showDock(parser.value(showDockOption))) {
        complain(QStringLiteral("no panel is called %1").arg(parser.value(showDockOption)));
        return 2;
    }
    window.openModel(models.isEmpty() ? shardscope::ui::defaultModelSource() : models.first());
    return QApplication::exec();
}
