// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/plan/reference_plan.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <map>
#include <optional>
#include <set>

namespace shardscope::plan {
namespace {

constexpr const char* kUnexpressible = "reference.unexpressible";

Diagnostic textError(std::string_view text, const std::string& why) {
    return makeError("reference.sharding", "sharding '" + std::string(text) + "': " + why);
}

// A cursor over annotation text.
class Reader {
public:
    explicit Reader(std::string_view text) : text_(text) {}
    void skipSpace() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
            ++pos_;
    }
    bool atEnd() {
        skipSpace();
        return pos_ >= text_.size();
    }
    char peek() {
        skipSpace();
        return pos_ < text_.size() ? text_[pos_] : '\0';
    }
    bool consume(std::string_view token) {
        skipSpace();
        if (text_.substr(pos_, token.size()) != token)
            return false;
        pos_ += token.size();
        return true;
    }
    std::optional<std::int64_t> integer() {
        skipSpace();
        std::size_t end = pos_;
        while (end < text_.size() && std::isdigit(static_cast<unsigned char>(text_[end])))
            ++end;
        if (end == pos_ || end - pos_ > 15)
            return std::nullopt;
        std::int64_t value = 0;
        for (std::size_t i = pos_; i < end; ++i)
            value = value * 10 + (text_[i] - '0');
        pos_ = end;
        return value;
    }
    // Integers separated by commas, up to (not including) a character that is neither.
    std::optional<std::vector<std::int64_t>> integers() {
        std::vector<std::int64_t> values;
        do {
            auto v = integer();
            if (!v)
                return std::nullopt;
            values.push_back(*v);
        } while (consume(","));
        return values;
    }
    std::string identifier() {
        skipSpace();
        std::size_t end = pos_;
        while (end < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_' ||
                text_[end] == '.' || text_[end] == '$' || text_[end] == '-'))
            ++end;
        std::string id(text_.substr(pos_, end - pos_));
        pos_ = end;
        return id;
    }
    std::optional<std::string> quoted() {
        if (!consume("\""))
            return std::nullopt;
        const std::size_t end = text_.find('"', pos_);
        if (end == std::string_view::npos)
            return std::nullopt;
        std::string s(text_.substr(pos_, end - pos_));
        pos_ = end + 1;
        return s;
    }
    // Skips a `{...}` group (nested braces and quoted strings included); assumes the cursor is on '{'.
    bool skipBraces() {
        int depth = 0;
        bool inString = false;
        for (; pos_ < text_.size(); ++pos_) {
            const char c = text_[pos_];
            if (inString) {
                if (c == '\\')
                    ++pos_;
                else if (c == '"')
                    inString = false;
            } else if (c == '"') {
                inString = true;
            } else if (c == '{') {
                ++depth;
            } else if (c == '}' && --depth == 0) {
                ++pos_;
                return true;
            }
        }
        return false;
    }

private:
    std::string_view text_;
    std::size_t pos_ = 0;
};

std::int64_t product(const std::vector<std::int64_t>& values) {
    std::int64_t p = 1;
    for (const auto v : values)
        p *= v;
    return p;
}

// iota(product(dims)) reshaped to `dims`, transposed by `perm`, flattened.
std::vector<std::int64_t> transposedIota(const std::vector<std::int64_t>& dims,
                                         const std::vector<std::int64_t>& perm) {
    const std::size_t rank = dims.size();
    std::vector<std::int64_t> strides(rank, 1);
    for (std::size_t i = rank; i-- > 1;)
        strides[i - 1] = strides[i] * dims[i];
    std::vector<std::int64_t> shape(rank), step(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        shape[i] = dims[static_cast<std::size_t>(perm[i])];
        step[i] = strides[static_cast<std::size_t>(perm[i])];
    }
    std::vector<std::int64_t> out;
    out.reserve(static_cast<std::size_t>(product(dims)));
    std::vector<std::int64_t> index(rank, 0);
    const std::int64_t total = product(dims);
    for (std::int64_t n = 0; n < total; ++n) {
        std::int64_t device = 0;
        for (std::size_t i = 0; i < rank; ++i)
            device += index[i] * step[i];
        out.push_back(device);
        for (std::size_t i = rank; i-- > 0;) {
            if (++index[i] < shape[i])
                break;
            index[i] = 0;
        }
    }
    return out;
}

