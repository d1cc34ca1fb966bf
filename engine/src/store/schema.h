// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The workspace's tables, its identity stamp and its versions.
#pragma once

#include <cstdint>

#include "shardscope/diagnostic.h"
#include "store/sqlite.h"

namespace shardscope::store::schema {

// PRAGMA application_id of every workspace: "SHSC" in ASCII.
inline constexpr std::int32_t kApplicationId = 0x53485343;
// PRAGMA user_version of the schema this code writes; it reads files from version 1 up to this.
inline constexpr int kVersion = 2;

// Creates the current version's tables and stamps the file (application_id, user_version). Assumes an empty
// database and runs inside the caller's transaction.
Status create(sqlite::Connection& db);

// Brings a file of an older version to kVersion and stamps it, inside the caller's (write) transaction. Reads
// the version there, so that a file another process migrated meanwhile is left as it is.
Status migrate(sqlite::Connection& db);

// Takes `count` plan ids no writer of the file has taken, inside the caller's write transaction (BEGIN
// IMMEDIATE: two processes never take the same ids), and returns the first; the others follow it.
Result<std::int64_t> takePlanIds(sqlite::Connection& db, std::int64_t count);
// Gives back the ids [from, end) of the block taken last, inside the caller's write transaction: only when no
// writer has taken ids since (the counter still stands at `end`), so the next plan saved continues from
// `from`.
Status returnPlanIds(sqlite::Connection& db, std::int64_t from, std::int64_t end);

}  // namespace shardscope::store::schema
