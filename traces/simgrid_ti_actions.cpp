// The SimGrid TI reader's second pass (simgrid_ti_parser.hpp): each action mapped to
// records, the v-collectives' counts assembled from every rank's k-th call. SimGrid TI names
// no request ids and no communicators (its replay runs every action on MPI_COMM_WORLD): the
// parser keeps each rank's outstanding requests, matched by (source, destination, tag), and
// takes their handles from the shared RequestTable (call_mapper.hpp).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "traces/simgrid_ti_parser.hpp"

namespace clustersim::traces::simgrid_ti_in {

// ---- v-collectives -----------------------------------------------------------------------------

Contribution Parser::contribution(const Line& l, VKind kind, std::uint64_t dt) const {
    const auto n = static_cast<std::size_t>(ranks_);
    Contribution c;
    switch (kind) {
        case VAlltoallv: {
            arity(l, 2 * n + 2, 2 * n + 4,
                  "alltoallv <send-size> <send-counts x ranks> <recv-size> <recv-counts x ranks> "
                  "[<send-datatype> [<recv-datatype>]]");
            amount(l, 0, "send buffer size");
            amount(l, n + 1, "receive buffer size");
            const std::uint64_t dt1 = dtype(l, 2 * n + 2, dt), dt2 = dtype(l, 2 * n + 3, dt1);
            for (std::size_t j = 0; j < n; ++j) {
                c.row.push_back(bytes(l, amount(l, 1 + j, "send count"), dt1));
                c.own.push_back(bytes(l, amount(l, n + 2 + j, "receive count"), dt2));
            }
            break;
        }
        case VGatherv:
        case VAllgatherv: {
            const bool gatherv = kind == VGatherv;
            arity(l, n + 1, gatherv ? n + 4 : 2 * n + 2,
                  gatherv ? "gatherv <send-size> <recv-counts x ranks> [<root> [<send-datatype> "
                            "[<recv-datatype>]]]"
                          : "allgatherv <send-size> <recv-counts x ranks> [<datatype> "
                            "[<displacements x ranks>]]");
            std::uint64_t dt1 = dt, dt2 = dt;
            const std::size_t extra = l.args.size() - (n + 1);
            if (gatherv) {
                if (extra >= 1) rank_arg(l, n + 1, "root");
                dt1 = dtype(l, n + 2, dt);
                dt2 = dtype(l, n + 3, dt1);
            } else if (extra >= 1 && (extra <= 2 || extra > n)) {
                // SimGrid: one datatype for both sides, optionally followed by displacements;
                // exactly `ranks` extra values (more than two) are displacements alone.
                dt1 = dt2 = dtype(l, n + 1, dt);
            }
            c.row.push_back(bytes(l, amount(l, 0, "send size"), dt1));
            for (std::size_t j = 0; j < n; ++j)
                c.own.push_back(bytes(l, amount(l, 1 + j, "receive count"), dt2));
            break;
        }
        case VScatterv: {
            arity(l, n + 1, n + 4,
                  "scatterv <send-counts x ranks> <recv-size> [<root> [<send-datatype> "
                  "[<recv-datatype>]]]");
            if (l.args.size() > n + 1) rank_arg(l, n + 1, "root");
            const std::uint64_t dt1 = dtype(l, n + 2, dt), dt2 = dtype(l, n + 3, dt1);
            c.row.push_back(bytes(l, amount(l, n, "receive size"), dt2));
            for (std::size_t j = 0; j < n; ++j)
                c.own.push_back(bytes(l, amount(l, j, "send count"), dt1));
            break;
        }
        default:
            break;
    }
    c.valid = true;
    return c;
}

// The count list of the k-th call of `kind`: from every rank's contribution when every rank
// made that call, else from the calling rank's own line.
std::int32_t Parser::v_counts(const Line& l, VKind kind, std::uint32_t k, const Contribution& own,
                              std::int32_t root) {
    const auto n = static_cast<std::size_t>(ranks_);
    const auto key = std::pair<int, std::uint32_t>(kind, k);
    if (const auto it = v_cache_.find(key); it != v_cache_.end()) return it->second;
    const auto& per_rank = contrib_[kind];
    bool complete = per_rank.size() == n;
    for (std::size_t r = 0; complete && r < n; ++r)
        complete = per_rank[r].size() > k && per_rank[r][k].valid;
    static const char* kNames[kVKinds] = {"alltoallv", "gatherv", "allgatherv", "scatterv"};
    if (!complete) {
        note(std::string("v-partial-") + kNames[kind],
             fmt::format(
                 "{}: call {} of rank {} has no matching call on every rank; its counts "
                 "come from the rank's own line{}",
                 kNames[kind], k + 1, l.rank,
                 kind == VAlltoallv ? " (its send row and receive column; the rest 0)" : ""));
        if (kind != VAlltoallv) return trace_.add_counts(own.own);
        std::vector<std::uint64_t> m(n * n, 0);
        const auto r = static_cast<std::size_t>(l.rank);
        for (std::size_t j = 0; j < n; ++j) {
            m[r * n + j] = own.row[j];
            m[j * n + r] = own.own[j];
        }
        return trace_.add_counts(std::move(m));
    }
    std::vector<std::uint64_t> counts;
    bool mismatch = false;
    if (kind == VAlltoallv) {
        counts.resize(n * n);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                counts[i * n + j] = per_rank[i][k].row[j];
                if (per_rank[j][k].own[i] != counts[i * n + j]) mismatch = true;
            }
    } else {
        counts.resize(n);
        for (std::size_t i = 0; i < n; ++i) counts[i] = per_rank[i][k].row[0];
        // gatherv: the root's receive counts; allgatherv: every rank's; scatterv: the root's
        // send counts should equal what the ranks send or receive.
        for (std::size_t r = 0; r < n && !mismatch; ++r) {
            if (kind == VAllgatherv || r == static_cast<std::size_t>(root))
                mismatch = per_rank[r][k].own != counts;
        }
    }
    if (mismatch) {
        note(std::string("v-mismatch-") + kNames[kind],
             fmt::format("{}: the receive counts of a call (e.g. call {}) differ from what the "
                         "peers {}; the {} sizes are used",
                         kNames[kind], k + 1, kind == VScatterv ? "receive" : "send",
                         kind == VScatterv ? "receivers'" : "senders'"));
    }
    const std::int32_t index = trace_.add_counts(std::move(counts));
    v_cache_.emplace(key, index);
    return index;
}

