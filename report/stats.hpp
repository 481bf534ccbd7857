// Statistics of a run (PSINS's statistics module): where each rank spent its time, what each
// kind of operation cost, and histograms of message sizes and achieved point-to-point
// bandwidth. Written as CSV files (one per table) and as a readable summary for stdout.
//
// Time categories of a rank (they add up to its busy time; `idle` is the rest of `total`):
//   compute  Compute bursts
//   comm     MPI point-to-point, Wait/Waitall, collectives and communicator creation, minus wait
//   wait     the part of any operation spent waiting for another rank (effective_waits)
//   io       File_* operations, minus wait
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "report/run_log.hpp"
#include "simulator/time.hpp"

namespace clustersim::traces {

// The waiting part of every operation of `log.ops` (same order). Point-to-point and the
// rest: OpEvent::wait. Blocking collectives and communicator creation (the runtime reports
// no wait): all members of one call share (comm, seq); a member waits for the last one to
// enter: wait_i = min(latest_entry - start_i, end_i - start_i) (at least OpEvent::wait).
// A group with two events of one rank (a producer that does not number its calls) falls
// back to OpEvent::wait. Nonblocking collectives never wait.
std::vector<Time> effective_waits(const RunLog& log);

// Whether an operation's effective wait depends on the other members of its call (blocking
// collectives and communicator creation: grouped by (comm, seq, kind)).
bool is_grouped_kind(int kind);

// Operation classes.
bool is_compute_kind(int kind);     // Compute
bool is_io_kind(int kind);          // File_*
bool is_p2p_kind(int kind);         // Send Recv Isend Irecv Sendrecv (carry message bytes)
bool is_collective_kind(int kind);  // blocking or nonblocking collectives
bool is_blocking_collective_kind(int kind);

struct RankStats {
    Time compute, comm, wait, io;
    Time total;  // when the rank's last operation ended (its finish time)
    Time idle;   // total - (compute + comm + wait + io): gaps between operations
    std::uint64_t ops = 0;
    std::uint64_t bytes_p2p = 0;         // point-to-point payload, sent and received
    std::uint64_t bytes_collective = 0;  // bytes passed to collectives
    std::uint64_t bytes_written = 0;     // File_write*
    std::uint64_t bytes_read = 0;        // File_read*
};

struct KindStats {
    std::uint64_t count = 0;
    Time time;      // sum of durations
    Time wait;      // sum of effective waits
    Time min, max;  // duration of one call (0 when count == 0)
    std::uint64_t bytes = 0;
    Time mean() const {
        return count == 0 ? Time::zero() : Time::ps(time.ps() / static_cast<std::int64_t>(count));
    }
};

// Power-of-two bins: `lower` <= value < `upper` (the "0 B" bin: lower = upper = 0).
struct HistogramBin {
    std::string label;  // "0 B", "1 B–2 B", "1 MiB–2 MiB", "1 GiB/s–2 GiB/s"
    double lower = 0, upper = 0;
    std::uint64_t count = 0;
};
struct Histogram {
    std::vector<HistogramBin> bins;  // from the lowest to the highest non-empty bin
    std::uint64_t total = 0;
    // The bin holding `value` (nullptr: none).
    const HistogramBin* find(double value) const;
};

struct Stats {
    std::vector<RankStats> ranks;  // by world rank
    std::vector<KindStats> kinds;  // by statistics kind (mpi::kStatKinds entries)
    // Payload bytes per point-to-point (Send Recv Isend Irecv Sendrecv) and collective call.
    Histogram sizes;
    // bytes / (duration - wait) per Send, Recv and Sendrecv with bytes and active time > 0.
    Histogram bandwidth;
    Time finish;                         // latest rank finish (max with RunLog::simulated)
    Time compute, comm, wait, io, idle;  // sums over ranks
    std::uint64_t ops = 0;
};

Stats compute_stats(const RunLog& log);

// The same statistics built one operation at a time (any order), for callers that do not
// keep every operation (`run --out`): add(event, its effective wait) for each, then finish.
class StatsAccumulator {
  public:
    void add(const mpi::OpEvent& e, Time wait);
    // `log` gives the ranks and the run's end (its ops are not read).
    Stats finish(const RunLog& log);

  private:
    Stats st_;
    std::vector<std::uint64_t> sizes_ = std::vector<std::uint64_t>(65, 0);
    std::vector<std::uint64_t> rates_ = std::vector<std::uint64_t>(65, 0);
};

// dir/ranks.csv, dir/operations.csv, dir/histogram_sizes.csv, dir/histogram_bandwidth.csv.
// `dir` must exist. Times in seconds, sizes in bytes. A file that cannot be written:
// InputError(path, 0, "cannot write ...").
void write_stats_csv(const Stats& stats, const RunLog& log, const std::string& dir);

// A summary for stdout: totals, per-operation and per-rank tables (the first and last
// max_rank_rows / 2 ranks if there are more), and the two histograms as text bars.
std::string format_stats(const Stats& stats, const RunLog& log, std::size_t max_rank_rows = 16);

}  // namespace clustersim::traces
