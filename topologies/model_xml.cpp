#include "topologies/model_xml.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "simulator/error.hpp"
#include "simulator/units.hpp"
#include "topologies/generators.hpp"
#include "topologies/nic_models.hpp"

namespace clustersim::topo {
namespace {

using Attrs = std::initializer_list<std::string_view>;

constexpr std::array<std::string_view, 18> kTopLevel{
    "network",     "collectives", "node-type", "node",         "nodes",      "switch",
    "memory-node", "cable",       "edge",      "star",         "fat-tree",   "torus",
    "dragonfly",   "file-system", "io-server", "io-forwarder", "comm-model", "mpi-overhead"};
constexpr std::array<std::string_view, 3> kOverheadChildren{"send", "recv", "post"};
constexpr std::array<std::string_view, 2> kIoServerChildren{"cache", "disk"};
constexpr std::array<std::string_view, 7> kTypeChildren{"socket", "memory-node", "switch", "nic",
                                                        "cable",  "edge",        "jitter"};
constexpr std::array<std::string_view, 3> kCommChildren{"node-type", "collective",
                                                        "point-to-point"};

template <class Names>
std::string join(const Names& names) {
    std::string s;
    for (std::string_view n : names) {
        if (!s.empty()) s += ", ";
        s += n;
    }
    return s;
}

template <class Names>
bool contains(const Names& names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

// Reads one model document. Pass 1: <network>, <collectives>, <node-type>, then <comm-model>
// (it names node-types); pass 2: the elements that declare vertices and nodes, in document
// order; pass 3: top-level <cable> and <edge>, so a cable may name a vertex declared anywhere
// in the file; pass 4: the parallel I/O elements (<io-server>, <io-forwarder>,
// <file-system>), which name nodes declared anywhere.
class Reader {
  public:
    Reader(std::string_view xml, const std::string& file) : text_(xml), file_(file), mb_(tb_) {
        for (std::size_t i = 0; i < text_.size(); ++i)
            if (text_[i] == '\n') newlines_.push_back(i);
    }

    Topology read();

  private:
    // ---- locations and errors --------------------------------------------------------
    int line_at(std::ptrdiff_t offset) const {
        if (offset < 0) return 0;
        const auto it =
            std::lower_bound(newlines_.begin(), newlines_.end(), static_cast<std::size_t>(offset));
        return static_cast<int>(it - newlines_.begin()) + 1;
    }
    int line_of(pugi::xml_node n) const {
        std::ptrdiff_t off = n.offset_debug();
        if (off >= 0 && (n.type() == pugi::node_pcdata || n.type() == pugi::node_cdata)) {
            // Text starts with the white space after the previous tag: point at the text.
            while (static_cast<std::size_t>(off) < text_.size() &&
                   std::isspace(static_cast<unsigned char>(text_[off])))
                ++off;
        }
        return line_at(off);
    }
    [[noreturn]] void fail(pugi::xml_node n, const std::string& what) const {
        throw InputError(file_, line_of(n), what);
    }
    static std::string tag(pugi::xml_node n) { return fmt::format("<{}>", n.name()); }

    // ---- attributes ------------------------------------------------------------------
    void check_attributes(pugi::xml_node n, Attrs allowed) const {
        for (pugi::xml_attribute a = n.first_attribute(); a; a = a.next_attribute()) {
            if (!contains(allowed, a.name())) {
                fail(n, fmt::format("{} has unknown attribute '{}'; valid attributes: {}", tag(n),
                                    a.name(), join(allowed)));
            }
        }
        check_unique_attributes(n);
    }
    // Linear in the attributes (pairwise comparison took 15 s for 50,000 on one <disk>).
    void check_unique_attributes(pugi::xml_node n) const {
        std::unordered_set<std::string_view> seen;
        for (pugi::xml_attribute a = n.first_attribute(); a; a = a.next_attribute())
            if (!seen.insert(a.name()).second)
                fail(n, fmt::format("{} has attribute '{}' twice", tag(n), a.name()));
    }
    // An element that takes attributes only.
    void check_empty(pugi::xml_node n) const {
        if (const pugi::xml_node c = n.first_child()) {
            fail(c, fmt::format("unexpected content in {}; expected an empty element (attributes "
                                "only)",
                                tag(n)));
        }
    }
    std::optional<std::string_view> optional(pugi::xml_node n, const char* name) const {
        const pugi::xml_attribute a = n.attribute(name);
        if (!a) return std::nullopt;
        return std::string_view(a.value());
    }
    std::string_view required(pugi::xml_node n, const char* name) const {
        const pugi::xml_attribute a = n.attribute(name);
        if (!a) fail(n, fmt::format("{} is missing required attribute '{}'", tag(n), name));
        return a.value();
    }
    // A name: non-empty, without '.', ',' or white space ('.' separates node and vertex).
    std::string name_attr(pugi::xml_node n, const char* attr) const {
        const std::string_view v = required(n, attr);
        return checked_name(n, attr, v);
    }
    std::string checked_name(pugi::xml_node n, const char* attr, std::string_view v) const {
        if (v.empty()) fail(n, fmt::format("{} attribute '{}' must not be empty", tag(n), attr));
        for (char c : v) {
            if (c == '.' || c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                fail(n, fmt::format("{} attribute '{}': '{}' is not a valid name; expected a "
                                    "name without '.', ',' or spaces ('.' joins a node and "
                                    "its vertices)",
                                    tag(n), attr, v));
            }
        }
        return std::string(v);
    }
    template <class Parse>
    auto with_unit(pugi::xml_node n, const char* attr, std::string_view v, Parse parse) const {
        try {
            return parse(v);
        } catch (const UnitError& e) {
            fail(n, fmt::format("{} attribute '{}': {}", tag(n), attr, e.what()));
        }
    }
    Time time_attr(pugi::xml_node n, const char* attr) const {
        return with_unit(n, attr, required(n, attr), parse_time);
    }
    Bandwidth bandwidth_attr(pugi::xml_node n, const char* attr) const {
        return with_unit(n, attr, required(n, attr), parse_bandwidth);
    }
    Bandwidth optional_bandwidth(pugi::xml_node n, const char* attr) const {
        const auto v = optional(n, attr);
        return v ? with_unit(n, attr, *v, parse_bandwidth) : kInfiniteBandwidth;
    }
    std::uint64_t count_attr(pugi::xml_node n, const char* attr, std::string_view v,
                             const char* what) const {
        const std::uint64_t c = with_unit(n, attr, v, parse_count);
        if (c == 0) {
            fail(n, fmt::format("{} attribute '{}': expected at least 1 {}, got 0", tag(n), attr,
                                what));
        }
        return c;
    }
    std::uint64_t count_attr(pugi::xml_node n, const char* attr, const char* what) const {
        return count_attr(n, attr, required(n, attr), what);
    }
    // "4,4,2": positive whole numbers separated by commas.
    std::vector<std::uint64_t> list_attr(pugi::xml_node n, const char* attr,
                                         std::string_view v) const {
        std::vector<std::uint64_t> out;
        auto bad = [&] {
            fail(n, fmt::format("{} attribute '{}': '{}' is not valid; expected a comma-separated "
                                "list of positive whole numbers (e.g. 4,4)",
                                tag(n), attr, v));
        };
        std::size_t start = 0;
        while (true) {
            const std::size_t comma = v.find(',', start);
            const std::string_view item =
                v.substr(start, comma == std::string_view::npos ? v.npos : comma - start);
            std::uint64_t x = 0;
            try {
                x = parse_count(item);
            } catch (const UnitError&) {
                bad();
            }
            if (x == 0) bad();
            out.push_back(x);
            if (comma == std::string_view::npos) break;
            start = comma + 1;
        }
        return out;
    }
    std::uint64_t granularity_attr(pugi::xml_node n, std::string_view v) const {
        if (v == "message") return 0;
        const std::uint64_t g = with_unit(n, "granularity", v, [](std::string_view s) {
            try {
                return parse_size(s);
            } catch (const UnitError& e) {
                throw UnitError(std::string(e.what()) + ", or 'message' for whole messages");
            }
        });
        if (g == 0) {
            fail(n, fmt::format("{} attribute 'granularity': expected a positive size, or "
                                "'message' for whole-message transfers",
                                tag(n)));
        }
        return g;
    }
    NicModel nic_attr(pugi::xml_node n, std::string_view v) const {
        try {
            return nic_models().select(v);
        } catch (const std::invalid_argument& e) {
            fail(n, fmt::format("{} attribute 'nic': {}", tag(n), e.what()));
        }
    }

    // ---- elements --------------------------------------------------------------------
    void read_network(pugi::xml_node n);
    // forwarding="NAME[:key=value,...]" (topologies/forwarding.hpp), kForwardingUnset when
    // absent.
    Forwarding forwarding_attr(pugi::xml_node n) const {
        const auto v = optional(n, "forwarding");
        if (!v) return kForwardingUnset;
        try {
            return forwarding_models().select(*v);
        } catch (const std::invalid_argument& e) {
            fail(n, fmt::format("{} attribute 'forwarding': {}", tag(n), e.what()));
        }
    }
    void read_collectives(pugi::xml_node n);
    void read_mpi_overhead(pugi::xml_node n);
    OverheadSpec read_overhead(pugi::xml_node n) const;
    // ---- <comm-model> (end of pass 1: its <node-type> entries name declared node-types) --
    void read_comm_model(pugi::xml_node n);
    void read_comm_node_type(pugi::xml_node n, CommModelSpec& spec) const;
    void read_comm_collective(pugi::xml_node n, CommModelSpec& spec) const;
    void read_comm_p2p(pugi::xml_node n, CommModelSpec& spec) const;
    std::vector<std::pair<std::uint64_t, Bandwidth>> read_points(pugi::xml_node n,
                                                                 const char* parent) const;
    // A bandwidth the analytic models divide by: finite and positive. parse_bandwidth already
    // rejects zero with a unit; a bare 0 and the words for unlimited get their own message.
    Bandwidth finite_bandwidth(pugi::xml_node n, const char* attr, std::string_view v) const {
        std::string word(v);
        std::transform(word.begin(), word.end(), word.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        const bool zero = !word.empty() && word.find_first_not_of("0.") == std::string::npos &&
                          word.find('0') != std::string::npos;
        if (zero || word == "unlimited" || word == "infinite" || word == "infinity" ||
            word == "inf") {
            fail(n, fmt::format("{} attribute '{}': '{}' is not valid; expected a finite positive "
                                "bandwidth (e.g. 1.25GB/s)",
                                tag(n), attr, v));
        }
        return with_unit(n, attr, v, parse_bandwidth);
    }
    // A count of at least 1 that fits 32 bits (`what` names one of them in the error).
    std::uint32_t count32_attr(pugi::xml_node n, const char* attr, std::string_view v,
                               const char* what) const {
        const std::uint64_t c = count_attr(n, attr, v, what);
        if (c > UINT32_MAX)
            fail(n, fmt::format("{} attribute '{}': {} is too many", tag(n), attr, c));
        return static_cast<std::uint32_t>(c);
    }
    void read_node_type(pugi::xml_node n);
    void read_type_vertex(pugi::xml_node n, NodeTemplate& t);
    void read_type_edge(pugi::xml_node n, NodeTemplate& t);
    void read_jitter(pugi::xml_node n, const NodeTemplate& t);
    const NodeTemplate& type_attr(pugi::xml_node n) const;
    void read_vertex(pugi::xml_node n);
    void read_edge(pugi::xml_node n);
    // wiring="clustersim" (default) or "simgrid" (<torus>, <dragonfly>).
    std::string_view wiring_attr(pugi::xml_node n) const {
        const auto v = optional(n, "wiring");
        if (!v || *v == "clustersim") return "clustersim";
        if (*v == "simgrid") return "simgrid";
        fail(n, fmt::format("{} attribute 'wiring': '{}' is not valid; expected clustersim or "
                            "simgrid",
                            tag(n), *v));
    }
    std::string prefix_attr(pugi::xml_node n) const {
        const auto v = optional(n, "prefix");
        return v ? checked_name(n, "prefix", *v) : std::string("n");
    }
    LinkSpec link_attrs(pugi::xml_node n) const {
        return LinkSpec{time_attr(n, "link-latency"), bandwidth_attr(n, "link-bandwidth")};
    }
    // ---- parallel I/O (pass 4) ----------------------------------------------------------
    void read_io(pugi::xml_node root);
    void read_io_server(pugi::xml_node n);
    ComponentSpec read_component(pugi::xml_node n) const;
    void read_io_forwarder(pugi::xml_node n);
    void read_file_system(pugi::xml_node n);
    std::int32_t node_index(pugi::xml_node n, const char* attr, std::string_view name) const;
    // Node names separated by spaces and/or commas: at least one, each a node, none twice.
    std::vector<std::int32_t> node_list(pugi::xml_node n, const char* attr) const;
    // A size attribute that must be at least 1 B (`what` names the quantity in the error).
    std::uint64_t positive_size(pugi::xml_node n, const char* attr, std::string_view v,
                                const char* what) const {
        const std::uint64_t b = with_unit(n, attr, v, parse_size);
        if (b == 0) {
            fail(n,
                 fmt::format("{} attribute '{}': the {} must be at least 1 B", tag(n), attr, what));
        }
        return b;
    }

    // Runs a generator, turning its ModelError into an InputError at the element.
    template <class F>
    void expand(pugi::xml_node n, F f) {
        try {
            f();
        } catch (const ModelError& e) {
            fail(n, fmt::format("{}: {}", tag(n), e.what()));
        }
    }

    std::string_view text_;
    const std::string& file_;
    std::vector<std::size_t> newlines_;
    TopologyBuilder tb_;
    ModelBuilder mb_;
    std::vector<std::unique_ptr<NodeTemplate>> types_;
    std::unordered_map<std::string, const NodeTemplate*> type_index_;
    // Pass 4: node name -> index, node -> its <io-server> (index into IoSettings::servers),
    // node -> the line of the <io-forwarder> that serves it.
    std::unordered_map<std::string_view, std::int32_t> node_index_;
    std::vector<std::int32_t> server_of_node_;
    std::vector<int> forwarder_of_node_;
};

Topology Reader::read() {
    pugi::xml_document doc;
    const pugi::xml_parse_result r =
        doc.load_buffer(text_.data(), text_.size(), pugi::parse_default, pugi::encoding_utf8);
    if (!r) {
        throw InputError(file_, line_at(r.offset),
                         fmt::format("malformed XML: {}; expected a well-formed <cluster> document",
                                     r.description()));
    }
    pugi::xml_node root;
    for (pugi::xml_node c = doc.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element) continue;
        if (root)
            fail(c, fmt::format("unexpected second root element <{}>; a model has one "
                                "<cluster>",
                                c.name()));
        root = c;
    }
    if (!root) throw InputError(file_, 1, "no root element; expected <cluster>");
    if (std::strcmp(root.name(), "cluster") != 0)
        fail(root, fmt::format("expected the root element <cluster>, found <{}>", root.name()));
    check_attributes(root, {"name"});
    std::string name;
    if (const auto v = optional(root, "name")) {
        name = std::string(*v);
    } else {
        name = file_.substr(file_.find_last_of('/') + 1);
        if (const auto dot = name.rfind('.'); dot != std::string::npos && dot > 0) name.resize(dot);
    }

    // Pass 1: structure checks, <network>, <collectives>, <node-type>, <comm-model>.
    pugi::xml_node network, comm;
    for (pugi::xml_node c = root.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element) {
            fail(c, "unexpected text in <cluster>; expected only elements: " + join(kTopLevel));
        }
        if (!contains(kTopLevel, c.name())) {
            fail(c, fmt::format("unknown element <{}> in <cluster>; expected one of: {}", c.name(),
                                join(kTopLevel)));
        }
        if (std::strcmp(c.name(), "network") == 0) {
            if (network) {
                fail(c, fmt::format("second <network> element (the first is on line {}); "
                                    "expected at most one",
                                    line_of(network)));
            }
            network = c;
            read_network(c);
        }
        if (std::strcmp(c.name(), "collectives") == 0) read_collectives(c);
        if (std::strcmp(c.name(), "mpi-overhead") == 0) read_mpi_overhead(c);
        if (std::strcmp(c.name(), "comm-model") == 0) {
            if (comm) {
                fail(c, fmt::format("second <comm-model> element (the first is on line {}); "
                                    "expected at most one",
                                    line_of(comm)));
            }
            comm = c;
        }
    }
    for (pugi::xml_node c = root.child("node-type"); c; c = c.next_sibling("node-type"))
        read_node_type(c);
    if (comm) read_comm_model(comm);

    // Pass 2: vertices and nodes in document order.
    bool has_groups = false;  // a <dragonfly> set VertexProps::group (Valiant routing needs it)
    bool has_torus = false, has_fat_tree = false;
    for (pugi::xml_node c = root.first_child(); c; c = c.next_sibling()) {
        const std::string_view el = c.name();
        if (el == "switch" || el == "memory-node") {
            read_vertex(c);
        } else if (el == "node") {
            check_attributes(c, {"name", "type"});
            const std::string node = name_attr(c, "name");
            const NodeTemplate& t = type_attr(c);
            expand(c, [&] { mb_.add_node(t, node, line_of(c)); });
        } else if (el == "nodes") {
            check_attributes(c, {"prefix", "count", "type"});
            const std::string prefix = name_attr(c, "prefix");
            const std::uint64_t count = count_attr(c, "count", "node");
            const NodeTemplate& t = type_attr(c);
            expand(c, [&] {
                if (count > kMaxNodes)
                    throw ModelError(fmt::format("at most {} nodes are supported", kMaxNodes));
                mb_.reserve(t, count);
                for (std::uint64_t i = 0; i < count; ++i)
                    mb_.add_node(t, prefix + std::to_string(i), line_of(c));
            });
        } else if (el == "star") {
            check_attributes(c, {"type", "nodes", "prefix", "switch", "switch-bandwidth",
                                 "link-latency", "link-bandwidth"});
            StarSpec s;
            const NodeTemplate& t = type_attr(c);
            s.nodes = count_attr(c, "nodes", "node");
            s.prefix = prefix_attr(c);
            if (const auto v = optional(c, "switch")) s.switch_name = checked_name(c, "switch", *v);
            s.switch_bandwidth = optional_bandwidth(c, "switch-bandwidth");
            s.link = link_attrs(c);
            expand(c, [&] { expand_star(mb_, t, s, line_of(c)); });
        } else if (el == "fat-tree") {
            check_attributes(c,
                             {"type", "levels", "down", "up", "parallel", "prefix", "switch-prefix",
                              "switch-bandwidth", "link-latency", "link-bandwidth"});
            FatTreeSpec s;
            const NodeTemplate& t = type_attr(c);
            const std::uint64_t levels = count_attr(c, "levels", "level");
            s.down = list_attr(c, "down", required(c, "down"));
            s.up = list_attr(c, "up", required(c, "up"));
            if (const auto v = optional(c, "parallel")) s.parallel = list_attr(c, "parallel", *v);
            for (const auto& [attr, list] : {std::pair{"down", &s.down}, std::pair{"up", &s.up},
                                             std::pair{"parallel", &s.parallel}}) {
                if (!list->empty() && list->size() != levels) {
                    fail(c, fmt::format("<fat-tree> attribute '{}': expected {} values (one per "
                                        "level, levels=\"{}\"), got {}",
                                        attr, levels, levels, list->size()));
                }
            }
            s.prefix = prefix_attr(c);
            if (const auto v = optional(c, "switch-prefix"))
                s.switch_prefix = checked_name(c, "switch-prefix", *v);
            s.switch_bandwidth = optional_bandwidth(c, "switch-bandwidth");
            s.link = link_attrs(c);
            expand(c, [&] { expand_fat_tree(mb_, t, s, line_of(c)); });
            has_fat_tree = true;
        } else if (el == "torus") {
            check_attributes(
                c, {"type", "dims", "prefix", "link-latency", "link-bandwidth", "wiring"});
            TorusSpec s;
            const NodeTemplate& t = type_attr(c);
            s.dims = list_attr(c, "dims", required(c, "dims"));
            s.per_node_links = wiring_attr(c) == "simgrid";
            has_torus = true;
            s.prefix = prefix_attr(c);
            s.link = link_attrs(c);
            expand(c, [&] { expand_torus(mb_, t, s, line_of(c)); });
        } else if (el == "dragonfly") {
            check_attributes(
                c, {"type", "groups", "routers", "nodes-per-router", "global-links", "prefix",
                    "switch-prefix", "router-bandwidth", "link-latency", "link-bandwidth",
                    "local-latency", "local-bandwidth", "global-latency", "global-bandwidth",
                    "wiring", "chassis", "chassis-latency", "chassis-bandwidth"});
            DragonflySpec s;
            const NodeTemplate& t = type_attr(c);
            const bool simgrid = wiring_attr(c) == "simgrid";
            s.groups = count_attr(c, "groups", "group");
            s.routers =
                count_attr(c, "routers", simgrid ? "router per chassis" : "router per group");
            s.nodes_per_router = count_attr(c, "nodes-per-router", "node per router");
            if (simgrid) {
                for (const char* a : {"global-links"})
                    if (c.attribute(a))
                        fail(c, fmt::format("<dragonfly wiring=\"simgrid\"> has no attribute '{}' "
                                            "(one global cable per pair of groups)",
                                            a));
                s.chassis = count_attr(c, "chassis", "chassis per group");
                s.chassis_link = LinkSpec{time_attr(c, "chassis-latency"),
                                          bandwidth_attr(c, "chassis-bandwidth")};
            } else {
                for (const char* a : {"chassis", "chassis-latency", "chassis-bandwidth"})
                    if (c.attribute(a))
                        fail(c,
                             fmt::format("<dragonfly> attribute '{}' needs wiring=\"simgrid\"", a));
                s.global_links = count_attr(c, "global-links", "global link per router");
            }
            s.prefix = prefix_attr(c);
            if (const auto v = optional(c, "switch-prefix"))
                s.switch_prefix = checked_name(c, "switch-prefix", *v);
            s.router_bandwidth = optional_bandwidth(c, "router-bandwidth");
            s.link = link_attrs(c);
            s.local = LinkSpec{time_attr(c, "local-latency"), bandwidth_attr(c, "local-bandwidth")};
            s.global =
                LinkSpec{time_attr(c, "global-latency"), bandwidth_attr(c, "global-bandwidth")};
            expand(c, [&] { expand_dragonfly(mb_, t, s, line_of(c)); });
            has_groups = true;
        }
    }
    if (tb_.nodes().empty()) {
        fail(root,
             "<cluster> declares no nodes; expected at least one <node>, <nodes>, <star>, "
             "<fat-tree>, <torus> or <dragonfly>");
    }
    if (tb_.settings().routing == Routing::Valiant && !has_groups) {
        fail(network,
             "<network> attribute 'routing': 'valiant' needs a <dragonfly> (it routes "
             "through a random router of another group); expected shortest-path or "
             "round-robin for this cluster");
    }
    if (tb_.settings().routing == Routing::DimensionOrder && !has_torus)
        fail(network,
             "<network> attribute 'routing': 'dimension-order' needs a <torus>; expected "
             "shortest-path, round-robin or simgrid for this cluster");
    if (tb_.settings().routing == Routing::DModK && !has_fat_tree)
        fail(network,
             "<network> attribute 'routing': 'd-mod-k' needs a <fat-tree>; expected "
             "shortest-path, round-robin or simgrid for this cluster");

    // Pass 3: top-level links.
    for (pugi::xml_node c = root.first_child(); c; c = c.next_sibling()) {
        const std::string_view el = c.name();
        if (el == "cable" || el == "edge") read_edge(c);
    }

    // Pass 4: parallel I/O.
    read_io(root);
    return std::move(tb_).build(std::move(name), file_);
}

void Reader::read_io(pugi::xml_node root) {
    const pugi::xml_node first_server = root.child("io-server");
    const pugi::xml_node first_forwarder = root.child("io-forwarder");
    const pugi::xml_node fs = root.child("file-system");
    if (!first_server && !first_forwarder && !fs) return;
    const std::vector<NodeInfo>& nodes = tb_.nodes();
    node_index_.reserve(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
        node_index_.emplace(nodes[i].name, static_cast<std::int32_t>(i));
    server_of_node_.assign(nodes.size(), -1);
    forwarder_of_node_.assign(nodes.size(), 0);

    for (pugi::xml_node c = first_server; c; c = c.next_sibling("io-server")) read_io_server(c);
    for (pugi::xml_node c = first_forwarder; c; c = c.next_sibling("io-forwarder"))
        read_io_forwarder(c);
    if (fs) {
        if (const pugi::xml_node second = fs.next_sibling("file-system")) {
            fail(second, fmt::format("second <file-system> element (the first is on line {}); "
                                     "expected at most one",
                                     line_of(fs)));
        }
        read_file_system(fs);
    } else if (first_server) {
        // Servers without a <file-system>: stripe over all of them with the defaults.
        FileSystemSpec& f = tb_.io().fs;
        f.present = true;
        f.line = line_of(first_server);
        for (std::size_t i = 0; i < tb_.io().servers.size(); ++i)
            f.servers.push_back(static_cast<std::int32_t>(i));
    }
}

std::int32_t Reader::node_index(pugi::xml_node n, const char* attr, std::string_view name) const {
    const auto it = node_index_.find(name);
    if (it == node_index_.end())
        fail(n, fmt::format("{} attribute '{}': no node named '{}'", tag(n), attr, name));
    return it->second;
}

std::vector<std::int32_t> Reader::node_list(pugi::xml_node n, const char* attr) const {
    const std::string_view v = required(n, attr);
    std::vector<std::int32_t> out;
    std::vector<bool> listed(server_of_node_.size(), false);  // one slot per node
    std::size_t i = 0;
    auto separator = [](char c) {
        return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
    };
    while (i < v.size()) {
        while (i < v.size() && separator(v[i])) ++i;
        const std::size_t start = i;
        while (i < v.size() && !separator(v[i])) ++i;
        if (i == start) break;
        const std::string_view name = v.substr(start, i - start);
        const std::int32_t node = node_index(n, attr, name);
        if (listed[node]) {
            fail(n,
                 fmt::format("{} attribute '{}': node '{}' is listed twice", tag(n), attr, name));
        }
        listed[node] = true;
        out.push_back(node);
    }
    if (out.empty()) {
        fail(n, fmt::format("{} attribute '{}' names no node; expected node names separated by "
                            "spaces or commas (e.g. \"n0 n1\")",
                            tag(n), attr));
    }
    return out;
}

ComponentSpec Reader::read_component(pugi::xml_node n) const {
    check_unique_attributes(n);
    check_empty(n);
    ComponentSpec spec;
    spec.model = std::string(required(n, "model"));
    if (spec.model.empty()) fail(n, fmt::format("{} attribute 'model' must not be empty", tag(n)));
    for (pugi::xml_attribute a = n.first_attribute(); a; a = a.next_attribute()) {
        if (std::strcmp(a.name(), "model") != 0) spec.params.emplace_back(a.name(), a.value());
    }
    spec.line = line_of(n);
    return spec;
}

void Reader::read_io_server(pugi::xml_node n) {
    check_attributes(n, {"node", "nodes"});
    const bool one = static_cast<bool>(n.attribute("node"));
    if (one == static_cast<bool>(n.attribute("nodes"))) {
        fail(n,
             "<io-server> needs exactly one of the attributes 'node' (one server) and 'nodes' "
             "(one server per listed node)");
    }
    const int line = line_of(n);
    std::vector<std::int32_t> nodes;
    if (one) {
        nodes.push_back(node_index(n, "node", required(n, "node")));
    } else {
        nodes = node_list(n, "nodes");
    }
    pugi::xml_node cache, disk;
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element) {
            fail(c, "unexpected text in <io-server>; expected only elements: " +
                        join(kIoServerChildren));
        }
        if (!contains(kIoServerChildren, c.name())) {
            fail(c, fmt::format("unknown element <{}> in <io-server>; expected one of: {}",
                                c.name(), join(kIoServerChildren)));
        }
        pugi::xml_node& slot = std::strcmp(c.name(), "cache") == 0 ? cache : disk;
        if (slot) {
            fail(c, fmt::format("second {} in <io-server> (the first is on line {}); expected at "
                                "most one",
                                tag(c), line_of(slot)));
        }
        slot = c;
    }
    if (!disk) {
        fail(n,
             "<io-server> has no <disk>; expected exactly one <disk model=\"...\"/> (and at "
             "most one <cache>)");
    }
    IoServerSpec spec;
    spec.cache = cache ? read_component(cache) : ComponentSpec{"none", {}, line};
    spec.disk = read_component(disk);
    spec.line = line;
    IoSettings& io = tb_.io();
    for (const std::int32_t node : nodes) {
        if (const std::int32_t other = server_of_node_[node]; other >= 0) {
            fail(n, fmt::format("node '{}' already has an <io-server> (line {}); expected at "
                                "most one server per node",
                                tb_.nodes()[node].name, io.servers[other].line));
        }
        server_of_node_[node] = static_cast<std::int32_t>(io.servers.size());
        spec.node = node;
        io.servers.push_back(spec);
    }
}

void Reader::read_io_forwarder(pugi::xml_node n) {
    check_attributes(n, {"node", "clients"});
    check_empty(n);
    IoForwarderSpec spec;
    spec.line = line_of(n);
    spec.node = node_index(n, "node", required(n, "node"));
    spec.clients = node_list(n, "clients");
    for (const std::int32_t client : spec.clients) {
        const std::string& name = tb_.nodes()[client].name;
        if (client == spec.node) {
            fail(n, fmt::format("<io-forwarder> attribute 'clients': node '{}' is the forwarder "
                                "itself; expected other nodes",
                                name));
        }
        if (const int other = forwarder_of_node_[client]; other != 0) {
            fail(n, fmt::format("<io-forwarder> attribute 'clients': node '{}' is already a "
                                "client of the <io-forwarder> on line {}; expected at most one "
                                "forwarder per node",
                                name, other));
        }
        forwarder_of_node_[client] = spec.line;
    }
    tb_.io().forwarders.push_back(std::move(spec));
}

void Reader::read_file_system(pugi::xml_node n) {
    check_attributes(n, {"distribution", "stripe", "servers", "open", "close", "sync",
                         "request-size", "granularity", "cb-buffer", "cb-nodes", "open-per-rank",
                         "close-per-rank", "collective-close", "request-overhead"});
    check_empty(n);
    FileSystemSpec& f = tb_.io().fs;
    f.present = true;
    f.line = line_of(n);
    if (const auto v = optional(n, "distribution")) {
        if (v->empty()) fail(n, "<file-system> attribute 'distribution' must not be empty");
        f.distribution = std::string(*v);
    }
    if (const auto v = optional(n, "stripe"))
        f.stripe = positive_size(n, "stripe", *v, "stripe (chunk) size");
    if (const auto v = optional(n, "open")) f.open = with_unit(n, "open", *v, parse_time);
    if (const auto v = optional(n, "close")) f.close = with_unit(n, "close", *v, parse_time);
    if (const auto v = optional(n, "sync")) f.sync = with_unit(n, "sync", *v, parse_time);
    if (const auto v = optional(n, "open-per-rank"))
        f.open_per_rank = with_unit(n, "open-per-rank", *v, parse_time);
    if (const auto v = optional(n, "close-per-rank"))
        f.close_per_rank = with_unit(n, "close-per-rank", *v, parse_time);
    if (const auto v = optional(n, "request-overhead"))
        f.request_overhead = with_unit(n, "request-overhead", *v, parse_time);
    if (const auto v = optional(n, "collective-close")) {
        if (*v == "yes")
            f.close_collective = true;
        else if (*v != "no")
            fail(n, fmt::format("<file-system> attribute 'collective-close': '{}' is not valid; "
                                "expected yes or no",
                                *v));
    }
    if (const auto v = optional(n, "request-size"))
        f.request_bytes = with_unit(n, "request-size", *v, parse_size);
    if (const auto v = optional(n, "granularity"))
        f.granularity = positive_size(n, "granularity", *v, "server's chunk size");
    if (const auto v = optional(n, "cb-buffer"))
        f.cb_buffer = positive_size(n, "cb-buffer", *v, "collective buffer size");
    if (const auto v = optional(n, "cb-nodes")) {
        const std::uint64_t c = with_unit(n, "cb-nodes", *v, parse_count);
        if (c > static_cast<std::uint64_t>(INT32_MAX))
            fail(n, fmt::format("<file-system> attribute 'cb-nodes': {} is too many", c));
        f.cb_nodes = static_cast<std::int32_t>(c);
    }
    const std::size_t num_servers = tb_.io().servers.size();
    if (num_servers == 0) {
        fail(n,
             "<file-system> without any <io-server>; expected at least one <io-server "
             "node=\"...\"> to stripe files over");
    }
    if (!optional(n, "servers")) {
        for (std::size_t i = 0; i < num_servers; ++i)
            f.servers.push_back(static_cast<std::int32_t>(i));
        return;
    }
    for (const std::int32_t node : node_list(n, "servers")) {
        const std::int32_t server = server_of_node_[node];
        if (server < 0) {
            fail(n, fmt::format("<file-system> attribute 'servers': node '{}' has no <io-server> "
                                "(files cannot be striped over it)",
                                tb_.nodes()[node].name));
        }
        f.servers.push_back(server);
    }
}

void Reader::read_network(pugi::xml_node n) {
    check_attributes(
        n, {"model", "forwarding", "granularity", "routing", "nic", "eager-threshold", "progress"});
    NetworkSettings& s = tb_.settings();
    if (const auto v = optional(n, "model")) {
        if (*v == "packet")
            s.model = NetworkModel::Packet;
        else if (*v == "fluid")
            s.model = NetworkModel::Fluid;
        else
            fail(n, fmt::format(
                        "<network> attribute 'model': '{}' is not valid; expected packet or fluid",
                        *v));
    }
    if (optional(n, "forwarding")) s.forwarding = forwarding_attr(n);
    if (const auto v = optional(n, "granularity")) s.granularity = granularity_attr(n, *v);
    if (const auto v = optional(n, "routing")) {
        if (*v == "shortest-path") {
            s.routing = Routing::ShortestPath;
        } else if (*v == "round-robin") {
            s.routing = Routing::RoundRobin;
        } else if (*v == "valiant") {
            s.routing = Routing::Valiant;
        } else if (*v == "dimension-order") {
            s.routing = Routing::DimensionOrder;
        } else if (*v == "d-mod-k") {
            s.routing = Routing::DModK;
        } else if (*v == "simgrid") {
            s.routing = Routing::SimGrid;
        } else {
            fail(n, fmt::format("<network> attribute 'routing': '{}' is not valid; expected "
                                "shortest-path or round-robin, or simgrid, valiant (dragonfly "
                                "only), dimension-order (torus only), d-mod-k (fat tree only)",
                                *v));
        }
    }
    if (const auto v = optional(n, "nic")) s.nic_model = nic_attr(n, *v);
    if (const auto v = optional(n, "eager-threshold"))
        s.eager_threshold = with_unit(n, "eager-threshold", *v, parse_size);
    if (const auto v = optional(n, "progress")) {
        if (*v == "in-mpi")
            s.progress_in_mpi = true;
        else if (*v != "always")
            fail(n, fmt::format("<network> attribute 'progress': '{}' is not valid; expected "
                                "in-mpi or always",
                                *v));
    }
}

void Reader::read_collectives(pugi::xml_node n) {
    check_attributes(n, {"reduce-instructions-per-byte", "reduce-bandwidth", "copy-bandwidth",
                         "profile", "comm-create", "buffer-copies", "barrier"});
    MpiSettings& m = tb_.mpi();
    if (const auto v = optional(n, "buffer-copies")) {
        if (*v == "yes")
            m.buffer_copies = true;
        else if (*v != "no")
            fail(n, fmt::format("<collectives> attribute 'buffer-copies': '{}' is not valid; "
                                "expected yes or no",
                                *v));
    }
    if (const auto v = optional(n, "profile")) {
        m.profile = *v;
        m.profile_line = line_of(n);
    }
    if (const auto v = optional(n, "reduce-instructions-per-byte"))
        m.reduce_instructions_per_byte =
            with_unit(n, "reduce-instructions-per-byte", *v, parse_count);
    if (const auto v = optional(n, "reduce-bandwidth"))
        m.reduce_bandwidth = finite_bandwidth(n, "reduce-bandwidth", *v);
    if (const auto v = optional(n, "copy-bandwidth"))
        m.copy_bandwidth = finite_bandwidth(n, "copy-bandwidth", *v);
    if (const auto v = optional(n, "comm-create")) {
        m.comm_create_modelled = true;
        m.comm_create_local = with_unit(n, "comm-create", *v, parse_time);
        if (m.comm_create_local < Time::zero()) fail(n, "comm-create: a negative time");
    }
    if (const auto v = optional(n, "barrier")) {
        m.barrier_cost = with_unit(n, "barrier", *v, parse_time);
        if (m.barrier_cost < Time::zero()) fail(n, "barrier: a negative time");
    }
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        const bool rate =
            c.type() == pugi::node_element &&
            (std::strcmp(c.name(), "copy-rate") == 0 || std::strcmp(c.name(), "reduce-rate") == 0);
        if (rate) {
            // <copy-rate>/<reduce-rate>: the measured rate against the size (cache effects),
            // winning over the attribute.
            check_attributes(c, {});
            auto& curve = std::strcmp(c.name(), "copy-rate") == 0 ? m.copy_curve : m.reduce_curve;
            if (!curve.empty())
                fail(c,
                     fmt::format("second <{}> in <collectives>; expected at most one", c.name()));
            curve = read_points(c, c.name());
            if (curve.empty())
                fail(c, fmt::format("<{}> without <point> elements; expected the measured points",
                                    c.name()));
            continue;
        }
        if (c.type() != pugi::node_element || std::strcmp(c.name(), "algorithm") != 0)
            fail(c,
                 "unexpected content in <collectives>; expected only <algorithm>, <copy-rate> and "
                 "<reduce-rate> elements");
        check_attributes(c, {"operation", "name", "min-size", "max-size", "segment"});
        CollectiveRule rule;
        rule.operation = std::string(required(c, "operation"));
        rule.algorithm = std::string(required(c, "name"));
        if (const auto v = optional(c, "min-size"))
            rule.min_bytes = with_unit(c, "min-size", *v, parse_size);
        if (const auto v = optional(c, "max-size"))
            rule.max_bytes = with_unit(c, "max-size", *v, parse_size);
        if (const auto v = optional(c, "segment")) {
            rule.segment = with_unit(c, "segment", *v, parse_size);
            if (rule.segment == 0)
                fail(c, "<algorithm> attribute 'segment': expected a positive size");
        }
        if (rule.min_bytes >= rule.max_bytes)
            fail(c, fmt::format(
                        "<algorithm> size range [{}, {}) is empty; expected min-size < max-size",
                        rule.min_bytes, rule.max_bytes));
        rule.line = line_of(c);
        m.collectives.push_back(std::move(rule));
    }
}

