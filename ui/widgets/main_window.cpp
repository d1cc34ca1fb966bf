// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/main_window.h"

#include <utility>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QCompleter>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImageWriter>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QToolBar>
#include <QToolTip>
#include <QTreeView>
#include <QUndoStack>
#include <QVBoxLayout>
#include <QWhatsThis>
#include <QWhatsThisClickedEvent>

#include "core/decision_model.h"
#include "core/glossary.h"
#include "core/message_log.h"
#include "core/name_model.h"
#include "core/op_count_model.h"
#include "core/parameter_model.h"
#include "core/plan_editor.h"
#include "core/selection_details.h"
#include "core/text.h"
#include "core/zoo_catalog_model.h"
#include "widgets/conflict_panel.h"
#include "widgets/cost_panel.h"
#include "widgets/export_dialog.h"
#include "widgets/fixed_pitch_font.h"
#include "widgets/glossary_dialog.h"
#include "widgets/graph_view.h"
#include "widgets/model_text_view.h"
#include "widgets/pipeline_view.h"
#include "widgets/plan_breakdown_view.h"
#include "widgets/problem_editor.h"
#include "widgets/remat_panel.h"
#include "widgets/session_docks.h"
#include "widgets/summary_panel.h"
#include "widgets/timeline_view.h"
#include "widgets/wheel_focus.h"

