// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Workspaces under concurrency and kills, through shardscope-cli as users run it (issue 24):
//   - two `search zoo:demo --budget 300it --workspace W` at once, W new: both end 0, W holds both sessions
//   and all
//     of each one's plans and tree nodes (the second to create W opens the first's file; nothing deletes it);
//   - the same into a W that exists: both keep everything (plan ids come from the file);
//   - a search killed (SIGKILL) at a random moment while it creates W: W does not exist or opens, nothing
//     half-made is ever left at W, and the next search into W succeeds;
//   - a file an interrupted creation of an earlier version left (empty, or SQLite without tables) is refused
//   with
//     a message saying it holds no work and is safe to delete, and left as it is.
// Each round is repeated SHARDSCOPE_CONCURRENCY_ROUNDS times (default 5; the `slow` test runs 50) and the
// counts are printed.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <random>
#include <thread>

#include "sqlite_support.h"
#include "test_paths.h"

namespace {

const QStringList kSearch = {"search", "zoo:demo", "--budget", "300it", "--json", "--workspace"};

int rounds() {
    const int n = qEnvironmentVariableIntValue("SHARDSCOPE_CONCURRENCY_ROUNDS");
    return n > 0 ? n : 5;
}

struct Run {
    int exitCode = -1;
    QByteArray out, err;
};

Run finish(QProcess& process) {
    if (!process.waitForFinished(120000))
        qFatal("shardscope-cli did not finish");
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            process.readAllStandardOutput(), process.readAllStandardError()};
}

Run cli(const QStringList& arguments) {
    QProcess process;
    process.start(shardscope::testing::cliPath(), arguments);
    return finish(process);
}

// Two searches into `path`, started together.
std::pair<Run, Run> twoSearches(const QString& path) {
    QProcess a, b;
    a.start(shardscope::testing::cliPath(), kSearch + QStringList{path});
    b.start(shardscope::testing::cliPath(), kSearch + QStringList{path});
    return {finish(a), finish(b)};
}

using shardscope::testing::sqlite;

// What one search saved: its session's plans and tree nodes.
struct Saved {
    int plans = 0, nodes = 0;
    friend bool operator==(const Saved&, const Saved&) = default;
};

Saved savedBy(const QString& path, qint64 session) {
    const QString id = QString::number(session);
    return {sqlite(path, "SELECT count(*) FROM plan WHERE session = " + id).value(0).toInt(),
            sqlite(path, "SELECT count(*) FROM tree_node WHERE session = " + id).value(0).toInt()};
}

// The session a search reported (`--json`), after checking it says it saved everything.
qint64 sessionOf(const Run& run) {
    const QJsonObject workspace = QJsonDocument::fromJson(run.out).object().value("workspace").toObject();
    if (!workspace.value("saved").toBool())
        qFatal("the search did not say it saved: %s", run.out.constData());
    return workspace.value("session").toInteger();
}

}  // namespace

class TestWorkspaceConcurrency : public QObject {
    Q_OBJECT
private:
    QTemporaryDir dir_;
    Saved expected_;         // what one search saves alone
    qint64 searchMs_ = 100;  // how long it takes, start to end

    QString file(const QString& name) const { return dir_.filePath(name); }

    // The files of `dir_` whose names start with `prefix`.
    QStringList filesOf(const QString& prefix) const {
        return QDir(dir_.path()).entryList({prefix + "*"}, QDir::Files | QDir::Hidden, QDir::Name);
    }

    // Both runs ended 0, reported two sessions, and each session holds what a search alone saves.
    void checkBothKeptEverything(const QString& path, const Run& a, const Run& b, QSet<qint64>& sessions) {
        QVERIFY2(a.exitCode == 0, a.err.constData());
        QVERIFY2(b.exitCode == 0, b.err.constData());
        const qint64 first = sessionOf(a), second = sessionOf(b);
        QVERIFY(first != second);
        for (qint64 session : {first, second}) {
            QVERIFY(!sessions.contains(session));
            sessions.insert(session);
            const Saved saved = savedBy(path, session);
            QVERIFY2(saved == expected_,
                     qPrintable(QString("session %1 holds %2 plans and %3 nodes, not %4 and %5")
                                    .arg(session)
                                    .arg(saved.plans)
                                    .arg(saved.nodes)
                                    .arg(expected_.plans)
                                    .arg(expected_.nodes)));
        }
        QCOMPARE(sqlite(path, "PRAGMA integrity_check"), QStringList{"ok"});
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // One search alone (one thread, an iteration budget: deterministic) is what each concurrent one must
        // keep.
        const QString alone = file("alone.shardscope");
        QElapsedTimer timer;
        timer.start();
        const Run r = cli(kSearch + QStringList{alone});
        searchMs_ = std::max<qint64>(10, timer.elapsed());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        expected_ = savedBy(alone, sessionOf(r));
        QVERIFY(expected_.plans > 5 && expected_.nodes > 100);
        qInfo("one search saves %d plans and %d tree nodes; %d rounds", expected_.plans, expected_.nodes,
              rounds());
    }

