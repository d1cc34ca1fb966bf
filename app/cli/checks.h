// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Checks of the CLI's numeric options, for CLI11's ->check(): a finite number in a range. CLI::Range lets NaN
// through (every comparison with it is false) and says nothing of what the number means.
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <string>

namespace cli {

// A finite number from `low` to `high`, each end included unless `lowOpen`/`highOpen`; `meaning` says what it
// is ("a fraction in [0, 1)"). The message CLI11 prints: "--reserve: 1.5 is out of range: a fraction in [0,
// 1)".
inline CLI::Validator finiteIn(double low, double high, const std::string& meaning, bool lowOpen = false,
                               bool highOpen = false) {
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            double value = 0;
            if (!CLI::detail::lexical_cast(text, value))
                return "'" + text + "' is not a number: expected " + meaning;
            const bool below = lowOpen ? !(value > low) : !(value >= low);
            const bool above = highOpen ? !(value < high) : !(value <= high);
            if (!std::isfinite(value) || below || above)
                return text + " is out of range: expected " + meaning;
            return {};
        },
        meaning);
}

}  // namespace cli
