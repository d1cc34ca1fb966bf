#include "core/decision_model.h"

#include <utility>
#include <vector>

#include <QLocale>

#include "core/text.h"

namespace shardscope::ui {

QString tensorClassesText(plan::TensorClassMask classes) {
    if ((classes & plan::kAllTensorClasses) == plan::kAllTensorClasses)
        return QObject::tr("all");
    QStringList names;
    for (int c = 0; c < plan::kTensorClassCount; ++c)
        if ((classes >> c) & 1u)
            names << toQString(plan::toString(static_cast<plan::TensorClass>(c)));
    return names.isEmpty() ? QObject::tr("none") : names.join(QStringLiteral(", "));
}

DecisionModel::DecisionModel(QObject* parent) : QAbstractTableModel(parent) {}

void DecisionModel::setProblem(std::shared_ptr<const ProblemView> problem) {
    beginResetModel();
    problem_ = std::move(problem);
    state_.reset();
    rebuild();
    endResetModel();
}

void DecisionModel::setPlanState(std::shared_ptr<const PlanState> state) {
    beginResetModel();
    state_ = std::move(state);
    rebuild();
    endResetModel();
}

void DecisionModel::rebuild() {
    rows_.clear();
    if (!problem_ || !state_)
        return;
    const plan::Plan& plan = state_->plan;
    const auto& context = problem_->problem->costModel->planContext();
    const auto& space = problem_->space();
    const mesh::Mesh& mesh = problem_->mesh();
    auto describe = [&](const plan::Decision& decision, RowDecision which) {
        Row row;
        row.decision = which;
        row.target = toQString(context.targetLabel(decision));
        const auto axis = static_cast<std::size_t>(decision.axis);
        row.axis = axis < mesh.axes.size() ? toQString(mesh.axes[axis].name) : QStringLiteral("?");
        row.classes = tensorClassesText(decision.tensors);
        return row;
    };
    rows_.reserve(plan.decisions.size() + plan.forbidden.size());
    for (std::size_t i = 0; i < plan.decisions.size(); ++i) {
        const plan::Decision& decision = plan.decisions[i];
        Row row = describe(decision, {false, i});
        if (i < plan.pinned)
            row.status = tr("pinned");
        // Every atom a decision targets either takes its axis or becomes one of its competition sites
        // (plan::applyPlan), so counting the targets is enough to know how many were reached. applyPlan
        // ignores a decision on an axis the mesh does not have: it targets nothing.
        const bool onMesh = decision.axis >= 0 && static_cast<std::size_t>(decision.axis) < mesh.axes.size();
        for (const analysis::NameId name :
             onMesh ? context.namesOf(decision) : std::vector<analysis::NameId>{})
            for (const analysis::AtomId atom : context.atomsOf(name)) {
                const auto tensorClass = context.classes()[space.atom(atom).value.index];
                if ((decision.tensors >> static_cast<unsigned>(tensorClass)) & 1u)
                    ++row.targeted;
            }
        rows_.push_back(std::move(row));
    }
    for (const plan::CompetitionSite& site : state_->evaluation.competitions) {
        if (site.decision >= plan.decisions.size())
            continue;
        Row& row = rows_[site.decision];
        switch (site.reason) {
            case plan::CompetitionSite::Reason::AxisInUse:
                ++row.axisInUse;
                break;
            case plan::CompetitionSite::Reason::NotDivisible:
                ++row.notDivisible;
                break;
            case plan::CompetitionSite::Reason::MajorUnsharded:
                ++row.majorUnsharded;
                break;
        }
    }
    for (std::size_t i = 0; i < plan.forbidden.size(); ++i) {
        Row row = describe(plan.forbidden[i], {true, i});
        row.status = tr("forbidden");
        rows_.push_back(std::move(row));
    }
}

std::optional<DecisionModel::RowDecision> DecisionModel::decisionAt(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this || index.parent().isValid() ||
        index.row() >= static_cast<int>(rows_.size()))
        return std::nullopt;
    return rows_[static_cast<std::size_t>(index.row())].decision;
}

const plan::Decision& DecisionModel::decision(const RowDecision& row) const {
    return row.forbidden ? state_->plan.forbidden[row.index] : state_->plan.decisions[row.index];
}

int DecisionModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int DecisionModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DecisionModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = rows_[static_cast<std::size_t>(index.row())];
    const bool forbidden = row.decision.forbidden;
    switch (role) {
        case DecisionIndexRole:
            return static_cast<qulonglong>(row.decision.index);
        case ForbiddenRole:
            return forbidden;
        case PinnedRole:
            return !forbidden && row.decision.index < state_->plan.pinned;
        case Qt::TextAlignmentRole:
            if (index.column() == PriorityColumn || index.column() == ReachedColumn)
                return QVariant(Qt::AlignRight | Qt::AlignVCenter);
            return {};
        case Qt::ToolTipRole:
            if (index.column() == ReachedColumn && !forbidden) {
                if (row.targeted == row.reached())
                    return tr("Every targeted dimension took the axis");
                return tr("%1 of %2 targeted atoms took the axis; the others could not:\n"
                          "axis already in use: %3\nnot divisible: %4\na major atom not fully sharded: %5")
                    .arg(row.reached())
                    .arg(row.targeted)
                    .arg(row.axisInUse)
                    .arg(row.notDivisible)
                    .arg(row.majorUnsharded);
            }
            if (index.column() == StatusColumn && forbidden)
                return tr("The search never adds this decision");
            return {};
        case Qt::DisplayRole:
        case SortRole:
            break;
        default:
            return {};
    }
    const bool sort = role == SortRole;
    switch (index.column()) {
        case PriorityColumn:
            if (forbidden)
                return sort ? QVariant(static_cast<qulonglong>(state_->plan.decisions.size() +
                                                               row.decision.index + 1))
                            : QVariant(QString());
            return static_cast<qulonglong>(row.decision.index + 1);
        case TargetColumn:
            return row.target;
        case AxisColumn:
            return row.axis;
        case ClassesColumn:
            return row.classes;
        case StatusColumn:
            return row.status;
        case ReachedColumn:
            if (forbidden)
                return sort ? QVariant(-1.0) : QVariant(QString());
            if (sort)
                return row.targeted == 0
                           ? 0.0
                           : static_cast<double>(row.reached()) / static_cast<double>(row.targeted);
            return tr("%1 / %2").arg(QLocale().toString(static_cast<qulonglong>(row.reached())),
                                     QLocale().toString(static_cast<qulonglong>(row.targeted)));
        default:
            return {};
    }
}

QVariant DecisionModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
        case PriorityColumn:
            return tr("#");
        case TargetColumn:
            return tr("Target");
        case AxisColumn:
            return tr("Axis");
        case ClassesColumn:
            return tr("Classes");
        case StatusColumn:
            return tr("Status");
        case ReachedColumn:
            return tr("Reached");
        default:
            return {};
    }
}

}  // namespace shardscope::ui
