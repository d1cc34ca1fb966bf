// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Memory over the step: live bytes per device at each op in program order, for one plan or two to compare.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include <QColor>
#include <QString>
#include <QWidget>

#include "core/plan_breakdown.h"

namespace shardscope::ui {

struct MemoryCurve {
    QString name;                  // the legend's: "plan 12"
    QColor color;                  // invalid: the chart picks one
    std::vector<std::size_t> ops;  // body indices, increasing
    std::vector<double> bytes;     // live bytes per device at each of `ops`
    double capacity = 0;           // drawn as a horizontal line; 0: none
    std::size_t peakOp = 0;        // marked
    double peak = 0;
};

// The curve of a breakdown's memory over the step (PlanBreakdown::memory).
MemoryCurve memoryCurveOf(const MemoryOverStep& memory, const QString& name, const QColor& color = {});

// x = op index in program order, y = bytes. Each curve is drawn as a step line with its capacity (dashed, in
// the curve's colour when capacities differ) and its peak marked; hovering shows the op under the mouse with
// each curve's value.
class MemoryChart : public QWidget {
    Q_OBJECT

public:
    explicit MemoryChart(QWidget* parent = nullptr);

    // Replaces the curves (none empties the chart). `opCount` is the x range: the body's ops.
    void setCurves(std::vector<MemoryCurve> curves, std::size_t opCount);
    const std::vector<MemoryCurve>& curves() const { return curves_; }
    // What the tooltip says of an op ("#12 layers.0.attn.q"); the op's index when not set.
    void setOpText(std::function<QString(std::size_t)> text);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    QRectF plotArea() const;
    double xOf(double op) const;
    double yOf(double bytes) const;
    // The value of `curve` at op `op` (the newest sample at or before it).
    static double valueAt(const MemoryCurve& curve, std::size_t op);

    std::vector<MemoryCurve> curves_;
    std::size_t opCount_ = 0;
    double top_ = 1;  // bytes at the top of the plot
    std::function<QString(std::size_t)> opText_;
    long hoverOp_ = -1;
};

}  // namespace shardscope::ui
