// JobQueue and Mailbox (ui/core/job_queue.h): the explorer's one way of running work off the GUI thread. Also
// run under ThreadSanitizer (.ci/sanitizers thread), where every hand-off here must be seen as synchronised.
#include <QPointer>
#include <QSignalSpy>
#include <QThread>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "core/job_queue.h"

using namespace shardscope::ui;
using namespace std::chrono_literals;

namespace {
constexpr int kTimeoutMs = 10000;
}

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
        QVERIFY(QTest::qWaitFor([&] { return std::all_of(count.begin(), count.end(), [](int c) { return c > 0; }); },
                                kTimeoutMs));
        QVERIFY(std::all_of(count.begin(), count.end(), [](int c) { return c == 1; }));
    }
};

QTEST_GUILESS_MAIN(TestUiJobQueue)
#include "tst_ui_job_queue.moc"
