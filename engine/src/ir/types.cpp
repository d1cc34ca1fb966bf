// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/ir/types.h"

#include <array>
#include <limits>
#include <utility>

namespace shardscope::ir {
namespace {

struct ElementInfo {
    ElementType type;
    std::string_view spelling;
    int bits;
};

constexpr std::array kElements{
    ElementInfo{ElementType::I1, "i1", 8},
    ElementInfo{ElementType::I2, "i2", 8},
    ElementInfo{ElementType::I4, "i4", 8},
    ElementInfo{ElementType::I8, "i8", 8},
    ElementInfo{ElementType::I16, "i16", 16},
    ElementInfo{ElementType::I32, "i32", 32},
    ElementInfo{ElementType::I64, "i64", 64},
    ElementInfo{ElementType::U2, "ui2", 8},
    ElementInfo{ElementType::U4, "ui4", 8},
    ElementInfo{ElementType::U8, "ui8", 8},
    ElementInfo{ElementType::U16, "ui16", 16},
    ElementInfo{ElementType::U32, "ui32", 32},
    ElementInfo{ElementType::U64, "ui64", 64},
    ElementInfo{ElementType::F8E4M3FN, "f8E4M3FN", 8},
    ElementInfo{ElementType::F8E5M2, "f8E5M2", 8},
    ElementInfo{ElementType::F8E4M3FNUZ, "f8E4M3FNUZ", 8},
    ElementInfo{ElementType::F8E5M2FNUZ, "f8E5M2FNUZ", 8},
    ElementInfo{ElementType::F8E4M3B11FNUZ, "f8E4M3B11FNUZ", 8},
    ElementInfo{ElementType::BF16, "bf16", 16},
    ElementInfo{ElementType::F16, "f16", 16},
    ElementInfo{ElementType::F32, "f32", 32},
    ElementInfo{ElementType::F64, "f64", 64},
    ElementInfo{ElementType::C64, "complex<f32>", 64},
    ElementInfo{ElementType::C128, "complex<f64>", 128},
    ElementInfo{ElementType::Index, "index", 64},
    ElementInfo{ElementType::Token, "!stablehlo.token", 0},
};

const ElementInfo& info(ElementType type) {
    for (const auto& e : kElements)
        if (e.type == type)
            return e;
    return kElements.front();
}

}  // namespace

std::string_view toString(ElementType type) {
    return info(type).spelling;
}

std::optional<ElementType> parseElementType(std::string_view text) {
    for (const auto& e : kElements)
        if (e.spelling == text)
            return e.type;
    if (text == "si8")
        return ElementType::I8;
    if (text == "si16")
        return ElementType::I16;
    if (text == "si32")
        return ElementType::I32;
    if (text == "si64")
        return ElementType::I64;
    return std::nullopt;
}

int bitWidth(ElementType type) {
    return info(type).bits;
}

bool isFloat(ElementType type) {
    switch (type) {
        case ElementType::F8E4M3FN:
        case ElementType::F8E5M2:
        case ElementType::F8E4M3FNUZ:
        case ElementType::F8E5M2FNUZ:
        case ElementType::F8E4M3B11FNUZ:
        case ElementType::BF16:
        case ElementType::F16:
        case ElementType::F32:
        case ElementType::F64:
            return true;
        default:
            return false;
    }
}

bool isComplex(ElementType type) {
    return type == ElementType::C64 || type == ElementType::C128;
}

bool isUnsigned(ElementType type) {
    switch (type) {
        case ElementType::U2:
        case ElementType::U4:
        case ElementType::U8:
        case ElementType::U16:
        case ElementType::U32:
        case ElementType::U64:
            return true;
        default:
            return false;
    }
}

bool isInteger(ElementType type) {
    switch (type) {
        case ElementType::I1:
        case ElementType::I2:
        case ElementType::I4:
        case ElementType::I8:
        case ElementType::I16:
        case ElementType::I32:
        case ElementType::I64:
            return true;
        default:
            return isUnsigned(type);
    }
}

std::int64_t elementCount(const Shape& shape) {
    for (auto d : shape)
        if (d == 0)
            return 0;
    std::int64_t n = 1;
    for (auto d : shape)
        if (__builtin_mul_overflow(n, d, &n))
            return std::numeric_limits<std::int64_t>::max();
    return n;
}

std::int64_t TensorType::bytes() const {
    // ceil(elements * bits / 8) as (elements / 8) * bits + ceil((elements % 8) * bits / 8), checked.
    const std::int64_t n = elements(), bits = bitWidth(element);
    std::int64_t bytes = 0;
    if (__builtin_mul_overflow(n / 8, bits, &bytes) ||
        __builtin_add_overflow(bytes, (n % 8 * bits + 7) / 8, &bytes))
        return std::numeric_limits<std::int64_t>::max();
    return bytes;
}

std::string shapeToString(const Shape& shape) {
    std::string out;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i)
            out += "x";
        out += std::to_string(shape[i]);
    }
    return out;
}

std::string TensorType::toString() const {
    std::string out = "tensor<";
    for (auto d : shape)
        out += std::to_string(d) + "x";
    out += ir::toString(element);
    out += ">";
    return out;
}

}  // namespace shardscope::ir
