// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The workspace file: the model's bytes, sessions, plans, labels and the search tree survive a close and a
// reopen; the file is stamped as ours and in WAL mode; foreign, damaged and newer files are refused with
// their exact messages (and left untouched); several threads save at once; a writer killed with SIGKILL
// leaves a sound file holding every flushed plan; a full disk fails flush() with a message and loses nothing.
#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "test_paths.h"
#include "test_support.h"

#include "shardscope/store/workspace.h"

using namespace shardscope;
using namespace shardscope::store;

namespace {

std::string firstMessage(const std::vector<Diagnostic>& diagnostics) {
    return diagnostics.empty() ? std::string("(no diagnostic)") : diagnostics.front().message;
}

std::string readFile(const std::string& path) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", path.c_str());
    return file.readAll().toStdString();
}

void writeFile(const std::string& path, const std::string& bytes) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", path.c_str());
    file.write(bytes.data(), static_cast<qint64>(bytes.size()));
}

// Runs `sql` on `path` with SQLite itself (not through the store) and returns the first column of every row.
std::vector<std::string> sqlite(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK)
        qFatal("cannot open %s: %s", path.c_str(), sqlite3_errmsg(db));
    std::vector<std::string> rows;
    auto collect = [](void* out, int, char** values, char**) {
        static_cast<std::vector<std::string>*>(out)->push_back(values[0] ? values[0] : "NULL");
        return 0;
    };
    char* error = nullptr;
    if (sqlite3_exec(db, sql.c_str(), collect, &rows, &error) != SQLITE_OK)
        qFatal("%s: %s", sql.c_str(), error);
    sqlite3_close(db);
    return rows;
}

Workspace created(const std::string& path, const ModelRecord& model = {"zoo:demo", {}, {}, "{}"}) {
    auto workspace = Workspace::create(path, model);
    if (!workspace)
        qFatal("%s", workspace.errorMessage().c_str());
    return std::move(workspace).value();
}

Workspace opened(const std::string& path) {
    auto workspace = Workspace::open(path);
    if (!workspace)
        qFatal("%s", workspace.errorMessage().c_str());
    return std::move(workspace).value();
}

std::int64_t sessionOf(Workspace& workspace, const std::string& name = "s") {
    auto session = workspace.addSession(name, R"({"mesh": "data=8,model=4"})");
    if (!session)
        qFatal("%s", session.errorMessage().c_str());
    return *session;
}

PlanRecord planFor(std::int64_t session, double stepTime, const std::string& origin = "search") {
    PlanRecord p;
    p.session = session;
    p.plan = R"({"format": "shardscope-plan", "step": )" + std::to_string(stepTime) + "}";
    p.evaluation = R"({"step_time": )" + std::to_string(stepTime) + "}";
    p.stepTime = stepTime;
    p.peakMemory = 8e9;
    p.feasible = true;
    p.foundAfterSeconds = 0.25;
    p.iteration = 17;
    p.origin = origin;
    return p;
}

std::vector<std::int64_t> idsOf(const std::vector<PlanRecord>& plans) {
    std::vector<std::int64_t> ids;
    for (const auto& p : plans)
        ids.push_back(p.id);
    return ids;
}

std::vector<std::int64_t> idsOf(const std::vector<TreeNodeRecord>& nodes) {
    std::vector<std::int64_t> ids;
    for (const auto& n : nodes)
        ids.push_back(n.id);
    return ids;
}

// Binary model bytes: random bytes (with NULs) and long compressible runs, past one 16 MiB storage piece.
std::string modelBytes() {
    std::mt19937 random(7);
    std::string bytes;
    for (int i = 0; i < 3 << 20; ++i)
        bytes += static_cast<char>(random() & 0xff);
    bytes += std::string(14 << 20, '\0');
    for (int i = 0; bytes.size() < (std::size_t{17} << 20) + 3; ++i)
        bytes += "weights " + std::to_string(i) + '\n';
    return bytes;
}

// A VFS that hands everything to the default one, except that while `full` is set every write fails the way
// the unix VFS fails on ENOSPC (SQLITE_FULL). Registered as the default for its lifetime, so the workspace's
// connections, opened while it lives, use it.
class FullDisk {
public:
    FullDisk() {
        base_ = sqlite3_vfs_find(nullptr);
        vfs_ = *base_;
        vfs_.zName = "shardscope-full-disk";
        vfs_.szOsFile = static_cast<int>(sizeof(File)) + base_->szOsFile;
        vfs_.pNext = nullptr;
        vfs_.xOpen = &FullDisk::open;
        sqlite3_vfs_register(&vfs_, 1);
    }
    ~FullDisk() {
        sqlite3_vfs_unregister(&vfs_);
        full = false;
    }

    static inline std::atomic<bool> full{false};

private:
    struct File {
        sqlite3_file base;
        sqlite3_file* real;  // the default VFS's file, right after this struct
    };
    static sqlite3_file* real(sqlite3_file* file) { return reinterpret_cast<File*>(file)->real; }

    static int open(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* outFlags) {
        auto* ours = reinterpret_cast<File*>(file);
        ours->real = reinterpret_cast<sqlite3_file*>(ours + 1);
        const int rc = base_->xOpen(base_, name, ours->real, flags, outFlags);
        file->pMethods = ours->real->pMethods ? &kMethods : nullptr;
        return rc;
    }

