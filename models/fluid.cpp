#include "models/fluid.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace clustersim::net {

FluidNetwork::FluidNetwork(Engine& engine, const topo::Topology& topology, topo::Router& router,
                           NetworkClient& client, std::uint64_t seed)
    : engine_(engine),
      topo_(topology),
      routes_service_(topology, router),
      client_(client),
      rng_(seed),
      router_(router),
      valiant_(topology) {
    id_ = engine_.add(*this);
    if (topo::adaptive_dragonfly(topo_.settings.routing)) {
        ugal_ = true;
        ugal_global_ = topo_.settings.routing == topo::Routing::UgalG;
        is_router_.assign(topo_.num_vertices(), 0);
        for (VertexId v = 0; v < topo_.num_vertices(); ++v) {
            const auto& p = topo_.vertex(v);
            is_router_[v] = p.kind == topo::VertexKind::Switch && p.node < 0 && p.group >= 0;
        }
    }
    const std::size_t edges = topo_.num_edges(), vertices = topo_.num_vertices();
    // The old layout's indices: links by edge id, then per vertex its relay and local rate.
    relay_resource_.assign(vertices, kNil);
    local_resource_.assign(vertices, kNil);
    std::uint32_t extra = static_cast<std::uint32_t>(edges);
    for (VertexId v = 0; v < vertices; ++v) {
        const auto& p = topo_.vertex(v);
        if (p.kind == topo::VertexKind::Socket) continue;
        if (!p.relay.infinite()) relay_resource_[v] = extra++;
        if (p.kind == topo::VertexKind::MemoryNode && !p.local.infinite())
            local_resource_[v] = extra++;
    }
    // The layout by locality (see resources_): each link's home vertex, then per vertex in
    // id order its relay, its local rate and the links it is home to (in edge id order).
    auto out_degree = [&](VertexId v) {
        const auto [first, last] = topo_.out_edge_range(v);
        return last - first;
    };
    std::vector<std::uint32_t> home_count(vertices + 1, 0);
    std::vector<VertexId> home(edges);
    for (EdgeId e = 0; e < edges; ++e) {
        const VertexId a = topo_.source_of(e), b = topo_.target_of(e);
        home[e] = out_degree(b) < out_degree(a) ? b : a;
        ++home_count[home[e] + 1];
    }
    for (std::size_t v = 0; v < vertices; ++v) home_count[v + 1] += home_count[v];
    std::vector<EdgeId> by_home(edges);
    for (EdgeId e = 0; e < edges; ++e) by_home[home_count[home[e]]++] = e;  // stable
    resources_.resize(extra);
    order_.resize(extra);
    marks_.assign(extra, 0);
    edge_resource_.assign(edges, kNil);
    std::uint32_t next = 0;
    std::size_t h = 0;
    for (VertexId v = 0; v < vertices; ++v) {
        for (std::uint32_t* res : {&relay_resource_[v], &local_resource_[v]}) {
            if (*res == kNil) continue;
            order_[next] = *res;
            resources_[next].capacity =
                static_cast<double>(res == &relay_resource_[v] ? topo_.vertex(v).relay.bytes_per_s
                                                               : topo_.vertex(v).local.bytes_per_s);
            *res = next++;
        }
        for (; h < edges && home[by_home[h]] == v; ++h) {
            const EdgeId e = by_home[h];
            order_[next] = static_cast<std::uint32_t>(e);
            resources_[next].capacity = static_cast<double>(topo_.edge(e).bandwidth.bytes_per_s);
            edge_resource_[e] = next++;
        }
    }
    // The tree records (tree_route), in vertex order; a vertex's depth from its parent's,
    // walked up and memoised (kNil: not yet known).
    if (!router.tree_routes()) return;
    tree_.resize(vertices);
    for (VertexId v = 0; v < vertices; ++v) {
        const topo::Router::TreeLink link = router.tree_link(v);
        TreeStep& t = tree_[v];
        t.parent = link.parent;
        t.depth = link.parent == topo::kNoVertex ? 0 : kNil;
        t.up = link.up;
        t.down = link.down;
        if (link.up != topo::kNoEdge) {
            t.up_resource = edge_resource_[link.up];
            t.up_latency = topo_.edge(link.up).latency;
        }
        if (link.down != topo::kNoEdge) {
            t.down_resource = edge_resource_[link.down];
            t.down_latency = topo_.edge(link.down).latency;
        }
        t.relay = relay_resource_[v];
    }
    std::vector<VertexId> chain;
    for (VertexId v = 0; v < vertices; ++v) {
        for (VertexId w = v; tree_[w].depth == kNil; w = tree_[w].parent) chain.push_back(w);
        for (; !chain.empty(); chain.pop_back())
            tree_[chain.back()].depth = tree_[tree_[chain.back()].parent].depth + 1;
    }
}

