// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Prints a graph as StableHLO textual MLIR (a module with one public func.func @main).
#pragma once

#include <string>

#include "shardscope/ir/graph.h"

namespace shardscope::ir {

struct PrintOptions {
    std::string moduleName = "shardscope";
    bool locations = true;      // append loc("label") where an op or argument has a label
    bool argumentNames = true;  // annotate arguments with {shardscope.name = "...", shardscope.role = "..."}
};

// Pretty form for the ops JAX prints in pretty form, generic form ("stablehlo.x"(...) <{...}>) otherwise.
// Opaque ops are printed in generic form under their original name. Constants print their literal when
// known and `dense<0>`-style splats otherwise; elided literals print as dense_resource<__elided__>.
std::string printStableHlo(const Graph& graph, const PrintOptions& options = {});

}  // namespace shardscope::ir
