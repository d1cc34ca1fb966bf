// ONNX tensor computations on the IR: elementwise ops with numpy broadcasting made explicit, MatMul/Gemm as
// dot_general, Conv in ONNX's NCHW layout, pooling as reduce_window/reduce, and the norms and activations
// decomposed into elementwise ops and reductions. Constant operands fold where the op has a folding rule.
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

namespace {

// Window sizes, strides, dilations and pads beyond this are certainly garbage, and could overflow arithmetic.
constexpr std::int64_t kMaxWindowValue = std::int64_t{1} << 30;

Dims iotaDims(std::int64_t from, std::int64_t to) {
    Dims d;
    for (std::int64_t i = from; i < to; ++i) d.push_back(i);
    return d;
}

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

}  // namespace

TensorType Importer::typeOf(ValueId v) const {
    static const TensorType kNone;
    if (!v.valid() || b_.failed() || v.index >= b_.graph().values.size()) return kNone;
    return b_.type(v);
}

ValueId Importer::splat(double value, ElementType element, const Shape& shape) {
    if (!ir::isFloat(element) && !ir::isComplex(element))
        value = static_cast<double>(wrapInteger(element, element == ElementType::I1 ? value != 0 : toInt64(value)));
    auto r = b_.op(OpKind::Constant, {}, ir::ConstantAttributes{{value}}, label_, {}, {TensorType{shape, element}});
    return r.empty() ? ValueId{} : r.front();
}

ValueId Importer::broadcast(ValueId v, const Shape& shape) {
    if (!v.valid() || b_.failed()) return {};
    const TensorType& t = typeOf(v);
    if (t.shape == shape) return v;
    if (t.rank() > static_cast<int>(shape.size()) || !checkedElements(shape)) {
        error("onnx.broadcast", "cannot broadcast " + t.toString() + " to [" + ir::shapeToString(shape) + "]");
        return {};
    }
    Dims dims;
    const auto offset = static_cast<std::int64_t>(shape.size()) - t.rank();
    for (int i = 0; i < t.rank(); ++i) dims.push_back(offset + i);
    return b_.broadcastInDim(v, shape, std::move(dims), label_);
}

ValueId Importer::keepDims(ValueId reduced, const Shape& inputShape, const std::vector<std::int64_t>& axes) {
    Shape shape = inputShape;
    for (auto a : axes) shape[static_cast<std::size_t>(a)] = 1;
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

std::optional<std::vector<std::int64_t>> Importer::normalizeAxes(const std::vector<std::int64_t>& axes, int rank,
                                                                 std::string_view what) {
    std::vector<std::int64_t> out;
    std::set<std::int64_t> seen;
    for (auto a : axes) {
        auto n = normalizeAxis(a, rank, what);
        if (!n) return std::nullopt;
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
             return m.importBinary(OpKind::Remainder, m.attrInt("fmod", 0) ? FoldBinary::FMod : FoldBinary::Mod);
         }},
        {"And", [](Importer& m) { return m.importBinary(OpKind::And, FoldBinary::And); }},
        {"Or", [](Importer& m) { return m.importBinary(OpKind::Or, FoldBinary::Or); }},
        {"Xor", [](Importer& m) { return m.importBinary(OpKind::Xor, FoldBinary::Xor); }},
        {"Equal", [](Importer& m) { return m.importCompare(CompareDirection::EQ, FoldBinary::Equal); }},
        {"Less", [](Importer& m) { return m.importCompare(CompareDirection::LT, FoldBinary::Less); }},
        {"Greater", [](Importer& m) { return m.importCompare(CompareDirection::GT, FoldBinary::Greater); }},
        {"LessOrEqual", [](Importer& m) { return m.importCompare(CompareDirection::LE, FoldBinary::LessEqual); }},
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
        {"Erf", [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, FoldUnary::Erf, "chlo.erf"); }},
        {"Asin", [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, std::nullopt, "chlo.asin"); }},
        {"Acos", [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, std::nullopt, "chlo.acos"); }},
        {"Atan", [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, std::nullopt, "chlo.atan"); }},
        {"Sinh", [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, std::nullopt, "chlo.sinh"); }},
        {"Cosh", [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, std::nullopt, "chlo.cosh"); }},
        {"Asinh", [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, std::nullopt, "chlo.asinh"); }},
        {"Acosh", [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, std::nullopt, "chlo.acosh"); }},
        {"Atanh", [](Importer& m) { return m.importUnary(OpKind::OtherElementwise, std::nullopt, "chlo.atanh"); }},
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
    if (it == handlers.end()) return importOpaque();
    return it->second(*this);
}

