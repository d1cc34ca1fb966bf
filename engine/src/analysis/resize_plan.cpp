// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "resize_plan.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

namespace shardscope::analysis {

namespace {

using ir::Graph;
using ir::Op;
using ir::OpId;
using ir::OpKind;
using ir::Shape;
using ir::ValueId;

constexpr const char* kKnownKeys = "batch, seq";

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string trimmed(std::string_view text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos)
        return {};
    const auto last = text.find_last_not_of(" \t");
    return std::string(text.substr(first, last - first + 1));
}

// The key a name's label gives it a role for: "seq#2" and "layers.3.seq" are the sequence; ONNX's symbolic
// dimensions come as "batch_size", "sequence_length", ...
std::string_view keyOfLabel(std::string_view label) {
    if (const auto hash = label.rfind('#');
        hash != std::string_view::npos && hash + 1 < label.size() &&
        std::all_of(label.begin() + static_cast<std::ptrdiff_t>(hash) + 1, label.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        label = label.substr(0, hash);
    if (const auto dot = label.rfind('.'); dot != std::string_view::npos)
        label = label.substr(dot + 1);
    const std::string l = lower(label);
    if (l == "batch" || l == "batch_size" || l == "batchsize")
        return "batch";
    if (l == "seq" || l == "sequence" || l == "seq_len" || l == "seqlen" || l == "sequence_length")
        return "seq";
    return {};
}

std::string roleWord(std::string_view key) {
    return key == "seq" ? "sequence" : std::string(key);
}

class Planner {
public:
    Planner(const Graph& graph, const DecisionSpace& space) : old_(graph), space_(space) {}

    Result<SizePlan> run(const GlobalSizes& sizes) {
        GlobalSizes wanted;
        for (const auto& [key, size] : sizes) {
            const std::string_view canonical = canonicalSizeKey(key);
            if (canonical.empty())
                return makeError("resize.key", "unknown size '" + key + "' (sizes: " + kKnownKeys + ")");
            if (size <= 0)
                return makeError("resize.size",
                                 key + "=" + std::to_string(size) + ": a size must be a positive integer");
            if (!wanted.emplace(std::string(canonical), size).second)
                return makeError("resize.key", "size '" + std::string(canonical) + "' is set twice");
        }
        findRoleNames();
        findUnitSeeds();
        // Every key must say something about this model.
        for (const auto& [key, size] : wanted)
            if (roleNames_[key].empty() && !(key == "batch" && !plan_.seeds.empty())) {
                std::string takes;
                for (const char* k : {"batch", "seq"})
                    if (!roleNames_[k].empty() || (std::string_view(k) == "batch" && !plan_.seeds.empty()))
                        takes += (takes.empty() ? "" : ", ") + std::string(k);
                return makeError(
                    "resize.key",
                    "size '" + key + "': no dimension of this model has the " + roleWord(key) +
                        " role (no name is labelled '" + key + "'); " +
                        (takes.empty() ? "it takes none of the sizes (" + std::string(kKnownKeys) + ")"
                                       : "it takes: " + takes));
            }
        for (const auto& [key, size] : wanted)
            if (auto planned = planKey(key, size); !planned)
                return Result<SizePlan>::failure(planned.diagnostics());
        followBorders();
        if (plan_.unitBatch <= 1)
            plan_.seeds.clear();
        return std::move(plan_);
    }

private:
    void findRoleNames() {
        for (std::size_t n = 0; n < space_.names.size(); ++n) {
            const std::string_view key = keyOfLabel(space_.names[n].label);
            if (!key.empty())
                roleNames_[std::string(key)].push_back(NameId{static_cast<std::uint32_t>(n)});
        }
    }

    // A batch of one has no name (atoms of size 1 are not names): the inputs' leading size-1 dimensions, and
    // argument dimensions the source labels "batch", are the batch.
    void findUnitSeeds() {
        if (!roleNames_["batch"].empty())
            return;
        for (const auto& a : old_.arguments) {
            const Shape& shape = old_.type(a.value).shape;
            bool labelled = false;
            for (std::size_t d = 0; d < a.dimensionLabels.size() && d < shape.size(); ++d)
                if (keyOfLabel(a.dimensionLabels[d]) == "batch") {
                    labelled = true;
                    if (shape[d] == 1)
                        plan_.seeds.emplace_back(a.value, static_cast<int>(d));
                }
            if (!labelled && a.role == ir::ArgumentRole::Input && !shape.empty() && shape[0] == 1)
                plan_.seeds.emplace_back(a.value, 0);
        }
    }

    // The new size of the names of `key`'s role.
    Status planKey(const std::string& key, std::int64_t target) {
        const auto& names = roleNames_[key];
        SizeChange change;
        change.key = key;
        change.to = target;
        if (names.empty()) {  // a batch of one
            change.from = 1;
            plan_.unitBatch = target;
            plan_.changes.push_back(change);
            return Success{};
        }
        const std::set<std::uint32_t> role = [&] {
            std::set<std::uint32_t> s;
            for (NameId n : names)
                s.insert(n.index);
            return s;
        }();
        // The dimension the user means: an input's that carries the name (the tokens' second dimension), else
        // the name that touches the most bytes.
        std::optional<NameId> reference;
        std::int64_t dimensionSize = 0, others = 1;
        std::string where;
        for (const auto& a : old_.arguments) {
            if (reference)
                break;
            if (a.role != ir::ArgumentRole::Input)
                continue;
            const auto& dims = space_.dimensionAtoms[a.value.index];
            for (std::size_t d = 0; d < dims.size() && !reference; ++d) {
                for (AtomId atom : dims[d]) {
                    const NameId n = space_.atom(atom).name;
                    if (n.valid() && role.count(n.index) && !reference)
                        reference = n;
                    else
                        others *= space_.atom(atom).size;
                }
                if (reference) {
                    dimensionSize = old_.type(a.value).shape[d];
                    where = "dimension " + std::to_string(d) + " of input '" + a.name + "'";
                } else {
                    others = 1;
                }
            }
        }
        if (!reference) {
            reference = *std::max_element(names.begin(), names.end(), [&](NameId a, NameId b) {
                return space_.name(a).bytes < space_.name(b).bytes;
            });
            dimensionSize = space_.name(*reference).size;
            others = 1;
        }
        change.from = dimensionSize;
        if (target % others != 0)
            return makeError("resize.size",
                             key + "=" + std::to_string(target) + ": the " + roleWord(key) + " (" + where +
                                 ", size " + std::to_string(dimensionSize) +
                                 ") is split by the model's reshapes into '" + space_.name(*reference).label +
                                 "' (" + std::to_string(space_.name(*reference).size) + ") and pieces of " +
                                 std::to_string(others) + " that keep their size: " + key +
                                 " must be a multiple of " + std::to_string(others));
        const std::int64_t from = space_.name(*reference).size, to = target / others;
        for (NameId n : names) {
            const Name& name = space_.name(n);
            if (name.size != from) {
                plan_.warnings.push_back(makeWarning(
                    "resize.other-size", "name '" + name.label + "' (size " + std::to_string(name.size) +
                                             ") has the " + roleWord(key) + " role but not the size of '" +
                                             space_.name(*reference).label + "' (" + std::to_string(from) +
                                             "): it keeps its size"));
                continue;
            }
            plan_.newSize[n.index] = to;
            change.names.push_back(name.label);
        }
        plan_.changes.push_back(change);
        return Success{};
    }

    // The only atom of a dimension, if it has exactly one.
    std::optional<AtomId> onlyAtom(ValueId v, std::size_t d) const {
        const auto& atoms = space_.dimensionAtoms[v.index][d];
        if (atoms.size() != 1)
            return std::nullopt;
        return atoms[0];
    }

    // Names a border apart from a resized name follow it, so that the border keeps its width: a slice that
    // trims a border (tokens[:, 1:] of 4096 tokens is 4095 long; it keeps more than half), a pad, a
    // concatenate (a begin-of-sequence token before the tokens), whichever side was resized.
    void followBorders() {
        auto nameOf = [&](ValueId v, std::size_t d) -> NameId {
            const auto atom = onlyAtom(v, d);
            return atom ? space_.atom(*atom).name : NameId{};
        };
        auto resized = [&](NameId n) { return n.valid() && plan_.newSize.count(n.index) > 0; };
        // A parameter's dimension (a table of positions) keeps its size: the slice of it follows instead.
        std::set<std::uint32_t> parameters;
        for (const auto& a : old_.arguments)
            if (a.role == ir::ArgumentRole::Parameter)
                for (const auto& atoms : space_.dimensionAtoms[a.value.index])
                    for (AtomId atom : atoms)
                        if (space_.atom(atom).name.valid())
                            parameters.insert(space_.atom(atom).name.index);
        std::vector<OpId> borders;  // the ops that can set a border
        for (OpId id : old_.allOpsInOrder()) {
            const OpKind kind = old_.op(id).kind;
            if (kind == OpKind::Concatenate || kind == OpKind::Slice || kind == OpKind::Pad)
                borders.push_back(id);
        }
        for (bool changed = true; changed;) {
            changed = false;
            auto set = [&](NameId n, std::int64_t size) {
                if (size <= 0 || !n.valid() || resized(n) || parameters.count(n.index))
                    return;
                plan_.newSize[n.index] = size;
                changed = true;
            };
            for (OpId id : borders) {
                const Op& op = old_.op(id);
                if (op.operands.empty() || op.results.empty())
                    continue;
                const Shape& in = old_.type(op.operands[0]).shape;
                const Shape& out = old_.type(op.results[0]).shape;
                if (op.kind == OpKind::Concatenate) {
                    const auto* c = std::get_if<ir::DimensionAttribute>(&op.attributes);
                    if (!c || c->dimension < 0 || static_cast<std::size_t>(c->dimension) >= out.size())
                        continue;
                    const auto d = static_cast<std::size_t>(c->dimension);
                    const NameId whole = nameOf(op.results[0], d);
                    std::vector<NameId> open;  // operands' names that are not resized
                    std::int64_t known = 0;    // the new sizes of the others
                    bool simple = whole.valid();
                    for (ValueId v : op.operands) {
                        const auto& atoms = space_.dimensionAtoms[v.index][d];
                        if (atoms.size() > 1)
                            simple = false;
                        const NameId n = nameOf(v, d);
                        if (n.valid() && !resized(n))
                            open.push_back(n);
                        else
                            known += n.valid() ? plan_.newSize[n.index] : old_.type(v).shape[d];
                    }
                    if (!simple)
                        continue;
                    if (resized(whole) && open.size() == 1)
                        set(open[0], plan_.newSize[whole.index] - known);
                    else if (!resized(whole) && open.empty() && known != out[d])
                        set(whole, known);
                    continue;
                }
                if (op.kind != OpKind::Slice && op.kind != OpKind::Pad)
                    continue;
                for (std::size_t d = 0; d < in.size() && d < out.size(); ++d) {
                    std::int64_t border = 0;
                    if (const auto* s = std::get_if<ir::SliceAttributes>(&op.attributes)) {
                        const bool unit = s->strides.size() <= d || s->strides[d] == 1;
                        if (!unit || out[d] >= in[d] || 2 * out[d] < in[d])
                            continue;
                        border = out[d] - in[d];
                    } else if (const auto* p = std::get_if<ir::PadAttributes>(&op.attributes)) {
                        if ((p->interior.size() > d && p->interior[d] != 0) || d >= p->low.size() ||
                            d >= p->high.size())
                            continue;
                        border = p->low[d] + p->high[d];
                    }
                    if (border == 0)
                        continue;
                    const NameId from = nameOf(op.operands[0], d), to = nameOf(op.results[0], d);
                    if (!from.valid() || !to.valid() || from == to)
                        continue;
                    if (resized(from))
                        set(to, plan_.newSize[from.index] + border);
                    else if (resized(to))
                        set(from, plan_.newSize[to.index] - border);
                }
            }
        }
    }

    const Graph& old_;
    const DecisionSpace& space_;
    std::map<std::string, std::vector<NameId>> roleNames_;
    SizePlan plan_;
};

}  // namespace

std::optional<std::int64_t> resizedProduct(std::int64_t a, std::int64_t b) {
    if (a < 0 || b < 0)
        return std::nullopt;
    if (a != 0 && b > kMaxResizedElements / a)
        return std::nullopt;
    return a * b;
}

std::string SizePlan::changesText() const {
    std::string out;
    for (const auto& c : changes)
        out +=
            (out.empty() ? "" : ", ") + c.key + " " + std::to_string(c.from) + " -> " + std::to_string(c.to);
    return out;
}

Result<SizePlan> planSizes(const ir::Graph& graph, const DecisionSpace& space, const GlobalSizes& sizes) {
    return Planner(graph, space).run(sizes);
}

std::string_view canonicalSizeKey(std::string_view key) {
    if (key == "batch")
        return "batch";
    if (key == "seq" || key == "sequence")
        return "seq";
    return {};
}

Result<GlobalSizes> parseGlobalSizes(std::string_view text) {
    GlobalSizes out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        const std::string item = trimmed(
            text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        start = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
        if (item.empty()) {
            if (comma == std::string_view::npos && out.empty() && trimmed(text).empty())
                break;
            if (comma == std::string_view::npos)
                break;
            return makeError("resize.syntax",
                             "'" + std::string(text) + "': an empty item (expected KEY=VALUE[,KEY=VALUE])");
        }
        const auto eq = item.find('=');
        if (eq == std::string::npos)
            return makeError("resize.syntax", "'" + item + "': expected KEY=VALUE, e.g. batch=256 (sizes: " +
                                                  kKnownKeys + ")");
        const std::string key = trimmed(std::string_view(item).substr(0, eq));
        const std::string value = trimmed(std::string_view(item).substr(eq + 1));
        const std::string_view canonical = canonicalSizeKey(key);
        if (canonical.empty())
            return makeError("resize.syntax",
                             "'" + item + "': unknown size '" + key + "' (sizes: " + kKnownKeys + ")");
        std::int64_t number = 0;
        const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
        if (value.empty() || error != std::errc() || end != value.data() + value.size() || number <= 0)
            return makeError("resize.syntax", "'" + item + "': the size must be a positive integer");
        if (!out.emplace(std::string(canonical), number).second)
            return makeError("resize.syntax",
                             "'" + item + "': size '" + std::string(canonical) + "' is set twice");
    }
    return out;
}

std::string globalSizesText(const GlobalSizes& sizes) {
    std::string out;
    for (const auto& [key, size] : sizes)
        out += (out.empty() ? "" : ",") + key + "=" + std::to_string(size);
    return out;
}

}  // namespace shardscope::analysis
