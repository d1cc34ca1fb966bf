// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The plans table (from a workspace and live), a plan's breakdown (collectives, time per module and op,
// memory over the step) and the widgets that show them.
#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include <QAbstractItemModelTester>
#include <QDir>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "core/plan_breakdown.h"
#include "core/plan_table_model.h"
#include "core/problem_loader.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/store/workspace.h"
#include "test_paths.h"
#include "ui_test_support.h"
#include "widgets/memory_chart.h"
#include "widgets/plan_breakdown_view.h"

using namespace shardscope;
using namespace shardscope::ui;

namespace {

constexpr int kTimeoutMs = 60'000;
using ProblemPtr = std::shared_ptr<const ProblemView>;
const auto kReport = QAbstractItemModelTester::FailureReportingMode::QtTest;

bool near(double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

// Where the tests leave their pictures (the build tree), to look at.
QString shotPath(const QString& name) {
    QDir dir(shardscope::testing::binaryDir() + QStringLiteral("/ui_screenshot"));
    dir.mkpath(QStringLiteral("."));
    return dir.filePath(name);
}

}  // namespace

class TestUiPlans : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        ProblemRequest request;
        request.spec.model = "zoo:demo";
        request.spec.mesh = "data=2,model=4";
        demo_ = fixtures::loadThroughLoader(request);
        QVERIFY(demo_);
        const auto& context = demo_->problem->costModel->planContext();
        auto megatron = plan::expertPlan("megatron", context, demo_->mesh());
        auto dp = plan::expertPlan("dp", context, demo_->mesh());
        QVERIFY(megatron.ok() && dp.ok());
        megatron_ = *megatron;
        dp_ = *dp;
    }

    void tableReadsAWorkspaceSortsAndTakesLivePlans() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("plans.shardscope"));
        const auto& context = demo_->problem->costModel->planContext();
        std::int64_t session = 0;
        struct Saved {
            plan::Plan plan;
            cost::Evaluation evaluation;
        };
        std::vector<Saved> saved;
        {
            store::ModelRecord model;
            model.source = "zoo:demo";
            auto workspace = store::Workspace::create(path.toStdString(), model);
            QVERIFY(workspace.ok());
            auto added =
                workspace->addSession("first", R"({"problem": )" + problemSpecJson(*demo_->problem) + "}");
            QVERIFY(added.ok());
            session = *added;
            const char* origins[] = {"expert:megatron", "expert:dp", "user"};
            int i = 0;
            for (const plan::Plan& candidate : {megatron_, dp_, plan::Plan{}}) {
                const auto evaluation = cost::evaluate(*demo_->problem->costModel, candidate);
                saved.push_back({candidate, evaluation});
                store::PlanRecord record;
                record.session = session;
                record.plan = plan::toJson(candidate, context, demo_->mesh());
                // The search's summary JSON has no collectives (the volume is computed); the second plan's
                // states its volume.
                record.evaluation = i == 1 ? R"({"collective_bytes": 12345})" : R"({"step_time_s": 1})";
                record.stepTime = evaluation.stepTime;
                record.peakMemory = evaluation.peakMemory;
                record.feasible = evaluation.feasible;
                record.foundAfterSeconds = 0.5 * i;
                record.iteration = 10 * i;
                record.origin = origins[i];
                record.label = "plan " + std::to_string(i);
                workspace->savePlan(record);
                ++i;
            }
            QVERIFY(workspace->flush().ok());
        }

        PlanTableModel model;
        QAbstractItemModelTester tester(&model, kReport);
        QSortFilterProxyModel sorted;
        sorted.setSourceModel(&model);
        sorted.setSortRole(SortRole);
        QAbstractItemModelTester sortedTester(&sorted, kReport);

        model.setProblem(demo_);
        QSignalSpy loaded(&model, &PlanTableModel::loaded);
        model.loadWorkspace(path, session);
        QVERIFY(model.isLoading());
        QVERIFY(QTest::qWaitFor([&] { return !loaded.isEmpty(); }, kTimeoutMs));
        QCOMPARE(loaded.first().first().toInt(), 3);
        QCOMPARE(model.rowCount(), 3);
        for (int row = 0; row < 3; ++row) {
            const PlanRow* r = model.rowAt(row);
            QVERIFY(r);
            QVERIFY(r->id > 0);
            QVERIFY(r->plan.has_value());
            QVERIFY(*r->plan == saved[static_cast<std::size_t>(row)].plan);
            QCOMPARE(r->stepTime, saved[static_cast<std::size_t>(row)].evaluation.stepTime);
            const double volume =
                row == 1 ? 12345.0 : collectiveBytesOf(saved[static_cast<std::size_t>(row)].evaluation);
            QCOMPARE(r->collectiveBytes, volume);
            QCOMPARE(model.index(row, PlanTableModel::OriginColumn).data().toString(),
                     QString::fromLatin1(row == 0   ? "expert:megatron"
                                         : row == 1 ? "expert:dp"
                                                    : "user"));
            QCOMPARE(model.index(row, PlanTableModel::IdColumn).data(PlanTableModel::PlanIdRole).toLongLong(),
                     r->id);
        }
        QVERIFY(collectiveBytesOf(saved[0].evaluation) > 0);  // Megatron all-reduces its activations

        // Sorting by step time (numbers, not text) puts the fastest first.
        sorted.sort(PlanTableModel::StepTimeColumn, Qt::AscendingOrder);
        for (int row = 1; row < sorted.rowCount(); ++row)
            QVERIFY(sorted.index(row - 1, PlanTableModel::StepTimeColumn).data(SortRole).toDouble() <=
                    sorted.index(row, PlanTableModel::StepTimeColumn).data(SortRole).toDouble());
        const int fastest = sorted.index(0, 0).data(PlanTableModel::RowRole).toInt();
        double best = 1e300;
        for (const auto& s : saved)
            best = std::min(best, s.evaluation.stepTime);
        QCOMPARE(model.rowAt(fastest)->stepTime, best);

        // A search reports a new best: a row appears (and sorts into place); the same id again replaces it.
        plan::Plan found = megatron_;
        found.label = "found";
        const auto evaluation = cost::evaluate(*demo_->problem->costModel, found);
        const int live = model.addPlan(planRowOf(found, evaluation, QStringLiteral("search"), 1.5, 42, 99));
        QCOMPARE(live, 3);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(sorted.rowCount(), 4);
        QCOMPARE(model.index(live, PlanTableModel::FoundColumn).data(SortRole).toDouble(), 1.5);
        QCOMPARE(model.index(live, PlanTableModel::LabelColumn).data().toString(), QStringLiteral("found"));
        QVERIFY(*model.planAt(live) == found);
        QCOMPARE(model.planIdAt(live), std::int64_t{99});
        QCOMPARE(model.addPlan(planRowOf(found, evaluation, QStringLiteral("search"), 2.0, 50, 99)), live);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.rowAt(live)->iteration, std::int64_t{50});
        model.setLabel(live, QStringLiteral("mine"));
        QCOMPARE(model.index(live, PlanTableModel::LabelColumn).data().toString(), QStringLiteral("mine"));

        // Loading again leaves the plans already there alone.
        loaded.clear();
        model.loadWorkspace(path, session);
        QVERIFY(QTest::qWaitFor([&] { return !loaded.isEmpty(); }, kTimeoutMs));
        QCOMPARE(model.rowCount(), 4);

        // A file that does not open is reported, not thrown.
        QSignalSpy failed(&model, &PlanTableModel::loadFailed);
        model.loadWorkspace(dir.filePath(QStringLiteral("missing.shardscope")), session);
        QVERIFY(QTest::qWaitFor([&] { return !failed.isEmpty(); }, kTimeoutMs));
        QVERIFY(!model.isLoading());

        // A new problem empties the table, and a load cancelled by it never reports.
        loaded.clear();
        model.loadWorkspace(path, session);
        model.setProblem(demo_);
        QCOMPARE(model.rowCount(), 0);
        QTest::qWait(200);
        QVERIFY(loaded.isEmpty());
        QCOMPARE(model.rowCount(), 0);
    }

    void breakdownMatchesTheEvaluation() {
        cost::Evaluator evaluator(*demo_->problem->costModel);
        const PlanBreakdown b = computeBreakdown(*demo_, evaluator, megatron_);
        const cost::Evaluation e = cost::evaluate(*demo_->problem->costModel, megatron_);
        QCOMPARE(b.evaluation.stepTime, e.stepTime);

        // Collectives: the evaluation's, with their ops located in the body.
        QCOMPARE(b.collectives.size(), e.collectives.size());
        QVERIFY(!b.collectives.empty());  // Megatron all-reduces
        std::multiset<int> kinds, expected;
        for (std::size_t i = 0; i < e.collectives.size(); ++i) {
            kinds.insert(static_cast<int>(b.collectives[i].kind));
            expected.insert(static_cast<int>(e.collectives[i].kind));
            QCOMPARE(b.collectives[i].bytes, e.collectives[i].bytes);
            QCOMPARE(demo_->graph().body[b.collectives[i].bodyIndex], e.collectives[i].op);
            QVERIFY(!b.collectives[i].axes.isEmpty());
            QVERIFY(!b.collectives[i].opLabel.isEmpty());
        }
        QVERIFY(kinds == expected);

        // Time: the modules' own ops add up to the compute time, and so does the root's subtree.
        QCOMPARE(b.modules.size(), demo_->modules.modules.size());
        double self = 0, collectives = 0;
        for (const auto& m : b.modules) {
            self += m.selfCompute;
            collectives += m.selfCollectives;
        }
        QVERIFY2(near(self, e.computeTime),
                 qPrintable(QString::number(self) + " vs " + QString::number(e.computeTime)));
        QVERIFY(near(b.modules.front().compute, e.computeTime));
        double collectiveTime = 0;
        for (const auto& c : e.collectives)
            collectiveTime += c.time;
        QVERIFY(near(collectives, collectiveTime));
        QCOMPARE(b.ops.size(), demo_->graph().body.size());

        // Memory: one sample per op on this small model; its maximum is the peak, at the peak op.
        const MemoryOverStep& m = b.memory;
        QCOMPARE(m.ops.size(), demo_->graph().body.size());
        QCOMPARE(m.bytes.size(), m.ops.size());
        const auto top = std::max_element(m.bytes.begin(), m.bytes.end());
        QVERIFY(near(*top, e.peakMemory));
        QVERIFY(near(m.bytes[e.peakOp], e.peakMemory));
        QCOMPARE(m.peakOp, e.peakOp);
        QCOMPARE(m.capacity, e.capacity);

        // The models, under the tester, in both groupings.
        auto shared = std::make_shared<const PlanBreakdown>(b);
        PlanCollectiveModel collectiveModel;
        QAbstractItemModelTester collectiveTester(&collectiveModel, kReport);
        collectiveModel.setBreakdown(shared);
        QCOMPARE(collectiveModel.rowCount(), static_cast<int>(e.collectives.size()));
        QCOMPARE(collectiveModel.index(0, PlanCollectiveModel::KindColumn).data().toString(),
                 QString::fromLatin1(cost::toString(e.collectives[0].kind).data()));
        QCOMPARE(collectiveModel.index(0, PlanCollectiveModel::OpColumn)
                     .data(PlanCollectiveModel::BodyIndexRole)
                     .toULongLong(),
                 static_cast<qulonglong>(b.collectives[0].bodyIndex));
        QCOMPARE(collectiveModel.index(0, PlanCollectiveModel::BytesColumn).data(SortRole).toDouble(),
                 e.collectives[0].bytes);
        PlanTimeModel timeModel;
        QAbstractItemModelTester timeTester(&timeModel, kReport);
        timeModel.setBreakdown(demo_, shared);
        QCOMPARE(timeModel.rowCount(), static_cast<int>(b.modules.size()));
        QVERIFY(
            near(timeModel.index(0, PlanTimeModel::ComputeColumn).data(SortRole).toDouble(), e.computeTime));
        timeModel.setGrouping(PlanTimeModel::Grouping::Op);
        QCOMPARE(timeModel.rowCount(), static_cast<int>(b.ops.size()));
        double perOp = 0;
        for (int row = 0; row < timeModel.rowCount(); ++row)
            perOp += timeModel.index(row, PlanTimeModel::ComputeColumn).data(SortRole).toDouble();
        QVERIFY(near(perOp, e.computeTime));
        collectiveModel.setBreakdown(nullptr);
        timeModel.setBreakdown(nullptr, nullptr);
        QCOMPARE(timeModel.rowCount(), 0);
    }

    void inspectorReportsOnlyTheNewestPlan() {
        PlanInspector inspector;
        inspector.setProblem(demo_);
        QSignalSpy inspected(&inspector, &PlanInspector::inspected);
        inspector.inspect(dp_);
        const std::uint64_t newest = inspector.inspect(megatron_);
        QVERIFY(QTest::qWaitFor([&] { return !inspector.isBusy(); }, kTimeoutMs));
        QTest::qWait(50);
        QCOMPARE(inspected.count(), 1);
        const auto breakdown = inspected.first().first().value<std::shared_ptr<const PlanBreakdown>>();
        QCOMPARE(breakdown->generation, newest);
        QVERIFY(breakdown->plan == megatron_);
    }

    void viewShowsABreakdownAndLocatesOps() {
        PlanBreakdownView view;
        view.resize(760, 420);
        view.setProblem(demo_);
        QSignalSpy shown(&view, &PlanBreakdownView::breakdownShown);
        QSignalSpy located(&view, &PlanBreakdownView::locateOp);
        view.show();
        view.showPlan(megatron_);
        QVERIFY(QTest::qWaitFor([&] { return !shown.isEmpty(); }, kTimeoutMs));
        QVERIFY(view.breakdown());
        QCOMPARE(view.memoryChart()->curves().size(), std::size_t{1});

        auto* table = view.tabs()->widget(0)->findChild<QTableView*>();
        QVERIFY(table);
        QVERIFY(table->model()->rowCount() > 0);
        const QModelIndex first = table->model()->index(0, PlanCollectiveModel::KindColumn);
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(first).center());
        QCOMPARE(located.count(), 1);
        QCOMPARE(located.first().first().value<std::size_t>(),
                 static_cast<std::size_t>(first.data(PlanCollectiveModel::BodyIndexRole).toULongLong()));

        for (int tab = 0; tab < view.tabs()->count(); ++tab) {
            view.tabs()->setCurrentIndex(tab);
            QVERIFY(view.grab().toImage().save(shotPath(QStringLiteral("plan_breakdown_%1.png").arg(tab))));
        }
    }

    void chartDrawsOneAndTwoCurves() {
        cost::Evaluator evaluator(*demo_->problem->costModel);
        std::vector<MemoryCurve> curves;
        for (const plan::Plan* p : {&megatron_, &dp_}) {
            const PlanBreakdown b = computeBreakdown(*demo_, evaluator, *p);
            curves.push_back(
                memoryCurveOf(b.memory, p == &dp_ ? QStringLiteral("dp") : QStringLiteral("megatron")));
        }
        MemoryChart chart;
        chart.resize(600, 280);
        chart.setOpText([this](std::size_t op) { return opText(*demo_, op); });
        const QImage empty = chart.grab().toImage();
        chart.setCurves({curves.front()}, demo_->graph().body.size());
        const QImage one = chart.grab().toImage();
        chart.setCurves(curves, demo_->graph().body.size());
        const QImage two = chart.grab().toImage();
        QVERIFY(!one.isNull() && !two.isNull());
        QVERIFY(one != empty);
        QVERIFY(two != one);
        // The second curve's colour is on the picture.
        const QColor second = chart.curves()[1].color;
        bool found = false;
        for (int y = 0; y < two.height() && !found; ++y)
            for (int x = 0; x < two.width() && !found; ++x)
                found = two.pixelColor(x, y) == second;
        QVERIFY(found);
        QVERIFY(one.save(shotPath(QStringLiteral("memory_chart_one.png"))));
        QVERIFY(two.save(shotPath(QStringLiteral("memory_chart_two.png"))));
        // Hovering names the op under the mouse.
        std::set<std::size_t> asked;
        chart.setOpText([&](std::size_t op) {
            asked.insert(op);
            return opText(*demo_, op);
        });
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QTest::mouseMove(&chart, QPoint(chart.width() / 2, chart.height() / 2));
        QTRY_VERIFY(!asked.empty());
        const std::size_t hovered = *asked.begin();
        QVERIFY(hovered > 0 && hovered + 1 < demo_->graph().body.size());
    }

    // A training step: the memory walk on every op (or on samples, with the peak among them) stays within
    // seconds, off the UI thread anyway; the figures agree with the evaluation.
    void breakdownOfATrainingStep() {
        ProblemRequest request;
        request.spec.model =
            qEnvironmentVariable("SHARDSCOPE_PLANS_MODEL", QStringLiteral("zoo:gpt:layers=4")).toStdString();
        request.spec.train = true;
        request.spec.mesh = "data=2,model=4";
        const ProblemPtr problem = fixtures::loadThroughLoader(request);
        QVERIFY(problem);
        auto megatron =
            plan::expertPlan("megatron", problem->problem->costModel->planContext(), problem->mesh());
        QVERIFY(megatron.ok());
        cost::Evaluator evaluator(*problem->problem->costModel);
        QElapsedTimer timer;
        timer.start();
        const PlanBreakdown b = computeBreakdown(*problem, evaluator, *megatron);
        const qint64 ms = timer.elapsed();
        qInfo("breakdown of %zu ops, %zu values, %zu memory samples: %lld ms", problem->graph().body.size(),
              problem->graph().values.size(), b.memory.ops.size(), static_cast<long long>(ms));
        QVERIFY(b.memory.ops.size() <= kMemorySamples + 1);
        const auto peak = std::find(b.memory.ops.begin(), b.memory.ops.end(), b.evaluation.peakOp);
        QVERIFY(peak != b.memory.ops.end());
        QVERIFY(near(b.memory.bytes[static_cast<std::size_t>(peak - b.memory.ops.begin())],
                     b.evaluation.peakMemory));
        QVERIFY(
            near(*std::max_element(b.memory.bytes.begin(), b.memory.bytes.end()), b.evaluation.peakMemory));
        QVERIFY(near(b.modules.front().compute, b.evaluation.computeTime));
        QCOMPARE(b.collectives.size(), b.evaluation.collectives.size());
    }

private:
    ProblemPtr demo_;
    plan::Plan megatron_, dp_;
};

QTEST_MAIN(TestUiPlans)
#include "tst_ui_plans.moc"
