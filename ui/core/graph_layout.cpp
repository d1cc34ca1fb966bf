// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/graph_layout.h"

#include <locale.h>

#include <functional>
#include <mutex>
#include <string>
#include <utility>

#include <QByteArray>

#include <gvc.h>

namespace shardscope::ui {
namespace {

constexpr double kPointsPerInch = 72.0;
// From this many nodes on, dot's x-positioning (network simplex, most of the time on big graphs) stops early:
// positions stay valid, edges straighten less. 3,000 nodes: about 7 s at full quality, 2 s like this.
constexpr qsizetype kLargeGraphNodes = 1000;

// Graphviz keeps global state (its error handler, dot's statics): one layout at a time in the process.
std::mutex graphvizMutex;
std::string graphvizMessages;  // guarded by graphvizMutex

int collectGraphvizMessage(char* message) {
    graphvizMessages += message;
    return 0;
}

// Graphviz 2.42/2.43 take `char*` for names and values it only reads.
char* gvText(const char* text) {
    return const_cast<char*>(text);
}

// cgraph's default IDs for named objects are the addresses of their interned names, and it orders subgraphs
// by ID, so cluster order (and with it the layout) would change from run to run. Declining to map names makes
// cgraph keep them in its internal map under sequential IDs: creation order, the same layout every time.
long mapNamesInCreationOrder(void* state, int kind, char* name, IDTYPE* id, int create) {
    if (name)
        return 0;
    return AgIdDisc.map(state, kind, name, id, create);
}

Agdisc_t* deterministicDiscipline() {
    static Agiddisc_t ids = [] {
        Agiddisc_t d = AgIdDisc;
        d.map = &mapNamesInCreationOrder;
        return d;
    }();
    static Agdisc_t discipline{&AgMemDisc, &ids, &AgIoDisc};
    return &discipline;
}

QByteArray inches(double points) {
    return QByteArray::number(points / kPointsPerInch, 'g', 12);
}

// Graphviz parses and prints doubles with the C library, so a German LC_NUMERIC would read "0.5" as 0. The
// guard switches only this thread (uselocale), leaving the GUI thread's locale alone.
class CNumericLocale {
public:
    CNumericLocale() {
        locale_t base = duplocale(uselocale(locale_t{}));
        if (!base)
            return;
        c_ = newlocale(LC_NUMERIC_MASK, "C", base);
        if (!c_) {
            freelocale(base);
            return;
        }
        previous_ = uselocale(c_);
    }
    ~CNumericLocale() {
        if (!c_)
            return;
        uselocale(previous_);
        freelocale(c_);
    }
    CNumericLocale(const CNumericLocale&) = delete;
    CNumericLocale& operator=(const CNumericLocale&) = delete;

private:
    locale_t c_{};
    locale_t previous_{};
};

// Routes Graphviz's messages into graphvizMessages and keeps warnings out of them; restores on exit.
class GraphvizMessageCapture {
public:
    GraphvizMessageCapture()
        : previousHandler_(agseterrf(&collectGraphvizMessage)), previousLevel_(agseterr(AGERR)) {
        graphvizMessages.clear();
    }
    ~GraphvizMessageCapture() {
        agseterr(previousLevel_);
        agseterrf(previousHandler_);
    }
    GraphvizMessageCapture(const GraphvizMessageCapture&) = delete;
    GraphvizMessageCapture& operator=(const GraphvizMessageCapture&) = delete;

    QString text() const { return QString::fromUtf8(graphvizMessages).trimmed(); }

private:
    agusererrf previousHandler_;
    agerrlevel_t previousLevel_;
};

struct ContextDeleter {
    void operator()(GVC_t* context) const { gvFreeContext(context); }
};
using Context = std::unique_ptr<GVC_t, ContextDeleter>;

// A graph and, once laid out, its layout; freed in Graphviz's order (gvFreeLayout, then agclose). Must be
// destroyed before its context.
class Graph {
public:
    Graph(GVC_t* context, Agraph_t* graph) : context_(context), graph_(graph) {}
    ~Graph() {
        if (laidOut_)
            gvFreeLayout(context_, graph_);
        if (graph_)
            agclose(graph_);
    }
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;

