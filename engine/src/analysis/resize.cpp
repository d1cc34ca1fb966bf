// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The second half of analysis::resize (resize.h): with the new size of every name planned (resize_plan.h),
// every op's shape is derived again, in program order.
#include "shardscope/analysis/resize.h"

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "resize_plan.h"
#include "shardscope/analysis/factor_rule.h"
#include "shardscope/ir/shape_inference.h"
#include "shardscope/ir/verifier.h"

namespace shardscope::analysis {

namespace {

using ir::Graph;
using ir::Op;
using ir::OpId;
using ir::OpKind;
using ir::Shape;
using ir::TensorType;
using ir::ValueId;

std::optional<std::int64_t> times(std::int64_t a, std::int64_t b) {
    return resizedProduct(a, b);
}

// The values of a constant that counts along one dimension (positions 0, 1, 2, ...: an arithmetic progression
// along it, the same along the others) at `to`, which differs from `from` in that dimension only; nullopt for
// any other constant, or one past 2^22 elements.
std::optional<std::vector<double>> extendProgression(const std::vector<double>& values, const Shape& from,
                                                     const Shape& to) {
    if (from.size() != to.size() || static_cast<std::int64_t>(values.size()) != ir::elementCount(from))
        return std::nullopt;
    std::optional<std::size_t> along;
    for (std::size_t d = 0; d < from.size(); ++d)
        if (from[d] != to[d]) {
            if (along)
                return std::nullopt;
            along = d;
        }
    if (!along || from[*along] < 2)
        return std::nullopt;
    std::int64_t inner = 1;
    for (std::size_t d = *along + 1; d < from.size(); ++d)
        inner *= from[d];
    const double first = values[0], step = values[static_cast<std::size_t>(inner)] - first;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const auto index = static_cast<std::int64_t>(i) / inner % from[*along];
        if (values[i] != first + static_cast<double>(index) * step)
            return std::nullopt;
    }
    std::int64_t count = 1;
    for (auto size : to)
        if (auto p = times(count, size); p && *p <= (std::int64_t{1} << 22))
            count = *p;
        else
            return std::nullopt;
    std::vector<double> out(static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = first + static_cast<double>(static_cast<std::int64_t>(i) / inner % to[*along]) * step;
    return out;
}

// How messages name an op; the diagnostic carries its location.
std::string opText(const Op& op) {
    return "'stablehlo." + std::string(ir::mnemonic(op.kind)) + "'";
}

bool isDeclared(OpKind kind) {
    switch (kind) {
        case OpKind::Reshape:
        case OpKind::BroadcastInDim:
        case OpKind::Iota:
        case OpKind::Constant:
        case OpKind::CustomCall:
        case OpKind::Opaque:
        case OpKind::Rng:
        case OpKind::RngBitGenerator:
        case OpKind::AllGather:
        case OpKind::AllToAll:
        case OpKind::CollectivePermute:
        case OpKind::ReduceScatter:
            return true;
        default:
            return false;
    }
}

// A place ops are listed in: the body (parent invalid) or a region of an op. Held by ids: adding ops moves
// the op table, and with it every region's list.
struct Block {
    OpId parent;
    std::size_t region = 0;
    friend bool operator<(const Block& a, const Block& b) {
        return std::tie(a.parent.index, a.region) < std::tie(b.parent.index, b.region);
    }
};

class Resizer {
public:
    Resizer(const Graph& graph, const GlobalSizes& sizes) : old_(graph), sizes_(sizes) {}

