// Adaptive routing in the packet models (issue 52): UGAL-L and UGAL-G on a dragonfly choose
// per packet between the minimal path and a Valiant one by queue occupancy. Hand-computed
// cases: an adversarial shift (every node of group g sends to group g + 1, so minimal routing
// funnels a group's traffic through its one global cable to the next group), where UGAL must
// beat minimal, and a uniform all-to-all, where it must match minimal. adaptive_up on a fat
// tree likewise against d_mod_k: an adversarial permutation and a uniform all-to-all.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "run/simulation.hpp"
#include "sim_fixtures.hpp"
#include "simulator/error.hpp"
#include "simulator/suggest.hpp"
#include "topologies/generators.hpp"
#include "topologies/model_xml.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using testing::irecv;
using testing::isend;
using testing::waitall;

// 5 groups of 4 routers, 2 nodes per router, 1 global cable per router: 4 cables per group,
// one to each other group; 40 nodes, 8 per group. Every link 1.25 GB/s, 4 KiB packets.
constexpr std::uint32_t kGroups = 5, kPerGroup = 8, kNodes = kGroups * kPerGroup;
constexpr double kB = 1.25e9;

topo::Topology dragonfly(topo::Routing routing, topo::NicModel nic = topo::NicModel::Packet) {
    topo::GenerateOptions o;
    o.nic = nic;
    o.kind = "dragonfly";
    o.groups = kGroups;
    o.routers = 4;
    o.nodes_per_router = 2;
    o.global_links = 1;
    o.granularity = 4096;
    o.forwarding = topo::kStoreAndForward;  // what these figures were measured with
    o.eager_threshold = std::uint64_t{1} << 40;
    o.routing = routing;
    return topo::parse_model(topo::generate_model_xml(o), "df.xml");
}

// Node i sends m to node dst(i) and receives from the node that sends to it; the result.
mpi::SimulationResult run(const topo::Topology& t, const std::vector<std::uint32_t>& dst,
                          std::uint64_t m, std::uint64_t seed = 1) {
    std::vector<std::vector<mpi::Op>> script(kNodes);
    for (std::uint32_t i = 0; i < kNodes; ++i) {
        script[i].push_back(isend(static_cast<int>(dst[i]), m, 0));
        std::uint32_t from = 0;
        while (dst[from] != i) ++from;
        script[i].push_back(irecv(static_cast<int>(from), m, 1));
        script[i].push_back(waitall(0, 2));
    }
    testing::ScriptProgram prog(script);
    mpi::SimulationOptions o;
    o.seed = seed;
    return mpi::simulate(t, testing::one_rank_per_node(t, kNodes), prog, o);
}

// The global cables leaving group 0 that carried bytes.
int group0_globals_used(const topo::Topology& t, const mpi::SimulationResult& r) {
    int used = 0;
    for (topo::EdgeId e = 0; e < t.num_edges(); ++e) {
        const auto& u = t.vertex(t.source_of(e));
        const auto& v = t.vertex(t.target_of(e));
        used += u.kind == topo::VertexKind::Switch && v.kind == topo::VertexKind::Switch &&
                u.group == 0 && v.group != 0 && r.edge_bytes[e] > 0;
    }
    return used;
}

TEST(AdaptiveRouting, NamesParseAndSpell) {
    EXPECT_EQ(topo::parse_routing("ugal_l"), topo::Routing::UgalL);
    EXPECT_EQ(topo::parse_routing("ugal-g"), topo::Routing::UgalG);
    EXPECT_STREQ(topo::to_string(topo::Routing::UgalG), "ugal_g");
    EXPECT_FALSE(topo::fixed_path(topo::Routing::UgalL));
    EXPECT_TRUE(topo::needs_dragonfly(topo::Routing::UgalG));
    EXPECT_NE(did_you_mean("ugl_l", topo::routing_names()).find("ugal_l"), std::string::npos);
    const auto t = dragonfly(topo::Routing::UgalL);
    EXPECT_EQ(t.settings.routing, topo::Routing::UgalL);
}

