// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Two plans of one model side by side: what they decide differently, where their shardings differ, and what
// that does to collectives, step time and memory.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include <QAbstractTableModel>
#include <QObject>
#include <QString>
#include <QStringList>

#include "core/job_queue.h"
#include "core/problem_view.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/plan/plan.h"

namespace shardscope::ui {

// The headline figures of one evaluated plan.
struct PlanFigures {
    double stepTime = 0, computeTime = 0, collectiveTime = 0;
    double peakMemory = 0, capacity = 0;
    bool feasible = false;
};

// One decision of either plan. Decisions are matched by their words (target label, axis name and tensor
// classes), so plans of two ProblemViews of the same model compare even on different meshes. Remat decisions
// are rows too, after the sharding decisions, matched the same way ("remat layers.*: full").
struct DecisionDifference {
    enum class Side { Both, OnlyA, OnlyB };
    QString text;  // "(layers.*.mlp.d_ff, model)", "remat layers.*: full"
    Side side = Side::Both;
    int positionA = -1;  // index into plan A's decisions (or remat decisions), -1 when A does not have it
    int positionB = -1;
};

// The collectives of one kind in each plan (index 0 = A, 1 = B).
struct CollectiveKindFigures {
    cost::CollectiveKind kind = cost::CollectiveKind::AllGather;
    QString name;  // "all-reduce"
    std::array<int, 2> count{};
    std::array<double, 2> bytes{};
    std::array<double, 2> time{};
};

// A top-level op some of whose values (operands or results) are sharded differently by the two plans.
struct OpShardingDifference {
    std::size_t bodyIndex = 0;        // index into graph().body
    QString op;                       // "layers.0.mlp.w1 · dot_general": its label and mnemonic
    std::vector<ir::ValueId> values;  // its operands and results whose shardings differ, operands first
    QString example;                  // the first of them in words: "x: [batch@data, d] vs [batch, d@model]"
};

struct PlanComparison {
    QString nameA, nameB;
    QString meshA, meshB;  // "data=2,model=4"
    PlanFigures a, b;
    // A's decisions in order, then those only B has; then the same for the remat decisions.
    std::vector<DecisionDifference> decisions;
    std::vector<CollectiveKindFigures> collectives;  // kinds either plan has, in the engine's kind order
    // Whether the value shardings could be compared (the same graph); `ops` is empty when not.
    bool shardingsCompared = false;
    std::vector<OpShardingDifference> ops;  // in program order
    // What could not be compared and why, and what is compared only loosely, one sentence each.
    QStringList notes;
    // Both evaluations in full, for the memory curves and the breakdowns.
    cost::Evaluation evaluationA, evaluationB;
    std::shared_ptr<const ProblemView> problemA, problemB;

    // Decisions only in A, only in B.
    int onlyA() const;
    int onlyB() const;
    // Whether op `bodyIndex` (of A's graph) has a sharding difference.
    bool opDiffers(std::size_t bodyIndex) const;

    // Figures in the words of the engine's reports ("1.234 ms", "2.50 GiB"), for views outside ui/core.
    static QString timeText(double seconds);
    static QString bytesText(double bytes);
};

// Evaluates both plans and compares them. Blocks for two evaluations: call it off the UI thread (PlanComparer
// does). Assumes both problems are non-null; when their graphs differ (another model, or the forward graph
// against a training step) only the figures and decisions are compared and `notes` says so. On different
// meshes value shardings are compared by axis names ("data", "model"), and a note says the sizes differ.
PlanComparison comparePlans(std::shared_ptr<const ProblemView> a, const plan::Plan& planA,
                            const QString& nameA, std::shared_ptr<const ProblemView> b,
                            const plan::Plan& planB, const QString& nameB);

// Runs comparePlans() on a worker thread; only the newest request reports (LatestJob).
class PlanComparer : public QObject {
    Q_OBJECT

public:
    explicit PlanComparer(QObject* parent = nullptr);
    ~PlanComparer() override;

    void compare(std::shared_ptr<const ProblemView> a, plan::Plan planA, QString nameA,
                 std::shared_ptr<const ProblemView> b, plan::Plan planB, QString nameB);
    // Forgets the comparison and drops the one running (another model is shown).
    void clear();
    // The newest comparison that finished, or nullptr.
    const std::shared_ptr<const PlanComparison>& result() const { return result_; }
    bool isComparing() const { return comparing_; }

signals:
    void compared(std::shared_ptr<const shardscope::ui::PlanComparison> comparison);
    void comparingChanged(bool comparing);

private:
    std::shared_ptr<const PlanComparison> result_;
    bool comparing_ = false;
    JobQueue jobs_{"plan comparison"};
    LatestJob latest_{jobs_};  // last: destroyed first
};

// The decisions of a comparison: one row per decision of either plan.
class DecisionDifferenceModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { DecisionColumn, InAColumn, InBColumn, ColumnCount };
    explicit DecisionDifferenceModel(QObject* parent = nullptr);
    void setComparison(std::shared_ptr<const PlanComparison> comparison);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const PlanComparison> comparison_;
};

// The collectives of a comparison per kind: count, bytes and time for A and B.
class CollectiveDifferenceModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        KindColumn,
        CountAColumn,
        CountBColumn,
        BytesAColumn,
        BytesBColumn,
        TimeAColumn,
        TimeBColumn,
        ColumnCount
    };
    explicit CollectiveDifferenceModel(QObject* parent = nullptr);
    void setComparison(std::shared_ptr<const PlanComparison> comparison);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const PlanComparison> comparison_;
};

// The ops whose shardings differ; BodyIndexRole gives the op's index into graph().body.
class ShardingDifferenceModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { OpColumn, ValuesColumn, ExampleColumn, ColumnCount };
    static constexpr int BodyIndexRole = SortRole + 1;
    explicit ShardingDifferenceModel(QObject* parent = nullptr);
    void setComparison(std::shared_ptr<const PlanComparison> comparison);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const PlanComparison> comparison_;
};

}  // namespace shardscope::ui

Q_DECLARE_METATYPE(std::shared_ptr<const shardscope::ui::PlanComparison>)
