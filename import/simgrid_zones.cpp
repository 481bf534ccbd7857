// SimGrid zones: a zone's routing (Full, Floyd, Cluster/StarZone, Vivaldi, ...), a Cluster
// zone's or a Vivaldi zone's hosts on one switch (<peer>, <cabinet>, <backbone>,
// <host_link>) and their private links.
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

void SimgridImporter::zone(pugi::xml_node n) {
    const std::string id = n.attribute("id").value();
    const std::string routing = n.attribute("routing").value();
    extra_attributes(n, fmt::format("zone '{}'", id), {"id", "routing"});
    static const std::set<std::string> kGraph{"Full",          "Floyd", "Dijkstra",
                                              "DijkstraCache", "None",  ""};
    if (routing == "Wifi")
        fail(n, fmt::format("zone '{}' with routing 'Wifi': wireless links have no meaning in "
                            "clustersim; the platform is not imported",
                            id));
    if (routing == "Cluster" || routing == "Vivaldi") {
        // A star (SimGrid's StarZone / ClusterZone): every host on one switch over its own
        // private link; <backbone> caps the switch. Vivaldi adds coordinate latencies.
        ClusterZone z;
        z.sw = unique(sanitize(id) + "_star");
        z.vivaldi = routing == "Vivaldi";
        z.line = line_of(n);
        cluster_zones_.push_back(std::move(z));
        switches_.emplace_back(cluster_zones_.back().sw, 0);
        const int saved = current_cluster_zone_, saved_full = current_full_zone_;
        current_cluster_zone_ = static_cast<int>(cluster_zones_.size() - 1);
        current_full_zone_ = -1;
        walk(n);
        current_cluster_zone_ = saved;
        current_full_zone_ = saved_full;
        return;
    }
    if (kGraph.count(routing) == 0) {
        unmapped(n, fmt::format("routing '{}' of zone '{}'", routing, id),
                 routing == "Vivaldi"
                     ? "latencies computed from coordinates do not exist in clustersim; the "
                       "zone's hosts are only connected by explicit routes"
                     : "only Full, Floyd and Dijkstra zones (routes drawn as a graph) and "
                       "<cluster> are imported");
    }
    const int saved_full = current_full_zone_;
    current_full_zone_ = -1;
    if (routing == "Full") {
        full_zones_.push_back(FullZone{id, line_of(n), {}, {}});
        current_full_zone_ = static_cast<int>(full_zones_.size() - 1);
    }
    walk(n);
    current_full_zone_ = saved_full;
}

void SimgridImporter::peer(pugi::xml_node n) {
    if (current_cluster_zone_ < 0 ||
        !cluster_zones_[static_cast<std::size_t>(current_cluster_zone_)].vivaldi)
        fail(n, "<peer> outside a zone with routing 'Vivaldi'; SimGrid accepts peers only there");
    Host h;
    h.id = required(n, "id");
    h.line = line_of(n);
    const std::string what = fmt::format("peer '{}'", h.id);
    refuse_profiles(n, what);
    extra_attributes(n, what, {"id", "speed", "bw_in", "bw_out", "lat", "coordinates"});
    h.speed = speed(n, "speed", what);
    h.up_bw = bandwidth(n, "bw_out", required(n, "bw_out"));
    h.down_bw = bandwidth(n, "bw_in", required(n, "bw_in"));
    if (n.attribute("lat") && latency(n, "lat", n.attribute("lat").value()) != Time())
        unmapped(n, fmt::format("{} attribute 'lat'", what),
                 "SimGrid does not use it either (peer latencies come from the coordinates)");
    if (n.attribute("coordinates")) h.coords = coordinates(n, "coordinates");
    h.name = unique(sanitize(h.id));
    add_host(std::move(h), n);
}

void SimgridImporter::cabinet(pugi::xml_node n) {
    const std::string id = required(n, "id");
    const std::string what = fmt::format("cabinet '{}'", id);
    if (current_cluster_zone_ < 0)
        fail(n, fmt::format("{} outside a zone with routing 'Cluster'; SimGrid accepts cabinets "
                            "only there",
                            what));
    extra_attributes(n, what, {"id", "prefix", "suffix", "radical", "speed", "bw", "lat"});
    const std::string prefix = required(n, "prefix"), suffix = required(n, "suffix");
    bool ok = false, too_many = false;
    const std::vector<std::int64_t> radical =
        parse_radical(required(n, "radical"), ok, too_many, max_hosts_);
    imported_hosts_ += radical.size();
    if (too_many || imported_hosts_ > max_hosts_)
        fail(n, fmt::format("<cabinet> attribute 'radical': '{}': more than {} hosts in the "
                            "platform; at most {} (docs/limits.md)",
                            n.attribute("radical").value(), max_hosts_, max_hosts_));
    if (!ok || radical.empty())
        fail(n, fmt::format("<cabinet> attribute 'radical': '{}' is not a list of numbers and "
                            "ranges; expected e.g. 0-99 or 0-3,5,7-9",
                            n.attribute("radical").value()));
    const std::uint64_t sp = speed(n, "speed", what);
    const std::uint64_t bw = bandwidth(n, "bw", required(n, "bw"));
    const Time lat = latency(n, "lat", required(n, "lat"));
    for (const std::int64_t r : radical) {
        Host h;
        h.id = prefix + std::to_string(r) + suffix;
        h.line = line_of(n);
        h.speed = sp;
        h.up_bw = h.down_bw = bw;
        h.up_lat = h.down_lat = lat;
        h.name = unique(sanitize(h.id));
        add_host(std::move(h), n);
    }
}

