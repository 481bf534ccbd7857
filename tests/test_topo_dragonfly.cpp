// The dragonfly generator: counts, the global-cable arrangement (every pair of groups
// joined), groups on routers and node vertices, minimal routes of at most local-global-local
// router hops, the balanced shape chosen from a node count, and the generate round trip.
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "simulator/error.hpp"
#include "topo_fixtures.hpp"
#include "topologies/generators.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/routing.hpp"

namespace clustersim::topo {
namespace CLUSTERSIM_TEST_FILE {

using ::testing::HasSubstr;

using testing::kNodeEdges;
using testing::kNodeVertices;
using testing::kType;

std::string dragonfly(std::uint64_t g, std::uint64_t a, std::uint64_t p, std::uint64_t h,
                      const std::string& extra = "") {
    return fmt::format(
        R"(<dragonfly type="t" groups="{}" routers="{}" nodes-per-router="{}" global-links="{}"{})"
        R"( link-latency="10ns" link-bandwidth="1GB/s" local-latency="20ns")"
        R"( local-bandwidth="2GB/s" global-latency="30ns" global-bandwidth="3GB/s"/>)",
        g, a, p, h, extra);
}

Topology with_generator(const std::string& element, const std::string& network = "") {
    return parse_model(fmt::format("<cluster name=\"g\">\n  {}\n  {}\n  {}\n</cluster>\n", network,
                                   kType, element),
                       "gen.xml");
}

bool is_router(const Topology& t, VertexId v) {
    return t.vertex(v).kind == VertexKind::Switch && t.vertex(v).node < 0;
}
bool router_edge(const Topology& t, EdgeId e) {
    return is_router(t, t.source_of(e)) && is_router(t, t.target_of(e));
}

struct Census {
    std::size_t routers = 0, local_edges = 0, global_edges = 0;
    std::set<std::pair<int, int>> joined;  // group pairs (lower, higher) with a global cable
};

Census census(const Topology& t) {
    Census c;
    for (VertexId v = 0; v < t.num_vertices(); ++v) c.routers += is_router(t, v);
    for (EdgeId e = 0; e < t.num_edges(); ++e) {
        if (!router_edge(t, e)) continue;
        const int gs = t.vertex(t.source_of(e)).group, gt = t.vertex(t.target_of(e)).group;
        if (gs == gt) {
            ++c.local_edges;
        } else {
            ++c.global_edges;
            c.joined.emplace(std::min(gs, gt), std::max(gs, gt));
        }
    }
    return c;
}

// Global cables at one router (out-edges to routers of other groups).
std::size_t global_degree(const Topology& t, VertexId router) {
    std::size_t n = 0;
    auto [lo, hi] = t.out_edge_range(router);
    for (EdgeId e = lo; e < hi; ++e)
        n += is_router(t, t.target_of(e)) &&
             t.vertex(t.target_of(e)).group != t.vertex(router).group;
    return n;
}

// ---- shape ------------------------------------------------------------------------------

TEST(TopoDragonfly, ShapeFormula) {
    DragonflyShape s = dragonfly_shape(9, 4, 2, 2);  // balanced, g = a*h + 1
    EXPECT_EQ(s.routers, 36u);
    EXPECT_EQ(s.nodes, 72u);
    EXPECT_EQ(s.local_cables, 9u * 6);
    EXPECT_EQ(s.global_cables, 36u);
    EXPECT_EQ(s.cables_per_pair, 1u);

    s = dragonfly_shape(3, 2, 1, 2);  // 4 ports, 2 others: two full rounds
    EXPECT_EQ(s.global_cables, 2u * 3);
    EXPECT_EQ(s.cables_per_pair, 2u);

    s = dragonfly_shape(5, 2, 1, 3);  // 6 ports, 4 others: one round + 2 ports among groups 0..2
    EXPECT_EQ(s.global_cables, 10u + 3);
    EXPECT_EQ(s.cables_per_pair, 1u);

    s = dragonfly_shape(1, 3, 2, 1);  // a single group: no global cables
    EXPECT_EQ(s.local_cables, 3u);
    EXPECT_EQ(s.global_cables, 0u);
    EXPECT_EQ(s.nodes, 6u);

    EXPECT_THROW(dragonfly_shape(10, 4, 2, 2), ModelError);
    EXPECT_THROW(dragonfly_shape(0, 4, 2, 2), ModelError);
    EXPECT_THROW(dragonfly_shape(3, 1, 1 << 24, 2), ModelError);  // 3 * 2^24 nodes
    try {
        dragonfly_shape(10, 4, 2, 2);
    } catch (const ModelError& e) {
        EXPECT_THAT(e.what(), HasSubstr("expected groups <= 8 + 1 = 9"));
    }
}

// ---- expansion counts -------------------------------------------------------------------

struct Shape {
    std::uint64_t g, a, p, h;
};

class TopoDragonflyShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(TopoDragonflyShapes, CountsGroupsAndEveryPairJoined) {
    const auto [g, a, p, h] = GetParam();
    const Topology t = with_generator(dragonfly(g, a, p, h));
    const DragonflyShape s = dragonfly_shape(g, a, p, h);
    const Census c = census(t);
    EXPECT_EQ(t.nodes.size(), g * a * p);
    EXPECT_EQ(c.routers, g * a);
    EXPECT_EQ(t.num_vertices(), g * a * p * kNodeVertices + g * a);
    EXPECT_EQ(c.local_edges, 2 * g * a * (a - 1) / 2);
    EXPECT_EQ(c.local_edges, 2 * s.local_cables);
    EXPECT_EQ(c.global_edges, 2 * s.global_cables);
    EXPECT_EQ(t.num_edges(),
              g * a * p * kNodeEdges + 2 * (g * a * p) + c.local_edges + c.global_edges);
    // Every pair of groups has a global cable.
    EXPECT_EQ(c.joined.size(), g * (g - 1) / 2);
    // No router has more than h global cables; with a whole number of rounds, exactly h.
    const bool exact = g == 1 || (a * h) % (g - 1) == 0;
    for (VertexId v = 0; v < t.num_vertices(); ++v) {
        if (!is_router(t, v)) continue;
        EXPECT_LE(global_degree(t, v), h) << t.vertex(v).name;
        if (exact && g > 1) {
            EXPECT_EQ(global_degree(t, v), h) << t.vertex(v).name;
        }
        EXPECT_GE(t.vertex(v).group, 0);
        EXPECT_LT(t.vertex(v).group, static_cast<int>(g));
    }
    // Node x hangs off router (x / p) of the whole numbering; all its vertices carry the group.
    for (std::uint32_t x = 0; x < t.nodes.size(); ++x) {
        const NodeInfo& n = t.nodes[x];
        EXPECT_EQ(n.name, fmt::format("n{}", x));
        const auto grp = static_cast<int>(x / (a * p));
        const VertexId router = t.target_of(t.out_edge_range(n.nic).second - 1);
        EXPECT_EQ(t.vertex(router).name, fmt::format("ndfg{}r{}", grp, (x / p) % a));
        for (const char* local : {"s0", "mem0", "nic"})
            EXPECT_EQ(t.vertex(t.find_vertex(fmt::format("n{}.{}", x, local))).group, grp);
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, TopoDragonflyShapes,
                         ::testing::Values(Shape{9, 4, 2, 2},   // the example
                                           Shape{3, 2, 1, 1},   // smallest balanced, maximal
                                           Shape{4, 4, 2, 2},   // 8 ports, 3 others: partial
                                           Shape{3, 2, 1, 2},   // two cables per pair
                                           Shape{5, 2, 1, 3},   // partial round
                                           Shape{19, 6, 3, 3},  // balanced p = 3, maximal
                                           Shape{1, 3, 2, 1},   // one group
                                           Shape{2, 1, 3, 1}),  // one router per group
                         [](const ::testing::TestParamInfo<Shape>& info) {
                             const Shape& s = info.param;
                             return fmt::format("g{}a{}p{}h{}", s.g, s.a, s.p, s.h);
                         });

TEST(TopoDragonfly, PartialRoundLeavesTheLastPortsOfHigherGroupsFree) {
    // 4 groups, 8 ports, 3 others: two full rounds (6 ports), then R = 2 ports cabled only
    // among groups 0..2; group 3 keeps its ports 6 and 7 (router 3) free.
    const Topology t = with_generator(dragonfly(4, 4, 1, 2));
    const Census c = census(t);
    EXPECT_EQ(c.global_edges, 2u * (2 * 6 + 3));
    EXPECT_EQ(global_degree(t, t.find_vertex("ndfg3r3")), 0u);
    EXPECT_EQ(global_degree(t, t.find_vertex("ndfg3r2")), 2u);
    for (int g = 0; g < 3; ++g)
        EXPECT_EQ(global_degree(t, t.find_vertex(fmt::format("ndfg{}r3", g))), 2u);
}

TEST(TopoDragonfly, ExampleLoads) {
    const Topology t =
        load_model(std::string(CLUSTERSIM_SOURCE_DIR) + "/topologies/examples/dragonfly-72.xml");
    EXPECT_EQ(t.name, "dragonfly-72");
    EXPECT_EQ(t.nodes.size(), 72u);
    const Census c = census(t);
    EXPECT_EQ(c.routers, 36u);
    EXPECT_EQ(c.local_edges, 2u * 54);
    EXPECT_EQ(c.global_edges, 2u * 36);
    EXPECT_EQ(c.joined.size(), 36u);
    EXPECT_EQ(t.num_edges(), 72u * 4 + 2 * 72 + 2 * 54 + 2 * 36);
    EXPECT_EQ(t.settings.routing, Routing::ShortestPath);
    const VertexId r = t.find_vertex("ndfg8r3");
    ASSERT_NE(r, kNoVertex);
    EXPECT_EQ(t.vertex(r).group, 8);
    EXPECT_EQ(t.vertex(r).relay.bytes_per_s, 100'000'000'000u);
    EXPECT_EQ(t.nodes[71].name, "n71");
    EXPECT_EQ(t.vertex(t.nodes[71].nic).group, 8);
}

// Port k of group i sits on router k / h and leads to group k (k < i) or k + 1.
TEST(TopoDragonfly, GlobalArrangementIsConsecutive) {
    const Topology t = with_generator(dragonfly(9, 4, 2, 2));
    auto neighbours = [&](const std::string& name) {
        std::vector<int> groups;
        const VertexId v = t.find_vertex(name);
        auto [lo, hi] = t.out_edge_range(v);
        for (EdgeId e = lo; e < hi; ++e) {
            const VertexId w = t.target_of(e);
            if (is_router(t, w) && t.vertex(w).group != t.vertex(v).group) {
                groups.push_back(t.vertex(w).group);
                EXPECT_EQ(t.edge(e).latency, Time::ns(30));
                EXPECT_EQ(t.edge(e).bandwidth.bytes_per_s, 3'000'000'000u);
            }
        }
        std::sort(groups.begin(), groups.end());
        return groups;
    };
    EXPECT_EQ(neighbours("ndfg0r0"), (std::vector<int>{1, 2}));
    EXPECT_EQ(neighbours("ndfg0r3"), (std::vector<int>{7, 8}));
    EXPECT_EQ(neighbours("ndfg5r2"), (std::vector<int>{4, 6}));
    EXPECT_EQ(neighbours("ndfg8r3"), (std::vector<int>{6, 7}));
    // The cable 0 <-> 5 leaves group 0 at port 4 (router 2) and group 5 at port 0 (router 0).
    const VertexId a = t.find_vertex("ndfg0r2"), b = t.find_vertex("ndfg5r0");
    bool found = false;
    auto [lo, hi] = t.out_edge_range(a);
    for (EdgeId e = lo; e < hi; ++e) found |= t.target_of(e) == b;
    EXPECT_TRUE(found);
}

TEST(TopoDragonfly, PrefixesAndAttachment) {
    const Topology t = with_generator(
        dragonfly(3, 2, 2, 1, R"( prefix="c" switch-prefix="df" router-bandwidth="40GB/s")"));
    EXPECT_EQ(t.nodes[11].name, "c11");
    const VertexId r = t.find_vertex("dfg2r1");
    ASSERT_NE(r, kNoVertex);
    EXPECT_EQ(t.vertex(r).relay.bytes_per_s, 40'000'000'000u);
    EXPECT_EQ(t.vertex(r).line, 10);  // the <dragonfly> element, after the 7-line node-type
    EXPECT_EQ(t.nodes[11].line, 10);
    // Out-edges of a router: its nodes' links, then local, then global cables.
    auto [lo, hi] = t.out_edge_range(r);
    ASSERT_EQ(hi - lo, 2u + 1 + 1);
    EXPECT_EQ(t.edge(lo).latency, Time::ns(10));
    EXPECT_EQ(t.edge(lo + 2).latency, Time::ns(20));
    EXPECT_EQ(t.edge(lo + 2).bandwidth.bytes_per_s, 2'000'000'000u);
    EXPECT_EQ(t.edge(lo + 3).latency, Time::ns(30));
    // Default router names: <prefix>df...
    EXPECT_NE(with_generator(dragonfly(1, 1, 1, 1)).find_vertex("ndfg0r0"), kNoVertex);
}

TEST(TopoDragonfly, NeedsANic) {
    try {
        parse_model(R"(<cluster>
  <node-type name="t" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  )" + dragonfly(3, 2, 1, 1) +
                        "\n</cluster>",
                    "x.xml");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), 3);
        EXPECT_THAT(e.what(), HasSubstr("<dragonfly>: node-type 't' has no <nic>"));
    }
}

// ---- routes -----------------------------------------------------------------------------

std::size_t router_hops(const Topology& t, const std::vector<EdgeId>& path) {
    std::size_t n = 0;
    for (EdgeId e : path) n += router_edge(t, e);
    return n;
}

TEST(TopoDragonfly, MinimalRoutesAreLocalGlobalLocal) {
    for (const Shape& s : {Shape{9, 4, 2, 2}, Shape{5, 2, 1, 3}, Shape{4, 4, 1, 2}}) {
        const Topology t = with_generator(dragonfly(s.g, s.a, s.p, s.h));
        const Router router(t);
        const auto n = static_cast<std::uint32_t>(t.nodes.size());
        std::size_t longest = 0;
        for (std::uint32_t x = 0; x < n; ++x) {
            for (std::uint32_t y = 0; y < n; ++y) {
                if (x == y) continue;
                const VertexId from = t.nodes[x].sockets[0].vertex;
                const VertexId to = t.nodes[y].sockets[0].vertex;
                const std::vector<EdgeId> path = router.path(from, to);
                ASSERT_FALSE(path.empty());
                EXPECT_EQ(t.target_of(path.back()), to);
                const std::size_t hops = router_hops(t, path);
                std::size_t global = 0;
                for (EdgeId e : path)
                    global += router_edge(t, e) &&
                              t.vertex(t.source_of(e)).group != t.vertex(t.target_of(e)).group;
                if (t.vertex(from).group == t.vertex(to).group) {
                    EXPECT_LE(hops, 1u);
                    EXPECT_EQ(global, 0u);
                } else {
                    // Local-global-local, or global-global via a third group when the
                    // source router has a cable there: fewest hops, never more than 3.
                    EXPECT_LE(hops, 3u) << t.nodes[x].name << " -> " << t.nodes[y].name;
                    EXPECT_GE(global, 1u);
                    EXPECT_LE(global, 2u);
                }
                longest = std::max(longest, hops);
            }
        }
        EXPECT_EQ(longest, 3u) << "some pair needs local-global-local";
    }
}

// ---- valiant ----------------------------------------------------------------------------

TEST(TopoDragonfly, ValiantRoutingIsAccepted) {
    const Topology t = with_generator(dragonfly(3, 2, 1, 1), R"(<network routing="valiant"/>)");
    EXPECT_EQ(t.settings.routing, Routing::Valiant);
    EXPECT_STREQ(to_string(t.settings.routing), "valiant");
}

// ---- balanced shapes and generate_model_xml ---------------------------------------------

TEST(TopoDragonfly, BalancedIsTheSmallestThatFits) {
    EXPECT_EQ(balanced_dragonfly(72).groups, 9u);
    EXPECT_EQ(balanced_dragonfly(72).routers, 4u);
    EXPECT_EQ(balanced_dragonfly(1000).routers, 10u);  // p = 5: 20 groups of 50, exact
    EXPECT_EQ(balanced_dragonfly(1000).groups, 20u);
    EXPECT_EQ(balanced_dragonfly(1).groups, 1u);
    EXPECT_EQ(balanced_dragonfly(1).routers, 2u);
    EXPECT_EQ(balanced_dragonfly(7).routers, 4u);  // 6 is the most p = 1 holds
    EXPECT_EQ(balanced_dragonfly(7).groups, 1u);
    EXPECT_THROW(balanced_dragonfly(0), ModelError);
    for (std::uint64_t n = 1; n <= 3000; ++n) {
        const DragonflySize d = balanced_dragonfly(n);
        const std::uint64_t p = d.nodes_per_router;
        ASSERT_EQ(d.routers, 2 * p);
        ASSERT_EQ(d.global_links, p);
        ASSERT_LE(d.groups, d.routers * d.global_links + 1);
        const std::uint64_t total = d.groups * d.routers * p;
        ASSERT_GE(total, n);
        ASSERT_LT(total - n, d.routers * p) << n << ": a group too many";
        for (std::uint64_t q = 1; 2 * q * q <= total; ++q) {  // no smaller balanced one
            const std::uint64_t per = 2 * q * q, g = (n + per - 1) / per;
            if (g <= per + 1) {
                ASSERT_GE(g * per, total) << n << " fits in p = " << q;
            }
        }
    }
}

TEST(TopoDragonfly, GeneratedRoundTrips) {
    GenerateOptions o;
    o.kind = "dragonfly";
    o.nodes = 72;
    o.routing = Routing::Valiant;
    o.switch_bandwidth = Bandwidth{50'000'000'000};
    o.local_latency = Time::ns(150);
    o.global_bandwidth = Bandwidth{2'500'000'000};
    const std::string xml = generate_model_xml(o);
    Topology t = parse_model(xml, "g.xml");
    EXPECT_EQ(t.name, "dragonfly-72");
    EXPECT_EQ(t.settings.routing, Routing::Valiant);
    EXPECT_EQ(t.nodes.size(), 72u);
    Census c = census(t);
    EXPECT_EQ(c.routers, 36u);
    EXPECT_EQ(c.joined.size(), 36u);
    EXPECT_EQ(c.local_edges, 2u * 54);
    EXPECT_EQ(c.global_edges, 2u * 36);
    const VertexId r = t.find_vertex("ndfg3r1");
    ASSERT_NE(r, kNoVertex);
    EXPECT_EQ(t.vertex(r).relay, o.switch_bandwidth);
    bool saw_local = false, saw_global = false;
    auto [lo, hi] = t.out_edge_range(r);
    for (EdgeId e = lo; e < hi; ++e) {
        const VertexId w = t.target_of(e);
        if (!is_router(t, w)) {
            EXPECT_EQ(t.edge(e).latency, o.link_latency);
            EXPECT_EQ(t.edge(e).bandwidth, o.link_bandwidth);
        } else if (t.vertex(w).group == 3) {
            saw_local = true;
            EXPECT_EQ(t.edge(e).latency, o.local_latency.value_or(o.link_latency));
            EXPECT_EQ(t.edge(e).bandwidth, o.local_bandwidth.value_or(o.link_bandwidth));
        } else {
            saw_global = true;
            EXPECT_EQ(t.edge(e).latency,
                      o.global_latency.value_or(o.link_latency + o.link_latency));
            EXPECT_EQ(t.edge(e).bandwidth, o.global_bandwidth.value_or(o.link_bandwidth));
        }
    }
    EXPECT_TRUE(saw_local);
    EXPECT_TRUE(saw_global);
    EXPECT_LT(std::count(xml.begin(), xml.end(), '\n'), 25);

    o.nodes = 100;  // p = 5: 2 groups of 10 routers with 5 nodes each, exactly
    o.routing = Routing::ShortestPath;
    t = parse_model(generate_model_xml(o), "g.xml");
    EXPECT_EQ(t.name, "dragonfly-100");
    EXPECT_EQ(census(t).routers, 20u);
    o.nodes = 73;  // no exact fit: p = 3, 5 groups of 18 (p = 4 would give 96, p = 5 100)
    t = parse_model(generate_model_xml(o), "g.xml");
    EXPECT_EQ(t.name, "dragonfly-90");
    EXPECT_EQ(census(t).routers, 30u);

    o.routers = 3;  // explicit shape; groups default to a*h + 1
    o.nodes_per_router = 1;
    o.global_links = 2;
    t = parse_model(generate_model_xml(o), "g.xml");
    EXPECT_EQ(t.nodes.size(), 7u * 3);
    EXPECT_EQ(census(t).joined.size(), 21u);

    o.groups = 4;  // 6 ports, 3 others: two cables per pair
    t = parse_model(generate_model_xml(o), "g.xml");
    EXPECT_EQ(t.name, "dragonfly-12");
    EXPECT_EQ(census(t).global_edges, 2u * 12);
}

TEST(TopoDragonfly, GenerateRejectsBadOptions) {
    GenerateOptions o;
    o.kind = "dragonfly";
    o.routers = 4;  // nodes_per_router and global_links missing
    try {
        generate_model_xml(o);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("needs routers, nodes per router and global links"));
    }
    o.nodes_per_router = 2;
    o.global_links = 2;
    o.groups = 10;
    try {
        generate_model_xml(o);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("expected groups <= 8 + 1 = 9"));
    }
    o.groups = 9;
    o.global_bandwidth = kInfiniteBandwidth;
    EXPECT_THROW(generate_model_xml(o), InputError);
    o.global_bandwidth = Bandwidth{1'000'000'000};
    EXPECT_NO_THROW(generate_model_xml(o));

    GenerateOptions star;
    star.kind = "star";
    star.routing = Routing::Valiant;
    try {
        generate_model_xml(star);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("valiant routing needs a dragonfly"));
    }
    star.kind = "mesh";
    try {
        generate_model_xml(star);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("dragonfly"));
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::topo