void Parser::v_collective(const Line& l, VKind kind) {
    RankState& s = state_[static_cast<std::size_t>(l.rank)];
    const Contribution c = contribution(l, kind, s.dtype);  // checks the line, in order
    const std::uint32_t k = s.v_seen[kind]++;
    static constexpr CollOp kOps[kVKinds] = {CollOp::Alltoallv, CollOp::Gatherv, CollOp::Allgatherv,
                                             CollOp::Scatterv};
    std::int32_t root = 0;
    const auto n = static_cast<std::size_t>(ranks_);
    if ((kind == VGatherv || kind == VScatterv) && l.args.size() > n + 1)
        root = rank_arg(l, n + 1, "root");
    collective(l, kOps[kind], c.row.size() == 1 ? c.row[0] : 0, root,
               v_counts(l, kind, k, c, root));
}

// ---- actions -----------------------------------------------------------------------------------

void Parser::collective(const Line& l, CollOp op, std::uint64_t bytes, std::int32_t root,
                        std::int32_t counts) {
    Record r;
    r.kind = OpKind::Collective;
    r.coll = op;
    r.bytes = bytes;
    r.root = root;
    r.counts = counts;
    append(l.rank, r);
}

void Parser::p2p(const Line& l, bool send, bool nonblocking) {
    // send <dst> <tag> <size> [<datatype>] (SimGrid >= 3.20); older: send <dst> <size>.
    RankState& s = state_[static_cast<std::size_t>(l.rank)];
    const char* usage =
        send ? "<dst> [<tag>] <size> [<datatype>]" : "<src> [<tag>] <size> [<datatype>]";
    if (l.args.size() < 2 || l.args.size() > 4)
        fail(l, fmt::format("rank {}: {}: expected '{} {}', got {} argument{}", l.rank, l.action,
                            l.action, usage, l.args.size(), l.args.size() == 1 ? "" : "s"));
    const bool tagged = l.args.size() >= 3;
    const std::int32_t peer = rank_arg(l, 0, send ? "destination" : "source", !send);
    const std::int32_t tag = tagged ? tag_arg(l, 1, !send) : 0;
    const std::size_t size_at = tagged ? 2 : 1;
    const std::uint64_t count = amount(l, size_at, "size");
    Record r;
    r.kind = send ? (nonblocking ? OpKind::Isend : OpKind::Send)
                  : (nonblocking ? OpKind::Irecv : OpKind::Recv);
    r.peer = peer;
    r.tag = tag;
    r.bytes = bytes(l, count, dtype(l, 3, s.dtype));
    if (nonblocking) {
        r.handle = s.handles.take();
        s.outstanding.push_back(Request{send ? l.rank : peer, send ? peer : l.rank, tag, r.handle});
    }
    append(l.rank, r);
}

