// The MPI runtime: runs one Program per rank on the CPU and network models.
//
// Point-to-point semantics: matching on (source, tag, communicator) with kAnySource and
// kAnyTag, MPI's non-overtaking order between a pair of ranks, posted-receive and
// unexpected-message queues searched in order. Messages up to the model's eager threshold
// are sent at once (the send completes when its last byte has left the sender); larger ones
// use rendezvous: a zero-byte request-to-send, a zero-byte clear-to-send once a matching
// receive is posted, then the data.
//
// Collectives: every call is a state machine that walks its algorithm's schedule
// (collective.hpp), posting each step's transfers as internal requests in the
// communicator's collective context (so they never match user messages), then the step's
// reduction work on the rank's core. Nonblocking collectives run the same machine in the
// background and complete a request. Global-view operations (the virtual barrier,
// communicator creation) complete when every member has entered, with no message.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "collectives/coll_curve.hpp"
#include "collectives/collective.hpp"
#include "collectives/io_service.hpp"
#include "collectives/placement.hpp"
#include "collectives/program.hpp"
#include "collectives/selection.hpp"
#include "models/comm_model.hpp"
#include "models/cpu.hpp"
#include "models/slot_map.hpp"
#include "models/transport.hpp"
#include "simulator/pool.hpp"

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

