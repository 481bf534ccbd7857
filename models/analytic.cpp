#include "models/analytic.hpp"

#include "simulator/error.hpp"
#include "simulator/units.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace clustersim::net {

AnalyticParams resolve_params(const topo::Topology& t, const comm::CommModelSpec& spec) {
    AnalyticParams p;
    p.has_latency = spec.has_latency;
    p.has_bandwidth = spec.has_bandwidth;
    p.latency = spec.latency;
    p.bandwidth = spec.bandwidth;
    p.buses = std::max<std::uint32_t>(1, spec.buses);
    p.collectives_as_messages = spec.collectives_as_messages;
    p.intra_curve = comm::FittedCurve::from(spec.intra_curve);
    p.inter_curve = comm::FittedCurve::from(spec.inter_curve);
    p.intra_two_way = comm::FittedCurve::from(spec.intra_two_way);
    p.inter_two_way = comm::FittedCurve::from(spec.inter_two_way);
    p.intra_concurrent = comm::FittedCurve::from(spec.intra_concurrent);
    p.inter_concurrent = comm::FittedCurve::from(spec.inter_concurrent);
    AnalyticParams::Node base;
    base.in_links = std::max<std::uint32_t>(1, spec.in_links);
    base.out_links = std::max<std::uint32_t>(1, spec.out_links);
    base.has_latency = spec.has_intra_latency;
    base.has_bandwidth = spec.has_intra_bandwidth;
    base.latency = spec.intra_latency;
    base.bandwidth = spec.intra_bandwidth;
    for (const comm::CommNodeSpec& n : spec.node_types) {
        const bool known =
            std::any_of(t.nodes.begin(), t.nodes.end(),
                        [&](const topo::NodeInfo& i) { return i.type == n.node_type; });
        if (!known)
            throw std::invalid_argument(fmt::format(
                "<node-type name=\"{}\"> in <comm-model>: no node of the model has this type",
                n.node_type));
    }
    p.nodes.assign(t.nodes.size(), base);
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
        for (const comm::CommNodeSpec& n : spec.node_types) {
            if (n.node_type != t.nodes[i].type) continue;
            AnalyticParams::Node& node = p.nodes[i];
            if (n.in_links > 0) node.in_links = n.in_links;
            if (n.out_links > 0) node.out_links = n.out_links;
            if (n.has_latency) node.has_latency = true, node.latency = n.latency;
            if (n.has_bandwidth) node.has_bandwidth = true, node.bandwidth = n.bandwidth;
        }
    }
    return p;
}

AnalyticNetwork::AnalyticNetwork(Engine& engine, const topo::Topology& topology,
                                 topo::Router& router, NetworkClient& client,
                                 std::unique_ptr<comm::CommModel> model, AnalyticParams params)
    : engine_(engine),
      topo_(topology),
      routes_(topology, router),
      client_(client),
      model_(std::move(model)),
      params_(std::move(params)),
      id_(engine.add(*this)),
      router_(router) {
    if (params_.nodes.size() != topo_.nodes.size())
        throw std::logic_error("AnalyticNetwork: parameters for another topology");
    const std::size_t n = topo_.nodes.size();
    resources_.units.assign(1 + 2 * n, 0);
    resources_.in_use.assign(1 + 2 * n, 0);
    resources_.units[comm::Resources::bus()] = params_.buses;
    for (std::size_t i = 0; i < n; ++i) {
        const auto node = static_cast<std::int32_t>(i);
        resources_.units[comm::Resources::out_link(node)] = params_.nodes[i].out_links;
        resources_.units[comm::Resources::in_link(node)] = params_.nodes[i].in_links;
    }
    last_.resize(topo_.num_vertices());
    node_.resize(topo_.num_vertices());
    for (VertexId v = 0; v < topo_.num_vertices(); ++v) node_[v] = topo_.vertex(v).node;
    uniform_ =
        params_.has_latency && params_.has_bandwidth &&
        std::all_of(params_.nodes.begin(), params_.nodes.end(),
                    [](const AnalyticParams::Node& x) { return x.has_latency && x.has_bandwidth; });
    two_way_ = !params_.intra_two_way.empty() || !params_.inter_two_way.empty();
    concurrent_ = !params_.intra_concurrent.empty() || !params_.inter_concurrent.empty();
}

