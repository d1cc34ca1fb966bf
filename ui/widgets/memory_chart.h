// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Memory over the step: live bytes per device at each op in program order, for one plan (stacked by category:
// parameters, gradients, optimizer state, activations, temporaries) or two to compare (one line each), on a
// linear axis in binary units with the device's capacity.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include <QColor>
#include <QPainterPath>
#include <QRectF>
#include <QString>
#include <QWidget>

#include "core/plan_breakdown.h"

namespace shardscope::ui {

struct MemoryCurve {
    QString name;                  // the legend's: "plan 12"
    QColor color;                  // invalid: the chart picks one
    std::vector<std::size_t> ops;  // body indices, increasing
    std::vector<double> bytes;     // live bytes per device at each of `ops`
    // Per sample, `bytes` by category; a single curve with parts is drawn stacked by category.
    std::vector<cost::MemoryBreakdown> parts;
    // Per sample, the same plan without its rematerialization (a dashed line), and that plan's peak; empty:
    // none.
    std::vector<double> withoutRemat;
    double peakWithoutRemat = 0;
    double capacity = 0;     // drawn as a horizontal line; 0: none
    std::size_t peakOp = 0;  // marked
    double peak = 0;
};

// The curve of a breakdown's memory over the step (PlanBreakdown::memory), its categories and the line
// without remat included.
MemoryCurve memoryCurveOf(const MemoryOverStep& memory, const QString& name, const QColor& color = {});

// The memory categories in stacking order (bottom first), their names and colours.
inline constexpr int kMemoryCategories = 5;
QString memoryCategoryName(int category);  // "parameters", "gradients", "optimizer state", ...
QColor memoryCategoryColor(int category);
double memoryCategoryBytes(const cost::MemoryBreakdown& parts, int category);

// The y axis: linear from 0 to `top`, a tick every `step` bytes, labelled in `unitName` (1024^k bytes).
struct MemoryAxis {
    double top = 1;
    double step = 1;
    double unit = 1;
    QString unitName;           // "GiB", "MiB", "KiB" or "bytes"
    std::vector<double> ticks;  // 0, step, 2·step, ..., top (bytes)
    // A tick's label in the unit, without it: "0", "2", "2.5".
    QString label(double bytes) const;
};
// The axis for curves reaching `highest` bytes: the largest binary unit below it, a step of 1, 2 or 5 times
// a power of ten of that unit giving 3 to 7 ticks, the top the first tick at or above `highest`.
MemoryAxis memoryAxis(double highest);

class MemoryChart : public QWidget {
    Q_OBJECT

public:
    explicit MemoryChart(QWidget* parent = nullptr);

    // Replaces the curves (none empties the chart). `opCount` is the x range: the body's ops.
    void setCurves(std::vector<MemoryCurve> curves, std::size_t opCount);
    const std::vector<MemoryCurve>& curves() const { return curves_; }
    // What the tooltip says of an op ("#12 layers.0.attn.q"); the op's index when not set.
    void setOpText(std::function<QString(std::size_t)> text);

    // Whether the single curve is drawn stacked by category.
    bool isStacked() const;
    const MemoryAxis& axis() const { return axis_; }
    // Capacities further above the curves than this factor are only named (they would flatten the curves).
    static constexpr double kCapacityRange = 4;
    // Geometry in widget coordinates, for tests: the plot, the y of a byte count, and the text labels
    // placed on the plot (capacities, peaks), laid out so that none overlaps another.
    struct Label {
        enum class Kind { Capacity, Peak, PeakWithoutRemat } kind = Kind::Capacity;
        std::size_t curve = 0;
        QString text;
        QRectF rect;
    };
    QRectF plotArea() const;
    double yOf(double bytes) const;
    double xOf(double op) const;
    std::vector<Label> labels() const;
    // The stacked bands' tops at sample `sample` of the single curve, bottom category first (bytes).
    std::vector<double> stackAt(std::size_t sample) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    struct LegendEntry {
        QColor color;
        QString name;
        bool dashed = false;
    };
    // The legend of the curves (computed once per setCurves: it scans every sample).
    const std::vector<LegendEntry>& legend() const { return legend_; }
    std::vector<LegendEntry> makeLegend() const;
    // The legend's entries' rectangles, wrapped to the width; their bottom is the plot's top margin.
    std::vector<QRectF> legendRects(double* bottom = nullptr) const;
    // The value of `values` at op `op` (the newest sample at or before it).
    static double valueAt(const std::vector<std::size_t>& ops, const std::vector<double>& values,
                          std::size_t op);
    // The single curve's stacked bands' tops per sample, bottom category first (computed once per setCurves).
    std::vector<std::vector<double>> makeBandTops() const;
    // The step line through `values` at `ops` (each value held until the next op) to the last op; `closed`:
    // the area under it, down to the plot's bottom.
    QPainterPath stepPath(const std::vector<std::size_t>& ops, const std::vector<double>& values,
                          bool closed) const;
    void paintStack(QPainter& painter, const MemoryCurve& curve) const;
    void paintLine(QPainter& painter, const MemoryCurve& curve, const std::vector<double>& values,
                   const QPen& pen, bool fill) const;

    std::vector<MemoryCurve> curves_;
    std::size_t opCount_ = 0;
    MemoryAxis axis_;
    std::function<QString(std::size_t)> opText_;
    long hoverOp_ = -1;
    std::vector<LegendEntry> legend_;
    std::vector<std::vector<double>> bandTops_;  // per category, per sample (stacked only)
    // plotArea() for the size and font it was computed at (xOf and yOf ask for it at every point drawn).
    mutable QRectF area_;
    mutable QSize areaSize_;
};

}  // namespace shardscope::ui
