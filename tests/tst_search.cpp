// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The plan search: MCTS reproducibility, pins, stop and pause from another thread, the expert seeds, and the
// exhaustive optimum as the reference for the search's optimality gap.
#include <QtTest>
#include <thread>

#include "test_support.h"

#include "shardscope/analysis/decision_space.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/mesh/hardware.h"
#include "shardscope/mesh/mesh.h"
#include "shardscope/plan/experts.h"
#include "shardscope/search/search.h"
#include "shardscope/train/training_step.h"
#include "shardscope/zoo/zoo.h"

using namespace shardscope;
using namespace shardscope::search;

namespace {

struct Problem {
    train::TrainingStep step;
    analysis::DecisionSpace space;
    std::unique_ptr<cost::CostModel> model;
    Problem(const std::string& zooName, const std::string& meshSpec, const std::string& hardware = "h100") {
        auto forward = zoo::build(*zoo::parseModelSpec(zooName));
        if (!forward)
            qFatal("%s", forward.errorMessage().c_str());
        auto built = train::buildTrainingStep(*forward);
        if (!built)
            qFatal("%s", built.errorMessage().c_str());
        step = std::move(built).value();
        space = analysis::analyze(step.graph);
        auto hw = mesh::loadHardware(hardware);
        auto m = mesh::makeMesh(meshSpec, *hw);
        if (!m)
            qFatal("%s", m.errorMessage().c_str());
        model = std::make_unique<cost::CostModel>(step.graph, space, *m, *hw);
    }
    plan::Decision decide(const std::string& group, const std::string& axis) const {
        for (std::size_t g = 0; g < space.groups.size(); ++g)
            if (space.groups[g].label == group)
                return {plan::Decision::Target::Group, static_cast<std::uint32_t>(g),
                        *model->mesh().axisIndex(axis)};
        qFatal("no group %s", group.c_str());
        return {};
    }
};

const char* kSmallGpt = "gpt:layers=2,d_model=128,heads=4,seq=64,batch=8,vocab=512,dtype=bf16";
// Activations too large for a 16 GB TPU v5e under zero3 unless some are recomputed.
const char* kTightGpt = "gpt:layers=4,d_model=1024,heads=8,seq=4096,batch=128,vocab=512,dtype=bf16";

const char* kSmallMlp = "mlp:layers=2,d_model=256,d_ff=1024,batch=64,dtype=bf16";

// Options for refinement alone on the small MLP: no pipelines, rollouts that stop at once, every iteration a
// neighbour of the best plan (when a move applies).
SearchOptions refinementOnly(std::int64_t iterations) {
    SearchOptions options;
    options.staging = Staging::None;
    options.maxDecisions = 3;
    options.budget.iterations = iterations;
    options.stopProbability = 1;
    options.refineProbability = 1;
    return options;
}

struct Recorder : SearchObserver {
    std::vector<Found> found;
    std::vector<Progress> reports;
    void newBest(const Found& f) override { found.push_back(f); }
    void progress(const Progress& p) override { reports.push_back(p); }
};

}  // namespace

