// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/graph_view.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFrame>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsSceneMouseEvent>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QImage>
#include <QKeyEvent>
#include <QLabel>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPathStroker>
#include <QPushButton>
#include <QScrollBar>
#include <QStyleOptionGraphicsItem>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "core/name_style.h"
#include "core/pipeline_chart.h"

namespace shardscope::ui {

namespace {

constexpr qreal kMinZoom = 0.01;
constexpr qreal kMaxZoom = 4.0;
// Below these levels of detail, text is not drawn: nobody reads 3-pixel letters, and skipping it keeps
// painting a 10k-node picture cheap.
constexpr qreal kTextDetail = 0.4;
constexpr qreal kEdgeLabelDetail = 0.75;
// A fitted picture smaller than this is unreadable: the first view of a big graph starts at its top instead.
constexpr qreal kReadableZoom = kTextDetail;  // a first view must show its labels
constexpr qreal kOpeningZoom = 0.8;
// Scene items are built in slices of this many milliseconds, so the UI thread keeps answering.
constexpr qint64 kSliceMilliseconds = 12;
// Below this level of detail (device pixels per scene unit) edges are drawn as hairline polylines.
constexpr qreal kHairlineDetail = 0.25;
constexpr int kCancelDelayMs = 1000;

struct Colours {
    QColor fill, border;
    bool dark = false;  // the fill is dark enough for white text
};

Colours familyColours(const GraphNode& node) {
    switch (node.kind) {
        case GraphNode::Kind::Module:
            return {QColor(0xe3, 0xe8, 0xf0), QColor(0x6b, 0x7a, 0x90)};
        case GraphNode::Kind::Arguments:
            return {QColor(0xff, 0xf5, 0xd6), QColor(0xc4, 0xa9, 0x4a)};
        case GraphNode::Kind::Output:
            return {QColor(0xe6, 0xe6, 0xe6), QColor(0x77, 0x77, 0x77)};
        case GraphNode::Kind::Op:
            break;
    }
    switch (node.family) {
        case GraphNode::Family::Contraction:
            return {QColor(0xd6, 0xe6, 0xf7), QColor(0x4f, 0x7f, 0xb5)};
        case GraphNode::Family::Elementwise:
            return {QColor(0xf0, 0xf2, 0xf4), QColor(0x9a, 0xa5, 0xb1)};
        case GraphNode::Family::Layout:
            return {QColor(0xe4, 0xf2, 0xe4), QColor(0x78, 0xa6, 0x78)};
        case GraphNode::Family::Reduction:
            return {QColor(0xfb, 0xe8, 0xcf), QColor(0xc2, 0x8e, 0x4f)};
        case GraphNode::Family::Indexing:
            return {QColor(0xee, 0xe2, 0xf5), QColor(0x95, 0x75, 0xb0)};
        case GraphNode::Family::Control:
            return {QColor(0xf8, 0xdf, 0xdf), QColor(0xb0, 0x6e, 0x6e)};
        case GraphNode::Family::Other:
            break;
    }
    return {QColor(0xf1, 0xf1, 0xf1), QColor(0x99, 0x99, 0x99)};
}

QColor faded(const QColor& colour) {
    // Blend toward the background rather than use opacity, so overlapping items stay tidy.
    const qreal keep = 0.3;
    return QColor::fromRgbF(static_cast<float>(colour.redF() * keep + (1 - keep)),
                            static_cast<float>(colour.greenF() * keep + (1 - keep)),
                            static_cast<float>(colour.blueF() * keep + (1 - keep)));
}

// The legend's scales, computed once (each colour of heatColor mixes in OKLab): the heat map's from 0 to 1,
// and the edges' (EdgeAnnotation::color) from 0.35 to 1.
const QGradientStops& heatScaleStops() {
    static const QGradientStops stops = [] {
        QGradientStops out;
        for (int i = 0; i <= 10; ++i)
            out.append({i / 10.0, heatColor(i / 10.0)});
        return out;
    }();
    return stops;
}

const QGradientStops& edgeScaleStops() {
    static const QGradientStops stops{{0.0, heatColor(0.35)}, {1.0, heatColor(1)}};
    return stops;
}

bool carries(const std::vector<analysis::NameId>& names, std::optional<analysis::NameId> name) {
    return name && std::binary_search(names.begin(), names.end(), *name);
}

qreal detailOf(const QStyleOptionGraphicsItem* option, const QPainter* painter) {
    return option->levelOfDetailFromTransform(painter->worldTransform());
}

}  // namespace

// The scene of one projection, and what its items need to paint.
class GraphScene : public QGraphicsScene {
public:
    GraphScene(const QFont& font, QObject* parent) : QGraphicsScene(parent), fonts(font) {
        // Items never move; a BSP index would cost a long rebuild on the UI thread for a big graph.
        setItemIndexMethod(QGraphicsScene::NoIndex);
    }

    std::shared_ptr<const ProblemView> problem;
    std::shared_ptr<const PlanState> plan;
    std::optional<analysis::NameId> highlighted;     // whose colour the highlight takes
    std::vector<analysis::NameId> highlightedNames;  // sorted: what lights up (a group's names, or one name)
    GraphNodeFonts fonts;
    bool stageBands = true;  // a band in the stage's colour on each op of a pipelined plan
    std::shared_ptr<const GraphProjection> projection;
    LayoutRequest request;
    LayoutResult layout;
    std::vector<QGraphicsItem*> nodeItems;
    std::vector<QGraphicsItem*> edgeItems;
    QHash<QString, QGraphicsItem*> clusterItems;
    GraphView* view = nullptr;
    // Edge labels and badges (placed off the UI thread), and the heat map's values per node.
    std::shared_ptr<const GraphAnnotations> annotations;
    HeatMetric heat = HeatMetric::None;
    std::vector<double> heatValues;
    double heatMax = 0;
    QGraphicsItem* labelLayer = nullptr;

private:
    mutable std::shared_ptr<const PlanState> stagesFor_;  // the plan stageOfOp_ was computed for
    mutable std::vector<int> stageOfOp_;
    // Each node's colours (heat map, highlight and dimming applied), computed at the first paint after a
    // change of any of them (recolour()) rather than at every repaint: a heat colour mixes in OKLab.
    mutable std::vector<Colours> colours_;

public:
    const GraphNode& node(int index) const { return projection->nodes[static_cast<std::size_t>(index)]; }

    // Deletes items until `timer` passes `budget` ms; returns true when none are left. Deleting thousands of
    // items at once would stall the UI thread as long as building them did.
    bool dropItems(const QElapsedTimer& timer, qint64 budget) {
        for (auto* items : {&edgeItems, &nodeItems}) {
            while (!items->empty()) {
                if ((items->size() & 63) == 0 && timer.elapsed() >= budget)
                    return false;
                delete items->back();
                items->pop_back();
            }
        }
        qDeleteAll(clusterItems);
        clusterItems.clear();
        return true;
    }

    // The pipeline stages of node `index`'s ops, ascending (empty without stage bands or a pipeline).
    std::vector<int> stagesOf(int index) const {
        if (!stageBands || !plan)
            return {};
        if (stagesFor_ != plan) {
            stageOfOp_ = pipelineStageOfOp(*plan);
            stagesFor_ = plan;
        }
        std::vector<int> out;
        if (stageOfOp_.empty())
            return out;
        std::vector<bool> seen;
        for (const std::size_t op : node(index).ops) {
            const int stage = op < stageOfOp_.size() ? stageOfOp_[op] : -1;
            if (stage < 0)
                continue;
            if (static_cast<std::size_t>(stage) >= seen.size())
                seen.resize(static_cast<std::size_t>(stage) + 1);
            seen[static_cast<std::size_t>(stage)] = true;
        }
        for (std::size_t s = 0; s < seen.size(); ++s)
            if (seen[s])
                out.push_back(static_cast<int>(s));
        return out;
    }

    // Whether a node or edge carrying `names` (sorted) is lit by the highlight.
    bool lights(const std::vector<analysis::NameId>& names) const {
        for (const auto name : highlightedNames)
            if (carries(names, name))
                return true;
        return false;
    }

    // The heat map's values or the highlight changed: the nodes' colours are computed again.
    void recolour() { colours_.clear(); }

