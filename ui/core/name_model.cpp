// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/name_model.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

#include <QLocale>

#include "core/decision_model.h"
#include "core/name_style.h"
#include "core/text.h"
#include "shardscope/report/model_report.h"

namespace shardscope::ui {

namespace {

// Top-level rows have internal id 0; a child row stores its group's row + 1, so parent() needs no lookup.
constexpr quintptr kTopLevel = 0;

const QString& noSharding() {
    static const QString dash(QChar(0x2014));
    return dash;
}

QString axisText(const mesh::Mesh& mesh, const plan::Decision& decision) {
    const auto axis = static_cast<std::size_t>(decision.axis);
    QString text = axis < mesh.axes.size() ? toQString(mesh.axes[axis].name) : QStringLiteral("?");
    if (decision.tensors != plan::kAllTensorClasses)
        text += QStringLiteral(" (") + tensorClassesText(decision.tensors) + QLatin1Char(')');
    return text;
}

}  // namespace

NameModel::NameModel(QObject* parent) : QAbstractItemModel(parent) {}

void NameModel::setProblem(std::shared_ptr<const ProblemView> problem) {
    beginResetModel();
    problem_ = std::move(problem);
    state_.reset();
    rows_.clear();
    rowOfGroup_.clear();
    childOfName_.clear();
    if (problem_) {
        const auto& groups = space().groups;
        std::vector<std::uint32_t> order(groups.size());
        std::iota(order.begin(), order.end(), 0u);
        // Ties (the same role in a model with equal sizes) keep the analysis' order, so rows do not shuffle.
        std::stable_sort(order.begin(), order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return groups[a].bytes > groups[b].bytes; });
        rowOfGroup_.assign(groups.size(), -1);
        childOfName_.assign(space().names.size(), -1);
        for (const std::uint32_t g : order) {
            if (groups[g].names.empty())
                continue;  // a group split away by DecisionSpace::splitGroup keeps an empty husk
            GroupRow row{analysis::GroupId{g}, {}};
            if (groups[g].names.size() > 1) {
                row.children = groups[g].names;
                for (std::size_t c = 0; c < row.children.size(); ++c)
                    childOfName_[row.children[c].index] = static_cast<int>(c);
            }
            rowOfGroup_[g] = static_cast<int>(rows_.size());
            rows_.push_back(std::move(row));
        }
    }
    rebuildSharding();
    endResetModel();
}

void NameModel::setPlanState(std::shared_ptr<const PlanState> state) {
    state_ = std::move(state);
    rebuildSharding();
    if (rows_.empty())
        return;
    const QVector<int> roles{Qt::DisplayRole, SortRole, Qt::ToolTipRole};
    emit dataChanged(index(0, ShardingColumn), index(static_cast<int>(rows_.size()) - 1, ShardingColumn),
                     roles);
    for (std::size_t r = 0; r < rows_.size(); ++r) {
        const int children = static_cast<int>(rows_[r].children.size());
        if (children == 0)
            continue;
        const QModelIndex parent = index(static_cast<int>(r), 0);
        emit dataChanged(index(0, ShardingColumn, parent), index(children - 1, ShardingColumn, parent),
                         roles);
    }
}

void NameModel::rebuildSharding() {
    nameSharding_.assign(problem_ ? space().names.size() : 0, QString());
    groupSharding_.assign(rows_.size(), QString());
    if (!problem_ || !state_) {
        std::fill(nameSharding_.begin(), nameSharding_.end(), noSharding());
        std::fill(groupSharding_.begin(), groupSharding_.end(), noSharding());
        return;
    }
    const auto& context = problem_->problem->costModel->planContext();
    const mesh::Mesh& mesh = problem_->mesh();
    // Per group row, the decisions' entries in priority order with how many of the group's names each
    // reaches.
    std::vector<std::vector<std::pair<QString, std::size_t>>> groupEntries(rows_.size());
    for (const plan::Decision& decision : state_->plan.decisions) {
        const QString text = axisText(mesh, decision);
        std::map<int, std::size_t> reachedPerRow;
        for (const analysis::NameId name : context.namesOf(decision)) {
            QString& sharding = nameSharding_[name.index];
            if (!sharding.isEmpty())
                sharding += QStringLiteral(", ");
            sharding += text;
            const int row = rowOfGroup_[space().name(name).group.index];
            if (row >= 0)
                ++reachedPerRow[row];
        }
        for (const auto& [row, count] : reachedPerRow) {
            auto& entries = groupEntries[static_cast<std::size_t>(row)];
            const auto same = std::find_if(entries.begin(), entries.end(),
                                           [&](const auto& entry) { return entry.first == text; });
            if (same == entries.end())
                entries.emplace_back(text, count);
            else
                same->second += count;
        }
    }
    for (QString& sharding : nameSharding_)
        if (sharding.isEmpty())
            sharding = noSharding();
    for (std::size_t r = 0; r < rows_.size(); ++r) {
        const std::size_t names = space().group(rows_[r].group).names.size();
        QStringList parts;
        for (const auto& [text, count] : groupEntries[r])
            parts << (count >= names ? text : tr("%1 (%2 of %3)").arg(text).arg(count).arg(names));
        groupSharding_[r] = parts.isEmpty() ? noSharding() : parts.join(QStringLiteral(", "));
    }
}

std::optional<NameModel::Target> NameModel::targetAt(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this)
        return std::nullopt;
    if (index.internalId() == kTopLevel)
        return Target{plan::Decision::Target::Group,
                      rows_[static_cast<std::size_t>(index.row())].group.index};
    const GroupRow& row = rows_[index.internalId() - 1];
    return Target{plan::Decision::Target::Name, row.children[static_cast<std::size_t>(index.row())].index};
}