void Parser::wait(const Line& l) {
    RankState& s = state_[static_cast<std::size_t>(l.rank)];
    if (!l.args.empty() && l.args.size() != 3)
        fail(l, fmt::format("rank {}: wait: expected 'wait' or 'wait <src> <dst> <tag>', got {} "
                            "arguments",
                            l.rank, l.args.size()));
    if (s.outstanding.empty())
        fail(l, fmt::format("rank {}: wait without an outstanding isend or irecv", l.rank));
    std::size_t at = s.outstanding.size() - 1;  // old traces: the most recent request
    if (l.args.size() == 3) {
        const auto src = integer(l, 0, "source"), dst = integer(l, 1, "destination"),
                   tag = integer(l, 2, "tag");
        at = s.outstanding.size();
        for (std::size_t i = 0; i < s.outstanding.size(); ++i) {
            const Request& q = s.outstanding[i];
            if (q.src == src && q.dst == dst && q.tag == tag) {
                at = i;
                break;
            }
        }
        if (at == s.outstanding.size()) {
            ++unmatched_waits_;  // SimGrid: completed by an earlier test; nothing to wait for
            return;
        }
    }
    Record r;
    r.kind = OpKind::Wait;
    r.handle = s.outstanding[at].handle;
    s.handles.release(r.handle);
    s.outstanding.erase(s.outstanding.begin() + static_cast<std::ptrdiff_t>(at));
    append(l.rank, r);
}

// Waits for every outstanding request of `rank`: one Waitall per run of consecutive handles.
void Parser::wait_all(std::int32_t rank) {
    RankState& s = state_[static_cast<std::size_t>(rank)];
    std::vector<std::uint32_t> handles;
    for (const Request& q : s.outstanding) handles.push_back(q.handle);
    std::sort(handles.begin(), handles.end());
    // every outstanding request, not the call's list: one Waitall per run of consecutive
    // handles (push_waits makes one record of a call's list)
    for (std::size_t i = 0; i < handles.size();) {
        std::size_t j = i + 1;
        while (j < handles.size() && handles[j] == handles[j - 1] + 1) ++j;
        Record r;
        r.kind = j - i == 1 ? OpKind::Wait : OpKind::Waitall;
        r.handle = handles[i];
        r.count = j - i == 1 ? 0 : static_cast<std::uint32_t>(j - i);
        append(rank, r);
        i = j;
    }
    for (const std::uint32_t h : handles) s.handles.release(h);
    s.outstanding.clear();
}

// SimGrid's replay runs a reduction's flops on each rank after the collective (an exec of
// `comp_size` flops): a Compute record right after it, one flop an instruction.
void Parser::reduction_compute(const Line& l, std::size_t i) {
    const double flops = std::round(real(l, i, "flop count"));
    if (flops > 1.8e19)
        fail(l, fmt::format("rank {}: {}: {} flops is too large", l.rank, l.action, l.args[i]));
    if (flops == 0) return;
    note("comp",
         "reduce/allreduce/reducescatter/scan/exscan: the reduction's flops run as a compute "
         "after the collective, as SimGrid's replay does; under --mpi simgrid the collective "
         "itself charges nothing more (reduce-instructions-per-byte 0), under other profiles "
         "the model's reduce-instructions-per-byte is charged as well");
    Record r;
    r.kind = OpKind::Compute;
    r.instructions = static_cast<std::uint64_t>(flops);
    append(l.rank, r);
}

