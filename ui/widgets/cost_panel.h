// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The Cost dock: what the current plan costs (step time, peak memory against the device's capacity,
// collectives), refreshed after every background evaluation.
#pragma once

#include <QWidget>

class QFormLayout;
class QLabel;
class QProgressBar;

namespace shardscope::ui {

struct PlanState;
struct ProblemView;

class CostPanel : public QWidget {
    Q_OBJECT

public:
    explicit CostPanel(QWidget* parent = nullptr);

    // Shows `state`'s costs; a null state empties the panel.
    void showState(const ProblemView* problem, const PlanState* state);
    // Says which plan the figures are of ("of the edited plan", "of plan 3 (preview)"); `preview` marks it as
    // a preview (another colour).
    void setCaption(const QString& caption, bool preview);
    QString caption() const;
    // Marks the figures as stale while a newer plan is being evaluated.
    void setEvaluating(bool evaluating);
    // The step time shown ("" when none), for tests.
    QString stepTimeText() const;

private:
    QLabel* caption_;
    QLabel* stepTime_;
    QLabel* status_;
    QProgressBar* memory_;
    QLabel* verdict_;
    QFormLayout* lines_;
};

}  // namespace shardscope::ui
