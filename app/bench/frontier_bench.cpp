// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Frontier models (issue 22): each one's full mixed-precision Adam training step built, analysed, priced and
// searched briefly, in a child process of its own so its peak RSS is its own and a model that would exhaust
// the machine's memory is stopped and reported instead.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench.h"
#include "shardscope/analysis/decision_space.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/mesh/hardware.h"
#include "shardscope/mesh/mesh.h"
#include "shardscope/plan/experts.h"
#include "shardscope/search/search.h"
#include "shardscope/session/model_source.h"
#include "shardscope/session/problem.h"

namespace {

struct FrontierModel {
    std::string name;
    std::string model;
    std::string mesh;
    std::string hardware;
};

// A stage's wall time: runs `work` and returns the seconds it took.
template <typename Work>
double timed(Work&& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The frontier presets at their published sizes, and gpt-oss-120b's shape built by the zoo's MoE family (its
// sizes from OpenAI's model card: 36 layers, width 2,880, 64 query and 8 key/value heads of 64, 128 experts
// of 2,880, top-4, vocabulary 201,088: 116.8B parameters; its alternating sliding-window attention is not
// modelled), on 1,024 H100s (128 nodes of 8, `model` inside a node), a global batch of 1,024 sequences of
// 4,096 tokens.
std::vector<FrontierModel> zooFrontier() {
    const std::string sizes = "batch=1024,seq=4096";
    std::vector<FrontierModel> models;
    for (const char* preset : {"llama3.1-405b", "deepseek-v3", "mixtral-8x22b", "qwen3-235b-a22b"})
        models.push_back({preset, std::string("zoo:") + preset + ":" + sizes, "data=128,model=8", "h100"});
    models.push_back({"gpt-oss-120b shape (zoo)",
                      "zoo:moe:layers=36,d_model=2880,heads=64,kv_heads=8,head_dim=64,d_ff=2880,experts=128,"
                      "top_k=4,vocab=201088," +
                          sizes,
                      "data=128,model=8", "h100"});
    return models;
}

// The imported MoE: a gpt-oss-style export in SHARED/models when there is one, else the MoE layers the
// shared models hold (Kimi K2's, GLM's); a note says which, or why none.
std::vector<FrontierModel> importedMoe(const std::string& sharedDir, std::string& note) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(sharedDir) / "models";
    if (!fs::is_directory(dir)) {
        note = "imported MoE skipped: " + dir.string() + " is absent";
        return {};
    }
    std::vector<fs::path> gptOss, layers;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        if (!entry.is_regular_file())
            continue;
        std::string name = entry.path().filename().string();
        std::transform(name.begin(), name.end(), name.begin(),
                       [](unsigned char c) { return std::tolower(c); });
        if (name.find("gpt_oss") != std::string::npos || name.find("gpt-oss") != std::string::npos ||
            name.find("gptoss") != std::string::npos)
            gptOss.push_back(entry.path());
        else if (name.rfind("kimi_k2", 0) == 0 || name.rfind("glm_358b", 0) == 0)
            layers.push_back(entry.path());
    }
    std::sort(gptOss.begin(), gptOss.end());
    std::sort(layers.begin(), layers.end());
    if (gptOss.empty())
        note = "no gpt-oss-style export in " + dir.string() +
               " (its NOTICE.md lists none): the imported MoE rows are the one-layer Kimi K2 and GLM exports";
    std::vector<FrontierModel> models;
    for (const auto& path : gptOss.empty() ? layers : gptOss)
        models.push_back({path.filename().string(), path.string(), "data=8,model=8", "h100"});
    return models;
}

// One row: the stages' times, the analysis's size, the RSS once priced, the best expert and one evaluation of
// it, and a short search (the parent adds the peak RSS).
std::string frontierRow(const FrontierModel& m, double searchSeconds) {
    using namespace shardscope;
    ProblemSpec spec;
    spec.model = m.model;
    spec.train = true;
    spec.mixedPrecision = true;
    auto hardware = mesh::loadHardware(m.hardware);
    auto meshResult =
        hardware ? mesh::makeMesh(m.mesh, *hardware) : Result<mesh::Mesh>::failure(hardware.diagnostics());
    if (!meshResult)
        return "error: " + meshResult.errorMessage();
    Result<LoadedModel> forward = makeError("bench.frontier", "not loaded");
    const double build = timed([&] { forward = loadModel(m.model); });
    if (!forward)
        return "error: " + forward.errorMessage();
    Result<train::TrainingStep> step = makeError("bench.frontier", "not built");
    const double stepTime = timed([&] { step = trainingStepFor(forward->graph, spec); });
    if (!step) {
        // An f32 export has no 16-bit parameters to keep in mixed precision: its own precision then.
        spec.mixedPrecision = false;
        step = trainingStepFor(forward->graph, spec);
        if (!step)
            return "error: " + step.errorMessage();
    }
    const ir::Graph& graph = step->graph;
    analysis::DecisionSpace space;
    const double analysisTime = timed([&] { space = analysis::analyze(graph); });
    std::unique_ptr<cost::CostModel> model;
    const double costTime =
        timed([&] { model = std::make_unique<cost::CostModel>(graph, space, *meshResult, *hardware); });
    const double pricedRss = residentBytes().first;

    std::string expert = "-";
    cost::Evaluation expertEvaluation;
    plan::Plan expertPlan;
    const double expertsTime = timed([&] {
        for (const auto& e : plan::expertPlans()) {
            auto plan = plan::expertPlan(e.id, model->planContext(), model->mesh());
            if (!plan)
                continue;
            auto evaluation = cost::evaluate(*model, *plan);
            std::string id = e.id;
            if (!evaluation.feasible) {
                auto variant = search::fittingRematVariant(
                    e.id, *model, [&](const plan::Plan& x) { return cost::evaluate(*model, x); });
                if (!variant)
                    continue;
                id = variant->id, evaluation = variant->evaluation, *plan = variant->plan;
            }
            if (expert == "-" || evaluation.stepTime < expertEvaluation.stepTime)
                expert = id, expertEvaluation = evaluation, expertPlan = *plan;
        }
    });
    double evaluationTime = 0;
    if (expert != "-") {
        cost::Evaluator evaluator(*model);
        evaluationTime = timed([&] { evaluator.evaluate(expertPlan); });
    }

    struct Last : search::SearchObserver {
        search::Progress last;
        void progress(const search::Progress& p) override { last = p; }
    } observer;
    search::SearchOptions options;
    options.threads = 2;
    options.budget.seconds = searchSeconds;
    search::Search search(*model, plan::Plan{}, options);
    const auto found = search.run(&observer);
    const std::string searched =
        found.evaluation.feasible ? format("%.1f", found.evaluation.stepTime * 1e3) : std::string("-");
    return format(
        "%-24s %-27s %7.2f %7.2f %7zu %8.2f %6zu %6zu %7.2f %8.0f | %-16s %9s %7.2f %6.1f | %6lld %9s",
        m.name.c_str(), (m.mesh + " " + m.hardware).c_str(), build, stepTime, graph.body.size(), analysisTime,
        space.names.size(), space.groups.size(), costTime, pricedRss / 1e6, expert.c_str(),
        expert == "-" ? "-" : format("%.1f", expertEvaluation.stepTime * 1e3).c_str(), evaluationTime,
        expertsTime, static_cast<long long>(observer.last.iterations), searched.c_str());
}

}  // namespace

