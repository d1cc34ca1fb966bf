// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// ONNX operator dispatch, opaque ops, and elementwise computations on the IR: numpy broadcasting becomes
// explicit broadcast_in_dim, activations decompose into elementwise ops, and constant operands fold.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <set>
#include <unordered_map>

#include "import/onnx/importer.h"

namespace shardscope::import::onnx_import {

using ir::CompareDirection;
using ir::Dims;
using ir::ElementType;
using ir::OpKind;
using ir::Reducer;
using ir::Shape;
using ir::TensorType;

TensorType Importer::typeOf(ValueId v) const {
    static const TensorType kNone;
    if (!v.valid() || b_.failed() || v.index >= b_.graph().values.size())
        return kNone;
    return b_.type(v);
}

ValueId Importer::splat(double value, ElementType element, const Shape& shape) {
    if (!ir::isFloat(element) && !ir::isComplex(element))
        value = static_cast<double>(
            wrapInteger(element, element == ElementType::I1 ? value != 0 : toInt64(value)));
    auto r = b_.op(OpKind::Constant, {}, ir::ConstantAttributes{{value}}, label_, {},
                   {TensorType{shape, element}});
    return r.empty() ? ValueId{} : r.front();
}

ValueId Importer::broadcast(ValueId v, const Shape& shape) {
    if (!v.valid() || b_.failed())
        return {};
    const TensorType& t = typeOf(v);
    if (t.shape == shape)
        return v;
    if (t.rank() > static_cast<int>(shape.size()) || !checkedElements(shape)) {
        error("onnx.broadcast",
              "cannot broadcast " + t.toString() + " to [" + ir::shapeToString(shape) + "]");
        return {};
    }
    Dims dims;
    const auto offset = static_cast<std::int64_t>(shape.size()) - t.rank();
    for (int i = 0; i < t.rank(); ++i)
        dims.push_back(offset + i);
    return b_.broadcastInDim(v, shape, std::move(dims), label_);
}

ValueId Importer::keepDims(ValueId reduced, const Shape& inputShape, const std::vector<std::int64_t>& axes) {
    Shape shape = inputShape;
    for (auto a : axes)
        shape[static_cast<std::size_t>(a)] = 1;
    return reshapeTo(reduced, shape);
}

std::optional<std::int64_t> Importer::normalizeAxis(std::int64_t axis, int rank, std::string_view what) {
    if (axis < -rank || axis >= rank) {
        error("onnx.axis", std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
                               std::to_string(rank));
        return std::nullopt;
    }
    return axis < 0 ? axis + rank : axis;
}

std::optional<std::vector<std::int64_t>> Importer::normalizeAxes(const std::vector<std::int64_t>& axes,
                                                                 int rank, std::string_view what) {
    std::vector<std::int64_t> out;
    std::set<std::int64_t> seen;
    for (auto a : axes) {
        auto n = normalizeAxis(a, rank, what);
        if (!n)
            return std::nullopt;
        if (!seen.insert(*n).second) {
            error("onnx.axis", std::string(what) + " repeat axis " + std::to_string(*n));
            return std::nullopt;
        }
        out.push_back(*n);
    }
    return out;
}

bool Importer::dispatch() {
    using Handler = bool (*)(Importer&);
    static const std::unordered_map<std::string, Handler> handlers = {
        // Elementwise arithmetic and comparisons (folded on constants).
        {"Add", [](Importer& m) { return m.importBinary(OpKind::Add, FoldBinary::Add); }},
        {"Sub", [](Importer& m) { return m.importBinary(OpKind::Subtract, FoldBinary::Sub); }},
        {"Mul", [](Importer& m) { return m.importBinary(OpKind::Multiply, FoldBinary::Mul); }},
        {"Div", [](Importer& m) { return m.importBinary(OpKind::Divide, FoldBinary::Div); }},
        {"Pow", [](Importer& m) { return m.importBinary(OpKind::Power, FoldBinary::Pow); }},
        {"Mod",
         [](Importer& m) {
             return m.importBinary(OpKind::Remainder,
                                   m.attrInt("fmod", 0) ? FoldBinary::FMod : FoldBinary::Mod);
         }},
        {"And", [](Importer& m) { return m.importBinary(OpKind::And, FoldBinary::And); }},
        {"Or", [](Importer& m) { return m.importBinary(OpKind::Or, FoldBinary::Or); }},
        {"Xor", [](Importer& m) { return m.importBinary(OpKind::Xor, FoldBinary::Xor); }},
        {"Equal", [](Importer& m) { return m.importCompare(CompareDirection::EQ, FoldBinary::Equal); }},
        {"Less", [](Importer& m) { return m.importCompare(CompareDirection::LT, FoldBinary::Less); }},
        {"Greater", [](Importer& m) { return m.importCompare(CompareDirection::GT, FoldBinary::Greater); }},
        {"LessOrEqual",
         [](Importer& m) { return m.importCompare(CompareDirection::LE, FoldBinary::LessEqual); }},
        {"GreaterOrEqual",
         [](Importer& m) { return m.importCompare(CompareDirection::GE, FoldBinary::GreaterEqual); }},
        {"Sum", [](Importer& m) { return m.importVariadic(OpKind::Add, FoldBinary::Add, false); }},
        {"Mean", [](Importer& m) { return m.importVariadic(OpKind::Add, FoldBinary::Add, true); }},
        {"Max", [](Importer& m) { return m.importVariadic(OpKind::Maximum, FoldBinary::Max, false); }},
        {"Min", [](Importer& m) { return m.importVariadic(OpKind::Minimum, FoldBinary::Min, false); }},
        {"Where", [](Importer& m) { return m.importWhere(); }},
        {"Cast", [](Importer& m) { return m.importCast(); }},
        {"CastLike", [](Importer& m) { return m.importCast(); }},
        {"Clip", [](Importer& m) { return m.importClip(); }},
        // Elementwise unary.
        {"Neg", [](Importer& m) { return m.importUnary(OpKind::Negate, FoldUnary::Neg); }},
        {"Abs", [](Importer& m) { return m.importUnary(OpKind::Abs, FoldUnary::Abs); }},
        {"Sqrt", [](Importer& m) { return m.importUnary(OpKind::Sqrt, FoldUnary::Sqrt); }},
        {"Exp", [](Importer& m) { return m.importUnary(OpKind::Exponential, FoldUnary::Exp); }},
        {"Log", [](Importer& m) { return m.importUnary(OpKind::Log, FoldUnary::Log); }},
        {"Floor", [](Importer& m) { return m.importUnary(OpKind::Floor, FoldUnary::Floor); }},
        {"Ceil", [](Importer& m) { return m.importUnary(OpKind::Ceil, FoldUnary::Ceil); }},
        {"Round", [](Importer& m) { return m.importUnary(OpKind::RoundNearestEven, FoldUnary::Round); }},
        {"Sign", [](Importer& m) { return m.importUnary(OpKind::Sign, FoldUnary::Sign); }},
        {"Not", [](Importer& m) { return m.importUnary(OpKind::Not, FoldUnary::Not); }},
        {"Tanh", [](Importer& m) { return m.importUnary(OpKind::Tanh, FoldUnary::Tanh); }},
        {"Sigmoid", [](Importer& m) { return m.importUnary(OpKind::Logistic, FoldUnary::Sigmoid); }},
        {"Sin", [](Importer& m) { return m.importUnary(OpKind::Sine, std::nullopt); }},
        {"Cos", [](Importer& m) { return m.importUnary(OpKind::Cosine, std::nullopt); }},
        {"Tan", [](Importer& m) { return m.importUnary(OpKind::Tan, std::nullopt); }},
        {"Erf",
         [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, FoldUnary::Erf, "chlo.erf"); }},
        {"Asin",
         [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, std::nullopt, "chlo.asin"); }},
        {"Acos",
         [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, std::nullopt, "chlo.acos"); }},
        {"Atan",
         [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, std::nullopt, "chlo.atan"); }},
        {"Sinh",
         [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, std::nullopt, "chlo.sinh"); }},
        {"Cosh",
         [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, std::nullopt, "chlo.cosh"); }},
        {"Asinh",
         [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, std::nullopt, "chlo.asinh"); }},
        {"Acosh",
         [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, std::nullopt, "chlo.acosh"); }},
        {"Atanh",
         [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, std::nullopt, "chlo.atanh"); }},
        // Activations.
        {"Relu", [](Importer& m) { return m.importActivation("Relu"); }},
        {"LeakyRelu", [](Importer& m) { return m.importActivation("LeakyRelu"); }},
        {"PRelu", [](Importer& m) { return m.importActivation("PRelu"); }},
        {"Elu", [](Importer& m) { return m.importActivation("Elu"); }},
        {"Selu", [](Importer& m) { return m.importActivation("Selu"); }},
        {"HardSigmoid", [](Importer& m) { return m.importActivation("HardSigmoid"); }},
        {"HardSwish", [](Importer& m) { return m.importActivation("HardSwish"); }},
        {"Softplus", [](Importer& m) { return m.importActivation("Softplus"); }},
        {"Softsign", [](Importer& m) { return m.importActivation("Softsign"); }},
        {"Mish", [](Importer& m) { return m.importActivation("Mish"); }},
        {"Gelu", [](Importer& m) { return m.importActivation("Gelu"); }},
        {"Reciprocal", [](Importer& m) { return m.importActivation("Reciprocal"); }},
        {"IsNaN", [](Importer& m) { return m.importActivation("IsNaN"); }},
        // Linear algebra, convolution, pooling, normalization.
        {"MatMul", [](Importer& m) { return m.importMatMul(); }},
        {"Gemm", [](Importer& m) { return m.importGemm(); }},
        {"Einsum", [](Importer& m) { return m.importEinsum(); }},
        {"Conv", [](Importer& m) { return m.importConv(); }},
        {"ConvTranspose", [](Importer& m) { return m.importConvTranspose(); }},
        {"MaxPool", [](Importer& m) { return m.importPool(Reducer::Maximum, false); }},
        {"AveragePool", [](Importer& m) { return m.importPool(Reducer::Add, false); }},
        {"GlobalMaxPool", [](Importer& m) { return m.importPool(Reducer::Maximum, true); }},
        {"GlobalAveragePool", [](Importer& m) { return m.importPool(Reducer::Add, true); }},
        {"BatchNormalization", [](Importer& m) { return m.importBatchNorm(); }},
        {"LayerNormalization", [](Importer& m) { return m.importLayerNorm(); }},
        {"InstanceNormalization", [](Importer& m) { return m.importInstanceNorm(); }},
        {"LRN", [](Importer& m) { return m.importLrn(); }},
        {"Softmax", [](Importer& m) { return m.importSoftmax(false); }},
        {"LogSoftmax", [](Importer& m) { return m.importSoftmax(true); }},
        {"ReduceSum", [](Importer& m) { return m.importReduce("Sum"); }},
        {"ReduceMean", [](Importer& m) { return m.importReduce("Mean"); }},
        {"ReduceMax", [](Importer& m) { return m.importReduce("Max"); }},
        {"ReduceMin", [](Importer& m) { return m.importReduce("Min"); }},
        {"ReduceProd", [](Importer& m) { return m.importReduce("Prod"); }},
        {"ReduceSumSquare", [](Importer& m) { return m.importReduce("SumSquare"); }},
        {"ReduceL1", [](Importer& m) { return m.importReduce("L1"); }},
        {"ReduceL2", [](Importer& m) { return m.importReduce("L2"); }},
        {"ReduceLogSum", [](Importer& m) { return m.importReduce("LogSum"); }},
        {"ReduceLogSumExp", [](Importer& m) { return m.importReduce("LogSumExp"); }},
        {"CumSum", [](Importer& m) { return m.importCumSum(); }},
        // Data movement and shape computations (shape_ops.cpp).
        {"Constant", [](Importer& m) { return m.importConstant(); }},
        {"ConstantOfShape", [](Importer& m) { return m.importConstantOfShape(); }},
        {"Shape", [](Importer& m) { return m.importShape(); }},
        {"Size", [](Importer& m) { return m.importSize(); }},
        {"Identity", [](Importer& m) { return m.importIdentity(); }},
        {"Dropout", [](Importer& m) { return m.importDropout(); }},
        {"Reshape", [](Importer& m) { return m.importReshape(); }},
        {"Flatten", [](Importer& m) { return m.importFlatten(); }},
        {"Squeeze", [](Importer& m) { return m.importSqueeze(false); }},
        {"Unsqueeze", [](Importer& m) { return m.importSqueeze(true); }},
        {"Transpose", [](Importer& m) { return m.importTranspose(); }},
        {"Slice", [](Importer& m) { return m.importSlice(); }},
        {"Concat", [](Importer& m) { return m.importConcat(); }},
        {"Split", [](Importer& m) { return m.importSplit(); }},
        {"Gather", [](Importer& m) { return m.importGather(); }},
        {"Expand", [](Importer& m) { return m.importExpand(); }},
        {"Tile", [](Importer& m) { return m.importTile(); }},
        {"Range", [](Importer& m) { return m.importRange(); }},
        {"Pad", [](Importer& m) { return m.importPad(); }},
        {"Resize", [](Importer& m) { return m.importResize(); }},
        {"Upsample", [](Importer& m) { return m.importResize(); }},
        {"ScatterND", [](Importer& m) { return m.importScatterNd(); }},
    };
    auto it = handlers.find(node_->op_type());
    if (it == handlers.end())
        return importOpaque();
    return it->second(*this);
}

