// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/ir/printer.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <unordered_map>

namespace shardscope::ir {
namespace {

std::string quoted(std::string_view text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\')
            out += '\\';
        if (c == '\n') {
            out += "\\0A";
            continue;
        }
        out += c;
    }
    return out + "\"";
}

std::string list(const Dims& dims) {
    std::string out = "[";
    for (std::size_t i = 0; i < dims.size(); ++i)
        out += (i ? ", " : "") + std::to_string(dims[i]);
    return out + "]";
}

std::string arrayI64(const Dims& dims) {
    std::string out = "array<i64";
    for (std::size_t i = 0; i < dims.size(); ++i)
        out += (i ? ", " : ": ") + std::to_string(dims[i]);
    return out + ">";
}

std::string pairs(const std::vector<std::pair<std::int64_t, std::int64_t>>& p) {
    std::string out = "[";
    for (std::size_t i = 0; i < p.size(); ++i)
        out += (i ? ", [" : "[") + std::to_string(p[i].first) + ", " + std::to_string(p[i].second) + "]";
    return out + "]";
}

std::string hexBits(std::uint64_t bits, int width) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "0x%0*" PRIX64, width / 4, bits);
    return buffer;
}

// One element of a dense literal in MLIR's spelling for `element`.
std::string literal(double v, ElementType element) {
    char buffer[64];
    if (element == ElementType::I1)
        return v != 0 ? "true" : "false";
    if (isInteger(element) || element == ElementType::Index) {
        std::snprintf(buffer, sizeof buffer, "%" PRId64, static_cast<std::int64_t>(v));
        return buffer;
    }
    if (isComplex(element)) {
        std::snprintf(buffer, sizeof buffer, "(%.8e,0.000000e+00)", v);
        return buffer;
    }
    if (!std::isfinite(v)) {
        const bool negative = std::signbit(v);
        const bool nan = std::isnan(v);
        switch (element) {
            case ElementType::F64:
                return hexBits(
                    nan ? 0x7FF8000000000000ULL : (negative ? 0xFFF0000000000000ULL : 0x7FF0000000000000ULL),
                    64);
            case ElementType::F32:
                return hexBits(nan ? 0x7FC00000 : (negative ? 0xFF800000 : 0x7F800000), 32);
            case ElementType::BF16:
                return hexBits(nan ? 0x7FC0 : (negative ? 0xFF80 : 0x7F80), 16);
            case ElementType::F16:
                return hexBits(nan ? 0x7E00 : (negative ? 0xFC00 : 0x7C00), 16);
            default:
                return hexBits(nan ? 0x7F : (negative ? 0xFF : 0x7F), 8);
        }
    }
    std::snprintf(buffer, sizeof buffer, element == ElementType::F64 ? "%.16e" : "%.8e", v);
    return buffer;
}

std::string denseLiteral(const ConstantAttributes& c, const TensorType& type) {
    if (c.values.empty())
        return "dense_resource<__elided__>";
    if (c.values.size() == 1)
        return "dense<" + literal(c.values.front(), type.element) + ">";
    // Nested brackets, row-major.
    std::string out;
    std::size_t index = 0;
    auto emit = [&](auto&& self, int dim) -> void {
        if (dim == type.rank()) {
            out += literal(c.values[index++], type.element);
            return;
        }
        out += "[";
        for (std::int64_t i = 0; i < type.shape[dim]; ++i) {
            if (i)
                out += ", ";
            self(self, dim + 1);
        }
        out += "]";
    };
    emit(emit, 0);
    return "dense<" + out + ">";
}

std::string_view compareDirection(CompareDirection d) {
    switch (d) {
        case CompareDirection::EQ:
            return "EQ";
        case CompareDirection::NE:
            return "NE";
        case CompareDirection::GE:
            return "GE";
        case CompareDirection::GT:
            return "GT";
        case CompareDirection::LE:
            return "LE";
        case CompareDirection::LT:
            return "LT";
    }
    return "EQ";
}

std::string_view compareType(CompareType t) {
    switch (t) {
        case CompareType::Float:
            return "FLOAT";
        case CompareType::TotalOrder:
            return "TOTALORDER";
        case CompareType::Signed:
            return "SIGNED";
        case CompareType::Unsigned:
            return "UNSIGNED";
        case CompareType::Default:
            return "";
    }
    return "";
}