// sendRecv <send-count> <dst> <recv-count> <src> [<send-datatype> [<recv-datatype>]]
// (SimGrid's SendRecvParser; both directions with tag 0).
void Parser::sendrecv(const Line& l) {
    RankState& s = state_[static_cast<std::size_t>(l.rank)];
    arity(l, 4, 6,
          "sendrecv <send-size> <dst> <recv-size> <src> [<send-datatype> [<recv-datatype>]]");
    const std::uint64_t send = amount(l, 0, "send size");
    const std::int32_t dst = rank_arg(l, 1, "destination");
    const std::uint64_t recv = amount(l, 2, "receive size");
    const std::int32_t src = rank_arg(l, 3, "source", true);
    const std::uint64_t dt1 = dtype(l, 4, s.dtype), dt2 = dtype(l, 5, dt1);
    Record r;
    r.kind = OpKind::Sendrecv;
    r.peer = dst;
    r.bytes = bytes(l, send, dt1);
    r.peer2 = src;
    r.bytes2 = bytes(l, recv, dt2);
    append(l.rank, r);
}

std::int32_t Parser::actor_arg(const Line& l, std::size_t i, const char* what) const {
    std::int64_t v = 0;
    if (!parse_actor_field(l.args[i], v))
        fail(l, fmt::format("rank {}: {}: malformed {} '{}'; expected an actor name p0, p1, ...",
                            l.rank, l.action, what, l.args[i]));
    if (v >= ranks_)
        fail(l, fmt::format("rank {}: {}: {} p{} is out of range; expected p0..p{} ({} actors)",
                            l.rank, l.action, what, v, ranks_ - 1, ranks_));
    return static_cast<std::int32_t>(v);
}

// The S4U actor-replay form (SimGrid's examples/cpp/replay-comm): `send <dst> <bytes>` (a
// mailbox put: blocking), `recv <src>` (the size is the matching send's), `compute <flops>`
// and `sleep <s>` as in SMPI traces. True if the line was handled here.
bool Parser::s4u(const Line& l) {
    const std::string& a = l.action;
    if (a == "compute" || a == "sleep") return false;
    if (a == "send") {
        arity(l, 2, 2, "send <dst> <bytes>");
        const std::int32_t dst = actor_arg(l, 0, "destination");
        Record r;
        r.kind = OpKind::Send;
        r.peer = dst;
        r.bytes = amount(l, 1, "size");
        append(l.rank, r);
        return true;
    }
    if (a == "recv") {
        arity(l, 1, 1, "recv <src>");
        const std::int32_t src = actor_arg(l, 0, "source");
        const auto key = std::pair<std::int32_t, std::int32_t>(src, l.rank);
        const auto it = s4u_sends_.find(key);
        std::size_t& taken = s4u_taken_[key];
        if (it == s4u_sends_.end() || taken >= it->second.size())
            fail(l, fmt::format("rank {}: recv: p{} sends p{} only {} message{}; this is receive "
                                "{} (an S4U recv takes the size of the matching send)",
                                l.rank, src, l.rank, taken, taken == 1 ? "" : "s", taken + 1));
        Record r;
        r.kind = OpKind::Recv;
        r.peer = src;
        r.bytes = it->second[taken++];
        append(l.rank, r);
        return true;
    }
    if (io_action(a))
        fail(l, fmt::format("rank {}: S4U I/O action '{}' is not supported: it acts on a host's "
                            "local disk (examples/cpp/replay-io), which clustersim's MPI-IO "
                            "file system has no counterpart for",
                            l.rank, a));
    fail(l, fmt::format("rank {}: unsupported S4U replay action '{}'; expected one of: compute, "
                        "sleep, send, recv",
                        l.rank, a));
}

