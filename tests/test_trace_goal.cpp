// GOAL schedules (issue 58, traces/goal.hpp): every construct of LogGOPSim's text format read
// into the graph it means; schedules of our own against their LogGOPS closed forms on a
// uniform star under the simple model (every message L + m/B, independent of the others, a
// send complete once injected, m/B after it starts; 2.5 G instructions/s cores; no software
// overheads), the dependencies kept (irequires overlaps what requires serialises); a trace
// written as GOAL and read back replays to the same simulated time, events and bytes; each
// bad input is one line naming file:line with exit code 2.
#include <cmath>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"
#include "simulator/error.hpp"
#include "traces/goal.hpp"
#include "traces/reader.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::testing;
using traces::GoalKind;
using traces::GoalSchedule;

constexpr double kL = 1e-6, kB = 1e9;
const std::string kNetwork =
    " --network simple:latency=1us,bandwidth=1GB/s,intra-latency=0s,collectives=messages";

nlohmann::json run_goal(const std::string& path, const std::string& more = "") {
    const Result r = testing::run("run " + example("star-16.xml") + " --app trace:" + path +
                                  kNetwork + more + " --json");
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}
double simulated(const nlohmann::json& j) {
    return j.at("simulated_time_s").get<double>();
}

// ---- the format ----

TEST(GoalRead, EveryConstructBecomesTheGraphItMeans) {
    const std::string text =
        "// a schedule of every construct\n"
        "/* a comment\n   over two lines */ num_ranks 3\n"
        "\n"
        "rank 1 {\n"
        "a: recv 16b from -1 tag -1\n"
        "b: send 8 b to 2 tag 7 cpu 1 nic 0   // size and b apart, cpu and nic read\n"
        "c: calc 1500 cpu 0\n"
        "recv 4b from 0\n"  // no label: nothing can depend on it
        "b requires a\n"
        "c irequires b\n"
        "c requires a\n"
        "}\n"
        "rank 0 {\n"
        "send 4b to 1\n"
        "x: send 16b to 1 tag 3\n"
        "}";  // blocks in any order, rank 2 without one, no newline at the end
    const GoalSchedule s = traces::parse_goal(text, "every.goal");
    ASSERT_EQ(s.ranks, 3u);
    EXPECT_EQ(s.count[0], 2u);
    EXPECT_EQ(s.count[1], 4u);
    EXPECT_EQ(s.count[2], 0u);
    ASSERT_EQ(s.ops.size(), 6u);
    const traces::GoalOp* r1 = &s.ops[s.begin[1]];
    EXPECT_EQ(r1[0].kind, GoalKind::Recv);
    EXPECT_EQ(r1[0].peer, -1);
    EXPECT_EQ(r1[0].tag, -1);
    EXPECT_EQ(r1[0].size, 16u);
    EXPECT_EQ(r1[0].line, 6u);  // after the comment over lines 2-3 and a blank line
    EXPECT_EQ(r1[1].kind, GoalKind::Send);
    EXPECT_EQ(r1[1].peer, 2);
    EXPECT_EQ(r1[1].tag, 7);
    EXPECT_EQ(r1[1].size, 8u);
    EXPECT_EQ(r1[2].kind, GoalKind::Calc);
    EXPECT_EQ(r1[2].size, 1500u);
    EXPECT_EQ(r1[3].tag, 0);  // no tag: 0
    EXPECT_EQ(s.ops[s.begin[0] + 1].tag, 3);
    EXPECT_EQ(s.annotated, 2u);
    // a -> b (completed), a -> c (completed), b -> c (started); c depends on two.
    const std::uint64_t a = s.begin[1], b = a + 1, c = a + 2;
    EXPECT_EQ(s.deps[a], 0u);
    EXPECT_EQ(s.deps[b], 1u);
    EXPECT_EQ(s.deps[c], 2u);
    ASSERT_EQ(s.succ_begin[a + 1] - s.succ_begin[a], 2u);
    EXPECT_EQ(s.succ[s.succ_begin[a]], 1u);
    EXPECT_EQ(s.succ[s.succ_begin[a] + 1], 2u);
    ASSERT_EQ(s.succ_begin[b + 1] - s.succ_begin[b], 1u);
    EXPECT_EQ(s.succ[s.succ_begin[b]], 2u | GoalSchedule::kStartEdge);
    EXPECT_EQ(s.succ_begin.size(), s.ops.size() + 1);
}

