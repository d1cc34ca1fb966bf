// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Layer classes (docs/cost-model.md "Op classes"): an evaluator that prices one op of each class per local
// sharding and gives its copies that price returns exactly what an evaluator that prices every op returns, on
// every zoo family's training step and on the shared models with repeated layers, for the expert plans and
// random plans (decisions, remat of single blocks, pipelines and microbatches). The number of classes does
// not grow with the depth.
#include <QtTest>
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "problem_support.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/zoo/zoo.h"
#include "test_paths.h"

using namespace shardscope;

namespace {

// Every field of two evaluations, exactly: the shared price is the same arithmetic on the same inputs.
QString difference(const cost::Evaluation& a, const cost::Evaluation& b) {
    auto differs = [](const char* field) { return QString::fromLatin1(field); };
    if (a.stepTime != b.stepTime)
        return differs("stepTime") + QStringLiteral(" %1 != %2").arg(a.stepTime).arg(b.stepTime);
    if (a.computeTime != b.computeTime)
        return differs("computeTime");
    if (a.collectiveTime != b.collectiveTime)
        return differs("collectiveTime");
    if (a.peakMemory != b.peakMemory)
        return differs("peakMemory") + QStringLiteral(" %1 != %2").arg(a.peakMemory).arg(b.peakMemory);
    if (a.peakOp != b.peakOp)
        return differs("peakOp");
    if (a.feasible != b.feasible)
        return differs("feasible");
    if (!(a.collectives == b.collectives))
        return differs("collectives");
    if (a.opComputeTime != b.opComputeTime)
        return differs("opComputeTime");
    if (a.opStart != b.opStart)
        return differs("opStart");
    if (a.collectiveStart != b.collectiveStart || a.collectiveEnd != b.collectiveEnd)
        return differs("collective times");
    if (a.atPeak.total() != b.atPeak.total() || a.atPeak.activations != b.atPeak.activations ||
        a.atPeak.temporaries != b.atPeak.temporaries)
        return differs("atPeak");
    if (a.modelStates.total() != b.modelStates.total())
        return differs("modelStates");
    if (a.pipeline.has_value() != b.pipeline.has_value())
        return differs("pipeline");
    return {};
}

// Random plans for `problem`: decisions on groups and on single names, remat of single blocks and of
// families, sometimes a pipeline with microbatches on the first axis. Seeded, so a failure reproduces.
class PlanWalk {
public:
    PlanWalk(const Problem& problem, unsigned seed) : problem_(problem), random_(seed) {}

