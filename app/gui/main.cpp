// The explorer: `shardscope [MODEL]`, or `shardscope --screenshot FILE [MODEL]` to picture it and exit.
#include <cstdio>

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QTimer>

#include "core/model_loader.h"
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

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Explores how to shard a machine-learning model across a mesh of accelerators."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("model"),
        QStringLiteral("The model to open: a zoo name such as zoo:gpt2-small or zoo:gpt:layers=4, or a model "
                       "file (default %1).")
            .arg(shardscope::ui::defaultModelSource()),
        QStringLiteral("[MODEL]"));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QStringLiteral("Load MODEL, save a picture of the window to FILE (PNG) and exit. Without a display, "
                       "add -platform offscreen."),
        QStringLiteral("FILE"));
    parser.addOption(screenshotOption);
    parser.process(app);

    const QStringList models = parser.positionalArguments();
    if (models.size() > 1) {
        complain(QStringLiteral("expected at most one MODEL, got %1 (see --help)").arg(models.size()));
        return 2;
    }

    MainWindow window;
    if (parser.isSet(screenshotOption)) {
        const QString path = parser.value(screenshotOption);
        window.setAttribute(Qt::WA_DontShowOnScreen);
        QObject::connect(&window, &MainWindow::modelShown, &app, [&window, path] {
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
    window.openModel(models.isEmpty() ? shardscope::ui::defaultModelSource() : models.first());
    return QApplication::exec();
}
