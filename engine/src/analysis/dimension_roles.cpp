// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Roles of names from the model's structure, and the layer each per-layer name lives in (dimension_roles.h).
//
// The patterns: an embedding is a gather of a weight's rows by token ids; attention is q·kᵀ → softmax → ·v (a
// dot whose operand comes from an exponential that comes from another dot, neither with a weight operand); an
// MLP hidden width is made by one weight's dot and contracted by another's, and no reduce (no norm) runs over
// it; experts are what a weight's dot batches over. A weight is a parameter, or a constant that is not a
// splat, seen through layout ops.
#include "shardscope/analysis/dimension_roles.h"

#include <algorithm>
#include <array>
#include <deque>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <variant>

namespace shardscope::analysis {

using namespace ir;

namespace {

constexpr std::array<std::string_view, 14> kRoleNames{"",         "batch",  "seq",      "d_model", "heads",
                                                      "kv_heads", "group",  "head_dim", "d_ff",    "vocab",
                                                      "experts",  "height", "width",    "channels"};

// How far back a dot looks for its softmax, and the softmax for its scores.
constexpr int kSearchDepth = 12;
constexpr std::size_t kSearchValues = 96;

bool perLayer(DimensionRole r) {
    return r == DimensionRole::Heads || r == DimensionRole::KvHeads || r == DimensionRole::Group ||
           r == DimensionRole::HeadDim || r == DimensionRole::DFf || r == DimensionRole::Experts;
}

// The module a structural block's per-layer name lives in, as the zoo names them.
std::string_view subModule(DimensionRole r) {
    if (r == DimensionRole::DFf)
        return "mlp";
    if (r == DimensionRole::Experts)
        return "moe";
    return "attn";
}

bool layered(std::vector<std::string> components) {
    components.emplace_back();  // every component of a module path is followed by another
    for (std::size_t i = 0; i + 1 < components.size(); ++i)
        if (isLayerIndex(components, i))
            return true;
    return false;
}

std::vector<std::string> splitTokens(const std::string& text) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i <= text.size()) {
        std::size_t j = text.find('_', i);
        if (j == std::string::npos)
            j = text.size();
        out.push_back(text.substr(i, j - i));
        i = j + 1;
    }
    return out;
}

// The components all paths share; where they part, the '_'-separated words all of them still share
// ("self_attn_q_proj", "self_attn_o_proj" -> "self_attn", for torch.compile's mangled names).
std::vector<std::string> commonPrefix(const std::vector<const std::vector<std::string>*>& paths) {
    if (paths.empty())
        return {};
    std::vector<std::string> prefix = *paths.front();
    for (const auto* p : paths) {
        std::size_t k = 0;
        while (k < prefix.size() && k < p->size() && prefix[k] == (*p)[k])
            ++k;
        prefix.resize(k);
    }
    const std::size_t k = prefix.size();
    std::vector<std::string> words;
    bool first = true;
    for (const auto* p : paths) {
        if (p->size() <= k)
            return prefix;
        const auto tokens = splitTokens((*p)[k]);
        if (first) {
            words = tokens;
            first = false;
            continue;
        }
        std::size_t w = 0;
        while (w < words.size() && w < tokens.size() && words[w] == tokens[w])
            ++w;
        words.resize(w);
    }
    if (paths.size() > 1 && !words.empty() && words.size() < splitTokens((*paths.front())[k]).size()) {
        std::string joined;
        for (const auto& w : words)
            joined += (joined.empty() ? "" : "_") + w;
        if (!joined.empty())
            prefix.push_back(joined);
    }
    return prefix;
}

class RoleFinder {
public:
    RoleFinder(const Graph& g, const DecisionSpace& s, const LayerBlocks& blocks)
        : g_(g), s_(s), blocks_(blocks) {
        const std::size_t n = g.body.size();
        forwardEnd_ = g.backwardStart > 0 && g.backwardStart <= n ? g.backwardStart : n;
        bodyIndex_.assign(g.ops.size(), -1);
        for (std::size_t i = 0; i < n; ++i)
            bodyIndex_[g.body[i].index] = static_cast<std::int32_t>(i);
        argumentOf_.assign(g.values.size(), -1);
        for (std::size_t a = 0; a < g.arguments.size(); ++a)
            argumentOf_[g.arguments[a].value.index] = static_cast<std::int32_t>(a);
        labels_.resize(s.names.size());
    }