struct RuntimeConfig {
    std::uint64_t eager_threshold = 64 * 1024;
    // Bytes the network carries with every message's payload on top of it (eager messages
    // and rendezvous data; not the zero-byte control messages): SimGrid's SMPI adds a 16-byte
    // MPI envelope (tag, destination, communicator) to each message (--mpi simgrid).
    std::uint64_t envelope_bytes = 0;
    std::uint64_t reduce_instructions_per_byte = 1;
    Bandwidth reduce_bandwidth = kInfiniteBandwidth;  // finite: wins over instructions/byte
    Bandwidth copy_bandwidth = kInfiniteBandwidth;    // finite: a rank's own-block copies cost
    comm::FittedCurve reduce_curve, copy_curve;       // non-empty: win over the bandwidths
    // <collectives buffer-copies="yes">: the algorithms' own buffer copies
    // (Algorithm::buffer_copies, Open MPI 4.1's) cost their bytes at the copy rate (the
    // copy curve or copy_bandwidth) on the rank's core, before the first step and after the
    // last. Off, or without a copy rate: no cost and no event.
    bool buffer_copies = false;
    // <collectives buffer-footprint="yes"> (issue 23): a rendezvous message of a collective's
    // schedule is handed to the network with the size of the receive buffer it lands in
    // (Runtime::landing_buffer), and the analytic models price it at the lower of their
    // curve's bandwidths at its size and at that buffer's (net::Transport::send_within): a
    // segment of a 100 MiB bcast moves at the 100 MiB bandwidth, as the real library's
    // segments walk through the whole user buffer, not at that of a cache-resident
    // segment-sized ping-pong. Off: every message at its own size.
    bool buffer_footprint = false;
    // Per-message software costs (LogGP's o; OverheadSpec), each run on the rank's core
    // (so jitter and other work on the core stretch it), one at a time per rank in the order
    // they arise: `send` (o_s) before a message is handed to the network (Send, Isend,
    // Sendrecv, every send of a collective's schedule); `recv` (o_r) after a message has
    // arrived and been matched, before its receive completes; `post` when a receive is posted
    // (Recv, Irecv, Sendrecv, every receive of a schedule). Zero: no cost and no event.
    OverheadSpec send_overhead, recv_overhead, post_overhead;
    // The gap between one rank's sends (LogGP's g; <mpi-overhead><gap>, measured by
    // clustersim-calibrate as a stream of blocking MPI_Send less o_s): a send (Send, Isend,
    // Sendrecv's send, every send of a collective's schedule) completes no earlier than
    // `send_gap` after its message was handed to the network, so back-to-back blocking
    // sends are o_s + g apart however fast the network delivers. Zero: no such floor.
    OverheadSpec send_gap;
    // Lazy connection set-up (<mpi-overhead><peer-setup>; Open MPI's shared-memory fast box,
    // InfiniBand endpoints): counted per directed pair of ranks over every message the
    // runtime itself hands to the network (eager messages, rendezvous requests-to-send and
    // clear-to-sends; not the data that follows a clear-to-send), the peer_setup_after-th is
    // handed over peer_setup_time later, and so is any message for that peer handed over
    // before the set-up ends (in order). A send's gap counts from the deferred hand-over.
    // 0: none, no counter and no event.
    std::uint32_t peer_setup_after = 0;
    Time peer_setup_time;
    // Connection set-up over a connection-oriented transport (<mpi-overhead><connect>;
    // MPICH2's ch3:sock: TCP's SYN and SYN-ACK, then the channel's open request and open
    // response): the first message a rank hands to the network for a peer it has no
    // connection with, in either direction (an eager message or a rendezvous request-to-
    // send), first sends connect_round_trips round trips of empty messages to that peer
    // through the network; it, and every message between the two handed over before the
    // last reply arrives, goes when that reply has arrived (in order). A send's gap counts
    // from the hand-over it would have had without the set-up. 0: none, no state.
    std::uint32_t connect_round_trips = 0;
    // Fresh send buffers (<mpi-overhead><fresh-send>; Open MPI's single-copy transport pulls a
    // buffer the sender has just written out of the sender's cache, slower): a Send, Isend or
    // Sendrecv's send of s bytes whose rank computed at least s / fresh_write_rate (the
    // Compute operations of its program, as they ran, since its previous call that sent
    // above the eager threshold: sends_in_bulk) costs fresh_send.at(s) more. Above the eager
    // threshold that extra delays the data after the clear-to-send (the receiver's pull is
    // slower), not the request-to-send: a rank that waits in its send for a late peer pays it
    // once the peer is there, as both ranks' pulls of a two-way exchange do at once. An eager
    // message is handed to the network that much later. zero(): none, and no bookkeeping.
    OverheadSpec fresh_send;
    Bandwidth fresh_write_rate = kInfiniteBandwidth;
    // Cold fresh sends (<mpi-overhead><cold-send after="…">): a fresh send whose rank computed
    // at least cold_after since its previous bulk send costs cold_send.at(s) more (added to
    // fresh_send's). zero(): none.
    OverheadSpec cold_send;
    Time cold_after;
    // Communicator creation modelled (<collectives comm-create>): an 8-byte allreduce
    // over the parent, then `comm_create_local` on each member's core (comm_create_step).
    bool comm_create_modelled = false;
    Time comm_create_local;
    // <collectives comm-free>: MPI_Comm_free's cost on the rank's core (local: no agreement).
    Time comm_free;
    // <collectives first-topology>: a rank's first Cart_create / Dist_graph_create* adds
    // this to comm_create_local (comm_create_step).
    Time first_topology;
    // <collectives barrier>: every barrier run as messages costs this on each member's core
    // after its algorithm's last step (the library's own work beyond the messages). Zero:
    // no cost and no event.
    Time barrier_cost;
    // <network progress="in_mpi">: a rendezvous request-to-send that meets a posted receive
    // while the receiver computes (an OpKind::Compute of its program) is answered (its
    // clear-to-send sent) when the receiver's next operation that is not a Compute starts,
    // or when its program ends; false: at once.
    bool progress_in_mpi = false;
    // Measured collective curves (<collective-curve>, issue 23): a blocking collective whose
    // operation and communicator size match a rule and whose members are all placed as its
    // scope says costs the curve's time from its last member's entry; its algorithm does not
    // run (Runtime::curve_for). Empty: every collective runs its algorithm.
    std::vector<CollectiveCurveRule> collective_curves;
};

class Runtime final : public net::NetworkClient, public cpu::CpuClient, public IoHost {
  public:
    Runtime(Engine& engine, net::Transport& network, cpu::CpuModel& cpus,
            std::vector<RankLocation> ranks, std::vector<std::uint32_t> rank_core,
            const Selection& selection, RuntimeConfig config, Program& program);

