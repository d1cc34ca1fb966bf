#include "core/plan_export.h"

#include <fstream>
#include <sstream>
#include <string>

#include <QCoreApplication>
#include <QSaveFile>

#include "shardscope/export/framework_plans.h"
#include "shardscope/export/stablehlo_export.h"
#include "shardscope/export/trace.h"
#include "shardscope/import/format.h"
#include "shardscope/input_file.h"
#include "shardscope/ir/printer.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/report/evaluation_report.h"

namespace shardscope::ui {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("shardscope::ui::PlanExport", text); }

}  // namespace

QList<ExportFormat> exportFormats() {
    return {
        {QStringLiteral("plan-json"), tr("Plan (JSON, as shardscope-cli evaluate --plan reads it)"), QStringLiteral("json")},
        {QStringLiteral("evaluation-json"), tr("Plan with its evaluation (JSON, as shardscope-cli evaluate --json)"),
         QStringLiteral("json")},
        {QStringLiteral("evaluation-text"), tr("Evaluation report (text)"), QStringLiteral("txt")},
        {QStringLiteral("jax"), tr("JAX: the mesh and the parameters' PartitionSpecs (Python)"), QStringLiteral("py")},
        {QStringLiteral("dtensor"), tr("PyTorch: the DeviceMesh and the parameters' DTensor placements (Python)"),
         QStringLiteral("py")},
        {QStringLiteral("parallelize"),
         tr("PyTorch: a parallelize_module plan (ColwiseParallel, RowwiseParallel, SequenceParallel) (Python)"),
         QStringLiteral("py")},
        {QStringLiteral("shardy"),
         tr("StableHLO with Shardy shardings and sharding constraints on key ops (MLIR)"), QStringLiteral("mlir")},
        {QStringLiteral("gspmd"),
         tr("StableHLO with GSPMD mhlo.sharding strings and Sharding custom calls on key ops (MLIR)"),
         QStringLiteral("mlir")},
        {QStringLiteral("trace"), tr("Trace of the simulated step (Chrome/Perfetto JSON)"), QStringLiteral("json")},
    };
}

QString exportPlan(const ProblemView& problem, const plan::Plan& plan, const QString& formatId, const QString& path) {
    const cost::CostModel& costModel = *problem.problem->costModel;
    std::string text;
    if (formatId == QLatin1String("plan-json")) {
        text = plan::toJson(plan, costModel.planContext(), problem.mesh());
    } else if (formatId == QLatin1String("evaluation-json") || formatId == QLatin1String("evaluation-text")) {
        const cost::Evaluation evaluation = cost::evaluate(costModel, plan);
        text = formatId == QLatin1String("evaluation-json")
                   ? report::evaluationJson(problem.problem->model, costModel, plan, evaluation)
                   : report::evaluationText(problem.problem->model, costModel, plan, evaluation, 0);
    } else if (formatId == QLatin1String("shardy") || formatId == QLatin1String("gspmd")) {
        // The user's own text when the model is a StableHLO file planned as it is, so every byte we do not model
        // survives; otherwise (zoo, ONNX, a training step, a model at other global sizes, a file no longer there, a
        // model opened from a workspace, whose stored source path is never read again) the graph printed as StableHLO.
        const Problem& p = *problem.problem;
        std::string moduleText, fileName;
        if (!p.spec.train && p.spec.sizes.empty() && problem.workspacePath.isEmpty() &&
            p.model.source.rfind("zoo:", 0) != 0) {
            auto bytes = readModelFile(p.model.source);
            if (bytes && import::detectFormat(*bytes) == import::ModelFormat::StableHlo) {
                moduleText = std::move(bytes).value();
                fileName = p.model.source;
            }
        }
        if (moduleText.empty()) {
            moduleText = ir::printStableHlo(problem.graph());
            fileName = p.model.source + " (as StableHLO)";
        }
        const auto applied = plan::applyPlan(costModel.planContext(), problem.mesh(), plan);
        const auto shardings = exporting::entryShardings(problem.graph(), problem.space(), applied,
                                                         exporting::ConstraintChoice::Key);
        auto exported = exporting::exportStableHlo(
            moduleText, fileName, problem.graph(), problem.mesh(), shardings,
            formatId == QLatin1String("shardy") ? exporting::ShardingFormat::Shardy : exporting::ShardingFormat::Gspmd);
        if (!exported)
            return tr("Cannot export to %1: %2").arg(path, QString::fromStdString(exported.errorMessage()));
        text = std::move(*exported);
    } else if (formatId == QLatin1String("parallelize")) {
        const auto applied = plan::applyPlan(costModel.planContext(), problem.mesh(), plan);
        std::vector<plan::TensorSharding> shardings;
        shardings.reserve(problem.graph().values.size());
        for (std::size_t v = 0; v < problem.graph().values.size(); ++v)
            shardings.push_back(applied.sharding(problem.space(), ir::ValueId(static_cast<std::uint32_t>(v))));
        text = exporting::parallelizeSnippet(problem.mesh(),
                                             exporting::parallelizePlan(problem.graph(), problem.mesh(), shardings),
                                             plan.remat);
    } else if (formatId == QLatin1String("jax") || formatId == QLatin1String("dtensor")) {
        const auto applied = plan::applyPlan(costModel.planContext(), problem.mesh(), plan);
        std::vector<plan::TensorSharding> shardings;
        shardings.reserve(problem.graph().values.size());
        for (std::size_t v = 0; v < problem.graph().values.size(); ++v)
            shardings.push_back(applied.sharding(problem.space(), ir::ValueId(static_cast<std::uint32_t>(v))));
        const auto parameters = exporting::parameterShardings(problem.graph(), shardings);
        text = formatId == QLatin1String("jax") ? exporting::jaxSnippet(problem.mesh(), parameters, plan.remat)
                                                : exporting::dtensorSnippet(problem.mesh(), parameters, plan.remat);
    } else if (formatId == QLatin1String("trace")) {
        text = exporting::chromeTrace(costModel, cost::evaluate(costModel, plan));
    } else {
        return tr("Unknown export format %1").arg(formatId);
    }
    if (!text.empty() && text.back() != '\n')
        text += '\n';
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), static_cast<qint64>(text.size())) < 0 ||
        !file.commit())
        return tr("Cannot write %1: %2").arg(path, file.errorString());
    return {};
}

}  // namespace shardscope::ui
