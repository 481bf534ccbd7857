// The platform walked element by element: hosts, links, routers, <config>, routes.
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

// ---- elements --------------------------------------------------------------------------------

void SimgridImporter::walk(pugi::xml_node parent) {
    for (pugi::xml_node c = parent.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element) continue;
        const std::string_view el = c.name();
        if (el == "zone" || el == "AS")
            zone(c);
        else if (el == "host")
            host(c);
        else if (el == "link")
            link(c);
        else if (el == "router")
            router(c);
        else if (el == "cluster")
            cluster(c);
        else if (el == "config")
            config(c);
        else if (el == "route")
            route(c, false);
        else if (el == "zoneRoute" || el == "ASroute")
            route(c, true);
        else if (el == "prop")
            unmapped(c, fmt::format("property '{}'", c.attribute("id").value()),
                     "properties have no meaning in clustersim");
        else if (el == "trace" || el == "trace_connect" || el == "profile")
            fail(c, fmt::format("<{}>: time-varying rates and availability (SimGrid profiles) "
                                "have no equivalent in clustersim, whose engine keeps every "
                                "rate constant; the platform is not imported",
                                el));
        else if (el == "peer")
            peer(c);
        else if (el == "cabinet")
            cabinet(c);
        else if (el == "backbone")
            backbone(c);
        else if (el == "host_link")
            host_link(c);
        else if (el == "bypassRoute" || el == "bypassZoneRoute" || el == "bypassASroute")
            unmapped(c, fmt::format("<{}>", el),
                     "clustersim routes by fewest hops; explicit route overrides do not exist");
        else if (el == "actor" || el == "process")
            unmapped(c, fmt::format("<{}>", el),
                     "deployment (which program runs where) is not part of a cluster model");
        else
            unmapped(c, fmt::format("<{}>", el), "clustersim has no equivalent");
    }
}

void SimgridImporter::host(pugi::xml_node n) {
    Host h;
    h.id = required(n, "id");
    h.line = line_of(n);
    const std::string what = fmt::format("host '{}'", h.id);
    refuse_profiles(n, what);
    extra_attributes(n, what, {"id", "speed", "power", "core", "coordinates", "pstate"});
    // SimGrid starts a host in its `pstate` (sg_platf_new_host_seal): that state's speed.
    std::size_t pstate = 0;
    if (const pugi::xml_attribute a = n.attribute("pstate")) {
        const std::string_view v = a.value();
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), pstate);
        if (v.empty() || ec != std::errc() || end != v.data() + v.size())
            fail(n, fmt::format("{} attribute 'pstate': '{}' is not a power state number (0, "
                                "1, ...)",
                                what, v));
    }
    h.speed = speed(n, "speed", what, pstate);
    h.cores = cores(n);
    if (n.attribute("coordinates") && current_cluster_zone_ >= 0 &&
        cluster_zones_[static_cast<std::size_t>(current_cluster_zone_)].vivaldi)
        h.coords = coordinates(n, "coordinates");
    if (host_index_.count(h.id) != 0 || netpoints_.count(h.id) != 0)
        fail(n, fmt::format("host '{}' is declared twice", h.id));
    h.name = unique(sanitize(h.id));
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element) continue;
        const std::string_view el = c.name();
        if (el == "prop") continue;
        if (el == "disk")
            unmapped(c, fmt::format("disk '{}' of host '{}'", c.attribute("id").value(), h.id),
                     "clustersim models disks only as <io-server>s of a parallel file system, "
                     "not as node-local storage");
        else
            unmapped(c, fmt::format("<{}> of host '{}'", el, h.id), "clustersim has no equivalent");
    }
    props(n, what);
    add_host(std::move(h), n);
}

void SimgridImporter::add_host(Host h, pugi::xml_node n) {
    if (host_index_.count(h.id) != 0 || netpoints_.count(h.id) != 0)
        fail(n, fmt::format("host '{}' is declared twice", h.id));
    netpoints_[h.id] = Netpoint{h.name + ".nic", -1, {}};
    const int index = static_cast<int>(hosts_.size());
    host_index_[h.id] = index;
    if (current_cluster_zone_ >= 0) {
        h.zone = current_cluster_zone_;
        cluster_zones_[static_cast<std::size_t>(current_cluster_zone_)].hosts.push_back(index);
    } else if (current_full_zone_ >= 0) {
        h.full_zone = current_full_zone_;
        full_zones_[static_cast<std::size_t>(current_full_zone_)].hosts.push_back(index);
    }
    items_.push_back(Item{index, {}});
    hosts_.push_back(std::move(h));
}

std::array<double, 3> SimgridImporter::coordinates(pugi::xml_node n, const char* attr) {
    const std::string text = required(n, attr);
    std::istringstream in(text);
    std::array<double, 3> c{};
    std::string rest;
    if (!(in >> c[0] >> c[1] >> c[2]) || (in >> rest) || !std::isfinite(c[0]) ||
        !std::isfinite(c[1]) || !std::isfinite(c[2]))
        fail(n, fmt::format("<{}> attribute '{}': '{}' is not three coordinates 'x y height' "
                            "(Vivaldi, in milliseconds)",
                            n.name(), attr, text));
    return c;
}

