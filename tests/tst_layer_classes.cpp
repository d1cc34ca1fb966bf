// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Layer classes (docs/cost-model.md "Layer classes"): a plan that decides a model's alike layers alike,
// priced on two shallow copies of the model and extrapolated to its depth, gets the full evaluation's step
// time, memory and feasibility (to rounding) on every zoo family's training step and on the shared models
// with repeated layers, in microbatches and through pipelines too (then also each chunk's and device's
// figures); plans that decide the layers the copies leave out differently are evaluated in full; the copies
// do not grow with the depth.
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "problem_support.h"
#include "shardscope/analysis/layer_repeat.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/ir/verifier.h"
#include "shardscope/zoo/zoo.h"
#include "test_paths.h"

using namespace shardscope;
using enum cost::EvaluatorOptions::LayerClasses;

namespace {

// Relative difference, as rounding leaves it between an extrapolation and a sum over every layer.
bool close(double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max({std::abs(a), std::abs(b), 1e-30});
}

QString difference(const cost::Evaluation& a, const cost::Evaluation& b) {
    const auto field = [](const char* name, double x, double y) {
        return QStringLiteral("%1 %2 != %3").arg(QLatin1String(name)).arg(x, 0, 'g', 17).arg(y, 0, 'g', 17);
    };
    if (!close(a.stepTime, b.stepTime))
        return field("stepTime", a.stepTime, b.stepTime);
    if (!close(a.computeTime, b.computeTime))
        return field("computeTime", a.computeTime, b.computeTime);
    if (!close(a.collectiveTime, b.collectiveTime))
        return field("collectiveTime", a.collectiveTime, b.collectiveTime);
    if (!close(a.peakMemory, b.peakMemory))
        return field("peakMemory", a.peakMemory, b.peakMemory);
    if (!close(a.atPeak.total(), b.atPeak.total()))
        return field("atPeak", a.atPeak.total(), b.atPeak.total());
    if (!close(a.modelStates.total(), b.modelStates.total()))
        return field("modelStates", a.modelStates.total(), b.modelStates.total());
    if (a.feasible != b.feasible)
        return QStringLiteral("feasible");
    if (a.pipeline.has_value() != b.pipeline.has_value())
        return QStringLiteral("staged");
    if (!a.pipeline)
        return {};
    const cost::PipelineEvaluation& x = *a.pipeline;
    const cost::PipelineEvaluation& y = *b.pipeline;
    if (x.problem != y.problem)
        return QStringLiteral("problem '%1' != '%2'")
            .arg(QString::fromStdString(x.problem), QString::fromStdString(y.problem));
    if (!close(x.bubbleFraction, y.bubbleFraction))
        return field("bubbleFraction", x.bubbleFraction, y.bubbleFraction);
    if (!close(x.microbatchTime, y.microbatchTime))
        return field("microbatchTime", x.microbatchTime, y.microbatchTime);
    if (x.chunks.size() != y.chunks.size() || x.stages.size() != y.stages.size() ||
        x.tasks.size() != y.tasks.size())
        return QStringLiteral("chunks, stages or tasks");
    for (std::size_t c = 0; c < x.chunks.size(); ++c) {
        const auto& p = x.chunks[c];
        const auto& q = y.chunks[c];
        if (p.firstLayer != q.firstLayer || p.layers != q.layers)
            return QStringLiteral("chunk %1's layers").arg(c);
        for (const auto& [name, u, v] :
             {std::tuple{"forwardTime", p.forwardTime, q.forwardTime},
              std::tuple{"backwardTime", p.backwardTime, q.backwardTime},
              std::tuple{"sendBytes", p.sendBytes, q.sendBytes},
              std::tuple{"sendTime", p.sendTime, q.sendTime},
              std::tuple{"gradientSyncTime", p.gradientSyncTime, q.gradientSyncTime},
              std::tuple{"updateTime", p.updateTime, q.updateTime},
              std::tuple{"activationBytes", p.activationBytes, q.activationBytes}})
            if (!close(u, v))
                return QStringLiteral("chunk %1: ").arg(c) + field(name, u, v);
    }
    for (std::size_t d = 0; d < x.stages.size(); ++d)
        if (!close(x.stages[d].peakMemory, y.stages[d].peakMemory) ||
            !close(x.stages[d].busyTime, y.stages[d].busyTime) || !close(x.stages[d].end, y.stages[d].end) ||
            !close(x.stages[d].modelStates.total(), y.stages[d].modelStates.total()) ||
            x.stages[d].inFlight != y.stages[d].inFlight)
            return QStringLiteral("stage %1").arg(d);
    return {};
}

// Random plans: decisions on groups and on single names, remat of whole families and of single blocks.
// Seeded, so a failure reproduces.
class UniformWalk {
public:
    UniformWalk(const Problem& problem, unsigned seed) : problem_(problem), random_(seed) {}

