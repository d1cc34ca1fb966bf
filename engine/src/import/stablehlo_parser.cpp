// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// StableHLO textual MLIR importer: the entry points, the names values are bound to, and the emission of ops.
// The parser's overview and the map of its files: stablehlo_parser.h.
#include "stablehlo_parser.h"

#include <algorithm>
#include <exception>

#include "shardscope/import/stablehlo.h"
#include "shardscope/ir/verifier.h"

namespace shardscope::import::stablehlo_import {

using ir::Graph;
using ir::OpKind;
using ir::TensorType;

Parser::Parser(std::string_view text, std::string fileName, const ImportOptions& options)
    : lex_(text, std::move(fileName)), options_(options) {}

Result<std::vector<std::string>> Parser::functionNames() {
    try {
        scanModule();
    } catch (const ParseError& e) {
        return makeError("stablehlo.syntax", e.message, lex_.here(std::min(e.offset, lex_.size())));
    } catch (const std::exception& e) {
        return makeError("stablehlo.syntax", std::string("malformed input: ") + e.what(),
                         lex_.here(std::min(lex_.offset(), lex_.size())));
    }
    return functionOrder_;
}

Result<Graph> Parser::run() {
    if (lex_.containsNul())
        return makeError("stablehlo.syntax",
                         lex_.fileName() + ": not StableHLO text (the file contains binary data)");
    Graph graph;
    try {
        scanModule();
        graph = parseEntry();
        if (manualComputations_)
            removeUnreachable(graph);
    } catch (const ParseError& e) {
        return makeError(e.code, oneLine(e.message), lex_.here(std::min(e.offset, lex_.size())));
    } catch (const std::exception& e) {  // std::stoull and friends on malformed numbers
        return makeError("stablehlo.syntax", std::string("malformed input: ") + e.what(),
                         lex_.here(std::min(lex_.offset(), lex_.size())));
    }
    auto status = verifyGraph(graph);
    if (!status) {  // refused: one line, the first thing wrong
        for (const auto& d : status.diagnostics())
            if (d.severity == Severity::Error)
                return Result<Graph>::failure({d});
        return Result<Graph>::failure(status.diagnostics());
    }
    if (graph.partitioned)
        warnings_.push_back(
            makeWarning("stablehlo.partitioned",
                        "the module was partitioned by hand (sdy.manual_computation): imported as its "
                        "global program (shapes scaled by its shardings, collectives the global ops "
                        "imply dropped); its shardings are the reference plan (--plan reference)",
                        SourceLocation{lex_.fileName(), 0, 0, {}}));
    Result<Graph> result(std::move(graph));
    result.addDiagnostics(warnings_);
    return result;
}

// ----- values and scopes -----------------------------------------------------------------------------------

void Parser::bind(const std::string& name, std::vector<ValueId> values) {
    scopes_.back()[name] = Binding{std::move(values), nullptr};
}

void Parser::bindTuple(const std::string& name, std::vector<ValueId> leaves, const ParsedType& type) {
    if (leaves.size() != leafCount(type))
        lex_.failAt(type.at, "'" + opName_ + "' gives " + std::to_string(leaves.size()) +
                                 " tensor(s) for a tuple of " + std::to_string(leafCount(type)));
    scopes_.back()[name] = Binding{std::move(leaves), std::make_shared<const ParsedType>(type)};
}

const Parser::Binding& Parser::binding(const std::string& name, std::size_t at, std::size_t& index) {
    std::string base = name;
    index = 0;
    if (auto hash = name.find('#'); hash != std::string::npos) {
        base = name.substr(0, hash);
        index = static_cast<std::size_t>(std::strtoul(name.c_str() + hash + 1, nullptr, 10));
    }
    for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
        if (auto it = scope->find(base); it != scope->end()) {
            const std::size_t results = it->second.tuple ? 1 : it->second.values.size();
            if (index >= results)
                lex_.failAt(at, "%" + name + " refers to result " + std::to_string(index) +
                                    " of an op with " + std::to_string(results) + " result(s)");
            return it->second;
        }
        if (isolation_.count(static_cast<std::size_t>(scope.base() - scopes_.begin() - 1)))
            break;
    }
    lex_.failAt(at, "use of undefined value %" + name);
}

