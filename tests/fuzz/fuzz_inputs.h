// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// What each fuzz target does with one input, shared by the libFuzzer targets (fuzz_*.cpp) and by
// tst_fuzz_regressions, which replays every input that once broke a target (tests/fuzz/regressions/).
//
// Each function accepts any bytes. Contract: it returns normally, or it aborts when the engine breaks a
// promise its headers make (an imported graph the verifier rejects, a plan that does not round-trip through
// JSON). A crash, a hang or a sanitizer report is a bug in the engine.
#pragma once

#include <string_view>

namespace shardscope::fuzz {

// import::stableHloFunctions and import::importStableHlo; an imported graph is verified and analysed.
void stableHloText(std::string_view text);
// import::importOnnx on the bytes in memory; an imported graph is verified and analysed.
void onnxModel(std::string_view bytes);
// plan::parsePlan against zoo:demo's training step on the mesh data=4,model=2 (built once); a parsed plan is
// round-tripped through plan::toJson and evaluated.
void planJson(std::string_view json);
// The bytes as a workspace file (in a temporary directory of the process): store::Workspace::open, then what
// the explorer reads of it (sessions, plans, the top of the search tree, the last session's problem and the
// evaluation of its plans).
void workspaceFile(std::string_view bytes);

// The JSON the CLI's --json commands print: its own writer (app/cli/output.cpp, cli::jsonText) and the
// engine's (report::modelInfoJson, analysisJson, evaluationJson, problemSpecJson, session::modelRecord's load
// options), fed names, labels and paths cut from the input at line ends (any bytes: not UTF-8, NULs). Each
// text must parse back as JSON; the load options must read back through recordedModelSpec.
void cliJson(std::string_view bytes);
// Workspace fields the store keeps as the caller's JSON text: the input up to its first NUL is a session's
// settings, the rest the model's load options, read as `compare`, the explorer and `search W.shardscope` read
// them (loadSessionProblem, recordedModelSpec) against a workspace of zoo:demo; a problem they describe is
// loaded.
void workspaceFields(std::string_view bytes);

}  // namespace shardscope::fuzz
