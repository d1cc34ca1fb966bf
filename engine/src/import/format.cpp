// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/import/format.h"

#include <cctype>

namespace shardscope::import {
namespace {

// `dialect.op` or `"dialect.op"`: the first op of a module MLIR wraps in an implicit `module` (`sdy.mesh
// @mesh = ...` before `func.func`, as Shardy's and tt-mlir's tests write).
bool startsWithOpName(std::string_view text) {
    std::size_t i = text.substr(0, 1) == "\"" ? 1 : 0;
    const auto isStart = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
    if (i >= text.size() || !isStart(text[i]))
        return false;
    bool dot = false;
    for (++i; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '.')
            dot = true;
        else if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '$')
            break;
    }
    return dot && text[i - 1] != '.';
}

}  // namespace

ModelFormat detectFormat(std::string_view bytes) {
    // Text: skip blanks and comments, then look at the first token.
    std::size_t i = 0;
    while (i < bytes.size()) {
        const char c = bytes[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            ++i;
        } else if (c == '/' && i + 1 < bytes.size() && bytes[i + 1] == '/') {
            while (i < bytes.size() && bytes[i] != '\n')
                ++i;
        } else {
            break;
        }
    }
    const std::string_view rest = bytes.substr(i);
    if (rest.empty())
        return ModelFormat::Empty;
    const bool mlirStart = rest.substr(0, 6) == "module" || rest.substr(0, 1) == "#" ||
                           rest.substr(0, 1) == "!" || startsWithOpName(rest);
    if (mlirStart && bytes.find("func.func") != std::string_view::npos)
        return ModelFormat::StableHlo;
    // ONNX: a protobuf ModelProto. Its first field is normally ir_version (field 1, varint: 0x08), then
    // opset_import (8: 0x42), producer_name (2: 0x12), graph (7: 0x3a)...
    if (!bytes.empty()) {
        const auto first = static_cast<unsigned char>(bytes[0]);
        const bool protobufKey = first == 0x08 || first == 0x12 || first == 0x1a || first == 0x22 ||
                                 first == 0x28 || first == 0x32 || first == 0x3a || first == 0x42 ||
                                 first == 0x52 || first == 0x72;
        bool binary = false;
        for (std::size_t k = 0; k < bytes.size() && k < 4096; ++k) {
            const auto b = static_cast<unsigned char>(bytes[k]);
            if (b < 0x09 || (b > 0x0d && b < 0x20)) {
                binary = true;
                break;
            }
        }
        if (protobufKey && binary)
            return ModelFormat::Onnx;
    }
    if (mlirStart)
        return ModelFormat::StableHlo;
    return ModelFormat::Unknown;
}

}  // namespace shardscope::import
