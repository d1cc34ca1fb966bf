// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Names, groups and conflicts (docs/design.md, "Names and groups"-3.3).
//
// Atoms: every tensor dimension carries a set of boundaries, positions counted in elements from the minor end
// (1 and the dimension's size always; a factor of stride s and size n adds s and s·n). A factor's occurrences
// in the tensors of one op must split alike, so the boundaries inside a factor's span are copied between its
// occurrences until nothing changes (a worklist over the ops touching a changed tensor). Boundaries that do
// not divide their neighbours cannot make whole atoms and are dropped; a factor whose span then lacks an end
// is not unified at that tensor. Consecutive boundaries make the atoms.
//
// Pieces: slice, pad and concatenate carry a mismatch factor on a dimension whose size they change (see
// factor_rule.h); it ties nothing here. Instead, an aligned piece (a slice of size n at a start that is a
// multiple of n, n dividing the whole dimension; a pad or a concatenate operand placing n elements so) ties
// its dimension to the minor n-span of the whole dimension: sharding that span shards every piece alike, so
// the piece needs no data from other devices. Slice, pad and concatenate are each other's VJPs; treating
// their pieces alike keeps a training step's names those of its forward pass.
#include "shardscope/analysis/decision_space.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <unordered_map>

#include "shardscope/analysis/dimension_roles.h"
#include "shardscope/analysis/layer_blocks.h"
#include "shardscope/ir/statistics.h"

namespace shardscope::analysis {

using namespace ir;

namespace {

class UnionFind {
public:
    explicit UnionFind(std::size_t n) : parent_(n), rank_(n, 0) {
        std::iota(parent_.begin(), parent_.end(), 0u);
    }
    std::uint32_t find(std::uint32_t x) {
        while (parent_[x] != x) {
            parent_[x] = parent_[parent_[x]];
            x = parent_[x];
        }
        return x;
    }
    void unite(std::uint32_t a, std::uint32_t b) {
        a = find(a), b = find(b);
        if (a == b)
            return;
        if (rank_[a] < rank_[b])
            std::swap(a, b);
        parent_[b] = a;
        if (rank_[a] == rank_[b])
            ++rank_[a];
    }

private:
    std::vector<std::uint32_t> parent_;
    std::vector<std::uint8_t> rank_;
};

// Where a factor sits in one tensor of an op.
struct Occurrence {
    ValueId value;
    int dimension;
    std::int64_t stride;  // product of the sizes of the factors minor to it in that dimension
};

// A piece a slice, pad or concatenate cuts from (or places in) a larger dimension: dimension `dimension` of
// `piece` is elements [offset, offset + its size) of that dimension of `whole`.
struct Placement {
    ValueId piece, whole;
    int dimension = 0;
    std::int64_t offset = 0;
};

// An aligned piece of a slice, pad or concatenate: the piece's whole dimension and the minor span of the same
// size of the dimension it is cut from or placed in (both at stride 1).
struct Piece {
    std::int64_t size = 1;
    std::vector<Occurrence> occurrences;
};

bool unifies(const Factor& f) {
    return f.size > 1 && f.kind != FactorKind::NeedReplication && !f.blockedPropagation;
}

// "layers.3.mlp" -> "layers.*.mlp": the role a module plays, whatever its layer.
std::string normalized(const std::string& label) {
    return withoutLayerIndices(label);
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (true) {
        std::size_t j = text.find(separator, i);
        out.push_back(text.substr(i, j == std::string::npos ? std::string::npos : j - i));
        if (j == std::string::npos)
            break;
        i = j + 1;
    }
    return out;
}

class Analysis {
public:
    Analysis(const Graph& graph, const AnalysisOptions& options) : g_(graph), options_(options) {}

