// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The search tree explorer (a session's stored tree, read lazily), the listing of a workspace's sessions, and
// the comparison of two plans.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <QAbstractItemModelTester>
#include <QDir>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include "core/plan_comparison.h"
#include "core/search_tree_model.h"
#include "core/workspace_listing.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/report/model_report.h"
#include "shardscope/search/search.h"
#include "shardscope/store/workspace.h"
#include "test_paths.h"
#include "test_support.h"
#include "widgets/compare_view.h"

#include "ui_test_support.h"

using namespace shardscope;
using namespace shardscope::ui;

namespace {

using fixtures::viewOf;

fixtures::ViewPtr loadView(const std::string& model, const std::string& mesh) {
    ProblemSpec spec;
    spec.model = model;
    spec.mesh = mesh;
    return fixtures::loadView(spec);
}

constexpr int kTimeoutMs = 60'000;
using ViewPtr = std::shared_ptr<const ProblemView>;

plan::Plan expert(const ProblemView& view, const char* id) {
    auto plan = plan::expertPlan(id, view.problem->costModel->planContext(), view.mesh());
    if (!plan)
        qFatal("expert plan %s: %s", id, plan.errorMessage().c_str());
    return plan.value();
}

// What app/cli/planning.cpp's Reporter records: the tree's changes with each progress report, and every new
// best plan. It also links the root to the newest best plan, which the CLI does not (yet) do.
class Recorder : public search::SearchObserver {
public:
    Recorder(const Problem& problem, store::Workspace& workspace, std::int64_t session)
        : problem_(problem), workspace_(workspace), session_(session) {}
    void attach(search::Search* search) { search_ = search; }
    void progress(const search::Progress&) override { saveTree(); }
    void newBest(const search::Found& f) override {
        store::PlanRecord record;
        record.session = session_;
        record.plan = plan::toJson(f.plan, problem_.costModel->planContext(), problem_.mesh);
        record.evaluation = "{}";
        record.stepTime = f.evaluation.stepTime;
        record.peakMemory = f.evaluation.peakMemory;
        record.feasible = f.evaluation.feasible;
        record.foundAfterSeconds = f.seconds;
        record.iteration = f.iteration;
        record.origin = f.origin;
        bestPlan = workspace_.savePlan(std::move(record));
    }
    void saveTree() {
        if (!search_)
            return;
        std::vector<store::TreeNodeRecord> nodes;
        for (const auto& n : search_->changedNodes())
            nodes.push_back(
                {n.id, n.parent, n.action, n.visits, n.valueSum, n.best, n.id == 0 ? bestPlan : 0, n.status});
        if (!nodes.empty())
            workspace_.saveNodes(session_, std::move(nodes));
    }
    std::int64_t bestPlan = 0;

private:
    const Problem& problem_;
    store::Workspace& workspace_;
    std::int64_t session_;
    search::Search* search_ = nullptr;
};

// Runs a recorded search of `iterations` on `view`'s problem from `start` into a new session.
std::int64_t recordSearch(store::Workspace& workspace, const ProblemView& view, const plan::Plan& start,
                          const std::string& name, std::int64_t iterations) {
    const Problem& problem = *view.problem;
    QJsonObject settings;
    settings.insert(QStringLiteral("problem"),
                    QJsonDocument::fromJson(QByteArray::fromStdString(problemSpecJson(problem))).object());
    settings.insert(QStringLiteral("pins"),
                    QJsonDocument::fromJson(QByteArray::fromStdString(plan::toJson(
                                                start, problem.costModel->planContext(), problem.mesh)))
                        .object());
    auto session = workspace.addSession(name, QJsonDocument(settings).toJson().toStdString());
    if (!session)
        qFatal("addSession: %s", session.errorMessage().c_str());
    search::SearchOptions options;
    options.threads = 1;
    options.seed = 7;
    options.budget.iterations = iterations;
    Recorder recorder(problem, workspace, *session);
    search::Search engine(*problem.costModel, start, options);
    recorder.attach(&engine);
    engine.run(&recorder);
    recorder.saveTree();
    if (auto flushed = workspace.flush(); !flushed)
        qFatal("flush: %s", flushed.errorMessage().c_str());
    return *session;
}

// Reads every level of the tree (as a user expanding every node would).
void expandAll(SearchTreeModel& model) {
    std::vector<QModelIndex> queue{QModelIndex()};
    while (!queue.empty()) {
        const QModelIndex parent = queue.back();
        queue.pop_back();
        if (model.canFetchMore(parent))
            model.fetchMore(parent);
        if (!QTest::qWaitFor([&] { return !model.isFetching(); }, kTimeoutMs))
            qFatal("timed out reading the tree");
        for (int row = 0; row < model.rowCount(parent); ++row)
            queue.push_back(model.index(row, 0, parent));
    }
}

std::set<std::size_t> differingOps(const ProblemView& view, const plan::Plan& a, const plan::Plan& b) {
    cost::Evaluator ea(*view.problem->costModel), eb(*view.problem->costModel);
    ea.evaluate(a);
    eb.evaluate(b);
    const ir::Graph& graph = view.graph();
    std::set<std::size_t> out;
    for (std::size_t i = 0; i < graph.body.size(); ++i) {
        const ir::Op& op = graph.ops[graph.body[i].index];
        for (const auto* list : {&op.operands, &op.results})
            for (ir::ValueId v : *list)
                if (!(ea.sharding(v) == eb.sharding(v)))
                    out.insert(i);
    }
    return out;
}

std::shared_ptr<const PlanComparison> compareAndWait(PlanComparer& comparer, ViewPtr a,
                                                     const plan::Plan& planA, ViewPtr b,
                                                     const plan::Plan& planB) {
    QSignalSpy compared(&comparer, &PlanComparer::compared);
    comparer.compare(a, planA, QStringLiteral("A"), b, planB, QStringLiteral("B"));
    if (!compared.wait(kTimeoutMs))
        qFatal("timed out comparing");
    return comparer.result();
}

void checkModels(const std::shared_ptr<const PlanComparison>& comparison) {
    DecisionDifferenceModel decisions;
    CollectiveDifferenceModel collectives;
    ShardingDifferenceModel ops;
    QAbstractItemModelTester t1(&decisions, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(&collectives, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t3(&ops, QAbstractItemModelTester::FailureReportingMode::QtTest);
    decisions.setComparison(comparison);
    collectives.setComparison(comparison);
    ops.setComparison(comparison);
    QCOMPARE(decisions.rowCount(), static_cast<int>(comparison->decisions.size()));
    QCOMPARE(collectives.rowCount(), static_cast<int>(comparison->collectives.size()));
    QCOMPARE(ops.rowCount(), static_cast<int>(comparison->ops.size()));
    for (int row = 0; row < ops.rowCount(); ++row)
        QCOMPARE(ops.index(row, 0).data(ShardingDifferenceModel::BodyIndexRole).toULongLong(),
                 static_cast<qulonglong>(comparison->ops[static_cast<std::size_t>(row)].bodyIndex));
}

}  // namespace

class TestUiCompare : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        demo_ = loadView("zoo:demo", "data=2,model=4");
        wide_ = loadView("zoo:demo", "data=8");
        store::ModelRecord model;
        model.source = "zoo:demo";
        model.loadOptions = "{}";
        auto created =
            store::Workspace::create(dir_.filePath(QStringLiteral("demo.shardscope")).toStdString(), model);
        QVERIFY2(created.ok(), created.errorMessage().c_str());
        workspace_ = std::make_shared<store::Workspace>(std::move(created).value());
        QElapsedTimer timer;
        timer.start();
        session_ = recordSearch(*workspace_, *demo_, plan::Plan{}, "demo 2x4", 400);
        // The second session starts from a pin: the largest candidate of its action space.
        const search::ActionSpace space(*wide_->problem->costModel);
        QVERIFY(!space.candidates().empty());
        pinned_.decisions.push_back(space.candidates().front().decision);
        pinned_.pinned = 1;
        wideSession_ = recordSearch(*workspace_, *wide_, pinned_, "demo 8 pinned", 200);
        qInfo("two recorded searches: %lld ms, %lld + %lld nodes", static_cast<long long>(timer.elapsed()),
              static_cast<long long>(workspace_->nodeCount(session_)),
              static_cast<long long>(workspace_->nodeCount(wideSession_)));
    }