    Agraph_t* get() const { return graph_; }
    // Returns Graphviz's status (0 on success).
    int layout() {
        laidOut_ = true;  // gvFreeLayout also cleans up after a failed layout
        return gvLayout(context_, graph_, "dot");
    }

private:
    GVC_t* context_;
    Agraph_t* graph_;
    bool laidOut_ = false;
};

LayoutOutcome failure(QString message) {
    return {std::nullopt, std::move(message), false};
}

bool isCancelled(const std::function<bool()>& cancelled) {
    return cancelled && cancelled();
}

// Graphviz's origin is bottom-left with y up; Qt's is top-left with y down.
struct ToQt {
    boxf bb;
    QPointF operator()(pointf p) const { return {p.x - bb.LL.x, bb.UR.y - p.y}; }
};

QPainterPath edgePath(const splines* spline, const ToQt& toQt, QPointF from, QPointF to) {
    QPainterPath path;
    if (!spline || spline->size == 0) {
        path.moveTo(from);
        path.lineTo(to);
        return path;
    }
    for (int b = 0; b < spline->size; ++b) {
        const bezier& curve = spline->list[b];
        if (curve.size == 0)
            continue;
        if (curve.sflag) {
            path.moveTo(toQt(curve.sp));
            path.lineTo(toQt(curve.list[0]));
        } else {
            path.moveTo(toQt(curve.list[0]));
        }
        for (int i = 1; i + 2 < curve.size; i += 3)
            path.cubicTo(toQt(curve.list[i]), toQt(curve.list[i + 1]), toQt(curve.list[i + 2]));
        if (curve.eflag)
            path.lineTo(toQt(curve.ep));
    }
    return path;
}

}  // namespace

LayoutOutcome layoutWithGraphviz(const LayoutRequest& request, const std::atomic<bool>* cancel) {
    if (!cancel)
        return layoutWithGraphviz(request, std::function<bool()>());
    return layoutWithGraphviz(request, [cancel] { return cancel->load(std::memory_order_relaxed); });
}

LayoutOutcome layoutWithGraphviz(const LayoutRequest& request, const std::function<bool()>& cancel) {
    static const QStringList rankdirs = {QStringLiteral("TB"), QStringLiteral("LR"), QStringLiteral("BT"),
                                         QStringLiteral("RL")};
    if (!rankdirs.contains(request.rankdir))
        return failure(
            QObject::tr("Unknown layout direction \"%1\" (expected TB, LR, BT or RL).").arg(request.rankdir));
    if (isCancelled(cancel))
        return {std::nullopt, {}, true};

    std::lock_guard lock(graphvizMutex);
    CNumericLocale locale;
    GraphvizMessageCapture messages;

    Context context(gvContext());
    if (!context)
        return failure(QObject::tr("Cannot start Graphviz."));
    Graph graph(context.get(), agopen(gvText("layout"), Agdirected, deterministicDiscipline()));
    if (!graph.get())
        return failure(QObject::tr("Cannot create a Graphviz graph: %1").arg(messages.text()));
    Agraph_t* g = graph.get();

    agattr(g, AGRAPH, gvText("rankdir"), request.rankdir.toLatin1().data());
    agattr(g, AGRAPH, gvText("label"), gvText(""));
    if (request.nodes.size() >= kLargeGraphNodes)
        agattr(g, AGRAPH, gvText("nslimit"), gvText("0.1"));
    agattr(g, AGNODE, gvText("shape"), gvText("box"));
    agattr(g, AGNODE, gvText("fixedsize"), gvText("true"));
    agattr(g, AGNODE, gvText("label"), gvText(""));
    Agsym_t* width = agattr(g, AGNODE, gvText("width"), gvText("0.75"));
    Agsym_t* height = agattr(g, AGNODE, gvText("height"), gvText("0.5"));
    Agsym_t* weight = agattr(g, AGEDGE, gvText("weight"), gvText("1"));
    agattr(g, AGRAPH, gvText("rank"), gvText(""));

    QHash<QString, Agnode_t*> nodes;
    QHash<QString, Agraph_t*> clusters;
    nodes.reserve(request.nodes.size());
    for (const LayoutNode& node : request.nodes) {
        if (nodes.contains(node.id))
            return failure(QObject::tr("Node \"%1\" appears twice in the graph to lay out.").arg(node.id));
        Agnode_t* n = agnode(g, node.id.toUtf8().data(), 1);
        agxset(n, width, inches(node.size.width()).data());
        agxset(n, height, inches(node.size.height()).data());
        if (!node.cluster.isEmpty()) {
            Agraph_t*& cluster = clusters[node.cluster];
            if (!cluster)
                cluster = agsubg(g, (QStringLiteral("cluster_") + node.cluster).toUtf8().data(), 1);
            agsubnode(cluster, n, 1);
        }
        nodes.insert(node.id, n);
    }

    // Nodes placed beside another: one rank=same subgraph per target, inside the target's cluster.
    QHash<QString, Agraph_t*> ranks;
    QHash<QString, const LayoutNode*> byId;
    for (const LayoutNode& node : request.nodes)
        byId.insert(node.id, &node);
    for (const LayoutNode& node : request.nodes) {
        if (node.sameRankAs.isEmpty())
            continue;
        const LayoutNode* target = byId.value(node.sameRankAs);
        if (!target || target->cluster != node.cluster || target == &node)
            continue;
        Agraph_t*& rank = ranks[target->id];
        if (!rank) {
            Agraph_t* parent = target->cluster.isEmpty() ? g : clusters.value(target->cluster);
            if (!parent)
                continue;
            rank = agsubg(parent, (QStringLiteral("rank_") + target->id).toUtf8().data(), 1);
            agset(rank, gvText("rank"), gvText("same"));
            agsubnode(rank, nodes.value(target->id), 1);
        }
        agsubnode(rank, nodes.value(node.id), 1);
    }

    QVector<Agedge_t*> edges;
    edges.reserve(request.edges.size());
    for (const LayoutEdge& edge : request.edges) {
        Agnode_t* from = nodes.value(edge.from);
        Agnode_t* to = nodes.value(edge.to);
        if (!from || !to)
            return failure(
                QObject::tr("Edge %1 → %2 names a node that is not in the graph.").arg(edge.from, edge.to));
        Agedge_t* e = agedge(g, from, to, nullptr, 1);
        if (edge.weight != 1)
            agxset(e, weight, QByteArray::number(edge.weight).data());
        edges.append(e);
    }

    if (isCancelled(cancel))
        return {std::nullopt, {}, true};
    if (graph.layout() != 0)
        return failure(QObject::tr("Graphviz could not lay the graph out: %1").arg(messages.text()));
    if (isCancelled(cancel))
        return {std::nullopt, {}, true};

    const ToQt toQt{GD_bb(g)};
    LayoutResult result;
    result.bounds = QRectF(0, 0, GD_bb(g).UR.x - GD_bb(g).LL.x, GD_bb(g).UR.y - GD_bb(g).LL.y);
    result.centres.reserve(nodes.size());
    for (auto it = nodes.cbegin(); it != nodes.cend(); ++it)
        result.centres.insert(it.key(), toQt(ND_coord(it.value())));
    result.edges.reserve(edges.size());
    for (qsizetype i = 0; i < edges.size(); ++i) {
        const LayoutEdge& edge = request.edges[i];
        result.edges.append(
            edgePath(ED_spl(edges[i]), toQt, result.centres.value(edge.from), result.centres.value(edge.to)));
    }
    for (auto it = clusters.cbegin(); it != clusters.cend(); ++it) {
        const boxf box = GD_bb(it.value());
        result.clusters.insert(it.key(),
                               QRectF(toQt(pointf{box.LL.x, box.UR.y}), toQt(pointf{box.UR.x, box.LL.y})));
    }
    return {std::move(result), {}, false};
}

GraphLayoutService::GraphLayoutService(QObject* parent) : QObject(parent) {
    qRegisterMetaType<LayoutResult>();
}

GraphLayoutService::~GraphLayoutService() =
    default;  // tags_ go first (stopping the running layout), then jobs_

std::uint64_t GraphLayoutService::request(const QString& tag, LayoutRequest layout) {
    auto& latest = tags_[tag];
    if (!latest)
        latest = std::make_unique<LatestJob>(jobs_);
    return latest->run(
        [layout = std::move(layout)](const LatestJob::Token& token) {
            return layoutWithGraphviz(layout, [&token] { return token.superseded(); });
        },
        [this, tag, latest = latest.get()](const LayoutOutcome& outcome) {
            if (outcome.cancelled)
                return;
            if (outcome.result)
                emit finished(tag, latest->generation(), *outcome.result);
            else
                emit failed(tag, latest->generation(), outcome.error);
        });
}

void GraphLayoutService::cancel(const QString& tag) {
    if (const auto found = tags_.find(tag); found != tags_.end())
        found->second->cancel();
}

std::uint64_t GraphLayoutService::generation(const QString& tag) const {
    const auto found = tags_.find(tag);
    return found == tags_.end() ? 0 : found->second->generation();
}

}  // namespace shardscope::ui
