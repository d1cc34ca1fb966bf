// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The conflicts panel's model: the analysis' repeated and cut names grouped by kind, their options with what
// each would change in the current plan (evaluated in the background), and their sites.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <QAbstractItemModel>
#include <QColor>
#include <QString>
#include <QStringList>

#include "core/job_queue.h"
#include "core/plan_state.h"
#include "core/problem_view.h"

namespace shardscope::ui {

// What choosing one option of a conflict means for a plan.
struct ConflictChoice {
    enum class Kind : std::uint8_t {
        // A repeated name: `dimension` (0 = the first of a tensor's dimensions carrying the name) takes the
        // axis; the plan gets plan::Resolution{name, dimension}.
        Resolve,
        // Shard the name anyway (a cut name: all-gather it where it must be whole); the plan needs no
        // resolution, only no forbids of the group.
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

// The choice option `option` of conflict `conflict` stands for. The analysis lists a repeated name's
// dimensions in order, a cut name's "shard anyway", and ends every list with "leave unsharded".
ConflictChoice conflictChoice(const analysis::DecisionSpace& space, std::size_t conflict, std::size_t option);

// The mesh axes of the plan's decisions that reach `name` (a decision on the name or on its group), in plan
// order; empty when no decision shards the name, and then no resolution of it changes anything.
QStringList axesDeciding(const ProblemView& problem, const plan::Plan& plan, analysis::NameId name);

// Whether `choice` (taking `before` to `after`) changes nothing now because the name has no mesh axis: a
// Resolve or Shard of a name no decision of `after` reaches (it takes effect once the name is sharded), or a
// LeaveUnsharded of a name no decision of `before` reached (it only keeps the search from sharding it).
bool choiceWaitsForAxis(const ProblemView& problem, const ConflictChoice& choice, const plan::Plan& before,
                        const plan::Plan& after);

// A choice in words for the undo history and the effect line: "Give seq's axis to its second dimension".
QString choiceText(const ProblemView& problem, const ConflictChoice& choice);
// An option in a few words, without the name (the conflict's row says it): "second dimension" (takes the
// axis), "shard anyway", "leave unsharded".
QString optionShortText(const ConflictChoice& choice);

// What a choice did, in one or two sentences, for the user who just made it:
// - `before` is `after` (the plan already said so): that nothing changed;
// - a Resolve or Shard of a name no decision of `after` reaches: that it takes effect once the name is
// sharded;
// - LeaveUnsharded of a name no decision of `before` reached: that the plan is unchanged now and the search
//   will not shard it;
// - otherwise, with the evaluations of both plans: the step time and peak memory, before and after; without
//   `afterEvaluation` (not evaluated yet): that it is being evaluated.
QString choiceEffect(const ProblemView& problem, const ConflictChoice& choice, const plan::Plan& before,
                     const plan::Plan& after, const cost::Evaluation* beforeEvaluation,
                     const cost::Evaluation* afterEvaluation);

// What the conflicts panel pictures for a conflict: one of its sites' tensor, with the dimensions carrying
// the name, and the mesh axis a plan gives the name.
struct ConflictPicture {
    analysis::ConflictKind kind = analysis::ConflictKind::RepeatedName;
    QString label;                // the name's short label
    QColor color;                 // the name's colour
    std::vector<qint64> shape;    // the site's tensor
    std::vector<int> dimensions;  // its dimensions carrying the name (0-based)
    QString axis;                 // the first mesh axis deciding the name, or empty
    int chosen = 0;               // a repeated name: which of `dimensions` takes the axis (the resolution)
    QString op;                   // the site's op kind ("sort", "dot_general")
};
ConflictPicture conflictPicture(const ProblemView& problem, const plan::Plan* plan, std::size_t conflict,
                                std::size_t site);

// The conflict in plain words, as HTML for the panel under the list: what the kind of conflict means with
// `site`'s tensor as the example, why the choice matters, what the current plan does with the name (no axis
// yet: the choice waits until it is sharded), and the options in the analysis' words.
QString conflictExplanation(const ProblemView& problem, const plan::Plan* plan, std::size_t conflict,
                            std::size_t site);

// A signed change for the Δ columns: "+1.234 ms", "−56.7 us", "0"; "+1.50 GiB".
QString deltaTimeText(double seconds);
QString deltaBytesText(double bytes);

// A tree. Top level: one row per kind of conflict that occurs ("Repeated names", "Cut names"). Under each,
// one row per conflict of that kind (the name's label with its colour as decoration, the number of sites).
// Under a conflict: first its options (in a few words, the analysis' words as tooltip; the one the current
// plan amounts to is marked), then one row "N sites" whose children are the sites (op kind and location;
// the tensor and the dimensions carrying the name as tooltip). Options come before the sites because a
// conflict can have hundreds of sites.
//
// The Δ columns: for an option, how the step time and peak memory of the current plan (setPlanState) change
// when the option is chosen (withChoice), evaluated on a thread of the model's own with the engine's
// Evaluator; "…" until known. For a conflict, its best option's. A new plan or problem cancels the
// evaluations and starts again; setFocus() evaluates one conflict's options first.
class ConflictModel : public QAbstractItemModel {
    Q_OBJECT

public:
    enum Column { LabelColumn, StepTimeColumn, MemoryColumn, SitesColumn, ColumnCount };