class Printer {
public:
    Printer(const Graph& graph, const PrintOptions& options) : graph_(graph), options_(options) {
        if (!options_.argumentNames)
            return;
        if (graph_.backwardStart > 0 && graph_.backwardStart < graph_.body.size())
            backwardStart_ = graph_.body[graph_.backwardStart].index;
        for (const auto& [value, argument] : graph_.gradients)
            gradientOf_[value.index] = argument;
    }

    std::string run() {
        out_ << "module @" << options_.moduleName << " {\n";
        for (const auto& mesh : graph_.meshes) {
            out_ << "  sdy.mesh @" << mesh.name << " = <[";
            for (std::size_t i = 0; i < mesh.axes.size(); ++i)
                out_ << (i ? ", " : "") << quoted(mesh.axes[i].first) << "=" << mesh.axes[i].second;
            out_ << "]>\n";
        }
        out_ << "  func.func public @main(";
        std::vector<std::optional<std::size_t>> donatedTo(graph_.arguments.size());
        for (std::size_t i = 0; i < graph_.outputs.size(); ++i)
            if (auto a = graph_.outputs[i].aliasedArgument; a && *a < donatedTo.size())
                donatedTo[*a] = i;
        for (std::size_t i = 0; i < graph_.arguments.size(); ++i) {
            const auto& a = graph_.arguments[i];
            std::string name = "%arg" + std::to_string(argCounter_++);
            names_[a.value.index] = name;
            out_ << (i ? ", " : "") << name << ": " << graph_.type(a.value).toString();
            std::vector<std::string> attrs;
            if (donatedTo[i])
                attrs.push_back("tf.aliasing_output = " + std::to_string(*donatedTo[i]) + " : i32");
            if (a.sharding)
                attrs.push_back(shardingAttribute(*a.sharding));
            if (options_.argumentNames) {
                if (!a.name.empty())
                    attrs.push_back("shardscope.name = " + quoted(a.name));
                attrs.push_back("shardscope.role = " + quoted(toString(a.role)));
                if (!a.dimensionLabels.empty()) {
                    std::string labels = "shardscope.dims = [";
                    for (std::size_t d = 0; d < a.dimensionLabels.size(); ++d)
                        labels += (d ? ", " : "") + quoted(a.dimensionLabels[d]);
                    attrs.push_back(labels + "]");
                }
            }
            if (!attrs.empty()) {
                out_ << " {";
                for (std::size_t k = 0; k < attrs.size(); ++k)
                    out_ << (k ? ", " : "") << attrs[k];
                out_ << "}";
            }
            if (options_.locations && !a.name.empty())
                out_ << " loc(" << quoted(a.name) << ")";
        }
        out_ << ") -> (";
        for (std::size_t i = 0; i < graph_.outputs.size(); ++i) {
            const auto& o = graph_.outputs[i];
            out_ << (i ? ", " : "") << typeOf(o.value);
            std::vector<std::string> attrs;
            if (o.sharding)
                attrs.push_back(shardingAttribute(*o.sharding));
            if (!o.name.empty())
                attrs.push_back("jax.result_info = " + quoted(o.name));
            if (!attrs.empty()) {
                out_ << " {";
                for (std::size_t k = 0; k < attrs.size(); ++k)
                    out_ << (k ? ", " : "") << attrs[k];
                out_ << "}";
            }
        }
        out_ << ") {\n";
        for (OpId id : graph_.body)
            printOp(graph_.op(id), 2);
        out_ << "    return";
        for (std::size_t i = 0; i < graph_.outputs.size(); ++i)
            out_ << (i ? ", " : " ") << use(graph_.outputs[i].value);
        if (!graph_.outputs.empty()) {
            out_ << " : ";
            for (std::size_t i = 0; i < graph_.outputs.size(); ++i)
                out_ << (i ? ", " : "") << typeOf(graph_.outputs[i].value);
        }
        out_ << "\n  }\n}\n";
        return out_.str();
    }

private:
    static std::string shardingAttribute(const ShardingAnnotation& sharding) {
        return sharding.format == ShardingAnnotation::Format::Gspmd
                   ? "mhlo.sharding = " + quoted(sharding.text)
                   : "sdy.sharding = " + sharding.text;
    }
    std::string use(ValueId v) const {
        auto it = names_.find(v.index);
        return it == names_.end() ? "%<undefined" + std::to_string(v.index) + ">" : it->second;
    }
    std::string typeOf(ValueId v) const {
        return v.index < graph_.values.size() ? graph_.type(v).toString() : "tensor<?>";
    }
    std::string operandList(const Op& op) const {
        std::string s;
        for (std::size_t i = 0; i < op.operands.size(); ++i)
            s += (i ? ", " : "") + use(op.operands[i]);
        return s;
    }
    std::string functionType(const Op& op) const {
        std::string s = "(";
        for (std::size_t i = 0; i < op.operands.size(); ++i)
            s += (i ? ", " : "") + typeOf(op.operands[i]);
        s += ") -> ";
        if (op.results.size() == 1)
            return s + typeOf(op.results.front());
        s += "(";
        for (std::size_t i = 0; i < op.results.size(); ++i)
            s += (i ? ", " : "") + typeOf(op.results[i]);
        return s + ")";
    }
    // The op's discardable attributes: its sharding, and the marks of a training step (the first op of the
    // backward pass, the parameter gradients it computes) that a StableHLO consumer ignores and the importer
    // reads.
    std::vector<std::string> discardable(const Op& op) const {
        std::vector<std::string> attrs;
        if (op.sharding)
            attrs.push_back(shardingAttribute(*op.sharding));
        if (!options_.argumentNames)
            return attrs;
        const auto id = static_cast<std::uint32_t>(&op - graph_.ops.data());
        if (id == backwardStart_)
            attrs.push_back("shardscope.backward_start");
        bool gradient = false;
        std::string of = "shardscope.gradient_of = array<i64";
        for (std::size_t i = 0; i < op.results.size(); ++i) {
            auto it = gradientOf_.find(op.results[i].index);
            gradient = gradient || it != gradientOf_.end();
            of += (i ? ", " : ": ") +
                  (it == gradientOf_.end() ? std::string("-1") : std::to_string(it->second));
        }
        if (gradient)
            attrs.push_back(of + ">");
        return attrs;
    }
    // " {a, b}" of `attrs`, or "".
    static std::string dictionary(const std::vector<std::string>& attrs) {
        if (attrs.empty())
            return "";
        std::string s = " {";
        for (std::size_t i = 0; i < attrs.size(); ++i)
            s += (i ? ", " : "") + attrs[i];
        return s + "}";
    }
    std::string locationSuffix(const Op& op) const {
        if (!options_.locations || op.location.name.empty())
            return "";
        return " loc(" + quoted(op.location.name) + ")";
    }

