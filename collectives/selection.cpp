#include "collectives/selection.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "collectives/io_service.hpp"
#include "simulator/error.hpp"
#include "simulator/spelling.hpp"
#include "simulator/suggest.hpp"
#include "simulator/units.hpp"

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
        case CollOp::Alltoallw:
            return bytes < 32 * 1024 ? "linear" : "pairwise";
        case CollOp::ReduceScatter:
        case CollOp::ReduceScatterBlock:
            return power_of_two(p) ? "recursive_halving" : "ring";
        case CollOp::Scan:
        case CollOp::Exscan:
            return "recursive_doubling";
        case CollOp::NeighborAllgather:
        case CollOp::NeighborAllgatherv:
        case CollOp::NeighborAlltoall:
        case CollOp::NeighborAlltoallv:
        case CollOp::NeighborAlltoallw:
            return "linear";
    }
    return "";
}

Selection::Selection(const CollectiveRegistry& registry, const MpiSettings& mpi,
                     const std::string& source, const std::vector<std::string>& overrides,
                     const std::string& profile)
    : registry_(registry), profile_(profile.empty() ? mpi.profile : profile) {
    const std::vector<std::string> names = profile_names();
    const ProfileEntry* registered = profile_.empty() ? nullptr : mpi_profiles().find(profile_);
    if (registered != nullptr) {
        profile_ = registered->name;  // "openmpi-4.1" reads as openmpi_4.1
        profile_choose_ = registered->choose;
    }
    if (!profile_.empty() && registered == nullptr) {
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        const std::string what = fmt::format("unknown MPI profile '{}'{}; expected one of: {}",
                                             profile_, did_you_mean(profile_, names), list);
        if (!profile.empty()) throw InputError("--mpi", 0, what);
        throw InputError(source, mpi.profile_line, what);
    }
    // The default table must only name registered algorithms (a programming error if not).
    for (int i = 0; i < kCollOps; ++i)
        for (std::uint64_t bytes : {std::uint64_t{0}, std::uint64_t{1} << 20})
            for (std::int32_t p : {3, 8})
                if (registry.find(static_cast<CollOp>(i),
                                  default_algorithm(static_cast<CollOp>(i), bytes, p)) == nullptr)
                    throw std::logic_error(fmt::format(
                        "default table names unregistered {}/{}", to_string(static_cast<CollOp>(i)),
                        default_algorithm(static_cast<CollOp>(i), bytes, p)));
    for (const auto& r : mpi.collectives) {
        if (is_io_collective_name(r.operation)) continue;  // collective I/O: iosys checks it
        CollOp op{};
        if (!parse_coll_op(r.operation, op))
            throw InputError(
                source, r.line,
                fmt::format("<algorithm> operation '{}' is unknown{}; expected one of: {}",
                            r.operation, did_you_mean(r.operation, split_names(op_names())),
                            op_names()));
        const Algorithm* alg = registry.find(op, r.algorithm);
        if (alg == nullptr)
            throw InputError(
                source, r.line,
                fmt::format("collective '{}' has no algorithm '{}'{}; valid algorithms: {}",
                            r.operation, r.algorithm,
                            did_you_mean(r.algorithm, split_names(registry.names_list(op))),
                            registry.names_list(op)));
        rules_[static_cast<std::size_t>(op)].push_back(
            Rule{r.min_bytes, r.max_bytes, r.segment,
                 Choice{alg, registry.registered_name(op, r.algorithm), r.segment}});
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
        // OPERATION=ALGORITHM[:segment=SIZE]
        std::string name = o.substr(eq + 1);
        std::uint64_t segment = 0;
        if (const auto colon = name.find(':'); colon != std::string::npos) {
            const std::string param = name.substr(colon + 1);
            name = name.substr(0, colon);
            const std::string key = "segment=";
            if (param.rfind(key, 0) != 0)
                throw InputError(
                    "--algorithm", 0,
                    fmt::format("'{}': expected ALGORITHM:segment=SIZE, got ':{}'", o, param));
            try {
                segment = parse_size(param.substr(key.size()));
            } catch (const UnitError& e) {
                throw InputError("--algorithm", 0, fmt::format("'{}': segment: {}", o, e.what()));
            }
            if (segment == 0)
                throw InputError("--algorithm", 0,
                                 fmt::format("'{}': segment: expected a positive size", o));
        }
        const Algorithm* alg = registry.find(op, name);
        if (alg == nullptr)
            throw InputError(
                "--algorithm", 0,
                fmt::format("'{}': collective '{}' has no algorithm '{}'{}; valid algorithms: {}",
                            o, to_string(op), name,
                            did_you_mean(name, split_names(registry.names_list(op))),
                            registry.names_list(op)));
        // A second override of one operation would win in silence over the first.
        if (overrides_[static_cast<std::size_t>(op)].algorithm != nullptr)
            throw InputError("--algorithm", 0,
                             fmt::format("'{}': {} is given an algorithm twice (once is enough)", o,
                                         to_string(op)));
        overrides_[static_cast<std::size_t>(op)] =
            Choice{alg, registry.registered_name(op, name), segment};
    }
}

