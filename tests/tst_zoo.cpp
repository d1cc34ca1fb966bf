// The model zoo: every preset matches its published parameter count, every family builds a verified graph
// whose structure scales as the options say, and bad options are refused with a reason.
#include <QtTest>

#include "test_support.h"
#include <cmath>
#include <set>

#include "shardscope/ir/statistics.h"
#include "shardscope/ir/verifier.h"
#include "shardscope/model_source.h"
#include "shardscope/zoo/zoo.h"

using namespace shardscope;
using namespace shardscope::ir;

namespace {

Graph buildModel(const std::string& name) {
    auto spec = zoo::parseModelSpec(name);
    if (!spec) qFatal("%s", spec.errorMessage().c_str());
    auto graph = zoo::build(*spec);
    if (!graph) qFatal("%s", graph.errorMessage().c_str());
    return std::move(graph).value();
}

const Argument* parameterNamed(const Graph& g, const std::string& name) {
    for (const auto& a : g.arguments)
        if (a.name == name) return &a;
    return nullptr;
}

std::vector<const Op*> opsLabelled(const Graph& g, OpKind kind, const std::string& suffix) {
    std::vector<const Op*> out;
    for (OpId id : g.body) {
        const Op& op = g.op(id);
        const auto& n = op.location.name;
        if (op.kind == kind && n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
            out.push_back(&op);
    }
    return out;
}

}  // namespace

class TestZoo : public QObject {
    Q_OBJECT
private slots:
    void presetsMatchPublishedParameterCounts_data() {
        QTest::addColumn<QString>("preset");
        for (const auto& p : zoo::presets()) QTest::newRow(p.name.c_str()) << QString::fromStdString(p.name);
    }
    void presetsMatchPublishedParameterCounts() {
        QFETCH(QString, preset);
        const zoo::Preset* p = nullptr;
        for (const auto& candidate : zoo::presets())
            if (candidate.name == preset.toStdString()) p = &candidate;
        QVERIFY(p);
        const Graph g = buildModel(p->name);
        QVERIFY(verifyGraph(g).ok());
        const double count = static_cast<double>(computeStatistics(g).parameterCount);
        if (p->publishedParameters == 0) {
            QCOMPARE(p->name, std::string("demo"));  // only the demo has no published figure
            return;
        }
        QVERIFY2(!p->source.empty(), "a published figure needs its source");
        const double error = std::abs(count - p->publishedParameters) / p->publishedParameters;
        qInfo("%-14s %16.0f parameters, published %.4g (%s): %+.3f%%", p->name.c_str(), count, p->publishedParameters,
              p->source.c_str(), 100.0 * (count - p->publishedParameters) / p->publishedParameters);
        QVERIFY2(error <= 0.01, qPrintable(QString("off by %1%").arg(100 * error)));
    }

    // Exact counts from the architectures, pinned so a change to a block shows up.
    void exactParameterCounts() {
        QCOMPARE(computeStatistics(buildModel("gpt2-small")).parameterCount, std::int64_t{124439808});
        QCOMPARE(computeStatistics(buildModel("llama3-8b")).parameterCount, std::int64_t{8030261248});
        QCOMPARE(computeStatistics(buildModel("mixtral-8x7b")).parameterCount, std::int64_t{46702792704});
        QCOMPARE(computeStatistics(buildModel("vit-b16")).parameterCount, std::int64_t{86567656});
        QCOMPARE(computeStatistics(buildModel("unet")).parameterCount, std::int64_t{31030658});
    }

    void everyFamilyBuildsWithDefaults_data() {
        QTest::addColumn<QString>("family");
        for (const auto& f : zoo::families()) QTest::newRow(f.name.c_str()) << QString::fromStdString(f.name);
    }
    void everyFamilyBuildsWithDefaults() {
        QFETCH(QString, family);
        const Graph g = buildModel(family.toStdString());
        QVERIFY(verifyGraph(g).ok());
        QVERIFY(!g.outputs.empty());
        std::set<std::string> names;
        for (const auto& a : g.arguments) {
            QVERIFY(!a.name.empty());
            QVERIFY2(names.insert(a.name).second, a.name.c_str());
        }
        for (OpId id : g.body) QVERIFY2(!g.op(id).location.name.empty(), "every op has a label");
    }

