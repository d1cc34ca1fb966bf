// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Pipelines and microbatches in the plan search (docs/design.md, "Search"): the actions offered are legal, a
// pipelined plan is found where it is the best, the exhaustive and the tree search agree with pipeline
// choices, a pinned pipeline is kept, and the transposition cache tells pipelines apart.
#include <QtTest>

#include "test_support.h"

#include "problem_support.h"

#include "shardscope/cost/cost_model.h"
#include "shardscope/plan/experts.h"
#include "shardscope/search/search.h"
#include "shardscope/session/problem.h"

using namespace shardscope;
using namespace shardscope::search;

namespace {

std::unique_ptr<Problem> problemOf(const std::string& model, const std::string& mesh) {
    return testing::trainingProblem(model, mesh);
}

const char* kSmall = "zoo:gpt:layers=4,d_model=256,heads=4,seq=128,batch=16,vocab=1024";
// 13 B parameters of Adam states do not fit on two H100s; a pipe axis of 4 nodes over a slow link (2 GB/s)
// holds them best as pipeline stages: sharding them over it moves the weights or their gradients every step.
const char* kDeep = "zoo:gpt:layers=16,d_model=8192,heads=64,seq=1024,batch=32,vocab=8192";
const char* kDeepMesh = "pipe=4:bw=2e9,model=2";

}  // namespace

class TestSearchPipeline : public QObject {
    Q_OBJECT
private slots:
    // Every pipeline and microbatch action passes plan::pipelineProblem and evaluates without a problem (the
    // batch divides into the microbatches), before and after a batch decision; a pipeline's microbatches
    // are chosen right after it; the space stays small.
    void stagingActionsAreLegal() {
        const auto problem = problemOf(kSmall, "data=2,pipe=2");
        const auto& model = *problem->costModel;
        const ActionSpace space(model);
        plan::Plan batchOnData;
        for (std::size_t g = 0; g < model.space().groups.size(); ++g)
            if (model.space().groups[g].label == "batch")
                batchOnData.decisions.push_back(
                    {plan::Decision::Target::Group, static_cast<std::uint32_t>(g), 0});
        QCOMPARE(batchOnData.decisions.size(), std::size_t{1});
        QCOMPARE(space.localBatch(batchOnData), std::int64_t{8});
        for (const plan::Plan& base : {plan::Plan{}, batchOnData}) {
            const auto actions = space.stagingActions(base);
            QVERIFY(actions.size() <= 24);
            int pipelines = 0, accumulations = 0;
            for (const auto& action : actions) {
                const plan::Plan next = withAction(base, action);
                std::vector<plan::Plan> plans;
                if (action.kind == Action::Kind::Pipeline) {
                    ++pipelines;
                    QVERIFY(space.describe(action).rfind("pipeline ", 0) == 0);
                    const auto counts = space.pendingMicrobatches(next);
                    QVERIFY(!counts.empty() && counts.size() <= 4);
                    for (const auto& m : counts)
                        plans.push_back(withAction(next, m));
                } else {
                    QCOMPARE(action.kind, Action::Kind::Microbatches);
                    ++accumulations;
                    plans.push_back(next);
                }
                for (const auto& p : plans) {
                    QVERIFY2(!plan::pipelineProblem(model.planContext(), model.mesh(), p),
                             space.describe(action).c_str());
                    QVERIFY(space.stagingActions(p).empty());  // set once on a path
                    const auto e = cost::evaluate(model, p);
                    QVERIFY(e.pipeline);
                    QVERIFY2(e.pipeline->problem.empty(), e.pipeline->problem.c_str());
                    // A later batch decision keeps the microbatches dividing the batch.
                    for (auto i : space.legal(p)) {
                        plan::Plan more = p;
                        more.decisions.push_back(space.candidates()[i].decision);
                        if (more.decisions.back() == batchOnData.decisions.front()) {
                            const auto later = cost::evaluate(model, more);
                            QVERIFY2(later.pipeline->problem.empty(), later.pipeline->problem.c_str());
                        }
                    }
                }
            }
            QVERIFY(pipelines > 0);
            QVERIFY(accumulations > 0);
        }
        // Without a pipeline role for the search: gradient accumulation only, or nothing.
        const ActionSpace accumulation(model, 16, 0.005, Staging::Microbatches);
        for (const auto& action : accumulation.stagingActions(plan::Plan{}))
            QCOMPARE(action.kind, Action::Kind::Microbatches);
        QVERIFY(ActionSpace(model, 16, 0.005, Staging::None).stagingActions(plan::Plan{}).empty());
    }