namespace shardscope::ui {
namespace {

// Bump when the docks change, so restoreState() ignores layouts saved by older versions.
constexpr int kLayoutVersion = 6;
constexpr char kGeometryKey[] = "mainWindow/geometry";
constexpr char kStateKey[] = "mainWindow/state";
constexpr char kRecentKey[] = "recentSources";
constexpr int kRecentCount = 10;

enum DetailKind { NoDetail, OpDetail, NameDetail, GroupDetail, ArgumentDetail, ModuleDetail };

QSortFilterProxyModel* sortable(QAbstractItemModel* model, QObject* parent) {
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(SortRole);
    proxy->setSortCaseSensitivity(Qt::CaseInsensitive);
    return proxy;
}

// A sortable table over `model`; sortColumn -1 keeps the model's own order until a header is clicked.
QTableView* makeTableView(QAbstractItemModel* model, int sortColumn, Qt::SortOrder order, QWidget* parent) {
    auto* view = new QTableView(parent);
    view->setModel(sortable(model, parent));
    view->setSortingEnabled(true);
    view->sortByColumn(sortColumn, order);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false);
    view->setTextElideMode(Qt::ElideMiddle);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->horizontalHeader()->setHighlightSections(false);
    return view;
}

QTreeView* makeTreeView(QAbstractItemModel* model, bool sorted, QWidget* parent) {
    auto* view = new QTreeView(parent);
    view->setModel(sorted ? static_cast<QAbstractItemModel*>(sortable(model, parent)) : model);
    view->setSortingEnabled(sorted);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setAlternatingRowColors(true);
    view->setUniformRowHeights(true);
    view->setTextElideMode(Qt::ElideMiddle);
    view->header()->setStretchLastSection(false);
    view->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    return view;
}

// The source model's index behind a view's (possibly proxied) index.
QModelIndex sourceIndex(const QModelIndex& index) {
    if (const auto* proxy = qobject_cast<const QSortFilterProxyModel*>(index.model()))
        return proxy->mapToSource(index);
    return index;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      loader_(new ProblemLoader(this)),
      editor_(new PlanEditor(this)),
      names_(new NameModel(this)),
      decisions_(new DecisionModel(this)),
      opCounts_(new OpCountModel(this)),
      parameters_(new ParameterModel(this)),
      messages_(new MessageLog(this)),
      graph_(new GraphView(this)),
      chooser_(new QComboBox(this)),
      findField_(new QLineEdit(this)),
      expertChooser_(new QComboBox(this)),
      summary_(new SummaryPanel(this)),
      cost_(new CostPanel(this)),
      timeline_(new TimelineView(this)),
      pipeline_(new PipelineView(editor_, this)),
      details_(new QTextBrowser(this)),
      stableHlo_(new ModelTextView(this)),
      problemEditor_(new ProblemEditor(this)),
      nameView_(makeTreeView(names_, true, this)),
      conflictPanel_(new ConflictPanel(editor_, this)),
      decisionView_(makeTableView(decisions_, -1, Qt::AscendingOrder, this)),
      parameterView_(makeTableView(parameters_, -1, Qt::AscendingOrder, this)),
      opCountView_(makeTableView(opCounts_, OpCountModel::CountColumn, Qt::DescendingOrder, this)),
      messageView_(makeTableView(messages_, -1, Qt::AscendingOrder, this)),
      progress_(new QProgressBar(this)) {
    setWindowTitle(tr("Shardscope"));
    resize(1440, 900);
    // The wheel scrolls the panels; it changes a spin box or combo box only once the user works in it.
    if (auto* application = qobject_cast<QApplication*>(QCoreApplication::instance()))
        WheelFocusPolicy::install(*application);
    spec_.mesh = "data=2,model=4";  // one 8-GPU node, two ways to shard: shows both kinds of decision
    problemEditor_->setSpec(spec_);

    // --- the model chooser and the toolbar ---
    chooser_->setObjectName(QStringLiteral("modelChooser"));
    chooser_->setEditable(true);
    chooser_->setInsertPolicy(QComboBox::NoInsert);
    chooser_->setModel(new ZooCatalogModel(chooser_));
    // The popup lists each source with what it is; the line edit holds only the source.
    auto* catalogView = new QTreeView(chooser_);
    catalogView->setHeaderHidden(true);
    catalogView->setRootIsDecorated(false);
    catalogView->setAllColumnsShowFocus(true);
    catalogView->setTextElideMode(Qt::ElideRight);
    catalogView->setMinimumWidth(720);
    chooser_->setView(catalogView);
    catalogView->header()->setStretchLastSection(true);
    chooser_->setModelColumn(ZooCatalogModel::SourceColumn);
    catalogView->resizeColumnToContents(ZooCatalogModel::SourceColumn);
    catalogView->setColumnWidth(ZooCatalogModel::SourceColumn,
                                catalogView->columnWidth(ZooCatalogModel::SourceColumn) + 16);
    chooser_->setMaxVisibleItems(20);
    chooser_->setMinimumContentsLength(28);
    chooser_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    // Inline completion would turn "zoo:gpt" into "zoo:gpt2-small" under the cursor; offer matches instead.
    chooser_->completer()->setCompletionMode(QCompleter::PopupCompletion);
    chooser_->completer()->setCaseSensitivity(Qt::CaseSensitive);
    chooser_->lineEdit()->setPlaceholderText(tr("zoo:NAME[:key=value,...], a model file or a workspace"));
    chooser_->setToolTip(tr(
        "A zoo preset or family, optionally with options (zoo:gpt:layers=4,d_model=512), the path of a model "
        "file, or a workspace file; Enter opens it"));
    // Choosing from the list emits textActivated; Enter in the line edit emits returnPressed, and also
    // textActivated when the text matches an entry: openModel() ignores the repeated request.
    connect(chooser_, &QComboBox::textActivated, this, &MainWindow::openModel);
    connect(chooser_->lineEdit(), &QLineEdit::returnPressed, this,
            [this] { openModel(chooser_->currentText().trimmed()); });

    expertChooser_->setObjectName(QStringLiteral("expertChooser"));
    expertChooser_->addItem(tr("Start from…"));
    for (const ExpertChoice& expert : expertChoices()) {
        expertChooser_->addItem(expert.id, QStringLiteral("expert:") + expert.id);
        expertChooser_->setItemData(expertChooser_->count() - 1,
                                    withGlossary(expert.description, QStringLiteral("expert-") + expert.id),
                                    Qt::ToolTipRole);
    }
    expertChooser_->addItem(tr("reference"), QStringLiteral("reference"));
    expertChooser_->setItemData(expertChooser_->count() - 1,
                                tr("The shardings the model already carries (mhlo.sharding, sdy.sharding)"),
                                Qt::ToolTipRole);
    expertChooser_->setToolTip(
        tr("Replace the edited plan with a well-known strategy (your pinned and forbidden decisions stay)"));
    connect(expertChooser_, &QComboBox::activated, this, [this](int i) {
        if (i > 0)
            openPlan(expertChooser_->itemData(i).toString());
        expertChooser_->setCurrentIndex(0);
    });

    findField_->setObjectName(QStringLiteral("findField"));
    findField_->setPlaceholderText(tr("Find op, tensor or parameter"));
    findField_->setClearButtonEnabled(true);
    findField_->setMaximumWidth(260);
    connect(findField_, &QLineEdit::returnPressed, this, &MainWindow::find);

    auto* toolBar = addToolBar(tr("Model"));
    toolBar->setObjectName(QStringLiteral("modelToolBar"));
    toolBar->setMovable(false);
    auto* chooserLabel = new QLabel(tr("Model:"), toolBar);
    chooserLabel->setContentsMargins(4, 0, 6, 0);
    toolBar->addWidget(chooserLabel);
    toolBar->addWidget(chooser_);
    toolBar->addSeparator();
    // Short labels in the toolbar; what would be undone is in the tooltip (and in the Edit menu).
    QUndoStack* history = editor_->undoStack();
    auto* undo = new QAction(tr("Undo"), this);
    auto* redo = new QAction(tr("Redo"), this);
    undo->setShortcut(QKeySequence::Undo);
    redo->setShortcut(QKeySequence::Redo);
    undo->setEnabled(false);
    redo->setEnabled(false);
    connect(undo, &QAction::triggered, history, &QUndoStack::undo);
    connect(redo, &QAction::triggered, history, &QUndoStack::redo);
    connect(history, &QUndoStack::canUndoChanged, undo, &QAction::setEnabled);
    connect(history, &QUndoStack::canRedoChanged, redo, &QAction::setEnabled);
    connect(history, &QUndoStack::undoTextChanged, undo,
            [undo](const QString& text) { undo->setToolTip(tr("Undo: %1").arg(text)); });
    connect(history, &QUndoStack::redoTextChanged, redo,
            [redo](const QString& text) { redo->setToolTip(tr("Redo: %1").arg(text)); });
    undo->setObjectName(QStringLiteral("undoAction"));
    redo->setObjectName(QStringLiteral("redoAction"));
    toolBar->addAction(undo);
    toolBar->addAction(redo);
    toolBar->addWidget(expertChooser_);
    toolBar->addSeparator();
    toolBar->addAction(tr("Fit"), graph_, &GraphView::fitToView)
        ->setToolTip(tr("Fit the graph in the view (Ctrl+0)"));
    toolBar->addAction(tr("Expand all"), graph_, &GraphView::expandAll);
    toolBar->addAction(tr("Collapse all"), graph_, &GraphView::collapseAll);
    toolBar->addWidget(findField_);

    // --- the graph and the docks ---
    graph_->setObjectName(QStringLiteral("graphView"));
    // Above the graph, while a plan is previewed: which one, and the two ways out of it.
    previewBanner_ = new QFrame(this);
    previewBanner_->setObjectName(QStringLiteral("previewBanner"));
    previewBanner_->setStyleSheet(
        QStringLiteral("#previewBanner { background: #fff3cd; border-bottom: 1px solid #e0c060; }"));
    previewText_ = new QLabel(previewBanner_);
    previewText_->setObjectName(QStringLiteral("previewText"));
    previewText_->setWordWrap(true);
    auto* editPreview = new QPushButton(tr("Edit this plan"), previewBanner_);
    editPreview->setObjectName(QStringLiteral("previewEdit"));
    editPreview->setToolTip(
        tr("Make the previewed plan the one you edit; your pinned and forbidden decisions "
           "stay (Undo brings the previous plan back)"));
    auto* endPreview = new QPushButton(tr("Back to the edited plan"), previewBanner_);
    endPreview->setObjectName(QStringLiteral("previewEnd"));
    auto* bannerLayout = new QHBoxLayout(previewBanner_);
    bannerLayout->setContentsMargins(8, 4, 8, 4);
    bannerLayout->addWidget(previewText_, 1);
    bannerLayout->addWidget(editPreview);
    bannerLayout->addWidget(endPreview);
    previewBanner_->setWhatsThis(whatsThisOf(QStringLiteral("preview")));
    previewBanner_->hide();
    connect(editPreview, &QPushButton::clicked, editor_, &PlanEditor::editPreview);
    connect(endPreview, &QPushButton::clicked, editor_, &PlanEditor::endPreview);
    auto* centre = new QWidget(this);
    auto* centreLayout = new QVBoxLayout(centre);
    centreLayout->setContentsMargins(0, 0, 0, 0);
    centreLayout->setSpacing(0);
    centreLayout->addWidget(previewBanner_);
    centreLayout->addWidget(graph_, 1);
    setCentralWidget(centre);

    stableHlo_->setObjectName(QStringLiteral("stableHloView"));
    stableHlo_->setPlaceholderText(tr("The model's StableHLO appears here once it is loaded."));
    details_->setObjectName(QStringLiteral("detailsView"));
    details_->setOpenLinks(false);
    details_->setPlaceholderText(tr("Select an op, a name or a conflict to see its details."));
    summary_->setObjectName(QStringLiteral("summaryPanel"));
    cost_->setObjectName(QStringLiteral("costPanel"));
    problemEditor_->setObjectName(QStringLiteral("problemEditor"));
    nameView_->setObjectName(QStringLiteral("namesView"));
    conflictPanel_->setObjectName(QStringLiteral("conflictPanel"));
    decisionView_->setObjectName(QStringLiteral("decisionsView"));
    parameterView_->setObjectName(QStringLiteral("parametersView"));
    opCountView_->setObjectName(QStringLiteral("opKindsView"));
    messageView_->setObjectName(QStringLiteral("messagesView"));
    messageView_->setTextElideMode(Qt::ElideRight);
    for (int column = 0; column < MessageLog::TextColumn; ++column)
        messageView_->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    messageView_->horizontalHeader()->setSectionResizeMode(MessageLog::TextColumn, QHeaderView::Stretch);
    // The newest in view as they arrive (unless the user sorted the log another way).
    connect(messages_, &MessageLog::added, messageView_, [this] {
        if (messageView_->horizontalHeader()->sortIndicatorSection() < 0)
            messageView_->scrollToBottom();
        updateMessagesTitle();
    });
    parameterView_->horizontalHeader()->setSectionResizeMode(ParameterModel::NameColumn,
                                                             QHeaderView::Stretch);
    opCountView_->horizontalHeader()->setSectionResizeMode(OpCountModel::KindColumn, QHeaderView::Stretch);
    // Columns fit the first rows' contents when a model opens (a training step has hundreds of parameter and
    // optimizer-state rows; measuring every one held up the window).
    parameterView_->horizontalHeader()->setResizeContentsPrecision(64);
    nameView_->sortByColumn(NameModel::BytesColumn, Qt::DescendingOrder);
    for (int column = 1; column < NameModel::ColumnCount; ++column)
        nameView_->header()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    nameView_->setColumnHidden(NameModel::TensorsColumn, true);
    nameView_->setTextElideMode(
        Qt::ElideLeft);  // "…mlp.d_ff": a label's end says what it is  // in the details; the dock is narrow
    nameView_->setContextMenuPolicy(Qt::CustomContextMenu);
    decisionView_->setContextMenuPolicy(Qt::CustomContextMenu);
    for (int column = 0; column < DecisionModel::ColumnCount; ++column)
        decisionView_->horizontalHeader()->setSectionResizeMode(column, column == DecisionModel::TargetColumn
                                                                            ? QHeaderView::Stretch
                                                                            : QHeaderView::ResizeToContents);

    setCorner(Qt::TopLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    auto* namesDock = addPanel(tr("Names"), QStringLiteral("namesDock"), nameView_, Qt::LeftDockWidgetArea);
    auto* conflictsDock =
        addPanel(tr("Conflicts"), QStringLiteral("conflictsDock"), conflictPanel_, Qt::LeftDockWidgetArea);
    auto* summaryDock =
        addPanel(tr("Model"), QStringLiteral("summaryDock"), summary_, Qt::LeftDockWidgetArea);
    // The cost's lines grow with the collectives' kinds: let them scroll rather than be clipped.
    auto* costScroll = new QScrollArea(this);
    costScroll->setWidget(cost_);
    costScroll->setWidgetResizable(true);
    costScroll->setFrameShape(QFrame::NoFrame);
    costScroll->setMinimumHeight(260);
    auto* costDock = addPanel(tr("Cost"), QStringLiteral("costDock"), costScroll, Qt::RightDockWidgetArea);
    // The plan: its decisions, and under them its rematerialization per block family.
    auto* planPanel = new QWidget(this);
    auto* planLayout = new QVBoxLayout(planPanel);
    planLayout->setContentsMargins(0, 0, 0, 0);
    planLayout->setSpacing(0);
    planLayout->addWidget(decisionView_, 1);
    auto* remat = new RematPanel(editor_, planPanel);
    remat->setObjectName(QStringLiteral("rematPanel"));
    planLayout->addWidget(remat);
    auto* planDock = addPanel(tr("Plan"), QStringLiteral("planDock"), planPanel, Qt::RightDockWidgetArea);
    // The editor is tall; on a small screen it scrolls rather than making the window taller than the screen.
    auto* problemScroll = new QScrollArea(this);
    problemScroll->setWidget(problemEditor_);
    problemScroll->setWidgetResizable(true);
    problemScroll->setFrameShape(QFrame::NoFrame);
    auto* problemDock = addPanel(tr("Mesh and training"), QStringLiteral("problemDock"), problemScroll,
                                 Qt::RightDockWidgetArea);
    auto* detailsDock =
        addPanel(tr("Details"), QStringLiteral("detailsDock"), details_, Qt::BottomDockWidgetArea);
    auto* timelineDock =
        addPanel(tr("Timeline"), QStringLiteral("timelineDock"), timeline_, Qt::BottomDockWidgetArea);
    auto* pipelineDock =
        addPanel(tr("Pipeline"), QStringLiteral("pipelineDock"), pipeline_, Qt::BottomDockWidgetArea);
    auto* hloDock =
        addPanel(tr("StableHLO"), QStringLiteral("stableHloDock"), stableHlo_, Qt::BottomDockWidgetArea);
    messagesDock_ =
        addPanel(tr("Messages"), QStringLiteral("messagesDock"), messageView_, Qt::BottomDockWidgetArea);
    auto* parametersDock =
        addPanel(tr("Parameters"), QStringLiteral("parametersDock"), parameterView_, Qt::LeftDockWidgetArea);
    auto* opKindsDock =
        addPanel(tr("Op kinds"), QStringLiteral("opKindsDock"), opCountView_, Qt::LeftDockWidgetArea);
    // The panels whose contents cost work to fill (priced options, megabytes of text) fill only while in
    // sight.
    connect(conflictsDock, &QDockWidget::visibilityChanged, conflictPanel_, &ConflictPanel::setInView);
    connect(hloDock, &QDockWidget::visibilityChanged, stableHlo_, &ModelTextView::setInView);
    tabifyDockWidget(namesDock, conflictsDock);
    tabifyDockWidget(planDock, problemDock);
    tabifyDockWidget(detailsDock, timelineDock);
    tabifyDockWidget(timelineDock, pipelineDock);
    tabifyDockWidget(pipelineDock, hloDock);
    tabifyDockWidget(summaryDock, parametersDock);
    tabifyDockWidget(parametersDock, opKindsDock);
    // The session: search, plans, breakdown, search tree and comparison.
    session_ = new SessionDocks(this, editor_, graph_);
    connect(session_, &SessionDocks::message, this,
            [this](const QString& text) { report(LogMessage::Severity::Note, tr("Session"), text); });
    connect(session_, &SessionDocks::failure, this,
            [this](const QString& text) { report(LogMessage::Severity::Error, tr("Session"), text); });
    tabifyDockWidget(problemDock, session_->searchDock());
    QDockWidget* below = hloDock;
    for (QDockWidget* dock : session_->bottomDocks()) {
        tabifyDockWidget(below, dock);
        below = dock;
    }
    tabifyDockWidget(below, messagesDock_);
    namesDock->raise();
    planDock->raise();
    detailsDock->raise();
    summaryDock->raise();
    resizeDocks({namesDock, costDock}, {420, 400}, Qt::Horizontal);
    resizeDocks({namesDock, summaryDock}, {560, 220}, Qt::Vertical);
    resizeDocks({costDock, planDock}, {500, 300}, Qt::Vertical);
    resizeDocks({detailsDock}, {220}, Qt::Vertical);

    progress_->setObjectName(QStringLiteral("busyIndicator"));
    progress_->setRange(0, 0);  // busy indicator: loading and layout report no fraction
    progress_->setMaximumWidth(120);
    progress_->hide();
    statusBar()->addPermanentWidget(progress_);
    buildMenus();

    // --- wiring ---
    connect(loader_, &ProblemLoader::busyChanged, this, &MainWindow::showBusy);
    connect(loader_, &ProblemLoader::loaded, this, &MainWindow::showModel);
    connect(loader_, &ProblemLoader::failed, this, &MainWindow::showFailure);
    // A module without @main and with several functions: offer them in the editor; Apply opens it with the
    // one chosen.
    connect(loader_, &ProblemLoader::entryChoices, this,
            [this](const QString& source, const QStringList& names) {
                pendingEntrySource_ = source;
                problemEditor_->setEntryChoices(names);
                if (auto* dock = findChild<QDockWidget*>(QStringLiteral("problemDock"))) {
                    dock->show();
                    dock->raise();
                }
            });
    connect(editor_, &PlanEditor::evaluated, this, &MainWindow::showState);
    connect(editor_, &PlanEditor::previewEvaluated, this, &MainWindow::showShown);
    connect(editor_, &PlanEditor::previewChanged, this, &MainWindow::previewChanged);
    connect(editor_, &PlanEditor::evaluatingChanged, this, [this](bool evaluating) {
        cost_->setEvaluating(evaluating);
        showBusy();
        checkSettled();
    });
    connect(editor_, &PlanEditor::evaluationFailed, this, [this](const QString& message) {
        report(LogMessage::Severity::Error, tr("Evaluation"), message);
        checkSettled();
    });
    connect(problemEditor_, &ProblemEditor::applied, this, &MainWindow::applySpec);
    // A screenshot of the Breakdown dock waits for its pictures.
    connect(session_->breakdown(), &PlanBreakdownView::computingEnded, this, &MainWindow::checkSettled);
    connect(stableHlo_, &ModelTextView::loaded, this, &MainWindow::checkSettled);

    connect(graph_, &GraphView::layoutStarted, this, [this] {
        showBusy();
        statusBar()->showMessage(tr("Laying out the graph…"));
    });
    auto layoutEnded = [this] {
        showBusy();
        checkSettled();
    };
    connect(graph_, &GraphView::layoutFinished, this, [this, layoutEnded] {
        if (notice_.isEmpty())
            statusBar()->clearMessage();
        else
            statusBar()->showMessage(notice_);
        layoutEnded();
    });
    connect(graph_, &GraphView::layoutCancelled, this, [this, layoutEnded] {
        statusBar()->showMessage(tr("Layout cancelled; the previous picture stays."));
        layoutEnded();
    });
    connect(graph_, &GraphView::labelsPlaced, this, layoutEnded);
    connect(graph_, &GraphView::layoutFailed, this, [this, layoutEnded](const QString& message) {
        report(LogMessage::Severity::Error, tr("Layout"), tr("Cannot lay the graph out: %1").arg(message));
        layoutEnded();
    });
    connect(graph_, &GraphView::opSelected, this, [this](std::size_t body) {
        timeline_->setSelectedOp(body);
        detailKind_ = OpDetail;
        detailIndex_ = body;
        showDetails(describeOp(*current_, editor_->shownState().get(), body));
    });
    connect(graph_, &GraphView::argumentSelected, this, [this](std::size_t argument) {
        timeline_->setSelectedOp(std::nullopt);
        detailKind_ = ArgumentDetail;
        detailIndex_ = argument;
        showDetails(describeArgument(*current_, editor_->shownState().get(), argument));
    });
    connect(graph_, &GraphView::moduleSelected, this, [this](int module) {
        timeline_->setSelectedOp(std::nullopt);
        detailKind_ = ModuleDetail;
        detailIndex_ = static_cast<std::size_t>(module);
        showDetails(describeModule(*current_, editor_->shownState().get(), module));
    });

    connect(nameView_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { nameSelected(current); });
    connect(nameView_, &QWidget::customContextMenuRequested, this, &MainWindow::nameMenu);
    connect(conflictPanel_, &ConflictPanel::opSelected, this, &MainWindow::selectOp);
    connect(conflictPanel_, &ConflictPanel::nameSelected, this, [this](analysis::NameId name) {
        if (!current_)
            return;
        graph_->setHighlightedName(name);
        detailKind_ = NameDetail;
        detailIndex_ = name.index;
        showDetails(describeName(*current_, editor_->shownState().get(), name));
    });
    connect(conflictPanel_, &ConflictPanel::effect, this,
            [this](const QString& text) { report(LogMessage::Severity::Note, tr("Conflicts"), text); });
    connect(conflictPanel_, &ConflictPanel::evaluatingChanged, this, [this] {
        showBusy();
        checkSettled();
    });
    connect(decisionView_, &QWidget::customContextMenuRequested, this, &MainWindow::decisionMenu);
    connect(timeline_, &TimelineView::opSelected, this, &MainWindow::selectOp);
    auto* removeDecision = new QShortcut(QKeySequence::Delete, decisionView_);
    removeDecision->setContext(Qt::WidgetShortcut);
    connect(removeDecision, &QShortcut::activated, this, [this] { removeSelectedDecision(); });
    connect(details_, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (const auto id = glossaryIdOf(url))
            showGlossary(*id);
    });
    addWhatsThis();
    // "What's this?" texts link to the glossary: their clicks arrive as events of the widget asked about.
    qApp->installEventFilter(this);
    previewChanged();
}

void MainWindow::addWhatsThis() {
    // Every panel says what it is from its glossary entry ("panel-" and the dock's name without "Dock").
    graph_->setWhatsThis(whatsThisOf(QStringLiteral("panel-graph")));
    for (QDockWidget* dock : findChildren<QDockWidget*>()) {
        QString id = dock->objectName();
        if (id.endsWith(QLatin1String("Dock")))
            id.chop(4);
        const QString text = whatsThisOf(QStringLiteral("panel-") + id);
        dock->setWhatsThis(text);
        if (dock->widget() && dock->widget()->whatsThis().isEmpty())
            dock->widget()->setWhatsThis(text);
        dock->setProperty("panelTitle", dock->windowTitle());
    }
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::WhatsThisClicked) {
        if (const auto id = glossaryIdOf(QUrl(static_cast<QWhatsThisClickedEvent*>(event)->href()))) {
            showGlossary(*id);
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::showGlossary(const QString& id) {
    if (!glossary_) {
        glossary_ = new GlossaryDialog(this);
        glossary_->setModal(false);
        if (id.isEmpty())
            glossary_->showEntry(QStringLiteral("name"));
    }
    if (!id.isEmpty())
        glossary_->showEntry(id);
    glossary_->show();
    glossary_->raise();
    glossary_->activateWindow();
}

MainWindow::~MainWindow() = default;

QDockWidget* MainWindow::addPanel(const QString& title, const QString& objectName, QWidget* panel,
                                  Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(objectName);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                      QDockWidget::DockWidgetClosable);
    dock->setWidget(panel);
    addDockWidget(area, dock);
    return dock;
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, &MainWindow::chooseFile);
    open->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open the &demo"), this, [this] { openModel(defaultModelSource()); });
    file->addAction(tr("Open a &plan…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a plan"), QString(),
                                                          tr("Plans (*.json);;All files (*)"));
        if (!path.isEmpty())
            openPlan(path);
    });
    file->addAction(tr("&Export the plan…"), this, [this] {
        if (!current_)
            return;
        auto* dialog = new ExportDialog(current_, editor_->plan(), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &ExportDialog::exported, this, [this](const QString& path) {
            report(LogMessage::Severity::Note, tr("Export"), tr("Exported the plan to %1").arg(path), 4000);
        });
        dialog->open();
    });
    file->addAction(tr("&Save the plan as…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save the plan"),
                                                          QStringLiteral("plan.json"), tr("Plans (*.json)"));
        if (!path.isEmpty())
            savePlan(path);
    });
    recentMenu_ = file->addMenu(tr("Open &recent"));
    recentMenu_->setObjectName(QStringLiteral("recentMenu"));
    refreshRecentMenu();
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    // The menu's entries say what they undo; their shortcuts belong to the toolbar's actions.
    edit->addAction(editor_->undoStack()->createUndoAction(edit, tr("&Undo")));
    edit->addAction(editor_->undoStack()->createRedoAction(edit, tr("&Redo")));
    edit->addSeparator();
    QAction* findAction = edit->addAction(tr("&Find…"), this, [this] {
        findField_->setFocus();
        findField_->selectAll();
    });
    findAction->setShortcut(QKeySequence::Find);

    QMenu* plan = menuBar()->addMenu(tr("&Plan"));
    QMenu* experts = plan->addMenu(tr("Start from an &expert plan"));
    for (const ExpertChoice& expert : expertChoices())
        experts
            ->addAction(expert.id, this, [this, id = expert.id] { openPlan(QStringLiteral("expert:") + id); })
            ->setToolTip(expert.description);
    plan->addAction(tr("&Clear the plan"), this, [this] { editor_->replacePlan({}, tr("Clear the plan")); });
    plan->addSeparator();
    QAction* editPreview = plan->addAction(tr("E&dit the previewed plan"), editor_, &PlanEditor::editPreview);
    editPreview->setObjectName(QStringLiteral("editPreviewAction"));
    QAction* endPreview = plan->addAction(tr("&Back to the edited plan"), editor_, &PlanEditor::endPreview);
    endPreview->setObjectName(QStringLiteral("endPreviewAction"));
    auto previewActions = [this, editPreview, endPreview] {
        editPreview->setEnabled(editor_->isPreviewing());
        endPreview->setEnabled(editor_->isPreviewing());
    };
    previewActions();
    connect(editor_, &PlanEditor::previewChanged, this, previewActions);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* fit = view->addAction(tr("&Fit the graph"), graph_, &GraphView::fitToView);
    fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    view->addAction(tr("Zoom &in"), this, [this] { graph_->zoomBy(1.25); })
        ->setShortcut(QKeySequence::ZoomIn);
    view->addAction(tr("Zoom &out"), this, [this] { graph_->zoomBy(0.8); })
        ->setShortcut(QKeySequence::ZoomOut);
    QAction* stages = view->addAction(tr("Colour ops by pipeline &stage"));
    stages->setObjectName(QStringLiteral("stageBandsAction"));
    stages->setCheckable(true);
    stages->setChecked(graph_->stageBandsShown());
    stages->setToolTip(tr("With a pipeline, a band on each op's left edge in the colour of its stage"));
    connect(stages, &QAction::toggled, graph_, &GraphView::setStageBandsShown);
    // The graph's legend and heat map, as the controls over its top-left corner set them.
    QAction* legend = view->addAction(tr("Show the &legend"));
    legend->setObjectName(QStringLiteral("legendAction"));
    legend->setCheckable(true);
    legend->setChecked(graph_->legendShown());
    legend->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    connect(legend, &QAction::toggled, graph_, &GraphView::setLegendShown);
    connect(graph_, &GraphView::legendShownChanged, legend, &QAction::setChecked);
    QMenu* heat = view->addMenu(tr("Colour &nodes by"));
    heat->setObjectName(QStringLiteral("heatMenu"));
    auto* heatGroup = new QActionGroup(heat);
    for (const HeatMetric metric :
         {HeatMetric::None, HeatMetric::Time, HeatMetric::Communication, HeatMetric::Memory}) {
        QAction* action = heat->addAction(heatMetricName(metric));
        action->setCheckable(true);
        action->setData(static_cast<int>(metric));
        action->setChecked(graph_->heatMetric() == metric);
        heatGroup->addAction(action);
        connect(action, &QAction::triggered, this, [this, metric] { graph_->setHeatMetric(metric); });
    }
    connect(graph_, &GraphView::heatMetricChanged, heat, [heat](HeatMetric metric) {
        for (QAction* action : heat->actions())
            action->setChecked(action->data().toInt() == static_cast<int>(metric));
    });
    view->addSeparator();
    view->addAction(tr("&Expand every module"), graph_, &GraphView::expandAll);
    view->addAction(tr("&Collapse every module"), graph_, &GraphView::collapseAll);
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName(QStringLiteral("helpMenu"));
    // F1 over a tooltip that names a glossary entry opens that entry.
    QAction* glossaryAction = help->addAction(tr("&Glossary"), this, [this] {
        const auto id = QToolTip::isVisible() ? glossaryIdInTip(QToolTip::text()) : std::nullopt;
        showGlossary(id.value_or(QString()));
    });
    glossaryAction->setObjectName(QStringLiteral("glossaryAction"));
    glossaryAction->setShortcut(QKeySequence::HelpContents);
    glossaryAction->setToolTip(tr("The words the explorer uses, in plain language"));
    QAction* whatsThis = QWhatsThis::createAction(help);
    whatsThis->setObjectName(QStringLiteral("whatsThisAction"));
    whatsThis->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F1));
    help->addAction(whatsThis);
}

