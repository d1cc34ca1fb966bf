// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "store/compression.h"

#include <zlib.h>

namespace shardscope::store {

std::optional<std::string> deflateBytes(std::string_view bytes) {
    uLongf size = compressBound(static_cast<uLong>(bytes.size()));
    std::string out(size, '\0');
    // Model files are mostly weights, which barely compress at any level: the fastest level keeps saving a
    // large model quick and gives up only a little on text formats.
    const int rc =
        compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(bytes.data()),
                  static_cast<uLong>(bytes.size()), Z_BEST_SPEED);
    if (rc != Z_OK)
        return std::nullopt;
    out.resize(size);
    return out;
}

std::optional<std::string> inflateBytes(std::string_view compressed, std::size_t size) {
    std::string out(size, '\0');
    uLongf produced = static_cast<uLongf>(size);
    // uncompress() wants a non-null buffer even for an empty result.
    Bytef empty = 0;
    const int rc =
        uncompress(size == 0 ? &empty : reinterpret_cast<Bytef*>(out.data()), &produced,
                   reinterpret_cast<const Bytef*>(compressed.data()), static_cast<uLong>(compressed.size()));
    if (rc != Z_OK || produced != size)
        return std::nullopt;
    return out;
}

}  // namespace shardscope::store
