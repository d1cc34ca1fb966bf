// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/graph_projection.h"

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include <QFontMetricsF>

#include "core/text.h"

namespace shardscope::ui {

namespace {

constexpr int kNone = -1;
// Breadth-first expansion of a large graph stops before the picture holds more boxes than this.
constexpr std::size_t kOpeningNodes = 60;
// The weight of the edges that hold a column of collapsed modules straight (others weigh 1).
constexpr int kColumnWeight = 50;

QString shapeText(const ir::TensorType& type) {
    QString text;
    for (std::size_t d = 0; d < type.shape.size(); ++d) {
        if (d > 0)
            text += QChar(0x00D7);
        text += QString::number(type.shape[d]);
    }
    if (text.isEmpty())
        text = QStringLiteral("scalar");
    return text + QLatin1Char(' ') + toQString(ir::toString(type.element));
}

// The end of a location name, enough to read a node inside its module's frame: its last component, with the
// one before unless that is a layer number ("layers.0.attn.scores" -> "attn.scores", "layers.0.mlp_norm" ->
// "mlp_norm").
QString shortName(std::string_view name) {
    const QString full = toQString(name);
    const QChar separator = full.contains(QLatin1Char('/')) ? QLatin1Char('/') : QLatin1Char('.');
    const QStringList parts = full.split(separator, Qt::SkipEmptyParts);
    if (parts.size() < 2)
        return parts.join(separator);
    const QString& previous = parts[parts.size() - 2];
    bool number = false;
    previous.toInt(&number);
    return number ? parts.back() : previous + separator + parts.back();
}

GraphNode::Family familyOf(ir::OpKind kind) {
    using K = ir::OpKind;
    switch (kind) {
        case K::DotGeneral:
        case K::Convolution:
            return GraphNode::Family::Contraction;
        case K::Reshape:
        case K::Transpose:
        case K::BroadcastInDim:
        case K::Slice:
        case K::Pad:
        case K::Concatenate:
        case K::Convert:
        case K::Iota:
        case K::Constant:
            return GraphNode::Family::Layout;
        case K::Reduce:
        case K::ReduceWindow:
            return GraphNode::Family::Reduction;
        case K::Gather:
        case K::Scatter:
        case K::DynamicSlice:
        case K::DynamicUpdateSlice:
        case K::Sort:
            return GraphNode::Family::Indexing;
        default:
            break;
    }
    switch (ir::category(kind)) {
        case ir::OpCategory::ElementwiseUnary:
        case ir::OpCategory::ElementwiseBinary:
        case ir::OpCategory::ElementwiseTernary:
            return GraphNode::Family::Elementwise;
        case ir::OpCategory::Control:
        case ir::OpCategory::Collective:
            return GraphNode::Family::Control;
        default:
            return GraphNode::Family::Other;
    }
}

bool meaningfulName(std::string_view name) {
    return !name.empty() && name.front() != '%' && !ir::parseOpKind(name).has_value();
}

void appendNames(const analysis::DecisionSpace& space, ir::ValueId value,
                 std::vector<analysis::NameId>& names) {
    if (value.index >= space.dimensionAtoms.size())
        return;
    for (const auto& atoms : space.dimensionAtoms[value.index])
        for (const analysis::AtomId atom : atoms)
            if (space.atom(atom).name.valid())
                names.push_back(space.atom(atom).name);
}

void sortUnique(std::vector<analysis::NameId>& names) {
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
}

struct Projected {
    std::shared_ptr<const GraphProjection> projection;
    LayoutRequest request;
};

std::uint64_t pairKey(int from, int to) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(from)) << 32) |
           static_cast<std::uint32_t>(to);
}

}  // namespace