    void parametersAreNamedByModulePath() {
        const Graph g = buildModel("gpt:layers=3,d_model=64,heads=4,seq=16,vocab=100");
        const Argument* q = parameterNamed(g, "layers.2.attn.q_proj.weight");
        QVERIFY(q);
        QVERIFY(q->role == ArgumentRole::Parameter);
        QCOMPARE(g.type(q->value).shape, (Shape{64, 64}));
        QVERIFY(parameterNamed(g, "layers.0.mlp.fc.weight"));
        QCOMPARE(g.type(parameterNamed(g, "layers.0.mlp.fc.weight")->value).shape, (Shape{64, 256}));
        const Argument* tokens = parameterNamed(g, "tokens");
        QVERIFY(tokens);
        QVERIFY(tokens->role == ArgumentRole::Input);
        QCOMPARE(tokens->dimensionLabels, (std::vector<std::string>{"batch", "seq"}));
        QCOMPARE(g.type(g.outputs[0].value).shape, (Shape{8, 16, 100}));
    }

    // One decoder layer adds the same ops every time: the graph grows linearly with depth.
    void decoderGrowsLinearlyWithDepth() {
        auto ops = [](int layers) {
            return static_cast<std::int64_t>(buildModel("llama:layers=" + std::to_string(layers) + ",d_model=64,heads=4,kv_heads=2,d_ff=128,seq=8,vocab=32").body.size());
        };
        const auto one = ops(1), two = ops(2), five = ops(5);
        QCOMPARE(five - two, 3 * (two - one));
    }

    // Forward FLOPs of a dense GPT: 2·tokens·(matmul weights) + the attention products 4·B·S²·D per layer.
    void gptForwardFlops() {
        const std::int64_t L = 4, D = 128, S = 64, B = 2, V = 500, F = 4 * D;
        const Graph g = buildModel("gpt:layers=4,d_model=128,heads=4,seq=64,batch=2,vocab=500,dtype=f32");
        double matmul = 0;
        for (OpId id : g.body)
            if (g.op(id).kind == OpKind::DotGeneral) matmul += flopsOf(g, g.op(id));
        const double tokens = static_cast<double>(B * S);
        const double weights = static_cast<double>(L * (4 * D * D + 2 * D * F) + V * D);
        const double attention = static_cast<double>(L * 4 * B * S * S * D);
        QCOMPARE(matmul, 2 * tokens * weights + attention);
        const double total = computeStatistics(g).flops;
        QVERIFY(total > matmul && total < 1.1 * matmul);  // elementwise work is a small addition
    }

    void groupedQueryAttentionShapes() {
        const Graph g = buildModel("llama:layers=1,d_model=256,heads=8,kv_heads=2,d_ff=512,seq=16,vocab=64");
        QCOMPARE(g.type(parameterNamed(g, "layers.0.attn.q_proj.weight")->value).shape, (Shape{256, 256}));
        QCOMPARE(g.type(parameterNamed(g, "layers.0.attn.k_proj.weight")->value).shape, (Shape{256, 64}));
        QCOMPARE(g.type(parameterNamed(g, "layers.0.mlp.gate_proj.weight")->value).shape, (Shape{256, 512}));
        auto scores = opsLabelled(g, OpKind::Transpose, "attn.scores");
        QCOMPARE(scores.size(), std::size_t{1});
        // [batch, kv_heads, group, seq, seq]
        QCOMPARE(g.type(scores.front()->results[0]).shape, (Shape{1, 2, 4, 16, 16}));
        QVERIFY(!parameterNamed(g, "pos_embed.weight"));  // rotary, not learned, positions
        QVERIFY(parameterNamed(g, "lm_head.weight"));     // untied
    }

