// The workspace's tables, its identity stamp and its versions.
#pragma once

#include <cstdint>

#include "shardscope/diagnostic.h"
#include "store/sqlite.h"

namespace shardscope::store::schema {

// PRAGMA application_id of every workspace: "SHSC" in ASCII.
inline constexpr std::int32_t kApplicationId = 0x53485343;
// PRAGMA user_version of the schema this code writes; it reads files from version 1 up to this.
inline constexpr int kVersion = 1;

// Creates the current version's tables and stamps the file (application_id, user_version). Assumes an empty
// database and runs inside the caller's transaction.
Status create(sqlite::Connection& db);

// Brings a file written at `fromVersion` (1 <= fromVersion < kVersion) to kVersion and stamps it, inside the
// caller's transaction.
Status migrate(sqlite::Connection& db, int fromVersion);

}  // namespace shardscope::store::schema
