// The routings that follow SimGrid's cluster zones (topologies/routing.cpp, fabric_path):
// torus dimension_order (TorusZone), fat-tree D-mod-k (FatTreeZone) and the minimal routing
// of SimGrid's dragonfly wiring (DragonflyZone), hop by hop against the rules SimGrid's
// sources state, and the cable counts of SimGrid's wirings.
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "simulator/error.hpp"
#include "topologies/generators.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/routing.hpp"

namespace clustersim::topo {
namespace CLUSTERSIM_TEST_FILE {

using ::testing::HasSubstr;

const char* kType = R"(
  <node-type name="n" memory="1GiB"><socket name="s0" cores="1" speed="1G"/><memory-node name="m"/>
    <nic name="nic"/>
    <cable from="s0" to="m" latency="0s" bandwidth="10GB/s"/>
    <cable from="s0" to="nic" latency="0s" bandwidth="1TB/s"/></node-type>)";

Topology model(const std::string& routing, const std::string& body) {
    return parse_model(fmt::format(R"(<cluster name="t"><network model="fluid" routing="{}"/>{}
  {}
</cluster>)",
                                   routing, kType, body),
                       "t.xml");
}

// The vertices a path visits after `from`.
std::vector<std::string> hops(const Topology& t, const Router& r, const std::string& from,
                              const std::string& to) {
    std::vector<std::string> out;
    for (const EdgeId e : r.path(t.find_vertex(from), t.find_vertex(to)))
        out.push_back(t.vertex(t.target_of(e)).name);
    return out;
}

// Cables between network vertices (switches and NICs): one-way edges / 2.
std::size_t network_cables(const Topology& t) {
    std::size_t n = 0;
    for (EdgeId e = 0; e < t.num_edges(); ++e) {
        const VertexKind a = t.vertex(t.source_of(e)).kind, b = t.vertex(t.target_of(e)).kind;
        n += (a == VertexKind::Switch || a == VertexKind::Nic) &&
             (b == VertexKind::Switch || b == VertexKind::Nic);
    }
    return n / 2;
}

// Which of the parallel edges from its source to its target edge e is (0 = first).
std::size_t parallel_index(const Topology& t, EdgeId e) {
    std::size_t k = 0;
    auto [lo, hi] = t.out_edge_range(t.source_of(e));
    for (EdgeId f = lo; f < e; ++f) k += t.target_of(f) == t.target_of(e);
    return k;
}

// SimGrid's TorusZone::get_local_route as its source states it, over node numbers: the
// dimensions in order (sizes in SimGrid's order, first fastest); in each the direction from
// the *source's* coordinate: right iff (t > s && t <= s + d/2) || (s > d/2 && (s + d/2) % d >= t).
std::vector<std::uint64_t> simgrid_torus_route(const std::vector<std::uint64_t>& dims,
                                               std::uint64_t src, std::uint64_t dst) {
    std::vector<std::uint64_t> nodes;
    std::uint64_t cur = src;
    while (cur != dst) {
        std::uint64_t dp = 1;
        for (const std::uint64_t d : dims) {
            const std::uint64_t c = cur / dp % d, t = dst / dp % d, s = src / dp % d;
            if (c != t) {
                const bool right = (t > s && t <= s + d / 2) || (s > d / 2 && (s + d / 2) % d >= t);
                if (right)
                    cur = c == d - 1 ? cur - (d - 1) * dp : cur + dp;
                else
                    cur = c == 0 ? cur + (d - 1) * dp : cur - dp;
                break;
            }
            dp *= d;
        }
        nodes.push_back(cur);
    }
    return nodes;
}

std::string torus_xml(const std::vector<std::uint64_t>& simgrid_dims) {
    std::string dims;  // clustersim's order: last fastest
    for (auto it = simgrid_dims.rbegin(); it != simgrid_dims.rend(); ++it)
        dims += (dims.empty() ? "" : ",") + std::to_string(*it);
    return fmt::format(
        R"(<torus type="n" dims="{}" wiring="simgrid" link-latency="1us" link-bandwidth="1GB/s"/>)",
        dims);
}

