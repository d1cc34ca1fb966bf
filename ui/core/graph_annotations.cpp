// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/graph_annotations.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QLineF>
#include <QPolygonF>
#include <QStringList>

#include "core/name_style.h"
#include "core/plan_breakdown.h"
#include "core/text.h"

namespace shardscope::ui {

namespace {

constexpr int kNone = -1;
// Gaps (scene units) between a label's segments, inside a segment around its text, and kept free around a
// placed label.
constexpr qreal kSegmentGap = 2;
constexpr qreal kSegmentPadding = 4;
constexpr qreal kLabelMargin = 1.5;
constexpr qreal kGridCell = 96;

QString tr(const char* text) {
    return QCoreApplication::translate("GraphAnnotations", text);
}

std::uint64_t pairKey(int from, int to) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(from)) << 32) |
           static_cast<std::uint32_t>(to);
}

std::vector<int> bodyIndexOf(const ir::Graph& graph) {
    std::vector<int> index(graph.ops.size(), kNone);
    for (std::size_t i = 0; i < graph.body.size(); ++i)
        index[graph.body[i].index] = static_cast<int>(i);
    return index;
}

double localBytes(const ir::Graph& graph, const mesh::Mesh& mesh, const PlanState& state, ir::ValueId value) {
    double bytes = static_cast<double>(graph.type(value).bytes());
    if (value.index < state.shardings.size())
        for (const plan::AxisList& axes : state.shardings[value.index].dimensions)
            for (int i = 0; i < axes.size(); ++i)
                if (static_cast<std::size_t>(axes[i]) < mesh.axes.size())
                    bytes /= static_cast<double>(mesh.axes[static_cast<std::size_t>(axes[i])].size);
    return bytes;
}

// Rectangles already taken, bucketed on a grid so a check looks at its neighbourhood only.
class Occupancy {
public:
    void add(const QRectF& rect) {
        const int index = static_cast<int>(rects_.size());
        rects_.push_back(rect);
        forCells(rect, [&](std::uint64_t cell) {
            cells_[cell].push_back(index);
            return true;
        });
    }
    bool isFree(const QRectF& rect) const {
        return forCells(rect, [&](std::uint64_t cell) {
            const auto found = cells_.find(cell);
            if (found == cells_.end())
                return true;
            return std::none_of(found->second.begin(), found->second.end(),
                                [&](int i) { return rects_[static_cast<std::size_t>(i)].intersects(rect); });
        });
    }

private:
    template <typename F>
    bool forCells(const QRectF& rect, F f) const {
        const auto x0 = static_cast<std::int64_t>(std::floor(rect.left() / kGridCell));
        const auto x1 = static_cast<std::int64_t>(std::floor(rect.right() / kGridCell));
        const auto y0 = static_cast<std::int64_t>(std::floor(rect.top() / kGridCell));
        const auto y1 = static_cast<std::int64_t>(std::floor(rect.bottom() / kGridCell));
        for (std::int64_t x = x0; x <= x1; ++x)
            for (std::int64_t y = y0; y <= y1; ++y)
                if (!f((static_cast<std::uint64_t>(static_cast<std::uint32_t>(x)) << 32) |
                       static_cast<std::uint32_t>(y)))
                    return false;
        return true;
    }

    std::vector<QRectF> rects_;
    std::unordered_map<std::uint64_t, std::vector<int>> cells_;
};

