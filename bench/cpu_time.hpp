// The process's CPU time (user + system), for benchmarks on a shared machine: wall time
// also counts the time the process waited for a CPU, this does not.
#pragma once

#include <ctime>

namespace clustersim::bench {

inline double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace clustersim::bench