void Reader::read_comm_model(pugi::xml_node n) {
    check_attributes(n, {"model", "latency", "bandwidth", "intra-latency", "intra-bandwidth",
                         "buses", "in-links", "out-links", "collectives"});
    CommModelSpec& spec = tb_.comm();
    spec.present = true;
    spec.line = line_of(n);
    spec.model = std::string(required(n, "model"));
    if (spec.model.empty()) fail(n, "<comm-model> attribute 'model' must not be empty");
    if (const auto v = optional(n, "latency")) {
        spec.latency = with_unit(n, "latency", *v, parse_time);
        spec.has_latency = true;
    }
    if (const auto v = optional(n, "bandwidth")) {
        spec.bandwidth = finite_bandwidth(n, "bandwidth", *v);
        spec.has_bandwidth = true;
    }
    if (const auto v = optional(n, "intra-latency")) {
        spec.intra_latency = with_unit(n, "intra-latency", *v, parse_time);
        spec.has_intra_latency = true;
    }
    if (const auto v = optional(n, "intra-bandwidth")) {
        spec.intra_bandwidth = finite_bandwidth(n, "intra-bandwidth", *v);
        spec.has_intra_bandwidth = true;
    }
    if (const auto v = optional(n, "buses")) spec.buses = count32_attr(n, "buses", *v, "bus");
    if (const auto v = optional(n, "in-links"))
        spec.in_links = count32_attr(n, "in-links", *v, "link");
    if (const auto v = optional(n, "out-links"))
        spec.out_links = count32_attr(n, "out-links", *v, "link");
    if (const auto v = optional(n, "collectives")) {
        if (*v == "analytic") {
            spec.collectives_as_messages = false;
        } else if (*v == "messages") {
            spec.collectives_as_messages = true;
        } else {
            fail(n, fmt::format("<comm-model> attribute 'collectives': '{}' is not valid; "
                                "expected analytic or messages",
                                *v));
        }
    }
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element)
            fail(c,
                 "unexpected text in <comm-model>; expected only elements: " + join(kCommChildren));
        if (!contains(kCommChildren, c.name())) {
            fail(c, fmt::format("unknown element <{}> in <comm-model>; expected one of: {}",
                                c.name(), join(kCommChildren)));
        }
        if (std::strcmp(c.name(), "node-type") == 0)
            read_comm_node_type(c, spec);
        else if (std::strcmp(c.name(), "point-to-point") == 0)
            read_comm_p2p(c, spec);
        else
            read_comm_collective(c, spec);
    }
    // The element chooses the analytic model (clustersim run --network overrides it).
    tb_.settings().model = NetworkModel::Analytic;
}

