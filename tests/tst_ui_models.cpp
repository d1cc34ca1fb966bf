// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// ui/core: the background loader, the table models it feeds (and their column-descriptor base), and the mesh
// draft behind the problem editor.
#include <algorithm>
#include <memory>

#include <QAbstractItemModelTester>
#include <QLocale>
#include <QSignalSpy>
#include <QTest>

#include "core/column_table_model.h"
#include "core/mesh_draft.h"
#include "core/model_summary.h"
#include "core/op_count_model.h"
#include "core/parameter_model.h"
#include "core/problem_loader.h"
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

// A ColumnTableModel as small as they come.
struct FruitRow {
    QString name;
    double kilos = 0;
};

class FruitModel : public ColumnTableModel<FruitRow> {
    Q_OBJECT

public:
    enum Role { KilosRole = SortRole + 1 };

    FruitModel()
        : ColumnTableModel(
              {
                  {.header = QStringLiteral("Fruit"),
                   .display = [](const FruitRow& r) { return QVariant(r.name); }},
                  {.header = QStringLiteral("Weight"),
                   .headerToolTip = QStringLiteral("in kilograms"),
                   .display =
                       [](const FruitRow& r) { return QVariant(QStringLiteral("%1 kg").arg(r.kilos)); },
                   .sort = [](const FruitRow& r) { return QVariant(r.kilos); },
                   .toolTip = [](const FruitRow& r) { return QVariant(r.name + QStringLiteral(" weighs")); },
                   .alignment = Qt::AlignRight | Qt::AlignVCenter},
              },
              nullptr) {}

