// Recording a search into a workspace (DESIGN.md §7): the session's settings, the expert plans it is compared
// with, every new best plan and the search tree as it grows. The CLI's `search` and the GUI's search panel
// record through here, so a session written by either reads the same.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "shardscope/cost/cost_model.h"
#include "shardscope/diagnostic.h"
#include "shardscope/plan/plan.h"
#include "shardscope/problem.h"
#include "shardscope/search/search.h"
#include "shardscope/store/workspace.h"

namespace shardscope::search {

// An expert plan of the problem and its evaluation, for comparing a search's result with.
struct ExpertEvaluation {
    std::string id;  // "zero3", or "zero3+full" for a remat variant
    plan::Plan plan;
    cost::Evaluation evaluation;
    bool rematVariant = false;  // a variant of the expert before it, which does not fit
};

// Every expert plan that applies to the model and mesh, evaluated, in plan::expertPlans() order (experts that
// do not apply are left out). After an expert that does not fit, its first remat variant that fits
// (plan::rematVariants: selective, dots-saveable, full), when one does.
std::vector<ExpertEvaluation> evaluateExperts(const cost::CostModel& model);


// The evaluation summary a workspace keeps with each plan, as JSON: step_time_s, peak_memory_bytes, feasible,
// collective_time_s and memory_breakdown (parameters, gradients, optimizer_state, activations, temporaries).
std::string evaluationSummaryJson(const cost::Evaluation& evaluation);

// A budget as the CLI's --budget takes it: "60s", "5000it", "60s,5000it" for both; "none" without a limit.
std::string budgetText(const Budget& budget);

// The model record a new workspace for `spec` holds: the source, the file's bytes (none for zoo models, whose
// name rebuilds them) and the load options as JSON (train, optimizer, loss, loss_output, mixed_precision,
// dimensions, entry).
// With `modelBytes` (a workspace's model), those are the bytes and no file is read.
// Errors: the model file cannot be read (see readModelFile).
Result<store::ModelRecord> modelRecord(const ProblemSpec& spec, const std::string* modelBytes = nullptr);

// How the session was asked for, beyond the options the search takes.
struct SessionSettings {
    std::string name;    // empty: "session ID", ID = the session's id
    std::string budget;  // as the user wrote it; empty: budgetText(options.budget)
    bool exhaustive = false;
};

// Records one search of `problem` into a session of `workspace`. Start it, save the experts, then pass it to
// Search::run() as the observer (after attach()) and call finish() once run() has returned.
//
// Assumes the workspace, the problem and the attached search outlive the recorder, and that the observer
// calls come one at a time (as Search makes them). Saving queues the writes (store::Workspace batches them);
// finish() flushes and reports whether everything was written.
class SessionRecorder : public SearchObserver {
public:
    // Adds the session: settings JSON {"problem": problemSpecJson(problem), "search": {budget, threads, seed,
    // exploration, max_decisions, exhaustive}, "pins": `start` as plan JSON}. Errors: the workspace cannot be
    // written.
    static Result<std::unique_ptr<SessionRecorder>> start(store::Workspace& workspace, const Problem& problem,
                                                          const plan::Plan& start,
                                                          const SearchOptions& options,
                                                          const SessionSettings& settings);

    std::int64_t session() const { return session_; }
    store::Workspace& workspace() const { return *workspace_; }

    // Evaluates the expert plans and saves each (origin "expert:ID") with the session, whatever their rank;
    // returns them. Call it once: later calls save them again.
    std::vector<ExpertEvaluation> saveExperts();

    // The search whose changed tree nodes (Search::changedNodes) are saved with each progress report; none
    // (nullptr) saves no tree.
    void attach(Search* search) { search_ = search; }

    // Saves the tree nodes changed since the last report. The root is linked to the best plan so far
    // (TreeNodeRecord::plan); other nodes are not linked yet (their plan is their path of actions).
    void progress(const Progress& progress) override;
    // Saves a new best plan found by the search (origin "search"); those the search reports from its expert
    // seeds are not saved again (saveExperts() has them).
    void newBest(const Found& found) override;
    // Saves a plan whatever its origin (the exhaustive search's optimum, a plan the user made); returns its
    // id.
    std::int64_t savePlan(const Found& found);

    // Saves the tree's last changes and writes everything queued. Errors: those of store::Workspace::flush().
    Status finish();

private:
    SessionRecorder(store::Workspace& workspace, const Problem& problem, std::int64_t session)
        : workspace_(&workspace), problem_(&problem), session_(session) {}
    void saveTree();

    store::Workspace* workspace_;
    const Problem* problem_;
    std::int64_t session_;
    Search* search_ = nullptr;
    std::map<std::string, std::int64_t> expertPlans_;  // "expert:ID" -> its saved plan id
    std::int64_t bestPlan_ = 0;                        // the saved id of the best plan so far, 0 before one
};

}  // namespace shardscope::search