    // GShard dispatch and combine: [G, S, E, C] masks, expert capacity C = ceil(k·S·factor / E).
    void mixtureOfExpertsDispatchAndCombine() {
        const std::int64_t G = 2, S = 32, E = 4, k = 2, D = 64, F = 96;
        const Graph g = buildModel("moe:layers=2,d_model=64,heads=4,kv_heads=4,d_ff=96,seq=32,batch=2,vocab=50,"
                                   "experts=4,top_k=2,capacity_factor=1.5,moe_every=2");
        const std::int64_t C = static_cast<std::int64_t>(std::ceil(k * S * 1.5 / E));
        QCOMPARE(C, std::int64_t{24});
        auto dispatch = opsLabelled(g, OpKind::Transpose, "moe.dispatch_tokens");
        QCOMPARE(dispatch.size(), std::size_t{1});  // only layer 1 (moe_every=2) has experts
        QCOMPARE(g.type(dispatch.front()->results[0]).shape, (Shape{E, G, C, D}));
        auto combine = opsLabelled(g, OpKind::DotGeneral, "moe.combine_tokens");
        QCOMPARE(combine.size(), std::size_t{1});
        QCOMPARE(g.type(combine.front()->operands[0]).shape, (Shape{G, S, E, C}));
        QCOMPARE(g.type(combine.front()->results[0]).shape, (Shape{G, S, D}));
        QCOMPARE(g.type(parameterNamed(g, "layers.1.moe.experts.gate_proj")->value).shape, (Shape{E, D, F}));
        QVERIFY(parameterNamed(g, "layers.0.mlp.gate_proj.weight"));  // a dense layer
        QVERIFY(!parameterNamed(g, "layers.0.moe.router.weight"));
        // Top-k choices: one running position (cumulative sum over the group) per choice.
        QCOMPARE(opsLabelled(g, OpKind::ReduceWindow, "position").size(), std::size_t{2});
    }

    void presetOverridesKeepTheRest() {
        auto spec = zoo::parseModelSpec("gpt2-small:layers=2,seq=128");
        QVERIFY(spec.ok());
        QCOMPARE(spec->preset, std::string("gpt2-small"));
        QCOMPARE(spec->options.at("layers"), std::string("2"));
        QCOMPARE(spec->options.at("d_model"), std::string("768"));
        QCOMPARE(spec->options.at("seq"), std::string("128"));
        QVERIFY(spec->canonicalName().rfind("gpt:batch=8,", 0) == 0);
    }

    void refusesBadOptions_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown model") << "gpt5" << "unknown zoo model 'gpt5' (known: mlp, gpt,";
        QTest::newRow("unknown key") << "gpt:width=3" << "zoo:gpt: unknown option 'width' (gpt accepts: layers, d_model,";
        QTest::newRow("not key=value") << "gpt:layers" << "'layers' is not of the form key=value";
        QTest::newRow("not an integer") << "gpt:layers=two" << "option 'layers' must be an integer, got 'two'";
        QTest::newRow("too small") << "mlp:batch=0" << "option 'batch' must be at least 1, got 0";
        QTest::newRow("heads do not divide") << "gpt:d_model=100,heads=3" << "d_model (100) must be divisible by heads (3)";
        QTest::newRow("kv heads do not divide") << "llama:heads=32,kv_heads=5" << "heads (32) must be divisible by kv_heads (5)";
        QTest::newRow("patch does not divide") << "vit:image=200" << "image (200) must be divisible by patch (16)";
        QTest::newRow("bad dtype") << "gpt:dtype=i32" << "must be a floating-point type";
        QTest::newRow("top-k above experts") << "moe:experts=2,top_k=3" << "top_k must not exceed experts";
        QTest::newRow("unet size") << "unet:image=100" << "must be divisible by 2^depth";
        QTest::newRow("missing file") << "/nonexistent/model.mlir" << "cannot open '/nonexistent/model.mlir': No such file or directory";
    }
    void refusesBadOptions() {
        QFETCH(QString, model);
        QFETCH(QString, message);
        const std::string source = model.startsWith('/') ? model.toStdString() : "zoo:" + model.toStdString();
        auto loaded = loadModel(source);
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.errorMessage().find(message.toStdString()) != std::string::npos, loaded.errorMessage().c_str());
    }
};

QTEST_APPLESS_MAIN(TestZoo)
#include "tst_zoo.moc"
