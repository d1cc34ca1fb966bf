// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/session_docks.h"

#include <algorithm>
#include <utility>

#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QMainWindow>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

#include "core/plan_breakdown.h"
#include "core/plan_editor.h"
#include "core/plan_table_model.h"
#include "core/problem_loader.h"
#include "core/search_runner.h"
#include "core/search_tree_model.h"
#include "core/text.h"
#include "core/workspace_listing.h"
#include "widgets/compare_view.h"
#include "widgets/graph_view.h"
#include "widgets/memory_chart.h"
#include "widgets/plan_breakdown_view.h"
#include "widgets/search_panel.h"

namespace shardscope::ui {
namespace {

QDockWidget* makeDock(QMainWindow* window, const QString& title, const QString& name, QWidget* panel,
                      Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, window);
    dock->setObjectName(name);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                      QDockWidget::DockWidgetClosable);
    dock->setWidget(panel);
    window->addDockWidget(area, dock);
    return dock;
}

// Where a search of a model that has no workspace yet is recorded: a new file per model and day in the user's
// data folder, so nothing found is lost and the file can be reopened from File ▸ Open recent.
QString newWorkspacePath(const ProblemView& problem) {
    const QString folder =
        QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/workspaces");
    QDir().mkpath(folder);
    QString name = problem.displayName;
    name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]+")), QStringLiteral("-"));
    return folder + u'/' + name + u'-' +
           QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")) +
           QStringLiteral(".shardscope");
}

}  // namespace

