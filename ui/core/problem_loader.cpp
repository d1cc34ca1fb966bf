#include "core/problem_loader.h"

#include <algorithm>
#include <exception>
#include <utility>

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

#include "core/text.h"
#include "shardscope/ir/printer.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/store/workspace.h"

namespace shardscope::ui {
namespace {

// A finished load: a problem, or an error message; neither when the job saw it was superseded.
struct Outcome {
    std::shared_ptr<const ProblemView> problem;
    QString error;
};

QString lineOf(const Diagnostic& diagnostic) {
    const QString message = toQString(diagnostic.message);
    if (diagnostic.location.empty())
        return message;
    return QStringLiteral("%1: %2").arg(toQString(diagnostic.location.toString()), message);
}

QString failureMessage(const QString& source, const std::vector<Diagnostic>& diagnostics, bool settingsChange) {
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
    QString message = settingsChange ? ProblemLoader::tr("Cannot apply the settings to %1: %2").arg(source, first)
                                     : ProblemLoader::tr("Cannot open %1: %2").arg(source, first);
    if (errors > 1)
        message += ProblemLoader::tr(" (and %n more error(s))", nullptr, errors - 1);
    return message;
}

// The session's plan to start from: its fastest feasible plan, else its fastest.
std::optional<store::PlanRecord> bestPlan(const store::Workspace& workspace, std::int64_t session) {
    std::optional<store::PlanRecord> best;
    for (auto& record : workspace.plans(session)) {
        const bool better = !best || (record.feasible && !best->feasible) ||
                            (record.feasible == best->feasible && record.stepTime < best->stepTime);
        if (better)
            best = std::move(record);
    }
    return best;
}

Result<std::unique_ptr<Problem>> loadFromWorkspace(const ProblemRequest& request, ProblemView& view,
                                                   std::string* planJson) {
    auto workspace = store::Workspace::open(request.workspace.toStdString());
    if (!workspace)
        return Result<std::unique_ptr<Problem>>::failure(workspace.diagnostics());
    const auto sessions = workspace->sessions();
    if (sessions.empty())
        return makeError("ui.workspace",
                         request.workspace.toStdString() + ": the workspace has no session yet");
    auto session = sessions.back();
    if (request.session != 0) {
        const auto found = std::find_if(sessions.begin(), sessions.end(), [&](const store::SessionRecord& s) {
            return s.id == request.session;
        });
        if (found == sessions.end())
            return makeError("ui.workspace", request.workspace.toStdString() + ": no session " +
                                                 std::to_string(request.session));
        session = *found;
    }
    view.workspacePath = request.workspace;
    view.session = session.id;
    if (request.carriedPlan.empty()) {
        if (auto best = bestPlan(*workspace, session.id))
            *planJson = best->plan;
    }
    if (request.specFromRequest) {
        // The workspace's model (its bytes, never the file its source names) under the request's settings.
        ProblemSpec spec = request.spec;
        spec.model = workspace->model().source;
        auto bytes = recordedModelBytes(workspace->model(), workspace->path());
        if (!bytes)
            return Result<std::unique_ptr<Problem>>::failure(bytes.diagnostics());
        return loadProblem(spec, *bytes);
    }
    return loadSessionProblem(*workspace, session);
}

Outcome loadProblemView(const ProblemRequest& request, const std::atomic<std::uint64_t>& latest,
                        std::uint64_t generation) {
    auto superseded = [&] { return latest.load() != generation; };
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
        if (!loaded.ok())
            return {nullptr, failureMessage(source, loaded.diagnostics(), request.settingsChange)};
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
            auto plan = plan::parsePlan(planJson, problem->costModel->planContext(), problem->mesh, "the plan",
                                        plan::MissingAxes::Drop);
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
        return {std::move(view), {}};
    } catch (const std::exception& e) {
        return {nullptr,
                ProblemLoader::tr("Cannot open %1: %2").arg(source, QString::fromLocal8Bit(e.what()))};
    }
}

}  // namespace

bool isWorkspaceFile(const QString& path) {
    QFile file(path);
    if (!QFileInfo(path).isFile() || !file.open(QIODevice::ReadOnly))
        return false;
    return file.read(16) == QByteArray("SQLite format 3\0", 16);
}

ProblemLoader::ProblemLoader(QObject* parent)
    : QObject(parent), generation_(std::make_shared<std::atomic<std::uint64_t>>(0)) {}

void ProblemLoader::load(const ProblemRequest& request) {
    const std::uint64_t generation = ++*generation_;
    setBusy(true);

    jobs_.run([request, latest = generation_, generation] { return loadProblemView(request, *latest, generation); },
              [this, generation](const Outcome& outcome) {
                  if (generation != generation_->load())
                      return;  // a newer load() owns the stage now
                  setBusy(false);
                  if (outcome.problem)
                      emit loaded(outcome.problem);
                  else
                      emit failed(outcome.error);
              });
}

ProblemLoader::~ProblemLoader() {
    ++*generation_;  // the load under way stops at its next stage; jobs_ (destroyed next) waits for it
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

}  // namespace shardscope::ui
