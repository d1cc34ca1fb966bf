// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Workspace files opened off the UI thread for the session docks: the open workspace, which the models that
// read it share, and its sessions.
#pragma once

#include <cstdint>
#include <memory>

#include <QObject>
#include <QString>
#include <QVector>

#include "core/job_queue.h"

namespace shardscope::store {
class Workspace;
}

namespace shardscope::ui {

// An open workspace file, opaque to widgets: the models that read one (PlanTableModel, SearchTreeModel) take
// it as it is.
using WorkspaceHandle = std::shared_ptr<const store::Workspace>;

// A session of a workspace, as menus list it.
struct WorkspaceSession {
    std::int64_t id = 0;
    QString name;
    friend bool operator==(const WorkspaceSession&, const WorkspaceSession&) = default;
};

// Opens a workspace file and lists its sessions on a worker thread (opening checks the file, which may be
// large or on a slow disk). Only the newest request reports: open() supersedes every earlier open() and
// refresh().
class WorkspaceListing : public QObject {
    Q_OBJECT

public:
    explicit WorkspaceListing(QObject* parent = nullptr);
    ~WorkspaceListing() override;

    // Opens `path` and lists its sessions; `opened` or `failed` reports.
    void open(const QString& path);
    // Lists the sessions of the workspace opened again (another process may have added some); `listed`
    // reports when they changed. Does nothing before a workspace is open.
    void refresh();
    // Forgets the workspace opened and the requests under way, which no longer report.
    void clear();

    // The workspace last opened (nullptr before, and after clear()), its path as it names itself, and its
    // sessions (oldest first) as last listed.
    const WorkspaceHandle& workspace() const { return workspace_; }
    const QString& path() const { return path_; }
    const QVector<WorkspaceSession>& sessions() const { return sessions_; }

signals:
    // workspace() is `workspace` now.
    void opened(const shardscope::ui::WorkspaceHandle& workspace);
    // sessions() changed (refresh()).
    void listed();
    // The file did not open: one line that says why.
    void failed(const QString& message);

private:
    WorkspaceHandle workspace_;
    QString path_;
    QVector<WorkspaceSession> sessions_;
    JobQueue jobs_{"workspace open"};
    LatestJob opens_{jobs_};
    LatestJob lists_{jobs_};  // last: destroyed first, with opens_
};

}  // namespace shardscope::ui
