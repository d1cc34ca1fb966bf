// Loads models off the UI thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include <QObject>
#include <QString>

#include "core/loaded_model_view.h"

namespace shardscope::ui {

// Loads a model and derives its statistics and StableHLO text on a worker thread, so the window never
// waits. Only the newest request reports: starting a load supersedes any still running, whose outcome is
// dropped (and whose work is skipped if it has not started yet).
class ModelLoader : public QObject {
    Q_OBJECT

public:
    explicit ModelLoader(QObject* parent = nullptr);

    // Starts loading `source` (see shardscope::loadModel) and returns at once.
    void load(const QString& source);
    bool isBusy() const { return busy_; }

signals:
    void busyChanged(bool busy);
    void loaded(std::shared_ptr<const shardscope::ui::LoadedModelView> model);
    // One line that names the source and says what went wrong.
    void failed(const QString& message);

private:
    void setBusy(bool busy);

    // Shared with the worker jobs, which compare it with their own generation to know they are superseded.
    std::shared_ptr<std::atomic<std::uint64_t>> generation_;
    bool busy_ = false;
};

// What the explorer opens when given nothing (the engine's demo model).
QString defaultModelSource();

}  // namespace shardscope::ui