    plan::Plan next() {
        const auto& space = problem_.space;
        const auto& families = problem_.costModel->planContext().blocks().families;
        const auto axes = static_cast<unsigned>(problem_.mesh.axes.size());
        const auto& blocks = problem_.costModel->planContext().blocks().blocks;
        const unsigned roll = random_() % 8;
        if (roll < 2 && !plan_.decisions.empty()) {
            plan_.decisions.erase(plan_.decisions.begin() +
                                  static_cast<std::ptrdiff_t>(random_() % plan_.decisions.size()));
        } else if (roll < 4 && !space.groups.empty()) {
            plan_.decisions.push_back({plan::Decision::Target::Group,
                                       static_cast<std::uint32_t>(random_() % space.groups.size()),
                                       static_cast<int>(random_() % axes)});
        } else if (roll < 5 && !families.empty()) {
            plan_.remat.clear();
            plan_.remat.push_back({families[random_() % families.size()],
                                   static_cast<plan::Remat>(random_() % plan::kRematCount)});
        } else if (roll == 5 && !plan_.decisions.empty()) {
            std::swap(plan_.decisions.front(), plan_.decisions[random_() % plan_.decisions.size()]);
        } else if (roll == 6 && !space.names.empty()) {
            // One name (of one layer, mostly): the copies price it when it is a layer they keep.
            plan_.decisions.push_back({plan::Decision::Target::Name,
                                       static_cast<std::uint32_t>(random_() % space.names.size()),
                                       static_cast<int>(random_() % axes)});
        } else if (roll == 7 && !blocks.empty()) {
            plan_.remat.push_back(
                {blocks[random_() % blocks.size()], static_cast<plan::Remat>(random_() % plan::kRematCount)});
        }
        return plan_;
    }

private:
    const Problem& problem_;
    std::mt19937 random_;
    plan::Plan plan_;
};

struct Counts {
    std::size_t plans = 0, fromLayerClasses = 0;
    std::size_t pipelines = 0;  // of those, runnable plans through a pipeline
};

// Evaluates the experts (with each remat policy on the first family) and `randomPlans` random uniform plans
// with a layer-class evaluator (incrementally, as the search does) and a full one, and compares them.
Counts compareOn(const Problem& problem, const std::string& label, int randomPlans) {
    Counts counts;
    cost::Evaluator classes(*problem.costModel, cost::EvaluatorOptions{.layerClasses = Always});
    cost::Evaluator full(*problem.costModel);
    auto check = [&](const plan::Plan& plan, const std::string& what) {
        // (A plan the copies cannot price falls back to a full evaluation: compared too.)
        const cost::Evaluation& a = classes.evaluate(plan);
        ++counts.plans;
        if (a.fromLayerClasses) {
            ++counts.fromLayerClasses;
            counts.pipelines += a.pipeline && a.pipeline->pipeline && a.pipeline->problem.empty() ? 1 : 0;
        }
        const QString diff = difference(a, full.evaluate(plan));
        if (!diff.isEmpty())
            qFatal("%s, %s: %s", label.c_str(), what.c_str(), qPrintable(diff));
    };
    const auto& families = problem.costModel->planContext().blocks().families;
    for (const auto& expert : plan::expertPlans()) {
        auto plan = plan::expertPlan(expert.id, problem.costModel->planContext(), problem.mesh);
        if (!plan)
            continue;  // an expert this model or mesh cannot take
        check(*plan, "expert " + expert.id);
        for (int policy = 1; policy < plan::kRematCount && !families.empty(); ++policy) {
            plan::Plan variant = *plan;
            variant.remat = {{families.front(), static_cast<plan::Remat>(policy)}};
            check(variant, "expert " + expert.id + " remat " + std::to_string(policy));
        }
    }
    UniformWalk walk(problem, 7);
    for (int i = 0; i < randomPlans; ++i)
        check(walk.next(), "random plan " + std::to_string(i));
    // Staged: the experts in microbatches, and through pipelines on each axis (1F1B, GPipe, interleaved).
    const auto& mesh = problem.mesh;
    for (const auto& expert : plan::expertPlans()) {
        auto plan = plan::expertPlan(expert.id, problem.costModel->planContext(), mesh);
        if (!plan || plan->pipeline || plan->microbatches != 1)
            continue;
        plan::Plan micro = *plan;
        micro.microbatches = 4;
        check(micro, "expert " + expert.id + " in 4 microbatches");
        for (std::size_t axis = 0; axis < mesh.axes.size(); ++axis) {
            const int stages = static_cast<int>(mesh.axes[axis].size);
            for (const auto& [schedule, virtualStages] :
                 {std::pair{plan::PipelineSchedule::OneFOneB, 1}, std::pair{plan::PipelineSchedule::GPipe, 1},
                  std::pair{plan::PipelineSchedule::Interleaved, 2}}) {
                plan::Plan piped = *plan;
                piped.microbatches = 2 * stages;
                piped.pipeline = plan::Pipeline{static_cast<int>(axis), stages, schedule, virtualStages, {}};
                check(piped, "expert " + expert.id + " pipelined over axis " + std::to_string(axis) + " (" +
                                 std::string(plan::toString(schedule)) + ")");
            }
        }
    }
    return counts;
}

}  // namespace

