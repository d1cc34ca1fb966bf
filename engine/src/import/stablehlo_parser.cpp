// StableHLO textual MLIR importer: one recursive-descent parser for the pretty and the generic op forms.
//
// The parser reads characters directly (MLIR's syntax is context sensitive: `2x3xf32` inside a tensor type,
// `[1] x [0]` in dot_general, `->` inside attributes), emitting IR ops as it goes. Two passes over the module:
// the first records `#loc` aliases, meshes and where each function's text starts; the second parses the entry
// function, inlining func.call and stablehlo.composite by parsing the callee's text again with its arguments
// bound to the call's operands. The graph has no tuple values: a tuple is bound to one name as its tensors, and
// stablehlo.tuple / get_tuple_element only rebind names. Internally errors are thrown as ParseError and turned into
// a Diagnostic at the API boundary.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <utility>

#include "dense_elements.h"
#include "manual_computation.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/ir/verifier.h"

namespace shardscope::import {
namespace {

using namespace ir;

std::string trimmedCopy(const std::string& text) {
    const auto begin = text.find_first_not_of(" \t\r\n");
    if (begin == std::string::npos) return {};
    return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}

// One level deeper in a recursion whose depth `depth` counts, for the scope of the guard (exceptions included).
struct Nesting {
    int& depth;
    explicit Nesting(int& d) : depth(d) { ++depth; }
    ~Nesting() { --depth; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
};

// A message quoting the input (a type, a token) stays on one line.
std::string oneLine(std::string message) {
    for (char& c : message)
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    return message;
}

// The items of `<@mesh, [...]>, <@mesh, [...]>` (the inside of a list of shardings), trimmed.
std::vector<std::string> shardingItems(const std::string& list) {
    std::vector<std::string> items;
    std::size_t start = 0;
    int depth = 0;
    for (std::size_t i = 0; i <= list.size(); ++i) {
        const char c = i < list.size() ? list[i] : ',';
        if (c == '<' || c == '[' || c == '{') ++depth;
        if (c == '>' || c == ']' || c == '}') --depth;
        if (c != ',' || depth != 0) continue;
        std::string item = trimmedCopy(list.substr(start, i - start));
        start = i + 1;
        if (!item.empty()) items.push_back(std::move(item));
    }
    return items;
}

std::vector<std::string> quotedWords(const std::string& text) {
    std::vector<std::string> out;
    for (std::size_t i = text.find('"'); i != std::string::npos; i = text.find('"', i + 1)) {
        const std::size_t end = text.find('"', i + 1);
        if (end == std::string::npos) break;
        out.push_back(text.substr(i + 1, end - i - 1));
        i = end;
    }
    return out;
}


struct ParseError {
    std::size_t offset;
    std::string message;
    std::string code = "stablehlo.syntax";
};

// ---------------------------------------------------------------------------------------------------------
// Attributes in their generic form.

struct Attr {
    enum class Kind { None, Integer, Float, Bool, String, Symbol, Array, Dictionary, Dense, Type, Dialect, Unit, Word };
    Kind kind = Kind::None;
    std::int64_t integer = 0;
    double number = 0;
    std::string text;  // String, Symbol, Word, Dialect name, Dense raw literal, Dialect raw body
    std::vector<Attr> items;
    std::vector<std::pair<std::string, Attr>> fields;  // Dictionary, and Dialect bodies of key = value
    TensorType type;                                   // Dense, Type, typed numbers
    bool hasType = false;
    bool resource = false;  // dense_resource<...>: the values live elsewhere (often elided)

    const Attr* field(std::string_view key) const {
        for (const auto& [k, v] : fields)
            if (k == key) return &v;
        return nullptr;
    }
    bool isIntegerLike() const { return kind == Kind::Integer || kind == Kind::Bool; }

    // Declared here, defaulted below where Attr is complete: clang (with libstdc++) cannot define them inside
    // the class, since `fields` holds pairs of the still incomplete Attr.
    Attr();
    Attr(const Attr&);
    Attr(Attr&&) noexcept;
    Attr& operator=(const Attr&);
    Attr& operator=(Attr&&) noexcept;
    ~Attr();
};
Attr::Attr() = default;
Attr::Attr(const Attr&) = default;
Attr::Attr(Attr&&) noexcept = default;
Attr& Attr::operator=(const Attr&) = default;
Attr& Attr::operator=(Attr&&) noexcept = default;
Attr::~Attr() = default;

using AttrDict = std::vector<std::pair<std::string, Attr>>;

const Attr* lookup(const AttrDict& dict, std::string_view key) {
    for (const auto& [k, v] : dict)
        if (k == key) return &v;
    return nullptr;
}

// A source location as MLIR writes it; aliases resolve after the whole file is read.
struct LocInfo {
    std::string name, file, alias;
    int line = 0, column = 0;
};

struct ParsedType {
    TensorType type;
    bool token = false;
    bool tuple = false;
    std::vector<ParsedType> elements;  // of a tuple
    std::size_t at = 0;                // where the type starts in the text
};

// A tuple's tensors, depth first (the values a tuple becomes: the graph has no tuple values).
void appendLeaves(const ParsedType& t, std::vector<TensorType>& out) {
    if (!t.tuple) out.push_back(t.type);
    for (const auto& e : t.elements) appendLeaves(e, out);
}
std::size_t leafCount(const ParsedType& t) {
    if (!t.tuple) return 1;
    std::size_t n = 0;
    for (const auto& e : t.elements) n += leafCount(e);
    return n;
}

struct FunctionInfo {
    std::string name;
    bool isPublic = true;
    std::size_t nameOffset = 0;       // at its '@'
    std::size_t signatureOffset = 0;  // at '(' of the argument list
};

constexpr std::size_t kMaxDenseElements = std::size_t{1} << 20;
constexpr int kMaxDepth = 200;

bool isIdStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; }

// The combiner of a one-op region, if it is a well-known one.
Reducer reducerOf(const Graph& g, const Region& r) {
    if (r.ops.size() != 1) return Reducer::Other;
    switch (g.op(r.ops.front()).kind) {
        case OpKind::Add: return Reducer::Add;
        case OpKind::Multiply: return Reducer::Multiply;
        case OpKind::Maximum: return Reducer::Maximum;
        case OpKind::Minimum: return Reducer::Minimum;
        case OpKind::And: return Reducer::And;
        case OpKind::Or: return Reducer::Or;
        default: return Reducer::Other;
    }
}

const std::set<std::string, std::less<>> kChloUnary{
    "chlo.erf",   "chlo.erfc",  "chlo.erf_inv", "chlo.lgamma", "chlo.digamma", "chlo.asin",      "chlo.acos",
    "chlo.atan",  "chlo.sinh",  "chlo.cosh",    "chlo.asinh",  "chlo.acosh",   "chlo.atanh",     "chlo.tan",
    "chlo.conj",  "chlo.square", "chlo.bessel_i1e", "chlo.is_inf", "chlo.is_neg_inf", "chlo.is_pos_inf"};

// Shardy's explicit collectives. In Shardy's global view each keeps the tensor's value and moves it to its
// out_sharding (an all_reduce sums what its operand held unreduced): a reshard, which is how they import.
const std::set<std::string, std::less<>> kShardyCollectives{"sdy.all_gather",  "sdy.all_slice",  "sdy.all_reduce",
                                                            "sdy.reduce_scatter", "sdy.all_to_all", "sdy.collective_permute"};

// A Shardy sharding written `<@mesh, [...]>` (stripped, as per-op shardings print) or `#sdy.sharding<...>`.
std::optional<ShardingAnnotation> shardyAnnotation(const Attr& a) {
    if (a.kind != Attr::Kind::Dialect) return std::nullopt;
    if (a.items.empty()) return ShardingAnnotation{ShardingAnnotation::Format::Shardy, "#sdy.sharding<" + a.text + ">"};
    return ShardingAnnotation{ShardingAnnotation::Format::Shardy, "#" + a.text + "<" + a.items.front().text + ">"};
}

class Parser {
public:
    Parser(std::string_view text, std::string fileName, const ImportOptions& options)
        : text_(text), file_(std::move(fileName)), options_(options) {}

    Result<Graph> run();
    // Reads the module's structure only and returns its functions in file order.
    Result<std::vector<std::string>> functionNames();

private:
    // ----- characters ------------------------------------------------------------------------------------
    [[noreturn]] void fail(const std::string& message) const { throw ParseError{pos_, message}; }
    [[noreturn]] void expected(const std::string& what) const {
        std::string found;
        if (pos_ >= text_.size()) {
            found = "end of file";
        } else {
            std::size_t end = pos_;
            while (end < text_.size() && end - pos_ < 24 && text_[end] != '\n') ++end;
            found = "'" + std::string(text_.substr(pos_, end - pos_)) + "'";
        }
        fail("expected " + what + ", found " + found);
    }
    bool eof() { return skip(), pos_ >= text_.size(); }
    char peek() { return skip(), pos_ < text_.size() ? text_[pos_] : '\0'; }
    char peekAt(std::size_t k) const { return pos_ + k < text_.size() ? text_[pos_ + k] : '\0'; }
    void skip() {
        while (pos_ < text_.size()) {
            char c = text_[pos_];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                ++pos_;
            } else if (c == '/' && peekAt(1) == '/') {
                while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
            } else {
                break;
            }
        }
    }
    bool consume(std::string_view literal) {
        skip();
        if (text_.substr(pos_, literal.size()) != literal) return false;
        // Keywords must end at a word boundary.
        if (isIdStart(literal.front()) && pos_ + literal.size() < text_.size() && isIdChar(text_[pos_ + literal.size()]))
            return false;
        pos_ += literal.size();
        return true;
    }
    void expect(std::string_view literal, const char* context = nullptr) {
        if (!consume(literal))
            expected("'" + std::string(literal) + "'" + (context ? std::string(" ") + context : std::string()));
    }
    bool lookingAt(std::string_view literal) {
        skip();
        return text_.substr(pos_, literal.size()) == literal;
    }

