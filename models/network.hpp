// The packetized flow network (PIOsimHD section 3.2).
//
// A message from one socket to another is cut into packets of the sending node's transfer
// granularity (or sent whole). Every (source, destination) socket pair is one stream; a
// stream keeps at most `window` packets in flight, the bandwidth-delay product of its path
// in packets, so nothing piles up at a bottleneck and nothing is ever dropped: a packet
// that cannot move waits in its stream's queue at that link. Each one-way link serves the
// streams queued at it round-robin, one packet each, so streams sharing a link share it
// fairly. A store-and-forward vertex (switch, NIC, memory node) receives a whole packet,
// then relays it; its relay bandwidth is shared by all its outgoing links, and a memory
// node relays at its `local` rate when the stream's two ends are both its neighbours.
//
// The NIC model, chosen per node in the model, decides how a packet enters the network
// (topologies/nic_models.hpp); the network resolves each node's to its behaviour once and
// offers it the three ways in (topo::NicPort):
//  - packet:     every packet is routed hop by hop; two events per packet per hop
//                (arrival at the next vertex, link free for the next packet).
//  - analytical: the route is computed once per packet at injection and the packet
//                reserves each link and relay on its way in one go; one event per packet.
//  - any other registered model may also hand a packet over with its own departure and
//    arrival times (NicPort::deliver_at), past the graph's links.
// Credits return to the sender at the instant of delivery (the simulator's global view).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/slot_map.hpp"
#include "models/transport.hpp"
#include "simulator/engine.hpp"
#include "simulator/pool.hpp"
#include "simulator/rng.hpp"
#include "topologies/forwarding.hpp"
#include "topologies/nic_models.hpp"
#include "topologies/route_service.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace clustersim::net {

class Network final : public Component, public Transport, private topo::NicPort {
  public:
    Network(Engine& engine, const topo::Topology& topology, topo::Router& router,
            NetworkClient& client, std::uint64_t seed = 1);

    void send(VertexId src, VertexId dst, std::uint64_t bytes, std::uint64_t cookie,
              bool notify_injected) override;
    const NetworkStats& stats() const override { return stats_; }
    std::vector<std::uint64_t> edge_bytes() const override;
    bool record_links(std::vector<Activity>* out) override;
    std::size_t streams() const { return streams_.size(); }
    // Packets in flight for one window of stream (src, dst) (for tests and reports).
    std::uint32_t window(VertexId src, VertexId dst);

    void handle(Engine& engine, const Event& event) override;
    void prefetch(const Event& event, bool far) const override;
    std::string name() const override { return "network"; }

  private:
    std::vector<Activity>* activity_ = nullptr;  // record_links
    std::vector<std::uint32_t> last_activity_;   // per edge: its latest interval in activity_
    enum Kind : std::uint32_t { kArrive = 0, kLinkFree = 1, kDeliver = 2, kInjected = 3 };
    static constexpr std::uint32_t kNil = UINT32_MAX;
    // Stream::inject. The built-in NIC models (topologies/nic_models.cpp) do nothing but call
    // hop_by_hop or reserve_route, so their streams call it without the two indirect calls
    // (the behaviour's inject, then the port's); any other model goes through its inject().
    enum Inject : std::uint8_t { kInjectVirtual = 0, kInjectHopByHop = 1, kInjectReserve = 2 };
    static Inject inject_of(topo::NicModel id) {
        return id == topo::NicModel::Packet       ? kInjectHopByHop
               : id == topo::NicModel::Analytical ? kInjectReserve
                                                  : kInjectVirtual;
    }