// The text between the outer delimiters split at top-level commas: `{{a}, {b}}` -> `{a}`, `{b}`. Angle
// brackets nest only in Shardy's text (GSPMD's `<=` is no bracket).
std::vector<std::string_view> topLevelItems(std::string_view inner, bool angleBrackets) {
    std::vector<std::string_view> items;
    int depth = 0;
    bool inString = false;
    std::size_t start = 0;
    for (std::size_t i = 0; i < inner.size(); ++i) {
        const char c = inner[i];
        if (inString) {
            if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"')
            inString = true;
        else if (c == '{' || c == '[' || c == '(' || (angleBrackets && c == '<'))
            ++depth;
        else if (c == '}' || c == ']' || c == ')' || (angleBrackets && c == '>'))
            --depth;
        else if (c == ',' && depth == 0) {
            items.push_back(inner.substr(start, i - start));
            start = i + 1;
        }
    }
    if (inner.find_first_not_of(" \t\n", start) != std::string_view::npos)
        items.push_back(inner.substr(start));
    return items;
}

std::string_view trimmed(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos)
        return {};
    const auto last = s.find_last_not_of(" \t\r\n");
    return s.substr(first, last - first + 1);
}

// The per-result annotations of a multi-result annotation (a GSPMD tuple or `#sdy.sharding_per_value`), or
// nullopt when `annotation` is a single sharding.
std::optional<std::vector<ir::ShardingAnnotation>> perResult(const ir::ShardingAnnotation& annotation) {
    const std::string_view text = trimmed(annotation.text);
    std::vector<ir::ShardingAnnotation> out;
    if (annotation.format == ir::ShardingAnnotation::Format::Gspmd) {
        if (text.size() < 2 || text.front() != '{' || trimmed(text.substr(1)).substr(0, 1) != "{")
            return std::nullopt;
        for (auto item : topLevelItems(text.substr(1, text.size() - 2), false))
            out.push_back({annotation.format, std::string(trimmed(item))});
        return out;
    }
    constexpr std::string_view prefix = "#sdy.sharding_per_value<";
    if (text.substr(0, prefix.size()) != prefix)
        return std::nullopt;
    std::string_view inner = trimmed(text.substr(prefix.size(), text.size() - prefix.size() - 1));
    if (inner.size() >= 2 && inner.front() == '[')
        inner = inner.substr(1, inner.size() - 2);
    for (auto item : topLevelItems(inner, true))
        out.push_back({annotation.format, std::string(trimmed(item))});
    return out;
}

// Whether every axis of `a` is in `b`, in the same order.
bool subsequence(const plan::AxisList& a, const plan::AxisList& b) {
    int k = 0;
    for (int i = 0; i < b.size() && k < a.size(); ++i)
        if (b[i] == a[k])
            ++k;
    return k == a.size();
}

// What a name must carry: its axes (from the first tensor that shards it) and, for a repeated name, which of
// a tensor's dimensions carrying it takes them.
struct Demand {
    plan::AxisList axes;
    std::string from;
    int resolution = 0;
};

