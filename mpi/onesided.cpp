// One-sided communication (issue 54): windows, put, get, accumulate, get-accumulate, and
// their synchronisation (fence; lock, unlock and flush), run as internal messages.
//
// - A window is made collectively over a communicator: an allgather of 16 bytes (each
//   member's base and size, as Open MPI's osc components exchange), and freed with a barrier.
// - put: the data to the target, which acks with an empty message once it has landed.
//   get: an empty request to the target, whose data comes back. accumulate: the data to the
//   target, combined there (the model's reduction rate on the target's core, as a
//   collective's reduction, in arrival order per core), then an ack. get-accumulate: the
//   same, then the old `bytes2` come back instead of the ack. The target's program takes no
//   part: the runtime posts the receives that land these messages itself, and a
//   rendezvous's clear-to-send is never deferred to the target's next MPI call.
// - The origin counts each operation until its ack (or data) is back. A fence waits until
//   the rank's count on the window is zero and then synchronises the window's members (a
//   barrier by the model's algorithm): after it every operation any member started before
//   it is complete. Unlock and flush wait until the count for their target (or all) is zero;
//   unlock then sends the target an empty release.
// - A lock is an empty request to the target and a grant back; the target queues requests
//   in arrival order and grants the first ones that are compatible (any number shared, or
//   one exclusive). lock_all (peer -1) takes no message, as Open MPI's osc/rdma
//   acquires its global lock lazily.
#include <fmt/format.h>

#include "collectives/rank_error.hpp"
#include "mpi/runtime.hpp"

