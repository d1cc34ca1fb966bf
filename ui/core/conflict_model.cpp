// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/conflict_model.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <utility>

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QLocale>

#include "core/name_style.h"
#include "core/text.h"
#include "shardscope/report/model_report.h"

namespace shardscope::ui {

namespace {

// Internal ids: kind rows have 0; a conflict row 1 + its kind row; the options and the site list of
// conflict c have kChildBase + 2c, the sites of conflict c kChildBase + 2c + 1.
constexpr quintptr kKindRow = 0;
constexpr quintptr kChildBase = 3;  // two kinds of conflict: ids 1 and 2 are conflict rows

bool targetsName(const plan::Decision& decision, analysis::NameId name, analysis::GroupId group) {
    return decision.target == plan::Decision::Target::Group ? decision.index == group.index
                                                            : decision.index == name.index;
}

bool same(double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max({1e-30, std::abs(a), std::abs(b)});
}

// A count for the Sites column: the number to sort by, the localized text to show.
QVariant countData(std::size_t count, int role) {
    return role == SortRole ? QVariant(static_cast<qulonglong>(count))
                            : QVariant(QLocale().toString(static_cast<qulonglong>(count)));
}

QString signedText(double value, const QString& magnitude) {
    if (value == 0)
        return QStringLiteral("0");
    return (value > 0 ? QStringLiteral("+") : QStringLiteral("\u2212")) + magnitude;
}

QString ordinal(int dimension) {
    switch (dimension) {
        case 0:
            return QObject::tr("first");
        case 1:
            return QObject::tr("second");
        case 2:
            return QObject::tr("third");
        default:
            return QObject::tr("number %1").arg(dimension + 1);
    }
}

}  // namespace

plan::Plan withChoice(const plan::Plan& plan, const ConflictChoice& choice, const mesh::Mesh& mesh) {
    plan::Plan out = plan;
    auto concerns = [&](const plan::Decision& d) { return targetsName(d, choice.name, choice.group); };
    std::erase_if(out.resolutions, [&](const plan::Resolution& r) { return r.name == choice.name; });
    if (choice.kind != ConflictChoice::Kind::LeaveUnsharded) {
        std::erase_if(out.forbidden, concerns);
        if (choice.kind == ConflictChoice::Kind::Resolve)
            out.resolutions.push_back({choice.name, choice.dimension});
        return out;
    }
    std::vector<plan::Decision> kept;
    std::size_t pinned = 0;
    for (std::size_t i = 0; i < out.decisions.size(); ++i) {
        if (concerns(out.decisions[i]))
            continue;
        if (i < out.pinned)
            ++pinned;
        kept.push_back(out.decisions[i]);
    }
    out.decisions = std::move(kept);
    out.pinned = pinned;
    for (std::size_t axis = 0; axis < mesh.axes.size(); ++axis) {
        const plan::Decision forbid{plan::Decision::Target::Group, choice.group.index,
                                    static_cast<int>(axis)};
        const bool already =
            std::any_of(out.forbidden.begin(), out.forbidden.end(), [&](const plan::Decision& d) {
                return d.target == forbid.target && d.index == forbid.index && d.axis == forbid.axis;
            });
        if (!already)
            out.forbidden.push_back(forbid);
    }
    return out;
}

ConflictChoice conflictChoice(const analysis::DecisionSpace& space, std::size_t index, std::size_t option) {
    const analysis::Conflict& conflict = space.conflicts[index];
    ConflictChoice choice;
    choice.conflict = index;
    choice.name = conflict.name;
    choice.group = space.name(conflict.name).group;
    if (option + 1 == conflict.options.size())
        choice.kind = ConflictChoice::Kind::LeaveUnsharded;
    else if (conflict.kind == analysis::ConflictKind::RepeatedName) {
        choice.kind = ConflictChoice::Kind::Resolve;
        choice.dimension = static_cast<int>(option);
    } else {
        choice.kind = ConflictChoice::Kind::Shard;
    }
    return choice;
}

QStringList axesDeciding(const ProblemView& problem, const plan::Plan& plan, analysis::NameId name) {
    const auto& context = problem.problem->costModel->planContext();
    const auto& axes = problem.mesh().axes;
    QStringList out;
    for (const plan::Decision& decision : plan.decisions) {
        if (decision.axis < 0 || static_cast<std::size_t>(decision.axis) >= axes.size())
            continue;
        const auto names = context.namesOf(decision);
        if (std::find(names.begin(), names.end(), name) == names.end())
            continue;
        const QString axis = toQString(axes[static_cast<std::size_t>(decision.axis)].name);
        if (!out.contains(axis))
            out << axis;
    }
    return out;
}

bool choiceWaitsForAxis(const ProblemView& problem, const ConflictChoice& choice, const plan::Plan& before,
                        const plan::Plan& after) {
    const bool leave = choice.kind == ConflictChoice::Kind::LeaveUnsharded;
    return axesDeciding(problem, leave ? before : after, choice.name).isEmpty();
}

QString choiceText(const ProblemView& problem, const ConflictChoice& choice) {
    const QString label = toQString(problem.space().name(choice.name).label);
    switch (choice.kind) {
        case ConflictChoice::Kind::Resolve:
            return QObject::tr("Give %1's axis to its %2 dimension").arg(label, ordinal(choice.dimension));
        case ConflictChoice::Kind::Shard:
            return QObject::tr("Shard %1 and gather it where it must be whole").arg(label);
        case ConflictChoice::Kind::LeaveUnsharded:
            return QObject::tr("Leave %1 unsharded").arg(label);
    }
    return {};
}

QString optionShortText(const ConflictChoice& choice) {
    switch (choice.kind) {
        case ConflictChoice::Kind::Resolve:
            return QObject::tr("%1 dimension").arg(ordinal(choice.dimension));
        case ConflictChoice::Kind::Shard:
            return QObject::tr("shard anyway");
        case ConflictChoice::Kind::LeaveUnsharded:
            return QObject::tr("leave unsharded");
    }
    return {};
}

QString deltaTimeText(double seconds) {
    return signedText(seconds, toQString(report::formatTime(std::abs(seconds))));
}

QString deltaBytesText(double bytes) {
    return signedText(bytes, toQString(report::formatBytes(std::abs(bytes))));
}

QString choiceEffect(const ProblemView& problem, const ConflictChoice& choice, const plan::Plan& before,
                     const plan::Plan& after, const cost::Evaluation* beforeEvaluation,
                     const cost::Evaluation* afterEvaluation) {
    const QString label = toQString(problem.space().name(choice.name).label);
    const QString text = choiceText(problem, choice);
    if (before == after)
        return QObject::tr("%1: the plan already does this, nothing changes.").arg(text);
    if (choiceWaitsForAxis(problem, choice, before, after))
        return (choice.kind == ConflictChoice::Kind::LeaveUnsharded
                    ? QObject::tr(
                          "%1: %2 was not sharded in this plan, so the step time and memory stay as they "
                          "are; it is now forbidden on every axis, so the search will not shard it.")
                    : QObject::tr(
                          "%1: %2 has no mesh axis in this plan yet, so the step time and memory stay as "
                          "they are. The choice takes effect once %2 is sharded: pin it on an axis in "
                          "the Names panel, or let the search shard it."))
            .arg(text, label);
    if (!afterEvaluation || !beforeEvaluation)
        return QObject::tr("%1: evaluating the plan…").arg(text);
    const double t0 = beforeEvaluation->stepTime, t1 = afterEvaluation->stepTime;
    const double m0 = beforeEvaluation->peakMemory, m1 = afterEvaluation->peakMemory;
    auto time = [](double s) { return toQString(report::formatTime(s)); };
    auto bytes = [](double b) { return toQString(report::formatBytes(b)); };
    if (same(t0, t1) && same(m0, m1))
        return QObject::tr(
                   "%1: the step time (%2) and the peak memory (%3) stay the same; the plan's other "
                   "decisions already decide the tensors this choice touches.")
            .arg(text, time(t1), bytes(m1));
    QString effect = QObject::tr("%1: step time %2 → %3 (%4), peak memory %5 → %6 (%7).")
                         .arg(text, time(t0), time(t1), deltaTimeText(t1 - t0), bytes(m0), bytes(m1),
                              deltaBytesText(m1 - m0));
    if (beforeEvaluation->feasible && !afterEvaluation->feasible)
        effect += QObject::tr(" The plan no longer fits in device memory.");
    else if (!beforeEvaluation->feasible && afterEvaluation->feasible)
        effect += QObject::tr(" The plan now fits in device memory.");
    return effect;
}

ConflictPicture conflictPicture(const ProblemView& problem, const plan::Plan* plan, std::size_t c,
                                std::size_t s) {
    const analysis::DecisionSpace& space = problem.space();
    const analysis::Conflict& conflict = space.conflicts[c];
    const ir::Graph& graph = problem.graph();
    ConflictPicture picture;
    picture.kind = conflict.kind;
    picture.label = shortNameLabel(space, conflict.name);
    picture.color = nameColor(space, conflict.name);
    if (s < conflict.sites.size()) {
        const analysis::ConflictSite& site = conflict.sites[s];
        if (site.value.index < graph.values.size())
            for (const std::int64_t d : graph.type(site.value).shape)
                picture.shape.push_back(static_cast<qint64>(d));
        picture.dimensions = site.dimensions;
        if (site.op.valid() && site.op.index < graph.ops.size())
            picture.op = toQString(ir::mnemonic(graph.op(site.op).kind));
    }
    if (plan) {
        const QStringList axes = axesDeciding(problem, *plan, conflict.name);
        if (!axes.isEmpty())
            picture.axis = axes.front();
        for (const plan::Resolution& r : plan->resolutions)
            if (r.name == conflict.name)
                picture.chosen = r.dimension;
    }
    return picture;
}

QString conflictExplanation(const ProblemView& problem, const plan::Plan* plan, std::size_t c,
                            std::size_t s) {
    const analysis::DecisionSpace& space = problem.space();
    const analysis::Conflict& conflict = space.conflicts[c];
    const ir::Graph& graph = problem.graph();
    const QString label = toQString(space.name(conflict.name).label).toHtmlEscaped();
    const QString name = QStringLiteral("<b>%1</b>").arg(label);
    const int sites = static_cast<int>(conflict.sites.size());
    QString example;
    if (s < conflict.sites.size()) {
        const analysis::ConflictSite& site = conflict.sites[s];
        QStringList dimensions;
        for (const int d : site.dimensions)
            dimensions << QString::number(d + 1);
        QString producer;
        if (site.op.valid() && site.op.index < graph.ops.size()) {
            const ir::Op& op = graph.op(site.op);
            producer = toQString(ir::mnemonic(op.kind));
            if (!op.location.name.empty())
                producer += QStringLiteral(" (%1)").arg(toQString(op.location.name));
        }
        if (site.value.index < graph.values.size())
            example =
                QObject::tr("For example <code>%1</code>%2, dimension(s) %3.")
                    .arg(toQString(graph.type(site.value).toString()).toHtmlEscaped(),
                         producer.isEmpty() ? QString() : QObject::tr(" at %1").arg(producer.toHtmlEscaped()),
                         dimensions.join(QStringLiteral(" and ")));
    }
    QString html;
    if (conflict.kind == analysis::ConflictKind::RepeatedName) {
        html =
            QObject::tr(
                "<p><b>Repeated name.</b> At %n site(s) one tensor carries %1 on two of its dimensions, as "
                "attention scores compare every position with every other (<i>seq × seq</i>). %2</p>"
                "<p>A mesh axis can split a tensor along one dimension only. When a plan shards %1 on an "
                "axis, one of the two dimensions takes it and the other stays whole on every device; an op "
                "that needs the other one split pays for a reshard. The choice says which dimension takes "
                "the axis.</p>",
                nullptr, sites)
                .arg(name, example);
    } else {
        html =
            QObject::tr(
                "<p><b>Cut name.</b> At %n site(s) %1 meets an op that needs it whole: the dimension a sort "
                "or a cumulative sum runs along, the indices of a gather, a dynamic slice. %2</p>"
                "<p>Where %1 is sharded, each device first all-gathers the whole of it there, every step "
                "(time on the links, and the whole tensor in memory). Shard it anyway and pay the gathers, "
                "or leave it unsharded.</p>",
                nullptr, sites)
                .arg(name, example);
    }
    if (plan) {
        const QStringList axes = axesDeciding(problem, *plan, conflict.name);
        if (axes.isEmpty())
            html += QObject::tr(
                        "<p><i>In this plan</i> %1 has no mesh axis yet, so no choice changes the step "
                        "time or memory now: a choice takes effect once %1 is sharded (pin it on an axis in "
                        "the Names panel, or let the search shard it).</p>")
                        .arg(name);
        else
            html += QObject::tr("<p><i>In this plan</i> %1 is sharded on %2.</p>")
                        .arg(name, axes.join(QStringLiteral(", ")).toHtmlEscaped());
    }
    html += QObject::tr("<p>Options (double-click one in the list to choose it):</p><ul>");
    for (const std::string& option : conflict.options)
        html += QStringLiteral("<li>%1</li>").arg(toQString(option).toHtmlEscaped());
    html += QStringLiteral("</ul>");
    return html;
}

struct ConflictModel::Worker {
    explicit Worker(std::shared_ptr<const ProblemView> p)
        : problem(std::move(p)), evaluator(*problem->problem->costModel) {}
    std::shared_ptr<const ProblemView> problem;  // keeps the cost model alive while a job runs
    cost::Evaluator evaluator;                   // used by one job at a time (one queue)
};

ConflictModel::ConflictModel(QObject* parent) : QAbstractItemModel(parent) {}

ConflictModel::~ConflictModel() = default;

void ConflictModel::setProblem(std::shared_ptr<const ProblemView> problem) {
    evaluations_.cancel();
    beginResetModel();
    problem_ = std::move(problem);
    state_.reset();
    awaitingState_ = false;
    bodyIndexOfOp_.clear();
    kinds_.clear();
    rowOf_.clear();
    focus_ = 0;
    worker_ = problem_ ? std::make_shared<Worker>(problem_) : nullptr;
    if (problem_) {
        const ir::Graph& graph = problem_->graph();
        bodyIndexOfOp_.assign(graph.ops.size(), -1);
        for (std::size_t i = 0; i < graph.body.size(); ++i)
            bodyIndexOfOp_[graph.body[i].index] = static_cast<int>(i);
        const auto& conflicts = space().conflicts;
        rowOf_.resize(conflicts.size());
        for (const auto kind : {analysis::ConflictKind::RepeatedName, analysis::ConflictKind::CutName}) {
            KindRows rows{kind, {}};
            for (std::size_t c = 0; c < conflicts.size(); ++c)
                if (conflicts[c].kind == kind) {
                    rowOf_[c] = {kinds_.size(), rows.conflicts.size()};
                    rows.conflicts.push_back(c);
                }
            if (!rows.conflicts.empty())
                kinds_.push_back(std::move(rows));
        }
    }
    rebuildOptionStates();
    clearCosts();
    endResetModel();
    setEvaluating(false);
}

void ConflictModel::setPlanState(std::shared_ptr<const PlanState> state) {
    const bool samePlan = state && state_ && state->plan == state_->plan && !awaitingState_;
    state_ = std::move(state);
    awaitingState_ = false;
    rebuildOptionStates();
    if (!problem_)
        return;
    if (!samePlan) {
        evaluations_.cancel();
        clearCosts();
    }
    const QVector<int> roles{Qt::DisplayRole, Qt::FontRole, OptionStateRole, Qt::ToolTipRole};
    for (std::size_t c = 0; c < optionStates_.size(); ++c) {
        const std::size_t options = optionStates_[c].size();
        if (options == 0)
            continue;
        emit dataChanged(optionIndex(c, 0), optionIndex(c, options - 1, ColumnCount - 1), roles);
        emitCostsChanged(c);
    }
    evaluateOptions();
}

void ConflictModel::planChanging() {
    if (!problem_)
        return;
    evaluations_.cancel();
    awaitingState_ = true;
    clearCosts();
    for (std::size_t c = 0; c < costs_.size(); ++c)
        emitCostsChanged(c);
    setEvaluating(active_ && !costs_.empty());
}

void ConflictModel::cancelEvaluation() {
    evaluations_.cancel();
    awaitingState_ = false;
    setEvaluating(false);
}

void ConflictModel::setFocus(std::size_t conflict) {
    if (conflict >= costs_.size() || conflict == focus_)
        return;
    focus_ = conflict;
    const auto& costs = costs_[conflict];
    if (evaluating_ && !awaitingState_ &&
        std::any_of(costs.begin(), costs.end(), [](const auto& c) { return !c.has_value(); }))
        evaluateOptions();  // again, this conflict first
}

void ConflictModel::setActive(bool active) {
    if (active_ == active)
        return;
    active_ = active;
    if (!active_) {
        evaluations_.cancel();
        setEvaluating(false);
    } else if (awaitingState_) {
        setEvaluating(!costs_.empty());
    } else {
        evaluateOptions();
    }
}

void ConflictModel::clearCosts() {
    costs_.clear();
    if (!problem_)
        return;
    costs_.resize(space().conflicts.size());
    for (std::size_t c = 0; c < costs_.size(); ++c)
        costs_[c].assign(conflict(c).options.size(), std::nullopt);
}

void ConflictModel::setEvaluating(bool evaluating) {
    if (evaluating_ == evaluating)
        return;
    evaluating_ = evaluating;
    emit evaluatingChanged(evaluating);
}

void ConflictModel::emitCostsChanged(std::size_t c) {
    const std::size_t options = conflict(c).options.size();
    const QVector<int> roles{Qt::DisplayRole, SortRole,        Qt::ToolTipRole,    Qt::FontRole,
                             DeltaTimeRole,   DeltaMemoryRole, Qt::ForegroundRole, BestOptionRole};
    emit dataChanged(conflictIndex(c, StepTimeColumn), conflictIndex(c, MemoryColumn), roles);
    if (options == 0)
        return;
    emit dataChanged(optionIndex(c, 0, StepTimeColumn), optionIndex(c, options - 1, MemoryColumn), roles);
    emit dataChanged(optionIndex(c, 0, LabelColumn), optionIndex(c, options - 1, LabelColumn),
                     {BestOptionRole, Qt::FontRole});
}

void ConflictModel::evaluateOptions() {
    if (!problem_ || !state_ || !active_ || awaitingState_) {
        if (!awaitingState_ || !active_)
            setEvaluating(false);
        return;
    }
    struct Item {
        std::size_t conflict, option;
        ConflictChoice choice;
    };
    std::vector<Item> todo;
    auto add = [&](std::size_t c) {
        for (std::size_t o = 0; o < costs_[c].size(); ++o)
            if (!costs_[c][o])
                todo.push_back({c, o, conflictChoice(space(), c, o)});
    };
    if (focus_ < costs_.size())
        add(focus_);
    for (std::size_t c = 0; c < costs_.size(); ++c)
        if (c != focus_)
            add(c);
    if (todo.empty()) {
        evaluations_.cancel();
        setEvaluating(false);
        return;
    }
    setEvaluating(true);
    evaluations_.run(
        [this, worker = worker_, state = state_, todo = std::move(todo)](const LatestJob::Token& token) {
            const cost::Evaluation& base = state->evaluation;
            for (const Item& item : todo) {
                if (token.superseded())
                    return;
                OptionCost cost;
                const plan::Plan variant = withChoice(state->plan, item.choice, worker->problem->mesh());
                if (variant == state->plan) {
                    cost.samePlan = true;
                    cost.stepTime = base.stepTime;
                    cost.peakMemory = base.peakMemory;
                    cost.feasible = base.feasible;
                } else {
                    try {
                        const cost::Evaluation& evaluation = worker->evaluator.evaluate(variant);
                        cost.stepTime = evaluation.stepTime;
                        cost.peakMemory = evaluation.peakMemory;
                        cost.feasible = evaluation.feasible;
                    } catch (const std::exception&) {
                        cost.failed = true;
                    }
                }
                // What only rounding tells apart is no change.
                cost.deltaTime = same(cost.stepTime, base.stepTime) ? 0 : cost.stepTime - base.stepTime;
                cost.deltaMemory =
                    same(cost.peakMemory, base.peakMemory) ? 0 : cost.peakMemory - base.peakMemory;
                // The letter runs on the model's thread, only while this request is the newest.
                token.post([this, c = item.conflict, o = item.option, cost] {
                    costs_[c][o] = cost;
                    emitCostsChanged(c);
                });
            }
        },
        [this] { setEvaluating(false); });
}

std::optional<ConflictModel::OptionCost> ConflictModel::optionCost(std::size_t c, std::size_t option) const {
    if (c >= costs_.size() || option >= costs_[c].size())
        return std::nullopt;
    return costs_[c][option];
}

std::optional<std::size_t> ConflictModel::bestOption(std::size_t c) const {
    if (c >= costs_.size() || costs_[c].empty())
        return std::nullopt;
    const auto& costs = costs_[c];
    if (std::any_of(costs.begin(), costs.end(), [](const auto& k) { return !k || k->failed; }))
        return std::nullopt;
    const bool anyFits = std::any_of(costs.begin(), costs.end(), [](const auto& k) { return k->feasible; });
    std::optional<std::size_t> best;
    bool differ = false;
    for (std::size_t o = 0; o < costs.size(); ++o) {
        if (!same(costs[o]->stepTime, costs[0]->stepTime))
            differ = true;
        if (anyFits && !costs[o]->feasible)
            continue;
        if (!best || costs[o]->stepTime < costs[*best]->stepTime)
            best = o;
    }
    return differ ? best : std::nullopt;
}

void ConflictModel::rebuildOptionStates() {
    optionStates_.clear();
    nameDecided_.clear();
    if (!problem_)
        return;
    const auto& conflicts = space().conflicts;
    optionStates_.resize(conflicts.size());
    const plan::Plan empty;
    const plan::Plan& plan = state_ ? state_->plan : empty;
    const auto& context = problem_->problem->costModel->planContext();
    std::vector<bool> decided(space().names.size(), false);
    for (const plan::Decision& decision : plan.decisions)
        for (const analysis::NameId name : context.namesOf(decision))
            decided[name.index] = true;
    const std::size_t axes = problem_->mesh().axes.size();
    nameDecided_.resize(conflicts.size());
    for (std::size_t c = 0; c < conflicts.size(); ++c) {
        const analysis::Conflict& conflict = conflicts[c];
        nameDecided_[c] = decided[conflict.name.index];
        auto& states = optionStates_[c];
        states.assign(conflict.options.size(), OptionState::NotChosen);
        if (states.empty())
            continue;
        const analysis::GroupId group = space().name(conflict.name).group;
        std::uint32_t forbiddenAxes = 0;
        for (const plan::Decision& d : plan.forbidden)
            if (targetsName(d, conflict.name, group) && d.axis >= 0)
                forbiddenAxes |= 1u << d.axis;
        const bool forbiddenEverywhere = axes > 0 && forbiddenAxes == (1u << axes) - 1;
        const auto resolution =
            std::find_if(plan.resolutions.begin(), plan.resolutions.end(),
                         [&](const plan::Resolution& r) { return r.name == conflict.name; });
        const std::size_t leave = states.size() - 1;
        if (forbiddenEverywhere) {
            states[leave] = OptionState::Chosen;
        } else if (conflict.kind == analysis::ConflictKind::RepeatedName &&
                   resolution != plan.resolutions.end()) {
            const auto dimension = static_cast<std::size_t>(resolution->dimension);
            if (dimension < leave)
                states[dimension] = OptionState::Chosen;
        } else if (decided[conflict.name.index]) {
            states[0] = conflict.kind == analysis::ConflictKind::RepeatedName ? OptionState::Default
                                                                              : OptionState::Chosen;
        } else {
            states[leave] = OptionState::Default;
        }
    }
}

ConflictModel::OptionState ConflictModel::optionState(std::size_t c, std::size_t option) const {
    if (c >= optionStates_.size() || option >= optionStates_[c].size())
        return OptionState::NotChosen;
    return optionStates_[c][option];
}

ConflictModel::RowKind ConflictModel::rowKind(const QModelIndex& index) const {
    if (!index.isValid() || index.internalId() == kKindRow)
        return RowKind::Kind;
    if (index.internalId() < kChildBase)
        return RowKind::Conflict;
    const quintptr offset = index.internalId() - kChildBase;
    if (offset % 2 == 1)
        return RowKind::Site;
    return static_cast<std::size_t>(index.row()) < conflict(offset / 2).options.size() ? RowKind::Option
                                                                                       : RowKind::SiteList;
}

std::optional<std::size_t> ConflictModel::conflictAt(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this || index.internalId() == kKindRow)
        return std::nullopt;
    if (index.internalId() < kChildBase)
        return kinds_[index.internalId() - 1].conflicts[static_cast<std::size_t>(index.row())];
    return (index.internalId() - kChildBase) / 2;
}