using shardscope::testing::hasOption;

class TestLayerClasses : public QObject {
    Q_OBJECT

private slots:
    // A model's repeated layers and its shallow copies: the copies leave out whole periods of alike layers,
    // are valid graphs, and their sizes grow by one period's ops from the first to the second.
    void shallowCopies() {
        const auto problem = shardscope::testing::trainingProblem(
            "zoo:gpt:layers=12,d_model=256,heads=4,seq=128,batch=8,vocab=1024", "data=2,model=4");
        const auto& graph = problem->costModel->graph();
        const auto& blocks = problem->costModel->planContext().blocks();
        const auto repeat = analysis::layerRepeat(graph, blocks);
        QVERIFY(repeat);
        QCOMPARE(repeat->period, std::size_t{1});
        QVERIFY(repeat->gapEnd - repeat->gapStart >= 2);
        QVERIFY(repeat->gapStart >= 1 && repeat->gapEnd < blocks.blocks.size());
        const auto first = analysis::shallowGraph(graph, blocks, *repeat, 0);
        const auto second = analysis::shallowGraph(graph, blocks, *repeat, 1);
        for (const auto* copy : {&first, &second}) {
            const Status verified = ir::verifyGraph(copy->graph);
            QVERIFY2(verified.ok(), verified.ok() ? "" : verified.errorMessage().c_str());
            QCOMPARE(copy->fullBody.size(), copy->graph.body.size());
            QVERIFY(std::is_sorted(copy->fullBody.begin(), copy->fullBody.end()));
        }
        QCOMPARE(first.blocksLeftOut, repeat->gapEnd - repeat->gapStart);
        QCOMPARE(second.blocksLeftOut + repeat->period, first.blocksLeftOut);
        const std::size_t perPeriod = second.graph.body.size() - first.graph.body.size();
        QVERIFY(perPeriod > 0);
        QCOMPARE(graph.body.size(), first.graph.body.size() + first.blocksLeftOut * perPeriod);
        // Fewer parameters, as many kinds of them: the copies' analyses have the model's groups.
        QVERIFY(first.graph.arguments.size() < second.graph.arguments.size());
        const auto* copies = problem->costModel->shallowCopies();
        QVERIFY(copies);
        QCOMPARE(copies->copies[0].space.groups.size(), problem->space.groups.size());
        QVERIFY(!copies->pays);  // 12 layers: the copies have 7 of them
        cost::Evaluator evaluator(*problem->costModel, cost::EvaluatorOptions{.layerClasses = WherePaying});
        QVERIFY(!evaluator.evaluate(shardscope::testing::expertOf(*problem, "dp-tp")).fromLayerClasses);
    }