std::vector<std::uint64_t> AnalyticNetwork::edge_bytes() const {
    return std::vector<std::uint64_t>(topo_.num_edges(), 0);
}

// The route's latency and narrowest rate (topologies/route_service.hpp): the same path, the
// same sum and the same bottleneck the graph models use.
comm::PairCost AnalyticNetwork::path_cost(VertexId src, VertexId dst) const {
    const topo::Route r = routes_.route(src, dst);
    return comm::PairCost{r.latency, r.bottleneck};
}

// The narrower of two rates, in bytes/s (0 = infinite), as RouteService::route narrows.
namespace {
std::uint64_t narrower(std::uint64_t a, Bandwidth b) {
    return !b.infinite() && (a == 0 || b.bytes_per_s < a) ? b.bytes_per_s : a;
}
std::uint64_t narrower(std::uint64_t a, std::uint64_t b) {
    return narrower(a, Bandwidth{b});
}
}  // namespace

const AnalyticNetwork::TreeHalf& AnalyticNetwork::half(VertexId v) {
    static_assert(sizeof(TreeHalf) == 48, "models/README.md states 48 B per vertex");
    // Pages of kHalfPage vertices, made when a vertex of theirs is first asked for: a few
    // ranks on a model of millions of vertices pay for their own pages only.
    if (halves_.empty()) halves_.resize(topo_.num_vertices() / kHalfPage + 1);
    std::unique_ptr<TreeHalf[]>& page = halves_[v / kHalfPage];
    if (!page) page = std::make_unique<TreeHalf[]>(kHalfPage);
    TreeHalf& h = page[v % kHalfPage];
    if (h.anchor != topo::kNoVertex) return h;
    // v's chain up to the anchor: the first-choice edges the router takes inside a tree (a
    // route climbs from the source to the anchor and descends to the destination), and every
    // vertex strictly between v and the anchor relays the route at its relay rate.
    h.usable = true;
    VertexId u = v;
    topo::Router::TreeLink link = router_.tree_link(u);
    if (link.parent == topo::kNoVertex) {  // a core vertex: its own anchor
        h.anchor = v;
        h.usable = false;
        return h;
    }
    while (true) {
        if (link.up == topo::kNoEdge || link.down == topo::kNoEdge) h.usable = false;
        if (h.usable) {
            const topo::EdgeProps& up = topo_.edge(link.up);
            const topo::EdgeProps& down = topo_.edge(link.down);
            h.up_latency += up.latency;
            h.down_latency += down.latency;
            h.up_narrowest = narrower(h.up_narrowest, up.bandwidth);
            h.down_narrowest = narrower(h.down_narrowest, down.bandwidth);
        }
        const topo::Router::TreeLink next = router_.tree_link(link.parent);
        if (next.parent == topo::kNoVertex) {
            h.anchor = link.parent;
            h.top = u;
            return h;
        }
        const Bandwidth relay = topo_.vertex(link.parent).relay;
        h.up_narrowest = narrower(h.up_narrowest, relay);
        h.down_narrowest = narrower(h.down_narrowest, relay);
        u = link.parent;
        link = next;
    }
}

