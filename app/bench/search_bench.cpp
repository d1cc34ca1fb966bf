// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The search benchmarks: MCTS against the expert plans and the exhaustive optimum on a table of training
// steps and meshes (one child process per configuration, so each row's peak RSS is its own), and the
// pipeline search on Llama 3 70B.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "allocation_count.h"
#include "bench.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/search/search.h"
#include "shardscope/session/problem.h"

namespace {

struct SearchConfig {
    const char* name;
    const char* model;
    const char* mesh;
    const char* hardware;
};

// The first seven rows are the table of issue 21; the others are issue 22's (its speed targets, the H200, the
// TPU v5p, a 4-D mesh of 1,024 devices, a dense/MoE hybrid and a frontier MoE).
const std::vector<SearchConfig>& searchConfigs() {
    static const std::vector<SearchConfig> configs{
        {"gpt2-small 1 node", "zoo:gpt2-small:batch=32", "data=2,model=4", "h100"},
        {"llama3-8b 1 node (dp does not fit)", "zoo:llama3-8b:batch=8,seq=2048", "data=8", "h100"},
        {"llama3-8b:8 layers 4 nodes", "zoo:llama3-8b:layers=8,batch=32,seq=2048", "data=4,model=8", "h100"},
        {"mixtral-8x7b:4 layers 2 nodes", "zoo:mixtral-8x7b:layers=4,batch=16,seq=1024", "data=2,model=8",
         "h100"},
        {"vit-l16 tpu-v5e", "zoo:vit-l16:batch=256", "data=8,model=4", "tpu-v5e"},
        {"unet 1 node", "zoo:unet:batch=32", "data=8", "h100"},
        {"gpt:24x2048 tpu-v4", "zoo:gpt:layers=24,d_model=2048,heads=16,seq=2048,batch=64", "data=16,model=4",
         "tpu-v4"},
        {"gpt2-small data=4,model=2", "zoo:gpt2-small", "data=4,model=2", "h100"},
        {"llama3-8b 64 H100", "zoo:llama3-8b:batch=64,seq=4096", "data=8,model=8", "h100"},
        {"llama3-70b 512 H100 pipe", "zoo:llama3-70b:batch=512,seq=4096", "pipe=8,data=8,model=8", "h100"},
        // The zoo has no attention/state-space hybrid (Jamba): this hybrid alternates dense and MoE layers.
        {"hybrid dense/MoE:8 layers 64 H200", "zoo:mixtral-8x7b:layers=8,moe_every=2,batch=64,seq=4096",
         "data=8,model=8", "h200"},
        {"mixtral-8x22b:4 layers 1024 4-D", "zoo:mixtral-8x22b:layers=4,batch=256,seq=4096",
         "dp=4,fsdp=8,tp=8,ep=4", "h100"},
        {"llama3-8b 256 tpu-v5p", "zoo:llama3-8b:batch=256,seq=4096", "data=32,model=8", "tpu-v5p"},
        {"deepseek-v3:8 layers 256 H100", "zoo:deepseek-v3:layers=8,batch=256,seq=4096",
         "data=4,ep=8,model=8", "h100"},
    };
    return configs;
}

constexpr int kThreads = 2;
// The exhaustive optimum is tried when at least kExhaustiveMinStates and at most kExhaustiveStates states fit
// in exhaustiveSeconds(budget) at the search's time per evaluation: twice the search's budget, 20 to 120 s.
constexpr std::size_t kExhaustiveMinStates = 1000;
constexpr std::size_t kExhaustiveStates = 20000;
double exhaustiveSeconds(double seconds) {
    return std::clamp(2 * seconds, 20.0, 120.0);
}

std::int64_t devices(const std::string& mesh) {
    std::int64_t n = 1;
    for (std::size_t at = mesh.find('='); at != std::string::npos; at = mesh.find('=', at + 1))
        n *= std::max(1L, std::atol(mesh.c_str() + at + 1));
    return n;
}

std::string lower(std::string text) {
    for (auto& c : text)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

// The rows `only` names (numbers from 1, or parts of a row's name or model), in table order; every row when
// `only` is empty. Errors name the first selector that matches no row.
shardscope::Result<std::vector<std::size_t>> selectRows(const std::vector<SearchConfig>& configs,
                                                        const std::vector<std::string>& only) {
    std::vector<bool> chosen(configs.size(), only.empty());
    for (const auto& selector : only) {
        bool matched = false;
        const bool number = !selector.empty() && std::all_of(selector.begin(), selector.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
        });
        for (std::size_t i = 0; i < configs.size(); ++i) {
            const bool match = number
                                   ? std::to_string(i + 1) == selector
                                   : lower(configs[i].name).find(lower(selector)) != std::string::npos ||
                                         lower(configs[i].model).find(lower(selector)) != std::string::npos;
            if (match)
                chosen[i] = matched = true;
        }
        if (!matched)
            return shardscope::makeError("bench.only", "no search row matches '" + selector + "'");
    }
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < configs.size(); ++i)
        if (chosen[i])
            rows.push_back(i);
    return rows;
}

std::string ms(double t) {
    return t > 0 ? format("%.2f", t * 1e3) : std::string("-");
}

