// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "stablehlo_lexer.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace shardscope::import::stablehlo_import {

bool isIdStart(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool isIdChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}

std::string trimmedCopy(const std::string& text) {
    const auto begin = text.find_first_not_of(" \t\r\n");
    if (begin == std::string::npos)
        return {};
    return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}

std::string oneLine(std::string message) {
    for (char& c : message)
        if (c == '\n' || c == '\r' || c == '\t')
            c = ' ';
    return message;
}

Lexer::Lexer(std::string_view text, std::string fileName) : text_(text), file_(std::move(fileName)) {
    lineStarts_.push_back(0);
    for (std::size_t i = 0; i < text_.size(); ++i)
        if (text_[i] == '\n')
            lineStarts_.push_back(i + 1);
}

// ----- position and errors ---------------------------------------------------------------------------------

SourceLocation Lexer::here(std::size_t offset) const {
    const auto next = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
    const int line = static_cast<int>(next - lineStarts_.begin());
    const int column = static_cast<int>(offset - *(next - 1)) + 1;
    return SourceLocation{file_, line, column, {}};
}

std::optional<std::size_t> Lexer::offsetOf(const SourceLocation& location) const {
    if (location.file != file_ || location.line <= 0 ||
        static_cast<std::size_t>(location.line) > lineStarts_.size())
        return std::nullopt;
    return lineStarts_[static_cast<std::size_t>(location.line - 1)] +
           static_cast<std::size_t>(std::max(0, location.column - 1));
}

void Lexer::failAt(std::size_t offset, const std::string& message) {
    pos_ = offset;
    fail(message);
}

void Lexer::expected(const std::string& what) const {
    std::string found;
    if (pos_ >= text_.size()) {
        found = "end of file";
    } else {
        std::size_t end = pos_;
        while (end < text_.size() && end - pos_ < 24 && text_[end] != '\n')
            ++end;
        found = "'" + std::string(text_.substr(pos_, end - pos_)) + "'";
    }
    fail("expected " + what + ", found " + found);
}

void Lexer::expectedAt(std::size_t offset, const std::string& what) {
    pos_ = offset;
    expected(what);
}

// ----- tokens ----------------------------------------------------------------------------------------------

void Lexer::skip() {
    while (pos_ < text_.size()) {
        const char c = text_[pos_];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            ++pos_;
        } else if (c == '/' && peekAt(1) == '/') {
            skipLine();
        } else {
            break;
        }
    }
}

bool Lexer::consume(std::string_view literal) {
    skip();
    if (text_.substr(pos_, literal.size()) != literal)
        return false;
    if (isIdStart(literal.front()) && pos_ + literal.size() < text_.size() &&
        isIdChar(text_[pos_ + literal.size()]))
        return false;
    pos_ += literal.size();
    return true;
}

void Lexer::expect(std::string_view literal, const char* context) {
    if (!consume(literal))
        expected("'" + std::string(literal) + "'" + (context ? std::string(" ") + context : std::string()));
}

bool Lexer::lookingAt(std::string_view literal) {
    skip();
    return text_.substr(pos_, literal.size()) == literal;
}

bool Lexer::startsOpName() {
    skip();
    std::size_t i = pos_ + (peek() == '"' ? 1 : 0);
    if (i >= text_.size() || !isIdStart(text_[i]))
        return false;
    bool dot = false;
    for (; i < text_.size() && isIdChar(text_[i]); ++i)
        dot = dot || text_[i] == '.';
    return dot;
}

std::string Lexer::identifier(const char* what) {
    skip();
    if (pos_ >= text_.size() || !isIdStart(text_[pos_]))
        expected(what);
    const std::size_t start = pos_;
    while (pos_ < text_.size() && isIdChar(text_[pos_]))
        ++pos_;
    return std::string(text_.substr(start, pos_ - start));
}

std::string Lexer::quotedString() {
    skip();
    if (peek() != '"')
        expected("a string");
    ++pos_;
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
        const char c = text_[pos_++];
        if (c != '\\' || pos_ >= text_.size()) {
            out += c;
            continue;
        }
        const char e = text_[pos_++];
        if (e == 'n')
            out += '\n';
        else if (e == 't')
            out += '\t';
        else if (std::isxdigit(static_cast<unsigned char>(e)) && pos_ < text_.size() &&
                 std::isxdigit(static_cast<unsigned char>(text_[pos_])))
            out += static_cast<char>(std::stoi(std::string{e, text_[pos_++]}, nullptr, 16));
        else
            out += e;
    }
    if (pos_ >= text_.size())
        fail("unterminated string");
    ++pos_;
    return out;
}

std::string Lexer::valueName() {
    skip();
    if (peek() != '%')
        expected("a value name (%...)");
    ++pos_;
    const std::size_t start = pos_;
    while (pos_ < text_.size() && (isIdChar(text_[pos_]) || text_[pos_] == '-' || text_[pos_] == '#'))
        ++pos_;
    if (pos_ == start)
        expected("a value name after '%'");
    return std::string(text_.substr(start, pos_ - start));
}

std::string Lexer::symbolName() {
    skip();
    if (peek() != '@')
        expected("a symbol (@name)");
    ++pos_;
    if (peek() == '"')
        return quotedString();
    const std::size_t start = pos_;
    while (pos_ < text_.size() && (isIdChar(text_[pos_]) || text_[pos_] == '-'))
        ++pos_;
    if (pos_ == start)
        expected("a symbol name after '@'");
    return std::string(text_.substr(start, pos_ - start));
}

