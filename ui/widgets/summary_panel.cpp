// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/summary_panel.h"

#include <QFormLayout>
#include <QLabel>
#include <QListWidget>
#include <QVBoxLayout>

#include "core/model_summary.h"

namespace shardscope::ui {

SummaryPanel::SummaryPanel(QWidget* parent)
    : QWidget(parent),
      error_(new QLabel(this)),
      figures_(new QFormLayout),
      warningsHeading_(new QLabel(this)),
      warnings_(new QListWidget(this)) {
    error_->setObjectName(QStringLiteral("summaryError"));
    error_->setWordWrap(true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setFrameShape(QFrame::StyledPanel);
    error_->setMargin(6);
    error_->setStyleSheet(
        QStringLiteral("QLabel { background: #fdecea; color: #8a1c13; border: 1px solid #f5c2bd; }"));
    error_->hide();

    figures_->setLabelAlignment(Qt::AlignLeft);
    figures_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    figures_->setRowWrapPolicy(QFormLayout::DontWrapRows);

    // The warnings stay in view: a tooltip or the status bar would lose them.
    warningsHeading_->setObjectName(QStringLiteral("summaryWarningsHeading"));
    warningsHeading_->setWordWrap(true);
    warningsHeading_->hide();
    warnings_->setObjectName(QStringLiteral("summaryWarnings"));
    warnings_->setWordWrap(true);
    warnings_->setTextElideMode(Qt::ElideNone);
    warnings_->setSpacing(3);  // a warning of several lines stays apart from the next
    warnings_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    warnings_->setStyleSheet(QStringLiteral("QListWidget { background: #fff8e1; }"));
    warnings_->hide();

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(error_);
    layout->addLayout(figures_);
    layout->addWidget(warningsHeading_);
    layout->addWidget(warnings_, 1);
    layout->addStretch();
}

void SummaryPanel::showModel(const ProblemView& model) {
    error_->hide();
    while (figures_->rowCount() > 0)
        figures_->removeRow(0);
    for (const SummaryLine& line : summaryOf(model)) {
        auto* label = new QLabel(line.label + u':');
        auto* value = new QLabel(line.value);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        value->setToolTip(line.toolTip);
        label->setToolTip(line.toolTip);
        QFont bold = value->font();
        bold.setBold(true);
        value->setFont(bold);
        figures_->addRow(label, value);
    }
    warnings_->clear();
    for (const QString& warning : model.warnings) {
        auto* item = new QListWidgetItem(warning, warnings_);
        item->setToolTip(warning);
    }
    const qsizetype count = model.warnings.size();
    warningsHeading_->setText(count == 0   ? tr("No warnings: the model loaded cleanly.")
                              : count == 1 ? tr("<b>1 warning</b> from loading the model:")
                                           : tr("<b>%1 warnings</b> from loading the model:").arg(count));
    warningsHeading_->show();
    warnings_->setVisible(!model.warnings.isEmpty());
}

void SummaryPanel::showError(const QString& message) {
    error_->setText(message);
    error_->show();
}

}  // namespace shardscope::ui
