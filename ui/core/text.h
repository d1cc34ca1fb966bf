// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Engine text (UTF-8 std::string / std::string_view) as QString. Used only inside ui/core.
#pragma once

#include <string_view>

#include <QString>

namespace shardscope::ui {

inline QString toQString(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

// "1 name", "3 names": a count with the word in the right number (the explorer speaks English).
inline QString countOf(long long count, const QString& one, const QString& many) {
    return QStringLiteral("%L1 %2").arg(count).arg(count == 1 ? one : many);
}

}  // namespace shardscope::ui