    // Two plans with the same shardings but different pipelines or microbatches are different states:
    // with no decision to take, the exhaustive search visits every remat policy times every staging
    // choice (a cache keyed by the shardings alone would see 4 states).
    void theCacheTellsPipelinesApart() {
        const auto problem = problemOf(kSmall, "data=2,pipe=2");
        const auto& model = *problem->costModel;
        const ActionSpace space(model);
        std::size_t choices = 1;  // none
        for (const auto& action : space.stagingActions(plan::Plan{}))
            choices += action.kind == Action::Kind::Pipeline
                           ? space.pendingMicrobatches(withAction(plan::Plan{}, action)).size()
                           : 1;
        QVERIFY(choices > 4);
        const auto states = exhaustiveSearch(model, plan::Plan{}, 0);
        QVERIFY2(states, states.errorMessage().c_str());
        QCOMPARE(states->states, 4 * choices);
        const auto none = exhaustiveSearch(model, plan::Plan{}, 0, 200000, 16, Staging::None);
        QVERIFY(none);
        QCOMPARE(none->states, std::size_t{4});
    }

    // On a small case with pipeline choices the tree search reaches the exhaustive optimum.
    void exhaustiveAndTreeAgree() {
        const auto problem = problemOf(kSmall, "pipe=2:bw=1e9,data=2");
        const auto& model = *problem->costModel;
        auto exhaustive = exhaustiveSearch(model, plan::Plan{}, 1);
        QVERIFY2(exhaustive, exhaustive.errorMessage().c_str());
        SearchOptions options;
        options.maxDecisions = 1;
        options.seedWithExperts = false;
        options.budget.iterations = 3000;
        Search search(model, plan::Plan{}, options);
        const Found f = search.run();
        qInfo(
            "exhaustive: %zu states, best %.3f us (pipeline %d, %d microbatches); tree %.3f us (pipeline %d, "
            "%d "
            "microbatches)",
            exhaustive->states, exhaustive->best.evaluation.stepTime * 1e6,
            exhaustive->best.plan.pipeline.has_value(), exhaustive->best.plan.microbatches,
            f.evaluation.stepTime * 1e6, f.plan.pipeline.has_value(), f.plan.microbatches);
        QVERIFY(exhaustive->states > 100);
        QVERIFY(exhaustive->best.evaluation.feasible && f.evaluation.feasible);
        QVERIFY(f.reward <= exhaustive->best.reward + 1e-12);
        QVERIFY(f.evaluation.stepTime <= exhaustive->best.evaluation.stepTime * 1.01);
    }

    // Refinement alone (a tree that cannot grow, rollouts that stop at once, no expert seeds) reaches a
    // pipelined plan where one is best: its moves set the pipeline and microbatches too (the tree walk alone
    // evaluates only the empty plan here).
    void refinementSetsTheStaging() {
        const auto problem = problemOf(kDeep, kDeepMesh);
        const auto& model = *problem->costModel;
        SearchOptions options;
        options.seedWithExperts = false;
        options.budget.iterations = 200;
        options.maxTreeNodes = 1;
        options.stopProbability = 1;
        options.refineProbability = 1;
        Search search(model, plan::Plan{}, options);
        const Found f = search.run();
        qInfo("refined %.3f ms (pipeline %d, %d microbatches, %zu decisions)", f.evaluation.stepTime * 1e3,
              f.plan.pipeline.has_value(), f.plan.microbatches, f.plan.decisions.size());
        QVERIFY(f.evaluation.feasible);
        QVERIFY2(f.plan.pipeline.has_value(), "the best plan has a pipeline");
    }

