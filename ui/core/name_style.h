// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// How the explorer shows TOAST's names: a stable colour per name, and tensor shardings as short text.
#pragma once

#include <cstddef>
#include <vector>

#include <QColor>
#include <QString>

#include "shardscope/analysis/decision_space.h"
#include "shardscope/mesh/mesh.h"
#include "shardscope/plan/plan.h"

namespace shardscope::ui {

// A colour for `name`: paletteColor of its index, so the names of a model keep their colours across
// sessions, meshes and plans, and the first ones are far apart. Light enough to fill a node behind dark text.
QColor nameColor(const analysis::DecisionSpace& space, analysis::NameId name);

// The colours names take, in order: light sRGB colours (OKLab lightness 0.74 to 0.94), each chosen as far as
// possible from all before it (farthest-point sampling in OKLab), so any two of the first N are easier to
// tell apart the smaller N is. After kNamePaletteSize colours it starts again.
inline constexpr std::size_t kNamePaletteSize = 128;
QColor paletteColor(std::size_t index);

// The perceptual difference of two colours: their Euclidean distance in OKLab, times 100 (about 1 is the
// smallest difference people see side by side; 10 and more reads as different colours).
double perceptualDistance(const QColor& a, const QColor& b);

// The colour a fraction `t` (0 to 1) of the way from `a` to `b` in OKLab (its lightness linear in `t`), and
// a colour's OKLab lightness (0 black, 1 white).
QColor mixInOklab(const QColor& a, const QColor& b, double t);
double oklabLightness(const QColor& colour);

// The short form of a name's label for edge labels: its last path component ("layers.0.attn.heads" →
// "heads").
QString shortNameLabel(const analysis::DecisionSpace& space, analysis::NameId name);

// A tensor's sharding with its names, e.g. `[batch@data, seq, d_model@model]`: per dimension the short labels
// of its names (joined by '·' when a dimension carries several; its size when none), then `@` and the mesh
// axes that shard it (joined by ','). An empty `sharding` (no dimensions recorded) shows the names only.
QString shardingText(const analysis::DecisionSpace& space, const mesh::Mesh& mesh, ir::ValueId value,
                     const ir::TensorType& type, const plan::TensorSharding& sharding);

// One dimension of shardingText: its text (`d_model@model`) and the name whose colour it takes (its first
// name; invalid when it carries none).
struct ShardingPart {
    QString text;
    analysis::NameId name;
};
std::vector<ShardingPart> shardingParts(const analysis::DecisionSpace& space, const mesh::Mesh& mesh,
                                        ir::ValueId value, const ir::TensorType& type,
                                        const plan::TensorSharding& sharding);

}  // namespace shardscope::ui