    std::vector<InferredLabel> run() {
        embeddings();
        images();
        fallbackBatch();
        attention();
        experts();
        mlp();
        modules();
        return std::move(labels_);
    }

private:
    // The graph's forward pass.
    const Op* producer(ValueId v) const {
        const OpId id = g_.value(v).producer;
        if (!id.valid())
            return nullptr;
        const std::int32_t i = bodyIndex_[id.index];
        return i >= 0 && static_cast<std::size_t>(i) < forwardEnd_ ? &g_.op(id) : nullptr;
    }
    const Argument* argument(ValueId v) const {
        const std::int32_t a = argumentOf_[v.index];
        return a < 0 ? nullptr : &g_.arguments[static_cast<std::size_t>(a)];
    }
    template <typename F>
    void forwardOps(F&& visit) const {
        for (std::size_t i = 0; i < forwardEnd_; ++i)
            visit(g_.op(g_.body[i]));
    }

    static bool layout(OpKind k) {
        return k == OpKind::Transpose || k == OpKind::Reshape || k == OpKind::Convert || k == OpKind::Slice;
    }

    bool isWeight(ValueId v) const {
        for (int depth = 0; depth < 8; ++depth) {
            if (const Argument* a = argument(v))
                return a->role == ArgumentRole::Parameter;
            const Op* op = producer(v);
            if (!op)
                return false;
            if (op->kind == OpKind::Constant) {
                const auto* c = std::get_if<ConstantAttributes>(&op->attributes);
                const TensorType& t = g_.type(v);
                return c && c->values.size() != 1 && t.rank() >= 1 && isFloat(t.element) && t.elements() > 1;
            }
            if (!layout(op->kind) || op->operands.empty())
                return false;
            v = op->operands[0];
        }
        return false;
    }

    // Whether a dot's weight carries the name (a projection's weight carries its heads; a constant mask added
    // to the scores of windowed attention carries the windows, and is no dot's weight).
    bool onWeight(NameId n) {
        if (onWeight_.empty()) {
            onWeight_.assign(s_.names.size(), 0);
            forwardOps([&](const Op& op) {
                const int w = weightSide(op);
                if (w < 0)
                    return;
                for (const auto& dim : s_.dimensionAtoms[op.operands[static_cast<std::size_t>(w)].index])
                    for (AtomId a : dim)
                        if (s_.atom(a).name.valid())
                            onWeight_[s_.atom(a).name.index] = 1;
            });
        }
        return onWeight_[n.index] != 0;
    }

    // The argument `v` is a relayout of (through reshapes, converts, transposes, slices), if any.
    const Argument* sourceArgument(ValueId v) const {
        for (int depth = 0; depth < 8; ++depth) {
            if (const Argument* a = argument(v))
                return a;
            const Op* op = producer(v);
            if (!op || op->operands.empty() || !(layout(op->kind) || op->kind == OpKind::Pad))
                return nullptr;
            v = op->operands[0];
        }
        return nullptr;
    }

    // The nearest op (by distance back through operands, at most kSearchDepth) that `match` accepts, looking
    // back only through ops `through` accepts.
    template <typename Match, typename Through>
    const Op* findBack(ValueId from, Match&& match, Through&& through) const {
        std::deque<std::pair<ValueId, int>> work{{from, 0}};
        std::unordered_set<std::uint32_t> seen{from.index};
        while (!work.empty() && seen.size() <= kSearchValues) {
            const auto [v, depth] = work.front();
            work.pop_front();
            const Op* op = producer(v);
            if (!op)
                continue;
            if (match(*op))
                return op;
            if (depth >= kSearchDepth || !through(*op))
                continue;
            for (ValueId o : op->operands)
                if (seen.insert(o.index).second)
                    work.emplace_back(o, depth + 1);
        }
        return nullptr;
    }

