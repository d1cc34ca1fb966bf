// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The body's ops grouped into modules (blocks, layers) so large graphs can open collapsed.
#pragma once

#include <cstddef>
#include <vector>

#include <QString>

#include "shardscope/analysis/decision_space.h"
#include "shardscope/ir/graph.h"

namespace shardscope::ui {

struct Module {
    QString path;                  // "layers.3.attn"; "" for the root
    QString label;                 // what a collapsed box shows: "attn", "layer 3", "ops 120-179"
    int parent = -1;               // index into ModuleTree::modules; -1 for the root
    std::vector<int> children;     // submodules, in program order of their first op
    std::vector<std::size_t> ops;  // body indices (into graph.body) directly in this module, in program order
    std::size_t opCount = 0;       // ops in this module and all its submodules
};

// modules[0] is the root. Every body op is in exactly one module (moduleOfOp).
struct ModuleTree {
    std::vector<Module> modules;
    std::vector<int> moduleOfOp;  // per body index, the innermost module holding the op
};

// Groups `graph`'s body. Ops carry module paths in location.name ("layers.3.attn.q") when the source had
// them; otherwise the repeated structure the analysis found (groups with one name per layer) or, failing
// that, runs of program order make the modules. Deterministic; never fails.
ModuleTree buildModuleTree(const ir::Graph& graph, const analysis::DecisionSpace& space);

}  // namespace shardscope::ui
