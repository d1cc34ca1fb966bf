// The planning commands: evaluate, search, plans and compare. Wiring and output only; the work is the engine's.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.h"
#include "shardscope/export/reference_plan.h"
#include "shardscope/input_file.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/problem.h"
#include "shardscope/report/evaluation_report.h"
#include "shardscope/report/model_report.h"
#include "shardscope/search/recording.h"
#include "shardscope/search/search.h"
#include "shardscope/store/workspace.h"

namespace cli {

using namespace shardscope;
using nlohmann::json;

namespace {




// What `search` says when its workspace could not be written at the end: why (the engine's reason), what the
// workspace still holds, and that the result follows.
std::string unsavedSearchMessage(const Diagnostic& failure, const std::string& path, std::int64_t session, std::size_t plans) {
    // The engine's message: "cannot save to 'PATH': REASON; N unsaved changes are kept ...": keep the reason.
    std::string reason = failure.message;
    const std::string prefix = "cannot save to '" + path + "': ";
    if (reason.rfind(prefix, 0) == 0) reason = reason.substr(prefix.size());
    if (const auto semicolon = reason.find("; "); semicolon != std::string::npos) reason = reason.substr(0, semicolon);
    return "cannot save the end of the search to '" + path + "': " + reason + "; session " + std::to_string(session) + " keeps the " +
           std::to_string(plans) + " plans saved before, and the search's result is still printed [" + failure.code + "]";
}

// "LABEL=AXIS" as a decision on a group (or else a name) of that label.
Result<plan::Decision> decisionArgument(const std::string& text, const Problem& problem, const char* flag) {
    const auto eq = text.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        return makeError("cli.decision", std::string(flag) + " expects LABEL=AXIS (a group or name label from analyze), got '" + text + "'");
    const std::string label = text.substr(0, eq), axisName = text.substr(eq + 1);
    const auto axis = problem.mesh.axisIndex(axisName);
    if (!axis) return makeError("cli.decision", std::string(flag) + " " + text + ": the mesh has no axis '" + axisName + "' (it has " + problem.mesh.toString() + ")");
    const auto& space = problem.space;
    for (std::size_t g = 0; g < space.groups.size(); ++g)
        if (space.groups[g].label == label) return plan::Decision{plan::Decision::Target::Group, static_cast<std::uint32_t>(g), *axis};
    for (std::size_t n = 0; n < space.names.size(); ++n)
        if (space.names[n].label == label) return plan::Decision{plan::Decision::Target::Name, static_cast<std::uint32_t>(n), *axis};
    return makeError("cli.decision", std::string(flag) + " " + text + ": no group or name '" + label + "' (run `shardscope-cli analyze` for the labels)");
}

std::string formatTime(double seconds) {
    char buffer[32];
    if (seconds >= 1) std::snprintf(buffer, sizeof buffer, "%.3f s", seconds);
    else std::snprintf(buffer, sizeof buffer, "%.3f ms", seconds * 1e3);
    return buffer;
}

// The summary a workspace keeps with each plan (one definition for `search`'s recording and `compare`).
json summaryJson(const cost::Evaluation& e) {
    return json::parse(search::evaluationSummaryJson(e));
}

// Reports progress on stderr: a bar on a terminal, a line a second otherwise. Passes every report on to the
// session's recorder, when the search is recorded into a workspace.
class Reporter : public search::SearchObserver {
public:
    Reporter(search::SessionRecorder* recorder, double seconds, std::int64_t iterations, bool quiet)
        : recorder_(recorder), seconds_(seconds), iterations_(iterations), quiet_(quiet), terminal_(isatty(STDERR_FILENO) != 0) {}

    const search::Progress& last() const { return last_; }

