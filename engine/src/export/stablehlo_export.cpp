// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Patches StableHLO text in place: a small scanner that knows just enough MLIR syntax (strings, comments,
// nested brackets, function signatures, attribute dictionaries) to find the places a sharding goes, so every
// byte it does not need to change is copied through.
#include "shardscope/export/stablehlo_export.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "shardscope/export/sharding_text.h"

namespace shardscope::exporting {

std::string_view toString(ConstraintChoice choice) {
    switch (choice) {
        case ConstraintChoice::None:
            return "none";
        case ConstraintChoice::Key:
            return "key";
        case ConstraintChoice::All:
            return "all";
    }
    return "none";
}

std::optional<ConstraintChoice> parseConstraintChoice(std::string_view text) {
    for (ConstraintChoice c : {ConstraintChoice::None, ConstraintChoice::Key, ConstraintChoice::All})
        if (toString(c) == text)
            return c;
    return std::nullopt;
}

namespace {

bool isShardingCall(const ir::Op& op) {
    const auto* call = std::get_if<ir::CustomCallAttributes>(&op.attributes);
    return op.kind == ir::OpKind::CustomCall && call && call->target == "Sharding";
}

}  // namespace

EntryShardings entryShardings(const ir::Graph& graph, const analysis::DecisionSpace& space,
                              const plan::AppliedPlan& applied, ConstraintChoice constraints) {
    EntryShardings out;
    for (const auto& a : graph.arguments)
        out.arguments.push_back(applied.sharding(space, a.value));
    for (const auto& o : graph.outputs)
        out.results.push_back(applied.sharding(space, o.value));
    if (constraints == ConstraintChoice::None)
        return out;
    // Values an existing constraint already pins: the operands of Sharding calls, and the results of ops the
    // source annotates (a constraint on an op's only result imports as that op's annotation).
    std::set<std::uint32_t> constrained;
    for (const ir::OpId id : graph.body) {
        const ir::Op& op = graph.op(id);
        if (isShardingCall(op))
            for (const ir::ValueId v : op.operands)
                constrained.insert(v.index);
        else if (op.sharding)
            for (const ir::ValueId v : op.results)
                constrained.insert(v.index);
    }
    for (const ir::OpId id : graph.body) {
        const ir::Op& op = graph.op(id);
        if (op.kind == ir::OpKind::Constant || op.kind == ir::OpKind::Iota || isShardingCall(op))
            continue;
        for (const ir::ValueId result : op.results) {
            const ir::TensorType& type = graph.type(result);
            if (type.element == ir::ElementType::Token || constrained.count(result.index) > 0 ||
                result.index >= space.dimensionAtoms.size())
                continue;
            plan::TensorSharding sharding = applied.sharding(space, result);
            if (constraints == ConstraintChoice::Key) {
                bool key = op.kind == ir::OpKind::DotGeneral || op.kind == ir::OpKind::Convolution;
                bool sameShape = false, sameSharding = false, operandsSharded = false;
                std::uint32_t operandAxes = 0;
                for (const ir::ValueId operand : op.operands) {
                    if (operand.index >= space.dimensionAtoms.size())
                        continue;
                    const plan::TensorSharding o = applied.sharding(space, operand);
                    operandsSharded = operandsSharded || o.mask() != 0;
                    operandAxes |= o.mask();
                    if (graph.type(operand).shape == type.shape) {
                        sameShape = true;
                        sameSharding = sameSharding || o == sharding;
                    }
                }
                // A reshard: the result keeps an operand's shape but none of its shardings, or takes an axis
                // no operand uses (a slice, as a reshape into heads may be).
                key = key || (sameShape && !sameSharding) || (sharding.mask() & ~operandAxes) != 0;
                if (!key || (sharding.mask() == 0 && !operandsSharded))
                    continue;
            }
            out.constraints.push_back({result, std::move(sharding)});
        }
    }
    return out;
}

namespace {

// Thrown inside the scanner only; exportStableHlo turns it into a Diagnostic.
struct ScanError {
    std::size_t at;
    std::string message;
};

struct Edit {
    std::size_t begin, end;
    std::string replacement;
};

// A range [begin, end) of the text.
struct Span {
    std::size_t begin = 0, end = 0;
};

// One argument or result of a signature: its type and, if present, its attribute dictionary.
struct SignatureItem {
    std::size_t at = 0;  // where the item starts (an argument's %name)
    Span type;
    std::optional<Span> attributes;  // from '{' to after '}'
};

struct Signature {
    std::vector<SignatureItem> arguments;
    std::vector<SignatureItem> results;
    bool resultsParenthesised = true;
    std::size_t argumentsAt = 0;
    std::size_t end = 0;  // after the result list (or the argument list without results)
};

bool isIdentifierChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' || c == '-';
}

class Scanner {
public:
    explicit Scanner(std::string_view text) : text_(text) {}

    std::string_view text() const { return text_; }

    [[noreturn]] void fail(std::size_t at, std::string message) const {
        throw ScanError{at, std::move(message)};
    }

