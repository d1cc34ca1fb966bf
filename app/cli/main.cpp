// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// shardscope-cli: the headless front end. Argument parsing and wiring only; the work is the engine's.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "checks.h"
#include "cli.h"
#include "shardscope/analysis/decision_space.h"
#include "shardscope/analysis/resize.h"
#include "shardscope/import/format.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/input_file.h"
#include "shardscope/ir/printer.h"
#include "shardscope/ir/statistics.h"
#include "shardscope/report/analysis_report.h"
#include "shardscope/report/evaluation_report.h"
#include "shardscope/report/model_report.h"
#include "shardscope/session/model_source.h"
#include "shardscope/session/problem.h"
#include "shardscope/train/training_step.h"
#include "shardscope/zoo/zoo.h"

namespace cli {
// calibrate.cpp: the `calibrate` command; its options live in the subcommand it adds.
CLI::App* addCalibrateCommand(CLI::App& app);
int calibrate(const CLI::App& command);
}  // namespace cli

namespace {

using cli::report;
using cli::TrainingFlags;

constexpr const char* kModelHelp =
    "model to load: a StableHLO (.mlir) or ONNX (.onnx) file, or zoo:NAME[:key=value,...] such as "
    "zoo:gpt2-small "
    "or zoo:gpt:layers=4,d_model=512,heads=8";

// Turns `--dim name=value` options into import options; returns false (after printing why) on a bad one.
bool parseDimensions(const std::vector<std::string>& items, shardscope::import::ImportOptions& options) {
    for (const auto& item : items) {
        const auto eq = item.find('=');
        char* end = nullptr;
        const long long value = eq == std::string::npos ? 0 : std::strtoll(item.c_str() + eq + 1, &end, 10);
        if (eq == std::string::npos || eq == 0 || end == item.c_str() + eq + 1 || *end != '\0' ||
            value <= 0) {
            std::cerr << "shardscope-cli: error: --dim expects name=positive-integer, got '" << item << "'\n";
            return false;
        }
        options.dimensions[item.substr(0, eq)] = value;
    }
    return true;
}

// Turns `--set key=value[,key=value]` options into the global sizes of the import options; returns false
// (after printing why) on a bad one or a key set twice.
bool parseSizes(const std::vector<std::string>& items, shardscope::import::ImportOptions& options) {
    for (const auto& item : items) {
        auto sizes = shardscope::analysis::parseGlobalSizes(item);
        if (!sizes) {
            std::cerr << "shardscope-cli: error: --set " << sizes.diagnostics().front().message << "\n";
            return false;
        }
        for (const auto& [key, value] : *sizes)
            if (!options.sizes.emplace(key, value).second) {
                std::cerr << "shardscope-cli: error: --set: size '" << key << "' is set twice\n";
                return false;
            }
    }
    return true;
}

// Replaces the model's graph by its training step; fills `summary` and adds the step's warnings to
// `warnings`. Prints why and returns false on failure.
bool toTrainingStep(shardscope::LoadedModel& model, const TrainingFlags& flags,
                    shardscope::report::TrainingSummary& summary,
                    std::vector<shardscope::Diagnostic>& warnings) {
    using namespace shardscope;
    ProblemSpec spec;
    spec.optimizer = flags.optimizer;
    spec.loss = flags.loss;
    spec.lossOutput = flags.lossOutput;
    spec.mixedPrecision = flags.mixedPrecision;
    summary.forwardFlops = ir::computeStatistics(model.graph).flops;
    auto step = trainingStepFor(model.graph, spec);
    if (!report(step))
        return false;
    warnings.insert(warnings.end(), step.diagnostics().begin(), step.diagnostics().end());
    model.graph = std::move(step->graph);
    summary.optimizer = flags.optimizer;
    summary.mixedPrecision = flags.mixedPrecision;
    summary.forwardOps = step->forwardOps;
    summary.backwardOps = step->backwardOps;
    summary.updateOps = step->updateOps;
    for (const auto& a : model.graph.arguments)
        if (a.role == ir::ArgumentRole::Parameter)
            summary.gradientBytes += model.graph.type(a.value).bytes();
    return true;
}

int info(const std::string& source, const shardscope::import::ImportOptions& options,
         const TrainingFlags& training, bool json) {
    auto model = shardscope::loadModel(source, options);
    if (!report(model))
        return 1;
    auto warnings = model.diagnostics();
    shardscope::report::TrainingSummary summary;
    if (training.enabled && !toTrainingStep(*model, training, summary, warnings))
        return 1;
    const auto statistics = shardscope::ir::computeStatistics(model->graph);
    const auto* trainingSummary = training.enabled ? &summary : nullptr;
    std::cout << (json ? shardscope::report::withWarnings(
                             shardscope::report::modelInfoJson(*model, statistics, trainingSummary), warnings)
                       : shardscope::report::modelInfoText(*model, statistics, trainingSummary));
    return 0;
}

int print(const std::string& source, const shardscope::import::ImportOptions& options,
          const TrainingFlags& training) {
    auto model = shardscope::loadModel(source, options);
    if (!report(model))
        return 1;
    std::vector<shardscope::Diagnostic> warnings;  // printed by report()
    shardscope::report::TrainingSummary summary;
    if (training.enabled && !toTrainingStep(*model, training, summary, warnings))
        return 1;
    shardscope::ir::PrintOptions printing;
    printing.moduleName = model->displayName;
    for (char& c : printing.moduleName)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
            c = '_';
    std::cout << shardscope::ir::printStableHlo(model->graph, printing);
    return 0;
}

int analyze(const std::string& source, const shardscope::import::ImportOptions& options,
            const TrainingFlags& training, bool json, bool all) {
    auto model = shardscope::loadModel(source, options);
    if (!report(model))
        return 1;
    auto warnings = model.diagnostics();
    shardscope::report::TrainingSummary summary;
    if (training.enabled && !toTrainingStep(*model, training, summary, warnings))
        return 1;
    const auto space = shardscope::analysis::analyze(model->graph);
    std::cout << (json ? shardscope::report::withWarnings(shardscope::report::analysisJson(*model, space),
                                                          warnings)
                       : shardscope::report::analysisText(*model, space, all ? 0 : 40));
    return 0;
}

// One line per op of every function: `@function:line: rule`. Files other than StableHLO text (and zoo models)
// are printed as StableHLO first, and lines refer to that text.
int rules(const std::string& source, const shardscope::import::ImportOptions& options) {
    using namespace shardscope;
    std::string text, file = source;
    if (source.rfind("zoo:", 0) != 0) {
        auto read = readModelFile(source);
        if (!report(read))
            return 1;
        text = std::move(read).value();
    }
    // Resized models are printed as StableHLO first too: the sizes apply to the loaded graph.
    if (text.empty() || import::detectFormat(text) != import::ModelFormat::StableHlo ||
        !options.sizes.empty()) {
        auto model = loadModel(source, options);
        if (!report(model))
            return 1;
        text = ir::printStableHlo(model->graph);
        file = source + " (as StableHLO)";
    }
    auto functions = import::stableHloFunctions(text, file);
    if (!report(functions))
        return 1;
    if (!options.entryFunction.empty() && file == source)
        *functions = {options.entryFunction};  // printed: its one function
    int status = 0;
    std::vector<Diagnostic> warned;  // each function's import repeats the module's warnings: said once
    for (const auto& function : *functions) {
        import::ImportOptions entry = options;
        entry.entryFunction = function;
        auto graph = import::importStableHlo(text, file, entry);
        if (!graph) {
            std::cerr << "shardscope-cli: @" << function << ": " << graph.errorMessage() << "\n";
            status = 1;
            continue;
        }
        std::vector<Diagnostic> fresh;
        for (const auto& d : graph.diagnostics())
            if (std::find(warned.begin(), warned.end(), d) == warned.end())
                fresh.push_back(d), warned.push_back(d);
        cli::printDiagnostics(fresh);
        for (auto id : graph->body) {
            const auto& op = graph->op(id);
            std::cout << "@" << function << ":" << op.location.line << ": "
                      << analysis::factorRule(*graph, op).toString() << "\n";
        }
    }
    return status;
}

int listZoo(bool json) {
    using namespace shardscope;
    if (json) {
        nlohmann::json out{
            {"version", 1}, {"families", nlohmann::json::array()}, {"presets", nlohmann::json::array()}};
        for (const auto& f : zoo::families()) {
            nlohmann::json options = nlohmann::json::array();
            for (const auto& o : f.options)
                options.push_back({{"key", o.key}, {"default", o.defaultValue}, {"help", o.help}});
            out["families"].push_back(
                {{"name", f.name}, {"description", f.description}, {"options", options}});
        }
        for (const auto& p : zoo::presets())
            out["presets"].push_back({{"name", p.name},
                                      {"family", p.family},
                                      {"options", p.options},
                                      {"published_parameters", p.publishedParameters},
                                      {"source", p.source},
                                      {"description", p.description}});
        std::cout << cli::jsonText(out) << "\n";
        return 0;
    }
    std::cout << "Families (zoo:FAMILY[:key=value,...]):\n";
    for (const auto& f : zoo::families()) {
        std::cout << "  " << f.name << " - " << f.description << "\n";
        for (const auto& o : f.options) {
            char line[160];
            std::snprintf(line, sizeof line, "      %-16s %-10s %s\n", o.key.c_str(), o.defaultValue.c_str(),
                          o.help.c_str());
            std::cout << line;
        }
    }
    std::cout << "\nPresets (zoo:PRESET[:key=value,...]):\n";
    for (const auto& p : zoo::presets()) {
        char line[200];
        std::snprintf(line, sizeof line, "  %-14s %-6s %-10s %s\n", p.name.c_str(), p.family.c_str(),
                      p.publishedParameters > 0 ? report::formatCount(p.publishedParameters).c_str() : "-",
                      p.description.c_str());
        std::cout << line;
    }
    return 0;
}

}  // namespace

