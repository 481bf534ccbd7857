#include "collectives/runtime.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <mutex>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "collectives/rank_error.hpp"
#include "simulator/error.hpp"

namespace clustersim::mpi {

const char* to_string(OpKind kind) {
    switch (kind) {
        case OpKind::Compute:
            return "Compute";
        case OpKind::Send:
            return "Send";
        case OpKind::Recv:
            return "Recv";
        case OpKind::Isend:
            return "Isend";
        case OpKind::Irecv:
            return "Irecv";
        case OpKind::Wait:
            return "Wait";
        case OpKind::Waitall:
            return "Waitall";
        case OpKind::Sendrecv:
            return "Sendrecv";
        case OpKind::Collective:
            return "Collective";
        case OpKind::CommDup:
            return "Comm_dup";
        case OpKind::CommSplit:
            return "Comm_split";
        case OpKind::FileOpen:
            return "File_open";
        case OpKind::FileClose:
            return "File_close";
        case OpKind::FileSetView:
            return "File_set_view";
        case OpKind::FileSeek:
            return "File_seek";
        case OpKind::FileWrite:
            return "File_write";
        case OpKind::FileRead:
            return "File_read";
        case OpKind::FileWriteAt:
            return "File_write_at";
        case OpKind::FileReadAt:
            return "File_read_at";
        case OpKind::FileWriteAll:
            return "File_write_all";
        case OpKind::FileReadAll:
            return "File_read_all";
        case OpKind::FileWriteAtAll:
            return "File_write_at_all";
        case OpKind::FileReadAtAll:
            return "File_read_at_all";
        case OpKind::FileSync:
            return "File_sync";
        case OpKind::Unmodeled:
            return "Unmodeled";
        case OpKind::CartCreate:
            return "Cart_create";
        case OpKind::DistGraphCreateAdjacent:
            return "Dist_graph_create_adjacent";
        case OpKind::DistGraphCreate:
            return "Dist_graph_create";
        case OpKind::Cancel:
            return "Cancel";
        case OpKind::CommFree:
            return "Comm_free";
    }
    return "?";
}

const char* intern(const std::string& s) {
    static std::mutex lock;
    static std::set<std::string> strings;  // nodes never move: their c_str() stay valid
    const std::lock_guard<std::mutex> guard(lock);
    return strings.insert(s).first->c_str();
}

std::vector<std::uint64_t> encode_topo_spec(OpKind kind, const TopoSpec& t) {
    std::vector<std::uint64_t> out;
    auto put = [&](std::int32_t x) { out.push_back(static_cast<std::uint64_t>(x)); };
    if (kind == OpKind::CartCreate) {
        out.push_back(t.dims.size());
        for (const std::int32_t d : t.dims) put(d);
        for (const std::uint8_t p : t.periods) out.push_back(p);
    } else {
        out.push_back(t.sources.size());
        for (const std::int32_t x : t.sources) put(x);
        for (const std::int32_t x : t.destinations) put(x);
    }
    out.push_back(t.reorder ? 1 : 0);
    return out;
}

std::string decode_topo_spec(OpKind kind, const std::vector<std::uint64_t>& c, TopoSpec& t) {
    t = TopoSpec{};
    if (c.size() < 2) return fmt::format("{} topology values, expected at least 2", c.size());
    const std::uint64_t n = c[0];
    auto rank = [](std::uint64_t x, std::int32_t& out) {
        if (x > static_cast<std::uint64_t>(INT32_MAX)) return false;
        out = static_cast<std::int32_t>(x);
        return true;
    };
    if (c.back() > 1) return fmt::format("reorder is {}, expected 0 or 1", c.back());
    t.reorder = c.back() == 1;
    if (kind == OpKind::CartCreate) {
        if (n > (c.size() - 2) / 2 || c.size() != 2 * n + 2)
            return fmt::format("{} topology values for {} dimensions, expected {}", c.size(), n,
                               2 * n + 2);
        for (std::uint64_t i = 0; i < n; ++i) {
            std::int32_t d = 0;
            if (!rank(c[1 + i], d)) return fmt::format("dimension of size {}", c[1 + i]);
            t.dims.push_back(d);
            if (c[1 + n + i] > 1)
                return fmt::format("period {} of dimension {}, expected 0 or 1", c[1 + n + i], i);
            t.periods.push_back(static_cast<std::uint8_t>(c[1 + n + i]));
        }
        return "";
    }
    if (n > c.size() - 2 ||
        (kind == OpKind::DistGraphCreate && (n > (c.size() - 2) / 2 || c.size() != 2 * n + 2)))
        return fmt::format("{} topology values for {} {}", c.size(), n,
                           kind == OpKind::DistGraphCreate ? "edges" : "sources");
    for (std::size_t i = 1; i + 1 < c.size(); ++i) {
        std::int32_t x = 0;
        if (!rank(c[i], x)) return fmt::format("neighbour {} is not a rank", c[i]);
        (i <= n ? t.sources : t.destinations).push_back(x);
    }
    return "";
}

std::string stat_name(int kind) {
    if (kind < kOpKinds) return to_string(static_cast<OpKind>(kind));
    const bool nonblocking = kind >= kOpKinds + kCollOps;
    std::string name = to_string(static_cast<CollOp>((kind - kOpKinds) % kCollOps));
    name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
    return nonblocking
               ? "I" + std::string(1, static_cast<char>(std::tolower(name[0]))) + name.substr(1)
               : name;
}

int stat_kind(OpKind kind, CollOp coll, bool nonblocking) {
    if (kind != OpKind::Collective) return static_cast<int>(kind);
    return kOpKinds + (nonblocking ? kCollOps : 0) + static_cast<int>(coll);
}

namespace {
int stat_index(const Op& op) {
    return stat_kind(op.kind, op.coll, op.nonblocking);
}
std::int32_t p2p_context(std::uint32_t comm) {
    return static_cast<std::int32_t>(2 * comm);
}
std::int32_t coll_context(std::uint32_t comm) {
    return static_cast<std::int32_t>(2 * comm + 1);
}
}  // namespace

Runtime::Runtime(Engine& engine, net::Transport& network, cpu::CpuModel& cpus,
                 std::vector<RankLocation> ranks, std::vector<std::uint32_t> rank_core,
                 const Selection& selection, RuntimeConfig config, Program& program)
    : engine_(engine),
      network_(network),
      cpus_(cpus),
      selection_(selection),
      config_(config),
      program_(program) {
    ranks_.resize(ranks.size());
    results_.resize(ranks.size());
    stat_columns_.resize(kStatKinds);
    // Sized once from p: every rank of a collective over the world holds a run at once, and
    // a rank usually exchanges with at least one peer. Growing these by doubling copied
    // every run (512 B each) and faulted in twice the pages (issue 25: 11 % of a
    // 262,144-rank bcast). Reserving touches no page.
    runs_.reserve(ranks.size());
    pairs_.reserve(ranks.size());
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        ranks_[r].where = ranks[r];
        ranks_[r].core = rank_core[r];
    }
    Comm world;
    world.world = true;
    world.members.resize(ranks.size());
    for (std::size_t r = 0; r < ranks.size(); ++r) world.members[r] = static_cast<std::int32_t>(r);
    comms_.push_back(std::move(world));
    timed_collectives_ = network_.times_collectives();
    if (timed_collectives_ || !config_.send_gap.zero() || !config_.collective_curves.empty() ||
        config_.peer_setup_after != 0 || !config_.fresh_send.zero() ||
        config_.connect_round_trips != 0) {
        timer_.rt = this;
        timer_id_ = engine_.add(timer_);
    }
}

std::uint32_t Runtime::pair_slot_miss(std::int32_t src, std::int32_t dst) {
    const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) |
                              static_cast<std::uint32_t>(dst);
    std::uint32_t i = pair_index_.find(key);
    if (i == net::SlotMap::kAbsent) {
        i = static_cast<std::uint32_t>(pairs_.size());
        pairs_.emplace_back();
        pair_index_.insert(key, i);
    }
    ranks_[src].pair_cache[static_cast<std::uint32_t>(dst) % kPairCache] = PairCacheEntry{dst, i};
    return i;
}

void Runtime::start() {
    for (std::size_t r = 0; r < ranks_.size(); ++r) advance(static_cast<std::int32_t>(r));
}

// ---- communicators ----------------------------------------------------------------------

void Runtime::bad_comm(std::int32_t rank, std::int32_t handle) const {
    throw RankError(
        rank, fmt::format("rank {} uses communicator {} that it does not have", rank, handle));
}

void Runtime::bad_peer(std::int32_t rank, std::uint32_t comm, std::int32_t peer) const {
    const Comm& c = comms_[comm];
    throw RankError(
        rank, fmt::format("rank {} names peer rank {}, but its communicator has {} ranks (0..{})",
                          rank, peer, c.members.size(), c.members.size() - 1));
}

std::uint32_t Runtime::next_seq(std::int32_t rank, std::int32_t handle) {
    Rank& r = ranks_[rank];
    if (r.coll_seq.size() <= static_cast<std::size_t>(handle)) r.coll_seq.resize(handle + 1, 0);
    return r.coll_seq[handle]++;
}

// ---- point to point ---------------------------------------------------------------------

