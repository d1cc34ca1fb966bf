// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/plan_breakdown.h"

#include <algorithm>
#include <exception>
#include <utility>

#include <QCoreApplication>
#include <QLocale>

#include "core/remat_choices.h"
#include "core/text.h"
#include "shardscope/report/model_report.h"

namespace shardscope::ui {

namespace {

QString bytesText(double bytes) {
    return toQString(report::formatBytes(bytes));
}
QString timeText(double seconds) {
    return toQString(report::formatTime(seconds));
}

void appendModules(const ModuleTree& tree, int module, int depth, std::vector<ModuleTime>& out) {
    out.push_back({module, depth, tree.modules[static_cast<std::size_t>(module)].opCount, 0, 0, 0, 0});
    for (int child : tree.modules[static_cast<std::size_t>(module)].children)
        appendModules(tree, child, depth + 1, out);
}

// OpTime::exposed of every op from the evaluation's schedule: the compute stream's idle time before each
// kernel, and after the last one until the schedule's last transfer ends.
void exposedCommunication(const cost::Evaluation& e, const std::vector<std::size_t>& bodyIndexOfOp,
                          std::vector<OpTime>& ops) {
    std::vector<std::size_t> kernels;
    for (std::size_t i = 0; i < ops.size(); ++i)
        if (ops[i].compute > 0)
            kernels.push_back(i);
    const auto startOf = [&](std::size_t i) { return i < e.opStart.size() ? e.opStart[i] : 0.0; };
    std::stable_sort(kernels.begin(), kernels.end(),
                     [&](std::size_t a, std::size_t b) { return startOf(a) < startOf(b); });
    double cursor = 0;
    for (std::size_t i : kernels) {
        ops[i].exposed += std::max(0.0, startOf(i) - cursor);
        cursor = std::max(cursor, startOf(i) + ops[i].compute);
    }
    double lastEnd = cursor;
    std::size_t lastOp = ops.size();
    for (std::size_t j = 0; j < e.collectives.size() && j < e.collectiveEnd.size(); ++j) {
        if (e.collectiveEnd[j] <= lastEnd)
            continue;
        const std::uint32_t op = e.collectives[j].op.index;
        if (op < bodyIndexOfOp.size() && bodyIndexOfOp[op] < ops.size()) {
            lastEnd = e.collectiveEnd[j];
            lastOp = bodyIndexOfOp[op];
        }
    }
    if (lastOp < ops.size())
        ops[lastOp].exposed += lastEnd - cursor;
}

}  // namespace

QString axesLabel(const mesh::Mesh& mesh, std::uint32_t axes) {
    QStringList names;
    for (std::size_t a = 0; a < mesh.axes.size(); ++a)
        if ((axes >> a) & 1u)
            names.append(toQString(mesh.axes[a].name));
    return names.join(u',');
}

QString bytesLabel(double bytes) {
    return bytesText(bytes);
}

QString timeLabel(double seconds) {
    return timeText(seconds);
}

QString opText(const ProblemView& problem, std::size_t bodyIndex) {
    const auto& graph = problem.graph();
    if (bodyIndex >= graph.body.size())
        return {};
    const ir::Op& op = graph.op(graph.body[bodyIndex]);
    const QString what =
        op.location.name.empty() ? toQString(ir::mnemonic(op.kind)) : toQString(op.location.name);
    return QStringLiteral("#%1 %2").arg(bodyIndex).arg(what);
}

PlanBreakdown computeBreakdown(const ProblemView& problem, cost::Evaluator& evaluator, const plan::Plan& plan,
                               const std::function<bool()>& cancelled) {
    const ir::Graph& graph = problem.graph();
    PlanBreakdown out;
    out.plan = plan;
    out.label = toQString(plan.label);
    out.evaluation = evaluator.evaluate(plan);
    const cost::Evaluation& e = out.evaluation;
    const std::size_t n = graph.body.size();

    std::vector<std::size_t> bodyIndexOfOp(graph.ops.size(), n);
    for (std::size_t i = 0; i < n; ++i)
        bodyIndexOfOp[graph.body[i].index] = i;

    out.ops.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        out.ops[i].bodyIndex = i;
        out.ops[i].compute = i < e.opComputeTime.size() ? e.opComputeTime[i] : 0;
    }
    exposedCommunication(e, bodyIndexOfOp, out.ops);
    out.collectives.reserve(e.collectives.size());
    for (const cost::Collective& c : e.collectives) {
        BreakdownCollective row;
        row.kind = c.kind;
        row.axes = axesLabel(problem.mesh(), c.axes);
        row.bytes = c.bytes;
        row.time = c.time;
        row.bodyIndex = c.op.index < bodyIndexOfOp.size() ? bodyIndexOfOp[c.op.index] : n;
        if (row.bodyIndex >= n)
            row.bodyIndex =
                0;  // the engine attributes collectives to top-level ops; keep a valid index anyway
        row.opLabel = opText(problem, row.bodyIndex);
        if (c.value.index < graph.values.size())
            row.tensor = toQString(graph.type(c.value).toString());
        OpTime& op = out.ops[row.bodyIndex];
        op.collectives += c.time;
        ++op.collectiveCount;
        out.collectives.push_back(std::move(row));
    }

