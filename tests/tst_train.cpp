// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Training steps: every VJP rule against central finite differences (run by the reference interpreter in
// f64), gradient checks of tiny versions of every zoo family, the optimizer updates, and the step's
// structure.
#include <QtTest>
#include <cmath>
#include <functional>
#include <random>

#include "test_support.h"

#include "shardscope/interpret/interpreter.h"
#include "shardscope/ir/builder.h"
#include "shardscope/ir/statistics.h"
#include "shardscope/session/model_source.h"
#include "shardscope/session/problem.h"
#include "shardscope/session/recording.h"
#include "shardscope/session/workspace_session.h"
#include "shardscope/train/training_step.h"
#include "shardscope/zoo/zoo.h"

using namespace shardscope;
using namespace shardscope::ir;
using interpret::Tensor;

using GraphFactory = std::function<void(GraphBuilder&)>;
Q_DECLARE_METATYPE(GraphFactory)

using shardscope::testing::zooGraph;

namespace {

constexpr auto F64 = ElementType::F64;

// Random arguments: floats in [lo, hi) (positive where `positive`), integers in [0, intRange).
std::vector<Tensor> randomArguments(const Graph& g, std::mt19937& random, double lo, double hi,
                                    std::int64_t intRange) {
    std::vector<Tensor> args;
    for (const auto& a : g.arguments) {
        Tensor t = Tensor::filled(g.type(a.value), 0);
        for (double& v : t.values) {
            if (isFloat(t.type.element))
                v = std::uniform_real_distribution<double>(lo, hi)(random);
            else
                v = static_cast<double>(std::uniform_int_distribution<std::int64_t>(0, intRange - 1)(random));
        }
        args.push_back(std::move(t));
    }
    return args;
}

std::vector<Tensor> runOrFail(const Graph& g, const std::vector<Tensor>& args) {
    auto r = interpret::run(g, args);
    if (!r)
        qFatal("interpreter: %s", r.errorMessage().c_str());
    return std::move(r).value();
}

// Compares the gradient graph's gradients with central differences of its loss at up to `samples` elements of
// each differentiated argument. Returns the largest relative error.
double gradientError(const train::GradientGraph& gg, std::vector<Tensor> args, int samples,
                     std::mt19937& random, double h = 1e-6) {
    const auto analytic = runOrFail(gg.graph, args);
    double worst = 0;
    for (std::size_t k = 0; k < gg.differentiated.size(); ++k) {
        Tensor& arg = args[gg.differentiated[k]];
        const Tensor& grad = analytic[k + 1];
        const auto n = static_cast<std::int64_t>(arg.values.size());
        for (int s = 0; s < samples && s < n; ++s) {
            const auto i = static_cast<std::size_t>(
                samples >= n ? s : std::uniform_int_distribution<std::int64_t>(0, n - 1)(random));
            const double saved = arg.values[i];
            arg.values[i] = saved + h;
            const double up = runOrFail(gg.graph, args)[0].values[0];
            arg.values[i] = saved - h;
            const double down = runOrFail(gg.graph, args)[0].values[0];
            arg.values[i] = saved;
            const double numeric = (up - down) / (2 * h);
            const double error = std::abs(numeric - grad.values[i]) /
                                 std::max({1.0, std::abs(numeric), std::abs(grad.values[i])});
            worst = std::max(worst, error);
        }
    }
    return worst;
}

Graph finished(GraphBuilder& b) {
    Graph g = b.graph();
    GraphBuilder copy(std::move(g));
    auto r = std::move(copy).finish();
    if (!r)
        qFatal("%s", r.errorMessage().c_str());
    return std::move(r).value();
}

ValueId p(GraphBuilder& b, const char* name, Shape shape) {
    return b.parameter(name, std::move(shape), F64);
}

// Outputs 'first' = w1·w1 and 'second' = w2·w2 (elementwise, of parameters w1 and w2), and an integer 'ids'.
Graph threeOutputs() {
    GraphBuilder b("heads");
    ValueId w1 = p(b, "w1", {3});
    ValueId w2 = p(b, "w2", {3});
    b.output(b.multiply(w1, w1), "first");
    b.output(b.multiply(w2, w2), "second");
    b.output(b.iota(TensorType{{3}, ElementType::I32}, 0), "ids");
    return finished(b);
}

}  // namespace