std::uint32_t Runtime::post_send(std::int32_t rank, std::int32_t dst, std::int32_t tag,
                                 std::int32_t context, std::uint64_t bytes, std::uint32_t owner,
                                 std::uint32_t transfer, Time delay) {
    const std::uint32_t req = requests_.acquire_made([&] {
        return Request{.is_send = true,
                       .rank = rank,
                       .peer = dst,
                       .tag = tag,
                       .context = context,
                       .owner = owner,
                       .transfer = transfer,
                       .bytes = bytes,
                       .ready = engine_.now()};
    });
    const std::uint32_t slot = pair_slot(rank, dst);
    const std::uint64_t seq = pairs_[slot].next_send++;
    const bool eager = bytes <= config_.eager_threshold;
    const std::uint32_t m = msgs_.acquire_made([&] {
        return Msg{eager ? MsgKind::Eager : MsgKind::Rts,
                   rank,
                   dst,
                   tag,
                   context,
                   bytes,
                   seq,
                   req,
                   kNil,
                   false,
                   false,
                   engine_.now(),
                   slot};
    });
    requests_[req].msg = m;
    // Rendezvous: the receiver's pull (after the clear-to-send) is what a fresh buffer slows.
    if (!eager) msgs_[m].pull = delay;
    const Time when = (config_.peer_setup_after != 0 ? peer_ready(rank, dst) : engine_.now()) +
                      (eager ? delay : Time::zero());
    if (!config_.send_gap.zero()) {
        if (send_floor_.size() <= req) send_floor_.resize(std::size_t{req} + 1, Time::zero());
        send_floor_[req] = when + config_.send_gap.at(bytes);
    }
    if (config_.connect_round_trips != 0 && !connected(m, when - engine_.now())) return req;
    hand_over(m, when);
    return req;
}

bool Runtime::connected(std::uint32_t m, Time delay) {
    const Msg& msg = msgs_[m];
    if (msg.src == msg.dst) return true;
    const auto lo = static_cast<std::uint32_t>(std::min(msg.src, msg.dst));
    const auto hi = static_cast<std::uint32_t>(std::max(msg.src, msg.dst));
    Connection& c = connections_[(static_cast<std::uint64_t>(lo) << 32) | hi];
    if (c.ready) return true;
    if (c.waiting.empty()) {  // the pair's first message: its sender connects
        const std::uint32_t h =
            msgs_.acquire(Msg{MsgKind::Connect, msg.src, msg.dst, 0, 0, 0,
                              std::uint64_t{2} * config_.connect_round_trips - 1, kNil, kNil, true,
                              true, engine_.now(), msg.pair});
        c.waiting.emplace_back(m, delay);
        transmit(h);
        return false;
    }
    c.waiting.emplace_back(m, delay);
    return false;
}

void Runtime::connection_ready(std::uint32_t m) {
    const Msg& msg = msgs_[m];
    const auto lo = static_cast<std::uint32_t>(std::min(msg.src, msg.dst));
    const auto hi = static_cast<std::uint32_t>(std::max(msg.src, msg.dst));
    Connection& c = connections_[(static_cast<std::uint64_t>(lo) << 32) | hi];
    msgs_.release(m);
    c.ready = true;
    std::vector<std::pair<std::uint32_t, Time>> waiting;
    waiting.swap(c.waiting);
    const Time now = engine_.now();
    for (const auto& [w, delay] : waiting) hand_over(w, now + delay);
}

void Runtime::transmit(std::uint32_t m) {
    const Msg& msg = msgs_[m];
    if (msg.kind == MsgKind::Cts) {
        network_.send_between(ranks_[msg.dst].where.vertex, ranks_[msg.src].where.vertex, 0, m,
                              false, msg.dst, msg.src);
        return;
    }
    if (msg.kind == MsgKind::Data) {
        send_data(m);
        return;
    }
    // Rendezvous control messages carry no payload bytes.
    const bool eager = msg.kind == MsgKind::Eager;
    network_.send_between(ranks_[msg.src].where.vertex, ranks_[msg.dst].where.vertex,
                          eager ? msg.bytes + config_.envelope_bytes : 0, m, eager, msg.src,
                          msg.dst);
}

Time Runtime::peer_ready(std::int32_t src, std::int32_t dst) {
    const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) |
                              static_cast<std::uint32_t>(dst);
    PeerSetup& p = peer_setup_[key];
    const Time now = engine_.now();
    if (p.messages < config_.peer_setup_after && ++p.messages == config_.peer_setup_after)
        p.ready = now + config_.peer_setup_time;  // this message sets the connection up first
    return p.ready > now ? p.ready : now;
}

// A send of a buffer the rank has just written (config_.fresh_send): it computed, since its
// previous call that sent in bulk, at least as long as writing the bytes takes at the write
// rate.
// A call whose data leaves by the receivers' single copy (above the eager threshold: a send,
// a sendrecv's send, a collective): the copy leaves the lines it read clean, so the compute
// before it no longer makes a later send fresh. Posting a receive, waiting, small messages
// (the sender copies them itself) and I/O leave a written buffer dirty in the cache.
bool Runtime::sends_in_bulk(const Op& op) const {
    switch (op.kind) {
        case OpKind::Send:
        case OpKind::Isend:
        case OpKind::Sendrecv:
        case OpKind::Collective:
            return op.bytes > config_.eager_threshold;
        default:
            return false;
    }
}

Time Runtime::fresh_delay(std::int32_t rank, std::uint64_t bytes) const {
    if (config_.fresh_send.zero() || bytes == 0) return Time::zero();
    const Time computed = ranks_[rank].computed_before;
    if (computed == Time::zero() || computed < transfer_time(bytes, config_.fresh_write_rate))
        return Time::zero();
    return config_.fresh_send.at(bytes) + cold_delay(rank, bytes);
}

// A fresh send after compute long enough to have replaced the core's cache
// (config_.cold_send): the pull misses at both ends.
Time Runtime::cold_delay(std::int32_t rank, std::uint64_t bytes) const {
    if (config_.cold_send.zero() || ranks_[rank].computed_before < config_.cold_after)
        return Time::zero();
    return config_.cold_send.at(bytes);
}

// A collective timed by its measured curve sends no messages, but the library it stands for
// does: each call counts one message each way between neighbouring members (k and k + 1
// modulo the size; the one pair of a 2-rank communicator once) toward the lazy peer set-up,
// and the call lasts the set-ups its messages wait for, one after the other, longer.
Time Runtime::curve_peer_setup(std::uint32_t comm) {
    if (config_.peer_setup_after == 0) return Time::zero();
    const std::vector<std::int32_t>& m = comms_[comm].members;
    const std::size_t p = m.size();
    const Time now = engine_.now();
    Time extra = Time::zero();
    for (std::size_t k = 0; k < (p == 2 ? 1 : p) && p > 1; ++k) {
        const std::int32_t a = m[k], b = m[(k + 1) % p];
        for (const auto& [src, dst] : {std::pair{a, b}, std::pair{b, a}}) {
            const Time ready = peer_ready(src, dst);
            if (ready > now) extra = extra + (ready - now);
        }
    }
    return extra;
}

// Also the data of a rendezvous message whose pull is slower (Msg::pull): it goes as a
// kSetupKind event too, and transmit sends it as data.
void Runtime::hand_over(std::uint32_t m, Time when) {
    if (when > engine_.now())
        engine_.schedule(when, timer_id_, kSetupKind, m);
    else
        transmit(m);
}

std::uint32_t Runtime::post_recv(std::int32_t rank, std::int32_t src, std::int32_t tag,
                                 std::int32_t context, std::uint64_t bytes, std::uint32_t owner,
                                 std::uint32_t transfer) {
    const std::uint32_t req = requests_.acquire_made([&] {
        return Request{.charge_recv = !config_.recv_overhead.zero(),
                       .rank = rank,
                       .peer = src,
                       .tag = tag,
                       .context = context,
                       .owner = owner,
                       .transfer = transfer,
                       .bytes = bytes};
    });
    Rank& r = ranks_[rank];
    requests_[req].order = r.posts++;
    if (src == kAnySource) {  // the earliest arrived match from anyone
        for (std::uint32_t m = r.unexpected.head; m != kNil; m = msgs_[m].next) {
            if (matches(requests_[req], msgs_[m])) {
                unlink_unexpected(m);
                bind(m, req);
                return req;
            }
        }
        r.posted_any.push(requests_, req);
        return req;
    }
    const std::uint32_t slot = pair_slot(src, rank);
    for (std::uint32_t m = pairs_[slot].unexpected.head; m != kNil; m = msgs_[m].pair_next) {
        if (matches(requests_[req], msgs_[m])) {
            unlink_unexpected(m);
            bind(m, req);
            return req;
        }
    }
    pairs_[slot].posted.push(requests_, req);
    return req;
}

namespace {
// An unexpected message sits in two intrusive doubly linked queues (its receiver's and its
// pair's), through the links `next`/`prev` or `pair_next`/`pair_prev`; the end of a queue is
// the largest index (Runtime::kNil).
template <class Msgs, class Queue, class Links>
void append(Msgs& msgs, Queue& q, std::uint32_t m, Links next, Links prev) {
    constexpr auto nil = std::numeric_limits<decltype(q.tail)>::max();
    msgs[m].*next = nil;
    msgs[m].*prev = q.tail;
    (q.tail == nil ? q.head : msgs[q.tail].*next) = m;
    q.tail = m;
}
template <class Msgs, class Queue, class Links>
void unlink(Msgs& msgs, Queue& q, std::uint32_t m, Links next, Links prev) {
    constexpr auto nil = std::numeric_limits<decltype(q.tail)>::max();
    auto& msg = msgs[m];
    (msg.*prev == nil ? q.head : msgs[msg.*prev].*next) = msg.*next;
    (msg.*next == nil ? q.tail : msgs[msg.*next].*prev) = msg.*prev;
    msg.*next = msg.*prev = nil;
}
}  // namespace