    std::size_t skipTrivia(std::size_t pos) const {
        while (pos < text_.size()) {
            if (std::isspace(static_cast<unsigned char>(text_[pos])))
                ++pos;
            else if (text_.compare(pos, 2, "//") == 0) {
                while (pos < text_.size() && text_[pos] != '\n')
                    ++pos;
            } else
                break;
        }
        return pos;
    }

    // From an opening quote to after the closing one.
    std::size_t skipString(std::size_t pos) const {
        const std::size_t start = pos++;
        while (pos < text_.size() && text_[pos] != '"')
            pos += text_[pos] == '\\' ? 2 : 1;
        if (pos >= text_.size())
            fail(start, "unterminated string");
        return pos + 1;
    }

    // From an opening bracket ( [ { < to after its matching closer; strings and `->` are stepped over.
    std::size_t skipBracketed(std::size_t pos) const {
        std::vector<char> closers;
        const std::size_t start = pos;
        while (pos < text_.size()) {
            const char c = text_[pos];
            if (c == '"') {
                pos = skipString(pos);
                continue;
            }
            if (c == '-' && pos + 1 < text_.size() && text_[pos + 1] == '>') {
                pos += 2;
                continue;
            }
            if (c == '/' && text_.compare(pos, 2, "//") == 0) {
                pos = skipTrivia(pos);
                continue;
            }
            if (c == '(' || c == '[' || c == '{' || c == '<')
                closers.push_back(c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : '>');
            else if (c == ')' || c == ']' || c == '}' || c == '>') {
                if (closers.empty() || closers.back() != c)
                    fail(pos, std::string("unbalanced '") + c + "'");
                closers.pop_back();
                if (closers.empty())
                    return pos + 1;
            }
            ++pos;
        }
        fail(start, std::string("'") + text_[start] + "' is never closed");
    }

    // Positions of `word` as a whole token outside strings and comments, at bracket depth `depth` counting
    // only { } (module and function bodies). depth < 0: any depth.
    std::vector<std::size_t> find(std::string_view word, int depth) const {
        std::vector<std::size_t> hits;
        int level = 0;
        std::size_t pos = 0;
        while (pos < text_.size()) {
            const char c = text_[pos];
            if (c == '"') {
                pos = skipString(pos);
                continue;
            }
            if (c == '/' && text_.compare(pos, 2, "//") == 0) {
                pos = skipTrivia(pos);
                continue;
            }
            if (c == '{')
                ++level;
            if (c == '}')
                --level;
            if (text_.compare(pos, word.size(), word) == 0 &&
                (pos == 0 || !isIdentifierChar(text_[pos - 1])) &&
                (pos + word.size() >= text_.size() || !isIdentifierChar(text_[pos + word.size()])) &&
                (depth < 0 || level == depth)) {
                hits.push_back(pos);
                pos += word.size();
                continue;
            }
            ++pos;
        }
        return hits;
    }

    // A symbol `@name` or `@"name"` at pos (after trivia); returns the name and moves pos past it.
    std::optional<std::string> symbol(std::size_t& pos) const {
        pos = skipTrivia(pos);
        if (pos >= text_.size() || text_[pos] != '@')
            return std::nullopt;
        ++pos;
        if (pos < text_.size() && text_[pos] == '"') {
            const std::size_t end = skipString(pos);
            std::string name(text_.substr(pos + 1, end - pos - 2));
            pos = end;
            return name;
        }
        const std::size_t start = pos;
        while (pos < text_.size() && isIdentifierChar(text_[pos]))
            ++pos;
        return std::string(text_.substr(start, pos - start));
    }

    // A type (`tensor<4xf32>`, `!stablehlo.token`, `tuple<...>`) starting at pos (after trivia).
    Span type(std::size_t pos) const {
        pos = skipTrivia(pos);
        const std::size_t start = pos;
        while (pos < text_.size()) {
            const char c = text_[pos];
            if (c == '<')
                pos = skipBracketed(pos);
            else if (isIdentifierChar(c) || c == '!')
                ++pos;
            else
                break;
        }
        if (pos == start)
            fail(start, "expected a type");
        return {start, pos};
    }

    // After a type: an optional attribute dictionary and an optional loc(...). Returns the position after
    // them.
    std::size_t attributesAndLocation(std::size_t pos, SignatureItem& item) const {
        pos = skipTrivia(pos);
        if (pos < text_.size() && text_[pos] == '{') {
            const std::size_t end = skipBracketed(pos);
            item.attributes = Span{pos, end};
            pos = skipTrivia(end);
        }
        if (text_.compare(pos, 4, "loc(") == 0)
            pos = skipTrivia(skipBracketed(pos + 3));
        return pos;
    }

