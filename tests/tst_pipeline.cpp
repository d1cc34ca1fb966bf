// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Pipelines and microbatches (docs/cost-model.md "Pipelines"): the simulated schedules against the closed
// forms they must reproduce on equal stages (bubble, in-flight microbatches), every dependency on random
// stage times; staged evaluations of zoo training steps (gradient accumulation, layer splits, per-stage
// memory, the interleaved schedule's advantage); the plan language (JSON, experts, checks).
#include <QtTest>
#include <cmath>
#include <map>
#include <random>

#include "problem_support.h"
#include "test_support.h"

#include "shardscope/cost/cost_model.h"
#include "shardscope/cost/pipeline_schedule.h"
#include "shardscope/plan/experts.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/session/problem.h"

using namespace shardscope;
using namespace shardscope::cost;

namespace {

PipelineWork equalWork(plan::PipelineSchedule schedule, int p, int v, int m, double f, double b,
                       double send = 0) {
    PipelineWork w;
    w.schedule = schedule;
    w.stages = p;
    w.virtualStages = v;
    w.microbatches = m;
    const auto chunks = static_cast<std::size_t>(p * v);
    w.forward.assign(chunks, f);
    w.backwardTime.assign(chunks, b);
    w.send.assign(chunks, send);
    w.activationBytes.assign(chunks, 1);
    return w;
}

PipelineRun simulated(const PipelineWork& w) {
    auto run = simulatePipeline(w);
    if (!run)
        qFatal("%s", run.errorMessage().c_str());
    return std::move(run).value();
}

std::unique_ptr<Problem> problemOf(const std::string& model, const std::string& mesh, double launch = 5e-6) {
    ProblemSpec spec;
    spec.model = model;
    spec.train = true;
    spec.mixedPrecision = true;
    spec.mesh = mesh;
    spec.cost.efficiency = 0.7;  // one efficiency for every kernel: microbatches do not change the FLOP rate
    spec.cost.launchTime = launch;
    return testing::loadedProblem(spec);
}

plan::Plan expert(const Problem& problem, const std::string& id) {
    return testing::expertOf(problem, id);
}

const char* kGpt = "zoo:gpt:layers=8,d_model=512,heads=8,batch=32,seq=256,vocab=8192";

// Where two evaluations differ ("" when they do not), every field exactly, the schedule over the chunks too.
std::string difference(const Evaluation& a, const Evaluation& b) {
    if (a.stepTime != b.stepTime || a.computeTime != b.computeTime || a.collectiveTime != b.collectiveTime)
        return "times";
    if (a.peakMemory != b.peakMemory || a.peakOp != b.peakOp || a.feasible != b.feasible ||
        a.capacity != b.capacity)
        return "peak memory";
    const auto breakdown = [](const MemoryBreakdown& m) {
        return std::vector<double>{m.parameters, m.gradients, m.optimizerState, m.activations, m.temporaries};
    };
    if (breakdown(a.atPeak) != breakdown(b.atPeak))
        return "memory at the peak";
    if (a.modelStates.parameters != b.modelStates.parameters ||
        a.modelStates.gradients != b.modelStates.gradients ||
        a.modelStates.optimizerState != b.modelStates.optimizerState)
        return "model states";
    if (!(a.collectives == b.collectives) || a.collectiveStart != b.collectiveStart ||
        a.collectiveEnd != b.collectiveEnd)
        return "collectives";
    if (a.opComputeTime != b.opComputeTime || a.opStart != b.opStart)
        return "op times";
    if (a.competitions.size() != b.competitions.size())
        return "competitions";
    if (a.pipeline.has_value() != b.pipeline.has_value())
        return "staged or not";
    if (!a.pipeline)
        return {};
    const PipelineEvaluation &x = *a.pipeline, &y = *b.pipeline;
    if (!(x.pipeline == y.pipeline) || x.microbatches != y.microbatches || x.problem != y.problem ||
        x.bubbleFraction != y.bubbleFraction || x.microbatchTime != y.microbatchTime ||
        x.chunkOfOp != y.chunkOfOp)
        return "pipeline";
    if (x.chunks.size() != y.chunks.size() || x.stages.size() != y.stages.size() ||
        x.tasks.size() != y.tasks.size())
        return "pipeline sizes";
    for (std::size_t c = 0; c < x.chunks.size(); ++c) {
        const PipelineChunk &p = x.chunks[c], &q = y.chunks[c];
        if (p.device != q.device || p.firstLayer != q.firstLayer || p.layers != q.layers ||
            p.forwardTime != q.forwardTime || p.backwardTime != q.backwardTime ||
            p.sendBytes != q.sendBytes || p.sendTime != q.sendTime ||
            p.gradientSyncTime != q.gradientSyncTime || p.updateTime != q.updateTime ||
            p.activationBytes != q.activationBytes)
            return "chunk " + std::to_string(c);
    }
    for (std::size_t d = 0; d < x.stages.size(); ++d) {
        const PipelineStage &p = x.stages[d], &q = y.stages[d];
        if (p.peakMemory != q.peakMemory || breakdown(p.atPeak) != breakdown(q.atPeak) ||
            p.modelStates.total() != q.modelStates.total() || p.inFlight != q.inFlight ||
            p.busyTime != q.busyTime || p.end != q.end)
            return "stage " + std::to_string(d);
    }
    for (std::size_t t = 0; t < x.tasks.size(); ++t) {
        const PipelineTask &p = x.tasks[t], &q = y.tasks[t];
        if (p.kind != q.kind || p.device != q.device || p.chunk != q.chunk || p.microbatch != q.microbatch ||
            p.start != q.start || p.end != q.end)
            return "task " + std::to_string(t);
    }
    return {};
}

}  // namespace