    std::string identifier(const char* what = "an identifier") {
        skip();
        if (pos_ >= text_.size() || !isIdStart(text_[pos_])) expected(what);
        std::size_t start = pos_;
        while (pos_ < text_.size() && isIdChar(text_[pos_])) ++pos_;
        return std::string(text_.substr(start, pos_ - start));
    }
    std::string quotedString() {
        skip();
        if (peek() != '"') expected("a string");
        ++pos_;
        std::string out;
        while (pos_ < text_.size() && text_[pos_] != '"') {
            char c = text_[pos_++];
            if (c == '\\' && pos_ < text_.size()) {
                char e = text_[pos_++];
                if (e == 'n') out += '\n';
                else if (e == 't') out += '\t';
                else if (std::isxdigit(static_cast<unsigned char>(e)) && pos_ < text_.size() &&
                         std::isxdigit(static_cast<unsigned char>(text_[pos_]))) {
                    out += static_cast<char>(std::stoi(std::string{e, text_[pos_++]}, nullptr, 16));
                } else out += e;
            } else {
                out += c;
            }
        }
        if (pos_ >= text_.size()) fail("unterminated string");
        ++pos_;
        return out;
    }
    // %name, %0, %0#1 -> "name" / "0#1" (without '%').
    std::string valueName() {
        skip();
        if (peek() != '%') expected("a value name (%...)");
        ++pos_;
        std::size_t start = pos_;
        while (pos_ < text_.size() && (isIdChar(text_[pos_]) || text_[pos_] == '-' || text_[pos_] == '#')) ++pos_;
        if (pos_ == start) expected("a value name after '%'");
        return std::string(text_.substr(start, pos_ - start));
    }
    std::string symbolName() {
        skip();
        if (peek() != '@') expected("a symbol (@name)");
        ++pos_;
        if (peek() == '"') return quotedString();
        std::size_t start = pos_;
        while (pos_ < text_.size() && (isIdChar(text_[pos_]) || text_[pos_] == '-')) ++pos_;
        if (pos_ == start) expected("a symbol name after '@'");
        return std::string(text_.substr(start, pos_ - start));
    }
    std::int64_t integer() {
        skip();
        std::size_t start = pos_;
        if (peek() == '-') ++pos_;
        std::int64_t value = 0;
        auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), value);
        if (ec != std::errc{}) {
            pos_ = start;
            expected("an integer");
        }
        pos_ = static_cast<std::size_t>(end - text_.data());
        return text_[start] == '-' ? -value : value;
    }
    // Raw text up to the `close` that balances an already consumed opener; strings and `->` are respected.
    std::string balanced(char open, char close) {
        std::size_t start = pos_;
        int depth = 1;
        while (pos_ < text_.size()) {
            char c = text_[pos_];
            if (c == '"') {
                quotedString();
                continue;
            }
            if (c == '-' && peekAt(1) == '>') {
                pos_ += 2;
                continue;
            }
            if (c == '/' && peekAt(1) == '/') {
                while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
                continue;
            }
            if (c == open) ++depth;
            else if (c == close && --depth == 0) {
                std::string body(text_.substr(start, pos_ - start));
                ++pos_;
                return body;
            }
            ++pos_;
        }
        fail(std::string("unbalanced '") + open + "'");
    }
    // Skips a balanced {...} region whose '{' is next.
    void skipBraces() {
        expect("{");
        balancedAny();
    }
    // Skips to the closing '}' matching an opened '{', ignoring brackets of other kinds.
    void balancedAny() { balanced('{', '}'); }

    int lineOf(std::size_t offset) const {
        auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
        return static_cast<int>(it - lineStarts_.begin());
    }
    int columnOf(std::size_t offset) const {
        auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
        return static_cast<int>(offset - *(it - 1)) + 1;
    }
    SourceLocation here(std::size_t offset) const {
        return SourceLocation{file_, lineOf(offset), columnOf(offset), {}};
    }

    // ----- types -----------------------------------------------------------------------------------------
    ElementType elementType(std::string_view spelling, std::size_t at) {
        if (auto t = parseElementType(spelling)) return *t;
        pos_ = at;
        fail("unsupported element type '" + std::string(spelling) + "'");
    }
    ParsedType type() {
        skip();
        const std::size_t at = pos_;
        if (consume("!stablehlo.token") || consume("!mhlo.token")) return {TensorType{{}, ElementType::Token}, true, false, {}, at};
        if (consume("tensor")) {
            expect("<", "after 'tensor'");
            std::string body = balanced('<', '>');
            // Drop an encoding (", #sdy..." or ", #stablehlo.bounds<...>").
            int depth = 0;
            for (std::size_t i = 0; i < body.size(); ++i) {
                char c = body[i];
                if (c == '<' || c == '(' || c == '[') ++depth;
                if (c == '>' || c == ')' || c == ']') --depth;
                if (c == ',' && depth == 0) {
                    body.resize(i);
                    break;
                }
            }
            TensorType t;
            std::size_t start = 0;
            while (true) {
                std::size_t x = body.find('x', start);
                const std::string_view piece(body.data() + start, (x == std::string::npos ? body.size() : x) - start);
                if (x == std::string::npos || piece.empty() || !(std::isdigit(static_cast<unsigned char>(piece[0])) || piece[0] == '?')) {
                    std::string_view element(body.data() + start, body.size() - start);
                    while (!element.empty() && element.back() == ' ') element.remove_suffix(1);
                    while (!element.empty() && element.front() == ' ') element.remove_prefix(1);
                    t.element = elementType(element, at);
                    break;
                }
                if (piece == "?" || piece[0] == '?') {
                    pos_ = at;
                    fail("dynamic dimensions are not supported: " + std::string("tensor<") + body + ">");
                }
                std::int64_t d = 0;
                auto [end, ec] = std::from_chars(piece.data(), piece.data() + piece.size(), d);
                if (ec != std::errc{} || end != piece.data() + piece.size()) {
                    pos_ = at;
                    fail("bad dimension '" + std::string(piece) + "' in tensor<" + body + ">");
                }
                t.shape.push_back(d);
                start = x + 1;
            }
            return {t, false, false, {}, at};
        }
        if (consume("tuple")) {
            expect("<", "after 'tuple'");
            ParsedType t;
            t.tuple = true;
            t.at = at;
            const Nesting nesting(tupleDepth_);
            if (tupleDepth_ > kMaxDepth) fail("tuple types nested too deeply");
            if (!consume(">")) {
                do t.elements.push_back(type());
                while (consume(","));
                expect(">", "to close the tuple type");
            }
            return t;
        }
        // A scalar element type (used by attribute types such as `1 : i64`).
        if (isIdStart(peek()) || peek() == 'c') {
            std::size_t start = pos_;
            std::string word = identifier("a type");
            if (word == "complex") {
                expect("<");
                word += "<" + balanced('<', '>') + ">";
            }
            if (auto t = parseElementType(word)) return {TensorType{{}, *t}, false, false, {}, start};
            pos_ = start;
        }
        expected("a type");
    }
    // The tensor type `t` is, or an error naming the op when it is a tuple (which only some ops may take).
    const TensorType& tensorOf(const ParsedType& t) {
        if (t.tuple) {
            pos_ = t.at;
            fail("tuple type in '" + opName_ + "': only function signatures, func.call, stablehlo.tuple, "
                 "get_tuple_element, custom_call and return take tuples");
        }
        return t.type;
    }
    std::vector<ParsedType> typeList() {
        std::vector<ParsedType> out;
        if (consume("(")) {
            if (consume(")")) return out;
            do out.push_back(type());
            while (consume(","));
            expect(")", "to close the type list");
            return out;
        }
        out.push_back(type());
        return out;
    }
    struct FunctionType {
        std::vector<ParsedType> inputs, results;
        bool isFunction = false;
    };
    // `(a, b) -> c`, `(a) -> (b, c)`, or a plain list of types `a, b`.
    FunctionType signature() {
        FunctionType f;
        skip();
        if (peek() == '(') {
            f.inputs = typeList();
            if (consume("->")) {
                f.isFunction = true;
                f.results = typeList();
                return f;
            }
            return f;
        }
        f.inputs.push_back(type());
        while (true) {
            const std::size_t save = pos_;
            if (!consume(",")) break;
            skip();
            if (peek() == 't' || peek() == '!' || isIdStart(peek())) {
                try {
                    f.inputs.push_back(type());
                    continue;
                } catch (const ParseError&) {
                }
            }
            pos_ = save;
            break;
        }
        if (consume("->")) {  // `t -> t`, as chlo prints
            f.isFunction = true;
            f.results = typeList();
        }
        return f;
    }

    // ----- attributes ------------------------------------------------------------------------------------
    Attr number() {
        skip();
        Attr a;
        const std::size_t start = pos_;
        if (text_[pos_] == '-' || text_[pos_] == '+') ++pos_;
        if (text_.substr(pos_, 2) == "0x") {
            pos_ += 2;
            while (pos_ < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
            a.kind = Attr::Kind::Integer;
            a.text = std::string(text_.substr(start, pos_ - start));
            a.integer = static_cast<std::int64_t>(std::stoull(a.text.substr(a.text[0] == '-' ? 3 : 2), nullptr, 16));
        } else {
            bool isFloat = false;
            while (pos_ < text_.size()) {
                char c = text_[pos_];
                if (std::isdigit(static_cast<unsigned char>(c))) {
                    ++pos_;
                } else if (c == '.' || c == 'e' || c == 'E') {
                    isFloat = true;
                    ++pos_;
                    if ((c == 'e' || c == 'E') && pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) ++pos_;
                } else {
                    break;
                }
            }
            a.text = std::string(text_.substr(start, pos_ - start));
            if (a.text.empty() || a.text == "-" || a.text == "+") {
                pos_ = start;
                expected("a number");
            }
            if (isFloat) {
                a.kind = Attr::Kind::Float;
                a.number = std::strtod(a.text.c_str(), nullptr);
            } else {
                a.kind = Attr::Kind::Integer;
                std::from_chars(a.text.data() + (a.text[0] == '+'), a.text.data() + a.text.size(), a.integer);
            }
        }
        if (a.kind == Attr::Kind::Integer) a.number = static_cast<double>(a.integer);
        return a;
    }
    // An optional `: type` after a number or dense literal.
    void attributeType(Attr& a) {
        const std::size_t save = pos_;
        if (!consume(":")) return;
        skip();
        // `: (` or `: %` means the colon belongs to the op, not to this attribute.
        try {
            a.type = tensorOf(type());
            a.hasType = true;
        } catch (const ParseError&) {
            pos_ = save;
        }
    }
    Attr attribute(int depth = 0) {
        if (depth > kMaxDepth) fail("attributes nested too deeply");
        skip();
        Attr a;
        const char c = peek();
        if (c == '[') {
            ++pos_;
            a.kind = Attr::Kind::Array;
            if (consume("]")) return a;
            do a.items.push_back(attribute(depth + 1));
            while (consume(","));
            expect("]", "to close the array");
            return a;
        }
        if (c == '{') {
            a.kind = Attr::Kind::Dictionary;
            a.fields = dictionary(depth + 1);
            return a;
        }
        if (c == '"') {
            a.kind = Attr::Kind::String;
            a.text = quotedString();
            return a;
        }
        if (c == '@') {
            a.kind = Attr::Kind::Symbol;
            a.text = symbolName();
            while (consume("::")) a.text += "::" + symbolName();
            return a;
        }
        if (c == '#') return dialectAttribute(depth);
        if (c == '<') {  // a bare dialect body, e.g. sdy's `<@mesh, [{"x"}]>`
            ++pos_;
            a.kind = Attr::Kind::Dialect;
            a.text = balanced('<', '>');
            return a;
        }
        if (c == '-' || c == '+' || std::isdigit(static_cast<unsigned char>(c))) {
            a = number();
            attributeType(a);
            return a;
        }
        if (consume("dense_resource")) {
            expect("<");
            a.kind = Attr::Kind::Dense;
            a.resource = true;
            a.text = balanced('<', '>');
            attributeType(a);
            return a;
        }
        if (consume("dense")) {
            expect("<");
            a.kind = Attr::Kind::Dense;
            a.text = balanced('<', '>');
            if (a.text.empty()) a.text = "[]";
            attributeType(a);
            return a;
        }
        if (consume("array")) {
            expect("<");
            a.kind = Attr::Kind::Array;
            const std::string body = balanced('<', '>');
            const auto colon = body.find(':');
            if (colon != std::string::npos) {
                std::string_view rest(body);
                rest.remove_prefix(colon + 1);
                std::size_t i = 0;
                while (i < rest.size()) {
                    while (i < rest.size() && (rest[i] == ' ' || rest[i] == ',')) ++i;
                    std::size_t j = i;
                    while (j < rest.size() && rest[j] != ',') ++j;
                    std::string item(rest.substr(i, j - i));
                    while (!item.empty() && item.back() == ' ') item.pop_back();
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
            }
            return a;
        }
        if (consume("true") || consume("false")) {
            a.kind = Attr::Kind::Bool;
            a.integer = text_[pos_ - 1] == 'e' && text_.substr(pos_ - 4, 4) == "true";
            attributeType(a);
            return a;
        }
        if (consume("unit")) {
            a.kind = Attr::Kind::Unit;
            return a;
        }
        if (lookingAt("affine_map") || lookingAt("affine_set")) {
            identifier();
            expect("<");
            a.kind = Attr::Kind::Word;
            a.text = balanced('<', '>');
            return a;
        }
        if (lookingAt("tensor<") || lookingAt("!")) {
            a.kind = Attr::Kind::Type;
            a.type = type().type;
            return a;
        }
        if (isIdStart(c)) {
            a.kind = Attr::Kind::Word;
            a.text = identifier();
            if (auto t = parseElementType(a.text)) {
                a.kind = Attr::Kind::Type;
                a.type = TensorType{{}, *t};
            }
            return a;
        }
        expected("an attribute value");
    }
    // `#dialect.name<...>`, `#dialect<...>` or an alias reference `#name`.
    Attr dialectAttribute(int depth) {
        expect("#");
        Attr a;
        a.kind = Attr::Kind::Dialect;
        std::size_t start = pos_;
        while (pos_ < text_.size() && (isIdChar(text_[pos_]) || text_[pos_] == '-')) ++pos_;
        a.text = std::string(text_.substr(start, pos_ - start));
        if (pos_ < text_.size() && text_[pos_] == '<') {
            ++pos_;
            const std::size_t bodyStart = pos_;
            // key = value bodies are parsed; anything else is kept raw in `items[0].text`.
            skip();
            bool keyValue = false;
            if (isIdStart(peek())) {
                const std::size_t save = pos_;
                identifier();
                keyValue = consume("=");
                pos_ = save;
            }
            if (keyValue) {
                while (true) {
                    std::string key = identifier("an attribute name");
                    expect("=");
                    a.fields.emplace_back(std::move(key), attribute(depth + 1));
                    if (!consume(",")) break;
                }
                expect(">", "to close the attribute");
            } else {
                pos_ = bodyStart;
                Attr raw;
                raw.kind = Attr::Kind::Word;
                raw.text = balanced('<', '>');
                a.items.push_back(std::move(raw));
            }
        }
        return a;
    }
    AttrDict dictionary(int depth = 0) {
        expect("{");
        AttrDict out;
        if (consume("}")) return out;
        do {
            skip();
            std::string key = peek() == '"' ? quotedString() : identifier("an attribute name");
            if (consume("=")) out.emplace_back(std::move(key), attribute(depth + 1));
            else {
                Attr unit;
                unit.kind = Attr::Kind::Unit;
                out.emplace_back(std::move(key), unit);
            }
        } while (consume(","));
        expect("}", "to close the attribute dictionary");
        return out;
    }

    // ----- locations -------------------------------------------------------------------------------------
    // After `loc(` has been consumed; reads up to and including the closing ')'.
    LocInfo locationBody() {
        const Nesting guard(locationDepth_);
        if (locationDepth_ > kMaxDepth) fail("locations nested too deeply");
        LocInfo loc;
        skip();
        if (peek() == '#') {
            ++pos_;
            std::size_t start = pos_;
            while (pos_ < text_.size() && isIdChar(text_[pos_])) ++pos_;
            loc.alias = std::string(text_.substr(start, pos_ - start));
        } else if (peek() == '"') {
            std::string first = quotedString();
            if (consume(":")) {
                loc.file = first;
                loc.line = static_cast<int>(integer());
                if (consume(":")) loc.column = static_cast<int>(integer());
                if (consume("to")) {  // a range: "file":1:2 to 3:4 / to :4
                    if (peek() != ':') integer();
                    if (consume(":")) integer();
                }
            } else {
                loc.name = first;
                if (consume("(")) {  // a child location
                    LocInfo child = locationBody();
                    loc.file = child.file;
                    loc.line = child.line;
                    loc.column = child.column;
                    return expectCloseLoc(loc);
                }
            }
        } else if (consume("callsite")) {
            expect("(");
            LocInfo callee = locationBody();
            expect("at");
            locationBody();
            loc = callee;
        } else if (consume("fused")) {
            if (consume("<")) balanced('<', '>');
            expect("[");
            bool first = true;
            if (!consume("]")) {
                do {
                    LocInfo part = locationBody();
                    if (first) loc = part;
                    first = false;
                } while (consume(","));
                expect("]");
            }
        } else if (consume("unknown")) {
        } else {
            expected("a location");
        }
        return expectCloseLoc(loc);
    }
    LocInfo expectCloseLoc(LocInfo loc) {
        expect(")", "to close the location");
        return loc;
    }
    std::optional<LocInfo> optionalLocation() {
        if (!consume("loc")) return std::nullopt;
        expect("(");
        return locationBody();
    }
    // ----- values and scopes -----------------------------------------------------------------------------
    // What a name stands for: an op's results (`%0`, `%0#1`), or the tensors of one tuple value.
    struct Binding {
        std::vector<ValueId> values;
        std::shared_ptr<const ParsedType> tuple;
    };
    void bind(const std::string& name, std::vector<ValueId> values) { scopes_.back()[name] = Binding{std::move(values), nullptr}; }
    void bindTuple(const std::string& name, std::vector<ValueId> leaves, const ParsedType& type) {
        if (leaves.size() != leafCount(type)) {
            pos_ = type.at;
            fail("'" + opName_ + "' gives " + std::to_string(leaves.size()) + " tensor(s) for a tuple of " +
                 std::to_string(leafCount(type)));
        }
        scopes_.back()[name] = Binding{std::move(leaves), std::make_shared<const ParsedType>(type)};
    }
    // The binding of `%base` and the result index `%base#index` asks for.
    const Binding& binding(const std::string& name, std::size_t at, std::size_t& index) {
        std::string base = name;
        index = 0;
        if (auto hash = name.find('#'); hash != std::string::npos) {
            base = name.substr(0, hash);
            index = static_cast<std::size_t>(std::strtoul(name.c_str() + hash + 1, nullptr, 10));
        }
        for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
            if (auto it = scope->find(base); it != scope->end()) {
                const std::size_t results = it->second.tuple ? 1 : it->second.values.size();
                if (index >= results) {
                    pos_ = at;
                    fail("%" + name + " refers to result " + std::to_string(index) + " of an op with " +
                         std::to_string(results) + " result(s)");
                }
                return it->second;
            }
            if (isolation_.count(static_cast<std::size_t>(scope.base() - scopes_.begin() - 1))) break;
        }
        pos_ = at;
        fail("use of undefined value %" + name);
    }
    ValueId use(const std::string& name, std::size_t at) {
        std::size_t index = 0;
        const Binding& b = binding(name, at, index);
        if (b.tuple) {
            pos_ = at;
            fail("'" + opName_ + "' cannot take %" + name + ", a tuple (only func.call, get_tuple_element, custom_call, "
                 "stablehlo.tuple and return take tuples)");
        }
        return b.values[index];
    }
    // The value `name` stands for, or every tensor of it when it is a tuple.
    std::vector<ValueId> useFlattened(const std::string& name, std::size_t at) {
        std::size_t index = 0;
        const Binding& b = binding(name, at, index);
        if (b.tuple) return b.values;
        return {b.values[index]};
    }
    // `%a, %b` up to `close`; tuples are refused, or taken apart into their tensors when `flattenTuples`.
    std::vector<ValueId> operandList(char close, bool flattenTuples = false) {
        std::vector<ValueId> out;
        skip();
        if (peek() == close) return out;
        do {
            skip();
            const std::size_t at = pos_;
            const std::string name = valueName();
            if (flattenTuples) {
                for (ValueId v : useFlattened(name, at)) out.push_back(v);
            } else {
                out.push_back(use(name, at));
            }
        } while (consume(","));
        return out;
    }

    // ----- emission --------------------------------------------------------------------------------------
    struct Pending {
        OpKind kind = OpKind::Opaque;
        std::vector<ValueId> operands;
        OpAttributes attributes = NoAttributes{};
        std::vector<Region> regions;
        std::vector<TensorType> resultTypes;
        std::optional<ShardingAnnotation> sharding;
        // What a training step exported by ir::printStableHlo says of the op (see marksFrom).
        bool backwardStart = false;
        std::vector<std::int64_t> gradientOf;  // per result: the parameter argument it is the gradient of, or -1
    };
    std::vector<ValueId> emit(Pending p, const SourceLocation& location, std::size_t resultCount, std::size_t at) {
        tupleResultAllowed(p.kind, at);
        if (resultTuple_) resultCount = leafCount(*resultTuple_);
        if (p.resultTypes.size() != resultCount) {
            pos_ = at;
            fail("'" + opName_ + "' declares " + std::to_string(resultCount) + " result(s) but its type gives " +
                 std::to_string(p.resultTypes.size()));
        }
        if (auto folded = foldedConstraint(p)) return *folded;
        if (p.backwardStart && insertion_ == &graph_.body) graph_.backwardStart = graph_.body.size();
        if (graph_.ops.size() >= options_.maxOps) {
            pos_ = at;
            fail("@" + (callStack_.empty() ? graph_.name : callStack_.back()) + ": the graph grows past " + std::to_string(options_.maxOps) +
                 " ops (calls are inlined: a function called many times is copied as many times)");
        }
        OpId id = graph_.addOp(p.kind, std::move(p.operands), p.resultTypes, std::move(p.attributes), location);
        graph_.op(id).regions = std::move(p.regions);
        graph_.op(id).sharding = std::move(p.sharding);
        insertion_->push_back(id);
        if (!pendingAlias_.empty()) {
            opLabels_.push_back({id, pendingAlias_});
            pendingAlias_.clear();
        }
        const auto& results = graph_.op(id).results;
        for (std::size_t i = 0; i < p.gradientOf.size() && i < results.size(); ++i)
            if (p.gradientOf[i] >= 0 && insertion_ == &graph_.body)
                gradientMarks_.emplace_back(results[i], static_cast<std::size_t>(p.gradientOf[i]));
        return results;
    }
    // A sharding constraint (sdy.sharding_constraint, GSPMD's custom_call @Sharding) on the single result of an op
    // of the same block is that result's annotation, not an op: no copy of the value, nothing for the cost model
    // to schedule, and the graph of an exported plan reads back as the graph it was exported from. Returns the
    // value the constraint stands for, or nullopt when it stays an op (on an argument, on one result of several,
    // on a value already annotated otherwise, on a value of an enclosing block).
    std::optional<std::vector<ValueId>> foldedConstraint(const Pending& p) {
        const auto* call = std::get_if<CustomCallAttributes>(&p.attributes);
        const bool constraint = opName_ == "sdy.sharding_constraint" ||
                                opName_ == "stablehlo.custom_call" || opName_ == "mhlo.custom_call";
        if (!constraint || p.kind != OpKind::CustomCall || !call || call->target != "Sharding" || !p.sharding ||
            p.operands.size() != 1 || p.resultTypes.size() != 1 || resultTuple_)
            return std::nullopt;
        const ValueId v = p.operands.front();
        const OpId producer = graph_.value(v).producer;
        if (!producer.valid() || graph_.type(v) != p.resultTypes.front()) return std::nullopt;
        Op& op = graph_.op(producer);
        if (op.results.size() != 1 || (op.sharding && *op.sharding != *p.sharding)) return std::nullopt;
        if (std::find(insertion_->rbegin(), insertion_->rend(), producer) == insertion_->rend()) return std::nullopt;
        op.sharding = p.sharding;
        pendingAlias_.clear();
        return std::vector<ValueId>{v};
    }
    // Marks ir::printStableHlo writes on the ops of a training step: `shardscope.backward_start` on the first op of
    // the backward pass, `shardscope.gradient_of = array<i64: k, ...>` (one entry per result, -1 for none) on the
    // ops whose results are parameter gradients.
    void marksFrom(const AttrDict& attrs, Pending& p) const {
        if (lookup(attrs, "shardscope.backward_start")) p.backwardStart = true;
        if (const Attr* g = lookup(attrs, "shardscope.gradient_of"))
            for (const auto& item : g->items) p.gradientOf.push_back(item.integer);
    }

    // ----- module structure ------------------------------------------------------------------------------
    void scanModule();
    void scanFunction();
    void scanMesh();
    void skipModuleOp(std::size_t at);
    // At `dialect.op` or `"dialect.op"` (not a keyword such as `module`).
    bool startsOpName() {
        skip();
        std::size_t i = pos_ + (peek() == '"' ? 1 : 0);
        if (i >= text_.size() || !isIdStart(text_[i])) return false;
        bool dot = false;
        for (; i < text_.size() && isIdChar(text_[i]); ++i) dot = dot || text_[i] == '.';
        return dot;
    }
    Graph parseEntry();
    void parseSignature(bool entry, const std::vector<ValueId>* callOperands, std::size_t callAt);
    ValueId addArgument(const std::string& name, const TensorType& type, const AttrDict& attrs,
                        const std::optional<LocInfo>& loc, std::size_t at);
    std::vector<ValueId> parseStatements();
    // Parses a block's statements (after its '{') into `region`'s ops and makes the terminator's operands its results.
    void parseBodyInto(Region& region) {
        std::vector<OpId>* outer = insertion_;
        insertion_ = &region.ops;
        region.results = parseBody();
        insertion_ = outer;
    }
    // parseBody for the op `opName_` names: its errors after the block still name it.
    std::vector<ValueId> parseBody() {
        const std::string op = opName_;
        std::vector<ValueId> results = parseStatements();
        opName_ = op;
        return results;
    }
    std::vector<ValueId> inlineFunction(const std::string& name, const std::vector<ValueId>& operands, std::size_t at);

    // ----- ops -------------------------------------------------------------------------------------------
    // Parses one statement of a block. Returns the terminator's operands when the statement is a terminator.
    std::optional<std::vector<ValueId>> statement();
    std::vector<ValueId> operation(const std::vector<std::string>& resultNames, std::size_t at);
    std::vector<ValueId> genericOperation(const std::string& name, std::size_t resultCount, std::size_t at);
    std::vector<ValueId> prettyOperation(const std::string& name, std::size_t resultCount, std::size_t at);
    Region region(const std::vector<ParsedType>* argumentTypes = nullptr);
    void attachTrailing(Pending& p, std::size_t& resultCount);
    void finishOp(Pending& p, const FunctionType& f, bool sameType);
    void takeResults(Pending& p, const std::vector<ParsedType>& results);
    void tupleResultAllowed(OpKind kind, std::size_t at);
    std::vector<ValueId> tupleOperation(const std::string& name, bool generic);
    std::vector<ValueId> reshard(Pending p, const SourceLocation& location, std::size_t resultCount, std::size_t at);
    std::vector<ValueId> namedComputation(std::size_t resultCount, std::size_t at);
    std::vector<ValueId> manualComputation(Pending p, std::size_t resultCount, std::size_t at);
    std::vector<ValueId> globalManualComputation(Pending p, ManualComputation mc, const SourceLocation& location,
                                                 std::size_t at);
    void recordShardyCollective(const std::vector<ValueId>& results, const std::string& name, std::string axes) {
        if (!results.empty() && graph_.value(results.front()).producer.valid())
            shardyCollectives_[graph_.value(results.front()).producer.index] = ShardyCollective{name, std::move(axes)};
    }
    std::vector<std::pair<std::string, ParsedType>> blockArguments();
    OpAttributes attributesFor(OpKind kind, const AttrDict& d, const Pending& p, std::size_t at);
    LoopAttributes loopAttributes(const Pending& p) const;
    std::vector<double> decodeDense(const std::string& literal, const TensorType& type, std::size_t at);
    SourceLocation finishLocation(std::size_t at, const std::optional<LocInfo>& loc);
    void inferRoles();
    std::optional<ShardingAnnotation> shardingFrom(const AttrDict& d) const;

    std::string_view text_;
    std::string file_;
    const ImportOptions& options_;
    std::size_t pos_ = 0;
    std::vector<std::size_t> lineStarts_;

    Graph graph_;
    std::vector<OpId>* insertion_ = &graph_.body;
    std::vector<std::unordered_map<std::string, Binding>> scopes_;
    std::optional<ParsedType> resultTuple_;  // the tuple type of the op just parsed when its one result is a tuple
    std::set<std::size_t> isolation_;  // scope indices where name lookup stops (function boundaries)
    std::map<std::string, FunctionInfo, std::less<>> functions_;
    std::vector<std::string> functionOrder_;
    std::map<std::string, LocInfo, std::less<>> locAliases_;
    std::vector<std::string> callStack_;
    std::size_t inlinedCalls_ = 0;                              // calls inlined so far, of all functions
    std::map<std::string, std::size_t, std::less<>> inlined_;  // by callee
    std::string opName_;
    std::string pendingAlias_;
    std::vector<std::pair<OpId, std::string>> opLabels_;  // ops whose label is a #loc alias
    std::vector<std::pair<std::size_t, std::size_t>> aliasing_;  // (argument, output) from tf.aliasing_output
    std::vector<std::size_t> roleUnknown_;                          // arguments whose role the source does not say
    std::vector<std::string> argumentNames_;                        // SSA names of the entry's arguments
    std::vector<AttrDict> resultAttrs_;                             // attributes of the function's results
    std::vector<std::pair<std::size_t, std::string>> argumentAliases_;  // argument index -> #loc alias
    std::vector<Diagnostic> warnings_;
    std::set<std::string> warnedOps_;
    std::vector<std::pair<ValueId, std::size_t>> gradientMarks_;  // (gradient, argument) from shardscope.gradient_of
    std::map<std::uint32_t, ShardyCollective> shardyCollectives_;  // by OpId index: the Sharding ops they import as
    bool manualComputations_ = false;  // some were turned into their global program (ops were left behind)
    int depth_ = 0;
    int locationDepth_ = 0;
    int tupleDepth_ = 0;
    bool moduleSeen_ = false;
};