// A row's mixed-precision Adam training step on its mesh (Adam in the model's precision when not
// `mixedPrecision`: a user's f32 export).
shardscope::Result<std::unique_ptr<shardscope::Problem>> loadRow(const SearchConfig& c,
                                                                 bool mixedPrecision = true) {
    shardscope::ProblemSpec spec;
    spec.model = c.model;
    spec.train = true;
    spec.mixedPrecision = mixedPrecision;
    spec.mesh = c.mesh;
    spec.hardware = c.hardware;
    return shardscope::loadProblem(spec);
}

// The rows `only` selects, or nothing after listing the rows on stderr.
std::optional<std::vector<std::size_t>> rowsOrList(const std::vector<std::string>& only) {
    const auto& configs = searchConfigs();
    auto rows = selectRows(configs, only);
    if (rows)
        return std::move(*rows);
    std::fprintf(stderr, "%s; the rows are:\n", rows.errorMessage().c_str());
    for (std::size_t i = 0; i < configs.size(); ++i)
        std::fprintf(stderr, "  %2zu  %s\n", i + 1, configs[i].name);
    return std::nullopt;
}

// Runs each row's `row` in a child process of its own and prints what it returns with the child's peak RSS;
// 0 when every row completed, else 1.
int printRows(const std::vector<std::size_t>& rows,
              const std::function<std::string(const SearchConfig&)>& row) {
    const auto& configs = searchConfigs();
    const double budget = rssBudgetBytes();
    int failures = 0;
    for (const std::size_t i : rows) {
        const auto run = runIsolated([&] { return row(configs[i]); }, budget);
        if (run.completed && run.text.rfind("error: ", 0) != 0) {
            std::printf("%2zu %s | %7s\n", i + 1, run.text.c_str(), peakText(run).c_str());
        } else {
            ++failures;
            std::printf("%2zu %-34s %s\n", i + 1, configs[i].name,
                        run.completed ? run.text.c_str() : run.failure.c_str());
        }
        std::fflush(stdout);
    }
    return failures == 0 ? 0 : 1;
}

// A table's rows (`row` on each selected row's mixed-precision step), or with `model` (MODEL [MESH
// [HARDWARE]]) its one row for a model of the user's: its Adam training step in the model's own precision.
int rowsOrModel(const std::vector<std::size_t>& rows, const std::vector<std::string>& model,
                std::string (*row)(const SearchConfig&, bool)) {
    if (model.empty())
        return printRows(rows, [&](const SearchConfig& c) { return row(c, true); });
    const std::string mesh = model.size() > 1 ? model[1] : "data=4,model=2";
    const std::string hardware = model.size() > 2 ? model[2] : "h100";
    const std::string name = model[0].substr(model[0].find_last_of('/') + 1);
    const SearchConfig config{name.c_str(), model[0].c_str(), mesh.c_str(), hardware.c_str()};
    const auto run = runIsolated([&] { return row(config, false); }, rssBudgetBytes());
    if (run.completed && run.text.rfind("error: ", 0) != 0) {
        std::printf(" - %s | %7s\n", run.text.c_str(), peakText(run).c_str());
        return 0;
    }
    // The row's "error: " stands before the loader's own "error: ...".
    std::fprintf(stderr, "%s\n", run.completed ? run.text.substr(7).c_str() : run.failure.c_str());
    return 1;
}

// The fastest feasible expert plan, each expert as built or, when that does not fit, its first remat variant
// that does (as the search seeds itself).
std::pair<std::string, double> bestExpert(const shardscope::cost::CostModel& model) {
    using namespace shardscope;
    std::string id = "-";
    double best = 0;
    auto consider = [&](const std::string& name, const cost::Evaluation& e) {
        if (e.feasible && (id == "-" || e.stepTime < best))
            id = name, best = e.stepTime;
    };
    for (const auto& e : plan::expertPlans()) {
        auto plan = plan::expertPlan(e.id, model.planContext(), model.mesh());
        if (!plan)
            continue;
        const auto evaluation = cost::evaluate(model, *plan);
        if (evaluation.feasible) {
            consider(e.id, evaluation);
            continue;
        }
        const auto variant = search::fittingRematVariant(
            e.id, model, [&](const plan::Plan& x) { return cost::evaluate(model, x); });
        if (variant)
            consider(variant->id, variant->evaluation);
    }
    return {id, best};
}