// The order of the names' decisions. A plan gives an axis to the first name that asks for it on a tensor (a
// later one loses it there, as the batch takes the data axis from the parameters' dimensions on the
// activations under FSDP): where an annotated tensor gives an axis to one of its names and not to another
// that asks for it too, the first comes before the second. Otherwise, and to break cycles, the batch's names
// come first (every expert strategy decides the batch before what competes with it), then names touching more
// bytes (then by id).
std::vector<std::uint32_t> decisionOrder(const analysis::DecisionSpace& space,
                                         const std::vector<AnnotatedTensor>& tensors,
                                         const std::map<std::uint32_t, Demand>& demands,
                                         std::optional<analysis::GroupId> batch) {
    std::map<std::uint32_t, std::set<std::uint32_t>> after;  // name -> the names that must come after it
    std::map<std::uint32_t, int> before;                     // name -> how many must come before it
    for (const auto& [name, demand] : demands)
        before[name] = 0;
    for (const AnnotatedTensor& tensor : tensors) {
        if (tensor.value.index >= space.dimensionAtoms.size())
            continue;
        const auto& dims = space.dimensionAtoms[tensor.value.index];
        // Who holds each axis on this tensor: the names of the dimension that has it and ask for it.
        std::map<int, std::vector<std::uint32_t>> holders;
        std::vector<std::pair<std::uint32_t, std::size_t>> present;  // (name, dimension)
        for (std::size_t d = 0; d < dims.size() && d < tensor.sharding.dimensions.size(); ++d)
            for (const analysis::AtomId atom : dims[d]) {
                const analysis::NameId name = space.atom(atom).name;
                if (!name.valid() || !demands.count(name.index))
                    continue;
                present.emplace_back(name.index, d);
                const plan::AxisList& axes = tensor.sharding.dimensions[d];
                const plan::AxisList& wants = demands.at(name.index).axes;
                for (int i = 0; i < axes.size(); ++i)
                    for (int k = 0; k < wants.size(); ++k)
                        if (wants[k] == axes[i])
                            holders[axes[i]].push_back(name.index);
            }
        for (const auto& [name, d] : present) {
            const plan::AxisList& wants = demands.at(name).axes;
            for (int k = 0; k < wants.size(); ++k) {
                const auto it = holders.find(wants[k]);
                if (it == holders.end())
                    continue;
                if (std::find(it->second.begin(), it->second.end(), name) != it->second.end())
                    continue;
                for (const std::uint32_t winner : it->second)
                    if (winner != name && after[winner].insert(name).second)
                        ++before[name];
            }
        }
    }
    auto larger = [&](std::uint32_t a, std::uint32_t b) {
        const bool batchA = batch && space.names[a].group == *batch,
                   batchB = batch && space.names[b].group == *batch;
        if (batchA != batchB)
            return batchA;
        if (space.names[a].bytes != space.names[b].bytes)
            return space.names[a].bytes > space.names[b].bytes;
        return a < b;
    };
    std::vector<std::uint32_t> order;
    std::set<std::uint32_t> left;
    for (const auto& [name, demand] : demands)
        left.insert(name);
    while (!left.empty()) {
        // The largest name nothing waits for; in a cycle, the largest of those left.
        std::optional<std::uint32_t> next;
        for (const std::uint32_t name : left)
            if (before[name] == 0 && (!next || larger(name, *next)))
                next = name;
        if (!next)
            for (const std::uint32_t name : left)
                if (!next || larger(name, *next))
                    next = name;
        left.erase(*next);
        order.push_back(*next);
        for (const std::uint32_t later : after[*next])
            if (left.count(later))
                --before[later];
    }
    return order;
}

}  // namespace