    static bool softmaxPath(const Op& op) {
        return isElementwise(op.kind) || op.kind == OpKind::Reshape || op.kind == OpKind::Transpose ||
               op.kind == OpKind::BroadcastInDim || op.kind == OpKind::Reduce || op.kind == OpKind::Slice;
    }

    std::vector<NameId> names(ValueId v, std::int64_t dim) const {
        if (dim < 0 || static_cast<std::size_t>(dim) >= s_.dimensionAtoms[v.index].size())
            return {};
        return s_.namesOf(v, static_cast<int>(dim));
    }
    std::vector<NameId> names(ValueId v, const Dims& dims) const {
        std::vector<NameId> out;
        for (auto d : dims)
            for (NameId n : names(v, d))
                out.push_back(n);
        return out;
    }
    static Dims freeDims(int rank, const Dims& batching, const Dims& contracting) {
        Dims out;
        for (std::int64_t d = 0; d < rank; ++d)
            if (std::find(batching.begin(), batching.end(), d) == batching.end() &&
                std::find(contracting.begin(), contracting.end(), d) == contracting.end())
                out.push_back(d);
        return out;
    }
    DimensionRole role(NameId n) const { return labels_[n.index].role; }
    void assign(NameId n, DimensionRole r) {
        if (n.valid() && labels_[n.index].role == DimensionRole::None)
            labels_[n.index].role = r;
    }
    void assign(const std::vector<NameId>& list, DimensionRole r) {
        for (NameId n : list)
            assign(n, r);
    }

    // A dot with exactly one weight operand: which one (0 or 1), else -1.
    int weightSide(const Op& dot) const {
        if (!isDot(dot))
            return -1;
        const bool lhs = isWeight(dot.operands[0]), rhs = isWeight(dot.operands[1]);
        return lhs == rhs ? -1 : (lhs ? 0 : 1);
    }
    // A dot_general with its two operands and dimension numbers (as the verifier has it).
    static bool isDot(const Op& op) {
        return op.kind == OpKind::DotGeneral && op.operands.size() == 2 &&
               std::holds_alternative<DotDimensions>(op.attributes);
    }
    // The names of the output dimensions a dot's weight operand (side w) gives: neither batching nor
    // contracted.
    std::vector<NameId> weightOutputNames(const Op& dot, int w) const {
        const auto& d = std::get<DotDimensions>(dot.attributes);
        const ValueId weight = dot.operands[static_cast<std::size_t>(w)];
        return names(weight, freeDims(g_.type(weight).rank(), batching(d, w), contracting(d, w)));
    }
    static const Dims& batching(const DotDimensions& d, int side) {
        return side == 0 ? d.lhsBatching : d.rhsBatching;
    }
    static const Dims& contracting(const DotDimensions& d, int side) {
        return side == 0 ? d.lhsContracting : d.rhsContracting;
    }

    // Embedding tables: rows of the largest are the vocabulary, their width the model's; the token ids that
    // index it give the batch and the sequence.
    void embeddings() {
        const Op* vocab = nullptr;
        std::int64_t rows = 0;
        forwardOps([&](const Op& op) {
            if (op.kind != OpKind::Gather || op.operands.size() < 2 || !isWeight(op.operands[0]))
                return;
            const auto* a = std::get_if<GatherAttributes>(&op.attributes);
            const TensorType& table = g_.type(op.operands[0]);
            if (!a || table.rank() != 2 || a->collapsedSliceDims.size() != 1 ||
                a->startIndexMap != a->collapsedSliceDims)
                return;
            const std::int64_t k = a->collapsedSliceDims.front();
            if (k < 0 || k > 1)
                return;
            assign(names(op.operands[0], 1 - k), DimensionRole::DModel);
            if (table.shape[static_cast<std::size_t>(k)] > rows)
                rows = table.shape[static_cast<std::size_t>(k)], vocab = &op;
        });
        if (!vocab)
            return;
        const auto k = std::get<GatherAttributes>(vocab->attributes).collapsedSliceDims.front();
        assign(names(vocab->operands[0], k), DimensionRole::Vocab);
        // An untied output projection's logits.
        forwardOps([&](const Op& op) {
            if (const int w = weightSide(op); w >= 0)
                for (NameId n : weightOutputNames(op, w))
                    if (s_.name(n).size == rows)
                        assign(n, DimensionRole::Vocab);
        });
        const Argument* tokens = sourceArgument(vocab->operands[1]);
        if (!tokens || tokens->role != ArgumentRole::Input)
            return;
        inputFound_ = true;
        const int rank = g_.type(tokens->value).rank();
        if (rank >= 2)
            assign(names(tokens->value, 0), DimensionRole::Batch);
        if (rank >= 1)
            assign(names(tokens->value, rank >= 2 ? 1 : 0), DimensionRole::Seq);
    }

