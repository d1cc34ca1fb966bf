// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "mesh/json_text.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace shardscope::mesh::detail {
namespace {

const nlohmann::json* member(const nlohmann::json& object, std::string_view key) {
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

std::string quoted(const std::string& text) {
    // `replace` keeps invalid UTF-8 from throwing: the engine never throws across its API.
    return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string number(const nlohmann::ordered_json& value) {
    if (value.is_number_integer() || value.is_number_unsigned())
        return value.dump();
    const double v = value.get<double>();
    if (!std::isfinite(v))
        return "null";  // what JSON can say; parsing rejects it
    std::array<char, 32> buffer{};
    const auto [end, error] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), v);
    if (error != std::errc{})
        return value.dump();
    return std::string(buffer.data(), end);
}

bool isScalar(const nlohmann::ordered_json& value) {
    return !value.is_object() && !value.is_array();
}

void write(const nlohmann::ordered_json& value, int indent, std::string& out);

std::string scalar(const nlohmann::ordered_json& value) {
    if (value.is_string())
        return quoted(value.get<std::string>());
    if (value.is_number())
        return number(value);
    return value.dump();  // true, false, null
}

// `{"a": 1, "b": 2}` or `[1, 2]` when every member is a scalar and the line stays short; "" otherwise.
std::string oneLine(const nlohmann::ordered_json& value, int indent) {
    constexpr std::size_t kMaxLine = 110;
    std::string out = value.is_object() ? "{" : "[";
    bool first = true;
    for (auto it = value.begin(); it != value.end(); ++it) {
        if (!isScalar(*it))
            return {};
        if (!first)
            out += ", ";
        first = false;
        if (value.is_object())
            out += quoted(it.key()) + ": ";
        out += scalar(*it);
    }
    out += value.is_object() ? "}" : "]";
    return static_cast<std::size_t>(indent) + out.size() <= kMaxLine ? out : std::string{};
}

void write(const nlohmann::ordered_json& value, int indent, std::string& out) {
    if (isScalar(value)) {
        out += scalar(value);
        return;
    }
    if (value.empty()) {
        out += value.is_object() ? "{}" : "[]";
        return;
    }
    if (const std::string line = oneLine(value, indent); !line.empty()) {
        out += line;
        return;
    }
    const std::string inner(static_cast<std::size_t>(indent) + 2, ' ');
    out += value.is_object() ? "{\n" : "[\n";
    bool first = true;
    for (auto it = value.begin(); it != value.end(); ++it) {
        if (!first)
            out += ",\n";
        first = false;
        out += inner;
        if (value.is_object())
            out += quoted(it.key()) + ": ";
        write(*it, indent + 2, out);
    }
    out += "\n" + std::string(static_cast<std::size_t>(indent), ' ') + (value.is_object() ? "}" : "]");
}

}  // namespace

std::optional<Diagnostic> parseJsonDocument(std::string_view text, std::string_view origin,
                                            const std::string& code, nlohmann::json& out) {
    try {
        out = nlohmann::json::parse(text.begin(), text.end());
        return std::nullopt;
    } catch (const nlohmann::json::exception& e) {
        // "[json.exception.parse_error.101] parse error at line 1, column 2: ..." without the bracketed id.
        std::string why = e.what();
        if (const auto close = why.find("] ");
            !why.empty() && why.front() == '[' && close != std::string::npos)
            why.erase(0, close + 2);
        return makeError(code, std::string(origin) + ": invalid JSON: " + why);
    }
}

std::optional<std::string> unknownKey(const nlohmann::json& object,
                                      std::initializer_list<std::string_view> known) {
    for (auto it = object.begin(); it != object.end(); ++it) {
        const std::string& key = it.key();
        if (!key.empty() && key.front() == '_')
            continue;
        bool found = false;
        for (std::string_view k : known)
            found = found || k == key;
        if (!found)
            return key;
    }
    return std::nullopt;
}

std::optional<double> numberAt(const nlohmann::json& object, std::string_view key) {
    const nlohmann::json* value = member(object, key);
    if (!value || !value->is_number())
        return std::nullopt;
    const double v = value->get<double>();
    if (!std::isfinite(v))
        return std::nullopt;
    return v;
}

std::optional<std::int64_t> integerAt(const nlohmann::json& object, std::string_view key) {
    const nlohmann::json* value = member(object, key);
    if (!value)
        return std::nullopt;
    if (value->is_number_integer())
        return value->get<std::int64_t>();
    if (value->is_number_unsigned()) {
        const auto v = value->get<std::uint64_t>();
        if (v > static_cast<std::uint64_t>(INT64_MAX))
            return std::nullopt;
        return static_cast<std::int64_t>(v);
    }
    if (value->is_number_float()) {
        const double v = value->get<double>();
        // 2^62 keeps the conversion exact and in range.
        if (std::isfinite(v) && v == std::floor(v) && std::abs(v) <= 4.611686018427388e18)
            return static_cast<std::int64_t>(v);
    }
    return std::nullopt;
}

std::optional<std::string> stringAt(const nlohmann::json& object, std::string_view key) {
    const nlohmann::json* value = member(object, key);
    if (!value || !value->is_string())
        return std::nullopt;
    return value->get<std::string>();
}

std::optional<std::string> figureTrouble(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", value);  // a denormal's digits are few: 1e-320, not 9.99989e-321
    if (value != 0 && std::fabs(value) < std::numeric_limits<double>::min())
        return std::string(text) + " is too small to compute with";
    if (std::fabs(value) > kLargestFigure)
        return std::string(text) + " is too large (at most 1e+30)";
    return std::nullopt;
}

bool isIdentifier(std::string_view name) {
    if (name.empty())
        return false;
    auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
    if (!letter(name.front()))
        return false;
    for (char c : name)
        if (!letter(c) && !(c >= '0' && c <= '9'))
            return false;
    return true;
}

std::string prettyJson(const nlohmann::ordered_json& value) {
    std::string out;
    write(value, 0, out);
    out += "\n";
    return out;
}

}  // namespace shardscope::mesh::detail
