// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The static analysis: atoms, names, labels, groups and conflicts on small graphs with known answers, the zoo
// GPT (the names of the issue, group count independent of depth, attention's repeated sequence name),
// training steps, and the shared real models.
#include <QDir>
#include <QtTest>
#include <algorithm>
#include <set>

#include "test_paths.h"
#include "test_support.h"

#include "shardscope/analysis/decision_space.h"
#include "shardscope/ir/builder.h"
#include "shardscope/session/model_source.h"
#include "shardscope/train/training_step.h"
#include "shardscope/zoo/zoo.h"

using namespace shardscope;
using namespace shardscope::ir;
using namespace shardscope::analysis;

namespace {

Graph zooGraph(const std::string& model) {
    auto g = zoo::build(*zoo::parseModelSpec(model));
    if (!g)
        qFatal("%s", g.errorMessage().c_str());
    return std::move(g).value();
}

std::set<std::string> labels(const DecisionSpace& s) {
    std::set<std::string> out;
    for (const auto& n : s.names)
        out.insert(n.label);
    return out;
}

const Name* named(const DecisionSpace& s, const std::string& label) {
    for (const auto& n : s.names)
        if (n.label == label)
            return &n;
    return nullptr;
}

const Argument& argument(const Graph& g, const std::string& name) {
    for (const auto& a : g.arguments)
        if (a.name == name)
            return a;
    qFatal("no argument %s", name.c_str());
    return g.arguments.front();
}

}  // namespace

class TestAnalysis : public QObject {
    Q_OBJECT
private slots:
    // docs/design.md, "Worked examples"'s MLP: names B, D and F. Nothing ties the width of the output y =
    // h·W2 to that of the input x (there is no residual), so the analysis rightly keeps them apart: W2's
    // output width is a name of its own.
    void mlpHasBatchModelAndHidden() {
        const Graph g = zooGraph("mlp:layers=1,d_model=16,d_ff=32,batch=8");
        const auto s = analyze(g);
        QCOMPARE(labels(s),
                 (std::set<std::string>{"batch", "d_model", "layers.0.d_ff", "layers.0.w2.d_model"}));
        const auto& w1 = argument(g, "layers.0.w1.weight");
        QCOMPARE(s.name(s.namesOf(w1.value, 0).at(0)).label, std::string("d_model"));
        QCOMPARE(s.name(s.namesOf(w1.value, 1).at(0)).label, std::string("layers.0.d_ff"));
        QCOMPARE(named(s, "batch")->size, std::int64_t{8});
        QVERIFY(s.conflicts.empty());
        QCOMPARE(s.groups.size(), std::size_t{4});
        // With a second layer, layer 0's output width is layer 1's input width.
        const auto two = analyze(zooGraph("mlp:layers=2,d_model=16,d_ff=32,batch=8"));
        QCOMPARE(labels(two), (std::set<std::string>{"batch", "d_model", "d_model#2", "layers.0.d_ff",
                                                     "layers.1.d_ff", "layers.1.w2.d_model"}));
    }

    // A reshape splits a dimension into atoms that become names of their own.
    void reshapeRefinesAtoms() {
        GraphBuilder b("r");
        ValueId x = b.parameter("x", {6, 4}, ElementType::F32, {"rows", "cols"});
        ValueId y = b.reshape(x, {2, 3, 4});
        b.output(b.unary(OpKind::Negate, y), "y");
        auto g = std::move(b).finish();
        QVERIFY(g.ok());
        const auto s = analyze(*g);
        QCOMPARE(s.dimensionAtoms[g->arguments[0].value.index][0].size(), std::size_t{2});
        QCOMPARE(s.namesOf(g->arguments[0].value, 0).size(), std::size_t{2});
        std::vector<std::int64_t> sizes;
        for (const auto& n : s.names)
            sizes.push_back(n.size);
        std::sort(sizes.begin(), sizes.end());
        QCOMPARE(sizes, (std::vector<std::int64_t>{2, 3, 4}));
        // The reshape result's first two dimensions are the same names as the parameter's two atoms.
        const Op& reshape = g->op(g->body[0]);
        QCOMPARE(s.namesOf(reshape.results[0], 0),
                 (std::vector<NameId>{s.namesOf(g->arguments[0].value, 0)[0]}));
        QCOMPARE(s.namesOf(reshape.results[0], 1),
                 (std::vector<NameId>{s.namesOf(g->arguments[0].value, 0)[1]}));
    }

