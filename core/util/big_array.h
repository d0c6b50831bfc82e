#pragma once
// An allocator for arrays read at random at scale (the engine's per-node state and pending
// events: tens of MB at a million nodes, one line per node and event). Arrays of 4 MB or
// more are placed on 2 MB pages (transparent huge pages by madvise, Linux), so that a random
// read costs a cache miss and not also a page walk: 4 KB pages cover 8 MB with the whole
// TLB. Smaller arrays are ordinary allocations. Where the kernel gives no huge pages the
// memory is the same, on small pages.

#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace fog {

namespace bigarray {
constexpr std::size_t kPage = std::size_t(2) << 20;   ///< a huge page
constexpr std::size_t kMinBytes = std::size_t(4) << 20; ///< smaller: an ordinary allocation

inline void* allocate(std::size_t bytes) {
    if (bytes < kMinBytes) return ::operator new(bytes);
    const std::size_t rounded = (bytes + kPage - 1) / kPage * kPage;
    void* p = std::aligned_alloc(kPage, rounded);
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    ::madvise(p, rounded, MADV_HUGEPAGE); // advice only: small pages if refused
#endif
    return p;
}

inline void release(void* p, std::size_t bytes) {
    if (bytes < kMinBytes)
        ::operator delete(p);
    else
        std::free(p);
}
} // namespace bigarray

/// Asks for the cache line holding `p` to be loaded: a hint, with no effect on any result.
/// Not __builtin_prefetch alone: GCC takes a function doing nothing but prefetches for one
/// without effect and drops the calls to it (seen with GCC 12 on NodeRuntime::prefetch).
inline void prefetchLine(const void* p) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    asm volatile("prefetcht0 (%0)" : : "r"(p));
#elif defined(__GNUC__)
    __builtin_prefetch(p);
    asm volatile("" : : "r"(p) : "memory");
#else
    (void)p;
#endif
}

/// std::allocator's interface; which allocation an array got follows from its size alone.
template <class T>
struct BigArrayAllocator {
    using value_type = T;
    BigArrayAllocator() noexcept = default;
    template <class U>
    BigArrayAllocator(const BigArrayAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) { return static_cast<T*>(bigarray::allocate(n * sizeof(T))); }
    void deallocate(T* p, std::size_t n) noexcept { bigarray::release(p, n * sizeof(T)); }
    template <class U>
    bool operator==(const BigArrayAllocator<U>&) const noexcept { return true; }
    template <class U>
    bool operator!=(const BigArrayAllocator<U>&) const noexcept { return false; }
};

} // namespace fog