    // The first convolution of an input: its batch, channels, height and width.
    void images() {
        forwardOps([&](const Op& op) {
            if (inputFound_ || op.kind != OpKind::Convolution || op.operands.empty())
                return;
            const Argument* a = sourceArgument(op.operands[0]);
            const auto* c = std::get_if<ConvolutionAttributes>(&op.attributes);
            if (!a || a->role != ArgumentRole::Input || !c)
                return;
            inputFound_ = true;
            const ValueId x = op.operands[0];
            assign(names(x, c->inputBatch), DimensionRole::Batch);
            // Strided convolutions split an image's sides into pieces: only a whole side is labelled.
            auto whole = [&](std::int64_t dim, DimensionRole r) {
                if (const auto list = names(x, dim); list.size() == 1)
                    assign(list, r);
            };
            whole(c->inputFeature, DimensionRole::Channels);
            if (c->inputSpatial.size() == 2) {
                whole(c->inputSpatial[0], DimensionRole::Height);
                whole(c->inputSpatial[1], DimensionRole::Width);
            }
        });
    }

    // Without token ids or images: the leading dimension of the largest input, as PlanContext::batchGroup has
    // it.
    void fallbackBatch() {
        if (inputFound_)
            return;
        const Argument* largest = nullptr;
        for (const auto& a : g_.arguments)
            if (a.role == ArgumentRole::Input && g_.type(a.value).rank() > 0 &&
                (!largest || g_.type(a.value).bytes() > g_.type(largest->value).bytes()))
                largest = &a;
        if (largest)
            assign(names(largest->value, 0), DimensionRole::Batch);
    }

    void attention() {
        forwardOps([&](const Op& context) {
            if (!isDot(context) || isWeight(context.operands[0]) || isWeight(context.operands[1]))
                return;
            for (int p = 0; p < 2; ++p) {
                const Op* exp = findBack(
                    context.operands[static_cast<std::size_t>(p)],
                    [](const Op& op) { return op.kind == OpKind::Exponential; }, softmaxPath);
                if (!exp || exp->operands.empty())
                    continue;
                const Op* scores = findBack(
                    exp->operands[0],
                    [&](const Op& op) {
                        return isDot(op) && !isWeight(op.operands[0]) && !isWeight(op.operands[1]);
                    },
                    softmaxPath);
                if (!scores || scores == &context)
                    continue;
                attend(*scores, context, p);
                return;
            }
        });
    }