Result<GspmdTiling> parseGspmdSharding(std::string_view text) {
    Reader r(text);
    GspmdTiling tiling;
    if (!r.consume("{"))
        return textError(text, "expected '{'");
    if (r.consume("replicated")) {
        tiling.kind = GspmdTiling::Kind::Replicated;
    } else if (r.consume("maximal")) {
        tiling.kind = GspmdTiling::Kind::Maximal;
        if (!r.consume("device") || !r.consume("="))
            return textError(text, "expected 'device=' after 'maximal'");
        const auto device = r.integer();
        if (!device)
            return textError(text, "expected a device number");
        tiling.device = *device;
    } else if (r.consume("devices")) {
        tiling.kind = GspmdTiling::Kind::Tiled;
        if (!r.consume("=") || !r.consume("["))
            return textError(text, "expected 'devices=['");
        auto tiles = r.integers();
        if (!tiles || !r.consume("]"))
            return textError(text, "expected tile counts and ']'");
        tiling.tiles = *tiles;
        if (std::find(tiling.tiles.begin(), tiling.tiles.end(), 0) != tiling.tiles.end())
            return textError(text, "a tile count of 0");
        if (r.consume("<=")) {
            if (!r.consume("["))
                return textError(text, "expected '[' after '<='");
            auto dims = r.integers();
            if (!dims || !r.consume("]"))
                return textError(text, "expected iota dimensions and ']'");
            std::vector<std::int64_t> perm(dims->size());
            for (std::size_t i = 0; i < perm.size(); ++i)
                perm[i] = static_cast<std::int64_t>(i);
            if (r.consume("T(")) {
                auto p = r.integers();
                if (!p || !r.consume(")"))
                    return textError(text, "expected a permutation and ')'");
                perm = *p;
                std::vector<std::int64_t> sorted = perm;
                std::sort(sorted.begin(), sorted.end());
                bool isPermutation = sorted.size() == dims->size();
                for (std::size_t i = 0; isPermutation && i < sorted.size(); ++i)
                    isPermutation = sorted[i] == static_cast<std::int64_t>(i);
                if (!isPermutation)
                    return textError(text, "T(...) is not a permutation of the iota dimensions");
            }
            if (std::find(dims->begin(), dims->end(), 0) != dims->end())
                return textError(text, "an iota dimension of 0");
            tiling.devices = transposedIota(*dims, perm);
        } else {
            auto devices = r.integers();
            if (!devices)
                return textError(text, "expected '<=[...]' or a device list");
            tiling.devices = *devices;
        }
        while (r.peek() != '}' && !r.atEnd()) {
            if (r.consume("last_tile_dim_replicate")) {
                if (tiling.replication != 1 || tiling.tiles.empty())
                    return textError(text, "misplaced last_tile_dim_replicate");
                tiling.replication = tiling.tiles.back();
                tiling.tiles.pop_back();
            } else if (r.consume("last_tile_dims")) {
                if (!r.consume("=") || !r.consume("{"))
                    return textError(text, "expected 'last_tile_dims={'");
                const std::string kind = r.identifier();
                if (kind != "replicated" || !r.consume("}"))
                    return textError(text,
                                     "only last_tile_dims={replicated} is supported (not '" + kind + "')");
                if (tiling.tiles.empty())
                    return textError(text, "misplaced last_tile_dims");
                tiling.replication = tiling.tiles.back();
                tiling.tiles.pop_back();
            } else if (r.consume("metadata")) {
                if (!r.consume("=") || r.peek() != '{' || !r.skipBraces())
                    return textError(text, "bad metadata={...}");
            } else {
                return textError(text, "unexpected '" + r.identifier() + "'");
            }
        }
        const std::int64_t count = product(tiling.tiles) * tiling.replication;
        if (static_cast<std::int64_t>(tiling.devices.size()) != count)
            return textError(text, std::to_string(tiling.devices.size()) + " devices for " +
                                       std::to_string(count) + " tiles");
        std::vector<std::int64_t> sorted = tiling.devices;
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t i = 0; i < sorted.size(); ++i)
            if (sorted[i] != static_cast<std::int64_t>(i))
                return textError(text,
                                 "the device list is not a permutation of 0.." + std::to_string(count - 1));
    } else if (r.consume("manual")) {
        return textError(text, "a manual sharding has no mesh axes");
    } else {
        return textError(text, "expected 'replicated', 'maximal' or 'devices='");
    }
    if (!r.consume("}") || !r.atEnd())
        return textError(text, "expected '}' at the end");
    return tiling;
}