void Runtime::push_unexpected(std::uint32_t m) {
    const Msg& msg = msgs_[m];
    append(msgs_, ranks_[msg.dst].unexpected, m, &Msg::next, &Msg::prev);
    append(msgs_, pairs_[msg.pair].unexpected, m, &Msg::pair_next, &Msg::pair_prev);
}

void Runtime::unlink_unexpected(std::uint32_t m) {
    const Msg& msg = msgs_[m];
    unlink(msgs_, ranks_[msg.dst].unexpected, m, &Msg::next, &Msg::prev);
    unlink(msgs_, pairs_[msg.pair].unexpected, m, &Msg::pair_next, &Msg::pair_prev);
}

std::uint32_t Runtime::find_posted(const Queue& q, const Msg& m, std::uint32_t& prev) const {
    prev = kNil;
    for (std::uint32_t req = q.head; req != kNil; prev = req, req = requests_[req].next)
        if (matches(requests_[req], m)) return req;
    return kNil;
}

void Runtime::bind(std::uint32_t m, std::uint32_t req) {
    Msg& msg = msgs_[m];
    msg.recv_req = req;
    requests_[req].ready = msg.posted;  // the receive waited until the send was posted
    if (msg.kind == MsgKind::Rts && !msg.send_done)
        requests_[msg.send_req].ready = engine_.now();  // rendezvous: until the receive
    requests_[req].bytes = msg.bytes;
    requests_[req].peer = msg.src;
    requests_[req].tag = msg.tag;
    if (msg.kind == MsgKind::Eager) {
        msg.recv_done = true;
        maybe_free_msg(m);
        complete(req);
    } else if (ranks_[msg.dst].computing) {  // progress_in_mpi: at its next MPI call
        ranks_[msg.dst].deferred_cts.push_back(m);
    } else {  // Rts: clear the sender to send
        send_cts(m);
    }
}

void Runtime::send_cts(std::uint32_t m) {
    Msg& msg = msgs_[m];
    msg.kind = MsgKind::Cts;
    if (config_.peer_setup_after != 0)
        hand_over(m, peer_ready(msg.dst, msg.src));
    else
        transmit(m);
}

void Runtime::enter_mpi(std::int32_t rank) {
    Rank& r = ranks_[rank];
    r.computing = false;
    if (r.deferred_cts.empty()) return;
    std::vector<std::uint32_t> cts;
    cts.swap(r.deferred_cts);
    for (const std::uint32_t m : cts) send_cts(m);
}

void Runtime::envelope_arrived(std::uint32_t m) {
    const std::int32_t src = msgs_[m].src;
    const std::int32_t dst = msgs_[m].dst;
    Rank& r = ranks_[dst];
    // An index, not a reference: matching may post sends that add pairs (and move pairs_).
    const std::uint32_t p = msgs_[m].pair;
    if (msgs_[m].seq != pairs_[p].next_recv) {  // overtook an earlier message: hold it back
        r.early.emplace((static_cast<std::uint64_t>(src) << 40) | msgs_[m].seq, m);
        return;
    }
    ++pairs_[p].next_recv;
    match_arrival(m);
    while (!r.early.empty()) {
        auto it = r.early.find((static_cast<std::uint64_t>(src) << 40) | pairs_[p].next_recv);
        if (it == r.early.end()) break;
        const std::uint32_t next = it->second;
        r.early.erase(it);
        ++pairs_[p].next_recv;
        match_arrival(next);
    }
}

void Runtime::match_arrival(std::uint32_t m) {
    if (msgs_[m].cancelled) {  // withdrawn by its sender: nothing receives it
        msgs_[m].recv_done = true;
        maybe_free_msg(m);
        return;
    }
    Rank& r = ranks_[msgs_[m].dst];
    Queue& named = pairs_[msgs_[m].pair].posted;
    std::uint32_t named_prev, any_prev;
    const std::uint32_t a = find_posted(named, msgs_[m], named_prev);
    const std::uint32_t b = find_posted(r.posted_any, msgs_[m], any_prev);
    // Both match: the one posted first (orders are a rank's count; compared modulo 2^32).
    const bool take_named =
        a != kNil &&
        (b == kNil || static_cast<std::int32_t>(requests_[a].order - requests_[b].order) < 0);
    if (take_named) {
        named.unlink(requests_, named_prev, a);
        bind(m, a);
    } else if (b != kNil) {
        r.posted_any.unlink(requests_, any_prev, b);
        bind(m, b);
    } else {
        push_unexpected(m);
    }
}

void Runtime::cancel(std::int32_t rank, std::uint32_t req) {
    Request& q = requests_[req];
    if (!q.is_send) {
        if (q.done) return;  // received already: the cancel fails, the wait completes it
        Queue& posted =
            q.peer == kAnySource ? ranks_[rank].posted_any : pairs_[pair_slot(q.peer, rank)].posted;
        for (std::uint32_t prev = kNil, x = posted.head; x != kNil;
             prev = x, x = requests_[x].next) {
            if (x != req) continue;
            posted.unlink(requests_, prev, x);  // never matched: withdrawn, receives nothing
            q.bytes = 0;
            q.done = true;
            return;
        }
        return;  // matched (a rendezvous in progress): the cancel fails
    }
    // A send can be withdrawn while no receive matched its message. A released message, or
    // its slot taken by another send, means it was matched and delivered.
    const std::uint32_t m = q.msg;
    if (m == kNil || msgs_[m].send_req != req || msgs_[m].recv_req != kNil || msgs_[m].recv_done ||
        msgs_[m].cancelled)
        return;
    Msg& msg = msgs_[m];
    msg.cancelled = true;
    if (q.done) results_[rank].bytes_sent -= q.bytes;  // eager, injected already: not sent
    q.bytes = 0;
    if (msg.kind == MsgKind::Rts) {  // the data never goes: the send is complete now
        msg.send_done = true;
        q.done = true;
    }
    // Arrived already and waiting unmatched at the receiver: take it out of the queues.
    Queue& unexpected = pairs_[msg.pair].unexpected;
    for (std::uint32_t x = unexpected.head; x != kNil; x = msgs_[x].pair_next) {
        if (x != m) continue;
        unlink_unexpected(m);
        msg.recv_done = true;
        maybe_free_msg(m);
        return;
    }
}

void Runtime::maybe_free_msg(std::uint32_t m) {
    if (msgs_[m].send_done && msgs_[m].recv_done) msgs_.release(m);
}

void Runtime::complete(std::uint32_t req) {
    Request& q = requests_[req];
    if (q.charge_recv) {  // the message is here: the receiver's o_r first
        q.charge_recv = false;
        Overhead o{Overhead::Then::Complete, config_.recv_overhead.at(q.bytes)};
        o.transfer = req;
        charge(q.rank, o);
        return;
    }
    if (q.is_send && !config_.send_gap.zero() && req < send_floor_.size()) {  // LogGP's g
        const Time due = send_floor_[req];
        send_floor_[req] = Time::zero();
        if (due > engine_.now()) {
            engine_.schedule(due, timer_id_, kGapKind, req);
            return;
        }
    }
    q.done = true;
    RankResult& res = results_[q.rank];
    if (q.is_send)
        res.bytes_sent += q.bytes;
    else
        res.bytes_received += q.bytes;
    if (q.owner != kNil) {  // a transfer of a collective: its run goes on
        const std::uint32_t run = q.owner, transfer = q.transfer;
        requests_.release(req);
        transfer_done(run, transfer);
        return;
    }
    if (!q.waited) return;
    Rank& r = ranks_[q.rank];
    if (--r.waiting == 0) finish_op(q.rank);
}

void Runtime::message_injected(std::uint64_t cookie) {
    const auto m = static_cast<std::uint32_t>(cookie);
    msgs_[m].send_done = true;
    const std::uint32_t req = msgs_[m].send_req;
    maybe_free_msg(m);
    complete(req);
}

void Runtime::message_delivered(std::uint64_t cookie) {
    const auto m = static_cast<std::uint32_t>(cookie);
    Msg& msg = msgs_[m];
    switch (msg.kind) {
        case MsgKind::Eager:
        case MsgKind::Rts:
            envelope_arrived(m);
            break;
        case MsgKind::Cts:
            msg.kind = MsgKind::Data;
            if (msg.pull > Time::zero())
                hand_over(m, engine_.now() + msg.pull);
            else
                send_data(m);
            break;
        case MsgKind::Data: {
            msg.recv_done = true;
            const std::uint32_t req = msg.recv_req;
            maybe_free_msg(m);
            complete(req);
            break;
        }
        case MsgKind::Connect:
            if (msg.seq == 0) {
                connection_ready(m);
            } else {  // the other end answers
                --msg.seq;
                std::swap(msg.src, msg.dst);
                transmit(m);
            }
            break;
    }
}

