// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The workspace file (docs/design.md, "Workspace"): one `*.shardscope` file holds everything needed to reopen
// work on another machine: the model (its bytes, compressed, with their SHA-256), any number of sessions,
// each session's search tree and plans, and the user's labels and notes.
//
// The store keeps the caller's JSON (session settings, plans, evaluations, tree actions) as opaque text, so
// it depends on nothing else in the engine.
//
// Plans, tree nodes and labels are written in batches: the calls queue them and return at once; one writer
// thread writes everything queued in one transaction when the oldest queued change is flushInterval old, or
// when flush() asks. A process killed at any moment loses at most what was queued in the last flush interval,
// and the file stays intact (SQLite WAL journal, synced commits). When the disk has no room for a batch, its
// plans and labels are written alone (they are few, and what a reopened workspace is for) and the tree's
// nodes wait for room. Reads come from the file, so they see a change once it has been written: call flush()
// first to read your own writes.
//
// Several processes may write one file at once (SQLite's locks order their writes; a write waits up to a few
// seconds for another's): each adds its own sessions, and ids come from the file, so each keeps everything it
// saves. Reads are safe from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shardscope/diagnostic.h"

namespace shardscope::store {

struct ModelRecord {
    std::string source;       // what the user opened: "zoo:gpt2-small" or the original file's path
    std::string bytes;        // the file's bytes; empty for zoo models, whose name rebuilds them
    std::string sha256;       // lowercase hex SHA-256 of `bytes`; Workspace::create() fills it in
    std::string loadOptions;  // the caller's JSON: import options, training-step options
    friend bool operator==(const ModelRecord&, const ModelRecord&) = default;
};

struct SessionRecord {
    std::int64_t id = 0;  // given by the workspace: 1, 2, ...
    std::string name;
    std::string settings;  // the caller's JSON: mesh, hardware, cost options, search settings, pins
    std::int64_t createdUnixMs = 0;
    friend bool operator==(const SessionRecord&, const SessionRecord&) = default;
};

struct PlanRecord {
    std::int64_t id = 0;  // given by savePlan(): unique in the file, increasing in each writer's saving order
    std::int64_t session = 0;
    std::string plan;        // the caller's plan JSON
    std::string evaluation;  // the caller's evaluation JSON
    double stepTime = 0;
    double peakMemory = 0;
    bool feasible = false;
    double foundAfterSeconds = 0;
    std::int64_t iteration = 0;
    std::string origin;  // "search", "expert:dp", "user", "reference"
    std::string label;   // the user's
    std::string note;    // the user's
    friend bool operator==(const PlanRecord&, const PlanRecord&) = default;
};

// One node of a session's search tree, as the search last reported it.
struct TreeNodeRecord {
    std::int64_t id = 0;  // the caller's node id within the session; 0 = the root
    std::int64_t parent = -1;
    std::string action;  // the decision on the edge from the parent, in the caller's words or JSON
    std::int64_t visits = 0;
    double valueSum = 0;
    double best = 0;
    std::int64_t plan = 0;  // the PlanRecord id of the best plan under the node; 0 = none
    // "" or why the branch was abandoned ("infeasible", "duplicate of node 17", "pruned").
    std::string status;
    friend bool operator==(const TreeNodeRecord&, const TreeNodeRecord&) = default;
};

// What plans() reads: everything, or all but the plan and evaluation JSON (for lists of many plans).
enum class PlanContent { Full, Summary };

// An open workspace file. Movable, not copyable; every member but the move operations is safe to call from
// several threads at once. Assumes the object has not been moved from.
class Workspace {
public:
    // Creates `path` (which must not exist) holding `model`, with no sessions. model().sha256 is computed
    // here. The file is written under another name beside it ("<path>.creating-XXXXXX") and then takes its
    // name in one step, never replacing a file: `path` never names a half-written workspace, and of two
    // processes creating it at once the second fails with "already exists" (code workspace.exists) and leaves
    // the first's file alone. Errors: the file exists; it cannot be created or written (with the system's or
    // SQLite's reason).
    static Result<Workspace> create(const std::string& path, const ModelRecord& model);

