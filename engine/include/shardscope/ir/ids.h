// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Typed indices: a ValueId cannot be passed where an OpId is expected.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>

namespace shardscope {

template <typename Tag>
struct Id {
    static constexpr std::uint32_t kInvalid = std::numeric_limits<std::uint32_t>::max();
    std::uint32_t index = kInvalid;

    constexpr Id() = default;
    constexpr explicit Id(std::uint32_t i) : index(i) {}
    constexpr bool valid() const { return index != kInvalid; }
    friend constexpr auto operator<=>(Id, Id) = default;
};

}  // namespace shardscope

template <typename Tag>
struct std::hash<shardscope::Id<Tag>> {
    std::size_t operator()(shardscope::Id<Tag> id) const noexcept {
        return std::hash<std::uint32_t>{}(id.index);
    }
};