void MainWindow::openModel(const QString& source) {
    if (source.isEmpty() || (loader_->isBusy() && source == requested_))
        return;
    // A model opens with the settings the user sees, applied or not (unchanged, exactly as they were given: a
    // mesh file stays a file).
    const bool edited = problemEditor_->isUnapplied();
    if (!problemEditor_->isValid()) {
        showFailure(tr("Cannot open %1 with the settings under Mesh and training: %2")
                        .arg(source, problemEditor_->errorText()));
        return;
    }
    pendingEntrySource_.clear();
    ProblemRequest request;
    request.spec = edited ? problemEditor_->spec() : spec_;
    request.spec.sizes.clear();  // another model: its own sizes, until the user sets them
    if (isWorkspaceFile(source))
        request.workspace = source;
    else
        request.spec.model = source.toStdString();
    load(request, source);
}

void MainWindow::setSpec(const ProblemSpec& spec) {
    spec_ = spec;
    problemEditor_->setSpec(spec_);
}

void MainWindow::applySpec(const ProblemSpec& spec) {
    if (!pendingEntrySource_.isEmpty() && !spec.entry.empty()) {
        // The module that could not open for want of an entry, with the entry chosen.
        ProblemRequest request;
        request.spec = spec;
        request.spec.model = pendingEntrySource_.toStdString();
        request.spec.sizes.clear();
        const QString source = std::exchange(pendingEntrySource_, QString());
        load(request, source);
        return;
    }
    if (!current_)
        return;
    ProblemRequest request;
    request.spec = spec;
    request.spec.model = current_->problem->spec.model;
    request.spec.dimensions = current_->problem->spec.dimensions;
    if (!current_->workspacePath.isEmpty()) {
        request.workspace = current_->workspacePath;
        request.session = current_->session;
        request.specFromRequest = true;
    }
    request.carriedPlan = editor_->planJson();
    request.settingsChange = true;
    // spec_ changes once the problem arrives (showModel): settings that fail to load leave the next open
    // alone.
    requested_.clear();
    load(request, current_->source);
}