bool Importer::importOpaque(const std::string& reason) {
    const std::string& domain = node_->domain();
    const std::string name =
        (domain.empty() || domain == "ai.onnx" ? std::string("onnx.") : domain + ".") + node_->op_type();
    std::vector<ValueId> operands;
    for (int i = 0; i < inputCount(); ++i) {
        if (!hasInput(i))
            continue;
        auto s = input(i);
        if (!s)
            return false;
        // Constants (axes, scales, shapes) are the op's configuration rather than data it moves.
        if (!slots_[*s].parameter && !slots_[*s].value.valid())
            continue;
        operands.push_back(value(*s));
    }
    std::vector<TensorType> types;
    std::vector<int> outputs;
    for (int o = 0; o < outputCount(); ++o) {
        if (!hasOutput(o))
            continue;
        runShapeInference();
        auto it = inferred_.find(node_->output(o));
        if (it == inferred_.end())
            return error(
                "onnx.unknown-shape",
                "'" + name +
                    "' is not supported and ONNX shape inference gives no static shape for its output '" +
                    node_->output(o) + "'" +
                    (inferenceFailure_.empty() ? std::string()
                                               : " (shape inference failed: " + inferenceFailure_ + ")"));
        types.push_back(it->second);
        outputs.push_back(o);
    }
    auto& u = unsupported_[name];
    if (u.count++ == 0) {
        u.firstNode = label_;
        u.reason = reason;
    }
    if (types.empty())
        return true;
    auto results = b_.op(OpKind::Opaque, operands, ir::OpaqueAttributes{name}, label_, {}, types);
    if (results.size() != types.size())
        return false;
    for (std::size_t i = 0; i < outputs.size(); ++i)
        if (!define(outputs[i], results[i]))
            return false;
    return true;
}

