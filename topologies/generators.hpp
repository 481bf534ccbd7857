// Building cluster topologies out of node-type templates: the named-vertex builder the model
// reader uses, the star / fat-tree / torus expansions, and the XML writer behind
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
    Bandwidth relay{};  // infinite() = unlimited
    Bandwidth local{};  // MemoryNode only
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
};

// A TopologyBuilder with unique names: every vertex and node name is indexed once.
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
    TopologyBuilder& b_;
    std::unordered_map<std::string, VertexId> vertices_;
    std::unordered_map<std::string, std::uint32_t> nodes_;
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
};

// Each generator instantiates `type` for every node (the type must have a NIC: it is where
// the links attach) and cables the NICs. Switches, links and NodeInfo record `line` (the
// generator element); the vertices and edges inside nodes keep their template lines.
void expand_star(ModelBuilder& mb, const NodeTemplate& type, const StarSpec& spec, int line);
void expand_fat_tree(ModelBuilder& mb, const NodeTemplate& type, const FatTreeSpec& spec, int line);
void expand_torus(ModelBuilder& mb, const NodeTemplate& type, const TorusSpec& spec, int line);

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

// Options of `clustersim generate`.
struct GenerateOptions {
    std::string kind;          // "star" | "fat-tree" | "torus"
    std::uint32_t nodes = 16;  // star; fat-tree/torus when down/dims are empty
    std::uint32_t sockets = 1, cores = 1;
    std::uint64_t cpu_speed = 2'000'000'000;  // instr/s per core
    Bandwidth link_bandwidth{1'250'000'000};
    Time link_latency = Time::us(1);
    Bandwidth switch_bandwidth{};                // infinite = unlimited
    Bandwidth memory_bandwidth{20'000'000'000};  // socket<->memory-node cables
    Time memory_latency = Time::ns(100);
    Bandwidth inter_socket_bandwidth{12'800'000'000};
    Time inter_socket_latency = Time::ns(200);
    std::uint64_t granularity = 100 * 1024;  // 0 = whole message
    NicModel nic = NicModel::Packet;
    Routing routing = Routing::ShortestPath;
    std::uint64_t memory = 16ULL << 30;
    std::uint64_t eager_threshold = 64 * 1024;
    // Fat tree. Both empty: two levels, d1 = the largest divisor of `nodes` not above
    // sqrt(nodes), d2 = nodes / d1, up = 1,d1 (full bisection). `up` empty with `down`
    // given: u1 = 1, u_l = d_{l-1}.
    std::vector<std::uint32_t> down, up;
    // Torus. Empty: two dimensions a x b = nodes, a the largest divisor not above
    // sqrt(nodes) (a dimension of size 1 is left out).
    std::vector<std::uint32_t> dims;
};

// A short model file: <cluster>, <network>, one <node-type> "node", one generator element.
// Values are written with the canonical_* forms, so the file parses back exactly.
// Throws InputError (no file, no line) on an unknown kind or impossible options.
std::string generate_model_xml(const GenerateOptions& options);

}  // namespace clustersim::topo
