// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/zoo_catalog_model.h"

#include "core/text.h"
#include "shardscope/report/model_report.h"
#include "shardscope/zoo/zoo.h"

namespace shardscope::ui {

ZooCatalogModel::ZooCatalogModel(QObject* parent) : QAbstractTableModel(parent) {
    const QString zoo = QStringLiteral("zoo:");
    for (const zoo::Preset& preset : zoo::presets()) {
        Entry entry{zoo + toQString(preset.name), toQString(preset.description),
                    toQString(preset.description)};
        if (preset.publishedParameters > 0) {
            const QString parameters = toQString(report::formatCount(preset.publishedParameters));
            entry.description = tr("%1, %2 parameters").arg(entry.description, parameters);
            entry.details = tr("%1\n%2 parameters published (%3)")
                                .arg(entry.details, parameters, toQString(preset.source));
        }
        entries_.push_back(std::move(entry));
    }
    for (const zoo::Family& family : zoo::families()) {
        const QString description = toQString(family.description);
        entries_.push_back(
            {zoo + toQString(family.name), tr("family defaults: %1").arg(description), description});
    }
}

int ZooCatalogModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(entries_.size());
}

int ZooCatalogModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ZooCatalogModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry& entry = entries_[static_cast<std::size_t>(index.row())];
    switch (role) {
        case Qt::DisplayRole:
        case Qt::EditRole:
            return index.column() == SourceColumn ? entry.source : entry.description;
        case Qt::ToolTipRole:
            return entry.details;
        default:
            return {};
    }
}

}  // namespace shardscope::ui
