// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The planning commands: evaluate, search, plans and compare. Wiring and output only; the work is the
// engine's.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>

#include "cli.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/report/evaluation_report.h"
#include "shardscope/report/model_report.h"
#include "shardscope/search/search.h"
#include "shardscope/session/comparison.h"
#include "shardscope/session/plan_source.h"
#include "shardscope/session/problem.h"
#include "shardscope/session/recording.h"
#include "shardscope/session/workspace_session.h"
#include "shardscope/store/workspace.h"

namespace cli {

using namespace shardscope;
using nlohmann::json;

namespace {

// What `search` says when its workspace could not be written at the end: why (the engine's reason), what the
// workspace still holds, and that the result follows.
std::string unsavedSearchMessage(const Diagnostic& failure, const std::string& path, std::int64_t session,
                                 std::size_t plans) {
    // The engine's message: "cannot save to 'PATH': REASON; N unsaved changes are kept ...": keep the reason.
    std::string reason = failure.message;
    const std::string prefix = "cannot save to '" + path + "': ";
    if (reason.rfind(prefix, 0) == 0)
        reason = reason.substr(prefix.size());
    if (const auto semicolon = reason.find("; "); semicolon != std::string::npos)
        reason = reason.substr(0, semicolon);
    return "cannot save the end of the search to '" + path + "': " + reason + "; session " +
           std::to_string(session) + " keeps the " + std::to_string(plans) +
           " plans saved before, and the search's result is still printed [" + failure.code + "]";
}

// Reports progress on stderr: a bar on a terminal, a line a second otherwise.
class Reporter : public search::SearchObserver {
public:
    Reporter(double seconds, std::int64_t iterations, bool quiet)
        : seconds_(seconds), iterations_(iterations), quiet_(quiet), terminal_(isatty(STDERR_FILENO) != 0) {}

    void progress(const search::Progress& p) override {
        if (quiet_)
            return;
        const std::string best = p.bestStepTime > 0 ? report::formatTime(p.bestStepTime) +
                                                          (p.bestFeasible ? "" : " (does not fit)")
                                                    : "-";
        if (terminal_) {
            const double fraction = seconds_ > 0 ? p.seconds / seconds_
                                    : iterations_ > 0
                                        ? static_cast<double>(p.iterations) / static_cast<double>(iterations_)
                                        : 0;
            const int filled = static_cast<int>(std::min(1.0, fraction) * 30);
            std::fprintf(stderr, "\r[%s%s] %6.1f s  %8lld it  %7.0f it/s  best %s  tree %zu   ",
                         std::string(static_cast<std::size_t>(filled), '#').c_str(),
                         std::string(static_cast<std::size_t>(30 - filled), '-').c_str(), p.seconds,
                         static_cast<long long>(p.iterations),
                         p.seconds > 0 ? static_cast<double>(p.iterations) / p.seconds : 0.0, best.c_str(),
                         p.treeNodes);
            std::fflush(stderr);
        } else if (p.seconds - lastLine_ >= 1.0) {
            lastLine_ = p.seconds;
            std::fprintf(stderr,
                         "search: %.1f s, %lld iterations, %lld evaluations, best %s, tree %zu nodes\n",
                         p.seconds, static_cast<long long>(p.iterations),
                         static_cast<long long>(p.evaluations), best.c_str(), p.treeNodes);
        }
    }

