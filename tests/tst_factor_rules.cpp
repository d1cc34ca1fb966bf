// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Per-op factor rules (docs/design.md, "Factor rules"): Shardy's notation and its parser, equivalence up to
// renaming, the conformance of every rule with Shardy's own expectations
// (../shared/conformance/shardy_op_sharding_rules.mlir), rules of ops the importer cannot read yet (built by
// hand), and every op of the shared models and the zoo.
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QtTest>
#include <map>
#include <random>
#include <set>
#include <variant>

#include "test_paths.h"
#include "test_support.h"

#include "shardscope/analysis/factor_rule.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/session/model_source.h"
#include "shardscope/train/training_step.h"
#include "shardscope/zoo/zoo.h"

using namespace shardscope;
using namespace shardscope::analysis;
using ir::OpKind;

namespace {

const QString kSharedDir = shardscope::testing::sharedDir();

FactorRule parsed(std::string_view text) {
    auto rule = parseFactorRule(text);
    if (!rule)
        qFatal("%s", rule.errorMessage().c_str());
    return std::move(rule).value();
}

// A dimension's factors multiply to its size, except a single non-pass-through mismatch factor
// (factor_rule.h); every factor appears somewhere. Written independently of verifyFactorRule. Returns "" when
// consistent.
std::string consistencyProblem(const FactorRule& rule, const ir::Graph& g, const ir::Op& op) {
    if (rule.operands.size() != op.operands.size() || rule.results.size() != op.results.size())
        return "tensor count";
    std::vector<int> uses(rule.factors.size(), 0);
    auto check = [&](const TensorFactors& tensor, const ir::TensorType& type) -> std::string {
        if (tensor.size() != type.shape.size())
            return "rank of " + type.toString();
        for (std::size_t d = 0; d < tensor.size(); ++d) {
            if (tensor[d].empty())
                return "empty dimension";
            double product = 1;
            for (int f : tensor[d]) {
                if (f < 0 || f >= static_cast<int>(rule.factors.size()))
                    return "factor out of range";
                ++uses[static_cast<std::size_t>(f)];
                product *= static_cast<double>(rule.factors[static_cast<std::size_t>(f)].size);
            }
            const bool mismatch =
                tensor[d].size() == 1 &&
                rule.factors[static_cast<std::size_t>(tensor[d][0])].kind != FactorKind::PassThrough;
            if (product != static_cast<double>(type.shape[d]) && !mismatch)
                return "dimension " + std::to_string(d) + " of " + type.toString();
        }
        return {};
    };
    for (std::size_t t = 0; t < op.operands.size(); ++t)
        if (auto p = check(rule.operands[t], g.type(op.operands[t])); !p.empty())
            return "operand " + std::to_string(t) + ": " + p;
    for (std::size_t t = 0; t < op.results.size(); ++t)
        if (auto p = check(rule.results[t], g.type(op.results[t])); !p.empty())
            return "result " + std::to_string(t) + ": " + p;
    for (std::size_t f = 0; f < uses.size(); ++f)
        if (uses[f] == 0)
            return "factor " + std::to_string(f) + " unused";
    return {};
}

// Whether `rule` is the opaque rule: no factor shared by two dimensions, every factor larger than 1 cut.
bool looksOpaque(const FactorRule& rule) {
    std::vector<int> uses(rule.factors.size(), 0);
    for (const auto* list : {&rule.operands, &rule.results})
        for (const auto& tensor : *list)
            for (const auto& dim : tensor)
                for (int f : dim)
                    ++uses[static_cast<std::size_t>(f)];
    bool sized = false;
    for (std::size_t f = 0; f < rule.factors.size(); ++f) {
        if (uses[f] > 1 || (rule.factors[f].size > 1 && rule.factors[f].kind != FactorKind::NeedReplication))
            return false;
        sized = sized || rule.factors[f].size > 1;
    }
    return sized;
}

// ----- the conformance file -----

struct OracleCase {
    std::string function;
    int checkLine = 0;     // 1-based line of the CHECK
    std::string expected;  // "#sdy.op_sharding_rule<...>" as written
    std::string text;      // the file with every other function blanked (lines keep their numbers)
};

std::vector<OracleCase> readOracle(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QStringList lines = QString::fromUtf8(file.readAll()).split('\n');
    std::vector<int> starts;
    for (int i = 0; i < lines.size(); ++i)
        if (lines[i].contains("func.func"))
            starts.push_back(i);
    static const QRegularExpression name(R"(func\.func\s+(?:public\s+|private\s+)?@([\w.$-]+))");
    std::vector<OracleCase> cases;
    for (std::size_t k = 0; k < starts.size(); ++k) {
        const int begin = starts[k];
        const int end = k + 1 < starts.size() ? starts[k + 1] : static_cast<int>(lines.size());
        // Whole-line comments are blanked: the CHECK lines are not MLIR, and some hold an unbalanced '}' that
        // the importer's brace matching would take for the end of the function (reported as an importer gap).
        QStringList own;
        for (int i = 0; i < lines.size(); ++i)
            own << (i >= begin && i < end && !lines[i].trimmed().startsWith("//") ? lines[i] : QString());
        const std::string text = own.join('\n').toStdString();
        const std::string function = name.match(lines[begin]).captured(1).toStdString();
        for (int i = begin; i < end; ++i) {
            const int at = static_cast<int>(lines[i].indexOf("#sdy.op_sharding_rule<"));
            if (!lines[i].contains("CHECK:") || at < 0)
                continue;
            cases.push_back({function, i + 1, lines[i].mid(at).trimmed().toStdString(), text});
        }
    }
    return cases;
}

// Cases where our rule differs from Shardy's, each with the reason. `importerGap`: our importer cannot give
// the rule what it needs (the rule itself is checked on a hand-built op in handBuiltOps()).
struct KnownDifference {
    const char* function;
    const char* reason;
    bool importerGap;
};
const KnownDifference kKnownDifferences[] = {
    {"triangular_solve_left_side_transpose",
     "importer gap: triangular_solve keeps neither left_side nor transpose_a; the rule reads left_side from "
     "the "
     "shapes and assumes NO_TRANSPOSE, which swaps the roles of a's two dimensions here",
     true},
    {"unregisterd_custom_call_with_existing_rule",
     "deliberate: the importer drops a custom call's own sdy.sharding_rule attribute, and an unknown target "
     "gets "
     "the opaque rule (every dimension its own need-replication factor) instead of Shardy's `custom` rule",
     false},
};

const KnownDifference* knownDifference(const std::string& function) {
    for (const auto& k : kKnownDifferences)
        if (function == k.function)
            return &k;
    return nullptr;
}

}  // namespace

