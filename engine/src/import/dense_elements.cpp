// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "dense_elements.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

namespace shardscope::import {
namespace {

using ir::ElementType;

constexpr int kMaxNesting = 64;

Result<std::vector<double>> denseError(std::string message) {
    return makeError("stablehlo.dense", std::move(message));
}

struct MinifloatFormat {
    int exponentBits, mantissaBits, bias;
    enum class Specials { Ieee, AllOnesNan, NegativeZeroNan } specials;
};

// f16 and the f8 kinds from their bits: IEEE (inf and NaN at the largest exponent), FN (no inf; NaN only with
// every exponent and mantissa bit set) or FNUZ (no inf, no -0; NaN is the bits of -0).
double minifloat(std::uint64_t raw, const MinifloatFormat& f) {
    const std::uint64_t exponentMask = (std::uint64_t{1} << f.exponentBits) - 1,
                        mantissaMask = (std::uint64_t{1} << f.mantissaBits) - 1;
    const bool negative = (raw >> (f.exponentBits + f.mantissaBits)) & 1;
    const std::uint64_t exponent = (raw >> f.mantissaBits) & exponentMask, mantissa = raw & mantissaMask;
    constexpr double nan = std::numeric_limits<double>::quiet_NaN(),
                     inf = std::numeric_limits<double>::infinity();
    switch (f.specials) {
        case MinifloatFormat::Specials::Ieee:
            if (exponent == exponentMask)
                return mantissa ? nan : negative ? -inf : inf;
            break;
        case MinifloatFormat::Specials::AllOnesNan:
            if (exponent == exponentMask && mantissa == mantissaMask)
                return nan;
            break;
        case MinifloatFormat::Specials::NegativeZeroNan:
            if (negative && exponent == 0 && mantissa == 0)
                return nan;
            break;
    }
    const double magnitude = exponent == 0
                                 ? std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissaBits)
                                 : std::ldexp(static_cast<double>(mantissa | (mantissaMask + 1)),
                                              static_cast<int>(exponent) - f.bias - f.mantissaBits);
    return negative ? -magnitude : magnitude;
}

// The scalar kind one stored number has: complex elements store two of their component's kind.
ElementType componentOf(ElementType element) {
    if (element == ElementType::C64)
        return ElementType::F32;
    if (element == ElementType::C128)
        return ElementType::F64;
    return element;
}

// Bits of one stored (component) number as a value of `component`.
double fromBits(std::uint64_t raw, ElementType component) {
    using F = MinifloatFormat::Specials;
    switch (component) {
        case ElementType::F32: {
            float f;
            const auto u = static_cast<std::uint32_t>(raw);
            std::memcpy(&f, &u, sizeof f);
            return f;
        }
        case ElementType::F64: {
            double d;
            std::memcpy(&d, &raw, sizeof d);
            return d;
        }
        case ElementType::BF16: {
            float f;
            const auto u = static_cast<std::uint32_t>(raw << 16);
            std::memcpy(&f, &u, sizeof f);
            return f;
        }
        case ElementType::F16:
            return minifloat(raw, {5, 10, 15, F::Ieee});
        case ElementType::F8E5M2:
            return minifloat(raw, {5, 2, 15, F::Ieee});
        case ElementType::F8E4M3FN:
            return minifloat(raw, {4, 3, 7, F::AllOnesNan});
        case ElementType::F8E4M3FNUZ:
            return minifloat(raw, {4, 3, 8, F::NegativeZeroNan});
        case ElementType::F8E5M2FNUZ:
            return minifloat(raw, {5, 2, 16, F::NegativeZeroNan});
        case ElementType::F8E4M3B11FNUZ:
            return minifloat(raw, {4, 3, 11, F::NegativeZeroNan});
        case ElementType::I1:
            return raw != 0;
        default:
            break;
    }
    const int bits = ir::bitWidth(component);
    if (bits <= 0 || bits > 64)
        return 0;
    if (bits < 64)
        raw &= (std::uint64_t{1} << bits) - 1;
    if (ir::isUnsigned(component))
        return static_cast<double>(raw);
    if (bits == 64)
        return static_cast<double>(static_cast<std::int64_t>(raw));
    const std::uint64_t signBit = std::uint64_t{1} << (bits - 1);  // sign-extend narrower signed integers
    return static_cast<double>(static_cast<std::int64_t>((raw ^ signBit) - signBit));
}

int hexDigit(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// `"0x..."`: the raw storage, element by element, little-endian.
Result<std::vector<double>> hexBlob(std::string_view hex, const ir::TensorType& type) {
    if (hex.size() % 2 != 0)
        return denseError("hex literal of an odd number of digits for " + type.toString());
    std::vector<std::uint8_t> bytes(hex.size() / 2);
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        const int high = hexDigit(hex[2 * i]), low = hexDigit(hex[2 * i + 1]);
        if (high < 0 || low < 0)
            return denseError("bad hex digit in the dense literal for " + type.toString());
        bytes[i] = static_cast<std::uint8_t>(high * 16 + low);
    }
    const auto n = static_cast<std::size_t>(type.elements());
    std::vector<double> values;
    if (type.element == ElementType::I1) {
        // MLIR packs i1 by the bit (one byte 0x00/0xFF is a splat); newer versions store a byte per element.
        if (bytes.size() == 1 && (bytes[0] == 0 || bytes[0] == 0xFF || n == 1))
            return std::vector<double>{bytes[0] != 0 ? 1.0 : 0.0};
        if (bytes.size() == (n + 7) / 8) {
            values.reserve(n);
            for (std::size_t i = 0; i < n; ++i)
                values.push_back((bytes[i / 8] >> (i % 8)) & 1);
            return values;
        }
        if (bytes.size() == n) {
            values.reserve(n);
            for (const auto b : bytes)
                values.push_back(b != 0);
            return values;
        }
        return denseError("hex literal of " + std::to_string(bytes.size()) + " bytes for " + type.toString() +
                          ": expected " + std::to_string((n + 7) / 8) + " (8 elements per byte) or " +
                          std::to_string(n) + " (a byte per element)");
    }
    const ElementType component = componentOf(type.element);
    const std::size_t width = static_cast<std::size_t>((ir::bitWidth(component) + 7) / 8);
    const std::size_t perElement = width * (ir::isComplex(type.element) ? 2 : 1);
    if (width == 0 || width > 8)
        return denseError("no hex literal for " + type.toString());
    std::size_t count = 0;
    if (bytes.size() == perElement)
        count = 1;  // a splat
    else if (bytes.size() == perElement * n)
        count = n;
    else
        return denseError("hex literal of " + std::to_string(bytes.size()) + " bytes for " + type.toString() +
                          ": expected " + std::to_string(perElement) + " (a splat) or " +
                          std::to_string(perElement * n));
    values.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        std::uint64_t raw = 0;
        for (std::size_t b = 0; b < width; ++b)
            raw |= static_cast<std::uint64_t>(bytes[i * perElement + b]) << (8 * b);
        values.push_back(fromBits(raw, component));  // complex: the real part
    }
    return values;
}

