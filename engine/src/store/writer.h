// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The one thread that writes a workspace file. It owns the write connection: queued changes (plans, tree
// nodes, labels) are written in batches, one transaction each, and synchronous jobs (creating the schema,
// adding a session) run between batches.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/store/workspace.h"
#include "store/sqlite.h"

namespace shardscope::store {

// Changes waiting to be written.
struct ChangeBatch {
    std::vector<PlanRecord> plans;  // in id order
    // By (session, node id): only the newest record of a node is kept.
    std::map<std::pair<std::int64_t, std::int64_t>, TreeNodeRecord> nodes;
    // By plan id: the newest label and note.
    std::map<std::int64_t, std::pair<std::string, std::string>> labels;

    std::size_t size() const { return plans.size() + nodes.size() + labels.size(); }
    bool empty() const { return size() == 0; }
};

class Writer {
public:
    using Job = std::function<Status(sqlite::Connection&)>;

    // Starts the thread that owns `connection`; `path` names the file in errors. Changes for a session are
    // refused until acceptSessions() or addSession() names it. Errors: the thread cannot be started.
    static Result<std::unique_ptr<Writer>> start(sqlite::Connection connection, std::string path);
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;
    // Writes what is queued (one attempt), then closes the connection and ends the thread.
    ~Writer();

    // Runs `job` on the writer thread, inside a transaction when `transaction`, and returns its status.
    Status run(Job job, bool transaction = true);
    // From now on, changes for `sessions` are accepted.
    void acceptSessions(std::set<std::int64_t> sessions);
    // From now on, changes for session `id` are accepted.
    void addSession(std::int64_t id);

    // Gives the plan an id from the block this writer took from the file (taking a new block when it is used
    // up) and queues it. Returns 0 when no block can be taken (the file cannot be written): the plan is
    // queued all the same and gets its id when it is written.
    std::int64_t savePlan(PlanRecord plan);
    void saveNodes(std::int64_t session, std::vector<TreeNodeRecord> nodes);
    void setLabel(std::int64_t plan, const std::string& label, const std::string& note);
    Status flush();
    void setInterval(std::chrono::milliseconds interval);

private:
    using Clock = std::chrono::steady_clock;
    struct PendingJob {
        Job job;
        bool transaction = true;
        bool done = false;
        Status status = Success{};
    };

    Writer(sqlite::Connection connection, std::string path);
    void loop();
    // Writes the queue as one batch (on no room, its plans and labels alone); called with `lock` held,
    // releases it while writing.
    void writeQueued(std::unique_lock<std::mutex>& lock);
    // Writes `batch` in one transaction; labels of plans the file does not hold are left out and reported in
    // `refused`.
    Status write(const ChangeBatch& batch, std::vector<Diagnostic>& refused);
    // An id of this writer's block of plan ids; 0 when no block can be taken.
    std::int64_t takePlanId();
    // On the writer thread: gives the unused rest of the block back to the file when no one took ids since.
    void returnUnusedPlanIds();
    Status inTransaction(const Job& job);
    // Called with mutex_ held.
    void queued(bool wasEmpty);

    sqlite::Connection connection_;  // used on the writer thread only
    const std::string path_;

    std::mutex mutex_;
    std::condition_variable wake_;  // the writer waits on it
    std::condition_variable done_;  // callers wait on it: a write attempt or a job ended
    ChangeBatch queue_;
    std::deque<PendingJob*> jobs_;
    std::set<std::int64_t> sessions_;
    // The block of plan ids this writer took from the file: [nextPlanId_, planIdsEnd_) are still unused.
    std::int64_t nextPlanId_ = 0;
    std::int64_t planIdsEnd_ = 0;
    std::mutex takingIds_;  // held while a block is taken: one block at a time
    std::chrono::milliseconds interval_{1000};
    Clock::time_point oldest_;    // when the oldest queued change was queued (or last failed to be written)
    std::uint64_t enqueued_ = 0;  // changes queued so far
    std::uint64_t durable_ = 0;   // every change up to this count is written
    std::uint64_t attempts_ = 0;  // write attempts started
    std::uint64_t failedAttempt_ = 0;  // the number of the latest attempt that failed
    Diagnostic lastError_;
    std::vector<Diagnostic> refused_;  // changes refused since the last flush()
    bool flushRequested_ = false;
    bool stopping_ = false;

    std::thread thread_;  // last: starts once everything above is ready
};

}  // namespace shardscope::store
