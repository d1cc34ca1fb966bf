// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/job_queue.h"

#include <QMetaObject>
#include <QPointer>

#include <pthread.h>

namespace shardscope::ui {

Mailbox::Mailbox(QObject* parent) : QObject(parent) {}

void Mailbox::post(std::function<void()> letter) {
    bool wake = false;
    {
        std::lock_guard lock(mutex_);
        wake = letters_.empty();
        letters_.push_back(std::move(letter));
    }
    // One wake-up per batch: deliver() takes every letter posted until it runs. Invoked by name, so that the
    // event Qt queues is built inside Qt and holds nothing of ours.
    if (wake)
        QMetaObject::invokeMethod(this, "deliver", Qt::QueuedConnection);
}

void Mailbox::deliver() {
    std::vector<std::function<void()>> letters;
    {
        std::lock_guard lock(mutex_);
        letters.swap(letters_);
    }
    // A letter may destroy the mailbox's owner, and with it the mailbox: the rest are dropped then.
    const QPointer<Mailbox> alive(this);
    for (auto& letter : letters) {
        if (!alive)
            return;
        letter();
    }
}

JobQueue::JobQueue(const std::string& name) {
    thread_ = std::thread([this] { loop(); });
    pthread_setname_np(thread_.native_handle(), name.substr(0, 15).c_str());
}

JobQueue::~JobQueue() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        jobs_.clear();
    }
    wake_.notify_all();
    thread_.join();
}

void JobQueue::run(std::function<void()> job) {
    {
        std::lock_guard lock(mutex_);
        jobs_.push_back(std::move(job));
    }
    wake_.notify_one();
}

void JobQueue::loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
        if (stopping_)
            break;
        std::function<void()> job = std::move(jobs_.front());
        jobs_.pop_front();
        lock.unlock();
        // The engine's boundary on this thread: a job that throws after all (out of memory) must not end the
        // program; its result is lost and the queue goes on.
        try {
            job();
        } catch (const std::exception& e) {
            qWarning("a background job failed: %s", e.what());
        } catch (...) {
            qWarning("a background job failed");
        }
        job = nullptr;  // what the job holds is released outside the lock
        lock.lock();
    }
}

// What a LatestJob shares with its tokens and queued jobs, which may outlive it.
struct LatestJob::State {
    std::atomic<std::uint64_t> live{0};  // the generation that may still report; 0: none

    std::mutex mutex;                 // guards the members below
    Mailbox* mailbox = nullptr;       // the LatestJob's, until it is destroyed
    std::function<void()> queuedJob;  // the newest request's job, not started yet
    // The runner in the JobQueue that will start queuedJob (0: none). A newer run() takes its place in the
    // queue; after cancel() or next() a run() queues a runner of its own at the end, as if none was queued.
    std::uint64_t runner = 0;
    std::uint64_t runners = 0;  // runners queued so far, to number them
};

bool LatestJob::Token::superseded() const {
    return !state_ || state_->live.load() != generation_;
}

void LatestJob::Token::post(std::function<void()> letter) const {
    if (!state_)
        return;
    // Under the mutex, so that the LatestJob's destructor (which clears `mailbox` under it) waits for the
    // post.
    std::lock_guard lock(state_->mutex);
    if (!state_->mailbox || state_->live.load() != generation_)
        return;
    state_->mailbox->post([state = state_, generation = generation_, letter = std::move(letter)] {
        if (state->live.load() == generation)
            letter();
    });
}

LatestJob::LatestJob(JobQueue& queue) : LatestJob() {
    queue_ = &queue;
}

LatestJob::LatestJob() : state_(std::make_shared<State>()) {
    state_->mailbox = &mailbox_;
}

LatestJob::~LatestJob() {
    cancel();
    std::lock_guard lock(state_->mutex);
    state_->mailbox = nullptr;  // posts from now on are dropped; mailbox_ drops the undelivered ones
}

LatestJob::Token LatestJob::next() {
    supersede(true, false);
    return Token(state_, generation_);
}

void LatestJob::cancel() {
    supersede(false, false);
}

void LatestJob::supersede(bool newRequest, bool keepPlace) {
    std::function<void()> dropped;  // declared first: released after the lock
    std::lock_guard lock(state_->mutex);
    state_->live = newRequest ? ++generation_ : 0;
    dropped = std::exchange(state_->queuedJob, nullptr);
    if (!keepPlace)
        state_->runner = 0;
}

void LatestJob::enqueue(std::function<void()> job) {
    Q_ASSERT_X(queue_, "LatestJob::run", "a LatestJob made without a JobQueue cannot run work");
    std::uint64_t runner = 0;
    {
        std::lock_guard lock(state_->mutex);
        state_->queuedJob = std::move(job);
        if (state_->runner != 0)
            return;  // the runner already queued starts the newest job
        runner = state_->runner = ++state_->runners;
    }
    queue_->run([state = state_, runner] {
        std::function<void()> newest;
        {
            std::lock_guard lock(state->mutex);
            if (state->runner != runner)
                return;  // its place was given up (cancel(), next()); a newer runner starts the job
            newest = std::exchange(state->queuedJob, nullptr);
            state->runner = 0;
        }
        if (newest)
            newest();
    });
}

}  // namespace shardscope::ui
