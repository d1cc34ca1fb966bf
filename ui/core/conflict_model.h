// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The conflicts panel's model: the analysis' repeated and cut names, their options and their sites.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <QAbstractItemModel>
#include <QString>

#include "core/plan_state.h"
#include "core/problem_view.h"

namespace shardscope::ui {

// What choosing one option of a conflict means for a plan.
struct ConflictChoice {
    enum class Kind : std::uint8_t {
        // A repeated name: `dimension` (0 = the first of a tensor's dimensions carrying the name) takes the
        // axis;
        // the plan gets plan::Resolution{name, dimension}.
        Resolve,
        // Shard the name anyway (a cut name: all-gather it where it must be whole); the plan needs no
        // resolution,
        // only no forbids of the group.
        Shard,
        // Leave the name unsharded: the plan forbids the name's group on every mesh axis.
        LeaveUnsharded,
    };
    Kind kind = Kind::Resolve;
    std::size_t conflict = 0;  // index into space.conflicts
    analysis::NameId name;
    analysis::GroupId group;  // the name's group
    int dimension = 0;        // for Resolve
    friend bool operator==(const ConflictChoice&, const ConflictChoice&) = default;
};

// Returns `plan` with `choice` made: a Resolve replaces the name's resolution; Shard and Resolve drop the
// forbids of the name's group; LeaveUnsharded drops the group's decisions (pins included, keeping `pinned`
// consistent) and forbids the group on every axis of `mesh` that is not forbidden yet.
plan::Plan withChoice(const plan::Plan& plan, const ConflictChoice& choice, const mesh::Mesh& mesh);

// A tree. Top level: one row per conflict of the analysis (kind "repeated" or "cut", the name's label with
// its colour as decoration, the number of sites). Children: first the options (the analysis' words, marked as
// options; the one the current plan amounts to is marked), then the sites (op kind and location, the tensor's
// type, the dimensions carrying the name). Options come before the sites because a conflict can have hundreds
// of sites. Counts are numbers in SortRole.
class ConflictModel : public QAbstractItemModel {
    Q_OBJECT

public:
    enum Column { LabelColumn, KindColumn, SitesColumn, TensorColumn, DimensionsColumn, ColumnCount };

    enum class RowKind : std::uint8_t { Conflict, Option, Site };

    // How the current plan relates to an option.
    enum class OptionState : std::uint8_t {
        NotChosen,
        Chosen,   // the plan says so: a resolution, the forbids, or a decision sharding a cut name
        Default,  // what the plan amounts to without saying it: dimension 0 of a decided repeated name
                  // without a resolution; "leave unsharded" when no decision reaches the name
    };

    enum Role {
        RowKindRole = SortRole + 1,  // RowKind as int
        ConflictRole,                // the conflict's index into space.conflicts, on every row (qulonglong)
        NameRole,                    // the conflict's NameId index (uint)
        BodyIndexRole,    // a site row: the body index of its op (int; -1 for an argument's tensor)
        ValueRole,        // a site row: the tensor's ValueId index (uint)
        OptionStateRole,  // an option row: OptionState as int
    };

    explicit ConflictModel(QObject* parent = nullptr);

    // nullptr empties the tree; a new problem forgets the plan state.
    void setProblem(std::shared_ptr<const ProblemView> problem);
    // Updates the option marks (dataChanged, no reset). Assumes `state` belongs to the current problem.
    void setPlanState(std::shared_ptr<const PlanState> state);

    // The choice an option row stands for; nullopt for other rows.
    std::optional<ConflictChoice> choiceAt(const QModelIndex& index) const;
    // The body index of a site row's op; nullopt for other rows and for tensors no top-level op produces.
    std::optional<std::size_t> bodyIndexAt(const QModelIndex& index) const;
    RowKind rowKind(const QModelIndex& index) const;
    OptionState optionState(std::size_t conflict, std::size_t option) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const analysis::DecisionSpace& space() const { return problem_->space(); }
    const analysis::Conflict& conflictOf(const QModelIndex& index) const;
    QVariant conflictData(const QModelIndex& index, int role) const;
    QVariant optionData(const QModelIndex& index, int role) const;
    QVariant siteData(const QModelIndex& index, int role) const;
    void rebuildOptionStates();

    std::shared_ptr<const ProblemView> problem_;
    std::shared_ptr<const PlanState> state_;
    std::vector<int> bodyIndexOfOp_;                      // OpId index -> body index, -1 for ops in regions
    std::vector<std::vector<OptionState>> optionStates_;  // per conflict, per option
};

}  // namespace shardscope::ui
