#include "collectives/runtime.hpp"

#include <fmt/format.h>

#include "simulator/error.hpp"

namespace clustersim::mpi {

const char* to_string(OpKind kind) {
    switch (kind) {
        case OpKind::Compute: return "Compute";
        case OpKind::Send: return "Send";
        case OpKind::Recv: return "Recv";
        case OpKind::Isend: return "Isend";
        case OpKind::Irecv: return "Irecv";
        case OpKind::Wait: return "Wait";
        case OpKind::Waitall: return "Waitall";
        case OpKind::Sendrecv: return "Sendrecv";
    }
    return "?";
}

Runtime::Runtime(Engine& engine, net::Network& network, cpu::Cpus& cpus, std::vector<RankLocation> ranks,
                 std::vector<std::uint32_t> rank_core, std::uint64_t eager_threshold, Program& program)
    : engine_(engine), network_(network), cpus_(cpus), eager_threshold_(eager_threshold), program_(program) {
    ranks_.resize(ranks.size());
    results_.resize(ranks.size());
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        ranks_[r].where = ranks[r];
        ranks_[r].core = rank_core[r];
    }
}

void Runtime::start() {
    for (std::size_t r = 0; r < ranks_.size(); ++r) advance(static_cast<std::int32_t>(r));
}

void Runtime::check_peer(std::int32_t rank, std::int32_t peer, bool allow_any) const {
    if (allow_any && peer == kAnySource) return;
    if (peer < 0 || static_cast<std::size_t>(peer) >= ranks_.size())
        throw InputError("app", 0,
                         fmt::format("rank {} names peer rank {}, but the run has {} ranks (0..{})", rank,
                                     peer, ranks_.size(), ranks_.size() - 1));
}

std::uint32_t Runtime::post_send(std::int32_t rank, std::int32_t dst, std::int32_t tag, std::int32_t comm,
                                 std::uint64_t bytes) {
    check_peer(rank, dst, false);
    const std::uint32_t req = requests_.acquire(Request{true, false, false, rank, dst, tag, comm, bytes});
    const std::uint64_t seq = ranks_[rank].send_seq[dst]++;
    const bool eager = bytes <= eager_threshold_;
    const std::uint32_t m = msgs_.acquire(Msg{eager ? MsgKind::Eager : MsgKind::Rts, rank, dst, tag, comm, bytes, seq,
                                        req, kNil, false, false});
    // Rendezvous control messages carry no payload bytes.
    network_.send(ranks_[rank].where.vertex, ranks_[dst].where.vertex, eager ? bytes : 0, m, eager);
    return req;
}

std::uint32_t Runtime::post_recv(std::int32_t rank, std::int32_t src, std::int32_t tag, std::int32_t comm,
                                 std::uint64_t bytes) {
    check_peer(rank, src, true);
    const std::uint32_t req = requests_.acquire(Request{false, false, false, rank, src, tag, comm, bytes});
    auto& unexpected = ranks_[rank].unexpected;
    for (auto it = unexpected.begin(); it != unexpected.end(); ++it) {
        if (matches(requests_[req], msgs_[*it])) {
            const std::uint32_t m = *it;
            unexpected.erase(it);
            bind(m, req);
            return req;
        }
    }
    ranks_[rank].posted.push_back(req);
    return req;
}

void Runtime::bind(std::uint32_t m, std::uint32_t req) {
    Msg& msg = msgs_[m];
    msg.recv_req = req;
    requests_[req].bytes = msg.bytes;
    requests_[req].peer = msg.src;
    requests_[req].tag = msg.tag;
    if (msg.kind == MsgKind::Eager) {
        msg.recv_done = true;
        complete(req);
        maybe_free_msg(m);
    } else {  // Rts: clear the sender to send
        msg.kind = MsgKind::Cts;
        network_.send(ranks_[msg.dst].where.vertex, ranks_[msg.src].where.vertex, 0, m, false);
    }
}

void Runtime::envelope_arrived(std::uint32_t m) {
    const std::int32_t src = msgs_[m].src;
    Rank& r = ranks_[msgs_[m].dst];
    std::uint64_t& expected = r.recv_seq[src];
    if (msgs_[m].seq != expected) {  // overtook an earlier message of the pair: hold it back
        r.early.emplace((static_cast<std::uint64_t>(src) << 40) | msgs_[m].seq, m);
        return;
    }
    ++expected;
    match_arrival(m);
    while (!r.early.empty()) {
        auto it = r.early.find((static_cast<std::uint64_t>(src) << 40) | r.recv_seq[src]);
        if (it == r.early.end()) break;
        const std::uint32_t next = it->second;
        r.early.erase(it);
        ++r.recv_seq[src];
        match_arrival(next);
    }
}

void Runtime::match_arrival(std::uint32_t m) {
    Rank& r = ranks_[msgs_[m].dst];
    for (auto it = r.posted.begin(); it != r.posted.end(); ++it) {
        if (matches(requests_[*it], msgs_[m])) {
            const std::uint32_t req = *it;
            r.posted.erase(it);
            bind(m, req);
            return;
        }
    }
    r.unexpected.push_back(m);
}

void Runtime::maybe_free_msg(std::uint32_t m) {
    if (msgs_[m].send_done && msgs_[m].recv_done) msgs_.release(m);
}

