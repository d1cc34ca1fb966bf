// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The verifier accepts well-formed graphs and rejects each kind of malformed graph with a diagnostic that
// says what is wrong and where.
#include <QtTest>

#include <functional>
#include "test_support.h"

#include "shardscope/ir/builder.h"
#include "shardscope/ir/verifier.h"

using namespace shardscope;
using namespace shardscope::ir;

using Corruption = std::function<void(Graph&)>;
Q_DECLARE_METATYPE(Corruption)

namespace {

// x [4, 8] (input), w [8, 16], b [16], p [4, 16] (parameters); y = x·w + b; r = reduce(y); outputs y (donated
// into p) and r.
Graph validGraph() {
    GraphBuilder b("small", "small.mlir");
    ValueId x = b.input("x", {4, 8}, ElementType::F32, {"batch", "d_model"});
    ValueId w = b.parameter("w", {8, 16}, ElementType::F32);
    ValueId bias = b.parameter("b", {16}, ElementType::F32);
    b.parameter("p", {4, 16}, ElementType::F32);
    ValueId h = b.dotGeneral(x, w, {{}, {}, {1}, {0}}, "matmul");
    ValueId y = b.add(h, b.broadcastTo(bias, {4, 16}), "bias");
    ValueId r = b.reduce(y, {1}, Reducer::Add, "sum");
    b.output(y, "y", 3);
    b.output(r, "r");
    auto g = std::move(b).finish();
    if (!g)
        qFatal("%s", g.errorMessage().c_str());
    return std::move(g).value();
}

OpId findOp(const Graph& g, OpKind kind) {
    for (OpId id : g.body)
        if (g.op(id).kind == kind)
            return id;
    qFatal("op not found");
    return {};
}

}  // namespace

class TestIrVerifier : public QObject {
    Q_OBJECT
private slots:
    void acceptsWellFormedGraph() {
        const Graph g = validGraph();
        const auto diagnostics = verify(g);
        QVERIFY2(diagnostics.empty(), diagnostics.empty() ? "" : diagnostics.front().toString().c_str());
        QVERIFY(verifyGraph(g).ok());
    }