TEST(AdaptiveRouting, NeedsADragonfly) {
    testing::expect_input_errors({{R"(<cluster><network routing="ugal_g"/>
  <node-type name="n" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <nodes prefix="n" count="2" type="n"/><switch name="sw"/>
  <cable from="n0.s0" to="sw" latency="1us" bandwidth="1GB/s"/>
  <cable from="n1.s0" to="sw" latency="1us" bandwidth="1GB/s"/></cluster>)",
                                   "'ugal_g' needs a <dragonfly>"},
                                  {R"(<cluster><network routing="ugal-lx"/>
  <node-type name="n" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <nodes prefix="n" count="1" type="n"/></cluster>)",
                                   "'ugal-lx' is not valid (did you mean 'ugal_l'?)"}},
                                 "x.xml:1",
                                 [](const std::string& xml) { topo::parse_model(xml, "x.xml"); });
    topo::GenerateOptions o;
    o.kind = "star";
    o.routing = topo::Routing::UgalL;
    try {
        topo::generate_model_xml(o);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("ugal_l routing needs a dragonfly"), std::string::npos)
            << e.what();
    }
}

// One message between groups on an idle network: every queue is empty, so q_min * H_min =
// 0 <= q_val * H_val + threshold and every packet stays minimal: UGAL's time is minimal's to
// the picosecond, and only one global cable carries bytes.
TEST(AdaptiveRouting, AnIdleNetworkStaysMinimal) {
    const std::uint64_t m = 1 << 20;
    auto one_way = [&](topo::Routing r) {
        const auto t = dragonfly(r);
        std::vector<std::vector<mpi::Op>> script(kPerGroup * 2 + 1);
        script[0] = {testing::send(static_cast<int>(kPerGroup * 2), m)};
        script[kPerGroup * 2] = {testing::recv(0, m)};
        testing::ScriptProgram prog(script);
        const auto res = mpi::simulate(t, testing::one_rank_per_node(t, kPerGroup * 2 + 1), prog);
        EXPECT_EQ(group0_globals_used(t, res), 1) << to_string(r);
        return res.simulated;
    };
    const Time minimal = one_way(topo::Routing::ShortestPath);
    EXPECT_EQ(one_way(topo::Routing::UgalL), minimal);
    EXPECT_EQ(one_way(topo::Routing::UgalG), minimal);
    // 256 packets of 4 KiB at 1.25 GB/s, the pipeline's fill and latencies on top.
    EXPECT_GT(minimal.seconds(), m / kB);
    EXPECT_LT(minimal.seconds(), 1.1 * m / kB);
}

// Node i of group g sends 1 MiB to node i of group g + 1. Minimal: each group's 8 m cross its
// one cable to the next group: 8 m / B. Valiant sends them through the 3 other groups: the
// cable g -> g + 1 carries nothing (only group g sends to g + 1, and never through itself);
// each of the other 3 carries 8/3 m of group g's first legs and 8/3 m of second legs (group
// x - 1's traffic to x through g): 16/3 m / B, two thirds of minimal's time. UGAL, which
// keeps some packets on the minimal cable, must beat both; a run is reproducible for its
// seed.
// With the analytical NIC (the route reserved at injection) the same, each hop decided
// against the reservations made for when the packet reaches it.
TEST(AdaptiveRouting, AdversarialShiftBeatsMinimal) {
    for (const topo::NicModel nic : {topo::NicModel::Packet, topo::NicModel::Analytical}) {
        SCOPED_TRACE(to_string(nic));
        const std::uint64_t m = 1 << 20;
        std::vector<std::uint32_t> dst(kNodes);
        for (std::uint32_t i = 0; i < kNodes; ++i) dst[i] = (i + kPerGroup) % kNodes;
        auto time_of = [&](topo::Routing r) {
            const auto t = dragonfly(r, nic);
            const auto res = run(t, dst, m);
            EXPECT_EQ(res.network.bytes_delivered, kNodes * m);
            const auto again = run(t, dst, m);
            EXPECT_EQ(res.simulated, again.simulated) << to_string(r);
            EXPECT_EQ(res.edge_bytes, again.edge_bytes) << to_string(r);
            const int used = r == topo::Routing::ShortestPath ? 1
                             : r == topo::Routing::Valiant    ? 3
                                                              : 4;
            EXPECT_EQ(group0_globals_used(t, res), used) << to_string(r);
            return res.simulated.seconds();
        };
        const double minimal = time_of(topo::Routing::ShortestPath);
        const double valiant = time_of(topo::Routing::Valiant);
        const double ugal_l = time_of(topo::Routing::UgalL);
        const double ugal_g = time_of(topo::Routing::UgalG);
        std::printf(
            "adversarial (%s NIC): minimal %.3f ms, valiant %.3f, ugal_l %.3f, ugal_g %.3f\n",
            to_string(nic), minimal * 1e3, valiant * 1e3, ugal_l * 1e3, ugal_g * 1e3);
        EXPECT_NEAR(minimal, 8.0 * m / kB, 0.05 * 8.0 * m / kB);
        // 16/3 m/B is the load bound; the analytical NIC, serving contending packets in
        // reservation order rather than round-robin, comes 15 % above it (5.154 ms).
        EXPECT_GT(valiant, 0.95 * 16.0 / 3.0 * m / kB);
        EXPECT_LT(valiant, 1.2 * 16.0 / 3.0 * m / kB);
        EXPECT_LT(ugal_g, 0.9 * valiant);
        EXPECT_LT(ugal_l, 0.9 * valiant);
    }
}

