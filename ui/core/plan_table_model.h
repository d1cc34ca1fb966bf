// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The plans table (docs/explorer.md): every plan of a session, read from its workspace off the UI thread, and
// the plans a running search reports.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <QString>

#include "core/column_table_model.h"
#include "core/job_queue.h"
#include "core/problem_view.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/plan/plan.h"

namespace shardscope::store {
class Workspace;
}

namespace shardscope::ui {

// One plan as the table shows it.
struct PlanRow {
    std::int64_t id = 0;  // its workspace PlanRecord id; 0 for a plan not saved
    QString origin;       // "search", "expert:dp", "user", "reference"
    double stepTime = 0;
    double peakMemory = 0;  // bytes per device
    bool feasible = false;
    double collectiveBytes = -1;  // the sum of its collectives' bytes; < 0 while not known yet
    double foundAfterSeconds = 0;
    std::int64_t iteration = 0;
    QString label;
    std::optional<plan::Plan>
        plan;  // nullopt while not parsed yet (or when its JSON does not fit the problem)
};

// The row of a plan the caller has evaluated (a search's new best: search::Found's fields).
PlanRow planRowOf(const plan::Plan& plan, const cost::Evaluation& evaluation, const QString& origin,
                  double foundAfterSeconds = 0, std::int64_t iteration = 0, std::int64_t id = 0);
// The sum of the bytes of `evaluation`'s collectives (the table's volume column).
double collectiveBytesOf(const cost::Evaluation& evaluation);

// A table, one row per plan, in the order rows arrived (sort through a QSortFilterProxyModel on SortRole).
// Workspace rows arrive in two stages, both from a worker thread: first the summaries (id, origin, time,
// memory, feasibility, when found, label), then, as each plan is parsed against the problem (and evaluated
// when its evaluation JSON lacks the collectives), its plan and collectives volume (dataChanged).
class PlanTableModel : public ColumnTableModel<PlanRow> {
    Q_OBJECT

public:
    enum Column {
        IdColumn,
        OriginColumn,
        StepTimeColumn,
        PeakMemoryColumn,
        FeasibleColumn,
        CollectiveBytesColumn,
        FoundColumn,
        LabelColumn,
        ColumnCount
    };
    enum Role {
        PlanIdRole = SortRole + 1,  // the row's PlanRecord id (qlonglong; 0 when not saved), on every column
        RowRole,                    // the row's index in this model (int): survives a proxy's sorting
    };

    explicit PlanTableModel(QObject* parent = nullptr);
    ~PlanTableModel() override;  // cancels and waits for a running load

    // Empties the table and cancels a running load; plans are parsed against `problem` from now on.
    void setProblem(std::shared_ptr<const ProblemView> problem);
    // Adds `session`'s plans from `workspace` (read on a worker thread; `loaded` reports the end). Plans
    // whose id the table already has are left out. Does nothing without a problem.
    void loadWorkspace(std::shared_ptr<const store::Workspace> workspace, std::int64_t session);
    // The same, opening the workspace file at `path` for the reading (`loadFailed` reports a file that does
    // not open).
    void loadWorkspace(const QString& path, std::int64_t session);
    bool isLoading() const { return loading_; }

    // Adds a plan (a search's new best, a plan the user saved). A row with the same nonzero id is replaced.
    // Returns the row's index.
    int addPlan(PlanRow row);
    // Sets a row's label (after the user edits it).
    void setLabel(int row, const QString& label);

    const PlanRow* rowAt(int row) const;
    // The plan of row `row`, when known (see PlanRow::plan); workspace rows get theirs during the load.
    std::optional<plan::Plan> planAt(int row) const;
    std::int64_t planIdAt(int row) const;
    // The row of a plan id, or -1.
    int rowOfId(std::int64_t id) const;

signals:
    // A load ended: `count` workspace plans are in the table (with their plans and volumes).
    void loaded(int count);
    void loadFailed(const QString& message);

protected:
    QVariant rowData(const PlanRow& row, const QModelIndex& index, int role) const override;

private:
    void startLoad(std::function<std::shared_ptr<const store::Workspace>(QString*)> open,
                   std::int64_t session);
    // The stages of the newest load (older ones never arrive).
    void receiveSummaries(std::vector<PlanRow> rows);
    void receiveDetails(std::vector<PlanRow> rows);
    void finishLoad(int count, const QString& error);

    std::shared_ptr<const ProblemView> problem_;
    bool loading_ = false;
    JobQueue jobs_{"plan table"};
    LatestJob loads_{jobs_};  // last: destroyed first, it stops the running load; jobs_ then waits for it
};

}  // namespace shardscope::ui
