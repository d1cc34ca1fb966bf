// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The simulated step as a Chrome/Perfetto trace (docs/export.md (f)): what one device does, since every
// device runs the same SPMD program.
#pragma once

#include <string>

#include "shardscope/cost/cost_model.h"
#include "shardscope/plan/plan.h"

namespace shardscope::exporting {

// Chrome's trace-event JSON ({"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}), which
// chrome://tracing and ui.perfetto.dev open. One process ("device", pid 0) with one thread for compute (tid
// 0) and one per device group that collectives run on (tid 1, 2, ...: "collectives over data", "... over
// data+model"), named by metadata events. Each kernel is a complete event ("ph": "X", times in µs) on the
// compute thread, named by the op that launches it, and each collective one on its group's thread, both at
// the times of the evaluation's simulated schedule (Evaluation::opStart, collectiveStart), so the trace ends
// at the step time. Events carry their op's index, label and location, and collectives their bytes.
// A plan with microbatches or a pipeline (Evaluation::pipeline): process 0 is then one microbatch's program
// on one stage's devices, and process 1 ("pipeline schedule") draws the simulated schedule: per stage device
// (pipeline position d) thread 2d with its tasks on the compute stream, "F mb3 chunk1" and "B mb3 chunk1"
// per microbatch and chunk and "update chunk1" once per step, and thread 2d + 1 with its "gradient sync
// chunk1" tasks; otherData adds microbatches, stages, schedule and bubble_fraction.
std::string chromeTrace(const cost::CostModel& model, const cost::Evaluation& evaluation);

}  // namespace shardscope::exporting