    Result<Resized> run() {
        Resized out;
        out.graph = old_;
        if (sizes_.empty())
            return out;
        AnalysisOptions options;
        options.groupRepeatedStructure = false;
        space_ = analyze(old_, options);
        auto plan = planSizes(old_, space_, sizes_);
        if (!plan)
            return Result<Resized>::failure(plan.diagnostics());
        plan_ = std::move(plan).value();
        summary_.changes = plan_.changes;
        bodyIndex_.assign(old_.ops.size(), -1);
        for (std::size_t i = 0; i < old_.body.size(); ++i)
            bodyIndex_[old_.body[i].index] = static_cast<std::int32_t>(i);

        g_ = old_;
        unit_.assign(g_.values.size(), {});
        for (std::size_t v = 0; v < g_.values.size(); ++v)
            unit_[v].assign(g_.values[v].type.shape.size(), 0);
        for (const auto& [value, dimension] : plan_.seeds)
            unit_[value.index][static_cast<std::size_t>(dimension)] = 1;
        for (const auto& a : g_.arguments) {
            auto shape = expected(a.value);
            if (!shape)
                return overflow("argument '" + a.name + "'");
            g_.value(a.value).type.shape = *shape;
        }
        if (auto done = processBlock(Block{}); !done)
            return Result<Resized>::failure(done.diagnostics());
        dropRemade();
        for (std::size_t v = 0; v < old_.values.size(); ++v)
            if (g_.values[v].type != old_.values[v].type)
                ++summary_.tensors;
        summary_.tensors += g_.values.size() - old_.values.size();
        ir::removeUnreachable(g_);
        if (auto verified = ir::verifyGraph(g_); !verified) {
            std::vector<Diagnostic> errors = verified.diagnostics();
            for (auto& d : errors)
                if (d.severity == Severity::Error)
                    d.message = "after resizing (" + changesText() + "): " + d.message;
            return Result<Resized>::failure(std::move(errors));
        }
        out.graph = std::move(g_);
        out.summary = summary_;
        Result<Resized> result(std::move(out));
        result.addDiagnostics(plan_.warnings);
        return result;
    }

private:
    // The atom sizes a dimension is made of, resized.
    std::int64_t atomSize(AtomId a) const {
        const Atom& atom = space_.atom(a);
        if (atom.name.valid())
            if (auto it = plan_.newSize.find(atom.name.index); it != plan_.newSize.end())
                return it->second;
        return atom.size;
    }
    // The shape the names (and a batch of one) give `v`.
    std::optional<Shape> expected(ValueId v, bool withUnit = true) const {
        const Shape& old = old_.type(v).shape;
        Shape out(old.size());
        for (std::size_t d = 0; d < old.size(); ++d) {
            std::int64_t size = 1;
            for (AtomId a : space_.dimensionAtoms[v.index][d]) {
                auto p = times(size, atomSize(a));
                if (!p)
                    return std::nullopt;
                size = *p;
            }
            if (withUnit && unit_[v.index][d] != 0) {
                auto p = times(size, plan_.unitBatch);
                if (!p)
                    return std::nullopt;
                size = *p;
            }
            out[d] = size;
        }
        std::int64_t elements = 1;
        for (auto s : out)
            if (auto p = times(elements, s))
                elements = *p;
            else
                return std::nullopt;
        return out;
    }

    Diagnostic overflow(const std::string& what, const SourceLocation& location = {}) const {
        return makeError("resize.overflow",
                         what + ": the new sizes (" + changesText() + ") give more than 2^62 elements",
                         location);
    }

    std::string changesText() const { return plan_.changesText(); }

    std::vector<OpId>& ops(const Block& b) {
        return b.parent.valid() ? g_.op(b.parent).regions[b.region].ops : g_.body;
    }

    Status processBlock(const Block& block) {
        for (std::size_t i = 0; i < ops(block).size(); ++i) {
            const OpId id = ops(block)[i];
            auto added = processOp(id, block, i);
            if (!added)
                return Result<Success>::failure(added.diagnostics());
            i += *added;
        }
        return Success{};
    }

    Diagnostic opError(const Op& op, const std::string& why) const {
        return makeError("resize.op",
                         opText(op) + " cannot follow the new sizes (" + changesText() + "): " + why,
                         op.location);
    }

    // Processes op `id`, listed at `position` of `block`; returns how many ops it added before it.
    Result<std::size_t> processOp(OpId id, const Block& block, std::size_t position) {
        const Op& before = old_.op(id);
        // Regions first: a while's loop-carried values take its operands' new types.
        for (std::size_t r = 0; r < before.regions.size(); ++r) {
            if (before.kind == OpKind::While) {
                Op& op = g_.op(id);
                auto& arguments = op.regions[r].arguments;
                for (std::size_t k = 0; k < arguments.size() && k < op.operands.size(); ++k) {
                    g_.value(arguments[k]).type = g_.type(op.operands[k]);
                    unit_[arguments[k].index] = unit_[op.operands[k].index];
                }
            }
            if (auto done = processBlock(Block{id, r}); !done)
                return Result<std::size_t>::failure(done.diagnostics());
        }
        std::size_t added = 0;
        if (auto joined = join(id, block, position); !joined)
            return joined;
        else
            added = *joined;

        Op& op = g_.op(id);
        if (plan_.unitBatch > 1)
            if (auto tagged = tagResults(id); !tagged)
                return Result<std::size_t>::failure(tagged.diagnostics());
        std::vector<TensorType> declared;
        for (ValueId r : op.results) {
            auto shape = expected(r);
            if (!shape)
                return overflow(opText(op), op.location);
            declared.push_back(TensorType{*shape, old_.type(r).element});
        }
        adjustAttributes(op, before, declared);
        if (op.kind == OpKind::Constant && !declared.empty() &&
            declared[0].shape != old_.type(op.results[0]).shape) {
            auto* c = std::get_if<ir::ConstantAttributes>(&op.attributes);
            if (c && c->values.size() > 1) {
                if (auto extended =
                        extendProgression(c->values, old_.type(op.results[0]).shape, declared[0].shape)) {
                    c->values = std::move(*extended);
                    ++summary_.attributes;
                }
            }
            if (c && c->values.size() > 1 &&
                static_cast<std::int64_t>(c->values.size()) != ir::elementCount(declared[0].shape))
                return makeError(
                    "resize.constant",
                    opText(op) + " holds " + std::to_string(c->values.size()) + " values of " +
                        old_.type(op.results[0]).toString() + ", and the new sizes (" + changesText() +
                        ") make it " + declared[0].toString() +
                        ": only a constant of one repeated value, or one counting along the resized "
                        "dimension (positions), can be resized",
                    op.location);
        }
        auto inferred = ir::inferResultTypes(g_, op, declared);
        if (!inferred) {
            std::string why;
            for (const auto& d : inferred.diagnostics())
                if (d.severity == Severity::Error && why.empty())
                    why = d.message;
            if (const std::string prefix = opText(op) + ": "; why.rfind(prefix, 0) == 0)
                why = why.substr(prefix.size());
            return opError(op, why);
        }
        if (inferred->size() != op.results.size())
            return opError(op, "its results do not match its kind's shape rule");
        for (std::size_t r = 0; r < op.results.size(); ++r) {
            std::optional<std::int64_t> elements = 1;
            for (auto s : (*inferred)[r].shape)
                if (elements)
                    elements = times(*elements, s);
            if (!elements)
                return overflow(opText(op), op.location);
            g_.value(op.results[r]).type = (*inferred)[r];
        }
        if (plan_.unitBatch > 1 && !isDeclared(op.kind))
            reconcileTags(op);
        if (op.kind == OpKind::Rng)
            added += rngShape(id, block, position + added);
        return added;
    }

