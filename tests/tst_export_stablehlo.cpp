// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// StableHLO export (docs/export.md (a), (b)): shardings written into the user's module text, byte for byte
// where nothing changes, and the round trip: export, re-import, the same shardings, the same ops.
#include <QDir>
#include <QFile>
#include <QtTest>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "test_paths.h"
#include "test_support.h"

#include "shardscope/analysis/decision_space.h"
#include "shardscope/export/sharding_text.h"
#include "shardscope/export/stablehlo_export.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/ir/printer.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/reference_plan.h"
#include "shardscope/session/model_source.h"
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

bool isShardingCall(const ir::Op& op) {
    const auto* call = std::get_if<ir::CustomCallAttributes>(&op.attributes);
    return op.kind == ir::OpKind::CustomCall && call && call->target == "Sharding";
}

// The value a statement inserted by the export constrains and the name it gives it: `%new =
// sdy.sharding_constraint %old <...>` or `%new = stablehlo.custom_call @Sharding(%old) ...`; nullopt for
// other lines.
std::optional<std::pair<std::string, std::string>> insertedConstraint(const std::string& line) {
    static const std::regex shardy(R"(^\s*(%sharded_[\w$.-]*) = sdy\.sharding_constraint (%[\w$.#-]+) <)");
    static const std::regex gspmd(
        R"(^\s*(%sharded_[\w$.-]*) = stablehlo\.custom_call @Sharding\((%[\w$.#-]+)\))");
    std::smatch m;
    if (std::regex_search(line, m, shardy) || std::regex_search(line, m, gspmd))
        return std::make_pair(m[1].str(), m[2].str());
    return std::nullopt;
}

// `line` with the constrained names put back (`%sharded_5` -> `%5`), token by token.
std::string withOldNames(const std::string& line, const std::map<std::string, std::string>& oldNames) {
    static const std::regex token(R"(%sharded_[\w$.-]*)");
    std::string out;
    std::size_t last = 0;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), token); it != std::sregex_iterator();
         ++it) {
        const auto found = oldNames.find(it->str());
        out += line.substr(last, static_cast<std::size_t>(it->position()) - last);
        out += found != oldNames.end() ? found->second : it->str();
        last = static_cast<std::size_t>(it->position() + it->length());
    }
    return out + line.substr(last);
}

