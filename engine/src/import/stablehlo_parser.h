// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The StableHLO importer's parser: one recursive descent over the module's text that emits IR ops as it goes.
//
// Two passes over the module: the first records `#loc` aliases, meshes and where each function's text starts;
// the second parses the entry function, inlining func.call and stablehlo.composite by parsing the callee's
// text again with its arguments bound to the call's operands. The graph has no tuple values: a tuple is bound
// to one name as its tensors, and stablehlo.tuple / get_tuple_element only rebind names. Errors are thrown as
// ParseError (stablehlo_lexer.h) and turned into a Diagnostic at the API boundary.
//
// The parser is split by concern: stablehlo_lexer.cpp (characters, tokens, locations), stablehlo_types.cpp
// and stablehlo_attributes.cpp (types, attributes and what they say), stablehlo_parser.cpp (entry points,
// names and scopes, emitting ops), stablehlo_module.cpp (module, functions, meshes, signatures, blocks,
// regions, the entry function, call inlining), stablehlo_ops.cpp (statements, the generic op form, tuples),
// stablehlo_op_attributes.cpp (a generic op's attributes as the IR's), stablehlo_pretty_ops.cpp (the table of
// pretty op forms and their readers) and stablehlo_shardy_ops.cpp (Shardy's ops: reshards, named and manual
// computations).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "manual_computation.h"
#include "shardscope/diagnostic.h"
#include "shardscope/import/options.h"
#include "shardscope/ir/graph.h"
#include "stablehlo_attributes.h"
#include "stablehlo_lexer.h"
#include "stablehlo_types.h"

namespace shardscope::import::stablehlo_import {

using ir::OpId;
using ir::OpKind;
using ir::ValueId;

// The kind a StableHLO (or MHLO) op has by its mnemonic; nullopt for other dialects and ops we do not model.
std::optional<OpKind> dialectKind(std::string_view op);
// The kind an op imports as: dialectKind, `dot` as a dot_general, chlo's unary functions as OtherElementwise,
// sdy.constant and arith.constant as constants.
std::optional<OpKind> modelledKind(std::string_view op);
// stablehlo.dot (or mhlo.dot): a dot_general of the last dimension of lhs with the first of rhs.
bool isPlainDot(std::string_view op);
// The combiner of a one-op region, if it is a well-known one.
ir::Reducer reducerOf(const ir::Graph& g, const ir::Region& r);
// Shardy's explicit collectives. In Shardy's global view each keeps the tensor's value and moves it to its
// out_sharding (an all_reduce sums what its operand held unreduced): a reshard, which is how they import.
bool isShardyCollective(std::string_view op);

// An op taking shape: what Parser::emit turns into a graph op.
struct Pending {
    OpKind kind = OpKind::Opaque;
    std::vector<ValueId> operands;
    ir::OpAttributes attributes = ir::NoAttributes{};
    std::vector<ir::Region> regions;
    std::vector<ir::TensorType> resultTypes;
    std::optional<ir::ShardingAnnotation> sharding;
    // What a training step exported by ir::printStableHlo says of the op (see Parser::marksFrom).
    bool backwardStart = false;
    std::vector<std::int64_t> gradientOf;  // per result: the parameter argument it is the gradient of, or -1
};

// An op read in its generic form, `"name"(operands) <{properties}> ({regions}) {attributes} : type loc(...)`.
struct GenericOp {
    std::string name;
    AttrDict attributes;  // properties, then attributes
    Pending pending;      // operands, regions, result types, sharding and marks
    SourceLocation location;
};

// An op read in its pretty form (the table in stablehlo_pretty_ops.cpp says how, by its name).
struct PrettyOp {
    std::string name;
    std::optional<OpKind> kind;  // the kind it imports as; nullopt for calls, Shardy's and unknown ops
    std::size_t resultCount;     // the names the statement defines
    std::size_t at;              // where the statement starts
    Pending pending;
};

// What a trailing op type that is not a function type (`: tensor<4xf32>`) says of the results.
enum class TrailingType {
    EveryValue,    // it is the type of every operand and result; a list `pred, t` gives the results its last
    FunctionOnly,  // nothing: the results come from a function type `(...) -> (...)` only
};

struct FunctionInfo {
    std::string name;
    bool isPublic = true;
    std::size_t nameOffset = 0;       // at its '@'
    std::size_t signatureOffset = 0;  // at '(' of the argument list
};

class Parser {
public:
    Parser(std::string_view text, std::string fileName, const ImportOptions& options);

