// `clustersim import piosimhd MODEL.xml`: a PIOsimHD model (Project: Templates, ApplicationList,
// GlobalSettings, ComponentList with nodes, NICs, switches, ports, connections, servers with
// an I/O subsystem and a cache layer, client processes) as clustersim model XML.
//
// PIOsimHD's own reader is case-insensitive about element names and older files wrap
// components differently (<NICS><NIC> vs <nics><NIC>, <IOSUBSYSTEM><IOSubsystem> vs
// <iosubsystem><IOSUBSYSTEM>), so components are found by their `implementation` class
// (de.hd.pvs.piosim.model.components.<Kind>.<Class>), parameters by case-insensitive element
// name, and an instance's missing parameters and sub-components come from its `template`.
// Units (PIOsimHD's util/Numbers): K, M, G = 2^10, 2^20, 2^30 (sizes and bytes per second),
// times with s, ms, us, ns. The mapping is documented in traces/README.md ("`clustersim import
// piosimhd`").
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "import/import.hpp"
#include "simulator/error.hpp"
#include "simulator/units.hpp"
#include "topologies/model_writer.hpp"
#include "traces/piosimhd_units.hpp"
#include "traces/text.hpp"
#include "traces/xml_file.hpp"

namespace clustersim::traces {
namespace {

namespace fs = std::filesystem;

// PVFS2's small I/O: a write of at most this many bytes travels inside its request
// (PINT_SMALL_IO_MAXSIZE, src/proto/pvfs2-req-proto.h).
constexpr std::uint64_t kPvfs2SmallIo = 16 * 1024;
// PVFS2's flow (flowproto-multiqueue, src/io/flow/flowproto-bmi-trove/): a server receives a
// write's data into a flow buffer (BUFFER_SIZE 256 KiB) and, once the buffer has arrived
// whole (bmi_recv_callback_fn), writes it with trove_bstream_write_list: with TroveSyncData
// off that is a pwrite into the page cache, a memory copy. The import prices it at the node's
// InternalDataTransferSpeed (the write_behind layer's copy-rate).

bool same(const char* a, const char* b) {
    return ascii_lower(a) == ascii_lower(b);
}
// The last two segments of an implementation class: (kind, class).
std::pair<std::string, std::string> kind_of(pugi::xml_node n) {
    const std::string impl = n.attribute("implementation").as_string();
    const auto last = impl.rfind('.');
    if (last == std::string::npos) return {"", impl};
    const auto prev = impl.rfind('.', last - 1);
    const std::string kind =
        prev == std::string::npos ? impl.substr(0, last) : impl.substr(prev + 1, last - prev - 1);
    return {kind, impl.substr(last + 1)};
}
bool is_component(pugi::xml_node n) {
    return n.type() == pugi::node_element && n.attribute("implementation");
}

// Names in clustersim models: no '.', ',' or white space.
std::string model_name(const std::string& s) {
    std::string out;
    for (char c : s)
        out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
    return out.empty() ? "x" : out;
}

struct Param {
    std::string text;
    pugi::xml_node node;
};

class PiosimhdImporter {
  public:
    PiosimhdImporter(std::string path, PiosimhdOptions options)
        : file_(std::move(path)), path_(file_.path()), options_(options) {}

    ImportResult run();

  private:
    // ---- locations, errors, unmapped ------------------------------------------------------
    int line(pugi::xml_node n) const { return file_.line(n); }
    [[noreturn]] void fail(pugi::xml_node n, const std::string& what) const {
        throw InputError(path_, line(n), what);
    }
    // One line per distinct (what, why), at the first occurrence, with a count.
    void unmapped(pugi::xml_node at, const std::string& what, const std::string& why) {
        const std::string key = what + "\n" + why;
        if (auto it = unmapped_index_.find(key); it != unmapped_index_.end()) {
            ++unmapped_[it->second].count;
            return;
        }
        unmapped_index_[key] = unmapped_.size();
        unmapped_.push_back({line(at), what, why, 1});
    }