bool AnalyticNetwork::tree_cost(VertexId src, VertexId dst, comm::PairCost& out) {
    if (src == dst || !router_.tree_routes()) return false;
    const TreeHalf& a = half(src);
    if (!a.usable) return false;
    const TreeHalf& b = half(dst);
    if (!b.usable) return false;
    Time latency = a.up_latency;
    std::uint64_t narrowest = a.up_narrowest;
    if (a.anchor == b.anchor) {
        if (a.top == b.top) return false;  // they meet below the anchor
        // The anchor relays the route; a memory node between two neighbours (a route of two
        // edges) moves it at its local rate instead (topo::RouteService::relay).
        const topo::VertexProps& p = topo_.vertex(a.anchor);
        const bool neighbours = a.top == src && b.top == dst;
        narrowest = narrower(
            narrowest, neighbours && p.kind == topo::VertexKind::MemoryNode && !p.local.infinite()
                           ? p.local
                           : p.relay);
    } else {
        // Between trees: up to the source's anchor, the core path to the destination's
        // anchor (both anchors relay it), and down. Cached per anchor pair.
        const std::uint64_t key = (static_cast<std::uint64_t>(a.anchor) << 32) | b.anchor;
        auto it = anchor_costs_.find(key);
        if (it == anchor_costs_.end()) {
            core_path_.clear();
            if (!router_.append_path(a.anchor, b.anchor, core_path_)) return false;
            Time core;
            std::uint64_t core_narrowest = narrower(0, topo_.vertex(a.anchor).relay);
            for (std::size_t i = 0; i < core_path_.size(); ++i) {
                const topo::EdgeProps& e = topo_.edge(core_path_[i]);
                core += e.latency;
                core_narrowest = narrower(core_narrowest, e.bandwidth);
                if (i > 0)
                    core_narrowest = narrower(core_narrowest,
                                              topo_.vertex(topo_.source_of(core_path_[i])).relay);
            }
            core_narrowest = narrower(core_narrowest, topo_.vertex(b.anchor).relay);
            it = anchor_costs_.emplace(key, comm::PairCost{core, Bandwidth{core_narrowest}}).first;
        }
        latency += it->second.latency;
        narrowest = narrower(narrowest, it->second.bandwidth);
    }
    latency += b.down_latency;
    out = comm::PairCost{latency, Bandwidth{narrower(narrowest, b.down_narrowest)}};
    return true;
}

const comm::FittedCurve* AnalyticNetwork::curve_of(std::int32_t src_node,
                                                   std::int32_t dst_node) const {
    const comm::FittedCurve& c =
        src_node == dst_node && src_node >= 0 ? params_.intra_curve : params_.inter_curve;
    return c.empty() ? nullptr : &c;
}

const comm::FittedCurve* AnalyticNetwork::two_way_of(std::int32_t src_node,
                                                     std::int32_t dst_node) const {
    const comm::FittedCurve& c =
        src_node == dst_node && src_node >= 0 ? params_.intra_two_way : params_.inter_two_way;
    return c.empty() ? nullptr : &c;
}

const comm::FittedCurve* AnalyticNetwork::concurrent_of(std::int32_t src_node,
                                                        std::int32_t dst_node) const {
    const comm::FittedCurve& c =
        src_node == dst_node && src_node >= 0 ? params_.intra_concurrent : params_.inter_concurrent;
    return c.empty() ? nullptr : &c;
}

comm::PairCost AnalyticNetwork::pair_cost(VertexId src, VertexId dst) {
    const std::int32_t sn = node_[src], dn = node_[dst];
    const bool intra = sn == dn && sn >= 0;
    if (uniform_) {
        if (intra)
            return {params_.nodes[static_cast<std::size_t>(sn)].latency,
                    params_.nodes[static_cast<std::size_t>(sn)].bandwidth};
        return {params_.latency, params_.bandwidth};
    }
    // The last destination of this source first: a trace sends to the same neighbour over and
    // over.
    LastPair& last = last_[src];
    if (last.dst == dst) return last.cost;
    // What the XML gives for this kind of pair; the graph's route fills in the rest.
    bool has_latency = params_.has_latency, has_bandwidth = params_.has_bandwidth;
    comm::PairCost given{params_.latency, params_.bandwidth};
    if (intra) {
        const AnalyticParams::Node& n = params_.nodes[static_cast<std::size_t>(sn)];
        has_latency = n.has_latency, has_bandwidth = n.has_bandwidth;
        given = {n.latency, n.bandwidth};
    }
    comm::PairCost c = given;
    if (!(has_latency && has_bandwidth)) {
        // Pairs that meet at an anchor (every pair of nodes of a star, of a tree of switches,
        // ...) from the two endpoints' halves, kept nowhere but in `last`: a recursive-doubling
        // allreduce over a million ranks meets twenty million pairs once each, which the pair
        // cache held (GiBs) for nothing. The others from the route, in the pair cache.
        if (!tree_cost(src, dst, c)) {
            const std::uint64_t key = (static_cast<std::uint64_t>(src) << 32) | dst;
            if (const auto it = costs_.find(key); it != costs_.end()) {
                last = LastPair{dst, it->second};
                return it->second;
            }
            c = path_cost(src, dst);
            if (has_latency) c.latency = given.latency;
            if (has_bandwidth) c.bandwidth = given.bandwidth;
            costs_.emplace(key, c);
            last = LastPair{dst, c};
            return c;
        }
        if (has_latency) c.latency = given.latency;
        if (has_bandwidth) c.bandwidth = given.bandwidth;
    }
    last = LastPair{dst, c};
    return c;
}

