// The cluster's hardware graph: vertices are sockets (where processes run), memory nodes,
// store-and-forward switches and NICs; edges are one-way links with a latency and a
// bandwidth (a cable is two edges). Held in a Boost.Graph compressed_sparse_row_graph:
// immutable once built, compact enough for 65,536-node clusters, and edges carry dense
// indices that the network model uses to index its per-link state.
#pragma once

#include <cstdint>
#include <string>
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
};
const char* to_string(Routing routing);
// Every packet of a pair takes one path, fixed when the pair first sends (all but RoundRobin
// and Valiant): the packet model keeps it instead of asking the router hop by hop.
inline bool fixed_path(Routing r) {
    return r != Routing::RoundRobin && r != Routing::Valiant;
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
    Analytic,  // no graph traversal: PSINS-style analytic models (CommModelSpec)
};
const char* to_string(NetworkModel model);

struct NetworkSettings {
    NetworkModel model = NetworkModel::Packet;
    Forwarding forwarding = kStoreAndForward;  // default forwarding of switches (packet model)
    std::uint64_t granularity = 100 * 1024;    // 0 = whole-message transfers
    NicModel nic_model = NicModel::Packet;
    Routing routing = Routing::ShortestPath;
    std::uint64_t eager_threshold = 64 * 1024;  // bytes; larger messages use rendezvous
    // <network progress="in-mpi">: the MPI library moves a rendezvous message only while its
    // receiver is inside an MPI call (no progress thread): a request-to-send that meets a
    // posted receive while the receiver computes is answered when the receiver's next MPI
    // call starts. False ("always", the default): answered at once.
    bool progress_in_mpi = false;
};

// One <algorithm> rule of the model's <collectives> element: use `algorithm` for
// `operation` when the size a rank passes is in [min_bytes, max_bytes). Names are checked
// against the collectives registry when a run starts (this folder does not know it).
struct CollectiveRule {
    std::string operation;
    std::string algorithm;
    std::uint64_t min_bytes = 0;
    std::uint64_t max_bytes = UINT64_MAX;
    std::uint64_t segment = 0;  // pipelined algorithms; 0 = the algorithm's default
    int line = 0;
};

// One per-message software cost of the MPI library (LogGP's o), charged on the rank's core
// (collectives/runtime.hpp says where). Either `time` + size / `bandwidth` (bandwidth
// infinite: the constant alone), or, with `points` (sizes strictly rising), the time
// interpolated linearly in size between neighbouring points, the first point's time below
// the first size and the last point's above the last. Zero (the default): no cost.
struct OverheadSpec {
    Time time;
    Bandwidth bandwidth = kInfiniteBandwidth;
    std::vector<std::pair<std::uint64_t, Time>> points;
    bool zero() const { return points.empty() && time == Time::zero() && bandwidth.infinite(); }
    // The cost for a message of `bytes`.
    Time at(std::uint64_t bytes) const;
};

struct MpiSettings {
    std::vector<CollectiveRule> collectives;
    // <collectives profile="openmpi-4.1">: choose like that library (collectives/selection.hpp
    // checks the name); "" = none.
    std::string profile;
    int profile_line = 0;
    std::uint64_t reduce_instructions_per_byte = 1;  // CPU cost of combining reduced data
    // Measured rates instead (clustersim-calibrate): combining reduced data runs at
    // `reduce_bandwidth` (wins over instructions per byte); a rank copying its own block
    // (gather/scatter root, allgather, alltoall) costs it / `copy_bandwidth`. Infinite
    // (the default): instructions per byte, and no copy cost.
    Bandwidth reduce_bandwidth = kInfiniteBandwidth;
    Bandwidth copy_bandwidth = kInfiniteBandwidth;
    // <reduce-rate>/<copy-rate> children: the rates against the size (sizes strictly rising);
    // they win over the attributes.
    std::vector<std::pair<std::uint64_t, Bandwidth>> reduce_curve, copy_curve;
    // <collectives buffer-copies="yes">: the collective algorithms' own buffer copies (Open
    // MPI 4.1's: an allreduce's send buffer into its receive buffer or a temporary,
    // recursive doubling's result back) cost their bytes at the copy rate. Off by default.
    bool buffer_copies = false;
    // <mpi-overhead>: per-message software costs. `send` (o_s) before a message leaves,
    // `recv` (o_r) after it has arrived and before its receive completes, `post` when a
    // receive is posted; all zero unless the model says otherwise.
    OverheadSpec send_overhead, recv_overhead, post_overhead;
    int overhead_line = 0;  // the <mpi-overhead> element's line (0: none)
    // <collectives comm-create="14us">: communicator creation (comm_dup, comm_split) is
    // modelled: an allreduce of 8 bytes over the parent communicator (the new context id's
    // agreement), then this local cost on each member's core. Absent: creation only
    // synchronises, at no cost.
    bool comm_create_modelled = false;
    Time comm_create_local;
    // <collectives barrier="0.9us">: what the library spends in MPI_Barrier beyond the
    // messages of its algorithm (Open MPI's flag round trips in shared memory), charged on
    // each member's core after the algorithm's last step. Zero (absent): nothing.
    Time barrier_cost;
};

