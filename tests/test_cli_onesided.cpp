// One-sided communication in the simulator (issue 54, mpi/onesided.cpp): closed forms on a
// uniform star under the simple model (each message L + m/B, nothing shared; 2.5 G
// instructions/s cores, reductions at 1 instruction a byte). Each case runs a two-rank trace
// with and without the operation between two fences; the difference is the operation:
//   put m:             the data, then the target's ack        2L + m/B
//   get m:             a request, then the data back          2L + m/B
//   accumulate m:      the data, combining at the target, ack 2L + m/B + m/speed
//   get_accumulate m:  the data, combining, the old data back 2L + 2m/B + m/speed
//   put above the eager threshold: rendezvous, two trips more 4L + m/B
// and each adds exactly its messages (a put: the data and the ack, no receive call). Locks:
// two exclusive locks on one target serialise, two shared ones do not; lock_all sends
// nothing. Misuse is one line naming the rank and the call.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::testing;

constexpr double kL = 1e-6, kB = 1e9, kSpeed = 2.5e9;

// Runs a native text trace (its rank blocks) on the uniform star.
nlohmann::json run_trace(const std::string& ranks) {
    const std::string path = temp_path("rma.trace");
    std::ofstream(path) << "clustersim-trace 1\nname rma\n" << ranks;
    const Result r = testing::run("run " + example("star-16.xml") + " --app trace:" + path +
                                  " --network simple:latency=1us,bandwidth=1GB/s,intra-latency=0s,"
                                  "collectives=messages --json --per-rank");
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

// Rank 0 makes `op` on rank 1 between two fences.
nlohmann::json fenced(const std::string& op) {
    return run_trace("rank 0\nwin_create win=1 bytes=1MiB\nwin_fence win=1\n" + op +
                     "\nwin_fence win=1\nwin_free win=1\n"
                     "rank 1\nwin_create win=1 bytes=1MiB\nwin_fence win=1\nwin_fence win=1\n"
                     "win_free win=1\n");
}
double seconds(const nlohmann::json& j) {
    return j.at("simulated_time_s").get<double>();
}
int messages(const nlohmann::json& j) {
    return j.at("network").at("messages").get<int>();
}

TEST(OneSided, EachOperationBetweenFencesIsItsClosedForm) {
    const nlohmann::json none = fenced("");
    // Without an operation: a 16-byte allgather to make the window, two barriers, one more to
    // free it, each a single trip on two ranks.
    EXPECT_NEAR(seconds(none), (kL + 16 / kB) + 3 * kL, 1e-12);
    const double m = 4096;
    const struct {
        const char* op;
        double t;
        int messages;
    } cases[] = {
        {"put peer=1 bytes=4KiB win=1", 2 * kL + m / kB, 2},
        {"get peer=1 bytes=4KiB win=1", 2 * kL + m / kB, 2},
        {"accumulate peer=1 bytes=4KiB win=1", 2 * kL + m / kB + m / kSpeed, 2},
        {"get_accumulate peer=1 bytes=4KiB bytes2=4KiB win=1", 2 * kL + 2 * m / kB + m / kSpeed, 2},
        {"put peer=1 bytes=1MiB win=1", 4 * kL + 1048576 / kB, 4},
    };
    for (const auto& c : cases) {
        const nlohmann::json j = fenced(c.op);
        EXPECT_NEAR(seconds(j) - seconds(none), c.t, 1e-12) << c.op;
        EXPECT_EQ(messages(j) - messages(none), c.messages) << c.op;
        // The operation is counted at the origin with its bytes, as a nonblocking call.
        EXPECT_EQ(j.at("network").at("bytes_sent"), j.at("network").at("bytes_delivered"));
    }
    const nlohmann::json put = fenced("put peer=1 bytes=4KiB win=1");
    EXPECT_EQ(put.at("operations").at("Put").at("count").get<int>(), 1);
    EXPECT_EQ(put.at("operations").at("Put").at("bytes").get<int>(), 4096);
    EXPECT_EQ(put.at("operations").at("Win_fence").at("count").get<int>(), 4);
}

TEST(OneSided, ExclusiveLocksSerialiseSharedOnesDoNot) {
    // Ranks 0 and 2 lock rank 1, put 4 KiB, unlock, then all free the window. Exclusive: the
    // second lock is granted when the first's release arrives, so the second origin's put
    // ends 2L + m/B + (release L + grant L) after the first's; shared: both go at once.
    const auto locked = [](int exclusive) {
        const std::string origin =
            "win_create win=1\nwin_lock peer=1 win=1 count=" + std::to_string(exclusive) +
            "\nput peer=1 bytes=4KiB win=1\nwin_unlock peer=1 win=1\n"
            "win_free win=1\n";
        return run_trace("rank 0\n" + origin + "rank 1\nwin_create win=1\nwin_free win=1\n" +
                         "rank 2\n" + origin);
    };
    const double create = 2 * (kL + 16 / kB);        // a 16-byte allgather over 3 ranks
    const double one = 2 * kL + 2 * kL + 4096 / kB;  // lock round trip, put and ack
    const double free3 = 2 * kL;                     // the barrier over 3 ranks
    EXPECT_NEAR(seconds(locked(0)), create + one + free3, 1e-12);
    EXPECT_NEAR(seconds(locked(1)), create + one + (2 * kL) + (2 * kL + 4096 / kB) + free3, 1e-12);
}

TEST(OneSided, LockAllSendsNothingAndFlushWaitsForTheOperations) {
    const nlohmann::json j = run_trace(
        "rank 0\nwin_create win=1\nwin_lock peer=-1 win=1\nput peer=1 bytes=4KiB win=1\n"
        "win_flush peer=-1 win=1\nwin_unlock peer=-1 win=1\nwin_free win=1\n"
        "rank 1\nwin_create win=1\nwin_free win=1\n");
    // create, then the put's two trips waited for by the flush, then the free's barrier.
    EXPECT_NEAR(seconds(j), (kL + 16 / kB) + (2 * kL + 4096 / kB) + kL, 1e-12);
    EXPECT_EQ(j.at("operations").at("Win_lock").at("time_s").get<double>(), 0.0);
}

// A one-sided trace converted to OTF2 (clustersim's regions and attributes) reads back as the
// same operations: the same simulated time and messages.
TEST(OneSided, ConvertedToOtf2ItReplaysTheSame) {
    const std::string path = temp_path("rt.trace");
    std::ofstream(path) << "clustersim-trace 1\nname rt\n"
                           "rank 0\nwin_create win=1 bytes=1MiB\nwin_fence win=1\n"
                           "put win=1 peer=1 bytes=64KiB\nget win=1 peer=1 bytes=4KiB\n"
                           "win_fence win=1\nwin_lock win=1 peer=1\naccumulate win=1 peer=1 "
                           "bytes=8KiB\nwin_unlock win=1 peer=1\nwin_free win=1\n"
                           "rank 1\nwin_create win=1 bytes=1MiB\nwin_fence win=1\n"
                           "win_fence win=1\nwin_free win=1\n";
    const std::string otf2 = temp_path("rt.otf2");
    const Result c = testing::run("convert " + path + " " + otf2);
    ASSERT_EQ(c.code, 0) << c.err;
    auto replay = [](const std::string& trace) {
        const Result r =
            testing::run("run " + example("star-16.xml") + " --app trace:" + trace + " --json");
        EXPECT_EQ(r.code, 0) << r.err;
        return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
    };
    const nlohmann::json a = replay(path), b = replay(otf2);
    ASSERT_TRUE(a.contains("simulated_time_ps") && b.contains("simulated_time_ps"));
    EXPECT_EQ(a.at("simulated_time_ps"), b.at("simulated_time_ps"));
    EXPECT_EQ(a.at("network").at("messages"), b.at("network").at("messages"));
    EXPECT_EQ(a.at("operations"), b.at("operations"));
}

TEST(OneSided, MisuseIsOneLineNamingTheRankAndTheCall) {
    const std::string path = temp_path("bad.trace");
    const auto bad = [&](const std::string& ranks, const std::string& needle) {
        std::ofstream(path) << "clustersim-trace 1\n" << ranks;
        expect_bad_input("run " + example("star-16.xml") + " --app trace:" + path, needle);
    };
    bad("rank 0\nput peer=1 bytes=1KiB win=3\nrank 1\n",
        "rank 0 calls MPI_Put on window handle 3, which it has not created");
    bad("rank 0\nwin_create win=1\nput peer=1 bytes=1KiB win=1\nwin_free win=1\n"
        "rank 1\nwin_create win=1\nwin_free win=1\n",
        "rank 0 frees window handle 1 with 1 operation(s) not completed");
    bad("rank 0\nwin_create win=1\nwin_unlock peer=1 win=1\nwin_free win=1\n"
        "rank 1\nwin_create win=1\nwin_free win=1\n",
        "rank 0 unlocks rank 1 of window handle 1, which it has not locked");
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
