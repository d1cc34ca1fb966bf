// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Plan search (docs/design.md, "Search"): Monte Carlo Tree Search over the decision space, and exhaustive
// search for small spaces.
//
// A state is a partial plan: the pins, then the decisions taken on the path from the root. Actions are
//   - Decide(group, axis): the groups ranked by the bytes they touch, the smallest left out (ActionSpace);
//     groups that reach parameters also offer ZeRO-style variants restricted to optimizer states (and
//     gradients);
//   - Resolve(name, dimension): offered right after a decision whose group holds a repeated name, until
//   resolved;
//   - Remat(family, policy): on a training step (ir::Graph::backwardStart > 0), for each block family of the
//     model (plan::layerBlocks) that no remat decision of the plan names yet, one action per policy other
//     than none; it sets the family's policy (Plan::remat holds at most one decision per family the search
//     set, and a family the start plan decides is the user's: the search leaves it). Remat actions do not
//     count against maxDecisions;
//   - Pipeline(axis, stages, schedule): on a training or forward step with repeated layers, the pipeline role
//     for a mesh axis (docs/design.md, "Pipelines"), followed at once by Microbatches(M), the count it runs
//     (like a resolution after a decision); Microbatches(M) alone is gradient accumulation. Set once on a
//     path (a plan with a pipeline or microbatches gets no more of them); they do not count against
//     maxDecisions. A start plan with a pipeline or microbatches keeps them: the search never changes them;
//   - Stop.
// A decision is legal when the group's size is divisible by the product of the axes it would then carry (with
// a pipeline, its axis counts with its size over the stages, and a decision there that leaves it size 1 is
// left out), the batch group's size stays divisible by the microbatches, and it is neither forbidden nor
// already taken. Equal plans reached in different orders share one evaluation (a transposition cache keyed
// by a hash of every atom's axes, every block's remat policy, the microbatches and the pipeline; a pipelined
// plan's atoms are placed on the mesh its stage runs on).
//
// Refinement: some iterations (SearchOptions::refineProbability) make a random move or two from the best plan
// so far instead of walking the tree; a better neighbour is offered and grafted into the tree along its
// actions.
//
// Reward in [0, 1]: a feasible plan scores 0.5 + 0.5·T_lb/T (T_lb = FLOPs / (devices · peak)); an infeasible
// one 0.5·min(1, capacity/peak)², so any feasible plan outranks every infeasible one. UCT compares node
// values scaled to the range of rewards seen so far, so the exploration constant means the same on every
// model.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardscope/cost/cost_model.h"
#include "shardscope/diagnostic.h"
#include "shardscope/plan/plan.h"

namespace shardscope::search {

struct Action {
    enum class Kind : std::uint8_t { Decide, Resolve, Stop, Remat, Pipeline, Microbatches };
    Kind kind = Kind::Stop;
    plan::Decision decision;       // Decide
    plan::Resolution resolution;   // Resolve
    plan::RematDecision remat;     // Remat: a family ("layers.*") and its policy
    plan::Pipeline pipeline = {};  // Pipeline: axis, stages, schedule, virtual stages (a balanced split)
    int microbatches = 1;          // Microbatches
    friend bool operator==(const Action&, const Action&) = default;
};

// Which pipeline and microbatch actions an action space offers: none, gradient accumulation only, or both
// (pipelines and gradient accumulation).
enum class Staging : std::uint8_t { None, Microbatches, Pipelines };

// `plan` after `action`: a decision appended, a resolution added, a family's remat policy set (replacing
// the plan's decisions that name exactly that family), the pipeline set, or the microbatches set.
plan::Plan withAction(plan::Plan plan, const Action& action);

// The candidate decisions of a problem, ranked. Built once per CostModel.
class ActionSpace {
public:
    struct Candidate {
        plan::Decision decision;
        double weight = 0;  // the group's bytes: rollouts pick candidates in proportion
    };
    // `maxGroups` largest groups by bytes (those under `minShare` of the largest are left out), on every mesh
    // axis; the pipeline and microbatch actions `staging` allows.
    ActionSpace(const cost::CostModel& model, std::size_t maxGroups = 16, double minShare = 0.005,
                Staging staging = Staging::Pipelines);
    const std::vector<Candidate>& candidates() const { return candidates_; }
    // The legal decisions after `plan` (its decisions, forbidden list, pipeline and microbatches), in rank
    // order.
    std::vector<std::size_t> legal(const plan::Plan& plan) const;
    // A resolution the plan's last decision calls for: the repeated names of its group without a resolution.
    std::vector<Action> pendingResolutions(const plan::Plan& plan) const;
    // The remat actions after `plan` (see above), family by family, policies in plan::Remat order.
    std::vector<Action> rematActions(const plan::Plan& plan) const;
    // The pipeline and microbatch actions after `plan`: none when the plan has a pipeline or microbatches
    // already, or the space's Staging does not allow them. Else, ranked: Pipeline actions (1f1b, then
    // interleaved with 2 virtual stages; each on the axes named pipe, pipeline, pp, stage or stages (none on
    // a mesh without such an axis); stages p descending over the divisors >= 2 of the axis size, with at
    // most plan::pipelineLayers chunks and a non-empty pendingMicrobatches; gpipe, which 1f1b matches in time
    // with less memory, and deeper interleaving are left to the user), then Microbatches actions without a
    // pipeline (2, 4, 8 and the local batch, those dividing the local batch). Every action offered passes
    // plan::pipelineProblem.
    std::vector<Action> stagingActions(const plan::Plan& plan) const;
    // The microbatch counts a pipeline the search set calls for (the plan has a pipeline, microbatches 1 and
    // the space allows pipelines), largest first: the local batch (the batch over the devices its decisions
    // split it on, the pipeline axis counted over its stages) and the powers of two dividing it that are at
    // least the stages (divisible by them for the interleaved schedule), at most 4 counts. Empty otherwise.
    std::vector<Action> pendingMicrobatches(const plan::Plan& plan) const;
    // The batch one replica of `plan` holds: the batch group's size over the devices of the axes the plan's
    // decisions on that group use (the pipeline axis counted with its size over the stages); 1 without a
    // batch group or when the axes do not divide it.
    std::int64_t localBatch(const plan::Plan& plan) const;
    Staging staging() const { return staging_; }
    // The model's blocks of layers (plan::layerBlocks of its graph).
    const plan::LayerBlocks& blocks() const { return model_->planContext().blocks(); }
    // "(layers.*.mlp.d_ff, model)", "resolve seq: dimension 1", "remat layers.*: full", "pipeline pipe: 4
    // stages, 1f1b", "pipeline pipe: 4 stages, interleaved x2", "microbatches 16", "stop"
    std::string describe(const Action& action) const;

private:
    // An axis's size as the plan's decisions see it: with a pipeline on it, its size over the stages.
    std::int64_t effectiveSize(const plan::Plan& plan, int axis) const;