// The median time of `runs` full evaluations of `plan`, each by a fresh Evaluator (its construction not
// counted), in seconds.
double fullEvaluationSeconds(const shardscope::cost::CostModel& model, const shardscope::plan::Plan& plan,
                             int runs) {
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
        shardscope::cost::Evaluator evaluator(model);
        const auto start = std::chrono::steady_clock::now();
        evaluator.evaluate(plan);
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

// One row of the table, from the op count to the exhaustive optimum (the parent adds the peak RSS).
std::string searchRow(const SearchConfig& c, double seconds) {
    using namespace shardscope;
    auto problem = loadRow(c);
    if (!problem)
        return "error: " + problem.errorMessage();
    const auto& model = *(*problem)->costModel;
    const auto [expert, expertTime] = bestExpert(model);

    struct Recorder : search::SearchObserver {
        std::vector<search::Found> found;
        search::Progress last;
        void newBest(const search::Found& f) override { found.push_back(f); }
        void progress(const search::Progress& p) override { last = p; }
    } recorder;
    search::SearchOptions options;
    options.threads = kThreads;
    options.budget.seconds = seconds;
    search::Search search(model, plan::Plan{}, options);
    const auto best = search.run(&recorder);
    // The best feasible step time found by `t` seconds; '-' past the budget (or none feasible yet).
    auto bestAt = [&](double t) -> std::string {
        if (t > seconds)
            return "-";
        double out = 0;
        for (const auto& f : recorder.found)
            if (f.seconds <= t && f.evaluation.feasible)
                out = f.evaluation.stepTime;
        return ms(out);
    };
    double within = 0;
    for (const auto& f : recorder.found)
        if (f.evaluation.feasible && f.evaluation.stepTime <= best.evaluation.stepTime * 1.01) {
            within = f.seconds;
            break;
        }
    const auto& last = recorder.last;
    const double rate = last.seconds > 0 ? static_cast<double>(last.iterations) / last.seconds : 0.0;
    const double perEvaluation =
        last.evaluations > 0 ? last.seconds * kThreads / static_cast<double>(last.evaluations) : 0.0;
    const double full = fullEvaluationSeconds(model, best.plan, 3);

    std::string exhaustive = "-", states = "-";
    // Sharding decisions and remat only, as this column always meant (with pipelines and microbatches the
    // spaces are 10-50x larger and past the limit on most rows).
    const auto limit = std::min<std::size_t>(
        kExhaustiveStates,
        static_cast<std::size_t>(exhaustiveSeconds(seconds) /
                                 std::max(perEvaluation > 0 ? perEvaluation : full, 1e-6)));
    // Over up to 3 decisions, else 2, else 1: the deepest space within the limit (a space past it fails
    // before anything is evaluated).
    if (limit >= kExhaustiveMinStates)
        for (int decisions = 3; decisions >= 1; --decisions) {
            auto ex =
                search::exhaustiveSearch(model, plan::Plan{}, decisions, limit, 16, search::Staging::None);
            if (!ex) {
                states = ">" + std::to_string(limit);
                continue;
            }
            states = std::to_string(ex->states) + "@" + std::to_string(decisions);
            if (ex->best.evaluation.feasible)
                exhaustive = ms(ex->best.evaluation.stepTime);
            break;
        }
    const double end = best.evaluation.feasible ? best.evaluation.stepTime : 0;
    const std::string ratio = end > 0 && expertTime > 0 ? format("%.3f", expertTime / end) : "-";
    const double fromClasses =
        last.evaluations > 0
            ? 100.0 * static_cast<double>(last.layerClassEvaluations) / static_cast<double>(last.evaluations)
            : 0.0;
    return format("%-34s %6zu | %-16s %9s | %9s %9s %9s %6s | %7.2f %7.0f %4.0f | %8.2f %8.2f | %9s %8s",
                  c.name, model.graph().body.size(), expert.c_str(), ms(expertTime).c_str(),
                  bestAt(1).c_str(), bestAt(10).c_str(), ms(end).c_str(), ratio.c_str(), within, rate,
                  fromClasses, full * 1e3, perEvaluation * 1e3, exhaustive.c_str(), states.c_str());
}

}  // namespace

// The search against the expert plans on a fixed table of training steps and meshes. Every configuration
// runs in a child process of its own: MCTS for `seconds` (2 threads, seed 1), then the evaluation timings and
// the exhaustive optimum; its peak RSS is the child's.
int benchSearch(double seconds, const std::vector<std::string>& only) {
    const auto& configs = searchConfigs();
    const auto rows = rowsOrList(only);
    if (!rows)
        return 2;
    std::printf(
        "\n== search: MCTS (%d threads, seed 1, %.0f s) against the expert plans, mixed-precision Adam "
        "training steps\n",
        kThreads, seconds);
    for (const std::size_t i : *rows)
        std::printf("   %2zu  %-34s %s on %s (%lld x %s)\n", i + 1, configs[i].name, configs[i].model,
                    configs[i].mesh, static_cast<long long>(devices(configs[i].mesh)), configs[i].hardware);
    std::printf(
        "\n   step times in ms; best expert = the fastest that fits (with the first remat that makes it "
        "fit); "
        "x = best expert / MCTS's plan\n"
        "   (above 1: the search is faster); '-' = no feasible plan yet, or past the budget; to 1%% = when "
        "the "
        "search first came within 1%%\n"
        "   of its final plan; LC%% = the share of the search's evaluations priced from layer classes "
        "(two shallow copies of the model);\n"
        "   eval = median of 3 full evaluations of the final plan by a fresh evaluator; "
        "search = the search's mean\n"
        "   time per evaluation (seconds x threads / evaluations); exhaust. = the optimum over plans of up "
        "to 3 decisions, else 2, else 1\n"
        "   (sharding and remat; states N@D: N states of up to D decisions), tried when its states take at "
        "most %.0f s at the search's\n"
        "   time per evaluation ('>N': more than N states at every depth);\n"
        "   peak MB = the peak RSS of the child process that ran the row\n\n",
        exhaustiveSeconds(seconds));
    std::printf("%2s %-34s %6s | %-16s %9s | %9s %9s %9s %6s | %7s %7s %4s | %8s %8s | %9s %8s | %7s\n", "#",
                "configuration", "ops", "best expert", "ms", "1 s", "10 s", "end", "x", "to 1% s", "it/s",
                "LC%", "eval ms", "search", "exhaust.", "states", "peak MB");
    return printRows(*rows, [&](const SearchConfig& c) { return searchRow(c, seconds); });
}

