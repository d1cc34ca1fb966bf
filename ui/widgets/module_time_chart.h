// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Where the step's time goes, as a picture: one horizontal bar per module (ModuleTimeBar), split into its
// ops' compute and the communication the compute stream waits for (exposed), the recompute of remat hatched
// within the compute. Clicking a bar asks to show the module's first op.
#pragma once

#include <cstddef>
#include <vector>

#include <QRectF>
#include <QWidget>

#include "core/plan_breakdown.h"

namespace shardscope::ui {

class ModuleTimeChart : public QWidget {
    Q_OBJECT

public:
    explicit ModuleTimeChart(QWidget* parent = nullptr);

    // Shows `bars` (none: the empty message). `stepTime` is what the shares are of (0: the bars' total).
    void setBars(std::vector<ModuleTimeBar> bars, double stepTime);
    const std::vector<ModuleTimeBar>& bars() const { return bars_; }

    // Geometry in widget coordinates, for tests: bar `bar`'s compute and exposed parts (an empty rectangle
    // for a part of no time), and the bar under `point` (-1: none).
    QRectF computeRect(std::size_t bar) const;
    QRectF exposedRect(std::size_t bar) const;
    int barAt(QPointF point) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    // The user clicked bar `bar`.
    void barClicked(std::size_t bar);

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    struct Layout {
        double labelWidth = 0, barLeft = 0, barWidth = 0, top = 0, row = 0, scale = 0;
    };
    // The layout for the widget's size, computed once per size, font and bars (it measures every label).
    Layout layout() const;
    Layout computeLayout() const;
    QString valueText(const ModuleTimeBar& bar) const;

    std::vector<ModuleTimeBar> bars_;
    double stepTime_ = 0;
    double total_ = 0;  // the percentages' whole
    mutable Layout layout_;
    mutable QSize layoutSize_;
};

}  // namespace shardscope::ui
