// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// What the names of a model mean (docs/design.md, "Names and groups" item 3), for sources that do not label
// their dimensions: roles read from the model's structure, and the layer a per-layer name lives in read from
// the names the source carries (parameter paths, op locations) or from its repeated blocks. The expert plans
// find their names by these roles (`batch`, `seq`, `*.heads`, `*.d_ff`, `*.experts`, ...), as they do in the
// zoo's labelled models.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shardscope/analysis/decision_space.h"
#include "shardscope/analysis/layer_blocks.h"
#include "shardscope/ir/graph.h"

namespace shardscope::analysis {

enum class DimensionRole : std::uint8_t {
    None,
    Batch,    // leading dimension of the token or image input (else of the largest input)
    Seq,      // tokens per example: the token input's second dimension, attention's query and key positions
    DModel,   // the residual stream's width: embedding rows' width, what attention and MLP projections
              // contract
    Heads,    // attention heads: batched in q·kᵀ and in probabilities·v, beside the batch
    KvHeads,  // grouped-query attention: the heads keys and values have
    Group,    // grouped-query attention: query heads per key/value head (a query dimension the keys lack)
    HeadDim,  // contracted in q·kᵀ; the values' own width in probabilities·v
    DFf,    // MLP hidden width: made by a weight's dot, contracted by another weight's dot, never normalized
    Vocab,  // rows of the largest embedding table (a weight gathered by token ids)
    Experts,  // batched dimension of stacked expert weights (and the router's output of that size)
    Height,   // spatial dimensions and channels of the image input (its first convolution)
    Width,
    Channels,
};
// "batch", "seq", "d_model", "heads", "kv_heads", "group", "head_dim", "d_ff", "vocab", "experts", "height",
// "width", "channels"; "" for None.
std::string_view toString(DimensionRole role);

struct InferredLabel {
    DimensionRole role = DimensionRole::None;
    // Where a per-layer name lives ("layers.3.mlp", "encoder.layer.3.attention"); "" for model-wide names and
    // names that span several layers.
    std::string module;
    // "layers.3.mlp.d_ff", "batch"; "" without a role.
    std::string text() const;
    friend bool operator==(const InferredLabel&, const InferredLabel&) = default;
};

// The role and layer of every name of `space` (indexed by NameId). Assumes `space` has its atoms, names and
// dimensionAtoms (labels and groups are not read) and `blocks` is layerBlocks(graph). Reads the forward pass
// only (ops before graph.backwardStart, parameters rather than optimizer states), so a training step's names
// get their forward labels. A name keeps the first role found, in the order embeddings and inputs, attention,
// experts, MLP. Deterministic; linear in the graph's size (each dot looks a bounded distance back for its
// softmax).
std::vector<InferredLabel> inferDimensionRoles(const ir::Graph& graph, const DecisionSpace& space,
                                               const LayerBlocks& blocks);

}  // namespace shardscope::analysis
