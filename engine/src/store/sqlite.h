// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A thin RAII layer over SQLite for the workspace: connections and statements that close themselves, and
// failures turned into diagnostics. No SQLite type leaves src/store.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "shardscope/diagnostic.h"

namespace shardscope::store::sqlite {

// Diagnostic codes for SQLite failures; the message is SQLite's own text ("database or disk is full").
inline constexpr const char* kDiskFull = "workspace.disk-full";          // SQLITE_FULL
inline constexpr const char* kNotADatabase = "workspace.not-workspace";  // SQLITE_NOTADB
inline constexpr const char* kDamaged = "workspace.damaged";             // SQLITE_CORRUPT
inline constexpr const char* kFailed = "workspace.sqlite";               // anything else
// A write refused because this process may not make the file larger (EFBIG: `ulimit -f`, RLIMIT_FSIZE).
inline constexpr const char* kFileTooLarge = "workspace.file-size-limit";

// Whether a failure with `code` means there is no room to write (a full disk or quota, a file-size limit):
// the same write may succeed once room is made.
inline bool isNoRoom(std::string_view code) {
    return code == kDiskFull || code == kFileTooLarge;
}
// What a no-room failure says after "cannot save to 'x': ": "the disk is full", "the file size limit ... is
// reached".
std::string noRoomReason(const Diagnostic& failure);

class Statement {
public:
    Statement() = default;
    Statement(sqlite3* db, sqlite3_stmt* statement) : db_(db), statement_(statement) {}
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&& other) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement();

    // Parameters are 1-based. Text and blobs are copied.
    Statement& bind(int index, std::int64_t value);
    Statement& bind(int index, double value);
    Statement& bind(int index, std::string_view text);
    Statement& bindBlob(int index, std::string_view bytes);

    // Steps once: true when a row is ready to read, false when the statement is done.
    Result<bool> next();
    // Steps to the end and resets, for statements that return no rows.
    Status run();
    // Makes the statement ready to run again (bindings stay).
    void reset();

    // Columns are 0-based; valid after next() gave true.
    std::int64_t integer(int column) const;
    double real(int column) const;
    std::string text(int column) const;
    std::string blob(int column) const;

private:
    sqlite3* db_ = nullptr;
    sqlite3_stmt* statement_ = nullptr;
};

class Connection {
public:
    // Opens `path` with sqlite3_open_v2 `flags` (SQLITE_OPEN_NOMUTEX is added: one thread uses a connection
    // at a time) and a busy timeout, so that another connection's lock is waited for rather than failed on.
    static Result<Connection> open(const std::string& path, int flags);

    Connection(Connection&& other) noexcept;
    Connection& operator=(Connection&& other) noexcept;
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection();

    sqlite3* handle() const { return db_; }
    // Closes the connection now rather than on destruction.
    void close();
    Result<Statement> prepare(std::string_view sql);
    // Runs one or more statements that return no rows.
    Status exec(const char* sql);
    // The first column of the first row of `sql` ("PRAGMA user_version").
    Result<std::int64_t> integer(const char* sql);
    Result<std::string> text(const char* sql);

    // The connection's last failure, with the code above.
    Diagnostic failure(int rc) const;

private:
    explicit Connection(sqlite3* db) : db_(db) {}

    sqlite3* db_ = nullptr;
};

}  // namespace shardscope::store::sqlite