// Parallel I/O (iosys/). A component chosen by name, with its parameters as written in the
// XML (attribute name -> text). Names and parameters are checked against the iosys
// registries when a run starts, so this folder does not know the valid names; `line` is
// where the element is, for errors.
struct ComponentSpec {
    std::string model;
    std::vector<std::pair<std::string, std::string>> params;
    int line = 0;
};

// <io-server>: one file system server on a node (at most one per node).
struct IoServerSpec {
    std::int32_t node = -1;  // index into Topology::nodes
    ComponentSpec cache;     // <cache model="none|write_behind|aggregation|reorder" .../>
    ComponentSpec disk;      // <disk model="simple|hdd|ssd" .../>
    int line = 0;
};

// <io-forwarder>: every rank on one of `clients` talks to the servers through `node`.
struct IoForwarderSpec {
    std::int32_t node = -1;             // index into Topology::nodes
    std::vector<std::int32_t> clients;  // node indices
    int line = 0;
};

// <file-system>: how files are laid out over the servers and what metadata costs.
struct FileSystemSpec {
    bool present = false;                          // false: the model has no file system
    std::string distribution = "simple-striping";  // checked by iosys
    std::uint64_t stripe = 64 * 1024;              // bytes per chunk, > 0
    std::vector<std::int32_t> servers;  // indices into IoSettings::servers, in stripe order
    Time open = Time::zero();           // metadata cost of MPI_File_open
    Time close = Time::zero();          // of MPI_File_close
    Time sync = Time::zero();           // of MPI_File_sync, after the dirty data is on disk
    // Issue 23: metadata that grows with the communicator (open and close of a file by P
    // ranks cost open + (P - 1) open_per_rank, close + (P - 1) close_per_rank), a close that
    // synchronizes like the open (OMPIO's), and a client cost per request to a server.
    Time open_per_rank = Time::zero();
    Time close_per_rank = Time::zero();
    bool close_collective = false;
    Time request_overhead = Time::zero();
    std::uint64_t request_bytes = 256;           // size of a request or acknowledgement message
    std::uint64_t granularity = 1024 * 1024;     // a server handles data in chunks of this size
    std::uint64_t cb_buffer = 16 * 1024 * 1024;  // two-phase collective buffer per aggregator
    std::int32_t cb_nodes = 0;  // two-phase aggregators; 0 = one per node of the communicator
    int line = 0;
};

// <jitter> in a <node-type>: OS noise on that type's cores (issue 6). The reader keeps the
// spec only; the simulation loads the trace (through a callback: this folder reads no jitter
// files) or runs the generator, and places each core in it with the start policy.
struct JitterSpec {
    enum class Start : std::uint8_t { Unsynchronized, Synchronized, Coscheduled, Explicit };
    std::string node_type;     // the <node-type> it belongs to
    std::int32_t core = -1;    // core within the node (sockets in order, then cores); -1 = all
    std::string trace;         // trace file, resolved against the model's directory; or empty
    std::string generator;     // or a models/noise_gen.hpp spec ("periodic:period=10ms,...")
    Time length = Time::s(1);  // generator: length of the trace it makes
    double frequency_hz = 0;   // 0: not given (trace: its header; generator: core speed)
    bool has_seed = false;     // seed given (else the run's seed)
    std::uint64_t seed = 1;    // generator and random start positions
    Start start = Start::Unsynchronized;
    Time window_high, window_low;              // Coscheduled
    std::vector<std::uint64_t> start_indices;  // Explicit: core k starts at tuple [k % size]
    int line = 0;
};

