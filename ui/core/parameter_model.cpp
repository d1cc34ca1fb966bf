// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/parameter_model.h"

#include <QLocale>

#include "core/text.h"
#include "shardscope/report/model_report.h"

namespace shardscope::ui {

namespace {

// A column that shows one text member of the row.
TableColumn<ParameterRow> textColumn(const QString& header, QString ParameterRow::*member) {
    return {.header = header, .display = [member](const ParameterRow& row) { return QVariant(row.*member); }};
}

}  // namespace

ParameterModel::ParameterModel(QObject* parent)
    : ColumnTableModel(
          {
              {.header = tr("Name"),
               .display = [](const ParameterRow& row) { return QVariant(row.name); },
               .toolTip =
                   [](const ParameterRow& row) {
                       return QVariant(row.location.isEmpty() ? row.name : row.name + u'\n' + row.location);
                   }},
              textColumn(tr("Role"), &ParameterRow::role),
              textColumn(tr("Shape"), &ParameterRow::shape),
              textColumn(tr("Type"), &ParameterRow::elementType),
              {.header = tr("Elements"),
               .display = [](const ParameterRow& row) { return QVariant(QLocale().toString(row.elements)); },
               .sort = [](const ParameterRow& row) { return QVariant(row.elements); },
               .alignment = Qt::AlignRight | Qt::AlignVCenter},
              {.header = tr("Bytes"),
               .display = [](const ParameterRow& row) { return QVariant(row.formattedBytes); },
               .sort = [](const ParameterRow& row) { return QVariant(row.bytes); },
               .toolTip =
                   [](const ParameterRow& row) {
                       return QVariant(tr("%1 bytes").arg(QLocale().toString(row.bytes)));
                   },
               .alignment = Qt::AlignRight | Qt::AlignVCenter},
          },
          parent) {}

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

}  // namespace shardscope::ui
