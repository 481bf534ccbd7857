#include "models/comm_spec.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "simulator/spelling.hpp"
#include "simulator/suggest.hpp"
#include "simulator/units.hpp"

namespace clustersim::comm {

namespace {

using Kind = CommAttribute::Kind;
using Value = CommAttribute::Value;

constexpr std::array<std::string_view, 3> kCommChildren{"node-type", "collective",
                                                        "point-to-point"};

// The attributes <comm-model> takes: "model", then comm_attributes() with the link values
// (times and bandwidths) first, the counts next and the choice last, each group in table
// order (the order the error has always listed them in).
const std::vector<std::string_view>& xml_attributes() {
    static const std::vector<std::string_view> names = [] {
        auto group = [](Kind k) { return k == Kind::Count ? 1 : k == Kind::Collectives ? 2 : 0; };
        std::vector<std::string_view> out{"model"};
        for (int g = 0; g < 3; ++g)
            for (const CommAttribute& a : comm_attributes())
                if (group(a.kind) == g) out.push_back(a.info.name);
        return out;
    }();
    return names;
}

// Reads one <comm-model> into `spec`.
class CommReader {
  public:
    CommReader(const topo::PartContext& ctx, CommModelSpec& spec) : x_(ctx), spec_(spec) {}
    void read(pugi::xml_node n);

  private:
    void read_node_type(pugi::xml_node n);
    void read_collective(pugi::xml_node n);
    void read_p2p(pugi::xml_node n);

    const topo::PartContext& x_;
    CommModelSpec& spec_;
};

void CommReader::read(pugi::xml_node n) {
    x_.check_attributes(n, xml_attributes());
    spec_.present = true;
    spec_.line = x_.line_of(n);
    spec_.model = std::string(x_.required(n, "model"));
    if (spec_.model.empty()) x_.fail(n, "<comm-model> attribute 'model' must not be empty");
    for (const CommAttribute& a : comm_attributes()) {
        const char* name = a.info.name.c_str();
        const auto v = x_.optional(n, name);
        if (!v) continue;
        Value value;
        switch (a.kind) {
            case Kind::Count:
                value.count = x_.count32_attr(n, name, *v, a.unit);
                break;
            case Kind::Time:
                value.time = x_.with_unit(n, name, *v, parse_time);
                break;
            case Kind::Bandwidth:
                value.bandwidth = x_.finite_bandwidth(n, name, *v);
                break;
            case Kind::Collectives:
                if (*v != "analytic" && *v != "messages")
                    x_.fail(n, fmt::format("<comm-model> attribute 'collectives': {}",
                                           not_one_of(*v, {"analytic", "messages"})));
                value.messages = *v == "messages";
                break;
        }
        a.set(spec_, value);
    }
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element)
            x_.fail(c, "unexpected text in <comm-model>; expected only elements: " +
                           topo::join_names(kCommChildren));
        if (std::find(kCommChildren.begin(), kCommChildren.end(), std::string_view(c.name())) ==
            kCommChildren.end()) {
            x_.fail(c, fmt::format(
                           "unknown element <{}> in <comm-model>{}; expected one of: {}", c.name(),
                           did_you_mean(c.name(), {kCommChildren.begin(), kCommChildren.end()}),
                           topo::join_names(kCommChildren)));
        }
        if (std::strcmp(c.name(), "node-type") == 0)
            read_node_type(c);
        else if (std::strcmp(c.name(), "point-to-point") == 0)
            read_p2p(c);
        else
            read_collective(c);
    }
}

void CommReader::read_node_type(pugi::xml_node n) {
    x_.check_attributes(n, {"name", "in-links", "out-links", "latency", "bandwidth"});
    x_.check_empty(n);
    CommNodeSpec t;
    t.line = x_.line_of(n);
    const std::string_view name = x_.required(n, "name");
    if (name.empty()) x_.fail(n, "<node-type> attribute 'name' must not be empty");
    const std::vector<std::string>& types = x_.node_type_names();
    if (std::find(types.begin(), types.end(), name) == types.end()) {
        std::string names;
        for (const std::string& type : types) names += (names.empty() ? "" : ", ") + type;
        x_.fail(n, fmt::format("<node-type> attribute 'name': unknown node-type '{}'; declared "
                               "node-types: {}",
                               name, names.empty() ? std::string("(none)") : names));
    }
    t.node_type = std::string(name);
    for (const CommNodeSpec& other : spec_.node_types) {
        if (other.node_type == t.node_type) {
            x_.fail(n, fmt::format("node-type '{}' already has a <node-type> in <comm-model> "
                                   "(line {}); expected at most one per node-type",
                                   t.node_type, other.line));
        }
    }
    if (const auto v = x_.optional(n, "in-links"))
        t.in_links = x_.count32_attr(n, "in-links", *v, "link");
    if (const auto v = x_.optional(n, "out-links"))
        t.out_links = x_.count32_attr(n, "out-links", *v, "link");
    if (const auto v = x_.optional(n, "latency")) {
        t.latency = x_.with_unit(n, "latency", *v, parse_time);
        t.has_latency = true;
    }
    if (const auto v = x_.optional(n, "bandwidth")) {
        t.bandwidth = x_.finite_bandwidth(n, "bandwidth", *v);
        t.has_bandwidth = true;
    }
    spec_.node_types.push_back(std::move(t));
}

