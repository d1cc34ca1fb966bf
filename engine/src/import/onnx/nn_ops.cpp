// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// ONNX linear algebra, convolution, pooling, normalization and reductions on the IR: MatMul/Gemm/Einsum as
// dot_general, Conv in ONNX's NCHW layout ([b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]), pooling as
// reduce_window/reduce, and the norms and Softmax decomposed into reductions and elementwise ops.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "import/onnx/importer.h"

namespace shardscope::import::onnx_import {

using ir::Dims;
using ir::ElementType;
using ir::OpKind;
using ir::Reducer;
using ir::Shape;
using ir::TensorType;

namespace {

// Window sizes, strides, dilations and pads beyond this are certainly garbage, and could overflow arithmetic.
constexpr std::int64_t kMaxWindowValue = std::int64_t{1} << 30;

Dims iotaDims(std::int64_t from, std::int64_t to) {
    Dims d;
    for (std::int64_t i = from; i < to; ++i)
        d.push_back(i);
    return d;
}

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

}  // namespace

bool Importer::importMatMul() {
    auto a = input(0), b = input(1);
    if (!a || !b)
        return false;
    const TensorType ta = slotType(*a), tb = slotType(*b);
    const int ra = ta.rank(), rb = tb.rank();
    if (ra == 0 || rb == 0)
        return error("onnx.matmul", "operands must have rank >= 1");
    const bool aConstant = !slots_[*a].parameter && !slots_[*a].value.valid();
    const ElementType element = aConstant ? tb.element : ta.element;
    ValueId x = operand(*a, element, ta.shape), y = operand(*b, element, tb.shape);
    if (rb == 1)
        return define(0, b_.dotGeneral(x, y, {{}, {}, {ra - 1}, {0}}, label_));
    if (ra == 1)
        return define(0, b_.dotGeneral(x, y, {{}, {}, {0}, {rb - 2}}, label_));
    if (rb == 2)
        return define(0, b_.dotGeneral(x, y, {{}, {}, {ra - 1}, {0}}, label_));
    // Batched: broadcast the batch dimensions (numpy rules), then batch over them.
    const Shape batchA(ta.shape.begin(), ta.shape.end() - 2), batchB(tb.shape.begin(), tb.shape.end() - 2);
    auto batch = broadcastShapes(batchA, batchB);
    if (!batch)
        return error("onnx.broadcast", "batch dimensions [" + ir::shapeToString(batchA) + "] and [" +
                                           ir::shapeToString(batchB) + "] do not broadcast");
    Shape shapeA = *batch, shapeB = *batch;
    shapeA.insert(shapeA.end(), ta.shape.end() - 2, ta.shape.end());
    shapeB.insert(shapeB.end(), tb.shape.end() - 2, tb.shape.end());
    x = broadcast(x, shapeA);
    y = broadcast(y, shapeB);
    const auto nb = static_cast<std::int64_t>(batch->size());
    ir::DotDimensions dims{iotaDims(0, nb), iotaDims(0, nb), {nb + 1}, {nb}};
    return define(0, b_.dotGeneral(x, y, std::move(dims), label_));
}

bool Importer::importGemm() {
    auto a = input(0), b = input(1);
    if (!a || !b)
        return false;
    const TensorType ta = slotType(*a), tb = slotType(*b);
    if (ta.rank() != 2 || tb.rank() != 2)
        return error("onnx.gemm",
                     "operands must be matrices, got " + ta.toString() + " and " + tb.toString());
    const ElementType element = ta.element;
    const std::int64_t transA = attrInt("transA", 0), transB = attrInt("transB", 0);
    const double alpha = attrFloat("alpha", 1.0f), beta = attrFloat("beta", 1.0f);
    ValueId x = operand(*a, element, ta.shape), w = operand(*b, element, tb.shape);
    ValueId y = b_.dotGeneral(x, w, {{}, {}, {transA ? 0 : 1}, {transB ? 1 : 0}}, label_);
    const Shape shape = typeOf(y).shape;
    if (!y.valid())
        return false;
    if (alpha != 1.0)
        y = b_.multiply(y, splat(alpha, element, shape), label_);
    if (hasInput(2) && beta != 0.0) {
        auto cs = input(2);
        if (!cs)
            return false;
        const TensorType tc = slotType(*cs);
        auto joint = broadcastShapes(tc.shape, shape);
        if (!joint || *joint != shape)
            return error("onnx.broadcast", "C [" + ir::shapeToString(tc.shape) +
                                               "] does not broadcast to the result [" +
                                               ir::shapeToString(shape) + "]");
        ValueId c = operand(*cs, element, tc.shape);
        if (beta != 1.0)
            c = b_.multiply(c, splat(beta, element, tc.shape), label_);
        y = b_.add(y, broadcast(c, shape), label_);
    }
    return define(0, y);
}

bool Importer::importConv() {
    auto xs = input(0), ws = input(1);
    if (!xs || !ws)
        return false;
    const TensorType tx = slotType(*xs), tw = slotType(*ws);
    const int rank = tx.rank();
    if (rank < 3 || tw.rank() != rank)
        return error("onnx.conv", "input " + tx.toString() + " and weight " + tw.toString() +
                                      " need the same rank of at least 3");
    const auto spatial = static_cast<std::size_t>(rank - 2);
    bool ok = true;
    Dims strides = attrInts("strides", ok).value_or(Dims(spatial, 1));
    Dims dilations = attrInts("dilations", ok).value_or(Dims(spatial, 1));
    Dims pads = attrInts("pads", ok).value_or(Dims(2 * spatial, 0));
    auto kernel = attrInts("kernel_shape", ok);
    if (!ok)
        return false;
    if (strides.size() != spatial || dilations.size() != spatial || pads.size() != 2 * spatial)
        return error("onnx.conv", "strides, dilations and pads must have one entry per spatial dimension");
    if (kernel && *kernel != Dims(tw.shape.begin() + 2, tw.shape.end()))
        return error("onnx.conv", "kernel_shape does not match the weight " + tw.toString());
    const std::string autoPad = attrString("auto_pad", "NOTSET");
    const std::int64_t group = attrInt("group", 1);
    if (group < 1 || group > kMaxWindowValue)
        return error("onnx.conv", "group must be positive");
    ir::ConvolutionAttributes c;
    c.inputBatch = 0;
    c.inputFeature = 1;
    c.kernelOutputFeature = 0;
    c.kernelInputFeature = 1;
    c.outputBatch = 0;
    c.outputFeature = 1;
    for (std::size_t i = 0; i < spatial; ++i) {
        const auto d = static_cast<std::int64_t>(i) + 2;
        c.inputSpatial.push_back(d);
        c.kernelSpatial.push_back(d);
        c.outputSpatial.push_back(d);
        const std::int64_t in = tx.shape[i + 2], k = tw.shape[i + 2], s = strides[i], dil = dilations[i];
        if (s < 1 || dil < 1 || s > kMaxWindowValue || dil > kMaxWindowValue || in > kMaxWindowValue ||
            k > kMaxWindowValue || pads[i] < 0 || pads[i + spatial] < 0 || pads[i] > kMaxWindowValue ||
            pads[i + spatial] > kMaxWindowValue)
            return error("onnx.conv", "strides and dilations must be positive and pads non-negative");
        std::int64_t lo = pads[i], hi = pads[i + spatial];
        if (autoPad == "VALID") {
            lo = hi = 0;
        } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
            const std::int64_t out = ceilDiv(in, s), window = (k - 1) * dil + 1;
            const std::int64_t total = std::max<std::int64_t>((out - 1) * s + window - in, 0);
            lo = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
            hi = total - lo;
        }
        c.padding.emplace_back(lo, hi);
    }
    c.windowStrides = strides;
    c.rhsDilation = dilations;
    c.featureGroupCount = group;
    ValueId x = operand(*xs, tx.element, tx.shape), w = operand(*ws, tx.element, tw.shape);
    ValueId y = b_.convolution(x, w, std::move(c), label_);
    if (hasInput(2) && y.valid()) {
        auto bs = input(2);
        if (!bs)
            return false;
        const TensorType tb = slotType(*bs);
        if (tb.rank() != 1)
            return error("onnx.conv", "the bias must be a vector, got " + tb.toString());
        y = b_.add(y, b_.broadcastInDim(operand(*bs, tx.element, tb.shape), typeOf(y).shape, {1}, label_),
                   label_);
    }
    return define(0, y);
}