    // Opens `path` when it exists, else creates it holding `model`; when another process creates it first,
    // opens that file. Errors: those of open() and create(); the file holds another model ("'x.shardscope'
    // holds the model 'A', not 'B'") or other bytes of it (code workspace.other-model).
    static Result<Workspace> openOrCreate(const std::string& path, const ModelRecord& model);

    // Opens an existing workspace, migrating an older one to this version in place. Checks the whole file
    // (PRAGMA quick_check) and the model's SHA-256. Errors name the file: it does not exist; it is not a
    // workspace ("'x.shardscope' is not a Shardscope workspace": not SQLite, or SQLite without Shardscope's
    // application_id); it is what an interrupted creation leaves, an empty file, an SQLite file without
    // tables or create()'s "<path>.creating-XXXXXX" (code workspace.unfinished: "... it holds no work and is
    // safe to delete"); it was written by a newer Shardscope (its version and the newest this one reads); it
    // is damaged (truncated, corrupted, the model's bytes do not match their hash; a note carries SQLite's
    // report).
    static Result<Workspace> open(const std::string& path);

    Workspace(Workspace&&) noexcept;
    Workspace& operator=(Workspace&&) noexcept;
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;
    // Writes what is still queued (one attempt) and closes the file. Call flush() first to learn whether that
    // succeeded: a write that fails here cannot be reported.
    ~Workspace();

    const std::string& path() const;
    // The model as created: bytes decompressed, sha256 verified.
    const ModelRecord& model() const;

    // Adds a session and returns its id; written before returning. An empty `name` becomes "session ID".
    // Errors: the file cannot be written.
    Result<std::int64_t> addSession(const std::string& name, const std::string& settings);
    // In id order.
    std::vector<SessionRecord> sessions() const;

    // Queues `plan` (its id is ignored) and returns the id it is saved under. Ids are taken from the file in
    // blocks (a write, now and then); when no block can be taken (the disk is full), returns 0 and the plan
    // is queued all the same and gets its id when it is written. A plan for a session this workspace does not
    // have is not saved: the next flush() reports it.
    std::int64_t savePlan(PlanRecord plan);
    // Queues `nodes` for an upsert by (session, id): a node saved again replaces the earlier record, and only
    // the newest record of a node still queued is written. Nodes for an unknown session are reported by
    // flush().
    void saveNodes(std::int64_t session, std::vector<TreeNodeRecord> nodes);
    // Queues a new label and note for plan `plan` (saved by any process, or still queued). A plan the file
    // does not hold when the label is written is reported by flush().
    void setLabel(std::int64_t plan, const std::string& label, const std::string& note);

    // Waits until everything queued before the call is written. Errors: the write failed ("cannot save to
    // 'x.shardscope': the disk is full; N unsaved changes are kept and will be written once there is room")
    // and the changes stay queued for the next flush; changes refused since the last flush() (unknown
    // session or plan).
    Status flush();
    // How old the oldest queued change may get before the writer writes it (1 s unless set).
    void setFlushInterval(std::chrono::milliseconds interval);

    // Reads: what the file holds now. A read that fails (the file vanished) gives nothing.
    // The session's plans in id order.
    std::vector<PlanRecord> plans(std::int64_t session, PlanContent content = PlanContent::Full) const;
    std::optional<PlanRecord> plan(std::int64_t id) const;
    // The nodes whose parent is `parent`, in id order: for browsing a large tree a level at a time.
    std::vector<TreeNodeRecord> children(std::int64_t session, std::int64_t parent) const;
    std::optional<TreeNodeRecord> node(std::int64_t session, std::int64_t id) const;
    std::int64_t nodeCount(std::int64_t session) const;

private:
    struct Impl;
    explicit Workspace(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace shardscope::store
