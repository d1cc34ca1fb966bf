// Which importer a file needs, decided by its content (not only its extension).
#pragma once

#include <string_view>

namespace shardscope::import {

enum class ModelFormat { StableHlo, Onnx, Unknown };

// StableHLO: text whose first meaningful token is `module`, `func.func`, `#...` or `//` and that mentions
// `func.func`. ONNX: a protobuf message that starts like an onnx.ModelProto (field 1 ir_version varint, or one
// of its other fields) and is not text.
ModelFormat detectFormat(std::string_view bytes);

}  // namespace shardscope::import
