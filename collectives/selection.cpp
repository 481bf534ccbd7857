#include "collectives/selection.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "collectives/io_service.hpp"
#include "simulator/error.hpp"
#include "simulator/suggest.hpp"

namespace clustersim::mpi {
namespace {

bool power_of_two(std::int32_t p) {
    return p > 0 && (p & (p - 1)) == 0;
}

std::string op_names() {
    std::string out;
    for (int i = 0; i < kCollOps; ++i)
        out += (i ? ", " : "") + std::string(to_string(static_cast<CollOp>(i)));
    return out + ", write_at_all, read_at_all, write_all, read_all";
}

}  // namespace

std::string Selection::default_algorithm(CollOp op, std::uint64_t bytes, std::int32_t p) {
    switch (op) {
        case CollOp::Barrier:
            return "dissemination";
        case CollOp::Bcast:
            return bytes < 12 * 1024 || p < 8 ? "binomial" : "scatter_allgather";
        case CollOp::Reduce:
            return "binomial";
        case CollOp::Allreduce:
            return bytes <= 2048 ? "recursive_doubling" : "ring";
        case CollOp::Gather:
        case CollOp::Scatter:
        case CollOp::Gatherv:
        case CollOp::Scatterv:
            return "binomial";
        case CollOp::Allgather:
        case CollOp::Allgatherv:
            if (static_cast<std::uint64_t>(p) * bytes < 512 * 1024)
                return power_of_two(p) ? "recursive_doubling" : "bruck";
            return "ring";
        case CollOp::Alltoall:
        case CollOp::Alltoallv:
            return bytes < 32 * 1024 ? "linear" : "pairwise";
        case CollOp::ReduceScatter:
            return power_of_two(p) ? "recursive_halving" : "ring";
    }
    return "";
}

Selection::Selection(const CollectiveRegistry& registry, const topo::Topology& t,
                     const std::vector<std::string>& overrides)
    : registry_(registry) {
    // The default table must only name registered algorithms (a programming error if not).
    for (int i = 0; i < kCollOps; ++i)
        for (std::uint64_t bytes : {std::uint64_t{0}, std::uint64_t{1} << 20})
            for (std::int32_t p : {3, 8})
                if (registry.find(static_cast<CollOp>(i),
                                  default_algorithm(static_cast<CollOp>(i), bytes, p)) == nullptr)
                    throw std::logic_error(fmt::format(
                        "default table names unregistered {}/{}", to_string(static_cast<CollOp>(i)),
                        default_algorithm(static_cast<CollOp>(i), bytes, p)));
    for (const auto& r : t.mpi.collectives) {
        if (is_io_collective_name(r.operation)) continue;  // collective I/O: iosys checks it
        CollOp op{};
        if (!parse_coll_op(r.operation, op))
            throw InputError(
                t.source, r.line,
                fmt::format("<algorithm> operation '{}' is unknown; expected one of: {}",
                            r.operation, op_names()));
        const Algorithm* alg = registry.find(op, r.algorithm);
        if (alg == nullptr)
            throw InputError(
                t.source, r.line,
                fmt::format("collective '{}' has no algorithm '{}'{}; valid algorithms: {}",
                            r.operation, r.algorithm,
                            did_you_mean(r.algorithm, split_names(registry.names_list(op))),
                            registry.names_list(op)));
        rules_[static_cast<std::size_t>(op)].push_back(
            Rule{r.min_bytes, r.max_bytes, r.segment, Choice{alg, r.algorithm, r.segment}});
    }
    for (const auto& o : overrides) {
        const auto eq = o.find('=');
        if (eq != std::string::npos && is_io_collective_name(o.substr(0, eq))) continue;
        CollOp op{};
        if (eq == std::string::npos || !parse_coll_op(o.substr(0, eq), op))
            throw InputError(
                "--algorithm", 0,
                fmt::format("'{}': expected OPERATION=ALGORITHM with an operation among: {}{}", o,
                            op_names(),
                            eq == std::string::npos
                                ? std::string()
                                : did_you_mean(o.substr(0, eq), split_names(op_names()))));
        const std::string name = o.substr(eq + 1);
        const Algorithm* alg = registry.find(op, name);
        if (alg == nullptr)
            throw InputError(
                "--algorithm", 0,
                fmt::format("'{}': collective '{}' has no algorithm '{}'{}; valid algorithms: {}",
                            o, to_string(op), name,
                            did_you_mean(name, split_names(registry.names_list(op))),
                            registry.names_list(op)));
        overrides_[static_cast<std::size_t>(op)] = Choice{alg, name, 0};
    }
}

Choice Selection::choose(CollOp op, std::uint64_t bytes, std::int32_t comm_size) const {
    const auto i = static_cast<std::size_t>(op);
    if (overrides_[i].algorithm != nullptr) return overrides_[i];
    for (const Rule& r : rules_[i])
        if (bytes >= r.min_bytes && bytes < r.max_bytes) return r.choice;
    const std::string name = default_algorithm(op, bytes, comm_size);
    return Choice{registry_.find(op, name), name, 0};
}

}  // namespace clustersim::mpi
