// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The explorer's main window: the graph in the centre, the analysis (names, conflicts), the plan being
// edited, its cost, the problem's settings and the selection's details around it.
#pragma once

#include <memory>

#include <QMainWindow>

#include "core/message_log.h"
#include "core/plan_state.h"
#include "core/problem_loader.h"
#include "core/problem_view.h"

class QComboBox;
class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;
class QModelIndex;
class QPlainTextEdit;
class QProgressBar;
class QTableView;
class QTextBrowser;
class QTreeView;

namespace shardscope::ui {

class ConflictPanel;
class GlossaryDialog;
class ModelTextView;
class CostPanel;
class DecisionModel;
class GraphView;
class NameModel;
class OpCountModel;
class ParameterModel;
class PipelineView;
class PlanEditor;
class ProblemEditor;
class SessionDocks;
class SummaryPanel;
class TimelineView;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Starts opening `source` in the background: a zoo model ("zoo:gpt2-small"), a model file, or a workspace
    // file (its newest session and best plan). The mesh, hardware and training options are those the Mesh and
    // training panel shows, applied or not; when they cannot load, the open fails at once with the panel's
    // error. The window stays responsive and shows the problem when it arrives (modelShown) or says why not
    // (modelFailed). Asking again for the source being opened does nothing.
    void openModel(const QString& source);
    // The settings of the problem shown (last applied or opened with); setSpec shows `spec` in the Mesh and
    // training panel, which the next model opens with (the model and dimensions are ignored).
    const ProblemSpec& spec() const { return spec_; }
    void setSpec(const ProblemSpec& spec);
    // Plans the model shown again with `spec`'s mesh, hardware and options, keeping the plan where it still
    // applies.
    void applySpec(const ProblemSpec& spec);
    // Replaces the plan with `plan`: "expert:ID" or a plan JSON file (as `shardscope-cli evaluate --plan`
    // takes). Returns false and says why in the status bar (and `errorMessage`) when it cannot.
    bool openPlan(const QString& plan, QString* errorMessage = nullptr);
    // Writes the plan being edited to `path` as plan JSON. Returns false with the reason when it cannot.
    bool savePlan(const QString& path, QString* errorMessage = nullptr);
    // The plan to open (see openPlan) once the next model has loaded, e.g. from the command line.
    void setPlanToOpen(const QString& plan) { planToOpen_ = plan; }
    // What to find in the graph (see GraphView::find) once the next model is shown and laid out.
    void setFindOnOpen(const QString& text) { findOnOpen_ = text; }
    // The problem shown, or nullptr before the first successful load.
    std::shared_ptr<const ProblemView> currentModel() const { return current_; }
    PlanEditor* planEditor() const { return editor_; }
    GraphView* graphView() const { return graph_; }
    SessionDocks* sessionDocks() const { return session_; }
    TimelineView* timelineView() const { return timeline_; }
    PipelineView* pipelineView() const { return pipeline_; }
    // Every error, warning and note of the session (the Messages dock); the status bar flashes the newest.
    MessageLog* messageLog() const { return messages_; }
    // Shows dock `name` and brings it to the front of its tab group: its object name with or without the
    // "Dock" suffix ("timeline", "breakdownDock") or its title, in any case; "name:tab" also opens the tab
    // of that title inside it ("breakdown:memory"). Returns false when no dock (or tab) is called so.
    bool showDock(const QString& nameAndTab);
    // Opens Help ▸ Glossary (a window beside the explorer) at entry `id` (core/glossary.h), or where it was.
    void showGlossary(const QString& id = {});
    // The glossary window, once opened (nullptr before).
    GlossaryDialog* glossaryDialog() const { return glossary_; }
    // The bar above the graph that says a plan is being previewed (hidden when none is).
    QWidget* previewBanner() const { return previewBanner_; }
    // Whether a problem is shown and nothing is pending: no load, no evaluation, no layout (what a screenshot
    // waits for).
    bool isSettled() const;

