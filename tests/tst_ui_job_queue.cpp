// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// JobQueue, Mailbox and LatestJob (ui/core/job_queue.h): the explorer's one way of running work off the GUI
// thread, and its "only the newest request reports" rule. Also run under ThreadSanitizer (.ci/sanitizers
// thread), where every hand-off here must be seen as synchronised.
#include <QPointer>
#include <QSignalSpy>
#include <QThread>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "core/job_queue.h"

using namespace shardscope::ui;
using namespace std::chrono_literals;

namespace {
constexpr int kTimeoutMs = 10000;

// Holds the queue's thread until release(): lets a test queue requests behind a job that is known to run.
class Gate {
public:
    void wait() {
        entered_ = true;
        while (!open_)
            std::this_thread::sleep_for(1ms);
    }
    bool entered() const { return entered_; }
    void release() { open_ = true; }

private:
    std::atomic<bool> entered_{false}, open_{false};
};

// An owner as the explorer's models are: a queue, and a LatestJob on it declared after it.
struct Owner {
    JobQueue jobs{"test owner"};
    LatestJob latest{jobs};
};
}  // namespace

class TestUiJobQueue : public QObject {
    Q_OBJECT

private slots:
    // Jobs run one at a time, in order, off the GUI thread; their results arrive on the GUI thread, in order.
    void jobsRunInOrderAndResultsComeBackOnTheCreatingThread() {
        JobQueue jobs("test jobs");
        std::vector<int> done;  // GUI thread only
        std::atomic<int> running{0}, mostAtOnce{0};
        QThread* const gui = QThread::currentThread();
        std::vector<QThread*> ranOn(20, nullptr);  // each slot written by its job, read after its result came
        for (int i = 0; i < 20; ++i)
            jobs.run(
                [&, i] {
                    mostAtOnce = std::max(mostAtOnce.load(), ++running);
                    ranOn[i] = QThread::currentThread();
                    std::this_thread::sleep_for(1ms);
                    --running;
                    return i * i;
                },
                [&, i](int square) {
                    QCOMPARE(QThread::currentThread(), gui);
                    QCOMPARE(square, i * i);
                    QVERIFY(ranOn[i] != gui);
                    done.push_back(i);
                });
        QVERIFY(QTest::qWaitFor([&] { return done.size() == 20; }, kTimeoutMs));
        for (int i = 0; i < 20; ++i)
            QCOMPARE(done[i], i);
        QCOMPARE(mostAtOnce.load(), 1);
    }

    // A job may post several times (a table that fills in stages); the letters keep their order.
    void postsFromAJobArriveInOrder() {
        JobQueue jobs("test posts");
        std::vector<int> seen;
        jobs.run([&] {
            for (int i = 0; i < 100; ++i)
                jobs.post([&seen, i] { seen.push_back(i); });
        });
        QVERIFY(QTest::qWaitFor([&] { return seen.size() == 100; }, kTimeoutMs));
        for (int i = 0; i < 100; ++i)
            QCOMPARE(seen[i], i);
    }

    // Destroying the queue waits for the running job, drops the queued ones and delivers nothing more.
    void destructionWaitsForTheRunningJobAndDropsTheRest() {
        std::atomic<int> started{0}, finished{0};
        int delivered = 0;
        {
            JobQueue jobs("test drop");
            for (int i = 0; i < 5; ++i)
                jobs.run(
                    [&] {
                        ++started;
                        std::this_thread::sleep_for(50ms);
                        ++finished;
                        return 0;
                    },
                    [&](int) { ++delivered; });
            QVERIFY(QTest::qWaitFor([&] { return started.load() == 1; }, kTimeoutMs));
        }
        QCOMPARE(started.load(), 1);
        QCOMPARE(finished.load(), 1);  // the job under way ended before the queue did
        QTest::qWait(100);
        QCOMPARE(delivered, 0);
    }

    // A letter that destroys the mailbox's owner ends the delivery: later letters of the batch are dropped.
    void aLetterMayDestroyItsMailbox() {
        auto* mailbox = new Mailbox;
        QPointer<Mailbox> alive(mailbox);
        int after = 0;
        std::thread poster([&] {
            mailbox->post([&] { delete mailbox; });
            mailbox->post([&] { ++after; });
        });
        poster.join();
        QVERIFY(QTest::qWaitFor([&] { return alive.isNull(); }, kTimeoutMs));
        QTest::qWait(20);
        QCOMPARE(after, 0);
    }

