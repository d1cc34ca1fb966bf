#include "fuzz_inputs.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "shardscope/analysis/decision_space.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/import/onnx.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/ir/verifier.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/problem.h"
#include "shardscope/store/workspace.h"

namespace shardscope::fuzz {
namespace {

// An imported graph: the importer promises a verified graph; the explorer analyses it next. Huge graphs are
// left out so that one input costs milliseconds.
void checkImported(const Result<ir::Graph>& graph) {
    if (!graph) return;
    if (!ir::verifyGraph(*graph)) std::abort();
    if (graph->body.size() <= 4096) (void)analysis::analyze(*graph);
}

// zoo:demo's training step on a 4x2 mesh: the problem the plan seeds are written for.
const Problem& demoProblem() {
    static const std::unique_ptr<Problem> loaded = [] {
        ProblemSpec spec;
        spec.model = "zoo:demo";
        spec.train = true;
        spec.mesh = "data=4,model=2";
        auto result = loadProblem(spec);
        if (!result) std::abort();
        return std::move(result).value();
    }();
    return *loaded;
}

// A directory of this process's own, on tmpfs when there is one (the workspace target writes a file per input).
const std::string& scratchDirectory() {
    static const std::string directory = [] {
        std::string pattern = access("/dev/shm", W_OK) == 0 ? "/dev/shm/shardscope-fuzz-XXXXXX" : "/tmp/shardscope-fuzz-XXXXXX";
        if (!mkdtemp(pattern.data())) std::abort();
        std::atexit([] { (void)rmdir(scratchDirectory().c_str()); });
        return pattern;
    }();
    return directory;
}

void removeWorkspaceFiles(const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
}

void readLikeTheExplorer(const store::Workspace& workspace) {
    (void)workspace.model();
    const auto sessions = workspace.sessions();
    for (const auto& session : sessions) {
        (void)workspace.plans(session.id, store::PlanContent::Summary);
        (void)workspace.nodeCount(session.id);
        for (const auto& child : workspace.children(session.id, 0)) (void)workspace.node(session.id, child.id);
    }
    if (sessions.empty()) return;
    const auto& session = sessions.back();
    const auto plans = workspace.plans(session.id);
    for (const auto& record : plans) (void)workspace.plan(record.id);
    auto problem = loadSessionProblem(workspace, session);
    if (!problem) return;
    cost::Evaluator evaluator(*(*problem)->costModel);
    for (const auto& record : plans) {
        auto plan = plan::parsePlan(record.plan, (*problem)->costModel->planContext(), (*problem)->mesh, "fuzz");
        if (plan) (void)evaluator.evaluate(*plan);
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
    options.dimensions = {{"batch", 2}, {"batch_size", 2}, {"N", 2}, {"seq", 8}, {"sequence", 8}, {"seq_len", 8}};
    checkImported(import::importOnnx(bytes, "fuzz.onnx", options));
}

void planJson(std::string_view json) {
    const Problem& problem = demoProblem();
    const plan::PlanContext& context = problem.costModel->planContext();
    auto parsed = plan::parsePlan(json, context, problem.mesh, "fuzz.json");
    if (!parsed) return;
    auto again = plan::parsePlan(plan::toJson(*parsed, context, problem.mesh), context, problem.mesh, "round trip");
    if (!again || !(*again == *parsed)) std::abort();  // plan_json.h: parsePlan(toJson(p)) == p
    cost::Evaluator evaluator(*problem.costModel);
    (void)evaluator.evaluate(*parsed);
}

void workspaceFile(std::string_view bytes) {
    const std::string path = scratchDirectory() + "/input.shardscope";
    removeWorkspaceFiles(path);
    {
        std::ofstream out(path, std::ios::binary);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!out) std::abort();
    }
    {
        auto workspace = store::Workspace::open(path);
        if (workspace) readLikeTheExplorer(*workspace);
    }
    removeWorkspaceFiles(path);
}

}  // namespace shardscope::fuzz
