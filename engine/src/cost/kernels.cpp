// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "cost/kernels.h"

#include <algorithm>

#include "shardscope/ir/statistics.h"

namespace shardscope::cost::detail {

using ir::OpKind;
using ir::ValueId;

namespace {

constexpr std::int32_t kNone = -1;

// Fusible into a loop fusion (a reduction only as its root).
bool fusible(const ir::Op& op) {
    if (ir::isElementwise(op.kind))
        return op.results.size() == 1;
    switch (op.kind) {
        case OpKind::Transpose:
        case OpKind::Slice:
        case OpKind::Pad:
        case OpKind::Concatenate:
        case OpKind::Reverse:
        case OpKind::Rng:  // XLA expands random numbers into elementwise code that fuses into their consumers
        case OpKind::Reduce:
            return true;
        default:
            return false;
    }
}

// Cheap to recompute where it is read: what XLA duplicates into its consumers.
bool recomputable(const ir::Op& op) {
    return fusible(op) && op.kind != OpKind::Reduce && op.results.size() == 1;
}

struct Builder {
    const KernelInputs& in;
    const ir::Graph& g;
    std::size_t n;
    std::vector<std::vector<std::uint32_t>> users;  // top-level readers of each value (through free ops)
    std::vector<std::vector<std::uint32_t>> directUsers;
    std::vector<std::int32_t> base;           // last uses, through transparent ops
    std::vector<std::int64_t> scoreElements;  // per attention kernel
    std::vector<char> taken;                  // per body op: part of an attention found
    KernelPlan out;

    explicit Builder(const KernelInputs& inputs)
        : in(inputs), g(*inputs.graph), n(inputs.graph->body.size()) {
        const std::size_t nv = g.values.size();
        directUsers.assign(nv, {});
        auto use = [&](ValueId v, std::uint32_t i) {
            auto& list = directUsers[v.index];
            if (list.empty() || list.back() != i)
                list.push_back(i);
        };
        for (std::size_t i = 0; i < n; ++i) {
            const ir::Op& op = g.op(g.body[i]);
            for (ValueId v : op.operands)
                use(v, static_cast<std::uint32_t>(i));
            auto nested = [&](auto&& self, const ir::Op& o) -> void {
                for (const auto& r : o.regions)
                    for (ir::OpId id : r.ops) {
                        for (ValueId v : g.op(id).operands)
                            if ((*in.topLevel)[v.index])
                                use(v, static_cast<std::uint32_t>(i));
                        self(self, g.op(id));
                    }
            };
            nested(nested, op);
        }
        // Readers seen through free ops: a broadcast's readers read its operand.
        users.assign(nv, {});
        for (std::size_t i = n; i-- > 0;) {
            const ir::Op& op = g.op(g.body[i]);
            (void)op;
        }
        for (std::size_t v = 0; v < nv; ++v)
            users[v] = readersThroughFree(ValueId{static_cast<std::uint32_t>(v)});
        out.kernelOf.assign(n, kNone);
        out.stored.assign(nv, 1);
        // What a transparent op reads stays live as long as its result.
        base = *in.lastUse;
        for (std::size_t i = n; i-- > 0;) {
            if (!(*in.transparentOp)[i])
                continue;
            const ir::Op& op = g.op(g.body[i]);
            for (ValueId r : op.results)
                for (ValueId o : op.operands)
                    base[o.index] = std::max(base[o.index], base[r.index]);
        }
        out.lastUse = base;
    }

    bool isFree(std::uint32_t i) const { return (*in.freeOp)[i] != 0; }
    const ir::Op& bodyOp(std::uint32_t i) const { return g.op(g.body[i]); }
    std::int64_t elements(ValueId v) const { return g.type(v).elements(); }

    std::vector<std::uint32_t> readersThroughFree(ValueId v) const {
        std::vector<std::uint32_t> result;
        std::vector<ValueId> stack{v};
        std::size_t guard = 0;
        while (!stack.empty() && ++guard < 4096) {
            const ValueId x = stack.back();
            stack.pop_back();
            for (std::uint32_t u : directUsers[x.index]) {
                if (isFree(u)) {
                    for (ValueId r : bodyOp(u).results)
                        stack.push_back(r);
                } else if (std::find(result.begin(), result.end(), u) == result.end()) {
                    result.push_back(u);
                }
            }
        }
        std::sort(result.begin(), result.end());
        return result;
    }

