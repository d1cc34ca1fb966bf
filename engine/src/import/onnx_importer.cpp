// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// ONNX import: parsing, symbolic dimensions, ONNX shape inference, graph inputs and initializers, the node
// loop and the graph outputs. The operators themselves live in import/onnx/.
#include "shardscope/import/onnx.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <set>
#include <unordered_set>

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "import/onnx/importer.h"

namespace shardscope::import {

namespace {

SourceLocation inFile(const std::string& file) {
    SourceLocation location;
    location.file = file;
    return location;
}

}  // namespace

namespace onnx_import {

using ir::ElementType;

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Parameter names people and exporters write: module paths ("features.0.weight", "layer_scale"), embedding
// and token tables. Data inputs are rarely named so ("input.1" has a numeric leaf).
bool looksLikeWeight(const std::string& name) {
    const std::string l = lower(name);
    for (const char* word : {"weight", "bias", "token", "embed", "scale", "gamma", "beta", "kernel",
                             "running_", "param", "pos_"})
        if (l.find(word) != std::string::npos)
            return true;
    if (l.rfind("onnx::", 0) == 0)
        return false;
    const auto dot = l.rfind('.');
    if (dot == std::string::npos || dot + 1 >= l.size())
        return false;
    return std::isalpha(static_cast<unsigned char>(l[dot + 1])) != 0;
}

// Inputs that hold weights: Conv/Gemm/MatMul right-hand sides, biases, norm statistics, embedding tables.
bool isWeightPosition(const std::string& op, int index) {
    if (op == "Conv" || op == "ConvTranspose" || op == "Gemm")
        return index >= 1;
    if (op == "MatMul" || op == "PRelu")
        return index == 1;
    if (op == "BatchNormalization")
        return index >= 1 && index <= 4;
    if (op == "LayerNormalization" || op == "InstanceNormalization" || op == "GroupNormalization")
        return index >= 1;
    if (op == "Gather")
        return index == 0;
    return false;
}

// Inputs that configure an op (shapes, axes, scales, bounds) rather than carry data it computes on.
bool isConfigurationPosition(const std::string& op, int index) {
    if (op == "Reshape" || op == "Expand" || op == "Tile" || op == "Squeeze" || op == "Unsqueeze" ||
        op == "Split" || op == "TopK" || op == "CumSum" || op == "Upsample" || op.rfind("Reduce", 0) == 0)
        return index == 1;
    if (op == "Slice" || op == "Pad" || op == "Resize" || op == "Clip" || op == "OneHot")
        return index >= 1;
    return op == "ConstantOfShape" || op == "Range";
}

std::optional<ir::TensorType> staticType(const ::onnx::TypeProto& type) {
    if (!type.has_tensor_type() || !type.tensor_type().has_shape())
        return std::nullopt;
    auto element = elementTypeOf(type.tensor_type().elem_type());
    if (!element)
        return std::nullopt;
    ir::TensorType t{{}, *element};
    for (const auto& d : type.tensor_type().shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 0)
            return std::nullopt;
        t.shape.push_back(d.dim_value());
    }
    if (!checkedElements(t.shape))
        return std::nullopt;
    return t;
}

}  // namespace

Importer::Importer(::onnx::ModelProto& model, std::string fileName, const ImportOptions& options)
    : model_(model),
      fileName_(std::move(fileName)),
      options_(options),
      b_(model.graph().name().empty() ? "main" : model.graph().name(), fileName_) {}

SourceLocation Importer::here() const {
    SourceLocation location;
    location.file = fileName_;
    if (node_)
        location.name = label_;
    return location;
}

bool Importer::error(std::string code, const std::string& message) {
    std::string prefix = node_ ? node_->op_type() + ": " : std::string();
    diagnostics_.push_back(makeError(std::move(code), prefix + message, here()));
    return false;
}

const ::onnx::AttributeProto* Importer::attribute(std::string_view name) const {
    for (const auto& a : node_->attribute())
        if (a.name() == name)
            return &a;
    return nullptr;
}

std::int64_t Importer::attrInt(std::string_view name, std::int64_t fallback) const {
    const auto* a = attribute(name);
    return a && a->has_i() ? a->i() : fallback;
}

float Importer::attrFloat(std::string_view name, float fallback) const {
    const auto* a = attribute(name);
    if (!a)
        return fallback;
    if (a->has_f())
        return a->f();
    if (a->has_i())
        return static_cast<float>(a->i());
    return fallback;
}