void SimgridImporter::link(pugi::xml_node n) {
    Link l;
    l.id = required(n, "id");
    l.line = line_of(n);
    const std::string what = fmt::format("link '{}'", l.id);
    refuse_profiles(n, what);
    extra_attributes(n, what, {"id", "bandwidth", "latency", "sharing_policy"});
    std::string bw = required(n, "bandwidth");
    if (const std::size_t comma = bw.find(','); comma != std::string::npos) {
        unmapped(n, fmt::format("{} bandwidths after the first ('{}')", what, bw),
                 "one bandwidth per link; the first is used");
        bw.resize(comma);
    }
    l.bw = bandwidth(n, "bandwidth", bw);
    if (const pugi::xml_attribute a = n.attribute("latency"))
        l.latency = latency(n, "latency", a.value());
    l.policy = policy(n, "sharing_policy", Policy::Shared);
    props(n, what);
    if (link_index_.count(l.id) != 0) fail(n, fmt::format("link '{}' is declared twice", l.id));
    link_index_[l.id] = static_cast<int>(links_.size());
    links_.push_back(std::move(l));
}

void SimgridImporter::router(pugi::xml_node n) {
    const std::string id = required(n, "id");
    extra_attributes(n, fmt::format("router '{}'", id), {"id"});
    if (netpoints_.count(id) != 0) fail(n, fmt::format("router '{}' is declared twice", id));
    if (current_cluster_zone_ >= 0) {  // a star's router: its switch
        netpoints_[id] =
            Netpoint{cluster_zones_[static_cast<std::size_t>(current_cluster_zone_)].sw, -1, {}};
        return;
    }
    const std::string name = unique(sanitize(id));
    switches_.emplace_back(name, 0);
    netpoints_[id] = Netpoint{name, -1, {}};
}

void SimgridImporter::config(pugi::xml_node n) {
    for (pugi::xml_node p = n.first_child(); p; p = p.next_sibling()) {
        if (p.type() != pugi::node_element) continue;
        const std::string id = p.attribute("id").value();
        const std::string value = p.attribute("value").value();
        if (std::string_view(p.name()) == "prop" && id == "network/model" &&
            std::string_view(value).starts_with("ns-3")) {
            fail(p,
                 "configuration 'network/model' = 'ns-3': the ns-3 packet-level network has "
                 "no meaning in clustersim (its own models are chosen with --network); the "
                 "platform is not imported");
        } else if (std::string_view(p.name()) == "prop" && id.starts_with("ns3/")) {
            fail(p, fmt::format("configuration '{}': ns-3 settings have no meaning in "
                                "clustersim; the platform is not imported",
                                id));
        } else if (std::string_view(p.name()) == "prop" && id == "network/loopback-bw") {
            default_loopback_.bw = bandwidth(p, "value", value);
        } else if (std::string_view(p.name()) == "prop" && id == "network/loopback-lat") {
            default_loopback_.latency = latency(p, "value", value);
        } else {
            unmapped(p, fmt::format("configuration '{}'", id),
                     "SimGrid simulation settings have no clustersim equivalent");
        }
    }
}

void SimgridImporter::route(pugi::xml_node n, bool zone_route) {
    Route r;
    r.zone = zone_route;
    r.full_zone = current_full_zone_;
    r.src = required(n, "src");
    r.dst = required(n, "dst");
    r.line = line_of(n);
    if (zone_route) {
        r.gw_src = required(n, "gw_src");
        r.gw_dst = required(n, "gw_dst");
    }
    const std::string sym = n.attribute("symmetrical").value();
    r.symmetrical = sym.empty() || sym == "YES" || sym == "yes";
    extra_attributes(n, fmt::format("route from '{}' to '{}'", r.src, r.dst),
                     {"src", "dst", "gw_src", "gw_dst", "symmetrical"});
    // SimGrid refuses a second route between the same ends (a symmetrical route declares
    // the way back too), e.g. its bogus_two_hosts_asymetric.xml.
    const std::string kind = zone_route ? "z:" : "h:";
    auto declare = [&](const std::string& a, const std::string& b) {
        if (!route_keys_.emplace(kind + a, kind + b).second)
            fail(n, fmt::format("a route from '{}' to '{}' is already declared{}; SimGrid refuses "
                                "a second one (write symmetrical=\"NO\" on both to give each "
                                "direction its own)",
                                a, b, a == r.src ? "" : " (by a symmetrical route)"));
    };
    declare(r.src, r.dst);
    if (r.symmetrical && r.src != r.dst) declare(r.dst, r.src);
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element) continue;
        if (std::string_view(c.name()) != "link_ctn") {
            unmapped(c, fmt::format("<{}> in a route", c.name()), "expected only <link_ctn>");
            continue;
        }
        r.links.emplace_back(required(c, "id"), line_of(c));
    }
    routes_.push_back(std::move(r));
}

}  // namespace clustersim::traces::simgrid_import