void CommReader::read_collective(pugi::xml_node n) {
    x_.check_attributes(n, {"operation", "scaling", "ranks"});
    CommCollectiveSpec coll;
    coll.line = x_.line_of(n);
    coll.operation = std::string(x_.required(n, "operation"));
    if (coll.operation.empty()) x_.fail(n, "<collective> attribute 'operation' must not be empty");
    for (const CommCollectiveSpec& other : spec_.collectives) {
        if (other.operation == coll.operation) {
            x_.fail(n, fmt::format("second <collective> for operation '{}' in <comm-model> (the "
                                   "first is on line {}); expected at most one per operation",
                                   coll.operation, other.line));
        }
    }
    if (const auto v = x_.optional(n, "scaling")) {
        if (*v != "constant" && *v != "linear" && *v != "logarithmic") {
            x_.fail(n, fmt::format("<collective> attribute 'scaling': {}",
                                   not_one_of(*v, {"constant", "linear", "logarithmic"})));
        }
        coll.scaling = std::string(*v);
    }
    const auto ranks = x_.optional(n, "ranks");
    if (ranks) coll.ranks = x_.count32_attr(n, "ranks", *ranks, "rank");
    coll.points = x_.read_points(n, "collective");
    if (!coll.points.empty() && !ranks) {
        x_.fail(n,
                "<collective> has <point> elements but no 'ranks'; expected ranks=\"N\", the "
                "number of ranks the points were measured at");
    }
    if (coll.points.empty() && ranks) {
        x_.fail(n,
                "<collective> attribute 'ranks' without <point> elements; expected 'ranks' only "
                "with the points measured at that many ranks");
    }
    spec_.collectives.push_back(std::move(coll));
}

// <point-to-point scope="intra-node|inter-node">: the measured transfer bandwidth of one
// message against its size (clustersim-calibrate writes it); see CommModelSpec.
void CommReader::read_p2p(pugi::xml_node n) {
    x_.check_attributes(n, {"scope", "direction"});
    const std::string_view scope = x_.required(n, "scope");
    bool both = false, concurrent = false;
    if (const auto d = x_.optional(n, "direction")) {
        if (*d == "both")
            both = true;
        else if (*d == "concurrent")
            concurrent = true;
        else if (*d != "one-way")
            x_.fail(n, fmt::format("<point-to-point> attribute 'direction': {}",
                                   not_one_of(*d, {"one-way", "both", "concurrent"})));
    }
    std::vector<std::pair<std::uint64_t, Bandwidth>>* curve = nullptr;
    int* line = nullptr;
    if (same_but_separators(scope, "intra_node")) {
        curve = both ? &spec_.intra_two_way
                     : (concurrent ? &spec_.intra_concurrent : &spec_.intra_curve);
        line = both ? &spec_.intra_two_way_line
                    : (concurrent ? &spec_.intra_concurrent_line : &spec_.intra_curve_line);
    } else if (same_but_separators(scope, "inter_node")) {
        curve = both ? &spec_.inter_two_way
                     : (concurrent ? &spec_.inter_concurrent : &spec_.inter_curve);
        line = both ? &spec_.inter_two_way_line
                    : (concurrent ? &spec_.inter_concurrent_line : &spec_.inter_curve_line);
    } else {
        x_.fail(n, fmt::format("<point-to-point> attribute 'scope': {}",
                               not_one_of(scope, {"intra_node", "inter_node"})));
    }
    const char* direction =
        both ? " direction=\"both\"" : (concurrent ? " direction=\"concurrent\"" : "");
    if (*line != 0)
        x_.fail(n, fmt::format("second <point-to-point scope=\"{}\"{}> in <comm-model> (the "
                               "first is on line {}); expected at most one per scope and "
                               "direction",
                               scope, direction, *line));
    *line = x_.line_of(n);
    *curve = x_.read_points(n, "point-to-point");
    if (curve->empty())
        x_.fail(n, "<point-to-point> without <point> elements; expected the measured points");
}

}  // namespace

