// Process-level resource figures reported by runs and benchmarks.
#pragma once

#include <cstdint>

namespace clustersim {

// Peak resident set size of this process so far, in bytes (getrusage ru_maxrss).
std::uint64_t peak_memory_bytes();

}  // namespace clustersim
