// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The names, conflicts and decisions panels' models, and the problem editor.
#include <algorithm>
#include <memory>
#include <numeric>

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>

#include "core/conflict_model.h"
#include "core/decision_model.h"
#include "core/name_model.h"
#include "core/name_style.h"
#include "core/plan_editor.h"
#include "core/remat_choices.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/plan/experts.h"
#include "test_paths.h"
#include "widgets/problem_editor.h"
#include "widgets/remat_panel.h"
#include "widgets/summary_panel.h"

#include "ui_test_support.h"

using namespace shardscope;
using namespace shardscope::ui;
using fixtures::stateOf;

namespace {

ProblemSpec specOf(const std::string& model, const std::string& meshSpec,
                   const std::string& hardware = "h100", bool train = false) {
    ProblemSpec spec;
    spec.model = model;
    spec.mesh = meshSpec;
    spec.hardware = hardware;
    spec.train = train;
    return spec;
}

std::shared_ptr<const ProblemView> demo() {
    static const auto view = fixtures::loadView(specOf("zoo:demo", "data=2,model=4"));
    return view;
}

plan::Plan expert(const ProblemView& view, const char* id) {
    auto plan = plan::expertPlan(id, view.problem->costModel->planContext(), view.mesh());
    if (!plan)
        qFatal("expert plan %s: %s", id, plan.errorMessage().c_str());
    return plan.value();
}

analysis::GroupId groupLabelled(const analysis::DecisionSpace& space, const std::string& label) {
    const auto group = space.groupLabelled(label);
    if (!group)
        qFatal("no group %s", label.c_str());
    return *group;
}

// A plan for any model: the two largest groups, on the first and on the last mesh axis.
plan::Plan byBytes(const ProblemView& view) {
    const auto& groups = view.space().groups;
    std::vector<std::uint32_t> order(groups.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return groups[a].bytes > groups[b].bytes; });
    plan::Plan plan;
    plan.label = "by bytes";
    const int last = static_cast<int>(view.mesh().axes.size()) - 1;
    for (std::size_t i = 0; i < std::min<std::size_t>(2, order.size()); ++i)
        plan.decisions.push_back({plan::Decision::Target::Group, order[i], i == 0 ? 0 : last});
    return plan;
}

// The axes of the decisions reaching `group`, as the sharding column writes them.
QString axesDeciding(const ProblemView& view, const plan::Plan& plan, analysis::GroupId group) {
    QStringList axes;
    for (const auto& decision : plan.decisions)
        if (decision.target == plan::Decision::Target::Group && decision.index == group.index)
            axes << QString::fromStdString(view.mesh().axes[static_cast<std::size_t>(decision.axis)].name);
    return axes.join(QStringLiteral(", "));
}

// The models under QAbstractItemModelTester through the sequence a session goes through: a problem, plans,
// another problem, nothing.
void exerciseModels(const std::shared_ptr<const ProblemView>& first,
                    const std::shared_ptr<const ProblemView>& second) {
    NameModel names;
    ConflictModel conflicts;
    DecisionModel decisions;
    QSortFilterProxyModel sortedNames;
    sortedNames.setSortRole(SortRole);
    sortedNames.setSourceModel(&names);
    sortedNames.sort(NameModel::BytesColumn, Qt::AscendingOrder);
    const auto mode = QAbstractItemModelTester::FailureReportingMode::QtTest;
    QAbstractItemModelTester testers[] = {
        QAbstractItemModelTester(&names, mode), QAbstractItemModelTester(&conflicts, mode),
        QAbstractItemModelTester(&decisions, mode), QAbstractItemModelTester(&sortedNames, mode)};
    Q_UNUSED(testers);
    for (const auto& view : {first, second}) {
        QElapsedTimer timer;
        timer.start();
        names.setProblem(view);
        conflicts.setProblem(view);
        decisions.setProblem(view);
        const qint64 set = timer.restart();
        std::uint64_t revision = 0;
        for (const char* id : {"dp", "megatron", "zero3"}) {
            auto plan = plan::expertPlan(id, view->problem->costModel->planContext(), view->mesh());
            if (!plan)
                plan =
                    byBytes(*view);  // a model without what the strategy needs (pt_bert has no batch input)
            plan->pinned = std::min<std::size_t>(1, plan->decisions.size());
            plan->forbidden.push_back({plan::Decision::Target::Group, 0, 0});
            const auto state = stateOf(*view, plan.value(), ++revision);
            timer.restart();
            names.setPlanState(state);
            conflicts.setPlanState(state);
            decisions.setPlanState(state);
            qInfo("%s: %s plan shown in %lld ms", qPrintable(view->displayName), id, timer.elapsed());
        }
        qInfo("%s: %d groups, %zu conflicts, set in %lld ms", qPrintable(view->displayName), names.rowCount(),
              view->space().conflicts.size(), set);
        int shown = 0;
        for (int kind = 0; kind < conflicts.rowCount(); ++kind)
            shown += conflicts.rowCount(conflicts.index(kind, 0));
        QCOMPARE(shown, static_cast<int>(view->space().conflicts.size()));
    }
    names.setPlanState(nullptr);
    names.setProblem(nullptr);
    conflicts.setProblem(nullptr);
    decisions.setProblem(nullptr);
    QCOMPARE(names.rowCount(), 0);
    QCOMPARE(conflicts.rowCount(), 0);
    QCOMPARE(decisions.rowCount(), 0);
}

