// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// ONNX import: every shared model imports and verifies with the expected structure and parameter count; small
// models built here with the ONNX protobuf API pin broadcasting, Gemm, grouped convolution, shape folding,
// symbolic dimensions, opaque ops, and the refusal of truncated or garbled bytes.
#include <QtTest>

#include "test_paths.h"
#include "test_support.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <set>

#include <onnx/onnx_pb.h>

#include <limits>

#include "shardscope/import/onnx.h"
#include "shardscope/ir/statistics.h"
#include "shardscope/ir/verifier.h"

using namespace shardscope;
using namespace shardscope::ir;

namespace {

// --- building small models
// ------------------------------------------------------------------------------------

// A dimension given as a size or as a symbolic name.
struct Dim {
    Dim(std::int64_t v) : value(v) {}  // NOLINT(google-explicit-constructor)
    Dim(const char* p) : param(p) {}   // NOLINT(google-explicit-constructor)
    std::int64_t value = -1;
    std::string param;
};

class OnnxModel {
public:
    explicit OnnxModel(int opset = 17) {
        proto.set_ir_version(8);
        proto.set_producer_name("tst_import_onnx");
        auto* o = proto.add_opset_import();
        o->set_domain("");
        o->set_version(opset);
        proto.mutable_graph()->set_name("test");
    }

    void input(const std::string& name, const std::vector<Dim>& dims,
               int type = onnx::TensorProto_DataType_FLOAT) {
        describe(proto.mutable_graph()->add_input(), name, dims, type);
    }
    void output(const std::string& name) { proto.mutable_graph()->add_output()->set_name(name); }

    // A float initializer of zeros (raw data).
    void weight(const std::string& name, const std::vector<std::int64_t>& dims) {
        auto* t = proto.mutable_graph()->add_initializer();
        t->set_name(name);
        t->set_data_type(onnx::TensorProto_DataType_FLOAT);
        std::int64_t n = 1;
        for (auto d : dims) {
            t->add_dims(d);
            n *= d;
        }
        t->set_raw_data(std::string(static_cast<std::size_t>(n) * sizeof(float), '\0'));
    }
    void ints(const std::string& name, const std::vector<std::int64_t>& values, bool scalar = false) {
        *proto.mutable_graph()->add_initializer() = intTensor(name, values, scalar);
    }

    onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name = {}) {
        auto* n = proto.mutable_graph()->add_node();
        n->set_op_type(op);
        n->set_name(name);
        for (const auto& i : inputs)
            n->add_input(i);
        for (const auto& o : outputs)
            n->add_output(o);
        return *n;
    }
    // A Constant node holding int64 values.
    void constant(const std::string& name, const std::vector<std::int64_t>& values, bool scalar = false) {
        auto& n = node("Constant", {}, {name}, name);
        auto* a = n.add_attribute();
        a->set_name("value");
        a->set_type(onnx::AttributeProto_AttributeType_TENSOR);
        *a->mutable_t() = intTensor({}, values, scalar);
    }

    std::string bytes() const { return proto.SerializeAsString(); }

    static onnx::TensorProto intTensor(const std::string& name, const std::vector<std::int64_t>& values,
                                       bool scalar) {
        onnx::TensorProto t;
        t.set_name(name);
        t.set_data_type(onnx::TensorProto_DataType_INT64);
        if (!scalar)
            t.add_dims(static_cast<std::int64_t>(values.size()));
        for (auto v : values)
            t.add_int64_data(v);
        return t;
    }

    onnx::ModelProto proto;

private:
    static void describe(onnx::ValueInfoProto* vi, const std::string& name, const std::vector<Dim>& dims,
                         int type) {
        vi->set_name(name);
        auto* tensor = vi->mutable_type()->mutable_tensor_type();
        tensor->set_elem_type(type);
        auto* shape = tensor->mutable_shape();
        for (const auto& d : dims) {
            auto* dim = shape->add_dim();
            if (d.param.empty())
                dim->set_dim_value(d.value);
            else
                dim->set_dim_param(d.param);
        }
    }
};

void setInts(onnx::NodeProto& n, const std::string& name, const std::vector<std::int64_t>& values) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto_AttributeType_INTS);
    for (auto v : values)
        a->add_ints(v);
}
void setInt(onnx::NodeProto& n, const std::string& name, std::int64_t value) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto_AttributeType_INT);
    a->set_i(value);
}
void setFloat(onnx::NodeProto& n, const std::string& name, float value) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
    a->set_f(value);
}

Result<Graph> importModel(const OnnxModel& m, const std::string& file = "test.onnx",
                          const import::ImportOptions& options = {}) {
    return import::importOnnx(m.bytes(), file, options);
}

Graph importOk(const OnnxModel& m) {
    auto r = importModel(m);
    if (!r)
        qFatal("import failed: %s", r.errorMessage().c_str());
    return std::move(r).value();
}

std::vector<const Op*> opsOf(const Graph& g, OpKind kind) {
    std::vector<const Op*> out;
    for (OpId id : g.allOpsInOrder())
        if (g.op(id).kind == kind)
            out.push_back(&g.op(id));
    return out;
}

const Argument* argumentNamed(const Graph& g, const std::string& name) {
    for (const auto& a : g.arguments)
        if (a.name == name)
            return &a;
    return nullptr;
}

// The role of the argument named `name` ("parameter", "input", ...), or "" when there is none.
std::string roleOf(const Graph& g, const std::string& name) {
    const Argument* a = argumentNamed(g, name);
    return a ? std::string(toString(a->role)) : std::string();
}

std::vector<const Diagnostic*> withSeverity(const std::vector<Diagnostic>& ds, Severity s) {
    std::vector<const Diagnostic*> out;
    for (const auto& d : ds)
        if (d.severity == s)
            out.push_back(&d);
    return out;
}

// --- the shared models
// ----------------------------------------------------------------------------------------

QString sharedModelDir() {
    return shardscope::testing::sharedDir() + "/models/onnx";
}

std::string readFile(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QByteArray bytes = f.readAll();
    return std::string(bytes.constData(), static_cast<std::size_t>(bytes.size()));
}

struct SharedModel {
    std::string file;
    std::set<std::string> dataInputs;              // graph inputs that are batch data, not weights
    std::map<std::string, std::int64_t> opCounts;  // mnemonic -> exact count
    Shape output;
};

