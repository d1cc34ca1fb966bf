// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The module's structure: the first pass over the module (aliases, functions, meshes), the entry function and
// its signature, arguments and outputs, blocks and regions, and the inlining of calls.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <unordered_set>

#include "shardscope/import/stablehlo.h"
#include "stablehlo_parser.h"

namespace shardscope::import::stablehlo_import {

using ir::Argument;
using ir::ArgumentRole;
using ir::Graph;
using ir::Region;
using ir::TensorType;

// ----- the first pass --------------------------------------------------------------------------------------

void Parser::scanModule() {
    while (!lex_.eof()) {
        lex_.skip();
        const std::size_t at = lex_.offset();
        if (lex_.peek() == '#') {
            scanAliasDefinition();
        } else if (lex_.peek() == '!') {  // a type alias
            lex_.skipLine();
        } else if (lex_.lookingAt("---")) {  // a separator line some exporters print after the module
            lex_.skipLine();
            warnings_.push_back(
                makeWarning("stablehlo.ignored-line", "ignored a line that is not MLIR", lex_.here(at)));
        } else if (lex_.consume("module")) {
            scanModuleBody(at);
        } else if (lex_.consume("func.func")) {
            scanFunction();
        } else if (lex_.consume("sdy.mesh")) {
            scanMesh();
        } else if (lex_.startsOpName()) {  // an op outside any `module`: MLIR's implicit top-level module
            skipModuleOp(at);
        } else {
            lex_.expected("module, func.func or an alias definition");
        }
    }
    if (functions_.empty())
        lex_.fail("no func.func in the file");
}

// `#name = loc(...)`, or another attribute alias.
void Parser::scanAliasDefinition() {
    lex_.take();
    const std::string name = lex_.aliasName();
    lex_.expect("=", "in an alias definition");
    if (lex_.consume("loc")) {
        lex_.expect("(");
        locAliases_[name] = lex_.locationBody();
    } else {
        readAttribute(lex_);
    }
}

// After `module`: `@name attributes {...} { ... } loc(...)`.
void Parser::scanModuleBody(std::size_t at) {
    if (moduleSeen_)
        lex_.failAt(at, "more than one module in the file");
    moduleSeen_ = true;
    if (lex_.peek() == '@')
        lex_.symbolName();
    if (lex_.consume("attributes"))
        readDictionary(lex_);
    lex_.expect("{", "to open the module body");
    while (!lex_.consume("}")) {
        if (lex_.eof())
            lex_.expected("'}' to close the module");
        const std::size_t itemAt = lex_.offset();
        if (lex_.consume("func.func"))
            scanFunction();
        else if (lex_.consume("sdy.mesh"))
            scanMesh();
        else if (lex_.peek() == '"' || isIdStart(lex_.peek()))
            skipModuleOp(itemAt);
        else
            lex_.expected("func.func, sdy.mesh or '}' in the module body");
    }
    lex_.optionalLocation();
}

// `sdy.mesh @name = <["x"=2, "y"=4]>` (or `<[]>`, or with device_ids=...).
void Parser::scanMesh() {
    ir::MeshDeclaration mesh;
    mesh.name = lex_.symbolName();
    lex_.expect("=");
    lex_.expect("<");
    const std::size_t bodyAt = lex_.offset();
    const std::string body = lex_.balanced('<', '>');
    std::size_t i = 0;
    while ((i = body.find('"', i)) != std::string::npos) {
        const std::size_t end = body.find('"', i + 1);
        if (end == std::string::npos)
            break;
        std::string axis = body.substr(i + 1, end - i - 1);
        const std::size_t eq = body.find('=', end);
        if (eq == std::string::npos)
            break;
        const std::int64_t size = std::strtoll(body.c_str() + eq + 1, nullptr, 10);
        if (size <= 0)
            lex_.failAt(bodyAt, "mesh axis \"" + axis + "\" of @" + mesh.name + " has no positive size");
        mesh.axes.emplace_back(std::move(axis), size);
        i = body.find(',', eq);
        if (i == std::string::npos)
            break;
    }
    lex_.optionalLocation();
    graph_.meshes.push_back(std::move(mesh));
}

// A module-level op we do not model (ml_program.global, sdy.manual_axis...).
void Parser::skipModuleOp(std::size_t at) {
    lex_.skipUnmodelledOp();
    warnings_.push_back(
        makeWarning("stablehlo.skipped", "skipped a module-level op we do not model", lex_.here(at)));
}

// After `func.func`: records where the function's name and signature are, and skips its body.
void Parser::scanFunction() {
    FunctionInfo f;
    if (lex_.consume("public"))
        f.isPublic = true;
    else if (lex_.consume("private") || lex_.consume("nested"))
        f.isPublic = false;
    lex_.skip();
    f.nameOffset = lex_.offset();
    f.name = lex_.symbolName();
    lex_.skip();
    f.signatureOffset = lex_.offset();
    if (lex_.peek() != '(')
        lex_.expected("'(' to start the argument list of @" + f.name);
    lex_.take();
    lex_.balanced('(', ')');
    if (lex_.consume("->")) {
        if (lex_.peek() == '(') {
            lex_.take();
            lex_.balanced('(', ')');
        } else {
            readType(lex_);  // a single result has no attributes unless parenthesised
        }
    }
    if (lex_.consume("attributes"))
        readDictionary(lex_);
    if (lex_.peek() == '{')
        lex_.skipBraces();
    lex_.optionalLocation();
    if (functions_.count(f.name))
        lex_.failAt(f.nameOffset, "redefinition of @" + f.name);
    functionOrder_.push_back(f.name);
    functions_.emplace(f.name, f);
}

// ----- the entry function ----------------------------------------------------------------------------------

Graph Parser::parseEntry() {
    const FunctionInfo& entry = entryFunction();
    graph_.name = entry.name;
    lex_.seek(entry.signatureOffset);
    scopes_.emplace_back();
    isolation_.insert(0);
    callStack_.push_back(entry.name);
    parseSignature(true, nullptr, lex_.offset());
    const std::vector<AttrDict> resultAttrs = resultAttrs_;
    addOutputs(parseBody(), resultAttrs);
    applyGradientAndAliasMarks();
    nameArguments();
    inferRoles();
    liftWeightConstants();
    return std::move(graph_);
}

// The entry: options.entryFunction, else @main, else the only public function, else the only function.
const FunctionInfo& Parser::entryFunction() {
    // "@a, @b, @c" of the functions (in file order) that pass `keep`.
    auto listed = [&](auto keep) {
        std::string out;
        for (const auto& name : functionOrder_)
            if (keep(functions_.find(name)->second))
                out += (out.empty() ? "@" : ", @") + name;
        return out;
    };
    const FunctionInfo& first = functions_.find(functionOrder_.front())->second;
    if (!options_.entryFunction.empty()) {
        const auto it = functions_.find(options_.entryFunction);
        if (it == functions_.end())
            lex_.failAt(first.nameOffset, "no function @" + options_.entryFunction +
                                              " in the file (its functions: " +
                                              listed([](const FunctionInfo&) { return true; }) + ")");
        return it->second;
    }
    if (const auto it = functions_.find("main"); it != functions_.end())
        return it->second;
    std::vector<const FunctionInfo*> publics;
    for (const auto& name : functionOrder_)
        if (const FunctionInfo& f = functions_.find(name)->second; f.isPublic)
            publics.push_back(&f);
    if (publics.size() == 1)
        return *publics.front();
    if (functions_.size() == 1)
        return functions_.begin()->second;
    const bool anyPublic = !publics.empty();
    // Its own code, so a front door can offer the functions to choose from (stableHloFunctions).
    throw ParseError{(anyPublic ? *publics.front() : first).nameOffset,
                     "no entry function: no @main and " +
                         std::to_string(anyPublic ? publics.size() : functions_.size()) +
                         (anyPublic ? " public" : " private") + " functions (" +
                         listed([&](const FunctionInfo& f) { return f.isPublic || !anyPublic; }) +
                         "); choose one with --entry NAME",
                     "stablehlo.entry"};
}

// The function's arguments: bound to `callOperands` when inlining, else created as graph arguments.
void Parser::parseSignature(bool entry, const std::vector<ValueId>* callOperands, std::size_t callAt) {
    lex_.expect("(");
    std::size_t index = 0;
    if (!lex_.consume(")")) {
        do
            index += parseArgument(entry, callOperands, callAt, index);
        while (lex_.consume(","));
        lex_.expect(")", "to close the argument list");
    }
    if (callOperands && index != callOperands->size())
        lex_.failAt(callAt, "call passes " + std::to_string(callOperands->size()) +
                                " operand(s) to a function of " + std::to_string(index) + " argument(s)");
    parseResultAttributes();
    if (lex_.consume("attributes"))
        readDictionary(lex_);
    lex_.expect("{", "to open the function body");
}

// `%name: type {attrs} loc(...)`, the argument `index` counts tensors from. A tuple argument is its tensors:
// as many call operands, or graph arguments named %name.0, %name.1... Returns how many tensors it is.
std::size_t Parser::parseArgument(bool entry, const std::vector<ValueId>* callOperands, std::size_t callAt,
                                  std::size_t index) {
    lex_.skip();
    const std::size_t at = lex_.offset();
    const std::string name = lex_.valueName();
    lex_.expect(":");
    const ParsedType t = readType(lex_);
    AttrDict attrs;
    if (lex_.peek() == '{')
        attrs = readDictionary(lex_);
    const auto loc = lex_.optionalLocation();
    std::vector<TensorType> leaves;
    appendLeaves(t, leaves);
    std::vector<ValueId> bound;
    if (callOperands) {
        if (index + leaves.size() > callOperands->size())
            lex_.failAt(callAt, "call passes " + std::to_string(callOperands->size()) +
                                    " operand(s) to a function with more arguments");
        const auto first = callOperands->begin() + static_cast<std::ptrdiff_t>(index);
        bound.assign(first, first + static_cast<std::ptrdiff_t>(leaves.size()));
    } else if (entry) {
        for (std::size_t k = 0; k < leaves.size(); ++k)
            bound.push_back(addArgument(t.tuple ? name + "." + std::to_string(k) : name, leaves[k],
                                        t.tuple ? AttrDict{} : attrs, loc, at));
    } else {
        return leaves.size();
    }
    if (t.tuple)
        bindTuple(name, std::move(bound), t);
    else
        bind(name, std::move(bound));
    return leaves.size();
}

// `-> (type {attrs} loc(...), ...)` or `-> type`: the attributes of each result tensor (a tuple's have none).
void Parser::parseResultAttributes() {
    resultAttrs_.clear();
    if (!lex_.consume("->"))
        return;
    if (!lex_.consume("(")) {
        resultAttrs_.resize(leafCount(readType(lex_)));
        return;
    }
    if (lex_.consume(")"))
        return;
    do {
        const std::size_t leaves = leafCount(readType(lex_));
        resultAttrs_.push_back(lex_.peek() == '{' ? readDictionary(lex_) : AttrDict{});
        resultAttrs_.resize(resultAttrs_.size() + leaves - 1);
        lex_.optionalLocation();
    } while (lex_.consume(","));
    lex_.expect(")", "to close the result list");
}

// A graph argument of the entry function for `%name: type {attrs} loc(...)`.
ValueId Parser::addArgument(const std::string& name, const TensorType& type, const AttrDict& attrs,
                            const std::optional<LocInfo>& loc, std::size_t at) {
    const ValueId v = graph_.addValue(type);
    Argument a;
    a.value = v;
    a.location = lex_.here(at);
    a.location.name = loc ? loc->name : "";
    if (loc && !loc->alias.empty())
        argumentAliases_.emplace_back(graph_.arguments.size(), loc->alias);
    std::string role;
    for (const auto& [key, value] : attrs) {
        if ((key == "jax.arg_info" || key == "ttir.name" || key == "shardscope.name") &&
            value.kind == Attr::Kind::String)
            a.name = value.text;
        else if (key == "shardscope.role" && value.kind == Attr::Kind::String)
            role = value.text;
        else if (key == "ttcore.argument_type" && !value.items.empty())
            role = value.items.front().text;
        else if (key == "tf.aliasing_output" && value.kind == Attr::Kind::Integer)
            aliasing_.emplace_back(graph_.arguments.size(), static_cast<std::size_t>(value.integer));
        else if (key == "shardscope.dims" && value.kind == Attr::Kind::Array)
            for (const auto& label : value.items)
                a.dimensionLabels.push_back(label.text);
    }
    a.sharding = shardingFrom(attrs);
    if (auto r = ir::parseArgumentRole(role))
        a.role = *r;
    else if (role == "input")
        a.role = ArgumentRole::Input;
    else if (role == "parameter")
        a.role = ArgumentRole::Parameter;
    else if (role == "constant")
        a.role = ArgumentRole::Constant;
    else
        roleUnknown_.push_back(graph_.arguments.size());
    argumentNames_.push_back(name);
    graph_.arguments.push_back(std::move(a));
    return v;
}

void Parser::addOutputs(const std::vector<ValueId>& results, const std::vector<AttrDict>& resultAttrs) {
    for (std::size_t i = 0; i < results.size(); ++i) {
        ir::Output out;
        out.value = results[i];
        if (i < resultAttrs.size()) {
            if (const Attr* info = lookup(resultAttrs[i], "jax.result_info");
                info && info->kind == Attr::Kind::String)
                out.name = info->text;
            out.sharding = shardingFrom(resultAttrs[i]);
        }
        graph_.outputs.push_back(std::move(out));
    }
}

// shardscope.gradient_of on ops and tf.aliasing_output on arguments, once the outputs are known.
void Parser::applyGradientAndAliasMarks() {
    for (const auto& [gradient, argument] : gradientMarks_) {
        if (argument >= graph_.arguments.size())
            lex_.fail("shardscope.gradient_of names argument " + std::to_string(argument) +
                      " which does not exist");
        graph_.gradients.emplace_back(gradient, argument);
    }
    for (const auto& [argument, output] : aliasing_) {
        if (output >= graph_.outputs.size())
            lex_.fail("tf.aliasing_output names output " + std::to_string(output) + " which does not exist");
        graph_.outputs[output].aliasedArgument = argument;
    }
}

// Names: the source's, else the location's (#loc aliases resolved), else the SSA name; distinct for
// parameters (the verifier requires them). Ops labelled by a #loc alias get its name.
void Parser::nameArguments() {
    for (std::size_t i = 0; i < graph_.arguments.size(); ++i) {
        Argument& a = graph_.arguments[i];
        if (a.name.empty())
            a.name = a.location.name;
        if (a.name.empty())
            a.name = "%" + argumentNames_[i];
    }
    for (const auto& [op, alias] : opLabels_)
        graph_.op(op).location.name = resolveAlias(alias);
    for (const auto& [index, alias] : argumentAliases_) {
        Argument& a = graph_.arguments[index];
        const std::string label = resolveAlias(alias);
        a.location.name = label;
        if (a.name == "%" + argumentNames_[index] && !label.empty())
            a.name = label;
    }
    std::map<std::string, int> seen;
    for (auto& a : graph_.arguments)
        if (seen[a.name]++ > 0)
            a.name += "#" + std::to_string(seen[a.name] - 1);
}

// The name a #loc alias (defined anywhere in the file, possibly through other aliases) gives; empty for none.
std::string Parser::resolveAlias(const std::string& alias) const {
    std::string current = alias;
    for (int hops = 0; hops < 16; ++hops) {
        auto it = locAliases_.find(current);
        if (it == locAliases_.end())
            return {};
        if (!it->second.name.empty())
            return it->second.name;
        if (it->second.alias.empty())
            return {};
        current = it->second.alias;
    }
    return {};
}

// Roles the source does not state: integer tensors are inputs; floating-point arguments read as a
// convolution's input (through layout ops) are inputs; other floating-point arguments are parameters.
void Parser::inferRoles() {
    std::set<std::uint32_t> convInputs;
    std::unordered_map<std::uint32_t, std::uint32_t>
        source;  // value -> the argument value it is a relayout of
    for (OpId id : graph_.allOpsInOrder()) {
        const ir::Op& op = graph_.op(id);
        auto origin = [&](ValueId v) {
            auto it = source.find(v.index);
            return it == source.end() ? v.index : it->second;
        };
        if (op.operands.empty())
            continue;  // malformed (a reshape of nothing): the verifier names it
        if ((op.kind == OpKind::Transpose || op.kind == OpKind::Reshape || op.kind == OpKind::Convert) &&
            !op.results.empty())
            source[op.results[0].index] = origin(op.operands[0]);
        if (op.kind == OpKind::Convolution)
            convInputs.insert(origin(op.operands[0]));
    }
    for (std::size_t index : roleUnknown_) {
        Argument& a = graph_.arguments[index];
        const auto& t = graph_.type(a.value);
        std::string lower = a.name;
        for (char& ch : lower)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (!ir::isFloat(t.element) || convInputs.count(a.value.index))
            a.role = ArgumentRole::Input;
        else if (lower.find("opt_state") != std::string::npos)
            a.role = ArgumentRole::OptimizerState;
        else if (lower.rfind("input", 0) == 0 || lower.rfind("batch", 0) == 0 || lower == "x" ||
                 lower.rfind("args", 0) == 0)
            a.role = ArgumentRole::Input;
        else
            a.role = ArgumentRole::Parameter;
    }
}

// ----- weights held as constants
// ----------------------------------------------------------------------------

// An export that closes over its weights (a jitted function with the parameters bound, as jax_resnet_50.mlir
// is) holds them as constants, often elided (`dense_resource<__elided__>`): planned as they are, the model
// has no parameters, so plans shard nothing of it and training steps train nothing. A top-level constant is
// taken for a weight, and becomes a parameter argument in its place, when it is floating point, not a splat
// (a splat is a fill value such as zeros, never a learned tensor), has at least kLiftedWeightElements
// elements, and is read as an operand of a dot_general or convolution, directly or through convert, reshape,
// transpose or broadcast_in_dim. The threshold, 1024 elements (4 KiB at f32), is the smallest weight of a
// real network's contraction (a 1x1 convolution of 32 to 32 channels, a 32x32 projection); smaller constant
// operands of contractions are more often fixed tables (masks, one-hot or mixing matrices), and too small for
// sharding them to matter. Other large constants (normalisation statistics and scales that only elementwise
// ops read, rotary tables, masks) stay constants.
constexpr std::int64_t kLiftedWeightElements = 1024;

void Parser::liftWeightConstants() {
    std::unordered_map<std::uint32_t, std::vector<OpId>> users;
    for (OpId id : graph_.allOpsInOrder())
        for (ValueId v : graph_.op(id).operands)
            users[v.index].push_back(id);
    auto feedsContraction = [&](ValueId start) {
        std::vector<ValueId> stack{start};
        std::unordered_set<std::uint32_t> seen{start.index};
        while (!stack.empty()) {
            const ValueId v = stack.back();
            stack.pop_back();
            for (OpId user : users[v.index]) {
                const ir::Op& op = graph_.op(user);
                if (op.kind == OpKind::DotGeneral || op.kind == OpKind::Convolution)
                    return true;
                const bool layout = op.kind == OpKind::Convert || op.kind == OpKind::Reshape ||
                                    op.kind == OpKind::Transpose || op.kind == OpKind::BroadcastInDim;
                if (layout && op.results.size() == 1 && seen.insert(op.results[0].index).second)
                    stack.push_back(op.results[0]);
            }
        }
        return false;
    };
    std::unordered_map<std::uint32_t, std::string> ssaNames;  // the entry function's own names
    for (const auto& scope : scopes_)
        for (const auto& [name, binding] : scope)
            if (binding.values.size() == 1 && !binding.tuple)
                ssaNames.emplace(binding.values.front().index, "%" + name);
    std::set<std::string> taken;
    for (const Argument& a : graph_.arguments)
        taken.insert(a.name);
    std::vector<OpId> kept;
    std::size_t lifted = 0;
    std::int64_t elements = 0;
    double bytes = 0;
    for (OpId id : graph_.body) {
        const ir::Op& op = graph_.op(id);
        const auto* literal = std::get_if<ir::ConstantAttributes>(&op.attributes);
        bool weight = false;
        if (op.kind == OpKind::Constant && literal && op.results.size() == 1 && literal->values.size() != 1) {
            const TensorType& t = graph_.type(op.results[0]);
            weight = ir::isFloat(t.element) && t.elements() >= kLiftedWeightElements &&
                     feedsContraction(op.results[0]);
        }
        if (!weight) {
            kept.push_back(id);
            continue;
        }
        const ValueId v = op.results[0];
        Argument a;
        a.value = v;
        a.role = ArgumentRole::Parameter;
        a.location = op.location;
        a.sharding = op.sharding;
        std::string name = op.location.name;
        if (name.empty()) {
            const auto it = ssaNames.find(v.index);
            name = it != ssaNames.end() ? it->second : "constant.line" + std::to_string(op.location.line);
        }
        a.name = name;
        for (int n = 1; taken.count(a.name) > 0; ++n)
            a.name = name + "#" + std::to_string(n);
        taken.insert(a.name);
        graph_.value(v).producer = OpId{};
        graph_.value(v).resultIndex = 0;
        ++lifted;
        elements += graph_.type(v).elements();
        bytes += static_cast<double>(graph_.type(v).bytes());
        graph_.arguments.push_back(std::move(a));
    }
    if (lifted == 0)
        return;
    graph_.body = std::move(kept);
    removeUnreachable(graph_);
    char size[64];
    std::snprintf(size, sizeof size, "%.2f MiB", bytes / (1024.0 * 1024.0));
    warnings_.push_back(makeWarning(
        std::string(kWeightsLiftedCode),
        std::to_string(lifted) + (lifted == 1 ? " constant holds" : " constants hold") +
            " the model's weights (floating point, at least " + std::to_string(kLiftedWeightElements) +
            " elements, read by dot_general or convolution): planned as parameters, " +
            std::to_string(elements) + " elements (" + size +
            "), so plans shard them and training steps train them",
        SourceLocation{lex_.fileName(), 0, 0, {}}));
}

// ----- blocks, regions, calls ------------------------------------------------------------------------------

std::vector<ValueId> Parser::parseStatements() {
    while (true) {
        lex_.skip();
        if (lex_.offset() >= lex_.size())
            lex_.expected("'}' to close the block");
        if (lex_.peek() == '}')
            lex_.fail("block ends without a terminator (return)");
        if (auto terminator = statement()) {
            lex_.expect("}", "after the terminator");
            return *terminator;
        }
    }
}

void Parser::parseBodyInto(Region& region) {
    std::vector<OpId>* outer = insertion_;
    insertion_ = &region.ops;
    region.results = parseBody();
    insertion_ = outer;
}

std::vector<ValueId> Parser::parseBody() {
    const std::string op = opName_;
    std::vector<ValueId> results = parseStatements();
    opName_ = op;
    return results;
}

// `{ ^bb0(%a: t, ...): statements }` or `{ statements }`.
Region Parser::region() {
    if (++regionDepth_ > kMaxDepth)
        lex_.fail("regions nested too deeply");
    Region r;
    lex_.expect("{", "to open a region");
    scopes_.emplace_back();
    if (lex_.consume("^")) {
        lex_.identifier("a block label");
        if (lex_.consume("(") && !lex_.consume(")")) {
            do {
                const std::string name = lex_.valueName();
                lex_.expect(":");
                const ValueId v = graph_.addValue(tensorOf(readType(lex_)));
                lex_.optionalLocation();
                r.arguments.push_back(v);
                bind(name, {v});
            } while (lex_.consume(","));
            lex_.expect(")");
        }
        lex_.expect(":", "after the block label");
    }
    parseBodyInto(r);
    scopes_.pop_back();
    --regionDepth_;
    return r;
}

std::vector<ValueId> Parser::inlineFunction(const std::string& name, const std::vector<ValueId>& operands,
                                            std::size_t at) {
    const FunctionInfo& callee = inlinableFunction(name, at);
    const std::size_t resume = lex_.offset();
    const auto tuple =
        std::exchange(resultTuple_, std::nullopt);  // the call's, while the callee's ops are read
    callStack_.push_back(name);
    scopes_.emplace_back();
    isolation_.insert(scopes_.size() - 1);
    lex_.seek(callee.signatureOffset);
    parseSignature(false, &operands, at);
    std::vector<ValueId> results = parseBody();
    isolation_.erase(scopes_.size() - 1);
    scopes_.pop_back();
    callStack_.pop_back();
    lex_.seek(resume);
    resultTuple_ = tuple;
    return results;
}

// The function a call at `at` inlines, counted; an error when it is unknown, recursive, nested too deeply, or
// one call too many.
const FunctionInfo& Parser::inlinableFunction(const std::string& name, std::size_t at) {
    const auto it = functions_.find(name);
    if (it == functions_.end())
        lex_.failAt(at, "call to unknown function @" + name);
    if (std::find(callStack_.begin(), callStack_.end(), name) != callStack_.end())
        lex_.failAt(at, "recursive call to @" + name + " cannot be inlined");
    // The limits are errors of their own kind (import.limit), not of syntax: the text is well formed.
    if (callStack_.size() > kMaxDepth)
        throw ParseError{at, "calls nested too deeply", "import.limit"};
    ++inlined_[name];
    if (++inlinedCalls_ > options_.maxInlinedCalls) {
        const auto most = std::max_element(inlined_.begin(), inlined_.end(),
                                           [](const auto& a, const auto& b) { return a.second < b.second; });
        throw ParseError{
            at,
            "call to @" + name + (callStack_.empty() ? "" : " in @" + callStack_.back()) + ": more than " +
                std::to_string(options_.maxInlinedCalls) + " calls inlined (@" + most->first + " alone " +
                std::to_string(most->second) +
                " times); calls are inlined, and functions that call others several times expand "
                "exponentially",
            "import.limit"};
    }
    return it->second;
}

}  // namespace shardscope::import::stablehlo_import
