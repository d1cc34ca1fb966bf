// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The graph layout service: Graphviz's adapter (geometry in Qt's coordinates) and its worker thread.
#include <clocale>
#include <memory>

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QSet>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include "core/graph_layout.h"

using namespace shardscope::ui;

namespace {

LayoutRequest chain(const QStringList& ids) {
    LayoutRequest request;
    for (const QString& id : ids)
        request.nodes.append({id, QSizeF(80, 30), {}});
    for (qsizetype i = 0; i + 1 < ids.size(); ++i)
        request.edges.append({ids[i], ids[i + 1]});
    return request;
}

// A DAG whose edges join nearby nodes, the way a model's ops do. Same seed, same graph.
LayoutRequest randomDag(int nodeCount, int edgeCount, quint32 seed, int clusterSize = 0) {
    QRandomGenerator random(seed);
    LayoutRequest request;
    for (int i = 0; i < nodeCount; ++i) {
        const QString cluster = clusterSize > 0 ? QStringLiteral("layer%1").arg(i / clusterSize) : QString();
        request.nodes.append({QStringLiteral("n%1").arg(i),
                              QSizeF(40 + random.bounded(80), 20 + random.bounded(20)), cluster});
    }
    QSet<QPair<int, int>> seen;
    while (request.edges.size() < edgeCount) {
        const int from = random.bounded(nodeCount - 1);
        const int to = qMin(nodeCount - 1, from + 1 + random.bounded(12));
        if (seen.contains({from, to}))
            continue;
        seen.insert({from, to});
        request.edges.append({QStringLiteral("n%1").arg(from), QStringLiteral("n%1").arg(to)});
    }
    return request;
}

QRectF boxOf(const LayoutNode& node, const LayoutResult& result) {
    QRectF box(QPointF(), node.size);
    box.moveCenter(result.centres.value(node.id));
    return box;
}

LayoutResult laidOut(const LayoutRequest& request) {
    LayoutOutcome outcome = layoutWithGraphviz(request);
    if (!outcome.ok())
        qFatal("layout failed: %s", qPrintable(outcome.error));
    return *outcome.result;
}

// Graphviz rounds node sizes to whole points and ends edges at the border.
constexpr double kTolerance = 2.0;

}  // namespace

class TestUiLayout : public QObject {
    Q_OBJECT

private slots:
    void chainRunsTopToBottom() {
        const LayoutResult result = laidOut(chain({"a", "b", "c"}));
        const QPointF a = result.centres.value("a"), b = result.centres.value("b"),
                      c = result.centres.value("c");
        QVERIFY2(a.y() < b.y() && b.y() < c.y(), "y grows along the chain");
        QVERIFY(qAbs(a.x() - b.x()) < kTolerance && qAbs(b.x() - c.x()) < kTolerance);
        QCOMPARE(result.edges.size(), 2);
        for (const QPointF& centre : {a, b, c})
            QVERIFY(result.bounds.contains(centre));
        QCOMPARE(result.bounds.topLeft(), QPointF(0, 0));
    }

    void leftToRightRunsAlongX() {
        LayoutRequest request = chain({"a", "b"});
        request.rankdir = "LR";
        const LayoutResult result = laidOut(request);
        QVERIFY(result.centres.value("a").x() < result.centres.value("b").x());
        QVERIFY(qAbs(result.centres.value("a").y() - result.centres.value("b").y()) < kTolerance);
    }

    void nodesDoNotOverlap() {
        const LayoutRequest request = randomDag(200, 300, 7);
        const LayoutResult result = laidOut(request);
        QCOMPARE(result.centres.size(), 200);
        for (qsizetype i = 0; i < request.nodes.size(); ++i) {
            const QRectF a = boxOf(request.nodes[i], result).adjusted(1, 1, -1, -1);
            QVERIFY(result.bounds.adjusted(-kTolerance, -kTolerance, kTolerance, kTolerance).contains(a));
            for (qsizetype j = i + 1; j < request.nodes.size(); ++j) {
                const QRectF b = boxOf(request.nodes[j], result).adjusted(1, 1, -1, -1);
                QVERIFY2(!a.intersects(b),
                         qPrintable(request.nodes[i].id + " overlaps " + request.nodes[j].id));
            }
        }
    }

