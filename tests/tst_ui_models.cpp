// ui/core: the background loader and the table models it feeds.
#include <algorithm>
#include <memory>

#include <QAbstractItemModelTester>
#include <QLocale>
#include <QSignalSpy>
#include <QTest>

#include "core/problem_loader.h"
#include "core/model_summary.h"
#include "core/op_count_model.h"
#include "core/parameter_model.h"
#include "core/zoo_catalog_model.h"
#include "shardscope/report/model_report.h"
#include "shardscope/zoo/zoo.h"

using namespace shardscope;
using namespace shardscope::ui;

namespace {

constexpr int kLoadTimeoutMs = 60'000;
using ModelPtr = std::shared_ptr<const ProblemView>;

// A request to open `source` with the default mesh and options.
ProblemRequest requestFor(const QString& source) {
    ProblemRequest request;
    request.spec.model = source.toStdString();
    return request;
}

// Loads `source` through a ProblemLoader and waits for it; nullptr (with a test failure) if it did not load.
ModelPtr loadOrFail(const QString& source) {
    ProblemLoader loader;
    QSignalSpy loaded(&loader, &ProblemLoader::loaded);
    QSignalSpy failed(&loader, &ProblemLoader::failed);
    loader.load(requestFor(source));
    if (!QTest::qWaitFor([&] { return !loaded.isEmpty() || !failed.isEmpty(); }, kLoadTimeoutMs)) {
        qWarning("timed out loading %s", qUtf8Printable(source));
        return nullptr;
    }
    if (!failed.isEmpty()) {
        qWarning("%s", qUtf8Printable(failed.first().first().toString()));
        return nullptr;
    }
    return loaded.first().first().value<ModelPtr>();
}

// Loads run one at a time, in order, and report in order (ProblemLoader's JobQueue): once the newest has
// reported, every earlier one has too. This lets the event loop run a little longer all the same.
void drainLoads() {
    QTest::qWait(50);
}

QVariant cell(const QAbstractItemModel& model, int row, int column, int role = Qt::DisplayRole) {
    return model.data(model.index(row, column), role);
}

}  // namespace

