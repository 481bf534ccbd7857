// Point-to-point matching: the requests and messages of the runtime, and the posted-receive
// and unexpected-message queues that pair them by MPI's rules.
//
// A receive matches a message of its communicator's context (p2p_context / coll_context:
// user messages never meet a collective's) whose source and tag it names, or any source
// (kAnySource) and any tag (kAnyTag). An arriving message takes the earliest posted receive
// that matches it; a posted receive takes the earliest arrived unexpected message that
// matches it. Messages between a pair of ranks are matched in the order they were sent
// (non-overtaking): one that arrives ahead of an earlier one is held back until the earlier
// one has been matched (arrive_in_order).
//
// Matching owns the pools the runtime's protocols work on (requests, messages, the pairs'
// sequence numbers and queues) and changes nothing but the queues and sequence numbers: what
// a match does (completing an eager receive, clearing a rendezvous send) is the caller's.
// It needs no engine, network or CPU model, so tests drive it directly
// (tests/test_mpi_matching.cpp). Each rank's own queues (RankQueues) live in the runtime's
// per-rank state (Runtime::Rank, in the cache line every operation reads) and are passed in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "collectives/program.hpp"
#include "models/slot_map.hpp"
#include "simulator/pool.hpp"
#include "simulator/time.hpp"

namespace clustersim::mpi::p2p {

inline constexpr std::uint32_t kNil = UINT32_MAX;

// Connect: an empty message of a connection set-up (RuntimeConfig::connect_round_trips); its
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
    std::uint32_t pair;         // index of (src, dst) in Matching::pairs
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

// A first-in, first-out queue of pool entries linked through their `next` field: the
// posted receives (requests). MPI matching scans them from the front and takes out the
// first match, wherever it is; linking through the entries makes that removal O(1) and
// allocation-free (a std::deque erased in the middle shifts elements, and allocates and
// frees blocks as it goes).
//
// The matching index: a receive that names its source is queued in the (source,
// receiver) pair's entry of Matching::pairs, a receive from any source in its rank's own
// queue, and each carries the rank's posting count, so an arriving message scans only its
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

// A rank's own queues: its receives from any source, in posting order, and the messages
// (Eager or Rts) that arrived for it unmatched, in arrival order (doubly linked).
struct RankQueues {
    Queue posted_any;
    Queue unexpected;
};

// Per ordered pair of ranks that have exchanged a message: the next sequence number to
// send and the next one the receiver expects (non-overtaking), and the pair's part of the
// matching index (see Queue): the receiver's posted receives naming the source, and the
// source's unexpected messages at the receiver (doubly linked).
struct PairSeq {
    std::uint64_t next_send = 0;
    std::uint64_t next_recv = 0;
    Queue posted;
    Queue unexpected;
};

// Messages that arrived ahead of an earlier one of their pair, by (source << 40 | seq): one
// map per receiving rank (Runtime::Rank::early).
using EarlyMessages = std::unordered_map<std::uint64_t, std::uint32_t>;

class Matching {
  public:
    Pool<Request> requests;  // every request: sends, receives, collectives' transfers
    Pool<Msg> msgs;          // every message in flight
    std::vector<PairSeq> pairs;

    static bool matches(const Request& r, const Msg& m) {
        return r.context == m.context && (r.peer == kAnySource || r.peer == m.src) &&
               (r.tag == kAnyTag || r.tag == m.tag);
    }

    // The index into `pairs` of (src, dst), added if new (the runtime caches it per rank).
    std::uint32_t pair(std::int32_t src, std::int32_t dst);

    // Receive `req` (its `order` set from the rank's posting count) is posted by the rank
    // whose queues are `rq`; `pair` is its (source, rank) pair, kNil for any source. Returns
    // the earliest arrived unexpected message it matches, taken out of the queues, or kNil:
    // the receive is queued as posted.
    std::uint32_t post_recv(RankQueues& rq, std::uint32_t req, std::uint32_t pair);
    // Message m, next in its pair's order, arrives at the rank whose queues are `rq`. Returns
    // the earliest posted receive it matches, taken out of the queues, or kNil: m is queued
    // as unexpected.
    std::uint32_t arrive(RankQueues& rq, std::uint32_t m);
    // Message m's envelope arrives at its receiver (whose held-back messages are `early`):
    // `deliver(m)` is called for it if it is its pair's next, then for every held-back
    // message that follows it, in order; otherwise m is held back. `deliver` may post
    // sends (add pairs): the pair is read by index each time.
    template <class Deliver>
    void arrive_in_order(EarlyMessages& early, std::uint32_t m, Deliver&& deliver) {
        const std::int32_t src = msgs[m].src;
        const std::uint32_t p = msgs[m].pair;
        if (msgs[m].seq != pairs[p].next_recv) {  // overtook an earlier message: hold it back
            early.emplace((static_cast<std::uint64_t>(src) << 40) | msgs[m].seq, m);
            return;
        }
        ++pairs[p].next_recv;
        deliver(m);
        while (!early.empty()) {
            auto it = early.find((static_cast<std::uint64_t>(src) << 40) | pairs[p].next_recv);
            if (it == early.end()) break;
            const std::uint32_t next = it->second;
            early.erase(it);
            ++pairs[p].next_recv;
            deliver(next);
        }
    }
    // Withdraws posted receive `req` (MPI_Cancel) from `rq` (any source) or its pair's queue
    // `pair`: false if it is in neither (it was matched).
    bool withdraw_recv(RankQueues& rq, std::uint32_t req, std::uint32_t pair);
    // Takes message m out of the unexpected queues (`rq`: its receiver's) if it is there.
    bool withdraw_unexpected(RankQueues& rq, std::uint32_t m);

  private:
    // The unexpected message `m` into, and out of, its receiver's and its pair's queues.
    void push_unexpected(RankQueues& rq, std::uint32_t m);
    void unlink_unexpected(RankQueues& rq, std::uint32_t m);
    // The first posted receive in `q` that matches message `m` (kNil: none), and the one
    // before it (for unlinking).
    std::uint32_t find_posted(const Queue& q, const Msg& m, std::uint32_t& prev) const;
    net::SlotMap pair_index_;
};

}  // namespace clustersim::mpi::p2p
