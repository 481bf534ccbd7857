#include "collectives/placement.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "simulator/error.hpp"
#include "simulator/spelling.hpp"
#include "simulator/suggest.hpp"
#include "simulator/units.hpp"

namespace clustersim::mpi {

namespace {
struct NamedPlacement {
    const char* name;
    PlacementKind kind;
};
constexpr NamedPlacement kPlacements[] = {{"round_robin", PlacementKind::RoundRobin},
                                          {"sequential", PlacementKind::Sequential}};
}  // namespace

PlacementKind parse_placement(const std::string& name) {
    if (const NamedPlacement* p =
            find_named(kPlacements, name, [](const NamedPlacement& x) { return x.name; }))
        return p->kind;
    std::vector<std::string> names = placement_names();
    names.emplace_back("map:FILE");
    throw InputError("--placement", 0,
                     fmt::format("unknown placement '{}'{}, expected one of: {}, map:FILE", name,
                                 did_you_mean(name, names),
                                 fmt::join(std::begin(names), std::end(names) - 1, ", ")));
}

std::vector<std::string> placement_names() {
    std::vector<std::string> names;
    for (const NamedPlacement& p : kPlacements) names.emplace_back(p.name);
    return names;
}

const char* to_string(PlacementKind kind) {
    for (const NamedPlacement& p : kPlacements)
        if (p.kind == kind) return p.name;
    return "?";
}

std::vector<RankLocation> place_ranks(const topo::Topology& t, std::uint32_t ranks,
                                      PlacementKind kind) {
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

std::vector<RankLocation> place_ranks_from_map(const topo::Topology& t, std::uint32_t ranks,
                                               const std::string& path) {
    refuse_non_file(path);
    std::ifstream in(path);
    if (!in)
        throw InputError(path, 0,
                         fmt::format("cannot read placement map: {}", std::strerror(errno)));
    std::unordered_map<std::string, std::uint32_t> node_index;
    for (std::uint32_t i = 0; i < t.nodes.size(); ++i) node_index.emplace(t.nodes[i].name, i);
    std::vector<RankLocation> out(ranks);
    std::vector<int> placed_on_line(ranks, 0);
    std::string line;
    for (int lineno = 1; std::getline(in, line); ++lineno) {
        if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
        std::istringstream fields(line);
        std::vector<std::string> f;
        for (std::string w; fields >> w;) f.push_back(w);
        if (f.empty()) continue;
        if (f.size() < 2 || f.size() > 4)
            throw InputError(
                path, lineno,
                fmt::format("expected 'RANK NODE [SOCKET [CORE]]', got {} fields", f.size()));
        auto number = [&](const std::string& text, const char* what) -> std::uint64_t {
            try {
                return parse_count(text);
            } catch (const UnitError&) {
                throw InputError(path, lineno,
                                 fmt::format("{} '{}': expected a whole number", what, text));
            }
        };
        const std::uint64_t rank = number(f[0], "rank");
        if (rank >= ranks)
            throw InputError(path, lineno,
                             fmt::format("rank {} is out of range: the run has {} ranks (0..{})",
                                         rank, ranks, ranks - 1));
        if (placed_on_line[rank] != 0)
            throw InputError(path, lineno,
                             fmt::format("rank {} is placed twice (first on line {})", rank,
                                         placed_on_line[rank]));
        const auto it = node_index.find(f[1]);
        if (it == node_index.end())
            throw InputError(path, lineno,
                             fmt::format("node '{}' is not in the model '{}' (its nodes: {} .. {})",
                                         f[1], t.name, t.nodes.front().name, t.nodes.back().name));
        const auto& node = t.nodes[it->second];
        const std::uint64_t socket = f.size() > 2 ? number(f[2], "socket") : 0;
        if (socket >= node.sockets.size())
            throw InputError(
                path, lineno,
                fmt::format("node '{}' has {} sockets (0..{}), not socket {}", node.name,
                            node.sockets.size(), node.sockets.size() - 1, socket));
        const std::uint64_t core = f.size() > 3 ? number(f[3], "core") : 0;
        if (core >= node.sockets[socket].cores)
            throw InputError(path, lineno,
                             fmt::format("socket {} of node '{}' has {} cores (0..{}), not core {}",
                                         socket, node.name, node.sockets[socket].cores,
                                         node.sockets[socket].cores - 1, core));
        out[rank] = RankLocation{it->second, static_cast<std::uint32_t>(socket),
                                 static_cast<std::uint32_t>(core), node.sockets[socket].vertex};
        placed_on_line[rank] = lineno;
    }
    for (std::uint32_t r = 0; r < ranks; ++r)
        if (placed_on_line[r] == 0)
            throw InputError(
                path, 0,
                fmt::format("rank {} is not placed; the map must place ranks 0..{}", r, ranks - 1));
    return out;
}

std::vector<RankLocation> place_ranks(const topo::Topology& t, std::uint32_t ranks,
                                      const std::string& spec) {
    if (spec.rfind("map:", 0) == 0) return place_ranks_from_map(t, ranks, spec.substr(4));
    return place_ranks(t, ranks, parse_placement(spec));
}

}  // namespace clustersim::mpi
