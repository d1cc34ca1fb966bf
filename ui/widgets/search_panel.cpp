// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/search_panel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

namespace shardscope::ui {

namespace {

QString timeText(double seconds) {
    if (seconds >= 1)
        return QStringLiteral("%1 s").arg(seconds, 0, 'f', 3);
    if (seconds >= 1e-3)
        return QStringLiteral("%1 ms").arg(seconds * 1e3, 0, 'f', 3);
    return QStringLiteral("%1 µs").arg(seconds * 1e6, 0, 'f', 1);
}

const QColor kFeasible(0x3c, 0x8d, 0x3c);
const QColor kInfeasible(0xc0, 0x39, 0x2b);
const QColor kLine(0x4f, 0x7f, 0xb5);
const QColor kEdited(0x6d, 0x4c, 0x9f);
const QColor kExpert(0xb0, 0x6a, 0x1e);
constexpr double kLegendSample = 16;  // the width of a legend entry's line or mark

}  // namespace

SearchChart::SearchChart(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("searchChart"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void SearchChart::clear() {
    points_.clear();
    elapsed_ = 0;
    exhausted_ = false;
    expert_ = {};
    update();
}

void SearchChart::addPoint(const Point& point) {
    points_.push_back(point);
    elapsed_ = std::max(elapsed_, point.seconds);
    update();
}

void SearchChart::setElapsed(double seconds) {
    if (seconds <= elapsed_)
        return;
    elapsed_ = seconds;
    update();
}

void SearchChart::setReference(Reference reference, double stepTime, const QString& label) {
    Line& target = reference == Reference::EditedPlan ? edited_ : expert_;
    target = {std::isfinite(stepTime) && stepTime > 0 ? stepTime : 0.0, label};
    update();
}

const SearchChart::Line& SearchChart::line(Reference reference) const {
    return reference == Reference::EditedPlan ? edited_ : expert_;
}

double SearchChart::reference(Reference reference) const {
    return line(reference).stepTime;
}

double SearchChart::speedUp(Reference reference) const {
    const double against = line(reference).stepTime;
    if (points_.empty() || against <= 0 || points_.back().stepTime <= 0)
        return 0;
    return against / points_.back().stepTime;
}

QString SearchChart::summaryText() const {
    QStringList parts;
    if (const double s = speedUp(Reference::EditedPlan); s > 0)
        parts << tr("%1× vs the edited plan").arg(s, 0, 'f', 2);
    if (const double s = speedUp(Reference::BestExpert); s > 0)
        parts << tr("%1× vs the best expert").arg(s, 0, 'f', 2);
    if (exhausted_)
        parts << tr("space exhausted");
    return parts.join(QStringLiteral(" · "));
}

void SearchChart::setExhausted(bool exhausted) {
    exhausted_ = exhausted;
    update();
}

QStringList SearchChart::legendEntries() const {
    QStringList entries{tr("best so far")};
    const auto any = [&](bool feasible) {
        return std::any_of(points_.begin(), points_.end(),
                           [&](const Point& p) { return p.feasible == feasible; });
    };
    if (any(true))
        entries << tr("fits");
    if (any(false))
        entries << tr("does not fit");
    if (edited_.stepTime > 0)
        entries << tr("edited plan");
    if (expert_.stepTime > 0)
        entries << (expert_.label.isEmpty() ? tr("best expert") : tr("best expert (%1)").arg(expert_.label));
    return entries;
}

namespace {

// The pens of the reference lines, shared by the plot and the legend.
QPen referencePen(SearchChart::Reference reference) {
    QPen pen(reference == SearchChart::Reference::EditedPlan ? kEdited : kExpert, 1.4);
    pen.setStyle(reference == SearchChart::Reference::EditedPlan ? Qt::DashLine : Qt::DotLine);
    return pen;
}

}  // namespace

std::vector<std::pair<QString, QPointF>> SearchChart::legendLayout(double width) const {
    const QFontMetricsF metrics(font());
    std::vector<std::pair<QString, QPointF>> placed;
    double x = 0, y = 0;
    for (const QString& entry : legendEntries()) {
        const double w = kLegendSample + 4 + metrics.horizontalAdvance(entry) + 12;
        if (x > 0 && x + w > width + 12)
            x = 0, y += metrics.height() + 2;  // the next row
        placed.emplace_back(entry, QPointF(x, y));
        x += w;
    }
    return placed;
}

void SearchChart::drawLegend(QPainter& painter, const QRectF& area) const {
    const QFontMetricsF metrics(font());
    const QString best = tr("best so far"), fits = tr("fits"), misses = tr("does not fit"),
                  edited = tr("edited plan");
    for (const auto& [entry, offset] : legendLayout(area.width())) {
        const double x = area.left() + offset.x(), top = area.top() + offset.y();
        const double y = top + metrics.height() / 2;
        const QPointF middle(x + kLegendSample / 2, y);
        painter.setBrush(Qt::NoBrush);
        if (entry == best) {
            painter.setPen(QPen(kLine, 1.5));
            painter.drawLine(QPointF(x, y), QPointF(x + kLegendSample, y));
        } else if (entry == fits) {
            painter.setPen(Qt::NoPen);
            painter.setBrush(kFeasible);
            painter.drawEllipse(middle, 3.5, 3.5);
        } else if (entry == misses) {
            painter.setPen(QPen(kInfeasible, 1.8));
            painter.drawLine(middle + QPointF(-3.5, -3.5), middle + QPointF(3.5, 3.5));
            painter.drawLine(middle + QPointF(-3.5, 3.5), middle + QPointF(3.5, -3.5));
        } else {
            painter.setPen(referencePen(entry == edited ? Reference::EditedPlan : Reference::BestExpert));
            painter.drawLine(QPointF(x, y), QPointF(x + kLegendSample, y));
        }
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(QRectF(x + kLegendSample + 4, top, area.width(), metrics.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, entry);
    }
}

void SearchChart::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(rect(), palette().base());
    const QFontMetrics metrics(font());
    const int strip = 6;  // the feasibility strip under the plot
    const int labelWidth = metrics.horizontalAdvance(QStringLiteral("000.000 ms"));
    const QString summary = summaryText();
    const double innerWidth = width() - labelWidth - 16;
    // The header (the speed-ups, wrapped when narrow) and the legend's rows take what they need.
    QFont bold = font();
    bold.setBold(true);
    const QRectF header = summary.isEmpty() ? QRectF(labelWidth + 8, 2, innerWidth, 0)
                                            : QFontMetricsF(bold).boundingRect(
                                                  QRectF(labelWidth + 8, 2, innerWidth, 4 * metrics.height()),
                                                  Qt::TextWordWrap, summary);
    const auto legend = legendLayout(innerWidth);
    const double legendHeight = legend.empty() ? 0 : legend.back().second.y() + metrics.height() + 4;
    const double top = header.bottom() + 4;
    const QRectF plot(labelWidth + 8, top + metrics.height() / 2.0, innerWidth,
                      height() - top - 1.5 * metrics.height() - strip - legendHeight - 10);
    if (!summary.isEmpty()) {
        painter.setPen(palette().color(QPalette::Text));
        painter.setFont(bold);
        painter.drawText(header, Qt::TextWordWrap, summary);
        painter.setFont(font());
    }
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(plot);
    if (points_.empty() || plot.width() < 20 || plot.height() < 20) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(plot, Qt::AlignCenter, tr("The best step time over the search appears here"));
        return;
    }

    double low = std::numeric_limits<double>::max(), high = 0;
    const auto include = [&](double v) {
        if (v > 0)
            low = std::min(low, v), high = std::max(high, v);
    };
    for (const Point& p : points_)
        include(p.stepTime);
    include(edited_.stepTime);
    include(expert_.stepTime);
    if (high <= 0)
        return;
    // Infeasible plans can be orders of magnitude off the feasible ones: a log axis keeps both readable.
    const bool logarithmic = high / low > 20;
    if (high == low)
        low *= 0.9, high *= 1.1;
    // A margin, so the extreme lines do not run along the frame.
    if (high / low > 20)
        low /= 1.15, high *= 1.15;
    else
        std::tie(low, high) = std::pair(low - 0.06 * (high - low), high + 0.06 * (high - low));
    const auto scaled = [&](double v) { return logarithmic ? std::log10(v) : v; };
    const double yLow = scaled(low), yHigh = scaled(high);
    const double span = std::max(elapsed_, 1e-3);
    const auto xOf = [&](double seconds) {
        return plot.left() + plot.width() * std::clamp(seconds / span, 0.0, 1.0);
    };
    const auto yOf = [&](double stepTime) {
        return plot.bottom() - plot.height() * (scaled(stepTime) - yLow) / std::max(yHigh - yLow, 1e-12);
    };

    // Axis labels: the extremes of both axes.
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(QRectF(0, plot.top() - metrics.height() / 2.0, plot.left() - 4, metrics.height()),
                     Qt::AlignRight | Qt::AlignVCenter, timeText(high));
    painter.drawText(QRectF(0, plot.bottom() - metrics.height() / 2.0, plot.left() - 4, metrics.height()),
                     Qt::AlignRight | Qt::AlignVCenter, timeText(low));
    const QRectF stripRect(plot.left(), plot.bottom() + 3, plot.width(), strip);
    const QRectF axis(plot.left(), stripRect.bottom() + 2, plot.width(), metrics.height());
    painter.drawText(axis, Qt::AlignLeft | Qt::AlignTop, QStringLiteral("0 s"));
    painter.drawText(axis, Qt::AlignRight | Qt::AlignTop, QStringLiteral("%1 s").arg(span, 0, 'f', 1));
    painter.drawText(axis, Qt::AlignHCenter | Qt::AlignTop,
                     logarithmic ? tr("best step time (log scale)") : tr("best step time"));

    for (const Reference reference : {Reference::EditedPlan, Reference::BestExpert}) {
        const double stepTime = line(reference).stepTime;
        if (stepTime <= 0)
            continue;
        painter.setPen(referencePen(reference));
        painter.drawLine(QPointF(plot.left(), yOf(stepTime)), QPointF(plot.right(), yOf(stepTime)));
    }

    // The best so far as a step line, and the feasibility of that best along the strip.
    QPainterPath path;
    for (std::size_t i = 0; i < points_.size(); ++i) {
        const Point& p = points_[i];
        const double x = xOf(p.seconds), y = yOf(p.stepTime);
        if (i == 0)
            path.moveTo(x, y);
        else
            path.lineTo(x, path.currentPosition().y()), path.lineTo(x, y);
        const double end = i + 1 < points_.size() ? xOf(points_[i + 1].seconds) : xOf(span);
        painter.fillRect(QRectF(x, stripRect.top(), std::max(end - x, 1.0), stripRect.height()),
                         p.feasible ? kFeasible : kInfeasible);
    }
    path.lineTo(xOf(span), path.currentPosition().y());
    painter.setPen(QPen(kLine, 1.5));
    painter.setBrush(Qt::NoBrush);
    painter.drawPath(path);

    for (const Point& p : points_) {
        const QPointF at(xOf(p.seconds), yOf(p.stepTime));
        if (p.feasible) {
            painter.setPen(Qt::NoPen);
            painter.setBrush(kFeasible);
            painter.drawEllipse(at, 3.5, 3.5);
        } else {
            painter.setPen(QPen(kInfeasible, 1.8));
            painter.drawLine(at + QPointF(-3.5, -3.5), at + QPointF(3.5, 3.5));
            painter.drawLine(at + QPointF(-3.5, 3.5), at + QPointF(3.5, -3.5));
        }
    }
    drawLegend(painter, QRectF(plot.left(), axis.bottom() + 4, plot.width(), legendHeight));
}

SearchPanel::SearchPanel(QWidget* parent)
    : QWidget(parent),
      runner_(new SearchRunner(this)),
      seconds_(new QDoubleSpinBox(this)),
      threads_(new QSpinBox(this)),
      seed_(new QSpinBox(this)),
      exploration_(new QDoubleSpinBox(this)),
      record_(new QCheckBox(tr("Record into the workspace"), this)),
      start_(new QPushButton(tr("Start"), this)),
      pause_(new QPushButton(tr("Pause"), this)),
      resume_(new QPushButton(tr("Resume"), this)),
      stop_(new QPushButton(tr("Stop"), this)),
      apply_(new QPushButton(tr("Apply best plan"), this)),
      chart_(new SearchChart(this)),
      status_(new QLabel(this)),
      best_(new QLabel(this)),
      recording_(new QLabel(this)) {
    seconds_->setObjectName(QStringLiteral("searchSeconds"));
    seconds_->setRange(0.1, 24 * 3600);
    seconds_->setDecimals(1);
    seconds_->setSuffix(tr(" s"));
    seconds_->setToolTip(tr("How long the search runs (wall time, pauses included)"));
    threads_->setObjectName(QStringLiteral("searchThreads"));
    threads_->setRange(1, std::max(1, QThread::idealThreadCount()));
    threads_->setToolTip(tr("Threads searching one tree; one thread with a fixed seed is reproducible"));
    seed_->setObjectName(QStringLiteral("searchSeed"));
    seed_->setRange(0, std::numeric_limits<int>::max());
    exploration_->setObjectName(QStringLiteral("searchExploration"));
    exploration_->setRange(0, 10);
    exploration_->setSingleStep(0.1);
    exploration_->setDecimals(2);
    exploration_->setToolTip(
        tr("How much the search tries new kinds of plans rather than refining the best ones so far: "
           "higher explores more"));
    search::SearchOptions defaults;
    defaults.budget.seconds = 30;
    setOptions(defaults);
    record_->setObjectName(QStringLiteral("searchRecord"));
    record_->setChecked(true);
    start_->setObjectName(QStringLiteral("searchStart"));
    pause_->setObjectName(QStringLiteral("searchPause"));
    resume_->setObjectName(QStringLiteral("searchResume"));
    stop_->setObjectName(QStringLiteral("searchStop"));
    apply_->setObjectName(QStringLiteral("searchApply"));
    apply_->setToolTip(tr("Replace the plan being edited by the best plan found, keeping your pins"));
    status_->setObjectName(QStringLiteral("searchStatus"));
    best_->setObjectName(QStringLiteral("searchBest"));
    best_->setWordWrap(true);
    recording_->setObjectName(QStringLiteral("searchRecording"));
    recording_->setWordWrap(true);
    recording_->setStyleSheet(QStringLiteral("QLabel { color: #666; }"));

    auto* settings = new QFormLayout;
    settings->addRow(tr("Budget"), seconds_);
    settings->addRow(tr("Threads"), threads_);
    settings->addRow(tr("Seed"), seed_);
    settings->addRow(tr("Exploration"), exploration_);
    settings->addRow(record_);
    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {start_, pause_, resume_, stop_})
        buttons->addWidget(b);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(settings);
    layout->addLayout(buttons);
    layout->addWidget(chart_, 1);
    layout->addWidget(status_);
    layout->addWidget(best_);
    layout->addWidget(apply_);
    layout->addWidget(recording_);

    connect(start_, &QPushButton::clicked, this, &SearchPanel::startSearch);
    connect(pause_, &QPushButton::clicked, runner_, &SearchRunner::pause);
    connect(resume_, &QPushButton::clicked, runner_, &SearchRunner::resume);
    connect(stop_, &QPushButton::clicked, runner_, &SearchRunner::stop);
    connect(apply_, &QPushButton::clicked, this, [this] {
        if (runner_->best() && searched_ == problem_)
            emit applyPlanRequested(runner_->best()->plan, tr("Apply the search's best plan"));
    });
    connect(record_, &QCheckBox::toggled, this, &SearchPanel::showRecording);
    connect(runner_, &SearchRunner::stateChanged, this, &SearchPanel::updateButtons);
    connect(runner_, &SearchRunner::paused, this, [this] { pauseClock(true); });
    connect(runner_, &SearchRunner::resumed, this, [this] { pauseClock(false); });
    connect(runner_, &SearchRunner::progress, this, [this](const SearchProgress& progress) {
        if (searched_ && searched_ == problem_)  // not a stopped search of the previous problem
            showProgress(progress);
    });
    connect(runner_, &SearchRunner::newBest, this, &SearchPanel::showBest);
    connect(runner_, &SearchRunner::recording, this, &SearchPanel::showRecording);
    connect(runner_, &SearchRunner::finished, this, [this] {
        pauseClock(false);  // stopped while paused
        if (searched_ && searched_ == problem_)
            showProgress(runner_->lastProgress());
        showRecording();
    });
    connect(runner_, &SearchRunner::failed, this, [this](const QString& message) {
        if (!searched_ || searched_ != problem_)
            return;
        recording_->setText(tr("The search failed: %1").arg(message));
        recording_->setStyleSheet(QStringLiteral("QLabel { color: #a12622; }"));
    });
    status_->setText(tr("Not started"));
    updateButtons();
    showRecording();
}

// The runner (a child) stops its search when deleted with the panel.
SearchPanel::~SearchPanel() = default;

void SearchPanel::setProblem(std::shared_ptr<const ProblemView> problem) {
    if (problem != problem_ && searched_) {
        // The plans found belong to the problem searched: they neither apply to this one nor go on being
        // looked for. What the panel said of that search goes with them.
        runner_->stop();
        chart_->clear();
        best_->clear();
        searched_.reset();
        status_->setText(tr("Not started"));
        recording_->setStyleSheet(QStringLiteral("QLabel { color: #666; }"));
    }
    problem_ = std::move(problem);
    startPlan_ = problem_ ? problem_->initialPlan : plan::Plan{};
    if (!workspaceChosen_)
        workspacePath_ = problem_ ? problem_->workspacePath : QString();
    updateButtons();
    showRecording();
}

void SearchPanel::setStartPlan(const plan::Plan& plan) {
    startPlan_ = plan;
}

void SearchPanel::setWorkspacePath(const QString& path) {
    workspacePath_ = path;
    workspaceChosen_ = true;
    showRecording();
}

void SearchPanel::setEditedStepTime(double stepTime) {
    chart_->setReference(SearchChart::Reference::EditedPlan, stepTime);
}

search::SearchOptions SearchPanel::options() const {
    search::SearchOptions options = options_;
    options.budget.seconds = seconds_->value();
    options.threads = threads_->value();
    options.seed = static_cast<std::uint64_t>(seed_->value());
    options.exploration = exploration_->value();
    return options;
}

void SearchPanel::setOptions(const search::SearchOptions& options) {
    options_ = options;
    seconds_->setValue(options.budget.seconds > 0 ? options.budget.seconds : 30);
    threads_->setValue(options.threads);
    seed_->setValue(static_cast<int>(std::min<std::uint64_t>(options.seed, std::numeric_limits<int>::max())));
    exploration_->setValue(options.exploration);
}

bool SearchPanel::startSearch() {
    const QString path = record_->isChecked() ? workspacePath_ : QString();
    if (!runner_->start(problem_, startPlan_, options(), path))
        return false;
    searched_ = problem_;
    pausedSeconds_ = 0;
    pauseTimer_.invalidate();
    chart_->clear();
    best_->clear();
    status_->setText(tr("Starting…"));
    recording_->setStyleSheet(QStringLiteral("QLabel { color: #666; }"));
    showRecording();
    return true;
}

void SearchPanel::updateButtons() {
    using State = SearchRunner::State;
    const State state = runner_->state();
    start_->setEnabled(state == State::Idle && problem_ != nullptr);
    pause_->setEnabled(state == State::Running);
    resume_->setEnabled(state == State::Paused);
    stop_->setEnabled(state == State::Starting || state == State::Running || state == State::Paused);
    apply_->setEnabled(runner_->best().has_value() && searched_ && searched_ == problem_);
    for (QWidget* setting : std::initializer_list<QWidget*>{seconds_, threads_, seed_, exploration_, record_})
        setting->setEnabled(state == State::Idle);
    if (state == State::Paused)
        status_->setText(tr("Paused · %1").arg(status_->text().section(QStringLiteral(" · "), -4)));
}

void SearchPanel::pauseClock(bool paused) {
    if (paused) {
        pauseTimer_.start();
    } else if (pauseTimer_.isValid()) {
        pausedSeconds_ += static_cast<double>(pauseTimer_.nsecsElapsed()) * 1e-9;
        pauseTimer_.invalidate();
    }
}

double SearchPanel::activeSeconds(double searchSeconds) const {
    double paused = pausedSeconds_;
    if (pauseTimer_.isValid())
        paused += static_cast<double>(pauseTimer_.nsecsElapsed()) * 1e-9;
    return std::max(0.0, searchSeconds - paused);
}

void SearchPanel::showProgress(const SearchProgress& p) {
    const QLocale locale;
    const double seconds = activeSeconds(p.seconds);
    chart_->setElapsed(seconds);
    QString text = tr("%1 iterations · %2 it/s · tree %3 nodes · %4 s")
                       .arg(locale.toString(p.iterations), locale.toString(p.iterationsPerSecond, 'f', 0),
                            locale.toString(p.treeNodes), QString::number(seconds, 'f', 1));
    if (runner_->state() == SearchRunner::State::Idle) {
        chart_->setExhausted(p.exhausted);
        text = p.exhausted ? tr("Done, space exhausted · %1").arg(text) : tr("Done · %1").arg(text);
    }
    status_->setText(text);
}

void SearchPanel::showBest(const FoundPlan& found) {
    if (searched_ != problem_)
        return;  // a stopped search of the previous problem, still reporting
    // The experts seed the search, before it finds plans of its own: the last expert to be the best is the
    // best expert.
    if (found.origin.startsWith(QLatin1String("expert:")))
        chart_->setReference(SearchChart::Reference::BestExpert, found.evaluation.stepTime,
                             found.origin.mid(7));
    chart_->addPoint({activeSeconds(found.seconds), found.evaluation.stepTime, found.evaluation.feasible});
    best_->setText(tr("Best: %1 per step, %2 · %3 after %4 s")
                       .arg(timeText(found.evaluation.stepTime),
                            found.evaluation.feasible ? tr("fits") : tr("does not fit"), found.origin,
                            QString::number(found.seconds, 'f', 2)));
    best_->setStyleSheet(found.evaluation.feasible ? QStringLiteral("QLabel { color: #2d6a2d; }")
                                                   : QStringLiteral("QLabel { color: #a12622; }"));
    apply_->setEnabled(searched_ == problem_);
}

void SearchPanel::showRecording() {
    // The last search's session, while it is of the problem shown.
    if (runner_->session() > 0 && searched_ && searched_ == problem_) {
        recording_->setText(tr("Recorded in %1, session %2")
                                .arg(QFileInfo(runner_->workspacePath()).fileName())
                                .arg(runner_->session()));
        recording_->setToolTip(runner_->workspacePath());
        return;
    }
    record_->setVisible(!workspacePath_.isEmpty());
    recording_->setToolTip(workspacePath_);
    if (workspacePath_.isEmpty())
        recording_->setText(tr("Not recorded: no workspace is open"));
    else if (!record_->isChecked())
        recording_->setText(tr("Not recorded"));
    else
        recording_->setText(tr("Will record into %1").arg(QFileInfo(workspacePath_).fileName()));
}

}  // namespace shardscope::ui
