// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Which importer a file needs, decided by its content (not only its extension).
#pragma once

#include <string_view>

namespace shardscope::import {

enum class ModelFormat { StableHlo, Onnx, Empty, Unknown };

// StableHLO: text whose first meaningful token (after blanks and `//` comments) is `module`, an alias
// definition
// (`#...`, `!...`) or an op name (`func.func`, `sdy.mesh`, `"dialect.op"`: MLIR's implicit top-level module)
// and that mentions `func.func`. ONNX: a protobuf message that starts like an onnx.ModelProto (field 1
// ir_version varint, or one of its other fields) and is not text. Empty: nothing but blanks and `//` comments
// (as an MLIR test file's last
// `// -----` piece often is).
ModelFormat detectFormat(std::string_view bytes);

}  // namespace shardscope::import