    // Restores the geometry and dock layout saved by the last close (QSettings).
    void restoreLayout();
    // Renders the whole window to an image file (format from the suffix). Returns false and sets
    // `errorMessage` when the file cannot be written.
    bool saveScreenshot(const QString& path, QString* errorMessage);
    // The files and models opened most recently, newest first (at most 10; kept in QSettings).
    static QStringList recentSources();

signals:
    void modelShown();
    void modelFailed(const QString& message);
    // Emitted once after each load when the problem is shown, its plan evaluated and its graph laid out.
    void settled();

protected:
    void closeEvent(QCloseEvent* event) override;
    // Links in "What's this?" texts lead to the glossary.
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QDockWidget* addPanel(const QString& title, const QString& objectName, QWidget* panel,
                          Qt::DockWidgetArea area);
    void buildMenus();
    void load(const ProblemRequest& request, const QString& shownAs);
    void showModel(std::shared_ptr<const ProblemView> model);
    void showFailure(const QString& message);
    // The edited plan's evaluation: the panels that edit it, and those that show it unless a preview is
    // shown.
    void showState(std::shared_ptr<const PlanState> state);
    // The plan shown (the preview, or the edited plan) in the graph, Cost, Timeline, Pipeline and Details.
    void showShown(std::shared_ptr<const PlanState> state);
    // A preview started, changed or ended: the banner, the docks' titles, and the edited plan back.
    void previewChanged();
    void addWhatsThis();
    void showBusy();
    void checkSettled();
    void rememberRecent(const QString& source);
    void refreshRecentMenu();
    void chooseFile();
    // Shows `error` in the status bar (and copies it to `errorMessage`) unless it is empty; returns whether
    // it is.
    bool succeeded(const QString& error, QString* errorMessage);
    // Logs `text` and shows it in the status bar (for `timeoutMs`, 0: until the next message).
    void report(LogMessage::Severity severity, const QString& source, const QString& text, int timeoutMs = 0);
    void updateMessagesTitle();
    void nameSelected(const QModelIndex& index);
    void nameMenu(const QPoint& position);
    void removeSelectedDecision();
    void decisionMenu(const QPoint& position);
    void showDetails(const QString& html);
    // Selects body op `bodyIndex` on the graph (opening its module) and describes it in the details.
    void selectOp(std::size_t bodyIndex);
    void find();

    ProblemLoader* loader_;
    PlanEditor* editor_;
    NameModel* names_;
    DecisionModel* decisions_;
    OpCountModel* opCounts_;
    ParameterModel* parameters_;
    MessageLog* messages_;
    std::shared_ptr<const ProblemView> current_;
    QString requested_;
    QString pendingEntrySource_;  // a module that needs its entry function chosen (entryChoices)
    QString
        notice_;  // what the status bar says of the problem shown once the layout is done ("" for nothing)
    ProblemSpec spec_;  // the settings of the problem shown (new models open with the panel's)
    QString planToOpen_;
    QString findOnOpen_;
    bool awaitingSettle_ = false;
    // What the details panel shows, so it follows the plan: 0 none, 1 op, 2 name, 3 group, 4 argument, 5
    // module.
    int detailKind_ = 0;
    std::size_t detailIndex_ = 0;

    GraphView* graph_;
    QComboBox* chooser_;
    QLineEdit* findField_;
    QComboBox* expertChooser_;
    SummaryPanel* summary_;
    CostPanel* cost_;
    TimelineView* timeline_;
    PipelineView* pipeline_;
    QTextBrowser* details_;
    ModelTextView* stableHlo_;
    ProblemEditor* problemEditor_;
    QTreeView* nameView_;
    ConflictPanel* conflictPanel_;
    QTableView* decisionView_;
    QTableView* parameterView_;
    QTableView* opCountView_;
    QTableView* messageView_;
    QDockWidget* messagesDock_ = nullptr;
    QProgressBar* progress_;
    QWidget* previewBanner_ = nullptr;
    QLabel* previewText_ = nullptr;
    GlossaryDialog* glossary_ = nullptr;
    SessionDocks* session_ = nullptr;
    QMenu* recentMenu_ = nullptr;
};

}  // namespace shardscope::ui
