// What a simulation leaves behind for outputs: every finished operation of every rank (from
// mpi::OpObserver), where the ranks ran, and optional hardware activity. Timelines (Chrome
// trace-event JSON), statistics (CSV and summary) and comparisons are built from it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mpi/runtime.hpp"
#include "simulator/time.hpp"

namespace clustersim::traces {

struct RankInfo {
    std::string app;            // the application ("partdiff-par", "trace0"), one per --app
    std::int32_t app_rank = 0;  // rank within its application
    std::string node;           // node name it ran on
};

// A busy interval of a piece of hardware (a disk serving a request, a link carrying data).
struct HardwareSpan {
    std::string track;  // "disk n3", "link n0.nic->sw"
    Time start, end;
    std::string what;  // "write 1 MiB", "64 KiB"
};

struct RunLog {
    std::string title;                   // "partdiff-par on pvs-cluster (simulated)"
    std::vector<RankInfo> ranks;         // by world rank
    std::vector<mpi::OpEvent> ops;       // in completion order
    std::vector<HardwareSpan> hardware;  // only with --timeline-detail hardware
    Time simulated;                      // when the last rank finished
};

}  // namespace clustersim::traces