    void finish() {
        if (terminal_ && !quiet_)
            std::fprintf(stderr, "\n");
    }

private:
    double seconds_;
    std::int64_t iterations_;
    bool quiet_, terminal_;
    double lastLine_ = -1;
};

}  // namespace

ProblemSpec specOf(const std::string& source, const import::ImportOptions& options,
                   const TrainingFlags& training, const ProblemFlags& flags) {
    ProblemSpec spec;
    spec.model = source;
    for (const auto& [k, v] : options.dimensions)
        spec.dimensions[k] = v;
    spec.entry = options.entryFunction;
    spec.sizes = options.sizes;
    spec.train = training.enabled;
    spec.optimizer = training.optimizer;
    spec.loss = training.loss;
    spec.lossOutput = training.lossOutput;
    spec.mixedPrecision = training.mixedPrecision;
    spec.mesh = flags.mesh;
    spec.hardware = flags.hardware;
    spec.cost = flags.cost;
    // CLI11 checked both against their lists.
    spec.cost.fusion = cost::parseFusion(flags.fusion).value_or(cost::Fusion::Xla);
    spec.cost.attention = cost::parseAttention(flags.attention).value_or(cost::Attention::Fused);
    spec.cost.runtime = cost::parseRuntime(flags.runtime).value_or(cost::Runtime::Xla);
    return spec;
}

namespace {

// The warnings of several expert plans, one per code: the first expert's says it for the others
// (plan.batch-of-one names dp, and zero1-3 would say the same of the same input).
std::vector<Diagnostic> joinedExpertWarnings(std::vector<Diagnostic> held,
                                             const std::vector<Diagnostic>& more) {
    for (const auto& d : more)
        if (d.severity != Severity::Error &&
            std::none_of(held.begin(), held.end(), [&](const Diagnostic& h) { return h.code == d.code; }))
            held.push_back(d);
    return held;
}

}  // namespace

int evaluate(const std::string& source, const import::ImportOptions& options, const TrainingFlags& training,
             const ProblemFlags& flags, const std::string& planText, bool asJson) {
    auto problem = loadProblem(specOf(source, options, training, flags));
    if (!report(problem))
        return 1;
    const Problem& p = **problem;
    printDiagnostics(p.warnings);
    const cost::CostModel& costModel = *p.costModel;
    if (planText == "experts") {
        // Each expert; one that does not fit is followed by its first remat variant that does (marked).
        json rows = json::array();
        bool anyVariant = false;
        if (!asJson)
            std::printf("%-30s %14s %14s %14s  %s\n", "plan", "step time", "peak memory", "collectives",
                        "fits");
        auto show = [&](const std::string& id, const plan::Plan& plan, const cost::Evaluation& e,
                        const std::string& variantOf, const char* fits) {
            if (asJson) {
                json row{{"id", id},
                         {"step_time_s", e.stepTime},
                         {"peak_memory_bytes", e.peakMemory},
                         {"feasible", e.feasible},
                         {"collective_time_s", e.collectiveTime}};
                if (!variantOf.empty())
                    row["remat_variant_of"] = variantOf;
                json remat = json::array();
                for (const auto& r : plan.remat)
                    remat.push_back(
                        {{"target", r.target}, {"policy", std::string(plan::toString(r.policy))}});
                row["remat"] = remat;
                rows.push_back(std::move(row));
                return;
            }
            const std::string shown = variantOf.empty() ? id : "  " + id + " *";
            std::printf("%-30s %14s %14s %14s  %s\n", shown.c_str(), report::formatTime(e.stepTime).c_str(),
                        report::formatBytes(e.peakMemory).c_str(),
                        report::formatTime(e.collectiveTime).c_str(), fits);
        };
        auto evaluateOne = [&](const plan::Plan& candidate) { return cost::evaluate(costModel, candidate); };
        std::vector<Diagnostic> expertWarnings;
        for (const auto& expert : plan::expertPlans()) {
            auto plan = plan::expertPlan(expert.id, costModel.planContext(), costModel.mesh());
            if (plan)
                expertWarnings = joinedExpertWarnings(std::move(expertWarnings), plan.diagnostics());
            if (!plan) {
                if (asJson)
                    rows.push_back({{"id", expert.id}, {"error", plan.diagnostics().front().message}});
                else
                    std::printf("%-30s %s\n", expert.id.c_str(), plan.diagnostics().front().message.c_str());
                continue;
            }
            const auto e = evaluateOne(*plan);
            const auto variant =
                e.feasible ? std::nullopt : search::fittingRematVariant(expert.id, costModel, evaluateOne);
            const bool tried =
                !e.feasible && !plan::rematVariants(expert.id, costModel.planContext()).empty();
            show(expert.id, *plan, e, "",
                 e.feasible          ? "yes"
                 : tried && !variant ? "no (nor with remat)"
                                     : "no");
            if (variant) {
                anyVariant = true;
                show(variant->id, variant->plan, variant->evaluation, expert.id, "yes");
            }
        }
        printDiagnostics(expertWarnings);
        if (asJson)
            std::cout << jsonText(
                             json{{"version", report::kEvaluationJsonVersion},
                                  {"experts", rows},
                                  {"warnings", warningsJson(joinedDiagnostics(p.warnings, expertWarnings))}})
                      << "\n";
        else if (anyVariant)
            std::printf(
                "* the expert above with rematerialization (ID+POLICY, for --plan expert:ID+POLICY): the "
                "first of selective, "
                "dots-saveable, full that fits\n");
        return 0;
    }
    auto chosen = session::planFromSource(planText, costModel);
    if (!report(chosen))
        return 1;
    const auto e = cost::evaluate(costModel, *chosen);
    std::cout << (asJson ? report::withWarnings(report::evaluationJson(p.model, costModel, *chosen, e),
                                                joinedDiagnostics(p.warnings, chosen.diagnostics()))
                         : report::evaluationText(p.model, costModel, *chosen, e));
    return 0;
}

namespace {

// The search the flags ask for, its start left empty (the pins need the problem). nullopt after saying why.
std::optional<session::SearchRequest> searchRequestOf(const SearchFlags& flags) {
    auto budget = search::parseBudget(flags.budget);
    if (!budget) {
        std::cerr << "shardscope-cli: error: --" << budget.diagnostics().front().message << "\n";
        return std::nullopt;
    }
    session::SearchRequest request;
    request.options.exploration = flags.exploration;
    request.options.refineProbability = flags.refine;
    request.options.threads = flags.threads;
    request.options.lanes = flags.lanes;
    request.options.seed = flags.seed;
    request.options.budget = *budget;
    request.options.budget.patience = flags.patience;
    request.options.maxDecisions = flags.maxDecisions;
    request.options.seedWithExperts = !flags.noExperts;
    request.exhaustive = flags.exhaustive;
    request.settings = {flags.session, flags.budget, flags.exhaustive};
    if (!report(search::checkOptions(request.options)))
        return std::nullopt;
    return request;
}

// --pin and --forbid as the plan a search starts from; a pin the mesh cannot apply anywhere is kept (the user
// asked for it) but said. nullopt after saying why.
std::optional<plan::Plan> pinsOf(const SearchFlags& flags, const Problem& problem) {
    std::vector<plan::Decision> pins, forbidden;
    for (const auto& [texts, flag, out] :
         {std::tuple{&flags.pins, "--pin", &pins}, std::tuple{&flags.forbidden, "--forbid", &forbidden}})
        for (const auto& text : *texts) {
            auto d = session::decisionFromLabel(text, problem.space, problem.mesh, flag);
            if (!report(d))
                return std::nullopt;
            out->push_back(*d);
        }
    plan::Plan start = session::pinsPlan(std::move(pins), std::move(forbidden));
    printDiagnostics(plan::checkDivisibility(start, problem.costModel->planContext(), problem.mesh, "--pin"));
    return start;
}

// The search's result: the best plan's evaluation, how it was found, the experts and the workspace.
void printSearchRun(const Problem& problem, const session::SearchRun& run, const std::string& workspacePath,
                    bool exhaustive, bool asJson) {
    const cost::CostModel& costModel = *problem.costModel;
    json experts = json::array();
    const session::ExpertEvaluation* bestExpert = nullptr;
    for (const auto& expert : run.experts) {
        const auto& e = expert.evaluation;
        json row{{"id", expert.id},
                 {"step_time_s", e.stepTime},
                 {"feasible", e.feasible},
                 {"peak_memory_bytes", e.peakMemory}};
        if (expert.rematVariant)
            row["remat_variant_of"] = expert.id.substr(0, expert.id.find('+'));
        experts.push_back(std::move(row));
        if (e.feasible && (!bestExpert || e.stepTime < bestExpert->evaluation.stepTime))
            bestExpert = &expert;
    }
    std::vector<Diagnostic> expertWarnings;
    for (const auto& expert : run.experts)
        expertWarnings = joinedExpertWarnings(std::move(expertWarnings), expert.warnings);
    printDiagnostics(expertWarnings);
    const search::Found& best = run.best;
    const auto e = cost::evaluate(costModel, best.plan);
    if (asJson) {
        json result{{"version", 1},
                    {"best", json::parse(report::evaluationJson(problem.model, costModel, best.plan, e))},
                    {"experts", experts},
                    {"search",
                     {{"iterations", run.last.iterations},
                      {"evaluations", run.last.evaluations},
                      {"seconds", run.last.seconds},
                      {"tree_nodes", run.treeNodes},
                      {"origin", best.origin},
                      {"found_after_s", best.seconds},
                      {"exhaustive", exhaustive}}},
                    {"warnings", warningsJson(joinedDiagnostics(problem.warnings, expertWarnings))}};
        if (run.session != 0)
            result["workspace"] = {{"path", workspacePath}, {"session", run.session}, {"saved", run.saved}};
        std::cout << jsonText(result) << "\n";
        return;
    }
    std::cout << report::evaluationText(problem.model, costModel, best.plan, e);
    std::cout << "found         by " << best.origin << " after " << best.seconds << " s (iteration "
              << best.iteration << "); " << run.treeNodes
              << (exhaustive ? " states enumerated" : " tree nodes") << "\n";
    if (bestExpert)
        std::cout << "best expert   " << bestExpert->id << " "
                  << report::formatTime(bestExpert->evaluation.stepTime) << " (found plan is "
                  << bestExpert->evaluation.stepTime / e.stepTime << "x as fast)\n";
    if (run.session != 0)
        std::cout << "workspace     " << workspacePath << ", session " << run.session
                  << (run.saved ? "" : " (not all saved)") << "\n";
}

}  // namespace

int search(const std::string& source, const import::ImportOptions& options, const TrainingFlags& training,
           const ProblemFlags& flags, const SearchFlags& searchFlags, bool asJson) {
    auto request = searchRequestOf(searchFlags);
    if (!request)
        return 2;
    // The model may be a workspace (then the search records into it); else --workspace is opened or created.
    auto opened =
        session::WorkspaceSession::open(specOf(source, options, training, flags), searchFlags.workspace);
    if (!report(opened))
        return opened.diagnostics().front().code == "session.workspace-flag" ? 2 : 1;
    auto loaded = opened->loadProblem();
    if (!report(loaded))
        return 1;
    const Problem& problem = **loaded;
    printDiagnostics(problem.warnings);
    auto workspace = opened->workspace();
    if (!report(workspace))
        return 1;
    auto start = pinsOf(searchFlags, problem);
    if (!start)
        return 2;
    request->start = std::move(*start);
    Reporter reporter(request->options.budget.seconds, request->options.budget.iterations, asJson);
    auto run = session::runSearch(problem, *workspace, std::move(*request), {&reporter, {}, {}});
    reporter.finish();
    if (!report(run))
        return 1;
    // A workspace that cannot be written (a full disk) loses this search's unsaved changes, not the search:
    // the result is still printed, the failure said once, and the exit status is 1.
    if (!run->saved)
        std::cerr << "shardscope-cli: error: "
                  << unsavedSearchMessage(*run->saveError, opened->workspacePath(), run->session,
                                          run->plansKept)
                  << "\n";
    printSearchRun(problem, *run, opened->workspacePath(), searchFlags.exhaustive, asJson);
    return run->saved ? 0 : 1;
}

int plans(const std::string& path, bool asJson) {
    auto opened = store::Workspace::open(path);
    if (!report(opened))
        return 1;
    const store::Workspace& w = *opened;
    json sessions = json::array();
    if (!asJson)
        std::printf("workspace %s: model %s\n", path.c_str(), w.model().source.c_str());
    for (const auto& s : w.sessions()) {
        const auto settings = json::parse(s.settings, nullptr, false);
        std::string meshText, hardware;
        try {
            // What the settings say of the mesh and hardware, as far as they have the expected shape (a field
            // of another type throws, and then shows as "?").
            if (settings.is_object() && settings.contains("problem")) {
                const auto& problem = settings["problem"];
                if (problem.contains("mesh") && problem["mesh"].contains("axes"))
                    for (const auto& a : problem["mesh"]["axes"])
                        meshText += (meshText.empty() ? "" : ",") + a.value("name", "?") + "=" +
                                    std::to_string(a.value("size", 0));
                if (problem.contains("hardware"))
                    hardware = problem["hardware"].value("id", "");
            }
        } catch (const json::exception&) {
            meshText = meshText.empty() ? "?" : meshText + ",?";
            if (hardware.empty())
                hardware = "?";
        }
        json rows = json::array();
        if (!asJson)
            std::printf("\nsession %lld \"%s\": mesh %s on %s, %lld tree nodes\n",
                        static_cast<long long>(s.id), s.name.c_str(), meshText.c_str(), hardware.c_str(),
                        static_cast<long long>(w.nodeCount(s.id)));
        if (!asJson)
            std::printf("  %6s  %-18s %14s %14s %5s %10s  %s\n", "plan", "origin", "step time", "peak memory",
                        "fits", "found at", "label");
        for (const auto& p : w.plans(s.id, store::PlanContent::Summary)) {
            rows.push_back({{"id", p.id},
                            {"origin", p.origin},
                            {"step_time_s", p.stepTime},
                            {"peak_memory_bytes", p.peakMemory},
                            {"feasible", p.feasible},
                            {"found_after_s", p.foundAfterSeconds},
                            {"iteration", p.iteration},
                            {"label", p.label},
                            {"note", p.note}});
            if (!asJson)
                std::printf("  %6lld  %-18s %14s %14s %5s %9.2fs  %s\n", static_cast<long long>(p.id),
                            p.origin.c_str(), report::formatTime(p.stepTime).c_str(),
                            report::formatBytes(p.peakMemory).c_str(), p.feasible ? "yes" : "no",
                            p.foundAfterSeconds, p.label.c_str());
        }
        sessions.push_back({{"id", s.id},
                            {"name", s.name},
                            {"mesh", meshText},
                            {"hardware", hardware},
                            {"tree_nodes", w.nodeCount(s.id)},
                            {"plans", rows}});
    }
    if (asJson)
        std::cout << jsonText(json{{"version", 1}, {"model", w.model().source}, {"sessions", sessions}})
                  << "\n";
    return 0;
}

int label(const std::string& reference, const std::string& text, const std::string& note) {
    const auto colon = reference.rfind(':');
    char* end = nullptr;
    const long long id =
        colon == std::string::npos ? 0 : std::strtoll(reference.c_str() + colon + 1, &end, 10);
    if (colon == std::string::npos || id <= 0 || *end != '\0') {
        std::cerr << "shardscope-cli: error: label expects WORKSPACE.shardscope:PLAN_ID, got '" << reference
                  << "'\n";
        return 2;
    }
    auto opened = store::Workspace::open(reference.substr(0, colon));
    if (!report(opened))
        return 1;
    if (!opened->plan(id)) {
        std::cerr << "shardscope-cli: error: " << opened->path() << " has no plan " << id
                  << " (see `shardscope-cli plans`)\n";
        return 1;
    }
    opened->setLabel(id, text, note);
    return report(opened->flush()) ? 0 : 1;
}

int compare(const std::string& a, const std::string& b, bool asJson) {
    std::optional<session::RecordedPlan> sides[2];
    std::vector<Diagnostic> warnings;  // of loading the two sides' models
    for (int i = 0; i < 2; ++i) {
        auto opened = session::openRecordedPlan(i == 0 ? a : b);
        if (!opened && opened.diagnostics().front().code == "session.plan-reference") {
            std::cerr << "shardscope-cli: error: compare " << opened.diagnostics().front().message << "\n";
            return 2;
        }
        if (!report(opened))
            return 1;
        sides[i].emplace(std::move(opened).value());
        // The same model on both sides warns alike: said once.
        for (const auto& w : sides[i]->problem->warnings)
            if (std::find(warnings.begin(), warnings.end(), w) == warnings.end())
                warnings.push_back(w);
    }
    printDiagnostics(warnings);
    const session::RecordedPlan& sa = *sides[0];
    const session::RecordedPlan& sb = *sides[1];
    const auto& ma = sa.workspace.model();
    const auto& mb = sb.workspace.model();
    if (ma.source != mb.source || ma.sha256 != mb.sha256) {
        std::cerr << "shardscope-cli: error: the two plans are for different models: '" << sa.workspace.path()
                  << "' holds '" << ma.source << "', '" << sb.workspace.path() << "' holds '" << mb.source
                  << (ma.source == mb.source ? "' with other bytes" : "'")
                  << " (compare plans of workspaces of the same model)\n";
        return 1;
    }
    const session::Comparison c = session::comparePlans(*sa.problem, sa.plan, *sb.problem, sb.plan);
    const auto& ea = c.evaluationA;
    const auto& eb = c.evaluationB;
    if (asJson) {
        json out{{"version", 1}};
        for (int i = 0; i < 2; ++i) {
            const session::RecordedPlan& side = *sides[i];
            const auto& e = i == 0 ? ea : eb;
            json decisions = json::array(), remat = json::array();
            for (const auto& d : side.plan.decisions)
                decisions.push_back(
                    plan::decisionText(d, side.problem->costModel->planContext(), side.problem->mesh));
            for (const auto& r : side.plan.remat)
                remat.push_back(plan::rematText(r));
            json kinds = json::object();
            for (const auto& k : c.collectives)
                if (k.count[i] > 0)
                    kinds[std::string(cost::toString(k.kind))] = {{"count", k.count[i]},
                                                                  {"time_s", k.time[i]}};
            out[i == 0 ? "a" : "b"] = {{"plan", side.reference},
                                       {"decisions", decisions},
                                       {"remat", remat},
                                       {"summary", json::parse(session::evaluationSummaryJson(e))},
                                       {"collectives_by_kind", kinds}};
        }
        json matches = json::array();
        for (const auto& d : c.decisions)
            matches.push_back({{"decision", d.text},
                               {"in", d.side == session::DecisionMatch::Side::Both    ? "both"
                                      : d.side == session::DecisionMatch::Side::OnlyA ? "a"
                                                                                      : "b"}});
        out["matching"] = matches;
        out["warnings"] = warningsJson(warnings);
        std::cout << jsonText(out) << "\n";
        return 0;
    }
    auto row = [](const std::string& what, const std::string& x, const std::string& y) {
        std::printf("%-22s %-30s %-30s\n", what.c_str(), x.c_str(), y.c_str());
    };
    row("", a, b);
    row("mesh", sa.problem->mesh.toString(), sb.problem->mesh.toString());
    // Decisions matched by their words (as the explorer matches them); '*' marks one only one plan has.
    bool firstDecision = true, firstRemat = true;
    for (const auto& d : c.decisions) {
        bool& first = d.remat ? firstRemat : firstDecision;
        const std::string text = d.remat ? d.text.substr(6) : d.text;  // "remat layers.*: full" under "remat"
        const std::string mark = d.side == session::DecisionMatch::Side::Both ? "  " : "* ";
        row(first ? (d.remat ? "remat" : "decisions") : "",
            d.side == session::DecisionMatch::Side::OnlyB ? "" : mark + text,
            d.side == session::DecisionMatch::Side::OnlyA ? "" : mark + text);
        first = false;
    }
    row("step time", report::formatTime(ea.stepTime), report::formatTime(eb.stepTime));
    row("  compute", report::formatTime(ea.computeTime), report::formatTime(eb.computeTime));
    row("  collectives", report::formatTime(ea.collectiveTime), report::formatTime(eb.collectiveTime));
    row("peak memory", report::formatBytes(ea.peakMemory), report::formatBytes(eb.peakMemory));
    row("  parameters", report::formatBytes(ea.atPeak.parameters), report::formatBytes(eb.atPeak.parameters));
    row("  gradients", report::formatBytes(ea.atPeak.gradients), report::formatBytes(eb.atPeak.gradients));
    row("  optimizer state", report::formatBytes(ea.atPeak.optimizerState),
        report::formatBytes(eb.atPeak.optimizerState));
    row("  activations", report::formatBytes(ea.atPeak.activations),
        report::formatBytes(eb.atPeak.activations));
    row("  temporaries", report::formatBytes(ea.atPeak.temporaries),
        report::formatBytes(eb.atPeak.temporaries));
    row("fits", ea.feasible ? "yes" : "no", eb.feasible ? "yes" : "no");
    for (const auto& k : c.collectives) {
        auto text = [&](std::size_t i) {
            return k.count[i] == 0 ? std::string("-")
                                   : std::to_string(k.count[i]) + ", " + report::formatTime(k.time[i]);
        };
        row(std::string(cost::toString(k.kind)), text(0), text(1));
    }
    return 0;
}

}  // namespace cli