std::optional<std::size_t> ConflictModel::siteAt(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this || rowKind(index) != RowKind::Site)
        return std::nullopt;
    return static_cast<std::size_t>(index.row());
}

std::optional<ConflictChoice> ConflictModel::choiceAt(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this || rowKind(index) != RowKind::Option)
        return std::nullopt;
    return conflictChoice(space(), *conflictAt(index), static_cast<std::size_t>(index.row()));
}

std::optional<std::size_t> ConflictModel::bodyIndexAt(const QModelIndex& index) const {
    const auto s = siteAt(index);
    if (!s)
        return std::nullopt;
    const auto& site = conflict(*conflictAt(index)).sites[*s];
    if (!site.op.valid() || site.op.index >= bodyIndexOfOp_.size() || bodyIndexOfOp_[site.op.index] < 0)
        return std::nullopt;
    return static_cast<std::size_t>(bodyIndexOfOp_[site.op.index]);
}

QModelIndex ConflictModel::conflictIndex(std::size_t c, int column) const {
    if (c >= rowOf_.size() || column < 0 || column >= ColumnCount)
        return {};
    const auto [kind, row] = rowOf_[c];
    return createIndex(static_cast<int>(row), column, static_cast<quintptr>(kind) + 1);
}

QModelIndex ConflictModel::optionIndex(std::size_t c, std::size_t option, int column) const {
    if (c >= rowOf_.size() || option >= conflict(c).options.size() || column < 0 || column >= ColumnCount)
        return {};
    return createIndex(static_cast<int>(option), column, kChildBase + 2 * static_cast<quintptr>(c));
}

