// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Errors and warnings as values. The engine never throws across its API and never prints: every fallible
// operation returns a Result<T> carrying either a value or the diagnostics that explain why there is none.
#pragma once

#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace shardscope {

enum class Severity { Note, Warning, Error };

// Where something came from: a file position and/or the source's own name for it (an MLIR name location,
// a module path such as "layers.3.mlp.w1", an ONNX node name). Any part may be empty or zero.
struct SourceLocation {
    std::string file;
    int line = 0;    // 1-based; 0 = unknown
    int column = 0;  // 1-based; 0 = unknown
    std::string name;

    bool empty() const { return file.empty() && line == 0 && name.empty(); }
    // "file:line:column (name)", leaving out what is unknown.
    std::string toString() const;
    friend bool operator==(const SourceLocation&, const SourceLocation&) = default;
};

struct Diagnostic {
    Severity severity = Severity::Error;
    std::string code;  // stable machine-readable identifier, e.g. "ir.operand-undefined"
    SourceLocation location;
    std::string message;

    // One line: "file:line:column: error: message [code]".
    std::string toString() const;
    friend bool operator==(const Diagnostic&, const Diagnostic&) = default;
};

Diagnostic makeError(std::string code, std::string message, SourceLocation location = {});
Diagnostic makeWarning(std::string code, std::string message, SourceLocation location = {});

// A value, or the errors that prevented it; warnings may accompany either.
// Invariant: hasValue() == !hasErrors().
template <typename T>
class Result {
public:
    Result(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
    Result(Diagnostic error) { diagnostics_.push_back(std::move(error)); }  // NOLINT
    static Result failure(
        std::vector<Diagnostic> diagnostics) {  // NOLINT(performance-unnecessary-value-param): moved
        Result r;
        r.diagnostics_ = std::move(diagnostics);
        return r;
    }

    bool ok() const { return value_.has_value(); }
    explicit operator bool() const { return ok(); }

    // Assumes ok().
    T& value() & { return *value_; }
    const T& value() const& { return *value_; }
    T&& value() && { return std::move(*value_); }
    T* operator->() { return &*value_; }
    const T* operator->() const { return &*value_; }
    T& operator*() & { return *value_; }
    const T& operator*() const& { return *value_; }

    const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
    void addDiagnostic(Diagnostic d) { diagnostics_.push_back(std::move(d)); }
    void addDiagnostics(const std::vector<Diagnostic>& ds) {
        diagnostics_.insert(diagnostics_.end(), ds.begin(), ds.end());
    }
    // The first error's one-line text, or "" when ok().
    std::string errorMessage() const {
        for (const auto& d : diagnostics_)
            if (d.severity == Severity::Error)
                return d.toString();
        return {};
    }

private:
    Result() = default;
    std::optional<T> value_;
    std::vector<Diagnostic> diagnostics_;
};

// For operations that produce nothing but may fail.
struct Success {};
using Status = Result<Success>;

// `body()` (a Result<T>) at the engine's boundary: std::bad_alloc and std::length_error, which an absurd
// input can still cause after every size has been checked, become the error "out of memory while WHAT"
// (engine.out-of-memory) instead of crossing the API.
template <typename T, typename F>
Result<T> outOfMemoryAsError(const std::string& what, F&& body) {
    try {
        return body();
    } catch (const std::bad_alloc&) {
    } catch (const std::length_error&) {
    }
    return makeError("engine.out-of-memory", "out of memory while " + what);
}

}  // namespace shardscope