    // Two searches create one new workspace at once.
    void twoSearchesCreateOneWorkspace() {
        QElapsedTimer timer;
        timer.start();
        for (int round = 0; round < rounds(); ++round) {
            const QString path = file(QString("new-%1.shardscope").arg(round));
            const auto [a, b] = twoSearches(path);
            QSet<qint64> sessions;
            checkBothKeptEverything(path, a, b, sessions);
            if (QTest::currentTestFailed()) {
                qWarning("round %d", round);
                return;
            }
            QCOMPARE(sessions, (QSet<qint64>{1, 2}));
            // Nothing but the workspace and SQLite's log (left when both close at once; the next open reads
            // it).
            const QString name = QString("new-%1.shardscope").arg(round);
            for (const QString& f : filesOf(name))
                QVERIFY2(f == name || f == name + "-wal" || f == name + "-shm", qPrintable(f));
        }
        qInfo("%d rounds of two searches creating one workspace: none lost anything (%lld ms)", rounds(),
              static_cast<long long>(timer.elapsed()));
    }

    // Two searches append to one workspace at once, round after round.
    void twoSearchesAppendToOneWorkspace() {
        const QString path = file("shared.shardscope");
        const Run first = cli(kSearch + QStringList{path});
        QVERIFY2(first.exitCode == 0, first.err.constData());
        QSet<qint64> sessions{sessionOf(first)};
        QElapsedTimer timer;
        timer.start();
        for (int round = 0; round < rounds(); ++round) {
            const auto [a, b] = twoSearches(path);
            checkBothKeptEverything(path, a, b, sessions);
            if (QTest::currentTestFailed()) {
                qWarning("round %d", round);
                return;
            }
        }
        QCOMPARE(sqlite(path, "SELECT count(*) FROM session").value(0).toInt(), 1 + 2 * rounds());
        QCOMPARE(sqlite(path, "SELECT count(*) FROM plan").value(0).toInt(),
                 (1 + 2 * rounds()) * expected_.plans);
        qInfo(
            "%d rounds of two searches appending to one workspace: %d sessions, none lost anything (%lld ms)",
            rounds(), 1 + 2 * rounds(), static_cast<long long>(timer.elapsed()));
    }

    // A search killed at a random moment while it creates its workspace never leaves a half-made file at W: W
    // does not exist, or it opens; the next search into W succeeds either way.
    void aSearchKilledWhileCreatingLeavesNothingHalfMade() {
        std::mt19937 random(24);
        int before = 0, during = 0, opened = 0, finished = 0;
        const int kills = 4 * rounds();
        for (int i = 0; i < kills; ++i) {
            const QString name = QString("killed-%1.shardscope").arg(i);
            const QString path = file(name);
            QProcess search;
            search.start(shardscope::testing::cliPath(), kSearch + QStringList{path});
            QVERIFY(search.waitForStarted());
            // Spread over the search's life (the workspace is made once the model is loaded, then filled).
            std::this_thread::sleep_for(std::chrono::microseconds(random() % (searchMs_ * 1000)));
            const bool running = search.state() == QProcess::Running;
            search.kill();
            search.waitForFinished();
            if (!running) {
                ++finished;
            } else if (!QFile::exists(path)) {
                ++(filesOf(name + ".creating-").isEmpty() ? before : during);
            } else {
                ++opened;
                const Run plans = cli({"plans", path});
                QVERIFY2(plans.exitCode == 0, plans.err.constData());
            }
            if (QFile::exists(path))
                QVERIFY(QFileInfo(path).size() > 0);
            // Beside W, at most the file a killed creation was building, under its own name, which every
            // command names as safe to delete.
            for (const QString& f : filesOf(name)) {
                QVERIFY2(f == name || f.startsWith(name + ".creating-") || f == name + "-wal" ||
                             f == name + "-shm",
                         qPrintable(f));
                if (f.startsWith(name + ".creating-") && !f.endsWith("-wal") && !f.endsWith("-shm")) {
                    const Run leftover = cli({"plans", file(f)});
                    QCOMPARE(leftover.exitCode, 1);
                    QVERIFY2(leftover.err.contains("it holds no work and is safe to delete"),
                             leftover.err.constData());
                }
            }
            const Run again = cli(kSearch + QStringList{path});
            QVERIFY2(again.exitCode == 0, again.err.constData());
        }
        qInfo(
            "%d kills: %d before the workspace was begun, %d while it was built, %d after (it opened), %d "
            "after the "
            "search ended",
            kills, before, during, opened, finished);
    }

    // What an interrupted creation of an earlier version left at W (it wrote in place): refused by search and
    // plans with the same message, which says it may go, and left as it was.
    void aHalfCreatedFileIsNamedSafeToDelete() {
        for (const char* kind : {"empty", "header"}) {
            const QString path = file(QString("half-%1.shardscope").arg(kind));
            {
                QFile f(path);
                QVERIFY(f.open(QIODevice::WriteOnly));
            }
            QString what = "empty";
            if (QString(kind) == "header") {
                sqlite3* db = nullptr;
                QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
                QCOMPARE(sqlite3_exec(db, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr), SQLITE_OK);
                sqlite3_close(db);
                what = "an empty SQLite database";
            }
            const QByteArray before = [&] {
                QFile f(path);
                return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
            }();
            const QString line =
                "shardscope-cli: error: '" + path + "' is not a Shardscope workspace: it is " + what +
                ", as an interrupted creation leaves it; it holds no work and is safe to delete "
                "[workspace.unfinished]";
            for (const QStringList& arguments : {kSearch + QStringList{path}, QStringList{"plans", path}}) {
                const Run r = cli(arguments);
                QCOMPARE(r.exitCode, 1);
                QCOMPARE(QString::fromUtf8(r.err).trimmed(), line);
            }
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QCOMPARE(f.readAll(), before);
        }
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceConcurrency)
#include "tst_workspace_concurrency.moc"
