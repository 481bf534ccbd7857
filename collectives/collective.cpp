#include "collectives/collective.hpp"
#include "simulator/spelling.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>

#include <fmt/format.h>

namespace clustersim::mpi {

namespace {
constexpr std::array<const char*, kCollOps> kNames{"barrier",
                                                   "bcast",
                                                   "reduce",
                                                   "allreduce",
                                                   "gather",
                                                   "scatter",
                                                   "allgather",
                                                   "alltoall",
                                                   "reduce_scatter",
                                                   "gatherv",
                                                   "scatterv",
                                                   "allgatherv",
                                                   "alltoallv",
                                                   "scan",
                                                   "exscan",
                                                   "reduce_scatter_block",
                                                   "alltoallw",
                                                   "neighbor_allgather",
                                                   "neighbor_allgatherv",
                                                   "neighbor_alltoall",
                                                   "neighbor_alltoallv",
                                                   "neighbor_alltoallw"};
}  // namespace

const char* to_string(CollOp op) {
    return kNames[static_cast<std::size_t>(op)];
}

bool parse_coll_op(const std::string& name, CollOp& op) {
    for (std::size_t i = 0; i < kNames.size(); ++i) {
        if (name == kNames[i]) {
            op = static_cast<CollOp>(i);
            return true;
        }
    }
    return false;
}

std::uint64_t collective_volume(const CollArgs& a) {
    if (a.size <= 1) return 0;
    const auto p = static_cast<std::uint64_t>(a.size);
    const auto n = static_cast<std::size_t>(a.size);
    switch (a.op) {
        case CollOp::Barrier:
            return 0;
        case CollOp::Bcast:
        case CollOp::Reduce:
        case CollOp::Allreduce:
        case CollOp::Scan:
        case CollOp::Exscan:
            return a.bytes;
        case CollOp::Gather:
        case CollOp::Scatter:
        case CollOp::Allgather:
        case CollOp::Alltoall:
        case CollOp::ReduceScatter:
        case CollOp::ReduceScatterBlock:
            return (p - 1) * a.bytes;
        case CollOp::Gatherv:
        case CollOp::Scatterv:
        case CollOp::Allgatherv: {
            if (a.counts == nullptr || a.counts->size() < n) return (p - 1) * a.bytes;
            std::uint64_t sum = 0, least = UINT64_MAX;
            for (std::size_t r = 0; r < n; ++r) {
                sum += (*a.counts)[r];
                least = std::min(least, (*a.counts)[r]);
            }
            if (a.op == CollOp::Allgatherv) return sum - least;  // the member with the least
            return sum - (*a.counts)[static_cast<std::size_t>(a.root)];  // the root's share
        }
        case CollOp::Alltoallv:
        case CollOp::Alltoallw: {
            if (a.counts == nullptr || a.counts->size() < n * n) return (p - 1) * a.bytes;
            std::uint64_t most = 0;
            for (std::size_t r = 0; r < n; ++r) {
                std::uint64_t out = 0, in = 0;
                for (std::size_t j = 0; j < n; ++j) {
                    if (j == r) continue;
                    out += (*a.counts)[r * n + j];
                    in += (*a.counts)[j * n + r];
                }
                most = std::max({most, out, in});
            }
            return most;
        }
        case CollOp::NeighborAllgather:
        case CollOp::NeighborAlltoall:
            return a.topo == nullptr ? a.bytes : a.bytes * a.topo->max_degree();
        case CollOp::NeighborAllgatherv:
        case CollOp::NeighborAlltoallv:
        case CollOp::NeighborAlltoallw:
            return a.bytes;  // the runtime passes the largest total one member sends
    }
    return 0;
}

std::uint64_t data_space(const CollArgs& a) {
    const auto p = static_cast<std::uint64_t>(a.size);
    switch (a.op) {
        case CollOp::Barrier:
            return 0;
        case CollOp::Bcast:
        case CollOp::Reduce:
        case CollOp::Allreduce:
            return a.bytes;
        case CollOp::Scan:
        case CollOp::Exscan:
            return 2 * a.bytes;
        case CollOp::Gather:
        case CollOp::Scatter:
        case CollOp::Allgather:
        case CollOp::ReduceScatter:
        case CollOp::ReduceScatterBlock:
        case CollOp::Gatherv:
        case CollOp::Scatterv:
        case CollOp::Allgatherv:
            return a.displ(a.size);
        case CollOp::Alltoall:
        case CollOp::Alltoallv:
        case CollOp::Alltoallw:
            return a.counts == nullptr ? p * p * a.bytes : a.displ(a.size * a.size);
        case CollOp::NeighborAllgather:
        case CollOp::NeighborAllgatherv:
            return neighbor_displ(a, a.size);
        case CollOp::NeighborAlltoall:
        case CollOp::NeighborAlltoallv:
        case CollOp::NeighborAlltoallw:
            if (a.topo == nullptr) return 0;
            if (a.counts == nullptr) return a.topo->edges() * a.bytes;
            return a.displs != nullptr ? (*a.displs)[a.topo->edges()] : 0;
    }
    return 0;
}

std::uint64_t neighbor_displ(const CollArgs& a, std::int32_t r) {
    if (a.counts == nullptr) return a.bytes * static_cast<std::uint64_t>(r);
    return a.displs != nullptr ? (*a.displs)[static_cast<std::size_t>(r)] : 0;
}

std::uint64_t neighbor_displ(const CollArgs& a, std::int32_t r, std::uint32_t s) {
    if (a.topo == nullptr) return 0;
    const std::uint64_t edge = a.topo->out_base[static_cast<std::size_t>(r)] + s;
    if (a.counts == nullptr) return a.bytes * edge;
    return a.displs != nullptr ? (*a.displs)[edge] : 0;
}

std::uint32_t Topology::max_degree() const {
    std::size_t most = 0;
    for (std::size_t r = 0; r < in.size(); ++r) {
        std::size_t n_in = 0, n_out = 0;
        for (const Neighbor& e : in[r])
            n_in += e.rank != kProcNull && static_cast<std::size_t>(e.rank) != r ? 1 : 0;
        for (const Neighbor& e : out[r])
            n_out += e.rank != kProcNull && static_cast<std::size_t>(e.rank) != r ? 1 : 0;
        most = std::max({most, n_in, n_out});
    }
    return static_cast<std::uint32_t>(most);
}

namespace {
void fill_base(Topology& t) {
    t.out_base.assign(1, 0);
    for (const auto& o : t.out) t.out_base.push_back(t.out_base.back() + o.size());
}
}  // namespace

Topology cart_topology(const std::vector<std::int32_t>& dims,
                       const std::vector<std::uint8_t>& periods) {
    Topology t;
    t.cartesian = true;
    t.dims = dims;
    t.periods = periods;
    std::int64_t n = 1;
    for (std::int32_t d : dims) n *= d;
    const auto nd = dims.size();
    t.in.resize(static_cast<std::size_t>(n));
    t.out.resize(static_cast<std::size_t>(n));
    std::vector<std::int32_t> coord(nd);
    for (std::int64_t r = 0; r < n; ++r) {
        // Row-major coordinates: the last dimension varies fastest (MPI_Cart_coords).
        std::int64_t rest = r;
        for (std::size_t d = nd; d-- > 0;) {
            coord[d] = static_cast<std::int32_t>(rest % dims[d]);
            rest /= dims[d];
        }
        auto shifted = [&](std::size_t d, std::int32_t by) -> std::int32_t {
            std::int64_t c = coord[d] + by;
            if (c < 0 || c >= dims[d]) {
                if (periods[d] == 0) return kProcNull;
                c = (c + dims[d]) % dims[d];
            }
            std::int64_t stride = 1;
            for (std::size_t e = nd; e-- > d + 1;) stride *= dims[e];
            return static_cast<std::int32_t>(r + (c - coord[d]) * stride);
        };
        auto& in = t.in[static_cast<std::size_t>(r)];
        auto& out = t.out[static_cast<std::size_t>(r)];
        for (std::size_t d = 0; d < nd; ++d) {
            const std::int32_t minus = shifted(d, -1), plus = shifted(d, 1);
            const auto lo = static_cast<std::uint32_t>(2 * d), hi = lo + 1;
            // Block 2d comes from the -1 neighbour's send to its +1 neighbour, and so on.
            in.push_back(Neighbor{minus, hi});
            in.push_back(Neighbor{plus, lo});
            out.push_back(Neighbor{minus, hi});
            out.push_back(Neighbor{plus, lo});
        }
    }
    fill_base(t);
    return t;
}

std::string graph_topology(const std::vector<std::vector<std::int32_t>>& sources,
                           const std::vector<std::vector<std::int32_t>>& destinations,
                           Topology& t) {
    const std::size_t n = sources.size();
    t = Topology{};
    t.in.resize(n);
    t.out.resize(n);
    // The k-th edge i -> j among i's destinations pairs with the k-th i among j's sources.
    std::map<std::pair<std::int32_t, std::int32_t>, std::vector<std::uint32_t>> outs, ins;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t s = 0; s < destinations[i].size(); ++s) {
            const std::int32_t j = destinations[i][s];
            if (j < 0 || static_cast<std::size_t>(j) >= n)
                return fmt::format("rank {} names destination {}, outside [0, {})", i, j, n);
            outs[{static_cast<std::int32_t>(i), j}].push_back(static_cast<std::uint32_t>(s));
        }
        for (std::size_t k = 0; k < sources[i].size(); ++k) {
            const std::int32_t j = sources[i][k];
            if (j < 0 || static_cast<std::size_t>(j) >= n)
                return fmt::format("rank {} names source {}, outside [0, {})", i, j, n);
            ins[{j, static_cast<std::int32_t>(i)}].push_back(static_cast<std::uint32_t>(k));
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        t.in[i].resize(sources[i].size());
        t.out[i].resize(destinations[i].size());
    }
    for (const auto& [edge, slots] : outs) {
        const auto it = ins.find(edge);
        const std::size_t got = it == ins.end() ? 0 : it->second.size();
        if (got != slots.size())
            return fmt::format(
                "rank {} names rank {} as a destination {} time(s) but rank {} names rank {} as "
                "a source {} time(s)",
                edge.first, edge.second, slots.size(), edge.second, edge.first, got);
        for (std::size_t k = 0; k < slots.size(); ++k) {
            t.out[static_cast<std::size_t>(edge.first)][slots[k]] =
                Neighbor{edge.second, it->second[k]};
            t.in[static_cast<std::size_t>(edge.second)][it->second[k]] =
                Neighbor{edge.first, slots[k]};
        }
    }
    for (const auto& [edge, slots] : ins)
        if (outs.find(edge) == outs.end())
            return fmt::format(
                "rank {} names rank {} as a source {} time(s) but rank {} names rank {} as a "
                "destination 0 times",
                edge.second, edge.first, slots.size(), edge.first, edge.second);
    fill_base(t);
    return "";
}

