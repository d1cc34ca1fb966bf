// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/module_tree.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "core/text.h"

namespace shardscope::ui {

namespace {

// A training step's ops come in three phases the training-step builder marks in location names: backward ops
// end in ".grad", optimizer ops in ".update". Each phase gets its own modules, so a layer's forward and
// backward ops are not one box spanning the whole step.
enum class Phase { Forward, Backward, Optimizer };

// Leaf modules this small are folded into their parent: a box per matmul helps nobody.
constexpr std::size_t kTinyModule = 2;
// Ops per module when neither names nor repeated structure say anything.
constexpr std::size_t kRunLength = 64;

bool endsWith(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool isNumber(std::string_view text) {
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(separator, start), text.size());
        if (end > start)
            parts.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return parts;
}

// The module path an op's location name gives, one component per level; empty when the name says nothing
// about modules (no name, an SSA name like "%arg3", or only an op mnemonic as autodiff gives unnamed ops'
// gradients). ONNX node names ("/layer4/layer4.2/conv3/Conv") end in the node's own name, which is dropped,
// and repeat their parent's path in dotted components ("layer4.2" under "layer4"), which is dropped too.
std::vector<std::string_view> modulePath(std::string_view name) {
    if (name.empty() || name.front() == '%')
        return {};
    // Names an exporter derived from op kinds ("multiply", "reshape.56", "dot.3") say nothing about modules.
    const std::string_view head = name.substr(0, name.find_first_of("./"));
    if (ir::parseOpKind(head).has_value() || head == "broadcast" || head == "dot")
        return {};
    if (name.find('/') == std::string_view::npos)
        return split(name, '.');
    std::vector<std::string_view> parts = split(name, '/');
    if (parts.size() > 1)
        parts.pop_back();
    std::vector<std::string_view> path;
    for (const std::string_view part : parts) {
        const std::vector<std::string_view> dotted = split(part, '.');
        std::size_t repeated = 0;
        for (std::size_t l = std::min(dotted.size() - 1, path.size()); l > 0; --l) {
            if (std::equal(dotted.begin(), dotted.begin() + static_cast<std::ptrdiff_t>(l),
                           path.end() - static_cast<std::ptrdiff_t>(l))) {
                repeated = l;
                break;
            }
        }
        path.insert(path.end(), dotted.begin() + static_cast<std::ptrdiff_t>(repeated), dotted.end());
    }
    return path;
}

// "layers" + "3" -> "layer 3": a numbered component reads as one item of its parent's list. Other lists keep
// the path's spelling ("layer1" + "0" -> "layer1.0").
QString componentLabel(const QString& parentComponent, std::string_view component) {
    if (!isNumber(component) || parentComponent.isEmpty())
        return toQString(component);
    if (parentComponent.size() > 1 && parentComponent.endsWith(QLatin1Char('s')))
        return parentComponent.chopped(1) + QLatin1Char(' ') + toQString(component);
    return parentComponent + QLatin1Char('.') + toQString(component);
}

// The tree under construction: a trie of path components whose nodes are later folded and renumbered.
struct Draft {
    struct Node {
        QString path, label, component;
        int parent = -1;
        std::vector<int> children;
        std::vector<std::size_t> ops;
        bool alive = true;
    };
    std::vector<Node> nodes;
    std::unordered_map<std::string, int> index;  // parent id + '\x1f' + component -> node

    Draft() { nodes.push_back({QString(), QStringLiteral("model"), QString(), -1, {}, {}, true}); }

    int add(int parent, const QString& label, const QString& component, const QString& path) {
        nodes.push_back({path, label, component, parent, {}, {}, true});
        const int id = static_cast<int>(nodes.size()) - 1;
        nodes[static_cast<std::size_t>(parent)].children.push_back(id);
        return id;
    }

    int child(int parent, std::string_view component) {
        std::string key = std::to_string(parent);
        key += '\x1f';
        key += component;
        const auto found = index.find(key);
        if (found != index.end())
            return found->second;
        const Node& p = nodes[static_cast<std::size_t>(parent)];
        const QString c = toQString(component);
        const QString path = p.path.isEmpty() ? c : p.path + QLatin1Char('.') + c;
        const int id = add(parent, componentLabel(p.component, component), c, path);
        index.emplace(std::move(key), id);
        return id;
    }

