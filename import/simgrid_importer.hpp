// The SimGrid platform importer's parts (import/simgrid*.cpp; the entry point is
// import_simgrid in import/import.hpp): what it reads a platform into (hosts, links, zones,
// clusters, routes) and the importer class whose members the files define, one file per
// seam: quantities and names (simgrid_quantities.cpp), hosts, links, routers and routes
// (simgrid_elements.cpp), Cluster and Vivaldi zones (simgrid_zones.cpp), <cluster>s
// (simgrid_clusters.cpp: flat; simgrid_cluster_kinds.cpp: FAT_TREE, TORUS, DRAGONFLY), the
// routes drawn as cables (simgrid_routes.cpp), the output (simgrid.cpp). Internal to import/.
#pragma once

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
#include "simulator/error.hpp"
#include "simulator/time.hpp"
#include "topologies/model_writer.hpp"
#include "traces/xml_file.hpp"

namespace clustersim::traces::simgrid_import {

inline constexpr std::uint64_t kInternalBw = 1'000'000'000'000;      // socket <-> NIC: 1 TB/s
inline constexpr std::uint64_t kDefaultLoopbackBw = 10'000'000'000;  // SimGrid network/loopback-bw
inline constexpr std::uint64_t kMemory = 16ULL << 30;                // SimGrid hosts have no memory

struct Loopback {
    Time latency;  // round trip (out and back)
    std::uint64_t bw = kDefaultLoopbackBw;
};

struct TypeKey {
    std::uint64_t speed = 0;
    std::uint32_t cores = 1;
    std::int64_t loop_ps = 0;
    std::uint64_t loop_bw = 0;
    std::uint64_t limiter = 0;  // NIC relay (limiter_link); 0: none
    friend auto operator<=>(const TypeKey&, const TypeKey&) = default;
};

enum class Policy { Shared, SplitDuplex, Fatpipe, Wifi };

struct Host {
    std::string id, name;
    std::uint64_t speed = 0;
    std::uint32_t cores = 1;
    std::optional<Loopback> loopback;  // from a route to itself
    int line = 0;
    // In a Cluster or Vivaldi zone (a star): the zone, and the private link when the host has
    // no <host_link>: a <cabinet>'s (bw, lat) or a <peer>'s (bw_out up, bw_in down).
    int zone = -1;
    std::uint64_t up_bw = 0, down_bw = 0;  // 0: none
    Time up_lat, down_lat;
    std::optional<std::array<double, 3>> coords;  // Vivaldi
    std::uint64_t limiter = 0;                    // NIC relay: a SHARED private link
    int full_zone = -1;                           // declared directly in this Full zone
};

// A <zone routing="Cluster"> (SimGrid's StarZone) or "Vivaldi": hosts on one switch.
struct ClusterZone {
    std::string sw;
    bool vivaldi = false;
    int line = 0;
    bool has_bb = false;
    std::uint64_t bb_bw = 0;
    Time bb_lat;
    std::vector<int> hosts;  // indices into hosts_
};

struct HostLink {
    std::string up, down;
    int line = 0;
};

struct OneWay {  // a one-way <edge>
    std::string from, to;
    Time latency;
    std::uint64_t bw = 0;
};

struct Link {
    std::string id;
    std::uint64_t bw = 0;
    Time latency;
    Policy policy = Policy::Shared;
    int line = 0;
    bool used = false, self_route = false;
    bool host_link = false;  // a Cluster zone's host_link: drawn as exact one-way edges
    std::string vertex;      // created on first use in a route
};

struct Netpoint {
    std::string vertex;  // a vertex name (node.nic or a switch); empty: see cluster/why
    int cluster = -1;    // a flat cluster's router with backbone: created on first use
    std::string why;     // not mappable: why
};

struct Route {
    std::string src, dst, gw_src, gw_dst;
    bool zone = false, symmetrical = true;
    std::vector<std::pair<std::string, int>> links;  // id, line
    int line = 0;
    int full_zone = -1;  // declared directly in this Full zone (index into full_zones_)
};

// A zone with routing="Full": SimGrid takes a route between two of its own hosts from its
// <route>s only, so a pair without one has no route. Its hosts and their routes become a
// complete <routes> table of the model (topologies/README.md).
struct FullZone {
    std::string id;
    int line = 0;
    std::vector<int> hosts;  // indices into hosts_, the zone's own (not its sub-zones')
    struct Given {
        int from = 0, to = 0;          // indices into hosts_
        std::vector<std::string> via;  // the link vertices in order
    };
    std::vector<Given> routes;
};

struct Cable {
    std::string from, to;
    Time latency;
    std::uint64_t bw = 0;
};

struct FlatCluster {
    std::string sw;      // the star switch
    std::string router;  // created on first use (backbone only)
    Time half_bb;        // bb_lat / 2
    std::uint64_t bb_bw = 0;
};

// One element of the output in document order: an explicit host or a generated block.
struct Item {
    int host = -1;                           // index into hosts_
    std::vector<topo::XmlElement> elements;  // otherwise
};

// A <cluster>'s attributes as read (SimgridImporter::read_cluster), for the importer of its
// topology.
struct ClusterSpec {
    std::string id, what, prefix, suffix;
    std::vector<std::int64_t> radical;  // host numbers
    std::size_t count = 0;              // hosts
    TypeKey key;                        // the node type of its hosts
    std::uint64_t bw = 0;               // private links
    Time lat;
    Policy pol = Policy::SplitDuplex;
    std::string topology;  // FLAT, FAT_TREE, TORUS, DRAGONFLY
    bool has_bb = false;   // a backbone
    std::uint64_t bb_bw = 0;
    Time bb_lat;
    Policy bb_pol = Policy::Shared;
    std::uint64_t limiter = 0;  // limiter_link (0: none)
    std::string params;         // topo_parameters
    // The node types of a flat cluster and of a generated topology (their loopbacks differ).
    TypeKey flat_key, gen_key;
    std::string base;         // the clustersim node name prefix
    std::string router_name;  // SimGrid's name of its router
    bool contiguous = true;   // radical is 0..count-1
};

// An identifier made of [A-Za-z0-9_-] ("x" if nothing is left).
std::string sanitize(std::string_view s);
// `s` split at every `sep` (empty fields kept).
void split_on(std::string_view s, char sep, std::vector<std::string>& out);
// A <cluster>'s radical ("0-3,8"): the host numbers; `too_many` past `max_hosts`.
std::vector<std::int64_t> parse_radical(std::string_view text, bool& ok, bool& too_many,
                                        std::uint64_t max_hosts);
// A comma-separated list of integers in 1 .. 2^24.
bool parse_list(std::string_view text, std::vector<std::uint64_t>& out);

class SimgridImporter {
  public:
    SimgridImporter(std::string path, std::uint64_t max_hosts)
        : path_(std::move(path)), max_hosts_(max_hosts) {}
    ImportResult run();

