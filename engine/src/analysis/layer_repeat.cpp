// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Alike layers and a shallower copy of a model without some of them (layer_repeat.h).
#include "shardscope/analysis/layer_repeat.h"

#include <algorithm>
#include <unordered_map>

namespace shardscope::analysis {

using namespace ir;

namespace {

constexpr std::int32_t kNone = -1, kShared = -2;

// The blocks of a graph as lists of body ops, and where each value comes from.
struct BlockOps {
    const Graph& g;
    const LayerBlocks& b;
    std::vector<std::vector<std::uint32_t>> ops;  // per block: body indices, in order
    std::vector<std::int32_t> bodyIndex;          // per OpId: body index, -1 inside regions
    std::vector<std::uint32_t> place;             // per body op: its index in its block's list
    std::vector<std::int32_t> owner;  // per value: the block of its producer, or of all the body ops reading
                                      // an argument (kShared: read by several or outside blocks), kNone

    // Per body op: its block; for an op in none, the one block whose ops make its operands (a layer's
    // optimizer update, whatever the parameter's name), else when it stands between two ops of blocks (a
    // residual add's gradient, say), the block of the op before it. A value made by an op so placed by its
    // place alone (a bias correction the update computes once) tells nothing of its readers' block.
    std::vector<std::int32_t> extended;

    BlockOps(const Graph& graph, const LayerBlocks& blocks) : g(graph), b(blocks) {
        const auto given = [&](std::size_t i) {
            return i < b.blockOfOp.size() ? b.blockOfOp[i] : std::int32_t{-1};
        };
        std::vector<char> blockAfter(g.body.size() + 1, 0);
        for (std::size_t i = g.body.size(); i-- > 0;)
            blockAfter[i] = blockAfter[i + 1] || given(i) >= 0;
        extended.assign(g.body.size(), -1);
        std::vector<std::int32_t> madeIn(g.values.size(), -1);
        bool blockBefore = false;
        for (std::size_t i = 0; i < g.body.size(); ++i) {
            const Op& op = g.op(g.body[i]);
            std::int32_t block = given(i);
            if (block < 0) {
                bool one = true;
                for (ValueId v : op.operands) {
                    const std::int32_t c = madeIn[v.index];
                    if (c >= 0 && block >= 0 && c != block)
                        one = false;
                    block = c >= 0 ? c : block;
                }
                if (!one || block < 0) {
                    extended[i] = blockBefore && blockAfter[i + 1] ? extended[i - 1] : -1;
                    blockBefore = blockBefore || given(i) >= 0;
                    continue;
                }
            }
            extended[i] = block;
            blockBefore = blockBefore || given(i) >= 0;
            for (ValueId v : op.results)
                madeIn[v.index] = block;
        }
        ops.resize(b.blocks.size());
        bodyIndex.assign(g.ops.size(), -1);
        place.assign(g.body.size(), 0);
        for (std::size_t i = 0; i < g.body.size(); ++i) {
            bodyIndex[g.body[i].index] = static_cast<std::int32_t>(i);
            const std::int32_t k = blockOf(i);
            if (k >= 0) {
                place[i] = static_cast<std::uint32_t>(ops[static_cast<std::size_t>(k)].size());
                ops[static_cast<std::size_t>(k)].push_back(static_cast<std::uint32_t>(i));
            }
        }
        owner.assign(g.values.size(), kNone);
        for (std::size_t i = 0; i < g.body.size(); ++i)
            for (ValueId v : g.op(g.body[i]).results)
                owner[v.index] = blockOf(i);
        for (const auto& a : g.arguments)
            owner[a.value.index] = kNone;
        std::vector<char> argument(g.values.size(), 0);
        for (const auto& a : g.arguments)
            argument[a.value.index] = 1;
        for (std::size_t i = 0; i < g.body.size(); ++i)
            for (ValueId v : g.op(g.body[i]).operands) {
                if (!argument[v.index])
                    continue;
                std::int32_t& o = owner[v.index];
                const std::int32_t k = blockOf(i);
                o = o == kNone ? (k >= 0 ? k : kShared) : (o == k ? o : kShared);
            }
    }
    std::int32_t blockOf(std::size_t i) const { return i < extended.size() ? extended[i] : std::int32_t{-1}; }
    bool isArgument(ValueId v) const { return !g.value(v).producer.valid(); }

