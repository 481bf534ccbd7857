// Placing ranks on the cores of a cluster model.
//  round-robin: MPICH-style over nodes, then over the sockets within a node: rank r goes to
//               node r mod N; the k-th rank on a node to socket k mod S, core (k / S) mod C.
//               5 ranks on 2 dual-socket nodes: node0 = {s0: 0,4; s1: 2}, node1 = {s0: 1; s1: 3}.
//  sequential:  fill the cores of node 0 (socket by socket), then node 1, ...
//  map:FILE:   an explicit map, one line per rank: `RANK NODE [SOCKET [CORE]]` (socket and
//               core default to 0; '#' starts a comment). Every rank 0..N-1 exactly once.
// More ranks than cores wrap around: ranks on one core share it (processor sharing).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topologies/topology.hpp"

namespace clustersim::mpi {

enum class PlacementKind { RoundRobin, Sequential };
PlacementKind parse_placement(const std::string& name);  // throws InputError naming --placement
const char* to_string(PlacementKind kind);
// The placements --placement names (map:FILE besides them).
std::vector<std::string> placement_names();

struct RankLocation {
    std::uint32_t node = 0;
    std::uint32_t socket = 0;
    std::uint32_t core = 0;  // index within the socket
    topo::VertexId vertex = topo::kNoVertex;
};

// Throws InputError if the model has no cores.
std::vector<RankLocation> place_ranks(const topo::Topology& topology, std::uint32_t ranks,
                                      PlacementKind kind);

// Reads a map file (format above); errors name the file and line.
std::vector<RankLocation> place_ranks_from_map(const topo::Topology& topology, std::uint32_t ranks,
                                               const std::string& path);
// "round_robin", "sequential" or "map:FILE".
std::vector<RankLocation> place_ranks(const topo::Topology& topology, std::uint32_t ranks,
                                      const std::string& spec);

}  // namespace clustersim::mpi
