// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Draws a MeshPicture: the devices as a grid of cells (thick lines between the nodes of the innermost link
// level), a ruler per axis along the direction it runs in, and a line per axis naming its link levels.
#pragma once

#include <QRectF>
#include <QStringList>
#include <QWidget>

#include "core/mesh_picture.h"

namespace shardscope::ui {

class MeshView : public QWidget {
    Q_OBJECT

public:
    explicit MeshView(QWidget* parent = nullptr);

    void setPicture(MeshPicture picture);
    const MeshPicture& picture() const { return picture_; }
    // The lines under the grid, one per axis: "model × 4 across: NVLink 4 through NVSwitch, 450 GB/s".
    QStringList axisLines() const;
    // Device `device`'s cell in widget coordinates (empty without a mesh or beyond the devices drawn).
    QRectF cellRect(std::int64_t device) const;
    // Meshes of more devices are drawn as their axes' lines only.
    static constexpr std::int64_t kMaxDrawnDevices = 4096;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    struct Geometry {
        double left = 0, top = 0, cell = 0, gap = 0;
        double width = 0, height = 0;  // the grid's
    };
    Geometry geometry(double width) const;
    // cellRect for geometry `g` (computed once per paint).
    QRectF cellRect(std::int64_t device, const Geometry& g) const;
    double gapsBefore(std::int64_t index, bool across) const;
    int rulers(bool across) const;
    // The lines under the grid: axisLines() and, with nodes, what shades them.
    QStringList legendLines() const;
    double legendHeight(double width) const;

    MeshPicture picture_;
};

}  // namespace shardscope::ui
