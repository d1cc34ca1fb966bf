#include "core/model_loader.h"

#include <exception>
#include <utility>

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include "core/text.h"
#include "shardscope/ir/printer.h"

namespace shardscope::ui {
namespace {

// A finished load: a model, or an error message; neither when the job saw it was superseded.
struct Outcome {
    std::shared_ptr<const LoadedModelView> model;
    QString error;
};

QString lineOf(const Diagnostic& diagnostic) {
    const QString message = toQString(diagnostic.message);
    if (diagnostic.location.empty())
        return message;
    return QStringLiteral("%1: %2").arg(toQString(diagnostic.location.toString()), message);
}

QString failureMessage(const QString& source, const std::vector<Diagnostic>& diagnostics) {
    QString first;
    int errors = 0;
    for (const auto& d : diagnostics) {
        if (d.severity != Severity::Error)
            continue;
        if (errors++ == 0)
            first = lineOf(d);
    }
    if (first.isEmpty())
        first = ModelLoader::tr("unknown error");
    QString message = ModelLoader::tr("Cannot load %1: %2").arg(source, first);
    if (errors > 1)
        message += ModelLoader::tr(" (and %n more error(s))", nullptr, errors - 1);
    return message;
}

Outcome loadModelView(const QString& source, const std::atomic<std::uint64_t>& latest,
                      std::uint64_t generation) {
    auto superseded = [&] { return latest.load() != generation; };
    if (superseded())
        return {};
    // The engine reports errors as values; anything thrown (out of memory) must still not cross the thread.
    try {
        QElapsedTimer timer;
        timer.start();
        auto result = loadModel(source.toStdString());
        if (!result.ok())
            return {nullptr, failureMessage(source, result.diagnostics())};
        if (superseded())
            return {};

        auto view = std::make_shared<LoadedModelView>();
        view->statistics = ir::computeStatistics(result->graph);
        view->stableHlo = toQString(ir::printStableHlo(result->graph));
        view->source = source;
        view->displayName = toQString(result->displayName);
        view->description = toQString(result->description);
        for (const auto& d : result.diagnostics())
            view->warnings.append(lineOf(d));
        view->model = std::move(result).value();
        view->loadMilliseconds = timer.elapsed();
        return {std::move(view), {}};
    } catch (const std::exception& e) {
        return {nullptr, ModelLoader::tr("Cannot load %1: %2").arg(source, QString::fromLocal8Bit(e.what()))};
    }
}

}  // namespace

ModelLoader::ModelLoader(QObject* parent)
    : QObject(parent), generation_(std::make_shared<std::atomic<std::uint64_t>>(0)) {}

void ModelLoader::load(const QString& source) {
    const std::uint64_t generation = ++*generation_;
    setBusy(true);

    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != generation_->load())
            return;  // a newer load() owns the stage now
        const Outcome outcome = watcher->result();
        setBusy(false);
        if (outcome.model)
            emit loaded(outcome.model);
        else
            emit failed(outcome.error);
    });
    watcher->setFuture(QtConcurrent::run(
        [source, latest = generation_, generation] { return loadModelView(source, *latest, generation); }));
}

void ModelLoader::setBusy(bool busy) {
    if (busy_ == busy)
        return;
    busy_ = busy;
    emit busyChanged(busy);
}

QString defaultModelSource() {
    return toQString(kDemoModel);
}

}  // namespace shardscope::ui