std::vector<std::uint64_t> FluidNetwork::edge_bytes() const {
    std::vector<std::uint64_t> out(topo_.num_edges(), 0);
    for (const Route& r : routes_)
        for (EdgeId e : edges_of(r)) out[e] += r.bytes;
    return out;
}

std::uint32_t FluidNetwork::route_for(VertexId src, VertexId dst, VertexId via) {
    std::uint64_t key = (static_cast<std::uint64_t>(src) << 32) | dst;
    if (via == topo::kNoVertex) {
        // The last minimal route of each source spares the hash lookup of the next message
        // to the same destination (most traces send to a few neighbours over and over).
        if (last_route_.size() <= src) last_route_.resize(topo_.num_vertices());
        LastRoute& last = last_route_[src];
        if (last.dst == dst) return last.index;
        if (const std::uint32_t index = minimal_routes_.find(key); index != SlotMap::kAbsent) {
            last = LastRoute{dst, index};
            return index;
        }
    } else {
        key =
            (static_cast<std::uint64_t>(src) * topo_.num_vertices() + dst) * topo_.num_vertices() +
            via;
        key |= 1ULL << 63;  // Valiant keys apart from minimal ones
        if (auto it = route_index_.find(key); it != route_index_.end()) return it->second;
    }
    Route r;
    r.first_edge = route_edges_.size();
    r.first_resource = route_resources_.size();
    const bool tree = via == topo::kNoVertex && tree_route(src, dst, r.latency);
    if (!tree) {
        // The route (topologies/route_service.hpp): a resource per link, and one per relay
        // that limits it (a memory node's local rate between two of its neighbours).
        topo::Route& path = route_scratch_;
        routes_service_.route_path(src, dst, path, via);
        route_edges_.insert(route_edges_.end(), path.edges.begin(), path.edges.end());
        r.latency = path.latency;
        for (std::size_t i = 0; i < path.edges.size(); ++i) {
            route_resources_.push_back(edge_resource_[path.edges[i]]);
            if (i == 0) continue;
            // The relay before hop i (RouteService::relay, from this model's own tables): a
            // memory node with a local rate moves a neighbours' route at that rate, any
            // other vertex with a finite relay rate at its relay rate.
            const VertexId v = topo_.source_of(path.edges[i]);
            if (path.neighbours && local_resource_[v] != kNil)
                route_resources_.push_back(local_resource_[v]);
            else if (relay_resource_[v] != kNil)
                route_resources_.push_back(relay_resource_[v]);
        }
    }
    r.edge_count = static_cast<std::uint32_t>(route_edges_.size() - r.first_edge);
    r.resource_count = static_cast<std::uint32_t>(route_resources_.size() - r.first_resource);
    const auto hops = resources_of(r);
    r.distinct = true;
    // A tree route crosses no vertex twice, so no link or relay twice either.
    for (std::size_t i = 0; i < hops.size() && !tree; ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (hops[i] == hops[j]) r.distinct = false;
    widen(hops.size());
    routes_.push_back(r);
    const auto index = static_cast<std::uint32_t>(routes_.size() - 1);
    if (via == topo::kNoVertex)
        minimal_routes_.insert(key, index);
    else
        route_index_.emplace(key, index);
    if (via == topo::kNoVertex) last_route_[src] = LastRoute{dst, index};
    return index;
}

FluidNetwork::UgalLoad FluidNetwork::ugal_load(const Route& r) const {
    // From the source router on (the packet models decide there). UGAL-G: every link's
    // flows; UGAL-L: the link the route leaves the source router by and, if that one leads
    // to a router, the link it feeds there.
    UgalLoad load;
    int local = 0;  // UGAL-L: links counted so far (at most two)
    for (const EdgeId e : edges_of(r)) {
        const VertexId a = topo_.source_of(e), b = topo_.target_of(e);
        if (!is_router_[a]) continue;
        load.hops += is_router_[b];
        if (!ugal_global_ && local == 2) continue;
        load.q += resources_[edge_resource_[e]].count;
        local = is_router_[b] ? local + 1 : 2;
    }
    return load;
}

std::uint32_t FluidNetwork::ugal_route(VertexId src, VertexId dst) {
    const VertexId via = valiant_.via(src, dst, rng_);
    const std::uint32_t minimal = route_for(src, dst, topo::kNoVertex);
    if (via == topo::kNoVertex) return minimal;
    const std::uint32_t valiant = route_for(src, dst, via);
    const UgalLoad m = ugal_load(routes_[minimal]), v = ugal_load(routes_[valiant]);
    const bool keep_minimal = ugal_global_ ? m.q + m.hops <= v.q + v.hops + kUgalFlowThreshold
                                           : m.q * m.hops <= v.q * v.hops + kUgalFlowThreshold;
    ++ugal_decisions_;
    if (!keep_minimal) ++ugal_nonminimal_;
    return keep_minimal ? minimal : valiant;
}

bool FluidNetwork::tree_route(VertexId src, VertexId dst, Time& latency) {
    if (tree_.empty() || src == dst) return false;
    // Up from both ends to one depth, then together to the lowest common ancestor, or to
    // the two anchors when the ends hang in different trees.
    tree_up_.clear();
    tree_down_.clear();
    VertexId a = src, b = dst;
    for (; tree_[a].depth > tree_[b].depth; a = tree_[a].parent) tree_up_.push_back(a);
    for (; tree_[b].depth > tree_[a].depth; b = tree_[b].parent) tree_down_.push_back(b);
    for (; a != b && tree_[a].depth > 0; a = tree_[a].parent, b = tree_[b].parent) {
        tree_up_.push_back(a);
        tree_down_.push_back(b);
    }
    core_scratch_.clear();
    if (a != b && !router_.append_path(a, b, core_scratch_)) return false;  // the service says why
    const std::size_t edges = tree_up_.size() + core_scratch_.size() + tree_down_.size();
    // Two edges: maybe two neighbours of a memory node (its local rate); the service decides.
    if (edges == 2) return false;
    for (VertexId v : tree_up_)
        if (tree_[v].up == topo::kNoEdge) return false;
    for (VertexId v : tree_down_)
        if (tree_[v].down == topo::kNoEdge) return false;
    // The hops in path order: each edge's resource, preceded (after the first) by the relay
    // resource of the vertex it leaves, if that vertex has one (route_for's other branch).
    // Written in place (at most 2 edges - 1 resources), the unused tail cut after.
    const std::size_t first_edge = route_edges_.size(), first_resource = route_resources_.size();
    route_edges_.resize(first_edge + edges);
    route_resources_.resize(first_resource + 2 * edges - 1);
    EdgeId* edge_out = route_edges_.data() + first_edge;
    std::uint32_t* const resources_begin = route_resources_.data() + first_resource;
    std::uint32_t* resource_out = resources_begin;
    Time total = Time::zero();
    auto hop = [&](EdgeId e, std::uint32_t resource, std::uint32_t relay, Time edge_latency) {
        if (resource_out != resources_begin && relay != kNil) *resource_out++ = relay;
        *edge_out++ = e;
        *resource_out++ = resource;
        total += edge_latency;
    };
    for (VertexId v : tree_up_) {
        const TreeStep& t = tree_[v];
        hop(t.up, t.up_resource, t.relay, t.up_latency);
    }
    for (EdgeId e : core_scratch_) {
        const VertexId from = topo_.source_of(e);
        hop(e, edge_resource_[e], relay_resource_[from], topo_.edge(e).latency);
    }
    for (auto it = tree_down_.rbegin(); it != tree_down_.rend(); ++it) {
        const TreeStep& t = tree_[*it];
        hop(t.down, t.down_resource, tree_[t.parent].relay, t.down_latency);
    }
    route_resources_.resize(first_resource +
                            static_cast<std::size_t>(resource_out - resources_begin));
    latency = total;
    return true;
}

void FluidNetwork::widen(std::size_t hops) {
    if (hops <= stride_) return;
    const std::size_t flows = stride_ == 0 ? 0 : slots_.size() / stride_;
    std::vector<std::uint32_t> wider(flows * hops, 0);
    for (std::size_t f = 0; f < flows; ++f)
        std::copy_n(slots_.begin() + static_cast<std::ptrdiff_t>(f * stride_), stride_,
                    wider.begin() + static_cast<std::ptrdiff_t>(f * hops));
    slots_ = std::move(wider);
    stride_ = hops;
}

void FluidNetwork::send(VertexId src, VertexId dst, std::uint64_t bytes, std::uint64_t cookie,
                        bool notify_injected) {
    const std::uint32_t ri = ugal_ ? ugal_route(src, dst) : route_for(src, dst);
    Route& route = routes_[ri];
    if (bytes > 0) {
        // The narrowest capacity, at the route's first message with bytes: a rendezvous
        // envelope (0 B) makes the route first, and reading its resources then, long before
        // the data's flow registers on them, was a cache miss per resource line at scale.
        if (route.narrowest < 0) {
            double narrowest = 0;
            for (std::uint32_t res : resources_of(route))
                if (narrowest == 0 || resources_[res].capacity < narrowest)
                    narrowest = resources_[res].capacity;
            route.narrowest = narrowest;
        }
        const double narrowest = route.narrowest;
        if (narrowest > 0 && static_cast<double>(bytes) > narrowest)  // at least a second
            refuse_past_horizon(engine_.now(), bytes,
                                static_cast<std::uint64_t>(std::max(1.0, std::floor(narrowest))),
                                topo_.vertex(src).name, topo_.vertex(dst).name);
    }
    ++stats_.messages_sent;
    stats_.bytes_sent += bytes;
    if (bytes == 0) {
        if (notify_injected) engine_.schedule(engine_.now(), id_, kInjected, cookie);
        engine_.schedule(engine_.now() + route.latency, id_, kDeliver, cookie);
        return;
    }
    ++stats_.packets;
    const std::uint32_t f = flows_.acquire_made([&] {
        return Flow{.cookie = cookie,
                    .bytes = bytes,
                    .remaining = static_cast<double>(bytes),
                    .rate = 0.0,
                    .updated = engine_.now(),
                    .route = ri,
                    .version = 0,
                    .order = next_order_++,
                    .notify_injected = notify_injected,
                    .active = true};
    });
    if (slots_.size() < flows_.capacity() * stride_) slots_.resize(flows_.capacity() * stride_);
    // One pass over the route: register the flow on each resource, see whether one is
    // saturated, and (for start_alone) what each leaves besides the flow's own rate (0 yet)
    // and the smallest of those (lone_rate's arithmetic), and where other flows are.
    const auto& hops = resources_of(route);
    const std::size_t n = hops.size();
    if (left_.size() < n) left_.resize(n);
    double* left = left_.data();
    double rate = 0;
    const double own = flows_[f].rate;
    std::uint32_t* slot = slots_.data() + static_cast<std::size_t>(f) * stride_;
    bool shares = false;
    shared_hops_.clear();
    Resource* const rs = resources_.data();
    for (std::uint32_t h = 0; h < n; ++h) {
        Resource& res = rs[hops[h]];
        // Read once: the stores to slot and left below could otherwise alias them.
        const std::uint32_t count = res.count;
        const double capacity = res.capacity;
        slot[h] = count;
        double load = 0;
        if (count == 0) {  // alone on it (the usual case)
            res.first = Member{f, h};
            res.count = 1;
        } else {
            // A resource's load is kept from its second flow on (Resource): the first flow's
            // rate is its load until now.
            if (count == 1) res.load = flows_[res.first.flow].rate;
            load = res.load;
            push_member(res, Member{f, h});
            shared_hops_.push_back(h);
            shares = shares || res.tight();
        }
        const double l = std::max(0.0, capacity - std::max(0.0, load - own));
        left[h] = l;
        if (h == 0 || l < rate) rate = l;
    }
    // A flow that nothing saturated couples to others, and whose own rate saturates nothing
    // shared, starts at once (start_alone). Every other flow starting at this instant waits
    // for one kStart event, so that p flows starting together cost one solve, not p solves
    // of a growing component.
    if (!shares && route.distinct && start_alone(f, left, rate)) return;
    starting_.push_back(f);
    if (!start_armed_) {
        start_armed_ = true;
        engine_.schedule(engine_.now(), id_, kStart);
    }
}

// A flow solved alone: the smallest capacity its resources leave besides its own rate.
double FluidNetwork::lone_rate(const Flow& fl) const {
    const auto& hops = resources_of(routes_[fl.route]);
    double rate = 0;
    for (std::size_t h = 0; h < hops.size(); ++h) {
        const Resource& res = resources_[hops[h]];
        // Alone on it (count 1): all of it; else what the others leave.
        const double left = res.count == 1
                                ? res.capacity
                                : std::max(0.0, res.capacity - std::max(0.0, res.load - fl.rate));
        if (h == 0 || left < rate) rate = left;
    }
    return rate;
}

bool FluidNetwork::start_alone(std::uint32_t f, const double* left, const double rate) {
    // resolve({}, {f}) when no resource of f is saturated: the component is f alone, its
    // rate the smallest capacity its resources have left (the arithmetic of resolve's
    // one-flow path, with f's rate still 0). If that rate saturates a resource another flow
    // uses, the component must grow: resolve() does it.
    Flow& fl = flows_[f];
    const auto& hops = resources_of(routes_[fl.route]);
    for (const std::uint32_t h : shared_hops_)  // the hops where other flows are
        if (rate >= left[h] * (1 - 1e-9)) return false;
    // Commit, as resolve() does.
    const Time now = engine_.now();
    fl.remaining = std::max(0.0, fl.remaining - fl.rate * (now - fl.updated).seconds());
    fl.updated = now;
    const double delta = rate - fl.rate;
    for (const std::uint32_t h : shared_hops_) resources_[hops[h]].load += delta;  // Resource
    fl.rate = rate;
    Time at = Time::max();
    if (fl.rate > 0) {
        const double ps = std::ceil(fl.remaining / fl.rate * 1e12);
        at = now + rounded_ps(ps);
        push_completion(at, fl.order, f, ++fl.version);
    }
    // arm() would change nothing when an event is armed and the new completion is not
    // earlier: every public entry leaves the earliest completion current and armed
    // (armed_at_ is Time::max() only while kNextDone runs or nothing is pending).
    if (armed_at_ == Time::max() || at < armed_at_) arm();
    stats_.packet_hops += 1;
    return true;
}

// Sorts items by key(item), keys distinct: the order std::sort gives, by a least-significant-
// digit radix sort (11-bit digits, over the bits in which the keys differ) for more than a
// few hundred items.
template <class Key>
void FluidNetwork::sort_by_unique_key(std::vector<std::uint32_t>& items, Key key) {
    const std::size_t n = items.size();
    if (n < 2) return;
    // Each key read once (a key is a load from a large table: a comparison sort would read
    // it about log n times).
    sort_keys_.resize(n);
    std::uint64_t low = UINT64_MAX, high = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t k = key(items[i]);
        sort_keys_[i] = {k, items[i]};
        low = std::min(low, k);
        high = std::max(high, k);
    }
    if (n < 256) {
        std::sort(sort_keys_.begin(), sort_keys_.end(),
                  [](const auto& x, const auto& y) { return x.first < y.first; });
        for (std::size_t i = 0; i < n; ++i) items[i] = sort_keys_[i].second;
        return;
    }
    sort_tmp_.resize(n);
    const std::uint64_t span = high - low;
    constexpr unsigned kDigit = 11;
    constexpr std::size_t kBuckets = std::size_t{1} << kDigit;
    std::size_t count[kBuckets];
    for (unsigned shift = 0; shift < 64 && (span >> shift) != 0; shift += kDigit) {
        std::fill(std::begin(count), std::end(count), 0);
        for (const auto& e : sort_keys_) ++count[((e.first - low) >> shift) & (kBuckets - 1)];
        std::size_t sum = 0;
        for (std::size_t& c : count) {
            const std::size_t here = c;
            c = sum;
            sum += here;
        }
        for (const auto& e : sort_keys_)
            sort_tmp_[count[((e.first - low) >> shift) & (kBuckets - 1)]++] = e;
        sort_keys_.swap(sort_tmp_);
    }
    for (std::size_t i = 0; i < n; ++i) items[i] = sort_keys_[i].second;
}