    // The copies are as deep whatever the model's depth: their evaluation does not grow with it.
    void copiesDoNotGrowWithDepth() {
        std::vector<std::size_t> sizes;
        for (int layers : {8, 16, 48}) {
            const auto problem =
                shardscope::testing::trainingProblem("zoo:gpt:layers=" + std::to_string(layers) +
                                                         ",d_model=256,heads=4,seq=128,batch=8,vocab=1024",
                                                     "data=2,model=4");
            const auto* copies = problem->costModel->shallowCopies();
            QVERIFY(copies);
            sizes.push_back(copies->copies[1].shallow.graph.body.size());
            qInfo("gpt, %d layers: %zu ops; the copies %zu and %zu ops, %g periods left out", layers,
                  problem->costModel->graph().body.size(), copies->copies[0].shallow.graph.body.size(),
                  sizes.back(), copies->periods);
        }
        QCOMPARE(sizes[1], sizes[0]);
        QCOMPARE(sizes[2], sizes[0]);
        // And from some depth on they pay.
        const auto deep = shardscope::testing::trainingProblem(
            "zoo:gpt:layers=48,d_model=256,heads=4,seq=128,batch=8,vocab=1024", "data=2,model=4");
        QVERIFY(deep->costModel->shallowCopies()->pays);
    }

    // Every family's training step with 24 layers where it has layers (deep enough for the copies to pay; the
    // MoE with 48, a dense first layer and experts every other layer, so that the layers repeat with a period
    // of two), on a two-axis mesh.
    void everyZooFamily() {
        for (const auto& family : zoo::families()) {
            if (!hasOption(family, "layers"))
                continue;
            // A period of two needs more layers for a gap of two periods between a period kept on each side.
            const bool hybrid = hasOption(family, "dense_layers");
            std::string model = "zoo:" + family.name + (hybrid ? ":layers=48" : ":layers=24");
            if (hasOption(family, "batch"))
                model += ",batch=8";
            if (hasOption(family, "dtype"))
                model += ",dtype=bf16";
            if (hybrid)
                model += ",dense_layers=1,moe_every=2";
            const auto problem = shardscope::testing::trainingProblem(model, "data=2,model=4");
            const Counts counts = compareOn(*problem, model, 40);
            const auto* copies = problem->costModel->shallowCopies();
            qInfo(
                "%s: %zu ops, copies of %zu and %zu ops; %zu of %zu plans priced from layer classes (%zu "
                "through a pipeline)",
                model.c_str(), problem->costModel->graph().body.size(),
                copies ? copies->copies[0].shallow.graph.body.size() : 0,
                copies ? copies->copies[1].shallow.graph.body.size() : 0, counts.fromLayerClasses,
                counts.plans, counts.pipelines);
            if (copies) {
                QVERIFY2(counts.fromLayerClasses > 0, model.c_str());
                QVERIFY2(counts.pipelines > 0, model.c_str());
            }
        }
    }