ValueId Parser::use(const std::string& name, std::size_t at) {
    std::size_t index = 0;
    const Binding& b = binding(name, at, index);
    if (b.tuple)
        lex_.failAt(
            at, "'" + opName_ + "' cannot take %" + name +
                    ", a tuple (only func.call, get_tuple_element, custom_call, stablehlo.tuple and return "
                    "take tuples)");
    return b.values[index];
}

std::vector<ValueId> Parser::useFlattened(const std::string& name, std::size_t at) {
    std::size_t index = 0;
    const Binding& b = binding(name, at, index);
    if (b.tuple)
        return b.values;
    return {b.values[index]};
}

std::vector<ValueId> Parser::operandList(char close, bool flattenTuples) {
    std::vector<ValueId> out;
    if (lex_.peek() == close)
        return out;
    do {
        lex_.skip();
        const std::size_t at = lex_.offset();
        const std::string name = lex_.valueName();
        if (flattenTuples) {
            for (ValueId v : useFlattened(name, at))
                out.push_back(v);
        } else {
            out.push_back(use(name, at));
        }
    } while (lex_.consume(","));
    return out;
}

std::vector<ValueId> Parser::prettyOperands() {
    std::vector<ValueId> out;
    while (lex_.peek() == '%') {
        const std::size_t valueAt = lex_.offset();
        out.push_back(use(lex_.valueName(), valueAt));
        const std::size_t save = lex_.offset();
        if (!lex_.consume(","))
            break;
        if (lex_.peek() != '%') {
            lex_.seek(save);
            break;
        }
    }
    return out;
}

const TensorType& Parser::tensorOf(const ParsedType& t) {
    if (t.tuple)
        lex_.failAt(t.at, "tuple type in '" + opName_ +
                              "': only function signatures, func.call, stablehlo.tuple, get_tuple_element, "
                              "custom_call and return take tuples");
    return t.type;
}

// ----- emission --------------------------------------------------------------------------------------------

std::vector<ValueId> Parser::emit(Pending p, const SourceLocation& location, std::size_t resultCount,
                                  std::size_t at) {
    tupleResultAllowed(p.kind, at);
    if (resultTuple_)
        resultCount = leafCount(*resultTuple_);
    if (p.resultTypes.size() != resultCount)
        lex_.failAt(at, "'" + opName_ + "' declares " + std::to_string(resultCount) +
                            " result(s) but its type gives " + std::to_string(p.resultTypes.size()));
    if (auto folded = foldedConstraint(p))
        return *folded;
    if (p.backwardStart && insertion_ == &graph_.body)
        graph_.backwardStart = graph_.body.size();
    if (graph_.ops.size() >= options_.maxOps)
        lex_.failAt(at, "@" + (callStack_.empty() ? graph_.name : callStack_.back()) +
                            ": the graph grows past " + std::to_string(options_.maxOps) +
                            " ops (calls are inlined: a function called many times is copied as many times)");
    const OpId id =
        graph_.addOp(p.kind, std::move(p.operands), p.resultTypes, std::move(p.attributes), location);
    graph_.op(id).regions = std::move(p.regions);
    graph_.op(id).sharding = std::move(p.sharding);
    insertion_->push_back(id);
    if (!pendingAlias_.empty()) {
        opLabels_.push_back({id, pendingAlias_});
        pendingAlias_.clear();
    }
    const auto& results = graph_.op(id).results;
    for (std::size_t i = 0; i < p.gradientOf.size() && i < results.size(); ++i)
        if (p.gradientOf[i] >= 0 && insertion_ == &graph_.body)
            gradientMarks_.emplace_back(results[i], static_cast<std::size_t>(p.gradientOf[i]));
    return results;
}

