// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "stablehlo_attributes.h"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <map>

#include "stablehlo_types.h"

namespace shardscope::import::stablehlo_import {

using ir::Dims;

Attr::Attr() = default;
Attr::Attr(const Attr&) = default;
Attr::Attr(Attr&&) noexcept = default;
Attr& Attr::operator=(const Attr&) = default;
Attr& Attr::operator=(Attr&&) noexcept = default;
Attr::~Attr() = default;

const Attr* Attr::field(std::string_view key) const {
    return lookup(fields, key);
}

const Attr* lookup(const AttrDict& dict, std::string_view key) {
    for (const auto& [k, v] : dict)
        if (k == key)
            return &v;
    return nullptr;
}

// ----- syntax ----------------------------------------------------------------------------------------------

namespace {

Attr hexInteger(Lexer& lex, std::size_t start) {
    while (std::isxdigit(static_cast<unsigned char>(lex.peekAt(0))))
        lex.take();
    Attr a;
    a.kind = Attr::Kind::Integer;
    a.text = lex.textBetween(start, lex.offset());
    a.integer = static_cast<std::int64_t>(std::stoull(a.text.substr(a.text[0] == '-' ? 3 : 2), nullptr, 16));
    return a;
}

Attr decimalNumber(Lexer& lex, std::size_t start) {
    bool isFloat = false;
    while (true) {
        const char c = lex.peekAt(0);
        if (std::isdigit(static_cast<unsigned char>(c))) {
            lex.take();
        } else if (c == '.' || c == 'e' || c == 'E') {
            isFloat = true;
            lex.take();
            if ((c == 'e' || c == 'E') && (lex.peekAt(0) == '-' || lex.peekAt(0) == '+'))
                lex.take();
        } else {
            break;
        }
    }
    Attr a;
    a.text = lex.textBetween(start, lex.offset());
    if (a.text.empty() || a.text == "-" || a.text == "+")
        lex.expectedAt(start, "a number");
    if (isFloat) {
        a.kind = Attr::Kind::Float;
        a.number = std::strtod(a.text.c_str(), nullptr);
    } else {
        a.kind = Attr::Kind::Integer;
        std::from_chars(a.text.data() + (a.text[0] == '+'), a.text.data() + a.text.size(), a.integer);
    }
    return a;
}

Attr number(Lexer& lex) {
    lex.skip();
    const std::size_t start = lex.offset();
    if (lex.peekAt(0) == '-' || lex.peekAt(0) == '+')
        lex.take();
    const bool hex = lex.peekAt(0) == '0' && lex.peekAt(1) == 'x';
    if (hex)
        lex.seek(lex.offset() + 2);
    Attr a = hex ? hexInteger(lex, start) : decimalNumber(lex, start);
    if (a.kind == Attr::Kind::Integer)
        a.number = static_cast<double>(a.integer);
    return a;
}

// An optional `: type` after a number or dense literal; `: (` or `: %` means the colon belongs to the op.
void attributeType(Lexer& lex, Attr& a) {
    const std::size_t save = lex.offset();
    if (!lex.consume(":"))
        return;
    lex.skip();
    try {
        const ParsedType t = readType(lex);
        if (t.tuple) {
            lex.seek(save);
            return;
        }
        a.type = t.type;
        a.hasType = true;
    } catch (const ParseError&) {
        lex.seek(save);
    }
}

// The body of `array<i64: 1, 2>` or `array<i1: true, false>`.
Attr denseArray(const std::string& body) {
    Attr a;
    a.kind = Attr::Kind::Array;
    const auto colon = body.find(':');
    if (colon == std::string::npos)
        return a;
    std::string_view rest(body);
    rest.remove_prefix(colon + 1);
    std::size_t i = 0;
    while (i < rest.size()) {
        while (i < rest.size() && (rest[i] == ' ' || rest[i] == ','))
            ++i;
        std::size_t j = i;
        while (j < rest.size() && rest[j] != ',')
            ++j;
        std::string item(rest.substr(i, j - i));
        while (!item.empty() && item.back() == ' ')
            item.pop_back();
        if (!item.empty()) {
            Attr e;
            if (item == "true" || item == "false") {
                e.kind = Attr::Kind::Bool;
                e.integer = item == "true";
            } else {
                e.kind = Attr::Kind::Integer;
                e.integer = std::strtoll(item.c_str(), nullptr, 10);
                e.number = std::strtod(item.c_str(), nullptr);
            }
            a.items.push_back(e);
        }
        i = j + 1;
    }
    return a;
}

// The `<...>` after `dense`, `dense_resource`, `affine_map`, ... (whose '<' is next).
Attr bracketedBody(Lexer& lex, Attr::Kind kind) {
    lex.expect("<");
    Attr a;
    a.kind = kind;
    a.text = lex.balanced('<', '>');
    return a;
}

// `#dialect.name<...>`, `#dialect<...>` or an alias reference `#name`.
Attr dialectAttribute(Lexer& lex, int depth) {
    lex.expect("#");
    Attr a;
    a.kind = Attr::Kind::Dialect;
    a.text = lex.dialectName();
    if (lex.peekAt(0) != '<')
        return a;
    lex.take();
    const std::size_t bodyStart = lex.offset();
    // key = value bodies are parsed; anything else is kept raw in `items[0].text`.
    bool keyValue = false;
    if (isIdStart(lex.peek())) {
        const std::size_t save = lex.offset();
        lex.identifier();
        keyValue = lex.consume("=");
        lex.seek(save);
    }
    if (!keyValue) {
        lex.seek(bodyStart);
        Attr raw;
        raw.kind = Attr::Kind::Word;
        raw.text = lex.balanced('<', '>');
        a.items.push_back(std::move(raw));
        return a;
    }
    while (true) {
        std::string key = lex.identifier("an attribute name");
        lex.expect("=");
        a.fields.emplace_back(std::move(key), readAttribute(lex, depth + 1));
        if (!lex.consume(","))
            break;
    }
    lex.expect(">", "to close the attribute");
    return a;
}

// Attributes that start with a punctuation mark, or nullopt.
std::optional<Attr> punctuatedAttribute(Lexer& lex, int depth) {
    Attr a;
    const char c = lex.peek();
    if (c == '[') {
        lex.take();
        a.kind = Attr::Kind::Array;
        if (lex.consume("]"))
            return a;
        do
            a.items.push_back(readAttribute(lex, depth + 1));
        while (lex.consume(","));
        lex.expect("]", "to close the array");
        return a;
    }
    if (c == '{') {
        a.kind = Attr::Kind::Dictionary;
        a.fields = readDictionary(lex, depth + 1);
        return a;
    }
    if (c == '"') {
        a.kind = Attr::Kind::String;
        a.text = lex.quotedString();
        return a;
    }
    if (c == '@') {
        a.kind = Attr::Kind::Symbol;
        a.text = lex.symbolName();
        while (lex.consume("::"))
            a.text += "::" + lex.symbolName();
        return a;
    }
    if (c == '#')
        return dialectAttribute(lex, depth);
    if (c == '<') {  // a bare dialect body, e.g. sdy's `<@mesh, [{"x"}]>`
        lex.take();
        a.kind = Attr::Kind::Dialect;
        a.text = lex.balanced('<', '>');
        return a;
    }
    if (c == '-' || c == '+' || std::isdigit(static_cast<unsigned char>(c))) {
        a = number(lex);
        attributeType(lex, a);
        return a;
    }
    return std::nullopt;
}

// Attributes that start with a keyword, or nullopt.
std::optional<Attr> keywordAttribute(Lexer& lex) {
    if (lex.consume("dense_resource")) {
        Attr a = bracketedBody(lex, Attr::Kind::Dense);
        a.resource = true;
        attributeType(lex, a);
        return a;
    }
    if (lex.consume("dense")) {
        Attr a = bracketedBody(lex, Attr::Kind::Dense);
        if (a.text.empty())
            a.text = "[]";
        attributeType(lex, a);
        return a;
    }
    if (lex.consume("array")) {
        lex.expect("<");
        return denseArray(lex.balanced('<', '>'));
    }
    Attr a;
    const bool isTrue = lex.consume("true");
    if (isTrue || lex.consume("false")) {
        a.kind = Attr::Kind::Bool;
        a.integer = isTrue;
        attributeType(lex, a);
        return a;
    }
    if (lex.consume("unit")) {
        a.kind = Attr::Kind::Unit;
        return a;
    }
    if (lex.lookingAt("affine_map") || lex.lookingAt("affine_set")) {
        lex.identifier();
        return bracketedBody(lex, Attr::Kind::Word);
    }
    if (lex.lookingAt("tensor<") || lex.lookingAt("!")) {
        a.kind = Attr::Kind::Type;
        a.type = readType(lex).type;
        return a;
    }
    return std::nullopt;
}

}  // namespace

Attr readAttribute(Lexer& lex, int depth) {
    if (depth > kMaxDepth)
        lex.fail("attributes nested too deeply");
    if (auto a = punctuatedAttribute(lex, depth))
        return std::move(*a);
    if (auto a = keywordAttribute(lex))
        return std::move(*a);
    if (!isIdStart(lex.peek()))
        lex.expected("an attribute value");
    Attr a;
    a.kind = Attr::Kind::Word;
    a.text = lex.identifier();
    if (auto t = ir::parseElementType(a.text)) {
        a.kind = Attr::Kind::Type;
        a.type = ir::TensorType{{}, *t};
    }
    return a;
}

AttrDict readDictionary(Lexer& lex, int depth) {
    lex.expect("{");
    AttrDict out;
    if (lex.consume("}"))
        return out;
    do {
        std::string key = lex.peek() == '"' ? lex.quotedString() : lex.identifier("an attribute name");
        if (lex.consume("=")) {
            out.emplace_back(std::move(key), readAttribute(lex, depth + 1));
        } else {
            Attr unit;
            unit.kind = Attr::Kind::Unit;
            out.emplace_back(std::move(key), unit);
        }
    } while (lex.consume(","));
    lex.expect("}", "to close the attribute dictionary");
    return out;
}

// ----- values ----------------------------------------------------------------------------------------------

namespace {

// The integers written in a dense literal's text, in order.
Dims integersIn(std::string_view s) {
    Dims out;
    std::size_t i = 0;
    while (i < s.size()) {
        if (!(std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '-')) {
            ++i;
            continue;
        }
        std::size_t j = i + 1;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])))
            ++j;
        out.push_back(std::strtoll(std::string(s.substr(i, j - i)).c_str(), nullptr, 10));
        i = j;
    }
    return out;
}

}  // namespace

