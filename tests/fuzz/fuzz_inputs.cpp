// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "fuzz_inputs.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "shardscope/analysis/decision_space.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/import/onnx.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/ir/statistics.h"
#include "shardscope/ir/verifier.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/report/analysis_report.h"
#include "shardscope/report/evaluation_report.h"
#include "shardscope/report/model_report.h"
#include "shardscope/session/problem.h"
#include "shardscope/session/recording.h"
#include "shardscope/session/workspace_session.h"
#include "shardscope/store/workspace.h"

#include <nlohmann/json.hpp>

#include "cli.h"

namespace shardscope::fuzz {
namespace {

// An imported graph: the importer promises a verified graph; the explorer analyses it next. Huge graphs are
// left out so that one input costs milliseconds.
void checkImported(const Result<ir::Graph>& graph) {
    if (!graph)
        return;
    if (!ir::verifyGraph(*graph))
        std::abort();
    if (graph->body.size() <= 4096)
        (void)analysis::analyze(*graph);
}

// zoo:demo's training step on a 4x2 mesh: the problem the plan seeds are written for.
const Problem& demoProblem() {
    static const std::unique_ptr<Problem> loaded = [] {
        ProblemSpec spec;
        spec.model = "zoo:demo";
        spec.train = true;
        spec.mesh = "data=4,model=2";
        auto result = loadProblem(spec);
        if (!result)
            std::abort();
        return std::move(result).value();
    }();
    return *loaded;
}

// A directory of this process's own, on tmpfs when there is one (the workspace target writes a file per
// input).
const std::string& scratchDirectory() {
    static const std::string directory = [] {
        std::string pattern =
            access("/dev/shm", W_OK) == 0 ? "/dev/shm/shardscope-fuzz-XXXXXX" : "/tmp/shardscope-fuzz-XXXXXX";
        if (!mkdtemp(pattern.data()))
            std::abort();
        std::atexit([] { (void)rmdir(scratchDirectory().c_str()); });
        return pattern;
    }();
    return directory;
}

// A one-layer MLP on data=2 (no training step): what the JSON writers describe, small so that their cost
// stays that of the names.
Problem& smallProblem() {
    static const std::unique_ptr<Problem> loaded = [] {
        ProblemSpec spec;
        spec.model = "zoo:mlp:layers=1";
        spec.mesh = "data=2";
        auto result = loadProblem(spec);
        if (!result)
            std::abort();
        return std::move(result).value();
    }();
    return *loaded;
}

// Text a JSON writer made: it must parse (valid JSON, valid UTF-8).
void mustParse(const std::string& text) {
    const auto parsed = nlohmann::json::parse(text, nullptr, false);
    if (parsed.is_discarded())
        std::abort();
}

// A workspace of zoo:demo, made once and kept open: what the field readers read against.
const store::Workspace& demoWorkspace() {
    static const std::unique_ptr<store::Workspace> workspace = [] {
        const std::string path = scratchDirectory() + "/fields.shardscope";
        for (const char* suffix : {"", "-wal", "-shm", "-journal"})
            std::remove((path + suffix).c_str());
        auto made = store::Workspace::create(path, {"zoo:demo", {}, {}, "{}"});
        if (!made)
            std::abort();
        std::atexit([] {
            const std::string p = scratchDirectory() + "/fields.shardscope";
            for (const char* suffix : {"", "-wal", "-shm", "-journal"})
                std::remove((p + suffix).c_str());
        });
        return std::make_unique<store::Workspace>(std::move(made).value());
    }();
    return *workspace;
}

void removeWorkspaceFiles(const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        std::remove((path + suffix).c_str());
}

void readLikeTheExplorer(const store::Workspace& workspace) {
    (void)workspace.model();
    const auto sessions = workspace.sessions();
    for (const auto& session : sessions) {
        (void)workspace.plans(session.id, store::PlanContent::Summary);
        (void)workspace.nodeCount(session.id);
        for (const auto& child : workspace.children(session.id, 0))
            (void)workspace.node(session.id, child.id);
    }
    if (sessions.empty())
        return;
    const auto& session = sessions.back();
    const auto plans = workspace.plans(session.id);
    for (const auto& record : plans)
        (void)workspace.plan(record.id);
    auto problem = loadSessionProblem(workspace, session);
    if (!problem)
        return;
    cost::Evaluator evaluator(*(*problem)->costModel);
    for (const auto& record : plans) {
        auto plan =
            plan::parsePlan(record.plan, (*problem)->costModel->planContext(), (*problem)->mesh, "fuzz");
        if (plan)
            (void)evaluator.evaluate(*plan);
    }
}

}  // namespace

void stableHloText(std::string_view text) {
    (void)import::stableHloFunctions(text, "fuzz.mlir");
    checkImported(import::importStableHlo(text, "fuzz.mlir"));
}

void onnxModel(std::string_view bytes) {
    import::ImportOptions options;
    // Values for the symbolic dimensions exporters commonly write, so such models get past the shape check.
    options.dimensions = {{"batch", 2}, {"batch_size", 2}, {"N", 2},
                          {"seq", 8},   {"sequence", 8},   {"seq_len", 8}};
    checkImported(import::importOnnx(bytes, "fuzz.onnx", options));
}

void planJson(std::string_view json) {
    const Problem& problem = demoProblem();
    const plan::PlanContext& context = problem.costModel->planContext();
    auto parsed = plan::parsePlan(json, context, problem.mesh, "fuzz.json");
    if (!parsed)
        return;
    auto again =
        plan::parsePlan(plan::toJson(*parsed, context, problem.mesh), context, problem.mesh, "round trip");
    if (!again || !(*again == *parsed))
        std::abort();  // plan_json.h: parsePlan(toJson(p)) == p
    cost::Evaluator evaluator(*problem.costModel);
    (void)evaluator.evaluate(*parsed);
}

void workspaceFile(std::string_view bytes) {
    const std::string path = scratchDirectory() + "/input.shardscope";
    removeWorkspaceFiles(path);
    {
        std::ofstream out(path, std::ios::binary);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!out)
            std::abort();
    }
    {
        auto workspace = store::Workspace::open(path);
        if (workspace)
            readLikeTheExplorer(*workspace);
    }
    removeWorkspaceFiles(path);
}

