// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Numerical validation of plans (issue 10): the SPMD simulation runs a small model's training step under a
// plan on a simulated mesh, one local shard per device with explicit collectives, and must match the
// unsharded run of the reference interpreter; the collectives it had to execute must be the ones the cost
// model priced.
#include <QtTest>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "shardscope/interpret/interpreter.h"
#include "shardscope/interpret/spmd.h"
#include "shardscope/plan/experts.h"
#include "shardscope/search/search.h"
#include "shardscope/session/problem.h"

using namespace shardscope;
using interpret::Tensor;

namespace {

// f32 sums taken in another order (partial sums per device, then the all-reduce) differ in the last bits; the
// optimizer's division by sqrt(v) amplifies that a little. A wrong collective or factor rule gives O(1).
constexpr double kTolerance = 1e-4;

std::unique_ptr<Problem> problem(const std::string& model, const std::string& mesh,
                                 double launchTime = 5e-6) {
    ProblemSpec spec;
    spec.model = model;
    spec.train = true;
    spec.mesh = mesh;
    spec.cost.launchTime = launchTime;
    auto loaded = loadProblem(spec);
    if (!loaded)
        qFatal("%s", loaded.errorMessage().c_str());
    return std::move(loaded).value();
}

// (kind, axes, value) -> count.
using CollectiveCounts = std::map<std::tuple<int, std::uint32_t, std::uint32_t>, int>;

CollectiveCounts countsOf(const std::vector<interpret::ExecutedCollective>& list) {
    CollectiveCounts counts;
    for (const auto& c : list)
        ++counts[{static_cast<int>(c.kind), c.axes, c.value.index}];
    return counts;
}

CollectiveCounts countsOf(const std::vector<cost::Collective>& list) {
    CollectiveCounts counts;
    for (const auto& c : list)
        ++counts[{static_cast<int>(c.kind), c.axes, c.value.index}];
    return counts;
}

std::string describe(const CollectiveCounts& expected, const CollectiveCounts& actual,
                     const ir::Graph& graph) {
    std::string out;
    auto line = [&](const char* what, const auto& key, int n) {
        const auto [kind, axes, value] = key;
        const ir::Value& v = graph.values[value];
        const std::string op = v.producer.valid() ? graph.op(v.producer).location.toString() : "argument";
        out += std::string(what) + " " + std::string(toString(static_cast<cost::CollectiveKind>(kind))) +
               " axes=" + std::to_string(axes) + " %" + std::to_string(value) + " (" + op + ") x" +
               std::to_string(n) + "\n";
    };
    for (const auto& [key, n] : expected)
        if (!actual.count(key) || actual.at(key) != n)
            line("priced", key, n);
    for (const auto& [key, n] : actual)
        if (!expected.count(key) || expected.at(key) != n)
            line("executed", key, n);
    return out;
}

// Simulates `plan` on `p`, compares with the unsharded run and with the priced collectives.
void validate(const Problem& p, const plan::Plan& plan, std::int64_t vocab, const std::string& what) {
    const ir::Graph& graph = p.model.graph;
    const auto arguments = interpret::sampleArguments(graph, 11, vocab);
    auto reference = interpret::run(graph, arguments);
    QVERIFY2(reference.ok(), reference.errorMessage().c_str());
    auto simulated = interpret::simulate(*p.costModel, plan, arguments);
    QVERIFY2(simulated.ok(), (what + ": " + simulated.errorMessage()).c_str());
    const double difference = interpret::scaledDifference(*reference, simulated->outputs);
    QVERIFY2(difference < kTolerance, (what + ": scaled difference " + std::to_string(difference)).c_str());

    // Rematerialization runs a block's forward collectives again before its backward; the simulation runs
    // each op once (the numbers are the same), so the priced list to compare is the plan's without it.
    plan::Plan once = plan;
    once.remat.clear();
    const cost::Evaluation evaluation = cost::evaluate(*p.costModel, once);
    const auto priced = countsOf(evaluation.collectives);
    const auto executed = countsOf(simulated->collectives);
    QVERIFY2(priced == executed,
             (what + ": collectives differ\n" + describe(priced, executed, graph)).c_str());
}

}  // namespace

