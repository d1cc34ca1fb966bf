// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The bench's global operator new and delete: malloc and free, counting the allocations (bench.h,
// allocationCount) so that `shardscope-bench allocations` can tell how many a search iteration makes.
#include <atomic>
#include <cstdlib>
#include <new>

#include "bench.h"

namespace {
std::atomic<std::uint64_t> allocations{0};
}

std::uint64_t allocationCount() {
    return allocations.load(std::memory_order_relaxed);
}

void* operator new(std::size_t size) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(size == 0 ? 1 : size))
        return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}