    // The zoo GPT: batch, sequence, d_model, heads, head_dim and d_ff per layer, vocab.
    void gptNames() {
        const Graph g = zooGraph("gpt:layers=3,d_model=64,heads=4,d_ff=96,seq=16,batch=2,vocab=100");
        const auto s = analyze(g);
        const auto all = labels(s);
        for (const char* expected :
             {"batch", "seq", "d_model", "vocab", "layers.0.attn.heads", "layers.0.attn.head_dim",
              "layers.2.attn.heads", "layers.0.mlp.d_ff", "layers.1.mlp.d_ff", "layers.2.mlp.d_ff"})
            QVERIFY2(all.count(expected), expected);
        QCOMPARE(named(s, "batch")->size, std::int64_t{2});
        QCOMPARE(named(s, "seq")->size, std::int64_t{16});
        QCOMPARE(named(s, "d_model")->size, std::int64_t{64});
        QCOMPARE(named(s, "vocab")->size, std::int64_t{100});
        QCOMPARE(named(s, "layers.1.attn.heads")->size, std::int64_t{4});
        QCOMPARE(named(s, "layers.1.attn.head_dim")->size, std::int64_t{16});
        QCOMPARE(named(s, "layers.1.mlp.d_ff")->size, std::int64_t{96});
        // The layers' copies of a role share a group.
        QCOMPARE(named(s, "layers.0.mlp.d_ff")->group, named(s, "layers.2.mlp.d_ff")->group);
        QVERIFY(named(s, "layers.0.mlp.d_ff")->group != named(s, "d_model")->group);
        QCOMPARE(s.group(named(s, "layers.0.mlp.d_ff")->group).label, std::string("layers.*.mlp.d_ff"));
    }

    // A 12-layer model has as many decision groups as a 2-layer one.
    void groupCountDoesNotGrowWithDepth() {
        auto groups = [](int layers, bool train) {
            Graph g = zooGraph("gpt:layers=" + std::to_string(layers) +
                               ",d_model=64,heads=4,seq=16,batch=2,vocab=100");
            if (train)
                g = train::buildTrainingStep(g)->graph;
            return analyze(g).groups.size();
        };
        QCOMPARE(groups(12, false), groups(2, false));
        QCOMPARE(groups(12, true), groups(2, true));
        qInfo("gpt forward: %zu groups at 2 and 12 layers; training step: %zu", groups(2, false),
              groups(2, true));
    }

    // Attention scores carry the sequence name twice: a repeated-name conflict at the scores of every layer.
    void attentionRepeatsTheSequenceName() {
        const Graph g = zooGraph("gpt:layers=2,d_model=64,heads=4,seq=16,batch=2,vocab=100");
        const auto s = analyze(g);
        const Conflict* seq = nullptr;
        for (const auto& c : s.conflicts)
            if (c.kind == ConflictKind::RepeatedName && s.name(c.name).label == "seq")
                seq = &c;
        QVERIFY(seq);
        std::set<std::string> sites;
        for (const auto& site : seq->sites)
            if (site.op.valid())
                sites.insert(g.op(site.op).location.name);
        QVERIFY(sites.count("layers.0.attn.scores"));
        QVERIFY(sites.count("layers.1.attn.scores"));
        QVERIFY(seq->options.size() >= 2);
    }

