// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The zoo's model families. Each reads its options (already filled with defaults) and builds a forward graph.
#pragma once

#include "shardscope/diagnostic.h"
#include "shardscope/ir/graph.h"
#include "zoo/options.h"

namespace shardscope::zoo {

Result<ir::Graph> buildMlp(Options& options);
Result<ir::Graph> buildGpt(Options& options);
Result<ir::Graph> buildLlama(Options& options);
Result<ir::Graph> buildMoe(Options& options);
Result<ir::Graph> buildVit(Options& options);
Result<ir::Graph> buildUnet(Options& options);

}  // namespace shardscope::zoo