namespace {

// One row of the seed table: the best plan a search reaches in `iterations` iterations, over seeds 1 to
// `seeds` (the parent adds the peak RSS): on one thread, or in rounds of `lanes` lanes on kThreads threads. A
// search with a fixed seed and an iteration budget on one thread, or in lanes on any threads, repeats bit for
// bit, so the row does not depend on the machine's load.
std::string seedRow(const SearchConfig& c, std::int64_t iterations, int seeds, int lanes) {
    using namespace shardscope;
    auto problem = loadRow(c);
    if (!problem)
        return "error: " + problem.errorMessage();
    const auto& model = *(*problem)->costModel;
    const auto [expert, expertTime] = bestExpert(model);
    std::vector<double> ends;  // feasible step times, one per seed that found a feasible plan
    const auto start = std::chrono::steady_clock::now();
    for (int seed = 1; seed <= seeds; ++seed) {
        search::SearchOptions options;
        options.threads = lanes > 0 ? kThreads : 1;
        options.lanes = lanes;
        options.seed = static_cast<std::uint64_t>(seed);
        options.budget.iterations = iterations;
        search::Search search(model, plan::Plan{}, options);
        const auto best = search.run(nullptr);
        if (best.evaluation.feasible)
            ends.push_back(best.evaluation.stepTime);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (ends.empty())
        return format("%-34s %6zu | %-16s %9s | %9s", c.name, model.graph().body.size(), expert.c_str(),
                      ms(expertTime).c_str(), "no seed found a feasible plan");
    std::sort(ends.begin(), ends.end());
    const double median =
        ends.size() % 2 ? ends[ends.size() / 2] : (ends[ends.size() / 2 - 1] + ends[ends.size() / 2]) / 2;
    double mean = 0;
    for (double t : ends)
        mean += t / static_cast<double>(ends.size());
    const std::string ratio = expertTime > 0 ? format("%.3f", expertTime / median) : "-";
    return format("%-34s %6zu | %-16s %9s | %9s %9s %9s %9s %6s %5.2f | %5zu/%-2d %7.1f", c.name,
                  model.graph().body.size(), expert.c_str(), ms(expertTime).c_str(), ms(median).c_str(),
                  ms(mean).c_str(), ms(ends.front()).c_str(), ms(ends.back()).c_str(), ratio.c_str(),
                  ends.back() / ends.front(), ends.size(), seeds, seconds);
}

}  // namespace

// How reliably the search finds its plans: per row, searches of `iterations` iterations with seeds 1 to
// `seeds`, each row in a child process of its own; the median, mean, best and worst final step time.
int benchSearchSeeds(std::int64_t iterations, int seeds, int lanes, const std::vector<std::string>& only) {
    const auto rows = rowsOrList(only);
    if (!rows)
        return 2;
    const std::string how =
        lanes > 0 ? format("rounds of %d lanes on %d threads", lanes, kThreads) : "1 thread";
    std::printf(
        "\n== search over seeds: MCTS with %s, %lld iterations, seeds 1 to %d, mixed-precision Adam "
        "training steps (the rows of `search`)\n\n"
        "   step times in ms of each seed's final plan (feasible ones): median, mean, best, worst; x = best "
        "expert / median;\n"
        "   spread = worst / best; found = seeds that found a feasible plan; s = the row's search time\n\n",
        how.c_str(), static_cast<long long>(iterations), seeds);
    std::printf("%2s %-34s %6s | %-16s %9s | %9s %9s %9s %9s %6s %5s | %8s %7s | %7s\n", "#", "configuration",
                "ops", "best expert", "ms", "median", "mean", "best", "worst", "x", "sprd", "found", "s",
                "peak MB");
    return printRows(*rows, [&](const SearchConfig& c) { return seedRow(c, iterations, seeds, lanes); });
}

namespace {

// How far `x` (one value per layer) departs from growing by the same amount every `period` layers over layers
// [from, end): the largest difference between a growth and the first, relative to the largest growth (to the
// largest |x| when every growth is 0). Infinite when the layers are too few to tell.
double departure(const std::vector<double>& x, std::size_t period, std::size_t from, std::size_t end) {
    if (end > x.size() || end < from + 2 * period + 1)
        return std::numeric_limits<double>::infinity();
    const double first = x[from + period] - x[from];
    double scale = 0, worst = 0;
    for (std::size_t k = from + period; k < end; ++k) {
        scale = std::max(scale, std::abs(x[k] - x[k - period]));
        worst = std::max(worst, std::abs(x[k] - x[k - period] - first));
    }
    if (scale == 0)
        for (double v : x)
            scale = std::max(scale, std::abs(v));
    return scale > 0 ? worst / scale : worst;
}

// The smallest period of up to 4 layers with which every sequence repeats, over the most layers (up to 4 left
// out at each end, as boundary layers a depth-independent evaluation would price on their own): "1" (over all
// layers), "2 over 1-7" (layers 1 to 7), or "-" when none does.
std::string periodOf(const std::vector<const std::vector<double>*>& sequences) {
    const std::size_t layers = sequences.front()->size();
    for (std::size_t period = 1; period <= 4; ++period)
        for (std::size_t trimmed = 0; trimmed <= 8; ++trimmed)
            for (std::size_t from = 0; from <= std::min<std::size_t>(trimmed, 4); ++from) {
                const std::size_t cut = trimmed - from;
                if (cut > 4 || cut >= layers)
                    continue;
                const std::size_t end = layers - cut;
                if (std::all_of(sequences.begin(), sequences.end(), [&](const std::vector<double>* x) {
                        return departure(*x, period, from, end) <= 1e-9;  // floating-point rounding
                    }))
                    return trimmed == 0 ? std::to_string(period)
                                        : format("%zu over %zu-%zu", period, from, end - 1);
            }
    return "-";
}

// One row of the layer table: the row's best expert plan evaluated in full, and per layer of its largest
// family (plan::pipelineLayers) when the layer's last forward kernel starts, when its first backward kernel
// does, and the bytes live at its first forward op.
std::string layerRow(const SearchConfig& c, bool mixedPrecision) {
    using namespace shardscope;
    auto problem = loadRow(c, mixedPrecision);
    if (!problem)
        return "error: " + problem.errorMessage();
    const auto& model = *(*problem)->costModel;
    const auto& graph = model.graph();
    const auto [expert, expertTime] = bestExpert(model);
    const auto plan = plan::expertPlan(expert, model.planContext(), model.mesh());
    if (!plan)
        return "error: no feasible expert plan";
    cost::Evaluator evaluator(model);
    const cost::Evaluation& e = evaluator.evaluate(*plan);
    const auto& blocks = model.planContext().blocks();
    const auto layers = plan::pipelineLayers(blocks);
    std::vector<std::int32_t> layerOfBlock(blocks.blocks.size(), -1);
    for (std::size_t l = 0; l < layers.size(); ++l)
        layerOfBlock[static_cast<std::size_t>(layers[l])] = static_cast<std::int32_t>(l);
    std::vector<double> forwardEnd(layers.size(), 0), backwardStart(layers.size(), 0),
        live(layers.size(), -1);
    const std::size_t ops = std::min(graph.body.size(), blocks.blockOfOp.size());
    const std::size_t backward = graph.backwardStart > 0 ? graph.backwardStart : ops;
    for (std::size_t i = 0; i < ops; ++i) {
        const std::int32_t block = blocks.blockOfOp[i];
        const std::int32_t l = block >= 0 ? layerOfBlock[static_cast<std::size_t>(block)] : -1;
        if (l < 0)
            continue;
        const auto k = static_cast<std::size_t>(l);
        const double start = i < e.opStart.size() ? e.opStart[i] : 0;  // set on the op launching a kernel
        if (i < backward) {
            forwardEnd[k] = std::max(forwardEnd[k], start);
            if (live[k] < 0)
                live[k] = evaluator.liveAt(i).total();
        } else if (start > 0 && (backwardStart[k] == 0 || start < backwardStart[k])) {
            backwardStart[k] = start;
        }
    }
    auto step = [](const std::vector<double>& x) { return x.size() < 2 ? 0.0 : x[1] - x[0]; };
    auto deviation = [](const std::vector<double>& x) { return departure(x, 1, 0, x.size()); };
    const double forwardStep = step(forwardEnd), forwardDeviation = deviation(forwardEnd);
    const double backwardStep = step(backwardStart), backwardDeviation = deviation(backwardStart);
    const double memoryStep = step(live), memoryDeviation = deviation(live);
    const std::string period = periodOf({&forwardEnd, &backwardStart, &live});
    return format("%-34s %6zu | %-16s %9s | %6zu | %9.4f %8.1e | %9.4f %8.1e | %9.2f %8.1e | %-11s", c.name,
                  graph.body.size(), expert.c_str(), ms(e.stepTime).c_str(), layers.size(), forwardStep * 1e3,
                  forwardDeviation, -backwardStep * 1e3, backwardDeviation, memoryStep / (1 << 20),
                  memoryDeviation, period.c_str());
}

}  // namespace

// Whether the evaluation of a model's repeated layers is periodic under a plan that decides them alike (the
// premise of pricing one layer and extrapolating, docs/benchmarks.md "Layers"): per row of the search table,
// its best expert plan's schedule and memory walk, layer by layer.
int benchLayers(const std::vector<std::string>& only, const std::vector<std::string>& model) {
    const auto rows = rowsOrList(only);
    if (!rows)
        return 2;
    std::printf(
        "\n== layers: the best expert plan of each row of `search` (or of the model given), evaluated in "
        "full; "
        "per layer\n"
        "   of the largest family of layers:\n\n"
        "   fwd ms = how much later the layer's last forward kernel starts than the previous layer's\n"
        "   bwd ms = how much earlier the layer's first backward kernel starts than the next layer's\n"
        "   MB = how many more bytes are live at the layer's first forward op\n"
        "   dev = the largest departure of a later layer's step from the first one, relative to the largest "
        "step\n"
        "   period = the fewest layers (up to 4) after which all three repeat their steps to 1e-9 "
        "(floating-point rounding),\n"
        "   over all layers or over the layers named (up to 4 left out at each end); '-': none\n\n");
    std::printf("%2s %-34s %6s | %-16s %9s | %6s | %9s %8s | %9s %8s | %9s %8s | %s | %7s\n", "#",
                "configuration", "ops", "best expert", "ms", "layers", "fwd ms", "dev", "bwd ms", "dev", "MB",
                "dev", "period     ", "peak MB");
    return rowsOrModel(*rows, model, layerRow);
}

namespace {

// The expert plans that apply to `model`, each with every remat policy on its first family, in 4
// microbatches, and through a 1F1B pipeline over the mesh's first axis where it can run.
std::vector<shardscope::plan::Plan> expertVariants(const shardscope::cost::CostModel& model) {
    using namespace shardscope;
    std::vector<plan::Plan> plans;
    const auto& families = model.planContext().blocks().families;
    for (const auto& expert : plan::expertPlans()) {
        auto plan = plan::expertPlan(expert.id, model.planContext(), model.mesh());
        if (!plan)
            continue;
        for (int policy = 0; policy < plan::kRematCount; ++policy) {
            if (policy > 0)
                plan->remat = {{families.front(), static_cast<plan::Remat>(policy)}};
            plans.push_back(*plan);
        }
        // Staged: in 4 microbatches, and through a 1F1B pipeline over the first axis (when runnable).
        plan->remat.clear();
        if (plan->microbatches != 1 || plan->pipeline)
            continue;
        plan->microbatches = 4;
        plans.push_back(*plan);
        const int stages = static_cast<int>(model.mesh().axes.front().size);
        plan->microbatches = 2 * stages;
        plan->pipeline = plan::Pipeline{0, stages, plan::PipelineSchedule::OneFOneB, 1, {}};
        if (!plan::pipelineProblem(model.planContext(), model.mesh(), *plan))
            plans.push_back(*plan);
    }
    return plans;
}

// One row of the layer-class table: the model's shallow copies, and its expert plans (with each remat policy
// on its first family) evaluated in full and from layer classes: how many the copies price, how far their
// figures are from the full ones, and the median time per evaluation of each evaluator cycling through them.
std::string classesRow(const SearchConfig& c, bool mixedPrecision) {
    using namespace shardscope;
    auto problem = loadRow(c, mixedPrecision);
    if (!problem)
        return "error: " + problem.errorMessage();
    const auto& model = *(*problem)->costModel;
    std::string why;
    const auto* copies = model.shallowCopies(&why);
    const std::size_t layers = model.planContext().blocks().blocks.size();
    if (!copies)
        return format("%-34s %6zu | %6zu %-9s %22s | no copies: %s", c.name, model.graph().body.size(),
                      layers, "-", "-", why.c_str());
    const std::vector<plan::Plan> plans = expertVariants(model);
    cost::Evaluator full(model),
        classes(model, cost::EvaluatorOptions{.layerClasses = cost::EvaluatorOptions::LayerClasses::Always});
    std::size_t priced = 0;
    double stepDeviation = 0, peakDeviation = 0;
    const auto relative = [](double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); };
    for (const auto& plan : plans) {
        const cost::Evaluation a = classes.evaluate(plan);
        const cost::Evaluation& b = full.evaluate(plan);
        if (!a.fromLayerClasses)
            continue;
        ++priced;
        stepDeviation = std::max(stepDeviation, relative(a.stepTime, b.stepTime));
        peakDeviation = std::max(peakDeviation, relative(a.peakMemory, b.peakMemory));
    }
    // Per evaluator: the median over 5 passes of a pass's time per plan (each pass after the first pass
    // above, so incremental as in a search).
    const auto perPlan = [&](cost::Evaluator& evaluator) {
        std::vector<double> passes;
        for (int pass = 0; pass < 5; ++pass) {
            const auto start = std::chrono::steady_clock::now();
            for (const auto& plan : plans)
                evaluator.evaluate(plan);
            passes.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
                             static_cast<double>(plans.size()));
        }
        std::sort(passes.begin(), passes.end());
        return passes[passes.size() / 2];
    };
    const double fullTime = perPlan(full), classesTime = perPlan(classes);
    const auto depth = [&](std::size_t k) {
        return copies->copies[k].model->planContext().blocks().blocks.size();
    };
    return format("%-34s %6zu | %6zu %4zu+%-4zu %8zu %8zu %4s | %5zu/%-4zu %8.1e %8.1e | %8.2f %8.2f %6.2f",
                  c.name, model.graph().body.size(), layers, depth(0), depth(1) - depth(0),
                  copies->copies[0].shallow.graph.body.size(), copies->copies[1].shallow.graph.body.size(),
                  copies->pays ? "yes" : "no", priced, plans.size(), stepDeviation, peakDeviation,
                  fullTime * 1e3, classesTime * 1e3, fullTime / classesTime);
}

}  // namespace