    const Colours& coloursOf(int index) const {
        if (colours_.size() != projection->nodes.size()) {
            colours_.resize(projection->nodes.size());
            for (std::size_t i = 0; i < colours_.size(); ++i)
                colours_[i] = computeColours(i);
        }
        return colours_[static_cast<std::size_t>(index)];
    }

private:
    Colours computeColours(std::size_t index) const {
        const GraphNode& n = projection->nodes[index];
        Colours colours = familyColours(n);
        if (heat != HeatMetric::None && index < heatValues.size()) {
            colours.fill = heatColor(heatFraction(heatValues[index], heatMax));
            colours.border = colours.fill.darker(170);
        }
        if (highlighted) {
            if (lights(n.names)) {
                colours.fill = nameColor(problem->space(), *highlighted);
                colours.border = colours.fill.darker(190);
            } else {
                colours = {faded(colours.fill), faded(colours.border)};
            }
        }
        colours.dark = oklabLightness(colours.fill) < 0.62;
        return colours;
    }

public:
    QString edgeLabel(int index) const {
        const GraphEdge& edge = projection->edges[static_cast<std::size_t>(index)];
        const ir::TensorType& type = problem->graph().type(edge.value);
        static const plan::TensorSharding kNoSharding;
        const plan::TensorSharding& sharding = plan && edge.value.index < plan->shardings.size()
                                                   ? plan->shardings[edge.value.index]
                                                   : kNoSharding;
        QString text = shardingText(problem->space(), problem->mesh(), edge.value, type, sharding);
        if (edge.valueCount > 1)
            text += QStringLiteral("  +%1").arg(edge.valueCount - 1);
        return text;
    }
};

namespace {

class NodeItem : public QGraphicsItem {
public:
    NodeItem(int index, const QRectF& rect) : index_(index), rect_(rect) {
        setFlag(ItemIsSelectable);
        setZValue(2);
    }

    int index() const { return index_; }
    const QRectF& rect() const { return rect_; }
    QRectF boundingRect() const override { return rect_.adjusted(-5, -10, 10, 5); }

    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) override {
        const auto* graph = static_cast<const GraphScene*>(scene());
        const GraphNode& node = graph->node(index_);
        const Colours& colours = graph->coloursOf(index_);
        const qreal detail = detailOf(option, painter);
        if (detail < 0.15) {
            painter->fillRect(rect_, isSelected() ? QColor(0x15, 0x65, 0xc0) : colours.border);
            return;
        }
        painter->setRenderHint(QPainter::Antialiasing, detail > 0.3);
        const bool module = node.kind == GraphNode::Kind::Module;
        if (module) {
            // A collapsed module is a stack of boxes.
            painter->setPen(QPen(colours.border, 1));
            painter->setBrush(colours.fill.darker(106));
            painter->drawRoundedRect(rect_.translated(3, 3), 5, 5);
        }
        QPen pen(isSelected() ? QColor(0x15, 0x65, 0xc0) : colours.border,
                 isSelected() ? 2.5 : (module ? 1.4 : 1));
        painter->setPen(pen);
        painter->setBrush(colours.fill);
        const qreal radius = node.kind == GraphNode::Kind::Arguments ? rect_.height() / 2 : 5;
        painter->drawRoundedRect(rect_, radius, radius);
        // The stages of a pipelined plan: a band down the left edge, split evenly when a module spans
        // several.
        if (const std::vector<int> stages = graph->stagesOf(index_); !stages.empty()) {
            const qreal part = (rect_.height() - 4) / static_cast<qreal>(stages.size());
            for (std::size_t s = 0; s < stages.size(); ++s)
                painter->fillRect(
                    QRectF(rect_.left() + 1.5, rect_.top() + 2 + part * static_cast<qreal>(s), 5, part),
                    pipelineStageColor(stages[s]));
        }
        if (node.isConflictSite() && module) {
            // A box of many ops: a badge with the count of conflict sites inside, not an outline around a
            // layer that merely contains its attention scores.
            const QString count = QString::number(node.conflicts);
            const QFontMetricsF metrics(graph->fonts.label);
            const qreal width = std::max(metrics.horizontalAdvance(count) + 8, metrics.height());
            const QRectF badge(rect_.right() - width * 0.6, rect_.top() - metrics.height() * 0.45, width,
                               metrics.height());
            painter->setPen(Qt::NoPen);
            painter->setBrush(QColor(0xd3, 0x2f, 0x2f));
            painter->drawRoundedRect(badge, badge.height() / 2, badge.height() / 2);
            if (detail >= kTextDetail) {
                painter->setPen(Qt::white);
                painter->setFont(graph->fonts.label);
                painter->drawText(badge, Qt::AlignCenter, count);
            }
        } else if (node.isConflictSite()) {
            QPen conflict(QColor(0xd3, 0x2f, 0x2f), 1.6, Qt::DashLine);
            painter->setPen(conflict);
            painter->setBrush(Qt::NoBrush);
            painter->drawRoundedRect(rect_.adjusted(-3.5, -3.5, 3.5, 3.5), radius + 2, radius + 2);
        }
        if (detail < kTextDetail)
            return;
        const bool dark = colours.dark;
        const QColor ink = graph->highlighted && !graph->lights(node.names) ? QColor(0xa0, 0xa8, 0xb0)
                           : dark                                           ? QColor(Qt::white)
                                                                            : QColor(0x1f, 0x29, 0x33);
        const QFontMetricsF titleMetrics(graph->fonts.title);
        const qreal top = rect_.top() + 5 + (module ? 2 : 0);
        QRectF titleRect(rect_.left() + 4, top, rect_.width() - 8, titleMetrics.height());
        painter->setPen(ink);
        painter->setFont(graph->fonts.title);
        painter->drawText(titleRect, Qt::AlignCenter, node.title);
        if (!node.subtitle.isEmpty()) {
            const QFontMetricsF subtitleMetrics(graph->fonts.subtitle);
            QRectF subtitleRect(rect_.left() + 4, titleRect.bottom(), rect_.width() - 8,
                                subtitleMetrics.height());
            painter->setFont(graph->fonts.subtitle);
            painter->setPen(graph->highlighted && !graph->lights(node.names) ? ink
                            : dark                                           ? QColor(0xf0, 0xf0, 0xf0)
                                                                             : QColor(0x52, 0x60, 0x6d));
            painter->drawText(
                subtitleRect, Qt::AlignCenter,
                subtitleMetrics.elidedText(node.subtitle, Qt::ElideMiddle, subtitleRect.width()));
        }
    }

protected:
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override {
        auto* graph = static_cast<GraphScene*>(scene());
        const GraphNode& node = graph->node(index_);
        if (node.kind == GraphNode::Kind::Module && graph->view) {
            event->accept();
            graph->view->expandModule(node.module);
            return;
        }
        QGraphicsItem::mouseDoubleClickEvent(event);
    }

private:
    int index_;
    QRectF rect_;
};

class EdgeItem : public QGraphicsItem {
public:
    EdgeItem(int index, QPainterPath path) : index_(index), path_(std::move(path)) {
        setZValue(1);
        const QPointF tip = path_.pointAtPercent(1);
        const qreal angle = qDegreesToRadians(path_.angleAtPercent(0.999));
        // angleAtPercent counts counter-clockwise with y up; scene y grows downwards.
        const QPointF back(std::cos(angle), -std::sin(angle));
        const QPointF side(-back.y(), back.x());
        arrow_ << tip << tip - back * 8 + side * 3.5 << tip - back * 8 - side * 3.5;
        // Room for the widest stroke and a badge's marker.
        bounds_ = path_.boundingRect().united(arrow_.boundingRect()).adjusted(-8, -8, 8, 8);
        // Far out, thousands of curves are stroked on every repaint: a flattened copy drawn with a hairline
        // pen costs a fraction of that and looks the same at that size.
        const QList<QPolygonF> flattened = path_.toSubpathPolygons();
        if (!flattened.isEmpty())
            polyline_ = flattened.first();
    }