class TestFactorRules : public QObject {
    Q_OBJECT

private slots:
    void printsShardyNotation();
    void parsesShardyNotation_data();
    void parsesShardyNotation();
    void rejectsMalformedNotation_data();
    void rejectsMalformedNotation();
    void equivalenceIsUpToRenaming();
    void verifiesRules();
    void conformsToShardy();
    void handBuiltOps();
    void neighboursDecideSomeKinds();
    void everyOpOfTheSharedModels();
    void everyOpOfTheZoo();
    void malformedOpsNeverCrash();
};

void TestFactorRules::printsShardyNotation() {
    // Matmul: letters in index order, sizes, one kind list.
    FactorRule matmul;
    matmul.factors = {{8, FactorKind::PassThrough, false},
                      {16, FactorKind::PassThrough, false},
                      {32, FactorKind::Reduction, false}};
    matmul.operands = {{{0}, {2}}, {{2}, {1}}};
    matmul.results = {{{0}, {1}}};
    QCOMPARE(matmul.toString(), std::string("([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}"));

    // Compound factors of a reshape, major to minor.
    FactorRule reshape;
    reshape.factors = {{2, FactorKind::PassThrough, false},
                       {4, FactorKind::PassThrough, false},
                       {4, FactorKind::PassThrough, false},
                       {5, FactorKind::PassThrough, false}};
    reshape.operands = {{{0, 1}, {2}, {3}}};
    reshape.results = {{{0}, {1, 2}, {3}}};
    QCOMPARE(reshape.toString(), std::string("([ij, k, l])->([i, jk, l]) {i=2, j=4, k=4, l=5}"));

    // Scalars, and a rule without factors at all.
    FactorRule scalar;
    scalar.operands = {{}, {}};
    scalar.results = {{}};
    QCOMPARE(scalar.toString(), std::string("([], [])->([])"));
    FactorRule reduceToScalar;
    reduceToScalar.factors = {{32, FactorKind::Reduction, false}};
    reduceToScalar.operands = {{{0}}, {}};
    reduceToScalar.results = {{}};
    QCOMPARE(reduceToScalar.toString(), std::string("([i], [])->([]) {i=32} reduction={i}"));

    // Every kind list, in Shardy's order whatever the factor order, blocked factors of any kind, then custom.
    FactorRule kinds;
    kinds.factors = {{2, FactorKind::Permutation, true},
                     {3, FactorKind::NeedReplication, false},
                     {5, FactorKind::Reduction, false},
                     {7, FactorKind::PassThrough, true},
                     {11, FactorKind::NeedReplication, true}};
    kinds.operands = {{{0}, {1}, {2}, {3}, {4}}};
    kinds.results = {{{0}, {3}}};
    kinds.custom = true;
    QCOMPARE(kinds.toString(),
             std::string("([i, j, k, l, m])->([i, l]) {i=2, j=3, k=5, l=7, m=11} reduction={k} "
                         "need_replication={j, m} permutation={i} blocked_propagation={i, l, m}, custom"));

    // After z come z_1, z_2, ...
    FactorRule many;
    many.operands = {{}};
    many.results = {{}};
    for (int f = 0; f < 20; ++f) {
        many.factors.push_back({1, FactorKind::PassThrough, false});
        many.operands[0].push_back({f});
    }
    many.results[0] = {{17, 18, 19}};
    QCOMPARE(many.toString(),
             std::string(
                 "([i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, z_1, z_2])->([zz_1z_2]) {i=1, j=1, "
                 "k=1, l=1, m=1, n=1, o=1, p=1, q=1, r=1, s=1, t=1, u=1, v=1, w=1, x=1, y=1, z=1, z_1=1, "
                 "z_2=1}"));
}

