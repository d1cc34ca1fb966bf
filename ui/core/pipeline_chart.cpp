// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/pipeline_chart.h"

#include <algorithm>
#include <array>
#include <exception>

#include <QCoreApplication>
#include <QStringList>

#include "core/plan_breakdown.h"
#include "core/text.h"

namespace shardscope::ui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("PipelineChart", text);
}

// Tableau's ten colours: neighbouring microbatches get hues far apart.
const std::array<QColor, 10> kMicrobatchColors = {
    QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0xe1, 0x57, 0x59), QColor(0x76, 0xb7, 0xb2),
    QColor(0x59, 0xa1, 0x4f), QColor(0xed, 0xc9, 0x48), QColor(0xb0, 0x7a, 0xa1), QColor(0xff, 0x9d, 0xa7),
    QColor(0x9c, 0x75, 0x5f), QColor(0xba, 0xb0, 0xac),
};

// Stages: saturated colours that read as a thin band beside a node's pastel fill.
const std::array<QColor, 8> kStageColors = {
    QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c), QColor(0xd6, 0x27, 0x28),
    QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b), QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf),
};

PipelineBoxKind kindOf(cost::PipelineTask::Kind kind) {
    switch (kind) {
        case cost::PipelineTask::Kind::Forward:
            return PipelineBoxKind::Forward;
        case cost::PipelineTask::Kind::Backward:
            return PipelineBoxKind::Backward;
        case cost::PipelineTask::Kind::GradientSync:
            return PipelineBoxKind::GradientSync;
        case cost::PipelineTask::Kind::Update:
            return PipelineBoxKind::Update;
    }
    return PipelineBoxKind::Forward;
}

// "1 microbatch", "4 microbatches".
QString microbatchCount(int count) {
    return count == 1 ? tr("1 microbatch") : tr("%1 microbatches").arg(count);
}

QString msText(double seconds) {
    return tr("%1 ms").arg(seconds * 1e3, 0, 'f', 3);
}

// The layer blocks a chunk holds, "layers.0–layers.2" (or "layers.4" alone).
QString chunkBlocks(const ProblemView& problem, const std::vector<std::int32_t>& layers, int first,
                    int count) {
    const auto& blocks = problem.blocks().blocks;
    auto name = [&](int i) -> QString {
        if (i < 0 || static_cast<std::size_t>(i) >= layers.size())
            return {};
        const auto block = static_cast<std::size_t>(layers[static_cast<std::size_t>(i)]);
        return block < blocks.size() ? toQString(blocks[block]) : QString();
    };
    if (count <= 0)
        return {};
    if (count == 1)
        return name(first);
    return name(first) + QStringLiteral("–") + name(first + count - 1);
}

}  // namespace

std::pair<std::size_t, std::size_t> PipelineChart::rowBoxes(int row) const {
    const auto first = std::lower_bound(boxes.begin(), boxes.end(), row,
                                        [](const PipelineBox& box, int r) { return box.row < r; });
    const auto last =
        std::upper_bound(first, boxes.end(), row, [](int r, const PipelineBox& box) { return r < box.row; });
    return {static_cast<std::size_t>(first - boxes.begin()), static_cast<std::size_t>(last - boxes.begin())};
}

PipelineChart pipelineChart(const ProblemView& problem, const PlanState& state) {
    PipelineChart out;
    out.revision = state.revision;
    out.stepTime = state.evaluation.stepTime;
    const auto& evaluation = state.evaluation.pipeline;
    if (!evaluation) {
        out.absent =
            tr("No pipeline: the plan runs the whole batch at once on every device. Add one below, or with "
               "Start from ▸ ptd-p (on a mesh with an axis named pipe).");
        return out;
    }
    const cost::PipelineEvaluation& p = *evaluation;
    out.staged = true;
    out.hasPipeline = p.pipeline.has_value();
    out.microbatches = p.microbatches;
    out.bubbleFraction = p.bubbleFraction;
    out.problem = toQString(p.problem);

    const std::vector<std::int32_t> layers = plan::pipelineLayers(problem.blocks());
    for (const cost::PipelineChunk& c : p.chunks)
        out.chunks.push_back(
            {c.device, c.firstLayer, c.layers, chunkBlocks(problem, layers, c.firstLayer, c.layers)});
    for (std::size_t s = 0; s < p.stages.size(); ++s) {
        const cost::PipelineStage& stage = p.stages[s];
        PipelineRow row;
        row.name = out.hasPipeline ? tr("stage %1").arg(s) : tr("device");
        row.peakMemory = stage.peakMemory;
        row.inFlight = stage.inFlight;
        row.busyTime = stage.busyTime;
        row.end = stage.end;
        out.rows.push_back(row);
    }
    double end = 0;
    for (const cost::PipelineTask& t : p.tasks) {
        PipelineBox box;
        box.start = t.start;
        box.end = t.end;
        box.row = std::clamp(t.device, 0, std::max(0, static_cast<int>(out.rows.size()) - 1));
        box.chunk = t.chunk;
        box.kind = kindOf(t.kind);
        box.microbatch =
            box.kind == PipelineBoxKind::Forward || box.kind == PipelineBoxKind::Backward ? t.microbatch : -1;
        box.color = pipelineBoxColor(box.kind, box.microbatch);
        out.boxes.push_back(box);
        end = std::max(end, t.end);
    }
    std::stable_sort(out.boxes.begin(), out.boxes.end(), [](const PipelineBox& a, const PipelineBox& b) {
        return a.row != b.row ? a.row < b.row : a.start < b.start;
    });
    out.stepTime = std::max(out.stepTime, end);

    const mesh::Mesh& mesh = problem.mesh();
    QStringList parts;
    if (out.hasPipeline) {
        const plan::Pipeline& pipeline = *p.pipeline;
        const QString axis = pipeline.axis >= 0 && static_cast<std::size_t>(pipeline.axis) < mesh.axes.size()
                                 ? toQString(mesh.axes[static_cast<std::size_t>(pipeline.axis)].name)
                                 : QStringLiteral("?");
        parts << tr("Pipeline over %1: %2 stages, %3")
                     .arg(axis)
                     .arg(pipeline.stages)
                     .arg(toQString(plan::toString(pipeline.schedule)));
        if (pipeline.virtualStages > 1)
            parts << tr("%1 virtual stages").arg(pipeline.virtualStages);
        parts << microbatchCount(p.microbatches);
        parts << tr("bubble %1%").arg(p.bubbleFraction * 100, 0, 'f', 1);
    } else {
        parts << tr("No pipeline: %1 one after another (gradient accumulation)")
                     .arg(microbatchCount(p.microbatches));
    }
    parts << tr("step %1").arg(timeLabel(out.stepTime));
    parts << tr("one microbatch %1").arg(timeLabel(p.microbatchTime));
    out.header = parts.join(QStringLiteral(" · "));
    return out;
}

