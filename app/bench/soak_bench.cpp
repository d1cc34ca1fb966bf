// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The soak: one long search recorded into a workspace, its memory and file sampled as it goes.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench.h"
#include "shardscope/search/search.h"
#include "shardscope/session/problem.h"
#include "shardscope/session/recording.h"
#include "shardscope/session/workspace_session.h"

namespace {

double fileBytes(const std::string& path) {
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    return error ? 0.0 : static_cast<double>(size);
}

// The least-squares slope of y over x (0 with fewer than two points).
double slope(const std::vector<std::pair<double, double>>& points) {
    if (points.size() < 2)
        return 0;
    double mx = 0, my = 0;
    for (const auto& [x, y] : points)
        mx += x, my += y;
    mx /= static_cast<double>(points.size()), my /= static_cast<double>(points.size());
    double sxy = 0, sxx = 0;
    for (const auto& [x, y] : points)
        sxy += (x - mx) * (y - my), sxx += (x - mx) * (x - mx);
    return sxx > 0 ? sxy / sxx : 0;
}

struct SoakSample {
    double seconds = 0, rss = 0, peakRss = 0, workspace = 0, wal = 0;  // workspace = the file and its WAL
    std::size_t treeNodes = 0;
    std::int64_t iterations = 0, evaluations = 0;
    double bestStepTime = 0;
    bool bestFeasible = false;
};

// Keeps the search's latest report, and the search itself while it runs, for the sampler.
class SoakObserver : public shardscope::search::SearchObserver {
public:
    void progress(const shardscope::search::Progress& p) override {
        std::lock_guard lock(mutex_);
        last_ = p;
    }
    shardscope::search::Progress last() const {
        std::lock_guard lock(mutex_);
        return last_;
    }
    // The search runs from attach(search) to attach(nullptr).
    bool attach(shardscope::search::Search* search) {
        std::lock_guard lock(mutex_);
        if (!search && search_)
            finalTreeSize_ = search_->treeSize();
        search_ = search;
        return true;
    }
    std::size_t treeSize() const {
        std::lock_guard lock(mutex_);
        return search_ ? search_->treeSize() : finalTreeSize_;
    }

private:
    mutable std::mutex mutex_;
    shardscope::search::Progress last_;
    shardscope::search::Search* search_ = nullptr;
    std::size_t finalTreeSize_ = 0;
};

}  // namespace