    // Version 3 methods (the unix VFS's), each handing the call to the real file.
    static constexpr sqlite3_io_methods kMethods = {
        3,
        [](sqlite3_file* f) { return real(f)->pMethods->xClose(real(f)); },
        [](sqlite3_file* f, void* b, int n, sqlite3_int64 o) {
            return real(f)->pMethods->xRead(real(f), b, n, o);
        },
        [](sqlite3_file* f, const void* b, int n, sqlite3_int64 o) {
            return full ? SQLITE_FULL : real(f)->pMethods->xWrite(real(f), b, n, o);
        },
        [](sqlite3_file* f, sqlite3_int64 n) { return real(f)->pMethods->xTruncate(real(f), n); },
        [](sqlite3_file* f, int n) { return real(f)->pMethods->xSync(real(f), n); },
        [](sqlite3_file* f, sqlite3_int64* n) { return real(f)->pMethods->xFileSize(real(f), n); },
        [](sqlite3_file* f, int n) { return real(f)->pMethods->xLock(real(f), n); },
        [](sqlite3_file* f, int n) { return real(f)->pMethods->xUnlock(real(f), n); },
        [](sqlite3_file* f, int* n) { return real(f)->pMethods->xCheckReservedLock(real(f), n); },
        [](sqlite3_file* f, int op, void* arg) { return real(f)->pMethods->xFileControl(real(f), op, arg); },
        [](sqlite3_file* f) { return real(f)->pMethods->xSectorSize(real(f)); },
        [](sqlite3_file* f) { return real(f)->pMethods->xDeviceCharacteristics(real(f)); },
        [](sqlite3_file* f, int page, int size, int extend, void volatile** out) {
            return real(f)->pMethods->xShmMap(real(f), page, size, extend, out);
        },
        [](sqlite3_file* f, int offset, int n, int flags) {
            return real(f)->pMethods->xShmLock(real(f), offset, n, flags);
        },
        [](sqlite3_file* f) { real(f)->pMethods->xShmBarrier(real(f)); },
        [](sqlite3_file* f, int remove) { return real(f)->pMethods->xShmUnmap(real(f), remove); },
        [](sqlite3_file* f, sqlite3_int64 o, int n, void** out) {
            return real(f)->pMethods->xFetch(real(f), o, n, out);
        },
        [](sqlite3_file* f, sqlite3_int64 o, void* p) { return real(f)->pMethods->xUnfetch(real(f), o, p); },
    };

    static inline sqlite3_vfs* base_ = nullptr;
    sqlite3_vfs vfs_{};
};

}  // namespace

class TestWorkspace : public QObject {
    Q_OBJECT
private:
    QTemporaryDir dir_;
    std::string file(const char* name) const { return dir_.filePath(name).toStdString(); }

private slots:
    void init() { QVERIFY(dir_.isValid()); }

    // --- the model ---

    void modelBytesSurviveAReopen() {
        const std::string path = file("model.shardscope");
        const std::string bytes = modelBytes();
        const std::string sha =
            QCryptographicHash::hash(QByteArray::fromStdString(bytes), QCryptographicHash::Sha256)
                .toHex()
                .toStdString();
        const ModelRecord model{"/models/big.onnx", bytes, "ignored: the store computes it",
                                R"({"batch": 8})"};
        {
            Workspace workspace = created(path, model);
            QCOMPARE(workspace.model().sha256, sha);
            QCOMPARE(workspace.path(), path);
        }
        QVERIFY(
            !QFile::exists(QString::fromStdString(path + "-wal")));  // closed cleanly: the log is folded in
        QVERIFY(QFile(QString::fromStdString(path)).size() < 6 << 20);  // compressed
        Workspace workspace = opened(path);
        QCOMPARE(workspace.model().source, model.source);
        QCOMPARE(workspace.model().loadOptions, model.loadOptions);
        QCOMPARE(workspace.model().sha256, sha);
        QVERIFY(workspace.model().bytes == bytes);
        QCOMPARE(sqlite(path, "SELECT count(*) FROM model_chunk"), std::vector<std::string>{"2"});
    }

