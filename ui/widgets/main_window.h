// The explorer's main window: choose a model, read its StableHLO, its summary, parameters and op kinds.
#pragma once

#include <memory>

#include <QMainWindow>

#include "core/loaded_model_view.h"

class QComboBox;
class QDockWidget;
class QPlainTextEdit;
class QProgressBar;
class QTableView;

namespace shardscope::ui {

class ModelLoader;
class OpCountModel;
class ParameterModel;
class SummaryPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Starts loading `source` in the background; the window stays responsive and shows the model when it
    // arrives (modelShown) or says why not (modelFailed). Asking again for the model being loaded does
    // nothing.
    void openModel(const QString& source);
    // The model shown, or nullptr before the first successful load.
    std::shared_ptr<const LoadedModelView> currentModel() const { return current_; }

    // Restores the geometry and dock layout saved by the last close (QSettings).
    void restoreLayout();
    // Renders the whole window to an image file (format from the suffix). Returns false and sets
    // `errorMessage` when the file cannot be written.
    bool saveScreenshot(const QString& path, QString* errorMessage);

signals:
    void modelShown();
    void modelFailed(const QString& message);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    QDockWidget* addPanel(const QString& title, const QString& objectName, QWidget* panel,
                          Qt::DockWidgetArea area);
    void showModel(std::shared_ptr<const LoadedModelView> model);
    void showFailure(const QString& message);
    void showBusy(bool busy);

    ModelLoader* loader_;
    OpCountModel* opCounts_;
    ParameterModel* parameters_;
    std::shared_ptr<const LoadedModelView> current_;
    QString requested_;

    QComboBox* chooser_;
    QPlainTextEdit* stableHlo_;
    SummaryPanel* summary_;
    QTableView* parameterView_;
    QTableView* opCountView_;
    QProgressBar* progress_;
};

}  // namespace shardscope::ui