class TestPipeline : public QObject {
    Q_OBJECT

private slots:
    // Equal stages: GPipe and 1F1B both take (m + p − 1)·(f + b), a bubble of (p − 1)/(m + p − 1)
    // (Narayanan et al. 2021, §2.2); 1F1B keeps p − d microbatches on device d, GPipe all m.
    void equalStagesGiveTheClosedForms_data() {
        QTest::addColumn<int>("p");
        QTest::addColumn<int>("m");
        for (int p : {2, 4, 8})
            for (int m : {1, 3, 8, 32})
                QTest::addRow("p=%d m=%d", p, m) << p << m;
    }
    void equalStagesGiveTheClosedForms() {
        QFETCH(int, p);
        QFETCH(int, m);
        const double f = 1, b = 2;
        for (auto schedule : {plan::PipelineSchedule::GPipe, plan::PipelineSchedule::OneFOneB}) {
            const auto run = simulated(equalWork(schedule, p, 1, m, f, b));
            QCOMPARE(run.makespan, (m + p - 1) * (f + b));
            QVERIFY(std::abs(run.bubbleFraction - double(p - 1) / (m + p - 1)) < 1e-12);
            for (int d = 0; d < p; ++d)
                QCOMPARE(run.inFlight[static_cast<std::size_t>(d)],
                         schedule == plan::PipelineSchedule::GPipe ? m : std::min(p - d, m));
        }
    }

    // Transfers between stages delay the first forward and the last backward by one transfer per boundary.
    void transfersLengthenTheFillAndTheDrain() {
        const int p = 4, m = 8;
        const double f = 1, b = 2, s = 0.25;
        const auto run = simulated(equalWork(plan::PipelineSchedule::GPipe, p, 1, m, f, b, s));
        QCOMPARE(run.makespan, (m + p - 1) * (f + b) + 2 * (p - 1) * s);
    }

    // Megatron's interleaved schedule: v chunks per device shrink the bubble towards (p − 1)/(v·m + p − 1),
    // and keep more microbatch chunks in flight on the first device.
    void interleavingShrinksTheBubble() {
        const int p = 4, m = 8, v = 2;
        const auto plain = simulated(equalWork(plan::PipelineSchedule::OneFOneB, p, 1, m, 2, 4));
        const auto interleaved = simulated(equalWork(plan::PipelineSchedule::Interleaved, p, v, m, 1, 2));
        QVERIFY2(interleaved.makespan < plain.makespan,
                 qPrintable(QString("%1 vs %2").arg(interleaved.makespan).arg(plain.makespan)));
        QVERIFY(interleaved.bubbleFraction < plain.bubbleFraction);
        const double ideal = double(p - 1) / (v * m + p - 1);
        QVERIFY2(std::abs(interleaved.bubbleFraction - ideal) < 0.05,
                 qPrintable(QString("bubble %1, closed form %2").arg(interleaved.bubbleFraction).arg(ideal)));
        QCOMPARE(interleaved.inFlight[0], (p - 1) * 2 + (v - 1) * p + 1);
    }