bool Importer::importConvTranspose() {
    auto xs = input(0), ws = input(1);
    if (!xs || !ws)
        return false;
    const TensorType tx = slotType(*xs), tw = slotType(*ws);
    const int rank = tx.rank();
    if (rank < 3 || tw.rank() != rank)
        return error("onnx.conv", "input " + tx.toString() + " and weight " + tw.toString() +
                                      " need the same rank of at least 3");
    const std::string autoPad = attrString("auto_pad", "NOTSET");
    if (attrInt("group", 1) != 1)
        return importOpaque("grouped ConvTranspose");
    if (attribute("output_shape") || (autoPad != "NOTSET" && autoPad != "VALID"))
        return importOpaque("ConvTranspose with output_shape or SAME padding");
    const auto spatial = static_cast<std::size_t>(rank - 2);
    bool ok = true;
    Dims strides = attrInts("strides", ok).value_or(Dims(spatial, 1));
    Dims dilations = attrInts("dilations", ok).value_or(Dims(spatial, 1));
    Dims pads = attrInts("pads", ok).value_or(Dims(2 * spatial, 0));
    Dims outputPadding = attrInts("output_padding", ok).value_or(Dims(spatial, 0));
    if (!ok)
        return false;
    if (strides.size() != spatial || dilations.size() != spatial || pads.size() != 2 * spatial ||
        outputPadding.size() != spatial)
        return error("onnx.conv",
                     "strides, dilations, pads and output_padding need one entry per spatial dimension");
    // A transposed convolution is a convolution of the stride-dilated input with the spatially reversed
    // kernel, whose [C_in, C_out] layout reads as [input feature, output feature].
    ir::ConvolutionAttributes c;
    c.inputBatch = 0;
    c.inputFeature = 1;
    c.kernelInputFeature = 0;
    c.kernelOutputFeature = 1;
    c.outputBatch = 0;
    c.outputFeature = 1;
    Dims reversed;
    for (std::size_t i = 0; i < spatial; ++i) {
        const auto d = static_cast<std::int64_t>(i) + 2;
        c.inputSpatial.push_back(d);
        c.kernelSpatial.push_back(d);
        c.outputSpatial.push_back(d);
        reversed.push_back(d);
        const std::int64_t k = tw.shape[i + 2], s = strides[i], dil = dilations[i];
        for (auto v : {s, dil, k, pads[i], pads[i + spatial], outputPadding[i]})
            if (v < 0 || v > kMaxWindowValue)
                return error("onnx.conv", "window attribute out of range");
        if (s < 1 || dil < 1)
            return error("onnx.conv", "strides and dilations must be positive");
        if (autoPad == "VALID")
            pads[i] = pads[i + spatial] = 0;
        const std::int64_t reach = dil * (k - 1);
        c.padding.emplace_back(reach - pads[i], reach - pads[i + spatial] + outputPadding[i]);
    }
    c.lhsDilation = strides;
    c.rhsDilation = dilations;
    ValueId x = operand(*xs, tx.element, tx.shape);
    ValueId w = b_.op1(OpKind::Reverse, {operand(*ws, tx.element, tw.shape)},
                       ir::DimensionsAttribute{reversed}, label_);
    ValueId y = b_.convolution(x, w, std::move(c), label_);
    if (hasInput(2) && y.valid()) {
        auto bs = input(2);
        if (!bs)
            return false;
        const TensorType tb = slotType(*bs);
        if (tb.rank() != 1)
            return error("onnx.conv", "the bias must be a vector, got " + tb.toString());
        y = b_.add(y, b_.broadcastInDim(operand(*bs, tx.element, tb.shape), typeOf(y).shape, {1}, label_),
                   label_);
    }
    return define(0, y);
}

