// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Running SQL on a workspace with SQLite itself, for tests that inspect or damage one behind the engine's
// back.
#pragma once

#include <sqlite3.h>
#include <QString>
#include <QStringList>
#include <QtTest>

namespace shardscope::testing {

// Runs `sql` on `path` (read-write, waiting up to 5 s for another process's lock); the first column of every
// row. Fails the test process on an error.
inline QStringList sqlite(const QString& path, const QString& sql) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
        qFatal("cannot open %s", qPrintable(path));
    sqlite3_busy_timeout(db, 5000);
    QStringList rows;
    auto collect = [](void* out, int, char** values, char**) {
        static_cast<QStringList*>(out)->append(QString::fromUtf8(values[0] ? values[0] : "NULL"));
        return 0;
    };
    char* error = nullptr;
    if (sqlite3_exec(db, sql.toUtf8().constData(), collect, &rows, &error) != SQLITE_OK)
        qFatal("%s: %s", qPrintable(sql), error);
    sqlite3_close(db);
    return rows;
}

}  // namespace shardscope::testing