SessionDocks::SessionDocks(QMainWindow* window, PlanEditor* editor, GraphView* graph)
    : QObject(window),
      window_(window),
      editor_(editor),
      graph_(graph),
      search_(new SearchPanel(window)),
      plans_(new PlanTableModel(this)),
      planView_(new QTableView(window)),
      plansPanel_(new QWidget(window)),
      editPlan_(new QPushButton(tr("Edit this plan"), plansPanel_)),
      backToEdited_(new QPushButton(tr("Back to the edited plan"), plansPanel_)),
      comparePlans_(new QPushButton(tr("Compare"), plansPanel_)),
      tree_(new SearchTreeModel(this)),
      treeView_(new QTreeView(window)),
      breakdown_(new PlanBreakdownView(window)),
      compare_(new CompareView(window)),
      compareChart_(new MemoryChart),
      compareA_(new PlanInspector(this)),
      compareB_(new PlanInspector(this)),
      otherWorkspace_(new ProblemLoader(this)),
      listing_(new WorkspaceListing(this)) {
    search_->setObjectName(QStringLiteral("searchPanel"));
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(plans_);
    proxy->setSortRole(SortRole);
    planView_->setObjectName(QStringLiteral("plansView"));
    planView_->setModel(proxy);
    planView_->setSortingEnabled(true);
    planView_->sortByColumn(-1, Qt::AscendingOrder);
    planView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    planView_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    planView_->setAlternatingRowColors(true);
    planView_->verticalHeader()->hide();
    planView_->verticalHeader()->setDefaultSectionSize(planView_->fontMetrics().height() + 6);
    planView_->horizontalHeader()->setStretchLastSection(true);
    planView_->setContextMenuPolicy(Qt::CustomContextMenu);
    planView_->setToolTip(
        tr("Select a plan to preview it (the plan you edit stays); double-click it or press "
           "Edit this plan to edit it; select two to compare them"));
    editPlan_->setObjectName(QStringLiteral("planEditButton"));
    editPlan_->setToolTip(
        tr("Make the selected plan the one you edit; your pinned and forbidden decisions "
           "stay (Edit ▸ Undo brings the previous plan back)"));
    backToEdited_->setObjectName(QStringLiteral("planBackButton"));
    backToEdited_->setToolTip(tr("Stop previewing: show the plan you edit again"));
    comparePlans_->setObjectName(QStringLiteral("planCompareButton"));
    comparePlans_->setToolTip(tr("Compare the two plans selected (Ctrl+click selects a second one)"));
    auto* plansLayout = new QVBoxLayout(plansPanel_);
    plansLayout->setContentsMargins(0, 0, 0, 0);
    plansLayout->setSpacing(2);
    auto* plansButtons = new QHBoxLayout;
    plansButtons->setContentsMargins(4, 2, 4, 0);
    plansButtons->addWidget(editPlan_);
    plansButtons->addWidget(backToEdited_);
    plansButtons->addWidget(comparePlans_);
    plansButtons->addStretch();
    plansLayout->addLayout(plansButtons);
    plansLayout->addWidget(planView_, 1);
    treeView_->setObjectName(QStringLiteral("searchTreeView"));
    treeView_->setModel(tree_);
    treeView_->setUniformRowHeights(true);
    treeView_->setAlternatingRowColors(true);
    treeView_->setToolTip(tr("Double-click a node to preview the plan it stands for"));
    treeView_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    breakdown_->setObjectName(QStringLiteral("planBreakdown"));
    compare_->setObjectName(QStringLiteral("compareView"));
    compare_->setMemoryChart(compareChart_);

    searchDock_ =
        makeDock(window, tr("Search"), QStringLiteral("searchDock"), search_, Qt::RightDockWidgetArea);
    plansDock_ =
        makeDock(window, tr("Plans"), QStringLiteral("plansDock"), plansPanel_, Qt::BottomDockWidgetArea);
    breakdownDock_ = makeDock(window, tr("Breakdown"), QStringLiteral("breakdownDock"), breakdown_,
                              Qt::BottomDockWidgetArea);
    treeDock_ = makeDock(window, tr("Search tree"), QStringLiteral("searchTreeDock"), treeView_,
                         Qt::BottomDockWidgetArea);
    compareDock_ =
        makeDock(window, tr("Compare"), QStringLiteral("compareDock"), compare_, Qt::BottomDockWidgetArea);

    // The search starts from the edited plan's pins and forbidden decisions; its plans join the table.
    connect(editor_, &PlanEditor::planChanged, this, [this] { search_->setStartPlan(editor_->plan()); });
    // The chart's "edited plan" line, and the speed-up over it.
    connect(editor_, &PlanEditor::evaluated, this, [this](const std::shared_ptr<const PlanState>& state) {
        search_->setEditedStepTime(state ? state->evaluation.stepTime : 0.0);
    });
    connect(search_, &SearchPanel::applyPlanRequested, this,
            [this](const plan::Plan& plan, const QString& description) {
                editor_->replacePlan(plan, description);
            });
    SearchRunner* runner = search_->runner();
    connect(runner, &SearchRunner::recording, this, [this](const QString& path, qint64 session) {
        emit message(tr("Recording the search into %1, session %2").arg(path).arg(session));
        // The experts are in the file now; the tree is read once the search has stored some of it (at its
        // end).
        plans_->setProblem(problem_);
        plans_->loadWorkspace(path, session);
        tree_->setSession(nullptr, 0);
    });
    connect(runner, &SearchRunner::newBest, this, &SessionDocks::showFound);
    connect(runner, &SearchRunner::finished, this, [this] {
        // The saved rows carry their ids and the tree its final figures.
        if (!search_->runner()->workspacePath().isEmpty())
            showSession(search_->runner()->workspacePath(), search_->runner()->session());
    });
    connect(runner, &SearchRunner::failed, this, &SessionDocks::failure);

    connect(planView_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &SessionDocks::planSelected);
    connect(planView_, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex& index) {
        if (index.isValid())
            editRow(index.data(PlanTableModel::RowRole).toInt());
    });
    connect(editPlan_, &QPushButton::clicked, this, [this] {
        if (const int row = selectedRow(); row >= 0)
            editRow(row);
        else
            editor_->editPreview();
    });
    connect(backToEdited_, &QPushButton::clicked, editor_, &PlanEditor::endPreview);
    connect(comparePlans_, &QPushButton::clicked, this, [this] {
        const QModelIndexList rows = planView_->selectionModel()->selectedRows();
        if (rows.size() == 2)
            compareRows(rows[0].data(PlanTableModel::RowRole).toInt(),
                        rows[1].data(PlanTableModel::RowRole).toInt());
    });
    connect(editor_, &PlanEditor::previewChanged, this, [this] {
        updatePlanButtons();
        followBreakdown();
    });
    connect(editor_, &PlanEditor::planChanged, this, [this] {
        if (!editor_->isPreviewing())
            followBreakdown();
    });
    // In sight: shown and in front of its tabs (Qt keeps a dock tabbed behind another visible).
    connect(breakdownDock_, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        breakdownInView_ = visible;
        if (visible)
            followBreakdown();
    });
    connect(planView_, &QWidget::customContextMenuRequested, this, &SessionDocks::planMenu);
    connect(plans_, &PlanTableModel::loadFailed, this, &SessionDocks::failure);
    connect(treeView_, &QAbstractItemView::activated, this,
            [this](const QModelIndex& index) { tree_->requestNodePlan(index, problem_); });
    connect(tree_, &SearchTreeModel::nodePlanReady, this, [this](qint64 node, const plan::Plan& plan) {
        editor_->preview(plan, tr("search tree node %1").arg(node));
    });
    connect(tree_, &SearchTreeModel::nodePlanFailed, this,
            [this](qint64 node, const QString& why) { emit message(tr("Node %1: %2").arg(node).arg(why)); });
    connect(tree_, &SearchTreeModel::readFailed, this, &SessionDocks::failure);
    connect(breakdown_, &PlanBreakdownView::locateOp, graph_, &GraphView::showOp);
    connect(compare_, &CompareView::locateOp, graph_, &GraphView::showOp);
    connect(compare_, &CompareView::previewRequested, this, [this](bool planB) {
        const int i = planB ? 1 : 0;
        if (comparedPlans_[i] == editor_->plan())
            editor_->endPreview();  // the edited plan itself
        else
            editor_->preview(comparedPlans_[i], compareNames_[i]);
    });

    // Both memory curves of a comparison, once both breakdowns are in.
    auto showCurves = [this] {
        if (compareA_->isBusy() || compareB_->isBusy() || !compareCurves_[0] || !compareCurves_[1])
            return;
        // Two plans' totals; what remat saves each is the Breakdown's to show.
        std::vector<MemoryCurve> curves;
        for (int i = 0; i < 2; ++i) {
            curves.push_back(memoryCurveOf(compareCurves_[i]->memory, compareNames_[i]));
            curves.back().withoutRemat.clear();
        }
        compareChart_->setCurves(std::move(curves), std::max(compareCurves_[0]->memory.opCount,
                                                             compareCurves_[1]->memory.opCount));
    };
    connect(compareA_, &PlanInspector::inspected, this,
            [this, showCurves](std::shared_ptr<const PlanBreakdown> b) {
                compareCurves_[0] = std::move(b);
                showCurves();
            });
    connect(compareB_, &PlanInspector::inspected, this,
            [this, showCurves](std::shared_ptr<const PlanBreakdown> b) {
                compareCurves_[1] = std::move(b);
                showCurves();
            });
    connect(otherWorkspace_, &ProblemLoader::loaded, this, [this](std::shared_ptr<const ProblemView> other) {
        if (!problem_)
            return;
        // Plans name their decisions by the model's names and groups: another model's plans mean nothing to
        // this one.
        if (!sameDecisionSpace(*problem_, *other)) {
            emit failure(tr("Cannot compare with %1: it holds the model %2, not %3 (compare with a workspace "
                            "of the same model)")
                             .arg(other->workspacePath, other->displayName, problem_->displayName));
            return;
        }
        compare(other, editor_->plan(), tr("the edited plan"), other->initialPlan,
                tr("best of %1").arg(QFileInfo(other->workspacePath).fileName()));
    });
    connect(otherWorkspace_, &ProblemLoader::failed, this, &SessionDocks::failure);
    connect(listing_, &WorkspaceListing::opened, this, [this](const WorkspaceHandle& workspace) {
        plans_->setProblem(problem_);  // the table starts again from the file: saved rows carry their ids
        plans_->loadWorkspace(workspace, listingSession_);
        tree_->setSession(workspace, listingSession_);
    });
    connect(listing_, &WorkspaceListing::failed, this, &SessionDocks::failure);
}

