// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Where a model comes from: one entry point used by the CLI, the GUI and tests to turn what the user typed
// into a verified graph.
#pragma once

#include <string>
#include <string_view>

#include "shardscope/diagnostic.h"
#include "shardscope/import/options.h"
#include "shardscope/ir/graph.h"

namespace shardscope {

struct LoadedModel {
    std::string source;       // what was asked for ("zoo:gpt2-small", a file path)
    std::string displayName;  // short name for titles ("gpt2-small", "resnet50.onnx")
    std::string description;  // the resolved model (canonical zoo name, file format)
    ir::Graph graph;
};

// The model the GUI and the quick start open when given nothing.
inline constexpr std::string_view kDemoModel = "zoo:demo";

// Loads `source`: "zoo:NAME[:key=value,...]" builds from the zoo; anything else is a file path whose format
// (StableHLO text or ONNX) is told by its content. The graph is verified. Errors say what was expected and,
// for zoo names, what exists; warnings (ops imported as opaque, ...) come with the result. With
// `options.sizes` the graph is resized to them (analysis::resize; its errors) and a note (model.resized) says
// what changed; `options.dimensions` on a model without symbolic dimensions (StableHLO, the zoo) is an error
// (model.dimension).
Result<LoadedModel> loadModel(std::string_view source, const import::ImportOptions& options = {});

// The same for a file's bytes already in memory (a workspace's embedded model); `path` names it in errors.
Result<LoadedModel> loadModelBytes(std::string_view bytes, const std::string& path,
                                   const import::ImportOptions& options = {});

}  // namespace shardscope
