// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/problem_loader.h"

#include <algorithm>
#include <exception>
#include <utility>

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

#include "core/text.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/input_file.h"
#include "shardscope/ir/printer.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/session/workspace_session.h"

namespace shardscope::ui {
namespace {

// A finished load: a problem, or an error message; neither when the job saw it was superseded.
struct Outcome {
    std::shared_ptr<const ProblemView> problem;
    QString error;
    QStringList entryChoices;  // a module without an entry: its functions
};

// The functions of the StableHLO file `path` to choose an entry from; none when it cannot be read.
QStringList functionsOf(const std::string& path) {
    auto bytes = readModelFile(path);
    if (!bytes)
        return {};
    auto names = import::stableHloFunctions(*bytes, path);
    QStringList out;
    if (names)
        for (const auto& name : *names)
            out.append(toQString(name));
    return out;
}

QString lineOf(const Diagnostic& diagnostic) {
    const QString message = toQString(diagnostic.message);
    if (diagnostic.location.empty())
        return message;
    return QStringLiteral("%1: %2").arg(toQString(diagnostic.location.toString()), message);
}

QString failureMessage(const QString& source, const std::vector<Diagnostic>& diagnostics,
                       bool settingsChange) {
    QString first;
    int errors = 0;
    for (const auto& d : diagnostics) {
        if (d.severity != Severity::Error)
            continue;
        if (errors++ == 0)
            first = lineOf(d);
    }
    if (first.isEmpty())
        first = ProblemLoader::tr("unknown error");
    QString message = settingsChange
                          ? ProblemLoader::tr("Cannot apply the settings to %1: %2").arg(source, first)
                          : ProblemLoader::tr("Cannot open %1: %2").arg(source, first);
    if (errors > 1)
        message += ProblemLoader::tr(" (and %1 more)")
                       .arg(countOf(errors - 1, ProblemLoader::tr("error"), ProblemLoader::tr("errors")));
    return message;
}

Result<std::unique_ptr<Problem>> loadFromWorkspace(const ProblemRequest& request, ProblemView& view,
                                                   std::string* planJson) {
    // The workspace's model (its bytes, never the file its source names), under the session's settings or the
    // request's, and the session's best plan to start from.
    auto resumed = session::resumeSession(request.workspace.toStdString(), request.session,
                                          request.specFromRequest ? &request.spec : nullptr);
    if (!resumed)
        return Result<std::unique_ptr<Problem>>::failure(resumed.diagnostics());
    view.workspacePath = request.workspace;
    view.session = resumed->session.id;
    if (request.carriedPlan.empty() && resumed->best)
        *planJson = resumed->best->plan;
    return std::move(resumed->problem);
}

Outcome loadProblemView(const ProblemRequest& request, const LatestJob::Token& token) {
    auto superseded = [&] { return token.superseded(); };
    const QString source = request.workspace.isEmpty() ? toQString(request.spec.model) : request.workspace;
    if (superseded())
        return {};
    // The engine reports errors as values; anything thrown (out of memory) must still not cross the thread.
    try {
        QElapsedTimer timer;
        timer.start();
        auto view = std::make_shared<ProblemView>();
        std::string planJson = request.carriedPlan;
        auto loaded = request.workspace.isEmpty() ? loadProblem(request.spec)
                                                  : loadFromWorkspace(request, *view, &planJson);
        if (!loaded.ok()) {
            Outcome failure{
                nullptr, failureMessage(source, loaded.diagnostics(), request.settingsChange), {}};
            if (request.workspace.isEmpty() && !loaded.diagnostics().empty() &&
                loaded.diagnostics().front().code == "stablehlo.entry")
                failure.entryChoices = functionsOf(request.spec.model);
            return failure;
        }
        if (superseded())
            return {};

        std::shared_ptr<const Problem> problem = std::move(loaded).value();
        view->problem = problem;
        view->statistics = ir::computeStatistics(problem->model.graph);
        view->modules = buildModuleTree(problem->model.graph, problem->space);
        view->stableHlo = toQString(ir::printStableHlo(problem->model.graph));
        view->source = source;
        view->displayName = toQString(problem->model.displayName);
        view->description = toQString(problem->model.description);
        for (const auto& d : problem->warnings)
            view->warnings.append(lineOf(d));
        if (!planJson.empty()) {
            // A plan carried to another mesh keeps the decisions whose axes the new mesh has.
            auto plan = plan::parsePlan(planJson, problem->costModel->planContext(), problem->mesh,
                                        "the plan", plan::MissingAxes::Drop);
            for (const auto& d : plan.diagnostics())
                if (d.code == "plan.axis-dropped")
                    view->planWarnings.append(lineOf(d));
            if (plan)
                view->initialPlan = std::move(plan).value();
            else
                view->planWarnings.append(
                    ProblemLoader::tr("The plan was not kept: %1").arg(lineOf(plan.diagnostics().front())));
            view->warnings += view->planWarnings;
        }
        view->loadMilliseconds = timer.elapsed();
        return {std::move(view), {}, {}};
    } catch (const std::exception& e) {
        return {nullptr,
                ProblemLoader::tr("Cannot open %1: %2").arg(source, QString::fromLocal8Bit(e.what())),
                {}};
    }
}

}  // namespace

bool isWorkspaceFile(const QString& path) {
    QFile file(path);
    if (!QFileInfo(path).isFile() || !file.open(QIODevice::ReadOnly))
        return false;
    return file.read(16) == QByteArray("SQLite format 3\0", 16);
}

ProblemLoader::ProblemLoader(QObject* parent) : QObject(parent) {}

// loads_ goes first: the load under way stops at its next stage, and jobs_ waits for it.
ProblemLoader::~ProblemLoader() = default;

void ProblemLoader::load(const ProblemRequest& request) {
    setBusy(true);
    loads_.run([request](const LatestJob::Token& token) { return loadProblemView(request, token); },
               [this, request](const Outcome& outcome) {
                   setBusy(false);
                   if (outcome.problem) {
                       emit loaded(outcome.problem);
                       return;
                   }
                   if (!outcome.entryChoices.isEmpty())
                       emit entryChoices(toQString(request.spec.model), outcome.entryChoices);
                   emit failed(outcome.error);
               });
}

void ProblemLoader::setBusy(bool busy) {
    if (busy_ == busy)
        return;
    busy_ = busy;
    emit busyChanged(busy);
}

QString defaultModelSource() {
    return toQString(kDemoModel);
}

bool sameDecisionSpace(const ProblemView& a, const ProblemView& b) {
    const analysis::DecisionSpace& x = a.space();
    const analysis::DecisionSpace& y = b.space();
    if (x.names.size() != y.names.size() || x.groups.size() != y.groups.size())
        return false;
    for (std::size_t i = 0; i < x.names.size(); ++i)
        if (x.names[i].label != y.names[i].label || x.names[i].size != y.names[i].size)
            return false;
    for (std::size_t i = 0; i < x.groups.size(); ++i)
        if (x.groups[i].label != y.groups[i].label)
            return false;
    return true;
}

}  // namespace shardscope::ui
