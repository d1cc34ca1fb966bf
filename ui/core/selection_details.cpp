// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/selection_details.h"

#include <algorithm>

#include <QCoreApplication>
#include <QLocale>

#include "core/glossary.h"
#include "core/name_style.h"
#include "core/text.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/report/model_report.h"

namespace shardscope::ui {
namespace {

QString tr(const char* text, int n = -1) {
    return QCoreApplication::translate("shardscope::ui::SelectionDetails", text, nullptr, n);
}

QString html(std::string_view text) {
    return toQString(text).toHtmlEscaped();
}
QString bytesText(double bytes) {
    return toQString(report::formatBytes(bytes));
}
QString timeText(double seconds) {
    return toQString(report::formatTime(seconds));
}

QString row(const QString& label, const QString& value) {
    return QStringLiteral("<tr><td style='color:#555;padding-right:12px'>%1</td><td>%2</td></tr>")
        .arg(label, value);
}

QString swatch(const ProblemView& problem, analysis::NameId name) {
    return QStringLiteral("<span style='background-color:%1'>&nbsp;&nbsp;&nbsp;</span>&nbsp;%2")
        .arg(nameColor(problem.space(), name).name(), html(problem.space().name(name).label));
}

// A value with its type and, under a plan, its sharding with names.
QString valueLine(const ProblemView& problem, const PlanState* state, ir::ValueId value) {
    const auto& type = problem.graph().type(value);
    const plan::TensorSharding none;
    const plan::TensorSharding& sharding =
        state && value.index < state->shardings.size() ? state->shardings[value.index] : none;
    return QStringLiteral("%%1 <code>%2</code> <code>%3</code>")
        .arg(value.index)
        .arg(html(type.toString()),
             shardingText(problem.space(), problem.mesh(), value, type, sharding).toHtmlEscaped());
}

QString axesText(const mesh::Mesh& mesh, std::uint32_t mask) {
    QStringList axes;
    for (std::size_t i = 0; i < mesh.axes.size(); ++i)
        if ((mask >> i) & 1u)
            axes.append(toQString(mesh.axes[i].name));
    return axes.isEmpty() ? QStringLiteral("—") : axes.join(QStringLiteral(", "));
}

// The axes the plan's decisions give `name` (through its group or itself), in priority order.
QString decidedAxes(const ProblemView& problem, const PlanState* state, analysis::NameId name) {
    if (!state)
        return QStringLiteral("—");
    const auto& context = problem.problem->costModel->planContext();
    QStringList axes;
    for (const auto& decision : state->plan.decisions) {
        const auto names = context.namesOf(decision);
        if (std::find(names.begin(), names.end(), name) != names.end())
            axes.append(toQString(problem.mesh().axes[static_cast<std::size_t>(decision.axis)].name));
    }
    return axes.isEmpty() ? QStringLiteral("— (replicated)") : axes.join(QStringLiteral(", "));
}

QString conflictKind(analysis::ConflictKind kind) {
    return kind == analysis::ConflictKind::RepeatedName ? tr("repeated name") : tr("cut name");
}

// " (what is this?)" linking to glossary entry `id` (the details panel opens the glossary there).
QString glossaryLink(const QString& id) {
    return QStringLiteral(" <a href=\"%1\">%2</a>").arg(glossaryUrl(id).toString(), tr("(what is this?)"));
}

QString heading(const QString& title, const QString& subtitle = {}) {
    QString text = QStringLiteral("<h3 style='margin:0'>%1</h3>").arg(title);
    if (!subtitle.isEmpty())
        text += QStringLiteral("<div style='color:#555'>%1</div>").arg(subtitle);
    return text;
}

}  // namespace

QString describeOp(const ProblemView& problem, const PlanState* state, std::size_t bodyIndex) {
    const auto& graph = problem.graph();
    if (bodyIndex >= graph.body.size())
        return {};
    const ir::OpId id = graph.body[bodyIndex];
    const ir::Op& op = graph.op(id);
    QString text = heading(html(ir::mnemonic(op.kind)), html(op.location.toString()));
    text += QStringLiteral("<table>");
    text += row(tr("Op"), tr("#%1 of the body").arg(bodyIndex));
    if (bodyIndex < problem.space().rules.size())
        text += row(tr("Factor rule"),
                    QStringLiteral("<code>%1</code>").arg(html(problem.space().rules[bodyIndex].toString())));
    if (state && bodyIndex < state->evaluation.opComputeTime.size())
        text += row(tr("Compute"), timeText(state->evaluation.opComputeTime[bodyIndex]));
    text += QStringLiteral("</table><p><b>%1</b><br>").arg(tr("Operands"));
    for (const auto operand : op.operands)
        text += valueLine(problem, state, operand) + QStringLiteral("<br>");
    text += QStringLiteral("</p><p><b>%1</b><br>").arg(tr("Results"));
    for (const auto result : op.results)
        text += valueLine(problem, state, result) + QStringLiteral("<br>");
    text += QStringLiteral("</p>");
    if (state) {
        QString collectives;
        for (const auto& c : state->evaluation.collectives) {
            if (c.op != id)
                continue;
            collectives += QStringLiteral("%1 over %2: %3, %4<br>")
                               .arg(html(cost::toString(c.kind)), axesText(problem.mesh(), c.axes),
                                    bytesText(c.bytes), timeText(c.time));
        }
        if (!collectives.isEmpty())
            text += QStringLiteral("<p><b>%1</b><br>%2</p>").arg(tr("Collectives it causes"), collectives);
    }
    QString conflicts;
    for (const auto& conflict : problem.space().conflicts)
        for (const auto& site : conflict.sites)
            if (site.op == id)
                conflicts += QStringLiteral("%1: %2<br>")
                                 .arg(conflictKind(conflict.kind), swatch(problem, conflict.name));
    if (!conflicts.isEmpty())
        text += QStringLiteral("<p><b>%1</b><br>%2</p>").arg(tr("Conflict site of"), conflicts);
    return text;
}

QString describeName(const ProblemView& problem, const PlanState* state, analysis::NameId name) {
    const auto& space = problem.space();
    if (name.index >= space.names.size())
        return {};
    const analysis::Name& n = space.name(name);
    const QLocale locale;
    QString text = heading(swatch(problem, name), tr("a name: tensor dimensions that are sharded as one") +
                                                      glossaryLink(QStringLiteral("name")));
    text += QStringLiteral("<table>");
    text += row(tr("Size"), locale.toString(static_cast<qlonglong>(n.size)));
    if (n.group.valid())
        text += row(tr("Group"),
                    tr("%1 (%2)").arg(html(space.group(n.group).label),
                                      countOf(static_cast<long long>(space.group(n.group).names.size()),
                                              tr("name"), tr("names"))));
    text += row(tr("Tensors"), locale.toString(static_cast<qulonglong>(n.tensors)));
    text += row(tr("Bytes"), bytesText(n.bytes));
    text += row(tr("FLOPs"), toQString(report::formatFlops(n.flops)));
    text += row(tr("Sharded on"), decidedAxes(problem, state, name));
    text += QStringLiteral("</table>");
    for (const auto& conflict : space.conflicts) {
        if (conflict.name != name)
            continue;
        text += QStringLiteral("<p><b>%1</b>, %2<br>")
                    .arg(conflictKind(conflict.kind),
                         countOf(static_cast<long long>(conflict.sites.size()), tr("place"), tr("places")));
        for (const auto& option : conflict.options)
            text += QStringLiteral("• %1<br>").arg(html(option));
        text += QStringLiteral("</p>");
    }
    return text;
}

QString describeGroup(const ProblemView& problem, const PlanState* state, analysis::GroupId group) {
    const auto& space = problem.space();
    if (group.index >= space.groups.size())
        return {};
    const analysis::Group& g = space.group(group);
    const QString subtitle = g.names.size() == 1
                                 ? tr("a group of one name: decided as one")
                                 : tr("a group: the same dimension in %1, decided together")
                                       .arg(countOf(static_cast<long long>(g.names.size()),
                                                    tr("repeated layer"), tr("repeated layers")));
    QString text = heading(html(g.label), subtitle + glossaryLink(QStringLiteral("group")));
    text += QStringLiteral("<table>");
    text += row(tr("Bytes"), bytesText(g.bytes));
    text += row(tr("FLOPs"), toQString(report::formatFlops(g.flops)));
    if (!g.names.empty())
        text += row(tr("Sharded on"), decidedAxes(problem, state, g.names.front()));
    text += QStringLiteral("</table><p>");
    for (const auto name : g.names)
        text += swatch(problem, name) + QStringLiteral("<br>");
    return text + QStringLiteral("</p>");
}

QString describeArgument(const ProblemView& problem, const PlanState* state, std::size_t argumentIndex) {
    const auto& graph = problem.graph();
    if (argumentIndex >= graph.arguments.size())
        return {};
    const ir::Argument& argument = graph.arguments[argumentIndex];
    QString text =
        heading(html(argument.name.empty() ? "%arg" + std::to_string(argumentIndex) : argument.name),
                html(ir::toString(argument.role)));
    text += QStringLiteral("<p>%1</p>").arg(valueLine(problem, state, argument.value));
    if (state && argument.value.index < state->shardings.size()) {
        const double devices = static_cast<double>(std::max<std::int64_t>(
            1, plan::devicesOf(problem.mesh(), state->shardings[argument.value.index].mask())));
        text +=
            QStringLiteral("<p>%1</p>")
                .arg(tr("%1 per device of %2")
                         .arg(bytesText(static_cast<double>(graph.type(argument.value).bytes()) / devices),
                              bytesText(static_cast<double>(graph.type(argument.value).bytes()))));
    }
    return text;
}

QString describeModule(const ProblemView& problem, const PlanState* state, int module) {
    if (module < 0 || static_cast<std::size_t>(module) >= problem.modules.modules.size())
        return {};
    const Module& m = problem.modules.modules[static_cast<std::size_t>(module)];
    QString text = heading(m.label.toHtmlEscaped(), m.path.toHtmlEscaped());
    text += QStringLiteral("<table>");
    text += row(tr("Ops"), QString::number(m.opCount));
    if (state) {
        // Compute time of every op beneath the module.
        double seconds = 0;
        std::vector<int> stack{module};
        while (!stack.empty()) {
            const Module& current = problem.modules.modules[static_cast<std::size_t>(stack.back())];
            stack.pop_back();
            for (const auto op : current.ops)
                if (op < state->evaluation.opComputeTime.size())
                    seconds += state->evaluation.opComputeTime[op];
            stack.insert(stack.end(), current.children.begin(), current.children.end());
        }
        text += row(tr("Compute"), timeText(seconds));
    }
    return text + QStringLiteral("</table>");
}

}  // namespace shardscope::ui
