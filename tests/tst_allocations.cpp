// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The evaluator's hot path allocates nothing once its buffers have grown (docs/benchmarks.md
// "Allocations"): an evaluator cycling through the expert plans, each with and without remat, settles into
// passes that call operator new not once: priced per op, with op classes, and from layer classes. The calls
// are counted by the operator new of shardscope_allocation_count (app/bench/allocation_count.h).
#include <QtTest>
#include <string>
#include <vector>

#include "allocation_count.h"
#include "problem_support.h"
#include "shardscope/cost/cost_model.h"

using namespace shardscope;

class TstAllocations : public QObject {
    Q_OBJECT

    // The expert plans of `problem` without microbatches or a pipeline, each as built and with full remat of
    // the first family.
    static std::vector<plan::Plan> plans(const Problem& problem) {
        std::vector<plan::Plan> out;
        const auto& families = problem.costModel->planContext().blocks().families;
        for (const auto& expert : plan::expertPlans()) {
            auto plan = plan::expertPlan(expert.id, problem.costModel->planContext(), problem.mesh);
            if (!plan || cost::staged(*plan))
                continue;
            out.push_back(*plan);
            if (!families.empty()) {
                plan->remat = {{families.front(), plan::Remat::Full}};
                out.push_back(*plan);
            }
        }
        return out;
    }

    // Cycles `evaluator` through `plans` until two passes in a row allocate nothing (at most 12 passes).
    static void settles(cost::Evaluator& evaluator, const std::vector<plan::Plan>& plans,
                        bool fromLayerClasses) {
        QVERIFY(plans.size() >= 4);
        std::string passes;
        int quiet = 0;
        for (int pass = 0; pass < 12 && quiet < 2; ++pass) {
            const std::uint64_t before = allocationCount();
            std::size_t priced = 0;
            for (const auto& plan : plans)
                priced += evaluator.evaluate(plan).fromLayerClasses;
            const std::uint64_t made = allocationCount() - before;
            passes += (passes.empty() ? "" : ", ") + std::to_string(made);
            quiet = made == 0 ? quiet + 1 : 0;
            if (fromLayerClasses)
                QVERIFY2(priced > 0, "no plan was priced from layer classes");
        }
        QVERIFY2(quiet == 2, ("allocations per pass: " + passes).c_str());
    }

private slots:
    void perOpAndOpClasses() {
        const auto problem = testing::trainingProblem("zoo:gpt2-small", "data=4,model=2");
        for (const bool shareOpClasses : {false, true}) {
            cost::Evaluator evaluator(*problem->costModel,
                                      cost::EvaluatorOptions{.shareOpClasses = shareOpClasses});
            settles(evaluator, plans(*problem), false);
        }
    }
    void layerClasses() {
        const auto problem = testing::trainingProblem("zoo:gpt:layers=24,batch=16", "data=4,model=2");
        QVERIFY(problem->costModel->shallowCopies());
        cost::Evaluator evaluator(
            *problem->costModel,
            cost::EvaluatorOptions{.layerClasses = cost::EvaluatorOptions::LayerClasses::Always});
        settles(evaluator, plans(*problem), true);
    }
};

QTEST_GUILESS_MAIN(TstAllocations)
#include "tst_allocations.moc"
