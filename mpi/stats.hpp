// The runtime's statistics: per-rank results (RankResult), operation counts and times by
// kind (OpStats, OpStatsTable), and the per-operation events observers are told about
// (OpEvent, OpObserver). Filled by Runtime (mpi/runtime.hpp), read by run/ and traces/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/program.hpp"
#include "simulator/time.hpp"

namespace clustersim::mpi {

// Statistics kinds: the point-to-point OpKinds, then each collective blocking, then each
// collective nonblocking.
inline constexpr int kStatKinds = kOpKinds + 2 * kCollOps;
std::string stat_name(int kind);  // "Send", "Bcast", "Ibcast", ...
// The statistics kind of an operation (`coll` and `nonblocking` matter for Collective only).
int stat_kind(OpKind kind, CollOp coll, bool nonblocking);

struct OpStats {
    std::uint64_t count = 0;
    Time time;  // time ranks spent blocked in the operation
    std::uint64_t bytes =
        0;  // payload bytes: sent and received (point-to-point), passed (collectives)
};

// A rank's statistics by kind, holding only the kinds the rank used: a rank uses a few of
// the kStatKinds, and a dense array of them cost 1.4 KiB per rank (docs/limits.md). Reading a
// kind the rank never used gives zeros.
class OpStatsTable {
  public:
    OpStats& operator[](int kind) {
        for (auto& e : entries_)
            if (e.first == kind) return e.second;
        return entries_.emplace_back(kind, OpStats{}).second;
    }
    const OpStats& operator[](int kind) const {
        for (const auto& e : entries_)
            if (e.first == kind) return e.second;
        static const OpStats none{};
        return none;
    }

  private:
    std::vector<std::pair<int, OpStats>> entries_;
};

struct RankResult {
    Time finish;
    std::uint64_t bytes_sent = 0;        // every payload byte the rank sent, collectives' included
    std::uint64_t bytes_received = 0;    // every payload byte the rank received
    std::uint64_t io_bytes_written = 0;  // file data written through MPI-IO
    std::uint64_t io_bytes_read = 0;     // file data read through MPI-IO
    Time jitter;                         // OS jitter met by the rank's CPU work (models/cpu.hpp)
    OpStatsTable ops;
};

// One finished operation of a rank (compute bursts included), for timelines and statistics.
struct OpEvent {
    std::int32_t rank = 0;    // world rank
    int kind = 0;             // statistics kind: stat_name(kind) ("Send", "Bcast", ...)
    Time start, end;          // entered and returned
    Time wait;                // part of [start, end) spent waiting for another rank: a
                              // receive's (or rendezvous send's) time before the peer posted
                              // the matching call; 0 where the runtime cannot tell (collectives:
                              // see `comm`/`seq`)
    std::uint64_t bytes = 0;  // payload (or file data) moved
    std::int32_t peer = -1;   // point-to-point: world rank of the peer (-1: none/any)
    std::uint32_t comm = 0;   // communicator id (collectives, communicator creation)
    std::uint32_t seq = 0;    // the call's number among the communicator's collectives
    std::uint32_t comm_size = 0;  // members of `comm` (with `comm`/`seq`; 0: not told)
    // Collectives run by an algorithm: "bcast/binomial" (interned: valid for the program's
    // life); null otherwise (timed as a whole by an analytic model).
    const char* algorithm = nullptr;
};

// Told about every operation when it finishes (set with Runtime::set_observer).
class OpObserver {
  public:
    virtual ~OpObserver() = default;
    virtual void op_done(const OpEvent& event) = 0;
};

// Operation statistics while running, by kind and then by rank: a kind's column of p
// entries (24 B each) is made when some rank first uses the kind. Counting an operation
// touches one entry, and ranks advanced in turn share its cache lines; a rank's own
// table (RankResult::ops, a vector scanned by kind) cost a cache miss or two at every
// operation of a 1,024-rank replay (issue 25). Runtime::results() flushes them into the
// ranks' results.
class OpStatColumns {
  public:
    explicit OpStatColumns(std::size_t ranks) : columns_(kStatKinds), ranks_(ranks) {}
    OpStats& entry(int kind, std::int32_t rank) {
        std::vector<OpStats>& column = columns_[static_cast<std::size_t>(kind)];
        if (column.empty()) [[unlikely]]
            column.resize(ranks_);
        return column[static_cast<std::size_t>(rank)];
    }
    // Adds what was counted to each rank's table (`results[rank].ops`) and starts again from
    // zero.
    void flush(std::vector<RankResult>& results);

  private:
    std::vector<std::vector<OpStats>> columns_;
    std::size_t ranks_;
};

// A string that lives as long as the program (one copy per distinct value).
const char* intern(const std::string& s);

}  // namespace clustersim::mpi
