// The simulated step as a Chrome/Perfetto trace (DESIGN.md §8 (f)): what one device does, since every device runs
// the same SPMD program.
#pragma once

#include <string>

#include "shardscope/cost/cost_model.h"
#include "shardscope/plan/plan.h"

namespace shardscope::exporting {

// Chrome's trace-event JSON ({"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}), which
// chrome://tracing and ui.perfetto.dev open. One process ("device", pid 0) with one thread for compute (tid 0)
// and one per device group that collectives run on (tid 1, 2, ...: "collectives over data", "... over
// data+model"), named by metadata events. Every top-level op is a complete event ("ph": "X", times in µs) on the
// compute thread, in program order, back to back; each collective is one on its group's thread, starting where
// its op needs it (before the op when it moves an operand, after it when it reduces a result). The part of a
// collective not hidden behind compute (1 − overlap) delays the ops after it, so the trace ends at the
// evaluation's step time. Events carry their op's index, label and location, and collectives their bytes.
std::string chromeTrace(const cost::CostModel& model, const cost::Evaluation& evaluation);

}  // namespace shardscope::exporting
