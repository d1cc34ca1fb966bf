// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "manual_computation.h"

#include "shardscope/ir/shape_inference.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace shardscope::import {
namespace {

using namespace ir;

constexpr const char* kCode = "stablehlo.manual-computation";

// Thrown inside the globalizer only; globalProgram turns it into a Diagnostic.
struct Refusal {
    std::string message;
    SourceLocation location;
};

// `<@mesh, [{"x", "y"}, {}, {"z", ?}], replicated={"w"}>` (with or without `#sdy.sharding`) read into its
// mesh and the axes of each dimension. Open dimensions and priorities are dropped; sub-axes and unreduced
// axes are refused (`why`).
struct ShardingText {
    std::string mesh;
    std::vector<std::vector<std::string>> dimensions;
};

// The quoted names of `text`, in order; a quoted name followed by ':' is a sub-axis (refused by the caller).
std::vector<std::string> quotedNames(std::string_view text, bool& subAxis) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '"')
            continue;
        const std::size_t end = text.find('"', i + 1);
        if (end == std::string_view::npos)
            break;
        names.emplace_back(text.substr(i + 1, end - i - 1));
        std::size_t after = end + 1;
        while (after < text.size() && text[after] == ' ')
            ++after;
        if (after < text.size() && text[after] == ':')
            subAxis = true;
        i = end;
    }
    return names;
}

std::optional<ShardingText> parseSharding(std::string_view text, std::string& why) {
    const std::size_t at = text.find('@');
    if (at == std::string_view::npos) {
        why = "a sharding without a mesh ('" + std::string(text) + "')";
        return std::nullopt;
    }
    ShardingText out;
    std::size_t i = at + 1;
    while (i < text.size() && text[i] != ',' && text[i] != '>' && text[i] != ' ')
        out.mesh += text[i++];
    const std::size_t open = text.find('[', i);
    if (open == std::string_view::npos) {
        why = "a sharding without dimensions ('" + std::string(text) + "')";
        return std::nullopt;
    }
    std::size_t close = open + 1;
    int depth = 1;
    for (; close < text.size() && depth > 0; ++close) {
        if (text[close] == '[')
            ++depth;
        if (text[close] == ']')
            --depth;
    }
    const std::string_view dims = text.substr(open + 1, close - open - 2);
    for (std::size_t k = 0; k < dims.size(); ++k) {
        if (dims[k] != '{')
            continue;
        const std::size_t end = dims.find('}', k);
        if (end == std::string_view::npos)
            break;
        bool subAxis = false;
        out.dimensions.push_back(quotedNames(dims.substr(k + 1, end - k - 1), subAxis));
        if (subAxis) {
            why = "sub-axes are not supported ('" + std::string(text) + "')";
            return std::nullopt;
        }
        k = end;
    }
    if (text.find("unreduced", close) != std::string_view::npos) {
        why = "unreduced axes are not supported ('" + std::string(text) + "')";
        return std::nullopt;
    }
    return out;
}

// The per-value texts of `#sdy.sharding_per_value<[<...>, <...>]>`, or the one text of `#sdy.sharding<...>`.
std::vector<std::string> perValue(const std::string& text) {
    constexpr std::string_view prefix = "#sdy.sharding_per_value<";
    if (text.rfind(prefix, 0) != 0)
        return {text};
    std::vector<std::string> items;
    int depth = 0;
    std::size_t start = std::string::npos;
    for (std::size_t i = prefix.size(); i < text.size(); ++i) {
        const char c = text[i];
        if (c == '<') {
            if (depth++ == 0)
                start = i;
        } else if (c == '>' && depth > 0 && --depth == 0) {
            items.push_back(text.substr(start, i - start + 1));
        }
    }
    return items;
}

std::string opName(const Op& op) {
    if (const auto* o = std::get_if<OpaqueAttributes>(&op.attributes); o && !o->name.empty())
        return o->name;
    if (const auto* c = std::get_if<CustomCallAttributes>(&op.attributes))
        return "custom_call @" + c->target;
    return "stablehlo." + std::string(mnemonic(op.kind));
}

bool isStablehloCollective(OpKind kind) {
    return category(kind) == OpCategory::Collective;
}

class Globalizer {
public:
    Globalizer(Graph& graph, const ManualComputation& mc,
               const std::map<std::uint32_t, ShardyCollective>& shardy)
        : g_(graph), mc_(mc), shardy_(shardy) {}

    GlobalProgram run() {
        readBoundary();
        // The rules below read the ops' attributes against their operands' shapes: each op must be well
        // formed.
        for (OpId id : mc_.body.ops) {
            const Op& op = g_.op(id);
            current_ = &op;
            std::vector<TensorType> declared;
            for (ValueId r : op.results)
                declared.push_back(g_.type(r));
            auto inferred = inferResultTypes(g_, op, declared);
            if (!inferred)
                refuse("is malformed: " + inferred.errorMessage());
            if (*inferred != declared)
                refuse("declares result types its operands do not give");
        }
        current_ = nullptr;
        // Fixpoint: unifications may settle a dimension after an op that read it; the last pass is strict.
        for (int pass = 0; pass < 8; ++pass) {
            changed_ = false;
            sweep();
            if (!changed_)
                break;
        }
        strict_ = true;
        sweep();
        for (auto& [value, dims] : dimsOf_)
            checkAxesOnce(ValueId{value});
        return emit();
    }

private:
    struct Var {
        int parent = 0;
        bool fixed = false;
        std::vector<int> axes;  // manual axes (mesh indices), major to minor
    };
    struct Partial {
        std::uint32_t mask = 0;  // manual axes over which the value holds unreduced results
        Reducer reducer = Reducer::Add;
    };

    Graph& g_;
    const ManualComputation& mc_;
    const std::map<std::uint32_t, ShardyCollective>& shardy_;
    const MeshDeclaration* mesh_ = nullptr;
    std::uint32_t manual_ = 0;                            // manual axes of more than one device
    std::vector<std::vector<std::vector<int>>> outAxes_;  // per result, per dimension
    std::vector<Var> vars_;
    std::unordered_map<std::uint32_t, std::vector<int>> dimsOf_;
    std::unordered_map<std::uint32_t, Partial> partial_;
    bool changed_ = false, strict_ = false;
    const Op* current_ = nullptr;