    void treeModelReadsLevelsLazily() {
        {
            // Without a tester, which reads every level it sees: a level is read when it is asked for.
            SearchTreeModel lazy;
            QSignalSpy fetched(&lazy, &SearchTreeModel::fetched);
            lazy.setSession(workspace_, session_);
            QVERIFY(lazy.isFetching());  // the read runs on a worker; nothing blocks here
            QVERIFY(QTest::qWaitFor([&] { return !lazy.isFetching(); }, kTimeoutMs));
            QCOMPARE(lazy.rowCount(), 1);
            const QModelIndex root = lazy.index(0, 0);
            QCOMPARE(lazy.record(root).id, std::int64_t{0});
            QVERIFY(lazy.hasChildren(root));
            QCOMPARE(lazy.rowCount(root), 0);  // not read before it is expanded
            QVERIFY(lazy.canFetchMore(root));
            lazy.fetchMore(root);
            QVERIFY(!lazy.canFetchMore(root));  // one read per level
            QVERIFY(QTest::qWaitFor([&] { return !lazy.isFetching(); }, kTimeoutMs));
            QVERIFY(lazy.rowCount(root) > 0);
            QCOMPARE(fetched.size(), 2);
            QVERIFY(!fetched.at(0).at(0).toModelIndex().isValid());
            QCOMPARE(fetched.at(1).at(0).toModelIndex(), root);
        }
        SearchTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSession(workspace_, session_);
        expandAll(model);
        const QModelIndex root = model.index(0, 0);
        QCOMPARE(model.storedNodeCount(), workspace_->nodeCount(session_));
        std::int64_t seen = 0, stops = 0, ended = 0;
        std::vector<QModelIndex> queue{root};
        while (!queue.empty()) {
            const QModelIndex index = queue.back();
            queue.pop_back();
            ++seen;
            const auto record = model.record(index);
            std::int64_t childVisits = 0;
            for (int row = 0; row < model.rowCount(index); ++row) {
                const QModelIndex child = model.index(row, 0, index);
                QCOMPARE(model.record(child).parent, record.id);
                childVisits += model.record(child).visits;
                queue.push_back(child);
            }
            QVERIFY2(childVisits <= record.visits, qPrintable(QStringLiteral("node %1").arg(record.id)));
            const QString status = index.data(SearchTreeModel::RawStatusRole).toString();
            QCOMPARE(index.siblingAtColumn(SearchTreeModel::StatusColumn).data().toString(),
                     SearchTreeModel::statusText(status));
            QCOMPARE(index.data(SearchTreeModel::EndedRole).toBool(), !status.isEmpty());
            if (!status.isEmpty()) {
                ++ended;
                QVERIFY(!SearchTreeModel::statusText(status).isEmpty());
            }
            if (status == QLatin1String("stop")) {
                ++stops;
                QVERIFY(!model.hasChildren(index));
                QCOMPARE(model.rowCount(index), 0);
            }
            if (record.visits > 0) {
                const double mean =
                    index.siblingAtColumn(SearchTreeModel::MeanColumn).data(SortRole).toDouble();
                QVERIFY(std::abs(mean - record.valueSum / static_cast<double>(record.visits)) < 1e-12);
            }
        }
        QCOMPARE(seen, workspace_->nodeCount(session_));
        QVERIFY(stops > 0);
        QVERIFY(ended >= stops);
        QCOMPARE(
            model.index(0, SearchTreeModel::PlanColumn).data(SearchTreeModel::PlanIdRole).toLongLong() > 0,
            true);
        // With the lower bound, the best column reads as the best plan's step time below the node.
        const double lowerBound = demo_->problem->costModel->lowerBoundTime();
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setLowerBoundTime(lowerBound);
        QVERIFY(!changed.isEmpty());
        const auto best = workspace_->plan(model.record(root).plan);
        QVERIFY(best.has_value());
        QCOMPARE(model.index(0, SearchTreeModel::BestColumn).data().toString(),
                 QString::fromStdString(report::formatTime(best->stepTime)));
        QCOMPARE(SearchTreeModel::rewardText(0.5 + 0.5 * 0.25, 1e-3),
                 QString::fromStdString(report::formatTime(4e-3)));
        QVERIFY(SearchTreeModel::rewardText(0.125, 1e-3).contains(QStringLiteral("2.00×")));
        qInfo("%lld nodes, %lld stops, %lld ended branches", static_cast<long long>(seen),
              static_cast<long long>(stops), static_cast<long long>(ended));
    }

