// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/session/plan_source.h"

#include <algorithm>

#include "shardscope/input_file.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/reference_plan.h"

namespace shardscope::session {

namespace {

// Removes every copy of `decision` from the plan's decisions, keeping `pinned` counting the pins left.
void removeEverywhere(plan::Plan& plan, const plan::Decision& decision) {
    for (std::size_t i = plan.decisions.size(); i-- > 0;) {
        if (!(plan.decisions[i] == decision))
            continue;
        plan.decisions.erase(plan.decisions.begin() + static_cast<std::ptrdiff_t>(i));
        if (i < plan.pinned)
            --plan.pinned;
    }
}

void addDivisibilityWarnings(Result<plan::Plan>& plan, const cost::CostModel& model,
                             std::string_view source) {
    if (!plan)
        return;
    for (auto& warning : plan::checkDivisibility(*plan, model.planContext(), model.mesh(), source))
        plan.addDiagnostic(std::move(warning));
}

}  // namespace

Result<plan::Plan> planFromSource(std::string_view source, const cost::CostModel& model,
                                  plan::MissingAxes missingAxes) {
    if (source == "none") {
        plan::Plan empty;
        empty.label = "replicated";
        return empty;
    }
    if (source.rfind("expert:", 0) == 0) {
        auto expert = plan::expertPlan(std::string(source.substr(7)), model.planContext(), model.mesh());
        addDivisibilityWarnings(expert, model, source);
        return expert;
    }
    if (source == "reference") {
        auto reference = plan::referencePlan(model.graph(), model.space(), model.mesh());
        addDivisibilityWarnings(reference, model, source);
        return reference;
    }
    const std::string path(source);
    auto text = readInputFile(path, "plan file", kMaxJsonFileBytes);
    if (!text) {
        const Diagnostic& why = text.diagnostics().front();
        if (why.code == "input.open")
            return makeError("session.plan-file", "cannot read plan file '" + path + "' (a plan is " +
                                                      std::string(kPlanSources) + ")");
        return why;
    }
    // parsePlan says what the mesh cannot divide itself.
    return plan::parsePlan(*text, model.planContext(), model.mesh(), path, missingAxes);
}

Result<plan::Decision> decisionFromLabel(std::string_view text, const analysis::DecisionSpace& space,
                                         const mesh::Mesh& mesh, std::string_view what) {
    const std::string flag(what), argument(text);
    const auto eq = text.rfind('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size())
        return makeError(
            "session.decision",
            flag + " expects LABEL=AXIS (a group or name label from analyze), got '" + argument + "'");
    const std::string label(text.substr(0, eq)), axisName(text.substr(eq + 1));
    const auto axis = mesh.axisIndex(axisName);
    if (!axis)
        return makeError("session.decision", flag + " " + argument + ": the mesh has no axis '" + axisName +
                                                 "' (it has " + mesh.toString() + ")");
    if (const auto group = space.groupLabelled(label))
        return plan::Decision{plan::Decision::Target::Group, group->index, *axis};
    if (const auto name = space.nameLabelled(label))
        return plan::Decision{plan::Decision::Target::Name, name->index, *axis};
    return makeError("session.decision", flag + " " + argument + ": no group or name '" + label +
                                             "' (run `shardscope-cli analyze` for the labels)");
}

plan::Plan withPin(const plan::Plan& plan, const plan::Decision& decision) {
    plan::Plan after = plan;
    removeEverywhere(after, decision);
    std::erase(after.forbidden, decision);
    after.decisions.insert(after.decisions.begin() + static_cast<std::ptrdiff_t>(after.pinned), decision);
    ++after.pinned;
    return after;
}

plan::Plan withForbidden(const plan::Plan& plan, const plan::Decision& decision) {
    plan::Plan after = plan;
    removeEverywhere(after, decision);
    if (std::find(after.forbidden.begin(), after.forbidden.end(), decision) == after.forbidden.end())
        after.forbidden.push_back(decision);
    return after;
}

plan::Plan keepingPins(const plan::Plan& current, plan::Plan replacement) {
    const std::vector<plan::Decision> pins(
        current.decisions.begin(), current.decisions.begin() + static_cast<std::ptrdiff_t>(current.pinned));
    for (const auto& pin : pins)
        removeEverywhere(replacement, pin);
    replacement.decisions.insert(replacement.decisions.begin(), pins.begin(), pins.end());
    replacement.pinned += pins.size();
    for (const auto& f : current.forbidden) {
        removeEverywhere(replacement, f);
        if (std::find(replacement.forbidden.begin(), replacement.forbidden.end(), f) ==
            replacement.forbidden.end())
            replacement.forbidden.push_back(f);
    }
    return replacement;
}

plan::Plan pinsPlan(std::vector<plan::Decision> pins, std::vector<plan::Decision> forbidden) {
    plan::Plan start;
    start.label = "pins";
    start.pinned = pins.size();
    start.decisions = std::move(pins);
    start.forbidden = std::move(forbidden);
    return start;
}

}  // namespace shardscope::session