Result<plan::TensorSharding> gspmdOnMesh(std::string_view text, int rank, const mesh::Mesh& mesh) {
    auto parsed = parseGspmdSharding(text);
    if (!parsed)
        return Result<plan::TensorSharding>::failure(parsed.diagnostics());
    const GspmdTiling& tiling = *parsed;
    plan::TensorSharding sharding;
    sharding.dimensions.resize(static_cast<std::size_t>(std::max(rank, 0)));
    if (tiling.kind == GspmdTiling::Kind::Replicated)
        return sharding;
    if (tiling.kind == GspmdTiling::Kind::Maximal)
        return textError(text, "a maximal sharding (one device holds the tensor) has no mesh axes");
    if (static_cast<int>(tiling.tiles.size()) != rank)
        return textError(text, std::to_string(tiling.tiles.size()) + " tile counts for a tensor of rank " +
                                   std::to_string(rank));
    const std::int64_t total = static_cast<std::int64_t>(tiling.devices.size());
    if (total != mesh.devices())
        return textError(text, std::to_string(total) + " devices on a mesh of " +
                                   std::to_string(mesh.devices()) + " (" + mesh.toString() + ")");

    const int axisCount = static_cast<int>(mesh.axes.size());
    std::vector<std::int64_t> meshStride(static_cast<std::size_t>(axisCount), 1);
    for (int a = axisCount - 1; a > 0; --a)
        meshStride[static_cast<std::size_t>(a - 1)] =
            meshStride[static_cast<std::size_t>(a)] * mesh.axes[static_cast<std::size_t>(a)].size;
    // The tile assignment walks the mesh axes in some order, minor last. Walking the flat index from minor to
    // major, the device one step along each position names that position's axis by its mesh stride (distinct
    // for axes of size > 1): the order is found, not searched for.
    std::vector<int> order;  // minor first while building
    std::uint32_t used = 0;
    if (total > 1 && tiling.devices[0] != 0)
        return textError(
            text, "the device order matches no assignment of mesh axes (it does not start at device 0)");
    for (std::int64_t step = 1; step < total;) {
        const std::int64_t device = tiling.devices[static_cast<std::size_t>(step)];
        int found = -1;
        for (int a = 0; a < axisCount; ++a)
            if (mesh.axes[static_cast<std::size_t>(a)].size > 1 && !((used >> a) & 1u) &&
                meshStride[static_cast<std::size_t>(a)] == device)
                found = a;
        if (found < 0)
            return textError(text,
                             "the device order matches no assignment of mesh axes of " + mesh.toString());
        order.push_back(found);
        used |= 1u << found;
        step *= mesh.axes[static_cast<std::size_t>(found)].size;
    }
    std::reverse(order.begin(), order.end());
    // Verify the whole device list against the order's walk of the mesh.
    std::vector<std::int64_t> index(order.size(), 0);
    for (std::int64_t n = 0; n < total; ++n) {
        std::int64_t device = 0;
        for (std::size_t i = 0; i < order.size(); ++i)
            device += index[i] * meshStride[static_cast<std::size_t>(order[i])];
        if (tiling.devices[static_cast<std::size_t>(n)] != device)
            return textError(text,
                             "the device order matches no assignment of mesh axes of " + mesh.toString());
        for (std::size_t i = order.size(); i-- > 0;) {
            if (++index[i] < mesh.axes[static_cast<std::size_t>(order[i])].size)
                break;
            index[i] = 0;
        }
    }
    // Cut the order into dimensions by their tile counts; what is left is the replication.
    std::size_t next = 0;
    for (int d = 0; d < rank; ++d) {
        std::int64_t covered = 1;
        const std::int64_t want = tiling.tiles[static_cast<std::size_t>(d)];
        while (covered < want && next < order.size()) {
            covered *= mesh.axes[static_cast<std::size_t>(order[next])].size;
            sharding.dimensions[static_cast<std::size_t>(d)].push(order[next]);
            ++next;
        }
        if (covered != want)
            return textError(text, "tile count " + std::to_string(want) + " of dimension " +
                                       std::to_string(d) + " matches no run of axes of " + mesh.toString());
    }
    return sharding;
}