    void refreshPicksUpNewNodes() {
        // A tree read while the search was young grows when the search writes more.
        const QString path = dir_.filePath(QStringLiteral("growing.shardscope"));
        store::ModelRecord model;
        model.source = "zoo:demo";
        auto created = store::Workspace::create(path.toStdString(), model);
        QVERIFY(created.ok());
        auto workspace = std::make_shared<store::Workspace>(std::move(created).value());
        auto session = workspace->addSession("growing", "{}");
        QVERIFY(session.ok());
        workspace->saveNodes(*session,
                             {{0, -1, "root", 1, 0.5, 0.5, 0, ""}, {1, 0, "stop", 1, 0.5, 0.5, 0, "stop"}});
        QVERIFY(workspace->flush().ok());
        SearchTreeModel tree;
        QAbstractItemModelTester tester(&tree, QAbstractItemModelTester::FailureReportingMode::QtTest);
        tree.setSession(workspace, *session);
        expandAll(tree);
        const QModelIndex root = tree.index(0, 0);
        QCOMPARE(tree.rowCount(root), 1);
        workspace->saveNodes(*session,
                             {{0, -1, "root", 3, 1.4, 0.6, 0, ""}, {2, 0, "x", 2, 0.9, 0.6, 0, ""}});
        QVERIFY(workspace->flush().ok());
        QSignalSpy changed(&tree, &QAbstractItemModel::dataChanged);
        tree.refresh();
        QVERIFY(QTest::qWaitFor([&] { return !tree.isFetching(); }, kTimeoutMs));
        QCOMPARE(tree.rowCount(root), 2);
        QCOMPARE(tree.record(root).visits, std::int64_t{3});
        QVERIFY(!changed.isEmpty());
        QCOMPARE(tree.actionPath(tree.index(1, 0, root)), std::vector<std::string>{"x"});
        // A new session drops reads still running for the old one.
        tree.refresh();
        tree.setSession(nullptr, 0);
        QCOMPARE(tree.rowCount(), 0);
        QTest::qWait(50);
        QCOMPARE(tree.rowCount(), 0);
    }