class TestTrain : public QObject {
    Q_OBJECT
private slots:
    // One case per VJP rule: the op fed by parameters, loss 0.5·mean(y²), gradients of every float argument.
    void vjpRulesMatchFiniteDifferences_data() {
        QTest::addColumn<GraphFactory>("build");
        QTest::addColumn<bool>("positive");  // inputs restricted to positive values (log, sqrt, power, ...)
        auto unary = [](OpKind kind) {
            return GraphFactory([kind](GraphBuilder& b) { b.output(b.unary(kind, p(b, "x", {2, 3})), "y"); });
        };
        auto binary = [](OpKind kind) {
            return GraphFactory([kind](GraphBuilder& b) {
                b.output(b.binary(kind, p(b, "x", {2, 3}), p(b, "w", {2, 3})), "y");
            });
        };
        for (OpKind k : {OpKind::Add, OpKind::Subtract, OpKind::Multiply, OpKind::Maximum, OpKind::Minimum})
            QTest::newRow(std::string(mnemonic(k)).c_str()) << binary(k) << false;
        for (OpKind k : {OpKind::Divide, OpKind::Power})
            QTest::newRow(std::string(mnemonic(k)).c_str()) << binary(k) << true;
        for (OpKind k :
             {OpKind::Negate, OpKind::Exponential, OpKind::ExponentialMinusOne, OpKind::Tanh,
              OpKind::Logistic, OpKind::Abs, OpKind::Sine, OpKind::Cosine, OpKind::Tan, OpKind::Cbrt})
            QTest::newRow(std::string(mnemonic(k)).c_str()) << unary(k) << false;
        for (OpKind k : {OpKind::Log, OpKind::LogPlusOne, OpKind::Rsqrt, OpKind::Sqrt})
            QTest::newRow(std::string(mnemonic(k)).c_str()) << unary(k) << true;
        QTest::newRow("erf") << GraphFactory([](GraphBuilder& b) {
            auto r = b.op(OpKind::OtherElementwise, {p(b, "x", {5})}, OpaqueAttributes{"chlo.erf"}, {}, {},
                          {TensorType{{5}, F64}});
            b.output(r.front(), "y");
        }) << false;
        QTest::newRow("convert") << GraphFactory([](GraphBuilder& b) {
            b.output(b.multiply(b.convert(p(b, "x", {4}), ElementType::F64), p(b, "w", {4})), "y");
        }) << false;
        QTest::newRow("select") << GraphFactory([](GraphBuilder& b) {
            ValueId x = p(b, "x", {6}), w = p(b, "w", {6});
            b.output(b.select(b.compare(x, w, CompareDirection::GT), x, b.multiply(w, w)), "y");
        }) << false;
        QTest::newRow("clamp") << GraphFactory([](GraphBuilder& b) {
            ValueId x = p(b, "x", {8});
            b.output(b.op1(OpKind::Clamp, {p(b, "lo", {}), x, p(b, "hi", {8})}), "y");
        }) << false;
        QTest::newRow("broadcast_in_dim") << GraphFactory([](GraphBuilder& b) {
            // A size-1 dimension expanded and dimensions permuted.
            b.output(b.broadcastInDim(p(b, "x", {3, 1}), {2, 4, 3}, {2, 0}), "y");
        }) << false;
        QTest::newRow("reshape+transpose") << GraphFactory([](GraphBuilder& b) {
            b.output(b.transpose(b.reshape(p(b, "x", {2, 6}), {3, 2, 2}), {2, 0, 1}), "y");
        }) << false;
        QTest::newRow("reverse") << GraphFactory([](GraphBuilder& b) {
            b.output(b.multiply(b.op1(OpKind::Reverse, {p(b, "x", {2, 3})}, DimensionsAttribute{{1}}),
                                p(b, "w", {2, 3})),
                     "y");
        }) << false;
        QTest::newRow("dot_general") << GraphFactory([](GraphBuilder& b) {
            // Batching, two contracting dimensions and free dimensions in an unusual order on both sides.
            ValueId lhs = p(b, "lhs", {3, 2, 4, 5}), rhs = p(b, "rhs", {5, 2, 6, 3});
            b.output(b.dotGeneral(lhs, rhs, {{1}, {1}, {3, 0}, {0, 3}}), "y");
        }) << false;
        QTest::newRow("einsum") << GraphFactory([](GraphBuilder& b) {
            b.output(b.einsum("bsd,fd->bfs", p(b, "x", {2, 3, 4}), p(b, "w", {5, 4})), "y");
        }) << false;
        QTest::newRow("convolution") << GraphFactory([](GraphBuilder& b) {
            ConvolutionAttributes c = ConvolutionAttributes::channelsLast();
            c.windowStrides = {2, 1};
            c.padding = {{1, 0}, {1, 2}};
            c.rhsDilation = {1, 2};
            b.output(b.convolution(p(b, "x", {2, 5, 6, 3}), p(b, "k", {3, 2, 3, 4}), c), "y");
        }) << false;
        QTest::newRow("convolution groups") << GraphFactory([](GraphBuilder& b) {
            ConvolutionAttributes c;  // NCHW / OIHW, as ONNX writes it
            c.inputBatch = 0, c.inputFeature = 1, c.inputSpatial = {2, 3};
            c.kernelOutputFeature = 0, c.kernelInputFeature = 1, c.kernelSpatial = {2, 3};
            c.outputBatch = 0, c.outputFeature = 1, c.outputSpatial = {2, 3};
            c.featureGroupCount = 2;
            c.padding = {{1, 1}, {1, 1}};
            b.output(b.convolution(p(b, "x", {1, 4, 4, 4}), p(b, "k", {6, 2, 3, 3}), c), "y");
        }) << false;
        QTest::newRow("transposed convolution") << GraphFactory([](GraphBuilder& b) {
            ConvolutionAttributes c = ConvolutionAttributes::channelsLast();
            c.lhsDilation = {2, 2};
            c.padding = {{1, 1}, {1, 1}};
            b.output(b.convolution(p(b, "x", {1, 3, 3, 2}), p(b, "k", {2, 2, 2, 3}), c), "y");
        }) << false;
        for (Reducer r : {Reducer::Add, Reducer::Maximum, Reducer::Minimum, Reducer::Multiply})
            QTest::newRow(("reduce " + std::to_string(static_cast<int>(r))).c_str())
                << GraphFactory([r](GraphBuilder& b) {
                       b.output(b.reduce(p(b, "x", {3, 4, 2}), {0, 2}, r), "y");
                   })
                << (r == Reducer::Multiply);
        QTest::newRow("sum pool") << GraphFactory([](GraphBuilder& b) {
            WindowAttributes w;
            w.windowDimensions = {1, 3, 2};
            w.windowStrides = {1, 2, 1};
            w.padding = {{0, 0}, {1, 1}, {0, 1}};
            b.output(b.reduceWindow(p(b, "x", {2, 5, 4}), w), "y");
        }) << false;
        QTest::newRow("max pool") << GraphFactory([](GraphBuilder& b) {
            WindowAttributes w;
            w.windowDimensions = {1, 2, 2, 1};
            w.windowStrides = {1, 2, 2, 1};
            w.reducer = Reducer::Maximum;
            b.output(b.reduceWindow(p(b, "x", {1, 4, 6, 2}), w), "y");
        }) << false;
        QTest::newRow("slice") << GraphFactory([](GraphBuilder& b) {
            b.output(b.slice(p(b, "x", {5, 7}), {1, 0}, {5, 7}, {2, 3}), "y");
        }) << false;
        QTest::newRow("pad") << GraphFactory([](GraphBuilder& b) {
            b.output(b.pad(p(b, "x", {4, 3}), p(b, "v", {}), {1, -1}, {-1, 2}, {1, 0}), "y");
        }) << false;
        QTest::newRow("concatenate") << GraphFactory([](GraphBuilder& b) {
            b.output(b.concatenate({p(b, "x", {2, 3}), p(b, "w", {2, 1}), p(b, "z", {2, 2})}, 1), "y");
        }) << false;
        QTest::newRow("gather") << GraphFactory([](GraphBuilder& b) {
            ValueId table = p(b, "table", {7, 3});
            ValueId ids = b.input("ids", {2, 4, 1}, ElementType::I32);
            GatherAttributes g;
            g.offsetDims = {2};
            g.collapsedSliceDims = {0};
            g.startIndexMap = {0};
            g.indexVectorDim = 2;
            g.sliceSizes = {1, 3};
            b.output(b.gather(table, ids, g), "y");
        }) << false;
        QTest::newRow("dynamic_slice") << GraphFactory([](GraphBuilder& b) {
            ValueId x = p(b, "x", {5, 4});
            auto i = b.constant(2, TensorType{{}, ElementType::I32}),
                 j = b.constant(1, TensorType{{}, ElementType::I32});
            b.output(b.op1(OpKind::DynamicSlice, {x, i, j}, DynamicSliceAttributes{{2, 2}}), "y");
        }) << false;
        QTest::newRow("dynamic_update_slice") << GraphFactory([](GraphBuilder& b) {
            ValueId x = p(b, "x", {5, 4}), u = p(b, "u", {2, 3});
            auto i = b.constant(1, TensorType{{}, ElementType::I32}),
                 j = b.constant(1, TensorType{{}, ElementType::I32});
            b.output(b.op1(OpKind::DynamicUpdateSlice, {x, u, i, j}), "y");
        }) << false;
        QTest::newRow("stacked slices") << GraphFactory([](GraphBuilder& b) {
            // A weight stacked over 3 layers, each layer's slice read at its index (an unrolled scan): the
            // gradient is the slices' cotangents concatenated.
            ValueId w = p(b, "w", {3, 2}), x = p(b, "x", {2});
            ValueId y = x;
            for (int k = 0; k < 3; ++k) {
                auto i = b.constant(k, TensorType{{}, ElementType::I32}),
                     zero = b.constant(0, TensorType{{}, ElementType::I32});
                ValueId layer =
                    b.reshape(b.op1(OpKind::DynamicSlice, {w, i, zero}, DynamicSliceAttributes{{1, 2}}), {2});
                y = b.multiply(y, layer);
            }
            b.output(y, "y");
        }) << false;
        QTest::newRow("overlapping slices") << GraphFactory([](GraphBuilder& b) {
            ValueId w = p(b, "w", {4, 2});
            auto i = b.constant(1, TensorType{{}, ElementType::I32}),
                 zero = b.constant(0, TensorType{{}, ElementType::I32});
            ValueId a = b.op1(OpKind::DynamicSlice, {w, i, zero}, DynamicSliceAttributes{{2, 2}});
            ValueId c = b.op1(OpKind::DynamicSlice, {w, zero, zero}, DynamicSliceAttributes{{2, 2}});
            b.output(b.multiply(a, c), "y");
        }) << false;
        auto sortRow = [](bool withIota) {
            return GraphFactory([withIota](GraphBuilder& b) {
                ValueId x = p(b, "x", {2, 5}), w = p(b, "w", {2, 5});
                const TensorType scalar{{}, F64}, index{{}, ElementType::I32};
                std::vector<ValueId> operands{x, w};
                std::vector<TensorType> types{scalar, scalar, scalar, scalar};
                if (withIota) {
                    operands.push_back(b.iota(TensorType{{2, 5}, ElementType::I32}, 1));
                    types.push_back(index);
                    types.push_back(index);
                }
                Region greater = b.region(types, [&](const std::vector<ValueId>& a) {
                    return std::vector<ValueId>{b.compare(a[0], a[1], CompareDirection::GT)};
                });
                auto sorted = b.op(OpKind::Sort, operands, SortAttributes{1, true}, "top_k", {greater});
                // top-2 of x, and w carried along
                b.output(b.multiply(b.slice(sorted[0], {0, 0}, {2, 2}), b.slice(sorted[1], {0, 0}, {2, 2})),
                         "y");
            });
        };
        QTest::newRow("sort") << sortRow(false) << false;
        QTest::newRow("sort with iota (top-k)") << sortRow(true) << false;
        auto scatterRow = [](bool add) {
            return GraphFactory([add](GraphBuilder& b) {
                ValueId x = p(b, "x", {5, 3}), u = p(b, "u", {2, 3});
                ValueId ids = b.input("ids", {2, 1}, ElementType::I32);
                const TensorType scalar{{}, F64};
                Region combine = b.region({scalar, scalar}, [&](const std::vector<ValueId>& a) {
                    return std::vector<ValueId>{add ? b.add(a[0], a[1]) : a[1]};
                });
                ScatterAttributes s;
                s.updateWindowDims = {1};
                s.insertedWindowDims = {0};
                s.scatterDimsToOperandDims = {0};
                s.indexVectorDim = 1;
                auto r = b.op(OpKind::Scatter, {x, ids, u}, s, "scatter", {combine});
                b.output(b.multiply(r.front(), r.front()), "y");
            });
        };
        QTest::newRow("scatter add") << scatterRow(true) << false;
        QTest::newRow("scatter replace") << scatterRow(false) << false;
        QTest::newRow("optimization_barrier") << GraphFactory([](GraphBuilder& b) {
            auto r = b.op(OpKind::OptimizationBarrier, {p(b, "x", {3}), p(b, "w", {3})});
            b.output(b.multiply(r[0], r[1]), "y");
        }) << false;
        QTest::newRow("value used twice") << GraphFactory([](GraphBuilder& b) {
            ValueId x = p(b, "x", {3});
            b.output(b.multiply(b.add(x, x), b.unary(OpKind::Exponential, x)), "y");
        }) << false;
    }
    void vjpRulesMatchFiniteDifferences() {
        QFETCH(GraphFactory, build);
        QFETCH(bool, positive);
        GraphBuilder b("case");
        build(b);
        const Graph forward = finished(b);
        train::GradientOptions options;
        options.loss = train::Loss::MeanSquare;
        options.allFloatArguments = true;
        auto gg = train::differentiate(forward, options);
        QVERIFY2(gg.ok(), gg.errorMessage().c_str());
        QVERIFY(!gg->differentiated.empty());
        std::mt19937 random(11);
        auto args = randomArguments(gg->graph, random, positive ? 0.5 : -1.5, positive ? 2.0 : 1.5, 5);
        const double error = gradientError(*gg, args, 1000, random);
        QVERIFY2(error < 1e-6, qPrintable(QString("relative error %1").arg(error)));
    }