    void progress(const search::Progress& p) override {
        last_ = p;
        if (recorder_) recorder_->progress(p);
        if (quiet_) return;
        const std::string best = p.bestStepTime > 0 ? formatTime(p.bestStepTime) + (p.bestFeasible ? "" : " (does not fit)") : "-";
        if (terminal_) {
            const double fraction = seconds_ > 0 ? p.seconds / seconds_ : iterations_ > 0 ? static_cast<double>(p.iterations) / static_cast<double>(iterations_) : 0;
            const int filled = static_cast<int>(std::min(1.0, fraction) * 30);
            std::fprintf(stderr, "\r[%s%s] %6.1f s  %8lld it  %7.0f it/s  best %s  tree %zu   ", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                         std::string(static_cast<std::size_t>(30 - filled), '-').c_str(), p.seconds, static_cast<long long>(p.iterations),
                         p.seconds > 0 ? static_cast<double>(p.iterations) / p.seconds : 0.0, best.c_str(), p.treeNodes);
            std::fflush(stderr);
        } else if (p.seconds - lastLine_ >= 1.0) {
            lastLine_ = p.seconds;
            std::fprintf(stderr, "search: %.1f s, %lld iterations, %lld evaluations, best %s, tree %zu nodes\n", p.seconds,
                         static_cast<long long>(p.iterations), static_cast<long long>(p.evaluations), best.c_str(), p.treeNodes);
        }
    }

    void newBest(const search::Found& f) override {
        if (recorder_) recorder_->newBest(f);
    }

