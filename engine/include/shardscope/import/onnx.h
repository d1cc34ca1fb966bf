// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Import of ONNX models (a serialized onnx.ModelProto) through Debian's libonnx and libprotobuf.
#pragma once

#include <string>
#include <string_view>

#include "shardscope/diagnostic.h"
#include "shardscope/import/options.h"
#include "shardscope/ir/graph.h"

namespace shardscope::import {

// Parses `bytes`, folds shape computations on constants so every value has a static shape, and maps the
// operators onto the graph IR. Initializers and weight-like graph inputs become parameters named by their
// ONNX names. Symbolic dimensions take their values from `options.dimensions`; an unresolved one is an error
// naming it. Unsupported operators import as opaque ops with a warning naming them.
//
// The contract in detail:
// - Values keep ONNX semantics and layouts: Conv stays NCHW ([b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]),
//   numpy broadcasting becomes explicit broadcast_in_dim, batched MatMul becomes dot_general with batching
//   dimensions, pooling becomes reduce_window/reduce, norms and Softmax decompose into reductions and
//   elementwise ops, Gather becomes a StableHLO gather, Erf an elementwise op named "chlo.erf".
// - Shape computations (Shape, Gather, Concat, Unsqueeze, Slice, Cast, Reshape, ConstantOfShape, Range,
// Expand,
//   integer arithmetic, Equal/Where, ScatterND, ...) whose inputs are known are evaluated at import time and
//   emit no op. A known constant consumed by a tensor computation becomes a Constant op, with its literal
//   when it has at most 2^16 elements (one value when it is a splat).
// - Parameters (role Parameter, named by the ONNX name, no values): float initializers of rank >= 1 that feed
//   some computation (not only op configuration such as Resize scales); float graph inputs that look like
//   weights (a module path such as "fc.weight", a name with weight/bias/embed/token/scale..., used only in
//   weight positions such as Conv W/B, Gemm/MatMul B, norm scale/bias/statistics, Gather tables) and every
//   float graph input after the first such one (exporters list parameters after the user's inputs); float
//   ConstantOfShape outputs whose shape is an initializer (weight placeholders), named by that output.
//   Parameters become arguments when first consumed, so unused weights do not appear. Other graph inputs are
//   role Input, named by the ONNX input, with their symbolic dimension names as dimension labels.
// - Every op's location is {fileName, ONNX node name} ("<OpType>_<index>" for unnamed nodes).
// - ONNX shape inference runs only when an unsupported op needs its result types; its failure is a warning,
//   and an unsupported op whose outputs it cannot type is an error.
// - Errors (never exceptions): empty, truncated or garbled bytes ("not a valid ONNX model: ..."), graphs that
//   are not in SSA/topological order, shapes computed at run time, unresolved symbolic dimensions.
Result<ir::Graph> importOnnx(std::string_view bytes, const std::string& fileName,
                             const ImportOptions& options = {});

}  // namespace shardscope::import
