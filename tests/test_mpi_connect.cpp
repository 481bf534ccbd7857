// Connection set-up over TCP (issue 23): <mpi-overhead><connect round-trips="N"/> makes the
// first message between two ranks, in either direction, wait for N round trips of empty
// messages through the network (MPICH2's ch3:sock: TCP's SYN / SYN-ACK, then the channel's
// open request / open response). Closed forms in every network model, with T0 the one-way
// time of an empty message (here: a lone 0-byte eager send, the fixture has no envelope):
// a lone message costs exactly 2·N·T0 more, a 0-byte one (2N + 1) times its time; a
// ping-pong pays it once (the reply uses the same connection), and so does a pair that
// exchanges in both directions at once.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "coll_fixtures.hpp"
#include "simulator/error.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace testing;

std::string connect(int trips) {
    return fmt::format(R"(<mpi-overhead><connect round-trips="{}"/></mpi-overhead>)", trips);
}

Time run(const std::string& model, const std::string& overhead, std::vector<mpi::Op> a,
         std::vector<mpi::Op> b) {
    return run_two_ranks(two_nodes_on_a_switch("connect", overhead), model, std::move(a),
                         std::move(b));
}

// One blocking send of `bytes` from rank 1 to rank 0.
Time one_send(const std::string& model, const std::string& overhead, std::uint64_t bytes) {
    return run(model, overhead, {recv(1, bytes)}, {send(0, bytes)});
}

TEST(Connect, ReadFromTheModelAndDescribed) {
    const auto t = two_nodes_on_a_switch("connect", connect(2));
    EXPECT_EQ(t.mpi.connect_round_trips, 2u);
    EXPECT_NE(mpi::describe_overheads(t.mpi).find(
                  "a connection between two ranks costs 2 round trips on its first message"),
              std::string::npos)
        << mpi::describe_overheads(t.mpi);
    EXPECT_EQ(two_nodes_on_a_switch("connect", "").mpi.connect_round_trips, 0u);
}

// An empty message: N round trips before it, so (2N + 1) times its own time.
TEST(Connect, AnEmptyMessageCostsTwoNPlusOneOneWayTrips) {
    for (const auto& model : kOverheadModels) {
        SCOPED_TRACE(model);
        const Time t0 = one_send(model, "", 0);
        ASSERT_GT(t0, Time::zero());
        for (const int n : {1, 2, 3})
            EXPECT_EQ(one_send(model, connect(n), 0), t0 * (2 * n + 1)) << n;
    }
}

// Any message, eager or rendezvous: exactly 2·N empty trips more.
TEST(Connect, AFirstMessageWaitsForNRoundTrips) {
    for (const auto& model : kOverheadModels) {
        const Time t0 = one_send(model, "", 0);
        for (const std::uint64_t bytes : {std::uint64_t{1024}, std::uint64_t{256 * 1024}}) {
            SCOPED_TRACE(fmt::format("{} {} B", model, bytes));
            EXPECT_EQ(one_send(model, connect(2), bytes), one_send(model, "", bytes) + t0 * 4);
        }
    }
}

// A ping-pong of K round trips pays the set-up once: the connection serves both directions.
TEST(Connect, APingPongPaysOnceForBothDirections) {
    for (const auto& model : kOverheadModels) {
        const Time t0 = one_send(model, "", 0);
        for (const std::uint64_t bytes : {std::uint64_t{8}, std::uint64_t{256 * 1024}}) {
            SCOPED_TRACE(fmt::format("{} {} B", model, bytes));
            for (const int k : {1, 5}) {
                const auto s = pingpong_script(k, bytes);
                EXPECT_EQ(run(model, connect(2), s[0], s[1]), run(model, "", s[0], s[1]) + t0 * 4)
                    << k;
            }
        }
    }
}

// Both ranks send first (Isend, Recv, Wait): one set-up, started by the first to hand a
// message over; the other's message waits for it. Both messages go when it ends: 2·N·T0 more.
TEST(Connect, MessagesBothWaysDuringTheSetUpWaitForIt) {
    for (const auto& model : kOverheadModels) {
        SCOPED_TRACE(model);
        const Time t0 = one_send(model, "", 0);
        const std::vector<mpi::Op> a = {isend(1, 1024, 0), recv(1, 1024), wait(0)};
        const std::vector<mpi::Op> b = {isend(0, 1024, 0), recv(0, 1024), wait(0)};
        EXPECT_EQ(run(model, connect(1), a, b), run(model, "", a, b) + t0 * 2);
    }
}

TEST(Connect, BadValuesAreOneLineNamingFileAndLine) {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {connect(0), "'round-trips': '0' is not valid"},
        {connect(65), "'round-trips': '65' is not valid"},
        {R"(<mpi-overhead><connect/></mpi-overhead>)", "'round-trips'"},
        {R"(<mpi-overhead><connect round-trips="1.5"/></mpi-overhead>)", "round-trips"},
        {R"(<mpi-overhead><connect round-trips="2" time="1us"/></mpi-overhead>)", "time"},
        {R"(<mpi-overhead><connect round-trips="1"/><connect round-trips="2"/></mpi-overhead>)",
         "second <connect>"},
    };
    testing::expect_input_errors(bad, "connect.xml:6", [](const std::string& xml) {
        (void)two_nodes_on_a_switch("connect", xml);
    });
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
