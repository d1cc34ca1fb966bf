// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A new user's walk through the real main window, checking every panel after each step: open a zoo model,
// start from an expert plan, pin a decision, search, preview plans (the edited plan stays), edit one (the
// pins stay), compare two, open another model (nothing of the first stays), then the help: glossary and
// "What's this?". A second walk does what the new pictures show: a conflict's options priced against the
// edited plan and one chosen, the plan's collectives and heat map on the graph, the Breakdown's memory by
// category and time per module, and the mesh picture.
#include <algorithm>
#include <cmath>
#include <memory>

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QToolTip>
#include <QTreeView>
#include <QUndoStack>
#include <QWhatsThis>

#include "core/conflict_model.h"
#include "core/decision_model.h"
#include "core/glossary.h"
#include "core/message_log.h"
#include "core/plan_breakdown.h"
#include "core/plan_editor.h"
#include "core/plan_table_model.h"
#include "core/search_runner.h"
#include "core/search_tree_model.h"
#include "core/selection_details.h"
#include "shardscope/report/model_report.h"
#include "test_paths.h"
#include "widgets/compare_view.h"
#include "widgets/conflict_panel.h"
#include "widgets/cost_panel.h"
#include "widgets/glossary_dialog.h"
#include "widgets/graph_view.h"
#include "widgets/main_window.h"
#include "widgets/memory_chart.h"
#include "widgets/mesh_view.h"
#include "widgets/module_time_chart.h"
#include "widgets/plan_breakdown_view.h"
#include "widgets/search_panel.h"
#include "widgets/session_docks.h"
#include "widgets/timeline_view.h"

using namespace shardscope;
using namespace shardscope::ui;

namespace {

constexpr int kTimeoutMs = 60'000;
const QString kModelA = QStringLiteral("zoo:demo");
const QString kModelB = QStringLiteral("zoo:gpt:layers=1,seq=64,d_model=128,heads=4");
// A small Llama's training step: seq repeats in the attention scores (a conflict that matters once seq is
// sharded).
const QString kLlama =
    QStringLiteral("zoo:llama:layers=2,d_model=256,heads=4,kv_heads=2,d_ff=512,seq=128,vocab=1024");

// Within a millionth of `scale` (the conflicts' deltas are differences of two evaluations).
bool near(double a, double b, double scale) {
    return std::abs(a - b) <= 1e-6 * std::max(scale, 1e-12);
}

QString timeText(double seconds) {
    return QString::fromStdString(report::formatTime(seconds));
}

// The plan the editor shows is evaluated: no evaluation pending, and the state is of that plan.
bool shownSettled(const PlanEditor& editor) {
    if (editor.isEvaluating())
        return false;
    const auto state = editor.shownState();
    return state && state->plan == (editor.isPreviewing() ? editor.previewPlan() : editor.plan());
}

// The breakdown shows `plan` (computed, not pending).
bool breakdownShows(const PlanBreakdownView& view, const plan::Plan& plan) {
    return !view.isComputing() && view.breakdown() && view.breakdown()->plan == plan;
}

// Where the walk leaves its pictures (the build tree), to look at.
QString shotPath(const QString& name) {
    QDir folder(shardscope::testing::binaryDir() + QStringLiteral("/ui_screenshot"));
    folder.mkpath(QStringLiteral("."));
    return folder.filePath(name);
}

QString labelText(const QWidget& window, const char* name) {
    const auto* label = window.findChild<QLabel*>(QLatin1String(name));
    return label ? label->text() : QStringLiteral("<no label %1>").arg(QLatin1String(name));
}

}  // namespace