QModelIndex ConflictModel::index(int row, int column, const QModelIndex& parent) const {
    if (!problem_ || row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < static_cast<int>(kinds_.size()) ? createIndex(row, column, kKindRow) : QModelIndex();
    if (parent.column() != 0)
        return {};
    switch (rowKind(parent)) {
        case RowKind::Kind: {
            const auto& rows = kinds_[static_cast<std::size_t>(parent.row())];
            return row < static_cast<int>(rows.conflicts.size())
                       ? createIndex(row, column, static_cast<quintptr>(parent.row()) + 1)
                       : QModelIndex();
        }
        case RowKind::Conflict: {
            const std::size_t c = *conflictAt(parent);
            return row <= static_cast<int>(conflict(c).options.size())
                       ? createIndex(row, column, kChildBase + 2 * static_cast<quintptr>(c))
                       : QModelIndex();
        }
        case RowKind::SiteList: {
            const std::size_t c = *conflictAt(parent);
            return row < static_cast<int>(conflict(c).sites.size())
                       ? createIndex(row, column, kChildBase + 2 * static_cast<quintptr>(c) + 1)
                       : QModelIndex();
        }
        default:
            return {};
    }
}

QModelIndex ConflictModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == kKindRow)
        return {};
    if (child.internalId() < kChildBase)
        return createIndex(static_cast<int>(child.internalId() - 1), 0, kKindRow);
    const quintptr offset = child.internalId() - kChildBase;
    const std::size_t c = offset / 2;
    if (offset % 2 == 0)
        return conflictIndex(c);
    return createIndex(static_cast<int>(conflict(c).options.size()), 0,
                       kChildBase + 2 * static_cast<quintptr>(c));
}

