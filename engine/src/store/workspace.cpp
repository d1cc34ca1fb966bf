// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/store/workspace.h"

#include "shardscope/input_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>
#include <vector>

#include "store/compression.h"
#include "store/schema.h"
#include "store/sha256.h"
#include "store/sqlite.h"
#include "store/writer.h"

namespace shardscope::store {
namespace {

// The model's bytes are stored in pieces of this size (before compression), each its own zlib stream: no
// blob comes near SQLite's 1 GB limit, and no piece needs more memory than this to read.
constexpr std::size_t kChunkBytes = std::size_t{16} << 20;

std::string quoted(const std::string& path) {
    return "'" + path + "'";
}

Diagnostic notAWorkspace(const std::string& path) {
    return makeError("workspace.not-workspace", quoted(path) + " is not a Shardscope workspace");
}

// A file an interrupted creation left (by a version of Shardscope that wrote workspaces in place, or another
// program): `what` it is, and that it may go.
Diagnostic unfinished(const std::string& path, const std::string& what) {
    return makeError("workspace.unfinished",
                     quoted(path) + " is not a Shardscope workspace: it is " + what +
                         ", as an interrupted creation leaves it; it holds no work and is "
                         "safe to delete");
}

Diagnostic notSqlite(const std::string& path) {
    return makeError("workspace.not-workspace",
                     quoted(path) +
                         " is not a Shardscope workspace: it is not an SQLite database (another "
                         "kind of file, or a workspace whose first page is damaged)");
}

// The file is damaged; `report`, when given, is SQLite's own account, kept in a note. open() writes nothing
// to a file it refuses, and the message says so and what the user can do.
Result<Success> damaged(const std::string& path, const std::string& what, const std::string& report = {}) {
    auto result = Status::failure(
        {makeError(sqlite::kDamaged,
                   quoted(path) + " is damaged" + what +
                       "; it is left as it was (restore a copy, or start a new workspace from the model)")});
    if (!report.empty())
        result.addDiagnostic(Diagnostic{Severity::Note, sqlite::kDamaged, {}, report});
    return result;
}

const std::string kTruncatedOrCorrupted = " (truncated or corrupted) and cannot be opened";

// Rewords a failure of SQLite met while creating, opening or saving to `path`.
Diagnostic failedOn(const std::string& verb, const std::string& path, const Diagnostic& failure) {
    if (sqlite::isNoRoom(failure.code))
        return makeError(failure.code,
                         "cannot " + verb + " " + quoted(path) + ": " + sqlite::noRoomReason(failure));
    return makeError(failure.code, "cannot " + verb + " " + quoted(path) + ": " + failure.message);
}

std::vector<Diagnostic> failedOn(const std::string& verb, const std::string& path,
                                 std::vector<Diagnostic> diagnostics) {
    if (!diagnostics.empty())
        diagnostics.front() = failedOn(verb, path, diagnostics.front());
    return diagnostics;
}

std::int64_t nowUnixMs() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// Journal and sync settings, on the writer thread and outside a transaction: a write-ahead log, so readers
// never wait for the writer, synced at every commit, so a committed batch survives a crash of the machine
// too.
Status useWriteAheadLog(sqlite::Connection& db) {
    auto mode = db.text("PRAGMA journal_mode = WAL");
    if (!mode)
        return Status::failure(mode.diagnostics());
    if (*mode != "wal")
        return makeError(sqlite::kFailed, "the file system does not support SQLite's write-ahead log");
    return db.exec("PRAGMA synchronous = FULL");
}

// --- checks on open ---

// The file's schema version once it is known to be a workspace this code reads.
Result<int> checkIdentity(sqlite::Connection& db, const std::string& path) {
    auto id = db.integer("PRAGMA application_id");
    if (!id) {
        const Diagnostic& failure = id.diagnostics().front();
        if (failure.code == sqlite::kNotADatabase)  // not SQLite at all, or its header is gone
            return notSqlite(path);
        // SQLite refuses to read a file shorter than its header says before anything else.
        if (failure.code == sqlite::kDamaged)
            return Result<int>::failure(damaged(path, kTruncatedOrCorrupted, failure.message).diagnostics());
        return Result<int>::failure(failedOn("open", path, id.diagnostics()));
    }
    // An SQLite file without a single table holds nothing: what an interrupted creation leaves.
    auto tables = db.integer("SELECT count(*) FROM sqlite_schema");
    if (tables && *tables == 0 && (*id == 0 || *id == schema::kApplicationId))
        return unfinished(path, "an empty SQLite database");
    if (*id != schema::kApplicationId)
        return notAWorkspace(path);
    auto version = db.integer("PRAGMA user_version");
    if (!version)
        return Result<int>::failure(failedOn("open", path, version.diagnostics()));
    if (*version > schema::kVersion)
        return makeError("workspace.newer", quoted(path) +
                                                " was written by a newer Shardscope (workspace version " +
                                                std::to_string(*version) + "; this one reads up to " +
                                                std::to_string(schema::kVersion) + ")");
    if (*version < 1)
        return notAWorkspace(path);  // stamped by someone else, or never finished
    return static_cast<int>(*version);
}

Status checkStructure(sqlite::Connection& db, const std::string& path) {
    auto check = db.prepare("PRAGMA quick_check(5)");
    if (!check)
        return damaged(path, kTruncatedOrCorrupted, check.diagnostics().front().message);
    std::string report;
    for (;;) {
        auto row = check->next();
        if (!row)
            return damaged(path, kTruncatedOrCorrupted, row.diagnostics().front().message);
        if (!*row)
            break;
        const std::string line = check->text(0);
        if (line != "ok")
            report += (report.empty() ? "" : "; ") + line;
    }
    if (!report.empty())
        return damaged(path, kTruncatedOrCorrupted, report);
    return Success{};
}

Result<ModelRecord> readModel(sqlite::Connection& db, const std::string& path) {
    auto fail = [&](const std::string& what, const std::string& report = {}) {
        return Result<ModelRecord>::failure(damaged(path, what, report).diagnostics());
    };
    auto row = db.prepare("SELECT source, load_options, size, sha256, compression FROM model WHERE id = 1");
    if (!row)
        return fail(kTruncatedOrCorrupted, row.diagnostics().front().message);
    auto found = row->next();
    if (!found)
        return fail(kTruncatedOrCorrupted, found.diagnostics().front().message);
    if (!*found)
        return fail(": it holds no model");
    ModelRecord model{row->text(0), {}, row->text(3), row->text(1)};
    const std::int64_t size = row->integer(2);
    if (row->text(4) != "zlib")
        return fail(": the model is stored with unknown compression '" + row->text(4) + "'");

    auto chunks = db.prepare("SELECT seq, size, data FROM model_chunk ORDER BY seq");
    if (!chunks)
        return fail(kTruncatedOrCorrupted, chunks.diagnostics().front().message);
    Sha256 hash;
    std::int64_t expectedSeq = 0;
    std::int64_t total = 0;
    for (;;) {
        auto next = chunks->next();
        if (!next)
            return fail(kTruncatedOrCorrupted, next.diagnostics().front().message);
        if (!*next)
            break;
        const std::int64_t pieceSize = chunks->integer(1);
        // Check the sizes before trusting them with an allocation.
        if (chunks->integer(0) != expectedSeq++ || pieceSize < 0 ||
            static_cast<std::uint64_t>(pieceSize) > kChunkBytes || total + pieceSize > size)
            return fail(": the model's bytes are incomplete");
        auto piece = inflateBytes(chunks->blob(2), static_cast<std::size_t>(pieceSize));
        if (!piece)
            return fail(": the model's bytes cannot be decompressed");
        if (model.bytes.empty())  // `size` is the file's word, not yet checked: a hint, within reason
            model.bytes.reserve(
                static_cast<std::size_t>(std::min<std::int64_t>(size, std::int64_t{256} << 20)));
        hash.update(*piece);
        model.bytes += *piece;
        total += pieceSize;
    }
    if (total != size)
        return fail(": the model's bytes are incomplete");
    if (hash.hexDigest() != model.sha256)
        return fail(": the model's bytes do not match their SHA-256");
    return model;
}

// Every session's id.
Result<std::set<std::int64_t>> readSessionIds(sqlite::Connection& db) {
    std::set<std::int64_t> sessions;
    auto ids = db.prepare("SELECT id FROM session");
    if (!ids)
        return Result<std::set<std::int64_t>>::failure(ids.diagnostics());
    for (;;) {
        auto row = ids->next();
        if (!row)
            return Result<std::set<std::int64_t>>::failure(row.diagnostics());
        if (!*row)
            break;
        sessions.insert(ids->integer(0));
    }
    return sessions;
}

// --- rows ---

constexpr const char* kPlanColumns =
    "id, session, plan, evaluation, step_time, peak_memory, feasible, found_after_seconds, iteration, "
    "origin, "
    "label, note";
constexpr const char* kPlanSummaryColumns =
    "id, session, '', '', step_time, peak_memory, feasible, found_after_seconds, iteration, origin, label, "
    "note";

PlanRecord planFrom(const sqlite::Statement& s) {
    PlanRecord p;
    p.id = s.integer(0);
    p.session = s.integer(1);
    p.plan = s.text(2);
    p.evaluation = s.text(3);
    p.stepTime = s.real(4);
    p.peakMemory = s.real(5);
    p.feasible = s.integer(6) != 0;
    p.foundAfterSeconds = s.real(7);
    p.iteration = s.integer(8);
    p.origin = s.text(9);
    p.label = s.text(10);
    p.note = s.text(11);
    return p;
}

constexpr const char* kNodeColumns = "id, parent, action, visits, value_sum, best, plan, status";

TreeNodeRecord nodeFrom(const sqlite::Statement& s) {
    return {s.integer(0), s.integer(1), s.text(2),    s.integer(3),
            s.real(4),    s.real(5),    s.integer(6), s.text(7)};
}

// Every row `statement` gives, made by `from`; nothing if a step fails.
template <typename T>
std::vector<T> rows(sqlite::Statement& statement, T (*from)(const sqlite::Statement&)) {
    std::vector<T> out;
    for (;;) {
        auto row = statement.next();
        if (!row)
            return {};
        if (!*row)
            return out;
        out.push_back(from(statement));
    }
}

}  // namespace

struct Workspace::Impl {
    std::string path;
    ModelRecord model;
    std::unique_ptr<Writer> writer;
    mutable std::mutex readMutex;
    mutable std::optional<sqlite::Connection> reader;  // guarded by readMutex