// Points at fractions of a path's length, from a flattened copy (QPainterPath::pointAtPercent measures the
// whole curve again on every call).
class PathWalker {
public:
    explicit PathWalker(const QPainterPath& path) {
        for (const QPolygonF& polygon : path.toSubpathPolygons())
            for (qsizetype i = 0; i < polygon.size(); ++i) {
                if (!points_.empty())
                    lengths_.push_back(lengths_.back() + QLineF(points_.back(), polygon[i]).length());
                else
                    lengths_.push_back(0);
                points_.push_back(polygon[i]);
            }
    }
    QPointF at(double fraction) const {
        if (points_.empty())
            return {};
        const double target = lengths_.back() * std::clamp(fraction, 0.0, 1.0);
        const auto upper = std::lower_bound(lengths_.begin(), lengths_.end(), target);
        if (upper == lengths_.begin())
            return points_.front();
        if (upper == lengths_.end())
            return points_.back();
        const auto i = static_cast<std::size_t>(upper - lengths_.begin());
        const double span = lengths_[i] - lengths_[i - 1];
        const double t = span > 0 ? (target - lengths_[i - 1]) / span : 0;
        return points_[i - 1] + (points_[i] - points_[i - 1]) * t;
    }

private:
    std::vector<QPointF> points_;
    std::vector<double> lengths_;
};

}  // namespace

GraphCollectives graphCollectives(const ProblemView& view, const GraphProjection& projection,
                                  const cost::Evaluation& evaluation) {
    const ir::Graph& graph = view.graph();
    GraphCollectives out;
    out.ofEdge.resize(projection.edges.size());
    out.ofNode.resize(projection.nodes.size());
    const std::vector<int> bodyIndex = bodyIndexOf(graph);
    std::unordered_map<std::uint64_t, int> edgeOf;
    std::vector<std::vector<int>> outEdges(projection.nodes.size());
    for (std::size_t e = 0; e < projection.edges.size(); ++e) {
        const GraphEdge& edge = projection.edges[e];
        edgeOf.emplace(pairKey(edge.from, edge.to), static_cast<int>(e));
        outEdges[static_cast<std::size_t>(edge.from)].push_back(static_cast<int>(e));
    }
    std::vector<int> argumentOf(graph.values.size(), kNone);
    for (std::size_t a = 0; a < graph.arguments.size(); ++a)
        argumentOf[graph.arguments[a].value.index] = static_cast<int>(a);
    const auto nodeOfBody = [&](ir::OpId op) {
        if (!op.valid() || op.index >= bodyIndex.size() || bodyIndex[op.index] == kNone)
            return kNone;
        return projection.nodeOfOp[static_cast<std::size_t>(bodyIndex[op.index])];
    };
    const auto sourceOf = [&](ir::ValueId value) {
        const int a = argumentOf[value.index];
        if (a != kNone)
            return projection.nodeOfArgument[static_cast<std::size_t>(a)];
        return nodeOfBody(graph.value(value).producer);
    };

    for (std::size_t c = 0; c < evaluation.collectives.size(); ++c) {
        const cost::Collective& collective = evaluation.collectives[c];
        const int node = nodeOfBody(collective.op);
        if (node == kNone || collective.value.index >= graph.values.size())
            continue;
        out.ofNode[static_cast<std::size_t>(node)].push_back(c);
        const ir::Op& op = graph.op(collective.op);
        int edge = kNone;
        if (std::find(op.operands.begin(), op.operands.end(), collective.value) != op.operands.end()) {
            const int source = sourceOf(collective.value);
            if (const auto found = edgeOf.find(pairKey(source, node));
                source != kNone && found != edgeOf.end())
                edge = found->second;
        } else if (std::find(op.results.begin(), op.results.end(), collective.value) != op.results.end()) {
            for (const int e : outEdges[static_cast<std::size_t>(node)]) {
                const auto& values = projection.edges[static_cast<std::size_t>(e)].values;
                if (std::find(values.begin(), values.end(), collective.value) != values.end()) {
                    edge = e;
                    break;
                }
            }
        }
        if (edge != kNone) {
            // Only when the edge carries the value (an edge between modules carries several).
            const auto& values = projection.edges[static_cast<std::size_t>(edge)].values;
            if (std::find(values.begin(), values.end(), collective.value) != values.end())
                out.ofEdge[static_cast<std::size_t>(edge)].push_back(c);
        }
    }
    return out;
}

