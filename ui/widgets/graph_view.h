// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The explorer's centre: the model graph, collapsed by module, with TOAST's names and the plan's shardings on
// it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <QColor>
#include <QGraphicsView>
#include <QPoint>
#include <QPointF>
#include <QRect>
#include <QString>

#include "core/graph_annotations.h"
#include "core/graph_layout.h"
#include "core/graph_projection.h"
#include "core/plan_state.h"
#include "core/problem_view.h"

class QComboBox;
class QLabel;
class QPushButton;
class QToolButton;
class QTimer;

namespace shardscope::ui {

class GraphLegend;
class GraphOverview;
class GraphScene;

// Draws a ProblemView's graph (GraphProjection) laid out by Graphviz off the UI thread. While a layout runs
// the previous picture stays, with a progress note and, after a second, a Cancel button; the new scene is
// built in slices across event-loop turns and swapped in when complete, keeping the zoom and the place the
// user looked at. Nodes show op kind and location, collapsed modules their op count (double-click expands;
// double-click a frame's label collapses); edges show their value's sharding under the current plan when
// zoomed in enough.
class GraphView : public QGraphicsView {
    Q_OBJECT

public:
    // Lays out with `layoutService` (which must outlive the view) when given, else with a service of its own.
    explicit GraphView(QWidget* parent = nullptr, GraphLayoutService* layoutService = nullptr);
    ~GraphView() override;

    // A new model: opens small graphs expanded and large ones collapsed by module, lays out, fits when done.
    // nullptr clears the view.
    void setProblem(std::shared_ptr<const ProblemView> problem);
    // Edge labels show each edge value's sharding under `state`'s plan; nullptr shows the names alone.
    void setPlanState(std::shared_ptr<const PlanState> state);
    // Colours nodes touching `name` and edges whose value carries it with nameColor(); dims the rest.
    void setHighlightedName(std::optional<analysis::NameId> name);
    // The same for several names at once (a group's: one per layer), in the colour of the first.
    void setHighlightedNames(std::vector<analysis::NameId> names);
    // The names lit (empty: none) and the plan whose shardings the edges show (nullptr: none).
    const std::vector<analysis::NameId>& highlightedNames() const { return highlightedNames_; }
    const std::shared_ptr<const PlanState>& planState() const { return plan_; }

    // With a plan that has a pipeline, each node shows a band on its left edge in the colour of its ops'
    // stages (pipelineStageColor; a module spanning several shows each). On by default.
    void setStageBandsShown(bool shown);
    bool stageBandsShown() const { return stageBands_; }
    // The stages node `node` of projection() shows, ascending (empty when it shows none).
    std::vector<int> nodeStages(int node) const;

    // Colours nodes by `metric` under the plan (HeatMetric::None: by what their ops do), on heatColor's scale
    // from 0 to the largest node's value; the legend shows the scale. The combo box over the graph sets it.
    void setHeatMetric(HeatMetric metric);
    HeatMetric heatMetric() const { return heat_; }
    // The heat map's value of node `node` of projection() (0 without a plan or metric).
    double nodeHeatValue(int node) const;
    // The legend over the graph: node fills (or the heat scale), outlines, badges, edge labels. Off by
    // default; the "Legend" button over the graph toggles it. It sits where the user dragged it (kept inside
    // the view), else at the first of legendPlaces() that covers the fewest nodes, chosen again when it is
    // shown, the view resized or a new picture shown (not while the user scrolls: it would jump about).
    void setLegendShown(bool shown);
    bool legendShown() const;
    // The places the legend may take by itself, in the view's coordinates, by preference: the top-left corner
    // under the controls, the top-right corner, the bottom-left corner (the overview keeps the bottom right).
    std::vector<QRect> legendPlaces() const;
    // Forgets where the user dragged the legend (as a double-click on it does).
    void placeLegendAutomatically();
    // The edge labels and collective badges of the picture shown, placed (nullptr before the first).
    std::shared_ptr<const GraphAnnotations> annotations() const;
    // Where the title tab of frame `clusterId` is, in scene coordinates (empty if there is none).
    QRectF clusterTitle(const QString& clusterId) const;

    // Expands the op's module if needed, selects the op and centres on it.
    void showOp(std::size_t bodyIndex);
    // Finds ops by kind or location name, arguments by name, values by "%12"/"%arg3" (see findInGraph).
    // Repeated calls with the same text cycle through the matches. Returns false if nothing matches.
    bool find(const QString& text);

    void expandModule(int module);
    void collapseModule(int module);
    void expandAll();
    void collapseAll();
    void fitToView();
    void zoomBy(double factor);

    // True from a change of the picture until its new scene is shown (or the change fails or is cancelled).
    bool isLayoutBusy() const;
    // Stops the running layout; the picture (and the expanded modules) stay as they were.
    void cancelLayout();

