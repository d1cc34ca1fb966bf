// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// How many ops of each kind a model has.
#pragma once

#include <memory>

#include <QString>

#include "core/column_table_model.h"
#include "core/problem_view.h"

namespace shardscope::ui {

// A row of the OpCountModel.
struct OpCountRow {
    QString kind;
    qint64 count = 0;
};

// One row per op kind (StableHLO mnemonic, or an opaque op's own name), nested regions included, in the
// order of GraphStatistics::opsByKind (by name). Counts are numbers in the display role, so a
// QSortFilterProxyModel sorts them numerically.
class OpCountModel : public ColumnTableModel<OpCountRow> {
    Q_OBJECT

public:
    enum Column { KindColumn, CountColumn, ColumnCount };

    explicit OpCountModel(QObject* parent = nullptr);

    // Shows `model`'s op counts; nullptr empties the table.
    void setProblem(const std::shared_ptr<const ProblemView>& model);

private:
    qint64 total_ = 0;
};

}  // namespace shardscope::ui
