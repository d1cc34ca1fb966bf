// shardscope-cli: the headless front end. Argument parsing and wiring only; the work is the engine's.
#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "shardscope/ir/printer.h"
#include "shardscope/ir/statistics.h"
#include "shardscope/model_source.h"
#include "shardscope/report/model_report.h"
#include "shardscope/zoo/zoo.h"

namespace {

constexpr const char* kModelHelp =
    "model to load: zoo:NAME[:key=value,...], e.g. zoo:gpt2-small or zoo:gpt:layers=4,d_model=512,heads=8";

// Prints every diagnostic on its own line (errors and warnings) and returns whether loading succeeded.
template <typename T>
bool report(const shardscope::Result<T>& result) {
    for (const auto& d : result.diagnostics()) std::cerr << "shardscope-cli: " << d.toString() << "\n";
    return result.ok();
}

int info(const std::string& source, bool json) {
    auto model = shardscope::loadModel(source);
    if (!report(model)) return 1;
    const auto statistics = shardscope::ir::computeStatistics(model->graph);
    std::cout << (json ? shardscope::report::modelInfoJson(*model, statistics)
                       : shardscope::report::modelInfoText(*model, statistics));
    return 0;
}

int print(const std::string& source) {
    auto model = shardscope::loadModel(source);
    if (!report(model)) return 1;
    shardscope::ir::PrintOptions options;
    options.moduleName = model->displayName;
    for (char& c : options.moduleName)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
    std::cout << shardscope::ir::printStableHlo(model->graph, options);
    return 0;
}

int listZoo(bool json) {
    using namespace shardscope;
    if (json) {
        nlohmann::json out{{"version", 1}, {"families", nlohmann::json::array()}, {"presets", nlohmann::json::array()}};
        for (const auto& f : zoo::families()) {
            nlohmann::json options = nlohmann::json::array();
            for (const auto& o : f.options) options.push_back({{"key", o.key}, {"default", o.defaultValue}, {"help", o.help}});
            out["families"].push_back({{"name", f.name}, {"description", f.description}, {"options", options}});
        }
        for (const auto& p : zoo::presets())
            out["presets"].push_back({{"name", p.name}, {"family", p.family}, {"options", p.options},
                                      {"published_parameters", p.publishedParameters}, {"source", p.source},
                                      {"description", p.description}});
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    std::cout << "Families (zoo:FAMILY[:key=value,...]):\n";
    for (const auto& f : zoo::families()) {
        std::cout << "  " << f.name << " - " << f.description << "\n";
        for (const auto& o : f.options) {
            char line[160];
            std::snprintf(line, sizeof line, "      %-16s %-10s %s\n", o.key.c_str(), o.defaultValue.c_str(), o.help.c_str());
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

int main(int argc, char** argv) {
    CLI::App app{"Shardscope: plans and explains how to shard ML models across accelerator meshes.", "shardscope-cli"};
    app.set_version_flag("--version", "shardscope-cli 0.1.0");
    app.require_subcommand(1);

    std::string source;
    bool json = false;
    auto* infoCommand = app.add_subcommand("info", "describe a model: op counts, parameters, FLOPs and bytes of one forward pass");
    infoCommand->add_option("MODEL", source, kModelHelp)->required();
    infoCommand->add_flag("--json", json, "machine-readable output (versioned JSON object)");

    auto* printCommand = app.add_subcommand("print", "print a model as StableHLO text");
    printCommand->add_option("MODEL", source, kModelHelp)->required();

    auto* zooCommand = app.add_subcommand("zoo", "list the built-in model families, their options and presets");
    zooCommand->add_flag("--json", json, "machine-readable output");

    // CLI11 would only say that a subcommand is required; name the word it did not know instead.
    if (argc > 1 && argv[1][0] != '-') {
        const std::string command = argv[1];
        bool known = false;
        for (const auto* sub : app.get_subcommands({})) known = known || sub->get_name() == command;
        if (!known) {
            std::cerr << "shardscope-cli: error: unknown command '" << command
                      << "' (commands: info, print, zoo; run with --help for usage)\n";
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
    if (*infoCommand) return info(source, json);
    if (*printCommand) return print(source);
    if (*zooCommand) return listZoo(json);
    return 2;
}