    // LatestJob: of requests made while the queue is busy only the newest starts, and only it reports; run()
    // numbers the requests 1, 2, ... and generation() inside done() is the request's.
    void latestJobNewestWins() {
        JobQueue jobs("test latest");
        LatestJob latest(jobs);
        Gate gate;
        jobs.run([&] { gate.wait(); });
        QVERIFY(QTest::qWaitFor([&] { return gate.entered(); }, kTimeoutMs));
        std::atomic<int> started{0};
        std::vector<std::pair<int, std::uint64_t>> done;  // GUI thread only
        for (int i = 1; i <= 5; ++i) {
            const std::uint64_t generation = latest.run(
                [&started, i] {
                    ++started;
                    return i;
                },
                [&](int value) { done.emplace_back(value, latest.generation()); });
            QCOMPARE(generation, std::uint64_t(i));
        }
        QCOMPARE(latest.generation(), std::uint64_t{5});
        gate.release();
        QVERIFY(QTest::qWaitFor([&] { return !done.empty(); }, kTimeoutMs));
        QTest::qWait(50);
        QCOMPARE(started.load(), 1);  // the four superseded ones never ran
        QCOMPARE(done.size(), std::size_t{1});
        QCOMPARE(done[0].first, 5);
        QCOMPARE(done[0].second, std::uint64_t{5});

        // A request that finished before the next one was made reports too; one superseded after it finished
        // (its result on its way) does not.
        bool reported = false;
        latest.run([] { return 1; }, [&](int) { reported = true; });
        QVERIFY(QTest::qWaitFor([&] { return reported; }, kTimeoutMs));
        int late = 0;
        std::atomic<bool> finished{false};
        latest.run(
            [&] {
                finished = true;
                return 1;
            },
            [&](int) { ++late; });
        for (int waited = 0; !finished.load() && waited < kTimeoutMs; ++waited)
            std::this_thread::sleep_for(1ms);  // not QTest::qWait: the event loop must not run
        QVERIFY(finished.load());
        std::this_thread::sleep_for(20ms);  // its result is posted, not delivered
        latest.cancel();
        QTest::qWait(50);
        QCOMPARE(late, 0);
        QCOMPARE(latest.generation(), std::uint64_t{7});  // cancel() does not make a request
    }

    // A newer request takes the place in the queue of the one it supersedes (layouts of several views keep
    // their turns); after cancel() a request queues at the end.
    void latestJobKeepsItsPlaceInTheQueue() {
        JobQueue jobs("test places");
        LatestJob a(jobs), b(jobs);
        std::vector<QString> order;  // GUI thread only
        auto record = [&order](const QString& name) {
            return [&order, name](int) { order.push_back(name); };
        };
        auto work = [] { return 0; };
        Gate gate;
        jobs.run([&gate] { gate.wait(); });
        QVERIFY(QTest::qWaitFor([&] { return gate.entered(); }, kTimeoutMs));
        a.run(work, record(QStringLiteral("a1")));
        b.run(work, record(QStringLiteral("b1")));
        a.run(work, record(QStringLiteral("a2")));  // in a1's place: before b1
        gate.release();
        QVERIFY(QTest::qWaitFor([&] { return order.size() == 2; }, kTimeoutMs));
        QCOMPARE(order, (std::vector<QString>{QStringLiteral("a2"), QStringLiteral("b1")}));

        order.clear();
        Gate again;
        jobs.run([&again] { again.wait(); });
        QVERIFY(QTest::qWaitFor([&] { return again.entered(); }, kTimeoutMs));
        a.run(work, record(QStringLiteral("a3")));
        b.run(work, record(QStringLiteral("b2")));
        a.cancel();
        a.run(work, record(QStringLiteral("a4")));  // a3's place was given up: after b2
        again.release();
        QVERIFY(QTest::qWaitFor([&] { return order.size() == 2; }, kTimeoutMs));
        QCOMPARE(order, (std::vector<QString>{QStringLiteral("b2"), QStringLiteral("a4")}));
    }

    // A running job sees through its token that a newer request came, and stops; the token of a request stays
    // current until then. Work that returns nothing gets done() without an argument.
    void latestJobTokenSaysSuperseded() {
        JobQueue jobs("test token");
        LatestJob latest(jobs);
        std::atomic<bool> running{false}, sawSuperseded{false};
        LatestJob::Token first;
        QVERIFY(first.superseded());  // a default token belongs to no request
        bool firstDone = false, secondDone = false;
        latest.run(
            [&](const LatestJob::Token& token) {
                running = true;
                while (!token.superseded())
                    std::this_thread::sleep_for(1ms);
                sawSuperseded = true;
            },
            [&] { firstDone = true; });
        QVERIFY(QTest::qWaitFor([&] { return running.load(); }, kTimeoutMs));
        QTest::qWait(20);
        QVERIFY(!sawSuperseded.load());
        latest.run([](const LatestJob::Token& token) { return token.generation(); },
                   [&](std::uint64_t generation) {
                       QCOMPARE(generation, std::uint64_t{2});
                       secondDone = true;
                   });
        QVERIFY(QTest::qWaitFor([&] { return secondDone; }, kTimeoutMs));
        QVERIFY(sawSuperseded.load());
        QVERIFY(!firstDone);
    }