    void set(std::vector<FruitRow> rows) { resetRows(std::move(rows)); }
    void weigh(int row, double kilos) {
        rows_[static_cast<std::size_t>(row)].kilos = kilos;
        rowChanged(row);
    }

protected:
    QVariant rowData(const FruitRow& row, const QModelIndex& index, int role) const override {
        if (role == KilosRole)
            return row.kilos + index.column();
        return {};
    }
};

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

    // ColumnTableModel: the columns answer the display, sort, tooltip and alignment roles and the header; the
    // subclass answers its own roles.
    void columnTableModelAnswersFromItsColumns() {
        FruitModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.columnCount(), 2);
        QCOMPARE(model.rowCount(), 0);
        model.set({{QStringLiteral("apple"), 2.5}, {QStringLiteral("fig"), 0.25}});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.rowCount(model.index(0, 0)), 0);
        QCOMPARE(model.headerData(0, Qt::Horizontal).toString(), QStringLiteral("Fruit"));
        QCOMPARE(model.headerData(1, Qt::Horizontal, Qt::ToolTipRole).toString(),
                 QStringLiteral("in kilograms"));
        QVERIFY(!model.headerData(0, Qt::Horizontal, Qt::ToolTipRole).isValid());
        QVERIFY(!model.headerData(0, Qt::Vertical).isValid());
        QVERIFY(!model.headerData(2, Qt::Horizontal).isValid());
        QCOMPARE(cell(model, 1, 0).toString(), QStringLiteral("fig"));
        QCOMPARE(cell(model, 1, 0, SortRole).toString(),
                 QStringLiteral("fig"));  // sort falls back to display
        QCOMPARE(cell(model, 1, 1).toString(), QStringLiteral("0.25 kg"));
        QCOMPARE(cell(model, 1, 1, SortRole).toDouble(), 0.25);
        QCOMPARE(cell(model, 0, 1, Qt::ToolTipRole).toString(), QStringLiteral("apple weighs"));
        QVERIFY(!cell(model, 0, 0, Qt::ToolTipRole).isValid());
        QCOMPARE(cell(model, 0, 1, Qt::TextAlignmentRole).toInt(), int(Qt::AlignRight | Qt::AlignVCenter));
        QVERIFY(!cell(model, 0, 0, Qt::TextAlignmentRole).isValid());
        QVERIFY(!cell(model, 0, 0, Qt::EditRole).isValid());
        QCOMPARE(cell(model, 0, 1, FruitModel::KilosRole).toDouble(), 3.5);
        QVERIFY(!model.data(QModelIndex()).isValid());

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.weigh(0, 3);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed[0][0].toModelIndex(), model.index(0, 0));
        QCOMPARE(changed[0][1].toModelIndex(), model.index(0, 1));
        QCOMPARE(cell(model, 0, 1).toString(), QStringLiteral("3 kg"));
    }

    // The engine side of the problem editor: hardware choices, a spec's mesh read into table rows and written
    // back, and the checks in the order the editor shows them.
    void meshDraftReadsWritesAndChecks() {
        MeshDraft draft;
        const auto builtins = MeshDraft::builtinHardware();
        QVERIFY(!builtins.empty());
        int a100 = -1;
        for (const HardwareChoice& builtin : builtins) {
            const int index = draft.addHardware(builtin.key);
            QVERIFY2(draft.hardwareChoices()[static_cast<std::size_t>(index)].loaded(),
                     qPrintable(draft.hardwareChoices()[static_cast<std::size_t>(index)].error));
            QCOMPARE(draft.hardwareChoices()[static_cast<std::size_t>(index)].displayName,
                     builtin.displayName);
            if (builtin.key == QStringLiteral("a100"))
                a100 = index;
        }
        QVERIFY(a100 >= 0);
        const int missing = draft.addHardware(QStringLiteral("/nonexistent/profile.json"));
        QVERIFY(!draft.hardwareChoices()[static_cast<std::size_t>(missing)].loaded());

        // makeMesh's syntax: link options in the table's units, and back in the engine's.
        const auto axes = draft.readMesh(QStringLiteral("data=2:bw=1e+11:lat=5e-06, model=4:foo=1"), a100);
        QVERIFY(draft.meshSourceError().isEmpty());
        QCOMPARE(axes.size(), std::size_t{2});
        QCOMPARE(axes[0], (MeshAxisDraft{QStringLiteral("data"), QStringLiteral("2"), QStringLiteral("100"),
                                         QStringLiteral("5")}));
        QCOMPARE(axes[1], (MeshAxisDraft{QStringLiteral("model:foo=1"), QStringLiteral("4"), {}, {}}));
        QCOMPARE(MeshDraft::meshText({axes[0]}), QStringLiteral("data=2:bw=100000000000:lat=5e-06"));

        MeshDraftCheck check =
            draft.check(a100, {axes[0], {QStringLiteral("model"), QStringLiteral("4"), {}, {}}}, {});
        QVERIFY2(check.error.isEmpty(), qPrintable(check.error));
        QCOMPARE(check.deviceCount, QStringLiteral("8 devices"));
        QVERIFY(check.hardwareSummary.contains(QStringLiteral("TFLOP/s")));
        QCOMPARE(check.links.size(), std::size_t{2});
        QVERIFY2(check.links[0].text.contains(QStringLiteral("edited")) &&
                     check.links[0].text.contains(QStringLiteral("100 GB/s")),
                 qPrintable(check.links[0].text));
        QVERIFY(!check.links[1].text.contains(QStringLiteral("edited")));
        QVERIFY(!check.links[1].toolTip.isEmpty());

        // Four axes, one of them over two link levels: each level with its devices, its name in the tooltip.
        const int pods = draft.addHardware(QStringLiteral("h100-2pods"));
        check = draft.check(pods,
                            {{QStringLiteral("dp"), QStringLiteral("4"), {}, {}},
                             {QStringLiteral("fsdp"), QStringLiteral("8"), {}, {}},
                             {QStringLiteral("tp"), QStringLiteral("8"), {}, {}},
                             {QStringLiteral("ep"), QStringLiteral("4"), {}, {}}},
                            {});
        QVERIFY2(check.error.isEmpty(), qPrintable(check.error));
        QCOMPARE(check.links.size(), std::size_t{4});
        QCOMPARE(check.links[2].text,
                 QStringLiteral("fast (2) × level 2 (4): 450 GB/s, 2 µs × 50 GB/s, 8 µs"));
        QCOMPARE(check.links[2].toolTip,
                 QStringLiteral("NVLink 4 through NVSwitch (2) × InfiniBand NDR rails inside a pod (4)"));
        QVERIFY2(check.links[0].text.startsWith(QStringLiteral("slow: 25 GB/s")),
                 qPrintable(check.links[0].text));
        QVERIFY2(check.links[3].text.startsWith(QStringLiteral("fast: 450 GB/s")),
                 qPrintable(check.links[3].text));
        QVERIFY(check.hardwareSummary.contains(QStringLiteral("Inter-pod network")));

        // The first problem wins: hardware, link figures, sizes, then the mesh itself.
        check = draft.check(-1, axes, QStringLiteral("width=3"));
        QCOMPARE(check.error, QStringLiteral("Choose a hardware profile"));
        check = draft.check(missing, axes, {});
        QVERIFY2(check.error.startsWith(QStringLiteral("Hardware: ")), qPrintable(check.error));
        QVERIFY(check.hardwareSummary.isEmpty());
        check = draft.check(a100, {{QStringLiteral("data"), QStringLiteral("2"), {}, QStringLiteral("fast")}},
                            QStringLiteral("width=3"));
        QVERIFY2(check.error.contains(QStringLiteral("'fast'")), qPrintable(check.error));
        check = draft.check(a100, {{QStringLiteral("data"), QStringLiteral("2"), {}, {}}},
                            QStringLiteral("width=3"));
        QVERIFY2(check.error.contains(QStringLiteral("unknown size 'width'")), qPrintable(check.error));
        check = draft.check(a100, {{QStringLiteral("data"), QStringLiteral("0"), {}, {}}}, {});
        QVERIFY2(check.error.startsWith(QStringLiteral("Mesh: ")), qPrintable(check.error));
        QCOMPARE(check.deviceCount, QStringLiteral("? devices"));
        QVERIFY(check.links.empty());

        // A mesh source that does not read shows no axes and says why until the user edits them.
        QVERIFY(draft.readMesh(QStringLiteral("{\"axes\": 3}"), a100).empty());
        QVERIFY(!draft.meshSourceError().isEmpty());
        QCOMPARE(draft.check(a100, {}, {}).error, draft.meshSourceError());
        draft.clearMeshSourceError();
        QVERIFY(draft.meshSourceError().isEmpty());

        // Global sizes: a line, parsed back into the spec; one that does not parse keeps the spec's.
        ProblemSpec spec;
        spec.sizes = {{"batch", 64}, {"seq", 512}};
        QCOMPARE(MeshDraft::sizesText(spec), QStringLiteral("batch=64,seq=512"));
        MeshDraft::applySizes(QStringLiteral("width=3"), spec);
        QCOMPARE(spec.sizes.size(), std::size_t{2});
        MeshDraft::applySizes(QStringLiteral("sequence=128, batch=2"), spec);
        QCOMPARE(spec.sizes, (std::map<std::string, std::int64_t>{{"batch", 2}, {"seq", 128}}));
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