TEST(SimgridRouting, TorusDimensionOrderEveryPairAsSimGrid) {
    for (const std::vector<std::uint64_t>& dims : std::vector<std::vector<std::uint64_t>>{
             {3, 2, 2}, {4, 4}, {5, 3}, {6}, {2, 1, 3}, {4, 2, 3}}) {
        const Topology t = model("dimension_order", torus_xml(dims));
        const Router r(t);
        const std::size_t n = t.nodes.size();
        for (std::size_t a = 0; a < n; ++a) {
            for (std::size_t b = 0; b < n; ++b) {
                if (a == b) continue;
                std::vector<std::string> want{fmt::format("n{}.nic", a)};
                for (const std::uint64_t x : simgrid_torus_route(dims, a, b))
                    want.push_back(fmt::format("n{}.nic", x));
                want.push_back(fmt::format("n{}.s0", b));
                EXPECT_EQ(hops(t, r, fmt::format("n{}.s0", a), fmt::format("n{}.s0", b)), want)
                    << "dims " << fmt::format("{}", fmt::join(dims, ",")) << ": " << a << " -> "
                    << b;
            }
        }
    }
}

TEST(SimgridRouting, TorusByHand) {
    // SimGrid 4x4: node 0 = (0,0) to node 10 = (2,2): x first, +1 twice (2 <= 0 + 4/2), then y.
    const Topology t = model("dimension_order", torus_xml({4, 4}));
    const Router r(t);
    EXPECT_EQ(hops(t, r, "n0.nic", "n10.nic"),
              (std::vector<std::string>{"n1.nic", "n2.nic", "n6.nic", "n10.nic"}));
    // Node 3 = (3,0) to node 1 = (1,0): 3 > 2 and (3 + 2) % 4 = 1 >= 1: right, across the wrap.
    EXPECT_EQ(hops(t, r, "n3.nic", "n1.nic"), (std::vector<std::string>{"n0.nic", "n1.nic"}));
    // Shortest-path on the same torus takes its own (lowest edge id) way for the first.
    const Topology s = model("shortest_path", torus_xml({4, 4}));
    const Router rs(s);
    EXPECT_EQ(rs.path(s.find_vertex("n0.nic"), s.find_vertex("n10.nic")).size(), 4u);
}

TEST(SimgridRouting, TorusCableCountsPerNodeAndDimension) {
    // SimGrid: one link per node and dimension. 3,2,2: 12 x 3 = 36 (clustersim wiring: 24);
    // 2,1,3: 6 x 3 less the size-1 dimension's 6 self-links = 12.
    EXPECT_EQ(network_cables(model("shortest_path", torus_xml({3, 2, 2}))), 36u);
    EXPECT_EQ(
        network_cables(model("shortest_path", R"(<torus type="n" dims="2,2,3" )"
                                              R"(link-latency="1us" link-bandwidth="1GB/s"/>)")),
        24u);
    EXPECT_EQ(network_cables(model("shortest_path", torus_xml({2, 1, 3}))), 12u);
    // Size 2: both ways over the lower node's cable (the first of the two), as SimGrid.
    const Topology t = model("dimension_order", torus_xml({2}));
    const Router r(t);
    const auto ab = r.path(t.find_vertex("n0.nic"), t.find_vertex("n1.nic"));
    const auto ba = r.path(t.find_vertex("n1.nic"), t.find_vertex("n0.nic"));
    ASSERT_EQ(ab.size(), 1u);
    ASSERT_EQ(ba.size(), 1u);
    EXPECT_EQ(parallel_index(t, ab[0]), 0u);
    EXPECT_EQ(parallel_index(t, ba[0]), 0u);
}

const char* kFatTree = R"(<fat-tree type="n" levels="2" down="4,4" up="1,2" parallel="1,2" )"
                       R"(link-latency="1us" link-bandwidth="1GB/s"/>)";