// <comm-model>: an analytic communication model in the manner of PSINS (models/comm_model.hpp)
// instead of moving messages through the graph. The reader keeps what the XML says; the
// model name and collective operation names are checked when a run starts (models/ and
// collectives/ know the valid ones). Values left out are derived from the graph: the latency
// and bottleneck bandwidth of the route between the two sockets.
struct CommCollectiveSpec {
    std::string operation;  // "allreduce", ... (checked by collectives/)
    std::string scaling;    // "constant", "linear", "logarithmic"; empty: the model's default
    // Measured bandwidth of the operation against the size a rank passes, at `ranks` ranks
    // (PSINS's PMaC collectives; clustersim-calibrate writes these). Sizes strictly rising.
    std::vector<std::pair<std::uint64_t, Bandwidth>> points;
    std::uint32_t ranks = 0;  // ranks the points were measured at; 0: no points
    int line = 0;
};

// <node-type name=...> inside <comm-model>: the links and node-local costs of one node type
// (heterogeneous machines). Zero / unset values fall back to the <comm-model>'s own.
struct CommNodeSpec {
    std::string node_type;
    std::uint32_t in_links = 0, out_links = 0;  // 0: the model's default
    bool has_latency = false, has_bandwidth = false;
    Time latency;         // between two processes of one node
    Bandwidth bandwidth;  // between two processes of one node
    int line = 0;
};

struct CommModelSpec {
    bool present = false;        // a <comm-model> element was given
    std::string model;           // "simple", "bus_only", ... (checked by models/)
    bool has_latency = false;    // inter-node latency given (else: from the graph)
    bool has_bandwidth = false;  // inter-node bandwidth given (else: from the graph)
    Time latency;
    Bandwidth bandwidth;
    bool has_intra_latency = false, has_intra_bandwidth = false;  // default for every node type
    Time intra_latency;
    Bandwidth intra_bandwidth;
    std::uint32_t buses = 1;                    // global buses (contention models)
    std::uint32_t in_links = 1, out_links = 1;  // per node, default for every node type
    bool collectives_as_messages = false;       // collectives="messages": run their algorithms
    // <point-to-point scope="intra-node|inter-node">: measured transfer bandwidth of one
    // message against its size (sizes strictly rising); empty: latency + size / bandwidth.
    // A message of s bytes then takes s / curve(s) plus the pair's latency.
    std::vector<std::pair<std::uint64_t, Bandwidth>> intra_curve, inter_curve;
    int intra_curve_line = 0, inter_curve_line = 0;
    // <point-to-point scope="…" direction="both">: the transfer bandwidth of one direction
    // of a two-way exchange (a message whose sender is receiving, or whose receiver is
    // sending, at the same time); empty: such a message takes the one-way curve (issue 23).
    std::vector<std::pair<std::uint64_t, Bandwidth>> intra_two_way, inter_two_way;
    int intra_two_way_line = 0, inter_two_way_line = 0;
    std::vector<CommNodeSpec> node_types;
    std::vector<CommCollectiveSpec> collectives;
    int line = 0;
};

struct IoSettings {
    std::vector<IoServerSpec> servers;  // in document order
    std::vector<IoForwarderSpec> forwarders;
    FileSystemSpec fs;
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

struct Topology {
    std::string name;
    std::string source;  // file it was read from ("" if built in code)
    NetworkSettings settings;
    MpiSettings mpi;
    IoSettings io;
    std::vector<JitterSpec> jitter;  // in document order
    CommModelSpec comm;              // <comm-model> (used when settings.model is Analytic)
    Graph graph;
    std::vector<NodeInfo> nodes;
    std::vector<Fabric> fabrics;  // generated torus, fat-tree and SimGrid-wired dragonfly blocks

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
    void add_edge(VertexId from, VertexId to, Time latency, Bandwidth bandwidth, int line = 0);
    void add_cable(VertexId a, VertexId b, Time latency, Bandwidth bandwidth, int line = 0) {
        add_edge(a, b, latency, bandwidth, line);
        add_edge(b, a, latency, bandwidth, line);
    }
    std::size_t num_vertices() const { return vertices_.size(); }
    VertexProps& vertex(VertexId v) { return vertices_[v]; }
    std::vector<NodeInfo>& nodes() { return nodes_; }
    NetworkSettings& settings() { return settings_; }
    MpiSettings& mpi() { return mpi_; }
    IoSettings& io() { return io_; }
    std::vector<JitterSpec>& jitter() { return jitter_; }
    CommModelSpec& comm() { return comm_; }
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
    MpiSettings mpi_;
    IoSettings io_;
    std::vector<JitterSpec> jitter_;
    CommModelSpec comm_;
    std::vector<Fabric> fabrics_;
};

}  // namespace clustersim::topo
