// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/search_tree_model.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include <QBrush>
#include <QColor>
#include <QJsonDocument>
#include <QJsonObject>

#include "core/text.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/report/model_report.h"
#include "shardscope/search/search.h"

namespace shardscope::ui {

struct SearchTreeModel::Item {
    store::TreeNodeRecord record;
    Item* parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<Item>> children;
    Fetch fetch = Fetch::NotStarted;
};

namespace {

struct Level {
    std::vector<store::TreeNodeRecord> children;
    std::int64_t storedNodes = -1;
};

// A stop node is the end of its path by construction: the search never expands it.
bool isLeafByKind(const store::TreeNodeRecord& record) {
    return record.status == "stop";
}

}  // namespace

SearchTreeModel::SearchTreeModel(QObject* parent)
    : QAbstractItemModel(parent), top_(std::make_unique<Item>()) {
    top_->record.id = -1;
    byId_[-1] = top_.get();
}

// reads_ and nodePlans_ go first, then jobs_: it drops the queued reads and waits for the running one.
SearchTreeModel::~SearchTreeModel() = default;

void SearchTreeModel::setSession(std::shared_ptr<const store::Workspace> workspace, std::int64_t session) {
    beginResetModel();
    shown_ = reads_.next();  // the reads of the previous session no longer report
    nodePlans_.cancel();
    pending_ = 0;
    workspace_ = std::move(workspace);
    session_ = session;
    storedNodes_ = -1;
    top_ = std::make_unique<Item>();
    top_->record.id = -1;
    byId_.clear();
    byId_[-1] = top_.get();
    endResetModel();
    if (workspace_)
        read(top_.get());
}

void SearchTreeModel::refresh() {
    if (!workspace_)
        return;
    std::vector<Item*> levels;
    for (const auto& [id, item] : byId_)
        if (item->fetch == Fetch::Done)
            levels.push_back(item);
    std::sort(levels.begin(), levels.end(),
              [](const Item* a, const Item* b) { return a->record.id < b->record.id; });
    for (Item* item : levels)
        read(item);
}

void SearchTreeModel::read(Item* item) {
    const bool first = item->fetch == Fetch::NotStarted;
    item->fetch = Fetch::Running;
    ++pending_;
    const std::int64_t parentId = item->record.id;
    // Every read of the session shown reports (in the order asked), through the session's token: one for
    // another session is dropped.
    jobs_.run([this, token = shown_, workspace = workspace_, session = session_, parentId, first] {
        if (token.superseded())
            return;
        auto level = std::make_shared<Level>();
        level->children = workspace->children(session, parentId);
        if (parentId == -1)
            level->storedNodes = workspace->nodeCount(session);
        token.post([this, level, parentId, first] {
            --pending_;
            if (level->storedNodes >= 0)
                storedNodes_ = level->storedNodes;
            if (parentId == -1 && first && level->children.empty())
                emit readFailed(tr("Session %1 of %2 has no stored search tree")
                                    .arg(session_)
                                    .arg(toQString(workspace_->path())));
            merge(parentId, std::move(level->children));
        });
    });
}

void SearchTreeModel::merge(std::int64_t parentId, std::vector<store::TreeNodeRecord> children) {
    const auto found = byId_.find(parentId);
    if (found == byId_.end())
        return;
    Item* item = found->second;
    item->fetch = Fetch::Done;
    const QModelIndex parentIndex = indexOf(item);
    std::vector<store::TreeNodeRecord> added;
    for (auto& record : children) {
        const auto known = byId_.find(record.id);
        if (known == byId_.end()) {
            added.push_back(std::move(record));
            continue;
        }
        Item* child = known->second;
        if (child->record == record)
            continue;
        child->record = std::move(record);
        emit dataChanged(indexOf(child, 0), indexOf(child, ColumnCount - 1));
    }
    if (!added.empty()) {
        const int first = static_cast<int>(item->children.size());
        beginInsertRows(parentIndex, first, first + static_cast<int>(added.size()) - 1);
        for (auto& record : added) {
            auto child = std::make_unique<Item>();
            child->record = std::move(record);
            child->parent = item;
            child->row = static_cast<int>(item->children.size());
            byId_[child->record.id] = child.get();
            item->children.push_back(std::move(child));
        }
        endInsertRows();
    } else if (item != top_.get()) {
        // hasChildren() may have answered "maybe" before the read: views redraw the expander.
        emit dataChanged(indexOf(item, 0), indexOf(item, 0));
    }
    emit fetched(parentIndex);
}

SearchTreeModel::Item* SearchTreeModel::itemOf(const QModelIndex& index) const {
    return index.isValid() ? static_cast<Item*>(index.internalPointer()) : top_.get();
}

QModelIndex SearchTreeModel::indexOf(const Item* item, int column) const {
    if (!item || item == top_.get())
        return {};
    return createIndex(item->row, column, const_cast<Item*>(item));
}

void SearchTreeModel::setLowerBoundTime(double seconds) {
    if (lowerBound_ == seconds)
        return;
    lowerBound_ = seconds;
    emit headerDataChanged(Qt::Horizontal, BestColumn, BestColumn);
    for (const auto& [id, item] : byId_)
        if (!item->children.empty())
            emit dataChanged(indexOf(item->children.front().get(), BestColumn),
                             indexOf(item->children.back().get(), BestColumn));
}

QString SearchTreeModel::rewardText(double reward, double lowerBoundTime) {
    if (lowerBoundTime <= 0 || reward <= 0)
        return QString::number(reward, 'f', 6);
    // Inverts search::reward(): 0.5 + 0.5·T_lb/T when the plan fits, 0.5·(capacity/peak)² when it does not.
    if (reward > 0.5)
        return toQString(report::formatTime(lowerBoundTime / (2 * reward - 1)));
    if (reward >= 0.5)
        return tr("fits, no time");
    return tr("does not fit: %1× memory").arg(1 / std::sqrt(2 * reward), 0, 'f', 2);
}

store::TreeNodeRecord SearchTreeModel::record(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this)
        return store::TreeNodeRecord{-1, -1, {}, 0, 0, 0, 0, {}};
    return itemOf(index)->record;
}

