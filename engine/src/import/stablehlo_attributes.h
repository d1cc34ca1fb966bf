// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Attributes as StableHLO text writes them (MLIR's generic attribute syntax, and dialect attributes such as
// Shardy's `#sdy.sharding<...>`), and what the importer reads out of them: integer lists, comparison
// directions, convolution layouts, shardings. The values of dense<...> literals are decoded apart
// (dense_elements.h): an attribute keeps the literal's text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shardscope/ir/attributes.h"
#include "shardscope/ir/graph.h"
#include "stablehlo_lexer.h"

namespace shardscope::import::stablehlo_import {

struct Attr {
    enum class Kind {
        None,
        Integer,
        Float,
        Bool,
        String,
        Symbol,
        Array,
        Dictionary,
        Dense,
        Type,
        Dialect,
        Unit,
        Word
    };
    Kind kind = Kind::None;
    std::int64_t integer = 0;
    double number = 0;
    std::string text;  // String, Symbol, Word, Dialect name, Dense raw literal, Dialect raw body
    std::vector<Attr> items;
    std::vector<std::pair<std::string, Attr>> fields;  // Dictionary, and Dialect bodies of key = value
    ir::TensorType type;                               // Dense, Type, typed numbers
    bool hasType = false;
    bool resource = false;  // dense_resource<...>: the values live elsewhere (often elided)

    const Attr* field(std::string_view key) const;
    bool isIntegerLike() const { return kind == Kind::Integer || kind == Kind::Bool; }

    // Declared here, defaulted where Attr is complete: clang (with libstdc++) cannot define them inside the
    // class, since `fields` holds pairs of the still incomplete Attr.
    Attr();
    Attr(const Attr&);
    Attr(Attr&&) noexcept;
    Attr& operator=(const Attr&);
    Attr& operator=(Attr&&) noexcept;
    ~Attr();
};

using AttrDict = std::vector<std::pair<std::string, Attr>>;

const Attr* lookup(const AttrDict& dict, std::string_view key);

// ----- syntax --------------------------------------------------------------------------------------------

// One attribute value: arrays, dictionaries, strings, symbols (`@a::@b`), numbers with an optional `: type`,
// dense<...> and dense_resource<...> (kept as text), array<i64: ...>, booleans, unit, types, `#dialect<...>`
// (key = value bodies parsed, others kept raw in items[0].text), bare `<...>` bodies, words.
Attr readAttribute(Lexer& lex, int depth = 0);
// `{key = value, flag, "quoted key" = value}`.
AttrDict readDictionary(Lexer& lex, int depth = 0);

// ----- values ------------------------------------------------------------------------------------------

// The integers of an array (nested arrays flattened), a dense literal or an integer; empty for null.
ir::Dims intsOf(const Attr* a);
// intsOf taken two by two: `[[0, 1], [2, 3]]` -> (0, 1), (2, 3).
std::vector<std::pair<std::int64_t, std::int64_t>> pairsOf(const Attr* a);
// The last word of an enum attribute (`#stablehlo<comparison_direction LT>` -> "LT"), or its text.
std::string wordOf(const Attr* a);
std::optional<ir::CompareDirection> comparisonDirection(std::string_view word);
ir::CompareType compareType(std::string_view word);
// "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]" into `c`'s dimension numbers; false when malformed.
bool parseConvLayout(std::string_view text, ir::ConvolutionAttributes& c);
// feature_group_count and batch_group_count of a convolution, when given.
void groupCountsFrom(const AttrDict& d, ir::ConvolutionAttributes& c);
// A custom call's backend_config when it is a string; empty otherwise.
std::string backendConfigOf(const AttrDict& d);
// The dimension numbers of stablehlo.dot: the last dimension of lhs contracts with the first of rhs.
ir::DotDimensions plainDotDimensions(const ir::TensorType& lhs);

// ----- shardings ---------------------------------------------------------------------------------------

// A Shardy sharding written `<@mesh, [...]>` (stripped, as per-op shardings print) or `#sdy.sharding<...>`.
std::optional<ir::ShardingAnnotation> shardyAnnotation(const Attr& a);
// The sharding an op, argument or result states in its attributes: `sdy.sharding` or GSPMD's `mhlo.sharding`.
std::optional<ir::ShardingAnnotation> shardingFrom(const AttrDict& d);
// The items of `<@mesh, [...]>, <@mesh, [...]>` (the inside of a list of shardings), trimmed.
std::vector<std::string> shardingItems(const std::string& list);
// The quoted words of `{"x", "y"}`: "x", "y".
std::vector<std::string> quotedWords(const std::string& text);

}  // namespace shardscope::import::stablehlo_import