comm::Message AnalyticNetwork::message(VertexId src, VertexId dst, std::uint64_t bytes) {
    comm::Message m;
    m.src_node = node_[src];
    m.dst_node = node_[dst];
    m.bytes = bytes;
    m.cost = pair_cost(src, dst);
    m.curve = curve_of(m.src_node, m.dst_node);
    return m;
}

void AnalyticNetwork::send(VertexId src, VertexId dst, std::uint64_t bytes, std::uint64_t cookie,
                           bool notify_injected) {
    send_between(src, dst, bytes, cookie, notify_injected, -1, -1);
}

void AnalyticNetwork::send_between(VertexId src, VertexId dst, std::uint64_t bytes,
                                   std::uint64_t cookie, bool notify_injected,
                                   std::int32_t src_rank, std::int32_t dst_rank) {
    send_within(src, dst, bytes, cookie, notify_injected, src_rank, dst_rank, 0);
}

void AnalyticNetwork::send_within(VertexId src, VertexId dst, std::uint64_t bytes,
                                  std::uint64_t cookie, bool notify_injected, std::int32_t src_rank,
                                  std::int32_t dst_rank, std::uint64_t buffer) {
    ++stats_.messages_sent;
    stats_.bytes_sent += bytes;
    ++stats_.packets;
    comm::Message m = message(src, dst, bytes);
    m.buffer = buffer;
    const comm::Plan plan = model_->plan(m, resources_);
    // Two-way and concurrent pricing: only messages with payload between two ranks, of a
    // kind of pair that has a two-way or a concurrency curve.
    const bool between = bytes > 0 && src_rank >= 0 && dst_rank >= 0 && src_rank != dst_rank;
    const comm::FittedCurve* two =
        two_way_ && between ? two_way_of(m.src_node, m.dst_node) : nullptr;
    const comm::FittedCurve* shared =
        concurrent_ && between ? concurrent_of(m.src_node, m.dst_node) : nullptr;
    const Time slowest = two ? max(plan.transfer, two->time_within(bytes, buffer)) : plan.transfer;
    if (engine_.now() + slowest + plan.latency == Time::max()) [[unlikely]]
        throw HorizonError(fmt::format(
            "simulated time passes the horizon: a message of {} from '{}' to '{}' at simulated "
            "time {} would arrive beyond the horizon of 2^63-1 ps (about {:.2f} days)",
            format_size(bytes), topo_.vertex(src).name, topo_.vertex(dst).name,
            format_time(engine_.now()), Time::horizon_days()));
    if (plan.start && plan.num_pools == 0 && !two && !shared) {
        // Nothing to hold: the two notifications carry the cookie, no record is kept.
        const Time injected = engine_.now() + plan.transfer;
        if (notify_injected) engine_.schedule(injected, id_, kInjected, cookie);
        engine_.schedule(injected + plan.latency, id_, kDeliver, cookie);
        ++stats_.messages_delivered;
        stats_.bytes_delivered += bytes;
        return;
    }
    Flight flight;
    flight.cookie = cookie;
    flight.msg = m;
    flight.plan = plan;
    flight.sent = engine_.now();
    flight.notify_injected = notify_injected;
    if (two || shared) {
        flight.ranked = true;
        flight.src_rank = src_rank;
        flight.dst_rank = dst_rank;
        const auto need = static_cast<std::size_t>(std::max(src_rank, dst_rank)) + 1;
        if (sending_.size() < need) sending_.resize(need), receiving_.resize(need);
    }
    const std::uint32_t f = flights_.acquire(flight);
    if (plan.start)
        start(f, plan);
    else
        queue_.push_back(f);
}

