// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// What every command's output goes through: diagnostics on stderr (at most a screenful), JSON that never
// throws on names that are not UTF-8, files replaced whole or not at all, and standard output checked at the
// end.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <tuple>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "shardscope/report/evaluation_report.h"

namespace cli {

namespace {

constexpr std::size_t kShownDiagnostics = 10;

// One line: a message holding a line break or another control character (a name from a crafted file) must
// not start a line of its own or drive the terminal.
std::string oneLine(std::string text) {
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            c = ' ';
    return text;
}

std::string count(std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Whether standard output is a pipe whose reader has gone (`shardscope-cli print m | head -1`).
bool readerHasGone(int lastError) {
    if (lastError == EPIPE)
        return true;
    pollfd out{STDOUT_FILENO, POLLOUT, 0};
    return ::poll(&out, 1, 0) == 1 && (out.revents & POLLERR) != 0;
}

bool writeAll(int fd, std::string_view content) {
    while (!content.empty()) {
        const ssize_t n = ::write(fd, content.data(), content.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return false;
        }
        content.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// A new file beside `target` ("<target>.partial-XXXXXX") with the permissions a new file gets (umask
// applies).
int newFileBeside(const std::string& target, std::string& name) {
    std::mt19937_64 random(std::random_device{}() ^ static_cast<std::uint64_t>(::getpid()));
    constexpr std::string_view kLetters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int attempt = 0; attempt < 100; ++attempt) {
        name = target + ".partial-";
        for (int i = 0; i < 6; ++i)
            name += kLetters[random() % kLetters.size()];
        const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

}  // namespace

void printDiagnostics(const std::vector<shardscope::Diagnostic>& diagnostics) {
    const std::size_t shown = std::min(diagnostics.size(), kShownDiagnostics);
    for (std::size_t i = 0; i < shown; ++i)
        std::cerr << "shardscope-cli: " << oneLine(diagnostics[i].toString()) << "\n";
    if (shown == diagnostics.size())
        return;
    std::size_t errors = 0, warnings = 0, notes = 0;
    for (std::size_t i = shown; i < diagnostics.size(); ++i) {
        const auto severity = diagnostics[i].severity;
        ++(severity == shardscope::Severity::Error     ? errors
           : severity == shardscope::Severity::Warning ? warnings
                                                       : notes);
    }
    std::string kinds;
    for (const auto& [n, one, many] :
         {std::tuple{errors, "error", "errors"}, {warnings, "warning", "warnings"}, {notes, "note", "notes"}})
        if (n > 0)
            kinds += (kinds.empty() ? "" : ", ") + count(n, one, many);
    std::cerr << "shardscope-cli: ... and " << diagnostics.size() - shown << " more (" << kinds << ")\n";
}

std::vector<shardscope::Diagnostic> joinedDiagnostics(std::vector<shardscope::Diagnostic> first,
                                                      const std::vector<shardscope::Diagnostic>& more) {
    for (const auto& d : more)
        if (std::none_of(first.begin(), first.end(), [&](const shardscope::Diagnostic& held) {
                return held.code == d.code && held.message == d.message;
            }))
            first.push_back(d);
    return first;
}

nlohmann::json warningsJson(const std::vector<shardscope::Diagnostic>& diagnostics) {
    return nlohmann::json::parse(shardscope::report::warningsJson(diagnostics));
}

std::string jsonText(const nlohmann::json& value) {
    // Names, labels and paths need not be UTF-8: such bytes become U+FFFD rather than an exception.
    return value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

void prepareOutput() {
    // A reader that goes away (`| head`) makes a write fail with EPIPE, which finishOutput() takes as the
    // quiet end it is, instead of killing the process before a search has saved its workspace.
    std::signal(SIGPIPE, SIG_IGN);
}

int finishOutput(int status) {
    // A write that failed earlier left its errno, unless something since set another: kept for the message
    // when the last flush, with nothing left to write, cannot say.
    const int earlier = errno;
    errno = 0;
    std::cout.flush();
    bool failed = std::cout.bad();
    if (std::fflush(stdout) != 0)
        failed = true;
    int error = errno;
    if (error == 0 &&
        (earlier == ENOSPC || earlier == EDQUOT || earlier == EFBIG || earlier == EIO || earlier == EPIPE))
        error = earlier;
    if (std::ferror(stdout))
        failed = true;
    if (!failed)
        return status;
    if (readerHasGone(error))
        return status;
    std::cerr << "shardscope-cli: error: cannot write the output"
              << (error != 0 ? std::string(": ") + std::strerror(error)
                             : std::string(" (standard output failed)"))
              << "\n";
    return status == 0 ? 1 : status;
}

std::optional<std::string> replaceFile(const std::string& path, std::string_view content) {
    auto failure = [&](int error, bool kept) {
        return "cannot write '" + path + "': " + std::strerror(error) +
               (kept ? " ('" + path + "' is left as it was)" : std::string());
    };
    struct stat status {};
    const bool exists = ::stat(path.c_str(), &status) == 0;
    if (exists && !S_ISREG(status.st_mode)) {
        // A device, a FIFO or /dev/stdout: written in place, there is nothing to keep.
        const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0)
            return failure(errno, false);
        const bool written = writeAll(fd, content);
        const int error = errno;
        if (::close(fd) != 0 && written)
            return failure(errno, false);
        if (!written)
            return failure(error, false);
        return std::nullopt;
    }
    // A regular file (or none yet): written beside it and renamed over it, so that a failure leaves what was
    // there.
    std::error_code ignored;
    const std::string target = exists ? std::filesystem::canonical(path, ignored).string() : path;
    std::string partial;
    const int fd = newFileBeside(target.empty() ? path : target, partial);
    if (fd < 0)
        return failure(errno, exists);
    bool ok =
        (!exists || ::fchmod(fd, status.st_mode & 07777) == 0) && writeAll(fd, content) && ::fsync(fd) == 0;
    int error = errno;
    if (::close(fd) != 0 && ok)
        ok = false, error = errno;
    if (ok && ::rename(partial.c_str(), (target.empty() ? path : target).c_str()) != 0)
        ok = false, error = errno;
    if (!ok) {
        (void)::unlink(partial.c_str());
        return failure(error, exists);
    }
    return std::nullopt;
}

int writeOutput(const std::string& output, std::string_view content) {
    if (output.empty() || output == "-") {
        std::cout << content;
        return 0;
    }
    if (auto failed = replaceFile(output, content)) {
        std::cerr << "shardscope-cli: error: " << *failed << "\n";
        return 1;
    }
    return 0;
}

}  // namespace cli