std::string Importer::attrString(std::string_view name, const std::string& fallback) const {
    const auto* a = attribute(name);
    return a && a->has_s() ? a->s() : fallback;
}

std::optional<std::vector<std::int64_t>> Importer::attrInts(std::string_view name, bool& ok) {
    const auto* a = attribute(name);
    if (!a)
        return std::nullopt;
    if (a->type() != ::onnx::AttributeProto_AttributeType_INTS && a->ints_size() == 0 &&
        a->type() != ::onnx::AttributeProto_AttributeType_UNDEFINED) {
        ok = error("onnx.attribute", "attribute '" + std::string(name) + "' should be a list of integers");
        return std::nullopt;
    }
    return std::vector<std::int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<std::size_t> Importer::input(int i) {
    if (!hasInput(i)) {
        error("onnx.missing-input", "input #" + std::to_string(i) + " is missing");
        return std::nullopt;
    }
    auto it = names_.find(node_->input(i));
    if (it == names_.end()) {
        error("onnx.undefined-value",
              "input '" + node_->input(i) +
                  "' is not defined by an earlier node, an initializer or a graph input");
        return std::nullopt;
    }
    return it->second;
}

const ConstTensor* Importer::constant(std::size_t s) {
    if (slots_[s].parameter)
        return nullptr;
    if (slots_[s].constant)
        return slots_[s].constant.get();
    if (!slots_[s].tensor)
        return nullptr;
    const ::onnx::TensorProto* tensor = slots_[s].tensor;
    slots_[s].tensor = nullptr;  // decode once: a tensor too large to fold stays a constant of unknown values
    std::string why;
    auto decoded = decodeTensor(*tensor, why);
    if (!decoded) {
        if (!why.empty())
            error("onnx.tensor", "tensor '" + slots_[s].name + "' " + why);
        return nullptr;
    }
    slots_[s].constant = std::make_shared<const ConstTensor>(std::move(*decoded));
    return slots_[s].constant.get();
}

std::optional<std::vector<std::int64_t>> Importer::constantInts(int i, std::string_view what) {
    auto s = input(i);
    if (!s)
        return std::nullopt;
    const ConstTensor* c = constant(*s);
    if (!c) {
        error("onnx.dynamic-shape", "the " + std::string(what) + " ('" + node_->input(i) +
                                        "') must be known at import time, but it is computed at run time");
        return std::nullopt;
    }
    return c->toInts();
}

ValueId Importer::value(std::size_t s) {
    if (slots_[s].value.valid())
        return slots_[s].value;
    if (slots_[s].parameter) {
        const Slot& slot = slots_[s];
        ValueId v = b_.parameter(slot.name, slot.type.shape, slot.type.element);
        slots_[s].value = v;
        return v;
    }
    return materializeConstant(s, slots_[s].type.element);
}

ValueId Importer::materializeConstant(std::size_t s, ElementType element) {
    const ConstTensor* c = constant(s);
    ir::ConstantAttributes literal;
    auto convert = [&](std::int64_t i) {
        if (!ir::isFloat(element) && !ir::isComplex(element))
            return static_cast<double>(
                wrapInteger(element, element == ElementType::I1 ? (c->realAt(i) != 0) : c->intAt(i)));
        return c->realAt(i);
    };
    if (c && c->elements() > 0) {
        if (c->stored() == 1)
            literal.values.push_back(convert(0));
        else if (c->elements() <= kLiteralLimit)
            for (std::int64_t i = 0; i < c->elements(); ++i)
                literal.values.push_back(convert(i));
    }
    const ir::TensorType type{slots_[s].type.shape, element};
    auto results = b_.op(ir::OpKind::Constant, {}, std::move(literal), slots_[s].origin, {}, {type});
    ValueId v = results.empty() ? ValueId{} : results.front();
    if (element == slots_[s].type.element)
        slots_[s].value = v;
    return v;
}

ValueId Importer::operand(std::size_t s, ElementType element, const ir::Shape& shape) {
    if (!slots_[s].parameter && !slots_[s].value.valid()) {
        const ConstTensor* c = constant(s);
        if (c && c->stored() == 1 && c->elements() > 0 && broadcastShapes(c->shape, shape) == shape) {
            const bool integral = !ir::isFloat(element) && !ir::isComplex(element);
            const double v = integral
                                 ? static_cast<double>(wrapInteger(
                                       element, element == ElementType::I1 ? c->realAt(0) != 0 : c->intAt(0)))
                                 : c->realAt(0);
            return splat(v, element, shape);
        }
        ValueId v = materializeConstant(s, element);
        return v.valid() ? broadcast(v, shape) : v;
    }
    ValueId v = value(s);
    return v.valid() ? broadcast(v, shape) : v;
}

std::size_t Importer::newSlot(Slot slot, const std::string& name) {
    slots_.push_back(std::move(slot));
    names_[name] = slots_.size() - 1;
    return slots_.size() - 1;
}

bool Importer::define(int output, ValueId v) {
    if (!v.valid() || b_.failed())
        return false;
    if (!hasOutput(output))
        return true;
    const std::string& name = node_->output(output);
    if (names_.count(name))
        return error("onnx.redefined-value", "value '" + name + "' is defined twice");
    Slot slot;
    slot.type = b_.type(v);
    slot.value = v;
    slot.name = name;
    slot.origin = label_;
    newSlot(std::move(slot), name);
    return true;
}

bool Importer::defineConstant(int output, ConstTensor tensor) {
    if (!hasOutput(output))
        return true;
    const std::string& name = node_->output(output);
    if (names_.count(name))
        return error("onnx.redefined-value", "value '" + name + "' is defined twice");
    Slot slot;
    slot.type = ir::TensorType{tensor.shape, tensor.element};
    slot.constant = std::make_shared<const ConstTensor>(std::move(tensor));
    slot.name = name;
    slot.origin = label_;
    newSlot(std::move(slot), name);
    return true;
}

bool Importer::alias(int output, std::size_t s) {
    if (!hasOutput(output))
        return true;
    const std::string& name = node_->output(output);
    if (names_.count(name))
        return error("onnx.redefined-value", "value '" + name + "' is defined twice");
    names_[name] = s;
    return true;
}

bool Importer::checkModel() {
    const SourceLocation file = inFile(fileName_);
    if (!model_.has_graph()) {
        diagnostics_.push_back(makeError("onnx.parse", "not a valid ONNX model: it has no graph", file));
        return false;
    }
    for (const auto& o : model_.opset_import())
        if (o.domain().empty() || o.domain() == "ai.onnx")
            opset_ = o.version();
    if (opset_ <= 0) {
        diagnostics_.push_back(makeError(
            "onnx.parse", "not a valid ONNX model: it imports no version of the default operator set", file));
        return false;
    }
    return true;
}

bool Importer::resolveSymbolicDimensions() {
    const SourceLocation file = inFile(fileName_);
    std::set<std::string> reported, seen;
    bool ok = true;
    for (auto& in : *model_.mutable_graph()->mutable_input()) {
        if (initializers_.count(in.name()))
            continue;
        if (!in.type().has_tensor_type() || !elementTypeOf(in.type().tensor_type().elem_type())) {
            diagnostics_.push_back(
                makeError("onnx.input-type",
                          "input '" + in.name() + "' is not a tensor of a supported element type", file));
            ok = false;
            continue;
        }
        if (!in.type().tensor_type().has_shape()) {
            diagnostics_.push_back(makeError(
                "onnx.input-shape", "input '" + in.name() + "' has no shape (not even its rank)", file));
            ok = false;
            continue;
        }
        auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
        auto& names = dimensionNames_[in.name()];
        for (int d = 0; d < shape->dim_size(); ++d) {
            auto* dim = shape->mutable_dim(d);
            names.push_back(dim->has_dim_param() ? dim->dim_param() : std::string());
            if (dim->has_dim_value()) {
                if (dim->dim_value() < 0) {
                    diagnostics_.push_back(makeError(
                        "onnx.input-shape",
                        "dimension " + std::to_string(d) + " of input '" + in.name() + "' is negative",
                        file));
                    ok = false;
                }
                continue;
            }
            if (!dim->has_dim_param() || dim->dim_param().empty()) {
                diagnostics_.push_back(makeError("onnx.symbolic-dimension",
                                                 "dimension " + std::to_string(d) + " of input '" +
                                                     in.name() + "' has no size and no name to give it one",
                                                 file));
                ok = false;
                continue;
            }
            const std::string param = dim->dim_param();
            seen.insert(param);
            auto it = options_.dimensions.find(param);
            if (it != options_.dimensions.end() && it->second < 0) {
                if (reported.insert(param).second)
                    diagnostics_.push_back(makeError(
                        "onnx.symbolic-dimension",
                        "--dim " + param + "=" + std::to_string(it->second) + " is negative", file));
                ok = false;
                continue;
            }
            if (it == options_.dimensions.end()) {
                if (reported.insert(param).second) {
                    diagnostics_.push_back(makeError("onnx.symbolic-dimension",
                                                     "symbolic dimension '" + param + "' of input '" +
                                                         in.name() + "' needs a value: pass --dim " + param +
                                                         "=N",
                                                     file));
                }
                ok = false;
                continue;
            }
            dim->set_dim_value(it->second);  // keeps dim_param out: the two share a oneof
        }
    }
    // A value for a dimension the model does not have is a mistake (a misspelt name, or a static batch).
    std::string known;
    for (const auto& name : seen)
        known += (known.empty() ? "" : ", ") + name;
    for (const auto& [name, value] : options_.dimensions)
        if (!seen.count(name)) {
            diagnostics_.push_back(
                makeError("onnx.symbolic-dimension",
                          "--dim " + name + "=" + std::to_string(value) +
                              ": the model has no symbolic dimension '" + name + "' (" +
                              (known.empty() ? "its shapes are static; to plan it at another size, set a "
                                               "global size: --set batch=N,seq=N"
                                             : "it has: " + known) +
                              ")",
                          file));
            ok = false;
        }
    return ok;
}

bool Importer::checkGraphStructure() {
    // ONNX requires SSA values in topological order; checking it here (subgraphs included) also keeps
    // libonnx's shape inference, which dereferences the types of undefined inputs, away from malformed
    // graphs.
    std::function<bool(const ::onnx::GraphProto&, std::unordered_set<std::string>)> check =
        [&](const ::onnx::GraphProto& graph, std::unordered_set<std::string> defined) {
            for (const auto& in : graph.input())
                defined.insert(in.name());
            for (const auto& t : graph.initializer())
                defined.insert(t.name());
            for (const auto& n : graph.node()) {
                for (const auto& in : n.input())
                    if (!in.empty() && !defined.count(in))
                        return error("onnx.undefined-value", "input '" + in +
                                                                 "' is not defined by an earlier node, an "
                                                                 "initializer or a graph input");
                for (const auto& a : n.attribute()) {
                    if (a.has_g() && !check(a.g(), defined))
                        return false;
                    for (const auto& sub : a.graphs())
                        if (!check(sub, defined))
                            return false;
                }
                for (const auto& out : n.output())
                    if (!out.empty() && !defined.insert(out).second)
                        return error("onnx.redefined-value", "value '" + out + "' is defined twice");
            }
            for (const auto& out : graph.output())
                if (!defined.count(out.name()))
                    return error("onnx.undefined-value",
                                 "graph output '" + out.name() + "' is not produced by any node");
            return true;
        };
    const auto& g = model_.graph();
    std::unordered_set<std::string> defined;
    for (const auto& in : g.input())
        defined.insert(in.name());
    for (const auto& t : g.initializer())
        defined.insert(t.name());
    for (nodeIndex_ = 0; nodeIndex_ < g.node_size(); ++nodeIndex_) {
        node_ = &g.node(nodeIndex_);
        label_ = node_->name().empty() ? node_->op_type() + "_" + std::to_string(nodeIndex_) : node_->name();
        for (const auto& in : node_->input())
            if (!in.empty() && !defined.count(in))
                return error(
                    "onnx.undefined-value",
                    "input '" + in + "' is not defined by an earlier node, an initializer or a graph input");
        for (const auto& a : node_->attribute()) {
            if (a.has_g() && !check(a.g(), defined))
                return false;
            for (const auto& sub : a.graphs())
                if (!check(sub, defined))
                    return false;
        }
        for (const auto& out : node_->output())
            if (!out.empty() && !defined.insert(out).second)
                return error("onnx.redefined-value", "value '" + out + "' is defined twice");
    }
    node_ = nullptr;
    for (const auto& out : g.output())
        if (!defined.count(out.name())) {
            diagnostics_.push_back(makeError("onnx.undefined-value",
                                             "graph output '" + out.name() + "' is not produced by any node",
                                             inFile(fileName_)));
            return false;
        }
    return true;
}

void Importer::runShapeInference() {
    if (inferenceRan_)
        return;
    inferenceRan_ = true;
    try {
        // No data propagation: libonnx 1.12 dereferences missing input types in it (a Shape after a node
        // whose inference failed crashes), and the importer folds shape computations itself.
        ::onnx::ShapeInferenceOptions inferenceOptions(/*check_type=*/false, /*strict_mode=*/0,
                                                       /*data_propagation=*/false);
        ::onnx::shape_inference::InferShapes(model_, ::onnx::OpSchemaRegistry::Instance(), inferenceOptions);
    } catch (const std::exception& e) {
        inferenceFailure_ = e.what();
        diagnostics_.push_back(makeWarning("onnx.shape-inference",
                                           "ONNX shape inference stopped early (" + inferenceFailure_ +
                                               "); only operators Shardscope maps itself keep their shapes",
                                           inFile(fileName_)));
    }
    const auto& g = model_.graph();
    for (const auto* list : {&g.value_info(), &g.output(), &g.input()})
        for (const auto& vi : *list)
            if (auto t = staticType(vi.type()))
                inferred_[vi.name()] = *t;
}

bool Importer::declareInitializers() {
    for (const auto& t : model_.graph().initializer()) {
        if (t.name().empty())
            continue;
        node_ = nullptr;
        auto element = elementTypeOf(t.data_type());
        ir::Shape shape(t.dims().begin(), t.dims().end());
        if (!element || !checkedElements(shape)) {
            diagnostics_.push_back(
                makeError("onnx.tensor",
                          "initializer '" + t.name() + "' " +
                              (element ? "has an invalid shape [" + ir::shapeToString(shape) + "]"
                                       : "has an unsupported element type"),
                          inFile(fileName_)));
            return false;
        }
        if (names_.count(t.name())) {
            diagnostics_.push_back(makeError("onnx.redefined-value",
                                             "initializer '" + t.name() + "' is defined twice",
                                             inFile(fileName_)));
            return false;
        }
        initializers_[t.name()] = &t;
        Slot slot;
        slot.type = ir::TensorType{shape, *element};
        slot.tensor = &t;
        // Float tensors with at least one dimension are weights, unless they only configure ops (Resize
        // scales, Clip bounds); integer ones (shapes, indices) and float scalars (epsilons) are constants.
        bool configuration = true;
        if (auto it = consumers_.find(t.name()); it != consumers_.end())
            for (const auto& [n, i] : it->second)
                configuration = configuration && isConfigurationPosition(n->op_type(), i);
        slot.parameter = ir::isFloat(*element) && !shape.empty() && !configuration;
        slot.name = t.name();
        slot.origin = t.name();
        newSlot(std::move(slot), t.name());
    }
    return true;
}

bool Importer::declareGraphInputs() {
    const auto& g = model_.graph();
    // Whether every use (looking through Identity nodes) is a weight position.
    std::function<bool(const std::string&, int)> onlyWeightUses = [&](const std::string& name, int depth) {
        auto it = consumers_.find(name);
        if (it == consumers_.end() || depth > 8)
            return false;
        for (const auto& [n, i] : it->second) {
            if (n->op_type() == "Identity" && n->output_size() == 1) {
                if (!onlyWeightUses(n->output(0), depth + 1))
                    return false;
            } else if (!isWeightPosition(n->op_type(), i)) {
                return false;
            }
        }
        return true;
    };

    // Exporters such as torch.onnx list the user's inputs first and the parameters after them, so once one
    // input is recognised as a weight the float inputs after it are weights too.
    bool weightsStarted = false;
    for (const auto& in : g.input()) {
        if (initializers_.count(in.name()))
            continue;
        if (names_.count(in.name()))
            return error("onnx.redefined-value", "graph input '" + in.name() + "' is defined twice");
        auto element = elementTypeOf(in.type().tensor_type().elem_type());
        ir::TensorType type{{}, element.value_or(ElementType::F32)};
        for (const auto& d : in.type().tensor_type().shape().dim())
            type.shape.push_back(d.dim_value());
        // Symbolic dimension names ("batch", "seq") label the argument's dimensions.
        std::vector<std::string> labels = dimensionNames_[in.name()];
        const bool labelled =
            std::any_of(labels.begin(), labels.end(), [](const auto& l) { return !l.empty(); });
        if (!checkedElements(type.shape)) {
            diagnostics_.push_back(
                makeError("onnx.input-shape", "input '" + in.name() + "' is too large", inFile(fileName_)));
            return false;
        }
        const bool weight = ir::isFloat(type.element) &&
                            (weightsStarted || looksLikeWeight(in.name()) || onlyWeightUses(in.name(), 0));
        weightsStarted = weightsStarted || weight;
        Slot slot;
        slot.type = type;
        slot.name = in.name();
        slot.origin = in.name();
        if (weight) {
            slot.parameter = true;
        } else {
            slot.value =
                b_.input(in.name(), type.shape, type.element, labelled ? labels : std::vector<std::string>{});
        }
        newSlot(std::move(slot), in.name());
    }
    return !b_.failed();
}

bool Importer::importNode() {
    const std::string& domain = node_->domain();
    if (!domain.empty() && domain != "ai.onnx")
        return importOpaque("operators of domain '" + domain + "'");
    return dispatch();
}

bool Importer::declareOutputs() {
    node_ = nullptr;
    for (const auto& out : model_.graph().output()) {
        auto it = names_.find(out.name());
        if (it == names_.end()) {
            diagnostics_.push_back(makeError("onnx.undefined-value",
                                             "graph output '" + out.name() + "' is not produced by any node",
                                             inFile(fileName_)));
            return false;
        }
        ValueId v = value(it->second);
        if (!v.valid())
            return false;
        b_.output(v, out.name());
    }
    return true;
}

void Importer::reportUnsupported() {
    for (const auto& [name, u] : unsupported_) {
        SourceLocation location = inFile(fileName_);
        location.name = u.firstNode;
        std::string message = "'" + name + "' is not supported";
        if (!u.reason.empty())
            message += " (" + u.reason + ")";
        message += ": " + std::to_string(u.count) + (u.count == 1 ? " node imports" : " nodes import") +
                   " as an opaque op whose dimensions all need replication";
        if (u.count > 1)
            message += " (first: '" + u.firstNode + "')";
        diagnostics_.push_back(makeWarning("onnx.unsupported-op", std::move(message), std::move(location)));
    }
}

Result<ir::Graph> Importer::run() {
    auto fail = [&]() {
        std::vector<Diagnostic> all = diagnostics_;
        if (b_.failed()) {
            auto built = std::move(b_).finish();
            all.insert(all.end(), built.diagnostics().begin(), built.diagnostics().end());
        }
        return Result<ir::Graph>::failure(std::move(all));
    };
    auto hasErrors = [&]() {
        return b_.failed() || std::any_of(diagnostics_.begin(), diagnostics_.end(),
                                          [](const Diagnostic& d) { return d.severity == Severity::Error; });
    };
    if (!checkModel())
        return fail();
    for (const auto& t : model_.graph().initializer())
        initializers_[t.name()] = &t;
    if (!resolveSymbolicDimensions())
        return fail();
    if (!checkGraphStructure())
        return fail();
    initializers_.clear();
    for (const auto& n : model_.graph().node())
        for (int i = 0; i < n.input_size(); ++i)
            if (!n.input(i).empty())
                consumers_[n.input(i)].emplace_back(&n, i);
    if (!declareInitializers() || !declareGraphInputs() || hasErrors())
        return fail();

    const auto& nodes = model_.graph().node();
    for (nodeIndex_ = 0; nodeIndex_ < nodes.size(); ++nodeIndex_) {
        node_ = &nodes[nodeIndex_];
        label_ = node_->name().empty() ? node_->op_type() + "_" + std::to_string(nodeIndex_) : node_->name();
        if (!importNode() || hasErrors()) {
            if (!hasErrors())
                error("onnx.internal", "could not be imported");
            return fail();
        }
    }
    node_ = nullptr;
    if (!declareOutputs() || hasErrors())
        return fail();
    reportUnsupported();
    auto built = std::move(b_).finish();
    if (!built) {
        std::vector<Diagnostic> all = diagnostics_;
        all.insert(all.end(), built.diagnostics().begin(), built.diagnostics().end());
        return Result<ir::Graph>::failure(std::move(all));
    }
    built.addDiagnostics(diagnostics_);
    return built;
}

}  // namespace onnx_import

Result<ir::Graph> importOnnx(std::string_view bytes, const std::string& fileName,
                             const ImportOptions& options) {
    const SourceLocation file = inFile(fileName);
    if (bytes.empty())
        return makeError("onnx.parse", "not a valid ONNX model: the file is empty", file);
    if (bytes.size() > static_cast<std::size_t>(INT_MAX))
        return makeError("onnx.parse", "not a valid ONNX model: protobuf messages are limited to 2 GiB",
                         file);
    try {
        ::onnx::ModelProto model;
        if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
            return makeError("onnx.parse",
                             "not a valid ONNX model: the protobuf message is truncated or garbled (" +
                                 std::to_string(bytes.size()) + " bytes)",
                             file);
        onnx_import::Importer importer(model, fileName, options);
        return importer.run();
    } catch (const std::exception& e) {
        return makeError("onnx.internal", std::string("ONNX import failed: ") + e.what(), file);
    }
}

}  // namespace shardscope::import
