// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/session/export_formats.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>

#include "shardscope/export/framework_plans.h"
#include "shardscope/export/trace.h"
#include "shardscope/import/format.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/ir/printer.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/report/evaluation_report.h"

namespace shardscope::session {

namespace {

using Writer = std::function<Result<std::string>(const Problem&, const plan::Plan&, const ExportOptions&)>;

struct Entry {
    ExportFormat format;
    Writer write;
};

// Every value's sharding under `plan`.
std::vector<plan::TensorSharding> shardingsOf(const Problem& problem, const plan::Plan& plan) {
    const auto applied = plan::applyPlan(problem.costModel->planContext(), problem.mesh, plan);
    std::vector<plan::TensorSharding> all;
    all.reserve(problem.model.graph.values.size());
    for (std::size_t v = 0; v < problem.model.graph.values.size(); ++v)
        all.push_back(applied.sharding(problem.space, ir::ValueId(static_cast<std::uint32_t>(v))));
    return all;
}

Result<std::string> stableHlo(const Problem& problem, const plan::Plan& plan, const ExportOptions& options,
                              exporting::ShardingFormat format) {
    const ProblemSpec& spec = problem.spec;
    std::string text, file;
    // Weights the import made parameters are not arguments of the text: it cannot take their shardings.
    const bool lifted = std::any_of(problem.warnings.begin(), problem.warnings.end(),
                                    [](const Diagnostic& d) { return d.code == import::kWeightsLiftedCode; });
    if (options.modelText && !spec.train && spec.sizes.empty() && !lifted &&
        import::detectFormat(*options.modelText) == import::ModelFormat::StableHlo) {
        text = *options.modelText;
        file = problem.model.source;
    } else {
        // A training step, an ONNX file, a zoo model or a model at other sizes has no StableHLO of the
        // user's; nor has a model whose weights were constants.
        ir::PrintOptions printing;
        printing.moduleName = problem.model.displayName;
        for (char& c : printing.moduleName)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
                c = '_';
        text = ir::printStableHlo(problem.model.graph, printing);
        file = problem.model.source + " (as StableHLO)";
    }
    const auto applied = plan::applyPlan(problem.costModel->planContext(), problem.mesh, plan);
    const auto shardings =
        exporting::entryShardings(problem.model.graph, problem.space, applied, options.constraints);
    return exporting::exportStableHlo(text, file, problem.model.graph, problem.mesh, shardings, format);
}

// The plan's degrees and a framework's configuration of them; what it cannot say is also a warning.
Result<std::string> frameworkConfig(const Problem& problem, const plan::Plan& plan, const std::string& code,
                                    exporting::FrameworkConfig (*write)(const exporting::TrainingParallelism&,
                                                                        const std::string&)) {
    const plan::PlanContext& context = problem.costModel->planContext();
    const auto applied = plan::applyPlan(context, problem.mesh, plan);
    // A balanced split is known once the plan is evaluated.
    std::optional<cost::Evaluation> evaluation;
    if (plan.pipeline && plan.pipeline->layersPerStage.empty())
        evaluation = cost::evaluate(*problem.costModel, plan);
    const auto parallelism =
        exporting::trainingParallelism(context, problem.mesh, plan, applied,
                                       evaluation && evaluation->pipeline ? &*evaluation->pipeline : nullptr);
    const std::string title = (plan.label.empty() ? std::string("the plan") : "plan \"" + plan.label + "\"") +
                              " on mesh " + problem.mesh.toString();
    exporting::FrameworkConfig config = write(parallelism, title);
    Result<std::string> result(std::move(config.text));
    for (const std::string& lost : config.lost)
        result.addDiagnostic(makeWarning(code, "not expressible: " + lost));
    return result;
}

const std::vector<Entry>& registry() {
    static const std::vector<Entry> entries = {
        {{"plan", "Plan (JSON, as shardscope-cli evaluate --plan reads it)", "json"},
         [](const Problem& p, const plan::Plan& plan, const ExportOptions&) -> Result<std::string> {
             return plan::toJson(plan, p.costModel->planContext(), p.mesh);
         }},
        {{"evaluation", "Plan with its evaluation (JSON, as shardscope-cli evaluate --json)", "json"},
         [](const Problem& p, const plan::Plan& plan, const ExportOptions& options) -> Result<std::string> {
             std::vector<Diagnostic> warnings = p.warnings;
             warnings.insert(warnings.end(), options.warnings.begin(), options.warnings.end());
             return report::withWarnings(
                 report::evaluationJson(p.model, *p.costModel, plan, cost::evaluate(*p.costModel, plan)),
                 warnings);
         }},
        {{"report", "Evaluation report (text, as shardscope-cli evaluate prints it)", "txt"},
         [](const Problem& p, const plan::Plan& plan, const ExportOptions&) -> Result<std::string> {
             return report::evaluationText(p.model, *p.costModel, plan, cost::evaluate(*p.costModel, plan),
                                           0);
         }},
        {{"jax", "JAX: the mesh and the parameters' PartitionSpecs (Python)", "py"},
         [](const Problem& p, const plan::Plan& plan, const ExportOptions&) -> Result<std::string> {
             return exporting::jaxSnippet(
                 p.mesh, exporting::parameterShardings(p.model.graph, shardingsOf(p, plan)), plan.remat);
         }},
        {{"dtensor", "PyTorch: the DeviceMesh and the parameters' DTensor placements (Python)", "py"},
         [](const Problem& p, const plan::Plan& plan, const ExportOptions&) -> Result<std::string> {
             return exporting::dtensorSnippet(
                 p.mesh, exporting::parameterShardings(p.model.graph, shardingsOf(p, plan)), plan.remat);
         }},
        {{"parallelize",
          "PyTorch: a parallelize_module plan (ColwiseParallel, RowwiseParallel, SequenceParallel) (Python)",
          "py"},
         [](const Problem& p, const plan::Plan& plan, const ExportOptions&) -> Result<std::string> {
             return exporting::parallelizeSnippet(
                 p.mesh, exporting::parallelizePlan(p.model.graph, p.mesh, shardingsOf(p, plan)), plan.remat);
         }},
        {{"torchtitan",
          "TorchTitan: the job config's parallelism, batch and activation checkpointing sections (TOML)",
          "toml"},
         [](const Problem& p, const plan::Plan& plan, const ExportOptions&) {
             return frameworkConfig(p, plan, "export.torchtitan", exporting::torchTitanConfig);
         }},
        {{"megatron", "Megatron-LM: the parallelism, batch and recompute arguments (bash array)", "sh"},
         [](const Problem& p, const plan::Plan& plan, const ExportOptions&) {
             return frameworkConfig(p, plan, "export.megatron", exporting::megatronArguments);
         }},
        {{"shardy", "StableHLO with Shardy shardings and sharding constraints on key ops (MLIR)", "mlir"},
         [](const Problem& p, const plan::Plan& plan, const ExportOptions& o) {
             return stableHlo(p, plan, o, exporting::ShardingFormat::Shardy);
         }},
        {{"gspmd", "StableHLO with GSPMD mhlo.sharding strings and Sharding custom calls on key ops (MLIR)",
          "mlir"},
         [](const Problem& p, const plan::Plan& plan, const ExportOptions& o) {
             return stableHlo(p, plan, o, exporting::ShardingFormat::Gspmd);
         }},
        {{"trace", "Trace of the simulated step (Chrome/Perfetto JSON)", "json"},
         [](const Problem& p, const plan::Plan& plan, const ExportOptions&) -> Result<std::string> {
             return exporting::chromeTrace(*p.costModel, cost::evaluate(*p.costModel, plan));
         }},
    };
    return entries;
}

}  // namespace

const std::vector<ExportFormat>& exportFormats() {
    static const std::vector<ExportFormat> formats = [] {
        std::vector<ExportFormat> out;
        for (const auto& entry : registry())
            out.push_back(entry.format);
        return out;
    }();
    return formats;
}

const ExportFormat* findExportFormat(std::string_view id) {
    for (const auto& format : exportFormats())
        if (format.id == id)
            return &format;
    return nullptr;
}

std::string exportFormatIds() {
    std::string out;
    for (const auto& format : exportFormats())
        out += (out.empty() ? "" : ", ") + format.id;
    return out;
}

Result<std::string> exportPlan(const Problem& problem, const plan::Plan& plan, std::string_view formatId,
                               const ExportOptions& options) {
    const auto& entries = registry();
    const auto entry =
        std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.format.id == formatId; });
    if (entry == entries.end())
        return makeError("session.export-format",
                         "unknown export format '" + std::string(formatId) + "' (" + exportFormatIds() + ")");
    auto written = entry->write(problem, plan, options);
    if (written && (written->empty() || written->back() != '\n'))
        *written += '\n';
    return written;
}

}  // namespace shardscope::session