    void attend(const Op& scores, const Op& context, int probabilities) {
        const auto& d1 = std::get<DotDimensions>(scores.attributes);
        const auto& d2 = std::get<DotDimensions>(context.attributes);
        const ValueId q = scores.operands[0], k = scores.operands[1];
        assign(names(q, d1.lhsContracting), DimensionRole::HeadDim);
        assign(names(k, d1.rhsContracting), DimensionRole::HeadDim);
        const auto qFree = names(q, freeDims(g_.type(q).rank(), d1.lhsBatching, d1.lhsContracting));
        const auto kFree = names(k, freeDims(g_.type(k).rank(), d1.rhsBatching, d1.rhsContracting));
        auto in = [](const std::vector<NameId>& list, NameId n) {
            return std::find(list.begin(), list.end(), n) != list.end();
        };
        bool shared = false;
        for (NameId n : qFree)
            shared = shared || in(kFree, n);
        bool grouped = false;
        for (const auto* side : {&qFree, &kFree})
            for (NameId n : *side) {
                const bool both = in(qFree, n) && in(kFree, n);
                // Self-attention: the positions both sides have are the sequence; a query dimension the keys
                // lack is the group of grouped-query attention. Cross-attention: each side's positions.
                if (shared && !both && role(n) == DimensionRole::None && onWeight(n)) {
                    assign(n, DimensionRole::Group);
                    grouped = true;
                } else {
                    assign(n, DimensionRole::Seq);
                }
            }
        // Heads are what the projections' weights split into; other batched dimensions (windows of a Swin
        // model, pieces of the batch) are not.
        for (auto d : d1.lhsBatching) {
            std::vector<NameId> heads;
            for (NameId n : names(q, d))
                if (role(n) != DimensionRole::Batch && onWeight(n))
                    heads.push_back(n);
            if (heads.size() == 2) {  // keys repeated to the query heads: [kv_heads, group]
                assign(heads[0], DimensionRole::KvHeads);
                assign(heads[1], DimensionRole::Group);
            } else {
                assign(heads, grouped ? DimensionRole::KvHeads : DimensionRole::Heads);
            }
        }
        const int v = 1 - probabilities;
        const ValueId values = context.operands[static_cast<std::size_t>(v)];
        assign(names(values, freeDims(g_.type(values).rank(), batching(d2, v), contracting(d2, v))),
               DimensionRole::HeadDim);
    }

    // Stacked expert weights [E, ...] batched by their dot (or gathered by expert id), and the router's
    // output.
    void experts() {
        std::set<std::int64_t> sizes;
        auto mark = [&](const std::vector<NameId>& list) {
            for (NameId n : list) {
                assign(n, DimensionRole::Experts);
                if (role(n) == DimensionRole::Experts)
                    sizes.insert(s_.name(n).size);
            }
        };
        forwardOps([&](const Op& op) {
            if (const int w = weightSide(op); w >= 0)
                mark(names(op.operands[static_cast<std::size_t>(w)],
                           batching(std::get<DotDimensions>(op.attributes), w)));
            if (op.kind == OpKind::Gather && op.operands.size() >= 2 && g_.type(op.operands[0]).rank() >= 3 &&
                isWeight(op.operands[0]))
                if (const auto* a = std::get_if<GatherAttributes>(&op.attributes))
                    mark(names(op.operands[0], a->collapsedSliceDims));
        });
        if (sizes.empty())
            return;
        forwardOps([&](const Op& op) {
            if (const int w = weightSide(op); w >= 0)
                for (NameId n : weightOutputNames(op, w))
                    if (sizes.count(s_.name(n).size))
                        assign(n, DimensionRole::Experts);
        });
    }

    // MLP hidden widths: made by a weight's dot, contracted by another's, never reduced over (norms reduce
    // over the model's width and over low-rank projections' widths).
    void mlp() {
        std::unordered_set<std::uint32_t> reduced, made, contracted;
        forwardOps([&](const Op& op) {
            if (op.kind == OpKind::Reduce && !op.operands.empty())
                if (const auto* a = std::get_if<ReduceAttributes>(&op.attributes))
                    for (NameId n : names(op.operands[0], a->dimensions))
                        reduced.insert(n.index);
            const int w = weightSide(op);
            if (w < 0)
                return;
            const auto& d = std::get<DotDimensions>(op.attributes);
            for (NameId n : weightOutputNames(op, w))
                made.insert(n.index);
            for (NameId n : names(op.operands[static_cast<std::size_t>(1 - w)], contracting(d, 1 - w)))
                contracted.insert(n.index);
        });
        for (std::uint32_t n = 0; n < labels_.size(); ++n)
            if (made.count(n) && contracted.count(n) && !reduced.count(n))
                assign(NameId{n}, DimensionRole::DFf);
        // The up-projections' input is the model's width.
        forwardOps([&](const Op& op) {
            const int w = weightSide(op);
            if (w < 0)
                return;
            const auto& d = std::get<DotDimensions>(op.attributes);
            bool up = false;
            for (NameId n : weightOutputNames(op, w))
                up = up || role(n) == DimensionRole::DFf;
            if (up)
                assign(names(op.operands[static_cast<std::size_t>(1 - w)], contracting(d, 1 - w)),
                       DimensionRole::DModel);
        });
    }