bool Importer::importPool(Reducer reducer, bool global) {
    auto xs = input(0);
    if (!xs)
        return false;
    const TensorType tx = slotType(*xs);
    const int rank = tx.rank();
    if (rank < 3)
        return error("onnx.pool", "needs an input of rank >= 3 ([N, C, spatial...]), got " + tx.toString());
    if (hasOutput(1))
        return importOpaque("MaxPool indices");
    ValueId x = value(*xs);
    const ElementType e = tx.element;
    const bool average = reducer == Reducer::Add;
    if (global) {
        const Dims axes = iotaDims(2, rank);
        ValueId y = b_.reduce(x, axes, reducer, label_);
        if (average) {
            std::int64_t count = 1;
            for (auto a : axes)
                count *= tx.shape[static_cast<std::size_t>(a)];
            y = b_.divide(y, splat(static_cast<double>(count), e, typeOf(y).shape), label_);
        }
        return define(0, keepDims(y, tx.shape, axes));
    }
    const auto spatial = static_cast<std::size_t>(rank - 2);
    bool ok = true;
    auto kernel = attrInts("kernel_shape", ok);
    Dims strides = attrInts("strides", ok).value_or(Dims(spatial, 1));
    Dims dilations = attrInts("dilations", ok).value_or(Dims(spatial, 1));
    Dims pads = attrInts("pads", ok).value_or(Dims(2 * spatial, 0));
    if (!ok)
        return false;
    if (!kernel || kernel->size() != spatial || strides.size() != spatial || dilations.size() != spatial ||
        pads.size() != 2 * spatial)
        return error("onnx.pool",
                     "kernel_shape, strides, dilations and pads need one entry per spatial dimension");
    const std::string autoPad = attrString("auto_pad", "NOTSET");
    const bool ceilMode = attrInt("ceil_mode", 0) != 0;
    const bool countPads = attrInt("count_include_pad", 0) != 0;
    ir::WindowAttributes w;
    w.reducer = reducer;
    w.windowDimensions = {1, 1};
    w.windowStrides = {1, 1};
    w.windowDilations = {1, 1};
    w.padding = {{0, 0}, {0, 0}};
    bool padded = false, ceilPadded = false;
    std::int64_t windowElements = 1;
    for (std::size_t i = 0; i < spatial; ++i) {
        const std::int64_t in = tx.shape[i + 2], k = (*kernel)[i], s = strides[i], d = dilations[i];
        for (auto v : {in, k, s, d, pads[i], pads[i + spatial]})
            if (v < 0 || v > kMaxWindowValue)
                return error("onnx.pool", "window attribute out of range");
        if (k < 1 || s < 1 || d < 1)
            return error("onnx.pool", "kernel, strides and dilations must be positive");
        const std::int64_t window = (k - 1) * d + 1;
        std::int64_t lo = pads[i], hi = pads[i + spatial];
        if (autoPad == "VALID") {
            lo = hi = 0;
        } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
            const std::int64_t out = ceilDiv(in, s);
            const std::int64_t total = std::max<std::int64_t>((out - 1) * s + window - in, 0);
            lo = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
            hi = total - lo;
        } else if (ceilMode) {
            const std::int64_t span = in + lo + hi - window;
            if (span >= 0) {
                const std::int64_t out = ceilDiv(span, s) + 1;
                const std::int64_t extra = std::max<std::int64_t>((out - 1) * s + window - (in + lo + hi), 0);
                ceilPadded = ceilPadded || extra > 0;
                hi += extra;
            }
        }
        padded = padded || lo > 0 || hi > 0;
        windowElements *= k;
        w.windowDimensions.push_back(k);
        w.windowStrides.push_back(s);
        w.windowDilations.push_back(d);
        w.padding.emplace_back(lo, hi);
    }
    ValueId y = b_.reduceWindow(x, w, label_);
    if (!average || !y.valid())
        return define(0, y);
    const Shape shape = typeOf(y).shape;
    if (!padded || (countPads && !ceilPadded)) {
        y = b_.divide(y, splat(static_cast<double>(windowElements), e, shape), label_);
    } else {
        // Divide by how many real elements each window covers (padding excluded).
        ValueId counts = b_.reduceWindow(splat(1, e, tx.shape), w, label_);
        y = b_.divide(y, counts, label_);
    }
    return define(0, y);
}

