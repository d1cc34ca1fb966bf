// Import of ONNX models (a serialized onnx.ModelProto) through Debian's libonnx and libprotobuf.
#pragma once

#include <string>
#include <string_view>

#include "shardscope/diagnostic.h"
#include "shardscope/import/options.h"
#include "shardscope/ir/graph.h"

namespace shardscope::import {

// Parses `bytes`, runs ONNX shape inference, folds shape computations on constants so every value has a static
// shape, and maps the operators onto the graph IR. Initializers and weight-like graph inputs become parameters
// named by their ONNX names. Symbolic dimensions take their values from `options.dimensions`; an unresolved one
// is an error naming it. Unsupported operators import as opaque ops with a warning naming them.
Result<ir::Graph> importOnnx(std::string_view bytes, const std::string& fileName, const ImportOptions& options = {});

}  // namespace shardscope::import