QString shotsDir() {
    return qEnvironmentVariable("SHARDSCOPE_PANEL_SHOTS");
}

}  // namespace

class TestUiPanels : public QObject {
    Q_OBJECT

private slots:
    void modelsPassTheTesterOnZooModels() {
        exerciseModels(demo(),
                       fixtures::loadView(specOf("zoo:llama3-8b:layers=2", "data=4,model=2", "h100", true)));
    }

    void modelsPassTheTesterOnBert() {
        const QString path =
            shardscope::testing::sharedDir() + QStringLiteral("/models/stablehlo/pt_bert.mlir");
        if (!QFileInfo::exists(path))
            QSKIP("pt_bert.mlir not found (SHARDSCOPE_SHARED_DIR missing)");
        QElapsedTimer timer;
        timer.start();
        const auto bert = fixtures::loadView(specOf(path.toStdString(), "data=8,model=2"));
        qInfo("pt_bert loaded in %lld ms", timer.elapsed());
        exerciseModels(bert, demo());
    }

    void groupsAreSortedByBytesWithTheirNamesAsChildren() {
        NameModel model;
        model.setProblem(demo());
        const auto& space = demo()->space();
        QCOMPARE(model.rowCount(), static_cast<int>(space.groups.size()));
        double previous = std::numeric_limits<double>::infinity();
        for (int row = 0; row < model.rowCount(); ++row) {
            const QModelIndex bytes = model.index(row, NameModel::BytesColumn);
            const double value = bytes.data(SortRole).toDouble();
            QVERIFY2(value <= previous, "top-level rows by bytes, largest first");
            previous = value;
            const auto target = model.targetAt(bytes);
            QVERIFY(target && target->kind == plan::Decision::Target::Group);
            const analysis::Group& group = space.groups[target->index];
            QCOMPARE(value, group.bytes);
            const QModelIndex label = model.index(row, NameModel::LabelColumn);
            if (group.names.size() == 1) {
                QCOMPARE(model.rowCount(label), 0);
                QCOMPARE(label.data().toString(), QString::fromStdString(space.name(group.names[0]).label));
                QCOMPARE(label.data(NameModel::NameRole).toUInt(), group.names[0].index);
            } else {
                QCOMPARE(model.rowCount(label), static_cast<int>(group.names.size()));
                QCOMPARE(label.data().toString(), QString::fromStdString(group.label));
                QVERIFY(!label.data(NameModel::NameRole).isValid());
                for (int c = 0; c < model.rowCount(label); ++c) {
                    const QModelIndex child = model.index(c, NameModel::LabelColumn, label);
                    QCOMPARE(child.data(NameModel::TargetKindRole).toInt(),
                             int(plan::Decision::Target::Name));
                    QCOMPARE(child.data(NameModel::GroupRole).toUInt(), target->index);
                    const auto name = analysis::NameId{child.data(NameModel::NameRole).toUInt()};
                    QCOMPARE(model.indexOfName(name), child);
                }
            }
            QCOMPARE(label.data(Qt::DecorationRole).value<QColor>(), nameColor(space, group.names[0]));
        }
        // A proxy re-sorts by the numbers, not by the formatted text.
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(SortRole);
        proxy.sort(NameModel::BytesColumn, Qt::AscendingOrder);
        for (int row = 1; row < proxy.rowCount(); ++row)
            QVERIFY(proxy.index(row - 1, NameModel::BytesColumn).data(SortRole).toDouble() <=
                    proxy.index(row, NameModel::BytesColumn).data(SortRole).toDouble());
    }

