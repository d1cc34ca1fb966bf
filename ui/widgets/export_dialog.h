// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// File ▸ Export: the edited plan in any format the engine offers, written off the UI thread.
#pragma once

#include <memory>

#include <QDialog>

#include "core/job_queue.h"
#include "core/problem_view.h"

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace shardscope::ui {

class ExportDialog : public QDialog {
    Q_OBJECT

public:
    ExportDialog(std::shared_ptr<const ProblemView> problem, plan::Plan plan, QWidget* parent = nullptr);

    // Chooses a format (an ExportFormat id) and a file, as the user would.
    void setFormat(const QString& id);
    void setPath(const QString& path);
    QString errorText() const;

signals:
    // The file was written.
    void exported(const QString& path);

private:
    void exportNow();
    void suggestSuffix();

    std::shared_ptr<const ProblemView> problem_;
    plan::Plan plan_;
    QComboBox* format_;
    QLineEdit* path_;
    QLabel* error_;
    QDialogButtonBox* buttons_;
    JobQueue jobs_{"export"};  // last: destroyed first
};

}  // namespace shardscope::ui