    // A job may report in stages through its token: the letters arrive in order, then done(); once the
    // request is superseded its letters are dropped.
    void latestJobPostsStages() {
        JobQueue jobs("test stages");
        LatestJob latest(jobs);
        std::vector<int> seen;
        bool done = false;
        latest.run(
            [&seen](const LatestJob::Token& token) {
                for (int i = 0; i < 50; ++i)
                    token.post([&seen, i] { seen.push_back(i); });
                return 50;
            },
            [&](int count) {
                QCOMPARE(static_cast<int>(seen.size()), count);
                done = true;
            });
        QVERIFY(QTest::qWaitFor([&] { return done; }, kTimeoutMs));
        for (int i = 0; i < 50; ++i)
            QCOMPARE(seen[static_cast<std::size_t>(i)], i);

        // Superseded before they arrive: dropped.
        Gate gate;
        std::optional<LatestJob::Token> old;
        int stale = 0;
        jobs.run([&gate] { gate.wait(); });
        QVERIFY(QTest::qWaitFor([&] { return gate.entered(); }, kTimeoutMs));
        old = latest.next();
        old->post([&] { ++stale; });
        latest.next();
        old->post([&] { ++stale; });
        gate.release();
        QTest::qWait(50);
        QCOMPARE(stale, 0);
    }

    // An owner destroyed while its job runs: the job's token says superseded at once (so the owner's
    // destructor waits only until the job notices), nothing is delivered, and a token kept by another thread
    // may still post.
    void latestJobDestroyedWhileAJobRuns() {
        std::atomic<bool> running{false}, stopped{false};
        int delivered = 0;
        std::optional<LatestJob::Token> kept;
        {
            Owner owner;
            owner.latest.run(
                [&](const LatestJob::Token& token) {
                    kept = token;  // read by the test once `running` is set
                    running = true;
                    while (!token.superseded())
                        std::this_thread::sleep_for(1ms);
                    stopped = true;
                    token.post([&] { ++delivered; });  // dropped: the LatestJob is gone
                    return 0;
                },
                [&](int) { ++delivered; });
            QVERIFY(QTest::qWaitFor([&] { return running.load(); }, kTimeoutMs));
            QTest::qWait(20);
            QVERIFY(!stopped.load());
            QVERIFY(!kept->superseded());
        }
        QVERIFY(
            stopped.load());  // the destructor waited for the job, which stopped because it was superseded
        QVERIFY(kept->superseded());
        std::thread late([&] { kept->post([&] { ++delivered; }); });
        late.join();
        QTest::qWait(50);
        QCOMPARE(delivered, 0);
    }

    // Without a queue: the owner runs the work on its own thread and reports through the token; a newer
    // next() or the LatestJob's end drops what the old thread sends.
    void latestJobOnAThreadOfItsOwn() {
        auto latest = std::make_unique<LatestJob>();
        std::vector<int> seen;
        const LatestJob::Token first = latest->next();
        std::thread worker([first, &seen] {
            for (int i = 0; i < 10; ++i)
                first.post([&seen, i] { seen.push_back(i); });
        });
        worker.join();
        QVERIFY(QTest::qWaitFor([&] { return seen.size() == 10; }, kTimeoutMs));
        const LatestJob::Token second = latest->next();
        QVERIFY(first.superseded() && !second.superseded());
        std::thread stale([first, &seen] { first.post([&seen] { seen.push_back(-1); }); });
        stale.join();
        second.post([&seen] { seen.push_back(100); });
        QVERIFY(QTest::qWaitFor([&] { return seen.size() == 11; }, kTimeoutMs));
        QCOMPARE(seen.back(), 100);
        latest.reset();
        QVERIFY(second.superseded());
        std::thread after([second, &seen] { second.post([&seen] { seen.push_back(-2); }); });
        after.join();
        QTest::qWait(20);
        QCOMPARE(seen.size(), std::size_t{11});
    }

    // Many threads post at once: every letter arrives once.
    void manyPostersEveryLetterOnce() {
        Mailbox mailbox;
        std::vector<int> count(4 * 500, 0);
        std::vector<std::thread> posters;
        for (int t = 0; t < 4; ++t)
            posters.emplace_back([&, t] {
                for (int i = 0; i < 500; ++i)
                    mailbox.post([&count, k = t * 500 + i] { ++count[static_cast<std::size_t>(k)]; });
            });
        for (auto& p : posters)
            p.join();
        QVERIFY(QTest::qWaitFor(
            [&] { return std::all_of(count.begin(), count.end(), [](int c) { return c > 0; }); },
            kTimeoutMs));
        QVERIFY(std::all_of(count.begin(), count.end(), [](int c) { return c == 1; }));
    }
};

QTEST_GUILESS_MAIN(TestUiJobQueue)
#include "tst_ui_job_queue.moc"