    // Names the op's results and returns the "%3 = " / "%3:2 = " prefix.
    std::string defineResults(const Op& op) {
        if (op.results.empty())
            return "";
        std::string base = "%" + std::to_string(counter_++);
        if (op.results.size() == 1) {
            names_[op.results.front().index] = base;
            return base + " = ";
        }
        for (std::size_t i = 0; i < op.results.size(); ++i)
            names_[op.results[i].index] = base + "#" + std::to_string(i);
        return base + ":" + std::to_string(op.results.size()) + " = ";
    }

    void printRegion(const Region& region, int depth) {
        const std::string indent(2 * static_cast<std::size_t>(depth), ' ');
        out_ << "{\n" << indent << "^bb0(";
        for (std::size_t i = 0; i < region.arguments.size(); ++i) {
            std::string name = "%arg" + std::to_string(argCounter_++);
            names_[region.arguments[i].index] = name;
            out_ << (i ? ", " : "") << name << ": " << typeOf(region.arguments[i]);
        }
        out_ << "):\n";
        for (OpId id : region.ops)
            printOp(graph_.op(id), depth + 1);
        out_ << indent << "  stablehlo.return";
        for (std::size_t i = 0; i < region.results.size(); ++i)
            out_ << (i ? ", " : " ") << use(region.results[i]);
        if (!region.results.empty()) {
            out_ << " : ";
            for (std::size_t i = 0; i < region.results.size(); ++i)
                out_ << (i ? ", " : "") << typeOf(region.results[i]);
        }
        out_ << "\n" << indent << "}";
    }

