// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Two plans side by side: which decisions they share (matched by their words, so plans of two loads of a
// model, or of two meshes, compare), their figures, their collectives per kind and the ops whose shardings
// differ. The CLI's `compare` and the explorer's comparison both show this.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "shardscope/cost/cost_model.h"
#include "shardscope/plan/plan.h"
#include "shardscope/session/problem.h"

namespace shardscope::session {

// One decision of either plan. Sharding decisions come first ("(layers.*.mlp.d_ff, model)"), then the remat
// decisions ("remat layers.*: full"); each in A's order, then those only B has. A decision repeated in one
// plan matches as many times as the other has it.
struct DecisionMatch {
    enum class Side { Both, OnlyA, OnlyB };
    std::string text;
    Side side = Side::Both;
    int positionA = -1;  // index into A's decisions (or remat decisions), -1 when A does not have it
    int positionB = -1;
    bool remat = false;
};

// The collectives of one kind in each plan (index 0 = A, 1 = B).
struct CollectiveKindTotals {
    cost::CollectiveKind kind = cost::CollectiveKind::AllGather;
    std::array<int, 2> count{};
    std::array<double, 2> bytes{};
    std::array<double, 2> time{};
};

// A top-level op some of whose operands or results the two plans shard differently.
struct OpDifference {
    std::size_t bodyIndex = 0;        // index into the graph's body
    std::vector<ir::ValueId> values;  // its operands and results whose shardings differ, operands first
};

struct Comparison {
    cost::Evaluation evaluationA, evaluationB;
    std::vector<DecisionMatch> decisions;
    std::vector<CollectiveKindTotals> collectives;  // kinds either plan has, in the engine's kind order
    bool meshesDiffer = false;                      // then shardings are compared by axis name
    bool hardwareDiffers = false;
    bool graphsDiffer = false;  // another model, other sizes, a forward graph against a training step
    // Every value's sharding under each plan; `ops` in program order. Empty when the graphs differ.
    std::vector<plan::TensorSharding> shardingsA, shardingsB;
    std::vector<OpDifference> ops;

    int onlyA() const;
    int onlyB() const;
};

// Evaluates both plans on their problems and compares them (two evaluations: call it off a UI thread).
Comparison comparePlans(const Problem& a, const plan::Plan& planA, const Problem& b, const plan::Plan& planB);

}  // namespace shardscope::session
