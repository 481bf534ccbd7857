// Concurrent transfers (issue 23, part 2): with <point-to-point direction="concurrent"> in
// the <comm-model>, the messages in transfer to one rank share its copy bandwidth Bc(s)
// (Open MPI's vader BTL copies a large message with the receiver's process_vm_readv): while
// n >= 2 messages are in transfer to a rank, each of s bytes transfers in max(T(s), n s /
// Bc(s)), processor sharing. Closed forms: k concurrent messages of s bytes to one rank take
// L + max(T1(s), k s / Bc(s)); one message alone is unchanged; messages to two different
// ranks (both directions at once) do not slow each other; a partial overlap is priced
// piecewise; without the curve nothing changes.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "sim_fixtures.hpp"
#include "simulator/error.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace testing;

// One node, one socket, three cores at 1 G instructions/s; the simple model with an
// intra-node latency of 1 us and bandwidth 1 GB/s (T1(s) = s / 1 GB/s); `curves` extra
// <point-to-point> elements ("" for none); eager up to `eager`.
run::Model machine(const std::string& curves, const std::string& eager = "1MiB",
                   const std::string& model = "simple") {
    const std::string xml = fmt::format(R"(<cluster name="concurrent">
  <network granularity="message" eager-threshold="{}"/>
  <node-type name="n" memory="1GiB">
    <socket name="s0" cores="3" speed="1G"/>
    <memory-node name="mem0" local-bandwidth="1GB/s"/>
    <cable from="s0" to="mem0" latency="500ns" bandwidth="1GB/s"/>
  </node-type>
  <node name="n0" type="n"/>
  <comm-model model="{}" intra-latency="1us" intra-bandwidth="1GB/s">
{}  </comm-model>
</cluster>
)",
                                        eager, model, curves);
    return run::parse_model(xml, "concurrent.xml");
}

std::string concurrent(const std::string& points) {
    return "    <point-to-point scope=\"intra_node\" direction=\"concurrent\">" + points +
           "</point-to-point>\n";
}

// A shared bandwidth of 1 GB/s at every size: n concurrent messages each take n s / 1 GB/s.
const std::string kSame =
    concurrent(R"(<point size="1B" bandwidth="1GB/s"/><point size="16MiB" bandwidth="1GB/s"/>)");

// Ranks on the cores of the one socket.
std::vector<mpi::RankLocation> cores(const topo::Topology& t, int n) {
    const auto v = t.nodes[0].sockets[0].vertex;
    std::vector<mpi::RankLocation> out;
    for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(n); ++i)
        out.push_back(mpi::RankLocation{0, 0, i, v});
    return out;
}

mpi::SimulationResult run_script(const run::Model& t, std::vector<std::vector<mpi::Op>> script) {
    const int n = static_cast<int>(script.size());
    ScriptProgram prog(std::move(script));
    auto res = mpi::simulate(t, cores(t.topology, n), prog);
    std::uint64_t sent = 0, received = 0;
    for (const auto& r : res.ranks) sent += r.bytes_sent, received += r.bytes_received;
    EXPECT_EQ(sent, received);
    EXPECT_EQ(res.network.messages_sent, res.network.messages_delivered);
    return res;
}

// k Isend of s bytes from rank 0 to rank 1, all posted at once, then a Waitall; rank 1
// posts its k receives first.
mpi::SimulationResult burst(const run::Model& t, int k, std::uint64_t s) {
    std::vector<mpi::Op> a, b;
    const auto n = static_cast<std::uint32_t>(k);
    for (std::uint32_t i = 0; i < n; ++i) {
        a.push_back(isend(1, s, i));
        b.push_back(irecv(0, s, i));
    }
    a.push_back(waitall(0, n));
    b.push_back(waitall(0, n));
    return run_script(t, {a, b});
}

TEST(Concurrent, ReadFromTheModel) {
    const auto t = machine(kSame);
    ASSERT_EQ(t.comm.intra_concurrent.size(), 2u);
    EXPECT_EQ(t.comm.intra_concurrent[1].first, 16u << 20);
    EXPECT_TRUE(t.comm.inter_concurrent.empty());
    EXPECT_TRUE(t.comm.intra_two_way.empty());  // another element
    EXPECT_TRUE(t.comm.intra_curve.empty());
    EXPECT_TRUE(machine("").comm.intra_concurrent.empty());
}

