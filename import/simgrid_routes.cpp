// SimGrid routes drawn as cables: each route's links become switches "l_<id>" joined along
// the route, with the route's latency and bottleneck kept; a Full zone's routes given as
// they are; each drawn route compared with clustersim's fewest-hop path.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <pugixml.hpp>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "import/import.hpp"
#include "import/simgrid_importer.hpp"
#include "simulator/error.hpp"
#include "simulator/time.hpp"
#include "simulator/units.hpp"
#include "topologies/model_writer.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/routing.hpp"
#include "traces/xml_file.hpp"

namespace clustersim::traces::simgrid_import {

// ---- routes ----------------------------------------------------------------------------------

void SimgridImporter::add_cable(const std::string& a, const std::string& b, Time latency,
                                std::uint64_t bw) {
    if (a == b) return;
    const auto key = a < b ? std::pair(a, b) : std::pair(b, a);
    if (!cable_keys_.insert(key).second) return;
    cables_.push_back(Cable{a, b, latency, bw});
}

const std::string& SimgridImporter::link_vertex(Link& l) {
    if (l.vertex.empty()) {
        l.vertex = unique("l_" + sanitize(l.id));
        switches_.emplace_back(l.vertex,
                               l.policy == Policy::Shared || l.policy == Policy::Wifi ? l.bw : 0);
    }
    l.used = true;
    return l.vertex;
}

std::string SimgridImporter::resolve(const std::string& name, std::string& why) {
    const auto it = netpoints_.find(name);
    if (it == netpoints_.end()) {
        why = fmt::format(
            "no host, router or gateway '{}' is declared (SimGrid refuses the "
            "platform)",
            name);
        return {};
    }
    Netpoint& p = it->second;
    if (!p.vertex.empty()) return p.vertex;
    if (p.cluster >= 0) {
        // A flat cluster with backbone: its router hangs off the backbone (the switch).
        FlatCluster& fc = flat_[static_cast<std::size_t>(p.cluster)];
        if (fc.router.empty()) {
            fc.router = unique(fc.sw + "_router");
            switches_.emplace_back(fc.router, 0);
            add_cable(fc.sw, fc.router, fc.half_bb, fc.bb_bw);
        }
        return fc.router;
    }
    why = p.why;
    return {};
}

void SimgridImporter::connect_routes() {
    for (const Route& r : routes_) {
        const std::string what =
            r.zone ? fmt::format("route from zone '{}' to zone '{}'", r.src, r.dst)
                   : fmt::format("route from '{}' to '{}'", r.src, r.dst);
        // Unknown links first: the route cannot be drawn without them.
        const std::vector<Link*> links = route_links(r, what);
        if (!r.zone && r.src == r.dst)
            self_route(r, what, links);
        else
            draw_route(r, what, links);
    }
    report_coverage();
}

// The route's links (an unknown link is an InputError at the route's line).
std::vector<Link*> SimgridImporter::route_links(const Route& r, const std::string& what) {
    std::vector<Link*> links;
    for (const auto& [id, line] : r.links) {
        auto it = link_index_.find(id);
        if (it == link_index_.end()) {
            // SimGrid names the halves of split-duplex links <id>_UP / <id>_DOWN.
            for (const char* half : {"_UP", "_DOWN"}) {
                if (id.ends_with(half)) {
                    it = link_index_.find(id.substr(0, id.size() - std::string_view(half).size()));
                    break;
                }
            }
        }
        if (it == link_index_.end())
            throw InputError(path_, line,
                             fmt::format("{}: no link '{}' is declared (SimGrid refuses the "
                                         "platform)",
                                         what, id));
        links.push_back(&links_[static_cast<std::size_t>(it->second)]);
    }
    return links;
}

// A host's route to itself: its loopback.
void SimgridImporter::self_route(const Route& r, const std::string& what,
                                 const std::vector<Link*>& links) {
    const auto h = host_index_.find(r.src);
    if (h == host_index_.end()) {
        unmapped(r.line, what, "only a host's route to itself is meaningful");
        return;
    }
    Loopback lb;
    lb.bw = links.empty() ? default_loopback_.bw : UINT64_MAX;
    for (Link* l : links) {
        lb.latency = lb.latency + l->latency;
        lb.bw = std::min(lb.bw, l->bw);
        l->self_route = true;
    }
    hosts_[static_cast<std::size_t>(h->second)].loopback = lb;
}

// A route between two netpoints drawn as cables through its links' vertices.
void SimgridImporter::draw_route(const Route& r, const std::string& what,
                                 const std::vector<Link*>& links) {
    std::string why;
    const std::string from = resolve(r.zone ? r.gw_src : r.src, why);
    const std::string to = from.empty() ? std::string() : resolve(r.zone ? r.gw_dst : r.dst, why);
    if (from.empty() || to.empty()) {
        if (why.ends_with("(SimGrid refuses the platform)"))
            throw InputError(path_, r.line, fmt::format("{}: {}", what, why));
        unmapped(r.line, what, why);
        return;
    }
    // A route between two hosts of a Full zone is given to the model as it is (one
    // direction, or both when symmetrical): the route taken, as in SimGrid.
    FullZone* full = nullptr;
    const auto hs = host_index_.find(r.src), hd = host_index_.find(r.dst);
    if (!r.zone && r.full_zone >= 0 && hs != host_index_.end() && hd != host_index_.end() &&
        hosts_[static_cast<std::size_t>(hs->second)].full_zone == r.full_zone &&
        hosts_[static_cast<std::size_t>(hd->second)].full_zone == r.full_zone)
        full = &full_zones_[static_cast<std::size_t>(r.full_zone)];
    if (!r.symmetrical && full == nullptr)
        unmapped(r.line, fmt::format("asymmetry of the {}", what),
                 "cables carry both directions: the reverse direction gets the same path");
    // Chain: from, links..., to. Each element: vertex, half latency, bandwidth (0: none).
    struct Hop {
        std::string vertex;
        Time half;
        std::uint64_t bw = 0;
    };
    std::vector<Hop> chain;
    chain.push_back(Hop{from, Time(), 0});
    for (Link* l : links) {
        if (!chain.empty() && chain.back().vertex == l->vertex && !l->vertex.empty()) continue;
        chain.push_back(Hop{link_vertex(*l), Time::ps(l->latency.ps() / 2), l->bw});
    }
    chain.push_back(Hop{to, Time(), 0});
    if (full != nullptr) {
        FullZone::Given g{hs->second, hd->second, {}};
        for (std::size_t i = 1; i + 1 < chain.size(); ++i) g.via.push_back(chain[i].vertex);
        if (r.symmetrical) {
            FullZone::Given back{hd->second, hs->second, {g.via.rbegin(), g.via.rend()}};
            full->routes.push_back(std::move(back));
        }
        full->routes.push_back(std::move(g));
    }
    Drawn d{r.line, what, from, to, Time(), kInternalBw};
    for (const Hop& h : chain) {
        d.latency = d.latency + h.half + h.half;
        if (h.bw != 0) d.bottleneck = std::min(d.bottleneck, h.bw);
    }
    drawn_.push_back(std::move(d));
    for (std::size_t i = 1; i < chain.size(); ++i) {
        const Hop& a = chain[i - 1];
        const Hop& b = chain[i];
        std::uint64_t bw = kInternalBw;
        if (a.bw != 0) bw = std::min(bw, a.bw);
        if (b.bw != 0) bw = std::min(bw, b.bw);
        add_cable(a.vertex, b.vertex, a.half + b.half, bw);
    }
}

// A Full zone whose routes leave pairs of its hosts unrouted (its coverage, one line), and
// what the drawing left out of each link.
void SimgridImporter::report_coverage() {
    for (const FullZone& z : full_zones_) {
        const std::size_t n = z.hosts.size(), pairs = n < 2 ? 0 : n * (n - 1);
        if (z.routes.size() < pairs)
            unmapped_.emplace_back(
                z.line,
                fmt::format("{}:{}: zone '{}' (Full) routes {} of the {} ordered pairs of "
                            "its {} hosts; the other {} {} no route, as in SimGrid: a "
                            "run that sends between two of them stops",
                            path_, z.line, z.id, z.routes.size(), pairs, n, pairs - z.routes.size(),
                            pairs - z.routes.size() == 1 ? "has" : "have"));
    }
    for (const Link& l : links_) {
        if (!l.used && !l.self_route)
            unmapped(l.line, fmt::format("link '{}'", l.id), "no route uses it");
        else if (l.used && l.policy == Policy::SplitDuplex && !l.host_link)
            unmapped(l.line, fmt::format("sharing policy SPLITDUPLEX of link '{}'", l.id),
                     "approximated by its cables' one-way bandwidths (no relay limit)");
        else if (l.used && l.policy == Policy::Fatpipe)
            unmapped(l.line, fmt::format("sharing policy FATPIPE of link '{}'", l.id),
                     "flows crossing one of its cables share that cable's bandwidth");
        if (l.self_route && l.policy != Policy::Fatpipe)
            unmapped(l.line, fmt::format("sharing of loopback link '{}' between hosts", l.id),
                     "each host gets its own copy");
    }
}

// Compares each drawn route with clustersim's fewest-hop path between its ends: links that
// other routes place next to each other can make a shorter path than SimGrid's route.
void SimgridImporter::check_routes(const std::string& xml) {
    if (drawn_.empty()) return;
    const topo::Topology t = topo::parse_model(xml, path_);
    const topo::Router router(t);
    for (const Drawn& d : drawn_) {
        const topo::VertexId a = t.find_vertex(d.from), b = t.find_vertex(d.to);
        if (a == topo::kNoVertex || b == topo::kNoVertex || a == b) continue;
        Time latency;
        std::uint64_t bottleneck = kInternalBw;
        for (const topo::EdgeId e : router.path(a, b)) {
            latency = latency + t.edge(e).latency;
            bottleneck = std::min(bottleneck, t.edge(e).bandwidth.bytes_per_s);
        }
        if (latency == d.latency && bottleneck == d.bottleneck) continue;
        unmapped(d.line, fmt::format("exact path of the {}", d.what),
                 fmt::format("clustersim's fewest-hop path has {} of latency and a {} "
                             "bottleneck, SimGrid's route {} and {} (other routes put its "
                             "links next to each other)",
                             format_time(latency), format_bandwidth(Bandwidth{bottleneck}),
                             format_time(d.latency), format_bandwidth(Bandwidth{d.bottleneck})));
    }
}

}  // namespace clustersim::traces::simgrid_import
