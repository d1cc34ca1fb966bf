// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The Conflicts dock: a list that reads at its default width, options priced in the background against the
// plan being edited, conflicts explained, choices listed in the Plan dock and their effect said.
#include <algorithm>
#include <cmath>
#include <memory>

#include <QDockWidget>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>

#include "core/conflict_model.h"
#include "core/decision_model.h"
#include "core/plan_editor.h"
#include "shardscope/cost/cost_model.h"
#include "widgets/conflict_panel.h"
#include "widgets/main_window.h"

#include "ui_test_support.h"

using namespace shardscope;
using namespace shardscope::ui;
using fixtures::stateOf;

namespace {

constexpr int kTimeoutMs = 120'000;
// A small Llama: a repeated name (seq, in the attention scores) and cut names (the rotary embedding's
// slices), so both kinds of conflict show.
const char kModel[] = "zoo:llama:layers=2,d_model=256,heads=4,kv_heads=2,d_ff=512,seq=128,vocab=1024";
const char kMesh[] = "data=2,model=4";

ProblemSpec spec() {
    ProblemSpec spec;
    spec.model = kModel;
    spec.mesh = kMesh;
    return spec;
}

std::shared_ptr<const ProblemView> llama() {
    static const auto view = fixtures::loadView(spec());
    return view;
}

// The repeated-name conflict (seq) of the model.
std::size_t repeatedConflict(const ProblemView& view) {
    const auto& conflicts = view.space().conflicts;
    const auto found = std::find_if(conflicts.begin(), conflicts.end(), [](const analysis::Conflict& c) {
        return c.kind == analysis::ConflictKind::RepeatedName;
    });
    if (found == conflicts.end())
        qFatal("no repeated name");
    return static_cast<std::size_t>(found - conflicts.begin());
}

// A decision sharding the group of conflict `c`'s name on mesh axis `axis`.
plan::Decision shardingConflict(const ProblemView& view, std::size_t c, int axis) {
    const auto& space = view.space();
    return {plan::Decision::Target::Group, space.name(space.conflicts[c].name).group.index, axis};
}

bool close(double a, double b, double scale) {
    return std::abs(a - b) <= 1e-9 * std::max(1e-30, std::abs(scale));
}

bool openAndSettle(MainWindow& window) {
    ProblemSpec shown = window.spec();
    shown.mesh = kMesh;
    window.setSpec(shown);
    window.openModel(QString::fromLatin1(kModel));
    return QTest::qWaitFor([&] { return window.isSettled(); }, kTimeoutMs);
}

}  // namespace