void FluidNetwork::visit(std::uint32_t f) {
    flow_mark_[f] = epoch_;
    flow_pos_[f] = static_cast<std::uint32_t>(comp_flows_.size());
    comp_flows_.push_back(f);
    picked_first_.push_back(static_cast<std::uint32_t>(picked_.size()));
    const Flow& fl = flows_[f];
    // One pass over its route: the saturated resources the component grows through, and
    // the resources the solve needs. A resource that carries this flow only (count 1: a
    // host's own cables and relays, most of a route) limits it to its capacity and nobody
    // else, and couples it to no other flow: of those only the narrowest is kept (the first
    // in route order among equal ones), since the others imply nothing it does not. A component of
    // 131,072 flows through one switch is then about 131,073 resources, not 900,000; the rates are
    // the same.
    std::uint32_t tightest = kNil;
    double tightest_capacity = 0;
    for (std::uint32_t r : resources_of(routes_[fl.route])) {
        const Resource& res = resources_[r];
        if (res.count == 1) {  // all of it is the flow's
            if (tightest == kNil || res.capacity < tightest_capacity) {
                tightest = r;
                tightest_capacity = res.capacity;
            }
            continue;
        }
        if (marks_[r] != epoch_ && res.tight()) {
            marks_[r] = epoch_;
            stack_.push_back(r);
        }
        picked_.push_back(r);
        if (local_epoch_[r] == epoch_) continue;
        local_epoch_[r] = epoch_;
        comp_resources_.push_back(r);
    }
    has_private_.push_back(tightest != kNil);
    if (tightest != kNil) {  // last in its slice (resolve()'s commit knows it by has_private_)
        picked_.push_back(tightest);
        local_epoch_[tightest] = epoch_;
        comp_resources_.push_back(tightest);
    }
}

