// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The live search (docs/design.md, "Search", §9): one engine Search at a time on a worker thread, steered
// from the UI thread and reporting through queued signals, optionally recorded into a workspace session.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include <QMetaType>
#include <QObject>
#include <QString>

#include "core/job_queue.h"
#include "core/problem_view.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/plan/plan.h"
#include "shardscope/search/search.h"

namespace shardscope::ui {

// A progress report of the search as the UI shows it.
struct SearchProgress {
    qint64 iterations = 0;
    qint64 evaluations = 0;
    double seconds = 0;  // since start, pauses included
    qint64 treeNodes = 0;
    double iterationsPerSecond = 0;  // since the previous report (the average when that was under 50 ms ago)
    // The best plan so far (stepTime 0: none yet).
    double bestStepTime = 0;
    double bestPeakMemory = 0;
    bool bestFeasible = false;
    bool exhausted = false;  // the tree is complete: the search ended with nothing left to try
};

// A plan the search found (or an expert plan it was seeded with), with its evaluation.
struct FoundPlan {
    plan::Plan plan;
    cost::Evaluation evaluation;
    double reward = 0;
    qint64 iteration = 0;
    double seconds = 0;  // after the start of the search
    QString origin;      // "search" or "expert:ID"
};

// Runs the engine's MCTS for the problem shown. Every call returns at once; the search, the workspace's
// opening and the recording all happen on a worker thread, whose reports arrive as signals on the runner's
// thread. Reports of an earlier search (one stopped before the current one started) are dropped.
//
// State: Idle -start()-> Starting -(search runs)-> Running <-pause()/resume()-> Paused; stop() or the budget
// -> Stopping -> Idle (finished or failed). The seconds budget counts wall time, pauses included (the
// engine's rule).
//
// Destroying the runner stops its search and waits for it up to 3 s; a worker still busy then (a very large
// model's setup) is left to end on its own with the objects it shares, and reports nothing.
class SearchRunner : public QObject {
    Q_OBJECT

public:
    enum class State { Idle, Starting, Running, Paused, Stopping };
    Q_ENUM(State)

    explicit SearchRunner(QObject* parent = nullptr);
    ~SearchRunner() override;

    // Starts a search of `problem` from `start` (its pinned decisions, forbidden decisions and resolutions;
    // the decisions after the pins are left out) with `options`. When `workspacePath` is not empty the search
    // is recorded there as a new session: the file is created (holding the model) when it does not exist,
    // else it must hold the same model. Returns false (and does nothing) while a search is active (not Idle)
    // or without a problem.
    bool start(std::shared_ptr<const ProblemView> problem, const plan::Plan& start,
               const search::SearchOptions& options, const QString& workspacePath = {});
    // Pause holds every search thread until resume(); stop() ends the search (from Paused too).
    void pause();
    void resume();
    void stop();

    State state() const { return state_; }
    bool isActive() const { return state_ != State::Idle; }
    // The last report and best plan of the current (or last) search.
    const SearchProgress& lastProgress() const { return progress_; }
    const std::optional<FoundPlan>& best() const { return best_; }
    // Where the current (or last) search is recorded: empty and 0 when it is not (or not yet).
    const QString& workspacePath() const { return workspacePath_; }
    std::int64_t session() const { return session_; }

signals:
    void stateChanged(shardscope::ui::SearchRunner::State state);
    void started();
    void paused();
    void resumed();
    // The session is created (before the experts and the search run).
    void recording(const QString& workspacePath, qint64 session);
    // At most ~5 per second while the search runs, and once when it ends.
    void progress(const shardscope::ui::SearchProgress& progress);
    void newBest(const shardscope::ui::FoundPlan& found);
    // The search ended (budget spent, stopped or the tree exhausted); `best` is its best plan.
    void finished(const shardscope::ui::FoundPlan& best);
    // The search could not start or record: a line naming the workspace or the problem. The state is Idle.
    void failed(const QString& message);

private:
    struct Job;
    class Observer;

    void setState(State state);
    void onProgress(const SearchProgress& progress);
    void onNewBest(const FoundPlan& found);
    void onRecording(const QString& path, std::int64_t session);
    void onEnded(const std::optional<FoundPlan>& best, const QString& error);

    std::shared_ptr<Job> job_;
    State state_ = State::Idle;
    SearchProgress progress_;
    std::optional<FoundPlan> best_;
    QString workspacePath_;
    std::int64_t session_ = 0;
    LatestJob latest_;  // the search thread's reports, to this object's thread; last: destroyed first
};

}  // namespace shardscope::ui

Q_DECLARE_METATYPE(shardscope::ui::SearchProgress)
Q_DECLARE_METATYPE(shardscope::ui::FoundPlan)