    plan::Plan next() {
        const auto& space = problem_.space;
        const auto& blocks = problem_.costModel->planContext().blocks();
        const auto axes = static_cast<unsigned>(problem_.mesh.axes.size());
        const unsigned roll = random_() % 8;
        if (roll < 2 && !plan_.decisions.empty()) {
            plan_.decisions.erase(plan_.decisions.begin() +
                                  static_cast<std::ptrdiff_t>(random_() % plan_.decisions.size()));
        } else if (roll < 4 && !space.groups.empty()) {
            plan_.decisions.push_back({plan::Decision::Target::Group,
                                       static_cast<std::uint32_t>(random_() % space.groups.size()),
                                       static_cast<int>(random_() % axes)});
        } else if (roll < 5 && !space.names.empty()) {
            // A single name: one layer decided unlike its copies, so that the ops of a class hold records
            // for several shardings at once.
            plan_.decisions.push_back({plan::Decision::Target::Name,
                                       static_cast<std::uint32_t>(random_() % space.names.size()),
                                       static_cast<int>(random_() % axes)});
        } else if (roll < 7 && !blocks.blocks.empty()) {
            const auto policy = static_cast<plan::Remat>(random_() % plan::kRematCount);
            const bool family = random_() % 3 == 0;
            plan_.remat.push_back({family ? blocks.families[random_() % blocks.families.size()]
                                          : blocks.blocks[random_() % blocks.blocks.size()],
                                   policy});
        } else if (plan_.pipeline || plan_.microbatches > 1) {
            plan_.pipeline.reset();
            plan_.microbatches = 1;
        } else {
            plan_.microbatches = 2;
            if (random_() % 2 == 0 && problem_.mesh.axes.front().size % 2 == 0) {
                plan_.pipeline = plan::Pipeline{};
                plan_.pipeline->stages = 2;
            }
        }
        return plan_;
    }

private:
    const Problem& problem_;
    std::mt19937 random_;
    plan::Plan plan_;
};

struct Counts {
    std::size_t recosted = 0, priced = 0, evaluations = 0, kernelsPriced = 0, perOpKernelsPriced = 0;
};

// Evaluates the experts and `randomPlans` random plans with a sharing evaluator (incrementally, as the
// search does) and a per-op one (afresh each time), and compares them.
Counts compareOn(const Problem& problem, const std::string& label, int randomPlans) {
    Counts counts;
    cost::Evaluator shared(*problem.costModel);
    cost::Evaluator perOp(*problem.costModel, cost::EvaluatorOptions{.shareOpClasses = false});
    const auto& graph = problem.costModel->graph();
    auto check = [&](const plan::Plan& plan, const std::string& what) {
        const cost::Evaluation& a = shared.evaluate(plan);
        counts.recosted += shared.opsRecosted();
        counts.priced += shared.opsPriced();
        counts.kernelsPriced += shared.kernelsPriced();
        ++counts.evaluations;
        perOp.reset();
        const cost::Evaluation& b = perOp.evaluate(plan);
        counts.perOpKernelsPriced += perOp.kernelsPriced();
        if (perOp.opsPriced() != perOp.opsRecosted())
            return QStringLiteral("the per-op evaluator shared prices");
        QString diff = difference(a, b);
        for (std::size_t i = 0; diff.isEmpty() && i < graph.body.size(); ++i) {
            const auto &x = shared.execution(i), &y = perOp.execution(i);
            if (x.factorAxes != y.factorAxes || x.flops != y.flops || x.computeTime != y.computeTime ||
                x.temporaryBytes != y.temporaryBytes)
                diff = QStringLiteral("execution of op %1").arg(i);
        }
        if (!diff.isEmpty())
            return QString::fromStdString(label + ", " + what + ": ") + diff;
        return QString();
    };
    for (const auto& expert : plan::expertPlans()) {
        auto plan = plan::expertPlan(expert.id, problem.costModel->planContext(), problem.mesh);
        if (!plan)
            continue;  // an expert this model or mesh cannot take (dp-tp on one axis, ep without experts)
        const QString diff = check(*plan, "expert " + expert.id);
        if (!diff.isEmpty())
            qFatal("%s", qPrintable(diff));
    }
    PlanWalk walk(problem, 11);
    for (int i = 0; i < randomPlans; ++i) {
        const plan::Plan plan = walk.next();
        const QString diff = check(plan, "random plan " + std::to_string(i));
        if (!diff.isEmpty())
            qFatal("%s", qPrintable(diff));
    }
    return counts;
}

}  // namespace

using shardscope::testing::hasOption;

class TestOpClasses : public QObject {
    Q_OBJECT

private slots:
    // Every family's training step, with four layers where it has layers (the MoE with a dense first layer
    // and experts every other layer, so that layers differ), on a two-axis mesh.
    void everyZooFamily() {
        for (const auto& family : zoo::families()) {
            std::string model = "zoo:" + family.name;
            std::string options;
            auto add = [&](const std::string& option) { options += (options.empty() ? ":" : ",") + option; };
            if (hasOption(family, "layers"))
                add("layers=4");
            if (hasOption(family, "batch"))
                add("batch=8");
            if (hasOption(family, "dtype"))
                add("dtype=bf16");
            if (hasOption(family, "dense_layers"))
                add("dense_layers=1,moe_every=2");
            model += options;
            const auto problem = shardscope::testing::trainingProblem(model, "data=2,model=4");
            const Counts counts = compareOn(*problem, model, 60);
            const auto classes = problem->costModel->opClasses();
            qInfo(
                "%s: %zu ops, %zu in %zu classes; %zu evaluations re-costed %zu ops, priced %zu, and "
                "priced %zu kernels (%zu afresh)",
                model.c_str(), problem->costModel->graph().body.size(), classes.ops, classes.classes,
                counts.evaluations, counts.recosted, counts.priced, counts.kernelsPriced,
                counts.perOpKernelsPriced);
            if (hasOption(family, "layers")) {
                QVERIFY2(classes.ops > classes.classes, model.c_str());
                QVERIFY2(counts.priced < counts.recosted, model.c_str());  // prices were shared
                QVERIFY2(counts.kernelsPriced < counts.perOpKernelsPriced, model.c_str());
            }
        }
    }