void MainWindow::load(const ProblemRequest& request, const QString& shownAs) {
    requested_ = shownAs;
    if (chooser_->currentText() != shownAs)
        chooser_->setEditText(shownAs);
    statusBar()->showMessage(tr("Opening %1…").arg(shownAs));
    awaitingSettle_ = true;
    loader_->load(request);
}

void MainWindow::showModel(std::shared_ptr<const ProblemView> model) {
    current_ = std::move(model);
    setWindowTitle(tr("%1 – Shardscope").arg(current_->displayName));
    spec_ = current_->problem->spec;
    problemEditor_->setSpec(spec_);
    stableHlo_->showText(current_->stableHlo);
    summary_->showModel(*current_);
    parameters_->setProblem(current_);
    opCounts_->setProblem(current_);
    names_->setProblem(current_);
    decisions_->setProblem(current_);
    cost_->showState(nullptr, nullptr);
    timeline_->showState(nullptr, nullptr);
    pipeline_->showState(nullptr, nullptr);
    detailKind_ = NoDetail;
    details_->clear();
    // Names are the previous model's: nothing is lit until the user selects a name of this one.
    graph_->setHighlightedName(std::nullopt);
    graph_->setProblem(current_);
    editor_->setProblem(current_);
    session_->setProblem(current_);
    opCountView_->resizeColumnToContents(OpCountModel::CountColumn);
    for (int column = ParameterModel::RoleColumn; column < ParameterModel::ColumnCount; ++column)
        parameterView_->resizeColumnToContents(column);
    rememberRecent(current_->source);
    const auto& space = current_->space();
    report(LogMessage::Severity::Note, tr("Open"),
           tr("Opened %1: %L2 ops, %L3 names in %L4 groups, %L5 conflicts, in %L6 ms")
               .arg(current_->source)
               .arg(current_->statistics.opCount)
               .arg(space.names.size())
               .arg(space.groups.size())
               .arg(space.conflicts.size())
               .arg(current_->loadMilliseconds));
    for (const QString& warning : current_->warnings)
        messages_->add(LogMessage::Severity::Warning, tr("Load"), warning);
    for (const QString& warning : current_->planWarnings)
        messages_->add(LogMessage::Severity::Warning, tr("Plan"), warning);
    // What of the user's plan did not survive the new settings is said where they look, and stays there
    // through the layout.
    notice_.clear();
    if (!current_->planWarnings.isEmpty()) {
        notice_ = current_->planWarnings.size() == 1
                      ? current_->planWarnings.front()
                      : tr("%1 (and %n more)", nullptr, int(current_->planWarnings.size()) - 1)
                            .arg(current_->planWarnings.front());
        statusBar()->showMessage(notice_);
    }
    // After the lines saying the model opened, so that a plan that cannot open is the last word.
    if (!planToOpen_.isEmpty())
        openPlan(std::exchange(planToOpen_, QString()));
    emit modelShown();
    checkSettled();
}

