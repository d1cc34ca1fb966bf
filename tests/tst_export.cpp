// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Shardings as the runtimes write them: Shardy attributes and GSPMD strings (docs/export.md).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QStandardPaths>
#include <QTest>

#include "shardscope/cost/step_lanes.h"
#include "shardscope/export/framework_plans.h"
#include "shardscope/export/trace.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/plan/experts.h"
#include "shardscope/session/problem.h"

#include "shardscope/export/sharding_text.h"
#include "test_support.h"

using namespace shardscope;

namespace {

using testing::meshOf;
using testing::shardingOf;

// The parallelize_module plan of `model` on `mesh` under the expert plan `expert`.
exporting::ParallelizePlan parallelizeOf(const std::string& model, const std::string& mesh,
                                         const std::string& expert) {
    ProblemSpec spec;
    spec.model = model;
    spec.mesh = mesh;
    auto problem = loadProblem(spec);
    if (!problem)
        qFatal("%s", problem.errorMessage().c_str());
    const cost::CostModel& costModel = *(*problem)->costModel;
    auto plan = plan::expertPlan(expert, costModel.planContext(), costModel.mesh());
    if (!plan)
        qFatal("%s", plan.errorMessage().c_str());
    const auto applied = plan::applyPlan(costModel.planContext(), costModel.mesh(), *plan);
    std::vector<plan::TensorSharding> shardings;
    for (std::size_t v = 0; v < costModel.graph().values.size(); ++v)
        shardings.push_back(applied.sharding(costModel.space(), ir::ValueId(static_cast<std::uint32_t>(v))));
    return exporting::parallelizePlan(costModel.graph(), costModel.mesh(), shardings);
}

}  // namespace

class TestExport : public QObject {
    Q_OBJECT

private slots:
    void shardyMeshAndSharding() {
        const auto mesh = meshOf("data=4,model=2");
        QCOMPARE(exporting::shardyMesh(mesh), std::string(R"(sdy.mesh @mesh = <["data"=4, "model"=2]>)"));
        QCOMPARE(exporting::shardySharding(shardingOf(mesh, {{"data"}, {}, {"model"}}), mesh),
                 std::string(R"(#sdy.sharding<@mesh, [{"data"}, {}, {"model"}]>)"));
        QCOMPARE(exporting::shardySharding(shardingOf(mesh, {{"model", "data"}}), mesh, "m"),
                 std::string(R"(#sdy.sharding<@m, [{"model", "data"}]>)"));
    }

    // The issue's JAX examples (mesh data=4, model=2) and XLA's canonical iota forms around them.
    void gspmdStringsAsJaxWritesThem_data() {
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<QString>("dims");  // per dimension, axes joined by '+', dimensions by ';'
        QTest::addColumn<QString>("expected");
        QTest::newRow("P('data', None)") << "data=4,model=2"
                                         << "data;"
                                         << "{devices=[4,1,2]<=[8] last_tile_dim_replicate}";
        QTest::newRow("P(None, 'model')") << "data=4,model=2"
                                          << ";model"
                                          << "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}";
        QTest::newRow("P('data', 'model')") << "data=4,model=2"
                                            << "data;model"
                                            << "{devices=[4,2]<=[8]}";
        QTest::newRow("P('model', 'data')") << "data=4,model=2"
                                            << "model;data"
                                            << "{devices=[2,4]<=[4,2]T(1,0)}";
        QTest::newRow("P(('data', 'model'))") << "data=4,model=2"
                                              << "data+model"
                                              << "{devices=[8]<=[8]}";
        QTest::newRow("P(('model', 'data'))") << "data=4,model=2"
                                              << "model+data"
                                              << "{devices=[8]<=[4,2]T(1,0)}";
        QTest::newRow("P()") << "data=4,model=2"
                             << ";"
                             << "{replicated}";
        QTest::newRow("scalar") << "data=4,model=2"
                                << ""
                                << "{replicated}";
        QTest::newRow("3 axes, a minor axis left out")
            << "a=2,b=2,c=2"
            << "a;c"
            << "{devices=[2,2,2]<=[2,2,2]T(0,2,1) last_tile_dim_replicate}";
        QTest::newRow("3 axes, two on one dimension") << "a=2,b=2,c=2"
                                                      << "b+a;c"
                                                      << "{devices=[4,2]<=[2,2,2]T(1,0,2)}";
        QTest::newRow("3 axes, adjacent pair merged") << "a=2,b=2,c=2"
                                                      << "c;a+b"
                                                      << "{devices=[2,4]<=[4,2]T(1,0)}";
        QTest::newRow("size-1 axis left out") << "data=1,model=8"
                                              << "model;"
                                              << "{devices=[8,1]<=[8]}";
    }

