// The one place a route between two endpoints is built: its path, the resource each hop
// crosses (link, relay, a memory node's local rate), its latency and its bottleneck. The
// packet, cut-through, fluid and analytic network models all take their routes from here, so
// a routing change reaches every model and "the simple model is a lower bound of the graph
// models" holds by construction (same path, same latency, same narrowest rate).
//
// The service builds a route on request and keeps nothing per pair: each model caches what it
// derives from a route (the packet model its stream and flat path, the fluid model its
// resource list, the analytic model a latency/bandwidth pair), which is smaller than the
// route itself. An alltoall over 4,096 ranks has 16.8 M pairs; a second cache of edge lists
// would hold about a gigabyte.
#pragma once

#include <cstdint>
#include <vector>

#include "simulator/time.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace clustersim::topo {

struct Route {
    VertexId src = kNoVertex, dst = kNoVertex;
    // The first-choice path. Two processes on one socket (src == dst): out to the socket's
    // first neighbour (its memory node) and back.
    std::vector<EdgeId> edges;
    // True for a two-edge route between two neighbours of one vertex: a memory node then moves
    // the data at its local (neighbour-to-neighbour) rate instead of its relay rate.
    bool neighbours = false;
    Time latency;          // sum of the links' latencies (saturating)
    Bandwidth bottleneck;  // narrowest link or relay rate on the route; infinite if none is finite
};

// The vertex a route crosses before edges[i] (i > 0) and the rate it forwards this route at.
struct RouteRelay {
    VertexId vertex = kNoVertex;
    Bandwidth rate;      // infinite: the vertex does not limit the route here
    bool local = false;  // `rate` is a memory node's local rate (Route::neighbours)
};

class RouteService {
  public:
    RouteService(const Topology& topology, const Router& router);

    // The route from `src` to `dst`, minimal, or through the Valiant router `via` when it is
    // not kNoVertex. Throws std::runtime_error "no route from 'a' to 'b'" (or "socket 'a' has
    // no link") when the graph has none, and an InputError naming the two nodes and the
    // table's line when a complete <routes> table leaves the pair unrouted (SimGrid's Full
    // zone). `out` is overwritten (its storage reused).
    void route(VertexId src, VertexId dst, Route& out, VertexId via = kNoVertex) const;
    Route route(VertexId src, VertexId dst, VertexId via = kNoVertex) const {
        Route r;
        route(src, dst, r, via);
        return r;
    }
    // The same route without its bottleneck (left infinite): path, neighbours and latency
    // only, for a model that takes the rates from its own tables (the fluid model's
    // resources): the bottleneck reads every relay vertex's properties, a cache miss per hop
    // on a large graph.
    void route_path(VertexId src, VertexId dst, Route& out, VertexId via = kNoVertex) const;
    // The relay before edge i of `r` (i >= 1).
    RouteRelay relay(const Route& r, std::size_t i) const;

    const Topology& topology() const { return topo_; }

  private:
    void append(VertexId a, VertexId b, Route& out) const;

    const Topology& topo_;
    const Router& router_;
};

}  // namespace clustersim::topo