    // A case (or if) whose branch is chosen at run time: its backward is a case on the same index whose
    // branch i is the VJP of branch i (issue 19 part 6). Each branch reads other captured values, one has a
    // region of its own, one returns a capture as it is, one reads no parameter; the gradients of every
    // branch match finite differences, and the recomputed forward branch keeps only what the VJPs read.
    void caseChosenAtRunTimeIsDifferentiated_data() {
        QTest::addColumn<bool>("isIf");
        QTest::addColumn<double>("selector");
        QTest::newRow("case branch 0") << false << 0.0;
        QTest::newRow("case branch 1") << false << 1.0;
        QTest::newRow("case branch 2") << false << 2.0;
        QTest::newRow("case out of range (last branch)") << false << 9.0;
        QTest::newRow("if true") << true << 1.0;
        QTest::newRow("if false") << true << 0.0;
    }
    void caseChosenAtRunTimeIsDifferentiated() {
        QFETCH(bool, isIf);
        QFETCH(double, selector);
        GraphBuilder b("branches");
        ValueId index = b.input("index", {}, isIf ? ElementType::I1 : ElementType::I32);
        ValueId x = p(b, "x", {2, 3}), w = p(b, "w", {3, 3}), v = p(b, "v", {2, 3});
        ValueId h = b.unary(OpKind::Tanh, x);  // a value computed before the branches
        auto branch = [&](int k) {
            return b.region({}, [&, k](const std::vector<ValueId>&) {
                ValueId y;
                if (k == 0) {  // tanh(h·w) ⊙ v
                    y = b.multiply(b.unary(OpKind::Tanh, b.einsum("ij,jk->ik", h, w, "attn")), v);
                } else if (k == 1) {  // exp(x) scaled by the sum of w's rows
                    ValueId rows = b.reduce(w, {0}, Reducer::Add);
                    y = b.multiply(b.unary(OpKind::Exponential, x), b.broadcastInDim(rows, {2, 3}, {1}));
                } else {  // v itself
                    y = v;
                }
                return std::vector<ValueId>{y};
            });
        };
        std::vector<Region> regions;
        for (int k = 0; k < (isIf ? 2 : 3); ++k)
            regions.push_back(branch(isIf ? 1 - k : k));  // if: true runs branch 1, false branch 0
        auto r =
            b.op(isIf ? OpKind::If : OpKind::Case, {index}, NoAttributes{}, "switch", std::move(regions));
        QCOMPARE(r.size(), std::size_t{1});
        b.output(b.multiply(r.front(), h), "y");
        const Graph forward = finished(b);
        train::GradientOptions options;
        options.loss = train::Loss::MeanSquare;
        auto gg = train::differentiate(forward, options);
        QVERIFY2(gg.ok(), gg.errorMessage().c_str());
        QCOMPARE(gg->differentiated.size(), std::size_t{3});
        for (std::size_t k = 0; k < gg->graph.ops.size(); ++k)  // no gradient is given up as zeros
            QVERIFY(gg->graph.ops[k].location.name.rfind("zero_grad", 0) != 0);
        const OpKind kind = isIf ? OpKind::If : OpKind::Case;
        std::size_t branchOps = 0, recomputedDots = 0;
        for (const Op& op : gg->graph.ops)
            branchOps += op.kind == kind ? 1 : 0;
        QCOMPARE(branchOps, std::size_t{2});  // the forward's and the backward's
        for (const Op& op : gg->graph.ops)
            recomputedDots += op.kind == OpKind::DotGeneral && op.location.name == "attn" ? 1 : 0;
        QCOMPARE(recomputedDots, std::size_t{2});  // h·w in the forward branch and again in its VJP
        std::mt19937 random(5);
        auto args = randomArguments(gg->graph, random, -1.5, 1.5, 1);
        args[0].values[0] = selector;
        const double error = gradientError(*gg, args, 1000, random);
        QVERIFY2(error < 1e-6, qPrintable(QString("relative error %1").arg(error)));
        // The gradient of w is zero exactly where the chosen branch does not read w.
        const auto gradients = runOrFail(gg->graph, args);
        const Tensor& dw = gradients[2];
        const bool readsW = isIf || selector < 2;  // case branch 2 (and out of range) reads v only
        double largest = 0;
        for (double value : dw.values)
            largest = std::max(largest, std::abs(value));
        QCOMPARE(largest > 0, readsW);
    }