    // Layers decided alike are priced once: deeper models add ops to the classes, not classes; a full
    // evaluation prices (roughly) one layer's ops and kernels however deep the model is, and an evaluation
    // after one decision prices again only kernels whose ops changed sharding.
    void classesDoNotGrowWithDepth() {
        std::vector<std::size_t> classes, priced, kernels;
        for (int layers : {4, 8, 16}) {
            const auto problem =
                shardscope::testing::trainingProblem("zoo:gpt:layers=" + std::to_string(layers) +
                                                         ",d_model=256,heads=4,seq=128,batch=8,vocab=1024",
                                                     "data=2,model=4");
            classes.push_back(problem->costModel->opClasses().classes);
            cost::Evaluator evaluator(*problem->costModel);
            plan::Plan plan = shardscope::testing::expertOf(*problem, "dp-tp");
            evaluator.evaluate(plan);
            priced.push_back(evaluator.opsPriced());
            kernels.push_back(evaluator.kernelsPriced());
            qInfo("gpt, %d layers: %zu ops, %zu classes, a full evaluation prices %zu ops and %zu kernels",
                  layers, problem->costModel->graph().body.size(), classes.back(), priced.back(),
                  kernels.back());
            // One decision fewer: only kernels whose ops changed sharding are priced again, once per class.
            QVERIFY(!plan.decisions.empty());
            plan.decisions.erase(plan.decisions.begin());
            evaluator.evaluate(plan);
            QVERIFY(evaluator.kernelsPriced() > 0);
            QVERIFY(evaluator.kernelsPriced() <= kernels.back());
            evaluator.evaluate(plan);
            QCOMPARE(evaluator.kernelsPriced(), std::size_t{0});
        }
        QCOMPARE(classes[1], classes[0]);
        QCOMPARE(classes[2], classes[0]);
        QCOMPARE(priced[2], priced[0]);
        QCOMPARE(kernels[2], kernels[0]);
    }

    // Imported models with repeated layers (../shared/models): BERT from PyTorch/XLA, a 12-layer ONNX
    // transformer encoder, ViT-B/16 and ResNet-50.
    void sharedModels() {
        const QString dir = shardscope::testing::sharedDir() + QStringLiteral("/models/");
        if (!QFileInfo::exists(dir))
            QSKIP("../shared/models is absent (a user's clone has no ../shared)");
        for (const char* file : {"stablehlo/pt_bert.mlir", "onnx/transformer_encoder12.onnx",
                                 "onnx/vit_b_16.onnx", "stablehlo/jax_resnet_50.mlir"}) {
            const std::string path = (dir + QLatin1String(file)).toStdString();
            const auto problem =
                shardscope::testing::trainingProblem(path, "data=2,model=4", false);  // f32 exports
            const Counts counts = compareOn(*problem, file, 25);
            const auto classes = problem->costModel->opClasses();
            qInfo("%s: %zu ops, %zu in %zu classes; %zu evaluations re-costed %zu ops, priced %zu", file,
                  problem->costModel->graph().body.size(), classes.ops, classes.classes, counts.evaluations,
                  counts.recosted, counts.priced);
            QVERIFY2(counts.priced < counts.recosted, file);
        }
    }
};

QTEST_GUILESS_MAIN(TestOpClasses)
#include "tst_op_classes.moc"