TEST(GoalRead, DetectedByNameOrFirstWord) {
    EXPECT_TRUE(traces::looks_like_goal("x.goal", ""));
    EXPECT_TRUE(traces::looks_like_goal("x.txt", "// c\n/* c */\nnum_ranks 4\n"));
    EXPECT_FALSE(traces::looks_like_goal("x.txt", "clustersim-trace 1\n"));
}

// ---- closed forms ----

// LogGOPSim's binomial tree (as its binary_tree_32.goal): rank r receives from r minus its
// highest bit and then sends, all at once, to r + 2^j for every 2^j above r.
std::string binomial_bcast(int p, std::uint64_t bytes) {
    std::string s = fmt::format("num_ranks {}\n", p);
    for (int r = 0; r < p; ++r) {
        s += fmt::format("rank {} {{\n", r);
        int high = 0;
        while ((2 << high) <= r) ++high;
        if (r > 0) s += fmt::format("v: recv {}b from {} tag 0\n", bytes, r - (1 << high));
        int n = 0;
        for (int d = r == 0 ? 1 : 2 << high; r + d < p; d <<= 1) {
            s += fmt::format("s{}: send {}b to {} tag 0\n", n, bytes, r + d);
            if (r > 0) s += fmt::format("s{} requires v\n", n);
            ++n;
        }
        s += "}\n";
    }
    return s;
}

TEST(GoalClosedForm, BinomialBcastIsLog2PMessageTimes) {
    // The deepest rank is the one with the most bits set: log2 p hops for p a power of two,
    // each L + m/B.
    for (const int p : {8, 16}) {
        const std::string path =
            write_temp(fmt::format("bcast{}.goal", p), binomial_bcast(p, 1024));
        const nlohmann::json j = run_goal(path);
        EXPECT_NEAR(simulated(j), std::log2(p) * (kL + 1024 / kB), 1e-12) << p;
        EXPECT_EQ(j.at("network").at("messages").get<int>(), p - 1);
        EXPECT_EQ(j.at("network").at("bytes_sent").get<int>(), (p - 1) * 1024);
    }
}

std::string dissemination_barrier(int p) {
    std::string s = fmt::format("num_ranks {}\n", p);
    for (int r = 0; r < p; ++r) {
        s += fmt::format("rank {} {{\n", r);
        int k = 0;
        for (int d = 1; d < p; d <<= 1, ++k) {
            s += fmt::format("s{}: send 0b to {} tag {}\n", k, (r + d) % p, k);
            s += fmt::format("v{}: recv 0b from {} tag {}\n", k, (r - d + p) % p, k);
            if (k > 0)
                s += fmt::format("s{} requires v{}\nv{} irequires v{}\n", k, k - 1, k, k - 1);
        }
        s += "}\n";
    }
    return s;
}

TEST(GoalClosedForm, DisseminationBarrierIsCeilLog2PLatencies) {
    for (const int p : {5, 8, 12}) {
        const std::string path =
            write_temp(fmt::format("barrier{}.goal", p), dissemination_barrier(p));
        const nlohmann::json j = run_goal(path);
        EXPECT_NEAR(simulated(j), std::ceil(std::log2(p)) * kL, 1e-12) << p;
        EXPECT_EQ(j.at("network").at("messages").get<int>(),
                  p * static_cast<int>(std::ceil(std::log2(p))));
    }
}

