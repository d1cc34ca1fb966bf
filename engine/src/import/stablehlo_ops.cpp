// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Statements of a block (result names, terminators), ops in the generic form, and the tuple ops that only
// rebind names.
#include <set>

#include "stablehlo_parser.h"

namespace shardscope::import::stablehlo_import {

namespace {

const std::set<std::string, std::less<>> kChloUnary{
    "chlo.erf",    "chlo.erfc",       "chlo.erf_inv", "chlo.lgamma",     "chlo.digamma",
    "chlo.asin",   "chlo.acos",       "chlo.atan",    "chlo.sinh",       "chlo.cosh",
    "chlo.asinh",  "chlo.acosh",      "chlo.atanh",   "chlo.tan",        "chlo.conj",
    "chlo.square", "chlo.bessel_i1e", "chlo.is_inf",  "chlo.is_neg_inf", "chlo.is_pos_inf"};

const std::set<std::string, std::less<>> kShardyCollectives{"sdy.all_gather", "sdy.all_slice",
                                                            "sdy.all_reduce", "sdy.reduce_scatter",
                                                            "sdy.all_to_all", "sdy.collective_permute"};

}  // namespace

std::optional<OpKind> dialectKind(std::string_view op) {
    if (op.rfind("stablehlo.", 0) != 0 && op.rfind("mhlo.", 0) != 0)
        return std::nullopt;
    return ir::parseOpKind(op.substr(op.find('.') + 1));
}

std::optional<OpKind> modelledKind(std::string_view op) {
    if (isPlainDot(op))
        return OpKind::DotGeneral;
    if (kChloUnary.count(op))
        return OpKind::OtherElementwise;
    if (op == "sdy.constant" || op == "arith.constant")
        return OpKind::Constant;
    return dialectKind(op);
}

bool isPlainDot(std::string_view op) {
    return op == "stablehlo.dot" || op == "mhlo.dot";
}

bool isShardyCollective(std::string_view op) {
    return kShardyCollectives.count(op) != 0;
}

// ----- statements ------------------------------------------------------------------------------------------

std::optional<std::vector<ValueId>> Parser::statement() {
    lex_.skip();
    const std::size_t at = lex_.offset();
    const std::vector<std::string> results = resultNames();
    lex_.skip();
    if (results.empty())
        if (auto values = terminator())
            return values;
    resultTuple_.reset();
    std::vector<ValueId> produced = operation(results, at);
    if (auto tuple = std::exchange(resultTuple_, std::nullopt)) {
        if (results.size() != 1)
            lex_.failAt(
                at, "an op returning a tuple must define one name, not " + std::to_string(results.size()));
        bindTuple(results.front(), std::move(produced), *tuple);
        return std::nullopt;
    }
    bindResults(results, produced, at);
    return std::nullopt;
}

// `%a, %b:2 =` -> "a", "b#0", "b#1"; nothing when the statement defines no names.
std::vector<std::string> Parser::resultNames() {
    std::vector<std::string> results;
    if (lex_.peek() != '%')
        return results;
    do {
        const std::string name = lex_.valueName();
        std::size_t count = 1;
        if (lex_.consume(":"))
            count = static_cast<std::size_t>(lex_.integer());
        if (count == 0 || count > 100000)
            lex_.fail("bad result count");
        if (count == 1) {
            results.push_back(name);
        } else {
            for (std::size_t i = 0; i < count; ++i)
                results.push_back(name + "#" + std::to_string(i));
        }
    } while (lex_.consume(","));
    lex_.expect("=", "after the result names");
    return results;
}

// A terminator's operands, or nullopt when the statement is not one.
std::optional<std::vector<ValueId>> Parser::terminator() {
    for (std::string_view t : {"func.return", "stablehlo.return", "sdy.return", "mhlo.return", "return"}) {
        if (!lex_.consume(t))
            continue;
        std::vector<ValueId> values;
        if (lex_.peek() == '%')
            values = operandList(':', true);
        if (lex_.consume(":"))
            readFunctionType(lex_);
        lex_.optionalLocation();
        return values;
    }
    if (!lex_.lookingAt("\"stablehlo.return\"") && !lex_.lookingAt("\"func.return\"") &&
        !lex_.lookingAt("\"sdy.return\""))
        return std::nullopt;
    lex_.quotedString();
    lex_.expect("(");
    std::vector<ValueId> values = operandList(')', true);
    lex_.expect(")");
    if (lex_.consume(":"))
        readFunctionType(lex_);
    lex_.optionalLocation();
    return values;
}

// Binds each name to its result; "x#i" names (of `%x:2 = ...`) are grouped back under the base name.
void Parser::bindResults(const std::vector<std::string>& names, const std::vector<ValueId>& produced,
                         std::size_t at) {
    if (names.empty())
        return;
    if (produced.size() != names.size())
        lex_.failAt(at, "op defines " + std::to_string(names.size()) + " name(s) for " +
                            std::to_string(produced.size()) + " result(s)");
    std::size_t i = 0;
    while (i < names.size()) {
        const auto hash = names[i].find('#');
        if (hash == std::string::npos) {
            bind(names[i], {produced[i]});
            ++i;
            continue;
        }
        const std::string base = names[i].substr(0, hash);
        std::vector<ValueId> group;
        while (i < names.size() && names[i].compare(0, hash + 1, base + "#") == 0)
            group.push_back(produced[i++]);
        bind(base, group);
    }
}

std::vector<ValueId> Parser::operation(const std::vector<std::string>& resultNames, std::size_t at) {
    const bool generic = lex_.peek() == '"';
    if (!generic && !isIdStart(lex_.peek()))
        lex_.expected("an operation");
    const std::string name = generic ? lex_.quotedString() : lex_.identifier("an operation name");
    if (name == "stablehlo.tuple" || name == "mhlo.tuple" || name == "stablehlo.get_tuple_element" ||
        name == "mhlo.get_tuple_element")
        return tupleOperation(name, generic);
    return generic ? genericOperation(name, resultNames.size(), at)
                   : prettyOperation(name, resultNames.size(), at);
}

// ----- tuples ----------------------------------------------------------------------------------------------

// stablehlo.tuple and get_tuple_element emit no op: a tuple is its tensors, bound under one name.
//   %t = stablehlo.tuple %a, %b : tuple<A, B>                  "stablehlo.tuple"(%a, %b) : (A, B) -> tuple<A,
//   B> %x = stablehlo.get_tuple_element %t[1] : (tuple<A, B>) -> B  "stablehlo.get_tuple_element"(%t) <{index
//   = 1 : i32}>
std::vector<ValueId> Parser::tupleOperation(const std::string& name, bool generic) {
    opName_ = name;
    const bool element = name.find("get_tuple_element") != std::string::npos;
    if (generic)
        lex_.expect("(", "to open the operand list");
    std::vector<std::pair<std::string, std::size_t>> operands;  // names, and where they are
    while (lex_.peek() == '%') {
        const std::size_t valueAt = lex_.offset();
        operands.emplace_back(lex_.valueName(), valueAt);
        if (!lex_.consume(","))
            break;
    }
    if (generic)
        lex_.expect(")", "to close the operand list");
    std::int64_t index = -1;
    if (element && !generic) {
        lex_.expect("[");
        index = lex_.integer();
        lex_.expect("]");
    }
    AttrDict attrs = generic ? readProperties() : AttrDict{};
    appendAttributes(attrs);
    lex_.expect(":", "before the op's type");
    const std::size_t typeAt = lex_.offset();
    const FunctionType f = readFunctionType(lex_);
    lex_.optionalLocation();
    if (element) {
        if (const Attr* i = lookup(attrs, "index"); i && index < 0)
            index = i->integer;
        return tupleElement(operands, index, typeAt);
    }
    const std::vector<ParsedType>& declared = f.isFunction ? f.results : f.inputs;
    if (declared.size() != 1 || !declared.front().tuple)
        lex_.expectedAt(typeAt, "a tuple<...> result type");
    std::vector<ValueId> leaves;
    for (const auto& [operand, valueAt] : operands)
        for (ValueId v : useFlattened(operand, valueAt))
            leaves.push_back(v);
    resultTuple_ = declared.front();
    return leaves;
}

std::vector<ValueId> Parser::tupleElement(const std::vector<std::pair<std::string, std::size_t>>& operands,
                                          std::int64_t index, std::size_t typeAt) {
    if (operands.size() != 1 || index < 0)
        lex_.failAt(typeAt, "'" + opName_ + "' needs one tuple operand and an index");
    const auto& [operand, operandAt] = operands.front();
    std::size_t resultIndex = 0;
    const Binding& tuple = binding(operand, operandAt, resultIndex);
    if (!tuple.tuple || static_cast<std::size_t>(index) >= tuple.tuple->elements.size())
        lex_.failAt(operandAt, "'" + opName_ + "': %" + operand + " is not a tuple of more than " +
                                   std::to_string(index) + " element(s)");
    std::size_t offset = 0;
    for (std::int64_t k = 0; k < index; ++k)
        offset += leafCount(tuple.tuple->elements[static_cast<std::size_t>(k)]);
    const ParsedType& picked = tuple.tuple->elements[static_cast<std::size_t>(index)];
    const auto first = tuple.values.begin() + static_cast<std::ptrdiff_t>(offset);
    std::vector<ValueId> leaves(first, first + static_cast<std::ptrdiff_t>(leafCount(picked)));
    if (picked.tuple)
        resultTuple_ = picked;
    return leaves;
}

// ----- the generic form ------------------------------------------------------------------------------------

// `<{properties}>`, or nothing.
AttrDict Parser::readProperties() {
    if (!lex_.consume("<{"))
        return {};
    lex_.seek(lex_.offset() - 1);
    AttrDict properties = readDictionary(lex_);
    lex_.expect(">", "to close the properties");
    return properties;
}

// A `{attributes}` dictionary, if one is next, after `attrs`.
void Parser::appendAttributes(AttrDict& attrs) {
    if (lex_.peek() != '{')
        return;
    const AttrDict more = readDictionary(lex_);
    attrs.insert(attrs.end(), more.begin(), more.end());
}

// `({...}, {...})`, or nothing.
std::vector<ir::Region> Parser::readRegionList() {
    std::vector<ir::Region> regions;
    if (!lex_.lookingAt("({"))
        return regions;
    lex_.expect("(");
    do
        regions.push_back(region());
    while (lex_.consume(","));
    lex_.expect(")", "to close the region list");
    return regions;
}

std::vector<ValueId> Parser::genericOperation(const std::string& name, std::size_t resultCount,
                                              std::size_t at) {
    opName_ = name;
    GenericOp op = readGenericOp(name, at);
    if (name == "func.call" || name == "stablehlo.composite")
        return inlineGenericCall(op, at);
    if (auto results = genericShardyOp(op, resultCount, at))
        return std::move(*results);
    const std::optional<OpKind> kind = modelledKind(name);
    if (!kind)
        return emitOpaque(std::move(op.pending), op.location, resultCount, at);
    return emitGeneric(std::move(op), *kind, resultCount, at);
}

// Everything of a generic op after its name. Calls, custom calls and ops we do not model take a tuple as its
// tensors.
GenericOp Parser::readGenericOp(const std::string& name, std::size_t at) {
    GenericOp op;
    op.name = name;
    lex_.expect("(", "to open the operand list");
    const std::optional<OpKind> kind = dialectKind(name);
    op.pending.operands = operandList(')', !kind || kind == OpKind::CustomCall);
    lex_.expect(")", "to close the operand list");
    if (lex_.consume("["))
        lex_.balanced('[', ']');  // successors: not supported, but skip
    op.attributes = readProperties();
    op.pending.regions = readRegionList();
    appendAttributes(op.attributes);
    lex_.expect(":", "before the op's type");
    const FunctionType f = readFunctionType(lex_);
    op.location = opLocation(at);
    takeResults(op.pending, f.results);
    if (!f.isFunction)
        lex_.failAt(at, "generic op '" + name + "' needs a function type (operands) -> results");
    op.pending.sharding = shardingFrom(op.attributes);
    marksFrom(op.attributes, op.pending);
    return op;
}

// func.call and stablehlo.composite are inlined.
std::vector<ValueId> Parser::inlineGenericCall(const GenericOp& op, std::size_t at) {
    const Attr* callee = lookup(op.attributes, op.name == "func.call" ? "callee" : "decomposition");
    if (!callee || callee->kind != Attr::Kind::Symbol)
        lex_.failAt(at, "'" + op.name + "' without a callee symbol");
    return inlineFunction(callee->text, op.pending.operands, at);
}

std::vector<ValueId> Parser::emitGeneric(GenericOp op, OpKind kind, std::size_t resultCount, std::size_t at) {
    Pending& p = op.pending;
    p.kind = kind;
    tupleResultAllowed(kind, at);
    if (kind == OpKind::OtherElementwise)
        p.attributes = ir::OpaqueAttributes{op.name};
    else
        p.attributes = attributesFor(kind, op.attributes, p, at);
    if (isPlainDot(op.name))
        p.attributes = plainDotDimensions(graph_.type(p.operands.at(0)));
    if (kind == OpKind::While)
        p.attributes = loopAttributes(p);
    return emit(std::move(p), op.location, resultCount, at);
}

}  // namespace shardscope::import::stablehlo_import
