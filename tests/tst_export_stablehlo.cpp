// StableHLO export (DESIGN.md §8 (a), (b)): shardings written into the user's module text, byte for byte
// where nothing changes, and the round trip: export, re-import, the same shardings, the same ops.
#include <QDir>
#include <QFile>
#include <QtTest>
#include <sstream>

#include "test_support.h"

#include "shardscope/analysis/decision_space.h"
#include "shardscope/export/sharding_text.h"
#include "shardscope/export/stablehlo_export.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/ir/printer.h"
#include "shardscope/model_source.h"
#include "shardscope/plan/experts.h"
#include "shardscope/train/training_step.h"

using namespace shardscope;
using exporting::ShardingFormat;

namespace {

using testing::meshOf;
using testing::shardingOf;



ir::Graph imported(const std::string& text) {
    auto g = import::importStableHlo(text, "test.mlir");
    if (!g)
        qFatal("%s", g.errorMessage().c_str());
    return std::move(g).value();
}

std::vector<std::string> linesOf(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

// A small module: an argument without attributes but with a location, one with a sharding among other
// attributes, a lone result type without parentheses, module attributes, a comment and a private function.
const std::string kModule = R"(// a comment that mentions func.func @main(
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32> loc("x"), %arg1: tensor<4x6xf32> {mhlo.sharding = "{replicated}", jax.arg_info = "w"}) -> tensor<8x6xf32> {
    %0 = call @mm(%arg0, %arg1) : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
    return %0 : tensor<8x6xf32>
  }
  func.func private @mm(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>) -> tensor<8x6xf32> {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
    return %0 : tensor<8x6xf32>
  }
}
)";

exporting::EntryShardings moduleShardings(const mesh::Mesh& mesh) {
    exporting::EntryShardings s;
    s.arguments = {shardingOf(mesh, {{"data"}, {}}), shardingOf(mesh, {{}, {"model"}})};
    s.results = {shardingOf(mesh, {{"data"}, {"model"}})};
    return s;
}

// A plan that shards something: the first expert that does, else the largest group on the first axis that
// takes it. Fails the test when nothing can be sharded.
plan::Plan shardingPlan(const plan::PlanContext& context, const mesh::Mesh& mesh) {
    auto shardsSomething = [&](const plan::Plan& p) {
        const auto applied = plan::applyPlan(context, mesh, p);
        const auto s = exporting::entryShardings(context.graph(), context.space(), applied);
        for (const auto* list : {&s.arguments, &s.results})
            for (const auto& t : *list)
                if (t.mask() != 0)
                    return true;
        return false;
    };
    for (const char* id : {"fsdp-tp", "dp-tp", "megatron", "dp"}) {
        auto p = plan::expertPlan(id, context, mesh);
        if (p && shardsSomething(*p))
            return *p;
    }
    const auto& groups = context.space().groups;
    std::vector<std::uint32_t> order(groups.size());
    for (std::uint32_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return groups[a].bytes > groups[b].bytes; });
    for (auto g : order)
        for (int axis = 0; axis < static_cast<int>(mesh.axes.size()); ++axis) {
            plan::Plan p;
            p.label = "largest group";
            p.decisions.push_back({plan::Decision::Target::Group, g, axis});
            if (shardsSomething(p))
                return p;
        }
    qFatal("no plan shards any argument or result");
}

