// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A plan's breakdown (docs/explorer.md): its collectives, where its time goes (per module and per op) and its
// memory over the step, computed off the UI thread, with table models for the lists.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <QAbstractTableModel>
#include <QObject>
#include <QString>

#include "core/column_table_model.h"
#include "core/job_queue.h"
#include "core/problem_view.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/plan/plan.h"

namespace shardscope::ui {

struct BreakdownCollective {
    cost::CollectiveKind kind = cost::CollectiveKind::AllGather;
    QString axes;               // mesh axis names of the device group, "data,model"
    double bytes = 0;           // as cost::Collective::bytes
    double time = 0;            // seconds
    std::size_t bodyIndex = 0;  // the causing op (index into graph.body)
    QString opLabel;            // its label (module path) or, without one, its mnemonic
    QString tensor;             // the tensor moved: its type
};

// Time of a module's ops: `self*` counts the ops directly in the module, the others its whole subtree.
// `exposed` is the exposed communication of its ops (OpTime::exposed), `recompute` the part of their compute
// that recomputes a block's forward (OpTime::recompute).
struct ModuleTime {
    int module = 0;  // index into ProblemView::modules.modules
    int depth = 0;   // 0 for the root
    std::size_t ops = 0;
    double selfCompute = 0, compute = 0, collectives = 0, selfCollectives = 0;
    double selfExposed = 0, exposed = 0, recompute = 0;
};

struct OpTime {
    std::size_t bodyIndex = 0;
    double compute = 0;      // seconds per device (cost::Evaluation::opComputeTime)
    double collectives = 0;  // time of the collectives the op causes
    std::size_t collectiveCount = 0;
    // Exposed communication: how long the compute stream of the simulated schedule waits, idle, before this
    // op's kernel starts (for the transfers it needs); the wait after the last kernel goes to the op of the
    // transfer that ends last. Over all ops, compute + exposed is the schedule's makespan (the step time
    // without microbatches; one microbatch's otherwise).
    double exposed = 0;
    // Of `compute`, the recompute of a block's forward the op runs first (a remat point; 0 elsewhere).
    double recompute = 0;
};

// Live bytes per device over the step. For bodies of at most kMemorySamples ops every op is a sample; larger
// bodies are sampled evenly (Evaluator::liveAt walks every value, so all ops would cost ops × values), the
// peak op always among the samples.
// With rematerialization, also the same plan's total without it, to show what remat saves. With
// microbatches or a pipeline the samples are one microbatch's program on one stage (the evaluation's peak is
// then its fullest stage's, in-flight activations included).
struct MemoryOverStep {
    std::vector<std::size_t> ops;              // body indices of the samples, increasing
    std::vector<double> bytes;                 // total live bytes per device at each sample
    std::vector<cost::MemoryBreakdown> parts;  // per sample: `bytes` by category (Evaluator::liveAt)
    std::vector<double> withoutRemat;  // per sample: the total without the plan's remat; empty without remat
    double peakWithoutRemat = 0;       // that plan's Evaluation::peakMemory
    std::size_t opCount = 0;           // the body's ops
    double capacity = 0;               // device memory × (1 − reserve)
    double peak = 0;
    std::size_t peakOp = 0;
    cost::MemoryBreakdown atPeak;
};
inline constexpr std::size_t kMemorySamples = 4000;

struct PlanBreakdown {
    std::uint64_t generation = 0;  // of the PlanInspector request it answers
    plan::Plan plan;
    QString label;  // the plan's
    cost::Evaluation evaluation;
    std::vector<BreakdownCollective> collectives;  // in the evaluation's order
    std::vector<ModuleTime> modules;  // depth first, in the tree's order (parents before children)
    std::vector<OpTime> ops;          // per body op
    MemoryOverStep memory;
};

// One bar of the time-per-module picture: compute and exposed communication of a module's ops.
struct ModuleTimeBar {
    int module = 0;       // index into ProblemView::modules.modules
    int depth = 0;        // 0 for the root
    bool ownOps = false;  // only the module's own ops: its submodules have bars of their own
    QString label;  // the module's path, "(other ops)" added for ownOps; "(outside modules)" for the root
    double compute = 0, exposed = 0;
    double recompute = 0;    // of `compute`
    double collectives = 0;  // all its collectives' time, overlapped or not
    long long firstOp = -1;  // its first op in program order (index into graph.body), -1 for none
    double total() const { return compute + exposed; }
};

// The modules down to `depth` levels below the root as bars that partition the ops: each module at that
// depth (or a shallower one without submodules) with its whole subtree, and each shallower module with ops
// of its own as a bar of those. In the tree's order; bars without time are left out. Their totals sum to the
// ops' compute + exposed communication.
std::vector<ModuleTimeBar> moduleTimeBars(const ProblemView& problem, const PlanBreakdown& breakdown,
                                          int depth);
// The deepest module below the root (0 for a tree of the root only).
int moduleTreeDepth(const PlanBreakdown& breakdown);

// Computes the breakdown of `plan` with `evaluator` (which must evaluate against `problem`'s cost model).
// `cancelled`, when given, is polled during the memory walk: once it returns true the result is incomplete
// and should be dropped. Takes tens of milliseconds on small models and seconds on large ones: not on the UI
// thread.
PlanBreakdown computeBreakdown(const ProblemView& problem, cost::Evaluator& evaluator, const plan::Plan& plan,
                               const std::function<bool()>& cancelled = {});

// Bytes and seconds as the explorer writes them ("1.00 MiB", "6.3 us"), for widgets, which do not see the
// engine's formatting.
QString bytesLabel(double bytes);
QString timeLabel(double seconds);
// The mesh axes in set `axes` (bit a: axis a), "data,model".
QString axesLabel(const mesh::Mesh& mesh, std::uint32_t axes);

// A body op in words for lists and tooltips: its label (module path) or mnemonic, "#12 layers.0.attn.q".
QString opText(const ProblemView& problem, std::size_t bodyIndex);

// Computes breakdowns on a worker thread. The newest inspect() wins: an older request still running is
// cancelled, and its result is never reported.
class PlanInspector : public QObject {
    Q_OBJECT

public:
    explicit PlanInspector(QObject* parent = nullptr);
    ~PlanInspector() override;  // cancels and waits for the running computation

