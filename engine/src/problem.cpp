#include "shardscope/problem.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace shardscope {

namespace {

Result<std::string> readText(const std::string& path, const char* what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return makeError("problem.open", std::string("cannot read ") + what + " file '" + path + "'");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

bool endsWith(const std::string& s, std::string_view tail) { return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0; }

}  // namespace

Result<train::TrainingStep> trainingStepFor(const ir::Graph& forward, const ProblemSpec& spec) {
    const auto kind = train::parseOptimizer(spec.optimizer);
    const auto loss = train::parseLoss(spec.loss);
    if (!kind) return makeError("problem.optimizer", "unknown optimizer '" + spec.optimizer + "' (sgd, adam or adamw)");
    if (!loss) return makeError("problem.loss", "unknown loss '" + spec.loss + "' (auto, cross-entropy, mean-square or sum)");
    train::OptimizerOptions optimizer;
    optimizer.kind = *kind;
    optimizer.mixedPrecision = spec.mixedPrecision;
    train::GradientOptions gradients;
    gradients.loss = *loss;
    return train::buildTrainingStep(forward, optimizer, gradients);
}

Result<std::unique_ptr<Problem>> loadProblem(const ProblemSpec& spec, const std::string* modelBytes) {
    auto problem = std::make_unique<Problem>();
    problem->spec = spec;
    // Hardware and mesh first: their errors are cheap to find.
    Result<mesh::HardwareProfile> hardware = [&]() -> Result<mesh::HardwareProfile> {
        const std::string& h = spec.hardware;
        if (!h.empty() && h.front() == '{') return mesh::parseHardware(h, "the workspace's hardware profile");
        return mesh::loadHardware(h);
    }();
    if (!hardware) return Result<std::unique_ptr<Problem>>::failure(hardware.diagnostics());
    problem->hardware = *hardware;
    Result<mesh::Mesh> meshResult = [&]() -> Result<mesh::Mesh> {
        const std::string& m = spec.mesh;
        if (!m.empty() && m.front() == '{') return mesh::parseMesh(m, "the workspace's mesh");
        if (endsWith(m, ".json")) {
            auto text = readText(m, "mesh");
            if (!text) return Result<mesh::Mesh>::failure(text.diagnostics());
            return mesh::parseMesh(*text, m);
        }
        return mesh::makeMesh(m, *hardware);
    }();
    if (!meshResult) return Result<std::unique_ptr<Problem>>::failure(meshResult.diagnostics());
    problem->mesh = *meshResult;

    import::ImportOptions options;
    for (const auto& [k, v] : spec.dimensions) options.dimensions[k] = v;
    auto model = modelBytes && spec.model.rfind("zoo:", 0) != 0 ? loadModelBytes(*modelBytes, spec.model, options) : loadModel(spec.model, options);
    if (!model) return Result<std::unique_ptr<Problem>>::failure(model.diagnostics());
    problem->warnings = model.diagnostics();
    problem->model = std::move(model).value();
    if (spec.train) {
        auto step = trainingStepFor(problem->model.graph, spec);
        if (!step) return Result<std::unique_ptr<Problem>>::failure(step.diagnostics());
        problem->model.graph = std::move(step->graph);
    }
    problem->space = analysis::analyze(problem->model.graph);
    problem->costModel = std::make_unique<cost::CostModel>(problem->model.graph, problem->space, problem->mesh, problem->hardware, spec.cost);
    return problem;
}

std::string problemSpecJson(const Problem& problem) {
    const ProblemSpec& s = problem.spec;
    nlohmann::json dims = nlohmann::json::object();
    for (const auto& [k, v] : s.dimensions) dims[k] = v;
    nlohmann::json out{
        {"format", "shardscope-problem"},
        {"version", 1},
        {"model", s.model},
        {"dimensions", dims},
        {"train", s.train},
        {"optimizer", s.optimizer},
        {"loss", s.loss},
        {"mixed_precision", s.mixedPrecision},
        {"mesh", nlohmann::json::parse(mesh::toJson(problem.mesh))},
        {"hardware", nlohmann::json::parse(mesh::toJson(problem.hardware))},
        {"cost",
         {{"fusion", std::string(cost::toString(s.cost.fusion))},
          {"attention", std::string(cost::toString(s.cost.attention))},
          {"runtime", std::string(cost::toString(s.cost.runtime))},
          {"efficiency", s.cost.efficiency},
          {"launch_s", s.cost.launchTime},
          {"prefetch", s.cost.prefetch},
          {"memory_reserve", s.cost.memoryReserve}}},
    };
    // A file path need not be UTF-8 (Linux allows any bytes); JSON must be: replace such bytes with U+FFFD rather
    // than throw (the workspace keeps the model's bytes, so the path is only a reminder of where it came from).
    return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Result<ProblemSpec> parseProblemSpec(std::string_view text, std::string_view origin) {
    const std::string where(origin);
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("format") || j["format"] != "shardscope-problem")
        return makeError("problem.format", where + ": not a Shardscope problem description");
    ProblemSpec s;
    try {
        // json::value() and get() throw when a field has another type: inside the try, that is a format error.
        if (j.contains("version") && (!j["version"].is_number_unsigned() || j["version"].get<std::uint64_t>() > 1))
            return makeError("problem.version", where + ": problem version " + j["version"].dump() + " is not one this Shardscope reads (1)");
        s.model = j.at("model").get<std::string>();
        if (j.contains("dimensions") && j["dimensions"].is_object())
            for (auto it = j["dimensions"].begin(); it != j["dimensions"].end(); ++it) {
                if (!it.value().is_number_integer())  // get<>() would convert a float, past int64's range too
                    return makeError("problem.format", where + ": dimension '" + it.key() + "' is not an integer");
                s.dimensions[it.key()] = it.value().get<std::int64_t>();
            }
        s.train = j.value("train", false);
        s.optimizer = j.value("optimizer", "adam");
        s.loss = j.value("loss", "auto");
        s.mixedPrecision = j.value("mixed_precision", false);
        s.mesh = j.at("mesh").dump();
        s.hardware = j.at("hardware").dump();
        const auto& c = j.at("cost");
        s.cost.efficiency = c.value("efficiency", s.cost.efficiency);
        s.cost.launchTime = c.value("launch_s", s.cost.launchTime);
        // "overlap" (a fraction of collective time hidden, before the schedule simulation) is no longer read.
        s.cost.prefetch = c.value("prefetch", s.cost.prefetch);
        if (s.cost.prefetch < 0 || s.cost.prefetch > 1000) return makeError("problem.format", where + ": prefetch must be in [0, 1000]");
        s.cost.memoryReserve = c.value("memory_reserve", s.cost.memoryReserve);
        // Sessions written before fusion and fused attention were priced without them.
        const std::string fusion = c.value("fusion", "none"), attention = c.value("attention", "materialized");
        if (auto f = cost::parseFusion(fusion)) s.cost.fusion = *f;
        else return makeError("problem.format", where + ": unknown fusion \"" + fusion + "\" (xla, none)");
        if (auto a = cost::parseAttention(attention)) s.cost.attention = *a;
        else return makeError("problem.format", where + ": unknown attention \"" + attention + "\" (fused, materialized)");
        const std::string runtime = c.value("runtime", "xla");
        if (auto r = cost::parseRuntime(runtime)) s.cost.runtime = *r;
        else return makeError("problem.format", where + ": unknown runtime \"" + runtime + "\" (xla, eager)");
    } catch (const nlohmann::json::exception& e) {
        return makeError("problem.format", where + ": " + e.what());
    }
    return s;
}

Result<std::unique_ptr<Problem>> loadSessionProblem(const store::Workspace& workspace, const store::SessionRecord& session) {
    const auto settings = nlohmann::json::parse(session.settings, nullptr, false);
    if (settings.is_discarded() || !settings.is_object() || !settings.contains("problem"))
        return makeError("problem.session", workspace.path() + ": session " + std::to_string(session.id) + " has no problem description");
    auto spec = parseProblemSpec(settings["problem"].dump(), workspace.path());
    if (!spec) return Result<std::unique_ptr<Problem>>::failure(spec.diagnostics());
    const auto& model = workspace.model();
    return loadProblem(*spec, model.bytes.empty() ? nullptr : &model.bytes);
}

}  // namespace shardscope