int ConflictModel::rowCount(const QModelIndex& parent) const {
    if (!problem_)
        return 0;
    if (!parent.isValid())
        return static_cast<int>(kinds_.size());
    if (parent.column() != 0)
        return 0;
    switch (rowKind(parent)) {
        case RowKind::Kind:
            return static_cast<int>(kinds_[static_cast<std::size_t>(parent.row())].conflicts.size());
        case RowKind::Conflict:
            return static_cast<int>(conflict(*conflictAt(parent)).options.size()) + 1;
        case RowKind::SiteList:
            return static_cast<int>(conflict(*conflictAt(parent)).sites.size());
        default:
            return 0;
    }
}

int ConflictModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant ConflictModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const RowKind kind = rowKind(index);
    if (role == RowKindRole)
        return static_cast<int>(kind);
    // Counts and deltas are right-aligned on every row.
    if (role == Qt::TextAlignmentRole)
        return index.column() == LabelColumn ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (kind == RowKind::Kind)
        return kindData(index, role);
    const std::size_t c = *conflictAt(index);
    switch (role) {
        case ConflictRole:
            return static_cast<qulonglong>(c);
        case NameRole:
            return conflict(c).name.index;
        default:
            break;
    }
    switch (kind) {
        case RowKind::Conflict:
            return conflictData(index, c, role);
        case RowKind::Option:
            return optionData(index, c, role);
        case RowKind::SiteList:
            return siteListData(index, c, role);
        case RowKind::Site:
            return siteData(index, c, role);
        case RowKind::Kind:
            break;
    }
    return {};
}