void Reader::read_comm_node_type(pugi::xml_node n, CommModelSpec& spec) const {
    check_attributes(n, {"name", "in-links", "out-links", "latency", "bandwidth"});
    check_empty(n);
    CommNodeSpec t;
    t.line = line_of(n);
    const std::string_view name = required(n, "name");
    if (name.empty()) fail(n, "<node-type> attribute 'name' must not be empty");
    if (!type_index_.contains(std::string(name))) {
        std::string names;
        for (const auto& type : types_) names += (names.empty() ? "" : ", ") + type->name;
        fail(n, fmt::format("<node-type> attribute 'name': unknown node-type '{}'; declared "
                            "node-types: {}",
                            name, names.empty() ? std::string("(none)") : names));
    }
    t.node_type = std::string(name);
    for (const CommNodeSpec& other : spec.node_types) {
        if (other.node_type == t.node_type) {
            fail(n, fmt::format("node-type '{}' already has a <node-type> in <comm-model> (line "
                                "{}); expected at most one per node-type",
                                t.node_type, other.line));
        }
    }
    if (const auto v = optional(n, "in-links"))
        t.in_links = count32_attr(n, "in-links", *v, "link");
    if (const auto v = optional(n, "out-links"))
        t.out_links = count32_attr(n, "out-links", *v, "link");
    if (const auto v = optional(n, "latency")) {
        t.latency = with_unit(n, "latency", *v, parse_time);
        t.has_latency = true;
    }
    if (const auto v = optional(n, "bandwidth")) {
        t.bandwidth = finite_bandwidth(n, "bandwidth", *v);
        t.has_bandwidth = true;
    }
    spec.node_types.push_back(std::move(t));
}

