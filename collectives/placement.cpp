#include "collectives/placement.hpp"

#include <fmt/format.h>

#include "simulator/error.hpp"

namespace clustersim::mpi {

PlacementKind parse_placement(const std::string& name) {
    if (name == "round-robin") return PlacementKind::RoundRobin;
    if (name == "sequential") return PlacementKind::Sequential;
    throw InputError("--placement", 0,
                     fmt::format("unknown placement '{}', expected one of: round-robin, sequential", name));
}

const char* to_string(PlacementKind kind) {
    return kind == PlacementKind::RoundRobin ? "round-robin" : "sequential";
}

std::vector<RankLocation> place_ranks(const topo::Topology& t, std::uint32_t ranks, PlacementKind kind) {
    std::uint64_t total_cores = 0;
    for (const auto& n : t.nodes)
        for (const auto& s : n.sockets) total_cores += s.cores;
    if (t.nodes.empty() || total_cores == 0)
        throw InputError(t.source, 0, "the model has no node with cores to place ranks on");
    std::vector<RankLocation> out(ranks);
    const auto nn = static_cast<std::uint32_t>(t.nodes.size());
    if (kind == PlacementKind::RoundRobin) {
        for (std::uint32_t r = 0; r < ranks; ++r) {
            const std::uint32_t node = r % nn;
            const std::uint32_t k = r / nn;
            const auto& sockets = t.nodes[node].sockets;
            const auto ns = static_cast<std::uint32_t>(sockets.size());
            const std::uint32_t s = k % ns;
            const std::uint32_t c = (k / ns) % sockets[s].cores;
            out[r] = RankLocation{node, s, c, sockets[s].vertex};
        }
    } else {
        std::uint32_t r = 0;
        while (r < ranks) {
            for (std::uint32_t node = 0; node < nn && r < ranks; ++node) {
                const auto& sockets = t.nodes[node].sockets;
                for (std::uint32_t s = 0; s < sockets.size() && r < ranks; ++s)
                    for (std::uint32_t c = 0; c < sockets[s].cores && r < ranks; ++c)
                        out[r++] = RankLocation{node, s, c, sockets[s].vertex};
            }
        }
    }
    return out;
}

}  // namespace clustersim::mpi
