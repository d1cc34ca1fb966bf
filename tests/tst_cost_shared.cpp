// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The cost model on real exports nobody here wrote (../shared/models): fused attention is recognised in every
// transformer, whatever produced it (JAX, PyTorch/XLA, the ONNX exporter), once per attention layer, and in
// no CNN; pricing it as flash attention never makes the training step slower than pricing its ops.
#include <QtTest>

#include "test_paths.h"

#include "shardscope/session/problem.h"

using namespace shardscope;

class TestCostShared : public QObject {
    Q_OBJECT

private slots:
    void attentionIsRecognisedInRealExports_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("attentions");  // the architecture's attention layers
        QTest::newRow("pt_bert (PyTorch/XLA, BERT base)") << "stablehlo/pt_bert.mlir" << 12;
        QTest::newRow("searchless_chess_9m (JAX)") << "stablehlo/searchless_chess_9m.mlir" << 8;
        QTest::newRow("transformer_encoder12 (ONNX)") << "onnx/transformer_encoder12.onnx" << 12;
        QTest::newRow("vit_b_16 (ONNX)") << "onnx/vit_b_16.onnx" << 12;
        QTest::newRow("swin_t (ONNX, windowed with position bias)") << "onnx/swin_t.onnx" << 12;
        QTest::newRow("resnet50 (ONNX, no attention)") << "onnx/resnet50.onnx" << 0;
    }
    void attentionIsRecognisedInRealExports() {
        QFETCH(QString, model);
        QFETCH(int, attentions);
        const QString path = shardscope::testing::sharedDir() + QStringLiteral("/models/") + model;
        if (!QFileInfo::exists(path))
            QSKIP("../shared/models is absent (a user's clone has no ../shared)");
        ProblemSpec spec;
        spec.model = path.toStdString();
        spec.train = true;
        spec.mesh = "data=8";
        auto fused = loadProblem(spec);
        QVERIFY2(fused, fused.errorMessage().c_str());
        QCOMPARE((*fused)->costModel->fusedAttentions(), static_cast<std::size_t>(attentions));
        spec.cost.attention = cost::Attention::Materialized;
        auto materialized = loadProblem(spec);
        QVERIFY2(materialized, materialized.errorMessage().c_str());
        QCOMPARE((*materialized)->costModel->fusedAttentions(), std::size_t{0});
        const auto a = cost::evaluate(*(*fused)->costModel, {}),
                   b = cost::evaluate(*(*materialized)->costModel, {});
        qInfo("%s: step %.3f ms fused, %.3f ms materialized; peak %.1f MB, %.1f MB", qPrintable(model),
              a.stepTime * 1e3, b.stepTime * 1e3, a.peakMemory / 1e6, b.peakMemory / 1e6);
        QVERIFY(a.peakMemory <= b.peakMemory);
        if (attentions > 0)
            QVERIFY(a.computeTime < b.computeTime);
        else
            QCOMPARE(a.computeTime, b.computeTime);
    }
};

QTEST_GUILESS_MAIN(TestCostShared)
#include "tst_cost_shared.moc"