bool FluidNetwork::outside_flow_above_floor(std::uint32_t r, double floor) const {
    const Resource& list = resources_[r];
    for (std::size_t k = 0; k < list.count; ++k) {
        const std::uint32_t f = member(list, k).flow;
        if (flow_mark_[f] != epoch_ && flows_[f].rate >= floor) return true;
    }
    return false;
}

void FluidNetwork::resolve(const std::vector<std::uint32_t>& seeds,
                           const std::vector<std::uint32_t>& firsts, double floor) {
    if (flow_mark_.size() < flows_.capacity()) {
        flow_mark_.resize(flows_.capacity(), 0);
        flow_pos_.resize(flows_.capacity(), 0);
    }
    if (local_epoch_.size() < resources_.size()) local_epoch_.resize(resources_.size(), 0);
    // Resources the component grows through: the seeds, then every saturated resource of
    // a member flow, then (below) boundary resources the new rates saturate.
    expand_.assign(seeds.begin(), seeds.end());
    const Time now = engine_.now();
    for (int round = 0;; ++round) {
        ++epoch_;
        comp_flows_.clear();
        comp_resources_.clear();
        picked_.clear();
        picked_first_.clear();
        has_private_.clear();
        stack_.clear();
        for (std::uint32_t r : expand_) {
            if (marks_[r] != epoch_) {
                marks_[r] = epoch_;
                stack_.push_back(r);
            }
        }
        // A new flow (`firsts`): itself, and whatever its saturated resources bind; then the
        // flows on each saturated resource reached, and theirs (visit()).
        for (const std::uint32_t first : firsts)
            if (flow_mark_[first] != epoch_) visit(first);
        while (!stack_.empty()) {
            const std::uint32_t r = stack_.back();
            stack_.pop_back();
            const Resource& list = resources_[r];
            for (std::size_t k = 0; k < list.count; ++k) {
                const std::uint32_t f = member(list, k).flow;
                if (flow_mark_[f] != epoch_ && flows_[f].rate >= floor) visit(f);
            }
        }
        picked_first_.push_back(static_cast<std::uint32_t>(picked_.size()));
        if (comp_flows_.empty()) return;
        if (comp_flows_.size() == 1 && routes_[flows_[comp_flows_[0]].route].distinct) {
            // One flow alone (the common case: nothing it shares is saturated by others).
            // The same arithmetic as the general path below, without its tables: each
            // resource leaves load - rate (the flow's own), the solve gives the smallest of
            // those residuals, and a resource it saturates that others also use grows the
            // component.
            const Flow& fl = flows_[comp_flows_[0]];
            const auto& hops = resources_of(routes_[fl.route]);
            const double rate = lone_rate(fl);
            bool grew = false;
            for (std::uint32_t r : hops) {
                const Resource& res = resources_[r];
                if (marks_[r] == epoch_ || res.count < 2) continue;
                const double left = std::max(0.0, res.capacity - std::max(0.0, res.load - fl.rate));
                if (rate < left * (1 - 1e-9)) continue;
                if (floor > 0 && !outside_flow_above_floor(r, floor)) continue;
                expand_.push_back(r);
                grew = true;
            }
            comp_rates_.assign(1, rate);
            if (!grew || round > 64) break;
            continue;
        }
        sort_by_unique_key(comp_flows_, [&](std::uint32_t f) { return flows_[f].order; });
        // The resources the member flows use (visit() collected them), with the capacity the
        // other flows leave.
        if (local_of_resource_.size() < resources_.size())
            local_of_resource_.resize(resources_.size(), 0);
        // In the order visit() met them (not sorted): the solver breaks ties between
        // resources by their index in the old layout (order_), as it did when they were
        // sorted by it, so the rates are the same to the bit.
        const std::size_t nres = comp_resources_.size();
        comp_order_.resize(nres);
        comp_capacity_.resize(nres);
        comp_member_rate_.assign(nres, 0.0);
        for (std::size_t i = 0; i < nres; ++i) {
            local_of_resource_[comp_resources_[i]] = static_cast<std::uint32_t>(i);
            comp_order_[i] = order_[comp_resources_[i]];
        }
        // The incidence in compressed rows: each flow's resources in route order, each
        // resource's flows in start order (transpose).
        Incidence& inc = incidence_;
        inc.flow_first.resize(comp_flows_.size() + 1);
        inc.flow_first[0] = 0;
        inc.flow_resources.clear();
        for (std::size_t i = 0; i < comp_flows_.size(); ++i) {
            const Flow& fl = flows_[comp_flows_[i]];
            const std::uint32_t q = flow_pos_[comp_flows_[i]];
            for (std::uint32_t k = picked_first_[q]; k < picked_first_[q + 1]; ++k) {
                const std::uint32_t li = local_of_resource_[picked_[k]];
                inc.flow_resources.push_back(li);
                comp_member_rate_[li] += fl.rate;
            }
            inc.flow_first[i + 1] = static_cast<std::uint32_t>(inc.flow_resources.size());
        }
        inc.transpose(nres);
        // The capacity each resource leaves the members: its load minus the members' rates.
        // When every flow on it is a member, subtracted in the list's order (the order the
        // results have always been computed in); otherwise from the members' sum, so that a
        // resource crossed by many flows outside (a switch with slack) costs the members
        // only, not a scan of all its flows. The summation order can change the last bit of
        // such a resource's residual, and that only matters when it binds, and a binding
        // resource with outside flows makes the component grow through it and be solved
        // again with all its flows as members (below), where the list order applies.
        for (std::size_t i = 0; i < nres; ++i) {
            const std::uint32_t r = comp_resources_[i];
            if (resources_[r].count == 1) {  // a flow's private pick: nobody else there
                comp_capacity_[i] = resources_[r].capacity;
                continue;
            }
            double others = resources_[r].load;
            if (inc.of_resource(i).size() == resources_[r].count) {
                const Resource& list = resources_[r];
                for (std::size_t k = 0; k < list.count; ++k)
                    others -= flows_[member(list, k).flow].rate;
            } else {
                others -= comp_member_rate_[i];
            }
            comp_capacity_[i] = std::max(0.0, resources_[r].capacity - std::max(0.0, others));
        }
        solver_.solve(std::span<const double>(comp_capacity_), inc, comp_rates_,
                      std::span<const std::uint32_t>(comp_order_));
        // A boundary resource that the new rates saturate, shared with a flow outside the
        // component, may now bind that flow too: grow through it and solve again.
        bool grew = false;
        for (std::size_t i = 0; i < comp_resources_.size(); ++i) {
            const std::uint32_t r = comp_resources_[i];
            if (marks_[r] == epoch_) continue;  // already expanded through
            double used = 0;
            for (std::uint32_t f : incidence_.of_resource(i)) used += comp_rates_[f];
            if (used < comp_capacity_[i] * (1 - 1e-9)) continue;
            if (incidence_.of_resource(i).size() < resources_[r].count &&
                (floor <= 0 || outside_flow_above_floor(r, floor))) {
                expand_.push_back(r);  // a flow outside shares it
                grew = true;
            }
        }
        if (!grew || round > 64) break;
    }
    // Commit: bring the members' remaining bytes up to now, set the new rates and loads,
    // and reschedule their completions.
    for (std::size_t i = 0; i < comp_flows_.size(); ++i) {
        const std::uint32_t f = comp_flows_[i];
        Flow& fl = flows_[f];
        fl.remaining = std::max(0.0, fl.remaining - fl.rate * (now - fl.updated).seconds());
        fl.updated = now;
        const double delta = comp_rates_[i] - fl.rate;
        // The loads of the resources it shares (visit()'s picks less its private one: a
        // resource's load is kept from its second flow on, Resource).
        const std::uint32_t q = flow_pos_[f];
        const std::uint32_t shared_end = picked_first_[q + 1] - (has_private_[q] ? 1 : 0);
        for (std::uint32_t k = picked_first_[q]; k < shared_end; ++k)
            resources_[picked_[k]].load += delta;
        fl.rate = comp_rates_[i];
        if (fl.rate <= 0) continue;  // cannot happen with positive capacities
        const double ps = std::ceil(fl.remaining / fl.rate * 1e12);
        push_completion(now + rounded_ps(ps), fl.order, f, ++fl.version);
    }
    arm();
    stats_.packet_hops += comp_flows_.size();
}