    int index() const { return index_; }
    QRectF boundingRect() const override { return bounds_; }
    QPainterPath shape() const override {
        if (shape_.isEmpty()) {
            QPainterPathStroker stroker;
            stroker.setWidth(8);
            shape_ = stroker.createStroke(path_);
        }
        return shape_;
    }

    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) override {
        const auto* graph = static_cast<const GraphScene*>(scene());
        const GraphEdge& edge = graph->projection->edges[static_cast<std::size_t>(index_)];
        const qreal detail = detailOf(option, painter);
        QColor colour(0x8a, 0x97, 0xa5);
        qreal width = std::min<qreal>(1 + 0.35 * (edge.valueCount - 1), 3);
        // An edge that reshards: in its badge's colour, wider the longer its collectives take.
        const EdgeAnnotation* annotation =
            graph->annotations && static_cast<std::size_t>(index_) < graph->annotations->edges.size()
                ? &graph->annotations->edges[static_cast<std::size_t>(index_)]
                : nullptr;
        const bool badge = annotation && annotation->hasBadge();
        double fraction = 0;
        if (badge) {
            fraction = annotation->heat;
            colour = annotation->color;
            width = 1.6 + 2.4 * fraction;
        }
        const bool lit = graph->lights(edge.names);
        if (graph->highlighted)
            colour =
                lit ? nameColor(graph->problem->space(), *graph->highlighted).darker(150) : faded(colour);
        if (lit)
            width = std::max<qreal>(width, 2.4);
        painter->setRenderHint(QPainter::Antialiasing, detail > 0.3);
        painter->setBrush(Qt::NoBrush);
        if (detail < kHairlineDetail && !polyline_.isEmpty()) {
            QPen hairline(colour, lit || badge ? 2 : 1);
            hairline.setCosmetic(true);
            painter->setPen(hairline);
            painter->drawPolyline(polyline_);
            return;  // arrowheads and labels are too small to see
        }
        painter->setPen(QPen(colour, width));
        painter->drawPath(path_);
        painter->setPen(Qt::NoPen);
        painter->setBrush(colour);
        painter->drawPolygon(arrow_);
        // A badge whose label found no free place (or is not drawn at this zoom): a dot on the edge.
        if (badge && (!annotation->placed() || detail < kEdgeLabelDetail)) {
            const qreal radius = 3 + 3 * fraction;
            painter->setPen(QPen(Qt::white, 1));
            painter->drawEllipse(annotation->marker, radius, radius);
        }
    }

private:
    int index_;
    QPainterPath path_;
    mutable QPainterPath shape_;
    QPolygonF polyline_;
    QPolygonF arrow_;
    QRectF bounds_;
};

// Every placed edge label in one item (drawn above the edges and nodes, which they never overlap): one item
// instead of thousands keeps a big scene cheap to build, and labels out of sight cost a rectangle test.
class LabelLayer : public QGraphicsItem {
public:
    explicit LabelLayer(const QRectF& bounds) : bounds_(bounds) {
        setZValue(3);
        setAcceptedMouseButtons(Qt::NoButton);
        setFlag(ItemUsesExtendedStyleOption);
    }

    QRectF boundingRect() const override { return bounds_; }
    QPainterPath shape() const override { return {}; }  // never under the mouse: tool tips come from the view

    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) override {
        const auto* graph = static_cast<const GraphScene*>(scene());
        if (!graph->annotations || detailOf(option, painter) < kEdgeLabelDetail)
            return;
        const QRectF exposed = option->exposedRect;
        painter->setRenderHint(QPainter::Antialiasing, true);
        painter->setFont(graph->fonts.label);
        const auto& edges = graph->annotations->edges;
        for (std::size_t e = 0; e < edges.size(); ++e) {
            const EdgeAnnotation& label = edges[e];
            if (!label.placed() || !label.rect.intersects(exposed))
                continue;
            const bool dim = graph->highlighted && !graph->lights(graph->projection->edges[e].names);
            painter->setOpacity(dim ? 0.35 : 1.0);
            for (const LabelSegment& segment : label.segments) {
                const QRectF& r = segment.rect;
                QColor ink(0x25, 0x31, 0x3d);
                switch (segment.kind) {
                    case LabelSegment::Kind::Badge:
                        painter->setPen(QPen(segment.fill.darker(150), 1));
                        painter->setBrush(segment.fill);
                        painter->drawRoundedRect(r, r.height() / 2, r.height() / 2);
                        if (oklabLightness(segment.fill) < 0.62)
                            ink = Qt::white;
                        break;
                    case LabelSegment::Kind::Dimension:
                        painter->setPen(QPen(segment.fill.darker(135), 0.8));
                        painter->setBrush(segment.fill);
                        painter->drawRoundedRect(r, 3, 3);
                        break;
                    case LabelSegment::Kind::More:
                        painter->setPen(Qt::NoPen);
                        painter->setBrush(QColor(255, 255, 255, 220));
                        painter->drawRoundedRect(r, 3, 3);
                        ink = QColor(0x5a, 0x66, 0x72);
                        break;
                }
                painter->setPen(ink);
                painter->drawText(r, Qt::AlignCenter, segment.text);
            }
        }
        painter->setOpacity(1.0);
    }

private:
    QRectF bounds_;
};

// An open module's frame. Its label tab (above the frame) takes double-clicks to collapse; the inside lets
// clicks through to the background so panning works.
class ClusterItem : public QGraphicsItem {
public:
    ClusterItem(int module, const QString& label, const QRectF& frame, const QFont& font)
        : module_(module), label_(label), frame_(frame), font_(font) {
        setZValue(0);
        tab_ = clusterTitleRect(frame_, label_, font_);
        setToolTip(QObject::tr("%1\nDouble-click the label to collapse").arg(label_));
    }

    const QRectF& tab() const { return tab_; }
    QRectF boundingRect() const override { return frame_.united(tab_).adjusted(-2, -2, 2, 2); }
    QPainterPath shape() const override {
        QPainterPath path;
        path.addRect(tab_);
        return path;
    }

    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) override {
        const qreal detail = detailOf(option, painter);
        painter->setRenderHint(QPainter::Antialiasing, detail > 0.3);
        painter->setPen(QPen(QColor(0xa7, 0xb4, 0xc2), 1.2));
        painter->setBrush(QColor(0xf5, 0xf7, 0xfa));
        painter->drawRoundedRect(frame_, 8, 8);
        if (detail < kTextDetail * 0.6)
            return;
        painter->setBrush(QColor(0xe1, 0xe7, 0xee));
        painter->drawRoundedRect(tab_, 4, 4);
        painter->setPen(QColor(0x3e, 0x4c, 0x59));
        painter->setFont(font_);
        // Deep paths are long: keep their end, which names this frame.
        const QRectF text = tab_.adjusted(6, 0, -4, 0);
        painter->drawText(
            text, Qt::AlignVCenter | Qt::AlignLeft,
            QFontMetricsF(font_).elidedText(label_ + QStringLiteral("  ⊟"), Qt::ElideLeft, text.width()));
    }

protected:
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override {
        auto* graph = static_cast<GraphScene*>(scene());
        if (graph->view) {
            event->accept();
            graph->view->collapseModule(module_);
        }
    }

private:
    int module_;
    QString label_;
    QRectF frame_, tab_;
    QFont font_;
};

}  // namespace

// The minimap: the whole picture in small (boxes only) and the rectangle the view shows; click or drag to
// move.
class GraphOverview : public QWidget {
public:
    GraphOverview(GraphView* view, QWidget* parent) : QWidget(parent), view_(view) {
        // Opaque, so moving the visible rectangle repaints this widget alone, not the big scene beneath it.
        setAttribute(Qt::WA_OpaquePaintEvent);
        setCursor(Qt::PointingHandCursor);
        setToolTip(QObject::tr("Overview: click or drag to move"));
    }

    void setPicture(const GraphScene* scene) {
        image_ = QImage();
        if (!scene)
            return;
        bounds_ = scene->layout.bounds;
        const QSizeF room(width() - 8.0, height() - 8.0);
        if (bounds_.isEmpty() || room.isEmpty())
            return;
        scale_ = std::min(room.width() / bounds_.width(), room.height() / bounds_.height());
        image_ = QImage(std::max(1, qRound(bounds_.width() * scale_)),
                        std::max(1, qRound(bounds_.height() * scale_)), QImage::Format_ARGB32_Premultiplied);
        image_.fill(Qt::transparent);
        QPainter painter(&image_);
        painter.scale(scale_, scale_);
        painter.translate(-bounds_.topLeft());
        for (auto it = scene->layout.clusters.cbegin(); it != scene->layout.clusters.cend(); ++it)
            painter.fillRect(it.value(), QColor(0xe6, 0xeb, 0xf1));
        for (std::size_t i = 0; i < scene->projection->nodes.size(); ++i) {
            painter.fillRect(static_cast<NodeItem*>(scene->nodeItems[i])->rect(),
                             scene->coloursOf(static_cast<int>(i)).border);
        }
        update();
    }

    void setVisibleRect(const QRectF& visible) {
        visible_ = visible;
        update();
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter painter(this);
        painter.setPen(QColor(0xb0, 0xbb, 0xc6));
        painter.setBrush(Qt::white);
        painter.drawRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5));
        if (image_.isNull())
            return;
        painter.drawImage(origin(), image_);
        QRectF shown((visible_.topLeft() - bounds_.topLeft()) * scale_ + origin(), visible_.size() * scale_);
        painter.setPen(QPen(QColor(0x15, 0x65, 0xc0), 1.5));
        painter.setBrush(QColor(0x15, 0x65, 0xc0, 30));
        painter.drawRect(shown.intersected(QRectF(rect()).adjusted(1, 1, -1, -1)));
    }
    void mousePressEvent(QMouseEvent* event) override { moveTo(event->position()); }
    void mouseMoveEvent(QMouseEvent* event) override {
        if (event->buttons() & Qt::LeftButton)
            moveTo(event->position());
    }

