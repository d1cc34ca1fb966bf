#include "zoo/options.h"

#include <charconv>

namespace shardscope::zoo {

void Options::fail(const std::string& message) {
    if (!error_) error_ = makeError("zoo.option", "zoo:" + model_ + ": " + message);
}

void Options::require(bool condition, const std::string& message) {
    if (!condition) fail(message);
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
    if (v < min) {
        fail("option '" + key + "' must be at least " + std::to_string(min) + ", got " + s);
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
    if (v < min) {
        fail("option '" + key + "' must be at least " + std::to_string(min) + ", got " + s);
        return min;
    }
    return v;
}

bool Options::boolean(const std::string& key) {
    const std::string s = text(key);
    if (s == "true" || s == "1" || s == "yes") return true;
    if (s == "false" || s == "0" || s == "no") return false;
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