    // stablehlo.rng takes its result's shape as an operand: a constant holding the old shape is made again
    // with the new one (before the rng, at `position` of `block`). Returns how many ops it added.
    std::size_t rngShape(OpId id, const Block& block, std::size_t position) {
        const Op& op = g_.op(id);
        if (op.operands.size() != 3 || op.results.size() != 1)
            return 0;
        const Shape& now = g_.type(op.results[0]).shape;
        const ValueId shapeValue = op.operands[2];
        const OpId producer = g_.value(shapeValue).producer;
        if (!producer.valid() || g_.op(producer).kind != OpKind::Constant)
            return 0;
        const auto* c = std::get_if<ir::ConstantAttributes>(&g_.op(producer).attributes);
        if (!c || c->values.size() != now.size())
            return 0;
        ir::ConstantAttributes values;
        for (auto size : now)
            values.values.push_back(static_cast<double>(size));
        if (values == *c)
            return 0;
        const Op original = g_.op(producer);
        const OpId made = g_.addOp(OpKind::Constant, {}, {g_.type(shapeValue)}, values, original.location);
        unit_.resize(g_.values.size());
        unit_[g_.op(made).results[0].index].assign(g_.type(shapeValue).shape.size(), 0);
        remade_.push_back({producer, made});
        ops(block).insert(ops(block).begin() + static_cast<std::ptrdiff_t>(position), made);
        if (!block.parent.valid() && g_.backwardStart > 0 && position < g_.backwardStart)
            ++g_.backwardStart;
        g_.op(id).operands[2] = g_.op(made).results[0];
        ++summary_.attributes;
        return 1;
    }