// The collectives (and sendrecv); false: `l` is none of them.
bool Parser::collective_action(const Line& l) {
    RankState& s = state_[static_cast<std::size_t>(l.rank)];
    const std::string& a = l.action;
    const auto n = static_cast<std::size_t>(ranks_);
    if (a == "barrier") {
        arity(l, 0, 0, "barrier");
        collective(l, CollOp::Barrier, 0);
    } else if (a == "bcast") {
        arity(l, 1, 3, "bcast <size> [<root> [<datatype>]]");
        const std::uint64_t count = amount(l, 0, "size");
        const std::int32_t root = l.args.size() > 1 ? rank_arg(l, 1, "root") : 0;
        collective(l, CollOp::Bcast, bytes(l, count, dtype(l, 2, s.dtype)), root);
    } else if (a == "reduce") {
        arity(l, 2, 4, "reduce <size> <flops> [<root> [<datatype>]]");
        const std::uint64_t count = amount(l, 0, "size");
        real(l, 1, "flop count");
        const std::int32_t root = l.args.size() > 2 ? rank_arg(l, 2, "root") : 0;
        collective(l, CollOp::Reduce, bytes(l, count, dtype(l, 3, s.dtype)), root);
        reduction_compute(l, 1);
    } else if (a == "allreduce") {
        arity(l, 2, 3, "allreduce <size> <flops> [<datatype>]");
        const std::uint64_t count = amount(l, 0, "size");
        real(l, 1, "flop count");
        collective(l, CollOp::Allreduce, bytes(l, count, dtype(l, 2, s.dtype)));
        reduction_compute(l, 1);
    } else if (a == "scan" || a == "exscan") {
        arity(l, 2, 3,
              a == "scan" ? "scan <size> <flops> [<datatype>]"
                          : "exscan <size> <flops> [<datatype>]");
        const std::uint64_t count = amount(l, 0, "size");
        real(l, 1, "flop count");
        collective(l, a == "scan" ? CollOp::Scan : CollOp::Exscan,
                   bytes(l, count, dtype(l, 2, s.dtype)));
        reduction_compute(l, 1);
    } else if (a == "sendrecv") {
        sendrecv(l);
    } else if (a == "alltoall" || a == "allgather") {
        arity(l, 2, 4,
              a == "alltoall"
                  ? "alltoall <send-size> <recv-size> [<send-datatype> [<recv-datatype>]]"
                  : "allgather <send-size> <recv-size> [<send-datatype> "
                    "[<recv-datatype>]]");
        const std::uint64_t count = amount(l, 0, "send size");
        amount(l, 1, "receive size");
        const std::uint64_t dt1 = dtype(l, 2, s.dtype);
        dtype(l, 3, dt1);
        collective(l, a == "alltoall" ? CollOp::Alltoall : CollOp::Allgather, bytes(l, count, dt1));
    } else if (a == "gather" || a == "scatter") {
        arity(l, 2, 5,
              a == "gather"
                  ? "gather <send-size> <recv-size> [<root> [<send-datatype> [<recv-datatype>]]]"
                  : "scatter <send-size> <recv-size> [<root> [<send-datatype> "
                    "[<recv-datatype>]]]");
        const std::uint64_t send = amount(l, 0, "send size"), recv = amount(l, 1, "receive size");
        const std::int32_t root = l.args.size() > 2 ? rank_arg(l, 2, "root") : 0;
        const std::uint64_t dt1 = dtype(l, 3, s.dtype), dt2 = dtype(l, 4, dt1);
        // The block of one rank: what each rank sends (gather) or receives (scatter).
        if (a == "gather")
            collective(l, CollOp::Gather, bytes(l, send, dt1), root);
        else
            collective(l, CollOp::Scatter, bytes(l, recv, dt2), root);
    } else if (VKind k; v_kind(a, k)) {
        v_collective(l, k);
    } else if (a == "reducescatter") {
        arity(l, n + 1, n + 2, "reducescatter <recv-counts x ranks> <flops> [<datatype>]");
        std::uint64_t sum = 0;
        bool uniform = true;
        for (std::size_t j = 0; j < n; ++j) {
            const std::uint64_t c = amount(l, j, "receive count");
            if (j > 0 && c != amount(l, 0, "receive count")) uniform = false;
            sum += c;
        }
        real(l, n, "flop count");
        const std::uint64_t dt = dtype(l, n + 1, s.dtype);
        if (!uniform)
            note("reducescatter",
                 "reducescatter: unequal receive counts are replaced by their "
                 "mean (rounded up): clustersim's reduce_scatter gives every "
                 "rank the same block");
        collective(l, CollOp::ReduceScatter, bytes(l, (sum + n - 1) / n, dt));
        reduction_compute(l, n);
    } else {
        return false;
    }
    return true;
}

