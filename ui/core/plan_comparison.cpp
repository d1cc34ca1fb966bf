// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/plan_comparison.h"

#include <algorithm>
#include <exception>
#include <utility>

#include <QBrush>
#include <QColor>
#include <QFont>

#include "core/name_style.h"
#include "core/text.h"
#include "shardscope/ir/op_kind.h"
#include "shardscope/report/model_report.h"
#include "shardscope/session/comparison.h"

namespace shardscope::ui {

namespace {

PlanFigures figuresOf(const cost::Evaluation& e) {
    return {e.stepTime, e.computeTime, e.collectiveTime, e.peakMemory, e.capacity, e.feasible};
}

// A module holds many ops (a layer norm is a dozen): the label and the mnemonic tell them apart.
QString opLabel(const ir::Op& op) {
    const QString mnemonic = toQString(ir::mnemonic(op.kind));
    if (!op.location.name.empty())
        return QStringLiteral("%1 · %2").arg(toQString(op.location.name), mnemonic);
    return mnemonic;
}

DecisionDifference::Side sideOf(session::DecisionMatch::Side side) {
    switch (side) {
        case session::DecisionMatch::Side::OnlyA:
            return DecisionDifference::Side::OnlyA;
        case session::DecisionMatch::Side::OnlyB:
            return DecisionDifference::Side::OnlyB;
        case session::DecisionMatch::Side::Both:
            break;
    }
    return DecisionDifference::Side::Both;
}

}  // namespace

int PlanComparison::onlyA() const {
    return static_cast<int>(std::count_if(decisions.begin(), decisions.end(), [](const auto& d) {
        return d.side == DecisionDifference::Side::OnlyA;
    }));
}

int PlanComparison::onlyB() const {
    return static_cast<int>(std::count_if(decisions.begin(), decisions.end(), [](const auto& d) {
        return d.side == DecisionDifference::Side::OnlyB;
    }));
}

bool PlanComparison::opDiffers(std::size_t bodyIndex) const {
    return std::any_of(ops.begin(), ops.end(), [&](const auto& op) { return op.bodyIndex == bodyIndex; });
}

QString PlanComparison::timeText(double seconds) {
    return toQString(report::formatTime(seconds));
}

QString PlanComparison::bytesText(double bytes) {
    return toQString(report::formatBytes(bytes));
}

PlanComparison comparePlans(std::shared_ptr<const ProblemView> a, const plan::Plan& planA,
                            const QString& nameA, std::shared_ptr<const ProblemView> b,
                            const plan::Plan& planB, const QString& nameB) {
    // The engine compares (as the CLI's `compare` does); this turns its answer into the view's words.
    const session::Comparison c = session::comparePlans(*a->problem, planA, *b->problem, planB);
    PlanComparison out;
    out.nameA = nameA;
    out.nameB = nameB;
    out.meshA = toQString(a->mesh().toString());
    out.meshB = toQString(b->mesh().toString());
    out.evaluationA = c.evaluationA;
    out.evaluationB = c.evaluationB;
    out.a = figuresOf(c.evaluationA);
    out.b = figuresOf(c.evaluationB);
    for (const auto& d : c.decisions)
        out.decisions.push_back({toQString(d.text), sideOf(d.side), d.positionA, d.positionB});
    for (const auto& k : c.collectives)
        out.collectives.push_back({k.kind, toQString(cost::toString(k.kind)), k.count, k.bytes, k.time});
    if (c.meshesDiffer)
        out.notes << QObject::tr(
                         "The meshes differ (%1 and %2): shardings are compared by axis name, and the "
                         "figures are each for its own mesh.")
                         .arg(out.meshA, out.meshB);
    if (c.hardwareDiffers)
        out.notes << QObject::tr("The hardware differs (%1 and %2).")
                         .arg(toQString(a->problem->hardware.id), toQString(b->problem->hardware.id));
    if (c.graphsDiffer) {
        out.notes << QObject::tr(
            "The graphs differ (another model, other dimensions, or a forward graph against a "
            "training step): shardings are not compared, only decisions and figures.");
        return out;
    }
    out.shardingsCompared = true;
    const ir::Graph& graph = a->graph();
    for (const auto& difference : c.ops) {
        OpShardingDifference row;
        row.bodyIndex = difference.bodyIndex;
        row.values = difference.values;
        row.op = opLabel(graph.ops[graph.body[difference.bodyIndex].index]);
        const ir::ValueId first = row.values.front();
        const auto& type = graph.values[first.index].type;
        row.example = QObject::tr("%1 vs %2")
                          .arg(shardingText(a->space(), a->mesh(), first, type, c.shardingsA[first.index]),
                               shardingText(b->space(), b->mesh(), first, type, c.shardingsB[first.index]));
        out.ops.push_back(std::move(row));
    }
    return out;
}

// -------------------------------------------------------------------------------------------------
// PlanComparer

PlanComparer::PlanComparer(QObject* parent) : QObject(parent) {
    qRegisterMetaType<std::shared_ptr<const PlanComparison>>();
}

PlanComparer::~PlanComparer() = default;  // latest_ goes first: the running comparison reports nothing

void PlanComparer::compare(std::shared_ptr<const ProblemView> a, plan::Plan planA, QString nameA,
                           std::shared_ptr<const ProblemView> b, plan::Plan planB, QString nameB) {
    if (!a || !b)
        return;
    if (!comparing_) {
        comparing_ = true;
        emit comparingChanged(true);
    }
    using Outcome = std::shared_ptr<const PlanComparison>;
    latest_.run(
        [a = std::move(a), planA = std::move(planA), nameA = std::move(nameA), b = std::move(b),
         planB = std::move(planB), nameB = std::move(nameB)]() -> Outcome {
            try {
                auto comparison =
                    std::make_shared<PlanComparison>(comparePlans(a, planA, nameA, b, planB, nameB));
                comparison->problemA = a;
                comparison->problemB = b;
                return comparison;
            } catch (const std::exception&) {
                return nullptr;  // the engine does not throw on valid plans; nothing to show
            }
        },
        [this](Outcome outcome) {
            result_ = std::move(outcome);
            comparing_ = false;
            emit comparingChanged(false);
            if (result_)
                emit compared(result_);
        });
}

void PlanComparer::clear() {
    latest_.cancel();
    result_.reset();
    if (comparing_) {
        comparing_ = false;
        emit comparingChanged(false);
    }
}

// ------------------------------------------------------------------------------------------------------
// models

namespace {

const QColor kOnlyA(0x1f, 0x5f, 0xa8);
const QColor kOnlyB(0xa8, 0x5a, 0x1f);

}  // namespace

DecisionDifferenceModel::DecisionDifferenceModel(QObject* parent) : QAbstractTableModel(parent) {}

void DecisionDifferenceModel::setComparison(std::shared_ptr<const PlanComparison> comparison) {
    beginResetModel();
    comparison_ = std::move(comparison);
    endResetModel();
}

int DecisionDifferenceModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !comparison_ ? 0 : static_cast<int>(comparison_->decisions.size());
}

int DecisionDifferenceModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DecisionDifferenceModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !comparison_ || index.row() >= rowCount())
        return {};
    const auto& row = comparison_->decisions[static_cast<std::size_t>(index.row())];
    auto position = [](int p) { return p < 0 ? QString() : QObject::tr("#%1").arg(p + 1); };
    switch (role) {
        case Qt::DisplayRole:
            switch (index.column()) {
                case DecisionColumn:
                    return row.text;
                case InAColumn:
                    return row.positionA < 0 ? tr("—") : position(row.positionA);
                case InBColumn:
                    return row.positionB < 0 ? tr("—") : position(row.positionB);
            }
            return {};
        case SortRole:
            switch (index.column()) {
                case DecisionColumn:
                    return row.text;
                case InAColumn:
                    return row.positionA;
                case InBColumn:
                    return row.positionB;
            }
            return {};
        case Qt::ForegroundRole:
            if (row.side == DecisionDifference::Side::OnlyA)
                return QBrush(kOnlyA);
            if (row.side == DecisionDifference::Side::OnlyB)
                return QBrush(kOnlyB);
            return QBrush(QColor(0x70, 0x70, 0x70));
        case Qt::ToolTipRole:
            switch (row.side) {
                case DecisionDifference::Side::Both:
                    return tr("Both plans take this decision");
                case DecisionDifference::Side::OnlyA:
                    return tr("Only %1 takes this decision").arg(comparison_->nameA);
                case DecisionDifference::Side::OnlyB:
                    return tr("Only %1 takes this decision").arg(comparison_->nameB);
            }
            return {};
        case Qt::FontRole:
            if (row.side != DecisionDifference::Side::Both) {
                QFont font;
                font.setBold(true);
                return font;
            }
            return {};
        default:
            return {};
    }
}