class TestUiModels : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        demo_ = loadOrFail(defaultModelSource());
        QVERIFY(demo_);
    }

    void loaderDescribesTheDemo() {
        QCOMPARE(demo_->source, QStringLiteral("zoo:demo"));
        QVERIFY(!demo_->displayName.isEmpty());
        QVERIFY(demo_->stableHlo.contains(QStringLiteral("func.func")));
        QVERIFY(demo_->statistics.opCount > 0);
        QVERIFY(demo_->statistics.parameterCount > 0);
    }

    void loaderReportsBusyAroundALoad() {
        ProblemLoader loader;
        QSignalSpy busy(&loader, &ProblemLoader::busyChanged);
        QSignalSpy loaded(&loader, &ProblemLoader::loaded);
        loader.load(requestFor(defaultModelSource()));
        QVERIFY(loader.isBusy());
        QVERIFY(loaded.wait(kLoadTimeoutMs));
        QVERIFY(!loader.isBusy());
        QCOMPARE(busy.count(), 2);
        QCOMPARE(busy.at(0).first().toBool(), true);
        QCOMPARE(busy.at(1).first().toBool(), false);
    }

    void badSourceFailsWithAMessageNamingIt() {
        ProblemLoader loader;
        QSignalSpy loaded(&loader, &ProblemLoader::loaded);
        QSignalSpy failed(&loader, &ProblemLoader::failed);
        loader.load(requestFor(QStringLiteral("zoo:no-such-model")));
        QVERIFY(failed.wait(kLoadTimeoutMs));
        const QString message = failed.first().first().toString();
        QVERIFY2(message.contains(QStringLiteral("zoo:no-such-model")), qUtf8Printable(message));
        QVERIFY2(!message.contains(u'\n'), qUtf8Printable(message));
        QVERIFY(!loader.isBusy());
        QCOMPARE(loaded.count(), 0);
    }

    void supersededFailureIsDropped() {
        ProblemLoader loader;
        QSignalSpy loaded(&loader, &ProblemLoader::loaded);
        QSignalSpy failed(&loader, &ProblemLoader::failed);
        loader.load(requestFor(QStringLiteral("zoo:no-such-model")));
        loader.load(requestFor(defaultModelSource()));
        QVERIFY(loaded.wait(kLoadTimeoutMs));
        drainLoads();
        QCOMPARE(failed.count(), 0);
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(loaded.first().first().value<ModelPtr>()->source, defaultModelSource());
    }

    void supersededModelIsDropped() {
        ProblemLoader loader;
        QSignalSpy loaded(&loader, &ProblemLoader::loaded);
        QSignalSpy failed(&loader, &ProblemLoader::failed);
        loader.load(requestFor(defaultModelSource()));
        loader.load(requestFor(QStringLiteral("zoo:no-such-model")));
        QVERIFY(failed.wait(kLoadTimeoutMs));
        drainLoads();
        QCOMPARE(loaded.count(), 0);
        QCOMPARE(failed.count(), 1);
        QVERIFY(!loader.isBusy());
    }

    void opCountModelMatchesStatistics() {
        OpCountModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setProblem(demo_);

        const auto& byKind = demo_->statistics.opsByKind;
        QCOMPARE(model.rowCount(), static_cast<int>(byKind.size()));
        QCOMPARE(model.columnCount(), 2);
        qint64 total = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            const QString kind = cell(model, row, OpCountModel::KindColumn).toString();
            const qint64 count = cell(model, row, OpCountModel::CountColumn).toLongLong();
            QCOMPARE(count, byKind.at(kind.toStdString()));
            total += count;
        }
        QCOMPARE(total, demo_->statistics.opCount);

        model.setProblem(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void parameterModelListsParameterArguments() {
        ParameterModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setProblem(demo_);

        const ir::Graph& graph = demo_->graph();
        const auto parameters =
            std::count_if(graph.arguments.begin(), graph.arguments.end(),
                          [](const auto& a) { return a.role == ir::ArgumentRole::Parameter; });
        QCOMPARE(model.rowCount(), static_cast<int>(parameters));
        QCOMPARE(model.columnCount(), 6);

        qint64 elements = 0;
        qint64 bytes = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            QCOMPARE(cell(model, row, ParameterModel::RoleColumn).toString(), QStringLiteral("parameter"));
            QVERIFY(!cell(model, row, ParameterModel::NameColumn).toString().isEmpty());
            elements += cell(model, row, ParameterModel::ElementsColumn, SortRole).toLongLong();
            bytes += cell(model, row, ParameterModel::BytesColumn, SortRole).toLongLong();
        }
        QCOMPARE(elements, demo_->statistics.parameterCount);
        QCOMPARE(bytes, demo_->statistics.parameterBytes);

        // The first row is the first parameter argument, shown as the engine spells it.
        const auto first = std::find_if(graph.arguments.begin(), graph.arguments.end(),
                                        [](const auto& a) { return a.role == ir::ArgumentRole::Parameter; });
        QCOMPARE(cell(model, 0, ParameterModel::NameColumn).toString(), QString::fromStdString(first->name));
        const ir::TensorType& type = graph.type(first->value);
        QCOMPARE(cell(model, 0, ParameterModel::ShapeColumn).toString(),
                 QString::fromStdString(ir::shapeToString(type.shape)));
        QCOMPARE(cell(model, 0, ParameterModel::ElementTypeColumn).toString(),
                 QString::fromUtf8(ir::toString(type.element)));

        model.setProblem(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void zooCatalogListsPresetsThenFamilies() {
        ZooCatalogModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), static_cast<int>(zoo::presets().size() + zoo::families().size()));
        QCOMPARE(cell(model, 0, 0).toString(),
                 QStringLiteral("zoo:") + QString::fromStdString(zoo::presets()[0].name));
        const QModelIndexList demo =
            model.match(model.index(0, 0), Qt::DisplayRole, defaultModelSource(), 1, Qt::MatchExactly);
        QCOMPARE(demo.size(), 1);
        QVERIFY(!model.data(demo.first(), Qt::ToolTipRole).toString().isEmpty());
        QVERIFY(
            !model.index(demo.first().row(), ZooCatalogModel::DescriptionColumn).data().toString().isEmpty());
    }

    void summaryShowsTheHeadlineFigures() {
        const QList<SummaryLine> lines = summaryOf(*demo_);
        auto valueOf = [&](const QString& label) {
            for (const auto& line : lines)
                if (line.label == label)
                    return line.value;
            return QString();
        };
        QCOMPARE(valueOf(QStringLiteral("Model")), demo_->displayName);
        QCOMPARE(valueOf(QStringLiteral("Parameters")),
                 QString::fromStdString(
                     report::formatCount(static_cast<double>(demo_->statistics.parameterCount))));
        QCOMPARE(valueOf(QStringLiteral("FLOPs per forward pass")),
                 QString::fromStdString(report::formatFlops(demo_->statistics.flops)));
        QCOMPARE(valueOf(QStringLiteral("Parameter bytes")),
                 QString::fromStdString(
                     report::formatBytes(static_cast<double>(demo_->statistics.parameterBytes))));
        QCOMPARE(valueOf(QStringLiteral("Activation bytes")),
                 QString::fromStdString(
                     report::formatBytes(static_cast<double>(demo_->statistics.activationBytes))));
        QVERIFY(valueOf(QStringLiteral("Ops")).startsWith(QLocale().toString(demo_->statistics.opCount)));
    }

private:
    ModelPtr demo_;
};

QTEST_GUILESS_MAIN(TestUiModels)
#include "tst_ui_models.moc"
