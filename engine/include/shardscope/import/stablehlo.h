// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Import of StableHLO textual MLIR (what `jax.jit(f).lower(...).as_text()` and PyTorch/XLA print).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/import/options.h"
#include "shardscope/ir/graph.h"

namespace shardscope::import {

// The code of the warning that says constants were imported as parameters (see importStableHlo).
inline constexpr std::string_view kWeightsLiftedCode = "stablehlo.weights-lifted";

// Parses the module in `text` and returns its entry function as a verified graph, with func.call and
// stablehlo.composite inlined. The entry is options.entryFunction, else @main, else the only public function;
// with several public functions and no @main the error lists them. `fileName` is used in locations and
// errors.
// - Ops outside any `module` (`sdy.mesh @mesh = ...` before `func.func`) are MLIR's implicit top-level
// module.
// - Tuples have no graph values: a tuple argument or result of the entry is several arguments or outputs, a
//   custom call's tuple result several results; stablehlo.tuple and get_tuple_element emit no op.
// - Shardy's collectives (sdy.all_gather, all_slice, all_reduce, reduce_scatter, all_to_all,
// collective_permute)
//   and sdy.reshard/sharding_constraint import as "Sharding" custom calls carrying their (out_)sharding: in
//   Shardy's global view they keep the tensor's value. sdy.named_computation is inlined; sdy.constant is a
//   constant.
// - dense<...> literals are read as MLIR reads them: hex blobs of any element type (i1 bit-packed or a byte
// per
//   element), splats, and lists whose nesting is the type's shape (another shape is an error).
// - Weights held as constants (an export that closes over its parameters, often with elided literals): a
//   top-level floating-point constant that is not a splat, has at least 1024 elements and is read by a
//   dot_general or convolution (through convert, reshape, transpose, broadcast_in_dim) becomes a parameter
//   argument after the function's own, named by its SSA name ("%cst_7"), with one warning
//   (kWeightsLiftedCode) saying how many and how large. The graph then has more arguments than the text.
// Errors: one diagnostic of one line naming file:line:column and what was expected or is unsupported. Ops we
// do not model import as opaque ops with a warning naming them; existing shardings and meshes are kept on the
// graph.
Result<ir::Graph> importStableHlo(std::string_view text, const std::string& fileName,
                                  const ImportOptions& options = {});

// The names of the module's functions in file order (to import each with ImportOptions::entryFunction).
Result<std::vector<std::string>> stableHloFunctions(std::string_view text, const std::string& fileName);

}  // namespace shardscope::import