std::vector<bool> defaultExpansion(const ModuleTree& tree, std::size_t bodyOps) {
    std::vector<bool> expanded(tree.modules.size(), bodyOps <= kExpandedGraphOps);
    if (tree.modules.empty() || bodyOps <= kExpandedGraphOps)
        return expanded;
    expanded[0] = true;
    // Boxes shown: the root's direct ops and children. Then, breadth first and while the picture stays small,
    // lists of numbered items ("layers" holding "layers.0", "layers.1", ...: a column of layer boxes is the
    // picture people expect of a big model) and modules holding most of their parent's ops ("encoder" in a
    // model that is little else).
    const auto numbered = [&](int module) {
        const QString& path = tree.modules[static_cast<std::size_t>(module)].path;
        return !path.isEmpty() && path.back().isDigit();
    };
    const auto isList = [&](const Module& module) {
        return module.ops.empty() && module.children.size() >= 2 &&
               std::all_of(module.children.begin(), module.children.end(), numbered);
    };
    std::size_t shown = tree.modules[0].ops.size() + tree.modules[0].children.size();
    std::deque<int> queue(tree.modules[0].children.begin(), tree.modules[0].children.end());
    while (!queue.empty()) {
        const int id = queue.front();
        queue.pop_front();
        const Module& module = tree.modules[static_cast<std::size_t>(id)];
        const Module& parent = tree.modules[static_cast<std::size_t>(module.parent)];
        if (!isList(module) && module.opCount * 2 <= parent.opCount)
            continue;
        const std::size_t opened = shown - 1 + module.ops.size() + module.children.size();
        if (module.children.empty() || opened > kOpeningNodes)
            continue;
        expanded[static_cast<std::size_t>(id)] = true;
        shown = opened;
        queue.insert(queue.end(), module.children.begin(), module.children.end());
    }
    return expanded;
}

void expandPath(const ModuleTree& tree, int module, std::vector<bool>& expanded) {
    expanded.resize(tree.modules.size(), false);
    for (int m = module; m >= 0; m = tree.modules[static_cast<std::size_t>(m)].parent)
        expanded[static_cast<std::size_t>(m)] = true;
}

