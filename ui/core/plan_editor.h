// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The plan being edited: pins, forbidden decisions and conflict choices, with undo/redo, each edit
// re-evaluated in the background.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include "core/job_queue.h"
#include "core/plan_state.h"
#include "core/problem_view.h"

class QUndoStack;

namespace shardscope::ui {

// The expert plans one can start from: their ids ("megatron") and what each does, in the engine's order.
struct ExpertChoice {
    QString id;
    QString description;
};
QList<ExpertChoice> expertChoices();

// Holds the problem shown and the plan the user edits. Every edit is one undoable step on undoStack(); after
// any change of the plan (edit, undo, redo, new problem) the plan is evaluated on a worker thread and
// `evaluated` reports it. Evaluations run one at a time on one Evaluator (so they are incremental); an edit
// made while one runs supersedes the queued one, and only the newest plan's evaluation reports.
//
// Besides the edited plan, the editor can preview another plan (one of the session's plans, a search tree
// node): it is evaluated the same way and reported by `previewEvaluated`, for the views to show it instead of
// the edited plan, which stays as it was. editPreview() makes the previewed plan the edited plan (one
// undoable step, keeping the edited plan's pins and forbidden decisions); any edit, undo or redo, and a new
// problem, end the preview.
class PlanEditor : public QObject {
    Q_OBJECT

public:
    explicit PlanEditor(QObject* parent = nullptr);
    ~PlanEditor() override;

    // Shows `problem`, starting from its initial plan; clears the undo history.
    void setProblem(std::shared_ptr<const ProblemView> problem);
    const std::shared_ptr<const ProblemView>& problem() const { return problem_; }

    // The plan as edited (evaluated or not yet).
    const plan::Plan& plan() const { return plan_; }
    // The newest evaluated plan, or nullptr before the first evaluation of this problem.
    const std::shared_ptr<const PlanState>& state() const { return edited_.state; }
    bool isEvaluating() const { return evaluating_; }
    QUndoStack* undoStack() const { return undo_; }

    // Edits; each is one undoable step and does nothing when it would not change the plan.
    // Pins `decision`: it joins the end of the pinned decisions (the search keeps them), and leaves the
    // forbidden list and any other place in the plan.
    void pin(const plan::Decision& decision);
    // Forbids `decision` (the search never adds it) and removes it from the plan.
    void forbid(const plan::Decision& decision);
    // Removes decision `index` of the plan (a pin or not).
    void removeDecision(std::size_t index);
    // Allows again forbidden decision `index`.
    void allow(std::size_t index);
    // Gives repeated name `name`'s axis to its `dimension`-th dimension (counted major to minor) at every
    // site.
    void resolve(analysis::NameId name, int dimension);
    // Removes conflict choice `index` (into plan().resolutions): the name's first dimension takes its axis
    // again.
    void removeResolution(std::size_t index);
    // Sets the rematerialization policy of block family `family` ("layers.*"; `policy` indexes
    // rematPolicyNames()): the plan's remat decisions naming exactly the family are replaced by one at the
    // end, or removed for none. Decisions naming single blocks of the family stay (they override it).
    void setRemat(const QString& family, int policy);
    // Sets how the step runs (docs/design.md, "Pipelines"): `microbatches` one after another, through
    // `pipeline`'s stages when given (none: no pipeline; microbatches alone accumulate gradients). When they
    // cannot run on the mesh (plan::pipelineProblem) the plan stays and the reason is returned; otherwise ""
    // (and one undoable step, unless nothing changes).
    QString setStaging(int microbatches, std::optional<plan::Pipeline> pipeline);
    // Replaces the whole plan (an expert plan, a plan file, an empty plan), keeping the user's pins first and
    // the forbidden decisions when `keepPins`.
    void replacePlan(const plan::Plan& plan, const QString& description, bool keepPins = true);

