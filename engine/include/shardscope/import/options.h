// What the user tells an importer about a model file.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace shardscope::import {

struct ImportOptions {
    // Values for symbolic dimensions (ONNX dim_param, e.g. {"batch", 8}), from `--dim name=value`.
    std::map<std::string, std::int64_t> dimensions;
    // StableHLO: the function to import (`--entry NAME`); empty means @main, else the only public function.
    std::string entryFunction;
};

}  // namespace shardscope::import