    MemoryOverStep& memory = out.memory;
    memory.opCount = n;
    memory.capacity = e.capacity;
    memory.peak = e.peakMemory;
    memory.peakOp = e.peakOp;
    memory.atPeak = e.atPeak;
    if (n <= kMemorySamples) {
        memory.ops.resize(n);
        for (std::size_t i = 0; i < n; ++i)
            memory.ops[i] = i;
    } else {
        for (std::size_t s = 0; s < kMemorySamples; ++s)
            memory.ops.push_back(s * (n - 1) / (kMemorySamples - 1));
        memory.ops.push_back(e.peakOp);
        std::sort(memory.ops.begin(), memory.ops.end());
        memory.ops.erase(std::unique(memory.ops.begin(), memory.ops.end()), memory.ops.end());
    }
    // The plan without its remat first (the evaluator keeps the last plan's state for liveAt): what the
    // recompute costs per op and what it saves in memory.
    if (!rematPoints(problem, plan).empty()) {
        plan::Plan bare = plan;
        bare.remat.clear();
        const cost::Evaluation& without = evaluator.evaluate(bare);
        memory.peakWithoutRemat = without.peakMemory;
        for (std::size_t i = 0; i < n && i < without.opComputeTime.size(); ++i)
            out.ops[i].recompute = std::max(0.0, out.ops[i].compute - without.opComputeTime[i]);
        memory.withoutRemat.reserve(memory.ops.size());
        for (std::size_t op : memory.ops) {
            if (cancelled && cancelled())
                return out;
            memory.withoutRemat.push_back(evaluator.liveAt(op).total());
        }
        evaluator.evaluate(plan);
    }
    // Modules: self times from their own ops, subtree times summed bottom-up (children come after parents).
    const ModuleTree& tree = problem.modules;
    if (!tree.modules.empty()) {
        appendModules(tree, 0, 0, out.modules);
        std::vector<std::size_t> rowOfModule(tree.modules.size(), 0);
        for (std::size_t r = 0; r < out.modules.size(); ++r)
            rowOfModule[static_cast<std::size_t>(out.modules[r].module)] = r;
        for (std::size_t i = 0; i < n && i < tree.moduleOfOp.size(); ++i) {
            ModuleTime& m = out.modules[rowOfModule[static_cast<std::size_t>(tree.moduleOfOp[i])]];
            m.selfCompute += out.ops[i].compute;
            m.selfCollectives += out.ops[i].collectives;
            m.selfExposed += out.ops[i].exposed;
            m.recompute += out.ops[i].recompute;
        }
        for (ModuleTime& m : out.modules) {
            m.compute = m.selfCompute;
            m.collectives = m.selfCollectives;
            m.exposed = m.selfExposed;
        }
        for (std::size_t r = out.modules.size(); r-- > 1;) {
            const int parent = tree.modules[static_cast<std::size_t>(out.modules[r].module)].parent;
            if (parent < 0)
                continue;
            ModuleTime& p = out.modules[rowOfModule[static_cast<std::size_t>(parent)]];
            p.compute += out.modules[r].compute;
            p.collectives += out.modules[r].collectives;
            p.exposed += out.modules[r].exposed;
            p.recompute += out.modules[r].recompute;
        }
    }

