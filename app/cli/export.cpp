// `shardscope-cli export`: a plan written into the model's StableHLO with Shardy or GSPMD shardings (and
// sharding constraints), or in a framework's words. Wiring only; the work is the engine's (export/).
#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "cli.h"
#include "shardscope/export/framework_plans.h"
#include "shardscope/export/stablehlo_export.h"
#include "shardscope/export/trace.h"
#include "shardscope/import/format.h"
#include "shardscope/input_file.h"
#include "shardscope/ir/printer.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/problem.h"
#include "shardscope/report/evaluation_report.h"

namespace cli {

using namespace shardscope;

int exportPlan(const std::string& source, const import::ImportOptions& options, const TrainingFlags& training,
               const ProblemFlags& flags, const std::string& planText, const std::string& format,
               const std::string& output, const std::string& constraintsText) {
    static const char* const kFormats[] = {"shardy", "gspmd", "jax", "dtensor", "parallelize", "trace", "plan", "evaluation"};
    if (std::find(std::begin(kFormats), std::end(kFormats), format) == std::end(kFormats)) {
        std::cerr << "shardscope-cli: error: --format expects shardy, gspmd, jax, dtensor, parallelize, trace, plan or "
                     "evaluation, got '" << format << "'\n";
        return 2;
    }
    const auto constraints = exporting::parseConstraintChoice(constraintsText);
    if (!constraints) {
        std::cerr << "shardscope-cli: error: --constraints expects none, key or all, got '" << constraintsText << "'\n";
        return 2;
    }
    const exporting::ShardingFormat shardingFormat =
        format == "gspmd" ? exporting::ShardingFormat::Gspmd : exporting::ShardingFormat::Shardy;
    // The user's own bytes when the model is a StableHLO file, so the export patches exactly what they gave.
    std::string bytes;
    if (source.rfind("zoo:", 0) != 0) {
        auto read = readModelFile(source);
        if (!report(read))
            return 1;
        bytes = std::move(read).value();
    }
    const ProblemSpec spec = specOf(source, options, training, flags);
    auto loaded = loadProblem(spec, bytes.empty() ? nullptr : &bytes);
    if (!report(loaded))
        return 1;
    const Problem& problem = **loaded;
    printDiagnostics(problem.warnings);
    const auto& context = problem.costModel->planContext();

    auto chosen = planArgument(planText, *problem.costModel);
    if (!report(chosen))
        return 1;

    // The formats that need no StableHLO text.
    const auto write = [&](const std::string& content) { return writeOutput(output, content); };
    if (format == "jax" || format == "dtensor" || format == "parallelize") {
        const auto applied = plan::applyPlan(context, problem.mesh, *chosen);
        std::vector<plan::TensorSharding> all;
        for (std::size_t v = 0; v < problem.model.graph.values.size(); ++v)
            all.push_back(applied.sharding(problem.space, ir::ValueId(static_cast<std::uint32_t>(v))));
        if (format == "parallelize")
            return write(exporting::parallelizeSnippet(
                problem.mesh, exporting::parallelizePlan(problem.model.graph, problem.mesh, all), chosen->remat));
        const auto parameters = exporting::parameterShardings(problem.model.graph, all);
        return write(format == "jax" ? exporting::jaxSnippet(problem.mesh, parameters, chosen->remat)
                                     : exporting::dtensorSnippet(problem.mesh, parameters, chosen->remat));
    }
    if (format == "trace")
        return write(exporting::chromeTrace(*problem.costModel, cost::evaluate(*problem.costModel, *chosen)));
    if (format == "plan")
        return write(plan::toJson(*chosen, context, problem.mesh) + "\n");
    if (format == "evaluation")
        return write(withWarnings(report::evaluationJson(problem.model, *problem.costModel, *chosen,
                                                         cost::evaluate(*problem.costModel, *chosen)),
                                  problem.warnings) +
                     "\n");

    // A training step, an ONNX file, a zoo model or a model at other sizes (--set) has no StableHLO of the user's:
    // print the graph and patch that.
    std::string text = bytes, file = source;
    if (training.enabled || bytes.empty() || import::detectFormat(bytes) != import::ModelFormat::StableHlo ||
        !problem.spec.sizes.empty()) {
        ir::PrintOptions printing;
        printing.moduleName = problem.model.displayName;
        for (char& c : printing.moduleName)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
                c = '_';
        text = ir::printStableHlo(problem.model.graph, printing);
        file = source + " (as StableHLO)";
    }
    const auto applied = plan::applyPlan(context, problem.mesh, *chosen);
    const auto shardings = exporting::entryShardings(problem.model.graph, problem.space, applied, *constraints);
    auto exported =
        exporting::exportStableHlo(text, file, problem.model.graph, problem.mesh, shardings, shardingFormat);
    if (!report(exported))
        return 1;
    return write(*exported);
}

}  // namespace cli