bool Importer::importBatchNorm() {
    auto xs = input(0), scale = input(1), bias = input(2), mean = input(3), var = input(4);
    if (!xs || !scale || !bias || !mean || !var)
        return false;
    const TensorType tx = slotType(*xs);
    if (tx.rank() < 2)
        return error("onnx.norm", "needs an input of rank >= 2, got " + tx.toString());
    const std::int64_t channels = tx.shape[1];
    for (auto s : {*scale, *bias, *mean, *var})
        if (slotType(s).shape != Shape{channels})
            return error("onnx.norm", "'" + slots_[s].name + "' should have shape [" +
                                          std::to_string(channels) + "], got " + slotType(s).toString());
    const ElementType e = tx.element;
    const Shape c{channels};
    const double epsilon = attrFloat("epsilon", 1e-5f);
    // y = x·a + b with a = scale / sqrt(var + eps) and b = bias − mean·a, computed per channel.
    ValueId inv = b_.unary(OpKind::Rsqrt, b_.add(operand(*var, e, c), splat(epsilon, e, c), label_), label_);
    ValueId a = b_.multiply(operand(*scale, e, c), inv, label_);
    ValueId shift = b_.subtract(operand(*bias, e, c), b_.multiply(operand(*mean, e, c), a, label_), label_);
    ValueId y = b_.multiply(value(*xs), b_.broadcastInDim(a, tx.shape, {1}, label_), label_);
    return define(0, b_.add(y, b_.broadcastInDim(shift, tx.shape, {1}, label_), label_));
}

