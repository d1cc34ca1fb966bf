// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/plan_editor.h"

#include <algorithm>
#include <exception>
#include <utility>

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QUndoStack>

#include "core/text.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/session/plan_source.h"

namespace shardscope::ui {

// One step of the history: the whole plan before and after. Plans are small (tens of decisions), and whole
// states make undo exact whatever the edit was.
class PlanEditor::PlanEdit : public QUndoCommand {
public:
    PlanEdit(PlanEditor* editor, plan::Plan before, plan::Plan after, const QString& text)
        : QUndoCommand(text), editor_(editor), before_(std::move(before)), after_(std::move(after)) {}
    void undo() override { editor_->setPlan(before_); }
    void redo() override { editor_->setPlan(after_); }

private:
    PlanEditor* editor_;
    plan::Plan before_, after_;
};

// The evaluation side of one problem, shared with the jobs: jobs run one at a time (on jobs_), each skips
// itself when a newer revision was asked for by the time it starts.
struct PlanEditor::Worker {
    explicit Worker(std::shared_ptr<const ProblemView> p)
        : problem(std::move(p)), evaluator(*problem->problem->costModel) {}
    std::shared_ptr<const ProblemView> problem;  // keeps the cost model alive while a job runs
    cost::Evaluator evaluator;                   // used by one job at a time
    std::atomic<std::uint64_t> newest[2] = {};   // per Track: its newest revision
    std::atomic<std::uint64_t>& newestOf(Track track) { return newest[static_cast<int>(track)]; }
};

namespace {

// The evaluated plan, or nullptr when superseded before it started.
struct Outcome {
    std::shared_ptr<const PlanState> state;
    QString error;
};

// Evaluates `plan` as revision `revision` with `evaluator`, unless `newest` says a newer revision was asked
// for by the time the job starts.
Outcome evaluateState(const ProblemView& problem, cost::Evaluator& evaluator, const plan::Plan& plan,
                      std::uint64_t revision, const std::atomic<std::uint64_t>& newest) {
    if (newest.load() != revision)
        return {};
    try {
        auto state = std::make_shared<PlanState>();
        state->revision = revision;
        state->plan = plan;
        state->evaluation = evaluator.evaluate(plan);
        const auto& space = problem.space();
        const std::size_t values = problem.graph().values.size();
        state->shardings.resize(values);
        for (std::size_t v = 0; v < values && v < space.dimensionAtoms.size(); ++v)
            state->shardings[v] = evaluator.sharding(ir::ValueId(static_cast<std::uint32_t>(v)));
        return {std::move(state), {}};
    } catch (const std::exception& e) {
        return {nullptr,
                PlanEditor::tr("Cannot evaluate the plan: %1").arg(QString::fromLocal8Bit(e.what()))};
    }
}

}  // namespace

PlanEditor::PlanEditor(QObject* parent) : QObject(parent), undo_(new QUndoStack(this)) {}

PlanEditor::~PlanEditor() =
    default;  // jobs_ goes first: it drops the queued jobs and waits for the running one

void PlanEditor::setProblem(std::shared_ptr<const ProblemView> problem) {
    if (worker_)
        for (auto& newest : worker_->newest)
            newest = ~std::uint64_t{0};
    problem_ = std::move(problem);
    worker_ = problem_ ? std::make_shared<Worker>(problem_) : nullptr;
    edited_ = {};
    undo_->clear();
    plan_ = problem_ ? problem_->initialPlan : plan::Plan{};
    const bool previewed = dropPreview();
    emit planChanged();
    if (previewed)
        emit previewChanged();
    evaluate(Track::Edited);
    updateEvaluating();
}

void PlanEditor::edit(plan::Plan after, const QString& text) {
    if (!problem_ || after == plan_)
        return;
    undo_->push(new PlanEdit(this, plan_, std::move(after), text));  // push() calls redo()
}

void PlanEditor::setPlan(const plan::Plan& plan) {
    plan_ = plan;
    // An edit of the plan is what the user wants to see: the preview ends.
    const bool previewed = dropPreview();
    emit planChanged();
    if (previewed)
        emit previewChanged();
    evaluate(Track::Edited);
}

void PlanEditor::preview(const plan::Plan& plan, const QString& name) {
    if (!problem_)
        return;
    if (preview_ && preview_->plan == plan && preview_->name == name)
        return;
    preview_ = std::make_unique<Preview>(Preview{plan, name});
    previewed_.state.reset();
    emit previewChanged();
    evaluate(Track::Preview);
}

void PlanEditor::endPreview() {
    if (!dropPreview())
        return;
    updateEvaluating();
    emit previewChanged();
}

bool PlanEditor::dropPreview() {
    if (!preview_)
        return false;
    preview_.reset();
    previewed_ = {};  // asks for no revision: its evaluation, if running, is never reported
    if (worker_)
        worker_->newestOf(Track::Preview) = ~std::uint64_t{0};  // and if queued, never runs
    return true;
}

const plan::Plan& PlanEditor::previewPlan() const {
    static const plan::Plan none;
    return preview_ ? preview_->plan : none;
}

QString PlanEditor::previewName() const {
    return preview_ ? preview_->name : QString();
}

QString PlanEditor::shownCaption() const {
    return preview_ ? tr("%1 (preview)").arg(preview_->name) : tr("the edited plan");
}

void PlanEditor::editPreview() {
    if (!preview_)
        return;
    const plan::Plan chosen = preview_->plan;
    const QString name = preview_->name;
    replacePlan(chosen, tr("Edit %1").arg(name), true);
    endPreview();  // when the plan was already the edited plan, nothing was edited
}

void PlanEditor::pin(const plan::Decision& decision) {
    edit(session::withPin(plan_, decision), tr("Pin %1").arg(describe(decision)));
}

void PlanEditor::forbid(const plan::Decision& decision) {
    edit(session::withForbidden(plan_, decision), tr("Forbid %1").arg(describe(decision)));
}

void PlanEditor::removeDecision(std::size_t index) {
    if (index >= plan_.decisions.size())
        return;
    plan::Plan after = plan_;
    const plan::Decision removed = after.decisions[index];
    after.decisions.erase(after.decisions.begin() + static_cast<std::ptrdiff_t>(index));
    if (index < after.pinned)
        --after.pinned;
    edit(std::move(after), tr("Remove %1").arg(describe(removed)));
}

void PlanEditor::allow(std::size_t index) {
    if (index >= plan_.forbidden.size())
        return;
    plan::Plan after = plan_;
    const plan::Decision allowed = after.forbidden[index];
    after.forbidden.erase(after.forbidden.begin() + static_cast<std::ptrdiff_t>(index));
    edit(std::move(after), tr("Allow %1").arg(describe(allowed)));
}

void PlanEditor::resolve(analysis::NameId name, int dimension) {
    if (!problem_ || name.index >= problem_->space().names.size())
        return;
    plan::Plan after = plan_;
    std::erase_if(after.resolutions, [&](const plan::Resolution& r) { return r.name == name; });
    if (dimension != 0)  // dimension 0 is what a plan without a resolution does
        after.resolutions.push_back({name, dimension});
    const QString label = toQString(problem_->space().name(name).label);
    edit(std::move(after), tr("Give %1's axis to its dimension %2").arg(label).arg(dimension + 1));
}

void PlanEditor::removeResolution(std::size_t index) {
    if (!problem_ || index >= plan_.resolutions.size())
        return;
    plan::Plan after = plan_;
    const analysis::NameId name = after.resolutions[index].name;
    after.resolutions.erase(after.resolutions.begin() + static_cast<std::ptrdiff_t>(index));
    const auto& names = problem_->space().names;
    const QString label = name.index < names.size() ? toQString(names[name.index].label) : QString();
    edit(std::move(after), tr("Remove the conflict choice for %1").arg(label));
}

void PlanEditor::setRemat(const QString& family, int policy) {
    if (policy < 0 || policy >= plan::kRematCount)
        return;
    const std::string target = family.toStdString();
    plan::Plan after = plan_;
    std::erase_if(after.remat, [&](const plan::RematDecision& r) { return r.target == target; });
    const auto remat = static_cast<plan::Remat>(policy);
    if (remat != plan::Remat::None)
        after.remat.push_back({target, remat});
    edit(std::move(after), tr("Rematerialize %1: %2").arg(family, toQString(plan::toString(remat))));
}

QString PlanEditor::setStaging(int microbatches, std::optional<plan::Pipeline> pipeline) {
    if (!problem_)
        return tr("Open a model before setting a pipeline");
    plan::Plan after = plan_;
    after.microbatches = microbatches;
    after.pipeline = std::move(pipeline);
    const auto& context = problem_->problem->costModel->planContext();
    if (const auto why = plan::pipelineProblem(context, problem_->mesh(), after))
        return toQString(*why);
    const QString count = microbatches == 1 ? tr("1 microbatch") : tr("%1 microbatches").arg(microbatches);
    QString text;
    if (!after.pipeline) {
        text = plan_.pipeline ? tr("Remove the pipeline (%1)").arg(count) : tr("Run %1").arg(count);
    } else {
        const plan::Pipeline& p = *after.pipeline;
        const auto& axes = problem_->mesh().axes;
        const QString axis = static_cast<std::size_t>(p.axis) < axes.size()
                                 ? toQString(axes[static_cast<std::size_t>(p.axis)].name)
                                 : QString::number(p.axis);
        text = tr("Pipeline over %1: %2 stages, %3, %4")
                   .arg(axis)
                   .arg(p.stages)
                   .arg(toQString(plan::toString(p.schedule)), count);
        if (p.virtualStages > 1)
            text += tr(", %1 virtual stages").arg(p.virtualStages);
    }
    edit(std::move(after), text);
    return {};
}

void PlanEditor::replacePlan(const plan::Plan& plan, const QString& description, bool keepPins) {
    edit(keepPins ? session::keepingPins(plan_, plan) : plan, description);
}

QString PlanEditor::openPlan(const QString& source, QStringList* warnings) {
    if (!problem_)
        return tr("Open a model before a plan");
    // The one reading of a plan source (bounded files, a FIFO or a device refused instead of blocking the
    // window), with the warnings the CLI gives for the same source.
    const std::string text = source.toStdString();
    auto opened = session::planFromSource(text, *problem_->problem->costModel);
    if (warnings)
        for (const auto& d : opened.diagnostics())
            if (d.severity != Severity::Error)
                warnings->append(toQString(d.message));
    if (!opened) {
        const QString why = toQString(opened.diagnostics().front().message);
        if (source.startsWith(QLatin1String("expert:")))
            return tr("Cannot start from %1: %2").arg(source.mid(7), why);
        if (source == QLatin1String("reference"))
            return why;
        return tr("Cannot open the plan %1").arg(why);  // the message names the file, the entry and the label
    }
    if (source.startsWith(QLatin1String("expert:"))) {
        replacePlan(*opened, tr("Start from expert plan %1").arg(source.mid(7)));
    } else if (source == QLatin1String("reference")) {
        const auto unexpressed =
            std::count_if(opened.diagnostics().begin(), opened.diagnostics().end(), [](const Diagnostic& d) {
                return d.severity == Severity::Warning && d.code != "plan.not-divisible";
            });
        replacePlan(*opened, unexpressed == 0
                                 ? tr("Start from the model's own shardings")
                                 : tr("Start from the model's own shardings (%n not expressible)", nullptr,
                                      static_cast<int>(unexpressed)));
    } else if (source != QLatin1String("none")) {
        replacePlan(*opened, tr("Open plan %1").arg(QFileInfo(source).fileName()), false);
    } else {
        replacePlan(*opened, tr("Start from the replicated plan"));
    }
    return {};
}

QString PlanEditor::savePlan(const QString& path) const {
    if (!problem_)
        return tr("There is no plan to save");
    const std::string json = planJson();
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(json.data(), static_cast<qint64>(json.size())) < 0 ||
        !file.commit())
        return tr("Cannot write %1: %2").arg(path, file.errorString());
    return {};
}