    Result<ir::Graph> run();
    // Reads the module's structure only and returns its functions in file order.
    Result<std::vector<std::string>> functionNames();

private:
    using PrettyReader = std::vector<ValueId> (*)(Parser&, PrettyOp&);

    // ----- values and scopes (stablehlo_parser.cpp) -------------------------------------------------------
    // What a name stands for: an op's results (`%0`, `%0#1`), or the tensors of one tuple value.
    struct Binding {
        std::vector<ValueId> values;
        std::shared_ptr<const ParsedType> tuple;
    };
    void bind(const std::string& name, std::vector<ValueId> values);
    void bindTuple(const std::string& name, std::vector<ValueId> leaves, const ParsedType& type);
    // The binding of `%base` and the result index `%base#index` asks for.
    const Binding& binding(const std::string& name, std::size_t at, std::size_t& index);
    ValueId use(const std::string& name, std::size_t at);
    // The value `name` stands for, or every tensor of it when it is a tuple.
    std::vector<ValueId> useFlattened(const std::string& name, std::size_t at);
    // `%a, %b` up to `close`; tuples are refused, or taken apart into their tensors when `flattenTuples`.
    std::vector<ValueId> operandList(char close, bool flattenTuples = false);
    // `%a, %b` of a pretty op: up to the first thing after a comma that is not a value.
    std::vector<ValueId> prettyOperands();
    // The tensor type `t` is, or an error naming the op when it is a tuple (which only some ops may take).
    const ir::TensorType& tensorOf(const ParsedType& t);

    // ----- emission (stablehlo_parser.cpp) ----------------------------------------------------------------
    std::vector<ValueId> emit(Pending p, const SourceLocation& location, std::size_t resultCount,
                              std::size_t at);
    std::optional<std::vector<ValueId>> foldedConstraint(const Pending& p);
    std::vector<ValueId> emitOpaque(Pending p, const SourceLocation& location, std::size_t resultCount,
                                    std::size_t at);
    void marksFrom(const AttrDict& attrs, Pending& p) const;
    void finishOp(Pending& p, const FunctionType& f, TrailingType trailing);
    void takeResults(Pending& p, const std::vector<ParsedType>& results);
    void tupleResultAllowed(OpKind kind, std::size_t at);
    // The location of the op at `at` with the `loc(...)` that follows, if any (an alias is kept for later).
    SourceLocation opLocation(std::size_t at);

    // ----- module structure (stablehlo_module.cpp) --------------------------------------------------------
    void scanModule();
    void scanAliasDefinition();
    void scanModuleBody(std::size_t at);
    void scanFunction();
    void scanMesh();
    void skipModuleOp(std::size_t at);
    ir::Graph parseEntry();
    const FunctionInfo& entryFunction();
    void parseSignature(bool entry, const std::vector<ValueId>* callOperands, std::size_t callAt);
    std::size_t parseArgument(bool entry, const std::vector<ValueId>* callOperands, std::size_t callAt,
                              std::size_t index);
    void parseResultAttributes();
    ValueId addArgument(const std::string& name, const ir::TensorType& type, const AttrDict& attrs,
                        const std::optional<LocInfo>& loc, std::size_t at);
    void addOutputs(const std::vector<ValueId>& results, const std::vector<AttrDict>& resultAttrs);
    void applyGradientAndAliasMarks();
    void nameArguments();
    std::string resolveAlias(const std::string& alias) const;
    void inferRoles();
    // Constants that hold a model's weights become parameter arguments, with a warning
    // (stablehlo_module.cpp).
    void liftWeightConstants();
    std::vector<ValueId> parseStatements();
    // Parses a block's statements (after its '{') into `region`'s ops and makes the terminator's operands its
    // results.
    void parseBodyInto(ir::Region& region);
    // parseStatements for the op `opName_` names: its errors after the block still name it.
    std::vector<ValueId> parseBody();
    ir::Region region();
    std::vector<ValueId> inlineFunction(const std::string& name, const std::vector<ValueId>& operands,
                                        std::size_t at);
    const FunctionInfo& inlinableFunction(const std::string& name, std::size_t at);

