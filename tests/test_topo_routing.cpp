// Routing on the example models: path lengths inside a socket, across sockets, across nodes,
// up and down a fat tree, around a torus; and the route count of the validate summary.
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/model.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/routing.hpp"
#include "topologies/summary.hpp"

namespace clustersim::topo {
namespace CLUSTERSIM_TEST_FILE {

using ::testing::HasSubstr;

Topology example(const std::string& name) {
    // The whole model: examples carry other folders' elements (<collectives>, <jitter>, ...).
    return run::load_model(std::string(CLUSTERSIM_SOURCE_DIR) + "/topologies/examples/" + name)
        .topology;
}

VertexId vertex(const Topology& t, const std::string& name) {
    const VertexId v = t.find_vertex(name);
    EXPECT_NE(v, kNoVertex) << name;
    return v;
}

// Names of the vertices along the first-choice path, starting with `from`.
std::vector<std::string> hops(const Topology& t, const Router& r, const std::string& from,
                              const std::string& to) {
    const VertexId a = vertex(t, from), b = vertex(t, to);
    std::vector<std::string> names{t.vertex(a).name};
    for (EdgeId e : r.path(a, b)) names.push_back(t.vertex(t.target_of(e)).name);
    return names;
}

TEST(TopoRouting, Figure1SameSocketGoesThroughItsMemoryNode) {
    const Topology t = example("figure1-westmere-10.xml");
    const Router r(t);
    // Two processes on one socket exchange data through the memory node: s0 -> mem0 -> s0.
    const VertexId s0 = vertex(t, "n0.s0"), mem0 = vertex(t, "n0.mem0");
    const auto out = r.path(s0, mem0), back = r.path(mem0, s0);
    ASSERT_EQ(out.size() + back.size(), 2u);
    EXPECT_EQ(t.target_of(out[0]), mem0);
    EXPECT_EQ(t.target_of(back[0]), s0);
    EXPECT_EQ(t.vertex(mem0).kind, VertexKind::MemoryNode);
    EXPECT_GT(t.vertex(mem0).local.bytes_per_s, t.vertex(mem0).relay.bytes_per_s);
    EXPECT_TRUE(r.path(s0, s0).empty());
}

TEST(TopoRouting, Figure1AcrossSocketsAndNodes) {
    const Topology t = example("figure1-westmere-10.xml");
    const Router r(t);
    EXPECT_THAT(hops(t, r, "n0.s0", "n0.s1"),
                ::testing::ElementsAre("n0.s0", "n0.mem0", "n0.qpi", "n0.mem1", "n0.s1"));
    EXPECT_THAT(hops(t, r, "n2.s1", "n7.s0"),
                ::testing::ElementsAre("n2.s1", "n2.mem1", "n2.qpi", "n2.nic", "sw", "n7.nic",
                                       "n7.qpi", "n7.mem0", "n7.s0"));
    EXPECT_TRUE(r.reachable(vertex(t, "n9.s1"), vertex(t, "n0.s0")));
}

TEST(TopoRouting, TwoNodesPathIsSixEdges) {
    const Topology t = example("two-nodes.xml");
    const Router r(t);
    EXPECT_THAT(
        hops(t, r, "n0.s0", "n1.s0"),
        ::testing::ElementsAre("n0.s0", "n0.mem0", "n0.nic", "sw", "n1.nic", "n1.mem0", "n1.s0"));
}

TEST(TopoRouting, StarThroughTheSwitch) {
    const Topology t = example("star-16.xml");
    const Router r(t);
    EXPECT_EQ(r.path(vertex(t, "n0.s0"), vertex(t, "n15.s0")).size(), 6u);
    EXPECT_EQ(r.tables_built(), 0u);  // a star is a tree: no distance tables
}

TEST(TopoRouting, FatTreeUpAndDown) {
    const Topology t = example("fat-tree-16.xml");
    Router r(t);
    // Same leaf: nic -> leaf -> nic.
    EXPECT_THAT(hops(t, r, "n0.s0", "n3.s0"),
                ::testing::ElementsAre("n0.s0", "n0.mem0", "n0.nic", "nsw1_0", "n3.nic", "n3.mem0",
                                       "n3.s0"));
    // Different leaves: up to a spine and down again.
    const auto path = hops(t, r, "n0.s0", "n15.s0");
    ASSERT_EQ(path.size(), 9u);
    EXPECT_EQ(path[3], "nsw1_0");
    EXPECT_THAT(path[4], ::testing::AnyOf("nsw2_0", "nsw2_1"));
    EXPECT_EQ(path[5], "nsw1_3");
    // Round-robin: the leaf alternates between its two spines for the same destination.
    const VertexId leaf = vertex(t, "nsw1_0"), dst = vertex(t, "n15.s0");
    const EdgeId first = r.next_hop(leaf, dst), second = r.next_hop(leaf, dst);
    EXPECT_NE(t.target_of(first), t.target_of(second));
    EXPECT_EQ(r.next_hop(leaf, dst), first);
}

TEST(TopoRouting, TorusWrapsAround) {
    const Topology t = example("torus-4x4.xml");
    const Router r(t);
    auto network_hops = [&](int a, int b) {
        // s0 -> mem0 -> nic ... nic -> mem0 -> s0: 4 edges inside the two nodes.
        const auto p = r.path(t.nodes[a].sockets[0].vertex, t.nodes[b].sockets[0].vertex);
        return static_cast<int>(p.size()) - 4;
    };
    EXPECT_EQ(network_hops(0, 1), 1);
    EXPECT_EQ(network_hops(0, 3), 1);   // (0,0) -> (0,3): wraparound
    EXPECT_EQ(network_hops(0, 12), 1);  // (0,0) -> (3,0): wraparound
    EXPECT_EQ(network_hops(0, 2), 2);
    EXPECT_EQ(network_hops(0, 10), 4);  // (2,2): the farthest node
    EXPECT_EQ(network_hops(5, 15), 4);  // (1,1) -> (3,3)
    EXPECT_EQ(network_hops(15, 0), 2);  // (3,3) -> (0,0): wraparound in both dimensions
}

// ---- summary ----------------------------------------------------------------------------

TEST(TopoSummary, Figure1) {
    const Topology t = example("figure1-westmere-10.xml");
    Router r(t);
    const ModelSummary s = summarize(t, r);
    EXPECT_EQ(s.nodes, 10u);
    EXPECT_EQ(s.sockets, 20u);
    EXPECT_EQ(s.cores, 120u);
    EXPECT_EQ(s.memory_nodes, 20u);
    EXPECT_EQ(s.switches, 11u);
    EXPECT_EQ(s.node_switches, 10u);
    EXPECT_EQ(s.nics, 10u);
    EXPECT_EQ(s.edges, 120u);
    EXPECT_EQ(s.memory, 120ull << 30);
    EXPECT_EQ(s.socket_pairs, 20u * 19);
    EXPECT_EQ(s.routed_pairs, 20u * 19);
    ASSERT_EQ(s.node_types.size(), 1u);
    EXPECT_EQ(s.node_types[0], (std::pair<std::string, std::size_t>{"westmere", 10}));
    const std::string text = format_summary(s);
    EXPECT_THAT(text, HasSubstr("figure1-westmere-10"));
    EXPECT_THAT(text, HasSubstr("120 cores"));
    EXPECT_THAT(text, HasSubstr("100 KiB packets"));
    EXPECT_THAT(text, HasSubstr("64 KiB"));
    EXPECT_THAT(text, HasSubstr("shortest_path"));
    EXPECT_THAT(text, HasSubstr("380 of 380 ordered socket pairs (100%)"));
    EXPECT_THAT(text, HasSubstr("120 GiB"));
    EXPECT_THAT(text, HasSubstr("11 (10 inside nodes, 1 in the network)"));
}

TEST(TopoSummary, EveryExampleIsFullyRouted) {
    for (const char* name : {"star-16.xml", "fat-tree-16.xml", "torus-4x4.xml", "two-nodes.xml"}) {
        const Topology t = example(name);
        Router r(t);
        const ModelSummary s = summarize(t, r);
        EXPECT_EQ(s.routed_pairs, s.socket_pairs) << name;
        EXPECT_GT(s.socket_pairs, 0u) << name;
    }
}

constexpr const char* kPartial = R"(<cluster name="partial">
  <network granularity="message" nic="analytical"/>
  <node-type name="t" memory="1GiB" nic="packet" granularity="4KiB">
    <socket name="s0" cores="1" speed="1G"/>
    <socket name="s1" cores="1" speed="1G"/>
    <nic name="nic"/>
    <cable from="s0" to="nic" latency="1us" bandwidth="1GB/s"/>
    <cable from="s1" to="nic" latency="1us" bandwidth="1GB/s"/>
  </node-type>
  <node-type name="u" memory="1GiB">
    <socket name="s0" cores="3" speed="1G"/>
    <nic name="nic"/>
    <cable from="s0" to="nic" latency="1us" bandwidth="1GB/s"/>
  </node-type>
  <nodes prefix="a" count="2" type="t"/>
  <node name="lonely" type="u"/>
  <node name="b" type="u"/>
  <switch name="sw"/>
  <cable from="a0.nic" to="sw" latency="1us" bandwidth="1GB/s"/>
  <cable from="a1.nic" to="sw" latency="1us" bandwidth="1GB/s"/>
  <edge from="sw" to="b.nic" latency="1us" bandwidth="1GB/s"/>
</cluster>)";

TEST(TopoSummary, CountsOnlyRoutablePairs) {
    // a0 and a1 (4 sockets) reach each other; b's socket is reachable from them but cannot
    // answer (one-way edge); 'lonely' is cut off.
    const Topology t = parse_model(kPartial, "partial.xml");
    Router r(t);
    const ModelSummary s = summarize(t, r);
    EXPECT_EQ(s.sockets, 6u);
    EXPECT_EQ(s.socket_pairs, 30u);
    EXPECT_EQ(s.routed_pairs, 4u * 3 + 4u);
    EXPECT_EQ(s.packet_nic_nodes, 2u);
    EXPECT_EQ(s.analytical_nic_nodes, 2u);
    EXPECT_EQ(s.granularity_overrides, 2u);
    const std::string text = format_summary(s);
    EXPECT_THAT(text, HasSubstr("16 of 30 ordered socket pairs"));
    EXPECT_THAT(text, HasSubstr("cannot reach"));
    EXPECT_THAT(text, HasSubstr("whole messages"));
    EXPECT_THAT(text, HasSubstr("packet on 2 nodes, analytical on 2 nodes"));
    EXPECT_THAT(text, HasSubstr("2 x t, 2 x u"));
}

TEST(TopoSummary, OneWayChainUsesTheCondensation) {
    // 100 nodes in a one-way chain: node i reaches every j > i. Far more socket groups than
    // the router budget, so the count comes from the condensation search.
    std::string xml = R"(<cluster name="chain">
  <node-type name="t" memory="1GiB">
    <socket name="s0" cores="1" speed="1G"/>
    <nic name="nic"/>
    <cable from="s0" to="nic" latency="1us" bandwidth="1GB/s"/>
  </node-type>
  <nodes prefix="n" count="100" type="t"/>
)";
    for (int i = 0; i + 1 < 100; ++i) {
        xml += "  <edge from=\"n" + std::to_string(i) + ".nic\" to=\"n" + std::to_string(i + 1) +
               ".nic\" latency=\"1us\" bandwidth=\"1GB/s\"/>\n";
    }
    xml += "</cluster>\n";
    const Topology t = parse_model(xml, "chain.xml");
    Router r(t);
    const ModelSummary s = summarize(t, r);
    EXPECT_EQ(s.routed_pairs, 100u * 99 / 2);
    // Spot-check the router agrees.
    EXPECT_TRUE(r.reachable(t.nodes[3].sockets[0].vertex, t.nodes[97].sockets[0].vertex));
    EXPECT_FALSE(r.reachable(t.nodes[97].sockets[0].vertex, t.nodes[3].sockets[0].vertex));
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::topo
