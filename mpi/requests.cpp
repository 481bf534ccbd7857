// Requests: completion (with o_r and LogGP's gap), cancellation, the per-message software
// costs on a rank's core, and the CPU's and I/O system's completions.
#include "mpi/runtime.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "collectives/rank_error.hpp"
#include "simulator/error.hpp"

namespace clustersim::mpi {

void Runtime::cancel(std::int32_t rank, std::uint32_t req) {
    Request& q = match_.requests[req];
    if (!q.is_send) {
        if (q.done) return;  // received already: the cancel fails, the wait completes it
        if (match_.withdraw_recv(ranks_[rank].queues, req,
                                 q.peer == kAnySource ? kNil : pair_slot(q.peer, rank))) {
            q.bytes = 0;  // never matched: withdrawn, receives nothing
            q.done = true;
        }
        return;  // else matched (a rendezvous in progress): the cancel fails
    }
    // A send can be withdrawn while no receive matched its message. A released message, or
    // its slot taken by another send, means it was matched and delivered.
    const std::uint32_t m = q.msg;
    if (m == kNil || match_.msgs[m].send_req != req || match_.msgs[m].recv_req != kNil ||
        match_.msgs[m].recv_done || match_.msgs[m].cancelled)
        return;
    Msg& msg = match_.msgs[m];
    msg.cancelled = true;
    if (q.done) results_[rank].bytes_sent -= q.bytes;  // eager, injected already: not sent
    q.bytes = 0;
    if (msg.kind == MsgKind::Rts) {  // the data never goes: the send is complete now
        msg.send_done = true;
        q.done = true;
    }
    // Arrived already and waiting unmatched at the receiver: take it out of the queues.
    if (match_.withdraw_unexpected(ranks_[msg.dst].queues, m)) {
        msg.recv_done = true;
        maybe_free_msg(m);
    }
}

void Runtime::maybe_free_msg(std::uint32_t m) {
    if (match_.msgs[m].send_done && match_.msgs[m].recv_done) match_.msgs.release(m);
}

void Runtime::complete(std::uint32_t req) {
    Request& q = match_.requests[req];
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
    if (q.owner != kNil) {  // an internal transfer (a program's own request has none)
        const std::uint32_t owner = q.owner, transfer = q.transfer;
        const bool arrived = !q.is_send;
        const std::int32_t tag = q.tag;
        match_.requests.release(req);
        if (owner != kRmaOwner)
            transfer_done(owner, transfer);  // a collective's: its run goes on
        else if (arrived)
            rma_arrived(transfer, tag);  // one-sided: a landed message moves its operation on
        return;
    }
    if (!q.waited) return;
    Rank& r = ranks_[q.rank];
    if (--r.waiting == 0) finish_op(q.rank);
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
    if ((cookie & (kCollCookie | kOverheadCookie)) == 0 && (cookie & kRmaCookie) != 0) {
        const auto id = static_cast<std::uint32_t>(cookie & ~kRmaCookie);
        results_[rma_ops_[id].target].jitter += jitter;
        rma_reduced(id);
        return;
    }
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
    if ((cookie & (kCollCookie | kOverheadCookie)) == 0 && (cookie & kRmaCookie) != 0) {
        const RmaOp& o = rma_ops_[static_cast<std::uint32_t>(cookie & ~kRmaCookie)];
        return fmt::format("rank {} combining rank {}'s {}", o.target, o.origin, to_string(o.kind));
    }
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

void Runtime::reused_request(std::int32_t rank, std::uint32_t handle) const {
    throw RankError(rank,
                    fmt::format("rank {} reuses request {} before waiting for it", rank, handle));
}

void Runtime::bad_request(std::int32_t rank, std::uint32_t handle) const {
    throw RankError(
        rank, fmt::format("rank {} waits for request {} that was never started", rank, handle));
}

}  // namespace clustersim::mpi
