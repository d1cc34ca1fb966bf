// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Calibration against published measured runs: the built-in runs parse, every measured step time follows from
// the published figure as its row says (the numbers pinned here), malformed rows are refused naming the file
// and the row, composed plans land on the right axes, and real predictions come out of the cost model.
#include <QtTest>
#include <cmath>

#include "shardscope/calibration/calibration.h"
#include "shardscope/plan/experts.h"
#include "shardscope/session/problem.h"
#include "test_support.h"

using namespace shardscope;
using namespace shardscope::calibration;

namespace {

const Run& runNamed(const std::vector<Run>& runs, const std::string& id) {
    for (const auto& run : runs)
        if (run.id == id)
            return run;
    qFatal("no run %s", id.c_str());
}

std::vector<Run> builtin() {
    auto runs = builtinRuns();
    if (!runs)
        qFatal("%s", runs.errorMessage().c_str());
    return std::move(runs).value();
}

// Megatron-LM's num_floating_point_operations for a GPT (d_ff = 4h, no GQA, no MoE; training.py, 2024).
double megatronFlops(double batch, double seq, double layers, double hidden, double vocab) {
    return 12 * batch * seq * layers * hidden * hidden * (6 + seq / hidden + vocab / (2 * layers * hidden));
}

// One valid run that the error cases break one piece at a time.
const std::string kToyRun =
    R"({"id": "toy", "source": "a test", "table": null, "model": "zoo:gpt:layers=2,d_model=64,heads=4,seq=32,batch=8,vocab=128",
  "train": {"optimizer": "adam", "mixed_precision": true}, "hardware": "h100", "mesh": "data=4,model=2", "devices": 8,
  "pipeline_parallel": 1, "plan": "megatron-sp@model+zero1@data", "remat": "none", "global_batch": 8, "micro_batch": 2,
  "measured": {"value": 100, "unit": "tokens/s per GPU", "tokens_per_gpu_per_step": 32}, "measured_step_s": 0.32,
  "derivation": "32 tokens per GPU / 100 tokens/s"})";

std::string document(const std::string& runs) {
    return R"({"format": "shardscope-calibration-runs", "version": 1, "runs": [)" + runs + "]}";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    if (at == std::string::npos)
        qFatal("'%s' is not in the fixture", from.c_str());
    return text.replace(at, from.size(), to);
}

std::unique_ptr<Problem> smallProblem(const std::string& mesh) {
    ProblemSpec spec;
    spec.model = "zoo:gpt:layers=2,d_model=64,heads=4,seq=32,batch=8,vocab=128";
    spec.train = true;
    spec.mixedPrecision = true;
    spec.mesh = mesh;
    auto problem = loadProblem(spec);
    if (!problem)
        qFatal("%s", problem.errorMessage().c_str());
    return std::move(problem).value();
}

}  // namespace

class TestCalibration : public QObject {
    Q_OBJECT
private slots:
    void builtinRunsParse() {
        const auto runs = builtin();
        std::vector<std::string> ids;
        for (const auto& run : runs)
            ids.push_back(run.id);
        QCOMPARE(ids, (std::vector<std::string>{
                          "korthikanti-22b-selective-sp", "korthikanti-22b-full-recompute", "megatron-1.7b",
                          "megatron-7.1b", "megatron-16b", "megatron-70b", "megatron-177b",
                          "torchtitan-llama3.1-8b-fsdp8-eager", "torchtitan-llama3.1-8b-fsdp8-compile",
                          "torchtitan-llama3.1-8b-fsdp8-tp8"}));
        for (const auto& run : runs) {
            QVERIFY2(!run.source.empty() && !run.table.empty() && !run.derivation.empty(), run.id.c_str());
            QCOMPARE(run.optimizer, std::string("adam"));
            QVERIFY(run.mixedPrecision);
        }
        QCOMPARE(runNamed(runs, "megatron-70b").pipelineParallel, std::int64_t{2});
        QCOMPARE(runNamed(runs, "megatron-177b").mesh, std::string("pipe=6,data=48,model=8"));
        QCOMPARE(runNamed(runs, "megatron-16b").pipelineParallel, std::int64_t{1});
        QCOMPARE(runNamed(runs, "torchtitan-llama3.1-8b-fsdp8-eager").measured.memoryGiB,
                 std::optional<double>(82.4));
        QCOMPARE(runNamed(runs, "torchtitan-llama3.1-8b-fsdp8-tp8").hardware, std::string("h100-96gb-500w"));
        QCOMPARE(runNamed(runs, "megatron-1.7b").microBatch, std::optional<std::int64_t>{});
    }

