// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A loaded planning problem as the UI shows it.
#pragma once

#include <cstdint>
#include <memory>

#include <QString>
#include <QStringList>

#include "core/module_tree.h"
#include "shardscope/ir/statistics.h"
#include "shardscope/plan/plan.h"
#include "shardscope/session/problem.h"

namespace shardscope::ui {

// The engine's problem (model or training step, analysis, mesh, hardware, cost model) and everything the UI
// derives from it, computed off the UI thread and never changed afterwards: models, panels and the graph view
// share one instance through std::shared_ptr<const ProblemView>.
struct ProblemView {
    std::shared_ptr<const Problem> problem;
    ir::GraphStatistics statistics;  // of the graph planned (the training step when spec.train)
    ModuleTree modules;              // the body's ops by module/layer, for the graph view to collapse
    QString source;                  // what the user opened: a model source or a workspace path
    QString displayName;
    QString description;
    QString stableHlo;     // the graph printed as StableHLO
    QStringList warnings;  // diagnostics that did not stop the load, one line each
    qint64 loadMilliseconds = 0;

    // Set when the problem came from a workspace session.
    QString workspacePath;
    std::int64_t session = 0;
    // The plan the explorer starts with (the session's best plan, or empty).
    plan::Plan initialPlan;
    // What of the carried plan (ProblemRequest::carriedPlan) did not carry over, one line each: decisions
    // left out for an axis the new mesh lacks, or why the whole plan was not kept. Also in `warnings`.
    QStringList planWarnings;

    const ir::Graph& graph() const { return problem->model.graph; }
    const analysis::DecisionSpace& space() const { return problem->space; }
    const mesh::Mesh& mesh() const { return problem->mesh; }
    // The blocks of layers remat decisions name.
    const plan::LayerBlocks& blocks() const { return problem->costModel->planContext().blocks(); }
};

// Item data role every table model of ui/core answers with a value that sorts naturally (numbers as
// numbers, where the display role shows formatted text).
inline constexpr int SortRole = Qt::UserRole;

}  // namespace shardscope::ui