    // The same from StableHLO text, through the training step: no zero_grad constants, and the step's
    // backward holds a case.
    void importedCaseTrains() {
        const std::string text =
            R"(func.func @main(%arg0: tensor<i32>, %arg1: tensor<4x8xf32>, %arg2: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = "stablehlo.case"(%arg0) ({
    %1 = stablehlo.dot_general %arg1, %arg2, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    stablehlo.return %1 : tensor<4x8xf32>
  }, {
    %2 = stablehlo.tanh %arg1 : tensor<4x8xf32>
    stablehlo.return %2 : tensor<4x8xf32>
  }) : (tensor<i32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
)";
        auto loaded = loadModelBytes(text, "case.mlir");
        QVERIFY2(loaded.ok(), loaded.errorMessage().c_str());
        auto step = train::buildTrainingStep(loaded->graph);
        QVERIFY2(step.ok(), step.errorMessage().c_str());
        std::size_t cases = 0;
        for (std::size_t i = step->graph.backwardStart; i < step->graph.body.size(); ++i) {
            const Op& op = step->graph.op(step->graph.body[i]);
            cases += op.kind == OpKind::Case ? 1 : 0;
            QVERIFY2(op.location.name.rfind("zero_grad", 0) != 0, op.location.name.c_str());
        }
        QCOMPARE(cases, std::size_t{1});
        QCOMPARE(step->graph.gradients.size(), std::size_t{2});
        // The forward dot, and the two of its VJP; its VJP does not read its result, so the backward branch
        // does not compute it again.
        std::size_t dots = 0;
        for (OpId id : step->graph.allOpsInOrder())
            dots += step->graph.op(id).kind == OpKind::DotGeneral ? 1 : 0;
        QCOMPARE(dots, std::size_t{3});
    }

    // Tiny f64 versions of every zoo family: sampled parameter gradients agree with finite differences.
    void zooGradients_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("mlp") << "mlp:layers=2,d_model=6,d_ff=8,batch=3,dtype=f64,activation=gelu,bias=true";
        QTest::newRow("gpt") << "gpt:layers=2,d_model=8,heads=2,d_ff=12,seq=5,batch=2,vocab=11,dtype=f64";
        QTest::newRow("llama")
            << "llama:layers=1,d_model=8,heads=4,kv_heads=2,d_ff=12,seq=5,batch=2,vocab=11,dtype=f64";
        QTest::newRow("moe") << "moe:layers=1,d_model=8,heads=2,kv_heads=1,d_ff=6,seq=6,batch=2,vocab=9,"
                                "experts=3,top_k=2,capacity_factor=2,dtype=f64";
        QTest::newRow("vit") << "vit:image=8,patch=4,channels=2,layers=1,d_model=8,heads=2,d_ff=12,classes=3,"
                                "batch=2,dtype=f64";
        QTest::newRow("unet") << "unet:image=8,channels=1,classes=2,base=2,depth=2,batch=1,dtype=f64";
    }
    void zooGradients() {
        QFETCH(QString, model);
        const Graph forward = zooGraph(model.toStdString());
        auto gg = train::differentiate(forward);
        QVERIFY2(gg.ok(), gg.errorMessage().c_str());
        std::mt19937 random(5);
        auto args = randomArguments(gg->graph, random, -0.8, 0.8, 9);
        const double error = gradientError(*gg, args, 3, random);
        QVERIFY2(error < 1e-5, qPrintable(QString("relative error %1").arg(error)));
    }

    // Plain SGD and the first Adam step computed by the interpreter match their formulas.
    void optimizerUpdates() {
        const Graph forward = zooGraph("mlp:layers=1,d_model=4,d_ff=5,batch=2,dtype=f64");
        auto gg = train::differentiate(forward);
        QVERIFY(gg.ok());
        std::mt19937 random(3);
        const auto inputs = randomArguments(forward, random, -1, 1, 1);
        const auto gradients = runOrFail(gg->graph, inputs);

        train::OptimizerOptions sgd;
        sgd.kind = train::Optimizer::Sgd;
        sgd.momentum = 0;
        sgd.learningRate = 0.1;
        auto step = train::buildTrainingStep(forward, sgd);
        QVERIFY2(step.ok(), step.errorMessage().c_str());
        const auto out = runOrFail(step->graph, inputs);
        QCOMPARE(out[0].values[0], gradients[0].values[0]);  // the loss
        for (std::size_t k = 0; k < gg->differentiated.size(); ++k) {
            const std::size_t arg = gg->differentiated[k];
            const Output* updated = nullptr;
            for (const auto& o : step->graph.outputs)
                if (o.aliasedArgument == arg)
                    updated = &o;
            QVERIFY(updated);
            const auto& next = out[static_cast<std::size_t>(updated - step->graph.outputs.data())];
            for (std::size_t i = 0; i < next.values.size(); ++i)
                QVERIFY(std::abs(next.values[i] -
                                 (inputs[arg].values[i] - 0.1 * gradients[k + 1].values[i])) < 1e-12);
        }

        train::OptimizerOptions adam;  // first step: m̂ = g, v̂ = g², so the step is lr·g/(|g| + ε)
        adam.learningRate = 0.01;
        auto adamStep = train::buildTrainingStep(forward, adam);
        QVERIFY2(adamStep.ok(), adamStep.errorMessage().c_str());
        std::vector<Tensor> args = inputs;
        for (std::size_t i = inputs.size(); i < adamStep->graph.arguments.size(); ++i)
            args.push_back(Tensor::filled(adamStep->graph.type(adamStep->graph.arguments[i].value), 0));
        const auto adamOut = runOrFail(adamStep->graph, args);
        const std::size_t w = gg->differentiated.front();
        for (std::size_t o = 0; o < adamStep->graph.outputs.size(); ++o) {
            if (adamStep->graph.outputs[o].aliasedArgument != w)
                continue;
            for (std::size_t i = 0; i < args[w].values.size(); ++i) {
                const double g = gradients[1].values[i];
                QVERIFY(std::abs(adamOut[o].values[i] -
                                 (args[w].values[i] - 0.01 * g / (std::abs(g) + 1e-8))) < 1e-9);
            }
        }
    }

    // The ZeRO paper's accounting: 2 + 2 + 12 bytes per parameter with mixed-precision Adam.
    void mixedPrecisionAdamStates() {
        const Graph forward = zooGraph("gpt:layers=2,d_model=64,heads=4,seq=16,vocab=100,dtype=bf16");
        train::OptimizerOptions o;
        o.mixedPrecision = true;
        auto step = train::buildTrainingStep(forward, o);
        QVERIFY2(step.ok(), step.errorMessage().c_str());
        const auto s = computeStatistics(step->graph);
        QCOMPARE(s.parameterBytes, 2 * s.parameterCount);
        QCOMPARE(s.optimizerStateBytes, 12 * s.parameterCount + 4);  // + the i32 step counter
        for (const auto& a : step->graph.arguments)
            if (a.role == ArgumentRole::OptimizerState && a.name != "step")
                QVERIFY(step->graph.type(a.value).element == ElementType::F32);
        std::size_t donated = 0;
        for (const auto& out : step->graph.outputs)
            donated += out.aliasedArgument.has_value();
        QCOMPARE(donated, step->graph.arguments.size() - 2);  // all but the tokens and labels inputs

        auto f32 = train::buildTrainingStep(
            zooGraph("gpt:layers=1,d_model=64,heads=4,seq=16,vocab=100,dtype=f32"), o);
        QVERIFY(!f32.ok());
        QVERIFY(f32.errorMessage().find(
                    "mixed precision needs 16-bit parameters, but 'embed.weight' is tensor<100x64xf32>") !=
                std::string::npos);
    }

    // The training step of gpt2-small: verified, three phases, about three forward passes of FLOPs.
    void gpt2SmallTrainingStep() {
        const Graph forward = zooGraph("gpt2-small");
        train::OptimizerOptions o;
        o.mixedPrecision = true;
        auto step = train::buildTrainingStep(forward, o);
        QVERIFY2(step.ok(), step.errorMessage().c_str());
        QVERIFY(step->backwardOps > step->forwardOps);
        QVERIFY(step->updateOps > 0);
        QCOMPARE(step->forwardOps + step->backwardOps + step->updateOps, step->graph.body.size());
        const double ratio = computeStatistics(step->graph).flops / computeStatistics(forward).flops;
        qInfo("gpt2-small step: %zu forward, %zu backward, %zu update ops; %.3f x forward FLOPs",
              step->forwardOps, step->backwardOps, step->updateOps, ratio);
        QVERIFY(ratio > 2.95 && ratio < 3.1);
    }

    // A gradient that must flow through an op without a rule is an error naming the op and where it is.
    void missingRuleNamesTheOp() {
        GraphBuilder b("scaling", "scaling.py");
        ValueId x = p(b, "x", {4});
        ValueId ids = b.input("ids", {2, 1}, ElementType::I32);
        const TensorType scalar{{}, F64};
        Region times = b.region({scalar, scalar}, [&](const std::vector<ValueId>& a) {
            return std::vector<ValueId>{b.multiply(a[0], a[1])};
        });
        ScatterAttributes s;
        s.insertedWindowDims = {0};
        s.scatterDimsToOperandDims = {0};
        s.indexVectorDim = 1;
        auto scaled = b.op(OpKind::Scatter, {x, ids, p(b, "u", {2})}, s, "scale", {times});
        b.output(scaled.front(), "y");
        auto gg = train::differentiate(finished(b));
        QVERIFY(!gg.ok());
        QCOMPARE(QString::fromStdString(gg.errorMessage()),
                 QStringLiteral("scaling.py (scale): error: cannot differentiate 'stablehlo.scatter': only "
                                "scatters that add or replace have a VJP "
                                "rule (this combiner multiplies, takes a maximum or more) [train.no-vjp]"));
    }

    // Ops off the path from the parameters to the loss need no rule (here: integer routing of the MoE).
    void onlyThePathIsDifferentiated() {
        const Graph forward = zooGraph(
            "moe:layers=1,d_model=16,heads=2,kv_heads=1,d_ff=8,seq=8,batch=2,vocab=20,experts=4,top_k=1");
        auto gg = train::differentiate(forward);
        QVERIFY2(gg.ok(), gg.errorMessage().c_str());
        QVERIFY(gg->labelsArgument.has_value());
        QCOMPARE(gg->graph.arguments[*gg->labelsArgument].name, std::string("labels"));
    }

    // --loss-output: the loss of the chosen output (by name or index) or of all of them; the gradient flows
    // only to the parameters that output depends on, and leaving outputs out is said as a warning.
    void lossOutputChoosesWhatIsDifferentiated_data() {
        QTest::addColumn<QString>("choice");
        QTest::addColumn<bool>("firstFlows");   // w1 (of output 'first') gets a gradient
        QTest::addColumn<bool>("secondFlows");  // w2 (of output 'second') gets one
        QTest::addColumn<QString>("warning");
        QTest::newRow("default")
            << "" << true << false
            << "the loss uses output 'first' only; 2 other outputs are not differentiated: 'second', 'ids'; "
               "pass --loss-output all to train on every output";
        QTest::newRow("by name")
            << "second" << false << true
            << "the loss uses output 'second' only; 2 other outputs are not differentiated: 'first', 'ids'; "
               "pass --loss-output all to train on every output";
        QTest::newRow("by index")
            << "1" << false << true
            << "the loss uses output 'second' only; 2 other outputs are not differentiated: 'first', 'ids'; "
               "pass --loss-output all to train on every output";
        QTest::newRow("all") << "all" << true << true
                             << "the loss leaves out 1 output that is not floating point: 'ids'";
    }
    void lossOutputChoosesWhatIsDifferentiated() {
        QFETCH(QString, choice);
        QFETCH(bool, firstFlows);
        QFETCH(bool, secondFlows);
        QFETCH(QString, warning);
        const Graph forward = threeOutputs();
        train::GradientOptions options;
        options.loss = train::Loss::MeanSquare;
        options.lossOutput = choice.toStdString();
        auto gg = train::differentiate(forward, options);
        QVERIFY2(gg.ok(), gg.errorMessage().c_str());
        QCOMPARE(gg->differentiated.size(), std::size_t{2});
        std::mt19937 random(3);
        const auto args = randomArguments(gg->graph, random, 0.5, 1.5, 3);
        const auto results = runOrFail(gg->graph, args);
        auto flows = [&](std::size_t k) {
            double largest = 0;
            for (double v : results[k + 1].values)
                largest = std::max(largest, std::abs(v));
            return largest > 0;
        };
        QCOMPARE(forward.arguments[gg->differentiated[0]].name, std::string("w1"));
        QCOMPARE(flows(0), firstFlows);
        QCOMPARE(flows(1), secondFlows);
        // Both losses summed: the gradients agree with finite differences of the sum.
        QVERIFY(gradientError(*gg, args, 100, random) < 1e-6);
        QCOMPARE(gg.diagnostics().size(), std::size_t{1});
        QVERIFY(gg.diagnostics().front().severity == Severity::Warning);
        QCOMPARE(gg.diagnostics().front().code, std::string("train.loss-output-partial"));
        QCOMPARE(QString::fromStdString(gg.diagnostics().front().message), warning);

        // The training step carries the warning on.
        auto step = train::buildTrainingStep(forward, {}, options);
        QVERIFY2(step.ok(), step.errorMessage().c_str());
        QVERIFY(step.diagnostics() == gg.diagnostics());
    }

    // A name no output has is an error listing the outputs; an integer output has no loss; a model of one
    // output trains on it without a word.
    void lossOutputErrors() {
        const Graph forward = threeOutputs();
        train::GradientOptions options;
        options.lossOutput = "logits";
        auto unknown = train::differentiate(forward, options);
        QVERIFY(!unknown.ok());
        QCOMPARE(QString::fromStdString(unknown.errorMessage()),
                 QStringLiteral("error: no output 'logits' to take the loss of: the model's outputs are 0 "
                                "'first' tensor<3xf64>, "
                                "1 'second' tensor<3xf64>, 2 'ids' tensor<3xi32> (give a name, an index or "
                                "all) [train.loss-output]"));
        options.lossOutput = "3";
        QVERIFY(!train::differentiate(forward, options).ok());
        options.lossOutput = "ids";
        auto integer = train::differentiate(forward, options);
        QVERIFY(!integer.ok());
        QVERIFY2(integer.errorMessage().find(
                     "the model's output 'ids' tensor<3xi32> is not floating point") != std::string::npos,
                 integer.errorMessage().c_str());

        // Cross-entropy wants classes: a scalar output (an auxiliary loss) has none.
        GraphBuilder withScalar("aux");
        ValueId w = p(withScalar, "w", {3});
        withScalar.output(withScalar.multiply(w, w), "y");
        withScalar.output(withScalar.reduce(w, {0}, Reducer::Add, "total"), "aux_loss");
        options.loss = train::Loss::CrossEntropy;
        options.lossOutput = "all";
        auto scalar = train::differentiate(finished(withScalar), options);
        QVERIFY(!scalar.ok());
        QVERIFY2(scalar.errorMessage().find("output 'aux_loss' is a scalar") != std::string::npos,
                 scalar.errorMessage().c_str());

        GraphBuilder b("one");
        b.output(b.multiply(p(b, "w", {2}), p(b, "v", {2})), "y");
        auto single = train::differentiate(finished(b));
        QVERIFY2(single.ok(), single.errorMessage().c_str());
        QVERIFY(single.diagnostics().empty());
    }

    // The choice travels in the problem: its JSON, the workspace's load options, and the problem's warnings.
    void lossOutputTravelsInTheProblem() {
        const std::string text =
            R"(func.func @main(%arg0: tensor<4x8xf32> {jax.arg_info = "x"}, %arg1: tensor<8x8xf32> {jax.arg_info = "w_logits"}, %arg2: tensor<8x3xf32> {jax.arg_info = "w_aux"}) -> (tensor<4x8xf32> {jax.result_info = "logits"}, tensor<4x3xf32> {jax.result_info = "aux"}) {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x3xf32>
}
)";
        ProblemSpec spec;
        spec.model = "two_heads.mlir";
        spec.mesh = "data=2";
        spec.train = true;
        auto partial = loadProblem(spec, &text);
        QVERIFY2(partial.ok(), partial.errorMessage().c_str());
        QCOMPARE((*partial)->warnings.size(), std::size_t{1});
        QCOMPARE((*partial)->warnings.front().message,
                 std::string("the loss uses output 'logits' only; 1 other output is not differentiated: "
                             "'aux'; pass --loss-output all "
                             "to train on every output"));
        spec.lossOutput = "all";
        auto problem = loadProblem(spec, &text);
        QVERIFY2(problem.ok(), problem.errorMessage().c_str());
        QVERIFY((*problem)->warnings.empty());
        const std::string json = problemSpecJson(**problem);
        QVERIFY2(json.find("\"loss_output\": \"all\"") != std::string::npos, json.c_str());
        auto back = parseProblemSpec(json, "problem.json");
        QVERIFY2(back.ok(), back.errorMessage().c_str());
        QCOMPARE(back->lossOutput, std::string("all"));
        std::string before = json;  // as written before --loss-output existed: the first output
        before.erase(before.find("\"loss_output\": \"all\","),
                     std::string("\"loss_output\": \"all\",").size());
        auto old = parseProblemSpec(before, "old.json");
        QVERIFY2(old.ok(), old.errorMessage().c_str());
        QCOMPARE(old->lossOutput, std::string());

        ProblemSpec zooSpec;
        zooSpec.model = "zoo:mlp:layers=1";
        zooSpec.train = true;
        zooSpec.lossOutput = "0";
        auto record = session::modelRecord(zooSpec);
        QVERIFY2(record.ok(), record.errorMessage().c_str());
        QVERIFY2(record->loadOptions.find("\"loss_output\":\"0\"") != std::string::npos,
                 record->loadOptions.c_str());
        auto recorded = recordedModelSpec(*record, "w.shardscope", ProblemSpec{});
        QVERIFY2(recorded.ok(), recorded.errorMessage().c_str());
        QCOMPARE(recorded->lossOutput, std::string("0"));
        spec.lossOutput = "nope";
        auto refused = loadProblem(spec, &text);
        QVERIFY(!refused.ok());
        QVERIFY2(
            refused.errorMessage().find(
                "no output 'nope' to take the loss of: the model's outputs are 0 'logits' tensor<4x8xf32>, "
                "1 'aux' tensor<4x3xf32>") != std::string::npos,
            refused.errorMessage().c_str());
    }
};

QTEST_APPLESS_MAIN(TestTrain)
#include "tst_train.moc"