// -------------------------------------------------------------------------------------------------------------

void Parser::scanMesh() {
    // sdy.mesh @name = <["x"=2, "y"=4]> (or <[]>, or device_ids=...)
    MeshDeclaration mesh;
    mesh.name = symbolName();
    expect("=");
    expect("<");
    const std::size_t bodyAt = pos_;
    const std::string body = balanced('<', '>');
    std::size_t i = 0;
    while ((i = body.find('"', i)) != std::string::npos) {
        const std::size_t end = body.find('"', i + 1);
        if (end == std::string::npos) break;
        std::string axis = body.substr(i + 1, end - i - 1);
        std::size_t eq = body.find('=', end);
        if (eq == std::string::npos) break;
        std::int64_t size = std::strtoll(body.c_str() + eq + 1, nullptr, 10);
        if (size <= 0) {
            pos_ = bodyAt;
            fail("mesh axis \"" + axis + "\" of @" + mesh.name + " has no positive size");
        }
        mesh.axes.emplace_back(std::move(axis), size);
        i = body.find(',', eq);
        if (i == std::string::npos) break;
    }
    optionalLocation();
    graph_.meshes.push_back(std::move(mesh));
}

// A module-level op we do not model (ml_program.global, sdy.manual_axis...): skipped to the end of its line, or of
// its last bracket when it spans several lines.
void Parser::skipModuleOp(std::size_t at) {
    int depth = 0;
    while (pos_ < text_.size()) {
        const char c = text_[pos_];
        if (c == '"') {
            quotedString();
            continue;
        }
        if (c == '-' && peekAt(1) == '>') {
            pos_ += 2;
            continue;
        }
        if (c == '\n' && depth <= 0) break;
        if (c == '{' || c == '(' || c == '[' || c == '<') ++depth;
        else if (c == '}' || c == ')' || c == ']' || c == '>') {
            if (depth == 0) break;  // the module's closing brace on the same line
            --depth;
        }
        ++pos_;
    }
    warnings_.push_back(makeWarning("stablehlo.skipped", "skipped a module-level op we do not model", here(at)));
}

void Parser::scanFunction() {
    FunctionInfo f;
    skip();
    if (consume("public")) f.isPublic = true;
    else if (consume("private") || consume("nested")) f.isPublic = false;
    skip();
    f.nameOffset = pos_;
    f.name = symbolName();
    skip();
    f.signatureOffset = pos_;
    if (peek() != '(') expected("'(' to start the argument list of @" + f.name);
    ++pos_;
    balanced('(', ')');
    if (consume("->")) {
        skip();
        if (peek() == '(') {
            ++pos_;
            balanced('(', ')');
        } else {
            type();  // a single result has no attributes unless parenthesised
        }
    }
    if (consume("attributes")) dictionary();
    skip();
    if (peek() == '{') skipBraces();
    optionalLocation();
    if (functions_.count(f.name)) {
        pos_ = f.nameOffset;
        fail("redefinition of @" + f.name);
    }
    functionOrder_.push_back(f.name);
    functions_.emplace(f.name, f);
}