    // Whether two ops inside regions of alike ops are alike: the same kind, attributes and result types,
    // their operands defined at the same place of their regions (or the same value outside).
    // Equal attributes; a constant's literal need not be (the layers' own seeds, say): a price reads its
    // type alone.
    static bool sameAttributes(const Op& x, const Op& y) {
        const auto* cx = std::get_if<ConstantAttributes>(&x.attributes);
        const auto* cy = std::get_if<ConstantAttributes>(&y.attributes);
        if (cx && cy)
            return cx->values.size() == cy->values.size();
        return x.attributes == y.attributes;
    }

    bool sameNested(const Op& x, const Op& y, const std::unordered_map<std::uint32_t, std::uint32_t>& xPlace,
                    const std::unordered_map<std::uint32_t, std::uint32_t>& yPlace) const {
        if (x.kind != y.kind || !sameAttributes(x, y) || x.operands.size() != y.operands.size() ||
            x.results.size() != y.results.size() || x.regions.size() != y.regions.size())
            return false;
        for (std::size_t r = 0; r < x.results.size(); ++r)
            if (!(g.type(x.results[r]) == g.type(y.results[r])))
                return false;
        for (std::size_t o = 0; o < x.operands.size(); ++o) {
            const auto px = xPlace.find(x.operands[o].index), py = yPlace.find(y.operands[o].index);
            if ((px == xPlace.end()) != (py == yPlace.end()))
                return false;
            if (px == xPlace.end() ? x.operands[o] != y.operands[o] : px->second != py->second)
                return false;
        }
        for (std::size_t r = 0; r < x.regions.size(); ++r)
            if (!sameRegion(x.regions[r], y.regions[r]))
                return false;
        return true;
    }
    bool sameRegion(const Region& x, const Region& y) const {
        if (x.arguments.size() != y.arguments.size() || x.ops.size() != y.ops.size() ||
            x.results.size() != y.results.size())
            return false;
        std::unordered_map<std::uint32_t, std::uint32_t> xPlace, yPlace;
        std::uint32_t n = 0;
        for (std::size_t a = 0; a < x.arguments.size(); ++a, ++n) {
            if (!(g.type(x.arguments[a]) == g.type(y.arguments[a])))
                return false;
            xPlace[x.arguments[a].index] = n, yPlace[y.arguments[a].index] = n;
        }
        for (std::size_t k = 0; k < x.ops.size(); ++k) {
            const Op& ox = g.op(x.ops[k]);
            const Op& oy = g.op(y.ops[k]);
            if (!sameNested(ox, oy, xPlace, yPlace))
                return false;
            for (std::size_t r = 0; r < ox.results.size(); ++r, ++n)
                xPlace[ox.results[r].index] = n, yPlace[oy.results[r].index] = n;
        }
        for (std::size_t r = 0; r < x.results.size(); ++r) {
            const auto px = xPlace.find(x.results[r].index), py = yPlace.find(y.results[r].index);
            if ((px == xPlace.end()) != (py == yPlace.end()) ||
                (px == xPlace.end() ? x.results[r] != y.results[r] : px->second != py->second))
                return false;
        }
        return true;
    }

    // Whether operand values u (read in block bu) and v (read in block bv) are wired alike; `span` grows to
    // the distance a wire between blocks spans.
    bool sameWire(ValueId u, std::int32_t bu, ValueId v, std::int32_t bv, std::size_t& span) const {
        if (u == v && owner[u.index] != bu)  // one value both read (a step count's, a shared table)
            return true;
        if (isArgument(u) != isArgument(v))
            return false;
        if (isArgument(u)) {
            if (owner[u.index] >= 0 || owner[v.index] >= 0) {  // a layer's own argument
                const Argument* au = g.argumentFor(u);
                const Argument* av = g.argumentFor(v);
                return owner[u.index] == bu && owner[v.index] == bv && au && av && au->role == av->role &&
                       g.type(u) == g.type(v);
            }
            return u == v;
        }
        const std::int32_t pu = bodyIndex[g.value(u).producer.index],
                           pv = bodyIndex[g.value(v).producer.index];
        const std::int32_t cu = owner[u.index], cv = owner[v.index];
        if (pu < 0 || pv < 0 || (cu < 0) != (cv < 0))
            return false;
        if (cu < 0)
            return u == v;
        if (cu - bu != cv - bv ||
            place[static_cast<std::size_t>(pu)] != place[static_cast<std::size_t>(pv)] ||
            g.value(u).resultIndex != g.value(v).resultIndex)
            return false;
        span = std::max(span, static_cast<std::size_t>(std::abs(cu - bu)));
        return true;
    }

