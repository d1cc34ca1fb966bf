// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// What the user tells an importer about a model file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace shardscope::import {

struct ImportOptions {
    // Values for symbolic dimensions (ONNX dim_param, e.g. {"batch", 8}), from `--dim name=value`.
    std::map<std::string, std::int64_t> dimensions;
    // StableHLO: the function to import (`--entry NAME`); empty means @main, else the only public function.
    std::string entryFunction;
    // StableHLO: calls are inlined, so functions that each call the next twice expand exponentially. An
    // import stops with an error naming the function once it has inlined more calls than this (all functions
    // together), or its graph has more ops. Far above real models (the largest met inline a few thousand
    // calls and have some 10^5 ops); an op costs about 1 KB and a few microseconds, so a runaway import stays
    // under 2 GB and seconds.
    std::size_t maxInlinedCalls = 100'000;
    std::size_t maxOps = 2'000'000;
    // The global sizes to plan the model at (`--set batch=256,seq=4096`, keys of analysis/resize.h):
    // loadModel resizes the graph it loads. Importers do not read them.
    std::map<std::string, std::int64_t> sizes;
};

}  // namespace shardscope::import
