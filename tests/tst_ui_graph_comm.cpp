// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Communication on the graph: collective badges on the edges that reshard, edge labels placed without
// overlaps and coloured by name, the legend, the column of a large collapsed import, and the heat map.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>
#include <QToolTip>

#include "core/graph_annotations.h"
#include "core/graph_projection.h"
#include "core/name_style.h"
#include "core/plan_state.h"
#include "core/problem_view.h"
#include "shardscope/cost/cost_model.h"
#include "shardscope/plan/experts.h"
#include "shardscope/session/problem.h"
#include "test_paths.h"
#include "widgets/graph_view.h"

#include "ui_test_support.h"

using namespace shardscope;
using namespace shardscope::ui;
using fixtures::expertState;
using fixtures::saveSnapshot;
using fixtures::sharedPath;
using fixtures::stateOf;

namespace {

constexpr int kWaitMs = 120000;

// Waits until the picture and its labels are in place.
bool settle(GraphView& view) {
    QElapsedTimer timer;
    timer.start();
    while (view.isLayoutBusy() && timer.elapsed() < kWaitMs)
        QTest::qWait(20);
    return !view.isLayoutBusy() && view.annotations() != nullptr;
}

struct Opened {
    std::shared_ptr<const ProblemView> problem;
    std::unique_ptr<GraphView> view;
};

Opened open(std::shared_ptr<const ProblemView> problem, std::shared_ptr<const PlanState> state) {
    Opened opened{std::move(problem), std::make_unique<GraphView>()};
    opened.view->resize(1200, 800);
    opened.view->show();
    opened.view->setProblem(opened.problem);
    if (state)
        opened.view->setPlanState(std::move(state));
    return opened;
}

// zoo:demo (its training step with `train`) under fsdp-tp, shown in a view of its own.
Opened openDemo(bool train = false) {
    auto problem = fixtures::loadOnDefaultMesh("zoo:demo", train);
    auto state = expertState(*problem, "fsdp-tp");
    return open(std::move(problem), std::move(state));
}

int bodyIndexOf(const ir::Graph& graph, ir::OpId op) {
    for (std::size_t i = 0; i < graph.body.size(); ++i)
        if (graph.body[i] == op)
            return static_cast<int>(i);
    return -1;
}

bool contains(const std::vector<ir::ValueId>& values, ir::ValueId value) {
    return std::find(values.begin(), values.end(), value) != values.end();
}

// No two placed labels overlap, none covers a frame title or a node; returns how many are placed.
int checkLabelsApart(const GraphView& view) {
    const auto annotations = view.annotations();
    const auto projection = view.projection();
    std::vector<QRectF> labels;
    for (const EdgeAnnotation& label : annotations->edges)
        if (label.placed())
            labels.push_back(label.rect);
    for (std::size_t i = 0; i < labels.size(); ++i)
        for (std::size_t j = i + 1; j < labels.size(); ++j)
            if (labels[i].intersects(labels[j])) {
                qWarning("labels %zu and %zu overlap", i, j);
                return -1;
            }
    int titles = 0;
    for (const GraphCluster& cluster : projection->clusters) {
        const QRectF title = view.clusterTitle(cluster.id);
        if (title.isEmpty())
            continue;
        ++titles;
        for (const QRectF& label : labels)
            if (label.intersects(title)) {
                qWarning("a label covers the title of %s", qPrintable(cluster.label));
                return -1;
            }
    }
    for (std::size_t n = 0; n < projection->nodes.size(); ++n)
        for (const QRectF& label : labels)
            if (label.intersects(view.nodeRect(static_cast<int>(n)))) {
                qWarning("a label covers node %s", qPrintable(projection->nodes[n].title));
                return -1;
            }
    if (!projection->clusters.empty() && titles == 0)
        return -1;
    return static_cast<int>(labels.size());
}

}  // namespace