void Runtime::send_data(std::uint32_t m) {
    const Msg& msg = msgs_[m];
    const std::uint64_t buffer = config_.buffer_footprint ? landing_buffer(msg.recv_req) : 0;
    if (buffer > msg.bytes)
        network_.send_within(ranks_[msg.src].where.vertex, ranks_[msg.dst].where.vertex,
                             msg.bytes + config_.envelope_bytes, m, true, msg.src, msg.dst,
                             buffer + config_.envelope_bytes);
    else
        network_.send_between(ranks_[msg.src].where.vertex, ranks_[msg.dst].where.vertex,
                              msg.bytes + config_.envelope_bytes, m, true, msg.src, msg.dst);
}

void Runtime::io_done(std::int32_t rank, std::uint64_t bytes) {
    Rank& r = ranks_[rank];
    if (r.in_io_start || r.waiting != 1 || !is_file_op(r.op.kind))
        throw std::logic_error(
            fmt::format("io_done for rank {} that is not in an I/O operation", rank));
    r.waiting = 0;
    r.io_bytes = bytes;
    finish_op(rank);
}

void Runtime::charge(std::int32_t rank, const Overhead& o) {
    Rank& r = ranks_[rank];
    r.overheads.push_back(o);
    if (r.overhead_running) return;
    r.overhead_running = true;
    cpus_.start_time(r.core, r.overheads[r.overhead_head].work, kOverheadCookie | rank);
}

void Runtime::overhead_done(std::int32_t rank, Time jitter) {
    results_[rank].jitter += jitter;
    Rank& r = ranks_[rank];
    const Overhead o = r.overheads[r.overhead_head++];
    if (r.overhead_head == r.overheads.size()) {
        r.overheads.clear();
        r.overhead_head = 0;
    }
    r.overhead_running = false;
    switch (o.then) {
        case Overhead::Then::Resume:
            r.paid = true;
            r.resume = true;
            advance(rank);
            break;
        case Overhead::Then::PostSend:
            post_send(rank, o.peer, o.tag, o.context, o.bytes, o.owner, o.transfer);
            break;
        case Overhead::Then::PostRecv:
            post_recv(rank, o.peer, o.tag, o.context, o.bytes, o.owner, o.transfer);
            break;
        case Overhead::Then::Complete:
            complete(o.transfer);
            break;
    }
    if (!r.overhead_running && r.overhead_head < r.overheads.size()) {
        r.overhead_running = true;
        cpus_.start_time(r.core, r.overheads[r.overhead_head].work, kOverheadCookie | rank);
    }
}

void Runtime::io_all_arrived(std::int32_t rank) {
    Rank& r = ranks_[rank];
    if (r.waiting == 1 && is_file_op(r.op.kind)) r.io_ready = engine_.now();
}

void Runtime::compute_done(std::uint64_t cookie, Time jitter) {
    if ((cookie & kCollCookie) == 0 && (cookie & kOverheadCookie) != 0) {
        overhead_done(static_cast<std::int32_t>(cookie & ~kOverheadCookie), jitter);
        return;
    }
    if (cookie & kCollCookie) {
        const auto run = static_cast<std::uint32_t>(cookie & ~kCollCookie);
        results_[runs_[run].rank].jitter += jitter;
        StepSlot& front = runs_[run].slots[runs_[run].front];
        if (front.valid && front.reduce == 1) front.reduce = 2;  // else: a buffer copy
        pump(run);
    } else {
        results_[cookie].jitter += jitter;
        Rank& r = ranks_[cookie];
        if (!config_.fresh_send.zero() && r.op.kind == OpKind::Compute)
            r.computed += engine_.now() - r.op_start;
        finish_op(static_cast<std::int32_t>(cookie));
    }
}

std::string Runtime::describe_job(std::uint64_t cookie) const {
    if (cookie & kCollCookie) {
        const std::int32_t rank = runs_[static_cast<std::uint32_t>(cookie & ~kCollCookie)].rank;
        const Op& op = ranks_[rank].op;
        return fmt::format("rank {} in {} (a reduction or copy of its schedule)", rank,
                           op.kind == OpKind::Collective ? stat_name(stat_index(op))
                                                         : std::string(to_string(op.kind)));
    }
    const OpKind kind = ranks_[cookie].op.kind;
    if (kind == OpKind::Compute) return fmt::format("rank {}", cookie);
    return fmt::format("rank {} in {}", cookie, to_string(kind));
}

// ---- collectives ------------------------------------------------------------------------

// Ranks that disagree on a collective call (MPI_Barrier on one, MPI_Allreduce on the other;
// two roots; two counts where every rank passes one block) make a program that cannot run:
// real MPI libraries and SimGrid stop it. Matched silently, they completed together.
void Runtime::check_collective_match(std::int32_t rank, std::uint32_t comm, std::uint32_t seq,
                                     const Op& op) {
    const std::uint64_t key = (static_cast<std::uint64_t>(comm) << 32) | seq;
    auto [it, fresh] =
        coll_checks_.try_emplace(key, CollCheck{op.coll, op.root, op.bytes, rank, 0});
    CollCheck& c = it->second;
    if (!fresh) {
        const bool one_count = op.coll == CollOp::Bcast || op.coll == CollOp::Reduce ||
                               op.coll == CollOp::Allreduce || op.coll == CollOp::Scan ||
                               op.coll == CollOp::Exscan || op.coll == CollOp::ReduceScatterBlock ||
                               op.coll == CollOp::Allgather || op.coll == CollOp::Alltoall;
        std::string what;
        if (c.op != op.coll)
            what = fmt::format("rank {} calls MPI_{} where rank {} called MPI_{}", rank,
                               stat_name(stat_kind(OpKind::Collective, op.coll, false)),
                               c.first_rank, stat_name(stat_kind(OpKind::Collective, c.op, false)));
        else if (is_rooted(op.coll) && c.root != op.root)
            what = fmt::format("rank {} gives root {} where rank {} gave root {}", rank, op.root,
                               c.first_rank, c.root);
        else if (one_count && c.bytes != op.bytes)
            what = fmt::format("rank {} passes {} B where rank {} passed {} B", rank, op.bytes,
                               c.first_rank, c.bytes);
        if (!what.empty())
            throw RankError(rank, fmt::format("ranks disagree on collective call {} on "
                                              "communicator {}: {} (MPI requires the same "
                                              "call on every rank of the communicator)",
                                              seq + 1, op.comm, what));
    }
    if (++c.arrived == comms_[comm].members.size()) coll_checks_.erase(it);
}

std::uint32_t Runtime::start_collective(std::int32_t rank, const Op& op) {
    const std::uint32_t comm = comm_of(rank, op.comm);
    const Comm& c = comms_[comm];
    const auto size = static_cast<std::int32_t>(c.members.size());
    if (op.root < 0 || op.root >= size)
        throw RankError(
            rank, fmt::format("rank {}: {} root {} is out of range for a communicator of {} ranks",
                              rank, to_string(op.coll), op.root, size));
    CollArgs args;
    args.op = op.coll;
    args.rank = c.comm_rank(rank);
    args.size = size;
    args.root = op.root;
    args.bytes = op.bytes;
    args.counts = op.counts;
    std::size_t need = is_pairwise_v(op.coll) ? static_cast<std::size_t>(size) * size
                                              : static_cast<std::size_t>(size);
    if (is_neighbor(op.coll)) {
        if (c.topo == nullptr)
            throw RankError(rank,
                            fmt::format("rank {}: {} on communicator {}, which has no process "
                                        "topology (MPI_Cart_create, MPI_Dist_graph_create*)",
                                        rank, to_string(op.coll), op.comm));
        args.topo = c.topo.get();
        const auto me = static_cast<std::size_t>(args.rank);
        need = (op.coll == CollOp::NeighborAllgatherv ? 1 : c.topo->out[me].size()) +
               c.topo->in[me].size();
    }
    const bool v = is_v(op.coll);
    if (v && (op.counts == nullptr || op.counts->size() != need))
        throw RankError(
            rank, fmt::format("rank {}: {} needs {} counts, got {}", rank, to_string(op.coll), need,
                              op.counts == nullptr ? 0 : op.counts->size()));
    std::uint64_t size_for_choice = op.bytes;
    if (v) {
        std::uint64_t sum = 0;
        for (std::uint64_t x : *op.counts) sum += x;
        size_for_choice = need == 0 ? 0 : sum / need;
    }
    const auto seq = next_seq(rank, op.comm);
    check_collective_match(rank, comm, seq, op);
    ranks_[rank].op_comm = comm;
    ranks_[rank].op_seq = seq;
    ranks_[rank].op_algorithm = nullptr;
    const std::uint32_t user_req = requests_.acquire_made(
        [&] { return Request{.rank = rank, .context = coll_context(comm)}; });
    if (const CollectiveCurve* curve =
            config_.collective_curves.empty() || selection_.forced(op.coll, op.bytes)
                ? nullptr
                : curve_for(comm, op)) {
        // Timed by the library's measured curve from the last member's entry (issue 23).
        auto [key, fresh] = curve_keys_.try_emplace(static_cast<int>(op.coll), AlgorithmKey{});
        if (fresh) {
            const std::string name = fmt::format("{}/measured-curve", to_string(op.coll));
            key->second =
                AlgorithmKey{&algorithm_calls_.try_emplace(name, 0).first->second, intern(name)};
        }
        if (args.rank == 0) ++*key->second.calls;
        ranks_[rank].op_algorithm = key->second.name;
        arrive_global(
            comm, seq,
            GlobalSync::Entry{rank, args.rank, 0, 0, 0, user_req, OpKind::Collective, nullptr},
            false, &op, curve);
        return user_req;
    }
    if (timed_collectives_) {
        arrive_global(
            comm, seq,
            GlobalSync::Entry{rank, args.rank, 0, 0, 0, user_req, OpKind::Collective, nullptr},
            false, &op);
        return user_req;
    }
    const Choice choice = selection_.choose(op.coll, size_for_choice, size);
    if (choice.segment != 0) args.segment = choice.segment;
    auto [key, fresh] =
        algorithm_keys_.try_emplace({static_cast<int>(op.coll), choice.algorithm}, AlgorithmKey{});
    if (fresh) {
        const std::string name = fmt::format("{}/{}", to_string(op.coll), choice.name);
        key->second =
            AlgorithmKey{&algorithm_calls_.try_emplace(name, 0).first->second, intern(name)};
    }
    if (args.rank == 0) ++*key->second.calls;
    ranks_[rank].op_algorithm = key->second.name;
    if (choice.algorithm->global_view()) {
        arrive_global(
            comm, seq,
            GlobalSync::Entry{rank, args.rank, 0, 0, 0, user_req, OpKind::Collective, nullptr},
            false);
        return user_req;
    }
    const bool barrier_cost = op.coll == CollOp::Barrier && config_.barrier_cost > Time::zero();
    const std::uint32_t run = runs_.acquire(CollRun{rank,
                                                    comm,
                                                    static_cast<std::int32_t>(seq),
                                                    0,
                                                    user_req,
                                                    0,
                                                    false,
                                                    false,
                                                    !config_.buffer_copies && !barrier_cost,
                                                    choice.algorithm,
                                                    args,
                                                    {}});
    // The own block's copy first (as MPI libraries do), and with buffer-copies the
    // algorithm's own copy, then the algorithm's steps.
    if (has_copy_rate()) {
        std::uint64_t copy = own_block_copy(args);
        const std::uint64_t before =
            config_.buffer_copies ? choice.algorithm->buffer_copies(args).before : 0;
        if (copy + before > 0) {
            Time t;
            if (config_.buffer_footprint && !config_.copy_curve.empty() && copy > 0)
                // The own block lands in the receive buffer as well.
                t = config_.copy_curve.time_within(copy, landing_buffer(args)) +
                    (before > 0 ? copy_time(before) : Time::zero());
            else
                t = copy_time(copy + before);
            cpus_.start_time(ranks_[rank].core, t, kCollCookie | run);
            return user_req;
        }
    }
    pump(run);
    return user_req;
}

