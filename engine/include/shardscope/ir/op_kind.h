// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The op kinds of the graph IR. They mirror StableHLO; anything else is imported as an Opaque op
// (docs/design.md, "The graph IR").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace shardscope::ir {

enum class OpCategory : std::uint8_t {
    ElementwiseUnary,    // one operand, result of the operand's shape
    ElementwiseBinary,   // two operands of one shape, result of that shape
    ElementwiseTernary,  // select, clamp (scalars broadcast implicitly where StableHLO allows)
    Structural,          // each kind has its own attributes and shape rule
    Control,             // ops with regions that run other ops: while, case, if
    Collective,          // already-partitioned programs: all_reduce, all_gather, ...
    Opaque,              // anything we do not model: every dimension needs replication
};

// X(Enumerator, "mnemonic", Category)
#define SHARDSCOPE_OP_KINDS(X)                                           \
    X(Abs, "abs", ElementwiseUnary)                                      \
    X(Cbrt, "cbrt", ElementwiseUnary)                                    \
    X(Ceil, "ceil", ElementwiseUnary)                                    \
    X(Convert, "convert", ElementwiseUnary)                              \
    X(Cosine, "cosine", ElementwiseUnary)                                \
    X(CountLeadingZeros, "count_leading_zeros", ElementwiseUnary)        \
    X(Exponential, "exponential", ElementwiseUnary)                      \
    X(ExponentialMinusOne, "exponential_minus_one", ElementwiseUnary)    \
    X(Floor, "floor", ElementwiseUnary)                                  \
    X(Imag, "imag", ElementwiseUnary)                                    \
    X(IsFinite, "is_finite", ElementwiseUnary)                           \
    X(Log, "log", ElementwiseUnary)                                      \
    X(LogPlusOne, "log_plus_one", ElementwiseUnary)                      \
    X(Logistic, "logistic", ElementwiseUnary)                            \
    X(Negate, "negate", ElementwiseUnary)                                \
    X(Not, "not", ElementwiseUnary)                                      \
    X(PopulationCount, "popcnt", ElementwiseUnary)                       \
    X(Real, "real", ElementwiseUnary)                                    \
    X(ReducePrecision, "reduce_precision", ElementwiseUnary)             \
    X(RoundNearestAfz, "round_nearest_afz", ElementwiseUnary)            \
    X(RoundNearestEven, "round_nearest_even", ElementwiseUnary)          \
    X(Rsqrt, "rsqrt", ElementwiseUnary)                                  \
    X(Sign, "sign", ElementwiseUnary)                                    \
    X(Sine, "sine", ElementwiseUnary)                                    \
    X(Sqrt, "sqrt", ElementwiseUnary)                                    \
    X(Tan, "tan", ElementwiseUnary)                                      \
    X(Tanh, "tanh", ElementwiseUnary)                                    \
    X(OtherElementwise, "elementwise", ElementwiseUnary)                 \
    X(Add, "add", ElementwiseBinary)                                     \
    X(And, "and", ElementwiseBinary)                                     \
    X(Atan2, "atan2", ElementwiseBinary)                                 \
    X(Compare, "compare", ElementwiseBinary)                             \
    X(Complex, "complex", ElementwiseBinary)                             \
    X(Divide, "divide", ElementwiseBinary)                               \
    X(Maximum, "maximum", ElementwiseBinary)                             \
    X(Minimum, "minimum", ElementwiseBinary)                             \
    X(Multiply, "multiply", ElementwiseBinary)                           \
    X(Or, "or", ElementwiseBinary)                                       \
    X(Power, "power", ElementwiseBinary)                                 \
    X(Remainder, "remainder", ElementwiseBinary)                         \
    X(ShiftLeft, "shift_left", ElementwiseBinary)                        \
    X(ShiftRightArithmetic, "shift_right_arithmetic", ElementwiseBinary) \
    X(ShiftRightLogical, "shift_right_logical", ElementwiseBinary)       \
    X(Subtract, "subtract", ElementwiseBinary)                           \
    X(Xor, "xor", ElementwiseBinary)                                     \
    X(Select, "select", ElementwiseTernary)                              \
    X(Clamp, "clamp", ElementwiseTernary)                                \
    X(BatchNormGrad, "batch_norm_grad", Structural)                      \
    X(BatchNormInference, "batch_norm_inference", Structural)            \
    X(BatchNormTraining, "batch_norm_training", Structural)              \
    X(BitcastConvert, "bitcast_convert", Structural)                     \
    X(BroadcastInDim, "broadcast_in_dim", Structural)                    \
    X(Concatenate, "concatenate", Structural)                            \
    X(Cholesky, "cholesky", Structural)                                  \
    X(Constant, "constant", Structural)                                  \
    X(Convolution, "convolution", Structural)                            \
    X(CustomCall, "custom_call", Structural)                             \
    X(DotGeneral, "dot_general", Structural)                             \
    X(DynamicSlice, "dynamic_slice", Structural)                         \
    X(DynamicUpdateSlice, "dynamic_update_slice", Structural)            \
    X(Fft, "fft", Structural)                                            \
    X(Gather, "gather", Structural)                                      \
    X(Iota, "iota", Structural)                                          \
    X(OptimizationBarrier, "optimization_barrier", Structural)           \
    X(Pad, "pad", Structural)                                            \
    X(Reduce, "reduce", Structural)                                      \
    X(ReduceWindow, "reduce_window", Structural)                         \
    X(Reshape, "reshape", Structural)                                    \
    X(Reverse, "reverse", Structural)                                    \
    X(RngBitGenerator, "rng_bit_generator", Structural)                  \
    X(Rng, "rng", Structural)                                            \
    X(Scatter, "scatter", Structural)                                    \
    X(SelectAndScatter, "select_and_scatter", Structural)                \
    X(Slice, "slice", Structural)                                        \
    X(Sort, "sort", Structural)                                          \
    X(Transpose, "transpose", Structural)                                \
    X(TriangularSolve, "triangular_solve", Structural)                   \
    X(Case, "case", Control)                                             \
    X(If, "if", Control)                                                 \
    X(While, "while", Control)                                           \
    X(AllGather, "all_gather", Collective)                               \
    X(AllReduce, "all_reduce", Collective)                               \
    X(AllToAll, "all_to_all", Collective)                                \
    X(CollectivePermute, "collective_permute", Collective)               \
    X(ReduceScatter, "reduce_scatter", Collective)                       \
    X(Opaque, "opaque", Opaque)

