// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Building blocks shared by the zoo's models: linear layers, norms, activations, attention, MLPs.
// Each creates its parameters under the builder's current scope.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shardscope/ir/builder.h"

namespace shardscope::zoo {

using ir::ElementType;
using ir::GraphBuilder;
using ir::ValueId;

// A scalar constant broadcast to `like`'s shape and element type.
ValueId filled(GraphBuilder& b, double value, ValueId like);
// Broadcasts `x` (whose dimensions are the leading dimensions of `shape`) to `shape`.
ValueId expandTrailing(GraphBuilder& b, ValueId x, const ir::Shape& shape);

// x [..., in] -> [..., out] with parameters `<name>.weight` [in, out] and, when `bias`, `<name>.bias` [out].
ValueId linear(GraphBuilder& b, ValueId x, std::int64_t out, bool bias, std::string_view name,
               std::vector<std::string> labels = {});
// Over the last dimension, with `<name>.scale` (and `<name>.bias` for layer norm).
ValueId layerNorm(GraphBuilder& b, ValueId x, std::string_view name, double epsilon = 1e-5);
ValueId rmsNorm(GraphBuilder& b, ValueId x, std::string_view name, double epsilon = 1e-5);
// Over dimension `dim`.
ValueId softmax(GraphBuilder& b, ValueId x, std::int64_t dim);
ValueId gelu(GraphBuilder& b, ValueId x);  // tanh approximation, as GPT-2
ValueId silu(GraphBuilder& b, ValueId x);
ValueId relu(GraphBuilder& b, ValueId x);

// Dropout with probability p as Megatron-LM applies it, under `name`: a keep mask
// compare(uniform [0, 1), p, GE) of x's shape and element type i1 ("<name>.mask"), then
// select(mask, x·1/(1-p), 0). The uniform draws are one f32 stablehlo.rng of x's element count reshaped to
// x's shape, whatever x's type. The mask depends on no parameter, and the backward pass of the select needs
// only the mask (1 byte per element), as Korthikanti et al. 2022 count it. Returns x itself when p is 0.
// Assumes 0 <= p < 1.
ValueId dropout(GraphBuilder& b, ValueId x, double p, std::string_view name);

struct AttentionConfig {
    std::int64_t heads = 1;
    std::int64_t kvHeads = 1;  // < heads: grouped-query attention
    std::int64_t headDim = 64;
    bool bias = true;
    bool causal = true;
    bool rope = false;
    double ropeTheta = 10000.0;
    double dropout = 0.0;  // on the attention probabilities (after the softmax, before the product with v)
};

// Self-attention over x [B, S, D] with projections q_proj, k_proj, v_proj, o_proj under `name`.
ValueId attention(GraphBuilder& b, ValueId x, const AttentionConfig& config, std::string_view name);

// Feed-forward blocks: fc -> gelu -> proj, and SwiGLU (gate_proj, up_proj, down_proj).
ValueId geluMlp(GraphBuilder& b, ValueId x, std::int64_t hidden, bool bias, std::string_view name);
ValueId swiGluMlp(GraphBuilder& b, ValueId x, std::int64_t hidden, std::string_view name);

struct MoeConfig {
    std::int64_t experts = 8;
    std::int64_t topK = 2;
    double capacityFactor = 1.25;
    std::int64_t sharedExperts = 0;  // experts every token goes through (DeepSeek's), as one SwiGLU MLP
};

// Multi-head latent attention (DeepSeek-V2/V3): queries through a low-rank bottleneck (q_a_proj [D, q_lora],
// RMSNorm, q_b_proj [q_lora, H·(nope + rope)]), keys and values from one compressed latent (kv_a_proj [D,
// kv_lora + rope], RMSNorm of the latent, kv_b_proj [kv_lora, H·(nope + v)]) plus one rotary key part shared
// by every head; o_proj [H·v, D].
struct MlaConfig {
    std::int64_t heads = 128;
    std::int64_t qLoraRank = 1536, kvLoraRank = 512;
    std::int64_t nopeDim = 128, ropeDim = 64, valueDim = 128;
    double ropeTheta = 10000.0;
};
ValueId mlaAttention(GraphBuilder& b, ValueId x, const MlaConfig& config, std::string_view name);

// GShard-style mixture of SwiGLU experts over x [G, S, D] (G groups of S tokens): a router, top-k gating with
// per-expert capacity C = ceil(k·S·factor/E), dispatch and combine masks [G, S, E, C], and the einsums
// gsec,gsd->egcd (dispatch), egcd,edf->egcf and egcf,efd->egcd (experts), gsec,egcd->gsd (combine).
ValueId moeMlp(GraphBuilder& b, ValueId x, std::int64_t hidden, const MoeConfig& config,
               std::string_view name);

}  // namespace shardscope::zoo