void Reader::read_comm_collective(pugi::xml_node n, CommModelSpec& spec) const {
    check_attributes(n, {"operation", "scaling", "ranks"});
    CommCollectiveSpec coll;
    coll.line = line_of(n);
    coll.operation = std::string(required(n, "operation"));
    if (coll.operation.empty()) fail(n, "<collective> attribute 'operation' must not be empty");
    for (const CommCollectiveSpec& other : spec.collectives) {
        if (other.operation == coll.operation) {
            fail(n, fmt::format("second <collective> for operation '{}' in <comm-model> (the "
                                "first is on line {}); expected at most one per operation",
                                coll.operation, other.line));
        }
    }
    if (const auto v = optional(n, "scaling")) {
        if (*v != "constant" && *v != "linear" && *v != "logarithmic") {
            fail(n, fmt::format("<collective> attribute 'scaling': '{}' is not valid; expected "
                                "constant, linear or logarithmic",
                                *v));
        }
        coll.scaling = std::string(*v);
    }
    const auto ranks = optional(n, "ranks");
    if (ranks) coll.ranks = count32_attr(n, "ranks", *ranks, "rank");
    coll.points = read_points(n, "collective");
    if (!coll.points.empty() && !ranks) {
        fail(n,
             "<collective> has <point> elements but no 'ranks'; expected ranks=\"N\", the "
             "number of ranks the points were measured at");
    }
    if (coll.points.empty() && ranks) {
        fail(n,
             "<collective> attribute 'ranks' without <point> elements; expected 'ranks' only "
             "with the points measured at that many ranks");
    }
    spec.collectives.push_back(std::move(coll));
}

