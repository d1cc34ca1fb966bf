#include "widgets/main_window.h"

#include <QCloseEvent>
#include <QComboBox>
#include <QCompleter>
#include <QDockWidget>
#include <QFontDatabase>
#include <QHeaderView>
#include <QImageWriter>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QToolBar>
#include <QTreeView>

#include "core/model_loader.h"
#include "core/op_count_model.h"
#include "core/parameter_model.h"
#include "core/zoo_catalog_model.h"
#include "widgets/summary_panel.h"

namespace shardscope::ui {
namespace {

// Bump when the docks change, so restoreState() ignores layouts saved by older versions.
constexpr int kLayoutVersion = 1;
constexpr char kGeometryKey[] = "mainWindow/geometry";
constexpr char kStateKey[] = "mainWindow/state";

// A sortable table over `model`; sortColumn -1 keeps the model's own order until a header is clicked.
QTableView* makeTableView(QAbstractItemModel* model, int sortColumn, Qt::SortOrder order, QWidget* parent) {
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(SortRole);
    proxy->setSortCaseSensitivity(Qt::CaseInsensitive);

    auto* view = new QTableView(parent);
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->sortByColumn(sortColumn, order);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false);
    view->setTextElideMode(Qt::ElideMiddle);
    view->verticalHeader()->hide();
    view->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view->horizontalHeader()->setHighlightSections(false);
    return view;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      loader_(new ModelLoader(this)),
      opCounts_(new OpCountModel(this)),
      parameters_(new ParameterModel(this)),
      chooser_(new QComboBox(this)),
      stableHlo_(new QPlainTextEdit(this)),
      summary_(new SummaryPanel(this)),
      parameterView_(makeTableView(parameters_, -1, Qt::AscendingOrder, this)),
      opCountView_(makeTableView(opCounts_, OpCountModel::CountColumn, Qt::DescendingOrder, this)),
      progress_(new QProgressBar(this)) {
    setWindowTitle(tr("Shardscope"));
    resize(1280, 800);

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
    chooser_->setMinimumContentsLength(36);
    chooser_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    // Inline completion would turn "zoo:gpt" into "zoo:gpt2-small" under the cursor; offer matches instead.
    chooser_->completer()->setCompletionMode(QCompleter::PopupCompletion);
    chooser_->completer()->setCaseSensitivity(Qt::CaseSensitive);
    chooser_->lineEdit()->setPlaceholderText(tr("zoo:NAME[:key=value,...] or a model file"));
    chooser_->setToolTip(
        tr("A zoo preset or family, optionally with options (zoo:gpt:layers=4,d_model=512), "
           "or the path of a model file; Enter opens it"));
    // Choosing from the list emits textActivated; Enter in the line edit emits returnPressed, and also
    // textActivated when the text matches an entry: openModel() ignores the repeated request.
    connect(chooser_, &QComboBox::textActivated, this, &MainWindow::openModel);
    connect(chooser_->lineEdit(), &QLineEdit::returnPressed, this,
            [this] { openModel(chooser_->currentText().trimmed()); });

    auto* toolBar = addToolBar(tr("Model"));
    toolBar->setObjectName(QStringLiteral("modelToolBar"));
    toolBar->setMovable(false);
    auto* chooserLabel = new QLabel(tr("Model:"), toolBar);
    chooserLabel->setContentsMargins(4, 0, 6, 0);
    toolBar->addWidget(chooserLabel);
    toolBar->addWidget(chooser_);

    stableHlo_->setObjectName(QStringLiteral("stableHloView"));
    stableHlo_->setReadOnly(true);
    stableHlo_->setLineWrapMode(QPlainTextEdit::NoWrap);
    stableHlo_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    stableHlo_->setPlaceholderText(tr("The model's StableHLO appears here once it is loaded."));
    setCentralWidget(stableHlo_);

    summary_->setObjectName(QStringLiteral("summaryPanel"));
    parameterView_->setObjectName(QStringLiteral("parametersView"));
    opCountView_->setObjectName(QStringLiteral("opKindsView"));
    parameterView_->horizontalHeader()->setSectionResizeMode(ParameterModel::NameColumn,
                                                             QHeaderView::Stretch);
    opCountView_->horizontalHeader()->setSectionResizeMode(OpCountModel::KindColumn, QHeaderView::Stretch);

    // The right-hand docks run the full height; Parameters spans the width under the text.
    setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    auto* summaryDock =
        addPanel(tr("Summary"), QStringLiteral("summaryDock"), summary_, Qt::RightDockWidgetArea);
    auto* opKindsDock =
        addPanel(tr("Op kinds"), QStringLiteral("opKindsDock"), opCountView_, Qt::RightDockWidgetArea);
    auto* parametersDock = addPanel(tr("Parameters"), QStringLiteral("parametersDock"), parameterView_,
                                    Qt::BottomDockWidgetArea);
    resizeDocks({summaryDock}, {360}, Qt::Horizontal);
    resizeDocks({summaryDock, opKindsDock}, {190, 610}, Qt::Vertical);
    resizeDocks({parametersDock}, {240}, Qt::Vertical);

    progress_->setRange(0, 0);  // busy indicator: loading reports no fraction
    progress_->setMaximumWidth(120);
    progress_->hide();
    statusBar()->addPermanentWidget(progress_);

    connect(loader_, &ModelLoader::busyChanged, this, &MainWindow::showBusy);
    connect(loader_, &ModelLoader::loaded, this, &MainWindow::showModel);
    connect(loader_, &ModelLoader::failed, this, &MainWindow::showFailure);
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

void MainWindow::openModel(const QString& source) {
    if (source.isEmpty() || (loader_->isBusy() && source == requested_))
        return;
    requested_ = source;
    if (chooser_->currentText() != source)
        chooser_->setEditText(source);
    statusBar()->showMessage(tr("Loading %1…").arg(source));
    loader_->load(source);
}

void MainWindow::showModel(std::shared_ptr<const LoadedModelView> model) {
    current_ = std::move(model);
    setWindowTitle(tr("%1 – Shardscope").arg(current_->displayName));
    stableHlo_->setPlainText(current_->stableHlo);
    summary_->showModel(*current_);
    parameters_->setLoadedModel(current_);
    opCounts_->setLoadedModel(current_);
    opCountView_->resizeColumnToContents(OpCountModel::CountColumn);
    for (int column = ParameterModel::RoleColumn; column < ParameterModel::ColumnCount; ++column)
        parameterView_->resizeColumnToContents(column);
    statusBar()->showMessage(tr("Loaded %1: %L2 ops, %L3 parameter tensors, in %L4 ms")
                                 .arg(current_->source)
                                 .arg(current_->statistics.opCount)
                                 .arg(parameters_->rowCount())
                                 .arg(current_->loadMilliseconds));
    emit modelShown();
}

void MainWindow::showFailure(const QString& message) {
    summary_->showError(current_ ? tr("%1\nStill showing %2.").arg(message, current_->source) : message);
    statusBar()->showMessage(message);
    emit modelFailed(message);
}

void MainWindow::showBusy(bool busy) {
    progress_->setVisible(busy);
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