    // On random stage times every order is complete and every dependency holds.
    void randomStagesKeepEveryDependency() {
        std::mt19937 random(7);
        std::uniform_real_distribution<double> time(0.1, 3);
        for (int round = 0; round < 200; ++round) {
            const int p = 1 + static_cast<int>(random() % 6);
            const auto schedule =
                static_cast<plan::PipelineSchedule>(random() % plan::kPipelineScheduleCount);
            const int v =
                schedule == plan::PipelineSchedule::Interleaved ? 2 + static_cast<int>(random() % 2) : 1;
            const int m = schedule == plan::PipelineSchedule::Interleaved
                              ? p * (1 + static_cast<int>(random() % 3))
                              : 1 + static_cast<int>(random() % 9);
            PipelineWork w = equalWork(schedule, p, v, m, 0, 0);
            for (std::size_t c = 0; c < w.forward.size(); ++c) {
                w.forward[c] = time(random);
                w.backwardTime[c] = time(random);
                w.send[c] = time(random) / 10;
            }
            const auto run = simulated(w);
            const std::size_t chunks = w.forward.size();
            std::map<std::tuple<bool, int, int>, PipelineTask> byKey;
            for (const auto& t : run.tasks) {
                QVERIFY(
                    byKey.emplace(std::tuple(t.kind == PipelineTask::Kind::Forward, t.chunk, t.microbatch), t)
                        .second);
                QCOMPARE(t.device, t.chunk % p);
            }
            QCOMPARE(byKey.size(), 2 * chunks * static_cast<std::size_t>(m));
            for (const auto& [key, t] : byKey) {
                const auto [forward, c, mb] = key;
                if (forward && c > 0)
                    QVERIFY(t.start >= byKey.at({true, c - 1, mb}).end +
                                           w.send[static_cast<std::size_t>(c - 1)] - 1e-12);
                if (!forward) {
                    QVERIFY(t.start >= byKey.at({true, c, mb}).end - 1e-12);
                    if (static_cast<std::size_t>(c) + 1 < chunks)
                        QVERIFY(t.start >= byKey.at({false, c + 1, mb}).end +
                                               w.send[static_cast<std::size_t>(c)] - 1e-12);
                }
            }
            // A device runs one task at a time.
            for (std::size_t i = 1; i < run.tasks.size(); ++i)
                if (run.tasks[i].device == run.tasks[i - 1].device)
                    QVERIFY(run.tasks[i].start >= run.tasks[i - 1].end - 1e-12);
        }
    }

    void badWorkIsRefused() {
        PipelineWork w = equalWork(plan::PipelineSchedule::OneFOneB, 2, 1, 4, 1, 1);
        w.send.pop_back();
        const auto run = simulatePipeline(w);
        QVERIFY(!run);
        QCOMPARE(run.diagnostics().front().message,
                 std::string("per-chunk lists need 2 entries (stages × virtual stages), not 1"));
    }

