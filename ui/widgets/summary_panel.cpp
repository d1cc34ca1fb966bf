#include "widgets/summary_panel.h"

#include <QFormLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "core/model_summary.h"

namespace shardscope::ui {

SummaryPanel::SummaryPanel(QWidget* parent)
    : QWidget(parent), error_(new QLabel(this)), figures_(new QFormLayout) {
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

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(error_);
    layout->addLayout(figures_);
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
}

void SummaryPanel::showError(const QString& message) {
    error_->setText(message);
    error_->show();
}

}  // namespace shardscope::ui