    // Starts the writer on `connection` (to `path`), switches the file to its write-ahead log and opens the
    // read connection. Errors name the file.
    Status start(sqlite::Connection connection);

    ~Impl() {
        // The reader closes first, so that the writer's connection is the last and checkpoints the WAL.
        {
            std::lock_guard lock(readMutex);
            reader.reset();
        }
        writer.reset();
    }

    // Runs `read` on the read connection; `fallback` if it cannot be prepared.
    template <typename T, typename F>
    T read(const std::string& sql, T fallback, F&& read) const {
        std::lock_guard lock(readMutex);
        auto statement = reader->prepare(sql);
        if (!statement)
            return fallback;
        return read(*statement);
    }
};

namespace {

// --- creating: build beside, then take the name ---

void removeFile(const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        (void)::unlink((path + suffix).c_str());
}

// The system's reason, after `what` when there is one.
Diagnostic systemError(const std::string& what, int error) {
    return makeError(error == ENOSPC || error == EDQUOT ? sqlite::kDiskFull
                     : error == EFBIG                   ? sqlite::kFileTooLarge
                                                        : sqlite::kFailed,
                     (what.empty() ? "" : what + ": ") + std::strerror(error));
}

// A new empty file beside `path` ("<path>.creating-XXXXXX") for create() to build the workspace in, so that
// `path` never names a half-written file. Errors: the directory cannot be written.
Result<std::string> newFileBeside(const std::string& path) {
    static std::atomic<unsigned> made{0};
    std::mt19937_64 random(std::random_device{}() ^ (static_cast<std::uint64_t>(::getpid()) << 32) ^ ++made);
    constexpr std::string_view kLetters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int attempt = 0; attempt < 100; ++attempt) {
        std::string name = path + ".creating-";
        for (int i = 0; i < 6; ++i)
            name += kLetters[random() % kLetters.size()];
        const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            ::close(fd);
            return name;
        }
        if (errno != EEXIST)
            return systemError("", errno);
    }
    return makeError(sqlite::kFailed, "every name tried beside it is taken");
}

