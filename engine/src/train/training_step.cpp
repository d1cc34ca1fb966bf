// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The optimizer update appended to the gradient graph. Every parameter and state is updated by elementwise
// ops and returned as a result donated to its argument, as JAX's train_step does with donate_argnums.
#include "shardscope/train/training_step.h"

#include <array>

#include "shardscope/ir/builder.h"

namespace shardscope::train {

using namespace ir;

namespace {
constexpr std::array<std::string_view, 3> kOptimizerNames{"sgd", "adam", "adamw"};
}

std::optional<Optimizer> parseOptimizer(std::string_view text) {
    for (std::size_t i = 0; i < kOptimizerNames.size(); ++i)
        if (kOptimizerNames[i] == text)
            return static_cast<Optimizer>(i);
    return std::nullopt;
}

std::string_view toString(Optimizer optimizer) {
    return kOptimizerNames[static_cast<std::size_t>(optimizer)];
}

namespace {

bool isSixteenBit(ElementType e) {
    return e == ElementType::BF16 || e == ElementType::F16;
}

// Emits the update of one parameter and returns (new value, argument it replaces) pairs for the outputs.
class Update {
public:
    Update(GraphBuilder& b, const OptimizerOptions& o, ValueId step) : b_(b), o_(o), step_(step) {}

    // `param` is the parameter argument, `grad` its gradient; states are created as arguments.
    void apply(const Argument& param, std::size_t paramIndex, ValueId grad) {
        const std::string label = param.name + ".update";
        const TensorType paramType = b_.type(param.value);
        const ElementType stateElement = o_.mixedPrecision ? ElementType::F32 : paramType.element;
        const TensorType stateType{paramType.shape, stateElement};
        ValueId g = b_.type(grad).element == stateElement ? grad : b_.convert(grad, stateElement, label);
        // The weights the optimizer updates: the fp32 master copy in mixed precision, else the parameter
        // itself.
        ValueId weights = param.value;
        std::optional<std::size_t> master;
        if (o_.mixedPrecision) {
            master = b_.graph().arguments.size();
            weights = state("master", param, stateType);
        }
        auto c = [&](double v) { return b_.constant(v, stateType); };
        ValueId updated;
        switch (o_.kind) {
            case Optimizer::Sgd: {
                ValueId direction = g;
                if (o_.momentum != 0) {
                    const std::size_t index = b_.graph().arguments.size();
                    ValueId velocity = state("sgd.momentum", param, stateType);
                    direction = b_.add(b_.multiply(c(o_.momentum), velocity), g, label);
                    donate(direction, index);
                }
                updated = b_.subtract(weights, b_.multiply(c(o_.learningRate), direction), label);
                break;
            }
            case Optimizer::Adam:
            case Optimizer::AdamW: {
                const std::size_t mIndex = b_.graph().arguments.size();
                ValueId m = state("adam.m", param, stateType);
                const std::size_t vIndex = b_.graph().arguments.size();
                ValueId v = state("adam.v", param, stateType);
                // One op at a time: the order of a call's arguments is the compiler's, and the graph must not
                // depend on it (GCC's order, kept: the gradient's term first).
                const ValueId gradientTerm = b_.multiply(c(1 - o_.beta1), g);
                ValueId m2 = b_.add(b_.multiply(c(o_.beta1), m), gradientTerm, label);
                const ValueId squared = b_.multiply(g, g);
                const ValueId squaredTerm = b_.multiply(c(1 - o_.beta2), squared);
                ValueId v2 = b_.add(b_.multiply(c(o_.beta2), v), squaredTerm, label);
                donate(m2, mIndex);
                donate(v2, vIndex);
                // Bias-corrected step: lr · m̂ / (√v̂ + ε) with m̂ = m/(1-β1^t), v̂ = v/(1-β2^t).
                ValueId mHat =
                    b_.divide(m2, b_.broadcastInDim(correction1(stateElement), paramType.shape, {}), label);
                ValueId vHat =
                    b_.divide(v2, b_.broadcastInDim(correction2(stateElement), paramType.shape, {}), label);
                const ValueId epsilon = c(o_.epsilon);
                const ValueId root = b_.unary(OpKind::Sqrt, vHat);
                ValueId direction = b_.divide(mHat, b_.add(root, epsilon), label);
                if (o_.kind == Optimizer::AdamW)
                    direction = b_.add(direction, b_.multiply(c(o_.weightDecay), weights), label);
                updated = b_.subtract(weights, b_.multiply(c(o_.learningRate), direction), label);
                break;
            }
        }
        if (master) {
            donate(updated, *master);
            donate(b_.convert(updated, paramType.element, label), paramIndex);
        } else {
            donate(updated.valid() && b_.type(updated).element != paramType.element
                       ? b_.convert(updated, paramType.element)
                       : updated,
                   paramIndex);
        }
    }

