// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Module paths from the sources' names, and the blocks of layers they (or, without them, the ops' repetition)
// define (layer_blocks.h).
#include "shardscope/analysis/layer_blocks.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <unordered_map>

namespace shardscope::analysis {

using namespace ir;

namespace {

bool decimal(std::string_view s) {
    return !s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
    });
}

// "encoder_layer_3", "Block_3", "layers_3": a name of a repeated block, '_', a decimal. Not "Dense_0" (Flax's
// second dense layer is no layer of the model) nor "res2_0_branch2a_w_0" (a Caffe2 weight).
bool indexSuffix(std::string_view s) {
    const auto underscore = s.rfind('_');
    if (underscore == std::string_view::npos || underscore == 0 || !decimal(s.substr(underscore + 1)))
        return false;
    std::string stem(s.substr(0, underscore));
    for (char& c : stem)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (stem == "h")
        return true;
    for (std::string_view word : {"layer", "block", "blk", "stage"})
        if (stem.size() >= word.size() && stem.compare(stem.size() - word.size(), word.size(), word) == 0)
            return true;
    return stem.size() >= 7 && (stem.compare(stem.size() - 6, 6, "layers") == 0 ||
                                stem.compare(stem.size() - 6, 6, "blocks") == 0);
}

std::vector<std::string> split(std::string_view text, char separator) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i <= text.size()) {
        std::size_t j = text.find(separator, i);
        if (j == std::string_view::npos)
            j = text.size();
        if (j > i)
            out.emplace_back(text.substr(i, j - i));
        i = j + 1;
    }
    return out;
}

std::string join(const std::vector<std::string>& parts, std::size_t from, std::size_t to) {
    std::string out;
    for (std::size_t i = from; i < to && i < parts.size(); ++i)
        out += (out.empty() ? "" : ".") + parts[i];
    return out;
}

// An XLA HLO instruction name ("reduce.376", "dot.12", "p3.19", "Arg_0.1"), or one derived from it
// ("reduce.376.grad"): a name the compiler made up.
bool hloInstructionName(const std::vector<std::string>& c) {
    if (c.size() < 2 || !decimal(c[1]))
        return false;
    const std::string& w = c[0];
    static const std::array<std::string_view, 14> kHlo{
        "dot",   "broadcast", "copy",        "bitcast", "tuple", "fusion",      "get-tuple-element",
        "param", "parameter", "custom-call", "call",    "arg",   "convolution", "constant"};
    if (std::find(kHlo.begin(), kHlo.end(), w) != kHlo.end())
        return true;
    if (w.size() > 1 && (w[0] == 'p' || w[0] == 'P') && decimal(std::string_view(w).substr(1)))
        return true;
    if (w.rfind("Arg_", 0) == 0 && decimal(std::string_view(w).substr(4)))
        return true;
    std::string mnemonic = w;
    std::replace(mnemonic.begin(), mnemonic.end(), '-', '_');
    return parseOpKind(mnemonic).has_value();
}

// torch.compile: "l__self___model_layers__modules__3___mlp_up_proj_weight" ->
// "model_layers.3.mlp_up_proj.weight".
std::string fromDynamoName(std::string_view rest) {
    std::string text;
    for (std::size_t i = 0; i < rest.size();) {
        if (rest.substr(i, 11) == "__modules__") {
            std::size_t j = i + 11;
            while (j < rest.size() && std::isdigit(static_cast<unsigned char>(rest[j])))
                ++j;
            if (j > i + 11 && rest.substr(j, 2) == "__") {
                text += "." + std::string(rest.substr(i + 11, j - i - 11)) + ".";
                i = j + 2;
                continue;
            }
        }
        text += rest[i++];
    }
    std::vector<std::string> parts = split(text, '.');
    for (auto& p : parts)
        p.erase(0, p.find_first_not_of('_'));
    parts.erase(std::remove(parts.begin(), parts.end(), std::string()), parts.end());
    if (!parts.empty())
        for (std::string_view leaf : {"_weight", "_bias"}) {
            std::string& last = parts.back();
            if (last.size() > leaf.size() &&
                last.compare(last.size() - leaf.size(), leaf.size(), leaf) == 0) {
                last.resize(last.size() - leaf.size());
                parts.emplace_back(leaf.substr(1));
                break;
            }
        }
    return join(parts, 0, parts.size());
}

}  // namespace

std::vector<std::string> pathComponents(std::string_view path) {
    return split(path, '.');
}

