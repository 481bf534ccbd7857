// The fluid (flow-level) network model.
//
// Each message is one flow along its route. Links, and the relays of store-and-forward
// vertices with a finite relay bandwidth (a memory node's local rate for neighbour-to-
// neighbour exchange), are resources; the active flows share them max-min fairly, each
// bounded by its bottleneck (maxmin.hpp). When a flow starts or ends, only the connected
// component of flows and resources it touches is re-solved: flows elsewhere keep their
// rates and their completion events. A message's bytes leave the sender at the flow's
// rate (the send is "injected" when the last byte has left); it is delivered one route
// latency (the sum of its links' latencies) later. Zero-byte messages take the latency only.
//
// Rates are doubles (bytes/s); times stay integer picoseconds: a completion is scheduled
// at now + ceil(remaining / rate).
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "models/maxmin.hpp"
#include "models/slot_map.hpp"
#include "models/transport.hpp"
#include "simulator/engine.hpp"
#include "simulator/pool.hpp"
#include "simulator/rng.hpp"
#include "topologies/route_service.hpp"
#include "topologies/routing.hpp"

namespace clustersim::net {

class FluidNetwork final : public Component, public Transport {
  public:
    FluidNetwork(Engine& engine, const topo::Topology& topology, topo::Router& router,
                 NetworkClient& client, std::uint64_t seed = 1);

    void send(VertexId src, VertexId dst, std::uint64_t bytes, std::uint64_t cookie,
              bool notify_injected) override;
    const NetworkStats& stats() const override { return stats_; }
    // UGAL: flows that chose between a minimal and a Valiant route, and those that took
    // the Valiant one.
    std::uint64_t adaptive_decisions() const { return ugal_decisions_; }
    std::uint64_t adaptive_nonminimal() const { return ugal_nonminimal_; }
    // Bytes carried per edge: each route's delivered bytes, spread over its edges here (a
    // finished flow adds to its route only, not to each of its edges).
    std::vector<std::uint64_t> edge_bytes() const override;
    // Current rate of every active flow, in start order (for tests).
    std::vector<double> active_rates() const;

    void handle(Engine& engine, const Event& event) override;
    std::string name() const override { return "fluid network"; }

  private:
    enum Kind : std::uint32_t { kNextDone = 0, kDeliver = 1, kInjected = 2, kStart = 3 };

    // Completion times of the active flows: when a flow's rate changes it gets a new entry
    // and a new version, superseded entries are skipped when they reach the top, and the
    // heap is compacted when they outnumber the live ones. The engine holds one event, for
    // the earliest completion. (An engine event per flow per rate change would pile up
    // superseded events: O(p^2) memory when p flows share one link.)
    struct Completion {
        // A constructor, not an aggregate: emplace_back builds it in place from its fields
        // (clang 14 has no parenthesised aggregate initialisation).
        Completion(Time at_, std::uint64_t order_, std::uint32_t flow_, std::uint32_t version_)
            : at(at_), order(order_), flow(flow_), version(version_) {}
        Time at;
        std::uint64_t order;  // start order breaks ties deterministically
        std::uint32_t flow;
        std::uint32_t version;
    };
    struct Later {
        bool operator()(const Completion& a, const Completion& b) const {
            return a.at != b.at ? a.at > b.at : a.order > b.order;
        }
    };
    // An entry is its flow's current one: the same flow (a finished flow's slot is reused by
    // the next, whose version counter starts again, so slot and version alone could take a
    // dead flow's superseded entry for the new flow's) at its current version.
    bool current(const Completion& c) const {
        return flows_[c.flow].active && flows_[c.flow].version == c.version &&
               flows_[c.flow].order == c.order;
    }
    void drop_stale();  // pops superseded entries off the top; compacts when they dominate
    static constexpr std::uint32_t kNil = UINT32_MAX;