void Parser::map(const Line& l) {
    if (actors_ && s4u(l)) return;
    RankState& s = state_[static_cast<std::size_t>(l.rank)];
    const std::string& a = l.action;
    if (a == "init") {
        arity(l, 0, 1, "init [<x>]");
        s.dtype = l.args.empty() ? 1 : 8;
        if (!l.args.empty()) double_default_ = true;
    } else if (a == "finalize") {
        // Outstanding requests are waited for at the end of the rank; the rank's recording is
        // whole (trace_warnings).
        report_.finalized.insert(static_cast<std::uint32_t>(l.rank));
    } else if (a == "comm_size") {
        arity(l, 1, 1, "comm_size <ranks>");
        integer(l, 0, "communicator size");
    } else if (a == "comm_split" || a == "comm_dup") {
        note("comm",
             "comm_split/comm_dup: ignored, as SimGrid's replay does (every replayed "
             "operation is on MPI_COMM_WORLD)");
    } else if (a == "location") {
        // source location of the next action: nothing to replay
    } else if (a == "compute") {
        arity(l, 1, 1, "compute <flops>");
        const double flops = std::round(real(l, 0, "flop count"));
        if (flops > 1.8e19)
            fail(l, fmt::format("rank {}: compute: {} flops is too large", l.rank, l.args[0]));
        if (flops == 0) {
            ++zero_computes_;
            return;
        }
        Record r;
        r.kind = OpKind::Compute;
        r.instructions = static_cast<std::uint64_t>(flops);
        append(l.rank, r);
    } else if (a == "sleep") {
        arity(l, 1, 1, "sleep <seconds>");
        const double sec = real(l, 0, "duration");
        if (Time::from_seconds(sec) == Time::max())
            fail(l, fmt::format("rank {}: sleep: {} s passes the simulated-time horizon (2^63-1 "
                                "ps, about {:.2f} days)",
                                l.rank, l.args[0], Time::horizon_days()));
        Record r;
        r.kind = OpKind::Compute;
        r.compute_time = Time::from_seconds(sec);
        if (r.compute_time == Time::zero()) {
            ++zero_computes_;
            return;
        }
        append(l.rank, r);
    } else if (a == "send" || a == "isend" || a == "recv" || a == "irecv") {
        p2p(l, a == "send" || a == "isend", a[0] == 'i');
    } else if (a == "test") {
        ++tests_;
    } else if (a == "wait") {
        wait(l);
    } else if (a == "waitall") {
        // SimGrid's TI writer (smpirun -trace-ti, 3.32 and later) writes the call's request
        // count, `waitall 6`; hand-written traces omit it. Its replay, like this one, waits for
        // every request the rank has outstanding: the count is checked as a count, not used.
        arity(l, 0, 1, "waitall [<count>]");
        if (!l.args.empty()) (void)amount(l, 0, "request count");
        wait_all(l.rank);
    } else if (collective_action(l)) {
        // done
    } else if (options_.skip_unknown) {
        ++report_.skipped[a];
    } else {
        fail(l, fmt::format("rank {}: unsupported action '{}'; expected one of: init, finalize, "
                            "compute, sleep, send, isend, recv, irecv, test, wait, waitall, "
                            "sendrecv, barrier, bcast, reduce, allreduce, scan, exscan, "
                            "alltoall, alltoallv, gather, gatherv, allgather, allgatherv, "
                            "scatter, scatterv, reducescatter, comm_size, comm_split, comm_dup, "
                            "location",
                            l.rank, a));
    }
}

}  // namespace clustersim::traces::simgrid_ti_in
