// The operations of a recorded run kept on disk instead of in memory (`run --out` on traces
// of tens of millions of operations): each finished operation becomes a 64-byte record of a
// scratch file, in sorted runs of kRunOps records; reading merges the runs back in timeline
// order. Memory: one run being filled (8 MiB), the collective calls still open, and at read
// time a 128 KiB window per run.
//
// Effective waits (report/stats.hpp effective_waits) are settled before a record is written:
// an operation whose wait depends on the other members of its call (blocking collectives,
// communicator creation: grouped by (comm, seq, kind)) is held until all OpEvent::comm_size
// members have finished (or the run ends), then all of them get
// max(clamped wait, min(latest entry - start, duration)) as effective_waits does. The
// statistics are accumulated as the records are settled.
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "mpi/runtime.hpp"
#include "report/stats.hpp"

namespace clustersim::traces {

class OpSpill {
  public:
    static constexpr std::size_t kRunOps = std::size_t{1} << 17;  // 8 MiB of records

    // `path`: the scratch file (created; removed by the destructor). InputError(path, 0, ...)
    // if it cannot be written.
    explicit OpSpill(std::string path);
    ~OpSpill();
    OpSpill(const OpSpill&) = delete;
    OpSpill& operator=(const OpSpill&) = delete;

    void add(const mpi::OpEvent& e);  // in completion order
    // Settles the calls still open and writes the last run; then read with for_each_sorted.
    void finish();

    std::uint64_t ops() const { return ops_; }
    // 1 + the highest rank met (0: none).
    std::size_t ranks() const { return ranks_; }
    StatsAccumulator& stats() { return stats_; }

    // After finish(): every operation in turn, sorted by (rank, start, end, completion
    // order), with its effective wait; false after the last. rewind() starts over.
    bool next(mpi::OpEvent& e, Time& effective_wait);
    void rewind();

    struct Packed {  // one operation on disk
        std::int64_t start = 0, end = 0, wait = 0;
        std::uint64_t bytes = 0, index = 0;  // index: completion order
        std::int32_t rank = 0, kind = 0, peer = -1;
        std::uint32_t comm = 0, seq = 0, algorithm = 0;  // algorithm: 1 + algorithms_ index
    };

  private:
    struct Group {
        std::vector<Packed> members;
        Time latest;
        bool numbered = true;
    };
    void settle(Packed p);  // wait final: to the run and the statistics
    void write_run();
    struct Cursor {                          // reading one run back
        std::uint64_t offset = 0, left = 0;  // in records
        std::vector<Packed> window;
        std::size_t at = 0;
    };
    bool fill(Cursor& c);
    mpi::OpEvent event_of(const Packed& p) const;

    std::string path_;
    std::ofstream out_;
    std::vector<Packed> run_;
    std::vector<std::uint64_t> run_sizes_;  // records per run written
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::int32_t>, Group> open_;
    std::vector<const char*> algorithms_;
    std::uint64_t ops_ = 0;
    std::size_t ranks_ = 0;
    StatsAccumulator stats_;
    bool finished_ = false;
    std::ifstream in_;
    std::vector<Cursor> cursors_;
    std::vector<std::size_t> heap_;  // cursors with records left, a min-heap on their head
};

}  // namespace clustersim::traces
