// SimGrid <cluster>s: their attributes read, their hosts named, and the flat cluster (one
// switch, with or without backbone) that also takes any topology clustersim cannot
// generate; the generated topologies are in simgrid_cluster_kinds.cpp.
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

std::vector<std::int64_t> parse_radical(std::string_view text, bool& ok, bool& too_many,
                                        std::uint64_t max_hosts) {
    std::vector<std::int64_t> out;
    ok = true;
    std::vector<std::string> parts;
    split_on(text, ',', parts);
    for (const std::string& part : parts) {
        const std::size_t dash = part.find('-', 1);
        char* end = nullptr;
        const std::string a = part.substr(0, dash);
        const long long lo = std::strtoll(a.c_str(), &end, 10);
        if (a.empty() || *end != '\0') {
            ok = false;
            return out;
        }
        long long hi = lo;
        if (dash != std::string::npos) {
            const std::string b = part.substr(dash + 1);
            hi = std::strtoll(b.c_str(), &end, 10);
            if (b.empty() || *end != '\0') {
                ok = false;
                return out;
            }
        }
        if (hi < lo) {
            ok = false;
            return out;
        }
        if (static_cast<unsigned long long>(hi - lo) + 1 + out.size() > max_hosts) {
            ok = false;
            too_many = true;
            return out;
        }
        for (long long i = lo; i <= hi; ++i) out.push_back(i);
    }
    return out;
}

bool parse_list(std::string_view text, std::vector<std::uint64_t>& out) {
    std::vector<std::string> parts;
    split_on(text, ',', parts);
    out.clear();
    for (const std::string& p : parts) {
        char* end = nullptr;
        const long long v = std::strtoll(p.c_str(), &end, 10);
        if (p.empty() || *end != '\0' || v < 1 || v > (1 << 24)) return false;
        out.push_back(static_cast<std::uint64_t>(v));
    }
    return true;
}