QVariant DecisionDifferenceModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::ToolTipRole && section != DecisionColumn && comparison_)
        return tr("The decision's place in %1")
            .arg(section == InAColumn ? comparison_->nameA : comparison_->nameB);
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
        case DecisionColumn:
            return tr("Decision");
        case InAColumn:
            return tr("In A");
        case InBColumn:
            return tr("In B");
    }
    return {};
}

CollectiveDifferenceModel::CollectiveDifferenceModel(QObject* parent) : QAbstractTableModel(parent) {}

void CollectiveDifferenceModel::setComparison(std::shared_ptr<const PlanComparison> comparison) {
    beginResetModel();
    comparison_ = std::move(comparison);
    endResetModel();
}

int CollectiveDifferenceModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !comparison_ ? 0 : static_cast<int>(comparison_->collectives.size());
}

int CollectiveDifferenceModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CollectiveDifferenceModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !comparison_ || index.row() >= rowCount())
        return {};
    const auto& row = comparison_->collectives[static_cast<std::size_t>(index.row())];
    const int column = index.column();
    const std::size_t side =
        (column == CountBColumn || column == BytesBColumn || column == TimeBColumn) ? 1 : 0;
    if (role == Qt::DisplayRole) {
        switch (column) {
            case KindColumn:
                return row.name;
            case CountAColumn:
            case CountBColumn:
                return QString::number(row.count[side]);
            case BytesAColumn:
            case BytesBColumn:
                return PlanComparison::bytesText(row.bytes[side]);
            case TimeAColumn:
            case TimeBColumn:
                return PlanComparison::timeText(row.time[side]);
        }
        return {};
    }
    if (role == SortRole) {
        switch (column) {
            case KindColumn:
                return static_cast<int>(row.kind);
            case CountAColumn:
            case CountBColumn:
                return row.count[side];
            case BytesAColumn:
            case BytesBColumn:
                return row.bytes[side];
            case TimeAColumn:
            case TimeBColumn:
                return row.time[side];
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole && column != KindColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && column != KindColumn && row.count[0] != row.count[1])
        return QBrush(side == 0 ? kOnlyA : kOnlyB);
    return {};
}

QVariant CollectiveDifferenceModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    // Short headers (plan names can be long); the tooltip names the plan.
    const bool b = section == CountBColumn || section == BytesBColumn || section == TimeBColumn;
    if (role == Qt::ToolTipRole && section != KindColumn && comparison_)
        return b ? comparison_->nameB : comparison_->nameA;
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
        case KindColumn:
            return tr("Kind");
        case CountAColumn:
            return tr("Count A");
        case CountBColumn:
            return tr("Count B");
        case BytesAColumn:
            return tr("Bytes A");
        case BytesBColumn:
            return tr("Bytes B");
        case TimeAColumn:
            return tr("Time A");
        case TimeBColumn:
            return tr("Time B");
    }
    return {};
}

ShardingDifferenceModel::ShardingDifferenceModel(QObject* parent) : QAbstractTableModel(parent) {}

void ShardingDifferenceModel::setComparison(std::shared_ptr<const PlanComparison> comparison) {
    beginResetModel();
    comparison_ = std::move(comparison);
    endResetModel();
}

int ShardingDifferenceModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !comparison_ ? 0 : static_cast<int>(comparison_->ops.size());
}

int ShardingDifferenceModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ShardingDifferenceModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !comparison_ || index.row() >= rowCount())
        return {};
    const auto& row = comparison_->ops[static_cast<std::size_t>(index.row())];
    switch (role) {
        case Qt::DisplayRole:
            switch (index.column()) {
                case OpColumn:
                    return row.op;
                case ValuesColumn:
                    return QString::number(row.values.size());
                case ExampleColumn:
                    return row.example;
            }
            return {};
        case SortRole:
            switch (index.column()) {
                case OpColumn:
                    return QVariant::fromValue<qulonglong>(row.bodyIndex);
                case ValuesColumn:
                    return static_cast<int>(row.values.size());
                case ExampleColumn:
                    return row.example;
            }
            return {};
        case BodyIndexRole:
            return QVariant::fromValue<qulonglong>(row.bodyIndex);
        case Qt::ToolTipRole:
            if (index.column() == ExampleColumn)
                return row.example;
            return tr("Op #%1 %2: click to show it on the graph").arg(row.bodyIndex).arg(row.op);
        default:
            return {};
    }
}

QVariant ShardingDifferenceModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
        case OpColumn:
            return tr("Op");
        case ValuesColumn:
            return tr("Values");
        case ExampleColumn:
            return tr("First difference (A vs B)");
    }
    return {};
}

}  // namespace shardscope::ui
