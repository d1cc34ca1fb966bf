// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Loops: counted while loops unrolled for planning (ir/unroll.h), the zoo's scanned layers (scan=true), and a
// scanned model analysed, priced and searched like its unrolled twin.
#include <QtTest>

#include <set>

#include "shardscope/analysis/decision_space.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/ir/builder.h"
#include "shardscope/ir/printer.h"
#include "shardscope/ir/unroll.h"
#include "shardscope/ir/verifier.h"
#include "shardscope/plan/experts.h"
#include "shardscope/search/search.h"
#include "shardscope/session/model_source.h"
#include "shardscope/session/problem.h"
#include "shardscope/zoo/zoo.h"
#include "test_support.h"

using namespace shardscope;
using namespace shardscope::ir;

using shardscope::testing::zooGraph;

namespace {

constexpr const char* kTwin = "gpt:layers=4,d_model=256,heads=8,d_ff=1024,seq=256,batch=16,vocab=4096";

std::size_t countKind(const Graph& g, OpKind kind) {
    std::size_t n = 0;
    for (OpId id : g.allOpsInOrder())
        n += g.op(id).kind == kind;
    return n;
}

std::set<std::string> groupLabels(const analysis::DecisionSpace& space) {
    std::set<std::string> out;
    for (const auto& group : space.groups)
        out.insert(group.label);
    return out;
}

std::unique_ptr<Problem> problemFor(const std::string& model, bool train,
                                    const std::string& mesh = "data=4,model=2") {
    ProblemSpec spec;
    spec.model = "zoo:" + model;
    spec.train = train;
    spec.mesh = mesh;
    auto p = loadProblem(spec);
    if (!p)
        qFatal("%s", p.errorMessage().c_str());
    return std::move(p).value();
}

// A loop `for i in [0, 5): acc = acc · x` whose limit is an argument (not a constant): its trip count is
// unknown.
Graph uncountedLoop() {
    GraphBuilder b("uncounted", "uncounted.mlir");
    const TensorType counter{{}, ElementType::I32};
    const TensorType vector{{8}, ElementType::F32};
    ValueId limit = b.input("limit", {}, ElementType::I32);
    ValueId x = b.parameter("x", {8}, ElementType::F32);
    Region cond = b.region({counter, vector}, [&](const std::vector<ValueId>& a) {
        return std::vector<ValueId>{b.compare(a[0], limit, CompareDirection::LT)};
    });
    Region body = b.region({counter, vector}, [&](const std::vector<ValueId>& a) {
        return std::vector<ValueId>{b.add(a[0], b.constant(1, counter)), b.multiply(a[1], x)};
    });
    auto r = b.op(OpKind::While, {b.constant(0, counter), x}, LoopAttributes{}, "loop",
                  {std::move(cond), std::move(body)});
    b.output(r[1], "y");
    auto g = std::move(b).finish();
    if (!g)
        qFatal("%s", g.errorMessage().c_str());
    return std::move(g).value();
}

}  // namespace

class TestLoops : public QObject {
    Q_OBJECT
private slots:
    // scan=true builds one while loop over weights stacked [layers, ...]; unrolling gives each iteration the
    // twin's layer labels, reads the counter as a constant per copy and leaves a verified graph without
    // loops.
    void scannedZooModelUnrolls() {
        Graph g = zooGraph(std::string(kTwin) + ",scan=true");
        QCOMPARE(countKind(g, OpKind::While), std::size_t{1});
        const Graph twin = zooGraph(kTwin);
        QVERIFY(g.arguments.size() <
                twin.arguments.size());  // stacked: one argument per weight, not per layer
        bool stacked = false;
        for (const auto& a : g.arguments)
            stacked = stacked || (!a.dimensionLabels.empty() && a.dimensionLabels.front() == "layers" &&
                                  g.type(a.value).shape.front() == 4);
        QVERIFY(stacked);
        const auto loops = unrollLoops(g);
        QCOMPARE(loops.unrolled, std::size_t{1});
        QVERIFY(loops.warnings.empty());
        QCOMPARE(countKind(g, OpKind::While), std::size_t{0});
        QVERIFY2(verifyGraph(g).ok(), verifyGraph(g).errorMessage().c_str());
        std::set<std::string> layers;
        for (OpId id : g.body) {
            const std::string& name = g.op(id).location.name;
            if (name.rfind("layers.", 0) == 0)
                layers.insert(name.substr(0, name.find('.', 7)));
        }
        QCOMPARE(layers, (std::set<std::string>{"layers.0", "layers.1", "layers.2", "layers.3"}));
        // Each iteration's dynamic_slices read that iteration's counter value.
        std::set<double> indices;
        for (OpId id : g.body) {
            const Op& op = g.op(id);
            if (op.kind != OpKind::DynamicSlice)
                continue;
            const Op& start = g.op(g.value(op.operands[1]).producer);
            QCOMPARE(start.kind, OpKind::Constant);
            indices.insert(std::get<ConstantAttributes>(start.attributes).values.front());
        }
        QCOMPARE(indices, (std::set<double>{0, 1, 2, 3}));
    }