class TestSearch : public QObject {
    Q_OBJECT
private slots:
    // A fixed seed and an iteration budget give the same tree, the same plans found in the same order and
    // the same counts, bit for bit: on one thread, and with lanes on any number of threads (the lanes price
    // in parallel but take their turns in the tree in order). One lane is the search of one thread.
    void aSeedIsReproducible() {
        Problem p(kSmallGpt, "data=2,model=4");
        SearchOptions options;
        options.seed = 42;
        options.budget.iterations = 300;
        struct Run {
            Found found;
            std::vector<TreeNode> tree;
            Recorder recorder;
        };
        auto runOnce = [&](int threads, int lanes, Run& run) {
            options.threads = threads;
            options.lanes = lanes;
            Search search(*p.model, plan::Plan{}, options);
            run.found = search.run(&run.recorder);
            run.tree = search.changedNodes();
        };
        auto compare = [](const Run& a, const Run& b) {
            QCOMPARE(b.found.plan, a.found.plan);
            QCOMPARE(b.found.reward, a.found.reward);
            QCOMPARE(b.found.iteration, a.found.iteration);
            QCOMPARE(b.tree.size(), a.tree.size());
            for (std::size_t i = 0; i < a.tree.size(); ++i) {
                QCOMPARE(b.tree[i].action, a.tree[i].action);
                QCOMPARE(b.tree[i].visits, a.tree[i].visits);
                QCOMPARE(b.tree[i].valueSum, a.tree[i].valueSum);
            }
            QCOMPARE(b.recorder.found.size(), a.recorder.found.size());
            for (std::size_t i = 0; i < a.recorder.found.size(); ++i) {
                QCOMPARE(b.recorder.found[i].plan, a.recorder.found[i].plan);
                QCOMPARE(b.recorder.found[i].iteration, a.recorder.found[i].iteration);
            }
            const Progress &x = a.recorder.reports.back(), &y = b.recorder.reports.back();
            QCOMPARE(y.iterations, x.iterations);
            QCOMPARE(y.evaluations, x.evaluations);
            QCOMPARE(y.cacheHits, x.cacheHits);
        };
        Run one, again, oneLane, lanes1, lanes2, lanes3;
        runOnce(1, 0, one);
        runOnce(1, 0, again);
        runOnce(2, 1, oneLane);  // a second thread has no lane to price
        runOnce(1, 4, lanes1);
        runOnce(2, 4, lanes2);
        runOnce(3, 4, lanes3);
        QVERIFY(one.tree.size() > 50);
        // A training step's tree holds remat actions too.
        QVERIFY(std::any_of(one.tree.begin(), one.tree.end(),
                            [](const TreeNode& n) { return n.action.rfind("remat layers.*: ", 0) == 0; }));
        compare(one, again);
        compare(one, oneLane);
        compare(lanes1, lanes2);
        compare(lanes1, lanes3);
        QCOMPARE(lanes1.recorder.reports.back().iterations, std::int64_t{300});
        options.seed = 43;
        options.threads = 1;
        options.lanes = 0;
        Search other(*p.model, plan::Plan{}, options);
        other.run();
        const auto treeC = other.changedNodes();
        bool differs = treeC.size() != one.tree.size();
        for (std::size_t i = 0; !differs && i < one.tree.size(); ++i)
            differs = one.tree[i].visits != treeC[i].visits;
        QVERIFY2(differs, "another seed explores differently");
    }

    // The search never returns worse than the best expert plan it was seeded with.
    void searchIsAtLeastTheBestExpert() {
        Problem p(kSmallGpt, "data=2,model=4");
        double bestExpert = 0;
        for (const auto& e : plan::expertPlans()) {
            auto plan = plan::expertPlan(e.id, p.model->planContext(), p.model->mesh());
            if (plan)
                bestExpert =
                    std::max(bestExpert, reward(cost::evaluate(*p.model, *plan), p.model->lowerBoundTime()));
        }
        SearchOptions options;
        options.budget.iterations = 200;
        Recorder recorder;
        Search search(*p.model, plan::Plan{}, options);
        const Found f = search.run(&recorder);
        QVERIFY(f.reward >= bestExpert);
        QVERIFY(!recorder.found.empty());
        for (std::size_t i = 1; i < recorder.found.size(); ++i)
            QVERIFY(recorder.found[i].reward > recorder.found[i - 1].reward);
        QVERIFY(!recorder.reports.empty());
        QCOMPARE(recorder.reports.back().iterations, std::int64_t{200});
    }

    // Pins come first in every plan; forbidden decisions never appear.
    void pinsAreRespected() {
        Problem p(kSmallGpt, "data=2,model=4");
        plan::Plan start;
        start.decisions = {p.decide("batch", "data")};
        start.forbidden = {p.decide("layers.*.mlp.d_ff", "model")};
        SearchOptions options;
        options.budget.iterations = 300;
        Recorder recorder;
        Search search(*p.model, start, options);
        search.run(&recorder);
        QVERIFY(!recorder.found.empty());
        const auto forbidden = start.forbidden.front();
        for (const auto& f : recorder.found) {
            QVERIFY(!f.plan.decisions.empty());
            QCOMPARE(f.plan.decisions.front(), start.decisions.front());
            QCOMPARE(f.plan.pinned, std::size_t{1});
            for (const auto& d : f.plan.decisions)
                QVERIFY(!(d.target == forbidden.target && d.index == forbidden.index &&
                          d.axis == forbidden.axis));
        }
        for (const auto& node : search.changedNodes())
            QVERIFY(node.action.find("layers.*.mlp.d_ff, model") == std::string::npos);
    }

