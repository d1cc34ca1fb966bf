// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A planning problem: a model (its forward graph or training step), its static analysis, and a cost model on
// a mesh of some hardware. Built once from a ProblemSpec; the CLI's evaluate and search, the workspace and
// the GUI all start from here.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "shardscope/analysis/decision_space.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/diagnostic.h"
#include "shardscope/mesh/hardware.h"
#include "shardscope/mesh/mesh.h"
#include "shardscope/session/model_source.h"
#include "shardscope/store/workspace.h"
#include "shardscope/train/training_step.h"

namespace shardscope {

struct ProblemSpec {
    std::string model;                               // zoo:NAME[:...] or a file path
    std::map<std::string, std::int64_t> dimensions;  // values of symbolic dimensions (ONNX)
    std::map<std::string, std::int64_t>
        sizes;           // global sizes to plan at ("batch" -> 256, "seq" -> 4096; analysis/resize.h)
    std::string entry;   // StableHLO: the function to import ("": @main, else the only public one)
    bool train = false;  // plan the whole training step
    std::string optimizer = "adam";  // sgd, adam, adamw
    std::string loss = "auto";       // auto, cross-entropy, mean-square, sum
    std::string lossOutput;          // the outputs the loss is taken of: "" the first, a name or index, "all"
    bool mixedPrecision = false;
    std::string mesh = "data=8";    // "data=8,model=4" (with :bw=..:lat=..), or a mesh .json file
    std::string hardware = "h100";  // a built-in id or a profile .json file
    cost::CostOptions cost;
};

class Problem {
public:
    ProblemSpec spec;
    LoadedModel model;  // graph = the training step when spec.train
    analysis::DecisionSpace space;
    mesh::HardwareProfile hardware;
    mesh::Mesh mesh;
    std::unique_ptr<cost::CostModel> costModel;
    std::vector<Diagnostic> warnings;  // of loading the model and building its training step
};

// The training step of `forward` with the spec's optimizer, loss, loss output and precision (named as the CLI
// names them). Errors: an unknown optimizer or loss (listing the known ones), those of
// train::buildTrainingStep (an unknown loss output, listing the outputs). Warnings: a loss of part of the
// outputs.
Result<train::TrainingStep> trainingStepFor(const ir::Graph& forward, const ProblemSpec& spec);

// Whether the cost model can price with `options` (code problem.cost-options, naming the option and its
// range): efficiency 0 (the profile's tables) or in (0, 1]; launch time finite, in [0, 1] s; prefetch 0 to
// 1000; memory reserve a fraction in [0, 1).
Status checkCostOptions(const cost::CostOptions& options);

// Loads the model (from `modelBytes` when given, else from spec.model), builds the training step, analyses it
// and builds the cost model. Errors: options checkCostOptions refuses; those of each stage, with the file or
// op they concern. The warnings of the import and of the training step are in Problem::warnings.
Result<std::unique_ptr<Problem>> loadProblem(const ProblemSpec& spec,
                                             const std::string* modelBytes = nullptr);

// The spec as JSON, self-contained: the mesh and hardware profile are written out in full (not as a file
// path), so a workspace opens on another machine. parseProblemSpec(problemSpecJson(p)) describes the same
// problem.
std::string problemSpecJson(const Problem& problem);
Result<ProblemSpec> parseProblemSpec(std::string_view json, std::string_view origin);

// The spec the model of the workspace at `workspacePath` was recorded with (session::modelRecord's inverse):
// `base` with the model's source and its load options (train, optimizer, loss, loss_output, mixed_precision,
// entry, dimensions, sizes). Errors (code workspace.field) name the file, the table and column and the field:
// load options that are not a JSON object, a field of another type ("'w.shardscope': table model, column
// load_options: 'train' must be true or false, not a string").
Result<ProblemSpec> recordedModelSpec(const store::ModelRecord& model, const std::string& workspacePath,
                                      ProblemSpec base);

// What loadProblem takes as `modelBytes` for a workspace's model: its stored bytes, or nullptr for a zoo
// model (its name rebuilds it). The file a stored source names is never read, whatever it names: a file model
// without stored bytes is an error (workspace.field) naming the workspace file, the table and the source.
Result<const std::string*> recordedModelBytes(const store::ModelRecord& model,
                                              const std::string& workspacePath);

// The problem of a workspace session: the model from the workspace (its embedded bytes, or its zoo name), the
// mesh, hardware and options from the session's settings (`{"problem": problemSpecJson(...), ...}`). Errors
// name the workspace file, the session, the table and column and the field ("'w.shardscope': session 2 (table
// session, column settings): problem: 'train' must be true or false, not a string"), then those of
// loadProblem.
Result<std::unique_ptr<Problem>> loadSessionProblem(const store::Workspace& workspace,
                                                    const store::SessionRecord& session);

}  // namespace shardscope