    struct Message {
        std::uint64_t cookie;
        std::uint64_t bytes;
        std::uint64_t packetized;  // bytes already cut into packets
        std::uint64_t delivered;
        std::uint32_t stream;
        std::uint32_t next;     // next message of the stream waiting to be packetized
        std::uint32_t pending;  // packets cut but not yet delivered
        bool notify_injected;
        bool injected_pending;  // an injected notification is still to come
        bool delivered_all;
    };
    // One line per packet (64-byte aligned): the packet model touches a random packet per
    // event. The route's fixed part is copied in (dst, path), so a hop does not read its
    // stream.
    struct alignas(64) Packet {
        std::uint64_t bytes;
        Time tail_at;  // when its last byte has reached `at` (cut-through: after the head)
        std::uint32_t message;
        std::uint32_t stream;
        VertexId at;         // vertex it is at (or travelling to)
        VertexId prev;       // vertex it came from
        VertexId dst;        // its stream's destination
        VertexId src;        // its stream's source
        std::uint32_t next;  // next packet in the same link queue
        VertexId via;        // Valiant routing: the intermediate router still ahead, or kNoVertex
        std::uint32_t path_first;  // its stream's route in paths_ (path_len 0: hop by hop)
        std::uint16_t path_len;
        std::uint16_t hop;  // links taken so far
        bool last;          // last packet of its message
        bool adaptive;      // UGAL: `via` is a candidate, decided at the source router; adaptive_up
    };
    static_assert(sizeof(Packet) == 64, "a packet is one cache line");
    struct Stream {
        VertexId src, dst;
        std::uint64_t granularity;  // 0 = whole message
        std::uint32_t window;
        std::uint32_t inflight = 0;
        std::uint32_t head = kNil, tail = kNil;  // messages waiting to be packetized
        // With shortest-path routing the route is a function of (src, dst) alone: it is
        // kept once per stream in paths_ (path_len edges), so a hop reads one array entry
        // instead of routing records. path_len 0: decide hop by hop (round-robin routing).
        std::uint32_t path_first = 0;
        std::uint16_t path_len = 0;
        // How its packets enter the network: its NIC model's own inject() (kInjectVirtual),
        // or the built-in packet or analytical NIC's one call, made directly.
        std::uint8_t inject = kInjectVirtual;
        const topo::NicBehaviour* nic;  // its source node's NIC model (or the network's)
        std::uint64_t bottleneck = 0;   // narrowest rate on the first-choice path, bytes/s
    };
    // The packets of one stream queued at one link.
    struct Queue {
        std::uint64_t key;
        std::uint32_t head, tail;
        std::uint32_t next_active;
    };
    // What a link shares with links of the same make: its latency and bandwidth, its source
    // vertex's relay rate and its target's forwarding rule. A generated model has a handful
    // of these (a star: six), so they stay in the L1 cache and a Link is half a line.
    struct LinkKind {
        Time latency;
        Bandwidth bandwidth;
        Bandwidth relay_rate;       // the source vertex's relay bandwidth (infinite = none)
        bool relayed = false;       // the source vertex has a finite relay (or local) rate
        bool memory_local = false;  // the source is a memory node with a finite local rate
        std::uint8_t forward = 0;   // the target's forwarding rule: an index into forward_
        bool operator==(const LinkKind&) const = default;
    };
    // A link's own state, 32 bytes (32-byte aligned: two to a line, never across two): every
    // packet hop touches a random link, so the smaller its state, the more of the model's
    // links the cache holds (issue 25; one 64-byte line with the kind's fields inline
    // before). The queues waiting for it form a ring kept by its tail alone (the head is the
    // tail's next_active).
    struct alignas(32) Link {
        Time busy_until;
        std::uint64_t bytes = 0;  // payload bytes that crossed it
        VertexId source = 0, target = 0;
        std::uint32_t active_tail = kNil;  // round-robin ring of queues (circular)
        std::uint32_t kind : 31 = 0;       // index into kinds_
        std::uint32_t wake_pending : 1 = 0;
    };
    static_assert(sizeof(Link) == 32, "a link is half a cache line");
    const LinkKind& kind_of(const Link& l) const { return kinds_[l.kind]; }
    // The last packet size each kind's wire and relay times were computed for, and those
    // times: a packet's size is its stream's granularity (or a whole small message), so the
    // next hop on a link of the same kind almost always has the same size, and the memo spares
    // transfer_time's 64-bit division per hop (two on a relayed hop). Exactly the same times.
    struct KindTimes {
        std::uint64_t wire_bytes = 0, relay_bytes = 0;
        Time wire, relay;  // zero bytes take no time: the initial entries are exact
    };
    Time wire_time(std::uint32_t kind, std::uint64_t bytes) {
        KindTimes& m = kind_times_[kind];
        return remembered(m.wire_bytes, m.wire, bytes, kinds_[kind].bandwidth);
    }
    Time relay_time(std::uint32_t kind, std::uint64_t bytes) {
        KindTimes& m = kind_times_[kind];
        return remembered(m.relay_bytes, m.relay, bytes, kinds_[kind].relay_rate);
    }
    // transfer_time(bytes, rate), computed only when `bytes` is not the size last asked.
    static Time remembered(std::uint64_t& last_bytes, Time& last, std::uint64_t bytes,
                           Bandwidth rate) {
        if (last_bytes != bytes) {
            last_bytes = bytes;
            last = transfer_time(bytes, rate);
        }
        return last;
    }
    // The shared part of a vertex's relay: when it is free, and (memory node) its
    // neighbour-to-neighbour rate. 16 bytes, so four vertices of a node share a line.
    struct Relay {
        Time free_at;
        Bandwidth local;
    };

