// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "zoo/layers.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace shardscope::zoo {

using ir::CompareDirection;
using ir::Dims;
using ir::OpKind;
using ir::Reducer;
using ir::Shape;
using ir::TensorType;

namespace {

Dims leading(int n) {
    Dims d;
    for (int i = 0; i < n; ++i)
        d.push_back(i);
    return d;
}

// Mean over the last dimension, broadcast back to x's shape.
ValueId meanLast(GraphBuilder& b, ValueId x) {
    const auto shape = b.type(x).shape;
    const int last = static_cast<int>(shape.size()) - 1;
    ValueId sum = b.reduce(x, {last}, Reducer::Add);
    ValueId mean = b.divide(sum, filled(b, static_cast<double>(shape.back()), sum));
    return expandTrailing(b, mean, shape);
}

}  // namespace

ValueId filled(GraphBuilder& b, double value, ValueId like) {
    if (b.failed())
        return {};
    const auto& t = b.type(like);
    ValueId s = b.scalar(value, t.element);
    return t.shape.empty() ? s : b.broadcastInDim(s, t.shape, {});
}

ValueId expandTrailing(GraphBuilder& b, ValueId x, const Shape& shape) {
    if (b.failed())
        return {};
    return b.broadcastInDim(x, shape, leading(b.type(x).rank()));
}

ValueId linear(GraphBuilder& b, ValueId x, std::int64_t out, bool bias, std::string_view name,
               std::vector<std::string> labels) {
    if (b.failed())
        return {};
    auto scope = b.scope(name);
    const auto in = b.type(x);
    const std::int64_t last = in.rank() - 1;
    ValueId w = b.parameter("weight", {in.shape.back(), out}, in.element, labels);
    ValueId y = b.dotGeneral(x, w, {{}, {}, {last}, {0}}, "matmul");
    if (!bias)
        return y;
    std::vector<std::string> biasLabels;
    if (labels.size() == 2)
        biasLabels = {labels[1]};
    ValueId bv = b.parameter("bias", {out}, in.element, biasLabels);
    return b.add(y, b.broadcastTo(bv, b.type(y).shape), "bias");
}

ValueId layerNorm(GraphBuilder& b, ValueId x, std::string_view name, double epsilon) {
    if (b.failed())
        return {};
    auto scope = b.scope(name);
    const auto t = b.type(x);
    ValueId centred = b.subtract(x, meanLast(b, x));
    ValueId variance = meanLast(b, b.multiply(centred, centred));
    ValueId inv = b.unary(OpKind::Rsqrt, b.add(variance, filled(b, epsilon, variance)));
    ValueId normed = b.multiply(centred, inv);
    ValueId scale = b.parameter("scale", {t.shape.back()}, t.element);
    ValueId shift = b.parameter("bias", {t.shape.back()}, t.element);
    return b.add(b.multiply(normed, b.broadcastTo(scale, t.shape)), b.broadcastTo(shift, t.shape));
}

ValueId rmsNorm(GraphBuilder& b, ValueId x, std::string_view name, double epsilon) {
    if (b.failed())
        return {};
    auto scope = b.scope(name);
    const auto t = b.type(x);
    ValueId meanSquare = meanLast(b, b.multiply(x, x));
    ValueId inv = b.unary(OpKind::Rsqrt, b.add(meanSquare, filled(b, epsilon, meanSquare)));
    ValueId scale = b.parameter("scale", {t.shape.back()}, t.element);
    return b.multiply(b.multiply(x, inv), b.broadcastTo(scale, t.shape));
}

ValueId softmax(GraphBuilder& b, ValueId x, std::int64_t dim) {
    if (b.failed())
        return {};
    const auto shape = b.type(x).shape;
    Dims keep;
    for (std::int64_t d = 0; d < static_cast<std::int64_t>(shape.size()); ++d)
        if (d != dim)
            keep.push_back(d);
    ValueId max = b.reduce(x, {dim}, Reducer::Maximum, "softmax.max");
    ValueId shifted = b.subtract(x, b.broadcastInDim(max, shape, keep));
    ValueId e = b.unary(OpKind::Exponential, shifted, "softmax.exp");
    ValueId sum = b.reduce(e, {dim}, Reducer::Add, "softmax.sum");
    return b.divide(e, b.broadcastInDim(sum, shape, keep), "softmax");
}

