// Routing over the hardware graph: fewest hops, with either a fixed choice among equal-cost
// next hops (shortest-path) or a per-vertex rotation among them (round-robin).
//
// Cluster graphs are mostly trees hanging off a small meshed core: a node's sockets, memory
// nodes and NIC hang off a switch; a star is a tree altogether. The router peels the graph:
// a vertex whose only neighbour (both directions) is one other vertex is a leaf of a tree,
// repeatedly, until only the core is left. Inside a tree the route is up to the common
// ancestor and down again (Euler-tour intervals answer "is dst below me" in O(1)); between
// trees it climbs to the core, follows a breadth-first distance table towards the
// destination's anchor (built lazily per anchor, over core vertices only), and descends.
// So a 65,536-node star needs no table at all, and a fat tree one small table per leaf
// switch that is actually used.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "simulator/rng.hpp"
#include "topologies/topology.hpp"

namespace clustersim::topo {

class Router {
  public:
    explicit Router(const Topology& topology);

    // Next edge from v towards dst (v != dst), or kNoEdge if dst cannot be reached. With
    // round-robin routing this advances v's rotation when there is a choice.
    EdgeId next_hop(VertexId v, VertexId dst);
    // The same decision without advancing any rotation (the first choice).
    EdgeId peek_hop(VertexId v, VertexId dst) const;
    // The first-choice path from `from` to `to` as edge ids; empty if unreachable or equal.
    // With Routing::DimensionOrder(Balanced), DModK or SimGrid, a path between nodes of one generated
    // torus, fat tree or SimGrid-wired dragonfly follows that fabric's rule (fabric_path),
    // which depends on the source as well: next_hop/peek_hop then answer the first edge of
    // path(v, dst), and the models keep whole paths (fixed_path).
    std::vector<EdgeId> path(VertexId from, VertexId to) const;
    // The same path appended to `out` (from != to); false, with `out` as it was, if there is
    // none. No allocation beyond `out`'s growth: the route service calls this for every new
    // source-destination pair (a binomial bcast meets a new pair with every message).
    bool append_path(VertexId from, VertexId to, std::vector<EdgeId>& out) const;
    bool reachable(VertexId from, VertexId to) const;
    // Every fewest-hop next edge from v towards dst (v != dst) in out-edge order, whatever
    // the routing (`out` cleared first; empty if unreachable): the choices an adaptive
    // routing picks among (Routing::AdaptiveUp).
    void minimal_hops(VertexId v, VertexId dst, std::vector<EdgeId>& out) const {
        candidates(v, dst, out);
    }

    // The tree a vertex hangs in (the header's peeling), for a model that builds routes from
    // per-vertex halves (the fluid model): its parent (kNoVertex for a core vertex, an
    // anchor) and the first-choice edges from it up to its parent and from its parent down
    // to it (kNoEdge when there is none that way). While tree_routes() holds, the first-
    // choice path between two vertices of one tree climbs from the source to their lowest
    // common ancestor and descends to the destination; between trees it climbs to the
    // source's anchor, follows append_path(anchor, anchor) and descends from the
    // destination's anchor.
    struct TreeLink {
        VertexId parent = kNoVertex;
        EdgeId up = kNoEdge, down = kNoEdge;
    };
    TreeLink tree_link(VertexId v) const {
        const VertexInfo& i = info_[v];
        return TreeLink{i.parent, i.up_count ? up_edges_[i.up_first] : kNoEdge,
                        i.down_count ? down_edges_[i.down_first] : kNoEdge};
    }
    // False when some paths follow a routed fabric's rule or a route the model gives
    // (fabric_path, given_path) instead.
    bool tree_routes() const { return !special_; }
    // The <routes> table whose `nodes` hold the nodes of both vertices and which gives no
    // route between them (SimGrid's Full zone leaves the pair unrouted), or -1.
    std::int32_t unrouted_table(VertexId from, VertexId to) const;

    std::size_t core_size() const { return core_vertices_.size(); }
    std::size_t tables_built() const { return tables_built_; }
    const Topology& topology() const { return topo_; }