// A message of `k` segments of `s` bytes passed along the ring 0 -> 1 -> ... -> p-1: rank i
// forwards segment j once it has received it. `overlap`: a send irequires the send of the
// segment before (it goes as soon as its segment is here); otherwise it requires it (it waits
// until the previous one is injected, s/B).
std::string pipelined_ring(int p, int k, std::uint64_t s, bool overlap) {
    std::string t = fmt::format("num_ranks {}\n", p);
    for (int r = 0; r < p; ++r) {
        t += fmt::format("rank {} {{\n", r);
        for (int j = 0; j < k; ++j) {
            if (r > 0) {
                t += fmt::format("v{}: recv {}b from {} tag {}\n", j, s, r - 1, j);
                if (j > 0) t += fmt::format("v{} irequires v{}\n", j, j - 1);
            }
            if (r + 1 < p) {
                t += fmt::format("s{}: send {}b to {} tag {}\n", j, s, r + 1, j);
                if (r > 0) t += fmt::format("s{} requires v{}\n", j, j);
                if (j > 0)
                    t += fmt::format("s{} {} s{}\n", j, overlap ? "irequires" : "requires", j - 1);
            }
        }
        t += "}\n";
    }
    return t;
}

TEST(GoalClosedForm, PipelinedRingOverlapsWithIrequires) {
    const int p = 6, k = 4;
    const std::uint64_t s = 1000;
    const double tau = s / kB;
    // Sends one after the other: segment j reaches rank i at (j + i - 1) tau + i L, so the last
    // one (p - 1)(L + tau) + (k - 1) tau. With irequires the k segments travel together:
    // (p - 1)(L + tau).
    const nlohmann::json serial =
        run_goal(write_temp("ring-serial.goal", pipelined_ring(p, k, s, false)));
    EXPECT_NEAR(simulated(serial), (p - 1) * (kL + tau) + (k - 1) * tau, 1e-12);
    const nlohmann::json overlap =
        run_goal(write_temp("ring-overlap.goal", pipelined_ring(p, k, s, true)));
    EXPECT_NEAR(simulated(overlap), (p - 1) * (kL + tau), 1e-12);
    EXPECT_EQ(overlap.at("network").at("messages").get<int>(), (p - 1) * k);
}

TEST(GoalClosedForm, CalcOccupiesTheCoreWhileMessagesGo) {
    // Rank 0 computes 1.5 us, then sends 1 KiB; rank 1's receive is posted at once and its
    // 5 us calc runs meanwhile (the message is there at 1.5 + 2.024 us); the 1 us calc that
    // requires both follows: 6 us. Rank 1's 0.25 us calc irequires the receive: it may start
    // with it, and runs first (file order).
    const std::string path = write_temp("calc.goal",
                                        "num_ranks 2\n"
                                        "rank 0 {\n"
                                        "c: calc 1500\n"
                                        "s: send 1024b to 1 tag 5\n"
                                        "s requires c\n"
                                        "}\n"
                                        "rank 1 {\n"
                                        "r: recv 1024b from 0 tag 5\n"
                                        "i: calc 250\n"
                                        "w: calc 5000\n"
                                        "d: calc 1000\n"
                                        "i irequires r\n"
                                        "d requires r\n"
                                        "d requires w\n"
                                        "}\n");
    const nlohmann::json j = run_goal(path);
    EXPECT_NEAR(simulated(j), 0.25e-6 + 5e-6 + 1e-6, 1e-12);
    // Without the long calc, the message decides: 1.5 us + L + m/B, then 1 us.
    const std::string path2 = write_temp("calc2.goal",
                                         "num_ranks 2\n"
                                         "rank 0 {\nc: calc 1500\ns: send 1024b to 1 tag 5\n"
                                         "s requires c\n}\n"
                                         "rank 1 {\nr: recv 1024b from 0 tag 5\nd: calc 1000\n"
                                         "d requires r\n}\n");
    EXPECT_NEAR(simulated(run_goal(path2)), 1.5e-6 + kL + 1024 / kB + 1e-6, 1e-12);
    // --traced-speed: a calc of N ns is N ns on a core of that speed: at 5 G instructions/s
    // the target's 2.5 G cores take twice as long.
    EXPECT_NEAR(simulated(run_goal(path2, " --traced-speed 5G")), 3e-6 + kL + 1024 / kB + 2e-6,
                1e-12);
}

