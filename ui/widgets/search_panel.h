// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The Search dock: the settings of the MCTS, Start/Pause/Resume/Stop, and the search watched live (the best
// step time and its feasibility over time, iterations per second, the tree's size).
#pragma once

#include <memory>
#include <vector>

#include <QString>
#include <QWidget>

#include "core/search_runner.h"

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace shardscope::ui {

// The best plan's step time over the search's time, drawn with QPainter: a step line of the best so far,
// feasible plans as filled dots, infeasible ones as crosses, and a strip along the bottom coloured by the
// feasibility of the best plan at each moment. The y axis turns logarithmic when the times span more than a
// factor of 20.
class SearchChart : public QWidget {
    Q_OBJECT

public:
    struct Point {
        double seconds = 0;
        double stepTime = 0;
        bool feasible = false;
    };

    explicit SearchChart(QWidget* parent = nullptr);

    void clear();
    // A new best plan at `seconds` after the start.
    void addPoint(const Point& point);
    // Extends the time axis to `seconds` (the search goes on without a better plan).
    void setElapsed(double seconds);
    const std::vector<Point>& points() const { return points_; }

    QSize sizeHint() const override { return {320, 160}; }
    QSize minimumSizeHint() const override { return {160, 90}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<Point> points_;
    double elapsed_ = 0;
};

// Runs searches of the problem shown from the plan being edited (its pins, forbidden decisions and
// resolutions), through its own SearchRunner. Buttons follow the runner's state: Start when idle (and a
// problem is shown), Pause while running, Resume while paused, Stop while running or paused.
class SearchPanel : public QWidget {
    Q_OBJECT

public:
    explicit SearchPanel(QWidget* parent = nullptr);
    ~SearchPanel() override;

    // The problem searched by the next Start. A different problem stops the running search and forgets its
    // plans (they belong to the problem searched).
    void setProblem(std::shared_ptr<const ProblemView> problem);
    // The plan whose pins, forbidden decisions and resolutions the next search starts from.
    void setStartPlan(const plan::Plan& plan);
    // Where searches are recorded (a new session each); empty: not recorded. Defaults to the problem's
    // workspace.
    void setWorkspacePath(const QString& path);
    QString workspacePath() const { return workspacePath_; }

    // The settings as the engine takes them.
    search::SearchOptions options() const;
    void setOptions(const search::SearchOptions& options);

    SearchRunner* runner() const { return runner_; }
    SearchChart* chart() const { return chart_; }

    // Starts a search with the settings shown (what the Start button does). Returns false when none could
    // start.
    bool startSearch();

signals:
    // The user asked to use the best plan found ("Apply best plan"); the lead wires it to
    // PlanEditor::replacePlan.
    void applyPlanRequested(const shardscope::plan::Plan& plan, const QString& description);

private:
    void updateButtons();
    void showProgress(const SearchProgress& progress);
    void showBest(const FoundPlan& found);
    void showRecording();

    SearchRunner* runner_;
    std::shared_ptr<const ProblemView> problem_;
    std::shared_ptr<const ProblemView> searched_;  // by the last search started: its plans apply to it only
    plan::Plan startPlan_;
    QString workspacePath_;
    bool workspaceChosen_ = false;  // set by setWorkspacePath: the problem's workspace no longer applies

    QDoubleSpinBox* seconds_;
    QSpinBox* threads_;
    QSpinBox* seed_;
    QDoubleSpinBox* exploration_;
    QCheckBox* record_;
    QPushButton* start_;
    QPushButton* pause_;
    QPushButton* resume_;
    QPushButton* stop_;
    QPushButton* apply_;
    SearchChart* chart_;
    QLabel* status_;
    QLabel* best_;
    QLabel* recording_;
};

}  // namespace shardscope::ui