    // ----- messages
    // ------------------------------------------------------------------------------------------
    [[noreturn]] void refuse(const std::string& why) const {
        std::string message = "sdy.manual_computation has no global program: ";
        if (current_) {
            const auto it = shardy_.find(static_cast<std::uint32_t>(current_ - g_.ops.data()));
            message += "'" + (it != shardy_.end() ? it->second.op : opName(*current_)) + "' ";
        }
        message += why;
        throw Refusal{message, current_ ? current_->location : mc_.location};
    }
    [[noreturn]] void refuseAtBoundary(const std::string& why) const {
        throw Refusal{"sdy.manual_computation has no global program: " + why, mc_.location};
    }
    std::string axesText(const std::vector<int>& axes) const {
        std::string out = "{";
        for (std::size_t i = 0; i < axes.size(); ++i)
            out += (i ? ", \"" : "\"") + mesh_->axes[static_cast<std::size_t>(axes[i])].first + "\"";
        return out + "}";
    }
    std::string maskText(std::uint32_t mask) const {
        std::vector<int> axes;
        for (std::size_t a = 0; a < mesh_->axes.size(); ++a)
            if ((mask >> a) & 1u)
                axes.push_back(static_cast<int>(a));
        return axesText(axes);
    }
    static std::string described(const std::vector<int>& axes, const std::string& text) {
        return axes.empty() ? "a whole dimension" : "a dimension split over " + text;
    }

    // ----- the boundary
    // --------------------------------------------------------------------------------------
    std::optional<int> axisIndex(const std::string& name) const {
        for (std::size_t a = 0; a < mesh_->axes.size(); ++a)
            if (mesh_->axes[a].first == name)
                return static_cast<int>(a);
        return std::nullopt;
    }
    // The manual axes (of more than one device) among `names`, in order.
    std::vector<int> manualOf(const std::vector<std::string>& names) const {
        std::vector<int> out;
        for (const auto& n : names) {
            const auto a = axisIndex(n);
            if (!a)
                refuse("names axis \"" + n + "\", which mesh @" + mesh_->name + " does not have");
            if ((manual_ >> *a) & 1u)
                out.push_back(*a);
        }
        return out;
    }
    std::vector<std::vector<int>> boundary(const std::string& text, int rank, const std::string& what) {
        std::string why;
        auto parsed = parseSharding(text, why);
        if (!parsed)
            refuseAtBoundary(what + ": " + why);
        if (static_cast<int>(parsed->dimensions.size()) != rank)
            refuseAtBoundary(what + " has " + std::to_string(parsed->dimensions.size()) +
                             " dimensions for a tensor of rank " + std::to_string(rank));
        std::vector<std::vector<int>> out;
        for (const auto& d : parsed->dimensions)
            out.push_back(manualOf(d));
        return out;
    }

    void readBoundary() {
        if (mc_.inShardings.size() != mc_.operands.size() ||
            mc_.outShardings.size() != mc_.resultTypes.size())
            refuseAtBoundary(std::to_string(mc_.inShardings.size()) + " in_shardings for " +
                             std::to_string(mc_.operands.size()) + " operands and " +
                             std::to_string(mc_.outShardings.size()) + " out_shardings for " +
                             std::to_string(mc_.resultTypes.size()) + " results");
        if (mc_.body.arguments.size() != mc_.operands.size() ||
            mc_.body.results.size() != mc_.resultTypes.size())
            refuseAtBoundary("its body takes " + std::to_string(mc_.body.arguments.size()) +
                             " arguments and returns " + std::to_string(mc_.body.results.size()) +
                             " values, for " + std::to_string(mc_.operands.size()) + " operands and " +
                             std::to_string(mc_.resultTypes.size()) + " results");
        std::string meshName;
        std::string why;
        for (const auto* list : {&mc_.inShardings, &mc_.outShardings})
            for (const auto& s : *list)
                if (auto parsed = parseSharding(s, why); parsed && meshName.empty())
                    meshName = parsed->mesh;
        for (const auto& m : g_.meshes)
            if (m.name == meshName || (meshName.empty() && g_.meshes.size() == 1))
                mesh_ = &m;
        if (!mesh_) {
            if (!meshName.empty())
                refuseAtBoundary("the module declares no mesh @" + meshName);
            static const MeshDeclaration none;
            mesh_ = &none;
        }
        for (const auto& name : mc_.manualAxes) {
            const auto a = axisIndex(name);
            if (!a)
                refuseAtBoundary("manual axis \"" + name + "\" is not an axis of mesh @" + mesh_->name);
            if (mesh_->axes[static_cast<std::size_t>(*a)].second > 1)
                manual_ |= 1u << *a;
        }
        for (std::size_t i = 0; i < mc_.operands.size(); ++i) {
            const ValueId arg = mc_.body.arguments[i];
            const auto axes =
                boundary(mc_.inShardings[i], g_.type(arg).rank(), "in_sharding " + std::to_string(i));
            auto& vars = dims(arg);
            for (std::size_t d = 0; d < axes.size(); ++d)
                fix(vars[d], axes[d]);
        }
        for (std::size_t i = 0; i < mc_.resultTypes.size(); ++i)
            outAxes_.push_back(boundary(mc_.outShardings[i], mc_.resultTypes[i].rank(),
                                        "out_sharding " + std::to_string(i)));
    }

    // ----- dimensions
    // ----------------------------------------------------------------------------------------
    int find(int v) {
        while (vars_[static_cast<std::size_t>(v)].parent != v) {
            auto& var = vars_[static_cast<std::size_t>(v)];
            var.parent = vars_[static_cast<std::size_t>(var.parent)].parent;
            v = var.parent;
        }
        return v;
    }
    const Var& root(int v) { return vars_[static_cast<std::size_t>(find(v))]; }
    std::vector<int>& dims(ValueId v) {
        auto [it, inserted] = dimsOf_.try_emplace(v.index);
        if (inserted)
            for (int d = 0; d < g_.type(v).rank(); ++d) {
                const int id = static_cast<int>(vars_.size());
                vars_.push_back({id, false, {}});
                it->second.push_back(id);
            }
        return it->second;
    }
    int var(ValueId v, std::int64_t d) {
        auto& list = dims(v);
        if (d < 0 || d >= static_cast<std::int64_t>(list.size()))
            refuse("names dimension " + std::to_string(d) + " of a tensor of rank " +
                   std::to_string(list.size()));
        return list[static_cast<std::size_t>(d)];
    }
    // The axes of dimension `d` of `v`, or nullopt while nothing fixes them.
    std::optional<std::vector<int>> axesOf(ValueId v, std::int64_t d) {
        const Var& r = root(var(v, d));
        if (!r.fixed)
            return std::nullopt;
        return r.axes;
    }
    std::vector<int> settled(ValueId v, std::int64_t d) { return axesOf(v, d).value_or(std::vector<int>{}); }