    // Gradient accumulation: the same work in four microbatches, a quarter of the activations, the gradients
    // reduced once.
    void microbatchesAccumulateGradients() {
        // Without launch times, and large enough to be compute-bound, the compute is the same.
        auto problem =
            problemOf("zoo:gpt:layers=2,d_model=2048,heads=16,batch=32,seq=512,vocab=8192", "data=4", 0);
        plan::Plan dp = expert(*problem, "dp");
        Evaluator evaluator(*problem->costModel);
        const Evaluation whole = evaluator.evaluate(dp);
        dp.microbatches = 4;
        const Evaluation staged = evaluator.evaluate(dp);
        QVERIFY(staged.pipeline);
        QVERIFY2(staged.pipeline->problem.empty(), staged.pipeline->problem.c_str());
        QVERIFY2(std::abs(staged.computeTime / whole.computeTime - 1) < 0.02,
                 qPrintable(QString("compute %1 vs %2").arg(staged.computeTime).arg(whole.computeTime)));
        const double activations = staged.pipeline->chunks[0].activationBytes;
        QVERIFY(activations > 0);
        // Everything but the model states (kept activations, the working set) is one microbatch's.
        const double stagedLive = staged.peakMemory - staged.modelStates.total();
        const double wholeLive = whole.peakMemory - whole.modelStates.total();
        QVERIFY2(std::abs(4 * stagedLive / wholeLive - 1) < 0.15,
                 qPrintable(QString("%1 vs %2").arg(stagedLive).arg(wholeLive)));
        QCOMPARE(staged.modelStates.parameters, whole.modelStates.parameters);
        // The gradient all-reduces are the whole step's, once: the same bytes.
        double wholeBytes = 0, stagedBytes = 0;
        for (const auto& c : whole.collectives)
            wholeBytes += c.bytes;
        for (const auto& c : staged.collectives)
            stagedBytes += c.bytes;
        QCOMPARE(stagedBytes, wholeBytes);
        QVERIFY(staged.stepTime > whole.computeTime);
    }

    // PTD-P: the layers split evenly over the stages, each holding its own layers' model states; the first
    // stage keeps the most microbatches in flight under 1F1B, all of them under GPipe.
    void stagesHoldTheirLayers() {
        auto problem = problemOf(kGpt, "pipe=4,data=2,model=2");
        plan::Plan plan = expert(*problem, "ptd-p");
        QVERIFY(plan.pipeline);
        QCOMPARE(plan.pipeline->stages, 4);
        QCOMPARE(plan.microbatches, 16);  // microbatches of one sequence: 32 over 2 data ranks
        Evaluator evaluator(*problem->costModel);
        const Evaluation e = evaluator.evaluate(plan);
        QVERIFY(e.pipeline && e.pipeline->problem.empty());
        QCOMPARE(e.pipeline->chunks.size(), std::size_t{4});
        int layers = 0;
        for (const auto& chunk : e.pipeline->chunks) {
            QVERIFY(chunk.layers >= 1);
            layers += chunk.layers;
        }
        QCOMPARE(layers, 8);
        // Each stage holds a fraction of the parameters; together all of them.
        const Evaluation flat = evaluate(*problem->costModel, expert(*problem, "dp-tp"));
        double parameters = 0;
        for (const auto& stage : e.pipeline->stages) {
            QVERIFY(stage.modelStates.parameters < flat.modelStates.parameters);
            parameters += stage.modelStates.parameters;
        }
        QVERIFY2(std::abs(parameters / (flat.modelStates.parameters * 2) - 1) < 1e-9 ||
                     std::abs(parameters / flat.modelStates.parameters - 1) < 1e-9,
                 qPrintable(QString("%1 vs %2").arg(parameters).arg(flat.modelStates.parameters)));
        // A parameter's optimizer states sit on its stage: the same ratio to the parameters on the stages of
        // layers alone (an optimizer step that reads no gradient first, m·β1, once put every moment on the
        // last stage; the first and last stages share the tied embedding, whose states go with its gradient).
        const double ratio = flat.modelStates.optimizerState / flat.modelStates.parameters;
        for (std::size_t d = 1; d + 1 < e.pipeline->stages.size(); ++d) {
            const auto& states = e.pipeline->stages[d].modelStates;
            QVERIFY2(
                std::abs(states.optimizerState / states.parameters / ratio - 1) < 1e-6,
                qPrintable(
                    QString("stage %1: %2 vs %3").arg(d).arg(states.optimizerState).arg(states.parameters)));
        }
        QCOMPARE(e.pipeline->stages[0].inFlight, 4);
        QCOMPARE(e.pipeline->stages[3].inFlight, 1);
        plan.pipeline->schedule = plan::PipelineSchedule::GPipe;
        const Evaluation gpipe = evaluator.evaluate(plan);
        QCOMPARE(gpipe.pipeline->stages[0].inFlight, 16);
        QVERIFY(gpipe.pipeline->stages[0].atPeak.activations > 3 * e.pipeline->stages[0].atPeak.activations);
        // Point-to-point sends: one boundary activation per microbatch, [b/m, s, d] in 16 bits, split over
        // the model axis by sequence parallelism or not.
        const double boundary = 1.0 * 256 * 512 * 2;
        QVERIFY2(e.pipeline->chunks[0].sendBytes >= boundary / 2 &&
                     e.pipeline->chunks[0].sendBytes <= 2 * boundary,
                 qPrintable(QString::number(e.pipeline->chunks[0].sendBytes)));
        QCOMPARE(e.pipeline->chunks[3].sendBytes, 0.0);
    }