    // The I/O system that runs MPI-IO operations (none: a file operation is an error).
    void set_io(IoService* io) { io_ = io; }
    // Told about every finished operation (timelines, statistics); null: nobody.
    void set_observer(OpObserver* observer) { observer_ = observer; }
    // Several applications at once: ranks [0, sizes[0]) are the first one's MPI_COMM_WORLD,
    // the next sizes[1] the second's, and so on (before start()).
    void set_apps(const std::vector<std::uint32_t>& sizes);
    // Starts every rank at the current time.
    void start();
    bool all_finished() const { return finished_ == ranks_.size(); }
    // Ranks inside an operation their program handed out: after start() every rank is, from
    // its first fetch to its end (advance() fetches the next operation as one completes), so
    // this is the ranks not finished. What the programs handed out less this is what has
    // completed (progress lines).
    std::size_t ops_in_progress() const { return ranks_.size() - finished_; }
    // One line per rank that has not finished: what it is blocked in.
    std::vector<std::string> blocked_ranks() const;
    // Every rank's result; first moves the operation statistics gathered so far into them.
    const std::vector<RankResult>& results() {
        flush_stats();
        return results_;
    }
    // Collective calls by "operation/algorithm", counted at each call's comm rank 0.
    const std::map<std::string, std::uint64_t>& algorithm_calls() const { return algorithm_calls_; }
    std::size_t size() const { return ranks_.size(); }

    void message_delivered(std::uint64_t cookie) override;
    void message_injected(std::uint64_t cookie) override;
    void compute_done(std::uint64_t cookie, Time jitter) override;
    std::string describe_job(std::uint64_t cookie) const override;
    void io_done(std::int32_t rank, std::uint64_t bytes) override;
    void io_all_arrived(std::int32_t rank) override;

