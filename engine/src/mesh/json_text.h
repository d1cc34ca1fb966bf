// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// JSON reading and writing shared by the hardware and mesh formats (private to the mesh module).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shardscope/diagnostic.h"

namespace shardscope::mesh::detail {

// Parses `text` into `out`. On failure returns "<origin>: invalid JSON: <where and why>" under `code`.
std::optional<Diagnostic> parseJsonDocument(std::string_view text, std::string_view origin,
                                            const std::string& code, nlohmann::json& out);

// The first key of `object` that is not in `known` and does not start with '_' (a comment), if any.
std::optional<std::string> unknownKey(const nlohmann::json& object,
                                      std::initializer_list<std::string_view> known);

// object[key] as a finite number (integer or floating point); nullopt when missing, not a number, or not
// finite.
std::optional<double> numberAt(const nlohmann::json& object, std::string_view key);
// object[key] as an integer; a floating-point value counts when it is integral (8.0). nullopt otherwise.
std::optional<std::int64_t> integerAt(const nlohmann::json& object, std::string_view key);
// object[key] as a string; nullopt when missing or not a string.
std::optional<std::string> stringAt(const nlohmann::json& object, std::string_view key);

// The largest figure (FLOP/s, bytes, bytes/s, seconds) a profile or mesh may give: the cost model's sums and
// products of such figures stay finite.
inline constexpr double kLargestFigure = 1e30;
// Why `value` (finite, and >= 0 or > 0 as the caller checked) is no figure to compute with, or nullopt: a
// denormal ("1e-320 is too small to compute with"; dividing by it overflows), or past kLargestFigure.
std::optional<std::string> figureTrouble(double value);

// Whether `name` is an axis-style name: [A-Za-z_][A-Za-z0-9_]*.
bool isIdentifier(std::string_view name);

// Indented JSON text: objects and arrays one member per line, except objects and arrays of scalars short
// enough for one line; keys in insertion order; floating-point numbers in their shortest exact form
// ("9.89e+14").
std::string prettyJson(const nlohmann::ordered_json& value);

}  // namespace shardscope::mesh::detail