SessionDocks::~SessionDocks() = default;

QList<QDockWidget*> SessionDocks::bottomDocks() const {
    return {plansDock_, breakdownDock_, treeDock_, compareDock_};
}

QString SessionDocks::workspacePath() const {
    return search_->workspacePath();
}

bool SessionDocks::breakdownPending() const {
    return breakdownInView_ && breakdown_->isComputing();
}

void SessionDocks::setProblem(std::shared_ptr<const ProblemView> problem) {
    problem_ = std::move(problem);
    // Nothing of the previous problem stays: its comparison, its search's status, its breakdown.
    compare_->clear();
    compareA_->setProblem(problem_);
    compareB_->setProblem(nullptr);
    compareCurves_[0].reset();
    compareCurves_[1].reset();
    compareChart_->setCurves({}, 0);
    breakdownPlan_.reset();
    breakdownCaption_.clear();
    listing_->clear();
    search_->setProblem(problem_);
    search_->setStartPlan(editor_->plan());
    plans_->setProblem(problem_);
    breakdown_->setProblem(problem_);
    tree_->setSession(nullptr, 0);
    if (!problem_)
        return;
    tree_->setLowerBoundTime(problem_->problem->costModel->lowerBoundTime());
    if (!problem_->workspacePath.isEmpty()) {
        search_->setWorkspacePath(problem_->workspacePath);
        showSession(problem_->workspacePath, problem_->session);
    } else {
        search_->setWorkspacePath(newWorkspacePath(*problem_));
    }
    updatePlanButtons();
    followBreakdown();
}