    // The session docks' workspace: opened and listed off the UI thread; only the newest request reports.
    void workspaceListingOpensAndLists() {
        WorkspaceListing listing;
        QSignalSpy opened(&listing, &WorkspaceListing::opened);
        QSignalSpy failed(&listing, &WorkspaceListing::failed);
        QSignalSpy listed(&listing, &WorkspaceListing::listed);
        listing.refresh();  // nothing open yet: nothing to list
        const QString path = QString::fromStdString(workspace_->path());
        listing.open(
            dir_.filePath(QStringLiteral("missing/nowhere.shardscope")));  // superseded: never reports
        listing.open(path);
        QVERIFY(opened.wait(kTimeoutMs));
        QTest::qWait(50);
        QCOMPARE(opened.size(), 1);
        QCOMPARE(failed.size(), 0);
        QCOMPARE(listed.size(), 0);
        QVERIFY(listing.workspace());
        QCOMPARE(opened[0][0].value<WorkspaceHandle>(), listing.workspace());
        QCOMPARE(listing.path(), path);
        QCOMPARE(listing.sessions(),
                 (QVector<WorkspaceSession>{{session_, QStringLiteral("demo 2x4")},
                                            {wideSession_, QStringLiteral("demo 8 pinned")}}));

        // Listed again: nothing changed, nothing reported; a session written meanwhile is.
        listing.refresh();
        QTest::qWait(100);
        QCOMPARE(listed.size(), 0);
        const QString grown = dir_.filePath(QStringLiteral("listed.shardscope"));
        store::ModelRecord model;
        model.source = "zoo:demo";
        auto created = store::Workspace::create(grown.toStdString(), model);
        QVERIFY(created.ok());
        auto writer = std::make_shared<store::Workspace>(std::move(created).value());
        QVERIFY(writer->addSession("first", "{}").ok());
        QVERIFY(writer->flush().ok());
        listing.open(grown);
        QVERIFY(opened.wait(kTimeoutMs));
        QCOMPARE(listing.sessions().size(), 1);
        QVERIFY(writer->addSession("second", "{}").ok());
        QVERIFY(writer->flush().ok());
        listing.refresh();
        QVERIFY(listed.wait(kTimeoutMs));
        QCOMPARE(listing.sessions().size(), 2);
        QCOMPARE(listing.sessions().back().name, QStringLiteral("second"));

        // A file that does not open says so; clear() forgets the workspace and drops what is under way.
        listing.open(dir_.filePath(QStringLiteral("missing/nowhere.shardscope")));
        QVERIFY(failed.wait(kTimeoutMs));
        QVERIFY(failed[0][0].toString().contains(QStringLiteral("nowhere")));
        QCOMPARE(listing.path(), QString::fromStdString(writer->path()));  // the open one stays
        listing.open(path);
        listing.clear();
        QTest::qWait(100);
        QCOMPARE(opened.size(), 2);
        QVERIFY(!listing.workspace());
        QVERIFY(listing.sessions().isEmpty());
    }

