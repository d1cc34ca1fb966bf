// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/plan/plan_json.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

namespace shardscope::plan {

using nlohmann::json;

namespace {

json decisionJson(const Decision& d, const PlanContext& context, const mesh::Mesh& mesh) {
    json out;
    out[d.target == Decision::Target::Group ? "group" : "name"] = context.targetLabel(d);
    out["axis"] = d.axis >= 0 && static_cast<std::size_t>(d.axis) < mesh.axes.size()
                      ? mesh.axes[static_cast<std::size_t>(d.axis)].name
                      : "?";
    if (d.tensors != kAllTensorClasses) {
        json classes = json::array();
        for (int c = 0; c < kTensorClassCount; ++c)
            if ((d.tensors >> c) & 1u)
                classes.push_back(std::string(toString(static_cast<TensorClass>(c))));
        out["tensors"] = classes;
    }
    return out;
}

std::string axesList(const mesh::Mesh& mesh) {
    std::string out;
    for (const auto& a : mesh.axes)
        out += (out.empty() ? "" : ", ") + a.name;
    return out;
}

// `planMesh` is the mesh the plan file says it was made for ("" when it does not say).
// No decision (nullopt) when it is left out under MissingAxes::Drop: the result then carries the
// "plan.axis-dropped" warning.
Result<std::optional<Decision>> parseDecision(const json& j, const PlanContext& context,
                                              const mesh::Mesh& mesh, const std::string& where,
                                              const std::string& planMesh, MissingAxes missingAxes) {
    auto fail = [&](const std::string& message) {
        return makeError("plan.bad-decision", where + ": " + message);
    };
    if (!j.is_object())
        return fail("expected an object {\"group\" or \"name\", \"axis\"}");
    Decision d;
    const auto& space = context.space();
    if (j.contains("group") && j["group"].is_string()) {
        const auto label = j["group"].get<std::string>();
        const auto group = space.groupLabelled(label);
        if (group)
            d = {Decision::Target::Group, group->index, 0, kAllTensorClasses};
        else
            return fail("unknown group '" + label +
                        "': this model has no group of that label (is the plan for another model? run "
                        "`shardscope-cli analyze` for this model's groups)");
    } else if (j.contains("name") && j["name"].is_string()) {
        const auto label = j["name"].get<std::string>();
        const auto name = space.nameLabelled(label);
        if (name)
            d = {Decision::Target::Name, name->index, 0, kAllTensorClasses};
        else
            return fail("unknown name '" + label +
                        "': this model has no name of that label (is the plan for another model? run "
                        "`shardscope-cli analyze --all` for this model's names)");
    } else {
        return fail("needs a \"group\" or a \"name\" (a string)");
    }
    if (!j.contains("axis") || !j["axis"].is_string())
        return fail("needs an \"axis\" (a string)");
    const auto axisName = j["axis"].get<std::string>();
    const auto axis = mesh.axisIndex(axisName);
    if (!axis && missingAxes == MissingAxes::Drop) {
        Result<std::optional<Decision>> left(std::nullopt);
        left.addDiagnostic(
            makeWarning("plan.axis-dropped", where + " (" + context.targetLabel(d) + ", " + axisName +
                                                 ") is left out: the mesh has no axis '" + axisName +
                                                 "' (it has " + axesList(mesh) + ")"));
        return left;
    }
    if (!axis)
        return fail("unknown mesh axis '" + axisName + "' (the mesh has " + axesList(mesh) +
                    (planMesh.empty() || planMesh == mesh.toString()
                         ? std::string()
                         : "; the plan was made for " + planMesh) +
                    ")");
    d.axis = *axis;
    if (j.contains("tensors")) {
        if (!j["tensors"].is_array())
            return fail("\"tensors\" must be a list of tensor classes");
        d.tensors = 0;
        for (const auto& c : j["tensors"]) {
            const auto parsed = c.is_string() ? parseTensorClass(c.get<std::string>()) : std::nullopt;
            if (!parsed)
                return fail("unknown tensor class " + c.dump() +
                            " (activation, parameter, gradient, optimizer_state, optimizer_update)");
            d.tensors |= maskOf(*parsed);
        }
    }
    return std::optional<Decision>(d);
}

// "layers.*, encoder.layer.*, ... (N families); blocks are named like layers.0": the model's families, for an
// error about a target that names none of them.
std::string familiesText(const LayerBlocks& blocks) {
    if (blocks.families.empty())
        return "this model has no repeated blocks of layers (no op name has an index, like layers.3)";
    constexpr std::size_t kShown = 4;
    std::string out = "this model's families are ";
    for (std::size_t i = 0; i < blocks.families.size() && i < kShown; ++i)
        out += (i ? ", " : "") + blocks.families[i];
    if (blocks.families.size() > kShown)
        out += ", ... (" + std::to_string(blocks.families.size()) + " families)";
    return out + "; its blocks are named like " + blocks.blocks.front();
}

Result<RematDecision> parseRematDecision(const json& j, const LayerBlocks& blocks, const std::string& where) {
    auto fail = [&](const std::string& message) {
        return makeError("plan.bad-remat", where + ": " + message);
    };
    if (!j.is_object() || !j.contains("target") || !j["target"].is_string() || !j.contains("policy") ||
        !j["policy"].is_string())
        return fail(
            "expected {\"target\": a block family like \"layers.*\" or a block like \"layers.3\", "
            "\"policy\": a string}");
    RematDecision r;
    r.target = j["target"].get<std::string>();
    const auto policy = parseRemat(j["policy"].get<std::string>());
    if (!policy)
        return fail("unknown remat policy " + j["policy"].dump() +
                    " (none, selective, full or dots-saveable)");
    r.policy = *policy;
    const bool known =
        std::find(blocks.families.begin(), blocks.families.end(), r.target) != blocks.families.end() ||
        std::find(blocks.blocks.begin(), blocks.blocks.end(), r.target) != blocks.blocks.end();
    if (!known)
        return fail("unknown remat target " + j["target"].dump() +
                    ": it names no block or family of blocks (" + familiesText(blocks) + ")");
    return r;
}

constexpr std::size_t kRematPolicies = 4;  // none, selective, full, dots-saveable

// How many entries each list of a plan file may hold for this problem, and why: a decision per target (group
// or name), mesh axis and tensor class; a resolution per name; remat decisions (a later one overrides an
// earlier one) as many as there are policies per block or family of blocks, and one more. Any other list of
// objects holds none that a plan can use.
struct ListBound {
    std::size_t most = 0;
    const char* why = "";
};
ListBound boundOf(const std::string& key, const PlanContext& context, const mesh::Mesh& mesh) {
    const auto& space = context.space();
    if (key == "decisions" || key == "forbidden")
        return {(space.groups.size() + space.names.size()) * std::max<std::size_t>(mesh.axes.size(), 1) *
                    static_cast<std::size_t>(kTensorClassCount),
                "one per group or name, mesh axis and tensor class"};
    if (key == "resolutions")
        return {space.names.size(), "one per name"};
    if (key == "remat")
        return {(context.blocks().families.size() + context.blocks().blocks.size() + 1) * kRematPolicies,
                "a few per block or family of blocks"};
    return {0, "a plan has no such list"};
}

// Parses a plan file's text with every list's entries (objects) counted as they are read: entries past their
// list's bound are dropped unbuilt, so an absurd file never takes the memory its entries would; the counts
// then say which list is too long, and by how much.
Result<json> parseBounded(std::string_view text, const PlanContext& context, const mesh::Mesh& mesh,
                          const std::string& where) {
    std::map<std::string, std::size_t> entries;
    std::string list;
    const json::parser_callback_t count = [&](int depth, json::parse_event_t event, json& parsed) {
        if (depth == 1 && event == json::parse_event_t::key)
            list = parsed.is_string() ? parsed.get<std::string>() : std::string();
        if (depth == 2 && event == json::parse_event_t::object_start)
            return ++entries[list] <= boundOf(list, context, mesh).most;
        return true;
    };
    json j = json::parse(text, count, false);
    if (j.is_discarded())
        return makeError("plan.not-json", where + ": not a JSON document");
    for (const auto& [key, n] : entries) {
        const ListBound bound = boundOf(key, context, mesh);
        if (n > bound.most && bound.most > 0)
            return makeError("plan.too-long", where + ": \"" + key + "\" has " + std::to_string(n) +
                                                  " entries, more than this problem can use (at most " +
                                                  std::to_string(bound.most) + ": " + bound.why + ")");
    }
    return j;
}

// "microbatches" and "pipeline" {"axis", "stages", "schedule", "virtual_stages", "layers_per_stage"}, checked
// with pipelineProblem.
Status parseStaging(const json& j, Plan& plan, const PlanContext& context, const mesh::Mesh& mesh,
                    const std::string& where) {
    auto fail = [&](const std::string& message) {
        return makeError("plan.pipeline", where + ": " + message);
    };
    auto positive = [](const json& x) {
        return x.is_number_integer() && x.get<std::int64_t>() >= 1 && x.get<std::int64_t>() <= (1 << 20);
    };
    if (j.contains("microbatches")) {
        if (!positive(j["microbatches"]))
            return fail("\"microbatches\" must be a whole number from 1 to 1048576");
        plan.microbatches = j["microbatches"].get<int>();
    }
    if (j.contains("pipeline")) {
        const json& p = j["pipeline"];
        if (!p.is_object())
            return fail("\"pipeline\" must be an object {\"axis\", \"stages\", \"schedule\", ...}");
        for (const auto& [key, value] : p.items())
            if (key != "axis" && key != "stages" && key != "schedule" && key != "virtual_stages" &&
                key != "layers_per_stage" && (key.empty() || key[0] != '_'))
                return fail("pipeline: unknown key \"" + key + "\"");
        Pipeline pipeline;
        if (!p.contains("axis") || !p["axis"].is_string())
            return fail("pipeline: \"axis\" must name a mesh axis");
        const auto axis = mesh.axisIndex(p["axis"].get<std::string>());
        if (!axis)
            return fail("pipeline: mesh " + mesh.toString() + " has no axis '" +
                        p["axis"].get<std::string>() + "'");
        pipeline.axis = *axis;
        if (p.contains("stages")) {
            if (!positive(p["stages"]))
                return fail("pipeline: \"stages\" must be a whole number of 2 or more");
            pipeline.stages = p["stages"].get<int>();
        } else {
            pipeline.stages = static_cast<int>(
                std::min<std::int64_t>(mesh.axes[static_cast<std::size_t>(*axis)].size, 1 << 20));
        }
        if (p.contains("schedule")) {
            const auto schedule = p["schedule"].is_string()
                                      ? parsePipelineSchedule(p["schedule"].get<std::string>())
                                      : std::nullopt;
            if (!schedule)
                return fail("pipeline: \"schedule\" must be \"gpipe\", \"1f1b\" or \"interleaved\"");
            pipeline.schedule = *schedule;
        }
        if (p.contains("virtual_stages")) {
            if (!positive(p["virtual_stages"]))
                return fail("pipeline: \"virtual_stages\" must be a whole number of 1 or more");
            pipeline.virtualStages = p["virtual_stages"].get<int>();
        }
        if (p.contains("layers_per_stage")) {
            const json& split = p["layers_per_stage"];
            if (!split.is_array() || split.size() > context.blocks().blocks.size())
                return fail("pipeline: \"layers_per_stage\" must be a list of layer counts, one per chunk");
            for (const auto& n : split) {
                if (!positive(n))
                    return fail("pipeline: \"layers_per_stage\" must hold whole numbers of 1 or more");
                pipeline.layersPerStage.push_back(n.get<int>());
            }
        }
        plan.pipeline = pipeline;
    }
    if (auto problem = pipelineProblem(context, mesh, plan))
        return fail(*problem);
    return Success{};
}

}  // namespace

std::string pipelineText(const Plan& plan, const mesh::Mesh& mesh) {
    std::string out;
    if (plan.pipeline) {
        const Pipeline& p = *plan.pipeline;
        out = "pipeline " +
              (p.axis >= 0 && static_cast<std::size_t>(p.axis) < mesh.axes.size()
                   ? mesh.axes[static_cast<std::size_t>(p.axis)].name
                   : std::string("?")) +
              ": " + std::to_string(p.stages) + " stages, " + std::string(toString(p.schedule));
        if (p.virtualStages > 1)
            out += " × " + std::to_string(p.virtualStages) + " virtual";
        if (!p.layersPerStage.empty()) {
            out += ", layers";
            for (std::size_t i = 0; i < p.layersPerStage.size(); ++i)
                out += (i ? "/" : " ") + std::to_string(p.layersPerStage[i]);
        }
        out += ", ";
    }
    if (plan.microbatches != 1 || plan.pipeline)
        out += std::to_string(plan.microbatches) + " microbatch" + (plan.microbatches == 1 ? "" : "es");
    return out;
}

std::string rematText(const RematDecision& remat) {
    return remat.target + ": " + std::string(toString(remat.policy));
}

std::string decisionText(const Decision& decision, const PlanContext& context, const mesh::Mesh& mesh) {
    std::string out = "(" + context.targetLabel(decision) + ", " +
                      (decision.axis >= 0 && static_cast<std::size_t>(decision.axis) < mesh.axes.size()
                           ? mesh.axes[static_cast<std::size_t>(decision.axis)].name
                           : std::string("?")) +
                      ")";
    if (decision.tensors != kAllTensorClasses) {
        std::string classes;
        for (int c = 0; c < kTensorClassCount; ++c)
            if ((decision.tensors >> c) & 1u)
                classes += (classes.empty() ? "" : ",") + std::string(toString(static_cast<TensorClass>(c)));
        out += " on " + classes;
    }
    return out;
}

std::string toJson(const Plan& plan, const PlanContext& context, const mesh::Mesh& mesh) {
    json out;
    out["format"] = "shardscope-plan";
    out["version"] = kPlanJsonVersion;
    out["label"] = plan.label;
    out["mesh"] = mesh.toString();
    out["decisions"] = json::array();
    for (const auto& d : plan.decisions)
        out["decisions"].push_back(decisionJson(d, context, mesh));
    out["pinned"] = plan.pinned;
    out["forbidden"] = json::array();
    for (const auto& d : plan.forbidden)
        out["forbidden"].push_back(decisionJson(d, context, mesh));
    out["resolutions"] = json::array();
    for (const auto& r : plan.resolutions)
        out["resolutions"].push_back(
            {{"name",
              r.name.index < context.space().names.size() ? context.space().names[r.name.index].label : "?"},
             {"dimension", r.dimension}});
    if (!plan.remat.empty()) {
        out["remat"] = json::array();
        for (const auto& r : plan.remat)
            out["remat"].push_back({{"target", r.target}, {"policy", std::string(toString(r.policy))}});
    }
    if (plan.microbatches != 1)
        out["microbatches"] = plan.microbatches;
    if (plan.pipeline) {
        const Pipeline& p = *plan.pipeline;
        json pipeline = {{"axis", p.axis >= 0 && static_cast<std::size_t>(p.axis) < mesh.axes.size()
                                      ? mesh.axes[static_cast<std::size_t>(p.axis)].name
                                      : std::string("?")},
                         {"stages", p.stages},
                         {"schedule", std::string(toString(p.schedule))},
                         {"virtual_stages", p.virtualStages}};
        if (!p.layersPerStage.empty())
            pipeline["layers_per_stage"] = p.layersPerStage;
        out["pipeline"] = pipeline;
    }
    return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";  // labels need not be UTF-8
}

Result<Plan> parsePlan(std::string_view text, const PlanContext& context, const mesh::Mesh& mesh,
                       std::string_view origin, MissingAxes missingAxes) {
    const std::string where(origin);
    auto parsed = parseBounded(text, context, mesh, where);
    if (!parsed)
        return Result<Plan>::failure(parsed.diagnostics());
    json j = std::move(parsed).value();
    if (!j.is_object() || !j.contains("format") || j["format"] != "shardscope-plan")
        return makeError("plan.format",
                         where + ": not a Shardscope plan (expected \"format\": \"shardscope-plan\")");
    if (!j.contains("version") || !j["version"].is_number_integer())
        return makeError("plan.version", where + ": missing \"version\"");
    const int version = j["version"].get<int>();
    if (version > kPlanJsonVersion)
        return makeError("plan.version", where + ": plan format version " + std::to_string(version) +
                                             " is newer than this Shardscope reads (" +
                                             std::to_string(kPlanJsonVersion) + ")");
    Plan plan;
    if (j.contains("label") && j["label"].is_string())
        plan.label = j["label"].get<std::string>();
    const std::string planMesh =
        j.contains("mesh") && j["mesh"].is_string() ? j["mesh"].get<std::string>() : std::string();
    std::vector<Diagnostic> dropped;     // "plan.axis-dropped" warnings
    std::vector<std::size_t> droppedAt;  // the indices of the decisions left out
    auto readList = [&](const char* key, std::vector<Decision>& into) -> Status {
        if (!j.contains(key))
            return Success{};
        if (!j[key].is_array())
            return makeError("plan.bad-decision", where + ": \"" + key + "\" must be a list");
        for (std::size_t i = 0; i < j[key].size(); ++i) {
            auto d = parseDecision(j[key][i], context, mesh,
                                   where + ": " + key + "[" + std::to_string(i) + "]", planMesh, missingAxes);
            if (!d)
                return Status::failure(d.diagnostics());
            if (!*d) {
                dropped.insert(dropped.end(), d.diagnostics().begin(), d.diagnostics().end());
                if (&into == &plan.decisions)
                    droppedAt.push_back(i);
                continue;
            }
            into.push_back(**d);
        }
        return Success{};
    };
    if (auto s = readList("decisions", plan.decisions); !s)
        return Result<Plan>::failure(s.diagnostics());
    if (auto s = readList("forbidden", plan.forbidden); !s)
        return Result<Plan>::failure(s.diagnostics());
    if (j.contains("pinned")) {
        const std::size_t listed = plan.decisions.size() + droppedAt.size();
        if (!j["pinned"].is_number_unsigned() || j["pinned"].get<std::size_t>() > listed)
            return makeError("plan.pinned", where + ": \"pinned\" must count leading decisions (0 to " +
                                                std::to_string(listed) + ")");
        const auto pinned = j["pinned"].get<std::size_t>();
        plan.pinned =
            pinned - static_cast<std::size_t>(std::count_if(droppedAt.begin(), droppedAt.end(),
                                                            [&](std::size_t i) { return i < pinned; }));
    }
    if (j.contains("resolutions")) {
        if (!j["resolutions"].is_array())
            return makeError("plan.resolution", where + ": \"resolutions\" must be a list");
        for (std::size_t i = 0; i < j["resolutions"].size(); ++i) {
            const auto& r = j["resolutions"][i];
            const std::string at = where + ": resolutions[" + std::to_string(i) + "]";
            if (!r.is_object() || !r.contains("name") || !r["name"].is_string() || !r.contains("dimension") ||
                !r["dimension"].is_number_unsigned())
                return makeError("plan.resolution",
                                 at + ": expected {\"name\": label, \"dimension\": 0, 1, ...}");
            const auto label = r["name"].get<std::string>();
            const auto found = context.space().nameLabelled(label);
            if (!found)
                return makeError(
                    "plan.resolution",
                    at + ": unknown name '" + label +
                        "': this model has no name of that label (is the plan for another model?)");
            // A resolution picks one of the dimensions a tensor gives the name: at most as many as any tensor
            // has.
            const analysis::NameId name = *found;
            std::size_t most = 0;
            {
                std::map<std::uint32_t, std::set<int>> dimensions;
                for (const auto& atom : context.nameAtoms(name))
                    dimensions[context.space().atom(atom.id()).value.index].insert(atom.dimension);
                for (const auto& [value, dims] : dimensions)
                    most = std::max(most, dims.size());
            }
            const auto dimension = r["dimension"].get<std::uint64_t>();
            if (dimension >= most)
                return makeError("plan.resolution",
                                 at + ": name '" + label + "' has no dimension " + std::to_string(dimension) +
                                     " to choose (" +
                                     (most < 2 ? std::string("it is not repeated on any tensor")
                                               : "choose 0 to " + std::to_string(most - 1)) +
                                     ")");
            plan.resolutions.push_back({name, static_cast<int>(dimension)});
        }
    }
    if (j.contains("remat")) {
        if (!j["remat"].is_array())
            return makeError("plan.bad-remat", where + ": \"remat\" must be a list");
        for (std::size_t i = 0; i < j["remat"].size(); ++i) {
            auto r = parseRematDecision(j["remat"][i], context.blocks(),
                                        where + ": remat[" + std::to_string(i) + "]");
            if (!r)
                return Result<Plan>::failure(r.diagnostics());
            plan.remat.push_back(std::move(r).value());
        }
    }
    if (auto s = parseStaging(j, plan, context, mesh, where); !s)
        return Result<Plan>::failure(s.diagnostics());
    Result<Plan> result(std::move(plan));
    for (auto& warning : dropped)
        result.addDiagnostic(std::move(warning));
    for (auto& warning : checkDivisibility(result.value(), context, mesh, where))
        result.addDiagnostic(std::move(warning));
    return result;
}

std::vector<Diagnostic> checkDivisibility(const Plan& plan, const PlanContext& context,
                                          const mesh::Mesh& mesh, std::string_view origin) {
    std::vector<Diagnostic> out;
    if (plan.decisions.empty())
        return out;
    const AppliedPlan applied = applyPlan(context, mesh, plan);
    std::vector<std::size_t> notDivisible(plan.decisions.size(), 0), otherwise(plan.decisions.size(), 0);
    for (const auto& site : applied.competitions) {
        if (site.decision >= plan.decisions.size())
            continue;
        (site.reason == CompetitionSite::Reason::NotDivisible ? notDivisible : otherwise)[site.decision]++;
    }
    // Occurrences a decision reached: the atoms of its names (in its tensor classes) that carry its axis.
    for (std::size_t i = 0; i < plan.decisions.size(); ++i) {
        if (notDivisible[i] == 0 || otherwise[i] > 0)
            continue;
        const Decision& d = plan.decisions[i];
        if (d.axis < 0 || static_cast<std::size_t>(d.axis) >= mesh.axes.size())
            continue;
        bool reached = false;
        std::int64_t size = 0;
        for (auto name : context.namesOf(d)) {
            size = std::max(size, context.space().name(name).size);
            for (const auto& atom : context.nameAtoms(name)) {
                const auto& axes = applied.atomAxes[atom.atom];
                for (int k = 0; k < axes.size() && !reached; ++k)
                    reached = axes[k] == d.axis;
            }
        }
        if (reached)
            continue;
        const auto& axis = mesh.axes[static_cast<std::size_t>(d.axis)];
        const std::string axisText = axis.name + "=" + std::to_string(axis.size);
        out.push_back(makeWarning("plan.not-divisible",
                                  std::string(origin) + ": decision " + std::to_string(i + 1) + " " +
                                      decisionText(d, context, mesh) + " shards nothing: " + axisText +
                                      " divides no dimension of " + context.targetLabel(d) + " (size " +
                                      std::to_string(size) + "); use an axis whose size divides " +
                                      std::to_string(size) + ", or another mesh"));
    }
    return out;
}

}  // namespace shardscope::plan