ValueId gelu(GraphBuilder& b, ValueId x) {
    if (b.failed())
        return {};
    // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
    ValueId cube = b.multiply(b.multiply(x, x), x);
    ValueId inner = b.add(x, b.multiply(filled(b, 0.044715, x), cube));
    ValueId t = b.unary(OpKind::Tanh, b.multiply(filled(b, std::sqrt(2.0 / std::numbers::pi), x), inner));
    ValueId half = b.multiply(filled(b, 0.5, x), x);
    return b.multiply(half, b.add(filled(b, 1.0, x), t), "gelu");
}

ValueId silu(GraphBuilder& b, ValueId x) {
    return b.multiply(x, b.unary(OpKind::Logistic, x), "silu");
}

ValueId relu(GraphBuilder& b, ValueId x) {
    return b.maximum(x, filled(b, 0.0, x), "relu");
}

ValueId dropout(GraphBuilder& b, ValueId x, double p, std::string_view name) {
    if (b.failed())
        return {};
    if (p <= 0.0)
        return x;
    auto scope = b.scope(name);
    const auto t = b.type(x);
    // One flat stream of draws reshaped to x's shape, as JAX's threefry makes its bits: rng's shape operand
    // is then a 1-element tensor, which adds no dimension (and so no name) to the analysis.
    const std::int64_t count = t.elements();
    auto shape = b.op(OpKind::Constant, {}, ir::ConstantAttributes{{static_cast<double>(count)}}, "shape", {},
                      {TensorType{{1}, ElementType::I64}});
    if (shape.empty())
        return {};
    ValueId lo = b.scalar(0.0, ElementType::F32), hi = b.scalar(1.0, ElementType::F32);
    auto draws = b.op(OpKind::Rng, {lo, hi, shape.front()}, ir::NoAttributes{}, "uniform", {},
                      {TensorType{{count}, ElementType::F32}});
    if (draws.empty())
        return {};
    ValueId uniform = b.reshape(draws.front(), t.shape, "uniform");
    ValueId keep = b.compare(uniform, filled(b, p, uniform), CompareDirection::GE, "mask");
    ValueId scaled = b.multiply(x, filled(b, 1.0 / (1.0 - p), x), "scale");
    return b.select(keep, scaled, filled(b, 0.0, x));
}

namespace {

// Rotary position embedding over the last dimension of x [B, S, ..., Dh] (rotate-half form).
ValueId applyRope(GraphBuilder& b, ValueId x, double theta) {
    if (b.failed())
        return {};
    const auto t = b.type(x);
    const std::int64_t seq = t.shape[1], dh = t.shape.back(), half = dh / 2;
    // angles[s, i] = s · theta^(-2i/Dh), duplicated to Dh columns.
    std::vector<double> inverse(static_cast<std::size_t>(half));
    for (std::int64_t i = 0; i < half; ++i)
        inverse[i] = std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(dh));
    ValueId positions =
        b.convert(b.iota(TensorType{{seq, half}, ir::ElementType::I32}, 0), ir::ElementType::F32);
    auto freqs = b.op(OpKind::Constant, {}, ir::ConstantAttributes{inverse}, "rope.inv_freq", {},
                      {TensorType{{half}, ir::ElementType::F32}});
    if (freqs.empty())
        return {};
    ValueId angles = b.multiply(positions, b.broadcastInDim(freqs.front(), {seq, half}, {1}));
    angles = b.concatenate({angles, angles}, 1);
    ValueId cos = b.convert(b.unary(OpKind::Cosine, angles, "rope.cos"), t.element);
    ValueId sin = b.convert(b.unary(OpKind::Sine, angles, "rope.sin"), t.element);
    const int rank = t.rank();
    ValueId cosB = b.broadcastInDim(cos, t.shape, {1, rank - 1});
    ValueId sinB = b.broadcastInDim(sin, t.shape, {1, rank - 1});
    Dims start(rank, 0), mid = t.shape, end = t.shape;
    mid[rank - 1] = half;
    ValueId x1 = b.slice(x, start, mid);
    start[rank - 1] = half;
    ValueId x2 = b.slice(x, start, end);
    ValueId rotated = b.concatenate({b.unary(OpKind::Negate, x2), x1}, rank - 1);
    return b.add(b.multiply(x, cosB), b.multiply(rotated, sinB), "rope");
}