QModelIndex SearchTreeModel::indexOfNode(std::int64_t id) const {
    const auto found = byId_.find(id);
    return found == byId_.end() ? QModelIndex() : indexOf(found->second);
}

std::vector<std::string> SearchTreeModel::actionPath(const QModelIndex& index) const {
    std::vector<std::string> path;
    if (!index.isValid() || index.model() != this)
        return path;
    // Items above the top level's root are the root itself, whose action is not a step.
    for (const Item* item = itemOf(index); item && item != top_.get() && item->parent != top_.get();
         item = item->parent)
        path.push_back(item->record.action);
    std::reverse(path.begin(), path.end());
    return path;
}

void SearchTreeModel::requestNodePlan(const QModelIndex& index, std::shared_ptr<const ProblemView> problem) {
    if (!workspace_ || !problem || !index.isValid() || index.model() != this)
        return;
    struct Outcome {
        plan::Plan plan;
        QString error;
    };
    const qint64 node = itemOf(index)->record.id;
    auto done = [this, node](const Outcome& outcome) {  // unless the user has moved on
        if (outcome.error.isEmpty())
            emit nodePlanReady(node, outcome.plan);
        else
            emit nodePlanFailed(node, outcome.error);
    };
    nodePlans_.run(
        [workspace = workspace_, session = session_, problem = std::move(problem), path = actionPath(index),
         node]() -> Outcome {
            const cost::CostModel& model = *problem->problem->costModel;
            std::optional<store::SessionRecord> record;
            for (auto& s : workspace->sessions())
                if (s.id == session)
                    record = std::move(s);
            if (!record)
                return {{}, tr("The workspace has no session %1").arg(session)};
            auto start = sessionStartPlan(*record, model);
            if (!start)
                return {{}, toQString(start.errorMessage())};
            auto plan = planOfPath(model, *start, path);
            if (!plan)
                return {{}, tr("Node %1: %2").arg(node).arg(toQString(plan.errorMessage()))};
            plan->label = "node " + std::to_string(node);
            return Outcome{std::move(plan).value(), {}};
        },
        std::move(done));
}