    void rejectsMalformedGraph_data() {
        QTest::addColumn<Corruption>("corrupt");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("message");

        QTest::newRow("use before definition")
            << Corruption([](Graph& g) { std::swap(g.body[0], g.body[2]); }) << "ir.operand-before-definition"
            << "is used before it is defined";
        QTest::newRow("operand out of range")
            << Corruption([](Graph& g) { g.op(findOp(g, OpKind::Add)).operands[1] = ValueId{9999}; })
            << "ir.operand-undefined"
            << "operand #1 (%9999) does not exist";
        QTest::newRow("contracting sizes differ")
            << Corruption([](Graph& g) {
                   auto& dims = std::get<DotDimensions>(g.op(findOp(g, OpKind::DotGeneral)).attributes);
                   dims.lhsContracting = {0};  // x dim 0 is 4, w dim 0 is 8
               })
            << "ir.invalid-op"
            << "contracting dimension sizes differ: lhs dimension 0 is 4, rhs dimension 0 is 8";
        QTest::newRow("result type differs from the operands")
            << Corruption([](Graph& g) {
                   g.value(g.op(findOp(g, OpKind::Add)).results[0]).type.shape = {4, 15};
               })
            << "ir.result-type"
            << "result #0 is declared tensor<4x15xf32> but the operands give tensor<4x16xf32>";
        QTest::newRow("operands of different shapes")
            << Corruption([](Graph& g) {
                   g.op(findOp(g, OpKind::Add)).operands[1] = g.arguments[3].value;
                   g.value(g.arguments[3].value).type.shape = {4, 17};
               })
            << "ir.invalid-op"
            << "operand shapes differ: tensor<4x16xf32> and tensor<4x17xf32>";
        QTest::newRow("declared result type wrong") << Corruption([](Graph& g) {
            g.value(g.op(findOp(g, OpKind::Reduce)).results[0]).type = TensorType{{16}, ElementType::F32};
        }) << "ir.result-type"
                                                    << "result #0 is declared tensor<16xf32> but the "
                                                       "operands give tensor<4xf32>";
        QTest::newRow("dot result wrong")
            << Corruption([](Graph& g) {
                   g.value(g.op(findOp(g, OpKind::DotGeneral)).results[0]).type.element = ElementType::BF16;
                   g.value(g.op(findOp(g, OpKind::DotGeneral)).results[0]).type.shape = {16, 4};
               })
            << "ir.result-type"
            << "declared tensor<16x4xbf16> but the operands give tensor<4x16xbf16>";
        QTest::newRow("broadcast dimensions out of range") << Corruption([](Graph& g) {
            std::get<BroadcastDimensions>(g.op(findOp(g, OpKind::BroadcastInDim)).attributes).dims = {2};
        }) << "ir.invalid-op"
                                                           << "has dimension 2 outside a rank-2 tensor";
        QTest::newRow("broadcast of incompatible size")
            << Corruption([](Graph& g) {
                   std::get<BroadcastDimensions>(g.op(findOp(g, OpKind::BroadcastInDim)).attributes).dims = {
                       0};
               })
            << "ir.invalid-op"
            << "operand dimension 0 of size 16 cannot broadcast to result dimension 0 of size 4";
        QTest::newRow("reduce dimension repeated") << Corruption([](Graph& g) {
            std::get<ReduceAttributes>(g.op(findOp(g, OpKind::Reduce)).attributes).dimensions = {1, 1};
        }) << "ir.invalid-op"
                                                   << "repeats dimension 1";
        QTest::newRow("op listed twice")
            << Corruption([](Graph& g) { g.body.push_back(g.body.back()); }) << "ir.op-repeated"
            << "appears twice in the program";
        QTest::newRow("op that does not exist")
            << Corruption([](Graph& g) { g.body.push_back(OpId{777}); }) << "ir.op-undefined"
            << "op #777 which does not exist";
        QTest::newRow("value defined twice") << Corruption([](Graph& g) {
            g.op(findOp(g, OpKind::Reduce)).results[0] = g.op(findOp(g, OpKind::Add)).results[0];
        }) << "ir.value-redefined"
                                             << "is defined more than once";
        QTest::newRow("argument produced by an op")
            << Corruption([](Graph& g) { g.arguments[1].value = g.op(findOp(g, OpKind::Add)).results[0]; })
            << "ir.argument-produced"
            << "argument #1 'w' is also the result of an op";
        QTest::newRow("duplicate parameter names")
            << Corruption([](Graph& g) { g.arguments[2].name = "w"; }) << "ir.parameter-name-duplicate"
            << "two parameters are named 'w'";
        QTest::newRow("unnamed parameter")
            << Corruption([](Graph& g) { g.arguments[1].name.clear(); }) << "ir.parameter-unnamed"
            << "is a parameter without a name";
        QTest::newRow("wrong number of dimension labels")
            << Corruption([](Graph& g) { g.arguments[0].dimensionLabels = {"batch"}; })
            << "ir.argument-labels"
            << "1 dimension labels for a rank-2 tensor";
        QTest::newRow("output undefined")
            << Corruption([](Graph& g) { g.outputs[1].value = ValueId{4242}; }) << "ir.output-undefined"
            << "output #1 'r' returns %4242";
        QTest::newRow("alias of another type")
            << Corruption([](Graph& g) { g.outputs[0].aliasedArgument = 1; }) << "ir.alias-type"
            << "of type tensor<4x16xf32> aliases argument 'w' of type tensor<8x16xf32>";
        QTest::newRow("argument donated twice") << Corruption([](Graph& g) {
            Output again;
            again.value = g.outputs[0].value;
            again.name = "again";
            again.aliasedArgument = 3;
            g.outputs.push_back(again);
        }) << "ir.alias-duplicate"
                                                << "argument 'p' (#3) is donated to more than one output";
        QTest::newRow("alias out of range")
            << Corruption([](Graph& g) { g.outputs[0].aliasedArgument = 12; }) << "ir.alias-out-of-range"
            << "aliases argument #12 but there are only 4";
        QTest::newRow("negative dimension") << Corruption([](Graph& g) {
            g.value(g.arguments[0].value).type.shape = {-4, 8};
        }) << "ir.negative-dimension"
                                            << "has a negative dimension in tensor<-4x8xf32>";
        QTest::newRow("region result not defined") << Corruption([](Graph& g) {
            g.op(findOp(g, OpKind::Reduce)).regions[0].results = {ValueId{5000}};
        }) << "ir.region-result-undefined"
                                                   << "region returns %5000";
        QTest::newRow("region value used outside its region") << Corruption([](Graph& g) {
            const auto& region = g.op(findOp(g, OpKind::Reduce)).regions[0];
            g.op(findOp(g, OpKind::Add)).operands[0] = region.arguments[0];
        }) << "ir.operand-before-definition"
                                                              << "operand #0";
    }

    void rejectsMalformedGraph() {
        QFETCH(Corruption, corrupt);
        QFETCH(QString, code);
        QFETCH(QString, message);
        Graph g = validGraph();
        corrupt(g);
        const auto diagnostics = verify(g);
        QVERIFY2(!diagnostics.empty(), "the corrupted graph was accepted");
        bool found = false;
        std::string all;
        for (const auto& d : diagnostics) {
            all += d.toString() + "\n";
            if (d.severity == Severity::Error && d.code == code.toStdString() &&
                d.toString().find(message.toStdString()) != std::string::npos)
                found = true;
        }
        QVERIFY2(found, ("expected [" + code.toStdString() + "] containing '" + message.toStdString() +
                         "', got:\n" + all)
                            .c_str());
        QVERIFY(!verifyGraph(g).ok());
    }

