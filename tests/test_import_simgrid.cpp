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

#include "simulator/error.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/routing.hpp"
#include "traces/import.hpp"

namespace clustersim::traces {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kExternal = std::string(CLUSTERSIM_SHARED_DIR) + "/external";
const std::string kDir = kExternal + "/simgrid-platforms";

#define SKIP_WITHOUT_EXTERNAL() \
    if (!fs::exists(kExternal)) GTEST_SKIP() << "no " << kExternal << " in this tree"

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
        {"cluster_multi.xml", 24},        // three clusters of radical 0-7
        {"cluster_torus.xml", 12},        // 0-11 = 3 x 2 x 2
        {"hosts_with_disks.xml", 3},      // bob, alice, carl
        {"small_platform.xml", 7},        // Tremblay .. Boivin
    };
    std::size_t seen = 0;
    for (const auto& entry : fs::directory_iterator(kDir)) {
        const std::string name = entry.path().filename().string();
        if (entry.path().extension() != ".xml") continue;
        SCOPED_TRACE(name);
        Imported i;
        try {
            i = import(name);
        } catch (const InputError& e) {
            ADD_FAILURE() << e.what() << "\n" << import_simgrid(entry.path().string()).xml;
            continue;
        }
        const auto it = nodes.find(name);
        ASSERT_NE(it, nodes.end()) << "new platform: add its host count";
        EXPECT_EQ(i.topo.nodes.size(), it->second);
        EXPECT_EQ(i.topo.settings.model, topo::NetworkModel::Fluid);
        for (const std::string& u : i.result.unmapped)
            EXPECT_THAT(u, HasSubstr(" not mapped: ")) << u;
        ++seen;
    }
    EXPECT_EQ(seen, nodes.size());
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
    // Fewest-hop routing over the drawn graph shortcuts 12 of the 21 routes between two
    // hosts (e.g. Jupiter -> Bourassa through link 145 alone); each is reported.
    const auto shortcut =
        std::count_if(i.result.unmapped.begin(), i.result.unmapped.end(), [](const std::string& l) {
            return l.find("exact path of the route") != std::string::npos;
        });
    EXPECT_EQ(shortcut, 12) << joined(i.result.unmapped);
    EXPECT_TRUE(has_line(i.result.unmapped,
                         "small_platform.xml:87: exact path of the route from 'Jupiter' to "
                         "'Bourassa' not mapped"))
        << joined(i.result.unmapped);
    EXPECT_FALSE(has_line(i.result.unmapped, "from 'Tremblay' to 'Jupiter'"));
    // Loopback is only used in routes to self: it is no vertex.
    EXPECT_EQ(t.find_vertex("l_loopback"), topo::kNoVertex);
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
    const Imported m = import("cluster_multi.xml");
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
    EXPECT_TRUE(has_line(m.result.unmapped, "wattage_per_state")) << joined(m.result.unmapped);
    EXPECT_FALSE(has_line(m.result.unmapped, "exact path")) << joined(m.result.unmapped);
    EXPECT_TRUE(has_line(m.result.unmapped, "sharing policy SHARED of cluster 'halfduplex'"))
        << joined(m.result.unmapped);
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
    EXPECT_THAT(t.result.xml, HasSubstr(R"(dims="2,2,3")"));
    EXPECT_EQ(t.topo.nodes.size(), 12u);
    // Node 1 is node 0's +1 neighbour in SimGrid's first dimension: one 50us link.
    EXPECT_EQ(route_latency(t.topo, "node-0.nic", "node-1.nic"), Time::us(50));

    const Imported d = import("cluster_dragonfly.xml");
    EXPECT_THAT(d.result.xml, HasSubstr(R"(groups="3" routers="20" nodes-per-router="2")"));
    EXPECT_THAT(d.result.xml, HasSubstr(R"(global-bandwidth="500MB/s")"));  // 4 blue links
    EXPECT_EQ(d.topo.nodes.size(), 120u);
    EXPECT_TRUE(has_line(d.result.unmapped, "DRAGONFLY wiring")) << joined(d.result.unmapped);
    // limiter_link="150MBps" caps the NIC.
    EXPECT_EQ(d.topo.vertex(d.topo.nodes[0].nic).relay.bytes_per_s, 150'000'000u);
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
    <host id="solo" speed="500Mf" availability_file="a.txt"/>
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
    EXPECT_TRUE(has_line(r.unmapped, "attribute 'availability_file'")) << joined(r.unmapped);
    // h7 -> private link 1us -> switch c = its router -> L (10us) -> solo.
    EXPECT_EQ(route_latency(t, "h7.s0", "solo.s0"), Time::us(11));
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

}  // namespace
}  // namespace clustersim::traces
