// A loaded model as the UI shows it.
#pragma once

#include <QString>
#include <QStringList>

#include "shardscope/ir/statistics.h"
#include "shardscope/model_source.h"

namespace shardscope::ui {

// The engine's model and everything the UI derives from it, computed off the UI thread and never changed
// afterwards: models and panels share one instance through std::shared_ptr<const LoadedModelView>.
struct LoadedModelView {
    LoadedModel model;
    ir::GraphStatistics statistics;
    QString source;  // as the user asked for it
    QString displayName;
    QString description;
    QString stableHlo;     // the graph printed as StableHLO
    QStringList warnings;  // diagnostics that did not stop the load, one line each
    qint64 loadMilliseconds = 0;
};

// Item data role every table model of ui/core answers with a value that sorts naturally (numbers as
// numbers, where the display role shows formatted text).
inline constexpr int SortRole = Qt::UserRole;

}  // namespace shardscope::ui
