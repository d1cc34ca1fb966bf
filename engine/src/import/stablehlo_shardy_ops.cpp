// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Shardy's ops: sharding constraints, reshards and collectives (identities that move a tensor to a sharding),
// data-flow edges and propagation barriers, named computations (inlined) and manual computations (turned back
// into their global program, manual_computation.h).
#include "stablehlo_parser.h"

namespace shardscope::import::stablehlo_import {

using ir::ShardingAnnotation;

// ----- the pretty forms ------------------------------------------------------------------------------------

// `sdy.sharding_constraint %x <@mesh, [...]> : t`, and sdy.reshard alike.
std::vector<ValueId> Parser::readShardingConstraint(PrettyOp& op) {
    Pending& p = op.pending;
    p.operands = prettyOperands();
    const Attr sharding = readAttribute(lex_);
    readOpTail(p, TrailingType::EveryValue);
    p.sharding = shardyAnnotation(sharding);
    return reshard(std::move(p), opLocation(op.at), op.resultCount, op.at);
}

// `sdy.all_gather [{"x"}, {}] %x out_sharding=<@mesh, [...]> : t` (sdy.all_reduce: `{"x"} %x ...`).
std::vector<ValueId> Parser::readShardyCollective(PrettyOp& op) {
    std::string axes;
    const char open = lex_.peek();
    if (open == '[' || open == '{') {
        lex_.take();
        const char close = open == '[' ? ']' : '}';
        axes = open + lex_.balanced(open, close) + close;
    }
    op.pending.operands = prettyOperands();
    readOpTail(op.pending, TrailingType::EveryValue);
    auto results = reshard(std::move(op.pending), opLocation(op.at), op.resultCount, op.at);
    recordShardyCollective(results, op.name, std::move(axes));
    return results;
}

// `sdy.propagation_barrier %x allowed_direction=BOTH : t`, `sdy.data_flow_edge %x sharding=<...> : t`: the
// operand itself, or a reshard when a sharding is given.
std::vector<ValueId> Parser::readShardyIdentity(PrettyOp& op) {
    Pending& p = op.pending;
    p.operands = prettyOperands();
    std::optional<ShardingAnnotation> sharding;
    while (isIdStart(lex_.peek())) {
        const std::string key = lex_.identifier();
        lex_.expect("=");
        const Attr value = readAttribute(lex_);
        if (key == "sharding")
            sharding = shardyAnnotation(value);
    }
    readOpTail(p, TrailingType::EveryValue);
    if (!sharding) {
        lex_.optionalLocation();
        return p.operands;
    }
    p.sharding = sharding;
    return reshard(std::move(p), opLocation(op.at), op.resultCount, op.at);
}

std::vector<ValueId> Parser::readManualComputation(PrettyOp& op) {
    lex_.expect("(");
    op.pending.operands = operandList(')');
    lex_.expect(")");
    return manualComputation(std::move(op.pending), op.resultCount, op.at);
}

// ----- the generic forms -----------------------------------------------------------------------------------

// The results of a Shardy op in the generic form, or nullopt when `op` is not one of those handled here.
std::optional<std::vector<ValueId>> Parser::genericShardyOp(GenericOp& op, std::size_t resultCount,
                                                            std::size_t at) {
    const std::string& name = op.name;
    Pending& p = op.pending;
    if (name == "sdy.sharding_constraint" || name == "sdy.reshard" || name == "sdy.data_flow_edge" ||
        isShardyCollective(name)) {
        for (const char* key : {"sharding", "out_sharding"})
            if (const Attr* a = lookup(op.attributes, key))
                p.sharding = shardyAnnotation(*a);
        if (name != "sdy.data_flow_edge" || p.sharding) {
            auto results = reshard(std::move(p), op.location, resultCount, at);
            if (isShardyCollective(name))
                recordShardyCollective(results, name, {});
            return results;
        }
    }
    if (name == "sdy.data_flow_edge" || name == "sdy.propagation_barrier") {  // identities
        pendingAlias_.clear();
        return p.operands;
    }
    if (name == "sdy.manual_computation")
        return genericManualComputation(op, resultCount, at);
    return std::nullopt;
}

// `"sdy.manual_computation"(%x) <{in_shardings = #sdy.sharding_per_value<[...]>, manual_axes = ...}>
// ({...})`.
std::vector<ValueId> Parser::genericManualComputation(GenericOp& op, std::size_t resultCount,
                                                      std::size_t at) {
    // The inside of the brackets of a `#sdy.sharding_per_value<[...]>`.
    auto listed = [&](const char* key) {
        const Attr* a = lookup(op.attributes, key);
        std::string text = a && !a->items.empty() ? a->items.front().text : std::string();
        if (const auto open = text.find('['); open != std::string::npos && text.rfind(']') > open)
            text = text.substr(open + 1, text.rfind(']') - open - 1);
        return text;
    };
    Pending& p = op.pending;
    if (p.regions.size() != 1 || p.resultTypes.size() != resultCount)
        lex_.failAt(at, "'sdy.manual_computation' needs one region and a result per name");
    ManualComputation mc;
    mc.inShardings = shardingItems(listed("in_shardings"));
    mc.outShardings = shardingItems(listed("out_shardings"));
    if (const Attr* a = lookup(op.attributes, "manual_axes"); a && !a->items.empty())
        mc.manualAxes = quotedWords(a->items.front().text);
    mc.body = std::move(p.regions.front());
    p.regions.clear();
    pendingAlias_.clear();
    return globalManualComputation(std::move(p), std::move(mc), op.location, at);
}

// ----- reshards --------------------------------------------------------------------------------------------

// An identity that moves a tensor to the sharding `p.sharding` (sdy.sharding_constraint, sdy.reshard,
// Shardy's collectives): a "Sharding" custom call, as JAX's sharding constraints import.
std::vector<ValueId> Parser::reshard(Pending p, const SourceLocation& location, std::size_t resultCount,
                                     std::size_t at) {
    if (p.operands.size() != 1)
        lex_.failAt(at, "'" + opName_ + "' takes one tensor, not " + std::to_string(p.operands.size()));
    if (isShardyCollective(opName_) && warnedOps_.insert(opName_).second)
        warnings_.push_back(
            makeWarning("stablehlo.shardy-collective",
                        "'" + opName_ +
                            "' imports as a reshard to its out_sharding: in Shardy's global view it "
                            "keeps the tensor's value, and the plan chooses its own collectives",
                        location));
    p.kind = OpKind::CustomCall;
    p.attributes = ir::CustomCallAttributes{"Sharding", ""};
    if (p.resultTypes.empty())
        p.resultTypes = {graph_.type(p.operands.front())};
    return emit(std::move(p), location, resultCount, at);
}

ValueId Parser::shardingIdentity(ValueId value, const std::string& sharding, const SourceLocation& location,
                                 std::size_t at) {
    Pending identity;
    identity.operands = {value};
    identity.sharding = ShardingAnnotation{ShardingAnnotation::Format::Shardy, "#sdy.sharding" + sharding};
    return reshard(std::move(identity), location, 1, at).front();
}

void Parser::recordShardyCollective(const std::vector<ValueId>& results, const std::string& name,
                                    std::string axes) {
    if (!results.empty() && graph_.value(results.front()).producer.valid())
        shardyCollectives_[graph_.value(results.front()).producer.index] =
            ShardyCollective{name, std::move(axes)};
}

// ----- named and manual computations -----------------------------------------------------------------------

// `(%a: t loc(...), ...)`: the arguments of a Shardy op's block.
std::vector<std::pair<std::string, ParsedType>> Parser::blockArguments() {
    lex_.expect("(", "to open the block's arguments");
    std::vector<std::pair<std::string, ParsedType>> arguments;
    if (!lex_.consume(")")) {
        do {
            std::string argument = lex_.valueName();
            lex_.expect(":");
            arguments.emplace_back(std::move(argument), readType(lex_));
            lex_.optionalLocation();
        } while (lex_.consume(","));
        lex_.expect(")", "to close the block's arguments");
    }
    return arguments;
}

// sdy.named_computation<"name">(%x) in_shardings=[...] out_shardings=[...] (%a: t) { ... sdy.return %r : t }
// : (t) -> t. A named group of ops: its body is inlined, with its shardings as reshards of its operands and
// results.
std::vector<ValueId> Parser::namedComputation(std::size_t resultCount, std::size_t at) {
    lex_.expect("<");
    lex_.balanced('<', '>');
    lex_.expect("(");
    std::vector<ValueId> operands = operandList(')');
    lex_.expect(")");
    std::string shardings[2];  // in, out: the items of `[<@mesh, [...]>, ...]`
    for (const char* key : {"in_shardings", "out_shardings"})
        if (lex_.consume(key)) {
            lex_.expect("=");
            lex_.expect("[");
            shardings[key[0] == 'o'] = lex_.balanced('[', ']');
        }
    // Each item of `items` becomes a reshard of the matching value of `values`.
    auto constrain = [&](const std::string& items, std::vector<ValueId>& values) {
        std::size_t k = 0;
        for (const std::string& item : shardingItems(items)) {
            if (k >= values.size())
                break;
            values[k] = shardingIdentity(values[k], item, lex_.here(at), at);
            ++k;
        }
    };
    constrain(shardings[0], operands);
    const auto arguments = blockArguments();
    if (arguments.size() != operands.size())
        lex_.failAt(at, "sdy.named_computation passes " + std::to_string(operands.size()) +
                            " operand(s) to " + std::to_string(arguments.size()) + " block argument(s)");
    scopes_.emplace_back();
    for (std::size_t i = 0; i < arguments.size(); ++i)
        bind(arguments[i].first, {operands[i]});
    lex_.expect("{", "to open the named computation's body");
    std::vector<ValueId> results = parseBody();
    scopes_.pop_back();
    if (lex_.peek() == '{')
        readDictionary(lex_);
    lex_.expect(":", "before the op's type");
    readFunctionType(lex_);
    lex_.optionalLocation();
    constrain(shardings[1], results);
    if (results.size() != resultCount)
        lex_.failAt(at, "sdy.named_computation returns " + std::to_string(results.size()) +
                            " value(s), the op binds " + std::to_string(resultCount));
    return results;
}

// sdy.manual_computation(%x) in_shardings=[<@mesh, [...]>] out_shardings=[...] manual_axes={"x"} (%a: t) {
// ... sdy.return %r : t } : (T) -> T, after its operands.
std::vector<ValueId> Parser::manualComputation(Pending p, std::size_t resultCount, std::size_t at) {
    ManualComputation mc;
    std::string in, out;
    while (!lex_.lookingAt("(") && !lex_.eof()) {
        const std::string key = lex_.identifier("in_shardings, out_shardings or manual_axes");
        lex_.expect("=");
        lex_.skip();
        if (key != "in_shardings" && key != "out_shardings" && key != "manual_axes")
            lex_.failAt(at, "unexpected '" + key + "' in sdy.manual_computation");
        if (lex_.peek() == '[') {
            lex_.take();
            (key == "out_shardings" ? out : in) = lex_.balanced('[', ']');
        } else if (lex_.peek() == '{') {
            lex_.take();
            mc.manualAxes = quotedWords(lex_.balanced('{', '}'));
        } else {
            readAttribute(lex_);
        }
    }
    const auto arguments = blockArguments();
    scopes_.emplace_back();
    for (const auto& [argument, t] : arguments) {
        const ValueId v = graph_.addValue(tensorOf(t));
        mc.body.arguments.push_back(v);
        bind(argument, {v});
    }
    // The body is parsed like a region whose arguments are already bound.
    lex_.expect("{");
    parseBodyInto(mc.body);
    scopes_.pop_back();
    const std::size_t typeAt = lex_.offset();
    lex_.expect(":", "before the op's type");
    finishOp(p, readFunctionType(lex_), TrailingType::FunctionOnly);
    const SourceLocation location = opLocation(at);
    pendingAlias_.clear();
    if (p.resultTypes.size() != resultCount)
        lex_.failAt(typeAt, "'sdy.manual_computation' declares " + std::to_string(resultCount) +
                                " result(s) but its type gives " + std::to_string(p.resultTypes.size()));
    mc.inShardings = shardingItems(in);
    mc.outShardings = shardingItems(out);
    return globalManualComputation(std::move(p), std::move(mc), location, at);
}

// The manual computation `mc` (operands and result types in `p`) as its global program, its in_shardings on
// identity ops (Sharding custom calls, as a sharding constraint imports) feeding the body and its
// out_shardings on identity ops after it, so that the reference plan reads them.
std::vector<ValueId> Parser::globalManualComputation(Pending p, ManualComputation mc,
                                                     const SourceLocation& location, std::size_t at) {
    mc.resultTypes = p.resultTypes;
    mc.location = location;
    for (std::size_t i = 0; i < p.operands.size(); ++i)
        mc.operands.push_back(i < mc.inShardings.size()
                                  ? shardingIdentity(p.operands[i], mc.inShardings[i], location, at)
                                  : p.operands[i]);
    auto program = globalProgram(graph_, mc, shardyCollectives_);
    if (!program) {
        const Diagnostic& d = program.diagnostics().front();
        throw ParseError{lex_.offsetOf(d.location).value_or(at), d.message, d.code};
    }
    manualComputations_ = true;
    for (OpId id : program->ops)
        insertion_->push_back(id);
    if (program->manual)
        graph_.partitioned = true;
    std::vector<ValueId> results;
    for (std::size_t i = 0; i < program->results.size(); ++i)
        results.push_back(i < mc.outShardings.size()
                              ? shardingIdentity(program->results[i], mc.outShardings[i], location, at)
                              : program->results[i]);
    return results;
}

}  // namespace shardscope::import::stablehlo_import