    // Whether blocks x and y are copies of one another (layerRepeat).
    bool alike(std::size_t x, std::size_t y, std::size_t& span) const {
        const auto& a = ops[x];
        const auto& c = ops[y];
        if (a.size() != c.size() || b.familyOfBlock[x] != b.familyOfBlock[y])
            return false;
        for (std::size_t k = 0; k < a.size(); ++k) {
            const Op& ox = g.op(g.body[a[k]]);
            const Op& oy = g.op(g.body[c[k]]);
            if (ox.kind != oy.kind || !sameAttributes(ox, oy) || ox.operands.size() != oy.operands.size() ||
                ox.results.size() != oy.results.size() || ox.regions.size() != oy.regions.size())
                return false;
            for (std::size_t r = 0; r < ox.results.size(); ++r)
                if (!(g.type(ox.results[r]) == g.type(oy.results[r])))
                    return false;
            for (std::size_t r = 0; r < ox.regions.size(); ++r)
                if (!sameRegion(ox.regions[r], oy.regions[r]))
                    return false;
            for (std::size_t o = 0; o < ox.operands.size(); ++o)
                if (!sameWire(ox.operands[o], static_cast<std::int32_t>(x), oy.operands[o],
                              static_cast<std::int32_t>(y), span))
                    return false;
        }
        return true;
    }
};

// Where a read of value v (made in block c of the gap) from block `reader` reads in a graph without the gap's
// blocks: the same result of the op at the same place of the block a gap nearer.
ValueId movedRead(const BlockOps& blocks, ValueId v, std::size_t reader, std::size_t gapStart,
                  std::size_t gapEnd) {
    const Graph& g = blocks.g;
    const auto c = static_cast<std::size_t>(blocks.owner[v.index]);
    const std::size_t length = gapEnd - gapStart;
    const std::size_t target = reader >= gapEnd ? c - length : c + length;
    const auto p = static_cast<std::size_t>(blocks.bodyIndex[g.value(v).producer.index]);
    const std::uint32_t moved = blocks.ops[target][blocks.place[p]];
    return g.op(g.body[moved]).results[g.value(v).resultIndex];
}

}  // namespace

std::optional<LayerRepeat> layerRepeat(const Graph& graph, const LayerBlocks& layerBlocks) {
    const BlockOps blocks(graph, layerBlocks);
    const std::size_t count = blocks.ops.size();
    // The longest stretch of blocks repeating with a period of up to 4 (the smallest such period).
    std::size_t bestPeriod = 0, lo = 0, hi = 0, span = 0;
    for (std::size_t period = 1; period <= 4 && period < count; ++period) {
        std::size_t start = 0, wires = 0;
        for (std::size_t j = 0;; ++j) {
            if (j + period < count && blocks.alike(j, j + period, wires))
                continue;
            // Blocks [start, end) repeat with this period.
            const std::size_t end = std::min(count, j + period);
            if (end - start >= 4 * period && end - start > hi - lo)
                bestPeriod = period, lo = start, hi = end, span = wires;
            if (j + period >= count)
                break;
            start = j + 1, wires = 0;
        }
    }
    if (bestPeriod == 0)
        return std::nullopt;
    const std::size_t p = bestPeriod;
    const std::size_t margin = std::max<std::size_t>(1, (span + p - 1) / p) * p;
    if (hi - lo < 2 * margin + 2 * p)
        return std::nullopt;
    const std::size_t gapStart = lo + margin;
    const std::size_t gapEnd = gapStart + (hi - margin - gapStart) / p * p;
    if (gapEnd - gapStart < 2 * p)
        return std::nullopt;
    // Every read of a value of the gap is from a block outside it, at most `margin` blocks away.
    for (std::size_t i = 0; i < graph.body.size(); ++i) {
        const std::int32_t reader = blocks.blockOf(i);
        const bool readerInGap = reader >= 0 && static_cast<std::size_t>(reader) >= gapStart &&
                                 static_cast<std::size_t>(reader) < gapEnd;
        for (ValueId v : graph.op(graph.body[i]).operands) {
            const std::int32_t c = blocks.owner[v.index];
            if (c < 0 || blocks.isArgument(v) || static_cast<std::size_t>(c) < gapStart ||
                static_cast<std::size_t>(c) >= gapEnd || readerInGap)
                continue;
            if (reader < 0 || static_cast<std::size_t>(std::abs(reader - c)) > margin)
                return std::nullopt;
        }
    }
    for (const auto& o : graph.outputs) {
        const std::int32_t c = blocks.owner[o.value.index];
        if (c >= 0 && static_cast<std::size_t>(c) >= gapStart && static_cast<std::size_t>(c) < gapEnd &&
            !blocks.isArgument(o.value) && !o.aliasedArgument)
            return std::nullopt;  // a result of a layer the step returns, other than its updated state
    }
    return LayerRepeat{p, gapStart, gapEnd};
}

ShallowGraph shallowGraph(const Graph& graph, const LayerBlocks& layerBlocks, const LayerRepeat& repeat,
                          std::size_t periodsKept) {
    const BlockOps blocks(graph, layerBlocks);
    const std::size_t gapStart = repeat.gapStart + periodsKept * repeat.period, gapEnd = repeat.gapEnd;
    const auto inGap = [&](std::int32_t block) {
        return block >= 0 && static_cast<std::size_t>(block) >= gapStart &&
               static_cast<std::size_t>(block) < gapEnd;
    };
    ShallowGraph shallow;
    shallow.blocksLeftOut = gapEnd - gapStart;
    Graph& g = shallow.graph;
    g = graph;
    g.body.clear();
    std::size_t backwardStart = 0;
    for (std::size_t i = 0; i < graph.body.size(); ++i) {
        const std::int32_t reader = blocks.blockOf(i);
        if (inGap(reader))
            continue;
        if (i < graph.backwardStart)
            ++backwardStart;
        g.body.push_back(graph.body[i]);
        shallow.fullBody.push_back(static_cast<std::uint32_t>(i));
        for (ValueId& v : g.op(graph.body[i]).operands)
            if (!blocks.isArgument(v) && inGap(blocks.owner[v.index]))
                v = movedRead(blocks, v, static_cast<std::size_t>(reader), gapStart, gapEnd);
    }
    g.backwardStart = graph.backwardStart >= graph.body.size() ? g.body.size() : backwardStart;
    // The arguments only the gap reads, and the outputs and gradients that are the gap's or theirs.
    const auto leftOut = [&](ValueId v) { return inGap(blocks.owner[v.index]); };
    std::vector<std::int64_t> argumentIndex(graph.arguments.size(), -1);
    g.arguments.clear();
    for (std::size_t a = 0; a < graph.arguments.size(); ++a)
        if (!leftOut(graph.arguments[a].value)) {
            argumentIndex[a] = static_cast<std::int64_t>(g.arguments.size());
            g.arguments.push_back(graph.arguments[a]);
        }
    const auto argumentLeftOut = [&](std::optional<std::size_t> a) {
        return a && *a < argumentIndex.size() && argumentIndex[*a] < 0;
    };
    g.outputs.clear();
    for (Output o : graph.outputs) {
        if (leftOut(o.value) || argumentLeftOut(o.aliasedArgument))
            continue;
        if (o.aliasedArgument && *o.aliasedArgument < argumentIndex.size())
            o.aliasedArgument = static_cast<std::size_t>(argumentIndex[*o.aliasedArgument]);
        g.outputs.push_back(std::move(o));
    }
    g.gradients.clear();
    for (auto [v, a] : graph.gradients) {
        if (leftOut(v) || argumentLeftOut(a))
            continue;
        g.gradients.emplace_back(v,
                                 a < argumentIndex.size() ? static_cast<std::size_t>(argumentIndex[a]) : a);
    }
    removeUnreachable(g);
    // What stands for each op and value of the model (ShallowGraph::standsFor).
    shallow.standsFor.assign(graph.body.size(), -1);
    for (std::size_t j = 0; j < shallow.fullBody.size(); ++j)
        shallow.standsFor[shallow.fullBody[j]] = static_cast<std::int32_t>(j);
    for (std::size_t i = 0; i < graph.body.size(); ++i) {
        const std::int32_t b = blocks.blockOf(i);
        if (!inGap(b))
            continue;
        const std::size_t stand =
            gapStart - repeat.period + (static_cast<std::size_t>(b) - gapStart) % repeat.period;
        shallow.standsFor[i] = shallow.standsFor[blocks.ops[stand][blocks.place[i]]];
    }
    shallow.valueStandsFor.assign(graph.values.size(), ValueId{});
    for (std::size_t i = 0; i < graph.body.size(); ++i) {
        if (shallow.standsFor[i] < 0)
            continue;
        const auto& full = graph.op(graph.body[i]).results;
        const auto& copy = g.op(g.body[static_cast<std::size_t>(shallow.standsFor[i])]).results;
        for (std::size_t r = 0; r < full.size() && r < copy.size(); ++r)
            shallow.valueStandsFor[full[r].index] = copy[r];
    }
    for (std::size_t a = 0; a < graph.arguments.size(); ++a)
        if (argumentIndex[a] >= 0)
            shallow.valueStandsFor[graph.arguments[a].value.index] =
                g.arguments[static_cast<std::size_t>(argumentIndex[a])].value;
    return shallow;
}

}  // namespace shardscope::analysis