static int runCommand(int argc, char** argv) {
    // A file-size limit (ulimit -f) must fail a write with EFBIG, which the workspace reports, not kill the
    // process with SIGXFSZ and lose the search's result.
    std::signal(SIGXFSZ, SIG_IGN);
    cli::prepareOutput();
    CLI::App app{"Shardscope: plans and explains how to shard ML models across accelerator meshes.",
                 "shardscope-cli"};
    app.set_version_flag("--version", "shardscope-cli 0.1.0");
    app.require_subcommand(1);

    std::string source;
    bool json = false;
    std::vector<std::string> dims;
    const char* dimHelp = "value of a symbolic dimension of an ONNX model, e.g. --dim batch=8 (repeatable)";
    std::vector<std::string> sets;
    const char* setHelp =
        "plan the model at another global batch or sequence length, e.g. --set batch=256,seq=4096 (keys: "
        "batch, seq; "
        "repeatable): every shape is derived again from the dimensions that carry them";
    std::string entry;
    const char* entryHelp =
        "StableHLO: the function to import (default: @main, else the only public function)";
    auto* infoCommand = app.add_subcommand(
        "info", "describe a model: op counts, parameters, FLOPs and bytes of one forward pass");
    infoCommand->add_option("MODEL", source, kModelHelp)->required();
    infoCommand->add_flag("--json", json, "machine-readable output (versioned JSON object)");
    infoCommand->add_option("--dim", dims, dimHelp);
    infoCommand->add_option("--set", sets, setHelp);
    infoCommand->add_option("--entry", entry, entryHelp);
    TrainingFlags training;
    auto addTrainingFlags = [&](CLI::App* command) {
        auto* enabled =
            command->add_flag("--train", training.enabled,
                              "describe the whole training step (forward, loss, backward, optimizer update)");
        command->add_option("--optimizer", training.optimizer, "sgd, adam or adamw (with --train)")
            ->needs(enabled)
            ->capture_default_str();
        command->add_option("--loss", training.loss, "auto, cross-entropy, mean-square or sum (with --train)")
            ->needs(enabled)
            ->capture_default_str();
        command
            ->add_option("--loss-output", training.lossOutput,
                         "the output the loss is taken of: a name or index (0, 1, ...), or all for the sum "
                         "of every output's loss "
                         "(with --train; default: the first output)")
            ->needs(enabled);
        command
            ->add_flag(
                "--mixed-precision", training.mixedPrecision,
                "16-bit parameters and gradients, fp32 master weights and optimizer state (with --train)")
            ->needs(enabled);
    };
    addTrainingFlags(infoCommand);

    auto* printCommand = app.add_subcommand("print", "print a model as StableHLO text");
    printCommand->add_option("MODEL", source, kModelHelp)->required();
    printCommand->add_option("--dim", dims, dimHelp);
    printCommand->add_option("--set", sets, setHelp);
    printCommand->add_option("--entry", entry, entryHelp);
    addTrainingFlags(printCommand);

    bool all = false;
    auto* analyzeCommand = app.add_subcommand("analyze", "the static analysis: names, groups and conflicts");
    analyzeCommand->add_option("MODEL", source, kModelHelp)->required();
    analyzeCommand->add_flag("--json", json, "machine-readable output (versioned JSON object)");
    analyzeCommand->add_flag("--all", all, "list every name, not only the 40 that touch the most bytes");
    analyzeCommand->add_option("--dim", dims, dimHelp);
    analyzeCommand->add_option("--set", sets, setHelp);
    analyzeCommand->add_option("--entry", entry, entryHelp);
    addTrainingFlags(analyzeCommand);

    auto* rulesCommand = app.add_subcommand(
        "rules", "the factor rule of every op, in Shardy's notation: @function:line: rule");
    rulesCommand->add_option("MODEL", source, kModelHelp)->required();
    rulesCommand->add_option("--dim", dims, dimHelp);
    rulesCommand->add_option("--set", sets, setHelp);
    rulesCommand->add_option("--entry", entry, entryHelp);

    cli::ProblemFlags problem;
    auto addProblemFlags = [&](CLI::App* command) {
        command
            ->add_option("--mesh", problem.mesh,
                         "mesh axes major to minor, e.g. data=8,model=4 (per axis :bw=BYTES/S:lat=S), or a "
                         "mesh .json file")
            ->capture_default_str();
        command
            ->add_option("--hardware", problem.hardware,
                         "hardware profile: h100, h100-2pods, h100-96gb-500w, h200, a100, tpu-v4, tpu-v5e, "
                         "tpu-v5p, or a "
                         "profile .json file")
            ->capture_default_str();
        command
            ->add_option("--fusion", problem.fusion,
                         "how ops become kernels: xla (producer-consumer fusion) or none (one kernel per op)")
            ->check(CLI::IsMember({"xla", "none"}))
            ->capture_default_str();
        command
            ->add_option("--attention", problem.attention,
                         "attention priced as a flash-attention kernel (fused) or as its ops (materialized)")
            ->check(CLI::IsMember({"fused", "materialized"}))
            ->capture_default_str();
        command
            ->add_option(
                "--runtime", problem.runtime,
                "how ops run when layouts disagree: xla (the cheapest consistent layout, e.g. a weight "
                "gathered and activations exchanged) "
                "or eager (PyTorch DTensor/Megatron modules: tensor-parallel weights stay, activations move)")
            ->check(CLI::IsMember({"xla", "eager"}))
            ->capture_default_str();
        command
            ->add_option("--efficiency", problem.cost.efficiency,
                         "fraction of peak FLOP/s and HBM bandwidth every kernel reaches; 0: the hardware "
                         "profile's tables, by kernel shape")
            ->check(cli::finiteIn(0, 1, "0 (the tables) or a fraction in (0, 1]"))
            ->capture_default_str();
        command->add_option("--launch", problem.cost.launchTime, "per-op launch time, seconds")
            ->check(cli::finiteIn(0, 1, "seconds in [0, 1]"))
            ->capture_default_str();
        command
            ->add_option("--prefetch", problem.cost.prefetch,
                         "blocks of layers a parameter all-gather may run ahead of its use (FSDP prefetch)")
            ->check(CLI::Range(0, 1000))
            ->capture_default_str();
        command->add_option("--reserve", problem.cost.memoryReserve, "fraction of device memory kept free")
            ->check(cli::finiteIn(0, 1, "a fraction in [0, 1)", false, true))
            ->capture_default_str();
        command->add_option("--dim", dims, dimHelp);
        command->add_option("--set", sets, setHelp);
        command->add_option("--entry", entry, entryHelp);
        addTrainingFlags(command);
    };
    std::string planArgument = "none";
    auto* evaluateCommand =
        app.add_subcommand("evaluate", "a plan's step time, per-device memory and collectives on a mesh");
    evaluateCommand->add_option("MODEL", source, kModelHelp)->required();
    evaluateCommand
        ->add_option(
            "--plan", planArgument,
            "none, expert:ID (dp, zero1, zero2, zero3 or fsdp, megatron, megatron-sp, dp-tp, fsdp-tp, ep), "
            "expert:ID+REMAT (with selective, full or dots-saveable rematerialization, e.g. "
            "expert:fsdp+full), "
            "expert:ID@AXIS+ID@AXIS (each strategy on one axis, e.g. expert:megatron-sp@model+zero2@data), "
            "experts (compare them all), or a plan .json file")
        ->capture_default_str();
    evaluateCommand->add_flag("--json", json, "machine-readable output (versioned JSON object)");
    addProblemFlags(evaluateCommand);

    cli::SearchFlags searchFlags;
    auto* searchCommand =
        app.add_subcommand("search", "search plans with MCTS (or exhaustively), keeping them in a workspace");
    searchCommand
        ->add_option("MODEL", source,
                     kModelHelp + std::string(", or a workspace (.shardscope) to search its model again"))
        ->required();
    searchCommand->add_option("--budget", searchFlags.budget, "how long: 60s, 2m, or 5000it (iterations)")
        ->capture_default_str();
    searchCommand->add_option("--threads", searchFlags.threads, "search threads on one tree")
        ->check(CLI::Range(1, 1024))
        ->capture_default_str();
    searchCommand
        ->add_option(
            "--lanes", searchFlags.lanes,
            "0: threads iterate on their own (fastest); N: rounds of N iterations, so that a seed and an "
            "iteration budget give the same search on any threads")
        ->check(CLI::Range(0, 1024))
        ->capture_default_str();
    searchCommand
        ->add_option("--seed", searchFlags.seed,
                     "random seed (with an iteration budget, one thread or --lanes reproduce a search)")
        ->capture_default_str();
    searchCommand->add_option("--workspace", searchFlags.workspace,
                              "workspace file to keep the session, its tree and plans (created if missing)");
    searchCommand->add_option("--session", searchFlags.session, "session name in the workspace");
    searchCommand->add_option(
        "--pin", searchFlags.pins,
        "a decision every plan starts with: LABEL=AXIS (a group or name label from analyze), repeatable");
    searchCommand->add_option("--forbid", searchFlags.forbidden,
                              "a decision no plan may take: LABEL=AXIS, repeatable");
    searchCommand->add_option("--exploration", searchFlags.exploration, "UCT exploration constant")
        ->check(cli::finiteIn(0, 1e6, "a finite number >= 0"))
        ->capture_default_str();
    searchCommand
        ->add_option(
            "--refine", searchFlags.refine,
            "fraction of iterations that try a neighbour of the best plan instead of walking the tree")
        ->check(cli::finiteIn(0, 1, "a fraction in [0, 1]"))
        ->capture_default_str();
    searchCommand
        ->add_option("--max-decisions", searchFlags.maxDecisions,
                     "decisions the search may add after the pins")
        ->check(CLI::Range(0, 1000))
        ->capture_default_str();
    searchCommand
        ->add_option("--patience", searchFlags.patience,
                     "stop after this many iterations without a better plan (0 = never)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    searchCommand->add_flag("--no-experts", searchFlags.noExperts,
                            "do not seed the search with the expert plans");
    searchCommand->add_flag("--exhaustive", searchFlags.exhaustive,
                            "enumerate every plan of up to --max-decisions decisions (small spaces only)");
    searchCommand->add_flag("--json", json, "machine-readable output (versioned JSON object)");
    addProblemFlags(searchCommand);

    std::string workspacePath;
    auto* plansCommand = app.add_subcommand("plans", "list a workspace's sessions and plans");
    plansCommand->add_option("WORKSPACE", workspacePath, "a .shardscope workspace file")->required();
    plansCommand->add_flag("--json", json, "machine-readable output");

    std::string labelPlan, labelText, labelNote;
    auto* labelCommand = app.add_subcommand("label", "give a workspace's plan a label (and a note)");
    labelCommand->add_option("PLAN", labelPlan, "a plan: WORKSPACE.shardscope:PLAN_ID")->required();
    labelCommand->add_option("LABEL", labelText, "the label")->required();
    labelCommand->add_option("--note", labelNote, "a longer note");

    std::string first, second;
    auto* compareCommand =
        app.add_subcommand("compare", "two plans side by side: decisions, time, memory, collectives");
    compareCommand->add_option("A", first, "a plan: WORKSPACE.shardscope:PLAN_ID")->required();
    compareCommand
        ->add_option("B", second,
                     "a plan: WORKSPACE.shardscope:PLAN_ID (the same or another workspace of the same model)")
        ->required();
    compareCommand->add_flag("--json", json, "machine-readable output");

    std::string exportFormat = "shardy", exportOutput, exportConstraints = "key";
    auto* exportCommand =
        app.add_subcommand("export", "write a plan into the model's StableHLO as Shardy or GSPMD shardings");
    exportCommand->add_option("MODEL", source, kModelHelp)->required();
    exportCommand->add_option("--plan", planArgument, "none, expert:ID, reference or a plan .json file")
        ->required();
    exportCommand
        ->add_option("--format", exportFormat,
                     "shardy (StableHLO with sdy.mesh + sdy.sharding), gspmd (StableHLO with mhlo.sharding "
                     "strings), jax "
                     "(PartitionSpecs), dtensor (DTensor placements), parallelize (PyTorch "
                     "parallelize_module plan), torchtitan (TorchTitan job config, TOML), megatron "
                     "(Megatron-LM arguments), trace (Chrome/Perfetto JSON), "
                     "plan (plan JSON), evaluation (evaluate --json) or report (evaluate's text)")
        ->capture_default_str();
    exportCommand->add_option("-o,--output", exportOutput, "file to write (default: stdout)");
    exportCommand
        ->add_option("--constraints", exportConstraints,
                     "shardy/gspmd: sharding constraints on intermediate values: none, key "
                     "(dot_general/convolution results and reshards) or all")
        ->capture_default_str();
    addProblemFlags(exportCommand);

    std::uint64_t simulateSeed = 1;
    std::int64_t simulateIntegers = 2;
    double simulateTolerance = 1e-4;
    auto* simulateCommand = app.add_subcommand(
        "simulate",
        "check a plan numerically: run the model unsharded and under the plan on a simulated mesh "
        "(one shard per device, explicit collectives) and compare");
    simulateCommand->add_option("MODEL", source, kModelHelp)->required();
    simulateCommand->add_option("--plan", planArgument, "none, expert:ID, reference or a plan .json file")
        ->required();
    simulateCommand->add_option("--seed", simulateSeed, "seed of the random arguments")
        ->capture_default_str();
    simulateCommand
        ->add_option("--integers", simulateIntegers,
                     "integer arguments (token ids, labels) are drawn from [0, N)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    simulateCommand->add_option("--tolerance", simulateTolerance, "largest scaled difference accepted")
        ->check(cli::finiteIn(0, 1e300, "a finite number >= 0"))
        ->capture_default_str();
    simulateCommand->add_flag("--json", json, "machine-readable output (versioned JSON object)");
    addProblemFlags(simulateCommand);

    auto* zooCommand =
        app.add_subcommand("zoo", "list the built-in model families, their options and presets");
    zooCommand->add_flag("--json", json, "machine-readable output");

    auto* calibrateCommand = cli::addCalibrateCommand(app);

    // CLI11 would only say that a subcommand is required; name the word it did not know instead.
    if (argc > 1 && argv[1][0] != '-') {
        const std::string command = argv[1];
        bool known = false;
        for (const auto* sub : app.get_subcommands({}))
            known = known || sub->get_name() == command;
        if (!known) {
            std::cerr << "shardscope-cli: error: unknown command '" << command
                      << "' (commands: info, print, analyze, evaluate, search, plans, compare, label, rules, "
                         "export, simulate, zoo, calibrate; run with --help for usage)\n";
            return 2;
        }
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "shardscope-cli: error: " << e.what() << " (run with --help for usage)\n";
        return 2;
    }
    shardscope::import::ImportOptions options;
    if (!parseDimensions(dims, options))
        return 2;
    if (!parseSizes(sets, options))
        return 2;
    options.entryFunction = entry;
    if (*infoCommand)
        return info(source, options, training, json);
    if (*printCommand)
        return print(source, options, training);
    if (*analyzeCommand)
        return analyze(source, options, training, json, all);
    if (*rulesCommand)
        return rules(source, options);
    if (*evaluateCommand)
        return cli::evaluate(source, options, training, problem, planArgument, json);
    if (*searchCommand)
        return cli::search(source, options, training, problem, searchFlags, json);
    if (*plansCommand)
        return cli::plans(workspacePath, json);
    if (*compareCommand)
        return cli::compare(first, second, json);
    if (*labelCommand)
        return cli::label(labelPlan, labelText, labelNote);
    if (*exportCommand)
        return cli::exportPlan(source, options, training, problem, planArgument, exportFormat, exportOutput,
                               exportConstraints);
    if (*simulateCommand)
        return cli::simulate(source, options, training, problem, planArgument, simulateSeed, simulateIntegers,
                             simulateTolerance, json);
    if (*zooCommand)
        return listZoo(json);
    if (*calibrateCommand)
        return cli::calibrate(*calibrateCommand);
    return 2;
}

// The engine's boundary: whatever escapes a command (out of memory on an absurd input, a bug) is said in one
// line instead of aborting, and standard output is checked once everything is written.
int main(int argc, char** argv) {
    int status = 1;
    try {
        status = runCommand(argc, argv);
    } catch (const std::bad_alloc&) {
        std::cerr << "shardscope-cli: error: out of memory\n";
    } catch (const std::exception& e) {
        std::cerr << "shardscope-cli: error: internal error: " << e.what() << " (please report it)\n";
    } catch (...) {
        std::cerr << "shardscope-cli: error: internal error (please report it)\n";
    }
    return cli::finishOutput(status);
}
