#include "iosys/io_settings.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include <fmt/format.h>

#include "simulator/suggest.hpp"
#include "simulator/units.hpp"

namespace clustersim::io {

namespace {

constexpr std::array<std::string_view, 2> kIoServerChildren{"cache", "disk"};

// Reads every parallel I/O element of a <cluster> into `io_`: the servers, then the
// forwarders, then the <file-system> (it names servers).
class IoReader {
  public:
    IoReader(const topo::PartContext& ctx, IoSettings& io) : x_(ctx), io_(io) {}
    void read(pugi::xml_node root);

  private:
    void read_io_server(pugi::xml_node n);
    ComponentSpec read_component(pugi::xml_node n) const;
    void read_io_forwarder(pugi::xml_node n);
    void read_file_system(pugi::xml_node n);
    std::int32_t node_index(pugi::xml_node n, const char* attr, std::string_view name) const;
    // Node names separated by spaces and/or commas: at least one, each a node, none twice.
    std::vector<std::int32_t> node_list(pugi::xml_node n, const char* attr) const;

    const topo::PartContext& x_;
    IoSettings& io_;
    // Node -> its <io-server> (index into IoSettings::servers), node -> the line of the
    // <io-forwarder> that serves it.
    std::vector<std::int32_t> server_of_node_;
    std::vector<int> forwarder_of_node_;
};

void IoReader::read(pugi::xml_node root) {
    const pugi::xml_node first_server = root.child("io-server");
    const pugi::xml_node first_forwarder = root.child("io-forwarder");
    const pugi::xml_node fs = root.child("file-system");
    if (!first_server && !first_forwarder && !fs) return;
    const std::vector<topo::NodeInfo>& nodes = x_.nodes();
    server_of_node_.assign(nodes.size(), -1);
    forwarder_of_node_.assign(nodes.size(), 0);

    for (pugi::xml_node c = first_server; c; c = c.next_sibling("io-server")) read_io_server(c);
    for (pugi::xml_node c = first_forwarder; c; c = c.next_sibling("io-forwarder"))
        read_io_forwarder(c);
    if (fs) {
        if (const pugi::xml_node second = fs.next_sibling("file-system")) {
            x_.fail(second, fmt::format("second <file-system> element (the first is on line {}); "
                                        "expected at most one",
                                        x_.line_of(fs)));
        }
        read_file_system(fs);
    } else if (first_server) {
        // Servers without a <file-system>: stripe over all of them with the defaults.
        FileSystemSpec& f = io_.fs;
        f.present = true;
        f.line = x_.line_of(first_server);
        for (std::size_t i = 0; i < io_.servers.size(); ++i)
            f.servers.push_back(static_cast<std::int32_t>(i));
    }
}

std::int32_t IoReader::node_index(pugi::xml_node n, const char* attr, std::string_view name) const {
    const std::int32_t node = x_.find_node(name);
    if (node < 0)
        x_.fail(n, fmt::format("{} attribute '{}': no node named '{}'", x_.tag(n), attr, name));
    return node;
}

std::vector<std::int32_t> IoReader::node_list(pugi::xml_node n, const char* attr) const {
    const std::string_view v = x_.required(n, attr);
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
            x_.fail(n, fmt::format("{} attribute '{}': node '{}' is listed twice", x_.tag(n), attr,
                                   name));
        }
        listed[node] = true;
        out.push_back(node);
    }
    if (out.empty()) {
        x_.fail(n, fmt::format("{} attribute '{}' names no node; expected node names separated by "
                               "spaces or commas (e.g. \"n0 n1\")",
                               x_.tag(n), attr));
    }
    return out;
}

ComponentSpec IoReader::read_component(pugi::xml_node n) const {
    x_.check_unique_attributes(n);
    x_.check_empty(n);
    ComponentSpec spec;
    spec.model = std::string(x_.required(n, "model"));
    if (spec.model.empty())
        x_.fail(n, fmt::format("{} attribute 'model' must not be empty", x_.tag(n)));
    for (pugi::xml_attribute a = n.first_attribute(); a; a = a.next_attribute()) {
        if (std::strcmp(a.name(), "model") != 0) spec.params.emplace_back(a.name(), a.value());
    }
    spec.line = x_.line_of(n);
    return spec;
}