    void unify(int a, int b) {
        const int ra = find(a), rb = find(b);
        if (ra == rb)
            return;
        Var& x = vars_[static_cast<std::size_t>(ra)];
        Var& y = vars_[static_cast<std::size_t>(rb)];
        if (x.fixed && y.fixed && x.axes != y.axes)
            refuse(
                "puts " + described(x.axes, axesText(x.axes)) + " against " +
                described(y.axes, axesText(y.axes)) +
                ": every device would combine its own piece with the same values, which no global op says");
        if (x.fixed)
            y.parent = ra;
        else
            x.parent = rb;
        changed_ = true;
    }
    void fix(int v, const std::vector<int>& axes) {
        Var& r = vars_[static_cast<std::size_t>(find(v))];
        if (!r.fixed) {
            r.fixed = true;
            r.axes = axes;
            changed_ = true;
            return;
        }
        if (r.axes != axes)
            refuse("needs " + described(axes, axesText(axes)) + " where the body has " +
                   described(r.axes, axesText(r.axes)));
    }
    void same(ValueId a, std::int64_t da, ValueId b, std::int64_t db) { unify(var(a, da), var(b, db)); }
    void whole(ValueId v, std::int64_t d) { fix(var(v, d), {}); }
    void sameShape(ValueId a, ValueId b) {
        const int rank = std::min(g_.type(a).rank(), g_.type(b).rank());
        for (int d = 0; d < rank; ++d)
            same(a, d, b, d);
    }

    // ----- partial results
    // -----------------------------------------------------------------------------------
    Partial partial(ValueId v) const {
        auto it = partial_.find(v.index);
        return it == partial_.end() ? Partial{} : it->second;
    }
    void setPartial(ValueId v, Partial p) {
        if (p.mask)
            partial_[v.index] = p;
        else
            partial_.erase(v.index);
    }
    void notPartial(ValueId v) const {
        if (!strict_)
            return;
        if (const Partial p = partial(v); p.mask)
            refuse("reads partial results over " + maskText(p.mask) +
                   " before they are reduced: the global op would see the whole sum");
    }
    std::uint32_t maskOf(const std::vector<int>& axes) const {
        std::uint32_t m = 0;
        for (int a : axes)
            m |= 1u << a;
        return m;
    }

    // ----- the ops
    // -------------------------------------------------------------------------------------------
    void sweep() {
        partial_.clear();
        for (OpId id : mc_.body.ops)
            apply(g_.op(id));
        current_ = nullptr;
        for (std::size_t i = 0; i < mc_.body.results.size(); ++i) {
            const ValueId r = mc_.body.results[i];
            if (g_.type(r).rank() != static_cast<int>(outAxes_[i].size()))
                refuseAtBoundary("result " + std::to_string(i) + " has rank " +
                                 std::to_string(g_.type(r).rank()) + " but its out_sharding " +
                                 std::to_string(outAxes_[i].size()));
            for (std::size_t d = 0; d < outAxes_[i].size(); ++d) {
                const Var& have = root(var(r, static_cast<std::int64_t>(d)));
                if (have.fixed && have.axes != outAxes_[i][d])
                    refuseAtBoundary("result " + std::to_string(i) + " dimension " + std::to_string(d) +
                                     " is " + described(have.axes, axesText(have.axes)) +
                                     " in the body but its out_sharding says " +
                                     described(outAxes_[i][d], axesText(outAxes_[i][d])));
                fix(var(r, static_cast<std::int64_t>(d)), outAxes_[i][d]);
            }
            if (const Partial p = partial(r); strict_ && p.mask)
                refuseAtBoundary("result " + std::to_string(i) + " holds partial results over " +
                                 maskText(p.mask) + " that no collective reduces");
        }
    }

    static bool hasCollective(const Graph& g, const std::vector<Region>& regions) {
        for (const auto& r : regions)
            for (OpId id : r.ops) {
                const Op& op = g.op(id);
                if (isStablehloCollective(op.kind) || hasCollective(g, op.regions))
                    return true;
            }
        return false;
    }

    void allWhole(const Op& op) {
        for (ValueId v : op.operands) {
            for (int d = 0; d < g_.type(v).rank(); ++d)
                whole(v, d);
            notPartial(v);
        }
        for (ValueId v : op.results)
            for (int d = 0; d < g_.type(v).rank(); ++d)
                whole(v, d);
    }

    void apply(const Op& op) {
        current_ = &op;
        for (ValueId r : op.results)
            dims(r);
        if (hasCollective(g_, op.regions))
            refuse("has a collective inside its regions");
        if (const auto* o = std::get_if<OpaqueAttributes>(&op.attributes);
            o && (o->name.find("partition_id") != std::string::npos ||
                  o->name.find("replica_id") != std::string::npos ||
                  o->name.find("axis_index") != std::string::npos))
            refuse("reads the device's own index, so the program differs from device to device");
        if (isElementwise(op.kind))
            return elementwise(op);
        switch (op.kind) {
            case OpKind::BroadcastInDim:
                return broadcast(op);
            case OpKind::Reshape:
                return reshape(op);
            case OpKind::Transpose: {
                const auto& perm = std::get<Permutation>(op.attributes).permutation;
                for (std::size_t i = 0; i < perm.size(); ++i)
                    same(op.results[0], static_cast<std::int64_t>(i), op.operands[0], perm[i]);
                return setPartial(op.results[0], partial(op.operands[0]));
            }
            case OpKind::DotGeneral:
                return dot(op);
            case OpKind::Convolution:
                return convolution(op);
            case OpKind::Reduce:
                return reduce(op);
            case OpKind::Slice:
                return slice(op);
            case OpKind::Pad:
                return pad(op);
            case OpKind::Concatenate:
                return concatenate(op);
            case OpKind::Reverse: {
                const auto& reversed = std::get<DimensionsAttribute>(op.attributes).dimensions;
                for (int d = 0; d < g_.type(op.operands[0]).rank(); ++d) {
                    if (std::find(reversed.begin(), reversed.end(), d) != reversed.end()) {
                        whole(op.operands[0], d);
                        whole(op.results[0], d);
                    } else {
                        same(op.operands[0], d, op.results[0], d);
                    }
                }
                return notPartial(op.operands[0]);
            }
            case OpKind::Iota:
                return whole(op.results[0], std::get<DimensionAttribute>(op.attributes).dimension);
            case OpKind::Constant: {
                const auto* c = std::get_if<ConstantAttributes>(&op.attributes);
                if (c && c->values.size() == 1)
                    return;  // a splat: the same everywhere, any sharding
                return allWhole(op);
            }
            case OpKind::DynamicSlice:
                return dynamicSlice(op);
            case OpKind::OptimizationBarrier:
                for (std::size_t i = 0; i < op.operands.size() && i < op.results.size(); ++i) {
                    sameShape(op.operands[i], op.results[i]);
                    setPartial(op.results[i], partial(op.operands[i]));
                }
                return;
            case OpKind::ReduceWindow:
                return reduceWindow(op);
            case OpKind::Sort: {
                const std::int64_t d = std::get<SortAttributes>(op.attributes).dimension;
                for (ValueId v : op.operands)
                    notPartial(v);
                for (const auto* list : {&op.operands, &op.results})
                    for (ValueId v : *list) {
                        const int rank = g_.type(v).rank();
                        const std::int64_t sorted = d < 0 ? d + rank : d;
                        for (int k = 0; k < rank; ++k) {
                            if (k == sorted)
                                whole(v, k);
                            else
                                same(v, k, op.operands[0], k);
                        }
                    }
                return;
            }
            case OpKind::CustomCall:
                return customCall(op);
            case OpKind::AllReduce:
            case OpKind::AllGather:
            case OpKind::ReduceScatter:
            case OpKind::AllToAll:
                return collective(op, op.kind, groupAxes(op));
            case OpKind::CollectivePermute:
                refuse("moves pieces between devices (a ring or halo step), which no global op says");
            default:
                return allWhole(op);
        }
    }