void Runtime::post_more(std::uint32_t ri, std::uint8_t s) {
    for (;;) {
        CollRun& run = runs_[ri];
        StepSlot& slot = run.slots[s];
        if (slot.posted == slot.count) return;
        const StepSlot::Posting t = slot.at(slot.posted);
        if (s != run.front) {  // the previous step is still in flight
            const StepSlot& prev = run.slots[run.front];
            const std::int32_t after = t.after();
            if (after == kAfterStep) return;
            if (after >= 0 && !prev.done(static_cast<std::uint32_t>(after))) return;
        }
        const std::uint32_t transfer = static_cast<std::uint32_t>(s) << 31 | slot.posted++;
        ++slot.pending;
        const Comm& comm = comms_[run.comm];
        const std::int32_t peer = comm.world ? t.peer : comm.members[t.peer];
        const std::int32_t rank = run.rank, tag = run.tag, context = coll_context(run.comm);
        const bool send = t.send();
        const OverheadSpec& cost = send ? config_.send_overhead : config_.post_overhead;
        if (!cost.zero()) {  // posted once the rank's core has paid o_s (or the post cost)
            charge(rank, Overhead{send ? Overhead::Then::PostSend : Overhead::Then::PostRecv,
                                  cost.at(t.bytes), peer, tag, context, t.bytes, ri, transfer});
        } else if (send) {
            post_send(rank, peer, tag, context, t.bytes, ri, transfer);
        } else {
            post_recv(rank, peer, tag, context, t.bytes, ri, transfer);
        }
    }
}

void Runtime::pump(std::uint32_t ri) {
    runs_[ri].posting = true;
    for (;;) {
        CollRun& run = runs_[ri];
        StepSlot& front = run.slots[run.front];
        StepSlot& back = run.slots[run.front ^ 1];
        if (!front.valid) {
            if (back.valid) {  // the next step becomes the older one
                run.front ^= 1;
                continue;
            }
            if (run.ended) {
                if (!run.copied_after) {      // the final local work first: buffer-copies'
                    run.copied_after = true;  // last copy, a barrier's own cost
                    const std::uint64_t after = config_.buffer_copies && has_copy_rate()
                                                    ? run.alg->buffer_copies(run.args).after
                                                    : 0;
                    Time work = after > 0 ? copy_time(after) : Time::zero();
                    if (run.args.op == CollOp::Barrier) work += config_.barrier_cost;
                    if (work > Time::zero()) {
                        cpus_.start_time(ranks_[run.rank].core, work, kCollCookie | ri);
                        break;  // compute_done goes on
                    }
                }
                const std::uint32_t user_req = run.user_req;
                runs_.release(ri);
                complete(user_req);
                return;
            }
            generate(run, front);
            continue;
        }
        const std::uint8_t f = run.front;
        post_ready(ri, f);  // all of it: its predecessor is complete
        {
            CollRun& r = runs_[ri];
            StepSlot& next = r.slots[f ^ 1];
            if (!next.valid && !r.ended) {  // the older step is posted: generate the next
                generate(r, next);
                continue;
            }
            if (next.valid) post_ready(ri, f ^ 1);
        }
        CollRun& r = runs_[ri];
        StepSlot& older = r.slots[f];
        if (older.pending > 0) break;  // transfer_done goes on
        if (older.reduce_bytes > 0 && older.reduce != 2) {
            if (older.reduce == 0) {
                older.reduce = 1;
                start_reduce_work(r.rank, older.reduce_bytes, kCollCookie | ri);
            }
            break;  // compute_done goes on
        }
        older.valid = false;  // complete
    }
    runs_[ri].posting = false;
}

void Runtime::generate(CollRun& run, StepSlot& slot) {
    slot.step.clear();
    if (!run.alg->step(run.args, run.k, slot.step)) {
        run.ended = true;
        return;
    }
    ++run.k;
    slot.valid = true;
    slot.posted = slot.pending = 0;
    slot.reduce = 0;
    slot.count = static_cast<std::uint32_t>(slot.step.transfers.size());
    for (std::uint32_t i = 0; i < slot.count && i < StepSlot::kInline; ++i)
        slot.first[i] = StepSlot::Posting::of(slot.step.transfers[i]);
    slot.reduce_bytes = slot.step.reduce_bytes;
    slot.done_low = 0;
    if (slot.count > 32) slot.done_high.assign(slot.count - 32, false);
}

void Runtime::transfer_done(std::uint32_t ri, std::uint32_t transfer) {
    CollRun& run = runs_[ri];
    StepSlot& slot = run.slots[transfer >> 31];
    slot.set_done(transfer & 0x7fffffffU);
    --slot.pending;
    if (run.posting) return;  // pump goes on
    pump(ri);
}

void Runtime::start_reduce_work(std::int32_t rank, std::uint64_t bytes, std::uint64_t cookie) {
    const std::uint32_t core = ranks_[rank].core;
    if (!config_.reduce_curve.empty())
        cpus_.start_time(core, config_.reduce_curve.time(bytes), cookie);
    else if (!config_.reduce_bandwidth.infinite())
        cpus_.start_time(core, transfer_time(bytes, config_.reduce_bandwidth), cookie);
    else
        cpus_.start(core, bytes * config_.reduce_instructions_per_byte, cookie);
}

Time Runtime::copy_time(std::uint64_t bytes) const {
    return config_.copy_curve.empty() ? transfer_time(bytes, config_.copy_bandwidth)
                                      : config_.copy_curve.time(bytes);
}

// What a rank copies from its send to its receive buffer itself: a gather's or scatter's
// root its own block, every rank of an allgather its block, of an alltoall its block to
// itself.
std::uint64_t Runtime::own_block_copy(const CollArgs& a) const {
    switch (a.op) {
        case CollOp::Gather:
        case CollOp::Gatherv:
        case CollOp::Scatter:
        case CollOp::Scatterv:
            return a.rank == a.root ? a.block(a.rank) : 0;
        case CollOp::Allgather:
        case CollOp::Allgatherv:
            return a.block(a.rank);
        case CollOp::Alltoall:
        case CollOp::Alltoallv:
        case CollOp::Alltoallw:
            return a.block(a.rank, a.rank);
        default:
            return 0;
    }
}

// The receive buffer a collective's message, or a rank's copy of its own block, lands in
// (RuntimeConfig::buffer_footprint), by the receiving rank's call: a bcast's, reduce's or
// allreduce's buffer; a gather's root the whole gathered buffer; an allgather's every rank the
// whole; an alltoall's the size blocks it receives; a scatter's receiver its block. 0 (the
// message's own size): a receive of the program's own, and the other operations.
std::uint64_t Runtime::landing_buffer(std::uint32_t recv_req) const {
    const std::uint32_t owner = requests_[recv_req].owner;
    return owner == kNil ? 0 : landing_buffer(runs_[owner].args);
}