    void pathsRebuildTheirPlans() {
        // A stop node's rollouts evaluate exactly the plan of its path (nothing is added after a stop), so
        // that plan's reward is the node's best and its mean. Other nodes' best comes from random rollouts
        // below them, which the tree does not record: for them only that the path parses is checked.
        for (const auto& [view, session, start] :
             {std::tuple{demo_, session_, plan::Plan{}}, std::tuple{wide_, wideSession_, pinned_}}) {
            SearchTreeModel model;
            model.setSession(workspace_, session);
            expandAll(model);
            const cost::CostModel& costModel = *view->problem->costModel;
            store::SessionRecord record;
            for (const auto& s : workspace_->sessions())
                if (s.id == session)
                    record = s;
            auto startPlan = sessionStartPlan(record, costModel);
            QVERIFY2(startPlan.ok(), startPlan.errorMessage().c_str());
            QCOMPARE(startPlan->decisions, start.decisions);
            int checked = 0, parsed = 0;
            std::vector<QModelIndex> queue{model.index(0, 0)};
            while (!queue.empty()) {
                const QModelIndex index = queue.back();
                queue.pop_back();
                for (int row = 0; row < model.rowCount(index); ++row)
                    queue.push_back(model.index(row, 0, index));
                auto plan = planOfPath(costModel, *startPlan, model.actionPath(index));
                QVERIFY2(plan.ok(), plan.errorMessage().c_str());
                ++parsed;
                const auto node = model.record(index);
                if (node.status != "stop" || node.visits == 0)
                    continue;
                const double r = search::reward(cost::evaluate(costModel, *plan), costModel.lowerBoundTime());
                QVERIFY2(std::abs(r - node.best) < 1e-12, qPrintable(QStringLiteral("node %1").arg(node.id)));
                QVERIFY(std::abs(r - node.valueSum / static_cast<double>(node.visits)) < 1e-12);
                ++checked;
            }
            QVERIFY(checked > 0);
            // The root's best is the best plan's reward; the root links that plan.
            const auto root = model.record(model.index(0, 0));
            QVERIFY(root.plan > 0);
            const auto best = workspace_->plan(root.plan);
            QVERIFY(best.has_value());
            auto bestPlan = plan::parsePlan(best->plan, costModel.planContext(), costModel.mesh(), "best");
            QVERIFY(bestPlan.ok());
            const double r = search::reward(cost::evaluate(costModel, *bestPlan), costModel.lowerBoundTime());
            QVERIFY(std::abs(r - root.best) < 1e-12);
            qInfo("session %lld: %d paths rebuilt, %d checked against their node's value",
                  static_cast<long long>(session), parsed, checked);
        }
        // The model rebuilds a node's plan on its worker, from the session's own start.
        {
            SearchTreeModel model;
            model.setSession(workspace_, wideSession_);
            expandAll(model);
            const QModelIndex node = model.index(0, 0, model.index(0, 0));
            QVERIFY(node.isValid());
            std::optional<plan::Plan> ready;
            connect(&model, &SearchTreeModel::nodePlanReady, this,
                    [&](qint64, const plan::Plan& plan) { ready = plan; });
            model.requestNodePlan(node, wide_);
            QVERIFY(QTest::qWaitFor([&] { return ready.has_value(); }, kTimeoutMs));
            auto expected = planOfPath(*wide_->problem->costModel, pinned_, model.actionPath(node));
            QVERIFY(expected.ok());
            QCOMPARE(ready->decisions, expected->decisions);
            QCOMPARE(ready->decisions.front(), pinned_.decisions.front());
            // Two requests in a row: only the newest reports.
            int reports = 0;
            qint64 reported = -1;
            connect(&model, &SearchTreeModel::nodePlanReady, this, [&](qint64 id, const plan::Plan&) {
                ++reports;
                reported = id;
            });
            const QModelIndex other = model.index(1, 0, model.index(0, 0));
            QVERIFY(other.isValid());
            model.requestNodePlan(node, wide_);
            model.requestNodePlan(other, wide_);
            QVERIFY(QTest::qWaitFor([&] { return reports > 0; }, kTimeoutMs));
            QTest::qWait(50);
            QCOMPARE(reports, 1);
            QCOMPARE(reported, model.record(other).id);
        }
        // A path from another mesh does not parse, and says which step.
        auto wrong = planOfPath(*demo_->problem->costModel, {}, {"no such decision"});
        QVERIFY(!wrong.ok());
        QVERIFY(wrong.errorMessage().find("no such decision") != std::string::npos);
    }