std::string modulePath(std::string_view name) {
    while (!name.empty() && std::isspace(static_cast<unsigned char>(name.front())))
        name.remove_prefix(1);
    while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back())))
        name.remove_suffix(1);
    if (name.empty() || name.front() == '%' || name.rfind("onnx::", 0) == 0)
        return {};
    for (std::string_view prefix : {"l__self___", "L__self___"})
        if (name.rfind(prefix, 0) == 0)
            return fromDynamoName(name.substr(prefix.size()));
    std::vector<std::string> parts;
    for (const std::string& scope : split(name, '/')) {
        if (scope.find('(') != std::string::npos || scope.find(')') != std::string::npos)
            continue;  // jit(f), vmap(g)
        const std::vector<std::string> pieces = split(scope, '.');
        // torch names a numbered child by its parent's path: "/layer1/layer1.0" is "layer1.0".
        std::size_t overlap = 0;
        for (std::size_t k = std::min(parts.size(), pieces.size() - (pieces.empty() ? 0 : 1)); k > 0; --k)
            if (std::equal(parts.end() - static_cast<std::ptrdiff_t>(k), parts.end(), pieces.begin())) {
                overlap = k;
                break;
            }
        parts.insert(parts.end(), pieces.begin() + static_cast<std::ptrdiff_t>(overlap), pieces.end());
    }
    if (hloInstructionName(parts))
        return {};
    return join(parts, 0, parts.size());
}

bool isLayerIndex(const std::vector<std::string>& components, std::size_t index) {
    if (index >= components.size())
        return false;
    return decimal(components[index]) || (index + 1 < components.size() && indexSuffix(components[index]));
}

std::string withoutLayerIndices(std::string_view path) {
    std::vector<std::string> parts = split(path, '.');
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (decimal(parts[i]))
            parts[i] = "*";
        else if (isLayerIndex(parts, i))
            parts[i] = parts[i].substr(0, parts[i].rfind('_') + 1) + "*";
    }
    return join(parts, 0, parts.size());
}