    // Drops any breakdown and request of the previous problem.
    void setProblem(std::shared_ptr<const ProblemView> problem);
    const std::shared_ptr<const ProblemView>& problem() const { return problem_; }
    // Starts computing `plan`'s breakdown; returns its generation (what `inspected` carries).
    std::uint64_t inspect(const plan::Plan& plan);
    bool isBusy() const { return busy_; }

signals:
    void inspected(std::shared_ptr<const shardscope::ui::PlanBreakdown> breakdown);
    void failed(const QString& message);

private:
    struct Worker;
    std::shared_ptr<const ProblemView> problem_;
    std::shared_ptr<Worker> worker_;  // the problem's evaluator, shared with the jobs (one at a time)
    bool busy_ = false;
    JobQueue jobs_{"plan breakdown"};
    LatestJob inspections_{jobs_};  // last: destroyed first
};

// The collectives of a breakdown, one row each. SortRole gives numbers; BodyIndexRole the causing op.
class PlanCollectiveModel : public ColumnTableModel<BreakdownCollective> {
    Q_OBJECT

public:
    enum Column { KindColumn, AxesColumn, BytesColumn, TimeColumn, OpColumn, TensorColumn, ColumnCount };
    enum Role { BodyIndexRole = SortRole + 1 };

    explicit PlanCollectiveModel(QObject* parent = nullptr);
    // nullptr empties the table.
    void setBreakdown(std::shared_ptr<const PlanBreakdown> breakdown);

protected:
    QVariant rowData(const BreakdownCollective& row, const QModelIndex& index, int role) const override;
};

// Where the step's time goes: one row per module (the module tree's depth-first order, labels indented by
// depth, times of the whole subtree) or per body op. SortRole gives numbers; BodyIndexRole a row's op (per
// op) or the module's first op (per module; -1 for an empty one); ModuleRole the module index.
class PlanTimeModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum class Grouping : std::uint8_t { Module, Op };
    enum Column {
        NameColumn,
        OpsColumn,
        ComputeColumn,
        CollectivesColumn,
        ExposedColumn,  // the collectives' time the compute stream waits for (OpTime::exposed)
        TotalColumn,
        ShareColumn,
        ColumnCount
    };
    enum Role { BodyIndexRole = SortRole + 1, ModuleRole };

    explicit PlanTimeModel(QObject* parent = nullptr);
    // Shows `breakdown` of a plan of `problem`; a null breakdown empties the table.
    void setBreakdown(std::shared_ptr<const ProblemView> problem,
                      std::shared_ptr<const PlanBreakdown> breakdown);
    void setGrouping(Grouping grouping);
    Grouping grouping() const { return grouping_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const ProblemView> problem_;
    std::shared_ptr<const PlanBreakdown> breakdown_;
    Grouping grouping_ = Grouping::Module;
};

}  // namespace shardscope::ui

Q_DECLARE_METATYPE(std::shared_ptr<const shardscope::ui::PlanBreakdown>)