bool Importer::importOpaque(const std::string& reason) {
    const std::string& domain = node_->domain();
    const std::string name =
        (domain.empty() || domain == "ai.onnx" ? std::string("onnx.") : domain + ".") + node_->op_type();
    std::vector<ValueId> operands;
    for (int i = 0; i < inputCount(); ++i) {
        if (!hasInput(i)) continue;
        auto s = input(i);
        if (!s) return false;
        // Constants (axes, scales, shapes) are the op's configuration rather than data it moves.
        if (!slots_[*s].parameter && !slots_[*s].value.valid()) continue;
        operands.push_back(value(*s));
    }
    std::vector<TensorType> types;
    std::vector<int> outputs;
    for (int o = 0; o < outputCount(); ++o) {
        if (!hasOutput(o)) continue;
        auto it = inferred_.find(node_->output(o));
        if (it == inferred_.end())
            return error("onnx.unknown-shape",
                         "'" + name + "' is not supported and ONNX shape inference gives no static shape for its output '" +
                             node_->output(o) + "'" +
                             (inferenceFailure_.empty() ? std::string() : " (shape inference failed: " + inferenceFailure_ + ")"));
        types.push_back(it->second);
        outputs.push_back(o);
    }
    auto& u = unsupported_[name];
    if (u.count++ == 0) {
        u.firstNode = label_;
        u.reason = reason;
    }
    if (types.empty()) return true;
    auto results = b_.op(OpKind::Opaque, operands, ir::OpaqueAttributes{name}, label_, {}, types);
    if (results.size() != types.size()) return false;
    for (std::size_t i = 0; i < outputs.size(); ++i)
        if (!define(outputs[i], results[i])) return false;
    return true;
}

bool Importer::importUnary(OpKind kind, std::optional<FoldUnary> fold, std::string_view otherName) {
    auto s = input(0);
    if (!s) return false;
    if (fold)
        if (const ConstTensor* c = constant(*s))
            if (auto folded = foldUnary(*fold, *c)) return defineConstant(0, std::move(*folded));
    ValueId x = value(*s);
    if (kind == OpKind::OtherElementwise) {
        auto r = b_.op(kind, {x}, ir::OpaqueAttributes{std::string(otherName)}, label_);
        return define(0, r.empty() ? ValueId{} : r.front());
    }
    return define(0, b_.unary(kind, x, label_));
}