namespace {

// One row of the allocation table: a search's allocations per iteration (after a one-second search that
// builds what the model caches: its copies, its microbatch models), and an evaluator's per evaluation cycling
// through the expert plans (incrementally, as in a search; after a first pass).
std::string allocationsRow(const SearchConfig& c, double seconds) {
    using namespace shardscope;
    auto problem = loadRow(c);
    if (!problem)
        return "error: " + problem.errorMessage();
    const auto& model = *(*problem)->costModel;
    struct Last : search::SearchObserver {
        search::Progress last;
        void progress(const search::Progress& p) override { last = p; }
    };
    const auto searchFor = [&](double budget, Last& observer) {
        search::SearchOptions options;
        options.threads = kThreads;
        options.budget.seconds = budget;
        search::Search search(model, plan::Plan{}, options);
        const std::uint64_t before = allocationCount();
        search.run(&observer);
        return allocationCount() - before;
    };
    Last warm, measured;
    searchFor(1.0, warm);
    const std::uint64_t inSearch = searchFor(seconds, measured);
    const auto iterations = static_cast<double>(std::max<std::int64_t>(measured.last.iterations, 1));

    const std::vector<plan::Plan> plans = expertVariants(model);
    const auto perEvaluation = [&](cost::EvaluatorOptions options) {
        cost::Evaluator evaluator(model, options);
        for (const auto& plan : plans)
            evaluator.evaluate(plan);
        constexpr int kPasses = 5;
        const std::uint64_t before = allocationCount();
        for (int pass = 0; pass < kPasses; ++pass)
            for (const auto& plan : plans)
                evaluator.evaluate(plan);
        return static_cast<double>(allocationCount() - before) /
               static_cast<double>(kPasses * std::max<std::size_t>(plans.size(), 1));
    };
    const double full = perEvaluation({}),
                 classes = perEvaluation({.layerClasses = cost::EvaluatorOptions::LayerClasses::WherePaying});
    return format("%-34s %6zu | %8.0f %10.0f %8.1f | %5zu %10.1f %10.1f", c.name, model.graph().body.size(),
                  static_cast<double>(measured.last.iterations) / std::max(measured.last.seconds, 1e-9),
                  static_cast<double>(inSearch), static_cast<double>(inSearch) / iterations, plans.size(),
                  full, classes);
}

}  // namespace