private:
    QPointF origin() const { return {(width() - image_.width()) / 2.0, (height() - image_.height()) / 2.0}; }
    void moveTo(const QPointF& point) {
        if (image_.isNull())
            return;
        view_->centerOn((point - origin()) / scale_ + bounds_.topLeft());
    }

    GraphView* view_;
    QImage image_;
    QRectF bounds_, visible_;
    qreal scale_ = 1;
};

// What the graph's colours and marks mean: node fills (or the heat map's scale), the conflict outline and
// badge, the collective badges and the edge labels' chips. Painted, sized to its rows. The mouse drags it;
// a double-click gives its place back to the view.
class GraphLegend : public QWidget {
public:
    explicit GraphLegend(QWidget* parent) : QWidget(parent) {
        setObjectName(QStringLiteral("graphLegend"));
        setAttribute(Qt::WA_OpaquePaintEvent);
        setCursor(Qt::OpenHandCursor);
        setToolTip(
            QObject::tr("What the graph's colours and marks mean. Drag it out of the way; double-click it to "
                        "put it back where it covers the fewest nodes."));
    }

    std::function<void(QPoint)> dragged;  // to the top-left corner given (in the parent's coordinates)
    std::function<void()> doubleClicked;

    void setContent(HeatMetric metric, double heatMax, double maxCollectiveTime) {
        metric_ = metric;
        heatMax_ = heatMax;
        maxCollective_ = maxCollectiveTime;
        const QFontMetricsF metrics(font());
        row_ = std::ceil(metrics.height() + 6);
        // The rows paintEvent draws: the fills (a heading and nine kinds, or a heading, the scale and its
        // ends), then the marks (a heading and seven lines).
        const qreal fills = metric_ == HeatMetric::None ? 10 * row_ : 3 * row_;
        setFixedSize(400, static_cast<int>(std::ceil(fills + 8 * row_ + 16)));
        update();
    }

protected:
    void mousePressEvent(QMouseEvent* event) override {
        if (event->button() != Qt::LeftButton)
            return QWidget::mousePressEvent(event);
        grab_ = event->position().toPoint();
        setCursor(Qt::ClosedHandCursor);
    }
    void mouseMoveEvent(QMouseEvent* event) override {
        if (grab_ && (event->buttons() & Qt::LeftButton) && dragged)
            dragged(mapToParent(event->position().toPoint()) - *grab_);
    }
    void mouseReleaseEvent(QMouseEvent*) override {
        grab_.reset();
        setCursor(Qt::OpenHandCursor);
    }
    void mouseDoubleClickEvent(QMouseEvent*) override {
        if (doubleClicked)
            doubleClicked();
    }

    void paintEvent(QPaintEvent*) override {
        QPainter painter(this);
        // Opaque: every pixel is painted, the antialiased border's corners included.
        painter.fillRect(rect(), Qt::white);
        painter.setRenderHint(QPainter::Antialiasing, true);
        painter.setPen(QColor(0xb0, 0xbb, 0xc6));
        painter.setBrush(Qt::white);
        painter.drawRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5));
        const QFontMetricsF metrics(font());
        qreal y = 8;
        const qreal swatchX = 10, textX = 62;
        const auto text = [&](const QString& t, bool bold = false) {
            QFont f = font();
            f.setBold(bold);
            painter.setFont(f);
            painter.setPen(QColor(0x25, 0x31, 0x3d));
            painter.drawText(QRectF(textX, y, width() - textX - 8, row_), Qt::AlignVCenter | Qt::AlignLeft,
                             QFontMetricsF(f).elidedText(t, Qt::ElideRight, width() - textX - 8));
        };
        const auto heading = [&](const QString& t) {
            QFont f = font();
            f.setBold(true);
            painter.setFont(f);
            painter.setPen(QColor(0x25, 0x31, 0x3d));
            painter.drawText(QRectF(swatchX, y, width() - 20, row_), Qt::AlignVCenter | Qt::AlignLeft, t);
            y += row_;
        };
        const QRectF swatch(swatchX, 0, 44, row_ - 8);
        const auto box = [&](const QColor& fill, const QColor& border, qreal radius) {
            painter.setPen(QPen(border, 1));
            painter.setBrush(fill);
            painter.drawRoundedRect(swatch.translated(0, y + 4), radius, radius);
        };
        if (metric_ == HeatMetric::None) {
            heading(QObject::tr("Node fill: what the op does"));
            struct Entry {
                GraphNode::Kind kind;
                GraphNode::Family family;
                const char* label;
            };
            static const Entry entries[] = {
                {GraphNode::Kind::Op, GraphNode::Family::Contraction, "matmul, convolution"},
                {GraphNode::Kind::Op, GraphNode::Family::Elementwise, "elementwise"},
                {GraphNode::Kind::Op, GraphNode::Family::Layout, "reshape, transpose, broadcast, ..."},
                {GraphNode::Kind::Op, GraphNode::Family::Reduction, "reduction"},
                {GraphNode::Kind::Op, GraphNode::Family::Indexing, "gather, scatter, slice, sort"},
                {GraphNode::Kind::Op, GraphNode::Family::Control, "control flow, collectives"},
                {GraphNode::Kind::Module, GraphNode::Family::Other, "collapsed module (double-click)"},
                {GraphNode::Kind::Arguments, GraphNode::Family::Other, "parameter or input"},
                {GraphNode::Kind::Output, GraphNode::Family::Other, "output"},
            };
            for (const Entry& entry : entries) {
                GraphNode node;
                node.kind = entry.kind;
                node.family = entry.family;
                const Colours colours = familyColours(node);
                box(colours.fill, colours.border,
                    entry.kind == GraphNode::Kind::Arguments ? swatch.height() / 2 : 4);
                text(QObject::tr(entry.label));
                y += row_;
            }
        } else {
            heading(QObject::tr("Node fill: %1").arg(heatMetricName(metric_)));
            const QRectF bar(swatchX, y + 3, width() - 2 * swatchX, row_ - 10);
            QLinearGradient gradient(bar.topLeft(), bar.topRight());
            gradient.setStops(heatScaleStops());
            painter.setPen(QPen(QColor(0x90, 0x90, 0x90), 0.8));
            painter.setBrush(gradient);
            painter.drawRect(bar);
            y += row_ - 4;
            painter.setFont(font());
            painter.setPen(QColor(0x25, 0x31, 0x3d));
            painter.drawText(QRectF(swatchX, y, 150, row_), Qt::AlignLeft | Qt::AlignVCenter,
                             QStringLiteral("0"));
            painter.drawText(QRectF(width() - swatchX - 200, y, 200, row_), Qt::AlignRight | Qt::AlignVCenter,
                             heatValueText(metric_, heatMax_));
            y += row_ + 4;
        }
        heading(QObject::tr("Marks"));
        painter.setPen(QPen(QColor(0xd3, 0x2f, 0x2f), 1.6, Qt::DashLine));
        painter.setBrush(Qt::NoBrush);
        painter.drawRoundedRect(swatch.translated(0, y + 4), 4, 4);
        text(QObject::tr("op at a conflict site (see Conflicts)"));
        y += row_;
        {
            const QRectF badge(swatchX + 14, y + 3, row_ - 6 + 6, row_ - 6);
            painter.setPen(Qt::NoPen);
            painter.setBrush(QColor(0xd3, 0x2f, 0x2f));
            painter.drawRoundedRect(badge, badge.height() / 2, badge.height() / 2);
            painter.setPen(Qt::white);
            painter.drawText(badge, Qt::AlignCenter, QStringLiteral("3"));
            text(QObject::tr("conflict sites inside a collapsed module"));
        }
        y += row_;
        {
            const QRectF bar(swatchX, y + 5, 44, row_ - 10);
            QLinearGradient gradient(bar.topLeft(), bar.topRight());
            gradient.setStops(edgeScaleStops());
            painter.setPen(Qt::NoPen);
            painter.setBrush(gradient);
            painter.drawRoundedRect(bar, bar.height() / 2, bar.height() / 2);
            text(maxCollective_ > 0 ? QObject::tr("collective on an edge, by time (up to %1)")
                                          .arg(heatValueText(HeatMetric::Time, maxCollective_))
                                    : QObject::tr("collective on an edge, by time (none in this plan)"));
        }
        y += row_;
        painter.setPen(QColor(0x25, 0x31, 0x3d));
        painter.setFont(font());
        painter.drawText(QRectF(swatchX, y, width() - 20, row_), Qt::AlignVCenter | Qt::AlignLeft,
                         QObject::tr("AG all-gather · RS reduce-scatter · AR all-reduce"));
        y += row_;
        painter.drawText(QRectF(swatchX, y, width() - 20, row_), Qt::AlignVCenter | Qt::AlignLeft,
                         QObject::tr("A2A all-to-all · CP collective-permute"));
        y += row_;
        box(paletteColor(0), paletteColor(0).darker(135), 3);
        painter.setPen(QColor(0x25, 0x31, 0x3d));
        painter.drawText(swatch.translated(0, y + 4), Qt::AlignCenter, QStringLiteral("seq"));
        text(QObject::tr("a dimension in its name's colour; @axis: sharded"));
        y += row_;
        painter.setPen(QColor(0x5a, 0x66, 0x72));
        painter.setFont(font());
        painter.drawText(QRectF(swatchX, y, width() - 20, row_), Qt::AlignVCenter | Qt::AlignLeft,
                         QObject::tr("Hover an edge for its tensor and collectives in full."));
    }