void SessionDocks::followBreakdown() {
    if (!problem_ || editor_->problem() != problem_)
        return;
    const plan::Plan& plan = editor_->isPreviewing() ? editor_->previewPlan() : editor_->plan();
    const QString caption = editor_->shownCaption();
    if (breakdownPlan_ && *breakdownPlan_ == plan && breakdownCaption_ == caption)
        return;
    // Computing a breakdown walks the whole step: only for a dock the user looks at (it catches up when its
    // tab comes to the front).
    if (!breakdownInView_)
        return;
    breakdownPlan_ = plan;
    breakdownCaption_ = caption;
    breakdown_->showPlan(plan, caption);
}

int SessionDocks::selectedRow() const {
    const QModelIndexList rows = planView_->selectionModel()->selectedRows();
    return rows.size() == 1 ? rows.first().data(PlanTableModel::RowRole).toInt() : -1;
}

void SessionDocks::updatePlanButtons() {
    const QModelIndexList rows = planView_->selectionModel()->selectedRows();
    editPlan_->setEnabled(rows.size() == 1 || editor_->isPreviewing());
    backToEdited_->setEnabled(editor_->isPreviewing());
    comparePlans_->setEnabled(rows.size() == 2);
}

void SessionDocks::showSession(const QString& path, std::int64_t session) {
    // The file is opened once, off the UI thread (opening checks it), and read by the table and the tree.
    listingSession_ = session;
    listing_->open(path);
}

void SessionDocks::showFound(const FoundPlan& found) {
    plans_->addPlan(planRowOf(found.plan, found.evaluation, found.origin, found.seconds, found.iteration, 0));
    tree_->refresh();
}

void SessionDocks::planSelected() {
    updatePlanButtons();
    if (const int row = selectedRow(); row >= 0)
        previewRow(row);
}

