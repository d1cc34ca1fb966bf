// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Every way a plan can be written out, in one registry: its id (as `shardscope-cli export --format` takes
// it), what it is, its file suffix and its writer. The CLI's export and the explorer's export dialog list and
// write through here, so the ids and the bytes written are the same.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/export/stablehlo_export.h"
#include "shardscope/plan/plan.h"
#include "shardscope/session/problem.h"

namespace shardscope::session {

struct ExportFormat {
    std::string id;           // "shardy", "plan", "report"
    std::string description;  // for people: "Plan (JSON, as shardscope-cli evaluate --plan reads it)"
    std::string suffix;       // "mlir", "json", "py", "txt"
};

// The formats, in the order a dialog lists them: plan, evaluation, report, jax, dtensor, parallelize,
// torchtitan, megatron, shardy, gspmd, trace.
const std::vector<ExportFormat>& exportFormats();
// The format of id `id`, or nullptr.
const ExportFormat* findExportFormat(std::string_view id);
// "plan, evaluation, ..." for messages.
std::string exportFormatIds();

struct ExportOptions {
    // Sharding constraints on intermediate values (shardy, gspmd).
    exporting::ConstraintChoice constraints = exporting::ConstraintChoice::Key;
    // The model file's own bytes (shardy, gspmd): when they are StableHLO planned as they are (no training
    // step, no --set sizes), the export patches them, so every byte Shardscope does not model survives;
    // otherwise the graph is printed as StableHLO and patched.
    const std::string* modelText = nullptr;
    // Warnings besides the problem's for the evaluation format's "warnings" (the plan's own, such as
    // plan.batch-of-one from an expert plan), as evaluate --json has them.
    std::vector<Diagnostic> warnings;
};

// `plan` of `problem` written in format `formatId`, ending in a newline. Evaluates the plan when the format
// needs it (evaluation, report, trace; torchtitan and megatron for a pipeline's balanced split). torchtitan
// and megatron add a warning (export.torchtitan, export.megatron) for each thing the framework cannot say.
// Errors: an unknown format (session.export-format, listing the ids), those of the StableHLO export (naming
// the file and op).
Result<std::string> exportPlan(const Problem& problem, const plan::Plan& plan, std::string_view formatId,
                               const ExportOptions& options = {});

}  // namespace shardscope::session