    // Values read by a free op's chain: the non-free producers' values behind a value (itself when not free).
    void throughFree(ValueId v, std::vector<ValueId>& into) const {
        const std::int32_t p = (*in.producer)[v.index];
        if (p < 0 || !isFree(static_cast<std::uint32_t>(p))) {
            into.push_back(v);
            return;
        }
        for (ValueId o : bodyOp(static_cast<std::uint32_t>(p)).operands)
            throughFree(o, into);
    }

    std::uint32_t newKernel(KernelKind kind, std::int64_t scores = 0) {
        out.kernels.push_back({});
        out.kernels.back().kind = kind;
        scoreElements.push_back(scores);
        return static_cast<std::uint32_t>(out.kernels.size() - 1);
    }

    // --- fused attention
    // ---------------------------------------------------------------------------------------

    bool scoresDot(const ir::Op& op) const {
        if (op.kind != OpKind::DotGeneral || op.results.size() != 1 || op.operands.size() != 2)
            return false;
        const auto* dims = std::get_if<ir::DotDimensions>(&op.attributes);
        if (!dims)
            return false;
        const auto freeDims = [](std::int64_t rank, std::size_t batch, std::size_t contracting) {
            return rank - static_cast<std::int64_t>(batch + contracting);
        };
        // Batched over (batch, heads) with both operands keeping free dimensions (q's and k's sequence): the
        // result is [.., s_q, s_k]. A language-model head (x·W, no batch dimensions) is not one.
        return !dims->lhsBatching.empty() &&
               freeDims(g.type(op.operands[0]).rank(), dims->lhsBatching.size(),
                        dims->lhsContracting.size()) >= 1 &&
               freeDims(g.type(op.operands[1]).rank(), dims->rhsBatching.size(),
                        dims->rhsContracting.size()) >= 1 &&
               !dims->lhsContracting.empty();
    }

    // The ops of one attention's forward, from its q·kᵀ at body index `first`, or empty when it is not one.
    struct Match {
        std::vector<std::uint32_t> forward;
        std::int64_t scoreElements = 0;
    };
    Match matchForward(std::uint32_t first) {
        Match m;
        const ir::Op& d1 = bodyOp(first);
        m.scoreElements = elements(d1.results[0]);
        std::vector<char> reached(g.values.size(), 0);
        reached[d1.results[0].index] = 1;
        std::uint32_t horizon = first;  // the last reader of a reached value
        for (std::uint32_t u : users[d1.results[0].index])
            horizon = std::max(horizon, u);
        bool exponential = false, reduction = false;
        std::vector<std::uint32_t> core{first};
        for (std::uint32_t i = first + 1; i < n && i <= horizon; ++i) {
            if (isFree(i) || taken[i]) {
                // Free ops pass reached values on.
                const ir::Op& op = bodyOp(i);
                bool any = false;
                for (ValueId o : op.operands)
                    any = any || reached[o.index];
                if (any && isFree(i))
                    for (ValueId r : op.results)
                        reached[r.index] = 1;
                continue;
            }
            const ir::Op& op = bodyOp(i);
            bool any = false;
            for (ValueId o : op.operands)
                any = any || reached[o.index];
            if (!any)
                continue;
            if (op.kind == OpKind::DotGeneral) {
                // O = P·v: the scores' last stop. It must read a score-sized value.
                bool scores = false;
                for (ValueId o : op.operands)
                    scores = scores || (reached[o.index] && elements(o) == m.scoreElements);
                const auto* dims = std::get_if<ir::DotDimensions>(&op.attributes);
                if (!scores || !exponential || !reduction || !dims || dims->lhsBatching.empty())
                    return {};
                core.push_back(i);
                m.forward = absorbSideInputs(core, m.scoreElements, i);
                return m;
            }
            if (!fusible(op))
                return {};
            exponential = exponential || op.kind == OpKind::Exponential;
            reduction = reduction || op.kind == OpKind::Reduce;
            core.push_back(i);
            for (ValueId r : op.results) {
                reached[r.index] = 1;
                for (std::uint32_t u : users[r.index])
                    horizon = std::max(horizon, u);
            }
        }
        return {};
    }