Result<ShardyAnnotation> parseShardySharding(std::string_view text) {
    Reader r(text);
    r.consume("#sdy.sharding");
    if (!r.consume("<"))
        return textError(text, "expected '<'");
    if (r.consume("mesh<"))
        return textError(text, "inline meshes are not supported");
    if (!r.consume("@"))
        return textError(text, "expected '@mesh'");
    ShardyAnnotation annotation;
    annotation.mesh = r.identifier();
    if (annotation.mesh.empty() || !r.consume(",") || !r.consume("["))
        return textError(text, "expected '@mesh, ['");
    if (!r.consume("]")) {
        do {
            if (!r.consume("{"))
                return textError(text, "expected '{' opening a dimension");
            annotation.dimensions.emplace_back();
            if (!r.consume("}")) {
                do {
                    if (r.consume("?"))
                        break;
                    auto axis = r.quoted();
                    if (!axis)
                        return textError(text, "expected a quoted axis name");
                    if (r.peek() == ':')
                        return textError(text, "sub-axes ('\"" + *axis + "\":(..)') are not supported");
                    annotation.dimensions.back().push_back(*axis);
                } while (r.consume(","));
                r.consume("?");
                if (!r.consume("}"))
                    return textError(text, "expected '}' closing a dimension");
            }
            if (r.peek() == 'p') {
                r.consume("p");
                if (!r.integer())
                    return textError(text, "expected a priority after 'p'");
            }
        } while (r.consume(","));
        if (!r.consume("]"))
            return textError(text, "expected ']' after the dimensions");
    }
    // replicated={...} and unreduced={...} name axes that leave the dimensions alone: nothing to read.
    return annotation;
}

Result<plan::TensorSharding> shardyOnMesh(std::string_view text, int rank,
                                          const std::vector<ir::MeshDeclaration>& declared,
                                          const mesh::Mesh& mesh) {
    auto parsed = parseShardySharding(text);
    if (!parsed)
        return Result<plan::TensorSharding>::failure(parsed.diagnostics());
    const auto source = std::find_if(declared.begin(), declared.end(),
                                     [&](const ir::MeshDeclaration& m) { return m.name == parsed->mesh; });
    if (source == declared.end())
        return textError(text, "the model declares no mesh @" + parsed->mesh);
    if (static_cast<int>(parsed->dimensions.size()) != rank)
        return textError(text, std::to_string(parsed->dimensions.size()) +
                                   " dimensions for a tensor of rank " + std::to_string(rank));
    plan::TensorSharding sharding;
    sharding.dimensions.resize(parsed->dimensions.size());
    std::uint32_t used = 0;
    for (std::size_t d = 0; d < parsed->dimensions.size(); ++d) {
        for (const std::string& name : parsed->dimensions[d]) {
            const auto axis = std::find_if(source->axes.begin(), source->axes.end(),
                                           [&](const auto& a) { return a.first == name; });
            if (axis == source->axes.end())
                return textError(text, "mesh @" + source->name + " has no axis '" + name + "'");
            if (axis->second == 1)
                continue;
            const auto index = mesh.axisIndex(name);
            if (!index)
                return textError(text, "the mesh " + mesh.toString() + " has no axis '" + name + "'");
            const std::int64_t size = mesh.axes[static_cast<std::size_t>(*index)].size;
            if (size != axis->second)
                return textError(text, "axis '" + name + "' has size " + std::to_string(axis->second) +
                                           " in @" + source->name + " but " + std::to_string(size) + " in " +
                                           mesh.toString());
            if ((used >> *index) & 1u)
                return textError(text, "axis '" + name + "' is used twice");
            used |= 1u << *index;
            sharding.dimensions[d].push(*index);
        }
    }
    return sharding;
}

Result<plan::TensorSharding> annotationOnMesh(const ir::ShardingAnnotation& annotation, int rank,
                                              const std::vector<ir::MeshDeclaration>& declared,
                                              const mesh::Mesh& mesh) {
    if (annotation.format == ir::ShardingAnnotation::Format::Gspmd)
        return gspmdOnMesh(annotation.text, rank, mesh);
    return shardyOnMesh(annotation.text, rank, declared, mesh);
}