QColor pipelineBoxColor(PipelineBoxKind kind, int microbatch) {
    switch (kind) {
        case PipelineBoxKind::GradientSync:
            return QColor(0x9e, 0xa7, 0xb0);
        case PipelineBoxKind::Update:
            return QColor(0x52, 0x5c, 0x66);
        default:
            break;
    }
    const QColor base =
        kMicrobatchColors[static_cast<std::size_t>(std::max(0, microbatch)) % kMicrobatchColors.size()];
    return kind == PipelineBoxKind::Forward ? base.lighter(135) : base.darker(135);
}

QColor pipelineStageColor(int stage) {
    return kStageColors[static_cast<std::size_t>(std::max(0, stage)) % kStageColors.size()];
}

QString pipelineBoxKindName(PipelineBoxKind kind) {
    switch (kind) {
        case PipelineBoxKind::Forward:
            return tr("forward");
        case PipelineBoxKind::Backward:
            return tr("backward");
        case PipelineBoxKind::GradientSync:
            return tr("gradient sync");
        case PipelineBoxKind::Update:
            return tr("update");
    }
    return {};
}

QString pipelineBoxLabel(const PipelineBox& box) {
    switch (box.kind) {
        case PipelineBoxKind::Forward:
            return QStringLiteral("F%1").arg(box.microbatch);
        case PipelineBoxKind::Backward:
            return QStringLiteral("B%1").arg(box.microbatch);
        case PipelineBoxKind::GradientSync:
            return tr("sync");
        case PipelineBoxKind::Update:
            return tr("update");
    }
    return {};
}

QString describePipelineBox(const PipelineChart& chart, const PipelineBox& box) {
    QStringList lines;
    if (box.microbatch >= 0)
        lines << tr("%1 of microbatch %2").arg(pipelineBoxKindName(box.kind)).arg(box.microbatch);
    else
        lines << tr("%1, once per step").arg(pipelineBoxKindName(box.kind));
    if (box.chunk >= 0 && static_cast<std::size_t>(box.chunk) < chart.chunks.size()) {
        const PipelineChunkInfo& chunk = chart.chunks[static_cast<std::size_t>(box.chunk)];
        lines << tr("chunk %1 on %2: %3")
                     .arg(box.chunk)
                     .arg(static_cast<std::size_t>(box.row) < chart.rows.size()
                              ? chart.rows[static_cast<std::size_t>(box.row)].name
                              : QString())
                     .arg(chunk.blocks);
    }
    lines << tr("%1, from %2 to %3").arg(timeLabel(box.duration()), msText(box.start), msText(box.end));
    return lines.join(u'\n');
}

QString pipelineRowDetail(const PipelineRow& row) {
    return tr("peak %1 · %2 in flight").arg(bytesLabel(row.peakMemory)).arg(row.inFlight);
}

std::vector<int> pipelineStageOfOp(const PlanState& state) {
    const auto& p = state.evaluation.pipeline;
    if (!p || !p->pipeline)
        return {};
    std::vector<int> out(p->chunkOfOp.size(), -1);
    for (std::size_t i = 0; i < p->chunkOfOp.size(); ++i) {
        const auto chunk = p->chunkOfOp[i];
        if (chunk >= 0 && static_cast<std::size_t>(chunk) < p->chunks.size())
            out[i] = p->chunks[static_cast<std::size_t>(chunk)].device;
    }
    return out;
}

// --- PipelineCharter ---

PipelineCharter::PipelineCharter(QObject* parent) : QObject(parent) {
    qRegisterMetaType<std::shared_ptr<const PipelineChart>>();
}

PipelineCharter::~PipelineCharter() = default;

void PipelineCharter::chart(std::shared_ptr<const ProblemView> problem,
                            std::shared_ptr<const PlanState> state) {
    if (!problem || !state) {
        charts_.cancel();
        busy_ = false;
        emit charted(nullptr);
        return;
    }
    busy_ = true;
    charts_.run(
        [problem, state]() -> std::shared_ptr<const PipelineChart> {
            try {
                return std::make_shared<const PipelineChart>(pipelineChart(*problem, *state));
            } catch (const std::exception&) {
                return nullptr;  // only std::bad_alloc: the dock then shows nothing
            }
        },
        [this](std::shared_ptr<const PipelineChart> chart) {
            busy_ = false;
            emit charted(std::move(chart));
        });
}

}  // namespace shardscope::ui
