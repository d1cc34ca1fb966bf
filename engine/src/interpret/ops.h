// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The interpreter's op implementations, one function per op kind (or family), called by the evaluator in
// interpreter.cpp. Each takes the op (for its attributes and for error messages), its operand tensors and the
// result types the graph declares, and returns the results, or an error naming the op and its location.
// Results are not yet rounded to their element types: the evaluator does that for every op.
//
// Assumes the graph passed ir::verifyGraph, so what shape inference checks holds (operand shapes agree,
// dimension numbers it validates are in range, result types are the inferred ones); everything else an op
// relies on is checked here.
#pragma once

#include <functional>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/interpret/interpreter.h"
#include "shardscope/ir/graph.h"

namespace shardscope::interpret {

using Tensors = std::vector<Tensor>;
using Operands = std::vector<const Tensor*>;

// A region run on scalars (a reduce body, a comparator): takes the region's arguments in order and fills
// `results` with its results, each rounded to its element type.
using ScalarFunction = std::function<Status(std::span<const double> arguments, std::vector<double>& results)>;

// How errors name an op: "'stablehlo.gather'", the source name of an opaque or chlo op ("'chlo.erf_inv'"), or
// "'stablehlo.custom_call' @target".
std::string displayName(const ir::Op& op);
// An error about `op`: "<name> (at <location>): <message>", located at the op.
Diagnostic opError(const ir::Op& op, const std::string& message, std::string code = "interpret.invalid-op");
// "the interpreter cannot run <name> (at <location>)", with ": <why>" when given.
Diagnostic unsupportedOp(const ir::Op& op, const std::string& why = {});

// Runs single ops of one graph, as run() would run them in place, with its own rng stream (seeded from
// Options::rngSeed, drawn in call order). Assumes the graph passed ir::verifyGraph. Region bodies must not
// use values defined outside the op (the runner knows only the operands it is given).
class OpRunner {
public:
    OpRunner(const ir::Graph& graph, const Options& options);
    ~OpRunner();
    OpRunner(const OpRunner&) = delete;
    OpRunner& operator=(const OpRunner&) = delete;
    // The results of `op` (an op of the graph) on `operands` (one per op operand, of the operand's type),
    // rounded to their element types; or the error run() would report for it.
    Result<Tensors> run(const ir::Op& op, const Operands& operands);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// A tensor of `type` with every value 0.
Tensor zeros(const ir::TensorType& type);

// --- elementwise.cpp: unary, binary and ternary element-wise ops, compare, convert, chlo unary ops.
using BinaryKernel = std::function<double(double, double)>;
// The element function of binary element-wise `op` on operands of `element` (not yet rounded).
Result<BinaryKernel> binaryKernel(const ir::Op& op, ir::ElementType element);
Result<Tensor> elementwise(const ir::Op& op, const Operands& operands, const ir::TensorType& type);

// --- data_movement.cpp: ops that move, select or create values without arithmetic.
Result<Tensor> constant(const ir::Op& op, const ir::TensorType& type);
Result<Tensor> iota(const ir::Op& op, const ir::TensorType& type);
// rng(a, b, shape) with the UNIFORM distribution: values in [a, b) (integers: a + floor(u·(b - a))) from
// `random`, one or more 64-bit draws per element in row-major order. Errors: a and b not scalars of the
// result's element type, a >= b, a shape operand that is not the result's shape.
Result<Tensor> rngUniform(const ir::Op& op, const Operands& operands, const ir::TensorType& type,
                          std::mt19937_64& random);
Result<Tensor> broadcastInDim(const ir::Op& op, const Tensor& operand, const ir::TensorType& type);
Result<Tensor> reshape(const Tensor& operand, const ir::TensorType& type);
Result<Tensor> transpose(const ir::Op& op, const Tensor& operand, const ir::TensorType& type);
Result<Tensor> slice(const ir::Op& op, const Tensor& operand, const ir::TensorType& type);
Result<Tensor> pad(const ir::Op& op, const Tensor& operand, const Tensor& paddingValue,
                   const ir::TensorType& type);
Result<Tensor> concatenate(const ir::Op& op, const Operands& operands, const ir::TensorType& type);
Result<Tensor> reverse(const ir::Op& op, const Tensor& operand, const ir::TensorType& type);
Result<Tensor> dynamicSlice(const ir::Op& op, const Operands& operands, const ir::TensorType& type);
Result<Tensor> dynamicUpdateSlice(const ir::Op& op, const Operands& operands, const ir::TensorType& type);
Result<Tensor> gather(const ir::Op& op, const Tensor& operand, const Tensor& indices,
                      const ir::TensorType& type);
Result<Tensor> bitcastConvert(const ir::Op& op, const Tensor& operand, const ir::TensorType& type);

// --- contraction.cpp: dot_general and convolution (accumulated in double, or modulo 2^64 for integers).
Result<Tensor> dotGeneral(const ir::Op& op, const Tensor& lhs, const Tensor& rhs, const ir::TensorType& type);
Result<Tensor> convolution(const ir::Op& op, const Tensor& lhs, const Tensor& rhs,
                           const ir::TensorType& type);

// --- regions.cpp: ops whose element function is a region.
// reduce: N inputs then N init values; `body` takes (accumulators..., elements...).
Result<Tensors> reduce(const ir::Op& op, const Operands& operands, const std::vector<ir::TensorType>& types,
                       const ScalarFunction& body);
Result<Tensors> reduceWindow(const ir::Op& op, const Operands& operands,
                             const std::vector<ir::TensorType>& types, const ScalarFunction& body);
// select_and_scatter(operand, source, init): `select` (2 -> i1) picks one element per window, `scatter`
// (2 -> 1) combines the source values landing on it.
Result<Tensor> selectAndScatter(const ir::Op& op, const Operands& operands, const ir::TensorType& type,
                                const ScalarFunction& select, const ScalarFunction& scatter);
// scatter: N inputs, indices, N updates; `update` takes (current values..., update values...). Updates are
// applied in row-major order of the update index; a window that would leave the input is skipped (as XLA).
Result<Tensors> scatter(const ir::Op& op, const Operands& operands, const std::vector<ir::TensorType>& types,
                        const ScalarFunction& update);
// sort: `comparator` takes (lhs0, rhs0, lhs1, rhs1, ...) and returns whether lhs sorts before rhs. Always
// stable (a valid choice when is_stable is false).
Result<Tensors> sort(const ir::Op& op, const Operands& operands, const ScalarFunction& comparator);

}  // namespace shardscope::interpret
