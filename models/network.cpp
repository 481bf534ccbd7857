#include "models/network.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/memory.hpp"
#include "simulator/units.hpp"

namespace clustersim::net {

Network::Network(Engine& engine, const topo::Topology& topology, topo::Router& router,
                 NetworkClient& client, std::uint64_t seed)
    : engine_(engine),
      topo_(topology),
      router_(router),
      routes_(topology, router),
      client_(client),
      rng_(seed),
      valiant_(topology) {
    // The engine tells this model its events ahead (prefetch()) only where the links' and
    // relays' state outgrows the core's second-level cache: below that their loads hit it,
    // and the prefetch calls are only work (bench/README.md, "Prefetching by size": a
    // 1,024-node star's replay ran faster without them, a 16,384-node bcast slower).
    const std::uint64_t state = std::uint64_t{topo_.num_edges()} * sizeof(Link) +
                                std::uint64_t{topo_.num_vertices()} * sizeof(Relay);
    id_ = state > core_cache_bytes(std::uint64_t{1} << 20) ? engine_.add_prefetching(*this)
                                                           : engine_.add(*this);
    // Each node's NIC model, resolved to its behaviour once.
    auto resolve = [this](topo::NicModel id) {
        std::shared_ptr<const topo::NicBehaviour> b = topo::nic_models().made(id);
        const topo::NicBehaviour* raw = b.get();
        if (std::find(nics_.begin(), nics_.end(), b) == nics_.end()) nics_.push_back(std::move(b));
        return raw;
    };
    default_nic_ = resolve(topo_.settings.nic_model);
    node_nic_.reserve(topo_.nodes.size());
    for (const topo::NodeInfo& node : topo_.nodes) node_nic_.push_back(resolve(node.nic_model));
    relays_.resize(topo_.num_vertices());
    for (VertexId v = 0; v < topo_.num_vertices(); ++v) {
        const auto& p = topo_.vertex(v);
        relays_[v] = Relay{Time::zero(), p.local};
    }
    links_.resize(topo_.num_edges());
    // Links of the same make share one LinkKind; the map only lives while the model is built.
    struct KindHash {
        std::size_t operator()(const LinkKind& k) const {
            std::uint64_t h = static_cast<std::uint64_t>(k.latency.ps());
            for (const std::uint64_t v :
                 {k.bandwidth.bytes_per_s, k.relay_rate.bytes_per_s,
                  std::uint64_t{k.forward} << 2 | std::uint64_t{k.relayed} << 1 | k.memory_local})
                h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
            return static_cast<std::size_t>(h ^ (h >> 29));
        }
    };
    std::unordered_map<LinkKind, std::uint32_t, KindHash> kind_index;
    for (EdgeId e = 0; e < topo_.num_edges(); ++e) {
        Link& l = links_[e];
        LinkKind k;
        k.latency = topo_.edge(e).latency;
        k.bandwidth = topo_.edge(e).bandwidth;
        l.source = topo_.source_of(e);
        l.target = topo_.target_of(e);
        const auto& sp = topo_.vertex(l.source);
        k.relay_rate = sp.relay;
        k.memory_local = sp.kind == topo::VertexKind::MemoryNode && !sp.local.infinite();
        k.relayed = !sp.relay.infinite() || k.memory_local;
        const auto& tp = topo_.vertex(l.target);
        // Sockets and unset non-switches store and forward; unset switches follow <network>.
        topo::Forwarding f = tp.forwarding;
        if (tp.kind == topo::VertexKind::Socket)
            f = topo::kStoreAndForward;
        else if (f == topo::kForwardingUnset)
            f = tp.kind == topo::VertexKind::Switch ? topo_.settings.forwarding
                                                    : topo::kStoreAndForward;
        // forward_ is indexed by the registry's id; each rule is fetched once.
        const auto slot = static_cast<std::size_t>(f);
        if (forward_.size() <= slot) forward_.resize(slot + 1);
        if (forward_[slot].at == nullptr) forward_[slot] = topo::forwarding_models().made(f);
        k.forward = static_cast<std::uint8_t>(slot);
        const auto [it, added] =
            kind_index.try_emplace(k, static_cast<std::uint32_t>(kinds_.size()));
        if (added) kinds_.push_back(k);
        l.kind = it->second & 0x7fffffffU;  // at most one kind per edge: fits 31 bits
    }
    kind_times_.assign(kinds_.size(), KindTimes{});
    adaptive_up_ = topo_.settings.routing == topo::Routing::AdaptiveUp;
    if (adaptive_up_) {
        track_queues_ = true;
        queued_.assign(links_.size(), 0);
    }
    if (topo::adaptive_dragonfly(topo_.settings.routing)) {
        ugal_ = true;
        track_queues_ = true;
        ugal_global_ = topo_.settings.routing == topo::Routing::UgalG;
        queued_.assign(links_.size(), 0);
        is_router_.assign(topo_.num_vertices(), 0);
        for (VertexId v = 0; v < topo_.num_vertices(); ++v) {
            const auto& p = topo_.vertex(v);
            is_router_[v] = p.kind == topo::VertexKind::Switch && p.node < 0 && p.group >= 0;
        }
    }
}

Network::Calendar& Network::calendar(std::vector<std::uint32_t>& index, std::uint32_t at,
                                     Time busy_until) {
    std::uint32_t& i = index[at];
    if (i == kNil) {
        i = static_cast<std::uint32_t>(calendars_.size());
        calendars_.emplace_back();
    }
    Calendar& cal = calendars_[i];
    std::vector<Busy>& v = cal.busy;
    // Intervals are disjoint and sorted, so by end as well: those over by now lead. The head
    // passes them (each once); they are dropped when nothing is left, or once they are most
    // of the vector.
    const Time now = engine_.now();
    while (cal.head < v.size() && v[cal.head].to <= now) ++cal.head;
    if (cal.head == v.size()) {
        v.clear();
        cal.head = 0;
    } else if (cal.head >= 16 && cal.head * 2 >= v.size()) {
        v.erase(v.begin(), v.begin() + cal.head);
        cal.head = 0;
    }
    // Packets sent hop by hop (a node with the packet NIC) start after every reservation
    // and keep only busy_until: what they took since the last reservation's end is booked
    // as one interval (with any gaps between them: conservative).
    const Time booked = v.empty() ? now : max(now, v.back().to);
    if (busy_until > booked) book(cal, booked, busy_until);
    return cal;
}

std::size_t Network::first_after(const Calendar& cal, Time t) {
    // Short calendars (the usual: a few packets ahead) by a scan, long ones (a relay that many
    // senders' packets cross, with gaps between them) by binary search.
    const std::vector<Busy>& v = cal.busy;
    std::size_t k = cal.head;
    if (v.size() - k > 8)
        return static_cast<std::size_t>(
            std::partition_point(v.begin() + static_cast<std::ptrdiff_t>(k), v.end(),
                                 [t](const Busy& b) { return b.to <= t; }) -
            v.begin());
    while (k < v.size() && v[k].to <= t) ++k;
    return k;
}

void Network::book(Calendar& cal, Time from, Time to) {
    // Where it goes (usually the end), merged with a neighbour it touches: back-to-back
    // reservations (many senders into one link) stay one interval, so the scans stay short.
    std::vector<Busy>& v = cal.busy;
    std::size_t at = v.size();
    while (at > cal.head && v[at - 1].from > from) --at;
    const bool joins_next = at < v.size() && v[at].from == to;
    if (at > cal.head && v[at - 1].to == from) {
        v[at - 1].to = joins_next ? v[at].to : to;
        if (joins_next) v.erase(v.begin() + static_cast<std::ptrdiff_t>(at));
    } else if (joins_next) {
        v[at].from = from;
    } else {
        v.insert(v.begin() + static_cast<std::ptrdiff_t>(at), Busy{from, to});
    }
}

void Network::book_after_slow(std::vector<std::uint32_t>& index, std::uint32_t at, Time busy_until,
                              Time from, Time to) {
    Calendar& cal = calendar(index, at, busy_until);
    std::vector<Busy>& v = cal.busy;
    if (v.size() > cal.head && v.back().to == from)
        v.back().to = to;
    else
        v.push_back(Busy{from, to});
}

EdgeId Network::first_hop(VertexId src, VertexId dst) {
    if (src != dst) return router_.next_hop(src, dst);
    // Two processes on one socket: out to the socket's first neighbour (its memory node)
    // and back.
    auto [lo, hi] = topo_.out_edge_range(src);
    return lo < hi ? lo : topo::kNoEdge;
}

std::uint32_t Network::stream_miss(VertexId src, VertexId dst) {
    if (last_stream_.size() <= src) last_stream_.resize(topo_.num_vertices());
    LastStream& last = last_stream_[src];
    const std::uint64_t key = (static_cast<std::uint64_t>(src) << 32) | dst;
    if (const std::uint32_t found = stream_index_.find(key); found != SlotMap::kAbsent) {
        last = LastStream{dst, found};
        return found;
    }

    Stream s{};
    s.src = src;
    s.dst = dst;
    const auto& vp = topo_.vertex(src);
    if (vp.node >= 0) {
        const auto& node = topo_.nodes[static_cast<std::size_t>(vp.node)];
        s.granularity = node.granularity;
        s.nic = node_nic_[static_cast<std::size_t>(vp.node)];
        s.inject = inject_of(node.nic_model);
    } else {
        s.granularity = topo_.settings.granularity;
        s.nic = default_nic_;
        s.inject = inject_of(topo_.settings.nic_model);
    }
    // The route (topologies/route_service.hpp), to keep the path and size the window.
    routes_.route(src, dst, route_);
    const std::vector<EdgeId>& path = route_.edges;
    if (topo::fixed_path(topo_.settings.routing) && path.size() < UINT16_MAX) {
        s.path_first = static_cast<std::uint32_t>(paths_.size());
        s.path_len = static_cast<std::uint16_t>(path.size());
        paths_.insert(paths_.end(), path.begin(), path.end());
    }
    s.bottleneck = route_.bottleneck.bytes_per_s;
    if (s.granularity == 0) {
        s.window = UINT32_MAX;  // whole messages: no packet window
    } else {
        // Window = packets that fit in the path's pipeline at its bottleneck rate, + 1.
        Time total;
        std::uint64_t bottleneck = UINT64_MAX;
        for (std::size_t i = 0; i < path.size(); ++i) {
            const auto& ep = topo_.edge(path[i]);
            total += ep.latency + transfer_time(s.granularity, ep.bandwidth);
            bottleneck = std::min(bottleneck, ep.bandwidth.bytes_per_s);
            if (i > 0) {
                const Bandwidth relay = topo_.vertex(topo_.source_of(path[i])).relay;
                if (!relay.infinite()) {
                    total += transfer_time(s.granularity, relay);
                    bottleneck = std::min(bottleneck, relay.bytes_per_s);
                }
            }
        }
        const Time per_packet = transfer_time(s.granularity, Bandwidth{bottleneck});
        const std::int64_t pp = std::max<std::int64_t>(1, per_packet.ps());
        const std::int64_t w = (total.ps() + pp - 1) / pp + 1;
        s.window = static_cast<std::uint32_t>(std::clamp<std::int64_t>(w, 2, 1 << 20));
    }
    streams_.push_back(s);
    const auto index = static_cast<std::uint32_t>(streams_.size() - 1);
    stream_index_.insert(key, index);
    last_stream_[src] = LastStream{dst, index};
    return index;
}

double Network::occupancy(EdgeId e, const Packet& p) {
    const Link& link = links_[e];
    // The analytical NIC decides its whole route at injection: each hop when the packet
    // will reach it (decide_at_), against the reservations made by then.
    const Time now = max(engine_.now(), decide_at_);
    const Time wire = wire_time(link.kind, std::max<std::uint64_t>(p.bytes, 1));
    const double busy = link.busy_until > now
                            ? static_cast<double>((link.busy_until - now).ps()) /
                                  static_cast<double>(std::max<std::int64_t>(wire.ps(), 1))
                            : 0.0;
    return busy + queued_[e];
}

std::uint32_t Network::walk(VertexId v, VertexId to, const Packet& p, double* occupied) {
    std::uint32_t hops = 0;
    while (v != to) {
        const EdgeId e = router_.peek_hop(v, to);
        if (e == topo::kNoEdge) throw std::logic_error("UGAL: a path without a route");
        if (occupied != nullptr) *occupied += occupancy(e, p);
        const VertexId w = topo_.target_of(e);
        hops += is_router_[v] && is_router_[w];
        v = w;
    }
    return hops;
}

void Network::ugal_decide(Packet& p) {
    p.adaptive = false;
    ++ugal_decisions_;
    const VertexId r = p.at;
    double q_min = 0, q_val = 0;
    std::uint32_t h_min, h_val;
    if (ugal_global_) {
        // UGAL-G: every queue along each path, its delay estimated in packet times: what is
        // queued along it plus one per router-to-router hop.
        h_min = walk(r, p.dst, p, &q_min);
        h_val = walk(r, p.via, p, &q_val);
        h_val += walk(p.via, p.dst, p, &q_val);
        if (q_min + h_min <= q_val + h_val + kUgalThreshold) p.via = topo::kNoVertex;
    } else {
        // UGAL-L: the output queue each path leaves the source router by, and the queue it
        // feeds at the next router: this model's queues are unbounded, so congestion further
        // on never backs up into the source router's queues as credit flow control makes it
        // do in a router with finite buffers; the next router's queue is what those credits
        // would report. Weighted by the path's router-to-router hops.
        h_min = walk(r, p.dst, p, nullptr);
        h_val = walk(r, p.via, p, nullptr) + walk(p.via, p.dst, p, nullptr);
        auto local = [&](VertexId via) {  // via == kNoVertex: the minimal path
            EdgeId e = router_.peek_hop(r, via == topo::kNoVertex ? p.dst : via);
            const double q = occupancy(e, p);
            const VertexId w = topo_.target_of(e);
            if (!is_router_[w]) return q;
            if (w == via) via = topo::kNoVertex;
            e = router_.peek_hop(w, via == topo::kNoVertex ? p.dst : via);
            return q + occupancy(e, p);
        };
        q_min = local(topo::kNoVertex);
        q_val = local(p.via);
        if (q_min * h_min <= q_val * h_val + kUgalThreshold) p.via = topo::kNoVertex;
    }
    if (p.via != topo::kNoVertex) ++ugal_nonminimal_;
}

EdgeId Network::least_occupied_hop(const Packet& p) {
    if (p.hop == 0 && p.src == p.dst) return first_hop(p.src, p.dst);
    router_.minimal_hops(p.at, p.dst, hops_);
    if (hops_.empty()) throw std::logic_error("packet lost its route");
    const std::size_t n = hops_.size();
    if (n == 1) return hops_[0];
    const std::int32_t node = topo_.vertex(p.dst).node;
    const std::size_t start = static_cast<std::size_t>(node < 0 ? 0 : node) % n;
    EdgeId best = hops_[start];
    double least = occupancy(best, p);
    for (std::size_t k = 1; k < n && least > 0; ++k) {
        const EdgeId e = hops_[(start + k) % n];
        const double q = occupancy(e, p);
        if (q < least) best = e, least = q;
    }
    return best;
}

EdgeId Network::next_edge_routed(Packet& p) {
    if (p.adaptive) [[unlikely]] {
        if (adaptive_up_) return least_occupied_hop(p);
        if (is_router_[p.at]) ugal_decide(p);
    }
    if (p.via != topo::kNoVertex) {  // Valiant: first to the intermediate router
        const EdgeId e = router_.next_hop(p.at, p.via);
        if (e == topo::kNoEdge)
            throw std::logic_error("packet lost its route to its Valiant router");
        return e;
    }
    if (p.hop == 0) return first_hop(p.src, p.dst);
    const EdgeId e = router_.next_hop(p.at, p.dst);
    if (e == topo::kNoEdge) throw std::logic_error("packet lost its route");
    return e;
}

std::uint32_t Network::window(VertexId src, VertexId dst) {
    return streams_[stream_for(src, dst)].window;
}

std::vector<std::uint64_t> Network::edge_bytes() const {
    std::vector<std::uint64_t> out(links_.size());
    for (std::size_t e = 0; e < links_.size(); ++e) out[e] = links_[e].bytes;
    return out;
}

void refuse_past_horizon(Time now, std::uint64_t bytes, std::uint64_t bottleneck,
                         std::string_view from, std::string_view to) {
    if (bottleneck == 0) return;
    const Time least = transfer_time(bytes, Bandwidth{bottleneck});
    if (now + least != Time::max()) return;
    throw HorizonError(fmt::format(
        "simulated time passes the horizon: a message of {} from '{}' to '{}' at simulated time "
        "{} needs at least {:.1f} days at the path's narrowest {}, beyond the horizon of 2^63-1 ps "
        "(about "
        "{:.2f} days)",
        format_size(bytes), from, to, format_time(now),
        static_cast<double>(bytes) / static_cast<double>(bottleneck) / 86400.0,
        format_bandwidth(Bandwidth{bottleneck}), Time::horizon_days()));
}

void Network::send(VertexId src, VertexId dst, std::uint64_t bytes, std::uint64_t cookie,
                   bool notify_injected) {
    const std::uint32_t si = stream_for(src, dst);
    if (bytes > streams_[si].bottleneck) [[unlikely]]  // at least a second: may pass the horizon
        refuse_past_horizon(engine_.now(), bytes, streams_[si].bottleneck, topo_.vertex(src).name,
                            topo_.vertex(dst).name);
    const std::uint32_t mi = messages_.acquire_made([&] {
        return Message{cookie, bytes, 0, 0, si, kNil, 0, notify_injected, notify_injected, false};
    });
    Stream& s = streams_[si];
    if (s.tail == kNil)
        s.head = mi;
    else
        messages_[s.tail].next = mi;
    s.tail = mi;
    ++stats_.messages_sent;
    stats_.bytes_sent += bytes;
    refill(si);
}

void Network::refill(std::uint32_t si) {
    while (streams_[si].inflight < streams_[si].window && streams_[si].head != kNil) {
        Stream& s = streams_[si];
        const std::uint32_t mi = s.head;
        Message& m = messages_[mi];
        const std::uint64_t left = m.bytes - m.packetized;
        const std::uint64_t size = s.granularity == 0 ? left : std::min(s.granularity, left);
        m.packetized += size;
        ++m.pending;
        const bool last = m.packetized == m.bytes;
        if (last) {
            s.head = m.next;
            if (s.head == kNil) s.tail = kNil;
        }
        ++s.inflight;
        Packet np{};
        np.bytes = size;
        np.tail_at = engine_.now();
        np.message = mi;
        np.stream = si;
        np.at = s.src;
        np.prev = topo::kNoVertex;
        np.dst = s.dst;
        np.src = s.src;
        np.next = kNil;
        np.via = valiant_.via(s.src, s.dst, rng_);
        if (track_queues_) [[unlikely]]  // UGAL (a Valiant candidate drawn) or adaptive_up
            np.adaptive = adaptive_up_ || np.via != topo::kNoVertex;
        np.path_first = s.path_first;
        np.path_len = s.path_len;
        np.hop = 0;
        np.last = last;
        const std::uint32_t pi = packets_.acquire(np);
        ++stats_.packets;
        if (s.inject == kInjectHopByHop)
            hop_by_hop(pi);
        else if (s.inject == kInjectReserve)
            reserve_route(pi);
        else
            s.nic->inject(*this, pi);
    }
}

[[gnu::always_inline]] inline Time Network::transmit(EdgeId e, const Packet& p, Time earliest,
                                                     Time& start) {
    Link& link = links_[e];
    const LinkKind& k = kind_of(link);
    start = max(earliest, link.busy_until);
    Time relay_time;
    if (Relay* r = hop_relay(link, k, p, relay_time)) {
        start = max(start, r->free_at);
        r->free_at = start + relay_time;
    }
    const Time wire = wire_time(link.kind, p.bytes);
    const Time end = max(start + max(wire, relay_time), p.tail_at);
    link.busy_until = end;
    return hop_done(link, e, p.bytes, start, end);
}

Time Network::reserve(EdgeId e, const Packet& p, Time earliest, Time& start) {
    Link& link = links_[e];
    const LinkKind& k = kind_of(link);
    Time relay_time;
    Relay* const relay = hop_relay(link, k, p, relay_time);
    const bool relayed = relay != nullptr;
    const Time busy = max(wire_time(link.kind, p.bytes), relay_time);
    // Where the hop is free from `earliest` on (the usual case: every interval booked ends
    // by busy_until and free_at), it starts at `earliest`, after everything booked, and is
    // appended: what reserve_search would find, without the search.
    if (earliest >= link.busy_until && (!relayed || earliest >= relay->free_at) &&
        !link_calendar_.empty()) [[likely]] {
        start = earliest;
        const Time end = max(earliest + busy, p.tail_at);
        if (end > earliest) {
            book_after(link_calendar_, e, link.busy_until, earliest, end);
            link.busy_until = end;
        }
        if (relayed && relay_time > Time::zero()) {
            book_after(relay_calendar_, link.source, relay->free_at, earliest,
                       earliest + relay_time);
            relay->free_at = earliest + relay_time;
        }
        return hop_done(link, e, p.bytes, start, end);
    }
    return reserve_search(e, p, earliest, start, relay, relay_time, busy);
}

Time Network::reserve_search(EdgeId e, const Packet& p, Time earliest, Time& start, Relay* relay,
                             Time relay_time, Time busy) {
    Link& link = links_[e];
    const bool relayed = relay != nullptr;
    if (link_calendar_.empty()) {  // the first reservation
        link_calendar_.assign(links_.size(), kNil);
        relay_calendar_.assign(relays_.size(), kNil);
    }
    // Both calendars exist before either is referenced (a new one may move calendars_).
    if (relayed) calendar(relay_calendar_, link.source, relay->free_at);
    Calendar& on_link = calendar(link_calendar_, e, link.busy_until);
    Calendar* on_relay = relayed ? &calendars_[relay_calendar_[link.source]] : nullptr;
    // The first s >= earliest at which [s, max(s + busy, tail)) is free on the link and
    // [s, s + relay_time) on the relay. An empty reservation still may not start inside a
    // busy interval (a packet waits for the link as it does hop by hop): it is tested as
    // [s, s + 1 ps). Each interval met that is still busy at s and starts before the hop
    // would end moves the hop to its end, where the next one may start.
    const Time one = Time::ps(1);
    Time s = earliest;
    for (bool moved = true; moved;) {
        moved = false;
        for (std::size_t i = first_after(on_link, s); i < on_link.busy.size(); ++i) {
            const Busy& b = on_link.busy[i];
            if (b.from >= max(max(s + busy, p.tail_at), s + one)) break;
            s = b.to, moved = true;
        }
        if (on_relay != nullptr) {
            for (std::size_t i = first_after(*on_relay, s); i < on_relay->busy.size(); ++i) {
                const Busy& b = on_relay->busy[i];
                if (b.from >= max(s + relay_time, s + one)) break;
                s = b.to, moved = true;
            }
        }
    }
    start = s;
    const Time end = max(s + busy, p.tail_at);
    // Booked, and busy_until and free_at raised, only where the hop takes time: a zero-byte
    // packet occupies nothing (raising busy_until to its start would book a phantom interval
    // up to it at the next reservation, calendar()).
    if (end > s) {
        book(on_link, s, end);
        link.busy_until = max(link.busy_until, end);
    }
    if (relayed && relay_time > Time::zero()) {
        book(*on_relay, s, s + relay_time);
        relay->free_at = max(relay->free_at, s + relay_time);
    }
    return hop_done(link, e, p.bytes, start, end);
}

void Network::record_activity(EdgeId e, Time start, Time end, std::uint64_t bytes) {
    std::uint32_t& last = last_activity_[e];
    if (last != UINT32_MAX && (*activity_)[last].end == start) {
        (*activity_)[last].end = end;
        (*activity_)[last].bytes += bytes;
    } else {
        last = static_cast<std::uint32_t>(activity_->size());
        activity_->push_back(Activity{e, start, end, bytes});
    }
}

bool Network::record_links(std::vector<Activity>* out) {
    activity_ = out;
    last_activity_.assign(links_.size(), UINT32_MAX);
    return true;
}

topo::NicPacket Network::packet(std::uint32_t pi) const {
    const Packet& p = packets_[pi];
    return {p.bytes, p.src, p.dst, p.last};
}

void Network::hop_by_hop(std::uint32_t pi) {
    enqueue(next_edge(packets_[pi]), pi);
}

void Network::deliver_at(std::uint32_t pi, Time left, Time arrives) {
    if (left < engine_.now() || arrives < left)
        throw std::logic_error("network: a NIC model delivered a packet before it left");
    const Packet& p = packets_[pi];
    if (p.last && messages_[p.message].notify_injected)
        engine_.schedule(left, id_, kInjected, p.message);
    engine_.schedule(arrives, id_, kDeliver, pi);
}

void Network::reserve_route(std::uint32_t pi) {
    Packet& p = packets_[pi];
    Time t = engine_.now();
    for (;;) {
        if (track_queues_) [[unlikely]]
            decide_at_ = t;
        const EdgeId e = next_edge(p);
        Time start;
        const Time end = reserve(e, p, t, start);
        if (p.hop == 0 && p.last && messages_[p.message].notify_injected)
            engine_.schedule(end, id_, kInjected, p.message);
        const Link& link = links_[e];
        const LinkKind& k = kind_of(link);
        p.tail_at = end + k.latency;
        // When the next vertex may forward it: its head (cut-through), the whole packet, ...
        t = forward_at(k, start, p.tail_at);
        p.prev = link.source;
        p.at = link.target;
        ++p.hop;
        if (p.at == p.via) p.via = topo::kNoVertex;
        if (p.at == p.dst) break;
    }
    if (track_queues_) [[unlikely]]
        decide_at_ = Time::zero();
    engine_.schedule(t, id_, kDeliver, pi);
}

void Network::enqueue(EdgeId e, std::uint32_t pi) {
    const Link& link = links_[e];
    if (link.active_tail == kNil && !link.wake_pending && link.busy_until <= engine_.now()) {
        send_on(e, pi);  // idle link, nobody waiting: no queue needed
        return;
    }
    enqueue_waiting(e, pi);
}

void Network::enqueue_waiting(EdgeId e, std::uint32_t pi) {
    Link& link = links_[e];
    const std::uint64_t key = (static_cast<std::uint64_t>(e) << 32) | packets_[pi].stream;
    std::uint32_t qi;
    if (link.active_tail != kNil && queues_[link.active_tail].key == key) {
        qi = link.active_tail;  // common case: the stream that queued last queues again
    } else {
        qi = queue_index_.find(key);
        if (qi == SlotMap::kAbsent) {  // a new queue joins the ring at its end
            qi = queues_.acquire(Queue{key, kNil, kNil, kNil});
            queue_index_.insert(key, qi);
            if (link.active_tail == kNil) {
                queues_[qi].next_active = qi;
            } else {
                queues_[qi].next_active = queues_[link.active_tail].next_active;
                queues_[link.active_tail].next_active = qi;
            }
            link.active_tail = qi;
        }
    }
    Queue& q = queues_[qi];
    packets_[pi].next = kNil;
    if (track_queues_) [[unlikely]]
        ++queued_[e];
    if (q.tail == kNil)
        q.head = pi;
    else
        packets_[q.tail].next = pi;
    q.tail = pi;

    if (link.wake_pending) return;
    if (link.busy_until <= engine_.now()) {
        start_next(e);
    } else {
        link.wake_pending = true;
        engine_.schedule(link.busy_until, id_, kLinkFree, e);
    }
}

void Network::start_next(EdgeId e) {
    Link& link = links_[e];
    if (track_queues_) [[unlikely]]
        --queued_[e];
    const std::uint32_t qi = queues_[link.active_tail].next_active;  // the ring's head
    Queue& q = queues_[qi];
    const std::uint32_t pi = q.head;
    q.head = packets_[pi].next;
    if (q.head != kNil) {
        // More packets of this stream here: back to the end of the round (the ring turns by
        // one: the head becomes the tail).
        link.active_tail = qi;
    } else {
        // Out of the ring.
        if (link.active_tail == qi)
            link.active_tail = kNil;
        else
            queues_[link.active_tail].next_active = q.next_active;
        q.tail = kNil;
        queue_index_.erase(q.key);
        queues_.release(qi);
    }

    send_on(e, pi);
}

void Network::send_on(EdgeId e, std::uint32_t pi) {
    Packet& p = packets_[pi];
    Time start;
    const Time end = transmit(e, p, engine_.now(), start);
    const bool from_source = p.prev == topo::kNoVertex;
    Link& link = links_[e];
    const LinkKind& k = kind_of(link);
    p.prev = link.source;
    p.at = link.target;
    ++p.hop;
    if (p.at == p.via) p.via = topo::kNoVertex;
    p.tail_at = end + k.latency;
    if (from_source && p.last && messages_[p.message].notify_injected)
        engine_.schedule(end, id_, kInjected, p.message);
    // Cut-through: the packet is handled at the next vertex when its head arrives. A fixed
    // route names the next edge now (the same entry arrive() would read).
    const EdgeId next =
        p.path_len != 0 && p.at != p.dst ? paths_[p.path_first + p.hop] : topo::kNoEdge;
    engine_.schedule(forward_at(k, start, p.tail_at), id_, kArrive, arrive_data(pi, next));
    if (link.active_tail != kNil) {
        link.wake_pending = true;
        engine_.schedule(end, id_, kLinkFree, e);
    }
}

void Network::arrive(std::uint32_t pi, EdgeId next) {
    Packet& p = packets_[pi];
    if (p.at == p.dst) {
        deliver(pi);
        return;
    }
    enqueue(next != topo::kNoEdge ? next : next_edge(p), pi);
}

void Network::prefetch(const Event& ev, bool far) const {
    const auto pi = static_cast<std::uint32_t>(ev.data);
    switch (ev.kind) {
        case kArrive: {
            const auto e = static_cast<EdgeId>(ev.data >> 32);
            if (far) {
                __builtin_prefetch(&packets_[pi], 1);
                if (e != topo::kNoEdge) __builtin_prefetch(&links_[e], 1);
            } else if (e != topo::kNoEdge && kind_of(links_[e]).relayed) {
                __builtin_prefetch(&relays_[links_[e].source], 1);
            }
            break;
        }
        case kLinkFree:
            if (far) __builtin_prefetch(&links_[static_cast<EdgeId>(ev.data)], 1);
            break;
        case kDeliver:
            if (far) __builtin_prefetch(&packets_[pi], 1);
            break;
        default:
            break;
    }
}

void Network::deliver(std::uint32_t pi) {
    const Packet p = packets_[pi];
    packets_.release(pi);
    Stream& s = streams_[p.stream];
    --s.inflight;
    Message& m = messages_[p.message];
    m.delivered += p.bytes;
    --m.pending;
    stats_.bytes_delivered += p.bytes;
    const bool complete = m.pending == 0 && m.packetized == m.bytes;
    refill(p.stream);
    if (complete) {
        Message& done = messages_[p.message];
        done.delivered_all = true;
        ++stats_.messages_delivered;
        const std::uint64_t cookie = done.cookie;
        if (!done.injected_pending) messages_.release(p.message);
        client_.message_delivered(cookie);
    }
}

void Network::handle(Engine& engine, const Event& ev) {
    switch (ev.kind) {
        case kArrive:
            arrive(static_cast<std::uint32_t>(ev.data), static_cast<EdgeId>(ev.data >> 32));
            break;
        case kLinkFree: {
            const auto e = static_cast<EdgeId>(ev.data);
            Link& link = links_[e];
            link.wake_pending = false;
            if (link.active_tail == kNil) break;
            if (link.busy_until > engine.now()) {  // reserved meanwhile by analytical traffic
                link.wake_pending = true;
                engine.schedule(link.busy_until, id_, kLinkFree, e);
            } else {
                start_next(e);
            }
            break;
        }
        case kDeliver:
            deliver(static_cast<std::uint32_t>(ev.data));
            break;
        case kInjected: {
            const auto mi = static_cast<std::uint32_t>(ev.data);
            Message& m = messages_[mi];
            m.injected_pending = false;
            const std::uint64_t cookie = m.cookie;
            if (m.delivered_all) messages_.release(mi);
            client_.message_injected(cookie);
            break;
        }
        default:
            throw std::logic_error("network: unknown event kind");
    }
}

}  // namespace clustersim::net