void IoReader::read_io_server(pugi::xml_node n) {
    x_.check_attributes(n, {"node", "nodes"});
    const bool one = static_cast<bool>(n.attribute("node"));
    if (one == static_cast<bool>(n.attribute("nodes"))) {
        x_.fail(n,
                "<io-server> needs exactly one of the attributes 'node' (one server) and 'nodes' "
                "(one server per listed node)");
    }
    const int line = x_.line_of(n);
    std::vector<std::int32_t> nodes;
    if (one) {
        nodes.push_back(node_index(n, "node", x_.required(n, "node")));
    } else {
        nodes = node_list(n, "nodes");
    }
    pugi::xml_node cache, disk;
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element) {
            x_.fail(c, "unexpected text in <io-server>; expected only elements: " +
                           topo::join_names(kIoServerChildren));
        }
        if (!topo::has_name(kIoServerChildren, c.name())) {
            x_.fail(
                c, fmt::format(
                       "unknown element <{}> in <io-server>{}; expected one of: {}", c.name(),
                       did_you_mean(c.name(), {kIoServerChildren.begin(), kIoServerChildren.end()}),
                       topo::join_names(kIoServerChildren)));
        }
        pugi::xml_node& slot = std::strcmp(c.name(), "cache") == 0 ? cache : disk;
        if (slot) {
            x_.fail(c,
                    fmt::format("second {} in <io-server> (the first is on line {}); expected at "
                                "most one",
                                x_.tag(c), x_.line_of(slot)));
        }
        slot = c;
    }
    if (!disk) {
        x_.fail(n,
                "<io-server> has no <disk>; expected exactly one <disk model=\"...\"/> (and at "
                "most one <cache>)");
    }
    IoServerSpec spec;
    spec.cache = cache ? read_component(cache) : ComponentSpec{"none", {}, line};
    spec.disk = read_component(disk);
    spec.line = line;
    IoSettings& io = io_;
    for (const std::int32_t node : nodes) {
        if (const std::int32_t other = server_of_node_[node]; other >= 0) {
            x_.fail(n, fmt::format("node '{}' already has an <io-server> (line {}); expected at "
                                   "most one server per node",
                                   x_.nodes()[node].name, io.servers[other].line));
        }
        server_of_node_[node] = static_cast<std::int32_t>(io.servers.size());
        spec.node = node;
        io.servers.push_back(spec);
    }
}

void IoReader::read_io_forwarder(pugi::xml_node n) {
    x_.check_attributes(n, {"node", "clients"});
    x_.check_empty(n);
    IoForwarderSpec spec;
    spec.line = x_.line_of(n);
    spec.node = node_index(n, "node", x_.required(n, "node"));
    spec.clients = node_list(n, "clients");
    for (const std::int32_t client : spec.clients) {
        const std::string& name = x_.nodes()[client].name;
        if (client == spec.node) {
            x_.fail(n, fmt::format("<io-forwarder> attribute 'clients': node '{}' is the forwarder "
                                   "itself; expected other nodes",
                                   name));
        }
        if (const int other = forwarder_of_node_[client]; other != 0) {
            x_.fail(n, fmt::format("<io-forwarder> attribute 'clients': node '{}' is already a "
                                   "client of the <io-forwarder> on line {}; expected at most one "
                                   "forwarder per node",
                                   name, other));
        }
        forwarder_of_node_[client] = spec.line;
    }
    io_.forwarders.push_back(std::move(spec));
}

