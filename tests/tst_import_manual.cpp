// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// sdy.manual_computation turned back into its global program (issue 19 part 5): local shapes scaled by the
// in/out shardings, the collectives the global ops already mean dropped, the shardings kept for the reference
// plan; what has no global meaning refused in one line. And the corpus's manual computations counted.
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QtTest>
#include <map>

#include "test_paths.h"
#include "test_support.h"

#include "shardscope/analysis/decision_space.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/ir/statistics.h"
#include "shardscope/plan/reference_plan.h"

using namespace shardscope;
using testing::meshOf;

namespace {

ir::Graph imported(const std::string& text) {
    auto g = import::importStableHlo(text, "test.mlir");
    if (!g)
        qFatal("import: %s", g.errorMessage().c_str());
    return *g;
}

std::vector<const ir::Op*> opsOf(const ir::Graph& g, ir::OpKind kind) {
    std::vector<const ir::Op*> out;
    for (const ir::OpId id : g.body)
        if (g.op(id).kind == kind)
            out.push_back(&g.op(id));
    return out;
}

std::int64_t collectives(const ir::Graph& g) {
    std::int64_t n = 0;
    for (const ir::OpId id : g.allOpsInOrder())
        n += ir::category(g.op(id).kind) == ir::OpCategory::Collective;
    return n;
}

// The reference plan gives every annotated tensor (the in_shardings' identities, the out_shardings' ones)
// exactly its annotation.
void verifyReproduces(const ir::Graph& graph, const mesh::Mesh& mesh, std::size_t expectedTensors) {
    const auto space = analysis::analyze(graph);
    const auto reference = plan::referencePlan(graph, space, mesh);
    QVERIFY(reference.ok());
    for (const auto& d : reference.diagnostics())
        QVERIFY2(d.severity != Severity::Warning, d.message.c_str());
    std::vector<Diagnostic> warnings;
    const auto tensors = plan::annotatedTensors(graph, mesh, warnings);
    QVERIFY(warnings.empty());
    QCOMPARE(tensors.size(), expectedTensors);
    const plan::PlanContext context(graph, space);
    const auto applied = plan::applyPlan(context, mesh, *reference);
    for (const auto& tensor : tensors)
        QCOMPARE(applied.sharding(space, tensor.value).toString(mesh), tensor.sharding.toString(mesh));
}

// The annotation the importer put on the Sharding identity feeding `value` (or fed by it).
std::string identityAnnotation(const ir::Graph& g, ir::ValueId operand) {
    for (const ir::OpId id : g.body) {
        const ir::Op& op = g.op(id);
        if (op.kind == ir::OpKind::CustomCall && op.operands.size() == 1 && op.operands[0] == operand &&
            op.sharding)
            return op.sharding->text;
    }
    return {};
}

const char* kAllReduceRegion = R"(({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %s = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }))";

}  // namespace