void TestFactorRules::parsesShardyNotation_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("matmul") << "([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}";
    QTest::newRow("compound") << "([ij, k, l])->([i, jk, l]) {i=2, j=4, k=4, l=5}";
    QTest::newRow("scalars") << "([], [])->([])";
    QTest::newRow("no operands") << "()->([i, j]) {i=2, j=3}";
    QTest::newRow("all kinds")
        << "([i, j, k, l, m])->([i, l]) {i=2, j=3, k=5, l=7, m=11} reduction={k} "
           "need_replication={j, m} permutation={i} blocked_propagation={i, l, m}, custom";
    QTest::newRow("z_n")
        << "([i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, z_1, z_2])->([zz_1z_2]) {i=1, "
           "j=1, k=1, l=1, m=1, n=1, o=1, p=1, q=1, r=1, s=1, t=1, u=1, v=1, w=1, x=1, y=1, z=1, "
           "z_1=1, z_2=1}";
}

void TestFactorRules::parsesShardyNotation() {
    QFETCH(QString, text);
    const std::string plain = text.toStdString();
    // Round trip through toString, with and without the attribute wrapper.
    QCOMPARE(parsed(plain).toString(), plain);
    QCOMPARE(parsed("#sdy.op_sharding_rule<" + plain + ">").toString(), plain);
    // As a CHECK line holds it: trailing text after the closing '>' is left alone.
    QCOMPARE(parsed("#sdy.op_sharding_rule<" + plain + ">}").toString(), plain);
}

void TestFactorRules::rejectsMalformedNotation_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("no arrow") << "([i])([i]) {i=2}"
                              << "expected '->'";
    QTest::newRow("factor without a size") << "([i, j])->([i]) {i=2}"
                                           << "a size for factor j";
    QTest::newRow("gap in the sizes") << "([i, k])->([i]) {i=2, k=3}"
                                      << "a size for factor j";
    QTest::newRow("not a factor letter") << "([a])->([a]) {a=2}"
                                         << "a factor name";
    QTest::newRow("two kinds") << "([i])->([]) {i=2} reduction={i} permutation={i}"
                               << "one kind list only";
    QTest::newRow("unknown factor in a list") << "([i])->([]) {i=2} reduction={j}"
                                              << "a factor that has a size";
    QTest::newRow("trailing text") << "([i])->([i]) {i=2} garbage"
                                   << "the end of the rule";
    QTest::newRow("unclosed tensor") << "([i)->([i]) {i=2}"
                                     << "']'";
}

void TestFactorRules::rejectsMalformedNotation() {
    QFETCH(QString, text);
    QFETCH(QString, message);
    auto rule = parseFactorRule(text.toStdString());
    QVERIFY(!rule.ok());
    QVERIFY2(QString::fromStdString(rule.errorMessage()).contains(message), rule.errorMessage().c_str());
    QVERIFY2(QString::fromStdString(rule.errorMessage()).contains("column"), rule.errorMessage().c_str());
}

void TestFactorRules::equivalenceIsUpToRenaming() {
    const FactorRule matmul = parsed("([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}");
    QVERIFY(equivalent(matmul, matmul));
    // Renamed letters, hence another factor order.
    QVERIFY(equivalent(matmul, parsed("([k, j], [j, i])->([k, i]) {i=16, j=32, k=8} reduction={j}")));
    QVERIFY(equivalent(parsed("([ij, k])->([i, jk]) {i=2, j=4, k=4}"),
                       parsed("([kj, i])->([k, ji]) {i=4, j=4, k=2}")));
    QVERIFY(equivalent(parsed("([], [])->([])"), parsed("([], [])->([])")));

    // Not equivalent: a size, a kind, blocking, custom, the structure, the order inside a dimension.
    QVERIFY(!equivalent(matmul, parsed("([i, k], [k, j])->([i, j]) {i=8, j=16, k=64} reduction={k}")));
    QVERIFY(!equivalent(matmul, parsed("([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} need_replication={k}")));
    QVERIFY(!equivalent(matmul, parsed("([i, k], [k, j])->([i, j]) {i=8, j=16, k=32}")));
    QVERIFY(!equivalent(matmul, parsed("([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k} "
                                       "blocked_propagation={k}")));
    QVERIFY(
        !equivalent(matmul, parsed("([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}, custom")));
    QVERIFY(
        !equivalent(matmul, parsed("([i, k], [l, j])->([i, j]) {i=8, j=16, k=32, l=32} reduction={k, l}")));
    QVERIFY(!equivalent(matmul, parsed("([i, k], [k, j])->([j, i]) {i=8, j=16, k=32} reduction={k}")));
    QVERIFY(!equivalent(parsed("([ij])->([i, j]) {i=2, j=4}"), parsed("([ji])->([i, j]) {i=2, j=4}")));
    QVERIFY(!equivalent(matmul, parsed("([i, k], [k, j])->([i, j], [i]) {i=8, j=16, k=32} reduction={k}")));
    // Two factors in one vs one factor in two places.
    QVERIFY(!equivalent(parsed("([i], [i])->([i]) {i=2}"), parsed("([i], [j])->([i]) {i=2, j=2}")));
}