    void comparesDataParallelWithMegatron() {
        PlanComparer comparer;
        const plan::Plan dp = expert(*demo_, "dp");
        const plan::Plan megatron = expert(*demo_, "megatron");
        QElapsedTimer timer;
        timer.start();
        const auto c = compareAndWait(comparer, demo_, dp, demo_, megatron);
        qInfo("comparison of dp and megatron: %lld ms", static_cast<long long>(timer.elapsed()));
        QVERIFY(c);
        QVERIFY(c->notes.isEmpty());
        QVERIFY(c->shardingsCompared);
        // Decisions: each plan's decisions in words; common ones are those both have.
        const auto& context = demo_->problem->costModel->planContext();
        std::multiset<QString> inA, inB;
        for (const auto& d : dp.decisions)
            inA.insert(QString::fromStdString(plan::decisionText(d, context, demo_->mesh())));
        for (const auto& d : megatron.decisions)
            inB.insert(QString::fromStdString(plan::decisionText(d, context, demo_->mesh())));
        const int both = static_cast<int>(c->decisions.size()) - c->onlyA() - c->onlyB();
        QCOMPARE(static_cast<int>(inA.size()), c->onlyA() + both);
        QCOMPARE(static_cast<int>(inB.size()), c->onlyB() + both);
        for (const auto& row : c->decisions) {
            QCOMPARE(row.side != DecisionDifference::Side::OnlyB, inA.count(row.text) > 0);
            QCOMPARE(row.side != DecisionDifference::Side::OnlyA, inB.count(row.text) > 0);
        }
        QVERIFY(c->onlyA() > 0);
        QVERIFY(c->onlyB() > 0);
        // Collectives per kind match each evaluation.
        for (int side = 0; side < 2; ++side) {
            const auto e = cost::evaluate(*demo_->problem->costModel, side == 0 ? dp : megatron);
            std::map<cost::CollectiveKind, std::pair<int, double>> expected;
            for (const auto& collective : e.collectives) {
                ++expected[collective.kind].first;
                expected[collective.kind].second += collective.bytes;
            }
            for (const auto& row : c->collectives) {
                QCOMPARE(row.count[static_cast<std::size_t>(side)], expected[row.kind].first);
                QCOMPARE(row.bytes[static_cast<std::size_t>(side)], expected[row.kind].second);
            }
            const auto& figures = side == 0 ? c->a : c->b;
            QCOMPARE(figures.stepTime, e.stepTime);
            QCOMPARE(figures.peakMemory, e.peakMemory);
            QCOMPARE(figures.collectiveTime, e.collectiveTime);
            QCOMPARE(figures.computeTime, e.computeTime);
        }
        // The differing ops are exactly those with a value sharded differently.
        std::set<std::size_t> ops;
        for (const auto& op : c->ops) {
            ops.insert(op.bodyIndex);
            QVERIFY(!op.values.empty());
            QVERIFY(op.example.contains(QLatin1String(" vs ")));
            QVERIFY(c->opDiffers(op.bodyIndex));
        }
        QCOMPARE(ops, differingOps(*demo_, dp, megatron));
        QVERIFY(!ops.empty());
        checkModels(c);
    }

    void comparesAPlanWithItself() {
        PlanComparer comparer;
        const plan::Plan megatron = expert(*demo_, "megatron");
        const auto c = compareAndWait(comparer, demo_, megatron, demo_, megatron);
        QCOMPARE(c->onlyA(), 0);
        QCOMPARE(c->onlyB(), 0);
        QCOMPARE(c->decisions.size(), megatron.decisions.size());
        QVERIFY(c->ops.empty());
        QVERIFY(c->notes.isEmpty());
        for (const auto& row : c->collectives) {
            QCOMPARE(row.count[0], row.count[1]);
            QCOMPARE(row.time[0], row.time[1]);
        }
        QCOMPARE(c->a.stepTime, c->b.stepTime);
        checkModels(c);
    }

