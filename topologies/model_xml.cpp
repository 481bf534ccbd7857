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
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "simulator/error.hpp"
#include "simulator/spelling.hpp"
#include "simulator/suggest.hpp"
#include "simulator/units.hpp"
#include "topologies/generators.hpp"
#include "topologies/nic_models.hpp"
#include "topologies/schema_part.hpp"

namespace clustersim::topo {
namespace {

// The elements the core reader owns; every other one belongs to a registered SchemaPart.
constexpr std::array<std::string_view, 13> kTopLevel{
    "network", "node-type", "node",  "nodes",    "switch", "memory-node", "cable",
    "edge",    "star",      "torus", "fat-tree", "routes", "dragonfly"};
constexpr std::array<std::string_view, 6> kTypeChildren{"socket", "memory-node", "switch",
                                                        "nic",    "cable",       "edge"};

// Reads one model document. Pass 1: <network>, then the parts read with it
// (ReadStage::WithNetwork), <node-type> (and the parts' children of it), then the parts that
// name node-types (ReadStage::AfterNodeTypes); pass 2: the elements that declare vertices and
// nodes, in document order; pass 3: top-level <cable> and <edge>, so a cable may name a vertex
// declared anywhere in the file; pass 4: the parts that name nodes declared anywhere
// (ReadStage::AfterGraph: iosys's <io-server>, <io-forwarder>, <file-system>).
class Reader final : public PartContext {
  public:
    Reader(std::string_view xml, const std::string& file, const std::vector<SchemaPart>& parts)
        : PartContext(xml, file), parts_(parts), mb_(tb_) {}

    Topology read();

    // ---- PartContext -----------------------------------------------------------------
    const std::vector<std::string>& node_type_names() const override { return type_names_; }
    const std::vector<NodeInfo>& nodes() const override { return tb_.nodes(); }
    std::int32_t find_node(std::string_view name) const override {
        build_node_index();
        const auto it = node_index_.find(name);
        return it == node_index_.end() ? -1 : it->second;
    }