    // (Values kept from before the kind rows: Conflict, Option and Site.)
    enum class RowKind : std::uint8_t { Conflict, Option, Site, Kind, SiteList };

    // How the current plan relates to an option.
    enum class OptionState : std::uint8_t {
        NotChosen,
        Chosen,   // the plan says so: a resolution, the forbids, or a decision sharding a cut name
        Default,  // what the plan amounts to without saying it: dimension 0 of a decided repeated name
                  // without a resolution; "leave unsharded" when no decision reaches the name
    };

    // What choosing an option would make of the current plan.
    struct OptionCost {
        double stepTime = 0, peakMemory = 0;    // of the plan with the option chosen
        double deltaTime = 0, deltaMemory = 0;  // against the current plan's evaluation
        bool feasible = false;                  // the plan with the option fits in device memory
        bool samePlan = false;                  // choosing it leaves the plan as it is
        bool failed = false;                    // the evaluation failed (which the engine does not expect)
    };

    enum Role {
        RowKindRole = SortRole + 1,  // RowKind as int
        ConflictRole,                // the conflict's index into space.conflicts, on every row below a kind
                                     // row (qulonglong)
        NameRole,                    // the conflict's NameId index (uint)
        BodyIndexRole,    // a site row: the body index of its op (int; -1 for an argument's tensor)
        ValueRole,        // a site row: the tensor's ValueId index (uint)
        OptionStateRole,  // an option row: OptionState as int
        DeltaTimeRole,    // an option row: OptionCost::deltaTime (double), invalid until evaluated
        DeltaMemoryRole,  // an option row: OptionCost::deltaMemory (double), invalid until evaluated
        BestOptionRole,   // an option row: whether it is the conflict's fastest option (bool)
        SiteRole,         // a site row: its index into the conflict's sites (qulonglong)
    };

    explicit ConflictModel(QObject* parent = nullptr);
    ~ConflictModel() override;

    // nullptr empties the tree; a new problem forgets the plan state and cancels the evaluations.
    void setProblem(std::shared_ptr<const ProblemView> problem);
    const std::shared_ptr<const ProblemView>& problem() const { return problem_; }
    // Updates the option marks and evaluates the options against `state` (dataChanged, no reset). Assumes
    // `state` belongs to the current problem.
    void setPlanState(std::shared_ptr<const PlanState> state);
    const std::shared_ptr<const PlanState>& planState() const { return state_; }
    // The plan is being edited: the options' costs are stale. Cancels their evaluation and shows "…" until
    // the next setPlanState().
    void planChanging();
    // The plan's evaluation failed: there is nothing to evaluate the options against until the next state.
    void cancelEvaluation();
    // Evaluates conflict `conflict`'s options before the others (when they are not known yet).
    void setFocus(std::size_t conflict);
    // Whether options are evaluated at all (a panel that is not shown evaluates nothing): on by default;
    // turning it on evaluates what is not known yet.
    void setActive(bool active);
    bool isActive() const { return active_; }