namespace clustersim::mpi {

namespace {
std::uint64_t pair_key(std::uint32_t win, std::int32_t target) {
    return (static_cast<std::uint64_t>(win) << 32) | static_cast<std::uint32_t>(target);
}
}  // namespace

std::uint32_t Runtime::window_of(std::int32_t rank, std::uint32_t handle) const {
    const auto r = static_cast<std::size_t>(rank);
    if (r >= rma_ranks_.size() || handle >= rma_ranks_[r].wins.size() ||
        rma_ranks_[r].wins[handle] == kNil) [[unlikely]]
        throw RankError(rank, fmt::format("rank {} calls MPI_{} on window handle {}, which it has "
                                          "not created (or has freed)",
                                          rank, to_string(ranks_[rank].op.kind), handle));
    return rma_ranks_[r].wins[handle];
}

std::uint32_t Runtime::rma_pending(const RankRma& rr, std::uint32_t win,
                                   std::int32_t target) const {
    if (target < 0) {
        auto it = rr.pending.find(win);
        return it == rr.pending.end() ? 0 : it->second;
    }
    auto it = rr.pending_at.find(pair_key(win, target));
    return it == rr.pending_at.end() ? 0 : it->second;
}

void Runtime::rma_message(std::int32_t from, std::int32_t to, std::uint32_t win, RmaTag tag,
                          std::uint64_t bytes, std::uint32_t id) {
    const std::int32_t context = rma_context(win);
    const std::uint32_t recv = post_recv(to, from, tag, context, bytes, kRmaOwner, id);
    match_.requests[recv].charge_recv = false;  // landed by the library, not a receive call
    post_send(from, to, tag, context, bytes, kRmaOwner, id);
}

Runtime::Next Runtime::start_onesided(std::int32_t rank) {
    Rank& r = ranks_[rank];
    const Op& op = r.op;
    if (rma_ranks_.empty()) rma_ranks_.resize(ranks_.size());
    RankRma& rr = rma_ranks_[rank];
    switch (op.kind) {
        case OpKind::WinCreate: {
            if (op.file > kMaxHandle)
                throw RankError(
                    rank, fmt::format("rank {}: {}", rank, handle_beyond_limit("window", op.file)));
            const std::uint32_t comm = comm_of(rank, op.comm);
            // The n-th window a rank makes on a communicator is every member's n-th there.
            const std::uint64_t key = (static_cast<std::uint64_t>(comm) << 32) | rr.created[comm]++;
            auto [it, fresh] =
                window_ids_.try_emplace(key, static_cast<std::uint32_t>(windows_.size()));
            if (fresh) windows_.push_back(Window{comm, {}});
            if (op.file >= rr.wins.size()) {
                rr.wins.resize(std::size_t{op.file} + 1, kNil);
                rr.win_comm.resize(std::size_t{op.file} + 1, 0);
            }
            if (rr.wins[op.file] != kNil)
                throw RankError(rank, fmt::format("rank {} creates window handle {} while it is "
                                                  "in use",
                                                  rank, op.file));
            rr.wins[op.file] = it->second;
            rr.win_comm[op.file] = op.comm;
            Op exchange;
            exchange.kind = OpKind::Collective;
            exchange.coll = CollOp::Allgather;
            exchange.bytes = 16;
            exchange.comm = op.comm;
            r.blocking[0] = start_collective(rank, exchange);
            r.waiting = wait_for(r.blocking[0]);
            return r.waiting != 0 ? Next::Block : Next::Record;
        }
        case OpKind::WinFree: {
            const std::uint32_t win = window_of(rank, op.file);
            if (rma_pending(rr, win, -1) != 0)
                throw RankError(rank, fmt::format("rank {} frees window handle {} with {} "
                                                  "operation(s) not completed by a fence, unlock "
                                                  "or flush",
                                                  rank, op.file, rma_pending(rr, win, -1)));
            rr.wins[op.file] = kNil;
            Op barrier;
            barrier.kind = OpKind::Collective;
            barrier.coll = CollOp::Barrier;
            barrier.comm = rr.win_comm[op.file];
            r.blocking[0] = start_collective(rank, barrier);
            r.waiting = wait_for(r.blocking[0]);
            return r.waiting != 0 ? Next::Block : Next::Record;
        }
        case OpKind::Put:
        case OpKind::Get:
        case OpKind::Accumulate:
        case OpKind::GetAccumulate: {
            const OverheadSpec none;
            if (pay(rank, config_.send_overhead, op.bytes, none, 0)) return Next::Block;
            const std::uint32_t win = window_of(rank, op.file);
            const std::int32_t target = world_peer(rank, windows_[win].comm, op.peer, false);
            const std::uint32_t id =
                rma_ops_.acquire(RmaOp{op.kind, rank, target, win, op.bytes, op.bytes2, false});
            ++rr.pending[win];
            ++rr.pending_at[pair_key(win, target)];
            const RmaTag tag = op.kind == OpKind::Put   ? kRmaPut
                               : op.kind == OpKind::Get ? kRmaGetRequest
                                                        : kRmaAccumulate;
            rma_message(rank, target, win, tag, op.kind == OpKind::Get ? 0 : op.bytes, id);
            count_nonblocking(rank, op.bytes);
            return Next::Continue;
        }
        case OpKind::WinLock: {
            const std::uint32_t win = window_of(rank, op.file);
            if (op.peer < 0) return Next::Record;  // lock_all: acquired lazily
            const std::int32_t target = world_peer(rank, windows_[win].comm, op.peer, false);
            const bool exclusive = op.count != 0;
            rr.locked[pair_key(win, target)] = exclusive;
            rma_message(rank, target, win, kRmaLockRequest, 0,
                        rma_ops_.acquire(RmaOp{op.kind, rank, target, win, 0, 0, exclusive}));
            r.waiting = 1;  // until the grant
            return Next::Block;
        }
        default: {  // WinFence, WinUnlock, WinFlush
            const std::uint32_t win = window_of(rank, op.file);
            rr.wait_win = win;
            rr.wait_target = op.kind == OpKind::WinFence || op.peer < 0
                                 ? -1
                                 : world_peer(rank, windows_[win].comm, op.peer, false);
            rr.then_barrier = op.kind == OpKind::WinFence;
            if (rma_pending(rr, win, rr.wait_target) != 0) {
                r.waiting = 1;  // until the count is zero (rma_complete)
                return Next::Block;
            }
            return rma_proceed(rank);
        }
    }
}

// The rank's fence, unlock or flush found its operations complete: a fence synchronises, an
// unlock releases its target's lock.
Runtime::Next Runtime::rma_proceed(std::int32_t rank) {
    Rank& r = ranks_[rank];
    RankRma& rr = rma_ranks_[rank];
    const std::uint32_t win = rr.wait_win;
    const std::int32_t target = rr.wait_target;
    rr.wait_win = kNil;
    if (rr.then_barrier) {
        rr.then_barrier = false;
        Op barrier;
        barrier.kind = OpKind::Collective;
        barrier.coll = CollOp::Barrier;
        barrier.comm = rr.win_comm[r.op.file];
        r.blocking[0] = start_collective(rank, barrier);
        r.waiting = wait_for(r.blocking[0]);
        return r.waiting != 0 ? Next::Block : Next::Record;
    }
    if (r.op.kind == OpKind::WinUnlock && target >= 0) {
        auto it = rr.locked.find(pair_key(win, target));
        if (it == rr.locked.end())
            throw RankError(rank, fmt::format("rank {} unlocks rank {} of window handle {}, "
                                              "which it has not locked",
                                              rank, r.op.peer, r.op.file));
        const bool exclusive = it->second;
        rr.locked.erase(it);
        rma_message(rank, target, win, kRmaUnlock, 0,
                    rma_ops_.acquire(RmaOp{OpKind::WinUnlock, rank, target, win, 0, 0, exclusive}));
    }
    return Next::Record;
}

void Runtime::rma_arrived(std::uint32_t id, std::int32_t tag) {
    const RmaOp o = rma_ops_[id];
    switch (tag) {
        case kRmaPut:  // at the target: landed
            rma_message(o.target, o.origin, o.win, kRmaAck, 0, id);
            return;
        case kRmaGetRequest:
            rma_message(o.target, o.origin, o.win, kRmaGetData, o.bytes, id);
            return;
        case kRmaAccumulate:  // combined on the target's core, then answered (rma_reduced)
            start_reduce_work(o.target, o.bytes, kRmaCookie | id);
            return;
        case kRmaAck:
        case kRmaGetData:
        case kRmaResult:  // back at the origin: complete
            rma_complete(id);
            return;
        case kRmaLockRequest: {
            Window& w = windows_[o.win];
            if (w.locks.empty()) w.locks.resize(comms_[w.comm].members.size());
            w.locks[static_cast<std::size_t>(comms_[w.comm].comm_rank(o.target))].waiting.push_back(
                id);
            lock_release(o.win, o.target);
            return;
        }
        case kRmaLockGrant: {  // the origin's lock call completes
            rma_ops_.release(id);
            Rank& r = ranks_[o.origin];
            r.waiting = 0;
            finish_op(o.origin);
            return;
        }
        default: {  // kRmaUnlock: the lock is released at the target
            Window& w = windows_[o.win];
            Window::Lock& l = w.locks[static_cast<std::size_t>(comms_[w.comm].comm_rank(o.target))];
            if (o.exclusive)
                l.exclusive = false;
            else
                --l.shared;
            rma_ops_.release(id);
            lock_release(o.win, o.target);
            return;
        }
    }
}

void Runtime::lock_release(std::uint32_t win, std::int32_t target) {
    Window& w = windows_[win];
    Window::Lock& l = w.locks[static_cast<std::size_t>(comms_[w.comm].comm_rank(target))];
    std::size_t granted = 0;
    for (; granted < l.waiting.size(); ++granted) {
        const RmaOp& o = rma_ops_[l.waiting[granted]];
        if (l.exclusive || (o.exclusive && l.shared != 0)) break;  // in order: wait
        if (o.exclusive)
            l.exclusive = true;
        else
            ++l.shared;
        rma_message(target, o.origin, win, kRmaLockGrant, 0, l.waiting[granted]);
    }
    l.waiting.erase(l.waiting.begin(), l.waiting.begin() + static_cast<std::ptrdiff_t>(granted));
}

void Runtime::rma_reduced(std::uint32_t id) {
    const RmaOp& o = rma_ops_[id];
    if (o.kind == OpKind::GetAccumulate)
        rma_message(o.target, o.origin, o.win, kRmaResult, o.bytes2, id);
    else
        rma_message(o.target, o.origin, o.win, kRmaAck, 0, id);
}

void Runtime::rma_complete(std::uint32_t id) {
    const RmaOp o = rma_ops_[id];
    rma_ops_.release(id);
    RankRma& rr = rma_ranks_[static_cast<std::size_t>(o.origin)];
    --rr.pending[o.win];
    --rr.pending_at[pair_key(o.win, o.target)];
    if (rr.wait_win != o.win || rma_pending(rr, o.win, rr.wait_target) != 0) return;
    Rank& r = ranks_[o.origin];
    r.waiting = 0;
    if (rma_proceed(o.origin) == Next::Record) finish_op(o.origin);
}

}  // namespace clustersim::mpi
