// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// shardscope-bench: timings of the engine's stages on zoo models. Each figure is the median of several runs;
// ratios are against copying the same graph in the same run (a memory-bound baseline).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "shardscope/analysis/decision_space.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/import/onnx.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/ir/printer.h"
#include "shardscope/ir/statistics.h"
#include "shardscope/ir/verifier.h"
#include "shardscope/mesh/hardware.h"
#include "shardscope/mesh/mesh.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/search/search.h"
#include "shardscope/session/problem.h"
#include "shardscope/session/recording.h"
#include "shardscope/session/workspace_session.h"
#include "shardscope/train/training_step.h"
#include "shardscope/zoo/zoo.h"

namespace {

double medianSeconds(int runs, const std::function<void()>& work) {
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        work();
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

}  // namespace

// Engine stages on zoo models: build, verify, statistics and printing against copying the same graph.
int benchZoo(const std::vector<std::string>& models, int runs) {
    std::printf("== zoo models: median of %d runs; x copy = time / time to copy the same graph\n\n", runs);
    std::printf("%-14s %7s | %9s %9s | %9s %6s | %9s %6s | %9s %6s | %9s\n", "model", "ops", "copy ms",
                "build ms", "verify ms", "x copy", "stats ms", "x copy", "print ms", "x copy",
                "Mops/s build");
    for (const auto& name : models) {
        auto spec = shardscope::zoo::parseModelSpec(name);
        if (!spec) {
            std::fprintf(stderr, "%s\n", spec.errorMessage().c_str());
            return 1;
        }
        auto graph = shardscope::zoo::build(*spec);
        if (!graph) {
            std::fprintf(stderr, "%s\n", graph.errorMessage().c_str());
            return 1;
        }
        const auto& g = *graph;
        std::size_t sink = 0;
        const double copy = medianSeconds(runs, [&] {
            shardscope::ir::Graph copied = g;
            sink += copied.ops.size();
        });
        const double build = medianSeconds(runs, [&] { sink += shardscope::zoo::build(*spec)->ops.size(); });
        const double verify = medianSeconds(runs, [&] { sink += shardscope::ir::verify(g).size(); });
        const double stats =
            medianSeconds(runs, [&] { sink += shardscope::ir::computeStatistics(g).opCount; });
        const double print = medianSeconds(runs, [&] { sink += shardscope::ir::printStableHlo(g).size(); });
        std::printf("%-14s %7zu | %9.2f %9.2f | %9.2f %6.1f | %9.2f %6.1f | %9.2f %6.1f | %9.2f\n",
                    name.c_str(), g.ops.size(), copy * 1e3, build * 1e3, verify * 1e3, verify / copy,
                    stats * 1e3, stats / copy, print * 1e3, print / copy,
                    static_cast<double>(g.ops.size()) / build / 1e6);
        if (sink == 0)
            std::puts("");
    }
    return 0;
}

// Import throughput on the largest shared file of each format, against a pass that only counts the bytes'
// newlines (the least any importer must do: read every byte once).
int benchImport(const std::string& sharedDir, int runs) {
    namespace fs = std::filesystem;
    std::printf("\n== import: median of %d runs; x scan = time / time to scan the bytes for newlines\n\n",
                runs);
    std::printf("%-28s %9s %7s | %9s %9s %7s | %8s %10s\n", "file", "bytes", "ops", "scan ms", "import ms",
                "x scan", "MB/s", "ops/s");
    for (const char* format : {"stablehlo", "onnx"}) {
        const fs::path dir = fs::path(sharedDir) / "models" / format;
        if (!fs::is_directory(dir)) {
            std::printf("(no %s: %s is absent)\n", format, dir.c_str());
            continue;
        }
        fs::path largest;
        for (const auto& entry : fs::directory_iterator(dir))
            if (entry.is_regular_file() &&
                (entry.path().extension() == ".mlir" || entry.path().extension() == ".onnx") &&
                (largest.empty() || entry.file_size() > fs::file_size(largest)))
                largest = entry.path();
        if (largest.empty())
            continue;
        std::ifstream in(largest, std::ios::binary);
        std::ostringstream buffer;
        buffer << in.rdbuf();
        const std::string bytes = buffer.str();
        auto import = [&] {
            return std::string(format) == "onnx"
                       ? shardscope::import::importOnnx(bytes, largest.string())
                       : shardscope::import::importStableHlo(bytes, largest.string());
        };
        auto first = import();
        if (!first) {
            std::fprintf(stderr, "%s\n", first.errorMessage().c_str());
            return 1;
        }
        const auto ops = shardscope::ir::computeStatistics(*first).opCount;
        std::size_t sink = 0;
        const double scan = medianSeconds(
            runs, [&] { sink += static_cast<std::size_t>(std::count(bytes.begin(), bytes.end(), '\n')); });
        const double time = medianSeconds(runs, [&] { sink += import()->ops.size(); });
        std::printf("%-28s %9zu %7lld | %9.3f %9.2f %7.0f | %8.1f %10.0f\n", largest.filename().c_str(),
                    bytes.size(), static_cast<long long>(ops), scan * 1e3, time * 1e3, time / scan,
                    static_cast<double>(bytes.size()) / time / 1e6, static_cast<double>(ops) / time);
        if (sink == 0)
            std::puts("");
    }
    return 0;
}

// Building the whole training step (forward, loss, backward, mixed-precision Adam) against building the
// forward graph alone, in the same run.
int benchTrain(const std::vector<std::string>& models, int runs) {
    std::printf(
        "\n== training step (mixed-precision Adam): median of %d runs; x forward = time / time to build the "
        "forward graph\n\n",
        runs);
    std::printf("%-20s %7s %7s | %10s %10s %9s | %8s\n", "model", "layers", "ops", "forward ms", "step ms",
                "x forward", "ops/ms");
    shardscope::train::OptimizerOptions options;
    options.mixedPrecision = true;
    for (const auto& name : models) {
        auto spec = shardscope::zoo::parseModelSpec(name);
        auto forward = spec ? shardscope::zoo::build(*spec)
                            : shardscope::Result<shardscope::ir::Graph>::failure(spec.diagnostics());
        if (!forward) {
            std::fprintf(stderr, "%s\n", forward.errorMessage().c_str());
            return 1;
        }
        auto step = shardscope::train::buildTrainingStep(*forward, options);
        if (!step) {
            std::fprintf(stderr, "%s\n", step.errorMessage().c_str());
            return 1;
        }
        std::size_t sink = 0;
        const double build = medianSeconds(runs, [&] { sink += shardscope::zoo::build(*spec)->ops.size(); });
        const double train = medianSeconds(
            runs, [&] { sink += shardscope::train::buildTrainingStep(*forward, options)->graph.ops.size(); });
        std::printf("%-20s %7s %7zu | %10.2f %10.2f %9.1f | %8.0f\n", name.c_str(),
                    spec->options.at("layers").c_str(), step->graph.ops.size(), build * 1e3, train * 1e3,
                    train / build, static_cast<double>(step->graph.ops.size()) / (train * 1e3));
        if (sink == 0)
            std::puts("");
    }
    return 0;
}

// The static analysis of training steps of growing depth, against copying the same graph in the same run.
int benchAnalysis(const std::vector<int>& depths, int runs) {
    std::printf(
        "\n== analysis of gpt training steps (Adam): median of %d runs; x copy = time / time to copy the "
        "graph\n\n",
        runs);
    std::printf("%7s %8s %9s | %9s %11s %8s | %8s %7s %7s\n", "layers", "ops", "values", "copy ms",
                "analysis ms", "x copy", "us/op", "names", "groups");
    for (int layers : depths) {
        auto spec = shardscope::zoo::parseModelSpec("gpt:layers=" + std::to_string(layers));
        auto forward = shardscope::zoo::build(*spec);
        auto step = shardscope::train::buildTrainingStep(*forward);
        if (!step) {
            std::fprintf(stderr, "%s\n", step.errorMessage().c_str());
            return 1;
        }
        const auto& g = step->graph;
        std::size_t sink = 0;
        const double copy = medianSeconds(runs, [&] {
            shardscope::ir::Graph copied = g;
            sink += copied.ops.size();
        });
        shardscope::analysis::DecisionSpace space;
        const double time = medianSeconds(runs, [&] { space = shardscope::analysis::analyze(g); });
        std::printf("%7d %8zu %9zu | %9.1f %11.1f %8.1f | %8.2f %7zu %7zu\n", layers, g.body.size(),
                    g.values.size(), copy * 1e3, time * 1e3, time / copy,
                    time * 1e6 / static_cast<double>(g.body.size()), space.names.size(), space.groups.size());
        if (sink == 0)
            std::puts("");
    }
    return 0;
}

// Plan evaluation on training steps: full evaluations (every op costed) and incremental ones (one decision
// added to or removed from an expert plan), against copying the graph in the same run.
int benchEvaluate(const std::vector<std::string>& models, int runs) {
    std::printf(
        "\n== evaluation of the fsdp-tp expert plan, mixed-precision Adam training steps on data=8,model=8 x "
        "h100: median of %d runs\n\n",
        runs);
    std::printf("%-22s %7s | %8s %9s %7s %9s | %9s %7s %9s %8s\n", "model", "ops", "copy ms", "full ms",
                "x copy", "full/s", "incr ms", "ops", "incr/s", "x full");
    auto hardware = shardscope::mesh::loadHardware("h100");
    auto mesh = shardscope::mesh::makeMesh("data=8,model=8", *hardware);
    for (const auto& name : models) {
        auto forward = shardscope::zoo::build(*shardscope::zoo::parseModelSpec(name));
        shardscope::train::OptimizerOptions options;
        options.mixedPrecision = true;
        auto step = forward
                        ? shardscope::train::buildTrainingStep(*forward, options)
                        : shardscope::Result<shardscope::train::TrainingStep>(forward.diagnostics().front());
        if (!step) {
            std::fprintf(stderr, "%s\n", step.errorMessage().c_str());
            return 1;
        }
        const auto& g = step->graph;
        const auto space = shardscope::analysis::analyze(g);
        const shardscope::cost::CostModel model(g, space, *mesh, *hardware);
        auto base = shardscope::plan::expertPlan("fsdp-tp", model.planContext(), model.mesh());
        if (!base) {
            std::fprintf(stderr, "%s\n", base.errorMessage().c_str());
            return 1;
        }
        std::size_t sink = 0;
        const double copy = medianSeconds(runs, [&] {
            shardscope::ir::Graph copied = g;
            sink += copied.ops.size();
        });
        shardscope::cost::Evaluator evaluator(model);
        const double full = medianSeconds(runs, [&] {
            evaluator.reset();
            sink += evaluator.evaluate(*base).collectives.size();
        });
        // Incremental: toggle one extra decision (each group in turn on the model axis) on top of the plan.
        shardscope::plan::Plan extended = *base;
        std::size_t recosted = 0, evaluations = 0, group = 0;
        const int toggles = 4 * runs;
        const double incremental = medianSeconds(toggles, [&] {
            if (extended.decisions.size() > base->decisions.size()) {
                extended.decisions.pop_back();
            } else {
                extended.decisions.push_back({shardscope::plan::Decision::Target::Group,
                                              static_cast<std::uint32_t>(group++ % space.groups.size()), 1});
            }
            sink += evaluator.evaluate(extended).collectives.size();
            recosted += evaluator.opsRecosted();
            ++evaluations;
        });
        std::printf("%-22s %7zu | %8.1f %9.1f %7.1f %9.1f | %9.2f %7zu %9.1f %8.1f\n", name.c_str(),
                    g.body.size(), copy * 1e3, full * 1e3, full / copy, 1 / full, incremental * 1e3,
                    recosted / evaluations, 1 / incremental, full / incremental);
        if (sink == 0)
            std::puts("");
    }
    return 0;
}

// The search against the expert plans on a fixed table of training steps and meshes. Every configuration runs
// MCTS for `seconds` (2 threads, seed 1); the table gives the best expert, MCTS's best at 1 s, 10 s and the
// end, the time it took to come within 1% of its final best, iterations per second, and the exhaustive
// optimum over plans of up to 3 decisions where that space is small enough (under 20,000 sharding states).
int benchSearch(double seconds) {
    struct Config {
        const char* name;
        const char* model;
        const char* mesh;
        const char* hardware;
    };
    const std::vector<Config> configs{
        {"gpt2-small 1 node", "zoo:gpt2-small:batch=32", "data=2,model=4", "h100"},
        {"llama3-8b 1 node (dp does not fit)", "zoo:llama3-8b:batch=8,seq=2048", "data=8", "h100"},
        {"llama3-8b:8 layers 4 nodes", "zoo:llama3-8b:layers=8,batch=32,seq=2048", "data=4,model=8", "h100"},
        {"mixtral-8x7b:4 layers 2 nodes", "zoo:mixtral-8x7b:layers=4,batch=16,seq=1024", "data=2,model=8",
         "h100"},
        {"vit-l16 tpu-v5e", "zoo:vit-l16:batch=256", "data=8,model=4", "tpu-v5e"},
        {"unet 1 node", "zoo:unet:batch=32", "data=8", "h100"},
        {"gpt:24x2048 tpu-v4", "zoo:gpt:layers=24,d_model=2048,heads=16,seq=2048,batch=64", "data=16,model=4",
         "tpu-v4"},
    };
    std::printf(
        "\n== search: MCTS (2 threads, seed 1, %.0f s) against the expert plans, mixed-precision Adam "
        "training steps\n",
        seconds);
    std::printf(
        "   step times in ms; x = best expert / plan (above 1: the search is faster); '-' = no feasible plan "
        "yet\n\n");
    std::printf("%-36s %7s | %-12s %9s | %9s %9s %9s %6s | %8s %7s | %9s %7s\n", "configuration", "ops",
                "best expert", "ms", "1 s", "10 s", "end", "x", "to 1% s", "it/s", "exhaust.", "states");
    for (const auto& c : configs) {
        shardscope::ProblemSpec spec;
        spec.model = c.model;
        spec.train = true;
        spec.mixedPrecision = true;
        spec.mesh = c.mesh;
        spec.hardware = c.hardware;
        auto problem = shardscope::loadProblem(spec);
        if (!problem) {
            std::fprintf(stderr, "%s: %s\n", c.name, problem.errorMessage().c_str());
            return 1;
        }
        const auto& model = *(*problem)->costModel;
        std::string bestExpert = "-";
        double expertTime = 0;
        for (const auto& e : shardscope::plan::expertPlans()) {
            auto plan = shardscope::plan::expertPlan(e.id, model.planContext(), model.mesh());
            if (!plan)
                continue;
            const auto ev = shardscope::cost::evaluate(model, *plan);
            if (ev.feasible && (bestExpert == "-" || ev.stepTime < expertTime))
                bestExpert = e.id, expertTime = ev.stepTime;
        }
        struct Recorder : shardscope::search::SearchObserver {
            std::vector<std::pair<double, shardscope::search::Found>> found;
            shardscope::search::Progress last;
            void newBest(const shardscope::search::Found& f) override { found.emplace_back(f.seconds, f); }
            void progress(const shardscope::search::Progress& p) override { last = p; }
        } recorder;
        shardscope::search::SearchOptions options;
        options.threads = 2;
        options.budget.seconds = seconds;
        shardscope::search::Search search(model, shardscope::plan::Plan{}, options);
        const auto best = search.run(&recorder);
        auto bestAt = [&](double t) -> double {
            double out = 0;
            for (const auto& [when, f] : recorder.found)
                if (when <= t && f.evaluation.feasible)
                    out = f.evaluation.stepTime;
            return out;
        };
        double within = 0;
        for (const auto& [when, f] : recorder.found)
            if (f.evaluation.feasible && f.evaluation.stepTime <= best.evaluation.stepTime * 1.01) {
                within = when;
                break;
            }
        auto ms = [](double t) {
            if (t <= 0)
                return std::string("-");
            char buffer[32];
            std::snprintf(buffer, sizeof buffer, "%.2f", t * 1e3);
            return std::string(buffer);
        };
        std::string exhaustive = "-", states = "-";
        // Sharding decisions and remat only, as this column always meant (with pipelines and microbatches
        // the spaces are 10-50x larger and past the limit on most rows).
        auto ex = shardscope::search::exhaustiveSearch(model, shardscope::plan::Plan{}, 3, 20000, 16,
                                                       shardscope::search::Staging::None);
        if (ex && ex->best.evaluation.feasible)
            exhaustive = ms(ex->best.evaluation.stepTime), states = std::to_string(ex->states);
        const double end = best.evaluation.feasible ? best.evaluation.stepTime : 0;
        char ratio[16] = "-";
        if (end > 0 && expertTime > 0)
            std::snprintf(ratio, sizeof ratio, "%.3f", expertTime / end);
        std::printf("%-36s %7zu | %-12s %9s | %9s %9s %9s %6s | %8.2f %7.0f | %9s %7s\n", c.name,
                    model.graph().body.size(), bestExpert.c_str(), ms(expertTime).c_str(),
                    ms(bestAt(1)).c_str(), ms(bestAt(10)).c_str(), ms(end).c_str(), ratio, within,
                    recorder.last.seconds > 0
                        ? static_cast<double>(recorder.last.iterations) / recorder.last.seconds
                        : 0.0,
                    exhaustive.c_str(), states.c_str());
        std::fflush(stdout);
    }
    return 0;
}

// Pipelines in the search: a Llama-3-70B training step (global batch 512 of 4096 tokens) on 512 H100s as
// pipe=8,data=8,model=8 (64 nodes of 8; only `model` is inside a node). MCTS with pipelines and microbatches
// (2 threads, seed 1, `seconds`), MCTS without pipelines (gradient accumulation still allowed), and the ptd-p
// expert (with its first fitting remat variant, if it needs one); step times and ratios to the best.
int benchSearchPipeline(double seconds) {
    const char* modelSpec = "zoo:llama3-70b:batch=512,seq=4096";
    const char* meshSpec = "pipe=8,data=8,model=8";
    std::printf(
        "\n== search with pipelines: %s training step (mixed-precision Adam) on %s x h100, MCTS 2 threads, "
        "seed 1, %.0f s each\n\n",
        modelSpec, meshSpec, seconds);
    shardscope::ProblemSpec spec;
    spec.model = modelSpec;
    spec.train = true;
    spec.mixedPrecision = true;
    spec.mesh = meshSpec;
    spec.hardware = "h100";
    auto problem = shardscope::loadProblem(spec);
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

// --- soak: one long search recorded into a workspace, its memory and file sampled as it goes ---

namespace {

// VmRSS and VmHWM of this process, in bytes (0 when /proc is not there).
std::pair<double, double> residentBytes() {
    std::ifstream status("/proc/self/status");
    std::string line;
    double rss = 0, peak = 0;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0)
            rss = std::atof(line.c_str() + 6) * 1024;
        if (line.rfind("VmHWM:", 0) == 0)
            peak = std::atof(line.c_str() + 6) * 1024;
    }
    return {rss, peak};
}

double fileBytes(const std::string& path) {
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    return error ? 0.0 : static_cast<double>(size);
}

// The least-squares slope of y over x (0 with fewer than two points).
double slope(const std::vector<std::pair<double, double>>& points) {
    if (points.size() < 2)
        return 0;
    double mx = 0, my = 0;
    for (const auto& [x, y] : points)
        mx += x, my += y;
    mx /= static_cast<double>(points.size()), my /= static_cast<double>(points.size());
    double sxy = 0, sxx = 0;
    for (const auto& [x, y] : points)
        sxy += (x - mx) * (y - my), sxx += (x - mx) * (x - mx);
    return sxx > 0 ? sxy / sxx : 0;
}

struct SoakSample {
    double seconds = 0, rss = 0, peakRss = 0, workspace = 0, wal = 0;  // workspace = the file and its WAL
    std::size_t treeNodes = 0;
    std::int64_t iterations = 0, evaluations = 0;
    double bestStepTime = 0;
    bool bestFeasible = false;
};

// Keeps the search's latest report, and the search itself while it runs, for the sampler.
class SoakObserver : public shardscope::search::SearchObserver {
public:
    void progress(const shardscope::search::Progress& p) override {
        std::lock_guard lock(mutex_);
        last_ = p;
    }
    shardscope::search::Progress last() const {
        std::lock_guard lock(mutex_);
        return last_;
    }
    // The search runs from attach(search) to attach(nullptr).
    bool attach(shardscope::search::Search* search) {
        std::lock_guard lock(mutex_);
        if (!search && search_)
            finalTreeSize_ = search_->treeSize();
        search_ = search;
        return true;
    }
    std::size_t treeSize() const {
        std::lock_guard lock(mutex_);
        return search_ ? search_->treeSize() : finalTreeSize_;
    }

private:
    mutable std::mutex mutex_;
    shardscope::search::Progress last_;
    shardscope::search::Search* search_ = nullptr;
    std::size_t finalTreeSize_ = 0;
};

}  // namespace

