// Building cluster topologies out of node-type templates: the named-vertex builder the model
// reader uses, the star / fat-tree / torus / dragonfly expansions, and the XML writer behind
// `clustersim generate`.
//
// A NodeTemplate is a parsed <node-type>: local vertices ("s0", "mem0", "qpi", "nic") and
// one-way edges between them. ModelBuilder instantiates it as node "n3" with vertices
// "n3.s0", ... and keeps a hash index of every vertex and node name, so the expansion of a
// 65,536-node star costs a few hash insertions per vertex and nothing quadratic.
//
// Expansion errors (a name used twice, a template without a NIC, an impossible size) throw
// ModelError, whose message has no file or line: the reader adds those of the element.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "simulator/time.hpp"
#include "topologies/topology.hpp"

namespace clustersim::topo {

class ModelError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Upper bound on the nodes one model may hold (keeps vertex ids far from overflow).
inline constexpr std::uint64_t kMaxNodes = 1ULL << 24;

// One vertex of a node type. Sockets carry cores and speed; the others relay bandwidths.
struct TemplateVertex {
    std::string name;  // local name, e.g. "s0"
    VertexKind kind = VertexKind::Switch;
    Bandwidth relay{};                         // infinite() = unlimited
    Bandwidth local{};                         // MemoryNode only
    Forwarding forwarding = kForwardingUnset;  // forwarding="..." (topologies/forwarding.hpp)
    std::uint32_t cores = 0;
    std::uint64_t speed = 0;
    int line = 0;
};

// One one-way edge between two local vertices (indices into NodeTemplate::vertices).
struct TemplateEdge {
    std::uint32_t from = 0, to = 0;
    Time latency;
    Bandwidth bandwidth;
    int line = 0;
};

struct NodeTemplate {
    static constexpr std::uint32_t kNone = UINT32_MAX;
    std::string name;
    std::uint64_t memory = 0;                  // bytes
    std::optional<NicModel> nic_model;         // absent: the network default
    std::optional<std::uint64_t> granularity;  // absent: the network default; 0 = message
    std::vector<TemplateVertex> vertices;
    std::vector<TemplateEdge> edges;
    std::uint32_t nic = kNone;  // index of the NIC vertex, kNone if none
    int line = 0;

    // Index of the local vertex `name`, kNone if absent (linear: templates are small).
    std::uint32_t find(std::string_view local_name) const;
    std::size_t num_sockets() const;

  private:
    mutable std::unordered_map<std::string, std::uint32_t> index_;  // name -> first vertex
    mutable std::size_t indexed_ = 0;                               // vertices indexed so far
};

// A TopologyBuilder with unique names: every node name and top-level vertex name is indexed
// once; a node's vertices are found through their node (see NodeVertices).
class ModelBuilder {
  public:
    explicit ModelBuilder(TopologyBuilder& builder) : b_(builder) {}

    TopologyBuilder& builder() { return b_; }
    // Adds a network vertex; throws ModelError if its name is taken.
    VertexId add_vertex(VertexProps props);
    // Vertex by full name ("n0.nic", "sw"), kNoVertex if absent.
    VertexId find(std::string_view name) const;
    // Instantiates `type` as node `name` (vertices "<name>.<local>") with the NIC model and
    // granularity resolved against builder().settings(); returns the node's index. `line`
    // is recorded in NodeInfo; vertices and edges keep the lines of the template elements.
    std::uint32_t add_node(const NodeTemplate& type, const std::string& name, int line);
    // Makes room for `nodes` more nodes of `type` (avoids rehashing in generator loops).
    void reserve(const NodeTemplate& type, std::uint64_t nodes);

  private:
    // Names are looked up without building a std::string key.
    struct NameHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const {
            return std::hash<std::string_view>{}(s);
        }
    };
    using NameMap = std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>>;
    // A node's vertices are the contiguous ids [first, first + count): "<node>.<local>" is
    // found through the node's name and a scan of its few vertices, so the names of node
    // vertices are not hashed (issue 25: hashing them was a tenth of building a 262,144-node
    // star). They cannot collide with one another: node names are unique and a template's
    // local names are; names read from a model contain no '.', so a node vertex's name
    // (which does) cannot collide with a top-level vertex's either. Only a top-level name
    // with a '.' given through this API is checked against node vertices (dotted_).
    struct NodeVertices {
        VertexId first = 0;
        std::uint32_t count = 0;
    };
    VertexId find_in_node(std::string_view name) const;  // "<node>.<local>", else kNoVertex
    TopologyBuilder& b_;
    NameMap vertices_;                         // top-level vertices
    NameMap nodes_;                            // node name -> index
    std::vector<NodeVertices> node_vertices_;  // per node
    std::size_t dotted_ = 0;                   // top-level names with a '.'
};

// Parameters shared by the generators: nodes are "<prefix>0" .. "<prefix>N-1".
struct LinkSpec {
    Time latency;
    Bandwidth bandwidth;
};

