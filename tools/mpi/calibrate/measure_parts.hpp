// MEASURE's parts in files of their own (internal to clustersim-calibrate): this rank and its
// host (measure_host.cpp: the rank's CPU and socket, the placement classes' pairs, the peer
// set-up, the CPU kernel, the local copy rates, the dirty-page limits) and the file I/O probes
// (measure_io.cpp); measure.cpp runs the passes and fills a `Measured`.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/mpi/calibrate/calibrate.hpp"

namespace clustersim::calibrate {

// ---- this rank and its host (measure_host.cpp) ----------------------------------------------

RankInfo probe_self();
// The pair of ranks measured for each placement class (or why there is none).
std::array<Pair, kClasses> choose_pairs(const std::vector<RankInfo>& info,
                                        const std::vector<Host>& hosts);
// A Stats as kStatsDoubles doubles (for MPI messages) and back.
inline constexpr int kStatsDoubles = 8;
void pack(const Stats& s, double* b);
Stats unpack(const double* b);
// Rank `from`'s summary of `s`, on rank 0.
Stats to_root(int rank, int from, const Samples& s);
// The lazy peer set-up (PeerSetup): zero-byte round trips between ranks 0 and 1, timed on 0.
std::vector<double> setup_round_trips(int rank);
// MPI_Barrier for ranks that may wait long: polls a nonblocking barrier and sleeps between.
void quiet_barrier();
// Seconds per timed run of the CPU kernel on this rank.
std::vector<double> cpu_runs(int rank, const Settings& s);
LocalRates local_rates();
DirtyLimits dirty_limits();
std::string now_utc();

// ---- file I/O (measure_io.cpp) ---------------------------------------------------------------

// One pass of the I/O test, on one rank: three files written into --io-dir with MPI-IO
// (MPI_COMM_SELF), each created fresh and deleted afterwards (deleting a file drops its
// dirty pages, so nothing is written back behind the next measurement):
//   cached   io_size bytes in io_transfer-byte MPI_File_write_at calls, no sync: the writes
//            land in the page cache (open, writes and close timed apart);
//   small    one io_transfer-byte write, then MPI_File_sync (both timed): the fixed cost of
//            a sync plus io_transfer bytes of disk; kSmallSyncs files (a sync's fixed cost,
//            a journal commit, varies by milliseconds; they take little time);
//   synced   io_size bytes as in `cached`, then MPI_File_sync (writes and sync timed apart).
// Seconds; `error` is set (and the rest meaningless) when an MPI-IO call failed.
struct IoPass {
    double open = 0, write_cached = 0, close = 0, write_synced = 0, sync = 0;
    double small_write = 0;  // per call of kSmallWrites kSmallWriteBytes-byte writes, no sync
    std::vector<double> write_small, sync_small;  // kSmallSyncs of each
    std::string error;
};

IoPass io_pass(const Settings& s, const std::vector<char>& buffer);
// This rank's scratch file in --io-dir.
std::string io_file(const Settings& s);
// One file written: `bytes` in `transfer`-byte writes (and synced), each step timed; the error
// text of a failed MPI-IO call, else empty.
std::string io_write_file(const std::string& path, std::uint64_t bytes, std::uint64_t transfer,
                          bool sync, const std::vector<char>& buffer, double& open, double& write,
                          double& synced, double& close);

// The collective open and close (issue 23): every rank opens a fresh file on MPI_COMM_WORLD
// right after a barrier and closes it after another (rank 0 times both); then again with
// every rank but 0 entering the close kLateClose late: if rank 0's close takes at least half
// of that, the library's close synchronizes (OMPIO's does, ROMIO's does not). Seconds;
// `error` set when an MPI-IO call failed (on any rank: the result is agreed).
struct IoWorld {
    std::vector<double> open, close, late_close, sync_apart;
    std::string error;
};

IoWorld io_world(const Settings& s, int rank);
// The file system type of `dir` (statfs), as a name where it is a common one.
std::string fs_type(const std::string& dir);

}  // namespace clustersim::calibrate
