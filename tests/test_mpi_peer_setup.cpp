// Lazy connection set-up (issue 23): <mpi-overhead><peer-setup after="N" time="T"/> holds the
// N-th message a rank hands to the network for one peer back by T (Open MPI 4.1's
// shared-memory fast box, set up at the 16th send to a peer). Closed forms in every network
// model: K < N one-way sends cost what they cost without the element, K >= N exactly T more;
// a ping-pong of K >= N round trips exactly 2T more (both directions cross the threshold),
// eager and rendezvous alike.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "coll_fixtures.hpp"
#include "simulator/error.hpp"
#include "topologies/routing.hpp"
#include "topologies/summary.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace testing;

// two_nodes_on_a_switch (sim_fixtures.hpp) with `overhead`: <mpi-overhead>, or "" for none.
run::Model pair(const std::string& overhead) {
    return two_nodes_on_a_switch("setup", overhead);
}

std::string setup(int after, const std::string& time, const std::string& more = "") {
    return fmt::format(R"(<mpi-overhead>{}<peer-setup after="{}" time="{}"/></mpi-overhead>)", more,
                       after, time);
}

Time run(const std::string& model, const std::string& overhead, std::vector<mpi::Op> a,
         std::vector<mpi::Op> b) {
    return run_two_ranks(pair(overhead), model, std::move(a), std::move(b));
}

// K blocking sends of `bytes` from rank 1 to rank 0. Rendezvous sends are 1 ms of compute
// apart, so that no message queues behind the previous data on the link (the packet model's
// request-to-send would otherwise wait for the last packets of the data before it, and a
// delayed one would not: a shift that is not the set-up's).
Time one_way(const std::string& model, const std::string& overhead, int k, std::uint64_t bytes) {
    std::vector<mpi::Op> a, b;
    for (int i = 0; i < k; ++i) {
        a.push_back(recv(1, bytes));
        if (bytes > 64 * 1024) b.push_back(compute(1'000'000));
        b.push_back(send(0, bytes));
    }
    return run(model, overhead, a, b);
}

Time pingpong(const std::string& model, const std::string& overhead, int k, std::uint64_t bytes) {
    const auto script = pingpong_script(k, bytes);
    const std::vector<mpi::Op>& a = script[0];
    const std::vector<mpi::Op>& b = script[1];
    return run(model, overhead, a, b);
}

TEST(PeerSetup, ReadFromTheModelAndShownBySummary) {
    const auto t = pair(setup(16, "10us"));
    EXPECT_EQ(t.mpi.peer_setup_after, 16u);
    EXPECT_EQ(t.mpi.peer_setup_time, Time::us(10));
    EXPECT_NE(mpi::describe_overheads(t.mpi).find(
                  "peer setup 10 us before a rank's message 16 to each peer"),
              std::string::npos)
        << mpi::describe_overheads(t.mpi);
    topo::Router router(t.topology);
    const std::string text = topo::format_summary(run::summarize(t, router));
    EXPECT_NE(text.find("MPI overheads    peer setup 10 us before a rank's message 16"),
              std::string::npos)
        << text;
    const auto none = pair("");
    EXPECT_EQ(none.mpi.peer_setup_after, 0u);
    EXPECT_EQ(mpi::describe_overheads(none.mpi), "");
}

// Fewer messages than the threshold: exactly the run without the element; at or beyond it,
// exactly `time` more for eager sends (one direction used), 2 `time` for rendezvous ones.
TEST(PeerSetup, OneWaySendsCostTheSetUpOnceTheyReachTheThreshold) {
    const Time setup_time = Time::ns(7300);
    for (const auto& model : kOverheadModels) {
        for (const std::uint64_t bytes :
             {std::uint64_t{0}, std::uint64_t{1024}, std::uint64_t{256 * 1024}}) {
            SCOPED_TRACE(fmt::format("{} {} B", model, bytes));
            for (const int k : {3, 4, 5, 9}) {
                const Time base = one_way(model, "", k, bytes);
                const Time with = one_way(model, setup(5, "7.3us"), k, bytes);
                // Rendezvous (256 KiB): the clear-to-sends cross the threshold the other way.
                const Time extra = bytes > 64 * 1024 ? setup_time * 2 : setup_time;
                if (k < 5)
                    EXPECT_EQ(with, base) << k;
                else
                    EXPECT_EQ(with, base + extra) << k;
            }
        }
    }
}