    void elementwise(const Op& op) {
        const ValueId result = op.results.front();
        const int rank = g_.type(result).rank();
        for (ValueId o : op.operands)
            if (g_.type(o).rank() == rank)
                sameShape(o, result);
        if (op.kind == OpKind::BitcastConvert)
            return notPartial(op.operands[0]);
        std::vector<Partial> in;
        for (ValueId o : op.operands)
            in.push_back(partial(o));
        const auto isPartial = [](const Partial& p) { return p.mask != 0; };
        const auto count = std::count_if(in.begin(), in.end(), isPartial);
        if (count == 0)
            return;
        const Partial first = *std::find_if(in.begin(), in.end(), isPartial);
        const bool alike = std::all_of(in.begin(), in.end(), [&](const Partial& p) {
            return p.mask == first.mask && p.reducer == first.reducer;
        });
        const bool sum = first.reducer == Reducer::Add;
        bool linear = false;
        switch (op.kind) {
            case OpKind::Convert:
                linear = sum || first.reducer == Reducer::Maximum || first.reducer == Reducer::Minimum;
                break;
            case OpKind::Negate:
            case OpKind::Real:
            case OpKind::Imag:
                linear = sum;
                break;
            case OpKind::Add:
            case OpKind::Subtract:
            case OpKind::Complex:
                linear = sum && alike;
                break;
            case OpKind::Maximum:
                linear = first.reducer == Reducer::Maximum && alike;
                break;
            case OpKind::Minimum:
                linear = first.reducer == Reducer::Minimum && alike;
                break;
            case OpKind::Multiply:
                linear = sum && count == 1;
                break;
            case OpKind::Divide:
                linear = sum && count == 1 && isPartial(in[0]);
                break;
            case OpKind::Select:
                linear = !isPartial(in[0]) && in[1].mask == in[2].mask && in[1].reducer == in[2].reducer;
                break;
            default:
                break;
        }
        if (!linear) {
            if (strict_)
                refuse("combines partial results over " + maskText(first.mask) +
                       " before they are reduced in a way the global op does not (it is not linear in them)");
            return;
        }
        setPartial(result, first);
    }

    void broadcast(const Op& op) {
        const ValueId in = op.operands[0], out = op.results[0];
        const auto& map = std::get<BroadcastDimensions>(op.attributes).dims;
        for (std::size_t i = 0; i < map.size(); ++i) {
            if (g_.type(in).shape[i] == g_.type(out).shape[static_cast<std::size_t>(map[i])])
                same(in, static_cast<std::int64_t>(i), out, map[i]);
            else
                whole(in, static_cast<std::int64_t>(i));  // expanded: the result is the same all along
        }
        setPartial(out, partial(in));
    }

    // Groups of dimensions whose sizes multiply alike; in each, the major dimensions correspond (a split or a
    // merge keeps each device's piece contiguous only there) and the others stay whole. A dimension of local
    // size 1 takes part only when it is sharded.
    void reshape(const Op& op) {
        const ValueId in = op.operands[0], out = op.results[0];
        const Shape& a = g_.type(in).shape;
        const Shape& b = g_.type(out).shape;
        auto significant = [&](ValueId v, const Shape& s) {
            std::vector<std::int64_t> kept;
            for (std::size_t d = 0; d < s.size(); ++d) {
                const auto axes = axesOf(v, static_cast<std::int64_t>(d));
                if (s[d] != 1 || (axes && !axes->empty()))
                    kept.push_back(static_cast<std::int64_t>(d));
                else
                    whole(v, static_cast<std::int64_t>(d));
            }
            return kept;
        };
        const auto I = significant(in, a), J = significant(out, b);
        std::size_t i = 0, j = 0;
        while (i < I.size() && j < J.size()) {
            const std::size_t gi = i, gj = j;
            std::int64_t pi = a[static_cast<std::size_t>(I[i])], pj = b[static_cast<std::size_t>(J[j])];
            while (pi != pj) {
                if (pi < pj) {
                    if (++i >= I.size())
                        refuse("reshapes sizes that do not correspond");
                    pi *= a[static_cast<std::size_t>(I[i])];
                } else {
                    if (++j >= J.size())
                        refuse("reshapes sizes that do not correspond");
                    pj *= b[static_cast<std::size_t>(J[j])];
                }
            }
            same(in, I[gi], out, J[gj]);
            for (std::size_t k = gi + 1; k <= i; ++k)
                whole(in, I[k]);
            for (std::size_t k = gj + 1; k <= j; ++k)
                whole(out, J[k]);
            ++i;
            ++j;
        }
        for (; i < I.size(); ++i)
            whole(in, I[i]);
        for (; j < J.size(); ++j)
            whole(out, J[j]);
        setPartial(out, partial(in));
    }

