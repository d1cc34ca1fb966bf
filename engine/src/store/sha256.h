// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// SHA-256 (FIPS 180-4), enough of it to fingerprint a workspace's model bytes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace shardscope::store {

// Feed bytes with update() in any number of pieces; hexDigest() then gives the 64 lowercase hex digits.
class Sha256 {
public:
    Sha256();
    void update(std::string_view bytes);
    // Ends the computation: call it once, after the last update().
    std::string hexDigest();

private:
    void compress(const unsigned char* block);

    std::array<std::uint32_t, 8> state_;
    std::array<unsigned char, 64> buffer_{};
    std::size_t buffered_ = 0;
    std::uint64_t length_ = 0;  // bytes seen
};

// The hex SHA-256 of `bytes`.
std::string sha256Hex(std::string_view bytes);

}  // namespace shardscope::store
