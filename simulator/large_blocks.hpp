// Large blocks of `operator new` on transparent huge pages (issue 25).
//
// At a million ranks the simulation's tables (ranks, vertices, routes, pools) take gigabytes
// and an event touches a dozen of them at places no prefetcher predicts: with 4 KiB pages
// nearly every such load is also a TLB miss, whose page walk misses the cache too. The kernel
// backs a region with 2 MiB pages only where it is asked to (`madvise`, Debian's default THP
// mode), and glibc's malloc does not ask. So this program replaces the global `operator new`
// and `operator delete` (large_blocks.cpp): a block of at least kLargeBlockBytes gets its own
// anonymous mapping that starts on a 2 MiB boundary and is advised MADV_HUGEPAGE before its
// first touch; every smaller block is malloc's, as before. Only the speed changes, never a
// value. The sanitizer and fuzzing builds keep their runtimes' own allocator, and
// CLUSTERSIM_HUGE_PAGES=off in the environment turns the large path off (to measure it).
#pragma once

#include <cstddef>

namespace clustersim {

inline constexpr std::size_t kLargeBlockBytes = std::size_t{2} << 20;

// A zero-filled anonymous mapping of `bytes` (rounded up to 4 KiB) that starts on a 2 MiB
// boundary and is advised MADV_HUGEPAGE before anything touches it; nullptr for 0 bytes or if
// the kernel refuses. unmap_huge_pages(p, bytes) gives it back (the same `bytes`).
void* map_huge_pages(std::size_t bytes);
void unmap_huge_pages(void* p, std::size_t bytes) noexcept;

// Whether large blocks take the mapped, huge-page path in this process: false in sanitizer
// builds and with CLUSTERSIM_HUGE_PAGES=off.
bool large_blocks_on_huge_pages();

// The number of large blocks now allocated on that path (for tests and diagnostics).
std::size_t large_blocks_live();

}  // namespace clustersim
