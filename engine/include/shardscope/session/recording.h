// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A search run as the user asks for it (docs/design.md, "Workspace"): the expert plans it is compared with,
// the MCTS or exhaustive search itself and, when a workspace is given, its recording as a session: the
// settings, the experts, every new best plan and the tree as it grows. The CLI's `search`, the explorer's
// search panel and the benchmarks run searches through here, so a session written by any of them reads the
// same.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "shardscope/cost/cost_model.h"
#include "shardscope/diagnostic.h"
#include "shardscope/plan/plan.h"
#include "shardscope/search/search.h"
#include "shardscope/session/problem.h"
#include "shardscope/store/workspace.h"

namespace shardscope::session {

// An expert plan of the problem and its evaluation, for comparing a search's result with.
struct ExpertEvaluation {
    std::string id;  // "zero3", or "zero3+full" for a remat variant
    plan::Plan plan;
    cost::Evaluation evaluation;
    bool rematVariant = false;  // a variant of the expert before it, which does not fit
    // The expert plan's warnings (plan.batch-of-one): the search's --json and stderr carry them.
    std::vector<Diagnostic> warnings;
};

// Every expert plan that applies to the model and mesh, evaluated, in plan::expertPlans() order (experts that
// do not apply are left out). After an expert that does not fit, its first remat variant that fits
// (plan::rematVariants: selective, dots-saveable, full), when one does.
std::vector<ExpertEvaluation> evaluateExperts(const cost::CostModel& model);

// The evaluation summary a workspace keeps with each plan, as JSON: step_time_s, peak_memory_bytes, feasible,
// collective_time_s and memory_breakdown (parameters, gradients, optimizer_state, activations, temporaries).
std::string evaluationSummaryJson(const cost::Evaluation& evaluation);

// A budget as the CLI's --budget takes it: "60s", "5000it", "60s,5000it" for both; "none" without a limit.
std::string budgetText(const search::Budget& budget);

// How the session was asked for, beyond the options the search takes.
struct SessionSettings {
    std::string name;    // empty: "session ID", ID = the session's id
    std::string budget;  // as the user wrote it; empty: budgetText(options.budget)
    bool exhaustive = false;
};

// Records one search of `problem` into a session of `workspace`. Start it, save the experts, then pass it to
// Search::run() as the observer (after attach()) and call finish() once run() has returned. runSearch() does
// all that.
//
// Assumes the workspace, the problem and the attached search outlive the recorder, and that the observer
// calls come one at a time (as Search makes them). Saving queues the writes (store::Workspace batches them);
// finish() flushes and reports whether everything was written.
class SessionRecorder : public search::SearchObserver {
public:
    // Adds the session: settings JSON {"problem": problemSpecJson(problem), "search": {budget, threads, seed,
    // exploration, refine, max_decisions, exhaustive}, "pins": `start` as plan JSON}. Errors: the workspace
    // cannot be written.
    static Result<std::unique_ptr<SessionRecorder>> start(store::Workspace& workspace, const Problem& problem,
                                                          const plan::Plan& start,
                                                          const search::SearchOptions& options,
                                                          const SessionSettings& settings);

    std::int64_t session() const { return session_; }
    store::Workspace& workspace() const { return *workspace_; }

    // Evaluates the expert plans and saves each (origin "expert:ID") with the session, whatever their rank;
    // returns them. Call it once: later calls save them again.
    std::vector<ExpertEvaluation> saveExperts();

    // The search whose changed tree nodes (Search::changedNodes) are saved with each progress report; none
    // (nullptr) saves no tree.
    void attach(search::Search* search) { search_ = search; }

    // Saves the tree nodes changed since the last report. The root is linked to the best plan so far
    // (TreeNodeRecord::plan); other nodes are not linked yet (their plan is their path of actions).
    void progress(const search::Progress& progress) override;
    // Saves a new best plan found by the search (origin "search"); those the search reports from its expert
    // seeds are not saved again (saveExperts() has them).
    void newBest(const search::Found& found) override;
    // Saves a plan whatever its origin (the exhaustive search's optimum, a plan the user made); returns its
    // id.
    std::int64_t savePlan(const search::Found& found);

    // Saves the tree's last changes and writes everything queued. Errors: those of store::Workspace::flush().
    Status finish();

private:
    SessionRecorder(store::Workspace& workspace, const Problem& problem, std::int64_t session)
        : workspace_(&workspace), problem_(&problem), session_(session) {}
    void saveTree();

    store::Workspace* workspace_;
    const Problem* problem_;
    std::int64_t session_;
    search::Search* search_ = nullptr;
    std::map<std::string, std::int64_t> expertPlans_;  // "expert:ID" -> its saved plan id
    std::int64_t bestPlan_ = 0;                        // the saved id of the best plan so far, 0 before one
};

// A search as the user asks for it.
struct SearchRequest {
    plan::Plan start;  // pins, forbidden decisions, resolutions, remat (decisions past the pins are dropped)
    search::SearchOptions options;  // checked by search::checkOptions
    bool exhaustive = false;        // the true optimum (search::exhaustiveSearch) instead of MCTS
    SessionSettings settings;       // how the session is named and described when recorded
};

// What a search run gives back.
struct SearchRun {
    search::Found best;
    search::Progress last;      // the last progress report (MCTS)
    std::size_t treeNodes = 0;  // the tree's nodes, or the states the exhaustive search enumerated
    std::vector<ExpertEvaluation> experts;  // evaluateExperts(), saved with the session when recorded
    std::int64_t session = 0;               // the recorded session's id, 0 when not recorded
    // Whether everything recorded was written; when not (a full disk), the search's result is still here,
    // `saveError` says why and `plansKept` how many plans the session holds.
    bool saved = true;
    std::optional<Diagnostic> saveError;
    std::size_t plansKept = 0;
};

// How a caller follows and steers a run (every member optional; all are called on the searching thread).
struct SearchHooks {
    search::SearchObserver* observer = nullptr;           // every report, after the recorder has saved it
    std::function<void(std::int64_t session)> recording;  // the session was created (before the experts)
    // Called with the MCTS engine before run() (return false to not run it: stopped before it began) and with
    // nullptr once run() has returned; the explorer keeps it to pause and stop the search.
    std::function<bool(search::Search*)> attach;
};

// Runs the search `request` asks for on `problem`, recorded into `workspace` when it is not null (a new
// session). Errors: options search::checkOptions refuses, the session cannot be added, those of the
// exhaustive search. A recording that cannot be finished is not an error: see SearchRun::saved.
Result<SearchRun> runSearch(const Problem& problem, store::Workspace* workspace, SearchRequest request,
                            const SearchHooks& hooks = {});

}  // namespace shardscope::session
