// Lays graphs out for the graph view: Graphviz's `dot` behind one adapter, run on one worker thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>

#include <QHash>
#include <QObject>
#include <QPainterPath>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <QVector>

#include "core/job_queue.h"

class QThread;

namespace shardscope::ui {

// One box to place. `size` is measured in Qt by the caller (points, i.e. scene units).
struct LayoutNode {
    QString id;
    QSizeF size;
    QString cluster;  // "" or a cluster id: nodes of one module/layer are drawn inside one box
};

struct LayoutEdge {
    QString from, to;
};

struct LayoutRequest {
    QVector<LayoutNode> nodes;
    QVector<LayoutEdge> edges;
    QString rankdir = QStringLiteral("TB");  // TB, LR, BT or RL
};

// Positions in Qt's coordinates (y down, bounds' top-left at the origin).
struct LayoutResult {
    QHash<QString, QPointF> centres;  // node id -> centre of its box
    // Same order as LayoutRequest::edges. Each path runs from the source's border to the target's border
    // (the arrow's tip included), so a view draws the arrowhead at the path's end.
    QVector<QPainterPath> edges;
    QHash<QString, QRectF> clusters;  // cluster id -> box around its nodes
    QRectF bounds;
};

// What a layout ended in: a result, an error a person can read, or a stop on request.
struct LayoutOutcome {
    std::optional<LayoutResult> result;
    QString error;  // empty on success and when cancelled
    bool cancelled = false;

    bool ok() const { return result.has_value(); }
};

// Lays `request` out with Graphviz `dot`, synchronously. The only code that sees Graphviz types. Graphviz is
// not thread-safe: calls are serialised process-wide, but the service below is the intended single caller.
// `cancel` is checked between stages (dot itself cannot be interrupted). Fails on an unknown edge end, a
// duplicate node id, an invalid rankdir, or Graphviz's own errors.
LayoutOutcome layoutWithGraphviz(const LayoutRequest& request, const std::atomic<bool>* cancel = nullptr);

// Owns the one worker thread that makes every Graphviz call. Requests are tagged by what they lay out (e.g. a
// view's name): a new request for a tag replaces that tag's queued one and stops its running one, so only the
// newest request of a tag reports, once, through `finished` or `failed`. Signals are queued to receivers in
// other threads. Call the member functions from the thread the service lives in.
class GraphLayoutService : public QObject {
    Q_OBJECT

public:
    explicit GraphLayoutService(QObject* parent = nullptr);
    // Drops queued requests, asks the running one to stop and waits for it (dot finishes its current stage).
    ~GraphLayoutService() override;

    // Queues a layout and returns its generation (increasing per tag), which `finished`/`failed` repeat.
    std::uint64_t request(const QString& tag, LayoutRequest layout);
    // Drops the tag's queued request and asks its running one to stop; neither reports.
    void cancel(const QString& tag);
    // The newest generation handed out for `tag` (0 if none).
    std::uint64_t generation(const QString& tag) const { return issued_.value(tag); }

signals:
    void finished(const QString& tag, std::uint64_t generation, const shardscope::ui::LayoutResult& result);
    void failed(const QString& tag, std::uint64_t generation, const QString& message);

private:
    struct Job {
        QString tag;
        std::uint64_t generation = 0;
        LayoutRequest request;
    };

    void run();  // the worker thread's loop
    void deliver(const QString& tag, std::uint64_t generation, LayoutOutcome outcome);

    // Owner thread only: generations handed out, and the one per tag still allowed to report (absent once
    // cancelled or delivered).
    QHash<QString, std::uint64_t> issued_;
    QHash<QString, std::uint64_t> live_;

    // Shared with the worker, under mutex_.
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Job> queue_;  // at most one job per tag
    QString runningTag_;
    std::shared_ptr<std::atomic<bool>> runningCancel_;
    bool stopping_ = false;

    Mailbox mailbox_;  // the worker's results, to the owner thread
    QThread* thread_ = nullptr;
};

}  // namespace shardscope::ui

Q_DECLARE_METATYPE(shardscope::ui::LayoutResult)