    // Where operands must agree (elementwise ops, concatenate outside its dimension, dot_general's batching
    // dimensions) and one carries a batch of one that another lacks (their sizes equal before), the one
    // without grows to the batch, as the framework would have broadcast it: the op that makes it is made
    // again at the new shape when it can be (a broadcast_in_dim into that dimension, a splat constant, an
    // iota along another one), else it goes through broadcast_in_dim (and a reshape, where the batch is the
    // major part of a merged dimension).
    Result<std::size_t> join(OpId id, const Block& block, std::size_t position) {
        const Op& op = g_.op(id);
        std::vector<std::vector<std::pair<std::size_t, std::size_t>>>
            groups;  // (operand, dimension) that must agree
        if (ir::isElementwise(op.kind)) {
            int rank = -1;
            for (ValueId v : op.operands)
                rank = std::max(rank, old_.type(v).rank());
            for (int d = 0; d < rank; ++d) {
                groups.emplace_back();
                for (std::size_t k = 0; k < op.operands.size(); ++k)
                    if (old_.type(op.operands[k]).rank() == rank)
                        groups.back().emplace_back(k, static_cast<std::size_t>(d));
            }
        } else if (op.kind == OpKind::Concatenate) {
            const auto* c = std::get_if<ir::DimensionAttribute>(&op.attributes);
            const int rank = op.operands.empty() ? 0 : old_.type(op.operands[0]).rank();
            for (int d = 0; d < rank; ++d) {
                if (c && d == c->dimension)
                    continue;
                groups.emplace_back();
                for (std::size_t k = 0; k < op.operands.size(); ++k)
                    if (old_.type(op.operands[k]).rank() == rank)
                        groups.back().emplace_back(k, static_cast<std::size_t>(d));
            }
        } else if (op.kind == OpKind::DotGeneral && op.operands.size() == 2) {
            if (const auto* dot = std::get_if<ir::DotDimensions>(&op.attributes))
                for (std::size_t i = 0; i < dot->lhsBatching.size() && i < dot->rhsBatching.size(); ++i)
                    groups.push_back({{0, static_cast<std::size_t>(dot->lhsBatching[i])},
                                      {1, static_cast<std::size_t>(dot->rhsBatching[i])}});
        }
        std::map<std::size_t, Growth> growths;  // operand -> how it must grow
        for (const auto& group : groups) {
            std::optional<std::pair<std::size_t, std::size_t>> batched;  // a member with the batch
            bool sameOld = true;
            for (const auto& [k, d] : group) {
                const Shape& old = old_.type(op.operands[k]).shape;
                if (d >= old.size() || d >= g_.type(op.operands[k]).shape.size()) {
                    sameOld = false;
                    break;
                }
                sameOld = sameOld && old[d] == old_.type(op.operands[group[0].first]).shape[group[0].second];
                if (unit_[op.operands[k].index][d] != 0 && !batched)
                    batched = std::make_pair(k, d);
            }
            if (!sameOld || !batched)
                continue;
            const std::int64_t target = g_.type(op.operands[batched->first]).shape[batched->second];
            const std::int64_t q = unit_[op.operands[batched->first].index][batched->second];
            for (const auto& [k, d] : group) {
                const Shape& now = g_.type(op.operands[k]).shape;
                if (unit_[op.operands[k].index][d] != 0 || now[d] * plan_.unitBatch != target)
                    continue;
                auto [it, fresh] = growths.try_emplace(k, Growth{now, {}});
                it->second.shape[d] = target;
                it->second.dims.emplace_back(d, q);
            }
        }
        if (growths.empty())
            return std::size_t{0};
        std::size_t added = 0;
        const Op copy = g_.op(id);  // grow() adds ops, which moves the op table
        for (const auto& [k, growth] : growths) {
            const ValueId operand = copy.operands[k];
            const auto key = std::make_tuple(block, operand.index, growth.shape);
            auto cached = grown_.find(key);
            ValueId grownValue;
            if (cached != grown_.end()) {
                grownValue = cached->second;
            } else {
                std::vector<OpId> made;
                auto value = grow(operand, growth, copy, made);
                if (!value)
                    return Result<std::size_t>::failure(value.diagnostics());
                grownValue = *value;
                for (OpId m : made) {
                    ops(block).insert(ops(block).begin() + static_cast<std::ptrdiff_t>(position + added), m);
                    if (!block.parent.valid() && g_.backwardStart > 0 && position + added < g_.backwardStart)
                        ++g_.backwardStart;
                    ++added;
                }
                grown_.emplace(key, grownValue);
            }
            g_.op(id).operands[k] = grownValue;
        }
        return added;
    }

    struct Growth {
        Shape shape;                                             // the shape to take
        std::vector<std::pair<std::size_t, std::int64_t>> dims;  // (dimension, where the batch sits in it)
    };

    // Whether op `producer` can make its result at a shape grown in `growth`'s dimensions by itself.
    bool canRemake(const Op& producer, const Growth& growth) const {
        if (producer.results.size() != 1)
            return false;
        switch (producer.kind) {
            case OpKind::Constant: {
                const auto* c = std::get_if<ir::ConstantAttributes>(&producer.attributes);
                return c && c->values.size() <= 1;
            }
            case OpKind::Iota: {
                const auto* a = std::get_if<ir::DimensionAttribute>(&producer.attributes);
                return a && std::none_of(growth.dims.begin(), growth.dims.end(), [&](const auto& g) {
                           return static_cast<std::int64_t>(g.first) == a->dimension;
                       });
            }
            case OpKind::BroadcastInDim: {
                const auto* b = std::get_if<ir::BroadcastDimensions>(&producer.attributes);
                if (!b)
                    return false;
                const Shape& in = g_.type(producer.operands[0]).shape;
                for (const auto& [d, q] : growth.dims)
                    for (std::size_t i = 0; i < b->dims.size() && i < in.size(); ++i)
                        if (b->dims[i] == static_cast<std::int64_t>(d) && in[i] != 1)
                            return false;
                return true;
            }
            default:
                return false;
        }
    }

