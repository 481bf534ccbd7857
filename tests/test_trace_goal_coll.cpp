// Collectives written as GOAL (issue 58, traces/goal_writer.cpp): `convert --to goal`
// expands each collective on MPI_COMM_WORLD into the schedule of the algorithm a run would
// choose (the model's rules, --algorithm, --mpi), so the GOAL file moves exactly the
// messages the simulator's own collective executor moves. Checked on a uniform star under
// the simple model with collectives run as their messages (every message L + m/B, nothing
// shared): a trace of bcast, allreduce, alltoall, barrier, reduce, allgather, a nonblocking
// allreduce and point-to-point calls, replayed directly and as GOAL, gives the identical
// simulated time, messages and bytes, for the default choices and for named algorithms
// (pipelined ones too: their transfers that wait for one transfer of the step before keep
// that dependency). The reductions are calcs at the model's cores' speed (1 instruction per
// byte at 2.5 G instructions/s: 0.4 ns a byte, whole nanoseconds for the sizes below).
#include <fstream>
#include <iterator>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"
#include "collectives/collective.hpp"
#include "collectives/selection.hpp"
#include "traces/goal.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::testing;

const std::string kNetwork =
    " --network simple:latency=1us,bandwidth=1GB/s,intra-latency=0s,collectives=messages";

// Every rank: skewed compute, then the collectives and a ring exchange.
std::string collective_trace(int p) {
    std::string t = "clustersim-trace 1\n";
    for (int r = 0; r < p; ++r) {
        t += fmt::format("rank {}\n", r);
        t += fmt::format("compute time={}us\n", r + 1);
        t += "bcast bytes=100KiB root=3\n";
        t += "allreduce bytes=1000B\n";
        t += "alltoall bytes=20KiB\n";
        // A nonblocking allreduce around a ring exchange (no compute of the rank's own while
        // it runs: a run shares the core between that and the reductions, GOAL runs one
        // calc at a time).
        t += "iallreduce bytes=8000B handle=1\n";
        t += fmt::format("isend peer={} tag=5 bytes=4KiB handle=2\n", (r + 1) % p);
        t += fmt::format("irecv peer={} tag=5 bytes=4KiB handle=3\n", (r + p - 1) % p);
        t += "waitall handle=2 count=2\n";
        t += "wait handle=1\n";
        t += fmt::format("compute time={}us\n", 2 * (p - r));
        t += "barrier\n";
        t += "allgather bytes=3000B\n";
        t += "reduce bytes=5000B root=1\n";
        t += "allreduce bytes=200KiB\n";
    }
    return t;
}

