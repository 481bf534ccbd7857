// Point-to-point protocols: eager and rendezvous messages (post_send, post_recv, the
// network's callbacks), what a match does (bind), and the costs a message meets on its way
// to the network: lazy peer set-up, connection set-up, fresh and cold send buffers.
#include "mpi/runtime.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "collectives/rank_error.hpp"
#include "simulator/error.hpp"

namespace clustersim::mpi {

std::uint32_t Runtime::post_send(std::int32_t rank, std::int32_t dst, std::int32_t tag,
                                 std::int32_t context, std::uint64_t bytes, std::uint32_t owner,
                                 std::uint32_t transfer, Time delay) {
    const std::uint32_t req = match_.requests.acquire_made([&] {
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
    const std::uint64_t seq = match_.pairs[slot].next_send++;
    const bool eager = bytes <= config_.eager_threshold;
    const std::uint32_t m = match_.msgs.acquire_made([&] {
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
    match_.requests[req].msg = m;
    // Rendezvous: the receiver's pull (after the clear-to-send) is what a fresh buffer slows.
    if (!eager) match_.msgs[m].pull = delay;
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
    const Msg& msg = match_.msgs[m];
    if (msg.src == msg.dst) return true;
    const auto lo = static_cast<std::uint32_t>(std::min(msg.src, msg.dst));
    const auto hi = static_cast<std::uint32_t>(std::max(msg.src, msg.dst));
    using State = decltype(connections_)::State;
    const State state = connections_.send((static_cast<std::uint64_t>(lo) << 32) | hi, {m, delay});
    if (state == State::Ready) return true;
    if (state == State::Start) {  // the pair's first message: its sender connects
        const std::uint32_t h =
            match_.msgs.acquire(Msg{MsgKind::Connect, msg.src, msg.dst, 0, 0, 0,
                                    std::uint64_t{2} * config_.connect_round_trips - 1, kNil, kNil,
                                    true, true, engine_.now(), msg.pair});
        transmit(h);
    }
    return false;
}

void Runtime::connection_ready(std::uint32_t m) {
    const Msg& msg = match_.msgs[m];
    const auto lo = static_cast<std::uint32_t>(std::min(msg.src, msg.dst));
    const auto hi = static_cast<std::uint32_t>(std::max(msg.src, msg.dst));
    match_.msgs.release(m);
    const std::vector<std::pair<std::uint32_t, Time>> waiting =
        connections_.connected((static_cast<std::uint64_t>(lo) << 32) | hi);
    const Time now = engine_.now();
    for (const auto& [w, delay] : waiting) hand_over(w, now + delay);
}

void Runtime::transmit(std::uint32_t m) {
    const Msg& msg = match_.msgs[m];
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
    const std::uint32_t req = match_.requests.acquire_made([&] {
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
    match_.requests[req].order = r.posts++;
    const std::uint32_t m =
        match_.post_recv(r.queues, req, src == kAnySource ? kNil : pair_slot(src, rank));
    if (m != kNil) bind(m, req);
    return req;
}

void Runtime::bind(std::uint32_t m, std::uint32_t req) {
    Msg& msg = match_.msgs[m];
    msg.recv_req = req;
    match_.requests[req].ready = msg.posted;  // the receive waited until the send was posted
    if (msg.kind == MsgKind::Rts && !msg.send_done)
        match_.requests[msg.send_req].ready = engine_.now();  // rendezvous: until the receive
    match_.requests[req].bytes = msg.bytes;
    match_.requests[req].peer = msg.src;
    match_.requests[req].tag = msg.tag;
    if (msg.kind == MsgKind::Eager) {
        msg.recv_done = true;
        maybe_free_msg(m);
        complete(req);
    } else if (msg.context >= 0 && ranks_[msg.dst].computing) {
        // progress_in_mpi: at its next MPI call (a one-sided message, context < 0, lands
        // whatever its target's program does)
        ranks_[msg.dst].deferred_cts.push_back(m);
    } else {  // Rts: clear the sender to send
        send_cts(m);
    }
}

void Runtime::send_cts(std::uint32_t m) {
    Msg& msg = match_.msgs[m];
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
    Rank& r = ranks_[match_.msgs[m].dst];
    match_.arrive_in_order(r.early, m, [this](std::uint32_t next) { match_arrival(next); });
}

void Runtime::match_arrival(std::uint32_t m) {
    if (match_.msgs[m].cancelled) {  // withdrawn by its sender: nothing receives it
        match_.msgs[m].recv_done = true;
        maybe_free_msg(m);
        return;
    }
    const std::uint32_t req = match_.arrive(ranks_[match_.msgs[m].dst].queues, m);
    if (req != kNil) bind(m, req);
}

void Runtime::message_injected(std::uint64_t cookie) {
    const auto m = static_cast<std::uint32_t>(cookie);
    match_.msgs[m].send_done = true;
    const std::uint32_t req = match_.msgs[m].send_req;
    maybe_free_msg(m);
    complete(req);
}

void Runtime::message_delivered(std::uint64_t cookie) {
    const auto m = static_cast<std::uint32_t>(cookie);
    Msg& msg = match_.msgs[m];
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
    const Msg& msg = match_.msgs[m];
    const std::uint64_t buffer = config_.buffer_footprint ? landing_buffer(msg.recv_req) : 0;
    if (buffer > msg.bytes)
        network_.send_within(ranks_[msg.src].where.vertex, ranks_[msg.dst].where.vertex,
                             msg.bytes + config_.envelope_bytes, m, true, msg.src, msg.dst,
                             buffer + config_.envelope_bytes);
    else
        network_.send_between(ranks_[msg.src].where.vertex, ranks_[msg.dst].where.vertex,
                              msg.bytes + config_.envelope_bytes, m, true, msg.src, msg.dst);
}

}  // namespace clustersim::mpi