bool Importer::importBinary(OpKind kind, std::optional<FoldBinary> fold) {
    auto a = input(0), b = input(1);
    if (!a || !b) return false;
    if (fold) {
        const ConstTensor* ca = constant(*a);
        const ConstTensor* cb = ca ? constant(*b) : nullptr;
        if (ca && cb) {
            std::string why;
            if (auto folded = foldBinary(*fold, *ca, *cb, why)) return defineConstant(0, std::move(*folded));
            if (!why.empty()) return error("onnx.fold", why);
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
        y = broadcast(b_.convert(value(*b), element, label_), *shape);  // Pow allows an exponent of another type
    } else {
        y = operand(*b, element, *shape);
    }
    return define(0, b_.binary(kind, x, y, label_));
}

bool Importer::importCompare(CompareDirection direction, FoldBinary fold) {
    auto a = input(0), b = input(1);
    if (!a || !b) return false;
    const ConstTensor* ca = constant(*a);
    const ConstTensor* cb = ca ? constant(*b) : nullptr;
    if (ca && cb) {
        std::string why;
        if (auto folded = foldBinary(fold, *ca, *cb, why)) return defineConstant(0, std::move(*folded));
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
        if (!s) return false;
        slots.push_back(*s);
    }
    if (slots.empty()) return error("onnx.missing-input", "needs at least one input");
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
    if (allConstant && acc && !mean) return defineConstant(0, std::move(*acc));
    Shape shape = slotType(slots.front()).shape;
    ElementType element = slotType(slots.front()).element;
    for (auto s : slots) {
        auto next = broadcastShapes(shape, slotType(s).shape);
        if (!next || !checkedElements(*next)) return error("onnx.broadcast", "input shapes do not broadcast");
        shape = *next;
        if (slots_[s].parameter || slots_[s].value.valid()) element = slotType(s).element;
    }
    ValueId result = operand(slots.front(), element, shape);
    for (std::size_t i = 1; i < slots.size(); ++i) result = b_.binary(kind, result, operand(slots[i], element, shape), label_);
    if (mean) result = b_.divide(result, splat(static_cast<double>(slots.size()), element, shape), label_);
    return define(0, result);
}

bool Importer::importActivation(std::string_view op) {
    auto s = input(0);
    if (!s) return false;
    if (op == "Relu")
        if (const ConstTensor* c = constant(*s))
            if (auto folded = foldUnary(FoldUnary::Relu, *c)) return defineConstant(0, std::move(*folded));
    ValueId x = value(*s);
    const TensorType t = typeOf(x);
    if (!x.valid()) return false;
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
        if (!slope) return false;
        ValueId negative = b_.compare(x, c(0), CompareDirection::LT, label_);
        y = b_.select(negative, mul(x, operand(*slope, e, shape)), x, label_);
    } else if (op == "Elu" || op == "Selu") {
        const double alpha = attrFloat("alpha", op == "Elu" ? 1.0f : 1.67326319217681884765625f);
        ValueId positive = b_.compare(x, c(0), CompareDirection::GT, label_);
        y = b_.select(positive, x, mul(c(alpha), b_.unary(OpKind::ExponentialMinusOne, x, label_)), label_);
        if (op == "Selu") y = mul(c(attrFloat("gamma", 1.05070102214813232421875f)), y);
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
            if (erf.empty()) return false;
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
    if (!s) return false;
    ValueId x = value(*s);
    const TensorType t = typeOf(x);
    if (!x.valid()) return false;
    // A bound: a known scalar, a run-time scalar, or absent.
    auto bound = [&](int i, std::string_view attr, double fallback) -> std::optional<ValueId> {
        if (hasInput(i)) {
            auto b = input(i);
            if (!b) return ValueId{};
            if (const ConstTensor* c = constant(*b)) {
                if (c->elements() != 1) {
                    error("onnx.clip", "bounds must be scalars");
                    return ValueId{};
                }
                return splat(c->realAt(0), t.element, {});
            }
            return reshapeTo(value(*b), {});
        }
        if (attribute(attr)) return splat(attrFloat(attr, static_cast<float>(fallback)), t.element, {});
        return std::nullopt;
    };
    auto lo = bound(1, "min", -std::numeric_limits<double>::infinity());
    auto hi = bound(2, "max", std::numeric_limits<double>::infinity());
    if ((lo && !lo->valid()) || (hi && !hi->valid())) return false;
    if (lo && hi) return define(0, b_.op1(OpKind::Clamp, {*lo, x, *hi}, ir::NoAttributes{}, label_));
    ValueId y = x;
    if (lo) y = b_.maximum(y, broadcast(*lo, t.shape), label_);
    if (hi) y = b_.binary(OpKind::Minimum, y, broadcast(*hi, t.shape), label_);
    if (!lo && !hi) return alias(0, *s);
    return define(0, y);
}

bool Importer::importWhere() {
    auto c = input(0), a = input(1), b = input(2);
    if (!c || !a || !b) return false;
    const ConstTensor* cc = constant(*c);
    const ConstTensor* ca = constant(*a);
    const ConstTensor* cb = constant(*b);
    if (cc && ca && cb)
        if (auto folded = foldWhere(*cc, *ca, *cb)) return defineConstant(0, std::move(*folded));
    auto ab = broadcastShapes(slotType(*a).shape, slotType(*b).shape);
    auto shape = ab ? broadcastShapes(slotType(*c).shape, *ab) : std::nullopt;
    if (!shape || !checkedElements(*shape)) return error("onnx.broadcast", "condition and branches do not broadcast");
    const bool aConstant = !slots_[*a].parameter && !slots_[*a].value.valid();
    const ElementType element = aConstant ? slotType(*b).element : slotType(*a).element;
    ValueId predicate = operand(*c, ElementType::I1, *shape);
    ValueId x = operand(*a, element, *shape), y = operand(*b, element, *shape);
    return define(0, b_.select(predicate, x, y, label_));
}

bool Importer::importCast() {
    auto s = input(0);
    if (!s) return false;
    std::optional<ElementType> element;
    if (node_->op_type() == "CastLike") {
        auto like = input(1);
        if (!like) return false;
        element = slotType(*like).element;
    } else {
        element = elementTypeOf(static_cast<std::int32_t>(attrInt("to", 0)));
        if (!element) return error("onnx.cast", "cannot cast to ONNX data type " + std::to_string(attrInt("to", 0)));
    }
    if (const ConstTensor* c = constant(*s))
        if (auto folded = foldCast(*c, *element)) return defineConstant(0, std::move(*folded));
    if (slotType(*s).element == *element) return alias(0, *s);
    return define(0, b_.convert(value(*s), *element, label_));
}

bool Importer::importMatMul() {
    auto a = input(0), b = input(1);
    if (!a || !b) return false;
    const TensorType ta = slotType(*a), tb = slotType(*b);
    const int ra = ta.rank(), rb = tb.rank();
    if (ra == 0 || rb == 0) return error("onnx.matmul", "operands must have rank >= 1");
    const bool aConstant = !slots_[*a].parameter && !slots_[*a].value.valid();
    const ElementType element = aConstant ? tb.element : ta.element;
    ValueId x = operand(*a, element, ta.shape), y = operand(*b, element, tb.shape);
    if (rb == 1) return define(0, b_.dotGeneral(x, y, {{}, {}, {ra - 1}, {0}}, label_));
    if (ra == 1) return define(0, b_.dotGeneral(x, y, {{}, {}, {0}, {rb - 2}}, label_));
    if (rb == 2) return define(0, b_.dotGeneral(x, y, {{}, {}, {ra - 1}, {0}}, label_));
    // Batched: broadcast the batch dimensions (numpy rules), then batch over them.
    const Shape batchA(ta.shape.begin(), ta.shape.end() - 2), batchB(tb.shape.begin(), tb.shape.end() - 2);
    auto batch = broadcastShapes(batchA, batchB);
    if (!batch) return error("onnx.broadcast", "batch dimensions [" + ir::shapeToString(batchA) + "] and [" +
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
    if (!a || !b) return false;
    const TensorType ta = slotType(*a), tb = slotType(*b);
    if (ta.rank() != 2 || tb.rank() != 2)
        return error("onnx.gemm", "operands must be matrices, got " + ta.toString() + " and " + tb.toString());
    const ElementType element = ta.element;
    const std::int64_t transA = attrInt("transA", 0), transB = attrInt("transB", 0);
    const double alpha = attrFloat("alpha", 1.0f), beta = attrFloat("beta", 1.0f);
    ValueId x = operand(*a, element, ta.shape), w = operand(*b, element, tb.shape);
    ValueId y = b_.dotGeneral(x, w, {{}, {}, {transA ? 0 : 1}, {transB ? 1 : 0}}, label_);
    const Shape shape = typeOf(y).shape;
    if (!y.valid()) return false;
    if (alpha != 1.0) y = b_.multiply(y, splat(alpha, element, shape), label_);
    if (hasInput(2) && beta != 0.0) {
        auto cs = input(2);
        if (!cs) return false;
        const TensorType tc = slotType(*cs);
        auto joint = broadcastShapes(tc.shape, shape);
        if (!joint || *joint != shape)
            return error("onnx.broadcast", "C [" + ir::shapeToString(tc.shape) + "] does not broadcast to the result [" +
                                               ir::shapeToString(shape) + "]");
        ValueId c = operand(*cs, element, tc.shape);
        if (beta != 1.0) c = b_.multiply(c, splat(beta, element, tc.shape), label_);
        y = b_.add(y, broadcast(c, shape), label_);
    }
    return define(0, y);
}

bool Importer::importConv() {
    auto xs = input(0), ws = input(1);
    if (!xs || !ws) return false;
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
    if (!ok) return false;
    if (strides.size() != spatial || dilations.size() != spatial || pads.size() != 2 * spatial)
        return error("onnx.conv", "strides, dilations and pads must have one entry per spatial dimension");
    if (kernel && *kernel != Dims(tw.shape.begin() + 2, tw.shape.end()))
        return error("onnx.conv", "kernel_shape does not match the weight " + tw.toString());
    const std::string autoPad = attrString("auto_pad", "NOTSET");
    const std::int64_t group = attrInt("group", 1);
    if (group < 1 || group > kMaxWindowValue) return error("onnx.conv", "group must be positive");
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
        if (!bs) return false;
        const TensorType tb = slotType(*bs);
        if (tb.rank() != 1) return error("onnx.conv", "the bias must be a vector, got " + tb.toString());
        y = b_.add(y, b_.broadcastInDim(operand(*bs, tx.element, tb.shape), typeOf(y).shape, {1}, label_), label_);
    }
    return define(0, y);
}

bool Importer::importConvTranspose() {
    auto xs = input(0), ws = input(1);
    if (!xs || !ws) return false;
    const TensorType tx = slotType(*xs), tw = slotType(*ws);
    const int rank = tx.rank();
    if (rank < 3 || tw.rank() != rank)
        return error("onnx.conv", "input " + tx.toString() + " and weight " + tw.toString() +
                                      " need the same rank of at least 3");
    const std::string autoPad = attrString("auto_pad", "NOTSET");
    if (attrInt("group", 1) != 1) return importOpaque("grouped ConvTranspose");
    if (attribute("output_shape") || (autoPad != "NOTSET" && autoPad != "VALID"))
        return importOpaque("ConvTranspose with output_shape or SAME padding");
    const auto spatial = static_cast<std::size_t>(rank - 2);
    bool ok = true;
    Dims strides = attrInts("strides", ok).value_or(Dims(spatial, 1));
    Dims dilations = attrInts("dilations", ok).value_or(Dims(spatial, 1));
    Dims pads = attrInts("pads", ok).value_or(Dims(2 * spatial, 0));
    Dims outputPadding = attrInts("output_padding", ok).value_or(Dims(spatial, 0));
    if (!ok) return false;
    if (strides.size() != spatial || dilations.size() != spatial || pads.size() != 2 * spatial ||
        outputPadding.size() != spatial)
        return error("onnx.conv", "strides, dilations, pads and output_padding need one entry per spatial dimension");
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
            if (v < 0 || v > kMaxWindowValue) return error("onnx.conv", "window attribute out of range");
        if (s < 1 || dil < 1) return error("onnx.conv", "strides and dilations must be positive");
        if (autoPad == "VALID") pads[i] = pads[i + spatial] = 0;
        const std::int64_t reach = dil * (k - 1);
        c.padding.emplace_back(reach - pads[i], reach - pads[i + spatial] + outputPadding[i]);
    }
    c.lhsDilation = strides;
    c.rhsDilation = dilations;
    ValueId x = operand(*xs, tx.element, tx.shape);
    ValueId w = b_.op1(OpKind::Reverse, {operand(*ws, tx.element, tw.shape)}, ir::DimensionsAttribute{reversed}, label_);
    ValueId y = b_.convolution(x, w, std::move(c), label_);
    if (hasInput(2) && y.valid()) {
        auto bs = input(2);
        if (!bs) return false;
        const TensorType tb = slotType(*bs);
        if (tb.rank() != 1) return error("onnx.conv", "the bias must be a vector, got " + tb.toString());
        y = b_.add(y, b_.broadcastInDim(operand(*bs, tx.element, tb.shape), typeOf(y).shape, {1}, label_), label_);
    }
    return define(0, y);
}

