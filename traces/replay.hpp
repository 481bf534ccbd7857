// Replaying traces through the full simulator: a trace becomes an mpi::Program whose ranks
// hand the runtime their records one at a time (decoded on the fly), with compute bursts
// projected from the traced machine to the target one (PSINS): a burst of t seconds on a
// core of speed S_traced is t * S_traced instructions, which the target core runs at its own
// speed. Several programs can share one run, each with its own ranks and MPI_COMM_WORLD.
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/program.hpp"
#include "simulator/huge_buffer.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces {

class TraceProgram final : public mpi::Program {
  public:
    // `core_speed[r]`: instructions/s of the core rank r runs on (target machine). Compute
    // bursts given as times are projected with `traced_speed` (instructions/s of a traced
    // core; 0: the trace's own, and if that is unknown too, each rank's target core speed,
    // which keeps the recorded compute times).
    TraceProgram(const Trace& trace, std::vector<std::uint64_t> core_speed,
                 std::uint64_t traced_speed = 0);
    bool next(std::int32_t rank, mpi::Op& op) override;
    // Records handed out so far, over all ranks (for progress).
    std::uint64_t consumed() const { return consumed_; }
    std::uint64_t total() const { return trace_.total_events(); }
    mpi::ProgramProgress progress() const override { return {consumed_, total()}; }
    // The record most recently handed to `rank` (for deadlock reports and comparisons;
    // decoded again on demand, valid until the next call).
    const Record& current(std::int32_t rank) const;
    // The number (from 1) of that record among the rank's records, 0 if none was handed out
    // (for errors naming the record; decodes the rank's records up to it).
    std::uint64_t record_number(std::int32_t rank) const;
    // Where that record is, cheaply (its byte position + 1; 0 if none was handed out), for an
    // error found later about it (ranks that disagree on a collective); record_number_at
    // turns it into the record's number.
    std::uint64_t mark(std::int32_t rank) const override;
    std::uint64_t record_number_at(std::int32_t rank, std::uint64_t mark) const;
    // Instructions a compute record amounts to on `rank`.
    std::uint64_t instructions(std::int32_t rank, const Record& r) const;

  private:
    const Trace& trace_;
    std::vector<std::uint64_t> core_speed_;
    std::uint64_t traced_speed_;
    // All ranks' bytes back to back on huge pages, when the trace is large enough
    // (kArenaBytes): a replay reads the ranks' streams in turn, and a separate 4 KiB page per
    // rank is a TLB miss at nearly every turn. Smaller traces are read where they are.
    static constexpr std::uint64_t kArenaBytes = HugeBuffer::kPage;
    HugeBuffer arena_;
    std::vector<Trace::Cursor> cursors_;
    // Per rank, where its cursor was before the record last handed out: next() decodes
    // straight into the mpi::Op, and current() decodes that record again when asked, which
    // keeps a Record per event off the replay path.
    struct Mark {
        std::uint64_t position = 0;
        std::int64_t time_base = 0;
    };
    std::vector<Mark> previous_;
    mutable Record current_;
    std::uint64_t consumed_ = 0;
};

// The mpi::Op for a record (pointers into the trace's tables; compute in instructions).
mpi::Op to_op(const Trace& trace, const Record& r, std::uint64_t instructions);

}  // namespace clustersim::traces
