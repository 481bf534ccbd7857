// The flow network against closed forms: a message over k hops of uniform links takes
// k * latency + size / bandwidth + (k - 1) * last_packet / bandwidth (store_and_forward
// pipeline fill), for both NIC models, from 1 B to 1 GiB; fair sharing of a link; bytes
// conservation; determinism.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "sim_fixtures.hpp"
#include "simulator/units.hpp"
#include "topologies/generators.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using testing::one_rank_per_node;
using testing::recv;
using testing::ScriptProgram;
using testing::send;

constexpr std::uint64_t kBandwidth = 1'000'000'000;  // 1 GB/s
constexpr std::int64_t kLatencyPs = 1'000'000;       // 1 us

// Two single-socket nodes joined directly by one cable (hops = 1), or through a switch
// (hops = 2), or through two switches (hops = 3).
std::string model(int hops, const std::string& nic, const std::string& granularity,
                  int extra_nodes = 0) {
    std::string xml = fmt::format(R"(<cluster name="closed-form">
  <network granularity="{}" nic="{}" eager-threshold="2GiB"/>
  <node-type name="n" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <nodes prefix="n" count="{}" type="n"/>
)",
                                  granularity, nic, 2 + extra_nodes);
    const char* link = R"(latency="1us" bandwidth="1GB/s")";
    if (hops == 1) {
        xml += fmt::format("  <cable from=\"n0.s0\" to=\"n1.s0\" {}/>\n", link);
    } else if (hops == 2) {
        xml += "  <switch name=\"sw\"/>\n";
        for (int i = 0; i < 2 + extra_nodes; ++i)
            xml += fmt::format("  <cable from=\"n{}.s0\" to=\"sw\" {}/>\n", i, link);
    } else {
        xml += "  <switch name=\"a\"/><switch name=\"b\"/>\n";
        xml += fmt::format(
            "  <cable from=\"n0.s0\" to=\"a\" {0}/><cable from=\"a\" to=\"b\" {0}/>"
            "<cable from=\"b\" to=\"n1.s0\" {0}/>\n",
            link);
    }
    return xml + "</cluster>\n";
}

// Exact expectation: the first packet (a full one, or the whole message) fills the pipeline
// of the extra hops, and the rest streams behind it at the link rate. A short last packet
// does not shorten the fill: it queues behind the full packet ahead of it at every hop.
double expected_seconds(std::uint64_t size, int hops, std::uint64_t granularity) {
    const std::uint64_t first = granularity == 0 ? size : std::min(size, granularity);
    return hops * 1e-6 + static_cast<double>(size) / kBandwidth +
           (hops - 1) * static_cast<double>(first) / kBandwidth;
}

struct Case {
    int hops;
    std::string nic;
    std::uint64_t size;
};

class ClosedForm : public ::testing::TestWithParam<Case> {};

TEST_P(ClosedForm, StreamTimeMatchesFormula) {
    const Case c = GetParam();
    for (const std::string gran : {"100KiB", "message"}) {
        const auto t = topo::parse_model(model(c.hops, c.nic, gran), "closed-form.xml");
        ScriptProgram prog({{send(1, c.size)}, {recv(0, c.size)}});
        const auto res = mpi::simulate(t, one_rank_per_node(t, 2), prog);
        const double want = expected_seconds(c.size, c.hops, gran == "message" ? 0 : 100 * 1024);
        SCOPED_TRACE(fmt::format("granularity {}, size {}", gran, c.size));
        EXPECT_NEAR(res.simulated.seconds(), want, want * 0.01);
        // Integer picoseconds: the simulation is in fact exact to rounding per packet.
        EXPECT_NEAR(res.simulated.seconds(), want, 1e-9 + want * 1e-6);
        EXPECT_EQ(res.ranks[0].bytes_sent, c.size);
        EXPECT_EQ(res.ranks[1].bytes_received, c.size);
        EXPECT_EQ(res.network.bytes_delivered, res.network.bytes_sent);
        EXPECT_EQ(res.bytes_on_edges, c.size * static_cast<std::uint64_t>(c.hops));
    }
}

std::vector<Case> cases() {
    std::vector<Case> out;
    for (int hops : {1, 2, 3})
        for (const char* nic : {"packet", "analytical"})
            for (std::uint64_t size :
                 {std::uint64_t{1}, std::uint64_t{1000}, std::uint64_t{100 * 1024},
                  std::uint64_t{1} << 20, std::uint64_t{100} << 20, std::uint64_t{1} << 30})
                out.push_back(Case{hops, nic, size});
    return out;
}

