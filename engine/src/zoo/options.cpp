// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "zoo/options.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace shardscope::zoo {
namespace {

// The largest value an integer option takes: a model of more layers than this builds a graph too large to
// plan, and a size past kMaxSize (batch, sequence, widths, vocabulary, pixels) is no model anyone trains.
// Sizes are checked again as tensors (no tensor may hold more than ir::kMaxTensorElements).
constexpr std::int64_t kMaxLayers = 1000;
constexpr std::int64_t kMaxSize = std::int64_t{1} << 24;

std::int64_t maximumOf(std::string_view key) {
    if (key == "layers")
        return kMaxLayers;
    if (key == "depth")
        return 15;
    return kMaxSize;
}

// The largest value of a real option; the smallest is the caller's.
double maximumOfReal(std::string_view key) {
    if (key == "dropout")
        return 1.0;
    if (key == "capacity_factor")
        return 1000.0;
    return 1e12;  // rope_theta and others: finite, and far above any value in use
}

std::string realText(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", v);
    return buffer;
}

}  // namespace

void Options::fail(const std::string& message) {
    if (!error_)
        error_ = makeError("zoo.option", "zoo:" + model_ + ": " + message);
}

void Options::require(bool condition, const std::string& message) {
    if (!condition)
        fail(message);
}

std::string Options::text(const std::string& key) {
    auto it = values_.find(key);
    if (it == values_.end()) {
        fail("missing option '" + key + "'");
        return {};
    }
    return it->second;
}

std::int64_t Options::integer(const std::string& key, std::int64_t min) {
    const std::string s = text(key);
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size()) {
        fail("option '" + key + "' must be an integer, got '" + s + "'");
        return min;
    }
    if (v < min || v > maximumOf(key)) {
        fail("option '" + key + "' must be an integer from " + std::to_string(min) + " to " +
             std::to_string(maximumOf(key)) + ", got " + s);
        return min;
    }
    return v;
}

double Options::real(const std::string& key, double min) {
    const std::string s = text(key);
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size()) {
        fail("option '" + key + "' must be a number, got '" + s + "'");
        return min;
    }
    if (!std::isfinite(v) || v < min || v > maximumOfReal(key)) {
        fail("option '" + key + "' must be a number from " + realText(min) + " to " +
             realText(maximumOfReal(key)) + ", got " + s);
        return min;
    }
    return v;
}

bool Options::boolean(const std::string& key) {
    const std::string s = text(key);
    if (s == "true" || s == "1" || s == "yes")
        return true;
    if (s == "false" || s == "0" || s == "no")
        return false;
    fail("option '" + key + "' must be true or false, got '" + s + "'");
    return false;
}

ir::ElementType Options::elementType(const std::string& key) {
    const std::string s = text(key);
    auto t = ir::parseElementType(s);
    if (!t || !ir::isFloat(*t)) {
        fail("option '" + key + "' must be a floating-point type (f32, bf16, f16, f64), got '" + s + "'");
        return ir::ElementType::F32;
    }
    return *t;
}

}  // namespace shardscope::zoo