// Allocations in the hot path (docs/benchmarks.md "Allocations"): per row of the search table.
int benchAllocations(double seconds, const std::vector<std::string>& only) {
    const auto rows = rowsOrList(only);
    if (!rows)
        return 2;
    std::printf(
        "\n== allocations (operator new calls) per row of `search`: a %.0f s search on %d threads after a "
        "1 s one (it/s, allocations,\n"
        "   per iteration), and an evaluator cycling through the expert plans (with remat, microbatch and "
        "pipeline variants) after\n"
        "   a first pass: per evaluation, in full and with layer classes where they pay (as the search)\n\n",
        seconds, kThreads);
    std::printf("%2s %-34s %6s | %8s %10s %8s | %5s %10s %10s | %7s\n", "#", "configuration", "ops", "it/s",
                "allocs", "per it", "plans", "per eval", "LC", "peak MB");
    return printRows(*rows, [&](const SearchConfig& c) { return allocationsRow(c, seconds); });
}

// Layer classes (docs/benchmarks.md "Layer classes"): per row of the search table (or the model given), the
// shallow copies the cost model prices plans that decide alike layers alike on, and what that gives.
int benchClasses(const std::vector<std::string>& only, const std::vector<std::string>& model) {
    const auto rows = rowsOrList(only);
    if (!rows)
        return 2;
    std::printf(
        "\n== layer classes: per row of `search` (or the model given), the two shallow copies of the model "
        "that plans deciding\n"
        "   alike layers alike are priced on, and the expert plans (each with every remat policy on its "
        "first family, in 4\n"
        "   microbatches, and through a 1F1B pipeline over the first mesh axis where it can run) priced in "
        "full and from the\n"
        "   copies (cost::EvaluatorOptions::layerClasses)\n\n"
        "   layers = blocks of the model; copies = blocks of the first copy + what the second adds; ops = "
        "each copy's ops\n"
        "   pays = the copies hold at most half the model's ops, so the search uses them (this table always "
        "does)\n"
        "   LC/plans = plans priced from the copies (the others: their schedule's critical path changes "
        "between the copies' depth\n"
        "   and the model's, and they are evaluated in full); dev = the largest relative difference from "
        "the full evaluation\n"
        "   full ms, LC ms = median over 5 passes of the time per plan cycling through the plans "
        "(incrementally); x = full / LC\n\n");
    std::printf("%2s %-34s %6s | %6s %-9s %8s %8s %4s | %-10s %8s %8s | %8s %8s %6s | %7s\n", "#",
                "configuration", "ops", "layers", "copies", "ops", "ops", "pays", "LC/plans", "dev step",
                "dev peak", "full ms", "LC ms", "x", "peak MB");
    if (int rc = rowsOrModel(*rows, model, classesRow); rc != 0 || !model.empty() || !only.empty())
        return rc;
    // The same layer ever deeper: the copies stay as deep, so the time per plan priced from them should not
    // grow while the full evaluation's does.
    std::printf(
        "\n-- growth with depth: row 7's model (gpt, d_model 2048, 16 heads, seq 2048, batch 64) at 24 to "
        "192 layers, tpu-v4 data=16,model=4\n");
    int failures = 0;
    for (const int layers : {24, 48, 96, 192}) {
        const std::string name = "gpt:" + std::to_string(layers) + "x2048",
                          spec = "zoo:gpt:layers=" + std::to_string(layers) +
                                 ",d_model=2048,heads=16,seq=2048,batch=64";
        const SearchConfig config{name.c_str(), spec.c_str(), "data=16,model=4", "tpu-v4"};
        const auto run = runIsolated([&] { return classesRow(config, true); }, rssBudgetBytes());
        const bool ok = run.completed && run.text.rfind("error: ", 0) != 0;
        failures += !ok;
        std::printf(" - %s | %7s\n", ok ? run.text.c_str() : (run.completed ? run.text : run.failure).c_str(),
                    ok ? peakText(run).c_str() : "-");
        std::fflush(stdout);
    }
    return failures == 0 ? 0 : 1;
}

