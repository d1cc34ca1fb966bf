// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A whole training step in one graph, as JAX's train_step would be: forward, loss, backward and the optimizer
// update, with updated parameters and optimizer states returned as results donated to their arguments.
#pragma once

#include <optional>
#include <string_view>

#include "shardscope/diagnostic.h"
#include "shardscope/ir/graph.h"
#include "shardscope/train/autodiff.h"

namespace shardscope::train {

enum class Optimizer { Sgd, Adam, AdamW };
std::optional<Optimizer> parseOptimizer(std::string_view text);
std::string_view toString(Optimizer optimizer);

struct OptimizerOptions {
    Optimizer kind = Optimizer::Adam;
    double learningRate = 1e-3;
    double momentum = 0.9;  // SGD (0 = plain SGD, no momentum state)
    double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
    double weightDecay = 0.01;  // AdamW (decoupled)
    // 16-bit parameters and gradients with an fp32 master copy of every parameter and fp32 optimizer states:
    // the 2 + 2 + 12 bytes per parameter of the ZeRO paper (Adam). Needs a model whose parameters are 16-bit.
    bool mixedPrecision = false;
};

struct TrainingStep {
    ir::Graph
        graph;  // outputs: loss, updated parameters, updated optimizer states (each donated to its argument)
    std::size_t forwardOps = 0, backwardOps = 0,
                updateOps = 0;  // top-level ops per phase (the loss counts as forward)
};

// Builds the training step of `forward`. Optimizer states become OptimizerState arguments named
// "<state>.<parameter>" (e.g. "adam.m.layers.0.mlp.fc.weight", "master.<parameter>"), plus an i32 "step"
// counter for Adam's bias correction. Errors: those of differentiate(), mixed precision on a model with fp32
// parameters. Warnings: those of differentiate() (outputs left out of the loss).
Result<TrainingStep> buildTrainingStep(const ir::Graph& forward, const OptimizerOptions& optimizer = {},
                                       const GradientOptions& gradients = {});

}  // namespace shardscope::train