    // The interleaved schedule's measured advantage (Narayanan et al. 2021, Fig. 12) holds in the cost model:
    // with cheap transfers and few microbatches it is faster than 1F1B.
    void interleavedIsFasterAtSmallBatches() {
        auto problem = problemOf(kGpt, "pipe=4,data=2,model=2");
        plan::Plan plan = expert(*problem, "ptd-p");
        plan.microbatches = 4;
        Evaluator evaluator(*problem->costModel);
        const double plain = evaluator.evaluate(plan).stepTime;
        plan.pipeline->schedule = plan::PipelineSchedule::Interleaved;
        plan.pipeline->virtualStages = 2;
        const Evaluation interleaved = evaluator.evaluate(plan);
        QVERIFY(interleaved.pipeline->problem.empty());
        QVERIFY2(interleaved.stepTime < plain,
                 qPrintable(QString("interleaved %1 vs 1f1b %2").arg(interleaved.stepTime).arg(plain)));
    }

    void userSplitIsKept() {
        auto problem = problemOf(kGpt, "pipe=2,data=2");
        plan::Plan plan = expert(*problem, "fsdp-pp");
        plan.pipeline->layersPerStage = {2, 6};
        const Evaluation e = evaluate(*problem->costModel, plan);
        QCOMPARE(e.pipeline->chunks[0].layers, 2);
        QCOMPARE(e.pipeline->chunks[1].layers, 6);
        QCOMPARE(e.pipeline->chunks[1].firstLayer, 2);
        QVERIFY(e.pipeline->stages[1].busyTime > 2 * e.pipeline->stages[0].busyTime);
    }

    void unrunnablePlansSayWhy_data() {
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("message");
        QTest::newRow("stages")
            << "pipe=4,data=2"
            << R"({"axis": "pipe", "stages": 3})"
            << "a pipeline on axis pipe (size 4) needs 2 or more stages dividing its size, not 3";
        QTest::newRow("layers")
            << "pipe=16"
            << R"({"axis": "pipe"})"
            << "16 pipeline chunks (stages × virtual stages) are more than the model's 8 layers";
        QTest::newRow("interleaved")
            << "pipe=4"
            << R"({"axis": "pipe", "schedule": "interleaved", "virtual_stages": 2}, "microbatches": 6)"
            << "the interleaved schedule needs microbatches (6) divisible by the stages (4)";
        QTest::newRow("virtual") << "pipe=2"
                                 << R"({"axis": "pipe", "virtual_stages": 2})"
                                 << "virtual stages need the interleaved schedule, not 1f1b";
        QTest::newRow("split") << "pipe=2"
                               << R"({"axis": "pipe", "layers_per_stage": [3, 4]})"
                               << "the layer split covers 7 layers, but the model has 8";
        QTest::newRow("axis") << "pipe=2"
                              << R"({"axis": "stage"})"
                              << "pipeline: mesh pipe=2 has no axis 'stage'";
        QTest::newRow("microbatches") << "pipe=2"
                                      << R"({"axis": "pipe"}, "microbatches": 64)"
                                      << "64 microbatches are more than the batch of 32";
    }
    void unrunnablePlansSayWhy() {
        QFETCH(QString, mesh);
        QFETCH(QString, json);
        QFETCH(QString, message);
        auto problem = problemOf(kGpt, mesh.toStdString());
        const std::string text =
            R"({"format": "shardscope-plan", "version": 1, "decisions": [], "pipeline": )" +
            json.toStdString() + "}";
        const auto plan = plan::parsePlan(text, problem->costModel->planContext(), problem->mesh, "p.json");
        QVERIFY(!plan);
        QCOMPARE(QString::fromStdString(plan.diagnostics().front().message), "p.json: " + message);
    }

