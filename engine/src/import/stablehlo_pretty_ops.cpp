// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Ops in their pretty form (`%0 = stablehlo.add %a, %b : tensor<4xf32>`). Each op prints its own syntax, so a
// table says how to read each one after its name: a reader for each shape of syntax (operands and a type,
// operands with inline attributes, `dims = [...]` lists, ops with regions...) and for the ops of a form of
// their own. Shardy's readers are in stablehlo_shardy_ops.cpp.
#include <unordered_map>

#include "stablehlo_parser.h"

namespace shardscope::import::stablehlo_import {

using namespace ir;

std::vector<ValueId> Parser::prettyOperation(const std::string& name, std::size_t resultCount,
                                             std::size_t at) {
    opName_ = name;
    // arith.constant imports as a constant only with a dense literal (`arith.constant 1 : i32` is opaque).
    const bool scalarArith = name == "arith.constant" && !lex_.lookingAt("dense");
    PrettyOp op{name, scalarArith ? std::nullopt : modelledKind(name), resultCount, at, {}};
    op.pending.kind = op.kind.value_or(OpKind::Opaque);
    return prettyReader(op.name, op.kind)(*this, op);
}

// The pretty forms by op name: an op we model is found by its kind (`mhlo.add` as `stablehlo.add`), any other
// by its own name. A modelled op not listed reads as `%a, %b : type`; an op we do not model, as an opaque op.
Parser::PrettyReader Parser::prettyReader(const std::string& name, std::optional<OpKind> kind) {
    constexpr auto kEveryValue = TrailingType::EveryValue;
    constexpr auto kFunctionOnly = TrailingType::FunctionOnly;
    static const std::unordered_map<std::string, PrettyReader> kForms = {
        // Calls and composites are inlined.
        {"func.call", [](Parser& r, PrettyOp& op) { return r.readCall(op); }},
        {"call", [](Parser& r, PrettyOp& op) { return r.readCall(op); }},
        {"stablehlo.composite", [](Parser& r, PrettyOp& op) { return r.readComposite(op); }},
        // Shardy's ops.
        {"sdy.sharding_constraint", [](Parser& r, PrettyOp& op) { return r.readShardingConstraint(op); }},
        {"sdy.reshard", [](Parser& r, PrettyOp& op) { return r.readShardingConstraint(op); }},
        {"sdy.all_gather", [](Parser& r, PrettyOp& op) { return r.readShardyCollective(op); }},
        {"sdy.all_slice", [](Parser& r, PrettyOp& op) { return r.readShardyCollective(op); }},
        {"sdy.all_reduce", [](Parser& r, PrettyOp& op) { return r.readShardyCollective(op); }},
        {"sdy.reduce_scatter", [](Parser& r, PrettyOp& op) { return r.readShardyCollective(op); }},
        {"sdy.all_to_all", [](Parser& r, PrettyOp& op) { return r.readShardyCollective(op); }},
        {"sdy.collective_permute", [](Parser& r, PrettyOp& op) { return r.readShardyCollective(op); }},
        {"sdy.propagation_barrier", [](Parser& r, PrettyOp& op) { return r.readShardyIdentity(op); }},
        {"sdy.data_flow_edge", [](Parser& r, PrettyOp& op) { return r.readShardyIdentity(op); }},
        {"sdy.named_computation",
         [](Parser& r, PrettyOp& op) { return r.namedComputation(op.resultCount, op.at); }},
        {"sdy.manual_computation", [](Parser& r, PrettyOp& op) { return r.readManualComputation(op); }},
        // `%a, key = value, ... : type`.
        {"stablehlo.reduce_precision",
         [](Parser& r, PrettyOp& op) { return r.readInlineAttributeOp(op, kEveryValue); }},
        {"stablehlo.cholesky",
         [](Parser& r, PrettyOp& op) { return r.readInlineAttributeOp(op, kEveryValue); }},
        {"stablehlo.rng", [](Parser& r, PrettyOp& op) { return r.readInlineAttributeOp(op, kFunctionOnly); }},
        {"stablehlo.rng_bit_generator",
         [](Parser& r, PrettyOp& op) { return r.readInlineAttributeOp(op, kFunctionOnly); }},
        {"stablehlo.fft", [](Parser& r, PrettyOp& op) { return r.readFft(op); }},
        // `%a, dims = [...] : type`.
        {"stablehlo.broadcast_in_dim",
         [](Parser& r, PrettyOp& op) { return r.readDimensionsOp<BroadcastDimensions>(op); }},
        {"stablehlo.transpose", [](Parser& r, PrettyOp& op) { return r.readDimensionsOp<Permutation>(op); }},
        {"stablehlo.reverse",
         [](Parser& r, PrettyOp& op) { return r.readDimensionsOp<DimensionsAttribute>(op); }},
        // `%a, %b : type` with results of their own.
        {"stablehlo.dynamic_update_slice",
         [](Parser& r, PrettyOp& op) { return r.readDynamicUpdateSlice(op); }},
        {"stablehlo.optimization_barrier",
         [](Parser& r, PrettyOp& op) { return r.readOptimizationBarrier(op); }},
        // Forms of their own.
        {"stablehlo.compare", [](Parser& r, PrettyOp& op) { return r.readCompare(op); }},
        {"stablehlo.constant", [](Parser& r, PrettyOp& op) { return r.readConstant(op); }},
        {"stablehlo.iota", [](Parser& r, PrettyOp& op) { return r.readIota(op); }},
        {"stablehlo.dot_general", [](Parser& r, PrettyOp& op) { return r.readDot(op); }},
        {"stablehlo.slice", [](Parser& r, PrettyOp& op) { return r.readSlice(op); }},
        {"stablehlo.concatenate", [](Parser& r, PrettyOp& op) { return r.readConcatenate(op); }},
        {"stablehlo.pad", [](Parser& r, PrettyOp& op) { return r.readPad(op); }},
        {"stablehlo.dynamic_slice", [](Parser& r, PrettyOp& op) { return r.readDynamicSlice(op); }},
        {"stablehlo.custom_call", [](Parser& r, PrettyOp& op) { return r.readCustomCall(op); }},
        // Ops with regions.
        {"stablehlo.reduce", [](Parser& r, PrettyOp& op) { return r.readReduce(op); }},
        {"stablehlo.convolution", [](Parser& r, PrettyOp& op) { return r.readConvolution(op); }},
        {"stablehlo.while", [](Parser& r, PrettyOp& op) { return r.readWhile(op); }},
        // Modelled ops whose pretty form we cannot read.
        {"stablehlo.sort", [](Parser& r, PrettyOp& op) { return r.readUnreadableOp(op); }},
        {"stablehlo.gather", [](Parser& r, PrettyOp& op) { return r.readUnreadableOp(op); }},
        {"stablehlo.scatter", [](Parser& r, PrettyOp& op) { return r.readUnreadableOp(op); }},
    };
    const auto form = kForms.find(kind ? "stablehlo." + std::string(mnemonic(*kind)) : name);
    if (form != kForms.end())
        return form->second;
    if (kind)
        return [](Parser& r, PrettyOp& op) { return r.readPlainOp(op); };
    return [](Parser& r, PrettyOp& op) { return r.readOpaque(op); };
}

// ----- the shared parts ------------------------------------------------------------------------------------

std::vector<ValueId> Parser::emitOp(PrettyOp& op) {
    const SourceLocation location = opLocation(op.at);
    return emit(std::move(op.pending), location, op.resultCount, op.at);
}

// An op's `{attributes}`, if any: its sharding and training-step marks go to `p`.
AttrDict Parser::readOpDictionary(Pending& p) {
    AttrDict attrs;
    if (lex_.peek() == '{')
        attrs = readDictionary(lex_);
    if (auto sharding = shardingFrom(attrs))
        p.sharding = std::move(sharding);
    marksFrom(attrs, p);
    return attrs;
}

// What follows the operands and inline attributes: Shardy's `out_sharding=<...>`, the `{attributes}` and the
// trailing type.
AttrDict Parser::readOpTail(Pending& p, TrailingType trailing) {
    if (lex_.consume("out_sharding")) {
        lex_.expect("=");
        p.sharding = shardyAnnotation(readAttribute(lex_));
    }
    AttrDict attrs = readOpDictionary(p);
    lex_.expect(":", "before the op's type");
    finishOp(p, readFunctionType(lex_), trailing);
    return attrs;
}

// `%a, %b : type`.
void Parser::readPlainForm(Pending& p) {
    p.operands = prettyOperands();
    readOpTail(p, TrailingType::EveryValue);
}

// `%a, key = value, ... : type`; returns the inline attributes.
AttrDict Parser::readInlineAttributeForm(Pending& p, TrailingType trailing) {
    p.operands = prettyOperands();
    AttrDict inlined;
    while (lex_.consume(",")) {
        std::string key = lex_.identifier();
        lex_.expect("=");
        inlined.emplace_back(std::move(key), readAttribute(lex_));
    }
    readOpTail(p, trailing);
    return inlined;
}

// ----- readers by shape ------------------------------------------------------------------------------------

// Elementwise ops, and other modelled ops that JAX prints generically but some printer may print pretty.
std::vector<ValueId> Parser::readPlainOp(PrettyOp& op) {
    if (op.kind == OpKind::OtherElementwise)
        op.pending.attributes = OpaqueAttributes{op.name};
    readPlainForm(op.pending);
    return emitOp(op);
}

// Sort, gather and scatter: pretty forms of their own that we do not read (the generic form is needed).
std::vector<ValueId> Parser::readUnreadableOp(PrettyOp& op) {
    readPlainForm(op.pending);
    lex_.failAt(op.at, "'" + op.name + "' in a pretty form we cannot read; print it in the generic form");
}

std::vector<ValueId> Parser::readInlineAttributeOp(PrettyOp& op, TrailingType trailing) {
    readInlineAttributeForm(op.pending, trailing);
    return emitOp(op);
}

std::vector<ValueId> Parser::readFft(PrettyOp& op) {
    const AttrDict inlined = readInlineAttributeForm(op.pending, TrailingType::EveryValue);
    if (const Attr* length = lookup(inlined, "length"))
        op.pending.attributes = DimensionsAttribute{intsOf(length)};
    return emitOp(op);
}

template <typename Attribute>
std::vector<ValueId> Parser::readDimensionsOp(PrettyOp& op) {
    op.pending.operands = prettyOperands();
    lex_.expectListedKey("dims");
    op.pending.attributes = Attribute{lex_.integerList()};
    readOpTail(op.pending, TrailingType::EveryValue);
    return emitOp(op);
}

std::vector<ValueId> Parser::readDynamicUpdateSlice(PrettyOp& op) {
    Pending& p = op.pending;
    readPlainForm(p);
    if (!p.operands.empty())
        p.resultTypes = {graph_.type(p.operands[0])};
    return emitOp(op);
}

// `%a, %b : t` with several operands: one result per operand, of its type.
std::vector<ValueId> Parser::readOptimizationBarrier(PrettyOp& op) {
    Pending& p = op.pending;
    readPlainForm(p);
    if (p.resultTypes.size() == 1 && p.operands.size() > 1) {
        p.resultTypes.clear();
        for (auto v : p.operands)
            p.resultTypes.push_back(graph_.type(v));
    }
    return emitOp(op);
}

// An op we do not model, in a pretty form we cannot know: its operands and trailing type.
std::vector<ValueId> Parser::readOpaque(PrettyOp& op) {
    Pending& p = op.pending;
    p.operands = prettyOperands();
    lex_.skip();
    while (!lex_.eof() && lex_.peek() != ':' && lex_.peek() != '{') {
        const char next = lex_.peek();
        if (next == '%') {
            const std::size_t valueAt = lex_.offset();
            p.operands.push_back(use(lex_.valueName(), valueAt));
        } else if (next == '(' || next == '[' || next == '<') {
            lex_.take();
            lex_.balanced(next, next == '(' ? ')' : next == '[' ? ']' : '>');
        } else if (next == '"') {
            lex_.quotedString();
        } else {
            lex_.take();
        }
    }
    readOpTail(p, TrailingType::EveryValue);
    const SourceLocation location = opLocation(op.at);
    return emitOpaque(std::move(p), location, op.resultCount, op.at);
}

// ----- calls -----------------------------------------------------------------------------------------------

// `func.call @f(%a, %b) : (A, B) -> C`.
std::vector<ValueId> Parser::readCall(PrettyOp& op) {
    const std::string callee = lex_.symbolName();
    lex_.expect("(");
    const std::vector<ValueId> arguments = operandList(')', true);
    lex_.expect(")");
    readOpTail(op.pending, TrailingType::FunctionOnly);
    lex_.optionalLocation();
    auto results = inlineFunction(callee, arguments, op.at);
    if (results.size() != (resultTuple_ ? leafCount(*resultTuple_) : op.resultCount))
        lex_.failAt(op.at, "@" + callee + " returns " + std::to_string(results.size()) +
                               " value(s), the call binds " + std::to_string(op.resultCount));
    return results;
}

// `stablehlo.composite "name" %a, %b {decomposition = @f, ...} : (A, B) -> C`.
std::vector<ValueId> Parser::readComposite(PrettyOp& op) {
    lex_.quotedString();
    const std::vector<ValueId> arguments = prettyOperands();
    const AttrDict attrs = readOpTail(op.pending, TrailingType::FunctionOnly);
    lex_.optionalLocation();
    const Attr* decomposition = lookup(attrs, "decomposition");
    if (!decomposition || decomposition->kind != Attr::Kind::Symbol)
        lex_.failAt(op.at, "stablehlo.composite without a decomposition");
    return inlineFunction(decomposition->text, arguments, op.at);
}

// ----- forms of their own ----------------------------------------------------------------------------------

// `stablehlo.compare LT, %a, %b, FLOAT : (A, B) -> C`.
std::vector<ValueId> Parser::readCompare(PrettyOp& op) {
    Pending& p = op.pending;
    lex_.skip();
    const std::size_t wordAt = lex_.offset();
    const auto direction = comparisonDirection(lex_.identifier("a comparison direction"));
    if (!direction)
        lex_.expectedAt(wordAt, "EQ, NE, GE, GT, LE or LT");
    lex_.expect(",");
    p.operands = prettyOperands();
    CompareType type = CompareType::Default;
    if (lex_.consume(","))
        type = compareType(lex_.identifier("a comparison type"));
    p.attributes = CompareAttributes{*direction, type};
    readOpTail(p, TrailingType::FunctionOnly);
    if (p.resultTypes.empty())
        p.resultTypes.push_back(TensorType{graph_.type(p.operands.at(0)).shape, ElementType::I1});
    return emitOp(op);
}

// `stablehlo.constant {attributes} dense<...> : tensor<...>`.
std::vector<ValueId> Parser::readConstant(PrettyOp& op) {
    Pending& p = op.pending;
    readOpDictionary(p);
    lex_.skip();
    const std::size_t literalAt = lex_.offset();
    const Attr value = readAttribute(lex_);
    if (value.kind != Attr::Kind::Dense || !value.hasType)
        lex_.expectedAt(literalAt, "a dense<...> : tensor<...> literal");
    p.resultTypes.push_back(value.type);
    p.attributes = ConstantAttributes{value.resource ? std::vector<double>{}
                                                     : decodeDense(value.text, value.type, literalAt)};
    return emitOp(op);
}

// `stablehlo.iota dim = 0 : tensor<...>`.
std::vector<ValueId> Parser::readIota(PrettyOp& op) {
    lex_.expect("dim");
    lex_.expect("=");
    op.pending.attributes = DimensionAttribute{lex_.integer()};
    readOpTail(op.pending, TrailingType::EveryValue);
    return emitOp(op);
}

// `stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [...]`;
// stablehlo.dot: `%a, %b` contracting the last dimension of a with the first of b.
std::vector<ValueId> Parser::readDot(PrettyOp& op) {
    Pending& p = op.pending;
    p.operands = prettyOperands();
    DotDimensions d;
    if (isPlainDot(op.name))
        d = plainDotDimensions(graph_.type(p.operands.at(0)));
    while (lex_.consume(",")) {
        const std::string key = lex_.identifier("a dot_general attribute");
        lex_.expect("=");
        if (key == "batching_dims") {
            d.lhsBatching = lex_.integerList();
            lex_.expect("x");
            d.rhsBatching = lex_.integerList();
        } else if (key == "contracting_dims") {
            d.lhsContracting = lex_.integerList();
            lex_.expect("x");
            d.rhsContracting = lex_.integerList();
        } else {
            readAttribute(lex_);  // precision, algorithm
        }
    }
    p.attributes = d;
    readOpTail(p, TrailingType::FunctionOnly);
    return emitOp(op);
}

// `stablehlo.slice %a [0:2, 1:4:2]`.
std::vector<ValueId> Parser::readSlice(PrettyOp& op) {
    op.pending.operands = prettyOperands();
    lex_.expect("[");
    SliceAttributes s;
    bool strided = false;
    if (!lex_.consume("]")) {
        do {
            s.start.push_back(lex_.integer());
            lex_.expect(":");
            s.limit.push_back(lex_.integer());
            std::int64_t stride = 1;
            if (lex_.consume(":"))
                stride = lex_.integer();
            strided = strided || stride != 1;
            s.strides.push_back(stride);
        } while (lex_.consume(","));
        lex_.expect("]");
    }
    if (!strided)
        s.strides.clear();
    op.pending.attributes = s;
    readOpTail(op.pending, TrailingType::FunctionOnly);
    return emitOp(op);
}

// `stablehlo.concatenate %a, %b, dim = 0`.
std::vector<ValueId> Parser::readConcatenate(PrettyOp& op) {
    op.pending.operands = prettyOperands();
    lex_.expectListedKey("dim");
    op.pending.attributes = DimensionAttribute{lex_.integer()};
    readOpTail(op.pending, TrailingType::FunctionOnly);
    return emitOp(op);
}

// `stablehlo.pad %a, %v, low = [0], high = [1], interior = [0]`.
std::vector<ValueId> Parser::readPad(PrettyOp& op) {
    op.pending.operands = prettyOperands();
    PadAttributes pad;
    lex_.expectListedKey("low");
    pad.low = lex_.integerList();
    lex_.expectListedKey("high");
    pad.high = lex_.integerList();
    lex_.expectListedKey("interior");
    pad.interior = lex_.integerList();
    op.pending.attributes = pad;
    readOpTail(op.pending, TrailingType::FunctionOnly);
    return emitOp(op);
}

// `stablehlo.dynamic_slice %a, %i, %j, sizes = [1, 4]`.
std::vector<ValueId> Parser::readDynamicSlice(PrettyOp& op) {
    op.pending.operands = prettyOperands();
    lex_.expectListedKey("sizes");
    op.pending.attributes = DynamicSliceAttributes{lex_.integerList()};
    readOpTail(op.pending, TrailingType::FunctionOnly);
    return emitOp(op);
}

// `stablehlo.custom_call @target(%a, %b) {backend_config = "..."} : (A, B) -> C`.
std::vector<ValueId> Parser::readCustomCall(PrettyOp& op) {
    CustomCallAttributes c;
    c.target = lex_.symbolName();
    lex_.expect("(");
    op.pending.operands = operandList(')', true);
    lex_.expect(")");
    c.backendConfig = backendConfigOf(readOpTail(op.pending, TrailingType::FunctionOnly));
    op.pending.attributes = c;
    return emitOp(op);
}

// ----- ops with regions ------------------------------------------------------------------------------------

// `stablehlo.reduce(%x init: %c), (%y init: %d) applies stablehlo.add across dimensions = [1] : sig`, or with
// `... : sig reducer(%a: t, %b: t) (%c: t, %d: t) { body }` for another combiner.
std::vector<ValueId> Parser::readReduce(PrettyOp& op) {
    std::vector<ValueId> inputs, inits;
    do {
        lex_.expect("(");
        const std::size_t valueAt = lex_.offset();
        inputs.push_back(use(lex_.valueName(), valueAt));
        lex_.expect("init");
        lex_.expect(":");
        const std::size_t initAt = lex_.offset();
        inits.push_back(use(lex_.valueName(), initAt));
        lex_.expect(")");
    } while (lex_.consume(","));
    Pending& p = op.pending;
    p.operands = inputs;
    p.operands.insert(p.operands.end(), inits.begin(), inits.end());
    std::optional<OpKind> applies;
    if (lex_.consume("applies")) {
        lex_.skip();
        const std::size_t opAt = lex_.offset();
        const std::string combiner = lex_.identifier("the combining op");
        applies = parseOpKind(combiner);
        if (!applies)
            lex_.failAt(opAt, "unknown combiner '" + combiner + "'");
    }
    lex_.expect("across");
    lex_.expect("dimensions");
    lex_.expect("=");
    Dims dims = lex_.integerList();
    readOpTail(p, TrailingType::FunctionOnly);
    p.regions.push_back(applies ? appliedReducer(*applies, inits, op.at) : reducerRegion());
    p.attributes = ReduceAttributes{std::move(dims), reducerOf(graph_, p.regions.front())};
    return emitOp(op);
}

// The body of `applies combiner`: one combiner op per init value, of its type.
Region Parser::appliedReducer(OpKind combiner, const std::vector<ValueId>& inits, std::size_t at) {
    Region body;
    std::vector<ValueId> lhs, rhs;
    for (auto v : inits)
        lhs.push_back(graph_.addValue(graph_.type(v)));
    for (auto v : inits)
        rhs.push_back(graph_.addValue(graph_.type(v)));
    body.arguments = lhs;
    body.arguments.insert(body.arguments.end(), rhs.begin(), rhs.end());
    for (std::size_t i = 0; i < inits.size(); ++i) {
        const OpId combine =
            graph_.addOp(combiner, {lhs[i], rhs[i]}, {graph_.type(inits[i])}, NoAttributes{}, lex_.here(at));
        body.ops.push_back(combine);
        body.results.push_back(graph_.op(combine).results.front());
    }
    return body;
}

// `reducer(%a: t, %b: t) (%c: t, %d: t) { body }`: the arguments pair up, each pair an accumulator and an
// element; the block takes every accumulator, then every element.
Region Parser::reducerRegion() {
    lex_.expect("reducer", "(or 'applies') for the reduce body");
    std::vector<std::pair<std::string, ValueId>> lhs, rhs;
    while (lex_.consume("(")) {
        for (auto* side : {&lhs, &rhs}) {
            std::string argument = lex_.valueName();
            lex_.expect(":");
            side->emplace_back(argument, graph_.addValue(tensorOf(readType(lex_))));
            lex_.optionalLocation();
            lex_.consume(",");
        }
        lex_.expect(")");
    }
    Region body;
    scopes_.emplace_back();
    for (const auto* side : {&lhs, &rhs})
        for (const auto& [argument, v] : *side) {
            body.arguments.push_back(v);
            bind(argument, {v});
        }
    lex_.expect("{", "to open the reducer body");
    parseBodyInto(body);
    scopes_.pop_back();
    return body;
}

// `stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride =
// [1, 1], pad = [[0, 0], [0, 0]], ...} {feature_group_count = 1 : i64, ...} : (X, K) -> Y`.
std::vector<ValueId> Parser::readConvolution(PrettyOp& op) {
    lex_.expect("(");
    op.pending.operands = operandList(')');
    lex_.expect(")");
    lex_.expect("dim_numbers");
    lex_.expect("=");
    lex_.skip();
    const std::size_t layoutAt = lex_.offset();
    ConvolutionAttributes c;
    if (!parseConvLayout(lex_.bracketedWord(), c))
        lex_.expectedAt(layoutAt,
                        "convolution dimension numbers like [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]");
    if (lex_.consume(","))
        readConvolutionWindow(c);
    groupCountsFrom(readOpTail(op.pending, TrailingType::FunctionOnly), c);
    op.pending.attributes = c;
    return emitOp(op);
}

// `window = {stride = [...], pad = [[...]], lhs_dilate = [...], rhs_dilate = [...], reverse = [...]}`.
void Parser::readConvolutionWindow(ConvolutionAttributes& c) {
    lex_.expect("window");
    lex_.expect("=");
    lex_.expect("{");
    while (!lex_.consume("}")) {
        const std::string key = lex_.identifier("a window attribute");
        lex_.expect("=");
        const Attr value = readAttribute(lex_);
        if (key == "stride")
            c.windowStrides = intsOf(&value);
        else if (key == "pad")
            c.padding = pairsOf(&value);
        else if (key == "lhs_dilate")
            c.lhsDilation = intsOf(&value);
        else if (key == "rhs_dilate")
            c.rhsDilation = intsOf(&value);
        else if (key == "reverse") {
            for (auto r : intsOf(&value))
                if (r)
                    lex_.fail("reversed convolution windows are not supported");
        }
        lex_.consume(",");
    }
}

// `stablehlo.while(%iterArg = %init, ...) : t1, t2 cond { ... } do { ... }`.
std::vector<ValueId> Parser::readWhile(PrettyOp& op) {
    Pending& p = op.pending;
    lex_.expect("(");
    std::vector<std::string> names;
    if (!lex_.consume(")")) {
        do {
            names.push_back(lex_.valueName());
            lex_.expect("=");
            const std::size_t valueAt = lex_.offset();
            p.operands.push_back(use(lex_.valueName(), valueAt));
        } while (lex_.consume(","));
        lex_.expect(")");
    }
    std::vector<ParsedType> types;
    if (lex_.consume(":"))
        types = readFunctionType(lex_).inputs;
    if (types.size() != names.size())
        lex_.failAt(op.at, "while has " + std::to_string(names.size()) + " loop values and " +
                               std::to_string(types.size()) + " types");
    if (lex_.peek() == '{')
        readDictionary(lex_);
    for (const char* part : {"cond", "do"}) {
        lex_.expect(part);
        p.regions.push_back(loopRegion(names, types));
    }
    for (const auto& t : types)
        p.resultTypes.push_back(tensorOf(t));
    p.attributes = loopAttributes(p);
    return emitOp(op);
}

// `{ ... }` of a while loop, its arguments the loop values `names` of `types`.
Region Parser::loopRegion(const std::vector<std::string>& names, const std::vector<ParsedType>& types) {
    scopes_.emplace_back();
    Region r;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const ValueId v = graph_.addValue(tensorOf(types[i]));
        r.arguments.push_back(v);
        bind(names[i], {v});
    }
    lex_.expect("{");
    parseBodyInto(r);
    scopes_.pop_back();
    return r;
}

}  // namespace shardscope::import::stablehlo_import