void AnalyticNetwork::start(std::uint32_t f, const comm::Plan& plan) {
    Flight& flight = flights_[f];
    flight.plan = plan;
    for (std::uint8_t i = 0; i < plan.num_pools; ++i) ++resources_.in_use[plan.pools[i]];
    const Time waited = engine_.now() - flight.sent;
    if (waited > Time::zero()) {
        ++stats_.messages_waited;
        stats_.resource_wait += waited;
    }
    if (!flight.ranked) {
        engine_.schedule(engine_.now() + plan.transfer, id_, kTransferred, f);
        return;
    }
    const comm::FittedCurve* two = two_way_of(flight.msg.src_node, flight.msg.dst_node);
    const comm::FittedCurve* shared = concurrent_of(flight.msg.src_node, flight.msg.dst_node);
    flight.one = plan.transfer;
    flight.two = two ? max(plan.transfer, two->time_within(flight.msg.bytes, flight.msg.buffer))
                     : plan.transfer;
    flight.shared =
        shared ? shared->time_within(flight.msg.bytes, flight.msg.buffer) : Time::zero();
    flight.since = engine_.now();
    flight.done = 0;
    track(f);
    Flight& started = flights_[f];
    started.two_way = wants_two_way(started);
    started.period = period_of(started);
    retime(f);
}

Time AnalyticNetwork::period_of(const Flight& f) const {
    const Time base = f.two_way ? f.two : f.one;
    if (f.shared == Time::zero()) return base;
    const std::size_t n = receiving_[static_cast<std::size_t>(f.dst_rank)].size();
    if (n < 2) return base;
    return max(base, static_cast<std::int64_t>(n) * f.shared);
}

bool AnalyticNetwork::wants_two_way(const Flight& f) const {
    return !receiving_[static_cast<std::size_t>(f.src_rank)].empty() ||
           !sending_[static_cast<std::size_t>(f.dst_rank)].empty();
}

void AnalyticNetwork::retime(std::uint32_t f) {
    Flight& flight = flights_[f];
    const Time t = flight.period;
    const double left = std::max(0.0, 1.0 - flight.done);
    const Time end = engine_.now() + Time::ps(std::llround(left * static_cast<double>(t.ps())));
    flight.version = ++version_;
    engine_.schedule(end, id_, kTransferred,
                     (static_cast<std::uint64_t>(flight.version) << 32) | f);
}

void AnalyticNetwork::reconsider(std::vector<std::uint32_t>& flights, std::uint32_t skip) {
    for (const std::uint32_t g : flights) {
        if (g == skip) continue;
        Flight& flight = flights_[g];
        const bool two = wants_two_way(flight);
        if (two == flight.two_way && !concurrent_) continue;
        const Time old = flight.period;
        flight.two_way = two;
        const Time now_period = period_of(flight);
        if (now_period == old) continue;
        // The part transferred so far at the old rate, the rest at the new one.
        if (old > Time::zero())
            flight.done += static_cast<double>((engine_.now() - flight.since).ps()) /
                           static_cast<double>(old.ps());
        flight.since = engine_.now();
        flight.period = now_period;
        retime(g);
    }
}

void AnalyticNetwork::track(std::uint32_t f) {
    const auto a = static_cast<std::size_t>(flights_[f].src_rank);
    const auto b = static_cast<std::size_t>(flights_[f].dst_rank);
    const bool a_starts_sending = sending_[a].empty(), b_starts_receiving = receiving_[b].empty();
    sending_[a].push_back(f);
    receiving_[b].push_back(f);
    if (a_starts_sending) reconsider(receiving_[a]);  // messages to a: their receiver sends
    if (b_starts_receiving) reconsider(sending_[b]);  // messages from b: their sender receives
    if (concurrent_) reconsider(receiving_[b], f);    // messages to b: one more shares its copy
}

void AnalyticNetwork::untrack(std::uint32_t f) {
    const auto a = static_cast<std::size_t>(flights_[f].src_rank);
    const auto b = static_cast<std::size_t>(flights_[f].dst_rank);
    auto drop = [f](std::vector<std::uint32_t>& v) {
        const auto it = std::find(v.begin(), v.end(), f);
        *it = v.back();
        v.pop_back();
    };
    drop(sending_[a]);
    drop(receiving_[b]);
    if (sending_[a].empty()) reconsider(receiving_[a]);
    if (receiving_[b].empty()) reconsider(sending_[b]);
    if (concurrent_) reconsider(receiving_[b]);  // messages to b: one fewer shares its copy
}