// `--soak MINUTES MODEL`: one MCTS search (one thread, seed 1) of the model's Adam training step on
// data=4,model=2 of H100s for MINUTES, recorded into a fresh workspace as `shardscope-cli search --workspace`
// records it. Every SHARDSCOPE_SOAK_SAMPLE_S seconds (30 unless set) it samples RSS, the tree, the
// iterations, the best step time and the workspace's size (file + WAL); at the end it prints the table and
// the growth rates.
int benchSoak(double minutes, const std::string& model, const std::string& mesh) {
    using namespace shardscope;
    double every = 30;
    if (const char* s = std::getenv("SHARDSCOPE_SOAK_SAMPLE_S"))
        every = std::max(1.0, std::atof(s));
    std::printf("== soak: %.1f min search of %s (training step, Adam), mesh %s on h100, 1 thread, seed 1\n",
                minutes, model.c_str(), mesh.c_str());
    std::fflush(stdout);
    ProblemSpec spec;
    spec.model = model;
    spec.train =
        true;  // Adam, the model's own precision (pt_bert is f32: mixed precision needs 16-bit parameters)
    spec.mesh = mesh;
    spec.hardware = "h100";
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("shardscope-soak-" + std::to_string(::getpid()) + ".shardscope"))
                                 .string();
    auto opened = session::WorkspaceSession::open(spec, path);
    auto problem =
        opened ? opened->loadProblem() : Result<std::unique_ptr<Problem>>::failure(opened.diagnostics());
    if (!problem) {
        std::fprintf(stderr, "%s\n", problem.errorMessage().c_str());
        return 1;
    }
    const auto& costModel = *(*problem)->costModel;
    const auto [loadedRss, loadedPeak] = residentBytes();
    std::printf("problem: %zu ops, %zu names, %zu groups; RSS after loading %.1f MB (peak %.1f MB)\n",
                costModel.graph().body.size(), (*problem)->space.names.size(),
                (*problem)->space.groups.size(), loadedRss / 1e6, loadedPeak / 1e6);
    auto workspace = opened->workspace();
    if (!workspace) {
        std::fprintf(stderr, "%s\n", workspace.errorMessage().c_str());
        return 1;
    }
    session::SearchRequest request;
    request.options.threads = 1;
    request.options.seed = 1;
    request.options.budget.seconds = minutes * 60;
    if (const char* cap = std::getenv("SHARDSCOPE_SOAK_MAX_NODES"))
        request.options.maxTreeNodes = static_cast<std::size_t>(std::atoll(cap));
    request.settings = {"soak", {}, false};
    const std::size_t maxTreeNodes = request.options.maxTreeNodes;
    SoakObserver observer;

    std::vector<SoakSample> samples;
    auto sample = [&](double seconds) {
        const auto [rss, peak] = residentBytes();
        const auto p = observer.last();
        const double wal = fileBytes(path + "-wal");
        samples.push_back({seconds, rss, peak, fileBytes(path) + wal, wal, observer.treeSize(), p.iterations,
                           p.evaluations, p.bestStepTime, p.bestFeasible});
        const auto& s = samples.back();
        std::fprintf(stderr, "soak: %6.0f s  RSS %7.1f MB  tree %8zu  it %9lld  workspace %7.2f MB\n",
                     s.seconds, s.rss / 1e6, s.treeNodes, static_cast<long long>(s.iterations),
                     s.workspace / 1e6);
    };
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    std::mutex doneMutex;
    std::condition_variable doneCondition;
    bool done = false;
    Result<session::SearchRun> run = makeError("bench.soak", "the search did not run");
    std::thread runner([&] {
        run = session::runSearch(**problem, *workspace, request, {&observer, {}, [&](search::Search* search) {
                                                                      return observer.attach(search);
                                                                  }});
        std::lock_guard lock(doneMutex);
        done = true;
        doneCondition.notify_all();
    });
    sample(0);
    for (int k = 1;; ++k) {
        std::unique_lock lock(doneMutex);
        const auto due = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>(k * every));
        if (doneCondition.wait_until(lock, due, [&] { return done; }))
            break;
        lock.unlock();
        sample(elapsed());
    }
    runner.join();
    if (!run) {
        std::fprintf(stderr, "%s\n", run.errorMessage().c_str());
        return 1;
    }
    sample(elapsed());
    const search::Progress last = observer.last();
    const search::Found& best = run->best;

    std::printf("\n%9s %9s %9s %9s %11s %9s %12s %12s %8s\n", "elapsed s", "RSS MB", "peak MB", "tree",
                "iterations", "it/s", "best ms", "workspace MB", "WAL MB");
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const auto& s = samples[i];
        const double rate = i == 0 ? 0.0
                                   : static_cast<double>(s.iterations - samples[i - 1].iterations) /
                                         std::max(1e-9, s.seconds - samples[i - 1].seconds);
        char bestText[32] = "-";
        if (s.bestStepTime > 0)
            std::snprintf(bestText, sizeof bestText, "%.3f%s", s.bestStepTime * 1e3,
                          s.bestFeasible ? "" : "*");
        const bool afterRun = i + 1 == samples.size();
        std::printf("%9.0f %9.1f %9.1f %9zu %11lld %9.1f %12s %12.2f %8.2f%s\n", s.seconds, s.rss / 1e6,
                    s.peakRss / 1e6, s.treeNodes, static_cast<long long>(s.iterations), rate, bestText,
                    s.workspace / 1e6, s.wal / 1e6, afterRun ? "  (search returned, flushed)" : "");
    }
    // Growth after the warm-up: the first 5 minutes (the first third of shorter runs) are left out.
    const double warmUp = std::min(300.0, samples.back().seconds / 3);
    std::vector<std::pair<double, double>> rss, file;
    // The last sample is taken after run() has returned (its worker's evaluator freed) and the workspace
    // flushed: it counts for the file only.
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const auto& s = samples[i];
        if (s.seconds < warmUp)
            continue;
        if (i + 1 < samples.size())
            rss.emplace_back(s.seconds / 3600, s.rss / 1e6);
        file.emplace_back(s.seconds / 3600, s.workspace / 1e6);
    }
    std::printf("\nRSS growth after %.0f s: %.1f MB/h (least squares over %zu samples); peak RSS %.1f MB\n",
                warmUp, slope(rss), rss.size(), samples.back().peakRss / 1e6);
    std::printf("workspace growth after %.0f s: %.2f MB/h; final size %.2f MB (%s)\n", warmUp, slope(file),
                samples.back().workspace / 1e6, path.c_str());
    std::printf(
        "iterations: %lld in %.0f s = %.1f it/s; %lld evaluations (%lld cache hits); tree %zu nodes (cap "
        "%zu)\n",
        static_cast<long long>(last.iterations), last.seconds,
        last.seconds > 0 ? static_cast<double>(last.iterations) / last.seconds : 0.0,
        static_cast<long long>(last.evaluations), static_cast<long long>(last.cacheHits), run->treeNodes,
        maxTreeNodes);
    std::printf("best plan: %.3f ms%s, found after %.0f s (%s); workspace flush: %s\n",
                best.evaluation.stepTime * 1e3, best.evaluation.feasible ? "" : " (does not fit)",
                best.seconds, best.origin.c_str(), run->saved ? "ok" : run->saveError->message.c_str());
    if (!std::getenv("SHARDSCOPE_SOAK_KEEP")) {
        std::error_code ignored;
        for (const char* suffix : {"", "-wal", "-shm"})
            std::filesystem::remove(path + suffix, ignored);
    }
    return run->saved ? 0 : 1;
}