// The workspace `path` is the building file of ("<workspace>.creating-XXXXXX", see newFileBeside), if it is
// one.
std::optional<std::string> buildingFor(const std::string& path) {
    constexpr std::string_view kInfix = ".creating-";
    const auto at = path.rfind(kInfix);
    if (at == std::string::npos || path.size() != at + kInfix.size() + 6)
        return std::nullopt;
    for (std::size_t i = at + kInfix.size(); i < path.size(); ++i)
        if (!std::isalnum(static_cast<unsigned char>(path[i])))
            return std::nullopt;
    return path.substr(0, at);
}

// An exclusive flock(2) create() holds on its building file until the file has its name, so that a building
// file nobody holds is known to be left by a process that ended (flock and SQLite's fcntl locks do not meet
// on Linux).
class BuildingLock {
public:
    explicit BuildingLock(const std::string& file) : fd_(::open(file.c_str(), O_RDONLY | O_CLOEXEC)) {
        if (fd_ >= 0)
            (void)::flock(fd_, LOCK_EX | LOCK_NB);
    }
    BuildingLock(const BuildingLock&) = delete;
    BuildingLock& operator=(const BuildingLock&) = delete;
    ~BuildingLock() { release(); }
    // Before SQLite opens the file again: closing a descriptor of a file drops the process's fcntl locks on
    // it.
    void release() {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = -1;
    }

private:
    int fd_;
};

