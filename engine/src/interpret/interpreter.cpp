// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The evaluator: binds arguments, runs ops in program order, runs regions (which see the values of enclosing
// scopes), checks every result against the graph's types and rounds it to its element type.
#include "shardscope/interpret/interpreter.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "interpret/index.h"
#include "interpret/numerics.h"
#include "interpret/ops.h"
#include "shardscope/ir/verifier.h"

namespace shardscope::interpret {

using ir::OpCategory;
using ir::OpKind;
using ir::TensorType;

Tensor Tensor::filled(TensorType type, double value) {
    const auto count = static_cast<std::size_t>(std::max<std::int64_t>(type.elements(), 0));
    return Tensor{std::move(type), std::vector<double>(count, value)};
}

double Tensor::at(const std::vector<std::int64_t>& index) const {
    if (!inBounds(index, type.shape))
        return std::numeric_limits<double>::quiet_NaN();
    const auto offset = static_cast<std::size_t>(offsetOf(index, rowMajorStrides(type.shape)));
    return offset < values.size() ? values[offset] : std::numeric_limits<double>::quiet_NaN();
}

Tensor zeros(const TensorType& type) {
    return Tensor::filled(type, 0.0);
}

std::string displayName(const ir::Op& op) {
    if (const auto* opaque = std::get_if<ir::OpaqueAttributes>(&op.attributes);
        opaque && (op.kind == OpKind::Opaque || op.kind == OpKind::OtherElementwise))
        return "'" + opaque->name + "'";
    if (const auto* call = std::get_if<ir::CustomCallAttributes>(&op.attributes);
        call && op.kind == OpKind::CustomCall)
        return "'stablehlo.custom_call' @" + call->target;
    return "'stablehlo." + std::string(ir::mnemonic(op.kind)) + "'";
}

namespace {

std::string where(const ir::Op& op) {
    const std::string location = op.location.toString();
    return location.empty() ? std::string() : " (at " + location + ")";
}

}  // namespace

Diagnostic opError(const ir::Op& op, const std::string& message, std::string code) {
    return makeError(std::move(code), displayName(op) + where(op) + ": " + message, op.location);
}

Diagnostic unsupportedOp(const ir::Op& op, const std::string& why) {
    return makeError(
        "interpret.unsupported-op",
        "the interpreter cannot run " + displayName(op) + where(op) + (why.empty() ? "" : ": " + why),
        op.location);
}

namespace {

// Whether a tensor of `type` has at most `limit` elements (without overflowing on absurd shapes).
bool withinLimit(const TensorType& type, std::int64_t limit) {
    std::int64_t elements = 1;
    for (auto d : type.shape) {
        if (d < 0 || (d > 0 && elements > limit / d))
            return false;
        elements *= d;
    }
    return elements <= limit;
}

Result<Tensors> one(Result<Tensor> result) {
    if (!result)
        return Result<Tensors>::failure(result.diagnostics());
    return Tensors{std::move(result).value()};
}

// Why the interpreter cannot run `op` at all ("" when there is nothing more to say), or nullopt when it can
// try.
std::optional<std::string> unsupportedReason(const ir::Op& op) {
    switch (ir::category(op.kind)) {
        case OpCategory::Collective:
            return "collectives need a partitioned program";
        case OpCategory::Opaque:
            return std::string();
        default:
            break;
    }
    switch (op.kind) {
        case OpKind::RngBitGenerator:
        case OpKind::Fft:
        case OpKind::Cholesky:
        case OpKind::TriangularSolve:
        case OpKind::BatchNormGrad:
        case OpKind::BatchNormTraining:
        case OpKind::CustomCall:
            return std::string();
        case OpKind::BatchNormInference:
            return "the IR does not keep its epsilon";
        case OpKind::Complex:
            return "complex numbers are not supported";
        default:
            return std::nullopt;
    }
}

class Evaluator {
public:
    Evaluator(const ir::Graph& graph, const Options& options)
        : graph_(graph), options_(options), values_(graph.values.size()), random_(options.rngSeed) {}