    DecisionSpace run() {
        computeRules();
        refine();
        makeAtoms();
        unify();
        makeNames();
        label();
        group();
        findConflicts();
        space_.rules = std::move(rules_);
        return std::move(space_);
    }

private:
    // Where `factor` of op `opIndex` sits. `tying`: leave out the mismatch factors of slice, pad and
    // concatenate (their pieces tie through pieces_ instead).
    std::vector<Occurrence> occurrences(std::size_t opIndex, int factor, bool tying = false) const {
        std::vector<Occurrence> out;
        const Op& op = g_.op(g_.body[opIndex]);
        const FactorRule& rule = rules_[opIndex];
        const bool pieceOp =
            op.kind == OpKind::Slice || op.kind == OpKind::Pad || op.kind == OpKind::Concatenate;
        auto scan = [&](const std::vector<TensorFactors>& tensors, const std::vector<ValueId>& values) {
            for (std::size_t t = 0; t < tensors.size() && t < values.size(); ++t)
                for (std::size_t d = 0; d < tensors[t].size(); ++d) {
                    const auto& list = tensors[t][d];
                    auto it = std::find(list.begin(), list.end(), factor);
                    if (it == list.end())
                        continue;
                    if (tying && pieceOp && list.size() == 1 &&
                        rule.factors[static_cast<std::size_t>(factor)].size != g_.type(values[t]).shape[d])
                        continue;
                    std::int64_t stride = 1;
                    for (auto m = it + 1; m != list.end(); ++m)
                        stride *= rule.factors[static_cast<std::size_t>(*m)].size;
                    out.push_back({values[t], static_cast<int>(d), stride});
                }
        };
        scan(rule.operands, op.operands);
        scan(rule.results, op.results);
        return out;
    }

    // A dimension of size `piece` placed at `offset` in a dimension of size `whole`, elements consecutive: an
    // aligned piece when it is a whole one of the whole dimension's whole/piece equal parts.
    static bool aligned(std::int64_t piece, std::int64_t offset, std::int64_t whole) {
        return piece > 1 && piece < whole && whole % piece == 0 && offset >= 0 && offset % piece == 0;
    }

    // The pieces a slice, pad or concatenate cuts from or places in a larger dimension, elements consecutive.
    std::vector<Placement> placementsOf(const Op& op) const {
        std::vector<Placement> out;
        auto size = [&](ValueId v, std::size_t d) { return g_.type(v).shape[d]; };
        auto rank = [&](ValueId v) { return g_.type(v).shape.size(); };
        if (op.operands.empty() || op.results.empty())
            return out;
        const ValueId in = op.operands[0], res = op.results[0];
        auto add = [&](ValueId piece, ValueId whole, std::size_t d, std::int64_t offset) {
            if (size(piece, d) > 1 && size(piece, d) < size(whole, d) && offset >= 0 &&
                offset + size(piece, d) <= size(whole, d))
                out.push_back({piece, whole, static_cast<int>(d), offset});
        };
        if (op.kind == OpKind::Slice) {
            const auto* a = std::get_if<SliceAttributes>(&op.attributes);
            if (!a || rank(in) != rank(res))
                return out;
            for (std::size_t d = 0; d < rank(in) && d < a->start.size(); ++d)
                if (d >= a->strides.size() || a->strides[d] == 1)
                    add(res, in, d, a->start[d]);
        } else if (op.kind == OpKind::Pad) {
            const auto* a = std::get_if<PadAttributes>(&op.attributes);
            if (!a || rank(in) != rank(res))
                return out;
            for (std::size_t d = 0; d < rank(in) && d < a->low.size(); ++d)
                if (d >= a->interior.size() || a->interior[d] == 0)
                    add(in, res, d, a->low[d]);
        } else if (op.kind == OpKind::Concatenate) {
            const auto* a = std::get_if<DimensionAttribute>(&op.attributes);
            if (!a || a->dimension < 0 || static_cast<std::size_t>(a->dimension) >= rank(res))
                return out;
            const auto d = static_cast<std::size_t>(a->dimension);
            std::int64_t offset = 0;
            for (ValueId v : op.operands) {
                if (rank(v) != rank(res))
                    return {};
                add(v, res, d, offset);
                offset += size(v, d);
            }
        }
        return out;
    }

    // The aligned pieces of a slice, pad or concatenate (see the top of this file).
    std::vector<Piece> piecesOf(const std::vector<Placement>& placements) const {
        std::vector<Piece> out;
        for (const Placement& p : placements) {
            const auto d = static_cast<std::size_t>(p.dimension);
            const std::int64_t n = g_.type(p.piece).shape[d];
            if (aligned(n, p.offset, g_.type(p.whole).shape[d]))
                out.push_back({n, {{p.piece, p.dimension, 1}, {p.whole, p.dimension, 1}}});
        }
        return out;
    }