Dims intsOf(const Attr* a) {
    Dims out;
    if (!a)
        return out;
    if (a->kind == Attr::Kind::Array) {
        for (const auto& item : a->items) {
            if (item.kind == Attr::Kind::Array) {
                const Dims inner = intsOf(&item);
                out.insert(out.end(), inner.begin(), inner.end());
            } else {
                out.push_back(item.integer);
            }
        }
    } else if (a->kind == Attr::Kind::Dense) {
        out = integersIn(a->text);
    } else if (a->kind == Attr::Kind::Integer) {
        out.push_back(a->integer);
    }
    return out;
}

std::vector<std::pair<std::int64_t, std::int64_t>> pairsOf(const Attr* a) {
    const Dims flat = intsOf(a);
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    for (std::size_t i = 0; i + 1 < flat.size(); i += 2)
        out.emplace_back(flat[i], flat[i + 1]);
    return out;
}

std::string wordOf(const Attr* a) {
    if (!a)
        return {};
    if (a->kind == Attr::Kind::Dialect) {
        const std::string raw = a->items.empty() ? std::string() : a->items.front().text;
        auto space = raw.rfind(' ');
        return space == std::string::npos ? raw : raw.substr(space + 1);
    }
    return a->text;
}

std::optional<ir::CompareDirection> comparisonDirection(std::string_view w) {
    using ir::CompareDirection;
    if (w == "EQ")
        return CompareDirection::EQ;
    if (w == "NE")
        return CompareDirection::NE;
    if (w == "GE")
        return CompareDirection::GE;
    if (w == "GT")
        return CompareDirection::GT;
    if (w == "LE")
        return CompareDirection::LE;
    if (w == "LT")
        return CompareDirection::LT;
    return std::nullopt;
}

