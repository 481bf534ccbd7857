// `clustersim trace merge`: the tracer's per-rank files (traces/rank_file.hpp) consolidated
// into one native trace (PSINS's mpi2psins step): the compute burst between two calls
// becomes a timed `compute` record (minus the time the tracer spent writing its buffer),
// each call its record with its recorded start and end, calls the simulator does not model
// `unmodeled` records naming the call, and a Waitall over requests whose handles are not
// one contiguous range a run of `wait` records (the last carries the call's end).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "traces/trace.hpp"

namespace clustersim::traces {

struct MergeOptions {
    std::string name;                // trace name (default: the program name in the files)
    std::uint64_t traced_speed = 0;  // instructions/s of a traced core (0: unknown)
};

// Failed polls of one MPI function (MPI_Test*, MPI_Iprobe, MPI_Improbe that found nothing):
// counted by the tracer, their time left in the compute bursts.
struct PollCount {
    std::uint64_t calls = 0;
    std::uint64_t ns = 0;  // summed over ranks
};

struct MergeReport {
    std::uint64_t run_id = 0;
    std::uint32_t ranks = 0;
    std::string program;
    std::vector<std::string> files;                  // by rank
    std::vector<std::string> hosts;                  // by rank
    std::uint64_t raw_records = 0;                   // records in the rank files (flushes included)
    std::uint64_t records = 0;                       // records of the merged trace
    std::uint64_t raw_bytes = 0;                     // size of the rank files
    std::uint64_t flushes = 0;                       // buffer writes by the tracer
    std::uint64_t flush_ns = 0;                      // their time, summed over ranks
    std::uint64_t waitalls_split = 0;                // Waitalls written as several waits
    std::map<std::string, std::uint64_t> calls;      // every recorded call, by MPI name
    std::map<std::string, std::uint64_t> unmodeled;  // the unmodeled ones, by MPI name
    std::uint64_t unmodeled_ns = 0;                  // their time, summed over ranks
    std::map<std::string, PollCount> failed_polls;   // folded, not recorded; by MPI name
    std::map<std::string, PollCount> local_queries;  // folded likewise (rf::is_local_query)
    std::uint64_t cancelled_completions = 0;         // waits that completed a cancelled request
};

// `inputs`: rank files, and folders whose `*.csrank` files are all taken. Every rank of the
// run must be there exactly once, all from one run, each complete. Throws InputError naming
// the file: a missing file or folder, a folder without rank files, not a rank file (magic),
// another version or byte order, a truncated header or record, a file without the trailer
// MPI_Finalize writes, files from two runs or of different sizes, a rank twice or missing,
// an unknown record kind or call.
Trace merge_rank_files(const std::vector<std::string>& inputs, const MergeOptions& options,
                       MergeReport& report);

// The same merge written straight to a native binary trace at `output`, in memory bounded
// whatever the trace's length: each rank file is read through a 1 MiB buffer, one rank at a
// time, and each rank's encoded records go to a scratch file (`output`.part, removed
// afterwards) in 1 MiB pieces; what stays in memory is the string table, the count lists and
// per-rank counters. Same checks and errors as merge_rank_files.
void merge_rank_files_to_binary(const std::vector<std::string>& inputs, const MergeOptions& options,
                                const std::string& output, MergeReport& report);

}  // namespace clustersim::traces
