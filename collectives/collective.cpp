#include "collectives/collective.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace clustersim::mpi {

namespace {
constexpr std::array<const char*, kCollOps> kNames{
    "barrier",        "bcast",   "reduce",    "allreduce",
    "gather",         "scatter", "allgather", "alltoall",
    "reduce_scatter", "gatherv", "scatterv",  "allgatherv",
    "alltoallv",      "scan",    "exscan",    "reduce_scatter_block",
    "alltoallw"};
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
    }
    return 0;
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

const Algorithm* CollectiveRegistry::find(CollOp op, const std::string& name) const {
    for (const auto& a : algorithms_)
        if (a.op == op && a.name == name) return a.impl.get();
    return nullptr;
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
