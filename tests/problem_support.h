// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Problems and expert plans for the engine tests: a spec that does not load, or an expert that does not
// build, ends the test program with the engine's message.
#pragma once

#include <QtTest>
#include <algorithm>
#include <memory>
#include <string>

#include "shardscope/plan/experts.h"
#include "shardscope/session/problem.h"
#include "shardscope/zoo/zoo.h"

namespace shardscope::testing {

inline std::unique_ptr<Problem> loadedProblem(const ProblemSpec& spec) {
    auto problem = loadProblem(spec);
    if (!problem)
        qFatal("%s", problem.errorMessage().c_str());
    return std::move(problem).value();
}

// The training step of `model` on `mesh` (H100s).
inline std::unique_ptr<Problem> trainingProblem(const std::string& model, const std::string& mesh,
                                                bool mixedPrecision = true) {
    ProblemSpec spec;
    spec.model = model;
    spec.mesh = mesh;
    spec.train = true;
    spec.mixedPrecision = mixedPrecision;
    return loadedProblem(spec);
}

// Whether a zoo family takes option `key` ("layers", "dtype").
inline bool hasOption(const zoo::Family& family, const std::string& key) {
    return std::any_of(family.options.begin(), family.options.end(),
                       [&](const zoo::OptionSpec& o) { return o.key == key; });
}

inline plan::Plan expertOf(const Problem& problem, const std::string& id) {
    auto plan = plan::expertPlan(id, problem.costModel->planContext(), problem.mesh);
    if (!plan)
        qFatal("%s", plan.errorMessage().c_str());
    return std::move(plan).value();
}

}  // namespace shardscope::testing
