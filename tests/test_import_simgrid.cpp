// `clustersim import simgrid` (traces/import_simgrid.cpp) on SimGrid's example platforms in
// ../shared/external/simgrid-platforms: every one imports into XML that topo::parse_model
// accepts, with the hosts counted by hand, the generators for FAT_TREE / TORUS / DRAGONFLY
// clusters, routes whose latencies add up as in SimGrid, and what could not be mapped listed.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "import/import.hpp"
#include "model_text.hpp"
#include "simulator/error.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/route_service.hpp"
#include "topologies/routing.hpp"
#include "topologies/summary.hpp"
#include "trace_fixtures.hpp"

namespace clustersim::traces {
namespace CLUSTERSIM_TEST_FILE {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kExternal = std::string(CLUSTERSIM_SHARED_DIR) + "/external";
const std::string kDir = kExternal + "/simgrid-platforms";

struct Imported {
    ImportResult result;
    topo::Topology topo;
};

Imported import(const std::string& name) {
    Imported i;
    i.result = import_simgrid(kDir + "/" + name);
    i.topo = topo::parse_model(i.result.xml, name + ".xml");
    return i;
}

bool has_line(const std::vector<std::string>& lines, const std::string& part) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& lines) {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
}

// Latency of the first-choice route between two vertices.
Time route_latency(const topo::Topology& t, const std::string& from, const std::string& to) {
    const topo::Router router(t);
    const topo::VertexId a = t.find_vertex(from), b = t.find_vertex(to);
    EXPECT_NE(a, topo::kNoVertex) << from;
    EXPECT_NE(b, topo::kNoVertex) << to;
    Time sum;
    const auto path = router.path(a, b);
    EXPECT_FALSE(path.empty()) << from << " -> " << to;
    for (const topo::EdgeId e : path) sum = sum + t.edge(e).latency;
    return sum;
}

// Cables between network vertices (switches and NICs).
std::size_t network_cables(const topo::Topology& t) {
    std::size_t n = 0;
    for (topo::EdgeId e = 0; e < t.num_edges(); ++e) {
        const auto a = t.vertex(t.source_of(e)).kind, b = t.vertex(t.target_of(e)).kind;
        n += (a == topo::VertexKind::Switch || a == topo::VertexKind::Nic) &&
             (b == topo::VertexKind::Switch || b == topo::VertexKind::Nic);
    }
    return n / 2;
}

class TempFile {
  public:
    explicit TempFile(const std::string& text) {
        path_ = (fs::temp_directory_path() /
                 fmt::format("clustersim-import-simgrid-{}-{}.xml", ::getpid(),
                             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                    .string();
        std::ofstream(path_) << text;
    }
    ~TempFile() { fs::remove(path_); }
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

TEST(ImportSimgrid, EveryPlatformParsesWithHandCountedNodes) {
    SKIP_WITHOUT_EXTERNAL();
    // Hosts: <host> elements, or the size of each <cluster>'s radical.
    const std::map<std::string, std::size_t> nodes{
        {"cluster_backbone.xml", 100},    // radical 0-99
        {"cluster_crossbar.xml", 65536},  // radical 0-65535
        {"cluster_dragonfly.xml", 120},   // 0-119 = 3 groups x 4 chassis x 5 routers x 2
        {"cluster_fat_tree.xml", 16},     // 0-15 = 4 x 4
        {"cluster_multi.xml", 24},        // 3 clusters of 8 (energy properties: unmapped)
        {"cluster_torus.xml", 12},        // 0-11 = 3 x 2 x 2
        {"hosts_with_disks.xml", 3},      // bob, alice, carl
        {"small_platform.xml", 7},        // Tremblay .. Boivin
    };
    std::size_t seen = 0;
    for (const auto& entry : fs::directory_iterator(kDir)) {
        const std::string name = entry.path().filename().string();
        if (entry.path().extension() != ".xml") continue;
        SCOPED_TRACE(name);
        const auto it = nodes.find(name);
        ASSERT_NE(it, nodes.end()) << "new platform: add its host count";
        Imported i;
        try {
            i = import(name);
        } catch (const InputError& e) {
            if (it->second == 0) {
                ++seen;
                EXPECT_GT(e.line(), 0);
                continue;
            }
            ADD_FAILURE() << e.what();
            continue;
        }
        EXPECT_NE(it->second, 0u) << "expected a refusal";
        EXPECT_EQ(i.topo.nodes.size(), it->second);
        EXPECT_EQ(i.topo.settings.model, topo::NetworkModel::Fluid);
        for (const std::string& u : i.result.unmapped)
            EXPECT_THAT(u, HasSubstr(" not mapped: ")) << u;
        ++seen;
    }
    EXPECT_EQ(seen, nodes.size());
}

// The imported model is the model writer's rendering, element for element (no hand-written
// XML), and it loads to the same graph after a parse, rebuild and rewrite.
TEST(ImportSimgrid, EveryImportedModelIsTheModelWritersRendering) {
    SKIP_WITHOUT_EXTERNAL();
    std::size_t checked = 0;
    for (const auto& entry : fs::directory_iterator(kDir)) {
        const std::string name = entry.path().filename().string();
        if (entry.path().extension() != ".xml") continue;
        const Imported i = import(name);
        const std::string again = clustersim::testing::rewritten(i.result.xml);
        EXPECT_EQ(again, i.result.xml) << name;
        const topo::Topology t = topo::parse_model(again, name);
        ASSERT_EQ(t.num_edges(), i.topo.num_edges()) << name;
        for (topo::EdgeId e = 0; e < t.num_edges(); ++e) {
            EXPECT_EQ(t.edge(e).latency, i.topo.edge(e).latency);
            EXPECT_EQ(t.edge(e).bandwidth, i.topo.edge(e).bandwidth);
        }
        ++checked;
    }
    EXPECT_EQ(checked, 8u);
}

TEST(ImportSimgrid, SmallPlatformHostsLinksAndRoutes) {
    SKIP_WITHOUT_EXTERNAL();
    const Imported i = import("small_platform.xml");
    const auto& t = i.topo;
    ASSERT_EQ(t.nodes.size(), 7u);
    EXPECT_EQ(t.nodes[0].name, "Tremblay");
    EXPECT_EQ(t.nodes[0].sockets.at(0).speed, 98'095'000u);  // 98.095Mf
    EXPECT_EQ(t.nodes[5].name, "Jacquelin");
    EXPECT_EQ(t.nodes[5].sockets.at(0).speed, 137'333'000u);
    // Links become switches l_<id>; a SHARED link's relay is its bandwidth.
    const topo::VertexId l9 = t.find_vertex("l_9");
    ASSERT_NE(l9, topo::kNoVertex);
    EXPECT_EQ(t.vertex(l9).relay.bytes_per_s, 7'209'750u);  // 7.20975MBps
    // Tremblay -> Jupiter: link 9 alone (1.461517ms), split over the two cables next to l_9.
    EXPECT_EQ(route_latency(t, "Tremblay.s0", "Jupiter.s0"), Time::ns(1'461'517));
    // The loopback route (498MBps, 15us) is each host's same-socket path.
    const auto [lo, hi] = t.out_edge_range(t.find_vertex("Tremblay.s0"));
    ASSERT_LT(lo, hi);
    EXPECT_EQ(t.edge(lo).latency, Time::ns(7'500));
    EXPECT_EQ(t.edge(lo).bandwidth.bytes_per_s, 498'000'000u);
    // Every host can reach every other.
    const topo::Router router(t);
    for (const auto& a : t.nodes)
        for (const auto& b : t.nodes)
            EXPECT_TRUE(router.reachable(a.sockets[0].vertex, b.sockets[0].vertex))
                << a.name << " -> " << b.name;
    // SimGrid's Full routes are the routes taken (a complete <routes> table): Jupiter ->
    // Bourassa crosses links 9, 4, 3, 2, 0, 1, 6, 7 as the platform says (3.416882 ms, 7.21
    // MB/s at link 9), where the fewest-hop path over the drawn graph took link 145 alone
    // (410.5 us); no route is reported as a shortcut any more.
    EXPECT_EQ(route_latency(t, "Jupiter.s0", "Bourassa.s0"), Time::ns(3'416'882));
    EXPECT_EQ(route_latency(t, "Bourassa.s0", "Jupiter.s0"), Time::ns(3'416'882));
    EXPECT_FALSE(has_line(i.result.unmapped, "exact path of the route"))
        << joined(i.result.unmapped);
    EXPECT_FALSE(has_line(i.result.unmapped, "(Full) routes")) << "every pair has its route";
    ASSERT_EQ(t.route_tables.size(), 1u);
    EXPECT_TRUE(t.route_tables[0].complete);
    EXPECT_EQ(t.route_tables[0].nodes.size(), 7u);
    EXPECT_EQ(t.given_routes.size(), 42u) << "21 symmetrical routes, both directions";
    topo::Router counting(t);
    EXPECT_EQ(topo::summarize(t, counting).routed_pairs, 42u);
    // Loopback is only used in routes to self: it is no vertex.
    EXPECT_EQ(t.find_vertex("l_loopback"), topo::kNoVertex);
}

// A Full zone whose routes leave pairs unrouted (WRENCH's xrootd_platform.xml): SimGrid has
// no route for them and stops when one communicates. Imported with its real coverage, each
// given route the route taken (one way for symmetrical="NO"), and the first message between
// an unrouted pair one InputError naming both hosts and the table's line.
TEST(ImportSimgrid, FullZoneRoutesAreTakenAsGivenAndUnroutedPairsHaveNone) {
    const TempFile f(R"(<?xml version='1.0'?>
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="a" speed="1Gf"/>
    <host id="b" speed="1Gf"/>
    <host id="c" speed="1Gf"/>
    <link id="ab" bandwidth="1GBps" latency="10us"/>
    <link id="bc" bandwidth="1GBps" latency="20us"/>
    <link id="slow" bandwidth="1MBps" latency="1ms"/>
    <link id="slow2" bandwidth="2MBps" latency="2ms"/>
    <route src="a" dst="b"><link_ctn id="ab"/></route>
    <route src="b" dst="c"><link_ctn id="bc"/></route>
    <route src="c" dst="a" symmetrical="NO"><link_ctn id="bc"/><link_ctn id="slow"/><link_ctn id="slow2"/><link_ctn id="ab"/></route>
  </zone>
</platform>
)");
    const ImportResult r = import_simgrid(f.path());
    const topo::Topology t = topo::parse_model(r.xml, "t.xml");
    EXPECT_THAT(r.xml, HasSubstr("<routes nodes=\"a b c\">"));
    EXPECT_FALSE(has_line(r.unmapped, "asymmetry")) << joined(r.unmapped);
    EXPECT_TRUE(has_line(r.unmapped,
                         ":3: zone 'z' (Full) routes 5 of the 6 ordered pairs of "
                         "its 3 hosts; the other 1 has no route, as in SimGrid: a "
                         "run that sends between two of them stops"))
        << joined(r.unmapped);
    topo::Router router(t);
    // 6 ordered pairs: a<->b, b<->c and c->a routed; a->c is not.
    EXPECT_EQ(topo::summarize(t, router).routed_pairs, 5u);
    const topo::VertexId a = t.find_vertex("a.s0"), c = t.find_vertex("c.s0");
    EXPECT_FALSE(router.reachable(a, c));
    EXPECT_EQ(router.unrouted_table(a, c), 0);
    EXPECT_EQ(router.unrouted_table(c, a), -1);
    // c -> a as given: bc, slow, slow2, ab (20us + 1ms + 2ms + 10us), not the fewest-hop
    // path over b (c.nic, l_bc, b.nic, l_ab, a.nic: 30 us).
    EXPECT_EQ(route_latency(t, "c.s0", "a.s0"), Time::us(3'030));
    EXPECT_EQ(route_latency(t, "a.s0", "b.s0"), Time::us(10));
    const topo::RouteService routes(t, router);
    EXPECT_EQ(routes.route(c, a).bottleneck.bytes_per_s, 1'000'000u);
    try {
        (void)routes.route(a, c);
        ADD_FAILURE() << "a -> c has no route";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  fmt::format("t.xml:{}: no route from node 'a' to node 'c': this <routes> "
                              "table (a SimGrid Full zone's) gives none for the pair, which the "
                              "run needs; SimGrid stops there too",
                              t.route_tables.at(0).line));
    }
}

// <routes> in a model: each error at its line.
TEST(ImportSimgrid, RoutesElementErrorsNameTheirLine) {
    const std::string head = R"(<cluster>
  <network model="fluid"/>
  <node-type name="t" memory="1GiB"><socket name="s0" cores="1" speed="1G"/><nic name="nic"/>
    <cable from="s0" to="nic" latency="0ns" bandwidth="1GB/s"/></node-type>
  <node name="a" type="t"/><node name="b" type="t"/><node name="c" type="t"/>
  <switch name="x"/>
  <cable from="a.nic" to="x" latency="1us" bandwidth="1GB/s"/>
  <cable from="b.nic" to="x" latency="1us" bandwidth="1GB/s"/>
  <cable from="c.nic" to="b.nic" latency="1us" bandwidth="1GB/s"/>
)";
    auto error = [&](const std::string& routes) {
        try {
            (void)topo::parse_model(head + routes + "</cluster>\n", "m.xml");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(error("<routes><route from=\"a\" to=\"c\" via=\"x\"/></routes>\n"),
              "m.xml:10: <route> from 'a' to 'c': no cable or edge from 'x' to 'c.nic'");
    EXPECT_EQ(error("<routes><route from=\"a\" to=\"zz\"/></routes>\n"),
              "m.xml:10: <route> attribute 'to': no node named 'zz'");
    EXPECT_EQ(error("<routes nodes=\"a b\"><route from=\"a\" to=\"c\"/></routes>\n"),
              "m.xml:10: <route> from 'a' to 'c': both must be among the <routes>' nodes");
    EXPECT_EQ(error("<routes><route from=\"a\" to=\"b\" via=\"x\"/>\n"
                    "<route from=\"a\" to=\"b\" via=\"x\"/></routes>\n"),
              "m.xml:11: a second <route> from 'a' to 'b'");
    EXPECT_EQ(error("<routes nodes=\"a b\"/><routes nodes=\"b c\"/>\n"),
              "m.xml:10: <routes> attribute 'nodes': node 'b' is already in the complete "
              "<routes> of line 10");
    // A good one: a -> c over x and b, where fewest hops would be the same; c -> a not given
    // and no table: the routing's path (c.nic - b.nic - x - a.nic).
    const topo::Topology t = topo::parse_model(
        head + "<routes><route from=\"a\" to=\"c\" via=\"x b.nic\"/></routes>\n</cluster>\n",
        "m.xml");
    ASSERT_EQ(t.given_routes.size(), 1u);
    EXPECT_EQ(route_latency(t, "a.s0", "c.s0"), Time::us(3));
    EXPECT_EQ(route_latency(t, "c.s0", "a.s0"), Time::us(3));
}

TEST(ImportSimgrid, FlatClustersBecomeStarsWithBackbone) {
    SKIP_WITHOUT_EXTERNAL();
    const Imported b = import("cluster_backbone.xml");
    EXPECT_THAT(b.result.xml, HasSubstr("<star "));
    EXPECT_EQ(b.topo.nodes.front().name, "node-0");
    EXPECT_EQ(b.topo.nodes.back().name, "node-99");
    const topo::VertexId sw = b.topo.find_vertex("cluster0");
    ASSERT_NE(sw, topo::kNoVertex);
    EXPECT_EQ(b.topo.vertex(sw).relay.bytes_per_s, 2'250'000'000u);  // bb_bw 2.25GBps
    // SimGrid: l0.UP (50us) + backbone (500us) + l1.DOWN (50us).
    EXPECT_EQ(route_latency(b.topo, "node-0.s0", "node-1.s0"), Time::us(600));

    const Imported c = import("cluster_crossbar.xml");
    EXPECT_EQ(c.topo.vertex(c.topo.find_vertex("cluster-crossbar")).relay.bytes_per_s, 0u);
    EXPECT_EQ(route_latency(c.topo, "node-0.s0", "node-65535.s0"), Time::us(100));
}

TEST(ImportSimgrid, MultiClusterJoinsClustersThroughTheBackboneLink) {
    SKIP_WITHOUT_EXTERNAL();
    // Its energy properties are unmapped lines, each naming its line: SimGrid's energy
    // plugin accounts for energy and changes no time.
    const Imported m = import("cluster_multi.xml");
    EXPECT_TRUE(has_line(m.result.unmapped,
                         "cluster_multi.xml:27: property 'wattage_per_state' of cluster 'simple' "
                         "not mapped: energy is not simulated"))
        << joined(m.result.unmapped);
    const auto& t = m.topo;
    ASSERT_EQ(t.nodes.size(), 24u);
    // Three clusters with prefix "node-": the later ones are renamed after their ids.
    EXPECT_EQ(t.nodes[0].name, "node-0");
    EXPECT_EQ(t.nodes[8].name, "backboned-0");
    EXPECT_EQ(t.nodes[16].name, "halfduplex-0");
    EXPECT_EQ(t.nodes[8].sockets.at(0).cores, 2u);
    EXPECT_EQ(t.nodes[16].sockets.at(0).cores, 4u);
    EXPECT_NE(t.find_vertex("l_backbone"), topo::kNoVertex);
    // simple (no backbone): l0 50us; gateway -> backbone link 500us -> backboned's router,
    // behind its backbone (500us): l0 50us.
    EXPECT_EQ(route_latency(t, "node-0.s0", "backboned-0.s0"),
              Time::us(50) + Time::us(500) + Time::us(500) + Time::us(50));
    EXPECT_FALSE(has_line(m.result.unmapped, "exact path")) << joined(m.result.unmapped);
    // halfduplex's links are SHARED: one resource for both directions, so the NIC relays
    // in + out at the link's 125 MB/s; the SPLITDUPLEX clusters' NICs do not limit.
    EXPECT_FALSE(has_line(m.result.unmapped, "sharing policy SHARED")) << joined(m.result.unmapped);
    EXPECT_EQ(t.vertex(t.nodes[16].nic).relay.bytes_per_s, 125'000'000u);
    EXPECT_TRUE(t.vertex(t.nodes[0].nic).relay.infinite());
}

TEST(ImportSimgrid, TopologyClustersUseTheGenerators) {
    SKIP_WITHOUT_EXTERNAL();
    const Imported f = import("cluster_fat_tree.xml");
    EXPECT_THAT(f.result.xml,
                HasSubstr(R"(levels="2" down="4,4" up="1,2" parallel="1,2" link-latency="50us" )"
                          R"(link-bandwidth="125MB/s")"));
    EXPECT_EQ(f.topo.nodes.size(), 16u);

    const Imported t = import("cluster_torus.xml");
    // SimGrid 3,2,2 (first dimension fastest) = clustersim 2,2,3 (last dimension fastest).
    EXPECT_THAT(t.result.xml, HasSubstr(R"(<torus type=")"));
    EXPECT_THAT(t.result.xml, HasSubstr(R"(dims="2,2,3" wiring="simgrid")"));
    EXPECT_THAT(t.result.xml, HasSubstr(R"(routing="simgrid")"));
    EXPECT_EQ(t.topo.nodes.size(), 12u);
    // SimGrid's 36 links (12 nodes x 3 dimensions), each a cable.
    EXPECT_EQ(network_cables(t.topo), 36u);
    // Node 1 is node 0's +1 neighbour in SimGrid's first dimension: one 50us link.
    EXPECT_EQ(route_latency(t.topo, "node-0.nic", "node-1.nic"), Time::us(50));

    const Imported d = import("cluster_dragonfly.xml");
    EXPECT_THAT(d.result.xml,
                HasSubstr(R"(groups="3" chassis="4" routers="5" nodes-per-router="2")"));
    EXPECT_THAT(d.result.xml, HasSubstr(R"(global-bandwidth="500MB/s")"));   // 4 blue links
    EXPECT_THAT(d.result.xml, HasSubstr(R"(chassis-bandwidth="375MB/s")"));  // 3 black links
    EXPECT_EQ(d.topo.nodes.size(), 120u);
    // SimGrid's wiring: 120 node + 120 green + 90 black + 3 blue links (was 720 cables).
    EXPECT_EQ(network_cables(d.topo), 333u);
    EXPECT_FALSE(has_line(d.result.unmapped, "DRAGONFLY wiring")) << joined(d.result.unmapped);
    // limiter_link="150MBps" caps the NIC and, as in SimGrid, every router.
    EXPECT_EQ(d.topo.vertex(d.topo.nodes[0].nic).relay.bytes_per_s, 150'000'000u);
    EXPECT_EQ(d.topo.vertex(d.topo.find_vertex("bob_cluster_dfg0c0r0")).relay.bytes_per_s,
              150'000'000u);
    // Routed as SimGrid: node 0 to node 119 over routers (0,0,0) (0,0,2) (2,0,0) (2,0,4) (2,3,4).
    const topo::Router dr(d.topo);
    std::vector<std::string> via;
    for (const topo::EdgeId e :
         dr.path(d.topo.find_vertex("node-0.nic"), d.topo.find_vertex("node-119.nic")))
        via.push_back(d.topo.vertex(d.topo.target_of(e)).name);
    EXPECT_EQ(via, (std::vector<std::string>{"bob_cluster_dfg0c0r0", "bob_cluster_dfg0c0r2",
                                             "bob_cluster_dfg2c0r0", "bob_cluster_dfg2c0r4",
                                             "bob_cluster_dfg2c3r4", "node-119.nic"}));
}

TEST(ImportSimgrid, UnmappedDisksAndProperties) {
    SKIP_WITHOUT_EXTERNAL();
    const Imported h = import("hosts_with_disks.xml");
    const auto& u = h.result.unmapped;
    EXPECT_TRUE(has_line(u, "hosts_with_disks.xml:7: disk 'Disk1' of host 'bob' not mapped"))
        << joined(u);
    EXPECT_TRUE(has_line(u, "disk 'Disk2' of host 'bob'")) << joined(u);
    EXPECT_TRUE(has_line(u, "disk 'Disk1' of host 'alice'")) << joined(u);
    EXPECT_TRUE(has_line(u, "property 'remote_disk' of host 'carl'")) << joined(u);
    EXPECT_EQ(h.topo.nodes.size(), 3u);
    EXPECT_EQ(route_latency(h.topo, "bob.s0", "carl.s0"), Time::us(150));

    const Imported s = import("small_platform.xml");
    EXPECT_TRUE(s.result.unmapped.empty() || !has_line(s.result.unmapped, "disk"))
        << joined(s.result.unmapped);
}

TEST(ImportSimgrid, NonContiguousRadicalKeepsHostNumbers) {
    const TempFile f(R"(<?xml version='1.0'?>
<platform version="4.1">
  <zone id="w" routing="Full">
    <cluster id="c" prefix="h" suffix=".x" radical="0-2,7" speed="2Gf" core="4"
             bw="10Gbps" lat="1us"/>
    <host id="solo" speed="500Mf"/>
    <link id="L" bandwidth="1GBps" latency="10us"/>
    <zoneRoute src="c" dst="w" gw_src="hc_router.x" gw_dst="solo"><link_ctn id="L"/></zoneRoute>
  </zone>
</platform>
)");
    const ImportResult r = import_simgrid(f.path());
    const topo::Topology t = topo::parse_model(r.xml, "t.xml");
    ASSERT_EQ(t.nodes.size(), 5u);
    EXPECT_EQ(t.nodes[3].name, "h7");
    EXPECT_EQ(t.nodes[3].sockets.at(0).cores, 4u);
    EXPECT_EQ(t.nodes[4].name, "solo");
    // h7 -> private link 1us -> switch c = its router -> L (10us) -> solo.
    EXPECT_EQ(route_latency(t, "h7.s0", "solo.s0"), Time::us(11));
}

// Refusals: one InputError naming the file's line and what is refused.
void expect_refused(const std::string& text, int line, const std::string& what) {
    const TempFile f(text);
    try {
        import_simgrid(f.path());
        ADD_FAILURE() << "no error for: " << what;
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), line) << e.what();
        EXPECT_THAT(e.what(), HasSubstr(what));
    }
}

// A platform of one Full zone holding one host `a` with `attributes`, on line 3.
std::string one_host(const std::string& attributes) {
    return R"(<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="a" )" +
           attributes + R"(/>
  </zone>
</platform>)";
}

// SimGrid starts a host in its `pstate` (sg_platf_new_host_seal), so that state's speed is
// the core's; the other states' speeds and the energy properties (SimGrid's energy plugins
// account for energy and change no time) are unmapped lines naming their lines; a pstate past
// the list (SimGrid's CpuImpl::set_pstate asserts) or not a number is refused at its line.
TEST(ImportSimgrid, AHostRunsAtItsInitialPowerStatesSpeed) {
    const TempFile f(R"(<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="a" speed="100Mf, 50Mf,20Mf" pstate="1">
      <prop id="wattage_per_state" value="90.0:90.0:150.0, 90.0:90.0:110.0, 80:80:80"/>
      <prop id="wattage_off" value="10"/>
    </host>
    <host id="b" speed="100Mf,50Mf"/>
    <host id="c" speed="20Mf" pstate="0"/>
    <link id="l" bandwidth="1GBps" latency="1us"/>
    <route src="a" dst="b"><link_ctn id="l"/></route>
  </zone>
</platform>)");
    const ImportResult r = import_simgrid(f.path());
    const topo::Topology t = topo::parse_model(r.xml, "pstate.xml");
    ASSERT_EQ(t.nodes.size(), 3u);
    EXPECT_EQ(t.nodes[0].sockets.at(0).speed, 50'000'000u);   // a: pstate 1
    EXPECT_EQ(t.nodes[1].sockets.at(0).speed, 100'000'000u);  // b: pstate 0 by default
    EXPECT_EQ(t.nodes[2].sockets.at(0).speed, 20'000'000u);
    EXPECT_TRUE(has_line(r.unmapped,
                         ":3: host 'a' speeds of the other power states ('100Mf, "
                         "50Mf,20Mf') not mapped"))
        << joined(r.unmapped);
    EXPECT_TRUE(has_line(r.unmapped, "power state 1's, the initial one, is used"));
    EXPECT_TRUE(has_line(r.unmapped,
                         ":4: property 'wattage_per_state' of host 'a' not mapped: "
                         "energy is not simulated"));
    EXPECT_TRUE(has_line(r.unmapped,
                         ":5: property 'wattage_off' of host 'a' not mapped: "
                         "energy is not simulated"));
    EXPECT_FALSE(has_line(r.unmapped, "host 'c' speeds"));  // one speed: nothing unmapped
    EXPECT_FALSE(has_line(r.unmapped, "attribute 'pstate'"));

    expect_refused(one_host(R"(speed="100Mf,50Mf" pstate="2")"), 3,
                   "host 'a' attribute 'pstate': power state 2 of 2 speeds");
    expect_refused(one_host(R"(speed="100Mf" pstate="-1")"), 3,
                   "host 'a' attribute 'pstate': '-1' is not a power state number");
}

TEST(ImportSimgrid, RefusesWhatSimGridRefuses) {
    // bogus_two_hosts_asymetric: two symmetrical routes between one pair.
    expect_refused(R"(<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="bob" speed="1Gf"/><host id="alice" speed="1Gf"/>
    <link id="l1" bandwidth="1GBps" latency="1us"/><link id="l2" bandwidth="1GBps" latency="1us"/>
    <route src="bob" dst="alice"><link_ctn id="l1"/></route>
    <route src="alice" dst="bob"><link_ctn id="l2"/></route>
  </zone>
</platform>)",
                   6, "a route from 'alice' to 'bob' is already declared");
    // The same with symmetrical="NO" on both is valid: each direction its own link.
    const TempFile ok(R"(<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="bob" speed="1Gf"/><host id="alice" speed="1Gf"/>
    <link id="l1" bandwidth="1GBps" latency="1us"/><link id="l2" bandwidth="1GBps" latency="1us"/>
    <route src="bob" dst="alice" symmetrical="NO"><link_ctn id="l1"/></route>
    <route src="alice" dst="bob" symmetrical="NO"><link_ctn id="l2"/></route>
  </zone>
</platform>)");
    EXPECT_EQ(topo::parse_model(import_simgrid(ok.path()).xml, "ok.xml").nodes.size(), 2u);
    // bogus_missing_*_gateway: a zoneRoute gateway no element declares.
    const std::string gw = R"(<platform version="4.1">
  <zone id="W" routing="Full">
    <zone id="us" routing="Full">
      <cluster id="c" prefix="n-" suffix=".us" radical="1-4" speed="1Gf" bw="1GBps" lat="1us"/>
    </zone>
    <zone id="fr" routing="Full">
      <cluster id="g" prefix="m-" suffix=".fr" radical="1-4" speed="1Gf" bw="1GBps" lat="1us"/>
    </zone>
    <link id="bb" bandwidth="1GBps" latency="1us"/>
    <zoneRoute src="us" gw_src="GWS" dst="fr" gw_dst="GWD"><link_ctn id="bb"/></zoneRoute>
  </zone>
</platform>)";
    std::string missing_src = gw, missing_dst = gw;
    missing_src.replace(missing_src.find("GWS"), 3, "n-c_routr.us");
    missing_src.replace(missing_src.find("GWD"), 3, "m-g_router.fr");
    missing_dst.replace(missing_dst.find("GWS"), 3, "n-c_router.us");
    missing_dst.replace(missing_dst.find("GWD"), 3, "mm-g_router.fr");
    expect_refused(missing_src, 10, "no host, router or gateway 'n-c_routr.us' is declared");
    expect_refused(missing_dst, 10, "no host, router or gateway 'mm-g_router.fr' is declared");
    // An undeclared link in a route.
    expect_refused(R"(<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
    <route src="a" dst="b"><link_ctn id="nope"/></route>
  </zone>
</platform>)",
                   4, "no link 'nope' is declared");
}

TEST(ImportSimgrid, RefusesWhatHasNoMeaningHere) {
    expect_refused(R"(<platform version="4.1">
  <zone id="w" routing="Wifi">
    <host id="a" speed="1Gf"/>
  </zone>
</platform>)",
                   2, "routing 'Wifi'");
    expect_refused(R"(<platform version="4.1">
  <zone id="z" routing="Full">
    <link id="l" bandwidth="1GBps" latency="1us" sharing_policy="WIFI"/>
  </zone>
</platform>)",
                   3, "WIFI links have no meaning");
    expect_refused(R"(<platform version="4.1">
  <config><prop id="network/model" value="ns-3"/></config>
  <zone id="z" routing="Full"><host id="a" speed="1Gf"/></zone>
</platform>)",
                   2, "ns-3");
    // Profiles (time-varying rates): refused at the attribute or element.
    expect_refused(R"(<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="a" speed="1Gf"/>
    <link id="l" bandwidth="1GBps" latency="1us" bandwidth_file="bw.txt"/>
  </zone>
</platform>)",
                   4, "attribute 'bandwidth_file': time-varying rates");
    expect_refused(one_host(R"(speed="1Gf" speed_file="s.txt")"), 3, "attribute 'speed_file'");
    expect_refused(R"(<platform version="4.1">
  <trace id="t" periodicity="1">0 1
</trace>
  <zone id="z" routing="Full"><host id="a" speed="1Gf"/></zone>
</platform>)",
                   2, "<trace>: time-varying rates");
}

