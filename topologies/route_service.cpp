#include "topologies/route_service.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "simulator/error.hpp"

namespace clustersim::topo {

RouteService::RouteService(const Topology& topology, const Router& router)
    : topo_(topology), router_(router) {}

void RouteService::append(VertexId a, VertexId b, Route& out) const {
    if (a == b) return;
    if (router_.append_path(a, b, out.edges)) return;
    // A pair a complete <routes> table leaves unrouted (SimGrid's Full zone): the platform's
    // error, as SimGrid's, at the first message between them.
    if (const std::int32_t t = router_.unrouted_table(a, b); t >= 0) {
        const auto& node = [&](VertexId v) -> const std::string& {
            return topo_.nodes[static_cast<std::size_t>(topo_.vertex(v).node)].name;
        };
        throw InputError(topo_.source, topo_.route_tables[static_cast<std::size_t>(t)].line,
                         fmt::format("no route from node '{}' to node '{}': this <routes> table "
                                     "(a SimGrid Full zone's) gives none for the pair, which "
                                     "the run needs; SimGrid stops there too",
                                     node(a), node(b)));
    }
    throw std::runtime_error(
        fmt::format("no route from '{}' to '{}'", topo_.vertex(a).name, topo_.vertex(b).name));
}

void RouteService::route_path(VertexId src, VertexId dst, Route& out, VertexId via) const {
    out.src = src;
    out.dst = dst;
    out.edges.clear();
    if (src == dst) {  // two processes of one socket: out to its first neighbour and back
        const auto [lo, hi] = topo_.out_edge_range(src);
        if (lo == hi)
            throw std::runtime_error(
                fmt::format("socket '{}' has no link", topo_.vertex(src).name));
        out.edges.push_back(lo);
        append(topo_.target_of(lo), dst, out);
    } else if (via != kNoVertex) {
        append(src, via, out);
        append(via, dst, out);
    } else {
        append(src, dst, out);
    }
    out.neighbours = out.edges.size() == 2 && topo_.source_of(out.edges[0]) == src &&
                     topo_.target_of(out.edges[1]) == dst;
    out.latency = Time::zero();
    for (const EdgeId e : out.edges) out.latency += topo_.edge(e).latency;
    out.bottleneck = Bandwidth{};
}

void RouteService::route(VertexId src, VertexId dst, Route& out, VertexId via) const {
    route_path(src, dst, out, via);
    std::uint64_t narrowest = 0;  // bytes/s, 0 = none finite yet
    auto narrow = [&](Bandwidth b) {
        if (!b.infinite() && (narrowest == 0 || b.bytes_per_s < narrowest))
            narrowest = b.bytes_per_s;
    };
    for (std::size_t i = 0; i < out.edges.size(); ++i) {
        narrow(topo_.edge(out.edges[i]).bandwidth);
        if (i > 0) narrow(relay(out, i).rate);
    }
    out.bottleneck = Bandwidth{narrowest};
}

RouteRelay RouteService::relay(const Route& r, std::size_t i) const {
    const VertexId v = topo_.source_of(r.edges[i]);
    const VertexProps& p = topo_.vertex(v);
    if (r.neighbours && p.kind == VertexKind::MemoryNode && !p.local.infinite())
        return RouteRelay{v, p.local, true};
    return RouteRelay{v, p.relay, false};
}

}  // namespace clustersim::topo