void cliJson(std::string_view bytes) {
    std::vector<std::string> field(6);
    for (std::size_t i = 0, at = 0; i < field.size() && at <= bytes.size(); ++i) {
        const auto end = std::min(bytes.find('\n', at), bytes.size());
        field[i] = std::string(bytes.substr(at, end - at));
        at = end + 1;
    }
    Problem& problem = smallProblem();
    // What does not depend on the input, once: the writers' cost is what is measured.
    static const ir::GraphStatistics statistics = ir::computeStatistics(problem.model.graph);
    // The plan's label stays UTF-8: plan::toJson (plan/plan_json.cpp) still dumps strictly, so a label or a
    // group label that is not UTF-8 throws there (issue 24, left to the plan module's owner).
    static const plan::Plan plan = [] {
        plan::Plan p;
        p.label = "fuzz";
        return p;
    }();
    static const cost::Evaluation evaluation = cost::evaluate(*problem.costModel, plan);
    // The model as a file of any name would load: its path and name in every report.
    LoadedModel& model = problem.model;
    const std::string source = model.source, name = model.displayName;
    model.source = field[0];
    model.displayName = field[1];
    mustParse(report::modelInfoJson(model, statistics, nullptr));
    mustParse(report::analysisJson(model, problem.space));
    mustParse(report::evaluationJson(model, *problem.costModel, plan, evaluation));
    model.source = source;
    model.displayName = name;
    // The problem a session keeps, with a model path and a dimension name of those bytes.
    const ProblemSpec kept = problem.spec;
    problem.spec.model = field[0];
    problem.spec.dimensions = {{field[3], 8}};
    mustParse(problemSpecJson(problem));
    problem.spec = kept;
    ProblemSpec spec;
    spec.model = "zoo:" + field[0];  // a zoo name: modelRecord reads no file
    spec.dimensions = {{field[3], 8}};
    spec.optimizer = field[4];
    auto record = session::modelRecord(spec);
    if (!record)
        std::abort();
    mustParse(record->loadOptions);
    if (!recordedModelSpec(*record, "fuzz.shardscope", {}))
        std::abort();
    // `plans --json`: the workspace's own strings, through the CLI's writer.
    const nlohmann::json listing{
        {"version", 1},
        {"model", field[0]},
        {"sessions",
         {{{"id", 1},
           {"name", field[3]},
           {"mesh", field[5]},
           {"plans", {{{"id", 1}, {"origin", field[2]}, {"label", field[4]}, {"note", field[5]}}}}}}}};
    mustParse(cli::jsonText(listing));
}

void workspaceFields(std::string_view bytes) {
    const auto nul = std::min(bytes.find('\0'), bytes.size());
    const std::string settings(bytes.substr(0, nul));
    const std::string loadOptions(nul < bytes.size() ? bytes.substr(nul + 1) : std::string_view{});
    const store::Workspace& workspace = demoWorkspace();
    (void)loadSessionProblem(workspace, store::SessionRecord{1, "fuzz", settings, 0});
    store::ModelRecord record = workspace.model();
    record.loadOptions = loadOptions;
    auto spec = recordedModelSpec(record, workspace.path(), {});
    if (!spec)
        return;
    spec->mesh = "data=2";
    const auto& model = workspace.model();
    (void)loadProblem(*spec, model.bytes.empty() ? nullptr : &model.bytes);
}

}  // namespace shardscope::fuzz
