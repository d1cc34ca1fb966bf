#include "core/model_summary.h"

#include <QCoreApplication>
#include <QLocale>

#include "core/text.h"
#include "shardscope/report/model_report.h"

namespace shardscope::ui {
namespace {

QString tr(const char* text, int n = -1) {
    return QCoreApplication::translate("shardscope::ui::ModelSummary", text, nullptr, n);
}

}  // namespace

QList<SummaryLine> summaryOf(const LoadedModelView& model) {
    const ir::GraphStatistics& s = model.statistics;
    const QLocale locale;
    QList<SummaryLine> lines;
    lines.append({tr("Model"), model.displayName, model.description});
    lines.append({tr("Parameters"), toQString(report::formatCount(static_cast<double>(s.parameterCount))),
                  tr("%1 elements in parameter arguments").arg(locale.toString(s.parameterCount))});
    lines.append({tr("FLOPs per forward pass"), toQString(report::formatFlops(s.flops)),
                  tr("One execution of the graph; while bodies count once per trip")});
    lines.append({tr("Parameter bytes"),
                  toQString(report::formatBytes(static_cast<double>(s.parameterBytes))),
                  tr("%1 bytes").arg(locale.toString(s.parameterBytes))});
    lines.append({tr("Activation bytes"),
                  toQString(report::formatBytes(static_cast<double>(s.activationBytes))),
                  tr("Every op result of one pass, without buffer reuse: an upper bound")});
    lines.append(
        {tr("Ops"),
         tr("%1 of %n kind(s)", static_cast<int>(s.opsByKind.size())).arg(locale.toString(s.opCount)),
         tr("Nested regions included")});
    if (!model.warnings.isEmpty())
        lines.append({tr("Warnings"), locale.toString(model.warnings.size()), model.warnings.join(u'\n')});
    return lines;
}

}  // namespace shardscope::ui
