#include "core/plan_export.h"

#include <string>

#include <QCoreApplication>
#include <QSaveFile>

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