// Every node sends 64 KiB to every other: each global cable carries what its two groups
// exchange, 8 x 8 x 64 KiB, at once with the others. Minimal is already balanced; UGAL must
// keep to it (within 5 %), where Valiant, which doubles the global load, does not.
TEST(AdaptiveRouting, UniformAllToAllMatchesMinimal) {
    const std::uint64_t m = 64 << 10;
    std::vector<std::vector<mpi::Op>> script(kNodes);
    for (std::uint32_t i = 0; i < kNodes; ++i) {
        std::uint32_t h = 0;
        for (std::uint32_t k = 1; k < kNodes; ++k) {
            script[i].push_back(isend(static_cast<int>((i + k) % kNodes), m, h++));
            script[i].push_back(irecv(static_cast<int>((i + kNodes - k) % kNodes), m, h++));
        }
        script[i].push_back(waitall(0, h));
    }
    auto time_of = [&](topo::Routing r) {
        const auto t = dragonfly(r);
        testing::ScriptProgram prog(script);
        const auto res = mpi::simulate(t, testing::one_rank_per_node(t, kNodes), prog);
        EXPECT_EQ(res.network.bytes_delivered, std::uint64_t{kNodes} * (kNodes - 1) * m);
        return res.simulated.seconds();
    };
    const double minimal = time_of(topo::Routing::ShortestPath);
    const double valiant = time_of(topo::Routing::Valiant);
    const double ugal_l = time_of(topo::Routing::UgalL);
    const double ugal_g = time_of(topo::Routing::UgalG);
    std::printf("uniform: minimal %.3f ms, valiant %.3f, ugal_l %.3f, ugal_g %.3f\n", minimal * 1e3,
                valiant * 1e3, ugal_l * 1e3, ugal_g * 1e3);
    // Each global cable: 64 pairs x 64 KiB; the node links: 39 x 64 KiB each way.
    EXPECT_GT(minimal, 64.0 * m / kB);
    EXPECT_NEAR(ugal_l, minimal, 0.05 * minimal);
    EXPECT_NEAR(ugal_g, minimal, 0.05 * minimal);
    EXPECT_GT(valiant, 1.1 * minimal);
}

// ---- UGAL in the fluid model ---------------------------------------------------------------

// The fluid model decides once per flow, at its start, with a link's queue read as the
// number of flows on it. One message between groups on an idle fabric: both routes are
// empty, so the minimal one is kept and the time is minimal's to the picosecond.
TEST(AdaptiveRouting, TheFluidModelKeepsAnIdleFlowMinimal) {
    std::vector<std::vector<mpi::Op>> script(kNodes);
    script[0].push_back(isend(static_cast<int>(kPerGroup), 1 << 20, 0));
    script[0].push_back(waitall(0, 1));
    script[kPerGroup].push_back(irecv(0, 1 << 20, 0));
    script[kPerGroup].push_back(waitall(0, 1));
    auto time_of = [&](topo::Routing r) {
        const auto t = dragonfly(r);
        testing::ScriptProgram prog(script);
        mpi::SimulationOptions o;
        o.network = "fluid";
        return mpi::simulate(t, testing::one_rank_per_node(t, kNodes), prog, o).simulated;
    };
    const Time minimal = time_of(topo::Routing::ShortestPath);
    EXPECT_EQ(time_of(topo::Routing::UgalL), minimal);
    EXPECT_EQ(time_of(topo::Routing::UgalG), minimal);
    EXPECT_GT(time_of(topo::Routing::Valiant), minimal);  // two global cables, more hops
}

