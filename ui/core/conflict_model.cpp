// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/conflict_model.h"

#include <algorithm>
#include <utility>

#include <QFont>
#include <QLocale>

#include "core/name_style.h"
#include "core/text.h"

namespace shardscope::ui {

namespace {

// Top-level rows have internal id 0; a child row stores its conflict's index + 1.
constexpr quintptr kTopLevel = 0;

bool targetsName(const plan::Decision& decision, analysis::NameId name, analysis::GroupId group) {
    return decision.target == plan::Decision::Target::Group ? decision.index == group.index
                                                            : decision.index == name.index;
}

// The choice option `option` of `conflict` stands for. The analysis lists a repeated name's dimensions in
// order, a cut name's "shard anyway", and ends every list with "leave unsharded".
ConflictChoice choiceFor(const analysis::DecisionSpace& space, std::size_t index, std::size_t option) {
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

ConflictModel::ConflictModel(QObject* parent) : QAbstractItemModel(parent) {}

void ConflictModel::setProblem(std::shared_ptr<const ProblemView> problem) {
    beginResetModel();
    problem_ = std::move(problem);
    state_.reset();
    bodyIndexOfOp_.clear();
    if (problem_) {
        const ir::Graph& graph = problem_->graph();
        bodyIndexOfOp_.assign(graph.ops.size(), -1);
        for (std::size_t i = 0; i < graph.body.size(); ++i)
            bodyIndexOfOp_[graph.body[i].index] = static_cast<int>(i);
    }
    rebuildOptionStates();
    endResetModel();
}

void ConflictModel::setPlanState(std::shared_ptr<const PlanState> state) {
    state_ = std::move(state);
    rebuildOptionStates();
    if (!problem_)
        return;
    const QVector<int> roles{Qt::DisplayRole, Qt::FontRole, OptionStateRole, Qt::ToolTipRole};
    for (std::size_t c = 0; c < optionStates_.size(); ++c) {
        const int options = static_cast<int>(optionStates_[c].size());
        if (options == 0)
            continue;
        const QModelIndex parent = index(static_cast<int>(c), 0);
        emit dataChanged(index(0, 0, parent), index(options - 1, ColumnCount - 1, parent), roles);
    }
}

void ConflictModel::rebuildOptionStates() {
    optionStates_.clear();
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
    for (std::size_t c = 0; c < conflicts.size(); ++c) {
        const analysis::Conflict& conflict = conflicts[c];
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

ConflictModel::OptionState ConflictModel::optionState(std::size_t conflict, std::size_t option) const {
    if (conflict >= optionStates_.size() || option >= optionStates_[conflict].size())
        return OptionState::NotChosen;
    return optionStates_[conflict][option];
}

const analysis::Conflict& ConflictModel::conflictOf(const QModelIndex& index) const {
    const std::size_t c =
        index.internalId() == kTopLevel ? static_cast<std::size_t>(index.row()) : index.internalId() - 1;
    return space().conflicts[c];
}

ConflictModel::RowKind ConflictModel::rowKind(const QModelIndex& index) const {
    if (!index.isValid() || index.internalId() == kTopLevel)
        return RowKind::Conflict;
    return static_cast<std::size_t>(index.row()) < conflictOf(index).options.size() ? RowKind::Option
                                                                                    : RowKind::Site;
}

std::optional<ConflictChoice> ConflictModel::choiceAt(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this || rowKind(index) != RowKind::Option)
        return std::nullopt;
    return choiceFor(space(), index.internalId() - 1, static_cast<std::size_t>(index.row()));
}

std::optional<std::size_t> ConflictModel::bodyIndexAt(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this || rowKind(index) != RowKind::Site)
        return std::nullopt;
    const analysis::Conflict& conflict = conflictOf(index);
    const auto& site = conflict.sites[static_cast<std::size_t>(index.row()) - conflict.options.size()];
    if (!site.op.valid() || site.op.index >= bodyIndexOfOp_.size() || bodyIndexOfOp_[site.op.index] < 0)
        return std::nullopt;
    return static_cast<std::size_t>(bodyIndexOfOp_[site.op.index]);
}

QModelIndex ConflictModel::index(int row, int column, const QModelIndex& parent) const {
    if (!problem_ || row < 0 || column < 0 || column >= ColumnCount)
        return {};
    const auto& conflicts = space().conflicts;
    if (!parent.isValid())
        return row < static_cast<int>(conflicts.size()) ? createIndex(row, column, kTopLevel) : QModelIndex();
    if (parent.internalId() != kTopLevel || parent.row() >= static_cast<int>(conflicts.size()))
        return {};
    const analysis::Conflict& conflict = conflicts[static_cast<std::size_t>(parent.row())];
    if (row >= static_cast<int>(conflict.options.size() + conflict.sites.size()))
        return {};
    return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex ConflictModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == kTopLevel)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, kTopLevel);
}

int ConflictModel::rowCount(const QModelIndex& parent) const {
    if (!problem_)
        return 0;
    if (!parent.isValid())
        return static_cast<int>(space().conflicts.size());
    if (parent.column() != 0 || parent.internalId() != kTopLevel)
        return 0;
    const analysis::Conflict& conflict = space().conflicts[static_cast<std::size_t>(parent.row())];
    return static_cast<int>(conflict.options.size() + conflict.sites.size());
}

int ConflictModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant ConflictModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const std::size_t c =
        index.internalId() == kTopLevel ? static_cast<std::size_t>(index.row()) : index.internalId() - 1;
    const RowKind kind = rowKind(index);
    switch (role) {
        case RowKindRole:
            return static_cast<int>(kind);
        case ConflictRole:
            return static_cast<qulonglong>(c);
        case NameRole:
            return space().conflicts[c].name.index;
        default:
            break;
    }
    switch (kind) {
        case RowKind::Conflict:
            return conflictData(index, role);
        case RowKind::Option:
            return optionData(index, role);
        case RowKind::Site:
            return siteData(index, role);
    }
    return {};
}