// <mpi-overhead>: the MPI library's per-message software costs (LogGP's o), each child at
// most once: <send> (o_s), <recv> (o_r), <post> (posting a receive).
void Reader::read_mpi_overhead(pugi::xml_node n) {
    MpiSettings& m = tb_.mpi();
    if (m.overhead_line != 0)
        fail(n, fmt::format("second <mpi-overhead> element (the first is on line {}); expected "
                            "at most one",
                            m.overhead_line));
    m.overhead_line = line_of(n);
    check_attributes(n, {});
    std::array<int, 3> seen{};
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element || !contains(kOverheadChildren, c.name()))
            fail(c, fmt::format("unexpected content in <mpi-overhead>; expected only {}",
                                join(kOverheadChildren)));
        const std::size_t which = std::strcmp(c.name(), "send") == 0   ? 0
                                  : std::strcmp(c.name(), "recv") == 0 ? 1
                                                                       : 2;
        if (seen[which] != 0)
            fail(c, fmt::format("second <{}> in <mpi-overhead> (the first is on line {}); "
                                "expected at most one",
                                c.name(), seen[which]));
        seen[which] = line_of(c);
        OverheadSpec o = read_overhead(c);
        (which == 0   ? m.send_overhead
         : which == 1 ? m.recv_overhead
                      : m.post_overhead) = std::move(o);
    }
}