std::uint64_t CollArgs::blocks(std::int32_t first_relative, std::int32_t n) const {
    if (counts == nullptr) return bytes * static_cast<std::uint64_t>(n);
    std::uint64_t sum = 0;
    for (std::int32_t i = 0; i < n; ++i) sum += block(absolute(first_relative + i));
    return sum;
}

void CollectiveRegistry::add(CollOp op, std::string name, std::string help,
                             std::shared_ptr<const Algorithm> impl) {
    algorithms_.push_back(AlgorithmInfo{op, std::move(name), std::move(help), std::move(impl)});
}

const AlgorithmInfo* CollectiveRegistry::info(CollOp op, const std::string& name) const {
    for (const auto& a : algorithms_)
        if (a.op == op && a.name == name) return &a;
    for (const auto& a : algorithms_)
        if (a.op == op && same_but_separators(a.name, name)) {
            note_spelling(name, a.name);
            return &a;
        }
    return nullptr;
}

const Algorithm* CollectiveRegistry::find(CollOp op, const std::string& name) const {
    const AlgorithmInfo* a = info(op, name);
    return a != nullptr ? a->impl.get() : nullptr;
}

std::string CollectiveRegistry::registered_name(CollOp op, const std::string& name) const {
    const AlgorithmInfo* a = info(op, name);
    return a != nullptr ? a->name : name;
}

std::vector<std::string> CollectiveRegistry::names(CollOp op) const {
    std::vector<std::string> out;
    for (const auto& a : algorithms_)
        if (a.op == op) out.push_back(a.name);
    return out;
}

std::string CollectiveRegistry::names_list(CollOp op) const {
    std::string out;
    for (const auto& n : names(op)) out += (out.empty() ? "" : ", ") + n;
    return out;
}

std::uint32_t count_steps(const Algorithm& alg, const CollArgs& args) {
    Step s;
    std::uint32_t k = 0;
    while (true) {
        s.clear();
        if (!alg.step(args, k, s)) return k;
        ++k;
    }
}

}  // namespace clustersim::mpi
