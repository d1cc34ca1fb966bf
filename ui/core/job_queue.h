// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Background work of the explorer: a thread that runs jobs one at a time and hands their results back to the
// GUI thread (JobQueue), and the "only the newest request reports" rule its owners follow (LatestJob).
//
// Everything that crosses between threads here goes through a std::mutex or a std::atomic, never through Qt's
// own synchronisation, and the wake-up sent through Qt's event loop carries no data. That keeps the hand-offs
// visible to ThreadSanitizer even against the distribution's uninstrumented Qt, whose QMutex (a futex) and
// event queue it cannot see (`.ci/sanitizers thread`). Code built on these classes keeps to the same rule.
#pragma once

#include <QObject>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace shardscope::ui {

// Calls functions posted from any thread on the thread this object lives in, in the order they were posted.
class Mailbox : public QObject {
    Q_OBJECT

public:
    explicit Mailbox(QObject* parent = nullptr);

    // Thread-safe, from any thread while this mailbox exists: calls `letter` on the mailbox's thread from its
    // event loop, after every letter posted before it. A letter not delivered when the mailbox is destroyed
    // is dropped.
    void post(std::function<void()> letter);

private:
    Q_INVOKABLE void deliver();

    std::mutex mutex_;
    std::vector<std::function<void()>> letters_;
};

// One thread of its own that runs jobs one at a time, in the order they were queued; what a job hands back
// is called on the thread that created the queue. Owners keep it as their last member (or last but the
// LatestJobs that use it), so that it is destroyed first: the running job ends before anything it may use,
// and no result reaches a dying owner.
class JobQueue {
public:
    // `name` names the thread (in debuggers and sanitizer reports; at most 15 characters are kept).
    explicit JobQueue(const std::string& name);
    // Drops the jobs not started and the results not delivered, and waits for the job under way.
    ~JobQueue();
    JobQueue(const JobQueue&) = delete;
    JobQueue& operator=(const JobQueue&) = delete;

    // Queues `job` to run on the queue's thread. A job should not throw: one that does is said with
    // qWarning() and the queue goes on.
    void run(std::function<void()> job);

    // Queues `work` to run on the queue's thread, then calls `done(result)` with what it returned on the
    // creating thread (unless the queue is destroyed first). `work` should not throw: if it does, `done` is
    // not called.
    template <typename Work, typename Done>
    void run(Work work, Done done) {
        using Result = std::invoke_result_t<Work&>;
        run([this, work = std::move(work), done = std::move(done)]() mutable {
            auto result = std::make_shared<Result>(work());
            post([done = std::move(done), result]() mutable { done(std::move(*result)); });
        });
    }

    // Thread-safe (from a job, usually): calls `f` on the creating thread, after what was posted before it.
    void post(std::function<void()> f) { mailbox_.post(std::move(f)); }

private:
    void loop();

    Mailbox mailbox_;
    std::mutex mutex_;
    std::condition_variable wake_;  // a job was queued, or the queue stops
    std::deque<std::function<void()>> jobs_;
    bool stopping_ = false;
    std::thread thread_;
};

// "Only the newest request reports", for an owner (a model, a loader) that runs work off the GUI thread and
// wants only the answer to its latest request: the generation counter every such owner would otherwise keep.
//
// Each run() (or next()) is a request with a new generation and supersedes every earlier one: a superseded
// job not started yet is dropped (a newer run() takes its place in the queue), one under way can see it
// through its Token and stop early, and whatever a superseded request sends back is dropped on arrival.
// cancel() supersedes every request without making a new one; destroying the LatestJob cancels.
//
//     class Loader : public QObject {
//         ...
//         JobQueue jobs_{"loader"};
//         LatestJob loads_{jobs_};  // after the queue: destroyed first, it stops the running load early
//     };
//
//     void Loader::load(Request request) {
//         loads_.run(
//             [request](const LatestJob::Token& token) {  // on the queue's thread
//                 Step1 a = step1(request);
//                 if (token.superseded())                  // a newer load() was made: stop early
//                     return Outcome{};
//                 return step2(a);
//             },
//             [this](Outcome outcome) {  // on this thread, only if no newer load() or cancel() came since
//                 emit loaded(outcome, loads_.generation());
//             });
//     }
//
// Other ways to use it:
// - Stages: a job may hand back partial results with token.post(f) (in order, each dropped once superseded),
//   e.g. a table that fills in batches (PlanTableModel); done() still comes last.
// - Several jobs of one request (e.g. every read of the session shown, SearchTreeModel): `Token t =
//   latest.next();` once, then queue.run([t, ...] { if (t.superseded()) return; ... t.post(...); }) for each.
// - A thread of the owner's own (a search): `LatestJob latest_;` (no queue), `Token t = latest_.next();`,
//   hand `t` to the thread, which reports with t.post(...). That is safe from any thread at any time, even
//   after the owner is gone (the letter is then dropped), so the thread needs no pointer to the owner and no
//   mutex of its own for posting.
// - Owners of several independent streams keep one LatestJob each (one per tag: GraphLayoutService) on a
//   shared queue.
//
// Converting an owner that keeps its own counter: `generation_`/`newest_` (and an atomic shared with the
// jobs) become one LatestJob; `gen = ++generation_; *newest_ = gen; jobs_.run(work, done)` with `if (gen !=
// generation_) return;` in done becomes `latest_.run(work, done)`; `newest->load() != gen` in the job becomes
// `token.superseded()`; a cancel() that bumps the counter becomes latest_.cancel(); a destructor that bumps
// it goes (declare the LatestJob after the queue); a posting helper that checks an owner pointer and the
// generation under a mutex becomes token.post().
//
// Call run(), next(), cancel() and generation() on the thread that created the LatestJob (where done() and
// posted letters run); a Token may be copied and used on any thread. Letters of one LatestJob arrive in the
// order posted; those of different LatestJobs (or JobQueue::post) are not ordered with each other. A job must
// not use the owner, which may be destroyed while the job runs: it keeps to its Token and what it captured by
// value (the letters it posts may use the owner: they run only while it lives).
class LatestJob {
    struct State;

public:
    // A request's view of itself, for the job that serves it. Cheap to copy; thread-safe.
    class Token {
    public:
        Token() = default;  // belongs to no request: always superseded, posts nothing