    void computeRules() {
        rules_.reserve(g_.body.size());
        touching_.assign(g_.values.size(), {});
        for (std::size_t i = 0; i < g_.body.size(); ++i) {
            const Op& op = g_.op(g_.body[i]);
            rules_.push_back(factorRule(g_, op));
            placements_.push_back(placementsOf(op));
            pieces_.push_back(piecesOf(placements_.back()));
            for (auto v : op.operands)
                touching_[v.index].push_back(static_cast<std::uint32_t>(i));
            for (auto v : op.results)
                touching_[v.index].push_back(static_cast<std::uint32_t>(i));
        }
        bodyIndex_.assign(g_.ops.size(), -1);
        for (std::size_t i = 0; i < g_.body.size(); ++i)
            bodyIndex_[g_.body[i].index] = static_cast<std::int32_t>(i);
        argumentOf_.assign(g_.values.size(), -1);
        for (std::size_t a = 0; a < g_.arguments.size(); ++a)
            argumentOf_[g_.arguments[a].value.index] = static_cast<std::int32_t>(a);
        bounds_.resize(g_.values.size());
        for (std::size_t v = 0; v < g_.values.size(); ++v) {
            const auto& shape = g_.values[v].type.shape;
            bounds_[v].resize(shape.size());
            for (std::size_t d = 0; d < shape.size(); ++d) {
                bounds_[v][d] = {1};
                if (shape[d] > 1)
                    bounds_[v][d].push_back(shape[d]);
            }
        }
    }

    // Adds a boundary; returns whether it was new.
    bool addBound(ValueId v, int d, std::int64_t position) {
        const std::int64_t size = g_.type(v).shape[static_cast<std::size_t>(d)];
        if (position <= 1 || position >= size || size % position != 0)
            return false;
        auto& b = bounds_[v.index][static_cast<std::size_t>(d)];
        auto it = std::lower_bound(b.begin(), b.end(), position);
        if (it != b.end() && *it == position)
            return false;
        b.insert(it, position);
        return true;
    }

    void refine() {
        std::deque<std::uint32_t> work;
        std::vector<bool> queued(g_.body.size(), true);
        for (std::uint32_t i = 0; i < g_.body.size(); ++i)
            work.push_back(i);
        while (!work.empty()) {
            const std::uint32_t i = work.front();
            work.pop_front();
            queued[i] = false;
            std::set<std::uint32_t> changed;
            const FactorRule& rule = rules_[i];
            auto spread = [&](const std::vector<Occurrence>& occ, std::int64_t size) {
                std::set<std::int64_t>
                    relative;  // boundaries inside the span, in units of the factor's stride
                for (const auto& o : occ) {
                    if (addBound(o.value, o.dimension, o.stride))
                        changed.insert(o.value.index);
                    if (addBound(o.value, o.dimension, o.stride * size))
                        changed.insert(o.value.index);
                    for (auto b : bounds_[o.value.index][static_cast<std::size_t>(o.dimension)])
                        if (b > o.stride && b < o.stride * size && b % o.stride == 0)
                            relative.insert(b / o.stride);
                }
                for (const auto& o : occ)
                    for (auto r : relative)
                        if (addBound(o.value, o.dimension, o.stride * r))
                            changed.insert(o.value.index);
            };
            for (int f = 0; f < static_cast<int>(rule.factors.size()); ++f)
                if (unifies(rule.factors[static_cast<std::size_t>(f)]))
                    spread(occurrences(i, f, true), rule.factors[static_cast<std::size_t>(f)].size);
            for (const Piece& piece : pieces_[i])
                spread(piece.occurrences, piece.size);
            for (auto v : changed)
                for (auto op : touching_[v])
                    if (!queued[op]) {
                        queued[op] = true;
                        work.push_back(op);
                    }
        }
        // Keep a chain in which every boundary divides the next.
        for (auto& dims : bounds_)
            for (auto& b : dims) {
                std::vector<std::int64_t> chain{1};
                for (std::size_t k = 1; k < b.size(); ++k)
                    if (b[k] % chain.back() == 0)
                        chain.push_back(b[k]);
                b = std::move(chain);
            }
    }

    void makeAtoms() {
        space_.dimensionAtoms.resize(g_.values.size());
        for (std::size_t v = 0; v < g_.values.size(); ++v) {
            space_.dimensionAtoms[v].resize(bounds_[v].size());
            for (std::size_t d = 0; d < bounds_[v].size(); ++d) {
                const auto& b = bounds_[v][d];
                for (std::size_t k = b.size(); k-- > 1;) {  // major to minor
                    space_.dimensionAtoms[v][d].push_back(
                        AtomId{static_cast<std::uint32_t>(space_.atoms.size())});
                    space_.atoms.push_back(Atom{
                        ValueId{static_cast<std::uint32_t>(v)}, static_cast<int>(d), b[k] / b[k - 1], {}});
                }
            }
        }
    }

