// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Loads planning problems off the UI thread: a model with its mesh, hardware and training options, or a
// workspace session.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <QObject>
#include <QString>
#include <QStringList>

#include "core/job_queue.h"
#include "core/problem_view.h"

namespace shardscope::ui {

struct ProblemRequest {
    ProblemSpec spec;          // the model and how to plan it (ignored when `workspace` is set)
    QString workspace;         // a workspace file: open one of its sessions instead
    std::int64_t session = 0;  // the session to open; 0 = the newest
    // With `workspace`: plan the workspace's model with `spec`'s mesh and options.
    bool specFromRequest = false;
    // A plan of the previous problem as plan JSON (plan::toJson), carried over by its labels when only the
    // mesh, hardware or options change. Whatever no longer applies is reported in ProblemView::warnings.
    std::string carriedPlan;
    // The settings (mesh, hardware, options) of the problem shown change: a failure says "Cannot apply the
    // settings to <source>: ..." rather than "Cannot open <source>: ...".
    bool settingsChange = false;
};

// Whether `path` names a workspace file (an SQLite database; any extension) rather than a model.
bool isWorkspaceFile(const QString& path);

// Loads a problem and derives what the explorer shows (statistics, module tree, StableHLO text) on a worker
// thread, so the window never waits. Only the newest request reports: starting a load supersedes the others,
// whose outcome is dropped; one not started yet is skipped, and one under way stops at its next stage.
class ProblemLoader : public QObject {
    Q_OBJECT

public:
    explicit ProblemLoader(QObject* parent = nullptr);
    ~ProblemLoader() override;

    // Starts loading and returns at once.
    void load(const ProblemRequest& request);
    bool isBusy() const { return busy_; }

signals:
    void busyChanged(bool busy);
    void loaded(std::shared_ptr<const shardscope::ui::ProblemView> problem);
    // One line that names the source and says what went wrong.
    void failed(const QString& message);
    // Before `failed`, for a StableHLO module that has no @main and several functions: the source and its
    // functions, to choose the entry from (ProblemSpec::entry).
    void entryChoices(const QString& source, const QStringList& functions);

private:
    void setBusy(bool busy);

    bool busy_ = false;
    JobQueue jobs_{"problem loader"};
    LatestJob loads_{jobs_};  // last: destroyed first, it stops the load under way at its next stage
};

// What the explorer opens when given nothing (the engine's demo model).
QString defaultModelSource();

// Whether plans of one problem mean the same in the other: the same names and groups, label by label. Plans
// name their decisions by the model's names and groups, so another model's plans mean nothing here.
bool sameDecisionSpace(const ProblemView& a, const ProblemView& b);

}  // namespace shardscope::ui