const std::vector<SharedModel>& sharedModels() {
    static const std::vector<SharedModel> models = {
        {"resnet50.onnx",
         {"images"},
         {{"convolution", 53}, {"dot_general", 1}, {"reduce_window", 1}},
         {8, 1000}},
        // 12 encoder layers: q·kᵀ, p·v, in/out projections and the two MLP matmuls each, plus the head.
        {"vit_b_16.onnx",
         {"images"},
         {{"convolution", 1},
          {"dot_general", 73},
          {"exponential", 12},
          {"chlo.erf", 12},
          {"rsqrt", 25},
          {"gather", 1}},
         {8, 1000}},
        {"convnext_tiny.onnx",
         {"images"},
         {{"convolution", 22}, {"dot_general", 37}, {"chlo.erf", 18}, {"rsqrt", 23}},
         {8, 1000}},
        // 12 Swin blocks (2+2+6+2) with 6 matmuls each, 3 patch merges and the head; the shifted-window masks
        // fold.
        {"swin_t.onnx",
         {"images"},
         {{"convolution", 1}, {"dot_general", 76}, {"exponential", 12}, {"chlo.erf", 12}, {"rsqrt", 29}},
         {8, 1000}},
        {"mobilenet_v3_large.onnx",
         {"input.1"},
         {{"convolution", 62}, {"dot_general", 2}, {"clamp", 29}},
         {8, 1000}},
        {"transformer_encoder12.onnx",
         {"onnx::Transpose_0"},
         {{"dot_general", 72}, {"exponential", 12}, {"rsqrt", 24}},
         {2, 128, 768}},
        {"light_resnet50.onnx",
         {"gpu_0/data_0"},
         {{"convolution", 53}, {"dot_general", 1}, {"rsqrt", 53}},
         {1, 1000}},
        {"light_vgg19.onnx",
         {"data_0"},
         {{"convolution", 16}, {"dot_general", 3}, {"reduce_window", 5}},
         {1, 1000}},
        {"light_inception_v1.onnx",
         {"data_0"},
         {{"convolution", 57}, {"dot_general", 1}, {"concatenate", 9}},
         {1, 1000}},
        {"light_squeezenet.onnx", {"data_0"}, {{"convolution", 26}, {"concatenate", 8}}, {1, 1000, 1, 1}},
    };
    return models;
}

std::int64_t product(const std::vector<std::int64_t>& dims) {
    std::int64_t n = 1;
    for (auto d : dims)
        n *= d;
    return n;
}

// The weight elements a file holds, counted from the protobuf directly: float initializers of rank >= 1,
// float ConstantOfShape outputs shaped by an initializer (weight placeholders), and float graph inputs that
// are not data; each only when some node consumes it.
std::int64_t weightElements(const onnx::ModelProto& m, const std::set<std::string>& dataInputs) {
    const auto& g = m.graph();
    std::set<std::string> consumed;
    for (const auto& n : g.node())
        for (const auto& i : n.input())
            consumed.insert(i);
    std::map<std::string, const onnx::TensorProto*> initializers;
    for (const auto& t : g.initializer())
        initializers[t.name()] = &t;
    std::int64_t total = 0;
    for (const auto& t : g.initializer())
        if (t.data_type() == onnx::TensorProto_DataType_FLOAT && t.dims_size() > 0 &&
            consumed.count(t.name()))
            total += product({t.dims().begin(), t.dims().end()});
    for (const auto& in : g.input()) {
        if (initializers.count(in.name()) || dataInputs.count(in.name()) || !consumed.count(in.name()))
            continue;
        if (in.type().tensor_type().elem_type() != onnx::TensorProto_DataType_FLOAT)
            continue;
        std::vector<std::int64_t> dims;
        for (const auto& d : in.type().tensor_type().shape().dim())
            dims.push_back(d.dim_value());
        total += product(dims);
    }
    for (const auto& n : g.node()) {
        if (n.op_type() != "ConstantOfShape" || !initializers.count(n.input(0)) ||
            !consumed.count(n.output(0)))
            continue;
        const onnx::TensorProto& shape = *initializers.at(n.input(0));
        std::vector<std::int64_t> dims(shape.int64_data().begin(), shape.int64_data().end());
        if (dims.empty())
            for (std::size_t i = 0; i + 8 <= shape.raw_data().size(); i += 8) {
                std::int64_t v;
                std::memcpy(&v, shape.raw_data().data() + i, 8);
                dims.push_back(v);
            }
        total += product(dims);
    }
    return total;
}

}  // namespace

class TestImportOnnx : public QObject {
    Q_OBJECT
private slots:
    // --- (a) the shared models -----------------------------------------------------------------------------
    void sharedModelsImport_data() {
        QTest::addColumn<int>("index");
        for (std::size_t i = 0; i < sharedModels().size(); ++i)
            QTest::newRow(sharedModels()[i].file.c_str()) << static_cast<int>(i);
    }
    void sharedModelsImport() {
        QFETCH(int, index);
        const SharedModel& model = sharedModels()[static_cast<std::size_t>(index)];
        const QString path = sharedModelDir() + "/" + QString::fromStdString(model.file);
        if (!QFile::exists(path))
            QSKIP(qPrintable("shared models not found at " + sharedModelDir() + " (../shared is absent)"));
        const std::string bytes = readFile(path);
        QElapsedTimer timer;
        timer.start();
        auto result = import::importOnnx(bytes, model.file);
        const double ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        QVERIFY2(result.ok(), result.errorMessage().c_str());
        QVERIFY(withSeverity(result.diagnostics(), Severity::Error).empty());
        const Graph& g = *result;
        QVERIFY2(verifyGraph(g).ok(), verifyGraph(g).errorMessage().c_str());

        const auto stats = computeStatistics(g);
        onnx::ModelProto proto;
        QVERIFY(proto.ParseFromString(bytes));
        QCOMPARE(stats.parameterCount, weightElements(proto, model.dataInputs));
        for (const auto& [mnemonic, count] : model.opCounts) {
            auto it = stats.opsByKind.find(mnemonic);
            QVERIFY2(it != stats.opsByKind.end() && it->second == count,
                     qPrintable(QString("%1: %2 %3 ops, expected %4")
                                    .arg(model.file.c_str(), mnemonic.c_str())
                                    .arg(it == stats.opsByKind.end() ? 0 : it->second)
                                    .arg(count)));
        }
        QVERIFY(opsOf(g, OpKind::Opaque).empty());
        QCOMPARE(g.outputs.size(), std::size_t{1});
        QCOMPARE(g.type(g.outputs.front().value).shape, model.output);
        // Batch data arrives as Input arguments named by the ONNX input; everything else is a parameter.
        for (const auto& a : g.arguments) {
            const bool data = model.dataInputs.count(a.name) > 0;
            QCOMPARE(std::string(toString(a.role)), std::string(data ? "input" : "parameter"));
        }
        // Ops point back to their ONNX node.
        for (OpId id : g.body) {
            QCOMPARE(g.op(id).location.file, model.file);
            QVERIFY(!g.op(id).location.name.empty());
        }
        const auto warnings = withSeverity(result.diagnostics(), Severity::Warning);
        qInfo("%-28s %6lld ops %11lld parameters %3zu warnings %8.1f ms", model.file.c_str(),
              static_cast<long long>(stats.opCount), static_cast<long long>(stats.parameterCount),
              warnings.size(), ms);
        for (const auto* w : warnings)
            qInfo("    %s", w->toString().c_str());
    }