  private:
    // ---- diagnostics ---------------------------------------------------------------------
    int line_of(pugi::xml_node n) const { return file_ ? file_->line(n) : 0; }
    [[noreturn]] void fail(pugi::xml_node n, const std::string& what) const {
        throw InputError(path_, line_of(n), what);
    }
    void unmapped(int line, const std::string& what, const std::string& why) {
        unmapped_.emplace_back(line,
                               fmt::format("{}:{}: {} not mapped: {}", path_, line, what, why));
    }
    void unmapped(pugi::xml_node n, const std::string& what, const std::string& why) {
        unmapped(line_of(n), what, why);
    }
    void extra_attributes(pugi::xml_node n, const std::string& what,
                          std::initializer_list<std::string_view> mapped);
    std::string required(pugi::xml_node n, const char* attr) const {
        const pugi::xml_attribute a = n.attribute(attr);
        if (!a) fail(n, fmt::format("<{}> is missing required attribute '{}'", n.name(), attr));
        return a.value();
    }

    // ---- SimGrid quantities --------------------------------------------------------------
    // The speed of power state `pstate` (a <host>'s initial pstate; 0 elsewhere) of the
    // attribute's comma-separated list, one speed per power state.
    std::uint64_t speed(pugi::xml_node n, const char* attr, const std::string& what,
                        std::size_t pstate = 0);
    std::uint64_t bandwidth(pugi::xml_node n, const char* attr, std::string_view text);
    Time latency(pugi::xml_node n, const char* attr, std::string_view text);
    Policy policy(pugi::xml_node n, const char* attr, Policy fallback);
    std::uint32_t cores(pugi::xml_node n);

    // ---- names ---------------------------------------------------------------------------
    std::string unique(const std::string& base) {
        std::string name = base;
        for (int i = 2; used_.count(name) != 0; ++i) name = fmt::format("{}_{}", base, i);
        used_.insert(name);
        return name;
    }
    // A prefix whose names prefix0 .. prefix<n-1> are all free (then reserves them).
    std::string node_prefix(const std::string& wanted, const std::string& id, std::size_t n);
    std::string type_for(const TypeKey& k);

