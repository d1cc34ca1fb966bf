// Lets QCOMPARE print engine values when a comparison fails (Qt Test finds toString by argument lookup).
#pragma once

#include <QtTest>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "shardscope/ir/graph.h"

namespace std {
inline char* toString(const std::string& s) { return qstrdup(s.c_str()); }
inline char* toString(const std::vector<std::string>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
    return qstrdup((out + "]").c_str());
}
inline char* toString(const std::vector<std::int64_t>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
    return qstrdup((out + "]").c_str());
}
template <typename K, typename V>
char* toString(const std::map<K, V>& m) {
    std::ostringstream out;
    out << "{";
    for (const auto& [k, v] : m) out << k << ": " << v << ", ";
    out << "}";
    return qstrdup(out.str().c_str());
}
}  // namespace std

namespace shardscope::ir {
inline char* toString(const TensorType& t) { return qstrdup(t.toString().c_str()); }
}  // namespace shardscope::ir