bool Importer::importUnary(OpKind kind, std::optional<FoldUnary> fold, std::string_view otherName) {
    auto s = input(0);
    if (!s)
        return false;
    if (fold)
        if (const ConstTensor* c = constant(*s))
            if (auto folded = foldUnary(*fold, *c))
                return defineConstant(0, std::move(*folded));
    ValueId x = value(*s);
    if (kind == OpKind::OtherElementwise) {
        auto r = b_.op(kind, {x}, ir::OpaqueAttributes{std::string(otherName)}, label_);
        return define(0, r.empty() ? ValueId{} : r.front());
    }
    return define(0, b_.unary(kind, x, label_));
}

bool Importer::importBinary(OpKind kind, std::optional<FoldBinary> fold) {
    auto a = input(0), b = input(1);
    if (!a || !b)
        return false;
    if (fold) {
        const ConstTensor* ca = constant(*a);
        const ConstTensor* cb = ca ? constant(*b) : nullptr;
        if (ca && cb) {
            std::string why;
            if (auto folded = foldBinary(*fold, *ca, *cb, why))
                return defineConstant(0, std::move(*folded));
            if (!why.empty())
                return error("onnx.fold", why);
        }
    }
    const TensorType &ta = slotType(*a), &tb = slotType(*b);
    auto shape = broadcastShapes(ta.shape, tb.shape);
    if (!shape || !checkedElements(*shape))
        return error("onnx.broadcast", "operand shapes [" + ir::shapeToString(ta.shape) + "] and [" +
                                           ir::shapeToString(tb.shape) + "] do not broadcast");
    const bool aConstant = !slots_[*a].parameter && !slots_[*a].value.valid();
    const ElementType element = aConstant ? tb.element : ta.element;
    ValueId x = operand(*a, element, *shape);
    ValueId y;
    if (kind == OpKind::Power && tb.element != element && slots_[*b].value.valid()) {
        y = broadcast(b_.convert(value(*b), element, label_),
                      *shape);  // Pow allows an exponent of another type
    } else {
        y = operand(*b, element, *shape);
    }
    return define(0, b_.binary(kind, x, y, label_));
}

