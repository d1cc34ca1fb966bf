// Import of StableHLO textual MLIR (what `jax.jit(f).lower(...).as_text()` and PyTorch/XLA print).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/import/options.h"
#include "shardscope/ir/graph.h"

namespace shardscope::import {

// Parses the module in `text` and returns its entry function (@main, else the only public function) as a
// verified graph, with func.call and stablehlo.composite inlined. `fileName` is used in locations and errors.
// Syntax errors name file:line:column and what was expected; ops we do not model import as opaque ops with a
// warning naming them; existing shardings and meshes are kept on the graph.
Result<ir::Graph> importStableHlo(std::string_view text, const std::string& fileName, const ImportOptions& options = {});

// The names of the module's functions in file order (to import each with ImportOptions::entryFunction).
Result<std::vector<std::string>> stableHloFunctions(std::string_view text, const std::string& fileName);

}  // namespace shardscope::import
