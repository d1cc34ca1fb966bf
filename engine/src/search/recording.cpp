#include "shardscope/search/recording.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "shardscope/input_file.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/plan_json.h"

namespace shardscope::search {

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
        experts.push_back({expert.id, std::move(built).value(), std::move(evaluation), false});
        if (!fits)
            if (auto variant = fittingRematVariant(expert.id, model, evaluate))
                experts.push_back({variant->id, std::move(variant->plan), std::move(variant->evaluation), true});
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

std::string budgetText(const Budget& budget) {
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

Result<store::ModelRecord> modelRecord(const ProblemSpec& spec, const std::string* modelBytes) {
    store::ModelRecord record;
    record.source = spec.model;
    if (modelBytes && spec.model.rfind("zoo:", 0) != 0) {
        record.bytes = *modelBytes;
    } else if (spec.model.rfind("zoo:", 0) != 0) {
        auto bytes = readModelFile(spec.model);
        if (!bytes)
            return makeError("search.model_file", "cannot keep the model in the workspace: " + bytes.diagnostics().front().message);
        record.bytes = std::move(bytes).value();
    }
    json dimensions = json::object();
    for (const auto& [name, value] : spec.dimensions)
        dimensions[name] = value;
    json sizes = json::object();
    for (const auto& [name, value] : spec.sizes)
        sizes[name] = value;
    record.loadOptions = json{
        {"train", spec.train},
        {"optimizer", spec.optimizer},
        {"loss", spec.loss},
        {"loss_output", spec.lossOutput},
        {"mixed_precision", spec.mixedPrecision},
        {"dimensions",
         dimensions},
        {"sizes", sizes},
        {"entry", spec.entry}}.dump(-1, ' ', false, json::error_handler_t::replace);  // a path need not be UTF-8
    return record;
}

Result<std::unique_ptr<SessionRecorder>> SessionRecorder::start(store::Workspace& workspace,
                                                                const Problem& problem,
                                                                const plan::Plan& start,
                                                                const SearchOptions& options,
                                                                const SessionSettings& settings) {
    const json asked{
        {"problem", json::parse(problemSpecJson(problem))},
        {"search",
         {{"budget", settings.budget.empty() ? budgetText(options.budget) : settings.budget},
          {"threads", options.threads},
          {"seed", options.seed},
          {"exploration", options.exploration},
          {"max_decisions", options.maxDecisions},
          {"exhaustive", settings.exhaustive}}},
        {"pins", json::parse(plan::toJson(start, problem.costModel->planContext(), problem.mesh))}};
    // An empty name becomes "session ID": unique when other processes add sessions at the same time.
    auto added = workspace.addSession(settings.name, asked.dump(-1, ' ', false, json::error_handler_t::replace));
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
        nodes.push_back({n.id, n.parent, n.action, n.visits, n.valueSum, n.best, n.id == 0 ? bestPlan_ : 0, n.status});
    if (!nodes.empty())
        workspace_->saveNodes(session_, std::move(nodes));
}

Status SessionRecorder::finish() {
    saveTree();
    return workspace_->flush();
}

}  // namespace shardscope::search
