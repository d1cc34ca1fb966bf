// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A plan written into StableHLO (docs/export.md (a) and (b)): the user's own module text with Shardy or GSPMD
// shardings on the entry function's arguments and results, everything else left as it was.
#pragma once

#include <cstdint>
#include <optional>
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

// Which intermediate values get a sharding constraint (`sdy.sharding_constraint`, or GSPMD's
// `stablehlo.custom_call @Sharding`), so that Shardy/GSPMD propagation keeps the plan's choices inside the
// function rather than re-deriving them from the arguments and results alone:
// - None: arguments and results only;
// - Key (the default of the CLI and the GUI): the results of dot_general and convolution (where propagation
//   has to choose between the contracting, batch and free dimensions, and a tensor-parallel plan differs from
//   a data parallel one), and the results of ops where the plan reshards: a result that has the shape of one
//   of its operands but none of those operands' shardings, or that uses a mesh axis none of its operands use.
//   A key value whose sharding and whose operands' shardings are all replicated says nothing and is left out;
// - All: every tensor result of every top-level op.
// In every choice, constants and iotas are left out, and so are existing constraints (the results of
// `Sharding` custom calls, which sdy.reshard imports as) and the values they already constrain, and the
// results of ops the source annotates (a sharding constraint on an op's only result imports as the op's
// annotation); the export keeps such constraints as the text has them.
enum class ConstraintChoice : std::uint8_t { None, Key, All };

// "none", "key", "all"; and back (nullopt for anything else).
std::string_view toString(ConstraintChoice choice);
std::optional<ConstraintChoice> parseConstraintChoice(std::string_view text);

// An intermediate value and the sharding a constraint pins it to.
struct ValueSharding {
    ir::ValueId value;
    plan::TensorSharding sharding;
    friend bool operator==(const ValueSharding&, const ValueSharding&) = default;
};

// The shardings an export writes: one per entry argument and one per result, in the graph's order, and the
// constraints on intermediate values in program order.
struct EntryShardings {
    std::vector<plan::TensorSharding> arguments;
    std::vector<plan::TensorSharding> results;
    std::vector<ValueSharding> constraints;
    friend bool operator==(const EntryShardings&, const EntryShardings&) = default;
};

// The shardings `applied` gives the graph's arguments and outputs (AppliedPlan::sharding of their values),
// and the results of the top-level ops that `constraints` chooses (see ConstraintChoice), in program order.
// Assumes `space` is the analysis of `graph` that `applied` was made on.
EntryShardings entryShardings(const ir::Graph& graph, const analysis::DecisionSpace& space,
                              const plan::AppliedPlan& applied,
                              ConstraintChoice constraints = ConstraintChoice::None);

// Returns `moduleText` (the module `graph` was imported from, or ir::printStableHlo(graph)) with the
// shardings written in `format`:
// - on the entry function (graph.name if the text has it, else @main, else the only public function) each
//   argument's and result's attribute dictionary gets the sharding, replacing an existing sdy.sharding or
//   mhlo.sharding (of either format); a dictionary is added where there is none, and a lone result type
//   without parentheses is parenthesised to take one;
// - Shardy: an `sdy.mesh` declaration of `mesh` is added at the top of the module, named "mesh", unless the
//   module already declares that name: then the existing declaration is used when its axes equal `mesh`'s,
//   else the new mesh takes the first free name of "mesh_1", "mesh_2", ...;
// - an `mhlo.num_partitions` module attribute, if present, becomes mesh.devices() (its type suffix kept);
// - each constraint becomes a statement of its own on the line after the statement that defines the value:
//   `%sharded_5 = sdy.sharding_constraint %5 <@mesh, [{"data"}, {}]> : tensor<8x4xf32>` (Shardy) or
//   `%sharded_5 = stablehlo.custom_call @Sharding(%5) {mhlo.sharding = "{...}"} : (tensor<8x4xf32>) ->
//   tensor<8x4xf32>` (GSPMD, the form XLA's Shardy export and JAX's with_sharding_constraint write), and
//   every later use of the value up to the end of its function, nested regions included, is renamed to the
//   constrained value, token by token (`%5` never touches `%50`; a result `%3#1` of a multi-result op is
//   renamed only where it is written `%3#1`; strings and comments are left alone). The new name is
//   `%sharded_`
//   + the old one (`#` as `_`), made unique in the text. The defining statement is found by the op's location
//   when the op comes from `fileName` (in any function: an op inlined from a called function is constrained
//   in that function, which every call shares, so it is written only when all its inlined copies are
//   constrained alike), else by program order when the entry function's statements and the graph's
//   top-level ops correspond one to one (a printed graph). A constraint that finds no statement, or whose
//   copies disagree, is not written: a warning (code export.constraint, "N of M sharding constraint(s) not
//   written ...") counts them.
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