void Parser::scanModule() {
    while (!eof()) {
        skip();
        const std::size_t at = pos_;
        if (peek() == '#') {  // an alias definition: #name = loc(...) or another attribute
            ++pos_;
            std::size_t start = pos_;
            while (pos_ < text_.size() && isIdChar(text_[pos_])) ++pos_;
            const std::string name(text_.substr(start, pos_ - start));
            expect("=", "in an alias definition");
            if (consume("loc")) {
                expect("(");
                locAliases_[name] = locationBody();
            } else {
                attribute();
            }
            continue;
        }
        if (peek() == '!') {  // a type alias
            while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
            continue;
        }
        if (lookingAt("---")) {  // a separator line some exporters print after the module
            while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
            warnings_.push_back(makeWarning("stablehlo.ignored-line", "ignored a line that is not MLIR", here(at)));
            continue;
        }
        if (consume("module")) {
            if (moduleSeen_) {
                pos_ = at;
                fail("more than one module in the file");
            }
            moduleSeen_ = true;
            skip();
            if (peek() == '@') symbolName();
            if (consume("attributes")) dictionary();
            expect("{", "to open the module body");
            while (!consume("}")) {
                if (eof()) expected("'}' to close the module");
                const std::size_t itemAt = pos_;
                if (consume("func.func")) scanFunction();
                else if (consume("sdy.mesh")) scanMesh();
                else if (peek() == '"' || isIdStart(peek())) skipModuleOp(itemAt);
                else expected("func.func, sdy.mesh or '}' in the module body");
            }
            optionalLocation();
            continue;
        }
        if (consume("func.func")) {
            scanFunction();
            continue;
        }
        if (consume("sdy.mesh")) {
            scanMesh();
            continue;
        }
        // Another op outside any `module`: MLIR wraps the top level in an implicit module.
        if (startsOpName()) {
            skipModuleOp(at);
            continue;
        }
        expected("module, func.func or an alias definition");
    }
    if (functions_.empty()) fail("no func.func in the file");
}

// The function's arguments: bound to `callOperands` when inlining, else created as graph arguments.
void Parser::parseSignature(bool entry, const std::vector<ValueId>* callOperands, std::size_t callAt) {
    expect("(");
    std::size_t index = 0;
    if (!consume(")")) {
        do {
            skip();
            const std::size_t at = pos_;
            const std::string name = valueName();
            expect(":");
            ParsedType t = type();
            AttrDict attrs;
            if (peek() == '{') attrs = dictionary();
            auto loc = optionalLocation();
            // A tuple argument is its tensors: as many call operands, or graph arguments named %name.0, %name.1...
            std::vector<TensorType> leaves;
            appendLeaves(t, leaves);
            if (callOperands) {
                if (index + leaves.size() > callOperands->size()) {
                    pos_ = callAt;
                    fail("call passes " + std::to_string(callOperands->size()) + " operand(s) to a function with more arguments");
                }
                const auto first = callOperands->begin() + static_cast<std::ptrdiff_t>(index);
                std::vector<ValueId> bound(first, first + static_cast<std::ptrdiff_t>(leaves.size()));
                if (t.tuple) bindTuple(name, std::move(bound), t);
                else bind(name, std::move(bound));
            } else if (entry) {
                std::vector<ValueId> bound;
                for (std::size_t k = 0; k < leaves.size(); ++k)
                    bound.push_back(addArgument(t.tuple ? name + "." + std::to_string(k) : name, leaves[k],
                                                t.tuple ? AttrDict{} : attrs, loc, at));
                if (t.tuple) bindTuple(name, std::move(bound), t);
                else bind(name, std::move(bound));
            }
            index += leaves.size();
        } while (consume(","));
        expect(")", "to close the argument list");
    }
    if (callOperands && index != callOperands->size()) {
        pos_ = callAt;
        fail("call passes " + std::to_string(callOperands->size()) + " operand(s) to a function of " +
             std::to_string(index) + " argument(s)");
    }
    // Results.
    resultAttrs_.clear();
    if (consume("->")) {
        skip();
        if (consume("(")) {
            if (!consume(")")) {
                do {
                    const std::size_t leaves = leafCount(type());
                    resultAttrs_.push_back(peek() == '{' ? dictionary() : AttrDict{});
                    resultAttrs_.resize(resultAttrs_.size() + leaves - 1);  // a tuple's tensors have none
                    optionalLocation();
                } while (consume(","));
                expect(")", "to close the result list");
            }
        } else {
            resultAttrs_.resize(leafCount(type()));
        }
    }
    if (consume("attributes")) dictionary();
    expect("{", "to open the function body");
}

// A graph argument of the entry function for `%name: type {attrs} loc(...)`.
ValueId Parser::addArgument(const std::string& name, const TensorType& type, const AttrDict& attrs,
                            const std::optional<LocInfo>& loc, std::size_t at) {
    ValueId v = graph_.addValue(type);
    Argument a;
    a.value = v;
    a.location = here(at);
    a.location.name = loc ? loc->name : "";
    if (loc && !loc->alias.empty()) argumentAliases_.emplace_back(graph_.arguments.size(), loc->alias);
    std::string role;
    for (const auto& [key, value] : attrs) {
        if ((key == "jax.arg_info" || key == "ttir.name" || key == "shardscope.name") && value.kind == Attr::Kind::String)
            a.name = value.text;
        else if (key == "shardscope.role" && value.kind == Attr::Kind::String)
            role = value.text;
        else if (key == "ttcore.argument_type" && !value.items.empty())
            role = value.items.front().text;
        else if (key == "tf.aliasing_output" && value.kind == Attr::Kind::Integer)
            aliasing_.emplace_back(graph_.arguments.size(), static_cast<std::size_t>(value.integer));
        else if (key == "shardscope.dims" && value.kind == Attr::Kind::Array)
            for (const auto& label : value.items) a.dimensionLabels.push_back(label.text);
    }
    a.sharding = shardingFrom(attrs);
    if (auto r = parseArgumentRole(role)) a.role = *r;
    else if (role == "input") a.role = ArgumentRole::Input;
    else if (role == "parameter") a.role = ArgumentRole::Parameter;
    else if (role == "constant") a.role = ArgumentRole::Constant;
    else roleUnknown_.push_back(graph_.arguments.size());
    argumentNames_.push_back(name);
    graph_.arguments.push_back(std::move(a));
    return v;
}

std::vector<ValueId> Parser::parseStatements() {
    while (true) {
        skip();
        if (pos_ >= text_.size()) expected("'}' to close the block");
        if (peek() == '}') fail("block ends without a terminator (return)");
        if (auto terminator = statement()) {
            expect("}", "after the terminator");
            return *terminator;
        }
    }
}

std::vector<ValueId> Parser::inlineFunction(const std::string& name, const std::vector<ValueId>& operands, std::size_t at) {
    auto it = functions_.find(name);
    if (it == functions_.end()) {
        pos_ = at;
        fail("call to unknown function @" + name);
    }
    if (std::find(callStack_.begin(), callStack_.end(), name) != callStack_.end()) {
        pos_ = at;
        fail("recursive call to @" + name + " cannot be inlined");
    }
    if (callStack_.size() > kMaxDepth) {
        pos_ = at;
        fail("calls nested too deeply");
    }
    ++inlined_[name];
    if (++inlinedCalls_ > options_.maxInlinedCalls) {
        const auto most = std::max_element(inlined_.begin(), inlined_.end(),
                                           [](const auto& a, const auto& b) { return a.second < b.second; });
        pos_ = at;
        fail("call to @" + name + (callStack_.empty() ? "" : " in @" + callStack_.back()) + ": more than " +
             std::to_string(options_.maxInlinedCalls) + " calls inlined (@" + most->first + " alone " + std::to_string(most->second) +
             " times); calls are inlined, and functions that call others several times expand exponentially");
    }
    const std::size_t resume = pos_;
    const auto tuple = std::exchange(resultTuple_, std::nullopt);  // the call's, while the callee's ops are read
    callStack_.push_back(name);
    scopes_.emplace_back();
    isolation_.insert(scopes_.size() - 1);
    pos_ = it->second.signatureOffset;
    parseSignature(false, &operands, at);
    std::vector<ValueId> results = parseBody();
    isolation_.erase(scopes_.size() - 1);
    scopes_.pop_back();
    callStack_.pop_back();
    pos_ = resume;
    resultTuple_ = tuple;
    return results;
}

Region Parser::region(const std::vector<ParsedType>* argumentTypes) {
    if (++depth_ > kMaxDepth) fail("regions nested too deeply");
    Region r;
    expect("{", "to open a region");
    scopes_.emplace_back();
    skip();
    if (consume("^")) {  // ^bb0(%a: t, ...):
        identifier("a block label");
        if (consume("(")) {
            if (!consume(")")) {
                do {
                    const std::string name = valueName();
                    expect(":");
                    ValueId v = graph_.addValue(tensorOf(type()));
                    optionalLocation();
                    r.arguments.push_back(v);
                    bind(name, {v});
                } while (consume(","));
                expect(")");
            }
        }
        expect(":", "after the block label");
    } else if (argumentTypes) {
        for (const auto& t : *argumentTypes) r.arguments.push_back(graph_.addValue(tensorOf(t)));
    }
    parseBodyInto(r);
    scopes_.pop_back();
    --depth_;
    return r;
}

std::optional<ShardingAnnotation> Parser::shardingFrom(const AttrDict& d) const {
    if (const Attr* s = lookup(d, "sdy.sharding")) {
        std::string text = "#" + s->text;
        if (!s->items.empty()) text += "<" + s->items.front().text + ">";
        return ShardingAnnotation{ShardingAnnotation::Format::Shardy, text};
    }
    if (const Attr* s = lookup(d, "mhlo.sharding"); s && s->kind == Attr::Kind::String)
        return ShardingAnnotation{ShardingAnnotation::Format::Gspmd, s->text};
    return std::nullopt;
}

std::optional<std::vector<ValueId>> Parser::statement() {
    skip();
    const std::size_t at = pos_;
    std::vector<std::string> results;
    if (peek() == '%') {
        do {
            std::string name = valueName();
            std::size_t count = 1;
            if (consume(":")) count = static_cast<std::size_t>(integer());
            if (count == 0 || count > 100000) fail("bad result count");
            if (count == 1) {
                results.push_back(name);
            } else {
                for (std::size_t i = 0; i < count; ++i) results.push_back(name + "#" + std::to_string(i));
            }
        } while (consume(","));
        expect("=", "after the result names");
    }
    skip();
    // Terminators.
    if (results.empty()) {
        for (std::string_view t : {"func.return", "stablehlo.return", "sdy.return", "mhlo.return", "return"}) {
            if (consume(t)) {
                std::vector<ValueId> values;
                skip();
                if (peek() == '%') values = operandList(':', true);
                if (consume(":")) signature();
                optionalLocation();
                return values;
            }
        }
        if (lookingAt("\"stablehlo.return\"") || lookingAt("\"func.return\"") || lookingAt("\"sdy.return\"")) {
            quotedString();
            expect("(");
            std::vector<ValueId> values = operandList(')', true);
            expect(")");
            if (consume(":")) signature();
            optionalLocation();
            return values;
        }
    }
    resultTuple_.reset();
    std::vector<ValueId> produced = operation(results, at);
    if (auto tuple = std::exchange(resultTuple_, std::nullopt)) {
        if (results.size() != 1) {
            pos_ = at;
            fail("an op returning a tuple must define one name, not " + std::to_string(results.size()));
        }
        bindTuple(results.front(), std::move(produced), *tuple);
        return std::nullopt;
    }
    // Bind names: "x#i" results were split above; group them back under the base name.
    if (!results.empty()) {
        if (produced.size() != results.size()) {
            pos_ = at;
            fail("op defines " + std::to_string(results.size()) + " name(s) for " + std::to_string(produced.size()) + " result(s)");
        }
        std::size_t i = 0;
        while (i < results.size()) {
            const auto hash = results[i].find('#');
            if (hash == std::string::npos) {
                bind(results[i], {produced[i]});
                ++i;
                continue;
            }
            const std::string base = results[i].substr(0, hash);
            std::vector<ValueId> group;
            while (i < results.size() && results[i].compare(0, hash + 1, base + "#") == 0) group.push_back(produced[i++]);
            bind(base, group);
        }
    }
    return std::nullopt;
}

std::vector<ValueId> Parser::operation(const std::vector<std::string>& resultNames, std::size_t at) {
    skip();
    const bool generic = peek() == '"';
    if (!generic && !isIdStart(peek())) expected("an operation");
    const std::string name = generic ? quotedString() : identifier("an operation name");
    const std::string_view op = name;
    if (op == "stablehlo.tuple" || op == "mhlo.tuple" || op == "stablehlo.get_tuple_element" ||
        op == "mhlo.get_tuple_element")
        return tupleOperation(name, generic);
    return generic ? genericOperation(name, resultNames.size(), at) : prettyOperation(name, resultNames.size(), at);
}

// stablehlo.tuple and get_tuple_element emit no op: a tuple is its tensors, bound under one name.
//   %t = stablehlo.tuple %a, %b : tuple<A, B>                  "stablehlo.tuple"(%a, %b) : (A, B) -> tuple<A, B>
//   %x = stablehlo.get_tuple_element %t[1] : (tuple<A, B>) -> B  "stablehlo.get_tuple_element"(%t) <{index = 1 : i32}> : ...
std::vector<ValueId> Parser::tupleOperation(const std::string& name, bool generic) {
    opName_ = name;
    const bool element = name.find("get_tuple_element") != std::string::npos;
    if (generic) expect("(", "to open the operand list");
    std::vector<std::pair<std::string, std::size_t>> operands;
    skip();
    while (peek() == '%') {
        const std::size_t valueAt = pos_;
        operands.emplace_back(valueName(), valueAt);
        if (!consume(",")) break;
    }
    if (generic) expect(")", "to close the operand list");
    std::int64_t index = -1;
    if (element && !generic) {
        expect("[");
        index = integer();
        expect("]");
    }
    AttrDict attrs;
    if (generic && consume("<{")) {
        pos_ -= 1;
        attrs = dictionary();
        expect(">", "to close the properties");
    }
    if (peek() == '{') {
        AttrDict more = dictionary();
        attrs.insert(attrs.end(), more.begin(), more.end());
    }
    expect(":", "before the op's type");
    const std::size_t typeAt = pos_;
    const FunctionType f = signature();
    optionalLocation();
    if (!element) {
        const std::vector<ParsedType>& declared = f.isFunction ? f.results : f.inputs;
        if (declared.size() != 1 || !declared.front().tuple) {
            pos_ = typeAt;
            expected("a tuple<...> result type");
        }
        std::vector<ValueId> leaves;
        for (const auto& [operand, valueAt] : operands)
            for (ValueId v : useFlattened(operand, valueAt)) leaves.push_back(v);
        resultTuple_ = declared.front();
        return leaves;
    }
    if (const Attr* i = lookup(attrs, "index"); i && index < 0) index = i->integer;
    if (operands.size() != 1 || index < 0) {
        pos_ = typeAt;
        fail("'" + name + "' needs one tuple operand and an index");
    }
    std::size_t resultIndex = 0;
    const Binding& tuple = binding(operands.front().first, operands.front().second, resultIndex);
    if (!tuple.tuple || static_cast<std::size_t>(index) >= tuple.tuple->elements.size()) {
        pos_ = operands.front().second;
        fail("'" + name + "': %" + operands.front().first + " is not a tuple of more than " + std::to_string(index) + " element(s)");
    }
    std::size_t offset = 0;
    for (std::int64_t k = 0; k < index; ++k) offset += leafCount(tuple.tuple->elements[static_cast<std::size_t>(k)]);
    const ParsedType& picked = tuple.tuple->elements[static_cast<std::size_t>(index)];
    const auto first = tuple.values.begin() + static_cast<std::ptrdiff_t>(offset);
    std::vector<ValueId> leaves(first, first + static_cast<std::ptrdiff_t>(leafCount(picked)));
    if (picked.tuple) resultTuple_ = picked;
    return leaves;
}