    // Previews `plan` under `name` ("plan 3"): evaluates it in the background without touching the edited
    // plan or the history. A newer preview replaces it.
    void preview(const plan::Plan& plan, const QString& name);
    // Ends the preview: the views show the edited plan again.
    void endPreview();
    bool isPreviewing() const { return preview_ != nullptr; }
    // The previewed plan and its name (an empty plan and "" when not previewing).
    const plan::Plan& previewPlan() const;
    QString previewName() const;
    // The previewed plan's evaluation, or nullptr until it is in (or when not previewing).
    const std::shared_ptr<const PlanState>& previewState() const { return previewed_.state; }
    // What the views show: the previewed plan's evaluation when previewing (nullptr until it is in), else
    // state().
    std::shared_ptr<const PlanState> shownState() const {
        return preview_ ? previewed_.state : edited_.state;
    }
    // Which plan the views show, in words: "the edited plan", or "plan 3 (preview)".
    QString shownCaption() const;
    // Makes the previewed plan the edited plan, one undoable step ("Edit plan 3"): the edited plan's pins
    // come first and its forbidden decisions stay (session::keepingPins: they win over the same decision in
    // the previewed plan, whose own pins stay pinned). Ends the preview. Does nothing when not previewing.
    void editPreview();

    // Replaces the plan (one undoable step) with the plan `source` names, read as `shardscope-cli evaluate
    // --plan` reads it (session::planFromSource): "none", "expert:ID" and "reference" (keeping the user's
    // pins and forbidden decisions) or the path of a plan JSON file. Returns an empty string, or what went
    // wrong in one line naming the plan, file or entry; `warnings` (when given) receives the source's
    // warnings (decisions the mesh cannot divide, shardings a reference plan cannot express), as the CLI says
    // them.
    QString openPlan(const QString& source, QStringList* warnings = nullptr);
    // Writes the plan as edited to `path` as plan JSON (atomically). Returns an empty string or the reason.
    QString savePlan(const QString& path) const;

    // The plan as edited, as plan JSON (what ProblemRequest::carriedPlan takes); empty without a problem.
    std::string planJson() const;

    // A decision in words for menus and the undo history: "pin layers.*.mlp.d_ff on model".
    QString describe(const plan::Decision& decision) const;

signals:
    // plan() changed (an edit, undo or redo, or a new problem).
    void planChanged();
    void evaluated(std::shared_ptr<const shardscope::ui::PlanState> state);
    void evaluatingChanged(bool evaluating);
    // The evaluation failed (which the engine does not expect); the message says why.
    void evaluationFailed(const QString& message);
    // A preview started, changed to another plan, or ended.
    void previewChanged();
    // The previewed plan's evaluation is in (previewState()).
    void previewEvaluated(std::shared_ptr<const shardscope::ui::PlanState> state);

private:
    class PlanEdit;
    struct Worker;

    // What is evaluated: the edited plan or the preview. Each has its own newest revision, so that an edit
    // supersedes an edit's evaluation and a preview a preview's, not each other's.
    enum class Track { Edited = 0, Preview = 1 };
    // The editor's side of one track.
    struct Evaluations {
        std::uint64_t asked = 0;                 // the newest revision asked for (0: none)
        bool pending = false;                    // it has not reported yet
        std::shared_ptr<const PlanState> state;  // the newest evaluated
    };

    void edit(plan::Plan after, const QString& text);
    void setPlan(const plan::Plan& plan);  // from undo/redo
    // Evaluates the track's plan in the background; it reports (`evaluated` or `previewEvaluated`, or
    // `evaluationFailed`) unless a newer revision of the track was asked for by then.
    void evaluate(Track track);
    Evaluations& evaluationsOf(Track track) { return track == Track::Edited ? edited_ : previewed_; }
    void updateEvaluating();
    // Forgets the preview (and its evaluation in flight); whether there was one. Says nothing.
    bool dropPreview();

    std::shared_ptr<const ProblemView> problem_;
    plan::Plan plan_;
    std::uint64_t revision_ = 0;  // the last revision asked for, of either track
    struct Preview {
        plan::Plan plan;
        QString name;
    };
    std::unique_ptr<Preview> preview_;
    Evaluations edited_, previewed_;
    std::shared_ptr<Worker> worker_;  // one per problem: its Evaluator, and the newest revision asked for
    QUndoStack* undo_;
    bool evaluating_ = false;
    JobQueue jobs_{"plan evaluator"};  // last: destroyed first
};

}  // namespace shardscope::ui