    // The atoms covering [stride, stride·size] of a dimension, major to minor; empty when the span is not
    // whole.
    std::vector<AtomId> atomsOf(const Occurrence& o, std::int64_t size) const {
        const auto& b = bounds_[o.value.index][static_cast<std::size_t>(o.dimension)];
        auto lo = std::lower_bound(b.begin(), b.end(), o.stride);
        auto hi = std::lower_bound(b.begin(), b.end(), o.stride * size);
        if (lo == b.end() || hi == b.end() || *lo != o.stride || *hi != o.stride * size)
            return {};
        const auto& atoms = space_.dimensionAtoms[o.value.index][static_cast<std::size_t>(o.dimension)];
        // Atom k (major to minor) spans b[n-1-k] .. b[n-k] where n = b.size().
        const auto n = static_cast<std::ptrdiff_t>(b.size());
        const auto first = n - 1 - (hi - b.begin());
        const auto last = n - 1 - (lo - b.begin());
        return std::vector<AtomId>(atoms.begin() + first, atoms.begin() + last);
    }

    void unify() {
        UnionFind uf(space_.atoms.size());
        for (std::size_t i = 0; i < rules_.size(); ++i) {
            const FactorRule& rule = rules_[i];
            auto tie = [&](const std::vector<Occurrence>& occ, std::int64_t size) {
                std::vector<AtomId> reference;
                for (const auto& o : occ) {
                    auto atoms = atomsOf(o, size);
                    if (atoms.empty())
                        continue;
                    if (reference.empty()) {
                        reference = std::move(atoms);
                        continue;
                    }
                    if (atoms.size() != reference.size())
                        continue;
                    bool same = true;
                    for (std::size_t k = 0; k < atoms.size(); ++k)
                        same = same && space_.atom(atoms[k]).size == space_.atom(reference[k]).size;
                    if (!same)
                        continue;
                    for (std::size_t k = 0; k < atoms.size(); ++k)
                        uf.unite(atoms[k].index, reference[k].index);
                }
            };
            for (int f = 0; f < static_cast<int>(rule.factors.size()); ++f) {
                const Factor& factor = rule.factors[static_cast<std::size_t>(f)];
                if (unifies(factor))
                    tie(occurrences(i, f, true), factor.size);
            }
            for (const Piece& piece : pieces_[i])
                tie(piece.occurrences, piece.size);
        }
        uniteSamePieces(uf);
        uniteStackedDimensions(uf);
        roots_.resize(space_.atoms.size());
        for (std::uint32_t a = 0; a < space_.atoms.size(); ++a)
            roots_[a] = uf.find(a);
    }

    // One piece of one name: pieces cut from or placed in dimensions of the same names, at the same offset
    // and of the same size, hold the same elements of those names, so they are the same names too (a slice of
    // a concatenation's cotangent and the concatenated operand it stands for; the pieces of a shift
    // (torch.roll) and the pads of its VJP). Repeated until nothing changes, since a piece may itself be cut.
    void uniteSamePieces(UnionFind& uf) {
        for (bool changed = true; changed;) {
            changed = false;
            std::map<std::tuple<std::vector<std::uint32_t>, std::int64_t, std::int64_t>, std::vector<AtomId>>
                first;  // (roots of the whole dimension's atoms, offset, piece size) -> the piece's atoms
            for (const auto& list : placements_)
                for (const Placement& p : list) {
                    const auto d = static_cast<std::size_t>(p.dimension);
                    std::vector<std::uint32_t> whole;
                    for (AtomId a : space_.dimensionAtoms[p.whole.index][d])
                        whole.push_back(uf.find(a.index));
                    const auto& atoms = space_.dimensionAtoms[p.piece.index][d];
                    auto [it, added] = first.try_emplace(
                        std::make_tuple(std::move(whole), p.offset, g_.type(p.piece).shape[d]), atoms);
                    if (added || it->second.size() != atoms.size())
                        continue;
                    bool same = true;
                    for (std::size_t k = 0; k < atoms.size(); ++k)
                        same = same && space_.atom(atoms[k]).size == space_.atom(it->second[k]).size;
                    if (!same)
                        continue;
                    for (std::size_t k = 0; k < atoms.size(); ++k)
                        if (uf.find(atoms[k].index) != uf.find(it->second[k].index)) {
                            uf.unite(atoms[k].index, it->second[k].index);
                            changed = true;
                        }
                }
        }
    }

