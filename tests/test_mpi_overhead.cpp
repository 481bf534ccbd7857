// Per-message software costs (LogGP's o, issue 23): <mpi-overhead> in the model, o_s before
// a message leaves, o_r after it has arrived, the post cost of a receive, each on the rank's
// core. Closed forms in every network model: a ping-pong of k round trips grows by exactly
// 2k·(o_s + o_r); a burst of Isends by k·o_s; a ring allgather by (p − 1)·(o_s + o_r);
// the costs of two ranks on one core share it.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "coll_fixtures.hpp"
#include "simulator/error.hpp"
#include "topologies/routing.hpp"
#include "topologies/summary.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace testing;

// Two (or more) nodes on a switch: 1 GB/s, 1 us links, whole messages, eager up to 64 KiB;
// `overhead` is the <mpi-overhead> element ("" for none).
run::Model pair(const std::string& overhead, int nodes = 2) {
    std::string xml = fmt::format(R"(<cluster name="overhead">
  <network granularity="message" eager-threshold="64KiB"/>
  <node-type name="n" memory="1GiB"><socket name="s0" cores="2" speed="1G"/></node-type>
  <nodes prefix="n" count="{}" type="n"/>
  <switch name="sw"/>
{}
)",
                                  nodes, overhead);
    for (int i = 0; i < nodes; ++i)
        xml += fmt::format(
            "  <cable from=\"n{}.s0\" to=\"sw\" latency=\"1us\" bandwidth=\"1GB/s\"/>\n", i);
    return run::parse_model(xml + "</cluster>\n", "overhead.xml");
}

const std::vector<std::string> kModels = {"packet", "cut_through", "fluid", "simple",
                                          "contention:collectives=messages"};

Time pingpong(const std::string& model, const std::string& overhead, int k, std::uint64_t bytes) {
    auto t = pair(overhead);
    mpi::choose_network(t, model);
    const auto script = pingpong_script(k, bytes);
    const std::vector<mpi::Op>& a = script[0];
    const std::vector<mpi::Op>& b = script[1];
    ScriptProgram prog({a, b});
    const auto res = mpi::simulate(t, one_rank_per_node(t.topology, 2), prog);
    EXPECT_EQ(res.ranks[0].bytes_sent, res.ranks[1].bytes_received);
    EXPECT_EQ(res.ranks[1].bytes_sent, res.ranks[0].bytes_received);
    return res.simulated;
}

TEST(Overhead, ReadFromTheModel) {
    const auto t = pair(R"(<mpi-overhead>
    <send time="300ns" bandwidth="1GB/s"/>
    <recv><point size="1KiB" time="100ns"/><point size="2KiB" time="300ns"/></recv>
    <post time="50ns"/>
  </mpi-overhead>)");
    EXPECT_EQ(t.mpi.send_overhead.at(0), Time::ns(300));
    EXPECT_EQ(t.mpi.send_overhead.at(1000), Time::ns(1300));  // 300 ns + 1000 B / 1 GB/s
    EXPECT_EQ(t.mpi.recv_overhead.at(1), Time::ns(100));      // below the first point
    EXPECT_EQ(t.mpi.recv_overhead.at(1536), Time::ns(200));   // half-way: linear
    EXPECT_EQ(t.mpi.recv_overhead.at(1 << 20), Time::ns(300));
    EXPECT_EQ(t.mpi.post_overhead.at(123456), Time::ns(50));
    EXPECT_FALSE(t.mpi.send_overhead.zero());
    const auto none = pair("");
    EXPECT_TRUE(none.mpi.send_overhead.zero() && none.mpi.recv_overhead.zero() &&
                none.mpi.post_overhead.zero());
}