    // Whether `value` can be made again at `growth.shape` by the ops that made it: a producer canRemake()
    // allows, or an elementwise op (a convert of an iota, ...) whose operands of the same shape can be, a few
    // levels deep.
    bool remakeable(ValueId value, const Growth& growth, int depth) const {
        const OpId producer = g_.value(value).producer;
        if (!producer.valid() || depth > 8)
            return false;
        const Op& op = g_.op(producer);
        if (canRemake(op, growth))
            return true;
        if (!ir::isElementwise(op.kind) || op.results.size() != 1)
            return false;
        const Shape& shape = g_.type(value).shape;
        for (ValueId operand : op.operands)
            if (!g_.type(operand).shape.empty() &&
                (g_.type(operand).shape != shape || !remakeable(operand, growth, depth + 1)))
                return false;
        return true;
    }

    // Makes `value` again at `growth.shape` (remakeable() holds); the ops made go to `made`, in order.
    ValueId remake(ValueId value, const Growth& growth, std::vector<OpId>& made) {
        const OpId producer = g_.value(value).producer;
        Op original = g_.op(producer);
        if (!canRemake(original, growth))
            for (ValueId& operand : original.operands)
                if (!g_.type(operand).shape.empty()) {
                    auto cached = remadeValues_.find({operand.index, growth.shape});
                    operand = cached != remadeValues_.end() ? cached->second : remake(operand, growth, made);
                }
        made.push_back(g_.addOp(original.kind, original.operands,
                                {TensorType{growth.shape, g_.type(value).element}}, original.attributes,
                                original.location));
        remade_.push_back({producer, made.back()});
        const ValueId result = g_.op(made.back()).results[0];
        remadeValues_.emplace(std::make_pair(value.index, growth.shape), result);
        return result;
    }

    // `value` at `growth.shape`: the ops made (in order, not yet listed in any block) go to `made`.
    Result<ValueId> grow(ValueId value, const Growth& growth, const Op& consumer, std::vector<OpId>& made) {
        const ir::ElementType element = g_.type(value).element;
        const OpId producer = g_.value(value).producer;
        ValueId result;
        remadeValues_.clear();
        if (producer.valid() && remakeable(value, growth, 0)) {
            result = remake(value, growth, made);
        } else {
            result = value;
            for (const auto& [d, q] : growth.dims) {
                const Shape now = g_.type(result).shape;
                ir::BroadcastDimensions dims;
                if (now[d] == 1) {  // a dimension of one: broadcast
                    Shape shape = now;
                    shape[d] = growth.shape[d];
                    for (std::size_t e = 0; e < now.size(); ++e)
                        dims.dims.push_back(static_cast<std::int64_t>(e));
                    made.push_back(g_.addOp(OpKind::BroadcastInDim, {result}, {TensorType{shape, element}},
                                            dims, consumer.location));
                } else if (q ==
                           old_.type(value)
                               .shape[d]) {  // the major part of a merged dimension: broadcast, then merge
                    Shape wide = now;
                    wide.insert(wide.begin() + static_cast<std::ptrdiff_t>(d), plan_.unitBatch);
                    for (std::size_t e = 0; e < now.size(); ++e)
                        dims.dims.push_back(static_cast<std::int64_t>(e < d ? e : e + 1));
                    made.push_back(g_.addOp(OpKind::BroadcastInDim, {result}, {TensorType{wide, element}},
                                            dims, consumer.location));
                    Shape merged = now;
                    merged[d] *= plan_.unitBatch;
                    const ValueId broadcastValue = g_.op(made.back()).results[0];
                    made.push_back(g_.addOp(OpKind::Reshape, {broadcastValue}, {TensorType{merged, element}},
                                            ir::NoAttributes{}, consumer.location));
                } else {
                    return opError(consumer, "operand " + g_.type(value).toString() +
                                                 " has no batch where another has it inside dimension " +
                                                 std::to_string(d) + ", and cannot be broadcast to it");
                }
                ++summary_.broadcasts;
                result = g_.op(made.back()).results[0];
            }
        }
        unit_.resize(g_.values.size());
        for (OpId m : made)
            for (ValueId r : g_.op(m).results)
                unit_[r.index].assign(g_.type(r).shape.size(), 0);
        unit_[result.index] = unit_[value.index];
        unit_[result.index].resize(growth.shape.size(), 0);
        for (const auto& [d, q] : growth.dims)
            unit_[result.index][d] = q;
        return result;
    }