    // Diagnostics about an op point at the op: its source file and label.
    void diagnosticsNameTheOpAndItsLocation() {
        Graph g = validGraph();
        std::get<DotDimensions>(g.op(findOp(g, OpKind::DotGeneral)).attributes).lhsContracting = {0};
        const auto diagnostics = verify(g);
        QVERIFY(!diagnostics.empty());
        const std::string text = diagnostics.front().toString();
        QVERIFY2(text.rfind("small.mlir (matmul): error: 'stablehlo.dot_general': ", 0) == 0, text.c_str());
    }

    // The builder reports the first inconsistency instead of producing a broken graph.
    void builderRejectsInconsistentOps() {
        GraphBuilder b("bad", "bad.py");
        auto scope = b.scope("layers.0");
        ValueId x = b.input("x", {4, 8}, ElementType::F32);
        ValueId w = b.parameter("w", {7, 16}, ElementType::F32);
        ValueId y = b.einsum("bd,df->bf", x, w, "proj");
        QVERIFY(!y.valid());
        b.output(b.add(y, y), "y");  // ignored after the failure
        auto result = std::move(b).finish();
        QVERIFY(!result.ok());
        QCOMPARE(QString::fromStdString(result.errorMessage()),
                 QStringLiteral(
                     "bad.py (layers.0.proj): error: 'stablehlo.dot_general': contracting dimension sizes "
                     "differ: lhs dimension 1 is 8, rhs dimension 0 is 7 [ir.invalid-op]"));
    }

    void builderRejectsBadEinsum() {
        GraphBuilder b("bad");
        ValueId x = b.input("x", {4, 8}, ElementType::F32);
        b.einsum("bd,df", x, x);
        auto result = std::move(b).finish();
        QVERIFY(!result.ok());
        QVERIFY(result.errorMessage().find("is not of the form") != std::string::npos);
    }

    // Shape rules of ops the zoo does not exercise much.
    void inferenceOfStructuralOps() {
        GraphBuilder b("ops");
        ValueId x = b.input("x", {2, 6, 8}, ElementType::F32);
        QCOMPARE(b.type(b.slice(x, {0, 1, 0}, {2, 6, 8}, {1, 2, 3})).shape, (Shape{2, 3, 3}));
        QCOMPARE(b.type(b.pad(x, b.scalar(0, ElementType::F32), {0, 1, 0}, {0, 2, -1}, {0, 1, 0})).shape,
                 (Shape{2, 14, 7}));
        QCOMPARE(b.type(b.concatenate({x, x}, 1)).shape, (Shape{2, 12, 8}));
        QCOMPARE(b.type(b.transpose(x, {2, 0, 1})).shape, (Shape{8, 2, 6}));
        QCOMPARE(b.type(b.einsum("abc,adc->bda", x, x)).shape, (Shape{6, 6, 2}));
        WindowAttributes pool;
        pool.windowDimensions = {1, 2, 2};
        pool.windowStrides = {1, 2, 2};
        pool.reducer = Reducer::Maximum;
        QCOMPARE(b.type(b.reduceWindow(x, pool)).shape, (Shape{2, 3, 4}));
        ValueId image = b.input("image", {1, 9, 9, 3}, ElementType::F32);
        ValueId kernel = b.parameter("k", {3, 3, 3, 5}, ElementType::F32);
        ConvolutionAttributes conv = ConvolutionAttributes::channelsLast();
        conv.windowStrides = {2, 2};
        conv.padding = {{1, 1}, {1, 1}};
        QCOMPARE(b.type(b.convolution(image, kernel, conv)).shape, (Shape{1, 5, 5, 5}));
        ValueId table = b.parameter("table", {100, 16}, ElementType::F32);
        ValueId ids = b.input("ids", {4, 7, 1}, ElementType::I32);
        GatherAttributes g;
        g.offsetDims = {2};
        g.collapsedSliceDims = {0};
        g.startIndexMap = {0};
        g.indexVectorDim = 2;
        g.sliceSizes = {1, 16};
        QCOMPARE(b.type(b.gather(table, ids, g)).shape, (Shape{4, 7, 16}));
        auto graph = std::move(b).finish();
        QVERIFY2(graph.ok(), graph.errorMessage().c_str());
    }
};

QTEST_APPLESS_MAIN(TestIrVerifier)
#include "tst_ir_verifier.moc"
