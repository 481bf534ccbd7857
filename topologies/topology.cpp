#include "topologies/topology.hpp"

#include "simulator/spelling.hpp"
#include "topologies/nic_models.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace clustersim::topo {

const char* to_string(VertexKind kind) {
    switch (kind) {
        case VertexKind::Socket:
            return "socket";
        case VertexKind::MemoryNode:
            return "memory-node";
        case VertexKind::Switch:
            return "switch";
        case VertexKind::Nic:
            return "nic";
    }
    return "?";
}

const char* to_string(NicModel model) {
    return nic_models().spec(model);
}

const char* to_string(NetworkModel model) {
    switch (model) {
        case NetworkModel::Packet:
            return "packet";
        case NetworkModel::Fluid:
            return "fluid";
        case NetworkModel::Analytic:
            return "analytic";
    }
    return "?";
}

namespace {
struct NamedRouting {
    const char* name;
    Routing routing;
};
constexpr NamedRouting kRoutings[] = {
    {"shortest_path", Routing::ShortestPath},
    {"round_robin", Routing::RoundRobin},
    {"valiant", Routing::Valiant},
    {"dimension_order", Routing::DimensionOrder},
    {"d_mod_k", Routing::DModK},
    {"simgrid", Routing::SimGrid},
    {"ugal_l", Routing::UgalL},
    {"ugal_g", Routing::UgalG},
    {"adaptive_up", Routing::AdaptiveUp},
    {"dimension_order_balanced", Routing::DimensionOrderBalanced}};
}  // namespace

const char* to_string(Routing routing) {
    for (const NamedRouting& r : kRoutings)
        if (r.routing == routing) return r.name;
    return "?";
}

std::vector<std::string> routing_names() {
    std::vector<std::string> out;
    for (const NamedRouting& r : kRoutings) out.emplace_back(r.name);
    return out;
}

std::optional<Routing> parse_routing(std::string_view text) {
    if (const NamedRouting* r =
            find_named(kRoutings, text, [](const NamedRouting& x) { return x.name; }))
        return r->routing;
    return std::nullopt;
}

VertexId Topology::find_vertex(const std::string& name) const {
    for (VertexId v = 0; v < num_vertices(); ++v)
        if (graph[v].name == name) return v;
    return kNoVertex;
}

void TopologyBuilder::reserve(std::size_t vertices, std::size_t edges) {
    vertices_.reserve(vertices_.size() + vertices);
    edges_.reserve(edges_.size() + edges);
}

VertexId TopologyBuilder::add_vertex(VertexProps props) {
    vertices_.push_back(std::move(props));
    return static_cast<VertexId>(vertices_.size() - 1);
}

void TopologyBuilder::add_edge(VertexId from, VertexId to, Time latency, Bandwidth bandwidth,
                               int line) {
    edges_.push_back(PendingEdge{from, to, EdgeProps{latency, bandwidth, line}});
}

Topology TopologyBuilder::build(std::string name, std::string source) && {
    // CSR needs edges sorted by source, in declaration order among a vertex's out-edges
    // (that order fixes the tie-breaking order of shortest-path routing): a counting sort by
    // source, straight into the arrays the graph is built from (no sort buffer), and the
    // pending list freed before the graph allocates its own.
    const std::size_t n = vertices_.size();
    std::vector<std::size_t> slot(n + 1, 0);
    for (const auto& e : edges_) ++slot[e.from + 1];
    for (std::size_t v = 0; v < n; ++v) slot[v + 1] += slot[v];
    std::vector<std::pair<VertexId, VertexId>> ends(edges_.size());
    std::vector<EdgeProps> props(edges_.size());
    for (const auto& e : edges_) {
        const std::size_t i = slot[e.from]++;
        ends[i] = {e.from, e.to};
        props[i] = e.props;
    }
    std::vector<PendingEdge>().swap(edges_);
    std::vector<std::size_t>().swap(slot);
    Topology t;
    t.name = std::move(name);
    t.source = std::move(source);
    t.settings = settings_;
    t.fabrics = std::move(fabrics_);
    t.graph = Graph(boost::edges_are_unsorted_multi_pass, ends.begin(), ends.end(), props.begin(),
                    vertices_.size());
    for (VertexId v = 0; v < vertices_.size(); ++v) t.graph[v] = std::move(vertices_[v]);
    // Read the edge ids back from the graph itself rather than assuming its internal order.
    const std::size_t m = ends.size();
    t.source_.resize(m);
    t.target_.resize(m);
    t.edge_.resize(m);
    t.row_start_.assign(t.num_vertices() + 1, 0);
    for (VertexId v = 0; v < t.num_vertices(); ++v) {
        EdgeId lo = UINT32_MAX, hi = 0;
        for (auto [it, last] = boost::out_edges(v, t.graph); it != last; ++it) {
            const EdgeId e = static_cast<EdgeId>(boost::get(boost::edge_index, t.graph, *it));
            t.source_[e] = v;
            t.target_[e] = static_cast<VertexId>(boost::target(*it, t.graph));
            t.edge_[e] = t.graph[*it];
            lo = std::min(lo, e);
            hi = std::max(hi, e + 1);
        }
        t.row_start_[v] = lo == UINT32_MAX ? (v == 0 ? 0 : t.row_start_[v]) : lo;
        if (lo != UINT32_MAX && hi - lo != boost::out_degree(v, t.graph))
            throw std::logic_error("CSR out-edges are not contiguous");
    }
    // Vertices without out-edges start where the next populated row starts.
    t.row_start_[t.num_vertices()] = static_cast<EdgeId>(m);
    for (std::size_t v = t.num_vertices(); v-- > 0;)
        if (boost::out_degree(static_cast<VertexId>(v), t.graph) == 0)
            t.row_start_[v] = t.row_start_[v + 1];
    t.nodes = std::move(nodes_);
    vertices_.clear();
    return t;
}

}  // namespace clustersim::topo
