// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// shardscope-bench: timings of the engine's stages on zoo models. Each figure is the median of several runs;
// ratios are against copying the same graph in the same run (a memory-bound baseline).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench.h"
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
#include "shardscope/train/training_step.h"
#include "shardscope/zoo/zoo.h"

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

namespace {

// One model's evaluation of the fsdp-tp expert, full (every op re-costed) and incremental (one decision added
// to or removed from the plan), with or without op classes (cost::EvaluatorOptions::shareOpClasses).
struct EvaluationTimes {
    double full = 0, incremental = 0;
    std::size_t fullPriced = 0, recosted = 0,
                priced = 0;                    // ops: priced by a full evaluation; per incremental one
    std::size_t fullKernels = 0, kernels = 0;  // kernels priced, alike
};

EvaluationTimes timeEvaluation(const shardscope::cost::CostModel& model, const shardscope::plan::Plan& base,
                               bool shareOpClasses, int runs, std::size_t& sink) {
    EvaluationTimes t;
    shardscope::cost::Evaluator evaluator(model, shardscope::cost::EvaluatorOptions{shareOpClasses});
    t.full = medianSeconds(runs, [&] {
        evaluator.reset();
        sink += evaluator.evaluate(base).collectives.size();
        t.fullPriced = evaluator.opsPriced();
        t.fullKernels = evaluator.kernelsPriced();
    });
    // Incremental: toggle one extra decision (each group in turn on the model axis) on top of the plan.
    shardscope::plan::Plan extended = base;
    std::size_t evaluations = 0, group = 0;
    const std::size_t groups = model.space().groups.size();
    t.incremental = medianSeconds(4 * runs, [&] {
        if (extended.decisions.size() > base.decisions.size()) {
            extended.decisions.pop_back();
        } else {
            extended.decisions.push_back(
                {shardscope::plan::Decision::Target::Group, static_cast<std::uint32_t>(group++ % groups), 1});
        }
        sink += evaluator.evaluate(extended).collectives.size();
        t.recosted += evaluator.opsRecosted();
        t.priced += evaluator.opsPriced();
        t.kernels += evaluator.kernelsPriced();
        ++evaluations;
    });
    t.recosted /= std::max<std::size_t>(evaluations, 1);
    t.priced /= std::max<std::size_t>(evaluations, 1);
    t.kernels /= std::max<std::size_t>(evaluations, 1);
    return t;
}

// The median time of one plan::applyPlan of `plan` (each run the mean of 20 applications).
double timeApply(const shardscope::cost::CostModel& model, const shardscope::plan::Plan& plan, int runs,
                 std::size_t& sink) {
    constexpr int kApplications = 20;
    return medianSeconds(4 * runs,
                         [&] {
                             for (int i = 0; i < kApplications; ++i)
                                 sink += shardscope::plan::applyPlan(model.planContext(), model.mesh(), plan)
                                             .competitions.size() +
                                         1;
                         }) /
           kApplications;
}

}  // namespace

// Plan evaluation on training steps: per-op pricing (the baseline) against op classes in the same run, then
// the growth with depth (GPT-2 small's layer at 12 to 96 layers).
int benchEvaluate(const std::vector<std::string>& models, int runs) {
    std::printf(
        "\n== evaluation of the fsdp-tp expert plan, mixed-precision Adam training steps on data=8,model=8 x "
        "h100: median of %d runs; per-op pricing | op classes (priced: ops priced rather than shared; krnls: "
        "kernels priced) | "
        "plan::applyPlan alone, of the fsdp-tp plan and of a plan deciding every group (group g on axis g "
        "mod "
        "2)\n\n",
        runs);
    std::printf("%-22s %7s %7s | %9s %9s %7s %6s %6s | %9s %9s %7s %6s %6s %6s | %9s %9s\n", "model", "ops",
                "classes", "full ms", "classes", "x", "priced", "krnls", "incr ms", "classes", "x", "ops",
                "priced", "krnls", "apply ms", "all grps");
    auto hardware = shardscope::mesh::loadHardware("h100");
    auto mesh = shardscope::mesh::makeMesh("data=8,model=8", *hardware);
    auto row = [&](const std::string& name) {
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
        const EvaluationTimes perOp = timeEvaluation(model, *base, false, runs, sink);
        const EvaluationTimes shared = timeEvaluation(model, *base, true, runs, sink);
        shardscope::plan::Plan everyGroup;
        for (std::uint32_t group = 0; group < space.groups.size(); ++group)
            everyGroup.decisions.push_back(
                {shardscope::plan::Decision::Target::Group, group, static_cast<int>(group % 2)});
        const double apply = timeApply(model, *base, runs, sink);
        const double applyEvery = timeApply(model, everyGroup, runs, sink);
        std::printf(
            "%-22s %7zu %7zu | %9.2f %9.2f %7.1f %6zu %6zu | %9.2f %9.2f %7.1f %6zu %6zu %6zu | %9.3f "
            "%9.3f\n",
            name.c_str(), g.body.size(), model.opClasses().classes, perOp.full * 1e3, shared.full * 1e3,
            perOp.full / shared.full, shared.fullPriced, shared.fullKernels, perOp.incremental * 1e3,
            shared.incremental * 1e3, perOp.incremental / shared.incremental, shared.recosted, shared.priced,
            shared.kernels, apply * 1e3, applyEvery * 1e3);
        if (sink == 0)
            std::puts("");
        return 0;
    };
    for (const auto& name : models)
        if (int rc = row(name))
            return rc;
    std::printf("\n-- growth with depth: GPT-2 small's layer, batch 64\n");
    for (int layers : {12, 24, 48, 96})
        if (int rc = row("gpt:layers=" + std::to_string(layers) + ",batch=64"))
            return rc;
    return 0;
}

