// The Summary dock: a model's headline figures, and why the last load failed when it did.
#pragma once

#include <QWidget>

class QFormLayout;
class QLabel;

namespace shardscope::ui {

struct ProblemView;

class SummaryPanel : public QWidget {
    Q_OBJECT

public:
    explicit SummaryPanel(QWidget* parent = nullptr);

    // Shows `model`'s figures and hides any error.
    void showModel(const ProblemView& model);
    // Shows `message` above the figures, which stay those of the model still shown (if any).
    void showError(const QString& message);

private:
    QLabel* error_;
    QFormLayout* figures_;
};

}  // namespace shardscope::ui
