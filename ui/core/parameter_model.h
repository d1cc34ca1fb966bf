// The model's state tensors: what sharding decisions will split across devices.
#pragma once

#include <memory>
#include <vector>

#include <QAbstractTableModel>
#include <QString>

#include "core/problem_view.h"

namespace shardscope::ui {

// One row per graph argument whose role is Parameter or OptimizerState, in argument order. Inputs,
// constants and other arguments are left out. Element counts and byte sizes are formatted text in the
// display role and numbers in SortRole.
class ParameterModel : public QAbstractTableModel {
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

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString name;
        QString role;
        QString shape;
        QString elementType;
        qint64 elements = 0;
        qint64 bytes = 0;
        QString formattedBytes;
        QString location;
    };
    std::vector<Row> rows_;
};

}  // namespace shardscope::ui