INSTANTIATE_TEST_SUITE_P(HopsNicSize, ClosedForm, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                             return fmt::format("hops{}_{}_{}B", info.param.hops, info.param.nic,
                                                info.param.size);
                         });

// Above the eager threshold, a rendezvous adds a zero-byte request-to-send and a zero-byte
// clear-to-send, each crossing the path once: + 2 * hops * latency.
TEST(Rendezvous, AddsOneRoundTripOfControlMessages) {
    for (const char* nic : {"packet", "analytical"}) {
        std::string xml = model(2, nic, "100KiB");
        xml.replace(xml.find("2GiB"), 4, "64KiB");
        const auto t = topo::parse_model(xml, "rndv.xml");
        const std::uint64_t size = 10 << 20;
        ScriptProgram prog({{send(1, size)}, {recv(0, size)}});
        const auto res = mpi::simulate(t, one_rank_per_node(t, 2), prog);
        const double want = expected_seconds(size, 2, 100 * 1024) + 2 * 2 * 1e-6;
        EXPECT_NEAR(res.simulated.seconds(), want, want * 1e-6) << nic;
    }
}

// Two streams into one receiver share the receiver's link: each gets half, so both finish
// at about 2 * size / B, together (fair), not one after the other (first come first served).
TEST(FairSharing, TwoStreamsIntoOneReceiverGetHalfEach) {
    for (const char* nic : {"packet", "analytical"}) {
        const auto t = topo::parse_model(model(2, nic, "100KiB", 1), "fair.xml");
        const std::uint64_t size = 100 << 20;
        ScriptProgram prog(
            {{send(2, size)},
             {send(2, size)},
             {testing::irecv(0, size, 0), testing::irecv(1, size, 1), testing::waitall(0, 2)}});
        const auto res = mpi::simulate(t, one_rank_per_node(t, 3), prog);
        const double both = 2.0 * size / kBandwidth;
        SCOPED_TRACE(nic);
        EXPECT_NEAR(res.ranks[0].finish.seconds(), both, both * 0.01);
        EXPECT_NEAR(res.ranks[1].finish.seconds(), both, both * 0.01);
        EXPECT_NEAR(res.simulated.seconds(), both, both * 0.01);
    }
}

// Two streams out of one sender share its link the same way.
TEST(FairSharing, TwoStreamsFromOneSenderGetHalfEach) {
    for (const char* nic : {"packet", "analytical"}) {
        const auto t = topo::parse_model(model(2, nic, "100KiB", 1), "fair.xml");
        const std::uint64_t size = 100 << 20;
        ScriptProgram prog(
            {{testing::isend(1, size, 0), testing::isend(2, size, 1), testing::waitall(0, 2)},
             {recv(0, size)},
             {recv(0, size)}});
        const auto res = mpi::simulate(t, one_rank_per_node(t, 3), prog);
        const double both = 2.0 * size / kBandwidth;
        SCOPED_TRACE(nic);
        EXPECT_NEAR(res.ranks[1].finish.seconds(), both, both * 0.01);
        EXPECT_NEAR(res.ranks[2].finish.seconds(), both, both * 0.01);
    }
}

// The exact round_robin order of one link's queued streams (models/network.hpp keeps the
// ring of queues by its tail alone): rank 0 sends 2, 4 and 6 packets of P = 102.4 us to
// ranks 1, 2 and 3 at once, so three streams share its link. The first packet finds the
// link idle; then the link serves A2, and B and C alternate one packet each (B1 C1 B2 C2 B3
// C3 B4 C4), then C alone (C5 C6; the window of 4 brings them in time). Last packets leave
// at 2P, 9P and 12P; each then needs 1 us to the switch, P on the receiver's own link and
// 1 us: 3P + 2 us, 10P + 2 us, 13P + 2 us, to the picosecond. Served first come, first
// served, B's last packet would leave at 6P and B would end at 7P + 2 us instead.
TEST(FairSharing, StreamsOfOneLinkAreServedRoundRobinOnePacketEach) {
    const auto t = topo::parse_model(model(2, "packet", "100KiB", 2), "round_robin.xml");
    const std::uint64_t packet = 100 << 10;
    ScriptProgram prog({{testing::isend(1, 2 * packet, 0), testing::isend(2, 4 * packet, 1),
                         testing::isend(3, 6 * packet, 2), testing::waitall(0, 3)},
                        {recv(0, 2 * packet)},
                        {recv(0, 4 * packet)},
                        {recv(0, 6 * packet)}});
    const auto res = mpi::simulate(t, one_rank_per_node(t, 4), prog);
    const std::int64_t p = 102'400'000;  // ps: 102,400 B at 1 GB/s
    const std::int64_t hops = 2 * kLatencyPs + p;
    EXPECT_EQ(res.ranks[1].finish, Time::ps(2 * p + hops));
    EXPECT_EQ(res.ranks[2].finish, Time::ps(9 * p + hops));
    EXPECT_EQ(res.ranks[3].finish, Time::ps(12 * p + hops));
}

