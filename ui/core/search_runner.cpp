// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/search_runner.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

#include "core/text.h"
#include "shardscope/session/recording.h"
#include "shardscope/session/workspace_session.h"
#include "shardscope/store/workspace.h"

namespace shardscope::ui {

// What the worker thread shares with the runner. The runner may go away first, so the worker posts to it only
// through post(), which its request's token guards.
struct SearchRunner::Job {
    LatestJob::Token token;  // this search's request: superseded by the next start() or the runner's end
    SearchRunner* owner =
        nullptr;  // reached only from letters the token delivers (so while the runner lives)
    std::shared_ptr<const ProblemView> problem;  // keeps the cost model alive while the search runs
    plan::Plan start;
    search::SearchOptions options;
    QString workspacePath;

    std::mutex mutex;
    search::Search* search = nullptr;  // while run() may be running
    bool stopRequested = false;
    bool ended = false;
    std::condition_variable endedCondition;
    std::thread thread;

    // Calls `f` on the runner's thread, unless the runner is gone or has started another search since.
    template <typename F>
    void post(F f) {
        token.post([target = owner, f = std::move(f)] { f(target); });
    }
    void run();
};

namespace {

FoundPlan foundPlan(const search::Found& f) {
    return {f.plan, f.evaluation, f.reward, f.iteration, f.seconds, toQString(f.origin)};
}

SearchProgress searchProgress(const search::Progress& p) {
    SearchProgress s;
    s.iterations = p.iterations;
    s.evaluations = p.evaluations;
    s.seconds = p.seconds;
    s.treeNodes = static_cast<qint64>(p.treeNodes);
    s.iterationsPerSecond = p.seconds > 0 ? static_cast<double>(p.iterations) / p.seconds : 0;
    s.bestStepTime = p.bestStepTime;
    s.bestPeakMemory = p.bestPeakMemory;
    s.bestFeasible = p.bestFeasible;
    s.exhausted = p.exhausted;
    return s;
}

QString firstMessage(const std::vector<Diagnostic>& diagnostics) {
    return diagnostics.empty() ? QStringLiteral("unknown error") : toQString(diagnostics.front().message);
}

// The bytes `view`'s model was loaded from, when they are not the file its source names now: those of the
// workspace it was opened from (the file its source names is never read: it may be gone, changed, or name
// something else entirely).
Result<std::optional<std::string>> loadedBytes(const ProblemView& view) {
    if (view.workspacePath.isEmpty())
        return std::optional<std::string>();
    auto origin = store::Workspace::open(view.workspacePath.toStdString());
    if (!origin)
        return Result<std::optional<std::string>>::failure(origin.diagnostics());
    return std::optional<std::string>(origin->model().bytes);
}

}  // namespace

// Passes the search's reports to the runner (queued), after the recording has saved them.
class SearchRunner::Observer : public search::SearchObserver {
public:
    explicit Observer(Job& job) : job_(job) {}

    void progress(const search::Progress& p) override {
        {
            // A stop() that came before run() began was undone by run(); repeat it.
            std::lock_guard lock(job_.mutex);
            if (job_.stopRequested && job_.search)
                job_.search->stop();
        }
        SearchProgress s = searchProgress(p);
        // The rate since the previous report: it shows a slowdown (a deeper tree, a pause) at once.
        if (p.seconds - lastSeconds_ > 0.05 && lastSeconds_ >= 0)
            s.iterationsPerSecond =
                static_cast<double>(p.iterations - lastIterations_) / (p.seconds - lastSeconds_);
        lastSeconds_ = p.seconds;
        lastIterations_ = p.iterations;
        job_.post([s](SearchRunner* self) { self->onProgress(s); });
    }