    void gspmdStringsAsJaxWritesThem() {
        QFETCH(QString, mesh);
        QFETCH(QString, dims);
        QFETCH(QString, expected);
        const auto m = meshOf(mesh.toStdString());
        std::vector<std::vector<std::string>> axes;
        if (!dims.isEmpty())
            for (const QString& dimension : dims.split(u';')) {
                axes.emplace_back();
                for (const QString& axis : dimension.split(u'+', Qt::SkipEmptyParts))
                    axes.back().push_back(axis.toStdString());
            }
        const std::string text =
            exporting::gspmdSharding(shardingOf(m, axes), static_cast<int>(axes.size()), m);
        QCOMPARE(QString::fromStdString(text), expected);
    }

    // The parameters' shardings as JAX PartitionSpecs and DTensor placements, on the demo under dp-tp (d_ff
    // and heads on "model", batch on "data": parameters carry d_ff/heads but not the batch).
    void frameworkSnippets() {
        ProblemSpec spec;
        spec.model = "zoo:demo";
        spec.mesh = "data=2,model=4";
        auto problem = loadProblem(spec);
        QVERIFY(problem.ok());
        const cost::CostModel& model = *(*problem)->costModel;
        auto plan = plan::expertPlan("dp-tp", model.planContext(), model.mesh());
        QVERIFY(plan.ok());
        const auto applied = plan::applyPlan(model.planContext(), model.mesh(), *plan);
        std::vector<plan::TensorSharding> shardings;
        for (std::size_t v = 0; v < model.graph().values.size(); ++v)
            shardings.push_back(applied.sharding(model.space(), ir::ValueId(static_cast<std::uint32_t>(v))));
        const auto parameters = exporting::parameterShardings(model.graph(), shardings);
        QVERIFY(!parameters.empty());
        const auto fc = std::find_if(parameters.begin(), parameters.end(),
                                     [](const auto& p) { return p.name == "layers.0.mlp.fc.weight"; });
        QVERIFY(fc != parameters.end());  // [d_model, d_ff]: d_ff on model

        const QString jax = QString::fromStdString(exporting::jaxSnippet(model.mesh(), parameters));
        QVERIFY(jax.contains(QStringLiteral("shape, names = (2, 4), (\"data\", \"model\")")));
        QVERIFY2(jax.contains(QStringLiteral("\"layers.0.mlp.fc.weight\": P(None, \"model\"),")),
                 qPrintable(jax));
        QCOMPARE(jax.count(QStringLiteral(": P(")), static_cast<int>(parameters.size()));
        const QString torch = QString::fromStdString(exporting::dtensorSnippet(model.mesh(), parameters));
        QVERIFY(torch.contains(QStringLiteral("init_device_mesh(\"cuda\", shape, mesh_dim_names=names)")));
        QVERIFY2(torch.contains(QStringLiteral("\"layers.0.mlp.fc.weight\": (Replicate(), Shard(1)),")),
                 qPrintable(torch));

        // Several axes on one dimension become a tuple (JAX) and a Shard on each mesh dimension (DTensor).
        exporting::ParameterSharding both{"w", fc->type, shardingOf(model.mesh(), {{"data", "model"}, {}})};
        QVERIFY(QString::fromStdString(exporting::jaxSnippet(model.mesh(), {both}))
                    .contains(QStringLiteral("\"w\": P((\"data\", \"model\"), None)")));
        QVERIFY(QString::fromStdString(exporting::dtensorSnippet(model.mesh(), {both}))
                    .contains(QStringLiteral("\"w\": (Shard(0), Shard(0)),")));
    }

