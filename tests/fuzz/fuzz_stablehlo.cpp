// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// libFuzzer target: the StableHLO text parser (import/stablehlo.h). What it does with an input:
// fuzz_inputs.h.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    shardscope::fuzz::stableHloText(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