  private:
    static constexpr std::uint32_t kNil = UINT32_MAX;
    static constexpr std::uint64_t kCollCookie = 1ULL
                                                 << 63;  // CPU cookie of a collective's reduction
    static constexpr std::uint64_t kOverheadCookie = 1ULL << 62;  // a per-message software cost
    // Connect: an empty message of a connection set-up (config_.connect_round_trips); its
    // `seq` counts the one-way trips still to go after it.
    enum class MsgKind : std::uint8_t { Eager, Rts, Cts, Data, Connect };
    struct Msg {
        MsgKind kind;
        std::int32_t src, dst, tag,
            context;  // world ranks; context = 2 * comm (+1 for collectives)
        std::uint64_t bytes;
        std::uint64_t seq;
        std::uint32_t send_req, recv_req;
        bool send_done, recv_done;
        Time posted;                // when the sender posted it
        std::uint32_t pair;         // index of (src, dst) in pairs_
        std::uint32_t next = kNil;  // unexpected: next message in the receiver's queue
        std::uint32_t prev = kNil;  // ... and the one before it
        std::uint32_t pair_next = kNil, pair_prev = kNil;  // ... in its pair's queue
        bool cancelled = false;  // withdrawn by MPI_Cancel: dropped when it arrives
        Time pull{};             // rendezvous: the data goes this long after the clear-to-send
    };
    // One cache line each (64 bytes, aligned): a request is touched when posted, matched
    // and completed, far apart in time.
    struct alignas(64) Request {
        bool is_send = false;
        bool done = false;
        bool waited = false;
        bool charge_recv = false;  // a receive whose completion still owes o_r
        std::int32_t rank = 0;     // world rank
        std::int32_t peer = 0, tag = 0, context = 0;
        std::uint32_t owner = kNil;  // collective run it belongs to, kNil for the program's own
        std::uint32_t next = kNil;   // next receive in the rank's posted queue
        std::uint32_t transfer = 0;  // collectives: step slot (bit 31) and transfer index
        std::uint32_t msg = kNil;    // sends: their message (cancel looks for it)
        std::uint32_t order = 0;     // posted receives: the rank's posting count (matching order)
        std::uint64_t bytes = 0;
        Time ready = Time::zero();  // when the peer posted the matching call (wait accounting)
    };
    static_assert(sizeof(Request) == 64, "a request is one cache line");
    // A per-message software cost waiting for (or running on) its rank's core, and what
    // follows it: go on with the rank's current operation, post a send or a receive, or
    // complete a receive.
    struct Overhead {
        enum class Then : std::uint8_t { Resume, PostSend, PostRecv, Complete };
        Then then;
        Time work;
        std::int32_t peer = 0, tag = 0, context = 0;
        std::uint64_t bytes = 0;
        std::uint32_t owner = kNil, transfer = 0;  // Complete: `transfer` is the request
    };
    // A first-in, first-out queue of pool entries linked through their `next` field: the
    // posted receives (requests). MPI matching scans them from the front and takes out the
    // first match, wherever it is; linking through the entries makes that removal O(1) and
    // allocation-free (a std::deque erased in the middle shifts elements, and allocates and
    // frees blocks as it goes).
    //
    // The matching index: a receive that names its source is queued in the (source,
    // receiver) pair's entry of pairs_, a receive from any source in its rank's own queue,
    // and each carries the rank's posting count, so an arriving message scans only its
    // pair's receives and the any-source ones and takes the earlier posted of the two first
    // matches: the receive MPI's single posted queue would give. An unexpected message is
    // in two doubly linked queues, its rank's (arrival order, for any-source receives) and
    // its pair's (for receives that name the source), and leaves both in O(1). So a root
    // receiving from p ranks in rank order scans one pair's messages per receive, not p.
    struct Queue {
        std::uint32_t head = kNil;
        std::uint32_t tail = kNil;
        template <class P>
        void push(P& pool, std::uint32_t i) {
            pool[i].next = kNil;
            if (tail == kNil)
                head = i;
            else
                pool[tail].next = i;
            tail = i;
        }
        // Takes out `i`, which follows `prev` (kNil: `i` is the head).
        template <class P>
        void unlink(P& pool, std::uint32_t prev, std::uint32_t i) {
            const std::uint32_t after = pool[i].next;
            if (prev == kNil)
                head = after;
            else
                pool[prev].next = after;
            if (tail == i) tail = prev;
        }
    };
    // Destination -> pairs_ index of the pairs a rank sent on last, direct-mapped on the
    // destination's low bits: a halo exchange or a collective's few peers hit it, so the
    // per-message pair look-up rarely reaches pair_index_ (a hash probe into a table that
    // grows with the number of communicating pairs, a likely cache miss).
    static constexpr std::size_t kPairCache = 4;
    struct PairCacheEntry {
        std::int32_t dst = -1;
        std::uint32_t slot = 0;
    };
    struct Comm {
        std::vector<std::int32_t> members;  // comm rank -> world rank
        std::unordered_map<std::int32_t, std::int32_t>
            rank_of;  // world -> comm rank (not for world)
        bool world = false;
        std::shared_ptr<const Topology> topo;  // MPI_Cart_create, MPI_Dist_graph_create*
        std::int32_t comm_rank(std::int32_t world_rank) const {
            return world ? world_rank : rank_of.at(world_rank);
        }
    };
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
    // Ranks of one communicator waiting in a global-view operation.
    // What the first rank to enter a collective call (a communicator and its call number)
    // passed, for the others to be checked against (check_collective_match): MPI requires the
    // same operation, root and (for the collectives whose every rank passes one block) count.
    struct CollCheck {
        CollOp op;
        std::int32_t root;
        std::uint64_t bytes;
        std::int32_t first_rank;
        std::uint32_t arrived;
    };
    std::unordered_map<std::uint64_t, CollCheck> coll_checks_;  // by comm << 32 | call number
    void check_collective_match(std::int32_t rank, std::uint32_t comm, std::uint32_t seq,
                                const Op& op);
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
    // Laid out by use (issue 25): a 1,024-rank replay finds a rank's state cold at nearly
    // every event, so what every event reads is in as few cache lines as possible. Line 0:
    // the current operation's point-to-point and collective fields (the first 64 B of
    // `op`); line 1: the rest of `op` (MPI-IO, communicator creation); line 2: the scalars
    // every operation reads or writes; line 3: the request handles and the out-of-order map
    // (whose emptiness each arrival checks); then the rest.
    struct alignas(64) Rank {
        Op op;
        // Line 2.
        Time op_start;
        std::uint32_t waiting = 0;  // requests the current blocking op still waits for
        std::uint32_t posts = 0;    // receives posted so far (Request::order)
        std::array<std::uint32_t, 2>
            blocking{};    // requests of a blocking Send/Recv/Sendrecv/collective
        Queue posted_any;  // receive requests from any source, in posting order
        Queue unexpected;  // messages (Eager or Rts), in arrival order (doubly linked)
        std::uint32_t core = 0;
        // comms[0] (the handle of MPI_COMM_WORLD, or whatever a program later put there),
        // kept here as well: comm_of reads it at nearly every operation. Written with comms
        // by set_comm only.
        std::uint32_t comm0 = 0;
        bool finished = false;
        bool in_io_start = false;  // inside IoService::start (completion must come later)
        bool overhead_running = false;
        bool paid = false;    // the current operation's posting cost is paid
        bool resume = false;  // advance() goes on with the current operation
        // progress_in_mpi: the rank is in a Compute (outside MPI), and the rendezvous
        // messages whose clear-to-send waits for its next MPI call (deferred_cts).
        bool computing = false;
        bool made_topology = false;  // config_.first_topology: paid
        // A modelled communicator creation's stage (comm_create_step): 0 none, 1 agreement,
        // 2 local cost, 3 the creation's synchronisation.
        std::uint8_t comm_stage = 0;
        std::uint32_t op_comm = 0;  // communicator id of the current collective call
        std::uint32_t op_seq = 0;   // its call number on that communicator
        // Line 3.
        std::vector<std::uint32_t> handles;  // program request handle -> request
        std::unordered_map<std::uint64_t, std::uint32_t> early;  // (src, seq) -> msg, out of order
        // The rest.
        RankLocation where;
        std::array<PairCacheEntry, kPairCache> pair_cache{};  // see PairCacheEntry
        std::uint64_t io_bytes = 0;  // file data moved by the current MPI-IO operation
        Time io_ready;  // collective MPI-IO: when the last member entered (else op_start)
        const char* op_algorithm = nullptr;      // its "operation/algorithm" (OpEvent::algorithm)
        std::vector<std::uint32_t> comms{0};     // communicator handle -> comm id (0 = world)
        std::vector<std::uint32_t> coll_seq{0};  // per communicator handle: collective calls so far
        std::vector<Overhead> overheads;         // software costs in order; [overhead_head] runs
        std::uint32_t overhead_head = 0;
        std::vector<std::uint32_t> deferred_cts;
        // config_.fresh_send: the rank's compute time since its last call that sent in bulk
        // (sends_in_bulk), and that time as the current MPI call began.
        Time computed, computed_before;
    };
    static_assert(offsetof(Rank, op_start) == 128 && offsetof(Rank, handles) == 192,
                  "Rank's lines as laid out above");