    // The plan's remat in the frameworks' words: a jax.checkpoint policy per block (none: no checkpoint) and
    // PyTorch's checkpoint_wrapper per block module; both snippets stay valid Python.
    void rematInFrameworkSnippets() {
        const auto mesh = meshOf("data=2,model=4");
        exporting::ParameterSharding w{"layers.0.mlp.fc.weight",
                                       ir::TensorType{{64, 256}, ir::ElementType::F32},
                                       shardingOf(mesh, {{}, {"model"}})};
        const std::vector<plan::RematDecision> remat{{"layers.*", plan::Remat::Full},
                                                     {"layers.0", plan::Remat::None},
                                                     {"layers.1", plan::Remat::Selective},
                                                     {"layers.2", plan::Remat::DotsSaveable}};
        const QString jax = QString::fromStdString(exporting::jaxSnippet(mesh, {w}, remat));
        QVERIFY2(jax.contains(
                     QStringLiteral("    (\"layers.*\", jax.checkpoint_policies.nothing_saveable),  # full")),
                 qPrintable(jax));
        QVERIFY(jax.contains(QStringLiteral("    (\"layers.0\", None),  # none")));
        QVERIFY(
            jax.contains(QStringLiteral("    (\"layers.1\", "
                                        "jax.checkpoint_policies.save_anything_except_these_names("
                                        "\"attention_scores\", \"attention_probs\")),")));
        QVERIFY(
            jax.contains(QStringLiteral("checkpoint_name(q @ k.T, \"attention_scores\")")));  // what to tag
        QVERIFY(jax.contains(QStringLiteral("    (\"layers.2\", jax.checkpoint_policies.dots_saveable),")));
        QVERIFY(jax.contains(
            QStringLiteral("return fn if policy is None else jax.checkpoint(fn, policy=policy)")));
        const QString torch = QString::fromStdString(exporting::dtensorSnippet(mesh, {w}, remat));
        QVERIFY(torch.contains(QStringLiteral(
            "from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper\n")));
        QVERIFY2(torch.contains(QStringLiteral("    (\"layers.*\", \"full\"),  # full")), qPrintable(torch));
        QVERIFY(torch.contains(QStringLiteral("\"full\": lambda module: checkpoint_wrapper(module),")));
        QVERIFY(torch.contains(QStringLiteral("def apply_remat(model):")));
        QVERIFY(torch.contains(QStringLiteral("TorchTitan's op-level selective AC")));
        const QString parallelize = QString::fromStdString(exporting::parallelizeSnippet(
            mesh, exporting::ParallelizePlan{}, {{"layers.*", plan::Remat::Full}}));
        QVERIFY(parallelize.contains(QStringLiteral("def apply_remat(model):")));
        // No remat decisions: nothing about it.
        QVERIFY(
            !QString::fromStdString(exporting::jaxSnippet(mesh, {w})).contains(QStringLiteral("checkpoint")));
        QVERIFY(!QString::fromStdString(exporting::dtensorSnippet(mesh, {w}))
                     .contains(QStringLiteral("checkpoint")));
        // Valid Python: parsed by the interpreter where there is one.
        const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        if (python.isEmpty())
            QSKIP("no python3 to parse the snippets");
        for (const QString& code : {jax, torch, parallelize}) {
            QProcess process;
            process.start(python, {QStringLiteral("-c"),
                                   QStringLiteral("import ast, sys; ast.parse(sys.stdin.read())")});
            process.write(code.toUtf8());
            process.closeWriteChannel();
            QVERIFY(process.waitForFinished(30000));
            QVERIFY2(process.exitCode() == 0,
                     qPrintable(QString::fromUtf8(process.readAllStandardError()) + code));
        }
    }