    // ---- templates, parameters, sub-components ----------------------------------------------
    pugi::xml_node template_of(pugi::xml_node n) const {
        const pugi::xml_attribute t = n.attribute("template");
        if (!t) return {};
        const auto it = templates_.find({ascii_lower(kind_of(n).first), t.as_string()});
        return it == templates_.end() ? pugi::xml_node() : it->second;
    }
    // A parameter element (no implementation, text only) of `n` or of its templates.
    std::optional<Param> param(pugi::xml_node n, const char* name, int depth = 0) const {
        for (pugi::xml_node c : n.children())
            if (c.type() == pugi::node_element && !is_component(c) && same(c.name(), name))
                return Param{std::string(trim(c.text().as_string())), c};
        if (depth < 8)
            if (const pugi::xml_node t = template_of(n)) return param(t, name, depth + 1);
        return std::nullopt;
    }
    // Components of `kind` below `n`, through wrapper elements; the template's if `n` has none.
    std::vector<pugi::xml_node> components(pugi::xml_node n, const std::string& kind,
                                           int depth = 0) const {
        std::vector<pugi::xml_node> out;
        collect(n, kind, out);
        if (out.empty() && depth < 8)
            if (const pugi::xml_node t = template_of(n)) return components(t, kind, depth + 1);
        return out;
    }
    static void collect(pugi::xml_node n, const std::string& kind,
                        std::vector<pugi::xml_node>& out) {
        for (pugi::xml_node c : n.children()) {
            if (c.type() != pugi::node_element) continue;
            if (is_component(c)) {
                if (same(kind_of(c).first.c_str(), kind.c_str())) out.push_back(c);
            } else {
                collect(c, kind, out);
            }
        }
    }
    // Parameters of `n` (and its templates) that the importer does not know.
    void unknown_params(pugi::xml_node n, const std::set<std::string>& known,
                        const std::string& owner) {
        std::set<std::string> seen;
        for (pugi::xml_node m = n; m; m = template_of(m)) {
            for (pugi::xml_node c : m.children()) {
                if (c.type() != pugi::node_element || is_component(c) ||
                    c.first_child().type() == pugi::node_element || !c.first_child())
                    continue;
                const std::string name = ascii_lower(c.name());
                if (known.count(name) || !seen.insert(name).second) continue;
                unmapped(c,
                         fmt::format("{} parameter <{}> = {}", owner, c.name(),
                                     std::string(trim(c.text().as_string()))),
                         "the importer does not know it");
            }
            if (seen.size() > 64) break;
        }
    }

    // ---- values --------------------------------------------------------------------------------
    // PIOsimHD's Numbers.getLongValue: a whole number with an optional K/M/G/T (2^10k).
    std::uint64_t value(const Param& p, const char* what) const {
        const auto v = parse_piosim_size(p.text);
        if (!v)
            fail(p.node, fmt::format("<{}> '{}': expected {} as a whole number with an optional "
                                     "K, M or G (1024-based), e.g. 100M",
                                     p.node.name(), p.text, what));
        return *v;
    }
    Time time(const Param& p) const {
        std::string s = p.text;
        if (!s.empty() && std::isdigit(static_cast<unsigned char>(s.back()))) s += "s";
        try {
            return parse_time(s);
        } catch (const UnitError&) {
            fail(p.node, fmt::format("<{}> '{}': expected a time such as 0.0002s or 1ms",
                                     p.node.name(), p.text));
        }
    }

    // ---- the parts -----------------------------------------------------------------------------
    struct Endpoint {
        std::string vertex;
    };
    struct Link {
        std::string from_id, to_id, from, to;
        Time latency;
        std::uint64_t bandwidth = 0;
        pugi::xml_node node;
    };
    struct NodeType {
        std::string name;
        std::uint64_t cores = 1, speed = 0, memory = 0, internal = 0;
        bool nic = false;
    };

    // The next free suffix of each base is remembered: 20,000 nodes of one name used to try
    // every suffix from _2 up for each (quadratic, > 30 s).
    std::string unique(const std::string& base) {
        const std::string m = model_name(base);
        std::string n = m;
        std::uint64_t& k = next_suffix_[m];
        if (k == 0) k = 2;
        while (!names_.insert(n).second) n = m + "_" + std::to_string(k++);
        return n;
    }
    std::map<std::string, std::uint64_t> next_suffix_;
    void connection(pugi::xml_node owner, const std::string& owner_id, const std::string& vertex);
    void node(pugi::xml_node n);
    // internal: the node's InternalDataTransferSpeed in bytes/s (0: none given)
    void server(pugi::xml_node s, const std::string& node_name, std::uint64_t internal);
    void switch_(pugi::xml_node s);
    void settings(pugi::xml_node g);
    // The steps of run(), in order.
    void read_templates(pugi::xml_node project);
    pugi::xml_node read_project(pugi::xml_node project, std::vector<std::string>& applications);
    topo::XmlElement connect();
    std::string routing_rule(pugi::xml_node project);
    std::string emit(const std::string& routing, const topo::XmlElement& cables);
    std::string placement(const std::vector<std::string>& applications);