void TestFactorRules::verifiesRules() {
    auto g = import::importStableHlo(R"(
func.func @main(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
)",
                                     "verify.mlir");
    QVERIFY2(g.ok(), g.errorMessage().c_str());
    const ir::Op& dot = g->op(g->body.front());
    QVERIFY(verifyFactorRule(factorRule(*g, dot), *g, dot).ok());
    auto problem = [&](const char* text) { return verifyFactorRule(parsed(text), *g, dot).errorMessage(); };
    QVERIFY(problem("([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}").empty());
    QVERIFY(QString::fromStdString(problem("([i, k], [k, j])->([i, j]) {i=8, j=16, k=16}"))
                .contains("operand 0 dimension 1 (size 32) is not the product of its factors"));
    QVERIFY(QString::fromStdString(problem("([i, k], [k, j])->([i, j]) {i=8, j=16, k=32, l=2}"))
                .contains("factor l appears in no tensor"));
    QVERIFY(QString::fromStdString(problem("([i, k], [k, j])->([i]) {i=8, j=16, k=32}"))
                .contains("result 0 has 1 dimension"));
    QVERIFY(QString::fromStdString(problem("([i, k])->([i, j]) {i=8, j=16, k=32}"))
                .contains("1 operand and 1 result mappings"));
    QVERIFY(QString::fromStdString(problem("([ii, k], [k, j])->([i, j]) {i=8, j=16, k=32}"))
                .contains("appears twice"));
    // A mismatch factor: one non-pass-through factor of another size (as for slice, pad, concatenate, ...).
    QVERIFY(problem("([i, k], [k, j])->([i, j]) {i=8, j=16, k=64} permutation={k}").empty());
    QVERIFY(!problem("([i, k], [k, j])->([i, j]) {i=8, j=16, k=64}").empty());
}

void TestFactorRules::conformsToShardy() {
    const QString path = kSharedDir + "/conformance/shardy_op_sharding_rules.mlir";
    if (!QFile::exists(path))
        QSKIP("the shared conformance file is not beside the clone");
    const auto cases = readOracle(path);
    QVERIFY(cases.size() >= 80);

    struct Outcome {
        const OracleCase* c;
        bool passed;
        std::string actual;
    };
    std::vector<Outcome> outcomes;
    for (const OracleCase& c : cases) {
        auto expected = parseFactorRule(c.expected);
        QVERIFY2(expected.ok(), (c.function + ": " + expected.errorMessage()).c_str());
        Outcome o{&c, false, {}};
        auto g = import::importStableHlo(c.text, "shardy_op_sharding_rules.mlir");
        if (!g) {
            o.actual = "import error: " + g.errorMessage();
        } else {
            // The op the CHECK refers to: the first top-level op after the CHECK line.
            const ir::Op* op = nullptr;
            for (ir::OpId id : g->body) {
                const ir::Op& candidate = g->op(id);
                if (candidate.location.line > c.checkLine &&
                    (!op || candidate.location.line < op->location.line))
                    op = &candidate;
            }
            if (!op) {
                o.actual = "no op after the CHECK line";
            } else {
                const FactorRule rule = factorRule(*g, *op);
                o.actual = rule.toString();
                o.passed = equivalent(rule, *expected);
                QVERIFY2(consistencyProblem(rule, *g, *op).empty(), c.function.c_str());
            }
        }
        outcomes.push_back(std::move(o));
    }

    int passed = 0, importerGaps = 0;
    std::vector<std::string> unexplained;
    for (const Outcome& o : outcomes) {
        const KnownDifference* known = knownDifference(o.c->function);
        passed += o.passed;
        if (!o.passed && known && known->importerGap)
            ++importerGaps;
        if (o.passed) {
            qInfo("PASS  %s: %s", o.c->function.c_str(), o.actual.c_str());
        } else {
            qInfo("%s  %s (line %d)\n        expected: %s\n        actual:   %s%s%s",
                  known ? "KNOWN" : "FAIL ", o.c->function.c_str(), o.c->checkLine, o.c->expected.c_str(),
                  o.actual.c_str(), known ? "\n        reason:   " : "", known ? known->reason : "");
            if (!known)
                unexplained.push_back(o.c->function);
        }
    }
    const int total = static_cast<int>(outcomes.size());
    const double rate = double(passed) / total;
    const double rulesRate = double(passed) / (total - importerGaps);
    qInfo(
        "conformance: %d of %d cases pass (%.1f%%); %d fail for importer gaps; %.1f%% of the cases the "
        "importer "
        "can give the rule",
        passed, total, 100 * rate, importerGaps, 100 * rulesRate);

    // Every failure is explained...
    QVERIFY2(unexplained.empty(), ("unexplained failures: " +
                                   [&] {
                                       std::string s;
                                       for (const auto& f : unexplained)
                                           s += f + " ";
                                       return s;
                                   }())
                                      .c_str());
    // ...and every explained difference still happens (when one is fixed, remove it from kKnownDifferences).
    for (const Outcome& o : outcomes) {
        const KnownDifference* known = knownDifference(o.c->function);
        if (!known)
            continue;
        QEXPECT_FAIL("", (o.c->function + ": " + known->reason).c_str(), Continue);
        QVERIFY2(o.passed, (o.c->function + " now passes: remove it from kKnownDifferences").c_str());
    }
    QVERIFY2(rulesRate >= 0.95, "the rules themselves must match Shardy in at least 95% of the cases");
    if (rate < 0.95 && double(passed + importerGaps) / total >= 0.95)
        QEXPECT_FAIL("", "below 95% only because of the importer gaps listed in kKnownDifferences", Continue);
    QVERIFY2(rate >= 0.95, QByteArray::number(100 * rate, 'f', 1) + "% of the conformance cases pass");
}

