// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Global batch and sequence (issue 19, part 3): a model exported at one batch and sequence length is planned
// at another (`--set batch=256,seq=4096`). A zoo model and its StableHLO export resized have the shapes,
// FLOPs and parameters of the same model built at the new size (from a batch of one too); borders follow (a
// begin-of-sequence token, shifted labels), position constants extend; an impossible resize is an error
// naming the op; unused `--set` and `--dim` keys are errors that say which keys the model takes; the sizes
// travel with the problem spec and the workspace. On the shared real models, each resizes and a resized model
// plans.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <tuple>

#include "test_paths.h"
#include "test_support.h"

#include "shardscope/analysis/resize.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/ir/builder.h"
#include "shardscope/ir/printer.h"
#include "shardscope/ir/statistics.h"
#include "shardscope/plan/experts.h"
#include "shardscope/session/model_source.h"
#include "shardscope/session/problem.h"
#include "shardscope/session/recording.h"
#include "shardscope/session/workspace_session.h"

using namespace shardscope;
using namespace shardscope::ir;
using analysis::GlobalSizes;

namespace {

Graph zooGraph(const std::string& source) {
    auto model = loadModel(source);
    if (!model)
        qFatal("%s: %s", source.c_str(), model.errorMessage().c_str());
    return model->graph;
}

// The graph as StableHLO text without the module's name (which says where it came from).
std::string text(const Graph& graph) {
    PrintOptions options;
    options.moduleName = "m";
    return printStableHlo(graph, options);
}

// What a model costs to run and hold: compared between a resized model and the model built at that size.
struct Figures {
    double flops = 0;
    std::int64_t parameters = 0, activationBytes = 0, ops = 0;
    std::vector<TensorType> arguments, outputs;
    friend bool operator==(const Figures&, const Figures&) = default;
};

Figures figuresOf(const Graph& graph) {
    const auto s = computeStatistics(graph);
    Figures f{s.flops, s.parameterCount, s.activationBytes, s.opCount, {}, {}};
    for (const auto& a : graph.arguments)
        f.arguments.push_back(graph.type(a.value));
    for (const auto& o : graph.outputs)
        f.outputs.push_back(graph.type(o.value));
    return f;
}

char* toString(const Figures& f) {
    std::string out = "flops " + std::to_string(f.flops) + ", parameters " + std::to_string(f.parameters) +
                      ", activations " + std::to_string(f.activationBytes) + ", ops " +
                      std::to_string(f.ops) + ", arguments";
    for (const auto& t : f.arguments)
        out += " " + t.toString();
    out += ", outputs";
    for (const auto& t : f.outputs)
        out += " " + t.toString();
    return qstrdup(out.c_str());
}

// The first error's message (and its location's line), or "".
std::string firstError(const std::vector<Diagnostic>& diagnostics) {
    for (const auto& d : diagnostics)
        if (d.severity == Severity::Error)
            return d.toString();
    return {};
}

// A token stream as a decoder's data pipeline makes it: a begin-of-sequence token before tokens[:, :-1] (a
// concatenate and a slice), token embeddings plus the first `seq` rows of a table of 10 positions (a slice),
// and the prediction for every token but the first (a slice that trims one). Labelled as the zoo labels its
// models.
Graph borderModel() {
    GraphBuilder b("borders");
    const ValueId tokens = b.input("tokens", {2, 8}, ElementType::I32, {"batch", "seq"});
    const ValueId embed = b.parameter("embed", {100, 16}, ElementType::F32, {"vocab", "d_model"});
    const ValueId positions =
        b.parameter("positions", {10, 16}, ElementType::F32, {"max_positions", "d_model"});
    const ValueId begin = b.constant(0, TensorType{{2, 1}, ElementType::I32}, "bos");
    const ValueId shifted = b.concatenate({begin, b.slice(tokens, {0, 0}, {2, 7}, {}, "shift")}, 1, "shift");
    GatherAttributes gather;
    gather.offsetDims = {2};
    gather.collapsedSliceDims = {0};
    gather.startIndexMap = {0};
    gather.indexVectorDim = 2;
    gather.sliceSizes = {1, 16};
    const ValueId x = b.gather(embed, b.reshape(shifted, {2, 8, 1}), gather, "embed");
    const ValueId table = b.slice(positions, {0, 0}, {8, 16}, {}, "positions");
    const ValueId h = b.add(x, b.broadcastInDim(table, {2, 8, 16}, {1, 2}), "positions");
    b.output(b.slice(h, {0, 1, 0}, {2, 8, 16}, {}, "predictions"), "predictions");
    auto graph = std::move(b).finish();
    if (!graph)
        qFatal("%s", graph.errorMessage().c_str());
    return *graph;
}

// Tokens whose sequence a reshape splits into pairs: dimension 1 of the input is "seq*pair" (4 x 2).
Graph pairedModel() {
    GraphBuilder b("pairs");
    const ValueId x = b.input("x", {2, 8, 16}, ElementType::F32, {"batch", "seq*pair", "d_model"});
    const ValueId pairs = b.reshape(x, {2, 4, 2, 16}, "pairs");
    b.output(b.reduce(pairs, {2}, Reducer::Add, "sum"), "sums");
    auto graph = std::move(b).finish();
    if (!graph)
        qFatal("%s", graph.errorMessage().c_str());
    return *graph;
}

// A model with a constant that holds one value per position, `values` of them (not one repeated value).
Graph constantModel(const std::vector<double>& values) {
    GraphBuilder b("constants");
    const ValueId x = b.input("x", {2, 4}, ElementType::F32, {"batch", "seq"});
    const auto bias = b.op(OpKind::Constant, {}, ConstantAttributes{values}, "bias", {},
                           {TensorType{{1, 4}, ElementType::F32}});
    b.output(b.add(x, b.broadcastInDim(bias[0], {2, 4}, {0, 1})), "y");
    auto graph = std::move(b).finish();
    if (!graph)
        qFatal("%s", graph.errorMessage().c_str());
    return *graph;
}

struct Run {
    int exitCode = -1;
    QString out, err;
};

Run cli(const QStringList& arguments) {
    QProcess process;
    process.start(testing::cliPath(), arguments);
    if (!process.waitForFinished(300000))
        qFatal("shardscope-cli did not finish");
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

QString sharedModel(const QString& name) {
    return QDir(testing::sharedDir()).filePath(QStringLiteral("models/stablehlo/") + name);
}

}  // namespace

class TestResize : public QObject {
    Q_OBJECT
private slots:
    void parsesSizes() {
        auto sizes = analysis::parseGlobalSizes(" batch=256, sequence=4096 ");
        QVERIFY2(sizes, sizes.errorMessage().c_str());
        QCOMPARE(*sizes, (GlobalSizes{{"batch", 256}, {"seq", 4096}}));
        QCOMPARE(analysis::globalSizesText(*sizes), std::string("batch=256,seq=4096"));
        QVERIFY(analysis::parseGlobalSizes("")->empty());
        for (const char* bad :
             {"batch", "foo=3", "batch=0", "batch=-2", "batch=2x", "seq=4,sequence=8", "batch=4,,seq=8"}) {
            auto parsed = analysis::parseGlobalSizes(bad);
            QVERIFY2(!parsed, bad);
            QCOMPARE(parsed.diagnostics().front().code, std::string("resize.syntax"));
        }
        QVERIFY(analysis::parseGlobalSizes("foo=3").errorMessage().find(
                    "unknown size 'foo' (sizes: batch, seq)") != std::string::npos);
    }

