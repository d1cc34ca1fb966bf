// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// StableHLO text import: every construct of the issue on small hand-written inputs, the zoo round trip
// (print -> import -> print is a fixed point), error messages, robustness, and the shared real models.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QtTest>
#include <functional>
#include <random>

#include "test_paths.h"
#include "test_support.h"

#include "shardscope/import/format.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/ir/printer.h"
#include "shardscope/ir/statistics.h"
#include "shardscope/plan/plan.h"
#include "shardscope/session/export_formats.h"
#include "shardscope/session/model_source.h"
#include "shardscope/session/problem.h"
#include "shardscope/zoo/zoo.h"

using namespace shardscope;
using namespace shardscope::ir;

namespace {

Graph imported(const std::string& text) {
    auto g = import::importStableHlo(text, "test.mlir");
    if (!g)
        qFatal("%s", g.errorMessage().c_str());
    return std::move(g).value();
}

std::string errorOf(const std::string& text, const import::ImportOptions& options = {}) {
    auto g = import::importStableHlo(text, "test.mlir", options);
    if (g.ok())
        return "(no error)";
    // A refused module says why in one diagnostic of one line.
    if (g.diagnostics().size() != 1 || g.errorMessage().find('\n') != std::string::npos)
        return "(not one line) " + g.errorMessage();
    return g.errorMessage();
}

bool contains(const std::string& text, const std::string& part) {
    if (text.find(part) != std::string::npos)
        return true;
    qWarning("'%s' does not contain '%s'", text.c_str(), part.c_str());
    return false;
}

const ConstantAttributes& constantOf(const Graph& g, std::size_t bodyIndex) {
    return std::get<ConstantAttributes>(g.op(g.body.at(bodyIndex)).attributes);
}

std::vector<const Op*> opsOf(const Graph& g, OpKind kind) {
    std::vector<const Op*> out;
    for (OpId id : g.allOpsInOrder())
        if (g.op(id).kind == kind)
            out.push_back(&g.op(id));
    return out;
}

std::int64_t countOf(const Graph& g, const std::string& mnemonic) {
    const auto s = computeStatistics(g);
    auto it = s.opsByKind.find(mnemonic);
    return it == s.opsByKind.end() ? 0 : it->second;
}

// Expected op counts of a file's entry function, read from the text independently of the importer: ops per
// function (`stablehlo.X` as an op name, including `applies stablehlo.X` reducers), plus the counts of every
// function it calls (func.call, call, composite decompositions), once per call.
std::map<std::string, std::int64_t> expectedCounts(const QString& text) {
    struct Function {
        std::map<std::string, std::int64_t> own;
        std::vector<std::string> calls;
    };
    std::map<std::string, Function> functions;
    QRegularExpression header(R"(func\.func\s+(?:public\s+|private\s+)?@([\w.$-]+))");
    QRegularExpression opName(R"((?:^|[=\s"(])(?<!#)stablehlo\.([a-z_]+)(?=[\s"(]))");
    QRegularExpression call(R"((?:call\s+@|decomposition\s*=\s*@)([\w.$-]+))");
    std::string current;
    for (const QString& line : text.split('\n')) {
        auto h = header.match(line);
        if (h.hasMatch())
            current = h.captured(1).toStdString();
        if (current.empty())
            continue;
        auto ops = opName.globalMatch(line);
        while (ops.hasNext()) {
            const std::string kind = ops.next().captured(1).toStdString();
            if (kind == "return" || kind == "composite")
                continue;
            ++functions[current].own[kind == "dot" ? "dot_general" : kind];
        }
        auto calls = call.globalMatch(line);
        while (calls.hasNext())
            functions[current].calls.push_back(calls.next().captured(1).toStdString());
    }
    std::function<std::map<std::string, std::int64_t>(const std::string&)> total =
        [&](const std::string& name) {
            auto counts = functions[name].own;
            for (const auto& callee : functions[name].calls)
                for (const auto& [kind, n] : total(callee))
                    counts[kind] += n;
            return counts;
        };
    return total("main");
}

}  // namespace

class TestImportStableHlo : public QObject {
    Q_OBJECT
private slots:
    // Printing a zoo model and importing the text gives back the same graph: the printed text is a fixed
    // point.
    void zooRoundTrip_data() {
        QTest::addColumn<QString>("model");
        for (const auto& f : zoo::families())
            QTest::newRow(f.name.c_str()) << QString::fromStdString(
                f.name == "gpt" || f.name == "llama" || f.name == "moe" ? f.name + ":layers=2" : f.name);
    }
    void zooRoundTrip() {
        QFETCH(QString, model);
        auto original = zoo::build(*zoo::parseModelSpec(model.toStdString()));
        QVERIFY(original.ok());
        const std::string text = printStableHlo(*original);
        auto back = import::importStableHlo(text, "roundtrip.mlir");
        QVERIFY2(back.ok(), back.errorMessage().c_str());
        QCOMPARE(printStableHlo(*back), text);
        const auto a = computeStatistics(*original), b = computeStatistics(*back);
        QCOMPARE(b.opsByKind, a.opsByKind);
        QCOMPARE(b.parameterCount, a.parameterCount);
        QCOMPARE(b.flops, a.flops);
        for (std::size_t i = 0; i < original->arguments.size(); ++i) {
            QCOMPARE(back->arguments[i].name, original->arguments[i].name);
            QVERIFY(back->arguments[i].role == original->arguments[i].role);
        }
    }

    // The pretty and the generic forms of the same ops import to the same graph.
    void prettyAndGenericFormsAgree() {
        const std::string pretty = R"(
func.func @main(%arg0: tensor<4x8xf32>, %arg1: tensor<8x16xf32>) -> tensor<16x4xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<4x16xf32>) -> tensor<16x4xf32>
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
  %3 = stablehlo.maximum %1, %2 : tensor<16x4xf32>
  %4 = stablehlo.slice %3 [0:16:2, 0:4] : (tensor<16x4xf32>) -> tensor<8x4xf32>
  %5 = stablehlo.concatenate %4, %4, dim = 0 : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
  %6 = stablehlo.compare  GT, %5, %3,  FLOAT : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xi1>
  %7 = stablehlo.select %6, %5, %3 : tensor<16x4xi1>, tensor<16x4xf32>
  %8 = stablehlo.iota dim = 1 : tensor<16x4xi32>
  %9 = stablehlo.convert %8 : (tensor<16x4xi32>) -> tensor<16x4xf32>
  %10 = stablehlo.add %7, %9 : tensor<16x4xf32>
  return %10 : tensor<16x4xf32>
})";
        const std::string generic = R"(
