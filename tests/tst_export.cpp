// Shardings as the runtimes write them: Shardy attributes and GSPMD strings (DESIGN.md §8).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTest>

#include "shardscope/export/framework_plans.h"
#include "shardscope/export/trace.h"
#include "shardscope/plan/experts.h"
#include "shardscope/problem.h"

#include "shardscope/export/sharding_text.h"
#include "test_support.h"

using namespace shardscope;

namespace {

using testing::meshOf;
using testing::shardingOf;



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
        QTest::newRow("P('data', None)") << "data=4,model=2" << "data;" << "{devices=[4,1,2]<=[8] last_tile_dim_replicate}";
        QTest::newRow("P(None, 'model')") << "data=4,model=2" << ";model"
                                          << "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}";
        QTest::newRow("P('data', 'model')") << "data=4,model=2" << "data;model" << "{devices=[4,2]<=[8]}";
        QTest::newRow("P('model', 'data')") << "data=4,model=2" << "model;data" << "{devices=[2,4]<=[4,2]T(1,0)}";
        QTest::newRow("P(('data', 'model'))") << "data=4,model=2" << "data+model" << "{devices=[8]<=[8]}";
        QTest::newRow("P(('model', 'data'))") << "data=4,model=2" << "model+data" << "{devices=[8]<=[4,2]T(1,0)}";
        QTest::newRow("P()") << "data=4,model=2" << ";" << "{replicated}";
        QTest::newRow("scalar") << "data=4,model=2" << "" << "{replicated}";
        QTest::newRow("3 axes, a minor axis left out") << "a=2,b=2,c=2" << "a;c"
                                                       << "{devices=[2,2,2]<=[2,2,2]T(0,2,1) last_tile_dim_replicate}";
        QTest::newRow("3 axes, two on one dimension") << "a=2,b=2,c=2" << "b+a;c" << "{devices=[4,2]<=[2,2,2]T(1,0,2)}";
        QTest::newRow("3 axes, adjacent pair merged") << "a=2,b=2,c=2" << "c;a+b" << "{devices=[2,4]<=[4,2]T(1,0)}";
        QTest::newRow("size-1 axis left out") << "data=1,model=8" << "model;" << "{devices=[8,1]<=[8]}";
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

    // The parameters' shardings as JAX PartitionSpecs and DTensor placements, on the demo under dp-tp (d_ff and
    // heads on "model", batch on "data": parameters carry d_ff/heads but not the batch).
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
        QVERIFY2(jax.contains(QStringLiteral("\"layers.0.mlp.fc.weight\": P(None, \"model\"),")), qPrintable(jax));
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

    // The trace is Chrome's trace-event format (checked field by field, as its schema asks) and tells the step the
    // evaluation tells: the compute adds up, every collective is there, and it ends at the step time.
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
        const QJsonDocument document =
            QJsonDocument::fromJson(QByteArray::fromStdString(exporting::chromeTrace(model, evaluation)), &error);
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
            QVERIFY(event.value(QStringLiteral("pid")).isDouble() && event.value(QStringLiteral("tid")).isDouble());
            const QString phase = event.value(QStringLiteral("ph")).toString();
            if (phase == QLatin1String("M")) {
                QVERIFY(event.value(QStringLiteral("args")).toObject().value(QStringLiteral("name")).isString());
                if (event.value(QStringLiteral("name")).toString() == QLatin1String("thread_name")) {
                    QVERIFY(!namedThreads.contains(event.value(QStringLiteral("tid")).toInt()));  // one name each
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
                QVERIFY(event.value(QStringLiteral("args")).toObject().value(QStringLiteral("bytes")).toDouble() > 0);
            }
        }
        QCOMPARE(computeEvents, static_cast<int>(model.graph().body.size()));
        QCOMPARE(collectiveEvents, static_cast<int>(evaluation.collectives.size()));
        QVERIFY(std::abs(compute - evaluation.computeTime * 1e6) <= 1e-6 * evaluation.computeTime * 1e6);
        QVERIFY2(std::abs(end - evaluation.stepTime * 1e6) <= 1e-6 * evaluation.stepTime * 1e6,
                 qPrintable(QStringLiteral("%1 vs %2").arg(end).arg(evaluation.stepTime * 1e6)));
    }
};

QTEST_APPLESS_MAIN(TestExport)
#include "tst_export.moc"
