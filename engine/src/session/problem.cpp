// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/session/problem.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "shardscope/input_file.h"

namespace shardscope {

namespace {

Result<std::string> readText(const std::string& path, const char* what) {
    return readInputFile(path, std::string(what) + " file", kMaxJsonFileBytes);
}

bool endsWith(const std::string& s, std::string_view tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

Result<train::TrainingStep> trainingStepFor(const ir::Graph& forward, const ProblemSpec& spec) {
    const auto kind = train::parseOptimizer(spec.optimizer);
    const auto loss = train::parseLoss(spec.loss);
    if (!kind)
        return makeError("problem.optimizer",
                         "unknown optimizer '" + spec.optimizer + "' (sgd, adam or adamw)");
    if (!loss)
        return makeError("problem.loss",
                         "unknown loss '" + spec.loss + "' (auto, cross-entropy, mean-square or sum)");
    train::OptimizerOptions optimizer;
    optimizer.kind = *kind;
    optimizer.mixedPrecision = spec.mixedPrecision;
    train::GradientOptions gradients;
    gradients.loss = *loss;
    gradients.lossOutput = spec.lossOutput;
    return train::buildTrainingStep(forward, optimizer, gradients);
}

namespace {

Result<std::unique_ptr<Problem>> buildProblem(const ProblemSpec& spec, const std::string* modelBytes);

}  // namespace

Result<std::unique_ptr<Problem>> loadProblem(const ProblemSpec& spec, const std::string* modelBytes) {
    return outOfMemoryAsError<std::unique_ptr<Problem>>("loading the problem of '" + spec.model + "'",
                                                        [&] { return buildProblem(spec, modelBytes); });
}

namespace {

Result<std::unique_ptr<Problem>> buildProblem(const ProblemSpec& spec, const std::string* modelBytes) {
    if (auto checked = checkCostOptions(spec.cost); !checked)
        return Result<std::unique_ptr<Problem>>::failure(checked.diagnostics());
    auto problem = std::make_unique<Problem>();
    problem->spec = spec;
    // Hardware and mesh first: their errors are cheap to find.
    Result<mesh::HardwareProfile> hardware = [&]() -> Result<mesh::HardwareProfile> {
        const std::string& h = spec.hardware;
        if (!h.empty() && h.front() == '{')
            return mesh::parseHardware(h, "the workspace's hardware profile");
        return mesh::loadHardware(h);
    }();
    if (!hardware)
        return Result<std::unique_ptr<Problem>>::failure(hardware.diagnostics());
    problem->hardware = *hardware;
    Result<mesh::Mesh> meshResult = [&]() -> Result<mesh::Mesh> {
        const std::string& m = spec.mesh;
        if (!m.empty() && m.front() == '{')
            return mesh::parseMesh(m, "the workspace's mesh");
        if (endsWith(m, ".json")) {
            auto text = readText(m, "mesh");
            if (!text)
                return Result<mesh::Mesh>::failure(text.diagnostics());
            return mesh::parseMesh(*text, m);
        }
        return mesh::makeMesh(m, *hardware);
    }();
    if (!meshResult)
        return Result<std::unique_ptr<Problem>>::failure(meshResult.diagnostics());
    problem->mesh = *meshResult;

    import::ImportOptions options;
    for (const auto& [k, v] : spec.dimensions)
        options.dimensions[k] = v;
    options.sizes = spec.sizes;  // the forward graph is resized before its training step is built
    options.entryFunction = spec.entry;
    auto model = modelBytes && spec.model.rfind("zoo:", 0) != 0
                     ? loadModelBytes(*modelBytes, spec.model, options)
                     : loadModel(spec.model, options);
    if (!model)
        return Result<std::unique_ptr<Problem>>::failure(model.diagnostics());
    problem->warnings = model.diagnostics();
    problem->model = std::move(model).value();
    if (spec.train) {
        auto step = trainingStepFor(problem->model.graph, spec);
        if (!step)
            return Result<std::unique_ptr<Problem>>::failure(step.diagnostics());
        problem->warnings.insert(problem->warnings.end(), step.diagnostics().begin(),
                                 step.diagnostics().end());
        problem->model.graph = std::move(step->graph);
    }
    problem->space = analysis::analyze(problem->model.graph);
    problem->costModel = std::make_unique<cost::CostModel>(problem->model.graph, problem->space,
                                                           problem->mesh, problem->hardware, spec.cost);
    return problem;
}

}  // namespace

std::string problemSpecJson(const Problem& problem) {
    const ProblemSpec& s = problem.spec;
    nlohmann::json dims = nlohmann::json::object();
    for (const auto& [k, v] : s.dimensions)
        dims[k] = v;
    nlohmann::json sizes = nlohmann::json::object();
    for (const auto& [k, v] : s.sizes)
        sizes[k] = v;
    nlohmann::json out{
        {"format", "shardscope-problem"},
        {"version", 1},
        {"model", s.model},
        {"dimensions", dims},
        {"sizes", sizes},
        {"entry", s.entry},
        {"train", s.train},
        {"optimizer", s.optimizer},
        {"loss", s.loss},
        {"loss_output", s.lossOutput},
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
    // A file path need not be UTF-8 (Linux allows any bytes); JSON must be: replace such bytes with U+FFFD
    // rather than throw (the workspace keeps the model's bytes, so the path is only a reminder of where it
    // came from).
    return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

namespace {

const char* typeName(const nlohmann::json& value) {
    switch (value.type()) {
        case nlohmann::json::value_t::null:
            return "null";
        case nlohmann::json::value_t::boolean:
            return "a boolean";
        case nlohmann::json::value_t::string:
            return "a string";
        case nlohmann::json::value_t::array:
            return "an array";
        case nlohmann::json::value_t::object:
            return "an object";
        default:
            return "a number";
    }
}

// Optional fields of a JSON object, each read as its type: a field of another type is an error naming it
// ("<where>: 'train' must be true or false, not a string"); an absent one leaves the default.
class Fields {
public:
    Fields(const nlohmann::json& object, std::string where, std::string prefix = {})
        : object_(object), where_(std::move(where)), prefix_(std::move(prefix)) {}

    bool read(const char* key, bool& out) {
        const auto* v = find(key);
        if (v && !v->is_boolean())
            return wrong(key, "true or false", *v);
        if (v)
            out = v->get<bool>();
        return true;
    }
    bool read(const char* key, std::string& out) {
        const auto* v = find(key);
        if (v && !v->is_string())
            return wrong(key, "a string", *v);
        if (v)
            out = v->get<std::string>();
        return true;
    }
    bool read(const char* key, double& out) {
        const auto* v = find(key);
        if (v && !v->is_number())
            return wrong(key, "a number", *v);
        if (v)
            out = v->get<double>();
        return true;
    }
    bool read(const char* key, int& out) {
        const auto* v = find(key);
        // A float, or an integer past int's range, is no count: get<int>() would convert it.
        if (v && (!v->is_number_integer() || v->get<std::int64_t>() < std::numeric_limits<int>::min() ||
                  v->get<std::int64_t>() > std::numeric_limits<int>::max()))
            return wrong(key, "an integer", *v);
        if (v)
            out = static_cast<int>(v->get<std::int64_t>());
        return true;
    }
    Diagnostic error() const { return *error_; }

private:
    const nlohmann::json* find(const char* key) const {
        const auto it = object_.find(key);
        return it == object_.end() ? nullptr : &*it;
    }
    bool wrong(const char* key, const char* expected, const nlohmann::json& value) {
        const std::string got =
            value.is_number() || value.is_boolean() || value.is_null() ? value.dump() : typeName(value);
        error_ = makeError("problem.format",
                           where_ + ": '" + prefix_ + key + "' must be " + expected + ", not " + got);
        return false;
    }

    const nlohmann::json& object_;
    std::string where_, prefix_;
    std::optional<Diagnostic> error_;
};

std::string shortNumber(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", value);
    return buffer;
}

}  // namespace

Status checkCostOptions(const cost::CostOptions& options) {
    auto fail = [](const std::string& message) -> Status {
        return makeError("problem.cost-options", message);
    };
    const double e = options.efficiency;
    if (!std::isfinite(e) || e < 0 || e > 1)
        return fail("efficiency " + shortNumber(e) +
                    ": must be 0 (the hardware profile's tables) or a fraction in (0, 1]");
    const double launch = options.launchTime;
    if (!std::isfinite(launch) || launch < 0 || launch > 1)
        return fail("launch time " + shortNumber(launch) +
                    " s: must be a finite number of seconds in [0, 1]");
    if (options.prefetch < 0 || options.prefetch > 1000)
        return fail("prefetch " + std::to_string(options.prefetch) + ": must be 0 to 1000 blocks of layers");
    const double reserve = options.memoryReserve;
    if (!std::isfinite(reserve) || reserve < 0 || reserve >= 1)
        return fail("memory reserve " + shortNumber(reserve) + ": must be a fraction in [0, 1)");
    return Success{};
}

Result<ProblemSpec> parseProblemSpec(std::string_view text, std::string_view origin) {
    const std::string where(origin);
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("format") || j["format"] != "shardscope-problem")
        return makeError("problem.format", where + ": not a Shardscope problem description");
    ProblemSpec s;
    try {
        if (j.contains("version") &&
            (!j["version"].is_number_unsigned() || j["version"].get<std::uint64_t>() > 1))
            return makeError("problem.version",
                             where + ": problem version " +
                                 j["version"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                                 " is not one this Shardscope reads (1)");
        if (!j.contains("model") || !j["model"].is_string())
            return makeError("problem.format", where + ": 'model' must be a string (the model's source)");
        s.model = j["model"].get<std::string>();
        if (j.contains("dimensions") && j["dimensions"].is_object())
            for (auto it = j["dimensions"].begin(); it != j["dimensions"].end(); ++it) {
                if (!it.value().is_number_integer())  // get<>() would convert a float, past int64's range too
                    return makeError("problem.format",
                                     where + ": dimension '" + it.key() + "' is not an integer");
                s.dimensions[it.key()] = it.value().get<std::int64_t>();
            }
        // "sizes" is absent before global sizes existed: the model's own.
        if (j.contains("sizes")) {
            if (!j["sizes"].is_object())
                return makeError("problem.format", where + ": 'sizes' must be an object of integers");
            for (auto it = j["sizes"].begin(); it != j["sizes"].end(); ++it) {
                if (!it.value().is_number_integer())
                    return makeError("problem.format", where + ": size '" + it.key() + "' is not an integer");
                s.sizes[it.key()] = it.value().get<std::int64_t>();
            }
        }
        Fields fields(j, where);
        // "entry" is absent before --entry existed: the default entry.
        if (!fields.read("entry", s.entry) || !fields.read("train", s.train) ||
            !fields.read("optimizer", s.optimizer) || !fields.read("loss", s.loss) ||
            !fields.read("loss_output", s.lossOutput) || !fields.read("mixed_precision", s.mixedPrecision))
            return fields.error();
        if (!j.contains("mesh") || !j.contains("hardware"))
            return makeError("problem.format", where + ": 'mesh' and 'hardware' must be there");
        s.mesh = j["mesh"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        s.hardware = j["hardware"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        if (!j.contains("cost") || !j["cost"].is_object())
            return makeError("problem.format", where + ": 'cost' must be an object");
        const auto& c = j["cost"];
        Fields cost(c, where, "cost.");
        // "overlap" (a fraction of collective time hidden, before the schedule simulation) is no longer read.
        // Sessions written before fusion and fused attention were priced without them.
        std::string fusion = "none", attention = "materialized", runtime = "xla";
        if (!cost.read("efficiency", s.cost.efficiency) || !cost.read("launch_s", s.cost.launchTime) ||
            !cost.read("prefetch", s.cost.prefetch) || !cost.read("memory_reserve", s.cost.memoryReserve) ||
            !cost.read("fusion", fusion) || !cost.read("attention", attention) ||
            !cost.read("runtime", runtime))
            return cost.error();
        if (s.cost.prefetch < 0 || s.cost.prefetch > 1000)
            return makeError("problem.format", where + ": prefetch must be in [0, 1000]");
        if (auto checked = checkCostOptions(s.cost); !checked)
            return makeError("problem.format", where + ": " + checked.diagnostics().front().message);
        if (auto f = cost::parseFusion(fusion))
            s.cost.fusion = *f;
        else
            return makeError("problem.format", where + ": unknown fusion \"" + fusion + "\" (xla, none)");
        if (auto a = cost::parseAttention(attention))
            s.cost.attention = *a;
        else
            return makeError("problem.format",
                             where + ": unknown attention \"" + attention + "\" (fused, materialized)");
        if (auto r = cost::parseRuntime(runtime))
            s.cost.runtime = *r;
        else
            return makeError("problem.format", where + ": unknown runtime \"" + runtime + "\" (xla, eager)");
    } catch (const nlohmann::json::exception& e) {
        return makeError("problem.format", where + ": " + e.what());
    }
    return s;
}

Result<ProblemSpec> recordedModelSpec(const store::ModelRecord& model, const std::string& workspacePath,
                                      ProblemSpec base) {
    const std::string where = "'" + workspacePath + "': table model, column load_options";
    base.model = model.source;
    const auto options = nlohmann::json::parse(model.loadOptions, nullptr, false);
    if (options.is_discarded() || !options.is_object())
        return makeError("workspace.field", where + ": not a JSON object");
    Fields fields(options, where);
    if (!fields.read("train", base.train) || !fields.read("optimizer", base.optimizer) ||
        !fields.read("loss", base.loss) || !fields.read("mixed_precision", base.mixedPrecision) ||
        !fields.read("entry", base.entry) || !fields.read("loss_output", base.lossOutput)) {
        Diagnostic error = fields.error();
        error.code = "workspace.field";
        return error;
    }
    if (const auto it = options.find("dimensions"); it != options.end()) {
        if (!it->is_object())
            return makeError("workspace.field", where + ": 'dimensions' must be an object of integers");
        for (auto d = it->begin(); d != it->end(); ++d) {
            if (!d.value().is_number_integer())
                return makeError("workspace.field",
                                 where + ": dimension '" + d.key() + "' must be an integer");
            base.dimensions[d.key()] = d.value().get<std::int64_t>();
        }
    }
    // The sizes the model was recorded at are the workspace model's, whatever `base` asks.
    if (const auto it = options.find("sizes"); it != options.end()) {
        if (!it->is_object())
            return makeError("workspace.field", where + ": 'sizes' must be an object of integers");
        base.sizes.clear();
        for (auto d = it->begin(); d != it->end(); ++d) {
            if (!d.value().is_number_integer())
                return makeError("workspace.field", where + ": size '" + d.key() + "' must be an integer");
            base.sizes[d.key()] = d.value().get<std::int64_t>();
        }
    }
    return base;
}

Result<std::unique_ptr<Problem>> loadSessionProblem(const store::Workspace& workspace,
                                                    const store::SessionRecord& session) {
    const std::string where = "'" + workspace.path() + "': session " + std::to_string(session.id) +
                              " (table session, column settings)";
    const auto settings = nlohmann::json::parse(session.settings, nullptr, false);
    if (settings.is_discarded() || !settings.is_object() || !settings.contains("problem"))
        return makeError("problem.session", where + ": no problem description");
    auto spec =
        parseProblemSpec(settings["problem"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                         where + ": problem");
    if (!spec)
        return Result<std::unique_ptr<Problem>>::failure(spec.diagnostics());
    // The model is the workspace's, whatever the session's settings name.
    spec->model = workspace.model().source;
    auto bytes = recordedModelBytes(workspace.model(), workspace.path());
    if (!bytes)
        return Result<std::unique_ptr<Problem>>::failure(bytes.diagnostics());
    return loadProblem(*spec, *bytes);
}

Result<const std::string*> recordedModelBytes(const store::ModelRecord& model,
                                              const std::string& workspacePath) {
    if (model.source.rfind("zoo:", 0) == 0)
        return static_cast<const std::string*>(nullptr);
    if (model.bytes.empty())
        return makeError(
            "workspace.field",
            "'" + workspacePath + "': table model: the model '" + model.source +
                "' has no stored bytes (a workspace keeps the bytes of its model file and never reads the "
                "file again)");
    return &model.bytes;
}

}  // namespace shardscope
