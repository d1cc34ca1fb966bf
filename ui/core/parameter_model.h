// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The model's state tensors: what sharding decisions will split across devices.
#pragma once

#include <memory>

#include <QString>

#include "core/column_table_model.h"
#include "core/problem_view.h"

namespace shardscope::ui {

// A row of the ParameterModel: one state tensor.
struct ParameterRow {
    QString name;
    QString role;
    QString shape;
    QString elementType;
    qint64 elements = 0;
    qint64 bytes = 0;
    QString formattedBytes;
    QString location;
};

// One row per graph argument whose role is Parameter or OptimizerState, in argument order. Inputs,
// constants and other arguments are left out. Element counts and byte sizes are formatted text in the
// display role and numbers in SortRole.
class ParameterModel : public ColumnTableModel<ParameterRow> {
    Q_OBJECT

public:
    enum Column {
        NameColumn,
        RoleColumn,
        ShapeColumn,
        ElementTypeColumn,
        ElementsColumn,
        BytesColumn,
        ColumnCount
    };

    explicit ParameterModel(QObject* parent = nullptr);

    // Shows `model`'s parameters; nullptr empties the table.
    void setProblem(const std::shared_ptr<const ProblemView>& model);
};

}  // namespace shardscope::ui
