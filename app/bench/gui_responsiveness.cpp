// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// shardscope-bench-gui: how long the explorer's UI thread stalls while it opens and lays out a large model.
//
// A 2 ms precise timer ticks on the UI thread; every gap between ticks beyond the interval is time the event
// loop could not run (a stall the user would feel as a frozen window). Each run opens the model (collapsed by
// module), then expands every module and waits for the full layout. The baseline measured in the same run is
// the layout's own wall time: what the window would freeze for if the layout ran on the UI thread.
//   shardscope-bench-gui [MODEL] [RUNS] [--train] [--collapsed]
//   shardscope-bench-gui --search [MODEL] [RUNS]: a 10 s search runs while the user pans the graph and
//   selects names every 40 ms (default zoo:demo); the worst stall over the search is reported
//   shardscope-bench-gui --explore [MODEL] [RUNS] [--train]: the explorer's background work while the user
//   pans and selects every 40 ms: start from an expert plan, price the conflicts' options, choose the best,
//   the Breakdown's memory and time pictures, the heat maps, the timeline, the mesh picture and the model's
//   text, on data=4,model=2 with every conflict's name also sharded on model; the worst stall of each step is
//   reported (default: the largest shared model)
// (default: the largest shared model, 5 runs, forward pass; --collapsed skips expanding every module, which
// Graphviz cannot lay out in minutes for training steps of 10k+ ops)
#include <algorithm>
#include <cstdio>
#include <vector>

#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeView>

#include "core/conflict_model.h"
#include "core/plan_editor.h"
#include "core/search_runner.h"
#include "widgets/conflict_panel.h"
#include "widgets/model_text_view.h"
#include "widgets/plan_breakdown_view.h"
#include "widgets/search_panel.h"
#include "widgets/session_docks.h"

#include "widgets/graph_view.h"
#include "widgets/main_window.h"
#include "widgets/model_text_view.h"