    // Whether options' costs against the newest plan are being evaluated or awaited (the plan is being
    // edited); false while inactive.
    bool isEvaluating() const { return evaluating_; }
    // Conflict `conflict`'s option `option`'s cost against the current plan, once evaluated.
    std::optional<OptionCost> optionCost(std::size_t conflict, std::size_t option) const;
    // The option of `conflict` with the lowest step time (among those that fit, if any does), when every
    // option is evaluated and they differ; nullopt otherwise.
    std::optional<std::size_t> bestOption(std::size_t conflict) const;

    // The choice an option row stands for; nullopt for other rows.
    std::optional<ConflictChoice> choiceAt(const QModelIndex& index) const;
    // The body index of a site row's op; nullopt for other rows and for tensors no top-level op produces.
    std::optional<std::size_t> bodyIndexAt(const QModelIndex& index) const;
    // The conflict a row belongs to (itself, an option, the site list, a site); nullopt for kind rows.
    std::optional<std::size_t> conflictAt(const QModelIndex& index) const;
    // The site a site row shows (index into the conflict's sites).
    std::optional<std::size_t> siteAt(const QModelIndex& index) const;
    RowKind rowKind(const QModelIndex& index) const;
    OptionState optionState(std::size_t conflict, std::size_t option) const;
    // The row of conflict `conflict` (column `column`), and of its option `option`.
    QModelIndex conflictIndex(std::size_t conflict, int column = 0) const;
    QModelIndex optionIndex(std::size_t conflict, std::size_t option, int column = 0) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    // isEvaluating() changed.
    void evaluatingChanged(bool evaluating);

private:
    struct KindRows {
        analysis::ConflictKind kind;
        std::vector<std::size_t> conflicts;  // indices into space.conflicts
    };
    struct Worker;

    const analysis::DecisionSpace& space() const { return problem_->space(); }
    const analysis::Conflict& conflict(std::size_t c) const { return space().conflicts[c]; }
    QVariant kindData(const QModelIndex& index, int role) const;
    QVariant conflictData(const QModelIndex& index, std::size_t c, int role) const;
    QVariant optionData(const QModelIndex& index, std::size_t c, int role) const;
    QVariant siteListData(const QModelIndex& index, std::size_t c, int role) const;
    QVariant siteData(const QModelIndex& index, std::size_t c, int role) const;
    QVariant costData(std::size_t c, std::optional<std::size_t> option, int column, int role) const;
    void rebuildOptionStates();
    void clearCosts();
    void evaluateOptions();
    void setEvaluating(bool evaluating);
    void emitCostsChanged(std::size_t c);

    std::shared_ptr<const ProblemView> problem_;
    std::shared_ptr<const PlanState> state_;
    std::vector<KindRows> kinds_;
    std::vector<std::pair<std::size_t, std::size_t>> rowOf_;  // per conflict: (kind row, row under it)
    std::vector<int> bodyIndexOfOp_;                      // OpId index -> body index, -1 for ops in regions
    std::vector<std::vector<OptionState>> optionStates_;  // per conflict, per option
    std::vector<bool> nameDecided_;  // per conflict: whether a decision of the plan reaches its name
    std::vector<std::vector<std::optional<OptionCost>>> costs_;  // per conflict, per option
    std::size_t focus_ = 0;
    bool evaluating_ = false;
    bool awaitingState_ = false;  // planChanging() came, setPlanState() not yet
    bool active_ = true;
    std::shared_ptr<Worker> worker_;  // one per problem: its Evaluator
    JobQueue jobs_{"conflict costs"};
    LatestJob evaluations_{jobs_};  // last: destroyed first, it stops the running evaluation
};

}  // namespace shardscope::ui