ClusterSpec SimgridImporter::read_cluster(pugi::xml_node n) {
    ClusterSpec cl;
    cl.id = required(n, "id");
    cl.what = fmt::format("cluster '{}'", cl.id);
    extra_attributes(
        n, cl.what,
        {"id", "prefix", "suffix", "radical", "speed", "power", "core", "bw", "lat",
         "sharing_policy", "topology", "topo_parameters", "bb_bw", "bb_lat", "bb_sharing_policy",
         "loopback_bw", "loopback_lat", "limiter_link", "router_id"});
    cl.prefix = n.attribute("prefix").value();
    cl.suffix = n.attribute("suffix").value();
    bool ok = false, too_many = false;
    cl.radical = parse_radical(required(n, "radical"), ok, too_many, max_hosts_);
    imported_hosts_ += cl.radical.size();
    if (too_many || imported_hosts_ > max_hosts_)
        fail(n, fmt::format("<cluster> attribute 'radical': '{}': more than {} hosts in the "
                            "platform; at most {} (docs/limits.md)",
                            n.attribute("radical").value(), max_hosts_, max_hosts_));
    if (!ok || cl.radical.empty())
        fail(n, fmt::format("<cluster> attribute 'radical': '{}' is not a list of numbers and "
                            "ranges; expected e.g. 0-99 or 0-3,5,7-9",
                            n.attribute("radical").value()));
    cl.count = cl.radical.size();
    cl.key.speed = speed(n, "speed", cl.what);
    cl.key.cores = cores(n);
    cl.bw = bandwidth(n, "bw", required(n, "bw"));
    cl.lat = n.attribute("lat") ? latency(n, "lat", n.attribute("lat").value()) : Time();
    cl.pol = policy(n, "sharing_policy", Policy::SplitDuplex);
    cl.topology = n.attribute("topology").value();
    if (cl.topology.empty()) cl.topology = "FLAT";
    if (cl.pol == Policy::Shared && cl.topology != "FLAT")
        unmapped(n, fmt::format("sharing policy SHARED of {}'s links", cl.what),
                 "the links between switches are full-duplex cables: both directions get the "
                 "full bandwidth (the hosts' own links are shared: their NICs relay at it)");
    else if (cl.pol == Policy::Fatpipe)
        unmapped(n, fmt::format("sharing policy FATPIPE of {}'s links", cl.what),
                 "flows crossing one cable share its bandwidth");
    cl.has_bb = n.attribute("bb_bw");
    cl.bb_bw = cl.has_bb ? bandwidth(n, "bb_bw", n.attribute("bb_bw").value()) : 0;
    cl.bb_lat =
        n.attribute("bb_lat") ? latency(n, "bb_lat", n.attribute("bb_lat").value()) : Time();
    cl.bb_pol = policy(n, "bb_sharing_policy", Policy::Shared);
    if (const pugi::xml_attribute a = n.attribute("limiter_link"))
        cl.key.limiter = cl.limiter = bandwidth(n, "limiter_link", a.value());
    // SHARED private links (SimGrid: one resource for both directions): the NIC relays
    // in + out at the link's bandwidth. On a flat cluster that is the whole private link;
    // on a torus, fat tree or dragonfly the hosts' links to the first hop.
    if (cl.pol == Policy::Shared)
        cl.key.limiter = cl.key.limiter == 0 ? cl.bw : std::min(cl.key.limiter, cl.bw);
    cl.params = n.attribute("topo_parameters").value();
    // Same-node messages: the loopback link; without one, a flat cluster's go out and back
    // over the private link (and backbone), the others' take SimGrid's default loopback.
    cl.flat_key = cl.gen_key = cl.key;
    if (const pugi::xml_attribute a = n.attribute("loopback_bw")) {
        cl.key.loop_bw = bandwidth(n, "loopback_bw", a.value());
        cl.key.loop_ps = n.attribute("loopback_lat")
                             ? latency(n, "loopback_lat", n.attribute("loopback_lat").value()).ps()
                             : 0;
        cl.flat_key = cl.gen_key = cl.key;
    } else {
        cl.flat_key.loop_bw = cl.has_bb ? std::min(cl.bw, cl.bb_bw) : cl.bw;
        cl.flat_key.loop_ps = (cl.lat + cl.lat + cl.bb_lat).ps();
        cl.gen_key.loop_bw = default_loopback_.bw;
        cl.gen_key.loop_ps = default_loopback_.latency.ps();
    }
    if (n.attribute("loopback_lat") && !n.attribute("loopback_bw"))
        unmapped(n, fmt::format("{} attribute 'loopback_lat'", cl.what),
                 "SimGrid ignores it without loopback_bw");
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        if (c.type() == pugi::node_element && std::string_view(c.name()) != "prop")
            unmapped(c, fmt::format("<{}> in {}", c.name(), cl.what),
                     "clustersim has no equivalent");
    }
    props(n, cl.what);
    cl.base = sanitize(cl.prefix.empty() ? cl.id : cl.prefix);
    cl.router_name = n.attribute("router_id") ? std::string(n.attribute("router_id").value())
                                              : cl.prefix + cl.id + "_router" + cl.suffix;
    for (std::size_t i = 0; i < cl.count; ++i)
        cl.contiguous = cl.contiguous && cl.radical[i] == static_cast<std::int64_t>(i);

    return cl;
}

// A generator block, its link attributes last.
topo::XmlElement SimgridImporter::cluster_generator(pugi::xml_node n, const ClusterSpec& cl,
                                                    std::string_view kind,
                                                    const std::string& node_prefix) {
    if (!n.attribute("loopback_bw"))
        unmapped(n, fmt::format("same-node messages of {}", cl.what),
                 "no loopback_bw given: SimGrid's default loopback is used");
    topo::XmlElement e{std::string(kind)};
    e.text("type", type_for(cl.gen_key)).text("prefix", node_prefix);
    return e;
}

// The generators name nodes <prefix>0 .. <prefix>N-1 in radical order.
void SimgridImporter::register_cluster_hosts(pugi::xml_node n, const ClusterSpec& cl,
                                             const std::string& node_prefix) {
    for (std::size_t i = 0; i < cl.count; ++i)
        netpoints_[cl.prefix + std::to_string(cl.radical[i]) + cl.suffix] =
            Netpoint{node_prefix + std::to_string(i) + ".nic", -1, {}};
    if (!cl.contiguous)
        unmapped(n,
                 fmt::format("host numbers of {} (radical '{}')", cl.what,
                             n.attribute("radical").value()),
                 fmt::format("the generator numbers its nodes {}0..{}{}", node_prefix, node_prefix,
                             cl.count - 1));
}