    // Stacked layers: tensors that dynamic_slice (or dynamic_update_slice) cuts to one entry of a dimension
    // at the same start index (a scan's counter, one per unrolled iteration) hold their layers along that
    // dimension alike, so those dimensions are one name, the layer dimension a pipeline or a layer-sharded
    // plan splits.
    void uniteStackedDimensions(UnionFind& uf) {
        std::map<std::pair<std::uint32_t, std::int64_t>, AtomId>
            first;  // (start index value, size) -> an atom
        for (OpId id : g_.body) {
            const Op& op = g_.op(id);
            const bool slice = op.kind == OpKind::DynamicSlice && !op.operands.empty() && !op.results.empty();
            const bool update = op.kind == OpKind::DynamicUpdateSlice && op.operands.size() >= 2;
            if (!slice && !update)
                continue;
            const ValueId stacked = op.operands[0];
            const Shape& whole = g_.type(stacked).shape;
            const Shape& piece = g_.type(slice ? op.results[0] : op.operands[1]).shape;
            const std::size_t firstStart = slice ? 1 : 2;
            for (std::size_t d = 0;
                 d < whole.size() && d < piece.size() && firstStart + d < op.operands.size(); ++d) {
                if (piece[d] != 1 || whole[d] <= 1)
                    continue;
                std::vector<const std::vector<AtomId>*> dims{&space_.dimensionAtoms[stacked.index][d]};
                if (update)
                    dims.push_back(&space_.dimensionAtoms[op.results[0].index][d]);
                for (const auto* atoms : dims) {
                    if (atoms->size() != 1)
                        continue;
                    const auto key = std::make_pair(op.operands[firstStart + d].index, whole[d]);
                    auto [it, added] = first.try_emplace(key, atoms->front());
                    if (!added)
                        uf.unite(it->second.index, atoms->front().index);
                    stackedAtoms_.push_back(atoms->front());
                }
            }
        }
    }

    void makeNames() {
        std::unordered_map<std::uint32_t, NameId> byRoot;
        for (std::uint32_t a = 0; a < space_.atoms.size(); ++a) {
            Atom& atom = space_.atoms[a];
            if (atom.size <= 1)
                continue;
            auto [it, inserted] =
                byRoot.try_emplace(roots_[a], NameId{static_cast<std::uint32_t>(space_.names.size())});
            if (inserted) {
                Name n;
                n.size = atom.size;
                space_.names.push_back(n);
            }
            atom.name = it->second;
            space_.names[it->second.index].atoms.push_back(AtomId{a});
        }
        // Tensors and bytes.
        for (auto& n : space_.names) {
            std::set<std::uint32_t> values;
            for (AtomId a : n.atoms)
                values.insert(space_.atom(a).value.index);
            n.tensors = values.size();
            for (auto v : values)
                n.bytes += static_cast<double>(g_.values[v].type.bytes());
        }
        // FLOPs: every op with a factor covering the name counts once for it.
        for (std::size_t i = 0; i < rules_.size(); ++i) {
            const double flops = flopsOf(g_, g_.op(g_.body[i]));
            if (flops == 0)
                continue;
            std::set<std::uint32_t> seen;
            const Op& op = g_.op(g_.body[i]);
            auto visit = [&](const std::vector<ValueId>& values) {
                for (auto v : values)
                    for (const auto& dim : space_.dimensionAtoms[v.index])
                        for (AtomId a : dim)
                            if (space_.atom(a).name.valid())
                                seen.insert(space_.atom(a).name.index);
            };
            visit(op.operands);
            visit(op.results);
            for (auto n : seen)
                space_.names[n].flops += flops;
        }
    }

