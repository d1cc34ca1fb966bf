// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Types as StableHLO text writes them: `tensor<2x3xf32>` (an encoding after the element type is dropped),
// `!stablehlo.token`, `tuple<...>`, scalar element types (`i64` after an attribute), and the trailing types
// of ops (`(a, b) -> c`, or a plain list `a, b`).
#pragma once

#include <cstddef>
#include <vector>

#include "shardscope/ir/types.h"
#include "stablehlo_lexer.h"

namespace shardscope::import::stablehlo_import {

struct ParsedType {
    ir::TensorType type;
    bool token = false;
    bool tuple = false;
    std::vector<ParsedType> elements;  // of a tuple
    std::size_t at = 0;                // where the type starts in the text
};

// A tuple's tensors, depth first (the values a tuple becomes: the graph has no tuple values).
void appendLeaves(const ParsedType& t, std::vector<ir::TensorType>& out);
std::size_t leafCount(const ParsedType& t);

struct FunctionType {
    std::vector<ParsedType> inputs, results;
    bool isFunction = false;  // written `inputs -> results`; else `inputs` is a plain list of types
};

// Reads a type. Errors: dynamic dimensions, an element type the IR has no counterpart of, tuples nested
// deeper than kMaxDepth.
ParsedType readType(Lexer& lex, int tupleDepth = 0);
// `(a, b)` or a single type.
std::vector<ParsedType> readTypeList(Lexer& lex);
// `(a, b) -> c`, `(a) -> (b, c)`, `a -> b` (as chlo prints), or a plain list of types `a, b`.
FunctionType readFunctionType(Lexer& lex);

}  // namespace shardscope::import::stablehlo_import