    // Within 1% of the exhaustive optimum on a space small enough to enumerate.
    void nearTheExhaustiveOptimum() {
        Problem p(kSmallMlp, "data=4,model=2");
        // Sharding decisions only (tst_search_pipeline compares the two with pipelines and microbatches).
        auto exhaustive = exhaustiveSearch(*p.model, plan::Plan{}, 3, 200000, 16, Staging::None);
        QVERIFY2(exhaustive, exhaustive.errorMessage().c_str());
        QVERIFY(exhaustive->states > 10);
        SearchOptions options;
        options.staging = Staging::None;
        options.budget.iterations = 1500;
        options.maxDecisions = 3;
        options.threads = 2;
        options.seedWithExperts = false;  // the tree alone must get there
        Search search(*p.model, plan::Plan{}, options);
        const Found f = search.run();
        double bestExpert = 0;
        for (const auto& e : plan::expertPlans()) {
            auto plan = plan::expertPlan(e.id, p.model->planContext(), p.model->mesh());
            if (plan)
                bestExpert =
                    std::max(bestExpert, reward(cost::evaluate(*p.model, *plan), p.model->lowerBoundTime()));
        }
        qInfo(
            "exhaustive: %zu states, best reward %.6f (step %.3f us); search %.6f (%.3f us); best expert "
            "%.6f",
            exhaustive->states, exhaustive->best.reward, exhaustive->best.evaluation.stepTime * 1e6, f.reward,
            f.evaluation.stepTime * 1e6, bestExpert);
        QVERIFY(exhaustive->best.reward > bestExpert);  // the space holds something better than the experts
        QVERIFY(exhaustive->best.evaluation.feasible && f.evaluation.feasible);
        QVERIFY(f.evaluation.stepTime <= exhaustive->best.evaluation.stepTime * 1.01);
        QVERIFY(f.reward <= exhaustive->best.reward + 1e-12);
    }

    // Refinement alone climbs from the expert seeds: with a tree that cannot grow (one node) and rollouts
    // that stop at once, the tree walk evaluates only the pins, so every plan better than the experts comes
    // from a neighbour of the best plan. It reaches the exhaustive optimum's time within 1%, and every plan
    // it offers keeps the pins first, takes no forbidden decision and at most maxDecisions of its own.
    void refinementClimbsFromTheSeeds() {
        Problem p(kSmallMlp, "data=4,model=2");
        plan::Plan start;
        start.decisions = {p.decide("batch", "data")};
        start.forbidden = {p.decide("d_model", "model")};
        auto exhaustive = exhaustiveSearch(*p.model, start, 3, 200000, 16, Staging::None);
        QVERIFY2(exhaustive, exhaustive.errorMessage().c_str());
        SearchOptions options = refinementOnly(400);
        options.maxTreeNodes = 1;
        Recorder recorder;
        Search search(*p.model, start, options);
        const Found f = search.run(&recorder);
        double bestSeed = 0;
        for (const auto& found : recorder.found)
            if (found.origin != "search")
                bestSeed = std::max(bestSeed, found.reward);
        qInfo("exhaustive %.3f us, best seed reward %.6f, refined %.3f us (reward %.6f)",
              exhaustive->best.evaluation.stepTime * 1e6, bestSeed, f.evaluation.stepTime * 1e6, f.reward);
        QVERIFY(exhaustive->best.reward > bestSeed);  // there is something to climb to
        QVERIFY(f.evaluation.feasible);
        QVERIFY(f.evaluation.stepTime <= exhaustive->best.evaluation.stepTime * 1.01);
        QCOMPARE(search.treeSize(), std::size_t{1});
        const auto forbidden = start.forbidden.front();
        for (const auto& found : recorder.found) {
            QCOMPARE(found.plan.decisions.front(), start.decisions.front());
            if (found.origin == "search")
                QVERIFY(found.plan.decisions.size() <= 1 + static_cast<std::size_t>(options.maxDecisions));
            for (const auto& d : found.plan.decisions)
                QVERIFY(!(d.target == forbidden.target && d.index == forbidden.index &&
                          d.axis == forbidden.axis));
        }
    }

