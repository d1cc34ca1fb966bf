// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "zoo/models.h"

#include <algorithm>
#include <optional>
#include <string>

#include "zoo/layers.h"

namespace shardscope::zoo {

using ir::ConvolutionAttributes;
using ir::Reducer;
using ir::Shape;

namespace {

Result<ir::Graph> finish(GraphBuilder&& b, Options& options) {
    if (options.error())
        return *options.error();
    return std::move(b).finish();
}

// Token embedding: gather rows of `table` [V, D] for tokens [B, S] -> [B, S, D].
ValueId embed(GraphBuilder& b, ValueId tokens, ValueId table) {
    const auto t = b.type(tokens);
    const auto d = b.type(table).shape[1];
    ValueId indices = b.reshape(tokens, {t.shape[0], t.shape[1], 1}, "embed");
    ir::GatherAttributes g;
    g.offsetDims = {2};
    g.collapsedSliceDims = {0};
    g.startIndexMap = {0};
    g.indexVectorDim = 2;
    g.sliceSizes = {1, d};
    return b.gather(table, indices, g, "embed");
}

// Decoder-only transformer shared by gpt, llama and moe.
struct DecoderConfig {
    std::int64_t layers, dModel, heads, kvHeads, dFf, seq, batch, vocab;
    ElementType dtype;
    bool tied;
    bool
        llamaStyle;  // RMSNorm, rotary embeddings, SwiGLU, no biases; else LayerNorm, learned positions, GELU
    double ropeTheta = 10000.0;
    double dropout = 0.0;       // per layer on the attention probabilities, the attention and the MLP outputs
    std::int64_t moeEvery = 0;  // every n-th layer (1-based) uses experts; 0 = none
    MoeConfig moe;
    std::int64_t headDim = 0;      // per head; 0: d_model / heads
    std::int64_t denseLayers = 0;  // the first layers have a dense MLP even when the others have experts
    std::int64_t denseDff = 0;     // the dense MLPs' width in a model with experts; 0: d_ff
    std::optional<MlaConfig> mla;  // multi-head latent attention instead of grouped-query attention
    bool scan = false;             // the layers as a while loop over stacked weights
};

Result<ir::Graph> buildDecoder(const std::string& name, const DecoderConfig& c, Options& options) {
    options.require(c.headDim > 0 || c.dModel % c.heads == 0,
                    "d_model (" + std::to_string(c.dModel) + ") must be divisible by heads (" +
                        std::to_string(c.heads) + "), or head_dim given");
    options.require(c.heads % c.kvHeads == 0, "heads (" + std::to_string(c.heads) +
                                                  ") must be divisible by kv_heads (" +
                                                  std::to_string(c.kvHeads) + ")");
    const std::int64_t headDim = c.headDim > 0 ? c.headDim : c.dModel / std::max<std::int64_t>(c.heads, 1);
    options.require(!c.llamaStyle || headDim % 2 == 0, "rotary embeddings need an even head dimension");
    options.require(!c.mla || c.mla->ropeDim % 2 == 0, "rotary embeddings need an even qk_rope_dim");
    options.require(!c.scan || c.denseLayers == 0,
                    "scan=true needs every layer alike: dense_layers must be 0");
    options.require(c.dropout < 1.0, "dropout must be below 1, got " + std::to_string(c.dropout));
    if (c.moeEvery > 0)
        options.require(c.moe.topK <= c.moe.experts, "top_k must not exceed experts");
    options.require(!c.scan || c.moeEvery <= 1,
                    "scan=true needs every layer alike: moe_every must be 1 (or 0)");
    GraphBuilder b(name, "zoo:" + name);
    if (options.error())
        return *options.error();

    ValueId tokens = b.input("tokens", {c.batch, c.seq}, ElementType::I32, {"batch", "seq"});
    ValueId wte = b.parameter("embed.weight", {c.vocab, c.dModel}, c.dtype, {"vocab", "d_model"});
    ValueId x = embed(b, tokens, wte);
    const Shape activation{c.batch, c.seq, c.dModel};
    if (!c.llamaStyle) {
        ValueId wpe = b.parameter("pos_embed.weight", {c.seq, c.dModel}, c.dtype, {"seq", "d_model"});
        x = b.add(x, b.broadcastInDim(wpe, activation, {1, 2}, "pos_embed"), "pos_embed");
    }
    AttentionConfig attention{c.heads, c.kvHeads, headDim, !c.llamaStyle, true, c.llamaStyle, c.ropeTheta};
    attention.dropout = c.dropout;
    // Dropout where Megatron-LM has it (Korthikanti et al. 2022, Fig. 2): on the attention probabilities, and
    // on each block's output before its residual add. The embedding dropout is left out.
    auto block = [&](ValueId r, std::int64_t layer) {
        ValueId h = c.llamaStyle ? rmsNorm(b, r, "attn_norm") : layerNorm(b, r, "attn_norm");
        ValueId attended =
            c.mla ? mlaAttention(b, h, *c.mla, "attn") : zoo::attention(b, h, attention, "attn");
        r = b.add(r, dropout(b, attended, c.dropout, "attn_dropout"), "residual");
        h = c.llamaStyle ? rmsNorm(b, r, "mlp_norm") : layerNorm(b, r, "mlp_norm");
        ValueId y;
        const bool experts = c.moeEvery > 0 && layer >= c.denseLayers && (layer + 1) % c.moeEvery == 0;
        const std::int64_t denseWidth = c.moeEvery > 0 && c.denseDff > 0 ? c.denseDff : c.dFf;
        if (experts)
            y = moeMlp(b, h, c.dFf, c.moe, "moe");
        else if (c.llamaStyle)
            y = swiGluMlp(b, h, denseWidth, "mlp");
        else
            y = geluMlp(b, h, c.dFf, true, "mlp");
        return b.add(r, dropout(b, y, c.dropout, "mlp_dropout"), "residual");
    };
    if (c.scan) {
        // for i in 0..layers: x = block(x, weights[i]), with every weight stacked over the layers.
        const ir::TensorType counter{{}, ElementType::I32};
        const ir::TensorType carried = b.type(x);
        ir::Region cond = b.region({counter, carried}, [&](const std::vector<ValueId>& a) {
            return std::vector<ValueId>{b.compare(a[0], b.constant(static_cast<double>(c.layers), counter),
                                                  ir::CompareDirection::LT)};
        });
        ir::Region body = b.region({counter, carried}, [&](const std::vector<ValueId>& a) {
            auto scope = b.scope("layers");
            b.stackParameters(c.layers, a[0]);
            ValueId out = block(a[1], 0);
            b.stackParameters(0, {});
            return std::vector<ValueId>{b.add(a[0], b.constant(1, counter)), out};
        });
        auto results = b.op(ir::OpKind::While, {b.constant(0, counter), x},
                            ir::LoopAttributes{c.layers, true}, "layers", {std::move(cond), std::move(body)});
        x = results.size() == 2 ? results[1] : ValueId{};
    } else {
        for (std::int64_t layer = 0; layer < c.layers; ++layer) {
            auto scope = b.scope("layers." + std::to_string(layer));
            x = block(x, layer);
        }
    }
    x = c.llamaStyle ? rmsNorm(b, x, "final_norm") : layerNorm(b, x, "final_norm");
    ValueId logits;
    if (c.tied) {
        logits = b.einsum("bsd,vd->bsv", x, wte, "lm_head");
    } else {
        logits = linear(b, x, c.vocab, false, "lm_head", {"d_model", "vocab"});
    }
    b.output(logits, "logits");
    return finish(std::move(b), options);
}

DecoderConfig decoderOptions(Options& o, bool llamaStyle) {
    DecoderConfig c{};
    c.layers = o.integer("layers");
    c.dModel = o.integer("d_model");
    c.heads = o.integer("heads");
    c.kvHeads = llamaStyle ? o.integer("kv_heads") : c.heads;
    c.dFf = o.integer("d_ff", 0);
    if (c.dFf == 0)
        c.dFf = 4 * c.dModel;
    c.seq = o.integer("seq");
    c.batch = o.integer("batch");
    c.vocab = o.integer("vocab");
    c.dtype = o.elementType("dtype");
    c.tied = o.boolean("tied");
    c.llamaStyle = llamaStyle;
    c.dropout = o.real("dropout", 0.0);
    c.scan = o.boolean("scan");
    if (llamaStyle) {
        c.ropeTheta = o.real("rope_theta", 1.0);
        c.headDim = o.integer("head_dim", 0);
        const std::string attention = o.text("attention");
        o.require(attention == "gqa" || attention == "mla",
                  "attention must be gqa or mla, got '" + attention + "'");
        if (attention == "mla") {
            MlaConfig mla;
            mla.heads = c.heads;
            mla.qLoraRank = o.integer("q_lora_rank");
            mla.kvLoraRank = o.integer("kv_lora_rank");
            mla.nopeDim = o.integer("qk_nope_dim");
            mla.ropeDim = o.integer("qk_rope_dim");
            mla.valueDim = o.integer("v_head_dim");
            mla.ropeTheta = c.ropeTheta;
            c.mla = mla;
        }
    }
    return c;
}

}  // namespace

Result<ir::Graph> buildMlp(Options& o) {
    const auto batch = o.integer("batch"), width = o.integer("d_model"), hidden = o.integer("d_ff");
    const auto layers = o.integer("layers");
    const auto dtype = o.elementType("dtype");
    const bool bias = o.boolean("bias");
    const std::string activation = o.text("activation");
    o.require(activation == "relu" || activation == "gelu",
              "activation must be relu or gelu, got '" + activation + "'");
    GraphBuilder b("mlp", "zoo:mlp");
    if (o.error())
        return *o.error();
    ValueId x = b.input("x", {batch, width}, dtype, {"batch", "d_model"});
    for (std::int64_t layer = 0; layer < layers; ++layer) {
        auto scope = b.scope("layers." + std::to_string(layer));
        ValueId h = linear(b, x, hidden, bias, "w1", {"d_model", "d_ff"});
        h = activation == "relu" ? relu(b, h) : gelu(b, h);
        x = linear(b, h, width, bias, "w2", {"d_ff", "d_model"});
    }
    b.output(x, "y");
    return finish(std::move(b), o);
}

Result<ir::Graph> buildGpt(Options& o) {
    return buildDecoder("gpt", decoderOptions(o, false), o);
}

Result<ir::Graph> buildLlama(Options& o) {
    return buildDecoder("llama", decoderOptions(o, true), o);
}

Result<ir::Graph> buildMoe(Options& o) {
    DecoderConfig c = decoderOptions(o, true);
    c.moeEvery = o.integer("moe_every");
    c.moe.experts = o.integer("experts");
    c.moe.topK = o.integer("top_k");
    c.moe.capacityFactor = o.real("capacity_factor", 0.01);
    c.moe.sharedExperts = o.integer("shared_experts", 0);
    c.denseLayers = o.integer("dense_layers", 0);
    c.denseDff = o.integer("dense_d_ff", 0);
    return buildDecoder("moe", c, o);
}

Result<ir::Graph> buildVit(Options& o) {
    const auto image = o.integer("image"), patch = o.integer("patch"), channels = o.integer("channels");
    const auto layers = o.integer("layers"), width = o.integer("d_model"), heads = o.integer("heads");
    const auto hidden = o.integer("d_ff"), classes = o.integer("classes"), batch = o.integer("batch");
    const auto dtype = o.elementType("dtype");
    o.require(image % patch == 0, "image (" + std::to_string(image) + ") must be divisible by patch (" +
                                      std::to_string(patch) + ")");
    o.require(width % heads == 0, "d_model must be divisible by heads");
    GraphBuilder b("vit", "zoo:vit");
    if (o.error())
        return *o.error();
    const std::int64_t grid = image / patch, patches = grid * grid, tokens = patches + 1;

    ValueId pixels =
        b.input("images", {batch, image, image, channels}, dtype, {"batch", "height", "width", "channels"});
    ValueId kernel = b.parameter("patch_embed.weight", {patch, patch, channels, width}, dtype,
                                 {"patch_h", "patch_w", "channels", "d_model"});
    ConvolutionAttributes conv = ConvolutionAttributes::channelsLast();
    conv.windowStrides = {patch, patch};
    ValueId x = b.convolution(pixels, kernel, conv, "patch_embed");
    ValueId patchBias = b.parameter("patch_embed.bias", {width}, dtype, {"d_model"});
    x = b.add(x, b.broadcastTo(patchBias, b.type(x).shape, "patch_embed"), "patch_embed");
    x = b.reshape(x, {batch, patches, width}, "patch_embed");
    ValueId cls = b.parameter("cls_token", {width}, dtype, {"d_model"});
    x = b.concatenate({b.broadcastInDim(cls, {batch, 1, width}, {2}, "cls"), x}, 1, "cls");
    ValueId positions = b.parameter("pos_embed", {tokens, width}, dtype, {"tokens", "d_model"});
    x = b.add(x, b.broadcastInDim(positions, {batch, tokens, width}, {1, 2}, "pos_embed"), "pos_embed");
    AttentionConfig attention{heads, heads, width / heads, true, false, false, 10000.0};
    for (std::int64_t layer = 0; layer < layers; ++layer) {
        auto scope = b.scope("layers." + std::to_string(layer));
        x = b.add(x, zoo::attention(b, layerNorm(b, x, "attn_norm", 1e-6), attention, "attn"), "residual");
        x = b.add(x, geluMlp(b, layerNorm(b, x, "mlp_norm", 1e-6), hidden, true, "mlp"), "residual");
    }
    x = layerNorm(b, x, "final_norm", 1e-6);
    ValueId pooled =
        b.reshape(b.slice(x, {0, 0, 0}, {batch, 1, width}, {}, "cls_pool"), {batch, width}, "cls_pool");
    b.output(linear(b, pooled, classes, true, "head", {"d_model", "classes"}), "logits");
    return finish(std::move(b), o);
}

namespace {

ConvolutionAttributes nhwc(std::int64_t kernel, std::int64_t stride = 1) {
    ConvolutionAttributes c = ConvolutionAttributes::channelsLast();
    c.windowStrides = {stride, stride};
    const std::int64_t pad = (kernel - 1) / 2;
    c.padding = {{pad, kernel - 1 - pad}, {pad, kernel - 1 - pad}};
    return c;
}

// kxk convolution (same padding) with bias, under `name`.
ValueId conv(GraphBuilder& b, ValueId x, std::int64_t out, std::int64_t kernel, std::string_view name,
             ConvolutionAttributes attributes) {
    auto scope = b.scope(name);
    const auto t = b.type(x);
    ValueId w = b.parameter("weight", {kernel, kernel, t.shape[3], out}, t.element,
                            {"kernel_h", "kernel_w", "in_channels", "out_channels"});
    ValueId y = b.convolution(x, w, std::move(attributes), "conv");
    ValueId bias = b.parameter("bias", {out}, t.element, {"out_channels"});
    return b.add(y, b.broadcastTo(bias, b.type(y).shape));
}

ValueId doubleConv(GraphBuilder& b, ValueId x, std::int64_t out, std::string_view name) {
    auto scope = b.scope(name);
    x = relu(b, conv(b, x, out, 3, "conv1", nhwc(3)));
    return relu(b, conv(b, x, out, 3, "conv2", nhwc(3)));
}

}  // namespace

Result<ir::Graph> buildUnet(Options& o) {
    const auto image = o.integer("image"), channels = o.integer("channels"), classes = o.integer("classes");
    const auto base = o.integer("base"), depth = o.integer("depth", 1), batch = o.integer("batch");
    const auto dtype = o.elementType("dtype");
    o.require(
        depth < 16 && image % (std::int64_t{1} << depth) == 0,
        "image (" + std::to_string(image) + ") must be divisible by 2^depth (" + std::to_string(depth) + ")");
    GraphBuilder b("unet", "zoo:unet");
    if (o.error())
        return *o.error();
    ValueId x =
        b.input("images", {batch, image, image, channels}, dtype, {"batch", "height", "width", "channels"});
    std::vector<ValueId> skips;
    std::int64_t width = base;
    x = doubleConv(b, x, width, "down.0");
    for (std::int64_t level = 1; level <= depth; ++level) {
        skips.push_back(x);
        ir::WindowAttributes pool;
        pool.windowDimensions = {1, 2, 2, 1};
        pool.windowStrides = {1, 2, 2, 1};
        pool.reducer = Reducer::Maximum;
        x = b.reduceWindow(x, pool, "down." + std::to_string(level) + ".pool");
        width *= 2;
        x = doubleConv(b, x, width, "down." + std::to_string(level));
    }
    for (std::int64_t level = depth - 1; level >= 0; --level) {
        auto scope = b.scope("up." + std::to_string(level));
        width /= 2;
        // 2x2 transposed convolution: a convolution over the input dilated by 2.
        ConvolutionAttributes transposed = nhwc(2);
        transposed.padding = {{1, 1}, {1, 1}};
        transposed.lhsDilation = {2, 2};
        x = conv(b, x, width, 2, "upconv", transposed);
        x = b.concatenate({skips[static_cast<std::size_t>(level)], x}, 3, "skip");
        x = doubleConv(b, x, width, "block");
    }
    b.output(conv(b, x, classes, 1, "head", nhwc(1)), "segmentation");
    return finish(std::move(b), o);
}

}  // namespace shardscope::zoo