bool Importer::importLayerNorm() {
    auto xs = input(0), scale = input(1);
    if (!xs || !scale)
        return false;
    const TensorType tx = slotType(*xs);
    const int rank = tx.rank();
    auto axis = normalizeAxis(attrInt("axis", -1), rank, "axis");
    if (!axis)
        return false;
    const ElementType e = tx.element;
    const Dims axes = iotaDims(*axis, rank), keep = iotaDims(0, *axis);
    std::int64_t count = 1;
    for (auto a : axes)
        count *= tx.shape[static_cast<std::size_t>(a)];
    const double epsilon = attrFloat("epsilon", 1e-5f);
    ValueId x = value(*xs);
    ValueId sum = b_.reduce(x, axes, Reducer::Add, label_);
    const Shape reduced = typeOf(sum).shape;
    ValueId mean = b_.divide(sum, splat(static_cast<double>(count), e, reduced), label_);
    ValueId centred = b_.subtract(x, b_.broadcastInDim(mean, tx.shape, keep, label_), label_);
    ValueId variance = b_.divide(b_.reduce(b_.multiply(centred, centred, label_), axes, Reducer::Add, label_),
                                 splat(static_cast<double>(count), e, reduced), label_);
    ValueId inv = b_.unary(OpKind::Rsqrt, b_.add(variance, splat(epsilon, e, reduced), label_), label_);
    ValueId y = b_.multiply(centred, b_.broadcastInDim(inv, tx.shape, keep, label_), label_);
    y = b_.multiply(y, operand(*scale, e, tx.shape), label_);
    if (hasInput(2)) {
        auto bias = input(2);
        if (!bias)
            return false;
        y = b_.add(y, operand(*bias, e, tx.shape), label_);
    }
    if (!define(0, y))
        return false;
    if (hasOutput(1) && !define(1, keepDims(mean, tx.shape, axes)))
        return false;
    if (hasOutput(2) && !define(2, keepDims(inv, tx.shape, axes)))
        return false;
    return true;
}