// Whether a process is building in `file` right now (it holds the BuildingLock).
bool beingBuilt(const std::string& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    ::close(fd);
    return held;
}

// The building files of `path` ("<path>.creating-XXXXXX") that processes which ended left beside it.
std::vector<std::string> leftBuildingFiles(const std::string& path) {
    std::vector<std::string> left;
    const std::filesystem::path where(path);
    const std::string prefix = where.filename().string() + ".creating-";
    std::error_code error;
    const auto directory = where.has_parent_path() ? where.parent_path() : std::filesystem::path(".");
    for (std::filesystem::directory_iterator it(directory, error), end; !error && it != end;
         it.increment(error)) {
        const std::string name = it->path().filename().string();
        if (name.rfind(prefix, 0) != 0)
            continue;
        const std::string file = (where.has_parent_path() ? (where.parent_path() / name).string() : name);
        if (buildingFor(file) == path && !beingBuilt(file))
            left.push_back(file);
        if (left.size() == 3)
            break;
    }
    std::sort(left.begin(), left.end());
    return left;
}

// Writes the schema and `model` (its pieces already compressed) into the empty file `file`, and leaves it in
// WAL mode, closed, with everything in the file itself and synced.
Status build(const std::string& file, const ModelRecord& model, const std::vector<std::string>& chunks) {
    auto connection = sqlite::Connection::open(file, SQLITE_OPEN_READWRITE);
    if (!connection)
        return Status::failure(connection.diagnostics());
    sqlite::Connection& db = *connection;
    // The journal in memory: no file beside this one that a kill could leave, and a failed build is thrown
    // away.
    if (auto mode = db.text("PRAGMA journal_mode = MEMORY"); !mode)
        return Status::failure(mode.diagnostics());
    if (auto begun = db.exec("BEGIN IMMEDIATE"); !begun)
        return begun;
    Status filled = [&]() -> Status {
        if (auto made = schema::create(db); !made)
            return made;
        auto row = db.prepare(
            "INSERT INTO model (id, source, load_options, size, sha256, compression) VALUES (1, ?1, ?2, ?3, "
            "?4, 'zlib')");
        if (!row)
            return Status::failure(row.diagnostics());
        row->bind(1, model.source).bind(2, model.loadOptions);
        row->bind(3, static_cast<std::int64_t>(model.bytes.size())).bind(4, model.sha256);
        if (auto done = row->run(); !done)
            return done;
        auto chunk = db.prepare("INSERT INTO model_chunk (seq, size, data) VALUES (?1, ?2, ?3)");
        if (!chunk)
            return Status::failure(chunk.diagnostics());
        for (std::size_t i = 0; i < chunks.size(); ++i) {
            const std::size_t size = std::min(kChunkBytes, model.bytes.size() - i * kChunkBytes);
            chunk->bind(1, static_cast<std::int64_t>(i))
                .bind(2, static_cast<std::int64_t>(size))
                .bindBlob(3, chunks[i]);
            if (auto done = chunk->run(); !done)
                return done;
        }
        return db.exec("COMMIT");
    }();
    if (!filled)
        return filled;
    if (auto wal = useWriteAheadLog(db); !wal)
        return wal;
    db.close();  // the only connection: its log, empty, goes with it
    struct stat log {};
    if (::stat((file + "-wal").c_str(), &log) == 0 && log.st_size > 0)
        return makeError(sqlite::kFailed, "SQLite left its write-ahead log beside the new file");
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) {
        const int error = errno;
        if (fd >= 0)
            ::close(fd);
        return systemError("cannot sync the new file", error);
    }
    ::close(fd);
    return Success{};
}

