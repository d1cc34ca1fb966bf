// The fuzz targets' inputs kept in the repository, and the bugs found while fuzzing, kept fixed.
// replay() runs every hand-written seed (tests/fuzz/seeds/) and every input that once crashed, hung or broke a
// contract in a target (tests/fuzz/regressions/) through that target's code (tests/fuzz/fuzz_inputs.h), which
// aborts when the engine breaks a promise; in the sanitizer build (.ci/sanitizers) it also catches memory errors
// and undefined behaviour. The other cases pin the behaviour a fix gave, in any build.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdio>
#include <fstream>
#include <string>

#include "fuzz/fuzz_inputs.h"
#include "shardscope/problem.h"

using namespace shardscope;

namespace {

const QStringList kInputDirs = {QStringLiteral(SHARDSCOPE_SOURCE_DIR "/tests/fuzz/seeds"),
                                 QStringLiteral(SHARDSCOPE_SOURCE_DIR "/tests/fuzz/regressions")};

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
    else
        QFAIL(qPrintable(name + ": the name must start with fuzz_stablehlo-, fuzz_onnx-, fuzz_plan_json- or fuzz_workspace-"));
}

// Found reading the harnesses' paths through the engine: a model file whose path is not UTF-8 (any bytes are a
// valid Linux path) made problemSpecJson() throw nlohmann's type_error 316, so `shardscope-cli search` on such a
// file with --workspace aborted. The path's bad bytes now become U+FFFD; the spec still reads back.
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
    QVERIFY2(model.startsWith(dir.path() + "/model") && model.endsWith(".mlir") && model.contains(QChar(0xFFFD)),
             qPrintable(model));
}

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "tst_fuzz_regressions.moc"