    // The zoo's models resized are the models the zoo builds at that size, op for op (from a batch of one
    // too).
    void zooResizedIsZooBuiltAtThatSize_data() {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("sizes");
        QTest::addColumn<QString>("built");
        const QString gpt = QStringLiteral("zoo:gpt:layers=2,d_model=64,heads=4,");
        QTest::newRow("gpt") << gpt + "seq=64,batch=2"
                             << "batch=8,seq=128" << gpt + "seq=128,batch=8";
        QTest::newRow("gpt from a batch of one") << gpt + "seq=64,batch=1"
                                                 << "batch=8,seq=128" << gpt + "seq=128,batch=8";
        QTest::newRow("gpt, fewer tokens") << gpt + "seq=128,batch=4"
                                           << "seq=32" << gpt + "seq=32,batch=4";
        QTest::newRow("gpt with dropout") << gpt + "seq=64,batch=2,dropout=0.1"
                                          << "batch=8,seq=128" << gpt + "seq=128,batch=8,dropout=0.1";
        QTest::newRow("gpt scanned") << gpt + "seq=64,batch=1,scan=true"
                                     << "batch=8,seq=128" << gpt + "seq=128,batch=8,scan=true";
        const QString llama =
            QStringLiteral("zoo:llama:layers=2,d_model=64,heads=4,kv_heads=2,d_ff=128,vocab=1000,");
        QTest::newRow("llama from a batch of one") << llama + "seq=64,batch=1"
                                                   << "batch=4,seq=256" << llama + "seq=256,batch=4";
        const QString moe =
            QStringLiteral("zoo:moe:layers=2,d_model=64,heads=4,kv_heads=2,d_ff=128,vocab=1000,seq=64,");
        QTest::newRow("moe from a batch of one") << moe + "batch=1"
                                                 << "batch=8" << moe + "batch=8";
        QTest::newRow("mlp") << "zoo:mlp:batch=1"
                             << "batch=32"
                             << "zoo:mlp:batch=32";
        QTest::newRow("vit") << "zoo:vit:layers=2,d_model=64,heads=4,batch=1"
                             << "batch=8"
                             << "zoo:vit:layers=2,d_model=64,heads=4,batch=8";
        QTest::newRow("unet") << "zoo:unet:batch=1,base=8"
                              << "batch=4"
                              << "zoo:unet:batch=4,base=8";
    }
    void zooResizedIsZooBuiltAtThatSize() {
        QFETCH(QString, from);
        QFETCH(QString, sizes);
        QFETCH(QString, built);
        import::ImportOptions options;
        options.sizes = *analysis::parseGlobalSizes(sizes.toStdString());
        auto resized = loadModel(from.toStdString(), options);
        QVERIFY2(resized, resized.errorMessage().c_str());
        const Graph expected = zooGraph(built.toStdString());
        QCOMPARE(figuresOf(resized->graph), figuresOf(expected));
        QCOMPARE(text(resized->graph), text(expected));
        // What changed is said, in a note and in the description.
        const auto note = std::find_if(resized.diagnostics().begin(), resized.diagnostics().end(),
                                       [](const Diagnostic& d) { return d.code == "model.resized"; });
        QVERIFY(note != resized.diagnostics().end());
        QCOMPARE(note->severity, Severity::Note);
        QVERIFY2(resized->description.find("resized: ") != std::string::npos, resized->description.c_str());
    }

