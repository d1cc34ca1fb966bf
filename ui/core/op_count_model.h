// How many ops of each kind a model has.
#pragma once

#include <memory>
#include <vector>

#include <QAbstractTableModel>
#include <QString>

#include "core/problem_view.h"

namespace shardscope::ui {

// One row per op kind (StableHLO mnemonic, or an opaque op's own name), nested regions included, in the
// order of GraphStatistics::opsByKind (by name). Counts are numbers in the display role, so a
// QSortFilterProxyModel sorts them numerically.
class OpCountModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { KindColumn, CountColumn, ColumnCount };

    explicit OpCountModel(QObject* parent = nullptr);

    // Shows `model`'s op counts; nullptr empties the table.
    void setProblem(const std::shared_ptr<const ProblemView>& model);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString kind;
        qint64 count = 0;
    };
    std::vector<Row> rows_;
    qint64 total_ = 0;
};

}  // namespace shardscope::ui
