// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/session/recording.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "shardscope/plan/experts.h"
#include "shardscope/plan/plan_json.h"

namespace shardscope::session {

using search::Found;
using search::Progress;

using nlohmann::json;

std::vector<ExpertEvaluation> evaluateExperts(const cost::CostModel& model) {
    std::vector<ExpertEvaluation> experts;
    auto evaluate = [&](const plan::Plan& p) { return cost::evaluate(model, p); };
    for (const auto& expert : plan::expertPlans()) {
        auto built = plan::expertPlan(expert.id, model.planContext(), model.mesh());
        if (!built)
            continue;
        auto evaluation = evaluate(*built);
        const bool fits = evaluation.feasible;
        std::vector<Diagnostic> warnings = built.diagnostics();
        experts.push_back({expert.id, std::move(built).value(), std::move(evaluation), false, warnings});
        if (!fits)
            if (auto variant = search::fittingRematVariant(expert.id, model, evaluate))
                experts.push_back(
                    {variant->id, std::move(variant->plan), std::move(variant->evaluation), true, warnings});
    }
    return experts;
}

std::string evaluationSummaryJson(const cost::Evaluation& e) {
    return json{{"step_time_s", e.stepTime},
                {"peak_memory_bytes", e.peakMemory},
                {"feasible", e.feasible},
                {"collective_time_s", e.collectiveTime},
                {"memory_breakdown",
                 {{"parameters", e.atPeak.parameters},
                  {"gradients", e.atPeak.gradients},
                  {"optimizer_state", e.atPeak.optimizerState},
                  {"activations", e.atPeak.activations},
                  {"temporaries", e.atPeak.temporaries}}}}
        .dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string budgetText(const search::Budget& budget) {
    std::string text;
    if (budget.seconds > 0) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%gs", budget.seconds);
        text = buffer;
    }
    if (budget.iterations > 0)
        text += (text.empty() ? "" : ",") + std::to_string(budget.iterations) + "it";
    return text.empty() ? "none" : text;
}

Result<std::unique_ptr<SessionRecorder>> SessionRecorder::start(store::Workspace& workspace,
                                                                const Problem& problem,
                                                                const plan::Plan& start,
                                                                const search::SearchOptions& options,
                                                                const SessionSettings& settings) {
    const json asked{
        {"problem", json::parse(problemSpecJson(problem))},
        {"search",
         {{"budget", settings.budget.empty() ? budgetText(options.budget) : settings.budget},
          {"threads", options.threads},
          {"lanes", options.lanes},
          {"seed", options.seed},
          {"exploration", options.exploration},
          {"refine", options.refineProbability},
          {"max_decisions", options.maxDecisions},
          {"exhaustive", settings.exhaustive}}},
        {"pins", json::parse(plan::toJson(start, problem.costModel->planContext(), problem.mesh))}};
    // An empty name becomes "session ID": unique when other processes add sessions at the same time.
    auto added =
        workspace.addSession(settings.name, asked.dump(-1, ' ', false, json::error_handler_t::replace));
    if (!added)
        return Result<std::unique_ptr<SessionRecorder>>::failure(added.diagnostics());
    return std::unique_ptr<SessionRecorder>(new SessionRecorder(workspace, problem, *added));
}

std::vector<ExpertEvaluation> SessionRecorder::saveExperts() {
    auto experts = evaluateExperts(*problem_->costModel);
    for (const auto& expert : experts) {
        Found found;
        found.plan = expert.plan;
        found.evaluation = expert.evaluation;
        found.origin = "expert:" + expert.id;
        expertPlans_[found.origin] = savePlan(found);
    }
    return experts;
}

void SessionRecorder::progress(const Progress&) {
    saveTree();
}

void SessionRecorder::newBest(const Found& found) {
    if (found.origin.rfind("expert:", 0) == 0) {
        const auto saved = expertPlans_.find(found.origin);
        bestPlan_ = saved == expertPlans_.end() ? 0 : saved->second;
        return;
    }
    bestPlan_ = savePlan(found);
}

std::int64_t SessionRecorder::savePlan(const Found& found) {
    store::PlanRecord record;
    record.session = session_;
    record.plan = plan::toJson(found.plan, problem_->costModel->planContext(), problem_->mesh);
    record.evaluation = evaluationSummaryJson(found.evaluation);
    record.stepTime = found.evaluation.stepTime;
    record.peakMemory = found.evaluation.peakMemory;
    record.feasible = found.evaluation.feasible;
    record.foundAfterSeconds = found.seconds;
    record.iteration = found.iteration;
    record.origin = found.origin;
    return workspace_->savePlan(std::move(record));
}

void SessionRecorder::saveTree() {
    if (!search_)
        return;
    std::vector<store::TreeNodeRecord> nodes;
    for (const auto& n : search_->changedNodes())
        nodes.push_back(
            {n.id, n.parent, n.action, n.visits, n.valueSum, n.best, n.id == 0 ? bestPlan_ : 0, n.status});
    if (!nodes.empty())
        workspace_->saveNodes(session_, std::move(nodes));
}

Status SessionRecorder::finish() {
    saveTree();
    return workspace_->flush();
}

namespace {

// Passes each report to the recorder first (so a plan is saved before anyone hears of it), then to the
// caller.
class RecordingObserver : public search::SearchObserver {
public:
    RecordingObserver(SessionRecorder* recorder, search::SearchObserver* next)
        : recorder_(recorder), next_(next) {}
    const Progress& last() const { return last_; }