// Shared tail of the generic form: `(regions)? {attrs}? : (types) -> types loc(...)?`.
std::vector<ValueId> Parser::genericOperation(const std::string& name, std::size_t resultCount, std::size_t at) {
    opName_ = name;
    const std::string_view op = name;
    const bool shardy = op.rfind("sdy.", 0) == 0;
    expect("(", "to open the operand list");
    // Calls, custom calls and ops we do not model take a tuple as its tensors.
    std::optional<OpKind> kind;
    if (op.rfind("stablehlo.", 0) == 0 || op.rfind("mhlo.", 0) == 0) kind = parseOpKind(op.substr(op.find('.') + 1));
    const bool takesTuples = !kind || kind == OpKind::CustomCall;
    std::vector<ValueId> operands = operandList(')', takesTuples);
    expect(")", "to close the operand list");
    if (consume("[")) balanced('[', ']');  // successors: not supported, but skip
    AttrDict attrs;
    if (consume("<{")) {
        pos_ -= 2;
        expect("<");
        attrs = dictionary();
        expect(">", "to close the properties");
    }
    std::vector<Region> regions;
    if (lookingAt("({")) {
        expect("(");
        do regions.push_back(region());
        while (consume(","));
        expect(")", "to close the region list");
    }
    if (peek() == '{') {
        AttrDict more = dictionary();
        attrs.insert(attrs.end(), more.begin(), more.end());
    }
    expect(":", "before the op's type");
    FunctionType f = signature();
    auto loc = optionalLocation();
    if (loc && !loc->alias.empty()) pendingAlias_ = loc->alias;
    SourceLocation location = here(at);
    if (loc) location.name = loc->name;

    Pending p;
    p.operands = std::move(operands);
    p.regions = std::move(regions);
    takeResults(p, f.results);
    if (!f.isFunction) {
        pos_ = at;
        fail("generic op '" + name + "' needs a function type (operands) -> results");
    }
    p.sharding = shardingFrom(attrs);
    marksFrom(attrs, p);

    // Calls and composites are inlined.
    if (op == "func.call" || op == "stablehlo.composite") {
        const Attr* callee = lookup(attrs, op == "func.call" ? "callee" : "decomposition");
        if (!callee || callee->kind != Attr::Kind::Symbol) {
            pos_ = at;
            fail("'" + name + "' without a callee symbol");
        }
        return inlineFunction(callee->text, p.operands, at);
    }
    if (op == "sdy.sharding_constraint" || op == "sdy.reshard" || op == "sdy.data_flow_edge" || (shardy && kShardyCollectives.count(op))) {
        for (const char* key : {"sharding", "out_sharding"})
            if (const Attr* a = lookup(attrs, key)) p.sharding = shardyAnnotation(*a);
        if (name != "sdy.data_flow_edge" || p.sharding) {
            auto results = reshard(std::move(p), location, resultCount, at);
            if (shardy && kShardyCollectives.count(op)) recordShardyCollective(results, name, {});
            return results;
        }
    }
    if (op == "sdy.data_flow_edge" || op == "sdy.propagation_barrier") {  // identities
        pendingAlias_.clear();
        return p.operands;
    }
    if (op == "stablehlo.dot" || op == "mhlo.dot") kind = OpKind::DotGeneral;
    if (op.rfind("chlo.", 0) == 0 && kChloUnary.count(op)) kind = OpKind::OtherElementwise;
    if (op == "sdy.constant" || op == "arith.constant") kind = OpKind::Constant;
    tupleResultAllowed(kind.value_or(OpKind::Opaque), at);
    if (op == "sdy.manual_computation") {  // <{in_shardings = #sdy.sharding_per_value<[...]>, manual_axes = ...}>
        ManualComputation mc;
        auto raw = [&](const char* key) {
            const Attr* a = lookup(attrs, key);
            std::string text = a && !a->items.empty() ? a->items.front().text : std::string();
            if (const auto open = text.find('['); open != std::string::npos && text.rfind(']') > open)
                text = text.substr(open + 1, text.rfind(']') - open - 1);
            return text;
        };
        if (p.regions.size() != 1 || p.resultTypes.size() != resultCount) {
            pos_ = at;
            fail("'sdy.manual_computation' needs one region and a result per name");
        }
        mc.inShardings = shardingItems(raw("in_shardings"));
        mc.outShardings = shardingItems(raw("out_shardings"));
        if (const Attr* a = lookup(attrs, "manual_axes"); a && !a->items.empty()) mc.manualAxes = quotedWords(a->items.front().text);
        mc.body = std::move(p.regions.front());
        p.regions.clear();
        pendingAlias_.clear();
        return globalManualComputation(std::move(p), std::move(mc), location, at);
    }
    if (!kind) {
        p.kind = OpKind::Opaque;
        p.attributes = OpaqueAttributes{name};
        if (warnedOps_.insert(name).second)
            warnings_.push_back(makeWarning("stablehlo.unsupported-op",
                                            "op '" + name + "' is not modelled; imported as an opaque op whose "
                                            "dimensions all need replication",
                                            location));
        return emit(std::move(p), location, resultCount, at);
    }
    p.kind = *kind;
    if (p.kind == OpKind::OtherElementwise) p.attributes = OpaqueAttributes{name};
    else p.attributes = attributesFor(p.kind, attrs, p, at);
    if (op == "stablehlo.dot" || op == "mhlo.dot") {
        DotDimensions d;
        const auto& lhs = graph_.type(p.operands.at(0));
        d.lhsContracting = {lhs.rank() - 1};
        d.rhsContracting = {0};
        p.attributes = d;
    }
    if (p.kind == OpKind::While) p.attributes = loopAttributes(p);
    return emit(std::move(p), location, resultCount, at);
}


SourceLocation Parser::finishLocation(std::size_t at, const std::optional<LocInfo>& loc) {
    SourceLocation location = here(at);
    if (loc) {
        location.name = loc->name;
        if (!loc->alias.empty()) pendingAlias_ = loc->alias;
    }
    return location;
}

// dense<...> literal text -> element values (row-major; one value for a splat). Empty when too large to keep.
std::vector<double> Parser::decodeDense(const std::string& literal, const TensorType& type, std::size_t at) {
    auto values = decodeDenseElements(literal, type, kMaxDenseElements);
    if (!values) {
        pos_ = at;
        fail(values.diagnostics().front().message);
    }
    return std::move(values).value();
}

namespace {

Dims intsOf(const Attr* a) {
    Dims out;
    if (!a) return out;
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
        std::string_view s(a->text);
        std::size_t i = 0;
        while (i < s.size()) {
            if (!(std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '-')) {
                ++i;
                continue;
            }
            std::size_t j = i + 1;
            while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
            out.push_back(std::strtoll(std::string(s.substr(i, j - i)).c_str(), nullptr, 10));
            i = j;
        }
    } else if (a->kind == Attr::Kind::Integer) {
        out.push_back(a->integer);
    }
    return out;
}

std::vector<std::pair<std::int64_t, std::int64_t>> pairsOf(const Attr* a) {
    Dims flat = intsOf(a);
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    for (std::size_t i = 0; i + 1 < flat.size(); i += 2) out.emplace_back(flat[i], flat[i + 1]);
    return out;
}

std::string wordOf(const Attr* a) {
    if (!a) return {};
    if (a->kind == Attr::Kind::Dialect) {
        const std::string raw = a->items.empty() ? std::string() : a->items.front().text;
        auto space = raw.rfind(' ');
        return space == std::string::npos ? raw : raw.substr(space + 1);
    }
    return a->text;
}

std::optional<CompareDirection> directionOf(std::string_view w) {
    if (w == "EQ") return CompareDirection::EQ;
    if (w == "NE") return CompareDirection::NE;
    if (w == "GE") return CompareDirection::GE;
    if (w == "GT") return CompareDirection::GT;
    if (w == "LE") return CompareDirection::LE;
    if (w == "LT") return CompareDirection::LT;
    return std::nullopt;
}

CompareType compareTypeOf(std::string_view w) {
    if (w == "FLOAT") return CompareType::Float;
    if (w == "TOTALORDER") return CompareType::TotalOrder;
    if (w == "SIGNED") return CompareType::Signed;
    if (w == "UNSIGNED") return CompareType::Unsigned;
    return CompareType::Default;
}

// "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]" -> dimension numbers; false when malformed.
bool parseConvLayout(std::string_view text, ConvolutionAttributes& c) {
    auto layout = [](std::string_view part, char first, char second, std::int64_t& a, std::int64_t& b, Dims& spatial) {
        std::vector<std::string> items;
        std::string current;
        for (char ch : part) {
            if (ch == '[' || ch == ' ') continue;
            if (ch == ',' || ch == ']') {
                if (!current.empty()) items.push_back(current);
                current.clear();
                continue;
            }
            current += ch;
        }
        if (!current.empty()) items.push_back(current);
        std::map<std::int64_t, std::int64_t> spatialByIndex;
        bool sawA = false, sawB = false;
        for (std::size_t i = 0; i < items.size(); ++i) {
            const auto position = static_cast<std::int64_t>(i);
            if (items[i] == std::string(1, first)) a = position, sawA = true;
            else if (items[i] == std::string(1, second)) b = position, sawB = true;
            else if (!items[i].empty() && std::isdigit(static_cast<unsigned char>(items[i][0])))
                spatialByIndex[std::strtoll(items[i].c_str(), nullptr, 10)] = position;
            else return false;
        }
        spatial.clear();
        for (const auto& [index, position] : spatialByIndex) spatial.push_back(position);
        return sawA && sawB && spatial.size() + 2 == items.size();
    };
    const auto x = text.find("]x[");
    const auto arrow = text.find("->");
    if (x == std::string_view::npos || arrow == std::string_view::npos) return false;
    return layout(text.substr(0, x + 1), 'b', 'f', c.inputBatch, c.inputFeature, c.inputSpatial) &&
           layout(text.substr(x + 2, arrow - x - 2), 'i', 'o', c.kernelInputFeature, c.kernelOutputFeature, c.kernelSpatial) &&
           layout(text.substr(arrow + 2), 'b', 'f', c.outputBatch, c.outputFeature, c.outputSpatial);
}

}  // namespace

