// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The zoo's presets and families as sources the model chooser offers.
#pragma once

#include <vector>

#include <QAbstractTableModel>
#include <QString>

namespace shardscope::ui {

// One row per zoo preset, then one per family: the source that opens it ("zoo:gpt2-small", "zoo:gpt") and
// what it is. Presets come first because they are real, published models.
class ZooCatalogModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { SourceColumn, DescriptionColumn, ColumnCount };

    explicit ZooCatalogModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    struct Entry {
        QString source;
        QString description;  // one line
        QString details;      // the tooltip: the description and where a published size comes from
    };
    std::vector<Entry> entries_;
};

}  // namespace shardscope::ui