int benchFrontier(double searchSeconds, const std::string& sharedDir, const std::vector<std::string>& only,
                  const std::string& mesh) {
    auto models = zooFrontier();
    if (!mesh.empty())
        for (auto& m : models)
            m.mesh = mesh;
    std::string note;
    for (auto& m : importedMoe(sharedDir, note))
        models.push_back(std::move(m));
    if (!only.empty())
        std::erase_if(models, [&](const FrontierModel& m) {
            return std::none_of(only.begin(), only.end(),
                                [&](const std::string& s) { return m.name.find(s) != std::string::npos; });
        });
    const double budget = rssBudgetBytes();
    std::printf(
        "\n== frontier models: full mixed-precision Adam training steps (zoo: global batch 1,024 x 4,096 "
        "tokens);\n"
        "   build/step/analysis/cost s = loading the model, building its training step, the static analysis "
        "and the cost model;\n"
        "   RSS MB = resident once priced; best expert (with the first remat that makes it fit) and its step "
        "ms; eval s = one full\n"
        "   evaluation of it by a fresh evaluator; experts s = evaluating every expert; then MCTS %.0f s (2 "
        "threads, seed 1):\n"
        "   iterations and its best step ms; peak MB = the child process's peak RSS (stopped past %.1f GB)\n",
        searchSeconds, budget / 1e9);
    if (!note.empty())
        std::printf("   %s\n", note.c_str());
    std::printf("\n%-24s %-27s %7s %7s %7s %8s %6s %6s %7s %8s | %-16s %9s %7s %6s | %6s %9s | %7s\n",
                "model", "mesh", "build s", "step s", "ops", "analys s", "names", "groups", "cost s",
                "RSS MB", "best expert", "ms", "eval s", "exp. s", "it", "MCTS ms", "peak MB");
    int failures = 0;
    for (const auto& m : models) {
        const auto run = runIsolated([&] { return frontierRow(m, searchSeconds); }, budget);
        if (run.completed && run.text.rfind("error: ", 0) != 0) {
            std::printf("%s | %7s\n", run.text.c_str(), peakText(run).c_str());
        } else {
            ++failures;
            std::printf("%-24s %s (peak %.0f MB)\n", m.name.c_str(),
                        run.completed ? run.text.c_str() : run.failure.c_str(), run.peakBytes / 1e6);
        }
        std::fflush(stdout);
    }
    return failures == 0 ? 0 : 1;
}
