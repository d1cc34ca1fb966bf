// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/remat_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include "core/plan_editor.h"
#include "core/remat_choices.h"

namespace shardscope::ui {

RematPanel::RematPanel(PlanEditor* editor, QWidget* parent)
    : QWidget(parent), editor_(editor), form_(new QFormLayout), note_(new QLabel(this)) {
    auto* title = new QLabel(tr("<b>Rematerialization</b> per block family"), this);
    title->setToolTip(
        tr("Which forward values of each block stay in memory until the backward pass; the others "
           "are recomputed there"));
    note_->setWordWrap(true);
    note_->setObjectName(QStringLiteral("rematNote"));
    form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->addWidget(title);
    layout->addLayout(form_);
    layout->addWidget(note_);
    connect(editor_, &PlanEditor::planChanged, this, &RematPanel::refresh);
    refresh();
}

QComboBox* RematPanel::comboOf(const QString& family) const {
    const auto at = families_.indexOf(family);
    return at < 0 ? nullptr : combos_[at];
}

void RematPanel::refresh() {
    const auto& problem = editor_->problem();
    const QList<RematFamily> families =
        problem ? rematFamilies(*problem, editor_->plan()) : QList<RematFamily>{};
    QStringList names;
    for (const RematFamily& f : families)
        names << f.family;
    if (names != families_) {
        while (form_->rowCount() > 0)
            form_->removeRow(0);
        combos_.clear();
        families_ = names;
        const QStringList policies = rematPolicyNames();
        for (const RematFamily& f : families) {
            auto* combo = new QComboBox(this);
            combo->setObjectName(QStringLiteral("remat:") + f.family);
            for (int p = 0; p < policies.size(); ++p) {
                combo->addItem(policies[p]);
                combo->setItemData(p, rematPolicyDescription(p), Qt::ToolTipRole);
            }
            connect(combo, &QComboBox::activated, this,
                    [this, family = f.family](int policy) { editor_->setRemat(family, policy); });
            form_->addRow(tr("%1 (%n blocks)", nullptr, f.blocks).arg(f.family), combo);
            combos_.append(combo);
        }
    }
    for (qsizetype i = 0; i < families.size(); ++i) {
        const QSignalBlocker blocker(combos_[i]);
        combos_[i]->setCurrentIndex(families[i].policy);
        combos_[i]->setToolTip(
            families[i].overridden == 0
                ? rematPolicyDescription(families[i].policy)
                : tr("%1\n%n of its blocks have a policy of their own (set in the plan file)", nullptr,
                     families[i].overridden)
                      .arg(rematPolicyDescription(families[i].policy)));
    }
    if (!problem)
        note_->setText(QString());
    else if (problem->graph().backwardStart == 0)
        note_->setText(
            tr("Recomputing applies to a training step: tick \"Plan the whole training step\" under "
               "Mesh and training."));
    else if (families.isEmpty())
        note_->setText(
            tr("This model has no repeated blocks of layers (no op name has an index, like layers.3)."));
    else
        note_->setText(QString());
    note_->setVisible(!note_->text().isEmpty());
}

}  // namespace shardscope::ui