// <send time="…" [bandwidth="…"]/> (a constant plus size / bandwidth) or
// <send><point size="…" time="…"/>…</send> (interpolated; sizes strictly rising).
OverheadSpec Reader::read_overhead(pugi::xml_node n) const {
    check_attributes(n, {"time", "bandwidth"});
    OverheadSpec o;
    const bool has_points = static_cast<bool>(n.child("point"));
    if (has_points) {
        if (optional(n, "time") || optional(n, "bandwidth"))
            fail(n, fmt::format("<{}> has both attributes and <point> elements; expected either "
                                "time (and bandwidth) or points",
                                n.name()));
        pugi::xml_node previous;
        for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
            if (c.type() != pugi::node_element || std::strcmp(c.name(), "point") != 0)
                fail(c, fmt::format("unexpected content in <{}>; expected only <point> elements",
                                    n.name()));
            check_attributes(c, {"size", "time"});
            check_empty(c);
            const std::string_view size_text = required(c, "size");
            const std::uint64_t size = with_unit(c, "size", size_text, parse_size);
            if (previous && size <= o.points.back().first)
                fail(c,
                     fmt::format("<point> attribute 'size': '{}' is not larger than the "
                                 "previous point's '{}' (line {}); expected sizes strictly "
                                 "rising",
                                 size_text, previous.attribute("size").value(), line_of(previous)));
            o.points.emplace_back(size, time_attr(c, "time"));
            previous = c;
        }
        return o;
    }
    check_empty(n);
    o.time = time_attr(n, "time");
    if (const auto v = optional(n, "bandwidth")) o.bandwidth = finite_bandwidth(n, "bandwidth", *v);
    return o;
}