    // A loop whose trip count is not a constant count stays, priced as one op, and a warning names it.
    void uncountedLoopIsKeptAndNamed() {
        Graph g = uncountedLoop();
        QVERIFY(!countedTrips(g, g.op(g.body.back())).has_value());
        const auto loops = unrollLoops(g);
        QCOMPARE(loops.unrolled, std::size_t{0});
        QCOMPARE(loops.warnings.size(), std::size_t{1});
        const QString text = QString::fromStdString(loops.warnings.front().toString());
        QVERIFY2(text.contains("while loop 'loop' is priced as one op") && text.contains("trip count"),
                 qPrintable(text));
        QCOMPARE(countKind(g, OpKind::While), std::size_t{1});
    }

    // A case whose index is a constant becomes the branch it takes (out of range: the last).
    void constantCaseIsInlined_data() {
        QTest::addColumn<double>("index");
        QTest::addColumn<int>("kind");  // of the branch's op
        QTest::newRow("branch 0") << 0.0 << int(OpKind::Multiply);
        QTest::newRow("branch 1") << 1.0 << int(OpKind::Add);
        QTest::newRow("out of range") << 7.0 << int(OpKind::Add);
    }
    void constantCaseIsInlined() {
        QFETCH(double, index);
        QFETCH(int, kind);
        GraphBuilder b("switch");
        ValueId x = b.parameter("x", {4}, ElementType::F32);
        Region times =
            b.region({}, [&](const std::vector<ValueId>&) { return std::vector<ValueId>{b.multiply(x, x)}; });
        Region plus =
            b.region({}, [&](const std::vector<ValueId>&) { return std::vector<ValueId>{b.add(x, x)}; });
        auto r = b.op(OpKind::Case, {b.constant(index, TensorType{{}, ElementType::I32})}, NoAttributes{},
                      "switch", {std::move(times), std::move(plus)});
        b.output(r.front(), "y");
        Graph g = std::move(b).finish().value();
        unrollLoops(g);
        QCOMPARE(countKind(g, OpKind::Case), std::size_t{0});
        QVERIFY(verifyGraph(g).ok());
        const Value& y = g.value(g.outputs.front().value);
        QVERIFY(y.producer.valid());
        QCOMPARE(int(g.op(y.producer).kind), kind);
    }

    // A loop past the op limit stays too.
    void loopPastTheOpLimitIsKept() {
        Graph g = zooGraph(std::string(kTwin) + ",scan=true");
        UnrollOptions options;
        options.maxOps = g.ops.size() + 10;
        const auto loops = unrollLoops(g, options);
        QCOMPARE(loops.unrolled, std::size_t{0});
        QCOMPARE(loops.warnings.size(), std::size_t{1});
        QVERIFY(QString::fromStdString(loops.warnings.front().message).contains("would pass the limit"));
    }

