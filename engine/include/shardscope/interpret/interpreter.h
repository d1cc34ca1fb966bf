// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A reference interpreter: executes a graph on the CPU for small shapes. It checks autodiff against finite
// differences and, later, sharded plans against the unsharded program. Clarity over speed.
//
// Semantics are StableHLO's (https://openxla.org/stablehlo/spec). Where the spec leaves a choice to the
// implementation, the interpreter does what XLA does: integer x / 0 = -1 and x % 0 = x; float-to-integer
// convert truncates and saturates (NaN -> 0); gather clamps start indices, scatter skips an update window
// that would leave its input; shifts by at least the bit width give 0 (or the sign for arithmetic right
// shifts); reductions run in row-major order of the reduced index, starting from the init value; sort is
// always stable; dot_general and convolution accumulate floats in double and round once.
//
// rng draws UNIFORM values in [a, b) from one std::mt19937_64 per run, seeded with Options::rngSeed and drawn
// in execution order, so a run is reproducible but does not reproduce XLA's numbers. The IR does not keep
// rng_distribution, so an rng imported as NORMAL runs as UNIFORM too.
//
// It runs every op kind except collectives, rng_bit_generator, fft, cholesky, triangular_solve,
// batch_norm_grad/training/inference, custom_call and opaque ops, and OtherElementwise ops other than
// chlo.{erf, erfc, tan, sinh, cosh, asin, acos, atan, asinh, acosh, atanh, lgamma, square, conj, is_inf,
// is_pos_inf, is_neg_inf}; complex element types and tokens cannot be held. reduce_precision rounds to the
// result type only (the IR does not keep its exponent and mantissa widths).
#pragma once

#include <cstdint>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/ir/graph.h"

namespace shardscope::interpret {

// A dense row-major tensor. Values are held as doubles whatever the element type; after every op they are
// rounded to what the element type can represent (f32, bf16, f16 and the f8 types rounding to nearest even,
// integer wrap-around, i1 as 0/1), so an f32 program computes what an f32 machine would, and an f64 one in
// full. Integers are exact up to 2^53 in magnitude.
struct Tensor {
    ir::TensorType type;
    std::vector<double> values;  // type.elements() values

    // A tensor of `type` filled with `value`.
    static Tensor filled(ir::TensorType type, double value);
    // The value at `index` (one component per dimension); NaN when the index is outside the shape.
    double at(const std::vector<std::int64_t>& index) const;
    friend bool operator==(const Tensor&, const Tensor&) = default;
};

struct Options {
    std::int64_t maxElements = std::int64_t{1}
                               << 24;            // refuse tensors larger than this (a guard, not a feature)
    std::int64_t maxLoopIterations = 1'000'000;  // refuse while loops that run longer (a guard)
    std::uint64_t rngSeed = 0;                   // seeds the draws of rng ops
};

// Runs `graph` on `arguments` (one per graph argument, of the argument's type) and returns one tensor per
// output. Argument values are first rounded to their element type. Errors (a graph that does not verify, a
// wrong argument type, an op the interpreter cannot run, a tensor over the size guard, a loop over the
// iteration guard, a constant whose values are unknown) name the op and its location; nothing aborts.
Result<std::vector<Tensor>> run(const ir::Graph& graph, const std::vector<Tensor>& arguments,
                                const Options& options = {});

}  // namespace shardscope::interpret