    // Refined plans enter the tree: with refinement only, the tree grows by grafts alone, along the actions
    // of the plans that improved on the best, and the best plan's path is in it.
    void refinedPlansAreGrafted() {
        Problem p(kSmallMlp, "data=4,model=2");
        SearchOptions options = refinementOnly(300);
        options.seedWithExperts = false;
        Search search(*p.model, plan::Plan{}, options);
        const Found f = search.run();
        QVERIFY(!f.plan.decisions.empty());
        const ActionSpace actions(*p.model);
        // The path of the best plan's decisions, from the root.
        const auto tree = search.changedNodes();
        std::int64_t at = 0;
        for (const auto& d : f.plan.decisions) {
            const std::string want = actions.describe({Action::Kind::Decide, d, {}, {}});
            auto it = std::find_if(tree.begin(), tree.end(),
                                   [&](const TreeNode& n) { return n.parent == at && n.action == want; });
            if (it == tree.end())
                break;  // a resolution or an action the tree does not offer in this order ends the path
            at = it->id;
        }
        QVERIFY2(at != 0, "the best plan's first decision is a node of the tree");
    }

    // Remat actions: one per policy other than none for each block family the plan does not set yet; setting
    // one replaces the family's decision; the transposition cache tells plans apart by their remat.
    void rematActionsAndTheCache() {
        Problem p(kSmallGpt, "data=2,model=4");
        const ActionSpace space(*p.model);
        QCOMPARE(space.blocks().families, std::vector<std::string>{"layers.*"});
        const auto remat = space.rematActions(plan::Plan{});
        QCOMPARE(remat.size(), std::size_t{3});
        QCOMPARE(space.describe(remat[0]), std::string("remat layers.*: selective"));
        QCOMPARE(space.describe(remat[1]), std::string("remat layers.*: full"));
        QCOMPARE(space.describe(remat[2]), std::string("remat layers.*: dots-saveable"));
        const plan::Plan full = withAction(plan::Plan{}, remat[1]);
        QCOMPARE(full.remat, (std::vector<plan::RematDecision>{{"layers.*", plan::Remat::Full}}));
        QVERIFY(space.rematActions(full).empty());  // set once on a path
        const plan::Plan replaced = withAction(full, remat[2]);
        QCOMPARE(replaced.remat, (std::vector<plan::RematDecision>{{"layers.*", plan::Remat::DotsSaveable}}));
        // With no decision to take (and no pipeline or microbatches), the exhaustive search still visits the
        // start and each policy: four states with equal shardings, which a cache keyed by shardings alone
        // would take for one.
        auto states = exhaustiveSearch(*p.model, plan::Plan{}, 0, 200000, 16, Staging::None);
        QVERIFY2(states, states.errorMessage().c_str());
        QCOMPARE(states->states, std::size_t{4});
        auto one = exhaustiveSearch(*p.model, plan::Plan{}, 1, 200000, 16, Staging::None);
        QVERIFY(one);
        QVERIFY(one->states > 4 * space.legal(plan::Plan{}).size() / 2);
    }

    // The search's expert seeds fall back to a remat variant when the expert does not fit, so the best expert
    // reported is a feasible one.
    void expertSeedsFallBackToRemat() {
        Problem p(kTightGpt, "data=2,model=4", "tpu-v5e");
        const auto plain =
            cost::evaluate(*p.model, *plan::expertPlan("zero3", p.model->planContext(), p.model->mesh()));
        QVERIFY2(!plain.feasible, "the problem is meant to be too large for zero3 without remat");
        const auto variant = fittingRematVariant(
            "zero3", *p.model, [&](const plan::Plan& x) { return cost::evaluate(*p.model, x); });
        QVERIFY(variant);
        QVERIFY2(variant->evaluation.feasible, variant->id.c_str());
        QCOMPARE(variant->plan.remat.size(), std::size_t{1});
        QCOMPARE(variant->id, "zero3+" + std::string(plan::toString(variant->plan.remat.front().policy)));
        SearchOptions options;
        options.budget.iterations = 1;
        Recorder recorder;
        Search search(*p.model, plan::Plan{}, options);
        search.run(&recorder);
        const bool seededVariant =
            std::any_of(recorder.found.begin(), recorder.found.end(), [](const Found& f) {
                return f.origin.rfind("expert:", 0) == 0 && f.origin.find('+') != std::string::npos &&
                       f.evaluation.feasible && !f.plan.remat.empty();
            });
        QVERIFY(seededVariant);
        QVERIFY(search.best()->evaluation.feasible);
    }