    // Attributes of the generic form's property dictionary, or "".
    std::string properties(const Op& op) const {
        std::vector<std::string> p;
        std::visit(
            [&](const auto& a) {
                using T = std::decay_t<decltype(a)>;
                if constexpr (std::is_same_v<T, GatherAttributes>) {
                    std::string d = "#stablehlo.gather<offset_dims = " + list(a.offsetDims) +
                                    ", collapsed_slice_dims = " + list(a.collapsedSliceDims);
                    if (!a.operandBatchingDims.empty())
                        d += ", operand_batching_dims = " + list(a.operandBatchingDims) +
                             ", start_indices_batching_dims = " + list(a.startIndicesBatchingDims);
                    d += ", start_index_map = " + list(a.startIndexMap) +
                         ", index_vector_dim = " + std::to_string(a.indexVectorDim) + ">";
                    p.push_back("dimension_numbers = " + d);
                    p.push_back(std::string("indices_are_sorted = ") +
                                (a.indicesAreSorted ? "true" : "false"));
                    p.push_back("slice_sizes = " + arrayI64(a.sliceSizes));
                } else if constexpr (std::is_same_v<T, ScatterAttributes>) {
                    std::string d = "#stablehlo.scatter<update_window_dims = " + list(a.updateWindowDims) +
                                    ", inserted_window_dims = " + list(a.insertedWindowDims);
                    if (!a.inputBatchingDims.empty())
                        d += ", input_batching_dims = " + list(a.inputBatchingDims) +
                             ", scatter_indices_batching_dims = " + list(a.scatterIndicesBatchingDims);
                    d += ", scatter_dims_to_operand_dims = " + list(a.scatterDimsToOperandDims) +
                         ", index_vector_dim = " + std::to_string(a.indexVectorDim) + ">";
                    p.push_back(std::string("indices_are_sorted = ") +
                                (a.indicesAreSorted ? "true" : "false"));
                    p.push_back("scatter_dimension_numbers = " + d);
                    p.push_back(std::string("unique_indices = ") + (a.uniqueIndices ? "true" : "false"));
                } else if constexpr (std::is_same_v<T, WindowAttributes>) {
                    if (!a.padding.empty())
                        p.push_back("padding = dense<" + pairs(a.padding) + "> : tensor<" +
                                    std::to_string(a.padding.size()) + "x2xi64>");
                    if (!a.baseDilations.empty())
                        p.push_back("base_dilations = " + arrayI64(a.baseDilations));
                    p.push_back("window_dimensions = " + arrayI64(a.windowDimensions));
                    if (!a.windowDilations.empty())
                        p.push_back("window_dilations = " + arrayI64(a.windowDilations));
                    if (!a.windowStrides.empty())
                        p.push_back("window_strides = " + arrayI64(a.windowStrides));
                } else if constexpr (std::is_same_v<T, DynamicSliceAttributes>) {
                    p.push_back("slice_sizes = " + arrayI64(a.sliceSizes));
                } else if constexpr (std::is_same_v<T, SortAttributes>) {
                    p.push_back("dimension = " + std::to_string(a.dimension) + " : i64");
                    p.push_back(std::string("is_stable = ") + (a.isStable ? "true" : "false"));
                } else if constexpr (std::is_same_v<T, DimensionsAttribute>) {
                    p.push_back((op.kind == OpKind::Fft ? "fft_length = " : "dimensions = ") +
                                arrayI64(a.dimensions));
                } else if constexpr (std::is_same_v<T, DimensionAttribute>) {
                    if (op.kind == OpKind::BatchNormGrad || op.kind == OpKind::BatchNormInference ||
                        op.kind == OpKind::BatchNormTraining)
                        p.push_back("feature_index = " + std::to_string(a.dimension) + " : i64");
                } else if constexpr (std::is_same_v<T, ReduceAttributes>) {
                    p.push_back("dimensions = " + arrayI64(a.dimensions));
                } else if constexpr (std::is_same_v<T, CollectiveAttributes>) {
                    if (a.dimension >= 0) {
                        const char* key = op.kind == OpKind::AllToAll    ? "split_dimension"
                                          : op.kind == OpKind::AllGather ? "all_gather_dim"
                                                                         : "scatter_dimension";
                        p.push_back(std::string(key) + " = " + std::to_string(a.dimension) + " : i64");
                    }
                    if (a.concatDimension >= 0)
                        p.push_back("concat_dimension = " + std::to_string(a.concatDimension) + " : i64");
                    if (!a.replicaGroups.empty()) {
                        std::string groups = "[";
                        for (std::size_t g = 0; g < a.replicaGroups.size(); ++g)
                            groups += (g ? ", " : "") + list(a.replicaGroups[g]);
                        groups += "]";
                        // collective_permute's groups are its (source, target) pairs.
                        const char* key =
                            op.kind == OpKind::CollectivePermute ? "source_target_pairs" : "replica_groups";
                        p.push_back(std::string(key) + " = dense<" + groups + "> : tensor<" +
                                    std::to_string(a.replicaGroups.size()) + "x" +
                                    std::to_string(a.replicaGroups.front().size()) + "xi64>");
                    }
                }
            },
            op.attributes);
        // StableHLO requires these; the IR keeps no other value (the interpreter draws uniformly).
        if (op.kind == OpKind::Rng)
            p.push_back("rng_distribution = #stablehlo<rng_distribution UNIFORM>");
        if (op.kind == OpKind::RngBitGenerator)
            p.push_back("rng_algorithm = #stablehlo<rng_algorithm DEFAULT>");
        // Required attributes the IR does not keep (they change no shape, sharding or cost): their usual
        // values.
        if (op.kind == OpKind::BatchNormGrad || op.kind == OpKind::BatchNormInference ||
            op.kind == OpKind::BatchNormTraining)
            p.insert(p.begin(), "epsilon = 9.99999974E-6 : f32");
        if (op.kind == OpKind::Fft)
            p.push_back("fft_type = #stablehlo<fft_type FFT>");
        if (op.kind == OpKind::TriangularSolve) {
            p.push_back("left_side = true");
            p.push_back("lower = true");
            p.push_back("transpose_a = #stablehlo<transpose NO_TRANSPOSE>");
            p.push_back("unit_diagonal = false");
        }
        if (op.kind == OpKind::ReducePrecision && !op.results.empty()) {
            // The result's own format: rounding to it changes nothing.
            const ElementType e = graph_.type(op.results.front()).element;
            const int exponent = e == ElementType::F64 ? 11 : e == ElementType::F16 ? 5 : 8;
            const int mantissa = e == ElementType::F64    ? 52
                                 : e == ElementType::F16  ? 10
                                 : e == ElementType::BF16 ? 7
                                                          : 23;
            p.push_back("exponent_bits = " + std::to_string(exponent) + " : i32");
            p.push_back("mantissa_bits = " + std::to_string(mantissa) + " : i32");
        }
        if (p.empty())
            return "";
        std::string s = " <{";
        for (std::size_t i = 0; i < p.size(); ++i)
            s += (i ? ", " : "") + p[i];
        return s + "}>";
    }

