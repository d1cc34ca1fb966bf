// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A font whose glyphs all have one width, on whatever fonts the machine has.
#pragma once

#include <QFont>
#include <QList>

namespace shardscope::ui {

// Whether `font`, as it resolves on this machine, sets narrow and wide glyphs ("i", "W", "m", ".", "0") at
// one width: measured, since a face fontconfig substitutes for "monospace" need not be one.
bool isFixedPitch(const QFont& font);

// The first of these that resolves to a fixed-pitch face: `preferred` in order; the system's fixed font
// (QFontDatabase::FixedFont); known monospace families (DejaVu Sans Mono, Noto Sans Mono, Liberation Mono,
// ...); any family the font database calls fixed-pitch. Failing all (a machine without one), the system's
// fixed font with the Monospace style hint. The point size is the system fixed font's.
QFont fixedPitchFont(const QList<QFont>& preferred = {});

}  // namespace shardscope::ui