namespace {

int pipelineTable(double seconds) {
    const char* modelSpec = "zoo:llama3-70b:batch=512,seq=4096";
    const char* meshSpec = "pipe=8,data=8,model=8";
    std::printf(
        "\n== search with pipelines: %s training step (mixed-precision Adam) on %s x h100, MCTS 2 threads, "
        "seed 1, %.0f s each\n\n",
        modelSpec, meshSpec, seconds);
    auto problem = loadRow({"llama3-70b pipe", modelSpec, meshSpec, "h100"});
    if (!problem) {
        std::fprintf(stderr, "%s\n", problem.errorMessage().c_str());
        return 1;
    }
    const auto& model = *(*problem)->costModel;
    struct Row {
        std::string name, plan, note;
        double stepTime = 0, peak = 0;
        bool feasible = false;
    };
    auto describe = [&](const shardscope::plan::Plan& plan) {
        std::string text;
        if (plan.pipeline) {
            const auto& p = *plan.pipeline;
            text = "pp " + model.mesh().axes[static_cast<std::size_t>(p.axis)].name + "=" +
                   std::to_string(p.stages) + " " + std::string(shardscope::plan::toString(p.schedule));
            if (p.virtualStages > 1)
                text += " x" + std::to_string(p.virtualStages);
            text += ", ";
        }
        text += std::to_string(plan.microbatches) + " microbatches, " +
                std::to_string(plan.decisions.size()) + " decisions";
        for (const auto& r : plan.remat)
            text += ", remat " + shardscope::plan::rematText(r);
        return text;
    };
    std::vector<Row> rows;
    auto searchRow = [&](const char* name, shardscope::search::Staging staging) {
        struct Last : shardscope::search::SearchObserver {
            shardscope::search::Progress last;
            void progress(const shardscope::search::Progress& p) override { last = p; }
        } observer;
        shardscope::search::SearchOptions options;
        options.threads = 2;
        options.budget.seconds = seconds;
        options.staging = staging;
        shardscope::search::Search search(model, shardscope::plan::Plan{}, options);
        const auto found = search.run(&observer);
        char note[96];
        std::snprintf(note, sizeof note, "%s at %.1f s, %lld it", found.origin.c_str(), found.seconds,
                      static_cast<long long>(observer.last.iterations));
        rows.push_back({name, describe(found.plan), note, found.evaluation.stepTime,
                        found.evaluation.peakMemory, found.evaluation.feasible});
    };
    {
        Row row{"ptd-p expert", "", "", 0, 0, false};
        auto plan = shardscope::plan::expertPlan("ptd-p", model.planContext(), model.mesh());
        if (!plan) {
            std::fprintf(stderr, "%s\n", plan.errorMessage().c_str());
            return 1;
        }
        const auto e = shardscope::cost::evaluate(model, *plan);
        row = {"ptd-p expert", describe(*plan), "as built", e.stepTime, e.peakMemory, e.feasible};
        if (!e.feasible) {
            const auto variant = shardscope::search::fittingRematVariant(
                "ptd-p", model,
                [&](const shardscope::plan::Plan& x) { return shardscope::cost::evaluate(model, x); });
            row.note = variant ? "does not fit; " + variant->id + " does" : "does not fit, nor with remat";
        }
        rows.push_back(row);
    }
    searchRow("MCTS with pipelines", shardscope::search::Staging::Pipelines);
    searchRow("MCTS without pipelines", shardscope::search::Staging::Microbatches);
    const double best = rows[1].feasible ? rows[1].stepTime : 0;
    std::printf("%-24s %10s %10s %5s %8s | %-s\n", "plan", "step ms", "peak GiB", "fits", "x best", "what");
    for (const auto& r : rows) {
        char ratio[16] = "-";
        if (best > 0 && r.stepTime > 0)
            std::snprintf(ratio, sizeof ratio, "%.3f", r.stepTime / best);
        std::printf("%-24s %10.1f %10.2f %5s %8s | %s (%s)\n", r.name.c_str(), r.stepTime * 1e3,
                    r.peak / (1024.0 * 1024 * 1024), r.feasible ? "yes" : "no", ratio, r.plan.c_str(),
                    r.note.c_str());
    }
    std::fflush(stdout);
    return 0;
}

}  // namespace

// Pipelines in the search: a Llama-3-70B training step (global batch 512 of 4096 tokens) on 512 H100s as
// pipe=8,data=8,model=8 (64 nodes of 8; only `model` is inside a node). MCTS with pipelines and microbatches
// (2 threads, seed 1, `seconds`), MCTS without pipelines (gradient accumulation still allowed), and the ptd-p
// expert (with its first fitting remat variant, if it needs one); step times and ratios to the best.
int benchSearchPipeline(double seconds) {
    // In a child process: its peak RSS is this table's (an evaluator per pipeline shape adds up).
    const auto run = runIsolated(
        [&] { return pipelineTable(seconds) == 0 ? std::string() : std::string("error"); }, rssBudgetBytes());
    std::printf("peak RSS: %s MB\n", peakText(run).c_str());
    return run.completed && run.text.empty() ? 0 : 1;
}