        // The generation of the request (0 for a default token).
        std::uint64_t generation() const { return generation_; }
        // Whether a newer request, a cancel() or the LatestJob's destruction has superseded the request: one
        // atomic load, meant to be polled by long jobs between stages.
        bool superseded() const;
        // Calls `letter` on the LatestJob's thread, after what was posted before it, unless the request is
        // superseded by the time it would run (or the LatestJob is gone).
        void post(std::function<void()> letter) const;

    private:
        friend class LatestJob;
        Token(std::shared_ptr<State> state, std::uint64_t generation)
            : state_(std::move(state)), generation_(generation) {}

        std::shared_ptr<State> state_;
        std::uint64_t generation_ = 0;
    };

    // Requests run on `queue` (which must outlive the LatestJob: declare it first).
    explicit LatestJob(JobQueue& queue);
    // Without a queue: only next(), cancel() and tokens, for work on a thread of the owner's own.
    LatestJob();
    // Cancels: the running job's token says superseded (a job that polls stops), nothing more is delivered.
    ~LatestJob();
    LatestJob(const LatestJob&) = delete;
    LatestJob& operator=(const LatestJob&) = delete;

    // A new request: queues `work` on the queue, then calls `done(result)` with what it returned on this
    // thread, unless another request or cancel() came meanwhile. `work` is called with the request's Token
    // (`const Token&`) or with no argument; a `work` that returns nothing gets `done()`. A superseded request
    // is not started. Inside done(), generation() is the request's. `work` should not throw: if it does, done
    // is not called (JobQueue says so with qWarning()). Returns the request's generation.
    template <typename Work, typename Done>
    std::uint64_t run(Work work, Done done) {
        supersede(true, true);
        Token token(state_, generation_);
        enqueue([token, work = std::move(work), done = std::move(done)]() mutable {
            if (token.superseded())
                return;
            using Result = std::remove_cvref_t<decltype(call(work, token))>;
            if constexpr (std::is_void_v<Result>) {
                call(work, token);
                token.post([done = std::move(done)]() mutable { done(); });
            } else {
                auto result = std::make_shared<Result>(call(work, token));
                token.post([done = std::move(done), result]() mutable { done(std::move(*result)); });
            }
        });
        return token.generation();
    }

    // A new request whose work the caller runs itself (on its own thread, or as several jobs): supersedes
    // every earlier request, drops a queued one, and returns the new one's token.
    Token next();
    // Supersedes every request without making a new one: nothing reports until the next request.
    void cancel();
    // The newest request's generation: 1, 2, ... in the order they were made; 0 before the first. cancel()
    // does not change it.
    std::uint64_t generation() const { return generation_; }

private:
    template <typename Work>
    static decltype(auto) call(Work& work, const Token& token) {
        if constexpr (std::is_invocable_v<Work&, const Token&>)
            return work(token);
        else
            return work();
    }
    // Supersedes every request, making a new one when `newRequest`, and drops the queued job. `keepPlace`: a
    // run() to come takes the dropped job's place in the queue (else it queues at the end).
    void supersede(bool newRequest, bool keepPlace);
    // Makes `job` the queued job of this LatestJob, in the place of a dropped one when it kept it.
    void enqueue(std::function<void()> job);

    JobQueue* queue_ = nullptr;
    std::uint64_t generation_ = 0;  // this thread only
    std::shared_ptr<State> state_;  // shared with tokens and queued jobs
    Mailbox mailbox_;               // where tokens post to; destroyed with the LatestJob, dropping the rest
};

}  // namespace shardscope::ui