std::string Lexer::aliasName() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && isIdChar(text_[pos_]))
        ++pos_;
    return std::string(text_.substr(start, pos_ - start));
}

std::string Lexer::dialectName() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && (isIdChar(text_[pos_]) || text_[pos_] == '-'))
        ++pos_;
    return std::string(text_.substr(start, pos_ - start));
}

std::int64_t Lexer::integer() {
    skip();
    const std::size_t start = pos_;
    if (peek() == '-')
        ++pos_;
    std::int64_t value = 0;
    auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), value);
    if (ec != std::errc{}) {
        pos_ = start;
        expected("an integer");
    }
    pos_ = static_cast<std::size_t>(end - text_.data());
    return text_[start] == '-' ? -value : value;
}

std::vector<std::int64_t> Lexer::integerList() {
    expect("[");
    std::vector<std::int64_t> out;
    if (!consume("]")) {
        do
            out.push_back(integer());
        while (consume(","));
        expect("]");
    }
    return out;
}

void Lexer::expectListedKey(std::string_view key) {
    expect(",");
    expect(key);
    expect("=");
}

bool Lexer::skipStringOrArrow() {
    if (text_[pos_] == '"') {
        quotedString();  // its brackets and quotes are text
        return true;
    }
    if (text_[pos_] == '-' && peekAt(1) == '>') {
        pos_ += 2;  // a function type's '>' closes no bracket
        return true;
    }
    return false;
}

std::string Lexer::balanced(char open, char close) {
    const std::size_t start = pos_;
    int depth = 1;
    while (pos_ < text_.size()) {
        if (skipStringOrArrow())
            continue;
        const char c = text_[pos_];
        if (c == '/' && peekAt(1) == '/') {
            skipLine();
            continue;
        }
        if (c == open)
            ++depth;
        else if (c == close && --depth == 0) {
            std::string body(text_.substr(start, pos_ - start));
            ++pos_;
            return body;
        }
        ++pos_;
    }
    fail(std::string("unbalanced '") + open + "'");
}

void Lexer::skipBraces() {
    expect("{");
    balanced('{', '}');
}

void Lexer::skipLine() {
    while (pos_ < text_.size() && text_[pos_] != '\n')
        ++pos_;
}

void Lexer::skipUnmodelledOp() {
    int depth = 0;
    while (pos_ < text_.size()) {
        if (skipStringOrArrow())
            continue;
        const char c = text_[pos_];
        if (c == '\n' && depth <= 0)
            break;
        if (c == '{' || c == '(' || c == '[' || c == '<')
            ++depth;
        else if (c == '}' || c == ')' || c == ']' || c == '>') {
            if (depth == 0)
                break;  // the module's closing brace on the same line
            --depth;
        }
        ++pos_;
    }
}

std::string_view Lexer::bracketedWord() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n') {
        if (text_[pos_] == '[') {
            ++pos_;
            balanced('[', ']');
            continue;
        }
        ++pos_;
    }
    return text_.substr(start, pos_ - start);
}

// ----- locations -------------------------------------------------------------------------------------------

LocInfo Lexer::locationBody(int depth) {
    if (depth > kMaxDepth)
        fail("locations nested too deeply");
    LocInfo loc;
    skip();
    if (peek() == '#') {
        ++pos_;
        loc.alias = aliasName();
    } else if (peek() == '"') {
        loc = quotedLocation(depth);
    } else if (consume("callsite")) {
        expect("(");
        loc = locationBody(depth + 1);
        expect("at");
        locationBody(depth + 1);
    } else if (consume("fused")) {
        loc = fusedLocation(depth);
    } else if (!consume("unknown")) {
        expected("a location");
    }
    expect(")", "to close the location");
    return loc;
}

// `"file":line:column` (or a range `... to line:column`), or `"name"` with an optional child `("file":...)`.
LocInfo Lexer::quotedLocation(int depth) {
    LocInfo loc;
    std::string first = quotedString();
    if (consume(":")) {
        loc.file = first;
        loc.line = static_cast<int>(integer());
        if (consume(":"))
            loc.column = static_cast<int>(integer());
        if (consume("to")) {  // a range: "file":1:2 to 3:4 / to :4
            if (peek() != ':')
                integer();
            if (consume(":"))
                integer();
        }
        return loc;
    }
    loc.name = first;
    if (consume("(")) {  // a child location
        const LocInfo child = locationBody(depth + 1);
        loc.file = child.file;
        loc.line = child.line;
        loc.column = child.column;
    }
    return loc;
}

// After `fused`: `<metadata>[loc, loc, ...]`, the first of which is kept.
LocInfo Lexer::fusedLocation(int depth) {
    if (consume("<"))
        balanced('<', '>');
    expect("[");
    LocInfo loc;
    bool first = true;
    if (!consume("]")) {
        do {
            LocInfo part = locationBody(depth + 1);
            if (first)
                loc = part;
            first = false;
        } while (consume(","));
        expect("]");
    }
    return loc;
}

std::optional<LocInfo> Lexer::optionalLocation() {
    if (!consume("loc"))
        return std::nullopt;
    expect("(");
    return locationBody();
}

}  // namespace shardscope::import::stablehlo_import