    // ----- statements, the generic form, tuples (stablehlo_ops.cpp) ---------------------------------------
    // Parses one statement of a block. Returns the terminator's operands when the statement is a terminator.
    std::optional<std::vector<ValueId>> statement();
    std::vector<std::string> resultNames();
    std::optional<std::vector<ValueId>> terminator();
    void bindResults(const std::vector<std::string>& names, const std::vector<ValueId>& produced,
                     std::size_t at);
    std::vector<ValueId> operation(const std::vector<std::string>& resultNames, std::size_t at);
    std::vector<ValueId> tupleOperation(const std::string& name, bool generic);
    std::vector<ValueId> tupleElement(const std::vector<std::pair<std::string, std::size_t>>& operands,
                                      std::int64_t index, std::size_t typeAt);
    AttrDict readProperties();
    void appendAttributes(AttrDict& attrs);
    std::vector<ir::Region> readRegionList();
    std::vector<ValueId> genericOperation(const std::string& name, std::size_t resultCount, std::size_t at);
    GenericOp readGenericOp(const std::string& name, std::size_t at);
    std::vector<ValueId> inlineGenericCall(const GenericOp& op, std::size_t at);
    std::vector<ValueId> emitGeneric(GenericOp op, OpKind kind, std::size_t resultCount, std::size_t at);

    // ----- a generic op's attributes (stablehlo_op_attributes.cpp) ----------------------------------------
    ir::OpAttributes attributesFor(OpKind kind, const AttrDict& d, const Pending& p, std::size_t at);
    const Attr& requiredAttribute(const AttrDict& d, std::string_view key, std::size_t at);
    ir::LoopAttributes loopAttributes(const Pending& p) const;
    std::vector<double> decodeDense(const std::string& literal, const ir::TensorType& type, std::size_t at);

    // ----- the pretty form (stablehlo_pretty_ops.cpp) -----------------------------------------------------
    std::vector<ValueId> prettyOperation(const std::string& name, std::size_t resultCount, std::size_t at);
    static PrettyReader prettyReader(const std::string& name, std::optional<OpKind> kind);
    std::vector<ValueId> emitOp(PrettyOp& op);
    AttrDict readOpDictionary(Pending& p);
    AttrDict readOpTail(Pending& p, TrailingType trailing);
    void readPlainForm(Pending& p);
    AttrDict readInlineAttributeForm(Pending& p, TrailingType trailing);
    std::vector<ValueId> readCall(PrettyOp& op);
    std::vector<ValueId> readComposite(PrettyOp& op);
    std::vector<ValueId> readOpaque(PrettyOp& op);
    std::vector<ValueId> readPlainOp(PrettyOp& op);
    std::vector<ValueId> readUnreadableOp(PrettyOp& op);
    std::vector<ValueId> readInlineAttributeOp(PrettyOp& op, TrailingType trailing);
    std::vector<ValueId> readCompare(PrettyOp& op);
    std::vector<ValueId> readConstant(PrettyOp& op);
    std::vector<ValueId> readIota(PrettyOp& op);
    template <typename Attribute>
    std::vector<ValueId> readDimensionsOp(PrettyOp& op);
    std::vector<ValueId> readDynamicUpdateSlice(PrettyOp& op);
    std::vector<ValueId> readOptimizationBarrier(PrettyOp& op);
    std::vector<ValueId> readDot(PrettyOp& op);
    std::vector<ValueId> readSlice(PrettyOp& op);
    std::vector<ValueId> readConcatenate(PrettyOp& op);
    std::vector<ValueId> readPad(PrettyOp& op);
    std::vector<ValueId> readDynamicSlice(PrettyOp& op);
    std::vector<ValueId> readReduce(PrettyOp& op);
    ir::Region appliedReducer(OpKind combiner, const std::vector<ValueId>& inits, std::size_t at);
    ir::Region reducerRegion();
    std::vector<ValueId> readConvolution(PrettyOp& op);
    void readConvolutionWindow(ir::ConvolutionAttributes& c);
    std::vector<ValueId> readCustomCall(PrettyOp& op);
    std::vector<ValueId> readWhile(PrettyOp& op);
    ir::Region loopRegion(const std::vector<std::string>& names, const std::vector<ParsedType>& types);
    std::vector<ValueId> readFft(PrettyOp& op);