    Result<std::vector<Tensor>> run(const std::vector<Tensor>& arguments);

private:
    Status bindArguments(const std::vector<Tensor>& arguments);
    Status runOps(const std::vector<ir::OpId>& ops);
    Status runOp(const ir::Op& op);
    Status checkResultType(const ir::Op& op, const TensorType& type) const;
    Result<Tensors> evaluate(const ir::Op& op, const Operands& operands,
                             const std::vector<TensorType>& types);
    Result<Tensors> evaluateStructural(const ir::Op& op, const Operands& operands,
                                       const std::vector<TensorType>& types);
    Result<Tensors> runRegion(const ir::Op& op, const ir::Region& region, Tensors arguments);
    Result<ScalarFunction> scalarFunction(const ir::Op& op, std::size_t regionIndex, std::size_t arguments,
                                          std::size_t results);
    Result<Tensors> whileLoop(const ir::Op& op, const Operands& operands);
    Result<Tensors> branch(const ir::Op& op, const Operands& operands);

public:
    // Runs one op on the given operands (see OpRunner).
    Result<Tensors> runSingle(const ir::Op& op, const Operands& operands);

private:
    const ir::Graph& graph_;
    Options options_;
    std::vector<std::optional<Tensor>> values_;  // by ValueId; regions overwrite their values on every run
    std::mt19937_64 random_;                     // the rng ops' draws, in execution order
};

Result<std::vector<Tensor>> Evaluator::run(const std::vector<Tensor>& arguments) {
    if (Status verified = ir::verifyGraph(graph_); !verified)
        return Result<std::vector<Tensor>>::failure(verified.diagnostics());
    if (Status bound = bindArguments(arguments); !bound)
        return Result<std::vector<Tensor>>::failure(bound.diagnostics());
    if (Status done = runOps(graph_.body); !done)
        return Result<std::vector<Tensor>>::failure(done.diagnostics());
    std::vector<Tensor> outputs;
    for (std::size_t i = 0; i < graph_.outputs.size(); ++i) {
        const auto& value = values_[graph_.outputs[i].value.index];
        if (!value)
            return makeError("interpret.internal", "output #" + std::to_string(i) + " was never computed");
        outputs.push_back(*value);
    }
    return outputs;
}

Status Evaluator::bindArguments(const std::vector<Tensor>& arguments) {
    if (arguments.size() != graph_.arguments.size())
        return makeError("interpret.argument", "the graph takes " + std::to_string(graph_.arguments.size()) +
                                                   " arguments, got " + std::to_string(arguments.size()));
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        const ir::Argument& argument = graph_.arguments[i];
        const TensorType& expected = graph_.type(argument.value);
        const Tensor& given = arguments[i];
        const std::string label =
            "argument #" + std::to_string(i) + (argument.name.empty() ? "" : " '" + argument.name + "'");
        if (given.type != expected)
            return makeError("interpret.argument",
                             label + " expects " + expected.toString() + ", got " + given.type.toString(),
                             argument.location);
        if (!isSupported(expected.element))
            return makeError(
                "interpret.unsupported-type",
                label + " is of type " + expected.toString() + ", which the interpreter cannot hold",
                argument.location);
        if (!withinLimit(expected, options_.maxElements))
            return makeError("interpret.too-large",
                             label + " of type " + expected.toString() + " has more than " +
                                 std::to_string(options_.maxElements) + " elements, the interpreter's limit",
                             argument.location);
        if (static_cast<std::int64_t>(given.values.size()) != expected.elements())
            return makeError(
                "interpret.argument",
                label + " has " + std::to_string(given.values.size()) + " values for " + expected.toString(),
                argument.location);
        Tensor bound = given;
        for (double& v : bound.values)
            v = roundToElement(v, expected.element);
        values_[argument.value.index] = std::move(bound);
    }
    return Success{};
}

Status Evaluator::runOps(const std::vector<ir::OpId>& ops) {
    for (ir::OpId id : ops)
        if (Status s = runOp(graph_.op(id)); !s)
            return s;
    return Success{};
}

Status Evaluator::checkResultType(const ir::Op& op, const TensorType& type) const {
    if (!isSupported(type.element))
        return opError(op,
                       "the interpreter cannot hold " + std::string(ir::toString(type.element)) + " values",
                       "interpret.unsupported-type");
    if (!withinLimit(type, options_.maxElements))
        return opError(op,
                       "its result " + type.toString() + " has more than " +
                           std::to_string(options_.maxElements) + " elements, the interpreter's limit",
                       "interpret.too-large");
    return Success{};
}

Status Evaluator::runOp(const ir::Op& op) {
    if (auto why = unsupportedReason(op))
        return unsupportedOp(op, *why);
    Operands operands;
    for (ir::ValueId v : op.operands) {
        if (v.index >= values_.size() || !values_[v.index])
            return opError(op, "operand %" + std::to_string(v.index) + " has no value", "interpret.internal");
        operands.push_back(&*values_[v.index]);
    }
    std::vector<TensorType> types;
    for (ir::ValueId v : op.results) {
        types.push_back(graph_.type(v));
        if (Status s = checkResultType(op, types.back()); !s)
            return s;
    }
    auto results = evaluate(op, operands, types);
    if (!results)
        return Status::failure(results.diagnostics());
    if (results->size() != types.size())
        return opError(
            op,
            "produced " + std::to_string(results->size()) + " results for " + std::to_string(types.size()),
            "interpret.internal");
    for (std::size_t i = 0; i < types.size(); ++i) {
        Tensor& t = (*results)[i];
        if (t.type != types[i] || static_cast<std::int64_t>(t.values.size()) != types[i].elements())
            return opError(
                op, "produced " + t.type.toString() + " where the graph declares " + types[i].toString(),
                "interpret.internal");
        if (t.type.element != ir::ElementType::F64)
            for (double& v : t.values)
                v = roundToElement(v, t.type.element);
        values_[op.results[i].index] = std::move(t);
    }
    return Success{};
}

Result<Tensors> Evaluator::evaluate(const ir::Op& op, const Operands& operands,
                                    const std::vector<TensorType>& types) {
    switch (ir::category(op.kind)) {
        case OpCategory::ElementwiseUnary:
        case OpCategory::ElementwiseBinary:
        case OpCategory::ElementwiseTernary:
            return one(elementwise(op, operands, types[0]));
        case OpCategory::Control:
            return op.kind == OpKind::While ? whileLoop(op, operands) : branch(op, operands);
        case OpCategory::Structural:
            return evaluateStructural(op, operands, types);
        case OpCategory::Collective:
        case OpCategory::Opaque:
            break;
    }
    return unsupportedOp(op);
}

Result<Tensors> Evaluator::evaluateStructural(const ir::Op& op, const Operands& operands,
                                              const std::vector<TensorType>& types) {
    const TensorType type = types.empty() ? TensorType{} : types[0];
    switch (op.kind) {
        case OpKind::Constant:
            return one(constant(op, type));
        case OpKind::Iota:
            return one(iota(op, type));
        case OpKind::Rng:
            return one(rngUniform(op, operands, type, random_));
        case OpKind::BroadcastInDim:
            return one(broadcastInDim(op, *operands[0], type));
        case OpKind::Reshape:
            return one(reshape(*operands[0], type));
        case OpKind::Transpose:
            return one(transpose(op, *operands[0], type));
        case OpKind::Slice:
            return one(slice(op, *operands[0], type));
        case OpKind::Pad:
            return one(pad(op, *operands[0], *operands[1], type));
        case OpKind::Concatenate:
            return one(concatenate(op, operands, type));
        case OpKind::Reverse:
            return one(reverse(op, *operands[0], type));
        case OpKind::DynamicSlice:
            return one(dynamicSlice(op, operands, type));
        case OpKind::DynamicUpdateSlice:
            return one(dynamicUpdateSlice(op, operands, type));
        case OpKind::Gather:
            return one(gather(op, *operands[0], *operands[1], type));
        case OpKind::BitcastConvert:
            return one(bitcastConvert(op, *operands[0], type));
        case OpKind::DotGeneral:
            return one(dotGeneral(op, *operands[0], *operands[1], type));
        case OpKind::Convolution:
            return one(convolution(op, *operands[0], *operands[1], type));
        case OpKind::OptimizationBarrier: {
            Tensors same;
            for (const Tensor* t : operands)
                same.push_back(*t);
            return same;
        }
        case OpKind::Reduce:
        case OpKind::ReduceWindow: {
            const std::size_t n = operands.size() / 2;
            auto body = scalarFunction(op, 0, 2 * n, n);
            if (!body)
                return Result<Tensors>::failure(body.diagnostics());
            return op.kind == OpKind::Reduce ? reduce(op, operands, types, *body)
                                             : reduceWindow(op, operands, types, *body);
        }
        case OpKind::Scatter: {
            const std::size_t n = (operands.size() - 1) / 2;
            auto update = scalarFunction(op, 0, 2 * n, n);
            if (!update)
                return Result<Tensors>::failure(update.diagnostics());
            return scatter(op, operands, types, *update);
        }
        case OpKind::SelectAndScatter: {
            auto select = scalarFunction(op, 0, 2, 1);
            if (!select)
                return Result<Tensors>::failure(select.diagnostics());
            auto combine = scalarFunction(op, 1, 2, 1);
            if (!combine)
                return Result<Tensors>::failure(combine.diagnostics());
            return one(selectAndScatter(op, operands, type, *select, *combine));
        }
        case OpKind::Sort: {
            auto comparator = scalarFunction(op, 0, 2 * operands.size(), 1);
            if (!comparator)
                return Result<Tensors>::failure(comparator.diagnostics());
            return sort(op, operands, *comparator);
        }
        default:
            return unsupportedOp(op);
    }
}

Result<Tensors> Evaluator::runSingle(const ir::Op& op, const Operands& operands) {
    if (operands.size() != op.operands.size())
        return opError(op,
                       "takes " + std::to_string(op.operands.size()) + " operands, given " +
                           std::to_string(operands.size()),
                       "interpret.internal");
    for (std::size_t i = 0; i < operands.size(); ++i)
        values_[op.operands[i].index] = *operands[i];
    Status done = runOp(op);
    for (ir::ValueId v : op.operands)
        values_[v.index].reset();
    if (!done)
        return Result<Tensors>::failure(done.diagnostics());
    Tensors results;
    for (ir::ValueId v : op.results) {
        results.push_back(std::move(*values_[v.index]));
        values_[v.index].reset();
    }
    return results;
}

Result<Tensors> Evaluator::runRegion(const ir::Op& op, const ir::Region& region, Tensors arguments) {
    if (arguments.size() != region.arguments.size())
        return opError(op, "a region takes " + std::to_string(region.arguments.size()) +
                               " arguments but is given " + std::to_string(arguments.size()));
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        const TensorType& expected = graph_.type(region.arguments[i]);
        if (arguments[i].type != expected)
            return opError(op, "a region argument of type " + expected.toString() + " is given " +
                                   arguments[i].type.toString());
        values_[region.arguments[i].index] = std::move(arguments[i]);
    }
    if (Status s = runOps(region.ops); !s)
        return Result<Tensors>::failure(s.diagnostics());
    Tensors results;
    for (ir::ValueId v : region.results) {
        if (!values_[v.index])
            return opError(op, "a region returns a value it never computed", "interpret.internal");
        results.push_back(*values_[v.index]);
    }
    return results;
}

