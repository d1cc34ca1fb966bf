// What the CLI's commands share: diagnostics on stderr, the training-step flags, and the planning commands
// (planning.cpp).
#pragma once

#include <iostream>
#include <string>
#include <vector>

#include "shardscope/cost/cost_model.h"
#include "shardscope/diagnostic.h"
#include "shardscope/import/options.h"
#include "shardscope/plan/plan.h"
#include "shardscope/problem.h"

namespace cli {

// Prints every diagnostic on its own line (errors and warnings) and returns whether the result holds a value.
template <typename T>
bool report(const shardscope::Result<T>& result) {
    for (const auto& d : result.diagnostics()) std::cerr << "shardscope-cli: " << d.toString() << "\n";
    return result.ok();
}

struct TrainingFlags {
    bool enabled = false;
    std::string optimizer = "adam";
    std::string loss = "auto";
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
    std::uint64_t seed = 1;
    std::string workspace;
    std::string session;
    std::vector<std::string> pins, forbidden;
    double exploration = 0.5;
    int maxDecisions = 8;
    std::int64_t patience = 0;
    bool noExperts = false;
    bool exhaustive = false;
};

int evaluate(const std::string& source, const shardscope::import::ImportOptions& options, const TrainingFlags& training,
             const ProblemFlags& problem, const std::string& plan, bool json);
int search(const std::string& source, const shardscope::import::ImportOptions& options, const TrainingFlags& training,
           const ProblemFlags& problem, const SearchFlags& flags, bool json);
int plans(const std::string& workspace, bool json);
int compare(const std::string& a, const std::string& b, bool json);
int label(const std::string& plan, const std::string& text, const std::string& note);
// export.cpp: the plan written into the model's StableHLO, `format` shardy or gspmd, to `output` (or stdout).
// The problem the planning commands share: MODEL with the training and problem flags.
shardscope::ProblemSpec specOf(const std::string& source, const shardscope::import::ImportOptions& options,
                               const TrainingFlags& training, const ProblemFlags& flags);
// A --plan argument: none, expert:ID, reference (the shardings the model carries), or a plan .json file.
shardscope::Result<shardscope::plan::Plan> planArgument(const std::string& argument, const shardscope::cost::CostModel& model);

int exportPlan(const std::string& source, const shardscope::import::ImportOptions& options, const TrainingFlags& training,
               const ProblemFlags& problem, const std::string& plan, const std::string& format, const std::string& output,
               const std::string& constraints = "key");

// simulate.cpp: runs the model unsharded and under the plan on a simulated mesh with arguments drawn from `seed`
// (integers in [0, integerRange)); 0 when the outputs agree within `tolerance` (scaled difference) and the
// executed collectives are the priced ones, 1 otherwise or on error.
int simulate(const std::string& source, const shardscope::import::ImportOptions& options, const TrainingFlags& training,
             const ProblemFlags& problem, const std::string& plan, std::uint64_t seed, std::int64_t integerRange,
             double tolerance, bool json);
}  // namespace cli