    void everySharedModelIsListed() {
        QDir dir(sharedModelDir());
        if (!dir.exists())
            QSKIP(qPrintable("shared models not found at " + sharedModelDir() + " (../shared is absent)"));
        std::set<std::string> listed;
        for (const auto& m : sharedModels())
            listed.insert(m.file);
        for (const auto& f : dir.entryList({"*.onnx"}, QDir::Files))
            QVERIFY2(listed.count(f.toStdString()), qPrintable(f + " is not covered by sharedModelsImport"));
    }

    // --- (b) small models ----------------------------------------------------------------------------------
    void matmulBroadcastsBatchDimensions() {
        OnnxModel m;
        m.input("x", {2, 1, 4, 8});
        m.input("y", {3, 8, 5});
        m.node("MatMul", {"x", "y"}, {"z"}, "mm");
        m.output("z");
        const Graph g = importOk(m);
        QCOMPARE(g.type(g.outputs[0].value).shape, (Shape{2, 3, 4, 5}));
        const auto dots = opsOf(g, OpKind::DotGeneral);
        QCOMPARE(dots.size(), std::size_t{1});
        QCOMPARE(std::get<DotDimensions>(dots[0]->attributes), (DotDimensions{{0, 1}, {0, 1}, {3}, {2}}));
        QCOMPARE(g.type(dots[0]->operands[0]).shape, (Shape{2, 3, 4, 8}));
        QCOMPARE(g.type(dots[0]->operands[1]).shape, (Shape{2, 3, 8, 5}));
        QCOMPARE(opsOf(g, OpKind::BroadcastInDim).size(), std::size_t{2});
        QCOMPARE(dots[0]->location.name, std::string("mm"));
        QCOMPARE(dots[0]->location.file, std::string("test.onnx"));
        // "y" feeds MatMul's weight position only: a parameter.
        QCOMPARE(roleOf(g, "y"), std::string("parameter"));
        QCOMPARE(roleOf(g, "x"), std::string("input"));
    }

    void matmulWithMatrixNeedsNoBroadcast() {
        OnnxModel m;
        m.input("x", {2, 7, 8});
        m.weight("w", {8, 5});
        m.node("MatMul", {"x", "w"}, {"z"});
        m.output("z");
        const Graph g = importOk(m);
        QCOMPARE(g.body.size(), std::size_t{1});
        const Op& dot = g.op(g.body[0]);
        QCOMPARE(std::get<DotDimensions>(dot.attributes), (DotDimensions{{}, {}, {2}, {0}}));
        QCOMPARE(g.type(dot.results[0]).shape, (Shape{2, 7, 5}));
        QCOMPARE(dot.location.name, std::string("MatMul_0"));  // unnamed nodes are labelled <OpType>_<index>
    }

    void gemmTransposesAndScales() {
        OnnxModel m;
        m.input("a", {4, 8});
        m.weight("b", {16, 8});
        m.weight("c", {16});
        auto& n = m.node("Gemm", {"a", "b", "c"}, {"y"}, "fc");
        setInt(n, "transB", 1);
        setFloat(n, "alpha", 0.5f);
        setFloat(n, "beta", 2.0f);
        m.output("y");
        const Graph g = importOk(m);
        const auto dots = opsOf(g, OpKind::DotGeneral);
        QCOMPARE(dots.size(), std::size_t{1});
        QCOMPARE(std::get<DotDimensions>(dots[0]->attributes), (DotDimensions{{}, {}, {1}, {1}}));
        QCOMPARE(g.type(g.outputs[0].value).shape, (Shape{4, 16}));
        QCOMPARE(opsOf(g, OpKind::Multiply).size(), std::size_t{2});  // alpha·AB and beta·C
        QCOMPARE(opsOf(g, OpKind::Add).size(), std::size_t{1});
        QCOMPARE(roleOf(g, "b"), std::string("parameter"));
        QCOMPARE(roleOf(g, "c"), std::string("parameter"));
        QCOMPARE(computeStatistics(g).parameterCount, std::int64_t{16 * 8 + 16});
    }

