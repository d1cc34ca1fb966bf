// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Tensors whose values the ONNX importer knows at import time, and the arithmetic that folds shape
// computations (Shape -> Gather -> Concat -> Reshape and friends) on them so no such op reaches the graph.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shardscope/ir/types.h"

namespace shardscope::import::onnx_import {

// Most elements a folded constant may have; larger results are computed by graph ops instead.
inline constexpr std::int64_t kFoldLimit = std::int64_t{1} << 20;
// Most elements a Constant op keeps as a literal; larger constants keep their type only.
inline constexpr std::int64_t kLiteralLimit = std::int64_t{1} << 16;

// A tensor with known values. Integer and boolean tensors store `ints`, floating-point ones `reals`
// (complex tensors keep their real part). One stored value with more elements is a splat. Assumes the
// shape's element count fits in int64 (checkedElements() guards every shape that comes from the file).
struct ConstTensor {
    ir::ElementType element = ir::ElementType::I64;
    ir::Shape shape;
    std::vector<std::int64_t> ints;
    std::vector<double> reals;

    bool integral() const { return !ir::isFloat(element) && !ir::isComplex(element); }
    std::int64_t elements() const { return ir::elementCount(shape); }
    std::size_t stored() const { return integral() ? ints.size() : reals.size(); }
    // Element i (row-major) converted to the asked representation; splats answer for every i.
    std::int64_t intAt(std::int64_t i) const;
    double realAt(std::int64_t i) const;
    // Every element as int64 (expanding a splat). Assumes elements() <= kFoldLimit.
    std::vector<std::int64_t> toInts() const;

    static ConstTensor ofInts(ir::ElementType element, ir::Shape shape, std::vector<std::int64_t> values);
    static ConstTensor ofReals(ir::ElementType element, ir::Shape shape, std::vector<double> values);
    static ConstTensor splat(ir::ElementType element, ir::Shape shape, double value);
};

// The element count of `shape`, or nullopt when a dimension is negative or the count exceeds 2^53.
std::optional<std::int64_t> checkedElements(const ir::Shape& shape);

// Converts a double to int64 without undefined behaviour (NaN -> 0, out of range -> clamped).
std::int64_t toInt64(double value);
// Wraps an integer to the range of `element` (i1 -> 0/1, i8 -> [-128, 127], ...).
std::int64_t wrapInteger(ir::ElementType element, std::int64_t value);

// numpy/ONNX multidirectional broadcasting; nullopt when the shapes are incompatible.
std::optional<ir::Shape> broadcastShapes(const ir::Shape& a, const ir::Shape& b);

// Each function returns nullopt when the result would exceed kFoldLimit elements (the caller then emits
// graph ops instead). Arguments are assumed valid (the importer checks axes, permutations and bounds).
enum class FoldBinary {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    FMod,
    Pow,
    Max,
    Min,
    Equal,
    Less,
    Greater,
    LessEqual,
    GreaterEqual,
    And,
    Or,
    Xor
};
// `error` receives a message when the operation is undefined (integer division by zero).
std::optional<ConstTensor> foldBinary(FoldBinary op, const ConstTensor& a, const ConstTensor& b,
                                      std::string& error);

enum class FoldUnary {
    Neg,
    Abs,
    Sqrt,
    Exp,
    Log,
    Floor,
    Ceil,
    Round,
    Not,
    Sign,
    Reciprocal,
    Relu,
    Sigmoid,
    Tanh,
    Erf
};
std::optional<ConstTensor> foldUnary(FoldUnary op, const ConstTensor& x);

std::optional<ConstTensor> foldCast(const ConstTensor& x, ir::ElementType element);
std::optional<ConstTensor> foldWhere(const ConstTensor& condition, const ConstTensor& x,
                                     const ConstTensor& y);
// Broadcasts `x` to `shape` (which must be broadcast-compatible with x's shape, x aligned to the right).
std::optional<ConstTensor> foldBroadcast(const ConstTensor& x, const ir::Shape& shape);
std::optional<ConstTensor> foldTranspose(const ConstTensor& x, const std::vector<std::int64_t>& permutation);
// Per dimension: first index, step (non-zero; negative walks backwards) and result size.
std::optional<ConstTensor> foldSlice(const ConstTensor& x, const std::vector<std::int64_t>& start,
                                     const std::vector<std::int64_t>& step, const ir::Shape& size);
// ONNX Gather with indices already made non-negative and in range.
std::optional<ConstTensor> foldGather(const ConstTensor& data, const std::vector<std::int64_t>& indices,
                                      const ir::Shape& indicesShape, std::int64_t axis);
std::optional<ConstTensor> foldConcat(const std::vector<const ConstTensor*>& parts, std::int64_t axis);
enum class FoldReduce { Sum, Prod, Max, Min, Mean };
// Reduces over `axes` (distinct, in range); keeps them as size 1 when keepDims.
std::optional<ConstTensor> foldReduce(FoldReduce op, const ConstTensor& x,
                                      const std::vector<std::int64_t>& axes, bool keepDims);
// ONNX ScatterND (reduction none) with indices checked in range; `indices` has the last dimension of size k.
std::optional<ConstTensor> foldScatterNd(const ConstTensor& data, const ConstTensor& indices,
                                         const ConstTensor& updates, std::string& error);
// ONNX Range: scalars start, limit, delta (delta != 0).
std::optional<ConstTensor> foldRange(const ConstTensor& start, const ConstTensor& limit,
                                     const ConstTensor& delta, std::string& error);
// Constant-mode Pad with per-dimension low/high (may be negative).
std::optional<ConstTensor> foldPad(const ConstTensor& x, const std::vector<std::int64_t>& low,
                                   const std::vector<std::int64_t>& high, double value);

}  // namespace shardscope::import::onnx_import