void Runtime::complete(std::uint32_t req) {
    Request& q = requests_[req];
    q.done = true;
    RankResult& res = results_[q.rank];
    if (q.is_send) res.bytes_sent += q.bytes;
    else res.bytes_received += q.bytes;
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
            network_.send(ranks_[msg.src].where.vertex, ranks_[msg.dst].where.vertex, msg.bytes, m, true);
            break;
        case MsgKind::Data: {
            msg.recv_done = true;
            const std::uint32_t req = msg.recv_req;
            maybe_free_msg(m);
            complete(req);
            break;
        }
    }
}

void Runtime::compute_done(std::uint64_t cookie) { finish_op(static_cast<std::int32_t>(cookie)); }

std::uint32_t Runtime::handle_request(std::int32_t rank, std::uint32_t handle) const {
    const Rank& r = ranks_[rank];
    if (handle >= r.handles.size() || r.handles[handle] == kNil)
        throw InputError("app", 0,
                         fmt::format("rank {} waits for request {} that was never started", rank, handle));
    return r.handles[handle];
}

void Runtime::record(std::int32_t rank) {
    Rank& r = ranks_[rank];
    const Op& op = r.op;
    OpStats& st = results_[rank].ops[static_cast<int>(op.kind)];
    ++st.count;
    st.time += engine_.now() - r.op_start;
    auto release = [&](std::uint32_t req, bool count_bytes) {
        if (count_bytes) st.bytes += requests_[req].bytes;
        requests_.release(req);
    };
    switch (op.kind) {
        case OpKind::Send:
        case OpKind::Recv:
            release(r.blocking[0], true);
            break;
        case OpKind::Sendrecv:
            release(r.blocking[0], true);
            release(r.blocking[1], true);
            break;
        case OpKind::Wait:
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
}

void Runtime::finish_op(std::int32_t rank) {
    record(rank);
    advance(rank);
}

void Runtime::advance(std::int32_t rank) {
    Rank& r = ranks_[rank];
    for (;;) {
        if (!program_.next(rank, r.op)) {
            r.finished = true;
            results_[rank].finish = engine_.now();
            ++finished_;
            return;
        }
        const Op& op = r.op;
        r.op_start = engine_.now();
        auto wait_for = [&](std::uint32_t req) {
            if (requests_[req].done) return 0u;
            requests_[req].waited = true;
            return 1u;
        };
        auto set_handle = [&](std::uint32_t req) {
            if (op.handle >= r.handles.size()) r.handles.resize(op.handle + 1, kNil);
            if (r.handles[op.handle] != kNil)
                throw InputError("app", 0,
                                 fmt::format("rank {} reuses request {} before waiting for it", rank, op.handle));
            r.handles[op.handle] = req;
        };
        switch (op.kind) {
            case OpKind::Compute:
                if (op.instructions == 0) break;
                cpus_.start(r.core, op.instructions, static_cast<std::uint64_t>(rank));
                return;
            case OpKind::Send:
                r.blocking[0] = post_send(rank, op.peer, op.tag, op.comm, op.bytes);
                r.waiting = wait_for(r.blocking[0]);
                return;
            case OpKind::Recv:
                r.blocking[0] = post_recv(rank, op.peer, op.tag, op.comm, op.bytes);
                r.waiting = wait_for(r.blocking[0]);
                if (r.waiting != 0) return;
                break;
            case OpKind::Sendrecv:
                r.blocking[0] = post_send(rank, op.peer, op.tag, op.comm, op.bytes);
                r.blocking[1] = post_recv(rank, op.peer2, op.tag2, op.comm, op.bytes2);
                r.waiting = wait_for(r.blocking[0]) + wait_for(r.blocking[1]);
                if (r.waiting != 0) return;
                break;
            case OpKind::Isend: {
                set_handle(post_send(rank, op.peer, op.tag, op.comm, op.bytes));
                OpStats& st = results_[rank].ops[static_cast<int>(op.kind)];
                ++st.count;
                st.bytes += op.bytes;
                continue;
            }
            case OpKind::Irecv: {
                set_handle(post_recv(rank, op.peer, op.tag, op.comm, op.bytes));
                ++results_[rank].ops[static_cast<int>(op.kind)].count;
                continue;
            }
            case OpKind::Wait:
                r.waiting = wait_for(handle_request(rank, op.handle));
                if (r.waiting != 0) return;
                break;
            case OpKind::Waitall: {
                std::uint32_t n = 0;
                for (std::uint32_t h = op.handle; h < op.handle + op.count; ++h) n += wait_for(handle_request(rank, h));
                r.waiting = n;
                if (n != 0) return;
                break;
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
                out.push_back(fmt::format("rank {} in {} to rank {} (tag {}, {} B)", i, to_string(op.kind), op.peer,
                                          op.tag, op.bytes));
                break;
            case OpKind::Recv:
            case OpKind::Irecv:
                out.push_back(fmt::format("rank {} in {} from {} (tag {})", i, to_string(op.kind),
                                          op.peer == kAnySource ? std::string("any rank")
                                                                : fmt::format("rank {}", op.peer),
                                          op.tag == kAnyTag ? std::string("any") : std::to_string(op.tag)));
                break;
            case OpKind::Sendrecv:
                out.push_back(fmt::format("rank {} in Sendrecv (send to rank {}, receive from rank {})", i, op.peer,
                                          op.peer2));
                break;
            default:
                out.push_back(fmt::format("rank {} in {}", i, to_string(op.kind)));
        }
    }
    return out;
}

}  // namespace clustersim::mpi