TEST(ImportSimgrid, CabinetsBackboneAndHostLinksInAClusterZone) {
    // SimGrid's StarZone: each host's private up and down links, the backbone in between.
    const TempFile f(R"(<platform version="4.1">
  <zone id="meta" routing="Cluster">
    <router id="meta_router"/>
    <backbone id="bb" bandwidth="2.25GBps" latency="500us"/>
    <cabinet id="cab1" prefix="c1-" suffix=".me" radical="0-3" speed="1Gf" bw="125MBps" lat="100us"/>
    <cabinet id="cab2" prefix="c2-" suffix=".me" radical="0-1" speed="2Gf" bw="125MBps" lat="100us"/>
    <host id="solo" speed="1Gf"/>
    <link id="up" bandwidth="50MBps" latency="10us"/>
    <link id="down" bandwidth="80MBps" latency="20us"/>
    <host_link id="solo" up="up" down="down"/>
    <host id="duo" speed="1Gf"/>
    <link id="sd" bandwidth="60MBps" latency="30us" sharing_policy="SPLITDUPLEX"/>
    <host_link id="duo" up="sd_UP" down="sd_DOWN"/>
  </zone>
</platform>)");
    const ImportResult r = import_simgrid(f.path());
    const topo::Topology t = topo::parse_model(r.xml, "cab.xml");
    ASSERT_EQ(t.nodes.size(), 8u);
    EXPECT_EQ(t.nodes[0].name, "c1-0_me");
    // A SPLITDUPLEX link's halves by SimGrid's names: 30us up + 500us + 30us down.
    EXPECT_EQ(route_latency(t, "duo.nic", "solo.nic"), Time::us(550));
    EXPECT_FALSE(has_line(r.unmapped, "SPLITDUPLEX")) << joined(r.unmapped);
    EXPECT_EQ(t.nodes[5].sockets.at(0).speed, 2'000'000'000u);
    // c1-0 -> c2-1: 100us up + 500us backbone + 100us down.
    EXPECT_EQ(route_latency(t, "c1-0_me.nic", "c2-1_me.nic"), Time::us(700));
    // solo -> c1-0: its up link (10us) + backbone + c1-0's down link; the other way 100 + 500 + 20.
    EXPECT_EQ(route_latency(t, "solo.nic", "c1-0_me.nic"), Time::us(610));
    EXPECT_EQ(route_latency(t, "c1-0_me.nic", "solo.nic"), Time::us(620));
    // The backbone caps the star (SHARED), the host links keep their own one-way rates.
    EXPECT_EQ(t.vertex(t.find_vertex("meta_star")).relay.bytes_per_s, 2'250'000'000u);
    const topo::Router router(t);
    const auto up = router.path(t.find_vertex("solo.nic"), t.find_vertex("meta_star"));
    ASSERT_EQ(up.size(), 1u);
    EXPECT_EQ(t.edge(up[0]).bandwidth.bytes_per_s, 50'000'000u);
    const auto down = router.path(t.find_vertex("meta_star"), t.find_vertex("solo.nic"));
    ASSERT_EQ(down.size(), 1u);
    EXPECT_EQ(t.edge(down[0]).bandwidth.bytes_per_s, 80'000'000u);
    // A cabinet outside a Cluster zone is refused, as in SimGrid.
    expect_refused(R"(<platform version="4.1">
  <zone id="z" routing="Full">
    <cabinet id="c" prefix="c-" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="1us"/>
  </zone>
</platform>)",
                   3, "outside a zone with routing 'Cluster'");
}

TEST(ImportSimgrid, VivaldiPeersGetCoordinateLatencies) {
    // Latency = sqrt(dx^2 + dy^2) + |h_a| + |h_b| milliseconds (SimGrid's VivaldiZone), over
    // each peer's up (bw_out) and down (bw_in) links.
    const TempFile f(R"(<platform version="4.1">
  <zone id="v" routing="Vivaldi">
    <peer id="p1" coordinates="0 0 1" speed="1Gf" bw_in="100MBps" bw_out="50MBps"/>
    <peer id="p2" coordinates="3 4 0.5" speed="1Gf" bw_in="200MBps" bw_out="20MBps"/>
    <host id="h3" coordinates="6 8 0" speed="1Gf"/>
  </zone>
</platform>)");
    const ImportResult r = import_simgrid(f.path());
    const topo::Topology t = topo::parse_model(r.xml, "viv.xml");
    ASSERT_EQ(t.nodes.size(), 3u);
    EXPECT_EQ(route_latency(t, "p1.nic", "p2.nic"), Time::us(6500));  // 5 + 1 + 0.5 ms
    EXPECT_EQ(route_latency(t, "p2.nic", "p1.nic"), Time::us(6500));
    EXPECT_EQ(route_latency(t, "p1.nic", "h3.nic"), Time::us(11000));  // 10 + 1 + 0 ms
    const topo::Router router(t);
    std::uint64_t narrowest = UINT64_MAX;
    for (const topo::EdgeId e : router.path(t.find_vertex("p1.nic"), t.find_vertex("p2.nic")))
        narrowest = std::min(narrowest, t.edge(e).bandwidth.bytes_per_s);
    EXPECT_EQ(narrowest, 50'000'000u);  // p1's bw_out
    narrowest = UINT64_MAX;
    for (const topo::EdgeId e : router.path(t.find_vertex("p2.nic"), t.find_vertex("p1.nic")))
        narrowest = std::min(narrowest, t.edge(e).bandwidth.bytes_per_s);
    EXPECT_EQ(narrowest, 20'000'000u);  // p2's bw_out
    expect_refused(R"(<platform version="4.1">
  <zone id="z" routing="Full">
    <peer id="p" coordinates="0 0 0" speed="1Gf" bw_in="1GBps" bw_out="1GBps"/>
  </zone>
</platform>)",
                   3, "<peer> outside a zone with routing 'Vivaldi'");
    expect_refused(R"(<platform version="4.1">
  <zone id="v" routing="Vivaldi">
    <peer id="p" coordinates="0 0" speed="1Gf" bw_in="1GBps" bw_out="1GBps"/>
  </zone>
</platform>)",
                   3, "is not three coordinates");
}