    void progress(const Progress& p) override {
        last_ = p;
        if (recorder_)
            recorder_->progress(p);
        if (next_)
            next_->progress(p);
    }
    void newBest(const Found& f) override {
        if (recorder_)
            recorder_->newBest(f);
        if (next_)
            next_->newBest(f);
    }

private:
    SessionRecorder* recorder_;
    search::SearchObserver* next_;
    Progress last_;
};

}  // namespace

Result<SearchRun> runSearch(const Problem& problem, store::Workspace* workspace, SearchRequest request,
                            const SearchHooks& hooks) {
    if (auto checked = search::checkOptions(request.options); !checked)
        return Result<SearchRun>::failure(checked.diagnostics());
    request.start.decisions.resize(std::min(request.start.decisions.size(), request.start.pinned));
    const cost::CostModel& model = *problem.costModel;
    SearchRun run;
    std::unique_ptr<SessionRecorder> recorder;
    if (workspace) {
        request.settings.exhaustive = request.exhaustive;
        auto started =
            SessionRecorder::start(*workspace, problem, request.start, request.options, request.settings);
        if (!started)
            return Result<SearchRun>::failure(started.diagnostics());
        recorder = std::move(started).value();
        run.session = recorder->session();
        if (hooks.recording)
            hooks.recording(run.session);
    }
    // The experts on the same problem, for comparison (and saved with the session).
    run.experts = recorder ? recorder->saveExperts() : evaluateExperts(model);
    std::optional<search::Search> engine;  // outlives the recorder's last save of its tree
    if (request.exhaustive) {
        auto result = search::exhaustiveSearch(model, request.start, request.options.maxDecisions);
        if (!result)
            return Result<SearchRun>::failure(result.diagnostics());
        run.best = result->best;
        run.treeNodes = result->states;
        if (recorder)
            recorder->savePlan(run.best);
    } else {
        engine.emplace(model, request.start, request.options);
        // Whatever way run() leaves, the caller no longer reaches the engine after it.
        struct Detach {
            const SearchHooks& hooks;
            ~Detach() {
                if (hooks.attach)
                    hooks.attach(nullptr);
            }
        };
        if (!hooks.attach || hooks.attach(&*engine)) {
            const Detach detach{hooks};
            RecordingObserver observer(recorder.get(), hooks.observer);
            if (recorder)
                recorder->attach(&*engine);
            run.best = engine->run(&observer);
            run.last = observer.last();
        }
        run.treeNodes = engine->treeSize();
    }
    // A workspace that cannot be written (a full disk) loses this search's unsaved changes, not the search.
    if (recorder) {
        auto flushed = recorder->finish();  // saves the last tree changes too
        if (!flushed) {
            run.saved = false;
            run.saveError = flushed.diagnostics().front();
            run.plansKept = workspace->plans(run.session, store::PlanContent::Summary).size();
        }
    }
    return run;
}

}  // namespace shardscope::session