    // No improvement for K iterations ends the search.
    void patienceStopsTheSearch() {
        Problem p(kSmallGpt, "data=2,model=4");
        SearchOptions options;
        options.budget.patience = 100;
        options.budget.seconds = 60;
        Recorder recorder;
        Search search(*p.model, plan::Plan{}, options);
        const Found f = search.run(&recorder);
        QVERIFY(recorder.reports.back().iterations >= 100);
        QVERIFY(recorder.reports.back().iterations - f.iteration <= 101);
        QVERIFY(recorder.reports.back().seconds < 30);
    }

    // A long search stays in bounded memory: the tree stops at maxTreeNodes and the search goes on from its
    // leaves.
    void theTreeStopsGrowingAtItsCap() {  // helper C, issue 11 (soak)
        Problem p(kSmallGpt, "data=2,model=4");
        SearchOptions options;
        options.maxTreeNodes = 64;
        options.budget.iterations = 3000;
        Recorder recorder;
        Search search(*p.model, plan::Plan{}, options);
        const Found f = search.run(&recorder);
        QCOMPARE(search.treeSize(), std::size_t{64});
        QCOMPARE(recorder.reports.back().iterations, std::int64_t{3000});
        QVERIFY(f.evaluation.stepTime > 0);
    }

    void exhaustiveRefusesLargeSpaces() {
        Problem p(kSmallGpt, "data=2,model=4");
        auto r = exhaustiveSearch(*p.model, plan::Plan{}, 8, 100);
        QVERIFY(!r);
        QVERIFY(r.errorMessage().find("more than 100 sharding states") != std::string::npos);
    }

    // stop() and pause()/resume() from another thread; run() continues the tree with a fresh budget.
    void stopAndPauseFromAnotherThread() {
        Problem p(kSmallGpt, "data=2,model=4");
        SearchOptions options;
        options.threads = 2;
        options.budget.seconds = 60;
        Search search(*p.model, plan::Plan{}, options);
        std::thread controller([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            search.pause();
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            search.resume();
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            search.stop();
        });
        QElapsedTimer timer;
        timer.start();
        search.run();
        controller.join();
        QVERIFY(timer.elapsed() < 5000);
        const std::size_t size = search.treeSize();
        // run() again continues the same tree.
        std::thread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            search.stop();
        });
        search.run();
        stopper.join();
        QVERIFY(search.treeSize() > size);
    }

    // A stop while the experts are seeded ends the seeding between two experts, and the pins are still priced
    // (a large model's seeds take seconds; a user's stop must not wait for them). run() again seeds the rest.
    void aStopEndsTheSeeding() {
        Problem p(kSmallGpt, "data=2,model=4");
        SearchOptions options;
        options.threads = 1;
        options.budget.iterations = 1;
        Search search(*p.model, plan::Plan{}, options);
        struct StopAtFirstBest : SearchObserver {
            Search* search = nullptr;
            bool stopping = true;
            std::vector<Found> found;
            Progress last;
            void newBest(const Found& f) override {
                found.push_back(f);
                if (stopping)
                    search->stop();
            }
            void progress(const Progress& pr) override { last = pr; }
        } observer;
        observer.search = &search;
        search.run(&observer);
        QVERIFY(!observer.found.empty());
        QVERIFY(observer.found.front().origin.starts_with("expert:"));
        QCOMPARE(observer.last.evaluations, std::int64_t{2});  // the first expert, then the pins
        QCOMPARE(observer.last.iterations, std::int64_t{0});
        observer.stopping = false;
        search.run(&observer);
        QVERIFY2(observer.last.evaluations > 6, qPrintable(QString::number(observer.last.evaluations)));
    }

    // SessionRecorder: a recorded search leaves in the workspace the session's settings (problem, search
    // options, pins), the experts once, every new best plan the search found and the whole tree.
    void recordsASessionIntoAWorkspace();
};

// Included after the tests above: its shardscope::Problem would make their local Problem ambiguous.
#include <QTemporaryDir>

#include "shardscope/session/recording.h"
#include "shardscope/session/workspace_session.h"