bool Importer::importCompare(CompareDirection direction, FoldBinary fold) {
    auto a = input(0), b = input(1);
    if (!a || !b)
        return false;
    const ConstTensor* ca = constant(*a);
    const ConstTensor* cb = ca ? constant(*b) : nullptr;
    if (ca && cb) {
        std::string why;
        if (auto folded = foldBinary(fold, *ca, *cb, why))
            return defineConstant(0, std::move(*folded));
    }
    const TensorType &ta = slotType(*a), &tb = slotType(*b);
    auto shape = broadcastShapes(ta.shape, tb.shape);
    if (!shape || !checkedElements(*shape))
        return error("onnx.broadcast", "operand shapes [" + ir::shapeToString(ta.shape) + "] and [" +
                                           ir::shapeToString(tb.shape) + "] do not broadcast");
    const bool aConstant = !slots_[*a].parameter && !slots_[*a].value.valid();
    const ElementType element = aConstant ? tb.element : ta.element;
    ValueId x = operand(*a, element, *shape), y = operand(*b, element, *shape);
    return define(0, b_.compare(x, y, direction, label_));
}

bool Importer::importVariadic(OpKind kind, FoldBinary fold, bool mean) {
    std::vector<std::size_t> slots;
    for (int i = 0; i < inputCount(); ++i) {
        auto s = input(i);
        if (!s)
            return false;
        slots.push_back(*s);
    }
    if (slots.empty())
        return error("onnx.missing-input", "needs at least one input");
    // Fold when every input is known.
    std::optional<ConstTensor> acc;
    bool allConstant = true;
    for (auto s : slots) {
        const ConstTensor* c = constant(s);
        if (!c) {
            allConstant = false;
            break;
        }
        std::string why;
        acc = acc ? foldBinary(fold, *acc, *c, why) : std::optional<ConstTensor>(*c);
        if (!acc) {
            allConstant = false;
            break;
        }
    }
    if (allConstant && acc && !mean)
        return defineConstant(0, std::move(*acc));
    Shape shape = slotType(slots.front()).shape;
    ElementType element = slotType(slots.front()).element;
    for (auto s : slots) {
        auto next = broadcastShapes(shape, slotType(s).shape);
        if (!next || !checkedElements(*next))
            return error("onnx.broadcast", "input shapes do not broadcast");
        shape = *next;
        if (slots_[s].parameter || slots_[s].value.valid())
            element = slotType(s).element;
    }
    ValueId result = operand(slots.front(), element, shape);
    for (std::size_t i = 1; i < slots.size(); ++i)
        result = b_.binary(kind, result, operand(slots[i], element, shape), label_);
    if (mean)
        result = b_.divide(result, splat(static_cast<double>(slots.size()), element, shape), label_);
    return define(0, result);
}

