// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// What the explorer can write of a plan: the engine's export formats (session/export_formats.h), as the CLI's
// `export --format` offers them, behind one call.
#pragma once

#include <QList>
#include <QString>

#include "core/problem_view.h"

namespace shardscope::ui {

struct ExportFormat {
    QString id;      // as `shardscope-cli export --format` takes it: "plan", "evaluation", "report", "shardy"
    QString name;    // for people: "Plan (JSON, as shardscope-cli evaluate --plan reads it)"
    QString suffix;  // "json", "txt"
};

// The formats, in the order a dialog lists them.
QList<ExportFormat> exportFormats();

// Writes `plan` of `problem` to `path` in format `formatId` (evaluating the plan when the format needs it),
// the file replaced atomically. The StableHLO formats patch the model's own text when it is a StableHLO file
// planned as it is (its stored bytes when it was opened from a workspace), as the CLI does. Returns an empty
// string, or what went wrong in one line naming the file. Evaluates on the calling thread: call it off the UI
// thread.
QString exportPlan(const ProblemView& problem, const plan::Plan& plan, const QString& formatId,
                   const QString& path);

}  // namespace shardscope::ui
