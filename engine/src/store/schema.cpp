// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "store/schema.h"

#include <algorithm>
#include <array>
#include <string>

namespace shardscope::store::schema {
namespace {

// Version 2. Every table keeps what the caller gave as is: settings, plans, evaluations and actions are JSON
// that only the caller reads.
constexpr const char* kTables = R"sql(
CREATE TABLE model (
    id           INTEGER PRIMARY KEY CHECK (id = 1),  -- one row: the workspace's model
    source       TEXT NOT NULL,     -- what the user opened: "zoo:gpt2-small" or the file's path
    load_options TEXT NOT NULL,     -- the caller's JSON: import and training-step options
    size         INTEGER NOT NULL,  -- the file's bytes before compression (0 for zoo models)
    sha256       TEXT NOT NULL,     -- hex SHA-256 of those bytes
    compression  TEXT NOT NULL      -- 'zlib': every chunk is one zlib stream
);
CREATE TABLE model_chunk (          -- the model's bytes, in pieces of at most 16 MiB before compression
    seq  INTEGER PRIMARY KEY,       -- 0, 1, ...: the pieces in order
    size INTEGER NOT NULL,          -- the piece's bytes before compression
    data BLOB NOT NULL
);
CREATE TABLE session (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL,
    settings        TEXT NOT NULL,  -- the caller's JSON: mesh, hardware, cost options, search settings, pins
    created_unix_ms INTEGER NOT NULL
);
CREATE TABLE plan (
    id                  INTEGER PRIMARY KEY,  -- given by the store when the plan is saved, in saving order
    session             INTEGER NOT NULL REFERENCES session (id),
    plan                TEXT NOT NULL,        -- the caller's plan JSON
    evaluation          TEXT NOT NULL,        -- the caller's evaluation JSON
    step_time           REAL NOT NULL,
    peak_memory         REAL NOT NULL,
    feasible            INTEGER NOT NULL,
    found_after_seconds REAL NOT NULL,
    iteration           INTEGER NOT NULL,
    origin              TEXT NOT NULL,        -- "search", "expert:dp", "user", "reference"
    label               TEXT NOT NULL,        -- the user's
    note                TEXT NOT NULL
);
CREATE INDEX plan_by_session ON plan (session, id);
CREATE TABLE tree_node (            -- a session's search tree, upserted as the search revisits nodes
    session   INTEGER NOT NULL REFERENCES session (id),
    id        INTEGER NOT NULL,     -- the caller's node id within the session; 0 = root
    parent    INTEGER NOT NULL,     -- -1 for the root
    action    TEXT NOT NULL,        -- the decision on the edge from the parent, in the caller's words
    visits    INTEGER NOT NULL,
    value_sum REAL NOT NULL,
    best      REAL NOT NULL,
    plan      INTEGER NOT NULL,     -- plan.id of the best plan under the node; 0 = none
    status    TEXT NOT NULL,        -- "" or why the branch was abandoned
    PRIMARY KEY (session, id)
) WITHOUT ROWID;
CREATE INDEX tree_node_by_parent ON tree_node (session, parent, id);
CREATE TABLE plan_ids (             -- plan ids handed out: each writer of the file takes a block before saving
    id   INTEGER PRIMARY KEY CHECK (id = 1),  -- one row
    next INTEGER NOT NULL           -- the first plan id no writer has taken
);
INSERT INTO plan_ids (id, next) VALUES (1, 1);
)sql";

// kMigrations[i] brings a version i + 1 file to version i + 2. When the schema changes, bump kVersion, add
// the step here and keep kTables the newest version; never edit a step that has shipped.
constexpr std::array<const char*, kVersion - 1> kMigrations = {
    // 1 -> 2: plan ids come from the file (plan_ids), so that several processes can write one workspace.
    R"sql(
CREATE TABLE plan_ids (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    next INTEGER NOT NULL
);
INSERT INTO plan_ids (id, next) SELECT 1, coalesce(max(id), 0) + 1 FROM plan;
)sql",
};

Status stamp(sqlite::Connection& db) {
    const std::string sql = "PRAGMA application_id = " + std::to_string(kApplicationId) +
                            "; PRAGMA user_version = " + std::to_string(kVersion) + ";";
    return db.exec(sql.c_str());
}

}  // namespace

Status create(sqlite::Connection& db) {
    if (auto made = db.exec(kTables); !made)
        return made;
    return stamp(db);
}

Status migrate(sqlite::Connection& db) {
    // Read inside the transaction: another process may have migrated the file since it was checked.
    auto current = db.integer("PRAGMA user_version");
    if (!current)
        return Status::failure(current.diagnostics());
    if (*current >= kVersion)
        return Success{};
    const int fromVersion = static_cast<int>(std::max<std::int64_t>(1, *current));
    for (int version = fromVersion; version < kVersion; ++version)
        if (auto step = db.exec(kMigrations[static_cast<std::size_t>(version - 1)]); !step)
            return step;
    return stamp(db);
}

Result<std::int64_t> takePlanIds(sqlite::Connection& db, std::int64_t count) {
    // A file whose counter row is missing or behind its plans (edited by hand) still hands out fresh ids.
    auto first = db.integer(
        "SELECT max((SELECT coalesce(max(next), 1) FROM plan_ids), (SELECT coalesce(max(id), 0) + 1 FROM "
        "plan))");
    if (!first)
        return first;
    auto take = db.prepare(
        "INSERT INTO plan_ids (id, next) VALUES (1, ?1) ON CONFLICT (id) DO UPDATE SET next = excluded.next");
    if (!take)
        return Result<std::int64_t>::failure(take.diagnostics());
    take->bind(1, *first + count);
    if (auto done = take->run(); !done)
        return Result<std::int64_t>::failure(done.diagnostics());
    return *first;
}

Status returnPlanIds(sqlite::Connection& db, std::int64_t from, std::int64_t end) {
    auto give = db.prepare("UPDATE plan_ids SET next = ?1 WHERE id = 1 AND next = ?2");
    if (!give)
        return Status::failure(give.diagnostics());
    give->bind(1, from).bind(2, end);
    return give->run();
}

}  // namespace shardscope::store::schema
