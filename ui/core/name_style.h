// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// How the explorer shows TOAST's names: a stable colour per name, and tensor shardings as short text.
#pragma once

#include <QColor>
#include <QString>

#include "shardscope/analysis/decision_space.h"
#include "shardscope/mesh/mesh.h"
#include "shardscope/plan/plan.h"

namespace shardscope::ui {

// A colour for `name` that depends only on its label, so a name keeps its colour across sessions, meshes and
// plans. Light enough to fill a node behind dark text.
QColor nameColor(const analysis::DecisionSpace& space, analysis::NameId name);

// The short form of a name's label for edge labels: its last path component ("layers.0.attn.heads" →
// "heads").
QString shortNameLabel(const analysis::DecisionSpace& space, analysis::NameId name);

// A tensor's sharding with its names, e.g. `[batch@data, seq, d_model@model]`: per dimension the short labels
// of its names (joined by '·' when a dimension carries several; its size when none), then `@` and the mesh
// axes that shard it (joined by ','). An empty `sharding` (no dimensions recorded) shows the names only.
QString shardingText(const analysis::DecisionSpace& space, const mesh::Mesh& mesh, ir::ValueId value,
                     const ir::TensorType& type, const plan::TensorSharding& sharding);

}  // namespace shardscope::ui