namespace {

// Blocks from the ops' names; none when no name numbers a layer.
LayerBlocks namedBlocks(const Graph& graph) {
    LayerBlocks out;
    out.blockOfOp.assign(graph.body.size(), -1);
    std::unordered_map<std::string, std::int32_t> blockIds;
    std::unordered_map<std::string, std::uint32_t> familyIds;
    // name -> (block, family), "" when the name is in no block
    std::unordered_map<std::string, std::pair<std::string, std::string>> byName;
    for (std::size_t i = 0; i < graph.body.size(); ++i) {
        const std::string& name = graph.op(graph.body[i]).location.name;
        if (name.empty())
            continue;
        auto cached = byName.find(name);
        if (cached == byName.end()) {
            std::pair<std::string, std::string> found;
            const auto parts = pathComponents(modulePath(name));
            for (std::size_t k = 1; k < parts.size(); ++k)
                if (isLayerIndex(parts, k)) {
                    // Numbered blocks of a numbered stage ("features.1.0" of a Swin or ConvNeXt model): the
                    // blocks.
                    while (decimal(parts[k]) && k + 2 < parts.size() && decimal(parts[k + 1]))
                        ++k;
                    found.first = join(parts, 0, k + 1);
                    const std::string index =
                        decimal(parts[k]) ? "*" : parts[k].substr(0, parts[k].rfind('_') + 1) + "*";
                    found.second = join(parts, 0, k) + "." + index;
                    break;
                }
            cached = byName.emplace(name, std::move(found)).first;
        }
        const auto& [block, family] = cached->second;
        if (block.empty())
            continue;
        auto [it, added] = blockIds.try_emplace(block, static_cast<std::int32_t>(out.blocks.size()));
        if (added) {
            auto [f, newFamily] =
                familyIds.try_emplace(family, static_cast<std::uint32_t>(out.families.size()));
            if (newFamily)
                out.families.push_back(family);
            out.blocks.push_back(block);
            out.familyOfBlock.push_back(f->second);
        }
        out.blockOfOp[i] = it->second;
    }
    return out;
}

std::size_t mix(std::size_t seed, std::size_t value) {
    return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

std::size_t typeHash(const TensorType& t) {
    std::size_t h = static_cast<std::size_t>(t.element);
    for (auto d : t.shape)
        h = mix(h, static_cast<std::size_t>(d));
    return mix(h, t.shape.size());
}

// Blocks from the ops' repetition (layer_blocks.h).
class StructuralBlocks {
public:
    explicit StructuralBlocks(const Graph& g) : g_(g), n_(g.body.size()) {
        forwardEnd_ = g.backwardStart > 0 && g.backwardStart <= n_ ? g.backwardStart : n_;
        producer_.assign(g.values.size(), -1);
        for (std::size_t i = 0; i < n_; ++i)
            for (ValueId r : g.op(g.body[i]).results)
                producer_[r.index] = static_cast<std::int32_t>(i);
    }

    LayerBlocks run() {
        LayerBlocks out;
        out.blockOfOp.assign(n_, -1);
        std::vector<std::size_t> anchors, tokens;
        for (std::size_t i = 0; i < forwardEnd_; ++i) {
            const Op& op = g_.op(g_.body[i]);
            if (op.kind != OpKind::DotGeneral && op.kind != OpKind::Convolution)
                continue;
            std::size_t h = static_cast<std::size_t>(op.kind);
            for (ValueId v : op.operands)
                h = mix(h, typeHash(g_.type(v)));
            for (ValueId v : op.results)
                h = mix(h, typeHash(g_.type(v)));
            anchors.push_back(i);
            tokens.push_back(h);
        }
        // The longest run of whole periods (cover = repetitions x period); ties go to the shorter period.
        std::size_t bestCover = 0, period = 0, start = 0;
        const std::size_t a = anchors.size();
        for (std::size_t p = 2; p <= std::min<std::size_t>(a / 2, 512); ++p) {
            std::size_t run = 0;
            for (std::size_t j = 0; j + p < a; ++j) {
                if (tokens[j] != tokens[j + p]) {
                    run = 0;
                    continue;
                }
                if (++run < p)
                    continue;  // not yet two whole periods
                const std::size_t cover = (run + p) / p * p;
                if (cover > bestCover)
                    bestCover = cover, period = p, start = j + 1 - run;
            }
        }
        if (period < 2)
            return out;  // a block has at least two dots (k and v projections of one shape are no layers)
        const std::size_t k = bestCover / period;
        liveValues();
        // Between two blocks, the boundary is where the fewest values cross. The first block starts as far
        // before its first dot as the second does (what comes before it is the model's stem: embeddings, a
        // patch projection), and the last ends as far after its last dot as the one before it.
        auto firstDot = [&](std::size_t b) { return anchors[start + b * period]; };
        auto lastDot = [&](std::size_t b) { return anchors[start + b * period + period - 1]; };
        std::vector<std::size_t> cuts(k + 1);
        for (std::size_t b = 1; b < k; ++b)
            cuts[b] = cut(lastDot(b - 1) + 1, firstDot(b));
        const std::size_t lead = firstDot(1) - cuts[1], tail = cuts[k - 1] - lastDot(k - 2);
        const std::size_t before = start == 0 ? 0 : anchors[start - 1] + 1;
        cuts[0] = std::max(before, firstDot(0) >= lead ? firstDot(0) - lead : 0);
        const std::size_t after = start + k * period < a ? anchors[start + k * period] : forwardEnd_;
        cuts[k] = std::min(after, lastDot(k - 1) + tail);
        out.families.push_back("layers.*");
        for (std::size_t b = 0; b < k; ++b) {
            out.blocks.push_back("layers." + std::to_string(b));
            out.familyOfBlock.push_back(0);
            for (std::size_t i = cuts[b]; i < cuts[b + 1]; ++i)
                out.blockOfOp[i] = static_cast<std::int32_t>(b);
        }
        out.structural = true;
        assignBackward(out);
        return out;
    }

private:
    // live_[c]: values made by forward ops before c and read by a forward op at c or later (or returned).
    // Reads by the backward pass do not count: every activation it keeps would cross every boundary.
    void liveValues() {
        std::vector<std::int32_t> lastUse(g_.values.size(), -1);
        for (std::size_t i = 0; i < forwardEnd_; ++i)
            for (ValueId v : g_.op(g_.body[i]).operands)
                lastUse[v.index] = static_cast<std::int32_t>(i);
        for (const auto& o : g_.outputs)
            lastUse[o.value.index] = static_cast<std::int32_t>(forwardEnd_);
        std::vector<std::int32_t> delta(forwardEnd_ + 2, 0);
        for (std::size_t i = 0; i < forwardEnd_; ++i)
            for (ValueId r : g_.op(g_.body[i]).results)
                if (lastUse[r.index] > static_cast<std::int32_t>(i)) {
                    ++delta[i + 1];
                    --delta[static_cast<std::size_t>(lastUse[r.index]) + 1];
                }
        live_.assign(forwardEnd_ + 1, 0);
        std::int32_t running = 0;
        for (std::size_t c = 0; c <= forwardEnd_; ++c)
            live_[c] = running += delta[c];
    }

    // The block boundary in [lo, hi]: where the fewest values cross; the latest such place (a norm after the
    // residual add stays with the block before it, as in post-norm models).
    std::size_t cut(std::size_t lo, std::size_t hi) const {
        hi = std::min(hi, forwardEnd_);
        std::size_t best = hi;
        for (std::size_t c = hi + 1; c-- > lo;)
            if (live_[c] < live_[best])
                best = c;
        return best;
    }

    // Backward ops join the block of the forward values they read (the latest), else of the backward values
    // (the earliest: the sum of the cotangents that reach a block's input belongs to that block). A
    // parameter's gradient joins the block that reads the parameter (a bias's gradient reads the cotangent of
    // its block's output alone, which the next block's backward makes), and so its update does.
    void assignBackward(LayerBlocks& out) const {
        std::vector<std::int32_t> argumentBlock(g_.values.size(), -2);  // -2: not an argument used forward
        for (std::size_t i = 0; i < forwardEnd_; ++i)
            for (ValueId v : g_.op(g_.body[i]).operands) {
                if (producer_[v.index] >= 0)
                    continue;
                std::int32_t& b = argumentBlock[v.index];
                const std::int32_t here = out.blockOfOp[i];
                b = b == -2 ? here : (b == here ? b : -1);
            }
        // Per op: the block of the parameter whose gradient it makes, -1 for none.
        std::vector<std::int32_t> gradientOf(n_, -1);
        for (const auto& [gradient, argument] : g_.gradients) {
            const std::int32_t p = producer_[gradient.index];
            if (p >= 0 && static_cast<std::size_t>(p) >= forwardEnd_ && argument < g_.arguments.size())
                gradientOf[static_cast<std::size_t>(p)] =
                    std::max(std::int32_t{-1}, argumentBlock[g_.arguments[argument].value.index]);
        }
        for (std::size_t i = forwardEnd_; i < n_; ++i) {
            std::int32_t forward = -1, backward = -1;
            for (ValueId v : g_.op(g_.body[i]).operands) {
                const std::int32_t p = producer_[v.index];
                if (p < 0) {
                    forward = std::max(forward, argumentBlock[v.index]);
                } else if (static_cast<std::size_t>(p) < forwardEnd_) {
                    forward = std::max(forward, out.blockOfOp[static_cast<std::size_t>(p)]);
                } else if (const std::int32_t b = out.blockOfOp[static_cast<std::size_t>(p)]; b >= 0) {
                    backward = backward < 0 ? b : std::min(backward, b);
                }
            }
            out.blockOfOp[i] = gradientOf[i] >= 0 ? gradientOf[i] : forward >= 0 ? forward : backward;
        }
    }

    const Graph& g_;
    std::size_t n_ = 0, forwardEnd_ = 0;
    std::vector<std::int32_t> producer_;  // value -> body index of its op; -1 for arguments
    std::vector<std::int32_t> live_;
};

// A training step's blocks that hold no forward op (ops of the optimizer update named by their parameter, in
// a model whose forward ops are not named by layer) recompute nothing and are no layers: dropped.
LayerBlocks withoutUpdateOnlyBlocks(LayerBlocks blocks, std::size_t backwardStart) {
    if (backwardStart == 0 || blocks.blocks.empty())
        return blocks;
    std::vector<char> forward(blocks.blocks.size(), 0);
    for (std::size_t i = 0; i < backwardStart && i < blocks.blockOfOp.size(); ++i)
        if (blocks.blockOfOp[i] >= 0)
            forward[static_cast<std::size_t>(blocks.blockOfOp[i])] = 1;
    if (std::all_of(forward.begin(), forward.end(), [](char f) { return f != 0; }))
        return blocks;
    LayerBlocks out;
    out.blockOfOp.assign(blocks.blockOfOp.size(), -1);
    std::vector<std::int32_t> renumbered(blocks.blocks.size(), -1);
    std::vector<std::int32_t> familyRenumbered(blocks.families.size(), -1);
    for (std::size_t b = 0; b < blocks.blocks.size(); ++b) {
        if (!forward[b])
            continue;
        renumbered[b] = static_cast<std::int32_t>(out.blocks.size());
        out.blocks.push_back(blocks.blocks[b]);
        std::int32_t& f = familyRenumbered[blocks.familyOfBlock[b]];
        if (f < 0) {
            f = static_cast<std::int32_t>(out.families.size());
            out.families.push_back(blocks.families[blocks.familyOfBlock[b]]);
        }
        out.familyOfBlock.push_back(static_cast<std::uint32_t>(f));
    }
    for (std::size_t i = 0; i < blocks.blockOfOp.size(); ++i)
        if (blocks.blockOfOp[i] >= 0)
            out.blockOfOp[i] = renumbered[static_cast<std::size_t>(blocks.blockOfOp[i])];
    return out;
}

}  // namespace

LayerBlocks layerBlocks(const Graph& graph) {
    LayerBlocks named = withoutUpdateOnlyBlocks(namedBlocks(graph), graph.backwardStart);
    if (!named.blocks.empty())
        return named;
    return StructuralBlocks(graph).run();
}

}  // namespace shardscope::analysis