class TestImportManual : public QObject {
    Q_OBJECT

private slots:
    // x·w with the contraction split over "x" (and w's columns over "y"): the local dot leaves partial sums
    // that an all_reduce over "x" adds up. Globally: one dot of the whole operands, no collective.
    void shardedMatmulWithAllReduce() {
        const std::string text =
            std::string(R"(module {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16x32xf32>) -> tensor<8x32xf32> {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{}, {"x"}]>, <@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{}, {"y"}]>] manual_axes={"x", "y"} (%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) {
      %1 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
      %2 = "stablehlo.all_reduce"(%1) )") +
            kAllReduceRegion +
            R"( {replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
      sdy.return %2 : tensor<8x8xf32>
    } : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    return %0 : tensor<8x32xf32>
  }
})";
        const ir::Graph g = imported(text);
        QVERIFY(g.partitioned);
        QCOMPARE(collectives(g), std::int64_t{0});
        const auto dots = opsOf(g, ir::OpKind::DotGeneral);
        QCOMPARE(dots.size(), std::size_t{1});
        QCOMPARE(g.type(dots[0]->operands[0]), (ir::TensorType{{8, 16}, ir::ElementType::F32}));
        QCOMPARE(g.type(dots[0]->operands[1]), (ir::TensorType{{16, 32}, ir::ElementType::F32}));
        QCOMPARE(g.type(dots[0]->results[0]), (ir::TensorType{{8, 32}, ir::ElementType::F32}));
        const ir::Graph plain = imported(R"(module {
  func.func @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16x32xf32>) -> tensor<8x32xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    return %0 : tensor<8x32xf32>
  }
})");
        QCOMPARE(ir::computeStatistics(g).flops, ir::computeStatistics(plain).flops);
        QCOMPARE(identityAnnotation(g, g.arguments[0].value),
                 std::string(R"(#sdy.sharding<@mesh, [{}, {"x"}]>)"));
        QCOMPARE(identityAnnotation(g, dots[0]->results[0]),
                 std::string(R"(#sdy.sharding<@mesh, [{}, {"y"}]>)"));
        verifyReproduces(g, meshOf("x=2,y=4"), 3);
    }

    // FSDP's pattern: the batch and the weight's rows split over one axis "x"; the weight is gathered before
    // the dot. Globally the dot reads the whole weight; the batch keeps the axis (it is the larger name, so
    // it wins).
    void allGatherBeforeDot() {
        const ir::Graph g = imported(R"(module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%arg0: tensor<32x16xf32>, %arg1: tensor<16x8xf32>) -> tensor<32x8xf32> {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%a: tensor<16x16xf32>, %w: tensor<8x8xf32>) {
      %1 = "stablehlo.all_gather"(%w) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<8x8xf32>) -> tensor<16x8xf32>
      %2 = stablehlo.dot_general %a, %1, contracting_dims = [1] x [0] : (tensor<16x16xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
      %3 = stablehlo.tanh %2 : tensor<16x8xf32>
      sdy.return %3 : tensor<16x8xf32>
    } : (tensor<32x16xf32>, tensor<16x8xf32>) -> tensor<32x8xf32>
    return %0 : tensor<32x8xf32>
  }
})");
        QCOMPARE(collectives(g), std::int64_t{0});
        const auto dots = opsOf(g, ir::OpKind::DotGeneral);
        QCOMPARE(dots.size(), std::size_t{1});
        QCOMPARE(g.type(dots[0]->operands[0]).shape, (ir::Shape{32, 16}));
        QCOMPARE(g.type(dots[0]->operands[1]).shape, (ir::Shape{16, 8}));
        QCOMPARE(g.type(dots[0]->results[0]).shape, (ir::Shape{32, 8}));
        QCOMPARE(g.type(opsOf(g, ir::OpKind::Tanh)[0]->results[0]).shape, (ir::Shape{32, 8}));
        const ir::Graph plain = imported(R"(module {
  func.func @main(%arg0: tensor<32x16xf32>, %arg1: tensor<16x8xf32>) -> tensor<32x8xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<32x16xf32>, tensor<16x8xf32>) -> tensor<32x8xf32>
    %1 = stablehlo.tanh %0 : tensor<32x8xf32>
    return %1 : tensor<32x8xf32>
  }
})");
        QCOMPARE(ir::computeStatistics(g).flops, ir::computeStatistics(plain).flops);
        verifyReproduces(g, meshOf("x=2"), 3);
    }

    // Megatron's row-parallel layer with sequence parallelism: partial sums reduce-scattered over "x" along
    // the rows; and the same with Shardy's own collectives over manual axes (sdy.all_gather,
    // sdy.reduce_scatter).
    void reduceScatter() {
        const std::string text =
            std::string(R"(module {
  sdy.mesh @mesh = <["x"=4]>
  func.func @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16x32xf32>) -> tensor<8x32xf32> {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{}, {"x"}]>, <@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%a: tensor<8x4xf32>, %b: tensor<4x32xf32>) {
      %1 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x32xf32>) -> tensor<8x32xf32>
      %2 = "stablehlo.reduce_scatter"(%1) )") +
            kAllReduceRegion +
            R"( {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<8x32xf32>) -> tensor<2x32xf32>
      sdy.return %2 : tensor<2x32xf32>
    } : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    return %0 : tensor<8x32xf32>
  }
})";
        const ir::Graph g = imported(text);
        QCOMPARE(collectives(g), std::int64_t{0});
        const auto dots = opsOf(g, ir::OpKind::DotGeneral);
        QCOMPARE(dots.size(), std::size_t{1});
        QCOMPARE(g.type(dots[0]->results[0]).shape, (ir::Shape{8, 32}));
        QCOMPARE(g.type(g.outputs[0].value).shape, (ir::Shape{8, 32}));
        QCOMPARE(ir::computeStatistics(g).flops, 2.0 * 8 * 16 * 32);
        verifyReproduces(g, meshOf("x=4"), 3);

        const ir::Graph shardy = imported(R"(module {
  sdy.mesh @mesh = <["x"=4]>
  func.func @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16x32xf32>) -> tensor<8x32xf32> {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%a: tensor<2x16xf32>, %b: tensor<4x32xf32>) {
      %1 = sdy.all_gather [{"x"}, {}] %b out_sharding=<@mesh, [{}, {}]> : tensor<16x32xf32>
      %2 = sdy.all_to_all [{}: 0->1] %a out_sharding=<@mesh, [{}, {}]> : tensor<2x16xf32>
      %3 = stablehlo.dot_general %2, %1, contracting_dims = [1] x [0] : (tensor<2x16xf32>, tensor<16x32xf32>) -> tensor<2x32xf32>
      sdy.return %3 : tensor<2x32xf32>
    } : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    return %0 : tensor<8x32xf32>
  }
})");
        QCOMPARE(shardy.type(opsOf(shardy, ir::OpKind::DotGeneral)[0]->operands[1]).shape,
                 (ir::Shape{16, 32}));
        QCOMPARE(shardy.type(opsOf(shardy, ir::OpKind::DotGeneral)[0]->results[0]).shape, (ir::Shape{8, 32}));
        QCOMPARE(ir::computeStatistics(shardy).flops, 2.0 * 8 * 16 * 32);
    }

    // Manual over no axis: the body is global already (its Shardy collectives reshards), and is inlined.
    void noManualAxesInlines() {
        const ir::Graph g = imported(R"(module {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func @main(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{}, {"y"}]>] manual_axes={} (%a: tensor<8x16xf32>) {
      %1 = stablehlo.exponential %a : tensor<8x16xf32>
      %2 = sdy.all_to_all [{"x"}: 0->1] %1 out_sharding=<@mesh, [{}, {"x"}]> : tensor<8x16xf32>
      sdy.return %2 : tensor<8x16xf32>
    } : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
})");
        QVERIFY(!g.partitioned);
        QCOMPARE(opsOf(g, ir::OpKind::Exponential).size(), std::size_t{1});
        QCOMPARE(opsOf(g, ir::OpKind::Opaque).size(), std::size_t{0});
        QCOMPARE(ir::computeStatistics(g).flops, 8.0 * 16);
    }

    // What has no global meaning is refused in one line that says why, at the op concerned.
    void refusals_data() {
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("why");
        QTest::newRow("replicated operand reused per shard")
            << R"(%c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
      %1 = stablehlo.multiply %a, %c : tensor<4xf32>
      sdy.return %1 : tensor<4xf32>)"
            << R"('stablehlo.multiply' puts)";
        QTest::newRow("all_reduce of copies") << R"(%1 = "stablehlo.all_reduce"(%a) ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %s = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
      sdy.return %1 : tensor<4xf32>)"
                                              << "it would add up copies";
        QTest::newRow("collective_permute")
            << R"(%1 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
      sdy.return %1 : tensor<4xf32>)"
            << "a ring or halo step";
        QTest::newRow("slice across shards")
            << R"(%1 = stablehlo.slice %a [0:2] : (tensor<4xf32>) -> tensor<2xf32>
      %2 = stablehlo.concatenate %1, %1, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
      sdy.return %2 : tensor<4xf32>)"
            << "whole dimension";
        QTest::newRow("device index") << R"(%i = "stablehlo.partition_id"() : () -> tensor<ui32>
      %1 = stablehlo.convert %i : (tensor<ui32>) -> tensor<f32>
      %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %3 = stablehlo.add %a, %2 : tensor<4xf32>
      sdy.return %3 : tensor<4xf32>)"
                                      << "the device's own index";
    }
    void refusals() {
        QFETCH(QString, body);
        QFETCH(QString, why);
        const std::string text = R"(module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%a: tensor<4xf32>) {
      )" + body.toStdString() + R"(
    } : (tensor<8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
})";
        const auto g = import::importStableHlo(text, "test.mlir");
        QVERIFY(!g.ok());
        QCOMPARE(g.diagnostics().size(), std::size_t{1});
        const Diagnostic& d = g.diagnostics().front();
        QCOMPARE(d.code, std::string("stablehlo.manual-computation"));
        QVERIFY2(d.message.rfind("sdy.manual_computation has no global program: ", 0) == 0,
                 d.message.c_str());
        QVERIFY2(d.message.find(why.toStdString()) != std::string::npos, d.message.c_str());
        QVERIFY(d.toString().find('\n') == std::string::npos);
        QVERIFY(d.location.line >= 5);  // at the op in the body, not at the module
    }

    // Every manual computation of the corpus (split at `// -----`, each function of a module with several): a
    // global program or one line saying why not; none stays an opaque op.
    void corpusManualComputations() {
        const QString root = shardscope::testing::sharedDir() + QStringLiteral("/corpus/ttmlir-stablehlo");
        if (!QFileInfo::exists(root))
            QSKIP("../shared/corpus/ttmlir-stablehlo is absent (a user's clone has no ../shared)");
        QStringList files;
        QDirIterator it(root, {"*.mlir"}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext())
            files << it.next();
        files.sort();
        const QRegularExpression marker(QStringLiteral(R"(^// -----\s*$)"),
                                        QRegularExpression::MultilineOption);
        const QRegularExpression written(QStringLiteral(R"(^[^/\n]*sdy\.manual_computation\()"),
                                         QRegularExpression::MultilineOption);
        int global = 0, manual = 0, refused = 0;
        std::map<std::string, std::vector<std::string>> why;
        for (const QString& path : files) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QStringList pieces = QString::fromUtf8(file.readAll()).split(marker);
            for (int i = 0; i < pieces.size(); ++i) {
                if (!written.match(pieces[i]).hasMatch())
                    continue;
                const std::string name =
                    QDir(root).relativeFilePath(path).toStdString() + "#" + std::to_string(i);
                const std::string text = pieces[i].toStdString();
                std::vector<std::string> entries{""};
                if (auto functions = import::stableHloFunctions(text, name);
                    functions && functions->size() > 1 && text.find("@main(") == std::string::npos)
                    entries = *functions;
                for (const auto& entry : entries) {
                    import::ImportOptions options;
                    options.entryFunction = entry;
                    const auto g = import::importStableHlo(text, name, options);
                    const std::string label = name + (entry.empty() ? "" : " @" + entry);
                    if (g) {
                        ++global;
                        manual += g->partitioned;
                        QCOMPARE(opsOf(*g, ir::OpKind::Opaque).size(), std::size_t{0});
                        QCOMPARE(collectives(*g), std::int64_t{0});
                        qInfo("  global program: %s (%s, %.0f FLOPs)", label.c_str(),
                              g->partitioned ? "manual axes given up" : "manual over no axis",
                              ir::computeStatistics(*g).flops);
                        continue;
                    }
                    ++refused;
                    QCOMPARE(g.diagnostics().size(), std::size_t{1});
                    QVERIFY(g.diagnostics().front().toString().find('\n') == std::string::npos);
                    why[g.diagnostics().front().message].push_back(label);
                }
            }
        }
        qInfo(
            "corpus manual computations: %d become global programs (%d of them manual over some axis), %d "
            "are "
            "refused",
            global, manual, refused);
        for (const auto& [message, names] : why) {
            qInfo("  %zu x %s", names.size(), message.c_str());
            for (const auto& n : names)
                qInfo("      %s", n.c_str());
        }
        QVERIFY(global >= 8);
        QVERIFY(refused <= 2);
    }
};

QTEST_GUILESS_MAIN(TestImportManual)
#include "tst_import_manual.moc"