// A switch whose relay bandwidth is below the links' caps both streams through it.
TEST(Relay, SwitchRelayBandwidthIsShared) {
    std::string xml = model(2, "packet", "100KiB", 2);
    xml.replace(xml.find("<switch name=\"sw\"/>"), 19,
                "<switch name=\"sw\" bandwidth=\"500MB/s\"/>");
    const auto t = topo::parse_model(xml, "relay.xml");
    const std::uint64_t size = 50'000'000;
    // 0 -> 2 and 1 -> 3 use disjoint links but share the switch's 500 MB/s relay.
    ScriptProgram prog({{send(2, size)}, {send(3, size)}, {recv(0, size)}, {recv(1, size)}});
    const auto res = mpi::simulate(t, one_rank_per_node(t, 4), prog);
    const double want = 2.0 * size / 500e6;
    EXPECT_NEAR(res.simulated.seconds(), want, want * 0.01);
}

// Messages of different sizes, one after another, over the same two links and the same
// switch relay (500 MB/s): each is priced at its own size, whatever size crossed a link of
// that kind before (the network keeps each kind's last wire and relay time). A message of s
// bytes takes 1 us + s / 1 GB/s to the switch, then 1 us + s / 500 MB/s (the relay is the
// slower): 1,000 B 5 us, 3,000 B 11 us, so the third message is received at exactly 21 us.
TEST(Relay, EachPacketIsTimedAtItsOwnSizeOnLinksOfOneKind) {
    for (const char* nic : {"packet", "analytical"}) {
        std::string xml = model(2, nic, "100KiB");
        xml.replace(xml.find("<switch name=\"sw\"/>"), 19,
                    "<switch name=\"sw\" bandwidth=\"500MB/s\"/>");
        const auto t = topo::parse_model(xml, "sizes.xml");
        ScriptProgram prog({{send(1, 1000), recv(1, 3000), send(1, 1000)},
                            {recv(0, 1000), send(0, 3000), recv(0, 1000)}});
        const auto res = mpi::simulate(t, one_rank_per_node(t, 2), prog);
        EXPECT_EQ(res.ranks[1].finish, Time::us(21)) << nic;
    }
}

// Two nodes with a memory node each (a relay of 20 GB/s, crossed by what the node sends and
// by what it receives) exchange one message each at once. Outgoing and incoming packets
// cross a node's memory node at different times, so the exchange takes the one-way time:
// exactly, for a one-packet message; within 1 % for 1 MiB (ten packets, whose relay turns
// may meet). The analytical NIC reserves each packet's whole route when it is injected:
// before its reservations could take idle gaps, the packet each rank received had to wait
// at its memory node for the one the rank itself sent, reserved first but crossing later,
// and the exchange took 8.235 us for 1 KiB and 2.269 ms for 1 MiB (one way 4.243 us and
// 940.7 us).
// `clustersim generate star`'s model: per node a socket, a memory node (20 GB/s) and a NIC,
// 1 us and 1,250 MB/s to the switch.
std::string star_with_memory_nodes(const std::string& nic, int nodes = 2) {
    topo::GenerateOptions o;
    o.kind = "star";
    o.nodes = static_cast<std::uint32_t>(nodes);
    o.nic = nic == "analytical" ? topo::NicModel::Analytical : topo::NicModel::Packet;
    o.granularity = 100 * 1024;  // the closed forms below: 100 KiB store-and-forward packets
    o.forwarding = topo::kStoreAndForward;
    return topo::generate_model_xml(o);
}

TEST(Duplex, AnExchangeAtOnceTakesTheOneWayTimeWithEitherNic) {
    for (const char* nic : {"packet", "analytical"}) {
        const auto t = topo::parse_model(star_with_memory_nodes(nic), "duplex.xml");
        for (const std::uint64_t size : {std::uint64_t{1024}, std::uint64_t{1} << 20}) {
            SCOPED_TRACE(fmt::format("{} NIC, {} B", nic, size));
            ScriptProgram one_way({{send(1, size)}, {recv(0, size)}});
            const Time alone = mpi::simulate(t, one_rank_per_node(t, 2), one_way).simulated;
            ScriptProgram exchange(
                {{testing::isend(1, size, 0), testing::irecv(1, size, 1), testing::waitall(0, 2)},
                 {testing::isend(0, size, 0), testing::irecv(0, size, 1), testing::waitall(0, 2)}});
            const auto res = mpi::simulate(t, one_rank_per_node(t, 2), exchange);
            if (size == 1024) {
                EXPECT_EQ(alone, Time::ps(4'243'200));
                EXPECT_EQ(res.simulated, alone);
            } else {
                EXPECT_NEAR(res.simulated.seconds(), alone.seconds(), alone.seconds() * 0.01);
            }
            EXPECT_EQ(res.ranks[0].bytes_received, size);
            EXPECT_EQ(res.ranks[1].bytes_received, size);
        }
    }
}