    // Most traces send from a socket to a few neighbours over and over: the last stream of
    // each source spares the hash look-up, and that check is inlined into send (the look-up
    // and a new stream's set-up are stream_miss, out of line).
    std::uint32_t stream_for(VertexId src, VertexId dst) {
        if (src < last_stream_.size() && last_stream_[src].dst == dst) [[likely]]
            return last_stream_[src].index;
        return stream_miss(src, dst);
    }
    [[gnu::noinline]] std::uint32_t stream_miss(VertexId src, VertexId dst);
    void refill(std::uint32_t stream);
    // topo::NicPort: what a NIC model does with packet `pkt`.
    Time now() const override { return engine_.now(); }
    topo::NicPacket packet(std::uint32_t pkt) const override;
    void hop_by_hop(std::uint32_t pkt) override;
    void reserve_route(std::uint32_t pkt) override;
    void deliver_at(std::uint32_t pkt, Time left, Time arrives) override;
    EdgeId first_hop(VertexId src, VertexId dst);
    // The edge packet p takes next (from p.at, after p.hop links).
    EdgeId next_edge(Packet& p) {
        return p.path_len != 0 ? paths_[p.path_first + p.hop] : next_edge_routed(p);
    }
    EdgeId next_edge_routed(Packet& p);  // no fixed route: ask the router (UGAL: decide)

    // UGAL (topo::Routing::UgalL, UgalG; models/README.md, "Adaptive routing"). A packet
    // between groups carries its Valiant candidate (`via`, drawn as Valiant draws it) with
    // `adaptive` set until it reaches a router of its source group (a switch outside nodes
    // with a group); there it keeps the candidate or drops it for the minimal path.
    void ugal_decide(Packet& p);
    // A link's occupancy as packet p would see it, in packets of p's size: the rest of the
    // transmission or reservations it carries (busy_until) plus the packets queued at it.
    double occupancy(EdgeId e, const Packet& p);
    // Router-to-router hops from v to `to` along first-choice next hops, and (UGAL-G) the
    // occupancies of every link met.
    std::uint32_t walk(VertexId v, VertexId to, const Packet& p, double* occupied);
    // Routing::AdaptiveUp: the least occupied of the fewest-hop next edges from p.at, ties
    // from the destination node's index modulo their count on (D-mod-k's choice up a
    // two-level fat tree).
    EdgeId least_occupied_hop(const Packet& p);
    bool ugal_ = false, ugal_global_ = false, adaptive_up_ = false;
    bool track_queues_ = false;          // UGAL or adaptive_up: queued_ is kept
    std::vector<std::uint32_t> queued_;  // packets waiting per link (else empty)
    std::vector<EdgeId> hops_;           // least_occupied_hop's scratch
    Time decide_at_;  // reserve_route: when the packet reaches the hop being decided
    std::vector<std::uint8_t> is_router_;  // UGAL: 1 for a dragonfly router (else empty)

  public:
    // How many packets UGAL decided for and how many of them took their Valiant path.
    std::uint64_t adaptive_decisions() const { return ugal_decisions_; }
    std::uint64_t adaptive_nonminimal() const { return ugal_nonminimal_; }
    // UGAL-L takes the Valiant path when q_min * H_min > q_val * H_val + this, UGAL-G when
    // q_min + H_min > q_val + H_val + this (q in packets, H in router-to-router hops).
    static constexpr double kUgalThreshold = 2.0;