// A sharding constraint (sdy.sharding_constraint, GSPMD's custom_call @Sharding) on the single result of an
// op of the same block is that result's annotation, not an op: no copy of the value, nothing for the cost
// model to schedule, and the graph of an exported plan reads back as the graph it was exported from. Returns
// the value the constraint stands for, or nullopt when it stays an op (on an argument, on one result of
// several, on a value already annotated otherwise, on a value of an enclosing block).
std::optional<std::vector<ValueId>> Parser::foldedConstraint(const Pending& p) {
    const auto* call = std::get_if<ir::CustomCallAttributes>(&p.attributes);
    const bool constraint = opName_ == "sdy.sharding_constraint" || opName_ == "stablehlo.custom_call" ||
                            opName_ == "mhlo.custom_call";
    if (!constraint || p.kind != OpKind::CustomCall || !call || call->target != "Sharding" || !p.sharding ||
        p.operands.size() != 1 || p.resultTypes.size() != 1 || resultTuple_)
        return std::nullopt;
    const ValueId v = p.operands.front();
    const OpId producer = graph_.value(v).producer;
    if (!producer.valid() || graph_.type(v) != p.resultTypes.front())
        return std::nullopt;
    ir::Op& op = graph_.op(producer);
    if (op.results.size() != 1 || (op.sharding && *op.sharding != *p.sharding))
        return std::nullopt;
    if (std::find(insertion_->rbegin(), insertion_->rend(), producer) == insertion_->rend())
        return std::nullopt;
    op.sharding = p.sharding;
    pendingAlias_.clear();
    return std::vector<ValueId>{v};
}

// An op we do not model: every dimension of it needs replication. The first of each name is warned about.
std::vector<ValueId> Parser::emitOpaque(Pending p, const SourceLocation& location, std::size_t resultCount,
                                        std::size_t at) {
    p.kind = OpKind::Opaque;
    p.attributes = ir::OpaqueAttributes{opName_};
    if (warnedOps_.insert(opName_).second)
        warnings_.push_back(
            makeWarning("stablehlo.unsupported-op",
                        "op '" + opName_ +
                            "' is not modelled; imported as an opaque op whose dimensions all need "
                            "replication",
                        location));
    return emit(std::move(p), location, resultCount, at);
}

// Marks ir::printStableHlo writes on the ops of a training step: `shardscope.backward_start` on the first op
// of the backward pass, `shardscope.gradient_of = array<i64: k, ...>` (one entry per result, -1 for none) on
// the ops whose results are parameter gradients.
void Parser::marksFrom(const AttrDict& attrs, Pending& p) const {
    if (lookup(attrs, "shardscope.backward_start"))
        p.backwardStart = true;
    if (const Attr* g = lookup(attrs, "shardscope.gradient_of"))
        for (const auto& item : g->items)
            p.gradientOf.push_back(item.integer);
}

// Results of a pretty op from its trailing type: a function type gives them, otherwise `trailing` says.
void Parser::finishOp(Pending& p, const FunctionType& f, TrailingType trailing) {
    if (f.isFunction) {
        takeResults(p, f.results);
        return;
    }
    if (trailing == TrailingType::EveryValue && !f.inputs.empty())
        p.resultTypes.push_back(tensorOf(f.inputs.back()));
}

// The declared result types; one tuple result becomes its tensors (and resultTuple_ its shape), as the graph
// has no tuple values. Which ops may return a tuple is checked once the op is known (tupleResultAllowed).
void Parser::takeResults(Pending& p, const std::vector<ParsedType>& results) {
    for (const auto& t : results) {
        if (!t.tuple) {
            p.resultTypes.push_back(t.type);
            continue;
        }
        if (results.size() != 1)
            lex_.failAt(t.at,
                        "'" + opName_ +
                            "' returns a tuple among other results; only a single tuple result is supported");
        appendLeaves(t, p.resultTypes);
        resultTuple_ = t;
    }
}

void Parser::tupleResultAllowed(OpKind kind, std::size_t at) {
    if (!resultTuple_ || kind == OpKind::CustomCall || kind == OpKind::Opaque)
        return;
    lex_.failAt(
        at,
        "'" + opName_ +
            "' returning a tuple is not supported (only custom_call, func.call and ops we do not model may)");
}

SourceLocation Parser::opLocation(std::size_t at) {
    const std::optional<LocInfo> loc = lex_.optionalLocation();
    SourceLocation location = lex_.here(at);
    if (loc) {
        location.name = loc->name;
        if (!loc->alias.empty())
            pendingAlias_ = loc->alias;
    }
    return location;
}

}  // namespace shardscope::import::stablehlo_import

namespace shardscope::import {

Result<ir::Graph> importStableHlo(std::string_view text, const std::string& fileName,
                                  const ImportOptions& options) {
    return stablehlo_import::Parser(text, fileName, options).run();
}

Result<std::vector<std::string>> stableHloFunctions(std::string_view text, const std::string& fileName) {
    const ImportOptions none;
    return stablehlo_import::Parser(text, fileName, none).functionNames();
}

}  // namespace shardscope::import
