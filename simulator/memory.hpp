// Process-level resource figures reported by runs and benchmarks.
#pragma once

#include <cstdint>

namespace clustersim {

// Peak resident set size of this process so far, in bytes (getrusage ru_maxrss).
std::uint64_t peak_memory_bytes();

// CPU time this process has used so far (user + system, all threads), in seconds
// (clock_gettime CLOCK_PROCESS_CPUTIME_ID). On a shared machine the wall time of a run also
// counts the time it waited for a core; this does not.
double process_cpu_seconds();

// The core's second-level cache in bytes: sysconf's _SC_LEVEL2_CACHE_SIZE (per core on the
// machines measured so far), or `fallback` where the C library reports none.
std::uint64_t core_cache_bytes(std::uint64_t fallback);

}  // namespace clustersim
