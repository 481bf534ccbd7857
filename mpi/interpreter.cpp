// The program interpreter: each rank's next operation from its Program, started on the
// matching parts of the runtime (advance), and recorded when it completes (finish_op).
#include "mpi/runtime.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "collectives/rank_error.hpp"
#include "simulator/error.hpp"

namespace clustersim::mpi {

void Runtime::finish_op(std::int32_t rank) {
    if (ranks_[rank].comm_stage != 0 && !comm_create_step(rank)) return;
    record(rank);
    advance(rank);
}

void Runtime::advance(std::int32_t rank) {
    Rank& r = ranks_[rank];
    for (;;) {
        if (r.resume) {  // the current operation's posting cost is paid: go on with it
            r.resume = false;
        } else if (!fetch(rank)) {
            return;  // the program has ended
        }
        const Next next = start_op(rank);
        if (next == Next::Block) return;
        if (next == Next::Record) record(rank);  // completed without blocking
    }
}

bool Runtime::fetch(std::int32_t rank) {
    Rank& r = ranks_[rank];
    if (!program_.next(rank, r.op)) {
        if (r.computing) enter_mpi(rank);  // MPI_Finalize progresses
        r.finished = true;
        results_[rank].finish = engine_.now();
        if (++finished_ == ranks_.size() && io_ != nullptr) io_->programs_done();
        return false;
    }
    r.op_start = engine_.now();
    if (r.computing && r.op.kind != OpKind::Compute) enter_mpi(rank);
    if (!config_.fresh_send.zero() && r.op.kind != OpKind::Compute) {
        r.computed_before = r.computed;
        if (sends_in_bulk(r.op)) r.computed = Time::zero();
    }
    return true;
}

bool Runtime::pay(std::int32_t rank, const OverheadSpec& a, std::uint64_t a_bytes,
                  const OverheadSpec& b, std::uint64_t b_bytes) {
    if (a.zero() && b.zero()) return false;
    Rank& r = ranks_[rank];
    if (r.paid) {
        r.paid = false;
        return false;
    }
    charge(rank, Overhead{Overhead::Then::Resume, a.at(a_bytes) + b.at(b_bytes)});
    return true;
}

void Runtime::set_handle(std::int32_t rank, std::uint32_t req) {
    Rank& r = ranks_[rank];
    const std::uint32_t handle = r.op.handle;
    if (handle > kMaxHandle) [[unlikely]]
        throw RankError(rank,
                        fmt::format("rank {}: {}", rank, handle_beyond_limit("request", handle)));
    if (handle >= r.handles.size()) r.handles.resize(handle + 1, kNil);
    if (r.handles[handle] != kNil) [[unlikely]]
        reused_request(rank, handle);
    r.handles[handle] = req;
}

void Runtime::count_nonblocking(std::int32_t rank, std::uint64_t bytes) {
    const int kind = stat_index(ranks_[rank].op);
    OpStats& st = stats_.entry(kind, rank);
    ++st.count;
    st.bytes += bytes;
    if (observer_ != nullptr) observe(rank, kind, Time::zero(), bytes, -1);
}

Runtime::Next Runtime::start_op(std::int32_t rank) {
    Rank& r = ranks_[rank];
    const Op& op = r.op;
    switch (op.kind) {
        case OpKind::Compute:
        case OpKind::Unmodeled:
            if (op.instructions == 0) return Next::Record;
            if (op.kind == OpKind::Compute && config_.progress_in_mpi) r.computing = true;
            cpus_.start(r.core, op.instructions, static_cast<std::uint64_t>(rank));
            return Next::Block;
        case OpKind::Send:
        case OpKind::Recv:
        case OpKind::Sendrecv:
        case OpKind::Isend:
        case OpKind::Irecv:
            return start_p2p(rank);
        case OpKind::Wait:
            if (op.counts != nullptr) return start_wait_any(rank);
            r.waiting = wait_for(handle_request(rank, op.handle));
            return r.waiting != 0 ? Next::Block : Next::Record;
        case OpKind::Cancel:  // local and immediate; the request's wait completes it
            cancel(rank, handle_request(rank, op.handle));
            return Next::Record;
        case OpKind::CommFree:
            // Local: MPI libraries free a communicator without its other members (issue
            // 57: an agreement made it 5-16 us against 1.4-4.5 us recorded). Its cost, if
            // the model gives one, on the rank's core; the CPU job's end finishes it.
            if (config_.comm_free > Time::zero()) {
                cpus_.start_time(r.core, config_.comm_free, static_cast<std::uint64_t>(rank));
                return Next::Block;
            }
            return Next::Record;
        case OpKind::Waitall: {
            std::uint32_t n = 0;
            for (std::uint32_t h = op.handle; h < op.handle + op.count; ++h)
                n += wait_for(handle_request(rank, h));
            r.waiting = n;
            return n != 0 ? Next::Block : Next::Record;
        }
        case OpKind::Collective: {
            const std::uint32_t req = start_collective(rank, op);
            if (op.nonblocking) {
                set_handle(rank, req);
                count_nonblocking(rank, collective_bytes(rank, op));
                return Next::Continue;
            }
            r.blocking[0] = req;
            r.waiting = wait_for(req);
            return r.waiting != 0 ? Next::Block : Next::Record;
        }
        case OpKind::CommDup:
        case OpKind::CommSplit:
        case OpKind::CartCreate:
        case OpKind::DistGraphCreateAdjacent:
        case OpKind::DistGraphCreate: {
            if (op.newcomm > kMaxHandle)
                throw RankError(rank, fmt::format("rank {}: {}", rank,
                                                  handle_beyond_limit("communicator", op.newcomm)));
            if (config_.comm_create_modelled) {
                r.comm_stage = 0;
                return comm_create_step(rank) ? Next::Record : Next::Block;
            }
            r.blocking[0] = start_comm_create(rank, op);
            r.waiting = wait_for(r.blocking[0]);
            return r.waiting != 0 ? Next::Block : Next::Record;
        }
        default:
            if (is_onesided(op.kind)) return start_onesided(rank);
            start_io(rank);  // MPI-IO
            return Next::Block;
    }
}

Runtime::Next Runtime::start_wait_any(std::int32_t rank) {
    Rank& r = ranks_[rank];
    const std::vector<std::uint64_t>& handles = *r.op.counts;
    if (handles.empty())
        throw RankError(rank, fmt::format("rank {} waits for any of no request", rank));
    for (const std::uint64_t h : handles) {
        if (h > kMaxHandle) [[unlikely]]
            bad_request(rank, static_cast<std::uint32_t>(std::min<std::uint64_t>(h, ~0u)));
        if (match_.requests[handle_request(rank, static_cast<std::uint32_t>(h))].done)
            return Next::Record;  // record() takes the first one done
    }
    // Every request is waited for; the first to complete finishes the wait (waiting 1), and
    // record() takes the mark off the others.
    for (const std::uint64_t h : handles)
        match_.requests[r.handles[static_cast<std::uint32_t>(h)]].waited = true;
    r.waiting = 1;
    return Next::Block;
}

Runtime::Next Runtime::start_p2p(std::int32_t rank) {
    Rank& r = ranks_[rank];
    const Op& op = r.op;
    const OverheadSpec none;
    switch (op.kind) {
        case OpKind::Send: {
            if (pay(rank, config_.send_overhead, op.bytes, none, 0)) return Next::Block;
            const std::uint32_t comm = comm_of(rank, op.comm);
            r.blocking[0] =
                post_send(rank, world_peer(rank, comm, op.peer, false), op.tag, p2p_context(comm),
                          op.bytes, kNil, 0, fresh_delay(rank, op.bytes));
            r.waiting = wait_for(r.blocking[0]);
            return Next::Block;
        }
        case OpKind::Recv: {
            if (pay(rank, none, 0, config_.post_overhead, op.bytes)) return Next::Block;
            const std::uint32_t comm = comm_of(rank, op.comm);
            r.blocking[0] = post_recv(rank, world_peer(rank, comm, op.peer, true), op.tag,
                                      p2p_context(comm), op.bytes);
            r.waiting = wait_for(r.blocking[0]);
            return r.waiting != 0 ? Next::Block : Next::Record;
        }
        case OpKind::Sendrecv: {
            if (pay(rank, config_.send_overhead, op.bytes, config_.post_overhead, op.bytes2))
                return Next::Block;
            const std::uint32_t comm = comm_of(rank, op.comm);
            r.blocking[0] =
                post_send(rank, world_peer(rank, comm, op.peer, false), op.tag, p2p_context(comm),
                          op.bytes, kNil, 0, fresh_delay(rank, op.bytes));
            r.blocking[1] = post_recv(rank, world_peer(rank, comm, op.peer2, true), op.tag2,
                                      p2p_context(comm), op.bytes2);
            r.waiting = wait_for(r.blocking[0]) + wait_for(r.blocking[1]);
            return r.waiting != 0 ? Next::Block : Next::Record;
        }
        case OpKind::Isend: {
            if (pay(rank, config_.send_overhead, op.bytes, none, 0)) return Next::Block;
            const std::uint32_t comm = comm_of(rank, op.comm);
            set_handle(
                rank, post_send(rank, world_peer(rank, comm, op.peer, false), op.tag,
                                p2p_context(comm), op.bytes, kNil, 0, fresh_delay(rank, op.bytes)));
            count_nonblocking(rank, op.bytes);
            return Next::Continue;
        }
        default: {  // Irecv
            if (pay(rank, none, 0, config_.post_overhead, op.bytes)) return Next::Block;
            const std::uint32_t comm = comm_of(rank, op.comm);
            set_handle(rank, post_recv(rank, world_peer(rank, comm, op.peer, true), op.tag,
                                       p2p_context(comm), op.bytes));
            count_nonblocking(rank, 0);
            return Next::Continue;
        }
    }
}

void Runtime::start_io(std::int32_t rank) {
    Rank& r = ranks_[rank];
    const Op& op = r.op;
    if (io_ == nullptr)
        throw RankError(rank,
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
}

}  // namespace clustersim::mpi
