// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// A program linking the shardscope_allocation_count target gets a global operator new and delete that call
// malloc and free and count the allocations (the bench's allocation table, tests/tst_allocations).
#pragma once

#include <cstdint>

// How many times operator new has been called in this process so far.
std::uint64_t allocationCount();
