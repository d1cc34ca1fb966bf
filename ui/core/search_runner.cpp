#include "core/search_runner.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

#include "core/text.h"
#include "shardscope/search/recording.h"
#include "shardscope/store/workspace.h"

namespace shardscope::ui {

// What the worker thread shares with the runner. The runner may go away first (its destructor clears `owner`
// under the mutex), so the worker posts to it only through post().
struct SearchRunner::Job {
    std::uint64_t generation = 0;
    std::shared_ptr<const ProblemView> problem;  // keeps the cost model alive while the search runs
    plan::Plan start;
    search::SearchOptions options;
    QString workspacePath;

    std::mutex mutex;
    SearchRunner* owner = nullptr;
    search::Search* search = nullptr;  // while run() may be running
    bool stopRequested = false;
    bool ended = false;
    std::condition_variable endedCondition;
    std::thread thread;

    // Calls `f` on the runner's thread, unless the runner is gone or has started another search since.
    template <typename F>
    void post(F f) {
        std::lock_guard lock(mutex);
        if (!owner)
            return;
        owner->mailbox_.post([target = owner, generation = generation, f = std::move(f)] {
            if (target->generation_ == generation)
                f(target);
        });
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
    return s;
}

QString firstMessage(const std::vector<Diagnostic>& diagnostics) {
    return diagnostics.empty() ? QStringLiteral("unknown error") : toQString(diagnostics.front().message);
}

// The workspace to record into: opened, or created with the model of `view` (its file's bytes, or those of
// the workspace it was loaded from).
Result<store::Workspace> openOrCreate(const std::string& path, const ProblemView& view) {
    const ProblemSpec& spec = view.problem->spec;
    if (std::filesystem::exists(path)) {
        auto opened = store::Workspace::open(path);
        if (!opened)
            return opened;
        if (opened->model().source != spec.model)
            return makeError(
                "ui.search_workspace",
                "'" + path + "' holds the model '" + opened->model().source + "', not '" + spec.model + "'");
        return opened;
    }
    // A model opened from a workspace is the bytes that workspace keeps: the file its source names is never read
    // (it may be gone, changed, or name something else entirely).
    Result<store::ModelRecord> record = [&]() -> Result<store::ModelRecord> {
        if (view.workspacePath.isEmpty())
            return search::modelRecord(spec);
        auto origin = store::Workspace::open(view.workspacePath.toStdString());
        if (!origin)
            return Result<store::ModelRecord>::failure(origin.diagnostics());
        return search::modelRecord(spec, &origin->model().bytes);
    }();
    if (!record)
        return Result<store::Workspace>::failure(record.diagnostics());
    // Another process (a CLI search) may create it meanwhile: then the search records into that file.
    return store::Workspace::openOrCreate(path, *record);
}

}  // namespace

// Passes the search's reports to the recorder (on the search thread) and to the runner (queued).
class SearchRunner::Observer : public search::SearchObserver {
public:
    Observer(Job& job, search::SessionRecorder* recorder) : job_(job), recorder_(recorder) {}

    void progress(const search::Progress& p) override {
        if (recorder_)
            recorder_->progress(p);
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
        if (recorder_)
            recorder_->newBest(f);
        job_.post([found = foundPlan(f)](SearchRunner* self) { self->onNewBest(found); });
    }

private:
    Job& job_;
    search::SessionRecorder* recorder_;
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
        std::optional<store::Workspace> workspace;
        std::unique_ptr<search::SessionRecorder> recorder;
        if (!workspacePath.isEmpty()) {
            auto opened = openOrCreate(workspacePath.toStdString(), *problem);
            if (!opened)
                throw std::runtime_error(firstMessage(opened.diagnostics()).toStdString());
            workspace.emplace(std::move(opened).value());
            auto started = search::SessionRecorder::start(*workspace, p, start, options, {});
            if (!started)
                throw std::runtime_error(firstMessage(started.diagnostics()).toStdString());
            recorder = std::move(started).value();
            post([path = workspacePath, session = recorder->session()](SearchRunner* self) {
                self->onRecording(path, session);
            });
            recorder->saveExperts();
        }
        search::Search engine(*p.costModel, start, options);
        Observer observer(*this, recorder.get());
        bool stopped = false;
        {
            std::lock_guard lock(mutex);
            stopped = stopRequested;
            if (!stopped)
                search = &engine;
        }
        if (!stopped) {
            post([](SearchRunner* self) { self->onProgress({}); });  // Starting -> Running
            if (recorder)
                recorder->attach(&engine);
            // Whatever way run() leaves, stop() must no longer reach the engine.
            struct Detach {
                Job& job;
                ~Detach() {
                    std::lock_guard lock(job.mutex);
                    job.search = nullptr;
                }
            } detach{*this};
            const search::Found found = engine.run(&observer);
            if (!found.origin.empty())
                best = foundPlan(found);
        }
        if (recorder) {
            auto flushed = recorder->finish();
            if (!flushed)
                error = firstMessage(flushed.diagnostics());
        }
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
    job_->owner = nullptr;
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
    job->generation = ++generation_;
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
