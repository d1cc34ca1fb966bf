// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The element values of MLIR's `dense<...>` literals (DenseElementsAttr's textual forms), apart from the
// parser that finds them.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/ir/types.h"

namespace shardscope::import {

// Decodes BODY of `dense<BODY> : type` into one double per element in row-major order (complex elements:
// their real part), or into a single value when BODY is a splat. Accepts what MLIR's parser accepts:
// - a hex blob `"0x..."` of the raw little-endian storage: one element (a splat) or every element, each in
// whole
//   bytes (complex: real then imaginary). i1 is bit-packed, 8 elements per byte with the first in the low
//   bit, and a single byte 0x00/0xFF is a splat; one byte per element is accepted too (newer MLIR stores i1
//   so), the blob's length telling which;
// - a splat `1.5`, `true`, `0x7F800000` (the element's bits), `(1.0, 2.0)`;
// - nested lists `[[1, 2], [3, 4]]` whose nesting is exactly the type's shape.
// Returns an empty vector (values unknown) when `type` has more than `maxElements` elements. Errors (one
// line, code "stablehlo.dense"): a blob whose length fits no layout, a list whose shape differs from the
// type's, a bad element.
Result<std::vector<double>> decodeDenseElements(std::string_view body, const ir::TensorType& type,
                                                std::size_t maxElements);

}  // namespace shardscope::import