private:
    HeatMetric metric_ = HeatMetric::None;
    double heatMax_ = 0, maxCollective_ = 0;
    qreal row_ = 18;
    std::optional<QPoint> grab_;  // where the mouse holds it while dragging
};

GraphView::GraphView(QWidget* parent, GraphLayoutService* layoutService) : QGraphicsView(parent) {
    if (layoutService) {
        service_ = layoutService;
    } else {
        ownService_ = std::make_unique<GraphLayoutService>();
        service_ = ownService_.get();
    }
    tag_ = QStringLiteral("graph-view-%1").arg(reinterpret_cast<quintptr>(this), 0, 16);
    projector_ = new GraphProjector(this);
    connect(projector_, &GraphProjector::projected, this, &GraphView::onProjected);
    connect(service_, &GraphLayoutService::finished, this, &GraphView::onLayoutFinished);
    connect(service_, &GraphLayoutService::failed, this, &GraphView::onLayoutFailed);

    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    // Thousands of items: tracking their exposed regions one by one costs more than repainting the viewport,
    // which level of detail keeps cheap.
    setViewportUpdateMode(QGraphicsView::FullViewportUpdate);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setBackgroundBrush(QColor(0xfc, 0xfc, 0xfd));
    setFrameShape(QFrame::NoFrame);
    setScene(new GraphScene(font(), this));

    buildTimer_ = new QTimer(this);
    buildTimer_->setInterval(0);
    connect(buildTimer_, &QTimer::timeout, this, &GraphView::buildSlice);
    retireTimer_ = new QTimer(this);
    retireTimer_->setInterval(0);
    connect(retireTimer_, &QTimer::timeout, this, &GraphView::retireSlice);

    overlay_ = new QFrame(this);
    overlay_->setObjectName(QStringLiteral("graphLayoutOverlay"));
    // Opaque for the same reason as the overview: its progress text changes while the old picture (maybe a
    // big one) stays beneath.
    overlay_->setStyleSheet(
        QStringLiteral("#graphLayoutOverlay { background: #ffffff; border: 1px solid #b0bbc6; }"));
    overlay_->setAttribute(Qt::WA_OpaquePaintEvent);
    overlay_->setAutoFillBackground(true);
    auto* overlayLayout = new QHBoxLayout(overlay_);
    overlayLayout->setContentsMargins(10, 4, 6, 4);
    overlayText_ = new QLabel(overlay_);
    cancelButton_ = new QPushButton(tr("Cancel"), overlay_);
    cancelButton_->setObjectName(QStringLiteral("graphLayoutCancel"));
    overlayLayout->addWidget(overlayText_);
    overlayLayout->addWidget(cancelButton_);
    connect(cancelButton_, &QPushButton::clicked, this, &GraphView::cancelLayout);
    overlay_->hide();
    cancelDelay_ = new QTimer(this);
    cancelDelay_->setSingleShot(true);
    cancelDelay_->setInterval(kCancelDelayMs);
    connect(cancelDelay_, &QTimer::timeout, this, [this] {
        cancelButton_->show();
        updateOverlay();
    });

    overview_ = new GraphOverview(this, this);
    overview_->resize(200, 140);
    overview_->hide();

    // Over the top-left corner: what colours the nodes, and the legend.
    controls_ = new QFrame(this);
    controls_->setObjectName(QStringLiteral("graphControls"));
    controls_->setStyleSheet(
        QStringLiteral("#graphControls { background: #ffffff; border: 1px solid #b0bbc6; }"));
    controls_->setAutoFillBackground(true);
    auto* controlsLayout = new QHBoxLayout(controls_);
    controlsLayout->setContentsMargins(6, 3, 6, 3);
    controlsLayout->setSpacing(6);
    controlsLayout->addWidget(new QLabel(tr("Colour by"), controls_));
    heatCombo_ = new QComboBox(controls_);
    heatCombo_->setObjectName(QStringLiteral("graphHeatMetric"));
    heatCombo_->setToolTip(
        tr("Colour the nodes by what their ops do, or as a heat map of the plan's time, "
           "bytes communicated or memory"));
    for (const HeatMetric metric :
         {HeatMetric::None, HeatMetric::Time, HeatMetric::Communication, HeatMetric::Memory})
        heatCombo_->addItem(heatMetricName(metric), static_cast<int>(metric));
    controlsLayout->addWidget(heatCombo_);
    connect(heatCombo_, &QComboBox::currentIndexChanged, this, [this](int index) {
        setHeatMetric(static_cast<HeatMetric>(heatCombo_->itemData(index).toInt()));
    });
    legendButton_ = new QToolButton(controls_);
    legendButton_->setObjectName(QStringLiteral("graphLegendButton"));
    legendButton_->setText(tr("Legend"));
    legendButton_->setCheckable(true);
    legendButton_->setToolTip(tr("Show what the colours and marks of the graph mean"));
    controlsLayout->addWidget(legendButton_);
    connect(legendButton_, &QToolButton::toggled, this, &GraphView::setLegendShown);
    legend_ = new GraphLegend(this);
    legend_->hide();
    legend_->dragged = [this](QPoint topLeft) {
        legendOffset_ = topLeft - viewport()->geometry().topLeft();
        placeControls();
    };
    legend_->doubleClicked = [this] { placeLegendAutomatically(); };
    updateLegend();
    placeControls();
}

GraphView::~GraphView() {
    if (service_)
        service_->cancel(tag_);
    delete building_;
    // The scene is a child of this view: delete it while the view is still whole, without its signals.
    QGraphicsScene* shown = scene();
    shown->disconnect(this);
    setScene(nullptr);
    delete shown;
}

GraphScene* GraphView::shownScene() const {
    return static_cast<GraphScene*>(scene());
}

void GraphView::setProblem(std::shared_ptr<const ProblemView> problem) {
    problem_ = std::move(problem);
    lastFind_.clear();
    pendingSelection_.reset();
    if (!problem_) {
        cancelLayout();
        GraphScene* old = shownScene();
        setScene(new GraphScene(font(), this));
        retire(old);
        expanded_.clear();
        shownExpanded_.clear();
        overview_->setPicture(nullptr);
        overview_->hide();
        return;
    }
    Anchor anchor;
    anchor.fit = true;
    relayout(defaultExpansion(problem_->modules, problem_->graph().body.size()), anchor);
}

void GraphView::setPlanState(std::shared_ptr<const PlanState> state) {
    plan_ = std::move(state);
    // A picture of the previous model (while the new one is laid out) has no use for this model's plan.
    shownScene()->plan = shownScene()->problem == problem_ ? plan_ : nullptr;
    if (building_)
        building_->plan = plan_;
    viewport()->update();
    // New labels and badges; a picture on its way gets them before it is shown.
    if ((!busy_ && shownScene()->problem == problem_) || awaitingSwap_)
        requestAnnotations();
}

void GraphView::setHighlightedName(std::optional<analysis::NameId> name) {
    setHighlightedNames(name ? std::vector<analysis::NameId>{*name} : std::vector<analysis::NameId>{});
}

void GraphView::setHighlightedNames(std::vector<analysis::NameId> names) {
    highlighted_ = names.empty() ? std::nullopt : std::optional(names.front());
    std::sort(names.begin(), names.end());
    highlightedNames_ = std::move(names);
    for (GraphScene* scene : {shownScene(), building_}) {
        if (!scene)
            continue;
        scene->highlighted = highlighted_;
        scene->highlightedNames = highlightedNames_;
        scene->recolour();
    }
    viewport()->update();
    overview_->setPicture(shownScene()->projection ? shownScene() : nullptr);
    updateOverview();
}