    void zooModelsKeepNoBytes() {
        const std::string path = file("zoo.shardscope");
        created(path, {"zoo:gpt2-small", {}, {}, "{}"});
        Workspace workspace = opened(path);
        QCOMPARE(workspace.model(),
                 (ModelRecord{"zoo:gpt2-small",
                              {},
                              "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                              "{}"}));
    }

    void theFileIsStampedAndLogged() {
        const std::string path = file("stamp.shardscope");
        created(path);
        QCOMPARE(sqlite(path, "PRAGMA application_id"), std::vector<std::string>{"1397248835"});  // "SHSC"
        QCOMPARE(sqlite(path, "PRAGMA user_version"), std::vector<std::string>{"2"});
        QCOMPARE(sqlite(path, "PRAGMA journal_mode"), std::vector<std::string>{"wal"});
    }

    // --- sessions, plans, labels, the tree ---

    void sessionsSurviveAReopen() {
        const std::string path = file("sessions.shardscope");
        const auto before = QDateTime::currentMSecsSinceEpoch();
        {
            Workspace workspace = created(path);
            QCOMPARE(*workspace.addSession("first", R"({"mesh": "data=8"})"), 1);
            QCOMPARE(*workspace.addSession("second", R"({"mesh": "data=2,model=4"})"), 2);
        }
        Workspace workspace = opened(path);
        const auto sessions = workspace.sessions();
        QCOMPARE(sessions.size(), 2u);
        QCOMPARE(sessions[0].name, std::string("first"));
        QCOMPARE(sessions[1].settings, std::string(R"({"mesh": "data=2,model=4"})"));
        QVERIFY(sessions[0].createdUnixMs >= before &&
                sessions[1].createdUnixMs <= QDateTime::currentMSecsSinceEpoch());
        QCOMPARE(*workspace.addSession("third", "{}"), 3);
    }

    void plansGetIdsAtOnceAndComeBackInOrder() {
        const std::string path = file("plans.shardscope");
        Workspace workspace = created(path);
        const auto a = sessionOf(workspace, "a");
        const auto b = sessionOf(workspace, "b");
        workspace.setFlushInterval(std::chrono::hours(1));
        QCOMPARE(workspace.savePlan(planFor(a, 3.0)), 1);
        QCOMPARE(workspace.savePlan(planFor(b, 2.0, "expert:dp")), 2);
        PlanRecord labelled = planFor(a, 1.0, "user");
        labelled.id = 99;  // ignored
        labelled.label = "mine";
        labelled.note = "hand-made";
        QCOMPARE(workspace.savePlan(labelled), 3);
        QVERIFY(workspace.plans(a).empty());  // queued, not yet written
        QVERIFY(!workspace.plan(1));
        QVERIFY(workspace.flush());

        QCOMPARE(idsOf(workspace.plans(a)), (std::vector<std::int64_t>{1, 3}));
        QCOMPARE(idsOf(workspace.plans(b)), (std::vector<std::int64_t>{2}));
        PlanRecord expected = labelled;
        expected.id = 3;
        QCOMPARE(*workspace.plan(3), expected);
        QCOMPARE(workspace.plans(a).back(), expected);
        QVERIFY(!workspace.plan(4));

        const PlanRecord summary = workspace.plans(a, PlanContent::Summary).back();
        QVERIFY(summary.plan.empty() && summary.evaluation.empty());
        QCOMPARE(summary.stepTime, 1.0);
        QCOMPARE(summary.label, std::string("mine"));
    }

    void planIdsContinueAfterAReopen() {
        const std::string path = file("continue.shardscope");
        {
            Workspace workspace = created(path);
            const auto s = sessionOf(workspace);
            for (int i = 0; i < 3; ++i)
                workspace.savePlan(planFor(s, i));
            // no flush: closing writes what is queued
        }
        Workspace workspace = opened(path);
        QCOMPARE(idsOf(workspace.plans(1)), (std::vector<std::int64_t>{1, 2, 3}));
        QCOMPARE(workspace.savePlan(planFor(1, 9.0)), 4);
        QVERIFY(workspace.flush());
        QCOMPARE(workspace.plan(4)->stepTime, 9.0);
    }

    void theWriterWritesByItselfAfterTheInterval() {
        Workspace workspace = created(file("interval.shardscope"));
        const auto s = sessionOf(workspace);
        workspace.setFlushInterval(std::chrono::milliseconds(20));
        workspace.savePlan(planFor(s, 1.0));
        QTRY_COMPARE_WITH_TIMEOUT(workspace.plans(s).size(), 1u, 5000);
    }

    void labelsReplaceEachOther() {
        const std::string path = file("labels.shardscope");
        {
            Workspace workspace = created(path);
            const auto s = sessionOf(workspace);
            workspace.setFlushInterval(std::chrono::hours(1));
            const auto queued = workspace.savePlan(planFor(s, 1.0));
            workspace.setLabel(queued, "first try", "");
            workspace.setLabel(queued, "baseline", "the plan to beat");  // the newest wins
            const auto other = workspace.savePlan(planFor(s, 2.0));
            QVERIFY(workspace.flush());
            workspace.setLabel(other, "slow", "reshards twice");  // a plan already on disk
            QVERIFY(workspace.flush());
        }
        Workspace workspace = opened(path);
        QCOMPARE(workspace.plan(1)->label, std::string("baseline"));
        QCOMPARE(workspace.plan(1)->note, std::string("the plan to beat"));
        QCOMPARE(workspace.plan(2)->label, std::string("slow"));
        QCOMPARE(workspace.plan(2)->note, std::string("reshards twice"));
    }

    void nodesAreUpsertedAndBrowsedByParent() {
        const std::string path = file("tree.shardscope");
        {
            Workspace workspace = created(path);
            const auto s = sessionOf(workspace);
            const auto other = sessionOf(workspace, "other");
            workspace.setFlushInterval(std::chrono::hours(1));
            workspace.saveNodes(
                s, {{0, -1, "", 1, 0.5, 0.5, 0, ""},
                    {3, 0, R"({"shard": "batch", "axis": "data"})", 1, 0.5, 0.5, 0, ""},
                    {1, 0, R"({"shard": "hidden", "axis": "model"})", 0, 0, 0, 0, "infeasible"}});
            workspace.saveNodes(s, {{0, -1, "", 2, 1.25, 0.75, 0, ""}});  // replaces the queued root
            QVERIFY(workspace.flush());
            workspace.saveNodes(s, {{3, 0, R"({"shard": "batch", "axis": "data"})", 5, 3.5, 0.9, 1, ""},
                                    {7, 3, "replicate", 1, 0.9, 0.9, 1, "duplicate of node 3"}});
            workspace.saveNodes(other, {{0, -1, "", 1, 0, 0, 0, ""}});
            QVERIFY(workspace.flush());
        }
        Workspace workspace = opened(path);
        QCOMPARE(workspace.nodeCount(1), 4);
        QCOMPARE(workspace.nodeCount(2), 1);
        QCOMPARE(workspace.nodeCount(3), 0);
        QCOMPARE(*workspace.node(1, 0), (TreeNodeRecord{0, -1, "", 2, 1.25, 0.75, 0, ""}));
        QCOMPARE(*workspace.node(1, 3),
                 (TreeNodeRecord{3, 0, R"({"shard": "batch", "axis": "data"})", 5, 3.5, 0.9, 1, ""}));
        QVERIFY(!workspace.node(1, 4));
        QCOMPARE(idsOf(workspace.children(1, -1)), (std::vector<std::int64_t>{0}));
        QCOMPARE(idsOf(workspace.children(1, 0)), (std::vector<std::int64_t>{1, 3}));
        QCOMPARE(workspace.children(1, 0)[0].status, std::string("infeasible"));
        QCOMPARE(idsOf(workspace.children(1, 3)), (std::vector<std::int64_t>{7}));
        QVERIFY(workspace.children(1, 7).empty());
    }

    void changesForUnknownSessionsAndPlansAreReported() {
        Workspace workspace = created(file("unknown.shardscope"));
        const auto s = sessionOf(workspace);
        QCOMPARE(workspace.savePlan(planFor(99, 1.0)), 1);
        workspace.saveNodes(99, {{0, -1, "", 1, 0, 0, 0, ""}, {1, 0, "", 1, 0, 0, 0, ""}});
        workspace.setLabel(42, "lost", "");
        workspace.savePlan(planFor(s, 1.0));
        const Status flushed = workspace.flush();
        QVERIFY(!flushed);
        std::vector<std::string> messages;
        for (const auto& d : flushed.diagnostics())
            messages.push_back(d.message);
        QCOMPARE(messages, (std::vector<std::string>{
                               "plan 1 was not saved: this workspace has no session 99",
                               "2 tree nodes were not saved: this workspace has no session 99",
                               "the label of plan 42 was not saved: this workspace has no plan 42"}));
        QCOMPARE(idsOf(workspace.plans(s)), (std::vector<std::int64_t>{2}));  // the good change was written
        QVERIFY(workspace.flush());                                           // reported once
    }

    // --- refusals ---

    void createRefusesAnExistingFile() {
        const std::string path = file("exists.shardscope");
        writeFile(path, "precious");
        auto workspace = Workspace::create(path, {"zoo:demo", {}, {}, "{}"});
        QVERIFY(!workspace);
        QCOMPARE(firstMessage(workspace.diagnostics()), "'" + path + "' already exists");
        QCOMPARE(readFile(path), std::string("precious"));
    }

    void openRefusesAMissingFile() {
        const std::string path = file("missing.shardscope");
        auto workspace = Workspace::open(path);
        QVERIFY(!workspace);
        QCOMPARE(firstMessage(workspace.diagnostics()), "'" + path + "' does not exist");
        QVERIFY(!QFile::exists(QString::fromStdString(path)));
    }

    void openRefusesAForeignSqliteFile() {
        const std::string path = file("notes.sqlite");
        sqlite(path, "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('keep me')");
        const std::string before = readFile(path);
        auto workspace = Workspace::open(path);
        QVERIFY(!workspace);
        QCOMPARE(firstMessage(workspace.diagnostics()), "'" + path + "' is not a Shardscope workspace");
        QCOMPARE(readFile(path), before);  // not switched to WAL, not stamped
        QCOMPARE(sqlite(path, "PRAGMA journal_mode"), std::vector<std::string>{"delete"});
    }

    void openRefusesAFileThatIsNotSqlite() {
        for (const std::string& text :
             {std::string("{\"format\": \"shardscope-plan\"}\n"), std::string(5000, 'x'), std::string()}) {
            const std::string path = file("text.shardscope");
            writeFile(path, text);
            auto workspace = Workspace::open(path);
            QVERIFY(!workspace);
            QVERIFY(firstMessage(workspace.diagnostics())
                        .rfind("'" + path + "' is not a Shardscope workspace", 0) == 0);
            QCOMPARE(readFile(path), text);
        }
    }

    void openRefusesAFileStampedButNeverFilled() {
        const std::string path = file("version0.shardscope");
        sqlite(path, "PRAGMA application_id = 1397248835; CREATE TABLE t (x)");
        auto workspace = Workspace::open(path);
        QVERIFY(!workspace);
        QCOMPARE(firstMessage(workspace.diagnostics()), "'" + path + "' is not a Shardscope workspace");
    }

    void openRefusesANewerWorkspace() {
        const std::string path = file("newer.shardscope");
        created(path);
        sqlite(path, "PRAGMA user_version = 7");
        auto workspace = Workspace::open(path);
        QVERIFY(!workspace);
        QCOMPARE(
            firstMessage(workspace.diagnostics()),
            "'" + path + "' was written by a newer Shardscope (workspace version 7; this one reads up to 2)");
        QCOMPARE(workspace.diagnostics().front().code, std::string("workspace.newer"));
    }

    void openRefusesATruncatedOrCorruptedWorkspace() {
        const std::string path = file("whole.shardscope");
        std::mt19937 random(11);
        std::string bytes;
        for (int i = 0; i < 2 << 20; ++i)
            bytes += static_cast<char>(random() & 0xff);
        {
            Workspace workspace = created(path, {"/models/random.bin", bytes, {}, "{}"});
            const auto s = sessionOf(workspace);
            for (int i = 0; i < 50; ++i)
                workspace.savePlan(planFor(s, i));
            workspace.saveNodes(s, {{0, -1, "", 1, 0, 0, 0, ""}});
        }
        const std::string whole = readFile(path);
        // Cut in half, the last page cut off, a page of the plans overwritten with noise (the size stays
        // right: PRAGMA quick_check finds it).
        std::string noisy = whole;
        for (std::size_t i = whole.size() - 3 * 4096; i < whole.size() - 2 * 4096; ++i)
            noisy[i] = static_cast<char>(random() & 0xff);
        for (const std::string& damaged :
             {whole.substr(0, whole.size() / 2), whole.substr(0, whole.size() - 4096), noisy}) {
            const std::string copy = file("damaged.shardscope");
            QFile::remove(QString::fromStdString(copy));
            writeFile(copy, damaged);
            auto workspace = Workspace::open(copy);
            QVERIFY(!workspace);
            QCOMPARE(firstMessage(workspace.diagnostics()),
                     "'" + copy + "' is damaged (truncated or corrupted) and cannot be opened" +
                         "; it is left as it was (restore a copy, or start a new workspace from the model)");
            QCOMPARE(workspace.diagnostics().size(), 2u);  // and a note with SQLite's report
            QCOMPARE(workspace.diagnostics()[1].severity, Severity::Note);
            QVERIFY(!workspace.diagnostics()[1].message.empty());
        }
    }

    void openRefusesAModelThatDoesNotMatchItsHash() {
        const std::string path = file("hash.shardscope");
        created(path, {"/models/m.bin", std::string(1000, 'm'), {}, "{}"});
        sqlite(path, "UPDATE model SET sha256 = '" + std::string(64, '0') + "'");
        auto workspace = Workspace::open(path);
        QVERIFY(!workspace);
        QCOMPARE(firstMessage(workspace.diagnostics()),
                 "'" + path + "' is damaged: the model's bytes do not match their SHA-256" +
                     "; it is left as it was (restore a copy, or start a new workspace from the model)");

        sqlite(path, "UPDATE model_chunk SET data = x'78da0102'");
        workspace = Workspace::open(path);
        QVERIFY(!workspace);
        QCOMPARE(firstMessage(workspace.diagnostics()),
                 "'" + path + "' is damaged: the model's bytes cannot be decompressed" +
                     "; it is left as it was (restore a copy, or start a new workspace from the model)");
    }

    // --- threads, crashes, full disks ---

    void severalThreadsSaveAtOnce() {
        Workspace workspace = created(file("threads.shardscope"));
        const auto s = sessionOf(workspace);
        workspace.setFlushInterval(std::chrono::milliseconds(2));
        constexpr int kThreads = 4, kEach = 250;
        std::atomic<bool> writing{true};
        std::thread reader([&] {
            while (writing) {
                (void)workspace.plans(s, PlanContent::Summary);
                (void)workspace.children(s, 0);
            }
        });
        std::vector<std::thread> searchers;
        std::vector<std::vector<std::int64_t>> given(kThreads);
        for (int t = 0; t < kThreads; ++t)
            searchers.emplace_back([&, t] {
                for (int i = 0; i < kEach; ++i) {
                    PlanRecord p = planFor(s, t * 1000 + i);
                    p.iteration = t * 1000 + i;
                    const auto id = workspace.savePlan(p);
                    given[t].push_back(id);
                    workspace.saveNodes(
                        s, {{t * 1000 + i + 1, 0, "thread " + std::to_string(t), 1, 1, 1, id, ""},
                            {0, -1, "", t * 1000 + i, 0, 0, 0, ""}});
                    if (i % 50 == 0)
                        workspace.setLabel(id, "thread " + std::to_string(t), "");
                }
            });
        for (auto& t : searchers)
            t.join();
        QVERIFY(workspace.flush());
        writing = false;
        reader.join();

        const auto plans = workspace.plans(s);
        QCOMPARE(plans.size(), std::size_t{kThreads * kEach});
        std::vector<std::int64_t> all;
        for (int id = 1; id <= kThreads * kEach; ++id)
            all.push_back(id);
        QCOMPARE(idsOf(plans), all);
        std::set<std::int64_t> ids;
        for (const auto& g : given)
            ids.insert(g.begin(), g.end());
        QCOMPARE(ids.size(), std::size_t{kThreads * kEach});
        for (const auto& p : plans)
            QCOMPARE(p.stepTime, double(p.iteration));  // each id kept its own plan
        for (int t = 0; t < kThreads; ++t)
            QCOMPARE(workspace.plan(given[t][50])->label, "thread " + std::to_string(t));
        QCOMPARE(workspace.nodeCount(s), kThreads * kEach + 1);
        QCOMPARE(workspace.children(s, 0).size(), std::size_t{kThreads * kEach});
    }

    void aKilledWriterLeavesASoundFileWithEveryFlushedPlan() {
        const std::string path = file("killed.shardscope");
        QProcess writer;
        writer.start(shardscope::testing::workspaceWriterPath(), {QString::fromStdString(path)});
        QVERIFY(writer.waitForStarted());
        long long flushed = 0;
        int lines = 0;
        auto readLines = [&] {
            while (writer.canReadLine()) {
                const QString line = QString::fromUtf8(writer.readLine()).trimmed();
                QVERIFY2(line.startsWith("flushed "), qPrintable(line));
                flushed = line.mid(8).toLongLong();
                ++lines;
            }
        };
        QElapsedTimer timer;
        timer.start();
        while (lines < 8 && timer.elapsed() < 20000 && writer.state() == QProcess::Running) {
            writer.waitForReadyRead(100);
            readLines();
        }
        QVERIFY2(lines >= 8, qPrintable(writer.readAllStandardError()));
        writer.kill();  // SIGKILL: most likely in the middle of a transaction
        QVERIFY(writer.waitForFinished());
        QCOMPARE(writer.exitStatus(), QProcess::CrashExit);
        readLines();  // flushes reported before the kill landed

        QCOMPARE(sqlite(path, "PRAGMA integrity_check"), std::vector<std::string>{"ok"});
        Workspace workspace = opened(path);
        QVERIFY2(std::int64_t(workspace.plans(1).size()) >= flushed,
                 qPrintable(QString("%1 plans, %2 flushed").arg(workspace.plans(1).size()).arg(flushed)));
        QVERIFY(workspace.nodeCount(1) >= flushed);
        // The ids the killed writer took and never used are skipped: a new plan's id follows every saved one.
        const std::int64_t id = workspace.savePlan(planFor(1, 1.0));
        QVERIFY2(id > workspace.plans(1).back().id, qPrintable(QString::number(id)));
        QVERIFY(workspace.flush());
        QCOMPARE(workspace.plan(id)->stepTime, 1.0);
    }

    // Plans queued while no block of ids can be taken (the disk is full from the first save) are kept and get
    // their ids once they are written.
    void aPlanSavedBeforeAnyIdCanBeTakenGetsOneWhenWritten() {
        const std::string path = file("no-ids.shardscope");
        FullDisk disk;
        Workspace workspace = created(path);
        const auto s = sessionOf(workspace);
        workspace.setFlushInterval(std::chrono::hours(1));
        FullDisk::full = true;
        QCOMPARE(workspace.savePlan(planFor(s, 5.0)), 0);
        QVERIFY(!workspace.flush());
        FullDisk::full = false;
        QVERIFY(workspace.flush());
        QCOMPARE(idsOf(workspace.plans(s)), (std::vector<std::int64_t>{1}));
        QCOMPARE(workspace.savePlan(planFor(s, 6.0)), 2);
        QVERIFY(workspace.flush());
    }

    // --- several writers of one file ---

    // Two Workspaces on one file (two connections and writer threads, as two processes have): each adds a
    // session and saves plans, nodes and labels from several threads; both keep everything, no id is given
    // twice, and each labels the other's plans.
    void twoWritersOfOneFileKeepEverything() {
        const std::string path = file("two-writers.shardscope");
        created(path);
        Workspace first = opened(path), second = opened(path);
        constexpr int kEach = 150;
        std::vector<std::int64_t> ids[2];
        std::int64_t sessions[2] = {sessionOf(first, "first"), sessionOf(second, "second")};
        QCOMPARE(sessions[0], 1);
        QCOMPARE(sessions[1], 2);
        std::thread writers[2];
        for (int w = 0; w < 2; ++w) {
            Workspace& workspace = w == 0 ? first : second;
            workspace.setFlushInterval(std::chrono::milliseconds(1));
            writers[w] = std::thread([&, w] {
                for (int i = 0; i < kEach; ++i) {
                    PlanRecord p = planFor(sessions[w], w * 1000 + i);
                    p.iteration = w * 1000 + i;
                    const auto id = workspace.savePlan(p);
                    ids[w].push_back(id);
                    workspace.saveNodes(sessions[w],
                                        {{i + 1, 0, "node", 1, 1, 1, id, ""}, {0, -1, "", i, 0, 0, id, ""}});
                }
            });
        }
        for (auto& t : writers)
            t.join();
        QVERIFY(first.flush());
        QVERIFY(second.flush());
        first.setLabel(ids[1][7], "seen by the first", "");
        second.setLabel(ids[0][7], "seen by the second", "");
        QVERIFY(first.flush());
        QVERIFY(second.flush());

        std::set<std::int64_t> all;
        for (int w = 0; w < 2; ++w) {
            all.insert(ids[w].begin(), ids[w].end());
            const auto plans = first.plans(sessions[w]);
            QCOMPARE(plans.size(), std::size_t{kEach});
            for (const auto& p : plans)
                QCOMPARE(p.stepTime, double(p.iteration));
            QCOMPARE(second.nodeCount(sessions[w]), kEach + 1);
        }
        QCOMPARE(all.size(), std::size_t{2 * kEach});
        QVERIFY(!all.contains(0));
        QCOMPARE(first.plan(ids[0][7])->label, std::string("seen by the second"));
        QCOMPARE(second.plan(ids[1][7])->label, std::string("seen by the first"));
    }

    // Several threads create one file at once: one wins, the others are told it exists, and the winner's file
    // is whole and left alone; nothing is left beside it.
    void onlyOneCreateWinsARace() {
        const std::string path = file("race.shardscope");
        constexpr int kRacers = 6;
        std::atomic<int> ready{0};
        std::vector<std::string> outcomes(kRacers);
        std::vector<std::thread> racers;
        for (int r = 0; r < kRacers; ++r)
            racers.emplace_back([&, r] {
                ++ready;
                while (ready < kRacers) {
                }
                auto made = Workspace::create(path, {"zoo:racer" + std::to_string(r), {}, {}, "{}"});
                outcomes[r] =
                    made ? "won" : made.diagnostics().front().code + " " + firstMessage(made.diagnostics());
            });
        for (auto& t : racers)
            t.join();
        int winners = 0;
        std::string winner;
        for (int r = 0; r < kRacers; ++r) {
            if (outcomes[r] == "won") {
                ++winners;
                winner = "zoo:racer" + std::to_string(r);
            } else {
                QCOMPARE(outcomes[r], "workspace.exists '" + path + "' already exists");
            }
        }
        QCOMPARE(winners, 1);
        QCOMPARE(opened(path).model().source, winner);
        QCOMPARE(QDir(dir_.path()).entryList({"race.shardscope*"}, QDir::Files),
                 QStringList{"race.shardscope"});
    }

    void openOrCreateOpensAFileOfTheSameModel() {
        const std::string path = file("open-or-create.shardscope");
        {
            auto made = Workspace::openOrCreate(path, {"zoo:demo", {}, {}, "{}"});
            QVERIFY2(made, made.errorMessage().c_str());
            sessionOf(*made);
        }
        auto again = Workspace::openOrCreate(path, {"zoo:demo", {}, {}, "{}"});
        QVERIFY2(again, again.errorMessage().c_str());
        QCOMPARE(again->sessions().size(), 1u);
        auto other = Workspace::openOrCreate(path, {"zoo:mlp", {}, {}, "{}"});
        QVERIFY(!other);
        QCOMPARE(firstMessage(other.diagnostics()),
                 "'" + path + "' holds the model 'zoo:demo', not 'zoo:mlp'");
        QCOMPARE(other.diagnostics().front().code, std::string("workspace.other-model"));
    }

    // A file an interrupted creation left (an earlier version wrote workspaces in place): refused, named as
    // holding nothing and safe to delete, and left as it is.
    void anUnfinishedFileIsNamedSafeToDelete_data() {
        QTest::addColumn<QString>("sql");
        QTest::addColumn<QString>("what");
        QTest::newRow("empty") << ""
                               << "empty";
        QTest::newRow("header only") << "PRAGMA journal_mode = WAL"
                                     << "an empty SQLite database";
        QTest::newRow("stamped, no tables") << "PRAGMA application_id = 1397248835"
                                            << "an empty SQLite database";
    }
    void anUnfinishedFileIsNamedSafeToDelete() {
        QFETCH(QString, sql);
        QFETCH(QString, what);
        const std::string path = file("unfinished.shardscope");
        QFile::remove(QString::fromStdString(path));
        writeFile(path, "");
        if (!sql.isEmpty())
            sqlite(path, sql.toStdString());
        const std::string before = readFile(path);
        auto workspace = Workspace::open(path);
        QVERIFY(!workspace);
        QCOMPARE(firstMessage(workspace.diagnostics()),
                 "'" + path + "' is not a Shardscope workspace: it is " + what.toStdString() +
                     ", as an interrupted creation leaves it; it holds no work and is safe to delete");
        QCOMPARE(workspace.diagnostics().front().code, std::string("workspace.unfinished"));
        QCOMPARE(readFile(path), before);
    }

    // Only a regular file is a workspace: a FIFO (SQLite would block on it), a directory or a link to a
    // device is refused at once for what it is, by open() and by openOrCreate() (the search's and the
    // explorer's), never called empty or safe to delete.
    void specialFilesAreNotWorkspaces_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("is");
        QTest::newRow("fifo") << "fifo"
                              << "a FIFO (named pipe)";
        QTest::newRow("directory") << "directory"
                                   << "a directory";
        QTest::newRow("link to /dev/zero") << "zero"
                                           << "a character device";
    }
    void specialFilesAreNotWorkspaces() {
        QFETCH(QString, kind);
        QFETCH(QString, is);
        const std::string path = file((kind.toStdString() + ".shardscope").c_str());
        const QString qpath = QString::fromStdString(path);
        if (!QFileInfo::exists(qpath) && !QFileInfo(qpath).isSymLink()) {
            if (kind == "fifo")
                QCOMPARE(::mkfifo(path.c_str(), 0600), 0);
            else if (kind == "directory")
                QVERIFY(QDir().mkpath(qpath));
            else
                QVERIFY(QFile::link("/dev/zero", qpath));
        }
        const std::string expected =
            "'" + path + "' is not a Shardscope workspace: it is " + is.toStdString() + ", not a file";
        auto opened = Workspace::open(path);
        QVERIFY(!opened);
        QCOMPARE(firstMessage(opened.diagnostics()), expected);
        QCOMPARE(opened.diagnostics().front().code, std::string("workspace.not-regular"));
        auto either = Workspace::openOrCreate(path, ModelRecord{"zoo:demo", "", "", "{}"});
        QVERIFY(!either);
        QCOMPARE(firstMessage(either.diagnostics()), expected);
    }

    // The file a create() killed before renaming left beside the workspace is named for what it is.
    void aBuildingFileLeftByAKillIsNamedSafeToDelete() {
        const std::string path = file("left.shardscope.creating-Ab12Cd");
        writeFile(path, std::string(5000, 'x'));
        auto workspace = Workspace::open(path);
        QVERIFY(!workspace);
        QCOMPARE(
            firstMessage(workspace.diagnostics()),
            "'" + path + "' is not a Shardscope workspace: it is the file '" + file("left.shardscope") +
                "' was being built in, left by a process that ended before giving it that name; it holds no "
                "work and is safe to delete");
        QCOMPARE(readFile(path), std::string(5000, 'x'));
    }

    // Opening a workspace that does not exist names the building files a killed creation left beside it (safe
    // to delete), but not one a live process is building in (create() holds a lock on it); that one says so
    // itself.
    void aMissingWorkspaceNamesWhatAKilledCreationLeft() {
        const std::string path = file("interrupted.shardscope");
        QCOMPARE(firstMessage(Workspace::open(path).diagnostics()), "'" + path + "' does not exist");
        const std::string left = path + ".creating-Ab12Cd", building = path + ".creating-Zz99Yy";
        writeFile(left, "");
        writeFile(building, std::string(5000, 'x'));
        writeFile(path + ".creating-Ab12Cd-wal", "");  // not a building file
        const int fd = ::open(building.c_str(), O_RDONLY | O_CLOEXEC);
        QVERIFY(fd >= 0);
        QCOMPARE(::flock(fd, LOCK_EX | LOCK_NB), 0);  // as create() holds it
        const std::string safe =
            " beside it: left by an interrupted creation of it, holding no work and safe to delete)";
        QCOMPARE(firstMessage(Workspace::open(path).diagnostics()),
                 "'" + path + "' does not exist ('" + left + "'" + safe);
        QCOMPARE(firstMessage(Workspace::open(building).diagnostics()),
                 "'" + building + "' is not a Shardscope workspace yet: it is the file '" + path +
                     "' is being built in by another process");
        ::close(fd);
        QCOMPARE(firstMessage(Workspace::open(path).diagnostics()),
                 "'" + path + "' does not exist ('" + left + "', '" + building + "'" + safe);
    }

    // A version 1 file (plan ids from max(id) + 1) is migrated on open, once even when two open it at once,
    // and its plan ids continue.
    void aVersionOneFileIsMigratedOnce() {
        const std::string path = file("version1.shardscope");
        {
            Workspace workspace = created(path);
            const auto s = sessionOf(workspace);
            for (int i = 0; i < 3; ++i)
                workspace.savePlan(planFor(s, i));
        }
        sqlite(path, "DROP TABLE plan_ids; PRAGMA user_version = 1");
        std::optional<Workspace> a, b;
        std::thread opener([&] { a.emplace(opened(path)); });
        b.emplace(opened(path));
        opener.join();
        QCOMPARE(sqlite(path, "PRAGMA user_version"), std::vector<std::string>{"2"});
        QCOMPARE(a->savePlan(planFor(1, 9.0)), 4);
        QVERIFY(a->flush());
        QVERIFY(b->savePlan(planFor(1, 10.0)) > 4);
        QVERIFY(b->flush());
        QCOMPARE(b->plans(1).size(), 5u);
    }

    void aFullDiskFailsTheFlushAndLosesNothing() {
        const std::string path = file("full.shardscope");
        FullDisk disk;
        {
            Workspace workspace = created(path);
            const auto s = sessionOf(workspace);
            workspace.setFlushInterval(std::chrono::hours(1));
            const auto first = workspace.savePlan(planFor(s, 1.0));
            QVERIFY(workspace.flush());

            FullDisk::full = true;
            const auto second = workspace.savePlan(planFor(s, 2.0));
            workspace.savePlan(planFor(s, 3.0));
            workspace.saveNodes(s, {{0, -1, "", 1, 0, 0, 0, ""}, {1, 0, "shard", 1, 0, 0, second, ""}});
            workspace.setLabel(first, "baseline", "before the disk filled");
            Status flushed = workspace.flush();
            QVERIFY(!flushed);
            QCOMPARE(flushed.diagnostics().front().code, std::string("workspace.disk-full"));
            QCOMPARE(
                firstMessage(flushed.diagnostics()),
                "cannot save to '" + path +
                    "': the disk is full; 5 unsaved changes are kept and will be written once there is room");
            QCOMPARE(workspace.plans(s).size(), 1u);  // reading still works

            auto session = workspace.addSession("more", "{}");
            QVERIFY(!session);
            QCOMPARE(firstMessage(session.diagnostics()), "cannot save to '" + path + "': the disk is full");

            workspace.setLabel(second, "fast", "");
            flushed = workspace.flush();  // still full: the new change joins the kept ones
            QCOMPARE(
                firstMessage(flushed.diagnostics()),
                "cannot save to '" + path +
                    "': the disk is full; 6 unsaved changes are kept and will be written once there is room");

            FullDisk::full = false;
            QVERIFY(workspace.flush());
            QCOMPARE(idsOf(workspace.plans(s)), (std::vector<std::int64_t>{1, 2, 3}));
            QCOMPARE(workspace.plan(first)->label, std::string("baseline"));
            QCOMPARE(workspace.plan(second)->label, std::string("fast"));
            QCOMPARE(workspace.nodeCount(s), 2);
            QCOMPARE(*workspace.addSession("more", "{}"), 2);
        }
        QCOMPARE(sqlite(path, "PRAGMA integrity_check"), std::vector<std::string>{"ok"});
    }
};

QTEST_GUILESS_MAIN(TestWorkspace)
#include "tst_workspace.moc"
