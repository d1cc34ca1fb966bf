// A plan written into StableHLO (DESIGN.md §8 (a) and (b)): the user's own module text with Shardy or GSPMD
// shardings on the entry function's arguments and results, everything else left as it was.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shardscope/analysis/decision_space.h"
#include "shardscope/diagnostic.h"
#include "shardscope/ir/graph.h"
#include "shardscope/mesh/mesh.h"
#include "shardscope/plan/plan.h"

namespace shardscope::exporting {

enum class ShardingFormat : std::uint8_t {
    Shardy,  // `sdy.mesh @mesh = <[...]>` and `sdy.sharding = #sdy.sharding<@mesh, [...]>`
    Gspmd,   // `mhlo.sharding = "{devices=[...]...}"`
};

// The shardings an export writes: one per entry argument and one per result, in the graph's order.
struct EntryShardings {
    std::vector<plan::TensorSharding> arguments;
    std::vector<plan::TensorSharding> results;
    friend bool operator==(const EntryShardings&, const EntryShardings&) = default;
};

// The shardings `applied` gives the graph's arguments and outputs (AppliedPlan::sharding of their values).
// Assumes `space` is the analysis of `graph` that `applied` was made on.
EntryShardings entryShardings(const ir::Graph& graph, const analysis::DecisionSpace& space,
                              const plan::AppliedPlan& applied);

// Returns `moduleText` (the module `graph` was imported from, or ir::printStableHlo(graph)) with the
// shardings written in `format`:
// - on the entry function (graph.name if the text has it, else @main, else the only public function) each
//   argument's and result's attribute dictionary gets the sharding, replacing an existing sdy.sharding or
//   mhlo.sharding (of either format); a dictionary is added where there is none, and a lone result type
//   without parentheses is parenthesised to take one;
// - Shardy: an `sdy.mesh` declaration of `mesh` is added at the top of the module, named "mesh", unless the
//   module already declares that name: then the existing declaration is used when its axes equal `mesh`'s,
//   else the new mesh takes the first free name of "mesh_1", "mesh_2", ...;
// - an `mhlo.num_partitions` module attribute, if present, becomes mesh.devices() (its type suffix kept).
// Every other byte is kept: attributes and ops the engine does not model survive. Shardings are read with
// the mesh's axes, so their axis indices must be < mesh.axes.size().
// Errors (code export.stablehlo, naming fileName:line): no entry function, a signature that cannot be read
// (unbalanced brackets, an unexpected token), a count of arguments or results different from `shardings`, an
// argument on another line than the graph says (when its location names `fileName`: the text is not its
// source).
Result<std::string> exportStableHlo(std::string_view moduleText, const std::string& fileName,
                                    const ir::Graph& graph, const mesh::Mesh& mesh,
                                    const EntryShardings& shardings, ShardingFormat format);

}  // namespace shardscope::exporting