void GraphView::showOp(std::size_t bodyIndex) {
    if (!problem_ || bodyIndex >= problem_->graph().body.size())
        return;
    const auto shown = projection();
    if (shown && !busy_) {
        const int node = shown->nodeOfOp[bodyIndex];
        if (node >= 0 && shown->nodes[static_cast<std::size_t>(node)].kind == GraphNode::Kind::Op) {
            selectNode(node, true);
            return;
        }
    }
    std::vector<bool> expanded = expanded_;
    expandPath(problem_->modules, problem_->modules.moduleOfOp[bodyIndex], expanded);
    pendingSelection_ = bodyIndex;
    if (busy_ && expanded == expanded_)
        return;  // the picture on its way shows the op
    Anchor anchor = anchorAtCentre();
    const int module = problem_->modules.moduleOfOp[bodyIndex];
    if (shown) {
        // Keep the collapsed box that held the op where it was.
        for (int m = module; m > 0; m = problem_->modules.modules[static_cast<std::size_t>(m)].parent)
            if (shown->nodeIndex.contains(QStringLiteral("m%1").arg(m)))
                anchor = anchorForModule(m);
    }
    relayout(std::move(expanded), anchor);
}

bool GraphView::find(const QString& text) {
    if (!problem_)
        return false;
    const std::vector<GraphTarget> targets = findInGraph(*problem_, text);
    if (targets.empty())
        return false;
    findCursor_ = text == lastFind_ ? (findCursor_ + 1) % targets.size() : 0;
    lastFind_ = text;
    const GraphTarget target = targets[findCursor_];
    if (target.kind == GraphTarget::Kind::Op) {
        showOp(target.index);
        return true;
    }
    const auto shown = projection();
    const int node = shown && !busy_ ? shown->nodeOfArgument[target.index] : -1;
    if (node >= 0) {
        selectNode(node, true);
        return true;
    }
    // Not shown: open where it is used.
    const ir::Graph& graph = problem_->graph();
    const ir::ValueId value = graph.arguments[target.index].value;
    for (std::size_t i = 0; i < graph.body.size(); ++i) {
        const auto& operands = graph.op(graph.body[i]).operands;
        if (std::find(operands.begin(), operands.end(), value) != operands.end()) {
            showOp(i);
            return true;
        }
    }
    return true;
}

void GraphView::expandModule(int module) {
    if (!problem_ || module < 0 || static_cast<std::size_t>(module) >= problem_->modules.modules.size())
        return;
    std::vector<bool> expanded = expanded_;
    expandPath(problem_->modules, module, expanded);
    if (expanded == expanded_)
        return;
    relayout(std::move(expanded), anchorForModule(module));
}

void GraphView::collapseModule(int module) {
    if (!problem_ || module <= 0 || static_cast<std::size_t>(module) >= expanded_.size() ||
        !expanded_[module])
        return;
    std::vector<bool> expanded = expanded_;
    expanded[static_cast<std::size_t>(module)] = false;
    relayout(std::move(expanded), anchorForModule(module));
}

void GraphView::expandAll() {
    if (!problem_)
        return;
    std::vector<bool> expanded(problem_->modules.modules.size(), true);
    if (expanded != expanded_)
        relayout(std::move(expanded), anchorAtCentre());
}

void GraphView::collapseAll() {
    if (!problem_)
        return;
    std::vector<bool> expanded(problem_->modules.modules.size(), false);
    if (!expanded.empty())
        expanded[0] = true;
    if (expanded != expanded_)
        relayout(std::move(expanded), anchorAtCentre());
}

void GraphView::fitToView() {
    const GraphScene* graph = shownScene();
    if (!graph->projection || graph->layout.bounds.isEmpty())
        return;
    fitInView(graph->layout.bounds.adjusted(-20, -20, 20, 20), Qt::KeepAspectRatio);
    if (zoom() > 1.0)
        setTransform(QTransform::fromScale(1.0, 1.0));
    centerOn(graph->layout.bounds.center());
    updateOverview();
}

void GraphView::zoomBy(double factor) {
    const double target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    const double applied = target / zoom();
    scale(applied, applied);
    updateOverview();
}

bool GraphView::isLayoutBusy() const {
    return busy_ || labelsPending_;
}

void GraphView::requestAnnotations() {
    GraphScene* target = awaitingSwap_ ? building_ : shownScene();
    if (!target || !target->projection || !target->problem) {
        labelsPending_ = false;
        return;
    }
    labelsPending_ = true;
    annotationRequests_.run(
        [problem = target->problem, projection = target->projection, request = target->request,
         layout = target->layout, plan = target->plan, font = target->fonts.label] {
            return std::make_shared<const GraphAnnotations>(
                annotateGraph(*problem, *projection, request, layout, plan, font));
        },
        [this, target](const std::shared_ptr<const GraphAnnotations>& annotations) {
            labelsPending_ = false;
            const bool swap = awaitingSwap_ && target == building_;
            if (!swap && target != shownScene())
                return;
            target->annotations = annotations;
            if (!target->labelLayer) {
                target->labelLayer = new LabelLayer(target->layout.bounds.adjusted(-400, -400, 400, 400));
                target->addItem(target->labelLayer);
            }
            computeHeat(target);
            if (swap) {
                swapInBuiltScene();
            } else {
                viewport()->update();
                if (heat_ != HeatMetric::None)  // the overview shows the nodes' colours
                    overview_->setPicture(target);
                updateOverview();
            }
            updateLegend();
            emit labelsPlaced();
        });
}

void GraphView::computeHeat(GraphScene* scene) const {
    scene->heat = heat_;
    scene->heatValues.clear();
    scene->heatMax = 0;
    scene->recolour();
    if (heat_ == HeatMetric::None || !scene->projection || !scene->annotations || !scene->annotations->plan)
        return;
    scene->heatValues = nodeHeat(*scene->problem, *scene->projection, *scene->annotations->plan,
                                 scene->annotations->collectives, heat_);
    for (const double value : scene->heatValues)
        scene->heatMax = std::max(scene->heatMax, value);
}

void GraphView::setHeatMetric(HeatMetric metric) {
    const bool changed = heat_ != metric;
    heat_ = metric;
    if (const int index = heatCombo_->findData(static_cast<int>(metric));
        index != heatCombo_->currentIndex()) {
        const QSignalBlocker blocker(heatCombo_);
        heatCombo_->setCurrentIndex(index);
    }
    for (GraphScene* scene : {shownScene(), building_})
        if (scene)
            computeHeat(scene);
    viewport()->update();
    overview_->setPicture(shownScene()->projection ? shownScene() : nullptr);
    updateOverview();
    updateLegend();
    if (changed)
        emit heatMetricChanged(metric);
}

double GraphView::nodeHeatValue(int node) const {
    const GraphScene* graph = shownScene();
    if (node < 0 || static_cast<std::size_t>(node) >= graph->heatValues.size())
        return 0;
    return graph->heatValues[static_cast<std::size_t>(node)];
}

void GraphView::setLegendShown(bool shown) {
    const bool changed = legendShown() != shown;
    legend_->setVisible(shown);
    if (legendButton_->isChecked() != shown) {
        const QSignalBlocker blocker(legendButton_);
        legendButton_->setChecked(shown);
    }
    placeControls();
    if (changed)
        emit legendShownChanged(shown);
}

bool GraphView::legendShown() const {
    return !legend_->isHidden();
}

std::shared_ptr<const GraphAnnotations> GraphView::annotations() const {
    return shownScene()->annotations;
}

QRectF GraphView::clusterTitle(const QString& clusterId) const {
    QGraphicsItem* item = shownScene()->clusterItems.value(clusterId);
    return item ? static_cast<ClusterItem*>(item)->tab() : QRectF();
}

void GraphView::updateLegend() {
    const GraphScene* graph = shownScene();
    legend_->setContent(heat_, graph->heatMax,
                        graph->annotations ? graph->annotations->maxCollectiveTime : 0.0);
    placeControls();
}

void GraphView::placeControls() {
    const QRect area = viewport()->geometry();
    controls_->adjustSize();
    controls_->move(area.left() + 8, area.top() + 8);
    controls_->raise();
    if (legendOffset_) {
        // Where the user put it, kept inside the view.
        const QPoint at = area.topLeft() + *legendOffset_;
        legend_->move(
            std::clamp(at.x(), area.left(), std::max(area.left(), area.right() + 1 - legend_->width())),
            std::clamp(at.y(), area.top(), std::max(area.top(), area.bottom() + 1 - legend_->height())));
    } else {
        const std::vector<QRect> places = legendPlaces();
        std::size_t best = 0;
        if (legendShown()) {
            std::size_t fewest = std::numeric_limits<std::size_t>::max();
            for (std::size_t i = 0; i < places.size(); ++i)
                if (const std::size_t covered = nodesUnder(places[i]); covered < fewest) {
                    fewest = covered;
                    best = i;
                }
        }
        legend_->move(places[best].topLeft());
    }
    legend_->raise();
}