TEST(Concurrent, BadElementsNameTheirLine) {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {R"(<point-to-point scope="intra_node" direction="parallel"><point size="1B" bandwidth="1GB/s"/></point-to-point>)",
         "'direction': 'parallel' is not valid; expected one-way, both or concurrent"},
        {R"(<point-to-point scope="inter_node" direction="concurrent"><point size="1B" bandwidth="1GB/s"/></point-to-point>
            <point-to-point scope="inter_node" direction="concurrent"><point size="1B" bandwidth="1GB/s"/></point-to-point>)",
         "second <point-to-point scope=\"inter_node\" direction=\"concurrent\">"},
        {R"(<point-to-point scope="intra_node" direction="concurrent"/>)", "without <point>"},
        {R"(<point-to-point scope="intra_node" direction="concurrent"><point size="1B" bandwidth="0B/s"/></point-to-point>)",
         "bad.xml:"},
    };
    testing::expect_input_errors(bad, "bad.xml:", [](const std::string& inner) {
        (void)run::parse_model(testing::comm_model_xml(inner), "bad.xml");
    });
}

// k concurrent messages of s bytes to one rank take L + k s / Bc (Bc = B here, so k T1(s));
// without the curve L + T1(s), all at full speed at once.
TEST(Concurrent, KMessagesShareTheReceiversCopy) {
    for (const std::string model : {"simple", "contention"}) {
        for (const int k : {1, 2, 4}) {
            for (const std::uint64_t s : {std::uint64_t{1000}, std::uint64_t{64} << 10}) {
                const Time one = Time::ns(static_cast<std::int64_t>(s));  // s / 1 GB/s
                const auto with = burst(machine(kSame, "1MiB", model), k, s);
                const auto without = burst(machine("", "1MiB", model), k, s);
                // (Within a node the contention model holds no links or buses.)
                EXPECT_EQ(with.simulated, Time::us(1) + k * one) << model << k << " " << s;
                EXPECT_EQ(without.simulated, Time::us(1) + one) << model << k << " " << s;
            }
        }
    }
}

// Rendezvous: the request and clear-to-send carry no payload (not shared); the data
// messages of a group travel together: 3 L + k s / Bc.
TEST(Concurrent, RendezvousGroup) {
    const std::uint64_t s = 256 << 10;
    for (const int k : {1, 2, 3}) {
        const auto res = burst(machine(kSame, "4KiB"), k, s);
        EXPECT_EQ(res.simulated, 3 * Time::us(1) + k * Time::ns(static_cast<std::int64_t>(s))) << k;
    }
}

// The curve's own figure: Bc(s) = 4 GB/s is faster than one message (1 GB/s), so two
// messages are not slowed (2 s / 4 GB/s < s / 1 GB/s) and four just are not; eight take
// 8 s / 4 GB/s = 2 T1(s).
TEST(Concurrent, NeverFasterThanOneMessage) {
    const auto t = machine(concurrent(R"(<point size="1B" bandwidth="4GB/s"/>)"));
    const std::uint64_t s = 4000;
    EXPECT_EQ(burst(t, 2, s).simulated, Time::us(1) + Time::us(4));
    EXPECT_EQ(burst(t, 4, s).simulated, Time::us(1) + Time::us(4));
    EXPECT_EQ(burst(t, 8, s).simulated, Time::us(1) + Time::us(8));
}

// Both directions at once: each rank receives one message, so neither is shared (the
// receivers copy on their own cores): L + T1(s), as without the curve.
TEST(Concurrent, BothDirectionsDoNotShare) {
    const std::uint64_t s = 2000;
    const std::vector<mpi::Op> a = {isend(1, s, 0), irecv(1, s, 1), waitall(0, 2)};
    const std::vector<mpi::Op> b = {isend(0, s, 1), irecv(0, s, 0), waitall(0, 2)};
    const auto with = run_script(machine(kSame), {a, b});
    const auto without = run_script(machine(""), {a, b});
    EXPECT_EQ(with.simulated, without.simulated);
    EXPECT_EQ(with.simulated, Time::us(1) + Time::us(2));
}