    memory.bytes.reserve(memory.ops.size());
    memory.parts.reserve(memory.ops.size());
    for (std::size_t op : memory.ops) {
        if (cancelled && cancelled())
            break;
        const cost::MemoryBreakdown live = evaluator.liveAt(op);
        memory.parts.push_back(live);
        memory.bytes.push_back(live.total());
    }
    return out;
}

namespace {

long long firstOpOf(const ModuleTree& tree, int module, bool ownOnly) {
    long long first = -1;
    const Module& node = tree.modules[static_cast<std::size_t>(module)];
    if (!node.ops.empty())
        first = static_cast<long long>(node.ops.front());
    if (ownOnly)
        return first;
    for (int child : node.children) {
        const long long c = firstOpOf(tree, child, false);
        if (c >= 0 && (first < 0 || c < first))
            first = c;
    }
    return first;
}

}  // namespace

std::vector<ModuleTimeBar> moduleTimeBars(const ProblemView& problem, const PlanBreakdown& breakdown,
                                          int depth) {
    std::vector<ModuleTimeBar> out;
    const ModuleTree& tree = problem.modules;
    for (const ModuleTime& m : breakdown.modules) {
        if (m.depth > depth || m.module < 0 || static_cast<std::size_t>(m.module) >= tree.modules.size())
            continue;
        const Module& node = tree.modules[static_cast<std::size_t>(m.module)];
        ModuleTimeBar bar;
        bar.module = m.module;
        bar.depth = m.depth;
        bar.ownOps = m.depth < depth && !node.children.empty();
        if (bar.ownOps) {
            bar.compute = m.selfCompute;
            bar.exposed = m.selfExposed;
            bar.collectives = m.selfCollectives;
            for (std::size_t i : node.ops)
                bar.recompute += i < breakdown.ops.size() ? breakdown.ops[i].recompute : 0;
            bar.label = node.path.isEmpty()
                            ? QCoreApplication::translate("PlanBreakdown", "(outside modules)")
                            : QCoreApplication::translate("PlanBreakdown", "%1 (other ops)").arg(node.path);
        } else {
            bar.compute = m.compute;
            bar.exposed = m.exposed;
            bar.collectives = m.collectives;
            bar.recompute = m.recompute;
            bar.label = node.path.isEmpty() ? QCoreApplication::translate("PlanBreakdown", "(whole step)")
                                            : node.path;
        }
        bar.firstOp = firstOpOf(tree, m.module, bar.ownOps);
        if (bar.total() > 0 || bar.collectives > 0)
            out.push_back(std::move(bar));
    }
    return out;
}

int moduleTreeDepth(const PlanBreakdown& breakdown) {
    int deepest = 0;
    for (const ModuleTime& m : breakdown.modules)
        deepest = std::max(deepest, m.depth);
    return deepest;
}

// The evaluation side of one problem, shared with the jobs: one job at a time (on jobs_) on one Evaluator, so
// a plan close to the previous one is evaluated incrementally.
struct PlanInspector::Worker {
    explicit Worker(std::shared_ptr<const ProblemView> p)
        : problem(std::move(p)), evaluator(*problem->problem->costModel) {}
    std::shared_ptr<const ProblemView> problem;
    cost::Evaluator evaluator;
};

namespace {

struct Outcome {
    std::shared_ptr<const PlanBreakdown> breakdown;  // nullptr when superseded or failed
    QString error;
};

}  // namespace

PlanInspector::PlanInspector(QObject* parent) : QObject(parent) {
    qRegisterMetaType<std::shared_ptr<const PlanBreakdown>>();
}

// inspections_ goes first: the running job stops its memory walk, and jobs_ waits for it.
PlanInspector::~PlanInspector() = default;