namespace {

// `--only A,B --only C` -> {A, B, C}, taken out of `args`.
std::vector<std::string> takeOnly(std::vector<std::string>& args) {
    std::vector<std::string> only;
    for (std::size_t i = 0; i < args.size();) {
        if (args[i] != "--only" || i + 1 == args.size()) {
            ++i;
            continue;
        }
        std::string list = args[i + 1];
        for (std::size_t start = 0; start <= list.size();) {
            const auto comma = std::min(list.find(',', start), list.size());
            if (comma > start)
                only.push_back(list.substr(start, comma - start));
            start = comma + 1;
        }
        args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
                   args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
    }
    return only;
}

}  // namespace

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
         what != "evaluate" && what != "search" && what != "search-pipeline" && what != "search-seeds" &&
         what != "frontier" && what != "layers" && what != "classes" && what != "allocations")) {
        std::puts(
            "usage: shardscope-bench [all | zoo [PRESET...] | import [SHARED_DIR] | train [MODEL...] | "
            "analysis [LAYERS...] | evaluate [MODEL...] | "
            "search [SECONDS [PIPELINE_SECONDS]] [--only ROW,...] | search-pipeline [PIPELINE_SECONDS] | "
            "search-seeds [ITERATIONS] [--seeds N] [--lanes N] [--only ROW,...] | "
            "frontier [SEARCH_SECONDS] [--only MODEL,...] [--mesh MESH] | "
            "layers [--only ROW,... | MODEL [MESH [HARDWARE]]] | classes [--only ROW,... | MODEL [MESH "
            "[HARDWARE]]] | allocations [SECONDS] [--only ROW,...] | --soak [MINUTES] [MODEL] [MESH]]\n"
            "  --only: search rows by number (from 1) or by a part of their name or model; with --only the "
            "pipeline table is left out");
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
    if (what == "search-seeds") {
        std::vector<std::string> args(argv + 2, argv + argc);
        const auto only = takeOnly(args);
        auto takeCount = [&](const char* flag, int otherwise) {
            const auto at = std::find(args.begin(), args.end(), flag);
            if (at == args.end() || at + 1 == args.end())
                return otherwise;
            const int n = std::atoi((at + 1)->c_str());
            args.erase(at, at + 2);
            return n;
        };
        const int seeds = takeCount("--seeds", 8), lanes = takeCount("--lanes", 0);
        const long long iterations = !args.empty() ? std::atoll(args[0].c_str()) : 3000;
        if (iterations <= 0 || seeds <= 0 || lanes < 0 || lanes > 1024) {
            std::puts(
                "usage: shardscope-bench search-seeds [ITERATIONS] [--seeds N] [--lanes N] [--only ROW,...]");
            return 2;
        }
        return benchSearchSeeds(iterations, seeds, lanes, only);
    }
    if (what == "all" || what == "layers") {
        std::vector<std::string> args;
        if (what == "layers")
            args.assign(argv + 2, argv + argc);
        const auto only = takeOnly(args);
        if (int rc = benchLayers(only, args); rc != 0 || what == "layers")
            return rc;
    }
    if (what == "all" || what == "classes") {
        std::vector<std::string> args;
        if (what == "classes")
            args.assign(argv + 2, argv + argc);
        const auto only = takeOnly(args);
        if (int rc = benchClasses(only, args); rc != 0 || what == "classes")
            return rc;
    }
    if (what == "allocations") {
        std::vector<std::string> args(argv + 2, argv + argc);
        const auto only = takeOnly(args);
        const double seconds = !args.empty() ? std::atof(args[0].c_str()) : 5.0;
        if (seconds <= 0) {
            std::puts("usage: shardscope-bench allocations [SECONDS] [--only ROW,...]");
            return 2;
        }
        return benchAllocations(seconds, only);
    }
    if (what == "frontier") {
        std::vector<std::string> args(argv + 2, argv + argc);
        const auto only = takeOnly(args);
        std::string mesh;
        if (const auto at = std::find(args.begin(), args.end(), "--mesh");
            at != args.end() && at + 1 != args.end()) {
            mesh = *(at + 1);
            args.erase(at, at + 2);
        }
        return benchFrontier(!args.empty() ? std::atof(args[0].c_str()) : 5.0, sharedDir, only, mesh);
    }
    if (what == "all" || what == "search") {
        std::vector<std::string> args;
        if (what == "search")
            args.assign(argv + 2, argv + argc);
        const auto only = takeOnly(args);
        const double seconds = !args.empty() ? std::atof(args[0].c_str()) : 60.0;
        if (seconds <= 0) {
            std::puts("usage: shardscope-bench search [SECONDS [PIPELINE_SECONDS]] [--only ROW,...]");
            return 2;
        }
        const int rc = benchSearch(seconds, only);
        if (rc == 2 || !only.empty())
            return rc;
        // The pipeline table's searches take as long as the table's unless told.
        const int pipeline = benchSearchPipeline(args.size() > 1 ? std::atof(args[1].c_str()) : seconds);
        return rc != 0 ? rc : pipeline;
    }
    return 0;
}