    const cost::CostModel* model_;
    Staging staging_;
    std::vector<std::string> rematFamilies_;  // the families remat actions set: none without a backward pass
    std::vector<plan::Pipeline> pipelines_;   // the pipeline shapes, ranked (stagingActions)
    std::int64_t batchSize_ = 0;              // the batch group's size; 0: no batch group
    std::vector<Candidate> candidates_;
    std::vector<std::vector<int>>
        repeated_;  // per name: the largest number of dimensions one tensor gives it (repeated names only)
};

double reward(const cost::Evaluation& evaluation, double lowerBound);

struct Budget {
    std::int64_t iterations = 0;  // 0 = no limit
    double seconds = 0;           // 0 = no limit
    std::int64_t patience = 0;    // stop after this many iterations without a better plan; 0 = no limit
};

// The longest budget a search takes: a search is meant to end.
inline constexpr double kMaxBudgetSeconds = 30 * 24 * 3600.0;  // 30 days
inline constexpr std::int64_t kMaxBudgetIterations = 1'000'000'000'000;

// A budget as the CLI's --budget writes it: "60s" (a bare number is seconds too), "2m" or "2min", "5000it" or
// "5000i". Errors (code search.budget) name the text: another form; a count that is not a finite positive
// number, past kMaxBudgetSeconds or kMaxBudgetIterations, or not whole (iterations).
Result<Budget> parseBudget(std::string_view text);

struct SearchOptions {
    double exploration = 0.5;  // UCT constant c
    bool maxBackup = false;    // select on the best value seen below a node instead of the mean
    int threads = 1;
    // How the threads share the work. 0: each thread iterates on its own, taking the tree's lock for its
    // steps there (the fastest; one thread with a seed repeats its search, several do not). N: the search
    // runs in rounds of N iterations, one per lane: the lanes take their steps in the tree in turn, price
    // their plans on the threads (at most N of them), and back up in turn; with an iteration budget, a seed
    // then gives the same search (tree, plans, best) on any number of threads, at some cost in iterations per
    // second (docs/benchmarks.md). One lane is the search of one thread, step for step.
    int lanes = 0;
    std::uint64_t seed = 1;
    Budget budget;
    int maxDecisions = 8;           // decisions the search adds after the pins
    double stopProbability = 0.25;  // chance a rollout stops at each step
    double rematProbability = 0.1;  // chance a rollout step sets a family's remat policy, when it may
    // The pipeline and microbatch actions the search offers (a start plan with a pipeline or microbatches
    // keeps its own: none then), and the chance a rollout step takes one, when it may.
    Staging staging = Staging::Pipelines;
    double stagingProbability = 0.1;
    // The chance an iteration refines the best plan so far instead of walking the tree: a random neighbour of
    // it (a decision dropped, moved to another axis, replaced, swapped with its neighbour or added, a remat
    // policy or the pipeline and microbatches changed; one or two such moves) is evaluated, and a better one
    // is offered and grafted into the tree, so selection turns to it. Random rollouts alone rarely reach a
    // plan a few moves from a good one.
    double refineProbability = 0.25;
    bool seedWithExperts = true;  // evaluate every expert plan first; the best is the first best
    // Price the plans that decide alike layers alike from shallow copies of the model
    // (cost::EvaluatorOptions::layerClasses: the same figures, in time that grows with the distinct layers);
    // a new best is evaluated in full for its report.
    bool layerClasses = true;
    double virtualLoss = 1.0;
    std::size_t maxGroups = 16;
    // Memory bounds for long searches. Once the tree holds maxTreeNodes nodes it stops growing: selection
    // still descends it by UCT and rollouts still start from its leaves, so the search goes on in constant
    // memory (and the workspace's copy of the tree stops growing too). The transposition cache keeps at most
    // maxCachedStates evaluations; states met after that are evaluated again when met again. A node takes
    // about 1 KB with its untried actions (measured on pt_bert's training step), so the default tree stays
    // under about 200 MB; a cached state takes about 60 bytes.
    std::size_t maxTreeNodes = 200000;
    std::size_t maxCachedStates = 1000000;
};

// Whether a search can run with `options`; Search assumes it. Errors (code search.options) name the option
// and its range: exploration finite and >= 0; 1 to 1024 threads; 0 to 1024 lanes; 0 to 1000 decisions; a
// budget of finite non-negative numbers within kMaxBudgetSeconds and kMaxBudgetIterations (0: no limit);
// probabilities in [0, 1] (stop, remat, staging); a finite virtual loss >= 0.
Status checkOptions(const SearchOptions& options);

// What the search reports as it goes (called from search threads, one call at a time).
struct Progress {
    std::int64_t iterations = 0, evaluations = 0, cacheHits = 0;
    std::int64_t layerClassEvaluations = 0;  // of the evaluations, those priced from layer classes
    double seconds = 0;
    std::size_t treeNodes = 0;
    double bestReward = 0, bestStepTime = 0, bestPeakMemory = 0;
    bool bestFeasible = false;
    // The whole tree is explored (every state within the decision limit was tried): the search ended with
    // nothing more to learn, before its budget.
    bool exhausted = false;
};

struct Found {
    plan::Plan plan;
    cost::Evaluation evaluation;
    double reward = 0;
    std::int64_t iteration = 0;
    double seconds = 0;
    std::string origin;  // "search", "expert:ID" or "expert:ID+POLICY" (a remat variant of an expert that
                         // does not fit)
};

class SearchObserver {
public:
    virtual ~SearchObserver() = default;
    virtual void progress(const Progress&) {}
    virtual void newBest(const Found&) {}
};

// One node of the tree, as the workspace stores it.
struct TreeNode {
    std::int64_t id = 0, parent = -1;
    std::string action;
    std::int64_t visits = 0;
    double valueSum = 0, best = 0;
    std::string status;  // "" or why the branch ends ("stop", "duplicate", "depth limit")
};

class Search {
public:
    // `start` holds the pins (its decisions are all pinned), forbidden decisions and resolutions.
    Search(const cost::CostModel& model, plan::Plan start, SearchOptions options);
    ~Search();
    Search(const Search&) = delete;
    Search& operator=(const Search&) = delete;

