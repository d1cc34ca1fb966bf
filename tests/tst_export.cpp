// Shardings as the runtimes write them: Shardy attributes and GSPMD strings (DESIGN.md §8).
#include <QTest>

#include "shardscope/export/sharding_text.h"
#include "test_support.h"

using namespace shardscope;

namespace {

mesh::Mesh meshOf(const std::string& text) {
    auto made = mesh::makeMesh(text, *mesh::loadHardware("h100"));
    if (!made)
        qFatal("mesh %s", text.c_str());
    return *made;
}

// A sharding from axis names per dimension, e.g. {{"data"}, {}} for P('data', None).
plan::TensorSharding shardingOf(const mesh::Mesh& mesh, const std::vector<std::vector<std::string>>& dims) {
    plan::TensorSharding sharding;
    for (const auto& axes : dims) {
        plan::AxisList list;
        for (const auto& name : axes)
            list.push(*mesh.axisIndex(name));
        sharding.dimensions.push_back(list);
    }
    return sharding;
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
};

QTEST_APPLESS_MAIN(TestExport)
#include "tst_export.moc"