void SimgridImporter::backbone(pugi::xml_node n) {
    const std::string id = required(n, "id");
    if (current_cluster_zone_ < 0)
        fail(n, fmt::format("backbone '{}' outside a zone with routing 'Cluster'; SimGrid "
                            "accepts backbones only there",
                            id));
    extra_attributes(n, fmt::format("backbone '{}'", id), {"id", "bandwidth", "latency"});
    ClusterZone& z = cluster_zones_[static_cast<std::size_t>(current_cluster_zone_)];
    if (z.has_bb) fail(n, fmt::format("a second backbone ('{}') in one zone", id));
    z.has_bb = true;
    z.bb_bw = bandwidth(n, "bandwidth", required(n, "bandwidth"));
    z.bb_lat = latency(n, "latency", required(n, "latency"));
    for (auto& [name, relay] : switches_)
        if (name == z.sw) relay = z.bb_bw;
}

void SimgridImporter::host_link(pugi::xml_node n) {
    const std::string id = required(n, "id");
    if (current_cluster_zone_ < 0)
        fail(n, fmt::format("host_link of '{}' outside a zone with routing 'Cluster'; SimGrid "
                            "accepts host links only there",
                            id));
    extra_attributes(n, fmt::format("host_link of '{}'", id), {"id", "up", "down"});
    if (!host_links_.emplace(id, HostLink{required(n, "up"), required(n, "down"), line_of(n)})
             .second)
        fail(n, fmt::format("a second host_link for '{}'", id));
}

// Every host of a Cluster zone: its private link up to the zone's switch and down from it
// (one-way edges: SimGrid's up and down links are separate), the backbone's latency split
// over the two. Vivaldi: a one-way edge from each host's up side to each other's down side
// with the coordinates' latency (a full mesh: O(hosts^2) edges, so at most 1024 hosts).
void SimgridImporter::connect_cluster_zones() {
    for (ClusterZone& z : cluster_zones_) {
        const Time half_bb = Time::ps(z.bb_lat.ps() / 2);
        if (z.vivaldi && z.hosts.size() > 1024)
            throw InputError(path_, z.line,
                             fmt::format("Vivaldi zone with {} hosts: its pairwise latencies "
                                         "take one edge per pair; at most 1024 hosts",
                                         z.hosts.size()));
        std::vector<std::string> up_side, down_side;
        for (const int hi : z.hosts) {
            Host& h = hosts_[static_cast<std::size_t>(hi)];
            Time up_lat = h.up_lat, down_lat = h.down_lat;
            std::uint64_t up_bw = h.up_bw != 0 ? h.up_bw : kInternalBw;
            std::uint64_t down_bw = h.down_bw != 0 ? h.down_bw : kInternalBw;
            if (const auto it = host_links_.find(h.id); it != host_links_.end()) {
                const HostLink& hl = it->second;
                Link* ends[2] = {nullptr, nullptr};
                const std::string* ids[2] = {&hl.up, &hl.down};
                for (int k = 0; k < 2; ++k) {
                    auto li = link_index_.find(*ids[k]);
                    // SimGrid names the halves of a SPLITDUPLEX link <id>_UP and <id>_DOWN.
                    for (const std::string_view half : {"_UP", "_DOWN"})
                        if (li == link_index_.end() && ids[k]->ends_with(half))
                            li = link_index_.find(ids[k]->substr(0, ids[k]->size() - half.size()));
                    if (li == link_index_.end())
                        throw InputError(path_, hl.line,
                                         fmt::format("host_link of '{}': no link '{}' is "
                                                     "declared",
                                                     h.id, *ids[k]));
                    ends[k] = &links_[static_cast<std::size_t>(li->second)];
                    ends[k]->used = true;
                    ends[k]->host_link = true;
                }
                up_lat = ends[0]->latency;
                up_bw = ends[0]->bw;
                down_lat = ends[1]->latency;
                down_bw = ends[1]->bw;
                if (ends[0] == ends[1] && ends[0]->policy == Policy::Shared)
                    h.limiter = ends[0]->bw;  // one resource for both directions
                host_links_.erase(it);
            }
            if (z.vivaldi) {
                const std::string up = unique(h.name + "_up"), down = unique(h.name + "_down");
                switches_.emplace_back(up, 0);
                switches_.emplace_back(down, 0);
                one_way_.push_back(OneWay{h.name + ".nic", up, up_lat, up_bw});
                one_way_.push_back(OneWay{down, h.name + ".nic", down_lat, down_bw});
                up_side.push_back(up);
                down_side.push_back(down);
                if (!h.coords)
                    throw InputError(
                        path_, h.line,
                        fmt::format("host '{}' in a Vivaldi zone has no coordinates", h.id));
            } else {
                one_way_.push_back(OneWay{h.name + ".nic", z.sw, up_lat + half_bb, up_bw});
                one_way_.push_back(OneWay{z.sw, h.name + ".nic", down_lat + half_bb, down_bw});
            }
        }
        if (!z.vivaldi) continue;
        for (std::size_t i = 0; i < z.hosts.size(); ++i) {
            const auto& a = *hosts_[static_cast<std::size_t>(z.hosts[i])].coords;
            for (std::size_t j = 0; j < z.hosts.size(); ++j) {
                if (i == j) continue;
                const auto& b = *hosts_[static_cast<std::size_t>(z.hosts[j])].coords;
                const double ms =
                    std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1])) +
                    std::fabs(a[2]) + std::fabs(b[2]);
                one_way_.push_back(OneWay{
                    up_side[i], down_side[j],
                    Time::ps(static_cast<std::int64_t>(std::llround(ms * 1e9))), kInternalBw});
            }
        }
    }
    for (const auto& [id, hl] : host_links_)
        throw InputError(path_, hl.line,
                         fmt::format("host_link of '{}': no host '{}' in its zone", id, id));
}

}  // namespace clustersim::traces::simgrid_import