    // A remat decision one plan has and the other has not is a difference, as a sharding decision is.
    void countsARematDifference() {
        PlanComparer comparer;
        const plan::Plan megatron = expert(*demo_, "megatron");
        plan::Plan recomputed = megatron;
        recomputed.remat = {{"layers.*", plan::Remat::Full}};
        const auto c = compareAndWait(comparer, demo_, megatron, demo_, recomputed);
        QCOMPARE(c->onlyA(), 0);
        QCOMPARE(c->onlyB(), 1);
        QCOMPARE(c->decisions.back().text, QStringLiteral("remat layers.*: full"));
        QCOMPARE(c->decisions.back().side, DecisionDifference::Side::OnlyB);
        QCOMPARE(c->decisions.back().positionB, 0);
        checkModels(c);
    }

    // A search tree's remat actions ("remat layers.*: full") rebuild into the plan's remat decisions.
    void pathsRebuildRematActions() {
        ProblemSpec spec;
        spec.model = "zoo:demo";
        spec.mesh = "data=2,model=4";
        spec.train = true;
        const auto training = fixtures::loadView(spec);
        const cost::CostModel& costModel = *training->problem->costModel;
        const search::ActionSpace space(costModel);
        const auto first = space.candidates().front().decision;
        auto plan = planOfPath(costModel, {},
                               {space.describe({search::Action::Kind::Decide, first, {}, {}}),
                                "remat layers.*: dots-saveable", "stop"});
        QVERIFY2(plan.ok(), plan.errorMessage().c_str());
        QCOMPARE(plan->decisions, std::vector<plan::Decision>{first});
        QCOMPARE(plan->remat, (std::vector<plan::RematDecision>{{"layers.*", plan::Remat::DotsSaveable}}));
        // A family is set once on a path: a second remat action for it is no action of the tree.
        QVERIFY(!planOfPath(costModel, {}, {"remat layers.*: full", "remat layers.*: none"}).ok());
    }

    void comparesTwoSessionsOnDifferentMeshes() {
        // Each side as the explorer opens it: the session's own problem from the workspace, its best plan.
        std::vector<ViewPtr> views;
        std::vector<plan::Plan> plans;
        for (std::int64_t session : {session_, wideSession_}) {
            store::SessionRecord record;
            for (const auto& s : workspace_->sessions())
                if (s.id == session)
                    record = s;
            auto problem = loadSessionProblem(*workspace_, record);
            QVERIFY2(problem.ok(), problem.errorMessage().c_str());
            views.push_back(viewOf(std::move(problem).value(), QString::fromStdString(record.name)));
            const auto stored = workspace_->plans(session);
            const auto best =
                std::min_element(stored.begin(), stored.end(), [](const auto& x, const auto& y) {
                    return x.feasible != y.feasible ? x.feasible : x.stepTime < y.stepTime;
                });
            auto parsed = plan::parsePlan(best->plan, views.back()->problem->costModel->planContext(),
                                          views.back()->mesh(), "stored");
            QVERIFY(parsed.ok());
            plans.push_back(parsed.value());
        }
        PlanComparer comparer;
        const auto c = compareAndWait(comparer, views[0], plans[0], views[1], plans[1]);
        QCOMPARE(c->meshA, QStringLiteral("data=2,model=4"));
        QCOMPARE(c->meshB, QStringLiteral("data=8"));
        QVERIFY(c->notes.join(' ').contains(QLatin1String("meshes differ")));
        QVERIFY(c->shardingsCompared);  // the same graph: shardings compare by axis name
        // The pin of the second session is one of its decisions.
        const QString pin = QString::fromStdString(plan::decisionText(
            pinned_.decisions.front(), views[1]->problem->costModel->planContext(), views[1]->mesh()));
        QVERIFY(std::any_of(c->decisions.begin(), c->decisions.end(), [&](const auto& d) {
            return d.text == pin && d.side != DecisionDifference::Side::OnlyA;
        }));
        QCOMPARE(c->b.stepTime, cost::evaluate(*views[1]->problem->costModel, plans[1]).stepTime);
        checkModels(c);

        // Another graph (the training step) compares figures and decisions only.
        ProblemSpec spec;
        spec.model = "zoo:demo";
        spec.mesh = "data=8";
        spec.train = true;
        auto trained = loadProblem(spec);
        QVERIFY(trained.ok());
        const auto train = viewOf(std::move(trained).value(), QStringLiteral("train"));
        const auto other = compareAndWait(comparer, views[1], plans[1], train, expert(*train, "dp"));
        QVERIFY(!other->shardingsCompared);
        QVERIFY(other->ops.empty());
        QVERIFY(other->notes.join(' ').contains(QLatin1String("graphs differ")));
    }