// The adversarial shift as flows (8 per group, all at once): minimal shares one global
// cable among a group's 8 flows, 8 m/B exactly; UGAL sends the flows that find the minimal
// route's links busier over Valiant routes and must beat minimal, and it may not fall back
// to sending every flow by Valiant (which the fluid model did before it chose per flow).
TEST(AdaptiveRouting, TheFluidModelSpreadsAnAdversarialShift) {
    const std::uint64_t m = 1 << 20;
    std::vector<std::uint32_t> dst(kNodes);
    for (std::uint32_t i = 0; i < kNodes; ++i) dst[i] = (i + kPerGroup) % kNodes;
    auto time_of = [&](topo::Routing r) {
        const auto t = dragonfly(r);
        std::vector<std::vector<mpi::Op>> script(kNodes);
        for (std::uint32_t i = 0; i < kNodes; ++i) {
            script[i].push_back(isend(static_cast<int>(dst[i]), m, 0));
            script[i].push_back(irecv(static_cast<int>((i + kNodes - kPerGroup) % kNodes), m, 1));
            script[i].push_back(waitall(0, 2));
        }
        testing::ScriptProgram prog(script);
        mpi::SimulationOptions o;
        o.network = "fluid";
        const auto res = mpi::simulate(t, testing::one_rank_per_node(t, kNodes), prog, o);
        EXPECT_EQ(res.network.bytes_delivered, kNodes * m);
        const int used = group0_globals_used(t, res);
        EXPECT_EQ(used, r == topo::Routing::ShortestPath ? 1
                        : r == topo::Routing::Valiant    ? 3
                                                         : 4)
            << to_string(r);
        return res.simulated.seconds();
    };
    const double minimal = time_of(topo::Routing::ShortestPath);
    const double valiant = time_of(topo::Routing::Valiant);
    const double ugal_l = time_of(topo::Routing::UgalL);
    const double ugal_g = time_of(topo::Routing::UgalG);
    std::printf("fluid adversarial: minimal %.3f ms, valiant %.3f, ugal_l %.3f, ugal_g %.3f\n",
                minimal * 1e3, valiant * 1e3, ugal_l * 1e3, ugal_g * 1e3);
    EXPECT_NEAR(minimal, 8.0 * m / kB, 1e-3 * 8.0 * m / kB);
    EXPECT_LT(ugal_l, 0.9 * minimal);
    EXPECT_LT(ugal_g, 0.9 * minimal);
    EXPECT_NE(ugal_l, valiant);
}

// ---- adaptive_up on a fat tree ------------------------------------------------------------

// 16 nodes: 4 leaf switches of 4 nodes, 4 spines (full bisection), 1.25 GB/s, 4 KiB packets.
topo::Topology fat_tree(topo::Routing routing, topo::NicModel nic = topo::NicModel::Packet) {
    topo::GenerateOptions o;
    o.nic = nic;
    o.kind = "fat-tree";
    o.nodes = 16;
    o.granularity = 4096;
    o.forwarding = topo::kStoreAndForward;  // what these figures were measured with
    o.eager_threshold = std::uint64_t{1} << 40;
    o.routing = routing;
    return topo::parse_model(topo::generate_model_xml(o), "ft.xml");
}

// Each (source, destination) node pair sends m at once; the simulated time.
double pairs_time(const topo::Topology& t,
                  const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs,
                  std::uint64_t m) {
    const std::size_t n = t.nodes.size();
    std::vector<std::vector<mpi::Op>> script(n);
    std::vector<std::uint32_t> handles(n, 0);
    for (const auto& [a, b] : pairs) {
        script[a].push_back(isend(static_cast<int>(b), m, handles[a]++));
        script[b].push_back(irecv(static_cast<int>(a), m, handles[b]++));
    }
    for (std::size_t r = 0; r < n; ++r)
        if (handles[r] != 0) script[r].push_back(waitall(0, handles[r]));
    testing::ScriptProgram prog(script);
    const auto res = mpi::simulate(t, testing::one_rank_per_node(t, n), prog);
    EXPECT_EQ(res.network.bytes_delivered, pairs.size() * m);
    return res.simulated.seconds();
}