QString collectiveAbbreviation(cost::CollectiveKind kind) {
    switch (kind) {
        case cost::CollectiveKind::AllGather:
            return QStringLiteral("AG");
        case cost::CollectiveKind::ReduceScatter:
            return QStringLiteral("RS");
        case cost::CollectiveKind::AllReduce:
            return QStringLiteral("AR");
        case cost::CollectiveKind::AllToAll:
            return QStringLiteral("A2A");
        case cost::CollectiveKind::CollectivePermute:
            return QStringLiteral("CP");
    }
    return {};
}

QString heatMetricName(HeatMetric metric) {
    switch (metric) {
        case HeatMetric::None:
            return tr("Op kind");
        case HeatMetric::Time:
            return tr("Time");
        case HeatMetric::Communication:
            return tr("Bytes communicated");
        case HeatMetric::Memory:
            return tr("Memory");
    }
    return {};
}

std::vector<double> nodeHeat(const ProblemView& view, const GraphProjection& projection,
                             const PlanState& state, const GraphCollectives& collectives, HeatMetric metric) {
    std::vector<double> heat(projection.nodes.size(), 0.0);
    if (metric == HeatMetric::None)
        return heat;
    const ir::Graph& graph = view.graph();
    const cost::Evaluation& evaluation = state.evaluation;
    for (std::size_t n = 0; n < projection.nodes.size(); ++n) {
        const GraphNode& node = projection.nodes[n];
        double value = 0;
        const auto& own = n < collectives.ofNode.size() ? collectives.ofNode[n] : std::vector<std::size_t>{};
        switch (metric) {
            case HeatMetric::Time:
                for (const std::size_t op : node.ops)
                    if (op < evaluation.opComputeTime.size())
                        value += evaluation.opComputeTime[op];
                for (const std::size_t c : own)
                    value += evaluation.collectives[c].time;
                break;
            case HeatMetric::Communication:
                for (const std::size_t c : own)
                    value += evaluation.collectives[c].bytes;
                break;
            case HeatMetric::Memory:
                for (const std::size_t op : node.ops)
                    for (const ir::ValueId result : graph.op(graph.body[op]).results)
                        value += localBytes(graph, view.mesh(), state, result);
                for (const std::size_t a : node.arguments)
                    value += localBytes(graph, view.mesh(), state, graph.arguments[a].value);
                for (const std::size_t r : node.outputs)
                    value += localBytes(graph, view.mesh(), state, graph.outputs[r].value);
                break;
            case HeatMetric::None:
                break;
        }
        heat[n] = value;
    }
    return heat;
}

QColor heatColor(double fraction) {
    static const QColor low(0xff, 0xf7, 0xd4), high(0xa5, 0x0f, 0x15);
    return mixInOklab(low, high, fraction);
}

double heatFraction(double value, double maximum) {
    if (!(maximum > 0) || !(value > 0))
        return 0;
    return std::sqrt(std::clamp(value / maximum, 0.0, 1.0));
}

QString heatValueText(HeatMetric metric, double value) {
    switch (metric) {
        case HeatMetric::Time:
            return timeLabel(value);
        case HeatMetric::Communication:
        case HeatMetric::Memory:
            return bytesLabel(value);
        case HeatMetric::None:
            break;
    }
    return {};
}

QRectF clusterTitleRect(const QRectF& frame, const QString& label, const QFont& font) {
    const QFontMetricsF metrics(font);
    // As wide as its text (up to a limit), even over a narrow frame: a label cut to "...ops" says nothing.
    return {frame.left(), frame.top() - metrics.height() - 4,
            std::min<qreal>(360, metrics.horizontalAdvance(label + QStringLiteral("  ⊟")) + 14),
            metrics.height() + 4};
}