TEST(SimgridRouting, FatTreeDModKByHand) {
    // SimGrid's cluster_fat_tree.xml shape: 2;4,4;1,2;1,2. From a leaf switch the up port is
    // d = dst mod (u_2 p_2) = dst mod 4: top switch b = d mod 2, parallel cable d / 2. Down:
    // cable (src mod p_2).
    const Topology t = model("d_mod_k", kFatTree);
    const Router r(t);
    for (std::uint64_t src : {0u, 1u, 6u}) {
        for (std::uint64_t dst = 0; dst < 16; ++dst) {
            if (dst / 4 == src / 4) continue;  // same leaf: no choice
            const auto p = r.path(t.find_vertex(fmt::format("n{}.nic", src)),
                                  t.find_vertex(fmt::format("n{}.nic", dst)));
            ASSERT_EQ(p.size(), 4u);
            EXPECT_EQ(t.vertex(t.target_of(p[0])).name, fmt::format("nsw1_{}", src / 4));
            EXPECT_EQ(t.vertex(t.target_of(p[1])).name, fmt::format("nsw2_{}", dst % 4 % 2));
            EXPECT_EQ(parallel_index(t, p[1]), dst % 4 / 2) << src << " -> " << dst;
            EXPECT_EQ(t.vertex(t.target_of(p[2])).name, fmt::format("nsw1_{}", dst / 4));
            EXPECT_EQ(parallel_index(t, p[2]), src % 2) << src << " -> " << dst;
            EXPECT_EQ(t.vertex(t.target_of(p[3])).name, fmt::format("n{}.nic", dst));
        }
    }
}

TEST(SimgridRouting, FatTreeDModKSpreadsWhereShortestPathDoesNot) {
    // Node 0 to the 12 nodes under other leaves: D-mod-k uses all 4 up cables of its leaf,
    // 3 destinations each; shortest_path always the first.
    for (const char* routing : {"d_mod_k", "shortest_path"}) {
        const Topology t = model(routing, kFatTree);
        const Router r(t);
        std::map<EdgeId, int> up;
        for (int dst = 4; dst < 16; ++dst)
            ++up[r.path(t.find_vertex("n0.nic"), t.find_vertex(fmt::format("n{}.nic", dst)))[1]];
        if (std::string(routing) == "d_mod_k") {
            EXPECT_EQ(up.size(), 4u);
            for (const auto& [e, n] : up) EXPECT_EQ(n, 3) << e;
        } else {
            EXPECT_EQ(up.size(), 1u);
        }
    }
}

TEST(SimgridRouting, FatTreeThreeLevelsEveryPathIsMinimalAndDModK) {
    // XGFT(3; 2,2,2; 1,2,2): up ports at level l are dst / (u_1..u_l) mod u_{l+1}.
    const Topology t =
        model("d_mod_k", R"(<fat-tree type="n" levels="3" down="2,2,2" )"
                         R"(up="1,2,2" link-latency="1us" link-bandwidth="1GB/s"/>)");
    const Router r(t);
    for (int src = 0; src < 8; ++src) {
        for (int dst = 0; dst < 8; ++dst) {
            if (src == dst) continue;
            const int up = src / 4 != dst / 4 ? 3 : src / 2 != dst / 2 ? 2 : 1;
            const auto p = r.path(t.find_vertex(fmt::format("n{}.nic", src)),
                                  t.find_vertex(fmt::format("n{}.nic", dst)));
            ASSERT_EQ(p.size(), 2u * up) << src << " -> " << dst;
            if (up == 3) {
                // Level-2 switch index = A * U_2 + B with B = b_2 = dst mod 2 (U_1 = 1).
                const std::string l2 = t.vertex(t.target_of(p[1])).name;
                EXPECT_EQ(l2, fmt::format("nsw2_{}", src / 4 * 2 + dst % 2));
                // Level 3 index = b_2 + 2 b_3 with b_3 = (dst / 2) mod 2.
                EXPECT_EQ(t.vertex(t.target_of(p[2])).name,
                          fmt::format("nsw3_{}", dst % 2 + 2 * (dst / 2 % 2)));
            }
        }
    }
}

