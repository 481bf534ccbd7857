// `clustersim import piosimhd` (traces/import_piosimhd.cpp) on PIOsimHD's own models in
// ../shared/external: the PVS cluster model the partdiff-par trace ran on, and the
// older-format Jacobi-10C model (upper-case elements, values from templates).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "collectives/placement.hpp"
#include "import/import.hpp"
#include "iosys/file_system.hpp"
#include "model_text.hpp"
#include "run/model.hpp"
#include "simulator/error.hpp"
#include "topologies/model_xml.hpp"
#include "trace_fixtures.hpp"

namespace clustersim::traces {
namespace CLUSTERSIM_TEST_FILE {

namespace fs = std::filesystem;

const std::string kExternal = std::string(CLUSTERSIM_SHARED_DIR) + "/external";
const std::string kPvs = kExternal + "/hdtrace-partdiff-mpi-io/pvs-cluster-model.xml";
const std::string kJacobi = kExternal + "/piosimhd-models/Jacobi-10C-model.xml";

constexpr std::uint64_t kMiB = 1024 * 1024;

const topo::EdgeProps* edge(const topo::Topology& t, const std::string& from,
                            const std::string& to) {
    const topo::VertexId a = t.find_vertex(from), b = t.find_vertex(to);
    if (a == topo::kNoVertex || b == topo::kNoVertex) return nullptr;
    const auto [first, last] = t.out_edge_range(a);
    for (topo::EdgeId e = first; e < last; ++e)
        if (t.target_of(e) == b) return &t.edge(e);
    return nullptr;
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

// Both corpus models are the model writer's rendering, element for element.
TEST(ImportPiosimhd, ImportedModelsAreTheModelWritersRendering) {
    SKIP_WITHOUT_EXTERNAL();
    for (const std::string& path : {kPvs, kJacobi}) {
        const ImportResult r = import_piosimhd(path);
        EXPECT_EQ(clustersim::testing::rewritten(r.xml), r.xml) << path;
        EXPECT_NE(r.xml.find("<!-- Imported from the PIOsimHD model "), std::string::npos);
    }
}

TEST(ImportPiosimhd, PvsClusterModel) {
    SKIP_WITHOUT_EXTERNAL();
    const ImportResult r = import_piosimhd(kPvs);
    run::Model t_model;
    ASSERT_NO_THROW(t_model = run::parse_model(r.xml, "pvs.xml")) << r.xml;
    const topo::Topology& t = t_model.topology;
    ASSERT_NO_THROW(io::check_io(t, t_model.io, t_model.mpi)) << r.xml;

    // 15 PVS-Node_<i>: one CPU at 10^6 instructions/s, 1000M = 1000 MiB memory.
    ASSERT_EQ(t.nodes.size(), 15u);
    EXPECT_EQ(t.nodes[0].name, "PVS-Node_1");
    EXPECT_EQ(t.nodes[14].name, "PVS-Node_15");
    for (const auto& n : t.nodes) {
        ASSERT_EQ(n.sockets.size(), 1u);
        EXPECT_EQ(n.sockets[0].cores, 1u);
        EXPECT_EQ(n.sockets[0].speed, 1'000'000u);
        EXPECT_EQ(n.memory, 1000 * kMiB);
        EXPECT_NE(n.nic, topo::kNoVertex);
    }
    // InternalDataTransferSpeed 1000M: the memory node's rates.
    const topo::VertexId mem = t.find_vertex("PVS-Node_1.mem0");
    ASSERT_NE(mem, topo::kNoVertex);
    EXPECT_EQ(t.vertex(mem).relay.bytes_per_s, 1000 * kMiB);
    EXPECT_EQ(t.vertex(mem).local.bytes_per_s, 1000 * kMiB);

    // Two SimpleSwitches, TotalBandwidth 380M each; "1GBit Ethernet": 0.0002s, 100M.
    for (const char* sw : {"PVS-Switch_1", "PVS-Switch_2"}) {
        const topo::VertexId v = t.find_vertex(sw);
        ASSERT_NE(v, topo::kNoVertex) << sw;
        EXPECT_EQ(t.vertex(v).relay.bytes_per_s, 380 * kMiB);
    }
    for (int i = 1; i <= 15; ++i) {
        const std::string nic = "PVS-Node_" + std::to_string(i) + ".nic";
        const auto* up = edge(t, nic, "PVS-Switch_1");
        const auto* down = edge(t, "PVS-Switch_1", nic);
        ASSERT_NE(up, nullptr) << nic;
        ASSERT_NE(down, nullptr) << nic;
        EXPECT_EQ(up->latency, Time::us(200));
        EXPECT_EQ(up->bandwidth.bytes_per_s, 100 * kMiB);
        EXPECT_EQ(down->latency, Time::us(200));
    }
    // Port 31 of switch 1 <-> port 109 of switch 2.
    ASSERT_NE(edge(t, "PVS-Switch_1", "PVS-Switch_2"), nullptr);
    EXPECT_EQ(edge(t, "PVS-Switch_1", "PVS-Switch_2")->latency, Time::us(200));

    // Global settings: TransferGranularity / MaxEagerSendSize 100K, IOGranularity 10000000.
    EXPECT_EQ(t.settings.granularity, 100u * 1024);
    EXPECT_EQ(t.settings.eager_threshold, 100u * 1024);
    EXPECT_EQ(t_model.io.fs.granularity, 10'000'000u);

    // Five servers (PVS-Node_11..15): RefinedDiskModel "IBM" and an AggregationCache.
    ASSERT_EQ(t_model.io.servers.size(), 5u);
    for (std::size_t i = 0; i < 5; ++i) {
        const auto& s = t_model.io.servers[i];
        EXPECT_EQ(t.nodes[static_cast<std::size_t>(s.node)].name,
                  "PVS-Node_" + std::to_string(11 + i));
        EXPECT_EQ(s.cache.model, "write_behind");
        EXPECT_EQ(s.disk.model, "hdd");
        using P = std::vector<std::pair<std::string, std::string>>;
        EXPECT_EQ(s.disk.params, (P{{"rate", "50MiB/s"},
                                    {"average-seek", "10ms"},
                                    {"track-to-track", "1ms"},
                                    {"rpm", "7200"},
                                    {"close", "5MiB"}}));
    }

    // What could not be mapped, with file and line.
    const auto& u = r.unmapped;
    EXPECT_TRUE(has_line(u, kPvs +
                                ":193: <Application alias=\"Jacobi\" file=\"partdiff-par.proj\"> "
                                "not mapped: applications are not part of a cluster model"))
        << joined(u);
    EXPECT_TRUE(has_line(u, "<ReadDataSievingMaxHoleSizeToCombine> 10M not mapped")) << joined(u);
    EXPECT_TRUE(has_line(u, "(5 times, first here)")) << joined(u);
    EXPECT_TRUE(has_line(u, kPvs + ":224: <ClientProcess> placement (10 ranks of application "
                                   "'Jacobi') not mapped: rank placement is a run option"))
        << joined(u);
    // Mapped exactly, so not listed: MaxConcurrentRequests 1, MaxNumberOfConcurrentIOOps 1,
    // PaketFirstRoute.
    EXPECT_FALSE(has_line(u, "MaxConcurrentRequests")) << joined(u);
    EXPECT_FALSE(has_line(u, "MaxNumberOfConcurrentIOOps")) << joined(u);
    EXPECT_FALSE(has_line(u, "routing")) << joined(u);
    EXPECT_EQ(u.size(), 3u) << joined(u);

    // Ranks 0..9 on PVS-Node_1..10, one per node.
    std::string expect = "";
    for (int i = 0; i < 10; ++i)
        expect += std::to_string(i) + " PVS-Node_" + std::to_string(i + 1) + " 0 0\n";
    EXPECT_NE(r.placement_map.find(expect), std::string::npos) << r.placement_map;
}

// --file-system pvfs2: the same model plus PVFS2's request path on its <file-system>
// (handshake, 16 KiB small I/O, one metadata round trip per open, BMI's TCP connect); without
// it, none.
TEST(ImportPiosimhd, Pvfs2AddsItsRequestPathAndNothingElse) {
    SKIP_WITHOUT_EXTERNAL();
    const ImportResult plain = import_piosimhd(kPvs);
    const ImportResult r = import_piosimhd(kPvs, PiosimhdOptions{.pvfs2 = true});
    EXPECT_EQ(clustersim::testing::rewritten(r.xml), r.xml);
    const run::Model a = run::parse_model(plain.xml, "pvs.xml");
    const run::Model b = run::parse_model(r.xml, "pvs-pvfs2.xml");
    EXPECT_FALSE(a.io.fs.handshake);
    EXPECT_EQ(a.io.fs.small_io, 0u);
    EXPECT_EQ(a.io.fs.open_requests, 0u);
    EXPECT_TRUE(b.io.fs.handshake);
    EXPECT_EQ(b.io.fs.small_io, 16u * 1024);
    EXPECT_EQ(b.io.fs.open_requests, 1u);
    EXPECT_TRUE(b.io.fs.open_collectives);
    EXPECT_FALSE(a.io.fs.open_collectives);
    EXPECT_EQ(b.io.fs.connect_round_trips, 1u);
    EXPECT_EQ(a.io.fs.connect_round_trips, 0u);
    EXPECT_EQ(b.mpi.connect_round_trips, 0u);
    EXPECT_EQ(b.io.fs.granularity, a.io.fs.granularity);
    EXPECT_EQ(b.io.servers.size(), a.io.servers.size());
    EXPECT_EQ(b.topology.nodes.size(), a.topology.nodes.size());
    EXPECT_EQ(r.unmapped, plain.unmapped);
}

// --mpi-channel sock: MPICH2's ch3:sock connects each pair of ranks on its first message
// (TCP's SYN / SYN-ACK, the channel's open request / response): <connect round-trips="2"/>;
// without it, none; nothing else of the model changes.
TEST(ImportPiosimhd, MpiChannelSockConnectsEachPairInTwoRoundTrips) {
    SKIP_WITHOUT_EXTERNAL();
    const ImportResult plain = import_piosimhd(kPvs);
    const ImportResult r = import_piosimhd(kPvs, PiosimhdOptions{.mpi_sock = true});
    EXPECT_EQ(clustersim::testing::rewritten(r.xml), r.xml);
    const run::Model a = run::parse_model(plain.xml, "pvs.xml");
    const run::Model b = run::parse_model(r.xml, "pvs-sock.xml");
    EXPECT_EQ(a.mpi.connect_round_trips, 0u);
    EXPECT_EQ(b.mpi.connect_round_trips, 2u);
    EXPECT_EQ(b.io.fs.handshake, a.io.fs.handshake);
    EXPECT_EQ(b.topology.nodes.size(), a.topology.nodes.size());
    EXPECT_EQ(r.unmapped, plain.unmapped);
}

// --file-system pvfs2: Trove writes each received flow buffer into the page cache, a copy at
// the server node's InternalDataTransferSpeed: the PVS model's write_behind servers get
// copy-rate 1000 MiB/s (its 1000M); without the option, no copy-rate.
TEST(ImportPiosimhd, Pvfs2CopiesEachFlowBufferAtTheNodesInternalSpeed) {
    SKIP_WITHOUT_EXTERNAL();
    const run::Model a = run::parse_model(import_piosimhd(kPvs).xml, "pvs.xml");
    const run::Model b = run::parse_model(import_piosimhd(kPvs, PiosimhdOptions{.pvfs2 = true}).xml,
                                          "pvs-pvfs2.xml");
    ASSERT_EQ(b.io.servers.size(), 5u);
    for (std::size_t i = 0; i < b.io.servers.size(); ++i) {
        EXPECT_EQ(b.io.servers[i].cache.model, "write_behind");
        EXPECT_EQ(b.io.servers[i].cache.params,
                  (std::vector<std::pair<std::string, std::string>>{{"copy-rate", "1000MiB/s"}}));
        EXPECT_EQ(a.io.servers[i].cache.model, "write_behind");
        EXPECT_TRUE(a.io.servers[i].cache.params.empty());
    }
}

// The copy-rate is the server's own node's speed; a node without InternalDataTransferSpeed
// (unlimited internal links) and a write-through cache layer get none.
TEST(ImportPiosimhd, Pvfs2CopyRateIsTheServerNodesSpeedOnlyForWriteBehind) {
    const auto model = [](const std::string& internal, const std::string& cache) {
        return R"(<Project><ComponentList><NodeList>
<Node implementation="x.Node.Node" name="c" id="1"><CPUs>1</CPUs><InstructionsPerSecond>1000</InstructionsPerSecond>
<InternalDataTransferSpeed>700M</InternalDataTransferSpeed>
<NICS><NIC implementation="x.NIC.NIC" id="2"><CONNECTION><Connection implementation="x.Connection.Connection" to="11"><Latency>1ms</Latency><Bandwidth>10M</Bandwidth></Connection></CONNECTION></NIC></NICS>
</Node>
<Node implementation="x.Node.Node" name="s" id="3"><CPUs>1</CPUs><InstructionsPerSecond>1000</InstructionsPerSecond>
)" + internal + R"(
<NICS><NIC implementation="x.NIC.NIC" id="4"><CONNECTION><Connection implementation="x.Connection.Connection" to="12"><Latency>1ms</Latency><Bandwidth>10M</Bandwidth></Connection></CONNECTION></NIC></NICS>
<HOSTEDCOMPONENTS><Server implementation="x.Server.Server" name="srv">
<IOSUBSYSTEM><IOSubsystem implementation="x.IOSubsystem.RefinedDiskModel"><TrackToTrackSeekTime>1ms</TrackToTrackSeekTime>
<AverageSeekTime>10ms</AverageSeekTime><RPM>7200</RPM><SequentialTransferRate>50M</SequentialTransferRate>
<PositionDifferenceConsideredToBeClose>5M</PositionDifferenceConsideredToBeClose></IOSubsystem></IOSUBSYSTEM>
<CACHESTRATEGY><ServerCacheLayer implementation="x.ServerCacheLayer.)" +
               cache + R"("/></CACHESTRATEGY>
</Server></HOSTEDCOMPONENTS>
</Node></NodeList>
<SwitchList><Switch implementation="x.Switch.SimpleSwitch" name="sw"><TotalBandwidth>100M</TotalBandwidth><PORTS>
<Port implementation="x.Port.Port" id="11"><CONNECTION><Connection implementation="x.Connection.Connection" to="2"><Latency>1ms</Latency><Bandwidth>10M</Bandwidth></Connection></CONNECTION></Port>
<Port implementation="x.Port.Port" id="12"><CONNECTION><Connection implementation="x.Connection.Connection" to="4"><Latency>1ms</Latency><Bandwidth>10M</Bandwidth></Connection></CONNECTION></Port>
</PORTS></Switch></SwitchList></ComponentList></Project>
)";
    };
    const fs::path p = fs::temp_directory_path() / "clustersim-pvfs2-copy-rate.xml";
    const auto server_cache = [&](const std::string& internal, const std::string& cache) {
        std::ofstream(p) << model(internal, cache);
        const ImportResult r = import_piosimhd(p.string(), PiosimhdOptions{.pvfs2 = true});
        const run::Model m = run::parse_model(r.xml, "imported.xml");
        EXPECT_EQ(m.io.servers.size(), 1u) << r.xml;
        return m.io.servers.empty() ? io::ComponentSpec{} : m.io.servers[0].cache;
    };
    using Params = std::vector<std::pair<std::string, std::string>>;
    const io::ComponentSpec fast = server_cache(
        "<InternalDataTransferSpeed>400M</InternalDataTransferSpeed>", "AggregationCache");
    EXPECT_EQ(fast.model, "write_behind");
    EXPECT_EQ(fast.params, (Params{{"copy-rate", "400MiB/s"}}));  // the server's, not 700M
    const io::ComponentSpec unlimited = server_cache("", "AggregationCache");
    EXPECT_EQ(unlimited.model, "write_behind");
    EXPECT_TRUE(unlimited.params.empty());
    const io::ComponentSpec through =
        server_cache("<InternalDataTransferSpeed>400M</InternalDataTransferSpeed>", "NoCache");
    EXPECT_EQ(through.model, "none");
    EXPECT_TRUE(through.params.empty());
    fs::remove(p);
}

TEST(ImportPiosimhd, PlacementMapIsAcceptedByTheRunOption) {
    SKIP_WITHOUT_EXTERNAL();
    const ImportResult r = import_piosimhd(kPvs);
    const run::Model t_model = run::parse_model(r.xml, "pvs.xml");
    const topo::Topology& t = t_model.topology;
    const fs::path map = fs::temp_directory_path() / "clustersim-pvs-placement.map";
    std::ofstream(map) << r.placement_map;
    // The map places the application's 10 ranks (a run uses all of them).
    const auto loc = mpi::place_ranks(t, 10, "map:" + map.string());
    fs::remove(map);
    ASSERT_EQ(loc.size(), 10u);
    for (std::uint32_t i = 0; i < 10; ++i) {
        EXPECT_EQ(t.nodes[loc[i].node].name, "PVS-Node_" + std::to_string(i + 1));
        EXPECT_EQ(loc[i].core, 0u);
    }
}

TEST(ImportPiosimhd, JacobiModelWithTemplates) {
    SKIP_WITHOUT_EXTERNAL();
    const ImportResult r = import_piosimhd(kJacobi);
    run::Model t_model;
    ASSERT_NO_THROW(t_model = run::parse_model(r.xml, "jacobi.xml")) << r.xml;
    const topo::Topology& t = t_model.topology;
    ASSERT_NO_THROW(io::check_io(t, t_model.io, t_model.mpi)) << r.xml;

    // 10 nodes with 2 CPUs and 1G memory; servers on PVS-Node_1..4 with the original
    // IOSubsystem (AvgAccessTime 0.002s, MaxThroughput 100M) and SimpleWriteBehindCache.
    ASSERT_EQ(t.nodes.size(), 10u);
    for (const auto& n : t.nodes) {
        EXPECT_EQ(n.sockets[0].cores, 2u);
        EXPECT_EQ(n.memory, 1024 * kMiB);
    }
    ASSERT_EQ(t_model.io.servers.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
        const auto& s = t_model.io.servers[i];
        EXPECT_EQ(t.nodes[static_cast<std::size_t>(s.node)].name,
                  "PVS-Node_" + std::to_string(1 + i));
        EXPECT_EQ(s.cache.model, "write_behind");
        EXPECT_EQ(s.disk.model, "simple");
        using P = std::vector<std::pair<std::string, std::string>>;
        EXPECT_EQ(s.disk.params, (P{{"latency", "2ms"}, {"rate", "100MiB/s"}}));
    }
    // The switches' instances have no TotalBandwidth: it comes from the "PVS-Switch" template.
    const topo::VertexId sw = t.find_vertex("PVS-Switch_1");
    ASSERT_NE(sw, topo::kNoVertex);
    EXPECT_EQ(t.vertex(sw).relay.bytes_per_s, 380 * kMiB);
    const auto* link = edge(t, "PVS-Node_3.nic", "PVS-Switch_1");
    ASSERT_NE(link, nullptr);
    EXPECT_EQ(link->latency, Time::us(200));
    EXPECT_EQ(link->bandwidth.bytes_per_s, 100 * kMiB);
    ASSERT_NE(edge(t, "PVS-Switch_2", "PVS-Switch_1"), nullptr);  // ports 75 <-> 20
    EXPECT_EQ(t_model.io.fs.granularity, 100'000'000u);

    // Client methods: Reduce BinaryTree and Barrier VirtualSync have clustersim equivalents.
    ASSERT_EQ(t_model.mpi.collectives.size(), 2u);
    EXPECT_EQ(t_model.mpi.collectives[0].operation, "reduce");
    EXPECT_EQ(t_model.mpi.collectives[0].algorithm, "binary_tree");
    EXPECT_EQ(t_model.mpi.collectives[1].operation, "barrier");
    EXPECT_EQ(t_model.mpi.collectives[1].algorithm, "virtual");
    const auto& u = r.unmapped;
    EXPECT_TRUE(has_line(u, "<ClientMethod name=\"Bcast\"> VirtualSync not mapped")) << joined(u);
    EXPECT_TRUE(has_line(u, "<ClientMethod name=\"Allreduce\"> BinaryTree not mapped"))
        << joined(u);
    EXPECT_TRUE(has_line(u, "<ClientMethod name=\"Send\"> RendezvousSend not mapped")) << joined(u);
    EXPECT_FALSE(has_line(u, "ClientMethod name=\"Barrier\"")) << joined(u);
    // Wait Blocking and Compute Time are what clustersim does anyway.
    EXPECT_FALSE(has_line(u, "ClientMethod name=\"Wait\"")) << joined(u);
    EXPECT_FALSE(has_line(u, "ClientMethod name=\"Compute\"")) << joined(u);
    EXPECT_EQ(u.size(), 8u) << joined(u);  // 7 client methods and the placement
    // Nine client processes (ranks 0..8), the application from their attribute.
    EXPECT_TRUE(has_line(u, "<ClientProcess> placement (9 ranks of application 'Jacobi')"))
        << joined(u);
    EXPECT_NE(r.placement_map.find("0 PVS-Node_1 0 0\n"), std::string::npos) << r.placement_map;
    EXPECT_NE(r.placement_map.find("8 PVS-Node_9 0 0\n"), std::string::npos) << r.placement_map;
}

TEST(ImportPiosimhd, BadValueNamesFileAndLine) {
    const fs::path p = fs::temp_directory_path() / "clustersim-bad-piosim.xml";
    std::ofstream(p) << R"(<Project>
<GlobalSettings><TransferGranularity>100X</TransferGranularity></GlobalSettings>
<ComponentList/>
</Project>
)";
    try {
        import_piosimhd(p.string());
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), p.string());
        EXPECT_EQ(e.line(), 2);
        EXPECT_NE(std::string(e.what()).find("'100X'"), std::string::npos) << e.what();
    }
    fs::remove(p);
    EXPECT_THROW(import_piosimhd((fs::temp_directory_path() / "no-such-model.xml").string()),
                 InputError);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::traces
