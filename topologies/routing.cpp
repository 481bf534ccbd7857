#include "topologies/routing.hpp"

#include <algorithm>
#include <deque>
#include <span>

namespace clustersim::topo {

Router::Router(const Topology& topology) : topo_(topology) {
    const std::size_t n = topo_.num_vertices();
    std::vector<VertexId> parent_(n, kNoVertex), anchor_(n, kNoVertex);
    std::vector<std::uint32_t> tin_(n, 0), tout_(n, 0);
    core_index_.assign(n, kUnreached);
    rotation_.assign(n, 0);

    // Undirected neighbour sets; a neighbour counts for peeling only if edges go both ways.
    // One array for all vertices (CSR: nbr_first_ per vertex, nbr_count its distinct
    // neighbours after sorting), not a vector per vertex: a 262,144-node star has 786,433
    // vertices, and their small vectors were a tenth of the router's construction.
    std::vector<std::size_t> nbr_first(n + 1, 0);
    for (EdgeId e = 0; e < topo_.num_edges(); ++e) {
        const VertexId a = topo_.source_of(e), b = topo_.target_of(e);
        if (a != b) ++nbr_first[a + 1], ++nbr_first[b + 1];
    }
    for (std::size_t v = 0; v < n; ++v) nbr_first[v + 1] += nbr_first[v];
    std::vector<VertexId> nbr(nbr_first[n]);
    std::vector<std::uint32_t> nbr_count(n, 0);
    for (EdgeId e = 0; e < topo_.num_edges(); ++e) {  // edge order within each vertex's list
        const VertexId a = topo_.source_of(e), b = topo_.target_of(e);
        if (a == b) continue;
        nbr[nbr_first[a] + nbr_count[a]++] = b;
        nbr[nbr_first[b] + nbr_count[b]++] = a;
    }
    auto nbrs = [&](VertexId v) {
        return std::span<const VertexId>(nbr.data() + nbr_first[v], nbr_count[v]);
    };
    // Edges both ways between leaf v and p, looking only at v's own (few) edges: p may be
    // a hub switch with tens of thousands of them.
    auto linked_both_ways = [&](VertexId v, VertexId p) {
        bool out = false, in = false;
        auto [lo, hi] = topo_.out_edge_range(v);
        for (EdgeId e = lo; e < hi && !out; ++e) out = topo_.target_of(e) == p;
        for (auto [it, last] = boost::in_edges(v, topo_.graph); it != last && !in; ++it)
            in = boost::source(*it, topo_.graph) == p;
        return out && in;
    };
    for (VertexId v = 0; v < n; ++v) {
        const auto first = nbr.begin() + static_cast<std::ptrdiff_t>(nbr_first[v]);
        const auto last = first + nbr_count[v];
        std::sort(first, last);
        nbr_count[v] = static_cast<std::uint32_t>(std::unique(first, last) - first);
    }
    std::vector<std::uint32_t> degree = nbr_count;
    std::vector<bool> removed(n, false);
    std::deque<VertexId> queue;
    for (VertexId v = 0; v < n; ++v)
        if (degree[v] == 1) queue.push_back(v);
    while (!queue.empty()) {
        const VertexId v = queue.front();
        queue.pop_front();
        if (removed[v] || degree[v] != 1) continue;
        VertexId p = kNoVertex;
        for (VertexId w : nbrs(v))
            if (!removed[w]) p = w;
        if (p == kNoVertex || !linked_both_ways(v, p)) continue;  // one-way: keep in core
        // Never peel the last vertex of a component: it becomes the root.
        // The last two vertices of a component: keep the lower-numbered one as the root.
        if (degree[p] == 1 && v < p) continue;
        removed[v] = true;
        parent_[v] = p;
        if (--degree[p] == 1) queue.push_back(p);
    }
    for (VertexId v = 0; v < n; ++v) {
        if (!removed[v]) {
            core_index_[v] = static_cast<std::uint32_t>(core_vertices_.size());
            core_vertices_.push_back(v);
        }
    }
    tables_.resize(core_vertices_.size());

    // Edges between each tree vertex and its parent, both ways (CSR by child).
    std::vector<std::uint32_t> down_first_(n + 1, 0), up_first_(n + 1, 0);
    for (EdgeId e = 0; e < topo_.num_edges(); ++e) {
        const VertexId a = topo_.source_of(e), b = topo_.target_of(e);
        if (parent_[b] == a) ++down_first_[b + 1];
        if (parent_[a] == b) ++up_first_[a + 1];
    }
    for (std::size_t v = 0; v < n; ++v) {
        down_first_[v + 1] += down_first_[v];
        up_first_[v + 1] += up_first_[v];
    }
    down_edges_.resize(down_first_[n]);
    up_edges_.resize(up_first_[n]);
    {
        std::vector<std::uint32_t> dfill(down_first_.begin(), down_first_.end() - 1);
        std::vector<std::uint32_t> ufill(up_first_.begin(), up_first_.end() - 1);
        for (EdgeId e = 0; e < topo_.num_edges(); ++e) {  // ascending ids: declaration order kept
            const VertexId a = topo_.source_of(e), b = topo_.target_of(e);
            if (parent_[b] == a) down_edges_[dfill[b]++] = e;
            if (parent_[a] == b) up_edges_[ufill[a]++] = e;
        }
    }

    // Euler tour of each tree from its core anchor (iterative: trees can be deep in chains).
    // Children by parent, in id order (CSR, like the neighbours).
    std::vector<std::size_t> child_first(n + 1, 0);
    for (VertexId v = 0; v < n; ++v)
        if (parent_[v] != kNoVertex) ++child_first[parent_[v] + 1];
    for (std::size_t v = 0; v < n; ++v) child_first[v + 1] += child_first[v];
    std::vector<VertexId> child(child_first[n]);
    {
        std::vector<std::size_t> fill(child_first.begin(), child_first.end() - 1);
        for (VertexId v = 0; v < n; ++v)
            if (parent_[v] != kNoVertex) child[fill[parent_[v]]++] = v;
    }
    std::uint32_t clock = 0;
    std::vector<std::pair<VertexId, std::size_t>> stack;
    for (VertexId root : core_vertices_) {
        stack.emplace_back(root, 0);
        anchor_[root] = root;
        tin_[root] = clock++;
        while (!stack.empty()) {
            auto& [v, i] = stack.back();
            if (i < child_first[v + 1] - child_first[v]) {
                const VertexId c = child[child_first[v] + i++];
                anchor_[c] = anchor_[v];
                tin_[c] = clock++;
                stack.emplace_back(c, 0);
            } else {
                tout_[v] = clock++;
                stack.pop_back();
            }
        }
    }
    info_.resize(n);
    for (std::size_t v = 0; v < n; ++v) {
        info_[v] = VertexInfo{parent_[v],     anchor_[v],
                              tin_[v],        tout_[v],
                              down_first_[v], down_first_[v + 1] - down_first_[v],
                              up_first_[v],   up_first_[v + 1] - up_first_[v]};
    }

    // Fabrics routed by their own rule under this routing.
    const Routing r = topo_.settings.routing;
    for (std::size_t i = 0; i < topo_.fabrics.size(); ++i) {
        const Fabric& f = topo_.fabrics[i];
        const bool routed = r == Routing::SimGrid ||
                            (needs_torus(r) && f.kind == Fabric::Kind::Torus) ||
                            (needs_fat_tree(r) && f.kind == Fabric::Kind::FatTree);
        if (!routed) continue;
        for (std::size_t k = 0; k < f.nics.size(); ++k)
            fabric_nics_[f.nics[k]] = FabricPos{static_cast<std::uint32_t>(i), k};
    }

    // Routes the model gives (model_xml.cpp checked that an edge joins each step).
    for (const GivenRoute& g : topo_.given_routes) {
        std::vector<EdgeId> edges;
        VertexId at = topo_.nodes[g.from].nic;
        for (std::size_t i = 0; i <= g.via.size(); ++i) {
            const VertexId next = i < g.via.size() ? g.via[i] : topo_.nodes[g.to].nic;
            edges.push_back(edge_between(at, next));
            at = next;
        }
        given_[pair_key(topo_.nodes[g.from].nic, topo_.nodes[g.to].nic)] = std::move(edges);
    }
    for (std::size_t i = 0; i < topo_.route_tables.size(); ++i)
        if (topo_.route_tables[i].complete)
            for (const std::uint32_t n : topo_.route_tables[i].nodes)
                complete_table_[topo_.nodes[n].nic] = static_cast<std::int32_t>(i);
    special_ = !fabric_nics_.empty() || !given_.empty() || !complete_table_.empty();
}

Router::Given Router::given_path(VertexId from, VertexId to, std::vector<EdgeId>& out) const {
    const VertexId nf = nic_of(from), nt = nic_of(to);
    if (nf == kNoVertex || nt == kNoVertex || nf == nt) return Given::None;
    const auto it = given_.find(pair_key(nf, nt));
    if (it == given_.end()) {
        const auto a = complete_table_.find(nf), b = complete_table_.find(nt);
        return a != complete_table_.end() && b != complete_table_.end() && a->second == b->second
                   ? Given::Unrouted
                   : Given::None;
    }
    out = from == nf ? std::vector<EdgeId>{} : graph_path(from, nf);
    if (from != nf && out.empty()) return Given::Unrouted;
    out.insert(out.end(), it->second.begin(), it->second.end());
    if (to != nt) {
        const std::vector<EdgeId> tail = graph_path(nt, to);
        if (tail.empty()) return Given::Unrouted;
        out.insert(out.end(), tail.begin(), tail.end());
    }
    return Given::Path;
}

std::int32_t Router::unrouted_table(VertexId from, VertexId to) const {
    if (complete_table_.empty()) return -1;
    const VertexId nf = nic_of(from), nt = nic_of(to);
    if (nf == kNoVertex || nt == kNoVertex || nf == nt || given_.count(pair_key(nf, nt)) != 0)
        return -1;
    const auto a = complete_table_.find(nf), b = complete_table_.find(nt);
    return a != complete_table_.end() && b != complete_table_.end() && a->second == b->second
               ? a->second
               : -1;
}

EdgeId Router::edge_between(VertexId a, VertexId b, std::uint64_t k) const {
    auto [lo, hi] = topo_.out_edge_range(a);
    for (EdgeId e = lo; e < hi; ++e)
        if (topo_.target_of(e) == b && k-- == 0) return e;
    return kNoEdge;
}

bool Router::fabric_path(VertexId from, VertexId to, std::vector<EdgeId>& out) const {
    const VertexId nf = nic_of(from), nt = nic_of(to);
    if (nf == kNoVertex || nt == kNoVertex || nf == nt) return false;
    const auto a = fabric_nics_.find(nf), b = fabric_nics_.find(nt);
    if (a == fabric_nics_.end() || b == fabric_nics_.end() || a->second.fabric != b->second.fabric)
        return false;
    const Fabric& f = topo_.fabrics[a->second.fabric];
    std::vector<EdgeId> mid;
    bool ok = false;
    switch (f.kind) {
        case Fabric::Kind::Torus:
            ok = torus_path(f, a->second.position, b->second.position, mid);
            break;
        case Fabric::Kind::FatTree:
            ok = fat_tree_path(f, a->second.position, b->second.position, mid);
            break;
        case Fabric::Kind::Dragonfly:
            ok = dragonfly_path(f, a->second.position, b->second.position, mid);
            break;
    }
    if (!ok) return false;
    out = from == nf ? std::vector<EdgeId>{} : graph_path(from, nf);
    if (from != nf && out.empty()) return false;
    out.insert(out.end(), mid.begin(), mid.end());
    if (to != nt) {
        const std::vector<EdgeId> tail = graph_path(nt, to);
        if (tail.empty()) return false;
        out.insert(out.end(), tail.begin(), tail.end());
    }
    return true;
}

// SimGrid's TorusZone::get_local_route: the dimensions in order, fastest-varying first; in
// each, the direction is decided once from the source's and the destination's coordinates
// (right, i.e. +1 with wraparound, when the destination is at most half the ring ahead
// without wrapping, or the source is past the middle and the destination within half a
// ring ahead across the wrap; else left). DimensionOrderBalanced: the same, except that a
// destination exactly half an even ring away is reached rightwards from an even source
// coordinate and leftwards from an odd one.
bool Router::torus_path(const Fabric& f, std::uint64_t src, std::uint64_t dst,
                        std::vector<EdgeId>& out) const {
    const bool balanced = topo_.settings.routing == Routing::DimensionOrderBalanced;
    std::uint64_t cur = src;
    const std::size_t limit = f.nics.size() * f.dims.size() + 1;
    while (cur != dst) {
        std::uint64_t next = cur, dp = 1;
        for (const std::uint64_t cd : f.dims) {
            const std::uint64_t cc = (cur / dp) % cd, tc = (dst / dp) % cd, my = (src / dp) % cd;
            if (cc != tc) {
                const std::uint64_t ahead = (tc + cd - my) % cd;  // hops rightwards
                const bool right = balanced && 2 * ahead == cd
                                       ? my % 2 == 0
                                       : (tc > my && tc <= my + cd / 2) ||
                                             (my > cd / 2 && (my + cd / 2) % cd >= tc);
                if (right)
                    next = cc == cd - 1 ? cur - (cd - 1) * dp : cur + dp;
                else
                    next = cc == 0 ? cur + (cd - 1) * dp : cur - dp;
                break;
            }
            dp *= cd;
        }
        const EdgeId e = edge_between(f.nics[cur], f.nics[next]);
        if (e == kNoEdge || out.size() > limit) return false;
        out.push_back(e);
        cur = next;
    }
    return true;
}

// SimGrid's FatTreeZone::get_local_route. Up until the destination is below: at level l the
// parent port is d = (dst / (u_1..u_l)) mod (u_{l+1} p_{l+1}) (D-mod-k), port d being the
// (d / u)-th parallel cable to the parent of label b_{l+1} = d mod u. Down: the one child
// above the destination, over parallel cable (src mod p).
bool Router::fat_tree_path(const Fabric& f, std::uint64_t src, std::uint64_t dst,
                           std::vector<EdgeId>& out) const {
    const std::size_t h = f.dims.size();
    std::vector<std::uint64_t> D(h + 1, 1), U(h + 1, 1);
    for (std::size_t i = 0; i < h; ++i) {
        D[i + 1] = D[i] * f.dims[i];
        U[i + 1] = U[i] * f.up[i];
    }
    auto vertex_at = [&](std::size_t level, std::uint64_t index) {
        return level == 0 ? f.nics[index] : f.levels[level - 1][index];
    };
    std::size_t l = 0;
    std::uint64_t x = src;
    VertexId cur = f.nics[src];
    auto below = [&] { return l == 0 ? x == dst : x / U[l] == dst / D[l]; };
    while (!below()) {
        if (l == h) return false;
        const std::uint64_t port = (dst / U[l]) % (f.up[l] * f.parallel[l]);
        const std::uint64_t b = port % f.up[l], j = port / f.up[l];
        const std::uint64_t parent = x / U[l] / f.dims[l] * U[l + 1] + x % U[l] + b * U[l];
        const VertexId pv = vertex_at(l + 1, parent);
        const EdgeId e = edge_between(cur, pv, j);
        if (e == kNoEdge) return false;
        out.push_back(e);
        cur = pv;
        x = parent;
        ++l;
    }
    while (l > 0) {
        const std::uint64_t a = (dst / D[l - 1]) % f.dims[l - 1];
        const std::uint64_t child = (a + f.dims[l - 1] * (x / U[l])) * U[l - 1] + x % U[l - 1];
        const VertexId cv = vertex_at(l - 1, child);
        const EdgeId e = edge_between(cur, cv, src % f.parallel[l - 1]);
        if (e == kNoEdge) return false;
        out.push_back(e);
        cur = cv;
        x = child;
        --l;
    }
    return true;
}

// SimGrid's DragonflyZone::get_local_route (minimal): to another group over the router of
// blade (destination group) in chassis 0, which holds the global cable to it (green, then
// black), the global cable to router (source group) of the destination group; there the
// destination's blade (green), then its chassis (black).
bool Router::dragonfly_path(const Fabric& f, std::uint64_t src, std::uint64_t dst,
                            std::vector<EdgeId>& out) const {
    const std::uint64_t c = f.dims[1], bl = f.dims[2], np = f.dims[3], a = c * bl;
    const std::vector<VertexId>& routers = f.levels[0];
    struct Coords {
        std::uint64_t group, chassis, blade;
    };
    auto coords = [&](std::uint64_t pos) {
        const std::uint64_t r = pos / np;
        return Coords{r / a, r % a / bl, r % bl};
    };
    auto index = [&](const Coords& k) { return k.group * a + k.chassis * bl + k.blade; };
    const Coords s = coords(src), t = coords(dst);
    Coords cur = s;
    bool ok = true;
    auto hop = [&](VertexId from, VertexId to) {
        const EdgeId e = edge_between(from, to);
        ok = ok && e != kNoEdge;
        out.push_back(e);
    };
    auto move = [&](const Coords& next) {
        hop(routers[index(cur)], routers[index(next)]);
        cur = next;
    };
    hop(f.nics[src], routers[index(s)]);
    if (t.group != s.group) {
        if (t.group >= bl) return false;
        if (cur.blade != t.group) move(Coords{cur.group, cur.chassis, t.group});
        if (cur.chassis != 0) move(Coords{cur.group, 0, cur.blade});
        move(Coords{t.group, s.group / bl, s.group % bl});
    }
    if (t.blade != cur.blade) move(Coords{cur.group, cur.chassis, t.blade});
    if (t.chassis != cur.chassis) move(Coords{cur.group, t.chassis, cur.blade});
    hop(routers[index(t)], f.nics[dst]);
    return ok;
}

const std::vector<std::uint32_t>& Router::table(VertexId anchor) const {
    const std::uint32_t ci = core_index_[anchor];
    auto& slot = tables_[ci];
    if (slot) return *slot;
    // Breadth-first search backwards along edges from the anchor, over core vertices only.
    auto dist = std::make_unique<std::vector<std::uint32_t>>(core_vertices_.size(), kUnreached);
    std::vector<VertexId> frontier{anchor}, next;
    (*dist)[ci] = 0;
    std::uint32_t d = 0;
    while (!frontier.empty()) {
        ++d;
        next.clear();
        for (VertexId v : frontier) {
            for (auto [it, last] = boost::in_edges(v, topo_.graph); it != last; ++it) {
                const VertexId u = static_cast<VertexId>(boost::source(*it, topo_.graph));
                const std::uint32_t cu = core_index_[u];
                if (cu == kUnreached || (*dist)[cu] != kUnreached) continue;
                (*dist)[cu] = d;
                next.push_back(u);
            }
        }
        frontier.swap(next);
    }
    ++tables_built_;
    slot = std::move(dist);
    return *slot;
}

void Router::candidates(VertexId v, VertexId dst, std::vector<EdgeId>& out) const {
    out.clear();
    const EdgeId* first = nullptr;
    std::uint32_t count = 0;
    if (tree_hop(v, dst, first, count)) {  // down to dst's branch, or up towards the core
        out.assign(first, first + count);
        return;
    }
    // v is a core vertex and dst hangs elsewhere: follow the table to dst's anchor.
    const VertexId target = info_[dst].anchor;
    const auto& dist = table(target);
    const std::uint32_t dv = dist[core_index_[v]];
    if (dv == kUnreached || dv == 0) return;
    auto [lo, hi] = topo_.out_edge_range(v);
    for (EdgeId e = lo; e < hi; ++e) {
        const std::uint32_t cw = core_index_[topo_.target_of(e)];
        if (cw != kUnreached && dist[cw] + 1 == dv) out.push_back(e);
    }
}

EdgeId Router::next_hop(VertexId v, VertexId dst) {
    if (special_) return peek_hop(v, dst);
    const EdgeId* first = nullptr;
    std::uint32_t count = 0;
    if (tree_hop(v, dst, first, count)) {  // the common case, without copying
        if (count == 0) return kNoEdge;
        if (count == 1 || topo_.settings.routing != Routing::RoundRobin) return first[0];
        return first[rotation_[v]++ % count];
    }
    candidates(v, dst, scratch_);
    if (scratch_.empty()) return kNoEdge;
    if (scratch_.size() == 1 || topo_.settings.routing != Routing::RoundRobin) return scratch_[0];
    return scratch_[rotation_[v]++ % scratch_.size()];
}

EdgeId Router::peek_hop(VertexId v, VertexId dst) const {
    if (special_) {
        std::vector<EdgeId> p;
        switch (given_path(v, dst, p)) {
            case Given::Path:
                return p.empty() ? kNoEdge : p.front();
            case Given::Unrouted:
                return kNoEdge;
            case Given::None:
                break;
        }
        if (!fabric_nics_.empty() && fabric_path(v, dst, p)) return p.empty() ? kNoEdge : p.front();
    }
    std::vector<EdgeId> c;
    candidates(v, dst, c);
    return c.empty() ? kNoEdge : c[0];
}

EdgeId Router::first_candidate(VertexId v, VertexId dst) const {
    const EdgeId* first = nullptr;
    std::uint32_t count = 0;
    if (tree_hop(v, dst, first, count)) return count == 0 ? kNoEdge : first[0];
    const auto& dist = table(info_[dst].anchor);
    const std::uint32_t dv = dist[core_index_[v]];
    if (dv == kUnreached || dv == 0) return kNoEdge;
    auto [lo, hi] = topo_.out_edge_range(v);
    for (EdgeId e = lo; e < hi; ++e) {
        const std::uint32_t cw = core_index_[topo_.target_of(e)];
        if (cw != kUnreached && dist[cw] + 1 == dv) return e;
    }
    return kNoEdge;
}

std::vector<EdgeId> Router::path(VertexId from, VertexId to) const {
    std::vector<EdgeId> p;
    append_path(from, to, p);
    return p;
}

bool Router::append_path(VertexId from, VertexId to, std::vector<EdgeId>& out) const {
    if (special_) {
        std::vector<EdgeId> p;
        switch (given_path(from, to, p)) {
            case Given::Path:
                out.insert(out.end(), p.begin(), p.end());
                return !p.empty();
            case Given::Unrouted:
                return false;
            case Given::None:
                break;
        }
        if (!fabric_nics_.empty() && fabric_path(from, to, p)) {
            out.insert(out.end(), p.begin(), p.end());
            return !p.empty();
        }
    }
    return append_graph_path(from, to, out);
}

std::vector<EdgeId> Router::graph_path(VertexId from, VertexId to) const {
    std::vector<EdgeId> p;
    append_graph_path(from, to, p);
    return p;
}

bool Router::append_graph_path(VertexId from, VertexId to, std::vector<EdgeId>& out) const {
    const std::size_t start = out.size();
    VertexId v = from;
    while (v != to) {
        const EdgeId e = first_candidate(v, to);
        if (e == kNoEdge || out.size() - start > topo_.num_vertices()) {
            out.resize(start);
            return false;
        }
        out.push_back(e);
        v = topo_.target_of(e);
    }
    return out.size() > start;
}

bool Router::reachable(VertexId from, VertexId to) const {
    return from == to || !path(from, to).empty();
}

ValiantChooser::ValiantChooser(const Topology& t)
    : topo_(t), enabled_(needs_dragonfly(t.settings.routing)) {
    if (!enabled_) return;
    for (VertexId v = 0; v < t.num_vertices(); ++v) {
        const auto& p = t.vertex(v);
        if (p.group < 0 || p.kind != VertexKind::Switch) continue;
        if (routers_.size() <= static_cast<std::size_t>(p.group)) routers_.resize(p.group + 1);
        routers_[p.group].push_back(v);
    }
}

VertexId ValiantChooser::via(VertexId src, VertexId dst, Rng& rng) const {
    if (!enabled_ || routers_.size() < 3) return kNoVertex;
    const std::int32_t gs = topo_.vertex(src).group, gd = topo_.vertex(dst).group;
    if (gs < 0 || gd < 0 || gs == gd) return kNoVertex;
    std::uint64_t g;
    do {
        g = rng.below(routers_.size());
    } while (static_cast<std::int32_t>(g) == gs || static_cast<std::int32_t>(g) == gd ||
             routers_[g].empty());
    return routers_[g][rng.below(routers_[g].size())];
}

}  // namespace clustersim::topo
