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

}  // namespace shardscope::ui