// <point size=... bandwidth=.../> children, sizes strictly rising.
std::vector<std::pair<std::uint64_t, Bandwidth>> Reader::read_points(pugi::xml_node n,
                                                                     const char* parent) const {
    std::vector<std::pair<std::uint64_t, Bandwidth>> points;
    pugi::xml_node previous;
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element || std::strcmp(c.name(), "point") != 0)
            fail(c,
                 fmt::format("unexpected content in <{}>; expected only <point> elements", parent));
        check_attributes(c, {"size", "bandwidth"});
        check_empty(c);
        const std::string_view size_text = required(c, "size");
        const std::uint64_t size = with_unit(c, "size", size_text, parse_size);
        if (size == 0) fail(c, "<point> attribute 'size': expected a size larger than 0B");
        if (previous && size <= points.back().first) {
            fail(c, fmt::format("<point> attribute 'size': '{}' is not larger than the previous "
                                "point's '{}' (line {}); expected sizes strictly rising",
                                size_text, previous.attribute("size").value(), line_of(previous)));
        }
        points.emplace_back(size, finite_bandwidth(c, "bandwidth", required(c, "bandwidth")));
        previous = c;
    }
    return points;
}

// <point-to-point scope="intra-node|inter-node">: the measured transfer bandwidth of one
// message against its size (clustersim-calibrate writes it); see CommModelSpec.
void Reader::read_comm_p2p(pugi::xml_node n, CommModelSpec& spec) const {
    check_attributes(n, {"scope", "direction"});
    const std::string_view scope = required(n, "scope");
    bool both = false;
    if (const auto d = optional(n, "direction")) {
        if (*d == "both")
            both = true;
        else if (*d != "one-way")
            fail(n, fmt::format("<point-to-point> attribute 'direction': '{}' is not valid; "
                                "expected one-way or both",
                                *d));
    }
    std::vector<std::pair<std::uint64_t, Bandwidth>>* curve = nullptr;
    int* line = nullptr;
    if (scope == "intra-node") {
        curve = both ? &spec.intra_two_way : &spec.intra_curve;
        line = both ? &spec.intra_two_way_line : &spec.intra_curve_line;
    } else if (scope == "inter-node") {
        curve = both ? &spec.inter_two_way : &spec.inter_curve;
        line = both ? &spec.inter_two_way_line : &spec.inter_curve_line;
    } else {
        fail(n, fmt::format("<point-to-point> attribute 'scope': '{}' is not valid; expected "
                            "intra-node or inter-node",
                            scope));
    }
    const char* direction = both ? " direction=\"both\"" : "";
    if (*line != 0)
        fail(n, fmt::format("second <point-to-point scope=\"{}\"{}> in <comm-model> (the first "
                            "is on line {}); expected at most one per scope and direction",
                            scope, direction, *line));
    *line = line_of(n);
    *curve = read_points(n, "point-to-point");
    if (curve->empty())
        fail(n, "<point-to-point> without <point> elements; expected the measured points");
}

void Reader::read_node_type(pugi::xml_node n) {
    check_attributes(n, {"name", "memory", "nic", "granularity"});
    auto t = std::make_unique<NodeTemplate>();
    t->name = name_attr(n, "name");
    t->line = line_of(n);
    if (const auto it = type_index_.find(t->name); it != type_index_.end()) {
        fail(n, fmt::format("node-type name '{}' is already used (line {})", t->name,
                            it->second->line));
    }
    t->memory = with_unit(n, "memory", required(n, "memory"), parse_size);
    if (const auto v = optional(n, "nic")) t->nic_model = nic_attr(n, *v);
    if (const auto v = optional(n, "granularity")) t->granularity = granularity_attr(n, *v);
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element)
            fail(c,
                 "unexpected text in <node-type>; expected only elements: " + join(kTypeChildren));
        if (!contains(kTypeChildren, c.name())) {
            fail(c, fmt::format("unknown element <{}> in <node-type>; expected one of: {}",
                                c.name(), join(kTypeChildren)));
        }
    }
    // Vertices first, so an edge may name a vertex declared after it.
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        const std::string_view el = c.name();
        if (el != "cable" && el != "edge" && el != "jitter") read_type_vertex(c, *t);
    }
    if (t->num_sockets() == 0) {
        fail(n, fmt::format("<node-type> '{}' has no <socket>; expected at least one", t->name));
    }
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        const std::string_view el = c.name();
        if (el == "cable" || el == "edge") read_type_edge(c, *t);
    }
    for (pugi::xml_node c = n.child("jitter"); c; c = c.next_sibling("jitter")) read_jitter(c, *t);
    type_index_.emplace(t->name, t.get());
    types_.push_back(std::move(t));
}

void Reader::read_type_vertex(pugi::xml_node n, NodeTemplate& t) {
    const std::string_view el = n.name();
    TemplateVertex v;
    v.line = line_of(n);
    if (el == "socket") {
        check_attributes(n, {"name", "cores", "speed"});
        v.kind = VertexKind::Socket;
        const std::uint64_t cores = count_attr(n, "cores", "core");
        if (cores > UINT32_MAX) fail(n, "<socket> attribute 'cores': too many cores");
        v.cores = static_cast<std::uint32_t>(cores);
        v.speed = with_unit(n, "speed", required(n, "speed"), parse_speed);
    } else if (el == "memory-node") {
        check_attributes(n, {"name", "bandwidth", "local-bandwidth", "forwarding"});
        v.kind = VertexKind::MemoryNode;
        v.relay = optional_bandwidth(n, "bandwidth");
        v.local = optional_bandwidth(n, "local-bandwidth");
        v.forwarding = forwarding_attr(n);
    } else if (el == "switch") {
        check_attributes(n, {"name", "bandwidth", "forwarding"});
        v.kind = VertexKind::Switch;
        v.relay = optional_bandwidth(n, "bandwidth");
        v.forwarding = forwarding_attr(n);
    } else {  // nic
        check_attributes(n, {"name", "bandwidth", "forwarding"});
        v.kind = VertexKind::Nic;
        v.relay = optional_bandwidth(n, "bandwidth");
        v.forwarding = forwarding_attr(n);
        if (t.nic != NodeTemplate::kNone) {
            fail(n, fmt::format("<nic>: node-type '{}' already has a NIC '{}' (line {}); expected "
                                "at most one",
                                t.name, t.vertices[t.nic].name, t.vertices[t.nic].line));
        }
    }
    v.name = name_attr(n, "name");
    if (const std::uint32_t other = t.find(v.name); other != NodeTemplate::kNone) {
        fail(n, fmt::format("{} name '{}' is already used in node-type '{}' (line {})", tag(n),
                            v.name, t.name, t.vertices[other].line));
    }
    if (v.kind == VertexKind::Nic) t.nic = static_cast<std::uint32_t>(t.vertices.size());
    t.vertices.push_back(std::move(v));
}

void Reader::read_type_edge(pugi::xml_node n, NodeTemplate& t) {
    check_attributes(n, {"from", "to", "latency", "bandwidth"});
    std::uint32_t ends[2];
    const char* attrs[2] = {"from", "to"};
    for (int i = 0; i < 2; ++i) {
        const std::string_view v = required(n, attrs[i]);
        ends[i] = t.find(v);
        if (ends[i] == NodeTemplate::kNone) {
            std::string names;
            for (const auto& tv : t.vertices) names += (names.empty() ? "" : ", ") + tv.name;
            fail(n, fmt::format("{} attribute '{}': node-type '{}' has no vertex '{}'; its "
                                "vertices: {}",
                                tag(n), attrs[i], t.name, v, names));
        }
    }
    if (ends[0] == ends[1])
        fail(n, fmt::format("{} connects '{}' to itself; expected two different vertices", tag(n),
                            t.vertices[ends[0]].name));
    const Time latency = time_attr(n, "latency");
    const Bandwidth bw = bandwidth_attr(n, "bandwidth");
    const int line = line_of(n);
    t.edges.push_back(TemplateEdge{ends[0], ends[1], latency, bw, line});
    if (std::string_view(n.name()) == "cable")
        t.edges.push_back(TemplateEdge{ends[1], ends[0], latency, bw, line});
}