  private:
    static constexpr std::uint32_t kUnreached = UINT32_MAX;
    std::vector<EdgeId> graph_path(VertexId from, VertexId to) const;
    // graph_path appended to `out`: false (out as it was) if unreachable.
    bool append_graph_path(VertexId from, VertexId to, std::vector<EdgeId>& out) const;
    // The first of candidates(v, dst), without filling a vector; kNoEdge if none.
    EdgeId first_candidate(VertexId v, VertexId dst) const;
    // A route the model gives between the nodes of `from` and `to` (Topology::given_routes):
    // Path (out filled: from up to its NIC, the given route, down to `to`), Unrouted (a
    // complete table leaves the pair without a route) or None (the routing decides).
    enum class Given { None, Path, Unrouted };
    Given given_path(VertexId from, VertexId to, std::vector<EdgeId>& out) const;
    VertexId nic_of(VertexId v) const {
        const std::int32_t node = topo_.vertex(v).node;
        return node < 0 ? kNoVertex : topo_.nodes[static_cast<std::size_t>(node)].nic;
    }
    static std::uint64_t pair_key(VertexId a, VertexId b) {
        return (static_cast<std::uint64_t>(a) << 32) | b;
    }
    std::unordered_map<std::uint64_t, std::vector<EdgeId>> given_;  // (NIC, NIC) -> edges
    std::unordered_map<VertexId, std::int32_t> complete_table_;     // NIC -> complete table
    bool special_ = false;  // fabric_nics_ or given routes: paths are not tree paths
    // SimGrid's cluster-zone routes (topologies/README.md, Routing): true and `out` filled if
    // `from` and `to` are in nodes of one routed fabric (different NICs).
    bool fabric_path(VertexId from, VertexId to, std::vector<EdgeId>& out) const;
    bool torus_path(const Fabric& f, std::uint64_t src, std::uint64_t dst,
                    std::vector<EdgeId>& out) const;
    bool fat_tree_path(const Fabric& f, std::uint64_t src, std::uint64_t dst,
                       std::vector<EdgeId>& out) const;
    bool dragonfly_path(const Fabric& f, std::uint64_t src, std::uint64_t dst,
                        std::vector<EdgeId>& out) const;
    // The k-th edge (in out-edge order) from a to b; kNoEdge if there are not that many.
    EdgeId edge_between(VertexId a, VertexId b, std::uint64_t k = 0) const;
    struct FabricPos {
        std::uint32_t fabric = 0;
        std::uint64_t position = 0;
    };
    std::unordered_map<VertexId, FabricPos> fabric_nics_;  // NICs of routed fabrics
    // Candidate edges from v towards dst: fills `out` (cleared first).
    void candidates(VertexId v, VertexId dst, std::vector<EdgeId>& out) const;
    // Inside a tree (v below the core, or dst below v): the candidates as a range of the
    // precomputed parent-edge arrays, without copying; false if v must use a core table.
    bool tree_hop(VertexId v, VertexId dst, const EdgeId*& first, std::uint32_t& count) const {
        const VertexInfo& iv = info_[v];
        const VertexInfo& id = info_[dst];
        if (iv.anchor == id.anchor && iv.tin <= id.tin && id.tout <= iv.tout) {
            VertexId c = dst;
            while (info_[c].parent != v) c = info_[c].parent;
            first = down_edges_.data() + info_[c].down_first;
            count = info_[c].down_count;
            return true;
        }
        if (iv.parent != kNoVertex) {
            first = up_edges_.data() + iv.up_first;
            count = iv.up_count;
            return true;
        }
        return false;
    }
    // Fewest-hop distance table of every core vertex to the core vertex `anchor`.
    const std::vector<std::uint32_t>& table(VertexId anchor) const;
    bool in_subtree(VertexId root, VertexId v) const {
        return info_[root].tin <= info_[v].tin && info_[v].tout <= info_[root].tout;
    }

    const Topology& topo_;
    // What a routing decision reads about a vertex, in one 32-byte record (one cache miss
    // rather than six on graphs larger than the cache).
    struct VertexInfo {
        VertexId parent = kNoVertex;      // tree parent; kNoVertex for core vertices
        VertexId anchor = kNoVertex;      // core vertex at the root of v's tree (v itself if core)
        std::uint32_t tin = 0, tout = 0;  // Euler-tour interval
        std::uint32_t down_first = 0, down_count = 0;  // edges parent -> v in down_edges_
        std::uint32_t up_first = 0, up_count = 0;      // edges v -> parent in up_edges_
    };
    static_assert(sizeof(VertexInfo) == 32);
    std::vector<VertexInfo> info_;
    std::vector<std::uint32_t> core_index_;  // dense index of core vertices, kUnreached otherwise
    std::vector<VertexId> core_vertices_;
    mutable std::vector<std::unique_ptr<std::vector<std::uint32_t>>> tables_;
    mutable std::size_t tables_built_ = 0;
    // Tree vertices: edge ids from their parent down to them, and from them up to their
    // parent (several if cables are parallel). This keeps a hub switch with 65,536 leaves
    // from scanning its out-edges per packet.
    std::vector<EdgeId> down_edges_, up_edges_;
    std::vector<std::uint32_t> rotation_;  // round-robin position per vertex
    std::vector<EdgeId> scratch_;
};

// Valiant routing on a dragonfly: a message (packet model: each packet) between groups
// goes minimally to a random router of a random third group, then minimally on. Within a
// group, with fewer than three groups, or without Valiant routing: kNoVertex (go direct).
class ValiantChooser {
  public:
    explicit ValiantChooser(const Topology& topology);
    VertexId via(VertexId src, VertexId dst, Rng& rng) const;

  private:
    const Topology& topo_;
    bool enabled_;
    std::vector<std::vector<VertexId>> routers_;  // per group
};

}  // namespace clustersim::topo
