// The PSINS-style analytic communication models (models/comm_model.hpp, models/analytic.hpp):
// closed-form message and collective times, resource contention, bandwidth scaling and the
// fitted collective bandwidth curve.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "coll_fixtures.hpp"
#include "models/comm_model.hpp"
#include "simulator/error.hpp"
#include "simulator/units.hpp"

using namespace clustersim;
using namespace clustersim::testing;

namespace CLUSTERSIM_TEST_FILE {

constexpr std::uint64_t kMiB = 1 << 20;

// The uniform star (1 us, 1 GB/s cables, every message eager) with an analytic model.
run::Model star(int p, const std::string& network) {
    run::Model t{uniform_star(p)};
    mpi::choose_network(t, network);
    return t;
}

mpi::SimulationResult run_script(const run::Model& t, std::vector<std::vector<mpi::Op>> script,
                                 mpi::OpObserver* observer = nullptr) {
    ScriptProgram prog(std::move(script));
    mpi::SimulationOptions o;
    o.observer = observer;
    return mpi::simulate(t, one_rank_per_node(t.topology, t.topology.nodes.size()), prog, o);
}

mpi::Op collective(mpi::CollOp op, std::uint64_t bytes, std::int32_t root = 0) {
    mpi::Op o;
    o.kind = mpi::OpKind::Collective;
    o.coll = op;
    o.bytes = bytes;
    o.root = root;
    return o;
}

Time us(double x) {
    return Time::ps(static_cast<std::int64_t>(std::llround(x * 1e6)));
}
// m bytes at 1 GB/s
Time at_1gbs(std::uint64_t m) {
    return transfer_time(m, Bandwidth{1'000'000'000});
}

// One node with one two-core socket cabled to its memory node (100 ns, 20 GB/s; the memory
// node copies at 10 GB/s); every message eager.
topo::Topology one_node() {
    return topo::parse_model(R"(<cluster name="one">
  <network eager-threshold="1TiB"/>
  <node-type name="n" memory="1GiB"><socket name="s0" cores="2" speed="1G"/>
    <memory-node name="mem" local-bandwidth="10GB/s"/><cable from="s0" to="mem" latency="100ns" bandwidth="20GB/s"/>
  </node-type>
  <nodes prefix="n" count="1" type="n"/>
</cluster>)",
                             "one.xml");
}

// Ranks 0 and 1 on the two cores of that socket.
std::vector<mpi::RankLocation> both_cores(const topo::Topology& t) {
    return {{0, 0, 0, t.nodes[0].sockets[0].vertex}, {0, 0, 1, t.nodes[0].sockets[0].vertex}};
}

// ---- simple ---------------------------------------------------------------------------------

TEST(CommSimple, MessageTakesLatencyPlusSizeOverBandwidth) {
    const auto t = star(2, "simple:latency=5us,bandwidth=1GB/s");
    const auto res = run_script(t, {{send(1, kMiB)}, {recv(0, kMiB)}});
    // The eager send returns when its last byte has left; the receive one latency later.
    EXPECT_EQ(res.ranks[0].finish, at_1gbs(kMiB));
    EXPECT_EQ(res.ranks[1].finish, us(5) + at_1gbs(kMiB));
    EXPECT_EQ(res.network.messages_delivered, 1u);
    EXPECT_EQ(res.network.bytes_delivered, kMiB);
    EXPECT_EQ(res.network.messages_waited, 0u);
}

TEST(CommSimple, CostsFromTheGraphAreALowerBoundOfThePacketModel) {
    // No latency or bandwidth given: the route's latencies (2 x 1 us) and its bottleneck
    // (1 GB/s). The packet model adds the store_and_forward hop: 2 L + 2 m / B.
    const auto t = star(2, "simple");
    const auto res = run_script(t, {{send(1, kMiB)}, {recv(0, kMiB)}});
    EXPECT_EQ(res.ranks[1].finish, us(2) + at_1gbs(kMiB));
    const run::Model packet{uniform_star(2)};
    const auto pres = run_script(packet, {{send(1, kMiB)}, {recv(0, kMiB)}});
    EXPECT_EQ(pres.ranks[1].finish, us(2) + at_1gbs(kMiB) + at_1gbs(kMiB));
    EXPECT_LT(res.ranks[1].finish, pres.ranks[1].finish);
}

TEST(CommSimple, IntraNodeCostsApplyWithinANode) {
    // Two ranks on one two-core socket: the node's own latency and bandwidth.
    run::Model t{one_node()};
    mpi::choose_network(t, "simple:intra-latency=300ns,intra-bandwidth=5GB/s");
    ScriptProgram prog({{send(1, kMiB)}, {recv(0, kMiB)}});
    const std::vector<mpi::RankLocation> where = both_cores(t.topology);
    const auto res = mpi::simulate(t, where, prog);
    EXPECT_EQ(res.ranks[1].finish, Time::ns(300) + transfer_time(kMiB, Bandwidth{5'000'000'000}));
    // A collective of the two: the node's own costs, one round of its latency.
    ScriptProgram coll(
        std::vector<std::vector<mpi::Op>>(2, {collective(mpi::CollOp::Allreduce, kMiB)}));
    EXPECT_EQ(mpi::simulate(t, where, coll).simulated,
              Time::ns(300) + transfer_time(kMiB, Bandwidth{5'000'000'000}));
    // From the graph instead: out to the memory node and back (2 x 100 ns), at the memory
    // node's local rate (the bottleneck).
    mpi::choose_network(t, "simple");
    t.comm.has_intra_latency = t.comm.has_intra_bandwidth = false;
    ScriptProgram again({{send(1, kMiB)}, {recv(0, kMiB)}});
    const auto g = mpi::simulate(t, where, again);
    EXPECT_EQ(g.ranks[1].finish, Time::ns(200) + transfer_time(kMiB, Bandwidth{10'000'000'000}));
}

TEST(CommSimple, MeasuredPointToPointCurveTimesTheTransfer) {
    // Two ranks on one socket with an intra-node curve (<point-to-point scope="intra_node">):
    // a message of s bytes takes the latency plus s / curve(s); at a measured point exactly
    // that point's bandwidth, between points a bandwidth between theirs.
    run::Model t{one_node()};
    mpi::choose_network(t, "simple:intra-latency=300ns,intra-bandwidth=5GB/s");
    t.comm.intra_curve = {{1024, Bandwidth{2'000'000'000}}, {kMiB, Bandwidth{10'000'000'000}}};
    const std::vector<mpi::RankLocation> where = both_cores(t.topology);
    auto one_way = [&](std::uint64_t bytes) {
        ScriptProgram prog({{send(1, bytes)}, {recv(0, bytes)}});
        return mpi::simulate(t, where, prog).ranks[1].finish;
    };
    EXPECT_EQ(one_way(kMiB), Time::ns(300) + transfer_time(kMiB, Bandwidth{10'000'000'000}));
    EXPECT_EQ(one_way(1024), Time::ns(300) + transfer_time(1024, Bandwidth{2'000'000'000}));
    const Time mid = one_way(32 * 1024);
    EXPECT_LT(mid, Time::ns(300) + transfer_time(32 * 1024, Bandwidth{2'000'000'000}));
    EXPECT_GT(mid, Time::ns(300) + transfer_time(32 * 1024, Bandwidth{10'000'000'000}));
    // Above the largest point: its bandwidth; below the smallest: the smallest point's time.
    EXPECT_EQ(one_way(4 * kMiB),
              Time::ns(300) + transfer_time(4 * kMiB, Bandwidth{10'000'000'000}));
    EXPECT_EQ(one_way(100), Time::ns(300) + transfer_time(1024, Bandwidth{2'000'000'000}));
    // The analytic collective time takes its data term from the curve too.
    ScriptProgram coll(
        std::vector<std::vector<mpi::Op>>(2, {collective(mpi::CollOp::Allreduce, kMiB)}));
    EXPECT_EQ(mpi::simulate(t, where, coll).simulated,
              Time::ns(300) + transfer_time(kMiB, Bandwidth{10'000'000'000}));
    // Without the curve: latency + size / the intra bandwidth.
    t.comm.intra_curve.clear();
    EXPECT_EQ(one_way(kMiB), Time::ns(300) + transfer_time(kMiB, Bandwidth{5'000'000'000}));
}

TEST(CommSimple, CollectivesFollowTheirScaling) {
    // rounds(8) x L + volume / B, volume = the buffer (1 MiB) for allreduce.
    struct Case {
        const char* scaling;
        double factor;
    };
    for (const Case c : {Case{"constant", 1}, Case{"linear", 7}, Case{"logarithmic", 3}}) {
        run::Model t = star(8, "simple:latency=5us,bandwidth=1GB/s");
        comm::CommCollectiveSpec rule;
        rule.operation = "allreduce";
        rule.scaling = c.scaling;
        t.comm.collectives.push_back(rule);
        const auto res = run_script(
            t, std::vector<std::vector<mpi::Op>>(8, {collective(mpi::CollOp::Allreduce, kMiB)}));
        for (const auto& r : res.ranks)
            EXPECT_EQ(r.finish, static_cast<std::int64_t>(c.factor) * us(5) + at_1gbs(kMiB))
                << c.scaling;
        EXPECT_EQ(res.network.messages_sent, 0u) << "timed as a whole, no messages";
    }
}

TEST(CommSimple, CollectivesWaitForTheLastMemberAndUseDefaults) {
    // Rank 3 computes 1 ms first; every rank leaves the barrier at 1 ms + log2(4) x L, and
    // the others' wait is the 1 ms they waited for rank 3.
    struct Waits final : mpi::OpObserver {
        std::vector<Time> wait = std::vector<Time>(4);
        void op_done(const mpi::OpEvent& e) override {
            if (mpi::stat_name(e.kind) == "Barrier")
                wait[static_cast<std::size_t>(e.rank)] = e.wait;
        }
    } waits;
    const auto t = star(4, "simple:latency=5us,bandwidth=1GB/s");
    std::vector<std::vector<mpi::Op>> script(4, {collective(mpi::CollOp::Barrier, 0)});
    script[3].insert(script[3].begin(), compute(1'000'000));  // 1 ms at 1 G instructions/s
    const auto res = run_script(t, script, &waits);
    for (const auto& r : res.ranks) EXPECT_EQ(r.finish, Time::ms(1) + us(10));
    EXPECT_EQ(waits.wait[0], Time::ms(1));
    EXPECT_EQ(waits.wait[3], Time::zero());
    // Alltoall defaults to logarithmic rounds, and every member sends P - 1 blocks.
    const auto a =
        run_script(star(4, "simple:latency=5us,bandwidth=1GB/s"),
                   std::vector<std::vector<mpi::Op>>(4, {collective(mpi::CollOp::Alltoall, 1000)}));
    EXPECT_EQ(a.ranks[0].finish, 2 * us(5) + at_1gbs(3000));
    // Gather defaults to one round: the root takes the P - 1 blocks at once.
    const auto g =
        run_script(star(4, "simple:latency=5us,bandwidth=1GB/s"),
                   std::vector<std::vector<mpi::Op>>(4, {collective(mpi::CollOp::Gather, 1000)}));
    EXPECT_EQ(g.ranks[0].finish, us(5) + at_1gbs(3000));
}

TEST(CommSimple, CollectivesAsMessagesRunTheirAlgorithm) {
    // collectives=messages: a binomial bcast of 4 ranks is two rounds of L + m / B.
    const auto t = star(4, "simple:latency=5us,bandwidth=1GB/s,collectives=messages");
    ScriptProgram prog(
        std::vector<std::vector<mpi::Op>>(4, {collective(mpi::CollOp::Bcast, kMiB)}));
    mpi::SimulationOptions o;
    o.algorithm_overrides = {"bcast=binomial"};
    const auto res = mpi::simulate(t, one_rank_per_node(t.topology, 4), prog, o);
    EXPECT_EQ(res.network.messages_sent, 3u);
    EXPECT_EQ(res.simulated, 2 * (us(5) + at_1gbs(kMiB)));
}

// ---- resource contention -------------------------------------------------------------------

// Ranks 2i send m bytes to 2i + 1 at time 0, for i < pairs.
std::vector<std::vector<mpi::Op>> pairs_script(int pairs, std::uint64_t m) {
    std::vector<std::vector<mpi::Op>> s;
    for (int i = 0; i < pairs; ++i) {
        s.push_back({send(2 * i + 1, m)});
        s.push_back({recv(2 * i, m)});
    }
    return s;
}

TEST(CommContention, OneBusSerialisesTwoMessages) {
    const auto t = star(4, "bus_only:buses=1,latency=5us,bandwidth=1GB/s");
    const auto res = run_script(t, pairs_script(2, kMiB));
    const Time x = at_1gbs(kMiB);
    EXPECT_EQ(res.ranks[1].finish, x + us(5));
    EXPECT_EQ(res.ranks[3].finish, x + x + us(5)) << "the second waits one transfer";
    EXPECT_EQ(res.network.messages_waited, 1u);
    EXPECT_EQ(res.network.resource_wait, x);
}

TEST(CommContention, KBusesAndKPlusOneMessagesExactlyOneWaits) {
    for (int k : {1, 2, 3, 4}) {
        const auto t =
            star(2 * (k + 1), fmt::format("bus_only:buses={},latency=5us,bandwidth=1GB/s", k));
        const auto res = run_script(t, pairs_script(k + 1, kMiB));
        const Time x = at_1gbs(kMiB);
        EXPECT_EQ(res.network.messages_waited, 1u) << k << " buses";
        EXPECT_EQ(res.network.resource_wait, x) << k << " buses";
        int late = 0;
        for (int i = 0; i <= k; ++i) {
            const Time f = res.ranks[static_cast<std::size_t>(2 * i + 1)].finish;
            if (f == x + x + us(5))
                ++late;
            else
                EXPECT_EQ(f, x + us(5));
        }
        EXPECT_EQ(late, 1) << k << " buses";
    }
}

TEST(CommContention, OneBusServesALongQueueInOrder) {
    // 150 messages sent at time 0 over one bus: the i-th in the queue (0-based) starts after
    // i transfers, so the receivers finish at x + L, 2x + L, ..., 150x + L, and the waits add
    // up to x * 149 * 150 / 2. The queue of 149 is drained past its squeezing point (holes
    // outnumbering the waiting flights by 64), under bus_only and under contention.
    constexpr int n = 150;
    const Time x = at_1gbs(kMiB);
    for (const char* m : {"bus_only", "contention"}) {
        const auto t = star(2 * n, fmt::format("{}:buses=1,latency=5us,bandwidth=1GB/s", m));
        const auto res = run_script(t, pairs_script(n, kMiB));
        std::vector<Time> finish;
        for (int i = 0; i < n; ++i)
            finish.push_back(res.ranks[static_cast<std::size_t>(2 * i + 1)].finish);
        std::sort(finish.begin(), finish.end());
        for (int i = 0; i < n; ++i)
            EXPECT_EQ(finish[static_cast<std::size_t>(i)], (i + 1) * x + us(5)) << m << " " << i;
        EXPECT_EQ(res.network.messages_waited, static_cast<std::uint64_t>(n - 1)) << m;
        EXPECT_EQ(res.network.resource_wait, (n - 1) * n / 2 * x) << m;
        EXPECT_EQ(res.network.messages_delivered, static_cast<std::uint64_t>(n)) << m;
    }
}

TEST(CommContention, IncomingLinkOfAGatherRoot) {
    // A linear gather of 1 MiB blocks on 5 ranks: the root's one incoming link takes the four
    // blocks one after the other; the buses (8) never run out. With two incoming links the
    // blocks go two at a time.
    for (const std::uint32_t links : {1u, 2u}) {
        const auto t = star(5, fmt::format("incoming_link_only:in-links={},buses=8,latency=5us,"
                                           "bandwidth=1GB/s,collectives=messages",
                                           links));
        ScriptProgram prog(
            std::vector<std::vector<mpi::Op>>(5, {collective(mpi::CollOp::Gather, kMiB)}));
        mpi::SimulationOptions o;
        o.algorithm_overrides = {"gather=linear"};
        const auto res = mpi::simulate(t, one_rank_per_node(t.topology, 5), prog, o);
        const Time x = at_1gbs(kMiB);
        const std::int64_t rounds = links == 1 ? 4 : 2;
        EXPECT_EQ(res.ranks[0].finish, rounds * x + us(5)) << links << " links";
        EXPECT_EQ(res.network.messages_waited, links == 1 ? 3u : 2u) << links << " links";
        // The same gather under bus_only with 8 buses: nobody waits.
        auto free_t = star(5, "bus_only:buses=8,latency=5us,bandwidth=1GB/s,collectives=messages");
        ScriptProgram again(
            std::vector<std::vector<mpi::Op>>(5, {collective(mpi::CollOp::Gather, kMiB)}));
        const auto f = mpi::simulate(free_t, one_rank_per_node(free_t, 5), again, o);
        EXPECT_EQ(f.ranks[0].finish, x + us(5));
    }
}

TEST(CommContention, OutgoingLinkAndAllThree) {
    // Rank 0 sends to ranks 1 and 2 at once: its one outgoing link serialises them under
    // outgoing_link_only and contention, not under incoming_link_only.
    std::vector<std::vector<mpi::Op>> s{
        {isend(1, kMiB, 0), isend(2, kMiB, 1), waitall(0, 2)}, {recv(0, kMiB)}, {recv(0, kMiB)}};
    const Time x = at_1gbs(kMiB);
    for (const char* m : {"outgoing_link_only", "contention", "incoming_link_only"}) {
        const auto t = star(3, fmt::format("{}:buses=4,latency=5us,bandwidth=1GB/s", m));
        const auto res = run_script(t, s);
        const bool serial = std::string(m) != "incoming_link_only";
        EXPECT_EQ(res.ranks[2].finish, (serial ? x + x : x) + us(5)) << m;
        EXPECT_EQ(res.network.messages_waited, serial ? 1u : 0u) << m;
    }
}

TEST(CommContention, MoreBusesNeverSlowAndSimpleIsTheLowerBound) {
    // An all-pairs exchange of 8 ranks: runtime falls as buses are added, down to simple.
    std::vector<std::vector<mpi::Op>> s(8);
    for (int r = 0; r < 8; ++r) {
        std::uint32_t h = 0;
        for (int p = 0; p < 8; ++p)
            if (p != r) s[static_cast<std::size_t>(r)].push_back(isend(p, 100000, h++));
        for (int p = 0; p < 8; ++p)
            if (p != r) s[static_cast<std::size_t>(r)].push_back(irecv(p, 100000, h++));
        s[static_cast<std::size_t>(r)].push_back(waitall(0, h));
    }
    Time previous = Time::max();
    for (int buses : {1, 2, 4, 8}) {
        const auto res = run_script(star(8, fmt::format("bus_only:buses={}", buses)), s);
        EXPECT_LE(res.simulated, previous) << buses;
        previous = res.simulated;
        std::uint64_t sent = 0, received = 0;
        for (const auto& r : res.ranks) sent += r.bytes_sent, received += r.bytes_received;
        EXPECT_EQ(sent, received);
        EXPECT_EQ(sent, 8u * 7u * 100000u);
    }
    const auto simple = run_script(star(8, "simple"), s);
    EXPECT_LE(simple.simulated, previous);
    const auto one = run_script(star(8, "bus_only:buses=1"), s);
    // 56 messages one at a time on one bus: at least 56 transfers.
    EXPECT_GE(one.simulated, 56 * at_1gbs(100000));
    // Deterministic: the same run twice gives the same time.
    EXPECT_EQ(run_script(star(8, "bus_only:buses=1"), s).simulated, one.simulated);
}

// ---- PMaC ----------------------------------------------------------------------------------

TEST(CommPmac, BandwidthScalesWithOutstandingMessages) {
    // One bus: the first message starts alone at full bandwidth, the second shares the bus
    // with it and gets half. Nothing waits.
    const auto t = star(4, "pmac:buses=1,latency=5us,bandwidth=1GB/s");
    const auto res = run_script(t, pairs_script(2, kMiB));
    const Time x = at_1gbs(kMiB);
    EXPECT_EQ(res.ranks[1].finish, x + us(5));
    EXPECT_EQ(res.ranks[3].finish, transfer_time(kMiB, Bandwidth{500'000'000}) + us(5));
    EXPECT_EQ(res.network.messages_waited, 0u);
    // Two buses: no sharing.
    const auto two =
        run_script(star(4, "pmac:buses=2,latency=5us,bandwidth=1GB/s"), pairs_script(2, kMiB));
    EXPECT_EQ(two.ranks[3].finish, x + us(5));
}

TEST(CommPmac, CollectiveTimeFromTheMeasuredCurve) {
    // Allreduce measured at 4 ranks: 1 KiB at 100 MB/s, 1 MiB at 1 GB/s. On 16 ranks
    // (logarithmic: 4 steps instead of 2) a 1 MiB call takes 2 x 1 MiB / 1 GB/s.
    run::Model t = star(16, "pmac:latency=5us,bandwidth=1GB/s");
    comm::CommCollectiveSpec rule;
    rule.operation = "allreduce";
    rule.scaling = "logarithmic";
    rule.ranks = 4;
    rule.points = {{1024, Bandwidth{100'000'000}}, {kMiB, Bandwidth{1'000'000'000}}};
    t.comm.collectives.push_back(rule);
    const auto res = run_script(
        t, std::vector<std::vector<mpi::Op>>(16, {collective(mpi::CollOp::Allreduce, kMiB)}));
    EXPECT_NEAR(res.simulated.seconds(), 2 * at_1gbs(kMiB).seconds(), 1e-12);
    // An operation without a curve (bcast) falls back to its scaling: log2(16) x L + m / B.
    const auto b = run_script(
        t, std::vector<std::vector<mpi::Op>>(16, {collective(mpi::CollOp::Bcast, kMiB)}));
    EXPECT_EQ(b.simulated, 4 * us(5) + at_1gbs(kMiB));
}

// ---- the fitted curve ----------------------------------------------------------------------

TEST(CommCurve, ReproducesItsPointsAndIsMonotoneBetweenThem) {
    // Measured-looking data: rising, a plateau, a dip (cache effects), rising again.
    const std::vector<std::pair<std::uint64_t, double>> pts{
        {8, 2e6},      {64, 1.5e7},    {1024, 1.8e8},    {16384, 6e8},      {65536, 6e8},
        {262144, 5e8}, {1048576, 9e8}, {4194304, 1.1e9}, {16777216, 1.15e9}};
    const comm::FittedCurve c(pts);
    for (const auto& [size, bw] : pts)
        EXPECT_NEAR(c.bandwidth(static_cast<double>(size)), bw, 0.01 * bw) << size;
    for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
        const double a = pts[i].second, b = pts[i + 1].second;
        double prev = a;
        for (int k = 1; k <= 200; ++k) {
            const double x = std::exp(std::log(static_cast<double>(pts[i].first)) +
                                      (std::log(static_cast<double>(pts[i + 1].first)) -
                                       std::log(static_cast<double>(pts[i].first))) *
                                          k / 200.0);
            const double y = c.bandwidth(x);
            EXPECT_GE(y, std::min(a, b) * (1 - 1e-12)) << "between points " << i << ", " << i + 1;
            EXPECT_LE(y, std::max(a, b) * (1 + 1e-12)) << "between points " << i << ", " << i + 1;
            if (b >= a)
                EXPECT_GE(y, prev * (1 - 1e-12)) << "rising between " << i << " and " << i + 1;
            else
                EXPECT_LE(y, prev * (1 + 1e-12)) << "falling between " << i << " and " << i + 1;
            prev = y;
        }
    }
    // Outside the points: the smallest point's time below, the largest point's bandwidth above.
    EXPECT_EQ(c.time(1), c.time(8));
    EXPECT_NEAR(c.bandwidth(1e9), 1.15e9, 1);
}

TEST(CommCurve, RejectsBadPoints) {
    EXPECT_THROW(comm::FittedCurve(std::vector<std::pair<std::uint64_t, double>>{}),
                 std::invalid_argument);
    EXPECT_THROW(comm::FittedCurve({{0, 1e6}}), std::invalid_argument);
    EXPECT_THROW(comm::FittedCurve({{10, 1e6}, {10, 2e6}}), std::invalid_argument);
    EXPECT_THROW(comm::FittedCurve({{10, 1e6}, {5, 2e6}}), std::invalid_argument);
    EXPECT_THROW(comm::FittedCurve({{10, 0}}), std::invalid_argument);
}

TEST(CommScaling, CollectiveVolumeIsWhatSomeMemberMustMove) {
    mpi::CollArgs a;
    a.size = 4;
    a.bytes = 1000;
    a.op = mpi::CollOp::Barrier;
    EXPECT_EQ(mpi::collective_volume(a), 0u);
    a.op = mpi::CollOp::Bcast;
    EXPECT_EQ(mpi::collective_volume(a), 1000u);
    a.op = mpi::CollOp::Allgather;
    EXPECT_EQ(mpi::collective_volume(a), 3000u);
    // gatherv to root 1 with blocks 10, 20, 30, 40: the root takes 80.
    const std::vector<std::uint64_t> blocks{10, 20, 30, 40};
    a.op = mpi::CollOp::Gatherv;
    a.counts = &blocks;
    a.root = 1;
    EXPECT_EQ(mpi::collective_volume(a), 80u);
    a.op = mpi::CollOp::Allgatherv;  // rank 0 takes 90
    EXPECT_EQ(mpi::collective_volume(a), 90u);
    // alltoallv 2 x 2: rank 0 sends 5 to rank 1, rank 1 sends 7 to rank 0; diagonal ignored.
    const std::vector<std::uint64_t> m{100, 5, 7, 100};
    a.op = mpi::CollOp::Alltoallv;
    a.size = 2;
    a.counts = &m;
    EXPECT_EQ(mpi::collective_volume(a), 7u);
    a.size = 1;
    EXPECT_EQ(mpi::collective_volume(a), 0u);
}

TEST(CommScaling, Factors) {
    EXPECT_EQ(comm::scaling_factor(comm::Scaling::Logarithmic, 1), 0);
    EXPECT_EQ(comm::scaling_factor(comm::Scaling::Logarithmic, 2), 1);
    EXPECT_EQ(comm::scaling_factor(comm::Scaling::Logarithmic, 5), 3);
    EXPECT_EQ(comm::scaling_factor(comm::Scaling::Logarithmic, 1024), 10);
    EXPECT_EQ(comm::scaling_factor(comm::Scaling::Linear, 1024), 1023);
    EXPECT_EQ(comm::scaling_factor(comm::Scaling::Constant, 3), 1);
}

// ---- bad input -----------------------------------------------------------------------------

TEST(CommBadInput, NetworkFlag) {
    run::Model t{uniform_star(2)};
    auto message = [&](const std::string& flag) {
        try {
            mpi::choose_network(t, flag);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message("bus_only:busses=4"),
              "--network: 'bus_only:busses=4': unknown parameter 'busses'; expected buses, "
              "in-links, out-links, latency, bandwidth, intra-latency, intra-bandwidth or "
              "collectives");
    EXPECT_EQ(message("bus_only:buses=0"),
              "--network: 'bus_only:buses=0': buses: expected a count >= 1");
    EXPECT_NE(message("simple:latency=fast").find("latency:"), std::string::npos);
    EXPECT_EQ(message("simple:collectives=maybe"),
              "--network: 'simple:collectives=maybe': collectives: expected analytic or messages");
    EXPECT_EQ(message("packet:buses=2"),
              "--network: 'packet' takes no parameters (only the analytic models do: "
              "simple:latency=2us,bandwidth=10GB/s, bus_only:buses=4, ...)");
    EXPECT_EQ(message("simple:"), "--network: 'simple:': expected key=value parameters after ':'");
    EXPECT_EQ(message("simple:buses"),
              "--network: 'simple:buses': 'buses' is not key=value; expected e.g. "
              "buses=4,latency=2us");
}

TEST(CommBadInput, CollectiveRuleWithUnknownOperation) {
    run::Model t = star(2, "simple");
    comm::CommCollectiveSpec rule;
    rule.operation = "allgossip";
    rule.line = 7;
    t.comm.collectives.push_back(rule);
    try {
        run_script(t, {{}, {}});
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "uniform-star.xml:7: <collective> operation 'allgossip' is not an MPI "
                  "collective; expected e.g. barrier, bcast, allreduce, alltoall");
    }
}
}  // namespace CLUSTERSIM_TEST_FILE
