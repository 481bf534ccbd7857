// The cluster's hardware graph: vertices are sockets (where processes run), memory nodes,
// store-and-forward switches and NICs; edges are one-way links with a latency and a
// bandwidth (a cable is two edges). Held in a Boost.Graph compressed_sparse_row_graph:
// immutable once built, compact enough for 65,536-node clusters, and edges carry dense
// indices that the network model uses to index its per-link state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/graph/compressed_sparse_row_graph.hpp>

#include "simulator/time.hpp"
#include "topologies/forwarding.hpp"

namespace clustersim::topo {

using VertexId = std::uint32_t;
using EdgeId = std::uint32_t;
inline constexpr VertexId kNoVertex = UINT32_MAX;
inline constexpr EdgeId kNoEdge = UINT32_MAX;

enum class VertexKind : std::uint8_t {
    Socket,      // hosts cores; processes inject and receive messages here
    MemoryNode,  // store-and-forward; `local` rate when two direct neighbours exchange data
    Switch,      // store-and-forward network node (switch, QPI, memory controller)
    Nic,         // a node's network interface; store-and-forward, relays like a switch
};
const char* to_string(VertexKind kind);

// How a node's outgoing messages are moved (the node's NIC implementation): an id of a NIC
// model configured in the registry (topologies/nic_models.hpp). The two built-ins without
// parameters have fixed ids; nic_models().select("NAME:key=value") gives any other one its id.
enum class NicModel : std::uint8_t {
    Packet = 0,      // packets routed hop by hop, an event per packet per hop
    Analytical = 1,  // route computed once per packet, reservations on every hop, one event
};
// The NIC model as it was selected: "packet", "analytical", "NAME:key=value,...".
const char* to_string(NicModel model);

enum class Routing : std::uint8_t {
    ShortestPath,  // fewest hops; among equals the lowest edge index, always
    RoundRobin,    // fewest hops; among equals, rotate per vertex packet by packet
    Valiant,       // dragonfly: via a random router of a random other group, then minimal
    // As SimGrid routes its cluster zones (topologies/README.md, Routing), inside the
    // generators of that kind; elsewhere as ShortestPath. Deterministic, source-aware paths.
    DimensionOrder,  // <torus>: one dimension after the other, SimGrid's TorusZone
    DModK,           // <fat-tree>: up-link chosen by destination (D-mod-k), SimGrid's FatTreeZone
    SimGrid,         // all three: DimensionOrder, DModK, and a SimGrid-wired <dragonfly>'s minimal
    // Dragonfly, packet models: each packet between groups chooses at its source router
    // between the minimal path and a Valiant one (the intermediate router drawn as Valiant
    // draws it) by queue occupancy (models/README.md, "Adaptive routing"). The fluid model
    // routes them minimally.
    UgalL,  // the occupancy of the two output queues at the source router
    UgalG,  // the occupancy of every queue along each of the two paths
    // <fat-tree>, packet models: at every vertex the least occupied of the fewest-hop next
    // hops (the up-links towards the common ancestors), ties from D-mod-k's choice on; the
    // fluid model and fixed paths (validate, window sizes) follow d_mod_k.
    AdaptiveUp,
    // <torus>: one dimension after the other as DimensionOrder, but a destination exactly half
    // an even ring away is reached rightwards from an even source coordinate and leftwards
    // from an odd one, so both directions of a ring carry half of those routes (SimGrid's
    // rule sends most of them rightwards: tests/test_topo_torus_balanced.cpp).
    // The generated torus's own routing.
    DimensionOrderBalanced,
};
const char* to_string(Routing routing);
// The routing `text` names ("shortest_path", "round_robin", "valiant", "dimension_order",
// "d_mod_k", "simgrid", "ugal_l", "ugal_g", "adaptive_up", "dimension_order_balanced"; '-' for '_'
// read alike: simulator/spelling.hpp), nullopt if none.
std::optional<Routing> parse_routing(std::string_view text);
std::vector<std::string> routing_names();  // the names parse_routing reads, in table order
// Routings that choose per packet between minimal and Valiant paths (UGAL).
inline bool adaptive_dragonfly(Routing r) {
    return r == Routing::UgalL || r == Routing::UgalG;
}
// Routings that need a <fat-tree>.
inline bool needs_fat_tree(Routing r) {
    return r == Routing::DModK || r == Routing::AdaptiveUp;
}
// Routings that need a <torus>.
inline bool needs_torus(Routing r) {
    return r == Routing::DimensionOrder || r == Routing::DimensionOrderBalanced;
}
// Routings that route through another group of a <dragonfly> and need one.
inline bool needs_dragonfly(Routing r) {
    return r == Routing::Valiant || adaptive_dragonfly(r);
}
// Every packet of a pair takes one path, fixed when the pair first sends (all but RoundRobin,
// Valiant, UGAL and AdaptiveUp): the packet model keeps it instead of asking the router hop
// by hop.
inline bool fixed_path(Routing r) {
    return r != Routing::RoundRobin && r != Routing::AdaptiveUp && !needs_dragonfly(r);
}

struct VertexProps {
    std::string name;  // "n3.s0", "sw", "ft.l1.2"
    VertexKind kind = VertexKind::Switch;
    Bandwidth relay{};         // store-and-forward relay bandwidth; infinite() = unlimited
    Bandwidth local{};         // MemoryNode: rate for neighbour-to-neighbour exchange
    std::int32_t node = -1;    // index into Topology::nodes, -1 outside any node
    std::int32_t socket = -1;  // Socket: index within its node
    std::int32_t group = -1;   // dragonfly group of a router or of a node's vertices, -1 if none
    // Packet model: when this vertex may forward an arriving packet (topologies/forwarding.hpp:
    // kCutThrough, its head; kStoreAndForward, the whole packet; or a registered model).
    // Unset (kForwardingUnset): switches follow NetworkSettings::forwarding, NICs and memory
    // nodes store and forward.
    Forwarding forwarding = kForwardingUnset;
    int line = 0;  // line of the XML element that declared it (0: generated)
};

struct EdgeProps {
    Time latency;
    Bandwidth bandwidth;
    int line = 0;
};

using Graph = boost::compressed_sparse_row_graph<boost::bidirectionalS, VertexProps, EdgeProps,
                                                 boost::no_property, VertexId, EdgeId>;

struct SocketInfo {
    VertexId vertex = kNoVertex;
    std::uint32_t cores = 0;
    std::uint64_t speed = 0;  // instructions per second per core
};

struct NodeInfo {
    std::string name;
    std::string type;          // node-type it was expanded from
    std::uint64_t memory = 0;  // bytes
    std::vector<SocketInfo> sockets;
    VertexId nic = kNoVertex;
    NicModel nic_model = NicModel::Packet;
    std::uint64_t granularity = 0;  // packet size in bytes; 0 = whole message
    int line = 0;
};

// Which network model moves messages (the fidelity level), chosen per model.
enum class NetworkModel : std::uint8_t {
    Packet,    // packets through every vertex (store-and-forward, or cut-through per vertex)
    Fluid,     // one flow per message, max-min fair shares of links and relays
    Analytic,  // no graph traversal: PSINS-style analytic models (models/comm_spec.hpp)
};
const char* to_string(NetworkModel model);

struct NetworkSettings {
    NetworkModel model = NetworkModel::Packet;
    Forwarding forwarding = kStoreAndForward;  // default forwarding of switches (packet model)
    std::uint64_t granularity = 100 * 1024;    // 0 = whole-message transfers
    NicModel nic_model = NicModel::Packet;
    Routing routing = Routing::ShortestPath;
    std::uint64_t eager_threshold = 64 * 1024;  // bytes; larger messages use rendezvous
    // <network cpu="NAME[:key=value,...]">: the CPU model of every core (models/cpu.hpp's
    // cpu_models(); checked when a run starts, this folder does not know them). Empty:
    // processor sharing. `cpu_model_line`: the <network> element's line.
    std::string cpu_model;
    int cpu_model_line = 0;
    // <network progress="in_mpi">: the MPI library moves a rendezvous message only while its
    // receiver is inside an MPI call (no progress thread): a request-to-send that meets a
    // posted receive while the receiver computes is answered when the receiver's next MPI
    // call starts. False ("always", the default): answered at once.
    bool progress_in_mpi = false;
};

// The regular structure a generator laid out, kept for the routings that follow it
// (Routing::DimensionOrder, DModK, SimGrid). Vertex ids only: edges are found by their ends.
struct Fabric {
    enum class Kind : std::uint8_t { Torus, FatTree, Dragonfly };
    Kind kind = Kind::Torus;
    // Torus: sizes in SimGrid's order, the fastest-varying coordinate first (the generator's
    // `dims` reversed). Fat tree: d_1..d_h. Dragonfly (SimGrid wiring): groups, chassis,
    // blades (routers per chassis), nodes per router.
    std::vector<std::uint64_t> dims;
    std::vector<std::uint64_t> up, parallel;  // fat tree: u_1..u_h, p_1..p_h
    std::vector<VertexId> nics;               // position (node index in the generator) -> NIC
    // Fat tree: switches of level l (1..h) at levels[l-1], by index; dragonfly: routers in
    // order group, chassis, blade.
    std::vector<std::vector<VertexId>> levels;
    int line = 0;
};

// A route the model gives (<routes>: SimGrid's explicit <route>s): between the NICs of two
// nodes, the vertices a message crosses, in order. A route given is the route taken.
struct GivenRoute {
    std::uint32_t from = 0, to = 0;  // node indices
    std::vector<VertexId> via;       // between the two NICs
    std::int32_t table = 0;          // index into Topology::route_tables
    int line = 0;
};
// One <routes> element. `complete` (its `nodes` attribute, SimGrid's Full zone): an ordered
// pair of distinct `nodes` without a route in it has no route at all.
struct RouteTable {
    bool complete = false;
    std::vector<std::uint32_t> nodes;
    int line = 0;
};

struct Topology {
    std::string name;
    std::string source;  // file it was read from ("" if built in code)
    NetworkSettings settings;
    Graph graph;
    std::vector<NodeInfo> nodes;
    std::vector<Fabric> fabrics;  // generated torus, fat-tree and SimGrid-wired dragonfly blocks
    std::vector<GivenRoute> given_routes;  // <routes>: empty for most models
    std::vector<RouteTable> route_tables;

