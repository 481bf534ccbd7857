// What `clustersim validate MODEL.xml` prints: the counts of what was built, whether every
// pair of sockets can talk to each other, and the parallel I/O servers if there are any.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace clustersim::topo {

struct ModelSummary {
    std::string name;
    std::string source;
    std::size_t nodes = 0;
    std::size_t sockets = 0;
    std::uint64_t cores = 0;
    std::size_t memory_nodes = 0;
    std::size_t switches = 0;
    std::size_t node_switches = 0;  // of which inside nodes (e.g. QPI)
    std::size_t nics = 0;
    std::size_t vertices = 0;
    std::size_t edges = 0;     // one-way edges (a cable counts twice)
    std::uint64_t memory = 0;  // bytes, summed over nodes
    // Node count per node-type, in order of first use.
    std::vector<std::pair<std::string, std::size_t>> node_types;
    Routing routing = Routing::ShortestPath;
    std::string network;  // "packet", "cut_through", "fluid", or "analytic: bus_only, 4 buses, ..."
    NicModel nic_model = NicModel::Packet;  // network default
    std::uint64_t granularity = 0;          // network default; 0 = whole message
    std::uint64_t eager_threshold = 0;
    // <mpi-overhead>: "o_s 83 ns at 8 B .. 219 ns at 1 KiB; o_r ...; post ..." ("" = none).
    std::string overheads;
    // Nodes per NIC model after node-type overrides, in id order (packet, analytical, then
    // the others as selected); and the counts of
    // the two built-ins without parameters.
    std::vector<std::pair<NicModel, std::size_t>> nic_nodes;
    std::size_t packet_nic_nodes = 0;
    std::size_t analytical_nic_nodes = 0;
    std::size_t granularity_overrides = 0;  // nodes whose granularity differs from the default
    // Ordered socket pairs (u != v) with a route from u to v, out of all ordered pairs.
    std::uint64_t routed_pairs = 0;
    std::uint64_t socket_pairs = 0;
    std::size_t router_core = 0;  // vertices the router keeps in its meshed core
    // Packet model: how switches forward by default and how the nodes' NICs forward
    // (forwarding_name, nic_forwarding).
    std::string forwarding, nic_forwarding;
    // Path diversity (issue 52): the network links (those between two nodes or touching a
    // switch, not a node's own cables) and how many of them the routes between sockets use,
    // over every ordered pair or, past 262,144 pairs, a deterministic sample of them
    // (`diversity_pairs` pairs routed). Not computed (`diversity_pairs` 0) for the routings
    // that choose per packet or at random (round-robin, Valiant): their first choice is not
    // their spread.
    std::uint64_t network_links = 0, links_used = 0, diversity_pairs = 0;
    bool diversity_sampled = false;
    // Parallel I/O (Topology::io): one entry per <io-server>, in document order.
    struct IoServer {
        std::string node, cache, disk;  // node name, cache and disk model names
    };
    std::vector<IoServer> io_servers;
    std::uint64_t stripe = 0;                 // bytes per chunk; 0 = no file system
    std::vector<std::string> stripe_servers;  // node names, in stripe order
    bool stripe_all = false;                  // over every server, in document order
    std::size_t io_forwarders = 0;
};

// Counts in O(V + E): sockets are grouped by strongly connected component (all pairs inside
// a group are routable); the router decides between groups, one representative each.
ModelSummary summarize(const Topology& topology, Router& router);

// A forwarding model's name as configured ("cut_through", "store_and_forward",
// "mine:k=v"); unset reads as store_and_forward (a NIC's, a memory node's default).
std::string forwarding_name(Forwarding f);
// How the nodes' NICs forward in the packet model: the one rule every NIC follows, or
// "mixed (cut_through on 8 nodes, store_and_forward on 8 nodes)"; "" without nodes.
std::string nic_forwarding(const Topology& topology);

// A readable multi-line report; every number has its unit.
std::string format_summary(const ModelSummary& summary);

}  // namespace clustersim::topo