    // Counted loops of every direction and step.
    void tripCounts_data() {
        QTest::addColumn<double>("start");
        QTest::addColumn<double>("limit");
        QTest::addColumn<double>("step");
        QTest::addColumn<int>("direction");
        QTest::addColumn<int>("trips");  // -1: not counted
        QTest::newRow("0..12 by 1, <") << 0.0 << 12.0 << 1.0 << int(CompareDirection::LT) << 12;
        QTest::newRow("0..12 by 5, <") << 0.0 << 12.0 << 5.0 << int(CompareDirection::LT) << 3;
        QTest::newRow("1..4 by 1, <=") << 1.0 << 4.0 << 1.0 << int(CompareDirection::LE) << 4;
        QTest::newRow("9 down to 0, >") << 9.0 << 0.0 << -1.0 << int(CompareDirection::GT) << 9;
        QTest::newRow("0..6 by 2, !=") << 0.0 << 6.0 << 2.0 << int(CompareDirection::NE) << 3;
        QTest::newRow("never true") << 5.0 << 2.0 << 1.0 << int(CompareDirection::LT) << 0;
        QTest::newRow("forever") << 0.0 << 5.0 << -1.0 << int(CompareDirection::LT) << -1;
        QTest::newRow("!= never met") << 0.0 << 5.0 << 2.0 << int(CompareDirection::NE) << -1;
    }
    void tripCounts() {
        QFETCH(double, start);
        QFETCH(double, limit);
        QFETCH(double, step);
        QFETCH(int, direction);
        QFETCH(int, trips);
        GraphBuilder b("loop");
        const TensorType counter{{}, ElementType::I32};
        ValueId x = b.parameter("x", {2}, ElementType::F32);
        Region cond = b.region({counter, b.type(x)}, [&](const std::vector<ValueId>& a) {
            return std::vector<ValueId>{
                b.compare(a[0], b.constant(limit, counter), static_cast<CompareDirection>(direction))};
        });
        Region body = b.region({counter, b.type(x)}, [&](const std::vector<ValueId>& a) {
            return std::vector<ValueId>{b.add(a[0], b.constant(step, counter)), b.add(a[1], a[1])};
        });
        auto r = b.op(OpKind::While, {b.constant(start, counter), x}, LoopAttributes{}, "loop",
                      {std::move(cond), std::move(body)});
        b.output(r[1], "y");
        Graph g = std::move(b).finish().value();
        const auto counted = countedTrips(g, g.op(g.body.back()));
        QCOMPARE(counted ? static_cast<int>(*counted) : -1, trips);
        if (trips < 0)
            return;
        unrollLoops(g);
        QCOMPARE(countKind(g, OpKind::Add),
                 static_cast<std::size_t>(trips));  // the doublings; the counter updates go
        QVERIFY(verifyGraph(g).ok());
    }

    // The analysis of the scanned model has the twin's groups, plus one: the stacked layer dimension, a
    // single name over every stacked weight.
    void scannedModelHasTheTwinsGroups() {
        for (bool train : {false, true}) {
            const auto twin = problemFor(kTwin, train);
            const auto scanned = problemFor(std::string(kTwin) + ",scan=true", train);
            std::set<std::string> expected = groupLabels(twin->space);
            expected.insert("layers");
            QCOMPARE(groupLabels(scanned->space), expected);
            std::size_t layerNames = 0;
            for (const auto& n : scanned->space.names)
                if (n.label == "layers") {
                    ++layerNames;
                    QCOMPARE(n.size, std::int64_t{4});
                }
            QCOMPARE(layerNames, std::size_t{1});
        }
    }

    // Every expert plan prices the scanned model as its twin: step time and peak memory within 1%, the same
    // collective bytes; forward and training step.
    void scannedModelCostsLikeItsTwin_data() {
        QTest::addColumn<bool>("train");
        QTest::newRow("forward") << false;
        QTest::newRow("training step") << true;
    }
    void scannedModelCostsLikeItsTwin() {
        QFETCH(bool, train);
        const auto twin = problemFor(kTwin, train);
        const auto scanned = problemFor(std::string(kTwin) + ",scan=true", train);
        for (const std::string id : {"dp", "fsdp", "megatron", "megatron-sp", "fsdp-tp", "zero2"}) {
            const auto a = plan::expertPlan(id, twin->costModel->planContext(), twin->costModel->mesh());
            const auto b =
                plan::expertPlan(id, scanned->costModel->planContext(), scanned->costModel->mesh());
            QVERIFY2(a.ok() == b.ok(), id.c_str());
            if (!a.ok())
                continue;
            const auto x = cost::evaluate(*twin->costModel, *a);
            const auto y = cost::evaluate(*scanned->costModel, *b);
            double bytesX = 0, bytesY = 0;
            for (const auto& c : x.collectives)
                bytesX += c.bytes;
            for (const auto& c : y.collectives)
                bytesY += c.bytes;
            const QString what = QString("%1: step %2 vs %3 us, peak %4 vs %5 MB, collectives %6 vs %7 MB")
                                     .arg(QString::fromStdString(id))
                                     .arg(x.stepTime * 1e6)
                                     .arg(y.stepTime * 1e6)
                                     .arg(x.peakMemory / 1e6)
                                     .arg(y.peakMemory / 1e6)
                                     .arg(bytesX / 1e6)
                                     .arg(bytesY / 1e6);
            QVERIFY2(std::abs(y.stepTime / x.stepTime - 1) < 0.01, qPrintable(what));
            QVERIFY2(std::abs(y.peakMemory / x.peakMemory - 1) < 0.01, qPrintable(what));
            QVERIFY2(std::abs(bytesY / bytesX - 1) < 0.01 || (bytesX == 0 && bytesY == 0), qPrintable(what));
        }
    }