    // The signature whose argument list opens at `pos`.
    Signature signature(std::size_t pos) const {
        Signature s;
        s.argumentsAt = pos;
        ++pos;
        pos = skipTrivia(pos);
        if (pos < text_.size() && text_[pos] == ')')
            ++pos;
        else
            while (true) {
                pos = skipTrivia(pos);
                if (pos >= text_.size() || text_[pos] != '%')
                    fail(pos, "expected an argument (%name: type)");
                SignatureItem item;
                item.at = pos;
                while (pos < text_.size() && text_[pos] != ':') {
                    if (text_[pos] == ',' || text_[pos] == ')')
                        fail(pos, "expected ':' after the argument's name");
                    ++pos;
                }
                item.type = type(pos + 1);
                pos = attributesAndLocation(item.type.end, item);
                s.arguments.push_back(item);
                if (pos < text_.size() && text_[pos] == ',') {
                    ++pos;
                    continue;
                }
                if (pos < text_.size() && text_[pos] == ')') {
                    ++pos;
                    break;
                }
                fail(pos, "expected ',' or ')' in the argument list");
            }
        pos = skipTrivia(pos);
        s.end = pos;
        if (text_.compare(pos, 2, "->") != 0)
            return s;
        pos = skipTrivia(pos + 2);
        if (pos < text_.size() && text_[pos] == '(') {
            pos = skipTrivia(pos + 1);
            if (pos < text_.size() && text_[pos] == ')') {
                s.end = pos + 1;
                return s;
            }
            while (true) {
                SignatureItem item;
                item.type = type(pos);
                pos = attributesAndLocation(item.type.end, item);
                s.results.push_back(item);
                if (pos < text_.size() && text_[pos] == ',') {
                    pos = skipTrivia(pos + 1);
                    continue;
                }
                if (pos < text_.size() && text_[pos] == ')')
                    break;
                fail(pos, "expected ',' or ')' in the result list");
            }
            s.end = pos + 1;
        } else {
            SignatureItem item;
            item.type = type(pos);
            s.results.push_back(item);
            s.resultsParenthesised = false;
            s.end = item.type.end;
        }
        return s;
    }

    // The top-level entries of a dictionary `{a = 1, b}`, each trimmed.
    std::vector<Span> entries(Span dictionary) const {
        std::vector<Span> out;
        std::size_t pos = dictionary.begin + 1;
        const std::size_t close = dictionary.end - 1;
        std::size_t start = skipTrivia(pos);
        while (pos < close) {
            const char c = text_[pos];
            if (c == '"')
                pos = skipString(pos);
            else if (c == '(' || c == '[' || c == '{' || c == '<')
                pos = skipBracketed(pos);
            else if (c == '-' && pos + 1 < close && text_[pos + 1] == '>')
                pos += 2;
            else if (c == ',') {
                out.push_back(trimmed({start, pos}));
                start = skipTrivia(++pos);
            } else
                ++pos;
        }
        const Span last = trimmed({start, close});
        if (last.end > last.begin)
            out.push_back(last);
        return out;
    }

    Span trimmed(Span s) const {
        while (s.begin < s.end && std::isspace(static_cast<unsigned char>(text_[s.begin])))
            ++s.begin;
        while (s.end > s.begin && std::isspace(static_cast<unsigned char>(text_[s.end - 1])))
            --s.end;
        return s;
    }

    // An entry's key (quotes removed).
    std::string key(Span entry) const {
        std::size_t pos = entry.begin;
        if (pos < entry.end && text_[pos] == '"') {
            const std::size_t end = skipString(pos);
            return std::string(text_.substr(pos + 1, end - pos - 2));
        }
        while (pos < entry.end && isIdentifierChar(text_[pos]))
            ++pos;
        return std::string(text_.substr(entry.begin, pos - entry.begin));
    }

