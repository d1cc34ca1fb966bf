// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/diagnostic.h"

namespace shardscope {

std::string SourceLocation::toString() const {
    std::string out = file;
    if (line > 0) {
        out += (out.empty() ? "line " : ":") + std::to_string(line);
        if (column > 0)
            out += ":" + std::to_string(column);
    }
    if (!name.empty()) {
        if (!out.empty())
            out += " ";
        out += "(" + name + ")";
    }
    return out;
}

std::string Diagnostic::toString() const {
    std::string out;
    std::string where = location.toString();
    if (!where.empty())
        out += where + ": ";
    switch (severity) {
        case Severity::Note:
            out += "note: ";
            break;
        case Severity::Warning:
            out += "warning: ";
            break;
        case Severity::Error:
            out += "error: ";
            break;
    }
    out += message;
    if (!code.empty())
        out += " [" + code + "]";
    return out;
}

Diagnostic makeError(std::string code, std::string message, SourceLocation location) {
    return Diagnostic{Severity::Error, std::move(code), std::move(location), std::move(message)};
}

Diagnostic makeWarning(std::string code, std::string message, SourceLocation location) {
    return Diagnostic{Severity::Warning, std::move(code), std::move(location), std::move(message)};
}

}  // namespace shardscope