nlohmann::json replay(const std::string& path, const std::string& algorithms) {
    const Result r = testing::run("run " + example("star-16.xml") + " --app trace:" + path +
                                  kNetwork + algorithms + " --json");
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

TEST(GoalCollectives, ExpandedScheduleReplaysToTheSameTimeAndBytes) {
    const std::string trace = write_temp("coll.trace", collective_trace(8));
    const std::vector<std::string> choices{
        "",
        " --algorithm bcast=binomial --algorithm allreduce=recursive_doubling --algorithm "
        "alltoall=pairwise --algorithm barrier=dissemination",
        " --algorithm bcast=pipeline:segment=16KiB --algorithm allreduce=ring --algorithm "
        "alltoall=bruck --algorithm barrier=binary_tree --algorithm reduce=pipeline:segment=1000B",
        " --algorithm bcast=scatter_allgather --algorithm allreduce=rabenseifner --algorithm "
        "alltoall=linear --algorithm allgather=ring --algorithm reduce=binomial",
        " --algorithm bcast=pipelined_chain:segment=8KiB --algorithm allreduce=segmented_ring "
        "--algorithm barrier=double_ring --algorithm allgather=bruck",
    };
    for (std::size_t i = 0; i < choices.size(); ++i) {
        const std::string goal = temp_path(fmt::format("coll{}.goal", i));
        const Result c = testing::run("convert " + trace + " " + goal + " --model " +
                                      example("star-16.xml") + choices[i]);
        ASSERT_EQ(c.code, 0) << c.err;
        EXPECT_NE(c.out.find("collectives expanded"), std::string::npos) << c.out;
        const nlohmann::json a = replay(trace, choices[i]), b = replay(goal, "");
        EXPECT_EQ(a.at("simulated_time_s"), b.at("simulated_time_s")) << choices[i];
        EXPECT_EQ(a.at("network").at("messages"), b.at("network").at("messages")) << choices[i];
        EXPECT_EQ(a.at("network").at("bytes_sent"), b.at("network").at("bytes_sent")) << choices[i];
        // Not trivially short: the 200 KiB allreduce alone moves its buffer at 1 GB/s.
        EXPECT_GT(a.at("simulated_time_s").get<double>(), 200e3 / 1e9) << choices[i];
    }
}

TEST(GoalCollectives, ABcastOfFourRanksIsItsBinomialTree) {
    // Rank 0's binomial bcast on 4 ranks: send to 2, then to 1, each after the one before
    // (the schedule's steps); rank 3 receives from 2. One tag per call above the trace's.
    traces::Trace t;
    t.resize(4);
    traces::Record b;
    b.kind = mpi::OpKind::Collective;
    b.coll = mpi::CollOp::Bcast;
    b.bytes = 64;
    traces::Record s;
    s.kind = mpi::OpKind::Send;
    s.tag = 41;
    s.peer = 1;
    s.bytes = 8;
    t.append(0, s);
    for (std::uint32_t r = 0; r < 4; ++r) t.append(r, b);
    mpi::CollectiveRegistry registry;
    mpi::register_builtin_collectives(registry);
    const mpi::Selection selection(registry, mpi::MpiSettings{}, "", {"bcast=binomial"});
    traces::GoalCollectives coll;
    coll.selection = &selection;
    const std::string g = traces::goal_text(t, coll);
    EXPECT_NE(g.find("rank 0 {\nl1: send 8b to 1 tag 41\n// bcast 64 B: bcast/binomial, tag 42\n"
                     "l2: send 64b to 2 tag 42\nl2 requires l1\nl3: send 64b to 1 tag 42\n"
                     "l3 requires l2\n}\n"),
              std::string::npos)
        << g;
    EXPECT_NE(
        g.find("rank 3 {\n// bcast 64 B: bcast/binomial, tag 42\nl1: recv 64b from 2 tag 42\n}"),
        std::string::npos)
        << g;
    const traces::GoalSchedule read = traces::parse_goal(g, "bcast.goal");
    EXPECT_EQ(read.ops.size(), 7u);  // rank 0: 3; rank 2: a receive and a send; 1 and 3: one
}

TEST(GoalCollectives, SubCommunicatorsMapTheirRanksToWorldRanks) {
    // Two halves by MPI_Comm_split (even and odd ranks, keys reversed: rank 6 is rank 0 of
    // the even half), a duplicate of each, collectives on all three and on the world; the
    // creations come first, where every rank starts at 0 (a run synchronises the members of
    // a creation, GOAL has no such call).
    std::string t = "clustersim-trace 1\n";
    for (int r = 0; r < 8; ++r) {
        t += fmt::format("rank {}\ncomm_split comm=0 color={} key={} newcomm=1\n", r, r % 2, 7 - r);
        t += "comm_dup comm=1 newcomm=2\n";
        t += fmt::format("compute time={}us\n", r + 1);
        t += "allreduce bytes=1000B comm=1\nbcast bytes=64KiB root=1 comm=1\nbarrier comm=2\n";
        t += "allreduce bytes=8000B\ncomm_free comm=2\nalltoall bytes=2KiB comm=1\n";
    }
    const std::string trace = write_temp("sub.trace", t);
    const std::string goal = temp_path("sub.goal");
    for (const std::string& choice :
         {std::string(""), std::string(" --algorithm allreduce=ring --algorithm bcast=pipeline:"
                                       "segment=8KiB --algorithm alltoall=pairwise")}) {
        const Result c = testing::run("convert " + trace + " " + goal + " --model " +
                                      example("star-16.xml") + choice);
        ASSERT_EQ(c.code, 0) << c.err;
        const nlohmann::json a = replay(trace, choice), b = replay(goal, "");
        EXPECT_EQ(a.at("simulated_time_s"), b.at("simulated_time_s")) << choice;
        EXPECT_EQ(a.at("network").at("messages"), b.at("network").at("messages")) << choice;
        EXPECT_EQ(a.at("network").at("bytes_sent"), b.at("network").at("bytes_sent")) << choice;
    }
    std::ifstream f(goal);
    const std::string g((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    // Rank 6 is the even half's rank 0, and of its duplicate; rank 0 their rank 3.
    EXPECT_NE(g.find("rank 6 {\n// comm_split: communicator 1 of 4 ranks\n// comm_dup: "
                     "communicator 3 of 4 ranks\n"),
              std::string::npos)
        << g.substr(0, 2000);
    EXPECT_NE(g.find("on communicator 1 (rank 3 of 4)"), std::string::npos);
}

TEST(GoalCollectives, WhatGoalCannotExpressIsRefusedNamingRankAndRecord) {
    const auto trace = [](const std::string& name, const std::string& body) {
        return write_temp(name, "clustersim-trace 1\nrank 0\n" + body + "rank 1\n" + body);
    };
    // A communicator with a topology; a creation not every member makes.
    expect_bad_input(
        "convert " +
            trace("cart.trace", "cart_create comm=0 newcomm=1 dims=2 periods=0 reorder=0\n") + " " +
            temp_path("cart.goal"),
        "rank 0, record 1 (cart_create): a communicator with a process topology");
    expect_bad_input("convert " +
                         write_temp("half.trace",
                                    "clustersim-trace 1\nrank 0\ncomm_split comm=0 color=0 key=0 "
                                    "newcomm=1\nrank 1\nbarrier\n") +
                         " " + temp_path("half.goal"),
                     "rank 0, record 1 (comm_split): a communicator creation that not every "
                     "member of its communicator makes");
    // An algorithm without messages.
    expect_bad_input("convert " + trace("virt.trace", "barrier\n") + " " + temp_path("virt.goal") +
                         " --algorithm barrier=virtual",
                     "rank 0, record 1 (barrier): barrier/virtual completes once every rank has "
                     "entered, without messages");
    // A receive of any tag could take a collective's message.
    expect_bad_input(
        "convert " +
            write_temp("any.trace",
                       "clustersim-trace 1\nrank 0\nbarrier\nsend peer=1 tag=3 bytes=8B\n"
                       "rank 1\nbarrier\nrecv peer=0 tag=any bytes=8B\n") +
            " " + temp_path("any.goal"),
        "rank 1, record 2 (recv): a receive of any tag (MPI_ANY_TAG) in a trace with "
        "collectives");
    // Reductions priced at the cores' speed need one speed: refused at the first reduction
    // of a model whose sockets differ, not before (a barrier has none).
    const std::string mixed = write_temp(
        "mixed.xml",
        "<cluster name=\"mixed\">\n<node-type name=\"node\" memory=\"1GiB\">\n"
        "<socket name=\"s0\" cores=\"1\" speed=\"2.5G\"/>\n"
        "<socket name=\"s1\" cores=\"1\" speed=\"2G\"/>\n"
        "<memory-node name=\"mem0\" bandwidth=\"20GB/s\"/>\n"
        "<nic name=\"nic\" bandwidth=\"12.5GB/s\"/>\n"
        "<cable from=\"s0\" to=\"mem0\" latency=\"100ns\" bandwidth=\"20GB/s\"/>\n"
        "<cable from=\"s1\" to=\"mem0\" latency=\"100ns\" bandwidth=\"20GB/s\"/>\n"
        "<cable from=\"nic\" to=\"mem0\" latency=\"500ns\" bandwidth=\"16GB/s\"/>\n"
        "</node-type>\n<star type=\"node\" nodes=\"2\" prefix=\"n\" switch=\"sw\" "
        "switch-bandwidth=\"200GB/s\" link-latency=\"1us\" link-bandwidth=\"100Gbit/s\"/>\n"
        "</cluster>\n");
    EXPECT_EQ(testing::run("convert " + trace("bar.trace", "barrier\n") + " " +
                           temp_path("bar.goal") + " --model " + mixed)
                  .code,
              0);
    expect_bad_input("convert " + trace("red.trace", "allreduce bytes=64B\n") + " " +
                         temp_path("red.goal") + " --model " + mixed,
                     "its cores differ in speed, so a reduction's time depends on the rank's core");
    // The flags that choose the expansion only with --to goal; a bad one names itself.
    expect_bad_input("convert " + trace("x.trace", "barrier\n") + " " + temp_path("x.txt") +
                         " --algorithm barrier=linear",
                     "--algorithm: chooses how collectives are expanded into GOAL; the output is "
                     "text");
    expect_bad_input("convert " + trace("y.trace", "barrier\n") + " " + temp_path("y.goal") +
                         " --algorithm barrier=binomal",
                     "binomal");
    expect_bad_input(
        "convert " + trace("z.trace", "barrier\n") + " " + temp_path("z.goal") + " --mpi openmpi_5",
        "--mpi");
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
