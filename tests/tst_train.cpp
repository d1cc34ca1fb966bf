// Training steps: every VJP rule against central finite differences (run by the reference interpreter in f64),
// gradient checks of tiny versions of every zoo family, the optimizer updates, and the step's structure.
#include <QtTest>
#include <cmath>
#include <functional>
#include <random>

#include "test_support.h"

#include "shardscope/interpret/interpreter.h"
#include "shardscope/ir/builder.h"
#include "shardscope/ir/statistics.h"
#include "shardscope/train/training_step.h"
#include "shardscope/zoo/zoo.h"

using namespace shardscope;
using namespace shardscope::ir;
using interpret::Tensor;

using GraphFactory = std::function<void(GraphBuilder&)>;
Q_DECLARE_METATYPE(GraphFactory)

namespace {

constexpr auto F64 = ElementType::F64;

// Random arguments: floats in [lo, hi) (positive where `positive`), integers in [0, intRange).
std::vector<Tensor> randomArguments(const Graph& g, std::mt19937& random, double lo, double hi, std::int64_t intRange) {
    std::vector<Tensor> args;
    for (const auto& a : g.arguments) {
        Tensor t = Tensor::filled(g.type(a.value), 0);
        for (double& v : t.values) {
            if (isFloat(t.type.element)) v = std::uniform_real_distribution<double>(lo, hi)(random);
            else v = static_cast<double>(std::uniform_int_distribution<std::int64_t>(0, intRange - 1)(random));
        }
        args.push_back(std::move(t));
    }
    return args;
}

std::vector<Tensor> runOrFail(const Graph& g, const std::vector<Tensor>& args) {
    auto r = interpret::run(g, args);
    if (!r) qFatal("interpreter: %s", r.errorMessage().c_str());
    return std::move(r).value();
}

// Compares the gradient graph's gradients with central differences of its loss at up to `samples` elements of
// each differentiated argument. Returns the largest relative error.
double gradientError(const train::GradientGraph& gg, std::vector<Tensor> args, int samples, std::mt19937& random,
                     double h = 1e-6) {
    const auto analytic = runOrFail(gg.graph, args);
    double worst = 0;
    for (std::size_t k = 0; k < gg.differentiated.size(); ++k) {
        Tensor& arg = args[gg.differentiated[k]];
        const Tensor& grad = analytic[k + 1];
        const auto n = static_cast<std::int64_t>(arg.values.size());
        for (int s = 0; s < samples && s < n; ++s) {
            const auto i = static_cast<std::size_t>(samples >= n ? s : std::uniform_int_distribution<std::int64_t>(0, n - 1)(random));
            const double saved = arg.values[i];
            arg.values[i] = saved + h;
            const double up = runOrFail(gg.graph, args)[0].values[0];
            arg.values[i] = saved - h;
            const double down = runOrFail(gg.graph, args)[0].values[0];
            arg.values[i] = saved;
            const double numeric = (up - down) / (2 * h);
            const double error = std::abs(numeric - grad.values[i]) / std::max({1.0, std::abs(numeric), std::abs(grad.values[i])});
            worst = std::max(worst, error);
        }
    }
    return worst;
}

Graph finished(GraphBuilder& b) {
    Graph g = b.graph();
    GraphBuilder copy(std::move(g));
    auto r = std::move(copy).finish();
    if (!r) qFatal("%s", r.errorMessage().c_str());
    return std::move(r).value();
}

ValueId p(GraphBuilder& b, const char* name, Shape shape) { return b.parameter(name, std::move(shape), F64); }

Graph zooGraph(const std::string& model) {
    auto spec = zoo::parseModelSpec(model);
    if (!spec) qFatal("%s", spec.errorMessage().c_str());
    auto g = zoo::build(*spec);
    if (!g) qFatal("%s", g.errorMessage().c_str());
    return std::move(g).value();
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
            return GraphFactory([kind](GraphBuilder& b) { b.output(b.binary(kind, p(b, "x", {2, 3}), p(b, "w", {2, 3})), "y"); });
        };
        for (OpKind k : {OpKind::Add, OpKind::Subtract, OpKind::Multiply, OpKind::Maximum, OpKind::Minimum})
            QTest::newRow(std::string(mnemonic(k)).c_str()) << binary(k) << false;
        for (OpKind k : {OpKind::Divide, OpKind::Power}) QTest::newRow(std::string(mnemonic(k)).c_str()) << binary(k) << true;
        for (OpKind k : {OpKind::Negate, OpKind::Exponential, OpKind::ExponentialMinusOne, OpKind::Tanh, OpKind::Logistic,
                         OpKind::Abs, OpKind::Sine, OpKind::Cosine, OpKind::Tan, OpKind::Cbrt})
            QTest::newRow(std::string(mnemonic(k)).c_str()) << unary(k) << false;
        for (OpKind k : {OpKind::Log, OpKind::LogPlusOne, OpKind::Rsqrt, OpKind::Sqrt})
            QTest::newRow(std::string(mnemonic(k)).c_str()) << unary(k) << true;
        QTest::newRow("erf") << GraphFactory([](GraphBuilder& b) {
            auto r = b.op(OpKind::OtherElementwise, {p(b, "x", {5})}, OpaqueAttributes{"chlo.erf"}, {}, {}, {TensorType{{5}, F64}});
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
            b.output(b.multiply(b.op1(OpKind::Reverse, {p(b, "x", {2, 3})}, DimensionsAttribute{{1}}), p(b, "w", {2, 3})), "y");
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
            QTest::newRow(("reduce " + std::to_string(static_cast<int>(r))).c_str()) << GraphFactory([r](GraphBuilder& b) {
                b.output(b.reduce(p(b, "x", {3, 4, 2}), {0, 2}, r), "y");
            }) << (r == Reducer::Multiply);
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
            auto i = b.constant(2, TensorType{{}, ElementType::I32}), j = b.constant(1, TensorType{{}, ElementType::I32});
            b.output(b.op1(OpKind::DynamicSlice, {x, i, j}, DynamicSliceAttributes{{2, 2}}), "y");
        }) << false;
        QTest::newRow("dynamic_update_slice") << GraphFactory([](GraphBuilder& b) {
            ValueId x = p(b, "x", {5, 4}), u = p(b, "u", {2, 3});
            auto i = b.constant(1, TensorType{{}, ElementType::I32}), j = b.constant(1, TensorType{{}, ElementType::I32});
            b.output(b.op1(OpKind::DynamicUpdateSlice, {x, u, i, j}), "y");
        }) << false;
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

