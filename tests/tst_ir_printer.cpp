// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The printer writes StableHLO text in the forms JAX prints (pretty where JAX is pretty, generic otherwise).
#include <QtTest>

#include "test_support.h"

#include <regex>
#include <set>

#include "shardscope/import/stablehlo.h"
#include "shardscope/ir/builder.h"
#include "shardscope/ir/printer.h"
#include "shardscope/train/training_step.h"
#include "shardscope/zoo/zoo.h"

using namespace shardscope;
using namespace shardscope::ir;

namespace {

bool contains(const std::string& text, const std::string& fragment) {
    return text.find(fragment) != std::string::npos;
}

#define QVERIFY_CONTAINS(text, fragment) \
    QVERIFY2(contains(text, fragment), ("missing: " + std::string(fragment) + "\nin:\n" + (text)).c_str())

Graph finished(GraphBuilder&& b) {
    auto g = std::move(b).finish();
    if (!g)
        qFatal("%s", g.errorMessage().c_str());
    return std::move(g).value();
}

}  // namespace

class TestIrPrinter : public QObject {
    Q_OBJECT
private slots:
    void printsAWholeModule() {
        GraphBuilder b("step", "step.py");
        ValueId x = b.input("x", {2, 3}, ElementType::F32);
        ValueId w = b.parameter("layer.w", {3, 4}, ElementType::BF16);
        ValueId h = b.dotGeneral(b.convert(x, ElementType::BF16), w, {{}, {}, {1}, {0}}, "matmul");
        ValueId t = b.transpose(h, {1, 0});
        ValueId s = b.reduce(t, {1}, Reducer::Maximum, "max");
        ValueId half = b.convert(b.constant(0.5, TensorType{{}, ElementType::F32}), ElementType::BF16);
        ValueId updated = b.subtract(w, b.broadcastInDim(half, {3, 4}, {}));
        b.output(s, "max");
        b.output(updated, "new_w", 1);
        const std::string expected = R"(module @shardscope {
  func.func public @main(%arg0: tensor<2x3xf32> {shardscope.name = "x", shardscope.role = "input"} loc("x"), %arg1: tensor<3x4xbf16> {tf.aliasing_output = 1 : i32, shardscope.name = "layer.w", shardscope.role = "parameter"} loc("layer.w")) -> (tensor<4xbf16> {jax.result_info = "max"}, tensor<3x4xbf16> {jax.result_info = "new_w"}) {
    %0 = stablehlo.convert %arg0 : (tensor<2x3xf32>) -> tensor<2x3xbf16>
    %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xbf16> loc("matmul")
    %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<2x4xbf16>) -> tensor<4x2xbf16>
    %3 = stablehlo.constant dense<0xFF80> : tensor<bf16> loc("max")
    %4 = stablehlo.reduce(%2 init: %3) applies stablehlo.maximum across dimensions = [1] : (tensor<4x2xbf16>, tensor<bf16>) -> tensor<4xbf16> loc("max")
    %5 = stablehlo.constant dense<5.00000000e-01> : tensor<f32>
    %6 = stablehlo.convert %5 : (tensor<f32>) -> tensor<bf16>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<bf16>) -> tensor<3x4xbf16>
    %8 = stablehlo.subtract %arg1, %7 : tensor<3x4xbf16>
    return %4, %8 : tensor<4xbf16>, tensor<3x4xbf16>
  }
}
)";
        QCOMPARE(QString::fromStdString(printStableHlo(finished(std::move(b)))),
                 QString::fromStdString(expected));
    }

    void optionsDropNamesAndLocations() {
        GraphBuilder b("g");
        ValueId x = b.parameter("w", {2}, ElementType::F32);
        b.output(b.unary(OpKind::Negate, x, "neg"), "y");
        PrintOptions options;
        options.moduleName = "bare";
        options.locations = false;
        options.argumentNames = false;
        const std::string text = printStableHlo(finished(std::move(b)), options);
        QVERIFY_CONTAINS(text, "module @bare {");
        QVERIFY_CONTAINS(
            text,
            "func.func public @main(%arg0: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = \"y\"})");
        QVERIFY(!contains(text, "loc("));
        QVERIFY(!contains(text, "shardscope.name"));
    }

    void printsStructuralOpsInTheirForms() {
        GraphBuilder b("g");
        ValueId x = b.input("x", {2, 6, 8}, ElementType::F32);
        ValueId i = b.input("i", {5}, ElementType::I32);
        b.slice(x, {0, 1, 0}, {2, 6, 8}, {1, 2, 1});
        b.concatenate({x, x}, 1);
        b.pad(x, b.scalar(0, ElementType::F32), {0, 1, 0}, {0, 0, 2});
        b.compare(i, i, CompareDirection::LT);
        b.compare(x, x, CompareDirection::NE);
        b.iota(TensorType{{4}, ElementType::I32}, 0);
        b.einsum("abc,adc->abd", x, x);
        b.op(OpKind::Constant, {}, ConstantAttributes{{1, 2, 3, 4}}, {}, {},
             {TensorType{{2, 2}, ElementType::I32}});
        b.op(OpKind::Constant, {}, ConstantAttributes{}, {}, {}, {TensorType{{3}, ElementType::F32}});
        b.constant(1, TensorType{{}, ElementType::I1});
        b.constant(-std::numeric_limits<double>::infinity(), TensorType{{}, ElementType::F32});
        const std::string text = printStableHlo(finished(std::move(b)));
        QVERIFY_CONTAINS(
            text, "stablehlo.slice %arg0 [0:2, 1:6:2, 0:8] : (tensor<2x6x8xf32>) -> tensor<2x3x8xf32>");
        QVERIFY_CONTAINS(text,
                         "stablehlo.concatenate %arg0, %arg0, dim = 1 : (tensor<2x6x8xf32>, "
                         "tensor<2x6x8xf32>) -> tensor<2x12x8xf32>");
        QVERIFY_CONTAINS(text,
                         "stablehlo.pad %arg0, %2, low = [0, 1, 0], high = [0, 0, 2], interior = [0, 0, 0]");
        QVERIFY_CONTAINS(
            text,
            "stablehlo.compare  LT, %arg1, %arg1,  SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>");
        QVERIFY_CONTAINS(text, "stablehlo.compare  NE, %arg0, %arg0,  FLOAT");
        QVERIFY_CONTAINS(text, "stablehlo.iota dim = 0 : tensor<4xi32>");
        QVERIFY_CONTAINS(text,
                         "stablehlo.dot_general %arg0, %arg0, batching_dims = [0] x [0], contracting_dims = "
                         "[2] x [2] : (tensor<2x6x8xf32>, tensor<2x6x8xf32>) -> tensor<2x6x6xf32>");
        QVERIFY_CONTAINS(text, "stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>");
        QVERIFY_CONTAINS(text, "stablehlo.constant dense_resource<__elided__> : tensor<3xf32>");
        QVERIFY_CONTAINS(text, "stablehlo.constant dense<true> : tensor<i1>");
        QVERIFY_CONTAINS(text, "stablehlo.constant dense<0xFF800000> : tensor<f32>");
    }

    void printsConvolutionLikeJax() {
        GraphBuilder b("g");
        ValueId image = b.input("image", {1, 224, 224, 3}, ElementType::F32);
        ValueId kernel = b.parameter("k", {7, 7, 3, 64}, ElementType::F32);
        ConvolutionAttributes c = ConvolutionAttributes::channelsLast();
        c.windowStrides = {2, 2};
        c.padding = {{3, 3}, {3, 3}};
        b.convolution(image, kernel, c);
        // The line jax_resnet_50.mlir has for the same convolution.
        QVERIFY_CONTAINS(
            printStableHlo(finished(std::move(b))),
            "stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
            "window = {stride = [2, 2], pad = [[3, 3], [3, 3]]} {batch_group_count = 1 : i64, "
            "feature_group_count = 1 : i64} : (tensor<1x224x224x3xf32>, tensor<7x7x3x64xf32>) -> "
            "tensor<1x112x112x64xf32>");
    }

    void printsGenericOpsWithRegionsAndMultipleResults() {
        GraphBuilder b("g");
        ValueId keys = b.input("keys", {8}, ElementType::F32);
        ValueId values = b.input("values", {8}, ElementType::I32);
        // A sort with a comparator region and two results, whose second result is used.
        const TensorType f32{{}, ElementType::F32}, i32{{}, ElementType::I32};
        Region comparator = b.region({f32, f32, i32, i32}, [&](const std::vector<ValueId>& args) {
            return std::vector<ValueId>{b.compare(args[0], args[1], CompareDirection::LT)};
        });
        auto sorted = b.op(OpKind::Sort, {keys, values}, SortAttributes{0, true}, "sort", {comparator});
        QCOMPARE(sorted.size(), std::size_t{2});
        b.output(b.unary(OpKind::Negate, sorted[1]), "y");
        b.op(OpKind::CustomCall, {keys}, CustomCallAttributes{"Sharding", "cfg"}, {}, {},
             {TensorType{{8}, ElementType::F32}});
        b.op(OpKind::Opaque, {keys}, OpaqueAttributes{"chlo.top_k"}, {}, {},
             {TensorType{{2}, ElementType::F32}, TensorType{{2}, ElementType::I32}});
        const std::string text = printStableHlo(finished(std::move(b)));
        QVERIFY_CONTAINS(
            text,
            "%0:2 = \"stablehlo.sort\"(%arg0, %arg1) <{dimension = 0 : i64, is_stable = true}> ({\n"
            "      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>, %arg4: tensor<i32>, %arg5: tensor<i32>):\n"
            "        %1 = stablehlo.compare  LT, %arg2, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> "
            "tensor<i1>\n"
            "        stablehlo.return %1 : tensor<i1>\n"
            "      }) : (tensor<8xf32>, tensor<8xi32>) -> (tensor<8xf32>, tensor<8xi32>) loc(\"sort\")");
        QVERIFY_CONTAINS(text, "%2 = stablehlo.negate %0#1 : tensor<8xi32>");
        QVERIFY_CONTAINS(text,
                         "%3 = \"stablehlo.custom_call\"(%arg0) {call_target_name = \"Sharding\", "
                         "backend_config = \"cfg\"} : (tensor<8xf32>) -> tensor<8xf32>");
        QVERIFY_CONTAINS(text,
                         "%4:2 = \"chlo.top_k\"(%arg0) : (tensor<8xf32>) -> (tensor<2xf32>, tensor<2xi32>)");
    }

    // Every op prints as an op of a real dialect: ONNX's Erf as chlo.erf (not a made-up
    // stablehlo.elementwise), an operator only ONNX knows as a custom call of its name, and every op kind's
    // mnemonic is a StableHLO op.
    void printsOnlyRealOps() {
        static const std::set<std::string> stablehlo{"abs",
                                                     "add",
                                                     "after_all",
                                                     "all_gather",
                                                     "all_reduce",
                                                     "all_to_all",
                                                     "and",
                                                     "atan2",
                                                     "batch_norm_grad",
                                                     "batch_norm_inference",
                                                     "batch_norm_training",
                                                     "bitcast_convert",
                                                     "broadcast",
                                                     "broadcast_in_dim",
                                                     "case",
                                                     "cbrt",
                                                     "ceil",
                                                     "cholesky",
                                                     "clamp",
                                                     "collective_broadcast",
                                                     "collective_permute",
                                                     "compare",
                                                     "complex",
                                                     "composite",
                                                     "concatenate",
                                                     "constant",
                                                     "convert",
                                                     "convolution",
                                                     "cosine",
                                                     "count_leading_zeros",
                                                     "custom_call",
                                                     "divide",
                                                     "dot_general",
                                                     "dynamic_broadcast_in_dim",
                                                     "dynamic_conv",
                                                     "dynamic_gather",
                                                     "dynamic_iota",
                                                     "dynamic_pad",
                                                     "dynamic_reshape",
                                                     "dynamic_slice",
                                                     "dynamic_update_slice",
                                                     "einsum",
                                                     "exponential",
                                                     "exponential_minus_one",
                                                     "fft",
                                                     "floor",
                                                     "gather",
                                                     "get_dimension_size",
                                                     "get_tuple_element",
                                                     "if",
                                                     "imag",
                                                     "infeed",
                                                     "iota",
                                                     "is_finite",
                                                     "log",
                                                     "log_plus_one",
                                                     "logistic",
                                                     "map",
                                                     "maximum",
                                                     "minimum",
                                                     "multiply",
                                                     "negate",
                                                     "not",
                                                     "optimization_barrier",
                                                     "or",
                                                     "outfeed",
                                                     "pad",
                                                     "partition_id",
                                                     "popcnt",
                                                     "power",
                                                     "real",
                                                     "real_dynamic_slice",
                                                     "recv",
                                                     "reduce",
                                                     "reduce_precision",
                                                     "reduce_scatter",
                                                     "reduce_window",
                                                     "remainder",
                                                     "replica_id",
                                                     "reshape",
                                                     "return",
                                                     "reverse",
                                                     "rng",
                                                     "rng_bit_generator",
                                                     "round_nearest_afz",
                                                     "round_nearest_even",
                                                     "rsqrt",
                                                     "scatter",
                                                     "select",
                                                     "select_and_scatter",
                                                     "send",
                                                     "set_dimension_size",
                                                     "shift_left",
                                                     "shift_right_arithmetic",
                                                     "shift_right_logical",
                                                     "sign",
                                                     "sine",
                                                     "slice",
                                                     "sort",
                                                     "sqrt",
                                                     "subtract",
                                                     "tan",
                                                     "tanh",
                                                     "torch_index_select",
                                                     "transpose",
                                                     "triangular_solve",
                                                     "tuple",
                                                     "uniform_dequantize",
                                                     "uniform_quantize",
                                                     "while",
                                                     "xor"};
        for (int k = 0; k < kOpKindCount; ++k) {
            const auto kind = static_cast<OpKind>(k);
            if (kind == OpKind::Opaque || kind == OpKind::OtherElementwise)
                continue;  // printed under their own names
            QVERIFY2(stablehlo.count(std::string(mnemonic(kind))), std::string(mnemonic(kind)).c_str());
        }
        GraphBuilder b("onnx", "model.onnx");
        ValueId x = b.input("x", {2, 3}, ElementType::F32);
        ValueId erf = b.op1(OpKind::OtherElementwise, {x}, OpaqueAttributes{"chlo.erf"}, "gelu.erf");
        ValueId other = b.op(OpKind::Opaque, {erf}, OpaqueAttributes{"onnx.Hardmax"}, "hardmax", {},
                             {TensorType{{2, 3}, ElementType::F32}})
                            .front();
        ValueId rounded = b.op1(OpKind::ReducePrecision, {other}, NoAttributes{}, "round");
        b.output(rounded, "y");
        const Graph g = finished(std::move(b));
        const std::string text = printStableHlo(g);
        QVERIFY(!contains(text, "stablehlo.elementwise"));
        QVERIFY(!contains(text, "stablehlo.opaque"));
        QVERIFY_CONTAINS(text,
                         "%0 = \"chlo.erf\"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc(\"gelu.erf\")");
        QVERIFY_CONTAINS(text, "%1 = \"stablehlo.custom_call\"(%0) {call_target_name = \"onnx.Hardmax\"}");
        QVERIFY_CONTAINS(
            text, "\"stablehlo.reduce_precision\"(%1) <{exponent_bits = 8 : i32, mantissa_bits = 23 : i32}>");
        // Every op of the text is one of StableHLO's, CHLO's or the function's own.
        const std::regex op("(?:= |\\n\\s+)\"?([a-z_]+)\\.([a-z_]+)\\b");
        for (auto it = std::sregex_iterator(text.begin(), text.end(), op); it != std::sregex_iterator();
             ++it) {
            const std::string dialect = (*it)[1], name = (*it)[2];
            QVERIFY2(dialect == "chlo" || dialect == "func" || dialect == "sdy" ||
                         (dialect == "stablehlo" && stablehlo.count(name)),
                     (dialect + "." + name).c_str());
        }
        const auto again = import::importStableHlo(text, "printed.mlir");
        QVERIFY2(again.ok(), again.errorMessage().c_str());
        QCOMPARE(int(again->op(again->body[0]).kind), int(OpKind::OtherElementwise));
        QCOMPARE(std::get<OpaqueAttributes>(again->op(again->body[0]).attributes).name,
                 std::string("chlo.erf"));
    }

    // A training step prints what the importer needs to read it back as one: where the backward pass starts,
    // which values are parameter gradients, the arguments' roles, names and dimension labels.
    void trainingStepReadsBackAsOne() {
        auto spec = zoo::parseModelSpec("gpt:layers=2,d_model=32,heads=2,seq=8,batch=2,vocab=64");
        QVERIFY(spec.ok());
        auto forward = zoo::build(*spec);
        QVERIFY(forward.ok());
        auto step = train::buildTrainingStep(*forward);
        QVERIFY2(step.ok(), step.errorMessage().c_str());
        const Graph& g = step->graph;
        QVERIFY(g.backwardStart > 0 && !g.gradients.empty());
        const std::string text = printStableHlo(g);
        QVERIFY_CONTAINS(text, "shardscope.backward_start");
        QVERIFY_CONTAINS(text, "shardscope.gradient_of = array<i64: ");
        QVERIFY_CONTAINS(text, "shardscope.dims = [");
        const auto again = import::importStableHlo(text, "step.mlir");
        QVERIFY2(again.ok(), again.errorMessage().c_str());
        QCOMPARE(again->body.size(), g.body.size());
        QCOMPARE(again->backwardStart, g.backwardStart);
        std::vector<std::pair<std::uint32_t, std::size_t>> want, got;
        for (const auto& [v, a] : g.gradients)
            want.emplace_back(v.index, a);
        for (const auto& [v, a] : again->gradients)
            got.emplace_back(v.index, a);
        std::sort(want.begin(), want.end());
        std::sort(got.begin(), got.end());
        QCOMPARE(got.size(), want.size());
        for (std::size_t i = 0; i < g.arguments.size(); ++i) {
            QCOMPARE(int(again->arguments[i].role), int(g.arguments[i].role));
            QCOMPARE(again->arguments[i].name, g.arguments[i].name);
            QCOMPARE(again->arguments[i].dimensionLabels, g.arguments[i].dimensionLabels);
        }
        // The same values (ops are printed and read in one order, so value ids correspond).
        for (std::size_t i = 0; i < got.size(); ++i) {
            QCOMPARE(got[i].second, want[i].second);
            QCOMPARE(again->type(ValueId{got[i].first}), g.type(ValueId{want[i].first}));
        }
    }

    // Every zoo model prints every op and never refers to a value it has not named.
    void printsEveryZooFamily_data() {
        QTest::addColumn<QString>("model");
        for (const auto& family : zoo::families()) {
            std::string small = family.name;
            if (family.name == "gpt" || family.name == "llama" || family.name == "moe")
                small += ":layers=2";
            if (family.name == "vit")
                small += ":layers=2,batch=2";
            QTest::newRow(family.name.c_str()) << QString::fromStdString(small);
        }
    }
    void printsEveryZooFamily() {
        QFETCH(QString, model);
        auto spec = zoo::parseModelSpec(model.toStdString());
        QVERIFY2(spec.ok(), spec.errorMessage().c_str());
        auto graph = zoo::build(*spec);
        QVERIFY2(graph.ok(), graph.errorMessage().c_str());
        const std::string text = printStableHlo(*graph);
        QVERIFY(!contains(text, "<undefined"));
        std::size_t definitions = 0;
        for (std::size_t pos = text.find("\n    %"); pos != std::string::npos;
             pos = text.find("\n    %", pos + 1))
            ++definitions;
        QCOMPARE(definitions, graph->body.size());
    }
};

QTEST_APPLESS_MAIN(TestIrPrinter)
#include "tst_ir_printer.moc"