// Ops the importer cannot read yet, built by hand with the attributes a fixed importer would give, checked
// against the conformance file's expectations; and the ops Shardy has no rule for.
void TestFactorRules::handBuiltOps() {
    using ir::ElementType;
    using ir::TensorType;
    auto ruleOf = [](OpKind kind, const std::vector<TensorType>& operands,
                     const std::vector<TensorType>& results,
                     ir::OpAttributes attributes = ir::NoAttributes{}) {
        ir::Graph g;
        std::vector<ir::ValueId> values;
        for (const auto& t : operands)
            values.push_back(g.addValue(t));
        const ir::OpId id = g.addOp(kind, values, results, std::move(attributes));
        g.body.push_back(id);
        const FactorRule rule = factorRule(g, g.op(id));
        if (const auto p = consistencyProblem(rule, g, g.op(id)); !p.empty())
            qWarning("inconsistent: %s", p.c_str());
        return rule;
    };
    auto expectRule = [](const FactorRule& actual, const char* expected) {
        if (!equivalent(actual, parsed(expected)))
            qWarning("expected %s\n  actual %s", expected, actual.toString().c_str());
        return equivalent(actual, parsed(expected));
    };
    const TensorType f32{{2, 4, 8, 8}, ElementType::F32};
    QVERIFY(expectRule(ruleOf(OpKind::Cholesky, {f32}, {f32}),
                       "([i, j, k, l])->([i, j, k, l]) {i=2, j=4, k=8, l=8} need_replication={k, l}"));

    const TensorType c64{{8, 32, 64}, ElementType::C64}, real{{8, 32, 64}, ElementType::F32};
    const TensorType truncated{{8, 32, 33}, ElementType::C64};
    using Lengths = ir::DimensionsAttribute;
    QVERIFY(expectRule(ruleOf(OpKind::Fft, {c64}, {c64}, Lengths{{32, 64}}),
                       "([i, j, k])->([i, j, k]) {i=8, j=32, k=64} need_replication={j, k}"));
    QVERIFY(expectRule(
        ruleOf(OpKind::Fft, {real}, {truncated}, Lengths{{32, 64}}),
        "([i, j, k])->([i, j, k]) {i=8, j=32, k=64} need_replication={j, k} blocked_propagation={k}"));
    QVERIFY(expectRule(ruleOf(OpKind::Fft, {c64}, {c64}, Lengths{{64}}),
                       "([i, j, k])->([i, j, k]) {i=8, j=32, k=64} need_replication={k}"));
    QVERIFY(expectRule(
        ruleOf(OpKind::Fft, {truncated}, {real}, Lengths{{64}}),
        "([i, j, k])->([i, j, k]) {i=8, j=32, k=33} need_replication={k} blocked_propagation={k}"));
    // Without fft_length (what the importer gives today) one transformed dimension is assumed.
    QVERIFY(expectRule(ruleOf(OpKind::Fft, {c64}, {c64}),
                       "([i, j, k])->([i, j, k]) {i=8, j=32, k=64} need_replication={k}"));

    // triangular_solve: left_side from the shapes (transpose_a is not in the IR: NO_TRANSPOSE).
    QVERIFY(
        expectRule(ruleOf(OpKind::TriangularSolve, {{{8, 3, 3}}, {{8, 5, 3}}}, {{{8, 5, 3}}}),
                   "([i, l, k], [i, j, k])->([i, j, l]) {i=8, j=5, k=3, l=3} need_replication={j, k, l}"));
    QVERIFY(
        expectRule(ruleOf(OpKind::TriangularSolve, {{{8, 3, 3}}, {{8, 3, 5}}}, {{{8, 3, 5}}}),
                   "([i, j, l], [i, j, k])->([i, l, k]) {i=8, j=3, k=5, l=3} need_replication={j, k, l}"));

    // Batch norm: the feature dimension is found from the scale's size when the IR has no feature_index.
    const TensorType x{{4, 8, 16, 32}}, v{{16}};
    QVERIFY(expectRule(ruleOf(OpKind::BatchNormTraining, {x, v, v}, {x, v, v}),
                       "([i, j, k, l], [k], [k])->([i, j, k, l], [k], [k]) {i=4, j=8, k=16, l=32}"));
    QVERIFY(expectRule(
        ruleOf(OpKind::BatchNormGrad, {x, v, v, v, x}, {x, v, v}),
        "([i, j, k, l], [k], [k], [k], [i, j, k, l])->([i, j, k, l], [k], [k]) {i=4, j=8, k=16, l=32}"));
    QVERIFY(expectRule(ruleOf(OpKind::BatchNormInference, {x, v, v, v, v}, {x}, ir::DimensionAttribute{2}),
                       "([i, j, k, l], [k], [k], [k], [k])->([i, j, k, l]) {i=4, j=8, k=16, l=32}"));

    // Ops Shardy gives no rule: free results, operand i tied to result i, opaque.
    QVERIFY(expectRule(ruleOf(OpKind::Iota, {}, {{{4, 8}, ElementType::I32}}, ir::DimensionAttribute{1}),
                       "()->([i, j]) {i=4, j=8}"));
    QVERIFY(expectRule(ruleOf(OpKind::Constant, {}, {{{3}}}, ir::ConstantAttributes{{1, 2, 3}}),
                       "()->([i]) {i=3}"));
    QVERIFY(expectRule(ruleOf(OpKind::OptimizationBarrier, {{{4, 8}}, {{2}}}, {{{4, 8}}, {{2}}}),
                       "([i, j], [k])->([i, j], [k]) {i=4, j=8, k=2}"));
    QVERIFY(expectRule(ruleOf(OpKind::While, {{{}, ElementType::I32}, {{4, 8}}},
                              {{{}, ElementType::I32}, {{4, 8}}}, ir::LoopAttributes{}),
                       "([], [i, j])->([], [i, j]) {i=4, j=8}"));
    QVERIFY(expectRule(ruleOf(OpKind::Opaque, {{{4, 1}}}, {{{2, 3}}}, ir::OpaqueAttributes{"mhlo.foo"}),
                       "([i, j])->([k, l]) {i=4, j=1, k=2, l=3} need_replication={i, k, l}"));
    QVERIFY(
        expectRule(ruleOf(OpKind::Opaque, {{{16, 8}}}, {{{16, 2}}, {{16, 2}, ElementType::I32}},
                          ir::OpaqueAttributes{"chlo.top_k"}),
                   "([i, j])->([i, j], [i, j]) {i=16, j=8} need_replication={j} blocked_propagation={j}"));
    QVERIFY(expectRule(
        ruleOf(OpKind::CustomCall, {{{8, 4}}}, {{{8, 4}}}, ir::CustomCallAttributes{"Sharding", ""}),
        "([i, j])->([i, j]) {i=8, j=4}"));
    QVERIFY(expectRule(
        ruleOf(OpKind::CustomCall, {{{8, 4}}}, {{{8, 4}}}, ir::CustomCallAttributes{"tpu_custom_call", ""}),
        "([i, j])->([k, l]) {i=8, j=4, k=8, l=4} need_replication={i, j, k, l}"));
    QVERIFY(
        expectRule(ruleOf(OpKind::CustomCall, {{{8, 4}}}, {{{8, 1}}},
                          ir::CustomCallAttributes{"SPMDFullToShardShape", ""}),
                   "([i, j])->([i, k]) {i=8, j=4, k=1} need_replication={j, k} blocked_propagation={j, k}"));
    QVERIFY(expectRule(ruleOf(OpKind::Reverse, {{{4, 8}}}, {{{4, 8}}}, ir::DimensionsAttribute{{1}}),
                       "([i, j])->([i, j]) {i=4, j=8} permutation={j}"));
    QVERIFY(expectRule(
        ruleOf(OpKind::Pad, {{{4, 8}}, {{}}}, {{{4, 10}}}, ir::PadAttributes{{0, 1}, {0, 1}, {0, 0}}),
        "([i, j], [])->([i, j]) {i=4, j=8} permutation={j}"));
    QVERIFY(
        expectRule(ruleOf(OpKind::DynamicSlice, {{{4, 8}}, {{}, ElementType::I32}, {{}, ElementType::I32}},
                          {{{4, 2}}}, ir::DynamicSliceAttributes{{4, 2}}),
                   "([i, j], [], [])->([i, j]) {i=4, j=8} need_replication={j} blocked_propagation={j}"));
    QVERIFY(expectRule(ruleOf(OpKind::AllReduce, {{{4, 8}}}, {{{4, 8}}}, ir::CollectiveAttributes{}),
                       "([i, j])->([i, j]) {i=4, j=8}"));
    // A convolution whose kernel spatial dimension no window factor reaches (3x3, stride 1):
    // need-replication.
    ir::ConvolutionAttributes conv = ir::ConvolutionAttributes::channelsLast(1);
    QVERIFY(expectRule(ruleOf(OpKind::Convolution, {{{2, 56, 16}}, {{3, 16, 32}}}, {{{2, 54, 32}}}, conv),
                       "([i, j, k], [m, k, l])->([i, j, l]) {i=2, j=54, k=16, l=32, m=3} reduction={k} "
                       "need_replication={m} permutation={j}"));
    // Attributes that do not fit the types: the opaque rule, never a crash.
    QVERIFY(expectRule(ruleOf(OpKind::Transpose, {{{4, 8}}}, {{{8, 4}}}, ir::Permutation{{0, 7}}),
                       "([i, j])->([k, l]) {i=4, j=8, k=8, l=4} need_replication={i, j, k, l}"));
    QVERIFY(expectRule(ruleOf(OpKind::Transpose, {{{4, 8}}}, {{{8, 4}}}),
                       "([i, j])->([k, l]) {i=4, j=8, k=8, l=4} need_replication={i, j, k, l}"));
}