    // The partial result of a contraction over `contracted` (dimensions of `from`) with operands `operands`.
    Partial contraction(const std::vector<std::pair<ValueId, std::int64_t>>& contracted,
                        const std::vector<ValueId>& operands) {
        Partial p;
        int partialOperands = 0;
        for (ValueId o : operands)
            if (const Partial q = partial(o); q.mask) {
                ++partialOperands;
                p = q;
            }
        if (partialOperands > 1 || (p.mask && p.reducer != Reducer::Add)) {
            if (strict_)
                refuse(
                    "multiplies partial results by partial results: the global op would not sum the "
                    "products");
            return {};
        }
        std::uint32_t mask = 0;
        for (const auto& [v, d] : contracted)
            mask |= maskOf(settled(v, d));
        if (mask & p.mask) {
            if (strict_)
                refuse("contracts over " + maskText(mask & p.mask) +
                       " values that are already partial over it");
            return {};
        }
        return Partial{p.mask | mask, Reducer::Add};
    }

    void dot(const Op& op) {
        const auto& d = std::get<DotDimensions>(op.attributes);
        const ValueId lhs = op.operands[0], rhs = op.operands[1], out = op.results[0];
        std::int64_t r = 0;
        for (std::size_t i = 0; i < d.lhsBatching.size(); ++i) {
            same(lhs, d.lhsBatching[i], rhs, d.rhsBatching[i]);
            same(lhs, d.lhsBatching[i], out, r++);
        }
        std::vector<std::pair<ValueId, std::int64_t>> contracted;
        for (std::size_t i = 0; i < d.lhsContracting.size(); ++i) {
            same(lhs, d.lhsContracting[i], rhs, d.rhsContracting[i]);
            contracted.emplace_back(lhs, d.lhsContracting[i]);
        }
        auto free = [&](ValueId v, const Dims& batch, const Dims& contracting) {
            for (std::int64_t k = 0; k < g_.type(v).rank(); ++k)
                if (std::find(batch.begin(), batch.end(), k) == batch.end() &&
                    std::find(contracting.begin(), contracting.end(), k) == contracting.end())
                    same(v, k, out, r++);
        };
        free(lhs, d.lhsBatching, d.lhsContracting);
        free(rhs, d.rhsBatching, d.rhsContracting);
        setPartial(out, contraction(contracted, {lhs, rhs}));
    }

    void convolution(const Op& op) {
        const auto& c = std::get<ConvolutionAttributes>(op.attributes);
        if (c.batchGroupCount != 1)
            return allWhole(op);
        const ValueId in = op.operands[0], kernel = op.operands[1], out = op.results[0];
        same(in, c.inputBatch, out, c.outputBatch);
        for (auto d : c.inputSpatial)
            whole(in, d);
        for (auto d : c.kernelSpatial)
            whole(kernel, d);
        for (auto d : c.outputSpatial)
            whole(out, d);
        same(kernel, c.kernelOutputFeature, out, c.outputFeature);
        if (c.featureGroupCount == 1) {
            same(in, c.inputFeature, kernel, c.kernelInputFeature);
            return setPartial(out, contraction({{in, c.inputFeature}}, {in, kernel}));
        }
        // Grouped (depthwise): the groups split with the features, each group's kernel input stays whole.
        same(in, c.inputFeature, out, c.outputFeature);
        whole(kernel, c.kernelInputFeature);
        notPartial(in);
        notPartial(kernel);
    }

    void reduce(const Op& op) {
        const auto& r = std::get<ReduceAttributes>(op.attributes);
        const std::size_t n = op.operands.size() / 2;
        const bool known = n == 1 && r.reducer != Reducer::Other;
        std::uint32_t mask = 0;
        for (std::size_t k = 0; k < n; ++k) {
            const ValueId in = op.operands[k];
            if (k > 0)
                sameShape(in, op.operands[0]);
            std::int64_t kept = 0;
            for (std::int64_t d = 0; d < g_.type(in).rank(); ++d) {
                if (std::find(r.dimensions.begin(), r.dimensions.end(), d) == r.dimensions.end()) {
                    if (k < op.results.size())
                        same(in, d, op.results[k], kept);
                    ++kept;
                } else if (known) {
                    mask |= maskOf(settled(in, d));
                } else {
                    whole(in, d);
                }
            }
        }
        for (std::size_t k = n; k < op.operands.size(); ++k)
            notPartial(op.operands[k]);
        if (!known) {
            for (std::size_t k = 0; k < n; ++k)
                notPartial(op.operands[k]);
            return;
        }
        Partial p = partial(op.operands[0]);
        if (p.mask && p.reducer != r.reducer) {
            if (strict_)
                refuse("reduces partial results of another kind (" + maskText(p.mask) + ")");
            return;
        }
        setPartial(op.results[0], Partial{p.mask | mask, r.reducer});
    }

    // A dimension kept whole by the op (full slice, no padding, unit window) follows its operand; any other
    // stays whole on both sides.
    void keptOrWhole(ValueId in, ValueId out, std::int64_t d, bool kept) {
        if (kept) {
            same(in, d, out, d);
        } else {
            whole(in, d);
            whole(out, d);
        }
    }

    void slice(const Op& op) {
        const auto& s = std::get<SliceAttributes>(op.attributes);
        const Shape& shape = g_.type(op.operands[0]).shape;
        for (std::size_t d = 0; d < shape.size(); ++d) {
            const bool full =
                s.start[d] == 0 && s.limit[d] == shape[d] && (s.strides.empty() || s.strides[d] == 1);
            keptOrWhole(op.operands[0], op.results[0], static_cast<std::int64_t>(d), full);
        }
        setPartial(op.results[0], partial(op.operands[0]));
    }

    void pad(const Op& op) {
        const auto& p = std::get<PadAttributes>(op.attributes);
        for (std::size_t d = 0; d < p.low.size(); ++d) {
            const bool none = p.low[d] == 0 && p.high[d] == 0 && (p.interior.empty() || p.interior[d] == 0);
            keptOrWhole(op.operands[0], op.results[0], static_cast<std::int64_t>(d), none);
        }
        notPartial(op.operands[0]);
        notPartial(op.operands[1]);
    }

    void concatenate(const Op& op) {
        const std::int64_t dim = std::get<DimensionAttribute>(op.attributes).dimension;
        for (ValueId v : op.operands) {
            notPartial(v);
            for (std::int64_t d = 0; d < g_.type(v).rank(); ++d) {
                if (d == dim)
                    whole(v, d);
                else
                    same(v, d, op.results[0], d);
            }
        }
        whole(op.results[0], dim);
    }

