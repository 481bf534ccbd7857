// The three network models on one topology: max-min shares against a hand-computed case,
// fluid vs packet (small packets) agreement within 2% on a star and a 3-level fat tree with
// and without contention, and cut_through's closed form.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "models/maxmin.hpp"
#include "run/model.hpp"
#include "sim_fixtures.hpp"
#include "simulator/error.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using testing::recv;
using testing::ScriptProgram;
using testing::send;

// Three flows, two links: link A (10 B/s) carries flows 1 and 2, link B (20 B/s) carries
// flows 2 and 3. A saturates first at 5 each; flow 3 then takes what B has left: 15.
TEST(MaxMin, ThreeFlowsTwoLinksHandComputed) {
    net::MaxMinSolver solver;
    std::vector<double> rates;
    solver.solve({10.0, 20.0}, {{0}, {0, 1}, {1}}, rates);
    ASSERT_EQ(rates.size(), 3u);
    EXPECT_DOUBLE_EQ(rates[0], 5.0);
    EXPECT_DOUBLE_EQ(rates[1], 5.0);
    EXPECT_DOUBLE_EQ(rates[2], 15.0);
    // A flow limited elsewhere leaves its share to the others: link C (9) with flows 0, 1,
    // 2 where flow 0 also crosses link D (1): flow 0 gets 1, flows 1 and 2 get 4 each.
    solver.solve({9.0, 1.0}, {{0, 1}, {0}, {0}}, rates);
    EXPECT_DOUBLE_EQ(rates[0], 1.0);
    EXPECT_DOUBLE_EQ(rates[1], 4.0);
    EXPECT_DOUBLE_EQ(rates[2], 4.0);
}

std::string star_xml(int nodes, const std::string& network, const std::string& granularity) {
    std::string xml = fmt::format(R"(<cluster name="star">
  <network granularity="{}" eager-threshold="1TiB" {}/>
  <node-type name="n" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <nodes prefix="n" count="{}" type="n"/>
  <switch name="sw"/>
)",
                                  granularity, network, nodes);
    for (int i = 0; i < nodes; ++i)
        xml += fmt::format(
            "  <cable from=\"n{}.s0\" to=\"sw\" latency=\"5us\" bandwidth=\"1.25GB/s\"/>\n", i);
    return xml + "</cluster>\n";
}

std::vector<mpi::RankLocation> ranks_on(const topo::Topology& t, const std::vector<int>& nodes) {
    std::vector<mpi::RankLocation> out;
    for (int n : nodes)
        out.push_back({static_cast<std::uint32_t>(n), 0, 0, t.nodes[n].sockets[0].vertex});
    return out;
}

struct Scenario {
    std::string name;
    std::vector<int> nodes;                    // rank -> node
    std::vector<std::vector<mpi::Op>> script;  // per rank
};

std::vector<Scenario> scenarios(std::uint64_t m) {
    using testing::irecv;
    using testing::isend;
    using testing::waitall;
    return {
        {"one flow", {0, 1}, {{send(1, m)}, {recv(0, m)}}},
        {"two into one receiver",
         {0, 1, 2},
         {{send(2, m)}, {send(2, m)}, {irecv(0, m, 0), irecv(1, m, 1), waitall(0, 2)}}},
        // X = rank 0 -> rank 3 shares rank 0's up-link with Y (0 -> 4) and rank 3's
        // down-link with Z1 (1 -> 3) and Z2 (2 -> 3): X gets the smaller share, 1/3.
        {"two bottlenecks",
         {0, 1, 2, 3, 4},
         {{isend(3, m, 0), isend(4, m, 1), waitall(0, 2)},
          {send(3, m)},
          {send(3, m)},
          {irecv(0, m, 0), irecv(1, m, 1), irecv(2, m, 2), waitall(0, 3)},
          {recv(0, m)}}},
    };
}

// Finish times of every rank under one model.
std::vector<double> finishes(const std::string& xml, const Scenario& sc) {
    const auto t = topo::parse_model(xml, "models.xml");
    ScriptProgram prog(sc.script);
    const auto res = mpi::simulate(t, ranks_on(t, sc.nodes), prog);
    std::vector<double> out;
    for (const auto& r : res.ranks) out.push_back(r.finish.seconds());
    EXPECT_EQ(res.network.bytes_sent, res.network.bytes_delivered);
    return out;
}

