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

#include "simulator/error.hpp"
#include "simulator/time.hpp"
#include "simulator/units.hpp"
#include "topologies/model_writer.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/routing.hpp"
#include "traces/import.hpp"
#include "traces/xml_file.hpp"

namespace clustersim::traces {

namespace {

constexpr std::uint64_t kInternalBw = 1'000'000'000'000;      // socket <-> NIC: 1 TB/s
constexpr std::uint64_t kDefaultLoopbackBw = 10'000'000'000;  // SimGrid network/loopback-bw
constexpr std::uint64_t kMemory = 16ULL << 30;                // SimGrid hosts have no memory

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

std::string sanitize(std::string_view s) {
    std::string out;
    for (char c : s) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '-' || c == '_';
        out += ok ? c : '_';
    }
    return out.empty() ? std::string("x") : out;
}

void split_on(std::string_view s, char sep, std::vector<std::string>& out) {
    out.clear();
    std::string cur;
    for (char c : s) {
        if (c == sep) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
}

std::vector<std::int64_t> parse_radical(std::string_view text, bool& ok, bool& too_many,
                                        std::uint64_t max_hosts);

struct ClusterSpec;

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

// ---- quantities ------------------------------------------------------------------------------

// Splits "12.5MBps" into 12.5 and "MBps"; false if there is no number.
bool number_and_unit(std::string_view text, long double& value, std::string& unit) {
    const std::string s(text);
    const char* begin = s.c_str();
    while (*begin == ' ' || *begin == '\t') ++begin;
    char* end = nullptr;
    value = std::strtold(begin, &end);
    if (end == begin || !std::isfinite(value)) return false;
    unit = end;
    while (!unit.empty() && (unit.back() == ' ' || unit.back() == '\t')) unit.pop_back();
    while (!unit.empty() && (unit.front() == ' ' || unit.front() == '\t')) unit.erase(0, 1);
    return true;
}

// Decimal (k M G T P E) or binary (Ki Mi Gi Ti Pi Ei) prefix; false if unknown.
bool prefix_factor(std::string_view p, long double& f) {
    static const std::pair<std::string_view, long double> kPrefixes[] = {
        {"", 1.0L},
        {"k", 1e3L},
        {"K", 1e3L},
        {"M", 1e6L},
        {"G", 1e9L},
        {"T", 1e12L},
        {"P", 1e15L},
        {"E", 1e18L},
        {"Ki", 1024.0L},
        {"Mi", 1048576.0L},
        {"Gi", 1073741824.0L},
        {"Ti", 1099511627776.0L},
        {"Pi", 1125899906842624.0L},
        {"Ei", 1152921504606846976.0L}};
    for (const auto& [name, factor] : kPrefixes) {
        if (p == name) {
            f = factor;
            return true;
        }
    }
    return false;
}

std::uint64_t SimgridImporter::speed(pugi::xml_node n, const char* attr, const std::string& what,
                                     std::size_t pstate) {
    // SimGrid 3 platforms call it `power` (flops/s without a unit).
    const std::string list = !n.attribute(attr) && n.attribute("power")
                                 ? std::string(n.attribute("power").value())
                                 : required(n, attr);
    std::vector<std::string> states;
    split_on(list, ',', states);
    if (pstate >= states.size())
        fail(n, fmt::format("{} attribute 'pstate': power state {} of {} speeds ('{}'); SimGrid "
                            "refuses a pstate past the list",
                            what, pstate, states.size(), list));
    const std::string& text = states[pstate];  // number_and_unit skips blanks around it
    if (states.size() > 1)
        unmapped(n, fmt::format("{} speeds of the other power states ('{}')", what, list),
                 fmt::format("the engine keeps one speed per core (no power-state changes); "
                             "power state {}'s, the initial one, is used",
                             pstate));
    long double v = 0;
    std::string unit;
    long double f = 0;
    bool ok = number_and_unit(text, v, unit);
    if (ok) {
        std::string_view u = unit;
        if (u.ends_with("flops"))
            u.remove_suffix(5);
        else if (u.ends_with("f"))
            u.remove_suffix(1);
        else if (!u.empty())
            ok = false;
        ok = ok && prefix_factor(u, f);
    }
    const long double flops = ok ? std::roundl(v * f) : 0;
    if (!ok || flops < 1 || flops > 1.8e19L)
        fail(n, fmt::format("<{}> attribute '{}': '{}' is not a speed; expected flops per second "
                            "with a unit such as 1Gf, 98.095Mf or 2.5Gflops",
                            n.name(), attr, text));
    return static_cast<std::uint64_t>(flops);
}

std::uint64_t SimgridImporter::bandwidth(pugi::xml_node n, const char* attr,
                                         std::string_view text) {
    long double v = 0, f = 0;
    std::string unit;
    bool ok = number_and_unit(text, v, unit);
    long double scale = 1;
    if (ok) {
        std::string_view u = unit;
        if (u.ends_with("Bps")) {
            u.remove_suffix(3);
        } else if (u.ends_with("bps")) {
            u.remove_suffix(3);
            scale = 0.125L;
        } else if (!u.empty()) {
            ok = false;
        }
        ok = ok && prefix_factor(u, f);
    }
    const long double bps = ok ? std::roundl(v * f * scale) : 0;
    if (!ok || bps < 1 || bps > 1.8e19L)
        fail(n, fmt::format("<{}> attribute '{}': '{}' is not a bandwidth; expected a positive "
                            "rate such as 125MBps, 1.25GBps, 10Gbps or 1GiBps",
                            n.name(), attr, text));
    return static_cast<std::uint64_t>(bps);
}

Time SimgridImporter::latency(pugi::xml_node n, const char* attr, std::string_view text) {
    long double v = 0;
    std::string unit;
    bool ok = number_and_unit(text, v, unit);
    static const std::pair<std::string_view, long double> kUnits[] = {
        {"", 1e12L},  {"s", 1e12L},  {"ms", 1e9L},    {"us", 1e6L},     {"ns", 1e3L},
        {"ps", 1.0L}, {"m", 60e12L}, {"h", 3600e12L}, {"d", 86400e12L}, {"w", 604800e12L}};
    long double f = 0;
    if (ok) {
        ok = false;
        for (const auto& [name, factor] : kUnits)
            if (unit == name) {
                f = factor;
                ok = true;
            }
    }
    const long double ps = ok ? std::roundl(v * f) : -1;
    if (!ok || ps < 0 || ps > 9.2e18L)
        fail(n, fmt::format("<{}> attribute '{}': '{}' is not a latency; expected a time such "
                            "as 50us, 1.5ms or 0",
                            n.name(), attr, text));
    return Time::ps(static_cast<std::int64_t>(ps));
}

Policy SimgridImporter::policy(pugi::xml_node n, const char* attr, Policy fallback) {
    const pugi::xml_attribute a = n.attribute(attr);
    if (!a) return fallback;
    const std::string_view v = a.value();
    if (v == "SHARED") return Policy::Shared;
    if (v == "SPLITDUPLEX" || v == "FULLDUPLEX") return Policy::SplitDuplex;
    if (v == "FATPIPE") return Policy::Fatpipe;
    if (v == "WIFI")
        fail(n, fmt::format("<{}> attribute '{}': WIFI links have no meaning in clustersim (no "
                            "wireless model); the platform is not imported",
                            n.name(), attr));
    fail(n, fmt::format("<{}> attribute '{}': '{}' is not a sharing policy; expected SHARED, "
                        "SPLITDUPLEX, FATPIPE or WIFI",
                        n.name(), attr, v));
}

std::uint32_t SimgridImporter::cores(pugi::xml_node n) {
    const pugi::xml_attribute a = n.attribute("core");
    if (!a) return 1;
    const std::string v = a.value();
    char* end = nullptr;
    const long c = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || c < 1 || c > 1'000'000)
        fail(n, fmt::format("<{}> attribute 'core': '{}' is not a core count; expected a whole "
                            "number >= 1",
                            n.name(), v));
    return static_cast<std::uint32_t>(c);
}

void SimgridImporter::extra_attributes(pugi::xml_node n, const std::string& what,
                                       std::initializer_list<std::string_view> mapped) {
    for (pugi::xml_attribute a = n.first_attribute(); a; a = a.next_attribute()) {
        if (std::find(mapped.begin(), mapped.end(), std::string_view(a.name())) != mapped.end())
            continue;
        unmapped(n, fmt::format("{} attribute '{}'", what, a.name()),
                 "clustersim has no equivalent (ignored)");
    }
}

void SimgridImporter::refuse_profiles(pugi::xml_node n, const std::string& what) {
    for (const char* a :
         {"speed_file", "bandwidth_file", "latency_file", "state_file", "availability_file"}) {
        if (n.attribute(a))
            fail(n, fmt::format("{} attribute '{}': time-varying rates and availability "
                                "(SimGrid profiles) have no equivalent in clustersim, whose "
                                "engine keeps every rate constant; the platform is not imported",
                                what, a));
    }
}

void SimgridImporter::props(pugi::xml_node n, const std::string& owner) {
    for (pugi::xml_node p = n.child("prop"); p; p = p.next_sibling("prop")) {
        const std::string_view id = p.attribute("id").value();
        // SimGrid's energy plugins (host, link, CO2 emission) account for what was simulated
        // and change no time, so a platform that carries their figures is imported as timed.
        const bool energy = id.starts_with("wattage") || id == "watt_per_state" ||
                            id == "watt_off" || id == "carbon_intensity";
        unmapped(p, fmt::format("property '{}' of {}", id, owner),
                 energy ? "energy is not simulated (SimGrid's energy plugins only account "
                          "for it: the times are the same without it)"
                        : "properties have no meaning in clustersim");
    }
}

// ---- names and types ---------------------------------------------------------------------

std::string SimgridImporter::node_prefix(const std::string& wanted, const std::string& id,
                                         std::size_t n) {
    auto free = [&](const std::string& p) {
        if (used_.count(p) != 0) return false;
        for (std::size_t i = 0; i < n; ++i)
            if (used_.count(p + std::to_string(i)) != 0) return false;
        return true;
    };
    std::string p = wanted;
    if (!free(p)) p = sanitize(id) + "-";
    for (int k = 2; !free(p); ++k) p = fmt::format("{}{}-", sanitize(id), k);
    used_.insert(p);
    for (std::size_t i = 0; i < n; ++i) used_.insert(p + std::to_string(i));
    return p;
}

std::string SimgridImporter::type_for(const TypeKey& k) {
    if (const auto it = types_.find(k); it != types_.end()) return it->second;
    const std::string name = unique(fmt::format("type{}", types_.size()));
    types_.emplace(k, name);
    return name;
}

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

// FAT_TREE: "levels;down,...;up,...;parallel,..."; false (with `star_reason`) when the
// parameters do not describe the hosts.
bool SimgridImporter::fat_tree_cluster(pugi::xml_node n, const ClusterSpec& cl,
                                       std::string& star_reason) {
    std::vector<std::string> parts;
    split_on(cl.params, ';', parts);
    std::vector<std::uint64_t> down, up, par;
    std::uint64_t levels = 0;
    bool good = parts.size() == 4 && parse_list(parts[0], down) && down.size() == 1;
    if (good) levels = down[0];
    good = good && parse_list(parts[1], down) && parse_list(parts[2], up) &&
           parse_list(parts[3], par) && down.size() == levels && up.size() == levels &&
           par.size() == levels;
    std::uint64_t nodes = 1;
    for (const std::uint64_t d : down) nodes *= d;
    if (!good) {
        star_reason = fmt::format(
            "topo_parameters '{}' are not 'levels;down,...;up,...;"
            "parallel,...'",
            cl.params);
    } else if (nodes != cl.count) {
        star_reason = fmt::format("topo_parameters '{}' give {} hosts, the radical {}", cl.params,
                                  nodes, cl.count);
    } else {
        const std::string p = node_prefix(cl.base, cl.id, cl.count);
        const std::string sw = unique(sanitize(cl.id) + "_sw");
        topo::XmlElement e = cluster_generator(n, cl, "fat-tree", p);
        e.text("switch-prefix", sw)
            .count("levels", levels)
            .list("down", down)
            .list("up", up)
            .list("parallel", par)
            .bandwidth_if_limited("switch-bandwidth", Bandwidth{cl.limiter})
            .link("link", cl.lat, Bandwidth{cl.bw});
        items_.push_back(Item{-1, {std::move(e)}});
        register_cluster_hosts(n, cl, p);
        not_routable_router(cl, "the router of a FAT_TREE cluster has no clustersim vertex");
        if (cl.has_bb)
            unmapped(n, fmt::format("backbone of {}", cl.what), "a FAT_TREE has no backbone");
        return true;
    }
    return false;
}

// TORUS: "a,b,...".
bool SimgridImporter::torus_cluster(pugi::xml_node n, const ClusterSpec& cl,
                                    std::string& star_reason) {
    std::vector<std::uint64_t> dims;
    std::uint64_t nodes = 1;
    const bool good = parse_list(cl.params, dims);
    for (const std::uint64_t d : dims) nodes *= d;
    if (!good) {
        star_reason = fmt::format("topo_parameters '{}' are not dimensions 'a,b,...'", cl.params);
    } else if (nodes != cl.count) {
        star_reason = fmt::format("topo_parameters '{}' give {} hosts, the radical {}", cl.params,
                                  nodes, cl.count);
    } else {
        // SimGrid's first dimension varies fastest, clustersim's last: reverse them.
        const std::string p = node_prefix(cl.base, cl.id, cl.count);
        topo::XmlElement e = cluster_generator(n, cl, "torus", p);
        e.list("dims", std::vector<std::uint64_t>(dims.rbegin(), dims.rend()))
            .text("wiring", "simgrid")
            .link("link", cl.lat, Bandwidth{cl.bw});
        items_.push_back(Item{-1, {std::move(e)}});
        register_cluster_hosts(n, cl, p);
        not_routable_router(cl, "the router of a TORUS cluster has no clustersim vertex");
        if (cl.has_bb)
            unmapped(n, fmt::format("backbone of {}", cl.what), "a TORUS has no backbone");
        return true;
    }
    return false;
}

// DRAGONFLY: "groups,links;chassis,links;routers,links;nodes".
bool SimgridImporter::dragonfly_cluster(pugi::xml_node n, const ClusterSpec& cl,
                                        std::string& star_reason) {
    // groups,blue-links;chassis,black-links;routers,green-links;nodes-per-router
    std::vector<std::string> parts;
    split_on(cl.params, ';', parts);
    std::vector<std::uint64_t> g, c, b, p;
    const bool good = parts.size() == 4 && parse_list(parts[0], g) && g.size() == 2 &&
                      parse_list(parts[1], c) && c.size() == 2 && parse_list(parts[2], b) &&
                      b.size() == 2 && parse_list(parts[3], p) && p.size() == 1;
    const std::uint64_t nodes = good ? g[0] * c[0] * b[0] * p[0] : 0;
    if (!good) {
        star_reason = fmt::format(
            "topo_parameters '{}' are not 'groups,links;chassis,links;"
            "routers,links;nodes'",
            cl.params);
    } else if (nodes != cl.count) {
        star_reason = fmt::format("topo_parameters '{}' give {} hosts, the radical {}", cl.params,
                                  nodes, cl.count);
    } else if (g[0] > b[0]) {
        fail(n, fmt::format("<cluster> attribute 'topo_parameters': '{}': {} groups but {} "
                            "routers per chassis; SimGrid's dragonfly reaches group j over "
                            "router j of each group, so it needs groups <= routers",
                            cl.params, g[0], b[0]));
    } else {
        // SimGrid's wiring (DragonflyZone): green links inside a chassis (x green count),
        // black links between chassis (x black count), one blue link per pair of groups
        // (x blue count); the limiter caps every router.
        const std::string px = node_prefix(cl.base, cl.id, cl.count);
        const std::string sw = unique(sanitize(cl.id) + "_df");
        topo::XmlElement e = cluster_generator(n, cl, "dragonfly", px);
        e.text("wiring", "simgrid")
            .text("switch-prefix", sw)
            .count("groups", g[0])
            .count("chassis", c[0])
            .count("routers", b[0])
            .count("nodes-per-router", p[0])
            .bandwidth_if_limited("router-bandwidth", Bandwidth{cl.limiter})
            .link("link", cl.lat, Bandwidth{cl.bw})
            .link("local", cl.lat, Bandwidth{cl.bw * b[1]})
            .link("chassis", cl.lat, Bandwidth{cl.bw * c[1]})
            .link("global", cl.lat, Bandwidth{cl.bw * g[1]});
        items_.push_back(Item{-1, {std::move(e)}});
        register_cluster_hosts(n, cl, px);
        not_routable_router(cl, "the router of a DRAGONFLY cluster has no clustersim vertex");
        if (cl.has_bb)
            unmapped(n, fmt::format("backbone of {}", cl.what), "a DRAGONFLY has no backbone");
        return true;
    }
    return false;
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
        std::vector<Link*> links;
        for (const auto& [id, line] : r.links) {
            auto it = link_index_.find(id);
            if (it == link_index_.end()) {
                // SimGrid names the halves of split-duplex links <id>_UP / <id>_DOWN.
                for (const char* half : {"_UP", "_DOWN"}) {
                    if (id.ends_with(half)) {
                        it = link_index_.find(
                            id.substr(0, id.size() - std::string_view(half).size()));
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
        if (!r.zone && r.src == r.dst) {
            // A host's route to itself: its loopback.
            const auto h = host_index_.find(r.src);
            if (h == host_index_.end()) {
                unmapped(r.line, what, "only a host's route to itself is meaningful");
                continue;
            }
            Loopback lb;
            lb.bw = links.empty() ? default_loopback_.bw : UINT64_MAX;
            for (Link* l : links) {
                lb.latency = lb.latency + l->latency;
                lb.bw = std::min(lb.bw, l->bw);
                l->self_route = true;
            }
            hosts_[static_cast<std::size_t>(h->second)].loopback = lb;
            continue;
        }
        std::string why;
        const std::string from = resolve(r.zone ? r.gw_src : r.src, why);
        const std::string to =
            from.empty() ? std::string() : resolve(r.zone ? r.gw_dst : r.dst, why);
        if (from.empty() || to.empty()) {
            if (why.ends_with("(SimGrid refuses the platform)"))
                throw InputError(path_, r.line, fmt::format("{}: {}", what, why));
            unmapped(r.line, what, why);
            continue;
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
    // A Full zone whose routes leave pairs of its hosts unrouted: its coverage, one line.
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

}  // namespace

ImportResult import_simgrid(const std::string& path, std::uint64_t max_hosts) {
    SimgridImporter importer(path, std::min(max_hosts, kMaxImportHosts));
    return importer.run();
}

}  // namespace clustersim::traces