std::uint64_t Runtime::landing_buffer(const CollArgs& a) {
    switch (a.op) {
        case CollOp::Bcast:
        case CollOp::Reduce:
        case CollOp::Allreduce:
            return a.bytes;
        case CollOp::Gather:
        case CollOp::Gatherv:
            return a.rank == a.root ? data_space(a) : a.block(a.rank);
        case CollOp::Scatter:
        case CollOp::Scatterv:
            return a.block(a.rank);
        case CollOp::Allgather:
        case CollOp::Allgatherv:
            return data_space(a);
        case CollOp::Alltoall:
            return a.bytes * static_cast<std::uint64_t>(a.size);
        default:
            return 0;
    }
}

std::uint32_t Runtime::start_comm_create(std::int32_t rank, const Op& op) {
    const std::uint32_t comm = comm_of(rank, op.comm);
    const auto seq = next_seq(rank, op.comm);
    ranks_[rank].op_comm = comm;
    ranks_[rank].op_seq = seq;
    const std::uint32_t req = requests_.acquire_made(
        [&] { return Request{.rank = rank, .context = coll_context(comm)}; });
    const bool split = op.kind == OpKind::CommSplit;
    const std::int32_t comm_rank = comms_[comm].comm_rank(rank);
    std::int32_t color = split ? op.color : 0;
    if (creates_topology(op.kind)) {
        const auto size = static_cast<std::int64_t>(comms_[comm].members.size());
        auto bad = [&](const std::string& what) {
            throw RankError(rank,
                            fmt::format("rank {}: MPI_{}: {}", rank, to_string(op.kind), what));
        };
        TopoSpec t;
        if (op.counts == nullptr) bad("no topology arguments");
        if (const std::string err = decode_topo_spec(op.kind, *op.counts, t); !err.empty())
            bad(err);
        if (op.kind == OpKind::CartCreate) {
            if (t.dims.empty()) bad("no dimensions");
            if (t.periods.size() != t.dims.size())
                bad(fmt::format("{} dimensions but {} periods", t.dims.size(), t.periods.size()));
            std::int64_t n = 1;
            for (const std::int32_t d : t.dims) {
                if (d <= 0) bad(fmt::format("dimension of size {}", d));
                n *= d;
                if (n > size)
                    bad(fmt::format("the grid has more ranks than the communicator's {}", size));
            }
            if (comm_rank >= n) color = kUndefined;  // MPI_COMM_NULL
        } else {
            if (op.kind == OpKind::DistGraphCreate && t.sources.size() != t.destinations.size())
                bad(fmt::format("{} edge sources but {} destinations", t.sources.size(),
                                t.destinations.size()));
            for (const auto* list : {&t.sources, &t.destinations})
                for (const std::int32_t x : *list)
                    if (x < 0 || x >= size)
                        bad(fmt::format("neighbour {} is outside the communicator of {} ranks", x,
                                        size));
        }
    }
    arrive_global(comm, seq,
                  GlobalSync::Entry{rank, comm_rank, color, split ? op.key : comm_rank, op.newcomm,
                                    req, op.kind, op.counts},
                  true);
    return req;
}

const CollectiveCurve* Runtime::curve_for(std::uint32_t comm, const Op& op) {
    if (op.nonblocking || op.counts != nullptr) return nullptr;
    const auto& members = comms_[comm].members;
    for (const CollectiveCurveRule& r : config_.collective_curves) {
        if (r.op != op.coll || r.ranks != members.size()) continue;
        // The members' placement, once per communicator: bit 2 all on one node, bit 4 each on
        // a node of its own (bit 1: known).
        if (comm_placement_.size() <= comm) comm_placement_.resize(comm + 1, 0);
        std::uint8_t& placement = comm_placement_[comm];
        if (placement == 0) {
            std::vector<std::uint32_t> nodes;
            nodes.reserve(members.size());
            for (const std::int32_t m : members) nodes.push_back(ranks_[m].where.node);
            std::sort(nodes.begin(), nodes.end());
            placement = static_cast<std::uint8_t>(
                1 | (nodes.front() == nodes.back() ? 2 : 0) |
                (std::adjacent_find(nodes.begin(), nodes.end()) == nodes.end() ? 4 : 0));
        }
        if ((placement & (r.scope == CurveScope::IntraNode ? 2 : 4)) != 0) return r.curve.get();
    }
    return nullptr;
}

void Runtime::arrive_global(std::uint32_t comm, std::uint32_t seq, GlobalSync::Entry entry,
                            bool creates_comm, const Op* timed, const CollectiveCurve* curve) {
    GlobalSync& sync = syncs_[{comm, seq}];
    sync.entries.push_back(entry);
    if (curve != nullptr) sync.curve = curve;
    if (timed != nullptr) {
        sync.timed = true;
        sync.op = timed->coll;
        sync.bytes = std::max(sync.bytes, collective_bytes(entry.world_rank, *timed));
        sync.root = timed->root;
        sync.counts = timed->counts;
    }
    if (++sync.arrived < comms_[comm].members.size()) return;
    std::vector<GlobalSync::Entry> entries = std::move(sync.entries);
    const bool is_timed = sync.timed;
    const CollectiveCurve* const curve_of_call = sync.curve;
    const CollOp op = sync.op;
    const std::uint64_t bytes = sync.bytes;
    CollArgs args;
    args.op = sync.op;
    args.size = static_cast<std::int32_t>(comms_[comm].members.size());
    args.root = sync.root;
    args.bytes = bytes;
    args.counts = sync.counts;
    args.topo = comms_[comm].topo.get();
    syncs_.erase({comm, seq});
    // Every member waited for the last one to enter (wait accounting in record()).
    for (const auto& e : entries) requests_[e.req].ready = engine_.now();
    if (is_timed) {
        std::vector<topo::VertexId> sockets;
        sockets.reserve(comms_[comm].members.size());
        for (const std::int32_t m : comms_[comm].members) sockets.push_back(ranks_[m].where.vertex);
        Time t = curve_of_call != nullptr ? curve_of_call->at(bytes) + curve_peer_setup(comm)
                                          : network_.collective_time(to_string(op), sockets, bytes,
                                                                     collective_volume(args));
        if (t > Time::zero()) {
            const std::uint32_t pending = timed_.acquire(std::move(entries));
            engine_.schedule(engine_.now() + t, timer_id_, kTimedKind, pending);
            return;
        }
    }
    if (creates_comm) {
        // Group by color (ascending), order by (key, rank in the parent): MPI_Comm_split.
        std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
            if (a.color != b.color) return a.color < b.color;
            if (a.key != b.key) return a.key < b.key;
            return a.comm_rank < b.comm_rank;
        });
        for (std::size_t i = 0; i < entries.size();) {
            std::size_t j = i;
            while (j < entries.size() && entries[j].color == entries[i].color) ++j;
            std::uint32_t id = kNil;
            if (entries[i].color != kUndefined) {
                Comm c;
                for (std::size_t k = i; k < j; ++k) {
                    c.rank_of.emplace(entries[k].world_rank,
                                      static_cast<std::int32_t>(c.members.size()));
                    c.members.push_back(entries[k].world_rank);
                }
                if (creates_topology(entries[i].kind)) c.topo = make_topology(&entries[i], j - i);
                comms_.push_back(std::move(c));
                id = static_cast<std::uint32_t>(comms_.size() - 1);
            }
            for (std::size_t k = i; k < j; ++k)
                set_comm(ranks_[entries[k].world_rank], entries[k].newcomm, id);
            i = j;
        }
    }
    complete_global(entries);
}

std::shared_ptr<const Topology> Runtime::make_topology(const GlobalSync::Entry* e,
                                                       std::size_t n) const {
    auto bad = [&](const std::string& what) {
        throw InputError("app", 0, fmt::format("MPI_{}: {}", to_string(e[0].kind), what));
    };
    for (std::size_t k = 0; k < n; ++k)
        if (e[k].kind != e[0].kind)
            bad(fmt::format("rank {} calls MPI_{} in the same collective call", e[k].world_rank,
                            to_string(e[k].kind)));
    std::vector<TopoSpec> specs(n);
    for (std::size_t k = 0; k < n; ++k)
        decode_topo_spec(e[k].kind, *e[k].spec, specs[k]);  // checked when the rank entered
    if (e[0].kind == OpKind::CartCreate) {
        for (std::size_t k = 1; k < n; ++k)
            if (specs[k].dims != specs[0].dims || specs[k].periods != specs[0].periods)
                bad(fmt::format("rank {} and rank {} pass different dims or periods",
                                e[0].world_rank, e[k].world_rank));
        return std::make_shared<Topology>(cart_topology(specs[0].dims, specs[0].periods));
    }
    // Members keep their parent ranks (no reordering, every member in): parent rank k is k.
    std::vector<std::vector<std::int32_t>> sources(n), destinations(n);
    if (e[0].kind == OpKind::DistGraphCreateAdjacent) {
        for (std::size_t k = 0; k < n; ++k) {
            sources[k] = specs[k].sources;
            destinations[k] = specs[k].destinations;
        }
    } else {  // the edges in the order of the ranks naming them, then of their lists
        for (std::size_t k = 0; k < n; ++k)
            for (std::size_t i = 0; i < specs[k].sources.size(); ++i) {
                const std::int32_t from = specs[k].sources[i], to = specs[k].destinations[i];
                destinations[static_cast<std::size_t>(from)].push_back(to);
                sources[static_cast<std::size_t>(to)].push_back(from);
            }
    }
    auto t = std::make_shared<Topology>();
    if (const std::string err = graph_topology(sources, destinations, *t); !err.empty()) bad(err);
    return t;
}