TEST(ImportSimgrid, VivaldiZoneOfMoreThan1024HostsIsRefused) {
    std::string text = "<platform version=\"4.1\">\n  <zone id=\"v\" routing=\"Vivaldi\">\n";
    for (int i = 0; i < 1025; ++i)
        text += fmt::format(R"(<host id="h{}" speed="1Gf" coordinates="{} 0 0"/>)", i, i) + "\n";
    text += "  </zone>\n</platform>\n";
    expect_refused(text, 2, "Vivaldi zone with 1025 hosts");
}

TEST(ImportSimgrid, SharedLinksAreOneResourceForBothDirections) {
    // A flat SHARED cluster: the NIC relays in + out at the link's bandwidth; a SHARED
    // explicit link is a switch relaying at its bandwidth. SPLITDUPLEX: no relay.
    const TempFile f(R"(<platform version="4.1">
  <zone id="z" routing="Full">
    <cluster id="s" prefix="s" suffix="" radical="0-3" speed="1Gf" bw="100MBps" lat="1us"
             sharing_policy="SHARED"/>
    <cluster id="d" prefix="d" suffix="" radical="0-3" speed="1Gf" bw="100MBps" lat="1us"/>
  </zone>
</platform>)");
    const topo::Topology t = topo::parse_model(import_simgrid(f.path()).xml, "shared.xml");
    EXPECT_EQ(t.vertex(t.nodes[0].nic).relay.bytes_per_s, 100'000'000u);
    EXPECT_TRUE(t.vertex(t.nodes[4].nic).relay.infinite());
}

TEST(ImportSimgrid, BadInputsNameFileAndLine) {
    const TempFile a(
        "<platform version=\"4.1\">\n  <host id=\"x\" speed=\"fast\"/>\n</platform>\n");
    try {
        import_simgrid(a.path());
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), 2);
        EXPECT_THAT(e.what(), HasSubstr("'fast' is not a speed"));
    }
    const TempFile b("<platform>\n  <host id=\"x\"\n</platform>\n");
    EXPECT_THROW(import_simgrid(b.path()), InputError);
    const TempFile c("<platform version=\"4.1\"/>\n");
    EXPECT_THROW(import_simgrid(c.path()), InputError);
    EXPECT_THROW(import_simgrid("/nonexistent/platform.xml"), InputError);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::traces
