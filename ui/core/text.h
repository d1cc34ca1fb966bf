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

}  // namespace shardscope::ui
