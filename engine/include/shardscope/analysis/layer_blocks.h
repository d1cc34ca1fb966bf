// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The repeated blocks of a model (its layers) and the module paths they are read from. Rematerialization
// names blocks (plan.h), the cost model prices prefetch and recompute per block, and the analysis gives
// per-layer names their layer in their labels ("layers.3.mlp.d_ff").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shardscope/ir/graph.h"

namespace shardscope::analysis {

// The module path a source name spells, its components joined by '.':
//  - dotted names as they are: "model.layers.3.mlp.up_proj.weight";
//  - ONNX node names, '/' between scopes, where torch repeats a numbered child's parent:
//    "/encoder/layers.3/self_attn/MatMul" -> "encoder.layers.3.self_attn.MatMul",
//    "/layer1/layer1.0/conv1/Conv" -> "layer1.0.conv1.Conv";
//  - JAX name stacks without their transformations: "jit(f)/transformer/layer_3/mlp" ->
//  "transformer.layer_3.mlp";
//  - torch.compile's mangled names: "l__self___model_layers__modules__3___mlp_up_proj_weight" ->
//    "model_layers.3.mlp_up_proj.weight".
// "" for names that are no path: HLO instruction names ("reduce.376", "p3.19"), ONNX's generated names
// ("onnx::MatMul_12"), SSA names ("%arg4").
std::string modulePath(std::string_view sourceName);

// The components of a module path ("a.b.c" -> {"a", "b", "c"}); none for "".
std::vector<std::string> pathComponents(std::string_view path);

// Whether component `index` of `components` numbers a layer: a decimal ("3"), or, when it is not the last
// component, a block's name ending in '_' and a decimal ("encoder_layer_3", "layer_3", "Block_3"; not
// "Dense_1", which numbers layers of one kind inside a block, nor "conv1_w_0").
bool isLayerIndex(const std::vector<std::string>& components, std::size_t index);

// `path` with its layer indices replaced by '*': "layers.3.mlp" -> "layers.*.mlp",
// "encoder.encoder_layer_3.mlp" -> "encoder.encoder_layer_*.mlp". The role a module plays, whatever its
// layer.
std::string withoutLayerIndices(std::string_view path);

// The repeated blocks of a model.
//  - From the ops' source names where some name a layer: an op whose module path has a layer index after
//    another component ("layers.3.mlp.fc", "encoder.layer.11.attention",
//    "encoder.layers.encoder_layer_3.mlp") belongs to block "layers.3" (the path up to and including the
//    first such index) of family "layers.*"; a numbered stage's numbered blocks are the blocks
//    ("features.1.0" of family "features.1.*", Swin's and ConvNeXt's).
//  - Otherwise from structure: the longest run of at least two repetitions of one sequence of dots and
//    convolutions (by kind and types) in the forward ops makes blocks "layers.0", "layers.1", ... of family
//    "layers.*". Each block ends where the fewest values cross between its last dot and the next block's
//    first (the residual stream), so its norms and residual adds go with it; the first starts as far before
//    its first dot as the second, the last ends as far after its last dot as the one before it. In a training
//    step, a backward op joins the block of the forward values it reads (else of the gradients it reads), the
//    optimizer update the block of its gradient.
// A training step's named blocks that hold no forward op (only the optimizer update of parameters named by
// layer, in a model whose ops are not) are left out.
// Blocks and families are numbered in order of first appearance. Ops in no block: -1. Linear in the graph's
// size (the structural search tries block lengths of up to 512 dots).
struct LayerBlocks {
    std::vector<std::string> families;         // "layers.*"
    std::vector<std::string> blocks;           // "layers.3"
    std::vector<std::uint32_t> familyOfBlock;  // per block
    std::vector<std::int32_t> blockOfOp;       // per top-level op (index into graph.body); -1: no block
    bool structural = false;                   // found from the ops' repetition, not from names
    friend bool operator==(const LayerBlocks&, const LayerBlocks&) = default;
};
LayerBlocks layerBlocks(const ir::Graph& graph);

}  // namespace shardscope::analysis
