// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/workspace_listing.h"

#include <utility>

#include "core/text.h"
#include "shardscope/store/workspace.h"

namespace shardscope::ui {

namespace {

QVector<WorkspaceSession> sessionsOf(const store::Workspace& workspace) {
    QVector<WorkspaceSession> out;
    for (const store::SessionRecord& session : workspace.sessions())
        out.append({session.id, toQString(session.name)});
    return out;
}

// A workspace opened for reading with its sessions, or why it did not open.
struct Opened {
    WorkspaceHandle workspace;
    QString path;
    QVector<WorkspaceSession> sessions;
    QString error;
};

}  // namespace

WorkspaceListing::WorkspaceListing(QObject* parent) : QObject(parent) {}

WorkspaceListing::~WorkspaceListing() = default;  // lists_ and opens_ go first, then jobs_ waits for its job

void WorkspaceListing::open(const QString& path) {
    lists_.cancel();
    opens_.run(
        [path]() -> Opened {
            auto workspace = store::Workspace::open(path.toStdString());
            if (!workspace)
                return {nullptr, {}, {}, toQString(workspace.diagnostics().front().message)};
            auto shared = std::make_shared<const store::Workspace>(std::move(workspace).value());
            return {shared, toQString(shared->path()), sessionsOf(*shared), {}};
        },
        [this](Opened opened) {
            if (!opened.workspace) {
                emit failed(opened.error);
                return;
            }
            workspace_ = std::move(opened.workspace);
            path_ = std::move(opened.path);
            sessions_ = std::move(opened.sessions);
            emit this->opened(workspace_);
        });
}

void WorkspaceListing::refresh() {
    if (!workspace_)
        return;
    lists_.run([workspace = workspace_] { return sessionsOf(*workspace); },
               [this, asked = workspace_](QVector<WorkspaceSession> sessions) {
                   if (asked != workspace_ || sessions == sessions_)
                       return;  // another workspace opened meanwhile, or nothing new
                   sessions_ = std::move(sessions);
                   emit listed();
               });
}

void WorkspaceListing::clear() {
    opens_.cancel();
    lists_.cancel();
    workspace_.reset();
    path_.clear();
    sessions_.clear();
}

}  // namespace shardscope::ui