void AnalyticNetwork::offer_queue() {
    // In order from the oldest waiting flight; a flight that starts leaves a hole (kGone).
    // Once the model says nothing can start, the rest stays as it is: a full bus ends the
    // scan after one message instead of after the whole queue.
    bool started = false;
    for (std::size_t i = queue_head_; i < queue_.size(); ++i) {
        const std::uint32_t f = queue_[i];
        if (f == kGone) continue;
        if (!model_->anything_free(resources_)) break;
        const comm::Plan plan = model_->plan(flights_[f].msg, resources_);
        if (!plan.start) continue;
        queue_[i] = kGone;
        ++queue_holes_;
        started = true;
        start(f, plan);
    }
    if (!started) return;
    while (queue_head_ < queue_.size() && queue_[queue_head_] == kGone)
        ++queue_head_, --queue_holes_;
    if (queue_head_ == queue_.size()) {
        queue_.clear();
        queue_head_ = 0;
        queue_holes_ = 0;
        return;
    }
    // Holes and the consumed front are squeezed out once they outnumber the waiting flights,
    // so the scan and the memory stay proportional to what waits.
    const std::size_t waiting = queue_.size() - queue_head_ - queue_holes_;
    if (queue_head_ + queue_holes_ > waiting + 64) {
        std::size_t kept = 0;
        for (std::size_t i = queue_head_; i < queue_.size(); ++i)
            if (queue_[i] != kGone) queue_[kept++] = queue_[i];
        queue_.resize(kept);
        queue_head_ = 0;
        queue_holes_ = 0;
    }
}

void AnalyticNetwork::handle(Engine&, const Event& ev) {
    switch (ev.kind) {
        case kInjected:
            client_.message_injected(ev.data);
            return;
        case kDeliver:
            client_.message_delivered(ev.data);
            return;
        case kTransferred: {
            const auto f = static_cast<std::uint32_t>(ev.data);
            const Flight flight = flights_[f];
            if (flight.ranked) {
                // A two-way flight's end moves when its rate changes: older events are stale.
                if (flight.version != static_cast<std::uint32_t>(ev.data >> 32)) return;
                untrack(f);
            } else if (ev.data >> 32 != 0) {
                return;  // stale: of a two-way flight whose slot was released since
            }
            flights_.release(f);
            for (std::uint8_t i = 0; i < flight.plan.num_pools; ++i)
                --resources_.in_use[flight.plan.pools[i]];
            ++stats_.messages_delivered;
            stats_.bytes_delivered += flight.msg.bytes;
            if (flight.notify_injected) client_.message_injected(flight.cookie);
            if (flight.plan.latency > Time::zero())
                engine_.schedule(engine_.now() + flight.plan.latency, id_, kDeliver, flight.cookie);
            else
                client_.message_delivered(flight.cookie);
            if (queue_head_ < queue_.size()) offer_queue();
            return;
        }
        default:
            throw std::logic_error("analytic network: unknown event");
    }
}

Time AnalyticNetwork::collective_time(std::string_view operation,
                                      const std::vector<VertexId>& sockets, std::uint64_t bytes,
                                      std::uint64_t volume) {
    comm::CollectiveCall call;
    call.operation = operation;
    call.ranks = static_cast<std::uint32_t>(sockets.size());
    call.bytes = bytes;
    call.volume = volume;
    // The slowest pair from the first member's socket to each other member's: the largest
    // latency and the smallest bandwidth. Every member on one socket: that socket's own pair.
    bool any = false;
    for (std::size_t i = 1; i < sockets.size(); ++i) {
        if (sockets[i] == sockets[0]) continue;
        const comm::PairCost c = pair_cost(sockets[0], sockets[i]);
        if (!any) {
            call.cost = c, any = true;
            continue;
        }
        call.cost.latency = max(call.cost.latency, c.latency);
        if (c.bandwidth.infinite()) continue;
        if (call.cost.bandwidth.infinite() || c.bandwidth < call.cost.bandwidth)
            call.cost.bandwidth = c.bandwidth;
    }
    if (!any && sockets.size() > 1) call.cost = pair_cost(sockets[0], sockets[0]);
    // The curve of the slowest kind of pair: between nodes if the members span nodes.
    if (!sockets.empty()) {
        const std::int32_t first = node_[sockets[0]];
        const bool spans = std::any_of(sockets.begin(), sockets.end(),
                                       [&](VertexId v) { return node_[v] != first; });
        call.curve = curve_of(first, spans ? -1 : first);
    }
    return model_->collective_time(call);
}

}  // namespace clustersim::net
