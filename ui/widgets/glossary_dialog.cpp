// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "widgets/glossary_dialog.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "core/glossary.h"

namespace shardscope::ui {
namespace {

constexpr int kIdRole = Qt::UserRole + 1;

}  // namespace

GlossaryDialog::GlossaryDialog(QWidget* parent)
    : QDialog(parent),
      search_(new QLineEdit(this)),
      list_(new QListWidget(this)),
      text_(new QTextBrowser(this)) {
    setObjectName(QStringLiteral("glossaryDialog"));
    setWindowTitle(tr("Glossary"));
    setWhatsThis(
        tr("The words the explorer uses, in plain language. Type to search; click a term to read it; "
           "links lead to related terms."));
    search_->setObjectName(QStringLiteral("glossarySearch"));
    search_->setPlaceholderText(tr("Search the glossary"));
    search_->setClearButtonEnabled(true);
    list_->setObjectName(QStringLiteral("glossaryList"));
    list_->setMinimumWidth(220);
    text_->setObjectName(QStringLiteral("glossaryText"));
    text_->setOpenLinks(false);
    text_->setOpenExternalLinks(false);

    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(search_);
    leftLayout->addWidget(list_, 1);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(text_);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(split);
    resize(820, 480);

    connect(search_, &QLineEdit::textChanged, this, &GlossaryDialog::setFilter);
    connect(list_, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
        if (item && item->data(kIdRole).isValid())
            showEntry(item->data(kIdRole).toString());
    });
    connect(text_, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (const auto id = glossaryIdOf(url))
            showEntry(*id);
    });
    fill();
}

void GlossaryDialog::fill() {
    const QList<const GlossaryEntry*> entries = searchGlossary(search_->text());
    const QSignalBlocker quiet(list_);
    list_->clear();
    // Kinds in the glossary's order, each under a heading (headings are not selectable).
    for (const auto kind :
         {GlossaryEntry::Kind::Concept, GlossaryEntry::Kind::ExpertPlan, GlossaryEntry::Kind::Panel}) {
        bool headed = false;
        for (const GlossaryEntry* entry : entries) {
            if (entry->kind != kind)
                continue;
            if (!headed) {
                auto* heading = new QListWidgetItem(glossaryKindName(kind), list_);
                heading->setFlags(Qt::NoItemFlags);
                QFont bold = heading->font();
                bold.setBold(true);
                heading->setFont(bold);
                headed = true;
            }
            auto* item = new QListWidgetItem(QStringLiteral("  ") + entry->term, list_);
            item->setData(kIdRole, entry->id);
            if (entry->id == current_)
                list_->setCurrentItem(item);
        }
    }
}

void GlossaryDialog::setFilter(const QString& text) {
    if (search_->text() != text) {
        search_->setText(text);  // fills through textChanged
        return;
    }
    fill();
    // The best match is read at once.
    const QStringList ids = listedEntries();
    if (!ids.isEmpty() && !ids.contains(current_))
        showEntry(ids.first());
}

QStringList GlossaryDialog::listedEntries() const {
    QStringList ids;
    for (int i = 0; i < list_->count(); ++i)
        if (const QVariant id = list_->item(i)->data(kIdRole); id.isValid())
            ids.append(id.toString());
    return ids;
}

bool GlossaryDialog::showEntry(const QString& id) {
    const GlossaryEntry* entry = glossaryEntry(id);
    if (!entry)
        return false;
    current_ = id;
    if (!listedEntries().contains(id))
        search_->clear();  // refills
    for (int i = 0; i < list_->count(); ++i) {
        if (list_->item(i)->data(kIdRole).toString() == id) {
            const QSignalBlocker quiet(list_);
            list_->setCurrentRow(i);
            list_->scrollToItem(list_->item(i));
        }
    }
    text_->setHtml(glossaryHtml(*entry));
    return true;
}

}  // namespace shardscope::ui
