// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Bad input everywhere (issue 11, item 4), on the engine's API and through shardscope-cli as a user runs it:
// each case gives a clear error (naming the file, and the entry, name or axis) and leaves prior work intact.
//   a. corrupted and truncated workspaces;
//   b. a workspace, plan or session of another model;
//   c. plans referring to unknown names, groups, axes;
//   d. meshes that do not divide the tensors, and bad mesh specs;
//   e. a disk that fills during a search (the CLI under a file-size limit);
// and no input aborts the program (issue 24):
//   f. names, labels and paths that are not UTF-8 in JSON output;
//   g. search options the tree selection cannot take (NaN or negative exploration, many threads);
//   h. crafted workspace fields (session.settings, model.load_options of another JSON type);
//   i. nonsense numbers in options and hardware profiles;
//   j. outputs that cannot be written (a full device, a closed pipe, a file-size limit during export -o);
//   k. a file with many problems: the first few, and a count of the rest;
// and every input is bounded, every number checked (issue 24):
//   l. special files (a FIFO, a device, a directory) given as any input, the model size limit, a workspace
//   whose
//      stored model source names /dev/zero;
//   m. inlining that expands exponentially, graphs past the op limit, plans longer than the problem can use;
//   n. sizes that overflow (a StableHLO tensor, zoo options) and zoo options out of range (layers, NaN).
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

#include <sqlite3.h>
#include "sqlite_support.h"
#include "test_paths.h"
#include "test_support.h"

#include <sys/stat.h>

#include <chrono>

#include "shardscope/import/stablehlo.h"
#include "shardscope/input_file.h"
#include "shardscope/mesh/hardware.h"
#include "shardscope/mesh/mesh.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/search/search.h"
#include "shardscope/session/problem.h"
#include "shardscope/store/workspace.h"

using namespace shardscope;

namespace {

using shardscope::testing::readAll;
using shardscope::testing::snapshot;
using shardscope::testing::Snapshot;
using shardscope::testing::writeAll;

// Small enough to search in a moment; batch 8 and 4 heads, so data=3 divides nothing.
const QString kModel = QStringLiteral("zoo:gpt:layers=2,d_model=64,heads=4,seq=32,batch=8,vocab=128");
const QString kOtherModel = QStringLiteral("zoo:mlp:layers=2");

using shardscope::testing::cli;
using shardscope::testing::Run;
using shardscope::testing::runProgram;

// kModel's problem on `mesh`: what the plan cases parse against.
std::unique_ptr<Problem> problemOn(const std::string& mesh) {
    ProblemSpec spec;
    spec.model = kModel.toStdString();
    spec.mesh = mesh;
    auto problem = loadProblem(spec);
    if (!problem)
        qFatal("cannot load %s on %s: %s", qPrintable(kModel), mesh.c_str(), problem.errorMessage().c_str());
    return std::move(problem).value();
}

// The CLI given `timeoutMs` at most (a command that blocks fails the test instead of hanging it), with
// `variable=value` in its environment when given.
Run cliWithin(int timeoutMs, const QStringList& arguments, const QString& variable = {},
              const QString& value = {}) {
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    if (!variable.isEmpty())
        environment.insert(variable, value);
    process.setProcessEnvironment(environment);
    process.start(shardscope::testing::cliPath(), arguments);
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        return {-2, {}, QStringLiteral("did not finish in time")};
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

// Seconds `body` takes.
template <typename F>
double secondsOf(F&& body) {
    const auto start = std::chrono::steady_clock::now();
    body();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A module whose @main calls @f0, and each @fK calls @fK+1 twice, down to @f`depth` (one add): 2^depth calls
// when inlined, in a few kilobytes of text.
QByteArray exponentialCalls(int depth) {
    const QByteArray type = "tensor<4xf32>";
    QByteArray text = "func.func @main(%x: " + type + ") -> " + type + " {\n  %0 = call @f0(%x) : (" + type +
                      ") -> " + type + "\n  return %0 : " + type + "\n}\n";
    for (int i = 0; i < depth; ++i) {
        const QByteArray callee = "@f" + QByteArray::number(i + 1);
        text += "func.func private @f" + QByteArray::number(i) + "(%x: " + type + ") -> " + type + " {\n";
        text += "  %0 = call " + callee + "(%x) : (" + type + ") -> " + type + "\n";
        text += "  %1 = call " + callee + "(%0) : (" + type + ") -> " + type + "\n";
        text += "  return %1 : " + type + "\n}\n";
    }
    text += "func.func private @f" + QByteArray::number(depth) + "(%x: " + type + ") -> " + type + " {\n";
    text += "  %0 = stablehlo.add %x, %x : " + type + "\n  return %0 : " + type + "\n}\n";
    return text;
}

// `script` run by bash with the CLI as $CLI: for arguments that are not UTF-8 and for pipes.
Run bash(const QString& script) {
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("CLI", shardscope::testing::cliPath());
    process.setProcessEnvironment(environment);
    process.start("bash", {"-c", script});
    if (!process.waitForFinished(120000))
        qFatal("bash did not finish: %s", qPrintable(script));
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

// Whether `text` is one JSON object.
bool isJsonObject(const QString& text) {
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(text.toUtf8(), &error);
    return error.error == QJsonParseError::NoError && document.isObject();
}

using shardscope::testing::sqlite;

std::string firstError(const std::vector<Diagnostic>& diagnostics) {
    for (const auto& d : diagnostics)
        if (d.severity == Severity::Error)
            return d.message;
    return {};
}

std::vector<std::string> warnings(const std::vector<Diagnostic>& diagnostics) {
    std::vector<std::string> out;
    for (const auto& d : diagnostics)
        if (d.severity == Severity::Warning)
            out.push_back(d.message);
    return out;
}

// The one error line the CLI prints for `message` with `code`.
QString errorLine(const QString& message, const QString& code) {
    return QStringLiteral("shardscope-cli: error: %1 [%2]").arg(message, code);
}

const QString kLeftAsItWas =
    QStringLiteral("; it is left as it was (restore a copy, or start a new workspace from the model)");

}  // namespace

class TestBadInput : public QObject {
    Q_OBJECT
private:
    QTemporaryDir dir_;
    QString file(const QString& name) const { return dir_.filePath(name); }

    // A workspace of kModel with one searched session (experts, a tree and plans), made by the CLI.
    QString searchedWorkspace(const QString& name, const QString& model = kModel,
                              const QString& mesh = "data=2,model=2") {
        const QString path = file(name);
        QFile::remove(path);
        const Run r = cli(QStringList{"search", model, "--mesh", mesh, "--budget", "200it", "--threads", "1",
                                      "--json", "--workspace", path});
        if (r.exitCode != 0)
            qFatal("search failed: %s", qPrintable(r.err));
        return path;
    }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    // --- a. corrupted and truncated workspaces ---

    // Each damaged copy is refused by the engine and by every CLI command that opens workspaces, with the
    // same message; the file is not touched (bytes and modification time), and no journal is left beside it.
    void damagedWorkspacesAreRefusedAndLeftAsTheyWere_data() {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("code");
        const QString damaged =
            QStringLiteral("is damaged (truncated or corrupted) and cannot be opened") + kLeftAsItWas;
        QTest::newRow("garbage in the middle") << "middle" << damaged << "workspace.damaged";
        QTest::newRow("cut in half") << "half" << damaged << "workspace.damaged";
        QTest::newRow("cut to one page") << "page" << damaged << "workspace.damaged";
        QTest::newRow("last page cut off") << "last" << damaged << "workspace.damaged";
        QTest::newRow("cut inside the header")
            << "header"
            << QString(
                   "is not a Shardscope workspace: it is not an SQLite database "
                   "(another kind of file, or a workspace whose first page is damaged)")
            << "workspace.not-workspace";
        QTest::newRow("zeroed header")
            << "zeroed"
            << QString(
                   "is not a Shardscope workspace: it is not an SQLite database "
                   "(another kind of file, or a workspace whose first page is damaged)")
            << "workspace.not-workspace";
    }
    void damagedWorkspacesAreRefusedAndLeftAsTheyWere() {
        QFETCH(QString, damage);
        QFETCH(QString, message);
        QFETCH(QString, code);
        static QString whole;
        if (whole.isEmpty()) {
            whole = searchedWorkspace("whole.shardscope");
            QCOMPARE(sqlite(whole, "PRAGMA page_count").value(0).toInt() > 8, true);
        }
        QByteArray bytes = readAll(whole);
        const qsizetype page = 4096;
        if (damage == "middle") {
            // Noise over a whole page in the middle: the size stays right, PRAGMA quick_check finds it.
            const qsizetype at = (bytes.size() / page / 2) * page;
            for (qsizetype i = 0; i < page; ++i)
                bytes[at + i] = static_cast<char>((i * 7919 + 13) & 0xff);
        } else if (damage == "half") {
            bytes.truncate(bytes.size() / 2);
        } else if (damage == "page") {
            bytes.truncate(page);
        } else if (damage == "last") {
            bytes.truncate(bytes.size() - page);
        } else if (damage == "header") {
            bytes.truncate(60);
        } else if (damage == "zeroed") {
            for (int i = 0; i < 100; ++i)
                bytes[i] = 0;
        }
        const QString path = file("damaged.shardscope");
        QFile::remove(path);
        writeAll(path, bytes);
        QTest::qWait(20);  // a rewrite would show in the modification time
        const Snapshot before = snapshot(path);

        auto opened = store::Workspace::open(path.toStdString());
        QVERIFY(!opened);
        QCOMPARE(QString::fromStdString(firstError(opened.diagnostics())), "'" + path + "' " + message);
        QCOMPARE(QString::fromStdString(opened.diagnostics().front().code), code);
        QCOMPARE(snapshot(path), before);

        const QString line = errorLine("'" + path + "' " + message, code);
        for (const QStringList& arguments :
             {QStringList{"plans", path}, QStringList{"search", path, "--budget", "5it"},
              QStringList{"label", path + ":1", "x"}, QStringList{"compare", path + ":1", path + ":2"}}) {
            const Run r = cli(arguments);
            QCOMPARE(r.exitCode, 1);
            QVERIFY(r.out.isEmpty());
            QVERIFY2(!r.errLines().isEmpty(), qPrintable(arguments.join(' ')));
            QCOMPARE(r.errLines().front(), line);
        }
        QCOMPARE(snapshot(path), before);
        QVERIFY(!QFile::exists(path + "-wal"));
        QVERIFY(!QFile::exists(path + "-journal"));
    }

    // --- b. another model ---

    // `search MODEL_B --workspace W` where W holds MODEL_A: refused before anything is written, saying what
    // to do.
    void aSearchOfAnotherModelIsRefused() {
        const QString path = searchedWorkspace("model_a.shardscope");
        const Snapshot before = snapshot(path);
        const Run r = cli({"search", kOtherModel, "--budget", "5it", "--workspace", path});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.errLines(),
                 QStringList{"shardscope-cli: error: '" + path + "' holds the model '" + kModel + "', not '" +
                             kOtherModel + "' (to plan its model, open '" + path +
                             "' itself, or record into another workspace) [session.workspace-model]"});
        QCOMPARE(snapshot(path), before);
        QCOMPARE(sqlite(path, "SELECT count(*) FROM session"), QStringList{"1"});
    }

    // The same model path, but the file changed since the workspace was made from it.
    void aSearchOfAChangedModelFileIsRefused() {
        const QString model = file("tiny.mlir");
        const QByteArray text =
            "func.func @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16x32xf32>) -> tensor<8x32xf32> {\n"
            "  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, "
            "tensor<16x32xf32>) -> tensor<8x32xf32>\n"
            "  return %0 : tensor<8x32xf32>\n"
            "}\n";
        writeAll(model, text);
        const QString path = searchedWorkspace("tiny.shardscope", model);
        QByteArray changed = text;
        changed.replace("8x", "16x");
        writeAll(model, changed);
        const Snapshot before = snapshot(path);
        const Run r = cli({"search", model, "--budget", "5it", "--workspace", path});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.errLines(),
                 QStringList{"shardscope-cli: error: '" + model + "' has changed since '" + path +
                             "' was made from it (to plan the workspace's copy, open '" + path +
                             "' itself, or record into another workspace) [session.model-changed]"});
        QCOMPARE(snapshot(path), before);
        // The workspace's own copy is still searchable.
        QCOMPARE(cli({"search", path, "--budget", "5it", "--json"}).exitCode, 0);
    }

    // Plans of two workspaces of different models are not compared.
    void plansOfDifferentModelsAreNotCompared() {
        const QString a = searchedWorkspace("compare_a.shardscope");
        const QString b = searchedWorkspace("compare_b.shardscope", kOtherModel);
        const Run r = cli({"compare", a + ":1", b + ":1"});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.errLines(),
                 QStringList{"shardscope-cli: error: the two plans are for different models: '" + a +
                             "' holds '" + kModel + "', '" + b + "' holds '" + kOtherModel +
                             "' (compare plans of workspaces of the same model)"});
    }