func.func @main(%arg0: tensor<4x8xf32>, %arg1: tensor<8x16xf32>) -> tensor<16x4xf32> {
  %0 = "stablehlo.dot_general"(%arg0, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = "stablehlo.transpose"(%0) <{permutation = array<i64: 1, 0>}> : (tensor<4x16xf32>) -> tensor<16x4xf32>
  %cst = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %2 = "stablehlo.broadcast_in_dim"(%cst) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<16x4xf32>
  %3 = "stablehlo.maximum"(%1, %2) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
  %4 = "stablehlo.slice"(%3) <{start_indices = array<i64: 0, 0>, limit_indices = array<i64: 16, 4>, strides = array<i64: 2, 1>}> : (tensor<16x4xf32>) -> tensor<8x4xf32>
  %5 = "stablehlo.concatenate"(%4, %4) {dimension = 0 : i64} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
  %6 = "stablehlo.compare"(%5, %3) {comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xi1>
  %7 = "stablehlo.select"(%6, %5, %3) : (tensor<16x4xi1>, tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
  %8 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<16x4xi32>
  %9 = "stablehlo.convert"(%8) : (tensor<16x4xi32>) -> tensor<16x4xf32>
  %10 = "stablehlo.add"(%7, %9) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
  "func.return"(%10) : (tensor<16x4xf32>) -> ()
})";
        const Graph a = imported(pretty), b = imported(generic);
        QCOMPARE(a.body.size(), std::size_t{12});
        QCOMPARE(b.body.size(), a.body.size());
        for (std::size_t i = 0; i < a.body.size(); ++i) {
            const Op &x = a.op(a.body[i]), &y = b.op(b.body[i]);
            QVERIFY(x.kind == y.kind);
            QVERIFY2(x.attributes == y.attributes, std::string(mnemonic(x.kind)).c_str());
            QCOMPARE(a.type(x.results[0]), b.type(y.results[0]));
        }
        QCOMPARE(std::get<SliceAttributes>(a.op(a.body[5]).attributes).strides, (Dims{2, 1}));
        QVERIFY(std::get<CompareAttributes>(a.op(a.body[7]).attributes).direction == CompareDirection::GT);
    }

    void multiResultOpsAndRegions() {
        const Graph g = imported(R"(
func.func @main(%keys: tensor<8xf32>, %values: tensor<8xi32>) -> (tensor<8xi32>, tensor<f32>) {
  %0:2 = "stablehlo.sort"(%keys, %values) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %lt = stablehlo.compare  LT, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<8xf32>, tensor<8xi32>) -> (tensor<8xf32>, tensor<8xi32>)
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%0#0 init: %init) across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    reducer(%x: tensor<f32>, %y: tensor<f32>)  {
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  return %0#1, %sum : tensor<8xi32>, tensor<f32>
})");
        auto sorts = opsOf(g, OpKind::Sort);
        QCOMPARE(sorts.size(), std::size_t{1});
        QCOMPARE(sorts[0]->results.size(), std::size_t{2});
        QCOMPARE(sorts[0]->regions.size(), std::size_t{1});
        QCOMPARE(sorts[0]->regions[0].arguments.size(), std::size_t{4});
        QVERIFY(std::get<SortAttributes>(sorts[0]->attributes).isStable);
        QCOMPARE(g.outputs[0].value, sorts[0]->results[1]);
        auto reduces = opsOf(g, OpKind::Reduce);
        QCOMPARE(reduces.size(), std::size_t{1});
        QVERIFY(std::get<ReduceAttributes>(reduces[0]->attributes).reducer == Reducer::Add);
        QCOMPARE(reduces[0]->operands[0], sorts[0]->results[0]);
    }

    void whileWithTripCountAndCase() {
        const Graph g = imported(R"(
func.func @main(%x: tensor<4xf32>, %i: tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%iterArg = %c0, %iterArg_1 = %x) : tensor<i32>, tensor<4xf32>
    cond {
    %c12 = stablehlo.constant dense<12> : tensor<i32>
    %1 = stablehlo.compare  LT, %iterArg, %c12,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.add %iterArg, %c1 : tensor<i32>
    %3 = stablehlo.multiply %iterArg_1, %iterArg_1 : tensor<4xf32>
    stablehlo.return %2, %3 : tensor<i32>, tensor<4xf32>
  }
  %4 = "stablehlo.case"(%i) ({
    stablehlo.return %x : tensor<4xf32>
  }, {
    %5 = stablehlo.negate %x : tensor<4xf32>
    stablehlo.return %5 : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  return %0#1, %4 : tensor<4xf32>, tensor<4xf32>
})");
        auto loops = opsOf(g, OpKind::While);
        QCOMPARE(loops.size(), std::size_t{1});
        const auto& loop = std::get<LoopAttributes>(loops[0]->attributes);
        QVERIFY(loop.tripCountKnown);
        QCOMPARE(loop.tripCount, std::int64_t{12});
        QCOMPARE(loops[0]->regions.size(), std::size_t{2});
        // The condition's compare runs 13 times, the body's add and 4-element multiply 12 times, and the case
        // counts its costlier branch (the negate).
        QCOMPARE(computeStatistics(g).flops, 13.0 * 1 + 12.0 * (1 + 4) + 4);
        auto cases = opsOf(g, OpKind::Case);
        QCOMPARE(cases.size(), std::size_t{1});
        QCOMPARE(cases[0]->regions.size(), std::size_t{2});
    }

    // func.call and stablehlo.composite are inlined: each call site gets its own copy of the callee's ops.
    void callsAndCompositesAreInlined() {
        const Graph g = imported(R"(
module @m {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @square(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = func.call @square(%0) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = stablehlo.composite "my.norm" %1 {composite_attributes = {epsilon = 1.0E-6 : f32}, decomposition = @norm_impl} : (tensor<4xf32>) -> tensor<4xf32>
    return %2 : tensor<4xf32>
  }
  func.func private @square(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @norm_impl(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @square(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = stablehlo.rsqrt %0 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
})");
        QCOMPARE(countOf(g, "multiply"), std::int64_t{3});
        QCOMPARE(countOf(g, "rsqrt"), std::int64_t{1});
        QCOMPARE(g.arguments.size(), std::size_t{1});
        const auto muls = opsOf(g, OpKind::Multiply);
        QCOMPARE(muls[1]->operands[0], muls[0]->results[0]);
        QVERIFY(errorOf(R"(func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = call @main(%a) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
})")
                    .find("recursive call to @main cannot be inlined") != std::string::npos);
        QVERIFY(errorOf(R"(func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = call @missing(%a) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
})")
                    .find("test.mlir:2:3: error: call to unknown function @missing") == 0);
    }

    void locationsBecomeLabels() {
        const Graph g = imported(R"(#loc1 = loc("params['dense']['kernel']")
module @m {
  func.func public @main(%arg0: tensor<2x3xf32> loc(#loc1), %arg1: tensor<3xf32> {jax.arg_info = "params['dense']['bias']"}, %arg2: tensor<2xi32> loc("tokens")) -> tensor<2x3xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32> loc(#loc3)
    %1 = stablehlo.add %arg0, %0 : tensor<2x3xf32> loc("jit(f)/add"("model.py":12:3))
    return %1 : tensor<2x3xf32>
  }
}
#loc2 = loc("model.py":10:1)
#loc3 = loc("jit(f)/broadcast"(#loc2))
)");
        QCOMPARE(g.arguments[0].name, std::string("params['dense']['kernel']"));
        QCOMPARE(g.arguments[1].name, std::string("params['dense']['bias']"));
        QCOMPARE(g.arguments[2].name, std::string("tokens"));
        QVERIFY(g.arguments[0].role == ArgumentRole::Parameter);
        QVERIFY(g.arguments[2].role == ArgumentRole::Input);  // integer data
        const Op& broadcast = g.op(g.body[0]);
        QCOMPARE(broadcast.location.name, std::string("jit(f)/broadcast"));
        QCOMPARE(broadcast.location.file, std::string("test.mlir"));
        QCOMPARE(broadcast.location.line, 4);
        QCOMPARE(g.op(g.body[1]).location.name, std::string("jit(f)/add"));
    }

    void argumentNamesRolesAndAliasing() {
        const Graph g = imported(R"(
func.func @main(%arg0: tensor<8xbf16> {ttcore.argument_type = #ttcore.argument_type<parameter>, ttir.name = "model.w"},
                %arg1: tensor<8xbf16> {ttcore.argument_type = #ttcore.argument_type<input>, ttir.name = "x"},
                %arg2: tensor<8xf32> {shardscope.role = "optimizer_state", shardscope.name = "adam.m.w", tf.aliasing_output = 1 : i32})
    -> (tensor<8xbf16> {jax.result_info = "y"}, tensor<8xf32>) {
  %0 = stablehlo.multiply %arg0, %arg1 : tensor<8xbf16>
  return %0, %arg2 : tensor<8xbf16>, tensor<8xf32>
})");
        QCOMPARE(g.arguments[0].name, std::string("model.w"));
        QVERIFY(g.arguments[0].role == ArgumentRole::Parameter);
        QVERIFY(g.arguments[1].role == ArgumentRole::Input);
        QVERIFY(g.arguments[2].role == ArgumentRole::OptimizerState);
        QCOMPARE(g.outputs[0].name, std::string("y"));
        QCOMPARE(g.outputs[1].aliasedArgument, std::optional<std::size_t>(2));
    }

    // A convolution's input is data; float arguments elsewhere are weights (JAX/PyTorch exports name
    // neither).
    void rolesFromDataFlow() {
        const Graph g = imported(R"(
func.func @main(%arg0: tensor<1x3x8x8xf32>, %arg1: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  %0 = stablehlo.transpose %arg0, dims = [0, 2, 3, 1] : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
  %1 = stablehlo.convolution(%0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  return %1 : tensor<1x8x8x4xf32>
})");
        QVERIFY(g.arguments[0].role == ArgumentRole::Input);
        QVERIFY(g.arguments[1].role == ArgumentRole::Parameter);
        const auto& conv = std::get<ConvolutionAttributes>(opsOf(g, OpKind::Convolution)[0]->attributes);
        QCOMPARE(conv.padding.size(), std::size_t{2});
        QCOMPARE(conv.padding[0], (std::pair<std::int64_t, std::int64_t>{1, 1}));
    }

    void denseConstants() {
        const Graph g = imported(R"(
func.func @main() -> (tensor<2x2xi32>, tensor<f32>, tensor<2xf32>, tensor<3xf32>, tensor<2xbf16>, tensor<2xi1>) {
  %0 = stablehlo.constant dense<[[1, 2], [3, -4]]> : tensor<2x2xi32>
  %1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %2 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
  %3 = stablehlo.constant dense_resource<__elided__> : tensor<3xf32>
  %4 = stablehlo.constant dense<[1.500000e+00, -2.0]> : tensor<2xbf16>
  %5 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<2x2xi32>, tensor<f32>, tensor<2xf32>, tensor<3xf32>, tensor<2xbf16>, tensor<2xi1>
})");
        auto values = [&](std::size_t i) {
            return std::get<ConstantAttributes>(g.op(g.body[i]).attributes).values;
        };
        QCOMPARE(values(0), (std::vector<double>{1, 2, 3, -4}));
        QVERIFY(std::isinf(values(1).at(0)) && values(1).at(0) < 0);
        QCOMPARE(values(2), (std::vector<double>{1.0, 2.0}));
        QVERIFY(values(3).empty());  // elided: unknown
        QCOMPARE(values(4), (std::vector<double>{1.5, -2.0}));
        QCOMPARE(values(5), (std::vector<double>{1, 0}));
    }

    // Weights held as constants (elided here, as in jax_resnet_50.mlir) become parameters when a contraction
    // reads them (directly or through a layout op) and they have at least 1024 elements; a splat, an operand
    // of elementwise ops only, and a small table stay constants. One warning says how many and how large;
    // training steps train the lifted weights, and the StableHLO export prints the module (the text has no
    // arguments for them).
    void weightConstantsBecomeParameters() {
        const std::string text =
            R"(func.func @main(%arg0: tensor<64x64xf32> {jax.arg_info = "x"}) -> (tensor<64x64xf32>, tensor<64x16xf32>) {
  %w = stablehlo.constant dense_resource<__elided__> : tensor<64x64xf32>
  %v = stablehlo.constant dense_resource<__elided__> : tensor<64x64xf32>
  %ones = stablehlo.constant dense<1.000000e+00> : tensor<64x64xf32>
  %bias = stablehlo.constant dense_resource<__elided__> : tensor<64x64xf32>
  %small = stablehlo.constant dense_resource<__elided__> : tensor<16x16xf32>
  %0 = stablehlo.dot_general %arg0, %w, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = stablehlo.transpose %v, dims = [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %3 = stablehlo.dot_general %2, %ones, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %4 = stablehlo.add %3, %bias : tensor<64x64xf32>
  %5 = stablehlo.slice %arg0 [0:64, 0:16] : (tensor<64x64xf32>) -> tensor<64x16xf32>
  %6 = stablehlo.dot_general %5, %small, contracting_dims = [1] x [0] : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  return %4, %6 : tensor<64x64xf32>, tensor<64x16xf32>
}
)";
        auto result = import::importStableHlo(text, "weights.mlir");
        QVERIFY2(result.ok(), result.errorMessage().c_str());
        const Graph& g = *result;
        QCOMPARE(g.arguments.size(), std::size_t{3});
        QVERIFY(g.arguments[0].role == ArgumentRole::Input);
        for (std::size_t i : {1, 2})
            QVERIFY(g.arguments[i].role == ArgumentRole::Parameter);
        QCOMPARE(g.arguments[1].name, std::string("%w"));
        QCOMPARE(g.arguments[2].name, std::string("%v"));
        QCOMPARE(g.arguments[1].location.line, 2);
        QCOMPARE(opsOf(g, OpKind::Constant).size(), std::size_t{3});  // ones, bias, small
        QCOMPARE(result.diagnostics().size(), std::size_t{1});
        const Diagnostic& warning = result.diagnostics().front();
        QVERIFY(warning.severity == Severity::Warning);
        QCOMPARE(warning.code, std::string(import::kWeightsLiftedCode));
        QCOMPARE(
            warning.message,
            std::string("2 constants hold the model's weights (floating point, at least 1024 elements, read "
                        "by dot_general or convolution): planned as parameters, 8192 elements (0.03 MiB), "
                        "so plans shard them and training steps train them"));
        QCOMPARE(computeStatistics(g).parameterCount, std::int64_t{8192});

        ProblemSpec spec;
        spec.model = "weights.mlir";
        spec.mesh = "data=2";
        spec.train = true;
        auto problem = loadProblem(spec, &text);
        QVERIFY2(problem.ok(), problem.errorMessage().c_str());
        QCOMPARE((*problem)->model.graph.gradients.size(), std::size_t{2});
        spec.train = false;
        auto forward = loadProblem(spec, &text);
        QVERIFY2(forward.ok(), forward.errorMessage().c_str());
        session::ExportOptions options;
        options.modelText = &text;
        auto exported = session::exportPlan(**forward, plan::Plan{}, "shardy", options);
        QVERIFY2(exported.ok(), exported.errorMessage().c_str());
        auto again = import::importStableHlo(*exported, "again.mlir");
        QVERIFY2(again.ok(), again.errorMessage().c_str());
        QCOMPARE(again->arguments.size(), std::size_t{3});
        QVERIFY(again->arguments[1].role == ArgumentRole::Parameter);
    }

    // jax_resnet_50.mlir closes over its weights (265 elided constants): its 53 convolution kernels are its
    // parameters, 23,454,912 elements (ResNet-50 without its classifier head and batch-norm vectors).
    void resnetWeightsAreParameters() {
        const QString path =
            shardscope::testing::sharedDir() + QStringLiteral("/models/stablehlo/jax_resnet_50.mlir");
        if (!QFileInfo::exists(path))
            QSKIP("../shared/models is absent (a user's clone has no ../shared)");
        auto loaded = loadModel(path.toStdString());
        QVERIFY2(loaded.ok(), loaded.errorMessage().c_str());
        const auto stats = computeStatistics(loaded->graph);
        QCOMPARE(stats.parameterCount, std::int64_t{23454912});
        std::size_t parameters = 0;
        for (const auto& a : loaded->graph.arguments)
            parameters += a.role == ArgumentRole::Parameter ? 1 : 0;
        QCOMPARE(parameters, std::size_t{53});
        bool warned = false;
        for (const auto& d : loaded.diagnostics())
            warned = warned || (d.code == import::kWeightsLiftedCode &&
                                d.message.rfind("53 constants hold the model's weights", 0) == 0);
        QVERIFY(warned);
    }

    void customCallsAndUnknownOps() {
        auto result = import::importStableHlo(R"(
func.func @main(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<2xf32>) {
  %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[2]<=[2]}"} : (tensor<8xf32>) -> tensor<8xf32>
  %1 = chlo.erf %0 : tensor<8xf32> -> tensor<8xf32>
  %2:2 = "chlo.top_k"(%1) {k = 2 : i64} : (tensor<8xf32>) -> (tensor<2xf32>, tensor<2xi32>)
  return %0, %1, %2#0 : tensor<8xf32>, tensor<8xf32>, tensor<2xf32>
})",
                                              "ops.mlir");
        QVERIFY2(result.ok(), result.errorMessage().c_str());
        const Graph& g = *result;
        const Op& call = g.op(g.body[0]);
        QVERIFY(call.kind == OpKind::CustomCall);
        QCOMPARE(std::get<CustomCallAttributes>(call.attributes).target, std::string("Sharding"));
        QVERIFY(call.sharding && call.sharding->text == "{devices=[2]<=[2]}");
        QVERIFY(g.op(g.body[1]).kind == OpKind::OtherElementwise);  // chlo.erf acts element by element
        QVERIFY(g.op(g.body[2]).kind == OpKind::Opaque);
        QCOMPARE(std::get<OpaqueAttributes>(g.op(g.body[2]).attributes).name, std::string("chlo.top_k"));
        bool warned = false;
        for (const auto& d : result.diagnostics())
            warned = warned || (d.severity == Severity::Warning &&
                                d.toString() ==
                                    "ops.mlir:5:3: warning: op 'chlo.top_k' "
                                    "is not modelled; imported as an opaque op whose dimensions all need "
                                    "replication [stablehlo.unsupported-op]");
        QVERIFY(warned);
    }

    void shardingsAndMeshesAreKept() {
        const Graph g = imported(R"(
module @m attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]>
  func.func @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                  %arg1: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}"})
      -> (tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {"model"}]> : tensor<8x32xf32>
    return %1 : tensor<8x32xf32>
  }
})");
        QCOMPARE(g.meshes.size(), std::size_t{1});
        QCOMPARE(g.meshes[0].name, std::string("mesh"));
        QCOMPARE(g.meshes[0].axes,
                 (std::vector<std::pair<std::string, std::int64_t>>{{"data", 4}, {"model", 2}}));
        QVERIFY(g.arguments[0].sharding &&
                g.arguments[0].sharding->format == ShardingAnnotation::Format::Shardy);
        QCOMPARE(g.arguments[0].sharding->text, std::string(R"(#sdy.sharding<@mesh, [{"data"}, {}]>)"));
        QVERIFY(g.arguments[1].sharding &&
                g.arguments[1].sharding->format == ShardingAnnotation::Format::Gspmd);
        QCOMPARE(g.outputs[0].sharding->text, std::string(R"(#sdy.sharding<@mesh, [{"data"}, {"model"}]>)"));
        // The constraint on the dot's only result is that result's annotation, not an op of its own.
        QCOMPARE(g.body.size(), std::size_t{1});
        QCOMPARE(g.op(g.body[0]).sharding->text,
                 std::string(R"(#sdy.sharding<@mesh, [{"data"}, {"model"}]>)"));
        QVERIFY(!g.partitioned);
    }

    void manualComputationOverAllAxesIsPartitioned() {
        const Graph g = imported(R"(
module {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {"y"}]>] manual_axes={"x", "y"} (%arg1: tensor<4x4xf32>) {
      %1 = stablehlo.negate %arg1 : tensor<4x4xf32>
      sdy.return %1 : tensor<4x4xf32>
    } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
})");
        QVERIFY(g.partitioned);  // turned back into its global program
        QCOMPARE(countOf(g, "negate"), std::int64_t{1});
        for (OpId id : g.body)
            if (g.op(id).kind == OpKind::Negate)
                QCOMPARE(g.type(g.op(id).results[0]).shape, (Shape{8, 8}));
    }

    // Ops before func.func outside any `module` (MLIR wraps the top level in an implicit module), as Shardy's
    // and tt-mlir's tests write: the format is told, the mesh kept, other module-level ops skipped with a
    // warning.
    void implicitTopLevelModule() {
        const std::string text = R"(// RUN: some-tool %s
sdy.mesh @mesh = <["x"=2, "y"=4]>
ml_program.global private mutable @state(dense<0.0> : tensor<4xf32>) : tensor<4xf32>
"some.op"() {value = {nested = [1, 2]}} : () -> ()

func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}
)";
        QVERIFY(import::detectFormat(text) == import::ModelFormat::StableHlo);
        QVERIFY(import::detectFormat("\"sdy.mesh\"() : () -> ()\nfunc.func @main() {}") ==
                import::ModelFormat::StableHlo);
        QVERIFY(import::detectFormat("// only a comment\n\n// -----\n") == import::ModelFormat::Empty);
        QVERIFY(import::detectFormat("this is not mlir func.func") == import::ModelFormat::Unknown);
        auto result = import::importStableHlo(text, "top.mlir");
        QVERIFY2(result.ok(), result.errorMessage().c_str());
        QCOMPARE(result->meshes.size(), std::size_t{1});
        QCOMPARE(result->meshes[0].axes.size(), std::size_t{2});
        QCOMPARE(countOf(*result, "negate"), std::int64_t{1});
        int skipped = 0;
        for (const auto& d : result.diagnostics())
            skipped += d.code == "stablehlo.skipped";
        QCOMPARE(skipped, 2);
        auto loaded = loadModelBytes("// nothing here\n// -----\n", "comments.mlir");
        QVERIFY(!loaded.ok());
        QVERIFY(contains(loaded.errorMessage(),
                         "comments.mlir: the file holds no model, only blanks and comments"));
    }

    // Several public functions and no @main: the error lists them and names --entry;
    // ImportOptions::entryFunction
    // (--entry) picks one, whose private callees are inlined as usual.
    void entryFunctionIsChosen() {
        const std::string text = R"(module {
  func.func public @abs(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.abs %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func public @twice(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @double(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @double(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
})";
        QCOMPARE(errorOf(text),
                 std::string("test.mlir:2:20: error: no entry function: no @main and 2 public functions "
                             "(@abs, @twice); choose one with --entry NAME [stablehlo.entry]"));
        import::ImportOptions options;
        options.entryFunction = "twice";
        auto g = import::importStableHlo(text, "test.mlir", options);
        QVERIFY2(g.ok(), g.errorMessage().c_str());
        QCOMPARE(g->name, std::string("twice"));
        QCOMPARE(countOf(*g, "add"), std::int64_t{1});
        QCOMPARE(countOf(*g, "abs"), std::int64_t{0});
        options.entryFunction = "double";  // a private function may be the entry too
        QVERIFY(import::importStableHlo(text, "test.mlir", options).ok());
        options.entryFunction = "nope";
        QVERIFY(contains(errorOf(text, options),
                         "no function @nope in the file (its functions: @abs, @twice, @double)"));
        QVERIFY(contains(errorOf("func.func @f() {\n  return\n}\nfunc.func @f() {\n  return\n}\n"),
                         "test.mlir:4:11: error: redefinition of @f"));
    }

    // The entry travels in the problem (--entry of evaluate, search, export, simulate) and its JSON; JSON
    // written before it existed still loads, with the default entry.
    void entryFunctionTravelsInTheProblem() {
        const std::string text =
            R"(func.func public @a(%arg0: tensor<8x16xf32>, %arg1: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
func.func public @b(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
})";
        ProblemSpec spec;
        spec.model = "two.mlir";
        spec.mesh = "data=2";
        auto refused = loadProblem(spec, &text);
        QVERIFY(!refused.ok());
        QVERIFY(contains(refused.errorMessage(), "(@a, @b); choose one with --entry NAME"));
        spec.entry = "a";
        auto problem = loadProblem(spec, &text);
        QVERIFY2(problem.ok(), problem.errorMessage().c_str());
        QCOMPARE((*problem)->model.graph.name, std::string("a"));
        const std::string json = problemSpecJson(**problem);
        QVERIFY(contains(json, "\"entry\": \"a\""));
        auto back = parseProblemSpec(json, "problem.json");
        QVERIFY2(back.ok(), back.errorMessage().c_str());
        QCOMPARE(back->entry, std::string("a"));
        std::string before = json;  // as written before --entry existed
        before.erase(before.find("\"entry\": \"a\","), std::string("\"entry\": \"a\",").size());
        auto old = parseProblemSpec(before, "old.json");
        QVERIFY2(old.ok(), old.errorMessage().c_str());
        QCOMPARE(old->entry, std::string());
    }

    // Shardy's per-op shardings (`out_sharding=<...>` after the operands) and its collectives, which in
    // Shardy's global view keep the tensor's value: they import as reshards to their out_sharding, with a
    // warning.
    void shardyCollectivesAndOutShardings() {
        auto result = import::importStableHlo(R"(sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<8x8xf32> {
  %0 = sdy.all_gather [{"x"}, {}] %arg0 out_sharding=<@mesh, [{}, {"y"}]> : tensor<8x8xf32>
  %1 = sdy.all_reduce {"y"} %0 out_sharding=<@mesh, [{}, {}]> : tensor<8x8xf32>
  %2 = sdy.all_to_all [{"x"}: 0->1] %1 out_sharding=<@mesh, [{}, {"x"}]> : tensor<8x8xf32>
  %3 = sdy.collective_permute %2 out_sharding=<@mesh, [{}, {"x"}]> : tensor<8x8xf32>
  %4 = sdy.reduce_scatter [{}, {"y"}] %3 out_sharding=<@mesh, [{}, {"y"}]> : tensor<8x8xf32>
  %5 = sdy.all_slice [{"x"}, {}] %4 out_sharding=<@mesh, [{"x"}, {"y"}]> {extra = 1 : i64} : tensor<8x8xf32>
  %6 = stablehlo.add %5, %5 out_sharding=<@mesh, [{"x"}, {}]> : tensor<8x8xf32>
  %7 = "sdy.all_reduce"(%6) <{out_sharding = #sdy.sharding<@mesh, [{}, {}]>, reduction_axes = #sdy<axis_ref_list[{"x"}]>}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %8 = sdy.propagation_barrier %7 allowed_direction=BACKWARD : tensor<8x8xf32>
  %9 = sdy.reshard %8 #sdy.sharding<@mesh, [{"y"}, {}]> : tensor<8x8xf32>
  return %9 : tensor<8x8xf32>
})",
                                              "ccl.mlir");
        QVERIFY2(result.ok(), result.errorMessage().c_str());
        const Graph& g = *result;
        QCOMPARE(g.body.size(), std::size_t{9});  // the barrier is an identity
        const char* expected[] = {
            R"(#sdy.sharding<@mesh, [{}, {"y"}]>)", R"(#sdy.sharding<@mesh, [{}, {}]>)",
            R"(#sdy.sharding<@mesh, [{}, {"x"}]>)", R"(#sdy.sharding<@mesh, [{}, {"x"}]>)",
            R"(#sdy.sharding<@mesh, [{}, {"y"}]>)", R"(#sdy.sharding<@mesh, [{"x"}, {"y"}]>)",
            R"(#sdy.sharding<@mesh, [{"x"}, {}]>)", R"(#sdy.sharding<@mesh, [{}, {}]>)",
            R"(#sdy.sharding<@mesh, [{"y"}, {}]>)"};
        for (std::size_t i = 0; i < g.body.size(); ++i) {
            const Op& op = g.op(g.body[i]);
            QVERIFY(op.kind == (i == 6 ? OpKind::Add : OpKind::CustomCall));
            if (i != 6)
                QCOMPARE(std::get<CustomCallAttributes>(op.attributes).target, std::string("Sharding"));
            QVERIFY(op.sharding);
            QCOMPARE(op.sharding->text, std::string(expected[i]));
        }
        QCOMPARE(g.op(g.body[8]).operands[0], g.op(g.body[7]).results[0]);
        int warned = 0;
        for (const auto& d : result.diagnostics())
            warned += d.code == "stablehlo.shardy-collective";
        QCOMPARE(warned, 6);  // once per kind of collective
        QVERIFY(contains(errorOf(R"(func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a out_sharding=<@mesh, [{}]> tensor<4xf32>
  return %0 : tensor<4xf32>
})"),
                         "test.mlir:2:56: error: expected ':' before the op's type"));
    }

    // Block arguments with locations (manual computations, regions), sdy.constant, arith.constant and
    // sdy.named_computation (inlined, its shardings as reshards).
    void shardyOpsAndBlockArgumentLocations() {
        const Graph g = imported(R"(
module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %c = sdy.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
    %i = arith.constant dense<1> : tensor<1xi64>
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<4xf32> loc("p0.1")) {
      %1 = stablehlo.negate %arg1 : tensor<4xf32>
      sdy.return %1 : tensor<4xf32>
    } : (tensor<8xf32>) -> tensor<8xf32>
    %2 = sdy.named_computation<"scale">(%0, %c) out_shardings=[<@mesh, [{}]>] (%a: tensor<8xf32> loc("a"), %b: tensor<8xf32>) {
      %3 = stablehlo.multiply %a, %b : tensor<8xf32>
      sdy.return %3 : tensor<8xf32>
    } : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %init = stablehlo.constant dense<0.0> : tensor<f32>
    %4 = "stablehlo.reduce"(%2, %init) <{dimensions = array<i64: 0>}> ({
    ^bb0(%x: tensor<f32> loc("x"), %y: tensor<f32> loc(unknown)):
      %5 = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %5 : tensor<f32>
    }) : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %6 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<f32>) -> tensor<8xf32>
    return %6 : tensor<8xf32>
  }
})");
        QVERIFY(g.partitioned);
        QCOMPARE(constantOf(g, 0).values, (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}));
        QCOMPARE(constantOf(g, 1).values, (std::vector<double>{1}));
        QCOMPARE(countOf(g, "multiply"), std::int64_t{1});
        const auto muls = opsOf(g, OpKind::Multiply);
        bool constrained = false;  // the named computation's out_sharding on its result
        for (OpId id : g.body)
            if (g.op(id).kind == OpKind::CustomCall && g.op(id).operands[0] == muls[0]->results[0])
                constrained = g.op(id).sharding && g.op(id).sharding->text == R"(#sdy.sharding<@mesh, [{}]>)";
        QVERIFY(constrained);
        QVERIFY(std::get<ReduceAttributes>(opsOf(g, OpKind::Reduce)[0]->attributes).reducer == Reducer::Add);
    }

    // Tuples are their tensors: stablehlo.tuple and get_tuple_element emit nothing, tuple arguments and
    // results of functions and custom calls become several values. Elsewhere a tuple is refused in one line
    // naming the op.
    void tuplesAreFlattened() {
        const Graph g = imported(R"(
module {
  func.func @main(%arg0: tuple<tensor<4xf32>, tuple<tensor<2xi32>, tensor<f32>>>, %arg1: tensor<3xf32>) -> (tuple<tensor<4xf32>, tensor<3xf32>>, tensor<f32>) {
    %0 = stablehlo.get_tuple_element %arg0[1] : (tuple<tensor<4xf32>, tuple<tensor<2xi32>, tensor<f32>>>) -> tuple<tensor<2xi32>, tensor<f32>>
    %1 = "stablehlo.get_tuple_element"(%0) <{index = 1 : i32}> : (tuple<tensor<2xi32>, tensor<f32>>) -> tensor<f32>
    %2 = stablehlo.custom_call @Split(%arg1, %arg0) : (tensor<3xf32>, tuple<tensor<4xf32>, tuple<tensor<2xi32>, tensor<f32>>>) -> tuple<tensor<3xf32>, tensor<4xf32>>
    %3 = stablehlo.get_tuple_element %2[1] : (tuple<tensor<3xf32>, tensor<4xf32>>) -> tensor<4xf32>
    %4 = call @pair(%3, %arg1) : (tensor<4xf32>, tensor<3xf32>) -> tuple<tensor<4xf32>, tensor<3xf32>>
    %5 = "stablehlo.tuple"(%1) : (tensor<f32>) -> tuple<tensor<f32>>
    %6 = stablehlo.get_tuple_element %5[0] : (tuple<tensor<f32>>) -> tensor<f32>
    return %4, %6 : tuple<tensor<4xf32>, tensor<3xf32>>, tensor<f32>
  }
  func.func private @pair(%a: tensor<4xf32>, %b: tensor<3xf32>) -> tuple<tensor<4xf32>, tensor<3xf32>> {
    %n = stablehlo.negate %a : tensor<4xf32>
    %t = stablehlo.tuple %n, %b : tuple<tensor<4xf32>, tensor<3xf32>>
    return %t : tuple<tensor<4xf32>, tensor<3xf32>>
  }
})");
        QCOMPARE(g.arguments.size(), std::size_t{4});  // the tuple's three tensors, then %arg1
        QCOMPARE(g.arguments[1].name, std::string("%arg0.1"));
        QCOMPARE(g.type(g.arguments[2].value).toString(), std::string("tensor<f32>"));
        const auto calls = opsOf(g, OpKind::CustomCall);
        QCOMPARE(calls.size(), std::size_t{1});
        QCOMPARE(calls[0]->operands.size(), std::size_t{4});
        QCOMPARE(calls[0]->results.size(), std::size_t{2});
        QCOMPARE(g.outputs.size(), std::size_t{3});
        const auto negates = opsOf(g, OpKind::Negate);
        QCOMPARE(negates[0]->operands[0], calls[0]->results[1]);
        QCOMPARE(g.outputs[0].value, negates[0]->results[0]);
        QCOMPARE(g.outputs[1].value, g.arguments[3].value);
        QCOMPARE(g.outputs[2].value, g.arguments[2].value);
        QCOMPARE(errorOf(R"(func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %t = stablehlo.tuple %a, %a : tuple<tensor<4xf32>, tensor<4xf32>>
  %0 = stablehlo.add %t, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
})"),
                 std::string("test.mlir:3:22: error: 'stablehlo.add' cannot take %t, a tuple (only "
                             "func.call, get_tuple_element, "
                             "custom_call, stablehlo.tuple and return take tuples) [stablehlo.syntax]"));
        QVERIFY(contains(errorOf(R"(func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.while"(%a) ({
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%x: tensor<4xf32>):
    stablehlo.return %x : tensor<4xf32>
  }) : (tensor<4xf32>) -> tuple<tensor<4xf32>>
  return %a : tensor<4xf32>
})"),
                         "test.mlir:2:3: error: 'stablehlo.while' returning a tuple is not supported"));
        QVERIFY(contains(errorOf(R"(func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.get_tuple_element %a[0] : (tuple<tensor<4xf32>>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
})"),
                         "test.mlir:2:36: error: 'stablehlo.get_tuple_element': %a is not a tuple"));
    }

    // dense<...> as MLIR writes it: hex blobs of every element type (i1 bit-packed or a byte per element, the
    // length telling which), splats, and lists whose nesting is the type's shape (as MLIR requires).
    void denseHexBlobsAndLiteralShapes() {
        const Graph g = imported(R"(
func.func @main() -> (tensor<2xf64>, tensor<2xf16>, tensor<2xbf16>, tensor<2xi8>, tensor<2xi64>, tensor<2xui16>,
                      tensor<10xi1>, tensor<3xi1>, tensor<4xi1>, tensor<2xcomplex<f32>>, tensor<2xf8E4M3FN>, tensor<3xi32>,
                      tensor<0xf32>, tensor<2x2xf32>) {
  %0 = stablehlo.constant dense<"0x000000000000F03F00000000000000C0"> : tensor<2xf64>
  %1 = stablehlo.constant dense<"0x003C00C0"> : tensor<2xf16>
  %2 = stablehlo.constant dense<"0x803F0040"> : tensor<2xbf16>
  %3 = stablehlo.constant dense<"0x7F80"> : tensor<2xi8>
  %4 = stablehlo.constant dense<"0xFFFFFFFFFFFFFFFF0200000000000000"> : tensor<2xi64>
  %5 = stablehlo.constant dense<"0xFFFF0100"> : tensor<2xui16>
  %6 = stablehlo.constant dense<"0x0502"> : tensor<10xi1>
  %7 = stablehlo.constant dense<"0x010001"> : tensor<3xi1>
  %8 = stablehlo.constant dense<"0xFF"> : tensor<4xi1>
  %9 = stablehlo.constant dense<"0x0000803F000000400000404000008040"> : tensor<2xcomplex<f32>>
  %10 = stablehlo.constant dense<"0x38C0"> : tensor<2xf8E4M3FN>
  %11 = stablehlo.constant dense<"0x07000000"> : tensor<3xi32>
  %12 = stablehlo.constant dense<> : tensor<0xf32>
  %13 = stablehlo.constant dense<[[1.0, 2.0], [0x7FC00000, -0.5]]> : tensor<2x2xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13 : tensor<2xf64>, tensor<2xf16>, tensor<2xbf16>, tensor<2xi8>, tensor<2xi64>, tensor<2xui16>, tensor<10xi1>, tensor<3xi1>, tensor<4xi1>, tensor<2xcomplex<f32>>, tensor<2xf8E4M3FN>, tensor<3xi32>, tensor<0xf32>, tensor<2x2xf32>
})");
        QCOMPARE(constantOf(g, 0).values, (std::vector<double>{1, -2}));
        QCOMPARE(constantOf(g, 1).values, (std::vector<double>{1, -2}));
        QCOMPARE(constantOf(g, 2).values, (std::vector<double>{1, 2}));
        QCOMPARE(constantOf(g, 3).values, (std::vector<double>{127, -128}));
        QCOMPARE(constantOf(g, 4).values, (std::vector<double>{-1, 2}));
        QCOMPARE(constantOf(g, 5).values, (std::vector<double>{65535, 1}));
        QCOMPARE(constantOf(g, 6).values,
                 (std::vector<double>{1, 0, 1, 0, 0, 0, 0, 0, 0, 1}));      // 8 per byte, low bit first
        QCOMPARE(constantOf(g, 7).values, (std::vector<double>{1, 0, 1}));  // a byte each
        QCOMPARE(constantOf(g, 8).values, (std::vector<double>{1}));        // a splat
        QCOMPARE(constantOf(g, 9).values, (std::vector<double>{1, 3}));     // the real parts
        QCOMPARE(constantOf(g, 10).values, (std::vector<double>{1, -2}));
        QCOMPARE(constantOf(g, 11).values, (std::vector<double>{7}));  // a splat of one element's bytes
        QVERIFY(constantOf(g, 12).values.empty());
        const auto& last = constantOf(g, 13).values;
        QCOMPARE(last.size(), std::size_t{4});
        QVERIFY(std::isnan(last[2]) && last[3] == -0.5);
        auto refused = [](const std::string& literal, const std::string& type) {
            return errorOf("func.func @main() -> " + type + " {\n  %0 = stablehlo.constant dense<" + literal +
                           "> : " + type + "\n  return %0 : " + type + "\n}");
        };
        QCOMPARE(
            refused("[1, 2]", "tensor<3xi32>"),
            std::string(
                "test.mlir:2:27: error: dense literal of shape [2] for tensor<3xi32> [stablehlo.syntax]"));
        QVERIFY(contains(refused("[[1, 2], [3, 4]]", "tensor<4xi32>"),
                         "dense literal of shape [2, 2] for tensor<4xi32>"));
        QVERIFY(contains(refused("[[1, 2], [3]]", "tensor<2x2xi32>"), "dense literal of uneven lists"));
        QVERIFY(contains(refused("[[1, 2], 3]", "tensor<2x2xi32>"), "dense literal of uneven nesting"));
        QVERIFY(contains(refused("\"0x0102030405\"", "tensor<3xi1>"),
                         "hex literal of 5 bytes for tensor<3xi1>: expected 1 (8 elements per byte) or 3 (a "
                         "byte per element)"));
        QVERIFY(contains(refused("\"0x010203\"", "tensor<2xf32>"),
                         "hex literal of 3 bytes for tensor<2xf32>: expected 4 (a splat) or 8"));
        QVERIFY(contains(refused("[1, x]", "tensor<2xi32>"), "bad element 'x' in the dense literal"));
    }

    void veryLongLines() {
        std::string signature, uses;
        const int n = 3000;
        for (int i = 0; i < n; ++i) {
            signature += (i ? ", " : "") + ("%arg" + std::to_string(i)) +
                         ": tensor<4xf32> {mhlo.sharding = \"{replicated}\"}";
        }
        std::string body = "  %s0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>\n";
        for (int i = 2; i < n; ++i)
            body += "  %s" + std::to_string(i - 1) + " = stablehlo.add %s" + std::to_string(i - 2) +
                    ", %arg" + std::to_string(i) + " : tensor<4xf32>\n";
        std::string constant = "  %c = stablehlo.constant dense<[";
        for (int i = 0; i < 50000; ++i)
            constant += (i ? ", " : "") + std::to_string(i % 7);
        constant += "]> : tensor<50000xi32>\n";
        const std::string text = "func.func @main(" + signature + ") -> tensor<4xf32> {\n" + constant + body +
                                 "  return %s" + std::to_string(n - 2) + " : tensor<4xf32>\n}\n";
        const Graph g = imported(text);
        QCOMPARE(g.arguments.size(), std::size_t(n));
        QCOMPARE(countOf(g, "add"), std::int64_t{n - 1});
        QCOMPARE(std::get<ConstantAttributes>(g.op(g.body[0]).attributes).values.size(), std::size_t{50000});
    }

    void syntaxErrorsNamePositionAndExpectation_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing type")
            << "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.add %a, %a\n  return "
               "%0 : tensor<4xf32>\n}"
            << "test.mlir:3:3: error: expected ':' before the op's type, found 'return %0 : tensor<4xf32'";
        QTest::newRow("undefined value")
            << "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.add %a, %b : "
               "tensor<4xf32>\n  return %0 : tensor<4xf32>\n}"
            << "test.mlir:2:26: error: use of undefined value %b";
        QTest::newRow("bad element type")
            << "func.func @main(%a: tensor<4xf99>) -> tensor<4xf32> {\n  return %a : tensor<4xf32>\n}"
            << "test.mlir:1:21: error: unsupported element type 'f99'";
        QTest::newRow("dynamic shape")
            << "func.func @main(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {\n  return %a : tensor<?x4xf32>\n}"
            << "error: dynamic dimensions are not supported: tensor<?x4xf32>";
        QTest::newRow("no function") << "module {\n}\n"
                                     << "error: no func.func in the file";
        QTest::newRow("unclosed block") << "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = "
                                           "stablehlo.negate %a : tensor<4xf32>\n"
                                        << "error: unbalanced '{'";
        QTest::newRow("shape mismatch") << "func.func @main(%a: tensor<4xf32>, %b: tensor<5xf32>) -> "
                                           "tensor<4xf32> {\n  %0 = stablehlo.add %a, %b : (tensor<4xf32>, "
                                           "tensor<5xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}"
                                        << "test.mlir:2:3: error: 'stablehlo.add': operand shapes differ: "
                                           "tensor<4xf32> and tensor<5xf32>";
        QTest::newRow("garbage") << "this is not mlir"
                                 << "test.mlir:1:1: error: expected module, func.func or an alias definition";
    }
    void syntaxErrorsNamePositionAndExpectation() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const std::string error = errorOf(text.toStdString());
        QVERIFY2(error.find(message.toStdString()) != std::string::npos, error.c_str());
    }

    // Truncating a real module anywhere, or feeding random bytes, gives an error and never crashes.
    void truncatedAndGarbledInputNeverCrash() {
        auto model = zoo::build(
            *zoo::parseModelSpec("moe:layers=1,d_model=64,heads=4,kv_heads=2,d_ff=64,seq=16,vocab=32"));
        const std::string text = printStableHlo(*model);
        int errors = 0;
        for (std::size_t cut = 0; cut < text.size(); cut += 97) {
            auto r = import::importStableHlo(std::string_view(text).substr(0, cut), "cut.mlir");
            errors += !r.ok();
        }
        QVERIFY(errors > 0);
        std::mt19937 random(7);
        for (int round = 0; round < 200; ++round) {
            std::string garbled = text;
            for (int k = 0; k < 5; ++k)
                garbled[random() % garbled.size()] = static_cast<char>(random() % 128);
            (void)import::importStableHlo(garbled, "garbled.mlir");
            std::string bytes(1 + random() % 200, '\0');
            for (char& c : bytes)
                c = static_cast<char>(random());
            QVERIFY(!import::importStableHlo(bytes, "random.bin").ok());
        }
    }

    // Every shared StableHLO model imports, and its op counts per kind match the file's text.
    void sharedModels_data() {
        QTest::addColumn<QString>("path");
        const QDir dir(shardscope::testing::sharedDir() + QStringLiteral("/models/stablehlo"));
        if (!dir.exists())
            QTest::newRow("absent") << QString();
        for (const QString& name : dir.entryList({"*.mlir"}, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(name)) << dir.filePath(name);
    }
    void sharedModels() {
        QFETCH(QString, path);
        if (path.isEmpty())
            QSKIP("../shared/models/stablehlo is absent (a user's clone has no ../shared)");
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        auto graph = import::importStableHlo(
            std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), path.toStdString());
        QVERIFY2(graph.ok(), graph.errorMessage().c_str());
        for (const auto& d : graph.diagnostics())
            qInfo("%s", d.toString().c_str());
        auto expected = expectedCounts(QString::fromUtf8(bytes));
        // Constants that hold weights are parameters now, not ops.
        for (const auto& d : graph.diagnostics())
            if (d.code == import::kWeightsLiftedCode)
                expected["constant"] -= std::stoll(d.message);
        const auto actual = computeStatistics(*graph).opsByKind;
        QCOMPARE(actual, expected);
        std::int64_t total = 0;
        for (const auto& [kind, n] : actual)
            total += n;
        qInfo("%s: %lld ops, %zu arguments", qPrintable(path.section('/', -1)), static_cast<long long>(total),
              graph->arguments.size());
    }
};

QTEST_APPLESS_MAIN(TestImportStableHlo)
#include "tst_import_stablehlo.moc"