// Gives the finished file `built` the name `path` unless a file has it already, in one step: rename with
// RENAME_NOREPLACE, or where the file system has no such rename, a hard link (then `built` is removed). The
// directory is synced, so the name survives a crash of the machine. Errors: `path` exists (workspace.exists),
// the file system can do neither.
Status publish(const std::string& built, const std::string& path) {
    int error = 0;
    if (::renameat2(AT_FDCWD, built.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) != 0) {
        error = errno;
        if (error == EINVAL || error == ENOSYS || error == ENOTSUP) {
            error = ::link(built.c_str(), path.c_str()) == 0 ? 0 : errno;
            if (error == 0)
                (void)::unlink(built.c_str());
        }
    }
    if (error == EEXIST)
        return makeError("workspace.exists", quoted(path) + " already exists");
    if (error != 0)
        return systemError("cannot give the new file its name", error);
    const std::string directory = std::filesystem::path(path).parent_path().string();
    const int fd = ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)::fsync(fd);
        ::close(fd);
    }
    return Success{};
}

}  // namespace

Status Workspace::Impl::start(sqlite::Connection connection) {
    auto started = Writer::start(std::move(connection), path);
    if (!started)
        return Status::failure(started.diagnostics());
    writer = std::move(started).value();
    if (auto wal = writer->run(useWriteAheadLog, false); !wal)
        return Status::failure(failedOn("open", path, wal.diagnostics()));
    auto opened = sqlite::Connection::open(path, SQLITE_OPEN_READONLY);
    if (!opened)
        return Status::failure(failedOn("open", path, opened.diagnostics()));
    reader = std::move(opened).value();
    return Success{};
}

Result<Workspace> Workspace::create(const std::string& path, const ModelRecord& model) {
    std::error_code error;
    if (std::filesystem::exists(path, error) || error)
        return makeError("workspace.exists", quoted(path) + " already exists");

    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->model = model;
    impl->model.sha256 = sha256Hex(model.bytes);
    std::vector<std::string> chunks;
    for (std::size_t at = 0; at < model.bytes.size(); at += kChunkBytes) {
        auto piece = deflateBytes(std::string_view(model.bytes).substr(at, kChunkBytes));
        if (!piece)
            return makeError("workspace.compress", "cannot compress the model for " + quoted(path));
        chunks.push_back(std::move(*piece));
    }

    // Built under another name and renamed: a process killed meanwhile leaves no half-made file at `path`,
    // and of two processes creating `path` at once, the second is told it exists (and nothing deletes the
    // first's).
    auto built = newFileBeside(path);
    if (!built)
        return Result<Workspace>::failure(failedOn("create", path, built.diagnostics()));
    BuildingLock building(*built);
    if (auto done = build(*built, impl->model, chunks); !done) {
        removeFile(*built);
        return Result<Workspace>::failure(failedOn("create", path, done.diagnostics()));
    }
    if (auto named = publish(*built, path); !named) {
        removeFile(*built);
        if (named.diagnostics().front().code == "workspace.exists")
            return Result<Workspace>::failure(named.diagnostics());
        return Result<Workspace>::failure(failedOn("create", path, named.diagnostics()));
    }
    building.release();

    // From here the file is a whole workspace, and it stays when what follows fails.
    auto connection = sqlite::Connection::open(path, SQLITE_OPEN_READWRITE);
    if (!connection)
        return Result<Workspace>::failure(failedOn("open", path, connection.diagnostics()));
    if (auto started = impl->start(std::move(connection).value()); !started)
        return Result<Workspace>::failure(started.diagnostics());
    return Workspace(std::move(impl));
}

