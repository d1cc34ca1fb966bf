// Background work of the explorer: a thread that runs jobs one at a time and hands their results back to the
// GUI thread.
//
// Everything that crosses between threads here goes through a std::mutex, never through Qt's own
// synchronisation, and the wake-up sent through Qt's event loop carries no data. That keeps the hand-offs
// visible to ThreadSanitizer even against the distribution's uninstrumented Qt, whose QMutex (a futex) and
// event queue it cannot see (`.ci/sanitizers thread`).
#pragma once

#include <QObject>

#include <condition_variable>
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
    // event loop, after every letter posted before it. A letter not delivered when the mailbox is destroyed is
    // dropped.
    void post(std::function<void()> letter);

private:
    Q_INVOKABLE void deliver();

    std::mutex mutex_;
    std::vector<std::function<void()>> letters_;
};

// One thread of its own that runs jobs one at a time, in the order they were queued; what a job hands back
// is called on the thread that created the queue. Owners keep it as their last member, so that it is
// destroyed first: the running job ends before anything it may use, and no result reaches a dying owner.
class JobQueue {
public:
    // `name` names the thread (in debuggers and sanitizer reports; at most 15 characters are kept).
    explicit JobQueue(const std::string& name);
    // Drops the jobs not started and the results not delivered, and waits for the job under way.
    ~JobQueue();
    JobQueue(const JobQueue&) = delete;
    JobQueue& operator=(const JobQueue&) = delete;

    // Queues `job` to run on the queue's thread. A job should not throw: one that does is said with qWarning()
    // and the queue goes on.
    void run(std::function<void()> job);

    // Queues `work` to run on the queue's thread, then calls `done(result)` with what it returned on the
    // creating thread (unless the queue is destroyed first). `work` should not throw: if it does, `done` is not
    // called.
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

}  // namespace shardscope::ui
