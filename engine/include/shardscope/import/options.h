// What the user tells an importer about a model file.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace shardscope::import {

struct ImportOptions {
    // Values for symbolic dimensions (ONNX dim_param, e.g. {"batch", 8}), from `--dim name=value`.
    std::map<std::string, std::int64_t> dimensions;
};

}  // namespace shardscope::import
