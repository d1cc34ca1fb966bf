// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// What the CLI's commands share: diagnostics on stderr, the training-step flags, and the planning commands
// (planning.cpp).
#pragma once

#include <iostream>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardscope/cost/cost_model.h"
#include "shardscope/diagnostic.h"
#include "shardscope/import/options.h"
#include "shardscope/plan/plan.h"
#include "shardscope/session/problem.h"

namespace cli {

// output.cpp: prints diagnostics on stderr, one line each ("shardscope-cli: file:line: error: ... [code]");
// past the first 10, one line counts the rest ("shardscope-cli: ... and 243 more (240 errors, 3 warnings)").
void printDiagnostics(const std::vector<shardscope::Diagnostic>& diagnostics);

// The warnings and notes among `diagnostics` as the "warnings" array of every --json output: one object each
// with "message", "code", "severity" and, where known, "file", "line", "column" and "op" (the source's name
// for it).
nlohmann::json warningsJson(const std::vector<shardscope::Diagnostic>& diagnostics);

// `first` followed by the diagnostics of `more` it does not hold yet (same code and message): the problem's
// warnings joined with a plan's, or with those of several expert plans that say the same thing.
std::vector<shardscope::Diagnostic> joinedDiagnostics(std::vector<shardscope::Diagnostic> first,
                                                      const std::vector<shardscope::Diagnostic>& more);

// Prints the result's diagnostics (printDiagnostics) and returns whether it holds a value.
template <typename T>
bool report(const shardscope::Result<T>& result) {
    printDiagnostics(result.diagnostics());
    return result.ok();
}

// `value` as indented JSON text; bytes that are not UTF-8 (in names, labels, paths) become U+FFFD.
std::string jsonText(const nlohmann::json& value);

// Standard output's end: prepareOutput() at the start (a closed pipe fails writes with EPIPE instead of
// killing the process); finishOutput(status) at the end flushes it and returns the exit status: `status` when
// everything was written or the reader has gone (`| head -1`: a quiet end), else 1 after saying why ("cannot
// write the output: No space left on device").
void prepareOutput();
int finishOutput(int status);

// Writes `content` to the file `path` whole or not at all: a regular file is written beside and renamed into
// place (a failure leaves the previous file as it was); a device or FIFO is written in place. Returns why it
// failed ("cannot write 'out.json': No space left on device ('out.json' is left as it was)"), or nullopt.
std::optional<std::string> replaceFile(const std::string& path, std::string_view content);
// `content` to standard output when `output` is empty or "-", else replaceFile(); 0, or 1 after printing why.
int writeOutput(const std::string& output, std::string_view content);

struct TrainingFlags {
    bool enabled = false;
    std::string optimizer = "adam";
    std::string loss = "auto";
    std::string lossOutput;  // --loss-output: "" the first output, a name or index, "all"
    bool mixedPrecision = false;
};

// The problem every planning command works on.
struct ProblemFlags {
    std::string mesh = "data=8";
    std::string hardware = "h100";
    std::string fusion = "xla", attention = "fused", runtime = "xla";  // parsed into `cost` by specOf
    shardscope::cost::CostOptions cost;
};

struct SearchFlags {
    std::string budget = "10s";
    int threads = 1;
    int lanes = 0;  // search::SearchOptions::lanes
    std::uint64_t seed = 1;
    std::string workspace;
    std::string session;
    std::vector<std::string> pins, forbidden;
    double exploration = 0.5;
    double refine = 0.25;  // search::SearchOptions::refineProbability
    int maxDecisions = 8;
    std::int64_t patience = 0;
    bool noExperts = false;
    bool exhaustive = false;
};

int evaluate(const std::string& source, const shardscope::import::ImportOptions& options,
             const TrainingFlags& training, const ProblemFlags& problem, const std::string& plan, bool json);
int search(const std::string& source, const shardscope::import::ImportOptions& options,
           const TrainingFlags& training, const ProblemFlags& problem, const SearchFlags& flags, bool json);
int plans(const std::string& workspace, bool json);
int compare(const std::string& a, const std::string& b, bool json);
int label(const std::string& plan, const std::string& text, const std::string& note);
// export.cpp: the plan written into the model's StableHLO, `format` shardy or gspmd, to `output` (or stdout).
// The problem the planning commands share: MODEL with the training and problem flags.
shardscope::ProblemSpec specOf(const std::string& source, const shardscope::import::ImportOptions& options,
                               const TrainingFlags& training, const ProblemFlags& flags);

int exportPlan(const std::string& source, const shardscope::import::ImportOptions& options,
               const TrainingFlags& training, const ProblemFlags& problem, const std::string& plan,
               const std::string& format, const std::string& output, const std::string& constraints = "key");

// simulate.cpp: runs the model unsharded and under the plan on a simulated mesh with arguments drawn from
// `seed` (integers in [0, integerRange)); 0 when the outputs agree within `tolerance` (scaled difference) and
// the executed collectives are the priced ones, 1 otherwise or on error.
int simulate(const std::string& source, const shardscope::import::ImportOptions& options,
             const TrainingFlags& training, const ProblemFlags& problem, const std::string& plan,
             std::uint64_t seed, std::int64_t integerRange, double tolerance, bool json);
}  // namespace cli
