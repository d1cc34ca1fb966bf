// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The live search: SearchRunner's start/pause/resume/stop on a worker thread, its recording into a workspace,
// and the Search panel (buttons that follow the state, the chart of the best step time).
#include <memory>

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "core/problem_loader.h"
#include "core/search_runner.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/store/workspace.h"
#include "ui_test_support.h"
#include "widgets/search_panel.h"

using namespace shardscope;
using namespace shardscope::ui;

namespace {

constexpr int kTimeoutMs = 60'000;
using ProblemPtr = std::shared_ptr<const ProblemView>;

search::SearchOptions quick(double seconds, int threads = 1) {
    search::SearchOptions options;
    options.budget.seconds = seconds;
    options.threads = threads;
    options.seed = 7;
    return options;
}

bool waitIdle(SearchRunner& runner, int timeoutMs = kTimeoutMs) {
    return QTest::qWaitFor([&] { return runner.state() == SearchRunner::State::Idle; }, timeoutMs);
}

QString shotsDir() {
    return qEnvironmentVariable("SHARDSCOPE_PANEL_SHOTS");
}

}  // namespace

class TestUiSearch : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        ProblemRequest request;
        request.spec.model = "zoo:demo";
        request.spec.mesh = "data=2,model=4";
        request.spec.train = true;
        demo_ = fixtures::loadThroughLoader(request);
        QVERIFY(demo_);
    }

    // Five quick searches one after another: each starts, reports and finishes; none hangs.
    void startStopCycles() {
        SearchRunner runner;
        QSignalSpy started(&runner, &SearchRunner::started);
        QSignalSpy finished(&runner, &SearchRunner::finished);
        QSignalSpy failed(&runner, &SearchRunner::failed);
        QElapsedTimer timer;
        timer.start();
        for (int cycle = 0; cycle < 5; ++cycle) {
            QVERIFY(runner.start(demo_, plan::Plan{}, quick(0.3, 1 + cycle % 2)));
            QVERIFY(!runner.start(demo_, plan::Plan{}, quick(0.3)));  // one search at a time
            if (cycle % 2 == 1) {
                // Stopped by the user half of the time, before or after it got going.
                if (cycle == 3)
                    QTest::qWait(50);
                runner.stop();
                QCOMPARE(runner.state(), SearchRunner::State::Stopping);
            }
            QVERIFY(waitIdle(runner, 10'000));
            QCOMPARE(finished.size(), cycle + 1);
        }
        QVERIFY(failed.isEmpty());
        QVERIFY(started.size() >= 3);
        QVERIFY2(timer.elapsed() < 15'000, qPrintable(QString::number(timer.elapsed())));
        const auto best = finished.last().first().value<FoundPlan>();
        QVERIFY(best.evaluation.stepTime > 0);
        QVERIFY(!best.origin.isEmpty());
    }

    // Progress and new best plans arrive while the event loop runs; the best matches the last newBest.
    void reportsArriveWhileTheLoopRuns() {
        SearchRunner runner;
        QSignalSpy progress(&runner, &SearchRunner::progress);
        QSignalSpy newBest(&runner, &SearchRunner::newBest);
        QSignalSpy finished(&runner, &SearchRunner::finished);
        QVERIFY(runner.start(demo_, plan::Plan{}, quick(1.0, 2)));
        QCOMPARE(runner.state(), SearchRunner::State::Starting);
        // The UI thread is free: a 10 ms timer keeps firing while the search runs.
        qint64 longestGap = 0;
        QElapsedTimer gap;
        gap.start();
        while (runner.state() != SearchRunner::State::Idle) {
            QTest::qWait(10);
            longestGap = std::max(longestGap, gap.restart());
        }
        // The issue asks for stalls under 100 ms; the margin is for a loaded CI machine.
        qInfo("longest event-loop gap while searching: %lld ms", longestGap);
        QVERIFY2(longestGap < 250, qPrintable(QString::number(longestGap)));
        QVERIFY(progress.size() >= 3);
        QVERIFY(progress.size() <= 12);  // ~5 per second for 1 s, and the last
        QVERIFY(!newBest.isEmpty());
        QCOMPARE(finished.size(), 1);
        const auto last = progress.last().first().value<SearchProgress>();
        QVERIFY(last.iterations > 0);
        QVERIFY(last.treeNodes > 1);
        QVERIFY(std::any_of(progress.begin(), progress.end(), [](const QList<QVariant>& args) {
            return args.first().value<SearchProgress>().iterationsPerSecond > 0;
        }));
        QVERIFY(runner.best());
        QCOMPARE(runner.best()->evaluation.stepTime, last.bestStepTime);
        QCOMPARE(runner.workspacePath(), QString());
        QCOMPARE(runner.session(), std::int64_t{0});
    }

    // Pause holds the search (the iterations stop growing); resume continues it.
    void pauseReallyPauses() {
        SearchRunner runner;
        QSignalSpy progress(&runner, &SearchRunner::progress);
        QVERIFY(runner.start(demo_, plan::Plan{}, quick(30, 2)));
        QVERIFY(QTest::qWaitFor([&] { return progress.size() >= 2; }, kTimeoutMs));
        runner.pause();
        QCOMPARE(runner.state(), SearchRunner::State::Paused);
        QTest::qWait(400);  // reports already on their way arrive
        const qint64 atPause = runner.lastProgress().iterations;
        const auto reportsAtPause = progress.size();
        QTest::qWait(600);
        QCOMPARE(progress.size(), reportsAtPause);
        QCOMPARE(runner.lastProgress().iterations, atPause);
        runner.resume();
        QCOMPARE(runner.state(), SearchRunner::State::Running);
        QVERIFY(QTest::qWaitFor([&] { return runner.lastProgress().iterations > atPause; }, 5'000));
        runner.stop();
        QVERIFY(waitIdle(runner, 5'000));
    }

    // Stopping while paused ends the search.
    void stopWhilePaused() {
        SearchRunner runner;
        QSignalSpy finished(&runner, &SearchRunner::finished);
        QVERIFY(runner.start(demo_, plan::Plan{}, quick(30)));
        QVERIFY(QTest::qWaitFor([&] { return runner.state() == SearchRunner::State::Running; }, kTimeoutMs));
        runner.pause();
        QTest::qWait(100);
        runner.stop();
        QVERIFY(waitIdle(runner, 5'000));
        QCOMPARE(finished.size(), 1);
    }

    // Deleting the runner mid-search stops the search and returns promptly.
    void destroyedMidSearch() {
        for (int delay : {0, 150}) {
            auto runner = std::make_unique<SearchRunner>();
            QVERIFY(runner->start(demo_, plan::Plan{}, quick(60, 2)));
            QTest::qWait(delay);
            QElapsedTimer timer;
            timer.start();
            runner.reset();
            QVERIFY2(timer.elapsed() < 1'000, qPrintable(QString::number(timer.elapsed())));
            QTest::qWait(20);  // reports already posted are dropped with the runner
        }
        // Paused, too.
        auto runner = std::make_unique<SearchRunner>();
        QVERIFY(runner->start(demo_, plan::Plan{}, quick(60)));
        QVERIFY(QTest::qWaitFor([&] { return runner->state() == SearchRunner::State::Running; }, kTimeoutMs));
        runner->pause();
        QElapsedTimer timer;
        timer.start();
        runner.reset();
        QVERIFY(timer.elapsed() < 1'000);
    }

    // A search recorded into a new workspace: the session, its settings and pins, the experts, the plans
    // found and the tree are there once the workspace is reopened; a second search adds a second session to
    // the same file.
    void recordsIntoAWorkspace() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("demo.shardscope"));
        const auto& context = demo_->problem->costModel->planContext();
        plan::Plan start;
        for (std::size_t n = 0; n < demo_->space().names.size(); ++n)
            if (demo_->space().names[n].label == "batch")
                start.decisions.push_back({plan::Decision::Target::Name, static_cast<std::uint32_t>(n),
                                           *demo_->mesh().axisIndex("data")});
        QCOMPARE(start.decisions.size(), std::size_t{1});
        start.pinned = 1;
        SearchRunner runner;
        QSignalSpy recording(&runner, &SearchRunner::recording);
        QSignalSpy newBest(&runner, &SearchRunner::newBest);
        QSignalSpy failed(&runner, &SearchRunner::failed);
        QVERIFY(runner.start(demo_, start, quick(0.5)));
        QVERIFY(waitIdle(runner));
        // Not seeded with the experts, so the search's own plans are the best ones (the experts are saved
        // anyway).
        search::SearchOptions options = quick(0.5);
        options.seedWithExperts = false;
        newBest.clear();  // the bests of the unrecorded search above are not in the file
        QVERIFY(runner.start(demo_, start, options, path));
        QVERIFY(waitIdle(runner));
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        QCOMPARE(recording.size(), 1);
        QCOMPARE(runner.workspacePath(), path);
        QCOMPARE(runner.session(), std::int64_t{1});
        const auto searchBests =
            std::count_if(newBest.begin(), newBest.end(), [](const QList<QVariant>& args) {
                return args.first().value<FoundPlan>().origin == QLatin1String("search");
            });

        auto opened = store::Workspace::open(path.toStdString());
        QVERIFY(opened);
        QCOMPARE(opened->model().source, std::string("zoo:demo"));
        const auto sessions = opened->sessions();
        QCOMPARE(sessions.size(), std::size_t{1});
        QVERIFY(sessions[0].settings.find("\"problem\"") != std::string::npos);
        QVERIFY(sessions[0].settings.find("\"exploration\"") != std::string::npos);
        const QJsonObject settings =
            QJsonDocument::fromJson(QByteArray::fromStdString(sessions[0].settings)).object();
        QCOMPARE(settings["search"].toObject()["seed"].toInt(), 7);
        QCOMPARE(settings["search"].toObject()["budget"].toString(), QStringLiteral("0.5s"));
        QVERIFY(settings["problem"].toObject().contains(QLatin1String("mesh")));
        auto pins = plan::parsePlan(QJsonDocument(settings["pins"].toObject()).toJson().toStdString(),
                                    context, demo_->mesh(), "pins");
        QVERIFY(pins);
        QCOMPARE(pins->decisions, start.decisions);
        QCOMPARE(pins->pinned, std::size_t{1});
        const auto plans = opened->plans(1);
        int experts = 0, found = 0;
        for (const auto& p : plans) {
            if (p.origin.rfind("expert:", 0) == 0)
                ++experts;
            else if (p.origin == "search")
                ++found;
        }
        QVERIFY(experts >= 8);
        QCOMPARE(found, static_cast<int>(searchBests));
        QVERIFY(found >= 1);
        QVERIFY(opened->nodeCount(1) > 1);
        QVERIFY(opened->node(1, 0).has_value());
        QVERIFY(!opened->children(1, 0).empty());

        // A second search into the same (now existing) file: a new session.
        QVERIFY(runner.start(demo_, plan::Plan{}, quick(0.3), path));
        QVERIFY(waitIdle(runner));
        QVERIFY(failed.isEmpty());
        QCOMPARE(runner.session(), std::int64_t{2});
        auto reopened = store::Workspace::open(path.toStdString());
        QVERIFY(reopened);
        QCOMPARE(reopened->sessions().size(), std::size_t{2});
        QVERIFY(reopened->nodeCount(2) > 1);
    }

    // A workspace of another model is refused with a message naming both; no session is added.
    void refusesAWorkspaceOfAnotherModel() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("other.shardscope"));
        store::ModelRecord other;
        other.source = "zoo:gpt2-small";
        QVERIFY(store::Workspace::create(path.toStdString(), other));
        SearchRunner runner;
        QSignalSpy failed(&runner, &SearchRunner::failed);
        QSignalSpy finished(&runner, &SearchRunner::finished);
        QVERIFY(runner.start(demo_, plan::Plan{}, quick(0.3), path));
        QVERIFY(waitIdle(runner));
        QCOMPARE(failed.size(), 1);
        QVERIFY(failed.first().first().toString().contains(QLatin1String("zoo:gpt2-small")));
        QVERIFY(finished.isEmpty());
        QCOMPARE(store::Workspace::open(path.toStdString())->sessions().size(), std::size_t{0});
    }

    // The panel: buttons follow the runner's state, the chart gets points, Apply emits the best plan.
    void panelFollowsTheState() {
        SearchPanel panel;
        auto* start = panel.findChild<QPushButton*>(QStringLiteral("searchStart"));
        auto* pause = panel.findChild<QPushButton*>(QStringLiteral("searchPause"));
        auto* resume = panel.findChild<QPushButton*>(QStringLiteral("searchResume"));
        auto* stop = panel.findChild<QPushButton*>(QStringLiteral("searchStop"));
        auto* apply = panel.findChild<QPushButton*>(QStringLiteral("searchApply"));
        QVERIFY(start && pause && resume && stop && apply);
        QVERIFY(!start->isEnabled());  // no problem yet
        panel.setProblem(demo_);
        QVERIFY(start->isEnabled() && !pause->isEnabled() && !resume->isEnabled() && !stop->isEnabled());
        QVERIFY(!apply->isEnabled());

        search::SearchOptions options = quick(30, 2);
        options.exploration = 0.8;
        panel.setOptions(options);
        QCOMPARE(panel.options().exploration, 0.8);
        QCOMPARE(panel.options().budget.seconds, 30.0);
        QTest::mouseClick(start, Qt::LeftButton);
        QVERIFY(!start->isEnabled() && stop->isEnabled());
        QVERIFY(QTest::qWaitFor([&] { return pause->isEnabled(); }, kTimeoutMs));
        QVERIFY(QTest::qWaitFor([&] { return panel.runner()->lastProgress().iterations > 0; }, kTimeoutMs));
        QTest::mouseClick(pause, Qt::LeftButton);
        QVERIFY(!pause->isEnabled() && resume->isEnabled() && stop->isEnabled() && !start->isEnabled());
        QTest::mouseClick(resume, Qt::LeftButton);
        QVERIFY(pause->isEnabled() && !resume->isEnabled());
        QTest::qWait(600);
        QVERIFY(!panel.chart()->points().empty());
        QVERIFY(apply->isEnabled());
        QVERIFY(
            panel.findChild<QLabel*>(QStringLiteral("searchStatus"))->text().contains(QLatin1String("it/s")));

        QSignalSpy applied(&panel, &SearchPanel::applyPlanRequested);
        QTest::mouseClick(apply, Qt::LeftButton);
        QCOMPARE(applied.size(), 1);
        QCOMPARE(applied.first().first().value<plan::Plan>(), panel.runner()->best()->plan);

        if (!shotsDir().isEmpty()) {
            panel.resize(380, 560);
            QVERIFY(panel.grab().save(shotsDir() + QStringLiteral("/search-running.png")));
        }
        QTest::mouseClick(stop, Qt::LeftButton);
        QVERIFY(waitIdle(*panel.runner(), 5'000));
        QVERIFY(start->isEnabled() && !pause->isEnabled() && !resume->isEnabled() && !stop->isEnabled());
        QVERIFY(panel.findChild<QLabel*>(QStringLiteral("searchStatus"))
                    ->text()
                    .startsWith(QLatin1String("Done")));

        // Another problem: the plans found no longer apply.
        panel.setProblem(std::make_shared<ProblemView>(*demo_));
        QVERIFY(!apply->isEnabled());
        QVERIFY(panel.chart()->points().empty());
        panel.setProblem(demo_);

        // Recorded into a workspace: the panel names the file and the session.
        QTemporaryDir dir;
        panel.setWorkspacePath(dir.filePath(QStringLiteral("panel.shardscope")));
        QVERIFY(panel.findChild<QLabel*>(QStringLiteral("searchRecording"))
                    ->text()
                    .contains(QLatin1String("panel.shardscope")));
        options.budget.seconds = 0.5;
        panel.setOptions(options);
        QVERIFY(panel.startSearch());
        QVERIFY(waitIdle(*panel.runner()));
        QCOMPARE(panel.runner()->session(), std::int64_t{1});
        QVERIFY(panel.findChild<QLabel*>(QStringLiteral("searchRecording"))
                    ->text()
                    .contains(QLatin1String("session 1")));
        if (!shotsDir().isEmpty())
            QVERIFY(panel.grab().save(shotsDir() + QStringLiteral("/search-done.png")));

        // A new problem stops a running search.
        options.budget.seconds = 30;
        panel.setOptions(options);
        QVERIFY(panel.startSearch());
        panel.setProblem(std::make_shared<ProblemView>(*demo_));
        QVERIFY(waitIdle(*panel.runner(), 5'000));
        QVERIFY(start->isEnabled() && !apply->isEnabled());
    }

    // The chart on its own: feasible and infeasible points, and a log axis for widely spread times.
    void chartDraws() {
        SearchChart chart;
        chart.resize(360, 180);
        QVERIFY(!chart.grab().isNull());  // empty: draws its hint
        chart.addPoint({0.0, 2.0, false});
        chart.addPoint({0.4, 0.05, true});
        chart.addPoint({1.5, 0.01, true});
        chart.setElapsed(3.0);
        QCOMPARE(chart.points().size(), std::size_t{3});
        const QImage image = chart.grab().toImage();
        // The feasibility strip: red at the start, green at the end.
        bool red = false, green = false;
        for (int y = 0; y < image.height(); ++y) {
            const QColor left = image.pixelColor(image.width() / 2 - 100, y);
            const QColor right = image.pixelColor(image.width() - 20, y);
            red = red || (left.red() > 150 && left.green() < 90);
            green = green || (right.green() > 120 && right.red() < 90);
        }
        QVERIFY(red);
        QVERIFY(green);
        if (!shotsDir().isEmpty())
            QVERIFY(image.save(shotsDir() + QStringLiteral("/search-chart.png")));
    }

    // The chart's reference lines, speed-ups, legend and exhaustion, on their own.
    void chartReferencesAndLegend() {
        SearchChart chart;
        chart.resize(420, 220);
        QCOMPARE(chart.speedUp(SearchChart::Reference::EditedPlan), 0.0);  // nothing found yet
        chart.setReference(SearchChart::Reference::EditedPlan, 2.0);
        chart.setReference(SearchChart::Reference::BestExpert, 1.0, QStringLiteral("megatron"));
        chart.addPoint({0.0, 1.0, false});
        chart.addPoint({0.5, 0.5, true});
        chart.setElapsed(2.0);
        QCOMPARE(chart.reference(SearchChart::Reference::EditedPlan), 2.0);
        QCOMPARE(chart.speedUp(SearchChart::Reference::EditedPlan), 4.0);
        QCOMPARE(chart.speedUp(SearchChart::Reference::BestExpert), 2.0);
        QCOMPARE(chart.legendEntries(),
                 QStringList({QStringLiteral("best so far"), QStringLiteral("fits"),
                              QStringLiteral("does not fit"), QStringLiteral("edited plan"),
                              QStringLiteral("best expert (megatron)")}));
        QVERIFY2(chart.summaryText().contains(QStringLiteral("4.00× vs the edited plan")),
                 qPrintable(chart.summaryText()));
        QVERIFY(chart.summaryText().contains(QStringLiteral("2.00× vs the best expert")));
        QVERIFY(!chart.summaryText().contains(QLatin1String("exhausted")));
        chart.setExhausted(true);
        QVERIFY(chart.summaryText().contains(QLatin1String("space exhausted")));
        // The edited plan's line, dashed, crosses the plot in its colour.
        const QImage image = chart.grab().toImage();
        int purple = 0;
        for (int x = 0; x < image.width(); ++x)
            for (int y = 0; y < image.height(); ++y) {
                const QColor c = image.pixelColor(x, y);
                purple += c.blue() > c.green() + 40 && c.red() > c.green() + 15;
            }
        if (!shotsDir().isEmpty())
            QVERIFY(image.save(shotsDir() + QStringLiteral("/search-chart-references.png")));
        QVERIFY2(purple > 20, qPrintable(QString::number(purple)));
        // A new search forgets the best expert and the exhaustion; the edited plan is still the edited plan.
        chart.clear();
        QCOMPARE(chart.reference(SearchChart::Reference::EditedPlan), 2.0);
        QCOMPARE(chart.reference(SearchChart::Reference::BestExpert), 0.0);
        QVERIFY(!chart.exhausted());
        QCOMPARE(chart.legendEntries(),
                 QStringList({QStringLiteral("best so far"), QStringLiteral("edited plan")}));
    }

    // Time paused is not search time: the chart's axis does not count it (the engine's seconds do).
    void pausedTimeIsLeftOut() {
        SearchPanel panel;
        panel.setProblem(demo_);
        const double edited = cost::evaluate(*demo_->problem->costModel, demo_->initialPlan).stepTime;
        panel.setEditedStepTime(edited);
        QVERIFY(panel.startSearch());
        QVERIFY(QTest::qWaitFor([&] { return panel.runner()->lastProgress().iterations > 0; }, kTimeoutMs));
        panel.runner()->pause();
        const double before = panel.chart()->elapsed();
        QTest::qWait(1500);
        QCOMPARE(panel.chart()->elapsed(), before);  // nothing moves while paused
        panel.runner()->resume();
        QVERIFY(QTest::qWaitFor([&] { return panel.runner()->lastProgress().seconds > before + 1.7; },
                                kTimeoutMs));
        const double engineSeconds = panel.runner()->lastProgress().seconds;
        QVERIFY2(panel.chart()->elapsed() < engineSeconds - 1.2,
                 qPrintable(QStringLiteral("%1 vs %2").arg(panel.chart()->elapsed()).arg(engineSeconds)));
        QVERIFY(panel.chart()->elapsed() > 0);
        // The seeded experts gave the best-expert line; the edited plan's stays.
        QVERIFY(panel.chart()->reference(SearchChart::Reference::BestExpert) > 0);
        QCOMPARE(panel.chart()->reference(SearchChart::Reference::EditedPlan), edited);
        panel.runner()->stop();
        QVERIFY(waitIdle(*panel.runner(), 5'000));
        QVERIFY(!panel.chart()->exhausted());
        QVERIFY(panel.chart()->speedUp(SearchChart::Reference::EditedPlan) > 0);
        if (!shotsDir().isEmpty()) {
            panel.resize(420, 620);
            QVERIFY(panel.grab().save(shotsDir() + QStringLiteral("/search-paused.png")));
        }
    }

    // A search that explores its whole tree ends before its budget and says the space is exhausted.
    void exhaustedSearchSaysSo() {
        ProblemRequest request;
        request.spec.model = "zoo:demo";
        request.spec.mesh = "data=2,model=4";
        const ProblemPtr forward = fixtures::loadThroughLoader(request);
        QVERIFY(forward);
        SearchPanel panel;
        panel.setProblem(forward);
        search::SearchOptions options = quick(120);
        options.maxDecisions = 1;
        options.staging = search::Staging::None;
        panel.setOptions(options);
        QCOMPARE(panel.options().maxDecisions, 1);  // kept, though the panel does not show it
        QElapsedTimer clock;
        clock.start();
        QVERIFY(panel.startSearch());
        QVERIFY(waitIdle(*panel.runner()));
        QVERIFY(clock.elapsed() < 100'000);
        QVERIFY(panel.runner()->lastProgress().exhausted);
        QVERIFY(panel.chart()->exhausted());
        QVERIFY(panel.chart()->summaryText().contains(QLatin1String("space exhausted")));
        const QString status = panel.findChild<QLabel*>(QStringLiteral("searchStatus"))->text();
        QVERIFY2(status.startsWith(QLatin1String("Done, space exhausted")), qPrintable(status));
    }

    // The picture of docs/explorer.md (only with SHARDSCOPE_PANEL_SHOTS): gpt2-small's training step searched
    // for 8 s of search time, with a 2 s pause that the chart leaves out.
    void searchPicture() {
        if (shotsDir().isEmpty())
            QSKIP("SHARDSCOPE_PANEL_SHOTS is not set");
        ProblemRequest request;
        request.spec.model = "zoo:gpt2-small";
        request.spec.mesh = "data=2,model=4";
        request.spec.train = true;
        const ProblemPtr gpt2 = fixtures::loadThroughLoader(request);
        QVERIFY(gpt2);
        SearchPanel panel;
        panel.resize(440, 640);
        panel.show();
        panel.setProblem(gpt2);
        panel.setEditedStepTime(cost::evaluate(*gpt2->problem->costModel, gpt2->initialPlan).stepTime);
        panel.setOptions(quick(10, 2));
        QVERIFY(panel.startSearch());
        QTest::qWait(4000);
        panel.runner()->pause();
        QTest::qWait(2000);
        panel.runner()->resume();
        QVERIFY(waitIdle(*panel.runner(), kTimeoutMs));
        QVERIFY(panel.grab().save(shotsDir() + QStringLiteral("/search-panel.png")));
    }

private:
    ProblemPtr demo_;
};

QTEST_MAIN(TestUiSearch)
#include "tst_ui_search.moc"
