// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "store/writer.h"

#include <algorithm>
#include <system_error>

#include "store/schema.h"

namespace shardscope::store {
namespace {

// Plan ids a writer takes from the file at a time: one write for the plans of a typical search, and few ids
// lost when a process is killed holding them.
constexpr std::int64_t kPlanIdBlock = 64;

std::string count(std::size_t n, const std::string& one, const std::string& many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Undoes a failed transaction unless SQLite already has.
void rollback(sqlite::Connection& db) {
    if (!sqlite3_get_autocommit(db.handle()))
        (void)db.exec("ROLLBACK");
}

}  // namespace

Result<std::unique_ptr<Writer>> Writer::start(sqlite::Connection connection, std::string path) {
    try {
        return std::unique_ptr<Writer>(new Writer(std::move(connection), std::move(path)));
    } catch (const std::system_error& e) {
        return makeError("workspace.thread",
                         std::string("cannot start the workspace's writer thread: ") + e.what());
    }
}

Writer::Writer(sqlite::Connection connection, std::string path)
    : connection_(std::move(connection)), path_(std::move(path)), thread_([this] { loop(); }) {}

Writer::~Writer() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
}

// --- callers' side ---

Status Writer::run(Job job, bool transaction) {
    PendingJob pending{std::move(job), transaction};
    std::unique_lock lock(mutex_);
    jobs_.push_back(&pending);
    wake_.notify_one();
    done_.wait(lock, [&] { return pending.done; });
    return pending.status;
}

void Writer::acceptSessions(std::set<std::int64_t> sessions) {
    std::lock_guard lock(mutex_);
    sessions_ = std::move(sessions);
}

void Writer::addSession(std::int64_t id) {
    std::lock_guard lock(mutex_);
    sessions_.insert(id);
}

void Writer::queued(bool wasEmpty) {
    ++enqueued_;
    if (wasEmpty) {
        oldest_ = Clock::now();
        wake_.notify_one();
    }
}

std::int64_t Writer::takePlanId() {
    auto fromBlock = [this]() -> std::int64_t {
        std::lock_guard lock(mutex_);
        return nextPlanId_ < planIdsEnd_ ? nextPlanId_++ : 0;
    };
    if (const std::int64_t id = fromBlock())
        return id;
    std::lock_guard taking(takingIds_);
    if (const std::int64_t id = fromBlock())  // another thread took a block meanwhile
        return id;
    std::int64_t first = 0;
    const Status taken = run([&first](sqlite::Connection& db) -> Status {
        auto ids = schema::takePlanIds(db, kPlanIdBlock);
        if (!ids)
            return Status::failure(ids.diagnostics());
        first = *ids;
        return Success{};
    });
    if (!taken)
        return 0;
    std::lock_guard lock(mutex_);
    nextPlanId_ = first + 1;
    planIdsEnd_ = first + kPlanIdBlock;
    return first;
}

std::int64_t Writer::savePlan(PlanRecord plan) {
    plan.id = takePlanId();
    std::lock_guard lock(mutex_);
    if (!sessions_.contains(plan.session)) {
        const std::string which = plan.id > 0 ? "plan " + std::to_string(plan.id) : std::string("a plan");
        refused_.push_back(makeError(
            "workspace.unknown-session",
            which + " was not saved: this workspace has no session " + std::to_string(plan.session)));
        return plan.id;
    }
    const bool wasEmpty = queue_.empty();
    const std::int64_t id = plan.id;
    queue_.plans.push_back(std::move(plan));
    queued(wasEmpty);
    return id;
}

void Writer::saveNodes(std::int64_t session, std::vector<TreeNodeRecord> nodes) {
    if (nodes.empty())
        return;
    std::lock_guard lock(mutex_);
    if (!sessions_.contains(session)) {
        refused_.push_back(
            makeError("workspace.unknown-session", count(nodes.size(), "tree node was", "tree nodes were") +
                                                       " not saved: this workspace has no session " +
                                                       std::to_string(session)));
        return;
    }
    const bool wasEmpty = queue_.empty();
    for (auto& node : nodes)
        queue_.nodes.insert_or_assign({session, node.id}, std::move(node));
    queued(wasEmpty);
}

namespace {

Diagnostic unknownPlan(std::int64_t plan) {
    return makeError("workspace.unknown-plan", "the label of plan " + std::to_string(plan) +
                                                   " was not saved: this workspace has no plan " +
                                                   std::to_string(plan));
}

}  // namespace

void Writer::setLabel(std::int64_t plan, const std::string& label, const std::string& note) {
    std::lock_guard lock(mutex_);
    // Another process may have saved the plan: whether the file holds it is known when the label is written.
    if (plan < 1) {
        refused_.push_back(unknownPlan(plan));
        return;
    }
    const bool wasEmpty = queue_.empty();
    queue_.labels.insert_or_assign(plan, std::pair{label, note});
    queued(wasEmpty);
}

Status Writer::flush() {
    std::unique_lock lock(mutex_);
    const std::uint64_t target = enqueued_;
    if (durable_ < target) {
        // An attempt already under way may have taken its batch before our changes: wait for a later one.
        const std::uint64_t started = attempts_;
        flushRequested_ = true;
        wake_.notify_one();
        done_.wait(lock, [&] { return durable_ >= target || failedAttempt_ > started; });
    }
    std::vector<Diagnostic> errors = std::move(refused_);
    refused_.clear();
    if (durable_ < target) {
        const std::size_t kept = queue_.size();
        const std::string keptText = count(kept, "unsaved change is", "unsaved changes are") + " kept";
        const std::string message = sqlite::isNoRoom(lastError_.code)
                                        ? "cannot save to '" + path_ +
                                              "': " + sqlite::noRoomReason(lastError_) + "; " + keptText +
                                              " and will be written once there is room"
                                        : "cannot save to '" + path_ + "': " + lastError_.message + "; " +
                                              keptText + " and will be written at the next flush";
        errors.insert(errors.begin(), makeError(lastError_.code, message));
    }
    if (errors.empty())
        return Success{};
    return Status::failure(std::move(errors));
}

void Writer::setInterval(std::chrono::milliseconds interval) {
    std::lock_guard lock(mutex_);
    interval_ = interval;
    wake_.notify_one();
}

// --- the writer thread ---

void Writer::loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
        if (!jobs_.empty()) {  // callers are blocked on jobs: they go first
            PendingJob* pending = jobs_.front();
            jobs_.pop_front();
            lock.unlock();
            Status status = pending->transaction ? inTransaction(pending->job) : pending->job(connection_);
            lock.lock();
            pending->status = std::move(status);
            pending->done = true;
            done_.notify_all();
            continue;
        }
        if (stopping_) {
            if (!queue_.empty())
                writeQueued(lock);
            lock.unlock();
            returnUnusedPlanIds();
            lock.lock();
            break;
        }
        if (!queue_.empty() && (flushRequested_ || Clock::now() >= oldest_ + interval_)) {
            writeQueued(lock);
            continue;
        }
        flushRequested_ = false;  // nothing queued: any waiting flush() is already satisfied
        if (queue_.empty())
            wake_.wait(lock);
        else
            wake_.wait_until(lock, oldest_ + interval_);
    }
    lock.unlock();
    connection_.close();  // closing the last connection checkpoints the WAL into the file
}