    // Labels from the sources' dimension labels: the token input's "batch"/"seq", a parameter's "d_ff"
    // prefixed by its layer ("layers.3.mlp.d_ff") when the name lives in one layer. A label "heads*head_dim"
    // names the atoms of a dimension split in two. When the source labels none of its parameters (imports),
    // names it does not label take the role their structure plays (dimension_roles.h); the others are "N17".
    void label() {
        struct Candidate {
            std::string label, module;
            bool input;
        };
        std::vector<std::vector<Candidate>> candidates(space_.names.size());
        for (const auto& a : g_.arguments) {
            if (a.dimensionLabels.empty())
                continue;
            const auto dot = a.name.rfind('.');
            std::string module =
                a.role == ArgumentRole::Parameter && dot != std::string::npos ? a.name.substr(0, dot) : "";
            // A parameter stacked over the layers ("layers.mlp.w1" [layers, d_model, d_ff]) holds every
            // layer's: its names are the layers' ("layers.*.mlp.d_ff"), as those of an unrolled model's
            // "layers.3.mlp.w1".
            if (std::find(a.dimensionLabels.begin(), a.dimensionLabels.end(), "layers") !=
                    a.dimensionLabels.end() &&
                !module.empty()) {
                const auto parts = split(module, '.');
                std::string starred;
                bool placed = false;
                for (const auto& p : parts) {
                    starred += (starred.empty() ? "" : ".") + p;
                    if (!placed && (p == "layers" || p == "layer" || p == "blocks" || p == "h")) {
                        starred += ".*";
                        placed = true;
                    }
                }
                module = placed ? starred : "*." + module;
            }
            for (std::size_t d = 0;
                 d < a.dimensionLabels.size() && d < space_.dimensionAtoms[a.value.index].size(); ++d) {
                const auto& atoms = space_.dimensionAtoms[a.value.index][d];
                std::vector<AtomId> named;
                for (AtomId id : atoms)
                    if (space_.atom(id).name.valid())
                        named.push_back(id);
                const auto parts = split(a.dimensionLabels[d], '*');
                if (parts.size() == atoms.size()) {
                    for (std::size_t k = 0; k < atoms.size(); ++k)
                        if (space_.atom(atoms[k]).name.valid())
                            candidates[space_.atom(atoms[k]).name.index].push_back(
                                {parts[k], module, a.role == ArgumentRole::Input});
                } else if (named.size() == 1 && parts.size() == 1) {
                    candidates[space_.atom(named[0]).name.index].push_back(
                        {parts[0], module, a.role == ArgumentRole::Input});
                }
            }
        }
        // A source that labels its parameters (the zoo) says what it means to; one that labels at most its
        // inputs (ONNX's symbolic dimensions) leaves the rest to the structure.
        std::vector<InferredLabel> inferred;
        const bool sourceLabelled =
            std::any_of(g_.arguments.begin(), g_.arguments.end(), [](const Argument& a) {
                return a.role == ArgumentRole::Parameter && !a.dimensionLabels.empty();
            });
        if (!sourceLabelled &&
            std::any_of(candidates.begin(), candidates.end(), [](const auto& c) { return c.empty(); }))
            inferred = inferDimensionRoles(g_, space_, layerBlocks(g_));
        // The dimension a scan's layers are stacked on (uniteStackedDimensions), unless the source names it.
        std::vector<char> stacked(space_.names.size(), 0);
        for (AtomId a : stackedAtoms_)
            if (space_.atom(a).name.valid())
                stacked[space_.atom(a).name.index] = 1;
        for (std::size_t n = 0; n < space_.names.size(); ++n) {
            auto& c = candidates[n];
            std::string chosen = c.empty() && stacked[n]            ? std::string("layers")
                                 : c.empty() && n < inferred.size() ? inferred[n].text()
                                                                    : std::string();
            for (const auto& x : c)
                if (x.input)
                    chosen = x.label;
            if (chosen.empty() && !c.empty()) {
                std::map<std::string, int> votes;
                for (const auto& x : c)
                    ++votes[x.label];
                chosen = std::max_element(votes.begin(), votes.end(), [](const auto& a, const auto& b) {
                             return a.second < b.second;
                         })->first;
                // The module prefix the parameters share, when it names one layer.
                std::vector<std::string> prefix;
                bool first = true;
                for (const auto& x : c) {
                    if (x.module.empty())
                        continue;
                    const auto parts = split(x.module, '.');
                    if (first) {
                        prefix = parts;
                        first = false;
                        continue;
                    }
                    std::size_t k = 0;
                    while (k < prefix.size() && k < parts.size() && prefix[k] == parts[k])
                        ++k;
                    prefix.resize(k);
                }
                std::string joined;
                bool layered = false;
                for (const auto& p : prefix) {
                    if (p.empty())
                        continue;
                    joined += (joined.empty() ? "" : ".") + p;
                    layered = layered || p == "*" || std::all_of(p.begin(), p.end(), [](char ch) {
                                  return std::isdigit(static_cast<unsigned char>(ch));
                              });
                }
                if (layered && chosen != "layers")
                    chosen = joined + "." + chosen;
            }
            space_.names[n].label = chosen.empty() ? "N" + std::to_string(n) : chosen;
        }
        // Labels are unique: later names with a taken label get "#2", "#3", ...
        std::map<std::string, int> taken;
        for (auto& n : space_.names)
            if (int count = ++taken[n.label]; count > 1)
                n.label += "#" + std::to_string(count);
    }