// Kinds Shardy decides from an op's neighbours: the producers of a concatenate's operands, constant indices
// of a dynamic_update_slice, an X64Combine feeding an rng_bit_generator, a scatter's combiner.
void TestFactorRules::neighboursDecideSomeKinds() {
    auto ruleOfLast = [](const char* body) {
        auto g = import::importStableHlo(body, "neighbours.mlir");
        if (!g)
            qFatal("%s", g.errorMessage().c_str());
        const ir::Op& op = g->op(g->body.back());
        return factorRule(*g, op);
    };
    // concat(slice(x), slice(y)): permutation; concat(x, y): need replication.
    QVERIFY(equivalent(ruleOfLast(R"(
func.func @main(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = stablehlo.slice %x [0:4, 0:4] : (tensor<4x8xf32>) -> tensor<4x4xf32>
  %1 = stablehlo.slice %y [0:4, 4:8] : (tensor<4x8xf32>) -> tensor<4x4xf32>
  %2 = stablehlo.concatenate %0, %1, dim = 1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
})"),
                       parsed("([i, j], [i, j])->([i, j]) {i=4, j=8} permutation={j}")));
    QVERIFY(equivalent(ruleOfLast(R"(
func.func @main(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<8x8xf32> {
  %0 = stablehlo.concatenate %x, %y, dim = 0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
})"),
                       parsed("([i, j], [i, j])->([i, j]) {i=8, j=8} need_replication={i}")));
    // X64Combine not feeding an rng_bit_generator: pointwise.
    QVERIFY(equivalent(ruleOfLast(R"(
func.func @main(%a: tensor<2xui32>, %b: tensor<2xui32>) -> tensor<2xui64> {
  %0 = stablehlo.custom_call @X64Combine(%a, %b) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui64>
  return %0 : tensor<2xui64>
})"),
                       parsed("([i], [i])->([i]) {i=2}")));
    // A scatter that overwrites (no combiner): its index-batch dimensions need replication.
    QVERIFY(equivalent(
        ruleOfLast(R"(
func.func @main(%x: tensor<8x4xf32>, %i: tensor<3x1xi32>, %u: tensor<3x4xf32>) -> tensor<8x4xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
    ^bb0(%old: tensor<f32>, %new: tensor<f32>):
      stablehlo.return %new : tensor<f32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0],
                                                   scatter_dims_to_operand_dims = [0], index_vector_dim = 1>
  } : (tensor<8x4xf32>, tensor<3x1xi32>, tensor<3x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
})"),
        parsed("([k, j], [i, l], [i, j])->([k, j]) {i=3, j=4, k=8, l=1} need_replication={i, l}")));
}