    // Adds the producers of score-sized side inputs (masks, dropout draws) whose readers are all in `ops`.
    std::vector<std::uint32_t> absorbSideInputs(std::vector<std::uint32_t> ops, std::int64_t scores,
                                                std::uint32_t last) {
        for (int round = 0; round < 6; ++round) {
            bool grew = false;
            std::vector<std::uint32_t> add;
            for (std::uint32_t i : ops) {
                for (ValueId o : bodyOp(i).operands) {
                    std::vector<ValueId> behind;
                    throughFree(o, behind);
                    for (ValueId v : behind) {
                        const std::int32_t p = (*in.producer)[v.index];
                        if (p < 0 || elements(v) != scores || taken[static_cast<std::size_t>(p)])
                            continue;
                        const auto up = static_cast<std::uint32_t>(p);
                        if (std::find(ops.begin(), ops.end(), up) != ops.end() ||
                            std::find(add.begin(), add.end(), up) != add.end())
                            continue;
                        bool inside = true;
                        for (ValueId r : bodyOp(up).results)
                            for (std::uint32_t u : users[r.index])
                                inside =
                                    inside && (std::find(ops.begin(), ops.end(), u) != ops.end() || u > last);
                        if (inside)
                            add.push_back(up);
                    }
                }
            }
            for (std::uint32_t a : add)
                ops.push_back(a), grew = true;
            if (!grew)
                break;
        }
        std::sort(ops.begin(), ops.end());
        return ops;
    }

    // The backward kernel of an attention whose forward ops are `forward`: every later op reading a value the
    // forward keeps inside (a score-sized one) or a value another backward op produced, closed over the
    // score-sized values those ops read (dP = dO·vᵀ).
    std::vector<std::uint32_t> matchBackward(const std::vector<std::uint32_t>& forward, std::int64_t scores) {
        std::vector<char> reached(g.values.size(), 0);
        std::uint32_t horizon = 0;
        const std::uint32_t last = forward.back();
        for (std::uint32_t i : forward)
            for (ValueId r : bodyOp(i).results) {
                if (elements(r) != scores)
                    continue;
                reached[r.index] = 1;
                for (std::uint32_t u : users[r.index])
                    horizon = std::max(horizon, u);
            }
        std::vector<std::uint32_t> ops;
        for (std::uint32_t i = last + 1; i < n && i <= horizon; ++i) {
            const ir::Op& op = bodyOp(i);
            bool any = false;
            for (ValueId o : op.operands)
                any = any || reached[o.index];
            if (!any)
                continue;
            if (isFree(i)) {
                for (ValueId r : op.results)
                    reached[r.index] = 1;
                for (ValueId r : op.results)
                    for (std::uint32_t u : users[r.index])
                        horizon = std::max(horizon, u);
                continue;
            }
            if (taken[i])
                continue;
            if (!fusible(op) && op.kind != OpKind::DotGeneral)
                continue;
            ops.push_back(i);
            // A dot's non-score result (dQ, dK, dV) leaves the kernel; everything else flows on.
            for (ValueId r : op.results) {
                if (op.kind == OpKind::DotGeneral && elements(r) != scores)
                    continue;
                reached[r.index] = 1;
                for (std::uint32_t u : users[r.index])
                    horizon = std::max(horizon, u);
            }
        }
        if (ops.empty())
            return ops;
        return absorbSideInputs(ops, scores, static_cast<std::uint32_t>(n));
    }

