// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// shardscope-cli as a user runs it: info on zoo models (text and JSON), listings, help, and one-line errors.
#include <sqlite3.h>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <QtTest>

#include "shardscope/store/workspace.h"
#include "test_paths.h"
#include "test_support.h"

using namespace shardscope;

namespace {

using shardscope::testing::cli;
using shardscope::testing::Run;

// Writes `text` to `name` in `dir` and returns the path; a failure ends the test program.
QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

// A model of two outputs ('logits' of w_logits, 'aux' of w_aux), as an inference export has them.
const QByteArray kTwoHeads =
    R"(func.func @main(%arg0: tensor<4x8xf32> {jax.arg_info = "x"}, %arg1: tensor<8x8xf32> {jax.arg_info = "w_logits"},
                %arg2: tensor<8x3xf32> {jax.arg_info = "w_aux"}) -> (tensor<4x8xf32> {jax.result_info = "logits"}, tensor<4x3xf32> {jax.result_info = "aux"}) {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x3xf32>
}
)";

}  // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void infoOnGpt3PrintsItsParameters() {
        const Run r = cli({"info", "zoo:gpt3-175b"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
        QRegularExpression line(R"(parameters\s+(\d+\.\d+) B\s+\((\d+),)");
        auto match = line.match(r.out);
        QVERIFY2(match.hasMatch(), qPrintable(r.out));
        const double count = match.captured(2).toDouble();
        QVERIFY(std::abs(count - 175e9) / 175e9 < 0.01);
        QVERIFY(r.out.contains("dot_general"));
        QVERIFY(r.out.contains("tokens: tensor<8x2048xi32> (input)"));
        QVERIFY(r.out.contains("output      logits: tensor<8x2048x50257xbf16>"));
    }

    void infoJsonIsVersionedAndComplete() {
        const Run r = cli({"info", "zoo:gpt:layers=2,d_model=128,heads=4,seq=32,vocab=100", "--json"});
        QCOMPARE(r.exitCode, 0);
        QJsonParseError error;
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8(), &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(o["version"].toInt(), 1);
        QCOMPARE(o["model"].toObject()["name"].toString(), QString("gpt"));
        const QJsonObject parameters = o["parameters"].toObject();
        // embed 100x128 + positions 32x128 + 2 layers x (4 linear with bias + 2 norms + MLP) + final norm
        const qint64 perLayer = 4 * (128 * 128 + 128) + 2 * 256 + (128 * 512 + 512) + (512 * 128 + 128);
        QCOMPARE(parameters["count"].toInteger(), 100 * 128 + 32 * 128 + 2 * perLayer + 256);
        QCOMPARE(parameters["list"].toArray().size(), parameters["tensors"].toInt());
        QVERIFY(o["ops"].toObject()["by_kind"].toObject()["dot_general"].toInt() == 2 * 8 + 1);
        QVERIFY(o["flops"].toDouble() > 0);
        QVERIFY(o["bytes"].toObject().contains("activations"));
        QCOMPARE(o["inputs"].toArray().first().toObject()["name"].toString(), QString("tokens"));
        QCOMPARE(o["outputs"].toArray().first().toObject()["shape"].toArray().size(), 3);
    }

    void zooListsFamiliesAndPresets() {
        const Run text = cli({"zoo"});
        QCOMPARE(text.exitCode, 0);
        for (const char* name :
             {"gpt", "llama", "moe", "vit", "unet", "mlp", "gpt3-175b", "llama3-70b", "mixtral-8x7b"})
            QVERIFY2(text.out.contains(name), name);
        const Run json = cli({"zoo", "--json"});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QVERIFY(o["presets"].toArray().size() >= 9);
    }

    void calibratePrintsRunsAndTheSummary() {
        const Run r = cli({"calibrate", "--run", "korthikanti-22b-selective-sp"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
        const QRegularExpression row(
            R"(korthikanti-22b-selective-sp\s+korthikanti-22b\s+8\s+megatron-sp\s+selective\s+\d+\.\d{3} s\s+1\.100 s\s+\d+\.\d\d\s+\d+\.\d\s+(yes|no))");
        QVERIFY2(row.match(r.out).hasMatch(), qPrintable(r.out));
        QVERIFY2(
            r.out.contains(QRegularExpression(
                R"(median \|error\| \d+\.\d%, worst \d+\.\d% \(korthikanti-22b-selective-sp\) over 1 predicted runs)")),
            qPrintable(r.out));
        QVERIFY2(!r.out.contains("selective*") && !r.out.contains("predicted without rematerialization"),
                 qPrintable(r.out));

        const Run pipeline = cli({"calibrate", "--run", "megatron-177b"});
        QCOMPARE(pipeline.exitCode, 0);
        QVERIFY2(pipeline.out.contains(QRegularExpression(
                     R"(megatron-sp@model\+zero2@data\+pp@pipe\s+none\s+\d+\.\d{3} s\s+5\.259 s)")),
                 qPrintable(pipeline.out));
        QVERIFY(pipeline.out.contains("over 1 predicted runs"));

        const Run json = cli({"calibrate", "--run", "megatron-70b", "--json"});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(o["version"].toInt(), 1);
        const QJsonObject run = o["runs"].toArray().first().toObject();
        QCOMPARE(run["status"].toString(), QString("predicted"));
        QCOMPARE(run["pipeline_parallel"].toInt(), 2);
        QCOMPARE(run["measured_step_s"].toDouble(), 2.1770);
        QCOMPARE(o["summary"].toObject()["predicted"].toInt(), 1);

        const Run unknown = cli({"calibrate", "--run", "nope"});
        QCOMPARE(unknown.exitCode, 1);
        QVERIFY2(
            unknown.err.startsWith(
                "shardscope-cli: error: no calibration run 'nope' (runs: korthikanti-22b-selective-sp, "),
            qPrintable(unknown.err));
    }

    // A run that cannot be predicted shows its error on its row; a malformed runs file fails the command.
    void calibrateKeepsARunsErrorOnItsRow() {
        QTemporaryDir dir;
        const QByteArray run =
            R"({"id": "ID", "source": "a test", "model": "zoo:gpt:layers=2,d_model=64,heads=4,seq=32,batch=8,vocab=128",
            "train": {"optimizer": "adam", "mixed_precision": true}, "hardware": "HW", "mesh": "data=8", "devices": 8,
            "pipeline_parallel": 1, "plan": "dp", "remat": "none", "global_batch": 8, "micro_batch": 1,
            "measured": {"value": 0.01, "unit": "s/iter"}, "measured_step_s": 0.01, "derivation": "as published"})";
        QByteArray good = run, bad = run;
        good.replace("ID", "good").replace("HW", "h100");
        bad.replace("ID", "bad").replace("HW", "no-such-gpu");
        const QString path = writeFile(
            dir, "runs.json",
            R"({"format": "shardscope-calibration-runs", "version": 1, "runs": [)" + good + "," + bad + "]}");
        const Run r = cli({"calibrate", "--runs", path});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QRegularExpression(R"(\nbad .* error: run bad: .*no-such-gpu)")),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains("over 1 predicted runs"), qPrintable(r.out));

        const QString broken =
            writeFile(dir, "broken.json",
                      R"({"format": "shardscope-calibration-runs", "version": 1, "runs": [)" +
                          QByteArray(run).replace("\"dp\"", "7") + "]}");
        const Run failed = cli({"calibrate", "--runs", broken});
        QCOMPARE(failed.exitCode, 1);
        QVERIFY2(failed.err.contains(broken + ": run 1 (ID): 'plan' must be a non-empty string"),
                 qPrintable(failed.err));
        QVERIFY(failed.out.isEmpty());
    }

    void printWritesStableHlo() {
        const Run r = cli({"print", "zoo:demo"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith("module @demo {\n  func.func public @main("));
        QVERIFY(r.out.contains("stablehlo.dot_general"));
    }

    void analyzeReportsNamesGroupsAndConflicts() {
        const Run text = cli({"analyze", "zoo:gpt:layers=2,d_model=64,heads=4,seq=16,vocab=100"});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("names       12 "));
        QVERIFY(text.out.contains("repeated name seq"));
        const Run json =
            cli({"analyze", "zoo:gpt:layers=2,d_model=64,heads=4,seq=16,vocab=100", "--train", "--json"});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(o["version"].toInt(), 1);
        QVERIFY(o["names"].toArray().size() >= 12);
        QCOMPARE(o["groups"].toArray().size(), 8);
        QCOMPARE(o["conflicts"].toArray().first().toObject()["kind"].toString(), QString("repeated"));
    }

    // `rules FILE`: one line per op, @function:line: rule in Shardy's notation, for every function of the
    // file.
    void rulesPrintsShardyNotation() {
        QTemporaryFile file(QDir::tempPath() + "/rules_XXXXXX.mlir");
        QVERIFY(file.open());
        file.write(
            "func.func @dot_general_no_batching_dims(%arg0: tensor<8x32xf32>, %arg1: tensor<32x16xf32>) -> "
            "tensor<8x16xf32> {\n"
            "  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x32xf32>, "
            "tensor<32x16xf32>) -> tensor<8x16xf32>\n"
            "  return %0 : tensor<8x16xf32>\n"
            "}\n"
            "func.func @negate(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
            "\n"
            "  %0 = stablehlo.negate %arg0 : tensor<4xf32>\n"
            "  return %0 : tensor<4xf32>\n"
            "}\n");
        file.close();
        const Run r = cli({"rules", file.fileName()});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, QString("@dot_general_no_batching_dims:2: ([i, k], [k, j])->([i, j]) {i=8, j=16, "
                                "k=32} reduction={k}\n"
                                "@negate:7: ([i])->([i]) {i=4}\n"));
    }

    // `evaluate --json`: the documented, versioned object; a plan file round-trips through the evaluation.
    void evaluateJsonHasTheDocumentedFields() {
        const QString model = "zoo:gpt:layers=2,d_model=64,heads=4,seq=16,batch=8,vocab=100";
        const Run r = cli({"evaluate", model, "--train", "--mesh", "data=2,model=4", "--hardware", "a100",
                           "--plan", "expert:dp-tp", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o["version"].toInt(), 1);
        for (const char* key :
             {"step_time_s", "peak_memory_bytes", "capacity_bytes", "compute_time_s", "collective_time_s"})
            QVERIFY2(o[key].toDouble() > 0, key);
        QVERIFY(o["feasible"].toBool());
        const QJsonObject breakdown = o["memory_breakdown"].toObject();
        for (const char* key : {"parameters", "gradients", "optimizer_state", "activations", "temporaries"})
            QVERIFY2(breakdown.contains(key), key);
        const QJsonObject states = o["model_states"].toObject();
        for (const char* key : {"parameters", "gradients", "optimizer_state"})
            QVERIFY2(states[key].toDouble() > 0, key);
        const QJsonArray collectives = o["collectives"].toArray();
        QVERIFY(!collectives.isEmpty());
        for (const auto& c : collectives)
            for (const char* key : {"kind", "axes", "bytes", "time_s", "op"})
                QVERIFY2(c.toObject().contains(key), key);
        QCOMPARE(o["hardware"].toObject()["id"].toString(), QString("a100"));
        QCOMPARE(o["mesh"].toObject()["spec"].toString(), QString("data=2,model=4"));
        // The plan inside the evaluation is a plan file: evaluating it again gives the same figures.
        QTemporaryFile file(QDir::tempPath() + "/plan_XXXXXX.json");
        QVERIFY(file.open());
        file.write(QJsonDocument(o["plan"].toObject()).toJson());
        file.close();
        const Run again = cli({"evaluate", model, "--train", "--mesh", "data=2,model=4", "--hardware", "a100",
                               "--plan", file.fileName(), "--json"});
        QCOMPARE(again.exitCode, 0);
        const QJsonObject o2 = QJsonDocument::fromJson(again.out.toUtf8()).object();
        QCOMPARE(o2["step_time_s"].toDouble(), o["step_time_s"].toDouble());
        QCOMPARE(o2["peak_memory_bytes"].toDouble(), o["peak_memory_bytes"].toDouble());
    }

    void evaluateTextAndExperts() {
        const Run r = cli({"evaluate", "zoo:demo", "--train", "--mesh", "data=8", "--plan", "expert:zero3"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("step time"));
        QVERIFY(r.out.contains("model states"));
        QVERIFY(r.out.contains("reduce-scatter"));
        const Run all =
            cli({"evaluate", "zoo:demo", "--train", "--mesh", "data=2,model=4", "--plan", "experts"});
        QCOMPARE(all.exitCode, 0);
        for (const char* id :
             {"dp", "zero1", "zero2", "zero3", "megatron", "megatron-sp", "dp-tp", "fsdp-tp"})
            QVERIFY2(all.out.contains(id), id);
    }

    // Remat decisions in `evaluate`'s text and JSON; an expert's remat variant by name; a bad policy in a
    // plan file names the file and the entry.
    void evaluateShowsRemat() {
        const Run r =
            cli({"evaluate", "zoo:demo", "--train", "--mesh", "data=8", "--plan", "expert:fsdp+full"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("plan          zero3+full: "), qPrintable(r.out));
        QVERIFY2(r.out.contains("\nremat         layers.*: full\n"), qPrintable(r.out));
        const Run none =
            cli({"evaluate", "zoo:demo", "--train", "--mesh", "data=8", "--plan", "expert:fsdp"});
        QVERIFY2(
            none.out.contains("\nremat         none (every forward value the backward pass reads is kept)\n"),
            qPrintable(none.out));
        const Run forward = cli({"evaluate", "zoo:demo", "--mesh", "data=8", "--plan", "expert:fsdp"});
        QVERIFY(!forward.out.contains("remat"));  // nothing to recompute without a backward pass
        const Run json = cli({"evaluate", "zoo:demo", "--train", "--mesh", "data=8", "--plan",
                              "expert:fsdp+dots-saveable", "--json"});
        QCOMPARE(json.exitCode, 0);
        const QJsonArray remat =
            QJsonDocument::fromJson(json.out.toUtf8()).object()["plan"].toObject()["remat"].toArray();
        QCOMPARE(remat.size(), 1);
        QCOMPARE(remat[0].toObject()["target"].toString(), QString("layers.*"));
        QCOMPARE(remat[0].toObject()["policy"].toString(), QString("dots-saveable"));
        QTemporaryDir dir;
        const QString bad = writeFile(
            dir, "bad.json",
            R"({"format": "shardscope-plan", "version": 1, "remat": [{"target": "layers.*", "policy": "half"}]})");
        const Run refused = cli({"evaluate", "zoo:demo", "--train", "--mesh", "data=8", "--plan", bad});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(
            refused.err.contains(
                bad + ": remat[0]: unknown remat policy \"half\" (none, selective, full or dots-saveable)"),
            qPrintable(refused.err));
        const Run unknownPolicy =
            cli({"evaluate", "zoo:demo", "--train", "--mesh", "data=8", "--plan", "expert:fsdp+half"});
        QVERIFY(unknownPolicy.exitCode != 0);
        QVERIFY2(unknownPolicy.err.contains("unknown remat policy 'half'"), qPrintable(unknownPolicy.err));
    }

    // An expert that does not fit is followed by its first remat variant that does (marked); `compare` counts
    // a remat difference as one.
    void expertsFallBackToRematAndCompareShowsIt() {
        const QString model = "zoo:gpt:layers=4,d_model=1024,heads=8,seq=4096,batch=128,vocab=512,dtype=bf16";
        const QStringList problem{model, "--train", "--mesh", "data=2,model=4", "--hardware", "tpu-v5e"};
        const Run experts = cli(QStringList{"evaluate"} + problem + QStringList{"--plan", "experts"});
        QCOMPARE(experts.exitCode, 0);
        const QRegularExpression variant(R"(\n  zero3\+(selective|dots-saveable|full) \*\s.*\syes\n)");
        QVERIFY2(variant.match(experts.out).hasMatch(), qPrintable(experts.out));
        QVERIFY(experts.out.contains(QRegularExpression(R"(\nzero3\s.*\sno\n)")));
        const Run json = cli(QStringList{"evaluate"} + problem + QStringList{"--plan", "experts", "--json"});
        bool marked = false;
        for (const auto& row : QJsonDocument::fromJson(json.out.toUtf8()).object()["experts"].toArray())
            marked = marked ||
                     (row.toObject()["remat_variant_of"].toString() == "zero3" &&
                      row.toObject()["feasible"].toBool() && !row.toObject()["remat"].toArray().isEmpty());
        QVERIFY2(marked, qPrintable(json.out));
        // The workspace keeps the expert and its variant; compare marks the remat decision only one has.
        QTemporaryDir dir;
        const QString workspace = dir.filePath("w.shardscope");
        const Run searched = cli(QStringList{"search"} + problem +
                                 QStringList{"--budget", "5it", "--workspace", workspace, "--json"});
        QCOMPARE(searched.exitCode, 0);
        int zero3 = 0, recomputed = 0;
        const Run listing = cli({"plans", workspace, "--json"});
        for (const auto& row : QJsonDocument::fromJson(listing.out.toUtf8())
                                   .object()["sessions"]
                                   .toArray()[0]
                                   .toObject()["plans"]
                                   .toArray()) {
            const QString origin = row.toObject()["origin"].toString();
            if (origin == "expert:zero3")
                zero3 = row.toObject()["id"].toInt();
            if (origin.startsWith("expert:zero3+"))
                recomputed = row.toObject()["id"].toInt();
        }
        QVERIFY2(zero3 > 0 && recomputed > 0, qPrintable(listing.out));
        const Run compared = cli({"compare", workspace + ":" + QString::number(zero3),
                                  workspace + ":" + QString::number(recomputed)});
        QCOMPARE(compared.exitCode, 0);
        QVERIFY2(compared.out.contains(
                     QRegularExpression(R"(\nremat\s+\*\s+layers\.\*: (selective|dots-saveable|full))")),
                 qPrintable(compared.out));
        const Run comparedJson = cli({"compare", workspace + ":" + QString::number(zero3),
                                      workspace + ":" + QString::number(recomputed), "--json"});
        const QJsonObject c = QJsonDocument::fromJson(comparedJson.out.toUtf8()).object();
        QVERIFY(c["a"].toObject()["remat"].toArray().isEmpty());
        QCOMPARE(c["b"].toObject()["remat"].toArray().size(), 1);
    }

    // `export` writes the plan into the model's StableHLO (Shardy or GSPMD), which the importer reads back.
    void exportShardyAndGspmd() {
        QTemporaryDir dir;
        const QString shardy = dir.filePath("demo.sdy.mlir");
        const Run a = cli({"export", "zoo:demo", "--mesh", "data=4,model=2", "--plan", "expert:dp-tp",
                           "--format", "shardy", "-o", shardy});
        QCOMPARE(a.exitCode, 0);
        QFile file(shardy);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        QVERIFY(text.contains(R"(sdy.mesh @mesh = <["data"=4, "model"=2]>)"));
        QVERIFY(
            text.contains(R"(#sdy.sharding<@mesh, [{}, {"model"}]>)"));  // fc.weight: [d_model, d_ff@model]
        const Run back = cli({"info", shardy});
        QCOMPARE(back.exitCode, 0);
        const Run gspmd = cli({"export", "zoo:demo", "--mesh", "data=4,model=2", "--plan", "expert:dp-tp",
                               "--format", "gspmd"});
        QCOMPARE(gspmd.exitCode, 0);
        QVERIFY(gspmd.out.contains(
            R"(mhlo.sharding = "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}")"));
        const Run bad = cli({"export", "zoo:demo", "--plan", "expert:dp", "--format", "xla"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("--format expects plan, evaluation, report, jax, dtensor, parallelize, "
                                  "torchtitan, megatron, shardy, gspmd, trace, got 'xla'"),
                 qPrintable(bad.err));
        // The other formats: a JAX snippet, DTensor placements, the trace, the plan and its evaluation.
        const QStringList common{"export", "zoo:demo",     "--mesh",  "data=4,model=2",
                                 "--plan", "expert:dp-tp", "--format"};
        QVERIFY(
            cli(common + QStringList{"jax"}).out.contains(R"("layers.0.mlp.fc.weight": P(None, "model"))"));
        QVERIFY(cli(common + QStringList{"dtensor"})
                    .out.contains(R"("layers.0.mlp.fc.weight": (Replicate(), Shard(1)))"));
        QVERIFY(QJsonDocument::fromJson(cli(common + QStringList{"trace"}).out.toUtf8())
                    .object()
                    .contains("traceEvents"));
        QVERIFY(QJsonDocument::fromJson(cli(common + QStringList{"plan"}).out.toUtf8())
                    .object()
                    .value("format")
                    .toString() == "shardscope-plan");
        QVERIFY(QJsonDocument::fromJson(cli(common + QStringList{"evaluation"}).out.toUtf8())
                    .object()
                    .contains("step_time_s"));
    }

    // A four-dimensional mesh of 1,024 devices on three link levels: every expert that applies evaluates,
    // the composed plan exports in every format, and the evaluation lists the levels each axis spans.
    void fourDimensionalMeshEndToEnd() {
        const QStringList model{
            "zoo:mixtral-8x7b:layers=2", "--train",    "--mixed-precision", "--set", "batch=256", "--mesh",
            "dp=4,fsdp=8,tp=8,ep=4",     "--hardware", "h100-2pods"};
        const Run all = cli(QStringList{"evaluate"} + model + QStringList{"--plan", "experts"});
        QCOMPARE(all.exitCode, 0);
        for (const char* id : {"zero3", "megatron-sp", "dp-tp", "fsdp-tp", "ep"})
            QVERIFY2(all.out.contains(QRegularExpression(QString("\\n%1 +[0-9.]+ m?s ").arg(id))), id);
        const QStringList plan{"--plan", "expert:dp@dp+fsdp@fsdp+megatron-sp@tp+ep@ep"};
        const Run text = cli(QStringList{"evaluate"} + model + plan);
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("mesh          dp=4,fsdp=8,tp=8,ep=4 = 1024 x"), qPrintable(text.out));
        QVERIFY2(text.out.contains("tp=8: 2 on 450 GB/s, 2.0 us; 4 on 50 GB/s, 8.0 us"),
                 qPrintable(text.out));
        QVERIFY2(text.out.contains("dp=4: 25 GB/s, 15.0 us"), qPrintable(text.out));
        const QJsonObject json =
            QJsonDocument::fromJson(
                cli(QStringList{"evaluate"} + model + plan + QStringList{"--json"}).out.toUtf8())
                .object();
        const QJsonArray axes = json.value("mesh").toObject().value("axes").toArray();
        QCOMPARE(axes.size(), 4);
        QCOMPARE(axes[2].toObject().value("levels").toArray().size(), 2);
        QVERIFY(!axes[3].toObject().contains("levels"));
        for (const char* format : {"shardy", "gspmd", "jax", "dtensor", "parallelize", "torchtitan",
                                   "megatron", "trace", "plan", "evaluation", "report"}) {
            const Run r = cli(QStringList{"export"} + model + plan + QStringList{"--format", format});
            QVERIFY2(r.exitCode == 0 && !r.out.isEmpty(), qPrintable(format + (": " + r.err)));
        }
        const Run shardy = cli(QStringList{"export"} + model + plan + QStringList{"--format", "shardy"});
        QVERIFY(shardy.out.contains(R"(sdy.mesh @mesh = <["dp"=4, "fsdp"=8, "tp"=8, "ep"=4]>)"));
        const Run titan = cli(QStringList{"export"} + model + plan + QStringList{"--format", "torchtitan"});
        QVERIFY2(titan.out.contains("tensor_parallel_degree = 8") &&
                     titan.out.contains("expert_parallel_degree = 4"),
                 qPrintable(titan.out));
    }

    // `export --constraints`: sharding constraints on key ops of the user's own file (found by the ops'
    // locations), read back as a reference plan; and `--format parallelize`.
    void exportConstraintsAndParallelize() {
        QTemporaryDir dir;
        const QString path = writeFile(dir, "annotated.mlir", R"(module @m {
  func.func @main(%arg0: tensor<64x256xf32> {mhlo.sharding = "{devices=[4,1,2]<=[8] last_tile_dim_replicate}"},
                  %arg1: tensor<256x512xf32> {mhlo.sharding = "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}"})
      -> tensor<64x512xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<64x256xf32>, tensor<256x512xf32>) -> tensor<64x512xf32>
    %1 = stablehlo.negate %0 : tensor<64x512xf32>
    return %1 : tensor<64x512xf32>
  }
}
)");
        const QStringList common{"export", path, "--mesh", "data=4,model=2", "--plan", "reference"};
        const Run key = cli(common + QStringList{"--format", "shardy"});  // --constraints key by default
        QCOMPARE(key.exitCode, 0);
        QVERIFY2(key.out.contains(
                     "    %sharded_0 = sdy.sharding_constraint %0 <@mesh, [{\"data\"}, {\"model\"}]> : "
                     "tensor<64x512xf32>\n    %1 = stablehlo.negate %sharded_0 :"),
                 qPrintable(key.out));
        QCOMPARE(key.out.count("sharding_constraint"), 1);
        const QString exported = dir.filePath("exported.mlir");
        QCOMPARE(cli(common + QStringList{"--format", "shardy", "-o", exported}).exitCode, 0);
        const Run again =
            cli({"evaluate", exported, "--mesh", "data=4,model=2", "--plan", "reference", "--json"});
        QCOMPARE(again.exitCode, 0);
        QVERIFY2(!again.err.contains("reference.unexpressible"), qPrintable(again.err));
        QCOMPARE(QJsonDocument::fromJson(again.out.toUtf8())
                     .object()
                     .value("plan")
                     .toObject()
                     .value("decisions")
                     .toArray()
                     .size(),
                 2);
        const Run all = cli(common + QStringList{"--format", "gspmd", "--constraints", "all"});
        QCOMPARE(all.exitCode, 0);
        QCOMPARE(all.out.count("stablehlo.custom_call @Sharding("), 2);
        QVERIFY(
            all.out.contains("@Sharding(%0) {mhlo.sharding = \"{devices=[4,2]<=[8]}\"} : "
                             "(tensor<64x512xf32>) -> tensor<64x512xf32>"));
        const Run none = cli(common + QStringList{"--format", "shardy", "--constraints", "none"});
        QCOMPARE(none.exitCode, 0);
        QVERIFY(!none.out.contains("sharding_constraint"));
        const Run bad = cli(common + QStringList{"--format", "shardy", "--constraints", "some"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("none, key or all"));

        const Run torch = cli({"export", "zoo:demo", "--mesh", "data=2,model=4", "--plan", "expert:dp-tp",
                               "--format", "parallelize"});
        QCOMPARE(torch.exitCode, 0);
        QVERIFY2(torch.out.contains("    \"layers.0.mlp.fc\": ColwiseParallel(),\n"), qPrintable(torch.out));
        QVERIFY(torch.out.contains("parallelize_module(model, mesh[\"model\"], model_plan)"));
    }

    // `--plan reference`: the shardings the model carries, evaluated like any other plan.
    void evaluateTheReferencePlan() {
        QTemporaryDir dir;
        const QString path = writeFile(dir, "annotated.mlir", R"(module @m {
  func.func @main(%arg0: tensor<64x256xf32> {mhlo.sharding = "{devices=[4,1,2]<=[8] last_tile_dim_replicate}"},
                  %arg1: tensor<256x512xf32> {mhlo.sharding = "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}"})
      -> tensor<64x512xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<64x256xf32>, tensor<256x512xf32>) -> tensor<64x512xf32>
    return %0 : tensor<64x512xf32>
  }
}
)");
        const Run r = cli({"evaluate", path, "--mesh", "data=4,model=2", "--plan", "reference", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        const QJsonArray decisions = o.value("plan").toObject().value("decisions").toArray();
        QCOMPARE(decisions.size(), 2);  // the rows on data, the columns on model
        QStringList axes;
        for (const QJsonValue& d : decisions)
            axes << d.toObject().value("axis").toString();
        axes.sort();
        QCOMPARE(axes, (QStringList{"data", "model"}));
        const Run none = cli({"evaluate", path, "--mesh", "data=4,model=2", "--plan", "none", "--json"});
        QVERIFY(QJsonDocument::fromJson(none.out.toUtf8()).object().value("peak_memory_bytes").toDouble() >
                o.value("peak_memory_bytes").toDouble());
    }

    // `search` keeps its session in a workspace; the same seed on one thread gives the same plan; `plans`
    // lists it, `compare` puts two plans side by side; pins are honoured.
    void searchPlansAndCompare() {
        QTemporaryDir dir;
        const QString workspace = dir.filePath("w.shardscope");
        const QString model = "zoo:gpt:layers=2,d_model=64,heads=4,seq=32,batch=8,vocab=128";
        const QStringList common{"search",   model,   "--train",   "--mesh", "data=2,model=2",
                                 "--budget", "150it", "--threads", "1",      "--seed",
                                 "3",        "--json"};
        const Run a =
            cli(common + QStringList{"--workspace", workspace, "--session", "first", "--pin", "batch=data"});
        QCOMPARE(a.exitCode, 0);
        const QJsonObject oa = QJsonDocument::fromJson(a.out.toUtf8()).object();
        QCOMPARE(oa["version"].toInt(), 1);
        const QJsonObject best = oa["best"].toObject();
        for (const char* key :
             {"step_time_s", "peak_memory_bytes", "feasible", "memory_breakdown", "collectives", "plan"})
            QVERIFY2(best.contains(key), key);
        QVERIFY(oa["experts"].toArray().size() >= 8);
        for (const auto& e : oa["experts"].toArray())
            for (const char* key : {"id", "step_time_s", "feasible"})
                QVERIFY2(e.toObject().contains(key), key);
        const QJsonArray decisions = best["plan"].toObject()["decisions"].toArray();
        QVERIFY(!decisions.isEmpty());
        QCOMPARE(decisions.first().toObject()["group"].toString(), QString("batch"));
        QCOMPARE(decisions.first().toObject()["axis"].toString(), QString("data"));
        QCOMPARE(best["plan"].toObject()["pinned"].toInt(), 1);
        // The same search again (a second session of the same workspace) finds the same plan.
        const Run b = cli(common + QStringList{"--workspace", workspace, "--pin", "batch=data"});
        QCOMPARE(b.exitCode, 0);
        const QJsonObject ob = QJsonDocument::fromJson(b.out.toUtf8()).object();
        QCOMPARE(ob["best"].toObject()["plan"].toObject(), best["plan"].toObject());
        QCOMPARE(ob["workspace"].toObject()["session"].toInt(), 2);
        // plans: both sessions with their plans.
        const Run listing = cli({"plans", workspace, "--json"});
        QCOMPARE(listing.exitCode, 0);
        const QJsonArray sessions =
            QJsonDocument::fromJson(listing.out.toUtf8()).object()["sessions"].toArray();
        QCOMPARE(sessions.size(), 2);
        QCOMPARE(sessions[0].toObject()["name"].toString(), QString("first"));
        QVERIFY(sessions[0].toObject()["tree_nodes"].toInt() > 10);
        const QJsonArray plans = sessions[0].toObject()["plans"].toArray();
        QVERIFY(plans.size() >= 8);
        const int firstPlan = plans.first().toObject()["id"].toInt();
        const int lastPlan = sessions[1].toObject()["plans"].toArray().last().toObject()["id"].toInt();
        QCOMPARE(cli({"label", workspace + ":" + QString::number(firstPlan), "baseline", "--note",
                      "the data-parallel start"})
                     .exitCode,
                 0);
        const Run text = cli({"plans", workspace});
        QVERIFY(text.out.contains("session 1 \"first\""));
        QVERIFY(text.out.contains("baseline"));
        QVERIFY(text.out.contains("expert:megatron"));
        // compare: across the two sessions.
        const Run compared = cli({"compare", workspace + ":" + QString::number(firstPlan),
                                  workspace + ":" + QString::number(lastPlan)});
        QCOMPARE(compared.exitCode, 0);
        QVERIFY(compared.out.contains("step time"));
        QVERIFY(compared.out.contains("decisions"));
        // A workspace of another model is refused.
        const Run other = cli({"search", "zoo:demo", "--budget", "10it", "--workspace", workspace});
        QVERIFY(other.exitCode != 0);
        QVERIFY2(other.err.contains("holds the model"), qPrintable(other.err));
    }

    // A search killed with SIGKILL leaves a workspace that opens, passes integrity_check and keeps what it
    // flushed.
    void killedSearchKeepsTheWorkspace() {
        QTemporaryDir dir;
        const QString workspace = dir.filePath("killed.shardscope");
        QProcess process;
        process.start(shardscope::testing::cliPath(),
                      {"search", "zoo:gpt:layers=2,d_model=64,heads=4,seq=32,batch=8,vocab=128", "--train",
                       "--mesh", "data=2,model=2", "--budget", "120s", "--workspace", workspace});
        QVERIFY(process.waitForStarted());
        int lines = 0;
        QElapsedTimer timer;
        timer.start();
        while (lines < 3 && timer.elapsed() < 60000) {
            process.waitForReadyRead(1000);
            lines += QString::fromUtf8(process.readAllStandardError()).count("search:");
        }
        QVERIFY2(lines >= 3, "the search reports progress once a second");
        process.kill();  // SIGKILL
        QVERIFY(process.waitForFinished());
        auto opened = store::Workspace::open(workspace.toStdString());
        QVERIFY2(opened, opened.errorMessage().c_str());
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open_v2(workspace.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr),
                 SQLITE_OK);
        sqlite3_stmt* statement = nullptr;
        QCOMPARE(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nullptr), SQLITE_OK);
        QCOMPARE(sqlite3_step(statement), SQLITE_ROW);
        QCOMPARE(QString(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0))), QString("ok"));
        sqlite3_finalize(statement);
        sqlite3_close(db);
        const auto sessions = opened->sessions();
        QCOMPARE(sessions.size(), std::size_t{1});
        QVERIFY(opened->plans(sessions.front().id).size() >= 8);  // the experts, saved before the search
        QVERIFY(opened->nodeCount(sessions.front().id) > 0);      // the tree up to the last flush
    }

    void helpEverywhere_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("top") << QStringList{"--help"} << "info";
        QTest::newRow("info") << QStringList{"info", "--help"} << "--json";
        QTest::newRow("zoo") << QStringList{"zoo", "--help"} << "--json";
        QTest::newRow("print") << QStringList{"print", "--help"} << "MODEL";
    }
    // simulate: a plan run on a simulated mesh matches the unsharded run, with the collectives the cost model
    // priced; on a zoo training step and on a user's annotated StableHLO (its reference plan).
    void simulateChecksPlansNumerically() {
        const QString model = "zoo:gpt:layers=1,d_model=16,heads=4,d_ff=32,seq=4,batch=4,vocab=16,dtype=f32";
        const Run r = cli({"simulate", model, "--train", "--mesh", "data=2,model=2", "--plan",
                           "expert:megatron-sp", "--integers", "16", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value("version").toInt(), 1);
        QCOMPARE(o.value("devices").toInt(), 4);
        QVERIFY(o.value("match").toBool());
        QVERIFY(o.value("max_scaled_difference").toDouble() < 1e-4);
        const QJsonObject collectives = o.value("collectives").toObject();
        QVERIFY(collectives.value("same").toBool());
        QVERIFY(collectives.value("executed").toInt() > 0);
        QCOMPARE(collectives.value("executed").toInt(), collectives.value("priced").toInt());

        QTemporaryDir dir;
        const QString path = writeFile(dir, "annotated.mlir", R"(module @m {
  func.func @main(%arg0: tensor<8x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[8] last_tile_dim_replicate}"},
                  %arg1: tensor<16x8xf32> {mhlo.sharding = "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}"})
      -> tensor<8x8xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
    %1 = stablehlo.tanh %0 : tensor<8x8xf32>
    return %1 : tensor<8x8xf32>
  }
}
)");
        const Run text = cli({"simulate", path, "--mesh", "data=4,model=2", "--plan", "reference"});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("(8 devices)"), qPrintable(text.out));
        QVERIFY2(text.out.contains(": match"), qPrintable(text.out));
        QVERIFY2(text.out.contains("(the same, tensor by tensor)"), qPrintable(text.out));

        const Run bad = cli({"simulate", model, "--mesh", "data=2,model=2", "--plan", "expert:ep"});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains("[plan."), qPrintable(bad.err));
    }

    // Warnings travel: every command that loads a model says the importer's warnings on stderr, one line
    // each, and every --json output has them in "warnings" (an empty array when there are none).
    void importWarningsReachEveryCommand() {
        QTemporaryDir dir;
        const QString path = writeFile(dir, "two_heads.mlir", kTwoHeads + QByteArray("---\n"));
        const QString line = path + ":7:1: warning: ignored a line that is not MLIR [stablehlo.ignored-line]";
        const QStringList problem{"--mesh", "data=2"};
        const QList<QStringList> commands{
            {"info", path, "--json"},
            {"analyze", path, "--json"},
            QStringList{"evaluate", path, "--plan", "expert:dp", "--json"} + problem,
            QStringList{"evaluate", path, "--plan", "experts", "--json"} + problem,
            QStringList{"search", path, "--budget", "20it", "--no-experts", "--json"} + problem,
            QStringList{"simulate", path, "--plan", "none", "--json"} + problem,
            QStringList{"export", path, "--plan", "none", "--format", "evaluation"} + problem,
        };
        for (const QStringList& arguments : commands) {
            const Run r = cli(arguments);
            const QString what = arguments.join(' ');
            QVERIFY2(r.exitCode == 0, qPrintable(what + "\n" + r.err));
            QVERIFY2(r.err.contains("shardscope-cli: " + line + "\n"), qPrintable(what + "\n" + r.err));
            QJsonParseError error;
            const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8(), &error).object();
            QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(what));
            const QJsonArray warnings = o["warnings"].toArray();
            QVERIFY2(warnings.size() == 1, qPrintable(what + "\n" + r.out.right(400)));
            const QJsonObject w = warnings.first().toObject();
            QCOMPARE(w["message"].toString(), QString("ignored a line that is not MLIR"));
            QCOMPARE(w["code"].toString(), QString("stablehlo.ignored-line"));
            QCOMPARE(w["severity"].toString(), QString("warning"));
            QCOMPARE(w["file"].toString(), path);
            QCOMPARE(w["line"].toInt(), 7);
        }
        for (const QStringList& arguments : {QStringList{"print", path}, QStringList{"rules", path},
                                             QStringList{"export", path, "--plan", "none"}}) {
            const Run r = cli(arguments + (arguments.first() == "export" ? problem : QStringList{}));
            QVERIFY2(r.exitCode == 0, qPrintable(arguments.join(' ') + "\n" + r.err));
            QVERIFY2(r.err.contains(line), qPrintable(arguments.join(' ') + "\n" + r.err));
            QCOMPARE(r.err.count("warning:"), 1);
        }
        // A model without warnings: silence, and an empty array.
        for (const QStringList& arguments :
             {QStringList{"info", "zoo:mlp:layers=1", "--json"},
              QStringList{"evaluate", "zoo:mlp:layers=1", "--mesh", "data=2", "--json"}}) {
            const Run clean = cli(arguments);
            QCOMPARE(clean.exitCode, 0);
            QVERIFY2(clean.err.isEmpty(), qPrintable(clean.err));
            const QJsonObject o = QJsonDocument::fromJson(clean.out.toUtf8()).object();
            QVERIFY(o.contains("warnings"));
            QCOMPARE(o["warnings"].toArray().size(), 0);
        }
    }

    // A plan's own warnings travel like the importer's: plan.batch-of-one (an expert plan on a model exported
    // with a batch of one) is on stderr and in the "warnings" of every --json output, once per command even
    // when several experts say it.
    void planWarningsReachEveryJson() {
        QTemporaryDir dir;
        const QString path = writeFile(
            dir, "one.mlir",
            R"(func.func @main(%arg0: tensor<1x8xf32> {jax.arg_info = "x"}, %arg1: tensor<8x8xf32> {jax.arg_info = "w"}) -> (tensor<1x8xf32> {jax.result_info = "y"}) {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<1x8xf32>, tensor<8x8xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}
)");
        const QString message =
            "expert plan 'dp': this model's batch has size 1 (input 'x' is tensor<1x8xf32>), so "
            "its 2 data-parallel devices all compute the same examples; export the model with "
            "a batch divisible by 2";
        const QStringList problem{"--mesh", "data=2"};
        const QList<QStringList> commands{
            QStringList{"evaluate", path, "--plan", "expert:dp", "--json"} + problem,
            QStringList{"evaluate", path, "--plan", "expert:dp", "--json", "--train"} + problem,
            QStringList{"evaluate", path, "--plan", "experts", "--json"} + problem,
            QStringList{"search", path, "--budget", "20it", "--json"} + problem,
            QStringList{"simulate", path, "--plan", "expert:dp", "--json"} + problem,
            QStringList{"export", path, "--plan", "expert:dp", "--format", "evaluation"} + problem,
        };
        for (const QStringList& arguments : commands) {
            const Run r = cli(arguments);
            const QString what = arguments.join(' ');
            QVERIFY2(r.exitCode == 0, qPrintable(what + "\n" + r.err));
            QVERIFY2(r.err.count("warning:") == 1 &&
                         r.err.contains("shardscope-cli: warning: " + message + " [plan.batch-of-one]\n"),
                     qPrintable(what + "\n" + r.err));
            QJsonParseError error;
            const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8(), &error).object();
            QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(what));
            const QJsonArray warnings = o["warnings"].toArray();
            QVERIFY2(warnings.size() == 1, qPrintable(what + "\n" + r.out.right(400)));
            const QJsonObject w = warnings.first().toObject();
            QCOMPARE(w["code"].toString(), QString("plan.batch-of-one"));
            QCOMPARE(w["message"].toString(), message);
            QCOMPARE(w["severity"].toString(), QString("warning"));
        }
    }

    // --loss-output: the output a training step's loss is taken of. Leaving outputs out is a warning (on
    // stderr and in the JSON); an output the model does not have is an error naming the ones it has.
    void lossOutputChoosesTheTrainedOutput() {
        QTemporaryDir dir;
        const QString path = writeFile(dir, "two_heads.mlir", kTwoHeads);
        const QString partial =
            "the loss uses output 'logits' only; 1 other output is not differentiated: 'aux'; pass "
            "--loss-output all "
            "to train on every output";
        const Run byDefault = cli({"info", path, "--train", "--json"});
        QCOMPARE(byDefault.exitCode, 0);
        QCOMPARE(byDefault.err, "shardscope-cli: warning: " + partial + " [train.loss-output-partial]\n");
        const QJsonArray warnings =
            QJsonDocument::fromJson(byDefault.out.toUtf8()).object()["warnings"].toArray();
        QCOMPARE(warnings.size(), 1);
        QCOMPARE(warnings.first().toObject()["message"].toString(), partial);
        QCOMPARE(warnings.first().toObject()["code"].toString(), QString("train.loss-output-partial"));

        // The loss of 'aux' (by name or index) differentiates w_aux, not w_logits: no cross-entropy, so no
        // labels.
        for (const QString& aux : {QString("aux"), QString("1")}) {
            const Run r =
                cli({"evaluate", path, "--train", "--loss-output", aux, "--mesh", "data=2", "--json"});
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.err.contains(
                         "the loss uses output 'aux' only; 1 other output is not differentiated: 'logits'"),
                     qPrintable(r.err));
            const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
            QCOMPARE(o["warnings"].toArray().size(), 1);
        }
        const Run printed = cli({"print", path, "--train", "--loss-output", "aux"});
        QCOMPARE(printed.exitCode, 0);
        QVERIFY(!printed.out.contains("labels"));
        const Run printedDefault = cli({"print", path, "--train"});
        QVERIFY(printedDefault.out.contains("labels"));

        const Run all = cli({"analyze", path, "--train", "--loss-output", "all", "--json"});
        QCOMPARE(all.exitCode, 0);
        QVERIFY2(all.err.isEmpty(), qPrintable(all.err));
        QCOMPARE(QJsonDocument::fromJson(all.out.toUtf8()).object()["warnings"].toArray().size(), 0);

        const Run unknown = cli({"search", path, "--train", "--loss-output", "logit", "--budget", "5it"});
        QCOMPARE(unknown.exitCode, 1);
        QCOMPARE(unknown.err, QString("shardscope-cli: error: no output 'logit' to take the loss of: the "
                                      "model's outputs are 0 'logits' "
                                      "tensor<4x8xf32>, 1 'aux' tensor<4x3xf32> (give a name, an index or "
                                      "all) [train.loss-output]\n"));
        const Run untrained = cli({"info", path, "--loss-output", "all"});
        QCOMPARE(untrained.exitCode, 2);
        QVERIFY2(untrained.err.contains("--loss-output requires --train"), qPrintable(untrained.err));
    }

    void helpEverywhere() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, mentions);
        const Run r = cli(arguments);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(mentions), qPrintable(r.out));
    }

    // Bad arguments: non-zero exit and one line on stderr that says why.
    void badArgumentsGiveOneLineReason_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("reason");
        QTest::newRow("no command") << QStringList{} << "A subcommand is required";
        QTest::newRow("unknown command") << QStringList{"frobnicate"} << "frobnicate";
        QTest::newRow("missing model") << QStringList{"info"} << "MODEL is required";
        QTest::newRow("unknown flag") << QStringList{"info", "zoo:demo", "--colour"} << "--colour";
        QTest::newRow("unknown model") << QStringList{"info", "zoo:gpt9"} << "unknown zoo model 'gpt9'";
        QTest::newRow("bad option") << QStringList{"info", "zoo:gpt:heads=7"}
                                    << "d_model (768) must be divisible by heads (7)";
        QTest::newRow("missing file")
            << QStringList{"info", "model.bin"} << "cannot open 'model.bin': No such file or directory";
        QTest::newRow("bad mesh") << QStringList{"evaluate", "zoo:demo", "--mesh", "data"}
                                  << "--mesh expects name=size";
        QTest::newRow("unknown hardware")
            << QStringList{"evaluate", "zoo:demo", "--hardware", "h900"} << "h900";
        QTest::newRow("unknown expert")
            << QStringList{"evaluate", "zoo:demo", "--plan", "expert:zero4"} << "unknown expert plan 'zero4'";
        QTest::newRow("missing plan")
            << QStringList{"evaluate", "zoo:demo", "--plan", "p.json"} << "cannot read plan file 'p.json'";
        QTest::newRow("bad budget")
            << QStringList{"search", "zoo:demo", "--budget", "soon"}
            << "--budget 'soon': expected a duration or a number of iterations, such as 60s, 2m or 5000it";
        QTest::newRow("bad refine") << QStringList{"search", "zoo:demo", "--refine", "1.5"}
                                    << "--refine: 1.5 is out of range: expected a fraction in [0, 1]";
        QTest::newRow("bad pin") << QStringList{"search", "zoo:demo", "--pin", "batch"}
                                 << "--pin expects LABEL=AXIS";
        QTest::newRow("unknown pin") << QStringList{"search", "zoo:demo", "--pin", "nope=data"}
                                     << "no group or name 'nope'";
        QTest::newRow("bad compare") << QStringList{"compare", "a", "b"}
                                     << "compare expects WORKSPACE.shardscope:PLAN_ID";
        QTest::newRow("missing workspace")
            << QStringList{"plans", "nothing.shardscope"} << "nothing.shardscope";
    }
    void badArgumentsGiveOneLineReason() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, reason);
        const Run r = cli(arguments);
        QVERIFY(r.exitCode > 0);
        QVERIFY(r.out.isEmpty());
        const QStringList lines = r.err.trimmed().split('\n');
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.front().startsWith("shardscope-cli: error: "), qPrintable(lines.front()));
        QVERIFY2(lines.front().contains(reason), qPrintable(lines.front()));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
