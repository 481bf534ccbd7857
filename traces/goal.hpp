// GOAL schedules: LogGOPSim's text format (also ATLAHS's and Schedgen's), read and written.
// A schedule is, per rank, a graph of sends, receives and calculations: an operation starts
// once every operation it `requires` has completed and every operation it `irequires` has
// started. Reading keeps that graph (GoalProgram posts every operation as soon as it may
// start, as a nonblocking call, and waits for any of them); writing turns a trace's program
// order into such a graph (write_goal). The format, what is read and what is refused:
// docs/formats.md, traces/README.md.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "collectives/program.hpp"
#include "collectives/selection.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces {

enum class GoalKind : std::uint8_t { Send, Recv, Calc };

// One operation: 24 bytes.
struct GoalOp {
    std::uint64_t size = 0;  // send/recv: bytes; calc: nanoseconds
    std::int32_t peer = 0;   // send: destination; recv: source (-1: any)
    std::int32_t tag = 0;    // -1 (recv only): any
    std::uint32_t line = 0;  // where it is defined in the file
    GoalKind kind = GoalKind::Calc;
};

// The operations of one schedule, rank by rank, with their dependencies: about 40 bytes an
// operation and 4 a dependency once read (docs/limits.md).
struct GoalSchedule {
    std::string path;
    std::uint32_t ranks = 0;  // num_ranks
    std::vector<GoalOp> ops;  // each rank's operations together, in file order
    // Per rank: where its operations begin in `ops` and how many it has (a rank without a
    // block has none).
    std::vector<std::uint64_t> begin;
    std::vector<std::uint32_t> count;
    // Per operation (index into `ops`), the operations of its rank that depend on it:
    // succ[succ_begin[i] .. succ_begin[i + 1]), each an index among its rank's operations
    // with kStartEdge set when it waits for this one to start (irequires) rather than complete.
    static constexpr std::uint32_t kStartEdge = 1u << 31;
    std::vector<std::uint64_t> succ_begin;
    std::vector<std::uint32_t> succ;
    // Per operation: how many operations it depends on (requires + irequires).
    std::vector<std::uint32_t> deps;
    // Lines with cpu or nic annotations (read and ignored: a rank runs on one core).
    std::uint64_t annotated = 0;
};

// The most operations one rank of a GOAL schedule may have (local indices are 31 bits).
inline constexpr std::uint32_t kMaxGoalOpsPerRank = (1u << 31) - 1;
// The longest calc (nanoseconds): its picoseconds must fit in 63 bits.
inline constexpr std::uint64_t kMaxGoalCalcNs = 9'223'372'036'854'775ULL;

// Reads a GOAL text file. Bad input: InputError naming the file and line (a keyword the
// format does not have, a label used before or without its definition, a dependency cycle,
// a rank or peer out of range, a number that overflows, num_ranks beyond mpi::kMaxRanks).
GoalSchedule read_goal(const std::string& path);
// The same from text in memory (`path` names it in errors).
GoalSchedule parse_goal(const std::string& text, const std::string& path);
// True if `path` names a GOAL file: its name ends in .goal, or its first word (after
// comments) is num_ranks.
bool looks_like_goal(const std::string& path, const std::string& head);

// A schedule run by the runtime: each rank posts every operation whose dependencies are met
// (send/recv as Isend/Irecv, in file order among those ready at once), runs a calc on its
// core (nothing else of the rank starts meanwhile: one core), and otherwise waits for any
// posted one (a Wait with `counts`, mpi::Program::request_done). A calc of N ns is N ns on
// the rank's core (N ns × --traced-speed instructions when that is given).
class GoalProgram final : public mpi::Program {
  public:
    GoalProgram(const GoalSchedule& schedule, std::vector<std::uint64_t> core_speed,
                std::uint64_t traced_speed = 0);
    bool next(std::int32_t rank, mpi::Op& op) override;
    void request_done(std::int32_t rank, std::uint32_t handle) override;
    mpi::ProgramProgress progress() const override { return {started_, schedule_.ops.size()}; }
    // The line of the operation `rank` last started, or of the oldest one it waits for (0:
    // none).
    std::uint32_t line(std::int32_t rank) const;

