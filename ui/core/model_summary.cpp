// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/model_summary.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <QCoreApplication>
#include <QLocale>

#include "core/glossary.h"
#include "core/text.h"
#include "shardscope/report/model_report.h"

namespace shardscope::ui {
namespace {

QString tr(const char* text, int n = -1) {
    return QCoreApplication::translate("shardscope::ui::ModelSummary", text, nullptr, n);
}

}  // namespace

QList<SummaryLine> summaryOf(const ProblemView& model) {
    const ir::GraphStatistics& s = model.statistics;
    const QLocale locale;
    QList<SummaryLine> lines;
    lines.append({tr("Model"), model.displayName, model.description});
    lines.append({tr("Parameters"), toQString(report::formatCount(static_cast<double>(s.parameterCount))),
                  tr("%1 elements in parameter arguments").arg(locale.toString(s.parameterCount))});
    lines.append({tr("FLOPs per forward pass"), toQString(report::formatFlops(s.flops)),
                  tr("One execution of the graph; while bodies count once per trip")});
    lines.append({tr("Parameter bytes"),
                  toQString(report::formatBytes(static_cast<double>(s.parameterBytes))),
                  tr("%1 bytes").arg(locale.toString(s.parameterBytes))});
    lines.append({tr("Activation bytes"),
                  toQString(report::formatBytes(static_cast<double>(s.activationBytes))),
                  tr("Every op result of one pass, without buffer reuse: an upper bound")});
    lines.append({tr("Ops"),
                  tr("%1 of %2")
                      .arg(locale.toString(s.opCount),
                           countOf(static_cast<long long>(s.opsByKind.size()), tr("kind"), tr("kinds"))),
                  tr("Nested regions included")});
    return lines;
}

CostSummary costSummaryOf(const ProblemView& problem, const PlanState& state) {
    const cost::Evaluation& e = state.evaluation;
    auto bytes = [](double b) { return toQString(report::formatBytes(b)); };
    auto time = [](double s) { return toQString(report::formatTime(s)); };
    CostSummary summary;
    summary.peakMemory = e.peakMemory;
    summary.capacity = e.capacity;
    summary.feasible = e.feasible;
    summary.stepTime = time(e.stepTime);
    const double percent = e.capacity > 0 ? 100.0 * e.peakMemory / e.capacity : 0;
    const QString share = QLocale().toString(percent, 'f', percent < 1 ? 2 : (percent < 10 ? 1 : 0));
    summary.verdict = e.feasible ? tr("fits: %1% of the usable memory").arg(share)
                                 : tr("does not fit: %1% of the usable memory").arg(share);

    const auto& mesh = problem.mesh();
    summary.lines.append(
        {tr("Step time"), summary.stepTime,
         withGlossary(tr("compute %1 + collectives %2, of which %3 run while the device computes (simulated)")
                          .arg(time(e.computeTime), time(e.collectiveTime),
                               time(std::max(0.0, e.computeTime + e.collectiveTime - e.stepTime))),
                      QStringLiteral("step-time"))});
    summary.lines.append({tr("Compute"), time(e.computeTime), tr("Sum of every op's time on one device")});
    summary.lines.append({tr("Collectives"), time(e.collectiveTime),
                          withGlossary(tr("%1 on the critical path")
                                           .arg(countOf(static_cast<long long>(e.collectives.size()),
                                                        tr("collective"), tr("collectives"))),
                                       QStringLiteral("collective"))});
    summary.lines.append(
        {tr("Peak memory"), tr("%1 of %2").arg(bytes(e.peakMemory), bytes(e.capacity)),
         withGlossary(
             tr("Per device, reached at op #%1; the usable memory keeps %2% of the device's memory free")
                 .arg(e.peakOp)
                 .arg(static_cast<int>(problem.problem->costModel->options().memoryReserve * 100)),
             QStringLiteral("peak-memory"))});
    const cost::MemoryBreakdown& m = e.atPeak;
    // What is live at the peak, largest first, leaving out what is absent (no optimizer state when not
    // training).
    std::vector<std::pair<double, QString>> parts = {{m.parameters, tr("parameters")},
                                                     {m.gradients, tr("gradients")},
                                                     {m.optimizerState, tr("optimizer state")},
                                                     {m.activations, tr("activations")},
                                                     {m.temporaries, tr("temporaries")}};
    std::stable_sort(parts.begin(), parts.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    QStringList live;
    for (const auto& [amount, what] : parts)
        if (amount > 0)
            live.append(tr("%1 %2").arg(bytes(amount), what));
    summary.lines.append(
        {tr("  at the peak"), live.join(u'\n'), tr("What is live per device when memory peaks")});
    summary.lines.append({tr("Model states"), bytes(e.modelStates.total()),
                          tr("parameters %1, gradients %2, optimizer state %3 per device")
                              .arg(bytes(e.modelStates.parameters), bytes(e.modelStates.gradients),
                                   bytes(e.modelStates.optimizerState))});
    // Collectives by kind: count, bytes moved and time.
    constexpr int kinds = 5;
    int count[kinds] = {};
    double moved[kinds] = {}, spent[kinds] = {};
    for (const auto& c : e.collectives) {
        const auto k = static_cast<std::size_t>(c.kind);
        ++count[k];
        moved[k] += c.bytes;
        spent[k] += c.time;
    }
    for (std::size_t k = 0; k < kinds; ++k) {
        if (count[k] == 0)
            continue;
        summary.lines.append(
            {QStringLiteral("  ") + toQString(cost::toString(static_cast<cost::CollectiveKind>(k))),
             tr("%1 × · %2 · %3").arg(count[k]).arg(bytes(moved[k]), time(spent[k])),
             withGlossary(tr("How many, the bytes they move, and their time"),
                          QStringLiteral("collective"))});
    }
    summary.lines.append(
        {tr("Competition sites"), QString::number(e.competitions.size()),
         withGlossary(tr("Places where a decision of the plan could not shard its name (another name already "
                         "uses the axis there, or the size does not divide), so it stays whole there"),
                      QStringLiteral("competition-site"))});
    summary.lines.append(
        {tr("Mesh"),
         tr("%1 on %2").arg(toQString(mesh.toString()), toQString(problem.problem->hardware.displayName)),
         {}});
    return summary;
}

}  // namespace shardscope::ui