TEST(FluidVsPacket, StarWithAndWithoutContentionWithin2Percent) {
    const std::uint64_t m = 100 << 20;
    for (const auto& sc : scenarios(m)) {
        SCOPED_TRACE(sc.name);
        const auto packet = finishes(star_xml(5, "", "4KiB"), sc);
        const auto fluid = finishes(star_xml(5, "model=\"fluid\"", "4KiB"), sc);
        for (std::size_t r = 0; r < packet.size(); ++r)
            EXPECT_NEAR(fluid[r], packet[r], 0.02 * packet[r]) << r;
    }
    // The closed forms behind them: B = 1.25 GB/s.
    const double B = 1.25e9, L = 5e-6;
    const auto fluid = finishes(star_xml(5, "model=\"fluid\"", "4KiB"), scenarios(m)[2]);
    EXPECT_NEAR(fluid[3], 3.0 * m / B + 2 * L, 1e-6);  // X, Z1, Z2 at B/3 on rank 3's down-link
    EXPECT_NEAR(fluid[4], 1.5 * m / B + 2 * L,
                1e-6);  // Y takes the 2/3 that X leaves on the up-link
    const auto two = finishes(star_xml(5, "model=\"fluid\"", "4KiB"), scenarios(m)[1]);
    EXPECT_NEAR(two[2], 2.0 * m / B + 2 * L, 1e-6);
}

TEST(FluidVsPacket, ThreeLevelFatTreeWithin2Percent) {
    // 8 nodes, 4 leaf switches, 4 level-2, 4 level-3 switches (XGFT(3; 2,2,2; 1,2,2)).
    auto xml = [](const std::string& network) {
        return fmt::format(R"(<cluster name="ft3">
  <network granularity="4KiB" eager-threshold="1TiB" {}/>
  <node-type name="n" memory="1GiB">
    <socket name="s0" cores="1" speed="1G"/><nic name="nic"/>
    <cable from="s0" to="nic" latency="1us" bandwidth="10GB/s"/>
  </node-type>
  <fat-tree type="n" levels="3" down="2,2,2" up="1,2,2" link-latency="1us" link-bandwidth="1.25GB/s"/>
</cluster>)",
                           network);
    };
    const std::uint64_t m = 100 << 20;
    using testing::irecv;
    using testing::waitall;
    const std::vector<Scenario> cases{
        {"across the top", {0, 7}, {{send(1, m)}, {recv(0, m)}}},
        {"two across the top into one",
         {0, 1, 7},
         {{send(2, m)}, {send(2, m)}, {irecv(0, m, 0), irecv(1, m, 1), waitall(0, 2)}}},
        {"two through one leaf up-link",
         {0, 2, 4, 6},
         {{send(2, m)}, {send(3, m)}, {recv(0, m)}, {recv(1, m)}}},
    };
    for (const auto& sc : cases) {
        SCOPED_TRACE(sc.name);
        const auto packet = finishes(xml(""), sc);
        const auto fluid = finishes(xml("model=\"fluid\""), sc);
        for (std::size_t r = 0; r < packet.size(); ++r)
            EXPECT_NEAR(fluid[r], packet[r], 0.02 * packet[r]) << r;
    }
}

