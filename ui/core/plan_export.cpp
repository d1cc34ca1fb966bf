// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/plan_export.h"

#include <optional>
#include <string>

#include <QCoreApplication>
#include <QSaveFile>

#include "core/text.h"
#include "shardscope/input_file.h"
#include "shardscope/session/export_formats.h"
#include "shardscope/store/workspace.h"

namespace shardscope::ui {
namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("shardscope::ui::PlanExport", text);
}

// The model's own bytes: those of the workspace it was opened from (the file its source names is never read
// again), else the file's; nullopt for the zoo or a file that cannot be read (the graph is printed then).
std::optional<std::string> modelText(const ProblemView& problem) {
    const std::string& source = problem.problem->model.source;
    if (!problem.workspacePath.isEmpty()) {
        auto workspace = store::Workspace::open(problem.workspacePath.toStdString());
        if (workspace && !workspace->model().bytes.empty())
            return workspace->model().bytes;
        return std::nullopt;
    }
    if (source.rfind("zoo:", 0) == 0)
        return std::nullopt;
    auto bytes = readModelFile(source);
    return bytes ? std::optional<std::string>(std::move(bytes).value()) : std::nullopt;
}

}  // namespace

QList<ExportFormat> exportFormats() {
    QList<ExportFormat> formats;
    for (const auto& format : session::exportFormats())
        formats.append({toQString(format.id), toQString(format.description), toQString(format.suffix)});
    return formats;
}

QString exportPlan(const ProblemView& problem, const plan::Plan& plan, const QString& formatId,
                   const QString& path) {
    session::ExportOptions options;
    const std::string format = formatId.toStdString();
    std::optional<std::string> text;
    if (format == "shardy" || format == "gspmd") {
        text = modelText(problem);
        options.modelText = text ? &*text : nullptr;
    }
    auto written = session::exportPlan(*problem.problem, plan, format, options);
    if (!written)
        return tr("Cannot export to %1: %2").arg(path, toQString(written.diagnostics().front().message));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) ||
        file.write(written->data(), static_cast<qint64>(written->size())) < 0 || !file.commit())
        return tr("Cannot write %1: %2").arg(path, file.errorString());
    return {};
}

}  // namespace shardscope::ui
