// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The session's messages: every error, warning and note the explorer shows, kept for the session.
#pragma once

#include <cstddef>

#include <QDateTime>
#include <QString>

#include "core/column_table_model.h"

namespace shardscope::ui {

// A row of the MessageLog.
struct LogMessage {
    enum class Severity { Note, Warning, Error };
    QDateTime time;
    Severity severity = Severity::Note;
    QString
        source;  // what said it: "Open", "Import", "Settings", "Plan", "Evaluation", "Layout", "Search", ...
    QString text;
};

// The messages of the session, oldest first (Time, Severity, Source, Message). The status bar flashes the
// newest; this keeps them all, up to kCapacity (the oldest go first). Severity sorts by its rank (Error
// highest) and the Message column's tooltip is the whole text.
class MessageLog : public ColumnTableModel<LogMessage> {
    Q_OBJECT

public:
    enum Column { TimeColumn, SeverityColumn, SourceColumn, TextColumn, ColumnCount };
    static constexpr std::size_t kCapacity = 5000;

    explicit MessageLog(QObject* parent = nullptr);

    // Appends a message stamped now (blank text is ignored).
    void add(LogMessage::Severity severity, const QString& source, const QString& text);
    const LogMessage& message(int row) const { return rows_[static_cast<std::size_t>(row)]; }
    // How many messages of `severity` the log holds.
    int count(LogMessage::Severity severity) const;
    static QString severityName(LogMessage::Severity severity);

signals:
    void added(const shardscope::ui::LogMessage& message);

protected:
    // Errors red and warnings amber (Qt::ForegroundRole), in the Severity column.
    QVariant rowData(const LogMessage& row, const QModelIndex& index, int role) const override;
};

}  // namespace shardscope::ui