    void megatronShardsTheHiddenNamesOnModel() {
        NameModel model;
        model.setProblem(demo());
        const auto& space = demo()->space();
        const QModelIndex dff =
            model.indexOfGroup(groupLabelled(space, "layers.*.mlp.d_ff"), NameModel::ShardingColumn);
        const QModelIndex batch =
            model.indexOfGroup(groupLabelled(space, "batch"), NameModel::ShardingColumn);
        QCOMPARE(dff.data().toString(), QString(QChar(0x2014)));

        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
        const plan::Plan megatron = expert(*demo(), "megatron");
        model.setPlanState(stateOf(*demo(), megatron));
        QCOMPARE(resets.count(), 0);
        QVERIFY(changes.count() > 0);
        // Megatron uses every axis of the mesh for the hidden dimension, major first: "data, model" here.
        const QString expected = axesDeciding(*demo(), megatron, groupLabelled(space, "layers.*.mlp.d_ff"));
        QVERIFY(expected.split(QStringLiteral(", ")).contains(QStringLiteral("model")));
        QCOMPARE(dff.data().toString(), expected);
        QVERIFY(model.rowCount(dff.siblingAtColumn(0)) > 1);
        for (int c = 0; c < model.rowCount(dff.siblingAtColumn(0)); ++c)
            QCOMPARE(model.index(c, NameModel::ShardingColumn, dff.siblingAtColumn(0)).data().toString(),
                     expected);
        QCOMPARE(batch.data().toString(), QString(QChar(0x2014)));

        // dp-tp: the batch on data, the hidden names on model; one name decided alone shows how many it
        // reached.
        plan::Plan plan = expert(*demo(), "dp-tp");
        const analysis::NameId layer0 = space.group(groupLabelled(space, "layers.*.attn.head_dim")).names[0];
        plan.decisions.push_back({plan::Decision::Target::Name, layer0.index, 0});
        model.setPlanState(stateOf(*demo(), plan, 2));
        QCOMPARE(batch.data().toString(), QStringLiteral("data"));
        QCOMPARE(dff.data().toString(), QStringLiteral("model"));
        const QModelIndex headDim =
            model.indexOfGroup(groupLabelled(space, "layers.*.attn.head_dim"), NameModel::ShardingColumn);
        QCOMPARE(headDim.data().toString(), QStringLiteral("data (1 of 2)"));
        QCOMPARE(model.indexOfName(layer0, NameModel::ShardingColumn).data().toString(),
                 QStringLiteral("data"));
    }

    void conflictSitesAndOptions() {
        const auto view = demo();
        const auto& space = view->space();
        const ir::Graph& graph = view->graph();
        ConflictModel model;
        model.setProblem(view);
        QVERIFY(model.rowCount() > 0);
        // Kind rows, then the conflicts of each kind.
        int conflicts = 0;
        for (int k = 0; k < model.rowCount(); ++k) {
            const QModelIndex kind = model.index(k, 0);
            QCOMPARE(model.rowKind(kind), ConflictModel::RowKind::Kind);
            QVERIFY(!model.conflictAt(kind).has_value());
            for (int r = 0; r < model.rowCount(kind); ++r) {
                const auto c = model.conflictAt(model.index(r, 0, kind));
                QVERIFY(c.has_value());
                QCOMPARE(model.conflictIndex(*c), model.index(r, 0, kind));
                ++conflicts;
            }
        }
        QCOMPARE(conflicts, static_cast<int>(space.conflicts.size()));
        int siteRows = 0;
        for (std::size_t c = 0; c < space.conflicts.size(); ++c) {
            const QModelIndex top = model.conflictIndex(c);
            QCOMPARE(model.rowKind(top), ConflictModel::RowKind::Conflict);
            const analysis::Conflict& conflict = space.conflicts[c];
            QCOMPARE(top.data().toString(), QString::fromStdString(space.name(conflict.name).label));
            QCOMPARE(model.conflictIndex(c, ConflictModel::SitesColumn).data(SortRole).toULongLong(),
                     conflict.sites.size());
            const int options = static_cast<int>(conflict.options.size());
            QCOMPARE(model.rowCount(top), options + 1);
            for (int r = 0; r < options; ++r) {
                const QModelIndex row = model.index(r, 0, top);
                QCOMPARE(model.rowKind(row), ConflictModel::RowKind::Option);
                QVERIFY(model.choiceAt(row).has_value());
                QVERIFY(!model.bodyIndexAt(row).has_value());
                // The analysis' words in full where the row has a few.
                QVERIFY(row.data(Qt::ToolTipRole)
                            .toString()
                            .contains(QString::fromStdString(conflict.options[static_cast<std::size_t>(r)])));
            }
            const QModelIndex list = model.index(options, 0, top);
            QCOMPARE(model.rowKind(list), ConflictModel::RowKind::SiteList);
            QCOMPARE(model.parent(list), top);
            QCOMPARE(model.rowCount(list), static_cast<int>(conflict.sites.size()));
            for (int r = 0; r < model.rowCount(list); ++r) {
                const QModelIndex row = model.index(r, 0, list);
                ++siteRows;
                QCOMPARE(model.rowKind(row), ConflictModel::RowKind::Site);
                QCOMPARE(model.parent(row), list);
                QVERIFY(!model.choiceAt(row).has_value());
                const auto& site = conflict.sites[static_cast<std::size_t>(r)];
                const auto it = std::find(graph.body.begin(), graph.body.end(), site.op);
                const int expected = it == graph.body.end() ? -1 : static_cast<int>(it - graph.body.begin());
                QCOMPARE(row.data(ConflictModel::BodyIndexRole).toInt(), expected);
                if (expected >= 0) {
                    QCOMPARE(*model.bodyIndexAt(row), static_cast<std::size_t>(expected));
                    QVERIFY(row.data().toString().startsWith(
                        QString::fromUtf8(ir::mnemonic(graph.op(site.op).kind).data())));
                }
                QVERIFY(row.data(Qt::ToolTipRole)
                            .toString()
                            .contains(QString::fromStdString(graph.type(site.value).toString())));
            }
        }
        QVERIFY(siteRows > 0);
    }

