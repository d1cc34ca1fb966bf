// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The names panel's model: TOAST's names grouped the way the search decides them, with what the plan gives
// them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <QAbstractItemModel>
#include <QColor>
#include <QString>

#include "core/plan_state.h"
#include "core/problem_view.h"

namespace shardscope::ui {

// A tree: one top-level row per analysis group, ordered by bytes touched (largest first; SortRole lets a
// QSortFilterProxyModel re-sort any column), and under a group of several names one child row per name. A
// group of one name shows that name directly and has no children. Sizes, byte counts and FLOPs are formatted
// text in the display role and numbers in SortRole; the label column's DecorationRole is the name's colour
// (the first name's for a group). The sharding column lists the mesh axes the current plan's decisions give
// the row, in priority order ("model", "data, model"; "—" when none).
class NameModel : public QAbstractItemModel {
    Q_OBJECT

public:
    enum Column {
        LabelColumn,
        SizeColumn,
        TensorsColumn,
        BytesColumn,
        FlopsColumn,
        ShardingColumn,
        ColumnCount
    };

    enum Role {
        // plan::Decision::Target of the row as int: Group for a top-level row (also a one-name group), Name
        // for
        // a child row.
        TargetKindRole = SortRole + 1,
        // The row's target index: a GroupId index for a group row, a NameId index for a name row (uint).
        TargetIndexRole,
        // The GroupId index of the row's group, for group rows and name rows alike (uint).
        GroupRole,
        // The NameId index the row stands for: a name row's, or a one-name group's only name; invalid
        // QVariant
        // for a group of several names.
        NameRole,
    };

    // What a row stands for, in the terms of a plan::Decision target.
    struct Target {
        plan::Decision::Target kind = plan::Decision::Target::Group;
        std::uint32_t index = 0;
        friend bool operator==(const Target&, const Target&) = default;
    };

    explicit NameModel(QObject* parent = nullptr);

    // Shows `problem`'s groups and names; nullptr empties the tree. Forgets the plan state (the sharding
    // column shows "—" until setPlanState).
    void setProblem(std::shared_ptr<const ProblemView> problem);
    // Updates the sharding column only (dataChanged, no reset). Assumes `state` belongs to the current
    // problem; nullptr clears the column.
    void setPlanState(std::shared_ptr<const PlanState> state);

    // The target a row stands for; nullopt for an invalid index.
    std::optional<Target> targetAt(const QModelIndex& index) const;
    // The index of the row of `group` (top level) or of `name` (its child row, or its group's row when the
    // group has one name), in `column`. Invalid when out of range.
    QModelIndex indexOfGroup(analysis::GroupId group, int column = LabelColumn) const;
    QModelIndex indexOfName(analysis::NameId name, int column = LabelColumn) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct GroupRow {
        analysis::GroupId group;
        std::vector<analysis::NameId> children;  // empty for a one-name group
    };
    const analysis::DecisionSpace& space() const { return problem_->space(); }
    // The name a row's colour and label come from: the child's name, or a group's first name.
    analysis::NameId displayName(const QModelIndex& index) const;
    QVariant columnData(const QModelIndex& index, int role) const;
    void rebuildSharding();

    std::shared_ptr<const ProblemView> problem_;
    std::shared_ptr<const PlanState> state_;
    std::vector<GroupRow> rows_;
    std::vector<int> rowOfGroup_;   // GroupId index -> top-level row
    std::vector<int> childOfName_;  // NameId index -> child row under its group (-1 for a one-name group)
    std::vector<QString> nameSharding_;   // per NameId index
    std::vector<QString> groupSharding_;  // per top-level row
};

}  // namespace shardscope::ui