class TestUiGraphComm : public QObject {
    Q_OBJECT

private slots:
    void badgesWhereTheEvaluationHasCollectives_data() {
        QTest::addColumn<bool>("expandAll");
        QTest::newRow("collapsed") << false;
        QTest::newRow("expanded") << true;
    }

    void badgesWhereTheEvaluationHasCollectives() {
        QFETCH(bool, expandAll);
        const auto problem = fixtures::loadOnDefaultMesh("zoo:demo", true);
        const auto state = expertState(*problem, "fsdp-tp");
        QVERIFY(!state->evaluation.collectives.empty());
        Opened opened = open(problem, state);
        GraphView& view = *opened.view;
        QVERIFY(settle(view));
        if (expandAll) {
            view.expandAll();
            QVERIFY(settle(view));
        }
        const auto projection = view.projection();
        const auto annotations = view.annotations();
        QCOMPARE(annotations->edges.size(), projection->edges.size());
        QCOMPARE(annotations->plan, state);
        const ir::Graph& graph = problem->graph();
        const auto& collectives = state->evaluation.collectives;

        // Every badge lists collectives of that edge: moving one of its values, into the op that needs it
        // (its operand) or out of the op that made it (its result).
        int badges = 0;
        for (std::size_t e = 0; e < projection->edges.size(); ++e) {
            const GraphEdge& edge = projection->edges[e];
            const EdgeAnnotation& label = annotations->edges[e];
            const bool badgeSegment =
                std::any_of(label.segments.begin(), label.segments.end(),
                            [](const auto& s) { return s.kind == LabelSegment::Kind::Badge; });
            QCOMPARE(badgeSegment, label.hasBadge());
            if (!label.hasBadge())
                continue;
            ++badges;
            double time = 0;
            for (const std::size_t c : label.collectives) {
                const cost::Collective& collective = collectives[c];
                time += collective.time;
                QVERIFY(contains(edge.values, collective.value));
                const int body = bodyIndexOf(graph, collective.op);
                QVERIFY(body >= 0);
                const int node = projection->nodeOfOp[static_cast<std::size_t>(body)];
                const ir::Op& op = graph.op(collective.op);
                const bool operand = contains(op.operands, collective.value) && node == edge.to;
                const bool result = contains(op.results, collective.value) && node == edge.from;
                QVERIFY(operand || result);
                QVERIFY(label.segments.front().text.contains(collectiveAbbreviation(collective.kind)));
            }
            QVERIFY(std::abs(time - label.collectiveTime) <= 1e-12 + 1e-9 * time);
        }
        QVERIFY(badges > 0);
        // The slowest badge is at the top of the scale; a slower badge and its edge are never lighter.
        double slowest = 0;
        for (const EdgeAnnotation& a : annotations->edges) {
            slowest = std::max(slowest, a.collectiveTime);
            if (a.hasBadge())
                QVERIFY(oklabLightness(a.segments.front().fill) >= oklabLightness(a.color) - 1e-9);
            for (const EdgeAnnotation& b : annotations->edges)
                if (a.hasBadge() && b.hasBadge() && a.collectiveTime < b.collectiveTime) {
                    QVERIFY(oklabLightness(a.color) >= oklabLightness(b.color) - 1e-3);
                    QVERIFY(oklabLightness(a.segments.front().fill) >=
                            oklabLightness(b.segments.front().fill) - 1e-3);
                }
        }
        for (const EdgeAnnotation& a : annotations->edges)
            if (a.collectiveTime == slowest)
                QCOMPARE(a.heat, 1.0);

        // Every operand reshard between two boxes is on the edge between them (and only a collective inside
        // one box, or of a value no edge carries, is on none).
        for (std::size_t c = 0; c < collectives.size(); ++c) {
            const cost::Collective& collective = collectives[c];
            const ir::Op& op = graph.op(collective.op);
            const int body = bodyIndexOf(graph, collective.op);
            if (body < 0 || !contains(op.operands, collective.value))
                continue;
            const int to = projection->nodeOfOp[static_cast<std::size_t>(body)];
            bool carried = false, badged = false;
            for (std::size_t e = 0; e < projection->edges.size(); ++e) {
                const GraphEdge& edge = projection->edges[e];
                if (edge.to != to || !contains(edge.values, collective.value))
                    continue;
                carried = true;
                const auto& listed = annotations->edges[e].collectives;
                badged = badged || std::find(listed.begin(), listed.end(), c) != listed.end();
            }
            QCOMPARE(badged, carried);
        }

        // A plan without decisions shards nothing: no collectives, no badges.
        view.setPlanState(stateOf(*problem, plan::Plan{}));
        QVERIFY(settle(view));
        QVERIFY(view.annotations()->collectives.ofEdge.size() == projection->edges.size());
        if (view.annotations()->plan->evaluation.collectives.empty())
            for (const EdgeAnnotation& label : view.annotations()->edges)
                QVERIFY(!label.hasBadge());
    }