struct StarSpec {
    std::string prefix = "n";
    std::uint64_t nodes = 0;
    std::string switch_name;       // empty: "<prefix>sw"
    Bandwidth switch_bandwidth{};  // infinite = unlimited relay
    LinkSpec link;
};

// Extended generalized fat tree XGFT(h; d_1..d_h; u_1..u_h) with p_l parallel cables per
// connection. Nodes = prod d_i. Level-l switches are "<switch_prefix><l>_<index>".
struct FatTreeSpec {
    std::string prefix = "n";
    std::vector<std::uint64_t> down, up, parallel;  // parallel empty: 1 per level
    std::string switch_prefix;                      // empty: "<prefix>sw"
    Bandwidth switch_bandwidth{};
    LinkSpec link;
};

struct TorusSpec {
    std::string prefix = "n";
    std::vector<std::uint64_t> dims;
    LinkSpec link;
    // SimGrid's TorusZone wiring: one cable per node and dimension to its +1 neighbour, so a
    // dimension of size 2 has two cables per pair (SimGrid routes over the lower node's
    // both ways) and nodes x dimensions cables in all, less the size-1 dimensions' (SimGrid's
    // self-links, which no route uses). False: one cable per neighbouring pair.
    bool per_node_links = false;
};

// Kim-Dally-Scott-Abts dragonfly: `groups` groups of `routers` routers, the routers of a
// group fully connected by local cables, every router with `global_links` global ports and
// `nodes_per_router` nodes. Global port k of group i (k < routers * global_links) belongs to
// router k / global_links; ports go round-robin to the other groups in increasing group
// number (see expand_dragonfly). Routers are "<switch_prefix>g<G>r<R>"; node
// (G, R, slot) is "<prefix><(G * routers + R) * nodes_per_router + slot>".
struct DragonflySpec {
    std::string prefix = "n";
    std::uint64_t groups = 0, routers = 0, nodes_per_router = 0, global_links = 0;
    std::string switch_prefix;     // empty: "<prefix>df"
    Bandwidth router_bandwidth{};  // infinite = unlimited relay
    LinkSpec link;                 // node NIC <-> router
    LinkSpec local;                // router <-> router of the same group
    LinkSpec global;               // router <-> router of another group
    // SimGrid's DragonflyZone wiring when > 0: `routers` routers ("blades") in each of
    // `chassis` chassis per group; every pair of routers of a chassis is cabled (`local`:
    // SimGrid's green links), routers of the same blade number in the chassis of a group
    // pairwise (`chassis_link`: black links), and each pair of groups i < j once (`global`:
    // blue links) between router j of group i and router i of group j, routers numbered
    // chassis * routers + blade (needs groups <= routers). `global_links` is not used.
    std::uint64_t chassis = 0;
    LinkSpec chassis_link;
};

// Each generator instantiates `type` for every node (the type must have a NIC: it is where
// the links attach) and cables the NICs. Switches, links and NodeInfo record `line` (the
// generator element); the vertices and edges inside nodes keep their template lines.
void expand_star(ModelBuilder& mb, const NodeTemplate& type, const StarSpec& spec, int line);
void expand_fat_tree(ModelBuilder& mb, const NodeTemplate& type, const FatTreeSpec& spec, int line);
void expand_torus(ModelBuilder& mb, const NodeTemplate& type, const TorusSpec& spec, int line);
// Also sets VertexProps::group on every router and on every vertex of its nodes.
// Global cables (m = groups - 1, P = routers * global_links ports per group): port k of
// group i goes to the (k mod m)-th other group j in increasing order (j = k mod m, plus 1 if
// that is >= i), as the cable of round c = k / m between i and j; at j it is the port
// c * m + (index of i among j's others). Full rounds (c < P / m) join every pair; in the
// last, partial round (R = P mod m ports) a pair is cabled only if both ends have that port,
// which is exactly the pairs inside groups 0..R: groups R+1.. leave their last R ports free.
void expand_dragonfly(ModelBuilder& mb, const NodeTemplate& type, const DragonflySpec& spec,
                      int line);

// Sizes of an XGFT, for checks and tests: switches per level (index 0 = level 1) and the
// number of (one-way-pair) cables between level l-1 and level l (index 0 = level 1).
struct FatTreeShape {
    std::uint64_t nodes = 0;
    std::vector<std::uint64_t> switches;
    std::vector<std::uint64_t> cables;
};
// Throws ModelError on inconsistent or oversized parameters.
FatTreeShape fat_tree_shape(const std::vector<std::uint64_t>& down,
                            const std::vector<std::uint64_t>& up,
                            const std::vector<std::uint64_t>& parallel);