    void finish() {
        if (terminal_ && !quiet_) std::fprintf(stderr, "\n");
    }

private:
    search::SessionRecorder* recorder_;
    search::Progress last_;
    double seconds_;
    std::int64_t iterations_;
    bool quiet_, terminal_;
    double lastLine_ = -1;
};


}  // namespace

ProblemSpec specOf(const std::string& source, const import::ImportOptions& options, const TrainingFlags& training, const ProblemFlags& flags) {
    ProblemSpec spec;
    spec.model = source;
    for (const auto& [k, v] : options.dimensions) spec.dimensions[k] = v;
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

Result<plan::Plan> planArgument(const std::string& argument, const cost::CostModel& model) {
    if (argument == "none") {
        plan::Plan empty;
        empty.label = "replicated";
        return empty;
    }
    if (argument.rfind("expert:", 0) == 0) {
        auto expert = plan::expertPlan(argument.substr(7), model.planContext(), model.mesh());
        if (expert)
            for (auto& warning : plan::checkDivisibility(*expert, model.planContext(), model.mesh(), argument)) expert.addDiagnostic(std::move(warning));
        return expert;
    }
    if (argument == "reference") return exporting::referencePlan(model.graph(), model.space(), model.mesh());
    auto text = readInputFile(argument, "plan file", kMaxJsonFileBytes);
    if (!text) {
        const Diagnostic& why = text.diagnostics().front();
        if (why.code == "input.open")
            return makeError("cli.plan-file", "cannot read plan file '" + argument + "' (--plan takes none, expert:ID, experts, reference or a plan .json file)");
        return why;
    }
    return plan::parsePlan(*text, model.planContext(), model.mesh(), argument);
}

int evaluate(const std::string& source, const import::ImportOptions& options, const TrainingFlags& training, const ProblemFlags& flags,
             const std::string& planText, bool asJson) {
    auto problem = loadProblem(specOf(source, options, training, flags));
    if (!report(problem)) return 1;
    const Problem& p = **problem;
    printDiagnostics(p.warnings);
    const cost::CostModel& costModel = *p.costModel;
    if (planText == "experts") {
        // Each expert; one that does not fit is followed by its first remat variant that does (marked).
        json rows = json::array();
        bool anyVariant = false;
        if (!asJson) std::printf("%-30s %14s %14s %14s  %s\n", "plan", "step time", "peak memory", "collectives", "fits");
        auto show = [&](const std::string& id, const plan::Plan& plan, const cost::Evaluation& e, const std::string& variantOf, const char* fits) {
            if (asJson) {
                json row{{"id", id}, {"step_time_s", e.stepTime}, {"peak_memory_bytes", e.peakMemory}, {"feasible", e.feasible},
                         {"collective_time_s", e.collectiveTime}};
                if (!variantOf.empty()) row["remat_variant_of"] = variantOf;
                json remat = json::array();
                for (const auto& r : plan.remat) remat.push_back({{"target", r.target}, {"policy", std::string(plan::toString(r.policy))}});
                row["remat"] = remat;
                rows.push_back(std::move(row));
                return;
            }
            const std::string shown = variantOf.empty() ? id : "  " + id + " *";
            std::printf("%-30s %14s %14s %14s  %s\n", shown.c_str(), formatTime(e.stepTime).c_str(), report::formatBytes(e.peakMemory).c_str(),
                        formatTime(e.collectiveTime).c_str(), fits);
        };
        auto evaluateOne = [&](const plan::Plan& candidate) { return cost::evaluate(costModel, candidate); };
        for (const auto& expert : plan::expertPlans()) {
            auto plan = plan::expertPlan(expert.id, costModel.planContext(), costModel.mesh());
            if (!plan) {
                if (asJson) rows.push_back({{"id", expert.id}, {"error", plan.diagnostics().front().message}});
                else std::printf("%-30s %s\n", expert.id.c_str(), plan.diagnostics().front().message.c_str());
                continue;
            }
            const auto e = evaluateOne(*plan);
            const auto variant = e.feasible ? std::nullopt : search::fittingRematVariant(expert.id, costModel, evaluateOne);
            const bool tried = !e.feasible && !plan::rematVariants(expert.id, costModel.planContext()).empty();
            show(expert.id, *plan, e, "", e.feasible ? "yes" : tried && !variant ? "no (nor with remat)" : "no");
            if (variant) {
                anyVariant = true;
                show(variant->id, variant->plan, variant->evaluation, expert.id, "yes");
            }
        }
        if (asJson)
            std::cout << jsonText(json{{"version", report::kEvaluationJsonVersion}, {"experts", rows}, {"warnings", warningsJson(p.warnings)}})
                      << "\n";
        else if (anyVariant)
            std::printf("* the expert above with rematerialization (ID+POLICY, for --plan expert:ID+POLICY): the first of selective, "
                        "dots-saveable, full that fits\n");
        return 0;
    }
    auto chosen = planArgument(planText, costModel);
    if (!report(chosen)) return 1;
    const auto e = cost::evaluate(costModel, *chosen);
    std::cout << (asJson ? withWarnings(report::evaluationJson(p.model, costModel, *chosen, e), p.warnings)
                         : report::evaluationText(p.model, costModel, *chosen, e));
    return 0;
}

int search(const std::string& source, const import::ImportOptions& options, const TrainingFlags& training, const ProblemFlags& flags,
           const SearchFlags& searchFlags, bool asJson) {
    auto parsedBudget = search::parseBudget(searchFlags.budget);
    if (!parsedBudget) {
        std::cerr << "shardscope-cli: error: --" << parsedBudget.diagnostics().front().message << "\n";
        return 2;
    }
    search::Budget budget = *parsedBudget;
    budget.patience = searchFlags.patience;
    search::SearchOptions searchOptions;
    searchOptions.exploration = searchFlags.exploration;
    searchOptions.threads = searchFlags.threads;
    searchOptions.seed = searchFlags.seed;
    searchOptions.budget = budget;
    searchOptions.maxDecisions = searchFlags.maxDecisions;
    searchOptions.seedWithExperts = !searchFlags.noExperts;
    if (!report(search::checkOptions(searchOptions))) return 2;
    // The workspace: the model may come from it (MODEL is a .shardscope file), else it is created or checked.
    std::optional<store::Workspace> workspace;
    std::string workspacePath = searchFlags.workspace;
    const bool modelIsWorkspace = source.size() > 11 && source.substr(source.size() - 11) == ".shardscope";
    if (modelIsWorkspace) {
        if (!workspacePath.empty() && workspacePath != source) {
            std::cerr << "shardscope-cli: error: MODEL is a workspace; --workspace must be that file or absent\n";
            return 2;
        }
        workspacePath = source;
    }
    ProblemSpec spec = specOf(source, options, training, flags);
    const std::string* bytes = nullptr;
    if (!workspacePath.empty() && std::filesystem::exists(workspacePath)) {
        auto opened = store::Workspace::open(workspacePath);
        if (!report(opened)) return 1;
        workspace.emplace(std::move(opened).value());
        const auto& model = workspace->model();
        if (modelIsWorkspace) {
            // The model and its training-step options as the workspace recorded them; its bytes, never the file
            // its source names.
            auto recorded = recordedModelSpec(model, workspace->path(), spec);
            if (!report(recorded)) return 1;
            spec = std::move(recorded).value();
            auto recordedBytes = recordedModelBytes(model, workspace->path());
            if (!report(recordedBytes)) return 1;
            bytes = *recordedBytes;
        } else if (model.source != source) {
            std::cerr << "shardscope-cli: error: '" << workspacePath << "' holds the model '" << model.source << "', not '" << source
                      << "' (search its model with `shardscope-cli search " << workspacePath << "`, or give another --workspace)\n";
            return 1;
        } else if (!model.bytes.empty()) {
            // The same path, but is it the same model? The workspace keeps the bytes it was made from.
            const auto now = readModelFile(source);
            if (now && *now != model.bytes) {
                std::cerr << "shardscope-cli: error: '" << source << "' has changed since '" << workspacePath
                          << "' was made from it (search the workspace's copy with `shardscope-cli search " << workspacePath
                          << "`, or give another --workspace)\n";
                return 1;
            }
        }
        if (!modelIsWorkspace && !model.bytes.empty()) bytes = &model.bytes;
    } else if (modelIsWorkspace) {
        report(store::Workspace::open(source));  // it does not exist: the engine says so, and names what a killed creation left
        return 1;
    }
    auto loaded = loadProblem(spec, bytes);
    if (!report(loaded)) return 1;
    const Problem& problem = **loaded;
    printDiagnostics(problem.warnings);
    if (!workspacePath.empty() && !workspace) {
        auto record = search::modelRecord(spec);
        if (!report(record)) return 1;
        // Another search may create it meanwhile: then this one records into that file.
        auto created = store::Workspace::openOrCreate(workspacePath, *record);
        if (!report(created)) return 1;
        workspace.emplace(std::move(created).value());
    }
    // Pins and forbidden decisions.
    plan::Plan start;
    start.label = "pins";
    for (const auto& text : searchFlags.pins) {
        auto d = decisionArgument(text, problem, "--pin");
        if (!report(d)) return 2;
        start.decisions.push_back(*d);
    }
    for (const auto& text : searchFlags.forbidden) {
        auto d = decisionArgument(text, problem, "--forbid");
        if (!report(d)) return 2;
        start.forbidden.push_back(*d);
    }
    start.pinned = start.decisions.size();
    const cost::CostModel& costModel = *problem.costModel;
    // A pin the mesh cannot apply anywhere is kept (the user asked for it) but said.
    for (const auto& warning : plan::checkDivisibility(start, costModel.planContext(), costModel.mesh(), "--pin"))
        std::cerr << "shardscope-cli: " << warning.toString() << "\n";
    std::unique_ptr<search::SessionRecorder> recorder;
    if (workspace) {
        auto started = search::SessionRecorder::start(*workspace, problem, start, searchOptions,
                                                      {searchFlags.session, searchFlags.budget, searchFlags.exhaustive});
        if (!report(started)) return 1;
        recorder = std::move(started).value();
    }
    // The experts on the same problem, for comparison (and saved with the session).
    const auto expertResults = recorder ? recorder->saveExperts() : search::evaluateExperts(costModel);
    json experts = json::array();
    double bestExpertTime = 0;
    std::string bestExpert;
    for (const auto& expert : expertResults) {
        const auto& e = expert.evaluation;
        json row{{"id", expert.id}, {"step_time_s", e.stepTime}, {"feasible", e.feasible}, {"peak_memory_bytes", e.peakMemory}};
        if (expert.rematVariant) row["remat_variant_of"] = expert.id.substr(0, expert.id.find('+'));
        experts.push_back(std::move(row));
        if (e.feasible && (bestExpert.empty() || e.stepTime < bestExpertTime)) bestExpert = expert.id, bestExpertTime = e.stepTime;
    }
    search::Found best;
    search::Progress finalProgress;
    std::size_t treeNodes = 0;
    std::optional<search::Search> engine;  // outlives the recorder's last save of its tree
    if (searchFlags.exhaustive) {
        auto result = search::exhaustiveSearch(costModel, start, searchOptions.maxDecisions);
        if (!report(result)) return 1;
        best = result->best;
        treeNodes = result->states;
        if (recorder) recorder->savePlan(best);
    } else {
        Reporter reporter(recorder.get(), budget.seconds, budget.iterations, asJson);
        engine.emplace(costModel, start, searchOptions);
        if (recorder) recorder->attach(&*engine);
        best = engine->run(&reporter);
        reporter.finish();
        finalProgress = reporter.last();
        treeNodes = engine->treeSize();
    }
    // A workspace that cannot be written (a full disk) loses this search's unsaved changes, not the search: the
    // result is still printed, the failure said once, and the exit status is 1.
    int status = 0;
    if (recorder) {
        auto flushed = recorder->finish();  // saves the last tree changes too
        if (!flushed) {
            status = 1;
            const auto kept = workspace->plans(recorder->session(), store::PlanContent::Summary).size();
            std::cerr << "shardscope-cli: error: " << unsavedSearchMessage(flushed.diagnostics().front(), workspace->path(), recorder->session(), kept)
                      << "\n";
        }
    }
    const auto e = cost::evaluate(costModel, best.plan);
    if (asJson) {
        json out = json::parse(report::evaluationJson(problem.model, costModel, best.plan, e));
        json result{{"version", 1},
                    {"best", out},
                    {"experts", experts},
                    {"search",
                     {{"iterations", finalProgress.iterations}, {"evaluations", finalProgress.evaluations}, {"seconds", finalProgress.seconds},
                      {"tree_nodes", treeNodes}, {"origin", best.origin}, {"found_after_s", best.seconds}, {"exhaustive", searchFlags.exhaustive}}},
                    {"warnings", warningsJson(problem.warnings)}};
        if (recorder) result["workspace"] = {{"path", workspace->path()}, {"session", recorder->session()}, {"saved", status == 0}};
        std::cout << jsonText(result) << "\n";
        return status;
    }
    std::cout << report::evaluationText(problem.model, costModel, best.plan, e);
    std::cout << "found         by " << best.origin << " after " << best.seconds << " s (iteration " << best.iteration << "); " << treeNodes
              << (searchFlags.exhaustive ? " states enumerated" : " tree nodes") << "\n";
    if (!bestExpert.empty())
        std::cout << "best expert   " << bestExpert << " " << formatTime(bestExpertTime) << " (found plan is " << bestExpertTime / e.stepTime << "x as fast)\n";
    if (recorder)
        std::cout << "workspace     " << workspace->path() << ", session " << recorder->session() << (status == 0 ? "" : " (not all saved)") << "\n";
    return status;
}

int plans(const std::string& path, bool asJson) {
    auto opened = store::Workspace::open(path);
    if (!report(opened)) return 1;
    const store::Workspace& w = *opened;
    json sessions = json::array();
    if (!asJson) std::printf("workspace %s: model %s\n", path.c_str(), w.model().source.c_str());
    for (const auto& s : w.sessions()) {
        const auto settings = json::parse(s.settings, nullptr, false);
        std::string meshText, hardware;
        try {
            // What the settings say of the mesh and hardware, as far as they have the expected shape (a field of
            // another type throws, and then shows as "?").
            if (settings.is_object() && settings.contains("problem")) {
                const auto& problem = settings["problem"];
                if (problem.contains("mesh") && problem["mesh"].contains("axes"))
                    for (const auto& a : problem["mesh"]["axes"])
                        meshText += (meshText.empty() ? "" : ",") + a.value("name", "?") + "=" + std::to_string(a.value("size", 0));
                if (problem.contains("hardware")) hardware = problem["hardware"].value("id", "");
            }
        } catch (const json::exception&) {
            meshText = meshText.empty() ? "?" : meshText + ",?";
            if (hardware.empty()) hardware = "?";
        }
        json rows = json::array();
        if (!asJson) std::printf("\nsession %lld \"%s\": mesh %s on %s, %lld tree nodes\n", static_cast<long long>(s.id), s.name.c_str(), meshText.c_str(),
                                 hardware.c_str(), static_cast<long long>(w.nodeCount(s.id)));
        if (!asJson) std::printf("  %6s  %-18s %14s %14s %5s %10s  %s\n", "plan", "origin", "step time", "peak memory", "fits", "found at", "label");
        for (const auto& p : w.plans(s.id, store::PlanContent::Summary)) {
            rows.push_back({{"id", p.id}, {"origin", p.origin}, {"step_time_s", p.stepTime}, {"peak_memory_bytes", p.peakMemory}, {"feasible", p.feasible},
                            {"found_after_s", p.foundAfterSeconds}, {"iteration", p.iteration}, {"label", p.label}, {"note", p.note}});
            if (!asJson)
                std::printf("  %6lld  %-18s %14s %14s %5s %9.2fs  %s\n", static_cast<long long>(p.id), p.origin.c_str(), formatTime(p.stepTime).c_str(),
                            report::formatBytes(p.peakMemory).c_str(), p.feasible ? "yes" : "no", p.foundAfterSeconds, p.label.c_str());
        }
        sessions.push_back({{"id", s.id}, {"name", s.name}, {"mesh", meshText}, {"hardware", hardware}, {"tree_nodes", w.nodeCount(s.id)}, {"plans", rows}});
    }
    if (asJson) std::cout << jsonText(json{{"version", 1}, {"model", w.model().source}, {"sessions", sessions}}) << "\n";
    return 0;
}

int label(const std::string& reference, const std::string& text, const std::string& note) {
    const auto colon = reference.rfind(':');
    char* end = nullptr;
    const long long id = colon == std::string::npos ? 0 : std::strtoll(reference.c_str() + colon + 1, &end, 10);
    if (colon == std::string::npos || id <= 0 || *end != '\0') {
        std::cerr << "shardscope-cli: error: label expects WORKSPACE.shardscope:PLAN_ID, got '" << reference << "'\n";
        return 2;
    }
    auto opened = store::Workspace::open(reference.substr(0, colon));
    if (!report(opened)) return 1;
    if (!opened->plan(id)) {
        std::cerr << "shardscope-cli: error: " << opened->path() << " has no plan " << id << " (see `shardscope-cli plans`)\n";
        return 1;
    }
    opened->setLabel(id, text, note);
    return report(opened->flush()) ? 0 : 1;
}

int compare(const std::string& a, const std::string& b, bool asJson) {
    struct Side {
        std::string argument;
        std::optional<store::Workspace> workspace;
        std::unique_ptr<Problem> problem;
        plan::Plan plan;
        cost::Evaluation evaluation;
        std::vector<std::string> decisions;
        std::vector<std::string> remat;  // the rematerialization decisions in words ("layers.*: full")
    };
    Side sides[2];
    std::vector<Diagnostic> warnings;  // of loading the two sides' models
    sides[0].argument = a;
    sides[1].argument = b;
    for (auto& side : sides) {
        const auto colon = side.argument.rfind(':');
        char* end = nullptr;
        const long long id = colon == std::string::npos ? 0 : std::strtoll(side.argument.c_str() + colon + 1, &end, 10);
        if (colon == std::string::npos || id <= 0 || *end != '\0') {
            std::cerr << "shardscope-cli: error: compare expects WORKSPACE.shardscope:PLAN_ID, got '" << side.argument << "'\n";
            return 2;
        }
        auto opened = store::Workspace::open(side.argument.substr(0, colon));
        if (!report(opened)) return 1;
        side.workspace.emplace(std::move(opened).value());
        const auto record = side.workspace->plan(id);
        if (!record) {
            std::cerr << "shardscope-cli: error: " << side.workspace->path() << " has no plan " << id << " (see `shardscope-cli plans`)\n";
            return 1;
        }
        std::optional<store::SessionRecord> session;
        for (const auto& s : side.workspace->sessions())
            if (s.id == record->session) session = s;
        if (!session) {
            std::cerr << "shardscope-cli: error: " << side.workspace->path() << ": plan " << id << " belongs to no session\n";
            return 1;
        }
        auto problem = loadSessionProblem(*side.workspace, *session);
        if (!report(problem)) return 1;
        side.problem = std::move(problem).value();
        // The same model on both sides warns alike: said once.
        for (const auto& w : side.problem->warnings)
            if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(w);
        auto parsed = plan::parsePlan(record->plan, side.problem->costModel->planContext(), side.problem->mesh, side.argument);
        if (!report(parsed)) return 1;
        side.plan = *parsed;
        side.evaluation = cost::evaluate(*side.problem->costModel, side.plan);
        for (const auto& d : side.plan.decisions) side.decisions.push_back(plan::decisionText(d, side.problem->costModel->planContext(), side.problem->mesh));
        for (const auto& r : side.plan.remat) side.remat.push_back(plan::rematText(r));
    }
    printDiagnostics(warnings);
    const auto& ma = sides[0].workspace->model();
    const auto& mb = sides[1].workspace->model();
    if (ma.source != mb.source || ma.sha256 != mb.sha256) {
        std::cerr << "shardscope-cli: error: the two plans are for different models: '" << sides[0].workspace->path() << "' holds '" << ma.source
                  << "', '" << sides[1].workspace->path() << "' holds '" << mb.source
                  << (ma.source == mb.source ? "' with other bytes" : "'") << " (compare plans of workspaces of the same model)\n";
        return 1;
    }
    auto byKind = [](const cost::Evaluation& e) {
        std::map<std::string, std::pair<int, double>> out;
        for (const auto& c : e.collectives) {
            auto& [n, t] = out[std::string(cost::toString(c.kind))];
            ++n, t += c.time;
        }
        return out;
    };
    const auto& ea = sides[0].evaluation;
    const auto& eb = sides[1].evaluation;
    if (asJson) {
        json out{{"version", 1}};
        for (int i = 0; i < 2; ++i) {
            const auto& e = sides[i].evaluation;
            json kinds = json::object();
            for (const auto& [k, v] : byKind(e)) kinds[k] = {{"count", v.first}, {"time_s", v.second}};
            out[i == 0 ? "a" : "b"] = {{"plan", sides[i].argument}, {"decisions", sides[i].decisions}, {"remat", sides[i].remat},
                                       {"summary", summaryJson(e)}, {"collectives_by_kind", kinds}};
        }
        out["warnings"] = warningsJson(warnings);
        std::cout << jsonText(out) << "\n";
        return 0;
    }
    auto row = [](const std::string& what, const std::string& x, const std::string& y) {
        std::printf("%-22s %-30s %-30s\n", what.c_str(), x.c_str(), y.c_str());
    };
    row("", a, b);
    row("mesh", sides[0].problem->mesh.toString(), sides[1].problem->mesh.toString());
    const std::size_t n = std::max(sides[0].decisions.size(), sides[1].decisions.size());
    for (std::size_t i = 0; i < n; ++i) {
        const std::string x = i < sides[0].decisions.size() ? sides[0].decisions[i] : "";
        const std::string y = i < sides[1].decisions.size() ? sides[1].decisions[i] : "";
        row(i == 0 ? "decisions" : "", (x == y ? "  " : "* ") + x, (x == y ? "  " : "* ") + y);
    }
    // Rematerialization: a decision one plan has and the other has not (in words, order aside) is a difference.
    const auto& ra = sides[0].remat;
    const auto& rb = sides[1].remat;
    const std::size_t nr = std::max(ra.size(), rb.size());
    for (std::size_t i = 0; i < nr; ++i) {
        const std::string x = i < ra.size() ? ra[i] : "";
        const std::string y = i < rb.size() ? rb[i] : "";
        const bool xShared = !x.empty() && std::find(rb.begin(), rb.end(), x) != rb.end();
        const bool yShared = !y.empty() && std::find(ra.begin(), ra.end(), y) != ra.end();
        row(i == 0 ? "remat" : "", (xShared || x.empty() ? "  " : "* ") + x, (yShared || y.empty() ? "  " : "* ") + y);
    }
    row("step time", formatTime(ea.stepTime), formatTime(eb.stepTime));
    row("  compute", formatTime(ea.computeTime), formatTime(eb.computeTime));
    row("  collectives", formatTime(ea.collectiveTime), formatTime(eb.collectiveTime));
    row("peak memory", report::formatBytes(ea.peakMemory), report::formatBytes(eb.peakMemory));
    row("  parameters", report::formatBytes(ea.atPeak.parameters), report::formatBytes(eb.atPeak.parameters));
    row("  gradients", report::formatBytes(ea.atPeak.gradients), report::formatBytes(eb.atPeak.gradients));
    row("  optimizer state", report::formatBytes(ea.atPeak.optimizerState), report::formatBytes(eb.atPeak.optimizerState));
    row("  activations", report::formatBytes(ea.atPeak.activations), report::formatBytes(eb.atPeak.activations));
    row("  temporaries", report::formatBytes(ea.atPeak.temporaries), report::formatBytes(eb.atPeak.temporaries));
    row("fits", ea.feasible ? "yes" : "no", eb.feasible ? "yes" : "no");
    const auto ka = byKind(ea), kb = byKind(eb);
    std::set<std::string> kinds;
    for (const auto& [k, v] : ka) kinds.insert(k);
    for (const auto& [k, v] : kb) kinds.insert(k);
    for (const auto& k : kinds) {
        auto text = [&](const std::map<std::string, std::pair<int, double>>& m) {
            auto it = m.find(k);
            return it == m.end() ? std::string("-") : std::to_string(it->second.first) + ", " + formatTime(it->second.second);
        };
        row(k, text(ka), text(kb));
    }
    return 0;
}

}  // namespace cli