    // Four microbatches of a batch already split 16 ways over data cannot be made: the evaluation says so.
    void aBatchThatDoesNotDivideIsInfeasible() {
        auto problem = problemOf(kGpt, "data=16");
        plan::Plan dp = expert(*problem, "dp");
        dp.microbatches = 4;
        const Evaluation e = evaluate(*problem->costModel, dp);
        QVERIFY(!e.feasible);
        QVERIFY2(e.pipeline->problem.starts_with("the batch does not divide into 4 microbatches"),
                 e.pipeline->problem.c_str());
    }

    void plansRoundTripThroughJson() {
        auto problem = problemOf(kGpt, "pipe=4,data=2");
        plan::Plan plan = expert(*problem, "fsdp-pp");
        plan.pipeline->schedule = plan::PipelineSchedule::Interleaved;
        plan.pipeline->virtualStages = 2;
        plan.pipeline->layersPerStage = {1, 1, 1, 1, 1, 1, 1, 1};
        const auto& context = problem->costModel->planContext();
        const auto back =
            plan::parsePlan(plan::toJson(plan, context, problem->mesh), context, problem->mesh, "x");
        QVERIFY2(back, back ? "" : back.errorMessage().c_str());
        QCOMPARE(*back, plan);
        QCOMPARE(
            plan::pipelineText(plan, problem->mesh),
            std::string(
                "pipeline pipe: 4 stages, interleaved × 2 virtual, layers 1/1/1/1/1/1/1/1, 16 microbatches"));
    }

    // One evaluator reused over a walk of plans (decisions, stages, microbatches, schedules, splits, remat;
    // staged and not, one pipeline axis or another, runnable or not) gives each plan exactly what a fresh
    // evaluator gives it: nothing it keeps between plans (its microbatch models' evaluators, their op
    // records, the models' shared structure) goes stale.
    void aReusedEvaluatorMatchesFreshOnes() {
        auto problem = problemOf(kGpt, "pipe=4,data=2,model=2");
        const CostModel& model = *problem->costModel;
        const auto& space = problem->space;
        const auto& blocks = model.planContext().blocks();
        std::mt19937 random(5);
        plan::Plan plan = expert(*problem, "ptd-p");
        Evaluator reused(model);
        Evaluator applied(model);  // handed the plan applied, as the search does (cost::appliedPlan)
        int staged = 0, pipelined = 0, interleaved = 0, unrunnable = 0;
        for (int step = 0; step < 80; ++step) {
            const unsigned roll = random() % 10;
            if (roll < 2 && !plan.decisions.empty()) {
                plan.decisions.erase(plan.decisions.begin() +
                                     static_cast<std::ptrdiff_t>(random() % plan.decisions.size()));
            } else if (roll < 4 && !space.groups.empty()) {
                plan.decisions.push_back({plan::Decision::Target::Group,
                                          static_cast<std::uint32_t>(random() % space.groups.size()),
                                          static_cast<int>(random() % problem->mesh.axes.size())});
            } else if (roll < 5 && !blocks.blocks.empty()) {
                plan.remat.push_back({random() % 2 ? blocks.families[random() % blocks.families.size()]
                                                   : blocks.blocks[random() % blocks.blocks.size()],
                                      static_cast<plan::Remat>(random() % plan::kRematCount)});
            } else if (roll < 6) {
                plan.microbatches = 1 << (random() % 5);  // 1 to 16
            } else if (roll < 8) {
                plan::Pipeline pipeline;
                pipeline.axis = random() % 4 == 0 ? 1 : 0;  // the data axis now and then
                pipeline.stages = 2 << (random() % 2);      // 2 or 4: on the data axis 4 cannot run
                if (random() % 3 == 0) {
                    pipeline.schedule = plan::PipelineSchedule::Interleaved;
                    pipeline.virtualStages = 2;
                } else if (random() % 2 == 0) {
                    pipeline.schedule = plan::PipelineSchedule::GPipe;
                }
                if (random() % 4 == 0) {  // a split of the user's: one layer per chunk but the last
                    const int chunks = pipeline.stages * pipeline.virtualStages;
                    pipeline.layersPerStage.assign(static_cast<std::size_t>(chunks), 1);
                    pipeline.layersPerStage.back() = 8 - (chunks - 1);
                }
                plan.pipeline = pipeline;
                plan.microbatches = std::max(plan.microbatches, 2 * pipeline.stages);
            } else if (roll < 9) {
                plan.pipeline.reset();
            } else {
                plan.remat.clear();
            }
            const Evaluation& a = reused.evaluate(plan);
            Evaluator fresh(model);
            const Evaluation& b = fresh.evaluate(plan);
            const std::string diff = difference(a, b);
            QVERIFY2(diff.empty(),
                     qPrintable(QString("step %1: %2").arg(step).arg(QString::fromStdString(diff))));
            const std::string appliedDiff = difference(applied.evaluate(plan, appliedPlan(model, plan)), b);
            QVERIFY2(appliedDiff.empty(),
                     qPrintable(
                         QString("step %1, applied: %2").arg(step).arg(QString::fromStdString(appliedDiff))));
            for (std::size_t i = 0; i < model.graph().body.size(); i += 97) {
                const auto &x = reused.execution(i), &y = fresh.execution(i);
                QVERIFY(x.factorAxes == y.factorAxes && x.computeTime == y.computeTime &&
                        x.temporaryBytes == y.temporaryBytes);
                QCOMPARE(reused.liveAt(i).total(), fresh.liveAt(i).total());
            }
            for (std::size_t v = 0; v < model.graph().values.size(); v += 89) {
                const ir::ValueId value{static_cast<std::uint32_t>(v)};
                QVERIFY(reused.sharding(value) == fresh.sharding(value));
                QCOMPARE(reused.localBytes(value), fresh.localBytes(value));
            }
            if (a.pipeline) {
                ++staged;
                pipelined += a.pipeline->pipeline.has_value();
                interleaved += a.pipeline->pipeline && a.pipeline->pipeline->virtualStages > 1;
                unrunnable += !a.pipeline->problem.empty();
            }
        }
        // The walk went where it should: staged plans of every kind, and plans that are not staged.
        QVERIFY2(staged > 20 && staged < 80, qPrintable(QString::number(staged)));
        QVERIFY2(pipelined > 10 && interleaved > 2 && unrunnable > 0,
                 qPrintable(QString("%1 %2 %3").arg(pipelined).arg(interleaved).arg(unrunnable)));
    }