void MainWindow::showFailure(const QString& message) {
    QString shown = message;
    if (!pendingEntrySource_.isEmpty())
        shown += tr("\nChoose the entry function under Mesh and training, then Apply.");
    summary_->showError(current_ ? tr("%1\nStill showing %2.").arg(shown, current_->source) : shown);
    report(LogMessage::Severity::Error, tr("Open"), message);
    awaitingSettle_ = false;
    emit modelFailed(message);
}

void MainWindow::showState(std::shared_ptr<const PlanState> state) {
    if (!current_)
        return;
    // The panels that edit the plan show the edited plan, preview or not.
    names_->setPlanState(state);
    decisions_->setPlanState(state);
    if (!editor_->isPreviewing())
        showShown(std::move(state));
}

void MainWindow::showShown(std::shared_ptr<const PlanState> state) {
    if (!current_)
        return;
    const bool preview = editor_->isPreviewing();
    cost_->showState(current_.get(), state.get());
    cost_->setCaption(state ? tr("Cost of %1").arg(editor_->shownCaption()) : QString(), preview);
    timeline_->showState(current_, state);
    pipeline_->showState(current_, state);
    graph_->setPlanState(state);
    // The details follow the plan.
    switch (detailKind_) {
        case OpDetail:
            showDetails(describeOp(*current_, state.get(), detailIndex_));
            break;
        case NameDetail:
            showDetails(describeName(*current_, state.get(),
                                     analysis::NameId(static_cast<std::uint32_t>(detailIndex_))));
            break;
        case GroupDetail:
            showDetails(describeGroup(*current_, state.get(),
                                      analysis::GroupId(static_cast<std::uint32_t>(detailIndex_))));
            break;
        case ArgumentDetail:
            showDetails(describeArgument(*current_, state.get(), detailIndex_));
            break;
        case ModuleDetail:
            showDetails(describeModule(*current_, state.get(), static_cast<int>(detailIndex_)));
            break;
        default:
            break;
    }
}

