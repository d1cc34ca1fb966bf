// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// How the interpreter holds element values: every element is a double, kept at a value its element type can
// represent. Floats narrower than f64 round to nearest even (f8 variants, bf16, f16 and f32 by one encoder),
// integers wrap to their width, i1 is 0 or 1. The same encoder gives the storage bits bitcast_convert needs.
#pragma once

#include <cstdint>

#include "shardscope/ir/types.h"

namespace shardscope::interpret {

// Whether values of `type` can be held: everything but complex numbers and tokens (index counts as i64).
bool isSupported(ir::ElementType type);

// Bits of an integer type (i1 = 1, ui4 = 4, index = 64); 0 for anything else.
int integerBits(ir::ElementType type);
bool isSignedInteger(ir::ElementType type);  // i2 ... i64 and index; not i1

// Bits of one element in storage terms for bitcast_convert (f32 = 32, bf16 = 16, i4 = 4, i1 = 1); 0 when
// unsupported.
int storageBits(ir::ElementType type);

// The value of `type` nearest `value`: round to nearest even for floats (overflowing to infinity, or to NaN
// for the f8 types without one), truncate and wrap for integers (NaN and infinities become 0), `value != 0`
// for i1. Assumes isSupported(type).
double roundToElement(double value, ir::ElementType type);

// The storage bits of `value` (rounded to `type` first) and back. Assumes isSupported(type).
std::uint64_t toBits(double value, ir::ElementType type);
double fromBits(std::uint64_t bits, ir::ElementType type);

// Integers are exact up to 2^53 in magnitude; beyond that a 64-bit value is the nearest double, and the
// doubles 2^63 (for i64) and 2^64 (for ui64) stand for the largest value of the type.
//
// Two's complement bits (modulo 2^64) of the integer part of `value`; NaN and infinities give 0.
std::uint64_t integerPattern(double value);
// The value of the low integerBits(type) bits of `bits` in integer type `type` (sign-extended when signed).
double integerValue(std::uint64_t bits, ir::ElementType type);
// The low integerBits(type) bits of a value of integer type `type`, and the same sign-extended.
std::uint64_t unsignedValue(double value, ir::ElementType type);
std::int64_t signedValue(double value, ir::ElementType type);

// roundToIntegralTiesToEven, independent of the floating-point environment; keeps the sign of zero.
double roundHalfEven(double x);

// An index read from a tensor value, saturated to +-2^62 so arithmetic on it cannot overflow.
std::int64_t toIndex(double value);

}  // namespace shardscope::interpret