void FluidNetwork::remove(std::uint32_t f, std::vector<std::uint32_t>& seeds) {
    Flow& fl = flows_[f];
    fl.active = false;  // its completion entries are now stale
    Route& route = routes_[fl.route];
    const auto hops = resources_of(route);
    // Only where this flow was part of a saturated resource can the others gain (seen before
    // its rate leaves them: one pass when no resource is crossed twice).
    if (!route.distinct)
        for (std::uint32_t r : hops)
            if (resources_[r].count > 1 && resources_[r].tight()) seeds.push_back(r);
    const std::uint32_t* slot = slots_.data() + static_cast<std::size_t>(f) * stride_;
    for (std::uint32_t h = 0; h < hops.size(); ++h) {
        const std::uint32_t r = hops[h];
        Resource& res = resources_[r];
        const std::uint32_t count = res.count;
        if (route.distinct && count > 1 && res.tight()) seeds.push_back(r);
        if (count == 1) {  // it was alone there: its own slot 0 is the whole list
            res.count = 0;
            continue;
        }
        res.load = std::max(0.0, res.load - fl.rate);  // kept while two or more remain
        const std::uint32_t at = slot[h];
        const Member last = member(res, res.count - 1);
        member(res, at) = last;  // the last member takes its place, as a swap-remove does
        slots_[static_cast<std::size_t>(last.flow) * stride_ + last.hop] = at;
        pop_member(res);
    }
    route.bytes += fl.bytes;
}

