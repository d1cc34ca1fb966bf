// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Reference plans: the shardings a model carries, read back into mesh axes and turned into a plan
// (docs/design.md §8).
#include <QDir>
#include <QFile>
#include <QTest>

#include "shardscope/export/sharding_text.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/plan/reference_plan.h"
#include "test_paths.h"
#include "test_support.h"

using namespace shardscope;

namespace {

using testing::meshOf;

ir::Graph imported(const std::string& text) {
    auto g = import::importStableHlo(text, "test.mlir");
    if (!g)
        qFatal("import: %s", g.errorMessage().c_str());
    return *g;
}

std::string shardyText(const Result<plan::TensorSharding>& sharding, const mesh::Mesh& mesh) {
    return sharding ? sharding->toString(mesh) : "error: " + sharding.errorMessage();
}

std::vector<std::string> warningsOf(const std::vector<Diagnostic>& diagnostics) {
    std::vector<std::string> out;
    for (const auto& d : diagnostics)
        out.push_back(d.message);
    return out;
}

// Every annotated tensor gets back exactly its annotated sharding from the reference plan.
void verifyReproduces(const ir::Graph& graph, const mesh::Mesh& mesh, std::size_t expectedTensors) {
    const auto space = analysis::analyze(graph);
    const auto reference = plan::referencePlan(graph, space, mesh);
    QVERIFY(reference.ok());
    QCOMPARE(warningsOf(reference.diagnostics()), std::vector<std::string>{});
    std::vector<Diagnostic> warnings;
    const auto tensors = plan::annotatedTensors(graph, mesh, warnings);
    QCOMPARE(tensors.size(), expectedTensors);
    const plan::PlanContext context(graph, space);
    const auto applied = plan::applyPlan(context, mesh, *reference);
    for (const auto& tensor : tensors)
        QCOMPARE(applied.sharding(space, tensor.value).toString(mesh), tensor.sharding.toString(mesh));
    for (std::size_t i = 1; i < reference->decisions.size(); ++i)
        QVERIFY(space.names[reference->decisions[i - 1].index].bytes >=
                space.names[reference->decisions[i].index].bytes);
}

}  // namespace

class TestReferencePlan : public QObject {
    Q_OBJECT

private slots:
    void parsesGspmdStrings() {
        using Kind = plan::GspmdTiling::Kind;
        auto t = plan::parseGspmdSharding("{devices=[4,1,2]<=[8] last_tile_dim_replicate}");
        QVERIFY(t.ok());
        QCOMPARE(t->tiles, (std::vector<std::int64_t>{4, 1}));
        QCOMPARE(t->replication, std::int64_t{2});
        QCOMPARE(t->devices, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));

        t = plan::parseGspmdSharding("{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}");
        QVERIFY(t.ok());
        QCOMPARE(t->tiles, (std::vector<std::int64_t>{1, 2}));
        QCOMPARE(t->replication, std::int64_t{4});
        QCOMPARE(t->devices, (std::vector<std::int64_t>{0, 2, 4, 6, 1, 3, 5, 7}));

        t = plan::parseGspmdSharding("{devices=[2,2]0,2,1,3}");
        QVERIFY(t.ok());
        QCOMPARE(t->kind, Kind::Tiled);
        QCOMPARE(t->tiles, (std::vector<std::int64_t>{2, 2}));
        QCOMPARE(t->devices, (std::vector<std::int64_t>{0, 2, 1, 3}));

        t = plan::parseGspmdSharding(
            "{devices=[2,1,2]0,1,2,3 last_tile_dims={replicated} metadata={op_name=\"a{b}\"}}");
        QVERIFY(t.ok());
        QCOMPARE(t->tiles, (std::vector<std::int64_t>{2, 1}));
        QCOMPARE(t->replication, std::int64_t{2});