    // Ops made again at a grown shape whose first version nothing uses any more are dropped.
    void dropRemade() {
        if (remade_.empty())
            return;
        std::set<std::uint32_t> dropped;
        std::map<std::uint32_t, OpId>
            successor;  // a dropped first version -> its new version, if that is the only one
        // Uses by first versions that are dropped do not count: a convert made again drops the iota it read.
        for (bool more = true; more;) {
            more = false;
            std::vector<bool> used(g_.values.size(), false);
            for (OpId id : g_.allOpsInOrder()) {
                const Op& op = g_.op(id);
                if (dropped.count(id.index))
                    continue;
                for (ValueId v : op.operands)
                    used[v.index] = true;
                for (const auto& region : op.regions)
                    for (ValueId v : region.results)
                        used[v.index] = true;
            }
            for (const auto& o : g_.outputs)
                used[o.value.index] = true;
            for (const auto& [first, again] : remade_)
                if (!dropped.count(first.index) &&
                    std::none_of(g_.op(first).results.begin(), g_.op(first).results.end(),
                                 [&](ValueId r) { return used[r.index]; })) {
                    dropped.insert(first.index);
                    more = true;
                }
        }
        for (const auto& [first, again] : remade_) {
            if (!dropped.count(first.index))
                continue;
            auto [it, fresh] = successor.try_emplace(first.index, again);
            if (!fresh && it->second != again)
                it->second = OpId{};
        }
        if (dropped.empty())
            return;
        // The new version takes the place of the first where both are in one block (its operands are the
        // first's, so they come before it): the graph reads as the framework would have exported it.
        auto erase = [&](std::vector<OpId>& list) {
            std::map<std::uint32_t, std::size_t> position;
            for (std::size_t i = 0; i < list.size(); ++i)
                position[list[i].index] = i;
            std::map<std::uint32_t, std::size_t> moved;  // new version -> the position it takes
            for (std::size_t i = 0; i < list.size(); ++i) {
                const auto it = successor.find(list[i].index);
                if (it == successor.end() || !it->second.valid() || !position.count(it->second.index))
                    continue;
                bool defined = true;  // its operands made before that position
                for (ValueId v : g_.op(it->second).operands) {
                    const OpId made = g_.value(v).producer;
                    if (!made.valid())
                        continue;
                    const auto m = moved.find(made.index);
                    const auto p = position.find(made.index);
                    if (m != moved.end())
                        defined = defined && m->second < i;
                    else if (p != position.end())
                        defined = defined && p->second < i;  // else made in an enclosing block
                }
                if (defined)
                    moved.emplace(it->second.index, i);
            }
            std::vector<OpId> out;
            for (OpId id : list) {
                if (moved.count(id.index))
                    continue;
                if (dropped.count(id.index)) {
                    if (const auto it = successor.find(id.index);
                        it != successor.end() && moved.count(it->second.index))
                        out.push_back(it->second);
                    continue;
                }
                out.push_back(id);
            }
            list = std::move(out);
        };
        const OpId firstBackward =
            g_.backwardStart > 0 && g_.backwardStart < g_.body.size() ? g_.body[g_.backwardStart] : OpId{};
        erase(g_.body);
        for (auto& op : g_.ops)
            for (auto& region : op.regions)
                erase(region.ops);
        if (firstBackward.valid())
            if (auto it = std::find(g_.body.begin(), g_.body.end(), firstBackward); it != g_.body.end())
                g_.backwardStart = static_cast<std::size_t>(it - g_.body.begin());
        // The first versions keep their ids in the op table until removeUnreachable: the old values keep
        // theirs.
        for (std::uint32_t index : dropped)
            for (ValueId r : g_.ops[index].results)
                g_.value(r).type = old_.type(r);
    }