  private:
    std::uint64_t ugal_decisions_ = 0, ugal_nonminimal_ = 0;
    // A packet at the link's source: sent at once on an idle link with nobody waiting (the
    // usual hop, inlined into arrive), else queued (enqueue_waiting).
    [[gnu::always_inline]] inline void enqueue(EdgeId e, std::uint32_t pkt);
    [[gnu::noinline]] void enqueue_waiting(EdgeId e, std::uint32_t pkt);
    void start_next(EdgeId e);
    // Transmit now and schedule what follows.
    [[gnu::always_inline]] inline void send_on(EdgeId e, std::uint32_t pkt);
    // Occupies link e (and its source's relay) with packet p from `earliest` on: the
    // transmission starts at `start` (returned through it) and its last byte has left at
    // the returned time, which is never before the packet's tail has arrived (cut-through).
    Time transmit(EdgeId e, const Packet& p, Time earliest, Time& start);
    // The relay packet p's hop on `link` (of kind k) takes, its time in `time`: the source
    // vertex's relay, or a memory node's local rate between its two neighbours; nullptr for
    // the injecting hop or an unlimited rate (transmit and reserve).
    [[gnu::always_inline]] Relay* hop_relay(const Link& link, const LinkKind& k, const Packet& p,
                                            Time& time) {
        if (!k.relayed || p.prev == topo::kNoVertex) return nullptr;
        Relay& r = relays_[link.source];
        if (k.memory_local && p.prev == p.src && link.target == p.dst) {
            if (r.local.infinite()) return nullptr;
            time = transfer_time(p.bytes, r.local);
            return &r;
        }
        if (k.relay_rate.infinite()) return nullptr;
        time = relay_time(link.kind, p.bytes);
        return &r;
    }
    // The analytical NIC's hop: like transmit, but the packet takes the first idle gap from
    // `earliest` on, on the link and on its source's relay, even before a reservation made
    // earlier for a later time (the calendars below). The usual hop, free from `earliest` on,
    // is booked inline; the search for a gap is reserve_search.
    [[gnu::always_inline]] inline Time reserve(EdgeId e, const Packet& p, Time earliest,
                                               Time& start);
    [[gnu::noinline]] Time reserve_search(EdgeId e, const Packet& p, Time earliest, Time& start,
                                          Relay* relay, Time relay_time, Time busy);