    void advance(std::int32_t rank);
    // Clear message m (a matched request-to-send) to send: the clear-to-send goes now.
    void send_cts(std::uint32_t m);
    // Hands message m (Eager, Rts, Cts, or Data after its pull delay) to the network now.
    void transmit(std::uint32_t m);
    // The data of rendezvous message m (its clear-to-send has arrived) to the network now.
    void send_data(std::uint32_t m);
    // config_.cold_send: the cold extra of a fresh send of `bytes` by `rank`.
    Time cold_delay(std::int32_t rank, std::uint64_t bytes) const;
    // config_.peer_setup_after: counts a message from `src` to `dst` and returns when it
    // may be handed to the network (now, or when the pair's connection set-up ends).
    Time peer_ready(std::int32_t src, std::int32_t dst);
    // config_.connect_round_trips: true when message m's pair of ranks is connected (m may
    // go); otherwise m waits for the connection, `delay` after it (and the set-up starts if
    // m is the pair's first message).
    bool connected(std::uint32_t m, Time delay);
    // The last trip of a connection set-up (message m) has arrived: its waiting messages go.
    void connection_ready(std::uint32_t m);
    // The lazy peer set-up a curve-timed collective of `comm` waits for (curve_peer_setup).
    Time curve_peer_setup(std::uint32_t comm);
    // config_.fresh_send: how much later the current operation's send of `bytes` is handed
    // to the network (zero unless its rank computed long enough to have written them).
    Time fresh_delay(std::int32_t rank, std::uint64_t bytes) const;
    // config_.fresh_send: `op` sends above the eager threshold (its compute window ends).
    bool sends_in_bulk(const Op& op) const;
    // Hands message m to the network at `when` (now: at once; later: a kSetupKind event).
    void hand_over(std::uint32_t m, Time when);
    // progress_in_mpi: the rank enters MPI (or ends): its deferred clear-to-sends go.
    void enter_mpi(std::int32_t rank);
    void finish_op(std::int32_t rank);
    // The cost of creating a communicator (comm_dup, comm_split; the same for any creation
    // call): stage by stage, an allreduce of kCommAgreementBytes over the parent (the
    // context id's agreement, by the model's allreduce algorithm), the per-call local cost
    // on the rank's core, then the synchronisation that creates it. True when done (the
    // rank's op can be recorded); false while a stage is under way (finish_op calls again).
    bool comm_create_step(std::int32_t rank);
    // config_.first_topology when the rank's current operation is its first communicator
    // with a topology (then counted), else zero.
    Time first_topology(std::int32_t rank);
    void record(std::int32_t rank);  // statistics and request release for the rank's current op
    void observe(std::int32_t rank, int kind, Time wait, std::uint64_t bytes, std::int32_t peer);
    // Bytes a rank passes to a collective call (v-variants: from the counts).
    std::uint64_t collective_bytes(std::int32_t rank, const Op& op) const;
    // The checks of these three are inline, their errors out of line, so that the
    // per-operation path does not pay a call for each.
    std::uint32_t handle_request(std::int32_t rank, std::uint32_t handle) const {
        const Rank& r = ranks_[rank];
        if (handle >= r.handles.size() || r.handles[handle] == kNil) [[unlikely]]
            bad_request(rank, handle);
        return r.handles[handle];
    }
    // The only writer of a rank's communicator handles (and of its copy of handle 0's).
    static void set_comm(Rank& r, std::uint32_t handle, std::uint32_t id) {
        if (r.comms.size() <= handle) r.comms.resize(handle + 1, kNil);
        r.comms[handle] = id;
        if (handle == 0) r.comm0 = id;
    }
    std::uint32_t comm_of(std::int32_t rank, std::int32_t handle) const {
        const Rank& r = ranks_[rank];
        if (handle == 0 && r.comm0 != kNil) [[likely]]
            return r.comm0;  // == r.comms[0]
        if (handle < 0 || static_cast<std::size_t>(handle) >= r.comms.size() ||
            r.comms[handle] == kNil) [[unlikely]]
            bad_comm(rank, handle);
        return r.comms[handle];
    }
    std::int32_t world_peer(std::int32_t rank, std::uint32_t comm, std::int32_t peer,
                            bool allow_any) const {
        if (allow_any && peer == kAnySource) return kAnySource;
        const Comm& c = comms_[comm];
        if (peer < 0 || static_cast<std::size_t>(peer) >= c.members.size()) [[unlikely]]
            bad_peer(rank, comm, peer);
        return c.members[peer];
    }
    [[noreturn]] void bad_request(std::int32_t rank, std::uint32_t handle) const;
    [[noreturn]] void reused_request(std::int32_t rank, std::uint32_t handle) const;
    [[noreturn]] void bad_comm(std::int32_t rank, std::int32_t handle) const;
    [[noreturn]] void bad_peer(std::int32_t rank, std::uint32_t comm, std::int32_t peer) const;
    // `owner`: the collective run the request belongs to (kNil: the program's own), and
    // `transfer` its step slot and transfer index (transfer_done); `delay`: handed to the
    // network this much later (fresh_delay).
    std::uint32_t post_send(std::int32_t rank, std::int32_t dst, std::int32_t tag,
                            std::int32_t context, std::uint64_t bytes, std::uint32_t owner = kNil,
                            std::uint32_t transfer = 0, Time delay = Time::zero());
    std::uint32_t post_recv(std::int32_t rank, std::int32_t src, std::int32_t tag,
                            std::int32_t context, std::uint64_t bytes, std::uint32_t owner = kNil,
                            std::uint32_t transfer = 0);
    // Queues a software cost on the rank's core (starts it if the core has none running).
    void charge(std::int32_t rank, const Overhead& o);
    void overhead_done(std::int32_t rank, Time jitter);
    void envelope_arrived(std::uint32_t msg);
    void match_arrival(std::uint32_t msg);
    void bind(std::uint32_t msg, std::uint32_t recv_req);
    void complete(std::uint32_t req);
    void maybe_free_msg(std::uint32_t msg);
    // MPI_Cancel of the program's request `req`: withdraws it if no peer matched it yet.
    void cancel(std::int32_t rank, std::uint32_t req);
    // Collectives and communicators.
    std::uint32_t start_collective(std::int32_t rank, const Op& op);
    std::uint32_t start_comm_create(std::int32_t rank, const Op& op);
    // Posts what the run's steps allow, generates the next, completes steps and the call.
    void pump(std::uint32_t run);
    // Posts slot s's transfers, in order, while their dependencies are complete. Inline:
    // most calls find every transfer of the slot posted already, or (the step after the
    // older one) its next transfer waiting for the whole older step, and return at once,
    // without the posting loop's register saves.
    void post_ready(std::uint32_t run, std::uint8_t s) {
        const CollRun& r = runs_[run];
        const StepSlot& slot = r.slots[s];
        if (slot.posted == slot.count) return;
        if (s != r.front && slot.at(slot.posted).after() == kAfterStep) return;
        post_more(run, s);
    }
    void post_more(std::uint32_t run, std::uint8_t s);  // post_ready's loop
    void generate(CollRun& run, StepSlot& slot);        // the run's next step into slot
    void transfer_done(std::uint32_t run, std::uint32_t transfer);
    void arrive_global(std::uint32_t comm, std::uint32_t seq, GlobalSync::Entry entry,
                       bool creates_comm, const Op* timed = nullptr,
                       const CollectiveCurve* curve = nullptr);
    // The measured curve for this call of `op` on communicator `comm`, or null: its algorithm
    // runs (RuntimeConfig::collective_curves).
    const CollectiveCurve* curve_for(std::uint32_t comm, const Op& op);
    void complete_global(std::vector<GlobalSync::Entry>& entries);
    // The topology of a communicator made by MPI_Cart_create / MPI_Dist_graph_create*:
    // `entries` are its members in rank order.
    std::shared_ptr<const Topology> make_topology(const GlobalSync::Entry* entries,
                                                  std::size_t n) const;
    void timed_done(std::uint32_t pending);
    // Fires when a collective timed by the network model completes (kind kTimedKind, event
    // data: index into timed_), when a send's gap has passed (kind kGapKind, data: the
    // request), or when a message waiting for its pair's connection set-up goes (kind
    // kSetupKind, data: the message).
    static constexpr std::uint32_t kTimedKind = 0, kGapKind = 1, kSetupKind = 2;
    struct Timer final : Component {
        Runtime* rt = nullptr;
        void handle(Engine&, const Event& e) override {
            if (e.kind == kGapKind)
                rt->complete(static_cast<std::uint32_t>(e.data));
            else if (e.kind == kSetupKind)
                rt->transmit(static_cast<std::uint32_t>(e.data));
            else
                rt->timed_done(static_cast<std::uint32_t>(e.data));
        }
        std::string name() const override { return "timed collectives"; }
    };
    std::uint32_t next_seq(std::int32_t rank, std::int32_t handle);
    static bool matches(const Request& r, const Msg& m) {
        return r.context == m.context && (r.peer == kAnySource || r.peer == m.src) &&
               (r.tag == kAnyTag || r.tag == m.tag);
    }