    // Finds every attention; prices each as flash-attention kernels when `fuse`.
    void attention(bool fuse) {
        taken.assign(n, 0);
        out.attentionCore.assign(n, 0);
        for (std::uint32_t i = 0; i < n; ++i) {
            if (taken[i] || !scoresDot(bodyOp(i)))
                continue;
            Match m = matchForward(i);
            if (m.forward.empty())
                continue;
            ++out.attentions;
            for (std::uint32_t op : m.forward)
                taken[op] = 1, out.attentionCore[op] = 1;
            auto backward = matchBackward(m.forward, m.scoreElements);
            for (std::uint32_t op : backward)
                taken[op] = 1;
            if (!fuse)
                continue;
            const std::uint32_t fk = newKernel(KernelKind::AttentionForward, m.scoreElements);
            for (std::uint32_t op : m.forward)
                out.kernelOf[op] = static_cast<std::int32_t>(fk);
            out.kernels[fk].ops = m.forward;
            if (backward.empty())
                continue;
            const std::uint32_t bk = newKernel(KernelKind::AttentionBackward, m.scoreElements);
            for (std::uint32_t op : backward)
                out.kernelOf[op] = static_cast<std::int32_t>(bk);
            out.kernels[bk].ops = std::move(backward);
            out.kernels[bk].recomputedOp = static_cast<std::int32_t>(i);
        }
    }

    // --- loop fusion
    // ---------------------------------------------------------------------------------------------

    void loops(bool fuse) {
        for (std::uint32_t i = static_cast<std::uint32_t>(n); i-- > 0;) {
            if (out.kernelOf[i] != kNone || isFree(i))
                continue;
            const ir::Op& op = bodyOp(i);
            std::int32_t target = kNone;
            if (fuse && fusible(op) && op.kind != OpKind::Reduce) {
                bool one = true;
                for (ValueId r : op.results) {
                    if ((*in.output)[r.index])
                        one = false;
                    for (std::uint32_t u : users[r.index]) {
                        const std::int32_t k = out.kernelOf[u];
                        const bool fusibleReader =
                            k != kNone && out.kernels[static_cast<std::size_t>(k)].kind == KernelKind::Fusion;
                        if (!fusibleReader || (target != kNone && k != target))
                            one = false;
                        target = k;
                    }
                }
                if (!one)
                    target = kNone;
            }
            if (target == kNone)
                target = static_cast<std::int32_t>(
                    newKernel(fuse && fusible(op) ? KernelKind::Fusion : KernelKind::Op));
            out.kernelOf[i] = target;
            out.kernels[static_cast<std::size_t>(target)].ops.push_back(i);
        }
    }

    // --- storage
    // -------------------------------------------------------------------------------------------------

    // Stored values `v` is computed from (through values that are not stored); false when more than `limit`.
    // `steps` bounds the walk (a shared subexpression is walked once per path).
    bool sources(ValueId v, std::vector<ValueId>& into, std::size_t limit, int& steps) const {
        if (--steps < 0)
            return false;
        const std::int32_t p = (*in.producer)[v.index];
        if (out.stored[v.index] || p < 0) {
            if (std::find(into.begin(), into.end(), v) == into.end())
                into.push_back(v);
            return into.size() <= limit;
        }
        // Random numbers are drawn once: what depends on them (a dropout mask) is kept, not drawn again.
        if (bodyOp(static_cast<std::uint32_t>(p)).kind == OpKind::Rng)
            return false;
        for (ValueId o : bodyOp(static_cast<std::uint32_t>(p)).operands)
            if (!sources(o, into, limit, steps))
                return false;
        return true;
    }

    // The last body index `v` is live for without anything recomputed from it.
    std::int32_t liveUntil(ValueId v) const {
        const bool argument = (*in.producer)[v.index] < 0;
        if ((*in.output)[v.index] || (argument && !(*in.donated)[v.index]))
            return static_cast<std::int32_t>(n);
        return base[v.index];
    }

