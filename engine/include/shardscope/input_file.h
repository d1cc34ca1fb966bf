// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Reading a file the user names (a model, a plan, a mesh, a hardware profile, calibration runs): regular
// files only, and never more than a limit. A FIFO, a device or a directory is refused at once, without
// opening it for reading, so nothing blocks on a pipe nobody writes or reads /dev/zero forever.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "shardscope/diagnostic.h"

namespace shardscope {

// The largest model file read when SHARDSCOPE_MAX_MODEL_SIZE is not set: 2 GiB, far above any model file met
// so far (StableHLO text and ONNX graphs whose weights live elsewhere weigh kilobytes to megabytes).
inline constexpr std::int64_t kDefaultMaxModelBytes = std::int64_t{2} << 30;

// The environment variable that overrides kDefaultMaxModelBytes: a number of bytes, optionally with a K, M, G
// or T suffix (powers of 1024), e.g. SHARDSCOPE_MAX_MODEL_SIZE=8G.
inline constexpr std::string_view kMaxModelSizeVariable = "SHARDSCOPE_MAX_MODEL_SIZE";

// Plans, meshes, hardware profiles and calibration runs: JSON written by a person or by Shardscope, which
// never comes near this.
inline constexpr std::int64_t kMaxJsonFileBytes = std::int64_t{64} << 20;

// "4096", "64K", "2G", "1T" (powers of 1024; lower case too) as bytes; nullopt for anything else, zero, or
// more than fits.
std::optional<std::int64_t> parseByteSize(std::string_view text);

// The largest model file to read: SHARDSCOPE_MAX_MODEL_SIZE when set, else kDefaultMaxModelBytes.
// Errors (input.limit): the variable holds something other than a positive size.
Result<std::int64_t> maxModelBytes();

// What `path` is when it exists and is not a regular file (symbolic links followed): "a FIFO (named pipe)",
// "a character device", "a directory", "a block device", "a socket"; none for a regular file or no file.
std::optional<std::string> notARegularFile(const std::string& path);

// The bytes of the regular file `path`, at most `maxBytes` of them. `what` names the file in errors ("model",
// "plan file", ...); `raise`, when given, ends the too-large message and says how to allow more.
// Errors: the file cannot be opened (input.open, with the system's reason); it is not a regular file
// (input.not-regular: "it is a FIFO (named pipe)", "a character device", "a directory", ...); it holds more
// than `maxBytes` (input.too-large, with its size and the limit); reading fails (input.read).
Result<std::string> readInputFile(const std::string& path, std::string_view what, std::int64_t maxBytes,
                                  std::string_view raise = {});

// readInputFile for a model file, under maxModelBytes(), the too-large message saying how to raise it.
Result<std::string> readModelFile(const std::string& path);

}  // namespace shardscope