    Node& at(int id) { return nodes[static_cast<std::size_t>(id)]; }
};

// Phase containers ("backward", "optimizer") below the root, created on first use.
int phaseRoot(Draft& draft, Phase phase) {
    if (phase == Phase::Forward)
        return 0;
    return draft.child(0, phase == Phase::Backward ? "backward" : "optimizer");
}

void assignByNames(Draft& draft, const std::vector<std::size_t>& ops, Phase phase,
                   const std::vector<std::vector<std::string_view>>& paths) {
    const int root = phaseRoot(draft, phase);
    std::vector<int> target(ops.size(), -1);
    for (std::size_t k = 0; k < ops.size(); ++k) {
        int node = root;
        for (const std::string_view component : paths[ops[k]])
            node = draft.child(node, component);
        if (!paths[ops[k]].empty())
            target[k] = node;
    }
    // Unnamed ops (constants, reshapes an importer made up) join the named op before them, or after them at
    // the start, so modules stay runs of program order.
    int previous = -1;
    for (std::size_t k = 0; k < ops.size(); ++k) {
        if (target[k] >= 0)
            previous = target[k];
        else if (previous >= 0)
            target[k] = previous;
    }
    int next = root;
    for (std::size_t k = ops.size(); k-- > 0;) {
        if (target[k] >= 0)
            next = target[k];
        else
            target[k] = next;
    }
    for (std::size_t k = 0; k < ops.size(); ++k)
        draft.at(target[k]).ops.push_back(ops[k]);
}

void assignByRuns(Draft& draft, const std::vector<std::size_t>& ops, int root) {
    if (ops.size() <= kRunLength) {
        auto& target = draft.at(root).ops;
        target.insert(target.end(), ops.begin(), ops.end());
        return;
    }
    for (std::size_t start = 0; start < ops.size(); start += kRunLength) {
        const std::size_t end = std::min(ops.size(), start + kRunLength);
        const QString label = QStringLiteral("ops %1-%2").arg(ops[start]).arg(ops[end - 1]);
        const int node =
            draft.add(root, label, QString(),
                      draft.at(root).path.isEmpty() ? label : draft.at(root).path + QLatin1Char('.') + label);
        draft.at(node).ops.assign(ops.begin() + static_cast<std::ptrdiff_t>(start),
                                  ops.begin() + static_cast<std::ptrdiff_t>(end));
    }
}

// Layers found from the analysis: the names of one role, one per layer.
struct LayerNames {
    std::vector<analysis::NameId> names;  // names[j] belongs to layer j
};

// For every op of `ops`, the names its results carry (callback per (op position, name)).
template <typename F>
void forEachCarriedName(const ir::Graph& graph, const analysis::DecisionSpace& space,
                        const std::vector<std::size_t>& ops, F&& visit) {
    for (std::size_t k = 0; k < ops.size(); ++k) {
        const ir::Op& op = graph.op(graph.body[ops[k]]);
        for (const ir::ValueId result : op.results) {
            if (result.index >= space.dimensionAtoms.size())
                continue;
            for (const auto& atoms : space.dimensionAtoms[result.index])
                for (const analysis::AtomId atom : atoms)
                    if (space.atom(atom).name.valid())
                        visit(k, space.atom(atom).name);
        }
    }
}

// A group (or a set of names alike in size and footprint) with one name per layer: its names first appear one
// after another, at roughly regular intervals, through `ops` (the forward pass). Of the sizes such groups
// have, the most common is the layer count. Returns the names in order of first appearance, or nothing.
std::optional<LayerNames> findLayers(const ir::Graph& graph, const analysis::DecisionSpace& space,
                                     const std::vector<std::size_t>& ops) {
    constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::vector<std::size_t> first(space.names.size(), kNone);
    forEachCarriedName(graph, space, ops, [&](std::size_t k, analysis::NameId name) {
        if (first[name.index] == kNone)
            first[name.index] = k;
    });

    struct Candidate {
        std::vector<analysis::NameId> names;
        std::size_t start = 0;
    };
    // The analysis's groups, and names alike in size and footprint: a training step's backward pass often
    // makes the last layer's names differ structurally from the others, leaving every group a singleton.
    std::vector<std::vector<analysis::NameId>> roles;
    for (const analysis::Group& group : space.groups)
        if (group.names.size() >= 2)
            roles.push_back(group.names);
    {
        std::map<std::tuple<std::int64_t, std::size_t, long long>, std::vector<analysis::NameId>> alike;
        for (std::size_t n = 0; n < space.names.size(); ++n) {
            const analysis::Name& name = space.names[n];
            alike[{name.size, name.tensors, std::llround(name.bytes)}].push_back(
                analysis::NameId(static_cast<std::uint32_t>(n)));
        }
        for (auto& [signature, names] : alike)
            if (names.size() >= 2)
                roles.push_back(std::move(names));
    }
    std::vector<Candidate> candidates;
    for (const std::vector<analysis::NameId>& role : roles) {
        Candidate candidate{role, 0};
        if (std::any_of(candidate.names.begin(), candidate.names.end(),
                        [&](analysis::NameId n) { return first[n.index] == kNone; }))
            continue;
        std::sort(candidate.names.begin(), candidate.names.end(),
                  [&](analysis::NameId a, analysis::NameId b) { return first[a.index] < first[b.index]; });
        std::vector<std::size_t> gaps;
        for (std::size_t j = 0; j + 1 < candidate.names.size(); ++j)
            gaps.push_back(first[candidate.names[j + 1].index] - first[candidate.names[j].index]);
        std::vector<std::size_t> sorted = gaps;
        std::sort(sorted.begin(), sorted.end());
        const std::size_t median = sorted[sorted.size() / 2];
        // One name per layer: distinct, roughly regular starts, and together spanning a good part of the
        // phase (names of a prologue that merely repeat, like per-layer masks built up front, fail this).
        if (sorted.front() < 2 || sorted.front() * 2 < median)
            continue;
        if ((first[candidate.names.back().index] - first[candidate.names.front().index] + median) * 2 <
            ops.size())
            continue;
        candidate.start = first[candidate.names.front().index];
        candidates.push_back(std::move(candidate));
    }
    if (candidates.empty())
        return std::nullopt;
    // The layer count is the group size most groups agree on (each role of a layer gives one such group).
    std::unordered_map<std::size_t, int> votes;
    for (const Candidate& c : candidates)
        ++votes[c.names.size()];
    std::size_t layers = 0;
    int best = 0;
    for (const auto& [size, count] : votes) {
        if (count > best || (count == best && size > layers)) {
            layers = size;
            best = count;
        }
    }
    // Of those, the group that shows up earliest marks where each layer begins.
    const Candidate* chosen = nullptr;
    for (const Candidate& c : candidates)
        if (c.names.size() == layers && (!chosen || c.start < chosen->start))
            chosen = &c;
    return LayerNames{chosen->names};
}

void assignForwardLayers(Draft& draft, const ir::Graph& graph, const analysis::DecisionSpace& space,
                         const std::vector<std::size_t>& ops, const LayerNames& layers) {
    std::unordered_map<std::uint32_t, std::size_t> layerOf;
    for (std::size_t j = 0; j < layers.names.size(); ++j)
        layerOf.emplace(layers.names[j].index, j);
    const std::size_t count = layers.names.size();
    constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::vector<std::size_t> start(count, kNone);
    std::size_t lastCarrierOfLast = 0;
    forEachCarriedName(graph, space, ops, [&](std::size_t k, analysis::NameId name) {
        const auto found = layerOf.find(name.index);
        if (found == layerOf.end())
            return;
        if (start[found->second] == kNone)
            start[found->second] = k;
        if (found->second == count - 1)
            lastCarrierOfLast = k;
    });
    std::vector<std::size_t> gaps;
    for (std::size_t j = 0; j + 1 < count; ++j)
        gaps.push_back(start[j + 1] - start[j]);
    std::sort(gaps.begin(), gaps.end());
    // The last layer ends where its names are last seen, or a typical layer's length after it starts,
    // whichever is later: its residual add and norm often carry none of the group's names.
    const std::size_t end =
        std::min(ops.size(), std::max(lastCarrierOfLast + 1, start[count - 1] + gaps[gaps.size() / 2]));

    auto slice = [&](int node, std::size_t from, std::size_t to) {
        draft.at(node).ops.assign(ops.begin() + static_cast<std::ptrdiff_t>(from),
                                  ops.begin() + static_cast<std::ptrdiff_t>(to));
    };
    if (start[0] > 0)
        slice(draft.add(0, QStringLiteral("prologue"), QString(), QStringLiteral("prologue")), 0, start[0]);
    for (std::size_t j = 0; j < count; ++j) {
        const QString label = QStringLiteral("layer %1").arg(j);
        slice(draft.add(0, label, QString(), QStringLiteral("layers.%1").arg(j)), start[j],
              j + 1 < count ? start[j + 1] : end);
    }
    if (end < ops.size())
        slice(draft.add(0, QStringLiteral("epilogue"), QString(), QStringLiteral("epilogue")), end,
              ops.size());
}

// The backward pass visits the layers in reverse: layer j's gradient ops start where its names first appear
// among them. Returns false when they do not appear in that order.
bool assignBackwardLayers(Draft& draft, const ir::Graph& graph, const analysis::DecisionSpace& space,
                          const std::vector<std::size_t>& ops, const LayerNames& layers) {
    std::unordered_map<std::uint32_t, std::size_t> layerOf;
    for (std::size_t j = 0; j < layers.names.size(); ++j)
        layerOf.emplace(layers.names[j].index, j);
    const std::size_t count = layers.names.size();
    constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::vector<std::size_t> start(count, kNone);
    forEachCarriedName(graph, space, ops, [&](std::size_t k, analysis::NameId name) {
        const auto found = layerOf.find(name.index);
        if (found != layerOf.end() && start[found->second] == kNone)
            start[found->second] = k;
    });
    for (std::size_t j = 0; j < count; ++j)
        if (start[j] == kNone || (j + 1 < count && start[j + 1] >= start[j]))
            return false;
    const int root = phaseRoot(draft, Phase::Backward);
    auto slice = [&](const QString& label, std::size_t from, std::size_t to) {
        if (from >= to)
            return;
        const int node = draft.add(root, label, QString(), QStringLiteral("backward.") + label);
        draft.at(node).ops.assign(ops.begin() + static_cast<std::ptrdiff_t>(from),
                                  ops.begin() + static_cast<std::ptrdiff_t>(to));
    };
    slice(QStringLiteral("head"), 0, start[count - 1]);
    for (std::size_t j = count; j-- > 0;)
        slice(QStringLiteral("layer %1").arg(j), start[j], j > 0 ? start[j - 1] : ops.size());
    return true;
}

// Folds tiny leaves into their parents (bottom-up), then merges chains of single children (top-down).
void simplify(Draft& draft) {
    // Children always have larger ids than their parents, so descending ids visit children first.
    for (std::size_t id = draft.nodes.size(); id-- > 1;) {
        Draft::Node& node = draft.nodes[id];
        if (!node.alive || !node.children.empty() || node.ops.size() > kTinyModule ||
            node.component.isEmpty())
            continue;
        Draft::Node& parent = draft.at(node.parent);
        parent.ops.insert(parent.ops.end(), node.ops.begin(), node.ops.end());
        parent.children.erase(
            std::find(parent.children.begin(), parent.children.end(), static_cast<int>(id)));
        node.alive = false;
    }
    std::vector<int> stack{0};
    while (!stack.empty()) {
        const int id = stack.back();
        stack.pop_back();
        Draft::Node& node = draft.at(id);
        while (node.ops.empty() && node.children.size() == 1) {
            Draft::Node& only = draft.at(node.children.front());
            only.alive = false;
            if (id != 0) {
                node.label = isNumber(only.component.toStdString())
                                 ? only.label
                                 : node.label + QLatin1Char('.') + only.label;
                node.path = only.path;
                node.component = only.component;
            }
            node.ops = std::move(only.ops);
            node.children = std::move(only.children);
            for (const int c : node.children)
                draft.at(c).parent = id;
        }
        for (const int c : node.children)
            stack.push_back(c);
    }
}

}  // namespace

ModuleTree buildModuleTree(const ir::Graph& graph, const analysis::DecisionSpace& space) {
    const std::size_t opCount = graph.body.size();
    // Phases are runs of program order: the training-step builder appends the backward pass after the forward
    // one and the optimizer after both; unnamed ops (constants, broadcasts) belong to the phase they sit in.
    std::vector<std::vector<std::string_view>> paths(opCount);
    std::vector<Phase> phaseOf(opCount, Phase::Forward);
    Phase current = Phase::Forward;
    for (std::size_t i = 0; i < opCount; ++i) {
        std::string_view name = graph.op(graph.body[i]).location.name;
        if (endsWith(name, ".grad")) {
            if (current == Phase::Forward)
                current = Phase::Backward;
            name.remove_suffix(5);
        } else if (endsWith(name, ".update")) {
            current = Phase::Optimizer;
            name.remove_suffix(7);
        }
        paths[i] = modulePath(name);
        phaseOf[i] = current;
    }
    std::vector<std::size_t> phaseOps[3];
    for (std::size_t i = 0; i < opCount; ++i)
        phaseOps[static_cast<int>(phaseOf[i])].push_back(i);

    Draft draft;
    std::optional<LayerNames> layers;
    for (const Phase phase : {Phase::Forward, Phase::Backward, Phase::Optimizer}) {
        const std::vector<std::size_t>& ops = phaseOps[static_cast<int>(phase)];
        if (ops.empty())
            continue;
        const auto named = static_cast<std::size_t>(
            std::count_if(ops.begin(), ops.end(), [&](std::size_t i) { return !paths[i].empty(); }));
        // Optimizer updates name one op in three or four (the rest are their constants and arithmetic).
        if (named * 5 >= ops.size()) {
            assignByNames(draft, ops, phase, paths);
            continue;
        }
        if (phase == Phase::Forward) {
            layers = findLayers(graph, space, ops);
            if (layers) {
                assignForwardLayers(draft, graph, space, ops, *layers);
                continue;
            }
        } else if (phase == Phase::Backward && layers &&
                   assignBackwardLayers(draft, graph, space, ops, *layers)) {
            continue;
        }
        assignByRuns(draft, ops, phaseRoot(draft, phase));
    }
    simplify(draft);

    // Renumber the live nodes in pre-order, children by their first op.
    std::vector<std::size_t> firstOp(draft.nodes.size(), opCount);
    std::vector<int> order;
    std::vector<int> pending{0};
    while (!pending.empty()) {
        const int id = pending.back();
        pending.pop_back();
        order.push_back(id);
        for (const int c : draft.at(id).children)
            pending.push_back(c);
    }
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        Draft::Node& node = draft.at(*it);
        std::sort(node.ops.begin(), node.ops.end());
        std::size_t first = node.ops.empty() ? opCount : node.ops.front();
        for (const int c : node.children)
            first = std::min(first, firstOp[static_cast<std::size_t>(c)]);
        firstOp[static_cast<std::size_t>(*it)] = first;
    }