    // A StableHLO export (the zoo's, printed without its labels: the roles are read from the structure)
    // resized to another batch and sequence has the shapes, FLOPs and parameters of the model exported at
    // that size.
    void stableHloExportResizedIsExportAtThatSize() {
        PrintOptions bare;
        bare.locations = false;
        bare.argumentNames = false;
        const std::string gpt = "zoo:gpt:layers=2,d_model=64,heads=4,vocab=512,";
        for (const auto& [from, to] : {std::pair{"seq=32,batch=1", "seq=128,batch=8"},
                                       std::pair{"seq=64,batch=2", "seq=32,batch=4"}}) {
            auto exported = import::importStableHlo(printStableHlo(zooGraph(gpt + from), bare), "small.mlir");
            auto atSize = import::importStableHlo(printStableHlo(zooGraph(gpt + to), bare), "large.mlir");
            QVERIFY2(exported && atSize, (exported.errorMessage() + atSize.errorMessage()).c_str());
            const auto sizes = *analysis::parseGlobalSizes(std::string(to));
            auto resized = analysis::resize(*exported, sizes);
            QVERIFY2(resized, firstError(resized.diagnostics()).c_str());
            QCOMPARE(figuresOf(resized->graph), figuresOf(*atSize));
            QCOMPARE(resized->summary.changes.size(), std::size_t{2});
        }
    }

    // The training step is built from the resized forward graph: it is the step of the model at that size.
    void trainingStepOfResizedModel() {
        ProblemSpec small, large;
        small.model = "zoo:gpt:layers=2,d_model=64,heads=4,vocab=512,seq=32,batch=1";
        small.sizes = {{"batch", 16}, {"seq", 64}};
        large.model = "zoo:gpt:layers=2,d_model=64,heads=4,vocab=512,seq=64,batch=16";
        small.train = large.train = true;
        small.mesh = large.mesh = "data=4";
        auto resized = loadProblem(small);
        auto built = loadProblem(large);
        QVERIFY2(resized && built, (resized.errorMessage() + built.errorMessage()).c_str());
        QCOMPARE(figuresOf((*resized)->model.graph), figuresOf((*built)->model.graph));
        for (const char* expert : {"dp", "zero3", "megatron"}) {
            auto a = plan::expertPlan(expert, (*resized)->costModel->planContext(), (*resized)->mesh);
            auto b = plan::expertPlan(expert, (*built)->costModel->planContext(), (*built)->mesh);
            QVERIFY2(a && b, expert);
            QCOMPARE(cost::evaluate(*(*resized)->costModel, *a).stepTime,
                     cost::evaluate(*(*built)->costModel, *b).stepTime);
        }
    }