void SimgridImporter::not_routable_router(const ClusterSpec& cl, const std::string& why) {
    netpoints_[cl.router_name] = Netpoint{{}, -1, why};
}

// FLAT, and any topology clustersim cannot generate (`star_reason` says why).
void SimgridImporter::flat_cluster(pugi::xml_node n, const ClusterSpec& cl,
                                   const std::string& star_reason) {
    // Flat: private links (bw, lat) to one switch; a backbone's bb_lat is split over the two
    // private links of a host-to-host route, its bandwidth caps the switch (SHARED).
    FlatCluster fc;
    fc.sw = unique(sanitize(cl.id));
    fc.half_bb = Time::ps(cl.bb_lat.ps() / 2);
    fc.bb_bw = cl.bb_bw;
    const Time link_lat = cl.lat + fc.half_bb;
    Bandwidth relay;  // the switch's relay rate (0: unlimited)
    if (cl.has_bb && cl.bb_pol != Policy::Fatpipe)
        relay = Bandwidth{cl.bb_bw};
    else if (cl.has_bb)
        unmapped(n, fmt::format("FATPIPE backbone of {}", cl.what),
                 "flows through the switch are not capped at the backbone bandwidth");
    const std::string type = type_for(cl.flat_key);
    if (cl.contiguous || !star_reason.empty()) {
        const std::string p = node_prefix(cl.base, cl.id, cl.count);
        topo::XmlElement e("star");
        e.text("type", type)
            .text("prefix", p)
            .count("nodes", cl.count)
            .text("switch", fc.sw)
            .bandwidth_if_limited("switch-bandwidth", relay)
            .link("link", link_lat, Bandwidth{cl.bw});
        items_.push_back(Item{-1, {std::move(e)}});
        register_cluster_hosts(n, cl, p);
    } else {
        // Keep SimGrid's host numbers: explicit nodes on a switch.
        Item block;
        std::vector<std::string> names;
        for (const std::int64_t r : cl.radical) {
            const std::string name = unique(cl.base + std::to_string(r));
            names.push_back(name);
            netpoints_[cl.prefix + std::to_string(r) + cl.suffix] = Netpoint{name + ".nic", -1, {}};
            block.elements.emplace_back("node").text("name", name).text("type", type);
        }
        block.elements.emplace_back("switch")
            .text("name", fc.sw)
            .bandwidth_if_limited("bandwidth", relay);
        items_.push_back(std::move(block));
        for (const std::string& name : names) add_cable(name + ".nic", fc.sw, link_lat, cl.bw);
    }
    if (cl.has_bb) {
        netpoints_[cl.router_name] = Netpoint{{}, static_cast<int>(flat_.size()), {}};
    } else {
        netpoints_[cl.router_name] = Netpoint{fc.sw, -1, {}};
    }
    flat_.push_back(fc);
}

void SimgridImporter::cluster(pugi::xml_node n) {
    const ClusterSpec cl = read_cluster(n);
    std::string star_reason;
    if (cl.topology == "FAT_TREE") {
        if (fat_tree_cluster(n, cl, star_reason)) return;
    } else if (cl.topology == "TORUS") {
        if (torus_cluster(n, cl, star_reason)) return;
    } else if (cl.topology == "DRAGONFLY") {
        if (dragonfly_cluster(n, cl, star_reason)) return;
    } else if (cl.topology != "FLAT") {
        star_reason =
            fmt::format("topology '{}' is not FLAT, FAT_TREE, TORUS or DRAGONFLY", cl.topology);
    }
    if (!star_reason.empty())
        unmapped(n, fmt::format("topology of {}", cl.what),
                 star_reason + "; imported as a flat cluster (one switch)");
    flat_cluster(n, cl, star_reason);
}

}  // namespace clustersim::traces::simgrid_import