enum class OpKind : std::uint8_t {
#define SHARDSCOPE_OP_ENUM(name, mnemonic, category) name,
    SHARDSCOPE_OP_KINDS(SHARDSCOPE_OP_ENUM)
#undef SHARDSCOPE_OP_ENUM
};

inline constexpr int kOpKindCount = 0
#define SHARDSCOPE_OP_COUNT(name, mnemonic, category) \
    +1  // NOLINT(bugprone-macro-parentheses): a term of the sum
    SHARDSCOPE_OP_KINDS(SHARDSCOPE_OP_COUNT)
#undef SHARDSCOPE_OP_COUNT
    ;

// OtherElementwise is a shape-preserving unary op of another dialect that acts element by element
// (chlo.erf, chlo.lgamma, ...); its OpaqueAttributes hold the source name.

// The StableHLO mnemonic without the dialect prefix ("dot_general"); "opaque" for Opaque.
std::string_view mnemonic(OpKind kind);
OpCategory category(OpKind kind);
// Parses a mnemonic with or without the "stablehlo." prefix; nullopt for anything we do not model.
std::optional<OpKind> parseOpKind(std::string_view name);

inline bool isElementwise(OpKind kind) {
    auto c = category(kind);
    return c == OpCategory::ElementwiseUnary || c == OpCategory::ElementwiseBinary ||
           c == OpCategory::ElementwiseTernary;
}

}  // namespace shardscope::ir
