// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The explorer's work with a workspace session (docs/design.md): the live search, the plans of the session,
// a plan's breakdown, the stored search tree and the comparison of two plans, as docks of the main window.
#pragma once

#include <memory>
#include <optional>

#include <QObject>
#include <QString>

#include "core/plan_state.h"
#include "core/problem_view.h"

class QDockWidget;
class QMainWindow;
class QPushButton;
class QTableView;
class QTreeView;

namespace shardscope::ui {

class CompareView;
class GraphView;
class MemoryChart;
class PlanBreakdownView;
class PlanEditor;
class PlanInspector;
class PlanTableModel;
class ProblemLoader;
class SearchPanel;
class SearchTreeModel;
class WorkspaceListing;
struct FoundPlan;
struct PlanBreakdown;

// Creates its docks in `window` and wires them to the plan being edited and the graph:
// - the search starts from the edited plan's pins and records into the problem's workspace, or into a new one
//   under the user's data folder; its new best plans join the Plans table;
// - selecting a plan in the table, or double-clicking a node of the search tree, previews it (the graph, the
//   cost and the breakdown show it; the edited plan stays); "Edit this plan" (the button, the table's menu, a
//   double-click on a row) or "Apply best plan" makes it the edited plan, keeping the edited plan's pins;
// - the breakdown follows the plan shown (the edited plan, or the preview), computed while its dock is in
//   view; "locate" in the breakdown or the comparison shows the op on the graph;
// - two plans selected in the table, or the edited plan and a workspace file's best plan, are compared;
// - another problem empties the table, the tree, the comparison and the search's status.
class SessionDocks : public QObject {
    Q_OBJECT

public:
    SessionDocks(QMainWindow* window, PlanEditor* editor, GraphView* graph);
    ~SessionDocks() override;

    // A new problem: the session's plans and tree when it comes from a workspace, else empty tables.
    void setProblem(std::shared_ptr<const ProblemView> problem);
    // Where searches are recorded (the problem's workspace, or a new file in the user's data folder).
    QString workspacePath() const;

    SearchPanel* searchPanel() const { return search_; }
    PlanTableModel* plans() const { return plans_; }
    QTableView* planTable() const { return planView_; }
    SearchTreeModel* tree() const { return tree_; }
    PlanBreakdownView* breakdown() const { return breakdown_; }
    // The Breakdown dock is in view and still computing what it is to show.
    bool breakdownPending() const;
    CompareView* compareView() const { return compare_; }
    QDockWidget* searchDock() const { return searchDock_; }
    // The docks to tabify with the window's bottom docks.
    QList<QDockWidget*> bottomDocks() const;

    // Previews the plan of a row of the Plans table (model row); editRow makes it the edited plan.
    void previewRow(int row);
    void editRow(int row);
    // Compares the plans of two rows of the Plans table (model rows).
    void compareRows(int rowA, int rowB);
    // Compares the edited plan with the best plan of a session of a workspace file (0: its newest session).
    void compareWithWorkspace(const QString& path, std::int64_t session = 0);

signals:
    // One line for the status bar (and the message log).
    void message(const QString& text);
    // What failed (a search, reading a workspace), for the status bar and the message log as an error.
    void failure(const QString& text);

private:
    void showSession(const QString& path, std::int64_t session);
    void planSelected();
    void updatePlanButtons();
    // The model row of the one plan selected in the table, or -1.
    int selectedRow() const;
    // Shows the breakdown of the plan shown (edited or previewed) when its dock is in view.
    void followBreakdown();
    void planMenu(const QPoint& position);
    void showFound(const FoundPlan& found);
    void compare(std::shared_ptr<const ProblemView> b, const plan::Plan& planA, const QString& nameA,
                 const plan::Plan& planB, const QString& nameB);

    QMainWindow* window_;
    PlanEditor* editor_;
    GraphView* graph_;
    std::shared_ptr<const ProblemView> problem_;
    QString defaultWorkspace_;

    SearchPanel* search_;
    PlanTableModel* plans_;
    QTableView* planView_;
    QWidget* plansPanel_;
    QPushButton* editPlan_;
    QPushButton* backToEdited_;
    QPushButton* comparePlans_;
    // The plan and caption the breakdown was last asked for (it follows the plan shown).
    std::optional<plan::Plan> breakdownPlan_;
    QString breakdownCaption_;
    SearchTreeModel* tree_;
    QTreeView* treeView_;
    PlanBreakdownView* breakdown_;
    CompareView* compare_;
    MemoryChart* compareChart_;
    PlanInspector* compareA_;
    PlanInspector* compareB_;
    ProblemLoader* otherWorkspace_;
    WorkspaceListing* listing_;        // the session shown: its file, opened once for the table and the tree
    std::int64_t listingSession_ = 0;  // the session to show once listing_ has opened
    QDockWidget* searchDock_;
    QDockWidget* plansDock_;
    QDockWidget* breakdownDock_;
    QDockWidget* treeDock_;
    QDockWidget* compareDock_;
    // The comparison's two breakdowns (for its memory curves) and their names.
    std::shared_ptr<const PlanBreakdown> compareCurves_[2];
    QString compareNames_[2];
    plan::Plan comparedPlans_[2];
    bool breakdownInView_ = false;  // the Breakdown dock is shown and in front of its tabs
};

}  // namespace shardscope::ui