    // Borders keep their width: the begin-of-sequence token stays one token, the prediction drops one, the
    // position table (a parameter) stays as it is and gives the first `seq` rows.
    void bordersFollow() {
        const Graph model = borderModel();
        auto resized = analysis::resize(model, {{"seq", 9}, {"batch", 3}});
        QVERIFY2(resized, firstError(resized.diagnostics()).c_str());
        const Graph& g = resized->graph;
        QCOMPARE(g.type(g.arguments[0].value), (TensorType{{3, 9}, ElementType::I32}));
        QCOMPARE(g.type(g.arguments[2].value), (TensorType{{10, 16}, ElementType::F32}));
        QCOMPARE(g.type(g.outputs[0].value), (TensorType{{3, 8, 16}, ElementType::F32}));
        std::vector<SliceAttributes> slices;
        for (OpId id : g.body)
            if (g.op(id).kind == OpKind::Slice)
                slices.push_back(std::get<SliceAttributes>(g.op(id).attributes));
        QCOMPARE(slices.size(), std::size_t{3});
        QCOMPARE(slices[0].limit, (Dims{3, 8}));     // tokens[:, :-1]
        QCOMPARE(slices[1].limit, (Dims{9, 16}));    // the first 9 positions
        QCOMPARE(slices[2].start, (Dims{0, 1, 0}));  // predictions[:, 1:]
        QCOMPARE(slices[2].limit, (Dims{3, 9, 16}));
        QVERIFY(resized->summary.attributes >= 3);

        // More positions than the table has: the slice cannot follow, and the error names it.
        auto tooLong = analysis::resize(model, {{"seq", 12}});
        QVERIFY(!tooLong);
        const Diagnostic& error = tooLong.diagnostics().front();
        QCOMPARE(error.code, std::string("resize.op"));
        QCOMPARE(error.location.name, std::string("positions"));
        QVERIFY2(error.message.find("'stablehlo.slice'") != std::string::npos &&
                     error.message.find("seq 8 -> 12") != std::string::npos &&
                     error.message.find("tensor<10x16xf32>") != std::string::npos,
                 error.message.c_str());
    }

    // Where a reshape splits the sequence (into pairs), the new sequence must keep the pieces it splits off.
    void splitSequenceKeepsDivisibility() {
        const Graph model = pairedModel();
        auto resized = analysis::resize(model, {{"seq", 12}});
        QVERIFY2(resized, firstError(resized.diagnostics()).c_str());
        QCOMPARE(resized->graph.type(resized->graph.arguments[0].value).shape, (Shape{2, 12, 16}));
        QCOMPARE(resized->graph.type(resized->graph.outputs[0].value).shape, (Shape{2, 6, 16}));
        QCOMPARE(resized->summary.changes.front(), (analysis::SizeChange{"seq", 8, 12, {"seq"}}));
        auto odd = analysis::resize(model, {{"seq", 9}});
        QVERIFY(!odd);
        QCOMPARE(odd.diagnostics().front().code, std::string("resize.size"));
        QVERIFY2(odd.diagnostics().front().message.find("must be a multiple of 2") != std::string::npos,
                 odd.diagnostics().front().message.c_str());
    }