ir::CompareType compareType(std::string_view w) {
    using ir::CompareType;
    if (w == "FLOAT")
        return CompareType::Float;
    if (w == "TOTALORDER")
        return CompareType::TotalOrder;
    if (w == "SIGNED")
        return CompareType::Signed;
    if (w == "UNSIGNED")
        return CompareType::Unsigned;
    return CompareType::Default;
}

namespace {

// One side of a convolution layout, `[b, 0, 1, f]`: the positions of the two named dimensions (`first`,
// `second`) and of the spatial ones in the order of their numbers.
bool convSide(std::string_view part, char first, char second, std::int64_t& a, std::int64_t& b,
              Dims& spatial) {
    std::vector<std::string> items;
    std::string current;
    for (char ch : part) {
        if (ch == '[' || ch == ' ')
            continue;
        if (ch == ',' || ch == ']') {
            if (!current.empty())
                items.push_back(current);
            current.clear();
            continue;
        }
        current += ch;
    }
    if (!current.empty())
        items.push_back(current);
    std::map<std::int64_t, std::int64_t> spatialByIndex;
    bool sawA = false, sawB = false;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const auto position = static_cast<std::int64_t>(i);
        if (items[i] == std::string(1, first))
            a = position, sawA = true;
        else if (items[i] == std::string(1, second))
            b = position, sawB = true;
        else if (!items[i].empty() && std::isdigit(static_cast<unsigned char>(items[i][0])))
            spatialByIndex[std::strtoll(items[i].c_str(), nullptr, 10)] = position;
        else
            return false;
    }
    spatial.clear();
    for (const auto& [index, position] : spatialByIndex)
        spatial.push_back(position);
    return sawA && sawB && spatial.size() + 2 == items.size();
}

}  // namespace

