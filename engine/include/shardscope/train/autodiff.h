// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Reverse-mode automatic differentiation over the graph IR.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/ir/graph.h"

namespace shardscope::train {

enum class Loss {
    Auto,          // CrossEntropy when the first output is named "logits", else MeanSquare
    CrossEntropy,  // mean over positions of logsumexp(y) - y[label]; adds an i32 "labels" input of y's shape
                   // minus the last dim
    MeanSquare,    // 0.5 · mean(y²)
    Sum,           // sum(y): every output element weighs one
};
std::optional<Loss> parseLoss(std::string_view text);

struct GradientOptions {
    Loss loss = Loss::Auto;
    // The outputs the loss is taken of: "" the first one; an output's name or index ("logits", "1"); "all"
    // the sum of the losses of every floating-point output.
    std::string lossOutput;
    // Gradients for every floating-point argument (inputs too), not only parameters: for gradient checks.
    bool allFloatArguments = false;
};

// The forward graph extended with a scalar f32 loss of the chosen outputs (GradientOptions::lossOutput) and
// the backward pass.
struct GradientGraph {
    ir::Graph graph;  // outputs: the loss, then one gradient per differentiated argument
    std::vector<std::size_t>
        differentiated;  // argument indices; gradient of differentiated[i] is output i + 1
    std::optional<std::size_t> labelsArgument;  // the argument the cross-entropy loss added
    std::size_t forwardOps = 0, lossOps = 0,
                backwardOps = 0;  // top-level ops of each phase, in program order
};

// Returns the gradient graph. Assumes `forward` is verified. Only values that depend on a differentiated
// argument and reach the loss get cotangents, so ops off that path need no rule. An op on the path without a
// VJP rule is an error naming it and its location; so is a chosen output that is not floating point, and a
// lossOutput no output has (code train.loss-output, listing the outputs). A loss of some of several outputs
// comes with a warning (train.loss-output-partial) naming the outputs left out; with "all", the outputs that
// are not floating point are left out and named in a warning too.
Result<GradientGraph> differentiate(const ir::Graph& forward, const GradientOptions& options = {});

}  // namespace shardscope::train