OpAttributes Parser::attributesFor(OpKind kind, const AttrDict& d, const Pending& p, std::size_t at) {
    auto need = [&](std::string_view key) -> const Attr& {
        if (const Attr* a = lookup(d, key)) return *a;
        pos_ = at;
        fail("'" + opName_ + "' is missing its '" + std::string(key) + "' attribute");
    };
    switch (kind) {
        case OpKind::DotGeneral: {
            const Attr& dims = need("dot_dimension_numbers");
            return DotDimensions{intsOf(dims.field("lhs_batching_dimensions")), intsOf(dims.field("rhs_batching_dimensions")),
                                 intsOf(dims.field("lhs_contracting_dimensions")),
                                 intsOf(dims.field("rhs_contracting_dimensions"))};
        }
        case OpKind::BroadcastInDim: return BroadcastDimensions{intsOf(&need("broadcast_dimensions"))};
        case OpKind::Transpose: return Permutation{intsOf(&need("permutation"))};
        case OpKind::Reduce:
            return ReduceAttributes{intsOf(&need("dimensions")),
                                    p.regions.empty() ? Reducer::Other : reducerOf(graph_, p.regions.front())};
        case OpKind::ReduceWindow:
        case OpKind::SelectAndScatter: {
            WindowAttributes w;
            w.windowDimensions = intsOf(lookup(d, "window_dimensions"));
            w.windowStrides = intsOf(lookup(d, "window_strides"));
            w.baseDilations = intsOf(lookup(d, "base_dilations"));
            w.windowDilations = intsOf(lookup(d, "window_dilations"));
            w.padding = pairsOf(lookup(d, "padding"));
            const std::size_t bodyIndex = kind == OpKind::SelectAndScatter ? 1 : 0;
            w.reducer = p.regions.size() > bodyIndex ? reducerOf(graph_, p.regions[bodyIndex]) : Reducer::Other;
            return w;
        }
        case OpKind::Convolution: {
            ConvolutionAttributes c;
            const Attr& dims = need("dimension_numbers");
            bool ok = false;
            if (!dims.items.empty()) ok = parseConvLayout(dims.items.front().text, c);
            else if (dims.field("input_batch_dimension")) {
                c.inputBatch = dims.field("input_batch_dimension")->integer;
                c.inputFeature = intsOf(dims.field("input_feature_dimension")).at(0);
                c.inputSpatial = intsOf(dims.field("input_spatial_dimensions"));
                c.kernelInputFeature = intsOf(dims.field("kernel_input_feature_dimension")).at(0);
                c.kernelOutputFeature = intsOf(dims.field("kernel_output_feature_dimension")).at(0);
                c.kernelSpatial = intsOf(dims.field("kernel_spatial_dimensions"));
                c.outputBatch = intsOf(dims.field("output_batch_dimension")).at(0);
                c.outputFeature = intsOf(dims.field("output_feature_dimension")).at(0);
                c.outputSpatial = intsOf(dims.field("output_spatial_dimensions"));
                ok = true;
            }
            if (!ok) {
                pos_ = at;
                fail("cannot read the convolution's dimension numbers");
            }
            c.windowStrides = intsOf(lookup(d, "window_strides"));
            c.padding = pairsOf(lookup(d, "padding"));
            c.lhsDilation = intsOf(lookup(d, "lhs_dilation"));
            c.rhsDilation = intsOf(lookup(d, "rhs_dilation"));
            if (const Attr* g = lookup(d, "feature_group_count")) c.featureGroupCount = g->integer;
            if (const Attr* g = lookup(d, "batch_group_count")) c.batchGroupCount = g->integer;
            return c;
        }
        case OpKind::Slice:
            return SliceAttributes{intsOf(&need("start_indices")), intsOf(&need("limit_indices")), intsOf(lookup(d, "strides"))};
        case OpKind::Pad:
            return PadAttributes{intsOf(&need("edge_padding_low")), intsOf(&need("edge_padding_high")),
                                 intsOf(lookup(d, "interior_padding"))};
        case OpKind::Concatenate: return DimensionAttribute{need("dimension").integer};
        case OpKind::Iota: return DimensionAttribute{need("iota_dimension").integer};
        case OpKind::Compare: {
            auto direction = directionOf(wordOf(&need("comparison_direction")));
            if (!direction) {
                pos_ = at;
                fail("unknown comparison direction");
            }
            return CompareAttributes{*direction, compareTypeOf(wordOf(lookup(d, "compare_type")))};
        }
        case OpKind::Gather: {
            const Attr& dims = need("dimension_numbers");
            GatherAttributes g;
            g.offsetDims = intsOf(dims.field("offset_dims"));
            g.collapsedSliceDims = intsOf(dims.field("collapsed_slice_dims"));
            g.operandBatchingDims = intsOf(dims.field("operand_batching_dims"));
            g.startIndicesBatchingDims = intsOf(dims.field("start_indices_batching_dims"));
            g.startIndexMap = intsOf(dims.field("start_index_map"));
            if (const Attr* v = dims.field("index_vector_dim")) g.indexVectorDim = v->integer;
            g.sliceSizes = intsOf(&need("slice_sizes"));
            if (const Attr* s = lookup(d, "indices_are_sorted")) g.indicesAreSorted = s->integer != 0;
            return g;
        }
        case OpKind::Scatter: {
            const Attr& dims = need("scatter_dimension_numbers");
            ScatterAttributes s;
            s.updateWindowDims = intsOf(dims.field("update_window_dims"));
            s.insertedWindowDims = intsOf(dims.field("inserted_window_dims"));
            s.inputBatchingDims = intsOf(dims.field("input_batching_dims"));
            s.scatterIndicesBatchingDims = intsOf(dims.field("scatter_indices_batching_dims"));
            s.scatterDimsToOperandDims = intsOf(dims.field("scatter_dims_to_operand_dims"));
            if (const Attr* v = dims.field("index_vector_dim")) s.indexVectorDim = v->integer;
            if (const Attr* v = lookup(d, "indices_are_sorted")) s.indicesAreSorted = v->integer != 0;
            if (const Attr* v = lookup(d, "unique_indices")) s.uniqueIndices = v->integer != 0;
            return s;
        }
        case OpKind::DynamicSlice: return DynamicSliceAttributes{intsOf(&need("slice_sizes"))};
        case OpKind::Fft: return DimensionsAttribute{intsOf(lookup(d, "fft_length"))};
        case OpKind::BatchNormGrad:
        case OpKind::BatchNormInference:
        case OpKind::BatchNormTraining: return DimensionAttribute{need("feature_index").integer};
        case OpKind::Sort: {
            SortAttributes s;
            if (const Attr* v = lookup(d, "dimension")) s.dimension = v->integer;
            if (const Attr* v = lookup(d, "is_stable")) s.isStable = v->integer != 0;
            return s;
        }
        case OpKind::Reverse: return DimensionsAttribute{intsOf(&need("dimensions"))};
        case OpKind::Constant: {
            const Attr& value = need("value");
            if (p.resultTypes.size() != 1) return ConstantAttributes{};
            if (value.resource) return ConstantAttributes{};
            return ConstantAttributes{decodeDense(value.text, p.resultTypes.front(), at)};
        }
        case OpKind::CustomCall: {
            CustomCallAttributes c;
            if (const Attr* t = lookup(d, "call_target_name")) c.target = t->text;
            if (const Attr* b = lookup(d, "backend_config"); b && b->kind == Attr::Kind::String) c.backendConfig = b->text;
            return c;
        }
        case OpKind::AllGather:
        case OpKind::AllReduce:
        case OpKind::AllToAll:
        case OpKind::CollectivePermute:
        case OpKind::ReduceScatter: {
            CollectiveAttributes c;
            if (const Attr* g = lookup(d, kind == OpKind::CollectivePermute ? "source_target_pairs" : "replica_groups")) {
                Dims flat = intsOf(g);
                const auto& shape = g->type.shape;
                const std::size_t width = shape.size() == 2 && shape[1] > 0 ? static_cast<std::size_t>(shape[1]) : flat.size();
                for (std::size_t i = 0; width > 0 && i + width <= flat.size(); i += width)
                    c.replicaGroups.emplace_back(flat.begin() + static_cast<std::ptrdiff_t>(i),
                                                 flat.begin() + static_cast<std::ptrdiff_t>(i + width));
            }
            for (const char* key : {"all_gather_dim", "scatter_dimension", "split_dimension"})
                if (const Attr* v = lookup(d, key)) c.dimension = v->integer;
            if (const Attr* v = lookup(d, "concat_dimension")) c.concatDimension = v->integer;
            if (!p.regions.empty()) c.reducer = reducerOf(graph_, p.regions.front());
            return c;
        }
        default: return NoAttributes{};
    }
}

// Trip count of `while`: a condition `iter < limit` (or <=, !=) with constant limit and constant start.
LoopAttributes Parser::loopAttributes(const Pending& p) const {
    LoopAttributes loop;
    if (p.regions.size() != 2) return loop;
    const Region& cond = p.regions[0];
    if (cond.results.size() != 1) return loop;
    const Value& result = graph_.value(cond.results[0]);
    if (!result.producer.valid()) return loop;
    const Op& compare = graph_.op(result.producer);
    if (compare.kind != OpKind::Compare || compare.operands.size() != 2) return loop;
    auto constantOf = [&](ValueId v) { return constantScalar(graph_, v); };
    auto argumentIndex = [&](ValueId v) -> std::optional<std::size_t> {
        for (std::size_t i = 0; i < cond.arguments.size(); ++i)
            if (cond.arguments[i] == v) return i;
        return std::nullopt;
    };
    const auto index = argumentIndex(compare.operands[0]);
    const auto limit = constantOf(compare.operands[1]);
    if (!index || !limit || *index >= p.operands.size()) return loop;
    const auto start = constantOf(p.operands[*index]);
    if (!start) return loop;
    const auto direction = std::get<CompareAttributes>(compare.attributes).direction;
    double trips = *limit - *start;
    if (direction == CompareDirection::LE) trips += 1;
    else if (direction != CompareDirection::LT && direction != CompareDirection::NE) return loop;
    if (trips < 0 || trips > 1e12) return loop;
    loop.tripCount = static_cast<std::int64_t>(trips);
    loop.tripCountKnown = true;
    return loop;
}


// Results of a pretty op from its trailing signature: a function type gives them; a single type `t` means every
// operand and result has type t; a list `a, b` (select's `pred, t`) gives the results the last type.
void Parser::finishOp(Pending& p, const FunctionType& f, bool sameType) {
    if (f.isFunction) {
        takeResults(p, f.results);
        return;
    }
    if (sameType && !f.inputs.empty()) p.resultTypes.push_back(tensorOf(f.inputs.back()));
}

// The declared result types; one tuple result becomes its tensors (and resultTuple_ its shape), as the graph has no
// tuple values. Which ops may return a tuple is checked once the op is known (tupleResultAllowed).
void Parser::takeResults(Pending& p, const std::vector<ParsedType>& results) {
    for (const auto& t : results) {
        if (!t.tuple) {
            p.resultTypes.push_back(t.type);
            continue;
        }
        if (results.size() != 1) {
            pos_ = t.at;
            fail("'" + opName_ + "' returns a tuple among other results; only a single tuple result is supported");
        }
        appendLeaves(t, p.resultTypes);
        resultTuple_ = t;
    }
}

void Parser::tupleResultAllowed(OpKind kind, std::size_t at) {
    if (!resultTuple_ || kind == OpKind::CustomCall || kind == OpKind::Opaque) return;
    pos_ = at;
    fail("'" + opName_ + "' returning a tuple is not supported (only custom_call, func.call and ops we do not model may)");
}