  private:
    static constexpr std::uint32_t kNone = ~0u;
    struct RankState {
        std::vector<std::uint32_t> ready;      // min-heap of local indices whose deps are met
        std::vector<std::uint64_t> pending;    // handles of posted sends/receives (the wait list)
        std::vector<std::uint32_t> handle_op;  // handle -> local index
        std::vector<std::uint32_t> free_handles;
        std::uint32_t calc = kNone;  // the calc handed out last: done when next() comes
        std::uint32_t last = kNone;  // the operation handed out last
        bool seeded = false;
    };
    void seed(std::uint32_t rank);
    void started(std::uint32_t rank, std::uint32_t local);
    void finished(std::uint32_t rank, std::uint32_t local);
    void release(std::uint32_t rank, std::uint32_t local, bool start_edges);

    const GoalSchedule& schedule_;
    std::vector<std::uint64_t> core_speed_;
    std::uint64_t traced_speed_;
    std::vector<std::uint32_t> unmet_;  // per operation: dependencies not met yet
    std::vector<RankState> state_;
    std::uint64_t started_ = 0;
};

// How write_goal expands collectives (issue 58; GOAL has no collectives and no
// communicators, so LogGOPSim's Schedgen expands them into point-to-point schedules): each
// call, on MPI_COMM_WORLD or on a communicator the trace makes with MPI_Comm_dup or
// MPI_Comm_split (its ranks mapped to world ranks), becomes the schedule of the algorithm
// `selection` chooses for it
// (the model's rules, --algorithm, --mpi: what a run would choose), its transfers as sends and
// receives with the dependencies the collective executor keeps between its steps (mpi/
// coll_executor.cpp), its local work as calcs: a step's reduction (`reduce`), the rank's copy
// of its own block and, with `buffer_copies`, the algorithm's own copies (`copy`), a barrier's
// `barrier_cost`. A null function: that work is not written (no calc).
struct GoalCollectives {
    const mpi::Selection* selection = nullptr;  // null: collectives are refused
    std::function<Time(std::uint64_t bytes)> reduce, copy;
    bool buffer_copies = false;
    Time barrier_cost;
    std::vector<std::string> notes;  // written as comment lines after the header
};

// What write_goal expanded: collective calls per "operation/algorithm" (one rank's count).
struct GoalWriteReport {
    std::map<std::string, std::uint64_t> collectives;
};

// Writes `trace` as a GOAL schedule: point-to-point calls as send/recv, compute (and
// unmodeled calls) as calc in nanoseconds, with dependencies that reproduce each rank's
// program order (a blocking call requires what came before it, a nonblocking one only the
// completed calls before it and irequires the call just before it; a wait makes what follows
// require the requests it waited for). Collectives are expanded as `collectives` says (their
// messages get tags above every tag of the trace, one per call and communicator); the
// communicators MPI_Comm_dup and MPI_Comm_split make are resolved into their members and
// not written (GOAL has no such call: their synchronisation is not kept); without a
// selection both are refused. Point-to-point calls on communicators other than the world,
// communicators with topologies, neighbourhood collectives, algorithms that send no
// messages (global view), MPI-IO, one-sided calls, cancel, an MPI_ANY_TAG receive in a trace
// with collectives (it could take a collective's message) and compute given in instructions
// without a traced speed or a recorded time are refused (InputError naming the rank and
// record).
GoalWriteReport write_goal(const Trace& trace, const std::string& path,
                           const GoalCollectives& collectives = {});
// The same into a string (tests).
std::string goal_text(const Trace& trace, const GoalCollectives& collectives = {});

}  // namespace clustersim::traces