bool Importer::importPool(Reducer reducer, bool global) {
    auto xs = input(0);
    if (!xs) return false;
    const TensorType tx = slotType(*xs);
    const int rank = tx.rank();
    if (rank < 3) return error("onnx.pool", "needs an input of rank >= 3 ([N, C, spatial...]), got " + tx.toString());
    if (hasOutput(1)) return importOpaque("MaxPool indices");
    ValueId x = value(*xs);
    const ElementType e = tx.element;
    const bool average = reducer == Reducer::Add;
    if (global) {
        const Dims axes = iotaDims(2, rank);
        ValueId y = b_.reduce(x, axes, reducer, label_);
        if (average) {
            std::int64_t count = 1;
            for (auto a : axes) count *= tx.shape[static_cast<std::size_t>(a)];
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
    if (!ok) return false;
    if (!kernel || kernel->size() != spatial || strides.size() != spatial || dilations.size() != spatial ||
        pads.size() != 2 * spatial)
        return error("onnx.pool", "kernel_shape, strides, dilations and pads need one entry per spatial dimension");
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
            if (v < 0 || v > kMaxWindowValue) return error("onnx.pool", "window attribute out of range");
        if (k < 1 || s < 1 || d < 1) return error("onnx.pool", "kernel, strides and dilations must be positive");
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
    if (!average || !y.valid()) return define(0, y);
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
    if (!xs || !scale || !bias || !mean || !var) return false;
    const TensorType tx = slotType(*xs);
    if (tx.rank() < 2) return error("onnx.norm", "needs an input of rank >= 2, got " + tx.toString());
    const std::int64_t channels = tx.shape[1];
    for (auto s : {*scale, *bias, *mean, *var})
        if (slotType(s).shape != Shape{channels})
            return error("onnx.norm", "'" + slots_[s].name + "' should have shape [" + std::to_string(channels) +
                                          "], got " + slotType(s).toString());
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
    if (!xs || !scale) return false;
    const TensorType tx = slotType(*xs);
    const int rank = tx.rank();
    auto axis = normalizeAxis(attrInt("axis", -1), rank, "axis");
    if (!axis) return false;
    const ElementType e = tx.element;
    const Dims axes = iotaDims(*axis, rank), keep = iotaDims(0, *axis);
    std::int64_t count = 1;
    for (auto a : axes) count *= tx.shape[static_cast<std::size_t>(a)];
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
        if (!bias) return false;
        y = b_.add(y, operand(*bias, e, tx.shape), label_);
    }
    if (!define(0, y)) return false;
    if (hasOutput(1) && !define(1, keepDims(mean, tx.shape, axes))) return false;
    if (hasOutput(2) && !define(2, keepDims(inv, tx.shape, axes))) return false;
    return true;
}

bool Importer::importInstanceNorm() {
    auto xs = input(0), scale = input(1), bias = input(2);
    if (!xs || !scale || !bias) return false;
    const TensorType tx = slotType(*xs);
    const int rank = tx.rank();
    if (rank < 3) return error("onnx.norm", "needs an input of rank >= 3, got " + tx.toString());
    const ElementType e = tx.element;
    const Dims axes = iotaDims(2, rank), keep = {0, 1};
    std::int64_t count = 1;
    for (auto a : axes) count *= tx.shape[static_cast<std::size_t>(a)];
    const Shape c{tx.shape[1]};
    ValueId x = value(*xs);
    ValueId sum = b_.reduce(x, axes, Reducer::Add, label_);
    const Shape reduced = typeOf(sum).shape;
    ValueId mean = b_.divide(sum, splat(static_cast<double>(count), e, reduced), label_);
    ValueId centred = b_.subtract(x, b_.broadcastInDim(mean, tx.shape, keep, label_), label_);
    ValueId variance = b_.divide(b_.reduce(b_.multiply(centred, centred, label_), axes, Reducer::Add, label_),
                                 splat(static_cast<double>(count), e, reduced), label_);
    ValueId inv = b_.unary(OpKind::Rsqrt, b_.add(variance, splat(attrFloat("epsilon", 1e-5f), e, reduced), label_), label_);
    ValueId y = b_.multiply(centred, b_.broadcastInDim(inv, tx.shape, keep, label_), label_);
    y = b_.multiply(y, b_.broadcastInDim(operand(*scale, e, c), tx.shape, {1}, label_), label_);
    return define(0, b_.add(y, b_.broadcastInDim(operand(*bias, e, c), tx.shape, {1}, label_), label_));
}

bool Importer::importLrn() {
    auto xs = input(0);
    if (!xs) return false;
    const TensorType tx = slotType(*xs);
    const std::int64_t size = attrInt("size", 0);
    if (tx.rank() < 3 || size < 1 || size > kMaxWindowValue)
        return error("onnx.lrn", "needs an input of rank >= 3 and a positive size");
    const ElementType e = tx.element;
    const double alpha = attrFloat("alpha", 1e-4f), beta = attrFloat("beta", 0.75f), bias = attrFloat("bias", 1.0f);
    // square_sum[c] sums x² over channels [c − floor((size−1)/2), c + ceil((size−1)/2)].
    ir::WindowAttributes w;
    w.reducer = Reducer::Add;
    for (int d = 0; d < tx.rank(); ++d) {
        w.windowDimensions.push_back(d == 1 ? size : 1);
        w.padding.emplace_back(d == 1 ? (size - 1) / 2 : 0, d == 1 ? size / 2 : 0);
    }
    ValueId x = value(*xs);
    ValueId squares = b_.reduceWindow(b_.multiply(x, x, label_), w, label_);
    ValueId base = b_.add(splat(bias, e, tx.shape),
                          b_.multiply(splat(alpha / static_cast<double>(size), e, tx.shape), squares, label_), label_);
    return define(0, b_.divide(x, b_.binary(OpKind::Power, base, splat(beta, e, tx.shape), label_), label_));
}

bool Importer::importSoftmax(bool logarithm) {
    auto xs = input(0);
    if (!xs) return false;
    const TensorType tx = slotType(*xs);
    const int rank = tx.rank();
    if (rank == 0) return error("onnx.softmax", "needs an input of rank >= 1");
    // Before opset 13 the input is read as a matrix [prod(:axis), prod(axis:)] and normalized along its rows.
    const bool coerced = opset_ < 13;
    auto axis = normalizeAxis(attrInt("axis", coerced ? 1 : -1), rank, "axis");
    if (!axis) return false;
    const Dims axes = coerced ? iotaDims(*axis, rank) : Dims{*axis};
    Dims keep;
    for (int d = 0; d < rank; ++d)
        if (std::find(axes.begin(), axes.end(), d) == axes.end()) keep.push_back(d);
    ValueId x = value(*xs);
    ValueId max = b_.reduce(x, axes, Reducer::Maximum, label_);
    ValueId shifted = b_.subtract(x, b_.broadcastInDim(max, tx.shape, keep, label_), label_);
    ValueId exp = b_.unary(OpKind::Exponential, shifted, label_);
    ValueId sum = b_.reduce(exp, axes, Reducer::Add, label_);
    if (logarithm)
        return define(0, b_.subtract(shifted, b_.broadcastInDim(b_.unary(OpKind::Log, sum, label_), tx.shape, keep, label_),
                                     label_));
    return define(0, b_.divide(exp, b_.broadcastInDim(sum, tx.shape, keep, label_), label_));
}

bool Importer::importReduce(std::string_view op) {
    auto xs = input(0);
    if (!xs) return false;
    const TensorType tx = slotType(*xs);
    const int rank = tx.rank();
    std::vector<std::int64_t> axes;
    if (hasInput(1)) {
        auto given = constantInts(1, "axes");
        if (!given) return false;
        axes = *given;
    } else {
        bool ok = true;
        axes = attrInts("axes", ok).value_or(std::vector<std::int64_t>{});
        if (!ok) return false;
    }
    const bool keep = attrInt("keepdims", 1) != 0;
    if (axes.empty()) {
        if (attrInt("noop_with_empty_axes", 0) != 0) return alias(0, *xs);
        axes = iotaDims(0, rank);
    }
    auto normalized = normalizeAxes(axes, rank, "axes");
    if (!normalized) return false;
    axes = *normalized;
    std::sort(axes.begin(), axes.end());
    std::int64_t count = 1;
    for (auto a : axes) count *= tx.shape[static_cast<std::size_t>(a)];
    const std::unordered_map<std::string_view, FoldReduce> folds = {{"Sum", FoldReduce::Sum},
                                                                    {"Mean", FoldReduce::Mean},
                                                                    {"Max", FoldReduce::Max},
                                                                    {"Min", FoldReduce::Min},
                                                                    {"Prod", FoldReduce::Prod}};
    if (auto f = folds.find(op); f != folds.end())
        if (const ConstTensor* c = constant(*xs))
            if (auto folded = foldReduce(f->second, *c, axes, keep)) return defineConstant(0, std::move(*folded));
    ValueId x = value(*xs);
    const ElementType e = tx.element;
    ValueId y;
    if (op == "Sum" || op == "Mean") y = b_.reduce(x, axes, Reducer::Add, label_);
    else if (op == "Max") y = b_.reduce(x, axes, Reducer::Maximum, label_);
    else if (op == "Min") y = b_.reduce(x, axes, Reducer::Minimum, label_);
    else if (op == "Prod") y = b_.reduce(x, axes, Reducer::Multiply, label_);
    else if (op == "SumSquare" || op == "L2") y = b_.reduce(b_.multiply(x, x, label_), axes, Reducer::Add, label_);
    else if (op == "L1") y = b_.reduce(b_.unary(OpKind::Abs, x, label_), axes, Reducer::Add, label_);
    else if (op == "LogSum") y = b_.reduce(x, axes, Reducer::Add, label_);
    else if (op == "LogSumExp") y = b_.reduce(b_.unary(OpKind::Exponential, x, label_), axes, Reducer::Add, label_);
    if (!y.valid()) return false;
    if (op == "Mean") y = b_.divide(y, splat(static_cast<double>(count), e, typeOf(y).shape), label_);
    else if (op == "L2") y = b_.unary(OpKind::Sqrt, y, label_);
    else if (op == "LogSum" || op == "LogSumExp") y = b_.unary(OpKind::Log, y, label_);
    return define(0, keep ? keepDims(y, tx.shape, axes) : y);
}

bool Importer::importEinsum() {
    std::string equation;
    for (char ch : attrString("equation", ""))
        if (ch != ' ') equation += ch;
    if (equation.find("...") != std::string::npos || inputCount() < 1 || inputCount() > 2)
        return importOpaque("Einsum with ellipsis or more than two operands");
    auto arrow = equation.find("->");
    std::string lhs = equation.substr(0, arrow), out;
    if (arrow != std::string::npos) {
        out = equation.substr(arrow + 2);
    } else {
        // Implicit output: the letters that appear exactly once, in alphabetical order.
        for (char ch = 'A'; ch <= 'z'; ++ch)
            if (std::isalpha(static_cast<unsigned char>(ch)) && std::count(lhs.begin(), lhs.end(), ch) == 1) out += ch;
    }
    std::vector<std::string> terms;
    for (std::size_t start = 0;;) {
        auto comma = lhs.find(',', start);
        terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (static_cast<int>(terms.size()) != inputCount()) return error("onnx.einsum", "equation '" + equation + "' does not match its inputs");
    for (const auto& t : terms)
        for (char ch : t)
            if (!std::isalpha(static_cast<unsigned char>(ch)) || std::count(t.begin(), t.end(), ch) != 1)
                return importOpaque("Einsum with repeated or non-letter subscripts");
    std::vector<std::size_t> slots;
    for (int i = 0; i < inputCount(); ++i) {
        auto s = input(i);
        if (!s) return false;
        if (static_cast<int>(terms[static_cast<std::size_t>(i)].size()) != slotType(*s).rank())
            return error("onnx.einsum", "subscripts '" + terms[static_cast<std::size_t>(i)] + "' do not match " +
                                            slotType(*s).toString());
        slots.push_back(*s);
    }
    const ElementType e = slotType(slots.front()).element;
    if (slots.size() == 2)
        return define(0, b_.einsum(terms[0] + "," + terms[1] + "->" + out, operand(slots[0], e, slotType(slots[0]).shape),
                                   operand(slots[1], e, slotType(slots[1]).shape), label_));
    // One operand: sum away the letters absent from the output, then permute.
    const std::string& in = terms[0];
    Dims summed;
    std::string kept;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (out.find(in[i]) == std::string::npos) summed.push_back(static_cast<std::int64_t>(i));
        else kept += in[i];
    }
    if (kept.size() != out.size()) return error("onnx.einsum", "output subscripts '" + out + "' are not in the input");
    ValueId x = value(slots[0]);
    if (!summed.empty()) x = b_.reduce(x, summed, Reducer::Add, label_);
    Dims permutation;
    for (char ch : out) permutation.push_back(static_cast<std::int64_t>(kept.find(ch)));
    if (permutation == iotaDims(0, static_cast<std::int64_t>(permutation.size()))) return define(0, x);
    return define(0, b_.transpose(x, permutation, label_));
}

bool Importer::importCumSum() {
    auto xs = input(0);
    if (!xs) return false;
    auto axisValue = constantInts(1, "axis");
    if (!axisValue) return false;
    if (axisValue->size() != 1) return error("onnx.axis", "axis must be a scalar");
    if (attrInt("exclusive", 0) != 0 || attrInt("reverse", 0) != 0) return importOpaque("exclusive or reverse CumSum");
    const TensorType tx = slotType(*xs);
    auto axis = normalizeAxis(axisValue->front(), tx.rank(), "axis");
    if (!axis) return false;
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
