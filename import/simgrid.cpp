// `clustersim import simgrid FILE`: a SimGrid platform description (hosts, links, routers,
// routes, zones, <cluster> incl. FAT_TREE, TORUS and DRAGONFLY) as clustersim model XML. The
// mapping is documented in docs/simgrid.md and traces/README.md (SimGrid platforms); in short:
//
//   host          -> a node (one socket: `core` cores at `speed` flops/s = instructions/s, the
//                    speed of its initial power state `pstate`)
//   link          -> a switch vertex "l_<id>" (relay = bandwidth for SHARED links) joined by
//                    cables to the elements next to it in some route; a cable between X and Y
//                    has latency lat(X)/2 + lat(Y)/2 and bandwidth min(bw(X), bw(Y)), so a
//                    route's latency sum and bottleneck are kept
//   router        -> a switch vertex
//   route between two hosts of a Full zone -> also a <route> of the zone's complete <routes>
//                    table: the route taken as given; a pair without one has no route
//   <cluster>     -> <star> (flat, with or without backbone), <fat-tree>, <torus>, <dragonfly>
//   loopback      -> each node's socket <-> memory-node cable (same-socket messages)
//
// Whatever has no equivalent but leaves the simulation's meaning intact (disks, properties,
// energy, the other power states' speeds, bypass routes, ...) is listed in
// ImportResult::unmapped as "<file>:<line>: <what> not mapped: <why>"; what SimGrid refuses,
// and what has no meaning here (Wifi, ns-3, profiles), is an InputError at its line.
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

namespace clustersim::traces {

namespace simgrid_import {

// ---- output ----------------------------------------------------------------------------------

std::string SimgridImporter::emit() {
    // Explicit hosts' node-types (their loopback is known now).
    std::vector<std::string> host_types(hosts_.size());
    for (std::size_t i = 0; i < hosts_.size(); ++i) {
        const Host& h = hosts_[i];
        const Loopback lb = h.loopback.value_or(default_loopback_);
        host_types[i] = type_for(TypeKey{h.speed, h.cores, lb.latency.ps(), lb.bw, h.limiter});
    }
    const std::string src = std::filesystem::path(path_).filename().string();
    topo::ModelDocument doc(sanitize(std::filesystem::path(path_).stem().string()));
    doc.add_comment(fmt::format(
        "Imported from the SimGrid platform '{}' by `clustersim import simgrid`.\n"
        "     Hosts are nodes (speed: flops/s = instructions/s; memory: {}, SimGrid has none),\n"
        "     SimGrid links are switches \"l_<id>\" cabled along the routes, <cluster>s are\n"
        "     generators, each node's socket-loopback cable is its loopback link. The mapping\n"
        "     and its approximations: traces/README.md (SimGrid platforms).",
        src, topo::model_size(kMemory)));
    topo::XmlElement& cluster = doc.cluster();
    cluster.add_network().text("model", "fluid").text("routing", "simgrid");
    std::vector<std::pair<std::string, TypeKey>> types;
    for (const auto& [k, n] : types_) types.emplace_back(n, k);
    std::sort(types.begin(), types.end(), [](const auto& a, const auto& b) {
        return a.first.size() != b.first.size() ? a.first.size() < b.first.size()
                                                : a.first < b.first;
    });
    for (const auto& [tn, k] : types) {
        topo::XmlElement& type = cluster.add_node_type(tn, kMemory);
        type.add_socket("s0", k.cores, k.speed);
        type.add_memory_node("loopback");
        type.add_nic("nic", Bandwidth{k.limiter});
        type.add_cable("s0", "loopback", Time::ps(k.loop_ps / 2), Bandwidth{k.loop_bw});
        type.add_cable("s0", "nic", Time{}, Bandwidth{kInternalBw});
    }
    for (const Item& it : items_) {
        if (it.host >= 0) {
            const auto i = static_cast<std::size_t>(it.host);
            cluster.add_node(hosts_[i].name, host_types[i]);
        } else {
            for (const topo::XmlElement& e : it.elements) cluster.adopt(e);
        }
    }
    for (const auto& [sw, relay] : switches_) cluster.add_switch(sw, Bandwidth{relay});
    for (const Cable& c : cables_) cluster.add_cable(c.from, c.to, c.latency, Bandwidth{c.bw});
    for (const OneWay& e : one_way_) cluster.add_edge(e.from, e.to, e.latency, Bandwidth{e.bw});
    // Full zones: their routes as given, and no route between their hosts but those.
    for (const FullZone& z : full_zones_) {
        if (z.hosts.size() < 2) continue;
        std::string nodes;
        for (const int h : z.hosts)
            nodes += (nodes.empty() ? "" : " ") + hosts_[static_cast<std::size_t>(h)].name;
        topo::XmlElement& table = cluster.add("routes").text("nodes", nodes);
        for (const FullZone::Given& g : z.routes) {
            std::string via;
            for (const std::string& v : g.via) via += (via.empty() ? "" : " ") + v;
            topo::XmlElement& e = table.add("route")
                                      .text("from", hosts_[static_cast<std::size_t>(g.from)].name)
                                      .text("to", hosts_[static_cast<std::size_t>(g.to)].name);
            if (!via.empty()) e.text("via", via);
        }
    }
    return doc.str();
}

ImportResult SimgridImporter::run() {
    file_ = std::make_unique<XmlFile>(path_, "expected a SimGrid <platform> document");
    const pugi::xml_document& doc = file_->doc();
    const pugi::xml_node root = doc.document_element();
    if (std::string_view(root.name()) != "platform")
        fail(root,
             fmt::format("root element <{}>: expected a SimGrid <platform> document", root.name()));
    const std::string version = root.attribute("version").value();
    if (!version.empty() && version.front() < '4')
        unmapped(root, fmt::format("platform version {}", version),
                 "written for SimGrid 3 (version 4 or later expected); read as version 4");
    walk(root);
    connect_cluster_zones();
    connect_routes();
    if (hosts_.empty() && items_.empty())
        throw InputError(path_, line_of(root),
                         "the platform declares no <host> and no <cluster>; expected at least one");
    result_.xml = emit();
    check_routes(result_.xml);
    std::stable_sort(unmapped_.begin(), unmapped_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [line, text] : unmapped_) result_.unmapped.push_back(std::move(text));
    return std::move(result_);
}

}  // namespace simgrid_import

ImportResult import_simgrid(const std::string& path, std::uint64_t max_hosts) {
    simgrid_import::SimgridImporter importer(path, std::min(max_hosts, kMaxImportHosts));
    return importer.run();
}

}  // namespace clustersim::traces