    // The search finds plans of the same cost on both (seeded alike, the same budget).
    void scannedModelSearchesLikeItsTwin() {
        const auto twin = problemFor(kTwin, true);
        const auto scanned = problemFor(std::string(kTwin) + ",scan=true", true);
        search::SearchOptions options;
        options.seed = 7;
        options.budget.iterations = 300;
        search::Search a(*twin->costModel, {}, options), b(*scanned->costModel, {}, options);
        const auto x = a.run(), y = b.run();
        const QString what = QString("best %1 us (%2) vs %3 us (%4)")
                                 .arg(x.evaluation.stepTime * 1e6)
                                 .arg(QString::fromStdString(x.origin))
                                 .arg(y.evaluation.stepTime * 1e6)
                                 .arg(QString::fromStdString(y.origin));
        qInfo("%s", qPrintable(what));
        QVERIFY2(std::abs(y.evaluation.stepTime / x.evaluation.stepTime - 1) < 0.01, qPrintable(what));
    }

    // A scan as JAX lowers it (jax.lax.scan over stacked weights: the stacked weight carried through the
    // loop, sliced at the counter): three layers, each with the weight's slice for its iteration.
    void jaxScanImports() {
        const std::string text = R"(module @jit_f {
  func.func public @main(%arg0: tensor<3x4x4xf32> {jax.arg_info = "params['layers']['w']"}, %arg1: tensor<2x4xf32> {jax.arg_info = "x"}) -> (tensor<2x4xf32> {jax.result_info = ""}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %c, %iterArg_1 = %arg1) : tensor<3x4x4xf32>, tensor<i32>, tensor<2x4xf32>
     cond {
      %c_2 = stablehlo.constant dense<3> : tensor<i32>
      %1 = stablehlo.compare  LT, %iterArg_0, %c_2,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %c_2 = stablehlo.constant dense<0> : tensor<i32>
      %1 = stablehlo.dynamic_slice %iterArg, %iterArg_0, %c_2, %c_2, sizes = [1, 4, 4] : (tensor<3x4x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x4xf32>
      %2 = stablehlo.reshape %1 : (tensor<1x4x4xf32>) -> tensor<4x4xf32>
      %3 = stablehlo.dot_general %iterArg_1, %2, contracting_dims = [1] x [0] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
      %4 = stablehlo.tanh %3 : tensor<2x4xf32>
      %c_3 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %iterArg_0, %c_3 : tensor<i32>
      stablehlo.return %iterArg, %5, %4 : tensor<3x4x4xf32>, tensor<i32>, tensor<2x4xf32>
    }
    return %0#2 : tensor<2x4xf32>
  }
}
)";
        auto loaded = loadModelBytes(text, "scan.mlir");
        QVERIFY2(loaded.ok(), loaded.errorMessage().c_str());
        const Graph& g = loaded->graph;
        QCOMPARE(countKind(g, OpKind::While), std::size_t{0});
        QCOMPARE(countKind(g, OpKind::DotGeneral), std::size_t{3});
        const auto space = analysis::analyze(g);
        const auto layers = space.namesOf(g.arguments[0].value, 0);
        QCOMPARE(layers.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(space.name(layers[0]).label), QStringLiteral("layers"));
        // The carried activation's feature dimension is one name through all three iterations.
        QCOMPARE(space.namesOf(g.arguments[1].value, 1), space.namesOf(g.outputs[0].value, 1));
        ProblemSpec spec;
        spec.model = "scan.mlir";
        spec.train = true;
        spec.mesh = "data=2";
        auto problem = loadProblem(spec, &text);
        QVERIFY2(problem.ok(), problem.errorMessage().c_str());
        QVERIFY(cost::evaluate(*(*problem)->costModel, plan::Plan{}).stepTime > 0);
    }

    // A StableHLO module with the loop (the zoo's scanned graph printed) imports to the same unrolled model.
    void scannedStableHloImportsUnrolled() {
        const Graph scanned = zooGraph(std::string(kTwin) + ",scan=true");
        const std::string text = printStableHlo(scanned);
        QVERIFY(text.find("stablehlo.while") != std::string::npos);
        auto loaded = loadModelBytes(text, "scanned.mlir");
        QVERIFY2(loaded.ok(), loaded.errorMessage().c_str());
        QCOMPARE(countKind(loaded->graph, OpKind::While), std::size_t{0});
        QVERIFY(QString::fromStdString(loaded->description).contains("1 loop unrolled"));
        const auto space = analysis::analyze(loaded->graph);
        const auto direct = problemFor(std::string(kTwin) + ",scan=true", false);
        QCOMPARE(space.names.size(), direct->space.names.size());
    }
};

QTEST_APPLESS_MAIN(TestLoops)
#include "tst_loops.moc"
