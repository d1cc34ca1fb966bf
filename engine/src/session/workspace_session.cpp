// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/session/workspace_session.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "shardscope/input_file.h"
#include "shardscope/plan/plan_json.h"

namespace shardscope::session {

using nlohmann::json;

namespace {

bool isZoo(const std::string& source) {
    return source.rfind("zoo:", 0) == 0;
}

std::string openItself(const std::string& path) {
    return "open '" + path + "' itself, or record into another workspace";
}

}  // namespace

bool isWorkspacePath(std::string_view path) {
    constexpr std::string_view suffix = ".shardscope";
    return path.size() > suffix.size() && path.substr(path.size() - suffix.size()) == suffix;
}

Result<store::ModelRecord> modelRecord(const ProblemSpec& spec, const std::string* modelBytes) {
    store::ModelRecord record;
    record.source = spec.model;
    if (!isZoo(spec.model)) {
        if (modelBytes) {
            record.bytes = *modelBytes;
        } else {
            auto bytes = readModelFile(spec.model);
            if (!bytes)
                return makeError("search.model_file", "cannot keep the model in the workspace: " +
                                                          bytes.diagnostics().front().message);
            record.bytes = std::move(bytes).value();
        }
    }
    json dimensions = json::object();
    for (const auto& [name, value] : spec.dimensions)
        dimensions[name] = value;
    json sizes = json::object();
    for (const auto& [name, value] : spec.sizes)
        sizes[name] = value;
    record.loadOptions = json{
        {"train", spec.train},
        {"optimizer", spec.optimizer},
        {"loss", spec.loss},
        {"loss_output", spec.lossOutput},
        {"mixed_precision", spec.mixedPrecision},
        {"dimensions", dimensions},
        {"sizes", sizes},
        {"entry",
         spec.entry}}.dump(-1, ' ', false, json::error_handler_t::replace);  // a path need not be UTF-8
    return record;
}

Result<WorkspaceSession> WorkspaceSession::open(ProblemSpec spec, std::string workspacePath,
                                                const std::string* loadedBytes) {
    WorkspaceSession session;
    if (loadedBytes)
        session.loadedBytes_ = *loadedBytes;
    if (isWorkspacePath(spec.model)) {
        if (!workspacePath.empty() && workspacePath != spec.model)
            return makeError("session.workspace-flag",
                             "the model '" + spec.model +
                                 "' is a workspace: a search records into it, not into '" + workspacePath +
                                 "'");
        auto opened = store::Workspace::open(spec.model);  // a missing file: the store says so
        if (!opened)
            return Result<WorkspaceSession>::failure(opened.diagnostics());
        // The model and its training-step options as the workspace recorded them; its bytes, never the file
        // its source names.
        auto recorded = recordedModelSpec(opened->model(), opened->path(), std::move(spec));
        if (!recorded)
            return Result<WorkspaceSession>::failure(recorded.diagnostics());
        if (auto bytes = recordedModelBytes(opened->model(), opened->path()); !bytes)
            return Result<WorkspaceSession>::failure(bytes.diagnostics());
        session.path_ = opened->path();
        session.spec_ = std::move(recorded).value();
        session.workspace_.emplace(std::move(opened).value());
        return session;
    }
    session.spec_ = std::move(spec);
    session.path_ = std::move(workspacePath);
    if (session.path_.empty() || !std::filesystem::exists(session.path_))
        return session;
    auto opened = store::Workspace::open(session.path_);
    if (!opened)
        return Result<WorkspaceSession>::failure(opened.diagnostics());
    const store::ModelRecord& model = opened->model();
    const std::string& source = session.spec_.model;
    if (model.source != source)
        return makeError("session.workspace-model",
                         "'" + session.path_ + "' holds the model '" + model.source + "', not '" + source +
                             "' (to plan its model, " + openItself(session.path_) + ")");
    if (!model.bytes.empty()) {
        // The same path, but is it the same model? The workspace keeps the bytes it was made from.
        Result<std::string> now = loadedBytes ? Result<std::string>(*loadedBytes) : readModelFile(source);
        if (now && *now != model.bytes)
            return makeError("session.model-changed",
                             "'" + source + "' has changed since '" + session.path_ +
                                 "' was made from it (to plan the workspace's copy, " +
                                 openItself(session.path_) + ")");
    }
    session.workspace_.emplace(std::move(opened).value());
    return session;
}

const std::string* WorkspaceSession::modelBytes() const {
    if (workspace_ && !workspace_->model().bytes.empty())
        return &workspace_->model().bytes;
    return loadedBytes_ ? &*loadedBytes_ : nullptr;
}

Result<std::unique_ptr<Problem>> WorkspaceSession::loadProblem() const {
    return shardscope::loadProblem(spec_, modelBytes());
}

Result<store::Workspace*> WorkspaceSession::workspace() {
    if (path_.empty())
        return static_cast<store::Workspace*>(nullptr);
    if (!workspace_) {
        auto record = modelRecord(spec_, loadedBytes_ ? &*loadedBytes_ : nullptr);
        if (!record)
            return Result<store::Workspace*>::failure(record.diagnostics());
        // Another process (a second search) may create it meanwhile: then this one records into that file.
        auto created = store::Workspace::openOrCreate(path_, *record);
        if (!created)
            return Result<store::Workspace*>::failure(created.diagnostics());
        workspace_.emplace(std::move(created).value());
    }
    return &*workspace_;
}

std::optional<store::PlanRecord> bestPlan(const store::Workspace& workspace, std::int64_t session) {
    std::optional<store::PlanRecord> best;
    for (auto& record : workspace.plans(session)) {
        const bool better = !best || (record.feasible && !best->feasible) ||
                            (record.feasible == best->feasible && record.stepTime < best->stepTime);
        if (better)
            best = std::move(record);
    }
    return best;
}

Result<ResumedSession> resumeSession(const std::string& path, std::int64_t sessionId,
                                     const ProblemSpec* settings) {
    auto workspace = store::Workspace::open(path);
    if (!workspace)
        return Result<ResumedSession>::failure(workspace.diagnostics());
    const auto sessions = workspace->sessions();
    if (sessions.empty())
        return makeError("session.none", path + ": the workspace has no session yet");
    auto found = sessionId == 0
                     ? std::prev(sessions.end())
                     : std::find_if(sessions.begin(), sessions.end(),
                                    [&](const store::SessionRecord& s) { return s.id == sessionId; });
    if (found == sessions.end())
        return makeError("session.none", path + ": no session " + std::to_string(sessionId));
    Result<std::unique_ptr<Problem>> problem = [&]() -> Result<std::unique_ptr<Problem>> {
        if (!settings)
            return loadSessionProblem(*workspace, *found);
        // The workspace's model (its bytes, never the file its source names) under the caller's settings.
        ProblemSpec spec = *settings;
        spec.model = workspace->model().source;
        auto bytes = recordedModelBytes(workspace->model(), workspace->path());
        if (!bytes)
            return Result<std::unique_ptr<Problem>>::failure(bytes.diagnostics());
        return shardscope::loadProblem(spec, *bytes);
    }();
    if (!problem)
        return Result<ResumedSession>::failure(problem.diagnostics());
    auto best = bestPlan(*workspace, found->id);
    return ResumedSession{std::move(workspace).value(), *found, std::move(problem).value(), std::move(best)};
}

Result<RecordedPlan> openRecordedPlan(const std::string& reference) {
    const auto colon = reference.rfind(':');
    char* end = nullptr;
    const long long id =
        colon == std::string::npos ? 0 : std::strtoll(reference.c_str() + colon + 1, &end, 10);
    if (colon == std::string::npos || id <= 0 || *end != '\0')
        return makeError("session.plan-reference",
                         "expects WORKSPACE.shardscope:PLAN_ID, got '" + reference + "'");
    auto workspace = store::Workspace::open(reference.substr(0, colon));
    if (!workspace)
        return Result<RecordedPlan>::failure(workspace.diagnostics());
    auto record = workspace->plan(id);
    if (!record)
        return makeError("session.no-plan", workspace->path() + " has no plan " + std::to_string(id) +
                                                " (see `shardscope-cli plans`)");
    std::optional<store::SessionRecord> session;
    for (const auto& s : workspace->sessions())
        if (s.id == record->session)
            session = s;
    if (!session)
        return makeError("session.no-plan",
                         workspace->path() + ": plan " + std::to_string(id) + " belongs to no session");
    auto problem = loadSessionProblem(*workspace, *session);
    if (!problem)
        return Result<RecordedPlan>::failure(problem.diagnostics());
    auto parsed =
        plan::parsePlan(record->plan, (*problem)->costModel->planContext(), (*problem)->mesh, reference);
    if (!parsed)
        return Result<RecordedPlan>::failure(parsed.diagnostics());
    Result<RecordedPlan> out(RecordedPlan{reference, std::move(workspace).value(), std::move(record).value(),
                                          std::move(problem).value(), *parsed});
    for (const auto& d : parsed.diagnostics())
        out.addDiagnostic(d);
    return out;
}

}  // namespace shardscope::session