// Many into one: 63 ranks send to rank 0 at once, eager (32 KiB) and by rendezvous (1 MiB).
// The receiver's link and memory node take the packets back to back, the relay's turns
// leaving gaps between them: the analytical NIC's calendars keep the back-to-back ones as
// one interval and find the first interval still busy by binary search, and it ends at the
// packet NIC's time to the picosecond.
TEST(Duplex, ManyIntoOneEndsAtThePacketNicsTime) {
    const int n = 64;
    for (const std::uint64_t size : {std::uint64_t{32} << 10, std::uint64_t{1} << 20}) {
        std::vector<std::vector<mpi::Op>> script(n);
        for (int r = 1; r < n; ++r) {
            script[0].push_back(testing::irecv(r, size, static_cast<std::uint32_t>(r - 1)));
            script[r].push_back(send(0, size));
        }
        script[0].push_back(testing::waitall(0, n - 1));
        Time at[2];
        for (int i = 0; i < 2; ++i) {
            const auto t = topo::parse_model(
                star_with_memory_nodes(i == 0 ? "packet" : "analytical", n), "many.xml");
            ScriptProgram prog(script);
            const auto res = mpi::simulate(t, one_rank_per_node(t, n), prog);
            at[i] = res.simulated;
            EXPECT_EQ(res.ranks[0].bytes_received, size * (n - 1));
            EXPECT_EQ(res.network.bytes_delivered, res.network.bytes_sent);
        }
        // At least the receiver's link's time for all of it.
        EXPECT_GT(at[0].seconds(), static_cast<double>(size * (n - 1)) / 1.25e9) << size;
        EXPECT_EQ(at[1], at[0]) << size;
    }
}