void Runtime::complete_global(std::vector<GlobalSync::Entry>& entries) {
    // Complete in rank order: deterministic, whatever the arrival order was.
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.world_rank < b.world_rank; });
    for (const auto& e : entries) complete(e.req);
}

void Runtime::timed_done(std::uint32_t pending) {
    std::vector<GlobalSync::Entry> entries = std::move(timed_[pending]);
    timed_[pending].clear();
    timed_.release(pending);
    complete_global(entries);
}

// ---- the rank's program -----------------------------------------------------------------

void Runtime::reused_request(std::int32_t rank, std::uint32_t handle) const {
    throw RankError(rank,
                    fmt::format("rank {} reuses request {} before waiting for it", rank, handle));
}

void Runtime::bad_request(std::int32_t rank, std::uint32_t handle) const {
    throw RankError(
        rank, fmt::format("rank {} waits for request {} that was never started", rank, handle));
}

void Runtime::flush_stats() {
    for (int kind = 0; kind < kStatKinds; ++kind) {
        std::vector<OpStats>& column = stat_columns_[static_cast<std::size_t>(kind)];
        for (std::size_t rank = 0; rank < column.size(); ++rank) {
            OpStats& from = column[rank];
            if (from.count == 0) continue;  // a table holds the kinds its rank used
            OpStats& to = results_[rank].ops[kind];
            to.count += from.count;
            to.time += from.time;
            to.bytes += from.bytes;
            from = OpStats{};
        }
    }
}

void Runtime::record(std::int32_t rank) {
    Rank& r = ranks_[rank];
    const Op& op = r.op;
    const int kind = stat_index(op);
    OpStats& st = stat_entry(kind, rank);
    ++st.count;
    const Time now = engine_.now();
    st.time += now - r.op_start;
    const std::uint64_t bytes_before = st.bytes;
    Time ready = r.op_start;  // the latest time a peer posted what this op waited for
    std::int32_t peer = -1;
    auto release = [&](std::uint32_t req, bool count_bytes) {
        const Request& q = requests_[req];
        if (count_bytes) st.bytes += q.bytes;
        ready = max(ready, q.ready);
        requests_.release(req);
    };
    switch (op.kind) {
        case OpKind::Send:
        case OpKind::Recv:
            peer = requests_[r.blocking[0]].peer;
            release(r.blocking[0], true);
            break;
        case OpKind::Sendrecv:
            peer = requests_[r.blocking[0]].peer;
            release(r.blocking[0], true);
            release(r.blocking[1], true);
            break;
        case OpKind::Collective:
            st.bytes += collective_bytes(rank, op);
            release(r.blocking[0], false);
            break;
        case OpKind::CommDup:
        case OpKind::CommSplit:
        case OpKind::CartCreate:
        case OpKind::DistGraphCreateAdjacent:
        case OpKind::DistGraphCreate:
            if (r.comm_stage != 0) {  // modelled: the agreement's request too
                release(r.blocking[1], false);
                r.comm_stage = 0;
            }
            release(r.blocking[0], false);
            break;
        case OpKind::CommFree:  // local: no request
            break;
        case OpKind::FileOpen:
        case OpKind::FileClose:
        case OpKind::FileSync:
            ready = r.io_ready;  // collective: the last member's arrival
            break;
        case OpKind::FileWrite:
        case OpKind::FileWriteAt:
        case OpKind::FileWriteAll:
        case OpKind::FileWriteAtAll:
            ready = r.io_ready;
            st.bytes += r.io_bytes;
            results_[rank].io_bytes_written += r.io_bytes;
            break;
        case OpKind::FileRead:
        case OpKind::FileReadAt:
        case OpKind::FileReadAll:
        case OpKind::FileReadAtAll:
            ready = r.io_ready;
            st.bytes += r.io_bytes;
            results_[rank].io_bytes_read += r.io_bytes;
            break;
        case OpKind::Wait:
            peer = requests_[r.handles[op.handle]].peer;
            release(r.handles[op.handle], false);
            r.handles[op.handle] = kNil;
            break;
        case OpKind::Waitall:
            for (std::uint32_t h = op.handle; h < op.handle + op.count; ++h) {
                release(r.handles[h], false);
                r.handles[h] = kNil;
            }
            break;
        default:
            break;
    }
    if (observer_ != nullptr) {
        const Time wait = min(max(ready, r.op_start), now) - r.op_start;
        observe(rank, kind, wait, st.bytes - bytes_before, peer);
    }
}

std::uint64_t Runtime::collective_bytes(std::int32_t rank, const Op& op) const {
    if (op.counts == nullptr) return op.bytes;
    // v-collectives: what this rank passes (its block, or its row of the alltoallv matrix).
    const Comm& c = comms_[ranks_[rank].op_comm];
    const auto me = static_cast<std::size_t>(c.comm_rank(rank));
    const auto& counts = *op.counts;
    if (is_neighbor(op.coll)) {  // its send block, or its blocks to its out-neighbours
        if (counts.empty()) return 0;
        if (op.coll == CollOp::NeighborAllgatherv || c.topo == nullptr) return counts[0];
        std::uint64_t sum = 0;
        for (std::size_t s = 0; s < c.topo->out[me].size() && s < counts.size(); ++s)
            sum += counts[s];
        return sum;
    }
    if (!is_pairwise_v(op.coll)) return me < counts.size() ? counts[me] : 0;
    const std::size_t n = c.members.size();
    std::uint64_t sum = 0;
    for (std::size_t j = 0; j < n && me * n + j < counts.size(); ++j) sum += counts[me * n + j];
    return sum;
}

void Runtime::observe(std::int32_t rank, int kind, Time wait, std::uint64_t bytes,
                      std::int32_t peer) {
    const Rank& r = ranks_[rank];
    OpEvent e;
    e.rank = rank;
    e.kind = kind;
    e.start = r.op_start;
    e.end = engine_.now();
    e.wait = wait;
    e.bytes = bytes;
    e.peer = peer < 0 ? -1 : peer;
    if (r.op.kind == OpKind::Collective || creates_comm(r.op.kind)) {
        e.comm = r.op_comm;
        e.seq = r.op_seq;
        if (r.op_comm < comms_.size())
            e.comm_size = static_cast<std::uint32_t>(comms_[r.op_comm].members.size());
        if (r.op.kind == OpKind::Collective) e.algorithm = r.op_algorithm;
    }
    observer_->op_done(e);
}

void Runtime::set_apps(const std::vector<std::uint32_t>& sizes) {
    if (sizes.size() <= 1) return;  // one application: the world is everyone
    std::size_t total = 0;
    for (auto n : sizes) total += n;
    if (total != ranks_.size())
        throw std::logic_error("set_apps: the application sizes do not add up to the ranks");
    comms_.clear();
    std::int32_t next = 0;
    for (std::uint32_t n : sizes) {
        Comm c;
        for (std::uint32_t i = 0; i < n; ++i) {
            c.rank_of.emplace(next + static_cast<std::int32_t>(i), static_cast<std::int32_t>(i));
            c.members.push_back(next + static_cast<std::int32_t>(i));
        }
        const auto id = static_cast<std::uint32_t>(comms_.size());
        for (std::uint32_t i = 0; i < n; ++i)
            set_comm(ranks_[static_cast<std::size_t>(next) + i], 0, id);
        comms_.push_back(std::move(c));
        next += static_cast<std::int32_t>(n);
    }
}

void Runtime::finish_op(std::int32_t rank) {
    if (ranks_[rank].comm_stage != 0 && !comm_create_step(rank)) return;
    record(rank);
    advance(rank);
}

namespace {
constexpr std::uint64_t kCommAgreementBytes = 8;  // a context id, as MPI libraries agree on one
}

// config_.first_topology if the rank's current operation is its first creation of a
// communicator with a topology (counted), else zero.
Time Runtime::first_topology(std::int32_t rank) {
    Rank& r = ranks_[rank];
    const OpKind k = r.op.kind;
    if (config_.first_topology == Time::zero() || r.made_topology ||
        (k != OpKind::CartCreate && k != OpKind::DistGraphCreate &&
         k != OpKind::DistGraphCreateAdjacent))
        return Time::zero();
    r.made_topology = true;
    return config_.first_topology;
}

bool Runtime::comm_create_step(std::int32_t rank) {
    Rank& r = ranks_[rank];
    auto block_on = [&](std::uint32_t req) {
        if (requests_[req].done) return false;
        requests_[req].waited = true;
        r.waiting = 1;
        return true;
    };
    for (;;) {
        switch (r.comm_stage) {
            case 0: {
                Op agree;
                agree.kind = OpKind::Collective;
                agree.coll = CollOp::Allreduce;
                agree.bytes = kCommAgreementBytes;
                agree.comm = r.op.comm;
                r.comm_stage = 1;
                r.blocking[1] = start_collective(rank, agree);
                if (block_on(r.blocking[1])) return false;
                break;
            }
            case 1: {
                r.comm_stage = 2;
                const Time local = config_.comm_create_local + first_topology(rank);
                if (local > Time::zero()) {
                    cpus_.start_time(r.core, local, static_cast<std::uint64_t>(rank));
                    return false;
                }
                break;
            }
            case 2:
                r.comm_stage = 3;
                r.blocking[0] = start_comm_create(rank, r.op);
                if (block_on(r.blocking[0])) return false;
                break;
            default:
                return true;
        }
    }
}

