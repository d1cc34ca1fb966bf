// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Element types and static tensor types of the graph IR (docs/design.md, "The graph IR").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope::ir {

enum class ElementType : std::uint8_t {
    I1,
    I2,
    I4,
    I8,
    I16,
    I32,
    I64,
    U2,
    U4,
    U8,
    U16,
    U32,
    U64,
    F8E4M3FN,
    F8E5M2,
    F8E4M3FNUZ,
    F8E5M2FNUZ,
    F8E4M3B11FNUZ,
    BF16,
    F16,
    F32,
    F64,
    C64,
    C128,
    Index,
    Token,
};

// The MLIR spelling ("f32", "bf16", "i1", "ui8", "complex<f32>", "f8E4M3FN", ...).
std::string_view toString(ElementType type);
std::optional<ElementType> parseElementType(std::string_view text);
// Storage bits of one element (i1 counts as 8 bits, as XLA stores it; token as 0).
int bitWidth(ElementType type);
bool isFloat(ElementType type);  // floating point, including f8 and bf16 (not complex)
bool isComplex(ElementType type);
bool isInteger(ElementType type);  // signed or unsigned, including i1
bool isUnsigned(ElementType type);

using Shape = std::vector<std::int64_t>;

// The most elements a tensor may have: 2^50, over 10^15 (4 PiB of f32), far past any tensor of a model. The
// verifier refuses a graph with a larger one, so sizes in a verified graph (up to 2^54 bytes) can be
// multiplied and summed without overflow.
inline constexpr std::int64_t kMaxTensorElements = std::int64_t{1} << 50;

// The product of the dimensions; saturates at INT64_MAX instead of overflowing (0 when a dimension is 0).
std::int64_t elementCount(const Shape& shape);

struct TensorType {
    Shape shape;
    ElementType element = ElementType::F32;

    int rank() const { return static_cast<int>(shape.size()); }
    std::int64_t elements() const { return elementCount(shape); }
    // Bytes of the whole (unsharded) tensor, rounded up to whole bytes; saturates at INT64_MAX.
    std::int64_t bytes() const;
    // "tensor<4x8xf32>".
    std::string toString() const;
    friend bool operator==(const TensorType&, const TensorType&) = default;
};

// "4x8" style, "" for a scalar; used in messages.
std::string shapeToString(const Shape& shape);

}  // namespace shardscope::ir