  private:
    void read_parts(ReadStage stage, pugi::xml_node root) const {
        for (const SchemaPart& p : parts_)
            if (p.stage == stage && p.read) p.read(root, *this);
    }
    // The top-level elements (or <node-type> children) the core and the parts read: the
    // core's first, then each part's in registration order.
    std::vector<std::string_view> known(bool in_type) const {
        std::vector<std::string_view> out;
        if (in_type)
            out.assign(kTypeChildren.begin(), kTypeChildren.end());
        else
            out.assign(kTopLevel.begin(), kTopLevel.end());
        for (const SchemaPart& p : parts_)
            for (const std::string& el : in_type ? p.node_type_elements : p.elements)
                out.push_back(el);
        return out;
    }
    // Built when first needed (only models with parts or I/O elements that name nodes).
    void build_node_index() const {
        if (!node_index_.empty()) return;
        const std::vector<NodeInfo>& nodes = tb_.nodes();
        node_index_.reserve(nodes.size());
        for (std::size_t i = 0; i < nodes.size(); ++i)
            node_index_.emplace(nodes[i].name, static_cast<std::int32_t>(i));
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
    void read_node_type(pugi::xml_node n);
    void read_type_vertex(pugi::xml_node n, NodeTemplate& t);
    void read_type_edge(pugi::xml_node n, NodeTemplate& t);
    const NodeTemplate& type_attr(pugi::xml_node n) const;
    void read_vertex(pugi::xml_node n);
    void read_edge(pugi::xml_node n);
    // <routes> (routes the model gives, SimGrid's explicit routes), once the graph is built.
    void read_routes(pugi::xml_node root, Topology& t) const;
    // wiring="clustersim" (default) or "simgrid" (<torus>, <dragonfly>).
    std::string_view wiring_attr(pugi::xml_node n) const {
        const auto v = optional(n, "wiring");
        if (!v || *v == "clustersim") return "clustersim";
        if (*v == "simgrid") return "simgrid";
        fail(n, fmt::format("{} attribute 'wiring': {}", tag(n),
                            not_one_of(*v, {"clustersim", "simgrid"})));
    }
    std::string prefix_attr(pugi::xml_node n) const {
        const auto v = optional(n, "prefix");
        return v ? checked_name(n, "prefix", *v) : std::string("n");
    }
    LinkSpec link_attrs(pugi::xml_node n) const {
        return LinkSpec{time_attr(n, "link-latency"), bandwidth_attr(n, "link-bandwidth")};
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

    const std::vector<SchemaPart>& parts_;
    TopologyBuilder tb_;
    ModelBuilder mb_;
    bool routing_given_ = false;  // <network routing=...> was given (else the fabric's own)
    std::vector<std::unique_ptr<NodeTemplate>> types_;
    std::unordered_map<std::string, const NodeTemplate*> type_index_;
    std::vector<std::string> type_names_;  // in document order
    // Node name -> index, built when a part first asks (PartContext::find_node).
    mutable std::unordered_map<std::string_view, std::int32_t> node_index_;
};

Topology Reader::read() {
    pugi::xml_document doc;
    const pugi::xml_parse_result r =
        doc.load_buffer(text().data(), text().size(), pugi::parse_default, pugi::encoding_utf8);
    if (!r) {
        throw InputError(file(), line_at(r.offset),
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
    if (!root) throw InputError(file(), 1, "no root element; expected <cluster>");
    if (std::strcmp(root.name(), "cluster") != 0)
        fail(root, fmt::format("expected the root element <cluster>, found <{}>", root.name()));
    check_attributes(root, {"name"});
    std::string name;
    if (const auto v = optional(root, "name")) {
        name = std::string(*v);
    } else {
        name = file().substr(file().find_last_of('/') + 1);
        if (const auto dot = name.rfind('.'); dot != std::string::npos && dot > 0) name.resize(dot);
    }

    // Pass 1: structure checks, <network>, the parts read with it, <node-type>, the parts
    // that name node-types.
    const std::vector<std::string_view> top_level = known(false);
    pugi::xml_node network;
    for (pugi::xml_node c = root.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element) {
            fail(c,
                 "unexpected text in <cluster>; expected only elements: " + join_names(top_level));
        }
        if (!has_name(top_level, c.name())) {
            fail(c,
                 fmt::format("unknown element <{}> in <cluster>{}; expected one of: {}", c.name(),
                             did_you_mean(c.name(), {top_level.begin(), top_level.end()}),
                             join_names(top_level)));
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
    }
    read_parts(ReadStage::WithNetwork, root);
    for (pugi::xml_node c = root.child("node-type"); c; c = c.next_sibling("node-type"))
        read_node_type(c);
    read_parts(ReadStage::AfterNodeTypes, root);

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
    // A model that names no routing gets the routing its fabric is built for when it is one
    // <fat-tree> (D-mod-k), one <torus> (dimension order, ties balanced) or one <dragonfly>
    // (UGAL-L) and nothing else (no other generator, node, switch or cable, and a torus or
    // dragonfly wired as clustersim wires it), as a generated one does
    // (topologies/generators.hpp, natural_routing); otherwise shortest-path. `validate` names
    // the routing it chose.
    if (!routing_given_) {
        std::size_t fabrics = 0, others = 0;
        bool simgrid_wiring = false;
        for (pugi::xml_node c = root.first_child(); c; c = c.next_sibling()) {
            const std::string_view el = c.name();
            if (el == "fat-tree" || el == "torus" || el == "dragonfly" || el == "star")
                ++fabrics;
            else if (el == "node" || el == "nodes" || el == "switch" || el == "cable" ||
                     el == "edge" || el == "memory-node")
                ++others;
            if ((el == "torus" || el == "dragonfly") && optional(c, "wiring") == "simgrid")
                simgrid_wiring = true;
        }
        if (fabrics == 1 && others == 0 && has_fat_tree)
            tb_.settings().routing = Routing::DModK;
        else if (fabrics == 1 && others == 0 && has_torus && !simgrid_wiring)
            tb_.settings().routing = Routing::DimensionOrderBalanced;
        else if (fabrics == 1 && others == 0 && has_groups && !simgrid_wiring)
            tb_.settings().routing = Routing::UgalL;
    }
    if (needs_dragonfly(tb_.settings().routing) && !has_groups) {
        fail(network, fmt::format("<network> attribute 'routing': '{}' needs a <dragonfly> (it "
                                  "routes through a random router of another group); expected "
                                  "shortest_path or round_robin for this cluster",
                                  to_string(tb_.settings().routing)));
    }
    if (needs_torus(tb_.settings().routing) && !has_torus)
        fail(network, fmt::format("<network> attribute 'routing': '{}' needs a <torus>; "
                                  "expected shortest_path, round_robin or simgrid for this "
                                  "cluster",
                                  to_string(tb_.settings().routing)));
    if (needs_fat_tree(tb_.settings().routing) && !has_fat_tree)
        fail(network, fmt::format("<network> attribute 'routing': '{}' needs a <fat-tree>; "
                                  "expected shortest_path, round_robin or simgrid for this "
                                  "cluster",
                                  to_string(tb_.settings().routing)));

    // Pass 3: top-level links.
    for (pugi::xml_node c = root.first_child(); c; c = c.next_sibling()) {
        const std::string_view el = c.name();
        if (el == "cable" || el == "edge") read_edge(c);
    }

    // Pass 4: the parts that name nodes.
    read_parts(ReadStage::AfterGraph, root);
    Topology t = std::move(tb_).build(std::move(name), file());
    read_routes(root, t);
    return t;
}

// <routes [nodes="A B ..."]><route from="A" to="B" via="v1 v2 ..."/>...</routes>: a message
// from node A's NIC to node B's crosses the `via` vertices in order (one direction; a route
// back is a route of its own). With `nodes` the table is complete, as SimGrid's Full zone:
// an ordered pair of distinct `nodes` without a route in it has none at all.
void Reader::read_routes(pugi::xml_node root, Topology& t) const {
    if (!root.child("routes")) return;
    if (!fixed_path(t.settings.routing))
        fail(root.child("routes"),
             fmt::format("<routes> needs a routing that keeps one path per pair; the "
                         "<network>'s '{}' spreads a pair's packets over several",
                         to_string(t.settings.routing)));
    std::unordered_map<std::string_view, std::uint32_t> node_of;
    for (std::uint32_t i = 0; i < t.nodes.size(); ++i) node_of.emplace(t.nodes[i].name, i);
    auto words = [](std::string_view text) {
        std::vector<std::string> out;
        std::istringstream in{std::string(text)};
        for (std::string w; in >> w;) out.push_back(w);
        return out;
    };
    auto node = [&](pugi::xml_node n, const char* attr, const std::string& v) {
        const auto it = node_of.find(v);
        if (it == node_of.end())
            fail(n, fmt::format("{} attribute '{}': no node named '{}'", tag(n), attr, v));
        return it->second;
    };
    std::unordered_map<std::uint32_t, int> in_complete;  // node -> line of its complete table
    std::set<std::pair<std::uint32_t, std::uint32_t>> given;
    for (pugi::xml_node r = root.child("routes"); r; r = r.next_sibling("routes")) {
        check_attributes(r, {"nodes"});
        RouteTable table;
        table.line = line_of(r);
        std::set<std::uint32_t> members;
        if (const auto v = optional(r, "nodes")) {
            table.complete = true;
            for (const std::string& w : words(*v)) {
                const std::uint32_t n = node(r, "nodes", w);
                if (!members.insert(n).second) continue;
                if (const auto [it, fresh] = in_complete.emplace(n, table.line); !fresh)
                    fail(r, fmt::format("<routes> attribute 'nodes': node '{}' is already in "
                                        "the complete <routes> of line {}",
                                        w, it->second));
                table.nodes.push_back(n);
            }
        }
        const auto index = static_cast<std::int32_t>(t.route_tables.size());
        for (pugi::xml_node c = r.first_child(); c; c = c.next_sibling()) {
            if (c.type() != pugi::node_element || std::string_view(c.name()) != "route")
                fail(c, "unexpected content in <routes>; expected only <route> elements");
            check_attributes(c, {"from", "to", "via"});
            GivenRoute g;
            g.table = index;
            g.line = line_of(c);
            g.from = node(c, "from", std::string(required(c, "from")));
            g.to = node(c, "to", std::string(required(c, "to")));
            if (g.from == g.to)
                fail(c, fmt::format("<route> from node '{}' to itself; a node's own messages "
                                    "take its loopback",
                                    t.nodes[g.from].name));
            if (table.complete && (!members.count(g.from) || !members.count(g.to)))
                fail(c, fmt::format("<route> from '{}' to '{}': both must be among the "
                                    "<routes>' nodes",
                                    t.nodes[g.from].name, t.nodes[g.to].name));
            if (!given.emplace(g.from, g.to).second)
                fail(c, fmt::format("a second <route> from '{}' to '{}'", t.nodes[g.from].name,
                                    t.nodes[g.to].name));
            VertexId at = t.nodes[g.from].nic;
            const std::vector<std::string> via =
                optional(c, "via") ? words(*optional(c, "via")) : std::vector<std::string>{};
            for (std::size_t i = 0; i <= via.size(); ++i) {
                const VertexId next = i < via.size() ? t.find_vertex(via[i]) : t.nodes[g.to].nic;
                if (next == kNoVertex)
                    fail(c, fmt::format("<route> attribute 'via': no vertex named '{}'", via[i]));
                bool joined = false;
                for (auto [e, end] = t.out_edge_range(at); e < end && !joined; ++e)
                    joined = t.target_of(e) == next;
                if (!joined)
                    fail(c, fmt::format("<route> from '{}' to '{}': no cable or edge from '{}' "
                                        "to '{}'",
                                        t.nodes[g.from].name, t.nodes[g.to].name, t.vertex(at).name,
                                        t.vertex(next).name));
                if (i < via.size()) g.via.push_back(next);
                at = next;
            }
            t.given_routes.push_back(std::move(g));
        }
        t.route_tables.push_back(std::move(table));
    }
}

void Reader::read_network(pugi::xml_node n) {
    check_attributes(n, {"model", "forwarding", "granularity", "routing", "nic", "eager-threshold",
                         "cpu", "progress"});
    NetworkSettings& s = tb_.settings();
    if (const auto v = optional(n, "cpu")) {
        s.cpu_model = *v;
        s.cpu_model_line = line_of(n);
    }
    if (const auto v = optional(n, "model")) {
        if (*v == "packet")
            s.model = NetworkModel::Packet;
        else if (*v == "fluid")
            s.model = NetworkModel::Fluid;
        else
            fail(n,
                 fmt::format(
                     "<network> attribute 'model': '{}' is not valid{}; expected packet or fluid",
                     *v, did_you_mean(*v, {"packet", "fluid"})));
    }
    if (optional(n, "forwarding")) s.forwarding = forwarding_attr(n);
    if (const auto v = optional(n, "granularity")) s.granularity = granularity_attr(n, *v);
    if (const auto v = optional(n, "routing")) {
        routing_given_ = true;
        if (const std::optional<Routing> r = parse_routing(*v)) {
            s.routing = *r;
        } else {
            fail(n,
                 fmt::format("<network> attribute 'routing': '{}' is not valid{}; expected "
                             "shortest_path or round_robin, or simgrid, valiant, ugal_l, "
                             "ugal_g (dragonfly only), dimension_order, dimension_order_balanced "
                             "(torus only), d_mod_k, "
                             "adaptive_up (fat tree only)",
                             *v, did_you_mean(*v, routing_names())));
        }
    }
    if (const auto v = optional(n, "nic")) s.nic_model = nic_attr(n, *v);
    if (const auto v = optional(n, "eager-threshold"))
        s.eager_threshold = with_unit(n, "eager-threshold", *v, parse_size);
    if (const auto v = optional(n, "progress")) {
        if (same_but_separators(*v, "in_mpi"))
            s.progress_in_mpi = true;
        else if (*v != "always")
            fail(n, fmt::format("<network> attribute 'progress': '{}' is not valid{}; expected "
                                "in_mpi or always",
                                *v, did_you_mean(*v, {"in_mpi", "always"})));
    }
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
    const std::vector<std::string_view> children = known(true);
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element)
            fail(c,
                 "unexpected text in <node-type>; expected only elements: " + join_names(children));
        if (!has_name(children, c.name())) {
            fail(c,
                 fmt::format("unknown element <{}> in <node-type>{}; expected one of: {}", c.name(),
                             did_you_mean(c.name(), {children.begin(), children.end()}),
                             join_names(children)));
        }
    }
    // Vertices first, so an edge may name a vertex declared after it.
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        const std::string_view el = c.name();
        if (el == "socket" || el == "memory-node" || el == "switch" || el == "nic")
            read_type_vertex(c, *t);
    }
    if (t->num_sockets() == 0) {
        fail(n, fmt::format("<node-type> '{}' has no <socket>; expected at least one", t->name));
    }
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        const std::string_view el = c.name();
        if (el == "cable" || el == "edge") read_type_edge(c, *t);
    }
    if (!parts_.empty()) {
        std::uint64_t cores = 0;
        for (const auto& v : t->vertices) cores += v.cores;
        const NodeTypeInfo info{t->name, cores, t->line};
        for (const SchemaPart& p : parts_)
            if (!p.node_type_elements.empty()) p.read_node_type(n, info, *this);
    }
    type_names_.push_back(t->name);
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

const NodeTemplate& Reader::type_attr(pugi::xml_node n) const {
    const std::string_view v = required(n, "type");
    const auto it = type_index_.find(std::string(v));
    if (it == type_index_.end()) {
        std::string names;
        for (const auto& t : types_) names += (names.empty() ? "" : ", ") + t->name;
        std::vector<std::string> declared;
        for (const auto& t : types_) declared.push_back(t->name);
        fail(n,
             fmt::format("{} attribute 'type': unknown node-type '{}'{}; declared node-types: {}",
                         tag(n), v, did_you_mean(v, declared),
                         names.empty() ? std::string("(none)") : names));
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

const std::vector<std::string_view>& core_elements() {
    static const std::vector<std::string_view> names(kTopLevel.begin(), kTopLevel.end());
    return names;
}

const std::vector<std::string_view>& core_node_type_elements() {
    static const std::vector<std::string_view> names(kTypeChildren.begin(), kTypeChildren.end());
    return names;
}

Topology ModelReader::parse(std::string_view xml, const std::string& file_name) const {
    Reader reader(xml, file_name, parts_);
    return reader.read();
}

Topology parse_model(std::string_view xml, const std::string& file_name) {
    return ModelReader{}.parse(xml, file_name);
}

Topology load_model(const std::string& path) {
    return ModelReader{}.load(path);
}

}  // namespace clustersim::topo