class TestUiConflicts : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("Shardscope"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_ui_conflicts"));
    }

    // At the dock's default width the conflicts' names get most of the row, the numbers as much as they
    // need, and every column is in sight; long texts are cut at their end.
    void columnsFitTheDefaultDock() {
        MainWindow window;
        window.show();
        QVERIFY(window.showDock(QStringLiteral("conflicts")));
        QVERIFY(openAndSettle(window));
        auto* view = window.findChild<QTreeView*>(QStringLiteral("conflictsView"));
        QVERIFY(view);
        QVERIFY(view->isVisible());
        const QHeaderView* header = view->header();
        const int viewport = view->viewport()->width();
        QVERIFY2(header->sectionSize(ConflictModel::LabelColumn) >= viewport / 2,
                 qPrintable(QStringLiteral("label column %1 of %2 px")
                                .arg(header->sectionSize(ConflictModel::LabelColumn))
                                .arg(viewport)));
        int total = 0;
        for (int column = 0; column < ConflictModel::ColumnCount; ++column) {
            QVERIFY(!header->isSectionHidden(column));
            total += header->sectionSize(column);
        }
        QVERIFY2(total <= viewport,
                 qPrintable(QStringLiteral("%1 px of columns in %2").arg(total).arg(viewport)));
        QCOMPARE(view->textElideMode(), Qt::ElideRight);
        // Made as narrow as it goes, the dock keeps the labels readable beside the numbers.
        auto* panel = window.findChild<ConflictPanel*>();
        auto* dock = window.findChild<QDockWidget*>(QStringLiteral("conflictsDock"));
        QVERIFY(panel && dock);
        window.resizeDocks({dock}, {100}, Qt::Horizontal);
        QTRY_VERIFY(view->viewport()->width() < viewport);
        QVERIFY2(header->sectionSize(ConflictModel::LabelColumn) >= panel->minimumLabelWidth(),
                 qPrintable(QStringLiteral("label column %1 px, %2 wanted")
                                .arg(header->sectionSize(ConflictModel::LabelColumn))
                                .arg(panel->minimumLabelWidth())));
        total = 0;
        for (int column = 0; column < ConflictModel::ColumnCount; ++column)
            total += header->sectionSize(column);
        QVERIFY(total <= view->viewport()->width());
        // The options were priced while the dock was shown (the window waited for them): every Δ is
        // readable whole in its column.
        const auto* model = qobject_cast<const ConflictModel*>(view->model());
        QVERIFY(model);
        const QFontMetrics metrics(view->font());
        const auto& conflicts = window.currentModel()->space().conflicts;
        QVERIFY(conflicts.size() >= 2);
        for (std::size_t c = 0; c < conflicts.size(); ++c)
            for (std::size_t o = 0; o < conflicts[c].options.size(); ++o)
                for (const int column :
                     {int(ConflictModel::StepTimeColumn), int(ConflictModel::MemoryColumn)}) {
                    const QModelIndex index = model->optionIndex(c, o, column);
                    QVERIFY(index.data(ConflictModel::DeltaTimeRole).isValid());
                    QVERIFY(metrics.horizontalAdvance(index.data().toString()) < header->sectionSize(column));
                }
    }

    // Selecting a conflict explains its kind under the list, with a picture of the site's tensor.
    void selectingAConflictExplainsIt() {
        MainWindow window;
        window.show();
        QVERIFY(window.showDock(QStringLiteral("conflicts")));
        QVERIFY(openAndSettle(window));
        const auto problem = window.currentModel();
        const std::size_t c = repeatedConflict(*problem);
        PlanEditor* editor = window.planEditor();
        editor->pin(shardingConflict(*problem, c, 1));
        QVERIFY(QTest::qWaitFor([&] { return window.isSettled(); }, kTimeoutMs));

        auto* panel = window.findChild<ConflictPanel*>();
        QVERIFY(panel);
        auto* explanation = panel->findChild<QTextBrowser*>(QStringLiteral("conflictExplanation"));
        auto* diagram = panel->findChild<ConflictDiagram*>(QStringLiteral("conflictDiagram"));
        QVERIFY(explanation && diagram);
        QVERIFY(!diagram->picture());
        panel->view()->setCurrentIndex(panel->model()->optionIndex(c, 1));
        const QString label =
            QString::fromStdString(problem->space().name(problem->space().conflicts[c].name).label);
        QVERIFY(explanation->toPlainText().contains(QStringLiteral("Repeated name")));
        QVERIFY(explanation->toPlainText().contains(label));
        QVERIFY(explanation->toPlainText().contains(QStringLiteral("is sharded on model")));
        QVERIFY(diagram->picture().has_value());
        QCOMPARE(diagram->picture()->dimensions.size(), std::size_t{2});
        QCOMPARE(diagram->picture()->axis, QStringLiteral("model"));
        QVERIFY(diagram->height() > 0);

        // A cut name says what a cut is.
        const auto& conflicts = problem->space().conflicts;
        const auto cut = std::find_if(conflicts.begin(), conflicts.end(), [](const analysis::Conflict& k) {
            return k.kind == analysis::ConflictKind::CutName;
        });
        QVERIFY(cut != conflicts.end());
        const auto cutIndex = static_cast<std::size_t>(cut - conflicts.begin());
        panel->view()->setCurrentIndex(panel->model()->conflictIndex(cutIndex));
        QVERIFY(explanation->toPlainText().contains(QStringLiteral("Cut name")));
        QVERIFY(explanation->toPlainText().contains(QStringLiteral("has no mesh axis yet")));
        QCOMPARE(diagram->picture()->kind, analysis::ConflictKind::CutName);

        // The documentation's picture: the repeated name with its options priced, after a choice.
        const QString shot = qEnvironmentVariable("SHARDSCOPE_CONFLICTS_SHOT");
        if (!shot.isEmpty()) {
            panel->choose(conflictChoice(problem->space(), c, 1));
            QVERIFY(QTest::qWaitFor([&] { return window.isSettled(); }, kTimeoutMs));
            panel->view()->setCurrentIndex(panel->model()->optionIndex(c, 0));
            // The Conflicts dock, tall, beside the Plan dock listing the choice.
            auto* conflictsDock = window.findChild<QDockWidget*>(QStringLiteral("conflictsDock"));
            auto* planDock = window.findChild<QDockWidget*>(QStringLiteral("planDock"));
            QVERIFY(conflictsDock && planDock);
            window.resize(1440, 1200);
            window.resizeDocks({conflictsDock}, {900}, Qt::Vertical);
            window.resizeDocks({conflictsDock}, {480}, Qt::Horizontal);
            QTest::qWait(100);  // the layout, then the picture
            const QPixmap left = conflictsDock->grab();
            const QPixmap right = planDock->grab(QRect(0, 0, planDock->width(), 120));
            QImage image(left.width() + right.width() + 8, left.height(), QImage::Format_RGB32);
            image.fill(window.palette().color(QPalette::Window));
            QPainter painter(&image);
            painter.drawPixmap(0, 0, left);
            painter.drawPixmap(left.width() + 8, 0, right);
            painter.end();
            QVERIFY(image.save(shot));
        }
    }

    // Each option's Δ step time and Δ peak memory are those of the engine's evaluation of the plan with the
    // option chosen; "…" until the background evaluation delivers them, and again once the plan changes.
    void deltasAreTheEnginesEvaluation() {
        const auto view = llama();
        const std::size_t seq = repeatedConflict(*view);
        ConflictModel model;
        model.setProblem(view);
        plan::Plan plan;
        plan.decisions.push_back(shardingConflict(*view, seq, 1));
        const auto state = stateOf(*view, plan);
        model.setPlanState(state);
        QVERIFY(model.isEvaluating());
        QCOMPARE(model.optionIndex(seq, 1, ConflictModel::StepTimeColumn).data().toString(),
                 QStringLiteral("…"));
        QVERIFY(!model.optionIndex(seq, 1, ConflictModel::StepTimeColumn)
                     .data(ConflictModel::DeltaTimeRole)
                     .isValid());
        QVERIFY(QTest::qWaitFor([&] { return !model.isEvaluating(); }, kTimeoutMs));

        const auto& space = view->space();
        const cost::Evaluation& base = state->evaluation;
        int changes = 0;
        for (std::size_t c = 0; c < space.conflicts.size(); ++c) {
            for (std::size_t o = 0; o < space.conflicts[c].options.size(); ++o) {
                const QModelIndex time = model.optionIndex(c, o, ConflictModel::StepTimeColumn);
                const QModelIndex memory = model.optionIndex(c, o, ConflictModel::MemoryColumn);
                const auto choice = model.choiceAt(time);
                QVERIFY(choice.has_value());
                const cost::Evaluation direct =
                    cost::evaluate(*view->problem->costModel, withChoice(plan, *choice, view->mesh()));
                const double dt = time.data(ConflictModel::DeltaTimeRole).toDouble();
                const double dm = memory.data(ConflictModel::DeltaMemoryRole).toDouble();
                QVERIFY2(close(dt, direct.stepTime - base.stepTime, base.stepTime),
                         qPrintable(QStringLiteral("conflict %1 option %2: %3 against %4")
                                        .arg(c)
                                        .arg(o)
                                        .arg(dt)
                                        .arg(direct.stepTime - base.stepTime)));
                QVERIFY(close(dm, direct.peakMemory - base.peakMemory, base.peakMemory));
                QCOMPARE(time.data().toString(), deltaTimeText(dt));
                QCOMPARE(memory.data().toString(), deltaBytesText(dm));
                if (dt != 0 || dm != 0)
                    ++changes;
            }
            // The fastest option is marked, and the conflict's row shows its change.
            if (const auto best = model.bestOption(c)) {
                QVERIFY(model.optionIndex(c, *best).data(ConflictModel::BestOptionRole).toBool());
                for (std::size_t o = 0; o < space.conflicts[c].options.size(); ++o)
                    if (model.optionCost(c, o)->feasible)
                        QVERIFY(model.optionCost(c, *best)->stepTime <= model.optionCost(c, o)->stepTime);
                QCOMPARE(model.conflictIndex(c, ConflictModel::StepTimeColumn).data().toString(),
                         deltaTimeText(model.optionCost(c, *best)->deltaTime));
            }
        }
        // Sharding seq makes its options differ (the second dimension, leaving it whole).
        QVERIFY(changes > 0);
        QVERIFY(model.bestOption(seq).has_value());

        // An edit makes the costs stale until the new plan's state arrives; then they are evaluated again.
        model.planChanging();
        QVERIFY(model.isEvaluating());
        QCOMPARE(model.optionIndex(seq, 1, ConflictModel::StepTimeColumn).data().toString(),
                 QStringLiteral("…"));
        plan::Plan second = plan;
        second.decisions.push_back(
            {plan::Decision::Target::Group, space.name(space.conflicts[seq].name).group.index, 0});
        const auto secondState = stateOf(*view, second, 2);
        model.setPlanState(secondState);
        QVERIFY(QTest::qWaitFor([&] { return !model.isEvaluating(); }, kTimeoutMs));
        const auto choice = conflictChoice(space, seq, 1);
        const cost::Evaluation direct =
            cost::evaluate(*view->problem->costModel, withChoice(second, choice, view->mesh()));
        QVERIFY(close(model.optionCost(seq, 1)->deltaTime, direct.stepTime - secondState->evaluation.stepTime,
                      secondState->evaluation.stepTime));
    }

    // A choice is a row of the Plan dock, removable there.
    void planDockListsTheChoice() {
        MainWindow window;
        window.show();
        QVERIFY(openAndSettle(window));
        const auto problem = window.currentModel();
        const std::size_t seq = repeatedConflict(*problem);
        auto* panel = window.findChild<ConflictPanel*>();
        QVERIFY(panel);
        panel->choose(conflictChoice(problem->space(), seq, 1));
        QVERIFY(QTest::qWaitFor([&] { return window.isSettled(); }, kTimeoutMs));
        PlanEditor* editor = window.planEditor();
        QCOMPARE(editor->plan().resolutions.size(), std::size_t{1});

        auto* decisions = window.findChild<QTableView*>(QStringLiteral("decisionsView"));
        QVERIFY(decisions);
        auto findChoice = [&]() -> QModelIndex {
            const QAbstractItemModel* model = decisions->model();
            for (int r = 0; r < model->rowCount(); ++r)
                if (model->index(r, 0).data(DecisionModel::ResolutionRole).toBool())
                    return model->index(r, 0);
            return {};
        };
        const QModelIndex row = findChoice();
        QVERIFY(row.isValid());
        const QString label =
            QString::fromStdString(problem->space().name(problem->space().conflicts[seq].name).label);
        QCOMPARE(row.siblingAtColumn(DecisionModel::TargetColumn).data().toString(), label);
        QCOMPARE(row.siblingAtColumn(DecisionModel::AxisColumn).data().toString(),
                 QStringLiteral("dimension 2"));
        QCOMPARE(row.siblingAtColumn(DecisionModel::StatusColumn).data().toString(),
                 QStringLiteral("conflict choice"));

        // Delete removes it, as it removes a decision.
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        decisions->setFocus();
        decisions->setCurrentIndex(row);
        QTest::keyClick(decisions, Qt::Key_Delete);
        QVERIFY(editor->plan().resolutions.empty());
        QVERIFY(QTest::qWaitFor([&] { return window.isSettled() && !findChoice().isValid(); }, kTimeoutMs));
    }

    // Whether a choice waits for an axis: a resolution asks the plan it makes, leaving unsharded the plan it
    // leaves (which it unshards).
    void choiceWaitsForAxisAsksTheRightPlan() {
        const auto view = llama();
        const std::size_t seq = repeatedConflict(*view);
        plan::Plan sharded;
        sharded.decisions.push_back(shardingConflict(*view, seq, 1));
        sharded.pinned = 1;
        const plan::Plan none;
        const ConflictChoice resolve = conflictChoice(view->space(), seq, 1);
        QCOMPARE(resolve.kind, ConflictChoice::Kind::Resolve);
        const std::size_t options = view->space().conflicts[seq].options.size();
        const ConflictChoice leave = conflictChoice(view->space(), seq, options - 1);
        QCOMPARE(leave.kind, ConflictChoice::Kind::LeaveUnsharded);

        QVERIFY(choiceWaitsForAxis(*view, resolve, none, withChoice(none, resolve, view->mesh())));
        QVERIFY(!choiceWaitsForAxis(*view, resolve, sharded, withChoice(sharded, resolve, view->mesh())));
        QVERIFY(!choiceWaitsForAxis(*view, resolve, none, sharded));
        QVERIFY(choiceWaitsForAxis(*view, leave, none, withChoice(none, leave, view->mesh())));
        const plan::Plan left = withChoice(sharded, leave, view->mesh());
        QVERIFY(axesDeciding(*view, left, leave.name).isEmpty());
        QVERIFY(!choiceWaitsForAxis(*view, leave, sharded, left));
    }

    // A choice for a name the plan does not shard changes the plan but not the step: it says so, and why.
    void effectOfAChoiceWithoutAnAxis() {
        MainWindow window;
        window.show();
        QVERIFY(openAndSettle(window));
        QVERIFY(window.openPlan(QStringLiteral("none")));
        QVERIFY(QTest::qWaitFor([&] { return window.isSettled(); }, kTimeoutMs));
        const auto problem = window.currentModel();
        const std::size_t seq = repeatedConflict(*problem);
        auto* panel = window.findChild<ConflictPanel*>();
        QVERIFY(panel);
        QVERIFY(panel->effectText().isEmpty());
        panel->choose(conflictChoice(problem->space(), seq, 1));
        const QString label =
            QString::fromStdString(problem->space().name(problem->space().conflicts[seq].name).label);
        QVERIFY2(
            panel->effectText().contains(QStringLiteral("%1 has no mesh axis in this plan yet").arg(label)),
            qPrintable(panel->effectText()));
        QVERIFY(panel->effectText().contains(QStringLiteral("takes effect once %1 is sharded").arg(label)));
        QCOMPARE(window.planEditor()->plan().resolutions.size(), std::size_t{1});
        // Choosing it again changes nothing, and says so.
        QVERIFY(QTest::qWaitFor([&] { return window.isSettled(); }, kTimeoutMs));
        panel->choose(conflictChoice(problem->space(), seq, 1));
        QVERIFY2(panel->effectText().contains(QStringLiteral("already")), qPrintable(panel->effectText()));
    }

    // A choice for a sharded name says how the step time and memory changed once the plan is evaluated.
    void effectOfAChoiceWithAnAxis() {
        MainWindow window;
        window.show();
        QVERIFY(openAndSettle(window));
        const auto problem = window.currentModel();
        const std::size_t seq = repeatedConflict(*problem);
        PlanEditor* editor = window.planEditor();
        editor->pin(shardingConflict(*problem, seq, 1));
        QVERIFY(QTest::qWaitFor([&] { return window.isSettled(); }, kTimeoutMs));
        const plan::Plan before = editor->plan();
        const cost::Evaluation beforeEvaluation = editor->state()->evaluation;
        auto* panel = window.findChild<ConflictPanel*>();
        QVERIFY(panel);
        const ConflictChoice choice = conflictChoice(problem->space(), seq, 1);
        panel->choose(choice);
        QVERIFY2(panel->effectText().contains(QStringLiteral("evaluating")), qPrintable(panel->effectText()));
        QVERIFY(QTest::qWaitFor([&] { return window.isSettled(); }, kTimeoutMs));
        const plan::Plan after = withChoice(before, choice, problem->mesh());
        QCOMPARE(editor->plan(), after);
        const cost::Evaluation direct = cost::evaluate(*problem->problem->costModel, after);
        QVERIFY(direct.stepTime != beforeEvaluation.stepTime ||
                direct.peakMemory != beforeEvaluation.peakMemory);
        const QString effect = panel->effectText();
        QVERIFY2(effect.contains(QStringLiteral("step time")), qPrintable(effect));
        QVERIFY2(effect.contains(deltaTimeText(direct.stepTime - beforeEvaluation.stepTime)),
                 qPrintable(effect));
        QVERIFY2(effect.contains(deltaBytesText(direct.peakMemory - beforeEvaluation.peakMemory)),
                 qPrintable(effect));
        // The message log keeps it.
        bool logged = false;
        const auto* log = window.messageLog();
        for (int r = 0; r < log->rowCount(); ++r)
            for (int column = 0; column < log->columnCount(); ++column)
                logged = logged || log->index(r, column).data().toString() == effect;
        QVERIFY(logged);
    }
};

QTEST_MAIN(TestUiConflicts)
#include "tst_ui_conflicts.moc"