using namespace shardscope::session;

void TestSearch::recordsASessionIntoAWorkspace() {
    QTemporaryDir dir;
    ProblemSpec spec;
    spec.model = std::string("zoo:") + kSmallGpt;
    spec.train = true;
    spec.mesh = "data=2,model=4";
    auto problem = loadProblem(spec);
    QVERIFY(problem);
    const shardscope::Problem& p = **problem;
    auto record = modelRecord(spec);
    QVERIFY(record);
    QVERIFY(record->bytes.empty());  // a zoo model is rebuilt from its name
    QVERIFY(record->loadOptions.find("\"train\":true") != std::string::npos);
    const std::string path = dir.filePath("w.shardscope").toStdString();
    auto workspace = store::Workspace::create(path, *record);
    QVERIFY(workspace);

    plan::Plan start;
    for (std::size_t n = 0; n < p.space.names.size(); ++n)
        if (p.space.names[n].label == "batch")
            start.decisions.push_back(
                {plan::Decision::Target::Name, static_cast<std::uint32_t>(n), *p.mesh.axisIndex("data")});
    start.pinned = start.decisions.size();
    QCOMPARE(start.pinned, std::size_t{1});
    SearchOptions options;
    options.budget.iterations = 200;
    options.seedWithExperts = false;
    auto recorder = SessionRecorder::start(*workspace, p, start, options, {"first", "", false});
    QVERIFY(recorder);
    QCOMPARE((*recorder)->session(), std::int64_t{1});
    const auto experts = (*recorder)->saveExperts();
    QVERIFY(experts.size() >= 8);

    // Counts what the search reports, and passes it on to the recorder.
    struct Counting : SearchObserver {
        SearchObserver* next = nullptr;
        int found = 0;
        void progress(const Progress& pr) override { next->progress(pr); }
        void newBest(const Found& f) override {
            found += f.origin == "search";
            next->newBest(f);
        }
    } counting;
    counting.next = recorder->get();
    Search search(*p.costModel, start, options);
    (*recorder)->attach(&search);
    const Found best = search.run(&counting);
    QVERIFY((*recorder)->finish());
    QVERIFY(counting.found >= 1);

    auto opened = store::Workspace::open(path);
    QVERIFY(opened);
    const auto sessions = opened->sessions();
    QCOMPARE(sessions.size(), std::size_t{1});
    QCOMPARE(sessions[0].name, std::string("first"));
    for (const char* key :
         {"\"problem\"", "\"budget\":\"200it\"", "\"threads\"", "\"seed\"", "\"exploration\"", "\"pins\""})
        QVERIFY2(sessions[0].settings.find(key) != std::string::npos, key);
    const auto plans = opened->plans(1);
    std::size_t expertPlans = 0, searchPlans = 0;
    for (const auto& saved : plans) {
        if (saved.origin.rfind("expert:", 0) == 0)
            ++expertPlans;
        if (saved.origin == "search")
            ++searchPlans;
    }
    QCOMPARE(expertPlans, experts.size());
    QCOMPARE(searchPlans, static_cast<std::size_t>(counting.found));
    QCOMPARE(plans.back().stepTime, best.evaluation.stepTime);
    QVERIFY(plans.back().evaluation.find("memory_breakdown") != std::string::npos);
    QCOMPARE(opened->nodeCount(1), static_cast<std::int64_t>(search.treeSize()));
    QVERIFY(!opened->children(1, 0).empty());
    // The root links the best plan found, whose step time is the search's best.
    const auto root = opened->node(1, 0);
    QVERIFY(root && root->plan > 0);
    const auto linked = opened->plan(root->plan);
    QVERIFY(linked);
    QCOMPARE(linked->stepTime, best.evaluation.stepTime);

    // The budget as the CLI writes it, and a model file that cannot be kept.
    Budget both;
    both.seconds = 1.5;
    both.iterations = 10;
    QCOMPARE(budgetText(both), std::string("1.5s,10it"));
    QCOMPARE(budgetText(Budget{}), std::string("none"));
    ProblemSpec missing;
    missing.model = dir.filePath("missing.onnx").toStdString();
    QVERIFY(!modelRecord(missing));
}

QTEST_GUILESS_MAIN(TestSearch)
#include "tst_search.moc"
