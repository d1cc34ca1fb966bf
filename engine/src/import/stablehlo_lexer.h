// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The characters of StableHLO textual MLIR: tokens, source locations (`loc(...)`), and errors at a position.
//
// MLIR's syntax is context sensitive (`2x3xf32` inside a tensor type, `[1] x [0]` in dot_general, `->` inside
// attributes), so there is no token stream: the parser asks for what it expects next and the lexer reads it
// from the current position, skipping whitespace and `//` comments first. Errors are thrown as ParseError
// with the offset they are about; the importer turns the one it catches into a Diagnostic at its API
// boundary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardscope/diagnostic.h"

namespace shardscope::import::stablehlo_import {

// How deep types, attributes, locations, regions and calls may nest (bounded input).
inline constexpr int kMaxDepth = 200;

struct ParseError {
    std::size_t offset;
    std::string message;
    std::string code = "stablehlo.syntax";
};

// A source location as MLIR writes it; aliases (`loc(#loc3)`) resolve once the whole file is read.
struct LocInfo {
    std::string name, file, alias;
    int line = 0, column = 0;
};

bool isIdStart(char c);
bool isIdChar(char c);
// `text` without leading and trailing whitespace.
std::string trimmedCopy(const std::string& text);
// A message quoting the input (a type, a token) stays on one line.
std::string oneLine(std::string message);

class Lexer {
public:
    Lexer(std::string_view text, std::string fileName);

    // ----- position and errors ---------------------------------------------------------------------------
    std::size_t offset() const { return pos_; }
    std::size_t size() const { return text_.size(); }
    void seek(std::size_t offset) { pos_ = offset; }
    bool containsNul() const { return text_.find('\0') != std::string_view::npos; }
    const std::string& fileName() const { return file_; }
    // `file:line:column` of `offset`.
    SourceLocation here(std::size_t offset) const;
    // The offset of a location in this file (line and column from 1), or nullopt when it is not in it.
    std::optional<std::size_t> offsetOf(const SourceLocation& location) const;
    [[noreturn]] void fail(const std::string& message) const { throw ParseError{pos_, message}; }
    [[noreturn]] void failAt(std::size_t offset, const std::string& message);
    // "expected WHAT, found 'the next characters'" at the current position.
    [[noreturn]] void expected(const std::string& what) const;
    [[noreturn]] void expectedAt(std::size_t offset, const std::string& what);

    // ----- tokens ----------------------------------------------------------------------------------------
    void skip();  // whitespace and comments
    bool eof() { return skip(), pos_ >= text_.size(); }
    char peek() { return skip(), pos_ < text_.size() ? text_[pos_] : '\0'; }
    char peekAt(std::size_t k) const { return pos_ + k < text_.size() ? text_[pos_ + k] : '\0'; }
    // The next character, taken as it is (no skipping).
    char take() { return text_[pos_++]; }
    // Takes `literal` when it is next; a keyword must end at a word boundary.
    bool consume(std::string_view literal);
    void expect(std::string_view literal, const char* context = nullptr);
    bool lookingAt(std::string_view literal);
    // At `dialect.op` or `"dialect.op"` (not a keyword such as `module`).
    bool startsOpName();

    std::string identifier(const char* what = "an identifier");
    std::string quotedString();
    std::string valueName();    // %name, %0, %0#1 -> "name" / "0#1" (without '%')
    std::string symbolName();   // @name or @"name" -> "name"
    std::string aliasName();    // the name after an already consumed '#' of a location alias
    std::string dialectName();  // the name after an already consumed '#' of an attribute: `sdy.sharding`
    std::int64_t integer();
    std::vector<std::int64_t> integerList();  // [1, 2, 3]
    // `, key =` before an attribute of a pretty op.
    void expectListedKey(std::string_view key);
    std::string textBetween(std::size_t begin, std::size_t end) const {
        return std::string(text_.substr(begin, end - begin));
    }
    // Raw text up to the `close` that balances an already consumed opener; strings and `->` are respected.
    std::string balanced(char open, char close);
    // Steps over a quoted string or a "->" at the cursor (what bracket counting must not count); false when
    // neither is there.
    bool skipStringOrArrow();
    // Skips a balanced {...} whose '{' is next.
    void skipBraces();
    // Skips to the end of the line.
    void skipLine();
    // Skips a module-level op we do not model: to the end of its line, or of its last bracket when it spans
    // several lines, or to the module's closing brace on the same line.
    void skipUnmodelledOp();
    // Raw text up to the next ',' or end of line outside brackets: [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f].
    std::string_view bracketedWord();

    // ----- locations -------------------------------------------------------------------------------------
    // After `loc(` has been consumed; reads up to and including the closing ')'.
    LocInfo locationBody(int depth = 1);
    std::optional<LocInfo> optionalLocation();

private:
    LocInfo quotedLocation(int depth);
    LocInfo fusedLocation(int depth);

    std::string_view text_;
    std::string file_;
    std::size_t pos_ = 0;
    std::vector<std::size_t> lineStarts_;
};

}  // namespace shardscope::import::stablehlo_import