// Lower-triangular mask [S, S]: position s may attend to t <= s.
ValueId causalMask(GraphBuilder& b, std::int64_t seq) {
    ValueId rows = b.iota(TensorType{{seq, seq}, ir::ElementType::I32}, 0);
    ValueId cols = b.iota(TensorType{{seq, seq}, ir::ElementType::I32}, 1);
    return b.compare(rows, cols, CompareDirection::GE, "causal_mask");
}

}  // namespace

ValueId attention(GraphBuilder& b, ValueId x, const AttentionConfig& c, std::string_view name) {
    if (b.failed())
        return {};
    auto scope = b.scope(name);
    const auto t = b.type(x);
    const std::int64_t B = t.shape[0], S = t.shape[1], D = t.shape[2];
    const std::int64_t H = c.heads, KV = c.kvHeads, Dh = c.headDim, G = H / KV;
    const bool grouped = KV != H;
    // Dimension labels name the atoms the reshapes below split these dimensions into (major*minor).
    const std::string queryHeads = grouped ? "kv_heads*group*head_dim" : "heads*head_dim";
    const std::string keyHeads = grouped ? "kv_heads*head_dim" : "heads*head_dim";
    ValueId q = linear(b, x, H * Dh, c.bias, "q_proj", {"d_model", queryHeads});
    ValueId k = linear(b, x, KV * Dh, c.bias, "k_proj", {"d_model", keyHeads});
    ValueId v = linear(b, x, KV * Dh, c.bias, "v_proj", {"d_model", keyHeads});
    q = grouped ? b.reshape(q, {B, S, KV, G, Dh}) : b.reshape(q, {B, S, H, Dh});
    k = b.reshape(k, {B, S, KV, Dh});
    v = b.reshape(v, {B, S, KV, Dh});
    if (c.rope) {
        q = applyRope(b, q, c.ropeTheta);
        k = applyRope(b, k, c.ropeTheta);
    }
    ValueId scores =
        grouped ? b.einsum("bskgd,btkd->bkgst", q, k, "scores") : b.einsum("bshd,bthd->bhst", q, k, "scores");
    scores = b.multiply(scores, filled(b, 1.0 / std::sqrt(static_cast<double>(Dh)), scores), "scale");
    const auto scoreShape = b.type(scores).shape;
    const int rank = static_cast<int>(scoreShape.size());
    if (c.causal) {
        ValueId mask = b.broadcastInDim(causalMask(b, S), scoreShape, {rank - 2, rank - 1});
        ValueId masked = filled(b, -std::numeric_limits<double>::infinity(), scores);
        scores = b.select(mask, scores, masked, "mask");
    }
    ValueId probs = dropout(b, softmax(b, scores, rank - 1), c.dropout, "probs_dropout");
    ValueId context = grouped ? b.einsum("bkgst,btkd->bskgd", probs, v, "context")
                              : b.einsum("bhst,bthd->bshd", probs, v, "context");
    context = b.reshape(context, {B, S, H * Dh});
    return linear(b, context, D, c.bias, "o_proj", {queryHeads, "d_model"});
}