// ---- a trace written as GOAL ----

const char* kTrace =
    "clustersim-trace 1\n"
    "rank 0\n"
    "compute time=15us\n"
    "send peer=1 tag=0 bytes=1KiB\n"
    "isend peer=1 tag=1 bytes=1MiB handle=0\n"
    "irecv peer=3 tag=2 bytes=2KiB handle=1\n"
    "compute time=10us\n"
    "wait handle=1\n"
    "compute time=3us\n"
    "wait handle=0\n"
    "sendrecv peer=1 tag=3 bytes=100B peer2=1 tag2=4 bytes2=200B\n"
    "recv peer=any tag=any bytes=8B\n"
    "rank 1\n"
    "recv peer=0 tag=0 bytes=1KiB\n"
    "irecv peer=0 tag=1 bytes=1MiB handle=5\n"
    "compute time=20us\n"
    "wait handle=5\n"
    "sendrecv peer=0 tag=4 bytes=200B peer2=0 tag2=3 bytes2=100B\n"
    "send peer=0 tag=9 bytes=8B\n"
    "rank 2\n"
    "compute time=7us\n"
    "isend peer=3 tag=0 bytes=64KiB handle=2\n"
    "irecv peer=3 tag=1 bytes=64KiB handle=3\n"
    "waitall handle=2 count=2\n"
    "compute time=1us\n"
    "rank 3\n"
    "irecv peer=2 tag=0 bytes=64KiB handle=0\n"
    "isend peer=2 tag=1 bytes=64KiB handle=1\n"
    "compute time=5us\n"
    "send peer=0 tag=2 bytes=2KiB\n"
    "waitall handle=0 count=2\n";

TEST(GoalWrite, ATraceAsGoalReplaysTheSame) {
    const std::string trace = write_temp("p2p.trace", kTrace);
    const std::string goal = temp_path("p2p.goal");
    const Result c = testing::run("convert " + trace + " " + goal);  // .goal: --to goal
    ASSERT_EQ(c.code, 0) << c.err;
    EXPECT_NE(c.out.find("goal format"), std::string::npos) << c.out;
    const nlohmann::json a = run_goal(trace), b = run_goal(goal);
    EXPECT_EQ(simulated(a), simulated(b));
    EXPECT_EQ(a.at("events"), b.at("events"));
    EXPECT_EQ(a.at("network").at("messages"), b.at("network").at("messages"));
    EXPECT_EQ(a.at("network").at("bytes_sent"), b.at("network").at("bytes_sent"));
    // The replay is not trivially short: rank 0's compute alone is 28 us, a 1 MiB message ~1 ms.
    EXPECT_GT(simulated(a), 1e-3);
    // Also under a model with software overheads and rendezvous hand-shakes (the default
    // network of the example), and with the calc times projected by --traced-speed.
    for (const std::string& more : {std::string(""), std::string(" --traced-speed 1G")}) {
        const auto plain = [&](const std::string& path) {
            const Result r = testing::run("run " + example("star-16.xml") + " --app trace:" + path +
                                          more + " --json");
            EXPECT_EQ(r.code, 0) << r.err;
            return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
        };
        const nlohmann::json x = plain(trace), y = plain(goal);
        EXPECT_EQ(simulated(x), simulated(y)) << more;
        EXPECT_EQ(x.at("events"), y.at("events")) << more;
        EXPECT_EQ(x.at("network").at("bytes_sent"), y.at("network").at("bytes_sent")) << more;
    }
}