// Exports `graph` (imported from or printed as `text`) under a sharding plan in `format`, re-imports it and
// checks the round trip: the same annotations, the same op count, and only the module header, the entry
// signature and the mesh declaration changed.
void checkRoundTrip(const std::string& text, const ir::Graph& graph, const std::string& what,
                    ShardingFormat format) {
    const auto mesh = meshOf("data=4,model=2");
    const auto space = analysis::analyze(graph);
    const plan::PlanContext context(graph, space);
    const auto applied = plan::applyPlan(context, mesh, shardingPlan(context, mesh));
    const auto shardings = exporting::entryShardings(graph, space, applied);
    auto exported = exporting::exportStableHlo(text, what, graph, mesh, shardings, format);
    QVERIFY2(exported.ok(), exported.errorMessage().c_str());
    auto again = import::importStableHlo(*exported, what + " (exported)");
    QVERIFY2(again.ok(), again.errorMessage().c_str());
    QCOMPARE(again->arguments.size(), graph.arguments.size());
    QCOMPARE(again->outputs.size(), graph.outputs.size());
    QCOMPARE(again->ops.size(), graph.ops.size());
    QCOMPARE(again->body.size(), graph.body.size());

    std::string meshName = "mesh";
    if (format == ShardingFormat::Shardy) {
        QVERIFY(!again->meshes.empty());
        std::vector<std::pair<std::string, std::int64_t>> axes{{"data", 4}, {"model", 2}};
        bool found = false;
        for (const auto& m : again->meshes)
            if (m.axes == axes)
                found = true, meshName = m.name;
        QVERIFY2(found, what.c_str());
    }
    auto expected = [&](const plan::TensorSharding& s, ir::ValueId v) {
        return format == ShardingFormat::Shardy
                   ? ir::ShardingAnnotation{ir::ShardingAnnotation::Format::Shardy,
                                            exporting::shardySharding(s, mesh, meshName)}
                   : ir::ShardingAnnotation{ir::ShardingAnnotation::Format::Gspmd,
                                            exporting::gspmdSharding(s, graph.type(v).rank(), mesh)};
    };
    int sharded = 0;
    for (std::size_t i = 0; i < graph.arguments.size(); ++i) {
        QVERIFY2(again->arguments[i].sharding.has_value(), (what + " argument " + std::to_string(i)).c_str());
        QCOMPARE(again->arguments[i].sharding->text,
                 expected(shardings.arguments[i], graph.arguments[i].value).text);
        QVERIFY(again->arguments[i].sharding == expected(shardings.arguments[i], graph.arguments[i].value));
        QCOMPARE(again->arguments[i].name, graph.arguments[i].name);
        sharded += shardings.arguments[i].mask() != 0;
    }
    for (std::size_t i = 0; i < graph.outputs.size(); ++i) {
        QVERIFY2(again->outputs[i].sharding.has_value(), (what + " result " + std::to_string(i)).c_str());
        QVERIFY(again->outputs[i].sharding == expected(shardings.results[i], graph.outputs[i].value));
        QCOMPARE(again->outputs[i].aliasedArgument, graph.outputs[i].aliasedArgument);
        sharded += shardings.results[i].mask() != 0;
    }
    QVERIFY(sharded > 0);

    // Nothing else changed: line by line, apart from the inserted mesh line, only the module header and the
    // entry signature differ.
    auto before = linesOf(text);
    auto after = linesOf(*exported);
    if (format == ShardingFormat::Shardy && after.size() == before.size() + 1) {
        const std::string declaration = "  " + exporting::shardyMesh(mesh, meshName);
        auto it = std::find(after.begin(), after.end(), declaration);
        QVERIFY2(it != after.end(), what.c_str());
        after.erase(it);
    }
    QCOMPARE(after.size(), before.size());
    int changed = 0;
    for (std::size_t i = 0; i < before.size(); ++i) {
        if (before[i] == after[i])
            continue;
        ++changed;
        const bool allowed =
            before[i].find("func.func") != std::string::npos || before[i].rfind("module", 0) == 0;
        QVERIFY2(allowed,
                 (what + ": line " + std::to_string(i + 1) + " changed: " + after[i].substr(0, 200)).c_str());
    }
    QVERIFY(changed >= 1 && changed <= 2);
}

QString sharedModels() {
    const QString dir = QStringLiteral(SHARDSCOPE_SHARED_DIR "/models/stablehlo");
    return QDir(dir).exists() ? dir : QString();
}

}  // namespace

class TestExportStableHlo : public QObject {
    Q_OBJECT

private slots:
    void shardyIntoTheUsersText() {
        const auto mesh = meshOf("data=4,model=2");
        const auto graph = imported(kModule);
        auto out = exporting::exportStableHlo(kModule, "m.mlir", graph, mesh, moduleShardings(mesh),
                                              ShardingFormat::Shardy);
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        std::string expected = kModule;
        auto replace = [&](const std::string& from, const std::string& to) {
            const auto at = expected.find(from);
            QVERIFY(at != std::string::npos);
            expected.replace(at, from.size(), to);
        };
        replace("mhlo.num_partitions = 1 :", "mhlo.num_partitions = 8 :");
        replace("i32} {\n", "i32} {\n  sdy.mesh @mesh = <[\"data\"=4, \"model\"=2]>\n");
        replace(R"(%arg0: tensor<8x4xf32> loc("x"))",
                R"(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>} loc("x"))");
        replace(R"({mhlo.sharding = "{replicated}", jax.arg_info = "w"})",
                R"({sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>, jax.arg_info = "w"})");
        replace(R"(-> tensor<8x6xf32> {)",
                R"(-> (tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}) {)");
        QCOMPARE(*out, expected);
        const auto again = imported(*out);
        QCOMPARE(again.arguments[0].sharding->text, std::string(R"(#sdy.sharding<@mesh, [{"data"}, {}]>)"));
        QCOMPARE(again.arguments[1].name, std::string("w"));
        QCOMPARE(again.arguments[0].location.name, std::string("x"));
        QCOMPARE(again.outputs[0].sharding->text,
                 std::string(R"(#sdy.sharding<@mesh, [{"data"}, {"model"}]>)"));
    }