// Two senders, one receiver: rank 2 receives 1000 B from rank 0 and from rank 1 at once;
// they share rank 2's copy: L + 2 s / Bc = 3 us.
TEST(Concurrent, TwoSendersShareOneReceiver) {
    const std::uint64_t s = 1000;
    const std::vector<mpi::Op> a = {send(2, s)};
    const std::vector<mpi::Op> b = {send(2, s)};
    const std::vector<mpi::Op> c = {irecv(0, s, 0), irecv(1, s, 1), waitall(0, 2)};
    const auto res = run_script(machine(kSame), {a, b, c});
    EXPECT_EQ(res.ranks[2].finish, Time::us(3));
    EXPECT_EQ(run_script(machine(""), {a, b, c}).ranks[2].finish, Time::us(2));
}

// Rank 0 sends 1000 B to rank 1 at 0 and another at 500 ns (T1 = 1 us; Bc = 1 GB/s).
// First: alone to 0.5 us (half done), shared (2 us for the whole) from 0.5 to 1.5 us (the
// other half), it ends at 1.5 us. Second: shared from 0.5 to 1.5 us (half done), alone
// 0.5 us more, it ends at 2.0 us; delivered at 3.0 us.
TEST(Concurrent, OverlapIsPricedPiecewise) {
    const std::uint64_t s = 1000;
    const std::vector<mpi::Op> a = {isend(1, s, 0), compute(500), isend(1, s, 1), waitall(0, 2)};
    const std::vector<mpi::Op> b = {irecv(0, s, 0), irecv(0, s, 1), waitall(0, 2)};
    const auto res = run_script(machine(kSame), {a, b});
    EXPECT_EQ(res.ranks[1].finish, Time::ns(3000));
    // Without the curve: each alone, the second delivered at 0.5 + 1 + 1 us.
    EXPECT_EQ(run_script(machine(""), {a, b}).ranks[1].finish, Time::ns(2500));
}

// With both curves: a group of two messages each way between two ranks: every message is
// two-way (T2 = 2 T1 with kHalf) and shared by two (2 s / Bc = 2 T1): max of both = 2 T1.
// With Bc = 0.5 GB/s the sharing wins: 2 s / 0.5 GB/s = 4 T1.
TEST(Concurrent, CombinesWithTheTwoWayCurve) {
    const std::string half =
        R"(    <point-to-point scope="intra_node" direction="both"><point size="1B" bandwidth="500MB/s"/></point-to-point>
)";
    const std::uint64_t s = 1000;
    std::vector<mpi::Op> a, b;
    for (std::uint32_t i = 0; i < 2; ++i) {
        a.push_back(irecv(1, s, i));
        b.push_back(irecv(0, s, i));
    }
    for (std::uint32_t i = 0; i < 2; ++i) {
        a.push_back(isend(1, s, 2 + i));
        b.push_back(isend(0, s, 2 + i));
    }
    a.push_back(waitall(0, 4));
    b.push_back(waitall(0, 4));
    EXPECT_EQ(run_script(machine(half + kSame), {a, b}).simulated, Time::us(1) + Time::us(2));
    const std::string slow = concurrent(R"(<point size="1B" bandwidth="500MB/s"/>)");
    EXPECT_EQ(run_script(machine(half + slow), {a, b}).simulated, Time::us(1) + Time::us(4));
    EXPECT_EQ(run_script(machine(half), {a, b}).simulated, Time::us(1) + Time::us(2));
    EXPECT_EQ(run_script(machine(""), {a, b}).simulated, Time::us(1) + Time::us(1));
}

// The same run twice gives the same times (the end events of shared flights are rescheduled;
// stale ones must not count).
TEST(Concurrent, Deterministic) {
    const auto t = machine(kSame, "4KiB");
    const auto x = burst(t, 5, 100000), y = burst(t, 5, 100000);
    EXPECT_EQ(x.simulated, y.simulated);
    EXPECT_EQ(x.ranks[1].finish, y.ranks[1].finish);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