QVariant ConflictModel::kindData(const QModelIndex& index, int role) const {
    const KindRows& rows = kinds_[static_cast<std::size_t>(index.row())];
    const bool repeated = rows.kind == analysis::ConflictKind::RepeatedName;
    switch (role) {
        case Qt::ToolTipRole:
            return repeated ? tr("Tensors that carry one name on two of their dimensions: a mesh axis can "
                                 "split only one of them")
                            : tr("Names that meet an op needing them whole: sharding them costs a gather "
                                 "there");
        case Qt::FontRole: {
            QFont font;
            font.setBold(true);
            return font;
        }
        case Qt::DisplayRole:
        case SortRole:
            break;
        default:
            return {};
    }
    switch (index.column()) {
        case LabelColumn: {
            const int n = static_cast<int>(rows.conflicts.size());
            return repeated ? tr("Repeated names (%1)").arg(n) : tr("Cut names (%1)").arg(n);
        }
        case SitesColumn: {
            std::size_t sites = 0;
            for (const std::size_t c : rows.conflicts)
                sites += conflict(c).sites.size();
            return countData(sites, role);
        }
        default:
            return role == SortRole ? QVariant(QString()) : QVariant();
    }
}

QVariant ConflictModel::costData(std::size_t c, std::optional<std::size_t> option, int column,
                                 int role) const {
    const bool time = column == StepTimeColumn;
    const std::optional<std::size_t> bestOfConflict = bestOption(c);
    std::optional<OptionCost> cost;
    if (option) {
        cost = optionCost(c, *option);
    } else if (bestOfConflict) {
        cost = optionCost(c, *bestOfConflict);
    } else {
        // Every option known and alike: the conflict changes nothing.
        const auto& costs = costs_[c];
        if (!costs.empty() &&
            std::all_of(costs.begin(), costs.end(), [](const auto& k) { return k && !k->failed; }))
            cost = costs.front();
    }
    const bool best = option && bestOfConflict == option;
    switch (role) {
        case Qt::DisplayRole:
            if (!cost)
                return QStringLiteral("…");
            if (cost->failed)
                return QStringLiteral("–");
            return time ? deltaTimeText(cost->deltaTime) : deltaBytesText(cost->deltaMemory);
        case SortRole:
            return cost && !cost->failed ? QVariant(time ? cost->deltaTime : cost->deltaMemory)
                                         : QVariant(0.0);
        case DeltaTimeRole:
            return option && cost && !cost->failed ? QVariant(cost->deltaTime) : QVariant();
        case DeltaMemoryRole:
            return option && cost && !cost->failed ? QVariant(cost->deltaMemory) : QVariant();
        case Qt::ForegroundRole: {
            if (!cost || cost->failed)
                return {};
            const double delta = time ? cost->deltaTime : cost->deltaMemory;
            if (!option && !bestOfConflict)
                return {};
            if (delta < 0)
                return QBrush(QColor(0x1b, 0x7f, 0x3a));
            if (delta > 0)
                return QBrush(QColor(0xb0, 0x30, 0x20));
            return {};
        }
        case Qt::FontRole:
            if (!best)
                return {};
            {
                QFont font;
                font.setBold(true);
                return font;
            }
        case Qt::ToolTipRole: {
            if (!cost)
                return state_ ? tr("Being evaluated in the background")
                              : tr("Waiting for the plan's evaluation");
            if (cost->failed)
                return tr("The evaluation failed");
            if (c < nameDecided_.size() && !nameDecided_[c] && state_ && cost->deltaTime == 0 &&
                cost->deltaMemory == 0)
                return tr("%1 has no mesh axis in this plan yet: no choice changes the step until it is "
                          "sharded")
                    .arg(toQString(space().name(conflict(c).name).label));
            QString tip =
                option ? (time ? tr("How the step time changes with this option: %1 → %2")
                                     .arg(toQString(report::formatTime(state_->evaluation.stepTime)),
                                          toQString(report::formatTime(cost->stepTime)))
                               : tr("How the peak memory per device changes with this option: %1 → %2")
                                     .arg(toQString(report::formatBytes(state_->evaluation.peakMemory)),
                                          toQString(report::formatBytes(cost->peakMemory))))
                       : tr("The best option's change (the fastest that fits in memory)");
            if (cost->samePlan)
                tip += tr("\nThe plan already amounts to this option");
            if (!cost->feasible)
                tip += tr("\nDoes not fit in device memory");
            if (best)
                tip += tr("\nThe fastest option");
            return tip;
        }
        default:
            return {};
    }
}