// SimGrid's cluster_dragonfly.xml: 3 groups (1 blue link), 4 chassis (3 black), 5 routers
// (1 green), 2 nodes per router.
const char* kDragonfly =
    R"(<dragonfly wiring="simgrid" type="n" groups="3" chassis="4" routers="5" )"
    R"(nodes-per-router="2" link-latency="1us" link-bandwidth="1GB/s" local-latency="1us" )"
    R"(local-bandwidth="1GB/s" chassis-latency="1us" chassis-bandwidth="3GB/s" )"
    R"(global-latency="1us" global-bandwidth="1GB/s"/>)";

TEST(SimgridRouting, DragonflySimGridWiringCounts) {
    const Topology t = model("simgrid", kDragonfly);
    EXPECT_EQ(t.nodes.size(), 120u);
    // 120 node links + 12 chassis x C(5,2) green + 3 groups x C(4,2) x 5 black + C(3,2) blue.
    EXPECT_EQ(network_cables(t), 120u + 120u + 90u + 3u);
    std::size_t routers = 0;
    for (VertexId v = 0; v < t.num_vertices(); ++v)
        routers += t.vertex(v).kind == VertexKind::Switch;
    EXPECT_EQ(routers, 60u);
    // Blue link between groups 0 and 2: router 2 of group 0 and router 0 of group 2.
    EXPECT_EQ(t.vertex(t.find_vertex("ndfg0c0r2")).group, 0);
    bool blue = false;
    auto [lo, hi] = t.out_edge_range(t.find_vertex("ndfg0c0r2"));
    for (EdgeId e = lo; e < hi; ++e) blue = blue || t.target_of(e) == t.find_vertex("ndfg2c0r0");
    EXPECT_TRUE(blue);
}

TEST(SimgridRouting, DragonflyMinimalAsSimGrid) {
    const Topology t = model("simgrid", kDragonfly);
    const Router r(t);
    // Node 0 (g0 c0 b0) to node 119 (g2 c3 b4 slot 1): green to blade 2 (the router with the
    // blue link to group 2), blue to router 0 of group 2, green to blade 4, black to chassis 3.
    EXPECT_EQ(hops(t, r, "n0.nic", "n119.nic"),
              (std::vector<std::string>{"ndfg0c0r0", "ndfg0c0r2", "ndfg2c0r0", "ndfg2c0r4",
                                        "ndfg2c3r4", "n119.nic"}));
    // Node 73 (g1 c3 b1) to node 4 (g0 c0 b2): green to blade 0, black to chassis 0, blue
    // to router 1 of group 0, green to blade 2.
    EXPECT_EQ(hops(t, r, "n73.nic", "n4.nic"),
              (std::vector<std::string>{"ndfg1c3r1", "ndfg1c3r0", "ndfg1c0r0", "ndfg0c0r1",
                                        "ndfg0c0r2", "n4.nic"}));
    // Inside a group: blade first, then chassis.
    EXPECT_EQ(hops(t, r, "n0.nic", "n13.nic"),  // g0 c1 b1
              (std::vector<std::string>{"ndfg0c0r0", "ndfg0c0r1", "ndfg0c1r1", "n13.nic"}));
    // Every pair has a route of at most 1 + 5 + 1 hops.
    for (int a = 0; a < 120; a += 7)
        for (int b = 0; b < 120; ++b)
            if (a != b) {
                const auto p = r.path(t.find_vertex(fmt::format("n{}.nic", a)),
                                      t.find_vertex(fmt::format("n{}.nic", b)));
                EXPECT_FALSE(p.empty());
                EXPECT_LE(p.size(), 7u);
            }
}

