// Communicators: handles and their checks, several applications' worlds (set_apps),
// creation (comm_dup, comm_split, the topology constructors; modelled in stages with
// <collectives comm-create>) and process topologies.
#include "mpi/runtime.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "collectives/rank_error.hpp"
#include "simulator/error.hpp"

namespace clustersim::mpi {

namespace {
constexpr std::uint64_t kCommAgreementBytes = 8;  // a context id, as MPI libraries agree on one
}  // namespace

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
        if (match_.requests[req].done) return false;
        match_.requests[req].waited = true;
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

std::uint32_t Runtime::start_comm_create(std::int32_t rank, const Op& op) {
    const std::uint32_t comm = comm_of(rank, op.comm);
    const auto seq = next_seq(rank, op.comm);
    ranks_[rank].op_comm = comm;
    ranks_[rank].op_seq = seq;
    const std::uint32_t req = match_.requests.acquire_made(
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

}  // namespace clustersim::mpi