GraphProjection projectGraph(const ProblemView& view, const std::vector<bool>& expanded) {
    const ir::Graph& graph = view.graph();
    const analysis::DecisionSpace& space = view.space();
    const ModuleTree& tree = view.modules;
    const std::size_t opCount = graph.body.size();

    GraphProjection projection;
    projection.nodeOfOp.assign(opCount, kNone);
    projection.nodeOfArgument.assign(graph.arguments.size(), kNone);

    // The collapsed module (outermost) each module is hidden in, or kNone for modules shown open.
    std::vector<int> collapsedIn(tree.modules.size(), kNone);
    for (std::size_t m = 1; m < tree.modules.size(); ++m) {
        const int parent = tree.modules[m].parent;
        const int outer = parent >= 0 ? collapsedIn[static_cast<std::size_t>(parent)] : kNone;
        collapsedIn[m] =
            outer != kNone ? outer : (m < expanded.size() && expanded[m] ? kNone : static_cast<int>(m));
    }
    auto moduleOf = [&](std::size_t op) { return op < tree.moduleOfOp.size() ? tree.moduleOfOp[op] : 0; };
    // Frames cannot nest (the layout service draws one level of clusters), so an open module's own nodes are
    // framed in runs: a run ends where a node of one of its submodules comes, and the next run gets a frame
    // of its own ("c5", "c5.1", ...). Otherwise a frame around an encoder's first and last ops would have to
    // hold the frames of its layers too, and Graphviz would turn the picture upside down to avoid that.
    std::vector<int> runOf(tree.modules.size(), 0);
    std::vector<bool> interrupted(tree.modules.size(), false);
    std::vector<int> clusterModule;  // per cluster id in order of creation
    QHash<QString, int> clusterOfId;
    auto clusterFor = [&](int module) -> QString {
        if (module <= 0)
            return {};
        const auto m = static_cast<std::size_t>(module);
        if (interrupted[m]) {
            ++runOf[m];
            interrupted[m] = false;
        }
        for (int a = tree.modules[m].parent; a > 0; a = tree.modules[static_cast<std::size_t>(a)].parent)
            interrupted[static_cast<std::size_t>(a)] = true;
        const QString id = runOf[m] == 0 ? QStringLiteral("c%1").arg(module)
                                         : QStringLiteral("c%1.%2").arg(module).arg(runOf[m]);
        if (!clusterOfId.contains(id)) {
            clusterOfId.insert(id, static_cast<int>(clusterModule.size()));
            clusterModule.push_back(module);
        }
        return id;
    };

    std::vector<int> bodyIndex(graph.ops.size(), kNone);
    for (std::size_t i = 0; i < opCount; ++i)
        bodyIndex[graph.body[i].index] = static_cast<int>(i);
    // Constants would be half the nodes of a small graph; they fold into their first consumer.
    std::vector<int> firstUser(graph.values.size(), kNone);
    for (std::size_t i = 0; i < opCount; ++i)
        for (const ir::ValueId operand : graph.op(graph.body[i]).operands)
            if (firstUser[operand.index] == kNone)
                firstUser[operand.index] = static_cast<int>(i);
    std::vector<bool> folded(opCount, false);
    for (std::size_t i = 0; i < opCount; ++i) {
        const ir::Op& op = graph.op(graph.body[i]);
        folded[i] = op.kind == ir::OpKind::Constant && op.results.size() == 1 &&
                    firstUser[op.results.front().index] != kNone;
    }

    auto addNode = [&](GraphNode node) {
        const int index = static_cast<int>(projection.nodes.size());
        projection.nodeIndex.insert(node.id, index);
        projection.nodes.push_back(std::move(node));
        return index;
    };

    std::vector<int> moduleNode(tree.modules.size(), kNone);
    for (std::size_t i = 0; i < opCount; ++i) {
        if (folded[i])
            continue;
        const ir::Op& op = graph.op(graph.body[i]);
        const int module = moduleOf(i);
        const int collapsed = collapsedIn[static_cast<std::size_t>(module)];
        if (collapsed != kNone) {
            int& index = moduleNode[static_cast<std::size_t>(collapsed)];
            if (index == kNone) {
                const Module& m = tree.modules[static_cast<std::size_t>(collapsed)];
                GraphNode node;
                node.kind = GraphNode::Kind::Module;
                node.id = QStringLiteral("m%1").arg(collapsed);
                node.title = m.label;
                node.subtitle = QObject::tr("%n ops", nullptr, static_cast<int>(m.opCount));
                node.toolTip = QObject::tr("Module %1\n%2 ops\nDouble-click to expand")
                                   .arg(m.path.isEmpty() ? m.label : m.path)
                                   .arg(m.opCount);
                node.module = collapsed;
                node.cluster = clusterFor(m.parent);
                index = addNode(std::move(node));
            }
            projection.nodes[static_cast<std::size_t>(index)].ops.push_back(i);
            for (const ir::ValueId result : op.results)
                appendNames(space, result, projection.nodes[static_cast<std::size_t>(index)].names);
            projection.nodeOfOp[i] = index;
            continue;
        }
        GraphNode node;
        node.kind = GraphNode::Kind::Op;
        node.family = familyOf(op.kind);
        node.id = QStringLiteral("o%1").arg(i);
        node.title = toQString(ir::mnemonic(op.kind));
        const ir::TensorType* resultType = op.results.empty() ? nullptr : &graph.type(op.results.front());
        node.subtitle = meaningfulName(op.location.name) ? shortName(op.location.name)
                        : resultType                     ? shapeText(*resultType)
                                                         : QString();
        QStringList tip{node.title};
        if (!op.location.name.empty())
            tip << toQString(op.location.name);
        for (const ir::ValueId result : op.results)
            tip << shapeText(graph.type(result));
        node.toolTip = tip.join(QLatin1Char('\n'));
        node.module = module;
        node.cluster = clusterFor(module);
        node.ops.push_back(i);
        for (const ir::ValueId result : op.results)
            appendNames(space, result, node.names);
        for (const ir::ValueId operand : op.operands)
            appendNames(space, operand, node.names);
        projection.nodeOfOp[i] = addNode(std::move(node));
    }
    for (std::size_t i = 0; i < opCount; ++i) {
        if (!folded[i])
            continue;
        const int consumer =
            projection
                .nodeOfOp[static_cast<std::size_t>(firstUser[graph.op(graph.body[i]).results.front().index])];
        projection.nodeOfOp[i] = consumer;
        if (consumer != kNone)
            projection.nodes[static_cast<std::size_t>(consumer)].ops.push_back(i);
    }
    for (GraphNode& node : projection.nodes) {
        std::sort(node.ops.begin(), node.ops.end());
        sortUnique(node.names);
    }

    // Arguments: inputs always (they are where the data comes in), the rest beside a shown consumer op.
    std::vector<std::vector<int>> argumentConsumers(graph.arguments.size());
    std::vector<int> argumentOf(graph.values.size(), kNone);
    for (std::size_t a = 0; a < graph.arguments.size(); ++a)
        argumentOf[graph.arguments[a].value.index] = static_cast<int>(a);
    for (std::size_t i = 0; i < opCount; ++i) {
        if (folded[i])
            continue;
        for (const ir::ValueId operand : graph.op(graph.body[i]).operands) {
            const int a = argumentOf[operand.index];
            if (a != kNone)
                argumentConsumers[static_cast<std::size_t>(a)].push_back(projection.nodeOfOp[i]);
        }
    }
    for (std::size_t a = 0; a < graph.arguments.size(); ++a) {
        const ir::Argument& argument = graph.arguments[a];
        std::vector<int>& consumers = argumentConsumers[a];
        std::sort(consumers.begin(), consumers.end());
        consumers.erase(std::unique(consumers.begin(), consumers.end()), consumers.end());
        const bool shownConsumer = std::any_of(consumers.begin(), consumers.end(), [&](int c) {
            return projection.nodes[static_cast<std::size_t>(c)].kind == GraphNode::Kind::Op;
        });
        if (argument.role != ir::ArgumentRole::Input && !shownConsumer)
            continue;
        GraphNode node;
        node.kind = GraphNode::Kind::Arguments;
        node.id = QStringLiteral("a%1").arg(a);
        node.title = argument.name.empty() ? QStringLiteral("%arg%1").arg(a) : shortName(argument.name);
        node.subtitle = shapeText(graph.type(argument.value));
        node.toolTip =
            QStringLiteral("%1\n%2 (%3)")
                .arg(toQString(argument.name), node.subtitle, toQString(ir::toString(argument.role)));
        node.arguments.push_back(a);
        appendNames(space, argument.value, node.names);
        sortUnique(node.names);
        // Beside its consumers when they are all in one cluster, as a weight sits beside its matmul.
        if (!consumers.empty()) {
            const QString cluster = projection.nodes[static_cast<std::size_t>(consumers.front())].cluster;
            if (std::all_of(consumers.begin(), consumers.end(), [&](int c) {
                    return projection.nodes[static_cast<std::size_t>(c)].cluster == cluster;
                }))
                node.cluster = cluster;
            // Beside the first collapsed module using it, on its level: a cache or an input next to the layer
            // it feeds rather than at the top of a long picture.
            const int first = consumers.front();
            const GraphNode& consumer = projection.nodes[static_cast<std::size_t>(first)];
            if (consumer.kind == GraphNode::Kind::Module && consumer.cluster == node.cluster)
                node.beside = first;
        }
        projection.nodeOfArgument[a] = addNode(std::move(node));
    }

    // Edges, one per ordered pair of nodes, carrying the largest of their values.
    std::unordered_map<std::uint64_t, int> edgeOf;
    std::unordered_set<std::uint64_t> counted;
    auto connect = [&](int from, int to, ir::ValueId value) {
        if (from == kNone || to == kNone || from == to)
            return;
        const auto [it, inserted] =
            edgeOf.emplace(pairKey(from, to), static_cast<int>(projection.edges.size()));
        if (inserted) {
            projection.edges.push_back({from, to, value, 1, {value}, {}});
            counted.insert(pairKey(it->second, static_cast<int>(value.index)));
            return;
        }
        GraphEdge& edge = projection.edges[static_cast<std::size_t>(it->second)];
        if (!counted.insert(pairKey(it->second, static_cast<int>(value.index))).second)
            return;
        ++edge.valueCount;
        edge.values.push_back(value);
        if (graph.type(value).bytes() > graph.type(edge.value).bytes())
            edge.value = value;
    };
    auto sourceOf = [&](ir::ValueId value) {
        const int a = argumentOf[value.index];
        if (a != kNone)
            return projection.nodeOfArgument[static_cast<std::size_t>(a)];
        const ir::OpId producer = graph.value(value).producer;
        if (!producer.valid())
            return kNone;
        const int body = bodyIndex[producer.index];
        if (body == kNone || folded[static_cast<std::size_t>(body)])
            return kNone;
        return projection.nodeOfOp[static_cast<std::size_t>(body)];
    };
    for (std::size_t i = 0; i < opCount; ++i) {
        if (folded[i])
            continue;
        for (const ir::ValueId operand : graph.op(graph.body[i]).operands)
            connect(sourceOf(operand), projection.nodeOfOp[i], operand);
    }

    // Outputs that are not an argument's update (those would double the picture of a training step).
    for (std::size_t r = 0; r < graph.outputs.size(); ++r) {
        const ir::Output& output = graph.outputs[r];
        if (output.aliasedArgument)
            continue;
        GraphNode node;
        node.kind = GraphNode::Kind::Output;
        node.id = QStringLiteral("r%1").arg(r);
        node.title = output.name.empty() ? QObject::tr("output %1").arg(r) : shortName(output.name);
        node.subtitle = shapeText(graph.type(output.value));
        node.toolTip = QObject::tr("Output %1\n%2").arg(toQString(output.name), node.subtitle);
        node.outputs.push_back(r);
        appendNames(space, output.value, node.names);
        sortUnique(node.names);
        const int source = sourceOf(output.value);
        if (source != kNone &&
            projection.nodes[static_cast<std::size_t>(source)].kind == GraphNode::Kind::Module) {
            node.cluster = projection.nodes[static_cast<std::size_t>(source)].cluster;
            node.beside = source;
        }
        const int index = addNode(std::move(node));
        connect(source, index, output.value);
    }
    for (GraphEdge& edge : projection.edges) {
        appendNames(space, edge.value, edge.names);
        sortUnique(edge.names);
    }

    for (const analysis::Conflict& conflict : space.conflicts) {
        for (const analysis::ConflictSite& site : conflict.sites) {
            if (!site.op.valid() || site.op.index >= bodyIndex.size())
                continue;
            const int body = bodyIndex[site.op.index];
            if (body != kNone && projection.nodeOfOp[static_cast<std::size_t>(body)] != kNone)
                ++projection
                      .nodes[static_cast<std::size_t>(projection.nodeOfOp[static_cast<std::size_t>(body)])]
                      .conflicts;
        }
    }

    // A frame per run of an open module's nodes, labelled with the module's path from the top.
    std::vector<QString> ids(clusterModule.size());
    for (auto it = clusterOfId.cbegin(); it != clusterOfId.cend(); ++it)
        ids[static_cast<std::size_t>(it.value())] = it.key();
    for (std::size_t c = 0; c < ids.size(); ++c) {
        const int m = clusterModule[c];
        QStringList labels;
        for (int p = m; p > 0; p = tree.modules[static_cast<std::size_t>(p)].parent)
            labels.prepend(tree.modules[static_cast<std::size_t>(p)].label);
        projection.clusters.push_back(
            {ids[c], m,
             QStringLiteral("%1 (%2)").arg(
                 labels.join(QStringLiteral(" › ")),
                 QObject::tr("%n ops", nullptr,
                             static_cast<int>(tree.modules[static_cast<std::size_t>(m)].opCount)))});
    }
    return projection;
}