    // The busy intervals to come of each link and relay, for the analytical NIC (reserve),
    // which reserves a packet's whole route when it is injected: without them a reservation
    // could only start after the latest one made before it, so the packet that two ranks
    // exchanging at once send each other waited at its receiver's memory node for the one
    // the receiver itself sent, which crosses it later (a simultaneous exchange took twice
    // the one-way time). Sorted, disjoint, half open; intervals over by now are dropped when
    // the calendar is next read. Made at the first reservation (a network whose NICs are
    // all `packet` has none, and its hop-by-hop path does not read them); a reservation also
    // raises busy_until and free_at, so a packet sent hop by hop still starts after every
    // reservation, as before.
    struct Busy {
        Time from, to;
    };
    std::vector<std::uint32_t> link_calendar_;   // per edge: index into calendars_, or kNil
    std::vector<std::uint32_t> relay_calendar_;  // per vertex: index into calendars_, or kNil
    struct Calendar {
        std::vector<Busy> busy;
        std::size_t head = 0;  // busy[head] is the first interval not over by now
    };
    std::vector<Calendar> calendars_;
    // The calendar of link or relay `at` (made if new), its head moved to now; `busy_until`
    // is the resource's busy_until or free_at, which hop-by-hop packets keep.
    Calendar& calendar(std::vector<std::uint32_t>& index, std::uint32_t at, Time busy_until);
    void book(Calendar& cal, Time from, Time to);  // adds [from, to) (non-empty)
    // calendar() and book() for an interval that starts at or after the end of every one
    // booked (and of busy_until). The usual case: the calendar exists and all of it is over
    // by now (its last interval ends last; busy_until, which hop-by-hop packets keep, too),
    // so [from, to) replaces it. Otherwise calendar() and book() at the end, merged with an
    // interval that touches it (book_after_slow).
    [[gnu::always_inline]] void book_after(std::vector<std::uint32_t>& index, std::uint32_t at,
                                           Time busy_until, Time from, Time to) {
        if (const std::uint32_t i = index[at]; i != kNil) {
            Calendar& cal = calendars_[i];
            std::vector<Busy>& v = cal.busy;
            const Time now = engine_.now();
            if (!v.empty() && v.back().to <= now && busy_until <= now) [[likely]] {
                cal.head = 0;
                v.front() = Busy{from, to};
                v.erase(v.begin() + 1, v.end());
                return;
            }
        }
        book_after_slow(index, at, busy_until, from, to);
    }
    [[gnu::noinline]] void book_after_slow(std::vector<std::uint32_t>& index, std::uint32_t at,
                                           Time busy_until, Time from, Time to);
    // The index of the first interval from the head on that ends after t.
    static std::size_t first_after(const Calendar& cal, Time t);
    void record_activity(EdgeId e, Time start, Time end, std::uint64_t bytes);  // record_links
    // What every hop counts (transmit, reserve): the link's bytes, the hop, its activity
    // when recorded. Returns `end`.
    [[gnu::always_inline]] Time hop_done(Link& link, EdgeId e, std::uint64_t bytes, Time start,
                                         Time end) {
        link.bytes += bytes;
        ++stats_.packet_hops;
        if (activity_ != nullptr) [[unlikely]]
            record_activity(e, start, end, bytes);
        return end;
    }
    // A kArrive event's data: the packet, and the edge it takes next when its route is fixed
    // (kNoEdge: decided on arrival, or none: it has arrived), so prefetch() can name it.
    static std::uint64_t arrive_data(std::uint32_t pkt, EdgeId next) {
        return pkt | (static_cast<std::uint64_t>(next) << 32);
    }
    [[gnu::always_inline]] inline void arrive(std::uint32_t pkt, EdgeId next);
    void deliver(std::uint32_t pkt);

    Engine& engine_;
    const topo::Topology& topo_;
    topo::Router& router_;
    topo::RouteService routes_;
    topo::Route route_;  // scratch for stream_for
    NetworkClient& client_;
    ComponentId id_;

    // The NIC model of every node and of the network, resolved once (nics_ owns them).
    std::vector<std::shared_ptr<const topo::NicBehaviour>> nics_;
    std::vector<const topo::NicBehaviour*> node_nic_;
    const topo::NicBehaviour* default_nic_ = nullptr;
    std::vector<Link> links_;
    std::vector<LinkKind> kinds_;             // by Link::kind
    std::vector<KindTimes> kind_times_;       // by Link::kind: wire_time, relay_time
    std::vector<topo::ForwardRule> forward_;  // by forwarding id (LinkKind::forward)
    // When the target of a link of kind `k` may forward a packet that started on it at `start` and
    // whose tail arrives at `tail`. The two built-ins (fixed ids) are inlined: an indirect call per
    // packet hop cost 3-4 % of bench_bcast's CPU time; other models go through their rule.
    Time forward_at(const LinkKind& k, Time start, Time tail) const {
        if (k.forward == topo::kStoreAndForward) return tail;
        if (k.forward == topo::kCutThrough) return start + k.latency;
        return forward_[k.forward](start, k.latency, tail);
    }
    std::vector<Relay> relays_;
    std::vector<EdgeId> paths_;  // the streams' routes, back to back
    Rng rng_;
    topo::ValiantChooser valiant_;
    Pool<Packet> packets_;
    Pool<Message> messages_;
    std::vector<Stream> streams_;
    SlotMap stream_index_;  // (src << 32 | dst) -> stream: no division, no node per entry
    struct LastStream {     // the last destination a source vertex sent to, and its stream
        VertexId dst = topo::kNoVertex;
        std::uint32_t index = 0;
    };
    std::vector<LastStream> last_stream_;  // by source vertex; sized at the first send
    Pool<Queue> queues_;
    SlotMap queue_index_;  // (edge, stream) -> queue
    NetworkStats stats_;
};

}  // namespace clustersim::net
