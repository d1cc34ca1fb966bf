// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "interpret/numerics.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace shardscope::interpret {

using ir::ElementType;

namespace {

// A binary floating-point format of 1 sign bit, `exponentBits` and `mantissaBits` (the implicit leading one
// not counted). The f8 types differ in what encodes NaN and whether infinities and negative zero exist.
struct FloatFormat {
    enum class Special : std::uint8_t {
        Ieee,          // all-ones exponent: infinity (mantissa 0) or NaN
        FiniteOnly,    // "FN": no infinities; NaN is all ones
        UnsignedZero,  // "FNUZ": no infinities, no negative zero; NaN is the negative-zero pattern
    };
    int exponentBits;
    int mantissaBits;
    int bias;
    Special special;
};

std::optional<FloatFormat> floatFormat(ElementType type) {
    using S = FloatFormat::Special;
    switch (type) {
        case ElementType::F8E4M3FN:
            return FloatFormat{4, 3, 7, S::FiniteOnly};
        case ElementType::F8E5M2:
            return FloatFormat{5, 2, 15, S::Ieee};
        case ElementType::F8E4M3FNUZ:
            return FloatFormat{4, 3, 8, S::UnsignedZero};
        case ElementType::F8E5M2FNUZ:
            return FloatFormat{5, 2, 16, S::UnsignedZero};
        case ElementType::F8E4M3B11FNUZ:
            return FloatFormat{4, 3, 11, S::UnsignedZero};
        case ElementType::BF16:
            return FloatFormat{8, 7, 127, S::Ieee};
        case ElementType::F16:
            return FloatFormat{5, 10, 15, S::Ieee};
        case ElementType::F32:
            return FloatFormat{8, 23, 127, S::Ieee};
        default:
            return std::nullopt;
    }
}

std::uint64_t lowMask(int bits) {
    return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

// Encodes `x` in `f`, rounding to nearest even: scale |x| so that one unit is the quantum of its binade (or
// of the subnormal range), round to an integer, and add the biased exponent; a mantissa that rounds up to 2^m
// carries into the exponent by the addition itself.
std::uint64_t encode(double x, const FloatFormat& f) {
    using S = FloatFormat::Special;
    const int m = f.mantissaBits;
    const std::uint64_t signBit = std::uint64_t{1} << (f.exponentBits + m);
    const std::uint64_t exponentMask = lowMask(f.exponentBits);
    const std::uint64_t mantissaMask = lowMask(m);
    const std::uint64_t nan = f.special == S::Ieee ? (exponentMask << m) | (std::uint64_t{1} << (m - 1))
                              : f.special == S::FiniteOnly ? (exponentMask << m) | mantissaMask
                                                           : signBit;
    if (std::isnan(x))
        return nan;
    const std::uint64_t sign = std::signbit(x) ? signBit : 0;
    const double magnitude = std::fabs(x);
    if (std::isinf(magnitude))
        return f.special == S::Ieee ? sign | (exponentMask << m) : nan;
    if (magnitude == 0)
        return f.special == S::UnsignedZero ? 0 : sign;

    int binade = 0;
    std::frexp(magnitude, &binade);  // magnitude = fraction * 2^binade, fraction in [0.5, 1)
    const int exponent = binade - 1;
    const int minExponent = 1 - f.bias;
    const int quantum = std::max(exponent, minExponent) - m;
    const auto units = static_cast<std::uint64_t>(roundHalfEven(std::ldexp(magnitude, -quantum)));
    const std::uint64_t bits = exponent < minExponent ? units
                                                      : (static_cast<std::uint64_t>(exponent + f.bias) << m) +
                                                            (units - (mantissaMask + 1));
    const std::uint64_t maxFinite = f.special == S::Ieee         ? ((exponentMask - 1) << m) | mantissaMask
                                    : f.special == S::FiniteOnly ? (exponentMask << m) | (mantissaMask - 1)
                                                                 : (exponentMask << m) | mantissaMask;
    if (bits > maxFinite)
        return f.special == S::Ieee ? sign | (exponentMask << m) : nan;
    if (bits == 0 && f.special == S::UnsignedZero)
        return 0;
    return sign | bits;
}

double decode(std::uint64_t bits, const FloatFormat& f) {
    using S = FloatFormat::Special;
    const int m = f.mantissaBits;
    const std::uint64_t exponentMask = lowMask(f.exponentBits);
    const std::uint64_t mantissaMask = lowMask(m);
    const bool negative = ((bits >> (f.exponentBits + m)) & 1) != 0;
    const std::uint64_t exponent = (bits >> m) & exponentMask;
    const std::uint64_t mantissa = bits & mantissaMask;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    switch (f.special) {
        case S::Ieee:
            if (exponent == exponentMask)
                return mantissa != 0 ? nan : negative ? -HUGE_VAL : HUGE_VAL;
            break;
        case S::FiniteOnly:
            if (exponent == exponentMask && mantissa == mantissaMask)
                return nan;
            break;
        case S::UnsignedZero:
            if (negative && exponent == 0 && mantissa == 0)
                return nan;
            break;
    }
    const int minExponent = 1 - f.bias;
    const double magnitude = exponent == 0 ? std::ldexp(static_cast<double>(mantissa), minExponent - m)
                                           : std::ldexp(static_cast<double>(mantissa + mantissaMask + 1),
                                                        static_cast<int>(exponent) - f.bias - m);
    return negative ? -magnitude : magnitude;
}

}  // namespace

bool isSupported(ElementType type) {
    return !ir::isComplex(type) && type != ElementType::Token;
}

int integerBits(ElementType type) {
    switch (type) {
        case ElementType::I1:
            return 1;
        case ElementType::I2:
        case ElementType::U2:
            return 2;
        case ElementType::I4:
        case ElementType::U4:
            return 4;
        case ElementType::I8:
        case ElementType::U8:
            return 8;
        case ElementType::I16:
        case ElementType::U16:
            return 16;
        case ElementType::I32:
        case ElementType::U32:
            return 32;
        case ElementType::I64:
        case ElementType::U64:
        case ElementType::Index:
            return 64;
        default:
            return 0;
    }
}

bool isSignedInteger(ElementType type) {
    return type == ElementType::Index ||
           (ir::isInteger(type) && !ir::isUnsigned(type) && type != ElementType::I1);
}

int storageBits(ElementType type) {
    if (int bits = integerBits(type))
        return bits;
    if (type == ElementType::F64)
        return 64;
    if (auto f = floatFormat(type))
        return 1 + f->exponentBits + f->mantissaBits;
    return 0;
}

double roundHalfEven(double x) {
    if (!std::isfinite(x) || std::fabs(x) >= 4503599627370496.0)
        return x;  // 2^52: already integral
    const double below = std::floor(x);
    const double fraction = x - below;
    double rounded = below;
    if (fraction > 0.5 || (fraction == 0.5 && std::fmod(below, 2.0) != 0))
        rounded = below + 1;
    return std::copysign(rounded, x);
}

std::uint64_t integerPattern(double value) {
    if (!std::isfinite(value))
        return 0;
    constexpr double kTwoTo64 = 18446744073709551616.0;
    double magnitude = std::fabs(std::trunc(value));
    if (value >= kTwoTo64)
        return ~std::uint64_t{0};  // the double nearest the largest ui64 is 2^64
    if (magnitude >= kTwoTo64)
        magnitude = std::fmod(magnitude, kTwoTo64);
    const auto bits = static_cast<std::uint64_t>(magnitude);
    return value < 0 ? ~bits + 1 : bits;
}

double integerValue(std::uint64_t bits, ElementType type) {
    const int width = integerBits(type) == 0 ? 64 : integerBits(type);
    bits &= lowMask(width);
    if (!isSignedInteger(type))
        return static_cast<double>(bits);
    const int unused = 64 - width;
    return static_cast<double>(static_cast<std::int64_t>(bits << unused) >> unused);
}

std::uint64_t unsignedValue(double value, ElementType type) {
    const int width = integerBits(type) == 0 ? 64 : integerBits(type);
    // The double nearest the largest i64 is 2^63: read it back as that largest value, not as a wrap-around.
    if (width == 64 && isSignedInteger(type) && value >= 9223372036854775808.0)
        return lowMask(63);
    return integerPattern(value) & lowMask(width);
}

std::int64_t signedValue(double value, ElementType type) {
    const int width = integerBits(type) == 0 ? 64 : integerBits(type);
    const int unused = 64 - width;
    return static_cast<std::int64_t>(unsignedValue(value, type) << unused) >> unused;
}

double roundToElement(double value, ElementType type) {
    if (type == ElementType::F64)
        return value;
    if (type == ElementType::F32 && !(std::fabs(value) > FLT_MAX))
        return static_cast<double>(static_cast<float>(value));
    if (auto f = floatFormat(type))
        return decode(encode(value, *f), *f);
    if (type == ElementType::I1)
        return value != 0 ? 1.0 : 0.0;
    return integerValue(unsignedValue(value, type), type);
}

std::uint64_t toBits(double value, ElementType type) {
    if (type == ElementType::F64) {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &value, sizeof bits);
        return bits;
    }
    if (auto f = floatFormat(type))
        return encode(value, *f);
    return unsignedValue(roundToElement(value, type), type);
}

double fromBits(std::uint64_t bits, ElementType type) {
    if (type == ElementType::F64) {
        double value = 0;
        std::memcpy(&value, &bits, sizeof value);
        return value;
    }
    if (auto f = floatFormat(type))
        return decode(bits & lowMask(1 + f->exponentBits + f->mantissaBits), *f);
    if (type == ElementType::I1)
        return (bits & 1) != 0 ? 1.0 : 0.0;
    return integerValue(bits, type);
}

std::int64_t toIndex(double value) {
    constexpr double kLimit = 4611686018427387904.0;  // 2^62
    if (std::isnan(value))
        return 0;
    return static_cast<std::int64_t>(std::clamp(std::trunc(value), -kLimit, kLimit));
}

}  // namespace shardscope::interpret