void PlanInspector::setProblem(std::shared_ptr<const ProblemView> problem) {
    inspections_.cancel();
    problem_ = std::move(problem);
    worker_ = problem_ ? std::make_shared<Worker>(problem_) : nullptr;
    busy_ = false;
}

std::uint64_t PlanInspector::inspect(const plan::Plan& plan) {
    if (!worker_)
        return inspections_.next().generation();  // nothing to compute, but it supersedes like any request
    busy_ = true;
    return inspections_.run(
        [worker = worker_, plan](const LatestJob::Token& token) -> Outcome {
            try {
                auto breakdown = std::make_shared<PlanBreakdown>(computeBreakdown(
                    *worker->problem, worker->evaluator, plan, [&token] { return token.superseded(); }));
                if (token.superseded())
                    return {};
                breakdown->generation = token.generation();
                return {std::move(breakdown), {}};
            } catch (const std::exception& e) {
                return {nullptr, tr("Cannot break the plan down: %1").arg(QString::fromLocal8Bit(e.what()))};
            }
        },
        [this](const Outcome& outcome) {
            busy_ = false;
            if (outcome.breakdown)
                emit inspected(outcome.breakdown);
            else if (!outcome.error.isEmpty())
                emit failed(outcome.error);
        });
}

// --- PlanCollectiveModel ---

namespace {

// A column whose tooltip repeats the cell (the table is narrow, its labels long).
TableColumn<BreakdownCollective> withToolTip(TableColumn<BreakdownCollective> column) {
    column.toolTip = column.display;
    return column;
}

}  // namespace

PlanCollectiveModel::PlanCollectiveModel(QObject* parent)
    : ColumnTableModel(
          {
              withToolTip({.header = tr("Collective"),
                           .display =
                               [](const BreakdownCollective& c) {
                                   return QVariant(toQString(cost::toString(c.kind)));
                               }}),
              withToolTip({.header = tr("Axes"),
                           .display = [](const BreakdownCollective& c) { return QVariant(c.axes); }}),
              withToolTip(
                  {.header = tr("Bytes"),
                   .display = [](const BreakdownCollective& c) { return QVariant(bytesText(c.bytes)); },
                   .sort = [](const BreakdownCollective& c) { return QVariant(c.bytes); },
                   .alignment = Qt::AlignRight | Qt::AlignVCenter}),
              withToolTip({.header = tr("Time"),
                           .display = [](const BreakdownCollective& c) { return QVariant(timeText(c.time)); },
                           .sort = [](const BreakdownCollective& c) { return QVariant(c.time); },
                           .alignment = Qt::AlignRight | Qt::AlignVCenter}),
              withToolTip({.header = tr("Caused by"),
                           .display = [](const BreakdownCollective& c) { return QVariant(c.opLabel); },
                           .sort =
                               [](const BreakdownCollective& c) {
                                   return QVariant::fromValue<qulonglong>(c.bodyIndex);
                               }}),
              withToolTip({.header = tr("Tensor"),
                           .display = [](const BreakdownCollective& c) { return QVariant(c.tensor); }}),
          },
          parent) {}

void PlanCollectiveModel::setBreakdown(std::shared_ptr<const PlanBreakdown> breakdown) {
    resetRows(breakdown ? breakdown->collectives : std::vector<BreakdownCollective>());
}

QVariant PlanCollectiveModel::rowData(const BreakdownCollective& row, const QModelIndex& index,
                                      int role) const {
    Q_UNUSED(index);
    return role == BodyIndexRole ? QVariant::fromValue<qulonglong>(row.bodyIndex) : QVariant();
}

// --- PlanTimeModel ---

PlanTimeModel::PlanTimeModel(QObject* parent) : QAbstractTableModel(parent) {}

void PlanTimeModel::setBreakdown(std::shared_ptr<const ProblemView> problem,
                                 std::shared_ptr<const PlanBreakdown> breakdown) {
    beginResetModel();
    problem_ = std::move(problem);
    breakdown_ = problem_ ? std::move(breakdown) : nullptr;
    endResetModel();
}