TEST(Invariants, BytesSentEqualBytesReceivedAndRunsAreDeterministic) {
    const auto t = topo::parse_model(model(2, "packet", "4KiB", 3), "det.xml");
    auto run = [&] {
        // An all-to-all of unequal sizes with nonblocking operations: lots of contention.
        std::vector<std::vector<mpi::Op>> script(5);
        for (int r = 0; r < 5; ++r) {
            std::uint32_t h = 0;
            for (int p = 0; p < 5; ++p) {
                if (p == r) continue;
                script[r].push_back(testing::irecv(p, 1 << 20, h++));
                script[r].push_back(
                    testing::isend(p, static_cast<std::uint64_t>(10'000 * (r + 1) * (p + 2)), h++));
            }
            script[r].push_back(testing::waitall(0, h));
        }
        ScriptProgram prog(script);
        return mpi::simulate(t, one_rank_per_node(t, 5), prog);
    };
    const auto a = run();
    const auto b = run();
    std::uint64_t sent = 0, received = 0;
    for (const auto& r : a.ranks) sent += r.bytes_sent, received += r.bytes_received;
    EXPECT_EQ(sent, received);
    EXPECT_EQ(a.network.bytes_sent, a.network.bytes_delivered);
    EXPECT_EQ(a.simulated, b.simulated);
    EXPECT_EQ(a.events, b.events);
    for (std::size_t r = 0; r < a.ranks.size(); ++r)
        EXPECT_EQ(a.ranks[r].finish, b.ranks[r].finish);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

// A two-level fat tree with two spines: node 0 and node 2 hang off different leaves, so
// there are two equal-cost paths. Shortest-path routing always takes the first spine;
// round_robin alternates packet by packet, so each uplink carries half, and messages
// still match in order.
TEST(Routing, RoundRobinSpreadsPacketsOverEqualCostPaths) {
    for (const char* routing : {"shortest_path", "round_robin"}) {
        const auto t = topo::parse_model(fmt::format(R"(<cluster name="ft">
  <network granularity="10KiB" routing="{}" eager-threshold="1GiB"/>
  <node-type name="n" memory="1GiB">
    <socket name="s0" cores="1" speed="1G"/><nic name="nic"/>
    <cable from="s0" to="nic" latency="1us" bandwidth="1GB/s"/>
  </node-type>
  <fat-tree type="n" levels="2" down="2,2" up="1,2" link-latency="1us" link-bandwidth="1GB/s"/>
</cluster>)",
                                                     routing),
                                         "ft.xml");
        std::vector<mpi::Op> sends, recvs;
        for (int i = 0; i < 4; ++i) {
            sends.push_back(send(1, 1'000'000 + 1000 * static_cast<std::uint64_t>(i), i));
            recvs.push_back(recv(0, 0, i));
        }
        testing::ScriptProgram prog({sends, recvs});
        const topo::VertexId n0 = t.nodes[0].sockets[0].vertex, n2 = t.nodes[2].sockets[0].vertex;
        const auto res = mpi::simulate(t, {{0, 0, 0, n0}, {2, 0, 0, n2}}, prog);
        EXPECT_EQ(res.ranks[1].bytes_received, 4'006'000u);
        // Bytes on the two up-links out of node 0's leaf switch.
        topo::VertexId leaf = topo::kNoVertex;
        for (auto [e, last] = t.out_edge_range(t.nodes[0].nic); e < last; ++e)
            if (t.vertex(t.target_of(e)).kind == topo::VertexKind::Switch) leaf = t.target_of(e);
        ASSERT_NE(leaf, topo::kNoVertex);
        std::vector<std::uint64_t> up;
        for (auto [e, last] = t.out_edge_range(leaf); e < last; ++e)
            if (t.vertex(t.target_of(e)).kind == topo::VertexKind::Switch)
                up.push_back(res.edge_bytes[e]);
        ASSERT_EQ(up.size(), 2u) << routing;
        if (std::string(routing) == "shortest_path") {
            EXPECT_EQ(up[0], 4'006'000u);
            EXPECT_EQ(up[1], 0u);
        } else {
            EXPECT_NEAR(static_cast<double>(up[0]), 2'003'000.0, 10'240.0);
            EXPECT_NEAR(static_cast<double>(up[1]), 2'003'000.0, 10'240.0);
        }
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

// PIOsimHD's memory node: ranks on one socket exchange at the memory node's local rate
// (8 GB/s here), ranks on the two sockets of one node go through both memory nodes at
// their relay rate (2 GB/s) and the QPI switch. Links are 10 GB/s, 100 ns; whole messages.
TEST(MemoryNode, LocalThroughputForRanksOfOneSocket) {
    const auto t = topo::parse_model(R"(<cluster name="socket">
  <network granularity="message" eager-threshold="1GiB"/>
  <node-type name="n" memory="1GiB">
    <socket name="s0" cores="2" speed="1G"/><socket name="s1" cores="2" speed="1G"/>
    <memory-node name="mem0" bandwidth="2GB/s" local-bandwidth="8GB/s"/>
    <memory-node name="mem1" bandwidth="2GB/s" local-bandwidth="8GB/s"/>
    <switch name="qpi"/>
    <cable from="s0" to="mem0" latency="100ns" bandwidth="10GB/s"/>
    <cable from="s1" to="mem1" latency="100ns" bandwidth="10GB/s"/>
    <cable from="mem0" to="qpi" latency="100ns" bandwidth="10GB/s"/>
    <cable from="mem1" to="qpi" latency="100ns" bandwidth="10GB/s"/>
  </node-type>
  <node name="n0" type="n"/>
</cluster>)",
                                     "socket.xml");
    const std::uint64_t m = 80'000'000;
    const topo::VertexId s0 = t.nodes[0].sockets[0].vertex, s1 = t.nodes[0].sockets[1].vertex;
    testing::ScriptProgram local({{send(1, m)}, {recv(0, m)}});
    const auto same = mpi::simulate(t, {{0, 0, 0, s0}, {0, 0, 1, s0}}, local);
    // s0 -> mem0 (10 GB/s), mem0 relays at 8 GB/s back to s0: 8 ms + 10 ms, 2 x 100 ns.
    EXPECT_NEAR(same.simulated.seconds(), m / 10e9 + m / 8e9 + 200e-9, 1e-9);
    testing::ScriptProgram cross({{send(1, m)}, {recv(0, m)}});
    const auto other = mpi::simulate(t, {{0, 0, 0, s0}, {0, 1, 0, s1}}, cross);
    // s0 -> mem0 (10 GB/s) -> relay 2 GB/s -> qpi (10 GB/s) -> mem1 relay 2 GB/s -> s1.
    EXPECT_NEAR(other.simulated.seconds(), m / 10e9 + m / 2e9 + m / 10e9 + m / 2e9 + 400e-9, 1e-9);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
