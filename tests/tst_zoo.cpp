// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The model zoo: every preset matches its published parameter count, every family builds a verified graph
// whose structure scales as the options say, and bad options are refused with a reason.
#include <QtTest>

#include <cmath>
#include <set>
#include "test_support.h"

#include "shardscope/analysis/decision_space.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/interpret/interpreter.h"
#include "shardscope/ir/builder.h"
#include "shardscope/ir/printer.h"
#include "shardscope/ir/statistics.h"
#include "shardscope/ir/verifier.h"
#include "shardscope/session/model_source.h"
#include "shardscope/train/training_step.h"
#include "shardscope/zoo/zoo.h"

using namespace shardscope;
using namespace shardscope::ir;

namespace {

Graph buildModel(const std::string& name) {
    auto spec = zoo::parseModelSpec(name);
    if (!spec)
        qFatal("%s", spec.errorMessage().c_str());
    auto graph = zoo::build(*spec);
    if (!graph)
        qFatal("%s", graph.errorMessage().c_str());
    return std::move(graph).value();
}

const Argument* parameterNamed(const Graph& g, const std::string& name) {
    for (const auto& a : g.arguments)
        if (a.name == name)
            return &a;
    return nullptr;
}

std::vector<const Op*> opsLabelled(const Graph& g, OpKind kind, const std::string& suffix) {
    std::vector<const Op*> out;
    for (OpId id : g.body) {
        const Op& op = g.op(id);
        const auto& n = op.location.name;
        if (op.kind == kind && n.size() >= suffix.size() &&
            n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
            out.push_back(&op);
    }
    return out;
}

// The top-level op of `kind` labelled exactly `label`, or null.
const Op* opNamed(const Graph& g, OpKind kind, const std::string& label) {
    for (OpId id : g.body)
        if (g.op(id).kind == kind && g.op(id).location.name == label)
            return &g.op(id);
    return nullptr;
}

// The ops of one dropout (zoo::dropout under `scope`): rng draws -> reshape -> compare (the mask);
// x·scale; select.
struct DropoutOps {
    const Op *draws = nullptr, *uniform = nullptr, *mask = nullptr, *scale = nullptr, *select = nullptr;
};

DropoutOps dropoutOps(const Graph& g, const std::string& scope) {
    return {opNamed(g, OpKind::Rng, scope + ".uniform"), opNamed(g, OpKind::Reshape, scope + ".uniform"),
            opNamed(g, OpKind::Compare, scope + ".mask"), opNamed(g, OpKind::Multiply, scope + ".scale"),
            opNamed(g, OpKind::Select, scope)};
}

// The scopes of the three dropouts of each layer, Megatron-LM's order.
std::vector<std::string> dropoutScopes(int layers) {
    std::vector<std::string> out;
    for (int l = 0; l < layers; ++l)
        for (const char* leaf : {".attn.probs_dropout", ".attn_dropout", ".mlp_dropout"})
            out.push_back("layers." + std::to_string(l) + leaf);
    return out;
}

const char* kSmallGpt = "gpt:layers=2,d_model=64,heads=4,d_ff=128,seq=16,batch=2,vocab=100";

}  // namespace

class TestZoo : public QObject {
    Q_OBJECT
private slots:
    void presetsMatchPublishedParameterCounts_data() {
        QTest::addColumn<QString>("preset");
        for (const auto& p : zoo::presets())
            QTest::newRow(p.name.c_str()) << QString::fromStdString(p.name);
    }
    void presetsMatchPublishedParameterCounts() {
        QFETCH(QString, preset);
        const zoo::Preset* p = nullptr;
        for (const auto& candidate : zoo::presets())
            if (candidate.name == preset.toStdString())
                p = &candidate;
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
        qInfo("%-14s %16.0f parameters, published %.4g (%s): %+.3f%%", p->name.c_str(), count,
              p->publishedParameters, p->source.c_str(),
              100.0 * (count - p->publishedParameters) / p->publishedParameters);
        // Published sizes are within 1%, except a model's name rounded further than that: Megatron-LM's
        // "1.7B" is the 1.754 B model (d_ff = 4 x hidden, learned positions, untied output layer;
        // calibrationPresetCounts).
        const double tolerance = p->name == "megatron-1.7b" ? 0.035 : 0.01;
        QVERIFY2(error <= tolerance, qPrintable(QString("off by %1%").arg(100 * error)));
    }