    // parallelize_module plans for the zoo GPT: Megatron gives colwise q/k/v and fc, rowwise out-projection
    // and proj, and nothing left over; tensor + sequence parallelism adds SequenceParallel on every norm, the
    // sequence-sharded input of the colwise layers and output of the rowwise ones.
    void parallelizeModulePlans_data() {
        QTest::addColumn<QString>("expert");
        QTest::newRow("megatron") << "megatron";
        QTest::newRow("megatron-sp") << "megatron-sp";
    }
    void parallelizeModulePlans() {
        QFETCH(QString, expert);
        const bool sequence = expert == QLatin1String("megatron-sp");
        const auto plan = parallelizeOf("zoo:gpt:layers=2,d_model=64,heads=4,seq=16,batch=2,vocab=128",
                                        "model=4", expert.toStdString());
        using Kind = exporting::ModuleStyle::Kind;
        std::vector<exporting::ModuleStyle> expected;
        const std::string in = sequence ? "Shard(1)" : "", out = sequence ? "Shard(1)" : "";
        for (const std::string layer : {"layers.0.", "layers.1."}) {
            if (sequence)
                expected.push_back({layer + "attn_norm", Kind::Sequence, 0, "", "", 1});
            for (const char* projection : {"q_proj", "k_proj", "v_proj"})
                expected.push_back({layer + "attn." + projection, Kind::Colwise, 0, in, "", 1});
            expected.push_back({layer + "attn.o_proj", Kind::Rowwise, 0, "", out, 1});
            if (sequence)
                expected.push_back({layer + "mlp_norm", Kind::Sequence, 0, "", "", 1});
            expected.push_back({layer + "mlp.fc", Kind::Colwise, 0, in, "", 1});
            expected.push_back({layer + "mlp.proj", Kind::Rowwise, 0, "", out, 1});
        }
        if (sequence)
            expected.push_back({"final_norm", Kind::Sequence, 0, "", "", 1});
        QCOMPARE(plan.styles.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i)
            QVERIFY2(plan.styles[i] == expected[i], plan.styles[i].module.c_str());
        std::vector<std::string> leftover;
        for (const auto& p : plan.leftover)
            leftover.push_back(p.name);
        // Sequence parallelism shards the position embedding's rows too: no parallelize_module style says
        // that.
        QCOMPARE(leftover,
                 sequence ? std::vector<std::string>{"pos_embed.weight"} : std::vector<std::string>{});
        QCOMPARE(plan.notes.size(), leftover.size());

        const QString python = QString::fromStdString(exporting::parallelizeSnippet(meshOf("model=4"), plan));
        QVERIFY(python.contains(QStringLiteral("from torch.distributed.tensor.parallel import (")));
        QVERIFY(python.contains(QStringLiteral("parallelize_module(model, mesh[\"model\"], model_plan)")));
        if (sequence) {
            QVERIFY2(python.contains(QStringLiteral(
                         "    \"layers.1.mlp.fc\": ColwiseParallel(input_layouts=Shard(1)),\n")),
                     qPrintable(python));
            QVERIFY(python.contains(
                QStringLiteral("    \"layers.1.mlp.proj\": RowwiseParallel(output_layouts=Shard(1)),\n")));
            QVERIFY(python.contains(QStringLiteral("    \"final_norm\": SequenceParallel(),\n")));
            QVERIFY(python.contains(QStringLiteral("    \"pos_embed.weight\": (Shard(0),),  # tensor<")));
        } else {
            QVERIFY2(python.contains(QStringLiteral("    \"layers.0.attn.q_proj\": ColwiseParallel(),\n")),
                     qPrintable(python));
            QVERIFY(python.contains(QStringLiteral("    \"layers.0.attn.o_proj\": RowwiseParallel(),\n")));
            QVERIFY(!python.contains(QStringLiteral("placements = {")));
        }
    }

    // FSDP x tensor parallel: the styles on "model", and the FSDP shardings over "data" left over as
    // placements.
    void parallelizeLeavesDataParallelAxesOver() {
        const auto plan = parallelizeOf("zoo:gpt:layers=1,d_model=64,heads=4,seq=16,batch=4,vocab=128",
                                        "data=2,model=4", "fsdp-tp");
        QCOMPARE(plan.styles.size(), std::size_t{6});
        for (const auto& style : plan.styles)
            QCOMPARE(style.axis, 1);
        const auto fc = std::find_if(plan.leftover.begin(), plan.leftover.end(),
                                     [](const auto& p) { return p.name == "layers.0.mlp.fc.weight"; });
        QVERIFY(fc != plan.leftover.end());
        QVERIFY(std::any_of(plan.notes.begin(), plan.notes.end(), [](const std::string& n) {
            return n.rfind(
                       "layers.0.mlp.fc.weight sharded over data: beyond its module's tensor-parallel style",
                       0) == 0;
        }));
        const QString python =
            QString::fromStdString(exporting::parallelizeSnippet(meshOf("data=2,model=4"), plan));
        QVERIFY2(python.contains(
                     QStringLiteral("    \"layers.0.mlp.fc.weight\": (Shard(0), Shard(1)),  # tensor<")),
                 qPrintable(python));
    }