    XmlFile file_;  // the model, with line numbers
    std::string path_;
    PiosimhdOptions options_;
    std::map<std::pair<std::string, std::string>, pugi::xml_node> templates_;  // (kind, name)

    struct Unmapped {
        int line;
        std::string what, why;
        int count;
    };
    std::vector<Unmapped> unmapped_;
    std::map<std::string, std::size_t> unmapped_index_;

    std::set<std::string> names_;                   // nodes and switches
    std::map<std::string, std::string> id_vertex_;  // NIC / port id -> vertex name
    std::vector<Link> links_;
    std::vector<NodeType> types_;
    std::vector<std::pair<std::string, std::size_t>> nodes_;  // name, type index
    std::vector<topo::XmlElement> switches_;                  // <switch>
    std::vector<topo::XmlElement> servers_;                   // <io-server>
    std::set<std::string> routing_;                           // packet routing classes
    struct Client {
        std::int64_t rank;
        std::string application, node;
        std::uint64_t cores;
        pugi::xml_node at;
    };
    std::vector<Client> clients_;
    std::optional<std::uint64_t> granularity_, eager_threshold_;   // <network>
    std::vector<std::pair<std::string, std::string>> algorithms_;  // operation, name
    std::uint64_t io_granularity_ = 0;
    pugi::xml_node io_granularity_at_;
};

void PiosimhdImporter::connection(pugi::xml_node owner, const std::string& owner_id,
                                  const std::string& vertex) {
    const auto conns = components(owner, "Connection");
    if (conns.empty()) return;
    if (conns.size() > 1)
        unmapped(conns[1], "second <Connection> of a NIC or port",
                 "a NIC or port has one connection");
    const pugi::xml_node c = conns[0];
    const pugi::xml_attribute to = c.attribute("to");
    if (!to) return;  // an unconnected port
    Link l;
    l.from_id = owner_id;
    l.to_id = to.as_string();
    l.from = vertex;
    l.node = c;
    if (const auto p = param(c, "Latency")) {
        l.latency = time(*p);
    } else {
        unmapped(c, "<Connection> without <Latency>", "taken as 0s");
    }
    if (const auto p = param(c, "Bandwidth")) l.bandwidth = value(*p, "bytes per second");
    if (l.bandwidth == 0) fail(c, "<Connection> needs a non-zero <Bandwidth>");
    unknown_params(c, {"latency", "bandwidth"}, "Connection");
    links_.push_back(std::move(l));
}

void PiosimhdImporter::node(pugi::xml_node n) {
    const std::string name =
        unique(n.attribute("name") ? n.attribute("name").as_string()
                                   : fmt::format("node{}", n.attribute("id").as_string()));
    NodeType t;
    if (const auto p = param(n, "CPUs")) {
        t.cores = value(*p, "a number of CPUs");
        // The model's <socket cores> is 32-bit: refuse here what validate would refuse later.
        if (t.cores > UINT32_MAX)
            fail(p->node, fmt::format("<CPUs> {}: at most {} cores per node", t.cores,
                                      std::uint32_t{UINT32_MAX}));
    } else {
        unmapped(n, "<Node> without <CPUs>", "one core assumed");
    }
    if (t.cores == 0) fail(n, "<CPUs> must be at least 1");
    if (const auto p = param(n, "InstructionsPerSecond")) t.speed = value(*p, "instructions");
    if (t.speed == 0) {
        unmapped(n, "<Node> without <InstructionsPerSecond>", "1G instructions/s assumed");
        t.speed = 1'000'000'000;
    }
    if (const auto p = param(n, "MemorySize")) {
        t.memory = value(*p, "a size");
    } else {
        unmapped(n, "<Node> without <MemorySize>", "0 B assumed");
    }
    if (const auto p = param(n, "InternalDataTransferSpeed")) t.internal = value(*p, "bytes/s");
    if (t.internal == 0)
        unmapped(n, "<Node> without <InternalDataTransferSpeed>",
                 "the node's internal links get 1000GB/s (effectively unlimited)");
    unknown_params(n, {"cpus", "instructionspersecond", "memorysize", "internaldatatransferspeed"},
                   "Node");
    const auto nics = components(n, "NIC");
    t.nic = !nics.empty();
    for (std::size_t i = 1; i < nics.size(); ++i)
        unmapped(nics[i], fmt::format("NIC {} of node {}", i + 1, name),
                 "a clustersim node has at most one NIC");

    // The node-type: one per distinct parameter set, named after the PIOsimHD template.
    const std::string base =
        n.attribute("template") ? n.attribute("template").as_string() : std::string("node");
    std::size_t ti = types_.size();
    for (std::size_t i = 0; i < types_.size(); ++i) {
        const NodeType& o = types_[i];
        if (o.cores == t.cores && o.speed == t.speed && o.memory == t.memory &&
            o.internal == t.internal && o.nic == t.nic)
            ti = i;
    }
    if (ti == types_.size()) {
        std::string tn = model_name(base);
        for (int k = 2; std::any_of(types_.begin(), types_.end(),
                                    [&](const NodeType& o) { return o.name == tn; });
             ++k)
            tn = model_name(base) + "_" + std::to_string(k);
        t.name = tn;
        types_.push_back(t);
    }
    nodes_.emplace_back(name, ti);

    if (t.nic) {
        const std::string id = nics[0].attribute("id").as_string();
        const std::string vertex = name + ".nic";
        if (!id.empty()) id_vertex_[id] = vertex;
        connection(nics[0], id, vertex);
    }
    const auto servers = components(n, "Server");
    for (std::size_t i = 0; i < servers.size(); ++i) {
        if (i > 0) {
            unmapped(servers[i], fmt::format("second <Server> on node {}", name),
                     "clustersim runs at most one I/O server per node");
            continue;
        }
        server(servers[i], name, t.internal);
    }
    for (pugi::xml_node c : components(n, "ClientProcess")) {
        const auto rank = c.attribute("rank");
        if (!rank) fail(c, "<ClientProcess> needs attribute 'rank'");
        clients_.push_back(
            Client{rank.as_llong(-1), c.attribute("application").as_string(), name, t.cores, c});
        if (c.attribute("thread").as_llong(0) != 0)
            unmapped(c, "<ClientProcess> thread other than 0",
                     "one process per rank; the map places thread 0");
    }
}

void PiosimhdImporter::server(pugi::xml_node s, const std::string& node_name,
                              std::uint64_t internal) {
    const auto disks = components(s, "IOSubsystem");
    if (disks.empty()) {
        unmapped(s, fmt::format("<Server> on node {}", node_name),
                 "it has no <IOSubsystem> (a clustersim server needs a disk)");
        return;
    }
    const pugi::xml_node d = disks[0];
    const std::string dclass = kind_of(d).second;
    topo::XmlElement disk("disk");
    if (dclass == "RefinedDiskModel") {
        auto need = [&](const char* name) {
            const auto p = param(d, name);
            if (!p) fail(d, fmt::format("RefinedDiskModel needs <{}>", name));
            return *p;
        };
        const std::uint64_t rate = value(need("SequentialTransferRate"), "bytes per second");
        if (rate == 0) fail(d, "<SequentialTransferRate> must not be 0");
        disk.text("model", "hdd")
            .bandwidth("rate", Bandwidth{rate})
            .time("average-seek", time(need("AverageSeekTime")))
            .time("track-to-track", time(need("TrackToTrackSeekTime")))
            .count("rpm", value(need("RPM"), "rotations"))
            .size("close", value(need("PositionDifferenceConsideredToBeClose"), "bytes"));
        unknown_params(d,
                       {"sequentialtransferrate", "averageseektime", "tracktotrackseektime", "rpm",
                        "positiondifferenceconsideredtobeclose", "maxconcurrentrequests"},
                       "RefinedDiskModel");
    } else if (param(d, "AvgAccessTime") && param(d, "MaxThroughput")) {
        // The original IOSubsystem and SimpleDisk: access time, then the throughput.
        const std::uint64_t rate = value(*param(d, "MaxThroughput"), "bytes per second");
        if (rate == 0) fail(d, "<MaxThroughput> must not be 0");
        disk.text("model", "simple")
            .time("latency", time(*param(d, "AvgAccessTime")))
            .bandwidth("rate", Bandwidth{rate});
        unknown_params(d, {"avgaccesstime", "maxthroughput", "maxconcurrentrequests"}, dclass);
    } else {
        unmapped(d, fmt::format("I/O subsystem {} of the server on node {}", dclass, node_name),
                 "no clustersim disk model matches it (RefinedDiskModel -> hdd; AvgAccessTime + "
                 "MaxThroughput -> simple); the server is left out");
        return;
    }
    if (const auto p = param(d, "MaxConcurrentRequests"); p && value(*p, "a count") != 1)
        unmapped(p->node, fmt::format("<MaxConcurrentRequests> {}", p->text),
                 "clustersim disks serve one request at a time");

    topo::XmlElement cache("cache");
    cache.text("model", "none");
    const auto caches = components(s, "ServerCacheLayer");
    if (!caches.empty()) {
        const pugi::xml_node c = caches[0];
        const std::string cclass = kind_of(c).second;
        // PIOsimHD's AggregationCache and AggregationReorderCache extend its
        // SimpleWriteBehindCache: writes complete in server memory and are flushed merged,
        // which is clustersim's write_behind (it merges contiguous dirty data on flush).
        static const std::map<std::string, std::string> models = {
            {"NoCache", "none"},
            {"AggregationCache", "write_behind"},
            {"AggregationReorderCache", "write_behind"},
            {"SimpleWriteBehindCache", "write_behind"},
            {"ServerDirectedIO", "reorder"}};
        const auto it = models.find(cclass);
        if (it == models.end()) {
            unmapped(c, fmt::format("cache layer {}", cclass),
                     "no clustersim cache layer matches it; 'none' is used");
        } else {
            cache.text("model", it->second);
            // --file-system pvfs2: Trove's write of each received flow buffer is a copy
            // into the page cache at the node's memory speed (see the constants above).
            if (options_.pvfs2 && it->second == "write_behind" && internal != 0)
                cache.bandwidth("copy-rate", Bandwidth{internal});
            if (cclass == "ServerDirectedIO")
                unmapped(c, "cache layer ServerDirectedIO",
                         "mapped to 'reorder', the clustersim layer that sorts and merges "
                         "requests by file offset");
            if (cclass == "AggregationReorderCache")
                unmapped(c, "cache layer AggregationReorderCache",
                         "mapped to 'write_behind' (write-back, merged flushes); its flushes "
                         "are in write order, not sorted by offset");
        }
        if (const auto p = param(c, "MaxNumberOfConcurrentIOOps"); p && value(*p, "a count") != 1)
            unmapped(p->node, fmt::format("<MaxNumberOfConcurrentIOOps> {}", p->text),
                     "clustersim cache layers keep one disk request in flight");
        if (const auto p = param(c, "ReadDataSievingMaxHoleSizeToCombine"))
            unmapped(p->node, fmt::format("<ReadDataSievingMaxHoleSizeToCombine> {}", p->text),
                     "clustersim layers merge only contiguous requests (no data sieving over "
                     "holes)");
        unknown_params(c, {"maxnumberofconcurrentioops", "readdatasievingmaxholesizetocombine"},
                       cclass);
    }
    topo::XmlElement server("io-server");
    server.text("node", node_name);
    server.adopt(std::move(cache));
    server.adopt(std::move(disk));
    servers_.push_back(std::move(server));
}

void PiosimhdImporter::switch_(pugi::xml_node s) {
    const std::string name =
        unique(s.attribute("name") ? s.attribute("name").as_string()
                                   : fmt::format("switch{}", s.attribute("id").as_string()));
    const std::string sclass = kind_of(s).second;
    Bandwidth relay;  // 0: unlimited
    if (const auto p = param(s, "TotalBandwidth")) {
        relay = Bandwidth{value(*p, "bytes per second")};
    } else {
        unmapped(s, fmt::format("{} {} without <TotalBandwidth>", sclass, name),
                 "the switch relays without limit");
    }
    if (sclass != "SimpleSwitch")
        unmapped(s, fmt::format("switch class {}", sclass),
                 "modelled as a store-and-forward switch with the TotalBandwidth relay rate");
    unknown_params(s, {"totalbandwidth"}, sclass);
    for (pugi::xml_node r : components(s, "PaketRoutingAlgorithm"))
        routing_.insert(kind_of(r).second);
    topo::XmlElement sw("switch");
    sw.text("name", name).bandwidth_if_limited("bandwidth", relay);
    switches_.push_back(std::move(sw));
    for (pugi::xml_node port : components(s, "Port")) {
        const std::string id = port.attribute("id").as_string();
        if (!id.empty()) id_vertex_[id] = name;
        connection(port, id, name);
    }
}

void PiosimhdImporter::settings(pugi::xml_node g) {
    if (const auto p = param(g, "TransferGranularity")) granularity_ = value(*p, "bytes");
    if (const auto p = param(g, "MaxEagerSendSize")) eager_threshold_ = value(*p, "bytes");
    if (const auto p = param(g, "IOGranularity")) {
        io_granularity_ = value(*p, "bytes");
        io_granularity_at_ = p->node;
    }
    unknown_params(g, {"transfergranularity", "maxeagersendsize", "iogranularity", "clientmethod"},
                   "GlobalSettings");
    // Client methods: PIOsimHD's algorithm per MPI call, where clustersim has the same one.
    static const std::map<std::string, std::pair<std::string, std::string>> algorithms = {
        {"barrier/VirtualSync", {"barrier", "virtual"}},
        {"barrier/BinaryTree", {"barrier", "binary_tree"}},
        {"bcast/BinaryTree", {"bcast", "binary_tree"}},
        {"reduce/BinaryTree", {"reduce", "binary_tree"}}};
    for (pugi::xml_node m : g.children()) {
        if (m.type() != pugi::node_element || !same(m.name(), "ClientMethod")) continue;
        const std::string op = m.attribute("name").as_string();
        std::string cls(trim(m.text().as_string()));
        cls = cls.substr(cls.rfind('.') == std::string::npos ? 0 : cls.rfind('.') + 1);
        const std::string key = ascii_lower(op) + "/" + cls;
        const auto it = algorithms.find(key);
        const std::string what = fmt::format("<ClientMethod name=\"{}\"> {}", op, cls);
        if (it != algorithms.end()) {
            algorithms_.push_back(it->second);
        } else if (key == "wait/Blocking" || key == "compute/Time") {
            // clustersim's own behaviour: a blocking wait, compute bursts given as times
        } else if (cls.rfind("Rendezvous", 0) == 0) {
            unmapped(m, what,
                     "clustersim sends eagerly up to the eager-threshold (MaxEagerSendSize) and "
                     "with rendezvous above; there is no always-rendezvous choice");
        } else if (ascii_lower(op).rfind("file", 0) == 0) {
            unmapped(m, what, "clustersim's file I/O protocol is fixed (iosys/README.md)");
        } else {
            unmapped(m, what,
                     fmt::format("clustersim has no such {} algorithm; its default selection is "
                                 "used",
                                 ascii_lower(op)));
        }
    }
}

ImportResult PiosimhdImporter::run() {
    const pugi::xml_node project = file_.doc().document_element();
    if (!same(project.name(), "Project"))
        fail(project,
             fmt::format("expected a PIOsimHD model: root <Project>, found <{}>", project.name()));
    read_templates(project);
    std::vector<std::string> applications;
    const pugi::xml_node component_list = read_project(project, applications);
    if (!component_list) fail(project, "the model has no <ComponentList>");
    std::vector<pugi::xml_node> nodes, switches;
    collect(component_list, "Node", nodes);
    collect(component_list, "Switch", switches);
    if (nodes.empty()) fail(component_list, "the <ComponentList> has no nodes");
    for (pugi::xml_node n : nodes) node(n);
    for (pugi::xml_node s : switches) switch_(s);
    const topo::XmlElement cables = connect();
    const std::string routing = routing_rule(project);
    ImportResult result;
    result.xml = emit(routing, cables);
    result.placement_map = placement(applications);
    for (const Unmapped& u : unmapped_)
        result.unmapped.push_back(
            fmt::format("{}:{}: {} not mapped: {}{}", path_, u.line, u.what, u.why,
                        u.count > 1 ? fmt::format(" ({} times, first here)", u.count) : ""));
    return result;
}

// The templates by (kind, name); a template that derives from itself is refused.
void PiosimhdImporter::read_templates(pugi::xml_node project) {
    for (pugi::xml_node c : project.children()) {
        if (c.type() != pugi::node_element) continue;
        if (same(c.name(), "Templates")) {
            for (pugi::xml_node t : c.children())
                if (is_component(t))
                    templates_[{ascii_lower(kind_of(t).first), t.attribute("name").as_string()}] =
                        t;
        }
    }
    // A template that derives from itself (directly or through others) made the parameter
    // lookups loop for ever: refuse the cycle where it closes.
    for (const auto& [key, t] : templates_) {
        std::vector<pugi::xml_node> chain{t};
        for (pugi::xml_node m = template_of(t); m; m = template_of(m)) {
            if (std::find(chain.begin(), chain.end(), m) != chain.end()) {
                std::string names;
                for (pugi::xml_node c : chain)
                    names += std::string(c.attribute("name").as_string()) + " -> ";
                fail(chain.back(), fmt::format("template '{}' derives from itself ({}{})",
                                               key.second, names, m.attribute("name").as_string()));
            }
            chain.push_back(m);
        }
    }
}

// The global settings and the application list read; the <ComponentList> returned.
pugi::xml_node PiosimhdImporter::read_project(pugi::xml_node project,
                                              std::vector<std::string>& applications) {
    pugi::xml_node component_list;
    for (pugi::xml_node c : project.children()) {
        if (c.type() != pugi::node_element) continue;
        if (same(c.name(), "GlobalSettings")) {
            settings(c);
        } else if (same(c.name(), "ApplicationList")) {
            for (pugi::xml_node a : c.children()) {
                if (a.type() != pugi::node_element) continue;
                applications.push_back(a.attribute("alias").as_string());
                unmapped(
                    a,
                    fmt::format("<Application alias=\"{}\" file=\"{}\">",
                                a.attribute("alias").as_string(), a.attribute("file").as_string()),
                    "applications are not part of a cluster model: replay their traces on "
                    "the imported model");
            }
        } else if (same(c.name(), "ComponentList")) {
            component_list = c;
        } else if (!same(c.name(), "Templates")) {
            unmapped(c, fmt::format("<{}>", c.name()), "the importer does not know it");
        }
    }
    return component_list;
}

// Connections: each is declared on both ends (NIC -> port, port -> NIC); one cable per pair, or
// two one-way edges if the two ends disagree. The cables are held until the model is written.
topo::XmlElement PiosimhdImporter::connect() {
    std::map<std::pair<std::string, std::string>, std::size_t> first;
    std::vector<bool> done(links_.size(), false);
    for (std::size_t i = 0; i < links_.size(); ++i) {
        Link& l = links_[i];
        const auto it = id_vertex_.find(l.to_id);
        if (it == id_vertex_.end()) {
            unmapped(l.node, fmt::format("<Connection to=\"{}\">", l.to_id),
                     "no NIC or port has that id");
            done[i] = true;
            continue;
        }
        l.to = it->second;
        if (l.to == l.from) {
            unmapped(l.node,
                     fmt::format("<Connection to=\"{}\"> from {} to itself", l.to_id, l.from),
                     "a cable needs two different vertices");
            done[i] = true;
            continue;
        }
        first.emplace(std::make_pair(l.from_id, l.to_id), i);
    }
    topo::XmlElement cables("cables");  // holds them until the model is written
    auto cable = [&](const char* elem, const Link& l) {
        cables.add_link(elem, l.from, l.to, l.latency, Bandwidth{l.bandwidth});
    };
    for (std::size_t i = 0; i < links_.size(); ++i) {
        if (done[i]) continue;
        done[i] = true;
        const Link& l = links_[i];
        const auto back = first.find({l.to_id, l.from_id});
        if (back == first.end() || done[back->second]) {
            cable("cable", l);
            continue;
        }
        const Link& b = links_[back->second];
        done[back->second] = true;
        if (b.latency == l.latency && b.bandwidth == l.bandwidth) {
            cable("cable", l);
        } else {
            cable("edge", l);
            cable("edge", b);
        }
    }
    return cables;
}

// Routing: PaketFirstRoute takes the first shortest route, PaketRoundRobinRoute rotates.
std::string PiosimhdImporter::routing_rule(pugi::xml_node project) {
    std::string routing = "shortest_path";
    if (routing_.size() == 1 && *routing_.begin() == "PaketRoundRobinRoute")
        routing = "round_robin";
    for (const auto& r : routing_)
        if (r != "PaketFirstRoute" && r != "PaketRoundRobinRoute")
            unmapped(project, fmt::format("packet routing {}", r),
                     "clustersim routes by fewest hops (shortest_path)");
    if (routing_.size() > 1)
        unmapped(project, "switches with different packet routing algorithms",
                 "clustersim has one routing rule per model; shortest_path is used");
    return routing;
}

// The model document.
std::string PiosimhdImporter::emit(const std::string& routing, const topo::XmlElement& cables) {
    topo::ModelDocument doc(model_name(fs::path(path_).stem().string()));
    doc.add_comment(
        fmt::format("Imported from the PIOsimHD model {} by clustersim import "
                    "piosimhd. PIOsimHD's K, M, G are 1024-based.",
                    fs::path(path_).filename().string()));
    if (options_.pvfs2 && !servers_.empty())
        doc.add_comment(
            "Import option file-system pvfs2: PVFS2's request path with its documented defaults "
            "(handshake: request, response, flow, completion ack; small-io 16KiB = "
            "PINT_SMALL_IO_MAXSIZE; open-requests 1 = ROMIO ad_pvfs2_open's lookup; "
            "open-collectives = ROMIO's broadcast of the handle and allreduce in the open; "
            "connect-round-trips 1 = BMI's TCP connect (SYN, SYN-ACK) on a client's first "
            "message to a server; "
            "write_behind copy-rate = the node's InternalDataTransferSpeed: Trove's write of "
            "each received flow buffer into the page cache); PIOsimHD models none of it.");
    if (options_.mpi_sock)
        doc.add_comment(
            "Import option mpi-channel sock: MPICH2's ch3:sock channel connects two ranks on "
            "their first message (TCP's SYN and SYN-ACK, then the channel's open request and "
            "open response): 2 round trips through the network first.");
    topo::XmlElement& cluster = doc.cluster();
    topo::XmlElement& network = cluster.add_network().text("routing", routing);
    if (granularity_) network.size("granularity", *granularity_);
    if (eager_threshold_) network.size("eager-threshold", *eager_threshold_);
    if (!algorithms_.empty()) {
        topo::XmlElement& collectives = cluster.add_collectives();
        for (const auto& [operation, name] : algorithms_)
            collectives.add_algorithm(operation, name);
    }
    if (options_.mpi_sock) cluster.add("mpi-overhead").add("connect").count("round-trips", 2);
    for (const NodeType& t : types_) {
        const Bandwidth in{t.internal == 0 ? 1'000'000'000'000ULL : t.internal};
        topo::XmlElement& type = cluster.add_node_type(t.name, t.memory);
        type.add_socket("s0", t.cores, t.speed);
        type.add_memory_node("mem0").bandwidth("bandwidth", in).bandwidth("local-bandwidth", in);
        type.add_cable("s0", "mem0", Time{}, in);
        if (t.nic) {
            type.add_nic("nic");
            type.add_cable("mem0", "nic", Time{}, in);
        }
    }
    for (const auto& [name, ti] : nodes_) cluster.add_node(name, types_[ti].name);
    for (auto& s : switches_) cluster.adopt(std::move(s));
    for (const topo::XmlElement& c : cables.children()) cluster.adopt(c);
    for (auto& s : servers_) cluster.adopt(std::move(s));
    if (!servers_.empty()) {
        topo::XmlElement& fs_element = cluster.add_file_system();
        if (io_granularity_ != 0) fs_element.size("granularity", io_granularity_);
        if (options_.pvfs2)
            fs_element.text("handshake", "yes")
                .size("small-io", kPvfs2SmallIo)
                .count("open-requests", 1)
                .text("open-collectives", "yes")
                .count("connect-round-trips", 1);
    } else if (io_granularity_ != 0) {
        unmapped(io_granularity_at_, "<IOGranularity>", "the model has no I/O servers");
    }
    return doc.str();
}

// The placement map of the first application's client processes (empty without any).
std::string PiosimhdImporter::placement(const std::vector<std::string>& applications) {
    std::string app = applications.empty() ? "" : applications.front();
    if (app.empty() && !clients_.empty()) app = clients_.front().application;
    std::vector<Client> mine;
    std::set<std::string> others;
    for (const Client& c : clients_) {
        if (c.application == app) {
            mine.push_back(c);
        } else {
            others.insert(c.application);
        }
    }
    for (const auto& o : others)
        for (const Client& c : clients_)
            if (c.application == o) {
                unmapped(c.at, fmt::format("client processes of application '{}'", o),
                         fmt::format("the placement map holds one application ('{}')", app));
                break;
            }
    if (mine.empty()) return {};
    std::stable_sort(mine.begin(), mine.end(),
                     [](const Client& a, const Client& b) { return a.rank < b.rank; });
    std::map<std::string, std::uint64_t> per_node;
    std::string map = fmt::format(
        "# clustersim placement map imported from {}: application '{}', {} ranks\n"
        "# RANK NODE SOCKET CORE\n",
        fs::path(path_).filename().string(), app, mine.size());
    std::set<std::int64_t> placed;
    for (const Client& c : mine) {
        if (c.rank < 0 || !placed.insert(c.rank).second) {
            unmapped(c.at, fmt::format("<ClientProcess rank=\"{}\">", c.rank),
                     "a rank is placed once (and is not negative)");
            continue;
        }
        const std::uint64_t k = per_node[c.node]++;
        map += fmt::format("{} {} 0 {}\n", c.rank, c.node, k % c.cores);
    }
    unmapped(
        mine.front().at,
        fmt::format("<ClientProcess> placement ({} ranks of application '{}')", mine.size(), app),
        "rank placement is a run option, not part of the model: the import writes it "
        "as a placement map (--placement-out FILE, then run with --placement map:FILE)");
    return map;
}

}  // namespace

ImportResult import_piosimhd(const std::string& path, const PiosimhdOptions& options) {
    PiosimhdImporter im(path, options);
    return im.run();
}

}  // namespace clustersim::traces
