// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The explorer's glossary: every word it uses that an ML engineer may not know in this sense (name, group,
// conflict, the expert plans, remat, ...) and every panel, in plain language, in one table. The Help ▸
// Glossary window lists it, "What's this?" on a panel shows the panel's entry, and tooltips and details link
// to entries ("glossary:remat").
#pragma once

#include <cstdint>
#include <optional>

#include <QList>
#include <QString>
#include <QStringList>
#include <QUrl>

namespace shardscope::ui {

struct GlossaryEntry {
    enum class Kind : std::uint8_t { Concept, ExpertPlan, Panel };
    QString id;    // "remat", "expert-fsdp-tp", "panel-cost"
    QString term;  // as listed: "Remat (rematerialization)"
    Kind kind = Kind::Concept;
    QString text;         // plain language; may hold simple HTML (<b>, <i>, <br>)
    QStringList seeAlso;  // ids of related entries
};

// Every entry, concepts first, then the expert plans (one per plan the engine offers, in its order), then the
// panels; each kind sorted as written.
const QList<GlossaryEntry>& glossary();
// The entry `id`, or nullptr.
const GlossaryEntry* glossaryEntry(const QString& id);
// The entries whose term (first) or text contains `text` (case-insensitive); all of them for an empty text.
QList<const GlossaryEntry*> searchGlossary(const QString& text);
// What a kind is called in lists ("Concepts", "Expert plans", "Panels").
QString glossaryKindName(GlossaryEntry::Kind kind);

// A link to entry `id` ("glossary:remat"), and the entry a link points to (nullopt for other links).
QUrl glossaryUrl(const QString& id);
std::optional<QString> glossaryIdOf(const QUrl& url);
// The entry as HTML: its term as a heading, its text, and links to the related entries.
QString glossaryHtml(const GlossaryEntry& entry);
// "What's this?" text of panel entry `id`: the entry's text with links to the related entries.
QString whatsThisOf(const QString& id);
// A tooltip that points to entry `id`: `tip`, then "Glossary: <term> (F1)" on its own line.
QString withGlossary(const QString& tip, const QString& id);
// The entry a tooltip made by withGlossary points to (nullopt for other text): F1 over it opens that entry.
std::optional<QString> glossaryIdInTip(const QString& tip);

}  // namespace shardscope::ui