void PlanTimeModel::setGrouping(Grouping grouping) {
    if (grouping == grouping_)
        return;
    beginResetModel();
    grouping_ = grouping;
    endResetModel();
}

int PlanTimeModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !breakdown_)
        return 0;
    return static_cast<int>(grouping_ == Grouping::Module ? breakdown_->modules.size()
                                                          : breakdown_->ops.size());
}

int PlanTimeModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PlanTimeModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !breakdown_)
        return {};
    const auto row = static_cast<std::size_t>(index.row());
    QString name;
    qlonglong ops = 1, bodyIndex = -1;
    int module = -1;
    double compute = 0, collectives = 0, exposed = 0;
    if (grouping_ == Grouping::Module) {
        const ModuleTime& m = breakdown_->modules[row];
        const Module& tree = problem_->modules.modules[static_cast<std::size_t>(m.module)];
        const QString label = tree.path.isEmpty() ? tr("(whole step)") : tree.path;
        name = QString(m.depth * 2, u' ') + label;
        ops = static_cast<qlonglong>(m.ops);
        module = m.module;
        compute = m.compute;
        collectives = m.collectives;
        exposed = m.exposed;
        // The module's first op in program order (as its bar in the chart finds it).
        bodyIndex = static_cast<qlonglong>(firstOpOf(problem_->modules, m.module, false));
        if (role == SortRole && index.column() == NameColumn)
            return static_cast<int>(row);  // sorting by name keeps the tree's order
        if (role == Qt::ToolTipRole && index.column() == NameColumn)
            return tr("%1: compute %2 of its own ops, %3 with its submodules")
                .arg(label, timeText(m.selfCompute), timeText(m.compute));
    } else {
        const OpTime& op = breakdown_->ops[row];
        name = opText(*problem_, op.bodyIndex);
        bodyIndex = static_cast<qlonglong>(op.bodyIndex);
        module = op.bodyIndex < problem_->modules.moduleOfOp.size()
                     ? problem_->modules.moduleOfOp[op.bodyIndex]
                     : -1;
        compute = op.compute;
        collectives = op.collectives;
        exposed = op.exposed;
        if (role == SortRole && index.column() == NameColumn)
            return bodyIndex;
    }
    if (role == BodyIndexRole)
        return bodyIndex;
    if (role == ModuleRole)
        return module;
    const double total = compute + collectives;
    const double step = breakdown_->evaluation.computeTime + breakdown_->evaluation.collectiveTime;
    const double share = step > 0 ? total / step : 0;
    const bool sort = role == SortRole;
    if (role == Qt::TextAlignmentRole)
        return index.column() == NameColumn ? QVariant() : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    if (role != Qt::DisplayRole && !sort)
        return {};
    switch (index.column()) {
        case NameColumn:
            return name;
        case OpsColumn:
            return ops;
        case ComputeColumn:
            return sort ? QVariant(compute) : QVariant(timeText(compute));
        case CollectivesColumn:
            return sort ? QVariant(collectives) : QVariant(timeText(collectives));
        case ExposedColumn:
            return sort ? QVariant(exposed) : QVariant(timeText(exposed));
        case TotalColumn:
            return sort ? QVariant(total) : QVariant(timeText(total));
        case ShareColumn:
            return sort ? QVariant(share) : QVariant(QLocale().toString(100 * share, 'f', 1) + u'%');
        default:
            return {};
    }
}

QVariant PlanTimeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == ExposedColumn)
        return tr(
            "Communication the compute stream waits for, idle: the part of the collectives not hidden "
            "under compute");
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
        case NameColumn:
            return grouping_ == Grouping::Module ? tr("Module") : tr("Op");
        case OpsColumn:
            return tr("Ops");
        case ComputeColumn:
            return tr("Compute");
        case CollectivesColumn:
            return tr("Collectives");
        case ExposedColumn:
            return tr("Exposed");
        case TotalColumn:
            return tr("Total");
        case ShareColumn:
            return tr("Share");
        default:
            return {};
    }
}

}  // namespace shardscope::ui
