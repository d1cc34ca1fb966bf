// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/export_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include "core/plan_export.h"

namespace shardscope::ui {

ExportDialog::ExportDialog(std::shared_ptr<const ProblemView> problem, plan::Plan plan, QWidget* parent)
    : QDialog(parent),
      problem_(std::move(problem)),
      plan_(std::move(plan)),
      format_(new QComboBox(this)),
      path_(new QLineEdit(this)),
      error_(new QLabel(this)),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Cancel, this)) {
    setWindowTitle(tr("Export the plan"));
    for (const ExportFormat& format : exportFormats())
        format_->addItem(format.name, format.id);
    format_->setObjectName(QStringLiteral("exportFormat"));
    path_->setObjectName(QStringLiteral("exportPath"));
    path_->setText(QStringLiteral("plan.json"));
    error_->setObjectName(QStringLiteral("exportError"));
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("QLabel { color: #a12622; }"));
    auto* browse = new QPushButton(tr("Choose…"), this);
    auto* exportButton = buttons_->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    exportButton->setObjectName(QStringLiteral("exportButton"));

    auto* file = new QHBoxLayout;
    file->addWidget(path_);
    file->addWidget(browse);
    auto* form = new QFormLayout;
    form->addRow(tr("Format:"), format_);
    form->addRow(tr("File:"), file);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(error_);
    layout->addWidget(buttons_);

    connect(format_, &QComboBox::currentIndexChanged, this, &ExportDialog::suggestSuffix);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export to"), path_->text());
        if (!path.isEmpty())
            path_->setText(path);
    });
    connect(buttons_, &QDialogButtonBox::accepted, this, &ExportDialog::exportNow);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

void ExportDialog::setFormat(const QString& id) {
    format_->setCurrentIndex(std::max(0, format_->findData(id)));
}

void ExportDialog::setPath(const QString& path) {
    path_->setText(path);
}

QString ExportDialog::errorText() const {
    return error_->text();
}

void ExportDialog::suggestSuffix() {
    const auto formats = exportFormats();
    const int index = format_->currentIndex();
    if (index < 0 || index >= formats.size())
        return;
    const QFileInfo info(path_->text());
    path_->setText(info.path() == QLatin1String(".")
                       ? info.completeBaseName() + u'.' + formats[index].suffix
                       : info.path() + u'/' + info.completeBaseName() + u'.' + formats[index].suffix);
}

void ExportDialog::exportNow() {
    const QString path = path_->text().trimmed();
    if (path.isEmpty() || !problem_) {
        error_->setText(tr("Choose a file to write"));
        return;
    }
    buttons_->setEnabled(false);
    error_->setText(tr("Exporting…"));
    jobs_.run([problem = problem_, plan = plan_, format = format_->currentData().toString(),
               path] { return exportPlan(*problem, plan, format, path); },
              [this, path](const QString& error) {
                  buttons_->setEnabled(true);
                  error_->setText(error);
                  if (!error.isEmpty())
                      return;
                  emit exported(path);
                  accept();
              });
}

}  // namespace shardscope::ui