    void dynamicSlice(const Op& op) {
        const auto& sizes = std::get<DynamicSliceAttributes>(op.attributes).sliceSizes;
        const Shape& shape = g_.type(op.operands[0]).shape;
        for (std::size_t d = 0; d < shape.size() && d < sizes.size(); ++d)
            keptOrWhole(op.operands[0], op.results[0], static_cast<std::int64_t>(d), sizes[d] == shape[d]);
        for (std::size_t k = 1; k < op.operands.size(); ++k)
            notPartial(op.operands[k]);
        setPartial(op.results[0], partial(op.operands[0]));
    }

    void reduceWindow(const Op& op) {
        const auto& w = std::get<WindowAttributes>(op.attributes);
        const std::size_t n = op.operands.size() / 2;
        auto unit = [](const Dims& v, std::size_t d) { return v.empty() || v[d] == 1; };
        for (std::size_t k = 0; k < n && k < op.results.size(); ++k) {
            const ValueId in = op.operands[k];
            notPartial(in);
            for (std::size_t d = 0; d < static_cast<std::size_t>(g_.type(in).rank()); ++d) {
                const bool kept =
                    d < w.windowDimensions.size() && w.windowDimensions[d] == 1 && unit(w.windowStrides, d) &&
                    unit(w.baseDilations, d) && unit(w.windowDilations, d) &&
                    (w.padding.empty() || (w.padding[d].first == 0 && w.padding[d].second == 0));
                keptOrWhole(in, op.results[k], static_cast<std::int64_t>(d), kept);
            }
        }
    }

    // ----- collectives
    // --------------------------------------------------------------------------------------- The manual axes
    // a collective's replica groups run over, major to minor (the order the group lists its devices in);
    // devices are numbered row-major over the mesh. Empty groups mean every device.
    std::vector<int> groupAxes(const Op& op) {
        const auto& groups = std::get<CollectiveAttributes>(op.attributes).replicaGroups;
        const std::size_t rank = mesh_->axes.size();
        std::vector<std::int64_t> stride(rank, 1);
        for (std::size_t a = rank; a-- > 1;)
            stride[a - 1] = stride[a] * mesh_->axes[a].second;
        const std::int64_t devices = rank == 0 ? 1 : stride[0] * mesh_->axes[0].second;
        auto coordinate = [&](std::int64_t device, std::size_t a) {
            return device / stride[a] % mesh_->axes[a].second;
        };
        std::vector<int> axes;
        if (groups.empty()) {
            for (std::size_t a = 0; a < rank; ++a)
                if (mesh_->axes[a].second > 1)
                    axes.push_back(static_cast<int>(a));
        } else {
            for (std::size_t a = 0; a < rank; ++a)
                for (std::int64_t device : groups.front())
                    if (device < 0 || device >= devices)
                        refuse("names device " + std::to_string(device) + " of a mesh of " +
                               std::to_string(devices));
                    else if (coordinate(device, a) != coordinate(groups.front().front(), a)) {
                        axes.push_back(static_cast<int>(a));
                        break;
                    }
            // The order the first group walks its axes in: try the mesh's order first, then every other.
            std::sort(axes.begin(), axes.end());
            bool matched = false;
            do {
                matched = walks(groups, axes, stride, devices);
            } while (!matched && std::next_permutation(axes.begin(), axes.end()));
            if (!matched)
                refuse("has replica groups that match no set of mesh axes of @" + mesh_->name);
        }
        for (int a : axes)
            if (!((manual_ >> a) & 1u))
                refuse("runs over axis \"" + mesh_->axes[static_cast<std::size_t>(a)].first +
                       "\", which is not manual here");
        return axes;
    }
    // Whether every group enumerates `axes` (major first) from a base device, and the groups cover every
    // device once.
    bool walks(const std::vector<std::vector<std::int64_t>>& groups, const std::vector<int>& axes,
               const std::vector<std::int64_t>& stride, std::int64_t devices) const {
        std::int64_t size = 1;
        for (int a : axes)
            size *= mesh_->axes[static_cast<std::size_t>(a)].second;
        std::vector<char> seen(static_cast<std::size_t>(devices), 0);
        for (const auto& group : groups) {
            if (static_cast<std::int64_t>(group.size()) != size)
                return false;
            for (std::int64_t t = 0; t < size; ++t) {
                std::int64_t device = group.front(), rest = t;
                for (std::size_t k = axes.size(); k-- > 0;) {
                    const auto a = static_cast<std::size_t>(axes[k]);
                    device += rest % mesh_->axes[a].second * stride[a];
                    rest /= mesh_->axes[a].second;
                }
                const std::int64_t actual = group[static_cast<std::size_t>(t)];
                if (actual != device || actual < 0 || actual >= devices ||
                    seen[static_cast<std::size_t>(actual)]++)
                    return false;
            }
        }
        return std::all_of(seen.begin(), seen.end(), [](char c) { return c != 0; });
    }

