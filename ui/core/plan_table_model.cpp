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

// One load, shared with its job: cancelled when the model moves on (new problem, new load, destruction).
struct PlanTableModel::Load {
    std::atomic<bool> cancelled{false};
};

PlanTableModel::PlanTableModel(QObject* parent) : QAbstractTableModel(parent) {}

PlanTableModel::~PlanTableModel() {
    if (load_)
        load_->cancelled = true;  // the running job stops soon; jobs_ waits for it
}

void PlanTableModel::setProblem(std::shared_ptr<const ProblemView> problem) {
    if (load_)
        load_->cancelled = true;
    load_.reset();
    ++generation_;
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

void PlanTableModel::startLoad(std::function<std::shared_ptr<const store::Workspace>(QString*)> open,
                               std::int64_t session) {
    if (!problem_)
        return;
    if (load_)
        load_->cancelled = true;
    load_ = std::make_shared<Load>();
    const std::uint64_t generation = ++generation_;
    loading_ = true;
    jobs_.run([this, load = load_, problem = problem_, open = std::move(open), session, generation] {
        auto post = [this](auto member, std::uint64_t gen, std::vector<PlanRow> rows) {
            jobs_.post([this, member, gen, rows = std::move(rows)]() mutable { (this->*member)(gen, std::move(rows)); });
        };
        auto finish = [this, generation](int count, const QString& error) {
            jobs_.post([this, generation, count, error] { finishLoad(generation, count, error); });
        };
        QString error;
        std::shared_ptr<const store::Workspace> workspace;
        try {
            workspace = open(&error);
        } catch (const std::exception& e) {
            error = QString::fromLocal8Bit(e.what());
        }
        if (!workspace) {
            finish(0, tr("Cannot read the plans: %1").arg(error));
            return;
        }
        // Stage 1: the summaries, which lists of many plans read cheaply.
        const auto records = workspace->plans(session, store::PlanContent::Summary);
        std::vector<PlanRow> summaries;
        summaries.reserve(records.size());
        for (const auto& record : records)
            summaries.push_back(summaryRow(record));
        post(&PlanTableModel::receiveSummaries, generation, summaries);

        // Stage 2: each plan parsed, its volume read or computed; sent in batches so the table fills
        // steadily.
        const auto& context = problem->problem->costModel->planContext();
        std::optional<cost::Evaluator> evaluator;
        std::vector<PlanRow> batch;
        auto sent = std::chrono::steady_clock::now();
        for (PlanRow row : summaries) {
            if (load->cancelled.load())
                return;
            const auto record = workspace->plan(row.id);
            if (!record)
                continue;
            auto parsed =
                plan::parsePlan(record->plan, context, problem->mesh(), "plan " + std::to_string(row.id),
                                plan::MissingAxes::Fail);
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
                post(&PlanTableModel::receiveDetails, generation, std::move(batch));
                batch.clear();
                sent = now;
            }
        }
        post(&PlanTableModel::receiveDetails, generation, std::move(batch));
        finish(static_cast<int>(summaries.size()), {});
    });
}

void PlanTableModel::receiveSummaries(std::uint64_t generation, std::vector<PlanRow> rows) {
    if (generation != generation_)
        return;
    std::erase_if(rows, [&](const PlanRow& row) { return rowOfId(row.id) >= 0; });
    if (rows.empty())
        return;
    const int first = static_cast<int>(rows_.size());
    beginInsertRows({}, first, first + static_cast<int>(rows.size()) - 1);
    for (auto& row : rows)
        rows_.push_back(std::move(row));
    endInsertRows();
}

void PlanTableModel::receiveDetails(std::uint64_t generation, std::vector<PlanRow> rows) {
    if (generation != generation_)
        return;
    for (auto& row : rows) {
        const int at = rowOfId(row.id);
        if (at < 0)
            continue;
        PlanRow& mine = rows_[static_cast<std::size_t>(at)];
        if (mine.plan)  // added live meanwhile: the live row knows at least as much
            continue;
        mine.plan = std::move(row.plan);
        mine.collectiveBytes = row.collectiveBytes;
        emit dataChanged(index(at, 0), index(at, ColumnCount - 1));
    }
}

void PlanTableModel::finishLoad(std::uint64_t generation, int count, const QString& error) {
    if (generation != generation_)
        return;
    loading_ = false;
    load_.reset();
    if (!error.isEmpty())
        emit loadFailed(error);
    else
        emit loaded(count);
}

int PlanTableModel::addPlan(PlanRow row) {
    const int existing = row.id != 0 ? rowOfId(row.id) : -1;
    if (existing >= 0) {
        rows_[static_cast<std::size_t>(existing)] = std::move(row);
        emit dataChanged(index(existing, 0), index(existing, ColumnCount - 1));
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

int PlanTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int PlanTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PlanTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const PlanRow& row = rows_[static_cast<std::size_t>(index.row())];
    if (role == PlanIdRole)
        return static_cast<qlonglong>(row.id);
    if (role == RowRole)
        return index.row();
    const int column = index.column();
    if (role == Qt::TextAlignmentRole)
        return column == OriginColumn || column == LabelColumn
                   ? QVariant()
                   : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    if (role == Qt::ForegroundRole && column == FeasibleColumn && !row.feasible)
        return QColor(0xb0, 0x20, 0x20);
    if (role == Qt::ToolTipRole && column == FoundColumn && row.iteration > 0)
        return tr("Found %1 s into the search, at iteration %2")
            .arg(QLocale().toString(row.foundAfterSeconds, 'f', 2))
            .arg(row.iteration);
    const bool sort = role == SortRole;
    if (role != Qt::DisplayRole && !sort)
        return {};
    switch (column) {
        case IdColumn:
            return row.id != 0 ? QVariant(static_cast<qlonglong>(row.id))
                               : (sort ? QVariant(0LL) : QVariant(tr("new")));
        case OriginColumn:
            return row.origin;
        case StepTimeColumn:
            return sort ? QVariant(row.stepTime) : QVariant(toQString(report::formatTime(row.stepTime)));
        case PeakMemoryColumn:
            return sort ? QVariant(row.peakMemory) : QVariant(toQString(report::formatBytes(row.peakMemory)));
        case FeasibleColumn:
            return sort ? QVariant(row.feasible ? 1 : 0)
                        : QVariant(row.feasible ? tr("fits") : tr("does not fit"));
        case CollectiveBytesColumn:
            if (sort)
                return row.collectiveBytes;
            return row.collectiveBytes < 0 ? tr("…") : toQString(report::formatBytes(row.collectiveBytes));
        case FoundColumn:
            if (sort)
                return row.foundAfterSeconds;
            if (row.iteration <= 0 && row.foundAfterSeconds <= 0)
                return tr("—");
            return tr("%1 s · it %2")
                .arg(QLocale().toString(row.foundAfterSeconds, 'f', 1))
                .arg(row.iteration);
        case LabelColumn:
            return row.label;
        default:
            return {};
    }
}

QVariant PlanTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
        case IdColumn:
            return tr("Plan");
        case OriginColumn:
            return tr("Origin");
        case StepTimeColumn:
            return tr("Step time");
        case PeakMemoryColumn:
            return tr("Peak memory");
        case FeasibleColumn:
            return tr("Fits");
        case CollectiveBytesColumn:
            return tr("Collectives");
        case FoundColumn:
            return tr("Found after");
        case LabelColumn:
            return tr("Label");
        default:
            return {};
    }
}

}  // namespace shardscope::ui