void MainWindow::previewChanged() {
    const bool preview = editor_->isPreviewing();
    if (preview) {
        previewText_->setText(tr("<b>Previewing %1.</b> The graph, Cost, Breakdown, Timeline and Pipeline "
                                 "show it; the plan you "
                                 "edit is unchanged.")
                                  .arg(editor_->previewName().toHtmlEscaped()));
    }
    previewBanner_->setVisible(preview);
    // The docks that show the plan shown say when it is a preview in their title bars (tabs stay short: the
    // banner says it there).
    for (QDockWidget* dock : findChildren<QDockWidget*>()) {
        static const QStringList shown = {QStringLiteral("costDock"), QStringLiteral("timelineDock"),
                                          QStringLiteral("pipelineDock"), QStringLiteral("detailsDock"),
                                          QStringLiteral("breakdownDock")};
        const QString title = dock->property("panelTitle").toString();
        if (!shown.contains(dock->objectName()) || title.isEmpty())
            continue;
        const bool titleBar = dock->isFloating() || tabifiedDockWidgets(dock).isEmpty();
        dock->setWindowTitle(preview && titleBar ? tr("%1 (preview)").arg(title) : title);
    }
    // Back to the edited plan: its newest evaluation at once (a newer one may follow).
    if (!preview)
        showShown(editor_->state());
}