// Exports `graph` (imported from or printed as `text`) under a sharding plan in `format` with `constraints`,
// re-imports it and checks the round trip: the same annotations on arguments and results, every constraint
// back as a Sharding op on the value it constrains with the plan's sharding, the same ops otherwise, and only
// the module header, the entry signature, the mesh declaration, the inserted constraints and the renamed uses
// changed.
void checkRoundTrip(const std::string& text, const ir::Graph& graph, const std::string& what,
                    ShardingFormat format, exporting::ConstraintChoice constraints, bool printed) {
    const auto mesh = meshOf("data=4,model=2");
    const auto space = analysis::analyze(graph);
    const plan::PlanContext context(graph, space);
    const auto applied = plan::applyPlan(context, mesh, shardingPlan(context, mesh));
    const auto shardings = exporting::entryShardings(graph, space, applied, constraints);
    if (constraints != exporting::ConstraintChoice::None)
        QVERIFY2(!shardings.constraints.empty(), what.c_str());
    auto exported = exporting::exportStableHlo(text, what, graph, mesh, shardings, format);
    QVERIFY2(exported.ok(), exported.errorMessage().c_str());
    // The constraints not written (ops of a called function whose calls the plan shards differently) are
    // counted in a warning.
    std::size_t unplaced = 0;
    for (const auto& d : exported.diagnostics()) {
        QCOMPARE(d.code, std::string("export.constraint"));
        unplaced = std::stoul(d.message);
    }
    QVERIFY2(unplaced <= shardings.constraints.size() / 2, (what + ": " + std::to_string(unplaced)).c_str());
    auto again = import::importStableHlo(*exported, what + " (exported)");
    QVERIFY2(again.ok(), again.errorMessage().c_str());
    QCOMPARE(again->arguments.size(), graph.arguments.size());
    QCOMPARE(again->outputs.size(), graph.outputs.size());
    const std::size_t written = shardings.constraints.size() - unplaced;
    // A constraint on an op's only result reads back as that op's annotation; others as Sharding ops.
    QVERIFY(again->ops.size() >= graph.ops.size() && again->ops.size() <= graph.ops.size() + written);
    QCOMPARE(again->body.size() - graph.body.size(), again->ops.size() - graph.ops.size());

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

    // The constraints: walking both bodies, every op of the re-imported one is the next op of the original
    // (its only result annotated where a constraint folded into it) or a new Sharding op whose operand is a
    // constrained value of the original, annotated as the plan has it and read back (annotationOnMesh) to
    // exactly that sharding.
    std::map<std::uint32_t, plan::TensorSharding> wanted;  // ValueId index -> constraint
    for (const auto& c : shardings.constraints)
        wanted[c.value.index] = c.sharding;
    std::map<std::uint32_t, ir::ValueId> original;  // re-imported ValueId index -> original value
    for (std::size_t i = 0; i < graph.arguments.size(); ++i)
        original[again->arguments[i].value.index] = graph.arguments[i].value;
    std::size_t next = 0, found = 0;
    for (const ir::OpId id : again->body) {
        const ir::Op& op = again->op(id);
        const bool isNew =
            isShardingCall(op) && (next >= graph.body.size() || !isShardingCall(graph.op(graph.body[next])));
        if (!isNew) {
            QVERIFY(next < graph.body.size());
            const ir::Op& before = graph.op(graph.body[next++]);
            QCOMPARE(int(op.kind), int(before.kind));
            QCOMPARE(op.results.size(), before.results.size());
            for (std::size_t r = 0; r < op.results.size(); ++r)
                original[op.results[r].index] = before.results[r];
            if (op.sharding && !before.sharding) {
                QCOMPARE(op.results.size(), std::size_t{1});
                const auto constraint = wanted.find(before.results[0].index);
                QVERIFY2(constraint != wanted.end(),
                         (what + ": an annotation the plan did not choose").c_str());
                QCOMPARE(op.sharding->text, expected(constraint->second, before.results[0]).text);
                wanted.erase(constraint);
                ++found;
            }
            continue;
        }
        QCOMPARE(op.operands.size(), std::size_t{1});
        const auto source = original.find(op.operands[0].index);
        QVERIFY2(source != original.end(), (what + ": a constraint on an unknown value").c_str());
        const auto constraint = wanted.find(source->second.index);
        QVERIFY2(constraint != wanted.end(),
                 (what + ": a constraint on a value the plan did not choose").c_str());
        QVERIFY2(op.sharding.has_value(), what.c_str());
        QCOMPARE(op.sharding->text, expected(constraint->second, source->second).text);
        auto read =
            plan::annotationOnMesh(*op.sharding, graph.type(source->second).rank(), again->meshes, mesh);
        QVERIFY2(read.ok(), read.errorMessage().c_str());
        QCOMPARE(read->toString(mesh), constraint->second.toString(mesh));
        original[op.results[0].index] = source->second;  // later ops read the constrained value
        wanted.erase(constraint);
        ++found;
    }
    QCOMPARE(found, written);
    if (printed)  // a printed graph's statements are its ops, one to one: every constraint is written
        QCOMPARE(unplaced, std::size_t{0});

    // Nothing else changed: line by line, apart from the inserted mesh line and constraint statements (and
    // the renamed uses, undone here), only the module header and the entry signature differ.
    auto before = linesOf(text);
    auto after = linesOf(*exported);
    std::map<std::string, std::string> oldNames;
    for (auto it = after.begin(); it != after.end();) {
        if (auto inserted = insertedConstraint(*it)) {
            QVERIFY2(oldNames.emplace(inserted->first, inserted->second).second, it->c_str());
            it = after.erase(it);
        } else {
            ++it;
        }
    }
    QVERIFY(oldNames.size() <= written);  // a called function's statement stands for every call
    for (auto& line : after)
        line = withOldNames(line, oldNames);
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
    const QString dir = shardscope::testing::sharedDir() + QStringLiteral("/models/stablehlo");
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

    // Constraints go on the line after the defining statement; later uses, and only they, take the new name:
    // `%10` and a comment's "%1" stay, a multi-result op's `%2#1` is renamed where it is written so (in a
    // while body too) and `%2#0` is not, and a multi-line while is one statement.
    void constraintsInTheUsersText() {
        const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<8x4xf32>, %arg1: tensor<4x6xf32>) -> (tensor<8x6xf32>, tensor<8x6xf32>) {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
    %10 = stablehlo.negate %1 : tensor<8x6xf32>
    %2:2 = stablehlo.optimization_barrier %1, %10 : tensor<8x6xf32>, tensor<8x6xf32>
    %3:2 = stablehlo.while(%iterArg = %c0, %iterArg_1 = %2#0) : tensor<i32>, tensor<8x6xf32>
     cond {
      %c3 = stablehlo.constant dense<3> : tensor<i32>
      %4 = stablehlo.compare  LT, %iterArg, %c3,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %4 : tensor<i1>
    } do {
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %iterArg, %c1 : tensor<i32>
      %6 = stablehlo.add %iterArg_1, %2#1 : tensor<8x6xf32>
      stablehlo.return %5, %6 : tensor<i32>, tensor<8x6xf32>
    }
    %7 = stablehlo.add %3#1, %10 : tensor<8x6xf32> // %1 stays in comments
    return %7, %1 : tensor<8x6xf32>, tensor<8x6xf32>
  }
}
)";
        const auto mesh = meshOf("data=4,model=2");
        const auto graph = imported(text);
        const ir::Op* dot = nullptr;
        const ir::Op* barrier = nullptr;
        for (const ir::OpId id : graph.body) {
            const ir::Op& op = graph.op(id);
            if (op.kind == ir::OpKind::DotGeneral)
                dot = &op;
            if (op.kind == ir::OpKind::OptimizationBarrier)
                barrier = &op;
        }
        QVERIFY(dot && barrier && barrier->results.size() == 2);
        exporting::EntryShardings s;
        s.arguments = {shardingOf(mesh, {{"data"}, {}}), shardingOf(mesh, {{}, {"model"}})};
        s.results = {shardingOf(mesh, {{"data"}, {"model"}}), shardingOf(mesh, {{"data"}, {"model"}})};
        s.constraints = {{dot->results[0], shardingOf(mesh, {{"data"}, {"model"}})},
                         {barrier->results[1], shardingOf(mesh, {{"data"}, {}})}};
        auto out = exporting::exportStableHlo(text, "test.mlir", graph, mesh, s, ShardingFormat::Shardy);
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        QVERIFY(out.diagnostics().empty());
        std::string expected = text;
        auto replace = [&](const std::string& from, const std::string& to) {
            const auto at = expected.find(from);
            QVERIFY2(at != std::string::npos, from.c_str());
            expected.replace(at, from.size(), to);
        };
        replace("module @m {\n", "module @m {\n  sdy.mesh @mesh = <[\"data\"=4, \"model\"=2]>\n");
        replace("%arg0: tensor<8x4xf32>, %arg1: tensor<4x6xf32>) -> (tensor<8x6xf32>, tensor<8x6xf32>)",
                R"(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, )"
                R"(%arg1: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}) -> )"
                R"((tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}, )"
                R"(tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}))");
        replace("-> tensor<8x6xf32>\n    %10 = stablehlo.negate %1 :",
                "-> tensor<8x6xf32>\n"
                "    %sharded_1 = sdy.sharding_constraint %1 <@mesh, [{\"data\"}, {\"model\"}]> : "
                "tensor<8x6xf32>\n"
                "    %10 = stablehlo.negate %sharded_1 :");
        replace(
            "optimization_barrier %1, %10 : tensor<8x6xf32>, tensor<8x6xf32>\n",
            "optimization_barrier %sharded_1, %10 : tensor<8x6xf32>, tensor<8x6xf32>\n"
            "    %sharded_2_1 = sdy.sharding_constraint %2#1 <@mesh, [{\"data\"}, {}]> : tensor<8x6xf32>\n");
        replace("%iterArg_1, %2#1 :", "%iterArg_1, %sharded_2_1 :");
        replace("return %7, %1 :", "return %7, %sharded_1 :");
        QCOMPARE(*out, expected);

        // Re-imported, the constraint on the dot's only result is the dot's annotation; the one on a result
        // of the two-result barrier is a Sharding op on that value, used where the text uses it (the while
        // body reads the constrained %2#1); the reference plan reads both.
        const auto again = imported(*out);
        std::vector<const ir::Op*> constraints;
        const ir::Op* dotAgain = nullptr;
        for (const ir::OpId id : again.body) {
            if (isShardingCall(again.op(id)))
                constraints.push_back(&again.op(id));
            if (again.op(id).kind == ir::OpKind::DotGeneral)
                dotAgain = &again.op(id);
        }
        QCOMPARE(constraints.size(), std::size_t{1});
        QVERIFY(dotAgain && dotAgain->sharding);
        QCOMPARE(dotAgain->sharding->text, std::string(R"(#sdy.sharding<@mesh, [{"data"}, {"model"}]>)"));
        QCOMPARE(constraints[0]->sharding->text, std::string(R"(#sdy.sharding<@mesh, [{"data"}, {}]>)"));
        const ir::Op& barrierAgain = again.op(again.value(constraints[0]->operands[0]).producer);
        QCOMPARE(int(barrierAgain.kind), int(ir::OpKind::OptimizationBarrier));
        QCOMPARE(again.value(constraints[0]->operands[0]).resultIndex, std::uint32_t{1});
        bool readInLoop = false;
        for (const ir::OpId id : again.allOpsInOrder())
            for (const ir::ValueId v : again.op(id).operands)
                readInLoop =
                    readInLoop || (v == constraints[0]->results[0] &&
                                   std::find(again.body.begin(), again.body.end(), id) == again.body.end());
        QVERIFY(readInLoop);
        QCOMPARE(again.outputs[1].value, dotAgain->results[0]);
        std::vector<Diagnostic> warnings;
        const auto annotated = plan::annotatedTensors(again, mesh, warnings);
        QVERIFY(warnings.empty());
        QCOMPARE(annotated.size(), std::size_t{2 + 2 + 2});

        // GSPMD: the custom call XLA's Shardy export and JAX's with_sharding_constraint write.
        auto gspmd = exporting::exportStableHlo(text, "test.mlir", graph, mesh, s, ShardingFormat::Gspmd);
        QVERIFY2(gspmd.ok(), gspmd.errorMessage().c_str());
        QVERIFY2(
            gspmd->find("\n    %sharded_1 = stablehlo.custom_call @Sharding(%1) {mhlo.sharding = "
                        "\"{devices=[4,2]<=[8]}\"} "
                        ": (tensor<8x6xf32>) -> tensor<8x6xf32>\n    %10 = stablehlo.negate %sharded_1 :") !=
                std::string::npos,
            gspmd->c_str());
        const auto gspmdAgain = imported(*gspmd);
        int calls = 0;
        for (const ir::OpId id : gspmdAgain.body)
            if (const ir::Op& op = gspmdAgain.op(id); isShardingCall(op)) {
                ++calls;
                QCOMPARE(op.sharding->format, ir::ShardingAnnotation::Format::Gspmd);
            }
        QCOMPARE(calls, 1);  // the dot's constraint is its annotation
    }

    // An op of a called function is constrained in that function, which every call shares: written when all
    // its inlined copies are constrained alike, else counted in a warning.
    void constraintsInCalledFunctions() {
        const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<8x4xf32>, %arg1: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
    %0 = call @neg(%arg0) : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %1 = call @neg(%arg1) : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0, %1 : tensor<8x4xf32>, tensor<8x4xf32>
  }
  func.func private @neg(%a: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = stablehlo.negate %a : tensor<8x4xf32>
    %1 = stablehlo.exponential %0 : tensor<8x4xf32>
    return %1 : tensor<8x4xf32>
  }
  func.func private @declared(tensor<8x4xf32>) -> tensor<8x4xf32>
}
)";
        const auto mesh = meshOf("data=4,model=2");
        const auto graph = imported(text);
        std::vector<ir::ValueId> negates;
        for (const ir::OpId id : graph.body)
            if (graph.op(id).kind == ir::OpKind::Negate)
                negates.push_back(graph.op(id).results[0]);
        QCOMPARE(negates.size(), std::size_t{2});
        exporting::EntryShardings s;
        s.arguments = {shardingOf(mesh, {{"data"}, {}}), shardingOf(mesh, {{"data"}, {}})};
        s.results = s.arguments;
        s.constraints = {{negates[0], shardingOf(mesh, {{"data"}, {}})},
                         {negates[1], shardingOf(mesh, {{"data"}, {}})}};
        auto out = exporting::exportStableHlo(text, "test.mlir", graph, mesh, s, ShardingFormat::Shardy);
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        QVERIFY(out.diagnostics().empty());
        QVERIFY2(
            out->find(
                "    %0 = stablehlo.negate %a : tensor<8x4xf32>\n"
                "    %sharded_0 = sdy.sharding_constraint %0 <@mesh, [{\"data\"}, {}]> : tensor<8x4xf32>\n"
                "    %1 = stablehlo.exponential %sharded_0 : tensor<8x4xf32>\n") != std::string::npos,
            out->c_str());
        QVERIFY(out->find("%0 = call @neg(%arg0)") != std::string::npos);  // @main's %0 is another value
        const auto again = imported(*out);
        int annotated = 0;
        for (const ir::OpId id : again.body) {
            QVERIFY(!isShardingCall(again.op(id)));
            annotated += again.op(id).kind == ir::OpKind::Negate && again.op(id).sharding.has_value();
        }
        QCOMPARE(annotated, 2);  // once per call, as the negate's annotation

        s.constraints[1].sharding = shardingOf(mesh, {{"model"}, {}});
        out = exporting::exportStableHlo(text, "test.mlir", graph, mesh, s, ShardingFormat::Shardy);
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        QVERIFY(out->find("sharding_constraint") == std::string::npos);
        QCOMPARE(out.diagnostics().size(), std::size_t{1});
        QCOMPARE(out.diagnostics().front().code, std::string("export.constraint"));
        QCOMPARE(out.diagnostics().front().severity, Severity::Warning);
        QVERIFY2(out.diagnostics().front().message.rfind("2 of 2 sharding constraint(s) not written", 0) == 0,
                 out.diagnostics().front().message.c_str());
    }

    // sdy.manual_computation imports as its global program between identity ops for its in_ and out_shardings
    // (at its own location): an export keeps the boundary shardings as the text has them, a constraint on an
    // op of its body (whose text has local shapes) is not written but counted, and the text re-imports alike.
    void constraintOnManualComputation() {
        const std::string text = R"(module @m {
  sdy.mesh @mesh = <["data"=4, "model"=2]>
  func.func @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16x32xf32>) -> tensor<8x32xf32> {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"data"}, {}]>, <@mesh, [{}, {"model"}]>] out_shardings=[<@mesh, [{"data"}, {"model"}]>] manual_axes={"data"} (%a: tensor<2x16xf32>, %b: tensor<16x32xf32>) {
      %1 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x16xf32>, tensor<16x32xf32>) -> tensor<2x32xf32>
      sdy.return %1 : tensor<2x32xf32>
    } : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %2 = stablehlo.negate %0 : tensor<8x32xf32>
    return %2 : tensor<8x32xf32>
  }
}
)";
        const auto mesh = meshOf("data=4,model=2");
        const auto graph = imported(text);
        QCOMPARE(graph.body.size(), std::size_t{5});
        const ir::Op& dot = graph.op(graph.body[2]);
        QCOMPARE(int(dot.kind), int(ir::OpKind::DotGeneral));
        exporting::EntryShardings s;
        s.arguments = {shardingOf(mesh, {{"data"}, {}}), shardingOf(mesh, {{}, {"model"}})};
        s.results = {shardingOf(mesh, {{"data"}, {"model"}})};
        s.constraints = {{dot.results[0], shardingOf(mesh, {{"data"}, {"model"}})}};
        auto out = exporting::exportStableHlo(text, "test.mlir", graph, mesh, s, ShardingFormat::Shardy);
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        QVERIFY(out->find("sharding_constraint") == std::string::npos);
        QCOMPARE(out.diagnostics().size(), std::size_t{1});
        QCOMPARE(out.diagnostics().front().code, std::string("export.constraint"));
        QVERIFY(out->find(R"(in_shardings=[<@mesh, [{"data"}, {}]>, <@mesh, [{}, {"model"}]>])") !=
                std::string::npos);
        const auto again = imported(*out);
        QCOMPARE(again.body.size(), graph.body.size());
        for (std::size_t i = 0; i < graph.body.size(); ++i) {
            QCOMPARE(int(again.op(again.body[i]).kind), int(graph.op(graph.body[i]).kind));
            QCOMPARE(again.op(again.body[i]).sharding, graph.op(graph.body[i]).sharding);
        }
    }

    // Key constraints on the zoo GPT under Megatron: every dot_general result, and nothing fully replicated.
    void keyConstraintsOfMegatron() {
        auto loaded = loadModel("zoo:gpt:layers=2,d_model=64,heads=4,seq=16,batch=2");
        QVERIFY2(loaded.ok(), loaded.errorMessage().c_str());
        const ir::Graph& graph = loaded->graph;
        const auto mesh = meshOf("model=4");
        const auto space = analysis::analyze(graph);
        const plan::PlanContext context(graph, space);
        auto megatron = plan::expertPlan("megatron", context, mesh);
        QVERIFY2(megatron.ok(), megatron.errorMessage().c_str());
        const auto applied = plan::applyPlan(context, mesh, *megatron);
        const auto key = exporting::entryShardings(graph, space, applied, exporting::ConstraintChoice::Key);
        const auto all = exporting::entryShardings(graph, space, applied, exporting::ConstraintChoice::All);
        const auto none = exporting::entryShardings(graph, space, applied, exporting::ConstraintChoice::None);
        QVERIFY(none.constraints.empty());
        QVERIFY(key.constraints.size() < all.constraints.size());
        std::set<std::uint32_t> chosen;
        for (const auto& c : key.constraints) {
            chosen.insert(c.value.index);
            QCOMPARE(c.sharding, applied.sharding(space, c.value));
        }
        int dots = 0;
        for (const ir::OpId id : graph.body) {
            const ir::Op& op = graph.op(id);
            if (op.kind != ir::OpKind::DotGeneral)
                continue;
            bool sharded = applied.sharding(space, op.results[0]).mask() != 0;
            for (const ir::ValueId v : op.operands)
                sharded = sharded || applied.sharding(space, v).mask() != 0;
            QCOMPARE(chosen.count(op.results[0].index) > 0, sharded);
            dots += sharded;
        }
        QVERIFY(dots >= 2 * 8);  // q, k, v, scores, context, out-projection, fc, proj per layer
        for (const auto& c : all.constraints)
            QVERIFY(graph.op(graph.value(c.value).producer).kind != ir::OpKind::Constant);
    }

    void roundTripSharedModels_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("format");
        QTest::addColumn<int>("constraints");
        const QString dir = sharedModels();
        if (dir.isEmpty())
            return;
        using exporting::ConstraintChoice;
        for (const auto& name : QDir(dir).entryList({"*.mlir"}, QDir::Files, QDir::Name)) {
            for (auto c : {ConstraintChoice::None, ConstraintChoice::Key, ConstraintChoice::All}) {
                const QString choice = QString::fromLatin1(exporting::toString(c).data());
                QTest::newRow(qPrintable(name + " shardy " + choice))
                    << dir + "/" + name << int(ShardingFormat::Shardy) << int(c);
                QTest::newRow(qPrintable(name + " gspmd " + choice))
                    << dir + "/" + name << int(ShardingFormat::Gspmd) << int(c);
            }
        }
    }
    void roundTripSharedModels() {
        if (sharedModels().isEmpty())
            QSKIP("../shared/models/stablehlo is absent (a user's clone has no ../shared)");
        QFETCH(QString, path);
        QFETCH(int, format);
        QFETCH(int, constraints);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const std::string text = file.readAll().toStdString();
        auto model = loadModelBytes(text, path.toStdString());
        QVERIFY2(model.ok(), model.errorMessage().c_str());
        // Weights the import made parameters (jax_resnet_50's constants) are no arguments of the file's text:
        // the model is exported printed, as the CLI and the explorer export it.
        const auto& diagnostics = model.diagnostics();
        const bool lifted = std::any_of(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& d) {
            return d.code == import::kWeightsLiftedCode;
        });
        if (!lifted) {
            checkRoundTrip(text, model->graph, path.toStdString(), static_cast<ShardingFormat>(format),
                           static_cast<exporting::ConstraintChoice>(constraints), false);
            return;
        }
        const std::string printed = ir::printStableHlo(model->graph);
        auto reread = loadModelBytes(printed, path.toStdString());
        QVERIFY2(reread.ok(), reread.errorMessage().c_str());
        checkRoundTrip(printed, reread->graph, path.toStdString(), static_cast<ShardingFormat>(format),
                       static_cast<exporting::ConstraintChoice>(constraints), true);
    }

    void roundTripZoo_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("train");
        QTest::addColumn<int>("format");
        QTest::addColumn<int>("constraints");
        using exporting::ConstraintChoice;
        for (const char* model : {"zoo:demo", "zoo:gpt2-small"})
            for (int format : {int(ShardingFormat::Shardy), int(ShardingFormat::Gspmd)})
                for (auto c : {ConstraintChoice::None, ConstraintChoice::Key, ConstraintChoice::All})
                    QTest::newRow(qPrintable(
                        QString("%1 %2 %3")
                            .arg(model, format == 0 ? "shardy" : "gspmd", exporting::toString(c).data())))
                        << QString(model) << false << format << int(c);
        QTest::newRow("zoo:demo training step shardy key")
            << QString("zoo:demo") << true << int(ShardingFormat::Shardy) << int(ConstraintChoice::Key);
        QTest::newRow("zoo:demo training step gspmd all")
            << QString("zoo:demo") << true << int(ShardingFormat::Gspmd) << int(ConstraintChoice::All);
    }
    void roundTripZoo() {
        QFETCH(QString, model);
        QFETCH(bool, train);
        QFETCH(int, format);
        QFETCH(int, constraints);
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
                       static_cast<ShardingFormat>(format),
                       static_cast<exporting::ConstraintChoice>(constraints), true);
    }
};

QTEST_GUILESS_MAIN(TestExportStableHlo)
#include "tst_export_stablehlo.moc"
