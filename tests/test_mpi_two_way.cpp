// Two-way transfers (issue 23, part 2): with <point-to-point direction="both"> in the
// <comm-model>, a message whose sender is receiving, or whose receiver is sending, at the
// same time transfers at the two-way curve T2(s); alone it takes the one-way T1(s). Closed
// forms: a bidirectional exchange of s bytes costs L + T2(s) (eager) or 3L + T2(s)
// (rendezvous); a ping-pong is unchanged; an exchange whose second message starts d after
// the first moves at T1 for d, at T2 while both are in flight, then at T1 again; without the
// curve nothing changes.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "sim_fixtures.hpp"
#include "simulator/error.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace testing;

// One node, one socket, two cores at 1 G instructions/s; the simple model with an
// intra-node latency of 1 us and bandwidth 1 GB/s (T1(s) = s / 1 GB/s); `two_way` the
// two-way curve's points ("" for none); eager up to `eager`.
run::Model machine(const std::string& two_way, const std::string& eager = "1MiB",
                   const std::string& model = "simple") {
    std::string curve;
    if (!two_way.empty())
        curve = "    <point-to-point scope=\"intra_node\" direction=\"both\">" + two_way +
                "</point-to-point>\n";
    const std::string xml = fmt::format(R"(<cluster name="two-way">
  <network granularity="message" eager-threshold="{}"/>
  <node-type name="n" memory="1GiB">
    <socket name="s0" cores="2" speed="1G"/>
    <memory-node name="mem0" local-bandwidth="1GB/s"/>
    <cable from="s0" to="mem0" latency="500ns" bandwidth="1GB/s"/>
  </node-type>
  <node name="n0" type="n"/>
  <comm-model model="{}" intra-latency="1us" intra-bandwidth="1GB/s">
{}  </comm-model>
</cluster>
)",
                                        eager, model, curve);
    return run::parse_model(xml, "two-way.xml");
}

// Two ranks on the two cores of the one socket.
std::vector<mpi::RankLocation> two_cores(const topo::Topology& t) {
    const auto v = t.nodes[0].sockets[0].vertex;
    return {mpi::RankLocation{0, 0, 0, v}, mpi::RankLocation{0, 0, 1, v}};
}

mpi::SimulationResult run_script(const run::Model& t, std::vector<std::vector<mpi::Op>> script) {
    ScriptProgram prog(std::move(script));
    auto res = mpi::simulate(t, two_cores(t.topology), prog);
    EXPECT_EQ(res.ranks[0].bytes_sent, res.ranks[1].bytes_received);
    EXPECT_EQ(res.ranks[1].bytes_sent, res.ranks[0].bytes_received);
    EXPECT_EQ(res.network.messages_sent, res.network.messages_delivered);
    return res;
}

// k Sendrecvs of `bytes` each way between ranks 0 and 1.
mpi::SimulationResult exchanges(const run::Model& t, int k, std::uint64_t bytes) {
    std::vector<mpi::Op> a, b;
    for (int i = 0; i < k; ++i) {
        a.push_back(sendrecv(1, bytes, 1, bytes));
        b.push_back(sendrecv(0, bytes, 0, bytes));
    }
    return run_script(t, {a, b});
}

// A two-way bandwidth of 0.5 GB/s at every size: T2(s) = 2 s / 1 GB/s.
const std::string kHalf =
    R"(<point size="1B" bandwidth="500MB/s"/><point size="16MiB" bandwidth="500MB/s"/>)";

TEST(TwoWay, ReadFromTheModel) {
    const auto t = machine(kHalf);
    ASSERT_EQ(t.comm.intra_two_way.size(), 2u);
    EXPECT_EQ(t.comm.intra_two_way[0].first, 1u);
    EXPECT_TRUE(t.comm.inter_two_way.empty());
    EXPECT_TRUE(t.comm.intra_curve.empty());  // the one-way curve is another element
    EXPECT_TRUE(machine("").comm.intra_two_way.empty());
}

TEST(TwoWay, BadElementsNameTheirLine) {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {R"(<point-to-point scope="intra_node" direction="sideways"><point size="1B" bandwidth="1GB/s"/></point-to-point>)",
         "'direction': 'sideways' is not valid"},
        {R"(<point-to-point scope="intra_node" direction="both"><point size="1B" bandwidth="1GB/s"/></point-to-point>
            <point-to-point scope="intra_node" direction="both"><point size="1B" bandwidth="1GB/s"/></point-to-point>)",
         "second <point-to-point scope=\"intra_node\" direction=\"both\">"},
        {R"(<point-to-point scope="intra_node" direction="both"/>)", "without <point>"},
    };
    testing::expect_input_errors(bad, "bad.xml:", [](const std::string& inner) {
        (void)run::parse_model(testing::comm_model_xml(inner), "bad.xml");
    });
}