// A rendezvous send is two runtime messages on its pair's count (request-to-send one way,
// clear-to-send the other): with after = 4, the 4th one-way rendezvous send crosses the
// threshold in both directions (its request-to-send is the sender's 4th message, and the
// receiver's 4th clear-to-send), so 2T; the 3rd does not.
TEST(PeerSetup, RendezvousCountsRequestsAndClearsToSend) {
    const Time setup_time = Time::us(3);
    for (const auto& model : kOverheadModels) {
        SCOPED_TRACE(model);
        const std::uint64_t bytes = 256 * 1024;
        EXPECT_EQ(one_way(model, setup(4, "3us"), 3, bytes), one_way(model, "", 3, bytes));
        EXPECT_EQ(one_way(model, setup(4, "3us"), 4, bytes),
                  one_way(model, "", 4, bytes) + setup_time * 2);
    }
}

// A ping-pong of K >= after round trips: both directions set up, 2T more; K < after: none.
TEST(PeerSetup, PingPongCostsTwiceTheSetUpInEveryModel) {
    const Time setup_time = Time::us(10);
    for (const auto& model : kOverheadModels) {
        for (const std::uint64_t bytes : {std::uint64_t{8}, std::uint64_t{256 * 1024}}) {
            SCOPED_TRACE(fmt::format("{} {} B", model, bytes));
            // Rendezvous: two counted messages per direction and round trip.
            const int after = bytes > 64 * 1024 ? 32 : 16;
            for (const int k : {15, 16, 20}) {
                const Time base = pingpong(model, "", k, bytes);
                const Time with = pingpong(model, setup(after, "10us"), k, bytes);
                if (k < 16)
                    EXPECT_EQ(with, base) << k;
                else
                    EXPECT_EQ(with, base + setup_time * 2) << k;
            }
        }
    }
}

// With o_s and a gap, the set-up adds on top: the gap counts from the deferred hand-over.
TEST(PeerSetup, AddsToTheOtherOverheads) {
    const std::string costs = R"(<send time="200ns"/><gap time="3us"/>)";
    for (const auto& model : kOverheadModels) {
        SCOPED_TRACE(model);
        const Time base = one_way(model, setup(1000, "5us", costs), 8, 1024);
        EXPECT_EQ(one_way(model, setup(2, "5us", costs), 8, 1024), base + Time::us(5));
    }
}

// Later messages to the same peer wait for the set-up too (in order): four Isends back to
// back, the first sets up, all arrive after it; the time is the same as one blocking send
// per message shifted by T.
TEST(PeerSetup, MessagesDuringTheSetUpWaitForIt) {
    for (const auto& model : kOverheadModels) {
        SCOPED_TRACE(model);
        auto burst = [&](const std::string& overhead) {
            std::vector<mpi::Op> a, b;
            for (int i = 0; i < 4; ++i) {
                a.push_back(recv(1, 1024));
                b.push_back(isend(0, 1024, static_cast<std::uint32_t>(i)));
            }
            b.push_back(waitall(0, 4));
            return run(model, overhead, a, b);
        };
        EXPECT_EQ(burst(setup(1, "20us")), burst("") + Time::us(20));
    }
}

TEST(PeerSetup, BadValuesAreOneLineNamingFileAndLine) {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {setup(0, "1us"), "'after': '0' is not valid"},
        {R"(<mpi-overhead><peer-setup after="-1" time="1us"/></mpi-overhead>)", "after"},
        {R"(<mpi-overhead><peer-setup after="1.5" time="1us"/></mpi-overhead>)", "after"},
        {setup(16, "10"), "missing unit"},
        {setup(16, "-1us"), "without a sign"},
        {R"(<mpi-overhead><peer-setup time="1us"/></mpi-overhead>)", "'after'"},
        {R"(<mpi-overhead><peer-setup after="16"/></mpi-overhead>)", "'time'"},
        {R"(<mpi-overhead><peer-setup after="16" time="1us" every="2"/></mpi-overhead>)", "every"},
        {R"(<mpi-overhead><peer-setup after="1" time="1us"/><peer-setup after="2" time="1us"/></mpi-overhead>)",
         "second <peer-setup>"},
    };
    testing::expect_input_errors(bad, "setup.xml:6",
                                 [](const std::string& xml) { (void)pair(xml); });
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
