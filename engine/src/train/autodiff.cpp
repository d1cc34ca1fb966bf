// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Reverse-mode autodiff: walk the forward ops in reverse program order and emit, for each op on the path from
// a differentiated argument to the loss, its vector-Jacobian product. Cotangents of values used several times
// are summed. Rules follow JAX's (jax/_src/lax), written with the graph builder so shapes are checked.
#include "shardscope/train/autodiff.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "shardscope/ir/builder.h"

namespace shardscope::train {

using namespace ir;

std::optional<Loss> parseLoss(std::string_view text) {
    if (text == "auto")
        return Loss::Auto;
    if (text == "cross-entropy" || text == "cross_entropy")
        return Loss::CrossEntropy;
    if (text == "mean-square" || text == "mse")
        return Loss::MeanSquare;
    if (text == "sum")
        return Loss::Sum;
    return std::nullopt;
}

namespace {

Dims iotaDims(int n, int from = 0) {
    Dims d;
    for (int i = from; i < n; ++i)
        d.push_back(i);
    return d;
}

bool contains(const Dims& dims, std::int64_t d) {
    return std::find(dims.begin(), dims.end(), d) != dims.end();
}

// The values an op's regions read from outside them (case and if branches capture what they use), in the
// order they are first read.
void collectCaptures(const Graph& g, const Region& region, std::unordered_set<std::uint32_t>& defined,
                     std::unordered_set<std::uint32_t>& seen, std::vector<ValueId>& out) {
    auto use = [&](ValueId v) {
        if (v.valid() && !defined.contains(v.index) && seen.insert(v.index).second)
            out.push_back(v);
    };
    for (ValueId a : region.arguments)
        defined.insert(a.index);
    for (OpId id : region.ops) {
        const Op& op = g.op(id);
        for (ValueId v : op.operands)
            use(v);
        for (const Region& inner : op.regions)
            collectCaptures(g, inner, defined, seen, out);
        for (ValueId v : op.results)
            defined.insert(v.index);
    }
    for (ValueId v : region.results)
        use(v);
}

std::vector<ValueId> captures(const Graph& g, const Op& op) {
    std::vector<ValueId> out;
    if (op.regions.empty())
        return out;
    std::unordered_set<std::uint32_t> defined, seen;
    for (const Region& region : op.regions)
        collectCaptures(g, region, defined, seen, out);
    return out;
}

// An op's operands and the values its regions capture: what the op reads.
std::vector<ValueId> reads(const Graph& g, const Op& op) {
    std::vector<ValueId> out = op.operands;
    if (!op.regions.empty())
        for (ValueId v : captures(g, op))
            out.push_back(v);
    return out;
}

// Drops the ops of `region`, and of its ops' regions, whose results nothing reads: a backward branch runs its
// forward branch again, but only what the VJPs read of it is kept.
void pruneRegion(Graph& g, Region& region) {
    std::unordered_set<std::uint32_t> used;
    for (ValueId v : region.results)
        used.insert(v.index);
    std::vector<OpId> kept;
    for (auto it = region.ops.rbegin(); it != region.ops.rend(); ++it) {
        bool live = false;
        for (ValueId v : g.op(*it).results)
            live = live || used.contains(v.index);
        if (!live)
            continue;
        for (Region& inner : g.op(*it).regions)
            pruneRegion(g, inner);
        for (ValueId v : reads(g, g.op(*it)))
            used.insert(v.index);
        kept.push_back(*it);
    }
    std::reverse(kept.begin(), kept.end());
    region.ops = std::move(kept);
}

Graph withoutOutputs(Graph g) {
    g.outputs.clear();
    return g;
}

// "'logits'", or "#1" for an output without a name.
std::string outputText(const Graph& g, std::size_t i) {
    const std::string& name = g.outputs[i].name;
    return name.empty() ? "#" + std::to_string(i) : "'" + name + "'";
}

// "'a', 'b' and 3 more": at most `shown` of the outputs `indices`.
std::string outputList(const Graph& g, const std::vector<std::size_t>& indices, std::size_t shown = 8) {
    std::string out;
    for (std::size_t k = 0; k < indices.size() && k < shown; ++k)
        out += (k == 0 ? "" : ", ") + outputText(g, indices[k]);
    if (indices.size() > shown)
        out += " and " + std::to_string(indices.size() - shown) + " more";
    return out;
}

// The outputs GradientOptions::lossOutput names: the first for "", every one for "all", else the output of
// that name or (failing that) index. Assumes `g` has outputs.
Result<std::vector<std::size_t>> lossOutputs(const Graph& g, const std::string& choice) {
    if (choice.empty())
        return std::vector<std::size_t>{0};
    std::vector<std::size_t> all(g.outputs.size());
    for (std::size_t i = 0; i < all.size(); ++i)
        all[i] = i;
    if (choice == "all")
        return all;
    for (std::size_t i = 0; i < g.outputs.size(); ++i)
        if (g.outputs[i].name == choice)
            return std::vector<std::size_t>{i};
    if (choice.size() <= 9 &&
        std::all_of(choice.begin(), choice.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        const std::size_t index = std::stoul(choice);
        if (index < g.outputs.size())
            return std::vector<std::size_t>{index};
    }
    std::string known;
    for (std::size_t i = 0; i < g.outputs.size() && i < 20; ++i)
        known += (i == 0 ? "" : ", ") + std::to_string(i) + " " +
                 (g.outputs[i].name.empty() ? "(unnamed)" : "'" + g.outputs[i].name + "'") + " " +
                 g.type(g.outputs[i].value).toString();
    if (g.outputs.size() > 20)
        known += " and " + std::to_string(g.outputs.size() - 20) + " more";
    return makeError("train.loss-output", "no output '" + choice +
                                              "' to take the loss of: the model's outputs are " + known +
                                              " (give a name, an index or all)");
}

class Differentiator {
public:
    Differentiator(const Graph& forward, const GradientOptions& options)
        : forward_(forward), options_(options), b_(withoutOutputs(forward)) {}

    Result<GradientGraph> run();

private:
    TensorType type(ValueId v) const { return b_.type(v); }
    ValueId zeros(const TensorType& t) { return b_.constant(0.0, t); }
    ValueId scalarLike(double v, ValueId like) { return b_.constant(v, type(like)); }
    void accumulate(ValueId v, ValueId g) {
        if (!g.valid())
            return;
        auto it = cotangent_.find(v.index);
        if (it == cotangent_.end())
            cotangent_[v.index] = g;
        else
            it->second = b_.add(it->second, g, label_);
    }
    bool needs(ValueId v) const { return v.index < needs_.size() && needs_[v.index]; }
    // The cotangent of `v` so far, the slices of it taken by dynamic_slice included (flushSlices).
    std::unordered_map<std::uint32_t, ValueId>::iterator findCotangent(ValueId v) {
        flushSlices(v);
        return cotangent_.find(v.index);
    }
    void flushSlices(ValueId v);
    void scatter(const Op& op, ValueId g);
    void sort(const Op& op, const std::vector<ValueId>& g);
    void branches(const Op& op, const std::vector<ValueId>& g);
    std::vector<OpId> copyOps(const std::vector<OpId>& ops, std::unordered_map<std::uint32_t, ValueId>& map);
    void markCopy(const std::vector<OpId>& ops, const std::vector<ValueId>& results);
    void backward(const std::vector<OpId>& program);
    void fail(const Op& op, const std::string& why) {
        if (!error_)
            error_ =
                makeError("train.no-vjp",
                          "cannot differentiate 'stablehlo." + std::string(mnemonic(op.kind)) + "': " + why,
                          op.location);
    }

    ValueId buildLoss(std::size_t output);
    void markPath(ValueId loss);
    void vjp(const Op& op, const std::vector<ValueId>& g);
    void elementwise(const Op& op, ValueId g);
    void dotGeneral(const Op& op, ValueId g);
    void convolution(const Op& op, ValueId g);
    void broadcast(const Op& op, ValueId g);
    void reduce(const Op& op, ValueId g);
    void reduceWindow(const Op& op, ValueId g);

    const Graph& forward_;
    const GradientOptions& options_;
    GraphBuilder b_;
    std::vector<bool> needs_;  // value depends on a differentiated argument and reaches the loss
    std::unordered_map<std::uint32_t, ValueId> cotangent_;
    struct SliceCotangent {
        ValueId cotangent;            // of the slice
        std::vector<ValueId> starts;  // the dynamic_slice's start indices
        std::string label;
    };
    std::unordered_map<std::uint32_t, std::vector<SliceCotangent>>
        slices_;  // value -> cotangents of its slices
    std::string label_;
    std::vector<OpId> backwardBranches_;  // the case and if ops `branches` made
    std::optional<Diagnostic> error_;
    std::optional<std::size_t> labelsArgument_;
};

ValueId Differentiator::buildLoss(std::size_t index) {
    Loss loss = options_.loss;
    const auto& chosen = forward_.outputs[index];
    const ValueId output = chosen.value;
    if (loss == Loss::Auto)
        loss = chosen.name == "logits" && type(output).rank() >= 2 ? Loss::CrossEntropy : Loss::MeanSquare;
    // Cross-entropy needs integer labels: an input of the output's shape without its last (class) dimension.
    ValueId target;
    if (loss == Loss::CrossEntropy) {
        const Shape& shape = type(output).shape;
        const Shape positions(shape.begin(), shape.end() - 1);
        std::vector<std::string> labels;  // the token input's dimension labels, when it has the labels' shape
        for (const auto& a : forward_.arguments)
            if (a.role == ArgumentRole::Input && forward_.type(a.value).shape == positions)
                labels = a.dimensionLabels;
        // A second output's labels (--loss-output all with cross-entropy) are an input of their own.
        const std::string name = labelsArgument_
                                     ? "labels." + (chosen.name.empty() ? std::to_string(index) : chosen.name)
                                     : "labels";
        if (!labelsArgument_)
            labelsArgument_ = b_.graph().arguments.size();
        target = b_.input(name, positions, ElementType::I32, labels);
    }
    auto scope = b_.scope("loss");
    ValueId y = type(output).element == ElementType::F64 ? output : b_.convert(output, ElementType::F32);
    const TensorType t = type(y);
    const double count = static_cast<double>(t.elements());
    switch (loss) {
        case Loss::Sum:
            return b_.reduce(y, iotaDims(t.rank()), Reducer::Add, "sum");
        case Loss::MeanSquare: {
            ValueId sum = b_.reduce(b_.multiply(y, y), iotaDims(t.rank()), Reducer::Add, "sum_squares");
            return b_.multiply(sum, b_.constant(0.5 / count, type(sum)), "mean_square");
        }
        case Loss::CrossEntropy:
        case Loss::Auto:
            break;
    }
    // Cross-entropy over the last dimension against integer labels.
    const int rank = t.rank();
    const Shape positions(t.shape.begin(), t.shape.end() - 1);

    const Dims leading = iotaDims(rank - 1);
    ValueId max = b_.reduce(y, {rank - 1}, Reducer::Maximum, "max");
    ValueId shifted = b_.subtract(y, b_.broadcastInDim(max, t.shape, leading));
    ValueId sumExp = b_.reduce(b_.unary(OpKind::Exponential, shifted), {rank - 1}, Reducer::Add, "sum_exp");
    ValueId logSumExp = b_.add(b_.unary(OpKind::Log, sumExp), max, "logsumexp");
    ValueId classes = b_.iota(TensorType{t.shape, ElementType::I32}, rank - 1);
    ValueId isTarget =
        b_.compare(b_.broadcastInDim(target, t.shape, leading), classes, CompareDirection::EQ, "one_hot");
    ValueId picked = b_.reduce(b_.select(isTarget, y, zeros(t)), {rank - 1}, Reducer::Add, "picked");
    ValueId perPosition = b_.subtract(logSumExp, picked);
    ValueId total = b_.reduce(perPosition, iotaDims(rank - 1), Reducer::Add, "total");
    return b_.multiply(total, b_.constant(1.0 / static_cast<double>(elementCount(positions)), type(total)),
                       "cross_entropy");
}

// needs_[v]: v is floating point, depends on a differentiated argument, and the loss depends on v.
void Differentiator::markPath(ValueId loss) {
    const Graph& g = b_.graph();
    std::vector<bool> depends(g.values.size(), false), reaches(g.values.size(), false);
    for (const auto& a : g.arguments) {
        const bool differentiate = options_.allFloatArguments ? isFloat(g.type(a.value).element)
                                                              : a.role == ArgumentRole::Parameter &&
                                                                    isFloat(g.type(a.value).element);
        depends[a.value.index] = differentiate;
    }
    // Branches read the values they capture as operands.
    std::vector<std::vector<ValueId>> read(g.body.size());
    for (std::size_t i = 0; i < g.body.size(); ++i)
        read[i] = reads(g, g.op(g.body[i]));
    for (std::size_t i = 0; i < g.body.size(); ++i) {
        const Op& op = g.op(g.body[i]);
        bool any = false;
        for (auto v : read[i])
            any = any || depends[v.index];
        for (auto v : op.results)
            depends[v.index] = any && isFloat(g.type(v).element);
    }
    reaches[loss.index] = true;
    for (std::size_t i = g.body.size(); i-- > 0;) {
        const Op& op = g.op(g.body[i]);
        bool any = false;
        for (auto v : op.results)
            any = any || reaches[v.index];
        if (any)
            for (auto v : read[i])
                reaches[v.index] = true;
    }
    needs_.assign(g.values.size(), false);
    for (std::size_t i = 0; i < g.values.size(); ++i)
        needs_[i] = depends[i] && reaches[i];
}

void Differentiator::elementwise(const Op& op, ValueId g) {
    const auto& in = op.operands;
    const ValueId out = op.results.front();
    auto x = [&](std::size_t i) { return in[i]; };
    switch (op.kind) {
        case OpKind::Add:
            accumulate(x(0), g), accumulate(x(1), g);
            return;
        case OpKind::Subtract:
            accumulate(x(0), g),
                accumulate(x(1), needs(x(1)) ? b_.unary(OpKind::Negate, g, label_) : ValueId{});
            return;
        case OpKind::Multiply:
            if (needs(x(0)))
                accumulate(x(0), b_.multiply(g, x(1), label_));
            if (needs(x(1)))
                accumulate(x(1), b_.multiply(g, x(0), label_));
            return;
        case OpKind::Divide:
            if (needs(x(0)))
                accumulate(x(0), b_.divide(g, x(1), label_));
            if (needs(x(1)))
                accumulate(x(1), b_.unary(OpKind::Negate, b_.divide(b_.multiply(g, out), x(1)), label_));
            return;
        case OpKind::Maximum:
        case OpKind::Minimum: {
            // The first operand takes ties, as JAX's rule splits them evenly; either is a valid subgradient.
            const auto direction = op.kind == OpKind::Maximum ? CompareDirection::GE : CompareDirection::LE;
            ValueId first = b_.compare(x(0), x(1), direction, label_);
            ValueId zero = zeros(type(g));
            if (needs(x(0)))
                accumulate(x(0), b_.select(first, g, zero, label_));
            if (needs(x(1)))
                accumulate(x(1), b_.select(first, zero, g, label_));
            return;
        }
        case OpKind::Power:
            if (needs(x(0))) {
                ValueId exponentMinusOne = b_.subtract(x(1), scalarLike(1.0, x(1)));
                accumulate(x(0),
                           b_.multiply(g, b_.multiply(x(1), b_.binary(OpKind::Power, x(0), exponentMinusOne)),
                                       label_));
            }
            if (needs(x(1)))
                accumulate(x(1), b_.multiply(g, b_.multiply(out, b_.unary(OpKind::Log, x(0))), label_));
            return;
        case OpKind::Negate:
            accumulate(x(0), b_.unary(OpKind::Negate, g, label_));
            return;
        case OpKind::Exponential:
            accumulate(x(0), b_.multiply(g, out, label_));
            return;
        case OpKind::ExponentialMinusOne:
            accumulate(x(0), b_.multiply(g, b_.add(out, scalarLike(1.0, out)), label_));
            return;
        case OpKind::Log:
            accumulate(x(0), b_.divide(g, x(0), label_));
            return;
        case OpKind::LogPlusOne:
            accumulate(x(0), b_.divide(g, b_.add(x(0), scalarLike(1.0, x(0))), label_));
            return;
        case OpKind::Tanh:
            accumulate(x(0),
                       b_.multiply(g, b_.subtract(scalarLike(1.0, out), b_.multiply(out, out)), label_));
            return;
        case OpKind::Logistic:
            accumulate(x(0),
                       b_.multiply(g, b_.multiply(out, b_.subtract(scalarLike(1.0, out), out)), label_));
            return;
        case OpKind::Rsqrt:  // d/dx x^-1/2 = -1/2 · out³
            accumulate(
                x(0),
                b_.multiply(g, b_.multiply(scalarLike(-0.5, out), b_.multiply(out, b_.multiply(out, out))),
                            label_));
            return;
        case OpKind::Sqrt:
            accumulate(x(0), b_.divide(g, b_.multiply(scalarLike(2.0, out), out), label_));
            return;
        case OpKind::Cbrt:
            accumulate(x(0), b_.divide(g, b_.multiply(scalarLike(3.0, out), b_.multiply(out, out)), label_));
            return;
        case OpKind::Abs:
            accumulate(x(0), b_.multiply(g, b_.unary(OpKind::Sign, x(0)), label_));
            return;
        case OpKind::Sine:
            accumulate(x(0), b_.multiply(g, b_.unary(OpKind::Cosine, x(0)), label_));
            return;
        case OpKind::Cosine:
            accumulate(x(0), b_.unary(OpKind::Negate, b_.multiply(g, b_.unary(OpKind::Sine, x(0))), label_));
            return;
        case OpKind::Tan: {
            ValueId t = out;
            accumulate(x(0), b_.multiply(g, b_.add(scalarLike(1.0, t), b_.multiply(t, t)), label_));
            return;
        }
        case OpKind::Convert:
        case OpKind::ReducePrecision:
            if (isFloat(type(x(0)).element))
                accumulate(x(0), type(g).element == type(x(0)).element
                                     ? g
                                     : b_.convert(g, type(x(0)).element, label_));
            return;
        case OpKind::Sign:
        case OpKind::Floor:
        case OpKind::Ceil:
        case OpKind::RoundNearestAfz:
        case OpKind::RoundNearestEven:
            return;  // zero almost everywhere
        case OpKind::OtherElementwise: {
            const auto* name = std::get_if<OpaqueAttributes>(&op.attributes);
            if (name && name->name == "chlo.erf") {  // 2/√π · exp(-x²)
                ValueId square = b_.multiply(x(0), x(0));
                ValueId density = b_.unary(OpKind::Exponential, b_.unary(OpKind::Negate, square));
                accumulate(
                    x(0),
                    b_.multiply(g, b_.multiply(scalarLike(2.0 / std::sqrt(std::numbers::pi), x(0)), density),
                                label_));
                return;
            }
            fail(op, "no VJP rule for '" + (name ? name->name : std::string("elementwise")) + "'");
            return;
        }
        case OpKind::Select: {
            ValueId zero = zeros(type(g));
            if (needs(x(1)))
                accumulate(x(1), b_.select(x(0), g, zero, label_));
            if (needs(x(2)))
                accumulate(x(2), b_.select(x(0), zero, g, label_));
            return;
        }
        case OpKind::Clamp: {
            // clamp(lo, x, hi) = min(max(x, lo), hi): the gradient goes to whichever operand each step
            // selected.
            const Shape shape = type(x(1)).shape;
            auto full = [&](ValueId v) {
                return type(v).shape == shape ? v : b_.broadcastInDim(v, shape, {});
            };
            ValueId lo = full(x(0)), hi = full(x(2));
            ValueId raised = b_.maximum(x(1), lo);
            ValueId keepsX = b_.compare(x(1), lo, CompareDirection::GE, label_);
            ValueId belowHi = b_.compare(raised, hi, CompareDirection::LE, label_);
            ValueId zero = zeros(type(g));
            ValueId throughMax = b_.select(belowHi, g, zero, label_);
            auto reduced = [&](ValueId bound, ValueId part) {
                return type(bound).shape.empty()
                           ? b_.reduce(part, iotaDims(type(part).rank()), Reducer::Add, label_)
                           : part;
            };
            if (needs(x(1)))
                accumulate(x(1), b_.select(keepsX, throughMax, zero, label_));
            if (needs(x(0)))
                accumulate(x(0), reduced(x(0), b_.select(keepsX, zero, throughMax, label_)));
            if (needs(x(2)))
                accumulate(x(2), reduced(x(2), b_.select(belowHi, zero, g, label_)));
            return;
        }
        default:
            fail(op, "no VJP rule for this op");
            return;
    }
}

// Cotangent of an operand of broadcast_in_dim: sum over the broadcast dimensions, then restore the operand's
// shape.
void Differentiator::broadcast(const Op& op, ValueId g) {
    const ValueId x = op.operands[0];
    const auto& dims = std::get<BroadcastDimensions>(op.attributes).dims;
    const Shape& in = type(x).shape;
    const Shape& out = type(g).shape;
    Dims summed;
    std::vector<std::pair<std::int64_t, int>> kept;  // (result dim, operand dim) of dimensions that stay
    for (int d = 0; d < static_cast<int>(out.size()); ++d) {
        auto it = std::find(dims.begin(), dims.end(), d);
        if (it == dims.end()) {
            summed.push_back(d);
            continue;
        }
        const int i = static_cast<int>(it - dims.begin());
        if (in[i] == 1 && out[d] != 1)
            summed.push_back(d);
        else
            kept.emplace_back(d, i);
    }
    ValueId r = summed.empty() ? g : b_.reduce(g, summed, Reducer::Add, label_);
    // Kept dimensions come out in result order; put them in operand order.
    Dims permutation(kept.size());
    std::vector<int> operandOrder;
    operandOrder.reserve(kept.size());
    for (const auto& k : kept)
        operandOrder.push_back(k.second);
    std::vector<int> sorted = operandOrder;
    std::sort(sorted.begin(), sorted.end());
    bool identity = true;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        permutation[i] =
            std::find(operandOrder.begin(), operandOrder.end(), sorted[i]) - operandOrder.begin();
        identity = identity && permutation[i] == static_cast<std::int64_t>(i);
    }
    if (!identity)
        r = b_.transpose(r, permutation, label_);
    if (type(r).shape != in)
        r = b_.reshape(r, in, label_);
    accumulate(x, r);
}

void Differentiator::dotGeneral(const Op& op, ValueId g) {
    const ValueId lhs = op.operands[0], rhs = op.operands[1];
    const auto& d = std::get<DotDimensions>(op.attributes);
    const int ra = type(lhs).rank(), rb = type(rhs).rank();
    const auto nb = static_cast<std::int64_t>(d.lhsBatching.size());
    Dims lhsFree, rhsFree;
    for (int i = 0; i < ra; ++i)
        if (!contains(d.lhsBatching, i) && !contains(d.lhsContracting, i))
            lhsFree.push_back(i);
    for (int i = 0; i < rb; ++i)
        if (!contains(d.rhsBatching, i) && !contains(d.rhsContracting, i))
            rhsFree.push_back(i);
    const auto nLhsFree = static_cast<std::int64_t>(lhsFree.size());
    const Dims gBatch = iotaDims(static_cast<int>(nb));

    // One side's cotangent: contract g's dimensions of the other side's free dims with that side's free dims.
    auto side = [&](ValueId other, const Dims& otherBatching, const Dims& otherFree, const Dims& ownBatching,
                    const Dims& ownFree, const Dims& ownContracting, const Dims& otherContracting,
                    std::int64_t gOtherStart, int rank) {
        Dims gContract;
        for (std::int64_t i = 0; i < static_cast<std::int64_t>(otherFree.size()); ++i)
            gContract.push_back(gOtherStart + i);
        ValueId raw = b_.dotGeneral(g, other, {gBatch, otherBatching, gContract, otherFree}, label_);
        // raw: [batch, own free, other's contracting dims in ascending order].
        Dims sortedOtherContracting = otherContracting;
        std::sort(sortedOtherContracting.begin(), sortedOtherContracting.end());
        Dims permutation(static_cast<std::size_t>(rank));
        for (int dim = 0; dim < rank; ++dim) {
            if (auto it = std::find(ownBatching.begin(), ownBatching.end(), dim); it != ownBatching.end()) {
                permutation[dim] = it - ownBatching.begin();
            } else if (auto f = std::find(ownFree.begin(), ownFree.end(), dim); f != ownFree.end()) {
                permutation[dim] = nb + (f - ownFree.begin());
            } else {
                const auto k =
                    std::find(ownContracting.begin(), ownContracting.end(), dim) - ownContracting.begin();
                const auto partner = otherContracting[static_cast<std::size_t>(k)];
                const auto r =
                    std::find(sortedOtherContracting.begin(), sortedOtherContracting.end(), partner) -
                    sortedOtherContracting.begin();
                permutation[dim] = nb + static_cast<std::int64_t>(ownFree.size()) + r;
            }
        }
        bool identity = true;
        for (int i = 0; i < rank; ++i)
            identity = identity && permutation[i] == i;
        return identity ? raw : b_.transpose(raw, permutation, label_);
    };
    if (needs(lhs))
        accumulate(lhs, side(rhs, d.rhsBatching, rhsFree, d.lhsBatching, lhsFree, d.lhsContracting,
                             d.rhsContracting, nb + nLhsFree, ra));
    if (needs(rhs))
        accumulate(rhs, side(lhs, d.lhsBatching, lhsFree, d.rhsBatching, rhsFree, d.rhsContracting,
                             d.lhsContracting, nb, rb));
}

// JAX's _conv_general_dilated_transpose_lhs / _rhs.
void Differentiator::convolution(const Op& op, ValueId g) {
    const auto& c = std::get<ConvolutionAttributes>(op.attributes);
    if (c.batchGroupCount != 1) {
        fail(op, "batch_group_count > 1 has no VJP rule here");
        return;
    }
    const ValueId lhs = op.operands[0], rhs = op.operands[1];
    const std::size_t n = c.inputSpatial.size();
    auto at = [](const Dims& v, std::size_t i) { return v.empty() ? std::int64_t{1} : v[i]; };
    auto dilate = [](std::int64_t size, std::int64_t factor) {
        return size == 0 ? 0 : 1 + factor * (size - 1);
    };
    const Shape &in = type(lhs).shape, &kernel = type(rhs).shape, &out = type(g).shape;
    const std::int64_t groups = c.featureGroupCount;
    // Per spatial dimension: the dilated input, kernel and output sizes and the low padding, which both
    // transposed convolutions pad from.
    struct Spatial {
        std::int64_t lhs, rhs, out, low;
    };
    std::vector<Spatial> spatial;
    for (std::size_t i = 0; i < n; ++i)
        spatial.push_back({dilate(in[c.inputSpatial[i]], at(c.lhsDilation, i)),
                           dilate(kernel[c.kernelSpatial[i]], at(c.rhsDilation, i)),
                           dilate(out[c.outputSpatial[i]], at(c.windowStrides, i)),
                           c.padding.empty() ? 0 : c.padding[i].first});

    if (needs(lhs)) {
        ConvolutionAttributes t;
        // g is the input (out layout), the kernel has its features swapped, the output has the lhs layout.
        t.inputBatch = c.outputBatch, t.inputFeature = c.outputFeature, t.inputSpatial = c.outputSpatial;
        t.kernelInputFeature = c.kernelOutputFeature, t.kernelOutputFeature = c.kernelInputFeature,
        t.kernelSpatial = c.kernelSpatial;
        t.outputBatch = c.inputBatch, t.outputFeature = c.inputFeature, t.outputSpatial = c.inputSpatial;
        t.windowStrides = c.lhsDilation;
        t.lhsDilation = c.windowStrides;
        t.rhsDilation = c.rhsDilation;
        t.featureGroupCount = groups;
        for (const auto& d : spatial) {
            const std::int64_t before = d.rhs - d.low - 1;
            t.padding.emplace_back(before, d.lhs + d.rhs - 1 - d.out - before);
        }
        ValueId weights = rhs;
        if (groups > 1) {
            // Move the group factor from the kernel's output features into its input features.
            const auto o = c.kernelOutputFeature, i = c.kernelInputFeature;
            Shape split = kernel;
            split[o] = kernel[o] / groups;
            split.insert(split.begin() + o, groups);
            weights = b_.reshape(weights, split, label_);
            // Axis o is the group axis now; the input feature axis is at i (+1 when it comes after o).
            const std::int64_t inputAxis = i > o ? i + 1 : i;
            Dims permutation;
            for (std::int64_t a = 0; a < static_cast<std::int64_t>(split.size()); ++a) {
                if (a == o)
                    continue;
                if (a == inputAxis)
                    permutation.push_back(o);
                permutation.push_back(a);
            }
            weights = b_.transpose(weights, permutation, label_);
            Shape merged = kernel;
            merged[o] = kernel[o] / groups;
            merged[i] = kernel[i] * groups;
            weights = b_.reshape(weights, merged, label_);
        }
        weights = b_.op1(OpKind::Reverse, {weights}, DimensionsAttribute{c.kernelSpatial}, label_);
        accumulate(lhs, b_.convolution(g, weights, t, label_));
    }
    if (needs(rhs)) {
        ConvolutionAttributes t;
        // Input: lhs with batch and feature swapped; kernel: g with (batch, feature) as (input, output)
        // features.
        t.inputBatch = c.inputFeature, t.inputFeature = c.inputBatch, t.inputSpatial = c.inputSpatial;
        t.kernelInputFeature = c.outputBatch, t.kernelOutputFeature = c.outputFeature,
        t.kernelSpatial = c.outputSpatial;
        t.outputBatch = c.kernelInputFeature, t.outputFeature = c.kernelOutputFeature,
        t.outputSpatial = c.kernelSpatial;
        t.windowStrides = c.rhsDilation;
        t.lhsDilation = c.lhsDilation;
        t.rhsDilation = c.windowStrides;
        t.batchGroupCount = groups;
        for (const auto& d : spatial)
            t.padding.emplace_back(d.low, (d.out - d.lhs) + (d.rhs - d.low - 1));
        accumulate(rhs, b_.convolution(lhs, g, t, label_));
    }
}

void Differentiator::reduce(const Op& op, ValueId g) {
    const auto& r = std::get<ReduceAttributes>(op.attributes);
    if (op.operands.size() != 2) {
        fail(op, "variadic reduce has no VJP rule");
        return;
    }
    const ValueId x = op.operands[0];
    if (needs(op.operands[1])) {
        fail(op, "the init value of a reduce has no VJP rule");
        return;
    }
    const Shape& shape = type(x).shape;
    Dims kept;
    for (int d = 0; d < static_cast<int>(shape.size()); ++d)
        if (!contains(r.dimensions, d))
            kept.push_back(d);
    ValueId spread = b_.broadcastInDim(g, shape, kept, label_);
    switch (r.reducer) {
        case Reducer::Add:
            accumulate(x, spread);
            return;
        case Reducer::Maximum:
        case Reducer::Minimum: {
            ValueId isExtreme =
                b_.compare(x, b_.broadcastInDim(op.results[0], shape, kept), CompareDirection::EQ, label_);
            accumulate(x, b_.select(isExtreme, spread, zeros(type(x)), label_));
            return;
        }
        case Reducer::Multiply:
            accumulate(
                x, b_.divide(b_.multiply(spread, b_.broadcastInDim(op.results[0], shape, kept)), x, label_));
            return;
        default:
            fail(op, "no VJP rule for this reducer");
            return;
    }
}

void Differentiator::reduceWindow(const Op& op, ValueId g) {
    const auto& w = std::get<WindowAttributes>(op.attributes);
    if (op.operands.size() != 2 || needs(op.operands[1])) {
        fail(op, "only single-input reduce_window without a differentiable init has a VJP rule");
        return;
    }
    const ValueId x = op.operands[0];
    const int rank = type(x).rank();
    auto dilated = [](const Dims& v) {
        for (auto d : v)
            if (d != 1)
                return true;
        return false;
    };
    if (dilated(w.baseDilations) || dilated(w.windowDilations)) {
        fail(op, "dilated windows have no VJP rule here");
        return;
    }
    if (w.reducer == Reducer::Maximum || w.reducer == Reducer::Minimum) {
        // The gradient goes to the element each window selected: select_and_scatter, as JAX lowers
        // max-pool's.
        const TensorType scalar{{}, type(x).element};
        const auto direction = w.reducer == Reducer::Maximum ? CompareDirection::GE : CompareDirection::LE;
        Region select = b_.region({scalar, scalar}, [&](const std::vector<ValueId>& a) {
            return std::vector<ValueId>{b_.compare(a[0], a[1], direction)};
        });
        Region scatter = b_.region({scalar, scalar}, [&](const std::vector<ValueId>& a) {
            return std::vector<ValueId>{b_.add(a[0], a[1])};
        });
        WindowAttributes window = w;
        window.reducer = Reducer::Add;
        auto results = b_.op(OpKind::SelectAndScatter, {x, g, b_.scalar(0, type(x).element)}, window, label_,
                             {select, scatter});
        if (!results.empty())
            accumulate(x, results.front());
        return;
    }
    if (w.reducer != Reducer::Add) {
        fail(op, "no VJP rule for this reducer");
        return;
    }
    // Sum windows: each input element receives the sum of the cotangents of the windows that contain it, a
    // stride-1 sum over g spread out by the strides and padded so every input position sees its windows.
    Dims low(rank), high(rank), interior(rank);
    for (int d = 0; d < rank; ++d) {
        const std::int64_t window = w.windowDimensions[d];
        const std::int64_t stride = w.windowStrides.empty() ? 1 : w.windowStrides[d];
        const std::int64_t padLow = w.padding.empty() ? 0 : w.padding[d].first;
        const std::int64_t n = type(x).shape[d], outputs = type(g).shape[d];
        low[d] = window - 1 - padLow;
        interior[d] = stride - 1;
        const std::int64_t spread = outputs == 0 ? 0 : (outputs - 1) * stride + 1;
        high[d] = n + window - 1 - spread - low[d];
    }
    WindowAttributes sum;
    sum.windowDimensions = w.windowDimensions;
    sum.reducer = Reducer::Add;
    // Without strides and with padding that only grows, the sum's own padding does it: no padded tensor (a
    // dimension the forward pass does not have) is made.
    const bool ownPadding =
        std::all_of(interior.begin(), interior.end(), [](std::int64_t i) { return i == 0; }) &&
        std::all_of(low.begin(), low.end(), [](std::int64_t l) { return l >= 0; }) &&
        std::all_of(high.begin(), high.end(), [](std::int64_t h) { return h >= 0; });
    if (ownPadding) {
        for (int d = 0; d < rank; ++d)
            sum.padding.emplace_back(low[d], high[d]);
        accumulate(x, b_.reduceWindow(g, sum, label_));
        return;
    }
    ValueId padded = b_.pad(g, b_.scalar(0, type(g).element), low, high, interior, label_);
    accumulate(x, b_.reduceWindow(padded, sum, label_));
}

void Differentiator::vjp(const Op& op, const std::vector<ValueId>& g) {
    const ValueId g0 = g.empty() ? ValueId{} : g.front();
    if (isElementwise(op.kind)) {
        if (g0.valid())
            elementwise(op, g0);
        return;
    }
    switch (op.kind) {
        case OpKind::BroadcastInDim:
            broadcast(op, g0);
            return;
        case OpKind::Reshape:
            accumulate(op.operands[0], b_.reshape(g0, type(op.operands[0]).shape, label_));
            return;
        case OpKind::Transpose: {
            const auto& p = std::get<Permutation>(op.attributes).permutation;
            Dims inverse(p.size());
            for (std::size_t i = 0; i < p.size(); ++i)
                inverse[static_cast<std::size_t>(p[i])] = static_cast<std::int64_t>(i);
            accumulate(op.operands[0], b_.transpose(g0, inverse, label_));
            return;
        }
        case OpKind::Reverse:
            accumulate(op.operands[0], b_.op1(OpKind::Reverse, {g0}, op.attributes, label_));
            return;
        case OpKind::DotGeneral:
            dotGeneral(op, g0);
            return;
        case OpKind::Convolution:
            convolution(op, g0);
            return;
        case OpKind::Reduce:
            reduce(op, g0);
            return;
        case OpKind::ReduceWindow:
            reduceWindow(op, g0);
            return;
        case OpKind::Slice: {
            const auto& s = std::get<SliceAttributes>(op.attributes);
            const Shape& in = type(op.operands[0]).shape;
            const Shape& out = type(g0).shape;
            Dims low = s.start, high(in.size()), interior(in.size());
            for (std::size_t d = 0; d < in.size(); ++d) {
                const std::int64_t stride = s.strides.empty() ? 1 : s.strides[d];
                interior[d] = stride - 1;
                const std::int64_t last = out[d] == 0 ? s.start[d] - 1 : s.start[d] + (out[d] - 1) * stride;
                high[d] = in[d] - 1 - last;
            }
            accumulate(op.operands[0],
                       b_.pad(g0, b_.scalar(0, type(g0).element), low, high, interior, label_));
            return;
        }
        case OpKind::Pad: {
            const auto& p = std::get<PadAttributes>(op.attributes);
            const ValueId x = op.operands[0];
            const Shape& in = type(x).shape;
            const int rank = static_cast<int>(in.size());
            // Undo negative padding first so every operand element has a place in the padded cotangent.
            Dims before(rank), after(rank), start(rank), limit(rank), strides(rank);
            bool negative = false;
            for (int d = 0; d < rank; ++d) {
                before[d] = std::max<std::int64_t>(0, -p.low[d]);
                after[d] = std::max<std::int64_t>(0, -p.high[d]);
                negative = negative || before[d] || after[d];
            }
            ValueId whole =
                negative ? b_.pad(g0, b_.scalar(0, type(g0).element), before, after, {}, label_) : g0;
            for (int d = 0; d < rank; ++d) {
                const std::int64_t step = (p.interior.empty() ? 0 : p.interior[d]) + 1;
                start[d] = p.low[d] + before[d];
                strides[d] = step;
                limit[d] = in[d] == 0 ? start[d] : start[d] + (in[d] - 1) * step + 1;
            }
            ValueId dx = b_.slice(whole, start, limit, strides, label_);
            if (needs(x))
                accumulate(x, dx);
            if (needs(op.operands[1])) {
                ValueId all = b_.reduce(g0, iotaDims(type(g0).rank()), Reducer::Add, label_);
                ValueId toOperand = b_.reduce(dx, iotaDims(rank), Reducer::Add, label_);
                accumulate(op.operands[1], b_.subtract(all, toOperand, label_));
            }
            return;
        }
        case OpKind::Concatenate: {
            const auto dim = std::get<DimensionAttribute>(op.attributes).dimension;
            std::int64_t offset = 0;
            for (ValueId x : op.operands) {
                const Shape& shape = type(x).shape;
                if (needs(x)) {
                    Dims start(shape.size(), 0), limit = shape;
                    start[dim] = offset;
                    limit[dim] = offset + shape[dim];
                    accumulate(x, b_.slice(g0, start, limit, {}, label_));
                }
                offset += shape[dim];
            }
            return;
        }
        case OpKind::Gather: {
            if (needs(op.operands[1])) {
                fail(op, "gather indices are not differentiable");
                return;
            }
            const auto& a = std::get<GatherAttributes>(op.attributes);
            ScatterAttributes s;
            s.updateWindowDims = a.offsetDims;
            s.insertedWindowDims = a.collapsedSliceDims;
            s.inputBatchingDims = a.operandBatchingDims;
            s.scatterIndicesBatchingDims = a.startIndicesBatchingDims;
            s.scatterDimsToOperandDims = a.startIndexMap;
            s.indexVectorDim = a.indexVectorDim;
            s.indicesAreSorted = a.indicesAreSorted;
            const TensorType scalar{{}, type(g0).element};
            Region add = b_.region({scalar, scalar}, [&](const std::vector<ValueId>& v) {
                return std::vector<ValueId>{b_.add(v[0], v[1])};
            });
            auto r =
                b_.op(OpKind::Scatter, {zeros(type(op.operands[0])), op.operands[1], g0}, s, label_, {add});
            if (!r.empty())
                accumulate(op.operands[0], r.front());
            return;
        }
        case OpKind::DynamicSlice:
            // Kept until the operand's cotangent is read: slices of a stacked weight become one concatenate.
            slices_[op.operands[0].index].push_back(
                {g0, std::vector<ValueId>(op.operands.begin() + 1, op.operands.end()), label_});
            return;
        case OpKind::Scatter:
            scatter(op, g0);
            return;
        case OpKind::Sort:
            sort(op, g);
            return;
        case OpKind::DynamicUpdateSlice: {
            const ValueId update = op.operands[1];
            std::vector<ValueId> indices(op.operands.begin() + 2, op.operands.end());
            if (needs(op.operands[0])) {
                std::vector<ValueId> operands{g0, zeros(type(update))};
                operands.insert(operands.end(), indices.begin(), indices.end());
                accumulate(op.operands[0], b_.op1(OpKind::DynamicUpdateSlice, operands, {}, label_));
            }
            if (needs(update)) {
                std::vector<ValueId> operands{g0};
                operands.insert(operands.end(), indices.begin(), indices.end());
                accumulate(update, b_.op1(OpKind::DynamicSlice, operands,
                                          DynamicSliceAttributes{type(update).shape}, label_));
            }
            return;
        }
        case OpKind::OptimizationBarrier:
            for (std::size_t i = 0; i < op.operands.size() && i < g.size(); ++i)
                accumulate(op.operands[i], g[i]);
            return;
        case OpKind::Constant:
        case OpKind::Iota:
            return;
        case OpKind::While:
            fail(op,
                 "only counted loops (a counter from a constant by a constant step to a constant limit) are "
                 "differentiated, unrolled; this loop's trip count is not one");
            return;
        case OpKind::Case:
        case OpKind::If:
            branches(op, g);
            return;
        default:
            fail(op, "no VJP rule for this op");
            return;
    }
}

// The slices' cotangents go back into a tensor of v's shape. When they cut one dimension into pieces at
// constant starts, each place once (the slices of a stacked weight, one per unrolled scan iteration), that
// tensor is their concatenation, as a scan's backward stacks its per-layer gradients; otherwise each goes in
// with a dynamic_update_slice into zeros.
void Differentiator::flushSlices(ValueId v) {
    auto it = slices_.find(v.index);
    if (it == slices_.end())
        return;
    const std::vector<SliceCotangent> list = std::move(it->second);
    slices_.erase(it);
    const TensorType whole = type(v);
    std::optional<std::size_t> cut;
    bool stacked = true;
    std::vector<std::pair<std::int64_t, std::size_t>> order;  // (start on the cut dimension, slice)
    for (std::size_t k = 0; k < list.size() && stacked; ++k) {
        const Shape piece = type(list[k].cotangent).shape;
        for (std::size_t d = 0; d < piece.size() && d < whole.shape.size(); ++d)
            if (piece[d] != whole.shape[d]) {
                stacked = stacked && (!cut || *cut == d);
                cut = d;
            }
        if (!cut || *cut >= list[k].starts.size()) {
            stacked = false;
            break;
        }
        const auto start = constantScalar(b_.graph(), list[k].starts[*cut]);
        if (!start) {
            stacked = false;
            break;
        }
        const double last = static_cast<double>(whole.shape[*cut] - piece[*cut]);
        order.push_back(
            {static_cast<std::int64_t>(std::clamp(*start, 0.0, last)), k});  // dynamic_slice clamps
    }
    if (stacked && cut) {
        std::sort(order.begin(), order.end());
        std::int64_t position = 0;
        for (const auto& [start, k] : order) {
            stacked = stacked && start == position;
            position += type(list[k].cotangent).shape[*cut];
        }
        stacked = stacked && position == whole.shape[*cut];
    }
    const std::string saved = label_;
    if (stacked && cut && order.size() > 1) {
        std::vector<ValueId> pieces;
        pieces.reserve(order.size());
        for (const auto& [start, k] : order)
            pieces.push_back(list[k].cotangent);
        label_ = list.front().label;
        accumulate(v, b_.concatenate(std::move(pieces), static_cast<std::int64_t>(*cut), label_));
    } else {
        for (const auto& slice : list) {
            label_ = slice.label;
            std::vector<ValueId> operands{zeros(whole), slice.cotangent};
            operands.insert(operands.end(), slice.starts.begin(), slice.starts.end());
            accumulate(v, b_.op1(OpKind::DynamicUpdateSlice, operands, {}, label_));
        }
    }
    label_ = saved;
}

// scatter with an add or a replacing combiner (JAX's _scatter_add_transpose_rule and
// _scatter_transpose_rule): the updates' cotangent gathers the result's at the same indices; the operand's is
// the result's (add), or the result's with the overwritten places zeroed (replace).
void Differentiator::scatter(const Op& op, ValueId g) {
    const auto* s = std::get_if<ScatterAttributes>(&op.attributes);
    if (!s || op.operands.size() != 3 || op.results.size() != 1 || op.regions.size() != 1) {
        fail(op, "only a scatter of one operand has a VJP rule here");
        return;
    }
    const Region& combiner = op.regions.front();
    const bool replace = combiner.ops.empty() && combiner.results.size() == 1 &&
                         combiner.arguments.size() == 2 && combiner.results[0] == combiner.arguments[1];
    const bool add = combiner.ops.size() == 1 && b_.graph().op(combiner.ops[0]).kind == OpKind::Add &&
                     combiner.results.size() == 1 &&
                     b_.graph().value(combiner.results[0]).producer == combiner.ops[0];
    if (!replace && !add) {
        fail(op,
             "only scatters that add or replace have a VJP rule (this combiner multiplies, takes a maximum "
             "or more)");
        return;
    }
    const ValueId operand = op.operands[0], indices = op.operands[1], updates = op.operands[2];
    if (needs(operand)) {
        if (add)
            accumulate(operand, g);
        else {
            const TensorType scalar{{}, type(g).element};
            Region keep = b_.region({scalar, scalar},
                                    [](const std::vector<ValueId>& a) { return std::vector<ValueId>{a[1]}; });
            auto r = b_.op(OpKind::Scatter, {g, indices, zeros(type(updates))}, *s, label_, {keep});
            if (!r.empty())
                accumulate(operand, r.front());
        }
    }
    if (needs(updates)) {
        GatherAttributes a;
        a.offsetDims = s->updateWindowDims;
        a.collapsedSliceDims = s->insertedWindowDims;
        a.operandBatchingDims = s->inputBatchingDims;
        a.startIndicesBatchingDims = s->scatterIndicesBatchingDims;
        a.startIndexMap = s->scatterDimsToOperandDims;
        a.indexVectorDim = s->indexVectorDim;
        a.indicesAreSorted = s->indicesAreSorted;
        const Shape& operandShape = type(operand).shape;
        const Shape& updateShape = type(updates).shape;
        std::size_t window = 0;
        for (std::size_t d = 0; d < operandShape.size(); ++d) {
            if (contains(s->insertedWindowDims, static_cast<std::int64_t>(d)) ||
                contains(s->inputBatchingDims, static_cast<std::int64_t>(d))) {
                a.sliceSizes.push_back(1);
            } else if (window < s->updateWindowDims.size()) {
                a.sliceSizes.push_back(updateShape[static_cast<std::size_t>(s->updateWindowDims[window++])]);
            } else {
                fail(op, "its update window does not cover the operand");
                return;
            }
        }
        accumulate(updates, b_.gather(g, indices, a, label_));
    }
}

// sort (top-k's lowering included): each operand's cotangent is its result's put back in the original order.
// The permutation is the sorted iota operand when the forward sorted one (as top-k does), else a sort of the
// same keys carrying an iota; sorting (permutation, cotangent) by the permutation undoes it.
void Differentiator::sort(const Op& op, const std::vector<ValueId>& g) {
    const auto* attributes = std::get_if<SortAttributes>(&op.attributes);
    if (!attributes || op.regions.size() != 1 || op.operands.empty()) {
        fail(op, "a sort without its comparator has no VJP rule");
        return;
    }
    const Shape shape = type(op.operands[0]).shape;
    const std::int64_t rank = static_cast<std::int64_t>(shape.size());
    const std::int64_t dimension =
        attributes->dimension < 0 ? attributes->dimension + rank : attributes->dimension;
    const TensorType indexType{shape, ElementType::I32};
    ValueId permutation;
    for (std::size_t i = 0; i < op.operands.size() && !permutation.valid(); ++i) {
        const Value& v = b_.graph().value(op.operands[i]);
        if (!v.producer.valid() || b_.graph().op(v.producer).kind != OpKind::Iota ||
            !isInteger(v.type.element))
            continue;
        const auto* iota = std::get_if<DimensionAttribute>(&b_.graph().op(v.producer).attributes);
        if (iota && iota->dimension == dimension)
            permutation = op.results[i];
    }
    if (!permutation.valid()) {
        const Region comparator = op.regions.front();
        std::vector<Op> ops;
        for (OpId id : comparator.ops)
            ops.push_back(b_.graph().op(id));
        std::vector<TensorType> argumentTypes;
        for (ValueId a : comparator.arguments)
            argumentTypes.push_back(type(a));
        argumentTypes.push_back(TensorType{{}, ElementType::I32});
        argumentTypes.push_back(TensorType{{}, ElementType::I32});
        bool nested = false;
        Region again = b_.region(argumentTypes, [&](const std::vector<ValueId>& args) {
            std::unordered_map<std::uint32_t, ValueId> map;
            for (std::size_t k = 0; k < comparator.arguments.size(); ++k)
                map[comparator.arguments[k].index] = args[k];
            auto mapped = [&](ValueId v) {
                auto m = map.find(v.index);
                return m == map.end() ? v : m->second;
            };
            for (const Op& c : ops) {
                nested = nested || !c.regions.empty();
                std::vector<ValueId> operands;
                for (ValueId v : c.operands)
                    operands.push_back(mapped(v));
                auto results = b_.op(c.kind, operands, c.attributes, label_);
                for (std::size_t k = 0; k < results.size() && k < c.results.size(); ++k)
                    map[c.results[k].index] = results[k];
            }
            std::vector<ValueId> out;
            for (ValueId v : comparator.results)
                out.push_back(mapped(v));
            return out;
        });
        if (nested) {
            fail(op, "its comparator has regions of its own");
            return;
        }
        std::vector<ValueId> operands = op.operands;
        operands.push_back(b_.iota(indexType, dimension, label_));
        auto results = b_.op(OpKind::Sort, operands, *attributes, label_, {again});
        if (results.empty())
            return;
        permutation = results.back();
    }
    for (std::size_t i = 0; i < op.operands.size() && i < g.size(); ++i) {
        if (!needs(op.operands[i]) || !g[i].valid())
            continue;
        const TensorType scalar{{}, type(g[i]).element};
        const TensorType index{{}, type(permutation).element};
        Region byPosition = b_.region({index, index, scalar, scalar}, [&](const std::vector<ValueId>& a) {
            return std::vector<ValueId>{b_.compare(a[0], a[1], CompareDirection::LT)};
        });
        auto r =
            b_.op(OpKind::Sort, {permutation, g[i]}, SortAttributes{dimension, false}, label_, {byPosition});
        if (r.size() == 2)
            accumulate(op.operands[i], r[1]);
    }
}

// The VJPs of `program`'s ops in reverse order, each op whose results have cotangents and which reads a value
// that needs one.
void Differentiator::backward(const std::vector<OpId>& program) {
    for (auto it = program.rbegin(); it != program.rend() && !error_ && !b_.failed(); ++it) {
        const Op op = b_.graph().op(*it);  // a copy: emitting ops grows the op table
        std::vector<ValueId> g;
        bool any = false;
        for (auto v : op.results) {
            auto c = findCotangent(v);
            g.push_back(c == cotangent_.end() ? ValueId{} : c->second);
            any = any || c != cotangent_.end();
        }
        if (!any)
            continue;
        bool operandNeeds = false;
        for (auto v : reads(b_.graph(), op))
            operandNeeds = operandNeeds || needs(v);
        if (!operandNeeds)
            continue;
        for (std::size_t i = 0; i < g.size(); ++i)  // other results' missing cotangents are zeros
            if (!g[i].valid())
                g[i] = zeros(type(op.results[i]));
        label_ = (op.location.name.empty() ? std::string(mnemonic(op.kind)) : op.location.name) + ".grad";
        vjp(op, g);
    }
}

// Copies `ops` (nested regions included) at the insertion point, reading map[v] for each value v the map
// has, and adds each copied result to the map. Returns the copies of `ops` (not of their regions' ops).
std::vector<OpId> Differentiator::copyOps(const std::vector<OpId>& ops,
                                          std::unordered_map<std::uint32_t, ValueId>& map) {
    auto mapped = [&](ValueId v) {
        auto m = map.find(v.index);
        return m == map.end() ? v : m->second;
    };
    std::vector<OpId> copies;
    for (OpId id : ops) {
        if (b_.failed())
            break;
        const Op c = b_.graph().op(id);
        std::vector<ValueId> operands;
        for (ValueId v : c.operands)
            operands.push_back(mapped(v));
        std::vector<Region> regions;
        for (const Region& r : c.regions) {
            std::vector<TensorType> argumentTypes;
            for (ValueId a : r.arguments)
                argumentTypes.push_back(type(a));
            regions.push_back(b_.region(argumentTypes, [&](const std::vector<ValueId>& arguments) {
                for (std::size_t k = 0; k < r.arguments.size() && k < arguments.size(); ++k)
                    map[r.arguments[k].index] = arguments[k];
                copyOps(r.ops, map);
                std::vector<ValueId> out;
                for (ValueId v : r.results)
                    out.push_back(mapped(v));
                return out;
            }));
        }
        std::vector<TensorType> declared;
        for (ValueId v : c.results)
            declared.push_back(type(v));
        auto results = b_.op(c.kind, operands, c.attributes, c.location.name, std::move(regions), declared);
        for (std::size_t k = 0; k < results.size() && k < c.results.size(); ++k)
            map[c.results[k].index] = results[k];
        if (!results.empty())
            copies.push_back(b_.graph().value(results.front()).producer);
    }
    return copies;
}

// needs_ for the values of copied ops (a branch run again in its backward pass), as markPath does for the
// program: depends on a value that needs a cotangent, and reaches one of `results`.
void Differentiator::markCopy(const std::vector<OpId>& ops, const std::vector<ValueId>& results) {
    const Graph& g = b_.graph();
    needs_.resize(g.values.size(), false);
    std::unordered_set<std::uint32_t> depends, reaches;
    std::vector<std::vector<ValueId>> read(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const Op& op = g.op(ops[i]);
        read[i] = reads(g, op);
        bool any = false;
        for (ValueId v : read[i])
            any = any || needs(v) || depends.contains(v.index);
        if (any)
            for (ValueId v : op.results)
                if (isFloat(g.type(v).element))
                    depends.insert(v.index);
    }
    for (ValueId v : results)
        reaches.insert(v.index);
    for (std::size_t i = ops.size(); i-- > 0;) {
        const Op& op = g.op(ops[i]);
        bool any = false;
        for (ValueId v : op.results)
            any = any || reaches.contains(v.index);
        if (any)
            for (ValueId v : read[i])
                reaches.insert(v.index);
    }
    for (std::uint32_t v : depends)
        if (reaches.contains(v))
            needs_[v] = true;
}

// case and if: the backward pass is a case (an if) on the same index (predicate) whose branch i is the VJP of
// forward branch i. A branch's values live only inside it, so each backward branch runs its forward branch
// again, then its ops' VJPs from the cotangents of the results, and returns the cotangents of every value the
// branches capture that needs one (zeros where this branch does not read it).
void Differentiator::branches(const Op& op, const std::vector<ValueId>& g) {
    std::vector<ValueId> wanted;
    for (ValueId v : captures(b_.graph(), op))
        if (needs(v))
            wanted.push_back(v);
    if (wanted.empty())
        return;
    const std::string label = label_;
    std::vector<Region> backwardBranches;
    for (const Region& branch : op.regions) {
        backwardBranches.push_back(b_.region({}, [&](const std::vector<ValueId>&) {
            auto outerCotangents = std::exchange(cotangent_, {});
            auto outerSlices = std::exchange(slices_, {});
            std::unordered_map<std::uint32_t, ValueId> map;
            const std::vector<OpId> copies = copyOps(branch.ops, map);
            std::vector<ValueId> results;
            for (ValueId v : branch.results) {
                auto m = map.find(v.index);
                results.push_back(m == map.end() ? v : m->second);
            }
            markCopy(copies, results);
            for (std::size_t k = 0; k < results.size() && k < g.size(); ++k)
                if (isFloat(type(results[k]).element))
                    accumulate(results[k], g[k]);
            backward(copies);
            label_ = label;
            std::vector<ValueId> out;
            for (ValueId v : wanted) {
                auto c = findCotangent(v);
                out.push_back(c != cotangent_.end() ? c->second : zeros(type(v)));
            }
            cotangent_ = std::move(outerCotangents);
            slices_ = std::move(outerSlices);
            return out;
        }));
    }
    label_ = label;
    if (error_ || b_.failed())
        return;
    auto results = b_.op(op.kind, op.operands, op.attributes, label_, std::move(backwardBranches));
    if (!results.empty())
        backwardBranches_.push_back(b_.graph().value(results.front()).producer);
    for (std::size_t k = 0; k < results.size() && k < wanted.size(); ++k)
        accumulate(wanted[k], results[k]);
}

Result<GradientGraph> Differentiator::run() {
    if (forward_.outputs.empty())
        return makeError("train.no-output", "the model has no output to take a loss of");
    auto chosen = lossOutputs(forward_, options_.lossOutput);
    if (!chosen)
        return Result<GradientGraph>::failure(chosen.diagnostics());
    const bool all = options_.lossOutput == "all";
    std::vector<std::size_t> used, notFloat;
    for (std::size_t index : *chosen) {
        const ValueId output = forward_.outputs[index].value;
        if (isFloat(forward_.type(output).element))
            used.push_back(index);
        else if (all)
            notFloat.push_back(index);
        else if (options_.lossOutput.empty())
            return makeError("train.loss", "the model's first output " + forward_.type(output).toString() +
                                               " is not floating point, so it has no loss to differentiate");
        else
            return makeError("train.loss", "the model's output " + outputText(forward_, index) + " " +
                                               forward_.type(output).toString() +
                                               " is not floating point, so it has no loss to differentiate");
    }
    if (used.empty())
        return makeError(
            "train.loss",
            "none of the model's outputs is floating point, so there is no loss to differentiate");
    for (std::size_t index : used)  // cross-entropy takes its classes from the last dimension
        if (options_.loss == Loss::CrossEntropy && forward_.type(forward_.outputs[index].value).rank() == 0)
            return makeError("train.loss",
                             "cross-entropy needs classes along the output's last dimension, but output " +
                                 outputText(forward_, index) +
                                 " is a scalar (choose another --loss or --loss-output)");
    std::vector<Diagnostic> warnings;
    if (!all && forward_.outputs.size() > 1) {
        std::vector<std::size_t> others;
        for (std::size_t i = 0; i < forward_.outputs.size(); ++i)
            if (i != used.front())
                others.push_back(i);
        warnings.push_back(makeWarning("train.loss-output-partial",
                                       "the loss uses output " + outputText(forward_, used.front()) +
                                           " only; " + std::to_string(others.size()) +
                                           (others.size() == 1 ? " other output is" : " other outputs are") +
                                           " not differentiated: " + outputList(forward_, others) +
                                           "; pass --loss-output all to train on every output"));
    }
    if (!notFloat.empty())
        warnings.push_back(makeWarning("train.loss-output-partial",
                                       "the loss leaves out " + std::to_string(notFloat.size()) +
                                           (notFloat.size() == 1 ? " output that is" : " outputs that are") +
                                           " not floating point: " + outputList(forward_, notFloat)));
    GradientGraph result;
    result.forwardOps = forward_.body.size();
    ValueId loss;
    for (std::size_t index : used) {
        if (b_.failed())
            break;
        const ValueId part = buildLoss(index);
        auto scope = b_.scope("loss");
        loss = loss.valid() ? b_.add(loss, part, "sum_of_outputs") : part;
    }
    result.lossOps = b_.graph().body.size() - result.forwardOps;
    if (!b_.failed()) {
        markPath(loss);
        const std::vector<OpId> program = b_.graph().body;  // forward and loss ops, walked backwards
        cotangent_[loss.index] = b_.constant(1.0, type(loss), "loss.grad");
        backward(program);
    }
    if (error_)
        return *error_;
    // Outputs: the loss, then one gradient per differentiated argument.
    b_.output(loss, "loss");
    const auto arguments = b_.graph().arguments;
    for (std::size_t i = 0; i < arguments.size() && !b_.failed(); ++i) {
        const auto& a = arguments[i];
        const bool floating = isFloat(type(a.value).element);
        const bool differentiate =
            options_.allFloatArguments ? floating : a.role == ArgumentRole::Parameter && floating;
        if (!differentiate || (labelsArgument_ && i == *labelsArgument_))
            continue;
        auto c = findCotangent(a.value);
        ValueId grad =
            c != cotangent_.end() ? c->second : b_.constant(0.0, type(a.value), "zero_grad." + a.name);
        b_.output(grad, "grad." + a.name);
        result.differentiated.push_back(i);
    }
    auto built = std::move(b_).finish();
    if (!built)
        return Result<GradientGraph>::failure(built.diagnostics());
    result.graph = std::move(built).value();
    if (!backwardBranches_.empty()) {
        for (OpId id : backwardBranches_)
            for (Region& branch : result.graph.op(id).regions)
                pruneRegion(result.graph, branch);
        removeUnreachable(result.graph);
    }
    result.backwardOps = result.graph.body.size() - result.forwardOps - result.lossOps;
    result.labelsArgument = labelsArgument_;
    Result<GradientGraph> out = std::move(result);
    out.addDiagnostics(warnings);
    return out;
}

}  // namespace

Result<GradientGraph> differentiate(const Graph& forward, const GradientOptions& options) {
    return Differentiator(forward, options).run();
}

}  // namespace shardscope::train