    // A route's edges and resources are slices of route_edges_ and route_resources_ (one
    // allocation for all routes: a run that meets a million source-destination pairs would
    // otherwise make and free two small vectors for each).
    struct Route {
        std::size_t first_edge = 0, first_resource = 0;
        std::uint32_t edge_count = 0, resource_count = 0;
        Time latency;
        // The smallest capacity of its resources (they never change; 0: none finite), -1
        // until the route's first message with bytes computes it (send()).
        double narrowest = -1;
        std::uint64_t bytes = 0;  // delivered by its finished flows (edge_bytes())
        bool distinct = true;     // no resource twice (a Valiant detour may cross one twice)
    };
    struct alignas(64) Flow {  // one cache line
        std::uint64_t cookie;
        std::uint64_t bytes;
        double remaining;  // bytes
        double rate;       // bytes/s
        Time updated;
        std::uint32_t route;
        std::uint32_t version;  // of its current entry in run_ or heap_
        std::uint64_t order;    // start order, for deterministic tie-breaks
        bool notify_injected;
        bool active;
    };
    // A flow on a resource: the flow and the index of the resource in the flow's route
    // (so a finishing flow leaves each list in O(1): slots_ says where it is).
    struct Member {
        std::uint32_t flow;
        std::uint32_t hop;
    };
    // Half a cache line (two per line): what a flow's start and end read and write of each
    // resource it crosses (capacity, load, its slot in the member list) when it is the only
    // flow there. The flows on a resource form a list with swap-removal: the first member is
    // kept inline (most resources carry one flow at a time), the others in a spill vector
    // (spill_[more], given to the resource when it first carries two flows, kept after).
    // resolve()'s mark is in marks_, outside the hot line.
    // `load` (the sum of its flows' rates) is kept only while two or more flows use it: a
    // flow alone on a resource has all of it (its residual is the capacity) and couples
    // nobody, so a flow's start, re-rate and end write only the resources it shares (a
    // 500,000-flow component through one switch: one shared resource per flow, not seven).
    // When a second flow arrives, the first's rate becomes the load (send()).
    struct alignas(32) Resource {
        double capacity = 0;
        double load = 0;  // sum of the rates of its flows, while count >= 2
        Member first{};
        std::uint32_t count = 0;    // active flows using it
        std::uint32_t more = kNil;  // its spill vector, kNil before it first has two flows
        bool tight() const { return load >= capacity * (1 - 1e-9); }  // count >= 2 only
    };
    static_assert(sizeof(Resource) == 32, "two resources per cache line");
    std::vector<std::vector<Member>> spill_;
    Member& member(Resource& res, std::size_t i) {
        return i == 0 ? res.first : spill_[res.more][i - 1];
    }
    const Member& member(const Resource& res, std::size_t i) const {
        return i == 0 ? res.first : spill_[res.more][i - 1];
    }
    void push_member(Resource& res, const Member& m) {
        if (res.count == 0) {
            res.first = m;
        } else {
            if (res.more == kNil) {
                res.more = static_cast<std::uint32_t>(spill_.size());
                spill_.emplace_back();
            }
            spill_[res.more].push_back(m);
        }
        ++res.count;
    }
    void pop_member(Resource& res) {
        if (res.count > 1) spill_[res.more].pop_back();
        --res.count;
    }