std::string PlanEditor::planJson() const {
    if (!problem_)
        return {};
    return plan::toJson(plan_, problem_->problem->costModel->planContext(), problem_->mesh());
}

QList<ExpertChoice> expertChoices() {
    QList<ExpertChoice> choices;
    for (const auto& expert : plan::expertPlans())
        choices.append({toQString(expert.id), toQString(expert.description)});
    return choices;
}

QString PlanEditor::describe(const plan::Decision& decision) const {
    if (!problem_)
        return {};
    const auto& context = problem_->problem->costModel->planContext();
    return toQString(plan::decisionText(decision, context, problem_->mesh()));
}

void PlanEditor::evaluate(Track track) {
    if (!worker_ || (track == Track::Preview && !preview_))
        return;
    const std::uint64_t revision = ++revision_;
    Evaluations& asking = evaluationsOf(track);
    asking.asked = revision;
    asking.pending = true;
    worker_->newestOf(track) = revision;
    updateEvaluating();

    auto done = [this, track, revision, worker = worker_](const Outcome& outcome) {
        Evaluations& evaluations = evaluationsOf(track);
        if (worker != worker_ || revision != evaluations.asked)
            return;  // a newer plan, preview or problem owns the track now (or the preview ended)
        // The state first: whoever hears that the evaluation ended finds its result in place.
        if (outcome.state)
            evaluations.state = outcome.state;
        evaluations.pending = false;
        updateEvaluating();
        if (!outcome.state)
            emit evaluationFailed(outcome.error);
        else if (track == Track::Edited)
            emit evaluated(evaluations.state);
        else
            emit previewEvaluated(evaluations.state);
    };
    jobs_.run(
        [worker = worker_, plan = track == Track::Edited ? plan_ : preview_->plan, revision,
         track]() -> Outcome {
            return evaluateState(*worker->problem, worker->evaluator, plan, revision,
                                 worker->newestOf(track));
        },
        std::move(done));
}

void PlanEditor::updateEvaluating() {
    const bool evaluating = edited_.pending || previewed_.pending;
    if (evaluating_ == evaluating)
        return;
    evaluating_ = evaluating;
    emit evaluatingChanged(evaluating);
}

}  // namespace shardscope::ui