bool Importer::importActivation(std::string_view op) {
    auto s = input(0);
    if (!s)
        return false;
    if (op == "Relu")
        if (const ConstTensor* c = constant(*s))
            if (auto folded = foldUnary(FoldUnary::Relu, *c))
                return defineConstant(0, std::move(*folded));
    ValueId x = value(*s);
    const TensorType t = typeOf(x);
    if (!x.valid())
        return false;
    const ElementType e = t.element;
    const Shape& shape = t.shape;
    auto c = [&](double v) { return splat(v, e, shape); };
    auto mul = [&](ValueId a, ValueId b) { return b_.multiply(a, b, label_); };
    auto add = [&](ValueId a, ValueId b) { return b_.add(a, b, label_); };
    auto clamp01 = [&](ValueId v) {
        return b_.op1(OpKind::Clamp, {splat(0, e, {}), v, splat(1, e, {})}, ir::NoAttributes{}, label_);
    };
    auto softplus = [&](ValueId v) {
        return b_.unary(OpKind::LogPlusOne, b_.unary(OpKind::Exponential, v, label_), label_);
    };
    ValueId y;
    if (op == "Relu") {
        y = b_.maximum(x, c(0), label_);
    } else if (op == "LeakyRelu") {
        ValueId positive = b_.compare(x, c(0), CompareDirection::GT, label_);
        y = b_.select(positive, x, mul(x, c(attrFloat("alpha", 0.01f))), label_);
    } else if (op == "PRelu") {
        auto slope = input(1);
        if (!slope)
            return false;
        ValueId negative = b_.compare(x, c(0), CompareDirection::LT, label_);
        y = b_.select(negative, mul(x, operand(*slope, e, shape)), x, label_);
    } else if (op == "Elu" || op == "Selu") {
        const double alpha = attrFloat("alpha", op == "Elu" ? 1.0f : 1.67326319217681884765625f);
        ValueId positive = b_.compare(x, c(0), CompareDirection::GT, label_);
        y = b_.select(positive, x, mul(c(alpha), b_.unary(OpKind::ExponentialMinusOne, x, label_)), label_);
        if (op == "Selu")
            y = mul(c(attrFloat("gamma", 1.05070102214813232421875f)), y);
    } else if (op == "HardSigmoid") {
        y = clamp01(add(mul(x, c(attrFloat("alpha", 0.2f))), c(attrFloat("beta", 0.5f))));
    } else if (op == "HardSwish") {
        y = mul(x, clamp01(add(mul(x, c(1.0 / 6.0)), c(0.5))));
    } else if (op == "Softplus") {
        y = softplus(x);
    } else if (op == "Softsign") {
        y = b_.divide(x, add(c(1), b_.unary(OpKind::Abs, x, label_)), label_);
    } else if (op == "Mish") {
        y = mul(x, b_.unary(OpKind::Tanh, softplus(x), label_));
    } else if (op == "Gelu") {
        if (attrString("approximate", "none") == "tanh") {
            ValueId cube = mul(mul(x, x), x);
            ValueId inner = mul(c(std::sqrt(2.0 / std::numbers::pi)), add(x, mul(c(0.044715), cube)));
            y = mul(mul(c(0.5), x), add(c(1), b_.unary(OpKind::Tanh, inner, label_)));
        } else {
            auto erf = b_.op(OpKind::OtherElementwise, {mul(x, c(1.0 / std::numbers::sqrt2))},
                             ir::OpaqueAttributes{"chlo.erf"}, label_);
            if (erf.empty())
                return false;
            y = mul(mul(c(0.5), x), add(c(1), erf.front()));
        }
    } else if (op == "Reciprocal") {
        y = b_.divide(c(1), x, label_);
    } else if (op == "IsNaN") {
        y = b_.compare(x, x, CompareDirection::NE, label_);
    }
    return define(0, y);
}