// `clustersim validate`'s summary names the costs (and says nothing without them).
TEST(Overhead, TheModelSummaryShowsThem) {
    const auto t = pair(R"(<mpi-overhead><send time="300ns" bandwidth="1GB/s"/>
    <recv><point size="1KiB" time="100ns"/><point size="2KiB" time="300ns"/></recv>
    </mpi-overhead>)");
    topo::Router router(t.topology);
    const std::string text = topo::format_summary(run::summarize(t, router));
    EXPECT_NE(text.find("o_s 300 ns + size / 1 GB/s; o_r 100 ns at 1 KiB .. 300 ns at 2 KiB (2 "
                        "points) per message"),
              std::string::npos)
        << text;
    const auto none = pair("");
    topo::Router r2(none.topology);
    EXPECT_EQ(topo::format_summary(run::summarize(none, r2)).find("MPI overheads"),
              std::string::npos);
}

TEST(Overhead, BadElementsNameTheirLine) {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {R"(<mpi-overhead><send time="1us"/><send time="2us"/></mpi-overhead>)", "second <send>"},
        {R"(<mpi-overhead><send time="1"/></mpi-overhead>)", "missing unit"},
        {R"(<mpi-overhead><send time="-1us"/></mpi-overhead>)", "without a sign"},
        {R"(<mpi-overhead><send bandwidth="1GB/s"/></mpi-overhead>)", "'time'"},
        {R"(<mpi-overhead><send bandwidth="0" time="1us"/></mpi-overhead>)", "finite positive"},
        {R"(<mpi-overhead><recv time="1us"><point size="1B" time="1us"/></recv></mpi-overhead>)",
         "both attributes and <point>"},
        {R"(<mpi-overhead><recv><point size="2B" time="1us"/><point size="1B" time="1us"/></recv></mpi-overhead>)",
         "strictly rising"},
        {R"(<mpi-overhead><wait time="1us"/></mpi-overhead>)", "expected only send, recv, post"},
        {R"(<mpi-overhead/><mpi-overhead/>)", "second <mpi-overhead>"},
    };
    testing::expect_input_errors(bad,
                                 "overhead.xml:", [](const std::string& xml) { (void)pair(xml); });
}