    // A structural signature: what ops touch the name's atoms and where, whatever the layer. In a training
    // step, of the forward tensors only, so that a name's gradients and optimizer states (whose ops carry the
    // parameter's name) do not set apart names the forward groups together.
    std::size_t signature(const Name& n) {
        std::vector<std::size_t> parts;
        std::hash<std::string> hash;
        const std::size_t forwardEnd = g_.backwardStart > 0 ? g_.backwardStart : g_.body.size();
        auto forward = [&](const Value& v, ValueId id) {
            if (!v.producer.valid()) {
                const Argument* a = argumentOf_[id.index] < 0
                                        ? nullptr
                                        : &g_.arguments[static_cast<std::size_t>(argumentOf_[id.index])];
                return !a || a->role != ArgumentRole::OptimizerState;
            }
            const std::int32_t i = bodyIndex_[v.producer.index];
            return i < 0 || static_cast<std::size_t>(i) < forwardEnd;
        };
        bool anyForward = false;
        for (AtomId id : n.atoms)
            anyForward = anyForward || forward(g_.value(space_.atom(id).value), space_.atom(id).value);
        for (AtomId id : n.atoms) {
            const Atom& a = space_.atom(id);
            const Value& v = g_.value(a.value);
            if (anyForward && !forward(v, a.value))
                continue;
            const auto& atoms = space_.dimensionAtoms[a.value.index][static_cast<std::size_t>(a.dimension)];
            const auto position = std::find(atoms.begin(), atoms.end(), id) - atoms.begin();
            std::string key = v.producer.valid() ? std::string(mnemonic(g_.op(v.producer).kind)) : "arg";
            key += ":" + std::to_string(v.resultIndex) + ":" + std::to_string(a.dimension) + ":" +
                   std::to_string(position) + ":" + std::to_string(v.type.rank());
            if (v.producer.valid())
                key += ":" + layerless(g_.op(v.producer).location.name);
            parts.push_back(hash(key));
        }
        std::sort(parts.begin(), parts.end());
        std::size_t seed = static_cast<std::size_t>(n.size);
        for (auto p : parts)
            seed ^= p + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
        return seed;
    }

    // An op's source name without its layer: "/layers.3/self_attn/MatMul" -> "layers.*.self_attn.MatMul".
    const std::string& layerless(const std::string& sourceName) {
        auto [it, added] = layerless_.try_emplace(sourceName);
        if (added) {
            const std::string path = modulePath(sourceName);
            it->second = path.empty() ? normalized(sourceName) : withoutLayerIndices(path);
        }
        return it->second;
    }

    void group() {
        std::map<std::string, GroupId> byKey;
        for (std::size_t n = 0; n < space_.names.size(); ++n) {
            Name& name = space_.names[n];
            std::string key;
            if (!options_.groupRepeatedStructure)
                key = std::to_string(n);
            else if (name.label[0] != 'N' || !std::isdigit(static_cast<unsigned char>(name.label[1])))
                key = "label:" + normalized(name.label) + "#" + std::to_string(name.size);
            else
                key = "shape:" + std::to_string(signature(name));
            auto [it, inserted] =
                byKey.try_emplace(key, GroupId{static_cast<std::uint32_t>(space_.groups.size())});
            if (inserted) {
                Group g;
                g.label = name.label[0] == 'N' && std::isdigit(static_cast<unsigned char>(name.label[1]))
                              ? name.label
                              : normalized(name.label);
                space_.groups.push_back(g);
            }
            name.group = it->second;
            Group& g = space_.groups[it->second.index];
            g.names.push_back(NameId{static_cast<std::uint32_t>(n)});
            g.bytes += name.bytes;
            g.flops += name.flops;
        }
    }