void Runtime::advance(std::int32_t rank) {
    Rank& r = ranks_[rank];
    for (;;) {
        if (r.resume) {  // the current operation's posting cost is paid: go on with it
            r.resume = false;
        } else {
            if (!program_.next(rank, r.op)) {
                if (r.computing) enter_mpi(rank);  // MPI_Finalize progresses
                r.finished = true;
                results_[rank].finish = engine_.now();
                if (++finished_ == ranks_.size() && io_ != nullptr) io_->programs_done();
                return;
            }
            r.op_start = engine_.now();
            if (r.computing && r.op.kind != OpKind::Compute) enter_mpi(rank);
            if (!config_.fresh_send.zero() && r.op.kind != OpKind::Compute) {
                r.computed_before = r.computed;
                if (sends_in_bulk(r.op)) r.computed = Time::zero();
            }
        }
        const Op& op = r.op;
        // The posting cost of a point-to-point call (o_s, the post cost) on the rank's core:
        // true if it was charged now (the call goes on when it is paid), false if it is paid.
        auto pay = [&](const OverheadSpec& a, std::uint64_t a_bytes, const OverheadSpec& b,
                       std::uint64_t b_bytes) {
            if (a.zero() && b.zero()) return false;
            if (r.paid) {
                r.paid = false;
                return false;
            }
            charge(rank, Overhead{Overhead::Then::Resume, a.at(a_bytes) + b.at(b_bytes)});
            return true;
        };
        const OverheadSpec none;
        auto wait_for = [&](std::uint32_t req) {
            if (requests_[req].done) return 0u;
            requests_[req].waited = true;
            return 1u;
        };
        auto set_handle = [&](std::uint32_t req) {
            if (op.handle >= r.handles.size()) r.handles.resize(op.handle + 1, kNil);
            if (r.handles[op.handle] != kNil) [[unlikely]]
                reused_request(rank, op.handle);
            r.handles[op.handle] = req;
        };
        auto count_nonblocking = [&](std::uint64_t bytes) {
            const int kind = stat_index(op);
            OpStats& st = stat_entry(kind, rank);
            ++st.count;
            st.bytes += bytes;
            if (observer_ != nullptr) observe(rank, kind, Time::zero(), bytes, -1);
        };
        switch (op.kind) {
            case OpKind::Compute:
            case OpKind::Unmodeled:
                if (op.instructions == 0) break;
                if (op.kind == OpKind::Compute && config_.progress_in_mpi) r.computing = true;
                cpus_.start(r.core, op.instructions, static_cast<std::uint64_t>(rank));
                return;
            case OpKind::Send: {
                if (pay(config_.send_overhead, op.bytes, none, 0)) return;
                const std::uint32_t comm = comm_of(rank, op.comm);
                r.blocking[0] =
                    post_send(rank, world_peer(rank, comm, op.peer, false), op.tag,
                              p2p_context(comm), op.bytes, kNil, 0, fresh_delay(rank, op.bytes));
                r.waiting = wait_for(r.blocking[0]);
                return;
            }
            case OpKind::Recv: {
                if (pay(none, 0, config_.post_overhead, op.bytes)) return;
                const std::uint32_t comm = comm_of(rank, op.comm);
                r.blocking[0] = post_recv(rank, world_peer(rank, comm, op.peer, true), op.tag,
                                          p2p_context(comm), op.bytes);
                r.waiting = wait_for(r.blocking[0]);
                if (r.waiting != 0) return;
                break;
            }
            case OpKind::Sendrecv: {
                if (pay(config_.send_overhead, op.bytes, config_.post_overhead, op.bytes2)) return;
                const std::uint32_t comm = comm_of(rank, op.comm);
                r.blocking[0] =
                    post_send(rank, world_peer(rank, comm, op.peer, false), op.tag,
                              p2p_context(comm), op.bytes, kNil, 0, fresh_delay(rank, op.bytes));
                r.blocking[1] = post_recv(rank, world_peer(rank, comm, op.peer2, true), op.tag2,
                                          p2p_context(comm), op.bytes2);
                r.waiting = wait_for(r.blocking[0]) + wait_for(r.blocking[1]);
                if (r.waiting != 0) return;
                break;
            }
            case OpKind::Isend: {
                if (pay(config_.send_overhead, op.bytes, none, 0)) return;
                const std::uint32_t comm = comm_of(rank, op.comm);
                set_handle(post_send(rank, world_peer(rank, comm, op.peer, false), op.tag,
                                     p2p_context(comm), op.bytes, kNil, 0,
                                     fresh_delay(rank, op.bytes)));
                count_nonblocking(op.bytes);
                continue;
            }
            case OpKind::Irecv: {
                if (pay(none, 0, config_.post_overhead, op.bytes)) return;
                const std::uint32_t comm = comm_of(rank, op.comm);
                set_handle(post_recv(rank, world_peer(rank, comm, op.peer, true), op.tag,
                                     p2p_context(comm), op.bytes));
                count_nonblocking(0);
                continue;
            }
            case OpKind::Wait:
                r.waiting = wait_for(handle_request(rank, op.handle));
                if (r.waiting != 0) return;
                break;
            case OpKind::Cancel:  // local and immediate; the request's wait completes it
                cancel(rank, handle_request(rank, op.handle));
                break;
            case OpKind::CommFree:
                // Local: MPI libraries free a communicator without its other members (issue
                // 57: an agreement made it 5-16 us against 1.4-4.5 us recorded). Its cost, if
                // the model gives one, on the rank's core; the CPU job's end finishes it.
                if (config_.comm_free > Time::zero()) {
                    cpus_.start_time(r.core, config_.comm_free, static_cast<std::uint64_t>(rank));
                    return;
                }
                break;
            case OpKind::Waitall: {
                std::uint32_t n = 0;
                for (std::uint32_t h = op.handle; h < op.handle + op.count; ++h)
                    n += wait_for(handle_request(rank, h));
                r.waiting = n;
                if (n != 0) return;
                break;
            }
            case OpKind::Collective: {
                const std::uint32_t req = start_collective(rank, op);
                if (op.nonblocking) {
                    set_handle(req);
                    count_nonblocking(collective_bytes(rank, op));
                    continue;
                }
                r.blocking[0] = req;
                r.waiting = wait_for(req);
                if (r.waiting != 0) return;
                break;
            }
            case OpKind::CommDup:
            case OpKind::CommSplit:
            case OpKind::CartCreate:
            case OpKind::DistGraphCreateAdjacent:
            case OpKind::DistGraphCreate: {
                if (config_.comm_create_modelled) {
                    r.comm_stage = 0;
                    if (!comm_create_step(rank)) return;
                    break;
                }
                r.blocking[0] = start_comm_create(rank, op);
                r.waiting = wait_for(r.blocking[0]);
                if (r.waiting != 0) return;
                break;
            }
            default: {  // MPI-IO
                if (io_ == nullptr)
                    throw RankError(
                        rank,
                        fmt::format("rank {} calls MPI_{} but the model has no file system (add "
                                    "<io-server> elements and a <file-system>)",
                                    rank, to_string(op.kind)));
                const std::vector<std::int32_t>* members = nullptr;
                if (op.kind == OpKind::FileOpen) members = &comms_[comm_of(rank, op.comm)].members;
                r.io_bytes = 0;
                r.io_ready = r.op_start;
                r.waiting = 1;
                r.in_io_start = true;
                io_->start(rank, op, members);
                r.in_io_start = false;
                return;
            }
        }
        record(rank);  // completed without blocking
    }
}

std::vector<std::string> Runtime::blocked_ranks() const {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < ranks_.size(); ++i) {
        const Rank& r = ranks_[i];
        if (r.finished) continue;
        const Op& op = r.op;
        switch (op.kind) {
            case OpKind::Send:
            case OpKind::Isend:
                out.push_back(fmt::format("rank {} in {} to rank {} (tag {}, {} B)", i,
                                          to_string(op.kind), op.peer, op.tag, op.bytes));
                break;
            case OpKind::Recv:
            case OpKind::Irecv:
                out.push_back(
                    fmt::format("rank {} in {} from {} (tag {})", i, to_string(op.kind),
                                op.peer == kAnySource ? std::string("any rank")
                                                      : fmt::format("rank {}", op.peer),
                                op.tag == kAnyTag ? std::string("any") : std::to_string(op.tag)));
                break;
            case OpKind::Sendrecv:
                out.push_back(
                    fmt::format("rank {} in Sendrecv (send to rank {}, receive from rank {})", i,
                                op.peer, op.peer2));
                break;
            case OpKind::Collective:
                out.push_back(fmt::format("rank {} in {} on communicator {}", i,
                                          stat_name(stat_index(op)), op.comm));
                break;
            default: {
                std::string what = fmt::format("rank {} in {}", i, to_string(op.kind));
                if (is_file_op(op.kind) && io_ != nullptr) {
                    const std::string more = io_->describe(static_cast<std::int32_t>(i));
                    if (!more.empty()) what += " (" + more + ")";
                }
                out.push_back(what);
            }
        }
    }
    return out;
}

}  // namespace clustersim::mpi