const std::vector<CommAttribute>& comm_attributes() {
    static const std::vector<CommAttribute> table{
        {{"buses", "count", "", "1", "global buses a message between nodes holds one of"},
         Kind::Count,
         "bus",
         [](CommModelSpec& c, const Value& v) { c.buses = v.count; }},
        {{"in-links", "count", "", "1", "incoming links of every node"},
         Kind::Count,
         "link",
         [](CommModelSpec& c, const Value& v) { c.in_links = v.count; }},
        {{"out-links", "count", "", "1", "outgoing links of every node"},
         Kind::Count,
         "link",
         [](CommModelSpec& c, const Value& v) { c.out_links = v.count; }},
        {{"latency", "time", "s", "the route's",
          "latency between nodes (else each pair's route latency)"},
         Kind::Time,
         "",
         [](CommModelSpec& c, const Value& v) { c.has_latency = true, c.latency = v.time; }},
        {{"bandwidth", "bandwidth", "B/s", "the route's",
          "bandwidth between nodes (else each pair's route bottleneck)"},
         Kind::Bandwidth,
         "",
         [](CommModelSpec& c, const Value& v) {
             c.has_bandwidth = true, c.bandwidth = v.bandwidth;
         }},
        {{"intra-latency", "time", "s", "the route's", "latency within a node"},
         Kind::Time,
         "",
         [](CommModelSpec& c, const Value& v) {
             c.has_intra_latency = true, c.intra_latency = v.time;
         }},
        {{"intra-bandwidth", "bandwidth", "B/s", "the route's", "bandwidth within a node"},
         Kind::Bandwidth,
         "",
         [](CommModelSpec& c, const Value& v) {
             c.has_intra_bandwidth = true, c.intra_bandwidth = v.bandwidth;
         }},
        {{"collectives", "choice", "", "analytic",
          "analytic: a collective call is timed as a whole; messages: its algorithm's "
          "messages go through the model"},
         Kind::Collectives,
         "",
         [](CommModelSpec& c, const Value& v) { c.collectives_as_messages = v.messages; }},
    };
    return table;
}

const std::vector<ParamInfo>& analytic_params() {
    static const std::vector<ParamInfo> params = [] {
        std::vector<ParamInfo> out;
        for (const CommAttribute& a : comm_attributes()) out.push_back(a.info);
        return out;
    }();
    return params;
}

void set_attribute(CommModelSpec& spec, std::string_view key, const std::string& text) {
    for (const CommAttribute& a : comm_attributes()) {
        if (a.info.name != key) continue;
        Value value;
        switch (a.kind) {
            case Kind::Count: {
                const std::uint64_t n = parse_count(text);
                if (n == 0 || n > UINT32_MAX) throw std::invalid_argument("expected a count >= 1");
                value.count = static_cast<std::uint32_t>(n);
                break;
            }
            case Kind::Time:
                value.time = parse_time(text);
                break;
            case Kind::Bandwidth:
                value.bandwidth = parse_bandwidth(text);
                if (value.bandwidth.infinite())
                    throw std::invalid_argument("expected a finite bandwidth");
                break;
            case Kind::Collectives:
                if (text != "analytic" && text != "messages")
                    throw std::invalid_argument("expected analytic or messages");
                value.messages = text == "messages";
                break;
        }
        a.set(spec, value);
    }
}

std::string describe(const CommModelSpec& c) {
    const auto buses = c.buses == 1 ? std::string("1 bus") : fmt::format("{} buses", c.buses);
    return fmt::format(
        " ({}; {}, {} in / {} out links per node{}; latency {}, bandwidth {}; collectives {})",
        c.model, buses, c.in_links, c.out_links,
        c.node_types.empty() ? "" : fmt::format(", {} node types set apart", c.node_types.size()),
        c.has_latency ? format_time(c.latency) : "from the graph",
        c.has_bandwidth ? format_bandwidth(c.bandwidth) : "from the graph",
        c.collectives_as_messages ? "as messages" : "timed as a whole");
}

topo::SchemaPart comm_model_part(CommModelSpec& out) {
    topo::SchemaPart part;
    part.name = "comm-model";
    part.elements = {"comm-model"};
    part.stage = topo::ReadStage::AfterNodeTypes;
    part.read = [&out](pugi::xml_node cluster, const topo::PartContext& ctx) {
        pugi::xml_node first;
        for (pugi::xml_node c = cluster.child("comm-model"); c; c = c.next_sibling("comm-model")) {
            if (first)
                ctx.fail(c, fmt::format("second <comm-model> element (the first is on line {}); "
                                        "expected at most one",
                                        ctx.line_of(first)));
            first = c;
        }
        if (first) CommReader(ctx, out).read(first);
    };
    return part;
}

}  // namespace clustersim::comm