    void convolutionKeepsNchwWithGroupsAndPads() {
        OnnxModel m;
        m.input("x", {1, 4, 10, 10});
        m.weight("w", {8, 2, 3, 3});
        m.weight("bias", {8});
        auto& n = m.node("Conv", {"x", "w", "bias"}, {"y"}, "conv");
        setInt(n, "group", 2);
        setInts(n, "pads", {1, 1, 1, 1});
        setInts(n, "strides", {2, 2});
        setInts(n, "kernel_shape", {3, 3});
        m.output("y");
        const Graph g = importOk(m);
        const auto convs = opsOf(g, OpKind::Convolution);
        QCOMPARE(convs.size(), std::size_t{1});
        const auto& c = std::get<ConvolutionAttributes>(convs[0]->attributes);
        QCOMPARE(c.featureGroupCount, std::int64_t{2});
        QCOMPARE(c.inputBatch, std::int64_t{0});
        QCOMPARE(c.inputFeature, std::int64_t{1});
        QCOMPARE(c.inputSpatial, (Dims{2, 3}));
        QCOMPARE(c.kernelOutputFeature, std::int64_t{0});
        QCOMPARE(c.kernelInputFeature, std::int64_t{1});
        QCOMPARE(c.kernelSpatial, (Dims{2, 3}));
        QCOMPARE(c.outputSpatial, (Dims{2, 3}));
        QCOMPARE(c.windowStrides, (Dims{2, 2}));
        QVERIFY((c.padding == std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 1}, {1, 1}}));
        QCOMPARE(g.type(g.outputs[0].value).shape, (Shape{1, 8, 5, 5}));
        // The bias broadcasts along the feature dimension.
        const auto broadcasts = opsOf(g, OpKind::BroadcastInDim);
        QCOMPARE(broadcasts.size(), std::size_t{1});
        QCOMPARE(std::get<BroadcastDimensions>(broadcasts[0]->attributes).dims, (Dims{1}));
    }

    void convolutionSamePadding() {
        OnnxModel m;
        m.input("x", {1, 3, 7, 7});
        m.weight("w", {4, 3, 4, 4});
        auto& n = m.node("Conv", {"x", "w"}, {"y"});
        n.add_attribute()->set_name("auto_pad");
        n.mutable_attribute(0)->set_type(onnx::AttributeProto_AttributeType_STRING);
        n.mutable_attribute(0)->set_s("SAME_UPPER");
        setInts(n, "strides", {2, 2});
        m.output("y");
        const Graph g = importOk(m);
        const auto& c = std::get<ConvolutionAttributes>(opsOf(g, OpKind::Convolution)[0]->attributes);
        // out = ceil(7/2) = 4; total padding = (4-1)·2 + 4 - 7 = 3, the extra one at the end.
        QVERIFY((c.padding == std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 2}, {1, 2}}));
        QCOMPARE(g.type(g.outputs[0].value).shape, (Shape{1, 4, 4, 4}));
    }

    void shapeComputationsFold() {
        // Shape -> Gather -> Unsqueeze -> Concat(-1) -> Reshape: the target shape [2, -1] is known at import.
        OnnxModel m;
        m.input("x", {2, 3, 4});
        m.node("Shape", {"x"}, {"s"}, "shape");
        m.constant("zero", {0}, /*scalar=*/true);
        setInt(m.node("Gather", {"s", "zero"}, {"d0"}, "gather"), "axis", 0);
        m.constant("axes", {0});
        m.node("Unsqueeze", {"d0", "axes"}, {"d0v"}, "unsqueeze");
        m.constant("rest", {-1});
        setInt(m.node("Concat", {"d0v", "rest"}, {"target"}, "concat"), "axis", 0);
        m.node("Reshape", {"x", "target"}, {"y"}, "reshape");
        m.output("y");
        const Graph g = importOk(m);
        QCOMPARE(g.body.size(), std::size_t{1});
        const Op& op = g.op(g.body[0]);
        QCOMPARE(op.kind, OpKind::Reshape);
        QCOMPARE(op.location.name, std::string("reshape"));
        QCOMPARE(g.type(op.results[0]).shape, (Shape{2, 12}));
    }

    void foldedShapesFeedExpandAndConstantOfShape() {
        // ConstantOfShape(Shape(x)) + x: the zeros become one splat constant; Expand by a folded shape.
        OnnxModel m;
        m.input("x", {3, 1});
        m.node("Shape", {"x"}, {"s"});
        m.node("ConstantOfShape", {"s"}, {"zeros"});
        m.node("Add", {"x", "zeros"}, {"y"}, "add");
        m.constant("shape", {2, 3, 4});
        m.node("Expand", {"y", "shape"}, {"z"}, "expand");
        m.output("z");
        const Graph g = importOk(m);
        QCOMPARE(g.type(g.outputs[0].value).shape, (Shape{2, 3, 4}));
        const auto constants = opsOf(g, OpKind::Constant);
        QCOMPARE(constants.size(), std::size_t{1});
        QCOMPARE(std::get<ConstantAttributes>(constants[0]->attributes).values, (std::vector<double>{0.0}));
        QCOMPARE(opsOf(g, OpKind::BroadcastInDim).size(), std::size_t{1});
        QCOMPARE(computeStatistics(g).parameterCount, std::int64_t{0});
    }

    void sliceHandlesNegativeStepsAndClamping() {
        OnnxModel m;
        m.input("x", {10, 6});
        m.constant("starts", {-1, 1});
        m.constant("ends", {-100, 1000});
        m.constant("axes", {0, 1});
        m.constant("steps", {-2, 2});
        m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"}, "slice");
        m.output("y");
        const Graph g = importOk(m);
        // Rows 9, 7, 5, 3, 1 (reversed, then every second from 0) and columns 1, 3, 5.
        QCOMPARE(g.type(g.outputs[0].value).shape, (Shape{5, 3}));
        const auto reverses = opsOf(g, OpKind::Reverse);
        QCOMPARE(reverses.size(), std::size_t{1});
        QCOMPARE(std::get<DimensionsAttribute>(reverses[0]->attributes).dimensions, (Dims{0}));
        const auto& s = std::get<SliceAttributes>(opsOf(g, OpKind::Slice)[0]->attributes);
        QCOMPARE(s.start, (Dims{0, 1}));
        QCOMPARE(s.limit, (Dims{9, 6}));
        QCOMPARE(s.strides, (Dims{2, 2}));
    }

    void gatherWithConstantIndicesIsAStableHloGather() {
        OnnxModel m;
        m.input("x", {4, 5, 6});
        m.constant("idx", {-1, 0, 2});
        setInt(m.node("Gather", {"x", "idx"}, {"y"}, "take"), "axis", 1);
        m.output("y");
        const Graph g = importOk(m);
        QCOMPARE(g.type(g.outputs[0].value).shape, (Shape{4, 3, 6}));
        const auto gathers = opsOf(g, OpKind::Gather);
        QCOMPARE(gathers.size(), std::size_t{1});
        const auto& a = std::get<GatherAttributes>(gathers[0]->attributes);
        QCOMPARE(a.offsetDims, (Dims{0, 2}));
        QCOMPARE(a.collapsedSliceDims, (Dims{1}));
        QCOMPARE(a.startIndexMap, (Dims{1}));
        QCOMPARE(a.indexVectorDim, std::int64_t{1});
        QCOMPARE(a.sliceSizes, (Dims{4, 1, 6}));
        const Op& indices = g.op(g.value(gathers[0]->operands[1]).producer);
        QCOMPARE(std::get<ConstantAttributes>(indices.attributes).values, (std::vector<double>{4, 0, 2}));
    }

    void initializersAndWeightInputsBecomeParameters() {
        OnnxModel m;
        m.input("input.1", {2, 8});
        m.input("fc.weight", {4, 8});  // a torch export with export_params=False
        m.ints("shape", {1, -1});      // an integer initializer folds instead
        m.weight("scale", {8});
        m.node("Mul", {"input.1", "scale"}, {"h"});
        setInt(m.node("Gemm", {"h", "fc.weight"}, {"y"}), "transB", 1);
        m.node("Reshape", {"y", "shape"}, {"z"});
        m.output("z");
        const Graph g = importOk(m);
        QCOMPARE(g.arguments.size(), std::size_t{3});
        QCOMPARE(roleOf(g, "input.1"), std::string("input"));
        QCOMPARE(roleOf(g, "fc.weight"), std::string("parameter"));
        QCOMPARE(roleOf(g, "scale"), std::string("parameter"));
        QVERIFY(!argumentNamed(g, "shape"));
        QCOMPARE(g.type(g.outputs[0].value).shape, (Shape{1, 8}));
        QCOMPARE(computeStatistics(g).parameterCount, std::int64_t{4 * 8 + 8});
    }

    void symbolicDimensionsTakeOptionValues() {
        OnnxModel m;
        m.input("x", {"batch", 16});
        m.node("Relu", {"x"}, {"y"});
        m.output("y");
        import::ImportOptions options;
        options.dimensions["batch"] = 4;
        auto r = importModel(m, "sym.onnx", options);
        QVERIFY2(r.ok(), r.errorMessage().c_str());
        const Argument* x = argumentNamed(*r, "x");
        QCOMPARE(r->type(x->value).shape, (Shape{4, 16}));
        QCOMPARE(x->dimensionLabels, (std::vector<std::string>{"batch", ""}));
        QCOMPARE(r->type(r->outputs[0].value).shape, (Shape{4, 16}));
    }

    // Sizes that overflow int64 (a declared shape, a symbolic dimension given a huge value, a folded shape)
    // are refused naming the input or the node (issue 24), never read as negative counts or allocated.
    void sizesThatOverflowAreRefused() {
        const std::int64_t huge = std::numeric_limits<std::int64_t>::max();
        auto firstError = [](const Result<Graph>& r) {
            for (const auto& d : r.diagnostics())
                if (d.severity == Severity::Error)
                    return d.message;
            return std::string("(no error)");
        };
        OnnxModel declared;
        declared.input("x", {16, huge});
        declared.node("Relu", {"x"}, {"y"});
        declared.output("y");
        auto r = importModel(declared, "huge.onnx");
        QVERIFY(!r);
        QCOMPARE(firstError(r), std::string("input 'x' is too large"));

        OnnxModel symbolic;
        symbolic.input("x", {"batch", 1 << 20});
        symbolic.node("Relu", {"x"}, {"y"});
        symbolic.output("y");
        import::ImportOptions options;
        options.dimensions["batch"] = std::int64_t{1} << 40;
        r = importModel(symbolic, "sym.onnx", options);
        QVERIFY(!r);
        QCOMPARE(firstError(r), std::string("input 'x' is too large"));

        OnnxModel folded;  // ConstantOfShape of a folded [2^26, 2^26]: a splat, never 2^52 values, and too
                           // large a tensor
        folded.input("x", {1});
        folded.constant("shape", {std::int64_t{1} << 26, std::int64_t{1} << 26});
        folded.node("ConstantOfShape", {"shape"}, {"zeros"}, "zeros");
        folded.node("Add", {"x", "zeros"}, {"y"}, "add");
        folded.output("y");
        r = importModel(folded, "folded.onnx");
        QVERIFY(!r);
        QVERIFY2(firstError(r).find("has more elements than a tensor may have") != std::string::npos,
                 firstError(r).c_str());
    }

    void unresolvedSymbolicDimensionsAreNamed() {
        OnnxModel m;
        m.input("x", {"batch", "seq", 16});
        m.input("mask", {"batch", "seq"});
        m.node("Relu", {"x"}, {"y"});
        m.output("y");
        import::ImportOptions options;
        options.dimensions["seq"] = 128;
        auto r = importModel(m, "sym.onnx", options);
        QVERIFY(!r.ok());
        const auto errors = withSeverity(r.diagnostics(), Severity::Error);
        QCOMPARE(errors.size(), std::size_t{1});  // each missing name once
        QCOMPARE(errors[0]->code, std::string("onnx.symbolic-dimension"));
        QCOMPARE(errors[0]->message,
                 std::string("symbolic dimension 'batch' of input 'x' needs a value: pass --dim batch=N"));
        QCOMPARE(errors[0]->location.file, std::string("sym.onnx"));
        QCOMPARE(
            errors[0]->toString(),
            std::string("sym.onnx: error: symbolic dimension 'batch' of input 'x' needs a value: pass --dim "
                        "batch=N [onnx.symbolic-dimension]"));
    }

    void unsupportedOperatorsBecomeOpaqueWithAWarning() {
        OnnxModel m;
        m.input("x", {2, 3});
        m.node("Hardmax", {"x"}, {"h"}, "hardmax");
        m.node("Relu", {"h"}, {"y"});
        m.output("y");
        auto r = importModel(m);
        QVERIFY2(r.ok(), r.errorMessage().c_str());
        const auto opaque = opsOf(*r, OpKind::Opaque);
        QCOMPARE(opaque.size(), std::size_t{1});
        QCOMPARE(std::get<OpaqueAttributes>(opaque[0]->attributes).name, std::string("onnx.Hardmax"));
        QCOMPARE(r->type(opaque[0]->results[0]), (TensorType{{2, 3}, ElementType::F32}));
        QCOMPARE(opaque[0]->location.name, std::string("hardmax"));
        const auto warnings = withSeverity(r.diagnostics(), Severity::Warning);
        QCOMPARE(warnings.size(), std::size_t{1});
        QCOMPARE(warnings[0]->code, std::string("onnx.unsupported-op"));
        QCOMPARE(warnings[0]->location.name, std::string("hardmax"));
        QCOMPARE(warnings[0]->message,
                 std::string(
                     "'onnx.Hardmax' is not supported: 1 node imports as an opaque op whose dimensions all "
                     "need replication"));
    }

    void resizeByWholeFactorsIsABroadcast() {
        OnnxModel m;
        m.input("x", {1, 2, 3, 4});
        m.proto.mutable_graph()->add_initializer()->CopyFrom([] {
            onnx::TensorProto t;
            t.set_name("scales");
            t.set_data_type(onnx::TensorProto_DataType_FLOAT);
            t.add_dims(4);
            for (float v : {1.0f, 1.0f, 2.0f, 2.0f})
                t.add_float_data(v);
            return t;
        }());
        auto& nearest = m.node("Resize", {"x", "", "scales"}, {"up"}, "up");
        nearest.add_attribute()->set_name("mode");
        nearest.mutable_attribute(0)->set_type(onnx::AttributeProto_AttributeType_STRING);
        nearest.mutable_attribute(0)->set_s("nearest");
        auto& linear = m.node("Resize", {"x", "", "scales"}, {"smooth"}, "smooth");
        linear.add_attribute()->set_name("mode");
        linear.mutable_attribute(0)->set_type(onnx::AttributeProto_AttributeType_STRING);
        linear.mutable_attribute(0)->set_s("linear");
        m.node("Add", {"up", "smooth"}, {"y"});
        m.output("y");
        auto r = importModel(m);
        QVERIFY2(r.ok(), r.errorMessage().c_str());
        QCOMPARE(r->type(r->outputs[0].value).shape, (Shape{1, 2, 6, 8}));
        // Nearest ×2: broadcast [1, 1, 2, 1, 3, 2, 4, 2] then merge; "scales" is configuration, not a
        // parameter.
        const auto broadcasts = opsOf(*r, OpKind::BroadcastInDim);
        QCOMPARE(broadcasts.size(), std::size_t{1});
        QCOMPARE(std::get<BroadcastDimensions>(broadcasts[0]->attributes).dims, (Dims{0, 2, 4, 6}));
        QCOMPARE(computeStatistics(*r).parameterCount, std::int64_t{0});
        const auto opaque = opsOf(*r, OpKind::Opaque);
        QCOMPARE(opaque.size(), std::size_t{1});
        QCOMPARE(opaque[0]->operands.size(), std::size_t{1});
        const auto warnings = withSeverity(r.diagnostics(), Severity::Warning);
        QCOMPARE(warnings.size(), std::size_t{1});
        QCOMPARE(warnings[0]->message,
                 std::string(
                     "'onnx.Resize' is not supported (Resize mode 'linear' (only nearest upsampling by whole "
                     "factors maps to the IR)): 1 node imports as an opaque op whose dimensions all need "
                     "replication"));
    }

    void unsupportedOperatorWithoutAShapeIsAnError() {
        OnnxModel m;
        m.input("x", {2, 3});
        auto& n = m.node("MysteryOp", {"x"}, {"y"}, "mystery");
        n.set_domain("com.example");
        auto* opset = m.proto.add_opset_import();
        opset->set_domain("com.example");
        opset->set_version(1);
        m.output("y");
        auto r = importModel(m);
        QVERIFY(!r.ok());
        const auto errors = withSeverity(r.diagnostics(), Severity::Error);
        QCOMPARE(errors.size(), std::size_t{1});
        QCOMPARE(errors[0]->code, std::string("onnx.unknown-shape"));
        QCOMPARE(errors[0]->location.name, std::string("mystery"));
        QCOMPARE(errors[0]->message,
                 std::string(
                     "MysteryOp: 'com.example.MysteryOp' is not supported and ONNX shape inference gives no "
                     "static shape for its output 'y'"));
    }

    void undefinedValuesAreRefusedBeforeShapeInference() {
        // libonnx's shape inference crashes on inputs nobody defines; the importer must refuse them first,
        // in subgraphs too.
        OnnxModel m;
        m.input("x", {2, 3});
        m.input("cond", {}, onnx::TensorProto_DataType_BOOL);
        m.node("Relu", {"x"}, {"r"}, "relu");
        auto& branch = m.node("If", {"cond"}, {"y"}, "if");
        auto* then = branch.add_attribute();
        then->set_name("then_branch");
        then->set_type(onnx::AttributeProto_AttributeType_GRAPH);
        auto* body = then->mutable_g();
        auto* n = body->add_node();
        n->set_op_type("Hardmax");
        n->add_input("nowhere");
        n->add_output("t");
        body->add_output()->set_name("t");
        m.output("y");
        auto r = importModel(m);
        QVERIFY(!r.ok());
        const auto errors = withSeverity(r.diagnostics(), Severity::Error);
        QCOMPARE(errors.size(), std::size_t{1});
        QCOMPARE(errors[0]->code, std::string("onnx.undefined-value"));
        QCOMPARE(errors[0]->location.name, std::string("if"));
        QCOMPARE(errors[0]->message, std::string("If: input 'nowhere' is not defined by an earlier node, an "
                                                 "initializer or a graph input"));

        OnnxModel top;
        top.input("x", {2, 3});
        top.node("Hardmax", {"x"}, {"h"}, "h1");
        top.node("Hardmax", {"missing"}, {"y"}, "h2");
        top.output("y");
        auto t = importModel(top);
        QVERIFY(!t.ok());
        QCOMPARE(withSeverity(t.diagnostics(), Severity::Error)[0]->location.name, std::string("h2"));
    }

    void failedOnnxInferenceIsAnErrorNotACrash() {
        // The Add fails ONNX's own inference (3 vs 4); libonnx's data propagation then dereferenced the
        // missing type at the Shape after it (found by fuzzing). ONNX inference runs because Hardmax is
        // opaque.
        OnnxModel m;
        m.input("x", {2, 3});
        m.weight("b", {4});
        m.node("Hardmax", {"x"}, {"h"}, "hardmax");
        m.node("Add", {"h", "b"}, {"a"}, "add");
        m.node("Shape", {"a"}, {"s"}, "shape");
        m.node("Reshape", {"x", "s"}, {"y"}, "reshape");
        m.output("y");
        auto r = importModel(m);
        QVERIFY(!r.ok());
        const auto errors = withSeverity(r.diagnostics(), Severity::Error);
        QCOMPARE(errors.size(), std::size_t{1});
        QCOMPARE(errors[0]->code, std::string("onnx.broadcast"));
        QCOMPARE(errors[0]->location.name, std::string("add"));
        QCOMPARE(errors[0]->message, std::string("Add: operand shapes [2x3] and [4] do not broadcast"));
    }

    void runTimeShapesAreRefused() {
        OnnxModel m;
        m.input("x", {2, 6});
        m.input("shape", {2}, onnx::TensorProto_DataType_INT64);
        m.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
        m.output("y");
        auto r = importModel(m);
        QVERIFY(!r.ok());
        QCOMPARE(withSeverity(r.diagnostics(), Severity::Error)[0]->message,
                 std::string(
                     "Reshape: the target shape ('shape') must be known at import time, but it is computed "
                     "at run time"));
    }

    // Each mapped operator on a small input: it imports without opaque ops, verifies, and has ONNX's shape.
    void operatorsMapWithOnnxShapes() {
        struct Case {
            const char* name;
            int opset;
            std::function<void(OnnxModel&)> build;  // defines the graph output "y" from input "x"
            Shape x, expected;
            OpKind mustEmit;
        };
        auto str = [](onnx::NodeProto& n, const char* name, const char* value) {
            auto* a = n.add_attribute();
            a->set_name(name);
            a->set_type(onnx::AttributeProto_AttributeType_STRING);
            a->set_s(value);
        };
        const std::vector<Case> cases = {
            {"Softmax (opset 11: trailing dims)",
             11,
             [&](OnnxModel& m) { setInt(m.node("Softmax", {"x"}, {"y"}), "axis", 1); },
             {2, 3, 4},
             {2, 3, 4},
             OpKind::Reduce},
            {"LogSoftmax",
             17,
             [&](OnnxModel& m) { m.node("LogSoftmax", {"x"}, {"y"}); },
             {2, 5},
             {2, 5},
             OpKind::Log},
            {"LayerNormalization",
             17,
             [&](OnnxModel& m) {
                 m.weight("s", {8});
                 m.weight("b", {8});
                 m.node("LayerNormalization", {"x", "s", "b"}, {"y"});
             },
             {2, 3, 8},
             {2, 3, 8},
             OpKind::Rsqrt},
            {"BatchNormalization",
             17,
             [&](OnnxModel& m) {
                 for (const char* w : {"s", "b", "mean", "var"})
                     m.weight(w, {4});
                 m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y"});
             },
             {2, 4, 5, 5},
             {2, 4, 5, 5},
             OpKind::Rsqrt},
            {"InstanceNormalization",
             17,
             [&](OnnxModel& m) {
                 m.weight("s", {4});
                 m.weight("b", {4});
                 m.node("InstanceNormalization", {"x", "s", "b"}, {"y"});
             },
             {2, 4, 5, 5},
             {2, 4, 5, 5},
             OpKind::Rsqrt},
            {"MaxPool ceil_mode",
             17,
             [&](OnnxModel& m) {
                 auto& n = m.node("MaxPool", {"x"}, {"y"});
                 setInts(n, "kernel_shape", {3, 3});
                 setInts(n, "strides", {2, 2});
                 setInt(n, "ceil_mode", 1);
             },
             {1, 2, 8, 8},
             {1, 2, 4, 4},
             OpKind::ReduceWindow},
            {"AveragePool excluding pads",
             17,
             [&](OnnxModel& m) {
                 auto& n = m.node("AveragePool", {"x"}, {"y"});
                 setInts(n, "kernel_shape", {3, 3});
                 setInts(n, "pads", {1, 1, 1, 1});
             },
             {1, 2, 6, 6},
             {1, 2, 6, 6},
             OpKind::ReduceWindow},
            {"GlobalAveragePool",
             17,
             [&](OnnxModel& m) { m.node("GlobalAveragePool", {"x"}, {"y"}); },
             {2, 3, 4, 4},
             {2, 3, 1, 1},
             OpKind::Reduce},
            {"LRN",
             9,
             [&](OnnxModel& m) { setInt(m.node("LRN", {"x"}, {"y"}), "size", 5); },
             {1, 8, 4, 4},
             {1, 8, 4, 4},
             OpKind::ReduceWindow},
            {"ConvTranspose",
             17,
             [&](OnnxModel& m) {
                 m.weight("w", {4, 2, 3, 3});
                 auto& n = m.node("ConvTranspose", {"x", "w"}, {"y"});
                 setInts(n, "strides", {2, 2});
                 setInts(n, "pads", {1, 1, 1, 1});
                 setInts(n, "output_padding", {1, 1});
             },
             {1, 4, 5, 5},
             {1, 2, 10, 10},
             OpKind::Convolution},
            {"Split",
             17,
             [&](OnnxModel& m) {
                 m.ints("sizes", {2, 4});
                 m.node("Split", {"x", "sizes"}, {"y", "rest"});
             },
             {6, 4},
             {2, 4},
             OpKind::Slice},
            {"Pad",
             17,
             [&](OnnxModel& m) {
                 m.ints("pads", {1, 0, 0, 2});
                 m.node("Pad", {"x", "pads"}, {"y"});
             },
             {2, 3},
             {3, 5},
             OpKind::Pad},
            {"Tile",
             17,
             [&](OnnxModel& m) {
                 m.ints("reps", {2, 2});
                 m.node("Tile", {"x", "reps"}, {"y"});
             },
             {2, 3},
             {4, 6},
             OpKind::BroadcastInDim},
            {"Where",
             17,
             [&](OnnxModel& m) {
                 m.input("cond", {3, 1}, onnx::TensorProto_DataType_BOOL);
                 m.node("Where", {"cond", "x", "x"}, {"y"});
             },
             {1, 4},
             {3, 4},
             OpKind::Select},
            {"CumSum",
             17,
             [&](OnnxModel& m) {
                 m.ints("axis", {1}, true);
                 m.node("CumSum", {"x", "axis"}, {"y"});
             },
             {2, 5},
             {2, 5},
             OpKind::ReduceWindow},
            {"Einsum",
             17,
             [&](OnnxModel& m) {
                 m.weight("w", {2, 4, 5});
                 auto& n = m.node("Einsum", {"x", "w"}, {"y"});
                 str(n, "equation", "bij,bjk->bik");
             },
             {2, 3, 4},
             {2, 3, 5},
             OpKind::DotGeneral},
            {"Clip",
             17,
             [&](OnnxModel& m) {
                 auto lo = OnnxModel::intTensor("lo", {}, true);
                 lo.clear_int64_data();
                 lo.set_data_type(onnx::TensorProto_DataType_FLOAT);
                 lo.add_float_data(0);
                 *m.proto.mutable_graph()->add_initializer() = lo;
                 lo.set_name("hi");
                 lo.set_float_data(0, 6);
                 *m.proto.mutable_graph()->add_initializer() = lo;
                 m.node("Clip", {"x", "lo", "hi"}, {"y"});
             },
             {2, 3},
             {2, 3},
             OpKind::Clamp},
            {"Squeeze (all unit dims)",
             11,
             [&](OnnxModel& m) { m.node("Squeeze", {"x"}, {"y"}); },
             {1, 3, 1},
             {3},
             OpKind::Reshape},
            {"Flatten",
             17,
             [&](OnnxModel& m) { setInt(m.node("Flatten", {"x"}, {"y"}), "axis", 2); },
             {2, 3, 4},
             {6, 4},
             OpKind::Reshape},
            {"ReduceMean (axes attribute)",
             13,
             [&](OnnxModel& m) { setInts(m.node("ReduceMean", {"x"}, {"y"}), "axes", {1}); },
             {2, 3, 4},
             {2, 1, 4},
             OpKind::Divide},
            {"ReduceSum (axes input)",
             13,
             [&](OnnxModel& m) {
                 m.ints("axes", {-1});
                 setInt(m.node("ReduceSum", {"x", "axes"}, {"y"}), "keepdims", 0);
             },
             {2, 3, 4},
             {2, 3},
             OpKind::Reduce},
            {"Transpose (default perm)",
             17,
             [&](OnnxModel& m) { m.node("Transpose", {"x"}, {"y"}); },
             {2, 3, 4},
             {4, 3, 2},
             OpKind::Transpose},
            {"HardSwish",
             17,
             [&](OnnxModel& m) { m.node("HardSwish", {"x"}, {"y"}); },
             {2, 3},
             {2, 3},
             OpKind::Clamp},
            {"Gelu",
             17,
             [&](OnnxModel& m) { m.node("Gelu", {"x"}, {"y"}); },
             {2, 3},
             {2, 3},
             OpKind::OtherElementwise},
            {"Expand",
             17,
             [&](OnnxModel& m) {
                 m.ints("shape", {2, 1, 4});
                 m.node("Expand", {"x", "shape"}, {"y"});
             },
             {3, 1},
             {2, 3, 4},
             OpKind::BroadcastInDim},
            {"Pow",
             17,
             [&](OnnxModel& m) {
                 m.ints("two", {2}, true);
                 m.node("Pow", {"x", "two"}, {"y"});
             },
             {2, 3},
             {2, 3},
             OpKind::Power},
            {"Sum (variadic)",
             17,
             [&](OnnxModel& m) {
                 m.node("Sum", {"x", "x", "x"}, {"y"});
             },
             {2, 3},
             {2, 3},
             OpKind::Add},
        };
        for (const auto& c : cases) {
            OnnxModel m(c.opset);
            m.input("x", std::vector<Dim>(c.x.begin(), c.x.end()));
            c.build(m);
            m.output("y");
            auto r = importModel(m);
            QVERIFY2(r.ok(), (std::string(c.name) + ": " + r.errorMessage()).c_str());
            QVERIFY2(verifyGraph(*r).ok(), c.name);
            QVERIFY2(r->type(r->outputs[0].value).shape == c.expected,
                     (std::string(c.name) + ": got " + r->type(r->outputs[0].value).toString()).c_str());
            QVERIFY2(opsOf(*r, OpKind::Opaque).empty(), c.name);
            QVERIFY2(
                !opsOf(*r, c.mustEmit).empty(),
                (std::string(c.name) + ": expected a " + std::string(mnemonic(c.mustEmit)) + " op").c_str());
        }
    }

    // --- truncated and garbled input -----------------------------------------------------------------------
    void emptyAndGarbledBytesAreRefused() {
        auto empty = import::importOnnx("", "empty.onnx");
        QVERIFY(!empty.ok());
        QCOMPARE(empty.diagnostics().front().code, std::string("onnx.parse"));
        QCOMPARE(empty.diagnostics().front().message,
                 std::string("not a valid ONNX model: the file is empty"));
        QCOMPARE(empty.errorMessage(),
                 std::string("empty.onnx: error: not a valid ONNX model: the file is empty [onnx.parse]"));

        auto text = import::importOnnx("module {\n  func.func @main() {}\n}\n", "text.onnx");
        QVERIFY(!text.ok());
        QCOMPARE(text.diagnostics().front().code, std::string("onnx.parse"));
        QVERIFY(text.diagnostics().front().message.rfind("not a valid ONNX model: ", 0) == 0);

        std::mt19937 random(20240601);
        for (int trial = 0; trial < 500; ++trial) {
            std::string bytes(static_cast<std::size_t>(1 + random() % 512), '\0');
            for (auto& c : bytes)
                c = static_cast<char>(random() & 0xff);
            auto r = import::importOnnx(bytes, "random.onnx");
            QVERIFY(!r.ok());
            QVERIFY(!withSeverity(r.diagnostics(), Severity::Error).empty());
        }
    }

    void truncatedModelsAreRefused() {
        std::vector<std::pair<std::string, std::string>> models = {{"built.onnx", convNet().bytes()}};
        for (const char* name : {"resnet50.onnx", "light_squeezenet.onnx"}) {
            const std::string bytes = readFile(sharedModelDir() + "/" + name);
            if (!bytes.empty())
                models.emplace_back(name, bytes);
        }
        for (const auto& [name, bytes] : models) {
            std::set<std::size_t> cuts = {1, 2, 3, 7, 16, bytes.size() / 2, bytes.size() - 1};
            for (std::size_t k = 1; k < 64; ++k)
                cuts.insert(bytes.size() * k / 64);
            int refused = 0;
            for (auto cut : cuts) {
                auto r = import::importOnnx(std::string_view(bytes).substr(0, cut), name);
                if (r.ok()) {
                    QVERIFY(verifyGraph(*r).ok());  // a cut between top-level fields can leave a valid model
                } else {
                    ++refused;
                    QVERIFY(!withSeverity(r.diagnostics(), Severity::Error).empty());
                }
            }
            QVERIFY2(refused >= static_cast<int>(cuts.size()) - 2, qPrintable(QString::fromStdString(name)));
            auto whole = import::importOnnx(bytes, name);
            QVERIFY2(whole.ok(), whole.errorMessage().c_str());
        }
    }

    void corruptedBytesNeverCrash() {
        // Flip random bytes of a valid model: whatever still parses must import cleanly or fail with an
        // error.
        const std::string original = convNet().bytes();
        std::mt19937 random(7);
        int imported = 0, refused = 0;
        for (int trial = 0; trial < 400; ++trial) {
            std::string bytes = original;
            const int flips = 1 + static_cast<int>(random() % 3);
            for (int f = 0; f < flips; ++f)
                bytes[random() % bytes.size()] = static_cast<char>(random() & 0xff);
            auto r = import::importOnnx(bytes, "corrupt.onnx");
            if (r.ok()) {
                ++imported;
                QVERIFY2(verifyGraph(*r).ok(), verifyGraph(*r).errorMessage().c_str());
            } else {
                ++refused;
                QVERIFY(!withSeverity(r.diagnostics(), Severity::Error).empty());
            }
        }
        qInfo("corrupted models: %d imported, %d refused", imported, refused);
    }