    void conflictChoicesChangeThePlan() {
        const auto view = demo();
        const auto& space = view->space();
        const auto found = std::find_if(space.conflicts.begin(), space.conflicts.end(), [](const auto& c) {
            return c.kind == analysis::ConflictKind::RepeatedName;
        });
        QVERIFY(found != space.conflicts.end());
        const int c = static_cast<int>(found - space.conflicts.begin());
        ConflictModel model;
        model.setProblem(view);
        const QModelIndex top = model.conflictIndex(static_cast<std::size_t>(c));
        const int options = static_cast<int>(found->options.size());
        const QModelIndex second = model.index(1, 0, top);
        const QModelIndex leave = model.index(options - 1, 0, top);
        auto stateAt = [&](const QModelIndex& index) {
            return static_cast<ConflictModel::OptionState>(
                index.data(ConflictModel::OptionStateRole).toInt());
        };
        // Without a plan nothing shards the name: "leave unsharded" is what happens.
        QCOMPARE(stateAt(leave), ConflictModel::OptionState::Default);

        const auto resolve = model.choiceAt(second);
        QVERIFY(resolve && resolve->kind == ConflictChoice::Kind::Resolve);
        QCOMPARE(resolve->dimension, 1);
        QCOMPARE(resolve->name, found->name);
        plan::Plan plan;
        plan.decisions.push_back({plan::Decision::Target::Group, space.name(found->name).group.index, 0});
        model.setPlanState(stateOf(*view, plan));
        QCOMPARE(stateAt(model.index(0, 0, top)), ConflictModel::OptionState::Default);

        plan = withChoice(plan, *resolve, view->mesh());
        QCOMPARE(plan.resolutions.size(), std::size_t(1));
        QCOMPARE(plan.resolutions[0].dimension, 1);
        model.setPlanState(stateOf(*view, plan, 2));
        QCOMPARE(stateAt(second), ConflictModel::OptionState::Chosen);
        QCOMPARE(stateAt(leave), ConflictModel::OptionState::NotChosen);
        QCOMPARE(model.index(1, ConflictModel::SitesColumn, top).data().toString(), QStringLiteral("chosen"));

        const auto unsharded = model.choiceAt(leave);
        QVERIFY(unsharded && unsharded->kind == ConflictChoice::Kind::LeaveUnsharded);
        plan.pinned = 1;
        plan = withChoice(plan, *unsharded, view->mesh());
        QVERIFY(plan.decisions.empty());
        QCOMPARE(plan.pinned, std::size_t(0));
        QCOMPARE(plan.forbidden.size(), view->mesh().axes.size());
        QVERIFY(plan.resolutions.empty());
        model.setPlanState(stateOf(*view, plan, 3));
        QCOMPARE(stateAt(leave), ConflictModel::OptionState::Chosen);
        QCOMPARE(stateAt(second), ConflictModel::OptionState::NotChosen);
    }

