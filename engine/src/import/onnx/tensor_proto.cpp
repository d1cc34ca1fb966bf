// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// ONNX TensorProto and data types: decoding initializers and Constant values into ConstTensors.
#include <cmath>
#include <cstring>
#include <limits>

#include "import/onnx/importer.h"

namespace shardscope::import::onnx_import {

using ir::ElementType;

namespace {

float halfToFloat(std::uint16_t h) {
    const std::uint32_t sign = (h >> 15) & 1u, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    float magnitude;
    if (exponent == 0)
        magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    else if (exponent == 31)
        magnitude =
            mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    else
        magnitude = std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
    return sign ? -magnitude : magnitude;
}

float bfloat16ToFloat(std::uint16_t h) {
    const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// Bytes per element of an ONNX data type in raw_data; 0 for types without a fixed width.
std::size_t rawWidth(std::int32_t type) {
    switch (type) {
        case ::onnx::TensorProto_DataType_UINT8:
        case ::onnx::TensorProto_DataType_INT8:
        case ::onnx::TensorProto_DataType_BOOL:
            return 1;
        case ::onnx::TensorProto_DataType_UINT16:
        case ::onnx::TensorProto_DataType_INT16:
        case ::onnx::TensorProto_DataType_FLOAT16:
        case ::onnx::TensorProto_DataType_BFLOAT16:
            return 2;
        case ::onnx::TensorProto_DataType_FLOAT:
        case ::onnx::TensorProto_DataType_INT32:
        case ::onnx::TensorProto_DataType_UINT32:
            return 4;
        case ::onnx::TensorProto_DataType_INT64:
        case ::onnx::TensorProto_DataType_UINT64:
        case ::onnx::TensorProto_DataType_DOUBLE:
        case ::onnx::TensorProto_DataType_COMPLEX64:
            return 8;
        case ::onnx::TensorProto_DataType_COMPLEX128:
            return 16;
        default:
            return 0;
    }
}

template <typename T>
T readRaw(const std::string& raw, std::size_t index) {
    T v;
    std::memcpy(&v, raw.data() + index * sizeof(T), sizeof(T));
    return v;
}

// One element of raw_data as an integer or a real.
void decodeRawElement(std::int32_t type, const std::string& raw, std::size_t i, ConstTensor& out) {
    switch (type) {
        case ::onnx::TensorProto_DataType_UINT8:
            out.ints.push_back(readRaw<std::uint8_t>(raw, i));
            break;
        case ::onnx::TensorProto_DataType_INT8:
            out.ints.push_back(readRaw<std::int8_t>(raw, i));
            break;
        case ::onnx::TensorProto_DataType_BOOL:
            out.ints.push_back(readRaw<std::uint8_t>(raw, i) != 0);
            break;
        case ::onnx::TensorProto_DataType_UINT16:
            out.ints.push_back(readRaw<std::uint16_t>(raw, i));
            break;
        case ::onnx::TensorProto_DataType_INT16:
            out.ints.push_back(readRaw<std::int16_t>(raw, i));
            break;
        case ::onnx::TensorProto_DataType_INT32:
            out.ints.push_back(readRaw<std::int32_t>(raw, i));
            break;
        case ::onnx::TensorProto_DataType_UINT32:
            out.ints.push_back(readRaw<std::uint32_t>(raw, i));
            break;
        case ::onnx::TensorProto_DataType_INT64:
            out.ints.push_back(readRaw<std::int64_t>(raw, i));
            break;
        case ::onnx::TensorProto_DataType_UINT64:
            out.ints.push_back(static_cast<std::int64_t>(readRaw<std::uint64_t>(raw, i)));
            break;
        case ::onnx::TensorProto_DataType_FLOAT16:
            out.reals.push_back(halfToFloat(readRaw<std::uint16_t>(raw, i)));
            break;
        case ::onnx::TensorProto_DataType_BFLOAT16:
            out.reals.push_back(bfloat16ToFloat(readRaw<std::uint16_t>(raw, i)));
            break;
        case ::onnx::TensorProto_DataType_FLOAT:
            out.reals.push_back(readRaw<float>(raw, i));
            break;
        case ::onnx::TensorProto_DataType_DOUBLE:
            out.reals.push_back(readRaw<double>(raw, i));
            break;
        case ::onnx::TensorProto_DataType_COMPLEX64:
            out.reals.push_back(readRaw<float>(raw, 2 * i));
            break;
        case ::onnx::TensorProto_DataType_COMPLEX128:
            out.reals.push_back(readRaw<double>(raw, 2 * i));
            break;
        default:
            break;
    }
}

}  // namespace

std::optional<ElementType> elementTypeOf(std::int32_t onnxType) {
    switch (onnxType) {
        case ::onnx::TensorProto_DataType_FLOAT:
            return ElementType::F32;
        case ::onnx::TensorProto_DataType_UINT8:
            return ElementType::U8;
        case ::onnx::TensorProto_DataType_INT8:
            return ElementType::I8;
        case ::onnx::TensorProto_DataType_UINT16:
            return ElementType::U16;
        case ::onnx::TensorProto_DataType_INT16:
            return ElementType::I16;
        case ::onnx::TensorProto_DataType_INT32:
            return ElementType::I32;
        case ::onnx::TensorProto_DataType_INT64:
            return ElementType::I64;
        case ::onnx::TensorProto_DataType_BOOL:
            return ElementType::I1;
        case ::onnx::TensorProto_DataType_FLOAT16:
            return ElementType::F16;
        case ::onnx::TensorProto_DataType_DOUBLE:
            return ElementType::F64;
        case ::onnx::TensorProto_DataType_UINT32:
            return ElementType::U32;
        case ::onnx::TensorProto_DataType_UINT64:
            return ElementType::U64;
        case ::onnx::TensorProto_DataType_COMPLEX64:
            return ElementType::C64;
        case ::onnx::TensorProto_DataType_COMPLEX128:
            return ElementType::C128;
        case ::onnx::TensorProto_DataType_BFLOAT16:
            return ElementType::BF16;
        default:
            return std::nullopt;
    }
}

std::optional<ConstTensor> decodeTensor(const ::onnx::TensorProto& tensor, std::string& error) {
    const std::int32_t type = tensor.data_type();
    auto element = elementTypeOf(type);
    if (!element) {
        error = "has an unsupported element type (ONNX data type " + std::to_string(type) + ")";
        return std::nullopt;
    }
    ir::Shape shape(tensor.dims().begin(), tensor.dims().end());
    auto n = checkedElements(shape);
    if (!n) {
        error = "has an invalid shape [" + ir::shapeToString(shape) + "]";
        return std::nullopt;
    }
    if (tensor.data_location() == ::onnx::TensorProto_DataLocation_EXTERNAL || *n > kFoldLimit)
        return std::nullopt;
    const auto count = static_cast<std::size_t>(*n);
    ConstTensor out;
    out.element = *element;
    out.shape = shape;
    auto wrongCount = [&](std::size_t got, std::size_t expected) {
        error = "holds " + std::to_string(got) + " values for a tensor of " + std::to_string(expected);
        return std::nullopt;
    };
    if (tensor.has_raw_data()) {
        const std::string& raw = tensor.raw_data();
        const std::size_t width = rawWidth(type);
        if (width == 0 || raw.size() != count * width) {
            error = "has " + std::to_string(raw.size()) + " bytes of data for " + std::to_string(count) +
                    " elements";
            return std::nullopt;
        }
        for (std::size_t i = 0; i < count; ++i)
            decodeRawElement(type, raw, i, out);
        return out;
    }
    switch (type) {
        case ::onnx::TensorProto_DataType_FLOAT:
        case ::onnx::TensorProto_DataType_COMPLEX64: {
            const std::size_t stride = type == ::onnx::TensorProto_DataType_COMPLEX64 ? 2 : 1;
            if (static_cast<std::size_t>(tensor.float_data_size()) != count * stride)
                return wrongCount(static_cast<std::size_t>(tensor.float_data_size()), count * stride);
            for (std::size_t i = 0; i < count; ++i)
                out.reals.push_back(tensor.float_data(static_cast<int>(i * stride)));
            return out;
        }
        case ::onnx::TensorProto_DataType_DOUBLE:
        case ::onnx::TensorProto_DataType_COMPLEX128: {
            const std::size_t stride = type == ::onnx::TensorProto_DataType_COMPLEX128 ? 2 : 1;
            if (static_cast<std::size_t>(tensor.double_data_size()) != count * stride)
                return wrongCount(static_cast<std::size_t>(tensor.double_data_size()), count * stride);
            for (std::size_t i = 0; i < count; ++i)
                out.reals.push_back(tensor.double_data(static_cast<int>(i * stride)));
            return out;
        }
        case ::onnx::TensorProto_DataType_INT64:
            if (static_cast<std::size_t>(tensor.int64_data_size()) != count)
                return wrongCount(static_cast<std::size_t>(tensor.int64_data_size()), count);
            out.ints.assign(tensor.int64_data().begin(), tensor.int64_data().end());
            return out;
        case ::onnx::TensorProto_DataType_UINT32:
        case ::onnx::TensorProto_DataType_UINT64:
            if (static_cast<std::size_t>(tensor.uint64_data_size()) != count)
                return wrongCount(static_cast<std::size_t>(tensor.uint64_data_size()), count);
            for (auto v : tensor.uint64_data())
                out.ints.push_back(wrapInteger(*element, static_cast<std::int64_t>(v)));
            return out;
        default: {
            // int32_data carries the narrow integer types, bool, and the bits of float16 / bfloat16.
            if (static_cast<std::size_t>(tensor.int32_data_size()) != count)
                return wrongCount(static_cast<std::size_t>(tensor.int32_data_size()), count);
            for (auto v : tensor.int32_data()) {
                const auto bits = static_cast<std::uint16_t>(static_cast<std::uint32_t>(v) & 0xffffu);
                if (type == ::onnx::TensorProto_DataType_FLOAT16)
                    out.reals.push_back(halfToFloat(bits));
                else if (type == ::onnx::TensorProto_DataType_BFLOAT16)
                    out.reals.push_back(bfloat16ToFloat(bits));
                else
                    out.ints.push_back(wrapInteger(*element, v));
            }
            return out;
        }
    }
}

}  // namespace shardscope::import::onnx_import
