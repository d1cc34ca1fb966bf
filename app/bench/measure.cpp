// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Timing, resident memory, and one job per child process.
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include "bench.h"

namespace {

// A field of /proc/PID/status in bytes ("VmRSS:", "VmHWM:", "MemAvailable:" of /proc/meminfo: all in kB).
double procField(const std::string& path, const char* field) {
    std::ifstream in(path);
    std::string line;
    const std::string key(field);
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0)
            return std::atof(line.c_str() + key.size()) * 1024;
    return 0;
}

void writeAll(int fd, const std::string& text) {
    const char* p = text.data();
    std::size_t left = text.size();
    while (left > 0) {
        const auto n = ::write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        p += n;
        left -= static_cast<std::size_t>(n);
    }
}

}  // namespace

std::string format(const char* pattern, ...) {
    va_list args;
    va_start(args, pattern);
    va_list copy;
    va_copy(copy, args);
    const int size = std::vsnprintf(nullptr, 0, pattern, copy);
    va_end(copy);
    std::string text(size > 0 ? static_cast<std::size_t>(size) : 0, '\0');
    if (size > 0)
        std::vsnprintf(text.data(), text.size() + 1, pattern, args);
    va_end(args);
    return text;
}

double medianSeconds(int runs, const std::function<void()>& work) {
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        work();
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

std::pair<double, double> residentBytes() {
    return {procField("/proc/self/status", "VmRSS:"), procField("/proc/self/status", "VmHWM:")};
}

double rssBudgetBytes() {
    constexpr double kGiB = 1024.0 * 1024 * 1024;
    if (const char* gb = std::getenv("SHARDSCOPE_BENCH_RSS_BUDGET_GB"); gb && std::atof(gb) > 0)
        return std::atof(gb) * kGiB;
    const double available = procField("/proc/meminfo", "MemAvailable:");
    return available > 2 * kGiB ? std::min(20 * kGiB, available - kGiB) : 20 * kGiB;
}

IsolatedRun runIsolated(const std::function<std::string()>& work, double budgetBytes) {
    IsolatedRun run;
    std::fflush(stdout);
    std::fflush(stderr);
    int fds[2];
    if (::pipe(fds) != 0) {
        run.failure = "no pipe";
        return run;
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        run.failure = "fork failed";
        return run;
    }
    if (pid == 0) {
        ::close(fds[0]);
        // The child starts with the parent's resident pages counted: reset the high-water mark to what it
        // holds now, so the peak is this job's (plus the few MB of the program itself).
        std::ofstream("/proc/self/clear_refs") << "5";
        int code = 0;
        std::string text;
        try {
            text = work();
        } catch (const std::exception& e) {
            text = std::string("exception: ") + e.what();
            code = 1;
        }
        writeAll(fds[1], text);
        ::close(fds[1]);
        std::fflush(stdout);
        std::fflush(stderr);
        ::_exit(code);
    }
    ::close(fds[1]);
    const std::string status = "/proc/" + std::to_string(pid) + "/status";
    double stoppedAt = 0;
    char buffer[4096];
    for (;;) {
        pollfd p{fds[0], POLLIN, 0};
        const int ready = ::poll(&p, 1, 50);
        if (ready < 0 && errno != EINTR)
            break;
        if (ready > 0) {
            const auto n = ::read(fds[0], buffer, sizeof buffer);
            if (n > 0) {
                run.text.append(buffer, static_cast<std::size_t>(n));
                continue;
            }
            if (n == 0 || errno != EINTR)
                break;  // the child has closed its end: it is exiting
            continue;
        }
        const double rss = procField(status, "VmRSS:");
        if (stoppedAt == 0 && rss > budgetBytes) {
            stoppedAt = rss;
            ::kill(pid, SIGKILL);
        }
    }
    ::close(fds[0]);
    int waitStatus = 0;
    rusage usage{};
    while (::wait4(pid, &waitStatus, 0, &usage) < 0 && errno == EINTR) {
    }
    run.peakBytes = static_cast<double>(usage.ru_maxrss) * 1024;
    char reason[96] = "";
    if (stoppedAt > 0)
        std::snprintf(reason, sizeof reason, "stopped at %.1f GB RSS (budget %.1f GB)", stoppedAt / 1e9,
                      budgetBytes / 1e9);
    else if (WIFSIGNALED(waitStatus))
        std::snprintf(reason, sizeof reason, "killed by signal %d", WTERMSIG(waitStatus));
    else if (!WIFEXITED(waitStatus) || WEXITSTATUS(waitStatus) != 0)
        std::snprintf(reason, sizeof reason, "exit status %d", WEXITSTATUS(waitStatus));
    run.failure = reason;
    run.completed = run.failure.empty();
    return run;
}

std::string peakText(const IsolatedRun& run) {
    if (!run.completed)
        return run.failure;
    char text[32];
    std::snprintf(text, sizeof text, "%.0f", run.peakBytes / 1e6);
    return text;
}
