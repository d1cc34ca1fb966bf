// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Lays graphs out for the graph view: Graphviz's `dot` behind one adapter, run on one worker thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
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

namespace shardscope::ui {

// One box to place. `size` is measured in Qt by the caller (points, i.e. scene units).
struct LayoutNode {
    QString id;
    QSizeF size;
    QString cluster;          // "" or a cluster id: nodes of one module/layer are drawn inside one box
    QString sameRankAs = {};  // "" or a node id of the same cluster: placed on that node's rank, beside it
};

struct LayoutEdge {
    QString from, to;
    int weight = 1;  // how hard Graphviz tries to keep it short and straight
};

struct LayoutRequest {
    QVector<LayoutNode> nodes;
    // The edges to draw; a caller may append edges that only hold nodes in place (they are laid out but
    // not drawn: LayoutResult::edges has them at the same indices).
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
// The same, stopping once `cancelled` returns true (the service passes its job's LatestJob::Token).
LayoutOutcome layoutWithGraphviz(const LayoutRequest& request, const std::function<bool()>& cancelled);

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
    std::uint64_t generation(const QString& tag) const;

signals:
    void finished(const QString& tag, std::uint64_t generation, const shardscope::ui::LayoutResult& result);
    void failed(const QString& tag, std::uint64_t generation, const QString& message);

private:
    JobQueue jobs_{"graph layout"};
    std::map<QString, std::unique_ptr<LatestJob>>
        tags_;  // after jobs_: destroyed first, stopping the running one
};

}  // namespace shardscope::ui

Q_DECLARE_METATYPE(shardscope::ui::LayoutResult)
