// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The Summary dock: a model's headline figures, the warnings of loading it (every one, in a list under a
// heading that counts them, or a line saying there are none), and why the last load failed when it did. Child
// widgets carry object names (summaryError, summaryWarningsHeading, summaryWarnings).
#pragma once

#include <QWidget>

class QFormLayout;
class QLabel;
class QListWidget;

namespace shardscope::ui {

struct ProblemView;

class SummaryPanel : public QWidget {
    Q_OBJECT

public:
    explicit SummaryPanel(QWidget* parent = nullptr);

    // Shows `model`'s figures and warnings and hides any error.
    void showModel(const ProblemView& model);
    // Shows `message` above the figures, which stay those of the model still shown (if any).
    void showError(const QString& message);

private:
    QLabel* error_;
    QFormLayout* figures_;
    QLabel* warningsHeading_;
    QListWidget* warnings_;
};

}  // namespace shardscope::ui
