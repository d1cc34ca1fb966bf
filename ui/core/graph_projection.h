// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// What the graph view draws: the body's ops, collapsed modules, arguments and outputs as nodes, and the
// values between them as edges, for one ProblemView and one set of expanded modules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <QFont>
#include <QHash>
#include <QObject>
#include <QSizeF>
#include <QString>

#include "core/graph_layout.h"
#include "core/job_queue.h"
#include "core/problem_view.h"
#include "shardscope/analysis/decision_space.h"
#include "shardscope/ir/graph.h"

namespace shardscope::ui {

struct GraphNode {
    enum class Kind { Op, Module, Arguments, Output };
    // What an op does, for its colour (Netron colours layers by kind in the same spirit).
    enum class Family { Contraction, Elementwise, Layout, Reduction, Indexing, Control, Other };
    Kind kind = Kind::Op;
    Family family = Family::Other;  // Op only
    QString id;                     // unique in the projection, stable across projections of one ProblemView
    QString title;                  // "dot_general", "layer 3", "q_proj.weight", "output"
    QString subtitle;               // "attn.scores" or "8×128×256 f32", "212 ops"
    QString toolTip;                // everything else worth knowing, several lines
    QString cluster;                // the cluster (GraphCluster::id) the node is drawn inside, or ""
    int module = -1;               // Module: the module it stands for; Op: its innermost module; otherwise -1
    std::vector<std::size_t> ops;  // body indices it stands for (Op: one, plus constants folded into it)
    std::vector<std::size_t> arguments;   // Arguments: indices into graph.arguments
    std::vector<std::size_t> outputs;     // Output: indices into graph.outputs
    std::vector<analysis::NameId> names;  // names carried by its tensors, sorted, unique
    int conflicts = 0;                    // conflict sites among its ops (space.conflicts)
    // Arguments and Output beside a collapsed module: the module's node (the first that uses the argument,
    // the one that produces the output), drawn on its level; -1 otherwise.
    int beside = -1;

    bool isConflictSite() const { return conflicts > 0; }
};

// A run (in program order) of an expanded module's own nodes, the root's aside: Graphviz boxes them, the view
// draws a labelled frame. Frames do not nest: a module's nodes before and after one of its open submodules
// make two frames, "c5" and "c5.1".
struct GraphCluster {
    QString id;  // "c<module>" for the first run, "c<module>.<run>" for later ones
    int module = -1;
    QString label;  // "layer 3 › attn (58 ops)"
};

struct GraphEdge {
    int from = -1, to = -1;           // indices into GraphProjection::nodes
    ir::ValueId value;                // the value it carries; between collapsed modules the largest of them
    int valueCount = 1;               // values it stands for
    std::vector<ir::ValueId> values;  // all of them, in the order met (`value` among them)
    std::vector<analysis::NameId> names;  // carried by `value`, sorted, unique
};

struct GraphProjection {
    std::vector<GraphNode> nodes;
    std::vector<GraphEdge> edges;
    std::vector<GraphCluster> clusters;
    std::vector<int> nodeOfOp;  // per body index, the node showing it (an op, its module, or its consumer)
    std::vector<int> nodeOfArgument;  // per argument, its node or -1 when it is not shown
    QHash<QString, int> nodeIndex;    // id -> index into nodes

    int bodyOpCount() const { return static_cast<int>(nodeOfOp.size()); }
};

// Graphs up to this many body ops open fully expanded.
inline constexpr std::size_t kExpandedGraphOps = 400;

// Which modules start expanded (indexed like ModuleTree::modules): every module for small graphs; otherwise
// the root and, breadth first while the picture stays small, lists of numbered submodules ("layers" of
// "layers.0", ...) and modules holding most of their parent's ops.
std::vector<bool> defaultExpansion(const ModuleTree& tree, std::size_t bodyOps);

// Marks `module` and its ancestors expanded (what showing one of its ops needs).
void expandPath(const ModuleTree& tree, int module, std::vector<bool>& expanded);

// Projects the problem's graph with the modules marked in `expanded` open (the root always is; a module
// inside a collapsed one stays hidden whatever its flag). Constants are folded into their first consumer.
// Parameter-like arguments appear only when a consumer op is shown; inputs always; outputs unless donated to
// an argument. Edges join shown nodes only, at most one per ordered pair of nodes.
GraphProjection projectGraph(const ProblemView& view, const std::vector<bool>& expanded);

// The fonts node boxes are drawn with, from a base font (the application's).
struct GraphNodeFonts {
    QFont title, subtitle, label;
    explicit GraphNodeFonts(const QFont& base);
};

// The box a node is drawn in (points).
QSizeF graphNodeSize(const GraphNode& node, const GraphNodeFonts& fonts);

// The request that lays `projection` out, node sizes measured with `fonts`. Collapsed modules of one frame
// (or of the top level) form a group Graphviz keeps in a straight column; arguments and outputs beside a
// module (GraphNode::beside) share its rank.
LayoutRequest layoutRequestFor(const GraphProjection& projection, const GraphNodeFonts& fonts);

// What find() may land on: an op (body index) or an argument.
struct GraphTarget {
    enum class Kind { Op, Argument };
    Kind kind = Kind::Op;
    std::size_t index = 0;
    friend bool operator==(const GraphTarget&, const GraphTarget&) = default;
};

// Everything matching `text`, in program order (arguments first): "%12" is the value printed as %12 in the
// StableHLO text (its producer), "%arg3" the argument; otherwise a case-insensitive substring of an op's kind
// or location name, or of an argument's name.
std::vector<GraphTarget> findInGraph(const ProblemView& view, const QString& text);

// Projects and measures off the UI thread (a training step's full projection takes a few hundred ms): the
// graph view's first stage before the layout service. One request at a time; one superseded before it starts
// is skipped, and only the newest request reports.
class GraphProjector : public QObject {
    Q_OBJECT

public:
    explicit GraphProjector(QObject* parent = nullptr);
    ~GraphProjector() override;

    // Starts projecting `view` with `expanded` and measuring with `font`; returns the request's generation.
    std::uint64_t request(std::shared_ptr<const ProblemView> view, std::vector<bool> expanded,
                          const QFont& font);
    // Forgets the running request: it will not report.
    void cancel() { projections_.cancel(); }

signals:
    void projected(std::uint64_t generation,
                   std::shared_ptr<const shardscope::ui::GraphProjection> projection,
                   const shardscope::ui::LayoutRequest& request);

private:
    JobQueue jobs_{"graph projector"};
    LatestJob projections_{jobs_};  // last: destroyed first
};

}  // namespace shardscope::ui