    // torch.nn.Linear stores its weight [out, in] and the graph transposes it before the dot_general: the
    // contracting dimension, not the storage order, says which dimension is the input features.
    void parallelizeReadsTorchWeightLayout() {
        auto graph = import::importStableHlo(R"(
func.func @main(%x: tensor<4x8xf32> {shardscope.role = "input"},
                %w: tensor<16x8xf32> {shardscope.name = "fc.weight", shardscope.role = "parameter"},
                %v: tensor<8x16xf32> {shardscope.name = "proj.weight", shardscope.role = "parameter"}) -> tensor<4x8xf32> {
  %0 = stablehlo.transpose %w, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
  %1 = stablehlo.dot_general %x, %0, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %2 = stablehlo.transpose %v, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %3 = stablehlo.dot_general %1, %2, contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
})",
                                             "torch.mlir");
        QVERIFY2(graph.ok(), graph.errorMessage().c_str());
        const auto mesh = meshOf("tp=2");
        // Megatron by hand: the hidden width (16) over "tp" everywhere it appears.
        std::vector<plan::TensorSharding> shardings(graph->values.size());
        auto set = [&](ir::ValueId v, std::vector<std::vector<std::string>> dims) {
            shardings[v.index] = shardingOf(mesh, dims);
        };
        const auto& body = graph->body;
        set(graph->arguments[1].value, {{"tp"}, {}});  // w [out=16, in=8]: out sharded
        set(graph->arguments[2].value, {{}, {"tp"}});  // v [out=8, in=16]: in sharded
        set(graph->op(body[0]).results[0], {{}, {"tp"}});
        set(graph->op(body[1]).results[0], {{}, {"tp"}});
        set(graph->op(body[2]).results[0], {{"tp"}, {}});
        const auto plan = exporting::parallelizePlan(*graph, mesh, shardings);
        QCOMPARE(plan.styles.size(), std::size_t{2});
        QCOMPARE(plan.styles[0].module, std::string("fc"));
        QCOMPARE(int(plan.styles[0].kind), int(exporting::ModuleStyle::Kind::Colwise));
        QCOMPARE(plan.styles[1].module, std::string("proj"));
        QCOMPARE(int(plan.styles[1].kind), int(exporting::ModuleStyle::Kind::Rowwise));
        QVERIFY(plan.leftover.empty());