// `--soak MINUTES MODEL`: one MCTS search (one thread, seed 1) of the model's Adam training step on
// data=4,model=2 of H100s for MINUTES, recorded into a fresh workspace as `shardscope-cli search --workspace`
// records it. Every SHARDSCOPE_SOAK_SAMPLE_S seconds (30 unless set) it samples RSS, the tree, the
// iterations, the best step time and the workspace's size (file + WAL); at the end it prints the table and
// the growth rates.
int benchSoak(double minutes, const std::string& model, const std::string& mesh) {
    using namespace shardscope;
    double every = 30;
    if (const char* s = std::getenv("SHARDSCOPE_SOAK_SAMPLE_S"))
        every = std::max(1.0, std::atof(s));
    std::printf("== soak: %.1f min search of %s (training step, Adam), mesh %s on h100, 1 thread, seed 1\n",
                minutes, model.c_str(), mesh.c_str());
    std::fflush(stdout);
    ProblemSpec spec;
    spec.model = model;
    spec.train =
        true;  // Adam, the model's own precision (pt_bert is f32: mixed precision needs 16-bit parameters)
    spec.mesh = mesh;
    spec.hardware = "h100";
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("shardscope-soak-" + std::to_string(::getpid()) + ".shardscope"))
                                 .string();
    auto opened = session::WorkspaceSession::open(spec, path);
    auto problem =
        opened ? opened->loadProblem() : Result<std::unique_ptr<Problem>>::failure(opened.diagnostics());
    if (!problem) {
        std::fprintf(stderr, "%s\n", problem.errorMessage().c_str());
        return 1;
    }
    const auto& costModel = *(*problem)->costModel;
    const auto [loadedRss, loadedPeak] = residentBytes();
    std::printf("problem: %zu ops, %zu names, %zu groups; RSS after loading %.1f MB (peak %.1f MB)\n",
                costModel.graph().body.size(), (*problem)->space.names.size(),
                (*problem)->space.groups.size(), loadedRss / 1e6, loadedPeak / 1e6);
    auto workspace = opened->workspace();
    if (!workspace) {
        std::fprintf(stderr, "%s\n", workspace.errorMessage().c_str());
        return 1;
    }
    session::SearchRequest request;
    request.options.threads = 1;
    request.options.seed = 1;
    request.options.budget.seconds = minutes * 60;
    if (const char* cap = std::getenv("SHARDSCOPE_SOAK_MAX_NODES"))
        request.options.maxTreeNodes = static_cast<std::size_t>(std::atoll(cap));
    request.settings = {"soak", {}, false};
    const std::size_t maxTreeNodes = request.options.maxTreeNodes;
    SoakObserver observer;

    std::vector<SoakSample> samples;
    auto sample = [&](double seconds) {
        const auto [rss, peak] = residentBytes();
        const auto p = observer.last();
        const double wal = fileBytes(path + "-wal");
        samples.push_back({seconds, rss, peak, fileBytes(path) + wal, wal, observer.treeSize(), p.iterations,
                           p.evaluations, p.bestStepTime, p.bestFeasible});
        const auto& s = samples.back();
        std::fprintf(stderr, "soak: %6.0f s  RSS %7.1f MB  tree %8zu  it %9lld  workspace %7.2f MB\n",
                     s.seconds, s.rss / 1e6, s.treeNodes, static_cast<long long>(s.iterations),
                     s.workspace / 1e6);
    };
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    std::mutex doneMutex;
    std::condition_variable doneCondition;
    bool done = false;
    Result<session::SearchRun> run = makeError("bench.soak", "the search did not run");
    std::thread runner([&] {
        run = session::runSearch(**problem, *workspace, request, {&observer, {}, [&](search::Search* search) {
                                                                      return observer.attach(search);
                                                                  }});
        std::lock_guard lock(doneMutex);
        done = true;
        doneCondition.notify_all();
    });
    sample(0);
    for (int k = 1;; ++k) {
        std::unique_lock lock(doneMutex);
        const auto due = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>(k * every));
        if (doneCondition.wait_until(lock, due, [&] { return done; }))
            break;
        lock.unlock();
        sample(elapsed());
    }
    runner.join();
    if (!run) {
        std::fprintf(stderr, "%s\n", run.errorMessage().c_str());
        return 1;
    }
    sample(elapsed());
    const search::Progress last = observer.last();
    const search::Found& best = run->best;

    std::printf("\n%9s %9s %9s %9s %11s %9s %12s %12s %8s\n", "elapsed s", "RSS MB", "peak MB", "tree",
                "iterations", "it/s", "best ms", "workspace MB", "WAL MB");
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const auto& s = samples[i];
        const double rate = i == 0 ? 0.0
                                   : static_cast<double>(s.iterations - samples[i - 1].iterations) /
                                         std::max(1e-9, s.seconds - samples[i - 1].seconds);
        char bestText[32] = "-";
        if (s.bestStepTime > 0)
            std::snprintf(bestText, sizeof bestText, "%.3f%s", s.bestStepTime * 1e3,
                          s.bestFeasible ? "" : "*");
        const bool afterRun = i + 1 == samples.size();
        std::printf("%9.0f %9.1f %9.1f %9zu %11lld %9.1f %12s %12.2f %8.2f%s\n", s.seconds, s.rss / 1e6,
                    s.peakRss / 1e6, s.treeNodes, static_cast<long long>(s.iterations), rate, bestText,
                    s.workspace / 1e6, s.wal / 1e6, afterRun ? "  (search returned, flushed)" : "");
    }
    // Growth after the warm-up: the first 5 minutes (the first third of shorter runs) are left out.
    const double warmUp = std::min(300.0, samples.back().seconds / 3);
    std::vector<std::pair<double, double>> rss, file;
    // The last sample is taken after run() has returned (its worker's evaluator freed) and the workspace
    // flushed: it counts for the file only.
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const auto& s = samples[i];
        if (s.seconds < warmUp)
            continue;
        if (i + 1 < samples.size())
            rss.emplace_back(s.seconds / 3600, s.rss / 1e6);
        file.emplace_back(s.seconds / 3600, s.workspace / 1e6);
    }
    std::printf("\nRSS growth after %.0f s: %.1f MB/h (least squares over %zu samples); peak RSS %.1f MB\n",
                warmUp, slope(rss), rss.size(), samples.back().peakRss / 1e6);
    std::printf("workspace growth after %.0f s: %.2f MB/h; final size %.2f MB (%s)\n", warmUp, slope(file),
                samples.back().workspace / 1e6, path.c_str());
    std::printf(
        "iterations: %lld in %.0f s = %.1f it/s; %lld evaluations (%lld cache hits); tree %zu nodes (cap "
        "%zu)\n",
        static_cast<long long>(last.iterations), last.seconds,
        last.seconds > 0 ? static_cast<double>(last.iterations) / last.seconds : 0.0,
        static_cast<long long>(last.evaluations), static_cast<long long>(last.cacheHits), run->treeNodes,
        maxTreeNodes);
    std::printf("best plan: %.3f ms%s, found after %.0f s (%s); workspace flush: %s\n",
                best.evaluation.stepTime * 1e3, best.evaluation.feasible ? "" : " (does not fit)",
                best.seconds, best.origin.c_str(), run->saved ? "ok" : run->saveError->message.c_str());
    if (!std::getenv("SHARDSCOPE_SOAK_KEEP")) {
        std::error_code ignored;
        for (const char* suffix : {"", "-wal", "-shm"})
            std::filesystem::remove(path + suffix, ignored);
    }
    return run->saved ? 0 : 1;
}
