// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// shardscope-bench: the benchmarks main() wires, and what they share (timing, resident memory, running one
// configuration in a child process of its own).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

// The median wall time of `runs` calls of `work`, in seconds.
double medianSeconds(int runs, const std::function<void()>& work);

// printf into a string.
std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));

// VmRSS and VmHWM of this process, in bytes (0 when /proc is not there).
std::pair<double, double> residentBytes();

// The RSS a child may reach before it is stopped: SHARDSCOPE_BENCH_RSS_BUDGET_GB if set, else the smaller of
// 20 GiB and the memory available now less 1 GiB (other processes share the machine).
double rssBudgetBytes();

// What a child process left: the text it returned, its peak RSS (ru_maxrss, counted from the start of the
// work: the child resets its high-water mark first) and why it ended, when not by returning.
struct IsolatedRun {
    std::string text;
    double peakBytes = 0;
    bool completed = false;  // `work` returned and the child exited with 0
    std::string failure;     // "stopped at 21.3 GB RSS (budget 20.0 GB)", "killed by signal 9", ...
};

// Runs `work` in a forked child so its memory is its own: its peak RSS is that of this one job, and a job
// that would exhaust the machine's memory is killed when its RSS passes `budgetBytes` (polled every 50 ms)
// instead of taking the machine down. Assumes the calling process runs no other threads. `work` returns the
// text to hand back (a table row); it may print to stderr.
IsolatedRun runIsolated(const std::function<std::string()>& work, double budgetBytes);

// "12.3" for a peak RSS in MB, or the failure when the job did not complete.
std::string peakText(const IsolatedRun& run);

int benchZoo(const std::vector<std::string>& models, int runs);
int benchImport(const std::string& sharedDir, int runs);
int benchTrain(const std::vector<std::string>& models, int runs);
int benchAnalysis(const std::vector<int>& depths, int runs);
int benchEvaluate(const std::vector<std::string>& models, int runs);

// The search table (search_bench.cpp): `only` selects rows by number (1-based) or by a part of their name,
// all rows when empty.
int benchSearch(double seconds, const std::vector<std::string>& only);
int benchSearchPipeline(double seconds);
// Whether the evaluation of repeated layers is periodic (search_bench.cpp): per row of the search table, or
// for `model` (MODEL [MESH [HARDWARE]]) when given, the best expert plan's per-layer steps in the schedule
// and the memory walk.
int benchLayers(const std::vector<std::string>& only, const std::vector<std::string>& model);
// Layer classes: per row of the search table (or a model of the user's), the shallow copies plans are priced
// on, the experts priced both ways (how many from the copies, how far from the full figures, how fast).
int benchClasses(const std::vector<std::string>& only, const std::vector<std::string>& model);
// Allocations in the search's hot path (search_bench.cpp): per row of the search table, per iteration of a
// `seconds` search and per evaluation of an evaluator cycling through the expert plans.
int benchAllocations(double seconds, const std::vector<std::string>& only);
// The search over seeds (search_bench.cpp): searches of `iterations` iterations, seeds 1 to `seeds`, on the
// search table's rows: on one thread (`lanes` 0), or in rounds of `lanes` lanes on two threads.
int benchSearchSeeds(std::int64_t iterations, int seeds, int lanes, const std::vector<std::string>& only);
// The frontier models' training steps (frontier_bench.cpp): each model's stages, one evaluation and a short
// search in a child process of its own; `mesh` replaces the zoo models' 1,024-H100 mesh when not empty.
int benchFrontier(double searchSeconds, const std::string& sharedDir, const std::vector<std::string>& only,
                  const std::string& mesh);
int benchSoak(double minutes, const std::string& model, const std::string& mesh);