GraphNodeFonts::GraphNodeFonts(const QFont& base) : title(base), subtitle(base), label(base) {
    title.setBold(true);
    const qreal size = base.pointSizeF() > 0 ? base.pointSizeF() : 9;
    subtitle.setPointSizeF(size * 0.85);
    label.setPointSizeF(size * 0.8);
}

QSizeF graphNodeSize(const GraphNode& node, const GraphNodeFonts& fonts) {
    const QFontMetricsF title(fonts.title), subtitle(fonts.subtitle);
    const qreal width =
        std::max(title.horizontalAdvance(node.title), subtitle.horizontalAdvance(node.subtitle));
    const qreal padding = node.kind == GraphNode::Kind::Module ? 28 : 20;
    const qreal height = title.height() + (node.subtitle.isEmpty() ? 0 : subtitle.height()) + 10 +
                         (node.kind == GraphNode::Kind::Module ? 8 : 0);
    return {std::max<qreal>(width + padding, 60), height};
}

LayoutRequest layoutRequestFor(const GraphProjection& projection, const GraphNodeFonts& fonts) {
    LayoutRequest request;
    request.nodes.reserve(static_cast<qsizetype>(projection.nodes.size()));
    for (const GraphNode& node : projection.nodes) {
        LayoutNode layout{node.id, graphNodeSize(node, fonts), node.cluster};
        if (node.beside >= 0)
            layout.sameRankAs = projection.nodes[static_cast<std::size_t>(node.beside)].id;
        request.nodes.append(std::move(layout));
    }
    request.edges.reserve(static_cast<qsizetype>(projection.edges.size()));
    // A column of collapsed modules: each one after the previous of its frame, held straight below it (by
    // their edge, or by one that is not drawn).
    std::unordered_map<std::uint64_t, int> edgeOf;
    for (std::size_t e = 0; e < projection.edges.size(); ++e)
        edgeOf.emplace(pairKey(projection.edges[e].from, projection.edges[e].to), static_cast<int>(e));
    std::vector<std::pair<int, int>> spine;
    QHash<QString, int> previous;
    for (std::size_t n = 0; n < projection.nodes.size(); ++n) {
        const GraphNode& node = projection.nodes[n];
        if (node.kind != GraphNode::Kind::Module)
            continue;
        const auto found = previous.constFind(node.cluster);
        if (found != previous.constEnd())
            spine.emplace_back(found.value(), static_cast<int>(n));
        previous.insert(node.cluster, static_cast<int>(n));
    }
    for (const GraphEdge& edge : projection.edges)
        request.edges.append({projection.nodes[static_cast<std::size_t>(edge.from)].id,
                              projection.nodes[static_cast<std::size_t>(edge.to)].id, 1});
    for (const auto& [from, to] : spine) {
        if (const auto found = edgeOf.find(pairKey(from, to)); found != edgeOf.end()) {
            request.edges[found->second].weight = kColumnWeight;
        } else if (!edgeOf.contains(pairKey(to, from))) {
            request.edges.append({projection.nodes[static_cast<std::size_t>(from)].id,
                                  projection.nodes[static_cast<std::size_t>(to)].id, kColumnWeight});
        }
    }
    return request;
}