    // A microbatch model is the same graph on another mesh: it shares the model's structure (its op classes
    // among it) on one stage's devices, the microbatches an axis of their own.
    void microbatchModelsShareTheStructure() {
        auto problem = problemOf(kGpt, "pipe=4,data=2,model=2");
        const CostModel& model = *problem->costModel;
        const CostModel& micro = model.microbatchModel(0, 4, 8);
        QCOMPARE(&micro, &model.microbatchModel(0, 4, 8));
        QCOMPARE(&micro.graph(), &model.graph());
        QCOMPARE(micro.opClasses().classes, model.opClasses().classes);
        QCOMPARE(micro.opClasses().ops, model.opClasses().ops);
        QCOMPARE(micro.mesh().axes.size(), model.mesh().axes.size() + 1);
        QCOMPARE(micro.mesh().axes.front().size, 1);
        QCOMPARE(micro.mesh().axes.back().size, 8);
        // The same FLOPs over 2·2·8 devices rather than 4·2·2.
        QCOMPARE(micro.lowerBoundTime(), model.lowerBoundTime() / 2);
    }

    void expertsNeedAPipelineAxis() {
        auto problem = problemOf(kGpt, "data=2,model=2");
        const auto plan = plan::expertPlan("ptd-p", problem->costModel->planContext(), problem->mesh);
        QVERIFY(!plan);
        QCOMPARE(plan.diagnostics().front().message,
                 std::string("expert plan 'ptd-p': 'ptd-p' needs a pipeline axis: name one pipe "
                             "(e.g. data=8,pipe=4,model=8) or write ptd-p@AXIS"));
        const auto onData =
            plan::expertPlan("zero1+pp@data", problem->costModel->planContext(), problem->mesh);
        QVERIFY2(onData, onData ? "" : onData.errorMessage().c_str());
        QCOMPARE(onData->pipeline->axis, 0);
    }
};

QTEST_APPLESS_MAIN(TestPipeline)
#include "tst_pipeline.moc"