    // The semantics of a collective over manual axes `axes`, checked, in the global view: what the result's
    // dimensions and partial results are.
    void collective(const Op& op, OpKind kind, const std::vector<int>& axes) {
        const auto* c = std::get_if<CollectiveAttributes>(&op.attributes);
        const std::uint32_t mask = maskOf(axes);
        const ValueId in = op.operands.front(), out = op.results.front();
        auto reduced = [&](ValueId from, ValueId to, Reducer reducer) {
            const Partial p = partial(from);
            if (strict_ && mask && ((p.mask & mask) != mask || p.reducer != reducer))
                refuse("over " + axesText(axes) + " reads a value that holds no partial results over " +
                       maskText(mask & ~p.mask ? mask & ~p.mask : mask) +
                       ": it would add up copies, which the global program cannot say");
            setPartial(to, Partial{p.mask & ~mask, p.reducer});
        };
        switch (kind) {
            case OpKind::AllReduce:
                for (std::size_t i = 0; i < op.operands.size() && i < op.results.size(); ++i) {
                    sameShape(op.operands[i], op.results[i]);
                    reduced(op.operands[i], op.results[i], c ? c->reducer : Reducer::Add);
                }
                return;
            case OpKind::AllGather:
                return gather(in, out, c ? c->dimension : 0, axes);
            case OpKind::ReduceScatter: {
                const std::int64_t dim = c ? c->dimension : 0;
                for (std::int64_t d = 0; d < g_.type(in).rank(); ++d)
                    if (d != dim)
                        same(in, d, out, d);
                if (auto have = axesOf(in, dim)) {
                    have->insert(have->end(), axes.begin(), axes.end());
                    fix(var(out, dim), *have);
                }
                return reduced(in, out, c ? c->reducer : Reducer::Add);
            }
            case OpKind::AllToAll: {
                const std::int64_t split = c ? c->dimension : 0, concat = c ? c->concatDimension : 0;
                if (split == concat)
                    refuse("splits and concatenates one dimension, which no global op says");
                notPartial(in);
                for (std::int64_t d = 0; d < g_.type(in).rank(); ++d)
                    if (d != split && d != concat)
                        same(in, d, out, d);
                if (auto have = axesOf(in, split)) {
                    have->insert(have->end(), axes.begin(), axes.end());
                    fix(var(out, split), *have);
                }
                return ungather(in, out, concat, axes);
            }
            default:
                return;
        }
    }
    // all_gather: dimension `dim` loses `axes`, its minor-most ones.
    void gather(ValueId in, ValueId out, std::int64_t dim, const std::vector<int>& axes) {
        for (std::int64_t d = 0; d < g_.type(in).rank(); ++d)
            if (d != dim)
                same(in, d, out, d);
        notPartial(in);
        ungather(in, out, dim, axes);
    }
    void ungather(ValueId in, ValueId out, std::int64_t dim, const std::vector<int>& axes) {
        const auto have = axesOf(in, dim);
        if (!have) {
            if (strict_ && !axes.empty())
                refuse("gathers dimension " + std::to_string(dim) + ", which is the same on every device");
            return;
        }
        const bool suffix =
            have->size() >= axes.size() &&
            std::equal(axes.begin(), axes.end(), have->end() - static_cast<std::ptrdiff_t>(axes.size()));
        if (!suffix)
            refuse("gathers dimension " + std::to_string(dim) + " over " + axesText(axes) + " but it is " +
                   described(*have, axesText(*have)) + " (the gathered axes must be its minor ones)");
        fix(var(out, dim),
            std::vector<int>(have->begin(), have->end() - static_cast<std::ptrdiff_t>(axes.size())));
    }

    // A `Sharding` custom call: a sharding constraint or reshard (the value unchanged), or a Shardy
    // collective, which over manual axes moves data as its stablehlo twin does.
    void customCall(const Op& op) {
        const auto* call = std::get_if<CustomCallAttributes>(&op.attributes);
        if (!call || call->target != "Sharding" || op.operands.size() != 1 || op.results.size() != 1)
            return allWhole(op);
        const ValueId in = op.operands[0], out = op.results[0];
        const auto it = shardy_.find(static_cast<std::uint32_t>(&op - g_.ops.data()));
        if (it == shardy_.end() || manual_ == 0) {
            sameShape(in, out);
            return setPartial(out, partial(in));
        }
        const ShardyCollective& sc = it->second;
        if (sc.axes.empty())
            refuse("is written in the generic form, whose axes are not read");
        bool subAxis = false;
        const auto names = quotedNames(sc.axes, subAxis);
        if (subAxis)
            refuse("names sub-axes, which are not supported");
        if (manualOf(names).empty()) {
            sameShape(in, out);
            return setPartial(out, partial(in));
        }
        if (sc.op == "sdy.all_reduce") {
            sameShape(in, out);
            return collective(op, OpKind::AllReduce, manualOf(names));
        }
        if (sc.op != "sdy.all_gather" && sc.op != "sdy.all_slice" && sc.op != "sdy.reduce_scatter")
            refuse("over the manual axes " + axesText(manualOf(names)) + " is not supported");
        // Per dimension: `[{"x"}, {}]`.
        std::vector<std::vector<int>> perDim;
        for (std::size_t k = 0; k < sc.axes.size(); ++k) {
            if (sc.axes[k] != '{')
                continue;
            const std::size_t end = sc.axes.find('}', k);
            if (end == std::string::npos)
                break;
            perDim.push_back(
                manualOf(quotedNames(std::string_view(sc.axes).substr(k + 1, end - k - 1), subAxis)));
            k = end;
        }
        if (static_cast<int>(perDim.size()) != g_.type(in).rank())
            refuse("names axes for " + std::to_string(perDim.size()) + " dimensions of a tensor of rank " +
                   std::to_string(g_.type(in).rank()));
        std::uint32_t all = 0;
        for (std::int64_t d = 0; d < static_cast<std::int64_t>(perDim.size()); ++d) {
            const auto& axes = perDim[static_cast<std::size_t>(d)];
            all |= maskOf(axes);
            if (axes.empty()) {
                same(in, d, out, d);
            } else if (sc.op == "sdy.all_gather") {
                ungather(in, out, d, axes);
            } else if (auto have = axesOf(in, d)) {
                have->insert(have->end(), axes.begin(), axes.end());
                fix(var(out, d), *have);
            }
        }
        if (sc.op == "sdy.reduce_scatter") {
            const Partial p = partial(in);
            if (strict_ && ((p.mask & all) != all || p.reducer != Reducer::Add))
                refuse("reduces over " + maskText(all) +
                       " a value that holds no partial results over it: it would add up copies");
            return setPartial(out, Partial{p.mask & ~all, p.reducer});
        }
        notPartial(in);
    }

    // Every manual axis shards a value at most once (over its dimensions and its partial results).
    void checkAxesOnce(ValueId v) {
        std::uint32_t used = partial(v).mask;
        for (int d = 0; d < g_.type(v).rank(); ++d)
            for (int a : settled(v, d)) {
                if ((used >> a) & 1u) {
                    current_ = g_.value(v).producer.valid() ? &g_.op(g_.value(v).producer) : nullptr;
                    refuse("gives a result that uses axis \"" +
                           mesh_->axes[static_cast<std::size_t>(a)].first +
                           "\" twice (on two dimensions, or on a dimension and unreduced partial results)");
                }
                used |= 1u << a;
            }
    }

