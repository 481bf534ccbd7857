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
//
// Runtime is the facade run/ drives; its parts (mpi/README.md): the matching and its pools
// (p2p::Matching, matching.hpp), the collective executor's state (coll_state.hpp),
// communicators (communicator.hpp), the running statistics (OpStatColumns, stats.hpp),
// and its member functions by concern: interpreter.cpp, protocols.cpp, requests.cpp,
// coll_executor.cpp, communicators.cpp, runtime.cpp.
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
#include "models/connections.hpp"
#include "models/cpu.hpp"
#include "models/slot_map.hpp"
#include "models/transport.hpp"
#include "mpi/coll_state.hpp"
#include "mpi/communicator.hpp"
#include "mpi/matching.hpp"
#include "mpi/runtime_config.hpp"
#include "mpi/stats.hpp"
#include "simulator/pool.hpp"

namespace clustersim::mpi {

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
    // For a deadlock: throws RankError if a rank waits in a collective call on one
    // communicator while another member of it waits in a call on another communicator
    // (they disagree on the communicator of a collective call).
    void check_collective_communicators() const;
    // Every rank's result; first moves the operation statistics gathered so far into them.
    const std::vector<RankResult>& results() {
        stats_.flush(results_);
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
    static constexpr std::uint32_t kNil = p2p::kNil;
    using MsgKind = p2p::MsgKind;
    using Msg = p2p::Msg;
    using Request = p2p::Request;
    using Queue = p2p::Queue;
    static constexpr std::uint64_t kCollCookie = 1ULL
                                                 << 63;  // CPU cookie of a collective's reduction
    static constexpr std::uint64_t kOverheadCookie = 1ULL << 62;  // a per-message software cost
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
    // Destination -> match_.pairs index of the pairs a rank sent on last, direct-mapped on the
    // destination's low bits: a halo exchange or a collective's few peers hit it, so the
    // per-message pair look-up rarely reaches Matching::pair (a hash probe into a table that
    // grows with the number of communicating pairs, a likely cache miss).
    static constexpr std::size_t kPairCache = 4;
    struct PairCacheEntry {
        std::int32_t dst = -1;
        std::uint32_t slot = 0;
    };
    using StepSlot = coll::StepSlot;
    using CollRun = coll::CollRun;
    using CollCheck = coll::CollCheck;
    using GlobalSync = coll::GlobalSync;
    std::unordered_map<std::uint64_t, CollCheck> coll_checks_;  // by comm << 32 | call number
    void check_collective_match(std::int32_t rank, std::uint32_t comm, std::uint32_t seq,
                                const Op& op);
    // The collectives whose every rank passes one block of the same size.
    static bool one_block(CollOp op);
    [[noreturn]] void report_collective_mismatch(std::int32_t rank, std::uint32_t seq, const Op& op,
                                                 const CollCheck& c) const;
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
            blocking{};          // requests of a blocking Send/Recv/Sendrecv/collective
        p2p::RankQueues queues;  // receives from any source, unexpected messages (matching)
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
        p2p::EarlyMessages early;            // (src, seq) -> msg, out of order (arrive_in_order)
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

    // The program interpreter (interpreter.cpp): runs the rank's operations until one blocks.
    void advance(std::int32_t rank);
    // What starting an operation left: the rank blocks in it, it completed (record it), or it
    // completed and is counted already (nonblocking calls: go on).
    enum class Next : std::uint8_t { Block, Record, Continue };
    // The rank's next operation from its program into rank.op; false when the program ends.
    bool fetch(std::int32_t rank);
    Next start_op(std::int32_t rank);
    Next start_p2p(std::int32_t rank);       // Send, Recv, Sendrecv, Isend, Irecv
    Next start_wait_any(std::int32_t rank);  // a Wait for any of the handles in op.counts
    void start_io(std::int32_t rank);        // MPI-IO: handed to the I/O system
    // The posting cost of a point-to-point call (o_s, the post cost) on the rank's core:
    // true if it was charged now (the call goes on when it is paid), false if it is paid.
    bool pay(std::int32_t rank, const OverheadSpec& a, std::uint64_t a_bytes, const OverheadSpec& b,
             std::uint64_t b_bytes);
    // 1 (and marked waited) if request `req` is not complete yet, else 0.
    std::uint32_t wait_for(std::uint32_t req) {
        if (match_.requests[req].done) return 0u;
        match_.requests[req].waited = true;
        return 1u;
    }
    // The rank's current operation's request handle is `req`; counts a nonblocking call.
    void set_handle(std::int32_t rank, std::uint32_t req);
    void count_nonblocking(std::int32_t rank, std::uint64_t bytes);
    static int stat_index(const Op& op) { return stat_kind(op.kind, op.coll, op.nonblocking); }
    static std::int32_t p2p_context(std::uint32_t comm) {
        return static_cast<std::int32_t>(2 * comm);
    }
    static std::int32_t coll_context(std::uint32_t comm) {
        return static_cast<std::int32_t>(2 * comm + 1);
    }
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
    // The call's arguments on communicator `comm`, checked (root, counts, topology), and the
    // size its algorithm is chosen by (v-variants: the mean count).
    CollArgs collective_args(std::int32_t rank, std::uint32_t comm, const Op& op,
                             std::uint64_t& size_for_choice) const;
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

    // One-sided communication (mpi/onesided.cpp). A put, get or accumulate is internal
    // messages in its window's context (rma_context: no user or collective message matches
    // them) whose receives the runtime posts itself, at the target as the data's landing and
    // at the origin for the reply: no call of the target's program takes part. The origin
    // counts each operation until its completion at the target is known there (an ack, or
    // the data a get brings back); fence, unlock and flush wait for those counts.
    static constexpr std::uint32_t kRmaOwner = kNil - 1;     // Request::owner of RMA messages
    static constexpr std::uint64_t kRmaCookie = 1ULL << 61;  // CPU cookie of a target's reduction
    // Message tags within a window's context: what each RMA message is.
    enum RmaTag : std::int32_t {
        kRmaPut,
        kRmaAck,
        kRmaGetRequest,
        kRmaGetData,
        kRmaAccumulate,
        kRmaResult,
        kRmaLockRequest,
        kRmaLockGrant,
        kRmaUnlock
    };
    static std::int32_t rma_context(std::uint32_t win) {
        return -1 - static_cast<std::int32_t>(win);
    }
    struct Window {
        std::uint32_t comm = 0;  // its communicator's id
        struct Lock {            // passive-target locks held at one member
            std::uint32_t shared = 0;
            bool exclusive = false;
            std::vector<std::uint32_t> waiting;  // lock requests (RmaOp ids), in arrival order
        };
        std::vector<Lock> locks;  // by comm rank (sized at the first lock)
    };
    struct RmaOp {  // one put, get, accumulate, lock or unlock in flight
        OpKind kind;
        std::int32_t origin, target;  // world ranks
        std::uint32_t win;
        std::uint64_t bytes, bytes2;
        bool exclusive;  // WinLock
    };
    struct RankRma {                         // a rank's windows and what it waits for
        std::vector<std::uint32_t> wins;     // window handle -> window id (kNil: none)
        std::vector<std::int32_t> win_comm;  // window handle -> its communicator's handle
        std::unordered_map<std::uint64_t, bool> locked;  // (window, target) -> exclusive
        // Operations not yet complete at their target: per window, and per (window, target).
        std::unordered_map<std::uint32_t, std::uint32_t> pending;
        std::unordered_map<std::uint64_t, std::uint32_t> pending_at;
        // The current fence, unlock or flush waits for `wait_win`'s count (wait_target -1:
        // all of them) to reach zero; a fence then synchronises (then_barrier).
        std::uint32_t wait_win = kNil;
        std::int32_t wait_target = -1;
        bool then_barrier = false;
        std::unordered_map<std::uint32_t, std::uint32_t> created;  // per comm id: windows made
    };
    Next start_onesided(std::int32_t rank);
    std::uint32_t window_of(std::int32_t rank, std::uint32_t handle) const;
    // Posts an RMA message `from` -> `to` and the receive that lands it, for operation `id`.
    void rma_message(std::int32_t from, std::int32_t to, std::uint32_t win, RmaTag tag,
                     std::uint64_t bytes, std::uint32_t id);
    // A receive posted by rma_message is complete: the operation's next stage.
    void rma_arrived(std::uint32_t id, std::int32_t tag);
    void rma_reduced(std::uint32_t id);                         // a target's combining work is done
    void rma_complete(std::uint32_t id);                        // known complete at the origin
    void lock_release(std::uint32_t win, std::int32_t target);  // grants what may go next
    // The rank's fence, unlock or flush, its operations complete: what follows (a fence's
    // barrier, an unlock's release).
    Next rma_proceed(std::int32_t rank);
    std::uint32_t rma_pending(const RankRma& rr, std::uint32_t win, std::int32_t target) const;
    std::vector<Window> windows_;
    std::unordered_map<std::uint64_t, std::uint32_t> window_ids_;  // (comm, n-th) -> window
    std::vector<RankRma> rma_ranks_;  // by rank (empty until a window is made)
    Pool<RmaOp> rma_ops_;
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
    OpStatColumns stats_;  // operation statistics while running (stats.hpp)
    // The requests, messages and pairs with their matching queues (mpi/matching.hpp).
    p2p::Matching match_;
    // With a send gap (config_.send_gap): per send request, the earliest time it may complete
    // (its message's hand-over to the network + g(bytes)); Time::zero() once applied. Beside
    // the requests, not in them, so a request stays one cache line and runs without a gap
    // pay nothing.
    std::vector<Time> send_floor_;
    Pool<CollRun> runs_;
    std::vector<Comm> comms_;
    std::uint32_t pair_slot(std::int32_t src, std::int32_t dst) {  // index into match_.pairs
        const PairCacheEntry& e =
            ranks_[src].pair_cache[static_cast<std::uint32_t>(dst) % kPairCache];
        return e.dst == dst ? e.slot : pair_slot_miss(src, dst);
    }
    std::uint32_t pair_slot_miss(std::int32_t src, std::int32_t dst);
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
    net::ConnectionTable<std::pair<std::uint32_t, Time>> connections_;
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

}  // namespace clustersim::mpi