std::vector<AnnotatedTensor> annotatedTensors(const ir::Graph& graph, const mesh::Mesh& mesh,
                                              std::vector<Diagnostic>& warnings) {
    std::vector<AnnotatedTensor> tensors;
    auto add = [&](ir::ValueId value, std::string label, const ir::ShardingAnnotation& annotation,
                   const SourceLocation& location) {
        auto sharding = annotationOnMesh(annotation, graph.type(value).rank(), graph.meshes, mesh);
        if (!sharding) {
            const auto& d = sharding.diagnostics().front();
            warnings.push_back(makeWarning(kUnexpressible, label + ": " + d.message, location));
            return;
        }
        tensors.push_back({value, std::move(label), std::move(*sharding)});
    };
    auto named = [](const std::string& label, const std::string& name) {
        return name.empty() ? label : label + " (" + name + ")";
    };
    for (std::size_t i = 0; i < graph.arguments.size(); ++i) {
        const auto& argument = graph.arguments[i];
        if (argument.sharding)
            add(argument.value, named("argument " + std::to_string(i), argument.name), *argument.sharding,
                argument.location);
    }
    for (std::size_t i = 0; i < graph.outputs.size(); ++i) {
        const auto& output = graph.outputs[i];
        if (output.sharding)
            add(output.value, named("result " + std::to_string(i), output.name), *output.sharding, {});
    }
    for (const ir::OpId id : graph.body) {
        const ir::Op& op = graph.op(id);
        if (!op.sharding)
            continue;
        const std::string label = named("op " + std::to_string(id.index), op.location.name);
        if (auto items = perResult(*op.sharding)) {
            if (items->size() != op.results.size()) {
                warnings.push_back(makeWarning(kUnexpressible,
                                               label + ": sharding '" + op.sharding->text + "' has " +
                                                   std::to_string(items->size()) + " parts for " +
                                                   std::to_string(op.results.size()) + " results",
                                               op.location));
                continue;
            }
            for (std::size_t r = 0; r < items->size(); ++r)
                add(op.results[r], label + " result " + std::to_string(r), (*items)[r], op.location);
        } else if (op.results.size() == 1) {
            add(op.results[0], label, *op.sharding, op.location);
        } else {
            warnings.push_back(makeWarning(kUnexpressible,
                                           label + ": one sharding '" + op.sharding->text + "' for " +
                                               std::to_string(op.results.size()) + " results",
                                           op.location));
        }
    }
    return tensors;
}

