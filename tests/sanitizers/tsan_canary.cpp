// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The ThreadSanitizer job's canary: a real data race across the explorer's hand-off (ui/core/job_queue.h),
// which the job must report. `.ci/sanitizers thread` runs it first and fails unless ThreadSanitizer names
// this race, so a configuration that hides races in our code (a suppression too broad,
// ignore_noninstrumented_modules reaching too far, an uninstrumented build) cannot pass as clean.
//
// The job writes `value` after it posts its letter, so nothing orders that write before the letter's read:
// the only order is the one Qt's uninstrumented event loop gives, which ThreadSanitizer cannot see and which
// does not exist for this write anyway.
#include <QCoreApplication>
#include <QTimer>

#include <chrono>
#include <cstdio>
#include <thread>

#include "core/job_queue.h"

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    int value = 0;
    int seen = -1;
    shardscope::ui::JobQueue jobs("tsan canary");
    jobs.run([&] {
        jobs.post([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            seen = value;  // races with the write below
            app.quit();
        });
        value = 1;
    });
    QTimer::singleShot(10000, &app, [&] { app.exit(2); });
    const int status = app.exec();
    std::printf("tsan_canary: the letter saw %d\n", seen);
    return status;
}