void Writer::writeQueued(std::unique_lock<std::mutex>& lock) {
    ChangeBatch batch = std::move(queue_);
    queue_ = {};
    const std::uint64_t upTo = enqueued_;
    const std::uint64_t attempt = ++attempts_;
    flushRequested_ = false;
    lock.unlock();
    std::vector<Diagnostic> refused;
    Status written = write(batch, refused);
    if (!written && sqlite::isNoRoom(written.diagnostics().front().code) && !batch.plans.empty() &&
        !batch.nodes.empty()) {
        // No room for the whole batch: the plans (and their labels) are what a user reopens a workspace for,
        // and few; the tree's nodes are many and can wait. Try the plans alone.
        ChangeBatch plans;
        plans.plans = std::move(batch.plans);
        plans.labels = std::move(batch.labels);
        batch.plans.clear();
        batch.labels.clear();
        std::vector<Diagnostic> refusedAlone;
        if (!write(plans, refusedAlone)) {
            batch.plans = std::move(plans.plans);
            batch.labels = std::move(plans.labels);
        } else {
            refused.insert(refused.end(), refusedAlone.begin(), refusedAlone.end());
        }
    }
    lock.lock();
    refused_.insert(refused_.end(), refused.begin(), refused.end());  // of what was written
    if (written) {
        durable_ = upTo;
    } else {
        // Keep everything, the newer queued record of a node or label winning over the failed batch's.
        batch.plans.insert(batch.plans.end(), std::make_move_iterator(queue_.plans.begin()),
                           std::make_move_iterator(queue_.plans.end()));
        queue_.plans = std::move(batch.plans);
        for (auto& [key, node] : batch.nodes)
            queue_.nodes.try_emplace(key, std::move(node));
        for (auto& [key, label] : batch.labels)
            queue_.labels.try_emplace(key, std::move(label));
        oldest_ = Clock::now();  // retry after an interval, not in a tight loop
        failedAttempt_ = attempt;
        lastError_ = written.diagnostics().front();
    }
    done_.notify_all();
}