    void printGeneric(const Op& op, std::string_view name, const std::string& prefix, int depth,
                      std::vector<std::string> attrs = {}) {
        out_ << prefix << quoted(name) << "(" << operandList(op) << ")" << properties(op);
        if (!op.regions.empty()) {
            out_ << " (";
            for (std::size_t i = 0; i < op.regions.size(); ++i) {
                if (i)
                    out_ << ", ";
                printRegion(op.regions[i], depth + 1);
            }
            out_ << ")";
        }
        if (const auto* c = std::get_if<CustomCallAttributes>(&op.attributes)) {
            attrs.insert(attrs.begin(), "call_target_name = " + quoted(c->target));
            if (!c->backendConfig.empty())
                attrs.insert(attrs.begin() + 1, "backend_config = " + quoted(c->backendConfig));
        }
        const auto extra = discardable(op);
        attrs.insert(attrs.end(), extra.begin(), extra.end());
        out_ << dictionary(attrs) << " : " << functionType(op);
    }

    void printOp(const Op& op, int depth) {
        const std::string indent(2 * static_cast<std::size_t>(depth), ' ');
        out_ << indent;
        const std::string prefix = defineResults(op);
        const std::string name = "stablehlo." + std::string(mnemonic(op.kind));
        const std::string attrs = dictionary(discardable(op));
        const auto cat = category(op.kind);
        const bool sameTypes = [&] {
            for (auto v : op.operands)
                if (typeOf(v) != typeOf(op.results.front()))
                    return false;
            return !op.results.empty();
        }();

        if (op.kind == OpKind::OtherElementwise) {
            // A unary op of another dialect (chlo.erf, ...), under its own name.
            const auto* o = std::get_if<OpaqueAttributes>(&op.attributes);
            printGeneric(op, o && !o->name.empty() ? o->name : "chlo.erf", prefix, depth);
        } else if ((cat == OpCategory::ElementwiseUnary || cat == OpCategory::ElementwiseBinary) &&
                   op.kind != OpKind::Compare && op.kind != OpKind::ReducePrecision &&
                   op.results.size() == 1) {
            out_ << prefix << name << " " << operandList(op) << attrs << " : "
                 << (sameTypes ? typeOf(op.results.front()) : functionType(op));
        } else if (op.kind == OpKind::Compare && op.results.size() == 1) {
            const auto& c = std::get<CompareAttributes>(op.attributes);
            out_ << prefix << name << "  " << compareDirection(c.direction) << ", " << operandList(op);
            if (c.type != CompareType::Default)
                out_ << ",  " << compareType(c.type);
            out_ << attrs << " : " << functionType(op);
        } else if (op.kind == OpKind::Select && op.operands.size() == 3) {
            out_ << prefix << name << " " << operandList(op) << attrs << " : " << typeOf(op.operands[0])
                 << ", " << typeOf(op.results.front());
        } else if (op.kind == OpKind::Constant && op.results.size() == 1) {
            const auto* c = std::get_if<ConstantAttributes>(&op.attributes);
            out_ << prefix << name << attrs << " "
                 << denseLiteral(c ? *c : ConstantAttributes{}, graph_.type(op.results.front())) << " : "
                 << typeOf(op.results.front());
        } else if (op.kind == OpKind::Iota && op.results.size() == 1) {
            out_ << prefix << name << " dim = " << std::get<DimensionAttribute>(op.attributes).dimension
                 << attrs << " : " << typeOf(op.results.front());
        } else if (op.kind == OpKind::BroadcastInDim) {
            out_ << prefix << name << " " << operandList(op)
                 << ", dims = " << list(std::get<BroadcastDimensions>(op.attributes).dims) << attrs << " : "
                 << functionType(op);
        } else if (op.kind == OpKind::Transpose) {
            out_ << prefix << name << " " << operandList(op)
                 << ", dims = " << list(std::get<Permutation>(op.attributes).permutation) << attrs << " : "
                 << functionType(op);
        } else if (op.kind == OpKind::Reshape || op.kind == OpKind::BitcastConvert) {
            out_ << prefix << name << " " << operandList(op) << attrs << " : " << functionType(op);
        } else if (op.kind == OpKind::DotGeneral) {
            const auto& d = std::get<DotDimensions>(op.attributes);
            out_ << prefix << name << " " << operandList(op);
            if (!d.lhsBatching.empty())
                out_ << ", batching_dims = " << list(d.lhsBatching) << " x " << list(d.rhsBatching);
            out_ << ", contracting_dims = " << list(d.lhsContracting) << " x " << list(d.rhsContracting)
                 << attrs << " : " << functionType(op);
        } else if (op.kind == OpKind::Slice) {
            const auto& s = std::get<SliceAttributes>(op.attributes);
            out_ << prefix << name << " " << operandList(op) << " [";
            for (std::size_t i = 0; i < s.start.size(); ++i) {
                out_ << (i ? ", " : "") << s.start[i] << ":" << s.limit[i];
                if (!s.strides.empty() && s.strides[i] != 1)
                    out_ << ":" << s.strides[i];
            }
            out_ << "]" << attrs << " : " << functionType(op);
        } else if (op.kind == OpKind::Concatenate) {
            out_ << prefix << name << " " << operandList(op)
                 << ", dim = " << std::get<DimensionAttribute>(op.attributes).dimension << attrs << " : "
                 << functionType(op);
        } else if (op.kind == OpKind::Pad) {
            const auto& p = std::get<PadAttributes>(op.attributes);
            Dims interior = p.interior.empty() ? Dims(p.low.size(), 0) : p.interior;
            out_ << prefix << name << " " << operandList(op) << ", low = " << list(p.low)
                 << ", high = " << list(p.high) << ", interior = " << list(interior) << attrs << " : "
                 << functionType(op);
        } else if (op.kind == OpKind::Reduce && op.operands.size() == 2 &&
                   std::get<ReduceAttributes>(op.attributes).reducer != Reducer::Other) {
            const auto& r = std::get<ReduceAttributes>(op.attributes);
            out_ << prefix << name << "(" << use(op.operands[0]) << " init: " << use(op.operands[1])
                 << ") applies stablehlo." << mnemonic(reducerOpKind(r.reducer))
                 << " across dimensions = " << list(r.dimensions) << attrs << " : " << functionType(op);
        } else if (op.kind == OpKind::Convolution) {
            printConvolution(op, prefix, name);
        } else if (op.kind == OpKind::Opaque) {
            // Under the name the source gave it when that is an op of an MLIR dialect; what only another
            // format knows (an ONNX operator) is a custom call of that name, as StableHLO says "some op".
            const auto* o = std::get_if<OpaqueAttributes>(&op.attributes);
            const std::string opaque = o ? o->name : std::string();
            if (opaque.empty() || opaque.rfind("onnx.", 0) == 0 || opaque.find('.') == std::string::npos) {
                printGeneric(op, "stablehlo.custom_call", prefix, depth,
                             {"call_target_name = " + quoted(opaque.empty() ? "shardscope.opaque" : opaque)});
            } else {
                printGeneric(op, opaque, prefix, depth);
            }
        } else {
            printGeneric(op, name, prefix, depth);
        }
        out_ << locationSuffix(op) << "\n";
    }

