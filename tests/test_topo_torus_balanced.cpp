// dimension_order_balanced (issue 52): the generated torus's routing. Dimension order as
// SimGrid's TorusZone routes it, except that a destination exactly half an even ring away is
// reached rightwards from an even source coordinate and leftwards from an odd one. Under
// uniform all-to-all traffic every directed torus link then carries the same number of
// routes; SimGrid's rule sends most of those routes rightwards, and its busiest links carry
// half again as many.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "topologies/generators.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/routing.hpp"

namespace clustersim::topo {
namespace CLUSTERSIM_TEST_FILE {

Topology torus(const std::vector<std::uint32_t>& dims, std::optional<Routing> routing) {
    GenerateOptions o;
    o.kind = "torus";
    o.dims = dims;
    o.routing = routing;
    return parse_model(generate_model_xml(o), "torus.xml");
}

// Routes of every ordered node pair over each directed NIC-to-NIC (torus) link.
std::map<EdgeId, int> torus_link_loads(const Topology& t) {
    const Router r(t);
    std::map<EdgeId, int> load;
    for (EdgeId e = 0; e < t.num_edges(); ++e)
        if (t.vertex(t.source_of(e)).kind == VertexKind::Nic &&
            t.vertex(t.target_of(e)).kind == VertexKind::Nic)
            load[e] = 0;
    for (const NodeInfo& a : t.nodes)
        for (const NodeInfo& b : t.nodes)
            if (a.nic != b.nic)
                for (const EdgeId e : r.path(a.nic, b.nic))
                    if (load.count(e) != 0) ++load[e];
    return load;
}

// 4 x 4: on a 4-ring each source sends one route a hop to each side and one two hops (the
// tie). Balanced: sources 0 and 2 take the tie rightwards, 1 and 3 leftwards, so each
// directed link of a ring carries 1 single hop and 1 tie hop per destination row: 2, times
// 4 rows = 8 on every one of the 64 links. SimGrid's rule takes the tie rightwards from 0, 1
// and 3 and leftwards from 2: per ring the rightwards links carry 3, 3, 2, 2 and the
// leftwards ones 2, 2, 1, 1 (times 4 rows: 12, 8 and 4), over 8 rings 16 links at 12, 32 at 8
// and 16 at 4, one link half again as busy as the balanced ones.
TEST(TorusBalanced, EveryLinkCarriesTheSameRoutesUnderUniformTraffic) {
    const Topology balanced = torus({4, 4}, std::nullopt);  // the generated default
    EXPECT_EQ(balanced.settings.routing, Routing::DimensionOrderBalanced);
    const auto loads = torus_link_loads(balanced);
    ASSERT_EQ(loads.size(), 64u);  // 16 nodes x 4 directed links
    for (const auto& [e, n] : loads) EXPECT_EQ(n, 8) << "edge " << e;

    const auto simgrid = torus_link_loads(torus({4, 4}, Routing::DimensionOrder));
    std::map<int, int> histogram;
    for (const auto& [e, n] : simgrid) ++histogram[n];
    EXPECT_EQ(histogram, (std::map<int, int>{{4, 16}, {8, 32}, {12, 16}}));
}

// The rule by hand on a ring of 6 (clustersim's wiring, the last coordinate fastest): from
// node 0 (even) the tie, node 3, is reached rightwards 0 1 2 3; from node 1 (odd) its tie,
// node 4, leftwards 1 0 5 4; other destinations as dimension_order takes them.
TEST(TorusBalanced, TiesGoRightFromEvenCoordinatesAndLeftFromOdd) {
    const Topology t = torus({6}, Routing::DimensionOrderBalanced);
    const Router r(t);
    auto nics = [&](std::uint32_t a, std::uint32_t b) {
        std::vector<std::uint32_t> out{a};
        for (const EdgeId e : r.path(t.nodes[a].nic, t.nodes[b].nic))
            out.push_back(static_cast<std::uint32_t>(t.vertex(t.target_of(e)).node));
        return out;
    };
    EXPECT_EQ(nics(0, 3), (std::vector<std::uint32_t>{0, 1, 2, 3}));
    EXPECT_EQ(nics(1, 4), (std::vector<std::uint32_t>{1, 0, 5, 4}));
    EXPECT_EQ(nics(4, 1), (std::vector<std::uint32_t>{4, 5, 0, 1}));
    EXPECT_EQ(nics(5, 2), (std::vector<std::uint32_t>{5, 4, 3, 2}));
    EXPECT_EQ(nics(0, 2), (std::vector<std::uint32_t>{0, 1, 2}));
    EXPECT_EQ(nics(0, 4), (std::vector<std::uint32_t>{0, 5, 4}));
    // An odd ring has no tie: the same routes as dimension_order.
    const Topology odd = torus({5}, Routing::DimensionOrderBalanced);
    const Topology plain = torus({5}, Routing::DimensionOrder);
    const Router ro(odd), rp(plain);
    for (std::uint32_t a = 0; a < 5; ++a) {
        for (std::uint32_t b = 0; b < 5; ++b) {
            if (a == b) continue;
            EXPECT_EQ(ro.path(odd.nodes[a].nic, odd.nodes[b].nic),
                      rp.path(plain.nodes[a].nic, plain.nodes[b].nic));
        }
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::topo