void MainWindow::showBusy() {
    progress_->setVisible(loader_->isBusy() || editor_->isEvaluating() || graph_->isLayoutBusy() ||
                          conflictPanel_->isEvaluating());
}

bool MainWindow::isSettled() const {
    // The conflicts' options are evaluated only while their panel is shown, the breakdown only while it is.
    return current_ && !loader_->isBusy() && !editor_->isEvaluating() && !graph_->isLayoutBusy() &&
           !conflictPanel_->isEvaluating() && !session_->breakdownPending() && !stableHlo_->isArriving();
}

void MainWindow::checkSettled() {
    if (!awaitingSettle_ || !isSettled())
        return;
    if (!findOnOpen_.isEmpty()) {
        findField_->setText(std::exchange(findOnOpen_, QString()));
        find();
        if (!isSettled())
            return;  // the match was in a collapsed module: settled once it is laid out
    }
    awaitingSettle_ = false;
    emit settled();
}

QStringList MainWindow::recentSources() {
    return QSettings().value(kRecentKey).toStringList();
}

void MainWindow::rememberRecent(const QString& source) {
    QStringList recent = recentSources();
    // Files by absolute path, so the list works from any directory; zoo names as they are.
    const QString entry = QFileInfo::exists(source) ? QFileInfo(source).absoluteFilePath() : source;
    recent.removeAll(entry);
    recent.prepend(entry);
    while (recent.size() > kRecentCount)
        recent.removeLast();
    QSettings().setValue(kRecentKey, recent);
    refreshRecentMenu();
}

void MainWindow::refreshRecentMenu() {
    if (!recentMenu_)
        return;
    recentMenu_->clear();
    const QStringList recent = recentSources();
    for (const QString& source : recent)
        recentMenu_->addAction(source, this, [this, source] { openModel(source); });
    recentMenu_->setEnabled(!recent.isEmpty());
}

void MainWindow::chooseFile() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open a model or a workspace"), QString(),
        tr("Models and workspaces (*.mlir *.stablehlo *.onnx *.shardscope);;All files (*)"));
    if (!path.isEmpty())
        openModel(path);
}

bool MainWindow::openPlan(const QString& plan, QString* errorMessage) {
    QStringList warnings;
    if (!succeeded(editor_->openPlan(plan, &warnings), errorMessage))
        return false;
    // A plan whose decisions the mesh cannot apply opens (the user may change the mesh next), and says so.
    for (const QString& warning : warnings)
        messages_->add(LogMessage::Severity::Warning, tr("Plan"), warning);
    if (!warnings.isEmpty())
        statusBar()->showMessage(
            warnings.size() == 1
                ? warnings.front()
                : tr("%1 (and %2 more)")
                      .arg(warnings.front(), countOf(static_cast<long long>(warnings.size()) - 1,
                                                     tr("warning"), tr("warnings"))));
    return true;
}

bool MainWindow::savePlan(const QString& path, QString* errorMessage) {
    if (!succeeded(editor_->savePlan(path), errorMessage))
        return false;
    statusBar()->showMessage(tr("Saved the plan to %1").arg(path), 4000);
    return true;
}

bool MainWindow::succeeded(const QString& error, QString* errorMessage) {
    if (error.isEmpty())
        return true;
    report(LogMessage::Severity::Error, tr("Plan"), error);
    if (errorMessage)
        *errorMessage = error;
    return false;
}

void MainWindow::report(LogMessage::Severity severity, const QString& source, const QString& text,
                        int timeoutMs) {
    messages_->add(severity, source, text);
    statusBar()->showMessage(text, timeoutMs);
}