void FluidNetwork::handle(Engine&, const Event& ev) {
    switch (ev.kind) {
        case kNextDone: {
            if (static_cast<std::int64_t>(ev.data) != armed_at_.ps()) return;  // superseded
            armed_at_ = Time::max();
            // Every flow due now finishes (in completion order), then what they leave is
            // solved once, then the senders hear of them in that order.
            due_.clear();
            std::vector<std::uint32_t>& seeds = seeds_scratch_;
            seeds.clear();
            // The slowest of the flows that end: the level below which no rate changes.
            double slowest = std::numeric_limits<double>::infinity();
            for (drop_stale();
                 first_completion() != nullptr && first_completion()->at <= engine_.now();
                 drop_stale()) {
                const std::uint32_t f = first_completion()->flow;
                pop_completion();
                slowest = std::min(slowest, flows_[f].rate);
                remove(f, seeds);
                due_.push_back(f);
            }
            if (!seeds.empty()) resolve(seeds, {}, slowest * (1 - 1e-9));
            for (const std::uint32_t f : due_) {
                const Flow& fl = flows_[f];
                const std::uint64_t cookie = fl.cookie;
                const bool notify = fl.notify_injected;
                stats_.bytes_delivered += fl.bytes;
                engine_.schedule(engine_.now() + routes_[fl.route].latency, id_, kDeliver, cookie);
                if (notify) client_.message_injected(cookie);
            }
            for (const std::uint32_t f : due_) flows_.release(f);
            arm();
            break;
        }
        case kStart: {
            start_armed_ = false;
            first_scratch_.swap(starting_);
            starting_.clear();
            // A flow gets at least its fair share of some resource it crosses, C / n with n
            // the flows there (at its bottleneck it is the fastest of the n), so no new flow
            // ends slower than the smallest such share: no flow slower than that can change
            // (resolve()'s floor; models/README.md).
            double fair = std::numeric_limits<double>::infinity();
            for (const std::uint32_t f : first_scratch_)
                for (const std::uint32_t r : resources_of(routes_[flows_[f].route])) {
                    const Resource& res = resources_[r];
                    fair = std::min(fair, res.capacity / static_cast<double>(res.count));
                }
            resolve({}, first_scratch_, fair * (1 - 1e-9));
            break;
        }
        case kDeliver: {
            const std::uint64_t cookie = ev.data;
            ++stats_.messages_delivered;
            client_.message_delivered(cookie);
            break;
        }
        case kInjected: {
            const std::uint64_t cookie = ev.data;
            client_.message_injected(cookie);
            break;
        }
        default:
            throw std::logic_error("fluid network: unknown event kind");
    }
}

std::vector<double> FluidNetwork::active_rates() const {
    std::vector<std::pair<std::uint64_t, double>> v;
    for (std::uint32_t f = 0; f < flows_.capacity(); ++f)
        if (flows_[f].active) v.emplace_back(flows_[f].order, flows_[f].rate);
    std::sort(v.begin(), v.end());
    std::vector<double> out;
    for (const auto& [o, r] : v) out.push_back(r);
    return out;
}

}  // namespace clustersim::net
