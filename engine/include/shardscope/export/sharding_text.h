// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A tensor's sharding in the words of the runtimes that execute plans (docs/export.md): Shardy's attributes
// and GSPMD's HloSharding strings, as JAX and XLA write them. The building blocks of the StableHLO exports.
#pragma once

#include <string>
#include <string_view>

#include "shardscope/mesh/mesh.h"
#include "shardscope/plan/plan.h"

namespace shardscope::exporting {

// Shardy's mesh declaration: `sdy.mesh @mesh = <["data"=4, "model"=2]>` (axes major to minor, as the Mesh has
// them).
std::string shardyMesh(const mesh::Mesh& mesh, std::string_view name = "mesh");

// Shardy's sharding attribute: `#sdy.sharding<@mesh, [{"data"}, {}, {"model", "x"}]>` (each dimension's axes
// major to minor; a scalar is `[]`).
std::string shardySharding(const plan::TensorSharding& sharding, const mesh::Mesh& mesh,
                           std::string_view meshName = "mesh");

// GSPMD's sharding string for `sharding` of a tensor of `rank` dimensions on `mesh`, whose devices are
// numbered row-major (the last axis varies fastest, as jax.sharding.Mesh over np.arange lays them out), in
// the iota form XLA prints: `{replicated}` when no axis is used; else
// `{devices=[t0,t1,...(,r)]<=[dims](T(perm))( last_tile_dim_replicate)}` with one tile count per dimension, a
// last replication count when some axes are unused, and the device order as a transposed iota. Size-1 axes
// are left out and runs of axes that stay adjacent are merged, as XLA canonicalises them: mesh data=4,model=2
// gives `{devices=[4,1,2]<=[8] last_tile_dim_replicate}` for P('data', None) and
// `{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}` for P(None, 'model').
std::string gspmdSharding(const plan::TensorSharding& sharding, int rank, const mesh::Mesh& mesh);

}  // namespace shardscope::exporting