    std::uint32_t route_for(VertexId src, VertexId dst) {
        return route_for(src, dst, valiant_.via(src, dst, rng_));
    }
    // via: the Valiant router, or kNoVertex for the minimal route.
    std::uint32_t route_for(VertexId src, VertexId dst, VertexId via);
    // UGAL (Routing::UgalL, UgalG), per flow at its start: the minimal route or the Valiant
    // one through a router drawn as `valiant` draws it, compared as the packet models
    // compare them (Network::ugal_decide) with a link's queue read as the number of flows
    // on it (models/README.md, "Adaptive routing").
    std::uint32_t ugal_route(VertexId src, VertexId dst);
    struct UgalLoad {
        double q = 0;            // flows on the links compared
        std::uint32_t hops = 0;  // router-to-router hops
    };
    UgalLoad ugal_load(const Route& r) const;
    bool ugal_ = false, ugal_global_ = false;
    static constexpr double kUgalFlowThreshold = 2.0;  // as the packet models' kUgalThreshold
    std::uint64_t ugal_decisions_ = 0, ugal_nonminimal_ = 0;
    std::vector<std::uint8_t> is_router_;  // per vertex, under UGAL
    // A new route's edges and resources appended to route_edges_ and route_resources_ from
    // the two endpoints' tree records (tree_): false, nothing appended, where the route is
    // not made of tree halves and a core path (no tree records, src == dst, a hop without an
    // edge, a two-edge route, which may take a memory node's local rate) and route_for asks
    // the route service instead. Same edges, resources and latency as the route service's.
    bool tree_route(VertexId src, VertexId dst, Time& latency);
    // Re-solves the rates the change at these resources can affect: the flows reached
    // through saturated resources (a resource with slack constrains none of its flows).
    // `seeds`: resources whose flows must be re-solved; `firsts`: flows that must be (new
    // ones). `floor`: flows slower than it keep their rates (max-min fixes flows in rising
    // order of rate, so flows that end or start change none slower than the ended flows'
    // rates or the new flows' smallest fair share: models/README.md).
    void resolve(const std::vector<std::uint32_t>& seeds, const std::vector<std::uint32_t>& firsts,
                 double floor = 0);
    // Whether a flow on resource r outside this solve's component, at or above `floor`,
    // could change with it.
    bool outside_flow_above_floor(std::uint32_t r, double floor) const;
    // A new flow that no saturated resource couples to others, solved without resolve()'s
    // tables; false (nothing done) when its rate would saturate a shared resource. `left`:
    // per hop, the capacity the resource leaves besides the flow's own rate; `rate`: their
    // minimum; shared_hops_: the hops where other flows are (send() computes all three
    // while it registers the flow).
    bool start_alone(std::uint32_t flow, const double* left, double rate);
    std::vector<double> left_;                // send()'s per-hop residuals
    std::vector<std::uint32_t> shared_hops_;  // ... and the hops it shares with other flows
    double lone_rate(const Flow& fl) const;
    // Takes a finished flow off its resources; adds the saturated ones it leaves to `seeds`.
    void remove(std::uint32_t flow, std::vector<std::uint32_t>& seeds);
    void arm();  // keeps one engine event at the earliest completion

    Engine& engine_;
    const topo::Topology& topo_;
    topo::RouteService routes_service_;
    topo::Route route_scratch_;  // for route_for
    NetworkClient& client_;
    ComponentId id_;
    Rng rng_;

    // Links, relays (a vertex's finite relay rate) and local rates (a memory node's), laid
    // out by locality rather than by kind (issue 25): each vertex in id order is followed by
    // its relay and local rate and by the links it is the home of, the endpoint with the
    // fewer out-edges (a NIC, not the switch it hangs off), so the resources of one node of
    // a star or a fat tree share a few cache lines. order_[r] is the resource's index in
    // the old layout (links by edge id, then relays and local rates by vertex), which
    // resolve() sorts a component's resources by, so the solver sees them in the same order.
    std::vector<Resource> resources_;
    std::vector<std::uint32_t> edge_resource_;   // per edge id
    std::vector<std::uint32_t> order_;           // per resource
    std::vector<std::uint32_t> marks_;           // per resource: resolve()'s epoch mark
    std::vector<std::uint32_t> relay_resource_;  // per vertex, kNil if unlimited
    std::vector<std::uint32_t> local_resource_;  // per memory node with a local rate, else kNil
    std::vector<Route> routes_;
    std::vector<EdgeId> route_edges_;
    std::vector<std::uint32_t> route_resources_;
    std::span<const std::uint32_t> resources_of(const Route& r) const {
        return {route_resources_.data() + r.first_resource, r.resource_count};
    }
    std::span<const EdgeId> edges_of(const Route& r) const {
        return {route_edges_.data() + r.first_edge, r.edge_count};
    }
    // Where flow f's hop h sits in its resource's list: slots_[f * stride_ + h]. The stride
    // is the longest route's resource count; it only grows (the table is then re-laid).
    std::vector<std::uint32_t> slots_;
    std::size_t stride_ = 0;
    void widen(std::size_t hops);  // stride_ >= hops
    // Minimal routes by (src << 32 | dst): a flat map, no allocation per route (a binomial
    // bcast meets a new pair with every message); Valiant routes by (src, dst, via).
    SlotMap minimal_routes_;
    std::unordered_map<std::uint64_t, std::uint32_t> route_index_;
    struct LastRoute {  // the last minimal route a source vertex sent on
        VertexId dst = topo::kNoVertex;
        std::uint32_t index = 0;
    };
    std::vector<LastRoute> last_route_;  // by source vertex; sized at the first send
    // Per vertex, what a route through it reads of the router, the topology and the
    // resource tables, in one record (issue 25): a binomial bcast meets a new pair with every
    // message, and building its route from the router's, the edges' and the resources'
    // tables cost about 25 cache misses on the receiver's node at 65,536 ranks; the records
    // of a node's vertices are adjacent. Built with the network (a pass in vertex order),
    // empty when the router's paths are not tree halves (routed fabrics); a Valiant detour's
    // route is the route service's.
    struct TreeStep {
        VertexId parent = topo::kNoVertex;                // kNoVertex: a core vertex (its anchor)
        std::uint32_t depth = 0;                          // edges below its anchor
        EdgeId up = topo::kNoEdge, down = topo::kNoEdge;  // to and from its parent
        std::uint32_t up_resource = kNil, down_resource = kNil;  // those edges' resources
        std::uint32_t relay = kNil;                              // relay_resource_ of the vertex
        Time up_latency, down_latency;
    };
    std::vector<TreeStep> tree_;
    const topo::Router& router_;
    std::vector<VertexId> tree_up_, tree_down_;  // tree_route()'s scratch
    std::vector<EdgeId> core_scratch_;
    topo::ValiantChooser valiant_;
    Pool<Flow> flows_;
    std::uint64_t next_order_ = 0;
    // The pending completions in (time, start order): a run kept in that order, into which
    // a completion goes when it is not earlier than the run's last (flows started one after
    // another with one duration: O(1) each), and a binary min-heap for the others; the
    // earliest is the earlier of the run's head and the heap's top. Which of two entries
    // with the same time and order (only a flow's superseded entry and its current one)
    // comes first changes nothing: the superseded one is skipped either way.
    std::vector<Completion> run_;  // from run_head_ on, in order
    std::size_t run_head_ = 0;
    std::vector<Completion> heap_;  // std::push_heap with Later
    void push_completion(Time at, std::uint64_t order, std::uint32_t flow, std::uint32_t version);
    bool top_in_run() const;
    const Completion* first_completion() const;  // nullptr when none
    void pop_completion();
    Time armed_at_ = Time::max();  // time of the engine event for the earliest completion
    NetworkStats stats_;