    const std::vector<std::string>& moduleOf(const std::string& sourceName) {
        auto [it, added] = modules_.try_emplace(sourceName);
        if (added) {
            it->second = pathComponents(modulePath(sourceName));
            if (!it->second.empty())
                it->second.pop_back();  // the parameter's or op's own name
        }
        return it->second;
    }

    // A per-layer name's layer: the module its parameters share (when there are several), else the module its
    // parameters and forward ops share, when that is one layer; else the one structural block its ops are in.
    void modules() {
        for (std::size_t n = 0; n < labels_.size(); ++n) {
            InferredLabel& label = labels_[n];
            if (!perLayer(label.role))
                continue;
            std::set<std::string> seenParameters, seenOps;
            std::vector<const std::vector<std::string>*> parameters, all;
            std::set<std::int32_t> blocks;
            std::unordered_set<std::uint32_t> values;
            for (AtomId a : s_.names[n].atoms) {
                const ValueId v = s_.atom(a).value;
                if (!values.insert(v.index).second)
                    continue;
                if (const Argument* arg = argument(v)) {
                    if (arg->role != ArgumentRole::Parameter || !seenParameters.insert(arg->name).second)
                        continue;
                    const auto& m = moduleOf(arg->name);
                    if (m.empty())
                        continue;
                    parameters.push_back(&m);
                    all.push_back(&m);
                } else if (const Op* op = producer(v)) {
                    blocks.insert(
                        blocks_.blockOfOp[static_cast<std::size_t>(bodyIndex_[g_.value(v).producer.index])]);
                    if (!seenOps.insert(op->location.name).second)
                        continue;
                    const auto& m = moduleOf(op->location.name);
                    if (!m.empty())
                        all.push_back(&m);
                }
            }
            std::vector<std::string> prefix;
            if (parameters.size() >= 2)
                prefix = commonPrefix(parameters);
            if (!layered(prefix)) {
                prefix = commonPrefix(all);
                // One projection's weight alone ("layers.3.attn.o_proj"): the module it is part of.
                if (all.size() == parameters.size() && parameters.size() == 1 && prefix.size() > 1)
                    prefix.pop_back();
            }
            if (layered(prefix)) {
                for (const auto& p : prefix)
                    label.module += (label.module.empty() ? "" : ".") + p;
                continue;
            }
            blocks.erase(-1);
            if (blocks.size() == 1)
                label.module = blocks_.blocks[static_cast<std::size_t>(*blocks.begin())] + "." +
                               std::string(subModule(label.role));
        }
    }

    const Graph& g_;
    const DecisionSpace& s_;
    const LayerBlocks& blocks_;
    std::size_t forwardEnd_ = 0;
    std::vector<std::int32_t> bodyIndex_;   // op -> index into body; -1 inside regions
    std::vector<std::int32_t> argumentOf_;  // value -> argument index; -1 when not an argument
    std::vector<InferredLabel> labels_;
    std::unordered_map<std::string, std::vector<std::string>> modules_;
    std::vector<char> onWeight_;  // per name, computed on first use
    bool inputFound_ = false;     // the token or image input is known
};

}  // namespace

std::string_view toString(DimensionRole role) {
    return kRoleNames[static_cast<std::size_t>(role)];
}

std::string InferredLabel::text() const {
    if (role == DimensionRole::None)
        return {};
    return module.empty() ? std::string(toString(role)) : module + "." + std::string(toString(role));
}

std::vector<InferredLabel> inferDimensionRoles(const Graph& graph, const DecisionSpace& space,
                                               const LayerBlocks& blocks) {
    return RoleFinder(graph, space, blocks).run();
}

}  // namespace shardscope::analysis