        // The weight sharded on its input features while the activation is not: FSDP-like, no style.
        set(graph->arguments[1].value, {{}, {"tp"}});
        const auto fsdp = exporting::parallelizePlan(*graph, mesh, shardings);
        QCOMPARE(fsdp.styles.size(), std::size_t{1});
        QCOMPARE(fsdp.leftover.size(), std::size_t{1});
        QCOMPARE(fsdp.leftover[0].name, std::string("fc.weight"));
    }

    // The trace's (and the explorer timeline's) lanes: compute first, then one per device group as the groups
    // first appear, named by their axes in mesh order.
    void stepLanesNameDeviceGroupsAsTheyAppear() {
        const mesh::Mesh mesh = meshOf("data=2,model=2");
        const auto collective = [](std::uint32_t axes) {
            cost::Collective c;
            c.axes = axes;
            return c;
        };
        cost::Evaluation evaluation;
        evaluation.collectives = {collective(0b10), collective(0b11), collective(0b10), collective(0b01),
                                  collective(0)};
        const cost::StepLanes lanes = cost::stepLanes(mesh, evaluation);
        const std::vector<cost::StepLane> expected = {{0, "compute"},
                                                      {0b10, "collectives over model"},
                                                      {0b11, "collectives over data+model"},
                                                      {0b01, "collectives over data"},
                                                      {0, "collectives over no axis"}};
        QVERIFY(lanes.lanes == expected);
        QVERIFY((lanes.laneOfCollective == std::vector<std::uint32_t>{1, 2, 1, 3, 4}));
        QCOMPARE(cost::axisGroupName(mesh, 0b11), std::string("data+model"));
        QCOMPARE(cost::axisGroupName(mesh, 0b100), std::string("no axis"));  // beyond the mesh's axes
        QVERIFY((cost::stepLanes(mesh, {}).lanes == std::vector<cost::StepLane>{{0, "compute"}}));
    }

    // The trace is Chrome's trace-event format (checked field by field, as its schema asks) and tells the
    // step the evaluation tells: the compute adds up, every collective is there, and it ends at the step
    // time.
    void chromeTraceOfTheSimulatedStep() {
        ProblemSpec spec;
        spec.model = "zoo:demo";
        spec.mesh = "data=2,model=4";
        spec.train = true;
        auto problem = loadProblem(spec);
        QVERIFY(problem.ok());
        const cost::CostModel& model = *(*problem)->costModel;
        auto plan = plan::expertPlan("dp-tp", model.planContext(), model.mesh());
        QVERIFY(plan.ok());
        const cost::Evaluation evaluation = cost::evaluate(model, *plan);
        QVERIFY(!evaluation.collectives.empty());

        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(
            QByteArray::fromStdString(exporting::chromeTrace(model, evaluation)), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QVERIFY(document.isObject());
        const QJsonObject root = document.object();
        QVERIFY(root.value(QStringLiteral("traceEvents")).isArray());
        QCOMPARE(root.value(QStringLiteral("displayTimeUnit")).toString(), QStringLiteral("ms"));
        double compute = 0, end = 0;
        int computeEvents = 0, collectiveEvents = 0;
        QSet<int> namedThreads;
        for (const QJsonValue& value : root.value(QStringLiteral("traceEvents")).toArray()) {
            QVERIFY(value.isObject());
            const QJsonObject event = value.toObject();
            QVERIFY(event.value(QStringLiteral("name")).isString());
            QVERIFY(event.value(QStringLiteral("pid")).isDouble() &&
                    event.value(QStringLiteral("tid")).isDouble());
            const QString phase = event.value(QStringLiteral("ph")).toString();
            if (phase == QLatin1String("M")) {
                QVERIFY(
                    event.value(QStringLiteral("args")).toObject().value(QStringLiteral("name")).isString());
                if (event.value(QStringLiteral("name")).toString() == QLatin1String("thread_name")) {
                    QVERIFY(
                        !namedThreads.contains(event.value(QStringLiteral("tid")).toInt()));  // one name each
                    namedThreads.insert(event.value(QStringLiteral("tid")).toInt());
                }
                continue;
            }
            QCOMPARE(phase, QStringLiteral("X"));
            QVERIFY(event.value(QStringLiteral("cat")).isString());
            const double ts = event.value(QStringLiteral("ts")).toDouble(-1);
            const double dur = event.value(QStringLiteral("dur")).toDouble(-1);
            QVERIFY(ts >= 0 && dur >= 0);
            QVERIFY(namedThreads.contains(event.value(QStringLiteral("tid")).toInt()));
            end = std::max(end, ts + dur);
            if (event.value(QStringLiteral("cat")).toString() == QLatin1String("compute")) {
                compute += dur;
                ++computeEvents;
            } else {
                ++collectiveEvents;
                QVERIFY(
                    event.value(QStringLiteral("args")).toObject().value(QStringLiteral("bytes")).toDouble() >
                    0);
            }
        }
        // One event per kernel (an op with time of its own: fused ops run in the kernel a later op launches).
        int kernels = 0;
        for (double t : evaluation.opComputeTime)
            kernels += t > 0;
        QVERIFY(kernels > 0 && kernels < static_cast<int>(model.graph().body.size()));
        QCOMPARE(computeEvents, kernels);
        QCOMPARE(collectiveEvents, static_cast<int>(evaluation.collectives.size()));
        QVERIFY(std::abs(compute - evaluation.computeTime * 1e6) <= 1e-6 * evaluation.computeTime * 1e6);
        QVERIFY2(std::abs(end - evaluation.stepTime * 1e6) <= 1e-6 * evaluation.stepTime * 1e6,
                 qPrintable(QStringLiteral("%1 vs %2").arg(end).arg(evaluation.stepTime * 1e6)));
    }
};

QTEST_APPLESS_MAIN(TestExport)
#include "tst_export.moc"