    // The calibration runs' models (resources/calibration/published_runs.json), counted from their
    // architecture: 12·h² + 13·h per layer, token and position embeddings, final norm, and the output layer
    // when untied.
    void calibrationPresetCounts() {
        auto gpt = [](std::int64_t layers, std::int64_t h, std::int64_t seq, std::int64_t vocab, bool tied) {
            return layers * (12 * h * h + 13 * h) + vocab * h + seq * h + 2 * h + (tied ? 0 : h * vocab);
        };
        QCOMPARE(computeStatistics(buildModel("korthikanti-22b")).parameterCount,
                 gpt(48, 6144, 2048, 51200, true));
        QCOMPARE(gpt(48, 6144, 2048, 51200, true), std::int64_t{22074273792});
        QCOMPARE(computeStatistics(buildModel("megatron-1.7b")).parameterCount,
                 gpt(24, 2048, 4096, 131072, false));
        QCOMPARE(gpt(24, 2048, 4096, 131072, false), std::int64_t{1753862144});
        QCOMPARE(computeStatistics(buildModel("megatron-7.1b")).parameterCount,
                 gpt(30, 4096, 4096, 131072, false));
        QCOMPARE(computeStatistics(buildModel("megatron-16b")).parameterCount,
                 gpt(32, 6144, 4096, 131072, false));
        QCOMPARE(computeStatistics(buildModel("megatron-70b")).parameterCount,
                 gpt(84, 8192, 4096, 131072, false));
        QCOMPARE(computeStatistics(buildModel("megatron-177b")).parameterCount,
                 gpt(96, 12288, 4096, 131072, false));
        QCOMPARE(gpt(96, 12288, 4096, 131072, false), std::int64_t{177233092608});
        // TorchTitan's Llama 3.1 8B has Llama 3 8B's shapes (only the rotary scaling differs, which costs
        // nothing).
        QCOMPARE(computeStatistics(buildModel("llama3-8b:seq=8192")).parameterCount,
                 std::int64_t{8030261248});
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
        for (const auto& f : zoo::families())
            QTest::newRow(f.name.c_str()) << QString::fromStdString(f.name);
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
        for (OpId id : g.body)
            QVERIFY2(!g.op(id).location.name.empty(), "every op has a label");
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
            return static_cast<std::int64_t>(
                buildModel("llama:layers=" + std::to_string(layers) +
                           ",d_model=64,heads=4,kv_heads=2,d_ff=128,seq=8,vocab=32")
                    .body.size());
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
            if (g.op(id).kind == OpKind::DotGeneral)
                matmul += flopsOf(g, g.op(id));
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
        const Graph g = buildModel(
            "moe:layers=2,d_model=64,heads=4,kv_heads=4,d_ff=96,seq=32,batch=2,vocab=50,"
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

    // --- dropout (Korthikanti et al. 2022, Fig. 2: Megatron-LM's placement) ---
    // dropout=0 (the default) adds no op: the graph is the one built without the option.
    void dropoutZeroChangesNothing() {
        for (const std::string& model :
             {std::string(kSmallGpt), std::string("llama:layers=2"), std::string("moe:layers=2")}) {
            const Graph plain = buildModel(model);
            QVERIFY2(buildModel(model + ",dropout=0") == plain, model.c_str());
            QVERIFY2(buildModel(model + ",dropout=0.0") == plain, model.c_str());
            for (OpId id : plain.body)
                QVERIFY(plain.op(id).kind != OpKind::Rng);
        }
    }

    // Three masks per layer, i1 and of the activation's shape: the attention probabilities [B, H, S, S] after
    // the softmax, the attention and MLP outputs [B, S, D] before their residual adds; each selects x·1/(1-p)
    // or 0.
    void dropoutMasksPerLayer() {
        const std::int64_t B = 2, S = 16, D = 64, H = 4;
        const Graph g = buildModel(std::string(kSmallGpt) + ",dropout=0.1");
        QVERIFY(verifyGraph(g).ok());
        std::size_t rngs = 0, masks = 0;
        for (OpId id : g.body) {
            const Op& op = g.op(id);
            rngs += op.kind == OpKind::Rng;
            masks += op.kind == OpKind::Compare && op.location.name.ends_with("dropout.mask");
        }
        QCOMPARE(rngs, std::size_t{6});
        QCOMPARE(masks, std::size_t{6});
        for (const std::string& scope : dropoutScopes(2)) {
            const DropoutOps d = dropoutOps(g, scope);
            QVERIFY2(d.draws && d.uniform && d.mask && d.scale && d.select, scope.c_str());
            const Shape shape = scope.ends_with("probs_dropout") ? Shape{B, H, S, S} : Shape{B, S, D};
            QCOMPARE(g.type(d.mask->results[0]), (TensorType{shape, ElementType::I1}));
            QCOMPARE(g.type(d.draws->results[0]), (TensorType{{elementCount(shape)}, ElementType::F32}));
            QCOMPARE(d.uniform->operands[0], d.draws->results[0]);
            QCOMPARE(d.mask->operands[0], d.uniform->results[0]);
            QCOMPARE(std::get<CompareAttributes>(d.mask->attributes).direction, CompareDirection::GE);
            QCOMPARE(d.select->operands[0], d.mask->results[0]);
            QCOMPARE(d.select->operands[1], d.scale->results[0]);
            QCOMPARE(g.type(d.select->results[0]), (TensorType{shape, ElementType::BF16}));
        }
        // Where: the probabilities' dropout feeds the product with v; the block outputs' the residual adds.
        const auto probs = dropoutOps(g, "layers.0.attn.probs_dropout");
        const auto context = opsLabelled(g, OpKind::DotGeneral, "layers.0.attn.context");
        QCOMPARE(context.size(), std::size_t{1});
        QCOMPARE(context.front()->operands[0], probs.select->results[0]);
        QCOMPARE(opNamed(g, OpKind::Divide, "layers.0.attn.softmax")->results[0], probs.scale->operands[0]);
        for (const char* block : {"attn", "mlp"}) {
            const auto d = dropoutOps(g, std::string("layers.1.") + block + "_dropout");
            const std::string projection = std::string("layers.1.") + block +
                                           (block == std::string("attn") ? ".o_proj.bias" : ".proj.bias");
            QCOMPARE(opNamed(g, OpKind::Add, projection)->results[0], d.scale->operands[0]);
            const auto residual = opsLabelled(g, OpKind::Add, "layers.1.residual");
            QVERIFY(std::any_of(residual.begin(), residual.end(),
                                [&](const Op* add) { return add->operands[1] == d.select->results[0]; }));
        }
        // No parameters: the same counts as without dropout.
        const auto parameters = [](const std::string& model) {
            return computeStatistics(buildModel(model)).parameterCount;
        };
        QCOMPARE(computeStatistics(g).parameterCount, parameters(kSmallGpt));
        QCOMPARE(parameters("gpt2-small:dropout=0.1"), std::int64_t{124439808});
        // The decoder is shared: llama and moe take the option too.
        for (const char* other :
             {"llama:layers=1,d_model=64,heads=4,kv_heads=2,d_ff=128,seq=16,vocab=50",
              "moe:layers=1,d_model=64,heads=4,kv_heads=2,d_ff=128,seq=16,vocab=50,experts=4"}) {
            const Graph withDropout = buildModel(std::string(other) + ",dropout=0.1");
            QCOMPARE(opsLabelled(withDropout, OpKind::Rng, "dropout.uniform").size(), std::size_t{3});
        }
    }

    // Printed as StableHLO, the dropout graph imports back to the same graph.
    void dropoutRoundTripsThroughStableHlo() {
        const Graph g = buildModel(std::string(kSmallGpt) + ",dropout=0.1");
        const std::string text = printStableHlo(g);
        QVERIFY(text.find("\"stablehlo.rng\"(") != std::string::npos);
        auto back = import::importStableHlo(text, "roundtrip.mlir");
        QVERIFY2(back.ok(), back.errorMessage().c_str());
        QCOMPARE(printStableHlo(*back), text);
        QCOMPARE(computeStatistics(*back).opsByKind, computeStatistics(g).opsByKind);
    }

    // The training step builds; the masks are not differentiated, and of each dropout the backward pass reads
    // the i1 mask and nothing else (plus, for the probabilities, the dropout's output, which the product with
    // v needs): not the f32 draws and not x·scale.
    void dropoutTrainingStepKeepsOnlyTheMask() {
        const Graph forward = buildModel(std::string(kSmallGpt) + ",dropout=0.1");
        auto step = train::buildTrainingStep(forward);
        QVERIFY2(step.ok(), step.errorMessage().c_str());
        const Graph& g = step->graph;
        QVERIFY(verifyGraph(g).ok());
        std::set<std::uint32_t> readByBackward;
        for (std::size_t i = step->forwardOps; i < step->forwardOps + step->backwardOps; ++i)
            for (ValueId v : g.op(g.body[i]).operands)
                readByBackward.insert(v.index);
        for (const std::string& scope : dropoutScopes(2)) {
            const DropoutOps d = dropoutOps(g, scope);
            QVERIFY2(d.select, scope.c_str());
            QVERIFY2(readByBackward.count(d.mask->results[0].index), scope.c_str());
            for (const Op* op : {d.draws, d.uniform, d.scale})
                QVERIFY2(!readByBackward.count(op->results[0].index),
                         (scope + ": " + op->location.name).c_str());
            QCOMPARE(readByBackward.count(d.select->results[0].index) == 1, scope.ends_with("probs_dropout"));
        }
        std::size_t rngs = 0;
        for (OpId id : g.body)
            rngs += g.op(id).kind == OpKind::Rng;
        QCOMPARE(rngs, std::size_t{6});  // backward draws nothing new
    }

    // The analysis finds the same names and groups with dropout as without: the masks' dimensions unify with
    // the activations' (batch, seq, d_model, heads) and rng's 1-element shape operand adds no name.
    void dropoutKeepsTheNames() {
        const std::string model = "gpt:layers=2,d_model=256,heads=4,seq=128,batch=8,vocab=1024";
        auto labels = [](const analysis::DecisionSpace& space) {
            std::vector<std::string> names, groups;
            for (const auto& n : space.names)
                names.push_back(n.label + ":" + std::to_string(n.size));
            for (const auto& grp : space.groups)
                groups.push_back(grp.label + ":" + std::to_string(grp.names.size()));
            return std::make_pair(names, groups);
        };
        const auto plainStep = train::buildTrainingStep(buildModel(model));
        const auto dropoutStep = train::buildTrainingStep(buildModel(model + ",dropout=0.1"));
        QVERIFY(plainStep.ok() && dropoutStep.ok());
        const auto plain = analysis::analyze(plainStep->graph);
        const auto dropped = analysis::analyze(dropoutStep->graph);
        QCOMPARE(labels(dropped), labels(plain));
        QCOMPARE(dropped.conflicts.size(), plain.conflicts.size());
        const Graph& g = dropoutStep->graph;
        auto namesOf = [&](ValueId v) {
            std::vector<std::string> out;
            for (int d = 0; d < g.type(v).rank(); ++d)
                for (auto n : dropped.namesOf(v, d))
                    out.push_back(dropped.name(n).label);
            return out;
        };
        const auto probs = dropoutOps(g, "layers.1.attn.probs_dropout");
        QCOMPARE(namesOf(probs.mask->results[0]),
                 (std::vector<std::string>{"batch", "layers.1.attn.heads", "seq", "seq"}));
        QCOMPARE(namesOf(probs.mask->results[0]), namesOf(probs.scale->operands[0]));
        const auto mlp = dropoutOps(g, "layers.0.mlp_dropout");
        QCOMPARE(namesOf(mlp.mask->results[0]), (std::vector<std::string>{"batch", "seq", "d_model"}));
        QCOMPARE(namesOf(mlp.draws->results[0]), (std::vector<std::string>{"batch", "seq", "d_model"}));
    }

    // The interpreter runs a dropout model: about p of the mask elements drop, kept elements are x·1/(1-p)
    // (rounded to f32) and dropped ones 0, and the logits differ from the model without dropout.
    void dropoutInterpreted() {
        const double p = 0.1;
        const Graph forward = buildModel(std::string(kSmallGpt) + ",dtype=f32,dropout=0.1");
        GraphBuilder b{Graph(forward)};
        const auto scopes = dropoutScopes(2);
        for (const std::string& scope : scopes) {
            const DropoutOps d = dropoutOps(forward, scope);
            b.output(d.mask->results[0], scope + ".mask");
            b.output(d.scale->operands[0], scope + ".x");
            b.output(d.select->results[0], scope + ".y");
        }
        auto probed = std::move(b).finish();
        QVERIFY2(probed.ok(), probed.errorMessage().c_str());
        std::vector<interpret::Tensor> arguments;
        for (const auto& a : forward.arguments) {
            interpret::Tensor t = interpret::Tensor::filled(forward.type(a.value), 0.0);
            for (std::size_t i = 0; i < t.values.size(); ++i) {
                const auto k = static_cast<double>(i);
                t.values[i] = a.role == ArgumentRole::Input ? std::fmod(k, 100) : 0.02 * std::sin(1.0 + k);
            }
            arguments.push_back(std::move(t));
        }
        auto out = interpret::run(*probed, arguments);
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        const float scale = static_cast<float>(1.0 / (1.0 - p));
        double dropped = 0, total = 0;
        for (std::size_t k = 0; k < scopes.size(); ++k) {
            const auto& mask = out->at(1 + 3 * k).values;
            const auto& x = out->at(2 + 3 * k).values;
            const auto& y = out->at(3 + 3 * k).values;
            for (std::size_t i = 0; i < mask.size(); ++i) {
                QCOMPARE(y[i], mask[i] != 0 ? static_cast<double>(static_cast<float>(x[i]) * scale) : 0.0);
                dropped += mask[i] == 0;
            }
            total += static_cast<double>(mask.size());
        }
        const double rate = dropped / total;  // 12288 draws: standard error 0.0027
        qInfo("dropped %.0f of %.0f mask elements (%.4f, p = %.2f)", dropped, total, rate, p);
        QVERIFY(std::abs(rate - p) < 0.015);
        auto plain = interpret::run(buildModel(std::string(kSmallGpt) + ",dtype=f32"), arguments);
        QVERIFY2(plain.ok(), plain.errorMessage().c_str());
        QCOMPARE(plain->front().type, out->front().type);
        QVERIFY(plain->front().values != out->front().values);
        for (double v : out->front().values)
            QVERIFY(std::isfinite(v));
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
        QTest::newRow("unknown model") << "gpt5"
                                       << "unknown zoo model 'gpt5' (known: mlp, gpt,";
        QTest::newRow("unknown key") << "gpt:width=3"
                                     << "zoo:gpt: unknown option 'width' (gpt accepts: layers, d_model,";
        QTest::newRow("not key=value") << "gpt:layers"
                                       << "'layers' is not of the form key=value";
        QTest::newRow("not an integer") << "gpt:layers=two"
                                        << "option 'layers' must be an integer, got 'two'";
        QTest::newRow("too small") << "mlp:batch=0"
                                   << "option 'batch' must be an integer from 1 to 16777216, got 0";
        QTest::newRow("heads do not divide") << "gpt:d_model=100,heads=3"
                                             << "d_model (100) must be divisible by heads (3)";
        QTest::newRow("kv heads do not divide") << "llama:heads=32,kv_heads=5"
                                                << "heads (32) must be divisible by kv_heads (5)";
        QTest::newRow("patch does not divide") << "vit:image=200"
                                               << "image (200) must be divisible by patch (16)";
        QTest::newRow("bad dtype") << "gpt:dtype=i32"
                                   << "must be a floating-point type";
        QTest::newRow("top-k above experts") << "moe:experts=2,top_k=3"
                                             << "top_k must not exceed experts";
        QTest::newRow("unet size") << "unet:image=100"
                                   << "must be divisible by 2^depth";
        QTest::newRow("dropout of 1") << "gpt:dropout=1"
                                      << "zoo:gpt: dropout must be below 1, got 1";
        QTest::newRow("negative dropout") << "gpt:dropout=-0.1"
                                          << "option 'dropout' must be a number from 0 to 1, got -0.1";
        QTest::newRow("missing file") << "/nonexistent/model.mlir"
                                      << "cannot open '/nonexistent/model.mlir': No such file or directory";
    }
    void refusesBadOptions() {
        QFETCH(QString, model);
        QFETCH(QString, message);
        const std::string source = model.startsWith('/') ? model.toStdString() : "zoo:" + model.toStdString();
        auto loaded = loadModel(source);
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.errorMessage().find(message.toStdString()) != std::string::npos,
                 loaded.errorMessage().c_str());
    }
};

QTEST_APPLESS_MAIN(TestZoo)
#include "tst_zoo.moc"