    // ----- the global program
    // --------------------------------------------------------------------------------
    std::int64_t devicesOf(const std::vector<int>& axes) const {
        std::int64_t n = 1;
        for (int a : axes)
            n *= mesh_->axes[static_cast<std::size_t>(a)].second;
        return n;
    }
    TensorType globalType(ValueId v) {
        TensorType t = g_.type(v);
        if (!dimsOf_.count(v.index))
            return t;
        for (std::size_t d = 0; d < t.shape.size(); ++d)
            t.shape[d] *= devicesOf(settled(v, static_cast<std::int64_t>(d)));
        return t;
    }
    // Shardy annotations of the body name free axes only: the manual ones go before them, major to minor.
    std::optional<ShardingAnnotation> withManualAxes(const Op& op) {
        if (!op.sharding || op.sharding->format != ShardingAnnotation::Format::Shardy)
            return op.sharding;
        const auto items = perValue(op.sharding->text);
        if (items.size() != op.results.size())
            return op.sharding;
        std::vector<std::string> rewritten;
        for (std::size_t r = 0; r < items.size(); ++r) {
            std::string why;
            const auto parsed = parseSharding(items[r], why);
            if (!parsed || static_cast<int>(parsed->dimensions.size()) != g_.type(op.results[r]).rank())
                return op.sharding;
            std::string text = "<@" + parsed->mesh + ", [";
            for (std::size_t d = 0; d < parsed->dimensions.size(); ++d) {
                std::vector<std::string> names;
                for (int a : settled(op.results[r], static_cast<std::int64_t>(d)))
                    names.push_back(mesh_->axes[static_cast<std::size_t>(a)].first);
                for (const auto& n : parsed->dimensions[d])
                    if (std::find(names.begin(), names.end(), n) == names.end())
                        names.push_back(n);
                text += d ? ", {" : "{";
                for (std::size_t k = 0; k < names.size(); ++k)
                    text += (k ? ", \"" : "\"") + names[k] + "\"";
                text += "}";
            }
            rewritten.push_back(text + "]>");
        }
        if (rewritten.size() == 1 && op.sharding->text.rfind("#sdy.sharding<", 0) == 0)
            return ShardingAnnotation{ShardingAnnotation::Format::Shardy,
                                      "#sdy.sharding" + rewritten.front()};
        std::string text = "#sdy.sharding_per_value<[";
        for (std::size_t r = 0; r < rewritten.size(); ++r)
            text += (r ? ", " : "") + rewritten[r];
        return ShardingAnnotation{ShardingAnnotation::Format::Shardy, text + "]>"};
    }

    GlobalProgram emit() {
        GlobalProgram program;
        program.manual = manual_ != 0;
        std::unordered_map<std::uint32_t, ValueId> subst;
        auto resolve = [&](ValueId v) {
            auto it = subst.find(v.index);
            return it == subst.end() ? v : it->second;
        };
        for (std::size_t i = 0; i < mc_.operands.size(); ++i) {
            const ValueId arg = mc_.body.arguments[i];
            if (globalType(arg) != g_.type(mc_.operands[i]))
                refuseAtBoundary("operand " + std::to_string(i) + " is " +
                                 g_.type(mc_.operands[i]).toString() + " but its piece " +
                                 g_.type(arg).toString() + " under its in_sharding makes " +
                                 globalType(arg).toString());
            subst[arg.index] = mc_.operands[i];
        }
        // Types and size-dependent attributes first (they read local sizes), then the operands.
        std::vector<std::pair<OpId, std::vector<TensorType>>> types;
        for (OpId id : mc_.body.ops) {
            const Op& op = g_.op(id);
            current_ = &op;
            std::vector<TensorType> results;
            for (ValueId r : op.results)
                results.push_back(globalType(r));
            types.emplace_back(id, std::move(results));
            Op& mutableOp = g_.op(id);
            mutableOp.sharding = withManualAxes(op);
            if (auto* s = std::get_if<SliceAttributes>(&mutableOp.attributes)) {
                const TensorType operand = globalType(op.operands[0]);
                const Shape& local = g_.type(op.operands[0]).shape;
                for (std::size_t d = 0; d < local.size(); ++d)
                    if (s->start[d] == 0 && s->limit[d] == local[d] &&
                        (s->strides.empty() || s->strides[d] == 1))
                        s->limit[d] = operand.shape[d];
            } else if (auto* ds = std::get_if<DynamicSliceAttributes>(&mutableOp.attributes)) {
                const TensorType operand = globalType(op.operands[0]);
                const Shape& local = g_.type(op.operands[0]).shape;
                for (std::size_t d = 0; d < local.size() && d < ds->sliceSizes.size(); ++d)
                    if (ds->sliceSizes[d] == local[d])
                        ds->sliceSizes[d] = operand.shape[d];
            } else if (auto* c = std::get_if<ConvolutionAttributes>(&mutableOp.attributes);
                       c && c->featureGroupCount > 1) {
                c->featureGroupCount *= devicesOf(settled(op.operands[0], c->inputFeature));
            }
        }
        for (const auto& [id, resultTypes] : types) {
            Op& op = g_.op(id);
            if (isStablehloCollective(op.kind)) {
                for (std::size_t i = 0; i < op.results.size(); ++i)
                    subst[op.results[i].index] = resolve(op.operands[op.kind == OpKind::AllReduce ? i : 0]);
                continue;
            }
            for (ValueId& v : op.operands)
                v = resolve(v);
            renameNested(op.regions, resolve);
            for (std::size_t i = 0; i < op.results.size(); ++i)
                g_.value(op.results[i]).type = resultTypes[i];
            program.ops.push_back(id);
        }
        current_ = nullptr;
        for (std::size_t i = 0; i < mc_.body.results.size(); ++i) {
            const ValueId v = resolve(mc_.body.results[i]);
            if (g_.type(v) != mc_.resultTypes[i])
                refuseAtBoundary("result " + std::to_string(i) + " is " + mc_.resultTypes[i].toString() +
                                 " but the body's piece under its out_sharding makes " +
                                 g_.type(v).toString());
            program.results.push_back(v);
        }
        return program;
    }

    template <typename Resolve>
    void renameNested(std::vector<Region>& regions, const Resolve& resolve) {
        for (auto& region : regions) {
            for (ValueId& v : region.results)
                v = resolve(v);
            for (OpId id : region.ops) {
                Op& op = g_.op(id);
                for (ValueId& v : op.operands)
                    v = resolve(v);
                renameNested(op.regions, resolve);
            }
        }
    }
};

}  // namespace

Result<GlobalProgram> globalProgram(Graph& graph, const ManualComputation& computation,
                                    const std::map<std::uint32_t, ShardyCollective>& shardyCollectives) {
    try {
        return Globalizer(graph, computation, shardyCollectives).run();
    } catch (const Refusal& r) {
        return makeError(kCode, r.message, r.location);
    }
}

}  // namespace shardscope::import