    int lineOf(std::size_t at) const {
        at = std::min(at, text_.size());
        return 1 + static_cast<int>(
                       std::count(text_.begin(), text_.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    }

private:
    std::string_view text_;
};

bool isShardingKey(const std::string& key) {
    return key == "sdy.sharding" || key == "mhlo.sharding";
}

// The edit that gives one argument or result `attribute` ("key = value").
Edit attributeEdit(const Scanner& scanner, const SignatureItem& item, const std::string& attribute) {
    const auto text = scanner.text();
    if (!item.attributes)
        return {item.type.end, item.type.end, " {" + attribute + "}"};
    std::string dictionary = "{";
    bool placed = false;
    for (const Span& entry : scanner.entries(*item.attributes)) {
        std::string piece;
        if (isShardingKey(scanner.key(entry))) {
            if (placed)
                continue;
            piece = attribute;
            placed = true;
        } else {
            piece = std::string(text.substr(entry.begin, entry.end - entry.begin));
        }
        dictionary += (dictionary.size() > 1 ? ", " : "") + piece;
    }
    if (!placed)
        dictionary += (dictionary.size() > 1 ? ", " : "") + attribute;
    return {item.attributes->begin, item.attributes->end, dictionary + "}"};
}

std::optional<std::size_t> entryFunction(const Scanner& scanner, const std::string& preferred,
                                         std::size_t& argumentsAt) {
    struct Function {
        std::string name;
        bool isPublic = true;
        std::size_t arguments = 0;
    };
    std::vector<Function> functions;
    const auto text = scanner.text();
    for (std::size_t at : scanner.find("func.func", -1)) {
        std::size_t pos = scanner.skipTrivia(at + 9);
        Function f;
        for (std::string_view visibility : {"public", "private", "nested"})
            if (text.compare(pos, visibility.size(), visibility) == 0 &&
                !isIdentifierChar(text[pos + visibility.size()])) {
                f.isPublic = visibility == "public";
                pos += visibility.size();
            }
        auto name = scanner.symbol(pos);
        if (!name)
            scanner.fail(pos, "expected the function's @name after func.func");
        pos = scanner.skipTrivia(pos);
        if (pos >= text.size() || text[pos] != '(')
            scanner.fail(pos, "expected '(' to open @" + *name + "'s arguments");
        f.name = *name;
        f.arguments = pos;
        functions.push_back(f);
    }
    for (const std::string& wanted : {preferred, std::string("main")})
        for (const auto& f : functions)
            if (f.name == wanted) {
                argumentsAt = f.arguments;
                return f.arguments;
            }
    std::vector<const Function*> publics;
    for (const auto& f : functions)
        if (f.isPublic)
            publics.push_back(&f);
    if (publics.size() == 1)
        return argumentsAt = publics.front()->arguments;
    if (functions.size() == 1)
        return argumentsAt = functions.front().arguments;
    return std::nullopt;
}

// The names of the module's sdy.mesh declarations, and where the first top-level op begins (where a new mesh
// declaration goes).
struct ModuleLayout {
    std::vector<std::pair<std::string, std::size_t>> meshes;  // name, position of `sdy.mesh`
    std::size_t bodyStart = 0;                                // where to insert a declaration line
    std::optional<Span> attributes;                           // the module's `attributes {...}`
};

ModuleLayout moduleLayout(const Scanner& scanner) {
    ModuleLayout layout;
    const auto text = scanner.text();
    for (std::size_t at : scanner.find("sdy.mesh", -1)) {
        std::size_t pos = at + 8;
        if (auto name = scanner.symbol(pos))
            layout.meshes.emplace_back(*name, at);
    }
    const auto modules = scanner.find("module", 0);
    if (modules.empty()) {
        const auto functions = scanner.find("func.func", 0);
        layout.bodyStart = functions.empty() ? 0 : functions.front();
        // Back to the start of the line, so the declaration takes a line of its own.
        while (layout.bodyStart > 0 && text[layout.bodyStart - 1] != '\n')
            --layout.bodyStart;
        return layout;
    }
    std::size_t pos = modules.front() + 6;
    scanner.symbol(pos);
    pos = scanner.skipTrivia(pos);
    if (text.compare(pos, 10, "attributes") == 0) {
        pos = scanner.skipTrivia(pos + 10);
        if (pos >= text.size() || text[pos] != '{')
            scanner.fail(pos, "expected '{' after the module's attributes");
        const std::size_t end = scanner.skipBracketed(pos);
        layout.attributes = Span{pos, end};
        pos = scanner.skipTrivia(end);
    }
    if (pos >= text.size() || text[pos] != '{')
        scanner.fail(pos, "expected '{' to open the module body");
    layout.bodyStart = pos + 1;
    while (layout.bodyStart < text.size() && text[layout.bodyStart] != '\n' &&
           std::isspace(static_cast<unsigned char>(text[layout.bodyStart])))
        ++layout.bodyStart;
    if (layout.bodyStart < text.size() && text[layout.bodyStart] == '\n')
        ++layout.bodyStart;
    return layout;
}

// `mhlo.num_partitions = N : i32` with N replaced by `devices`, if the module has the attribute.
std::optional<Edit> numPartitionsEdit(const Scanner& scanner, const ModuleLayout& layout,
                                      std::int64_t devices) {
    if (!layout.attributes)
        return std::nullopt;
    const auto text = scanner.text();
    for (const Span& entry : scanner.entries(*layout.attributes)) {
        if (scanner.key(entry) != "mhlo.num_partitions")
            continue;
        const std::size_t eq = text.find('=', entry.begin);
        if (eq == std::string_view::npos || eq >= entry.end)
            return std::nullopt;
        const std::size_t begin = scanner.skipTrivia(eq + 1);
        std::size_t end = begin;
        while (end < entry.end && std::isdigit(static_cast<unsigned char>(text[end])))
            ++end;
        if (end == begin)
            return std::nullopt;
        return Edit{begin, end, std::to_string(devices)};
    }
    return std::nullopt;
}

// One statement of a function body, as far as constraints need it.
struct Statement {
    std::size_t begin = 0;             // its first character (after the indentation)
    std::size_t lineStart = 0;         // the start of its first line
    std::size_t next = 0;              // the start of the line after it: where a new statement goes
    std::vector<std::string> results;  // "%5"; "%3#0", "%3#1" for `%3:2`; "%a", "%b" for `%a, %b`
    std::string opName;                // "stablehlo.add", "sdy.sharding_constraint", "return"
};

bool isTerminator(const std::string& opName) {
    return opName == "return" || opName == "func.return" || opName == "stablehlo.return" ||
           opName == "sdy.return";
}

// `%name` at pos (pos at '%'); returns the end.
std::size_t valueNameEnd(std::string_view text, std::size_t pos) {
    ++pos;
    while (pos < text.size() && isIdentifierChar(text[pos]))
        ++pos;
    return pos;
}

// The top-level statements of the body `body` (from its '{' to after its '}').
std::vector<Statement> statementsOf(const Scanner& scanner, Span body) {
    const auto text = scanner.text();
    const std::size_t close = body.end - 1;
    std::vector<Statement> out;
    // Does a new statement start at q (after a line break at depth 0)? Continuation lines (`cond {`, `do {`,
    // `: type`, `loc(...)`) do not.
    auto startsStatement = [&](std::size_t q) {
        if (q >= close)
            return true;
        const char c = text[q];
        if (c == '%' || c == '"' || c == '}' || c == '^')
            return true;
        std::size_t e = q;
        while (e < text.size() && isIdentifierChar(text[e]))
            ++e;
        const std::string_view word = text.substr(q, e - q);
        return word == "return" || word.find('.') != std::string_view::npos;
    };
    std::size_t pos = scanner.skipTrivia(body.begin + 1);
    while (pos < close) {
        Statement st;
        st.begin = pos;
        st.lineStart = pos;
        while (st.lineStart > 0 && text[st.lineStart - 1] != '\n')
            --st.lineStart;
        std::size_t p = pos;
        if (text[p] == '%') {
            std::vector<std::string> names;
            while (p < close && text[p] == '%') {
                const std::size_t end = valueNameEnd(text, p);
                const std::string name(text.substr(p, end - p));
                p = scanner.skipTrivia(end);
                std::size_t count = 1;
                bool packed = false;
                if (p < close && text[p] == ':') {
                    p = scanner.skipTrivia(p + 1);
                    std::size_t digits = p;
                    while (digits < close && std::isdigit(static_cast<unsigned char>(text[digits])))
                        ++digits;
                    if (digits > p) {
                        count = std::stoul(std::string(text.substr(p, digits - p)));
                        packed = true;
                    }
                    p = scanner.skipTrivia(digits);
                }
                for (std::size_t i = 0; i < count; ++i)
                    names.push_back(packed ? name + "#" + std::to_string(i) : name);
                if (p < close && text[p] == ',')
                    p = scanner.skipTrivia(p + 1);
            }
            if (p < close && text[p] == '=') {
                st.results = std::move(names);
                p = scanner.skipTrivia(p + 1);
            }
        }
        if (p < close && text[p] == '"') {
            const std::size_t end = scanner.skipString(p);
            st.opName = std::string(text.substr(p + 1, end - p - 2));
        } else {
            std::size_t e = p;
            while (e < close && isIdentifierChar(text[e]))
                ++e;
            st.opName = std::string(text.substr(p, e - p));
        }
        // The statement's end: a line break outside brackets that a new statement follows.
        int depth = 0;
        st.next = close;
        while (p < close) {
            const char c = text[p];
            if (c == '"') {
                p = scanner.skipString(p);
                continue;
            }
            if (c == '/' && text.compare(p, 2, "//") == 0) {
                while (p < close && text[p] != '\n')
                    ++p;
                continue;
            }
            if (c == '(' || c == '[' || c == '{')
                ++depth;
            else if (c == ')' || c == ']' || c == '}')
                --depth;
            else if (c == '\n' && depth <= 0 && startsStatement(scanner.skipTrivia(p + 1))) {
                st.next = p + 1;
                break;
            }
            ++p;
        }
        out.push_back(std::move(st));
        pos = scanner.skipTrivia(out.back().next);
    }
    return out;
}

// Can `statement` be the text of `op` (when matched by program order)?
bool sameOp(const Statement& statement, const ir::Op& op) {
    if (statement.results.size() != op.results.size())
        return false;
    if (op.kind == ir::OpKind::Opaque || op.kind == ir::OpKind::OtherElementwise ||
        op.kind == ir::OpKind::CustomCall)
        return true;
    std::string_view name = statement.opName;
    for (std::string_view prefix : {"stablehlo.", "mhlo."})
        if (name.substr(0, prefix.size()) == prefix)
            name.remove_prefix(prefix.size());
    return name == ir::mnemonic(op.kind) || (op.kind == ir::OpKind::DotGeneral && name == "dot");
}

// The bodies of the module's functions (from '{' to after '}'), in text order; declarations without a body
// are left out.
struct FunctionBody {
    std::size_t signatureAt = 0;  // the '(' of its argument list
    Span body;
};

std::vector<FunctionBody> functionBodies(const Scanner& scanner) {
    const auto text = scanner.text();
    std::vector<FunctionBody> out;
    for (std::size_t at : scanner.find("func.func", -1)) {
        std::size_t pos = scanner.skipTrivia(at + 9);
        for (std::string_view visibility : {"public", "private", "nested"})
            if (text.compare(pos, visibility.size(), visibility) == 0 &&
                !isIdentifierChar(text[pos + visibility.size()]))
                pos = scanner.skipTrivia(pos + visibility.size());
        if (!scanner.symbol(pos))
            continue;
        pos = scanner.skipTrivia(pos);
        if (pos >= text.size() || text[pos] != '(')
            continue;
        FunctionBody f;
        f.signatureAt = pos;
        try {
            pos = scanner.skipTrivia(scanner.signature(pos).end);
        } catch (const ScanError&) {
            continue;  // a declaration without argument names (`func.func private @f(tensor<4xf32>)`)
        }
        if (text.compare(pos, 10, "attributes") == 0) {
            pos = scanner.skipTrivia(pos + 10);
            if (pos < text.size() && text[pos] == '{')
                pos = scanner.skipTrivia(scanner.skipBracketed(pos));
        }
        if (pos >= text.size() || text[pos] != '{')
            continue;
        f.body = {pos, scanner.skipBracketed(pos)};
        out.push_back(f);
    }
    return out;
}

// The edits that write `constraints` into the module: one inserted statement per constrained result of a
// statement and the renamed uses after it in its function. The statement of a constrained value is found by
// its op's location (any function: an op inlined from a called function is constrained in that function,
// which all its calls share, so every inlined copy must be constrained alike) or, for ops from elsewhere, by
// program order in the entry function. Returns how many constraints were not written.
std::size_t constraintEdits(const Scanner& scanner, std::size_t entryAt, const std::string& fileName,
                            const ir::Graph& graph, const mesh::Mesh& mesh,
                            const std::vector<ValueSharding>& constraints, ShardingFormat format,
                            const std::string& meshName, std::vector<Edit>& edits) {
    if (constraints.empty())
        return 0;
    const auto text = scanner.text();
    const std::vector<FunctionBody> functions = functionBodies(scanner);
    std::vector<std::vector<Statement>> statements;
    statements.reserve(functions.size());
    for (const auto& f : functions)
        statements.push_back(statementsOf(scanner, f.body));
    const auto entry = std::find_if(functions.begin(), functions.end(),
                                    [&](const FunctionBody& f) { return f.signatureAt == entryAt; });
    if (entry == functions.end())
        return constraints.size();
    const std::size_t entryIndex = static_cast<std::size_t>(entry - functions.begin());

    // Where each statement is (line, column), as the importer records an op's location.
    using Where = std::pair<std::size_t, std::size_t>;  // function, statement
    std::vector<std::size_t> lineStarts{0};
    for (std::size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n')
            lineStarts.push_back(i + 1);
    std::map<std::pair<int, int>, Where> byPosition;
    std::map<int, std::vector<Where>> byLine;
    for (std::size_t f = 0; f < statements.size(); ++f)
        for (std::size_t i = 0; i < statements[f].size(); ++i) {
            const std::size_t at = statements[f][i].begin;
            const auto line = std::upper_bound(lineStarts.begin(), lineStarts.end(), at) - lineStarts.begin();
            const int column = static_cast<int>(at - lineStarts[static_cast<std::size_t>(line - 1)]) + 1;
            byPosition[{static_cast<int>(line), column}] = {f, i};
            byLine[static_cast<int>(line)].push_back({f, i});
        }
    // By program order, when the entry function's statements and the graph's top-level ops correspond one to
    // one.
    const auto& entryStatements = statements[entryIndex];
    std::vector<std::size_t> ordered;
    for (std::size_t i = 0; i < entryStatements.size(); ++i)
        if (!isTerminator(entryStatements[i].opName))
            ordered.push_back(i);
    bool inOrder = ordered.size() == graph.body.size();
    for (std::size_t i = 0; inOrder && i < ordered.size(); ++i)
        inOrder = sameOp(entryStatements[ordered[i]], graph.op(graph.body[i]));
    std::map<std::uint32_t, std::size_t> bodyIndex;  // OpId index -> position in graph.body
    for (std::size_t i = 0; i < graph.body.size(); ++i)
        bodyIndex[graph.body[i].index] = i;

    auto statementOf = [&](const ir::Op& op, ir::OpId id) -> std::optional<Where> {
        const SourceLocation& location = op.location;
        std::optional<Where> where;
        if (location.file == fileName && location.line > 0) {
            if (auto it = byPosition.find({location.line, location.column}); it != byPosition.end())
                where = it->second;
            else if (auto l = byLine.find(location.line);
                     location.column == 0 && l != byLine.end() && l->second.size() == 1)
                where = l->second.front();
        } else if (inOrder) {
            if (auto it = bodyIndex.find(id.index); it != bodyIndex.end())
                where = Where{entryIndex, ordered[it->second]};
        }
        if (where && statements[where->first][where->second].results.size() != op.results.size())
            where.reset();
        return where;
    };
    // How many top-level ops each statement stands for (a called function's statements, once per call).
    // The identity ops that sdy.manual_computation's in_shardings import as share its statement: not copies.
    std::map<Where, std::size_t> copies;
    for (const ir::OpId id : graph.body)
        if (auto where = statementOf(graph.op(id), id);
            where && !(isShardingCall(graph.op(id)) &&
                       statements[where->first][where->second].opName == "sdy.manual_computation"))
            ++copies[*where];

    // The constraints of each statement's results; a result is written when every copy of it is constrained,
    // and alike.
    std::map<std::pair<Where, std::uint32_t>, std::vector<const ValueSharding*>> wanted;
    std::size_t unplaced = 0;
    for (const ValueSharding& c : constraints) {
        const ir::Value& value = graph.value(c.value);
        std::optional<Where> where;
        if (value.producer.valid())
            where = statementOf(graph.op(value.producer), value.producer);
        if (!where) {
            ++unplaced;
            continue;
        }
        wanted[{*where, value.resultIndex}].push_back(&c);
    }

    // Every value name in the text, so that new names are unique.
    std::set<std::string> names;
    for (std::size_t p = 0; p < text.size(); ++p)
        if (text[p] == '%') {
            const std::size_t end = valueNameEnd(text, p);
            names.insert(std::string(text.substr(p, end - p)));
            p = end - 1;
        }

    struct Renaming {
        std::string to;
        std::size_t from;  // uses at or after this position are renamed
    };
    std::vector<std::map<std::string, Renaming>> renamings(functions.size());
    std::map<Where, std::string> inserted;  // the new lines after each statement
    for (const auto& [key, list] : wanted) {
        const auto& [where, resultIndex] = key;
        const auto& first = list.front()->sharding;  // clang 14 cannot capture a structured binding
        const bool alike = std::all_of(list.begin(), list.end(),
                                       [&first](const ValueSharding* c) { return c->sharding == first; });
        if (list.size() != copies[where] || !alike) {
            unplaced += list.size();
            continue;
        }
        const ValueSharding& c = *list.front();
        const Statement& st = statements[where.first][where.second];
        const std::string& old = st.results[resultIndex];
        std::string base = "%sharded_" + old.substr(1);
        std::replace(base.begin(), base.end(), '#', '_');
        std::string fresh = base;
        for (int n = 1; names.count(fresh) > 0; ++n)
            fresh = base + "_" + std::to_string(n);
        names.insert(fresh);
        renamings[where.first][old] = {fresh, st.next};

        const std::string type = graph.type(c.value).toString();
        const std::string indent(text.substr(st.lineStart, st.begin - st.lineStart));
        std::string line = indent + fresh + " = ";
        if (format == ShardingFormat::Shardy) {
            const std::string attribute = shardySharding(c.sharding, mesh, meshName);  // #sdy.sharding<...>
            line +=
                "sdy.sharding_constraint " + old + " " + attribute.substr(attribute.find('<')) + " : " + type;
        } else {
            line += "stablehlo.custom_call @Sharding(" + old + ") {mhlo.sharding = \"" +
                    gspmdSharding(c.sharding, graph.type(c.value).rank(), mesh) + "\"} : (" + type + ") -> " +
                    type;
        }
        std::string& lines = inserted[where];
        // A statement that shares its last line with the body's '}' gets a line break first.
        if (st.next == functions[where.first].body.end - 1 && lines.empty())
            lines += "\n";
        lines += line + "\n";
    }
    for (const auto& [where, lines] : inserted) {
        const std::size_t at = statements[where.first][where.second].next;
        edits.push_back({at, at, lines});
    }

    // Later uses take the constrained value: every `%name` token (outside strings and comments) to the end of
    // the function's body.
    for (std::size_t f = 0; f < functions.size(); ++f) {
        if (renamings[f].empty())
            continue;
        const Span body = functions[f].body;
        std::size_t first = body.end;
        for (const auto& [name, r] : renamings[f])
            first = std::min(first, r.from);
        for (std::size_t p = first; p < body.end;) {
            const char c = text[p];
            if (c == '"') {
                p = scanner.skipString(p);
                continue;
            }
            if (c == '/' && text.compare(p, 2, "//") == 0) {
                while (p < body.end && text[p] != '\n')
                    ++p;
                continue;
            }
            if (c != '%') {
                ++p;
                continue;
            }
            std::size_t end = valueNameEnd(text, p);
            std::string token(text.substr(p, end - p));
            if (end < body.end && text[end] == '#') {
                std::size_t digits = end + 1;
                while (digits < body.end && std::isdigit(static_cast<unsigned char>(text[digits])))
                    ++digits;
                if (digits > end + 1) {
                    token = std::string(text.substr(p, digits - p));
                    end = digits;
                }
            }
            if (auto it = renamings[f].find(token); it != renamings[f].end() && p >= it->second.from)
                edits.push_back({p, end, it->second.to});
            p = end;
        }
    }
    return unplaced;
}

}  // namespace

Result<std::string> exportStableHlo(std::string_view moduleText, const std::string& fileName,
                                    const ir::Graph& graph, const mesh::Mesh& mesh,
                                    const EntryShardings& shardings, ShardingFormat format) {
    const Scanner scanner(moduleText);
    auto error = [&](std::size_t at, const std::string& message) {
        return makeError("export.stablehlo", message, SourceLocation{fileName, scanner.lineOf(at), 0, {}});
    };
    if (shardings.arguments.size() != graph.arguments.size() ||
        shardings.results.size() != graph.outputs.size())
        return makeError(
            "export.stablehlo",
            "the shardings do not match the graph: " + std::to_string(shardings.arguments.size()) +
                " argument(s) and " + std::to_string(shardings.results.size()) + " result(s) for " +
                std::to_string(graph.arguments.size()) + " and " + std::to_string(graph.outputs.size()),
            SourceLocation{fileName, 0, 0, {}});
    try {
        std::size_t argumentsAt = 0;
        if (!entryFunction(scanner, graph.name, argumentsAt))
            return error(
                0, "no entry function: expected @" + graph.name + ", @main or a single public func.func");
        const Signature signature = scanner.signature(argumentsAt);
        if (signature.arguments.size() != shardings.arguments.size())
            return error(argumentsAt, "the entry function has " + std::to_string(signature.arguments.size()) +
                                          " argument(s), the plan " +
                                          std::to_string(shardings.arguments.size()));
        if (signature.results.size() != shardings.results.size())
            return error(argumentsAt, "the entry function has " + std::to_string(signature.results.size()) +
                                          " result(s), the plan " + std::to_string(shardings.results.size()));
        // A text other than the graph's source would put shardings on the wrong arguments: where the graph
        // knows its arguments' lines in this file, they must be where the text has them.
        for (std::size_t i = 0; i < graph.arguments.size(); ++i) {
            const auto& location = graph.arguments[i].location;
            if (location.file != fileName || location.line <= 0)
                continue;
            if (const int line = scanner.lineOf(signature.arguments[i].at); line != location.line)
                return error(signature.arguments[i].at,
                             "argument " + std::to_string(i) + " is on line " + std::to_string(line) +
                                 " here but on line " + std::to_string(location.line) +
                                 " in the graph: the text is not the one the graph was imported from");
        }
        const ModuleLayout layout = moduleLayout(scanner);
        std::vector<Edit> edits;
        std::string meshName = "mesh";
        if (format == ShardingFormat::Shardy) {
            std::set<std::string> taken;
            bool declared = false;
            for (const auto& [name, at] : layout.meshes)
                taken.insert(name);
            if (taken.count(meshName) > 0) {
                std::vector<std::pair<std::string, std::int64_t>> axes;
                for (const auto& a : mesh.axes)
                    axes.emplace_back(a.name, a.size);
                for (const auto& m : graph.meshes)
                    declared = declared || (m.name == meshName && m.axes == axes);
                for (int n = 1; !declared && taken.count(meshName) > 0; ++n)
                    meshName = "mesh_" + std::to_string(n);
            }
            if (!declared)
                edits.push_back(
                    {layout.bodyStart, layout.bodyStart, "  " + shardyMesh(mesh, meshName) + "\n"});
        }
        if (auto edit = numPartitionsEdit(scanner, layout, mesh.devices()))
            edits.push_back(*edit);
        auto attribute = [&](const plan::TensorSharding& sharding, ir::ValueId value) {
            if (format == ShardingFormat::Shardy)
                return "sdy.sharding = " + shardySharding(sharding, mesh, meshName);
            return "mhlo.sharding = \"" + gspmdSharding(sharding, graph.type(value).rank(), mesh) + "\"";
        };
        for (std::size_t i = 0; i < signature.arguments.size(); ++i)
            edits.push_back(attributeEdit(scanner, signature.arguments[i],
                                          attribute(shardings.arguments[i], graph.arguments[i].value)));
        const std::size_t unplaced = constraintEdits(scanner, argumentsAt, fileName, graph, mesh,
                                                     shardings.constraints, format, meshName, edits);
        for (std::size_t i = 0; i < signature.results.size(); ++i) {
            Edit edit = attributeEdit(scanner, signature.results[i],
                                      attribute(shardings.results[i], graph.outputs[i].value));
            if (!signature.resultsParenthesised) {
                const Span t = signature.results[i].type;
                edit = {
                    t.begin, t.end,
                    "(" + std::string(moduleText.substr(t.begin, t.end - t.begin)) + edit.replacement + ")"};
            }
            edits.push_back(std::move(edit));
        }
        std::stable_sort(edits.begin(), edits.end(),
                         [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
        std::string out(moduleText);
        for (const auto& e : edits)
            out.replace(e.begin, e.end - e.begin, e.replacement);
        Result<std::string> result(std::move(out));
        if (unplaced > 0)
            result.addDiagnostics({makeWarning(
                "export.constraint",
                std::to_string(unplaced) + " of " + std::to_string(shardings.constraints.size()) +
                    " sharding constraint(s) not written: their ops are not statements of the entry function "
                    "(inlined from a called function, or the text is not the graph's source)",
                SourceLocation{fileName, 0, 0, {}})});
        return result;
    } catch (const ScanError& e) {
        return error(e.at, e.message);
    }
}

}  // namespace shardscope::exporting