Status Writer::inTransaction(const Job& job) {
    auto& db = connection_;
    if (auto begun = db.exec("BEGIN IMMEDIATE"); !begun)
        return begun;
    Status status = job(db);
    if (status)
        status = db.exec("COMMIT");
    if (!status)
        rollback(db);
    return status;
}

Status Writer::write(const ChangeBatch& batch, std::vector<Diagnostic>& refused) {
    std::vector<Diagnostic> labelsRefused;
    Status written = inTransaction([&batch, &labelsRefused](sqlite::Connection& db) -> Status {
        labelsRefused.clear();
        if (!batch.plans.empty()) {
            // Plans queued while no block of ids could be taken get theirs now, in this transaction.
            const auto unnumbered = std::count_if(batch.plans.begin(), batch.plans.end(),
                                                  [](const PlanRecord& p) { return p.id == 0; });
            std::int64_t nextId = 0;
            if (unnumbered > 0) {
                auto ids = schema::takePlanIds(db, unnumbered);
                if (!ids)
                    return Status::failure(ids.diagnostics());
                nextId = *ids;
            }
            auto insert = db.prepare(
                "INSERT INTO plan (id, session, plan, evaluation, step_time, peak_memory, feasible, "
                "found_after_seconds, iteration, origin, label, note) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
            if (!insert)
                return Status::failure(insert.diagnostics());
            for (const auto& p : batch.plans) {
                insert->bind(1, p.id != 0 ? p.id : nextId++).bind(2, p.session).bind(3, p.plan);
                insert->bind(4, p.evaluation);
                insert->bind(5, p.stepTime).bind(6, p.peakMemory).bind(7, std::int64_t{p.feasible});
                insert->bind(8, p.foundAfterSeconds).bind(9, p.iteration).bind(10, p.origin);
                insert->bind(11, p.label).bind(12, p.note);
                if (auto done = insert->run(); !done)
                    return done;
            }
        }
        if (!batch.nodes.empty()) {
            auto upsert = db.prepare(
                "INSERT INTO tree_node (session, id, parent, action, visits, value_sum, best, plan, status) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
                "ON CONFLICT (session, id) DO UPDATE SET parent = excluded.parent, action = excluded.action, "
                "visits = excluded.visits, value_sum = excluded.value_sum, best = excluded.best, "
                "plan = excluded.plan, status = excluded.status");
            if (!upsert)
                return Status::failure(upsert.diagnostics());
            for (const auto& [key, n] : batch.nodes) {
                upsert->bind(1, key.first).bind(2, n.id).bind(3, n.parent).bind(4, n.action);
                upsert->bind(5, n.visits)
                    .bind(6, n.valueSum)
                    .bind(7, n.best)
                    .bind(8, n.plan)
                    .bind(9, n.status);
                if (auto done = upsert->run(); !done)
                    return done;
            }
        }
        if (!batch.labels.empty()) {
            auto update = db.prepare("UPDATE plan SET label = ?2, note = ?3 WHERE id = ?1");
            if (!update)
                return Status::failure(update.diagnostics());
            for (const auto& [plan, text] : batch.labels) {
                update->bind(1, plan).bind(2, text.first).bind(3, text.second);
                if (auto done = update->run(); !done)
                    return done;
                if (sqlite3_changes(db.handle()) == 0)
                    labelsRefused.push_back(unknownPlan(plan));
            }
        }
        return Success{};
    });
    if (written)
        refused.insert(refused.end(), labelsRefused.begin(), labelsRefused.end());
    return written;
}

void Writer::returnUnusedPlanIds() {
    std::int64_t from = 0, end = 0;
    {
        std::lock_guard lock(mutex_);
        from = nextPlanId_;
        end = planIdsEnd_;
    }
    if (from >= end)
        return;
    // Best effort: ids not given back are only a gap in the numbering.
    if (inTransaction([&](sqlite::Connection& db) { return schema::returnPlanIds(db, from, end); })) {
        std::lock_guard lock(mutex_);
        planIdsEnd_ = nextPlanId_;
    }
}

}  // namespace shardscope::store