    // A constant of one repeated value is made at the new shape; one that counts positions extends; any other
    // constant whose shape changes is an error naming it.
    void constantsResizeOrSayWhyNot() {
        auto splat = analysis::resize(constantModel({1.5}), {{"seq", 6}});
        QVERIFY2(splat, firstError(splat.diagnostics()).c_str());
        auto counting = analysis::resize(constantModel({0, 1, 2, 3}), {{"seq", 6}, {"batch", 5}});
        QVERIFY2(counting, firstError(counting.diagnostics()).c_str());
        bool extended = false;
        for (OpId id : counting->graph.body)
            if (counting->graph.op(id).kind == OpKind::Constant)
                extended = std::get<ConstantAttributes>(counting->graph.op(id).attributes).values ==
                           std::vector<double>{0, 1, 2, 3, 4, 5};
        QVERIFY(extended);
        auto data = analysis::resize(constantModel({0.5, -1, 3, 7}), {{"seq", 6}});
        QVERIFY(!data);
        QCOMPARE(data.diagnostics().front().code, std::string("resize.constant"));
        QCOMPARE(data.diagnostics().front().location.name, std::string("bias"));
        QVERIFY2(data.diagnostics().front().message.find(
                     "'stablehlo.constant' holds 4 values of tensor<1x4xf32>") != std::string::npos,
                 data.diagnostics().front().message.c_str());
        // The batch alone leaves it be.
        QVERIFY(analysis::resize(constantModel({0.5, -1, 3, 7}), {{"batch", 4}}));
    }

    // Keys the model has no dimension for are errors that say what it takes; so is --dim on a model without
    // symbolic dimensions.
    void unusedKeysAreErrors() {
        const Graph mlp = zooGraph("zoo:mlp:batch=4");
        auto seq = analysis::resize(mlp, {{"seq", 128}});
        QVERIFY(!seq);
        QCOMPARE(seq.diagnostics().front().code, std::string("resize.key"));
        QVERIFY2(seq.diagnostics().front().message.find("no dimension of this model has the sequence role") !=
                         std::string::npos &&
                     seq.diagnostics().front().message.find("it takes: batch") != std::string::npos,
                 seq.diagnostics().front().message.c_str());
        auto foo = analysis::resize(mlp, {{"foo", 3}});
        QVERIFY(!foo);
        QVERIFY(foo.diagnostics().front().message.find("unknown size 'foo' (sizes: batch, seq)") !=
                std::string::npos);
        QCOMPARE(analysis::resize(mlp, {{"batch", 0}}).diagnostics().front().code,
                 std::string("resize.size"));
        // A size as it is changes nothing; no sizes, nothing at all.
        auto same = analysis::resize(mlp, {{"batch", 4}});
        QVERIFY(same);
        QCOMPARE(same->graph, mlp);
        QCOMPARE(analysis::resize(mlp, {})->graph, mlp);

        import::ImportOptions dims;
        dims.dimensions = {{"batch", 8}};
        auto zoo = loadModel("zoo:mlp", dims);
        QVERIFY(!zoo);
        QCOMPARE(zoo.diagnostics().front().code, std::string("model.dimension"));
        QVERIFY(zoo.errorMessage().find("--set batch=N") != std::string::npos);
        auto stablehlo = loadModelBytes(printStableHlo(mlp), "mlp.mlir", dims);
        QVERIFY(!stablehlo);
        QCOMPARE(stablehlo.diagnostics().front().code, std::string("model.dimension"));
    }

