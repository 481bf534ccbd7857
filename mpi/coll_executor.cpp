// The collective executor: each rank's call walks its algorithm's schedule (start_collective,
// pump, post_more, generate), posting its transfers as requests in the communicator's
// collective context, with the steps' local work (reductions, buffer copies); calls timed as
// a whole (analytic networks, measured curves) and global-view synchronisation
// (arrive_global).
#include "mpi/runtime.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "collectives/rank_error.hpp"
#include "simulator/error.hpp"

namespace clustersim::mpi {

// Ranks that disagree on a collective call (MPI_Barrier on one, MPI_Allreduce on the other;
// two roots; two counts where every rank passes one block) make a program that cannot run:
// real MPI libraries and SimGrid stop it. Matched silently, they completed together.
void Runtime::check_collective_match(std::int32_t rank, std::uint32_t comm, std::uint32_t seq,
                                     const Op& op) {
    const std::uint64_t key = (static_cast<std::uint64_t>(comm) << 32) | seq;
    auto [it, fresh] = coll_checks_.try_emplace(
        key, CollCheck{op.coll, op.nonblocking, op.root, op.bytes, rank, 0, 0, op.comm});
    CollCheck& c = it->second;
    if (fresh) {
        // Where the first rank's call is, kept for the error line: it may have moved on (a
        // non-blocking call) when another rank disagrees.
        c.first_mark = program_.mark(rank);
    } else if (c.op != op.coll || c.nonblocking != op.nonblocking ||
               (is_rooted(op.coll) && c.root != op.root) ||
               (c.bytes != op.bytes && one_block(op.coll))) [[unlikely]] {
        report_collective_mismatch(rank, seq, op, c);
    }
    if (++c.arrived == comms_[comm].members.size()) coll_checks_.erase(it);
}

bool Runtime::one_block(CollOp op) {
    return op == CollOp::Bcast || op == CollOp::Reduce || op == CollOp::Allreduce ||
           op == CollOp::Scan || op == CollOp::Exscan || op == CollOp::ReduceScatterBlock ||
           op == CollOp::Allgather || op == CollOp::Alltoall;
}

void Runtime::report_collective_mismatch(std::int32_t rank, std::uint32_t seq, const Op& op,
                                         const CollCheck& c) const {
    std::string what;
    if (c.op != op.coll || c.nonblocking != op.nonblocking)
        what = fmt::format(
            "rank {} calls MPI_{} where rank {} called MPI_{}{}", rank,
            stat_name(stat_kind(OpKind::Collective, op.coll, op.nonblocking)), c.first_rank,
            stat_name(stat_kind(OpKind::Collective, c.op, c.nonblocking)),
            c.op == op.coll ? " (a non-blocking collective never matches a blocking one)" : "");
    else if (is_rooted(op.coll) && c.root != op.root)
        what = fmt::format("rank {} gives root {} where rank {} gave root {} to MPI_{}", rank,
                           op.root, c.first_rank, c.root,
                           stat_name(stat_kind(OpKind::Collective, op.coll, false)));
    else
        what = fmt::format("rank {} passes {} B where rank {} passed {} B to MPI_{}", rank,
                           op.bytes, c.first_rank, c.bytes,
                           stat_name(stat_kind(OpKind::Collective, op.coll, false)));
    throw RankError(rank,
                    fmt::format("ranks disagree on collective call {} on communicator {}: {} "
                                "(MPI requires the same call on every rank of the communicator)",
                                seq + 1, op.comm, what),
                    c.first_rank, c.first_mark);
}

void Runtime::check_collective_communicators() const {
    // The first pending call (lowest communicator and call number) whose first rank waits in
    // it while another member waits in a call on a communicator the first rank belongs to as
    // well: the two wait for each other.
    const auto blocked_in_call = [&](std::int32_t rank) {
        const Rank& r = ranks_[static_cast<std::size_t>(rank)];
        return !r.finished && r.op.kind == OpKind::Collective && !r.op.nonblocking;
    };
    const CollCheck* found = nullptr;
    std::uint64_t found_key = 0;
    std::int32_t found_rank = -1;
    for (const auto& [key, c] : coll_checks_) {
        if (found != nullptr && key >= found_key) continue;
        const auto comm = static_cast<std::uint32_t>(key >> 32);
        const Rank& first = ranks_[static_cast<std::size_t>(c.first_rank)];
        if (!blocked_in_call(c.first_rank) || first.op_comm != comm ||
            first.op_seq != (key & 0xffffffffu))
            continue;
        for (const std::int32_t m : comms_[comm].members) {
            const Rank& r = ranks_[static_cast<std::size_t>(m)];
            if (m == c.first_rank || !blocked_in_call(m) || r.op_comm == comm) continue;
            const Comm& other = comms_[r.op_comm];
            if (!other.world && other.rank_of.count(c.first_rank) == 0) continue;
            found = &c;
            found_key = key;
            found_rank = m;
            break;
        }
    }
    if (found == nullptr) return;
    const Op& op = ranks_[static_cast<std::size_t>(found_rank)].op;
    throw RankError(
        found_rank,
        fmt::format("ranks disagree on the communicator of a collective call: rank {} waits in "
                    "MPI_{} on communicator {} where rank {} waits in MPI_{} on communicator {} "
                    "(its call {} there), which rank {} is a member of and never enters (MPI "
                    "requires every rank of a communicator to make the same calls on it in the "
                    "same order)",
                    found_rank, stat_name(stat_kind(OpKind::Collective, op.coll, false)), op.comm,
                    found->first_rank, stat_name(stat_kind(OpKind::Collective, found->op, false)),
                    found->first_handle, (found_key & 0xffffffffu) + 1, found_rank),
        found->first_rank, found->first_mark);
}

CollArgs Runtime::collective_args(std::int32_t rank, std::uint32_t comm, const Op& op,
                                  std::uint64_t& size_for_choice) const {
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
    size_for_choice = op.bytes;
    if (v) {
        std::uint64_t sum = 0;
        for (std::uint64_t x : *op.counts) sum += x;
        size_for_choice = need == 0 ? 0 : sum / need;
    }
    return args;
}

std::uint32_t Runtime::start_collective(std::int32_t rank, const Op& op) {
    const std::uint32_t comm = comm_of(rank, op.comm);
    const auto size = static_cast<std::int32_t>(comms_[comm].members.size());
    std::uint64_t size_for_choice = 0;
    CollArgs args = collective_args(rank, comm, op, size_for_choice);
    const auto seq = next_seq(rank, op.comm);
    check_collective_match(rank, comm, seq, op);
    ranks_[rank].op_comm = comm;
    ranks_[rank].op_seq = seq;
    ranks_[rank].op_algorithm = nullptr;
    const std::uint32_t user_req = match_.requests.acquire_made(
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
    const std::uint32_t owner = match_.requests[recv_req].owner;
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
    for (const auto& e : entries) match_.requests[e.req].ready = engine_.now();
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

}  // namespace clustersim::mpi
