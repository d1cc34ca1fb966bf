// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Problems as the UI tests need them: built at once (for models and views), or through the ProblemLoader (as
// the window gets them).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "core/plan_state.h"
#include "core/problem_loader.h"
#include "core/problem_view.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/plan/experts.h"
#include "test_paths.h"

namespace shardscope::ui::fixtures {

using ViewPtr = std::shared_ptr<const ProblemView>;

// `problem` as a ProblemView with its module tree, named `name`.
inline ViewPtr viewOf(std::unique_ptr<Problem> problem, const QString& name) {
    auto view = std::make_shared<ProblemView>();
    view->problem = std::shared_ptr<const Problem>(std::move(problem));
    view->modules = buildModuleTree(view->graph(), view->space());
    view->displayName = name;
    return view;
}

// `plan` on `view` as the plan editor states it: evaluated, with every value's sharding.
inline std::shared_ptr<const PlanState> stateOf(const ProblemView& view, plan::Plan plan,
                                                std::uint64_t revision = 1) {
    auto state = std::make_shared<PlanState>();
    state->revision = revision;
    state->plan = std::move(plan);
    state->evaluation = cost::evaluate(*view.problem->costModel, state->plan);
    const plan::AppliedPlan applied =
        plan::applyPlan(view.problem->costModel->planContext(), view.mesh(), state->plan);
    for (std::size_t v = 0; v < view.graph().values.size(); ++v)
        state->shardings.push_back(
            applied.sharding(view.space(), ir::ValueId(static_cast<std::uint32_t>(v))));
    return state;
}

// The state of expert plan `expert` on `view`; an expert that does not apply ends the test program.
inline std::shared_ptr<const PlanState> expertState(const ProblemView& view, const char* expert) {
    auto plan = plan::expertPlan(expert, view.problem->costModel->planContext(), view.mesh());
    if (!plan)
        qFatal("no %s plan: %s", expert, plan.errorMessage().c_str());
    return stateOf(view, *plan);
}

// The problem of `spec`, built on the calling thread; a load error ends the test program.
inline ViewPtr loadView(const ProblemSpec& spec) {
    auto problem = loadProblem(spec);
    if (!problem)
        qFatal("cannot load %s: %s", spec.model.c_str(), problem.errorMessage().c_str());
    return viewOf(std::move(problem).value(), QString::fromStdString(spec.model));
}

// `model` on the explorer's default mesh data=2,model=4, its forward pass or (`train`) its training step,
// built on the calling thread.
inline ViewPtr loadOnDefaultMesh(const std::string& model, bool train = false) {
    ProblemSpec spec;
    spec.model = model;
    spec.mesh = "data=2,model=4";
    spec.train = train;
    return loadView(spec);
}

// The path of `relative` inside ../shared (which may be absent: `shared` tests skip then).
inline QString sharedPath(const char* relative) {
    return QDir(shardscope::testing::sharedDir()).filePath(QString::fromLatin1(relative));
}

// Saves a picture of `widget` as `name` in the folder $SHARDSCOPE_GRAPH_SNAPSHOTS names, when it is set (to
// look at, or for the documentation).
template <typename Widget>
void saveSnapshot(Widget& widget, const QString& name) {
    const QString dir = qEnvironmentVariable("SHARDSCOPE_GRAPH_SNAPSHOTS");
    if (!dir.isEmpty())
        widget.grab().save(QDir(dir).filePath(name));
}

// `request` loaded by a ProblemLoader (off the UI thread, as the window loads); nullptr, with the loader's
// message as a warning, when it fails.
inline ViewPtr loadThroughLoader(const ProblemRequest& request, int timeoutMs = 60'000) {
    ProblemLoader loader;
    QSignalSpy loaded(&loader, &ProblemLoader::loaded);
    QSignalSpy failed(&loader, &ProblemLoader::failed);
    loader.load(request);
    if (!QTest::qWaitFor([&] { return !loaded.isEmpty() || !failed.isEmpty(); }, timeoutMs))
        qFatal("timed out loading");
    if (!failed.isEmpty()) {
        qWarning("%s", qUtf8Printable(failed.first().first().toString()));
        return nullptr;
    }
    return loaded.first().first().value<ViewPtr>();
}

// Two dot products of one input, so a training step's loss leaves an output out: two warnings of the load.
inline QString writeTwoHeads(const QTemporaryDir& dir) {
    const QString path = dir.filePath(QStringLiteral("two_heads.mlir"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(
        R"(func.func @main(%arg0: tensor<4x8xf32> {jax.arg_info = "x"}, %arg1: tensor<8x8xf32> {jax.arg_info = "w_logits"},
                %arg2: tensor<8x3xf32> {jax.arg_info = "w_aux"}) -> (tensor<4x8xf32> {jax.result_info = "logits"}, tensor<4x3xf32> {jax.result_info = "aux"}) {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x3xf32>
}
)");
    return path;
}

}  // namespace shardscope::ui::fixtures