    // The sizes are part of the problem: its JSON, and the load options a workspace records (so that it
    // reopens at the same sizes).
    void sizesTravelWithTheSpec() {
        ProblemSpec spec;
        spec.model = "zoo:gpt:layers=2,d_model=64,heads=4,vocab=512,seq=32,batch=1";
        spec.sizes = {{"batch", 8}, {"seq", 64}};
        auto problem = loadProblem(spec);
        QVERIFY2(problem, problem.errorMessage().c_str());
        QCOMPARE((*problem)->model.graph.type((*problem)->model.graph.arguments[0].value).shape,
                 (Shape{8, 64}));
        auto back = parseProblemSpec(problemSpecJson(**problem), "spec");
        QVERIFY2(back, back.errorMessage().c_str());
        QCOMPARE(back->sizes, spec.sizes);
        auto record = session::modelRecord(spec);
        QVERIFY2(record, record.errorMessage().c_str());
        ProblemSpec base;
        base.sizes = {{"batch", 2}};
        auto recorded = recordedModelSpec(*record, "w.shardscope", base);
        QVERIFY2(recorded, recorded.errorMessage().c_str());
        QCOMPARE(recorded->sizes, spec.sizes);
        // Specs and workspaces written before sizes existed have none.
        auto old = parseProblemSpec(
            R"({"format": "shardscope-problem", "model": "zoo:mlp", "mesh": {}, "hardware": {},
                                        "cost": {}})",
            "old");
        QVERIFY2(old, old.errorMessage().c_str());
        QVERIFY(old->sizes.empty());
        store::ModelRecord bare{"zoo:mlp", {}, {}, R"({"train": false})"};
        QVERIFY(recordedModelSpec(bare, "w.shardscope", ProblemSpec{})->sizes.empty());
        store::ModelRecord wrong{"zoo:mlp", {}, {}, R"({"sizes": {"batch": "8"}})"};
        QCOMPARE(recordedModelSpec(wrong, "w.shardscope", ProblemSpec{}).diagnostics().front().code,
                 std::string("workspace.field"));
    }

    // `--set` on the CLI: every command with --dim takes it; bad and unused keys are one-line errors.
    void cliSetsSizes() {
        const QString model = QStringLiteral("zoo:gpt:layers=2,d_model=64,heads=4,vocab=512,seq=32,batch=1");
        Run info = cli({"info", model, "--set", "batch=8", "--set", "seq=64"});
        QCOMPARE(info.exitCode, 0);
        QVERIFY2(info.out.contains(QStringLiteral("tokens: tensor<8x64xi32>")), qPrintable(info.out));
        QVERIFY2(info.out.contains(QStringLiteral("resized: batch 1 -> 8, seq 32 -> 64")),
                 qPrintable(info.out));
        QVERIFY2(info.err.contains(QStringLiteral("note: resized to the sizes set")), qPrintable(info.err));
        for (const char* command : {"analyze", "print", "rules", "evaluate"}) {
            const Run r = cli({command, model, "--set", "batch=4,seq=16"});
            QVERIFY2(r.exitCode == 0, qPrintable(QString::fromLatin1(command) + ": " + r.err));
        }
        const Run unknown = cli({"info", model, "--set", "foo=3"});
        QCOMPARE(unknown.exitCode, 2);
        QCOMPARE(
            unknown.err.trimmed(),
            QStringLiteral("shardscope-cli: error: --set 'foo=3': unknown size 'foo' (sizes: batch, seq)"));
        const Run twice = cli({"info", model, "--set", "batch=4", "--set", "batch=8"});
        QCOMPARE(twice.exitCode, 2);
        QVERIFY2(twice.err.contains(QStringLiteral("size 'batch' is set twice")), qPrintable(twice.err));
        const Run unused = cli({"info", "zoo:mlp", "--set", "seq=128"});
        QCOMPARE(unused.exitCode, 1);
        QVERIFY2(unused.err.contains(QStringLiteral("no dimension of this model has the sequence role")) &&
                     unused.err.contains(QStringLiteral("it takes: batch")),
                 qPrintable(unused.err));
        const Run dim = cli({"info", "zoo:mlp", "--dim", "batch=8"});
        QCOMPARE(dim.exitCode, 1);
        QVERIFY2(dim.err.contains(QStringLiteral("a zoo model has no symbolic dimensions")),
                 qPrintable(dim.err));
    }

    // Every shared real model resizes to a larger batch (and the transformers to another sequence) and keeps
    // planning: `evaluate` prices the expert plans of the resized model.
    void sharedModelsResize() {
        if (!QDir(testing::sharedDir()).exists(QStringLiteral("models/stablehlo")))
            QSKIP("../shared/models is not there");
        struct Case {
            const char* file;
            const char* sizes;
            const char* input;  // an input's type after resizing
        };
        for (const Case& c : {Case{"pt_bert.mlir", "batch=8,seq=64", "tensor<8x64xi32>"},
                              Case{"searchless_chess_9m.mlir", "batch=64,seq=96", "tensor<64x96xi32>"},
                              Case{"jax_resnet_50.mlir", "batch=8", "tensor<8x3x224x224xf32>"},
                              Case{"glm_358b_1_layer.mlir", "batch=8,seq=64", "tensor<8x64xi64>"},
                              Case{"kimi_k2_1_layer.mlir", "batch=128,seq=64", "tensor<128x64x7168xbf16>"}}) {
            import::ImportOptions options;
            options.sizes = *analysis::parseGlobalSizes(c.sizes);
            const std::string path = sharedModel(QString::fromLatin1(c.file)).toStdString();
            auto model = loadModel(path);
            auto resized = loadModel(path, options);
            QVERIFY2(resized, (std::string(c.file) + ": " + firstError(resized.diagnostics())).c_str());
            std::string inputs;
            for (const auto& a : resized->graph.arguments)
                if (a.role == ArgumentRole::Input)
                    inputs += resized->graph.type(a.value).toString() + " ";
            QVERIFY2(inputs.find(c.input) != std::string::npos,
                     (std::string(c.file) + ": " + inputs).c_str());
            const auto before = computeStatistics(model->graph), after = computeStatistics(resized->graph);
            QCOMPARE(after.parameterCount, before.parameterCount);
            QVERIFY2(after.flops > before.flops, c.file);
            qInfo("%-26s %-16s FLOPs %.3g -> %.3g, activations %.3g -> %.3g GB", c.file, c.sizes,
                  before.flops, after.flops, static_cast<double>(before.activationBytes) / 1e9,
                  static_cast<double>(after.activationBytes) / 1e9);
        }
        // ONNX exports (static shapes): everything a batch carries scales with it.
        for (const auto& [file, sizes, ratio] : {std::tuple{"vit_b_16.onnx", "batch=16", 2.0},
                                                 std::tuple{"transformer_encoder12.onnx", "batch=16", 8.0},
                                                 std::tuple{"resnet50.onnx", "batch=2", 0.25}}) {
            const std::string path = QDir(testing::sharedDir())
                                         .filePath(QStringLiteral("models/onnx/") + QString::fromLatin1(file))
                                         .toStdString();
            import::ImportOptions options;
            options.sizes = *analysis::parseGlobalSizes(sizes);
            auto model = loadModel(path);
            auto resized = loadModel(path, options);
            QVERIFY2(model && resized,
                     (std::string(file) + ": " + firstError(resized.diagnostics())).c_str());
            const double flops = computeStatistics(model->graph).flops,
                         after = computeStatistics(resized->graph).flops;
            QVERIFY2(std::abs(after / flops - ratio) < 1e-9,
                     (std::string(file) + ": " + std::to_string(after / flops)).c_str());
        }
        // A batch-1 BERT export planned at batch 64 and 128 tokens: the data-parallel plan applies to its
        // batch.
        const Run bert =
            cli({"evaluate", sharedModel(QStringLiteral("pt_bert.mlir")), "--set", "batch=64,seq=128",
                 "--train", "--mesh", "data=8", "--plan", "expert:dp", "--json"});
        QVERIFY2(bert.exitCode == 0, qPrintable(bert.err));
        const QJsonObject evaluation = QJsonDocument::fromJson(bert.out.toUtf8()).object();
        QVERIFY2(evaluation.value(QStringLiteral("step_time_s")).toDouble() > 0,
                 qPrintable(bert.out.left(400)));
        QVERIFY(evaluation.value(QStringLiteral("feasible")).toBool());
        bool noted = false;  // the resize is said among the warnings
        for (const auto& w : evaluation.value(QStringLiteral("warnings")).toArray())
            noted = noted ||
                    w.toObject().value(QStringLiteral("code")).toString() == QStringLiteral("model.resized");
        QVERIFY(noted);
        qInfo("pt_bert.mlir at batch 64, seq 128, training step, dp on data=8: %.2f ms, peak %.2f GB",
              evaluation.value(QStringLiteral("step_time_s")).toDouble() * 1e3,
              evaluation.value(QStringLiteral("peak_memory_bytes")).toDouble() / 1e9);
        // Exported at the new sizes (the graph is printed, not the file's own text patched): it imports at
        // them.
        QTemporaryDir dir;
        const QString exported = dir.filePath(QStringLiteral("bert.mlir"));
        const Run exporting =
            cli({"export", sharedModel(QStringLiteral("pt_bert.mlir")), "--set", "batch=32,seq=128", "--mesh",
                 "data=8", "--plan", "expert:dp", "-o", exported});
        QVERIFY2(exporting.exitCode == 0, qPrintable(exporting.err));
        const Run reimported = cli({"info", exported});
        QVERIFY2(
            reimported.exitCode == 0 && reimported.out.contains(QStringLiteral("tensor<32x128xi32> (input)")),
            qPrintable(reimported.out));
        // BERT has 512 positions: a longer sequence is an error naming the slice of its position ids.
        const Run tooLong = cli({"info", sharedModel(QStringLiteral("pt_bert.mlir")), "--set", "seq=600"});
        QCOMPARE(tooLong.exitCode, 1);
        QVERIFY2(tooLong.err.contains(
                     QStringLiteral("'stablehlo.slice' cannot follow the new sizes (seq 7 -> 600)")),
                 qPrintable(tooLong.err));
    }
};

QTEST_GUILESS_MAIN(TestResize)
#include "tst_resize.moc"