bool Importer::importClip() {
    auto s = input(0);
    if (!s)
        return false;
    ValueId x = value(*s);
    const TensorType t = typeOf(x);
    if (!x.valid())
        return false;
    // A bound: a known scalar, a run-time scalar, or absent.
    auto bound = [&](int i, std::string_view attr, double fallback) -> std::optional<ValueId> {
        if (hasInput(i)) {
            auto b = input(i);
            if (!b)
                return ValueId{};
            if (const ConstTensor* c = constant(*b)) {
                if (c->elements() != 1) {
                    error("onnx.clip", "bounds must be scalars");
                    return ValueId{};
                }
                return splat(c->realAt(0), t.element, {});
            }
            return reshapeTo(value(*b), {});
        }
        if (attribute(attr))
            return splat(attrFloat(attr, static_cast<float>(fallback)), t.element, {});
        return std::nullopt;
    };
    auto lo = bound(1, "min", -std::numeric_limits<double>::infinity());
    auto hi = bound(2, "max", std::numeric_limits<double>::infinity());
    if ((lo && !lo->valid()) || (hi && !hi->valid()))
        return false;
    if (lo && hi)
        return define(0, b_.op1(OpKind::Clamp, {*lo, x, *hi}, ir::NoAttributes{}, label_));
    ValueId y = x;
    if (lo)
        y = b_.maximum(y, broadcast(*lo, t.shape), label_);
    if (hi)
        y = b_.binary(OpKind::Minimum, y, broadcast(*hi, t.shape), label_);
    if (!lo && !hi)
        return alias(0, *s);
    return define(0, y);
}