QString SearchTreeModel::statusText(const QString& status) {
    if (status.isEmpty())
        return {};
    if (status == QLatin1String("stop"))
        return tr("stop: the plan so far, as it is");
    if (status == QLatin1String("explored"))
        return tr("abandoned: fully explored");
    if (status == QLatin1String("duplicate") || status.startsWith(QLatin1String("duplicate")))
        return tr("abandoned: %1 (same shardings reached another way)").arg(status);
    if (status == QLatin1String("depth limit"))
        return tr("abandoned: the depth limit (max decisions) is reached");
    if (status == QLatin1String("infeasible"))
        return tr("abandoned: the plan does not fit in memory");
    return tr("abandoned: %1").arg(status);
}

QModelIndex SearchTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (row < 0 || column < 0 || column >= ColumnCount || (parent.isValid() && parent.column() != 0))
        return {};
    const Item* item = itemOf(parent);
    if (row >= static_cast<int>(item->children.size()))
        return {};
    return indexOf(item->children[static_cast<std::size_t>(row)].get(), column);
}

QModelIndex SearchTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid())
        return {};
    return indexOf(itemOf(child)->parent);
}

int SearchTreeModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return static_cast<int>(itemOf(parent)->children.size());
}

int SearchTreeModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

bool SearchTreeModel::hasChildren(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0)
        return false;
    const Item* item = itemOf(parent);
    if (!item->children.empty())
        return true;
    // Unknown until read: offer the expander unless the node cannot have children.
    return item->fetch != Fetch::Done && item != top_.get() && !isLeafByKind(item->record);
}

bool SearchTreeModel::canFetchMore(const QModelIndex& parent) const {
    if (!workspace_ || (parent.isValid() && parent.column() != 0))
        return false;
    const Item* item = itemOf(parent);
    return item->fetch == Fetch::NotStarted && !isLeafByKind(item->record);
}

void SearchTreeModel::fetchMore(const QModelIndex& parent) {
    if (canFetchMore(parent))
        read(itemOf(parent));
}

QVariant SearchTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.model() != this)
        return {};
    const store::TreeNodeRecord& r = itemOf(index)->record;
    const double mean = r.visits > 0 ? r.valueSum / static_cast<double>(r.visits) : 0.0;
    const QString status = toQString(r.status);
    switch (role) {
        case Qt::DisplayRole:
            switch (index.column()) {
                case ActionColumn:
                    return toQString(r.action);
                case VisitsColumn:
                    return QString::number(r.visits);
                case MeanColumn:
                    return r.visits > 0 ? QString::number(mean, 'f', 6) : QStringLiteral("–");
                case BestColumn:
                    return r.visits > 0 ? rewardText(r.best, lowerBound_) : QStringLiteral("–");
                case StatusColumn:
                    return statusText(status);
                case PlanColumn:
                    return r.plan > 0 ? tr("plan %1").arg(r.plan) : QString();
            }
            return {};
        case SortRole:
            switch (index.column()) {
                case ActionColumn:
                    return toQString(r.action);
                case VisitsColumn:
                    return QVariant::fromValue<qint64>(r.visits);
                case MeanColumn:
                    return mean;
                case BestColumn:
                    return r.best;
                case StatusColumn:
                    return status;
                case PlanColumn:
                    return QVariant::fromValue<qint64>(r.plan);
            }
            return {};
        case Qt::ToolTipRole:
            switch (index.column()) {
                case BestColumn:
                    if (lowerBound_ > 0)
                        return tr("Best reward below this node: %1 (the step time of the best plan found "
                                  "below "
                                  "it)")
                            .arg(r.best, 0, 'f', 6);
                    [[fallthrough]];
                case MeanColumn:
                    return tr(
                        "Reward in [0, 1]: a plan that fits scores 0.5 + 0.5 × (lower bound / step time); "
                        "one "
                        "that does not fit scores below 0.5");
                case StatusColumn:
                    return status.isEmpty() ? tr("The search may still grow this branch")
                                            : statusText(status);
                default:
                    return tr("Node %1: %2").arg(r.id).arg(toQString(r.action));
            }
        case Qt::ForegroundRole:
            // Abandoned branches read as such at a glance; a stop is a plan, not an abandonment.
            if (!status.isEmpty() && status != QLatin1String("stop") &&
                (index.column() == StatusColumn || index.column() == ActionColumn))
                return QBrush(QColor(0xb0, 0x3a, 0x2e));
            if (r.visits == 0)
                return QBrush(QColor(0x80, 0x80, 0x80));
            return {};
        case Qt::TextAlignmentRole:
            if (index.column() == VisitsColumn || index.column() == MeanColumn ||
                index.column() == BestColumn)
                return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
            return {};
        case NodeIdRole:
            return QVariant::fromValue<qint64>(r.id);
        case RawStatusRole:
            return status;
        case EndedRole:
            return !status.isEmpty();
        case PlanIdRole:
            return QVariant::fromValue<qint64>(r.plan);
        default:
            return {};
    }
}