std::vector<QRect> GraphView::legendPlaces() const {
    const QRect area = viewport()->geometry();
    const QRect controls = controls_->geometry();
    const QSize size = legend_->size();
    const int belowControls = controls.bottom() + 5;
    const QRect topLeft(QPoint(area.left() + 8, belowControls), size);
    QRect topRight(QPoint(std::max(area.left() + 8, area.right() + 1 - 8 - size.width()), area.top() + 8),
                   size);
    if (topRight.intersects(controls))
        topRight.moveTop(belowControls);
    const QRect bottomLeft(
        QPoint(area.left() + 8, std::max(belowControls, area.bottom() + 1 - 8 - size.height())), size);
    return {topLeft, topRight, bottomLeft};
}

std::size_t GraphView::nodesUnder(const QRect& rect) const {
    const GraphScene* graph = shownScene();
    if (!graph)
        return 0;
    const QRectF covered = mapToScene(rect.translated(-viewport()->pos())).boundingRect();
    std::size_t count = 0;
    for (const QGraphicsItem* item : graph->nodeItems)
        if (static_cast<const NodeItem*>(item)->rect().intersects(covered))
            ++count;
    return count;
}

void GraphView::placeLegendAutomatically() {
    legendOffset_.reset();
    placeControls();
}

bool GraphView::viewportEvent(QEvent* event) {
    if (event->type() != QEvent::ToolTip)
        return QGraphicsView::viewportEvent(event);
    auto* help = static_cast<QHelpEvent*>(event);
    const GraphScene* graph = shownScene();
    const QPointF at = mapToScene(help->pos());
    // A label, then whatever is under the mouse: a node's own tip, an edge's label in full.
    if (graph->annotations && zoom() >= kEdgeLabelDetail) {
        for (const EdgeAnnotation& label : graph->annotations->edges) {
            if (label.placed() && label.rect.contains(at)) {
                QToolTip::showText(help->globalPos(), label.toolTip, this);
                return true;
            }
        }
    }
    for (QGraphicsItem* item : items(help->pos())) {
        if (dynamic_cast<NodeItem*>(item))
            break;
        if (auto* edge = dynamic_cast<EdgeItem*>(item)) {
            const auto index = static_cast<std::size_t>(edge->index());
            const QString text = graph->annotations && index < graph->annotations->edges.size()
                                     ? graph->annotations->edges[index].toolTip
                                     : graph->edgeLabel(edge->index());
            QToolTip::showText(help->globalPos(), text, this);
            return true;
        }
    }
    return QGraphicsView::viewportEvent(event);
}

void GraphView::cancelLayout() {
    if (!busy_)
        return;
    service_->cancel(tag_);
    projector_->cancel();
    buildTimer_->stop();
    if (building_)
        retire(building_);
    building_ = nullptr;
    awaitingSwap_ = false;
    labelsPending_ = false;
    annotationRequests_.cancel();
    pendingProjection_.reset();
    pendingSelection_.reset();
    layoutGeneration_ = 0;
    expanded_ = shownExpanded_;
    endBusy();
    emit layoutCancelled();
}

std::shared_ptr<const GraphProjection> GraphView::projection() const {
    return shownScene()->projection;
}

std::optional<int> GraphView::selectedNode() const {
    for (QGraphicsItem* item : shownScene()->selectedItems())
        if (auto* node = dynamic_cast<NodeItem*>(item))
            return node->index();
    return std::nullopt;
}

QColor GraphView::nodeFillColor(int node) const {
    const GraphScene* graph = shownScene();
    if (!graph->projection || node < 0 || static_cast<std::size_t>(node) >= graph->projection->nodes.size())
        return {};
    return graph->coloursOf(node).fill;
}

void GraphView::setStageBandsShown(bool shown) {
    if (stageBands_ == shown)
        return;
    stageBands_ = shown;
    for (GraphScene* scene : {shownScene(), building_})
        if (scene)
            scene->stageBands = shown;
    viewport()->update();
}

std::vector<int> GraphView::nodeStages(int node) const {
    const GraphScene* graph = shownScene();
    if (!graph->projection || node < 0 || static_cast<std::size_t>(node) >= graph->projection->nodes.size())
        return {};
    return graph->stagesOf(node);
}

QString GraphView::edgeLabel(int edge) const {
    const GraphScene* graph = shownScene();
    if (!graph->projection || edge < 0 || static_cast<std::size_t>(edge) >= graph->projection->edges.size())
        return {};
    return graph->edgeLabel(edge);
}

QRectF GraphView::nodeRect(int node) const {
    const GraphScene* graph = shownScene();
    if (node < 0 || static_cast<std::size_t>(node) >= graph->nodeItems.size())
        return {};
    return static_cast<NodeItem*>(graph->nodeItems[static_cast<std::size_t>(node)])->rect();
}

double GraphView::zoom() const {
    return transform().m11();
}

void GraphView::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0) {
        QGraphicsView::wheelEvent(event);
        return;
    }
    zoomBy(std::pow(1.2, steps));
    event->accept();
}

void GraphView::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Escape && busy_) {
        cancelLayout();
        return;
    }
    if (event->modifiers() & Qt::ControlModifier) {
        switch (event->key()) {
            case Qt::Key_0:
                fitToView();
                return;
            case Qt::Key_Plus:
            case Qt::Key_Equal:
                zoomBy(1.25);
                return;
            case Qt::Key_Minus:
                zoomBy(0.8);
                return;
            default:
                break;
        }
    }
    QGraphicsView::keyPressEvent(event);
}

void GraphView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    updateOverlay();
    const QRect area = viewport()->geometry();
    overview_->move(area.right() - overview_->width() - 10, area.bottom() - overview_->height() - 10);
    updateOverview();
    placeControls();
}

void GraphView::scrollContentsBy(int dx, int dy) {
    QGraphicsView::scrollContentsBy(dx, dy);
    updateOverview();
}

void GraphView::relayout(std::vector<bool> expanded, Anchor anchor) {
    if (!problem_)
        return;
    // Whatever was in flight is superseded.
    buildTimer_->stop();
    if (building_)
        retire(building_);
    building_ = nullptr;
    awaitingSwap_ = false;
    labelsPending_ = false;
    annotationRequests_.cancel();
    layoutGeneration_ = 0;
    service_->cancel(tag_);

    expanded_ = std::move(expanded);
    pendingAnchor_ = anchor;
    const bool wasBusy = busy_;
    busy_ = true;
    projectionGeneration_ = projector_->request(problem_, expanded_, font());
    overlayText_->setText(tr("Preparing the graph…"));
    if (!wasBusy) {
        cancelButton_->hide();
        cancelDelay_->start();
        emit layoutStarted();
    }
    updateOverlay();
}

GraphView::Anchor GraphView::anchorAtCentre() const {
    Anchor anchor;
    const GraphScene* graph = shownScene();
    if (!graph->projection)
        return anchor;
    const QPointF centre = mapToScene(viewport()->rect().center());
    double best = std::numeric_limits<double>::max();
    for (std::size_t i = 0; i < graph->nodeItems.size(); ++i) {
        const GraphNode& node = graph->projection->nodes[i];
        if (node.ops.empty())
            continue;
        const QPointF at = static_cast<NodeItem*>(graph->nodeItems[i])->rect().center();
        const double distance = QLineF(at, centre).length();
        if (distance < best) {
            best = distance;
            anchor.op = node.ops.front();
            anchor.viewportPoint = mapFromScene(at);
        }
    }
    return anchor;
}

GraphView::Anchor GraphView::anchorForModule(int module) const {
    Anchor anchor;
    anchor.module = module;
    const GraphScene* graph = shownScene();
    anchor.viewportPoint = QPointF(viewport()->rect().center());
    if (!graph->projection)
        return anchor;
    const int node = graph->projection->nodeIndex.value(QStringLiteral("m%1").arg(module), -1);
    if (node >= 0) {
        anchor.viewportPoint = mapFromScene(
            static_cast<NodeItem*>(graph->nodeItems[static_cast<std::size_t>(node)])->rect().center());
    } else if (QGraphicsItem* cluster = graph->clusterItems.value(QStringLiteral("c%1").arg(module))) {
        anchor.viewportPoint = mapFromScene(cluster->boundingRect().center());
    }
    return anchor;
}