private:
    // A small convolutional network with every kind of input (data, weights, integer shape initializers) and
    // one operator the importer leaves opaque.
    static OnnxModel convNet() {
        OnnxModel m;
        m.input("x", {1, 3, 16, 16});
        m.weight("conv.weight", {8, 3, 3, 3});
        m.weight("conv.bias", {8});
        m.weight("bn.scale", {8});
        m.weight("bn.bias", {8});
        m.weight("bn.mean", {8});
        m.weight("bn.var", {8});
        m.weight("fc.weight", {10, 8});
        m.weight("fc.bias", {10});
        m.ints("flat", {1, -1});
        auto& conv = m.node("Conv", {"x", "conv.weight", "conv.bias"}, {"c"}, "conv");
        setInts(conv, "pads", {1, 1, 1, 1});
        m.node("BatchNormalization", {"c", "bn.scale", "bn.bias", "bn.mean", "bn.var"}, {"n"}, "bn");
        m.node("Relu", {"n"}, {"r"}, "relu");
        auto& pool = m.node("MaxPool", {"r"}, {"p"}, "pool");
        setInts(pool, "kernel_shape", {2, 2});
        setInts(pool, "strides", {2, 2});
        m.node("GlobalAveragePool", {"p"}, {"g"}, "gap");
        m.node("Reshape", {"g", "flat"}, {"f"}, "flatten");
        setInt(m.node("Gemm", {"f", "fc.weight", "fc.bias"}, {"logits"}, "fc"), "transB", 1);
        setInt(m.node("Softmax", {"logits"}, {"prob"}, "softmax"), "axis", 1);
        m.node("Hardmax", {"prob"}, {"hard"}, "hardmax");  // opaque: ONNX shape inference runs too
        m.output("hard");
        return m;
    }
};

QTEST_GUILESS_MAIN(TestImportOnnx)
#include "tst_import_onnx.moc"