QVariant ConflictModel::conflictData(const QModelIndex& index, std::size_t c, int role) const {
    const analysis::Conflict& conflict = this->conflict(c);
    const bool repeated = conflict.kind == analysis::ConflictKind::RepeatedName;
    if (index.column() == StepTimeColumn || index.column() == MemoryColumn)
        return costData(c, std::nullopt, index.column(), role);
    switch (role) {
        case Qt::DecorationRole:
            return index.column() == LabelColumn ? QVariant(nameColor(space(), conflict.name)) : QVariant();
        case Qt::ToolTipRole:
            if (index.column() == LabelColumn)
                return (repeated
                            ? tr("%1: a tensor carries this name on several dimensions; sharding it must "
                                 "pick one")
                            : tr("%1: the name meets an op that needs it whole; sharding it forces a "
                                 "gather there"))
                    .arg(toQString(space().name(conflict.name).label));
            return {};
        case Qt::DisplayRole:
        case SortRole:
            break;
        default:
            return {};
    }
    switch (index.column()) {
        case LabelColumn:
            return toQString(space().name(conflict.name).label);
        case SitesColumn:
            return countData(conflict.sites.size(), role);
        default:
            return {};
    }
}

QVariant ConflictModel::optionData(const QModelIndex& index, std::size_t c, int role) const {
    const auto option = static_cast<std::size_t>(index.row());
    const OptionState state = optionState(c, option);
    if (role == BestOptionRole)
        return bestOption(c) == option;
    if (index.column() == StepTimeColumn || index.column() == MemoryColumn)
        return costData(c, option, index.column(), role);
    switch (role) {
        case OptionStateRole:
            return static_cast<int>(state);
        case Qt::FontRole:
            if (state == OptionState::NotChosen)
                return {};
            {
                QFont font;
                font.setBold(state == OptionState::Chosen);
                font.setItalic(state == OptionState::Default);
                return font;
            }
        case Qt::ToolTipRole: {
            const QString full = toQString(conflict(c).options[option]);
            switch (state) {
                case OptionState::Chosen:
                    return tr("%1\nThe current plan chose this option").arg(full);
                case OptionState::Default:
                    return tr("%1\nWhat the current plan amounts to without choosing").arg(full);
                case OptionState::NotChosen:
                    return tr("%1\nDouble-click or press Enter to choose it").arg(full);
            }
            return {};
        }
        case Qt::DisplayRole:
        case SortRole:
            break;
        default:
            return {};
    }
    switch (index.column()) {
        case LabelColumn:
            return optionShortText(conflictChoice(space(), c, option));
        case SitesColumn:
            // Keeps options in their order when a proxy sorts children by this column.
            if (role == SortRole)
                return static_cast<qulonglong>(option);
            return state == OptionState::Chosen    ? tr("chosen")
                   : state == OptionState::Default ? tr("default")
                                                   : QString();
        default:
            return {};
    }
}