// Cut-through: a packet's head goes on as soon as it has arrived, so k hops cost
// k * latency + size / bandwidth, with no store_and_forward fill; a store_and_forward
// vertex on the path (here the sender's NIC) adds one packet time.
TEST(CutThrough, KHopsTakeKLatenciesPlusSizeOverBandwidth) {
    const double L = 1e-6, B = 1e9;
    const std::uint64_t g = 4096;
    for (int switches : {1, 2, 4}) {
        for (const bool nic : {false, true}) {
            for (const char* nicmodel : {"packet", "analytical"}) {
                std::string xml =
                    fmt::format(R"(<cluster name="chain">
  <network granularity="{}B" eager-threshold="1TiB" nic="{}"/>
  <node-type name="n" memory="1GiB"><socket name="s0" cores="1" speed="1G"/>{}</node-type>
  <nodes prefix="n" count="2" type="n"/>
)",
                                g, nicmodel,
                                nic ? "<nic name=\"nic\"/><cable from=\"s0\" to=\"nic\" "
                                      "latency=\"1us\" bandwidth=\"1GB/s\"/>"
                                    : "");
                for (int i = 0; i < switches; ++i)
                    xml += fmt::format("  <switch name=\"sw{}\" forwarding=\"cut_through\"/>\n", i);
                const std::string a = nic ? "n0.nic" : "n0.s0", b = nic ? "n1.nic" : "n1.s0";
                xml += fmt::format(
                    "  <cable from=\"{}\" to=\"sw0\" latency=\"1us\" bandwidth=\"1GB/s\"/>\n", a);
                for (int i = 0; i + 1 < switches; ++i)
                    xml += fmt::format(
                        "  <cable from=\"sw{}\" to=\"sw{}\" latency=\"1us\" "
                        "bandwidth=\"1GB/s\"/>\n",
                        i, i + 1);
                xml += fmt::format(
                    "  <cable from=\"sw{}\" to=\"{}\" latency=\"1us\" "
                    "bandwidth=\"1GB/s\"/>\n</cluster>\n",
                    switches - 1, b);
                const auto t = topo::parse_model(xml, "chain.xml");
                for (std::uint64_t m : {std::uint64_t{g}, std::uint64_t{10} << 20}) {
                    ScriptProgram prog({{send(1, m)}, {recv(0, m)}});
                    const auto res = mpi::simulate(t, ranks_on(t, {0, 1}), prog);
                    // Hops: socket (-> nic) -> switches -> (nic ->) socket. The NICs store
                    // and forward: the sender's adds one packet time, the receiver's too.
                    const int k = switches + 1 + (nic ? 2 : 0);
                    const double want = k * L + m / B + (nic ? 2 : 0) * g / B;
                    SCOPED_TRACE(fmt::format("{} switches, nic {}, {} NIC, {} B", switches, nic,
                                             nicmodel, m));
                    EXPECT_NEAR(res.simulated.seconds(), want, 0.01 * want);
                }
            }
        }
    }
}

TEST(CutThrough, ContentionStillDelays) {
    std::string xml = star_xml(3, "", "4KiB");
    xml.replace(xml.find("<switch name=\"sw\"/>"), 19,
                "<switch name=\"sw\" forwarding=\"cut_through\"/>");
    const auto t = topo::parse_model(xml, "ct.xml");
    const std::uint64_t m = 100 << 20;
    using testing::irecv;
    using testing::waitall;
    ScriptProgram prog(
        {{send(2, m)}, {send(2, m)}, {irecv(0, m, 0), irecv(1, m, 1), waitall(0, 2)}});
    const auto res = mpi::simulate(t, ranks_on(t, {0, 1, 2}), prog);
    EXPECT_NEAR(res.ranks[2].finish.seconds(), 2.0 * m / 1.25e9, 0.01 * 2.0 * m / 1.25e9);
}

