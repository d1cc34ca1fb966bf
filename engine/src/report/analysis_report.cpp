// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/report/analysis_report.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "shardscope/report/model_report.h"

namespace shardscope::report {
namespace {

using analysis::ConflictKind;

std::string kindName(ConflictKind kind) {
    return kind == ConflictKind::RepeatedName ? "repeated" : "cut";
}

std::string siteText(const ir::Graph& g, const analysis::ConflictSite& site) {
    std::string where;
    if (site.op.valid()) {
        const auto& op = g.op(site.op);
        where = "'" + std::string(ir::mnemonic(op.kind)) + "'";
        const std::string location = op.location.toString();
        if (!location.empty())
            where += " at " + location;
    } else if (const auto* a = g.argumentFor(site.value)) {
        where = "argument '" + a->name + "'";
    }
    where += " " + g.type(site.value).toString() + " dims [";
    for (std::size_t i = 0; i < site.dimensions.size(); ++i)
        where += (i ? ", " : "") + std::to_string(site.dimensions[i]);
    return where + "]";
}

}  // namespace

std::string analysisText(const LoadedModel& model, const analysis::DecisionSpace& space,
                         std::size_t maxNames) {
    std::ostringstream out;
    const auto& g = model.graph;
    std::size_t repeated = 0, cut = 0;
    for (const auto& c : space.conflicts)
        (c.kind == ConflictKind::RepeatedName ? repeated : cut)++;
    out << "model       " << model.displayName << "  (" << model.description << ")\n";
    out << "ops         " << g.body.size() << " top-level, " << g.values.size() << " values\n";
    out << "names       " << space.names.size() << " (from " << space.atoms.size() << " atoms), "
        << space.groups.size() << " groups, " << space.conflicts.size() << " conflicts (" << repeated
        << " repeated, " << cut << " cut)\n";

    std::vector<std::size_t> order(space.groups.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](auto a, auto b) { return space.groups[a].bytes > space.groups[b].bytes; });
    out << "\ngroups (by bytes touched):\n";
    char line[256];
    std::snprintf(line, sizeof line, "  %-5s %-32s %6s %10s %12s %12s\n", "id", "role", "names", "size",
                  "bytes", "FLOPs");
    out << line;
    for (auto i : order) {
        const auto& grp = space.groups[i];
        const auto& first = space.name(grp.names.front());
        std::snprintf(line, sizeof line, "  G%-4zu %-32s %6zu %10lld %12s %12s\n", i, grp.label.c_str(),
                      grp.names.size(), static_cast<long long>(first.size), formatBytes(grp.bytes).c_str(),
                      formatFlops(grp.flops).c_str());
        out << line;
    }

    std::vector<std::size_t> names(space.names.size());
    for (std::size_t i = 0; i < names.size(); ++i)
        names[i] = i;
    std::stable_sort(names.begin(), names.end(),
                     [&](auto a, auto b) { return space.names[a].bytes > space.names[b].bytes; });
    const std::size_t shown = maxNames == 0 ? names.size() : std::min(maxNames, names.size());
    out << "\nnames (" << shown << " of " << names.size() << " by bytes touched):\n";
    std::snprintf(line, sizeof line, "  %-6s %-36s %10s %6s %8s %12s %12s\n", "id", "label", "size", "group",
                  "tensors", "bytes", "FLOPs");
    out << line;
    for (std::size_t k = 0; k < shown; ++k) {
        const auto& n = space.names[names[k]];
        std::snprintf(line, sizeof line, "  N%-5zu %-36s %10lld %6s %8zu %12s %12s\n", names[k],
                      n.label.c_str(), static_cast<long long>(n.size),
                      ("G" + std::to_string(n.group.index)).c_str(), n.tensors, formatBytes(n.bytes).c_str(),
                      formatFlops(n.flops).c_str());
        out << line;
    }

    out << "\nconflicts:\n";
    if (space.conflicts.empty())
        out << "  none\n";
    for (const auto& c : space.conflicts) {
        out << "  " << kindName(c.kind) << " name " << space.name(c.name).label << " (N" << c.name.index
            << ", size " << space.name(c.name).size << "): " << c.sites.size() << " site(s)\n";
        for (std::size_t s = 0; s < c.sites.size() && s < 3; ++s)
            out << "      " << siteText(g, c.sites[s]) << "\n";
        if (c.sites.size() > 3)
            out << "      ... and " << c.sites.size() - 3 << " more\n";
        for (const auto& option : c.options)
            out << "      option: " << option << "\n";
    }
    return out.str();
}

std::string analysisJson(const LoadedModel& model, const analysis::DecisionSpace& space) {
    const auto& g = model.graph;
    nlohmann::json names = nlohmann::json::array(), groups = nlohmann::json::array(),
                   conflicts = nlohmann::json::array();
    for (std::size_t i = 0; i < space.names.size(); ++i) {
        const auto& n = space.names[i];
        names.push_back({{"id", i},
                         {"label", n.label},
                         {"size", n.size},
                         {"group", n.group.index},
                         {"tensors", n.tensors},
                         {"bytes", n.bytes},
                         {"flops", n.flops}});
    }
    for (std::size_t i = 0; i < space.groups.size(); ++i) {
        const auto& grp = space.groups[i];
        std::vector<std::uint32_t> members;
        for (auto n : grp.names)
            members.push_back(n.index);
        groups.push_back({{"id", i},
                          {"label", grp.label},
                          {"names", members},
                          {"bytes", grp.bytes},
                          {"flops", grp.flops}});
    }
    for (const auto& c : space.conflicts) {
        nlohmann::json sites = nlohmann::json::array();
        for (const auto& s : c.sites) {
            nlohmann::json site{{"tensor", g.type(s.value).toString()}, {"dimensions", s.dimensions}};
            if (s.op.valid()) {
                const auto& op = g.op(s.op);
                site["op"] = std::string(ir::mnemonic(op.kind));
                site["label"] = op.location.name;
                site["location"] = op.location.toString();
            }
            sites.push_back(site);
        }
        conflicts.push_back({{"kind", kindName(c.kind)},
                             {"name", c.name.index},
                             {"label", space.name(c.name).label},
                             {"sites", sites},
                             {"options", c.options}});
    }
    nlohmann::json j{
        {"version", kAnalysisJsonVersion},
        {"model",
         {{"source", model.source}, {"name", model.displayName}, {"description", model.description}}},
        {"atoms", space.atoms.size()},
        {"names", names},
        {"groups", groups},
        {"conflicts", conflicts}};
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";  // names need not be UTF-8
}

}  // namespace shardscope::report
