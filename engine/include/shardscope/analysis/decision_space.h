// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The static analysis of docs/design.md, "Names and groups": tensor dimensions split into atoms, atoms
// unified into names (TOAST's named dimensions) through the ops' factor rules, names grouped by the role they
// play in repeated structure, and the conflicts a plan must resolve. The search decides groups; the GUI shows
// all of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardscope/analysis/factor_rule.h"
#include "shardscope/diagnostic.h"
#include "shardscope/ir/graph.h"

namespace shardscope::analysis {

struct AtomTag;
struct NameTag;
struct GroupTag;
using AtomId = Id<AtomTag>;
using NameId = Id<NameTag>;
using GroupId = Id<GroupTag>;

// A piece of one tensor dimension: the dimension is the product of its atoms, major to minor.
struct Atom {
    ir::ValueId value;
    int dimension = 0;
    std::int64_t size = 1;
    NameId name;  // invalid for atoms of size 1, which cannot be sharded
};

struct Name {
    std::int64_t size = 1;
    std::vector<AtomId> atoms;
    std::string label;  // "batch", "seq", "layers.3.mlp.d_ff", or "N17"
    double bytes = 0;   // bytes of the distinct tensors that carry the name
    double flops = 0;   // FLOPs of the ops whose rule has a factor covering the name
    std::size_t tensors = 0;
    GroupId group;
};

struct Group {
    std::vector<NameId> names;
    std::string label;  // the role: the names' label with layer indices replaced ("layers.*.mlp.d_ff")
    double bytes = 0, flops = 0;
};

enum class ConflictKind : std::uint8_t {
    RepeatedName,  // one tensor carries the name on two dimensions: a sharded axis must pick one
    CutName,       // the name meets a need-replication factor: sharding it forces a gather there
};

struct ConflictSite {
    ir::OpId op;                  // the op that produces the tensor (repeated) or needs the replication (cut)
    ir::ValueId value;            // the tensor concerned
    std::vector<int> dimensions;  // its dimensions that carry the name
};

struct Conflict {
    ConflictKind kind = ConflictKind::RepeatedName;
    NameId name;
    std::vector<ConflictSite> sites;
    std::vector<std::string> options;  // how a plan may resolve it, in words
};

struct AnalysisOptions {
    bool groupRepeatedStructure = true;  // false: every name its own group
};

class DecisionSpace {
public:
    std::vector<Atom> atoms;
    std::vector<Name> names;
    std::vector<Group> groups;
    std::vector<Conflict> conflicts;
    // For each value and dimension, its atoms major to minor: dimensionAtoms[value][dimension].
    std::vector<std::vector<std::vector<AtomId>>> dimensionAtoms;
    // The factor rule of every top-level op, in body order (rules[i] belongs to graph.body[i]).
    std::vector<FactorRule> rules;

    const Name& name(NameId id) const { return names[id.index]; }
    const Group& group(GroupId id) const { return groups[id.index]; }
    const Atom& atom(AtomId id) const { return atoms[id.index]; }
    // The group or name with this label (labels are unique within each), or nullopt.
    std::optional<GroupId> groupLabelled(std::string_view label) const;
    std::optional<NameId> nameLabelled(std::string_view label) const;
    // The names on one tensor dimension, major to minor (size-1 atoms left out).
    std::vector<NameId> namesOf(ir::ValueId value, int dimension) const;
    // Gives each name of `group` a group of its own (the user decides layers separately); returns the new
    // ids.
    std::vector<GroupId> splitGroup(GroupId group);
};

// Analyses `graph` (top-level ops; regions are treated through their op's rule). Linear in the graph's size
// up to the near-constant factor of union-find.
DecisionSpace analyze(const ir::Graph& graph, const AnalysisOptions& options = {});

}  // namespace shardscope::analysis