    ModuleTree tree;
    tree.moduleOfOp.assign(opCount, 0);
    struct Pending {
        int draftId;
        int parent;
    };
    std::vector<Pending> stack{{0, -1}};
    while (!stack.empty()) {
        const Pending next = stack.back();
        stack.pop_back();
        Draft::Node& node = draft.at(next.draftId);
        const int id = static_cast<int>(tree.modules.size());
        Module module;
        module.path = node.path;
        module.label = node.label;
        module.parent = next.parent;
        module.ops = std::move(node.ops);
        for (const std::size_t op : module.ops)
            tree.moduleOfOp[op] = id;
        tree.modules.push_back(std::move(module));
        if (next.parent >= 0)
            tree.modules[static_cast<std::size_t>(next.parent)].children.push_back(id);
        std::vector<int> children = node.children;
        std::stable_sort(children.begin(), children.end(), [&](int a, int b) {
            return firstOp[static_cast<std::size_t>(a)] < firstOp[static_cast<std::size_t>(b)];
        });
        // Pushed in reverse so the pre-order visits them (and numbers them) in program order.
        for (auto it = children.rbegin(); it != children.rend(); ++it)
            stack.push_back({*it, id});
    }
    // Children are numbered after their parents, so a reverse sweep accumulates the counts.
    for (std::size_t id = tree.modules.size(); id-- > 0;) {
        Module& module = tree.modules[id];
        module.opCount += module.ops.size();
        if (module.parent >= 0)
            tree.modules[static_cast<std::size_t>(module.parent)].opCount += module.opCount;
    }
    return tree;
}

}  // namespace shardscope::ui