    // Where the parameters fit only in stages over a slow axis, the tree search (without expert seeds)
    // finds a pipelined plan, faster than any plan it finds without pipelines and than every expert.
    void findsAPipelineWhereItIsBest() {
        const auto problem = problemOf(kDeep, kDeepMesh);
        const auto& model = *problem->costModel;
        SearchOptions options;
        options.budget.iterations = 400;
        options.seedWithExperts = false;
        Search search(model, plan::Plan{}, options);
        const Found pipelined = search.run();
        QVERIFY(pipelined.evaluation.feasible);
        QVERIFY2(pipelined.plan.pipeline.has_value(), "the best plan has a pipeline");
        SearchOptions flat = options;
        flat.staging = Staging::Microbatches;
        flat.seedWithExperts = true;
        Search without(model, plan::Plan{}, flat);
        const Found other = without.run();
        QVERIFY(!other.plan.pipeline);
        qInfo("with pipelines %.3f ms (%s), without %.3f ms (feasible %d)",
              pipelined.evaluation.stepTime * 1e3, pipelined.origin.c_str(), other.evaluation.stepTime * 1e3,
              other.evaluation.feasible);
        QVERIFY(pipelined.reward > other.reward);
    }

    // A pinned pipeline is the user's: every plan keeps it and its microbatches, the tree offers no
    // pipeline or microbatch action, forbidden decisions stay out, and the expert seeds keep it too.
    void aPinnedPipelineIsKept() {
        const auto problem = problemOf(kSmall, "data=2,pipe=2");
        const auto& model = *problem->costModel;
        plan::Plan start;
        plan::Pipeline pipeline;
        pipeline.axis = 1;
        pipeline.stages = 2;
        pipeline.schedule = plan::PipelineSchedule::GPipe;
        start.pipeline = pipeline;
        start.microbatches = 2;
        const ActionSpace space(model);
        plan::Decision forbidden;
        for (auto i : space.legal(start))
            if (space.candidates()[i].decision.axis == 0) {
                forbidden = space.candidates()[i].decision;
                break;
            }
        start.forbidden = {forbidden};
        SearchOptions options;
        options.budget.iterations = 300;
        struct Recorder : SearchObserver {
            std::vector<Found> found;
            void newBest(const Found& f) override { found.push_back(f); }
        } recorder;
        Search search(model, start, options);
        search.run(&recorder);
        QVERIFY(!recorder.found.empty());
        for (const auto& f : recorder.found) {
            QCOMPARE(f.plan.pipeline, start.pipeline);
            QCOMPARE(f.plan.microbatches, 2);
            for (const auto& d : f.plan.decisions)
                QVERIFY(!(d.target == forbidden.target && d.index == forbidden.index &&
                          d.axis == forbidden.axis));
        }
        for (const auto& node : search.changedNodes()) {
            QVERIFY2(node.action.rfind("pipeline ", 0) != 0, node.action.c_str());
            QVERIFY2(node.action.rfind("microbatches ", 0) != 0, node.action.c_str());
        }
        auto exhaustive = exhaustiveSearch(model, start, 1);
        QVERIFY(exhaustive);
        QCOMPARE(exhaustive->best.plan.pipeline, start.pipeline);
        QCOMPARE(exhaustive->best.plan.microbatches, 2);
    }

    // The expert seeds include the pipeline experts when the mesh has a pipe axis (their paths enter the
    // tree: pipeline, then microbatches), and are skipped without one.
    void expertSeedsIncludePipelines() {
        const auto problem = problemOf(kSmall, "data=2,pipe=2");
        SearchOptions options;
        options.budget.iterations = 1;
        Search search(*problem->costModel, plan::Plan{}, options);
        search.run();
        const auto nodes = search.changedNodes();
        QVERIFY(std::any_of(nodes.begin(), nodes.end(),
                            [](const TreeNode& n) { return n.action == "pipeline pipe: 2 stages, 1f1b"; }));
        const auto flat = problemOf(kSmall, "data=2,model=2");
        QVERIFY(!plan::expertPlan("ptd-p", flat->costModel->planContext(), flat->mesh));
        Search other(*flat->costModel, plan::Plan{}, options);
        QVERIFY(other.run().evaluation.stepTime > 0);
    }
};

QTEST_GUILESS_MAIN(TestSearchPipeline)
#include "tst_search_pipeline.moc"
