// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/op_count_model.h"

#include "core/text.h"

namespace shardscope::ui {

OpCountModel::OpCountModel(QObject* parent)
    : ColumnTableModel(
          {
              {.header = tr("Op kind"), .display = [](const OpCountRow& row) { return QVariant(row.kind); }},
              {.header = tr("Count"),
               .display = [](const OpCountRow& row) { return QVariant(row.count); },
               .toolTip = [this](const OpCountRow& row) -> QVariant {
                   if (total_ <= 0)
                       return {};
                   return tr("%1% of all ops")
                       .arg(100.0 * static_cast<double>(row.count) / static_cast<double>(total_), 0, 'f', 1);
               },
               .alignment = Qt::AlignRight | Qt::AlignVCenter},
          },
          parent) {}

void OpCountModel::setProblem(const std::shared_ptr<const ProblemView>& model) {
    beginResetModel();
    rows_.clear();
    total_ = 0;
    if (model) {
        for (const auto& [kind, count] : model->statistics.opsByKind)
            rows_.push_back({toQString(kind), count});
        total_ = model->statistics.opCount;
    }
    endResetModel();
}

}  // namespace shardscope::ui
