// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The global operator new and delete of the programs that link this (allocation_count.h): malloc and free,
// counting the allocations.
#include <atomic>
#include <cstdlib>
#include <new>

#include "allocation_count.h"

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