QVariant ConflictModel::conflictData(const QModelIndex& index, int role) const {
    const analysis::Conflict& conflict = conflictOf(index);
    const bool repeated = conflict.kind == analysis::ConflictKind::RepeatedName;
    switch (role) {
        case Qt::DecorationRole:
            return index.column() == LabelColumn ? QVariant(nameColor(space(), conflict.name)) : QVariant();
        case Qt::ToolTipRole:
            if (index.column() == KindColumn || index.column() == LabelColumn)
                return repeated
                           ? tr("A tensor carries this name on several dimensions: sharding it must pick one")
                           : tr("The name meets an op that needs it whole: sharding it forces a gather "
                                "there");
            return {};
        case Qt::TextAlignmentRole:
            return index.column() == SitesColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
        case Qt::DisplayRole:
        case SortRole:
            break;
        default:
            return {};
    }
    switch (index.column()) {
        case LabelColumn:
            return toQString(space().name(conflict.name).label);
        case KindColumn:
            return repeated ? tr("repeated") : tr("cut");
        case SitesColumn:
            return role == SortRole
                       ? QVariant(static_cast<qulonglong>(conflict.sites.size()))
                       : QVariant(QLocale().toString(static_cast<qulonglong>(conflict.sites.size())));
        default:
            return role == SortRole ? QVariant(QString()) : QVariant();
    }
}

QVariant ConflictModel::optionData(const QModelIndex& index, int role) const {
    const std::size_t c = index.internalId() - 1;
    const auto option = static_cast<std::size_t>(index.row());
    const OptionState state = optionState(c, option);
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
        case Qt::ToolTipRole:
            switch (state) {
                case OptionState::Chosen:
                    return tr("The current plan chose this option");
                case OptionState::Default:
                    return tr("What the current plan amounts to without choosing");
                case OptionState::NotChosen:
                    return tr("Choose this option to change the plan");
            }
            return {};
        case Qt::DisplayRole:
        case SortRole:
            break;
        default:
            return {};
    }
    switch (index.column()) {
        case LabelColumn:
            return toQString(conflictOf(index).options[option]);
        case KindColumn:
            return tr("option");
        case SitesColumn:
            // Keeps options in their order when a proxy sorts children by this column.
            if (role == SortRole)
                return static_cast<qulonglong>(option);
            return state == OptionState::Chosen    ? tr("chosen")
                   : state == OptionState::Default ? tr("default")
                                                   : QString();
        default:
            return role == SortRole ? QVariant(QString()) : QVariant();
    }
}

QVariant ConflictModel::siteData(const QModelIndex& index, int role) const {
    const analysis::Conflict& conflict = conflictOf(index);
    const auto& site = conflict.sites[static_cast<std::size_t>(index.row()) - conflict.options.size()];
    const ir::Graph& graph = problem_->graph();
    const bool produced = site.op.valid() && site.op.index < graph.ops.size();
    switch (role) {
        case BodyIndexRole: {
            const auto body = bodyIndexAt(index);
            return body ? static_cast<int>(*body) : -1;
        }
        case ValueRole:
            return site.value.index;
        case Qt::ToolTipRole:
            if (index.column() == LabelColumn && produced)
                return toQString(graph.op(site.op).location.toString());
            return {};
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
        case KindColumn:
            return tr("site");
        case SitesColumn:
            return role == SortRole ? QVariant(static_cast<qulonglong>(index.row())) : QVariant();
        case TensorColumn:
            return site.value.index < graph.values.size() ? toQString(graph.type(site.value).toString())
                                                          : QString();
        case DimensionsColumn: {
            QStringList dimensions;
            for (const int d : site.dimensions)
                dimensions << QString::number(d);
            return QLatin1Char('[') + dimensions.join(QStringLiteral(", ")) + QLatin1Char(']');
        }
        default:
            return {};
    }
}

QVariant ConflictModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
        case LabelColumn:
            return tr("Conflict");
        case KindColumn:
            return tr("Kind");
        case SitesColumn:
            return tr("Sites");
        case TensorColumn:
            return tr("Tensor");
        case DimensionsColumn:
            return tr("Dimensions");
        default:
            return {};
    }
}

}  // namespace shardscope::ui
