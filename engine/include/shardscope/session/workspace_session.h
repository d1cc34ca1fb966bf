// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The workspace a planning command works with: where its model comes from (a file, the zoo or a workspace's
// stored bytes), whether the workspace still matches the model, and where a search is recorded. The CLI's
// commands, the explorer and the benchmarks open workspaces through here, so they accept and refuse the same.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "shardscope/diagnostic.h"
#include "shardscope/plan/plan.h"
#include "shardscope/session/problem.h"
#include "shardscope/store/workspace.h"

namespace shardscope::session {

// Whether `path` names a workspace file (it ends in ".shardscope"), as a model argument may.
bool isWorkspacePath(std::string_view path);

// The model record a new workspace for `spec` holds: the source, the file's bytes (none for zoo models, whose
// name rebuilds them) and the load options as JSON (train, optimizer, loss, loss_output, mixed_precision,
// dimensions, sizes, entry). With `modelBytes` (the bytes the model was loaded from), those are kept and no
// file is read. Errors (search.model_file): the model file cannot be read.
Result<store::ModelRecord> modelRecord(const ProblemSpec& spec, const std::string* modelBytes = nullptr);

// A problem to plan and the workspace that records it.
//
// open() resolves what the user asked for, before anything heavy is loaded:
// - `spec.model` names a workspace file: that workspace (it must exist). Its model, stored bytes and load
// options
//   replace the spec's (recordedModelSpec); `workspacePath` must be empty or that same file.
// - `workspacePath` names an existing workspace: it is opened and must hold `spec.model` (the same source),
// and a
//   model file must still have the bytes the workspace was made from: `loadedBytes` when given (the bytes the
//   caller already loaded the model from), else the file as it is now. The workspace's stored bytes are what
//   loads, so a plan is always of the model the workspace keeps.
// - `workspacePath` names no file: the workspace is created by workspace() once the problem has loaded (a
// model
//   that does not load leaves no file behind), holding `loadedBytes` or the file's bytes.
// - `workspacePath` empty: nothing is recorded.
class WorkspaceSession {
public:
    // Errors: the workspace cannot be opened (store's errors, naming the file); session.workspace-model (it
    // holds another model), session.model-changed (the model file's bytes changed since),
    // session.workspace-flag (a workspace as the model and another --workspace).
    static Result<WorkspaceSession> open(ProblemSpec spec, std::string workspacePath,
                                         const std::string* loadedBytes = nullptr);

    // The spec to load: the caller's, or the workspace's model under it.
    const ProblemSpec& spec() const { return spec_; }
    // The bytes the model loads from: the workspace's stored bytes, else the caller's `loadedBytes`; nullptr
    // to read spec().model (a file) or build it (the zoo).
    const std::string* modelBytes() const;
    // loadProblem(spec(), modelBytes()).
    Result<std::unique_ptr<Problem>> loadProblem() const;

    // Where the session records ("" when it does not).
    const std::string& workspacePath() const { return path_; }
    bool records() const { return !path_.empty(); }
    // The workspace, opened; created with the model when it did not exist (another process may create it
    // meanwhile: then that file is used). nullptr when nothing is recorded. Errors: the file cannot be
    // created, the model file cannot be read.
    Result<store::Workspace*> workspace();

private:
    WorkspaceSession() = default;

    ProblemSpec spec_;
    std::string path_;
    std::optional<store::Workspace> workspace_;
    std::optional<std::string> loadedBytes_;
};

// A workspace session read back: the problem it was recorded with and its plan to start from.
struct ResumedSession {
    store::Workspace workspace;
    store::SessionRecord session;
    std::unique_ptr<Problem> problem;
    std::optional<store::PlanRecord> best;  // bestPlan()
};

// The session's plan to start from: its fastest feasible plan, else its fastest; nullopt without plans.
std::optional<store::PlanRecord> bestPlan(const store::Workspace& workspace, std::int64_t session);

// Opens the workspace at `path` and loads session `session` (0: the newest) with its problem
// (loadSessionProblem), or with `settings` (the workspace's model under another mesh, hardware or options)
// when given. Errors (session.none): no such session, or none yet; then those of loading.
Result<ResumedSession> resumeSession(const std::string& path, std::int64_t session = 0,
                                     const ProblemSpec* settings = nullptr);

// A plan of a workspace named "WORKSPACE.shardscope:PLAN_ID", with the problem of its session.
struct RecordedPlan {
    std::string reference;  // as given
    store::Workspace workspace;
    store::PlanRecord record;
    std::unique_ptr<Problem> problem;
    plan::Plan plan;
};

// Errors: session.plan-reference (not WORKSPACE:ID; the CLI's usage error), the workspace's, session.no-plan
// (no such plan, or one of no session), those of loading the session's problem and of parsing the plan.
Result<RecordedPlan> openRecordedPlan(const std::string& reference);

}  // namespace shardscope::session