std::vector<ValueId> Parser::prettyOperation(const std::string& name, std::size_t resultCount, std::size_t at) {
    opName_ = name;
    const std::string_view op = name;
    const bool shardy = op.rfind("sdy.", 0) == 0;
    Pending p;
    auto tail = [&](bool sameType) {
        if (consume("out_sharding")) {  // Shardy's per-op sharding, after the operands
            expect("=");
            p.sharding = shardyAnnotation(attribute());
        }
        AttrDict attrs;
        if (peek() == '{') attrs = dictionary();
        if (auto sharding = shardingFrom(attrs)) p.sharding = std::move(sharding);
        marksFrom(attrs, p);
        expect(":", "before the op's type");
        FunctionType f = signature();
        finishOp(p, f, sameType);
        return attrs;
    };
    auto located = [&]() { return finishLocation(at, optionalLocation()); };
    auto dimsList = [&]() {
        expect("[");
        Dims d;
        if (!consume("]")) {
            do d.push_back(integer());
            while (consume(","));
            expect("]");
        }
        return d;
    };
    auto keyword = [&](std::string_view key) {
        expect(",");
        expect(key);
        expect("=");
    };
    auto operands = [&]() {
        skip();
        std::vector<ValueId> out;
        while (peek() == '%') {
            const std::size_t valueAt = pos_;
            out.push_back(use(valueName(), valueAt));
            const std::size_t save = pos_;
            if (!consume(",")) break;
            skip();
            if (peek() != '%') {
                pos_ = save;
                break;
            }
        }
        return out;
    };

    if (op == "func.call" || op == "call") {
        const std::string callee = symbolName();
        expect("(");
        auto args = operandList(')', true);
        expect(")");
        tail(false);
        optionalLocation();
        auto results = inlineFunction(callee, args, at);
        if (results.size() != (resultTuple_ ? leafCount(*resultTuple_) : resultCount)) {
            pos_ = at;
            fail("@" + callee + " returns " + std::to_string(results.size()) + " value(s), the call binds " +
                 std::to_string(resultCount));
        }
        return results;
    }
    if (op == "stablehlo.composite") {
        quotedString();
        auto args = operands();
        AttrDict attrs = tail(false);
        optionalLocation();
        const Attr* decomposition = lookup(attrs, "decomposition");
        if (!decomposition || decomposition->kind != Attr::Kind::Symbol) {
            pos_ = at;
            fail("stablehlo.composite without a decomposition");
        }
        return inlineFunction(decomposition->text, args, at);
    }
    if (op == "sdy.sharding_constraint" || op == "sdy.reshard") {  // %x <@mesh, [...]> : t
        p.operands = operands();
        const Attr sharding = attribute();
        tail(true);
        p.sharding = shardyAnnotation(sharding);
        return reshard(std::move(p), located(), resultCount, at);
    }
    if (shardy && kShardyCollectives.count(op)) {  // [{"x"}, {}] %x out_sharding=<@mesh, [...]> : t (all_reduce: {"x"})
        skip();
        std::string axes;
        if (peek() == '[' || peek() == '{') {
            const char open = text_[pos_++];
            const char close = open == '[' ? ']' : '}';
            axes = open + balanced(open, close) + close;
        }
        p.operands = operands();
        tail(true);
        auto results = reshard(std::move(p), located(), resultCount, at);
        recordShardyCollective(results, name, std::move(axes));
        return results;
    }
    if (op == "sdy.propagation_barrier" || op == "sdy.data_flow_edge") {  // %x allowed_direction=BOTH : t
        p.operands = operands();
        std::optional<ShardingAnnotation> sharding;
        while (isIdStart(peek())) {
            const std::string key = identifier();
            expect("=");
            const Attr value = attribute();
            if (key == "sharding") sharding = shardyAnnotation(value);
        }
        tail(true);
        if (!sharding) {
            optionalLocation();
            return p.operands;
        }
        p.sharding = sharding;
        return reshard(std::move(p), located(), resultCount, at);
    }
    if (op == "sdy.named_computation") return namedComputation(resultCount, at);
    if (op == "sdy.manual_computation") {
        expect("(");
        p.operands = operandList(')');
        expect(")");
        return manualComputation(std::move(p), resultCount, at);
    }

    std::optional<OpKind> kind;
    const bool stablehlo = name.rfind("stablehlo.", 0) == 0 || name.rfind("mhlo.", 0) == 0;
    const std::string mnemonicName = stablehlo ? name.substr(name.find('.') + 1) : name;
    if (stablehlo) kind = parseOpKind(mnemonicName);
    if (mnemonicName == "dot" && stablehlo) kind = OpKind::DotGeneral;
    if (op.rfind("chlo.", 0) == 0 && kChloUnary.count(op)) kind = OpKind::OtherElementwise;
    if (op == "sdy.constant" || (op == "arith.constant" && lookingAt("dense"))) kind = OpKind::Constant;

    if (kind && isElementwise(*kind) && *kind != OpKind::Compare) {
        p.kind = *kind;
        p.operands = operands();
        if (*kind == OpKind::ReducePrecision) {
            while (consume(",")) {
                identifier();
                expect("=");
                attribute();
            }
        }
        if (*kind == OpKind::OtherElementwise) p.attributes = OpaqueAttributes{name};
        tail(true);
        return emit(std::move(p), located(), resultCount, at);
    }
    if (!kind) {
        // An op we do not model, in a pretty form we cannot know: take its operands and trailing type.
        p.operands = operands();
        skip();
        while (!eof() && peek() != ':' && peek() != '{') {
            if (peek() == '%') {
                const std::size_t valueAt = pos_;
                p.operands.push_back(use(valueName(), valueAt));
            } else if (peek() == '(' || peek() == '[' || peek() == '<') {
                const char open = text_[pos_++];
                balanced(open, open == '(' ? ')' : open == '[' ? ']' : '>');
            } else if (peek() == '"') {
                quotedString();
            } else {
                ++pos_;
            }
        }
        tail(true);
        p.kind = OpKind::Opaque;
        p.attributes = OpaqueAttributes{name};
        SourceLocation location = located();
        if (warnedOps_.insert(name).second)
            warnings_.push_back(makeWarning("stablehlo.unsupported-op",
                                            "op '" + name + "' is not modelled; imported as an opaque op whose "
                                            "dimensions all need replication",
                                            location));
        return emit(std::move(p), location, resultCount, at);
    }

    p.kind = *kind;
    switch (*kind) {
        case OpKind::Compare: {
            skip();
            const std::size_t wordAt = pos_;
            auto direction = directionOf(identifier("a comparison direction"));
            if (!direction) {
                pos_ = wordAt;
                expected("EQ, NE, GE, GT, LE or LT");
            }
            expect(",");
            p.operands = operands();
            CompareType type = CompareType::Default;
            if (consume(",")) type = compareTypeOf(identifier("a comparison type"));
            p.attributes = CompareAttributes{*direction, type};
            tail(false);
            if (p.resultTypes.empty()) p.resultTypes.push_back(TensorType{graph_.type(p.operands.at(0)).shape, ElementType::I1});
            break;
        }
        case OpKind::Constant: {
            AttrDict attrs;
            if (peek() == '{') attrs = dictionary();
            if (auto sharding = shardingFrom(attrs)) p.sharding = std::move(sharding);
            marksFrom(attrs, p);
            skip();
            const std::size_t literalAt = pos_;
            Attr value = attribute();
            if (value.kind != Attr::Kind::Dense || !value.hasType) {
                pos_ = literalAt;
                expected("a dense<...> : tensor<...> literal");
            }
            p.resultTypes.push_back(value.type);
            p.attributes = ConstantAttributes{value.resource ? std::vector<double>{} : decodeDense(value.text, value.type, literalAt)};
            break;
        }
        case OpKind::Iota: {
            expect("dim");
            expect("=");
            p.attributes = DimensionAttribute{integer()};
            tail(true);
            break;
        }
        case OpKind::BroadcastInDim:
        case OpKind::Transpose:
        case OpKind::Reverse: {
            p.operands = operands();
            keyword("dims");
            Dims d = dimsList();
            if (*kind == OpKind::BroadcastInDim) p.attributes = BroadcastDimensions{d};
            else if (*kind == OpKind::Transpose) p.attributes = Permutation{d};
            else p.attributes = DimensionsAttribute{d};
            tail(true);
            break;
        }
        case OpKind::Reshape:
        case OpKind::BitcastConvert:
        case OpKind::DynamicUpdateSlice:
        case OpKind::OptimizationBarrier: {
            p.operands = operands();
            tail(true);
            if (*kind == OpKind::OptimizationBarrier && p.resultTypes.size() == 1 && p.operands.size() > 1) {
                p.resultTypes.clear();
                for (auto v : p.operands) p.resultTypes.push_back(graph_.type(v));
            }
            if (*kind == OpKind::DynamicUpdateSlice && !p.operands.empty()) p.resultTypes = {graph_.type(p.operands[0])};
            break;
        }
        case OpKind::DotGeneral: {
            p.operands = operands();
            DotDimensions d;
            if (mnemonicName == "dot") {
                const int lhsRank = graph_.type(p.operands.at(0)).rank();
                d.lhsContracting = {lhsRank - 1};
                d.rhsContracting = {0};
            }
            while (consume(",")) {
                const std::string key = identifier("a dot_general attribute");
                expect("=");
                if (key == "batching_dims") {
                    d.lhsBatching = dimsList();
                    expect("x");
                    d.rhsBatching = dimsList();
                } else if (key == "contracting_dims") {
                    d.lhsContracting = dimsList();
                    expect("x");
                    d.rhsContracting = dimsList();
                } else {
                    attribute();  // precision, algorithm
                }
            }
            p.attributes = d;
            tail(false);
            break;
        }
        case OpKind::Slice: {
            p.operands = operands();
            expect("[");
            SliceAttributes s;
            bool strided = false;
            if (!consume("]")) {
                do {
                    s.start.push_back(integer());
                    expect(":");
                    s.limit.push_back(integer());
                    std::int64_t stride = 1;
                    if (consume(":")) stride = integer();
                    strided = strided || stride != 1;
                    s.strides.push_back(stride);
                } while (consume(","));
                expect("]");
            }
            if (!strided) s.strides.clear();
            p.attributes = s;
            tail(false);
            break;
        }
        case OpKind::Concatenate: {
            p.operands = operands();
            keyword("dim");
            p.attributes = DimensionAttribute{integer()};
            tail(false);
            break;
        }
        case OpKind::Pad: {
            p.operands = operands();
            PadAttributes pad;
            keyword("low");
            pad.low = dimsList();
            keyword("high");
            pad.high = dimsList();
            keyword("interior");
            pad.interior = dimsList();
            p.attributes = pad;
            tail(false);
            break;
        }
        case OpKind::DynamicSlice: {
            p.operands = operands();
            keyword("sizes");
            p.attributes = DynamicSliceAttributes{dimsList()};
            tail(false);
            break;
        }
        case OpKind::Reduce: {
            // (%x init: %c), (%y init: %d) applies op across dimensions = [..] : sig
            // or ... across dimensions = [..] : sig reducer(%a: t, %b: t) (%c: t, %d: t) { body }
            std::vector<ValueId> inputs, inits;
            do {
                expect("(");
                const std::size_t valueAt = pos_;
                inputs.push_back(use(valueName(), valueAt));
                expect("init");
                expect(":");
                const std::size_t initAt = pos_;
                inits.push_back(use(valueName(), initAt));
                expect(")");
            } while (consume(","));
            p.operands = inputs;
            p.operands.insert(p.operands.end(), inits.begin(), inits.end());
            std::optional<OpKind> applies;
            if (consume("applies")) {
                skip();
                const std::size_t opAt = pos_;
                const std::string combiner = identifier("the combining op");
                applies = parseOpKind(combiner);
                if (!applies) {
                    pos_ = opAt;
                    fail("unknown combiner '" + combiner + "'");
                }
            }
            expect("across");
            expect("dimensions");
            expect("=");
            Dims dims = dimsList();
            tail(false);
            Region body;
            if (applies) {
                std::vector<ValueId> lhs, rhs;
                for (auto v : inits) lhs.push_back(graph_.addValue(graph_.type(v)));
                for (auto v : inits) rhs.push_back(graph_.addValue(graph_.type(v)));
                body.arguments = lhs;
                body.arguments.insert(body.arguments.end(), rhs.begin(), rhs.end());
                for (std::size_t i = 0; i < inits.size(); ++i) {
                    OpId combine = graph_.addOp(*applies, {lhs[i], rhs[i]}, {graph_.type(inits[i])}, NoAttributes{}, here(at));
                    body.ops.push_back(combine);
                    body.results.push_back(graph_.op(combine).results.front());
                }
            } else {
                expect("reducer", "(or 'applies') for the reduce body");
                std::vector<std::pair<std::string, ValueId>> lhs, rhs;
                while (consume("(")) {
                    for (auto* side : {&lhs, &rhs}) {
                        std::string argument = valueName();
                        expect(":");
                        side->emplace_back(argument, graph_.addValue(tensorOf(type())));
                        optionalLocation();
                        consume(",");
                    }
                    expect(")");
                }
                scopes_.emplace_back();
                for (const auto* side : {&lhs, &rhs})
                    for (const auto& [argument, v] : *side) {
                        body.arguments.push_back(v);
                        bind(argument, {v});
                    }
                expect("{", "to open the reducer body");
                parseBodyInto(body);
                scopes_.pop_back();
            }
            p.regions.push_back(std::move(body));
            p.attributes = ReduceAttributes{dims, reducerOf(graph_, p.regions.front())};
            break;
        }
        case OpKind::Convolution: {
            expect("(");
            p.operands = operandList(')');
            expect(")");
            expect("dim_numbers");
            expect("=");
            skip();
            const std::size_t layoutAt = pos_;
            while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n') {
                if (text_[pos_] == '[') {
                    ++pos_;
                    balanced('[', ']');
                    continue;
                }
                ++pos_;
            }
            ConvolutionAttributes c;
            if (!parseConvLayout(text_.substr(layoutAt, pos_ - layoutAt), c)) {
                pos_ = layoutAt;
                expected("convolution dimension numbers like [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]");
            }
            if (consume(",")) {
                expect("window");
                expect("=");
                expect("{");
                while (!consume("}")) {
                    const std::string key = identifier("a window attribute");
                    expect("=");
                    Attr value = attribute();
                    if (key == "stride") c.windowStrides = intsOf(&value);
                    else if (key == "pad") c.padding = pairsOf(&value);
                    else if (key == "lhs_dilate") c.lhsDilation = intsOf(&value);
                    else if (key == "rhs_dilate") c.rhsDilation = intsOf(&value);
                    else if (key == "reverse") {
                        for (auto r : intsOf(&value))
                            if (r) fail("reversed convolution windows are not supported");
                    }
                    consume(",");
                }
            }
            AttrDict attrs = tail(false);
            if (const Attr* g = lookup(attrs, "feature_group_count")) c.featureGroupCount = g->integer;
            if (const Attr* g = lookup(attrs, "batch_group_count")) c.batchGroupCount = g->integer;
            p.attributes = c;
            break;
        }
        case OpKind::CustomCall: {
            CustomCallAttributes c;
            c.target = symbolName();
            expect("(");
            p.operands = operandList(')', true);
            expect(")");
            AttrDict attrs = tail(false);
            if (const Attr* b = lookup(attrs, "backend_config"); b && b->kind == Attr::Kind::String) c.backendConfig = b->text;
            p.attributes = c;
            break;
        }
        case OpKind::While: {
            // (%iterArg = %init, ...) : t1, t2 cond { ... } do { ... }
            expect("(");
            std::vector<std::string> names;
            if (!consume(")")) {
                do {
                    names.push_back(valueName());
                    expect("=");
                    const std::size_t valueAt = pos_;
                    p.operands.push_back(use(valueName(), valueAt));
                } while (consume(","));
                expect(")");
            }
            std::vector<ParsedType> types;
            if (consume(":")) types = signature().inputs;
            if (types.size() != names.size()) {
                pos_ = at;
                fail("while has " + std::to_string(names.size()) + " loop values and " + std::to_string(types.size()) + " types");
            }
            if (peek() == '{') dictionary();
            for (const char* part : {"cond", "do"}) {
                expect(part);
                scopes_.emplace_back();
                Region r;
                for (std::size_t i = 0; i < names.size(); ++i) {
                    ValueId v = graph_.addValue(tensorOf(types[i]));
                    r.arguments.push_back(v);
                    bind(names[i], {v});
                }
                expect("{");
                parseBodyInto(r);
                scopes_.pop_back();
                p.regions.push_back(std::move(r));
            }
            for (const auto& t : types) p.resultTypes.push_back(tensorOf(t));
            p.attributes = loopAttributes(p);
            break;
        }
        case OpKind::Cholesky:
        case OpKind::Fft: {
            p.operands = operands();
            AttrDict inlined;
            while (consume(",")) {
                std::string key = identifier();
                expect("=");
                inlined.emplace_back(key, attribute());
            }
            tail(true);
            if (*kind == OpKind::Fft)
                if (const Attr* l = lookup(inlined, "length")) p.attributes = DimensionsAttribute{intsOf(l)};
            break;
        }
        case OpKind::RngBitGenerator:
        case OpKind::Rng: {
            p.operands = operands();
            while (consume(",")) {
                identifier();
                expect("=");
                attribute();
            }
            tail(false);
            break;
        }
        default: {
            // Other modelled ops that JAX prints generically but some printer may print pretty: operands and type.
            p.operands = operands();
            tail(true);
            if (p.kind != OpKind::Opaque && !std::holds_alternative<NoAttributes>(p.attributes)) break;
            if (p.kind == OpKind::Sort || p.kind == OpKind::Reduce || p.kind == OpKind::Gather || p.kind == OpKind::Scatter) {
                pos_ = at;
                fail("'" + name + "' in a pretty form we cannot read; print it in the generic form");
            }
            break;
        }
    }
    return emit(std::move(p), located(), resultCount, at);
}

// `(%a: t loc(...), ...)`: the arguments of a Shardy op's block.
std::vector<std::pair<std::string, ParsedType>> Parser::blockArguments() {
    expect("(", "to open the block's arguments");
    std::vector<std::pair<std::string, ParsedType>> arguments;
    if (!consume(")")) {
        do {
            std::string argument = valueName();
            expect(":");
            arguments.emplace_back(std::move(argument), type());
            optionalLocation();
        } while (consume(","));
        expect(")", "to close the block's arguments");
    }
    return arguments;
}

// An identity that moves a tensor to the sharding `p.sharding` (sdy.sharding_constraint, sdy.reshard, Shardy's
// collectives): a "Sharding" custom call, as JAX's sharding constraints import.
std::vector<ValueId> Parser::reshard(Pending p, const SourceLocation& location, std::size_t resultCount, std::size_t at) {
    if (p.operands.size() != 1) {
        pos_ = at;
        fail("'" + opName_ + "' takes one tensor, not " + std::to_string(p.operands.size()));
    }
    if (kShardyCollectives.count(opName_) && warnedOps_.insert(opName_).second)
        warnings_.push_back(makeWarning("stablehlo.shardy-collective",
                                        "'" + opName_ + "' imports as a reshard to its out_sharding: in Shardy's global "
                                        "view it keeps the tensor's value, and the plan chooses its own collectives",
                                        location));
    p.kind = OpKind::CustomCall;
    p.attributes = CustomCallAttributes{"Sharding", ""};
    if (p.resultTypes.empty()) p.resultTypes = {graph_.type(p.operands.front())};
    return emit(std::move(p), location, resultCount, at);
}


// sdy.manual_computation(%x) in_shardings=[<@mesh, [...]>] out_shardings=[...] manual_axes={"x"} (%a: t) { ...
// sdy.return %r : t } : (T) -> T, after its operands: turned back into its global program (manual_computation.h),
// its in_shardings on identity ops (Sharding custom calls, as a sharding constraint imports) feeding the body and
// its out_shardings on identity ops after it, so that the reference plan reads them.
std::vector<ValueId> Parser::manualComputation(Pending p, std::size_t resultCount, std::size_t at) {
    ManualComputation mc;
    std::string in, out;
    while (!lookingAt("(") && !eof()) {
        const std::string key = identifier("in_shardings, out_shardings or manual_axes");
        expect("=");
        skip();
        if (key != "in_shardings" && key != "out_shardings" && key != "manual_axes") {
            pos_ = at;
            fail("unexpected '" + key + "' in sdy.manual_computation");
        }
        if (peek() == '[') {
            ++pos_;
            (key == "out_shardings" ? out : in) = balanced('[', ']');
        } else if (peek() == '{') {
            ++pos_;
            mc.manualAxes = quotedWords(balanced('{', '}'));
        } else {
            attribute();
        }
    }
    const auto arguments = blockArguments();
    scopes_.emplace_back();
    for (const auto& [argument, t] : arguments) {
        ValueId v = graph_.addValue(tensorOf(t));
        mc.body.arguments.push_back(v);
        bind(argument, {v});
    }
    // The body is parsed like a region whose arguments are already bound.
    expect("{");
    parseBodyInto(mc.body);
    scopes_.pop_back();
    const std::size_t typeAt = pos_;
    expect(":", "before the op's type");
    const FunctionType f = signature();
    finishOp(p, f, false);
    const SourceLocation location = finishLocation(at, optionalLocation());
    pendingAlias_.clear();
    if (p.resultTypes.size() != resultCount) {
        pos_ = typeAt;
        fail("'sdy.manual_computation' declares " + std::to_string(resultCount) + " result(s) but its type gives " +
             std::to_string(p.resultTypes.size()));
    }
    mc.inShardings = shardingItems(in);
    mc.outShardings = shardingItems(out);
    return globalManualComputation(std::move(p), std::move(mc), location, at);
}