    const std::vector<std::pair<ValueId, std::size_t>>& donations() const { return donations_; }

private:
    ValueId state(const std::string& kind, const Argument& param, const TensorType& type) {
        return b_.argument(ArgumentRole::OptimizerState, kind + "." + param.name, type,
                           param.dimensionLabels);
    }
    void donate(ValueId value, std::size_t argument) { donations_.emplace_back(value, argument); }
    // 1 - β^t for the current step t (computed once per element type).
    ValueId correction(double beta, ElementType element, std::optional<ValueId>& cache) {
        if (cache)
            return *cache;
        ValueId t = b_.convert(step_, element, "step");
        ValueId power = b_.binary(OpKind::Power, b_.scalar(beta, element), t, "bias_correction");
        cache = b_.subtract(b_.scalar(1.0, element), power, "bias_correction");
        return *cache;
    }
    ValueId correction1(ElementType e) {
        return correction(o_.beta1, e, e == ElementType::F32 ? c1f32_ : c1other_);
    }
    ValueId correction2(ElementType e) {
        return correction(o_.beta2, e, e == ElementType::F32 ? c2f32_ : c2other_);
    }

    GraphBuilder& b_;
    const OptimizerOptions& o_;
    ValueId step_;
    std::vector<std::pair<ValueId, std::size_t>> donations_;
    std::optional<ValueId> c1f32_, c2f32_, c1other_, c2other_;
};

}  // namespace

Result<TrainingStep> buildTrainingStep(const Graph& forward, const OptimizerOptions& optimizer,
                                       const GradientOptions& gradients) {
    GradientOptions parametersOnly = gradients;
    parametersOnly.allFloatArguments = false;
    auto differentiated = differentiate(forward, parametersOnly);
    if (!differentiated)
        return Result<TrainingStep>::failure(differentiated.diagnostics());
    GradientGraph& gg = *differentiated;
    if (optimizer.mixedPrecision) {
        for (std::size_t index : gg.differentiated) {
            const auto& a = gg.graph.arguments[index];
            if (!isSixteenBit(gg.graph.type(a.value).element))
                return makeError("train.mixed-precision", "mixed precision needs 16-bit parameters, but '" +
                                                              a.name + "' is " +
                                                              gg.graph.type(a.value).toString() +
                                                              " (build the model with dtype=bf16)");
        }
    }
    TrainingStep step;
    step.forwardOps = gg.forwardOps + gg.lossOps;
    step.backwardOps = gg.backwardOps;
    const std::size_t before = gg.graph.body.size();

    // The gradient graph's outputs are (loss, gradients...); the training step returns the loss and the
    // updates.
    std::vector<Output> gradientOutputs = gg.graph.outputs;
    const std::vector<std::size_t> order = gg.differentiated;
    Graph graph = std::move(gg.graph);
    graph.backwardStart = step.forwardOps;
    graph.outputs.clear();
    GraphBuilder b(std::move(graph));
    ValueId counter;
    if (optimizer.kind != Optimizer::Sgd)
        counter = b.argument(ArgumentRole::OptimizerState, "step", TensorType{{}, ElementType::I32});
    const std::size_t counterIndex = b.graph().arguments.size() - 1;
    ValueId nextStep;
    if (counter.valid()) {
        auto scope = b.scope("update");
        nextStep = b.add(counter, b.scalar(1, ElementType::I32), "step");
    }
    Update update(b, optimizer, nextStep);
    std::vector<std::pair<ValueId, std::size_t>> gradientValues;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const Argument param = b.graph().arguments[order[i]];
        update.apply(param, order[i], gradientOutputs[i + 1].value);
        gradientValues.emplace_back(gradientOutputs[i + 1].value, order[i]);
    }
    b.output(gradientOutputs.front().value, "loss");
    for (const auto& [value, argument] : update.donations())
        b.output(value, "new." + b.graph().arguments[argument].name, argument);
    if (counter.valid())
        b.output(nextStep, "new.step", counterIndex);
    auto built = std::move(b).finish();
    if (!built)
        return Result<TrainingStep>::failure(built.diagnostics());
    step.graph = std::move(built).value();
    step.graph.gradients = std::move(gradientValues);
    step.updateOps = step.graph.body.size() - before;
    Result<TrainingStep> out = std::move(step);
    out.addDiagnostics(differentiated.diagnostics());  // the loss's warnings (outputs left out of it)
    return out;
}

}  // namespace shardscope::train
