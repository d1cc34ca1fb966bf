// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The Conflicts dock: the conflicts grouped by kind with their options' costs, an explanation with a picture
// of the selected conflict, and what the last choice did.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>

#include <QString>
#include <QWidget>

#include "core/conflict_model.h"

class QLabel;
class QTextBrowser;
class QTreeView;

namespace shardscope::ui {

class PlanEditor;

// A picture of one conflict (ConflictPicture): the site's tensor as a row of boxes, one per dimension, those
// carrying the name filled with its colour. A repeated name: the mesh axis reaching one of its two dimensions
// and not the other. A cut name: the sharded tensor all-gathered whole before the op that needs it so.
class ConflictDiagram : public QWidget {
    Q_OBJECT

public:
    explicit ConflictDiagram(QWidget* parent = nullptr);
    void setPicture(std::optional<ConflictPicture> picture);
    const std::optional<ConflictPicture>& picture() const { return picture_; }
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::optional<ConflictPicture> picture_;
};

// Follows the editor: its problem (ConflictModel::setProblem), every change of the plan (planChanging, then
// the evaluated state). The list (object name "conflictsView") evaluates its options' costs only while the
// panel is shown. Selecting a row explains its conflict below the list ("conflictExplanation", with the
// picture "conflictDiagram"); activating an option (double-click, Enter) makes the choice on the edited plan
// and says what it did ("conflictEffect").
class ConflictPanel : public QWidget {
    Q_OBJECT

public:
    explicit ConflictPanel(PlanEditor* editor, QWidget* parent = nullptr);

    ConflictModel* model() const { return model_; }
    QTreeView* view() const { return view_; }
    // Makes `choice` on the edited plan (one undoable step, unless the plan already says so) and says what it
    // does: at once when it changes nothing now, else once the new plan is evaluated.
    void choose(const ConflictChoice& choice);
    // What the last choice did (empty before the first).
    QString effectText() const;
    // The width the conflicts' labels keep however narrow the dock is made.
    int minimumLabelWidth() const;
    // Whether the options' costs are being evaluated (only while the panel is shown).
    // Whether the panel is in sight (its dock shown and in front of its tabs: Qt keeps a dock tabbed behind
    // another visible). The options are priced only while it is.
    void setInView(bool inView);
    bool isEvaluating() const { return model_->isEvaluating(); }

signals:
    // A conflict or one of its options was selected: the name concerned.
    void nameSelected(shardscope::analysis::NameId name);
    // A site with an op at top level was selected.
    void opSelected(std::size_t bodyIndex);
    // What a choice did, once known (for the status bar and the message log).
    void effect(const QString& text);
    void evaluatingChanged(bool evaluating);

protected:
    void changeEvent(QEvent* event) override;

private:
    struct Pending {
        ConflictChoice choice;
        plan::Plan before, after;
        std::shared_ptr<const PlanState> beforeState;
    };

    void selected(const QModelIndex& index);
    void sizeNumberColumns();
    void scheduleSizing();
    void fitColumns();
    void explain();
    void showEffect(const PlanState* afterState);

    PlanEditor* editor_;
    ConflictModel* model_;
    QTreeView* view_;
    ConflictDiagram* diagram_;
    QTextBrowser* explanation_;
    QLabel* effect_;
    std::optional<std::size_t> conflict_, site_, option_;  // what the explanation shows
    std::optional<Pending> pending_;
    bool sizingPending_ = false;
};

}  // namespace shardscope::ui