int main(int argc, char** argv) {
    int runs = 7;
    if (const char* r = std::getenv("SHARDSCOPE_BENCH_RUNS"))
        runs = std::max(1, std::atoi(r));
    std::vector<std::string> models{"gpt2-small", "llama3-8b", "mixtral-8x7b", "gpt3-175b", "llama3-70b"};
    std::string sharedDir = SHARDSCOPE_SHARED_DIR;
    const std::string what = argc > 1 ? argv[1] : "all";
    if (what == "--soak" || what == "soak") {
        // The largest shared model: pt_bert's forward graph has 3,502 ops (12,773 in its training step), more
        // than any other model in ../shared/models (`shardscope-cli info`).
        const double minutes = argc > 2 ? std::atof(argv[2]) : 30.0;
        const std::string model = argc > 3 ? argv[3] : sharedDir + "/models/stablehlo/pt_bert.mlir";
        const std::string mesh = argc > 4 ? argv[4] : "data=4,model=2";
        if (minutes <= 0) {
            std::puts("usage: shardscope-bench --soak [MINUTES] [MODEL] [MESH]");
            return 2;
        }
        return benchSoak(minutes, model, mesh);
    }
    if (what == "--help" ||
        (what != "all" && what != "zoo" && what != "import" && what != "train" && what != "analysis" &&
         what != "evaluate" && what != "search" && what != "search-pipeline")) {
        std::puts(
            "usage: shardscope-bench [all | zoo [PRESET...] | import [SHARED_DIR] | train [MODEL...] | "
            "analysis [LAYERS...] | evaluate [MODEL...] | "
            "search [SECONDS [PIPELINE_SECONDS]] | search-pipeline [PIPELINE_SECONDS] | "
            "--soak [MINUTES] [MODEL] [MESH]]");
        return what == "--help" ? 0 : 2;
    }
    if (what == "zoo" && argc > 2)
        models.assign(argv + 2, argv + argc);
    if (what == "import" && argc > 2)
        sharedDir = argv[2];
    std::vector<std::string> trainModels{"gpt2-small", "gpt3-175b:layers=24", "gpt3-175b:layers=48",
                                         "gpt3-175b"};
    if (what == "train" && argc > 2)
        trainModels.assign(argv + 2, argv + argc);
    if (what == "all" || what == "zoo")
        if (int rc = benchZoo(models, runs))
            return rc;
    if (what == "all" || what == "import")
        if (int rc = benchImport(sharedDir, runs))
            return rc;
    if (what == "all" || what == "train")
        if (int rc = benchTrain(trainModels, std::min(runs, 5)))
            return rc;
    std::vector<int> depths{12, 24, 48, 96, 168};
    if (what == "analysis" && argc > 2) {
        depths.clear();
        for (int i = 2; i < argc; ++i)
            depths.push_back(std::atoi(argv[i]));
    }
    if (what == "all" || what == "analysis")
        if (int rc = benchAnalysis(depths, std::min(runs, 3)))
            return rc;
    std::vector<std::string> evaluateModels{"gpt2-small", "gpt3-175b"};
    if (what == "evaluate" && argc > 2)
        evaluateModels.assign(argv + 2, argv + argc);
    if (what == "all" || what == "evaluate")
        if (int rc = benchEvaluate(evaluateModels, std::min(runs, 5)))
            return rc;
    // The pipeline row's searches take 60 s each unless told: its model's evaluations take ~0.1 s.
    if (what == "search-pipeline")
        return benchSearchPipeline(argc > 2 ? std::atof(argv[2]) : 60.0);
    if (what == "all" || what == "search") {
        if (int rc = benchSearch(what == "search" && argc > 2 ? std::atof(argv[2]) : 60.0))
            return rc;
        return benchSearchPipeline(what == "search" && argc > 3 ? std::atof(argv[3]) : 60.0);
    }
    return 0;
}