TEST(SimgridRouting, RoutingNamesAndErrors) {
    EXPECT_STREQ(to_string(Routing::DimensionOrder), "dimension_order");
    EXPECT_STREQ(to_string(Routing::DModK), "d_mod_k");
    EXPECT_STREQ(to_string(Routing::SimGrid), "simgrid");
    EXPECT_TRUE(fixed_path(Routing::SimGrid));
    EXPECT_FALSE(fixed_path(Routing::RoundRobin));
    EXPECT_EQ(model("simgrid", kFatTree).settings.routing, Routing::SimGrid);
    try {
        model("dimension_order", kFatTree);
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("'dimension_order' needs a <torus>"));
    }
    try {
        model("d_mod_k", torus_xml({4}));
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("'d_mod_k' needs a <fat-tree>"));
    }
    try {
        model("simgrid",
              R"(<dragonfly wiring="simgrid" type="n" groups="6" chassis="1" routers="5" )"
              R"(nodes-per-router="1" link-latency="1us" link-bandwidth="1GB/s" )"
              R"(local-latency="1us" local-bandwidth="1GB/s" chassis-latency="1us" )"
              R"(chassis-bandwidth="1GB/s" global-latency="1us" global-bandwidth="1GB/s"/>)");
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("6 groups need at least 6 routers per chassis"));
    }
    EXPECT_THROW(model("simgrid", R"(<torus type="n" dims="4" wiring="ibm" link-latency="1us" )"
                                  R"(link-bandwidth="1GB/s"/>)"),
                 InputError);
    // Outside the fabrics, and on a Kim-wired dragonfly, simgrid is shortest_path.
    const Topology k =
        model("simgrid", R"(<dragonfly type="n" groups="3" routers="2" )"
                         R"(nodes-per-router="1" global-links="1" link-latency="1us" )"
                         R"(link-bandwidth="1GB/s" local-latency="1us" )"
                         R"(local-bandwidth="1GB/s" global-latency="1us" )"
                         R"(global-bandwidth="1GB/s"/>)");
    const Topology ks =
        model("shortest_path", R"(<dragonfly type="n" groups="3" routers="2" )"
                               R"(nodes-per-router="1" global-links="1" link-latency="1us" )"
                               R"(link-bandwidth="1GB/s" local-latency="1us" )"
                               R"(local-bandwidth="1GB/s" global-latency="1us" )"
                               R"(global-bandwidth="1GB/s"/>)");
    const Router rk(k), rks(ks);
    for (int a = 0; a < 6; ++a)
        for (int b = 0; b < 6; ++b)
            EXPECT_EQ(rk.path(k.find_vertex(fmt::format("n{}.s0", a)),
                              k.find_vertex(fmt::format("n{}.s0", b))),
                      rks.path(ks.find_vertex(fmt::format("n{}.s0", a)),
                               ks.find_vertex(fmt::format("n{}.s0", b))));
}

TEST(SimgridRouting, GeneratedModelsTakeTheRoutingNames) {
    // `clustersim generate torus --dims 4,4 --routing dimension_order` routes as SimGrid.
    GenerateOptions o;
    o.kind = "torus";
    o.dims = {4, 4};
    o.routing = Routing::DimensionOrder;
    const Topology t = parse_model(generate_model_xml(o), "gen.xml");
    EXPECT_EQ(t.settings.routing, Routing::DimensionOrder);
    const Router r(t);
    // n0 -> n10: SimGrid's first dimension is the generator's last (fastest): +1, +1, then
    // +4, +4.
    EXPECT_EQ(hops(t, r, "n0.nic", "n10.nic"),
              (std::vector<std::string>{"n1.nic", "n2.nic", "n6.nic", "n10.nic"}));
    o.kind = "star";
    EXPECT_THROW(generate_model_xml(o), InputError);
    o.kind = "fat-tree";
    o.routing = Routing::DModK;
    EXPECT_EQ(parse_model(generate_model_xml(o), "ft.xml").settings.routing, Routing::DModK);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::topo
