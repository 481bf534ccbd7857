// Star, fat-tree and torus expansion counts, and the generate -> parse round trip.
#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "simulator/error.hpp"
#include "topo_fixtures.hpp"
#include "topologies/generators.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/routing.hpp"
#include "topologies/summary.hpp"

namespace clustersim::topo {
namespace CLUSTERSIM_TEST_FILE {

using ::testing::HasSubstr;

using testing::kNodeEdges;
using testing::kNodeVertices;
using testing::kType;

Topology with_generator(const std::string& element) {
    return parse_model(
        fmt::format("<cluster name=\"g\">\n  {}\n  {}\n</cluster>\n", kType, element), "gen.xml");
}

std::size_t count_kind(const Topology& t, VertexKind kind) {
    std::size_t n = 0;
    for (VertexId v = 0; v < t.num_vertices(); ++v) n += t.vertex(v).kind == kind;
    return n;
}

std::size_t out_degree(const Topology& t, VertexId v) {
    auto [lo, hi] = t.out_edge_range(v);
    return hi - lo;
}

// ---- star -------------------------------------------------------------------------------

TEST(TopoGenerators, StarCounts) {
    const Topology t = with_generator(
        R"(<star type="t" nodes="5" prefix="c" link-latency="2us" link-bandwidth="1GB/s"/>)");
    EXPECT_EQ(t.nodes.size(), 5u);
    EXPECT_EQ(t.num_vertices(), 5 * kNodeVertices + 1);
    EXPECT_EQ(t.num_edges(), 5 * kNodeEdges + 5 * 2);
    const VertexId sw = t.find_vertex("csw");  // default switch name: <prefix>sw
    ASSERT_NE(sw, kNoVertex);
    EXPECT_TRUE(t.vertex(sw).relay.infinite());
    EXPECT_EQ(t.vertex(sw).line, 9);
    EXPECT_EQ(out_degree(t, sw), 5u);
    EXPECT_EQ(t.nodes[4].name, "c4");
    EXPECT_EQ(t.nodes[4].line, 9);
    EXPECT_EQ(t.edge(t.out_edge_range(sw).first).latency, Time::us(2));
    EXPECT_EQ(t.target_of(t.out_edge_range(sw).first), t.nodes[0].nic);
}

TEST(TopoGenerators, StarSwitchNameAndBandwidth) {
    const Topology t =
        with_generator(R"(<star type="t" nodes="2" switch="core" switch-bandwidth="40GB/s")"
                       R"( link-latency="1us" link-bandwidth="1GB/s"/>)");
    const VertexId sw = t.find_vertex("core");
    ASSERT_NE(sw, kNoVertex);
    EXPECT_EQ(t.vertex(sw).relay.bytes_per_s, 40'000'000'000u);
    EXPECT_EQ(t.nodes[1].name, "n1");  // default prefix
}

// Correctness at scale; the build time and memory of this case are measured by
// bench/bench_star_build, not asserted here.
TEST(TopoGenerators, LargeStarLoadsAndSummarizes) {
    const Topology t = with_generator(
        R"(<star type="t" nodes="65536" link-latency="1us" link-bandwidth="1GB/s"/>)");
    Router router(t);
    const ModelSummary s = summarize(t, router);
    EXPECT_EQ(t.nodes.size(), 65536u);
    EXPECT_EQ(t.num_vertices(), 65536 * kNodeVertices + 1);
    EXPECT_EQ(s.routed_pairs, 65536ull * 65535);
    EXPECT_EQ(s.socket_pairs, 65536ull * 65535);
}

// ---- fat tree ---------------------------------------------------------------------------

TEST(TopoGenerators, FatTreeShapeFormula) {
    // Level-l switches: prod_{i>l} d_i * prod_{i<=l} u_i.
    const FatTreeShape a = fat_tree_shape({4, 4}, {1, 2}, {});
    EXPECT_EQ(a.nodes, 16u);
    EXPECT_EQ(a.switches, (std::vector<std::uint64_t>{4, 2}));
    EXPECT_EQ(a.cables, (std::vector<std::uint64_t>{16, 8}));
    const FatTreeShape b = fat_tree_shape({2, 3, 4}, {1, 2, 3}, {1, 2, 1});
    EXPECT_EQ(b.nodes, 24u);
    EXPECT_EQ(b.switches, (std::vector<std::uint64_t>{12, 8, 6}));
    EXPECT_EQ(b.cables, (std::vector<std::uint64_t>{24, 48, 24}));
    EXPECT_THROW(fat_tree_shape({4, 4}, {1}, {}), ModelError);
    EXPECT_THROW(fat_tree_shape({4, 0}, {1, 1}, {}), ModelError);
    EXPECT_THROW(fat_tree_shape({4096, 4096, 4096}, {1, 1, 1}, {}), ModelError);
}

TEST(TopoGenerators, FatTreeTwoLevels) {
    const Topology t =
        with_generator(R"(<fat-tree type="t" levels="2" down="4,4" up="1,2" prefix="n")"
                       R"( link-latency="1us" link-bandwidth="1GB/s"/>)");
    EXPECT_EQ(t.nodes.size(), 16u);
    EXPECT_EQ(count_kind(t, VertexKind::Switch), 6u);
    EXPECT_EQ(t.num_edges(), 16 * kNodeEdges + 2 * (16 + 8));
    // Leaf k serves nodes 4k .. 4k+3 and has both spines above it.
    for (int leaf = 0; leaf < 4; ++leaf) {
        const VertexId v = t.find_vertex(fmt::format("nsw1_{}", leaf));
        ASSERT_NE(v, kNoVertex);
        EXPECT_EQ(out_degree(t, v), 4u + 2u);
        auto [lo, hi] = t.out_edge_range(v);
        std::vector<std::string> below;
        for (EdgeId e = lo; e < hi; ++e) below.push_back(t.vertex(t.target_of(e)).name);
        EXPECT_EQ(below[0], fmt::format("n{}.nic", 4 * leaf));
        EXPECT_EQ(below[3], fmt::format("n{}.nic", 4 * leaf + 3));
    }
    for (int spine = 0; spine < 2; ++spine) {
        const VertexId v = t.find_vertex(fmt::format("nsw2_{}", spine));
        ASSERT_NE(v, kNoVertex);
        EXPECT_EQ(out_degree(t, v), 4u);  // one cable to every leaf
    }
}

TEST(TopoGenerators, FatTreeParallelCablesAndThreeLevels) {
    const Topology t =
        with_generator(R"(<fat-tree type="t" levels="3" down="2,3,4" up="1,2,3" parallel="1,2,1")"
                       R"( switch-prefix="ft" switch-bandwidth="9GB/s")"
                       R"( link-latency="1us" link-bandwidth="1GB/s"/>)");
    EXPECT_EQ(t.nodes.size(), 24u);
    EXPECT_EQ(count_kind(t, VertexKind::Switch), 12u + 8u + 6u);
    EXPECT_EQ(t.num_edges(), 24 * kNodeEdges + 2 * (24 + 48 + 24));
    const VertexId leaf = t.find_vertex("ft1_0");
    ASSERT_NE(leaf, kNoVertex);
    EXPECT_EQ(t.vertex(leaf).relay.bytes_per_s, 9'000'000'000u);
    // d1 = 2 nodes below, u2 = 2 parents with 2 parallel cables each.
    EXPECT_EQ(out_degree(t, leaf), 2u + 2u * 2u);
    EXPECT_NE(t.find_vertex("ft3_5"), kNoVertex);
    // Top switches: d3 = 4 children each, no parents.
    EXPECT_EQ(out_degree(t, t.find_vertex("ft3_5")), 4u);
}

TEST(TopoGenerators, FatTreeLevelMismatchIsAnInputError) {
    EXPECT_THROW(with_generator(R"(<fat-tree type="t" levels="3" down="4,4" up="1,2")"
                                R"( link-latency="1us" link-bandwidth="1GB/s"/>)"),
                 InputError);
}

// ---- torus ------------------------------------------------------------------------------

TEST(TopoGenerators, TorusCounts) {
    // 4x4x2: dims of size 4 give one cable per node, size 2 one cable per pair.
    const Topology t = with_generator(
        R"(<torus type="t" dims="4,4,2" link-latency="1us" link-bandwidth="1GB/s"/>)");
    EXPECT_EQ(t.nodes.size(), 32u);
    EXPECT_EQ(count_kind(t, VertexKind::Switch), 0u);
    EXPECT_EQ(t.num_edges(), 32 * kNodeEdges + 2 * (32 + 32 + 16));
    // Every NIC: its mem0 plus 2 + 2 + 1 neighbours.
    for (const NodeInfo& n : t.nodes) EXPECT_EQ(out_degree(t, n.nic), 1u + 5u) << n.name;
}

TEST(TopoGenerators, TorusSizeTwoAndSizeOneDimensions) {
    const Topology two =
        with_generator(R"(<torus type="t" dims="2" link-latency="1us" link-bandwidth="1GB/s"/>)");
    EXPECT_EQ(two.nodes.size(), 2u);
    EXPECT_EQ(two.num_edges(), 2 * kNodeEdges + 2);  // one cable, not two
    const Topology one =
        with_generator(R"(<torus type="t" dims="3,1" link-latency="1us" link-bandwidth="1GB/s"/>)");
    EXPECT_EQ(one.nodes.size(), 3u);
    EXPECT_EQ(one.num_edges(), 3 * kNodeEdges + 2 * 3);  // a ring of 3; nothing along size 1
    const Topology single =
        with_generator(R"(<torus type="t" dims="1" link-latency="1us" link-bandwidth="1GB/s"/>)");
    EXPECT_EQ(single.num_edges(), kNodeEdges);
}

TEST(TopoGenerators, TorusRowMajorNeighbours) {
    const Topology t =
        with_generator(R"(<torus type="t" dims="3,4" link-latency="1us" link-bandwidth="1GB/s"/>)");
    // n5 is (1,1): neighbours (1,2) = n6 and (2,1) = n9 are cabled from it; n4 and n1 to it.
    const VertexId nic = t.nodes[5].nic;
    std::vector<std::string> nbrs;
    auto [lo, hi] = t.out_edge_range(nic);
    for (EdgeId e = lo; e < hi; ++e) nbrs.push_back(t.vertex(t.target_of(e)).name);
    EXPECT_THAT(nbrs,
                ::testing::UnorderedElementsAre("n5.mem0", "n6.nic", "n9.nic", "n4.nic", "n1.nic"));
    // Wraparound: n11 = (2,3) links to n8 = (2,0) and n3 = (0,3).
    std::vector<std::string> wrap;
    std::tie(lo, hi) = t.out_edge_range(t.nodes[11].nic);
    for (EdgeId e = lo; e < hi; ++e) wrap.push_back(t.vertex(t.target_of(e)).name);
    EXPECT_THAT(wrap, ::testing::IsSupersetOf({"n8.nic", "n3.nic"}));
}

// ---- generate_model_xml -----------------------------------------------------------------

TEST(TopoGenerators, GeneratedStarRoundTrips) {
    GenerateOptions o;
    o.kind = "star";
    o.nodes = 8;
    o.sockets = 2;
    o.cores = 4;
    o.cpu_speed = 2'800'000'000;
    o.switch_bandwidth = Bandwidth{100'000'000'000};
    o.link_latency = Time::ns(1500);
    o.granularity = 0;
    o.nic = NicModel::Analytical;
    o.routing = Routing::RoundRobin;
    const std::string xml = generate_model_xml(o);
    const Topology t = parse_model(xml, "generated.xml");
    EXPECT_EQ(t.name, "star-8");
    EXPECT_EQ(t.nodes.size(), 8u);
    // Per node: 2 sockets, 2 memory nodes, qpi, nic; cables s-mem x2, mem-qpi x2, nic-qpi.
    EXPECT_EQ(t.num_vertices(), 8u * 6 + 1);
    EXPECT_EQ(t.num_edges(), 8u * 10 + 8 * 2);
    EXPECT_EQ(count_kind(t, VertexKind::Switch), 8u + 1);
    EXPECT_EQ(t.settings.granularity, 0u);
    EXPECT_EQ(t.settings.nic_model, NicModel::Analytical);
    EXPECT_EQ(t.settings.routing, Routing::RoundRobin);
    EXPECT_EQ(t.settings.eager_threshold, o.eager_threshold);
    EXPECT_EQ(t.nodes[0].memory, o.memory);
    EXPECT_EQ(t.nodes[0].sockets[1].cores, 4u);
    EXPECT_EQ(t.nodes[0].sockets[1].speed, 2'800'000'000u);
    const VertexId sw = t.find_vertex("sw");
    ASSERT_NE(sw, kNoVertex);
    EXPECT_EQ(t.vertex(sw).relay, o.switch_bandwidth);
    const EdgeId link = t.out_edge_range(sw).first;
    EXPECT_EQ(t.edge(link).latency, o.link_latency);
    EXPECT_EQ(t.edge(link).bandwidth, o.link_bandwidth);
    const VertexId mem1 = t.find_vertex("n3.mem1");
    EXPECT_EQ(t.vertex(mem1).relay, o.memory_bandwidth);
    EXPECT_EQ(t.vertex(mem1).local, o.memory_bandwidth);
    EXPECT_EQ(t.vertex(t.find_vertex("n3.qpi")).relay, o.inter_socket_bandwidth);
    // Short: a handful of lines, not one per node.
    o.nodes = 800;
    const std::string big = generate_model_xml(o);
    EXPECT_EQ(std::count(big.begin(), big.end(), '\n'), std::count(xml.begin(), xml.end(), '\n'));
    EXPECT_LT(std::count(xml.begin(), xml.end(), '\n'), 25);
}

TEST(TopoGenerators, GeneratedSingleSocketCablesTheNicToMemory) {
    GenerateOptions o;
    o.kind = "star";
    o.nodes = 3;
    const Topology t = parse_model(generate_model_xml(o), "generated.xml");
    EXPECT_EQ(t.num_vertices(), 3u * 3 + 1);
    EXPECT_EQ(t.num_edges(), 3u * 4 + 3 * 2);
    EXPECT_EQ(t.find_vertex("n0.qpi"), kNoVertex);
    const EdgeId e = t.out_edge_range(t.nodes[0].nic).first;
    EXPECT_EQ(t.vertex(t.target_of(e)).name, "n0.mem0");
    EXPECT_EQ(t.edge(e).latency, o.memory_latency);
    EXPECT_TRUE(t.vertex(t.find_vertex("sw")).relay.infinite());
    // The defaults of today's interconnects (issue 52): 4 KiB packets, cut-through switches
    // and NICs.
    EXPECT_EQ(t.settings.granularity, 4096u);
    EXPECT_EQ(t.settings.forwarding, kCutThrough);
    EXPECT_EQ(t.vertex(t.nodes[0].nic).forwarding, kCutThrough);
}

TEST(TopoGenerators, GeneratedFatTreeDefaultsAndExplicit) {
    GenerateOptions o;
    o.kind = "fat-tree";
    o.nodes = 16;
    Topology t = parse_model(generate_model_xml(o), "g.xml");
    EXPECT_EQ(t.nodes.size(), 16u);
    EXPECT_EQ(count_kind(t, VertexKind::Switch), 4u + 4u);  // down 4,4 up 1,4
    EXPECT_EQ(t.num_edges(), 16 * kNodeEdges + 2 * (16 + 16));

    o.nodes = 12;  // 3 x 4
    t = parse_model(generate_model_xml(o), "g.xml");
    EXPECT_EQ(t.nodes.size(), 12u);
    EXPECT_EQ(count_kind(t, VertexKind::Switch), 4u + 3u);

    o.down = {2, 3, 4};
    o.up = {1, 2, 3};
    t = parse_model(generate_model_xml(o), "g.xml");
    EXPECT_EQ(t.nodes.size(), 24u);
    EXPECT_EQ(count_kind(t, VertexKind::Switch), 12u + 8u + 6u);

    o.up.clear();  // u = 1, d1, d2 = 1, 2, 3
    t = parse_model(generate_model_xml(o), "g.xml");
    EXPECT_EQ(count_kind(t, VertexKind::Switch), 12u + 8u + 6u);
}

TEST(TopoGenerators, GeneratedTorusDefaultsAndExplicit) {
    GenerateOptions o;
    o.kind = "torus";
    o.nodes = 16;
    Topology t = parse_model(generate_model_xml(o), "g.xml");
    EXPECT_EQ(t.name, "torus-4x4");
    EXPECT_EQ(t.num_edges(), 16 * kNodeEdges + 2 * 32);
    o.nodes = 7;  // prime: a ring
    t = parse_model(generate_model_xml(o), "g.xml");
    EXPECT_EQ(t.name, "torus-7");
    EXPECT_EQ(t.num_edges(), 7 * kNodeEdges + 2 * 7);
    o.dims = {4, 4, 2};
    t = parse_model(generate_model_xml(o), "g.xml");
    EXPECT_EQ(t.nodes.size(), 32u);
    EXPECT_EQ(t.num_edges(), 32 * kNodeEdges + 2 * 80);
}

TEST(TopoGenerators, GenerateRejectsBadOptions) {
    GenerateOptions o;
    o.kind = "ring";
    try {
        generate_model_xml(o);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("expected star, fat-tree or torus"));
    }
    o.kind = "star";
    o.nodes = 0;
    EXPECT_THROW(generate_model_xml(o), InputError);
    o.nodes = 4;
    o.cores = 0;
    EXPECT_THROW(generate_model_xml(o), InputError);
    o.cores = 1;
    o.link_bandwidth = kInfiniteBandwidth;
    EXPECT_THROW(generate_model_xml(o), InputError);
}

// ---- ModelBuilder's names -----------------------------------------------------------------

// A node's vertices are found through the node's name (their own names are not hashed); a
// name used twice is refused whichever came first, a top-level vertex or a node's.
TEST(TopoGenerators, ModelBuilderFindsNodeVerticesAndRefusesEveryDuplicateName) {
    TopologyBuilder tb;
    ModelBuilder mb(tb);
    NodeTemplate type;
    type.name = "t";
    type.vertices = {TemplateVertex{.name = "s0", .kind = VertexKind::Socket, .cores = 1},
                     TemplateVertex{.name = "nic", .kind = VertexKind::Nic}};
    type.nic = 1;
    const VertexId sw = mb.add_vertex(VertexProps{.name = "sw", .kind = VertexKind::Switch});
    mb.reserve(type, 3);
    for (int i = 0; i < 3; ++i) mb.add_node(type, fmt::format("n{}", i), 7);
    EXPECT_EQ(mb.find("sw"), sw);
    EXPECT_EQ(mb.find("n0.s0"), 1u);
    EXPECT_EQ(mb.find("n2.nic"), 6u);
    EXPECT_EQ(tb.vertex(mb.find("n1.nic")).name, "n1.nic");
    EXPECT_EQ(mb.find("n3.nic"), kNoVertex);  // no such node
    EXPECT_EQ(mb.find("n1.mem"), kNoVertex);  // no such vertex in the node
    EXPECT_EQ(mb.find("n1"), kNoVertex);      // a node is not a vertex
    EXPECT_EQ(mb.find("sw.nic"), kNoVertex);  // nor is a top-level vertex a node
    EXPECT_EQ(mb.find("n1.nic.x"), kNoVertex);
    auto refused = [&](auto&& add, const std::string& what) {
        try {
            add();
            ADD_FAILURE() << what << " was accepted";
        } catch (const ModelError& e) {
            EXPECT_THAT(e.what(), HasSubstr(what));
        }
    };
    refused([&] { mb.add_vertex(VertexProps{.name = "sw", .line = 9}); },
            "vertex name 'sw' is already used");
    // Names read from a model contain no '.', but this API takes any: a dotted top-level
    // name meets the node vertices of the same name, before or after the node.
    refused([&] { mb.add_vertex(VertexProps{.name = "n1.nic"}); },
            "vertex name 'n1.nic' is already used");
    const VertexId dotted = mb.add_vertex(VertexProps{.name = "n5.s0", .line = 3});
    EXPECT_EQ(mb.find("n5.s0"), dotted);
    refused([&] { mb.add_node(type, "n5", 8); }, "vertex name 'n5.s0' is already used (line 3)");
    refused([&] { mb.add_node(type, "n2", 8); }, "node name 'n2' is already used (line 7)");
    EXPECT_EQ(mb.find("n5.nic"), kNoVertex);  // the refused node left nothing to find
    mb.add_node(type, "n6", 8);
    EXPECT_EQ(tb.vertex(mb.find("n6.nic")).name, "n6.nic");
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::topo