void TestFactorRules::everyOpOfTheSharedModels() {
    QDir stablehlo(kSharedDir + "/models/stablehlo"), onnx(kSharedDir + "/models/onnx");
    if (!stablehlo.exists() && !onnx.exists())
        QSKIP("the shared models are not beside the clone");
    QStringList files;
    for (const QString& f : stablehlo.entryList({"*.mlir"}, QDir::Files, QDir::Name))
        files << stablehlo.filePath(f);
    for (const QString& f : onnx.entryList({"*.onnx"}, QDir::Files, QDir::Name))
        files << onnx.filePath(f);
    QVERIFY(!files.isEmpty());
    for (const QString& file : files) {
        auto model = loadModel(file.toStdString());
        if (!model) {
            qWarning("%s does not load (not this test's concern): %s", qPrintable(file),
                     model.errorMessage().c_str());
            continue;
        }
        const ir::Graph& g = model->graph;
        std::map<std::string, int> opaque;  // ops of a modelled kind that got the opaque rule
        int ops = 0;
        for (ir::OpId id : g.allOpsInOrder()) {
            const ir::Op& op = g.op(id);
            const FactorRule rule = factorRule(g, op);
            const auto problem = consistencyProblem(rule, g, op);
            QVERIFY2(problem.empty(),
                     (file.toStdString() + ": " + std::string(ir::mnemonic(op.kind)) + " at line " +
                      std::to_string(op.location.line) + ": " + problem + " in " + rule.toString())
                         .c_str());
            QVERIFY2(verifyFactorRule(rule, g, op).ok(),
                     verifyFactorRule(rule, g, op).errorMessage().c_str());
            ++ops;
            if (op.kind != OpKind::Opaque && looksOpaque(rule))
                ++opaque[std::string(ir::mnemonic(op.kind))];
        }
        std::string summary;
        for (const auto& [kind, n] : opaque)
            summary += " " + kind + "×" + std::to_string(n);
        qInfo("%s: %d ops%s%s", qPrintable(QFileInfo(file).fileName()), ops,
              summary.empty() ? "" : "; with the opaque rule:", summary.c_str());
    }
}

void TestFactorRules::everyOpOfTheZoo() {
    std::vector<std::string> names;
    for (const auto& family : zoo::families()) {
        const bool layered = std::any_of(family.options.begin(), family.options.end(),
                                         [](const zoo::OptionSpec& o) { return o.key == "layers"; });
        names.push_back(family.name + (layered ? ":layers=2" : ""));
    }
    for (const std::string& name : names) {
        auto spec = zoo::parseModelSpec(name);
        QVERIFY2(spec.ok(), spec.errorMessage().c_str());
        auto forward = zoo::build(*spec);
        QVERIFY2(forward.ok(), forward.errorMessage().c_str());
        std::vector<std::pair<std::string, ir::Graph>> graphs{{name, *forward}};
        if (auto step = train::buildTrainingStep(*forward))
            graphs.emplace_back(name + " (training step)", step->graph);
        for (const auto& [label, g] : graphs) {
            std::set<std::string> kinds;
            for (ir::OpId id : g.allOpsInOrder()) {
                const ir::Op& op = g.op(id);
                const FactorRule rule = factorRule(g, op);
                const auto problem = consistencyProblem(rule, g, op);
                QVERIFY2(problem.empty(), (label + ": " + std::string(ir::mnemonic(op.kind)) + ": " +
                                           problem + " in " + rule.toString())
                                              .c_str());
                kinds.insert(std::string(ir::mnemonic(op.kind)));
            }
            qInfo("%s: %zu ops of %zu kinds", label.c_str(), g.allOpsInOrder().size(), kinds.size());
        }
    }
}

