// What the explorer can write of a plan: every format the engine offers, behind one call.
#pragma once

#include <QList>
#include <QString>

#include "core/problem_view.h"

namespace shardscope::ui {

struct ExportFormat {
    QString id;          // "plan-json", "evaluation-json", "evaluation-text"
    QString name;        // for people: "Plan (JSON, for shardscope-cli evaluate --plan)"
    QString suffix;      // "json", "txt"
};

// The formats, in the order a dialog lists them.
QList<ExportFormat> exportFormats();

// Writes `plan` of `problem` to `path` in format `formatId` (evaluating the plan when the format needs it), the
// file replaced atomically. Returns an empty string, or what went wrong in one line naming the file. Evaluates on
// the calling thread: call it off the UI thread.
QString exportPlan(const ProblemView& problem, const plan::Plan& plan, const QString& formatId, const QString& path);

}  // namespace shardscope::ui