bool Importer::importInstanceNorm() {
    auto xs = input(0), scale = input(1), bias = input(2);
    if (!xs || !scale || !bias)
        return false;
    const TensorType tx = slotType(*xs);
    const int rank = tx.rank();
    if (rank < 3)
        return error("onnx.norm", "needs an input of rank >= 3, got " + tx.toString());
    const ElementType e = tx.element;
    const Dims axes = iotaDims(2, rank), keep = {0, 1};
    std::int64_t count = 1;
    for (auto a : axes)
        count *= tx.shape[static_cast<std::size_t>(a)];
    const Shape c{tx.shape[1]};
    ValueId x = value(*xs);
    ValueId sum = b_.reduce(x, axes, Reducer::Add, label_);
    const Shape reduced = typeOf(sum).shape;
    ValueId mean = b_.divide(sum, splat(static_cast<double>(count), e, reduced), label_);
    ValueId centred = b_.subtract(x, b_.broadcastInDim(mean, tx.shape, keep, label_), label_);
    ValueId variance = b_.divide(b_.reduce(b_.multiply(centred, centred, label_), axes, Reducer::Add, label_),
                                 splat(static_cast<double>(count), e, reduced), label_);
    ValueId inv = b_.unary(OpKind::Rsqrt,
                           b_.add(variance, splat(attrFloat("epsilon", 1e-5f), e, reduced), label_), label_);
    ValueId y = b_.multiply(centred, b_.broadcastInDim(inv, tx.shape, keep, label_), label_);
    y = b_.multiply(y, b_.broadcastInDim(operand(*scale, e, c), tx.shape, {1}, label_), label_);
    return define(0, b_.add(y, b_.broadcastInDim(operand(*bias, e, c), tx.shape, {1}, label_), label_));
}

bool Importer::importLrn() {
    auto xs = input(0);
    if (!xs)
        return false;
    const TensorType tx = slotType(*xs);
    const std::int64_t size = attrInt("size", 0);
    if (tx.rank() < 3 || size < 1 || size > kMaxWindowValue)
        return error("onnx.lrn", "needs an input of rank >= 3 and a positive size");
    const ElementType e = tx.element;
    const double alpha = attrFloat("alpha", 1e-4f), beta = attrFloat("beta", 0.75f),
                 bias = attrFloat("bias", 1.0f);
    // square_sum[c] sums x² over channels [c − floor((size−1)/2), c + ceil((size−1)/2)].
    ir::WindowAttributes w;
    w.reducer = Reducer::Add;
    for (int d = 0; d < tx.rank(); ++d) {
        w.windowDimensions.push_back(d == 1 ? size : 1);
        w.padding.emplace_back(d == 1 ? (size - 1) / 2 : 0, d == 1 ? size / 2 : 0);
    }
    ValueId x = value(*xs);
    ValueId squares = b_.reduceWindow(b_.multiply(x, x, label_), w, label_);
    ValueId base =
        b_.add(splat(bias, e, tx.shape),
               b_.multiply(splat(alpha / static_cast<double>(size), e, tx.shape), squares, label_), label_);
    return define(0, b_.divide(x, b_.binary(OpKind::Power, base, splat(beta, e, tx.shape), label_), label_));
}

