// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A session's stored search tree, browsed a level at a time, and the plan a node of it stands for.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <QAbstractItemModel>
#include <QString>

#include "core/job_queue.h"
#include "core/problem_view.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/diagnostic.h"
#include "shardscope/plan/plan.h"
#include "shardscope/store/workspace.h"

namespace shardscope::ui {

// The search tree of one workspace session as a Qt tree: the top level holds the root node, and each node's
// children are read from the workspace when a view expands it (canFetchMore/fetchMore). Every read runs on a
// worker thread (a root may have hundreds of children, a file may be on a slow disk) and arrives through a
// queued signal; `fetched` tells when. A read made for an earlier session is dropped.
// Only what the workspace has written is seen: the search's recorder flushes about once a second; refresh()
// picks up what it wrote since.
class SearchTreeModel : public QAbstractItemModel {
    Q_OBJECT

public:
    enum Column { ActionColumn, VisitsColumn, MeanColumn, BestColumn, StatusColumn, PlanColumn, ColumnCount };
    enum Role {
        NodeIdRole = SortRole + 1,  // qint64: the node's id within the session
        RawStatusRole,              // QString: the status as the search stored it ("stop", "explored", ...)
        EndedRole,                  // bool: the branch ends at this node (a status is set)
        PlanIdRole,                 // qint64: the workspace plan linked to the node, 0 when none
    };

    explicit SearchTreeModel(QObject* parent = nullptr);
    ~SearchTreeModel() override;

    // Shows the tree of `session` in `workspace` (nullptr: nothing) and starts reading its top level. The
    // workspace is shared with the read jobs, so it stays open while one runs.
    void setSession(std::shared_ptr<const store::Workspace> workspace, std::int64_t session);
    const std::shared_ptr<const store::Workspace>& workspace() const { return workspace_; }
    std::int64_t session() const { return session_; }
    // Nodes the session holds in all (read with the top level; -1 before).
    std::int64_t storedNodeCount() const { return storedNodes_; }
    // Reads still running.
    bool isFetching() const { return pending_ > 0; }
    // The session problem's lower bound T_lb (CostModel::lowerBoundTime()). When set (> 0) the best column
    // shows the step time the best reward below a node stands for ("667.0 us", or "does not fit: 1.4×
    // memory"), the reward itself in its tooltip; rewards of small models differ only in their fourth
    // decimal.
    void setLowerBoundTime(double seconds);
    // The text the best column shows for `reward` under lower bound `lowerBoundTime`.
    static QString rewardText(double reward, double lowerBoundTime);

    // Re-reads every level read so far (the search has gone on): updates the figures of the nodes shown and
    // appends their new children.
    void refresh();

    // The stored record of the node at `index` (an invalid index gives a record with id -1).
    store::TreeNodeRecord record(const QModelIndex& index) const;
    // The index of the node with id `id`, if its level has been read.
    QModelIndex indexOfNode(std::int64_t id) const;
    // The actions on the path from the root to the node at `index`, root first, in the engine's words
    // (ActionSpace::describe); the root's own action ("root") is left out, so the root gives an empty path.
    std::vector<std::string> actionPath(const QModelIndex& index) const;

    // Rebuilds the plan of the node at `index` on the worker: the session's start (sessionStartPlan) and the
    // node's actionPath() through planOfPath(), for `problem` (the session's problem, as loadSessionProblem
    // gives it). Reports nodePlanReady or nodePlanFailed; only the newest request reports.
    void requestNodePlan(const QModelIndex& index, std::shared_ptr<const ProblemView> problem);

    // A node's status in words for people: why the branch ends there, or empty.
    static QString statusText(const QString& status);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;

signals:
    // The children of `parent` (invalid: the top level) have been read and inserted.
    void fetched(const QModelIndex& parent);
    // A read failed or found the session gone; the message says so in one line.
    void readFailed(const QString& message);
    // The plan of node `node` (requestNodePlan), labelled "node N".
    void nodePlanReady(qint64 node, const shardscope::plan::Plan& plan);
    void nodePlanFailed(qint64 node, const QString& message);

private:
    struct Item;
    enum class Fetch { NotStarted, Running, Done };

    Item* itemOf(const QModelIndex& index) const;
    QModelIndex indexOf(const Item* item, int column = 0) const;
    void read(Item* item);
    void merge(std::int64_t parentId, std::vector<store::TreeNodeRecord> children);

    std::shared_ptr<const store::Workspace> workspace_;
    std::int64_t session_ = 0;
    std::int64_t storedNodes_ = -1;
    double lowerBound_ = 0;
    std::unique_ptr<Item> top_;                     // invisible: the parent of the root (id -1)
    std::unordered_map<std::int64_t, Item*> byId_;  // every node read, and the invisible top
    int pending_ = 0;
    // One reader: levels arrive in the order they were asked for, and a browsing user never holds two cores.
    JobQueue jobs_{"search tree"};
    LatestJob reads_{jobs_};      // a request per session shown: every read of it reports, no other
    LatestJob nodePlans_{jobs_};  // the newest requestNodePlan() of the session shown
    LatestJob::Token shown_;      // reads_'s token of the session shown
};

// The start of a session's search: the pins, forbidden decisions and resolutions its settings record
// (`{"pins": plan JSON, ...}` as the CLI writes them), for `model`. A session without pins gives an empty
// plan. Errors: the settings or the pins do not parse for this model.
Result<plan::Plan> sessionStartPlan(const store::SessionRecord& session, const cost::CostModel& model);

// The plan a node of the search tree stands for: `start` followed by the node's actions (actionPath()), each
// matched against the words the search uses for its candidates (search::ActionSpace::describe), resolutions
// against those the plan calls for at that point, remat actions ("remat layers.*: full") against those it
// offers, "stop" ending the path. The action space is built over every group of the model, so paths recorded
// with any maxGroups match. Takes milliseconds on large models: call it off the UI thread there. Errors: an
// action no candidate describes (the model or mesh is not the session's).
Result<plan::Plan> planOfPath(const cost::CostModel& model, const plan::Plan& start,
                              const std::vector<std::string>& path);

}  // namespace shardscope::ui