    // What is shown now (nullptr before the first layout finishes).
    std::shared_ptr<const GraphProjection> projection() const;
    // The modules open in the picture shown (or being laid out).
    const std::vector<bool>& expandedModules() const { return expanded_; }
    std::optional<int> selectedNode() const;
    // The colour node `node` of projection() is filled with now (highlight and dimming included).
    QColor nodeFillColor(int node) const;
    // The label edge `edge` of projection() shows when zoomed in.
    QString edgeLabel(int edge) const;
    // Where node `node` is, in scene coordinates (empty if unknown).
    QRectF nodeRect(int node) const;
    double zoom() const;

signals:
    void opSelected(std::size_t bodyIndex);
    void moduleSelected(int module);
    void argumentSelected(std::size_t argumentIndex);
    void layoutStarted();
    void layoutFinished();
    void layoutFailed(const QString& message);
    void layoutCancelled();
    // New labels and badges are on the picture (after a layout or a new plan).
    void labelsPlaced();
    // The heat map's metric or the legend's visibility changed (from the controls over the graph or a
    // setter).
    void heatMetricChanged(shardscope::ui::HeatMetric metric);
    void legendShownChanged(bool shown);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    bool viewportEvent(QEvent* event) override;

private:
    // What to keep in place when the new picture replaces the old: a module (its box or frame) or an op, at a
    // point of the viewport.
    struct Anchor {
        int module = -1;
        std::optional<std::size_t> op;
        QPointF viewportPoint;
        bool fit = false;
    };

    void relayout(std::vector<bool> expanded, Anchor anchor);
    Anchor anchorAtCentre() const;
    Anchor anchorForModule(int module) const;
    void onProjected(std::uint64_t generation, std::shared_ptr<const GraphProjection> projection,
                     const LayoutRequest& request);
    void onLayoutFinished(const QString& tag, std::uint64_t generation, const LayoutResult& result);
    void onLayoutFailed(const QString& tag, std::uint64_t generation, const QString& message);
    void buildSlice();
    void swapInBuiltScene();
    void retire(GraphScene* scene);
    void retireSlice();
    void endBusy();
    void selectNode(int node, bool centre);
    void onSelectionChanged();
    void updateOverlay();
    void updateOverview();
    void requestAnnotations();
    void computeHeat(GraphScene* scene) const;
    void updateLegend();
    void placeControls();
    // How many nodes of the picture shown `rect` (the view's coordinates) covers.
    std::size_t nodesUnder(const QRect& rect) const;
    GraphScene* shownScene() const;

    GraphLayoutService* service_ = nullptr;
    std::unique_ptr<GraphLayoutService> ownService_;
    GraphProjector* projector_ = nullptr;
    QString tag_;

    std::shared_ptr<const ProblemView> problem_;
    std::shared_ptr<const PlanState> plan_;
    std::optional<analysis::NameId> highlighted_;
    std::vector<analysis::NameId> highlightedNames_;
    bool stageBands_ = true;
    std::vector<bool> expanded_;       // of the picture shown or being laid out
    std::vector<bool> shownExpanded_;  // of the picture shown

    // The change in flight: projection, layout, then the scene built in slices.
    bool busy_ = false;
    std::uint64_t projectionGeneration_ = 0;
    std::uint64_t layoutGeneration_ = 0;
    std::shared_ptr<const GraphProjection> pendingProjection_;
    LayoutRequest pendingRequest_;
    Anchor pendingAnchor_;
    std::optional<std::size_t> pendingSelection_;
    GraphScene* building_ = nullptr;
    std::size_t buildCursor_ = 0;
    QTimer* buildTimer_ = nullptr;
    // Scenes replaced, deleted a slice at a time.
    std::vector<GraphScene*> retired_;
    QTimer* retireTimer_ = nullptr;

    // find(): the last query and where it got to.
    QString lastFind_;
    std::size_t findCursor_ = 0;

    QWidget* overlay_ = nullptr;
    QLabel* overlayText_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QTimer* cancelDelay_ = nullptr;
    GraphOverview* overview_ = nullptr;

    // Edge labels and badges, placed off the UI thread for the picture shown or (awaitingSwap_) the one
    // built.
    HeatMetric heat_ = HeatMetric::None;
    bool awaitingSwap_ = false;
    bool labelsPending_ = false;
    QWidget* controls_ = nullptr;
    QComboBox* heatCombo_ = nullptr;
    QToolButton* legendButton_ = nullptr;
    GraphLegend* legend_ = nullptr;
    std::optional<QPoint> legendOffset_;  // dragged by the user: its top-left from the viewport's
    JobQueue annotationJobs_{"graph labels"};
    LatestJob annotationRequests_{annotationJobs_};  // last: destroyed first
};

}  // namespace shardscope::ui
