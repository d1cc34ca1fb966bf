// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The Search dock: the settings of the MCTS, Start/Pause/Resume/Stop, and the search watched live (the best
// step time and its feasibility over time, iterations per second, the tree's size).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include <QPointF>

#include <QElapsedTimer>
#include <QString>
#include <QStringList>
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
// feasibility of the best plan at each moment. Two reference lines run across: the plan being edited (dashed)
// and the best expert plan the search was seeded with (dotted); the header gives the best's speed-up over
// each, the legend under the axis names what is drawn, and a search that explored its whole tree says "space
// exhausted". The y axis turns logarithmic when the times span more than a factor of 20. The x axis is the
// search's running time: the panel leaves paused time out.
class SearchChart : public QWidget {
    Q_OBJECT

public:
    struct Point {
        double seconds = 0;
        double stepTime = 0;
        bool feasible = false;
    };
    enum class Reference { EditedPlan, BestExpert };

    explicit SearchChart(QWidget* parent = nullptr);

    // Forgets the search: its points, time, exhaustion and best expert (the edited plan's line stays).
    void clear();
    // A new best plan at `seconds` after the start.
    void addPoint(const Point& point);
    // Extends the time axis to `seconds` (the search goes on without a better plan).
    void setElapsed(double seconds);
    const std::vector<Point>& points() const { return points_; }
    double elapsed() const { return elapsed_; }

    // The step time of a reference line (0: none) and its label ("expert:megatron").
    void setReference(Reference reference, double stepTime, const QString& label = {});
    double reference(Reference reference) const;
    // How many times faster the best plan found is than `reference` (its step time over the best's); 0
    // without either.
    double speedUp(Reference reference) const;
    // The header: the speed-ups over the references there are, and "space exhausted".
    QString summaryText() const;
    void setExhausted(bool exhausted);
    bool exhausted() const { return exhausted_; }
    // What the legend lists, in order: the best-so-far line, the kinds of points drawn, the reference lines.
    QStringList legendEntries() const;

    QSize sizeHint() const override { return {320, 220}; }
    QSize minimumSizeHint() const override { return {160, 110}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    struct Line {
        double stepTime = 0;
        QString label;
    };
    const Line& line(Reference reference) const;
    // The legend's entries and where each goes, from the top left of an area `width` wide (rows as needed).
    std::vector<std::pair<QString, QPointF>> legendLayout(double width) const;
    void drawLegend(QPainter& painter, const QRectF& area) const;

    std::vector<Point> points_;
    double elapsed_ = 0;
    bool exhausted_ = false;
    Line edited_;
    Line expert_;
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
    // The step time of the plan being edited (0: not evaluated), the chart's "edited plan" line.
    void setEditedStepTime(double stepTime);
    // Where searches are recorded (a new session each); empty: not recorded. Defaults to the problem's
    // workspace.
    void setWorkspacePath(const QString& path);
    QString workspacePath() const { return workspacePath_; }

    // The settings as the engine takes them: those shown, the others as setOptions last gave them.
    search::SearchOptions options() const;
    void setOptions(const search::SearchOptions& options);
    // The search's running time so far, paused time left out.
    double activeSeconds(double searchSeconds) const;

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
    void pauseClock(bool paused);

    SearchRunner* runner_;
    std::shared_ptr<const ProblemView> problem_;
    std::shared_ptr<const ProblemView> searched_;  // by the last search started: its plans apply to it only
    plan::Plan startPlan_;
    QString workspacePath_;
    bool workspaceChosen_ = false;   // set by setWorkspacePath: the problem's workspace no longer applies
    search::SearchOptions options_;  // the settings the panel does not show (decisions, probabilities, ...)
    // The search's seconds count wall time, pauses included (the engine's rule); the chart leaves them out.
    double pausedSeconds_ = 0;
    QElapsedTimer pauseTimer_;

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