TEST(GoalWrite, ARunsSimulatedTraceAsGoalReplaysTheSame) {
    // run --out's simulated.cstrace holds compute as instructions with the interval each
    // took (no traced speed): written as calcs of those intervals.
    const std::string trace = write_temp("sim.trace", kTrace);
    const std::string dir = temp_path("out");
    const Result r = testing::run("run " + example("star-16.xml") + " --app trace:" + trace +
                                  kNetwork + " --out " + dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string goal = temp_path("sim.goal");
    const Result c = testing::run("convert " + dir + "/simulated.cstrace " + goal);
    ASSERT_EQ(c.code, 0) << c.err;
    const nlohmann::json a = run_goal(trace), b = run_goal(goal);
    EXPECT_EQ(simulated(a), simulated(b));
    EXPECT_EQ(a.at("events"), b.at("events"));
    EXPECT_EQ(a.at("network").at("bytes_sent"), b.at("network").at("bytes_sent"));
}

TEST(GoalWrite, ProgramOrderBecomesDependencies) {
    traces::Trace t;
    t.resize(1);
    traces::Record r;
    r.kind = mpi::OpKind::Isend;  // l1
    r.peer = 0;
    r.bytes = 8;
    r.handle = 4;
    t.append(0, r);
    r.kind = mpi::OpKind::Irecv;  // l2: posted after l1
    r.handle = 5;
    t.append(0, r);
    r.kind = mpi::OpKind::Waitall;
    r.handle = 4;
    r.count = 2;
    t.append(0, r);
    traces::Record c;
    c.compute_time = Time::ns(1500);  // l3: after both completed
    t.append(0, c);
    r.kind = mpi::OpKind::Send;  // l4: after l3
    r.count = 0;
    t.append(0, r);
    const std::string g = traces::goal_text(t);
    EXPECT_NE(g.find("num_ranks 1\n"), std::string::npos) << g;
    EXPECT_NE(g.find("l1: send 8b to 0 tag 0\nl2: recv 8b from 0 tag 0\nl2 irequires l1\n"
                     "l3: calc 1500\nl3 requires l1\nl3 requires l2\nl4: send 8b to 0 tag 0\n"
                     "l4 requires l3\n}\n"),
              std::string::npos)
        << g;
    // What it writes, it reads.
    const GoalSchedule s = traces::parse_goal(g, "written.goal");
    EXPECT_EQ(s.ops.size(), 4u);
    EXPECT_EQ(s.deps[3], 1u);
}

TEST(GoalWrite, CollectivesAndOtherCommunicatorsAreRefused) {
    // Collectives are expanded (tests/test_trace_goal_coll.cpp); on a communicator the trace
    // never made, refused.
    expect_bad_input(
        "convert " +
            write_temp("coll.trace", "clustersim-trace 1\nrank 0\nbcast bytes=8B comm=1\n") + " " +
            temp_path("coll.goal"),
        "rank 0, record 1 (bcast): communicator 1 is not one the rank created");
    expect_bad_input(
        "convert " +
            write_temp("comm.trace",
                       "clustersim-trace 1\nrank 0\nsend peer=0 tag=0 bytes=8B comm=1\n") +
            " " + temp_path("comm.goal"),
        "communicator 1");
    expect_bad_input(
        "convert " +
            write_temp("instr.trace", "clustersim-trace 1\nrank 0\ncompute instructions=1000\n") +
            " " + temp_path("instr.goal"),
        "no traced speed");
    expect_bad_input("convert x y --to gaol", "did you mean 'goal'");
    // A schedule is not a trace of records: convert says so.
    const std::string g = write_temp("in.goal", "num_ranks 1\nrank 0 {\ncalc 1\n}\n");
    expect_bad_input("convert " + g + " " + temp_path("out.cstrace"), "a graph of dependencies");
}

// ---- bad schedules ----

TEST(GoalRead, BadSchedulesNameFileAndLine) {
    const auto bad = [](const std::string& name, const std::string& text,
                        const std::string& needle) {
        const std::string path = write_temp(name + ".goal", text);
        expect_bad_input("run " + example("star-16.xml") + " --app trace:" + path,
                         path + ":" + needle);
    };
    bad("keyword", "num_ranks 2\nrank 0 {\nl1: sned 8b to 1\n}\n",
        "3: expected send, recv or calc");
    bad("unknown", "num_ranks 2\nrank 0 {\nbogus 8\n}\n", "3: 'bogus' is not a GOAL keyword");
    bad("undefined", "num_ranks 2\nrank 0 {\na: calc 1\na requires b\n}\n",
        "4: label 'b' is not defined");
    bad("before", "num_ranks 2\nrank 0 {\na: calc 1\na requires b\nb: calc 1\n}\n",
        "4: label 'b' is not defined in rank 0 before this line");
    bad("cycle",
        "num_ranks 1\nrank 0 {\na: calc 1\nb: calc 1\nc: calc 1\nb requires a\n"
        "c requires b\nb irequires c\n}\n",
        "4: rank 0: this operation depends on itself");
    bad("self", "num_ranks 1\nrank 0 {\na: calc 1\na requires a\n}\n", "3: rank 0: this operation");
    bad("rank", "num_ranks 2\nrank 2 {\n}\n", "2: rank 2 is out of range: num_ranks is 2");
    bad("peer", "num_ranks 2\nrank 0 {\nsend 8b to 5\n}\n", "3: peer rank 5 is out of range");
    bad("size", "num_ranks 2\nrank 0 {\nsend 18446744073709551616b to 1\n}\n",
        "3: a send's size in bytes 18446744073709551616 does not fit in 64 bits");
    bad("calc", "num_ranks 1\nrank 0 {\ncalc 9223372036854776\n}\n", "3: calc 9223372036854776 ns");
    bad("huge", "num_ranks 1000000000000\n", "1: num_ranks 1000000000000: a schedule has 1 to");
    bad("idle", "num_ranks 16777216\nrank 0 {\n}\n",
        "1: num_ranks 16777216 with 1 rank blocks: at most 65536 ranks without a block");
    bad("twice", "num_ranks 2\nrank 0 {\n}\nrank 0 {\n}\n", "4: a second block of rank 0");
    bad("open", "num_ranks 2\nrank 0 {\ncalc 1\n", "2: the block of rank 0 is never closed");
    bad("comment", "num_ranks 2\n/* never\nclosed\n", "2: a /* comment that is never closed");
    bad("nonum", "rank 0 {\n}\n", "1: a rank block before the num_ranks line");
    bad("anysend", "num_ranks 2\nrank 0 {\nsend 8b to -1\n}\n", "3: a send to -1");
    bad("tag", "num_ranks 2\nrank 0 {\nsend 8b to 1 tag 2147483648\n}\n", "3: tag 2147483648");
    bad("dup", "num_ranks 2\nrank 0 {\na: calc 1\na: calc 2\n}\n",
        "4: label 'a' is defined twice in rank 0 (first on line 3)");
    bad("byte", "num_ranks 2\nrank 0 {\nsend 8 to 1\n}\n", "3: expected 'b' after the size");
    bad("char", "num_ranks 2\nrank 0 {\ncalc 1 $\n}\n", "3: unexpected character '$'");
    bad("trail", "num_ranks 2\nrank 0 {\ncalc 1 tag 3\n}\n", "3: expected the end of the line");
}

TEST(GoalRead, AReceiveNeverMatchedIsTheRunsDeadlock) {
    const std::string path =
        write_temp("dead.goal", "num_ranks 2\nrank 0 {\n}\nrank 1 {\nr: recv 8b from 0 tag 1\n}\n");
    const Result r = testing::run("run " + example("star-16.xml") + " --app trace:" + path);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("deadlock"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("rank 1 in Wait"), std::string::npos) << r.err;
}

TEST(GoalRead, FormatGoalReadsAnyName) {
    const std::string path = write_temp("sched.txt", "num_ranks 1\nrank 0 {\ncalc 2000\n}\n");
    EXPECT_NEAR(simulated(run_goal(path, " --format goal")), 2e-6, 1e-12);
    EXPECT_NEAR(simulated(run_goal(path)), 2e-6, 1e-12);  // its first word says GOAL
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