    void splittingAGroupDecidesLayersSeparately() {
        const Graph g = zooGraph("gpt:layers=3,d_model=64,heads=4,seq=16,batch=2,vocab=100");
        auto s = analyze(g);
        const GroupId ff = named(s, "layers.0.mlp.d_ff")->group;
        QCOMPARE(s.group(ff).names.size(), std::size_t{3});
        const std::size_t before = s.groups.size();
        const auto created = s.splitGroup(ff);
        QCOMPARE(created.size(), std::size_t{2});
        QCOMPARE(s.groups.size(), before + 2);
        QVERIFY(named(s, "layers.0.mlp.d_ff")->group != named(s, "layers.1.mlp.d_ff")->group);
        QCOMPARE(s.group(named(s, "layers.2.mlp.d_ff")->group).names.size(), std::size_t{1});
    }

    // Gradients and optimizer states take the names of their parameters.
    void trainingStepNames() {
        const Graph forward = zooGraph("gpt:layers=2,d_model=64,heads=4,seq=16,batch=2,vocab=100");
        train::OptimizerOptions o;
        auto step = train::buildTrainingStep(forward, o);
        QVERIFY(step.ok());
        const auto s = analyze(step->graph);
        const auto& w = argument(step->graph, "layers.1.mlp.fc.weight");
        const auto& m = argument(step->graph, "adam.m.layers.1.mlp.fc.weight");
        QCOMPARE(s.namesOf(m.value, 1), s.namesOf(w.value, 1));
        QCOMPARE(s.name(s.namesOf(w.value, 1).at(0)).label, std::string("layers.1.mlp.d_ff"));
        QVERIFY(labels(s).count("batch"));
    }

    // Slice, pad and concatenate tie a piece to the minor span of the dimension it is cut from or placed in
    // only when the piece is aligned (its offset a multiple of its size, its size dividing the dimension).
    void alignedPiecesTie() {
        GraphBuilder b("pieces");
        const ValueId x = b.parameter("x", {12, 3}, ElementType::F32);
        const ValueId p = b.parameter("p", {4, 3}, ElementType::F32);
        const ValueId q = b.parameter("q", {4, 3}, ElementType::F32);
        const ValueId u = b.parameter("u", {4, 3}, ElementType::F32);
        const ValueId v = b.parameter("v", {8, 3}, ElementType::F32);
        const ValueId zero = b.scalar(0, ElementType::F32);
        const ValueId aligned = b.slice(x, {4, 0}, {8, 3});
        const ValueId unaligned = b.slice(x, {2, 0}, {6, 3});
        const ValueId strided = b.slice(x, {0, 0}, {8, 3}, {2, 1});
        const ValueId padded = b.pad(p, zero, {4, 0}, {4, 0});
        const ValueId shifted = b.pad(q, zero, {2, 0}, {6, 0});
        const ValueId joined = b.concatenate({u, v}, 0);
        int k = 0;
        for (ValueId out : {aligned, unaligned, strided, padded, shifted, joined})
            b.output(b.unary(OpKind::Negate, out), "y" + std::to_string(k++));
        auto g = std::move(b).finish();
        QVERIFY2(g.ok(), g.errorMessage().c_str());
        const auto s = analyze(*g);
        auto contains = [](const std::vector<NameId>& names, NameId n) {
            return std::find(names.begin(), names.end(), n) != names.end();
        };
        // x's 12 is [3, 4]: the aligned slice [4:8] is its minor 4; [2:6] and a strided slice tie nothing.
        const auto xNames = s.namesOf(x, 0);
        QCOMPARE(xNames.size(), std::size_t{2});
        QCOMPARE(s.namesOf(aligned, 0), (std::vector<NameId>{xNames.back()}));
        QCOMPARE(s.namesOf(unaligned, 0).size(), std::size_t{1});
        QVERIFY(!contains(xNames, s.namesOf(unaligned, 0).front()));
        QVERIFY(!contains(xNames, s.namesOf(strided, 0).front()));
        // Pad: 4 elements at offset 4 of 12 are the minor 4; at offset 2 they tie nothing.
        QCOMPARE(s.namesOf(padded, 0).size(), std::size_t{2});
        QCOMPARE(s.namesOf(p, 0), (std::vector<NameId>{s.namesOf(padded, 0).back()}));
        QVERIFY(!contains(s.namesOf(shifted, 0), s.namesOf(q, 0).front()));
        // Concatenate: u (4 at offset 0 of 12) is the minor 4; v (8 at offset 4) does not divide 12.
        QCOMPARE(s.namesOf(u, 0), (std::vector<NameId>{s.namesOf(joined, 0).back()}));
        QVERIFY(!contains(s.namesOf(joined, 0), s.namesOf(v, 0).front()));
        // The other dimension passes through every op.
        QCOMPARE(s.namesOf(joined, 1), s.namesOf(u, 1));
    }