    // Plans that decide the layers the copies leave out differently from one another are evaluated in full: a
    // decision on one of those layers' names, the remat of one of their blocks. The same on a layer the
    // copies keep (the first) is priced from the copies, as are microbatches.
    void layersDecidedDifferently() {
        const auto problem = shardscope::testing::trainingProblem(
            "zoo:gpt:layers=24,d_model=256,heads=4,seq=128,batch=8,vocab=1024", "data=2,model=4");
        const auto& model = *problem->costModel;
        cost::Evaluator evaluator(model, cost::EvaluatorOptions{.layerClasses = WherePaying});
        const plan::Plan expert = shardscope::testing::expertOf(*problem, "dp-tp");
        QVERIFY(evaluator.evaluate(expert).fromLayerClasses);
        const auto& space = problem->space;
        const auto onLayer = [&](int layer, bool fromCopies) {
            const std::string prefix = "layers." + std::to_string(layer) + ".";
            // A name of the layer's that is not alone in its group (the attention heads' or the MLP's).
            const auto name =
                std::find_if(space.names.begin(), space.names.end(), [&](const analysis::Name& n) {
                    return n.label.rfind(prefix, 0) == 0 && space.group(n.group).names.size() > 1;
                });
            QVERIFY(name != space.names.end());
            plan::Plan oneName = expert;
            oneName.decisions.push_back(
                {plan::Decision::Target::Name, static_cast<std::uint32_t>(name - space.names.begin()), 1});
            plan::Plan oneBlock = expert;
            oneBlock.remat = {{"layers." + std::to_string(layer), plan::Remat::Full}};
            for (const auto* plan : {&oneName, &oneBlock}) {
                const cost::Evaluation& e = evaluator.evaluate(*plan);
                QCOMPARE(e.fromLayerClasses, fromCopies);
                QVERIFY(difference(e, cost::evaluate(model, *plan)).isEmpty());
            }
        };
        onLayer(12, false);
        onLayer(0, true);
        onLayer(23, true);
        // Microbatches and pipelines are priced from layer classes too (compareOn checks them).
        plan::Plan microbatches = expert;
        microbatches.microbatches = 2;
        const cost::Evaluation& staged = evaluator.evaluate(microbatches);
        QVERIFY(staged.fromLayerClasses && staged.pipeline);
        QVERIFY(difference(staged, cost::evaluate(model, microbatches)).isEmpty());
        // And back: the full evaluations in between leave the layer classes as they were.
        const cost::Evaluation& again = evaluator.evaluate(expert);
        QVERIFY(again.fromLayerClasses);
        QVERIFY(difference(again, cost::evaluate(model, expert)).isEmpty());
    }

    // Imported models with repeated layers (../shared/models): BERT from PyTorch/XLA, a 12-layer ONNX
    // transformer encoder, ViT-B/16 and ConvNeXt-T (whose third stage's nine blocks repeat), priced from
    // their copies (always, though they do not pay at this depth) as in full. Their names without a role
    // are numbered ("N17") differently in the copies: groups map by their atoms, not their labels.
    void sharedModels() {
        const QString dir = shardscope::testing::sharedDir() + QStringLiteral("/models/");
        if (!QFileInfo::exists(dir))
            QSKIP("../shared/models is absent (a user's clone has no ../shared)");
        for (const char* file : {"stablehlo/pt_bert.mlir", "onnx/transformer_encoder12.onnx",
                                 "onnx/vit_b_16.onnx", "onnx/convnext_tiny.onnx"}) {
            const std::string path = (dir + QLatin1String(file)).toStdString();
            const auto problem =
                shardscope::testing::trainingProblem(path, "data=2,model=4", false);  // f32 exports
            const auto& graph = problem->costModel->graph();
            QVERIFY2(analysis::layerRepeat(graph, problem->costModel->planContext().blocks()), file);
            const Counts counts = compareOn(*problem, file, 25);
            std::string why;
            const auto* copies = problem->costModel->shallowCopies(&why);
            qInfo(
                "%s: %zu ops, copies of %zu and %zu ops (%zu kernels growing with the depth); %zu of %zu "
                "plans priced from layer classes (%zu through a pipeline)%s%s",
                file, graph.body.size(), copies ? copies->copies[0].shallow.graph.body.size() : 0,
                copies ? copies->copies[1].shallow.graph.body.size() : 0, copies ? copies->grownKernels : 0,
                counts.fromLayerClasses, counts.plans, counts.pipelines, copies ? "" : ": ", why.c_str());
            QVERIFY2(copies, why.c_str());
            QVERIFY2(counts.fromLayerClasses > 0, file);
            // Each has a tensor every layer reads (the ONNX exporter keeps one copy of equal initializers,
            // and the layers' initial weights are equal), whose gradient sums every layer's contribution in
            // one kernel: the copies price it as the model does.
            QVERIFY2(copies->grownKernels > 0, file);
        }
    }
};

QTEST_GUILESS_MAIN(TestLayerClasses)
#include "tst_layer_classes.moc"