    // Runs until the budget is spent or stop() is called; returns the best plan found. Calling run() again
    // continues the same tree with a fresh budget (counted from the new call).
    Found run(SearchObserver* observer = nullptr);
    // From any thread: pause (run() waits), resume, stop (run() returns).
    void pause();
    void resume();
    void stop();

    std::optional<Found> best() const;
    // Nodes created or changed since the last call (all of them the first time).
    std::vector<TreeNode> changedNodes();
    std::size_t treeSize() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The first of expert `id`'s remat variants (plan::rematVariants: selective, dots-saveable, full) whose
// evaluation by `evaluate` is feasible, as {id "zero3+full", plan, evaluation}; nullopt when none fits or the
// expert has none (a forward graph, a model without blocks). `evaluate` evaluates a plan (through a cache, an
// Evaluator, ...). The CLI, the workspace recording and the search's expert seeds all fall back through here.
struct ExpertVariant {
    std::string id;
    plan::Plan plan;
    cost::Evaluation evaluation;
};
std::optional<ExpertVariant> fittingRematVariant(
    const std::string& id, const cost::CostModel& model,
    const std::function<cost::Evaluation(const plan::Plan&)>& evaluate);

// The true optimum under the cost model: every state reachable from `start` with at most `maxDecisions` more
// decisions of the action space (and, on a training step, any remat actions, and the pipeline and microbatch
// actions `staging` allows, none when `start` has a pipeline or microbatches), each evaluated once. Fails,
// before evaluating any (the states are enumerated first), when there are more than `maxStates`.
struct ExhaustiveResult {
    Found best;
    std::size_t states = 0;
};
Result<ExhaustiveResult> exhaustiveSearch(const cost::CostModel& model, const plan::Plan& start,
                                          int maxDecisions, std::size_t maxStates = 200000,
                                          std::size_t maxGroups = 16, Staging staging = Staging::Pipelines);

}  // namespace shardscope::search