// Sizes of a dragonfly, for checks and tests (cables are two-way: one cable = two edges).
struct DragonflyShape {
    std::uint64_t routers = 0;          // groups * routers per group
    std::uint64_t nodes = 0;            // routers * nodes_per_router
    std::uint64_t local_cables = 0;     // groups * a(a-1)/2
    std::uint64_t global_cables = 0;    // full rounds * g(g-1)/2 + R(R+1)/2 (see above)
    std::uint64_t cables_per_pair = 0;  // global cables between two groups (at least)
};
// Throws ModelError on a zero count, more groups than routers * global_links + 1, or an
// oversized network.
DragonflyShape dragonfly_shape(std::uint64_t groups, std::uint64_t routers,
                               std::uint64_t nodes_per_router, std::uint64_t global_links);

// A balanced dragonfly (Kim et al.: a = 2p = 2h, at most a*h + 1 groups) with at least
// `nodes` nodes and the fewest nodes possible (ties: the smaller p). `nodes` >= 1.
struct DragonflySize {
    std::uint64_t groups = 0, routers = 0, nodes_per_router = 0, global_links = 0;
};
DragonflySize balanced_dragonfly(std::uint64_t nodes);

// Options of `clustersim generate`.
struct GenerateOptions {
    std::string kind;          // "star" | "fat-tree" | "torus" | "dragonfly"
    std::uint32_t nodes = 16;  // star; fat-tree/torus/dragonfly when their shape is empty
    std::uint32_t sockets = 1, cores = 1;
    std::uint64_t cpu_speed = 2'000'000'000;  // instr/s per core
    Bandwidth link_bandwidth{1'250'000'000};
    Time link_latency = Time::us(1);
    Bandwidth switch_bandwidth{};                // infinite = unlimited; dragonfly routers too
    Bandwidth memory_bandwidth{20'000'000'000};  // socket<->memory-node cables
    Time memory_latency = Time::ns(100);
    Bandwidth inter_socket_bandwidth{12'800'000'000};
    Time inter_socket_latency = Time::ns(200);
    // The packet size (0 = whole messages) and how switches and NICs forward (a
    // forwarding_models() id). Empty: the kind's own (default_packet_size, default_forwarding):
    // MTU-sized packets forwarded cut-through, as InfiniBand, Slingshot and Omni-Path fabrics
    // do (models/README.md, "Generated fabrics"). Both are written into the file.
    std::optional<std::uint64_t> granularity;
    std::optional<Forwarding> forwarding;
    NicModel nic = NicModel::Packet;
    // Empty: the routing the fabric is built for (natural_routing): D-mod-k on a fat tree (its
    // up-paths spread over every spine), dimension order with balanced ties on a torus,
    // UGAL-L on a dragonfly (as Aries and Slingshot route adaptively by default), minimal
    // (shortest-path) on a star. Valiant and UGAL: dragonfly only.
    std::optional<Routing> routing;
    std::uint64_t memory = 16ULL << 30;
    std::uint64_t eager_threshold = 64 * 1024;
    // Fat tree. Both empty: two levels, d1 = the largest divisor of `nodes` not above
    // sqrt(nodes), d2 = nodes / d1, up = 1,d1 (full bisection). `up` empty with `down`
    // given: u1 = 1, u_l = d_{l-1}.
    std::vector<std::uint32_t> down, up;
    // Torus. Empty: two dimensions a x b = nodes, a the largest divisor not above
    // sqrt(nodes) (a dimension of size 1 is left out).
    std::vector<std::uint32_t> dims;
    // Dragonfly shape (0 = not given). All four 0: balanced_dragonfly(nodes). Otherwise
    // routers, nodes_per_router and global_links are required; groups 0 means the most that
    // global_links allows, routers * global_links + 1 (one global cable per pair of groups).
    std::uint32_t groups = 0, routers = 0, nodes_per_router = 0, global_links = 0;
    // Dragonfly router-to-router cables (the node cables use link_*): local inside a group,
    // global between groups. Empty: link_bandwidth for both, link_latency inside a group and
    // twice it between groups (longer, optical cables).
    std::optional<Bandwidth> local_bandwidth, global_bandwidth;
    std::optional<Time> local_latency, global_latency;
    // The command that asked for the model, written into its first comment (empty: the kind).
    std::string command;
};

// The routing a generated fabric is built for (GenerateOptions::routing when empty).
Routing natural_routing(const std::string& kind);
// The packet size a generated fabric of `kind` gets when --granularity names none: 4 KiB
// (InfiniBand's largest MTU, every kind; models/README.md, "Generated fabrics").
std::uint64_t default_packet_size(const std::string& kind);
// The forwarding of a generated fabric's switches and NICs when --forwarding names none:
// cut-through (every kind).
Forwarding default_forwarding(const std::string& kind);

// A short model file: <cluster>, <network>, one <node-type> "node", one generator element.
// Values are written with the canonical_* forms, so the file parses back exactly.
// Throws InputError (no file, no line) on an unknown kind or impossible options.
std::string generate_model_xml(const GenerateOptions& options);

}  // namespace clustersim::topo
