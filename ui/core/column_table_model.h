// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A flat table model described column by column: what ui/core's table models have in common.
#pragma once

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include <QAbstractTableModel>
#include <QString>
#include <QVariant>

#include "core/problem_view.h"

namespace shardscope::ui {

// One column of a ColumnTableModel<Row>: its header and what each role shows for a row. Unset functions show
// nothing (an invalid QVariant), except `sort`, which falls back to `display`.
template <typename Row>
struct TableColumn {
    // (Every member has an initializer, so designated initializers may leave any out. `f{}`, not `f = {}`:
    // GCC 12 crashes on the latter for a std::function member of a class template.)
    QString header{};                               // Qt::DisplayRole of the horizontal header
    QString headerToolTip{};                        // Qt::ToolTipRole of the horizontal header ("" for none)
    std::function<QVariant(const Row&)> display{};  // Qt::DisplayRole: text, or a number shown as it is
    std::function<QVariant(const Row&)> sort{};     // SortRole: what a proxy sorts by (numbers as numbers)
    std::function<QVariant(const Row&)> toolTip{};  // Qt::ToolTipRole
    Qt::Alignment alignment{};                      // Qt::TextAlignmentRole (as an int) when set
};

// A QAbstractTableModel over a vector of rows, one row each, described by a list of TableColumns. Subclasses
// (the Q_OBJECT class that names the columns, Row declared before it) fill `rows_` between the usual
// begin/end calls of QAbstractItemModel, or through resetRows(), and answer their own roles in rowData():
// roles other than Qt::DisplayRole, SortRole, Qt::ToolTipRole and Qt::TextAlignmentRole, which the columns
// answer.
//
//     struct FruitRow {
//         QString name;
//         double kilos = 0;
//     };
//     class FruitModel : public ColumnTableModel<FruitRow> {
//         Q_OBJECT
//     public:
//         explicit FruitModel(QObject* parent = nullptr)
//             : ColumnTableModel(
//                   {{.header = tr("Fruit"), .display = [](const FruitRow& r) { return QVariant(r.name); }},
//                    {.header = tr("Weight"),
//                     .display = [](const FruitRow& r) { return QVariant(tr("%1 kg").arg(r.kilos)); },
//                     .sort = [](const FruitRow& r) { return QVariant(r.kilos); },
//                     .alignment = Qt::AlignRight | Qt::AlignVCenter}},
//                   parent) {}
//     };
template <typename Row>
class ColumnTableModel : public QAbstractTableModel {
public:
    using Column = TableColumn<Row>;

    int rowCount(const QModelIndex& parent = {}) const override {
        return parent.isValid() ? 0 : static_cast<int>(rows_.size());
    }
    int columnCount(const QModelIndex& parent = {}) const override {
        return parent.isValid() ? 0 : static_cast<int>(columns_.size());
    }

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override {
        if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
            return {};
        const Row& row = rows_[static_cast<std::size_t>(index.row())];
        const Column& column = columns_[static_cast<std::size_t>(index.column())];
        switch (role) {
            case Qt::DisplayRole:
                return call(column.display, row);
            case SortRole:
                return column.sort ? column.sort(row) : call(column.display, row);
            case Qt::ToolTipRole:
                return call(column.toolTip, row);
            case Qt::TextAlignmentRole:
                return column.alignment ? QVariant(static_cast<int>(column.alignment)) : QVariant();
            default:
                return rowData(row, index, role);
        }
    }

    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override {
        if (orientation != Qt::Horizontal || section < 0 || section >= static_cast<int>(columns_.size()))
            return {};
        const Column& column = columns_[static_cast<std::size_t>(section)];
        if (role == Qt::DisplayRole)
            return column.header;
        if (role == Qt::ToolTipRole && !column.headerToolTip.isEmpty())
            return column.headerToolTip;
        return {};
    }

protected:
    ColumnTableModel(std::vector<Column> columns, QObject* parent)
        : QAbstractTableModel(parent), columns_(std::move(columns)) {}

    // Any other role of the cell at `index` (whose row is `row`); nothing by default.
    virtual QVariant rowData(const Row& row, const QModelIndex& index, int role) const {
        Q_UNUSED(row);
        Q_UNUSED(index);
        Q_UNUSED(role);
        return {};
    }

    // Replaces every row (a model reset).
    void resetRows(std::vector<Row> rows) {
        beginResetModel();
        rows_ = std::move(rows);
        endResetModel();
    }
    // Tells views that every column of row `row` changed.
    void rowChanged(int row) { emit dataChanged(index(row, 0), index(row, columnCount() - 1)); }

    std::vector<Row> rows_;

private:
    static QVariant call(const std::function<QVariant(const Row&)>& f, const Row& row) {
        return f ? f(row) : QVariant();
    }

    const std::vector<Column> columns_;
};

}  // namespace shardscope::ui