    void edgesRunFromSourceToTarget() {
        const LayoutRequest request = randomDag(200, 300, 11);
        const LayoutResult result = laidOut(request);
        QCOMPARE(result.edges.size(), request.edges.size());
        QHash<QString, LayoutNode> nodes;
        for (const LayoutNode& node : request.nodes)
            nodes.insert(node.id, node);
        const double m = kTolerance;
        for (qsizetype i = 0; i < request.edges.size(); ++i) {
            const QPainterPath& path = result.edges[i];
            QVERIFY(path.elementCount() >= 2);
            const QPointF start = path.elementAt(0);
            const QPointF end = path.currentPosition();
            const QRectF from = boxOf(nodes.value(request.edges[i].from), result).adjusted(-m, -m, m, m);
            const QRectF to = boxOf(nodes.value(request.edges[i].to), result).adjusted(-m, -m, m, m);
            QVERIFY2(from.contains(start),
                     qPrintable(QStringLiteral("edge %1 starts away from its source").arg(i)));
            QVERIFY2(to.contains(end),
                     qPrintable(QStringLiteral("edge %1 ends away from its target").arg(i)));
        }
    }

    void clustersContainTheirNodes() {
        LayoutRequest request = randomDag(60, 90, 3, 10);
        request.nodes.append({"loose", QSizeF(50, 20), {}});
        request.edges.append(LayoutEdge{"n59", "loose"});
        const LayoutResult result = laidOut(request);
        QCOMPARE(result.clusters.size(), 6);
        for (const LayoutNode& node : request.nodes) {
            if (node.cluster.isEmpty()) {
                for (const QRectF& cluster : result.clusters)
                    QVERIFY2(!cluster.contains(result.centres.value(node.id)),
                             "a loose node sits in a cluster");
                continue;
            }
            QVERIFY(result.clusters.contains(node.cluster));
            QVERIFY2(result.clusters.value(node.cluster).contains(boxOf(node, result).adjusted(1, 1, -1, -1)),
                     qPrintable(node.id + " outside " + node.cluster));
        }
    }

    void badRequestsFailWithAMessage() {
        LayoutRequest request = chain({"a", "b"});
        request.edges.append(LayoutEdge{"a", "ghost"});
        LayoutOutcome outcome = layoutWithGraphviz(request);
        QVERIFY(!outcome.ok());
        QVERIFY(outcome.error.contains("ghost"));

        request = chain({"a", "a"});
        QVERIFY(!layoutWithGraphviz(request).ok());

        request = chain({"a"});
        request.rankdir = "sideways";
        QVERIFY(layoutWithGraphviz(request).error.contains("sideways"));

        const std::atomic<bool> cancelled{true};
        outcome = layoutWithGraphviz(chain({"a", "b"}), &cancelled);
        QVERIFY(outcome.cancelled && !outcome.ok() && outcome.error.isEmpty());
    }

    void sameLayoutUnderADecimalCommaLocale() {
        const LayoutRequest request = randomDag(80, 120, 5, 20);
        const LayoutResult inC = laidOut(request);
        QCOMPARE(laidOut(request).centres, inC.centres);  // the comparison below means something

        const std::string previous = std::setlocale(LC_NUMERIC, nullptr);
        const char* found = nullptr;
        for (const char* name :
             {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "ru_RU.UTF-8", "de_DE"}) {
            if (std::setlocale(LC_NUMERIC, name)) {
                found = name;
                break;
            }
        }
        if (!found)
            QSKIP("no locale with a decimal comma is installed (tried de_DE, fr_FR, ru_RU)");
        const LayoutOutcome outcome = layoutWithGraphviz(request);
        const QString numericAfter = QString::fromLatin1(std::setlocale(LC_NUMERIC, nullptr));
        std::setlocale(LC_NUMERIC, previous.c_str());

        QCOMPARE(numericAfter, QString::fromLatin1(found));  // the guard restored the caller's locale
        QVERIFY(outcome.ok());
        QCOMPARE(outcome.result->centres, inC.centres);
        QCOMPARE(outcome.result->bounds, inC.bounds);
        QCOMPARE(outcome.result->clusters, inC.clusters);
    }

    void sameTagRequestsCoalesce() {
        GraphLayoutService service;
        QSignalSpy finished(&service, &GraphLayoutService::finished);
        QSignalSpy failed(&service, &GraphLayoutService::failed);
        const auto first = service.request("view", randomDag(300, 450, 1));
        const auto second = service.request("view", chain({"x", "y"}));
        QCOMPARE(first, 1u);
        QCOMPARE(second, 2u);
        QCOMPARE(service.generation("view"), 2u);
        QVERIFY(finished.wait(10000));
        QTest::qWait(300);  // the superseded one, had it run to the end, would have arrived by now
        QCOMPARE(finished.size(), 1);
        QCOMPARE(failed.size(), 0);
        QCOMPARE(finished[0][0].toString(), QString("view"));
        QCOMPARE(finished[0][1].value<std::uint64_t>(), second);
        const auto result = finished[0][2].value<LayoutResult>();
        QCOMPARE(result.centres.size(), 2);
        QVERIFY(result.centres.contains("x"));
    }

