// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The importer on MLIR nobody here wrote: tt-mlir's StableHLO/Shardy test inputs
// (../shared/corpus/ttmlir-stablehlo, split at `// -----` as MLIR's --split-input-file does) and the shared
// real models. Every module imports and analyses, or is refused with one diagnostic of one line; a module
// with several public functions and no @main is also imported function by function (--entry). The counts of
// imported modules and functions never drop.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QtTest>
#include <map>

#include "test_paths.h"

#include "shardscope/analysis/decision_space.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/ir/statistics.h"
#include "shardscope/session/model_source.h"

using namespace shardscope;

namespace {

// What this importer reaches on the corpus (of 156 modules; 4 are empty or only comments). Raise them as it
// learns more; a regression fails the test.
// (130 and 85 since manual computations import as their global programs, or are refused saying why: in
// dead_code_elimination.mlir an all_reduce of a replicated value would add up copies; in
// complex_manual_computation.mlir @test_complex_in_manual_computation multiplies each device's piece by the
// same replicated values. tst_import_manual counts the corpus's manual computations.)
constexpr int kMinimumImportedModules = 130;
constexpr int kMinimumImportedFunctions = 85;  // of the modules refused for their several entry candidates

struct Module {
    QString name;  // the file relative to the corpus, with the index of its piece: "shardy/foo.mlir#2"
    QByteArray text;
};

std::vector<Module> corpusModules(const QString& root) {
    QStringList files;
    QDirIterator it(root, {"*.mlir"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next();
    files.sort();
    const QRegularExpression marker(QStringLiteral(R"(^// -----\s*$)"), QRegularExpression::MultilineOption);
    std::vector<Module> out;
    for (const QString& path : files) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            qFatal("cannot read %s", qPrintable(path));
        const QString text = QString::fromUtf8(file.readAll());
        const QStringList pieces = text.split(marker);
        for (int i = 0; i < pieces.size(); ++i)
            out.push_back({QDir(root).relativeFilePath(path) + "#" + QString::number(i), pieces[i].toUtf8()});
    }
    return out;
}

struct Outcome {
    bool imported = false;
    std::string refusal;                // the one diagnostic's message, without its location
    std::string malformed;              // why the refusal is not one diagnostic of one line
    std::vector<std::string> warnings;  // of an imported module
};

// Import (as `shardscope-cli info` loads a model) and the static analysis (as `analyze` runs it).
Outcome importAndAnalyse(const QByteArray& bytes, const std::string& name,
                         const import::ImportOptions& options = {}) {
    auto model = loadModelBytes(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
                                name, options);
    if (!model) {
        const auto& diagnostics = model.diagnostics();
        Outcome refused{false, diagnostics.empty() ? std::string() : diagnostics.front().message, {}, {}};
        if (diagnostics.size() != 1) {
            refused.malformed =
                name + ": refused with " + std::to_string(diagnostics.size()) + " diagnostics:";
            for (const auto& d : diagnostics)
                refused.malformed += "\n  " + d.toString();
        } else if (diagnostics.front().toString().find('\n') != std::string::npos) {
            refused.malformed = name + ": the refusal spans several lines: " + diagnostics.front().toString();
        }
        return refused;
    }
    // Both run to the end on whatever imported: a crash or an exception fails the test.
    (void)ir::computeStatistics(model->graph);
    (void)analysis::analyze(model->graph);
    Outcome outcome{true, {}, {}, {}};
    for (const auto& d : model.diagnostics())
        outcome.warnings.push_back(d.message);
    return outcome;
}

// A message without what varies from module to module (files, names, numbers), to group them.
std::string kindOf(const std::string& message) {
    static const QRegularExpression file(QStringLiteral(R"([\w./-]+\.mlir(#\d+)?)"));
    static const QRegularExpression variable(QStringLiteral(R"((@[\w.$-]+)|(%[\w#.-]+)|\d+)"));
    static const QRegularExpression list(QStringLiteral(R"(_(, _)+)"));
    return QString::fromStdString(message)
        .replace(file, QStringLiteral("FILE"))
        .replace(variable, QStringLiteral("_"))
        .replace(list, QStringLiteral("_, ..."))
        .toStdString();
}

}  // namespace

class TestImportCorpus : public QObject {
    Q_OBJECT

private slots:
    void corpusModulesImportOrAreRefusedInOneLine() {
        const QString root = shardscope::testing::sharedDir() + QStringLiteral("/corpus/ttmlir-stablehlo");
        if (!QFileInfo::exists(root))
            QSKIP("../shared/corpus/ttmlir-stablehlo is absent (a user's clone has no ../shared)");
        const auto modules = corpusModules(root);
        int imported = 0, functionsImported = 0, functionsRefused = 0;
        std::map<std::string, std::vector<std::string>> refusals;  // kind -> modules
        std::map<std::string, int> warnings;                       // kind -> modules
        for (const auto& module : modules) {
            const std::string name = module.name.toStdString();
            const Outcome outcome = importAndAnalyse(module.text, name);
            QVERIFY2(outcome.malformed.empty(), outcome.malformed.c_str());
            for (const auto& w : outcome.warnings)
                ++warnings[kindOf(w)];
            if (outcome.imported) {
                ++imported;
                continue;
            }
            refusals[kindOf(outcome.refusal)].push_back(name);
            if (outcome.refusal.find("no entry function") == std::string::npos)
                continue;
            // Several candidates: each of them, as --entry NAME imports it.
            const std::string_view text(module.text.constData(),
                                        static_cast<std::size_t>(module.text.size()));
            auto functions = import::stableHloFunctions(text, name);
            QVERIFY2(functions, functions.errorMessage().c_str());
            for (const auto& function : *functions) {
                import::ImportOptions options;
                options.entryFunction = function;
                const Outcome one = importAndAnalyse(module.text, name, options);
                QVERIFY2(one.malformed.empty(), one.malformed.c_str());
                for (const auto& w : one.warnings)
                    ++warnings[kindOf(w)];
                if (one.imported)
                    ++functionsImported;
                else {
                    ++functionsRefused;
                    refusals["(--entry) " + kindOf(one.refusal)].push_back(name + " @" + function);
                }
            }
        }
        qInfo("%zu modules: %d imported, %zu refused; their functions with --entry: %d imported, %d refused",
              modules.size(), imported, modules.size() - static_cast<std::size_t>(imported),
              functionsImported, functionsRefused);
        for (const auto& [kind, names] : refusals) {
            qInfo("  %zu x %s", names.size(), kind.c_str());
            for (const auto& n : names)
                qInfo("      %s", n.c_str());
        }
        qInfo("warnings of the imported modules and functions:");
        for (const auto& [kind, n] : warnings)
            qInfo("  %d x %s", n, kind.c_str());
        QVERIFY2(imported >= kMinimumImportedModules,
                 qPrintable(QStringLiteral("%1 modules imported, fewer than %2")
                                .arg(imported)
                                .arg(kMinimumImportedModules)));
        QVERIFY2(functionsImported >= kMinimumImportedFunctions,
                 qPrintable(QStringLiteral("%1 functions imported with --entry, fewer than %2")
                                .arg(functionsImported)
                                .arg(kMinimumImportedFunctions)));
    }

    // Every shared model (StableHLO exports and ONNX files) imports and analyses.
    void sharedModelsImportAndAnalyse() {
        const QString root = shardscope::testing::sharedDir() + QStringLiteral("/models");
        if (!QFileInfo::exists(root))
            QSKIP("../shared/models is absent (a user's clone has no ../shared)");
        int count = 0;
        for (const QString& folder : {QStringLiteral("stablehlo"), QStringLiteral("onnx")}) {
            const QDir dir(root + "/" + folder);
            for (const QString& file : dir.entryList({"*.mlir", "*.onnx"}, QDir::Files, QDir::Name)) {
                QFile in(dir.filePath(file));
                QVERIFY(in.open(QIODevice::ReadOnly));
                const Outcome outcome = importAndAnalyse(in.readAll(), dir.filePath(file).toStdString());
                QVERIFY2(outcome.imported, (file.toStdString() + ": " + outcome.refusal).c_str());
                ++count;
            }
        }
        qInfo("%d shared models imported and analysed", count);
        QVERIFY(count > 0);
    }
};

QTEST_GUILESS_MAIN(TestImportCorpus)
#include "tst_import_corpus.moc"
