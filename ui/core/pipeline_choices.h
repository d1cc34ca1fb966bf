// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The pipeline choices of the Pipeline dock: which axes and stage counts the mesh offers, the schedules, a
// pipeline to start from, and why a choice cannot run (plan::pipelineProblem), in the UI's words.
#pragma once

#include <optional>

#include <QList>
#include <QString>
#include <QStringList>

#include "core/problem_view.h"

namespace shardscope::ui {

// The schedules as plan files name them, in plan::PipelineSchedule order: gpipe, 1f1b, interleaved.
QStringList pipelineScheduleNames();
// What a schedule does, one sentence (for tooltips).
QString pipelineScheduleDescription(int schedule);
// The stage counts a pipeline on mesh axis `axis` may have: the divisors of its size from 2 up (empty for an
// axis of size 1 or out of range).
QList<int> pipelineStageChoices(const mesh::Mesh& mesh, int axis);
// The axis a new pipeline takes: one named pipe, pipeline, pp or stage(s) (as the expert plans look for),
// else the largest axis of size 2 or more; none for a mesh without one.
std::optional<int> defaultPipelineAxis(const mesh::Mesh& mesh);
// The model's layers a pipeline splits (plan::pipelineLayers): how many chunks it can have at most.
int pipelineLayerCount(const ProblemView& problem);

// A pipeline to add to `plan`: on defaultPipelineAxis with as many stages as the axis has devices (fewer when
// the model has fewer layers), 1f1b; with the microbatches it needs: the plan's when it has more than one,
// else the first of 4·p, 2·p, p and 1 that can run. Sets `microbatches`. None when the mesh or the model has
// no room for a pipeline.
std::optional<plan::Pipeline> suggestedPipeline(const ProblemView& problem, const plan::Plan& plan,
                                                int* microbatches);

// The microbatches `pipeline` starts with on `plan`: the plan's when it has more than one, else the first of
// 4·p, 2·p, p and 1 that can run (1 when none can).
int suggestedMicrobatches(const ProblemView& problem, const plan::Plan& plan, const plan::Pipeline& pipeline);
// A mesh axis as the axis chooser lists it: "pipe (4)".
QString pipelineAxisLabel(const mesh::Mesh& mesh, int axis);

// Why `plan`'s microbatches or pipeline cannot run on the problem's mesh (plan::pipelineProblem), or "".
QString pipelineProblemText(const ProblemView& problem, const plan::Plan& plan);

}  // namespace shardscope::ui