bool parseConvLayout(std::string_view text, ir::ConvolutionAttributes& c) {
    const auto x = text.find("]x[");
    const auto arrow = text.find("->");
    if (x == std::string_view::npos || arrow == std::string_view::npos)
        return false;
    return convSide(text.substr(0, x + 1), 'b', 'f', c.inputBatch, c.inputFeature, c.inputSpatial) &&
           convSide(text.substr(x + 2, arrow - x - 2), 'i', 'o', c.kernelInputFeature, c.kernelOutputFeature,
                    c.kernelSpatial) &&
           convSide(text.substr(arrow + 2), 'b', 'f', c.outputBatch, c.outputFeature, c.outputSpatial);
}

ir::DotDimensions plainDotDimensions(const ir::TensorType& lhs) {
    ir::DotDimensions d;
    d.lhsContracting = {lhs.rank() - 1};
    d.rhsContracting = {0};
    return d;
}

void groupCountsFrom(const AttrDict& d, ir::ConvolutionAttributes& c) {
    if (const Attr* g = lookup(d, "feature_group_count"))
        c.featureGroupCount = g->integer;
    if (const Attr* g = lookup(d, "batch_group_count"))
        c.batchGroupCount = g->integer;
}

std::string backendConfigOf(const AttrDict& d) {
    const Attr* b = lookup(d, "backend_config");
    return b && b->kind == Attr::Kind::String ? b->text : std::string();
}

// ----- shardings -------------------------------------------------------------------------------------------

std::optional<ir::ShardingAnnotation> shardyAnnotation(const Attr& a) {
    using Format = ir::ShardingAnnotation::Format;
    if (a.kind != Attr::Kind::Dialect)
        return std::nullopt;
    if (a.items.empty())
        return ir::ShardingAnnotation{Format::Shardy, "#sdy.sharding<" + a.text + ">"};
    return ir::ShardingAnnotation{Format::Shardy, "#" + a.text + "<" + a.items.front().text + ">"};
}

std::optional<ir::ShardingAnnotation> shardingFrom(const AttrDict& d) {
    using Format = ir::ShardingAnnotation::Format;
    if (const Attr* s = lookup(d, "sdy.sharding")) {
        std::string text = "#" + s->text;
        if (!s->items.empty())
            text += "<" + s->items.front().text + ">";
        return ir::ShardingAnnotation{Format::Shardy, text};
    }
    if (const Attr* s = lookup(d, "mhlo.sharding"); s && s->kind == Attr::Kind::String)
        return ir::ShardingAnnotation{Format::Gspmd, s->text};
    return std::nullopt;
}

std::vector<std::string> shardingItems(const std::string& list) {
    std::vector<std::string> items;
    std::size_t start = 0;
    int depth = 0;
    for (std::size_t i = 0; i <= list.size(); ++i) {
        const char c = i < list.size() ? list[i] : ',';
        if (c == '<' || c == '[' || c == '{')
            ++depth;
        if (c == '>' || c == ']' || c == '}')
            --depth;
        if (c != ',' || depth != 0)
            continue;
        std::string item = trimmedCopy(list.substr(start, i - start));
        start = i + 1;
        if (!item.empty())
            items.push_back(std::move(item));
    }
    return items;
}

std::vector<std::string> quotedWords(const std::string& text) {
    std::vector<std::string> out;
    for (std::size_t i = text.find('"'); i != std::string::npos; i = text.find('"', i + 1)) {
        const std::size_t end = text.find('"', i + 1);
        if (end == std::string::npos)
            break;
        out.push_back(text.substr(i + 1, end - i - 1));
        i = end;
    }
    return out;
}

}  // namespace shardscope::import::stablehlo_import