TEST(NetworkChoice, UnknownModelIsAnInputError) {
    auto t = run::parse_model(star_xml(2, "", "4KiB"), "x.xml");
    EXPECT_THROW(mpi::choose_network(t, "wormhole"), InputError);
    mpi::choose_network(t, "fluid");
    EXPECT_EQ(t.topology.settings.model, topo::NetworkModel::Fluid);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

// Valiant routing on the shipped dragonfly: one message between two groups. Minimal routing
// uses the one global cable joining them; Valiant sends its packets through random third
// groups, so many global cables carry bytes, all bytes still arrive, and a run is
// reproducible for its seed.
TEST(Valiant, SpreadsPacketsOverGlobalCablesInBothModels) {
    std::ifstream in(std::string(CLUSTERSIM_SOURCE_DIR) + "/topologies/examples/dragonfly-72.xml");
    std::string xml((std::istreambuf_iterator<char>(in)), {});
    ASSERT_FALSE(xml.empty());
    const std::uint64_t m = 10 << 20;
    for (const char* model : {"packet", "fluid"}) {
        for (const char* routing : {"shortest_path", "valiant"}) {
            std::string x = xml;
            x.replace(x.find("routing=\"shortest_path\""), 23,
                      fmt::format("routing=\"{}\" model=\"{}\"", routing, model));
            const auto t = topo::parse_model(x, "df.xml");
            auto run = [&](std::uint64_t seed) {
                // Ranks on node 0 (group 0) and node 71 (group 8); fluid: 8 messages so
                // that Valiant has several flows to spread.
                std::vector<mpi::Op> sends, recvs;
                for (int i = 0; i < 8; ++i) {
                    sends.push_back(testing::send(1, m / 8, i));
                    recvs.push_back(testing::recv(0, m / 8, i));
                }
                ScriptProgram prog({sends, recvs});
                mpi::SimulationOptions o;
                o.seed = seed;
                return mpi::simulate(t, ranks_on(t, {0, 71}), prog, o);
            };
            const auto a = run(7), b = run(7);
            EXPECT_EQ(a.ranks[1].bytes_received, m);
            EXPECT_EQ(a.simulated, b.simulated);
            int global_used = 0;
            for (topo::EdgeId e = 0; e < t.num_edges(); ++e) {
                const auto& u = t.vertex(t.source_of(e));
                const auto& v = t.vertex(t.target_of(e));
                if (u.kind == topo::VertexKind::Switch && v.kind == topo::VertexKind::Switch &&
                    u.group != v.group && a.edge_bytes[e] > 0)
                    ++global_used;
            }
            SCOPED_TRACE(fmt::format("{} / {}", model, routing));
            if (std::string(routing) == "shortest_path")
                EXPECT_EQ(global_used, 1);
            else
                EXPECT_GT(global_used, 4);
        }
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

// The issue's form: one store_and_forward vertex (a switch at the sender's side), then
// cut_through switches: k * latency + size / bandwidth + one packet time.
TEST(CutThrough, OneStoreAndForwardHopAddsOnePacketTime) {
    const double L = 1e-6, B = 1e9;
    const std::uint64_t g = 4096;
    for (int ct : {1, 3}) {
        std::string xml = fmt::format(R"(<cluster name="chain">
  <network granularity="{}B" eager-threshold="1TiB" forwarding="cut_through"/>
  <node-type name="n" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <nodes prefix="n" count="2" type="n"/>
  <switch name="sf" forwarding="store_and_forward"/>
)",
                                      g);
        for (int i = 0; i < ct; ++i) xml += fmt::format("  <switch name=\"ct{}\"/>\n", i);
        const char* link = R"(latency="1us" bandwidth="1GB/s")";
        xml += fmt::format(
            "  <cable from=\"n0.s0\" to=\"sf\" {}/><cable from=\"sf\" to=\"ct0\" {}/>\n", link,
            link);
        for (int i = 0; i + 1 < ct; ++i)
            xml += fmt::format("  <cable from=\"ct{}\" to=\"ct{}\" {}/>\n", i, i + 1, link);
        xml += fmt::format("  <cable from=\"ct{}\" to=\"n1.s0\" {}/>\n</cluster>\n", ct - 1, link);
        const auto t = topo::parse_model(xml, "chain.xml");
        const std::uint64_t m = 10 << 20;
        ScriptProgram prog({{send(1, m)}, {recv(0, m)}});
        const auto res = mpi::simulate(t, ranks_on(t, {0, 1}), prog);
        const int k = ct + 2;  // links: socket-sf, sf-ct0, ..., ct-socket
        const double want = k * L + m / B + g / B;
        EXPECT_NEAR(res.simulated.seconds(), want, 0.01 * want) << ct;
        EXPECT_NEAR(res.simulated.seconds(), want, 1e-9) << ct;
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

// p - 1 flows into one receiver share its link: every completion changes every other
// rate. The fluid model still spends O(p) engine events (one armed completion event plus a
// delivery per message), not one event per flow per rate change.
TEST(Fluid, ManyIntoOneCostsLinearlyManyEvents) {
    const int p = 300;
    const auto t = topo::parse_model(star_xml(p, "model=\"fluid\"", "4KiB"), "many.xml");
    std::vector<std::vector<mpi::Op>> script(p);
    for (int r = 1; r < p; ++r) {
        script[0].push_back(recv(r, 1000 + r));
        script[r].push_back(send(0, 1000 + static_cast<std::uint64_t>(r)));
    }
    ScriptProgram prog(script);
    std::vector<int> nodes(p);
    for (int i = 0; i < p; ++i) nodes[i] = i;
    const auto res = mpi::simulate(t, ranks_on(t, nodes), prog);
    EXPECT_EQ(res.ranks[0].bytes_received,
              static_cast<std::uint64_t>(1000 * (p - 1) + p * (p - 1) / 2));
    EXPECT_LE(res.events, static_cast<std::uint64_t>(3 * p));
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

// p - 1 equal flows that start at one instant into one receiver share its link equally and
// end at one instant: all senders finish at the same picosecond, (p - 1) m / B after the
// start, and the model solves twice (the start, the end), so a handful of engine events
// beyond the p - 1 deliveries. (Before the batching each end re-solved the others, whose
// rounding residue spread the ends 1 ps apart.)
TEST(Fluid, EqualFlowsIntoOneReceiverEndAtOneInstant) {
    const int p = 200;
    const std::uint64_t m = 1 << 20;
    const double B = 1.25e9;
    const auto t = topo::parse_model(star_xml(p, "model=\"fluid\"", "4KiB"), "many.xml");
    std::vector<std::vector<mpi::Op>> script(p);
    for (int r = 1; r < p; ++r) {
        script[0].push_back(recv(r, m));
        script[r].push_back(send(0, m));
    }
    ScriptProgram prog(script);
    std::vector<int> nodes(p);
    for (int i = 0; i < p; ++i) nodes[i] = i;
    const auto res = mpi::simulate(t, ranks_on(t, nodes), prog);
    for (int r = 2; r < p; ++r) ASSERT_EQ(res.ranks[r].finish, res.ranks[1].finish) << r;
    EXPECT_NEAR(res.ranks[1].finish.seconds(), (p - 1) * static_cast<double>(m) / B, 1e-9);
    EXPECT_EQ(res.network.bytes_delivered, static_cast<std::uint64_t>(p - 1) * m);
    EXPECT_LE(res.events, static_cast<std::uint64_t>(p + 5));  // p - 1 deliveries, 2 solves
    // Flow rates computed over the run (the fluid model counts them as packet-hops): each
    // flow is solved once when they start and once when they end, not p times.
    EXPECT_LE(res.network.packet_hops, static_cast<std::uint64_t>(2 * p));
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

// A flow's superseded completion entries may outlive it; the flow's slot is then reused by
// a new flow whose version counter starts again. An entry must match the flow it was made
// for, not only the slot and version: here A (10 MB) and B (1 MB) share rank 0's link,
// A's entry for the shared rate (16 ms) is superseded when B ends (1.6 ms; A ends at
// 8.8 ms), and C (20 MB) takes A's slot and is re-rated once, by D (5 MB), to the same
// version A's stale entry carries. C must still end when its bytes are through: D ends at
// 8.8 + 5 / 0.625 = 16.8 ms, C's remaining 15 MB take 12 ms more, 28.8 ms (plus the route
// latency); with the stale entry taken for C's, C ended at 16 ms.
TEST(Fluid, ASupersededEntryNeverCompletesTheFlowThatReusesItsSlot) {
    const auto t = topo::parse_model(star_xml(2, "model=\"fluid\"", "4KiB"), "reuse.xml");
    using testing::irecv;
    using testing::isend;
    using testing::waitall;
    const std::uint64_t a = 10'000'000, b = 1'000'000, c = 20'000'000, d = 5'000'000;
    std::vector<std::vector<mpi::Op>> script = {{isend(1, a, 0), isend(1, b, 1), waitall(0, 2),
                                                 isend(1, d, 2), isend(1, c, 3), waitall(2, 2)},
                                                {irecv(0, a, 0), irecv(0, b, 1), waitall(0, 2),
                                                 irecv(0, d, 2), irecv(0, c, 3), waitall(2, 2)}};
    ScriptProgram prog(script);
    const auto res = mpi::simulate(t, ranks_on(t, {0, 1}), prog);
    EXPECT_EQ(res.network.bytes_delivered, a + b + c + d);
    EXPECT_NEAR(res.ranks[1].finish.seconds(), 28.8e-3, 0.05e-3);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
