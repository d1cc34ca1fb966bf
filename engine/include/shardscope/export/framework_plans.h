// A plan in the words of the frameworks users train with (DESIGN.md §8 (c), (d)): the parameters' shardings as a
// JAX snippet of PartitionSpecs and as PyTorch DTensor placements.
#pragma once

#include <string>
#include <vector>

#include "shardscope/ir/graph.h"
#include "shardscope/mesh/mesh.h"
#include "shardscope/plan/plan.h"

namespace shardscope::exporting {

// One parameter argument and its sharding.
struct ParameterSharding {
    std::string name;  // the argument's name ("layers.0.mlp.fc.weight"), or "%argN" without one
    ir::TensorType type;
    plan::TensorSharding sharding;
};

// The graph's parameter arguments (role Parameter) with their shardings, in argument order. `shardings` is indexed
// by ValueId::index (e.g. AppliedPlan::sharding of every value).
std::vector<ParameterSharding> parameterShardings(const ir::Graph& graph,
                                                  const std::vector<plan::TensorSharding>& shardings);

// Python for JAX: the mesh (`Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))`, devices row-major as
// the plan assumes) and a dict from parameter name to `PartitionSpec` (`P(None, "model")`, a tuple for several
// axes on one dimension: `P(("data", "model"), None)`), plus `NamedSharding`s built from it.
std::string jaxSnippet(const mesh::Mesh& mesh, const std::vector<ParameterSharding>& parameters);

// Python for PyTorch: the DeviceMesh (`init_device_mesh("cuda", (4, 2), mesh_dim_names=("data", "model"))`) and,
// per parameter, its DTensor placements, one per mesh dimension: `Shard(d)` when tensor dimension d uses that
// mesh axis, else `Replicate()`. A dimension split over several axes is sharded on each of them, major axis first
// (DTensor's order is mesh order, so a dimension whose axes are not in mesh order is flagged in a comment).
std::string dtensorSnippet(const mesh::Mesh& mesh, const std::vector<ParameterSharding>& parameters);

}  // namespace shardscope::exporting
