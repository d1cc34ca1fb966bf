// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/cost_panel.h"

#include <algorithm>

#include <QFormLayout>
#include <QLabel>
#include <QProgressBar>
#include <QVBoxLayout>

#include "core/model_summary.h"

namespace shardscope::ui {

CostPanel::CostPanel(QWidget* parent)
    : QWidget(parent),
      caption_(new QLabel(this)),
      stepTime_(new QLabel(this)),
      status_(new QLabel(this)),
      memory_(new QProgressBar(this)),
      verdict_(new QLabel(this)),
      lines_(new QFormLayout) {
    caption_->setObjectName(QStringLiteral("costCaption"));
    caption_->setWordWrap(true);
    stepTime_->setObjectName(QStringLiteral("costStepTime"));
    QFont big = stepTime_->font();
    big.setPointSizeF(big.pointSizeF() * 1.6);
    big.setBold(true);
    stepTime_->setFont(big);
    stepTime_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    status_->setStyleSheet(QStringLiteral("QLabel { color: #666; }"));
    memory_->setObjectName(QStringLiteral("costMemory"));
    memory_->setRange(0, 1000);
    memory_->setTextVisible(true);
    verdict_->setObjectName(QStringLiteral("costVerdict"));
    lines_->setLabelAlignment(Qt::AlignLeft);
    lines_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    auto* top = new QHBoxLayout;
    top->addWidget(stepTime_);
    top->addStretch();
    top->addWidget(status_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(caption_);
    layout->addLayout(top);
    layout->addWidget(memory_);
    layout->addWidget(verdict_);
    layout->addLayout(lines_);
    layout->addStretch();
    showState(nullptr, nullptr);
}

void CostPanel::showState(const ProblemView* problem, const PlanState* state) {
    while (lines_->rowCount() > 0)
        lines_->removeRow(0);
    if (!problem || !state) {
        stepTime_->setText(tr("—"));
        memory_->setValue(0);
        memory_->setFormat(tr("peak memory"));
        verdict_->clear();
        return;
    }
    const CostSummary summary = costSummaryOf(*problem, *state);
    stepTime_->setText(summary.stepTime);
    stepTime_->setToolTip(tr("Simulated time of one step on one device"));
    const double fraction = summary.capacity > 0 ? summary.peakMemory / summary.capacity : 0;
    memory_->setValue(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 1000));
    memory_->setFormat(summary.lines.size() > 3 ? summary.lines[3].value : QString());
    // Green while it fits, red when it does not: the one thing a planner must see at a glance.
    memory_->setStyleSheet(summary.feasible ? QStringLiteral("QProgressBar::chunk { background: #5aa05a; }")
                                            : QStringLiteral("QProgressBar::chunk { background: #d9534f; }"));
    verdict_->setText(summary.verdict);
    verdict_->setStyleSheet(summary.feasible
                                ? QStringLiteral("QLabel { color: #2d6a2d; }")
                                : QStringLiteral("QLabel { color: #a12622; font-weight: bold; }"));
    for (const SummaryLine& line : summary.lines) {
        auto* label = new QLabel(line.label);
        auto* value = new QLabel(line.value);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        value->setWordWrap(true);
        label->setToolTip(line.toolTip);
        value->setToolTip(line.toolTip);
        lines_->addRow(label, value);
    }
}

void CostPanel::setCaption(const QString& caption, bool preview) {
    caption_->setText(caption);
    caption_->setStyleSheet(preview ? QStringLiteral("QLabel { color: #8a5a00; font-weight: bold; }")
                                    : QStringLiteral("QLabel { color: #666; }"));
}

QString CostPanel::caption() const {
    return caption_->text();
}

void CostPanel::setEvaluating(bool evaluating) {
    status_->setText(evaluating ? tr("evaluating…") : QString());
}

QString CostPanel::stepTimeText() const {
    return stepTime_->text() == tr("—") ? QString() : stepTime_->text();
}

}  // namespace shardscope::ui