void Reader::read_jitter(pugi::xml_node n, const NodeTemplate& t) {
    check_attributes(n, {"core", "trace", "generator", "length", "seed", "frequency", "policy",
                         "window-high", "window-low", "start-index"});
    check_empty(n);
    JitterSpec j;
    j.node_type = t.name;
    j.line = line_of(n);
    std::uint64_t cores = 0;
    for (const auto& v : t.vertices) cores += v.cores;
    if (const auto v = optional(n, "core")) {
        const std::uint64_t c = with_unit(n, "core", *v, parse_count);
        if (c >= cores)
            fail(n, fmt::format("<jitter> attribute 'core': core {} is beyond node-type '{}', "
                                "which has {} core(s) (0 to {}, sockets in order)",
                                c, t.name, cores, cores - 1));
        j.core = static_cast<std::int32_t>(c);
    }
    const auto trace = optional(n, "trace");
    const auto generator = optional(n, "generator");
    if (trace.has_value() == generator.has_value())
        fail(n,
             "<jitter> needs exactly one of the attributes 'trace' (a jitter trace file) and "
             "'generator' (a synthetic noise spec, e.g. periodic:period=10ms,duration=50us)");
    if (trace) {
        if (trace->empty()) fail(n, "<jitter> attribute 'trace' must not be empty");
        if (optional(n, "length"))
            fail(n,
                 "<jitter> attribute 'length' applies to a generator only; a trace file has "
                 "its own length");
        const std::string path(*trace);
        const auto slash = file_.find_last_of('/');
        j.trace = path.front() == '/' || slash == std::string::npos
                      ? path
                      : file_.substr(0, slash + 1) + path;
    } else {
        if (generator->empty()) fail(n, "<jitter> attribute 'generator' must not be empty");
        j.generator = std::string(*generator);
        if (const auto v = optional(n, "length")) {
            j.length = with_unit(n, "length", *v, parse_time);
            if (j.length <= Time::zero())
                fail(n, "<jitter> attribute 'length': expected a positive time (e.g. 1s)");
        }
    }
    if (const auto v = optional(n, "frequency")) {
        const std::uint64_t hz = with_unit(n, "frequency", *v, [](std::string_view s) {
            try {
                return parse_speed(s);
            } catch (const UnitError& e) {
                throw UnitError(std::string(e.what()) + " (a clock frequency, e.g. 2.4GHz)");
            }
        });
        if (hz == 0) fail(n, "<jitter> attribute 'frequency': expected a positive clock frequency");
        j.frequency_hz = static_cast<double>(hz);
    }
    if (const auto v = optional(n, "seed")) {
        j.seed = with_unit(n, "seed", *v, parse_count);
        j.has_seed = true;
    }
    const auto policy = optional(n, "policy");
    const auto indices = optional(n, "start-index");
    if (policy && indices)
        fail(n, "<jitter> takes either 'policy' or 'start-index' (an explicit start), not both");
    if (policy) {
        if (*policy == "unsynchronized")
            j.start = JitterSpec::Start::Unsynchronized;
        else if (*policy == "synchronized")
            j.start = JitterSpec::Start::Synchronized;
        else if (*policy == "coscheduled")
            j.start = JitterSpec::Start::Coscheduled;
        else
            fail(n, fmt::format("<jitter> attribute 'policy': '{}' is not valid; expected "
                                "unsynchronized, synchronized or coscheduled",
                                *policy));
    }
    const bool windows = optional(n, "window-high") || optional(n, "window-low");
    if (j.start == JitterSpec::Start::Coscheduled) {
        j.window_high = time_attr(n, "window-high");
        j.window_low = time_attr(n, "window-low");
        if (j.window_high <= Time::zero())
            fail(n, "<jitter> attribute 'window-high': expected a positive time");
    } else if (windows) {
        fail(n, "<jitter> attributes 'window-high' and 'window-low' need policy=\"coscheduled\"");
    }
    if (indices) {
        j.start = JitterSpec::Start::Explicit;
        std::size_t pos = 0;
        const std::string_view list = *indices;
        while (true) {
            const std::size_t comma = list.find(',', pos);
            const std::string_view item =
                list.substr(pos, comma == std::string_view::npos ? list.npos : comma - pos);
            try {
                j.start_indices.push_back(parse_count(item));
            } catch (const UnitError&) {
                fail(n, fmt::format("<jitter> attribute 'start-index': '{}' is not valid; "
                                    "expected tuple indices (whole numbers from 0) separated by "
                                    "commas",
                                    list));
            }
            if (comma == std::string_view::npos) break;
            pos = comma + 1;
        }
    }
    for (const JitterSpec& other : tb_.jitter()) {
        if (other.node_type == t.name && other.core == j.core) {
            fail(n, fmt::format(
                        "node-type '{}' already has a <jitter> for {} (line {}); "
                        "expected one per core",
                        t.name,
                        j.core < 0 ? std::string("all its cores") : fmt::format("core {}", j.core),
                        other.line));
        }
    }
    tb_.jitter().push_back(std::move(j));
}

const NodeTemplate& Reader::type_attr(pugi::xml_node n) const {
    const std::string_view v = required(n, "type");
    const auto it = type_index_.find(std::string(v));
    if (it == type_index_.end()) {
        std::string names;
        for (const auto& t : types_) names += (names.empty() ? "" : ", ") + t->name;
        fail(n, fmt::format("{} attribute 'type': unknown node-type '{}'; declared node-types: {}",
                            tag(n), v, names.empty() ? std::string("(none)") : names));
    }
    return *it->second;
}

void Reader::read_vertex(pugi::xml_node n) {
    VertexProps p;
    if (std::string_view(n.name()) == "switch") {
        check_attributes(n, {"name", "bandwidth", "forwarding"});
        p.kind = VertexKind::Switch;
    } else {
        check_attributes(n, {"name", "bandwidth", "local-bandwidth", "forwarding"});
        p.kind = VertexKind::MemoryNode;
        p.local = optional_bandwidth(n, "local-bandwidth");
    }
    p.forwarding = forwarding_attr(n);
    p.name = name_attr(n, "name");
    p.relay = optional_bandwidth(n, "bandwidth");
    p.line = line_of(n);
    expand(n, [&] { mb_.add_vertex(std::move(p)); });
}

void Reader::read_edge(pugi::xml_node n) {
    check_attributes(n, {"from", "to", "latency", "bandwidth"});
    VertexId ends[2];
    const char* attrs[2] = {"from", "to"};
    for (int i = 0; i < 2; ++i) {
        const std::string_view v = required(n, attrs[i]);
        ends[i] = mb_.find(v);
        if (ends[i] == kNoVertex) {
            fail(n, fmt::format("{} attribute '{}': no vertex named '{}'; expected a top-level "
                                "<switch> or <memory-node>, or a node's vertex as "
                                "<node>.<name> (e.g. n0.nic)",
                                tag(n), attrs[i], v));
        }
    }
    if (ends[0] == ends[1]) {
        fail(n, fmt::format("{} connects '{}' to itself; expected two different vertices", tag(n),
                            required(n, "from")));
    }
    const Time latency = time_attr(n, "latency");
    const Bandwidth bw = bandwidth_attr(n, "bandwidth");
    if (std::string_view(n.name()) == "cable")
        tb_.add_cable(ends[0], ends[1], latency, bw, line_of(n));
    else
        tb_.add_edge(ends[0], ends[1], latency, bw, line_of(n));
}

}  // namespace

Topology parse_model(std::string_view xml, const std::string& file_name) {
    Reader reader(xml, file_name);
    return reader.read();
}

Topology load_model(const std::string& path) {
    refuse_directory(path);
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr)
        throw InputError(path, 0, fmt::format("cannot read file: {}", std::strerror(errno)));
    std::string data;
    char buf[1 << 16];
    std::size_t got = 0;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) data.append(buf, got);
    const bool failed = std::ferror(f) != 0;
    const int err = errno;
    std::fclose(f);
    if (failed) throw InputError(path, 0, fmt::format("cannot read file: {}", std::strerror(err)));
    return parse_model(data, path);
}

}  // namespace clustersim::topo
