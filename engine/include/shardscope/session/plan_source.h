// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Plans as the user names them and edits them: the one reading of a --plan argument (and of the explorer's
// "start from"), decisions named by label, and the edits that keep a plan's pins first. The CLI and the
// explorer call these, so a plan opens, warns and edits alike in both.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shardscope/cost/cost_model.h"
#include "shardscope/diagnostic.h"
#include "shardscope/plan/plan.h"
#include "shardscope/plan/plan_json.h"

namespace shardscope::session {

// What a plan source may be, for messages: "none, expert:ID, reference or a plan .json file".
inline constexpr std::string_view kPlanSources = "none, expert:ID, reference or a plan .json file";

// The plan `source` names on `model`'s problem:
// - "none": the replicated plan (no decisions);
// - "expert:ID" or "expert:ID+POLICY": an expert plan (plan::expertPlan);
// - "reference": the shardings the model carries (plan::referencePlan), with a warning per sharding it cannot
//   express;
// - anything else: a plan JSON file (bounded; a FIFO or a device is refused), read with `missingAxes`.
// Warnings: every decision the mesh cannot divide (plan::checkDivisibility, naming `source`), axes dropped.
// Errors: an unknown expert or one that does not apply, a file that cannot be read (session.plan-file, saying
// what a source may be), the plan file's errors (naming the file, the entry and the label).
Result<plan::Plan> planFromSource(std::string_view source, const cost::CostModel& model,
                                  plan::MissingAxes missingAxes = plan::MissingAxes::Fail);

// "LABEL=AXIS" as a decision on the group labelled LABEL, else the name labelled LABEL (labels as `analyze`
// prints them). `what` names the argument in errors ("--pin"). Errors (session.decision): no '=', an unknown
// axis (listing the mesh's), an unknown label.
Result<plan::Decision> decisionFromLabel(std::string_view text, const analysis::DecisionSpace& space,
                                         const mesh::Mesh& mesh, std::string_view what);

// Edits. Each returns the edited plan and leaves `plan` as it was.
// `decision` pinned: it joins the end of the pins (the search keeps them) and leaves the forbidden list and
// any other place in the plan.
plan::Plan withPin(const plan::Plan& plan, const plan::Decision& decision);
// `decision` forbidden (the search never adds it) and removed from the decisions.
plan::Plan withForbidden(const plan::Plan& plan, const plan::Decision& decision);
// `replacement` with `current`'s pins first and its forbidden decisions kept (a pin or a forbidden decision
// wins over the same decision in `replacement`).
plan::Plan keepingPins(const plan::Plan& current, plan::Plan replacement);
// A plan of pins and forbidden decisions, as a search starts from: `pins` pinned, `forbidden` forbidden.
plan::Plan pinsPlan(std::vector<plan::Decision> pins, std::vector<plan::Decision> forbidden);

}  // namespace shardscope::session