    // Each row's measured step time, as a literal, and the derivation that gives it from the published
    // figure.
    void measuredStepDerivations_data() {
        QTest::addColumn<QString>("id");
        QTest::addColumn<double>("stepSeconds");
        QTest::addColumn<double>("derived");
        // Korthikanti et al. Table 4: seconds per iteration as published.
        QTest::newRow("22b selective+sp") << "korthikanti-22b-selective-sp" << 1.10 << 1.10;
        QTest::newRow("22b full") << "korthikanti-22b-full-recompute" << 1.42 << 1.42;
        // Megatron-LM: model FLOPs / (GPUs × TFLOP/s per GPU).
        QTest::newRow("1.7b") << "megatron-1.7b" << 0.45185
                              << megatronFlops(192, 4096, 24, 2048, 131072) / (48 * 408.8e12);
        QTest::newRow("7.1b") << "megatron-7.1b" << 0.80003
                              << megatronFlops(192, 4096, 30, 4096, 131072) / (96 * 465.9e12);
        QTest::newRow("16b") << "megatron-16b" << 0.84976
                             << megatronFlops(192, 4096, 32, 6144, 131072) / (192 * 489.1e12);
        QTest::newRow("70b") << "megatron-70b" << 2.1770
                             << megatronFlops(384, 4096, 84, 8192, 131072) / (768 * 419.7e12);
        QTest::newRow("177b") << "megatron-177b" << 5.2588
                              << megatronFlops(1152, 4096, 96, 12288, 131072) / (2304 * 432.8e12);
        // TorchTitan: local batch × seq / TP degree / (tokens/s per GPU).
        QTest::newRow("tt eager") << "torchtitan-llama3.1-8b-fsdp8-eager" << 2.8435 << 2.0 * 8192 / 5762;
        QTest::newRow("tt compile") << "torchtitan-llama3.1-8b-fsdp8-compile" << 2.4575 << 2.0 * 8192 / 6667;
        QTest::newRow("tt 2d") << "torchtitan-llama3.1-8b-fsdp8-tp8" << 2.8068 << 12.0 * 8192 / 8 / 4378;
    }
    void measuredStepDerivations() {
        QFETCH(QString, id);
        QFETCH(double, stepSeconds);
        QFETCH(double, derived);
        const auto runs = builtin();
        const Run& run = runNamed(runs, id.toStdString());
        QCOMPARE(run.measuredStepSeconds, stepSeconds);
        QVERIFY2(std::abs(derived - stepSeconds) < 1e-4 * stepSeconds,
                 qPrintable(QString::number(derived, 'g', 8)));
        QVERIFY(std::abs(derivedStepSeconds(run.measured, run.devices) - derived) < 1e-4 * derived);
    }

    // The Korthikanti 22B step at 1.10 s is the paper's 41.5% MFU on 8 A100s (312 TFLOP/s).
    void korthikantiMfuCrossCheck() {
        const double flops =
            72.0 * 4 * 2048 * 48 * 6144.0 * 6144 * (1 + 2048.0 / (6 * 6144) + 51200.0 / (12 * 48 * 6144));
        QVERIFY(std::abs(flops / (8 * 312e12 * 1.10) - 0.415) < 0.002);
        QCOMPARE(megatronFlops(4, 2048, 48, 6144, 51200), flops);
    }

    void parsesTheToyRun() {
        auto runs = parseRuns(document(kToyRun), "runs.json");
        QVERIFY2(runs.ok(), runs.errorMessage().c_str());
        QCOMPARE(runs->size(), std::size_t{1});
        const Run& run = runs->front();
        QCOMPARE(run.microBatch, std::optional<std::int64_t>(2));
        QCOMPARE(run.measured.tokensPerGpuPerStep, 32.0);
        QCOMPARE(run.table, std::string());
        QVERIFY(!run.measured.memoryGiB);
    }