Result<Workspace> Workspace::open(const std::string& path) {
    std::error_code error;
    // Only a regular file can be a workspace: SQLite would block on a FIFO, and a device or a directory is
    // nobody's half-made workspace (never call it safe to delete).
    if (const auto kind = notARegularFile(path))
        return makeError("workspace.not-regular",
                         quoted(path) + " is not a Shardscope workspace: it is " + *kind + ", not a file");
    if (!std::filesystem::exists(path, error)) {
        // A creation killed before it gave the file its name leaves the file it built in: say it may go.
        std::string left;
        for (const auto& file : leftBuildingFiles(path))
            left += (left.empty() ? "" : ", ") + quoted(file);
        if (!left.empty())
            left = " (" + left +
                   " beside it: left by an interrupted creation of it, holding no work and safe to delete)";
        return makeError("workspace.open", quoted(path) + " does not exist" + left);
    }
    if (const auto building = buildingFor(path)) {
        if (beingBuilt(path))
            return makeError("workspace.unfinished",
                             quoted(path) + " is not a Shardscope workspace yet: it is the file " +
                                 quoted(*building) + " is being built in by another process");
        return makeError(
            "workspace.unfinished",
            quoted(path) + " is not a Shardscope workspace: it is the file " + quoted(*building) +
                " was being built in, left by a process that ended before giving it that name; it holds "
                "no work and is safe to delete");
    }

    // SQLite takes an empty file for an empty database and a file shorter than its header for garbage: say
    // what they are before SQLite sees them.
    const auto size = std::filesystem::file_size(path, error);
    if (!error && size == 0)
        return unfinished(path, "empty");
    if (!error && size < 100)
        return notSqlite(path);
    auto connection = sqlite::Connection::open(path, SQLITE_OPEN_READWRITE);
    auto fail = [&](const std::vector<Diagnostic>& failure) {
        return Result<Workspace>::failure(failedOn("open", path, failure));
    };
    if (!connection)
        return fail(connection.diagnostics());
    // Read-only checks first: a file that is not ours is left exactly as it was.
    auto version = checkIdentity(*connection, path);
    if (!version)
        return Result<Workspace>::failure(version.diagnostics());
    if (auto sound = checkStructure(*connection, path); !sound)
        return Result<Workspace>::failure(sound.diagnostics());

    auto impl = std::make_unique<Impl>();
    impl->path = path;
    if (auto started = impl->start(std::move(connection).value()); !started)
        return Result<Workspace>::failure(started.diagnostics());
    if (*version < schema::kVersion) {
        auto migrated = impl->writer->run(schema::migrate);
        if (!migrated)
            return fail(migrated.diagnostics());
    }
    auto model = readModel(*impl->reader, path);
    if (!model)
        return Result<Workspace>::failure(model.diagnostics());
    impl->model = std::move(model).value();
    auto sessions = readSessionIds(*impl->reader);
    if (!sessions)
        return fail(sessions.diagnostics());
    impl->writer->acceptSessions(std::move(sessions).value());
    return Workspace(std::move(impl));
}

Result<Workspace> Workspace::openOrCreate(const std::string& path, const ModelRecord& model) {
    std::error_code error;
    if (const auto kind = notARegularFile(path))
        return makeError("workspace.not-regular",
                         quoted(path) + " is not a Shardscope workspace: it is " + *kind + ", not a file");
    if (!std::filesystem::exists(path, error)) {
        auto created = create(path, model);
        if (created || created.diagnostics().front().code != "workspace.exists")
            return created;
        // Another process created it since: use its file.
    }
    auto opened = open(path);
    if (!opened)
        return opened;
    const ModelRecord& held = opened->model();
    if (held.source != model.source)
        return makeError("workspace.other-model",
                         quoted(path) + " holds the model '" + held.source + "', not '" + model.source + "'");
    if (held.sha256 != sha256Hex(model.bytes))
        return makeError("workspace.other-model",
                         quoted(path) + " holds other bytes of the model '" + held.source +
                             "' (the file has changed since the workspace was made)");
    return opened;
}

