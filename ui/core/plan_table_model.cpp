// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/plan_table_model.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <utility>

#include <QColor>
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

#include "core/text.h"
#include "shardscope/plan/plan_json.h"
#include "shardscope/report/model_report.h"
#include "shardscope/store/workspace.h"

namespace shardscope::ui {

namespace {

PlanRow summaryRow(const store::PlanRecord& record) {
    PlanRow row;
    row.id = record.id;
    row.origin = toQString(record.origin);
    row.stepTime = record.stepTime;
    row.peakMemory = record.peakMemory;
    row.feasible = record.feasible;
    row.foundAfterSeconds = record.foundAfterSeconds;
    row.iteration = record.iteration;
    row.label = toQString(record.label);
    return row;
}

// The collectives volume an evaluation JSON states: `collective_bytes`, or the sum of its `collectives`
// (`shardscope-cli evaluate --json`'s form). -1 when it states neither (the search's summaries do not).
double statedCollectiveBytes(const std::string& evaluationJson) {
    if (evaluationJson.empty())
        return -1;
    const QJsonObject object =
        QJsonDocument::fromJson(
            QByteArray::fromRawData(evaluationJson.data(), static_cast<qsizetype>(evaluationJson.size())))
            .object();
    if (object.contains(QLatin1String("collective_bytes")))
        return object.value(QLatin1String("collective_bytes")).toDouble();
    if (!object.value(QLatin1String("collectives")).isArray())
        return -1;
    double sum = 0;
    for (const QJsonValue& c : object.value(QLatin1String("collectives")).toArray())
        sum += c.toObject().value(QLatin1String("bytes")).toDouble();
    return sum;
}

}  // namespace

double collectiveBytesOf(const cost::Evaluation& evaluation) {
    double sum = 0;
    for (const cost::Collective& c : evaluation.collectives)
        sum += c.bytes;
    return sum;
}

PlanRow planRowOf(const plan::Plan& plan, const cost::Evaluation& evaluation, const QString& origin,
                  double foundAfterSeconds, std::int64_t iteration, std::int64_t id) {
    PlanRow row;
    row.id = id;
    row.origin = origin;
    row.stepTime = evaluation.stepTime;
    row.peakMemory = evaluation.peakMemory;
    row.feasible = evaluation.feasible;
    row.collectiveBytes = collectiveBytesOf(evaluation);
    row.foundAfterSeconds = foundAfterSeconds;
    row.iteration = iteration;
    row.label = toQString(plan.label);
    row.plan = plan;
    return row;
}

PlanTableModel::PlanTableModel(QObject* parent)
    : ColumnTableModel(
          {
              {.header = tr("Plan"),
               .display =
                   [](const PlanRow& row) {
                       return row.id != 0 ? QVariant(static_cast<qlonglong>(row.id)) : QVariant(tr("new"));
                   },
               .sort = [](const PlanRow& row) { return QVariant(static_cast<qlonglong>(row.id)); },
               .alignment = Qt::AlignRight | Qt::AlignVCenter},
              {.header = tr("Origin"), .display = [](const PlanRow& row) { return QVariant(row.origin); }},
              {.header = tr("Step time"),
               .display =
                   [](const PlanRow& row) { return QVariant(toQString(report::formatTime(row.stepTime))); },
               .sort = [](const PlanRow& row) { return QVariant(row.stepTime); },
               .alignment = Qt::AlignRight | Qt::AlignVCenter},
              {.header = tr("Peak memory"),
               .display =
                   [](const PlanRow& row) {
                       return QVariant(toQString(report::formatBytes(row.peakMemory)));
                   },
               .sort = [](const PlanRow& row) { return QVariant(row.peakMemory); },
               .alignment = Qt::AlignRight | Qt::AlignVCenter},
              {.header = tr("Fits"),
               .display =
                   [](const PlanRow& row) {
                       return QVariant(row.feasible ? tr("fits") : tr("does not fit"));
                   },
               .sort = [](const PlanRow& row) { return QVariant(row.feasible ? 1 : 0); },
               .alignment = Qt::AlignRight | Qt::AlignVCenter},
              {.header = tr("Collectives"),
               .display =
                   [](const PlanRow& row) {
                       return QVariant(row.collectiveBytes < 0
                                           ? tr("…")
                                           : toQString(report::formatBytes(row.collectiveBytes)));
                   },
               .sort = [](const PlanRow& row) { return QVariant(row.collectiveBytes); },
               .alignment = Qt::AlignRight | Qt::AlignVCenter},
              {.header = tr("Found after"),
               .display =
                   [](const PlanRow& row) {
                       if (row.iteration <= 0 && row.foundAfterSeconds <= 0)
                           return QVariant(tr("—"));
                       return QVariant(tr("%1 s · it %2")
                                           .arg(QLocale().toString(row.foundAfterSeconds, 'f', 1))
                                           .arg(row.iteration));
                   },
               .sort = [](const PlanRow& row) { return QVariant(row.foundAfterSeconds); },
               .toolTip =
                   [](const PlanRow& row) {
                       if (row.iteration <= 0)
                           return QVariant();
                       return QVariant(tr("Found %1 s into the search, at iteration %2")
                                           .arg(QLocale().toString(row.foundAfterSeconds, 'f', 2))
                                           .arg(row.iteration));
                   },
               .alignment = Qt::AlignRight | Qt::AlignVCenter},
              {.header = tr("Label"), .display = [](const PlanRow& row) { return QVariant(row.label); }},
          },
          parent) {}

// loads_ goes first: the running load stops at its next plan, and jobs_ waits for it.
PlanTableModel::~PlanTableModel() = default;

void PlanTableModel::setProblem(std::shared_ptr<const ProblemView> problem) {
    loads_.cancel();
    loading_ = false;
    beginResetModel();
    problem_ = std::move(problem);
    rows_.clear();
    endResetModel();
}

void PlanTableModel::loadWorkspace(std::shared_ptr<const store::Workspace> workspace, std::int64_t session) {
    if (!workspace)
        return;
    startLoad([workspace](QString*) { return workspace; }, session);
}

void PlanTableModel::loadWorkspace(const QString& path, std::int64_t session) {
    startLoad(
        [path](QString* error) -> std::shared_ptr<const store::Workspace> {
            auto opened = store::Workspace::open(path.toStdString());
            if (!opened) {
                *error = toQString(opened.diagnostics().front().message);
                return nullptr;
            }
            return std::make_shared<const store::Workspace>(std::move(*opened));
        },
        session);
}

namespace {

// How a load ended: the workspace plans it read, or why it could not read them.
struct LoadEnd {
    int count = 0;
    QString error;
};

}  // namespace

void PlanTableModel::startLoad(std::function<std::shared_ptr<const store::Workspace>(QString*)> open,
                               std::int64_t session) {
    if (!problem_)
        return;
    loading_ = true;
    // Each stage reaches the model through token.post(), which drops it once a newer load or problem came.
    auto work = [this, problem = problem_, open = std::move(open), session](const LatestJob::Token& token) {
        auto post = [this, &token](auto member, std::vector<PlanRow> rows) {
            token.post(
                [this, member, rows = std::move(rows)]() mutable { (this->*member)(std::move(rows)); });
        };
        QString error;
        std::shared_ptr<const store::Workspace> workspace;
        try {
            workspace = open(&error);
        } catch (const std::exception& e) {
            error = QString::fromLocal8Bit(e.what());
        }
        if (!workspace)
            return LoadEnd{0, tr("Cannot read the plans: %1").arg(error)};
        // Stage 1: the summaries, which lists of many plans read cheaply.
        const auto records = workspace->plans(session, store::PlanContent::Summary);
        std::vector<PlanRow> summaries;
        summaries.reserve(records.size());
        for (const auto& record : records)
            summaries.push_back(summaryRow(record));
        post(&PlanTableModel::receiveSummaries, summaries);

        // Stage 2: each plan parsed, its volume read or computed; sent in batches so the table fills
        // steadily.
        const auto& context = problem->problem->costModel->planContext();
        std::optional<cost::Evaluator> evaluator;
        std::vector<PlanRow> batch;
        auto sent = std::chrono::steady_clock::now();
        for (PlanRow row : summaries) {
            if (token.superseded())
                return LoadEnd{};
            const auto record = workspace->plan(row.id);
            if (!record)
                continue;
            auto parsed = plan::parsePlan(record->plan, context, problem->mesh(),
                                          "plan " + std::to_string(row.id), plan::MissingAxes::Fail);
            if (parsed)
                row.plan = *parsed;
            row.collectiveBytes = statedCollectiveBytes(record->evaluation);
            if (row.collectiveBytes < 0 && row.plan) {
                try {
                    if (!evaluator)
                        evaluator.emplace(*problem->problem->costModel);
                    row.collectiveBytes = collectiveBytesOf(evaluator->evaluate(*row.plan));
                } catch (const std::exception&) {
                    row.collectiveBytes = -1;
                }
            }
            batch.push_back(std::move(row));
            const auto now = std::chrono::steady_clock::now();
            if (now - sent > std::chrono::milliseconds(200)) {
                post(&PlanTableModel::receiveDetails, std::move(batch));
                batch.clear();
                sent = now;
            }
        }
        post(&PlanTableModel::receiveDetails, std::move(batch));
        return LoadEnd{static_cast<int>(summaries.size()), {}};
    };
    loads_.run(std::move(work), [this](const LoadEnd& end) { finishLoad(end.count, end.error); });
}

void PlanTableModel::receiveSummaries(std::vector<PlanRow> rows) {
    std::erase_if(rows, [&](const PlanRow& row) { return rowOfId(row.id) >= 0; });
    if (rows.empty())
        return;
    const int first = static_cast<int>(rows_.size());
    beginInsertRows({}, first, first + static_cast<int>(rows.size()) - 1);
    for (auto& row : rows)
        rows_.push_back(std::move(row));
    endInsertRows();
}

void PlanTableModel::receiveDetails(std::vector<PlanRow> rows) {
    for (auto& row : rows) {
        const int at = rowOfId(row.id);
        if (at < 0)
            continue;
        PlanRow& mine = rows_[static_cast<std::size_t>(at)];
        if (mine.plan)  // added live meanwhile: the live row knows at least as much
            continue;
        mine.plan = std::move(row.plan);
        mine.collectiveBytes = row.collectiveBytes;
        rowChanged(at);
    }
}

void PlanTableModel::finishLoad(int count, const QString& error) {
    loading_ = false;
    if (!error.isEmpty())
        emit loadFailed(error);
    else
        emit loaded(count);
}

int PlanTableModel::addPlan(PlanRow row) {
    const int existing = row.id != 0 ? rowOfId(row.id) : -1;
    if (existing >= 0) {
        rows_[static_cast<std::size_t>(existing)] = std::move(row);
        rowChanged(existing);
        return existing;
    }
    const int at = static_cast<int>(rows_.size());
    beginInsertRows({}, at, at);
    rows_.push_back(std::move(row));
    endInsertRows();
    return at;
}

void PlanTableModel::setLabel(int row, const QString& label) {
    if (row < 0 || row >= rowCount())
        return;
    rows_[static_cast<std::size_t>(row)].label = label;
    emit dataChanged(index(row, LabelColumn), index(row, LabelColumn));
}

const PlanRow* PlanTableModel::rowAt(int row) const {
    return row >= 0 && row < rowCount() ? &rows_[static_cast<std::size_t>(row)] : nullptr;
}

std::optional<plan::Plan> PlanTableModel::planAt(int row) const {
    const PlanRow* r = rowAt(row);
    return r ? r->plan : std::nullopt;
}

std::int64_t PlanTableModel::planIdAt(int row) const {
    const PlanRow* r = rowAt(row);
    return r ? r->id : 0;
}

int PlanTableModel::rowOfId(std::int64_t id) const {
    if (id == 0)
        return -1;
    const auto found =
        std::find_if(rows_.begin(), rows_.end(), [id](const PlanRow& r) { return r.id == id; });
    return found == rows_.end() ? -1 : static_cast<int>(found - rows_.begin());
}

QVariant PlanTableModel::rowData(const PlanRow& row, const QModelIndex& index, int role) const {
    if (role == PlanIdRole)
        return static_cast<qlonglong>(row.id);
    if (role == RowRole)
        return index.row();
    if (role == Qt::ForegroundRole && index.column() == FeasibleColumn && !row.feasible)
        return QColor(0xb0, 0x20, 0x20);
    return {};
}

}  // namespace shardscope::ui
