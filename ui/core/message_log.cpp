// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/message_log.h"

#include <algorithm>

#include <QBrush>
#include <QColor>

namespace shardscope::ui {

MessageLog::MessageLog(QObject* parent)
    : ColumnTableModel(
          {
              {.header = tr("Time"),
               .display =
                   [](const LogMessage& m) { return QVariant(m.time.toString(QStringLiteral("HH:mm:ss"))); },
               .sort = [](const LogMessage& m) { return QVariant(m.time.toMSecsSinceEpoch()); },
               .toolTip = [](const LogMessage& m) { return QVariant(m.time.toString(Qt::ISODateWithMs)); }},
              {.header = tr("Severity"),
               .display = [](const LogMessage& m) { return QVariant(severityName(m.severity)); },
               .sort = [](const LogMessage& m) { return QVariant(static_cast<int>(m.severity)); }},
              {.header = tr("Source"), .display = [](const LogMessage& m) { return QVariant(m.source); }},
              {.header = tr("Message"),
               .display = [](const LogMessage& m) { return QVariant(m.text.section(u'\n', 0, 0)); },
               .sort = [](const LogMessage& m) { return QVariant(m.text); },
               .toolTip = [](const LogMessage& m) { return QVariant(m.text); }},
          },
          parent) {}

QString MessageLog::severityName(LogMessage::Severity severity) {
    switch (severity) {
        case LogMessage::Severity::Error:
            return tr("Error");
        case LogMessage::Severity::Warning:
            return tr("Warning");
        case LogMessage::Severity::Note:
            break;
    }
    return tr("Note");
}

void MessageLog::add(LogMessage::Severity severity, const QString& source, const QString& text) {
    if (text.trimmed().isEmpty())
        return;
    if (rows_.size() >= kCapacity) {
        beginRemoveRows({}, 0, 0);
        rows_.erase(rows_.begin());
        endRemoveRows();
    }
    const int row = static_cast<int>(rows_.size());
    beginInsertRows({}, row, row);
    rows_.push_back({QDateTime::currentDateTime(), severity, source, text});
    endInsertRows();
    emit added(rows_.back());
}

QVariant MessageLog::rowData(const LogMessage& row, const QModelIndex& index, int role) const {
    if (role != Qt::ForegroundRole || index.column() != SeverityColumn)
        return {};
    switch (row.severity) {
        case LogMessage::Severity::Error:
            return QBrush(QColor(0xa1, 0x26, 0x22));
        case LogMessage::Severity::Warning:
            return QBrush(QColor(0x9a, 0x5b, 0x00));
        case LogMessage::Severity::Note:
            break;
    }
    return {};
}

int MessageLog::count(LogMessage::Severity severity) const {
    return static_cast<int>(std::count_if(rows_.begin(), rows_.end(),
                                          [&](const LogMessage& m) { return m.severity == severity; }));
}

}  // namespace shardscope::ui