Workspace::Workspace(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;
Workspace::~Workspace() = default;

const std::string& Workspace::path() const {
    return impl_->path;
}
const ModelRecord& Workspace::model() const {
    return impl_->model;
}

Result<std::int64_t> Workspace::addSession(const std::string& name, const std::string& settings) {
    std::int64_t id = 0;
    const std::int64_t created = nowUnixMs();
    auto added = impl_->writer->run([&](sqlite::Connection& db) -> Status {
        auto insert = db.prepare("INSERT INTO session (name, settings, created_unix_ms) VALUES (?1, ?2, ?3)");
        if (!insert)
            return Status::failure(insert.diagnostics());
        insert->bind(1, name).bind(2, settings).bind(3, created);
        if (auto done = insert->run(); !done)
            return done;
        id = sqlite3_last_insert_rowid(db.handle());
        if (!name.empty())
            return Success{};
        auto named = db.prepare("UPDATE session SET name = 'session ' || id WHERE id = ?1");
        if (!named)
            return Status::failure(named.diagnostics());
        named->bind(1, id);
        return named->run();
    });
    if (!added)
        return Result<std::int64_t>::failure(failedOn("save to", impl_->path, added.diagnostics()));
    impl_->writer->addSession(id);
    return id;
}

std::vector<SessionRecord> Workspace::sessions() const {
    return impl_->read("SELECT id, name, settings, created_unix_ms FROM session ORDER BY id",
                       std::vector<SessionRecord>{}, [](sqlite::Statement& s) {
                           return rows<SessionRecord>(s, [](const sqlite::Statement& r) {
                               return SessionRecord{r.integer(0), r.text(1), r.text(2), r.integer(3)};
                           });
                       });
}

std::int64_t Workspace::savePlan(PlanRecord plan) {
    return impl_->writer->savePlan(std::move(plan));
}

void Workspace::saveNodes(std::int64_t session, std::vector<TreeNodeRecord> nodes) {
    impl_->writer->saveNodes(session, std::move(nodes));
}

void Workspace::setLabel(std::int64_t plan, const std::string& label, const std::string& note) {
    impl_->writer->setLabel(plan, label, note);
}

Status Workspace::flush() {
    return impl_->writer->flush();
}

void Workspace::setFlushInterval(std::chrono::milliseconds interval) {
    impl_->writer->setInterval(interval);
}

std::vector<PlanRecord> Workspace::plans(std::int64_t session, PlanContent content) const {
    const std::string sql = std::string("SELECT ") +
                            (content == PlanContent::Full ? kPlanColumns : kPlanSummaryColumns) +
                            " FROM plan WHERE session = ?1 ORDER BY id";
    return impl_->read(sql, std::vector<PlanRecord>{}, [&](sqlite::Statement& s) {
        s.bind(1, session);
        return rows<PlanRecord>(s, planFrom);
    });
}

std::optional<PlanRecord> Workspace::plan(std::int64_t id) const {
    return impl_->read(std::string("SELECT ") + kPlanColumns + " FROM plan WHERE id = ?1",
                       std::optional<PlanRecord>{}, [&](sqlite::Statement& s) -> std::optional<PlanRecord> {
                           s.bind(1, id);
                           auto found = rows<PlanRecord>(s, planFrom);
                           if (found.empty())
                               return std::nullopt;
                           return found.front();
                       });
}

std::vector<TreeNodeRecord> Workspace::children(std::int64_t session, std::int64_t parent) const {
    return impl_->read(std::string("SELECT ") + kNodeColumns +
                           " FROM tree_node WHERE session = ?1 AND parent = ?2 ORDER BY id",
                       std::vector<TreeNodeRecord>{}, [&](sqlite::Statement& s) {
                           s.bind(1, session).bind(2, parent);
                           return rows<TreeNodeRecord>(s, nodeFrom);
                       });
}

std::optional<TreeNodeRecord> Workspace::node(std::int64_t session, std::int64_t id) const {
    return impl_->read(
        std::string("SELECT ") + kNodeColumns + " FROM tree_node WHERE session = ?1 AND id = ?2",
        std::optional<TreeNodeRecord>{}, [&](sqlite::Statement& s) -> std::optional<TreeNodeRecord> {
            s.bind(1, session).bind(2, id);
            auto found = rows<TreeNodeRecord>(s, nodeFrom);
            if (found.empty())
                return std::nullopt;
            return found.front();
        });
}

std::int64_t Workspace::nodeCount(std::int64_t session) const {
    return impl_->read("SELECT count(*) FROM tree_node WHERE session = ?1", std::int64_t{0},
                       [&](sqlite::Statement& s) {
                           s.bind(1, session);
                           auto row = s.next();
                           return row && *row ? s.integer(0) : std::int64_t{0};
                       });
}

}  // namespace shardscope::store