void IoReader::read_file_system(pugi::xml_node n) {
    x_.check_attributes(n, {"distribution",
                            "stripe",
                            "servers",
                            "open",
                            "close",
                            "sync",
                            "request-size",
                            "granularity",
                            "cb-buffer",
                            "cb-nodes",
                            "open-per-rank",
                            "close-per-rank",
                            "collective-close",
                            "request-overhead",
                            "handshake",
                            "small-io",
                            "open-requests",
                            "open-collectives",
                            "first-open",
                            "connect-round-trips",
                            "sync-apart"});
    x_.check_empty(n);
    FileSystemSpec& f = io_.fs;
    f.present = true;
    f.line = x_.line_of(n);
    if (const auto v = x_.optional(n, "distribution")) {
        if (v->empty()) x_.fail(n, "<file-system> attribute 'distribution' must not be empty");
        f.distribution = std::string(*v);
    }
    if (const auto v = x_.optional(n, "stripe"))
        f.stripe = x_.positive_size(n, "stripe", *v, "stripe (chunk) size");
    if (const auto v = x_.optional(n, "open")) f.open = x_.with_unit(n, "open", *v, parse_time);
    if (const auto v = x_.optional(n, "close")) f.close = x_.with_unit(n, "close", *v, parse_time);
    if (const auto v = x_.optional(n, "sync")) f.sync = x_.with_unit(n, "sync", *v, parse_time);
    if (const auto v = x_.optional(n, "sync-apart")) {
        f.sync_apart = x_.with_unit(n, "sync-apart", *v, parse_time);
        if (f.sync_apart < Time::zero())
            x_.fail(n, "<file-system> attribute 'sync-apart': a negative time");
    }
    if (const auto v = x_.optional(n, "open-per-rank"))
        f.open_per_rank = x_.with_unit(n, "open-per-rank", *v, parse_time);
    if (const auto v = x_.optional(n, "close-per-rank"))
        f.close_per_rank = x_.with_unit(n, "close-per-rank", *v, parse_time);
    if (const auto v = x_.optional(n, "request-overhead"))
        f.request_overhead = x_.with_unit(n, "request-overhead", *v, parse_time);
    if (const auto v = x_.optional(n, "first-open")) {
        f.first_open = x_.with_unit(n, "first-open", *v, parse_time);
        if (f.first_open < Time::zero())
            x_.fail(n, "<file-system> attribute 'first-open': a negative time");
    }
    if (const auto v = x_.yes_no(n, "collective-close")) f.close_collective = *v;
    if (const auto v = x_.yes_no(n, "handshake")) f.handshake = *v;
    if (const auto v = x_.yes_no(n, "open-collectives")) f.open_collectives = *v;
    if (const auto v = x_.optional(n, "small-io"))
        f.small_io = x_.with_unit(n, "small-io", *v, parse_size);
    if (const auto v = x_.optional(n, "open-requests")) {
        const std::uint64_t c = x_.with_unit(n, "open-requests", *v, parse_count);
        if (c > 1000)
            x_.fail(n, fmt::format("<file-system> attribute 'open-requests': {} round trips per "
                                   "open; at most 1000",
                                   c));
        f.open_requests = static_cast<std::uint32_t>(c);
    }
    if (const auto v = x_.optional(n, "connect-round-trips")) {
        const std::uint64_t c = x_.with_unit(n, "connect-round-trips", *v, parse_count);
        if (c < 1 || c > 64)
            x_.fail(n, fmt::format("<file-system> attribute 'connect-round-trips': '{}' is not "
                                   "valid; expected a whole number from 1 to 64",
                                   *v));
        f.connect_round_trips = static_cast<std::uint32_t>(c);
    }
    if (const auto v = x_.optional(n, "request-size"))
        f.request_bytes = x_.with_unit(n, "request-size", *v, parse_size);
    if (const auto v = x_.optional(n, "granularity"))
        f.granularity = x_.positive_size(n, "granularity", *v, "server's chunk size");
    if (const auto v = x_.optional(n, "cb-buffer"))
        f.cb_buffer = x_.positive_size(n, "cb-buffer", *v, "collective buffer size");
    if (const auto v = x_.optional(n, "cb-nodes")) {
        const std::uint64_t c = x_.with_unit(n, "cb-nodes", *v, parse_count);
        if (c > static_cast<std::uint64_t>(INT32_MAX))
            x_.fail(n, fmt::format("<file-system> attribute 'cb-nodes': {} is too many", c));
        f.cb_nodes = static_cast<std::int32_t>(c);
    }
    const std::size_t num_servers = io_.servers.size();
    if (num_servers == 0) {
        x_.fail(n,
                "<file-system> without any <io-server>; expected at least one <io-server "
                "node=\"...\"> to stripe files over");
    }
    if (!x_.optional(n, "servers")) {
        for (std::size_t i = 0; i < num_servers; ++i)
            f.servers.push_back(static_cast<std::int32_t>(i));
        return;
    }
    for (const std::int32_t node : node_list(n, "servers")) {
        const std::int32_t server = server_of_node_[node];
        if (server < 0) {
            x_.fail(n,
                    fmt::format("<file-system> attribute 'servers': node '{}' has no <io-server> "
                                "(files cannot be striped over it)",
                                x_.nodes()[node].name));
        }
        f.servers.push_back(server);
    }
}

}  // namespace

topo::SchemaPart io_part(IoSettings& out) {
    topo::SchemaPart part;
    part.name = "io";
    part.elements = {"file-system", "io-server", "io-forwarder"};
    part.stage = topo::ReadStage::AfterGraph;
    part.read = [&out](pugi::xml_node cluster, const topo::PartContext& ctx) {
        IoReader(ctx, out).read(cluster);
    };
    return part;
}

void summarize_io(const IoSettings& io, const std::vector<topo::NodeInfo>& nodes,
                  topo::ModelSummary& s) {
    for (const IoServerSpec& server : io.servers) {
        s.io_servers.push_back({nodes[server.node].name, server.cache.model, server.disk.model});
    }
    s.io_forwarders = io.forwarders.size();
    if (io.fs.present) {
        s.stripe = io.fs.stripe;
        s.stripe_all = io.fs.servers.size() == io.servers.size();
        for (std::size_t i = 0; i < io.fs.servers.size(); ++i) {
            const std::int32_t server = io.fs.servers[i];
            s.stripe_servers.push_back(nodes[io.servers[server].node].name);
            if (server != static_cast<std::int32_t>(i)) s.stripe_all = false;
        }
    }
}

}  // namespace clustersim::io
