// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "store/sqlite.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <utility>

namespace shardscope::store::sqlite {
namespace {

// Whether the files of `db` have reached this process's file-size limit (RLIMIT_FSIZE), or its disk is all
// but full. SQLite reports a write that fails (rather than falls short) as SQLITE_IOERR, and the errno saying
// why does not reliably survive its clean-up, so the file system is asked instead.
const char* noRoomCause(sqlite3* db) {
    const char* file = sqlite3_db_filename(db, "main");
    if (!file || !*file)
        return nullptr;
    struct rlimit limit {};
    if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
        for (const char* suffix : {"", "-wal", "-journal"}) {
            struct stat status {};
            const std::string path = std::string(file) + suffix;
            if (::stat(path.c_str(), &status) == 0 &&
                static_cast<rlim_t>(status.st_size) + 65536 >= limit.rlim_cur)
                return kFileTooLarge;
        }
    }
    struct statvfs disk {};
    if (::statvfs(file, &disk) == 0 &&
        static_cast<double>(disk.f_bavail) * static_cast<double>(disk.f_frsize) < 1 << 20)
        return kDiskFull;
    return nullptr;
}

Diagnostic failureOf(sqlite3* db, int rc) {
    const int primary = rc & 0xff;
    // An I/O error's cause is the system's: a full disk or quota (SQLite reports a short write as
    // SQLITE_FULL, a failed one as SQLITE_IOERR), or a file-size limit.
    const int system = db && primary == SQLITE_IOERR ? sqlite3_system_errno(db) : 0;
    if (system == ENOSPC || system == EDQUOT)
        return makeError(kDiskFull, system == ENOSPC ? "database or disk is full" : "disk quota exceeded");
    if (system == EFBIG)
        return makeError(kFileTooLarge, "file too large");
    if (db && primary == SQLITE_IOERR) {
        if (const char* cause = noRoomCause(db))
            return makeError(cause, cause == kFileTooLarge ? "file too large" : "database or disk is full");
    }
    const char* code = primary == SQLITE_FULL      ? kDiskFull
                       : primary == SQLITE_NOTADB  ? kNotADatabase
                       : primary == SQLITE_CORRUPT ? kDamaged
                                                   : kFailed;
    // errmsg describes the connection's latest failure; errstr is the generic text when there is none.
    const char* message = db && sqlite3_errcode(db) == rc ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    return makeError(code, message);
}

}  // namespace

std::string noRoomReason(const Diagnostic& failure) {
    if (failure.code == kFileTooLarge)
        return "the file size limit of this process is reached (ulimit -f)";
    if (failure.message == "disk quota exceeded")
        return "the disk quota is exceeded";
    return "the disk is full";
}

// --- Statement ---

Statement::Statement(Statement&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), statement_(std::exchange(other.statement_, nullptr)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
    if (this != &other) {
        sqlite3_finalize(statement_);
        db_ = std::exchange(other.db_, nullptr);
        statement_ = std::exchange(other.statement_, nullptr);
    }
    return *this;
}

Statement::~Statement() {
    sqlite3_finalize(statement_);
}

Statement& Statement::bind(int index, std::int64_t value) {
    sqlite3_bind_int64(statement_, index, value);
    return *this;
}

Statement& Statement::bind(int index, double value) {
    sqlite3_bind_double(statement_, index, value);
    return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
    sqlite3_bind_text64(statement_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    return *this;
}

Statement& Statement::bindBlob(int index, std::string_view bytes) {
    // A zero-length blob with a null pointer would bind NULL; give SQLite a real (empty) blob.
    sqlite3_bind_blob64(statement_, index, bytes.empty() ? "" : bytes.data(), bytes.size(), SQLITE_TRANSIENT);
    return *this;
}

Result<bool> Statement::next() {
    const int rc = sqlite3_step(statement_);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    Diagnostic failure = failureOf(db_, rc);
    sqlite3_reset(statement_);
    return failure;
}

Status Statement::run() {
    for (;;) {
        auto row = next();
        if (!row)
            return Status::failure(row.diagnostics());
        if (!*row)
            break;
    }
    reset();
    return Success{};
}

void Statement::reset() {
    sqlite3_reset(statement_);
}

std::int64_t Statement::integer(int column) const {
    return sqlite3_column_int64(statement_, column);
}

double Statement::real(int column) const {
    return sqlite3_column_double(statement_, column);
}

std::string Statement::text(int column) const {
    const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(statement_, column));
    return data ? std::string(data, static_cast<std::size_t>(sqlite3_column_bytes(statement_, column)))
                : std::string();
}

std::string Statement::blob(int column) const {
    const auto* data = static_cast<const char*>(sqlite3_column_blob(statement_, column));
    return data ? std::string(data, static_cast<std::size_t>(sqlite3_column_bytes(statement_, column)))
                : std::string();
}

// --- Connection ---

Result<Connection> Connection::open(const std::string& path, int flags) {
    sqlite3* db = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
    Connection connection(db);  // closes `db` on every path, including a failed open
    if (rc != SQLITE_OK)
        return failureOf(db, rc);
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, 5000);
    return connection;
}

Connection::Connection(Connection&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}

Connection& Connection::operator=(Connection&& other) noexcept {
    if (this != &other) {
        close();
        db_ = std::exchange(other.db_, nullptr);
    }
    return *this;
}

Connection::~Connection() {
    close();
}

void Connection::close() {
    // Statements are finalized by their owners first; close_v2 would defer the close if one were left.
    if (db_)
        sqlite3_close_v2(db_);
    db_ = nullptr;
}

Result<Statement> Connection::prepare(std::string_view sql) {
    sqlite3_stmt* statement = nullptr;
    const int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &statement, nullptr);
    if (rc != SQLITE_OK)
        return failureOf(db_, rc);
    return Statement(db_, statement);
}

Status Connection::exec(const char* sql) {
    const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK)
        return failureOf(db_, rc);
    return Success{};
}

Result<std::int64_t> Connection::integer(const char* sql) {
    auto statement = prepare(sql);
    if (!statement)
        return Result<std::int64_t>::failure(statement.diagnostics());
    auto row = statement->next();
    if (!row)
        return Result<std::int64_t>::failure(row.diagnostics());
    if (!*row)
        return makeError(kFailed, std::string("no result from ") + sql);
    return statement->integer(0);
}

Result<std::string> Connection::text(const char* sql) {
    auto statement = prepare(sql);
    if (!statement)
        return Result<std::string>::failure(statement.diagnostics());
    auto row = statement->next();
    if (!row)
        return Result<std::string>::failure(row.diagnostics());
    if (!*row)
        return makeError(kFailed, std::string("no result from ") + sql);
    return statement->text(0);
}

Diagnostic Connection::failure(int rc) const {
    return failureOf(db_, rc);
}

}  // namespace shardscope::store::sqlite