// An o_s of x and an o_r of y add exactly x + y to each of the 2k one-way messages of a
// ping-pong, whatever the network model, eager (1 KiB) and rendezvous (256 KiB). A post
// cost smaller than the message's flight is hidden: the receiver posts while it flies.
TEST(Overhead, PingPongGrowsByKTimesOsPlusOrInEveryModel) {
    const int k = 5;
    for (const std::string& model : kModels) {
        for (const std::uint64_t bytes : {std::uint64_t{1024}, std::uint64_t{256} << 10}) {
            SCOPED_TRACE(fmt::format("{}, {} B", model, bytes));
            const Time base = pingpong(model, "", k, bytes);
            const Time with = pingpong(model,
                                       R"(<mpi-overhead><send time="700ns"/>
                                        <recv time="300ns"/></mpi-overhead>)",
                                       k, bytes);
            EXPECT_EQ(with - base, 2 * k * Time::ns(1000));
            const Time posted = pingpong(model,
                                         R"(<mpi-overhead><send time="700ns"/>
                                          <recv time="300ns"/><post time="100ns"/></mpi-overhead>)",
                                         k, bytes);
            EXPECT_EQ(posted, with);
            // A per-byte term: o_s = 200 ns + size / 2 GB/s.
            const Time per_byte = pingpong(
                model, R"(<mpi-overhead><send time="200ns" bandwidth="2GB/s"/></mpi-overhead>)", k,
                bytes);
            EXPECT_EQ(per_byte - base,
                      2 * k * (Time::ns(200) + transfer_time(bytes, Bandwidth{2'000'000'000})));
        }
    }
}

// k Isends of 1000 B back to back (1 us of link each) with o_s = x ≥ 1 us: the sends leave
// x apart, so rank 0's Waitall ends at k·x + 1 us; the posting of k Irecvs costs k·post.
TEST(Overhead, IsendAndIrecvPostingCostTheirOverheadEach) {
    const int k = 8;
    for (const std::string& model : kModels) {
        SCOPED_TRACE(model);
        auto t = pair(R"(<mpi-overhead><send time="2us"/><post time="3us"/></mpi-overhead>)");
        mpi::choose_network(t, model);
        std::vector<mpi::Op> a, b;
        for (int i = 0; i < k; ++i) {
            a.push_back(isend(1, 1000, static_cast<std::uint32_t>(i)));
            b.push_back(irecv(0, 1000, static_cast<std::uint32_t>(i)));
        }
        a.push_back(waitall(0, k));
        b.push_back(waitall(0, k));
        ScriptProgram prog({a, b});
        const auto res = mpi::simulate(t, one_rank_per_node(t.topology, 2), prog);
        // rank 0: k·2 us of o_s, the last send leaves 1 us later (its first link: 1000 B at
        // 1 GB/s; the analytic models: the whole transfer, also 1 us at their bottleneck)
        EXPECT_EQ(res.ranks[0].finish, k * Time::us(2) + Time::us(1));
        // rank 1: its k posts take k·3 us, by when every message has arrived
        EXPECT_EQ(res.ranks[1].finish, k * Time::us(3));
        EXPECT_EQ(res.ranks[1].bytes_received, k * 1000u);
    }
}

// The costs run on the rank's core: two ranks on one core, each posting k Isends, share it,
// so each pays 2x per send (processor sharing); on two cores x.
TEST(Overhead, CostsShareTheCoreWithOtherRanks) {
    const int k = 4;
    auto t = pair(R"(<mpi-overhead><send time="5us"/></mpi-overhead>)");
    const topo::VertexId s0 = t.topology.nodes[0].sockets[0].vertex;
    const topo::VertexId s1 = t.topology.nodes[1].sockets[0].vertex;
    auto run = [&](std::uint32_t core_of_rank1) {
        std::vector<mpi::Op> a, b, c;
        for (int i = 0; i < k; ++i) {
            a.push_back(isend(2, 100, static_cast<std::uint32_t>(i), 0));
            b.push_back(isend(2, 100, static_cast<std::uint32_t>(i), 1));
            c.push_back(irecv(0, 100, static_cast<std::uint32_t>(i), 0));
            c.push_back(irecv(1, 100, static_cast<std::uint32_t>(k + i), 1));
        }
        a.push_back(waitall(0, k));
        b.push_back(waitall(0, k));
        c.push_back(waitall(0, 2 * k));
        ScriptProgram prog({a, b, c});
        return mpi::simulate(t, {{0, 0, 0, s0}, {0, 0, core_of_rank1, s0}, {1, 0, 0, s1}}, prog);
    };
    const auto shared = run(0), separate = run(1);
    // the last send leaves 100 ns after its o_s (100 B at 1 GB/s); sharing the socket's
    // up-link the two ranks' last sends leave one after the other.
    EXPECT_EQ(separate.ranks[0].finish, k * Time::us(5) + Time::ns(100));
    EXPECT_EQ(shared.ranks[0].finish, 2 * k * Time::us(5) + Time::ns(100));
    EXPECT_EQ(shared.ranks[1].finish, 2 * k * Time::us(5) + Time::ns(200));
}

// A schedule with one send and one receive per step: the ring allgather's p − 1 steps each
// grow by o_s + o_r, in every model (collectives as messages in the analytic ones); the
// linear bcast's root pays o_s per child, so with o_s ≥ S(m) its sends leave o_s apart and
// the call ends at (p − 1)·o_s + T(m) + o_r.
TEST(Overhead, CollectiveSchedulesGrowByTheClosedForm) {
    const int p = 6;
    const std::uint64_t m = 1000;
    const std::string o = R"(<mpi-overhead><send time="2us"/><recv time="500ns"/></mpi-overhead>)";
    for (const std::string& model : {std::string("packet"), std::string("fluid"),
                                     std::string("simple:collectives=messages")}) {
        SCOPED_TRACE(model);
        auto run = [&](const std::string& overhead, mpi::CollOp op, const std::string& alg) {
            auto t = pair(overhead, p);
            mpi::choose_network(t, model);
            mpi::Op call;
            call.kind = mpi::OpKind::Collective;
            call.coll = op;
            call.bytes = m;
            ScriptProgram prog(std::vector<std::vector<mpi::Op>>(p, {call}));
            mpi::SimulationOptions opt;
            opt.algorithm_overrides = {std::string(mpi::to_string(op)) + "=" + alg};
            const auto res = mpi::simulate(t, one_rank_per_node(t.topology, p), prog, opt);
            std::uint64_t sent = 0, received = 0;
            for (const auto& r : res.ranks) sent += r.bytes_sent, received += r.bytes_received;
            EXPECT_EQ(sent, received);
            return res.simulated;
        };
        const Time ring0 = run("", mpi::CollOp::Allgather, "ring");
        const Time ring = run(o, mpi::CollOp::Allgather, "ring");
        EXPECT_EQ(ring - ring0, (p - 1) * Time::ns(2500));
        const Time pw0 = run("", mpi::CollOp::Alltoall, "pairwise");
        const Time pw = run(o, mpi::CollOp::Alltoall, "pairwise");
        EXPECT_EQ(pw - pw0, (p - 1) * Time::ns(2500));
        if (model == "packet") {
            // T(m) on this star: two store_and_forward hops, 2 us + 2 us.
            const Time linear = run(o, mpi::CollOp::Bcast, "linear");
            EXPECT_EQ(linear, (p - 1) * Time::us(2) + Time::us(4) + Time::ns(500));
        }
    }
}

// ---- the send gap (LogGP's g, <mpi-overhead><gap>) ------------------------------------

mpi::SimulationResult run_pair(const std::string& model, const std::string& overhead,
                               std::vector<mpi::Op> a, std::vector<mpi::Op> b) {
    auto t = pair(overhead);
    mpi::choose_network(t, model);
    ScriptProgram prog({std::move(a), std::move(b)});
    auto res = mpi::simulate(t, one_rank_per_node(t.topology, 2), prog);
    EXPECT_EQ(res.ranks[0].bytes_sent, res.ranks[1].bytes_received);
    EXPECT_EQ(res.ranks[1].bytes_sent, res.ranks[0].bytes_received);
    return res;
}

// A gap of `g` (a whole number of nanoseconds), after `more` costs.
std::string gap_of(Time g, const std::string& more = "") {
    EXPECT_EQ(g.ps() % 1000, 0);
    return fmt::format(R"(<mpi-overhead>{}<gap time="{}ns"/></mpi-overhead>)", more, g.ps() / 1000);
}
Time whole_ns(std::int64_t ps) {
    return Time::ns(ps / 1000);
}

TEST(SendGap, ReadFromTheModelAndShownBySummary) {
    const auto t = pair(R"(<mpi-overhead>
    <gap><point size="1KiB" time="1us"/><point size="2KiB" time="3us"/></gap>
  </mpi-overhead>)");
    EXPECT_EQ(t.mpi.send_gap.at(1536), Time::ns(2000));
    EXPECT_TRUE(t.mpi.send_overhead.zero());
    EXPECT_NE(mpi::describe_overheads(t.mpi).find("g 1 us at 1 KiB"), std::string::npos)
        << mpi::describe_overheads(t.mpi);
    EXPECT_TRUE(pair("").mpi.send_gap.zero());
}

// N blocking sends back to back: with g above the network's time each send completes o_s + g
// after it started, so rank 0 ends at exactly N·(o_s + g), eager (1000 B) and rendezvous
// (256 KiB) alike, in every network model; without the gap it ends earlier.
TEST(SendGap, BackToBackSendsTakeNTimesTheGap) {
    const int n = 6;
    for (const std::string& model : kModels) {
        for (const auto& [bytes, g] : {std::pair{std::uint64_t{1000}, Time::us(50)},
                                       std::pair{std::uint64_t{256} << 10, Time::ms(2)}}) {
            SCOPED_TRACE(fmt::format("{}, {} B", model, bytes));
            std::vector<mpi::Op> a, b;
            for (int i = 0; i < n; ++i) {
                a.push_back(send(1, bytes));
                b.push_back(recv(0, bytes));
            }
            const auto none = run_pair(model, "", a, b);
            EXPECT_LT(none.ranks[0].finish, n * g);
            EXPECT_EQ(run_pair(model, gap_of(g), a, b).ranks[0].finish, n * g);
            const auto os =
                run_pair(model, gap_of(g, R"(<send time="3us"/>)"), a, b).ranks[0].finish;
            EXPECT_EQ(os, n * (g + Time::us(3)));
        }
    }
}

// A ping-pong (eager, k round trips): a gap below the round trip is hidden (each send's
// completion floor passes before its answer arrives), so rank 0's time is unchanged; a gap
// of at least the round trip paces it, k·g.
TEST(SendGap, PingPongUnchangedUnlessTheGapExceedsTheRoundTrip) {
    const int k = 5;
    const std::uint64_t bytes = 1000;
    const auto script = pingpong_script(k, bytes);
    const std::vector<mpi::Op>& a = script[0];
    const std::vector<mpi::Op>& b = script[1];
    for (const std::string& model : kModels) {
        SCOPED_TRACE(model);
        const Time base = run_pair(model, "", a, b).ranks[0].finish;
        const std::int64_t round_trip = base.ps() / k;
        const Time hidden = whole_ns(round_trip * 3 / 4);  // above one way, below the round trip
        EXPECT_EQ(run_pair(model, gap_of(hidden), a, b).ranks[0].finish, base);
        const Time slow = whole_ns(round_trip * 2);
        EXPECT_EQ(run_pair(model, gap_of(slow), a, b).ranks[0].finish, k * slow);
    }
}

// An exchange (Isend + Irecv + Waitall on both ranks) completes at the later of its network
// time and o_s + g: the gap is a floor on the send, not a cost added to it.
TEST(SendGap, AnExchangeEndsAtTheLaterOfItsNetworkTimeAndTheGap) {
    for (const std::string& model : kModels) {
        for (const std::uint64_t bytes : {std::uint64_t{1000}, std::uint64_t{256} << 10}) {
            SCOPED_TRACE(fmt::format("{}, {} B", model, bytes));
            const std::vector<mpi::Op> a{isend(1, bytes, 0), irecv(1, bytes, 1), waitall(0, 2)};
            const std::vector<mpi::Op> b{isend(0, bytes, 0), irecv(0, bytes, 1), waitall(0, 2)};
            const Time base = run_pair(model, "", a, b).ranks[0].finish;
            EXPECT_EQ(run_pair(model, gap_of(whole_ns(base.ps() / 2)), a, b).ranks[0].finish, base);
            const Time g = whole_ns(base.ps() * 3);
            EXPECT_EQ(run_pair(model, gap_of(g, R"(<send time="2us"/>)"), a, b).ranks[0].finish,
                      Time::us(2) + g);
            EXPECT_EQ(run_pair(model, gap_of(g), a, b).ranks[1].finish, g);
        }
    }
}

// The same run twice gives the same result (the costs add events, not randomness), and
// the default (no <mpi-overhead>) runs without any extra engine event.
TEST(Overhead, DeterministicAndFreeByDefault) {
    const std::string o = R"(<mpi-overhead><send time="1us"/><recv time="1us"/></mpi-overhead>)";
    auto run = [&](const std::string& overhead) {
        auto t = pair(overhead, 4);
        mpi::Op call;
        call.kind = mpi::OpKind::Collective;
        call.coll = mpi::CollOp::Allreduce;
        call.bytes = 1 << 20;
        ScriptProgram prog(std::vector<std::vector<mpi::Op>>(4, {call, call}));
        return mpi::simulate(t, one_rank_per_node(t.topology, 4), prog);
    };
    const auto a = run(o), b = run(o), none = run("");
    EXPECT_EQ(a.simulated, b.simulated);
    EXPECT_EQ(a.events, b.events);
    EXPECT_GT(a.simulated, none.simulated);
    EXPECT_GT(a.events, none.events);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
