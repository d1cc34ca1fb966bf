// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace shardscope {
namespace {

// "2 GiB", "1.5 MiB", "100 bytes".
std::string sizeText(std::int64_t bytes) {
    constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024)
        return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
    double value = static_cast<double>(bytes);
    int unit = -1;
    while (value >= 1024 && unit < 3) {
        value /= 1024;
        ++unit;
    }
    char buffer[48];
    std::snprintf(buffer, sizeof buffer,
                  value == static_cast<double>(static_cast<std::int64_t>(value)) ? "%.0f %s" : "%.1f %s",
                  value, kUnits[unit]);
    return buffer;
}

// What a file that is not a regular file is, for "it is ...".
std::string kindOf(mode_t mode) {
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a file";
}

std::string quoted(const std::string& path) {
    return "'" + path + "'";
}

}  // namespace

std::optional<std::int64_t> parseByteSize(std::string_view text) {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end == text.data() || value <= 0)
        return std::nullopt;
    std::string_view suffix(end, static_cast<std::size_t>(text.data() + text.size() - end));
    if (suffix.size() == 3 && (suffix.substr(1) == "iB" || suffix.substr(1) == "ib"))
        suffix = suffix.substr(0, 1);
    int shift = 0;
    if (suffix.empty())
        shift = 0;
    else if (suffix == "K" || suffix == "k")
        shift = 10;
    else if (suffix == "M" || suffix == "m")
        shift = 20;
    else if (suffix == "G" || suffix == "g")
        shift = 30;
    else if (suffix == "T" || suffix == "t")
        shift = 40;
    else
        return std::nullopt;
    if (value > (INT64_MAX >> shift))
        return std::nullopt;
    return value << shift;
}

Result<std::int64_t> maxModelBytes() {
    const std::string name(kMaxModelSizeVariable);
    const char* set = std::getenv(name.c_str());
    if (!set || !*set)
        return kDefaultMaxModelBytes;
    const auto parsed = parseByteSize(set);
    if (!parsed)
        return makeError(
            "input.limit",
            name + " must be a size in bytes, optionally with K, M, G or T (e.g. 8G), got '" + set + "'");
    return *parsed;
}

std::optional<std::string> notARegularFile(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0 || S_ISREG(info.st_mode))
        return std::nullopt;
    return kindOf(info.st_mode);
}

Result<std::string> readInputFile(const std::string& path, std::string_view what, std::int64_t maxBytes,
                                  std::string_view raise) {
    const std::string cannot = "cannot read the " + std::string(what) + " " + quoted(path) + ": ";
    // stat first, so a device or a FIFO is never opened; then open without blocking and look again, in case
    // the name was given to something else in between.
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
        const int error = errno;
        return makeError("input.open", "cannot open " + quoted(path) + ": " + std::strerror(error));
    }
    auto notRegular = [&](mode_t mode) {
        return makeError("input.not-regular", cannot + "it is " + kindOf(mode) + ", not a regular file");
    };
    if (!S_ISREG(info.st_mode))
        return notRegular(info.st_mode);
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        const int error = errno;
        return makeError("input.open", "cannot open " + quoted(path) + ": " + std::strerror(error));
    }
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
        return notRegular(info.st_mode);
    auto tooLarge = [&](const std::string& size) {
        return makeError("input.too-large",
                         cannot + "it is " + size + ", more than the " + sizeText(maxBytes) + " a " +
                             std::string(what) + " may have" +
                             (raise.empty() ? std::string() : " (" + std::string(raise) + ")"));
    };
    if (info.st_size > maxBytes)
        return tooLarge(sizeText(info.st_size));
    // The size stat gives is a hint (a file may grow, /proc files say 0): read up to the limit and one byte
    // more.
    std::string bytes;
    bytes.resize(static_cast<std::size_t>(info.st_size));
    std::size_t filled = 0;
    for (;;) {
        if (filled == bytes.size()) {
            if (static_cast<std::int64_t>(bytes.size()) > maxBytes)
                return tooLarge("more than that");
            bytes.resize(std::min<std::size_t>(static_cast<std::size_t>(maxBytes) + 1,
                                               std::max<std::size_t>(bytes.size() * 2, 4096)));
        }
        const ssize_t n = ::read(fd, bytes.data() + filled, bytes.size() - filled);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const int error = errno;
            return makeError("input.read", cannot + std::strerror(error));
        }
        if (n == 0)
            break;
        filled += static_cast<std::size_t>(n);
    }
    if (static_cast<std::int64_t>(filled) > maxBytes)
        return tooLarge("more than that");
    bytes.resize(filled);
    return bytes;
}

Result<std::string> readModelFile(const std::string& path) {
    auto limit = maxModelBytes();
    if (!limit)
        return Result<std::string>::failure(limit.diagnostics());
    return readInputFile(path, "model", *limit,
                         "set " + std::string(kMaxModelSizeVariable) + " to allow more, e.g. " +
                             std::string(kMaxModelSizeVariable) + "=8G");
}

}  // namespace shardscope