void GraphView::onProjected(std::uint64_t generation, std::shared_ptr<const GraphProjection> projection,
                            const LayoutRequest& request) {
    if (generation != projectionGeneration_ || !busy_)
        return;
    pendingProjection_ = std::move(projection);
    pendingRequest_ = request;
    overlayText_->setText(tr("Laying out %n nodes…", nullptr, static_cast<int>(request.nodes.size())));
    updateOverlay();
    layoutGeneration_ = service_->request(tag_, request);
}

void GraphView::onLayoutFinished(const QString& tag, std::uint64_t generation, const LayoutResult& result) {
    if (tag != tag_ || generation != layoutGeneration_ || !pendingProjection_)
        return;
    layoutGeneration_ = 0;
    building_ = new GraphScene(font(), this);
    building_->view = this;
    building_->problem = problem_;
    building_->plan = plan_;
    building_->highlighted = highlighted_;
    building_->highlightedNames = highlightedNames_;
    building_->stageBands = stageBands_;
    building_->projection = std::move(pendingProjection_);
    building_->request = std::move(pendingRequest_);
    building_->layout = result;
    // Room around the picture so any part of it can be brought to the middle of the view.
    const qreal margin = std::max<qreal>(800, std::max(result.bounds.width(), result.bounds.height()) * 0.5);
    building_->setSceneRect(result.bounds.adjusted(-margin, -margin, margin, margin));
    buildCursor_ = 0;
    overlayText_->setText(
        tr("Drawing %n nodes…", nullptr, static_cast<int>(building_->projection->nodes.size())));
    updateOverlay();
    buildTimer_->start();
}

void GraphView::onLayoutFailed(const QString& tag, std::uint64_t generation, const QString& message) {
    if (tag != tag_ || generation != layoutGeneration_)
        return;
    layoutGeneration_ = 0;
    pendingProjection_.reset();
    pendingSelection_.reset();
    expanded_ = shownExpanded_;
    endBusy();
    emit layoutFailed(message);
}

void GraphView::buildSlice() {
    if (!building_) {
        buildTimer_->stop();
        return;
    }
    GraphScene* graph = building_;
    const GraphProjection& projection = *graph->projection;
    const std::size_t clusters = projection.clusters.size();
    const std::size_t edges = projection.edges.size();
    const std::size_t nodes = projection.nodes.size();
    QElapsedTimer timer;
    timer.start();
    while (buildCursor_ < clusters + edges + nodes) {
        if ((buildCursor_ & 63) == 0 && timer.elapsed() >= kSliceMilliseconds)
            return;
        const std::size_t i = buildCursor_++;
        if (i < clusters) {
            const GraphCluster& cluster = projection.clusters[i];
            const QRectF frame = graph->layout.clusters.value(cluster.id);
            if (frame.isEmpty())
                continue;
            auto* item = new ClusterItem(cluster.module, cluster.label, frame, graph->fonts.label);
            graph->addItem(item);
            graph->clusterItems.insert(cluster.id, item);
        } else if (i < clusters + edges) {
            const std::size_t e = i - clusters;
            if (static_cast<qsizetype>(e) >= graph->layout.edges.size())
                continue;
            auto* item = new EdgeItem(static_cast<int>(e), graph->layout.edges[static_cast<qsizetype>(e)]);
            graph->addItem(item);
            graph->edgeItems.push_back(item);
        } else {
            const std::size_t n = i - clusters - edges;
            const GraphNode& node = projection.nodes[n];
            QRectF rect(QPointF(), graph->request.nodes[static_cast<qsizetype>(n)].size);
            rect.moveCenter(graph->layout.centres.value(node.id));
            auto* item = new NodeItem(static_cast<int>(n), rect);
            if (!node.toolTip.isEmpty())
                item->setToolTip(node.toolTip);
            graph->addItem(item);
            graph->nodeItems.push_back(item);
        }
    }
    buildTimer_->stop();
    // The labels are placed (off this thread) before the picture is shown.
    awaitingSwap_ = true;
    requestAnnotations();
}

void GraphView::swapInBuiltScene() {
    GraphScene* fresh = building_;
    building_ = nullptr;
    awaitingSwap_ = false;
    GraphScene* old = shownScene();
    const Anchor anchor = pendingAnchor_;

    setScene(fresh);
    connect(fresh, &QGraphicsScene::selectionChanged, this, &GraphView::onSelectionChanged);
    shownExpanded_ = expanded_;

    const GraphProjection& projection = *fresh->projection;
    auto placeAt = [this](const QPointF& scenePoint, const QPointF& viewportPoint) {
        centerOn(scenePoint);
        const QPointF now = mapFromScene(scenePoint);
        centerOn(scenePoint - (viewportPoint - now) / zoom());
    };
    if (anchor.fit) {
        fitToView();
        if (zoom() < kReadableZoom && !projection.nodes.empty()) {
            // Too small to read: start readable at the top, where the data comes in.
            setTransform(QTransform::fromScale(kOpeningZoom, kOpeningZoom));
            const QRectF first = nodeRect(0);
            placeAt(first.center(), QPointF(viewport()->width() / 2.0, first.height() * kOpeningZoom + 40));
        }
    } else {
        std::optional<QPointF> target;
        if (anchor.module >= 0) {
            if (QGraphicsItem* cluster = fresh->clusterItems.value(QStringLiteral("c%1").arg(anchor.module)))
                target = cluster->boundingRect().center();
            else if (const int node =
                         projection.nodeIndex.value(QStringLiteral("m%1").arg(anchor.module), -1);
                     node >= 0)
                target = nodeRect(node).center();
        }
        if (!target && anchor.op && *anchor.op < projection.nodeOfOp.size()) {
            const int node = projection.nodeOfOp[*anchor.op];
            if (node >= 0)
                target = nodeRect(node).center();
        }
        if (target)
            placeAt(*target, anchor.viewportPoint);
    }
    if (pendingSelection_ && *pendingSelection_ < projection.nodeOfOp.size()) {
        const int node = projection.nodeOfOp[*pendingSelection_];
        pendingSelection_.reset();
        if (node >= 0)
            selectNode(node, true);
    }
    retire(old);
    overview_->setPicture(fresh);
    endBusy();
    updateOverview();
    emit layoutFinished();
}

void GraphView::retire(GraphScene* scene) {
    scene->disconnect(this);
    scene->view = nullptr;
    {
        const QSignalBlocker blocker(scene);
        scene->clearSelection();
    }
    retired_.push_back(scene);
    retireTimer_->start();
}

void GraphView::retireSlice() {
    QElapsedTimer timer;
    timer.start();
    while (!retired_.empty()) {
        GraphScene* scene = retired_.front();
        if (!scene->dropItems(timer, kSliceMilliseconds))
            return;
        delete scene;
        retired_.erase(retired_.begin());
    }
    retireTimer_->stop();
}

void GraphView::endBusy() {
    busy_ = false;
    cancelDelay_->stop();
    overlay_->hide();
}

void GraphView::selectNode(int node, bool centre) {
    GraphScene* graph = shownScene();
    if (node < 0 || static_cast<std::size_t>(node) >= graph->nodeItems.size())
        return;
    QGraphicsItem* item = graph->nodeItems[static_cast<std::size_t>(node)];
    if (!item->isSelected()) {
        const QSignalBlocker blocker(graph);
        graph->clearSelection();
    }
    item->setSelected(true);
    if (centre)
        centerOn(item);
    updateOverview();
}

void GraphView::onSelectionChanged() {
    const auto selected = selectedNode();
    if (!selected)
        return;
    const GraphNode& node = shownScene()->node(*selected);
    switch (node.kind) {
        case GraphNode::Kind::Op:
            emit opSelected(node.ops.front());
            break;
        case GraphNode::Kind::Module:
            emit moduleSelected(node.module);
            break;
        case GraphNode::Kind::Arguments:
            emit argumentSelected(node.arguments.front());
            break;
        case GraphNode::Kind::Output:
            break;
    }
}

void GraphView::updateOverlay() {
    if (!busy_) {
        overlay_->hide();
        return;
    }
    overlay_->adjustSize();
    const QRect area = viewport()->geometry();
    overlay_->move(area.left() + (area.width() - overlay_->width()) / 2, area.top() + 12);
    overlay_->show();
    overlay_->raise();
}

void GraphView::updateOverview() {
    const GraphScene* graph = shownScene();
    if (!graph || !graph->projection) {  // no scene: the view is being destroyed
        overview_->hide();
        return;
    }
    // Only worth its corner when part of the picture is out of sight.
    const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
    const bool whole = visible.contains(graph->layout.bounds);
    overview_->setVisible(!whole);
    if (!whole) {
        overview_->setVisibleRect(visible);
        overview_->raise();
    }
}

}  // namespace shardscope::ui