ValueId mlaAttention(GraphBuilder& b, ValueId x, const MlaConfig& c, std::string_view name) {
    if (b.failed())
        return {};
    auto scope = b.scope(name);
    const auto t = b.type(x);
    const std::int64_t B = t.shape[0], S = t.shape[1], D = t.shape[2], H = c.heads;
    const std::int64_t qk = c.nopeDim + c.ropeDim;
    ValueId q = rmsNorm(b, linear(b, x, c.qLoraRank, false, "q_a_proj", {"d_model", "q_lora"}), "q_a_norm");
    q = b.reshape(linear(b, q, H * qk, false, "q_b_proj", {"q_lora", "heads*qk_head_dim"}), {B, S, H, qk});
    Dims start{0, 0, 0, 0}, split{B, S, H, c.nopeDim}, end{B, S, H, qk};
    ValueId qNope = b.slice(q, start, split);
    ValueId qRope = applyRope(b, b.slice(q, {0, 0, 0, c.nopeDim}, end), c.ropeTheta);
    q = b.concatenate({qNope, qRope}, 3);

    ValueId kv = linear(b, x, c.kvLoraRank + c.ropeDim, false, "kv_a_proj", {"d_model", "kv_lora+rope"});
    ValueId latent = rmsNorm(b, b.slice(kv, {0, 0, 0}, {B, S, c.kvLoraRank}), "kv_a_norm");
    ValueId kRope =
        b.reshape(b.slice(kv, {0, 0, c.kvLoraRank}, {B, S, c.kvLoraRank + c.ropeDim}), {B, S, 1, c.ropeDim});
    kRope = b.broadcastInDim(b.reshape(applyRope(b, kRope, c.ropeTheta), {B, S, c.ropeDim}),
                             {B, S, H, c.ropeDim}, {0, 1, 3});
    const std::int64_t kvWidth = c.nopeDim + c.valueDim;
    kv = b.reshape(linear(b, latent, H * kvWidth, false, "kv_b_proj", {"kv_lora", "heads*kv_head_dim"}),
                   {B, S, H, kvWidth});
    ValueId k = b.concatenate({b.slice(kv, {0, 0, 0, 0}, {B, S, H, c.nopeDim}), kRope}, 3);
    ValueId v = b.slice(kv, {0, 0, 0, c.nopeDim}, {B, S, H, kvWidth});

    ValueId scores = b.einsum("bshd,bthd->bhst", q, k, "scores");
    scores = b.multiply(scores, filled(b, 1.0 / std::sqrt(static_cast<double>(qk)), scores), "scale");
    const auto scoreShape = b.type(scores).shape;
    ValueId mask = b.broadcastInDim(causalMask(b, S), scoreShape, {2, 3});
    scores = b.select(mask, scores, filled(b, -std::numeric_limits<double>::infinity(), scores), "mask");
    ValueId context = b.einsum("bhst,bthd->bshd", softmax(b, scores, 3), v, "context");
    context = b.reshape(context, {B, S, H * c.valueDim});
    return linear(b, context, D, false, "o_proj", {"heads*v_head_dim", "d_model"});
}

ValueId geluMlp(GraphBuilder& b, ValueId x, std::int64_t hidden, bool bias, std::string_view name) {
    if (b.failed())
        return {};
    auto scope = b.scope(name);
    const std::int64_t width = b.type(x).shape.back();
    ValueId h = gelu(b, linear(b, x, hidden, bias, "fc", {"d_model", "d_ff"}));
    return linear(b, h, width, bias, "proj", {"d_ff", "d_model"});
}

ValueId swiGluMlp(GraphBuilder& b, ValueId x, std::int64_t hidden, std::string_view name) {
    if (b.failed())
        return {};
    auto scope = b.scope(name);
    const std::int64_t width = b.type(x).shape.back();
    ValueId gate = silu(b, linear(b, x, hidden, false, "gate_proj", {"d_model", "d_ff"}));
    ValueId up = linear(b, x, hidden, false, "up_proj", {"d_model", "d_ff"});
    return linear(b, b.multiply(gate, up, "swiglu"), width, false, "down_proj", {"d_ff", "d_model"});
}