bool Importer::importWhere() {
    auto c = input(0), a = input(1), b = input(2);
    if (!c || !a || !b)
        return false;
    const ConstTensor* cc = constant(*c);
    const ConstTensor* ca = constant(*a);
    const ConstTensor* cb = constant(*b);
    if (cc && ca && cb)
        if (auto folded = foldWhere(*cc, *ca, *cb))
            return defineConstant(0, std::move(*folded));
    auto ab = broadcastShapes(slotType(*a).shape, slotType(*b).shape);
    auto shape = ab ? broadcastShapes(slotType(*c).shape, *ab) : std::nullopt;
    if (!shape || !checkedElements(*shape))
        return error("onnx.broadcast", "condition and branches do not broadcast");
    const bool aConstant = !slots_[*a].parameter && !slots_[*a].value.valid();
    const ElementType element = aConstant ? slotType(*b).element : slotType(*a).element;
    ValueId predicate = operand(*c, ElementType::I1, *shape);
    ValueId x = operand(*a, element, *shape), y = operand(*b, element, *shape);
    return define(0, b_.select(predicate, x, y, label_));
}

bool Importer::importCast() {
    auto s = input(0);
    if (!s)
        return false;
    std::optional<ElementType> element;
    if (node_->op_type() == "CastLike") {
        auto like = input(1);
        if (!like)
            return false;
        element = slotType(*like).element;
    } else {
        element = elementTypeOf(static_cast<std::int32_t>(attrInt("to", 0)));
        if (!element)
            return error("onnx.cast", "cannot cast to ONNX data type " + std::to_string(attrInt("to", 0)));
    }
    if (const ConstTensor* c = constant(*s))
        if (auto folded = foldCast(*c, *element))
            return defineConstant(0, std::move(*folded));
    if (slotType(*s).element == *element)
        return alias(0, *s);
    return define(0, b_.convert(value(*s), *element, label_));
}

}  // namespace shardscope::import::onnx_import
