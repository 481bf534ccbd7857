// Runtime: construction, start, and the statistics and events of finished operations
// (record, observe); what a blocked rank is in (blocked_ranks).
#include "mpi/runtime.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "collectives/rank_error.hpp"
#include "simulator/error.hpp"

namespace clustersim::mpi {

Runtime::Runtime(Engine& engine, net::Transport& network, cpu::CpuModel& cpus,
                 std::vector<RankLocation> ranks, std::vector<std::uint32_t> rank_core,
                 const Selection& selection, RuntimeConfig config, Program& program)
    : engine_(engine),
      network_(network),
      cpus_(cpus),
      selection_(selection),
      config_(config),
      program_(program),
      stats_(ranks.size()) {
    ranks_.resize(ranks.size());
    results_.resize(ranks.size());
    // Sized once from p: every rank of a collective over the world holds a run at once, and
    // a rank usually exchanges with at least one peer. Growing these by doubling copied
    // every run (512 B each) and faulted in twice the pages (issue 25: 11 % of a
    // 262,144-rank bcast). Reserving touches no page.
    runs_.reserve(ranks.size());
    match_.pairs.reserve(ranks.size());
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
    const std::uint32_t i = match_.pair(src, dst);
    ranks_[src].pair_cache[static_cast<std::uint32_t>(dst) % kPairCache] = PairCacheEntry{dst, i};
    return i;
}

void Runtime::start() {
    for (std::size_t r = 0; r < ranks_.size(); ++r) advance(static_cast<std::int32_t>(r));
}

void Runtime::record(std::int32_t rank) {
    Rank& r = ranks_[rank];
    const Op& op = r.op;
    const int kind = stat_index(op);
    OpStats& st = stats_.entry(kind, rank);
    ++st.count;
    const Time now = engine_.now();
    st.time += now - r.op_start;
    const std::uint64_t bytes_before = st.bytes;
    Time ready = r.op_start;  // the latest time a peer posted what this op waited for
    std::int32_t peer = -1;
    auto release = [&](std::uint32_t req, bool count_bytes) {
        const Request& q = match_.requests[req];
        if (count_bytes) st.bytes += q.bytes;
        ready = max(ready, q.ready);
        match_.requests.release(req);
    };
    switch (op.kind) {
        case OpKind::Send:
        case OpKind::Recv:
            peer = match_.requests[r.blocking[0]].peer;
            release(r.blocking[0], true);
            break;
        case OpKind::Sendrecv:
            peer = match_.requests[r.blocking[0]].peer;
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
        case OpKind::WinCreate:  // the address exchange, the barrier
        case OpKind::WinFree:
        case OpKind::WinFence:
            release(r.blocking[0], false);
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
            if (op.counts != nullptr) {  // any of them: the first one done (start_wait_any)
                std::uint32_t done = kNil;
                for (const std::uint64_t h : *op.counts) {
                    Request& q = match_.requests[r.handles[static_cast<std::uint32_t>(h)]];
                    if (q.done && done == kNil)
                        done = static_cast<std::uint32_t>(h);
                    else
                        q.waited = false;  // its completion finishes nothing now
                }
                peer = match_.requests[r.handles[done]].peer;
                release(r.handles[done], false);
                r.handles[done] = kNil;
                program_.request_done(rank, done);
                break;
            }
            peer = match_.requests[r.handles[op.handle]].peer;
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