std::vector<ValueId> Parser::globalManualComputation(Pending p, ManualComputation mc, const SourceLocation& location,
                                                     std::size_t at) {
    mc.resultTypes = p.resultTypes;
    mc.location = location;
    // The in_shardings on identities of the operands.
    for (std::size_t i = 0; i < p.operands.size() && i < mc.inShardings.size(); ++i) {
        Pending identity;
        identity.kind = OpKind::CustomCall;
        identity.attributes = CustomCallAttributes{"Sharding", ""};
        identity.operands = {p.operands[i]};
        identity.resultTypes = {graph_.type(p.operands[i])};
        identity.sharding = ShardingAnnotation{ShardingAnnotation::Format::Shardy, "#sdy.sharding" + mc.inShardings[i]};
        mc.operands.push_back(emit(std::move(identity), location, 1, at).front());
    }
    for (std::size_t i = mc.operands.size(); i < p.operands.size(); ++i) mc.operands.push_back(p.operands[i]);
    auto program = globalProgram(graph_, mc, shardyCollectives_);
    if (!program) {
        const Diagnostic& d = program.diagnostics().front();
        std::size_t offset = at;
        if (d.location.file == file_ && d.location.line > 0 && static_cast<std::size_t>(d.location.line) <= lineStarts_.size())
            offset = lineStarts_[static_cast<std::size_t>(d.location.line - 1)] +
                     static_cast<std::size_t>(std::max(0, d.location.column - 1));
        throw ParseError{offset, d.message, d.code};
    }
    manualComputations_ = true;
    for (OpId id : program->ops) insertion_->push_back(id);
    if (program->manual) graph_.partitioned = true;
    // The out_shardings on identities of the results.
    std::vector<ValueId> results;
    for (std::size_t i = 0; i < program->results.size(); ++i) {
        if (i >= mc.outShardings.size()) {
            results.push_back(program->results[i]);
            continue;
        }
        Pending identity;
        identity.kind = OpKind::CustomCall;
        identity.attributes = CustomCallAttributes{"Sharding", ""};
        identity.operands = {program->results[i]};
        identity.resultTypes = {graph_.type(program->results[i])};
        identity.sharding = ShardingAnnotation{ShardingAnnotation::Format::Shardy, "#sdy.sharding" + mc.outShardings[i]};
        results.push_back(emit(std::move(identity), location, 1, at).front());
    }
    return results;
}

// sdy.named_computation<"name">(%x) in_shardings=[...] out_shardings=[...] (%a: t) { ... sdy.return %r : t } : (t) -> t
// A named group of ops: its body is inlined, with its shardings as reshards of its operands and results.
std::vector<ValueId> Parser::namedComputation(std::size_t resultCount, std::size_t at) {
    expect("<");
    balanced('<', '>');
    expect("(");
    std::vector<ValueId> operands = operandList(')');
    expect(")");
    std::string shardings[2];  // in, out: the items of `[<@mesh, [...]>, ...]`
    for (const char* key : {"in_shardings", "out_shardings"})
        if (consume(key)) {
            expect("=");
            expect("[");
            shardings[key[0] == 'o'] = balanced('[', ']');
        }
    // Each item of `items` becomes a reshard of the matching value of `values`.
    auto constrain = [&](const std::string& items, std::vector<ValueId>& values) {
        std::size_t k = 0, start = 0;
        int depth = 0;
        for (std::size_t i = 0; i <= items.size() && k < values.size(); ++i) {
            const char c = i < items.size() ? items[i] : ',';
            if (c == '<' || c == '[' || c == '{') ++depth;
            if (c == '>' || c == ']' || c == '}') --depth;
            if (c != ',' || depth != 0) continue;
            const std::string item = trimmedCopy(items.substr(start, i - start));
            start = i + 1;
            if (item.empty()) continue;
            Pending identity;
            identity.operands = {values[k]};
            identity.sharding = ShardingAnnotation{ShardingAnnotation::Format::Shardy, "#sdy.sharding" + item};
            values[k++] = reshard(std::move(identity), here(at), 1, at).front();
        }
    };
    constrain(shardings[0], operands);
    const auto arguments = blockArguments();
    if (arguments.size() != operands.size()) {
        pos_ = at;
        fail("sdy.named_computation passes " + std::to_string(operands.size()) + " operand(s) to " +
             std::to_string(arguments.size()) + " block argument(s)");
    }
    scopes_.emplace_back();
    for (std::size_t i = 0; i < arguments.size(); ++i) bind(arguments[i].first, {operands[i]});
    expect("{", "to open the named computation's body");
    std::vector<ValueId> results = parseBody();
    scopes_.pop_back();
    if (peek() == '{') dictionary();
    expect(":", "before the op's type");
    signature();
    optionalLocation();
    constrain(shardings[1], results);
    if (results.size() != resultCount) {
        pos_ = at;
        fail("sdy.named_computation returns " + std::to_string(results.size()) + " value(s), the op binds " +
             std::to_string(resultCount));
    }
    return results;
}

// Roles the source does not state: integer tensors are inputs; floating-point arguments read as a
// convolution's input (through layout ops) are inputs; other floating-point arguments are parameters.
void Parser::inferRoles() {
    std::set<std::uint32_t> convInputs;
    std::unordered_map<std::uint32_t, std::uint32_t> source;  // value -> the argument value it is a relayout of
    for (OpId id : graph_.allOpsInOrder()) {
        const Op& op = graph_.op(id);
        auto origin = [&](ValueId v) {
            auto it = source.find(v.index);
            return it == source.end() ? v.index : it->second;
        };
        if ((op.kind == OpKind::Transpose || op.kind == OpKind::Reshape || op.kind == OpKind::Convert) && !op.results.empty())
            source[op.results[0].index] = origin(op.operands[0]);
        if (op.kind == OpKind::Convolution) convInputs.insert(origin(op.operands[0]));
    }
    for (std::size_t index : roleUnknown_) {
        Argument& a = graph_.arguments[index];
        const auto& t = graph_.type(a.value);
        const std::string lower = [&] {
            std::string n = a.name;
            for (char& ch : n) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            return n;
        }();
        if (!isFloat(t.element) || convInputs.count(a.value.index)) a.role = ArgumentRole::Input;
        else if (lower.find("opt_state") != std::string::npos) a.role = ArgumentRole::OptimizerState;
        else if (lower.rfind("input", 0) == 0 || lower.rfind("batch", 0) == 0 || lower == "x" || lower.rfind("args", 0) == 0)
            a.role = ArgumentRole::Input;
        else a.role = ArgumentRole::Parameter;
    }
}

Graph Parser::parseEntry() {
    // The entry: @main, else the only public function, else the only function.
    const FunctionInfo* entry = nullptr;
    // "@a, @b, @c" of the functions (in file order) that pass `keep`.
    auto listed = [&](auto keep) {
        std::string out;
        for (const auto& name : functionOrder_)
            if (keep(functions_.find(name)->second)) out += (out.empty() ? "@" : ", @") + name;
        return out;
    };
    if (!options_.entryFunction.empty()) {
        auto it = functions_.find(options_.entryFunction);
        if (it == functions_.end()) {
            pos_ = functions_.find(functionOrder_.front())->second.nameOffset;
            fail("no function @" + options_.entryFunction + " in the file (its functions: " +
                 listed([](const FunctionInfo&) { return true; }) + ")");
        }
        entry = &it->second;
    }
    if (auto it = functions_.find("main"); !entry && it != functions_.end()) entry = &it->second;
    if (!entry) {
        std::vector<const FunctionInfo*> publics;
        for (const auto& name : functionOrder_)
            if (const FunctionInfo& f = functions_.find(name)->second; f.isPublic) publics.push_back(&f);
        if (publics.size() == 1) entry = publics.front();
        else if (functions_.size() == 1) entry = &functions_.begin()->second;
        if (!entry) {
            pos_ = (publics.empty() ? &functions_.find(functionOrder_.front())->second : publics.front())->nameOffset;
            const bool anyPublic = !publics.empty();
            fail("no entry function: no @main and " + std::to_string(anyPublic ? publics.size() : functions_.size()) +
                 (anyPublic ? " public" : " private") + " functions (" +
                 listed([&](const FunctionInfo& f) { return f.isPublic || !anyPublic; }) +
                 "); choose one with --entry NAME");
        }
    }
    graph_.name = entry->name;
    pos_ = entry->signatureOffset;
    scopes_.emplace_back();
    isolation_.insert(0);
    callStack_.push_back(entry->name);
    parseSignature(true, nullptr, pos_);
    std::vector<AttrDict> resultAttrs = resultAttrs_;
    std::vector<ValueId> results = parseBody();
    for (std::size_t i = 0; i < results.size(); ++i) {
        Output out;
        out.value = results[i];
        if (i < resultAttrs.size()) {
            if (const Attr* info = lookup(resultAttrs[i], "jax.result_info"); info && info->kind == Attr::Kind::String)
                out.name = info->text;
            out.sharding = shardingFrom(resultAttrs[i]);
        }
        graph_.outputs.push_back(std::move(out));
    }
    for (const auto& [gradient, argument] : gradientMarks_) {
        if (argument >= graph_.arguments.size())
            fail("shardscope.gradient_of names argument " + std::to_string(argument) + " which does not exist");
        graph_.gradients.emplace_back(gradient, argument);
    }
    for (const auto& [argument, output] : aliasing_) {
        if (output >= graph_.outputs.size()) fail("tf.aliasing_output names output " + std::to_string(output) + " which does not exist");
        graph_.outputs[output].aliasedArgument = argument;
    }
    // Names: the source's, else the location's, else the SSA name.
    for (std::size_t i = 0; i < graph_.arguments.size(); ++i) {
        Argument& a = graph_.arguments[i];
        if (a.name.empty()) a.name = a.location.name;
        if (a.name.empty()) a.name = "%" + argumentNames_[i];
    }
    // Resolve #loc aliases (defined anywhere in the file) into labels.
    auto resolve = [&](const std::string& alias) -> std::string {
        std::string current = alias;
        for (int hops = 0; hops < 16; ++hops) {
            auto it = locAliases_.find(current);
            if (it == locAliases_.end()) return {};
            if (!it->second.name.empty()) return it->second.name;
            if (it->second.alias.empty()) return {};
            current = it->second.alias;
        }
        return {};
    };
    for (const auto& [op, alias] : opLabels_) graph_.op(op).location.name = resolve(alias);
    for (const auto& [index, alias] : argumentAliases_) {
        Argument& a = graph_.arguments[index];
        const std::string label = resolve(alias);
        a.location.name = label;
        if (a.name == "%" + argumentNames_[index] && !label.empty()) a.name = label;
    }
    // Distinct names for parameters (the verifier requires them).
    std::map<std::string, int> seen;
    for (auto& a : graph_.arguments)
        if (seen[a.name]++ > 0) a.name += "#" + std::to_string(seen[a.name] - 1);
    inferRoles();
    return std::move(graph_);
}

Result<std::vector<std::string>> Parser::functionNames() {
    lineStarts_.push_back(0);
    for (std::size_t i = 0; i < text_.size(); ++i)
        if (text_[i] == '\n') lineStarts_.push_back(i + 1);
    try {
        scanModule();
    } catch (const ParseError& e) {
        return makeError("stablehlo.syntax", e.message, here(std::min(e.offset, text_.size())));
    } catch (const std::exception& e) {
        return makeError("stablehlo.syntax", std::string("malformed input: ") + e.what(), here(std::min(pos_, text_.size())));
    }
    return functionOrder_;
}

Result<Graph> Parser::run() {
    lineStarts_.push_back(0);
    for (std::size_t i = 0; i < text_.size(); ++i)
        if (text_[i] == '\n') lineStarts_.push_back(i + 1);
    if (text_.find('\0') != std::string_view::npos)
        return makeError("stablehlo.syntax", file_ + ": not StableHLO text (the file contains binary data)");
    Graph graph;
    try {
        scanModule();
        graph = parseEntry();
        if (manualComputations_) removeUnreachable(graph);
    } catch (const ParseError& e) {
        const std::size_t at = std::min(e.offset, text_.size());
        return makeError(e.code, oneLine(e.message), here(at));
    } catch (const std::exception& e) {  // std::stoull and friends on malformed numbers
        return makeError("stablehlo.syntax", std::string("malformed input: ") + e.what(), here(std::min(pos_, text_.size())));
    }
    auto status = verifyGraph(graph);
    if (!status) {  // refused: one line, the first thing wrong
        for (const auto& d : status.diagnostics())
            if (d.severity == Severity::Error) return Result<Graph>::failure({d});
        return Result<Graph>::failure(status.diagnostics());
    }
    if (graph.partitioned)
        warnings_.push_back(makeWarning("stablehlo.partitioned",
                                        "the module was partitioned by hand (sdy.manual_computation): imported as its "
                                        "global program (shapes scaled by its shardings, collectives the global ops "
                                        "imply dropped); its shardings are the reference plan (--plan reference)",
                                        SourceLocation{file_, 0, 0, {}}));
    Result<Graph> result(std::move(graph));
    result.addDiagnostics(warnings_);
    return result;
}

}  // namespace
}  // namespace shardscope::import

namespace shardscope::import {

Result<ir::Graph> importStableHlo(std::string_view text, const std::string& fileName, const ImportOptions& options) {
    return Parser(text, fileName, options).run();
}

Result<std::vector<std::string>> stableHloFunctions(std::string_view text, const std::string& fileName) {
    const ImportOptions none;
    return Parser(text, fileName, none).functionNames();
}

}  // namespace shardscope::import