    // Scratch for resolve(): the component, with local indices for the solver.
    std::uint32_t epoch_ = 0;
    std::vector<std::uint32_t> flow_mark_;
    // A flow's place in the component (comp_flows_ before sorting), and per place the slice
    // of picked_ holding the resources the solve needs of it (visit()).
    std::vector<std::uint32_t> flow_pos_, picked_, picked_first_;
    std::vector<std::uint8_t> has_private_;  // per place: its slice ends with its private pick
    void visit(std::uint32_t flow);          // adds a flow to the component (resolve())
    std::vector<std::uint32_t> comp_resources_, comp_flows_, stack_;
    std::vector<double> comp_capacity_, comp_rates_, comp_member_rate_;
    std::vector<std::uint32_t> comp_order_;  // per local resource: order_ (the solver's tie-break)
    Incidence incidence_;                    // the component's flows x resources, in local indices
    // Radix sort scratch (resolve sorts the component's flows by start order and its
    // resources by the old layout's order: unique keys, so the order is the one std::sort
    // gives, in linear time; a 131,072-flow component has about 800,000 resource entries).
    std::vector<std::pair<std::uint64_t, std::uint32_t>> sort_keys_, sort_tmp_;
    template <class Key>
    void sort_by_unique_key(std::vector<std::uint32_t>& items, Key key);
    std::vector<std::uint32_t> local_of_resource_;  // resource -> index in comp_resources_
    std::vector<std::uint32_t> local_epoch_;        // ... valid when equal to epoch_
    std::vector<std::uint32_t> expand_;             // resources the component grows through
    std::vector<std::uint32_t> seeds_scratch_, first_scratch_;
    // Batching at one instant: new flows that meet a saturated resource wait for one kStart
    // event at the same time and are solved together (p flows into one link: one solve, not
    // p solves of up to p flows); the flows due at one instant all finish before the one
    // solve of what they leave.
    std::vector<std::uint32_t> starting_;
    bool start_armed_ = false;
    std::vector<std::uint32_t> due_;
    MaxMinSolver solver_;
};

}  // namespace clustersim::net