    // A session whose stored model bytes fail their hash: no command resumes it, and the file is not touched.
    void aSessionWhoseModelFailsItsHashIsNotResumed() {
        const QString model = file("hashed.mlir");
        writeAll(model,
                 "func.func @main(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {\n"
                 "  %0 = stablehlo.negate %arg0 : tensor<8x16xf32>\n"
                 "  return %0 : tensor<8x16xf32>\n"
                 "}\n");
        const QString path = searchedWorkspace("hashed.shardscope", model, "data=8");
        sqlite(path, "UPDATE model SET sha256 = '" + QString(64, '0') + "'");
        const Snapshot before = snapshot(path);
        const QString message =
            "'" + path + "' is damaged: the model's bytes do not match their SHA-256" + kLeftAsItWas;
        auto opened = store::Workspace::open(path.toStdString());
        QVERIFY(!opened);
        QCOMPARE(QString::fromStdString(firstError(opened.diagnostics())), message);
        for (const QStringList& arguments :
             {QStringList{"search", path, "--budget", "5it"}, QStringList{"plans", path}}) {
            const Run r = cli(arguments);
            QCOMPARE(r.exitCode, 1);
            QCOMPARE(r.errLines(), QStringList{errorLine(message, "workspace.damaged")});
        }
        QCOMPARE(snapshot(path), before);
    }

    // --- c. plans with unknown labels ---