    // The batch of one in `op`'s results, from its operands' (before the types are derived: declared shapes
    // depend on it). Positions are in the old sizes: q = the size of the dimension's part minor to the batch.
    Status tagResults(OpId id) {
        const Op& op = g_.op(id);
        const Op& before = old_.op(id);
        auto tag = [&](ValueId v, std::size_t d, std::int64_t q) { unit_[v.index][d] = q; };
        for (ValueId r : op.results)
            std::fill(unit_[r.index].begin(), unit_[r.index].end(), 0);
        switch (op.kind) {
            case OpKind::Reshape: {
                const ValueId operand = op.operands[0];
                const Shape& in = old_.type(before.operands[0]).shape;
                const Shape& out = old_.type(op.results[0]).shape;
                for (std::size_t d = 0; d < in.size(); ++d) {
                    const std::int64_t q = unit_[operand.index][d];
                    if (q == 0)
                        continue;
                    std::int64_t position = q;  // elements minor to the batch, flattened
                    for (std::size_t k = d + 1; k < in.size(); ++k)
                        position *= in[k];
                    auto placed = place(position, out, unit_[op.results[0].index]);
                    if (!placed)
                        return opError(op, "the batch of one (dimension " + std::to_string(d) + " of " +
                                               old_.type(before.operands[0]).toString() +
                                               ") does not fall on a dimension boundary of " +
                                               old_.type(op.results[0]).toString());
                    tag(op.results[0], placed->first, placed->second);
                }
                return Success{};
            }
            case OpKind::BroadcastInDim: {
                const auto* b = std::get_if<ir::BroadcastDimensions>(&op.attributes);
                if (!b)
                    return Success{};
                const Shape& in = old_.type(before.operands[0]).shape;
                const Shape& out = old_.type(op.results[0]).shape;
                for (std::size_t i = 0; i < b->dims.size() && i < in.size(); ++i) {
                    const auto e = static_cast<std::size_t>(b->dims[i]);
                    if (e < out.size() && in[i] == out[e] && unit_[op.operands[0].index][i] != 0)
                        tag(op.results[0], e, unit_[op.operands[0].index][i]);
                }
                return Success{};
            }
            case OpKind::While:
                for (std::size_t k = 0; k < op.results.size() && k < op.operands.size(); ++k)
                    unit_[op.results[k].index] = unit_[op.operands[k].index];
                return Success{};
            default:
                break;
        }
        if (identityLike(before)) {
            unit_[op.results[0].index] = unit_[op.operands[0].index];
            return Success{};
        }
        // Through the op's factor rule: a result dimension made of the same factors as a tagged operand
        // dimension.
        const std::int32_t top = bodyIndex_[id.index];
        const FactorRule rule =
            top >= 0 ? space_.rules[static_cast<std::size_t>(top)] : factorRule(old_, before);
        for (std::size_t r = 0; r < op.results.size() && r < rule.results.size(); ++r) {
            const Shape& out = old_.type(op.results[r]).shape;
            for (std::size_t e = 0; e < rule.results[r].size() && e < out.size(); ++e)
                for (std::size_t k = 0; k < op.operands.size() && k < rule.operands.size(); ++k) {
                    const ValueId operand = op.operands[k];
                    // An operand broadcast by join is a new value with the old one's dimensions.
                    const Shape& in = old_.type(before.operands[k]).shape;
                    for (std::size_t d = 0; d < rule.operands[k].size() && d < in.size(); ++d)
                        if (rule.operands[k][d] == rule.results[r][e] && !rule.results[r][e].empty() &&
                            in[d] == out[e] && unit_[operand.index][d] != 0 &&
                            unit_[op.results[r].index][e] == 0)
                            tag(op.results[r], e, unit_[operand.index][d]);
                }
        }
        return Success{};
    }

    // Where a batch of one at flattened position `position` (elements minor to it) lands in `shape`: a size-1
    // dimension right there, else the dimension it splits at a factor (its major end when between two).
    static std::optional<std::pair<std::size_t, std::int64_t>> place(std::int64_t position,
                                                                     const Shape& shape,
                                                                     const std::vector<std::int64_t>& taken) {
        std::vector<std::int64_t> minor(shape.size(), 1);  // elements minor to each dimension
        for (std::size_t e = shape.size(); e-- > 1;)
            minor[e - 1] = minor[e] * shape[e];
        for (std::size_t e = 0; e < shape.size(); ++e)
            if (shape[e] == 1 && minor[e] == position && taken[e] == 0)
                return std::make_pair(e, std::int64_t{1});
        for (std::size_t e = 0; e < shape.size(); ++e)
            if (position > minor[e] && position <= minor[e] * shape[e] && position % minor[e] == 0 &&
                shape[e] % (position / minor[e]) == 0)
                return std::make_pair(e, position / minor[e]);
        for (std::size_t e = 0; e < shape.size(); ++e)
            if (minor[e] == position)
                return std::make_pair(e, std::int64_t{1});
        return std::nullopt;
    }

    // A custom call or opaque op of one operand whose result has the operand's type (a sharding annotation,
    // an identity): its result follows its operand.
    bool identityLike(const Op& op) const {
        return (op.kind == OpKind::CustomCall || op.kind == OpKind::Opaque) && op.operands.size() == 1 &&
               op.results.size() == 1 && old_.type(op.operands[0]).shape == old_.type(op.results[0]).shape;
    }

    // After the shape rule: a result dimension carries the batch exactly when its size says so.
    void reconcileTags(const Op& op) {
        for (ValueId r : op.results) {
            auto plain = expected(r, false);
            if (!plain)
                continue;
            const Shape& now = g_.type(r).shape;
            const Shape& old = old_.type(r).shape;
            for (std::size_t d = 0; d < now.size() && d < plain->size(); ++d) {
                const bool batched = now[d] != (*plain)[d] && now[d] == (*plain)[d] * plan_.unitBatch;
                if (!batched)
                    unit_[r.index][d] = 0;
                else if (unit_[r.index][d] == 0)
                    unit_[r.index][d] = old[d];
            }
        }
    }

