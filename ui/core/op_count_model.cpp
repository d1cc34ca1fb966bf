#include "core/op_count_model.h"

#include "core/text.h"

namespace shardscope::ui {

OpCountModel::OpCountModel(QObject* parent) : QAbstractTableModel(parent) {}

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

int OpCountModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int OpCountModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OpCountModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = rows_[static_cast<std::size_t>(index.row())];
    switch (role) {
        case Qt::DisplayRole:
        case SortRole:
            return index.column() == KindColumn ? QVariant(row.kind) : QVariant(row.count);
        case Qt::ToolTipRole:
            if (index.column() == CountColumn && total_ > 0)
                return tr("%1% of all ops")
                    .arg(100.0 * static_cast<double>(row.count) / static_cast<double>(total_), 0, 'f', 1);
            return {};
        case Qt::TextAlignmentRole:
            if (index.column() == CountColumn)
                return QVariant(Qt::AlignRight | Qt::AlignVCenter);
            return {};
        default:
            return {};
    }
}

QVariant OpCountModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
        case KindColumn:
            return tr("Op kind");
        case CountColumn:
            return tr("Count");
        default:
            return {};
    }
}

}  // namespace shardscope::ui