Result<plan::Plan> referencePlan(const ir::Graph& graph, const analysis::DecisionSpace& space,
                                 const mesh::Mesh& mesh) {
    std::vector<Diagnostic> warnings;
    const std::vector<AnnotatedTensor> tensors = annotatedTensors(graph, mesh, warnings);
    auto warn = [&](std::string message) {
        warnings.push_back(makeWarning(kUnexpressible, std::move(message)));
    };

    std::map<std::uint32_t, Demand> demands;  // by NameId index
    for (const AnnotatedTensor& tensor : tensors) {
        if (tensor.value.index >= space.dimensionAtoms.size())
            continue;
        for (std::size_t d = 0; d < tensor.sharding.dimensions.size(); ++d) {
            const plan::AxisList& axes = tensor.sharding.dimensions[d];
            if (axes.empty())
                continue;
            const std::string where = tensor.label + " dimension " + std::to_string(d);
            const auto names = space.namesOf(tensor.value, static_cast<int>(d));
            if (names.empty()) {
                warn(where + " has no name to shard (it is of size 1 or unknown to the analysis)");
                continue;
            }
            // The axes tile the dimension major first (Shardy's semantics): they go to its names major to
            // minor, each name taking axes while they divide what is left of it, and the next name only once
            // it is full.
            const auto& atoms = space.dimensionAtoms[tensor.value.index][d];
            std::vector<std::pair<analysis::NameId, plan::AxisList>> parts;
            std::size_t atom = 0;
            std::int64_t left = atoms.empty() ? 1 : space.atom(atoms[0]).size;
            bool fits = true;
            for (int i = 0; i < axes.size() && fits; ++i) {
                const std::int64_t size = mesh.axes[static_cast<std::size_t>(axes[i])].size;
                while (atom < atoms.size() && left == 1 && ++atom < atoms.size())
                    left = space.atom(atoms[atom]).size;
                if (atom >= atoms.size() || left % size != 0 || !space.atom(atoms[atom]).name.valid()) {
                    fits = false;
                    break;
                }
                const analysis::NameId name = space.atom(atoms[atom]).name;
                if (parts.empty() || parts.back().first != name)
                    parts.push_back({name, {}});
                parts.back().second.push(axes[i]);
                left /= size;
            }
            if (!fits) {
                const analysis::NameId major = names.front();
                warn(where + ": its names split (the axes " + plan::TensorSharding{{axes}}.toString(mesh) +
                     " do not tile its names major to minor, starting with '" + space.name(major).label +
                     "')");
                continue;
            }
            for (const auto& [name, nameAxes] : parts) {
                // The tensor's dimensions carrying the name, in order: the resolution picks among them.
                int resolution = 0, carrying = 0;
                const auto& dims = space.dimensionAtoms[tensor.value.index];
                for (std::size_t other = 0; other < dims.size(); ++other) {
                    const bool carries =
                        std::any_of(dims[other].begin(), dims[other].end(),
                                    [&, n = name](analysis::AtomId x) { return space.atom(x).name == n; });
                    if (!carries)
                        continue;
                    if (other == d)
                        resolution = carrying;
                    ++carrying;
                }
                auto [it, inserted] = demands.try_emplace(name.index, Demand{nameAxes, where, resolution});
                // A tensor where the name lost some of its axes to another name (a competition the order of
                // the decisions reproduces) asks for fewer of them: the name carries the most any tensor
                // gives it.
                if (!inserted && (carrying <= 1 || it->second.resolution == resolution)) {
                    if (subsequence(it->second.axes, nameAxes))
                        it->second = Demand{nameAxes, where, resolution};
                    if (subsequence(nameAxes, it->second.axes))
                        continue;
                }
                if (!inserted &&
                    (it->second.axes != nameAxes || (carrying > 1 && it->second.resolution != resolution)))
                    warn(where + " shards name '" + space.name(name).label + "' as " +
                         plan::TensorSharding{{nameAxes}}.toString(mesh) + ", but " + it->second.from +
                         " already as " + plan::TensorSharding{{it->second.axes}}.toString(mesh) +
                         " (the first is kept)");
            }
        }
    }

    const plan::PlanContext context(graph, space);
    const std::vector<std::uint32_t> order = decisionOrder(space, tensors, demands, context.batchGroup());
    plan::Plan plan;
    plan.label = "reference";
    for (const std::uint32_t name : order) {
        const Demand& demand = demands.at(name);
        for (int i = 0; i < demand.axes.size(); ++i)
            plan.decisions.push_back(
                {plan::Decision::Target::Name, name, demand.axes[i], plan::kAllTensorClasses});
        if (demand.resolution > 0)
            plan.resolutions.push_back({analysis::NameId(name), demand.resolution});
    }

    // Check: the plan gives every annotated tensor back its sharding, or says where it does not.
    const plan::AppliedPlan applied = plan::applyPlan(context, mesh, plan);
    for (const AnnotatedTensor& tensor : tensors) {
        if (tensor.value.index >= space.dimensionAtoms.size())
            continue;
        const plan::TensorSharding got = applied.sharding(space, tensor.value);
        if (got != tensor.sharding)
            warn(tensor.label + " is annotated " + tensor.sharding.toString(mesh) +
                 " but the reference plan gives " + got.toString(mesh));
    }
    Result<plan::Plan> result(std::move(plan));
    result.addDiagnostics(warnings);
    return result;
}

}  // namespace shardscope::plan