    void printConvolution(const Op& op, const std::string& prefix, const std::string& name) {
        const auto& c = std::get<ConvolutionAttributes>(op.attributes);
        const int rank = static_cast<int>(c.inputSpatial.size()) + 2;
        auto layout = [&](std::int64_t batchLike, char b, std::int64_t featureLike, char f,
                          const Dims& spatial) {
            std::vector<std::string> slots(rank);
            slots[batchLike] = std::string(1, b);
            slots[featureLike] = std::string(1, f);
            for (std::size_t i = 0; i < spatial.size(); ++i)
                slots[spatial[i]] = std::to_string(i);
            std::string s = "[";
            for (int i = 0; i < rank; ++i)
                s += (i ? ", " : "") + slots[i];
            return s + "]";
        };
        out_ << prefix << name << "(" << operandList(op)
             << ") dim_numbers = " << layout(c.inputBatch, 'b', c.inputFeature, 'f', c.inputSpatial) << "x"
             << layout(c.kernelInputFeature, 'i', c.kernelOutputFeature, 'o', c.kernelSpatial) << "->"
             << layout(c.outputBatch, 'b', c.outputFeature, 'f', c.outputSpatial) << ", window = {";
        std::vector<std::string> w;
        if (!c.windowStrides.empty())
            w.push_back("stride = " + list(c.windowStrides));
        if (!c.padding.empty())
            w.push_back("pad = " + pairs(c.padding));
        if (!c.lhsDilation.empty())
            w.push_back("lhs_dilate = " + list(c.lhsDilation));
        if (!c.rhsDilation.empty())
            w.push_back("rhs_dilate = " + list(c.rhsDilation));
        for (std::size_t i = 0; i < w.size(); ++i)
            out_ << (i ? ", " : "") << w[i];
        std::vector<std::string> attrs{
            "batch_group_count = " + std::to_string(c.batchGroupCount) + " : i64",
            "feature_group_count = " + std::to_string(c.featureGroupCount) + " : i64"};
        const auto extra = discardable(op);
        attrs.insert(attrs.end(), extra.begin(), extra.end());
        out_ << "}" << dictionary(attrs) << " : " << functionType(op);
    }

    const Graph& graph_;
    const PrintOptions& options_;
    std::ostringstream out_;
    std::unordered_map<std::uint32_t, std::string> names_;
    std::uint32_t backwardStart_ = OpId::kInvalid;  // the op index of the backward pass's first op
    std::unordered_map<std::uint32_t, std::size_t> gradientOf_;  // gradient value -> parameter argument
    int counter_ = 0;
    int argCounter_ = 0;
};

}  // namespace

std::string printStableHlo(const Graph& graph, const PrintOptions& options) {
    return Printer(graph, options).run();
}

}  // namespace shardscope::ir