bool Selection::forced(CollOp op, std::uint64_t bytes) const {
    const auto i = static_cast<std::size_t>(op);
    if (overrides_[i].algorithm != nullptr) return true;
    for (const Rule& r : rules_[i])
        if (bytes >= r.min_bytes && bytes < r.max_bytes) return true;
    return false;
}

Choice Selection::choose(CollOp op, std::uint64_t bytes, std::int32_t comm_size) const {
    const auto i = static_cast<std::size_t>(op);
    if (overrides_[i].algorithm != nullptr) return overrides_[i];
    for (const Rule& r : rules_[i])
        if (bytes >= r.min_bytes && bytes < r.max_bytes) return r.choice;
    if (profile_choose_ != nullptr) {
        ProfileChoice c = profile_choose_(op, bytes, comm_size);
        return Choice{registry_.find(op, c.name), std::move(c.name), c.segment};
    }
    const std::string name = default_algorithm(op, bytes, comm_size);
    return Choice{registry_.find(op, name), name, 0};
}

}  // namespace clustersim::mpi

namespace clustersim::mpi {
namespace {

// Open MPI 4.1 coll/tuned fixed decision rules (coll_tuned_decision_fixed.c, commutative
// operations). Each table row: the communicator sizes below `below_p`, then (size limit,
// algorithm number) pairs, the first whose limit exceeds the size wins; limit 0 = the rest.
struct Cut {
    std::uint64_t below;
    int alg;
};
struct Row {
    std::int64_t below_p;
    std::vector<Cut> cuts;
};
int lookup(const std::vector<Row>& rows, std::int32_t p, std::uint64_t bytes) {
    for (const Row& r : rows) {
        if (p >= r.below_p) continue;
        for (const Cut& c : r.cuts)
            if (c.below == 0 || bytes < c.below) return c.alg;
    }
    return 0;
}
constexpr std::int64_t kAny = INT64_MAX;

const std::vector<Row>& ompi_bcast() {
    // 1 basic_linear, 2 chain, 3 pipeline, 4 split_binary_tree, 5 binary_tree, 6 binomial,
    // 7 knomial, 8 scatter_allgather, 9 scatter_allgather_ring.
    static const std::vector<Row> rows{
        {4,
         {{32, 3},
          {256, 5},
          {512, 3},
          {1024, 7},
          {32768, 1},
          {131072, 5},
          {262144, 2},
          {524288, 1},
          {1048576, 6},
          {0, 5}}},
        {8, {{64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}, {0, 2}}},
        {16, {{8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}, {0, 1}}},
        {32, {{4096, 7}, {1048576, 6}, {0, 8}}},
        {64, {{2048, 6}, {0, 7}}},
        {128, {{0, 7}}},
        {256, {{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}, {0, 7}}},
        {1024, {{16384, 7}, {32768, 4}, {0, 7}}},
        {2048, {{524288, 7}, {0, 8}}},
        {4096, {{262144, 7}, {0, 8}}},
        {kAny, {{8192, 7}, {16384, 5}, {262144, 7}, {0, 8}}},
    };
    return rows;
}

const std::vector<Row>& ompi_allreduce() {
    // 1 basic_linear, 2 nonoverlapping, 3 recursive_doubling, 4 ring, 5 segmented_ring,
    // 6 rabenseifner.
    static const std::vector<Row> rows{
        {4, {{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}, {0, 6}}},
        {8, {{16, 4}, {8192, 3}, {0, 6}}},
        {16, {{8192, 3}, {0, 6}}},
        {32, {{64, 5}, {4096, 3}, {0, 6}}},
        {64, {{128, 5}, {0, 6}}},
        {128, {{262144, 3}, {0, 6}}},
        {256, {{131072, 2}, {262144, 3}, {0, 6}}},
        {512, {{4096, 2}, {0, 6}}},
        {2048, {{2048, 2}, {16384, 3}, {0, 6}}},
        {4096, {{2048, 2}, {4096, 5}, {16384, 3}, {0, 6}}},
        {kAny, {{2048, 2}, {16384, 5}, {32768, 3}, {0, 6}}},
    };
    return rows;
}

const std::vector<Row>& ompi_alltoall() {
    // 1 linear, 2 pairwise, 3 modified_bruck, 4 linear_sync, 5 two_proc.
    static const std::vector<Row> rows{
        {3,
         {{2, 2},
          {4, 5},
          {16, 2},
          {64, 5},
          {256, 2},
          {4096, 5},
          {32768, 2},
          {262144, 4},
          {1048576, 5},
          {0, 2}}},
        {8, {{8192, 4}, {16384, 1}, {65536, 4}, {524288, 1}, {1048576, 2}, {0, 1}}},
        {16, {{262144, 4}, {0, 1}}},
        {32, {{4, 4}, {512, 3}, {8192, 4}, {32768, 1}, {262144, 4}, {524288, 1}, {0, 4}}},
        {64, {{512, 3}, {524288, 1}, {0, 4}}},
        {128, {{1024, 3}, {2048, 1}, {4096, 4}, {262144, 1}, {0, 2}}},
        {256, {{1024, 3}, {2048, 4}, {262144, 1}, {0, 2}}},
        {512, {{1024, 3}, {8192, 4}, {32768, 1}, {0, 2}}},
        {1024, {{512, 3}, {8192, 4}, {16384, 1}, {131072, 4}, {262144, 1}, {0, 2}}},
        {2048, {{512, 3}, {1024, 4}, {2048, 1}, {16384, 4}, {262144, 1}, {0, 4}}},
        {4096, {{1024, 3}, {4096, 4}, {8192, 1}, {131072, 4}, {0, 1}}},
        {kAny, {{2048, 3}, {8192, 4}, {16384, 1}, {32768, 4}, {65536, 1}, {0, 4}}},
    };
    return rows;
}

const std::vector<Row>& ompi_allgather() {
    // 1 linear, 2 bruck, 3 recursive_doubling, 4 ring, 5 neighbor, 6 two_proc.
    static const std::vector<Row> rows{
        {3, {{0, 6}}},  // only p = 2 reaches here (p < 2 is never asked)
        {32, {{0, 3}}},
        {64, {{1024, 3}, {65536, 5}, {0, 4}}},
        {128, {{512, 3}, {65536, 5}, {0, 4}}},
        {256, {{512, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {0, 4}}},
        {512, {{32, 3}, {128, 2}, {1024, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {0, 4}}},
        {1024, {{64, 3}, {256, 2}, {2048, 3}, {0, 5}}},
        {2048, {{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4096, 3}, {0, 5}}},
        {4096, {{32, 2}, {128, 3}, {512, 2}, {4096, 3}, {0, 5}}},
        {kAny, {{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4096, 3}, {0, 5}}},
    };
    return rows;
}

const std::vector<Row>& ompi_reduce() {
    // 1 linear, 2 chain, 3 pipeline, 4 binary, 5 binomial, 6 in-order_binary, 7 rabenseifner.
    static const std::vector<Row> rows{
        {4, {{8, 7}, {16, 4}, {32, 3}, {262144, 1}, {524288, 3}, {1048576, 2}, {0, 3}}},
        {8, {{4096, 4}, {65536, 2}, {262144, 5}, {524288, 1}, {1048576, 5}, {0, 1}}},
        {16, {{8192, 4}, {0, 5}}},
        {32, {{4096, 4}, {0, 5}}},
        {256, {{0, 5}}},
        {512, {{8192, 5}, {16384, 6}, {0, 5}}},
        {2048, {{0, 5}}},
        {4096, {{512, 5}, {1024, 6}, {8192, 5}, {16384, 6}, {0, 5}}},
        {kAny, {{16, 5}, {32, 6}, {1024, 5}, {2048, 6}, {8192, 5}, {16384, 6}, {0, 5}}},
    };
    return rows;
}

const std::vector<Row>& ompi_barrier() {
    // 1 linear, 2 double_ring, 3 recursive_doubling, 4 bruck, 5 two_proc, 6 tree.
    static const std::vector<Row> rows{
        {4, {{0, 3}}},   {8, {{0, 1}}},    {64, {{0, 3}}},   {256, {{0, 4}}},
        {512, {{0, 6}}}, {1024, {{0, 4}}}, {4096, {{0, 6}}}, {kAny, {{0, 4}}},
    };
    return rows;
}

const std::vector<Row>& ompi_gather() {
    // 1 basic_linear, 2 binomial, 3 linear_sync.
    static const std::vector<Row> rows{
        {4, {{2, 3}, {4, 1}, {32768, 2}, {65536, 1}, {131072, 2}, {0, 3}}},
        {8, {{1024, 2}, {8192, 1}, {32768, 2}, {262144, 1}, {0, 3}}},
        {256, {{0, 2}}},
        {512, {{2048, 2}, {8192, 1}, {0, 2}}},
        {kAny, {{0, 2}}},
    };
    return rows;
}

const std::vector<Row>& ompi_reduce_scatter() {
    // 1 non-overlapping, 2 recursive_halving, 3 ring, 4 butterfly (size: the whole vector).
    static const std::vector<Row> rows{
        {4, {{65536, 3}, {131072, 4}, {0, 3}}},
        {8, {{8, 1}, {262144, 2}, {0, 3}}},
        {32, {{262144, 2}, {0, 3}}},
        {64, {{64, 1}, {2048, 2}, {524288, 4}, {0, 3}}},
        {128, {{256, 1}, {512, 2}, {2048, 4}, {4096, 2}, {0, 4}}},
        {256, {{256, 1}, {512, 2}, {0, 4}}},
        {512, {{256, 1}, {1024, 2}, {0, 4}}},
        {1024, {{512, 1}, {2048, 2}, {8192, 4}, {16384, 2}, {0, 4}}},
        {2048, {{512, 1}, {4096, 2}, {16384, 4}, {32768, 2}, {0, 4}}},
        {4096, {{512, 1}, {4096, 2}, {0, 4}}},
        {kAny, {{1024, 1}, {8192, 2}, {0, 4}}},
    };
    return rows;
}

ProfileChoice ompi_choice(CollOp op, std::uint64_t bytes, std::int32_t p) {
    const bool pof2 = p > 0 && (p & (p - 1)) == 0;
    switch (op) {
        case CollOp::Barrier: {
            static const char* names[] = {"",
                                          "linear",
                                          "double_ring",
                                          "recursive_doubling",
                                          "dissemination",
                                          "recursive_doubling",
                                          "binary_tree"};
            return {names[lookup(ompi_barrier(), p, 0)]};
        }
        case CollOp::Bcast: {
            // Segment size 0 from the fixed rules: chain and pipeline move the whole
            // message at once.
            switch (lookup(ompi_bcast(), p, bytes)) {
                case 1:
                    return {"linear"};
                case 2:
                    return {"chain", std::max<std::uint64_t>(bytes, 1)};
                case 3:
                    return {"pipeline", std::max<std::uint64_t>(bytes, 1)};
                case 4:
                    return {"split_binary_tree"};
                case 5:
                    return {"binary_tree"};
                case 6:
                    return {"binomial"};
                case 7:
                    return {"knomial"};
                case 8:
                    return {"scatter_rd_allgather"};
                default:
                    return {"scatter_allgather"};
            }
        }
        case CollOp::Reduce:
            switch (lookup(ompi_reduce(), p, bytes)) {
                case 1:
                    return {"linear"};
                case 2:  // chain (fan-out 0 from the rules: one chain), unsegmented
                case 3:
                    return {"pipeline", std::max<std::uint64_t>(bytes, 1)};
                case 4:
                case 6:  // in-order binary tree: the binary tree stands in
                    return {"binary_tree"};
                default:  // 5 binomial; 7 rabenseifner (p < 4, < 8 B): binomial stands in
                    return {"binomial"};
            }
        case CollOp::Allreduce:
            switch (lookup(ompi_allreduce(), p, bytes)) {
                case 1:
                    return {"linear"};
                case 2:  // nonoverlapping: reduce to 0 then bcast
                    return {"reduce_bcast"};
                case 3:
                    return {"recursive_doubling"};
                case 4:
                    return {"ring"};
                case 5:
                    return {"segmented_ring", std::max<std::uint64_t>(bytes, 1)};
                default:
                    return {"rabenseifner"};
            }
        case CollOp::Alltoall:
            switch (lookup(ompi_alltoall(), p, bytes)) {
                case 1:
                    return {"linear"};
                case 3:
                    return {"bruck"};
                case 4:
                    return {"linear_sync"};
                default:  // 2 pairwise, 5 two_proc (p = 2: one exchange, as pairwise)
                    return {"pairwise"};
            }
        case CollOp::Alltoallv:
        case CollOp::Alltoallw:
            return {p < 4 || (p >= 64 && p < 128) || (p >= 256 && p < 1024) ? "pairwise"
                                                                            : "linear"};
        case CollOp::Allgather:
        case CollOp::Allgatherv:
            switch (lookup(ompi_allgather(), p, bytes)) {
                case 1:
                    return {"linear"};
                case 2:
                    return {"bruck"};
                case 3:  // Open MPI's recursive doubling runs bruck when p is not 2^k
                    return {pof2 ? "recursive_doubling" : "bruck"};
                case 5:
                    return {"neighbor_exchange"};
                default:  // 4 ring, 6 two_proc (p = 2: one exchange, as the ring)
                    return {"ring"};
            }
        case CollOp::Gather:
        case CollOp::Gatherv:
            switch (lookup(ompi_gather(), p, bytes)) {
                case 1:
                    return {"linear"};
                case 3:
                    return {"linear_sync"};
                default:
                    return {"binomial"};
            }
        case CollOp::Scatter:
        case CollOp::Scatterv:
            return {p < 8 ? "linear" : "binomial"};
        case CollOp::ReduceScatter:
        case CollOp::ReduceScatterBlock:
            // non-overlapping (reduce + scatterv) and butterfly are not modelled: the ring
            // and recursive halving stand in.
            switch (lookup(ompi_reduce_scatter(), p, bytes * static_cast<std::uint64_t>(p))) {
                case 3:
                    return {"ring"};
                default:
                    return {"recursive_halving"};
            }
        case CollOp::Scan:
        case CollOp::Exscan:
            return {"linear"};  // coll/basic's, the only ones Open MPI 4.1 has
        case CollOp::NeighborAllgather:
        case CollOp::NeighborAllgatherv:
        case CollOp::NeighborAlltoall:
        case CollOp::NeighborAlltoallv:
        case CollOp::NeighborAlltoallw:
            return {"linear"};  // coll/basic's neighbor_*, the only ones Open MPI 4.1 has
    }
    return {""};
}

// MPICH 4's default selection (src/mpi/coll/coll_selection.json, intra-communicators,
// commutative built-in operations, no MPI_IN_PLACE). Element counts are taken as doubles
// (bytes / 8) where a rule compares the count with the largest power of two <= p.
ProfileChoice mpich_choice(CollOp op, std::uint64_t bytes, std::int32_t p) {
    const bool pof2 = p > 0 && (p & (p - 1)) == 0;
    const std::uint64_t total = bytes * static_cast<std::uint64_t>(p);
    std::uint64_t floor_pof2 = 1;
    while (floor_pof2 * 2 <= static_cast<std::uint64_t>(p)) floor_pof2 *= 2;
    const bool count_below_pof2 = bytes / 8 < floor_pof2;
    switch (op) {
        case CollOp::Barrier:
            return {"dissemination"};  // k_dissemination, k = 2
        case CollOp::Bcast:  // p < 8 or <= 12 KiB: binomial; 2^k and <= 512 KiB: scatter + RD
            if (bytes <= 12288 || p < 8) return {"binomial"};
            if (bytes <= 524288 && pof2) return {"scatter_rd_allgather"};
            return {"scatter_allgather"};
        case CollOp::Reduce:  // <= 2 KiB or count < pof2: binomial; else reduce_scatter_gather,
                              // not modelled: binomial stands in
            return {"binomial"};
        case CollOp::Allreduce:  // <= 8 B or count < pof2: recursive doubling
            return {bytes <= 8 || count_below_pof2 ? "recursive_doubling" : "rabenseifner"};
        case CollOp::Alltoall:  // short 256 B (p >= 8), medium 32 KiB
            if (bytes <= 256 && p >= 8) return {"bruck"};
            return {bytes <= 32768 ? "linear" : "pairwise"};
        case CollOp::Alltoallv:
        case CollOp::Alltoallw:
            return {"linear"};
        case CollOp::Allgather:
        case CollOp::Allgatherv:  // total < 512 KiB and 2^k: RD; < 80 KiB: bruck; else ring
            if (total < 524288 && pof2) return {"recursive_doubling"};
            return {total < 81920 ? "bruck" : "ring"};
        case CollOp::Gather:
        case CollOp::Scatter:
            return {"binomial"};
        case CollOp::Gatherv:
        case CollOp::Scatterv:
            return {"linear"};
        case CollOp::ReduceScatter:
        case CollOp::ReduceScatterBlock:  // commutative: halving below 512 KiB in all
            return {total < 524288 ? "recursive_halving" : "pairwise"};
        case CollOp::Scan:
        case CollOp::Exscan:
            return {"recursive_doubling"};
        case CollOp::NeighborAllgather:
        case CollOp::NeighborAllgatherv:
        case CollOp::NeighborAlltoall:
        case CollOp::NeighborAlltoallv:
        case CollOp::NeighborAlltoallw:
            return {"linear"};  // the nonblocking schedule's linear exchange, then a wait
    }
    return {""};
}

// SimGrid 3.32's SMPI with its default settings (smpi/coll-selector "default",
// src/smpi/colls/smpi_default_selector.cpp): naive linear algorithms built on its
// nonblocking collectives (smpi_nbc_impl.cpp), the binomial bcast, and Open MPI's fixed rules
// for alltoall (alltoall__ompi) with SimGrid's own mapping of their numbers.
ProfileChoice simgrid_choice(CollOp op, std::uint64_t bytes, std::int32_t p) {
    switch (op) {
        case CollOp::Barrier:  // barrier__ompi_basic_linear
            return {"linear"};
        case CollOp::Bcast:  // bcast__binomial_tree
            return {"binomial"};
        case CollOp::Reduce:  // ireduce: every rank sends to the root at once
            return {"linear"};
        case CollOp::Allreduce:  // reduce__default then bcast__default
            return {"linear_reduce_bcast"};
        case CollOp::Gather:  // igather, igatherv, iscatter, iscatterv: linear
        case CollOp::Gatherv:
        case CollOp::Scatter:
        case CollOp::Scatterv:
            return {"linear"};
        case CollOp::Allgather:  // iallgather, iallgatherv: every rank to every rank
        case CollOp::Allgatherv:
            return {"direct"};
        case CollOp::Alltoall:
            // alltoall__ompi's table (Open MPI 4.1's) with SimGrid's functions: 1 basic_linear,
            // 2 pair (XOR exchanges, 2^k ranks only), 3 bruck, 4 linear_sync and 5 two_proc
            // both basic_linear.
            switch (lookup(ompi_alltoall(), p, bytes)) {
                case 2:
                    return {power_of_two(p) ? "pairwise_xor" : "pairwise"};
                case 3:
                    return {"bruck"};
                default:
                    return {"linear"};
            }
        case CollOp::Alltoallv:  // ialltoallv: every send and receive posted at once
        case CollOp::Alltoallw:
            return {"linear"};
        case CollOp::ReduceScatter:  // reduce__default then scatterv (equal blocks)
        case CollOp::ReduceScatterBlock:
            return {"reduce_scatter"};
        case CollOp::Scan:  // colls::scan / exscan: to every higher rank at once
        case CollOp::Exscan:
            return {"direct"};
        case CollOp::NeighborAllgather:
        case CollOp::NeighborAllgatherv:
        case CollOp::NeighborAlltoall:
        case CollOp::NeighborAlltoallv:
        case CollOp::NeighborAlltoallw:
            return {"linear"};
    }
    return {""};
}

}  // namespace

NamedRegistry<ProfileEntry>& mpi_profiles() {
    static NamedRegistry<ProfileEntry> registry("MPI profile");
    static const bool filled = [] {
        registry.add({"openmpi_4.1",
                      "Open MPI 4.1's coll/tuned fixed decision rules (commutative operations)",
                      {},
                      &ompi_choice,
                      {}});
        registry.add({"mpich_4",
                      "MPICH 4's default selection (its coll_selection.json)",
                      {},
                      &mpich_choice,
                      {}});
        // SimGrid has no rendezvous handshake, puts a 16-byte envelope on each message and
        // reduces with MPI_OP_NULL in replay.
        registry.add(
            {"simgrid",
             "SimGrid 3.32 SMPI's default selector, with its eager-only protocol",
             {},
             &simgrid_choice,
             ProfileProtocol{.eager_only = true, .envelope_bytes = 16, .reduction_work = false}});
        return true;
    }();
    (void)filled;
    return registry;
}

std::vector<std::string> profile_names() {
    return mpi_profiles().keys();
}

ProfileChoice profile_choice(const std::string& profile, CollOp op, std::uint64_t bytes,
                             std::int32_t comm_size) {
    for (const ProfileEntry& e : mpi_profiles().entries())
        if (e.name == profile) return e.choose(op, bytes, comm_size);
    return {""};
}

ProfileProtocol profile_protocol(const std::string& profile) {
    for (const ProfileEntry& e : mpi_profiles().entries())
        if (e.name == profile) return e.protocol;
    return {};
}

std::string profile_table(const std::string& profile) {
    const std::uint64_t sizes[] = {8, 64 * 1024, 8 * 1024 * 1024};
    std::string out = fmt::format(
        "| {} | ranks | 8 B | 64 KiB | 8 MiB |\n| --- | --- | --- | --- | --- |\n", profile);
    for (CollOp op : {CollOp::Bcast, CollOp::Allreduce, CollOp::Alltoall, CollOp::Allgather})
        for (std::int32_t p : {2, 16, 128, 1024}) {
            out += fmt::format("| {} | {} |", to_string(op), p);
            for (std::uint64_t bytes : sizes)
                out += " " + profile_choice(profile, op, bytes, p).name + " |";
            out += "\n";
        }
    return out;
}

}  // namespace clustersim::mpi
