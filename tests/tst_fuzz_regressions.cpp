// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The fuzz targets' inputs kept in the repository, and the bugs found while fuzzing, kept fixed.
// replay() runs every hand-written seed (tests/fuzz/seeds/) and every input that once crashed, hung or broke
// a contract in a target (tests/fuzz/regressions/) through that target's code (tests/fuzz/fuzz_inputs.h),
// which aborts when the engine breaks a promise; in the sanitizer build (.ci/sanitizers) it also catches
// memory errors and undefined behaviour. The other cases pin the behaviour a fix gave, in any build.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdio>
#include <fstream>
#include <string>

#include "fuzz/fuzz_inputs.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/session/problem.h"
#include "test_paths.h"

using namespace shardscope;

namespace {

const QStringList kInputDirs = {
    (shardscope::testing::sourceDir() + QStringLiteral("/tests/fuzz/seeds")),
    (shardscope::testing::sourceDir() + QStringLiteral("/tests/fuzz/regressions"))};

std::string readFile(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return file.readAll().toStdString();
}

}  // namespace

class TestFuzzRegressions : public QObject {
    Q_OBJECT

private slots:
    void replay_data();
    void replay();
    void problemSpecOfAPathThatIsNotUtf8();
    void fieldsOfAnotherTypeAreFormatErrors_data();
    void fieldsOfAnotherTypeAreFormatErrors();
};

void TestFuzzRegressions::replay_data() {
    QTest::addColumn<QString>("path");
    int count = 0;
    for (const QString& dir : kInputDirs)
        for (const QString& file : QDir(dir).entryList(QDir::Files, QDir::Name)) {
            QTest::newRow(qPrintable(file)) << dir + "/" + file;
            ++count;
        }
    QVERIFY2(count > 0, qPrintable("no inputs in " + kInputDirs.join(" or ")));
}

// Each file is named <target>-<what>: the target whose code it goes through.
void TestFuzzRegressions::replay() {
    QFETCH(QString, path);
    const std::string bytes = readFile(path);
    const QString name = QFileInfo(path).fileName();
    if (name.startsWith("fuzz_stablehlo-"))
        fuzz::stableHloText(bytes);
    else if (name.startsWith("fuzz_onnx-"))
        fuzz::onnxModel(bytes);
    else if (name.startsWith("fuzz_plan_json-"))
        fuzz::planJson(bytes);
    else if (name.startsWith("fuzz_workspace-"))
        fuzz::workspaceFile(bytes);
    else if (name.startsWith("fuzz_cli_json-"))
        fuzz::cliJson(bytes);
    else if (name.startsWith("fuzz_workspace_fields-"))
        fuzz::workspaceFields(bytes);
    else
        QFAIL(qPrintable(
            name +
            ": the name must start with fuzz_stablehlo-, fuzz_onnx-, fuzz_plan_json-, fuzz_workspace-, "
            "fuzz_cli_json- or fuzz_workspace_fields-"));
}

// Found reading the harnesses' paths through the engine: a model file whose path is not UTF-8 (any bytes are
// a valid Linux path) made problemSpecJson() throw nlohmann's type_error 316, so `shardscope-cli search` on
// such a file with --workspace aborted. The path's bad bytes now become U+FFFD; the spec still reads back.
void TestFuzzRegressions::problemSpecOfAPathThatIsNotUtf8() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.path().toStdString() + "/model\xff\xfe.mlir";
    {
        std::ofstream file(path, std::ios::binary);  // not QFile: the name's bytes must stay as they are
        file << "func.func @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16x4xf32>) -> tensor<8x4xf32> {\n"
                "  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : "
                "(tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>\n"
                "  return %0 : tensor<8x4xf32>\n}\n";
        QVERIFY(file.good());
    }
    ProblemSpec spec;
    spec.model = path;
    spec.mesh = "data=2";
    auto problem = loadProblem(spec);
    std::remove(path.c_str());
    QVERIFY2(problem.ok(), problem.ok() ? "" : problem.diagnostics().front().message.c_str());
    std::string json;
    try {
        json = problemSpecJson(**problem);
    } catch (const std::exception& e) {
        QFAIL(qPrintable(QStringLiteral("problemSpecJson threw: ") + e.what()));
    }
    auto reread = parseProblemSpec(json, "spec");
    QVERIFY2(reread.ok(), reread.ok() ? "" : reread.diagnostics().front().message.c_str());
    const QString model = QString::fromStdString(reread->model);
    QVERIFY2(
        model.startsWith(dir.path() + "/model") && model.endsWith(".mlir") && model.contains(QChar(0xFFFD)),
        qPrintable(model));
}

// Found by fuzz_plan_json (regressions/fuzz_plan_json-format-not-a-string.json): nlohmann's json::value()
// throws when a field holds another type, so a plan file with `"format": [...]` aborted `shardscope-cli
// evaluate --plan` and the explorer's Open plan. The problem description a workspace keeps had the same
// reads, and read an out-of-range float as an integer (undefined behaviour). Each is now an error that names
// the file.
void TestFuzzRegressions::fieldsOfAnotherTypeAreFormatErrors_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("plan format a list")
        << "plan"
        << R"({"format": [1], "version": 1})"
        << R"(f.json: not a Shardscope plan (expected "format": "shardscope-plan"))";
    QTest::newRow("plan format a number")
        << "plan"
        << R"({"format": 7})"
        << R"(f.json: not a Shardscope plan (expected "format": "shardscope-plan"))";
    QTest::newRow("problem format an object") << "problem"
                                              << R"({"format": {}})"
                                              << "f.json: not a Shardscope problem description";
    const QString head =
        R"({"format": "shardscope-problem", "model": "zoo:demo", "mesh": "data=2", "hardware": "h100", "cost": {})";
    QTest::newRow("problem version a string")
        << "problem" << head + R"(, "version": "1"})"
        << R"(f.json: problem version "1" is not one this Shardscope reads (1))";
    QTest::newRow("problem version too new")
        << "problem" << head + R"(, "version": 2})"
        << "f.json: problem version 2 is not one this Shardscope reads (1)";
    QTest::newRow("problem dimension a huge float")
        << "problem" << head + R"(, "dimensions": {"batch": 1e300}})"
        << "f.json: dimension 'batch' is not an integer";
    QTest::newRow("problem train a string") << "problem" << head + R"(, "train": "yes"})"
                                            << "f.json: 'train' must be true or false, not a string";
}

void TestFuzzRegressions::fieldsOfAnotherTypeAreFormatErrors() {
    QFETCH(QString, kind);
    QFETCH(QString, json);
    QFETCH(QString, message);
    const std::string text = json.toStdString();
    std::vector<Diagnostic> diagnostics;
    if (kind == "plan") {
        fuzz::planJson(text);  // aborted before the fix
        ProblemSpec spec;
        spec.model = "zoo:demo";
        spec.mesh = "data=2";
        auto problem = loadProblem(spec);
        QVERIFY(problem.ok());
        auto plan = plan::parsePlan(text, (*problem)->costModel->planContext(), (*problem)->mesh, "f.json");
        QVERIFY(!plan.ok());
        diagnostics = plan.diagnostics();
    } else {
        auto spec = parseProblemSpec(text, "f.json");
        QVERIFY(!spec.ok());
        diagnostics = spec.diagnostics();
    }
    QCOMPARE(QString::fromStdString(diagnostics.front().message), message);
}

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "tst_fuzz_regressions.moc"
