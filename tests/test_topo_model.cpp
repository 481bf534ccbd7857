// The model XML reader: every example loads with the right counts, the format's features
// land in the Topology, and every kind of bad input gets its own message and line.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "simulator/error.hpp"
#include "topologies/model_xml.hpp"

namespace clustersim::topo {
namespace {

using ::testing::HasSubstr;

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
    const Topology t = load_model(example("figure1-westmere-10.xml"));
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
    const Topology t = load_model(example("star-16.xml"));
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
    const Topology t = load_model(example("fat-tree-16.xml"));
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
    const Topology t = load_model(example("torus-4x4.xml"));
    const Counts c = count(t);
    EXPECT_EQ(c.nodes, 16u);
    EXPECT_EQ(c.switches, 0u);
    EXPECT_EQ(c.nics, 16u);
    EXPECT_EQ(c.edges, 16u * 4 + 2 * 32);
}

TEST(TopoModel, TwoNodesExampleLoads) {
    const Topology t = load_model(example("two-nodes.xml"));
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
  <network granularity="1MiB" routing="round-robin" nic="analytical" eager-threshold="8KiB"/>
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
    const Topology t = parse_model(kFeatures, "features.xml");
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
    const Topology t = parse_model(R"(<cluster>
  <node-type name="t" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <node name="x" type="t"/>
</cluster>)",
                                   "dir/tiny.xml");
    EXPECT_EQ(t.name, "tiny");  // no name attribute: the file's stem
    const NetworkSettings defaults;
    EXPECT_EQ(t.settings.granularity, defaults.granularity);
    EXPECT_EQ(t.settings.eager_threshold, defaults.eager_threshold);
    EXPECT_EQ(t.settings.routing, defaults.routing);
    EXPECT_EQ(t.num_edges(), 0u);
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
        load_model(path);
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
                "expected shortest-path or round-robin"},
        BadCase{"bad-nic-model.xml", 4, "'flow' is not valid", "expected packet or analytical"},
        BadCase{"bad-network-model.xml", 4, "<network> attribute 'model': 'wormhole' is not valid",
                "expected packet or fluid"},
        BadCase{"bad-forwarding.xml", 8, "<switch> attribute 'forwarding': 'virtual-cut-through'",
                "expected cut-through or store-and-forward"},
        BadCase{"bad-forwarding-in-type.xml", 6, "<nic> attribute 'forwarding': 'wormhole'",
                "expected cut-through or store-and-forward"},
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
                "expected shortest-path or round-robin"}),
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
        load_model(path);
        FAIL() << "loaded a missing file";
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), 0);
        EXPECT_EQ(std::string(e.what()), path + ": cannot read file: No such file or directory");
    }
    EXPECT_THROW(load_model(std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/data/bad"), InputError);
}

TEST(TopoModel, EmptyDocumentIsMalformed) {
    try {
        parse_model("", "empty.xml");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("empty.xml"));
        EXPECT_THAT(e.what(), HasSubstr("malformed XML"));
    }
}

TEST(TopoModel, DuplicateAttribute) {
    try {
        parse_model("<cluster name=\"a\">\n<switch name=\"x\" name=\"y\"/>\n</cluster>", "d.xml");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), 2) << e.what();
    }
}

}  // namespace
}  // namespace clustersim::topo