void MainWindow::updateMessagesTitle() {
    const int errors = messages_->count(LogMessage::Severity::Error);
    const int warnings = messages_->count(LogMessage::Severity::Warning);
    QStringList counts;
    if (errors > 0)
        counts << (errors == 1 ? tr("1 error") : tr("%1 errors").arg(errors));
    if (warnings > 0)
        counts << (warnings == 1 ? tr("1 warning") : tr("%1 warnings").arg(warnings));
    messagesDock_->setWindowTitle(
        counts.isEmpty() ? tr("Messages") : tr("Messages (%1)").arg(counts.join(QStringLiteral(", "))));
}

void MainWindow::nameSelected(const QModelIndex& index) {
    if (!current_)
        return;
    const auto target = names_->targetAt(sourceIndex(index));
    if (!target) {
        graph_->setHighlightedName(std::nullopt);
        return;
    }
    if (target->kind == plan::Decision::Target::Name) {
        const analysis::NameId name(target->index);
        graph_->setHighlightedName(name);
        detailKind_ = NameDetail;
        detailIndex_ = name.index;
        showDetails(describeName(*current_, editor_->shownState().get(), name));
    } else {
        const analysis::GroupId group(target->index);
        const auto& names = current_->space().group(group).names;
        graph_->setHighlightedNames(names);
        detailKind_ = GroupDetail;
        detailIndex_ = group.index;
        showDetails(describeGroup(*current_, editor_->shownState().get(), group));
    }
}

void MainWindow::nameMenu(const QPoint& position) {
    if (!current_)
        return;
    const auto target = names_->targetAt(sourceIndex(nameView_->indexAt(position)));
    if (!target)
        return;
    plan::Decision decision;
    decision.target = target->kind;
    decision.index = target->index;
    QMenu menu(this);
    const auto& axes = current_->mesh().axes;
    for (std::size_t a = 0; a < axes.size(); ++a) {
        decision.axis = static_cast<int>(a);
        menu.addAction(tr("Shard on %1 (pin)").arg(toQString(axes[a].name)), this,
                       [this, decision] { editor_->pin(decision); });
    }
    menu.addSeparator();
    for (std::size_t a = 0; a < axes.size(); ++a) {
        decision.axis = static_cast<int>(a);
        menu.addAction(tr("Forbid sharding on %1").arg(toQString(axes[a].name)), this,
                       [this, decision] { editor_->forbid(decision); });
    }
    menu.exec(nameView_->viewport()->mapToGlobal(position));
}

void MainWindow::decisionMenu(const QPoint& position) {
    const QModelIndex source = sourceIndex(decisionView_->indexAt(position));
    const auto row = decisions_->decisionAt(source);
    if (!row)
        return;
    QMenu menu(this);
    if (row->resolution) {
        menu.addAction(tr("Remove this conflict choice"), this,
                       [this, i = row->index] { editor_->removeResolution(i); });
    } else if (row->forbidden) {
        menu.addAction(tr("Allow again"), this, [this, i = row->index] { editor_->allow(i); });
    } else {
        const plan::Decision decision = editor_->plan().decisions[row->index];
        if (row->index >= editor_->plan().pinned)
            menu.addAction(tr("Pin"), this, [this, decision] { editor_->pin(decision); });
        menu.addAction(tr("Remove"), this, [this, i = row->index] { editor_->removeDecision(i); });
        menu.addAction(tr("Forbid"), this, [this, decision] { editor_->forbid(decision); });
    }
    menu.exec(decisionView_->viewport()->mapToGlobal(position));
}

void MainWindow::removeSelectedDecision() {
    const QModelIndex source = sourceIndex(decisionView_->currentIndex());
    const auto row = decisions_->decisionAt(source);
    if (!row)
        return;
    if (row->resolution)
        editor_->removeResolution(row->index);
    else if (row->forbidden)
        editor_->allow(row->index);
    else
        editor_->removeDecision(row->index);
}

void MainWindow::showDetails(const QString& html) {
    // Under a preview, the shardings described are the previewed plan's: say so first.
    if (editor_->isPreviewing() && !html.isEmpty())
        details_->setHtml(QStringLiteral("<div style='color:#8a5a00'><b>%1</b></div>")
                              .arg(tr("Under %1").arg(editor_->shownCaption().toHtmlEscaped())) +
                          html);
    else
        details_->setHtml(html);
}

void MainWindow::selectOp(std::size_t bodyIndex) {
    if (!current_ || bodyIndex >= current_->graph().body.size())
        return;
    graph_->showOp(bodyIndex);
    timeline_->setSelectedOp(bodyIndex);
    detailKind_ = OpDetail;
    detailIndex_ = bodyIndex;
    showDetails(describeOp(*current_, editor_->shownState().get(), bodyIndex));
}

bool MainWindow::showDock(const QString& nameAndTab) {
    // "breakdown:memory": the panel, and the tab of that title inside it.
    const QString name = nameAndTab.section(u':', 0, 0);
    const QString tab = nameAndTab.section(u':', 1);
    for (QDockWidget* dock : findChildren<QDockWidget*>()) {
        const QString objectName = dock->objectName();
        const bool named = objectName.compare(name, Qt::CaseInsensitive) == 0 ||
                           objectName.compare(name + QStringLiteral("Dock"), Qt::CaseInsensitive) == 0 ||
                           dock->windowTitle().remove(u'&').compare(name, Qt::CaseInsensitive) == 0;
        if (named) {
            dock->show();
            dock->raise();
            if (tab.isEmpty())
                return true;
            for (QTabWidget* tabs : dock->findChildren<QTabWidget*>())
                for (int i = 0; i < tabs->count(); ++i)
                    if (tabs->tabText(i).remove(u'&').compare(tab, Qt::CaseInsensitive) == 0) {
                        tabs->setCurrentIndex(i);
                        return true;
                    }
            return false;
        }
    }
    return false;
}

void MainWindow::find() {
    const QString text = findField_->text().trimmed();
    if (text.isEmpty())
        return;
    if (!graph_->find(text))
        statusBar()->showMessage(tr("Nothing in the graph matches \"%1\"").arg(text), 4000);
}

void MainWindow::restoreLayout() {
    const QSettings settings;
    restoreGeometry(settings.value(kGeometryKey).toByteArray());
    restoreState(settings.value(kStateKey).toByteArray(), kLayoutVersion);
}

bool MainWindow::saveScreenshot(const QString& path, QString* errorMessage) {
    QImageWriter writer(path);
    if (writer.write(grab().toImage()))
        return true;
    if (errorMessage)
        *errorMessage = tr("cannot write %1: %2").arg(path, writer.errorString());
    return false;
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState(kLayoutVersion));
    QMainWindow::closeEvent(event);
}

}  // namespace shardscope::ui
