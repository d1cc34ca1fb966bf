// The headline figures of a loaded model, formatted for people.
#pragma once

#include <QList>
#include <QString>

#include "core/loaded_model_view.h"

namespace shardscope::ui {

struct SummaryLine {
    QString label;
    QString value;
    QString toolTip;  // what the figure means, or the exact value behind a rounded one
};

// Model, parameters, FLOPs per forward pass, parameter bytes, activation bytes, ops, and warnings when
// there are any, in that order.
QList<SummaryLine> summaryOf(const LoadedModelView& model);

}  // namespace shardscope::ui
