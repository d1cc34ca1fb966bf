// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Reference plans (docs/export.md): the shardings a model already carries (Shardy `#sdy.sharding` attributes
// and GSPMD `mhlo.sharding` strings, kept verbatim on the graph by the importers) read back into mesh axes
// and turned into a plan::Plan that can be evaluated, shown and compared like any other. The inverse of
// sharding_text.h.
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

namespace shardscope::plan {

// A GSPMD HloSharding string (`{replicated}`, `{maximal device=0}`, `{devices=[4,1,2]<=[8]
// last_tile_dim_replicate}`, `{devices=[2,2]0,2,1,3}`) read into its parts.
struct GspmdTiling {
    enum class Kind : std::uint8_t { Replicated, Maximal, Tiled };
    Kind kind = Kind::Replicated;
    std::vector<std::int64_t> tiles;    // Tiled: the tile count of every tensor dimension
    std::int64_t replication = 1;       // Tiled: the replicated last tile dimension's count (1 without one)
    std::vector<std::int64_t> devices;  // Tiled: the tile assignment, row-major over tiles (then replication)
    std::int64_t device = 0;            // Maximal: the device that holds the whole tensor
    friend bool operator==(const GspmdTiling&, const GspmdTiling&) = default;
};

// Parses one GSPMD sharding (not a tuple). The iota form `<=[dims]T(perm)` is expanded into its device list;
// `last_tile_dim_replicate` and `last_tile_dims={replicated}` give the replication count; `metadata={...}` is
// ignored. Errors (naming the text): bad syntax, a permutation that is not one, a device list whose length is
// not the product of the tile counts or that is not a permutation of 0..n-1, other last_tile_dims (manual).
Result<GspmdTiling> parseGspmdSharding(std::string_view text);

// The sharding of a tensor of `rank` dimensions that `text` (GSPMD) describes, on `mesh` (devices numbered
// row-major, as gspmdSharding assumes): for each dimension the mesh axes, major to minor, whose sizes
// multiply to its tile count and whose walk of the mesh gives exactly the string's device order; the axes
// left over must make up the replication count. Size-1 axes are never used. gspmdOnMesh(gspmdSharding(s, r,
// m), r, m) returns s without its size-1 axes. Errors (naming the text): those of parseGspmdSharding, a
// maximal sharding (no mesh axes express it), a tile count for a different rank, a device count other than
// the mesh's, a device order no assignment of mesh axes gives, a tile count that matches no run of mesh axes.
Result<plan::TensorSharding> gspmdOnMesh(std::string_view text, int rank, const mesh::Mesh& mesh);

// A Shardy sharding attribute `#sdy.sharding<@mesh, [{"x"}, {}, {"y", "z"}], replicated={"w"}>` read into
// axis names. Open dimensions (`?`) and priorities (`p0`) are accepted and dropped.
struct ShardyAnnotation {
    std::string mesh;                                  // the referenced mesh's name, without '@'
    std::vector<std::vector<std::string>> dimensions;  // per dimension, axis names major to minor
    friend bool operator==(const ShardyAnnotation&, const ShardyAnnotation&) = default;
};

// Parses `#sdy.sharding<@mesh, [...]...>` (the leading `#sdy.sharding` may be left out: `<@mesh, [...]>`).
// Errors (naming the text): bad syntax, an inline mesh (`mesh<[...]>`), sub-axes (`"x":(1)2`).
Result<ShardyAnnotation> parseShardySharding(std::string_view text);

// The sharding `text` (Shardy) gives a tensor of `rank` dimensions on `mesh`: axes are matched by name; axes
// of size 1 in the declared mesh are dropped. Errors (naming the text): those of parseShardySharding, a mesh
// that `declared` does not hold, a rank other than `rank`, an axis the declared mesh or `mesh` lacks, an axis
// whose size differs between the declared mesh and `mesh`.
Result<plan::TensorSharding> shardyOnMesh(std::string_view text, int rank,
                                          const std::vector<ir::MeshDeclaration>& declared,
                                          const mesh::Mesh& mesh);

// The sharding either form of annotation gives a tensor of `rank` dimensions (dispatching to the above).
Result<plan::TensorSharding> annotationOnMesh(const ir::ShardingAnnotation& annotation, int rank,
                                              const std::vector<ir::MeshDeclaration>& declared,
                                              const mesh::Mesh& mesh);

// A tensor the source annotated, and the sharding it asks for on the plan's mesh.
struct AnnotatedTensor {
    ir::ValueId value;
    std::string label;  // "argument 0 (params.w)", "result 1", "op 12 (dot.3)"
    plan::TensorSharding sharding;
};

// The annotated tensors of `graph` whose annotation is expressible on `mesh`: arguments, results and the
// results of top-level ops (a tuple `{{...}, {...}}` or `#sdy.sharding_per_value` gives one per result), in
// that order. Every annotation that cannot be read or expressed is a warning in `warnings` (code
// "reference.unexpressible") naming the tensor and the text.
std::vector<AnnotatedTensor> annotatedTensors(const ir::Graph& graph, const mesh::Mesh& mesh,
                                              std::vector<Diagnostic>& warnings);

// The reference plan of `graph` on `mesh` (label "reference"): for every sharded dimension of an annotated
// tensor, one Decision (Target::Name) per axis on the dimension's major name, the axes in the annotation's
// order. A plan gives an axis to the first name that asks for it on a tensor, so where an annotated tensor
// gives an axis to one of its names and not to another that asks for it too (the batch keeps the data axis on
// the activations while FSDP's parameters' dimensions take it on the weights), the first name's decisions
// come first; otherwise (and to break cycles) the batch's names come first (PlanContext::batchGroup: every
// expert strategy decides the batch before what competes with it), then names touching more bytes, then by
// id, so the plan is stable. A repeated name sharded on one of its dimensions gets a Resolution. Fully
// replicated annotations (or none) give an empty plan. Never fails; what it cannot express is a warning (code
// "reference.unexpressible"): an annotation that does not read or fit the mesh (see annotatedTensors), a
// dimension without a name (size 1) or whose major name cannot take all its axes (the names split), a name
// two annotations shard differently (the first, in annotatedTensors order, wins; but where one's axes are a
// subsequence of the other's, the name lost a competition on one tensor and carries the longer, without a
// warning), and finally every annotated tensor to which applying the plan does not give back exactly its
// annotated sharding.
Result<plan::Plan> referencePlan(const ir::Graph& graph, const analysis::DecisionSpace& space,
                                 const mesh::Mesh& mesh);

}  // namespace shardscope::plan
