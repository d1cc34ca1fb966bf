// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Element-wise ops with StableHLO's per-type semantics: IEEE arithmetic on floats (computed in double and
// rounded by the evaluator, which for +, -, *, / and sqrt gives the correctly rounded narrow result),
// wrapping two's complement arithmetic on integers, logical operations on i1.
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "interpret/numerics.h"
#include "interpret/ops.h"

namespace shardscope::interpret {

using ir::CompareDirection;
using ir::ElementType;
using ir::OpKind;

namespace {

using UnaryKernel = std::function<double(double)>;

enum class Domain : std::uint8_t { Float, Signed, Unsigned, Bool };

Domain domainOf(ElementType type) {
    if (ir::isFloat(type))
        return Domain::Float;
    if (type == ElementType::I1)
        return Domain::Bool;
    return isSignedInteger(type) ? Domain::Signed : Domain::Unsigned;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// IEEE-754 maximum and minimum: NaN propagates, +0 is above -0.
double ieeeMaximum(double a, double b) {
    if (std::isnan(a) || std::isnan(b))
        return kNaN;
    if (a == b)
        return std::signbit(a) ? b : a;
    return a > b ? a : b;
}

double ieeeMinimum(double a, double b) {
    if (std::isnan(a) || std::isnan(b))
        return kNaN;
    if (a == b)
        return std::signbit(a) ? a : b;
    return a < b ? a : b;
}

// Orders doubles as IEEE totalOrder does: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN.
std::int64_t totalOrderKey(double x) {
    std::int64_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    return bits ^ ((bits >> 63) & std::numeric_limits<std::int64_t>::max());
}

template <typename T>
bool compareBy(CompareDirection direction, T a, T b) {
    switch (direction) {
        case CompareDirection::EQ:
            return a == b;
        case CompareDirection::NE:
            return a != b;
        case CompareDirection::GE:
            return a >= b;
        case CompareDirection::GT:
            return a > b;
        case CompareDirection::LE:
            return a <= b;
        case CompareDirection::LT:
            return a < b;
    }
    return false;
}

BinaryKernel compareKernel(const ir::CompareAttributes& c, ElementType element) {
    const CompareDirection d = c.direction;
    switch (domainOf(element)) {
        case Domain::Float:
            if (c.type == ir::CompareType::TotalOrder)
                return [d](double a, double b) {
                    return compareBy(d, totalOrderKey(a), totalOrderKey(b)) ? 1.0 : 0.0;
                };
            return [d](double a, double b) { return compareBy(d, a, b) ? 1.0 : 0.0; };
        case Domain::Signed:
            return [d, element](double a, double b) {
                return compareBy(d, signedValue(a, element), signedValue(b, element)) ? 1.0 : 0.0;
            };
        case Domain::Unsigned:
        case Domain::Bool:
            return [d, element](double a, double b) {
                return compareBy(d, unsignedValue(a, element), unsignedValue(b, element)) ? 1.0 : 0.0;
            };
    }
    return {};
}

// Integer power by squaring, modulo 2^64. A negative exponent gives 0 unless the base is 1 or -1 (as XLA).
double integerPower(double base, double exponent, ElementType element) {
    if (isSignedInteger(element)) {
        const std::int64_t b = signedValue(base, element), e = signedValue(exponent, element);
        if (e < 0)
            return b == 1 ? 1.0 : b == -1 ? (e % 2 == 0 ? 1.0 : -1.0) : 0.0;
    }
    std::uint64_t result = 1, square = unsignedValue(base, element), e = unsignedValue(exponent, element);
    for (; e != 0; e >>= 1) {
        if (e & 1)
            result *= square;
        square *= square;
    }
    return integerValue(result, element);
}

// Shifts of the type's bit pattern; an amount of at least the bit width (a negative one counts as huge)
// shifts everything out: 0, or all sign bits for the arithmetic right shift.
double shift(OpKind kind, double value, double amount, ElementType element) {
    const int width = integerBits(element);
    const std::uint64_t count = unsignedValue(amount, element);
    const std::uint64_t bits = unsignedValue(value, element);
    const bool outOfRange = count >= static_cast<std::uint64_t>(width);
    if (kind == OpKind::ShiftRightArithmetic) {
        const int unused = 64 - width;
        const std::int64_t v = static_cast<std::int64_t>(bits << unused) >> unused;
        return integerValue(static_cast<std::uint64_t>(outOfRange ? (v < 0 ? -1 : 0) : v >> count), element);
    }
    if (outOfRange)
        return 0;
    return integerValue(kind == OpKind::ShiftLeft ? bits << count : bits >> count, element);
}

std::optional<BinaryKernel> floatBinary(OpKind kind) {
    switch (kind) {
        case OpKind::Add:
            return [](double a, double b) { return a + b; };
        case OpKind::Subtract:
            return [](double a, double b) { return a - b; };
        case OpKind::Multiply:
            return [](double a, double b) { return a * b; };
        case OpKind::Divide:
            return [](double a, double b) { return a / b; };
        case OpKind::Remainder:
            return [](double a, double b) { return std::fmod(a, b); };
        case OpKind::Maximum:
            return ieeeMaximum;
        case OpKind::Minimum:
            return ieeeMinimum;
        case OpKind::Power:
            return [](double a, double b) { return std::pow(a, b); };
        case OpKind::Atan2:
            return [](double a, double b) { return std::atan2(a, b); };
        default:
            return std::nullopt;
    }
}

// Integer division truncates toward zero; x / 0 is -1 (all bits set) and x % 0 is x, and the overflowing
// INT_MIN / -1 gives INT_MIN with remainder 0, as XLA defines them.
std::optional<BinaryKernel> integerBinary(OpKind kind, ElementType e) {
    const bool isSigned = isSignedInteger(e);
    auto bits = [e](double v) { return unsignedValue(v, e); };
    switch (kind) {
        case OpKind::Add:
            return [e, bits](double a, double b) { return integerValue(bits(a) + bits(b), e); };
        case OpKind::Subtract:
            return [e, bits](double a, double b) { return integerValue(bits(a) - bits(b), e); };
        case OpKind::Multiply:
            return [e, bits](double a, double b) { return integerValue(bits(a) * bits(b), e); };
        case OpKind::And:
            return [e, bits](double a, double b) { return integerValue(bits(a) & bits(b), e); };
        case OpKind::Or:
            return [e, bits](double a, double b) { return integerValue(bits(a) | bits(b), e); };
        case OpKind::Xor:
            return [e, bits](double a, double b) { return integerValue(bits(a) ^ bits(b), e); };
        case OpKind::Maximum:
        case OpKind::Minimum: {
            const bool max = kind == OpKind::Maximum;
            return [e, isSigned, max](double a, double b) {
                const bool aFirst = isSigned ? signedValue(a, e) > signedValue(b, e)
                                             : unsignedValue(a, e) > unsignedValue(b, e);
                return aFirst == max ? a : b;
            };
        }
        case OpKind::Divide:
        case OpKind::Remainder: {
            const bool divide = kind == OpKind::Divide;
            if (isSigned)
                return [e, divide](double a, double b) {
                    const std::int64_t x = signedValue(a, e), y = signedValue(b, e);
                    const std::int64_t min =
                        static_cast<std::int64_t>(integerValue(std::uint64_t{1} << (integerBits(e) - 1), e));
                    if (y == 0)
                        return divide ? -1.0 : a;
                    if (y == -1 && x == min)
                        return divide ? a : 0.0;
                    return static_cast<double>(divide ? x / y : x % y);
                };
            return [e, divide](double a, double b) {
                const std::uint64_t x = unsignedValue(a, e), y = unsignedValue(b, e);
                if (y == 0)
                    return divide ? integerValue(~std::uint64_t{0}, e) : a;
                return static_cast<double>(divide ? x / y : x % y);
            };
        }
        case OpKind::Power:
            return [e](double a, double b) { return integerPower(a, b, e); };
        case OpKind::ShiftLeft:
        case OpKind::ShiftRightArithmetic:
        case OpKind::ShiftRightLogical:
            return [kind, e](double a, double b) { return shift(kind, a, b, e); };
        default:
            return std::nullopt;
    }
}

// Booleans: add and maximum are OR, multiply and minimum are AND.
std::optional<BinaryKernel> booleanBinary(OpKind kind) {
    auto truth = [](double v) { return v != 0; };
    switch (kind) {
        case OpKind::Add:
        case OpKind::Or:
        case OpKind::Maximum:
            return [truth](double a, double b) { return truth(a) || truth(b) ? 1.0 : 0.0; };
        case OpKind::Multiply:
        case OpKind::And:
        case OpKind::Minimum:
            return [truth](double a, double b) { return truth(a) && truth(b) ? 1.0 : 0.0; };
        case OpKind::Xor:
            return [truth](double a, double b) { return truth(a) != truth(b) ? 1.0 : 0.0; };
        default:
            return std::nullopt;
    }
}

std::optional<UnaryKernel> floatUnary(OpKind kind) {
    switch (kind) {
        case OpKind::Abs:
            return [](double x) { return std::fabs(x); };
        case OpKind::Cbrt:
            return [](double x) { return std::cbrt(x); };
        case OpKind::Ceil:
            return [](double x) { return std::ceil(x); };
        case OpKind::Cosine:
            return [](double x) { return std::cos(x); };
        case OpKind::Exponential:
            return [](double x) { return std::exp(x); };
        case OpKind::ExponentialMinusOne:
            return [](double x) { return std::expm1(x); };
        case OpKind::Floor:
            return [](double x) { return std::floor(x); };
        case OpKind::Imag:
            return [](double) { return 0.0; };
        case OpKind::IsFinite:
            return [](double x) { return std::isfinite(x) ? 1.0 : 0.0; };
        case OpKind::Log:
            return [](double x) { return std::log(x); };
        case OpKind::LogPlusOne:
            return [](double x) { return std::log1p(x); };
        case OpKind::Logistic:
            return [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
        case OpKind::Negate:
            return [](double x) { return -x; };
        case OpKind::Real:
        case OpKind::ReducePrecision:
            return [](double x) { return x; };
        case OpKind::RoundNearestAfz:
            return [](double x) { return std::round(x); };
        case OpKind::RoundNearestEven:
            return roundHalfEven;
        case OpKind::Rsqrt:
            return [](double x) { return 1.0 / std::sqrt(x); };
        case OpKind::Sign:
            return [](double x) { return std::isnan(x) ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : x; };
        case OpKind::Sine:
            return [](double x) { return std::sin(x); };
        case OpKind::Sqrt:
            return [](double x) { return std::sqrt(x); };
        case OpKind::Tan:
            return [](double x) { return std::tan(x); };
        case OpKind::Tanh:
            return [](double x) { return std::tanh(x); };
        default:
            return std::nullopt;
    }
}

std::optional<UnaryKernel> integerUnary(OpKind kind, ElementType e) {
    const int width = integerBits(e);
    switch (kind) {
        case OpKind::Abs:
            return [e](double x) {
                return isSignedInteger(e) && x < 0 ? integerValue(~unsignedValue(x, e) + 1, e) : x;
            };
        case OpKind::Negate:
            return [e](double x) { return integerValue(~unsignedValue(x, e) + 1, e); };
        case OpKind::Not:
            return [e](double x) { return integerValue(~unsignedValue(x, e), e); };
        case OpKind::PopulationCount:
            return [e](double x) { return static_cast<double>(std::popcount(unsignedValue(x, e))); };
        case OpKind::CountLeadingZeros:
            return [e, width](double x) {
                return static_cast<double>(std::countl_zero(unsignedValue(x, e)) - (64 - width));
            };
        case OpKind::Sign:
            return [](double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; };
        default:
            return std::nullopt;
    }
}

// Unary ops of other dialects the importer keeps as OtherElementwise, by source name (floats only).
std::optional<UnaryKernel> chloUnary(const std::string& name) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    if (name == "chlo.erf")
        return [](double x) { return std::erf(x); };
    if (name == "chlo.erfc")
        return [](double x) { return std::erfc(x); };
    if (name == "chlo.tan")
        return [](double x) { return std::tan(x); };
    if (name == "chlo.sinh")
        return [](double x) { return std::sinh(x); };
    if (name == "chlo.cosh")
        return [](double x) { return std::cosh(x); };
    if (name == "chlo.asin")
        return [](double x) { return std::asin(x); };
    if (name == "chlo.acos")
        return [](double x) { return std::acos(x); };
    if (name == "chlo.atan")
        return [](double x) { return std::atan(x); };
    if (name == "chlo.asinh")
        return [](double x) { return std::asinh(x); };
    if (name == "chlo.acosh")
        return [](double x) { return std::acosh(x); };
    if (name == "chlo.atanh")
        return [](double x) { return std::atanh(x); };
    if (name == "chlo.lgamma")
        return [](double x) { return std::lgamma(x); };
    if (name == "chlo.square")
        return [](double x) { return x * x; };
    if (name == "chlo.conj")
        return [](double x) { return x; };
    if (name == "chlo.is_inf")
        return [](double x) { return std::isinf(x) ? 1.0 : 0.0; };
    if (name == "chlo.is_pos_inf")
        return [](double x) { return x == kInf ? 1.0 : 0.0; };
    if (name == "chlo.is_neg_inf")
        return [](double x) { return x == -kInf ? 1.0 : 0.0; };
    return std::nullopt;
}

// convert: floats to integers truncate toward zero and saturate (NaN -> 0), as XLA does; integers to integers
// wrap; anything to i1 is `x != 0`; to floats the evaluator's rounding does the rest.
UnaryKernel convertKernel(ElementType from, ElementType to) {
    if (to == ElementType::I1)
        return [](double x) { return x != 0 ? 1.0 : 0.0; };
    if (ir::isFloat(from) && integerBits(to) > 0) {
        const int width = integerBits(to);
        const bool isSigned = isSignedInteger(to);
        const double low = isSigned ? -std::ldexp(1.0, width - 1) : 0.0;
        const double high = std::ldexp(1.0, isSigned ? width - 1 : width);  // first value out of range
        const double max = integerValue(~std::uint64_t{0} >> (64 - (isSigned ? width - 1 : width)), to);
        return [low, high, max](double x) {
            if (std::isnan(x))
                return 0.0;
            const double t = std::trunc(x);
            return t < low ? low : t >= high ? max : t;
        };
    }
    return [](double x) { return x; };
}

std::string typeName(ElementType e) {
    return std::string(ir::toString(e));
}

Result<UnaryKernel> unaryKernel(const ir::Op& op, ElementType operand, ElementType result) {
    if (op.kind == OpKind::Convert)
        return convertKernel(operand, result);
    const Domain domain = domainOf(operand);
    if (op.kind == OpKind::OtherElementwise) {
        const auto* name = std::get_if<ir::OpaqueAttributes>(&op.attributes);
        auto kernel = name ? chloUnary(name->name) : std::nullopt;
        if (!kernel)
            return unsupportedOp(op);
        if (domain != Domain::Float)
            return opError(op, "needs a floating-point operand, got " + typeName(operand));
        return *kernel;
    }
    std::optional<UnaryKernel> kernel;
    if (domain == Domain::Float)
        kernel = floatUnary(op.kind);
    else if (domain == Domain::Bool && op.kind == OpKind::Not)
        kernel = [](double x) { return x != 0 ? 0.0 : 1.0; };
    else if (domain != Domain::Bool)
        kernel = integerUnary(op.kind, operand);
    if (!kernel)
        return opError(op, "is not defined for " + typeName(operand) + " operands");
    return *kernel;
}

}  // namespace

Result<BinaryKernel> binaryKernel(const ir::Op& op, ElementType element) {
    if (op.kind == OpKind::Compare) {
        const auto* c = std::get_if<ir::CompareAttributes>(&op.attributes);
        if (!c)
            return opError(op, "has no comparison direction");
        return compareKernel(*c, element);
    }
    std::optional<BinaryKernel> kernel;
    switch (domainOf(element)) {
        case Domain::Float:
            kernel = floatBinary(op.kind);
            break;
        case Domain::Signed:
        case Domain::Unsigned:
            kernel = integerBinary(op.kind, element);
            break;
        case Domain::Bool:
            kernel = booleanBinary(op.kind);
            break;
    }
    if (!kernel)
        return opError(op, "is not defined for " + typeName(element) + " operands");
    return *kernel;
}

Result<Tensor> elementwise(const ir::Op& op, const Operands& operands, const ir::TensorType& type) {
    Tensor out = zeros(type);
    const std::size_t n = out.values.size();
    switch (ir::category(op.kind)) {
        case ir::OpCategory::ElementwiseUnary: {
            auto kernel = unaryKernel(op, operands[0]->type.element, type.element);
            if (!kernel)
                return kernel.diagnostics().front();
            const auto& x = operands[0]->values;
            for (std::size_t i = 0; i < n; ++i)
                out.values[i] = (*kernel)(x[i]);
            return out;
        }
        case ir::OpCategory::ElementwiseBinary: {
            auto kernel = binaryKernel(op, operands[0]->type.element);
            if (!kernel)
                return kernel.diagnostics().front();
            const auto &a = operands[0]->values, &b = operands[1]->values;
            for (std::size_t i = 0; i < n; ++i)
                out.values[i] = (*kernel)(a[i], b[i]);
            return out;
        }
        default:
            break;
    }
    // select(pred, on_true, on_false) and clamp(min, operand, max): a rank-0 first or last operand applies to
    // every element.
    auto at = [](const Tensor& t, std::size_t i) { return t.values.size() == 1 ? t.values[0] : t.values[i]; };
    if (op.kind == OpKind::Select) {
        for (std::size_t i = 0; i < n; ++i)
            out.values[i] = at(*operands[0], i) != 0 ? operands[1]->values[i] : operands[2]->values[i];
        return out;
    }
    if (op.kind == OpKind::Clamp) {
        ir::Op maximum = op, minimum = op;
        maximum.kind = OpKind::Maximum;
        minimum.kind = OpKind::Minimum;
        auto lower = binaryKernel(maximum, type.element), upper = binaryKernel(minimum, type.element);
        if (!lower || !upper)
            return opError(op, "is not defined for " + typeName(type.element) + " operands");
        for (std::size_t i = 0; i < n; ++i)
            out.values[i] =
                (*upper)((*lower)(operands[1]->values[i], at(*operands[0], i)), at(*operands[2], i));
        return out;
    }
    return unsupportedOp(op);
}

}  // namespace shardscope::interpret
