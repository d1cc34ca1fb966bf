// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "core/pipeline_choices.h"

#include <algorithm>
#include <array>
#include <string_view>

#include <QCoreApplication>

#include "core/text.h"

namespace shardscope::ui {

QStringList pipelineScheduleNames() {
    QStringList names;
    for (int s = 0; s < plan::kPipelineScheduleCount; ++s)
        names << toQString(plan::toString(static_cast<plan::PipelineSchedule>(s)));
    return names;
}

QString pipelineScheduleDescription(int schedule) {
    switch (static_cast<plan::PipelineSchedule>(schedule)) {
        case plan::PipelineSchedule::GPipe:
            return QCoreApplication::translate(
                "PipelineChoices",
                "Every microbatch's forward, then every backward: keeps all microbatches' "
                "activations");
        case plan::PipelineSchedule::OneFOneB:
            return QCoreApplication::translate("PipelineChoices",
                                               "After a few warm-up forwards each stage alternates one "
                                               "forward and one backward: keeps at most "
                                               "as many microbatches as there are stages");
        case plan::PipelineSchedule::Interleaved:
            return QCoreApplication::translate(
                "PipelineChoices",
                "1F1B over 2 or more chunks of layers per device (Megatron's interleaved schedule): a "
                "smaller "
                "bubble for more transfers; microbatches divisible by the stages");
    }
    return {};
}

QList<int> pipelineStageChoices(const mesh::Mesh& mesh, int axis) {
    QList<int> out;
    if (axis < 0 || static_cast<std::size_t>(axis) >= mesh.axes.size())
        return out;
    const std::int64_t size = mesh.axes[static_cast<std::size_t>(axis)].size;
    for (std::int64_t d = 2; d <= size && d <= (1 << 20); ++d)
        if (size % d == 0)
            out << static_cast<int>(d);
    return out;
}

std::optional<int> defaultPipelineAxis(const mesh::Mesh& mesh) {
    constexpr std::array<std::string_view, 5> kNames = {"pipe", "pipeline", "pp", "stage", "stages"};
    std::optional<int> largest;
    for (std::size_t a = 0; a < mesh.axes.size(); ++a) {
        if (std::find(kNames.begin(), kNames.end(), mesh.axes[a].name) != kNames.end() &&
            mesh.axes[a].size >= 2)
            return static_cast<int>(a);
        if (mesh.axes[a].size >= 2 &&
            (!largest || mesh.axes[a].size > mesh.axes[static_cast<std::size_t>(*largest)].size))
            largest = static_cast<int>(a);
    }
    return largest;
}

int pipelineLayerCount(const ProblemView& problem) {
    return static_cast<int>(plan::pipelineLayers(problem.blocks()).size());
}

std::optional<plan::Pipeline> suggestedPipeline(const ProblemView& problem, const plan::Plan& plan,
                                                int* microbatches) {
    const mesh::Mesh& mesh = problem.mesh();
    const auto axis = defaultPipelineAxis(mesh);
    const int layers = pipelineLayerCount(problem);
    if (!axis || layers < 2)
        return std::nullopt;
    const QList<int> stages = pipelineStageChoices(mesh, *axis);
    plan::Pipeline pipeline;
    pipeline.axis = *axis;
    pipeline.stages = 0;
    for (int s : stages)
        if (s <= layers)
            pipeline.stages = s;
    if (pipeline.stages < 2)
        return std::nullopt;
    const int m = suggestedMicrobatches(problem, plan, pipeline);
    plan::Plan trial = plan;
    trial.microbatches = m;
    trial.pipeline = pipeline;
    if (!pipelineProblemText(problem, trial).isEmpty())
        return std::nullopt;
    if (microbatches)
        *microbatches = m;
    return pipeline;
}

int suggestedMicrobatches(const ProblemView& problem, const plan::Plan& plan,
                          const plan::Pipeline& pipeline) {
    const int p = pipeline.stages;
    QList<int> candidates;
    if (plan.microbatches > 1)
        candidates << plan.microbatches;
    candidates << 4 * p << 2 * p << p;
    for (int m : candidates) {
        plan::Plan trial = plan;
        trial.microbatches = m;
        trial.pipeline = pipeline;
        if (pipelineProblemText(problem, trial).isEmpty())
            return m;
    }
    return 1;
}

QString pipelineAxisLabel(const mesh::Mesh& mesh, int axis) {
    if (axis < 0 || static_cast<std::size_t>(axis) >= mesh.axes.size())
        return {};
    const auto& a = mesh.axes[static_cast<std::size_t>(axis)];
    return QStringLiteral("%1 (%2)").arg(toQString(a.name)).arg(a.size);
}

QString pipelineProblemText(const ProblemView& problem, const plan::Plan& plan) {
    const auto why = plan::pipelineProblem(problem.problem->costModel->planContext(), problem.mesh(), plan);
    return why ? toQString(*why) : QString();
}

}  // namespace shardscope::ui