    // The plan dock's remat choices: a combo box per block family of a training step, set on the edited plan
    // as an undoable edit, following undo, redo and plans opened; a forward graph has none and says why.
    void rematPanelSetsAFamilysPolicy() {
        const auto view = fixtures::loadView(specOf("zoo:demo", "data=2,model=4", "h100", true));
        PlanEditor editor;
        RematPanel panel(&editor);
        editor.setProblem(view);
        QComboBox* combo = panel.findChild<QComboBox*>(QStringLiteral("remat:layers.*"));
        QVERIFY(combo);
        QCOMPARE(panel.comboOf(QStringLiteral("layers.*")), combo);
        QCOMPARE(combo->count(), 4);
        QCOMPARE(combo->currentText(), QStringLiteral("none"));
        QCOMPARE(rematFamilies(*view, editor.plan()).front().blocks,
                 static_cast<int>(std::count(view->blocks().familyOfBlock.begin(),
                                             view->blocks().familyOfBlock.end(), 0u)));
        // As the user chooses "full".
        combo->setCurrentIndex(2);
        emit combo->activated(2);
        QCOMPARE(editor.plan().remat, (std::vector<plan::RematDecision>{{"layers.*", plan::Remat::Full}}));
        QCOMPARE(editor.undoStack()->undoText(), QStringLiteral("Rematerialize layers.*: full"));
        editor.undoStack()->undo();
        QVERIFY(editor.plan().remat.empty());
        QCOMPARE(combo->currentIndex(), 0);
        editor.undoStack()->redo();
        QCOMPARE(combo->currentText(), QStringLiteral("full"));
        // Another policy replaces the family's decision; none removes it.
        editor.setRemat(QStringLiteral("layers.*"), 3);
        QCOMPARE(editor.plan().remat,
                 (std::vector<plan::RematDecision>{{"layers.*", plan::Remat::DotsSaveable}}));
        QCOMPARE(combo->currentText(), QStringLiteral("dots-saveable"));
        editor.setRemat(QStringLiteral("layers.*"), 0);
        QVERIFY(editor.plan().remat.empty());
        // An expert's remat variant shows in the panel, and the evaluation is of the plan with its remat.
        QCOMPARE(editor.openPlan(QStringLiteral("expert:fsdp+selective")), QString());
        QCOMPARE(combo->currentText(), QStringLiteral("selective"));
        QVERIFY(QTest::qWaitFor(
            [&] { return !editor.isEvaluating() && editor.state() && editor.state()->plan == editor.plan(); },
            60'000));
        QCOMPARE(editor.state()->plan.remat.size(), std::size_t{1});
        // A forward graph: no families, a note.
        editor.setProblem(demo());
        QVERIFY(!panel.findChild<QComboBox*>(QStringLiteral("remat:layers.*")));
        auto* note = panel.findChild<QLabel*>(QStringLiteral("rematNote"));
        QVERIFY(note && note->text().contains(QStringLiteral("training step")));
    }

    void decisionRowsShowPinsForbidsAndReach() {
        const auto view = demo();
        const auto& space = view->space();
        DecisionModel model;
        model.setProblem(view);
        QCOMPARE(model.rowCount(), 0);
        const analysis::GroupId batch = groupLabelled(space, "batch");
        // Batch on data (pinned), the same decision again, which finds the axis in use on every tensor and
        // reaches nothing, then megatron's decisions.
        plan::Plan plan;
        plan.decisions.push_back({plan::Decision::Target::Group, batch.index, 0});
        plan.decisions.push_back({plan::Decision::Target::Group, batch.index, 0});
        const plan::Plan megatron = expert(*view, "megatron");
        plan.decisions.insert(plan.decisions.end(), megatron.decisions.begin(), megatron.decisions.end());
        const std::size_t decided = plan.decisions.size();
        plan.pinned = 1;
        plan.forbidden.push_back({plan::Decision::Target::Group, batch.index, 1});
        model.setPlanState(stateOf(*view, plan));

        auto cell = [&](int row, int column) { return model.index(row, column).data().toString(); };
        QCOMPARE(model.rowCount(), static_cast<int>(decided + 1));
        QCOMPARE(cell(0, DecisionModel::StatusColumn), QStringLiteral("pinned"));
        QVERIFY(model.index(0, 0).data(DecisionModel::PinnedRole).toBool());
        QCOMPARE(cell(1, DecisionModel::StatusColumn), QString());
        QVERIFY(!model.index(1, 0).data(DecisionModel::PinnedRole).toBool());
        QCOMPARE(cell(0, DecisionModel::PriorityColumn), QStringLiteral("1"));
        QCOMPARE(
            cell(2, DecisionModel::TargetColumn),
            QString::fromStdString(view->problem->costModel->planContext().targetLabel(plan.decisions[2])));
        QCOMPARE(cell(0, DecisionModel::TargetColumn), QStringLiteral("batch"));
        QCOMPARE(cell(0, DecisionModel::AxisColumn), QStringLiteral("data"));
        QCOMPARE(cell(0, DecisionModel::ClassesColumn), QStringLiteral("all"));

        QStringList reached = cell(0, DecisionModel::ReachedColumn).split(QStringLiteral(" / "));
        QCOMPARE(reached.size(), 2);
        QCOMPARE(reached[0], reached[1]);
        QVERIFY(reached[1].remove(QLocale().groupSeparator()).toInt() > 0);
        QCOMPARE(cell(1, DecisionModel::ReachedColumn), QStringLiteral("0 / ") + reached[1]);
        QCOMPARE(model.index(1, 0).data(DecisionModel::DecisionIndexRole).toULongLong(), 1ull);
        QVERIFY(model.index(1, DecisionModel::ReachedColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("the axis is already used on that tensor: ") + reached[1]));

        const int forbidden = static_cast<int>(decided);
        QCOMPARE(cell(forbidden, DecisionModel::StatusColumn), QStringLiteral("forbidden"));
        QCOMPARE(cell(forbidden, DecisionModel::AxisColumn), QStringLiteral("model"));
        QVERIFY(model.index(forbidden, 0).data(DecisionModel::ForbiddenRole).toBool());
        QVERIFY(!model.index(0, 0).data(DecisionModel::ForbiddenRole).toBool());
        const auto row = model.decisionAt(model.index(forbidden, 0));
        QVERIFY(row && row->forbidden && row->index == 0);
        QCOMPARE(model.decision(*row), plan.forbidden[0]);

        // ZeRO-2's kind of restriction: the decision reaches only gradients and optimizer states.
        plan::Plan restricted;
        restricted.decisions.push_back(
            {plan::Decision::Target::Group, batch.index, 0,
             static_cast<plan::TensorClassMask>(plan::maskOf(plan::TensorClass::Gradient) |
                                                plan::maskOf(plan::TensorClass::OptimizerState))});
        model.setPlanState(stateOf(*view, restricted, 2));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(cell(0, DecisionModel::ClassesColumn), QStringLiteral("gradient, optimizer_state"));
        // The forward graph has neither: nothing to reach.
        QCOMPARE(cell(0, DecisionModel::ReachedColumn), QStringLiteral("0 / 0"));
    }

    void editorRoundTripsASpec() {
        ProblemEditor editor;
        ProblemSpec spec = specOf("zoo:demo", "data=2,model=4", "a100", true);
        spec.dimensions = {{"batch", 3}};
        spec.optimizer = "adamw";
        spec.loss = "sum";
        spec.lossOutput = "aux";
        spec.mixedPrecision = true;
        spec.cost = {.efficiency = 0.55, .launchTime = 7e-6, .prefetch = 2, .memoryReserve = 0.15};
        editor.setSpec(spec);
        QVERIFY2(editor.isValid(), qPrintable(editor.errorText()));
        const ProblemSpec back = editor.spec();
        QCOMPARE(back.lossOutput, spec.lossOutput);
        QCOMPARE(back.model, spec.model);
        QCOMPARE(back.dimensions, spec.dimensions);
        QCOMPARE(back.train, spec.train);
        QCOMPARE(back.optimizer, spec.optimizer);
        QCOMPARE(back.loss, spec.loss);
        QCOMPARE(back.mixedPrecision, spec.mixedPrecision);
        QCOMPARE(back.mesh, spec.mesh);
        QCOMPARE(back.hardware, spec.hardware);
        QVERIFY(back.cost == spec.cost);
        auto* table = editor.findChild<QTableWidget*>(QStringLiteral("meshTable"));
        QVERIFY(table);
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(editor.findChild<QLabel*>(QStringLiteral("deviceCount"))->text(),
                 QStringLiteral("8 devices"));

        // Link overrides come back in the engine's units and lay out the same mesh.
        spec.mesh = "data=2:bw=1e+11:lat=5e-06,model=4:bw=3.5e+11";
        editor.setSpec(spec);
        QVERIFY2(editor.isValid(), qPrintable(editor.errorText()));
        QCOMPARE(table->item(0, ProblemEditor::BandwidthColumn)->text(), QStringLiteral("100"));
        QCOMPARE(table->item(0, ProblemEditor::LatencyColumn)->text(), QStringLiteral("5"));
        const auto hardware = mesh::loadHardware("a100");
        QVERIFY(hardware.ok());
        const auto expected = mesh::makeMesh(spec.mesh, *hardware);
        const auto edited = mesh::makeMesh(editor.spec().mesh, *hardware);
        QVERIFY(expected.ok() && edited.ok());
        QVERIFY(*edited == *expected);
        QVERIFY(table->item(0, ProblemEditor::LinkColumn)->text().contains(QStringLiteral("100 GB/s")));
    }

    // The global sizes are a line of text: shown from the spec, parsed back, and a bad one keeps Apply off.
    void editorEditsGlobalSizes() {
        ProblemEditor editor;
        ProblemSpec spec = specOf("zoo:demo", "data=2");
        spec.sizes = {{"batch", 64}, {"seq", 512}};
        editor.setSpec(spec);
        auto* sizes = editor.findChild<QLineEdit*>(QStringLiteral("sizesEdit"));
        QVERIFY(sizes);
        QCOMPARE(sizes->text(), QStringLiteral("batch=64,seq=512"));
        QCOMPARE(editor.spec().sizes, spec.sizes);
        sizes->clear();
        QTest::keyClicks(sizes, QStringLiteral("sequence=128, batch=2"));
        QVERIFY2(editor.isValid(), qPrintable(editor.errorText()));
        QCOMPARE(editor.spec().sizes, (std::map<std::string, std::int64_t>{{"batch", 2}, {"seq", 128}}));
        sizes->clear();
        QTest::keyClicks(sizes, QStringLiteral("width=3"));
        QVERIFY(!editor.isValid());
        QVERIFY2(editor.errorText().contains(QStringLiteral("unknown size 'width'")),
                 qPrintable(editor.errorText()));
        QVERIFY(!editor.findChild<QPushButton*>(QStringLiteral("applyButton"))->isEnabled());
        sizes->clear();
        QTest::keyClicks(sizes, QStringLiteral(" "));
        QVERIFY(editor.isValid());
        QVERIFY(editor.spec().sizes.empty());
    }

    void editorRejectsAnInvalidMeshWithTheEngineMessage() {
        ProblemEditor editor;
        editor.setSpec(specOf("zoo:demo", "data=2,model=4"));
        auto* table = editor.findChild<QTableWidget*>(QStringLiteral("meshTable"));
        auto* apply = editor.findChild<QPushButton*>(QStringLiteral("applyButton"));
        auto* error = editor.findChild<QLabel*>(QStringLiteral("errorLabel"));
        QVERIFY(table && apply && error);
        QVERIFY(apply->isEnabled());
        QSignalSpy applied(&editor, &ProblemEditor::applied);

        auto engineMessage = [](const char* meshSpec) {
            const auto hardware = mesh::loadHardware("h100");
            const auto mesh = mesh::makeMesh(meshSpec, *hardware);
            return mesh.ok() ? QString() : QString::fromStdString(mesh.diagnostics().front().message);
        };
        table->item(0, ProblemEditor::AxisSizeColumn)->setText(QStringLiteral("0"));
        QVERIFY(!apply->isEnabled());
        QVERIFY(!engineMessage("data=0,model=4").isEmpty());
        QVERIFY2(error->text().contains(engineMessage("data=0,model=4")), qPrintable(error->text()));
        QVERIFY(!error->isHidden());
        apply->click();
        QCOMPARE(applied.count(), 0);

        table->item(0, ProblemEditor::AxisSizeColumn)->setText(QStringLiteral("2"));
        table->item(1, ProblemEditor::AxisNameColumn)->setText(QStringLiteral("data"));
        QVERIFY(!apply->isEnabled());
        QVERIFY2(error->text().contains(engineMessage("data=2,data=4")), qPrintable(error->text()));

        table->item(1, ProblemEditor::AxisNameColumn)->setText(QStringLiteral("model"));
        table->item(1, ProblemEditor::LatencyColumn)->setText(QStringLiteral("fast"));
        QVERIFY(!apply->isEnabled());
        QVERIFY(error->text().contains(QStringLiteral("fast")));
        table->item(1, ProblemEditor::LatencyColumn)->setText(QString());
        table->item(1, ProblemEditor::AxisSizeColumn)->setText(QStringLiteral("8"));
        QVERIFY2(apply->isEnabled(), qPrintable(error->text()));
        QVERIFY(error->isHidden());

        editor.findChild<QPushButton*>(QStringLiteral("addAxisButton"))->click();
        QCOMPARE(table->rowCount(), 3);
        QVERIFY(apply->isEnabled());
        table->selectRow(2);
        editor.findChild<QPushButton*>(QStringLiteral("removeAxisButton"))->click();
        QCOMPARE(table->rowCount(), 2);

        auto* hardwareCombo = editor.findChild<QComboBox*>(QStringLiteral("hardwareCombo"));
        hardwareCombo->setCurrentIndex(hardwareCombo->findData(QStringLiteral("tpu-v4")));
        apply->click();
        QCOMPARE(applied.count(), 1);
        const auto spec = applied.front().front().value<ProblemSpec>();
        QCOMPARE(spec.mesh, std::string("data=2,model=8"));
        QCOMPARE(spec.hardware, std::string("tpu-v4"));
        QCOMPARE(spec.model, std::string("zoo:demo"));
        QCOMPARE(editor.findChild<QLabel*>(QStringLiteral("deviceCount"))->text(),
                 QStringLiteral("16 devices"));
    }

    void editorReadsAWorkspaceSpec() {
        // A workspace session's spec has the hardware and the mesh written out as JSON (problemSpecJson).
        const auto hardware = mesh::loadHardware("tpu-v5p");
        QVERIFY(hardware.ok());
        auto laidOut = mesh::makeMesh("data=4,model=8", *hardware);
        QVERIFY(laidOut.ok());
        laidOut->axes[0].link.bandwidth = 2e10;
        ProblemSpec spec = specOf("zoo:demo", mesh::toJson(*laidOut), mesh::toJson(*hardware));
        ProblemEditor editor;
        editor.setSpec(spec);
        QVERIFY2(editor.isValid(), qPrintable(editor.errorText()));
        const ProblemSpec back = editor.spec();
        QCOMPARE(back.hardware, spec.hardware);
        // Only the link that differs from the hardware's layout is an override.
        QCOMPARE(back.mesh, std::string("data=4:bw=20000000000,model=8"));
        const auto again = mesh::makeMesh(back.mesh, *hardware);
        QVERIFY(again.ok() && *again == *laidOut);
        QVERIFY(editor.findChild<QComboBox*>(QStringLiteral("hardwareCombo"))
                    ->currentText()
                    .contains(QString::fromStdString(hardware->displayName)));

        spec.mesh = "/nonexistent/mesh.json";
        editor.setSpec(spec);
        QVERIFY(!editor.isValid());
        QVERIFY2(editor.errorText().contains(QStringLiteral("/nonexistent/mesh.json")),
                 qPrintable(editor.errorText()));
        spec.mesh = "{\"axes\": 3}";
        editor.setSpec(spec);
        QVERIFY(!editor.isValid());
        QVERIFY2(editor.errorText().contains(QStringLiteral("axes")), qPrintable(editor.errorText()));
        editor.findChild<QPushButton*>(QStringLiteral("addAxisButton"))->click();
        QVERIFY2(editor.isValid(), qPrintable(editor.errorText()));
    }

    // The loss output: empty (the first output) by default, "all" from the list, or a name typed in.
    void editorEditsTheLossOutput() {
        ProblemEditor editor;
        editor.setSpec(specOf("zoo:demo", "data=2", "h100", true));
        auto* combo = editor.findChild<QComboBox*>(QStringLiteral("lossOutputCombo"));
        QVERIFY(combo && combo->isEditable() && combo->isEnabled());
        QCOMPARE(editor.spec().lossOutput, std::string());
        combo->setCurrentIndex(combo->findText(QStringLiteral("all")));
        QCOMPARE(editor.spec().lossOutput, std::string("all"));
        combo->setEditText(QStringLiteral(" logits "));
        QCOMPARE(editor.spec().lossOutput, std::string("logits"));
        editor.findChild<QCheckBox*>(QStringLiteral("trainCheck"))->setChecked(false);
        QVERIFY(!combo->isEnabled());
    }

    // The Model panel lists every warning of the load (the importer's, the loss's), counted under a heading;
    // a model without warnings says so and hides the list.
    void summaryPanelListsTheLoadWarnings() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("two_heads.mlir"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(
            R"(func.func @main(%arg0: tensor<4x8xf32> {jax.arg_info = "x"}, %arg1: tensor<8x8xf32> {jax.arg_info = "w_logits"},
                %arg2: tensor<8x3xf32> {jax.arg_info = "w_aux"}) -> (tensor<4x8xf32> {jax.result_info = "logits"}, tensor<4x3xf32> {jax.result_info = "aux"}) {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x3xf32>
}
---
)");
        file.close();
        ProblemRequest request;
        request.spec = specOf(path.toStdString(), "data=2", "h100", true);
        const auto view = fixtures::loadThroughLoader(request);
        QVERIFY(view);
        QCOMPARE(view->warnings.size(), 2);

        SummaryPanel panel;
        panel.show();
        panel.showModel(*view);
        auto* list = panel.findChild<QListWidget*>(QStringLiteral("summaryWarnings"));
        auto* heading = panel.findChild<QLabel*>(QStringLiteral("summaryWarningsHeading"));
        QVERIFY(list && heading);
        QVERIFY(list->isVisible() && heading->isVisible());
        QCOMPARE(list->count(), 2);
        QVERIFY2(
            list->item(0)->text().startsWith(path + QStringLiteral(":7:1: ignored a line that is not MLIR")),
            qPrintable(list->item(0)->text()));
        QVERIFY2(list->item(1)->text().startsWith(
                     QStringLiteral("the loss uses output 'logits' only; 1 other output is not "
                                    "differentiated: 'aux'")),
                 qPrintable(list->item(1)->text()));
        QVERIFY2(heading->text().contains(QStringLiteral("2 warnings")), qPrintable(heading->text()));

        request.spec.lossOutput = "all";
        const auto all = fixtures::loadThroughLoader(request);
        QVERIFY(all);
        panel.showModel(*all);
        QCOMPARE(list->count(), 1);
        QVERIFY2(heading->text().contains(QStringLiteral("1 warning")), qPrintable(heading->text()));

        panel.showModel(*demo());
        QCOMPARE(list->count(), 0);
        QVERIFY(!list->isVisible());
        QVERIFY(heading->isVisible());
        QVERIFY2(heading->text().contains(QStringLiteral("No warnings")), qPrintable(heading->text()));
    }

    void editorShowsAHardwareFileError() {
        ProblemEditor editor;
        editor.setSpec(specOf("zoo:demo", "data=8", "/nonexistent/gpu.json"));
        QVERIFY(!editor.isValid());
        QVERIFY(!editor.findChild<QPushButton*>(QStringLiteral("applyButton"))->isEnabled());
        QCOMPARE(editor.spec().hardware, std::string("/nonexistent/gpu.json"));
    }

    // Pictures for a person to look at (set SHARDSCOPE_PANEL_SHOTS to a directory).
    void screenshots() {
        const QString dir = shotsDir();
        if (dir.isEmpty())
            QSKIP("SHARDSCOPE_PANEL_SHOTS not set");
        QDir().mkpath(dir);
        const auto view = demo();
        const auto state = stateOf(*view, expert(*view, "dp-tp"));
        ProblemEditor editor;
        editor.setSpec(view->problem->spec);
        editor.resize(420, 720);
        QVERIFY(editor.grab().save(dir + QStringLiteral("/editor.png")));
        ProblemSpec edited = view->problem->spec;
        edited.mesh = "data=4:bw=1e+11,model=4,data=2";
        edited.train = true;
        editor.setSpec(edited);
        QVERIFY(editor.grab().save(dir + QStringLiteral("/editor-invalid.png")));

        NameModel names;
        names.setProblem(view);
        names.setPlanState(state);
        ConflictModel conflicts;
        conflicts.setProblem(view);
        conflicts.setPlanState(state);
        DecisionModel decisions;
        decisions.setProblem(view);
        decisions.setPlanState(state);
        for (auto [model, file] : {std::pair<QAbstractItemModel*, const char*>{&names, "names.png"},
                                   {&conflicts, "conflicts.png"},
                                   {&decisions, "decisions.png"}}) {
            QTreeView tree;
            tree.setModel(model);
            tree.resize(760, 420);
            tree.expandToDepth(0);
            for (int c = 0; c < model->columnCount(); ++c)
                tree.resizeColumnToContents(c);
            QVERIFY(tree.grab().save(dir + QLatin1Char('/') + QLatin1String(file)));
        }
    }
};

QTEST_MAIN(TestUiPanels)
#include "tst_ui_panels.moc"