    // The engine's parser, `evaluate --plan FILE` and `export --plan FILE` give the same message: the file,
    // the entry, the label and what to do. A plan of another model fails on its first label.
    void plansWithUnknownLabels_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("code");
        const QByteArray head = R"({"format": "shardscope-plan", "version": 1, "mesh": "data=2,model=4", )";
        QTest::newRow("unknown group")
            << head +
                   R"("decisions": [{"group": "batch", "axis": "data"}, {"group": "layers.*.mlp.hidden", "axis": "model"}]})"
            << "decisions[1]: unknown group 'layers.*.mlp.hidden': this model has no group of that label (is "
               "the plan for another model? run "
               "`shardscope-cli analyze` for this model's groups)"
            << "plan.bad-decision";
        QTest::newRow("unknown name") << head + R"("decisions": [{"name": "experts", "axis": "data"}]})"
                                      << "decisions[0]: unknown name 'experts': this model has no name of "
                                         "that label (is the plan for another model? run "
                                         "`shardscope-cli analyze --all` for this model's names)"
                                      << "plan.bad-decision";
        QTest::newRow("unknown axis") << head + R"("decisions": [{"group": "batch", "axis": "model"}]})"
                                      << "decisions[0]: unknown mesh axis 'model' (the mesh has data; the "
                                         "plan was made for data=2,model=4)"
                                      << "plan.bad-decision";
        QTest::newRow("unknown forbidden axis")
            << head + R"("decisions": [], "forbidden": [{"group": "batch", "axis": "pipeline"}]})"
            << "forbidden[0]: unknown mesh axis 'pipeline' (the mesh has data; the plan was made for "
               "data=2,model=4)"
            << "plan.bad-decision";
        QTest::newRow("unknown tensor class")
            << head + R"("decisions": [{"group": "batch", "axis": "data", "tensors": ["weights"]}]})"
            << R"(decisions[0]: unknown tensor class "weights" (activation, parameter, gradient, optimizer_state, optimizer_update))"
            << "plan.bad-decision";
        QTest::newRow("resolution of an unknown name")
            << head + R"("decisions": [], "resolutions": [{"name": "tokens", "dimension": 1}]})"
            << "resolutions[0]: unknown name 'tokens': this model has no name of that label (is the plan for "
               "another model?)"
            << "plan.resolution";
        QTest::newRow("resolution of a dimension the name lacks")
            << head + R"("decisions": [], "resolutions": [{"name": "seq", "dimension": 5}]})"
            << "resolutions[0]: name 'seq' has no dimension 5 to choose (choose 0 to 1)"
            << "plan.resolution";
        QTest::newRow("resolution of a name that is not repeated")
            << head + R"("decisions": [], "resolutions": [{"name": "batch", "dimension": 1}]})"
            << "resolutions[0]: name 'batch' has no dimension 1 to choose (it is not repeated on any tensor)"
            << "plan.resolution";
        QTest::newRow("not a plan") << QByteArray(R"({"format": "shardscope-hardware"})")
                                    << R"(not a Shardscope plan (expected "format": "shardscope-plan"))"
                                    << "plan.format";
        QTest::newRow("truncated") << head.left(30) << "not a JSON document"
                                   << "plan.not-json";
    }
    void plansWithUnknownLabels() {
        QFETCH(QByteArray, json);
        QFETCH(QString, message);
        QFETCH(QString, code);
        const QString path = file("plan.json");
        writeAll(path, json);
        const auto problem = problemOn("data=8");
        const auto& model = *problem->costModel;
        auto parsed =
            plan::parsePlan(json.toStdString(), model.planContext(), model.mesh(), path.toStdString());
        QVERIFY(!parsed);
        QCOMPARE(QString::fromStdString(firstError(parsed.diagnostics())), path + ": " + message);
        QCOMPARE(QString::fromStdString(parsed.diagnostics().front().code), code);
        const QString line = errorLine(path + ": " + message, code);
        for (const QString& command : {QStringLiteral("evaluate"), QStringLiteral("export")}) {
            const Run r = cli({command, kModel, "--mesh", "data=8", "--plan", path});
            QCOMPARE(r.exitCode, 1);
            QVERIFY(r.out.isEmpty());
            QCOMPARE(r.errLines(), QStringList{line});
        }
    }

    // A plan carried to a mesh that lacks some of its axes (the explorer's Apply of a new mesh) keeps the
    // rest: decisions and forbidden decisions on a missing axis are left out with a warning each, the pins
    // among them shorten the pinned prefix, and anything else wrong still fails.
    void aPlanCarriedToAnotherMeshKeepsWhatApplies() {
        const auto problem = problemOn("data=8");
        const auto& model = *problem->costModel;
        const std::string json =
            R"({"format": "shardscope-plan", "version": 1, "mesh": "data=2,model=4", "pinned": 2,
            "decisions": [{"group": "batch", "axis": "model"}, {"group": "batch", "axis": "data"}, {"name": "seq", "axis": "model"}],
            "forbidden": [{"group": "batch", "axis": "pipeline"}]})";
        auto carried =
            plan::parsePlan(json, model.planContext(), model.mesh(), "the plan", plan::MissingAxes::Drop);
        QVERIFY2(carried, carried.errorMessage().c_str());
        QCOMPARE(carried->decisions.size(), std::size_t{1});
        QCOMPARE(plan::decisionText(carried->decisions.front(), model.planContext(), model.mesh()),
                 std::string("(batch, data)"));
        QCOMPARE(carried->pinned, std::size_t{1});
        QVERIFY(carried->forbidden.empty());
        QStringList warnings;
        for (const auto& d : carried.diagnostics())
            if (d.code == "plan.axis-dropped")
                warnings << QString::fromStdString(d.message);
        QCOMPARE(
            warnings,
            (QStringList{
                "the plan: decisions[0] (batch, model) is left out: the mesh has no axis 'model' (it has "
                "data)",
                "the plan: decisions[2] (seq, model) is left out: the mesh has no axis 'model' (it has data)",
                "the plan: forbidden[0] (batch, pipeline) is left out: the mesh has no axis 'pipeline' (it "
                "has data)"}));
        // Without Drop the same plan fails on its first missing axis; with it, an unknown label still fails.
        QVERIFY(!plan::parsePlan(json, model.planContext(), model.mesh(), "the plan"));
        auto unknown = plan::parsePlan(
            R"({"format": "shardscope-plan", "version": 1, "decisions": [{"group": "experts", "axis": "model"}]})",
            model.planContext(), model.mesh(), "the plan", plan::MissingAxes::Drop);
        QVERIFY(!unknown);
        QCOMPARE(unknown.diagnostics().front().code, std::string("plan.bad-decision"));
    }

    // --- d. meshes that do not divide the tensors ---

    // A decision whose axis divides no dimension of its name shards nothing: the plan is still evaluated, and
    // a warning names the decision, the axis and the size; the same for expert plans, pins and a mesh larger
    // than the batch. Decisions the mesh does divide say nothing.
    void decisionsTheMeshCannotDivideAreSaid_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QStringList>("warnings");
        const QString planFile = file("data3.json");
        writeAll(
            planFile,
            R"({"format": "shardscope-plan", "version": 1, "decisions": [{"group": "batch", "axis": "data"}]})");
        auto warning = [](const QString& origin, int index, const QString& decision, const QString& axis,
                          const QString& label, int size) {
            return QStringLiteral(
                       "shardscope-cli: warning: %1: decision %2 %3 shards nothing: %4 divides no dimension "
                       "of %5 (size %6); use an "
                       "axis whose size divides %6, or another mesh [plan.not-divisible]")
                .arg(origin)
                .arg(index)
                .arg(decision, axis, label)
                .arg(size);
        };
        QTest::newRow("plan file, data=3")
            << QStringList{"evaluate", kModel, "--mesh", "data=3", "--plan", planFile}
            << QStringList{warning(planFile, 1, "(batch, data)", "data=3", "batch", 8)};
        QTest::newRow("expert dp, data=3")
            << QStringList{"evaluate", kModel, "--mesh", "data=3", "--plan", "expert:dp"}
            << QStringList{warning("expert:dp", 1, "(batch, data)", "data=3", "batch", 8)};
        QTest::newRow("mesh larger than the batch")
            << QStringList{"evaluate", kModel, "--mesh", "data=16", "--plan", "expert:dp"}
            << QStringList{warning("expert:dp", 1, "(batch, data)", "data=16", "batch", 8)};
        QTest::newRow("pin, data=3") << QStringList{"search", kModel,       "--mesh",   "data=3",
                                                    "--pin",  "batch=data", "--budget", "20it"}
                                     << QStringList{
                                            warning("--pin", 1, "(batch, data)", "data=3", "batch", 8)};
        QTest::newRow("divisible: nothing said")
            << QStringList{"evaluate", kModel, "--mesh", "data=4", "--plan", "expert:dp"} << QStringList{};
    }
    void decisionsTheMeshCannotDivideAreSaid() {
        QFETCH(QStringList, arguments);
        QFETCH(QStringList, warnings);
        const Run r = cli(arguments);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("step time"));
        QStringList said;
        for (const QString& line : r.errLines())
            if (!line.startsWith("search: "))
                said << line;  // the search's progress lines
        QCOMPARE(said, warnings);
    }

    // The engine's check, on its own: only decisions that reach nothing because of divisibility are reported.
    void theDivisibilityCheckReportsOnlyWhatReachesNothing() {
        const auto problem = problemOn("data=3,model=2");
        const auto& model = *problem->costModel;
        auto parsed = plan::parsePlan(R"({"format": "shardscope-plan", "version": 1, "decisions": [
            {"group": "batch", "axis": "data"}, {"group": "batch", "axis": "model"}, {"group": "layers.*.mlp.d_ff", "axis": "model"}]})",
                                      model.planContext(), model.mesh(), "p.json");
        QVERIFY2(parsed, parsed.errorMessage().c_str());
        QCOMPARE(warnings(parsed.diagnostics()),
                 std::vector<std::string>{"p.json: decision 1 (batch, data) shards nothing: data=3 divides "
                                          "no dimension of batch (size 8); use "
                                          "an axis whose size divides 8, or another mesh"});
    }

    // Mesh specs with bad syntax, zero or negative sizes: exit 2 and one line naming what is wrong.
    void badMeshSpecs_data() {
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<QString>("message");
        const QString usage = QStringLiteral("--mesh expects name=size,... (e.g. data=8,model=4)");
        QTest::newRow("zero") << "data=0"
                              << "mesh axis 'data' has size 0; sizes must be at least 1";
        QTest::newRow("negative") << "data=-2"
                                  << "mesh axis 'data' has size -2; sizes must be at least 1";
        QTest::newRow("no size") << "data" << usage + ", got 'data'";
        QTest::newRow("not a number") << "data=two" << usage + ", got 'data=two'";
        QTest::newRow("empty axis") << "data=2,,model=2"
                                    << usage + ", got an empty axis in 'data=2,,model=2'";
        QTest::newRow("twice") << "data=2,data=4"
                               << "mesh axis 'data' appears twice";
        QTest::newRow("bad bandwidth")
            << "data=2:bw=fast"
            << "mesh axis 'data': bw must be a positive number of bytes/s, got 'fast'";
    }
    void badMeshSpecs() {
        QFETCH(QString, mesh);
        QFETCH(QString, message);
        auto hardware = mesh::loadHardware("h100");
        QVERIFY(hardware);
        auto made = mesh::makeMesh(mesh.toStdString(), *hardware);
        QVERIFY(!made);
        QCOMPARE(QString::fromStdString(firstError(made.diagnostics())), message);
        const Run r = cli({"evaluate", kModel, "--mesh", mesh, "--plan", "expert:dp"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.errLines().size(), 1);
        QVERIFY2(r.errLines().front().startsWith("shardscope-cli: error: "), qPrintable(r.err));
        QVERIFY2(r.errLines().front().contains(message), qPrintable(r.err));
    }

    // --- e. a disk that fills during a search ---

    // The CLI's search under a file-size limit (prlimit --fsize: every write past the limit fails with EFBIG,
    // as on a full disk). The workspace's first writes fit (the session and the expert plans), the search's
    // tree does not. The search still prints its result, says once why the rest is not saved, exits 1, and
    // the workspace reopens sound. No plan is lost: a batch that does not fit writes its plans alone, so the
    // file holds every plan the same search (one thread, an iteration budget: deterministic) saves without a
    // limit, and only tree nodes are missing.
    void aSearchWhoseDiskFillsKeepsWhatWasFlushed() {
        const QString prlimit = QStandardPaths::findExecutable(QStringLiteral("prlimit"));
        if (prlimit.isEmpty())
            QSKIP("prlimit (util-linux) is not installed");
        const QString path = file("full.shardscope");
        QFile::remove(path);
        // Enough for the schema, the session and the first new bests, not for the tree of 2000 iterations
        // (about 900 nodes on three axes). Not seeded with the experts, so the search's own plans are new
        // bests to save (on this small model data parallelism is hard to beat).
        const QStringList search = {
            "search",    kModel, "--train",         "--mesh", "data=2,model=2,pipe=2", "--budget",   "2000it",
            "--threads", "1",    "--max-decisions", "8",      "--no-experts",          "--workspace"};
        const Run r = runProgram(prlimit, QStringList{"--fsize=122880", shardscope::testing::cliPath()} +
                                              search + QStringList{path});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains("step time"), qPrintable(r.out));  // the result
        QVERIFY2(r.out.contains("workspace     " + path + ", session 1 (not all saved)"), qPrintable(r.out));
        QStringList errors;
        for (const QString& line : r.errLines())
            if (!line.startsWith("search: "))
                errors << line;
        QVERIFY(QFileInfo(path).size() <= 122880);
        // Plans in the file once it reopens: the first plans the unlimited search saves, in its order. How
        // many fit depends on when the tree's flushes fill the file, which a slower machine (or a sanitizer)
        // moves.
        auto opened = store::Workspace::open(path.toStdString());
        QVERIFY2(opened, opened.errorMessage().c_str());
        const auto plans = opened->plans(1);
        const QString unlimitedPath = file("unlimited.shardscope");
        QFile::remove(unlimitedPath);
        QCOMPARE(cli(search + QStringList{unlimitedPath}).exitCode, 0);
        auto unlimited = store::Workspace::open(unlimitedPath.toStdString());
        QVERIFY2(unlimited, unlimited.errorMessage().c_str());
        const auto expected = unlimited->plans(1);
        QVERIFY2(!plans.empty() && plans.size() <= expected.size(),
                 qPrintable(QString("%1 plans saved of %2").arg(plans.size()).arg(expected.size())));
        for (std::size_t i = 0; i < plans.size(); ++i) {
            QCOMPARE(plans[i].origin, expected[i].origin);
            QCOMPARE(plans[i].plan, expected[i].plan);
            QCOMPARE(plans[i].stepTime, expected[i].stepTime);
        }
        QVERIFY(std::any_of(plans.begin(), plans.end(),
                            [](const store::PlanRecord& p) { return p.origin == "search"; }));
        QVERIFY2(opened->nodeCount(1) < unlimited->nodeCount(1),
                 qPrintable(
                     QString("%1 of %2 tree nodes").arg(opened->nodeCount(1)).arg(unlimited->nodeCount(1))));
        QCOMPARE(
            errors,
            QStringList{errorLine(
                "cannot save the end of the search to '" + path +
                    "': the file size limit of this process is reached (ulimit -f); session 1 keeps the " +
                    QString::number(plans.size()) +
                    " plans saved before, and the search's result is still printed",
                "workspace.file-size-limit")});
        QCOMPARE(sqlite(path, "PRAGMA integrity_check"), QStringList{"ok"});
    }

    // --- f. bytes that are not UTF-8 in JSON output ---

    // A model file whose path is not UTF-8, a session name and a label that are not: every --json output
    // holds them as U+FFFD and exits 0 (nlohmann's dump threw type_error.316 and aborted the CLI, for good
    // once the workspace held such a label).
    void jsonOutputReplacesBytesThatAreNotUtf8() {
        const QString directory = file("utf8");
        QDir().mkpath(directory);
        const QString model = "\"" + directory + "/m$(printf '\\377\\376').mlir\"";
        QVERIFY(bash("\"$CLI\" print zoo:demo > " + model).exitCode == 0);
        const QString workspace = directory + "/w.shardscope";
        for (const QString& command :
             {"info " + model + " --json", "analyze " + model + " --json",
              "evaluate " + model + " --mesh data=2 --json",
              "search " + model + " --mesh data=2 --budget 20it --json --workspace " + workspace}) {
            const Run r = bash("\"$CLI\" " + command);
            QVERIFY2(r.exitCode == 0, qPrintable(command + ": " + r.err));
            QVERIFY2(isJsonObject(r.out), qPrintable(command));
            QVERIFY2(r.out.contains(QChar(0xFFFD)), qPrintable(command));
        }
        {
            auto opened = store::Workspace::open(workspace.toStdString());
            QVERIFY2(opened, opened.errorMessage().c_str());
            opened->setLabel(1, "fast \xff\xfe", "note \xc3");
            QVERIFY(opened->flush());
        }
        sqlite(workspace, "UPDATE session SET name = CAST(x'72756eff' AS TEXT)");
        for (const QStringList& arguments :
             {QStringList{"plans", workspace, "--json"}, QStringList{"plans", workspace},
              QStringList{"search", workspace, "--budget", "5it", "--json"},
              QStringList{"compare", workspace + ":1", workspace + ":1", "--json"}}) {
            const Run r = cli(arguments);
            QVERIFY2(r.exitCode == 0, qPrintable(arguments.join(' ') + ": " + r.err));
            if (arguments.contains("--json"))
                QVERIFY2(isJsonObject(r.out), qPrintable(arguments.join(' ')));
        }
        QVERIFY(cli({"plans", workspace, "--json"}).out.contains("fast \uFFFD\uFFFD"));
    }

    // --- g. search options the tree selection cannot take ---

    // Many threads on a small tree (virtual losses push every child's score below -1) and an exploration of
    // NaN or below 0 made the selection follow child -1 and crash. The CLI refuses the options it cannot
    // take; the engine selects a child whatever the scores.
    void searchOptionsDoNotCrashTheSelection() {
        const Run many =
            cli({"search", "zoo:demo", "--mesh", "data=4,model=2", "--threads", "18", "--budget", "1s"});
        QVERIFY2(many.exitCode == 0, qPrintable(many.err));
        QVERIFY(many.out.contains("step time"));
        for (const QString value : {"nan", "-2", "inf"}) {
            const Run r = cli({"search", "zoo:demo", "--exploration", value, "--budget", "50it"});
            QCOMPARE(r.exitCode, 2);
            QCOMPARE(
                r.errLines(),
                QStringList{"shardscope-cli: error: --exploration: " + value +
                            " is out of range: expected a finite number >= 0 (run with --help for usage)"});
        }
        ProblemSpec spec;
        spec.model = "zoo:demo";
        spec.mesh = "data=4,model=2";
        auto problem = loadProblem(spec);
        QVERIFY(problem);
        for (double exploration : {std::nan(""), -2.0, 1e308}) {
            search::SearchOptions options;
            options.exploration = exploration;
            options.threads = 4;
            options.budget.iterations = 300;
            const Status checked = search::checkOptions(options);
            QCOMPARE(checked.ok(), exploration == 1e308);
            search::Search engine(*(*problem)->costModel, {}, options);  // unchecked: it must still not crash
            QVERIFY(!engine.run().origin.empty());
        }
        search::SearchOptions nan;
        nan.exploration = std::nan("");
        QCOMPARE(firstError(search::checkOptions(nan).diagnostics()),
                 std::string("exploration nan: must be a finite number >= 0"));
    }

    // --- h. crafted workspace fields ---

    // session.settings and model.load_options hold JSON the store keeps as text: one of another shape gives a
    // message naming the file, the table and the column (and the field), not an abort; `plans` still lists.
    void craftedWorkspaceFieldsAreNamed_data() {
        QTest::addColumn<QString>("column");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("code");
        const QString settings = "session 1 (table session, column settings): ";
        const QString head =
            R"({"problem": {"format": "shardscope-problem", "version": 1, "model": "zoo:demo", "mesh": "data=2", "hardware": "h100", )";
        QTest::newRow("settings an array") << "settings"
                                           << "[]" << settings + "no problem description"
                                           << "problem.session";
        QTest::newRow("settings problem a number")
            << "settings"
            << R"({"problem": 5})" << settings + "problem: not a Shardscope problem description"
            << "problem.format";
        QTest::newRow("settings train a string")
            << "settings" << head + R"("train": "yes", "cost": {}}})"
            << settings + "problem: 'train' must be true or false, not a string"
            << "problem.format";
        QTest::newRow("settings cost an array")
            << "settings" << head + R"("cost": []}})" << settings + "problem: 'cost' must be an object"
            << "problem.format";
        QTest::newRow("settings reserve 2")
            << "settings" << head + R"("cost": {"memory_reserve": 2}}})"
            << settings + "problem: memory reserve 2: must be a fraction in [0, 1)"
            << "problem.format";
        QTest::newRow("settings launch a string")
            << "settings" << head + R"("cost": {"launch_s": "5us"}}})"
            << settings + "problem: 'cost.launch_s' must be a number, not a string"
            << "problem.format";
        const QString options = "table model, column load_options: ";
        QTest::newRow("load options an array") << "load_options"
                                               << "[]" << options + "not a JSON object"
                                               << "workspace.field";
        QTest::newRow("load options train a string")
            << "load_options"
            << R"({"train": "yes"})" << options + "'train' must be true or false, not a string"
            << "workspace.field";
        QTest::newRow("load options optimizer a number")
            << "load_options"
            << R"({"optimizer": 7})" << options + "'optimizer' must be a string, not 7"
            << "workspace.field";
        QTest::newRow("load options dimensions a number")
            << "load_options"
            << R"({"dimensions": 3})" << options + "'dimensions' must be an object of integers"
            << "workspace.field";
    }
    void craftedWorkspaceFieldsAreNamed() {
        QFETCH(QString, column);
        QFETCH(QString, value);
        QFETCH(QString, message);
        QFETCH(QString, code);
        static QString made;
        if (made.isEmpty())
            made = searchedWorkspace("crafted-source.shardscope", "zoo:demo", "data=2");
        const QString path = file("crafted.shardscope");
        QFile::remove(path);
        QVERIFY(QFile::copy(made, path));
        const QString table = column == "settings" ? "session" : "model";
        sqlite(path, "UPDATE " + table + " SET " + column + " = '" + value + "'");
        const QStringList command = column == "settings" ? QStringList{"compare", path + ":1", path + ":2"}
                                                         : QStringList{"search", path, "--budget", "5it"};
        const Run r = cli(command);
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.errLines(), QStringList{errorLine("'" + path + "': " + message, code)});
        const Run listed = cli({"plans", path, "--json"});
        QVERIFY2(listed.exitCode == 0, qPrintable(listed.err));
        QVERIFY(isJsonObject(listed.out));
    }

    // --- i. nonsense numbers ---

    // Every numeric option is range-checked with one line naming it; --efficiency 0 means "the tables" and
    // works.
    void nonsenseNumbersInOptionsAreRefused_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("line");
        const QStringList evaluate{"evaluate", "zoo:demo"};
        const QString usage = " (run with --help for usage)";
        QTest::newRow("launch -1")
            << evaluate + QStringList{"--launch", "-1"}
            << "shardscope-cli: error: --launch: -1 is out of range: expected seconds in [0, 1]" + usage;
        QTest::newRow("launch nan")
            << evaluate + QStringList{"--launch", "nan"}
            << "shardscope-cli: error: --launch: nan is out of range: expected seconds in [0, 1]" + usage;
        QTest::newRow("reserve 1.5")
            << evaluate + QStringList{"--reserve", "1.5"}
            << "shardscope-cli: error: --reserve: 1.5 is out of range: expected a fraction in [0, 1)" + usage;
        QTest::newRow("reserve 1")
            << evaluate + QStringList{"--reserve", "1"}
            << "shardscope-cli: error: --reserve: 1 is out of range: expected a fraction in [0, 1)" + usage;
        QTest::newRow("efficiency nan") << evaluate + QStringList{"--efficiency", "nan"}
                                        << "shardscope-cli: error: --efficiency: nan is out of range: "
                                           "expected 0 (the tables) or a fraction in (0, 1]" +
                                               usage;
        QTest::newRow("threads 0") << QStringList{"search", "zoo:demo", "--threads", "0"}
                                   << "shardscope-cli: error: --threads: Value 0 not in range 1 to 1024" +
                                          usage;
        QTest::newRow("tolerance -1")
            << QStringList{"simulate", "zoo:demo", "--plan", "none", "--tolerance", "-1"}
            << "shardscope-cli: error: --tolerance: -1 is out of range: expected a finite number >= 0" +
                   usage;
        for (const QString budget : {"nans", "infs", "-5s"})
            QTest::newRow(qPrintable("budget " + budget))
                << QStringList{"search", "zoo:demo", "--budget", budget}
                << "shardscope-cli: error: --budget '" + budget + "': must be a finite number greater than 0";
        QTest::newRow("budget 1e308s")
            << QStringList{"search", "zoo:demo", "--budget", "1e308s"}
            << "shardscope-cli: error: --budget '1e308s': at most 30 days (2.592e+06 s)";
        QTest::newRow("budget 1e308it")
            << QStringList{"search", "zoo:demo", "--budget", "1e308it"}
            << "shardscope-cli: error: --budget '1e308it': at most 1e+12 iterations";
    }
    void nonsenseNumbersInOptionsAreRefused() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, line);
        const Run r = cli(arguments);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.errLines(), QStringList{line});
    }

    void efficiencyZeroTakesTheTables() {
        const Run r = cli({"evaluate", "zoo:demo", "--efficiency", "0", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject out = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QVERIFY(out.value("step_time_s").toDouble() > 0);
        QVERIFY(!r.out.contains("nan") && !r.out.contains("null"));
        // The engine checks what the explorer and workspaces hand it too.
        cost::CostOptions options;
        options.memoryReserve = 1.5;
        QCOMPARE(firstError(checkCostOptions(options).diagnostics()),
                 std::string("memory reserve 1.5: must be a fraction in [0, 1)"));
        options = {};
        options.launchTime = std::nan("");
        QCOMPARE(firstError(checkCostOptions(options).diagnostics()),
                 std::string("launch time nan s: must be a finite number of seconds in [0, 1]"));
    }

    // Hardware figures and mesh links a cost model cannot compute with (a denormal: dividing by it overflows;
    // not finite) are refused, naming the file and the key.
    void nonsenseFiguresInProfilesAreRefused_data() {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("message");
        QTest::newRow("memory 1e-320")
            << "\"memory_bytes\": 80e9"
            << "\"memory_bytes\": 1e-320"
            << "'memory_bytes' must be a positive number: 1e-320 is too small to compute with";
        QTest::newRow("bandwidth 1e-320")
            << "\"hbm_bandwidth_bytes_per_s\": 3.35e12"
            << "\"hbm_bandwidth_bytes_per_s\": 1e-320"
            << "'hbm_bandwidth_bytes_per_s' must be a positive number: 1e-320 is too small to compute with";
        QTest::newRow("latency 1e-320")
            << "\"latency_s\": 2e-6"
            << "\"latency_s\": 1e-320"
            << "'fast_link.latency_s' must be a non-negative number: 1e-320 is too small to compute with";
        QTest::newRow("flops 1e40")
            << "\"bf16\": 989e12"
            << "\"bf16\": 1e40"
            << "'peak_flops_per_s.bf16' must be a positive number: 1e+40 is too large (at most 1e+30)";
        QTest::newRow("memory 1e999") << "\"memory_bytes\": 80e9"
                                      << "\"memory_bytes\": 1e999"
                                      << "invalid JSON: number overflow parsing '1e999'";
    }
    void nonsenseFiguresInProfilesAreRefused() {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, message);
        QString profile =
            QString::fromUtf8(readAll(shardscope::testing::sourceDir() + "/resources/hardware/h100.json"));
        QVERIFY(profile.contains(from));
        profile.replace(profile.indexOf(from), from.size(), to);
        const QString path = file("profile.json");
        writeAll(path, profile.toUtf8());
        const Run r = cli({"evaluate", "zoo:demo", "--hardware", path});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.errLines(), QStringList{errorLine(path + ": " + message, "hardware.parse")});
        const Run mesh = cli({"evaluate", "zoo:demo", "--mesh", "data=8:bw=1e-320"});
        QCOMPARE(
            mesh.errLines(),
            QStringList{errorLine("mesh axis 'data': bw must be a positive number of bytes/s, got '1e-320' "
                                  "(1e-320 is too small to compute with)",
                                  "mesh.spec")});
    }

    // --- j. outputs ---

    // A full device fails the command with a message; the old code exited 0.
    void aFullDeviceFailsTheCommand_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("line");
        const QString full = "shardscope-cli: error: cannot write the output: No space left on device";
        QTest::newRow("print") << "print zoo:demo > /dev/full" << full;
        QTest::newRow("info") << "info zoo:demo > /dev/full" << full;
        QTest::newRow("info --json") << "info zoo:demo --json > /dev/full" << full;
        QTest::newRow("plans") << "plans WORKSPACE > /dev/full" << full;
        QTest::newRow("export -o")
            << "export zoo:demo --plan expert:dp --format plan -o /dev/full"
            << "shardscope-cli: error: cannot write '/dev/full': No space left on device";
        QTest::newRow("export to stdout") << "export zoo:demo --plan expert:dp > /dev/full" << full;
    }
    void aFullDeviceFailsTheCommand() {
        QFETCH(QString, command);
        QFETCH(QString, line);
        static QString workspace;
        if (workspace.isEmpty())
            workspace = searchedWorkspace("full-device.shardscope", "zoo:demo", "data=2");
        const Run r = bash("\"$CLI\" " + QString(command).replace("WORKSPACE", workspace));
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.errLines(), QStringList{line});
    }

    // A reader that goes away (`| head -1`) ends the command quietly with status 0, as other tools end.
    void aClosedPipeEndsQuietly() {
        for (const QString command : {"print zoo:gpt2-small", "analyze zoo:gpt2-small --all", "zoo"}) {
            const Run r = bash("\"$CLI\" " + command +
                               " 2>err.txt | head -1 >/dev/null; echo \"${PIPESTATUS[0]}\"; cat err.txt");
            QCOMPARE(r.out.trimmed(), QString("0"));
        }
    }

    // export -o writes beside the file and renames: a failed export (a file-size limit) leaves the old file
    // as it was, and nothing beside it; a good one replaces it, keeping its permissions.
    void aFailedExportLeavesTheOldFile() {
        const QString prlimit = QStandardPaths::findExecutable(QStringLiteral("prlimit"));
        if (prlimit.isEmpty())
            QSKIP("prlimit (util-linux) is not installed");
        const QString directory = file("export");
        QDir().mkpath(directory);
        const QString path = directory + "/plan.json";
        writeAll(path, "precious\n");
        QFile::setPermissions(path,
                              QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup);
        const QStringList exportPlan{"export",   "zoo:demo", "--plan", "expert:dp",
                                     "--format", "plan",     "-o",     path};
        const Run failed =
            runProgram(prlimit, QStringList{"--fsize=64", shardscope::testing::cliPath()} + exportPlan);
        QCOMPARE(failed.exitCode, 1);
        QCOMPARE(failed.errLines(), QStringList{"shardscope-cli: error: cannot write '" + path +
                                                "': File too large ('" + path + "' is left as it was)"});
        QCOMPARE(readAll(path), QByteArray("precious\n"));
        QCOMPARE(QDir(directory).entryList(QDir::Files | QDir::Hidden), QStringList{"plan.json"});
        const Run written = cli(exportPlan);
        QCOMPARE(written.exitCode, 0);
        QVERIFY(readAll(path).startsWith("{"));
        QCOMPARE(QFile::permissions(path) & 0x0777,
                 QFileDevice::ReadUser | QFileDevice::WriteUser | QFileDevice::ReadGroup);
        QCOMPARE(QDir(directory).entryList(QDir::Files | QDir::Hidden), QStringList{"plan.json"});
    }

    // --- k. many problems in one file ---

    // Thirty lines the importer skips give thirty warnings: the first ten are printed, then one line counts
    // the rest.
    void manyProblemsPrintTheFirstFew() {
        const Run printed = cli({"print", "zoo:mlp:layers=1"});
        QCOMPARE(printed.exitCode, 0);
        QString text = printed.out;
        for (int i = 0; i < 30; ++i)
            text += "---\n";
        const QString path = file("dashes.mlir");
        writeAll(path, text.toUtf8());
        const Run r = cli({"info", path});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = r.errLines();
        QCOMPARE(lines.size(), 11);
        QVERIFY2(lines.front().contains("warning: ignored a line that is not MLIR"),
                 qPrintable(lines.front()));
        QCOMPARE(lines.back(), QString("shardscope-cli: ... and 20 more (20 warnings)"));
    }

    // --- l. special files, the size limit, stored sources ---

    // A FIFO nobody writes, /dev/zero, /dev/urandom and a directory, given as the model, a plan, a mesh or a
    // hardware profile: each refused at once (never blocking, never reading forever), saying what it is.
    void specialFilesAreRefusedAtOnce_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("what");
        for (const QString kind : {"fifo", "zero", "urandom", "directory"})
            for (const QString what : {"model", "plan file", "mesh file", "hardware profile"})
                QTest::newRow(qPrintable(kind + " as " + what)) << kind << what;
    }
    void specialFilesAreRefusedAtOnce() {
        QFETCH(QString, kind);
        QFETCH(QString, what);
        const QString fifo = file("pipe.json");
        if (!QFileInfo::exists(fifo))
            QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        const QString directory = file("folder.json");
        QDir().mkpath(directory);
        // Through a link named .json where a device is given as a mesh (a mesh file is told by its name).
        const QString zero = file("zero.json"), urandom = file("urandom.json");
        QFile::link("/dev/zero", zero);
        QFile::link("/dev/urandom", urandom);
        const QString path = kind == "fifo"      ? fifo
                             : kind == "zero"    ? zero
                             : kind == "urandom" ? urandom
                                                 : directory;
        const QString is = kind == "fifo"        ? "a FIFO (named pipe)"
                           : kind == "directory" ? "a directory"
                                                 : "a character device";
        QStringList arguments;
        if (what == "model")
            arguments = {"info", path};
        if (what == "plan file")
            arguments = {"evaluate", "zoo:demo", "--plan", path};
        if (what == "mesh file")
            arguments = {"evaluate", "zoo:demo", "--mesh", path};
        if (what == "hardware profile")
            arguments = {"evaluate", "zoo:demo", "--hardware", path};
        Run r;
        const double seconds = secondsOf([&] { r = cliWithin(10000, arguments); });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.errLines(), QStringList{errorLine("cannot read the " + what + " '" + path + "': it is " +
                                                         is + ", not a regular file",
                                                     "input.not-regular")});
        qInfo("%.2f s", seconds);  // a figure, not a check: tests do not time
        // The engine says the same to the explorer.
        if (what == "model") {
            auto loaded = loadModel(path.toStdString());
            QVERIFY(!loaded);
            QCOMPARE(QString::fromStdString(firstError(loaded.diagnostics())),
                     "cannot read the model '" + path + "': it is " + is + ", not a regular file");
        }
    }

    // A model file larger than SHARDSCOPE_MAX_MODEL_SIZE is refused before it is read, saying its size, the
    // limit and how to raise it; a limit that is not a size is named; under the limit the model loads.
    void theModelSizeLimitIsSaidAndCanBeRaised() {
        const QString model = file("limited.mlir");
        const QByteArray text =
            "func.func @main(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {\n"
            "  %0 = stablehlo.negate %arg0 : tensor<8x16xf32>\n"
            "  return %0 : tensor<8x16xf32>\n"
            "}\n";
        writeAll(model, text + QByteArray(2000, ' '));
        const Run small = cliWithin(20000, {"info", model}, "SHARDSCOPE_MAX_MODEL_SIZE", "1K");
        QCOMPARE(small.exitCode, 1);
        QCOMPARE(
            small.errLines(),
            QStringList{errorLine(
                "cannot read the model '" + model +
                    "': it is 2.1 KiB, more than the 1 KiB a model may "
                    "have (set SHARDSCOPE_MAX_MODEL_SIZE to allow more, e.g. SHARDSCOPE_MAX_MODEL_SIZE=8G)",
                "input.too-large")});
        const Run bad = cliWithin(20000, {"info", model}, "SHARDSCOPE_MAX_MODEL_SIZE", "lots");
        QCOMPARE(bad.exitCode, 1);
        QCOMPARE(bad.errLines(),
                 QStringList{errorLine(
                     "SHARDSCOPE_MAX_MODEL_SIZE must be a size in bytes, optionally with K, M, G or T "
                     "(e.g. 8G), got 'lots'",
                     "input.limit")});
        const Run raised = cliWithin(20000, {"info", model}, "SHARDSCOPE_MAX_MODEL_SIZE", "4K");
        QVERIFY2(raised.exitCode == 0, qPrintable(raised.err));
        // Exporting and searching read the model under the same limit.
        const Run exported =
            cliWithin(20000, {"export", model, "--plan", "none"}, "SHARDSCOPE_MAX_MODEL_SIZE", "1000");
        QCOMPARE(exported.exitCode, 1);
        QVERIFY2(exported.err.contains("more than the 1000 bytes a model may have"),
                 qPrintable(exported.err));
        QCOMPARE(parseByteSize("2G"), std::optional<std::int64_t>(std::int64_t{2} << 30));
        QCOMPARE(parseByteSize("64KiB"), std::optional<std::int64_t>(64 << 10));
        QCOMPARE(parseByteSize("100"), std::optional<std::int64_t>(100));
        for (const char* size : {"", "0", "-1", "1X", "G", "99999999999T"})
            QVERIFY2(!parseByteSize(size), size);
    }

    // A workspace keeps its model's bytes: the file its stored source names is never read again, whatever it
    // names. With the bytes there, the workspace's model is searched; without them (crafted), the search is
    // refused naming the source, and nothing blocks on /dev/zero or a FIFO.
    void aWorkspaceNeverReadsItsStoredSourcePath_data() {
        QTest::addColumn<QString>("source");
        QTest::newRow("/dev/zero") << "/dev/zero";
        QTest::newRow("/dev/urandom") << "/dev/urandom";
        QTest::newRow("/etc/shadow") << "/etc/shadow";
        QTest::newRow("a FIFO") << "FIFO";
    }
    void aWorkspaceNeverReadsItsStoredSourcePath() {
        QFETCH(QString, source);
        if (source == "FIFO") {
            source = file("stored.fifo");
            if (!QFileInfo::exists(source))
                QCOMPARE(::mkfifo(source.toLocal8Bit().constData(), 0600), 0);
        }
        const QString model = file("stored.mlir");
        writeAll(model,
                 "func.func @main(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {\n"
                 "  %0 = stablehlo.negate %arg0 : tensor<8x16xf32>\n"
                 "  return %0 : tensor<8x16xf32>\n"
                 "}\n");
        static QString made;
        if (made.isEmpty())
            made = searchedWorkspace("stored-source.shardscope", model, "data=8");
        const QString path = file("stored-source-crafted.shardscope");
        QFile::remove(path);
        QVERIFY(QFile::copy(made, path));
        QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        sqlite(path, "UPDATE model SET source = '" + source + "'");
        // The stored bytes are the model: the search and the session's problem load them.
        const Run searched = cliWithin(60000, {"search", path, "--budget", "5it", "--json"});
        QVERIFY2(searched.exitCode == 0, qPrintable(searched.err));
        QVERIFY(isJsonObject(searched.out));
        {
            auto workspace = store::Workspace::open(path.toStdString());
            QVERIFY(workspace);
            auto problem = loadSessionProblem(*workspace, workspace->sessions().front());
            QVERIFY2(problem, problem.errorMessage().c_str());
            QCOMPARE(QString::fromStdString((*problem)->model.source), source);
        }
        // Without them: refused, naming the workspace and the source.
        sqlite(path,
               "DELETE FROM model_chunk; UPDATE model SET size = 0, sha256 = "
               "'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'");
        const QString message = "'" + path + "': table model: the model '" + source +
                                "' has no stored bytes (a workspace keeps the bytes of its model file and "
                                "never reads the file again)";
        for (const QStringList& arguments : {QStringList{"search", path, "--budget", "5it"},
                                             QStringList{"compare", path + ":1", path + ":1"}}) {
            const Run r = cliWithin(10000, arguments);
            QCOMPARE(r.exitCode, 1);
            QCOMPARE(r.errLines(), QStringList{errorLine(message, "workspace.field")});
        }
        auto workspace = store::Workspace::open(path.toStdString());
        QVERIFY(workspace);
        auto problem = loadSessionProblem(*workspace, workspace->sessions().front());
        QVERIFY(!problem);
        QCOMPARE(QString::fromStdString(firstError(problem.diagnostics())), message);
    }

    // A session whose settings name another model than the workspace's (crafted): the workspace's model is
    // loaded, the other file never read.
    void aSessionNamingAnotherModelLoadsTheWorkspaceModel() {
        static QString made;
        if (made.isEmpty())
            made = searchedWorkspace("session-source.shardscope", "zoo:demo", "data=2");
        const QString path = file("session-source-crafted.shardscope");
        QFile::remove(path);
        QVERIFY(QFile::copy(made, path));
        sqlite(path, "UPDATE session SET settings = json_set(settings, '$.problem.model', '/dev/zero')");
        QCOMPARE(sqlite(path, "SELECT json_extract(settings, '$.problem.model') FROM session"),
                 QStringList{"/dev/zero"});
        auto workspace = store::Workspace::open(path.toStdString());
        QVERIFY(workspace);
        auto problem = loadSessionProblem(*workspace, workspace->sessions().front());
        QVERIFY2(problem, problem.errorMessage().c_str());
        QCOMPARE((*problem)->model.source, std::string("zoo:demo"));
    }

    // --- m. inlining, the op limit, plan lengths ---

    // A 4 KB module whose functions each call the next twice (2^40 calls inlined) stops at the inlining limit
    // at once, in little memory, naming the call and the function inlined most; the CLI says it in one line.
    void exponentialInliningStopsAtTheLimit() {
        const QByteArray text = exponentialCalls(40);
        QVERIFY(text.size() < 10000);
        Result<ir::Graph> graph = makeError("unset", "");
        const double seconds =
            secondsOf([&] { graph = import::importStableHlo(text.toStdString(), "calls.mlir"); });
        QVERIFY(!graph);
        const std::string message = firstError(graph.diagnostics());
        QVERIFY2(message.find(": more than 100000 calls inlined (@f40 alone ") != std::string::npos,
                 message.c_str());
        QVERIFY2(message.find("functions that call others several times expand exponentially") !=
                     std::string::npos,
                 message.c_str());
        QVERIFY2(message.rfind("call to @f", 0) == 0, message.c_str());
        QCOMPARE(graph.diagnostics().front().code, std::string("import.limit"));  // not a syntax error
        qInfo("%.2f s", seconds);  // a figure, not a check: tests do not time
        // A lower limit stops sooner, the same way: depth 6 is 2^7 - 1 = 127 calls, depth 5 is 63.
        import::ImportOptions options;
        options.maxInlinedCalls = 100;
        auto stopped = import::importStableHlo(exponentialCalls(6).toStdString(), "calls.mlir", options);
        QVERIFY(!stopped);
        QVERIFY2(firstError(stopped.diagnostics()).find(": more than 100 calls inlined (@f6 alone ") !=
                     std::string::npos,
                 firstError(stopped.diagnostics()).c_str());
        auto imported = import::importStableHlo(exponentialCalls(5).toStdString(), "calls.mlir", options);
        QVERIFY2(imported, imported.errorMessage().c_str());
        // Through the CLI: one line, naming the file and the line of the call.
        const QString path = file("calls.mlir");
        writeAll(path, text);
        const Run r = cliWithin(20000, {"info", path});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.errLines().size(), 1);
        QVERIFY2(r.errLines().front().startsWith("shardscope-cli: " + path + ":"), qPrintable(r.err));
        QVERIFY2(r.errLines().front().contains("more than 100000 calls inlined (@f40 alone"),
                 qPrintable(r.err));
        QVERIFY2(r.errLines().front().endsWith("[import.limit]"), qPrintable(r.err));
    }

    // A graph past the op limit stops naming the function whose op went past it.
    void aGraphPastTheOpLimitNamesTheFunction() {
        import::ImportOptions options;
        options.maxOps = 50;
        auto graph = import::importStableHlo(exponentialCalls(6).toStdString(), "ops.mlir", options);
        QVERIFY(!graph);
        QCOMPARE(firstError(graph.diagnostics()),
                 std::string("@f6: the graph grows past 50 ops (calls are inlined: a function called many "
                             "times is copied as many times)"));
        options.maxOps = 64;
        QVERIFY(import::importStableHlo(exponentialCalls(6).toStdString(), "ops.mlir", options));
    }

    // A plan file with 10^6 decisions (36 MB) is refused before anything is built for them, quickly, saying
    // how many the problem can use; so are the other lists past their bound.
    void plansLongerThanTheProblemCanUseAreRefused() {
        const auto problem = problemOn("data=2,model=2");
        const auto& space = problem->space;
        const std::size_t most = (space.groups.size() + space.names.size()) * 2 * plan::kTensorClassCount;
        std::string text = R"({"format": "shardscope-plan", "version": 1, "decisions": [)";
        for (int i = 0; i < 1000000; ++i)
            text += i ? R"(, {"group": "batch", "axis": "data"})" : R"({"group": "batch", "axis": "data"})";
        text += "]}";
        Result<plan::Plan> parsed = makeError("unset", "");
        const double seconds = secondsOf([&] {
            parsed = plan::parsePlan(text, problem->costModel->planContext(), problem->mesh, "big.json");
        });
        QVERIFY(!parsed);
        QCOMPARE(firstError(parsed.diagnostics()),
                 "big.json: \"decisions\" has 1000000 entries, more than this problem can use (at most " +
                     std::to_string(most) + ": one per group or name, mesh axis and tensor class)");
        QCOMPARE(parsed.diagnostics().front().code, std::string("plan.too-long"));
        qInfo("%.2f s", seconds);  // a figure, not a check: tests do not time
        std::string many = R"({"format": "shardscope-plan", "version": 1, "resolutions": [)";
        for (std::size_t i = 0; i <= space.names.size(); ++i)
            many += (i ? "," : "") + std::string(R"({"name": "x", "dimension": 0})");
        many += "]}";
        auto refused = plan::parsePlan(many, problem->costModel->planContext(), problem->mesh, "r.json");
        QCOMPARE(firstError(refused.diagnostics()),
                 "r.json: \"resolutions\" has " + std::to_string(space.names.size() + 1) +
                     " entries, more than this problem can use (at most " +
                     std::to_string(space.names.size()) + ": one per name)");
        // Through the CLI (10^4 decisions, to keep the test quick): one line.
        QByteArray some = R"({"format": "shardscope-plan", "version": 1, "decisions": [)";
        for (int i = 0; i < 10000; ++i)
            some += i ? R"(, {"group": "batch", "axis": "data"})" : R"({"group": "batch", "axis": "data"})";
        const QString path = file("long-plan.json");
        writeAll(path, some + "]}");
        const Run r = cli({"evaluate", kModel, "--mesh", "data=2,model=2", "--plan", path});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.errLines(),
                 QStringList{errorLine(
                     path + ": \"decisions\" has 10000 entries, more than this problem can use (at most " +
                         QString::number(most) + ": one per group or name, mesh axis and tensor class)",
                     "plan.too-long")});
    }

    // --- n. sizes that overflow, options out of range ---

    // A tensor whose element count overflows int64 is refused naming the argument (it used to give -16
    // parameters); one past 2^50 elements too, naming the op that makes it.
    void tensorsWhoseSizeOverflowsAreRefused() {
        const std::string type = "tensor<16x9223372036854775807xf32>";
        const std::string text =
            "func.func @main(%arg0: " + type + ") -> " + type + " {\n  return %arg0 : " + type + "\n}\n";
        auto graph = import::importStableHlo(text, "big.mlir");
        QVERIFY(!graph);
        QCOMPARE(firstError(graph.diagnostics()),
                 "argument #0 '%arg0' " + type +
                     " has more elements than a tensor may have (at most 2^50 = 1125899906842624): its "
                     "size overflows or is absurd");
        QCOMPARE(graph.diagnostics().front().code, std::string("ir.tensor-too-large"));
        const std::string wide = "tensor<1048576x1048576xf32>", wider = "tensor<1048576x1048576x2048xf32>";
        const std::string broadcast = "func.func @main(%arg0: " + wide + ") -> " + wider +
                                      " {\n  %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (" +
                                      wide + ") -> " + wider + "\n  return %0 : " + wider + "\n}\n";
        auto made = import::importStableHlo(broadcast, "wide.mlir");
        QVERIFY(!made);
        QVERIFY2(
            firstError(made.diagnostics())
                    .rfind("'stablehlo.broadcast_in_dim' result #0 " + wider + " has more elements", 0) == 0,
            firstError(made.diagnostics()).c_str());
        // Sizes no longer overflow when computed.
        QCOMPARE(ir::elementCount({16, std::numeric_limits<std::int64_t>::max()}),
                 std::numeric_limits<std::int64_t>::max());
        QCOMPARE(ir::elementCount({std::numeric_limits<std::int64_t>::max(), 4, 0}), std::int64_t{0});
        QCOMPARE((ir::TensorType{{std::int64_t{1} << 62, 4}, ir::ElementType::C128}.bytes()),
                 std::numeric_limits<std::int64_t>::max());
        QCOMPARE((ir::TensorType{{3}, ir::ElementType::I4}.bytes()), std::int64_t{3});
    }

    // Zoo options out of range are refused naming the key and the range: sizes that would overflow (it used
    // to give negative FLOPs and "fits"), layers past what can be planned (it used to abort with bad_alloc),
    // NaN or infinite reals; sizes within range whose product is absurd name the op.
    void zooOptionsOutOfRangeAreRefused_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("message");
        QTest::newRow("batch 2^63-1")
            << "zoo:gpt:batch=9223372036854775807"
            << "zoo:gpt: option 'batch' must be an integer from 1 to 16777216, got 9223372036854775807";
        QTest::newRow("layers 100000")
            << "zoo:gpt:layers=100000"
            << "zoo:gpt: option 'layers' must be an integer from 1 to 1000, got 100000";
        QTest::newRow("llama layers")
            << "zoo:llama:layers=1001"
            << "zoo:llama: option 'layers' must be an integer from 1 to 1000, got 1001";
        QTest::newRow("vocab 0") << "zoo:gpt:vocab=0"
                                 << "zoo:gpt: option 'vocab' must be an integer from 1 to 16777216, got 0";
        for (const QString value : {"nan", "inf", "-inf", "-1", "1e308"})
            QTest::newRow(qPrintable("capacity_factor " + value))
                << "zoo:moe:capacity_factor=" + value
                << "zoo:moe: option 'capacity_factor' must be a number from 0.01 to 1000, got " + value;
        QTest::newRow("dropout nan") << "zoo:gpt:dropout=nan"
                                     << "zoo:gpt: option 'dropout' must be a number from 0 to 1, got nan";
        QTest::newRow("rope_theta inf")
            << "zoo:llama:rope_theta=inf"
            << "zoo:llama: option 'rope_theta' must be a number from 1 to 1e+12, got inf";
        QTest::newRow("batch x seq x vocab")
            << "zoo:gpt:batch=16777216,seq=16777216"
            << "'stablehlo.gather' result #0 tensor<16777216x16777216x768xbf16> has more elements than a "
               "tensor may have (at most 2^50 = 1125899906842624): its size overflows or is absurd";
    }
    void zooOptionsOutOfRangeAreRefused() {
        QFETCH(QString, model);
        QFETCH(QString, message);
        Result<LoadedModel> loaded = makeError("unset", "");
        const double seconds = secondsOf([&] { loaded = loadModel(model.toStdString()); });
        QVERIFY(!loaded);
        QCOMPARE(QString::fromStdString(firstError(loaded.diagnostics())), message);
        qInfo("%.2f s", seconds);  // a figure, not a check: tests do not time
        const Run r = cli({"info", model});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.errLines().size(), 1);
        QVERIFY2(r.errLines().front().contains(message), qPrintable(r.err));
    }

    // What an absurd input can still exhaust becomes an error at the engine's boundary, not an abort.
    void outOfMemoryIsAnError() {
        auto failed = outOfMemoryAsError<int>("building something huge",
                                              []() -> Result<int> { throw std::bad_alloc(); });
        QVERIFY(!failed);
        QCOMPARE(firstError(failed.diagnostics()),
                 std::string("out of memory while building something huge"));
        QCOMPARE(failed.diagnostics().front().code, std::string("engine.out-of-memory"));
    }
};

QTEST_GUILESS_MAIN(TestBadInput)
#include "tst_bad_input.moc"