TEST(AdaptiveUp, NameAndFatTreeOnly) {
    EXPECT_EQ(topo::parse_routing("adaptive-up"), topo::Routing::AdaptiveUp);
    EXPECT_FALSE(topo::fixed_path(topo::Routing::AdaptiveUp));
    EXPECT_TRUE(topo::needs_fat_tree(topo::Routing::AdaptiveUp));
    topo::GenerateOptions o;
    o.kind = "torus";
    o.routing = topo::Routing::AdaptiveUp;
    try {
        topo::generate_model_xml(o);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("adaptive_up routing needs a fat-tree"),
                  std::string::npos)
            << e.what();
    }
}

// D-mod-k sends every packet to destination d up spine d mod 4. Node j < 3 of leaf L sends
// to node L of the j-th other leaf: all three destinations are L mod 4, so leaf L's three
// flows share its one up-link to spine L: 3 m / B. Every other link carries one flow. The
// least occupied up-link spreads them over the 4 spines, but a leaf cannot see the spines'
// down-links, where packets of flows from different leaves into one leaf still meet: between
// m / B (each node's own link) and well under D-mod-k's time.
TEST(AdaptiveUp, AdversarialPermutationBeatsDModK) {
    const std::uint64_t m = 1 << 20;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (std::uint32_t leaf = 0; leaf < 4; ++leaf) {
        std::uint32_t j = 0;
        for (std::uint32_t other = 0; other < 4; ++other)
            if (other != leaf) pairs.emplace_back(4 * leaf + j++, 4 * other + leaf);
    }
    const double dmodk = pairs_time(fat_tree(topo::Routing::DModK), pairs, m);
    const double adaptive = pairs_time(fat_tree(topo::Routing::AdaptiveUp), pairs, m);
    std::printf("fat tree adversarial: d_mod_k %.3f ms, adaptive_up %.3f ms\n", dmodk * 1e3,
                adaptive * 1e3);
    EXPECT_NEAR(dmodk, 3.0 * m / kB, 0.05 * 3.0 * m / kB);
    EXPECT_GT(adaptive, 1.0 * m / kB);
    EXPECT_LT(adaptive, 0.6 * dmodk);
}

// A shift (node i to node i + 4, the next leaf): D-mod-k gives every flow its own up-link
// (destinations i + 4 differ mod 4 within a leaf), so m / B; adaptive_up must keep to it
// with either NIC. With the analytical NIC the route is decided at injection, each hop
// against the reservations for when the packet reaches it: against those made by the
// injection time instead, it took 1.48 times D-mod-k's time on a 64-node pairwise alltoall.
TEST(AdaptiveUp, ShiftKeepsToDModKWithEitherNic) {
    const std::uint64_t m = 1 << 20;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (std::uint32_t i = 0; i < 16; ++i) pairs.emplace_back(i, (i + 4) % 16);
    for (const topo::NicModel nic : {topo::NicModel::Packet, topo::NicModel::Analytical}) {
        const double dmodk = pairs_time(fat_tree(topo::Routing::DModK, nic), pairs, m);
        const double adaptive = pairs_time(fat_tree(topo::Routing::AdaptiveUp, nic), pairs, m);
        EXPECT_NEAR(dmodk, 1.0 * m / kB, 0.05 * m / kB) << to_string(nic);
        EXPECT_NEAR(adaptive, dmodk, 0.01 * dmodk) << to_string(nic);
    }
}

// All-to-all, 64 KiB each: D-mod-k already loads every up-link alike; adaptive_up within 5 %.
TEST(AdaptiveUp, UniformAllToAllMatchesDModK) {
    const std::uint64_t m = 64 << 10;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (std::uint32_t a = 0; a < 16; ++a)
        for (std::uint32_t b = 0; b < 16; ++b)
            if (a != b) pairs.emplace_back(a, b);
    const double dmodk = pairs_time(fat_tree(topo::Routing::DModK), pairs, m);
    const double adaptive = pairs_time(fat_tree(topo::Routing::AdaptiveUp), pairs, m);
    std::printf("fat tree uniform: d_mod_k %.3f ms, adaptive_up %.3f ms\n", dmodk * 1e3,
                adaptive * 1e3);
    // Each node's link carries 15 messages each way: at least 15 m / B.
    EXPECT_GT(dmodk, 15.0 * m / kB);
    EXPECT_NEAR(adaptive, dmodk, 0.05 * dmodk);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