    void findConflicts() {
        std::map<std::uint32_t, Conflict> repeated, cut;
        // Repeated names: a tensor carrying a name on two of its dimensions.
        for (std::size_t v = 0; v < g_.values.size(); ++v) {
            std::map<std::uint32_t, std::vector<int>> dims;
            for (std::size_t d = 0; d < space_.dimensionAtoms[v].size(); ++d)
                for (AtomId a : space_.dimensionAtoms[v][d])
                    if (space_.atom(a).name.valid())
                        dims[space_.atom(a).name.index].push_back(static_cast<int>(d));
            for (auto& [n, list] : dims) {
                list.erase(std::unique(list.begin(), list.end()), list.end());
                if (list.size() < 2)
                    continue;
                Conflict& c = repeated[n];
                c.kind = ConflictKind::RepeatedName;
                c.name = NameId{n};
                c.sites.push_back({g_.values[v].producer, ValueId{static_cast<std::uint32_t>(v)}, list});
            }
        }
        // Cut names: a name meeting a need-replication (or blocked) factor.
        for (std::size_t i = 0; i < rules_.size(); ++i) {
            const FactorRule& rule = rules_[i];
            for (int f = 0; f < static_cast<int>(rule.factors.size()); ++f) {
                const Factor& factor = rule.factors[static_cast<std::size_t>(f)];
                if (factor.size <= 1 || unifies(factor))
                    continue;
                for (const auto& o : occurrences(i, f))
                    for (AtomId a :
                         space_.dimensionAtoms[o.value.index][static_cast<std::size_t>(o.dimension)]) {
                        const NameId n = space_.atom(a).name;
                        if (!n.valid())
                            continue;
                        Conflict& c = cut[n.index];
                        c.kind = ConflictKind::CutName;
                        c.name = n;
                        if (c.sites.empty() || c.sites.back().op != g_.body[i] ||
                            c.sites.back().value != o.value)
                            c.sites.push_back({g_.body[i], o.value, {o.dimension}});
                    }
            }
        }
        for (auto& [n, c] : repeated) {
            const std::string& label = space_.names[n].label;
            c.options = {"shard the first " + label + " dimension of each site and gather the other",
                         "shard the second " + label + " dimension of each site and gather the other",
                         "leave " + label + " unsharded"};
            space_.conflicts.push_back(std::move(c));
        }
        for (auto& [n, c] : cut) {
            const std::string& label = space_.names[n].label;
            c.options = {"shard " + label + " and all-gather it where it must be whole (" +
                             std::to_string(c.sites.size()) + " site(s))",
                         "leave " + label + " unsharded"};
            space_.conflicts.push_back(std::move(c));
        }
    }

    const Graph& g_;
    const AnalysisOptions& options_;
    DecisionSpace space_;
    std::vector<FactorRule> rules_;  // per top-level op, in body order
    std::vector<std::vector<Piece>>
        pieces_;  // per top-level op: its aligned pieces (slice, pad, concatenate)
    std::vector<std::vector<Placement>> placements_;  // per top-level op: every piece it cuts or places
    std::vector<std::vector<std::uint32_t>>
        touching_;  // value -> top-level ops (body positions) using or making it
    std::vector<std::vector<std::vector<std::int64_t>>>
        bounds_;  // value -> dimension -> boundaries (ascending)
    std::vector<std::uint32_t> roots_;
    std::vector<AtomId> stackedAtoms_;      // dimensions a dynamic_slice cuts to one layer at a shared index
    std::vector<std::int32_t> bodyIndex_;   // op -> index into body; -1 inside regions
    std::vector<std::int32_t> argumentOf_;  // value -> argument index; -1 when not an argument
    std::unordered_map<std::string, std::string> layerless_;  // op source name -> the name without its layer
};

}  // namespace

std::optional<GroupId> DecisionSpace::groupLabelled(std::string_view label) const {
    for (std::size_t g = 0; g < groups.size(); ++g)
        if (groups[g].label == label)
            return GroupId(static_cast<std::uint32_t>(g));
    return std::nullopt;
}

std::optional<NameId> DecisionSpace::nameLabelled(std::string_view label) const {
    for (std::size_t n = 0; n < names.size(); ++n)
        if (names[n].label == label)
            return NameId(static_cast<std::uint32_t>(n));
    return std::nullopt;
}

std::vector<NameId> DecisionSpace::namesOf(ValueId value, int dimension) const {
    std::vector<NameId> out;
    for (AtomId a : dimensionAtoms[value.index][static_cast<std::size_t>(dimension)])
        if (atom(a).name.valid())
            out.push_back(atom(a).name);
    return out;
}

std::vector<GroupId> DecisionSpace::splitGroup(GroupId id) {
    std::vector<GroupId> created;
    if (id.index >= groups.size())
        return created;
    std::vector<NameId> members = groups[id.index].names;
    if (members.size() <= 1)
        return created;
    groups[id.index].names = {members.front()};
    groups[id.index].bytes = name(members.front()).bytes;
    groups[id.index].flops = name(members.front()).flops;
    groups[id.index].label = name(members.front()).label;
    for (std::size_t k = 1; k < members.size(); ++k) {
        Group g;
        g.names = {members[k]};
        g.label = name(members[k]).label;
        g.bytes = name(members[k]).bytes;
        g.flops = name(members[k]).flops;
        const GroupId gid{static_cast<std::uint32_t>(groups.size())};
        groups.push_back(std::move(g));
        names[members[k].index].group = gid;
        created.push_back(gid);
    }
    return created;
}

DecisionSpace analyze(const Graph& graph, const AnalysisOptions& options) {
    return Analysis(graph, options).run();
}

}  // namespace shardscope::analysis