    void gspmdIntoTheUsersText() {
        const auto mesh = meshOf("data=4,model=2");
        const auto graph = imported(kModule);
        auto out = exporting::exportStableHlo(kModule, "m.mlir", graph, mesh, moduleShardings(mesh),
                                              ShardingFormat::Gspmd);
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        const auto lines = linesOf(*out);
        QCOMPARE(lines.size(), linesOf(kModule).size());  // no mesh declaration
        QCOMPARE(lines[1],
                 std::string(
                     "module @m attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {"));
        // The strings JAX writes for P('data', None), P(None, 'model') and P('data', 'model') on data=4,
        // model=2.
        QCOMPARE(
            lines[2],
            std::string(
                R"(  func.func public @main(%arg0: tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1,2]<=[8] last_tile_dim_replicate}"} loc("x"), )"
                R"(%arg1: tensor<4x6xf32> {mhlo.sharding = "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}", jax.arg_info = "w"}) )"
                R"(-> (tensor<8x6xf32> {mhlo.sharding = "{devices=[4,2]<=[8]}"}) {)"));
        const auto again = imported(*out);
        QCOMPARE(again.arguments[1].sharding->format, ir::ShardingAnnotation::Format::Gspmd);
        QCOMPARE(again.arguments[1].sharding->text,
                 std::string("{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}"));
    }

    void replacesTheOtherFormat() {
        // An sdy.sharding becomes an mhlo.sharding (and back); no key is left twice.
        const auto mesh = meshOf("data=4,model=2");
        const auto graph = imported(kModule);
        auto shardy = exporting::exportStableHlo(kModule, "m.mlir", graph, mesh, moduleShardings(mesh),
                                                 ShardingFormat::Shardy);
        QVERIFY(shardy.ok());
        auto gspmd = exporting::exportStableHlo(*shardy, "m.mlir", imported(*shardy), mesh,
                                                moduleShardings(mesh), ShardingFormat::Gspmd);
        QVERIFY(gspmd.ok());
        QVERIFY(gspmd->find("#sdy.sharding") == std::string::npos);
        QVERIFY(gspmd->find("sdy.mesh @mesh") != std::string::npos);  // ops we do not write survive
        auto twice = exporting::exportStableHlo(*shardy, "m.mlir", imported(*shardy), mesh,
                                                moduleShardings(mesh), ShardingFormat::Shardy);
        QVERIFY(twice.ok());
        QCOMPARE(*twice, *shardy);  // the declared mesh is reused, the shardings replaced: a fixed point
    }

    void meshNameInUse() {
        const std::string text = R"(module {
  sdy.mesh @mesh = <["x"=1, "y"=1]>
  func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> (tensor<8xf32>) {
    return %arg0 : tensor<8xf32>
  }
}
)";
        const auto mesh = meshOf("data=4,model=2");
        const auto graph = imported(text);
        exporting::EntryShardings s;
        s.arguments = {shardingOf(mesh, {{"data", "model"}})};
        s.results = {shardingOf(mesh, {{"data", "model"}})};
        auto out = exporting::exportStableHlo(text, "m.mlir", graph, mesh, s, ShardingFormat::Shardy);
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        QVERIFY(out->find(R"(sdy.mesh @mesh = <["x"=1, "y"=1]>)") != std::string::npos);
        QVERIFY(out->find(R"(sdy.mesh @mesh_1 = <["data"=4, "model"=2]>)") != std::string::npos);
        const auto again = imported(*out);
        QCOMPARE(again.arguments[0].sharding->text,
                 std::string(R"(#sdy.sharding<@mesh_1, [{"data", "model"}]>)"));
        QCOMPARE(again.outputs[0].sharding->text,
                 std::string(R"(#sdy.sharding<@mesh_1, [{"data", "model"}]>)"));
    }

    void errorsNameTheLine() {
        const auto mesh = meshOf("data=4,model=2");
        const auto graph = imported(kModule);
        std::string broken = kModule;
        broken.replace(broken.find("jax.arg_info = \"w\"}"), 19, "jax.arg_info = [\"w\"}");
        auto out = exporting::exportStableHlo(broken, "m.mlir", graph, mesh, moduleShardings(mesh),
                                              ShardingFormat::Shardy);
        QVERIFY(!out.ok());
        QCOMPARE(out.diagnostics().front().code, std::string("export.stablehlo"));
        QCOMPARE(out.diagnostics().front().location.line, 3);
        QVERIFY2(out.errorMessage().find("m.mlir:3") != std::string::npos, out.errorMessage().c_str());

        std::string twoArguments = kModule;  // a text that does not match the graph
        twoArguments.replace(twoArguments.find("%arg0: tensor<8x4xf32> loc(\"x\"), "), 32, "");
        out = exporting::exportStableHlo(twoArguments, "m.mlir", graph, mesh, moduleShardings(mesh),
                                         ShardingFormat::Gspmd);
        QVERIFY(!out.ok());
        QVERIFY2(out.errorMessage().find("m.mlir:3") != std::string::npos &&
                     out.errorMessage().find("1 argument") != std::string::npos,
                 out.errorMessage().c_str());

        // The graph knows its arguments' lines in its own file: a shifted text is not its source.
        auto own = import::importStableHlo(kModule, "own.mlir");
        QVERIFY(own.ok());
        QVERIFY(exporting::exportStableHlo(kModule, "own.mlir", *own, mesh, moduleShardings(mesh),
                                           ShardingFormat::Shardy)
                    .ok());
        out = exporting::exportStableHlo("\n" + kModule, "own.mlir", *own, mesh, moduleShardings(mesh),
                                         ShardingFormat::Shardy);
        QVERIFY(!out.ok());
        QVERIFY2(out.errorMessage().find("own.mlir:4") != std::string::npos, out.errorMessage().c_str());

        out = exporting::exportStableHlo("module {\n}\n", "empty.mlir", graph, mesh, moduleShardings(mesh),
                                         ShardingFormat::Gspmd);
        QVERIFY(!out.ok());
        QVERIFY2(out.errorMessage().find("no entry function") != std::string::npos,
                 out.errorMessage().c_str());
    }

    void roundTripSharedModels_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("format");
        const QString dir = sharedModels();
        if (dir.isEmpty())
            return;
        for (const auto& name : QDir(dir).entryList({"*.mlir"}, QDir::Files, QDir::Name)) {
            QTest::newRow(qPrintable(name + " shardy")) << dir + "/" + name << int(ShardingFormat::Shardy);
            QTest::newRow(qPrintable(name + " gspmd")) << dir + "/" + name << int(ShardingFormat::Gspmd);
        }
    }
    void roundTripSharedModels() {
        if (sharedModels().isEmpty())
            QSKIP("../shared/models/stablehlo is absent (a user's clone has no ../shared)");
        QFETCH(QString, path);
        QFETCH(int, format);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const std::string text = file.readAll().toStdString();
        auto model = loadModelBytes(text, path.toStdString());
        QVERIFY2(model.ok(), model.errorMessage().c_str());
        checkRoundTrip(text, model->graph, path.toStdString(), static_cast<ShardingFormat>(format));
    }

    void roundTripZoo_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("train");
        QTest::addColumn<int>("format");
        for (const char* model : {"zoo:demo", "zoo:gpt2-small"})
            for (int format : {int(ShardingFormat::Shardy), int(ShardingFormat::Gspmd)})
                QTest::newRow(qPrintable(QString("%1 %2").arg(model, format == 0 ? "shardy" : "gspmd")))
                    << QString(model) << false << format;
        QTest::newRow("zoo:demo training step shardy")
            << QString("zoo:demo") << true << int(ShardingFormat::Shardy);
    }
    void roundTripZoo() {
        QFETCH(QString, model);
        QFETCH(bool, train);
        QFETCH(int, format);
        auto loaded = loadModel(model.toStdString());
        QVERIFY2(loaded.ok(), loaded.errorMessage().c_str());
        ir::Graph graph = loaded->graph;
        if (train) {
            auto step = train::buildTrainingStep(graph, {});
            QVERIFY2(step.ok(), step.errorMessage().c_str());
            graph = step->graph;
        }
        // The zoo has no source text: the printed graph is the text the plan is written into.
        checkRoundTrip(ir::printStableHlo(graph), graph, model.toStdString(),
                       static_cast<ShardingFormat>(format));
    }
};

QTEST_GUILESS_MAIN(TestExportStableHlo)
#include "tst_export_stablehlo.moc"
