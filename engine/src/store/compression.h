// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// zlib for the model bytes a workspace keeps. No zlib type leaves this pair of files.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace shardscope::store {

// One zlib stream holding `bytes`; nullopt if zlib fails (out of memory).
std::optional<std::string> deflateBytes(std::string_view bytes);

// The `size` bytes that the zlib stream `compressed` holds; nullopt when the stream is damaged or does not
// hold exactly `size` bytes.
std::optional<std::string> inflateBytes(std::string_view compressed, std::size_t size);

}  // namespace shardscope::store