    void newestRequestWins() {
        PlanComparer comparer;
        QSignalSpy compared(&comparer, &PlanComparer::compared);
        comparer.compare(demo_, expert(*demo_, "dp"), "first", demo_, expert(*demo_, "megatron"), "first");
        comparer.compare(demo_, expert(*demo_, "megatron"), "second", demo_, expert(*demo_, "dp"), "second");
        QVERIFY(QTest::qWaitFor([&] { return !comparer.isComparing(); }, kTimeoutMs));
        QTest::qWait(20);
        QCOMPARE(compared.size(), 1);
        QCOMPARE(comparer.result()->nameA, QStringLiteral("second"));
    }

    void compareViewShowsAndLocates() {
        CompareView view;
        view.resize(1200, 760);
        QSignalSpy shown(&view, &CompareView::comparisonShown);
        QSignalSpy locate(&view, &CompareView::locateOp);
        view.compare(demo_, expert(*demo_, "dp"), QStringLiteral("dp"), wide_, expert(*wide_, "fsdp"),
                     QStringLiteral("fsdp on data=8"));
        QVERIFY(shown.wait(kTimeoutMs));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.decisionModel()->rowCount(), static_cast<int>(view.comparison()->decisions.size()));
        QVERIFY(view.shardingModel()->rowCount() > 0);
        // A placeholder chart lands in the memory area.
        auto* chart = new QWidget;
        chart->setObjectName(QStringLiteral("chart"));
        view.setMemoryChart(chart);
        QCOMPARE(view.memoryChart(), chart);
        QCOMPARE(chart->parentWidget()->objectName(), QStringLiteral("compareMemoryArea"));
        QTableView* ops = view.shardingTable();
        const QModelIndex first = ops->model()->index(0, 0);
        QTest::mouseClick(ops->viewport(), Qt::LeftButton, {}, ops->visualRect(first).center());
        QCOMPARE(locate.size(), 1);
        QCOMPARE(locate.first().first().value<std::size_t>(), view.comparison()->ops.front().bodyIndex);
        const QString out =
            QDir(shardscope::testing::binaryDir()).filePath(QStringLiteral("compare_view.png"));
        QVERIFY(view.grab().save(out));

        // And the tree, as a user sees it.
        SearchTreeModel model;
        model.setSession(workspace_, session_);
        model.setLowerBoundTime(demo_->problem->costModel->lowerBoundTime());
        QTreeView tree;
        tree.setModel(&model);
        tree.resize(900, 520);
        tree.show();
        QVERIFY(QTest::qWaitFor([&] { return !model.isFetching() && model.rowCount() == 1; }, kTimeoutMs));
        tree.expand(model.index(0, 0));
        QVERIFY(QTest::qWaitFor([&] { return !model.isFetching() && model.rowCount(model.index(0, 0)) > 0; },
                                kTimeoutMs));
        const QModelIndex child = model.index(0, 0, model.index(0, 0));
        tree.expand(child);
        QVERIFY(QTest::qWaitFor([&] { return !model.isFetching(); }, kTimeoutMs));
        QTest::qWait(50);  // the view lays the new rows out on its next pass
        QVERIFY(model.rowCount(child) > 0);
        QVERIFY(tree.isExpanded(child));
        QVERIFY(tree.visualRect(model.index(0, 0, child)).isValid());
        tree.header()->resizeSection(0, 330);
        QVERIFY(tree.grab().save(
            QDir(shardscope::testing::binaryDir()).filePath(QStringLiteral("search_tree.png"))));
    }

private:
    QTemporaryDir dir_;
    ViewPtr demo_, wide_;
    std::shared_ptr<store::Workspace> workspace_;
    std::int64_t session_ = 0, wideSession_ = 0;
    plan::Plan pinned_;
};

QTEST_MAIN(TestUiCompare)
#include "tst_ui_compare.moc"