// Nested lists and scalars, reading one character at a time.
class ListLiteral {
public:
    ListLiteral(std::string_view text, const ir::TensorType& type) : text_(text), type_(type) {}

    Result<std::vector<double>> read() {
        blanks();
        const bool list = pos_ < text_.size() && text_[pos_] == '[';
        if (!element(0))
            return denseError(error_);
        blanks();
        if (pos_ != text_.size())
            return denseError("unexpected '" + std::string(text_.substr(pos_, 12)) +
                              "' in the dense literal for " + type_.toString());
        if (!list)
            return std::move(values_);  // a splat
        if (shape_ != type_.shape) {
            std::string shape;
            for (std::size_t i = 0; i < shape_.size(); ++i)
                shape += (i ? ", " : "") + std::to_string(shape_[i]);
            // MLIR prints an empty tensor as dense<> (read here as []).
            if (!(values_.empty() && type_.elements() == 0))
                return denseError("dense literal of shape [" + shape + "] for " + type_.toString());
        }
        return std::move(values_);
    }

private:
    void blanks() {
        while (pos_ < text_.size() &&
               (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r'))
            ++pos_;
    }
    bool eat(char c) {
        blanks();
        if (pos_ < text_.size() && text_[pos_] == c)
            return ++pos_, true;
        return false;
    }
    bool fail(std::string message) {
        error_ = std::move(message);
        return false;
    }
    // A list at `depth` (its length recorded in shape_, equal for every list of that depth) or a scalar.
    bool element(int depth) {
        if (depth > kMaxNesting)
            return fail("dense literal nested too deeply");
        blanks();
        if (!eat('[')) {
            if (depth < static_cast<int>(shape_.size()) ||
                (depth > 0 && leafDepth_ >= 0 && depth != leafDepth_))
                return fail("dense literal of uneven nesting for " + type_.toString());
            leafDepth_ = depth;
            return scalar();
        }
        if (leafDepth_ >= 0 && depth >= leafDepth_)
            return fail("dense literal of uneven nesting for " + type_.toString());
        const auto level = static_cast<std::size_t>(depth);
        if (shape_.size() <= level)
            shape_.resize(level + 1, -1);
        std::int64_t count = 0;
        if (!eat(']')) {
            do {
                if (!element(depth + 1))
                    return false;
                ++count;
            } while (eat(','));
            if (!eat(']'))
                return fail("expected ',' or ']' in the dense literal for " + type_.toString());
        }
        if (shape_[level] < 0)
            shape_[level] = count;
        else if (shape_[level] != count)
            return fail("dense literal of uneven lists for " + type_.toString());
        return true;
    }
    bool scalar() {
        blanks();
        if (ir::isComplex(type_.element) && eat('(')) {  // (re, im): keep the real part
            if (!number())
                return false;
            const double real = values_.back();
            values_.pop_back();
            if (!eat(',') || !number())
                return fail("expected (real, imaginary) in the dense literal for " + type_.toString());
            values_.back() = real;
            if (!eat(')'))
                return fail("expected ')' after a complex element in the dense literal");
            return true;
        }
        return number();
    }
    bool number() {
        blanks();
        const std::size_t start = pos_;
        while (pos_ < text_.size() &&
               std::string_view(",[]() \n\t\r").find(text_[pos_]) == std::string_view::npos)
            ++pos_;
        std::string_view token = text_.substr(start, pos_ - start);
        if (token == "true" || token == "false") {
            values_.push_back(token == "true");
            return true;
        }
        const bool negative = !token.empty() && token.front() == '-';
        const std::string_view digits = token.substr(negative ? 1 : 0);
        if (digits.size() > 2 && digits[0] == '0' &&
            (digits[1] == 'x' || digits[1] == 'X')) {  // the element's bits
            std::uint64_t raw = 0;
            const auto [end, ec] = std::from_chars(digits.data() + 2, digits.data() + digits.size(), raw, 16);
            if (ec != std::errc{} || end != digits.data() + digits.size())
                return fail("bad element '" + std::string(token) + "' in the dense literal");
            const double v =
                fromBits(raw, componentOf(type_.element));  // as MLIR, a hex integer is the bits too
            values_.push_back(negative ? -v : v);
            return true;
        }
        double v = 0;
        const char* first = token.data() + (!token.empty() && token.front() == '+' ? 1 : 0);
        const auto [end, ec] = std::from_chars(first, token.data() + token.size(), v);
        if (token.empty() || end != token.data() + token.size() ||
            (ec != std::errc{} && ec != std::errc::result_out_of_range))
            return fail("bad element '" + std::string(token.substr(0, 24)) + "' in the dense literal");
        values_.push_back(v);
        return true;
    }

    std::string_view text_;
    const ir::TensorType& type_;
    std::size_t pos_ = 0;
    std::vector<double> values_;
    std::vector<std::int64_t> shape_;
    int leafDepth_ = -1;
    std::string error_;
};

}  // namespace

Result<std::vector<double>> decodeDenseElements(std::string_view body, const ir::TensorType& type,
                                                std::size_t maxElements) {
    if (type.elements() < 0 || static_cast<std::uint64_t>(type.elements()) > maxElements)
        return std::vector<double>{};
    while (!body.empty() && (body.front() == ' ' || body.front() == '\n'))
        body.remove_prefix(1);
    while (!body.empty() && (body.back() == ' ' || body.back() == '\n'))
        body.remove_suffix(1);
    if (!body.empty() && body.front() == '"') {
        if (body.size() < 4 || body.substr(0, 3) != "\"0x" || body.back() != '"')
            return denseError("expected a hex literal \"0x...\" in dense<...> for " + type.toString());
        return hexBlob(body.substr(3, body.size() - 4), type);
    }
    return ListLiteral(body, type).read();
}

}  // namespace shardscope::import