class TestSpmd : public QObject {
    Q_OBJECT

private slots:
    // Scaled difference: 0 for equal outputs, relative to each output's largest value, infinite on a shape or
    // NaN mismatch.
    void scaledDifference() {
        const ir::TensorType type{{2}, ir::ElementType::F32};
        const std::vector<Tensor> a{Tensor{type, {4, -2}}};
        QCOMPARE(interpret::scaledDifference(a, a), 0.0);
        QCOMPARE(interpret::scaledDifference(a, {Tensor{type, {4, -1}}}), 0.25);
        QVERIFY(std::isinf(interpret::scaledDifference(a, {Tensor{type, {4, std::nan("")}}})));
        QVERIFY(
            std::isinf(interpret::scaledDifference(a, {Tensor{{{3}, ir::ElementType::F32}, {4, -2, 0}}})));
        QVERIFY(std::isinf(interpret::scaledDifference(a, {})));
    }

    // The data-parallel MLP step of docs/design.md, "Worked examples": each weight gradient is all-reduced
    // over `data` (and the loss, a mean over the batch), nothing else moves, and the step matches the
    // unsharded one.
    void dataParallelMlp() {
        auto p = problem("zoo:mlp:layers=2,d_model=8,d_ff=16,batch=8,dtype=f32", "data=4");
        auto plan = plan::expertPlan("dp", p->costModel->planContext(), p->mesh);
        QVERIFY2(plan.ok(), plan.errorMessage().c_str());
        validate(*p, *plan, 2, "mlp dp");
        const ir::Graph& graph = p->model.graph;
        auto simulated = interpret::simulate(*p->costModel, *plan, interpret::sampleArguments(graph, 5, 2));
        QVERIFY(simulated.ok());
        QCOMPARE(simulated->devices, std::int64_t{4});
        std::set<std::uint32_t> reduced;
        for (const auto& c : simulated->collectives) {
            QVERIFY(c.kind == cost::CollectiveKind::AllReduce);
            QCOMPARE(c.axes, 1u);
            reduced.insert(c.value.index);
        }
        std::set<std::uint32_t> gradients;
        for (const auto& [gradient, argument] : graph.gradients)
            gradients.insert(gradient.index);
        QCOMPARE(gradients.size(), std::size_t{4});  // W1 and W2 of two layers
        // Besides them, one scalar: the loss's sum over the batch, before the division that makes it a mean.
        std::vector<std::uint32_t> others;
        for (auto v : reduced)
            if (!gradients.count(v))
                others.push_back(v);
        QCOMPARE(reduced.size(), std::size_t{5});
        QCOMPARE(others.size(), std::size_t{1});
        QCOMPARE(graph.values[others[0]].type.rank(), std::size_t{0});
        QVERIFY(graph.op(graph.values[others[0]].producer).location.toString().find("loss") !=
                std::string::npos);
    }

