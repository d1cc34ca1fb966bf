// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Typed access to a model's resolved options; the first bad value is kept as the error to report.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "shardscope/diagnostic.h"
#include "shardscope/ir/types.h"

namespace shardscope::zoo {

class Options {
public:
    Options(std::string model, const std::map<std::string, std::string>& values)
        : model_(std::move(model)), values_(values) {}

    std::int64_t integer(const std::string& key, std::int64_t min = 1);
    double real(const std::string& key, double min = 0.0);
    bool boolean(const std::string& key);
    std::string text(const std::string& key);
    ir::ElementType elementType(const std::string& key);
    // Records a constraint violated by a combination of options.
    void require(bool condition, const std::string& message);

    const std::optional<Diagnostic>& error() const { return error_; }

private:
    void fail(const std::string& message);
    std::string model_;
    const std::map<std::string, std::string>& values_;
    std::optional<Diagnostic> error_;
};

}  // namespace shardscope::zoo