// A region of scalars as a function. A body that is a single binary element-wise op of its arguments (the
// usual add/max/compare bodies) runs directly; any other body runs through the evaluator.
Result<ScalarFunction> Evaluator::scalarFunction(const ir::Op& op, std::size_t regionIndex,
                                                 std::size_t arguments, std::size_t results) {
    const std::string what = "region #" + std::to_string(regionIndex) + " must take " +
                             std::to_string(arguments) + " scalars and return " + std::to_string(results);
    if (regionIndex >= op.regions.size())
        return opError(op, what + ", but the op has no such region");
    const ir::Region& region = op.regions[regionIndex];
    if (region.arguments.size() != arguments || region.results.size() != results)
        return opError(op, what);
    std::vector<TensorType> argumentTypes;
    for (ir::ValueId v : region.arguments)
        argumentTypes.push_back(graph_.type(v));
    for (const auto& list : {region.arguments, region.results})
        for (ir::ValueId v : list)
            if (graph_.type(v).rank() != 0 || !isSupported(graph_.type(v).element))
                return opError(op, what);

    if (region.ops.size() == 1 && results == 1) {
        const ir::Op& inner = graph_.op(region.ops[0]);
        auto position = [&](ir::ValueId v) {
            return static_cast<std::size_t>(std::find(region.arguments.begin(), region.arguments.end(), v) -
                                            region.arguments.begin());
        };
        if (ir::category(inner.kind) == OpCategory::ElementwiseBinary && inner.operands.size() == 2 &&
            inner.results.size() == 1 && region.results[0] == inner.results[0] &&
            position(inner.operands[0]) < arguments && position(inner.operands[1]) < arguments &&
            !unsupportedReason(inner)) {
            auto kernel = binaryKernel(inner, graph_.type(inner.operands[0]).element);
            if (!kernel)
                return Result<ScalarFunction>::failure(kernel.diagnostics());
            const std::size_t a = position(inner.operands[0]), b = position(inner.operands[1]);
            const ir::ElementType element = graph_.type(inner.results[0]).element;
            return ScalarFunction(
                [kernel = *kernel, a, b, element](std::span<const double> in, std::vector<double>& out) {
                    out.assign(1, roundToElement(kernel(in[a], in[b]), element));
                    return Status(Success{});
                });
        }
    }
    return ScalarFunction(
        [this, &op, &region, argumentTypes](std::span<const double> in, std::vector<double>& out) {
            Tensors bound;
            for (std::size_t i = 0; i < argumentTypes.size(); ++i)
                bound.push_back(Tensor{argumentTypes[i], {roundToElement(in[i], argumentTypes[i].element)}});
            auto produced = runRegion(op, region, std::move(bound));
            if (!produced)
                return Status::failure(produced.diagnostics());
            out.clear();
            for (const Tensor& t : *produced)
                out.push_back(t.values[0]);
            return Status(Success{});
        });
}