    // Tiny f64 versions of every zoo family: sampled parameter gradients agree with finite differences.
    void zooGradients_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("mlp") << "mlp:layers=2,d_model=6,d_ff=8,batch=3,dtype=f64,activation=gelu,bias=true";
        QTest::newRow("gpt") << "gpt:layers=2,d_model=8,heads=2,d_ff=12,seq=5,batch=2,vocab=11,dtype=f64";
        QTest::newRow("llama") << "llama:layers=1,d_model=8,heads=4,kv_heads=2,d_ff=12,seq=5,batch=2,vocab=11,dtype=f64";
        QTest::newRow("moe") << "moe:layers=1,d_model=8,heads=2,kv_heads=1,d_ff=6,seq=6,batch=2,vocab=9,experts=3,top_k=2,capacity_factor=2,dtype=f64";
        QTest::newRow("vit") << "vit:image=8,patch=4,channels=2,layers=1,d_model=8,heads=2,d_ff=12,classes=3,batch=2,dtype=f64";
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
                if (o.aliasedArgument == arg) updated = &o;
            QVERIFY(updated);
            const auto& next = out[static_cast<std::size_t>(updated - step->graph.outputs.data())];
            for (std::size_t i = 0; i < next.values.size(); ++i)
                QVERIFY(std::abs(next.values[i] - (inputs[arg].values[i] - 0.1 * gradients[k + 1].values[i])) < 1e-12);
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
            if (adamStep->graph.outputs[o].aliasedArgument != w) continue;
            for (std::size_t i = 0; i < args[w].values.size(); ++i) {
                const double g = gradients[1].values[i];
                QVERIFY(std::abs(adamOut[o].values[i] - (args[w].values[i] - 0.01 * g / (std::abs(g) + 1e-8))) < 1e-9);
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
            if (a.role == ArgumentRole::OptimizerState && a.name != "step") QVERIFY(step->graph.type(a.value).element == ElementType::F32);
        std::size_t donated = 0;
        for (const auto& out : step->graph.outputs) donated += out.aliasedArgument.has_value();
        QCOMPARE(donated, step->graph.arguments.size() - 2);  // all but the tokens and labels inputs

        auto f32 = train::buildTrainingStep(zooGraph("gpt:layers=1,d_model=64,heads=4,seq=16,vocab=100,dtype=f32"), o);
        QVERIFY(!f32.ok());
        QVERIFY(f32.errorMessage().find("mixed precision needs 16-bit parameters, but 'embed.weight' is tensor<100x64xf32>") !=
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
        qInfo("gpt2-small step: %zu forward, %zu backward, %zu update ops; %.3f x forward FLOPs", step->forwardOps,
              step->backwardOps, step->updateOps, ratio);
        QVERIFY(ratio > 2.95 && ratio < 3.1);
    }

    // A gradient that must flow through an op without a rule is an error naming the op and where it is.
    void missingRuleNamesTheOp() {
        GraphBuilder b("sorting", "sorting.py");
        ValueId x = p(b, "x", {4});
        const TensorType scalar{{}, F64};
        Region less = b.region({scalar, scalar}, [&](const std::vector<ValueId>& a) {
            return std::vector<ValueId>{b.compare(a[0], a[1], CompareDirection::LT)};
        });
        auto sorted = b.op(OpKind::Sort, {x}, SortAttributes{0, false}, "sort", {less});
        b.output(sorted.front(), "y");
        auto gg = train::differentiate(finished(b));
        QVERIFY(!gg.ok());
        QCOMPARE(QString::fromStdString(gg.errorMessage()),
                 QStringLiteral("sorting.py (sort): error: cannot differentiate 'stablehlo.sort': no VJP rule for this op [train.no-vjp]"));
    }

    // Ops off the path from the parameters to the loss need no rule (here: integer routing of the MoE).
    void onlyThePathIsDifferentiated() {
        const Graph forward = zooGraph("moe:layers=1,d_model=16,heads=2,kv_heads=1,d_ff=8,seq=8,batch=2,vocab=20,experts=4,top_k=1");
        auto gg = train::differentiate(forward);
        QVERIFY2(gg.ok(), gg.errorMessage().c_str());
        QVERIFY(gg->labelsArgument.has_value());
        QCOMPARE(gg->graph.arguments[*gg->labelsArgument].name, std::string("labels"));
    }
};

QTEST_APPLESS_MAIN(TestTrain)
#include "tst_train.moc"