// A bidirectional exchange costs the two-way curve: k Sendrecvs of s bytes (eager) take
// k (L + T2(s)); without the curve k (L + T1(s)).
TEST(TwoWay, AnExchangeCostsTheTwoWayCurve) {
    for (const std::string model : {"simple", "contention"}) {
        for (const std::uint64_t s : {std::uint64_t{1000}, std::uint64_t{64} << 10}) {
            const int k = 5;
            const Time one = Time::ns(static_cast<std::int64_t>(s));  // s / 1 GB/s
            const auto with = exchanges(machine(kHalf, "1MiB", model), k, s);
            EXPECT_EQ(with.simulated, k * (Time::us(1) + 2 * one)) << model << " " << s;
            const auto without = exchanges(machine("", "1MiB", model), k, s);
            EXPECT_EQ(without.simulated, k * (Time::us(1) + one)) << model << " " << s;
        }
    }
}

// Above the eager threshold: request and clear-to-send (no payload, not slowed), then both
// data messages at once: 3L + T2(s) per exchange.
TEST(TwoWay, RendezvousExchange) {
    const std::uint64_t s = 256 << 10;
    const auto res = exchanges(machine(kHalf, "4KiB"), 3, s);
    EXPECT_EQ(res.simulated, 3 * (3 * Time::us(1) + Time::ns(2 * static_cast<std::int64_t>(s))));
}

// A ping-pong never sends both ways at once: unchanged by the curve.
TEST(TwoWay, PingPongKeepsTheOneWayCurve) {
    const std::uint64_t s = 4096;
    std::vector<mpi::Op> a, b;
    for (int i = 0; i < 4; ++i) {
        a.push_back(send(1, s));
        a.push_back(recv(1, s));
        b.push_back(recv(0, s));
        b.push_back(send(0, s));
    }
    const auto with = run_script(machine(kHalf), {a, b});
    const auto without = run_script(machine(""), {a, b});
    EXPECT_EQ(with.simulated, without.simulated);
    EXPECT_EQ(with.simulated, 8 * (Time::us(1) + Time::ns(4096)));
}

// Rank 1 starts its message d = 500 ns after rank 0's (T1 = 1 us, T2 = 2 us for 1000 B).
// Rank 0's message: alone for 0.5 us (half done), then two-way: the other half takes 1 us,
// it ends at 1.5 us. Rank 1's: two-way from 0.5 to 1.5 us (half done), then alone: 0.5 us
// more, it ends at 2.0 us. Arrivals one latency later: rank 1 finishes at 2.5 us, rank 0
// at 3.0 us.
TEST(TwoWay, OverlapIsPricedPiecewise) {
    const std::uint64_t s = 1000;
    const std::vector<mpi::Op> a = {isend(1, s, 0), irecv(1, s, 1), waitall(0, 2)};
    const std::vector<mpi::Op> b = {compute(500), isend(0, s, 0), irecv(0, s, 1), waitall(0, 2)};
    const auto res = run_script(machine(kHalf), {a, b});
    EXPECT_EQ(res.ranks[0].finish, Time::ns(3000));
    EXPECT_EQ(res.ranks[1].finish, Time::ns(2500));
    // Without the curve: each alone, 1 us of transfer.
    const auto plain = run_script(machine(""), {a, b});
    EXPECT_EQ(plain.ranks[0].finish, Time::ns(2500));
    EXPECT_EQ(plain.ranks[1].finish, Time::ns(2000));
}

// Messages in one direction only (a burst of Isends) do not slow each other.
TEST(TwoWay, OneDirectionIsNotSlowed) {
    const std::uint64_t s = 2000;
    const std::vector<mpi::Op> a = {isend(1, s, 0), isend(1, s, 1), waitall(0, 2)};
    const std::vector<mpi::Op> b = {irecv(0, s, 0), irecv(0, s, 1), waitall(0, 2)};
    const auto res = run_script(machine(kHalf), {a, b});
    EXPECT_EQ(res.simulated, Time::us(1) + Time::ns(2000));
}

// The curve's own shape is used: a two-way bandwidth that falls with the size.
TEST(TwoWay, FollowsTheCurveBetweenItsPoints) {
    const std::string curve =
        R"(<point size="1000B" bandwidth="800MB/s"/><point size="4000B" bandwidth="400MB/s"/>)";
    const auto t = machine(curve);
    // At the points: 1000 B / 800 MB/s = 1.25 us; 4000 B / 400 MB/s = 10 us.
    EXPECT_EQ(exchanges(t, 1, 1000).simulated, Time::us(1) + Time::ps(1'250'000));
    EXPECT_EQ(exchanges(t, 1, 4000).simulated, Time::us(1) + Time::us(10));
    // Never faster than one way: a two-way bandwidth above the one-way one is capped.
    const auto fast = machine(R"(<point size="1000B" bandwidth="5GB/s"/>)");
    EXPECT_EQ(exchanges(fast, 1, 1000).simulated, Time::us(1) + Time::us(1));
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
