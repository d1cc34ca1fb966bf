// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Structural and type checks of a graph. Importers and builders run it before handing a graph out.
#pragma once

#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/ir/graph.h"

namespace shardscope::ir {

// Returns every problem found (empty when the graph is well formed). Checks: ids in range; each value
// defined exactly once (by an argument, a region argument or one op result) and before every use in program
// order, respecting region scoping; each op's result types equal to what its kind's shape rule gives;
// attribute values in range; argument names unique among parameters; output aliasing (same type, argument
// exists, an argument donated at most once). Each diagnostic names the op (mnemonic and location) or
// argument.
std::vector<Diagnostic> verify(const Graph& graph);

// verify() as a Status: ok when there is no error.
Status verifyGraph(const Graph& graph);

}  // namespace shardscope::ir