class TestUiWalk : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("Shardscope"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_ui_walk"));
    }

    void walk() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy settled(&window, &MainWindow::settled);
        PlanEditor* editor = window.planEditor();
        SessionDocks* session = window.sessionDocks();
        auto* cost = window.findChild<CostPanel*>(QStringLiteral("costPanel"));
        auto* details = window.findChild<QTextBrowser*>(QStringLiteral("detailsView"));
        PlanBreakdownView* breakdown = session->breakdown();
        GraphView* graph = window.graphView();
        QVERIFY(cost && details && breakdown && graph);

        // 1. Open model A.
        window.openModel(kModelA);
        QVERIFY(settled.wait(kTimeoutMs));
        const auto modelA = window.currentModel();
        QCOMPARE(modelA->source, kModelA);
        QVERIFY(!window.previewBanner()->isVisible());
        QCOMPARE(cost->caption(), QStringLiteral("Cost of the edited plan"));

        // 2. Start from fsdp-tp (the toolbar's chooser): Cost and Breakdown both show it.
        auto* experts = window.findChild<QComboBox*>(QStringLiteral("expertChooser"));
        QVERIFY(experts);
        const int fsdpTp = experts->findText(QStringLiteral("fsdp-tp"));
        QVERIFY(fsdpTp > 0);
        emit experts->activated(fsdpTp);
        QVERIFY(!editor->plan().decisions.empty());
        QVERIFY(window.showDock(QStringLiteral("breakdown")));
        QTRY_VERIFY_WITH_TIMEOUT(shownSettled(*editor), kTimeoutMs);
        const cost::Evaluation expert = cost::evaluate(*modelA->problem->costModel, editor->plan());
        QCOMPARE(cost->stepTimeText(), timeText(expert.stepTime));
        QTRY_VERIFY_WITH_TIMEOUT(breakdownShows(*breakdown, editor->plan()), kTimeoutMs);
        QCOMPARE(breakdown->breakdown()->evaluation.peakMemory, expert.peakMemory);
        QCOMPARE(breakdown->statusText(), QStringLiteral("Breakdown of the edited plan"));
        QCOMPARE(graph->planState(), editor->state());

        // 3. Pin a decision (what the Names panel's menu does): the batch on the data axis.
        const auto& space = modelA->space();
        const auto batch = std::find_if(space.names.begin(), space.names.end(),
                                        [](const analysis::Name& n) { return n.label == "batch"; });
        QVERIFY(batch != space.names.end());
        const plan::Decision pin{plan::Decision::Target::Name,
                                 static_cast<std::uint32_t>(batch - space.names.begin()),
                                 *modelA->mesh().axisIndex("data")};
        editor->pin(pin);
        QCOMPARE(editor->plan().pinned, std::size_t{1});
        QTRY_VERIFY_WITH_TIMEOUT(shownSettled(*editor), kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(breakdownShows(*breakdown, editor->plan()), kTimeoutMs);

        // 4. A short search fills the Plans table (the expert plans, then what it finds).
        SearchPanel* search = session->searchPanel();
        search->setWorkspacePath(dir.filePath(QStringLiteral("walk.shardscope")));
        search::SearchOptions options = search->options();
        options.budget.seconds = 1.0;
        options.threads = 1;
        options.seed = 7;
        search->setOptions(options);
        QSignalSpy finished(search->runner(), &SearchRunner::finished);
        QVERIFY(search->startSearch());
        QVERIFY(finished.wait(kTimeoutMs));
        // Once the search has ended the file is read again, for the tree and the table (with the plans' ids).
        QTRY_VERIFY_WITH_TIMEOUT(session->tree()->storedNodeCount() > 0, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(!session->plans()->isLoading() && session->plans()->rowCount() >= 3,
                                 kTimeoutMs);
        QVERIFY(labelText(*search, "searchStatus").startsWith(QStringLiteral("Done")));
        QVERIFY(labelText(*search, "searchRecording").startsWith(QStringLiteral("Recorded in")));

        // 5. Select a plan in the table: a preview. The edited plan, its pins and the history stay; Cost,
        // Breakdown, the graph and the Timeline show the preview, marked as such.
        const plan::Plan edited = editor->plan();
        const int historyBefore = editor->undoStack()->count();
        QTableView* table = session->planTable();
        int previewRow = -1;  // a table row (view order) whose plan differs from the edited plan
        for (int r = 0; r < table->model()->rowCount() && previewRow < 0; ++r) {
            const int row = table->model()->index(r, 0).data(PlanTableModel::RowRole).toInt();
            const auto plan = session->plans()->planAt(row);
            if (plan && plan->decisions != edited.decisions)
                previewRow = r;
        }
        QVERIFY(previewRow >= 0);
        table->selectRow(previewRow);
        const int previewed = table->model()->index(previewRow, 0).data(PlanTableModel::RowRole).toInt();
        const plan::Plan previewPlan = *session->plans()->planAt(previewed);
        QVERIFY(editor->isPreviewing());
        QCOMPARE(editor->previewPlan(), previewPlan);
        QCOMPARE(editor->plan(), edited);
        QCOMPARE(editor->undoStack()->count(), historyBefore);
        QVERIFY(window.previewBanner()->isVisible());
        QVERIFY(labelText(window, "previewText").contains(editor->previewName()));
        QTRY_VERIFY_WITH_TIMEOUT(shownSettled(*editor), kTimeoutMs);
        const cost::Evaluation preview = cost::evaluate(*modelA->problem->costModel, previewPlan);
        QCOMPARE(cost->stepTimeText(), timeText(preview.stepTime));
        QCOMPARE(cost->caption(), QStringLiteral("Cost of %1 (preview)").arg(editor->previewName()));
        QCOMPARE(graph->planState(), editor->previewState());
        QCOMPARE(editor->shownState()->plan, previewPlan);
        QTRY_VERIFY_WITH_TIMEOUT(breakdownShows(*breakdown, previewPlan), kTimeoutMs);
        QCOMPARE(breakdown->breakdown()->evaluation.peakMemory, preview.peakMemory);
        QVERIFY(breakdown->statusText().endsWith(QStringLiteral("(preview)")));
        auto* costDock = window.findChild<QDockWidget*>(QStringLiteral("costDock"));
        QCOMPARE(costDock->windowTitle(), QStringLiteral("Cost (preview)"));
        QVERIFY(window.timelineView()->summaryText().startsWith(
            QStringLiteral("step %1").arg(timeLabel(editor->previewState()->evaluation.stepTime))));
        // A picture for docs/images/preview.png: 1150 pixels wide, 256 colours (once the Cost's new lines are
        // laid out).
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QCoreApplication::processEvents();
        QVERIFY(window.grab()
                    .toImage()
                    .scaledToWidth(1150, Qt::SmoothTransformation)
                    .convertToFormat(QImage::Format_Indexed8)
                    .save(shotPath(QStringLiteral("preview.png"))));
        // The Plan panel still lists the edited plan's decisions.
        auto* decisions = window.findChild<QTableView*>(QStringLiteral("decisionsView"));
        QCOMPARE(decisions->model()->rowCount(), static_cast<int>(edited.decisions.size()));

        // "Back to the edited plan" ends the preview: everything shows the edited plan again.
        auto* back = window.findChild<QPushButton*>(QStringLiteral("planBackButton"));
        QVERIFY(back && back->isEnabled());
        QTest::mouseClick(back, Qt::LeftButton);
        QVERIFY(!editor->isPreviewing());
        QVERIFY(!window.previewBanner()->isVisible());
        QCOMPARE(cost->caption(), QStringLiteral("Cost of the edited plan"));
        QCOMPARE(costDock->windowTitle(), QStringLiteral("Cost"));
        QCOMPARE(graph->planState(), editor->state());
        QTRY_VERIFY_WITH_TIMEOUT(breakdownShows(*breakdown, edited), kTimeoutMs);

        // 6. Preview it again and make it the edited plan: one undoable step, the pin first.
        table->clearSelection();
        table->selectRow(previewRow);
        QVERIFY(editor->isPreviewing());
        auto* edit = window.findChild<QPushButton*>(QStringLiteral("planEditButton"));
        QVERIFY(edit && edit->isEnabled());
        QTest::mouseClick(edit, Qt::LeftButton);
        QVERIFY(!editor->isPreviewing());
        QVERIFY(!window.previewBanner()->isVisible());
        QCOMPARE(editor->undoStack()->count(), historyBefore + 1);
        QVERIFY(editor->undoStack()->undoText().startsWith(QStringLiteral("Edit ")));
        QVERIFY(editor->plan().pinned >= 1);
        QCOMPARE(editor->plan().decisions.front(), pin);
        for (const plan::Decision& d : previewPlan.decisions)
            QVERIFY(std::find(editor->plan().decisions.begin(), editor->plan().decisions.end(), d) !=
                    editor->plan().decisions.end());
        QTRY_VERIFY_WITH_TIMEOUT(shownSettled(*editor), kTimeoutMs);
        QCOMPARE(cost->caption(), QStringLiteral("Cost of the edited plan"));
        QCOMPARE(cost->stepTimeText(),
                 timeText(cost::evaluate(*modelA->problem->costModel, editor->plan()).stepTime));
        QTRY_VERIFY_WITH_TIMEOUT(breakdownShows(*breakdown, editor->plan()), kTimeoutMs);

        // A double-click on a row edits it too (through a preview).
        const int other = previewRow == 0 ? 1 : 0;
        table->clearSelection();
        const QRect cell = table->visualRect(table->model()->index(other, 0));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        QVERIFY(!editor->isPreviewing());
        QCOMPARE(editor->plan().decisions.front(), pin);

        // 7. Compare two plans: the Compare panel fills.
        table->clearSelection();
        table->selectionModel()->select(table->model()->index(0, 0),
                                        QItemSelectionModel::Select | QItemSelectionModel::Rows);
        table->selectionModel()->select(table->model()->index(1, 0),
                                        QItemSelectionModel::Select | QItemSelectionModel::Rows);
        auto* compare = window.findChild<QPushButton*>(QStringLiteral("planCompareButton"));
        QVERIFY(compare && compare->isEnabled());
        QTest::mouseClick(compare, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(session->compareView()->comparison() != nullptr, kTimeoutMs);
        // Either plan of the comparison can be previewed from there (the edited plan stays).
        const plan::Plan beforeCompare = editor->plan();
        auto* previewB = session->compareView()->findChild<QPushButton*>(QStringLiteral("comparePreviewB"));
        QVERIFY(previewB && previewB->isEnabled());
        QTest::mouseClick(previewB, Qt::LeftButton);
        QVERIFY(editor->isPreviewing());
        QCOMPARE(
            editor->previewPlan(),
            *session->plans()->planAt(table->model()->index(1, 0).data(PlanTableModel::RowRole).toInt()));
        QCOMPARE(editor->plan(), beforeCompare);
        editor->endPreview();

        // Select a name: it is lit on the graph and described.
        auto* names = window.findChild<QTreeView*>(QStringLiteral("namesView"));
        const QModelIndexList seq = names->model()->match(names->model()->index(0, 0), Qt::DisplayRole,
                                                          QStringLiteral("seq"), 1, Qt::MatchExactly);
        QCOMPARE(seq.size(), 1);
        names->setCurrentIndex(seq.first());
        QVERIFY(!graph->highlightedNames().empty());
        QVERIFY(details->toPlainText().contains(QStringLiteral("seq")));
        // Plain words in the details and the Plan panel's tooltips.
        QVERIFY(!details->toPlainText().contains(QStringLiteral("(s)")));
        for (int r = 0; r < decisions->model()->rowCount(); ++r)
            for (int c = 0; c < decisions->model()->columnCount(); ++c) {
                const QString tip = decisions->model()->index(r, c).data(Qt::ToolTipRole).toString();
                QVERIFY2(!tip.contains(QStringLiteral("atoms took")), qUtf8Printable(tip));
            }

        // A preview left open when the next model comes.
        table->clearSelection();
        table->selectRow(previewRow);
        QVERIFY(editor->isPreviewing());

        // 8. Open model B: nothing of model A stays.
        window.openModel(kModelB);
        QVERIFY(settled.wait(kTimeoutMs));
        const auto modelB = window.currentModel();
        QCOMPARE(modelB->source, kModelB);
        QVERIFY(!editor->isPreviewing());
        QVERIFY(!window.previewBanner()->isVisible());
        QCOMPARE(costDock->windowTitle(), QStringLiteral("Cost"));
        QCOMPARE(session->compareView()->comparison(), nullptr);
        QVERIFY(!session->compareView()->isComparing());
        QCOMPARE(labelText(*search, "searchStatus"), QStringLiteral("Not started"));
        QVERIFY(!labelText(*search, "searchRecording").startsWith(QStringLiteral("Recorded in")));
        QVERIFY(labelText(*search, "searchBest").isEmpty());
        QVERIFY(graph->highlightedNames().empty());
        QCOMPARE(session->plans()->rowCount(), 0);
        QVERIFY(details->toPlainText().isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(shownSettled(*editor), kTimeoutMs);
        const cost::Evaluation b = cost::evaluate(*modelB->problem->costModel, editor->plan());
        QCOMPARE(cost->stepTimeText(), timeText(b.stepTime));
        QCOMPARE(cost->caption(), QStringLiteral("Cost of the edited plan"));
        QCOMPARE(graph->planState(), editor->state());
        // Compare is in front of the Breakdown now: it catches up once it comes to the front.
        QVERIFY(window.showDock(QStringLiteral("breakdown")));
        QTRY_VERIFY_WITH_TIMEOUT(breakdownShows(*breakdown, editor->plan()), kTimeoutMs);
        QCOMPARE(breakdown->breakdown()->evaluation.peakMemory, b.peakMemory);
        QVERIFY(window.timelineView()->summaryText().startsWith(
            QStringLiteral("step %1").arg(timeLabel(editor->state()->evaluation.stepTime))));

        // 9. Help ▸ Glossary: searchable, with the words the explorer uses.
        auto* glossaryAction = window.findChild<QAction*>(QStringLiteral("glossaryAction"));
        QVERIFY(glossaryAction);
        QCOMPARE(glossaryAction->shortcut(), QKeySequence(QKeySequence::HelpContents));
        glossaryAction->trigger();
        GlossaryDialog* help = window.glossaryDialog();
        QVERIFY(help && help->isVisible());
        for (const char* id : {"name", "group", "conflict", "competition-site", "atoms", "usable-memory",
                               "remat", "pipeline", "microbatch", "collective", "step-time", "peak-memory",
                               "fsdp", "preview", "edited-plan", "pin"}) {
            const GlossaryEntry* entry = glossaryEntry(QLatin1String(id));
            QVERIFY2(entry && !entry->text.isEmpty(), id);
            QVERIFY2(help->showEntry(QLatin1String(id)), id);
            QVERIFY(help->textView()->toPlainText().contains(entry->term));
        }
        for (const ExpertChoice& choice : expertChoices())
            QVERIFY2(glossaryEntry(QStringLiteral("expert-") + choice.id), qUtf8Printable(choice.id));
        for (const char* kind :
             {"all-gather", "reduce-scatter", "all-reduce", "all-to-all", "collective-permute"})
            QVERIFY2(glossaryEntry(QStringLiteral("collective"))->text.contains(QLatin1String(kind)), kind);
        help->setFilter(QStringLiteral("rematerial"));
        QVERIFY(help->listedEntries().contains(QStringLiteral("remat")));
        QVERIFY(!help->listedEntries().contains(QStringLiteral("expert-dp")));
        QCOMPARE(help->currentEntry(), help->listedEntries().first());
        help->setFilter(QString());
        QCOMPARE(help->listedEntries().size(), glossary().size());
        // A "see also" link leads to its entry.
        help->showEntry(QStringLiteral("competition-site"));
        emit help->textView()->anchorClicked(glossaryUrl(QStringLiteral("atoms")));
        QCOMPARE(help->currentEntry(), QStringLiteral("atoms"));
        // The details' "what is this?" links open the glossary there.
        names->setCurrentIndex(names->model()->index(0, 0));
        QVERIFY(details->toHtml().contains(QStringLiteral("glossary:")));
        emit details->anchorClicked(glossaryUrl(QStringLiteral("group")));
        QCOMPARE(help->currentEntry(), QStringLiteral("group"));
        help->showEntry(QStringLiteral("competition-site"));
        QVERIFY(help->grab()
                    .toImage()
                    .convertToFormat(QImage::Format_Indexed8)
                    .save(shotPath(QStringLiteral("glossary.png"))));
        help->close();
        // F1 over a tooltip that names an entry opens the glossary there.
        QToolTip::showText(window.mapToGlobal(QPoint(200, 200)),
                           withGlossary(QStringLiteral("Recomputes activations"), QStringLiteral("remat")),
                           &window);
        QTRY_VERIFY(QToolTip::isVisible());
        glossaryAction->trigger();
        QCOMPARE(help->currentEntry(), QStringLiteral("remat"));
        QToolTip::hideText();
        help->close();
        QCOMPARE(glossaryIdInTip(withGlossary(QStringLiteral("x"), QStringLiteral("atoms"))),
                 std::optional<QString>(QStringLiteral("atoms")));
        QCOMPARE(glossaryIdInTip(QStringLiteral("x")), std::nullopt);

        // 10. "What's this?" on every panel, and its mode in the Help menu (Shift+F1).
        QVERIFY(!graph->whatsThis().isEmpty());
        for (const QDockWidget* dock : window.findChildren<QDockWidget*>())
            QVERIFY2(!dock->whatsThis().isEmpty() && !dock->widget()->whatsThis().isEmpty(),
                     qUtf8Printable(dock->objectName() +
                                    QStringLiteral(": add a \"panel-…\" entry to ui/core/glossary.cpp")));
        auto* whatsThis = window.findChild<QAction*>(QStringLiteral("whatsThisAction"));
        QVERIFY(whatsThis);
        QCOMPARE(whatsThis->shortcut(), QKeySequence(Qt::SHIFT | Qt::Key_F1));
        whatsThis->trigger();
        QVERIFY(QWhatsThis::inWhatsThisMode());
        QWhatsThis::leaveWhatsThisMode();
        // No tooltip or help points to documents the user does not have.
        for (const QWidget* widget : window.findChildren<QWidget*>())
            for (const QString& text : {widget->toolTip(), widget->whatsThis()})
                for (const char* word : {"DESIGN", "design.md", "docs/", "name(s)"})
                    QVERIFY2(!text.contains(QLatin1String(word)), qUtf8Printable(text));
    }

    // Parts 2 to 4 in the window, on a small Llama's training step on data=2,model=4.
    void walkConflictsGraphAndPictures() {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy settled(&window, &MainWindow::settled);
        ProblemSpec spec = window.spec();
        spec.mesh = "data=2,model=4";
        spec.train = true;
        window.setSpec(spec);
        window.openModel(kLlama);
        QVERIFY(settled.wait(kTimeoutMs));
        const auto model = window.currentModel();
        QVERIFY(model->problem->spec.train);
        PlanEditor* editor = window.planEditor();
        const auto& space = model->space();
        const mesh::Mesh& mesh = model->mesh();

        // 1. Start from fsdp-tp and shard seq on model as well (the Names panel's "Shard on model (pin)"):
        // its repeated-name conflict matters.
        QVERIFY(window.openPlan(QStringLiteral("expert:fsdp-tp")));
        const auto repeated = std::find_if(space.conflicts.begin(), space.conflicts.end(), [](const auto& c) {
            return c.kind == analysis::ConflictKind::RepeatedName;
        });
        QVERIFY(repeated != space.conflicts.end());
        const auto seq = static_cast<std::size_t>(repeated - space.conflicts.begin());
        editor->pin({plan::Decision::Target::Group, space.name(repeated->name).group.index,
                     *mesh.axisIndex("model")});
        QTRY_VERIFY_WITH_TIMEOUT(shownSettled(*editor), kTimeoutMs);

        // 2. The Conflicts dock prices every option against the edited plan, in the background: the engine's
        // evaluation of the plan with that option.
        QVERIFY(window.showDock(QStringLiteral("conflicts")));
        auto* panel = window.findChild<ConflictPanel*>();
        QVERIFY(panel);
        QTRY_VERIFY_WITH_TIMEOUT(window.isSettled() && !panel->isEvaluating(), kTimeoutMs);
        const plan::Plan before = editor->plan();
        const cost::Evaluation base = cost::evaluate(*model->problem->costModel, before);
        ConflictModel* conflicts = panel->model();
        int differing = 0;
        for (std::size_t o = 0; o < repeated->options.size(); ++o) {
            const QModelIndex time = conflicts->optionIndex(seq, o, ConflictModel::StepTimeColumn);
            QVERIFY(time.data(ConflictModel::DeltaTimeRole).isValid());
            const cost::Evaluation direct = cost::evaluate(
                *model->problem->costModel, withChoice(before, conflictChoice(space, seq, o), mesh));
            const double delta = time.data(ConflictModel::DeltaTimeRole).toDouble();
            QVERIFY(near(delta, direct.stepTime - base.stepTime, base.stepTime));
            differing += delta != 0 ? 1 : 0;
        }
        QVERIFY(differing > 0);
        const auto best = conflicts->bestOption(seq);
        QVERIFY(best.has_value());

        // 3. Choosing it edits the plan (one step of Undo), the effect is said (and kept in Messages), and a
        // dimension's choice is a row of the Plan dock.
        const ConflictChoice choice = conflictChoice(space, seq, *best);
        const int history = editor->undoStack()->count();
        panel->choose(choice);
        QTRY_VERIFY_WITH_TIMEOUT(window.isSettled() && shownSettled(*editor), kTimeoutMs);
        QCOMPARE(editor->plan(), withChoice(before, choice, mesh));
        QCOMPARE(editor->undoStack()->count(), history + 1);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->effectText().isEmpty(), kTimeoutMs);
        const MessageLog* log = window.messageLog();
        QVERIFY(log->rowCount() > 0);
        QCOMPARE(log->message(log->rowCount() - 1).text, panel->effectText());
        auto* decisions = window.findChild<QTableView*>(QStringLiteral("decisionsView"));
        int choiceRows = 0;
        for (int r = 0; r < decisions->model()->rowCount(); ++r)
            choiceRows +=
                decisions->model()->index(r, 0).data(DecisionModel::ResolutionRole).toBool() ? 1 : 0;
        QCOMPARE(choiceRows, static_cast<int>(editor->plan().resolutions.size()));

        // 4. The graph: badges on the edges where the plan's evaluation has collectives, and a heat map.
        GraphView* graph = window.graphView();
        QTRY_VERIFY_WITH_TIMEOUT(graph->annotations() && graph->annotations()->plan == editor->state(),
                                 kTimeoutMs);
        const auto annotations = graph->annotations();
        const cost::Evaluation& shown = editor->state()->evaluation;
        int badges = 0;
        for (const EdgeAnnotation& edge : annotations->edges) {
            badges += edge.hasBadge() ? 1 : 0;
            for (std::size_t c : edge.collectives)
                QVERIFY(c < shown.collectives.size());
        }
        QVERIFY(badges > 0);
        // View ▸ Show the legend and View ▸ Colour nodes by ▸ Time, as the controls over the graph.
        auto* legendAction = window.findChild<QAction*>(QStringLiteral("legendAction"));
        QVERIFY(legendAction && !legendAction->isChecked());
        legendAction->trigger();
        QVERIFY(graph->legendShown());
        auto* heatMenu = window.findChild<QMenu*>(QStringLiteral("heatMenu"));
        QVERIFY(heatMenu);
        const QList<QAction*> metrics = heatMenu->actions();
        const auto time = std::find_if(metrics.begin(), metrics.end(), [](const QAction* action) {
            return action->data().toInt() == static_cast<int>(HeatMetric::Time);
        });
        QVERIFY(time != metrics.end());
        (*time)->trigger();
        QCOMPARE(graph->heatMetric(), HeatMetric::Time);
        auto* colourBy = graph->findChild<QComboBox*>(QStringLiteral("graphHeatMetric"));
        QVERIFY(colourBy);
        QCOMPARE(colourBy->currentData().toInt(), static_cast<int>(HeatMetric::Time));
        colourBy->setCurrentIndex(colourBy->findData(static_cast<int>(HeatMetric::Memory)));
        QVERIFY(std::find_if(metrics.begin(), metrics.end(),
                             [](const QAction* action) { return action->isChecked(); }) != metrics.end());
        QCOMPARE(
            (*std::find_if(metrics.begin(), metrics.end(), [](const QAction* a) { return a->isChecked(); }))
                ->data()
                .toInt(),
            static_cast<int>(HeatMetric::Memory));
        (*time)->trigger();
        double hottest = 0;
        for (int node = 0; node < static_cast<int>(graph->projection()->nodes.size()); ++node)
            hottest = std::max(hottest, graph->nodeHeatValue(node));
        QVERIFY(hottest > 0 && hottest <= (shown.computeTime + shown.collectiveTime) * (1 + 1e-9));
        graph->setHeatMetric(HeatMetric::None);

        // 5. Breakdown: memory over the step stacked by category, its peak the evaluation's; time per module
        // as bars of compute and exposed communication adding up to the step.
        PlanBreakdownView* breakdown = window.sessionDocks()->breakdown();
        QVERIFY(window.showDock(QStringLiteral("breakdown:memory")));
        QTRY_VERIFY_WITH_TIMEOUT(breakdownShows(*breakdown, editor->plan()), kTimeoutMs);
        const MemoryChart* chart = breakdown->memoryChart();
        QVERIFY(chart->isStacked());
        const MemoryCurve& curve = chart->curves().front();
        QCOMPARE(curve.peak, shown.peakMemory);
        QCOMPARE(curve.parts.size(), curve.bytes.size());
        for (std::size_t i = 0; i < curve.bytes.size(); ++i)
            QVERIFY(near(curve.parts[i].total(), curve.bytes[i], shown.peakMemory));
        double barTotal = 0;
        for (const ModuleTimeBar& bar : breakdown->moduleTimeChart()->bars())
            barTotal += bar.total();
        QVERIFY(near(barTotal, shown.stepTime, shown.stepTime));

        // 6. The mesh picture in "Mesh and training": every axis with the link it uses.
        QVERIFY(window.showDock(QStringLiteral("problemDock")));
        auto* meshPicture = window.findChild<MeshView*>();
        QVERIFY(meshPicture);
        const QStringList lines = meshPicture->axisLines();
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines[0].startsWith(QStringLiteral("data")));
        QVERIFY(lines[1].startsWith(QStringLiteral("model")));
        QVERIFY(lines[1].contains(QStringLiteral("NVLink")));
    }
};

QTEST_MAIN(TestUiWalk)
#include "tst_ui_walk.moc"