    // A fused projection split into three aligned pieces (a transformer's QKV) and its VJP (pads): the
    // training step has the forward's groups; so does a concatenation of unaligned pieces and its VJP
    // (slices).
    void piecesKeepTheForwardGroups() {
        for (bool fused : {true, false}) {
            GraphBuilder b("pieces");
            const ValueId x = b.input("x", {8, 16}, ElementType::F32);
            ValueId y;
            if (fused) {
                const ValueId w = b.parameter("w", {16, 48}, ElementType::F32);
                const ValueId h = b.einsum("bd,df->bf", x, w);
                const ValueId q = b.slice(h, {0, 0}, {8, 16});
                const ValueId k = b.slice(h, {0, 16}, {8, 32});
                const ValueId v = b.slice(h, {0, 32}, {8, 48});
                y = b.add(b.multiply(q, k), v);
            } else {
                const ValueId w1 = b.parameter("w1", {16, 4}, ElementType::F32);
                const ValueId w2 = b.parameter("w2", {16, 6}, ElementType::F32);
                const ValueId w3 = b.parameter("w3", {16, 2}, ElementType::F32);
                const ValueId h = b.concatenate({b.einsum("bd,df->bf", x, w1), b.einsum("bd,df->bf", x, w2),
                                                 b.einsum("bd,df->bf", x, w3)},
                                                1);
                const ValueId w4 = b.parameter("w4", {12, 16}, ElementType::F32);
                y = b.einsum("bf,fd->bd", h, w4);
            }
            b.output(y, "y");
            auto g = std::move(b).finish();
            QVERIFY2(g.ok(), g.errorMessage().c_str());
            auto step = train::buildTrainingStep(*g);
            QVERIFY2(step.ok(), step.errorMessage().c_str());
            QCOMPARE(analyze(step->graph).groups.size(), analyze(*g).groups.size());
        }
    }

    // Every shared real model analyses, and the analysis finds names in each.
    void sharedModels_data() {
        QTest::addColumn<QString>("path");
        const QDir root(shardscope::testing::sharedDir() + QStringLiteral("/models"));
        if (!root.exists())
            QTest::newRow("absent") << QString();
        for (const char* sub : {"stablehlo", "onnx"}) {
            const QDir dir(root.filePath(sub));
            for (const QString& name : dir.entryList({"*.mlir", "*.onnx"}, QDir::Files, QDir::Name))
                QTest::newRow(qPrintable(name)) << dir.filePath(name);
        }
    }
    void sharedModels() {
        QFETCH(QString, path);
        if (path.isEmpty())
            QSKIP("../shared/models is absent (a user's clone has no ../shared)");
        auto model = loadModel(path.toStdString());
        QVERIFY2(model.ok(), model.errorMessage().c_str());
        const auto s = analyze(model->graph);
        QVERIFY(!s.names.empty());
        QVERIFY(s.groups.size() <= s.names.size());
        for (const auto& n : s.names) {
            QVERIFY(n.size > 1);
            QVERIFY(!n.atoms.empty());
            for (AtomId a : n.atoms)
                QCOMPARE(s.atom(a).size, n.size);
        }
        qInfo("%s: %zu ops, %zu names, %zu groups, %zu conflicts", qPrintable(path.section('/', -1)),
              model->graph.body.size(), s.names.size(), s.groups.size(), s.conflicts.size());
    }
};

QTEST_APPLESS_MAIN(TestAnalysis)
#include "tst_analysis.moc"
