// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Help ▸ Glossary: the glossary's entries (core/glossary.h) in a window that stays open beside the explorer,
// with a search field, the list of terms and the chosen entry, whose links lead to related entries.
#pragma once

#include <QDialog>

class QLineEdit;
class QListWidget;
class QTextBrowser;

namespace shardscope::ui {

class GlossaryDialog : public QDialog {
    Q_OBJECT

public:
    explicit GlossaryDialog(QWidget* parent = nullptr);

    // Shows entry `id` (clearing the search when it hides it). Returns false for an unknown id.
    bool showEntry(const QString& id);
    // The id of the entry shown ("" for none).
    QString currentEntry() const { return current_; }
    // Lists the entries that match `text` (what typing in the search field does).
    void setFilter(const QString& text);
    // The ids listed, in order.
    QStringList listedEntries() const;
    QTextBrowser* textView() const { return text_; }

private:
    void fill();

    QLineEdit* search_;
    QListWidget* list_;
    QTextBrowser* text_;
    QString current_;
};

}  // namespace shardscope::ui
