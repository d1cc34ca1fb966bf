// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// `shardscope-cli export`: a plan in one of the engine's export formats (session/export_formats.h): the
// model's StableHLO with Shardy or GSPMD shardings, a framework's words, a trace, the plan or its evaluation.
// Wiring only.
#include "cli.h"
#include "shardscope/input_file.h"
#include "shardscope/session/export_formats.h"
#include "shardscope/session/plan_source.h"
#include "shardscope/session/workspace_session.h"

namespace cli {

using namespace shardscope;

int exportPlan(const std::string& source, const import::ImportOptions& options, const TrainingFlags& training,
               const ProblemFlags& flags, const std::string& planText, const std::string& format,
               const std::string& output, const std::string& constraintsText) {
    if (!session::findExportFormat(format)) {
        std::cerr << "shardscope-cli: error: --format expects " << session::exportFormatIds() << ", got '"
                  << format << "'\n";
        return 2;
    }
    session::ExportOptions exportOptions;
    const auto constraints = exporting::parseConstraintChoice(constraintsText);
    if (!constraints) {
        std::cerr << "shardscope-cli: error: --constraints expects none, key or all, got '" << constraintsText
                  << "'\n";
        return 2;
    }
    exportOptions.constraints = *constraints;
    // The model may be a workspace: its stored bytes, never the file its source names.
    auto opened = session::WorkspaceSession::open(specOf(source, options, training, flags), {});
    if (!report(opened))
        return 1;
    // The user's own bytes when the model is a file, so a StableHLO export patches exactly what they gave.
    std::string bytes;
    if (const std::string* stored = opened->modelBytes()) {
        bytes = *stored;
    } else if (opened->spec().model.rfind("zoo:", 0) != 0) {
        auto read = readModelFile(opened->spec().model);
        if (!report(read))
            return 1;
        bytes = std::move(read).value();
    }
    auto loaded = loadProblem(opened->spec(), bytes.empty() ? nullptr : &bytes);
    if (!report(loaded))
        return 1;
    const Problem& problem = **loaded;
    printDiagnostics(problem.warnings);
    auto chosen = session::planFromSource(planText, *problem.costModel);
    if (!report(chosen))
        return 1;
    exportOptions.modelText = bytes.empty() ? nullptr : &bytes;
    exportOptions.warnings = chosen.diagnostics();
    auto written = session::exportPlan(problem, *chosen, format, exportOptions);
    if (!report(written))
        return 1;
    return writeOutput(output, *written);
}

}  // namespace cli
