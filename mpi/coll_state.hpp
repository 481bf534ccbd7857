// The collective executor's state (mpi/coll_executor.cpp): a rank's run of one collective
// call (CollRun) with its two steps in flight (StepSlot), the first entrant's arguments a
// call is checked against (CollCheck), and the members waiting in a global-view operation
// (GlobalSync). Laid out for the per-message path: a StepSlot's posting fields fill its
// first cache line.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "collectives/coll_curve.hpp"
#include "collectives/collective.hpp"
#include "collectives/program.hpp"

namespace clustersim::mpi::coll {

// One step of a collective run in flight (see collective.hpp: two at a time). What
// posting and pumping read is in the slot's first cache line: the counts, which
// transfers are complete (a bit mask), the reduction's size, and the first two
// transfers (a copy, made when the step is generated): the step's own transfer list is
// a heap block the algorithm filled then, likely out of the cache by the time the step
// runs, and a ring or binomial step has at most two transfers.
struct alignas(64) StepSlot {
    // A transfer as posting needs it: 16 bytes.
    struct Posting {
        std::uint64_t bytes = 0;
        std::int32_t peer = 0;    // rank in the communicator
        std::int32_t after2 = 0;  // 2 * Transfer::after + send
        static Posting of(const Transfer& t) {
            return Posting{t.bytes, t.peer, t.after * 2 + (t.send ? 1 : 0)};
        }
        bool send() const { return (after2 & 1) != 0; }
        std::int32_t after() const { return after2 >> 1; }
    };
    static constexpr std::uint32_t kInline = 2;  // transfers copied into the slot
    std::uint32_t posted = 0;                    // transfers posted so far (in order)
    std::uint32_t pending = 0;                   // posted transfers not complete yet
    std::uint32_t count = 0;                     // step.transfers.size()
    std::uint32_t done_low = 0;                  // bit i: transfer i (< 32) complete
    bool valid = false;
    std::uint8_t reduce = 0;               // 0: not started, 1: running, 2: done
    std::uint64_t reduce_bytes = 0;        // step.reduce_bytes
    std::array<Posting, kInline> first{};  // step.transfers[0, kInline)
    std::vector<bool> done_high;           // transfer 32 + i complete (larger steps)
    Step step;
    Posting at(std::uint32_t i) const {
        return i < kInline ? first[i] : Posting::of(step.transfers[i]);
    }
    bool done(std::uint32_t i) const {
        return i < 32 ? (done_low >> i & 1U) != 0 : done_high[i - 32];
    }
    void set_done(std::uint32_t i) {
        if (i < 32)
            done_low |= std::uint32_t{1} << i;
        else
            done_high[i - 32] = true;
    }
};
static_assert(offsetof(StepSlot, done_high) == 64, "the posting fields fill one line");

// One rank's execution of one collective call (hot fields first).
struct CollRun {
    std::int32_t rank;  // world rank
    std::uint32_t comm;
    std::int32_t tag;
    std::uint32_t k;  // steps generated so far
    std::uint32_t user_req;
    std::uint8_t front;  // slots[front]: the older step
    bool ended;          // the schedule has no step k
    bool posting;        // inside pump (completions only count)
    bool copied_after;   // the final local work (buffer copy, barrier cost) is started
                         // or not needed
    const Algorithm* alg;
    CollArgs args;
    std::array<StepSlot, 2> slots;
};

// What the first rank to enter a collective call (a communicator and its call number)
// passed, for the others to be checked against (check_collective_match): MPI requires the
// same operation, root and (for the collectives whose every rank passes one block) count.
// An entry still here when the run deadlocks is a call some member never entered
// (check_collective_communicators: it waits in a call on another communicator).
struct CollCheck {
    CollOp op;
    bool nonblocking;  // MPI_Ibcast never matches MPI_Bcast (MPI 3.1, section 5.12)
    std::int32_t root;
    std::uint64_t bytes;
    std::int32_t first_rank;
    std::uint32_t arrived;
    std::uint64_t first_mark;   // Program::mark of first_rank's call, for the error line
    std::int32_t first_handle;  // the communicator as first_rank named it
};

// Ranks of one communicator waiting in a global-view operation (the virtual barrier,
// communicator creation, calls timed as a whole), by (communicator, call number).
struct GlobalSync {
    std::uint32_t arrived = 0;
    bool timed = false;  // a collective timed by the network model as a whole
    CollOp op = CollOp::Barrier;
    std::uint64_t bytes = 0;  // timed: the largest size a member passed
    std::int32_t root = 0;    // timed: the call's root and counts (collective_volume)
    const std::vector<std::uint64_t>* counts = nullptr;
    const CollectiveCurve* curve = nullptr;  // timed by a measured curve, not the network
    struct Entry {
        std::int32_t world_rank, comm_rank, color, key;
        std::uint32_t newcomm, req;
        OpKind kind = OpKind::CommSplit;                   // communicator creation: which call
        const std::vector<std::uint64_t>* spec = nullptr;  // its encoded TopoSpec
    };
    std::vector<Entry> entries;
};

}  // namespace clustersim::mpi::coll