    void cancelDropsAQueuedRequest() {
        GraphLayoutService service;
        QSignalSpy finished(&service, &GraphLayoutService::finished);
        service.request("busy", randomDag(400, 600, 2));  // keeps the worker busy while "dropped" waits
        service.request("dropped", chain({"a", "b"}));
        service.cancel("dropped");
        QVERIFY(finished.wait(20000));
        QTest::qWait(300);
        QCOMPARE(finished.size(), 1);
        QCOMPARE(finished[0][0].toString(), QString("busy"));

        // The tag is usable again afterwards.
        const auto again = service.request("dropped", chain({"a", "b"}));
        QVERIFY(finished.wait(10000));
        QCOMPARE(finished[1][0].toString(), QString("dropped"));
        QCOMPARE(finished[1][1].value<std::uint64_t>(), again);
    }

    void failuresReportThroughFailed() {
        GraphLayoutService service;
        QSignalSpy failed(&service, &GraphLayoutService::failed);
        LayoutRequest request = chain({"a"});
        request.edges.append(LayoutEdge{"a", "nowhere"});
        const auto generation = service.request("view", request);
        QVERIFY(failed.wait(10000));
        QCOMPARE(failed[0][1].value<std::uint64_t>(), generation);
        QVERIFY(failed[0][2].toString().contains("nowhere"));
    }

    void resultsArriveOnTheReceiversThread() {
        GraphLayoutService service;
        QThread other;
        other.start();
        QObject remote;
        remote.moveToThread(&other);
        std::atomic<QThread*> remoteSaw{nullptr};
        QThread* localSaw = nullptr;
        connect(&service, &GraphLayoutService::finished, &remote,
                [&] { remoteSaw = QThread::currentThread(); });
        connect(&service, &GraphLayoutService::finished, this, [&] { localSaw = QThread::currentThread(); });
        service.request("view", chain({"a", "b"}));
        QTRY_VERIFY_WITH_TIMEOUT(localSaw != nullptr && remoteSaw.load() != nullptr, 10000);
        QCOMPARE(localSaw, QThread::currentThread());
        QCOMPARE(remoteSaw.load(), &other);
        other.quit();
        other.wait();
    }

    void destroyingWhileLayingOutStopsCleanly() {
        auto service = std::make_unique<GraphLayoutService>();
        int reports = 0;
        connect(service.get(), &GraphLayoutService::finished, this, [&] { ++reports; });
        service->request("huge", randomDag(3000, 4500, 9));
        service->request("queued", chain({"a", "b"}));
        QTest::qWait(100);  // let the worker enter Graphviz
        QElapsedTimer timer;
        timer.start();
        service.reset();
        qInfo("destroying the service mid-layout (3000 nodes) took %lld ms", timer.elapsed());
        QTest::qWait(50);
        QCOMPARE(reports, 0);

        // Graphviz is usable afterwards: its state was freed and unlocked.
        QVERIFY(layoutWithGraphviz(chain({"a", "b"})).ok());
    }

    void timingOfALargeGraph() {
        const LayoutRequest request = randomDag(2000, 3000, 2000);
        QElapsedTimer timer;
        timer.start();
        const LayoutOutcome outcome = layoutWithGraphviz(request);
        const qint64 ms = timer.elapsed();
        QVERIFY(outcome.ok());
        qInfo("layout of 2000 nodes / 3000 edges: %lld ms", ms);
        // Large graphs are laid out with dot's positioning cut short: still no overlaps.
        for (qsizetype i = 0; i < request.nodes.size(); ++i) {
            const QRectF a = boxOf(request.nodes[i], *outcome.result).adjusted(1, 1, -1, -1);
            for (qsizetype j = i + 1; j < request.nodes.size(); ++j)
                QVERIFY(!a.intersects(boxOf(request.nodes[j], *outcome.result).adjusted(1, 1, -1, -1)));
        }
    }
};

QTEST_GUILESS_MAIN(TestUiLayout)
#include "tst_ui_layout.moc"
