// Recording a simulation: wraps the program a run executes and observes the runtime, so
// every operation a rank finishes becomes (1) an OpEvent of the RunLog (timelines,
// statistics) -- or, with a spill file, a record of an OpSpill on disk (`run --out`: the
// RunLog then holds everything but its ops) -- and (2) a timed record of a native trace of
// the simulated run (what `clustersim compare` reads beside the recorded trace).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collectives/program.hpp"
#include "mpi/runtime.hpp"
#include "report/op_spill.hpp"
#include "report/run_log.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces {

class Recorder final : public mpi::Program, public mpi::OpObserver {
  public:
    // `ranks` world ranks run `program`.
    // With `spill_path`, the operations go to an OpSpill there instead of log().ops.
    Recorder(mpi::Program& program, std::uint32_t ranks, bool keep_trace = true,
             const std::string& spill_path = {});
    bool next(std::int32_t rank, mpi::Op& op) override;
    // Passed on; the simulated trace records the Wait for any as a Wait for the one it took.
    void request_done(std::int32_t rank, std::uint32_t handle) override;
    void op_done(const mpi::OpEvent& event) override;

    RunLog& log() { return log_; }
    Trace& trace() { return trace_; }
    OpSpill* spill() { return spill_.get(); }  // null without a spill path

  private:
    mpi::Program& program_;
    bool keep_trace_;
    std::vector<mpi::Op> current_;
    RunLog log_;
    Trace trace_;
    std::unique_ptr<OpSpill> spill_;
};

// The record of an mpi::Op (strings and count lists interned into `trace`).
Record to_record(Trace& trace, const mpi::Op& op);

// Tracer overhead recorded in a trace: `trace merge` writes a compute burst that held the
// tracer's buffer writes with its full interval (start, end) but only the application's
// time as `compute_time`; the difference is the tracer's.
struct TracerOverhead {
    Time total;                // summed over ranks
    std::uint64_t bursts = 0;  // compute records that held some
};

// A RunLog from a trace's timed records (waits unknown: 0). Ranks without times are empty.
// With `overhead`, the recorded tracer overhead is taken out: a compute record whose
// `compute_time` is shorter than its interval ends `compute_time` after its start, and the
// rank's later records move earlier by the overhead so far; `overhead` says how much.
RunLog run_log_from_trace(const Trace& trace, const std::string& title,
                          TracerOverhead* overhead = nullptr);

}  // namespace clustersim::traces
