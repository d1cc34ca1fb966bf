// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/decision_model.h"

#include <utility>
#include <vector>

#include <QLocale>

#include "core/glossary.h"
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

DecisionModel::DecisionModel(QObject* parent)
    : ColumnTableModel(
          {
              {.header = tr("#"),
               .display =
                   [](const DecisionRow& row) {
                       return row.decision.forbidden || row.decision.resolution
                                  ? QVariant(QString())
                                  : QVariant(static_cast<qulonglong>(row.decision.index + 1));
                   },
               .sort =
                   [this](const DecisionRow& row) {
                       // Forbidden rows sort after the decisions, conflict choices last.
                       const std::size_t before = row.decision.resolution ? state_->plan.decisions.size() +
                                                                                state_->plan.forbidden.size()
                                                  : row.decision.forbidden ? state_->plan.decisions.size()
                                                                           : 0;
                       return QVariant(static_cast<qulonglong>(before + row.decision.index + 1));
                   },
               .alignment = Qt::AlignRight | Qt::AlignVCenter},
              {.header = tr("Target"),
               .display = [](const DecisionRow& row) { return QVariant(row.target); }},
              {.header = tr("Axis"), .display = [](const DecisionRow& row) { return QVariant(row.axis); }},
              {.header = tr("Classes"),
               .display = [](const DecisionRow& row) { return QVariant(row.classes); }},
              {.header = tr("Status"),
               .display = [](const DecisionRow& row) { return QVariant(row.status); },
               .toolTip =
                   [](const DecisionRow& row) {
                       if (row.decision.resolution)
                           return QVariant(
                               tr("A conflict choice: where a tensor carries the name on several "
                                  "dimensions, this one takes the name's axis"));
                       return row.decision.forbidden ? QVariant(tr("The search never adds this decision"))
                                                     : QVariant();
                   }},
              {.header = tr("Reached"),
               .display = [](const DecisionRow& row) -> QVariant {
                   if (row.decision.forbidden || row.decision.resolution)
                       return QString();
                   return tr("%1 / %2").arg(QLocale().toString(static_cast<qulonglong>(row.reached())),
                                            QLocale().toString(static_cast<qulonglong>(row.targeted)));
               },
               .sort = [](const DecisionRow& row) -> QVariant {
                   if (row.decision.forbidden || row.decision.resolution)
                       return -1.0;
                   return row.targeted == 0
                              ? 0.0
                              : static_cast<double>(row.reached()) / static_cast<double>(row.targeted);
               },
               .toolTip = [](const DecisionRow& row) -> QVariant {
                   if (row.decision.forbidden || row.decision.resolution)
                       return {};
                   if (row.targeted == row.reached())
                       return withGlossary(tr("Sharded everywhere the decision applies"),
                                           QStringLiteral("atoms"));
                   return withGlossary(
                       tr("Sharded in %1 of the %2 places the decision applies to; elsewhere it stays "
                          "whole:\n"
                          "the axis is already used on that tensor: %3\n"
                          "the size does not divide by the devices: %4\n"
                          "the part before it in the same dimension is not split all the way: %5")
                           .arg(row.reached())
                           .arg(row.targeted)
                           .arg(row.axisInUse)
                           .arg(row.notDivisible)
                           .arg(row.majorUnsharded),
                       QStringLiteral("atoms"));
               },
               .alignment = Qt::AlignRight | Qt::AlignVCenter},
          },
          parent) {}

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
        DecisionRow row;
        row.decision = which;
        row.target = toQString(context.targetLabel(decision));
        const auto axis = static_cast<std::size_t>(decision.axis);
        row.axis = axis < mesh.axes.size() ? toQString(mesh.axes[axis].name) : QStringLiteral("?");
        row.classes = tensorClassesText(decision.tensors);
        return row;
    };
    rows_.reserve(plan.decisions.size() + plan.forbidden.size() + plan.resolutions.size());
    for (std::size_t i = 0; i < plan.decisions.size(); ++i) {
        const plan::Decision& decision = plan.decisions[i];
        DecisionRow row = describe(decision, {.forbidden = false, .index = i});
        if (i < plan.pinned)
            row.status = tr("pinned");
        // Every atom a decision targets either takes its axis or becomes one of its competition sites
        // (plan::applyPlan), so counting the targets is enough to know how many were reached. applyPlan
        // ignores a decision on an axis the mesh does not have: it targets nothing.
        const bool onMesh = decision.axis >= 0 && static_cast<std::size_t>(decision.axis) < mesh.axes.size();
        for (const analysis::NameId name :
             onMesh ? context.namesOf(decision) : std::vector<analysis::NameId>{})
            for (std::uint32_t begin = 0; const auto& run : context.valueRunsOf(name)) {
                if ((decision.tensors >> static_cast<unsigned>(run.tensorClass)) & 1u)
                    row.targeted += run.end - begin;
                begin = run.end;
            }
        rows_.push_back(std::move(row));
    }
    for (const plan::CompetitionSite& site : state_->evaluation.competitions) {
        if (site.decision >= plan.decisions.size())
            continue;
        DecisionRow& row = rows_[site.decision];
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
        DecisionRow row = describe(plan.forbidden[i], {.forbidden = true, .index = i});
        row.status = tr("forbidden");
        rows_.push_back(std::move(row));
    }
    for (std::size_t i = 0; i < plan.resolutions.size(); ++i) {
        const plan::Resolution& resolution = plan.resolutions[i];
        if (resolution.name.index >= space.names.size())
            continue;
        DecisionRow row;
        row.decision = {.resolution = true, .index = i};
        row.target = toQString(space.name(resolution.name).label);
        row.axis = tr("dimension %1").arg(resolution.dimension + 1);
        row.status = tr("conflict choice");
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

QVariant DecisionModel::rowData(const DecisionRow& row, const QModelIndex& index, int role) const {
    Q_UNUSED(index);
    switch (role) {
        case DecisionIndexRole:
            return static_cast<qulonglong>(row.decision.index);
        case ForbiddenRole:
            return row.decision.forbidden;
        case PinnedRole:
            return !row.decision.forbidden && !row.decision.resolution &&
                   row.decision.index < state_->plan.pinned;
        case ResolutionRole:
            return row.decision.resolution;
        default:
            return {};
    }
}

}  // namespace shardscope::ui