// while: run `cond` (regions[0]) on the loop values; while it yields true, replace them with what `body`
// (regions[1]) returns.
Result<Tensors> Evaluator::whileLoop(const ir::Op& op, const Operands& operands) {
    if (op.regions.size() != 2)
        return opError(op, "needs a condition and a body region");
    Tensors state;
    for (const Tensor* t : operands)
        state.push_back(*t);
    for (std::int64_t iteration = 0;; ++iteration) {
        auto condition = runRegion(op, op.regions[0], state);
        if (!condition)
            return condition;
        if (condition->size() != 1 || (*condition)[0].type != TensorType{{}, ir::ElementType::I1})
            return opError(op, "its condition must return one tensor<i1>");
        if ((*condition)[0].values[0] == 0)
            return state;
        if (iteration >= options_.maxLoopIterations)
            return opError(op,
                           "ran " + std::to_string(options_.maxLoopIterations) +
                               " iterations without finishing, the interpreter's limit",
                           "interpret.loop-limit");
        auto next = runRegion(op, op.regions[1], state);
        if (!next)
            return next;
        if (next->size() != state.size())
            return opError(op, "its body must return one value per loop value");
        for (std::size_t i = 0; i < state.size(); ++i)
            if ((*next)[i].type != state[i].type)
                return opError(op, "its body returns " + (*next)[i].type.toString() +
                                       " for a loop value of type " + state[i].type.toString());
        state = std::move(next).value();
    }
}