    void edgeLabelsNeverOverlap_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("train");
        QTest::addColumn<bool>("expandAll");
        QTest::newRow("demo") << QStringLiteral("zoo:demo") << false << false;
        QTest::newRow("demo training step, collapsed") << QStringLiteral("zoo:demo") << true << false;
        QTest::newRow("demo training step, expanded") << QStringLiteral("zoo:demo") << true << true;
        QTest::newRow("pt_bert, collapsed")
            << QStringLiteral("shared:models/stablehlo/pt_bert.mlir") << false << false;
    }

    void edgeLabelsNeverOverlap() {
        QFETCH(QString, model);
        QFETCH(bool, train);
        QFETCH(bool, expandAll);
        if (model.startsWith(QLatin1String("shared:"))) {
            model = sharedPath(qPrintable(model.mid(7)));
            if (!QFileInfo::exists(model))
                QSKIP("needs ../shared/models (SHARDSCOPE_SHARED_DIR)");
        }
        const auto problem = fixtures::loadOnDefaultMesh(model.toStdString(), train);
        Opened opened = open(problem, expertState(*problem, "fsdp-tp"));
        GraphView& view = *opened.view;
        QVERIFY(settle(view));
        if (expandAll) {
            view.expandAll();
            QVERIFY(settle(view));
        }
        if (!expandAll && !model.startsWith(QLatin1String("zoo:")))
            QVERIFY(!view.projection()->clusters.empty() ||
                    std::any_of(view.projection()->nodes.begin(), view.projection()->nodes.end(),
                                [](const GraphNode& n) { return n.kind == GraphNode::Kind::Module; }));
        const int placed = checkLabelsApart(view);
        QVERIFY(placed > 0);
        qInfo("%d of %zu edge labels placed", placed, view.projection()->edges.size());
        // The ones left out still say everything on hover.
        for (const EdgeAnnotation& label : view.annotations()->edges)
            QVERIFY(!label.toolTip.isEmpty());
    }

    void labelDimensionsTakeTheirNamesColours() {
        const auto problem = fixtures::loadOnDefaultMesh("zoo:demo");
        const auto state = expertState(*problem, "fsdp-tp");
        Opened opened = open(problem, state);
        GraphView& view = *opened.view;
        QVERIFY(settle(view));
        const auto projection = view.projection();
        const analysis::DecisionSpace& space = problem->space();
        int coloured = 0;
        for (std::size_t e = 0; e < projection->edges.size(); ++e) {
            const GraphEdge& edge = projection->edges[e];
            const EdgeAnnotation& label = view.annotations()->edges[e];
            int d = 0;
            for (const LabelSegment& segment : label.segments) {
                if (segment.kind != LabelSegment::Kind::Dimension)
                    continue;
                const auto names = space.namesOf(edge.value, d);
                if (names.empty()) {
                    QVERIFY(!segment.name.valid());
                } else {
                    QCOMPARE(segment.name, names.front());
                    QCOMPARE(segment.fill, nameColor(space, names.front()));
                    QVERIFY(segment.text.startsWith(shortNameLabel(space, names.front())));
                    ++coloured;
                }
                ++d;
            }
        }
        QVERIFY(coloured > 0);
    }

    void legendExplainsTheMarks() {
        Opened opened = openDemo();
        GraphView& view = *opened.view;
        QVERIFY(settle(view));
        auto* legend = view.findChild<QWidget*>(QStringLiteral("graphLegend"));
        auto* button = view.findChild<QToolButton*>(QStringLiteral("graphLegendButton"));
        QVERIFY(legend && button);
        QVERIFY(!view.legendShown());
        QVERIFY(!legend->isVisible());
        button->click();
        QVERIFY(view.legendShown());
        QVERIFY(legend->isVisible());
        // Inside the view, clear of the controls above it.
        QVERIFY(view.viewport()->geometry().contains(legend->geometry().topLeft()));
        view.setLegendShown(false);
        QVERIFY(!button->isChecked());
        QVERIFY(!legend->isVisible());
    }

    // Shown, the legend takes the place (of the top-left, top-right and bottom-left corners) that covers
    // the fewest nodes: with the graph in the view's left half, not the top-left corner.
    void legendCoversTheFewestNodes() {
        Opened opened = openDemo(true);
        GraphView& view = *opened.view;
        QVERIFY(settle(view));
        auto* legend = view.findChild<QWidget*>(QStringLiteral("graphLegend"));
        QVERIFY(legend);
        // The top of the graph in the left part of the view, at a readable zoom.
        view.setTransform(QTransform::fromScale(1.0, 1.0));
        const QRectF bounds = view.scene()->itemsBoundingRect();
        const QRect viewport = view.viewport()->rect();
        QRectF graph;
        for (std::size_t n = 0; n < view.projection()->nodes.size(); ++n)
            graph |= view.nodeRect(static_cast<int>(n));
        QVERIFY(bounds.contains(graph));
        view.centerOn(graph.center().x() + viewport.width() / 2.0 - 230,
                      graph.top() + viewport.height() / 2.0 - 60);
        const auto covered = [&](const QRect& place) {
            const QRectF scene = view.mapToScene(place.translated(-view.viewport()->pos())).boundingRect();
            int count = 0;
            for (std::size_t n = 0; n < view.projection()->nodes.size(); ++n)
                count += view.nodeRect(static_cast<int>(n)).intersects(scene) ? 1 : 0;
            return count;
        };
        view.setLegendShown(true);
        const std::vector<QRect> places = view.legendPlaces();
        QCOMPARE(places.size(), std::size_t{3});
        QVERIFY2(covered(places.front()) > 0, "the graph is not under the top-left corner");
        const int chosen = covered(legend->geometry());
        QVERIFY(legend->geometry() != places.front());
        QVERIFY(std::find(places.begin(), places.end(), legend->geometry()) != places.end());
        for (const QRect& place : places)
            QVERIFY(chosen <= covered(place));
        QVERIFY(chosen < covered(places.front()));
        saveSnapshot(view, QStringLiteral("legend_placed.png"));
    }

    // The user drags the legend where they like; it stays there (inside the view) until a double-click
    // gives it back to the view.
    void legendDragsAndStays() {
        Opened opened = openDemo();
        GraphView& view = *opened.view;
        QVERIFY(settle(view));
        auto* legend = view.findChild<QWidget*>(QStringLiteral("graphLegend"));
        QVERIFY(legend);
        view.setLegendShown(true);
        const QPoint start = legend->pos();
        const auto send = [&](QEvent::Type type, QPoint at, Qt::MouseButtons buttons) {
            QMouseEvent event(type, at, legend->mapToGlobal(at), Qt::LeftButton, buttons, Qt::NoModifier);
            QApplication::sendEvent(legend, &event);
        };
        // Into the view's middle, from wherever it started.
        const QPoint grip(30, 30);
        const QPoint moved = view.viewport()->geometry().topLeft() + QPoint(260, 140);
        send(QEvent::MouseButtonPress, grip, Qt::LeftButton);
        send(QEvent::MouseMove, grip + moved - start, Qt::LeftButton);
        send(QEvent::MouseButtonRelease, grip + moved - start, Qt::NoButton);
        QCOMPARE(legend->pos(), moved);
        // It stays through a new metric and a resize that leaves room for it.
        view.setHeatMetric(HeatMetric::Time);
        QCOMPARE(legend->pos(), moved);
        view.resize(view.width() + 40, view.height() + 40);
        QCOMPARE(legend->pos(), moved);
        // Dragged past the view's edge, it stops at the edge.
        send(QEvent::MouseButtonPress, grip, Qt::LeftButton);
        send(QEvent::MouseMove, grip + QPoint(5000, 5000), Qt::LeftButton);
        send(QEvent::MouseButtonRelease, grip + QPoint(5000, 5000), Qt::NoButton);
        const QRect area = view.viewport()->geometry();
        QCOMPARE(legend->geometry().bottomRight(), area.bottomRight());
        // A double-click puts it back at one of the view's own places.
        send(QEvent::MouseButtonDblClick, grip, Qt::LeftButton);
        const std::vector<QRect> places = view.legendPlaces();
        QVERIFY(std::find(places.begin(), places.end(), legend->geometry()) != places.end());
    }

    void largeImportCollapsesIntoAColumn_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("glm_358b_1_layer") << QStringLiteral("models/stablehlo/glm_358b_1_layer.mlir");
        QTest::newRow("kimi_k2_1_layer") << QStringLiteral("models/stablehlo/kimi_k2_1_layer.mlir");
    }

    void largeImportCollapsesIntoAColumn() {
        QFETCH(QString, model);
        const QString path = sharedPath(qPrintable(model));
        if (!QFileInfo::exists(path))
            QSKIP("needs ../shared/models (SHARDSCOPE_SHARED_DIR)");
        const auto problem = fixtures::loadOnDefaultMesh(path.toStdString(), true);
        QVERIFY(problem->graph().body.size() > kExpandedGraphOps);
        Opened opened = open(problem, nullptr);
        GraphView& view = *opened.view;
        QVERIFY(settle(view));
        const auto projection = view.projection();
        // The top level's collapsed modules, one below the other, centred on one vertical line.
        std::vector<int> column;
        for (std::size_t n = 0; n < projection->nodes.size(); ++n)
            if (projection->nodes[n].kind == GraphNode::Kind::Module &&
                projection->nodes[n].cluster.isEmpty())
                column.push_back(static_cast<int>(n));
        QVERIFY(column.size() >= 4);
        qreal narrowest = 1e9;
        for (const int n : column)
            narrowest = std::min(narrowest, view.nodeRect(n).width());
        for (std::size_t i = 1; i < column.size(); ++i) {
            const QRectF above = view.nodeRect(column[i - 1]);
            const QRectF below = view.nodeRect(column[i]);
            QVERIFY2(std::abs(above.center().x() - below.center().x()) < 0.1 * narrowest,
                     qPrintable(QStringLiteral("%1 at x=%2, %3 at x=%4")
                                    .arg(projection->nodes[static_cast<std::size_t>(column[i - 1])].title)
                                    .arg(above.center().x())
                                    .arg(projection->nodes[static_cast<std::size_t>(column[i])].title)
                                    .arg(below.center().x())));
            QVERIFY(below.top() > above.bottom());
        }
        // Arguments and outputs used or made by a collapsed module sit on its level, beside it.
        int beside = 0;
        for (std::size_t n = 0; n < projection->nodes.size(); ++n) {
            const GraphNode& node = projection->nodes[n];
            if (node.kind != GraphNode::Kind::Arguments && node.kind != GraphNode::Kind::Output)
                continue;
            std::vector<int> modules;
            for (const GraphEdge& edge : projection->edges) {
                const int other = edge.from == static_cast<int>(n) ? edge.to
                                  : edge.to == static_cast<int>(n) ? edge.from
                                                                   : -1;
                if (other >= 0 &&
                    projection->nodes[static_cast<std::size_t>(other)].kind == GraphNode::Kind::Module)
                    modules.push_back(other);
            }
            if (modules.empty())
                continue;
            QVERIFY(node.beside >= 0);
            QVERIFY(std::find(modules.begin(), modules.end(), node.beside) != modules.end());
            const QRectF rect = view.nodeRect(static_cast<int>(n));
            const QRectF module = view.nodeRect(node.beside);
            QVERIFY2(std::abs(rect.center().y() - module.center().y()) < 1,
                     qPrintable(node.title + QStringLiteral(" is not level with ") +
                                projection->nodes[static_cast<std::size_t>(node.beside)].title));
            ++beside;
        }
        QVERIFY(beside > 0);
        saveSnapshot(view, QFileInfo(model).baseName() + QStringLiteral("-column.png"));
    }

    void heatMapOrdersNodesByTheMetric_data() {
        QTest::addColumn<int>("metric");
        QTest::newRow("time") << static_cast<int>(HeatMetric::Time);
        QTest::newRow("bytes communicated") << static_cast<int>(HeatMetric::Communication);
        QTest::newRow("memory") << static_cast<int>(HeatMetric::Memory);
    }

    void heatMapOrdersNodesByTheMetric() {
        QFETCH(int, metric);
        const auto chosen = static_cast<HeatMetric>(metric);
        const auto problem = fixtures::loadOnDefaultMesh("zoo:demo", true);
        const auto state = expertState(*problem, "fsdp-tp");
        Opened opened = open(problem, state);
        GraphView& view = *opened.view;
        QVERIFY(settle(view));
        auto* combo = view.findChild<QComboBox*>(QStringLiteral("graphHeatMetric"));
        QVERIFY(combo);
        combo->setCurrentIndex(combo->findData(metric));
        QCOMPARE(view.heatMetric(), chosen);
        const auto projection = view.projection();
        const std::size_t count = projection->nodes.size();
        std::vector<double> heat(count);
        double total = 0;
        for (std::size_t n = 0; n < count; ++n) {
            heat[n] = view.nodeHeatValue(static_cast<int>(n));
            total += heat[n];
        }
        // The values add up to the evaluation's (every op is shown by some node).
        const cost::Evaluation& evaluation = state->evaluation;
        if (chosen == HeatMetric::Time) {
            double expected = 0;
            for (const double t : evaluation.opComputeTime)
                expected += t;
            for (const auto& c : evaluation.collectives)
                expected += c.time;
            QVERIFY(std::abs(total - expected) <= 1e-9 * expected);
        } else if (chosen == HeatMetric::Communication) {
            double expected = 0;
            for (const auto& c : evaluation.collectives)
                expected += c.bytes;
            QVERIFY(std::abs(total - expected) <= 1e-9 * expected);
        }
        QVERIFY(total > 0);
        // Colours darken as the value grows: the hottest node is the darkest, and no node is darker than a
        // hotter one.
        for (std::size_t a = 0; a < count; ++a)
            for (std::size_t b = 0; b < count; ++b)
                if (heat[a] < heat[b])
                    QVERIFY(oklabLightness(view.nodeFillColor(static_cast<int>(a))) >=
                            oklabLightness(view.nodeFillColor(static_cast<int>(b))) - 1e-3);
        const auto [coolest, hottest] = std::minmax_element(heat.begin(), heat.end());
        QVERIFY(*hottest > *coolest);
        QVERIFY(oklabLightness(view.nodeFillColor(static_cast<int>(hottest - heat.begin()))) + 0.2 <
                oklabLightness(view.nodeFillColor(static_cast<int>(coolest - heat.begin()))));
        if (chosen == HeatMetric::Time) {
            view.setLegendShown(true);
            saveSnapshot(view, QStringLiteral("heatmap.png"));
        }
        // Back to op kinds: the fills no longer depend on the plan.
        view.setHeatMetric(HeatMetric::None);
        QCOMPARE(combo->currentData().toInt(), static_cast<int>(HeatMetric::None));
        QCOMPARE(view.nodeHeatValue(0), 0.0);
    }

    // The nodes' colours follow each change: the heat map, a highlight over it and its end, a new plan, and
    // back to op kinds.
    void heatColoursFollowHighlightAndPlan() {
        Opened opened = openDemo(true);
        const ProblemView& problem = *opened.problem;
        GraphView& view = *opened.view;
        QVERIFY(settle(view));
        const auto fills = [&] {
            std::vector<QRgb> out;
            for (std::size_t n = 0; n < view.projection()->nodes.size(); ++n)
                out.push_back(view.nodeFillColor(static_cast<int>(n)).rgb());
            return out;
        };
        const std::vector<QRgb> kinds = fills();
        view.setHeatMetric(HeatMetric::Time);
        const std::vector<QRgb> heat = fills();
        QVERIFY(heat != kinds);

        // A highlight lights the nodes of its name in the name's colour and fades the others' heat colours.
        const auto projection = view.projection();
        std::optional<analysis::NameId> name;
        for (const GraphNode& node : projection->nodes)
            if (!name && !node.names.empty())
                name = node.names.front();
        QVERIFY(name);
        view.setHighlightedName(name);
        const QRgb lit = nameColor(problem.space(), *name).rgb();
        for (std::size_t n = 0; n < projection->nodes.size(); ++n) {
            const auto& names = projection->nodes[n].names;
            const QColor fill = view.nodeFillColor(static_cast<int>(n));
            if (std::binary_search(names.begin(), names.end(), *name))
                QCOMPARE(fill.rgb(), lit);
            else
                QVERIFY(oklabLightness(fill) > oklabLightness(QColor::fromRgb(heat[n])) - 1e-3);
        }
        view.setHighlightedName(std::nullopt);
        QVERIFY(fills() == heat);

        // Another plan: other heat.
        view.setPlanState(expertState(problem, "dp"));
        QVERIFY(settle(view));
        QVERIFY(fills() != heat);
        view.setHeatMetric(HeatMetric::None);
        QVERIFY(fills() == kinds);
    }

    void badgesPictureAndToolTips() {
        // The picture of the documentation (when SHARDSCOPE_GRAPH_SNAPSHOTS is set): the demo's training step
        // under fsdp-tp, an attention block open, at a zoom that shows the labels.
        Opened opened = openDemo(true);
        GraphView& view = *opened.view;
        QVERIFY(settle(view));
        view.setTransform(QTransform::fromScale(1.0, 1.0));
        QVERIFY(view.find(QStringLiteral("layers.0.attn.q")));
        QVERIFY(settle(view));
        const EdgeAnnotation* shown = nullptr;
        const QRectF visible = view.mapToScene(view.viewport()->rect()).boundingRect();
        for (const EdgeAnnotation& label : view.annotations()->edges)
            if (label.hasBadge() && label.placed() && visible.contains(label.rect))
                shown = &label;
        QVERIFY(shown);
        saveSnapshot(view, QStringLiteral("graph_badges.png"));

        // Hovering a label shows its tensor and collectives in full.
        const QPoint at = view.mapFromScene(shown->rect.center());
        QHelpEvent help(QEvent::ToolTip, at, view.viewport()->mapToGlobal(at));
        QApplication::sendEvent(view.viewport(), &help);
        QTRY_VERIFY(QToolTip::isVisible());
        QCOMPARE(QToolTip::text(), shown->toolTip);
        const cost::Collective& first =
            view.annotations()->plan->evaluation.collectives[shown->collectives.front()];
        QVERIFY(QToolTip::text().contains(QString::fromStdString(std::string(cost::toString(first.kind)))));
        QToolTip::hideText();
    }
};

QTEST_MAIN(TestUiGraphComm)
#include "tst_ui_graph_comm.moc"
