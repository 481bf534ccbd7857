// The model XML reader: every example loads with the right counts, the format's features
// land in the Topology, and every kind of bad input gets its own message and line.
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/model.hpp"
#include "simulator/error.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/routing.hpp"
#include "topologies/summary.hpp"

namespace clustersim::topo {
namespace CLUSTERSIM_TEST_FILE {

using ::testing::HasSubstr;
using ::testing::Not;

std::string example(const std::string& name) {
    return std::string(CLUSTERSIM_SOURCE_DIR) + "/topologies/examples/" + name;
}

std::string bad(const std::string& name) {
    return std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/data/bad/" + name;
}

struct Counts {
    std::size_t nodes = 0, sockets = 0, memory_nodes = 0, switches = 0, nics = 0, edges = 0;
    std::uint64_t cores = 0;
};

Counts count(const Topology& t) {
    Counts c;
    c.nodes = t.nodes.size();
    c.edges = t.num_edges();
    for (VertexId v = 0; v < t.num_vertices(); ++v) {
        switch (t.vertex(v).kind) {
            case VertexKind::Socket:
                ++c.sockets;
                break;
            case VertexKind::MemoryNode:
                ++c.memory_nodes;
                break;
            case VertexKind::Switch:
                ++c.switches;
                break;
            case VertexKind::Nic:
                ++c.nics;
                break;
        }
    }
    for (const auto& n : t.nodes)
        for (const auto& s : n.sockets) c.cores += s.cores;
    return c;
}

// ---- examples ---------------------------------------------------------------------------

TEST(TopoModel, Figure1WestmereLoads) {
    const run::Model t_model = run::load_model(example("figure1-westmere-10.xml"));
    const topo::Topology& t = t_model.topology;
    EXPECT_EQ(t.name, "figure1-westmere-10");
    EXPECT_EQ(t.source, example("figure1-westmere-10.xml"));
    const Counts c = count(t);
    EXPECT_EQ(c.nodes, 10u);
    EXPECT_EQ(c.sockets, 20u);
    EXPECT_EQ(c.cores, 120u);
    EXPECT_EQ(c.memory_nodes, 20u);
    EXPECT_EQ(c.switches, 11u);  // 10 QPI + the central switch
    EXPECT_EQ(c.nics, 10u);
    EXPECT_EQ(c.edges, 10u * 10 + 10 * 2);  // 5 cables per node, 10 cables to the switch
    EXPECT_EQ(t.num_vertices(), 61u);
    EXPECT_EQ(t.settings.granularity, 100u * 1024);
    EXPECT_EQ(t.settings.eager_threshold, 64u * 1024);
    EXPECT_EQ(t.settings.routing, Routing::ShortestPath);
    EXPECT_EQ(t.settings.nic_model, NicModel::Packet);

    const NodeInfo& n3 = t.nodes[3];
    EXPECT_EQ(n3.name, "n3");
    EXPECT_EQ(n3.type, "westmere");
    EXPECT_EQ(n3.memory, 12ull << 30);
    ASSERT_EQ(n3.sockets.size(), 2u);
    EXPECT_EQ(n3.sockets[1].cores, 6u);
    EXPECT_EQ(n3.sockets[1].speed, 2'800'000'000u);
    EXPECT_EQ(t.vertex(n3.sockets[1].vertex).name, "n3.s1");
    EXPECT_EQ(t.vertex(n3.sockets[1].vertex).socket, 1);
    EXPECT_EQ(t.vertex(n3.sockets[1].vertex).node, 3);
    ASSERT_NE(n3.nic, kNoVertex);
    EXPECT_EQ(t.vertex(n3.nic).name, "n3.nic");
    EXPECT_EQ(t.vertex(n3.nic).kind, VertexKind::Nic);
    EXPECT_EQ(t.vertex(n3.nic).relay.bytes_per_s, 1'250'000'000u);
    EXPECT_EQ(n3.granularity, 100u * 1024);
    EXPECT_EQ(n3.nic_model, NicModel::Packet);

    const VertexId mem0 = t.find_vertex("n3.mem0");
    ASSERT_NE(mem0, kNoVertex);
    EXPECT_EQ(t.vertex(mem0).kind, VertexKind::MemoryNode);
    EXPECT_EQ(t.vertex(mem0).relay.bytes_per_s, 6'000'000'000u);
    EXPECT_EQ(t.vertex(mem0).local.bytes_per_s, 8'000'000'000u);
    const VertexId sw = t.find_vertex("sw");
    ASSERT_NE(sw, kNoVertex);
    EXPECT_EQ(t.vertex(sw).relay.bytes_per_s, 380'000'000u);
    EXPECT_EQ(t.vertex(sw).node, -1);
    // The switch's ten links: 25 us, 117 MB/s, each on its own line of the file.
    auto [lo, hi] = t.out_edge_range(sw);
    ASSERT_EQ(hi - lo, 10u);
    EXPECT_EQ(t.edge(lo).latency, Time::us(25));
    EXPECT_EQ(t.edge(lo).bandwidth.bytes_per_s, 117'000'000u);
    EXPECT_GT(t.edge(lo).line, 0);
    EXPECT_EQ(t.edge(lo + 1).line, t.edge(lo).line + 1);
}

TEST(TopoModel, StarExampleLoads) {
    const run::Model t_model = run::load_model(example("star-16.xml"));
    const topo::Topology& t = t_model.topology;
    const Counts c = count(t);
    EXPECT_EQ(c.nodes, 16u);
    EXPECT_EQ(c.sockets, 16u);
    EXPECT_EQ(c.cores, 128u);
    EXPECT_EQ(c.memory_nodes, 16u);
    EXPECT_EQ(c.switches, 1u);
    EXPECT_EQ(c.nics, 16u);
    EXPECT_EQ(c.edges, 16u * 4 + 16 * 2);
    EXPECT_EQ(t.num_vertices(), 49u);
    const VertexId sw = t.find_vertex("sw");
    ASSERT_NE(sw, kNoVertex);
    EXPECT_EQ(t.vertex(sw).relay.bytes_per_s, 200'000'000'000u);
    auto [lo, hi] = t.out_edge_range(sw);
    EXPECT_EQ(t.edge(lo).bandwidth.bytes_per_s, 12'500'000'000u);  // 100Gbit/s
    EXPECT_EQ(t.edge(lo).latency, Time::us(1));
    EXPECT_EQ(hi - lo, 16u);
}

TEST(TopoModel, FatTreeExampleLoads) {
    const run::Model t_model = run::load_model(example("fat-tree-16.xml"));
    const topo::Topology& t = t_model.topology;
    const Counts c = count(t);
    EXPECT_EQ(c.nodes, 16u);
    EXPECT_EQ(c.switches, 6u);  // 4 leaves + 2 spines
    EXPECT_EQ(c.nics, 16u);
    EXPECT_EQ(c.edges, 16u * 4 + 2 * (16 + 4 * 2));
    EXPECT_EQ(t.settings.routing, Routing::RoundRobin);
    for (const char* name : {"nsw1_0", "nsw1_3", "nsw2_0", "nsw2_1"})
        EXPECT_NE(t.find_vertex(name), kNoVertex) << name;
    EXPECT_EQ(t.find_vertex("nsw1_4"), kNoVertex);
}

TEST(TopoModel, TorusExampleLoads) {
    const run::Model t_model = run::load_model(example("torus-4x4.xml"));
    const topo::Topology& t = t_model.topology;
    const Counts c = count(t);
    EXPECT_EQ(c.nodes, 16u);
    EXPECT_EQ(c.switches, 0u);
    EXPECT_EQ(c.nics, 16u);
    EXPECT_EQ(c.edges, 16u * 4 + 2 * 32);
}

TEST(TopoModel, TwoNodesExampleLoads) {
    const run::Model t_model = run::load_model(example("two-nodes.xml"));
    const topo::Topology& t = t_model.topology;
    const Counts c = count(t);
    EXPECT_EQ(c.nodes, 2u);
    EXPECT_EQ(c.sockets, 2u);
    EXPECT_EQ(c.cores, 2u);
    EXPECT_EQ(c.switches, 1u);
    EXPECT_EQ(c.edges, 2u * 4 + 2 * 2);
    EXPECT_EQ(t.settings.granularity, 0u);  // whole messages
    EXPECT_EQ(t.nodes[1].granularity, 0u);
    for (EdgeId e = 0; e < t.num_edges(); ++e) {
        EXPECT_EQ(t.edge(e).latency, Time::us(1));
        EXPECT_EQ(t.edge(e).bandwidth.bytes_per_s, 1'000'000'000u);
    }
    for (VertexId v = 0; v < t.num_vertices(); ++v) EXPECT_TRUE(t.vertex(v).relay.infinite());
    EXPECT_EQ(t.nodes[0].sockets[0].speed, 1'000'000'000u);
}

// ---- format features --------------------------------------------------------------------

constexpr const char* kFeatures = R"(<cluster name="features">
  <network granularity="1MiB" routing="round_robin" nic="analytical" eager-threshold="8KiB"/>
  <node-type name="fast" memory="2GiB" nic="packet" granularity="message">
    <edge from="s0" to="nic" latency="2us" bandwidth="3GB/s"/>
    <socket name="s0" cores="4" speed="3G"/>
    <nic name="nic" bandwidth="1GB/s"/>
  </node-type>
  <node-type name="plain" memory="1GiB">
    <socket name="s0" cores="2" speed="1G"/>
    <socket name="s1" cores="2" speed="1G"/>
  </node-type>
  <cable from="a.nic" to="hub" latency="1us" bandwidth="1GB/s"/>
  <node name="a" type="fast"/>
  <memory-node name="hub" bandwidth="5GB/s" local-bandwidth="7GB/s"/>
  <nodes prefix="p" count="3" type="plain"/>
</cluster>
)";

TEST(TopoModel, FeaturesLandInTheTopology) {
    const run::Model t_model = run::parse_model(kFeatures, "features.xml");
    const topo::Topology& t = t_model.topology;
    EXPECT_EQ(t.name, "features");
    EXPECT_EQ(t.source, "features.xml");
    EXPECT_EQ(t.settings.granularity, 1u << 20);
    EXPECT_EQ(t.settings.routing, Routing::RoundRobin);
    EXPECT_EQ(t.settings.nic_model, NicModel::Analytical);
    EXPECT_EQ(t.settings.eager_threshold, 8u * 1024);
    ASSERT_EQ(t.nodes.size(), 4u);
    // Node-type overrides against network defaults.
    EXPECT_EQ(t.nodes[0].name, "a");
    EXPECT_EQ(t.nodes[0].nic_model, NicModel::Packet);
    EXPECT_EQ(t.nodes[0].granularity, 0u);
    EXPECT_EQ(t.nodes[0].line, 13);
    EXPECT_EQ(t.nodes[1].name, "p0");
    EXPECT_EQ(t.nodes[3].name, "p2");
    EXPECT_EQ(t.nodes[3].nic_model, NicModel::Analytical);
    EXPECT_EQ(t.nodes[3].granularity, 1u << 20);
    EXPECT_EQ(t.nodes[3].nic, kNoVertex);  // no NIC in the type
    EXPECT_EQ(t.nodes[3].memory, 1ull << 30);
    ASSERT_EQ(t.nodes[3].sockets.size(), 2u);
    EXPECT_EQ(t.vertex(t.nodes[3].sockets[1].vertex).name, "p2.s1");
    // <edge> is one way, <cable> two; the edge declared before its vertices still resolves.
    const VertexId s0 = t.find_vertex("a.s0"), nic = t.find_vertex("a.nic");
    const VertexId hub = t.find_vertex("hub");
    ASSERT_NE(s0, kNoVertex);
    ASSERT_NE(hub, kNoVertex);
    EXPECT_EQ(t.out_edge_range(s0).second - t.out_edge_range(s0).first, 1u);
    EXPECT_EQ(t.out_edge_range(nic).second - t.out_edge_range(nic).first, 1u);  // to hub
    const EdgeId e = t.out_edge_range(s0).first;
    EXPECT_EQ(t.target_of(e), nic);
    EXPECT_EQ(t.edge(e).latency, Time::us(2));
    EXPECT_EQ(t.edge(e).bandwidth.bytes_per_s, 3'000'000'000u);
    EXPECT_EQ(t.edge(e).line, 4);
    EXPECT_EQ(t.vertex(hub).kind, VertexKind::MemoryNode);
    EXPECT_EQ(t.vertex(hub).local.bytes_per_s, 7'000'000'000u);
    EXPECT_EQ(t.vertex(hub).line, 14);
    EXPECT_EQ(t.vertex(s0).line, 5);  // the template's <socket> line
    EXPECT_EQ(t.edge(t.out_edge_range(hub).first).line, 12);
}

TEST(TopoModel, DefaultsWithoutNetworkElement) {
    const run::Model t_model = run::parse_model(R"(<cluster>
  <node-type name="t" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <node name="x" type="t"/>
</cluster>)",
                                                "dir/tiny.xml");
    const topo::Topology& t = t_model.topology;
    EXPECT_EQ(t.name, "tiny");  // no name attribute: the file's stem
    const NetworkSettings defaults;
    EXPECT_EQ(t.settings.granularity, defaults.granularity);
    EXPECT_EQ(t.settings.eager_threshold, defaults.eager_threshold);
    EXPECT_EQ(t.settings.routing, defaults.routing);
    EXPECT_EQ(t.num_edges(), 0u);
}

// ---- parallel I/O ------------------------------------------------------------------------

// The I/O elements come before the nodes they name: any document order works.
constexpr const char* kIo = R"(<cluster name="io">
  <file-system distribution="simple-striping" stripe="1MiB" servers="n1, n0" open="1ms"
               close="100us" sync="2ms" request-size="512B" granularity="4MiB"
               cb-buffer="8MiB" cb-nodes="2"/>
  <io-server node="n0">
    <cache model="write_behind" memory="2GiB" flush="1s"/>
    <disk model="hdd" rate="50MB/s" average-seek="10ms" track-to-track="1ms" rpm="7200"/>
  </io-server>
  <io-forwarder node="n4" clients="n2 n3,n5"/>
  <io-server node="n1">
    <disk model="ssd" rate="500MB/s"/>
  </io-server>
  <node-type name="t" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <nodes prefix="n" count="6" type="t"/>
</cluster>
)";

using Params = std::vector<std::pair<std::string, std::string>>;

TEST(TopoModelIo, ServersForwarderAndFileSystem) {
    const run::Model t_model = run::parse_model(kIo, "io.xml");
    const io::IoSettings& io = t_model.io;
    ASSERT_EQ(io.servers.size(), 2u);
    const io::IoServerSpec& s0 = io.servers[0];
    EXPECT_EQ(s0.node, 0);
    EXPECT_EQ(s0.line, 5);
    EXPECT_EQ(s0.cache.model, "write_behind");
    EXPECT_EQ(s0.cache.params, (Params{{"memory", "2GiB"}, {"flush", "1s"}}));
    EXPECT_EQ(s0.cache.line, 6);
    EXPECT_EQ(s0.disk.model, "hdd");
    EXPECT_EQ(s0.disk.params, (Params{{"rate", "50MB/s"},
                                      {"average-seek", "10ms"},
                                      {"track-to-track", "1ms"},
                                      {"rpm", "7200"}}));
    EXPECT_EQ(s0.disk.line, 7);
    const io::IoServerSpec& s1 = io.servers[1];
    EXPECT_EQ(s1.node, 1);
    EXPECT_EQ(s1.line, 10);
    // No <cache>: model "none", no parameters, the server's line.
    EXPECT_EQ(s1.cache.model, "none");
    EXPECT_TRUE(s1.cache.params.empty());
    EXPECT_EQ(s1.cache.line, 10);
    EXPECT_EQ(s1.disk.model, "ssd");
    EXPECT_EQ(s1.disk.params, (Params{{"rate", "500MB/s"}}));
    EXPECT_EQ(s1.disk.line, 11);

    ASSERT_EQ(io.forwarders.size(), 1u);
    EXPECT_EQ(io.forwarders[0].node, 4);
    EXPECT_EQ(io.forwarders[0].clients, (std::vector<std::int32_t>{2, 3, 5}));
    EXPECT_EQ(io.forwarders[0].line, 9);

    const io::FileSystemSpec& fs = io.fs;
    EXPECT_TRUE(fs.present);
    EXPECT_EQ(fs.line, 2);
    EXPECT_EQ(fs.distribution, "simple-striping");
    EXPECT_EQ(fs.stripe, 1u << 20);
    EXPECT_EQ(fs.servers, (std::vector<std::int32_t>{1, 0}));  // server indices, as listed
    EXPECT_EQ(fs.open, Time::ms(1));
    EXPECT_EQ(fs.close, Time::us(100));
    EXPECT_EQ(fs.sync, Time::ms(2));
    EXPECT_EQ(fs.request_bytes, 512u);
    EXPECT_EQ(fs.granularity, 4u << 20);
    EXPECT_EQ(fs.cb_buffer, 8u << 20);
    EXPECT_EQ(fs.cb_nodes, 2);
}

TEST(TopoModelIo, FileSystemDefaultsToAllServers) {
    // nodes="..." expands to one identical server per node; without <file-system> the files
    // are striped over every server in document order with the FileSystemSpec defaults.
    const run::Model t_model = run::parse_model(R"(<cluster>
  <node-type name="t" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <nodes prefix="n" count="4" type="t"/>
  <io-server node="n3"><disk model="simple" rate="1GB/s"/></io-server>
  <io-server nodes=" n2,n0  n1 ">
    <disk model="hdd"/>
    <cache model="aggregation"/>
  </io-server>
</cluster>)",
                                                "defaults.xml");
    const io::IoSettings& io = t_model.io;
    ASSERT_EQ(io.servers.size(), 4u);
    const std::vector<std::int32_t> nodes{3, 2, 0, 1};
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(io.servers[i].node, nodes[i]) << i;
    for (std::size_t i = 1; i < 4; ++i) {
        EXPECT_EQ(io.servers[i].line, 5);
        EXPECT_EQ(io.servers[i].cache.model, "aggregation");
        EXPECT_TRUE(io.servers[i].cache.params.empty());
        EXPECT_EQ(io.servers[i].cache.line, 7);
        EXPECT_EQ(io.servers[i].disk.model, "hdd");
        EXPECT_EQ(io.servers[i].disk.line, 6);
    }
    EXPECT_EQ(io.servers[0].cache.model, "none");
    EXPECT_EQ(io.servers[0].cache.line, 4);
    EXPECT_TRUE(io.forwarders.empty());
    const io::FileSystemSpec defaults;
    const io::FileSystemSpec& fs = io.fs;
    EXPECT_TRUE(fs.present);
    EXPECT_EQ(fs.line, 4);  // the first <io-server>
    EXPECT_EQ(fs.servers, (std::vector<std::int32_t>{0, 1, 2, 3}));
    EXPECT_EQ(fs.distribution, defaults.distribution);
    EXPECT_EQ(fs.stripe, defaults.stripe);
    EXPECT_EQ(fs.open, defaults.open);
    EXPECT_EQ(fs.close, defaults.close);
    EXPECT_EQ(fs.sync, defaults.sync);
    EXPECT_EQ(fs.request_bytes, defaults.request_bytes);
    EXPECT_EQ(fs.granularity, defaults.granularity);
    EXPECT_EQ(fs.cb_buffer, defaults.cb_buffer);
    EXPECT_EQ(fs.cb_nodes, defaults.cb_nodes);

    // A <file-system> without 'servers' takes every server too, in document order.
    const run::Model u_model = run::parse_model(R"(<cluster>
  <node-type name="t" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <io-server nodes="n1 n0"><disk model="ssd"/></io-server>
  <file-system stripe="4KiB"/>
  <nodes prefix="n" count="2" type="t"/>
</cluster>)",
                                                "fs.xml");
    EXPECT_EQ(u_model.io.fs.line, 4);
    EXPECT_EQ(u_model.io.fs.stripe, 4096u);
    EXPECT_EQ(u_model.io.fs.servers, (std::vector<std::int32_t>{0, 1}));
    EXPECT_EQ(u_model.io.servers[0].node, 1);
}

TEST(TopoModelIo, NoIoElementsNoFileSystem) {
    const run::Model t_model = run::load_model(example("two-nodes.xml"));
    EXPECT_TRUE(t_model.io.servers.empty());
    EXPECT_TRUE(t_model.io.forwarders.empty());
    EXPECT_FALSE(t_model.io.fs.present);
    EXPECT_TRUE(t_model.io.fs.servers.empty());
}

TEST(TopoModelIo, ValidateSummaryMentionsServers) {
    const run::Model t_model = run::parse_model(kIo, "io.xml");
    const topo::Topology& t = t_model.topology;
    Router router(t);
    const std::string text = format_summary(run::summarize(t_model, router));
    EXPECT_THAT(text, HasSubstr("2 servers (n0: cache write_behind, disk hdd; n1: cache none, "
                                "disk ssd), stripe 1 MiB over n1 n0, 1 forwarder"))
        << text;

    // Many servers: counts per model instead of one entry per server.
    const run::Model many_model = run::parse_model(R"(<cluster>
  <node-type name="t" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <nodes prefix="n" count="8" type="t"/>
  <io-server nodes="n0 n1 n2 n3 n4"><disk model="hdd"/></io-server>
  <io-server node="n5"><cache model="write_behind"/><disk model="ssd"/></io-server>
</cluster>)",
                                                   "many.xml");
    const topo::Topology& many = many_model.topology;
    Router many_router(many);
    const std::string many_text = format_summary(run::summarize(many_model, many_router));
    EXPECT_THAT(many_text, HasSubstr("6 servers (cache: 5 x none, 1 x write_behind; disk: 5 x "
                                     "hdd, 1 x ssd), stripe 64 KiB over all 6"))
        << many_text;
    EXPECT_THAT(many_text, Not(HasSubstr("forwarder")));

    const run::Model plain_model = run::load_model(example("two-nodes.xml"));
    const topo::Topology& plain = plain_model.topology;
    Router r2(plain);
    EXPECT_THAT(format_summary(run::summarize(plain_model, r2)), Not(HasSubstr("I/O")));
}

// ---- bad inputs -------------------------------------------------------------------------

struct BadCase {
    const char* file;
    int line;
    const char* phrase;
    const char* phrase2 = "";
};

class TopoModelBad : public ::testing::TestWithParam<BadCase> {};

TEST_P(TopoModelBad, SaysWhereAndWhat) {
    const BadCase& c = GetParam();
    const std::string path = bad(c.file);
    try {
        run::load_model(path);
        FAIL() << c.file << " loaded without an error";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), path);
        EXPECT_EQ(e.line(), c.line) << e.what();
        EXPECT_THAT(e.what(), HasSubstr(c.phrase));
        EXPECT_THAT(e.what(), HasSubstr(c.phrase2));
        const std::string prefix = path + ":" + std::to_string(c.line) + ": ";
        EXPECT_EQ(std::string(e.what()).substr(0, prefix.size()), prefix);
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
    }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, TopoModelBad,
    ::testing::Values(
        BadCase{"malformed.xml", 5, "malformed XML"},
        BadCase{"wrong-root.xml", 3, "expected the root element <cluster>"},
        BadCase{"unknown-element.xml", 10, "unknown element <swtich>", "switch, memory-node"},
        BadCase{"unknown-element-in-type.xml", 6, "unknown element <cpu> in <node-type>",
                "socket, memory-node, switch, nic, cable, edge"},
        BadCase{"unknown-attribute.xml", 5, "<socket> has unknown attribute 'core'",
                "valid attributes: name, cores, speed"},
        BadCase{"missing-attribute.xml", 8, "<cable> is missing required attribute 'latency'"},
        BadCase{"bad-unit.xml", 12, "<cable> attribute 'bandwidth'", "unknown unit 'Gbit'"},
        BadCase{"missing-unit.xml", 7, "attribute 'latency'", "missing unit"},
        BadCase{"zero-bandwidth.xml", 9, "<switch> attribute 'bandwidth'", "positive bandwidth"},
        BadCase{"negative-bandwidth.xml", 7, "attribute 'bandwidth'", "without a sign"},
        BadCase{"zero-speed.xml", 6, "<socket> attribute 'speed'", "positive speed"},
        BadCase{"zero-cores.xml", 5, "<socket> attribute 'cores'", "at least 1 core"},
        BadCase{"duplicate-name-in-type.xml", 8, "name 'mem0' is already used", "(line 6)"},
        BadCase{"duplicate-node.xml", 9, "node name 'n3' is already used", "(line 8)"},
        BadCase{"duplicate-generated-node.xml", 10, "node name 'n0' is already used", "(line 9)"},
        BadCase{"duplicate-switch.xml", 10, "vertex name 'sw' is already used", "(line 8)"},
        BadCase{"unknown-vertex.xml", 12, "no vertex named 'n2.nic'"},
        BadCase{"unknown-vertex-in-type.xml", 7, "has no vertex 'mem1'", "s0, mem0"},
        BadCase{"unknown-type.xml", 7, "unknown node-type 'westmere'", "declared node-types: t"},
        BadCase{"no-socket.xml", 4, "has no <socket>"},
        BadCase{"two-nics.xml", 7, "already has a NIC 'nic0'", "at most one"},
        BadCase{"generator-without-nic.xml", 7, "<torus>: node-type 't' has no <nic>"},
        BadCase{"bad-routing.xml", 4, "'fastest' is not valid",
                "expected shortest_path or round_robin"},
        BadCase{"bad-nic-model.xml", 4, "'flow' is not valid", "expected packet or analytical"},
        BadCase{"bad-network-model.xml", 4, "<network> attribute 'model': 'wormhole' is not valid",
                "expected packet or fluid"},
        BadCase{"bad-forwarding.xml", 8, "<switch> attribute 'forwarding': 'virtual-cut-through'",
                "expected cut_through or store_and_forward"},
        BadCase{"bad-forwarding-in-type.xml", 6, "<nic> attribute 'forwarding': 'wormhole'",
                "expected cut_through or store_and_forward"},
        BadCase{"zero-granularity.xml", 4, "'granularity'", "'message'"},
        BadCase{"fat-tree-levels.xml", 8, "attribute 'up': expected 2 values", "got 3"},
        BadCase{"bad-list.xml", 8, "attribute 'dims'", "comma-separated list"},
        BadCase{"no-nodes.xml", 3, "declares no nodes"},
        BadCase{"self-cable.xml", 9, "connects 'sw' to itself"},
        BadCase{"bad-name.xml", 7, "'rack1.n0' is not a valid name"},
        BadCase{"text-content.xml", 5, "unexpected text in <cluster>"},
        BadCase{"dragonfly-missing-groups.xml", 8,
                "<dragonfly> is missing required attribute 'groups'"},
        BadCase{"dragonfly-zero-routers.xml", 8, "<dragonfly> attribute 'routers'",
                "expected at least 1 router per group, got 0"},
        BadCase{"dragonfly-too-many-groups.xml", 8, "<dragonfly>: 10 groups cannot all be joined",
                "expected groups <= 8 + 1 = 9"},
        BadCase{"dragonfly-bad-unit.xml", 8, "<dragonfly> attribute 'global-bandwidth'",
                "unknown unit 'GBs'"},
        BadCase{"dragonfly-valiant-without-groups.xml", 4, "'valiant' needs a <dragonfly>",
                "expected shortest_path or round_robin"},
        BadCase{"io-fs-server-without-io-server.xml", 11,
                "<file-system> attribute 'servers': node 'n5' has no <io-server>",
                "(files cannot be striped over it)"},
        BadCase{"io-zero-stripe.xml", 8,
                "<file-system> attribute 'stripe': the stripe (chunk) size must be at least 1 B"},
        BadCase{"io-missing-disk.xml", 8, "<io-server> has no <disk>", "exactly one <disk"},
        BadCase{"io-disk-without-model.xml", 9, "<disk> is missing required attribute 'model'"},
        BadCase{"io-two-servers-on-node.xml", 11, "node 'n1' already has an <io-server> (line 8)",
                "at most one server per node"},
        BadCase{"io-unknown-attribute.xml", 9, "<file-system> has unknown attribute 'stripe-size'",
                "valid attributes: distribution, stripe, servers, open, close, sync"},
        BadCase{"io-unknown-element.xml", 10, "unknown element <scheduler> in <io-server>",
                "expected one of: cache, disk"},
        BadCase{"io-second-file-system.xml", 10,
                "second <file-system> element (the first is on line 8)"},
        BadCase{"io-forwarder-unknown-client.xml", 9,
                "<io-forwarder> attribute 'clients': no node named 'n9'"},
        BadCase{"io-client-two-forwarders.xml", 9,
                "node 'n3' is already a client of the <io-forwarder> on line 8",
                "at most one forwarder per node"},
        BadCase{"io-file-system-without-servers.xml", 8, "<file-system> without any <io-server>",
                "at least one <io-server"}),
    [](const ::testing::TestParamInfo<BadCase>& info) {
        std::string n = info.param.file;
        n = n.substr(0, n.find('.'));
        for (char& ch : n)
            if (ch == '-') ch = '_';
        return n;
    });

TEST(TopoModel, UnreadableFile) {
    const std::string path = bad("does-not-exist.xml");
    try {
        run::load_model(path);
        FAIL() << "loaded a missing file";
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), 0);
        EXPECT_EQ(std::string(e.what()), path + ": cannot read file: No such file or directory");
    }
    EXPECT_THROW(run::load_model(std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/data/bad"),
                 InputError);
}

TEST(TopoModel, EmptyDocumentIsMalformed) {
    try {
        run::parse_model("", "empty.xml");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("empty.xml"));
        EXPECT_THAT(e.what(), HasSubstr("malformed XML"));
    }
}

TEST(TopoModel, DuplicateAttribute) {
    try {
        run::parse_model("<cluster name=\"a\">\n<switch name=\"x\" name=\"y\"/>\n</cluster>",
                         "d.xml");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), 2) << e.what();
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::topo