    void refusesBadRows_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        const std::string run1 = "runs.json: run 1 (toy): ";
        auto row = [&](const char* tag, const std::string& run, const std::string& message) {
            QTest::newRow(tag) << QString::fromStdString(document(run)) << QString::fromStdString(message);
        };
        row("unknown key", replaced(kToyRun, R"("remat")", R"("speed": 1, "remat")"),
            run1 + "unknown key 'speed'");
        row("remat", replaced(kToyRun, R"("remat": "none")", R"("remat": "some")"),
            run1 + "unknown remat policy 'some' (none, selective, full or dots-saveable)");
        row("runtime", replaced(kToyRun, R"("remat": "none")", R"("remat": "none", "runtime": "jit")"),
            run1 + "unknown runtime 'jit' (xla or eager)");
        row("unit", replaced(kToyRun, "tokens/s per GPU", "tokens/s"),
            run1 + "unknown unit 'tokens/s' (s/iter, TFLOP/s per GPU or tokens/s per GPU)");
        row("missing figure", replaced(kToyRun, R"(, "tokens_per_gpu_per_step": 32)", ""),
            run1 + "'measured.tokens_per_gpu_per_step' must be a positive number");
        row("derivation", replaced(kToyRun, R"("measured_step_s": 0.32)", R"("measured_step_s": 0.33)"),
            run1 + "'measured_step_s' is 0.33 s, but 100 tokens/s per GPU gives 0.32 s");
        row("devices", replaced(kToyRun, R"("devices": 8)", R"("devices": 16)"),
            run1 + "'devices' is 16, but mesh data=4,model=2 has 8 (a pipeline's axis is part of the mesh)");
        row("batch", replaced(kToyRun, R"("global_batch": 8)", R"("global_batch": 16)"),
            run1 +
                "the model's batch is 8, but 'global_batch' is 16 (a zoo model's batch is the global batch: "
                "write "
                "zoo:gpt:layers=2,d_model=64,heads=4,seq=32,batch=8,vocab=128,batch=16)");
        row("mesh", replaced(kToyRun, R"("mesh": "data=4,model=2")", R"("mesh": "data")"),
            run1 + "mesh: --mesh expects name=size,... (e.g. data=8,model=4), got 'data'");
        row("model", replaced(kToyRun, "zoo:gpt:", "zoo:gtp:"),
            run1 + "model: unknown zoo model 'gtp' (known: ");
        row("type", replaced(kToyRun, R"("devices": 8)", R"("devices": "8")"),
            run1 + "'devices' must be a positive integer");
        row("train", replaced(kToyRun, R"("mixed_precision": true)", R"("mixed_precision": 1)"),
            run1 + "'train.mixed_precision' must be true or false");
        row("duplicate id", kToyRun + "," + kToyRun,
            "runs.json: run 2 (toy): the id 'toy' is used by an earlier run");
        row("second row",
            kToyRun + "," +
                replaced(replaced(kToyRun, R"("id": "toy")", R"("id": "two")"),
                         R"("plan": "megatron-sp@model+zero1@data")", R"("plan": 3)"),
            "runs.json: run 2 (two): 'plan' must be a non-empty string");
        QTest::newRow("not json") << "{"
                                  << "runs.json: invalid JSON";
        QTest::newRow("format") << R"({"format": "shardscope-plan", "version": 1, "runs": []})"
                                << "runs.json: 'format' must be \"shardscope-calibration-runs\"";
        QTest::newRow("version") << R"({"format": "shardscope-calibration-runs", "version": 2, "runs": []})"
                                 << "runs.json: version 2 is not supported (this build reads version 1)";
    }
    void refusesBadRows() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const auto runs = parseRuns(text.toStdString(), "runs.json");
        QVERIFY(!runs.ok());
        QCOMPARE(runs.diagnostics().front().code, std::string("calibration.parse"));
        const std::string got = runs.diagnostics().front().message;
        QVERIFY2(got.starts_with(message.toStdString()), got.c_str());
    }

    void composedPlansMapAxes() {
        const auto problem = smallProblem("data=4,model=2");
        const cost::CostModel& model = *problem->costModel;
        auto composed = plan::expertPlan("megatron-sp@model+zero1@data", model.planContext(), model.mesh());
        QVERIFY2(composed.ok(), composed.errorMessage().c_str());
        QCOMPARE(composed->label, std::string("megatron-sp@model+zero1@data"));
        // The Megatron part on the model axis (1) first, then the batch and ZeRO-1's optimizer states on data
        // (0).
        const auto& decisions = composed->decisions;
        QVERIFY(decisions.size() > 4);
        std::size_t onModel = 0;
        while (onModel < decisions.size() && decisions[onModel].axis == 1)
            ++onModel;
        QCOMPARE(onModel, std::size_t{3});  // heads, d_ff, seq
        for (std::size_t i = onModel; i < decisions.size(); ++i)
            QCOMPARE(decisions[i].axis, 0);
        QCOMPARE(model.planContext().targetLabel(decisions[onModel]), std::string("batch"));
        QCOMPARE(decisions.back().tensors,
                 static_cast<plan::TensorClassMask>(plan::maskOf(plan::TensorClass::OptimizerState) |
                                                    plan::maskOf(plan::TensorClass::OptimizerUpdate)));
        // A plain id is the expert plan on the whole mesh.
        auto whole = plan::expertPlan("dp-tp", model.planContext(), model.mesh());
        QVERIFY(whole.ok());
        auto expert = plan::expertPlan("dp-tp", model.planContext(), model.mesh());
        QCOMPARE(whole->decisions, expert->decisions);
    }

    void composedPlanErrors_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("message");
        QTest::newRow("axis")
            << "megatron@tensor"
            << "expert plan 'megatron@tensor': the mesh has no axis 'tensor' (it has data=4,model=2)";
        QTest::newRow("empty")
            << "dp+"
            << "expert plan 'dp+': an empty part (write ID, ID@AXIS or a remat policy, joined by '+')";
        QTest::newRow("id") << "zero4@data"
                            << "unknown expert plan 'zero4' (known: ";
    }
    void composedPlanErrors() {
        QFETCH(QString, spec);
        QFETCH(QString, message);
        const auto problem = smallProblem("data=4,model=2");
        const auto composed = plan::expertPlan(spec.toStdString(), problem->costModel->planContext(),
                                               problem->costModel->mesh());
        QVERIFY(!composed.ok());
        const std::string got = composed.diagnostics().front().message;
        QVERIFY2(got.starts_with(message.toStdString()), got.c_str());
    }

    void predictsTheToyRun() {
        auto runs = parseRuns(document(kToyRun), "runs.json");
        QVERIFY(runs.ok());
        const auto prediction = predict(runs->front());
        QVERIFY2(prediction.ok(), prediction.errorMessage().c_str());
        QVERIFY(prediction->stepSeconds > 0);
        QCOMPARE(prediction->ratio, prediction->stepSeconds / 0.32);
        QVERIFY(prediction->peakBytes > 0 && prediction->capacityBytes > prediction->peakBytes);
        QVERIFY(prediction->feasible);
        QVERIFY2(prediction->plan.starts_with("(layers.*.attn.heads, model)"), prediction->plan.c_str());
        QVERIFY2(prediction->plan.find("remat") == std::string::npos,
                 prediction->plan.c_str());  // "none": no decision
    }

    // A run's remat policy becomes the plan's, for every block family (the cost model prices it).
    void predictsWithTheRunsRemat() {
        auto runs =
            parseRuns(document(replaced(kToyRun, R"("remat": "none")", R"("remat": "full")")), "runs.json");
        QVERIFY(runs.ok());
        const auto prediction = predict(runs->front());
        QVERIFY2(prediction.ok(), prediction.errorMessage().c_str());
        QVERIFY2(prediction->plan.ends_with(", remat layers.*: full"), prediction->plan.c_str());
    }

    // An error of one run (here an unknown hardware profile) is that run's: it names the run, and others
    // predict.
    void oneRunFailsAlone() {
        auto runs = parseRuns(document(kToyRun + "," +
                                       replaced(replaced(kToyRun, R"("id": "toy")", R"("id": "elsewhere")"),
                                                R"("hardware": "h100")", R"("hardware": "no-such-gpu")")),
                              "runs.json");
        QVERIFY2(runs.ok(), runs.errorMessage().c_str());
        std::vector<Outcome> outcomes;
        for (const auto& run : *runs)
            outcomes.push_back(calibrate(run));
        QCOMPARE(outcomes[0].status, Outcome::Status::Predicted);
        QCOMPARE(outcomes[1].status, Outcome::Status::Failed);
        const std::string message = outcomes[1].diagnostics.front().message;
        QVERIFY2(message.starts_with("run elsewhere: ") && message.find("no-such-gpu") != std::string::npos,
                 message.c_str());
        const auto summary = summarize(*runs, outcomes);
        QCOMPARE(summary.predicted, std::size_t{1});
        QCOMPARE(summary.worstRun, std::string("toy"));
    }

    // The pipelined rows are predicted with their pipeline: stages as published, microbatches of one
    // sequence.
    void pipelineRunsArePredicted() {
        const auto runs = builtin();
        const Run& run = runNamed(runs, "megatron-177b");
        const auto prediction = predict(run);
        QVERIFY2(prediction.ok(), prediction.ok() ? "" : prediction.errorMessage().c_str());
        QVERIFY2(prediction->plan.find("pipeline pipe: 6 stages, 1f1b, 24 microbatches") != std::string::npos,
                 prediction->plan.c_str());
        qInfo("megatron-177b: predicted %.3f s, measured %.3f s, ratio %.2f", prediction->stepSeconds,
              run.measuredStepSeconds, prediction->ratio);
        QVERIFY2(std::abs(prediction->ratio - 1) < 0.3, qPrintable(QString::number(prediction->ratio)));
        // A run whose stages its plan does not have is an error naming both.
        Run flat = run;
        flat.plan = "megatron-sp@model+zero2@data";
        const auto mismatch = predict(flat);
        QVERIFY(!mismatch.ok());
        QCOMPARE(mismatch.diagnostics().front().code, std::string("calibration.pipeline"));
        QVERIFY2(mismatch.diagnostics().front().message.find("it ran 6 pipeline stages, but plan "
                                                             "megatron-sp@model+zero2@data has 1") !=
                     std::string::npos,
                 mismatch.diagnostics().front().message.c_str());
    }

    // The smallest published run, predicted for real (the numbers move with the cost model; their shape does
    // not).
    void predictsTheSmallestPublishedRun() {
        const auto runs = builtin();
        const Run& run = runNamed(runs, "megatron-1.7b");
        const auto prediction = predict(run);
        QVERIFY2(prediction.ok(), prediction.errorMessage().c_str());
        qInfo("megatron-1.7b: predicted %.3f s, measured %.3f s, ratio %.2f, peak %.1f GiB",
              prediction->stepSeconds, run.measuredStepSeconds, prediction->ratio,
              prediction->peakBytes / (1024.0 * 1024 * 1024));
        QVERIFY(prediction->stepSeconds > 0);
        QCOMPARE(prediction->ratio, prediction->stepSeconds / run.measuredStepSeconds);
        QVERIFY(prediction->peakBytes > 0);
        // 80 GB H100 less the 10% reserve.
        QVERIFY(std::abs(prediction->capacityBytes - 0.9 * 80e9) < 1e6);
        QVERIFY2(prediction->plan.starts_with("(batch, data)"), prediction->plan.c_str());
    }

    void summaryTakesMedianAndWorst() {
        std::vector<Run> runs(4);
        std::vector<Outcome> outcomes(4);
        const double ratios[] = {1.10, 0.70, 0, 1.20};
        for (int i = 0; i < 4; ++i) {
            runs[static_cast<std::size_t>(i)].id = "r" + std::to_string(i);
            outcomes[static_cast<std::size_t>(i)].status =
                i == 2 ? Outcome::Status::Failed : Outcome::Status::Predicted;
            outcomes[static_cast<std::size_t>(i)].prediction.ratio = ratios[i];
        }
        const auto summary = summarize(runs, outcomes);
        QCOMPARE(summary.predicted, std::size_t{3});
        QVERIFY(std::abs(summary.medianError - 0.20) < 1e-12);
        QVERIFY(std::abs(summary.worstError - 0.30) < 1e-12);
        QCOMPARE(summary.worstRun, std::string("r1"));
        const auto none = summarize({}, {});
        QCOMPARE(none.predicted, std::size_t{0});
        QCOMPARE(none.worstRun, std::string());
    }
};

QTEST_APPLESS_MAIN(TestCalibration)
#include "tst_calibration.moc"
