// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/ir/unroll.h"

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace shardscope::ir {
namespace {

CompareDirection swapped(CompareDirection d) {
    switch (d) {
        case CompareDirection::LT:
            return CompareDirection::GT;
        case CompareDirection::LE:
            return CompareDirection::GE;
        case CompareDirection::GT:
            return CompareDirection::LT;
        case CompareDirection::GE:
            return CompareDirection::LE;
        default:
            return d;
    }
}

std::size_t opsWithin(const Graph& g, const Op& op) {
    std::size_t n = 0;
    for (const auto& r : op.regions)
        for (OpId id : r.ops)
            n += 1 + opsWithin(g, g.op(id));
    return n;
}

// "layers" + "layers.attn.q_proj" at iteration 3 -> "layers.3.attn.q_proj"; "jit(f)/while" +
// "jit(f)/while/body/dot" -> "jit(f)/while.3/body/dot"; otherwise the loop's label, the iteration, then the
// op's.
std::string iterationLabel(const std::string& loop, const std::string& op, std::int64_t k) {
    const std::string base = (loop.empty() ? std::string("loop") : loop) + "." + std::to_string(k);
    if (!loop.empty() && op.compare(0, loop.size(), loop) == 0 &&
        (op.size() == loop.size() || op[loop.size()] == '.' || op[loop.size()] == '/'))
        return base + op.substr(loop.size());
    return op.empty() ? base : base + "." + op;
}

class Unroller {
public:
    Unroller(Graph& g, const UnrollOptions& options) : g_(g), options_(options) {}

    UnrolledLoops run() {
        UnrolledLoops report;
        OpId backwardFirst =
            g_.backwardStart > 0 && g_.backwardStart < g_.body.size() ? g_.body[g_.backwardStart] : OpId{};
        std::map<std::uint32_t, std::string> kept;  // loop op -> why it stays
        bool rewrote = false;
        for (bool changed = true; changed;) {
            changed = false;
            std::vector<OpId> body;
            body.reserve(g_.body.size());
            for (OpId id : g_.body) {
                if (const auto branch = constantBranch(g_.op(id))) {
                    inlineBranch(id, *branch, body);
                    changed = rewrote = true;
                    continue;
                }
                if (g_.op(id).kind != OpKind::While) {
                    body.push_back(id);
                    continue;
                }
                const auto trips = countedTrips(g_, g_.op(id));
                if (!trips) {
                    kept[id.index] = "its trip count is not a counter with a constant start, step and limit";
                    body.push_back(id);
                    continue;
                }
                const double grown =
                    static_cast<double>(*trips) * static_cast<double>(opsWithin(g_, g_.op(id)) + 1);
                if (static_cast<double>(g_.ops.size()) + grown > static_cast<double>(options_.maxOps)) {
                    kept[id.index] = std::to_string(*trips) + " iterations of " +
                                     std::to_string(opsWithin(g_, g_.op(id))) +
                                     " ops would pass the limit of " + std::to_string(options_.maxOps) +
                                     " ops";
                    body.push_back(id);
                    continue;
                }
                if (backwardFirst == id)
                    backwardFirst = OpId{};  // the loop's first copy takes its place below
                const std::size_t before = body.size();
                unroll(id, *trips, body);
                if (!backwardFirst.valid() && g_.backwardStart > 0 && body.size() > before)
                    backwardFirst = body[before];
                kept.erase(id.index);
                ++report.unrolled;
                changed = rewrote = true;
            }
            g_.body = std::move(body);
            resolveAll();
        }
        for (OpId id : g_.body) {
            auto it = kept.find(id.index);
            if (it == kept.end())
                continue;
            const Op& op = g_.op(id);
            const std::string where =
                op.location.name.empty() ? std::string() : " '" + op.location.name + "'";
            report.warnings.push_back(
                makeWarning("import.loop-kept",
                            "while loop" + where + " is priced as one op, not per iteration: " + it->second,
                            op.location));
        }
        if (!rewrote)
            return report;
        dropUnusedCopies();
        if (g_.backwardStart > 0) {
            for (std::size_t i = 0; i < g_.body.size(); ++i)
                if (g_.body[i] == backwardFirst)
                    g_.backwardStart = i;
        }
        removeUnreachable(g_);
        return report;
    }

private:
    // Copies nothing reads any more (each iteration's counter update, now that the next reads a constant) go.
    void dropUnusedCopies() {
        std::vector<std::uint32_t> uses(g_.values.size(), 0);
        for (OpId id : g_.allOpsInOrder()) {
            const Op& op = g_.op(id);
            for (ValueId v : op.operands)
                ++uses[v.index];
            for (const auto& r : op.regions)
                for (ValueId v : r.results)
                    ++uses[v.index];
        }
        for (const auto& o : g_.outputs)
            ++uses[o.value.index];
        for (const auto& [value, argument] : g_.gradients)
            ++uses[value.index];
        std::vector<char> drop(g_.body.size(), 0);
        for (std::size_t i = g_.body.size(); i-- > 0;) {
            const Op& op = g_.op(g_.body[i]);
            if (!copies_.count(g_.body[i].index) || !op.regions.empty())
                continue;
            const auto c = category(op.kind);
            if (c == OpCategory::Collective || c == OpCategory::Opaque || op.kind == OpKind::CustomCall ||
                op.kind == OpKind::Rng || op.kind == OpKind::RngBitGenerator)
                continue;
            bool used = false;
            for (ValueId r : op.results)
                used = used || uses[r.index] > 0;
            if (used)
                continue;
            drop[i] = 1;
            for (ValueId v : op.operands)
                --uses[v.index];
        }
        std::vector<OpId> body;
        for (std::size_t i = 0; i < g_.body.size(); ++i)
            if (!drop[i])
                body.push_back(g_.body[i]);
        g_.body = std::move(body);
    }

    ValueId resolve(ValueId v) {
        while (v.valid()) {
            auto it = replaced_.find(v.index);
            if (it == replaced_.end())
                break;
            v = it->second;
        }
        return v;
    }

    void resolveAll() {
        if (replaced_.empty())
            return;
        for (OpId id : g_.allOpsInOrder()) {
            Op& op = g_.op(id);
            for (auto& v : op.operands)
                v = resolve(v);
            for (auto& r : op.regions)
                for (auto& v : r.results)
                    v = resolve(v);
        }
        for (auto& o : g_.outputs)
            o.value = resolve(o.value);
        for (auto& [value, argument] : g_.gradients)
            value = resolve(value);
    }

    ValueId mapped(const std::unordered_map<std::uint32_t, ValueId>& map, ValueId v) const {
        auto it = map.find(v.index);
        return it == map.end() ? v : it->second;  // a value from outside the loop (a capture)
    }

    // Copies `source` (and its regions) with operands through `map`, labelled `label`; maps its results.
    OpId clone(OpId source, std::unordered_map<std::uint32_t, ValueId>& map, const std::string& label) {
        const Op copy = g_.op(source);  // by value: addOp grows the tables
        std::vector<ValueId> operands;
        operands.reserve(copy.operands.size());
        for (ValueId v : copy.operands)
            operands.push_back(mapped(map, v));
        std::vector<TensorType> types;
        for (ValueId v : copy.results)
            types.push_back(g_.type(v));
        SourceLocation location = copy.location;
        location.name = label;
        const OpId id = g_.addOp(copy.kind, std::move(operands), types, copy.attributes, std::move(location));
        copies_.insert(id.index);
        g_.op(id).sharding = copy.sharding;
        for (std::size_t i = 0; i < copy.results.size(); ++i)
            map[copy.results[i].index] = g_.op(id).results[i];
        std::vector<Region> regions;
        for (const Region& r : copy.regions) {
            Region nr;
            for (ValueId a : r.arguments) {
                const ValueId na = g_.addValue(g_.type(a));
                map[a.index] = na;
                nr.arguments.push_back(na);
            }
            for (OpId inner : r.ops)
                nr.ops.push_back(clone(inner, map, g_.op(inner).location.name));
            for (ValueId v : r.results)
                nr.results.push_back(mapped(map, v));
            regions.push_back(std::move(nr));
        }
        g_.op(id).regions = std::move(regions);
        return id;
    }

    // The branch a case (or if) takes when its index (or predicate) is a constant.
    std::optional<std::size_t> constantBranch(const Op& op) const {
        if ((op.kind != OpKind::Case && op.kind != OpKind::If) || op.operands.empty() || op.regions.empty())
            return std::nullopt;
        const auto index = constantScalar(g_, op.operands[0]);
        if (!index)
            return std::nullopt;
        const std::size_t n = op.regions.size();
        if (op.kind == OpKind::If)
            return n == 2 ? std::optional<std::size_t>(*index != 0 ? 0 : 1) : std::nullopt;
        // stablehlo.case: an index out of range takes the last branch.
        return *index >= 0 && *index < static_cast<double>(n) ? static_cast<std::size_t>(*index) : n - 1;
    }

    void inlineBranch(OpId id, std::size_t branch, std::vector<OpId>& body) {
        const Op op = g_.op(id);
        const Region& region = op.regions[branch];
        std::unordered_map<std::uint32_t, ValueId> map;
        for (OpId inner : region.ops)
            body.push_back(clone(inner, map, g_.op(inner).location.name));
        for (std::size_t j = 0; j < op.results.size() && j < region.results.size(); ++j)
            replaced_[op.results[j].index] = mapped(map, region.results[j]);
    }

    // Appends the loop's iterations to `body` and maps its results to the last iteration's carried values.
    void unroll(OpId loopId, std::int64_t trips, std::vector<OpId>& body) {
        const Op loop = g_.op(loopId);
        const Region& cond = loop.regions[0];
        const Region& region = loop.regions[1];
        const Op& compare = g_.op(g_.value(cond.results[0]).producer);
        std::size_t counter = 0;
        for (std::size_t i = 0; i < cond.arguments.size(); ++i)
            if (compare.operands[0] == cond.arguments[i] || compare.operands[1] == cond.arguments[i])
                counter = i;
        const double start = *constantScalar(g_, loop.operands[counter]);
        const double step = stepOf(loop, counter);
        const TensorType counterType = g_.type(loop.operands[counter]);
        std::vector<ValueId> carried = loop.operands;
        for (std::int64_t k = 0; k < trips; ++k) {
            std::unordered_map<std::uint32_t, ValueId> map;
            for (std::size_t j = 0; j < region.arguments.size(); ++j)
                map[region.arguments[j].index] = carried[j];
            // The counter is a constant in each copy: every slice of a stacked weight at this iteration reads
            // it.
            SourceLocation at = loop.location;
            at.name = iterationLabel(loop.location.name, "", k) + ".index";
            const OpId index = g_.addOp(OpKind::Constant, {}, {counterType},
                                        ConstantAttributes{{start + static_cast<double>(k) * step}}, at);
            body.push_back(index);
            copies_.insert(index.index);
            map[region.arguments[counter].index] = g_.op(index).results[0];
            for (OpId id : region.ops) {
                const std::string label = iterationLabel(loop.location.name, g_.op(id).location.name, k);
                body.push_back(clone(id, map, label));
            }
            for (std::size_t j = 0; j < region.results.size(); ++j)
                carried[j] = mapped(map, region.results[j]);
        }
        for (std::size_t j = 0; j < loop.results.size(); ++j)
            replaced_[loop.results[j].index] = carried[j];
    }

    double stepOf(const Op& loop, std::size_t counter) const {
        const Region& region = loop.regions[1];
        const Op& update = g_.op(g_.value(region.results[counter]).producer);
        const ValueId arg = region.arguments[counter];
        const ValueId other = update.operands[0] == arg ? update.operands[1] : update.operands[0];
        const double c = *constantScalar(g_, other);
        return update.kind == OpKind::Subtract ? -c : c;
    }

    Graph& g_;
    const UnrollOptions& options_;
    std::unordered_map<std::uint32_t, ValueId>
        replaced_;                              // loop result -> its value after the last iteration
    std::unordered_set<std::uint32_t> copies_;  // ops made by unrolling (and the counters' constants)
};

}  // namespace

std::optional<std::int64_t> countedTrips(const Graph& g, const Op& op) {
    if (op.kind != OpKind::While || op.regions.size() != 2)
        return std::nullopt;
    const Region& cond = op.regions[0];
    const Region& body = op.regions[1];
    const std::size_t n = op.operands.size();
    if (cond.arguments.size() != n || body.arguments.size() != n || body.results.size() != n ||
        op.results.size() != n || cond.results.size() != 1)
        return std::nullopt;
    const Value& decision = g.value(cond.results[0]);
    if (!decision.producer.valid())
        return std::nullopt;
    const Op& compare = g.op(decision.producer);
    const auto* attributes = std::get_if<CompareAttributes>(&compare.attributes);
    if (compare.kind != OpKind::Compare || compare.operands.size() != 2 || !attributes)
        return std::nullopt;
    std::optional<std::size_t> counter;
    CompareDirection direction = attributes->direction;
    std::optional<double> limit;
    for (std::size_t i = 0; i < n && !counter; ++i) {
        if (compare.operands[0] == cond.arguments[i]) {
            counter = i;
            limit = constantScalar(g, compare.operands[1]);
        } else if (compare.operands[1] == cond.arguments[i]) {
            counter = i;
            limit = constantScalar(g, compare.operands[0]);
            direction = swapped(direction);
        }
    }
    if (!counter || !limit)
        return std::nullopt;
    if (!isInteger(g.type(op.operands[*counter]).element) || g.type(op.operands[*counter]).elements() != 1)
        return std::nullopt;
    const auto start = constantScalar(g, op.operands[*counter]);
    if (!start)
        return std::nullopt;
    const Value& next = g.value(body.results[*counter]);
    if (!next.producer.valid())
        return std::nullopt;
    const Op& update = g.op(next.producer);
    const ValueId arg = body.arguments[*counter];
    if ((update.kind != OpKind::Add && update.kind != OpKind::Subtract) || update.operands.size() != 2)
        return std::nullopt;
    if (update.kind == OpKind::Subtract && update.operands[0] != arg)
        return std::nullopt;
    if (update.operands[0] != arg && update.operands[1] != arg)
        return std::nullopt;
    const auto c = constantScalar(g, update.operands[0] == arg ? update.operands[1] : update.operands[0]);
    if (!c || *c == 0 || std::floor(*c) != *c)
        return std::nullopt;
    const double step = update.kind == OpKind::Subtract ? -*c : *c;
    if (std::floor(*start) != *start || std::floor(*limit) != *limit)
        return std::nullopt;
    const double distance = *limit - *start;
    double trips = 0;
    // A condition false at the start runs no iteration; one that stays true forever is not counted.
    switch (direction) {
        case CompareDirection::LT:
            trips = distance <= 0 ? 0 : step > 0 ? std::ceil(distance / step) : -1;
            break;
        case CompareDirection::LE:
            trips = distance < 0 ? 0 : step > 0 ? std::floor(distance / step) + 1 : -1;
            break;
        case CompareDirection::GT:
            trips = distance >= 0 ? 0 : step < 0 ? std::ceil(distance / step) : -1;
            break;
        case CompareDirection::GE:
            trips = distance > 0 ? 0 : step < 0 ? std::floor(distance / step) + 1 : -1;
            break;
        case CompareDirection::NE:
            trips = std::fmod(distance, step) == 0 && distance / step >= 0 ? distance / step : -1;
            break;
        case CompareDirection::EQ:
            trips = distance == 0 ? -1 : 0;
            break;
    }
    if (trips < 0 || trips > 1e9)
        return std::nullopt;  // runs forever, or a counter we do not follow
    return static_cast<std::int64_t>(std::max(0.0, trips));
}

UnrolledLoops unrollLoops(Graph& graph, const UnrollOptions& options) {
    return Unroller(graph, options).run();
}

}  // namespace shardscope::ir
