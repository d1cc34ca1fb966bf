#include "shardscope/export/trace.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "shardscope/ir/op_kind.h"

namespace shardscope::exporting {
namespace {

using nlohmann::json;

std::string groupName(const mesh::Mesh& mesh, std::uint32_t axes) {
    std::string name;
    for (std::size_t i = 0; i < mesh.axes.size(); ++i)
        if ((axes >> i) & 1u)
            name += (name.empty() ? "" : "+") + mesh.axes[i].name;
    return name.empty() ? "no axis" : name;
}

}  // namespace

std::string chromeTrace(const cost::CostModel& model, const cost::Evaluation& evaluation) {
    const ir::Graph& graph = model.graph();
    const mesh::Mesh& mesh = model.mesh();
    const double hidden = model.options().overlap;
    json events = json::array();
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"tid", 0},
                      {"args", {{"name", "device (each of " + std::to_string(mesh.devices()) + " runs this)"}}}});
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", 0}, {"args", {{"name", "compute"}}}});

    // One thread per device group, in the order the groups first appear.
    std::map<std::uint32_t, int> threadOf;
    auto thread = [&](std::uint32_t axes) {
        const auto [it, added] = threadOf.emplace(axes, static_cast<int>(threadOf.size()) + 1);
        if (added)
            events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", it->second},
                              {"args", {{"name", "collectives over " + groupName(mesh, axes)}}}});
        return it->second;
    };
    // The collectives of each op, in the evaluation's (program) order.
    std::map<std::uint32_t, std::vector<const cost::Collective*>> byOp;
    for (const auto& c : evaluation.collectives)
        byOp[c.op.index].push_back(&c);

    double now = 0;  // seconds on the compute thread
    auto emitCollective = [&](const cost::Collective& c, std::size_t opIndex) {
        events.push_back({{"name", std::string(cost::toString(c.kind))},
                          {"cat", "collective"},
                          {"ph", "X"},
                          {"pid", 0},
                          {"tid", thread(c.axes)},
                          {"ts", now * 1e6},
                          {"dur", c.time * 1e6},
                          {"args", {{"op", opIndex}, {"bytes", c.bytes}, {"tensor", "%" + std::to_string(c.value.index)}}}});
        now += c.time * (1 - hidden);
    };
    for (std::size_t i = 0; i < graph.body.size(); ++i) {
        const ir::OpId id = graph.body[i];
        const ir::Op& op = graph.op(id);
        const auto collectives = byOp.find(id.index);
        std::vector<const cost::Collective*> after;
        if (collectives != byOp.end()) {
            for (const cost::Collective* c : collectives->second) {
                const bool operand = std::find(op.operands.begin(), op.operands.end(), c->value) != op.operands.end();
                if (operand)
                    emitCollective(*c, i);
                else
                    after.push_back(c);
            }
        }
        const double compute = i < evaluation.opComputeTime.size() ? evaluation.opComputeTime[i] : 0;
        json args{{"op", i}};
        if (!op.location.name.empty())
            args["label"] = op.location.name;
        if (op.location.line > 0)
            args["location"] = op.location.toString();
        events.push_back({{"name", std::string(ir::mnemonic(op.kind))},
                          {"cat", "compute"},
                          {"ph", "X"},
                          {"pid", 0},
                          {"tid", 0},
                          {"ts", now * 1e6},
                          {"dur", compute * 1e6},
                          {"args", args}});
        now += compute;
        for (const cost::Collective* c : after)
            emitCollective(*c, i);
    }
    const json trace{{"traceEvents", events},
                     {"displayTimeUnit", "ms"},
                     {"otherData",
                      {{"generator", "shardscope"},
                       {"mesh", mesh.toString()},
                       {"step_time_s", evaluation.stepTime},
                       {"peak_memory_bytes", evaluation.peakMemory}}}};
    return trace.dump(1) + "\n";
}

}  // namespace shardscope::exporting