    // Every expert plan that applies, on small models of every zoo family with a training step, on a 2x2
    // mesh.
    void expertPlans_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<int>("vocab");
        QTest::newRow("mlp")
            << "zoo:mlp:layers=2,d_model=8,d_ff=16,batch=4,bias=true,activation=gelu,dtype=f32"
            << "data=2,model=2" << 2;
        QTest::newRow("gpt") << "zoo:gpt:layers=2,d_model=16,heads=4,d_ff=32,seq=4,batch=4,vocab=16,dtype=f32"
                             << "data=2,model=2" << 16;
        QTest::newRow("llama")
            << "zoo:llama:layers=1,d_model=16,heads=4,kv_heads=2,d_ff=32,seq=4,batch=2,vocab=16,dtype=f32"
            << "data=2,model=2" << 16;
        QTest::newRow("moe")
            << "zoo:moe:layers=1,d_model=16,heads=4,kv_heads=2,d_ff=16,seq=8,batch=2,vocab=16,"
               "experts=4,top_k=2,dtype=f32"
            << "data=2,expert=2" << 16;
        QTest::newRow("vit")
            << "zoo:vit:image=8,patch=4,channels=3,layers=1,d_model=16,heads=4,d_ff=32,classes=4,"
               "batch=4,dtype=f32"
            << "data=2,model=2" << 4;
    }
    void expertPlans() {
        QFETCH(QString, model);
        QFETCH(QString, mesh);
        QFETCH(int, vocab);
        auto p = problem(model.toStdString(), mesh.toStdString());
        int validated = 0;
        for (const auto& expert : plan::expertPlans()) {
            auto plan = plan::expertPlan(expert.id, p->costModel->planContext(), p->mesh);
            if (!plan)
                continue;  // the strategy does not apply to this model or mesh (e.g. ep without experts)
            validate(*p, *plan, vocab, expert.id);
            if (QTest::currentTestFailed())
                return;
            ++validated;
        }
        QVERIFY2(validated >= 4, std::to_string(validated).c_str());
    }

    // Pipelined and accumulated plans compute what the unsharded step computes: the microbatches' gradients
    // summed (the accumulated axis simulated as devices), each stage's SPMD sharding as priced.
    void pipelinedPlans_data() {
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<QString>("expert");
        QTest::addColumn<int>("microbatches");
        QTest::newRow("ptd-p") << "pipe=2,data=2,model=2"
                               << "ptd-p" << 2;
        QTest::newRow("fsdp-pp") << "pipe=2,data=2"
                                 << "fsdp-pp" << 2;
        QTest::newRow("interleaved") << "pipe=2,data=2"
                                     << "zero1@data+pp-interleaved@pipe" << 2;
        QTest::newRow("accumulation") << "data=2,model=2"
                                      << "dp-tp" << 2;
        QTest::newRow("gpipe, 4 microbatches") << "pipe=2,data=1"
                                               << "dp@data+pp@pipe" << 4;
    }
    void pipelinedPlans() {
        QFETCH(QString, mesh);
        QFETCH(QString, expert);
        QFETCH(int, microbatches);
        auto p = problem("zoo:gpt:layers=4,d_model=16,heads=4,d_ff=32,seq=4,batch=4,vocab=16,dtype=f32",
                         mesh.toStdString());
        auto plan = plan::expertPlan(expert.toStdString(), p->costModel->planContext(), p->mesh);
        QVERIFY2(plan, plan ? "" : plan.errorMessage().c_str());
        plan->microbatches = microbatches;
        if (QString(QTest::currentDataTag()).startsWith("gpipe"))
            plan->pipeline->schedule = plan::PipelineSchedule::GPipe;
        const auto evaluation = cost::evaluate(*p->costModel, *plan);
        QVERIFY(evaluation.pipeline);
        QVERIFY2(evaluation.pipeline->problem.empty(), evaluation.pipeline->problem.c_str());
        validate(*p, *plan, 16, expert.toStdString());
    }

    // Plans the search finds on its own (not seeded with expert plans), on several models. At these sizes
    // launch times and link latencies make one device best, so the problems leave them out: the search then
    // shards.
    void searchedPlans_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<int>("vocab");
        QTest::newRow("gpt") << "zoo:gpt:layers=1,d_model=16,heads=4,d_ff=32,seq=4,batch=4,vocab=16,dtype=f32"
                             << "data=2:lat=0,model=2:lat=0" << 16;
        QTest::newRow("llama")
            << "zoo:llama:layers=1,d_model=16,heads=4,kv_heads=2,d_ff=32,seq=4,batch=2,vocab=16,dtype=f32"
            << "data=2:lat=0,model=2:lat=0" << 16;
        QTest::newRow("moe")
            << "zoo:moe:layers=1,d_model=16,heads=4,kv_heads=2,d_ff=16,seq=8,batch=2,vocab=16,"
               "experts=4,top_k=2,dtype=f32"
            << "data=2:lat=0,expert=2:lat=0" << 16;
    }
    void searchedPlans() {
        QFETCH(QString, model);
        QFETCH(QString, mesh);
        QFETCH(int, vocab);
        auto p = problem(model.toStdString(), mesh.toStdString(), 0.0);
        search::SearchOptions options;
        options.seedWithExperts = false;
        options.budget.iterations = 60;
        search::Search search(*p->costModel, plan::Plan{}, options);
        const plan::Plan found = search.run().plan;
        QVERIFY(!found.decisions.empty());
        validate(*p, found, vocab, "searched plan");
    }
};

QTEST_APPLESS_MAIN(TestSpmd)
#include "tst_spmd.moc"