QVariant SearchTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
            case ActionColumn:
                return tr("Decision");
            case VisitsColumn:
                return tr("Visits");
            case MeanColumn:
                return tr("Mean value");
            case BestColumn:
                return lowerBound_ > 0 ? tr("Best below") : tr("Best value");
            case StatusColumn:
                return tr("Status");
            case PlanColumn:
                return tr("Plan");
        }
    }
    if (role == Qt::ToolTipRole && section == StatusColumn)
        return tr("Why the search stopped growing the branch");
    return {};
}

// ------------------------------------------------------------------------------------------------- plans of
// paths

Result<plan::Plan> sessionStartPlan(const store::SessionRecord& session, const cost::CostModel& model) {
    const QByteArray text = QByteArray::fromStdString(session.settings);
    QJsonParseError error{};
    const QJsonDocument settings = QJsonDocument::fromJson(text, &error);
    const std::string origin = "session " + std::to_string(session.id) + " (" + session.name + ")";
    if (settings.isNull() || !settings.isObject())
        return makeError("ui.session-settings", origin + ": the settings are not a JSON object");
    const QJsonValue pins = settings.object().value(QLatin1String("pins"));
    if (!pins.isObject())
        return plan::Plan{};
    const QByteArray pinsText = QJsonDocument(pins.toObject()).toJson(QJsonDocument::Compact);
    auto parsed =
        plan::parsePlan(std::string_view(pinsText.constData(), static_cast<std::size_t>(pinsText.size())),
                        model.planContext(), model.mesh(), origin + " pins");
    if (!parsed)
        return parsed;
    parsed->pinned = parsed->decisions.size();  // the search keeps every decision of its start as a pin
    return parsed;
}

Result<plan::Plan> planOfPath(const cost::CostModel& model, const plan::Plan& start,
                              const std::vector<std::string>& path) {
    const search::ActionSpace space(model, model.space().groups.size(), 0.0);
    plan::Plan plan = start;
    plan.pinned = plan.decisions.size();
    for (std::size_t step = 0; step < path.size(); ++step) {
        const std::string& want = path[step];
        if (want == "stop") {
            if (step + 1 != path.size())
                return makeError("ui.tree-path",
                                 "the path goes on after 'stop' (step " + std::to_string(step + 1) + ")");
            break;
        }
        bool matched = false;
        for (const auto& action : space.pendingResolutions(plan)) {
            if (space.describe(action) != want)
                continue;
            plan.resolutions.push_back(action.resolution);
            matched = true;
            break;
        }
        // The pipeline and microbatch steps (a seed's or the search's), then remat and decisions.
        std::vector<search::Action> staging = space.stagingActions(plan);
        for (auto& action : space.pendingMicrobatches(plan))
            staging.push_back(std::move(action));
        for (const auto& action : matched ? std::vector<search::Action>{} : staging) {
            if (space.describe(action) != want)
                continue;
            plan = search::withAction(std::move(plan), action);
            matched = true;
            break;
        }
        for (const auto& action : matched ? std::vector<search::Action>{} : space.rematActions(plan)) {
            if (space.describe(action) != want)
                continue;
            plan = search::withAction(std::move(plan), action);
            matched = true;
            break;
        }
        for (std::size_t c = 0; !matched && c < space.candidates().size(); ++c) {
            const search::Action action{search::Action::Kind::Decide, space.candidates()[c].decision, {}, {}};
            if (space.describe(action) != want)
                continue;
            plan.decisions.push_back(action.decision);
            matched = true;
        }
        if (!matched)
            return makeError("ui.tree-path", "step " + std::to_string(step + 1) + " '" + want +
                                                 "' is no decision of this model on this mesh");
    }
    return plan;
}

}  // namespace shardscope::ui