bool Importer::importSoftmax(bool logarithm) {
    auto xs = input(0);
    if (!xs)
        return false;
    const TensorType tx = slotType(*xs);
    const int rank = tx.rank();
    if (rank == 0)
        return error("onnx.softmax", "needs an input of rank >= 1");
    // Before opset 13 the input is read as a matrix [prod(:axis), prod(axis:)] and normalized along its rows.
    const bool coerced = opset_ < 13;
    auto axis = normalizeAxis(attrInt("axis", coerced ? 1 : -1), rank, "axis");
    if (!axis)
        return false;
    const Dims axes = coerced ? iotaDims(*axis, rank) : Dims{*axis};
    Dims keep;
    for (int d = 0; d < rank; ++d)
        if (std::find(axes.begin(), axes.end(), d) == axes.end())
            keep.push_back(d);
    ValueId x = value(*xs);
    ValueId max = b_.reduce(x, axes, Reducer::Maximum, label_);
    ValueId shifted = b_.subtract(x, b_.broadcastInDim(max, tx.shape, keep, label_), label_);
    ValueId exp = b_.unary(OpKind::Exponential, shifted, label_);
    ValueId sum = b_.reduce(exp, axes, Reducer::Add, label_);
    if (logarithm)
        return define(
            0, b_.subtract(shifted,
                           b_.broadcastInDim(b_.unary(OpKind::Log, sum, label_), tx.shape, keep, label_),
                           label_));
    return define(0, b_.divide(exp, b_.broadcastInDim(sum, tx.shape, keep, label_), label_));
}

bool Importer::importReduce(std::string_view op) {
    auto xs = input(0);
    if (!xs)
        return false;
    const TensorType tx = slotType(*xs);
    const int rank = tx.rank();
    std::vector<std::int64_t> axes;
    if (hasInput(1)) {
        auto given = constantInts(1, "axes");
        if (!given)
            return false;
        axes = *given;
    } else {
        bool ok = true;
        axes = attrInts("axes", ok).value_or(std::vector<std::int64_t>{});
        if (!ok)
            return false;
    }
    const bool keep = attrInt("keepdims", 1) != 0;
    if (axes.empty()) {
        if (attrInt("noop_with_empty_axes", 0) != 0)
            return alias(0, *xs);
        axes = iotaDims(0, rank);
    }
    auto normalized = normalizeAxes(axes, rank, "axes");
    if (!normalized)
        return false;
    axes = *normalized;
    std::sort(axes.begin(), axes.end());
    std::int64_t count = 1;
    for (auto a : axes)
        count *= tx.shape[static_cast<std::size_t>(a)];
    const std::unordered_map<std::string_view, FoldReduce> folds = {{"Sum", FoldReduce::Sum},
                                                                    {"Mean", FoldReduce::Mean},
                                                                    {"Max", FoldReduce::Max},
                                                                    {"Min", FoldReduce::Min},
                                                                    {"Prod", FoldReduce::Prod}};
    if (auto f = folds.find(op); f != folds.end())
        if (const ConstTensor* c = constant(*xs))
            if (auto folded = foldReduce(f->second, *c, axes, keep))
                return defineConstant(0, std::move(*folded));
    ValueId x = value(*xs);
    const ElementType e = tx.element;
    ValueId y;
    if (op == "Sum" || op == "Mean")
        y = b_.reduce(x, axes, Reducer::Add, label_);
    else if (op == "Max")
        y = b_.reduce(x, axes, Reducer::Maximum, label_);
    else if (op == "Min")
        y = b_.reduce(x, axes, Reducer::Minimum, label_);
    else if (op == "Prod")
        y = b_.reduce(x, axes, Reducer::Multiply, label_);
    else if (op == "SumSquare" || op == "L2")
        y = b_.reduce(b_.multiply(x, x, label_), axes, Reducer::Add, label_);
    else if (op == "L1")
        y = b_.reduce(b_.unary(OpKind::Abs, x, label_), axes, Reducer::Add, label_);
    else if (op == "LogSum")
        y = b_.reduce(x, axes, Reducer::Add, label_);
    else if (op == "LogSumExp")
        y = b_.reduce(b_.unary(OpKind::Exponential, x, label_), axes, Reducer::Add, label_);
    if (!y.valid())
        return false;
    if (op == "Mean")
        y = b_.divide(y, splat(static_cast<double>(count), e, typeOf(y).shape), label_);
    else if (op == "L2")
        y = b_.unary(OpKind::Sqrt, y, label_);
    else if (op == "LogSum" || op == "LogSumExp")
        y = b_.unary(OpKind::Log, y, label_);
    return define(0, keep ? keepDims(y, tx.shape, axes) : y);
}

