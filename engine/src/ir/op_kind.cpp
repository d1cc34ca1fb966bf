// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/ir/op_kind.h"

#include <array>

namespace shardscope::ir {
namespace {

struct KindInfo {
    std::string_view mnemonic;
    OpCategory category;
};

constexpr std::array<KindInfo, kOpKindCount> kKinds{{
#define SHARDSCOPE_OP_INFO(name, text, cat) KindInfo{text, OpCategory::cat},
    SHARDSCOPE_OP_KINDS(SHARDSCOPE_OP_INFO)
#undef SHARDSCOPE_OP_INFO
}};

}  // namespace

std::string_view mnemonic(OpKind kind) {
    return kKinds[static_cast<std::size_t>(kind)].mnemonic;
}

OpCategory category(OpKind kind) {
    return kKinds[static_cast<std::size_t>(kind)].category;
}

std::optional<OpKind> parseOpKind(std::string_view name) {
    constexpr std::string_view prefix = "stablehlo.";
    if (name.substr(0, prefix.size()) == prefix)
        name.remove_prefix(prefix.size());
    for (std::size_t i = 0; i < kKinds.size(); ++i) {
        const auto kind = static_cast<OpKind>(i);
        if (kind == OpKind::Opaque || kind == OpKind::OtherElementwise)
            continue;
        if (kKinds[i].mnemonic == name)
            return static_cast<OpKind>(i);
    }
    return std::nullopt;
}

}  // namespace shardscope::ir