    // ----- Shardy's ops (stablehlo_shardy_ops.cpp) --------------------------------------------------------
    std::vector<ValueId> readShardingConstraint(PrettyOp& op);
    std::vector<ValueId> readShardyCollective(PrettyOp& op);
    std::vector<ValueId> readShardyIdentity(PrettyOp& op);
    std::vector<ValueId> readManualComputation(PrettyOp& op);
    std::optional<std::vector<ValueId>> genericShardyOp(GenericOp& op, std::size_t resultCount,
                                                        std::size_t at);
    std::vector<ValueId> genericManualComputation(GenericOp& op, std::size_t resultCount, std::size_t at);
    std::vector<ValueId> reshard(Pending p, const SourceLocation& location, std::size_t resultCount,
                                 std::size_t at);
    // A reshard of `value` to the Shardy sharding `<@mesh, [...]>`.
    ValueId shardingIdentity(ValueId value, const std::string& sharding, const SourceLocation& location,
                             std::size_t at);
    std::vector<ValueId> namedComputation(std::size_t resultCount, std::size_t at);
    std::vector<ValueId> manualComputation(Pending p, std::size_t resultCount, std::size_t at);
    std::vector<ValueId> globalManualComputation(Pending p, ManualComputation mc,
                                                 const SourceLocation& location, std::size_t at);
    std::vector<std::pair<std::string, ParsedType>> blockArguments();
    void recordShardyCollective(const std::vector<ValueId>& results, const std::string& name,
                                std::string axes);

    Lexer lex_;
    const ImportOptions& options_;

    ir::Graph graph_;
    std::vector<OpId>* insertion_ = &graph_.body;
    std::vector<std::unordered_map<std::string, Binding>> scopes_;
    std::optional<ParsedType>
        resultTuple_;                  // the tuple type of the op just parsed when its one result is a tuple
    std::set<std::size_t> isolation_;  // scope indices where name lookup stops (function boundaries)
    std::map<std::string, FunctionInfo, std::less<>> functions_;
    std::vector<std::string> functionOrder_;
    std::map<std::string, LocInfo, std::less<>> locAliases_;
    std::vector<std::string> callStack_;
    std::size_t inlinedCalls_ = 0;                             // calls inlined so far, of all functions
    std::map<std::string, std::size_t, std::less<>> inlined_;  // by callee
    std::string opName_;
    std::string pendingAlias_;
    std::vector<std::pair<OpId, std::string>> opLabels_;         // ops whose label is a #loc alias
    std::vector<std::pair<std::size_t, std::size_t>> aliasing_;  // (argument, output) from tf.aliasing_output
    std::vector<std::size_t> roleUnknown_;    // arguments whose role the source does not say
    std::vector<std::string> argumentNames_;  // SSA names of the entry's arguments
    std::vector<AttrDict> resultAttrs_;       // attributes of the function's results
    std::vector<std::pair<std::size_t, std::string>> argumentAliases_;  // argument index -> #loc alias
    std::vector<Diagnostic> warnings_;
    std::set<std::string> warnedOps_;
    std::vector<std::pair<ValueId, std::size_t>>
        gradientMarks_;  // (gradient, argument) from shardscope.gradient_of
    std::map<std::uint32_t, ShardyCollective>
        shardyCollectives_;            // by OpId index: the Sharding ops they import as
    bool manualComputations_ = false;  // some were turned into their global program (ops were left behind)
    int regionDepth_ = 0;
    bool moduleSeen_ = false;
};

}  // namespace shardscope::import::stablehlo_import