void SessionDocks::previewRow(int row) {
    const auto plan = plans_->planAt(row);
    if (!plan)
        return;
    // Saved plans by their id; a plan the running search just found by where it came from.
    const PlanRow* found = plans_->rowAt(row);
    const QString name = found && found->id == 0 && !found->origin.isEmpty()
                             ? tr("the plan from %1").arg(found->origin)
                             : tr("plan %1").arg(plans_->planIdAt(row));
    editor_->preview(*plan, name);
}

void SessionDocks::editRow(int row) {
    previewRow(row);
    if (editor_->isPreviewing())
        editor_->editPreview();
}

void SessionDocks::planMenu(const QPoint& position) {
    const QModelIndexList rows = planView_->selectionModel()->selectedRows();
    QMenu menu;
    if (rows.size() == 1) {
        const int row = rows.first().data(PlanTableModel::RowRole).toInt();
        menu.addAction(tr("Edit this plan"), this, [this, row] { editRow(row); });
        menu.addAction(tr("Preview this plan"), this, [this, row] { previewRow(row); });
    }
    if (editor_->isPreviewing())
        menu.addAction(tr("Back to the edited plan"), editor_, &PlanEditor::endPreview);
    if (rows.size() == 2) {
        const int a = rows[0].data(PlanTableModel::RowRole).toInt();
        const int b = rows[1].data(PlanTableModel::RowRole).toInt();
        menu.addAction(tr("Compare these two plans"), this, [this, a, b] { compareRows(a, b); });
    }
    // Other sessions of this workspace: their best plans against the edited one.
    if (const auto& workspace = tree_->workspace();
        workspace && workspace == listing_->workspace() && problem_) {
        QMenu* sessions = menu.addMenu(tr("Compare the edited plan with the best plan of session"));
        auto fill = [this, sessions] {
            sessions->clear();
            for (const WorkspaceSession& session : listing_->sessions()) {
                sessions->addAction(
                    tr("%1: %2").arg(session.id).arg(session.name), this,
                    [this, path = listing_->path(), id = session.id] { compareWithWorkspace(path, id); });
            }
        };
        fill();
        // Sessions another process wrote since the file opened join the menu once listed (off the UI thread).
        connect(listing_, &WorkspaceListing::listed, sessions, fill);
        listing_->refresh();
    }
    menu.addAction(tr("Compare the edited plan with a workspace's best plan…"), this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(window_, tr("A workspace of the same model"), QString(),
                                         tr("Workspaces (*.shardscope);;All files (*)"));
        if (!path.isEmpty())
            compareWithWorkspace(path);
    });
    menu.exec(planView_->viewport()->mapToGlobal(position));
}

void SessionDocks::compareRows(int rowA, int rowB) {
    const auto a = plans_->planAt(rowA);
    const auto b = plans_->planAt(rowB);
    if (!a || !b) {
        emit message(tr("Those plans are still being read"));
        return;
    }
    compare(problem_, *a, tr("plan %1").arg(plans_->planIdAt(rowA)), *b,
            tr("plan %1").arg(plans_->planIdAt(rowB)));
}

void SessionDocks::compareWithWorkspace(const QString& path, std::int64_t session) {
    if (!problem_)
        return;
    ProblemRequest request;
    request.workspace = path;
    request.session = session;
    otherWorkspace_->load(request);
    emit message(tr("Opening %1 to compare…").arg(path));
}

void SessionDocks::compare(std::shared_ptr<const ProblemView> b, const plan::Plan& planA,
                           const QString& nameA, const plan::Plan& planB, const QString& nameB) {
    compare_->compare(problem_, planA, nameA, b, planB, nameB);
    compareCurves_[0].reset();
    compareCurves_[1].reset();
    compareNames_[0] = nameA;
    compareNames_[1] = nameB;
    comparedPlans_[0] = planA;
    comparedPlans_[1] = planB;
    compareA_->setProblem(problem_);
    compareB_->setProblem(b);
    compareA_->inspect(planA);
    compareB_->inspect(planB);
    compareDock_->show();
    compareDock_->raise();
}

}  // namespace shardscope::ui