ValueId moeMlp(GraphBuilder& b, ValueId x, std::int64_t hidden, const MoeConfig& c, std::string_view name) {
    if (b.failed())
        return {};
    auto scope = b.scope(name);
    const auto t = b.type(x);
    const auto dt = t.element;
    const std::int64_t G = t.shape[0], S = t.shape[1], D = t.shape[2], E = c.experts;
    const auto C = static_cast<std::int64_t>(
        std::ceil(static_cast<double>(c.topK * S) * c.capacityFactor / static_cast<double>(E)));
    const Shape gse{G, S, E}, gs{G, S}, gsc{G, S, C}, gsec{G, S, E, C};

    ValueId router = b.parameter("router.weight", {D, E}, dt, {"d_model", "experts"});
    // Routing runs in at least fp32, as real MoE implementations do.
    const auto routingType = dt == ir::ElementType::F64 ? ir::ElementType::F64 : ir::ElementType::F32;
    ValueId logits = b.convert(b.einsum("gsd,de->gse", x, router, "router"), routingType);
    ValueId gates = softmax(b, logits, 2);

    ValueId remaining = gates;
    ValueId earlierCount;  // tokens already routed to each expert by earlier choices [G, 1..., E]
    ValueId combine;
    ValueId zeros = filled(b, 0.0, gates);
    ir::WindowAttributes cumsum;
    cumsum.windowDimensions = {1, S, 1};
    cumsum.padding = {{0, 0}, {S - 1, 0}, {0, 0}};
    cumsum.reducer = Reducer::Add;
    for (std::int64_t choice = 0; choice < c.topK; ++choice) {
        auto choiceScope = b.scope("top" + std::to_string(choice + 1));
        ValueId best = b.reduce(remaining, {2}, Reducer::Maximum, "gate");
        ValueId isBest =
            b.compare(remaining, b.broadcastInDim(best, gse, {0, 1}), CompareDirection::EQ, "choice");
        ValueId mask = b.convert(isBest, routingType);
        remaining = b.select(isBest, zeros, remaining);
        // Position of each token in its expert's buffer: running count over the group's tokens.
        ValueId position = b.subtract(b.reduceWindow(mask, cumsum, "position"), filled(b, 1.0, mask));
        if (earlierCount.valid())
            position = b.add(position, b.broadcastInDim(earlierCount, gse, {0, 2}));
        ValueId counted = b.reduce(mask, {1}, Reducer::Add, "expert_load");
        earlierCount = earlierCount.valid() ? b.add(earlierCount, counted) : counted;
        ValueId fits = b.compare(position, filled(b, static_cast<double>(C), position), CompareDirection::LT,
                                 "capacity");
        mask = b.select(fits, mask, zeros);
        ValueId slot = b.reduce(b.multiply(mask, position), {2}, Reducer::Add, "slot");
        ValueId slots = b.convert(b.iota(TensorType{gsc, ir::ElementType::I32}, 2), routingType);
        ValueId oneHot = b.convert(
            b.compare(b.broadcastInDim(slot, gsc, {0, 1}), slots, CompareDirection::EQ), routingType);
        ValueId weight = b.broadcastInDim(b.multiply(best, b.reduce(mask, {2}, Reducer::Add)), gsec, {0, 1});
        ValueId term = b.multiply(
            b.multiply(b.broadcastInDim(mask, gsec, {0, 1, 2}), b.broadcastInDim(oneHot, gsec, {0, 1, 3})),
            weight, "combine_weights");
        combine = combine.valid() ? b.add(combine, term) : term;
    }
    ValueId combineWeights = b.convert(combine, dt, "combine");
    ValueId dispatch =
        b.convert(b.compare(combine, filled(b, 0.0, combine), CompareDirection::NE), dt, "dispatch");

    ValueId expertInput = b.einsum("gsec,gsd->egcd", dispatch, x, "dispatch_tokens");
    ValueId w1 = b.parameter("experts.gate_proj", {E, D, hidden}, dt, {"experts", "d_model", "d_ff"});
    ValueId w3 = b.parameter("experts.up_proj", {E, D, hidden}, dt, {"experts", "d_model", "d_ff"});
    ValueId w2 = b.parameter("experts.down_proj", {E, hidden, D}, dt, {"experts", "d_ff", "d_model"});
    ValueId gate = silu(b, b.einsum("egcd,edf->egcf", expertInput, w1, "experts.gate"));
    ValueId up = b.einsum("egcd,edf->egcf", expertInput, w3, "experts.up");
    ValueId expertOutput = b.einsum("egcf,efd->egcd", b.multiply(gate, up), w2, "experts.down");
    ValueId routed = b.einsum("gsec,egcd->gsd", combineWeights, expertOutput, "combine_tokens");
    if (c.sharedExperts == 0)
        return routed;
    return b.add(routed, swiGluMlp(b, x, c.sharedExperts * hidden, "shared_experts"), "shared");
}

}  // namespace shardscope::zoo