    // Attributes that encode a size, and the declared result types of ops whose shapes their operands give.
    void adjustAttributes(Op& op, const Op& before, std::vector<TensorType>& declared) {
        const Shape* in = op.operands.empty() ? nullptr : &g_.type(op.operands[0]).shape;
        const Shape* oldIn = before.operands.empty() ? nullptr : &old_.type(before.operands[0]).shape;
        const Shape* oldOut = before.results.empty() ? nullptr : &old_.type(before.results[0]).shape;
        bool changed = false;
        if (identityLike(before)) {
            declared[0].shape = *in;
            return;
        }
        switch (op.kind) {
            case OpKind::BroadcastInDim: {
                const auto* b = std::get_if<ir::BroadcastDimensions>(&op.attributes);
                if (!b)
                    break;
                for (std::size_t i = 0; i < b->dims.size() && i < in->size(); ++i) {
                    const auto e = static_cast<std::size_t>(b->dims[i]);
                    if (e < declared[0].shape.size() && (*oldIn)[i] == (*oldOut)[e])
                        declared[0].shape[e] = (*in)[i];
                }
                break;
            }
            case OpKind::BitcastConvert:
                if (ir::bitWidth(old_.type(before.operands[0]).element) ==
                    ir::bitWidth(old_.type(before.results[0]).element))
                    declared[0].shape = *in;
                break;
            case OpKind::Slice: {
                auto* s = std::get_if<ir::SliceAttributes>(&op.attributes);
                if (!s)
                    break;
                for (std::size_t d = 0; d < in->size() && d < s->start.size() && d < s->limit.size(); ++d) {
                    const std::int64_t S = (*oldIn)[d], now = (*in)[d], R = (*oldOut)[d],
                                       want = declared[0].shape[d];
                    const std::int64_t stride = s->strides.size() > d ? s->strides[d] : 1;
                    if (now == S && want == R)
                        continue;
                    const bool atEnd = s->limit[d] == S && s->start[d] > 0;
                    std::int64_t start = s->start[d], limit = s->limit[d];
                    if (want != R) {
                        if (atEnd) {
                            limit = now;
                            start = now - (want - 1) * stride - 1;
                        } else {
                            limit = start + (want - 1) * stride + 1;
                        }
                    } else if (atEnd) {  // a window at the end stays there
                        start += now - S;
                        limit = now;
                    }
                    changed = changed || start != s->start[d] || limit != s->limit[d];
                    s->start[d] = start;
                    s->limit[d] = limit;
                }
                break;
            }
            case OpKind::DynamicSlice: {
                auto* s = std::get_if<ir::DynamicSliceAttributes>(&op.attributes);
                if (!s)
                    break;
                for (std::size_t d = 0; d < in->size() && d < s->sliceSizes.size(); ++d) {
                    const std::int64_t S = (*oldIn)[d], R = (*oldOut)[d], want = declared[0].shape[d];
                    const std::int64_t size = want != R ? want : (R == S ? (*in)[d] : R);
                    changed = changed || size != s->sliceSizes[d];
                    s->sliceSizes[d] = size;
                }
                break;
            }
            case OpKind::Gather: {
                auto* gather = std::get_if<ir::GatherAttributes>(&op.attributes);
                if (!gather)
                    break;
                for (std::size_t d = 0; d < in->size() && d < gather->sliceSizes.size(); ++d)
                    if ((*in)[d] != (*oldIn)[d] && gather->sliceSizes[d] == (*oldIn)[d]) {
                        gather->sliceSizes[d] = (*in)[d];
                        changed = true;
                    }
                break;
            }
            default:
                break;
        }
        if (changed)
            ++summary_.attributes;
    }

    const Graph& old_;
    const GlobalSizes& sizes_;
    DecisionSpace space_;
    std::vector<std::int32_t>
        bodyIndex_;  // op -> its index in the body (its rule in space_.rules); -1 in regions
    SizePlan plan_;
    Graph g_;
    std::vector<std::vector<std::int64_t>>
        unit_;  // value, dimension -> where a batch of one sits in it (0: none)
    std::map<std::tuple<Block, std::uint32_t, Shape>, ValueId> grown_;  // values grown by join, by block
    std::vector<std::pair<OpId, OpId>>
        remade_;  // ops join made again at a grown shape: (first version, new one)
    std::map<std::pair<std::uint32_t, Shape>, ValueId>
        remadeValues_;  // within one remake(): what is made already
    ResizeSummary summary_;
};

}  // namespace

std::string ResizeSummary::toString() const {
    std::string out;
    for (const auto& c : changes)
        out +=
            (out.empty() ? "" : ", ") + c.key + " " + std::to_string(c.from) + " -> " + std::to_string(c.to);
    out += " (" + std::to_string(tensors) + " tensors, " + std::to_string(attributes) + " op attributes";
    if (broadcasts > 0)
        out += ", " + std::to_string(broadcasts) + " broadcasts";
    return out + ")";
}

Result<Resized> resize(const ir::Graph& graph, const GlobalSizes& sizes) {
    try {
        return Resizer(graph, sizes).run();
    } catch (const std::bad_alloc&) {
        return makeError("resize.overflow",
                         "out of memory resizing the model (" + globalSizesText(sizes) + ")");
    }
}

}  // namespace shardscope::analysis
