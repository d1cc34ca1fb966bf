// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "stablehlo_types.h"

#include <cctype>
#include <charconv>
#include <string>
#include <string_view>

namespace shardscope::import::stablehlo_import {

using ir::ElementType;
using ir::TensorType;

void appendLeaves(const ParsedType& t, std::vector<TensorType>& out) {
    if (!t.tuple)
        out.push_back(t.type);
    for (const auto& e : t.elements)
        appendLeaves(e, out);
}

std::size_t leafCount(const ParsedType& t) {
    if (!t.tuple)
        return 1;
    std::size_t n = 0;
    for (const auto& e : t.elements)
        n += leafCount(e);
    return n;
}

namespace {

ElementType elementType(Lexer& lex, std::string_view spelling, std::size_t at) {
    if (auto t = ir::parseElementType(spelling))
        return *t;
    lex.failAt(at, "unsupported element type '" + std::string(spelling) + "'");
}

// The inside of `tensor<...>` without its encoding (", #sdy..." or ", #stablehlo.bounds<...>").
std::string withoutEncoding(std::string body) {
    int depth = 0;
    for (std::size_t i = 0; i < body.size(); ++i) {
        const char c = body[i];
        if (c == '<' || c == '(' || c == '[')
            ++depth;
        if (c == '>' || c == ')' || c == ']')
            --depth;
        if (c == ',' && depth == 0) {
            body.resize(i);
            break;
        }
    }
    return body;
}

// `2x3xf32` (the inside of `tensor<...>` at `at`): dimensions, then the element type.
TensorType tensorBody(Lexer& lex, const std::string& body, std::size_t at) {
    TensorType t;
    std::size_t start = 0;
    while (true) {
        const std::size_t x = body.find('x', start);
        const std::string_view piece(body.data() + start, (x == std::string::npos ? body.size() : x) - start);
        if (x == std::string::npos || piece.empty() ||
            !(std::isdigit(static_cast<unsigned char>(piece[0])) || piece[0] == '?')) {
            std::string_view element(body.data() + start, body.size() - start);
            while (!element.empty() && element.back() == ' ')
                element.remove_suffix(1);
            while (!element.empty() && element.front() == ' ')
                element.remove_prefix(1);
            t.element = elementType(lex, element, at);
            return t;
        }
        if (piece[0] == '?')
            lex.failAt(at, "dynamic dimensions are not supported: tensor<" + body + ">");
        std::int64_t d = 0;
        auto [end, ec] = std::from_chars(piece.data(), piece.data() + piece.size(), d);
        if (ec != std::errc{} || end != piece.data() + piece.size())
            lex.failAt(at, "bad dimension '" + std::string(piece) + "' in tensor<" + body + ">");
        t.shape.push_back(d);
        start = x + 1;
    }
}

ParsedType tupleType(Lexer& lex, std::size_t at, int tupleDepth) {
    lex.expect("<", "after 'tuple'");
    ParsedType t;
    t.tuple = true;
    t.at = at;
    const int depth = tupleDepth + 1;
    if (depth > kMaxDepth)
        lex.fail("tuple types nested too deeply");
    if (!lex.consume(">")) {
        do
            t.elements.push_back(readType(lex, depth));
        while (lex.consume(","));
        lex.expect(">", "to close the tuple type");
    }
    return t;
}

}  // namespace

ParsedType readType(Lexer& lex, int tupleDepth) {
    lex.skip();
    const std::size_t at = lex.offset();
    if (lex.consume("!stablehlo.token") || lex.consume("!mhlo.token"))
        return {TensorType{{}, ElementType::Token}, true, false, {}, at};
    if (lex.consume("tensor")) {
        lex.expect("<", "after 'tensor'");
        return {tensorBody(lex, withoutEncoding(lex.balanced('<', '>')), at), false, false, {}, at};
    }
    if (lex.consume("tuple"))
        return tupleType(lex, at, tupleDepth);
    // A scalar element type (used by attribute types such as `1 : i64`).
    if (isIdStart(lex.peek()) || lex.peek() == 'c') {
        std::string word = lex.identifier("a type");
        if (word == "complex") {
            lex.expect("<");
            word += "<" + lex.balanced('<', '>') + ">";
        }
        if (auto t = ir::parseElementType(word))
            return {TensorType{{}, *t}, false, false, {}, at};
        lex.seek(at);
    }
    lex.expected("a type");
}

std::vector<ParsedType> readTypeList(Lexer& lex) {
    std::vector<ParsedType> out;
    if (lex.consume("(")) {
        if (lex.consume(")"))
            return out;
        do
            out.push_back(readType(lex));
        while (lex.consume(","));
        lex.expect(")", "to close the type list");
        return out;
    }
    out.push_back(readType(lex));
    return out;
}

FunctionType readFunctionType(Lexer& lex) {
    FunctionType f;
    if (lex.peek() == '(') {
        f.inputs = readTypeList(lex);
        if (lex.consume("->")) {
            f.isFunction = true;
            f.results = readTypeList(lex);
        }
        return f;
    }
    f.inputs.push_back(readType(lex));
    while (true) {
        const std::size_t save = lex.offset();
        if (!lex.consume(","))
            break;
        const char next = lex.peek();
        if (next == 't' || next == '!' || isIdStart(next)) {
            try {
                f.inputs.push_back(readType(lex));
                continue;
            } catch (const ParseError&) {
            }
        }
        lex.seek(save);
        break;
    }
    if (lex.consume("->")) {  // `t -> t`, as chlo prints
        f.isFunction = true;
        f.results = readTypeList(lex);
    }
    return f;
}

}  // namespace shardscope::import::stablehlo_import