        QCOMPARE(plan::parseGspmdSharding("{replicated}")->kind, Kind::Replicated);
        t = plan::parseGspmdSharding("{maximal device=3}");
        QCOMPARE(t->kind, Kind::Maximal);
        QCOMPARE(t->device, std::int64_t{3});
    }

    void rejectsBadGspmdStrings_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("too few devices") << "{devices=[2,2]0,1,2}";
        QTest::newRow("repeated device") << "{devices=[2,2]0,1,1,3}";
        QTest::newRow("not a permutation") << "{devices=[4]<=[2,2]T(0,0)}";
        QTest::newRow("unknown form") << "{bogus}";
        QTest::newRow("manual") << "{manual}";
        QTest::newRow("unclosed") << "{devices=[2]<=[2]";
        QTest::newRow("trailing text") << "{replicated} x";
    }
    void rejectsBadGspmdStrings() {
        QFETCH(QString, text);
        const auto t = plan::parseGspmdSharding(text.toStdString());
        QVERIFY(!t.ok());
        QVERIFY2(t.errorMessage().find(text.toStdString()) != std::string::npos, t.errorMessage().c_str());
    }

    // GSPMD strings onto a mesh: the issue's JAX examples, XLA's iota forms, explicit lists, and what fails.
    void gspmdOntoMesh_data() {
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("rank");
        QTest::addColumn<QString>("expected");  // Shardy's form, or a part of the error
        QTest::newRow("P('data', None)")
            << "data=4,model=2"
            << "{devices=[4,1,2]<=[8] last_tile_dim_replicate}" << 2 << R"([{"data"}, {}])";
        QTest::newRow("P(None, 'model')")
            << "data=4,model=2"
            << "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}" << 2 << R"([{}, {"model"}])";
        QTest::newRow("P('model', 'data')")
            << "data=4,model=2"
            << "{devices=[2,4]<=[4,2]T(1,0)}" << 2 << R"([{"model"}, {"data"}])";
        QTest::newRow("P(('model', 'data'))")
            << "data=4,model=2"
            << "{devices=[8]<=[4,2]T(1,0)}" << 1 << R"([{"model", "data"}])";
        QTest::newRow("explicit list") << "data=4,model=2"
                                       << "{devices=[2,4]0,2,4,6,1,3,5,7}" << 2 << R"([{"model"}, {"data"}])";
        QTest::newRow("explicit list, replicated")
            << "a=2,b=2"
            << "{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}" << 2 << R"([{"b"}, {}])";
        QTest::newRow("replicated") << "data=4,model=2"
                                    << "{replicated}" << 3 << "[{}, {}, {}]";
        QTest::newRow("size-1 axis") << "x=1,y=8"
                                     << "{devices=[1,8]<=[8]}" << 2 << R"([{}, {"y"}])";
        QTest::newRow("maximal") << "data=4,model=2"
                                 << "{maximal device=0}" << 2 << "error: maximal";
        QTest::newRow("tile splits an axis")
            << "data=4,model=2"
            << "{devices=[2,4]<=[8]}" << 2 << "error: tile count 2 of dimension 0";
        QTest::newRow("wrong rank") << "data=4,model=2"
                                    << "{devices=[4,2]<=[8]}" << 3 << "error: 2 tile counts";
        QTest::newRow("wrong device count") << "data=4,model=2"
                                            << "{devices=[2]<=[2]}" << 1 << "error: 2 devices";
        QTest::newRow("no mesh walk")
            << "data=4,model=2"
            << "{devices=[8]0,1,2,3,4,5,7,6}" << 1 << "error: the device order matches no assignment";
    }
    void gspmdOntoMesh() {
        QFETCH(QString, mesh);
        QFETCH(QString, text);
        QFETCH(int, rank);
        QFETCH(QString, expected);
        const auto m = meshOf(mesh.toStdString());
        const std::string got = shardyText(plan::gspmdOnMesh(text.toStdString(), rank, m), m);
        if (expected.startsWith(u"error: ")) {
            QVERIFY2(got.find(expected.mid(7).toStdString()) != std::string::npos, got.c_str());
            QVERIFY2(got.find(text.toStdString()) != std::string::npos, got.c_str());
        } else {
            QCOMPARE(QString::fromStdString(got), expected);
            // XLA's canonical iota forms are what gspmdSharding writes back.
            if (text.contains(u"<=") || text == u"{replicated}")
                QCOMPARE(QString::fromStdString(exporting::gspmdSharding(
                             *plan::gspmdOnMesh(text.toStdString(), rank, m), rank, m)),
                         text);
        }
    }

    // Multi-result ops: a GSPMD tuple and Shardy's per-value form give one sharding per result.
    void perResultAnnotations() {
        ir::Graph g;
        g.meshes = {{"mesh", {{"data", 4}, {"model", 2}}}};
        const auto a = g.addValue({{8, 4}, ir::ElementType::F32});
        const auto tuple =
            g.addOp(ir::OpKind::Opaque, {a}, {{{8, 4}, ir::ElementType::F32}, {{8}, ir::ElementType::F32}});
        const auto perValue =
            g.addOp(ir::OpKind::Opaque, {a}, {{{8, 4}, ir::ElementType::F32}, {{4}, ir::ElementType::F32}});
        const auto wrongCount = g.addOp(ir::OpKind::Opaque, {a}, {{{8}, ir::ElementType::F32}});
        g.body = {tuple, perValue, wrongCount};
        g.op(tuple).sharding =
            ir::ShardingAnnotation{ir::ShardingAnnotation::Format::Gspmd,
                                   "{{devices=[4,1,2]<=[8] last_tile_dim_replicate}, {replicated}}"};
        g.op(perValue).sharding = ir::ShardingAnnotation{
            ir::ShardingAnnotation::Format::Shardy,
            R"(#sdy.sharding_per_value<[<@mesh, [{}, {"model"}]>, <@mesh, [{"data"}]>]>)"};
        g.op(wrongCount).sharding =
            ir::ShardingAnnotation{ir::ShardingAnnotation::Format::Gspmd, "{{replicated}, {replicated}}"};
        const auto m = meshOf("data=4,model=2");
        std::vector<Diagnostic> warnings;
        const auto tensors = plan::annotatedTensors(g, m, warnings);
        QCOMPARE(tensors.size(), std::size_t{4});
        QCOMPARE(tensors[0].sharding.toString(m), std::string(R"([{"data"}, {}])"));
        QCOMPARE(tensors[1].sharding.toString(m), std::string("[{}]"));
        QCOMPARE(tensors[2].sharding.toString(m), std::string(R"([{}, {"model"}])"));
        QCOMPARE(tensors[3].sharding.toString(m), std::string(R"([{"data"}])"));
        QCOMPARE(tensors[3].value, g.op(perValue).results[1]);
        QCOMPARE(warnings.size(), std::size_t{1});
        QVERIFY(warnings[0].message.find("2 parts for 1 results") != std::string::npos);
    }

    // gspmdOnMesh inverts gspmdSharding: every sharding of a rank-2 tensor on meshes of 2 and 3 axes.
    void gspmdRoundTrip() {
        for (const std::string spec : {"data=4,model=2", "a=2,b=2,c=2", "x=1,y=8", "a=3,b=2,c=4"}) {
            const auto m = meshOf(spec);
            const int axes = static_cast<int>(m.axes.size());
            std::vector<int> perm(static_cast<std::size_t>(axes));
            for (int i = 0; i < axes; ++i)
                perm[static_cast<std::size_t>(i)] = i;
            int checked = 0;
            do {
                int labelings = 1;
                for (int i = 0; i < axes; ++i)
                    labelings *= 3;
                for (int labels = 0; labels < labelings; ++labels) {
                    plan::TensorSharding sharding, expected;
                    sharding.dimensions.resize(2);
                    expected.dimensions.resize(2);
                    int code = labels;
                    for (const int axis : perm) {
                        const int where = code % 3;  // 0: unused, 1: dimension 0, 2: dimension 1
                        code /= 3;
                        if (where == 0)
                            continue;
                        sharding.dimensions[static_cast<std::size_t>(where - 1)].push(axis);
                        if (m.axes[static_cast<std::size_t>(axis)].size > 1)
                            expected.dimensions[static_cast<std::size_t>(where - 1)].push(axis);
                    }
                    const std::string text = exporting::gspmdSharding(sharding, 2, m);
                    const auto back = plan::gspmdOnMesh(text, 2, m);
                    QVERIFY2(back.ok(), (spec + " " + text + ": " + back.errorMessage()).c_str());
                    QCOMPARE(back->toString(m), expected.toString(m));
                    ++checked;
                }
            } while (std::next_permutation(perm.begin(), perm.end()));
            QVERIFY(checked > 0);
        }
    }

    void parsesShardyStrings() {
        auto s = plan::parseShardySharding(R"(#sdy.sharding<@mesh, [{"data"}, {}, {"model", "x"}]>)");
        QVERIFY(s.ok());
        QCOMPARE(s->mesh, std::string("mesh"));
        QCOMPARE(s->dimensions, (std::vector<std::vector<std::string>>{{"data"}, {}, {"model", "x"}}));
        s = plan::parseShardySharding(R"(<@m2, [{"x", ?}, {?}p1, {}], replicated={"y"}>)");
        QVERIFY(s.ok());
        QCOMPARE(s->mesh, std::string("m2"));
        QCOMPARE(s->dimensions, (std::vector<std::vector<std::string>>{{"x"}, {}, {}}));
        QCOMPARE(plan::parseShardySharding("#sdy.sharding<@mesh, []>")->dimensions.size(), std::size_t{0});
        for (const char* bad :
             {R"(#sdy.sharding<@mesh, [{"x":(1)2}]>)", R"(#sdy.sharding<mesh<["x"=2]>, [{"x"}]>)",
              R"(#sdy.sharding<@mesh, [{x}]>)"}) {
            const auto r = plan::parseShardySharding(bad);
            QVERIFY2(!r.ok(), bad);
            QVERIFY2(r.errorMessage().find(bad) != std::string::npos, r.errorMessage().c_str());
        }
    }

    void shardyOntoMesh() {
        const std::vector<ir::MeshDeclaration> declared{{"mesh", {{"data", 4}, {"model", 2}, {"one", 1}}}};
        const auto m = meshOf("data=4,model=2");
        const auto on = [&](const char* text, int rank) {
            return shardyText(plan::shardyOnMesh(text, rank, declared, m), m);
        };
        QCOMPARE(on(R"(#sdy.sharding<@mesh, [{"model", "data"}, {"one"}]>)", 2),
                 std::string(R"([{"model", "data"}, {}])"));
        QVERIFY(on(R"(#sdy.sharding<@other, [{}]>)", 1).find("no mesh @other") != std::string::npos);
        QVERIFY(on(R"(#sdy.sharding<@mesh, [{"z"}]>)", 1).find("has no axis 'z'") != std::string::npos);
        QVERIFY(on(R"(#sdy.sharding<@mesh, [{}]>)", 2).find("1 dimensions for a tensor of rank 2") !=
                std::string::npos);
        const auto small = meshOf("data=2,model=2");
        QVERIFY(
            shardyText(plan::shardyOnMesh(R"(#sdy.sharding<@mesh, [{"data"}]>)", 1, declared, small), small)
                .find("has size 4") != std::string::npos);
        const auto other = meshOf("data=4");
        QVERIFY(
            shardyText(plan::shardyOnMesh(R"(#sdy.sharding<@mesh, [{"model"}]>)", 1, declared, other), other)
                .find("has no axis 'model'") != std::string::npos);
    }

    // Shardy and GSPMD annotations of a matmul: the reference plan reproduces every one of them.
    void referencePlanReproducesShardy() {
        const auto g = imported(R"(
module @m {
  sdy.mesh @mesh = <["data"=4, "model"=2]>
  func.func @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                  %arg1: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>})
      -> (tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {"model"}]> : tensor<8x32xf32>
    return %1 : tensor<8x32xf32>
  }
})");
        verifyReproduces(g, meshOf("data=4,model=2"), 4);
        const auto space = analysis::analyze(g);
        QCOMPARE(plan::referencePlan(g, space, meshOf("data=4,model=2"))->decisions.size(), std::size_t{2});
    }

    void referencePlanReproducesGspmd() {
        const auto g = imported(R"(
module @m {
  func.func @main(%arg0: tensor<8x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[8] last_tile_dim_replicate}"},
                  %arg1: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}"},
                  %arg2: tensor<32x8xf32> {mhlo.sharding = "{devices=[8,1]<=[4,2]T(1,0)}"})
      -> (tensor<8x32xf32> {mhlo.sharding = "{devices=[4,2]0,1,2,3,4,5,6,7}"}, tensor<32x8xf32> {mhlo.sharding = "{devices=[8,1]<=[4,2]T(1,0)}"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    return %0, %arg2 : tensor<8x32xf32>, tensor<32x8xf32>
  }
})");
        verifyReproduces(g, meshOf("data=4,model=2"), 5);
        const auto space = analysis::analyze(g);
        const auto reference = plan::referencePlan(g, space, meshOf("data=4,model=2"));
        QCOMPARE(reference->decisions.size(),
                 std::size_t{4});  // batch:data, n:model, arg2 dim 0: model then data
        QCOMPARE(reference->label, std::string("reference"));
    }

    // A dimension made of several names (heads × head size, reshaped): the axes tile it major first, so the
    // first axis fills the major name and the next one shards the minor name (an exported fsdp-tp bias).
    void referencePlanSplitsAxesOverNames() {
        const auto g = imported(R"(
module @m {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%arg0: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model", "data"}]>},
                  %arg1: tensor<4x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {"data"}]>})
      -> tensor<4x64xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<256xf32>) -> tensor<4x64xf32>
    %1 = stablehlo.add %0, %arg1 : tensor<4x64xf32>
    return %1 : tensor<4x64xf32>
  }
})");
        const auto m = meshOf("data=2,model=4");
        verifyReproduces(g, m, 2);
        // Axes that do not tile the names major first (data would split the size-4 name in two) are a
        // warning.
        const auto h = imported(R"(
module @m {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @main(%arg0: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data", "model"}]>},
                  %arg1: tensor<4x64xf32>) -> tensor<4x64xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<256xf32>) -> tensor<4x64xf32>
    %1 = stablehlo.add %0, %arg1 : tensor<4x64xf32>
    return %1 : tensor<4x64xf32>
  }
})");
        const auto space = analysis::analyze(h);
        const auto reference = plan::referencePlan(h, space, m);
        QVERIFY(reference.ok());
        const auto warnings = warningsOf(reference.diagnostics());
        QVERIFY(!warnings.empty());
        QVERIFY2(warnings.front().find("do not tile its names major to minor") != std::string::npos,
                 warnings.front().c_str());
    }

    // What a plan cannot say is a warning, not an error; the rest of the plan stands.
    void referencePlanWarnsWhatItCannotExpress() {
        const auto g = imported(R"(
module @m {
  sdy.mesh @mesh = <["data"=4, "model"=2, "pipe"=2]>
  func.func @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                  %arg1: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>},
                  %arg2: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"pipe"}]>},
                  %arg3: tensor<8x16xf32> {mhlo.sharding = "{maximal device=0}"})
      -> tensor<8x16xf32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<8x16xf32>
    %1 = stablehlo.add %0, %arg2 : tensor<8x16xf32>
    %2 = stablehlo.add %1, %arg3 : tensor<8x16xf32>
    return %2 : tensor<8x16xf32>
  }
})");
        const auto m = meshOf("data=4,model=2");
        const auto space = analysis::analyze(g);
        const auto reference = plan::referencePlan(g, space, m);
        QVERIFY(reference.ok());
        const auto warnings = warningsOf(reference.diagnostics());
        const auto mentions = [&](const std::string& part) {
            return std::any_of(warnings.begin(), warnings.end(),
                               [&](const std::string& w) { return w.find(part) != std::string::npos; });
        };
        QVERIFY2(mentions("no axis 'pipe'"), warnings.empty() ? "" : warnings.front().c_str());
        QVERIFY(mentions("maximal"));
        QVERIFY(mentions("dimension 0 shards name"));  // the two adds tie arg0 and arg1: data vs model
        QVERIFY(mentions(R"(is annotated [{"model"}, {}] but the reference plan gives [{"data"}, {}])"));
        for (const auto& d : reference.diagnostics()) {
            QCOMPARE(d.severity, Severity::Warning);
            QCOMPARE(d.code, std::string("reference.unexpressible"));
        }
        QCOMPARE(reference->decisions.size(), std::size_t{1});
        QCOMPARE(reference->decisions[0].axis, *m.axisIndex("data"));
    }

    // sdy.manual_computation's boundary shardings: in_shardings on identity ops (Sharding custom calls, as a
    // sharding constraint imports) feeding its body's global program, out_shardings on identity ops after it;
    // the reference plan reproduces them all.
    void manualComputationShardings() {
        const auto g = imported(R"(
module @m {
  sdy.mesh @mesh = <["data"=4, "model"=2]>
  func.func @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16x32xf32>) -> tensor<8x32xf32> {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"data"}, {}]>, <@mesh, [{}, {"model"}]>] out_shardings=[<@mesh, [{"data"}, {"model"}]>] manual_axes={"data"} (%a: tensor<2x16xf32>, %b: tensor<16x32xf32>) {
      %1 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x16xf32>, tensor<16x32xf32>) -> tensor<2x32xf32>
      sdy.return %1 : tensor<2x32xf32>
    } : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    return %0 : tensor<8x32xf32>
  }
})");
        QVERIFY(g.partitioned);  // manual over "data": turned back into its global program
        QCOMPARE(g.body.size(), std::size_t{4});
        const ir::Op& dot = g.op(g.body[2]);
        QCOMPARE(int(dot.kind), int(ir::OpKind::DotGeneral));
        QCOMPARE(g.type(dot.results[0]).shape, (ir::Shape{8, 32}));
        for (std::size_t i = 0; i < 2; ++i) {
            const ir::Op& identity = g.op(g.body[i]);
            QCOMPARE(int(identity.kind), int(ir::OpKind::CustomCall));
            QCOMPARE(std::get<ir::CustomCallAttributes>(identity.attributes).target, std::string("Sharding"));
            QCOMPARE(identity.operands.front(), g.arguments[i].value);
            QCOMPARE(dot.operands[i], identity.results.front());
        }
        QCOMPARE(g.op(g.body[0]).sharding->text, std::string(R"(#sdy.sharding<@mesh, [{"data"}, {}]>)"));
        QCOMPARE(g.op(g.body[1]).sharding->text, std::string(R"(#sdy.sharding<@mesh, [{}, {"model"}]>)"));
        QCOMPARE(g.op(g.body[3]).sharding->text,
                 std::string(R"(#sdy.sharding<@mesh, [{"data"}, {"model"}]>)"));
        QCOMPARE(g.op(g.body[3]).operands.front(), dot.results.front());

        const auto m = meshOf("data=4,model=2");
        std::vector<Diagnostic> warnings;
        const auto tensors = plan::annotatedTensors(g, m, warnings);
        QVERIFY(warnings.empty());
        QCOMPARE(tensors.size(), std::size_t{3});
        QCOMPARE(tensors[2].sharding.toString(m), std::string(R"([{"data"}, {"model"}])"));
        verifyReproduces(g, m, 3);
        const auto reference = plan::referencePlan(g, analysis::analyze(g), m);
        QCOMPARE(reference->decisions.size(), std::size_t{2});  // the rows on "data", the columns on "model"
    }

    void noAnnotationsGiveAnEmptyPlan() {
        const auto g = imported(R"(
func.func @main(%arg0: tensor<8xf32> {mhlo.sharding = "{replicated}"}) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
})");
        const auto reference = plan::referencePlan(g, analysis::analyze(g), meshOf("data=8"));
        QVERIFY(reference.ok());
        QVERIFY(reference->decisions.empty());
        QVERIFY(reference.diagnostics().empty());
    }

    // The shared StableHLO models that carry shardings (or meshes) all give a reference plan without
    // warnings; the fully replicated ones an empty plan.
    void sharedModels() {
        const QDir dir(shardscope::testing::sharedDir() + QStringLiteral("/models/stablehlo"));
        if (!dir.exists())
            QSKIP("../shared/models/stablehlo is absent (a user's clone has no ../shared)");
        int annotatedModels = 0;
        for (const QString& file : dir.entryList({QStringLiteral("*.mlir")}, QDir::Files, QDir::Name)) {
            QFile f(dir.filePath(file));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray bytes = f.readAll();
            if (!bytes.contains("sharding") && !bytes.contains("sdy.mesh"))
                continue;
            ++annotatedModels;
            const auto g = import::importStableHlo(bytes.toStdString(), file.toStdString());
            QVERIFY2(g.ok(), g.errorMessage().c_str());
            const auto m = meshOf("data=4,model=2");
            const auto space = analysis::analyze(*g);
            const auto reference = plan::referencePlan(*g, space, m);
            QVERIFY(reference.ok());
            const auto warnings = warningsOf(reference.diagnostics());
            QVERIFY2(warnings.empty(),
                     (file.toStdString() + ": " + (warnings.empty() ? "" : warnings.front())).c_str());
            std::vector<Diagnostic> unused;
            const auto tensors = plan::annotatedTensors(*g, m, unused);
            if (bytes.contains("sharding = "))
                QVERIFY2(!tensors.empty(), file.toUtf8().constData());
            const bool replicated = std::all_of(tensors.begin(), tensors.end(),
                                                [](const auto& t) { return t.sharding.mask() == 0; });
            if (replicated)
                QVERIFY2(reference->decisions.empty(), file.toUtf8().constData());
            else
                QVERIFY(!reference->decisions.empty());
        }
        QVERIFY(annotatedModels >= 2);
    }
};

QTEST_APPLESS_MAIN(TestReferencePlan)
#include "tst_reference_plan.moc"