GraphAnnotations annotateGraph(const ProblemView& view, const GraphProjection& projection,
                               const LayoutRequest& request, const LayoutResult& layout,
                               std::shared_ptr<const PlanState> state, const QFont& labelFont,
                               qreal maxWidth) {
    const ir::Graph& graph = view.graph();
    const analysis::DecisionSpace& space = view.space();
    const mesh::Mesh& mesh = view.mesh();
    GraphAnnotations out;
    out.plan = state;
    out.edges.resize(projection.edges.size());
    if (state)
        out.collectives = graphCollectives(view, projection, state->evaluation);
    const QFontMetricsF metrics(labelFont);
    const qreal height = metrics.height() + 2;
    static const plan::TensorSharding kNoSharding;

    for (std::size_t e = 0; e < projection.edges.size(); ++e) {
        const GraphEdge& edge = projection.edges[e];
        EdgeAnnotation& label = out.edges[e];
        if (static_cast<qsizetype>(e) < layout.edges.size())
            label.marker = PathWalker(layout.edges[static_cast<qsizetype>(e)]).at(0.5);
        const ir::TensorType& type = graph.type(edge.value);
        const plan::TensorSharding& sharding = state && edge.value.index < state->shardings.size()
                                                   ? state->shardings[edge.value.index]
                                                   : kNoSharding;

        QStringList tip;
        tip << tr("%1, %2").arg(shardingText(space, mesh, edge.value, type, sharding),
                                bytesLabel(static_cast<double>(type.bytes())));
        if (edge.valueCount > 1)
            tip << tr("The largest of %1 values between these boxes").arg(edge.valueCount);

        if (state && e < out.collectives.ofEdge.size() && !out.collectives.ofEdge[e].empty()) {
            label.collectives = out.collectives.ofEdge[e];
            QStringList kinds;
            std::uint32_t axes = 0;
            tip << tr("Collectives (per device, one step):");
            for (const std::size_t c : label.collectives) {
                const cost::Collective& collective = state->evaluation.collectives[c];
                label.collectiveTime += collective.time;
                label.collectiveBytes += collective.bytes;
                axes |= collective.axes;
                const QString kind = collectiveAbbreviation(collective.kind);
                if (!kinds.contains(kind))
                    kinds << kind;
                const ir::Op& op = graph.op(collective.op);
                QString cause = toQString(ir::mnemonic(op.kind));
                if (!op.location.name.empty())
                    cause += QStringLiteral(" (%1)").arg(toQString(op.location.name));
                tip << tr("  %1 over %2: %3, %4, for %5")
                           .arg(toQString(cost::toString(collective.kind)), axesLabel(mesh, collective.axes),
                                bytesLabel(collective.bytes), timeLabel(collective.time), cause);
            }
            out.maxCollectiveTime = std::max(out.maxCollectiveTime, label.collectiveTime);
            LabelSegment badge;
            badge.kind = LabelSegment::Kind::Badge;
            badge.text = QStringLiteral("%1 %2 · %3 · %4")
                             .arg(kinds.join(QLatin1Char('+')), axesLabel(mesh, axes),
                                  bytesLabel(label.collectiveBytes), timeLabel(label.collectiveTime));
            label.segments.push_back(std::move(badge));
        }
        label.toolTip = tip.join(QLatin1Char('\n'));

        for (ShardingPart& part : shardingParts(space, mesh, edge.value, type, sharding)) {
            LabelSegment chip;
            chip.text = std::move(part.text);
            chip.name = part.name;
            chip.fill = part.name.valid() ? nameColor(space, part.name) : QColor(0xec, 0xee, 0xf1);
            label.segments.push_back(std::move(chip));
        }
        if (edge.valueCount > 1) {
            LabelSegment more;
            more.kind = LabelSegment::Kind::More;
            more.text = QStringLiteral("+%1").arg(edge.valueCount - 1);
            label.segments.push_back(std::move(more));
        }
        // Lay the segments out from 0; cut dimensions from the end until it fits.
        const auto widthOf = [&](const LabelSegment& s) {
            return metrics.horizontalAdvance(s.text) + 2 * kSegmentPadding;
        };
        qreal width = 0;
        for (const LabelSegment& s : label.segments)
            width += widthOf(s) + kSegmentGap;
        const qreal ellipsis =
            metrics.horizontalAdvance(QStringLiteral("…")) + 2 * kSegmentPadding + kSegmentGap;
        bool cut = false;
        while (width > maxWidth && label.segments.size() > 1) {
            width -= widthOf(label.segments.back()) + kSegmentGap;
            label.segments.pop_back();
            cut = true;
            if (width + ellipsis <= maxWidth)
                break;
        }
        if (cut) {
            LabelSegment more;
            more.kind = LabelSegment::Kind::More;
            more.text = QStringLiteral("…");
            label.segments.push_back(std::move(more));
        }
        qreal x = 0;
        for (LabelSegment& s : label.segments) {
            const qreal w = std::min(widthOf(s), maxWidth);
            s.rect = QRectF(x, 0, w, height);
            x += w + kSegmentGap;
        }
    }
    for (EdgeAnnotation& label : out.edges) {
        if (!label.hasBadge())
            continue;
        label.heat = heatFraction(label.collectiveTime, out.maxCollectiveTime);
        label.color = heatColor(0.35 + 0.65 * label.heat);
        for (LabelSegment& s : label.segments)
            if (s.kind == LabelSegment::Kind::Badge)
                s.fill = heatColor(label.heat);
    }

    // Placement: nodes and frame titles are taken first, then labels in order of importance.
    Occupancy taken;
    for (qsizetype n = 0; n < request.nodes.size(); ++n) {
        QRectF rect(QPointF(), request.nodes[n].size);
        rect.moveCenter(layout.centres.value(request.nodes[n].id));
        // With what the view draws around a box: a conflict site's outline, a module's stack and its badge.
        const GraphNode& node = projection.nodes[static_cast<std::size_t>(n)];
        if (node.kind == GraphNode::Kind::Module)
            rect.adjust(0, node.isConflictSite() ? -metrics.height() : 0, node.isConflictSite() ? 12 : 3, 3);
        else if (node.isConflictSite())
            rect.adjust(-4, -4, 4, 4);
        taken.add(rect);
    }
    for (const GraphCluster& cluster : projection.clusters) {
        const QRectF frame = layout.clusters.value(cluster.id);
        if (!frame.isEmpty())
            taken.add(clusterTitleRect(frame, cluster.label, labelFont));
    }
    std::vector<std::size_t> order(projection.edges.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const EdgeAnnotation& x = out.edges[a];
        const EdgeAnnotation& y = out.edges[b];
        if (x.collectiveTime != y.collectiveTime)
            return x.collectiveTime > y.collectiveTime;
        return graph.type(projection.edges[a].value).bytes() > graph.type(projection.edges[b].value).bytes();
    });
    static constexpr double kAlong[] = {0.5, 0.38, 0.62, 0.26, 0.74, 0.14, 0.86};
    for (const std::size_t e : order) {
        EdgeAnnotation& label = out.edges[e];
        if (label.segments.empty() || static_cast<qsizetype>(e) >= layout.edges.size())
            continue;
        const PathWalker path(layout.edges[static_cast<qsizetype>(e)]);
        const qreal width = label.segments.back().rect.right();
        for (const double t : kAlong) {
            const QPointF at = path.at(t);
            const QRectF right(at.x() + 4, at.y() - height / 2, width, height);
            const QRectF left(at.x() - 4 - width, at.y() - height / 2, width, height);
            for (const QRectF& candidate : {right, left}) {
                if (!taken.isFree(
                        candidate.adjusted(-kLabelMargin, -kLabelMargin, kLabelMargin, kLabelMargin)))
                    continue;
                label.rect = candidate;
                label.marker = at;
                taken.add(candidate);
                break;
            }
            if (label.placed())
                break;
        }
        if (label.placed())
            for (LabelSegment& s : label.segments)
                s.rect.translate(label.rect.topLeft());
    }
    return out;
}

}  // namespace shardscope::ui