// case runs branch `index` (the last branch when the index is out of range); if runs regions[0] when its
// predicate is true and regions[1] otherwise.
Result<Tensors> Evaluator::branch(const ir::Op& op, const Operands& operands) {
    if (operands.size() != 1 || operands[0]->type.rank() != 0)
        return opError(op, "needs one scalar " + std::string(op.kind == OpKind::If ? "predicate" : "index"));
    const double selector = operands[0]->values[0];
    std::size_t chosen = 0;
    if (op.kind == OpKind::If) {
        if (op.regions.size() != 2)
            return opError(op, "needs a true and a false branch");
        chosen = selector != 0 ? 0 : 1;
    } else {
        if (op.regions.empty())
            return opError(op, "needs at least one branch");
        const std::int64_t index = toIndex(selector);
        const auto count = static_cast<std::int64_t>(op.regions.size());
        chosen = static_cast<std::size_t>(index < 0 || index >= count ? count - 1 : index);
    }
    return runRegion(op, op.regions[chosen], {});
}

}  // namespace

Result<std::vector<Tensor>> run(const ir::Graph& graph, const std::vector<Tensor>& arguments,
                                const Options& options) {
    return Evaluator(graph, options).run(arguments);
}

struct OpRunner::Impl {
    Evaluator evaluator;
};

OpRunner::OpRunner(const ir::Graph& graph, const Options& options)
    : impl_(std::make_unique<Impl>(Impl{Evaluator(graph, options)})) {}
OpRunner::~OpRunner() = default;

Result<Tensors> OpRunner::run(const ir::Op& op, const Operands& operands) {
    return impl_->evaluator.runSingle(op, operands);
}

}  // namespace shardscope::interpret