    // ---- elements ------------------------------------------------------------------------
    void walk(pugi::xml_node parent);
    void zone(pugi::xml_node n);
    void host(pugi::xml_node n);
    void link(pugi::xml_node n);
    void router(pugi::xml_node n);
    void cluster(pugi::xml_node n);
    ClusterSpec read_cluster(pugi::xml_node n);
    topo::XmlElement cluster_generator(pugi::xml_node n, const ClusterSpec& cl,
                                       std::string_view kind, const std::string& node_prefix);
    void register_cluster_hosts(pugi::xml_node n, const ClusterSpec& cl,
                                const std::string& node_prefix);
    void not_routable_router(const ClusterSpec& cl, const std::string& why);
    bool fat_tree_cluster(pugi::xml_node n, const ClusterSpec& cl, std::string& star_reason);
    bool torus_cluster(pugi::xml_node n, const ClusterSpec& cl, std::string& star_reason);
    bool dragonfly_cluster(pugi::xml_node n, const ClusterSpec& cl, std::string& star_reason);
    void flat_cluster(pugi::xml_node n, const ClusterSpec& cl, const std::string& star_reason);
    void config(pugi::xml_node n);
    void route(pugi::xml_node n, bool zone_route);
    void props(pugi::xml_node n, const std::string& owner);
    void peer(pugi::xml_node n);
    void cabinet(pugi::xml_node n);
    void backbone(pugi::xml_node n);
    void host_link(pugi::xml_node n);
    void connect_cluster_zones();
    std::array<double, 3> coordinates(pugi::xml_node n, const char* attr);
    void add_host(Host h, pugi::xml_node n);
    // Time-varying rates and availability (speed_file, bandwidth_file, latency_file,
    // state_file, availability_file, <trace>/<trace_connect>, <profile>): the engine has no
    // time-varying rates, so the platform is refused at the attribute.
    void refuse_profiles(pugi::xml_node n, const std::string& what);

    // ---- routes --------------------------------------------------------------------------
    void connect_routes();
    std::vector<Link*> route_links(const Route& r, const std::string& what);
    void self_route(const Route& r, const std::string& what, const std::vector<Link*>& links);
    void draw_route(const Route& r, const std::string& what, const std::vector<Link*>& links);
    void report_coverage();
    void check_routes(const std::string& xml);
    std::string resolve(const std::string& name, std::string& why);
    const std::string& link_vertex(Link& l);
    void add_cable(const std::string& a, const std::string& b, Time latency, std::uint64_t bw);

    std::string emit();

    std::string path_;
    std::uint64_t max_hosts_;
    std::unique_ptr<XmlFile> file_;  // the platform, with line numbers (set by run())
    ImportResult result_;
    std::vector<std::pair<int, std::string>> unmapped_;  // line, text
    std::unordered_set<std::string> used_;
    std::uint64_t imported_hosts_ = 0;  // hosts of the <cluster>s read so far
    std::vector<Host> hosts_;
    std::unordered_map<std::string, int> host_index_;
    std::vector<Link> links_;
    std::unordered_map<std::string, int> link_index_;
    std::unordered_map<std::string, Netpoint> netpoints_;
    std::vector<FlatCluster> flat_;
    std::vector<Route> routes_;
    struct Drawn {  // a route drawn as cables, with SimGrid's latency and bottleneck
        int line = 0;
        std::string what, from, to;
        Time latency;
        std::uint64_t bottleneck = 0;
    };
    std::vector<Drawn> drawn_;
    std::vector<Item> items_;
    std::vector<std::pair<std::string, std::uint64_t>> switches_;  // name, relay (0: none)
    std::vector<Cable> cables_;
    std::set<std::pair<std::string, std::string>> cable_keys_;
    std::map<TypeKey, std::string> types_;
    Loopback default_loopback_;
    std::vector<ClusterZone> cluster_zones_;
    int current_cluster_zone_ = -1;
    std::vector<FullZone> full_zones_;
    int current_full_zone_ = -1;
    std::unordered_map<std::string, HostLink> host_links_;
    std::vector<OneWay> one_way_;
    std::set<std::pair<std::string, std::string>> route_keys_;  // declared (src, dst)
};

}  // namespace clustersim::traces::simgrid_import