namespace {

// Records the longest stall of the event loop between start() and stop().
class StallMeter : public QObject {
public:
    StallMeter() {
        timer_.setTimerType(Qt::PreciseTimer);
        timer_.setInterval(2);
        connect(&timer_, &QTimer::timeout, this, [this] {
            const qint64 now = clock_.nsecsElapsed();
            worst_ = std::max(worst_, now - last_);
            last_ = now;
        });
    }
    void start() {
        worst_ = 0;
        clock_.start();
        last_ = 0;
        timer_.start();
    }
    double stop() {  // the longest gap between ticks, in ms
        timer_.stop();
        return static_cast<double>(worst_) / 1e6;
    }

private:
    QTimer timer_;
    QElapsedTimer clock_;
    qint64 last_ = 0, worst_ = 0;
};

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// A search on MODEL runs for 10 s while, every 40 ms, the graph is panned and another name selected.
int benchSearch(const QStringList& args) {
    const QString model = args.size() > 1 ? args[1] : QStringLiteral("zoo:demo");
    const int runs = args.size() > 2 ? std::max(1, args[2].toInt()) : 3;
    QTemporaryDir dir;
    std::vector<double> stalls, iterations;
    for (int run = 0; run < runs; ++run) {
        shardscope::ui::MainWindow window;
        window.setAttribute(Qt::WA_DontShowOnScreen);
        window.show();
        QSignalSpy settled(&window, &shardscope::ui::MainWindow::settled);
        window.openModel(model);
        if (!settled.wait(120'000)) {
            std::fprintf(stderr, "shardscope-bench-gui: %s did not open\n", qUtf8Printable(model));
            return 1;
        }
        auto* panel = window.sessionDocks()->searchPanel();
        panel->setWorkspacePath(dir.filePath(QStringLiteral("run%1.shardscope").arg(run)));
        shardscope::search::SearchOptions options = panel->options();
        options.budget.seconds = 10;
        options.threads = 2;
        panel->setOptions(options);
        auto* names = window.findChild<QTreeView*>(QStringLiteral("namesView"));
        auto* graph = window.graphView();
        QSignalSpy finished(panel->runner(), &shardscope::ui::SearchRunner::finished);
        StallMeter meter;
        meter.start();
        if (!panel->startSearch())
            return 1;
        int step = 0;
        QTimer user;
        user.setInterval(40);
        QObject::connect(&user, &QTimer::timeout, &window, [&] {
            ++step;
            graph->horizontalScrollBar()->setValue(graph->horizontalScrollBar()->value() +
                                                   ((step / 10) % 2 ? -25 : 25));
            graph->verticalScrollBar()->setValue(graph->verticalScrollBar()->value() +
                                                 ((step / 7) % 2 ? -25 : 25));
            const int rows = names->model()->rowCount();
            if (rows > 0)
                names->setCurrentIndex(names->model()->index(step % rows, 0));
        });
        user.start();
        if (finished.isEmpty() && !finished.wait(120'000))
            return 1;
        user.stop();
        stalls.push_back(meter.stop());
        iterations.push_back(static_cast<double>(panel->runner()->lastProgress().iterations));
        std::printf("run %d: %d user actions, %.0f search iterations, worst UI stall %.1f ms\n", run + 1,
                    step, iterations.back(), stalls.back());
        std::fflush(stdout);
    }
    std::printf("\n%s: a 10 s search (2 threads) while panning and selecting, median of %d runs\n",
                qUtf8Printable(model), runs);
    std::printf("  worst UI stall %.1f ms, %.0f iterations\n", median(stalls), median(iterations));
    return median(stalls) < 100 ? 0 : 3;
}

// The user's hand: every 40 ms the graph pans and another name is selected.
class PanAndSelect {
public:
    explicit PanAndSelect(shardscope::ui::MainWindow& window) {
        auto* names = window.findChild<QTreeView*>(QStringLiteral("namesView"));
        auto* graph = window.graphView();
        timer_.setInterval(40);
        QObject::connect(&timer_, &QTimer::timeout, &window, [this, names, graph] {
            ++steps_;
            graph->horizontalScrollBar()->setValue(graph->horizontalScrollBar()->value() +
                                                   ((steps_ / 10) % 2 ? -25 : 25));
            graph->verticalScrollBar()->setValue(graph->verticalScrollBar()->value() +
                                                 ((steps_ / 7) % 2 ? -25 : 25));
            const int rows = names->model()->rowCount();
            if (rows > 0)
                names->setCurrentIndex(names->model()->index(steps_ % rows, 0));
        });
        timer_.start();
    }
    int steps() const { return steps_; }

private:
    QTimer timer_;
    int steps_ = 0;
};

// Waits (running the event loop) until `done` or 10 minutes have passed.
template <typename Done>
bool waitUntil(Done done) {
    QElapsedTimer clock;
    clock.start();
    while (!done()) {
        if (clock.elapsed() > 600'000)
            return false;
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    }
    // A few more turns of the loop: what arrived is painted.
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    return true;
}

int benchExplore(QStringList args) {
    using shardscope::ui::MainWindow;
    const bool train = args.removeAll(QStringLiteral("--train")) > 0;
    const QString model =
        args.size() > 1 ? args[1] : QStringLiteral(SHARDSCOPE_SHARED_DIR "/models/stablehlo/pt_bert.mlir");
    const int runs = args.size() > 2 ? std::max(1, args[2].toInt()) : 3;
    struct Step {
        const char* what;
        std::vector<double> stalls, times;
    };
    std::vector<Step> steps = {
        {"start from fsdp-tp", {}, {}},         {"shard conflicts, price options", {}, {}},
        {"choose the best option", {}, {}},     {"Breakdown: memory by category", {}, {}},
        {"Breakdown: time per module", {}, {}}, {"heat map: time, bytes, memory", {}, {}},
        {"timeline and mesh picture", {}, {}},  {"StableHLO text", {}, {}}};
    std::vector<double> worst;
    for (int run = 0; run < runs; ++run) {
        MainWindow window;
        shardscope::ProblemSpec spec = window.spec();
        spec.train = train;
        spec.mesh = "data=4,model=2";
        window.setSpec(spec);
        window.setAttribute(Qt::WA_DontShowOnScreen);
        window.resize(1920, 1080);
        window.show();
        QSignalSpy settled(&window, &MainWindow::settled);
        QSignalSpy failed(&window, &MainWindow::modelFailed);
        window.openModel(model);
        while (settled.isEmpty() && failed.isEmpty())
            settled.wait(600'000);
        if (!failed.isEmpty()) {
            std::fprintf(stderr, "shardscope-bench-gui: %s\n",
                         qUtf8Printable(failed.first().first().toString()));
            return 1;
        }
        auto* editor = window.planEditor();
        auto* graph = window.graphView();
        auto* conflicts = window.findChild<shardscope::ui::ConflictPanel*>();
        auto* breakdown = window.sessionDocks()->breakdown();
        PanAndSelect hand(window);
        StallMeter meter;
        QElapsedTimer clock;
        auto measure = [&](std::size_t index, auto action, auto done) {
            meter.start();
            clock.start();
            action();
            if (!waitUntil(done))
                return false;
            steps[index].stalls.push_back(meter.stop());
            steps[index].times.push_back(static_cast<double>(clock.elapsed()));
            return true;
        };
        auto settledNow = [&] { return window.isSettled() && !editor->isEvaluating(); };
        bool ok = measure(
            0, [&] { window.openPlan(QStringLiteral("expert:fsdp-tp")); }, settledNow);
        // The Conflicts dock shown, and every conflict's name sharded on the last axis too, so that each of
        // its options is priced.
        const auto& space = window.currentModel()->space();
        const int last = static_cast<int>(window.currentModel()->mesh().axes.size()) - 1;
        ok = ok && measure(
                       1,
                       [&] {
                           window.showDock(QStringLiteral("conflicts"));
                           for (const auto& conflict : space.conflicts)
                               editor->pin({shardscope::plan::Decision::Target::Group,
                                            space.name(conflict.name).group.index, last});
                       },
                       [&] { return settledNow() && !conflicts->isEvaluating(); });
        std::size_t priced = 0, options = 0;
        for (std::size_t c = 0; c < space.conflicts.size(); ++c)
            for (std::size_t o = 0; o < space.conflicts[c].options.size(); ++o) {
                ++options;
                priced += conflicts->model()->optionCost(c, o).has_value() ? 1 : 0;
            }
        ok = ok && measure(
                       2,
                       [&] {
                           for (std::size_t c = 0; c < space.conflicts.size(); ++c)
                               if (const auto best = conflicts->model()->bestOption(c)) {
                                   conflicts->choose(shardscope::ui::conflictChoice(space, c, *best));
                                   return;
                               }
                       },
                       [&] { return settledNow() && !conflicts->isEvaluating(); });
        ok = ok && measure(
                       3, [&] { window.showDock(QStringLiteral("breakdown:memory")); },
                       [&] { return settledNow() && !breakdown->isComputing(); });
        ok = ok && measure(
                       4, [&] { window.showDock(QStringLiteral("breakdown:time")); },
                       [&] { return settledNow() && !breakdown->isComputing(); });
        ok = ok && measure(
                       5,
                       [&] {
                           for (auto metric :
                                {shardscope::ui::HeatMetric::Time, shardscope::ui::HeatMetric::Communication,
                                 shardscope::ui::HeatMetric::Memory}) {
                               graph->setHeatMetric(metric);
                               QApplication::processEvents(QEventLoop::AllEvents, 20);
                           }
                       },
                       settledNow);
        ok = ok && measure(
                       6,
                       [&] {
                           window.showDock(QStringLiteral("timeline"));
                           QApplication::processEvents(QEventLoop::AllEvents, 20);
                           window.showDock(QStringLiteral("problemDock"));
                       },
                       settledNow);
        auto* text = window.findChild<shardscope::ui::ModelTextView*>();
        ok = ok && text &&
             measure(
                 7, [&] { window.showDock(QStringLiteral("stableHloDock")); },
                 [&] { return settledNow() && !text->isLoading(); });
        if (!ok) {
            std::fprintf(stderr, "shardscope-bench-gui: a step did not finish in 10 minutes\n");
            return 1;
        }
        double runWorst = 0;
        std::printf("run %d (%d user actions, %zu of %zu conflict options priced):", run + 1, hand.steps(),
                    priced, options);
        for (const Step& step : steps) {
            runWorst = std::max(runWorst, step.stalls.back());
            std::printf(" %.1f", step.stalls.back());
        }
        worst.push_back(runWorst);
        std::printf(" ms; worst %.1f ms\n", runWorst);
        std::fflush(stdout);
    }
    std::printf("\n%s%s: exploring while panning and selecting every 40 ms, median of %d runs\n",
                qUtf8Printable(model), train ? " (training step)" : "", runs);
    std::printf("  %-32s %10s %16s\n", "step", "time", "worst UI stall");
    for (const Step& step : steps)
        std::printf("  %-32s %7.0f ms %13.1f ms\n", step.what, median(step.times), median(step.stalls));
    std::printf("  %-32s %10s %13.1f ms\n", "all steps", "", median(worst));
    return median(worst) < 100 ? 0 : 3;
}

}  // namespace

int main(int argc, char* argv[]) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Shardscope-bench"));  // keep the user's settings apart
    QStringList args = QApplication::arguments();
    if (args.removeAll(QStringLiteral("--search")) > 0)
        return benchSearch(args);
    if (args.removeAll(QStringLiteral("--explore")) > 0)
        return benchExplore(args);
    const bool train = args.removeAll(QStringLiteral("--train")) > 0;
    const bool collapsedOnly = args.removeAll(QStringLiteral("--collapsed")) > 0;
    const QString model =
        args.size() > 1 ? args[1] : QStringLiteral(SHARDSCOPE_SHARED_DIR "/models/stablehlo/pt_bert.mlir");
    const int runs = args.size() > 2 ? std::max(1, args[2].toInt()) : 5;
    if (!model.startsWith(QLatin1String("zoo:")) && !QFileInfo::exists(model)) {
        std::fprintf(stderr, "shardscope-bench-gui: %s does not exist (pass a model or a zoo name)\n",
                     qUtf8Printable(model));
        return 2;
    }

    std::vector<double> openStall, openTime, expandStall, expandLayout;
    int nodes = 0;
    for (int run = 0; run < runs; ++run) {
        shardscope::ui::MainWindow window;
        shardscope::ProblemSpec spec = window.spec();
        spec.train = train;
        window.setSpec(spec);
        window.setAttribute(Qt::WA_DontShowOnScreen);
        window.show();
        StallMeter meter;
        QElapsedTimer clock;

        QSignalSpy settled(&window, &shardscope::ui::MainWindow::settled);
        QSignalSpy failed(&window, &shardscope::ui::MainWindow::modelFailed);
        meter.start();
        clock.start();
        window.openModel(model);
        while (settled.isEmpty() && failed.isEmpty())
            settled.wait(120'000);
        openStall.push_back(meter.stop());
        openTime.push_back(static_cast<double>(clock.elapsed()));
        if (!failed.isEmpty()) {
            std::fprintf(stderr, "shardscope-bench-gui: %s\n",
                         qUtf8Printable(failed.first().first().toString()));
            return 1;
        }

        auto* graph = window.graphView();
        nodes = graph->projection() ? static_cast<int>(graph->projection()->nodes.size()) : 0;
        if (collapsedOnly) {
            std::printf("run %d: open %.0f ms, %d nodes (worst stall %.1f ms)\n", run + 1, openTime.back(),
                        nodes, openStall.back());
            std::fflush(stdout);
            continue;
        }
        QSignalSpy finished(graph, &shardscope::ui::GraphView::layoutFinished);
        meter.start();
        graph->expandAll();
        QElapsedTimer layout;
        layout.start();
        if (finished.isEmpty() && !finished.wait(600'000)) {
            std::fprintf(stderr, "shardscope-bench-gui: the full layout did not finish\n");
            return 1;
        }
        expandLayout.push_back(static_cast<double>(layout.elapsed()));
        // Let the scene swap in and paint before the stall is read.
        QElapsedTimer settle;
        settle.start();
        while (settle.elapsed() < 300)
            QApplication::processEvents(QEventLoop::AllEvents, 50);
        expandStall.push_back(meter.stop());
        nodes = (graph->projection() ? static_cast<int>(graph->projection()->nodes.size()) : 0);
        std::printf(
            "run %d: open %.0f ms (worst stall %.1f ms); expand all: layout %.0f ms of %d nodes (worst stall "
            "%.1f ms)\n",
            run + 1, openTime.back(), openStall.back(), expandLayout.back(), nodes, expandStall.back());
        std::fflush(stdout);
    }
    std::printf("\n%s%s, median of %d runs\n", qUtf8Printable(model), train ? " (training step)" : "", runs);
    std::printf("  open (collapsed by module):   %7.0f ms, worst UI stall %6.1f ms\n", median(openTime),
                median(openStall));
    if (collapsedOnly)
        return median(openStall) < 100 ? 0 : 3;
    std::printf(
        "  expand all (%d nodes):      layout %6.0f ms, worst UI stall %6.1f ms  (%.3fx of a layout on the "
        "UI thread)\n",
        nodes, median(expandLayout), median(expandStall), median(expandStall) / median(expandLayout));
    return median(expandStall) < 100 && median(openStall) < 100 ? 0 : 3;
}