std::vector<GraphTarget> findInGraph(const ProblemView& view, const QString& text) {
    const ir::Graph& graph = view.graph();
    const QString query = text.trimmed();
    std::vector<GraphTarget> found;
    if (query.isEmpty())
        return found;

    if (query.startsWith(QLatin1String("%arg"))) {
        bool ok = false;
        const auto index = query.mid(4).toULongLong(&ok);
        if (ok && index < graph.arguments.size())
            found.push_back({GraphTarget::Kind::Argument, static_cast<std::size_t>(index)});
        return found;
    }
    if (query.startsWith(QLatin1Char('%'))) {
        bool ok = false;
        const auto number = query.mid(1).section(QLatin1Char('#'), 0, 0).toULongLong(&ok);
        if (!ok)
            return found;
        // The printer numbers ops with results in print order, nested regions right after their op.
        std::uint64_t counter = 0;
        for (std::size_t i = 0; i < graph.body.size(); ++i) {
            std::vector<ir::OpId> pending{graph.body[i]};
            while (!pending.empty()) {
                const ir::Op& op = graph.op(pending.back());
                pending.pop_back();
                if (!op.results.empty() && counter++ == number) {
                    found.push_back({GraphTarget::Kind::Op, i});
                    return found;
                }
                // A reduce with a plain reducer prints as "applies stablehlo.add": its body is not printed.
                if (op.kind == ir::OpKind::Reduce && op.operands.size() == 2 &&
                    std::get<ir::ReduceAttributes>(op.attributes).reducer != ir::Reducer::Other)
                    continue;
                for (auto region = op.regions.rbegin(); region != op.regions.rend(); ++region)
                    pending.insert(pending.end(), region->ops.rbegin(), region->ops.rend());
            }
        }
        return found;
    }
    for (std::size_t a = 0; a < graph.arguments.size(); ++a)
        if (toQString(graph.arguments[a].name).contains(query, Qt::CaseInsensitive))
            found.push_back({GraphTarget::Kind::Argument, a});
    for (std::size_t i = 0; i < graph.body.size(); ++i) {
        const ir::Op& op = graph.op(graph.body[i]);
        if (toQString(ir::mnemonic(op.kind)).contains(query, Qt::CaseInsensitive) ||
            toQString(op.location.name).contains(query, Qt::CaseInsensitive))
            found.push_back({GraphTarget::Kind::Op, i});
    }
    return found;
}

GraphProjector::GraphProjector(QObject* parent) : QObject(parent) {}

GraphProjector::~GraphProjector() = default;  // projections_ goes first; jobs_ then waits for the running one

std::uint64_t GraphProjector::request(std::shared_ptr<const ProblemView> view, std::vector<bool> expanded,
                                      const QFont& font) {
    return projections_.run(
        [view = std::move(view), expanded = std::move(expanded), font] {
            auto projection = std::make_shared<const GraphProjection>(projectGraph(*view, expanded));
            LayoutRequest request = layoutRequestFor(*projection, GraphNodeFonts(font));
            return Projected{std::move(projection), std::move(request)};
        },
        [this](const Projected& result) {
            if (result.projection)
                emit projected(projections_.generation(), result.projection, result.request);
        });
}

}  // namespace shardscope::ui