QVariant ConflictModel::siteListData(const QModelIndex& index, std::size_t c, int role) const {
    const std::size_t sites = conflict(c).sites.size();
    switch (role) {
        case Qt::ToolTipRole:
            return tr("Where the conflict occurs: select a site to show its op in the graph");
        case Qt::DisplayRole:
        case SortRole:
            break;
        default:
            return {};
    }
    switch (index.column()) {
        case LabelColumn:
            return countOf(static_cast<long long>(sites), tr("site"), tr("sites"));
        case SitesColumn:
            return countData(sites, role);
        default:
            return role == SortRole ? QVariant(QString()) : QVariant();
    }
}

QVariant ConflictModel::siteData(const QModelIndex& index, std::size_t c, int role) const {
    const analysis::Conflict& conflict = this->conflict(c);
    const auto& site = conflict.sites[static_cast<std::size_t>(index.row())];
    const ir::Graph& graph = problem_->graph();
    const bool produced = site.op.valid() && site.op.index < graph.ops.size();
    auto dimensions = [&] {
        QStringList list;
        for (const int d : site.dimensions)
            list << QString::number(d + 1);
        return list.join(QStringLiteral(", "));
    };
    switch (role) {
        case BodyIndexRole: {
            const auto body = bodyIndexAt(index);
            return body ? static_cast<int>(*body) : -1;
        }
        case ValueRole:
            return site.value.index;
        case SiteRole:
            return static_cast<qulonglong>(index.row());
        case Qt::ToolTipRole: {
            QString tip;
            if (produced)
                tip = toQString(graph.op(site.op).location.toString()) + QLatin1Char('\n');
            if (site.value.index < graph.values.size())
                tip += tr("Tensor %1, dimension(s) %2 carry %3")
                           .arg(toQString(graph.type(site.value).toString()), dimensions(),
                                toQString(space().name(conflict.name).label));
            return tip;
        }
        case Qt::DisplayRole:
        case SortRole:
            break;
        default:
            return {};
    }
    switch (index.column()) {
        case LabelColumn: {
            if (!produced) {
                const ir::Argument* argument = graph.argumentFor(site.value);
                return tr("argument %1")
                    .arg(argument ? toQString(argument->name) : QString::number(site.value.index));
            }
            const ir::Op& op = graph.op(site.op);
            const std::string& where = op.location.name.empty() ? op.location.toString() : op.location.name;
            const QString kind = toQString(ir::mnemonic(op.kind));
            return where.empty() ? kind : kind + QStringLiteral("  ") + toQString(where);
        }
        case SitesColumn:
            return role == SortRole ? QVariant(static_cast<qulonglong>(index.row())) : QVariant();
        default:
            return role == SortRole ? QVariant(QString()) : QVariant();
    }
}

QVariant ConflictModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case StepTimeColumn:
                return tr(
                    "How the step time changes when the option is chosen in the current plan (a conflict: "
                    "its best option's)");
            case MemoryColumn:
                return tr(
                    "How the peak memory per device changes when the option is chosen in the current "
                    "plan");
            case SitesColumn:
                return tr("Where the conflict occurs: tensors or ops");
            default:
                return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
        case LabelColumn:
            return tr("Conflict");
        case StepTimeColumn:
            return tr("Δ time");
        case MemoryColumn:
            return tr("Δ memory");
        case SitesColumn:
            return tr("Sites");
        default:
            return {};
    }
}

}  // namespace shardscope::ui
