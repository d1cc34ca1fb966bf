#include "core/parameter_model.h"

#include <QLocale>

#include "core/text.h"
#include "shardscope/report/model_report.h"

namespace shardscope::ui {

ParameterModel::ParameterModel(QObject* parent) : QAbstractTableModel(parent) {}

void ParameterModel::setProblem(const std::shared_ptr<const ProblemView>& model) {
    beginResetModel();
    rows_.clear();
    if (model) {
        const ir::Graph& graph = model->graph();
        for (const ir::Argument& argument : graph.arguments) {
            if (argument.role != ir::ArgumentRole::Parameter &&
                argument.role != ir::ArgumentRole::OptimizerState)
                continue;
            const ir::TensorType& type = graph.type(argument.value);
            const std::string shape = ir::shapeToString(type.shape);
            rows_.push_back({
                .name = toQString(argument.name),
                .role = toQString(ir::toString(argument.role)),
                .shape = shape.empty() ? tr("scalar") : toQString(shape),
                .elementType = toQString(ir::toString(type.element)),
                .elements = type.elements(),
                .bytes = type.bytes(),
                .formattedBytes = toQString(report::formatBytes(static_cast<double>(type.bytes()))),
                .location = toQString(argument.location.toString()),
            });
        }
    }
    endResetModel();
}

int ParameterModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ParameterModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ParameterModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = rows_[static_cast<std::size_t>(index.row())];
    const int column = index.column();
    switch (role) {
        case Qt::DisplayRole:
        case SortRole:
            switch (column) {
                case NameColumn:
                    return row.name;
                case RoleColumn:
                    return row.role;
                case ShapeColumn:
                    return row.shape;
                case ElementTypeColumn:
                    return row.elementType;
                case ElementsColumn:
                    return role == SortRole ? QVariant(row.elements) : QLocale().toString(row.elements);
                case BytesColumn:
                    return role == SortRole ? QVariant(row.bytes) : QVariant(row.formattedBytes);
                default:
                    return {};
            }
        case Qt::ToolTipRole:
            if (column == NameColumn)
                return row.location.isEmpty() ? row.name : row.name + u'\n' + row.location;
            if (column == BytesColumn)
                return tr("%1 bytes").arg(QLocale().toString(row.bytes));
            return {};
        case Qt::TextAlignmentRole:
            if (column == ElementsColumn || column == BytesColumn)
                return QVariant(Qt::AlignRight | Qt::AlignVCenter);
            return {};
        default:
            return {};
    }
}

QVariant ParameterModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
        case NameColumn:
            return tr("Name");
        case RoleColumn:
            return tr("Role");
        case ShapeColumn:
            return tr("Shape");
        case ElementTypeColumn:
            return tr("Type");
        case ElementsColumn:
            return tr("Elements");
        case BytesColumn:
            return tr("Bytes");
        default:
            return {};
    }
}

}  // namespace shardscope::ui