    std::size_t num_vertices() const { return boost::num_vertices(graph); }
    std::size_t num_edges() const { return boost::num_edges(graph); }
    const VertexProps& vertex(VertexId v) const { return graph[v]; }
    VertexId source_of(EdgeId e) const { return source_[e]; }
    VertexId target_of(EdgeId e) const { return target_[e]; }
    const EdgeProps& edge(EdgeId e) const { return edge_[e]; }
    // Out-edges of v as a contiguous range of edge ids [first, last).
    std::pair<EdgeId, EdgeId> out_edge_range(VertexId v) const {
        return {row_start_[v], row_start_[v + 1]};
    }
    VertexId find_vertex(const std::string& name) const;  // kNoVertex if absent

    // Flat per-edge arrays indexed by edge id (filled by TopologyBuilder::build).
    std::vector<VertexId> source_;
    std::vector<VertexId> target_;
    std::vector<EdgeProps> edge_;
    std::vector<EdgeId> row_start_;  // out-edges of v: [row_start_[v], row_start_[v+1])
};

// Collects vertices and edges, then builds the immutable graph.
class TopologyBuilder {
  public:
    VertexId add_vertex(VertexProps props);
    // Room for this many more vertices and one-way edges (a generator's nodes): no doubling
    // copies of the pending lists while they grow.
    void reserve(std::size_t vertices, std::size_t edges);
    void add_edge(VertexId from, VertexId to, Time latency, Bandwidth bandwidth, int line = 0);
    void add_cable(VertexId a, VertexId b, Time latency, Bandwidth bandwidth, int line = 0) {
        add_edge(a, b, latency, bandwidth, line);
        add_edge(b, a, latency, bandwidth, line);
    }
    std::size_t num_vertices() const { return vertices_.size(); }
    VertexProps& vertex(VertexId v) { return vertices_[v]; }
    std::vector<NodeInfo>& nodes() { return nodes_; }
    const std::vector<NodeInfo>& nodes() const { return nodes_; }
    NetworkSettings& settings() { return settings_; }
    std::vector<Fabric>& fabrics() { return fabrics_; }

    Topology build(std::string name, std::string source) &&;

  private:
    std::vector<VertexProps> vertices_;
    struct PendingEdge {
        VertexId from, to;
        EdgeProps props;
    };
    std::vector<PendingEdge> edges_;
    std::vector<NodeInfo> nodes_;
    NetworkSettings settings_;
    std::vector<Fabric> fabrics_;
};

}  // namespace clustersim::topo
