// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// What the graph view draws over a laid-out projection for one evaluated plan: where the plan's collectives
// happen (badges on edges), edge labels placed so that none overlaps another or a frame's title, and the
// heat-map colours of nodes by time, bytes communicated or memory.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <QColor>
#include <QFont>
#include <QPointF>
#include <QRectF>
#include <QString>

#include "core/graph_layout.h"
#include "core/graph_projection.h"
#include "core/plan_state.h"
#include "core/problem_view.h"

namespace shardscope::ui {

// Where the collectives of an evaluation show on a projection (indices into Evaluation::collectives).
// An operand's reshard is on the edge carrying the operand into its op's node; a result's reduction on the
// first edge carrying the result out of its op's node. A collective with neither edge (both ends inside one
// collapsed module, or run again by rematerialization) is on no edge. Every collective counts for the node
// showing the op that causes it.
struct GraphCollectives {
    std::vector<std::vector<std::size_t>> ofEdge;
    std::vector<std::vector<std::size_t>> ofNode;
};
GraphCollectives graphCollectives(const ProblemView& view, const GraphProjection& projection,
                                  const cost::Evaluation& evaluation);

// The short form of a collective kind for badges: AG, RS, AR, A2A, CP.
QString collectiveAbbreviation(cost::CollectiveKind kind);

// What the heat map colours nodes by.
enum class HeatMetric { None, Time, Communication, Memory };
QString heatMetricName(HeatMetric metric);
// The value of `metric` per node of `projection` under `state`: Time, its ops' compute time plus their
// collectives' time (seconds); Communication, their collectives' bytes; Memory, the bytes per device of the
// tensors its ops make (an argument's or output's own tensor). All zero for None.
std::vector<double> nodeHeat(const ProblemView& view, const GraphProjection& projection,
                             const PlanState& state, const GraphCollectives& collectives, HeatMetric metric);
// The colour scale of the heat map and of edge badges: `fraction` 0 (pale yellow) to 1 (dark red), lighter
// the smaller (OKLab lightness decreasing with `fraction`).
QColor heatColor(double fraction);
// Where `value` sits on the scale up to `maximum` (square root: the small values stay apart), 0 to 1.
double heatFraction(double value, double maximum);
// "12.5 ms", "3.2 GiB": a value of `metric` as the legend shows it.
QString heatValueText(HeatMetric metric, double value);

// The title tab an open module's frame carries above its top-left corner (what the view draws and clicks).
QRectF clusterTitleRect(const QRectF& frame, const QString& label, const QFont& font);

// A piece of an edge label, drawn left to right: the collective badge, one chip per dimension in its name's
// colour, and "+2" for the other values an edge between modules stands for or "…" when cut short.
struct LabelSegment {
    enum class Kind { Badge, Dimension, More };
    Kind kind = Kind::Dimension;
    QString text;
    QColor fill;  // Badge: heatColor of its time; Dimension: nameColor of its name (grey without one)
    analysis::NameId name;  // Dimension: the name whose colour it takes (invalid: none)
    QRectF rect;            // where it is drawn (scene)
};

struct EdgeAnnotation {
    std::vector<LabelSegment> segments;
    QRectF rect;      // the whole label where it is placed (scene); empty when no free place was found
    QPointF marker;   // the point of the edge it labels (or where its badge marker goes when not placed)
    QString toolTip;  // the value, its sharding and every collective it carries, in full
    std::vector<std::size_t> collectives;  // indices into Evaluation::collectives
    double collectiveTime = 0, collectiveBytes = 0;
    // With a badge: where its time sits on the scale of the edges' badges (heatFraction), and the colour the
    // edge is drawn in, heatColor from a third of the way up (a pale badge's edge stays visible). Computed
    // once here, so that painting only reads them.
    double heat = 0;
    QColor color;

    bool hasBadge() const { return !collectives.empty(); }
    bool placed() const { return !rect.isEmpty(); }
};

struct GraphAnnotations {
    std::vector<EdgeAnnotation> edges;  // per edge of the projection
    GraphCollectives collectives;
    double maxCollectiveTime = 0;           // of the edges' badges
    std::shared_ptr<const PlanState> plan;  // what they were computed for
};

// Labels every edge of `projection` (laid out as `layout`, node boxes from `request`) with its value's
// sharding under `state` (names alone without one) and its collectives' badge, and places the labels: each at
// the first of a few points along its edge (either side) where it overlaps no label placed before it, no node
// and no frame title, edges with the slowest collectives first, then the largest values. Labels that find no
// place are left unplaced (their text stays in the tool tip). Labels wider than `maxWidth` are cut short.
GraphAnnotations annotateGraph(const ProblemView& view, const GraphProjection& projection,
                               const LayoutRequest& request, const LayoutResult& layout,
                               std::shared_ptr<const PlanState> state, const QFont& labelFont,
                               qreal maxWidth = 320);

}  // namespace shardscope::ui