// Ops whose attributes or types do not fit together (as a buggy importer or transformation could make them):
// the rule is the opaque one or another consistent rule, never a crash. Seeded, so failures reproduce.
void TestFactorRules::malformedOpsNeverCrash() {
    std::mt19937 random(20261130);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
    auto mutateDims = [&](ir::Dims& dims) {
        switch (pick(0, 3)) {
            case 0:
                dims.push_back(pick(-2, 6));
                break;
            case 1:
                if (!dims.empty())
                    dims.pop_back();
                break;
            default:
                if (!dims.empty())
                    dims[static_cast<std::size_t>(pick(0, static_cast<int>(dims.size()) - 1))] = pick(-2, 6);
        }
    };
    auto mutate = [&](ir::OpAttributes& attributes) {
        std::visit(
            [&](auto& a) {
                using T = std::decay_t<decltype(a)>;
                if constexpr (std::is_same_v<T, ir::DotDimensions>) {
                    mutateDims(pick(0, 1) ? a.lhsContracting : a.rhsBatching);
                } else if constexpr (std::is_same_v<T, ir::BroadcastDimensions>) {
                    mutateDims(a.dims);
                } else if constexpr (std::is_same_v<T, ir::Permutation>) {
                    mutateDims(a.permutation);
                } else if constexpr (std::is_same_v<T, ir::ReduceAttributes> ||
                                     std::is_same_v<T, ir::DimensionsAttribute>) {
                    mutateDims(a.dimensions);
                } else if constexpr (std::is_same_v<T, ir::WindowAttributes>) {
                    mutateDims(pick(0, 1) ? a.windowDimensions : a.windowStrides);
                } else if constexpr (std::is_same_v<T, ir::ConvolutionAttributes>) {
                    if (pick(0, 1))
                        mutateDims(a.inputSpatial);
                    else
                        a.kernelOutputFeature = pick(-2, 6);
                    if (!pick(0, 3))
                        a.featureGroupCount = pick(0, 3);
                } else if constexpr (std::is_same_v<T, ir::DimensionAttribute>) {
                    a.dimension = pick(-2, 6);
                } else if constexpr (std::is_same_v<T, ir::GatherAttributes>) {
                    mutateDims(pick(0, 1) ? a.offsetDims : a.collapsedSliceDims);
                    if (!pick(0, 3))
                        a.indexVectorDim = pick(-2, 6);
                } else if constexpr (std::is_same_v<T, ir::ScatterAttributes>) {
                    mutateDims(pick(0, 1) ? a.updateWindowDims : a.insertedWindowDims);
                    if (!pick(0, 3))
                        a.indexVectorDim = pick(-2, 6);
                } else if constexpr (std::is_same_v<T, ir::SortAttributes>) {
                    a.dimension = pick(-6, 6);
                } else if constexpr (std::is_same_v<T, ir::CollectiveAttributes>) {
                    a.dimension = pick(-2, 6);
                }
            },
            attributes);
    };
    std::vector<ir::Graph> graphs;
    for (const char* name :
         {"gpt:layers=1,d_model=64,heads=4,seq=16,vocab=128,batch=2",
          "moe:layers=1,d_model=64,heads=4,seq=16,vocab=128,batch=2", "unet:image=32,base=8,depth=2"}) {
        auto forward = zoo::build(*zoo::parseModelSpec(name));
        QVERIFY2(forward.ok(), forward.errorMessage().c_str());
        auto step = train::buildTrainingStep(*forward);
        graphs.push_back(step ? step->graph : *forward);
    }
    int checked = 0;
    for (ir::Graph& g : graphs) {
        std::map<OpKind, int> perKind;
        for (ir::OpId id : g.allOpsInOrder()) {
            if (perKind[g.op(id).kind]++ >= 3)
                continue;
            for (int trial = 0; trial < 20; ++trial) {
                ir::Op& op = g.op(id);
                const ir::OpAttributes savedAttributes = op.attributes;
                std::vector<ir::ValueId> touched(op.operands);
                touched.insert(touched.end(), op.results.begin(), op.results.end());
                std::vector<ir::TensorType> savedTypes;
                for (auto v : touched)
                    savedTypes.push_back(g.type(v));
                switch (pick(0, 3)) {
                    case 0:
                        op.attributes = ir::NoAttributes{};
                        break;
                    case 1: {
                        ir::Shape& shape = g.value(touched[static_cast<std::size_t>(
                                                       pick(0, static_cast<int>(touched.size()) - 1))])
                                               .type.shape;
                        if (pick(0, 1) || shape.empty())
                            shape.push_back(pick(0, 5));
                        else
                            shape[static_cast<std::size_t>(pick(0, static_cast<int>(shape.size()) - 1))] =
                                pick(0, 7);
                        break;
                    }
                    default:
                        mutate(op.attributes);
                }
                const FactorRule rule = factorRule(g, op);
                QVERIFY2(verifyFactorRule(rule, g, op).ok(),
                         (std::string(ir::mnemonic(op.kind)) + ": " + rule.toString()).c_str());
                op.attributes = savedAttributes;
                for (std::size_t k = 0; k < touched.size(); ++k)
                    g.value(touched[k]).type = savedTypes[k];
                ++checked;
            }
        }
    }
    QVERIFY(checked > 500);
}

QTEST_GUILESS_MAIN(TestFactorRules)
#include "tst_factor_rules.moc"