    void storage(bool recompute) {
        for (std::uint32_t i = 0; i < n; ++i) {
            const ir::Op& op = bodyOp(i);
            const std::int32_t k = out.kernelOf[i];
            for (ValueId r : op.results) {
                if (isFree(i)) {
                    out.stored[r.index] = !(*in.transparentOp)[i];
                    continue;
                }
                if ((*in.output)[r.index])
                    continue;
                bool leaves = false, allFusible = true;
                for (std::uint32_t u : users[r.index]) {
                    if (out.kernelOf[u] != k)
                        leaves = true;
                    const auto kind = out.kernels[static_cast<std::size_t>(out.kernelOf[u])].kind;
                    if (kind == KernelKind::Op)
                        allFusible = false;
                }
                if (!leaves) {
                    out.stored[r.index] = users[r.index].empty() && k != kNone &&
                                          out.kernels[static_cast<std::size_t>(k)].kind == KernelKind::Op;
                    continue;
                }
                // Attention kernels never store score-sized values they read back (the backward recomputes
                // them).
                if (k != kNone &&
                    out.kernels[static_cast<std::size_t>(k)].kind == KernelKind::AttentionForward) {
                    bool onlyAttention = true;
                    for (std::uint32_t u : users[r.index]) {
                        const auto kind = out.kernels[static_cast<std::size_t>(out.kernelOf[u])].kind;
                        onlyAttention =
                            onlyAttention && (out.kernelOf[u] == k || kind == KernelKind::AttentionBackward);
                    }
                    if (onlyAttention && elements(r) >= scoreElements[static_cast<std::size_t>(k)]) {
                        out.stored[r.index] = 0;
                        continue;
                    }
                }
                if (!recompute || !recomputable(op) || !allFusible)
                    continue;
                std::vector<ValueId> from;
                out.stored[r.index] = 0;  // look behind it
                int steps = 64;
                bool cheap = sources(r, from, 8, steps);
                double extended = 0;  // bytes kept live longer to recompute it
                for (std::size_t s = 0; cheap && s < from.size(); ++s)
                    if (liveUntil(from[s]) < base[r.index])
                        extended += static_cast<double>(g.type(from[s]).bytes());
                out.stored[r.index] = !cheap || 2 * extended >= static_cast<double>(g.type(r).bytes());
            }
        }
        // A value that is not stored keeps what it is computed from live until its own last use.
        for (std::uint32_t i = static_cast<std::uint32_t>(n); i-- > 0;) {
            const ir::Op& op = bodyOp(i);
            for (ValueId r : op.results) {
                if (out.stored[r.index])
                    continue;
                for (ValueId o : op.operands)
                    out.lastUse[o.index] = std::max(out.lastUse[o.index], out.lastUse[r.index]);
            }
        }
    }

    // Reads and writes of each kernel; kernels ordered by their last op.
    void finish() {
        std::vector<std::uint32_t> order(out.kernels.size());
        for (std::uint32_t k = 0; k < order.size(); ++k) {
            auto& ops = out.kernels[k].ops;
            std::sort(ops.begin(), ops.end());
            order[k] = k;
        }
        std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            return out.kernels[a].ops.back() < out.kernels[b].ops.back();
        });
        std::vector<Kernel> sorted;
        std::vector<std::int32_t> renumber(order.size());
        for (std::uint32_t k = 0; k < order.size(); ++k) {
            renumber[order[k]] = static_cast<std::int32_t>(k);
            sorted.push_back(std::move(out.kernels[order[k]]));
        }
        out.kernels = std::move(sorted);
        for (auto& k : out.kernelOf)
            if (k != kNone)
                k = renumber[static_cast<std::size_t>(k)];
        for (std::size_t k = 0; k < out.kernels.size(); ++k) {
            Kernel& kernel = out.kernels[k];
            auto addUnique = [](std::vector<ValueId>& list, ValueId v) {
                if (std::find(list.begin(), list.end(), v) == list.end())
                    list.push_back(v);
            };
            for (std::uint32_t i : kernel.ops) {
                const ir::Op& op = bodyOp(i);
                for (ValueId o : op.operands) {
                    std::vector<ValueId> from;
                    const std::int32_t p = (*in.producer)[o.index];
                    if (p >= 0 && out.kernelOf[static_cast<std::size_t>(p)] == static_cast<std::int32_t>(k))
                        continue;
                    int steps = 4096;
                    sources(o, from, 256, steps);
                    for (ValueId s : from)
                        if ((*in.topLevel)[s.index])
                            addUnique(kernel.reads, s);
                }
                for (ValueId r : op.results)
                    if (out.stored[r.index])
                        addUnique(kernel.writes, r);
            }
        }
    }
};

}  // namespace

KernelPlan planKernels(const KernelInputs& in, Fusion fusion, Attention attention) {
    Builder b(in);
    b.attention(attention == Attention::Fused);
    b.loops(fusion == Fusion::Xla);
    b.storage(fusion == Fusion::Xla);
    b.finish();
    return std::move(b.out);
}

}  // namespace shardscope::cost::detail