    Engine& engine_;
    net::Transport& network_;
    cpu::CpuModel& cpus_;
    // The local work of collectives on `rank`'s core, done with `cookie`: combining
    // `bytes` of reduced data; copying its own block of `bytes`.
    void start_reduce_work(std::int32_t rank, std::uint64_t bytes, std::uint64_t cookie);
    std::uint64_t own_block_copy(const CollArgs& args) const;
    // The receive buffer the message of receive `recv_req` lands in (buffer_footprint); that
    // of a rank's call (its own block's copy lands there too).
    std::uint64_t landing_buffer(std::uint32_t recv_req) const;
    static std::uint64_t landing_buffer(const CollArgs& args);
    bool has_copy_rate() const {
        return !config_.copy_curve.empty() || !config_.copy_bandwidth.infinite();
    }
    Time copy_time(std::uint64_t bytes) const;
    const Selection& selection_;
    RuntimeConfig config_;
    Program& program_;
    IoService* io_ = nullptr;
    OpObserver* observer_ = nullptr;
    std::vector<Rank> ranks_;
    std::vector<RankResult> results_;
    // Operation statistics while running, by kind and then by rank: a kind's column of p
    // entries (24 B each) is made when some rank first uses the kind. Counting an operation
    // touches one entry, and ranks advanced in turn share its cache lines; a rank's own
    // table (RankResult::ops, a vector scanned by kind) cost a cache miss or two at every
    // operation of a 1,024-rank replay (issue 25). results() moves them into results_.
    std::vector<std::vector<OpStats>> stat_columns_;
    OpStats& stat_entry(int kind, std::int32_t rank) {
        std::vector<OpStats>& column = stat_columns_[static_cast<std::size_t>(kind)];
        if (column.empty()) [[unlikely]]
            column.resize(ranks_.size());
        return column[static_cast<std::size_t>(rank)];
    }
    void flush_stats();
    Pool<Request> requests_;
    // With a send gap (config_.send_gap): per send request, the earliest time it may complete
    // (its message's hand-over to the network + g(bytes)); Time::zero() once applied. Beside
    // the requests, not in them, so a request stays one cache line and runs without a gap
    // pay nothing.
    std::vector<Time> send_floor_;
    Pool<Msg> msgs_;
    Pool<CollRun> runs_;
    std::vector<Comm> comms_;
    // Per ordered pair of ranks that have exchanged a message: the next sequence number to
    // send and the next one the receiver expects (non-overtaking). One flat table for all
    // pairs: no per-rank hash maps on the per-message path.
    struct PairSeq {
        std::uint64_t next_send = 0;
        std::uint64_t next_recv = 0;
        // The matching index (see Queue): the receiver's posted receives naming the source,
        // and the source's unexpected messages at the receiver (doubly linked).
        Queue posted;
        Queue unexpected;
    };
    // The unexpected message `m` into, and out of, its receiver's and its pair's queues.
    void push_unexpected(std::uint32_t m);
    void unlink_unexpected(std::uint32_t m);
    // The first posted receive in `q` that matches message `m` (kNil: none), and the one
    // before it (for unlinking).
    std::uint32_t find_posted(const Queue& q, const Msg& m, std::uint32_t& prev) const;
    std::uint32_t pair_slot(std::int32_t src, std::int32_t dst) {  // index into pairs_
        const PairCacheEntry& e =
            ranks_[src].pair_cache[static_cast<std::uint32_t>(dst) % kPairCache];
        return e.dst == dst ? e.slot : pair_slot_miss(src, dst);
    }
    std::uint32_t pair_slot_miss(std::int32_t src, std::int32_t dst);
    net::SlotMap pair_index_;
    std::vector<PairSeq> pairs_;
    // config_.peer_setup_after only (empty otherwise): per directed pair (src << 32 | dst)
    // that has handed a message to the network, the messages counted (up to the threshold)
    // and when its connection set-up ends.
    struct PeerSetup {
        std::uint32_t messages = 0;
        Time ready;
    };
    std::unordered_map<std::uint64_t, PeerSetup> peer_setup_;
    // config_.connect_round_trips only (empty otherwise): per unordered pair of ranks
    // (low << 32 | high) that has had a message, whether it is connected and the messages
    // waiting for its set-up (message, delay after it) in hand-over order.
    struct Connection {
        bool ready = false;
        std::vector<std::pair<std::uint32_t, Time>> waiting;
    };
    std::unordered_map<std::uint64_t, Connection> connections_;
    std::map<std::pair<std::uint32_t, std::uint32_t>, GlobalSync> syncs_;  // (comm, call sequence)
    // Analytic network models time each collective call as a whole (Transport::
    // times_collectives): the members of calls waiting for their completion time.
    bool timed_collectives_ = false;
    Timer timer_;
    ComponentId timer_id_ = 0;
    Pool<std::vector<GlobalSync::Entry>> timed_;
    std::size_t finished_ = 0;
    std::map<std::string, std::uint64_t> algorithm_calls_;
    // (operation, algorithm) -> its entry in algorithm_calls_ and its interned name.
    struct AlgorithmKey {
        std::uint64_t* calls;
        const char* name;
    };
    std::map<std::pair<int, const Algorithm*>, AlgorithmKey> algorithm_keys_;
    std::map<int, AlgorithmKey> curve_keys_;  // "allreduce/measured-curve", per operation
    // Per communicator, its members' placement for curve_for (0: not yet known; else 1 | 2 if
    // all on one node | 4 if each on its own node).
    std::vector<std::uint8_t> comm_placement_;
};

// A string that lives as long as the program (one copy per distinct value).
const char* intern(const std::string& s);

}  // namespace clustersim::mpi