    void newBest(const search::Found& f) override {
        job_.post([found = foundPlan(f)](SearchRunner* self) { self->onNewBest(found); });
    }

private:
    Job& job_;
    double lastSeconds_ = -1;
    std::int64_t lastIterations_ = 0;
};

void SearchRunner::Job::run() {
    std::optional<FoundPlan> best;
    QString error;
    try {
        const Problem& p = *problem->problem;
        if (auto checked = search::checkOptions(options); !checked)
            throw std::runtime_error(firstMessage(checked.diagnostics()).toStdString());
        // The workspace, opened (it must hold this model, as the file is now) or created, as the CLI's search
        // does.
        auto bytes = loadedBytes(*problem);
        if (!bytes)
            throw std::runtime_error(firstMessage(bytes.diagnostics()).toStdString());
        auto opened =
            session::WorkspaceSession::open(p.spec, workspacePath.toStdString(), *bytes ? &**bytes : nullptr);
        if (!opened)
            throw std::runtime_error(firstMessage(opened.diagnostics()).toStdString());
        auto workspace = opened->workspace();
        if (!workspace)
            throw std::runtime_error(firstMessage(workspace.diagnostics()).toStdString());
        Observer observer(*this);
        session::SearchHooks hooks;
        hooks.observer = &observer;
        hooks.recording = [this](std::int64_t session) {
            post([path = workspacePath, session](SearchRunner* self) { self->onRecording(path, session); });
        };
        hooks.attach = [this](search::Search* engine) {
            {
                std::lock_guard lock(mutex);
                if (engine && stopRequested)
                    return false;  // stopped before it began
                search = engine;   // whatever way run() leaves, stop() must no longer reach the engine after
            }
            if (engine)
                post([](SearchRunner* self) { self->onProgress({}); });  // Starting -> Running
            return true;
        };
        session::SearchRequest request;
        request.start = start;
        request.options = options;
        auto run = session::runSearch(p, *workspace, std::move(request), hooks);
        if (!run)
            throw std::runtime_error(firstMessage(run.diagnostics()).toStdString());
        if (!run->best.origin.empty())
            best = foundPlan(run->best);
        if (!run->saved)
            error = toQString(run->saveError->message);
    } catch (const std::exception& e) {
        error = QString::fromLocal8Bit(e.what());
    }
    // Everything the search held is released by now, so whoever joins the thread after this waits for
    // nothing.
    post([best, error](SearchRunner* self) { self->onEnded(best, error); });
    std::lock_guard lock(mutex);
    ended = true;
    endedCondition.notify_all();
}

SearchRunner::SearchRunner(QObject* parent) : QObject(parent) {
    qRegisterMetaType<SearchProgress>();
    qRegisterMetaType<FoundPlan>();
}

SearchRunner::~SearchRunner() {
    if (!job_)
        return;
    std::unique_lock lock(job_->mutex);
    job_->stopRequested = true;
    if (job_->search) {
        job_->search->resume();
        job_->search->stop();
    }
    const bool ended =
        job_->endedCondition.wait_for(lock, std::chrono::seconds(3), [&] { return job_->ended; });
    lock.unlock();
    if (!job_->thread.joinable())
        return;  // joined when the search ended
    if (ended)
        job_->thread.join();
    else
        job_->thread.detach();  // it holds the job (and the problem) until it ends
}

bool SearchRunner::start(std::shared_ptr<const ProblemView> problem, const plan::Plan& start,
                         const search::SearchOptions& options, const QString& workspacePath) {
    if (state_ != State::Idle || !problem || !problem->problem)
        return false;
    if (job_ && job_->thread.joinable())
        job_->thread.join();  // ended: its last report has arrived
    auto job = std::make_shared<Job>();
    job->token = latest_.next();
    job->problem = std::move(problem);
    job->start = start;
    job->start.decisions.resize(start.pinned);  // the search adds its own decisions after the pins
    // (and keeps the plan's remat decisions: it searches only the block families they leave unset)
    job->options = options;
    job->workspacePath = workspacePath;
    job->owner = this;
    job_ = job;
    progress_ = {};
    best_.reset();
    workspacePath_.clear();
    session_ = 0;
    setState(State::Starting);
    job->thread = std::thread([job] { job->run(); });
    return true;
}

void SearchRunner::pause() {
    if (state_ != State::Running)
        return;
    {
        std::lock_guard lock(job_->mutex);
        if (job_->search)
            job_->search->pause();
    }
    setState(State::Paused);
    emit paused();
}

void SearchRunner::resume() {
    if (state_ != State::Paused)
        return;
    {
        std::lock_guard lock(job_->mutex);
        if (job_->search)
            job_->search->resume();
    }
    setState(State::Running);
    emit resumed();
}

void SearchRunner::stop() {
    if (state_ == State::Idle || state_ == State::Stopping)
        return;
    {
        std::lock_guard lock(job_->mutex);
        job_->stopRequested = true;
        if (job_->search)
            job_->search->stop();  // also ends a pause
    }
    setState(State::Stopping);
}

void SearchRunner::setState(State state) {
    if (state_ == state)
        return;
    state_ = state;
    emit stateChanged(state);
}

void SearchRunner::onProgress(const SearchProgress& progress) {
    if (state_ == State::Starting) {
        setState(State::Running);
        emit started();
    }
    if (progress.seconds == 0 && progress.iterations == 0)
        return;  // the start marker
    progress_ = progress;
    emit this->progress(progress);
}

void SearchRunner::onNewBest(const FoundPlan& found) {
    best_ = found;
    emit newBest(found);
}

void SearchRunner::onRecording(const QString& path, std::int64_t session) {
    workspacePath_ = path;
    session_ = session;
    emit recording(path, session);
}

void SearchRunner::onEnded(const std::optional<FoundPlan>& best, const QString& error) {
    job_->thread.join();
    if (best)
        best_ = best;
    setState(State::Idle);
    if (!error.isEmpty())
        emit failed(error);
    if (best)
        emit finished(*best);
    else if (error.isEmpty())
        emit finished(best_.value_or(FoundPlan{}));
}

}  // namespace shardscope::ui