QModelIndex NameModel::indexOfGroup(analysis::GroupId group, int column) const {
    if (group.index >= rowOfGroup_.size() || rowOfGroup_[group.index] < 0)
        return {};
    return index(rowOfGroup_[group.index], column);
}

QModelIndex NameModel::indexOfName(analysis::NameId name, int column) const {
    if (!problem_ || name.index >= childOfName_.size())
        return {};
    const QModelIndex groupIndex = indexOfGroup(space().name(name).group, column);
    const int child = childOfName_[name.index];
    if (child < 0 || !groupIndex.isValid())
        return groupIndex;
    return index(child, column, index(groupIndex.row(), 0));
}

QModelIndex NameModel::index(int row, int column, const QModelIndex& parent) const {
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < static_cast<int>(rows_.size()) ? createIndex(row, column, kTopLevel) : QModelIndex();
    if (parent.internalId() != kTopLevel || parent.row() >= static_cast<int>(rows_.size()))
        return {};
    const auto& children = rows_[static_cast<std::size_t>(parent.row())].children;
    if (row >= static_cast<int>(children.size()))
        return {};
    return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex NameModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == kTopLevel)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, kTopLevel);
}

int NameModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid())
        return static_cast<int>(rows_.size());
    if (parent.column() != 0 || parent.internalId() != kTopLevel)
        return 0;
    return static_cast<int>(rows_[static_cast<std::size_t>(parent.row())].children.size());
}

int NameModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

analysis::NameId NameModel::displayName(const QModelIndex& index) const {
    if (index.internalId() == kTopLevel)
        return space().group(rows_[static_cast<std::size_t>(index.row())].group).names.front();
    return rows_[index.internalId() - 1].children[static_cast<std::size_t>(index.row())];
}

QVariant NameModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const bool top = index.internalId() == kTopLevel;
    const GroupRow& row = rows_[top ? static_cast<std::size_t>(index.row()) : index.internalId() - 1];
    const bool oneName = row.children.empty();
    switch (role) {
        case TargetKindRole:
            return static_cast<int>(top ? plan::Decision::Target::Group : plan::Decision::Target::Name);
        case TargetIndexRole:
            return top ? row.group.index : displayName(index).index;
        case GroupRole:
            return row.group.index;
        case NameRole:
            return top && !oneName ? QVariant() : QVariant(displayName(index).index);
        case Qt::DecorationRole:
            return index.column() == LabelColumn ? QVariant(nameColor(space(), displayName(index)))
                                                 : QVariant();
        case Qt::TextAlignmentRole:
            if (index.column() != LabelColumn && index.column() != ShardingColumn)
                return QVariant(Qt::AlignRight | Qt::AlignVCenter);
            return {};
        default:
            return columnData(index, role);
    }
}

QVariant NameModel::columnData(const QModelIndex& index, int role) const {
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole)
        return {};
    const bool top = index.internalId() == kTopLevel;
    const std::size_t groupRow = top ? static_cast<std::size_t>(index.row()) : index.internalId() - 1;
    const GroupRow& row = rows_[groupRow];
    const analysis::Group& group = space().group(row.group);
    const analysis::Name& first = space().name(displayName(index));
    // A row of several names sums them; any other row is one name.
    const bool summed = top && !row.children.empty();
    const bool sort = role == SortRole;
    switch (index.column()) {
        case LabelColumn: {
            const QString label = toQString(summed ? group.label : first.label);
            if (role == Qt::ToolTipRole)
                return summed ? tr("%1: %2 names, decided together").arg(label).arg(group.names.size())
                              : label;
            return label;
        }
        case SizeColumn:
            if (role == Qt::ToolTipRole)
                return {};
            return sort ? QVariant(static_cast<qint64>(first.size))
                        : QVariant(QLocale().toString(first.size));
        case TensorsColumn: {
            if (role == Qt::ToolTipRole)
                return {};
            qint64 tensors = static_cast<qint64>(first.tensors);
            if (summed) {
                tensors = 0;
                for (const analysis::NameId name : group.names)
                    tensors += static_cast<qint64>(space().name(name).tensors);
            }
            return sort ? QVariant(tensors) : QVariant(QLocale().toString(tensors));
        }
        case BytesColumn: {
            const double bytes = summed ? group.bytes : first.bytes;
            if (role == Qt::ToolTipRole)
                return tr("%1 bytes of the tensors carrying it").arg(QLocale().toString(bytes, 'f', 0));
            return sort ? QVariant(bytes) : QVariant(toQString(report::formatBytes(bytes)));
        }
        case FlopsColumn: {
            const double flops = summed ? group.flops : first.flops;
            if (role == Qt::ToolTipRole)
                return tr("FLOPs of the ops it splits");
            return sort ? QVariant(flops) : QVariant(toQString(report::formatFlops(flops)));
        }
        case ShardingColumn: {
            const QString& text =
                top ? groupSharding_[groupRow]
                    : nameSharding_[row.children[static_cast<std::size_t>(index.row())].index];
            if (role == Qt::ToolTipRole)
                return tr("Mesh axes the plan's decisions give it, in priority order");
            return text;
        }
        default:
            return {};
    }
}

QVariant NameModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
        case LabelColumn:
            return tr("Name");
        case SizeColumn:
            return tr("Size");
        case TensorsColumn:
            return tr("Tensors");
        case BytesColumn:
            return tr("Bytes");
        case FlopsColumn:
            return tr("FLOPs");
        case ShardingColumn:
            return tr("Sharding");
        default:
            return {};
    }
}

}  // namespace shardscope::ui