bool Importer::importEinsum() {
    std::string equation;
    for (char ch : attrString("equation", ""))
        if (ch != ' ')
            equation += ch;
    if (equation.find("...") != std::string::npos || inputCount() < 1 || inputCount() > 2)
        return importOpaque("Einsum with ellipsis or more than two operands");
    auto arrow = equation.find("->");
    std::string lhs = equation.substr(0, arrow), out;
    if (arrow != std::string::npos) {
        out = equation.substr(arrow + 2);
    } else {
        // Implicit output: the letters that appear exactly once, in alphabetical order.
        for (char ch = 'A'; ch <= 'z'; ++ch)
            if (std::isalpha(static_cast<unsigned char>(ch)) && std::count(lhs.begin(), lhs.end(), ch) == 1)
                out += ch;
    }
    std::vector<std::string> terms;
    for (std::size_t start = 0;;) {
        auto comma = lhs.find(',', start);
        terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    if (static_cast<int>(terms.size()) != inputCount())
        return error("onnx.einsum", "equation '" + equation + "' does not match its inputs");
    for (const auto& t : terms)
        for (char ch : t)
            if (!std::isalpha(static_cast<unsigned char>(ch)) || std::count(t.begin(), t.end(), ch) != 1)
                return importOpaque("Einsum with repeated or non-letter subscripts");
    std::vector<std::size_t> slots;
    for (int i = 0; i < inputCount(); ++i) {
        auto s = input(i);
        if (!s)
            return false;
        if (static_cast<int>(terms[static_cast<std::size_t>(i)].size()) != slotType(*s).rank())
            return error("onnx.einsum", "subscripts '" + terms[static_cast<std::size_t>(i)] +
                                            "' do not match " + slotType(*s).toString());
        slots.push_back(*s);
    }
    const ElementType e = slotType(slots.front()).element;
    if (slots.size() == 2)
        return define(0, b_.einsum(terms[0] + "," + terms[1] + "->" + out,
                                   operand(slots[0], e, slotType(slots[0]).shape),
                                   operand(slots[1], e, slotType(slots[1]).shape), label_));
    // One operand: sum away the letters absent from the output, then permute.
    const std::string& in = terms[0];
    Dims summed;
    std::string kept;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (out.find(in[i]) == std::string::npos)
            summed.push_back(static_cast<std::int64_t>(i));
        else
            kept += in[i];
    }
    if (kept.size() != out.size())
        return error("onnx.einsum", "output subscripts '" + out + "' are not in the input");
    ValueId x = value(slots[0]);
    if (!summed.empty())
        x = b_.reduce(x, summed, Reducer::Add, label_);
    Dims permutation;
    for (char ch : out)
        permutation.push_back(static_cast<std::int64_t>(kept.find(ch)));
    if (permutation == iotaDims(0, static_cast<std::int64_t>(permutation.size())))
        return define(0, x);
    return define(0, b_.transpose(x, permutation, label_));
}

bool Importer::importCumSum() {
    auto xs = input(0);
    if (!xs)
        return false;
    auto axisValue = constantInts(1, "axis");
    if (!axisValue)
        return false;
    if (axisValue->size() != 1)
        return error("onnx.axis", "axis must be a scalar");
    if (attrInt("exclusive", 0) != 0 || attrInt("reverse", 0) != 0)
        return importOpaque("exclusive or reverse CumSum");
    const TensorType tx = slotType(*xs);
    auto axis = normalizeAxis(axisValue->front(), tx.rank(), "axis");
    if (!axis)
        return false;
    ir::WindowAttributes w;
    w.reducer = Reducer::Add;
    for (int d = 0; d < tx.rank(); ++d) {
        const std::int64_t n = tx.shape[static_cast<std::size_t>(d)];
        w.windowDimensions.push_back(d == *axis ? std::max<std::int64_t>(n, 1) : 1);
        w.padding.emplace_back(d == *axis ? std::max<std::int64_t>(n - 1, 0) : 0, 0);
    }
    return define(0, b_.reduceWindow(value(*xs), w, label_));
}

}  // namespace shardscope::import::onnx_import
