// `clustersim compare` knows what it compares (issue 56): a recording and a simulation of two
// different programs, with other rank counts or other calls, are refused with one line that
// names the first difference, not compared into errors like "+3140193.0%" with exit 0. A
// recording and a replay of it still compare; compute bursts may be cut differently.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cli_fixtures.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::testing;
namespace fs = std::filesystem;

// Two ranks: a ping-pong with times.
const char* kPingPong = R"(clustersim-trace 1
name pingpong
rank 0
compute time=1ms start=0s end=1ms
send peer=1 tag=0 bytes=1MiB start=1ms end=2ms
compute time=2ms start=2ms end=4ms
rank 1
compute time=1ms start=0s end=1ms
recv peer=0 tag=0 bytes=1MiB start=1ms end=2ms
compute time=1ms start=2ms end=3ms
)";

// The same two ranks, one more exchange.
const char* kTwoExchanges = R"(clustersim-trace 1
name pingpong2
rank 0
compute time=1ms start=0s end=1ms
send peer=1 tag=0 bytes=1MiB start=1ms end=2ms
send peer=1 tag=0 bytes=1MiB start=2ms end=3ms
rank 1
compute time=1ms start=0s end=1ms
recv peer=0 tag=0 bytes=1MiB start=1ms end=2ms
recv peer=0 tag=0 bytes=1MiB start=2ms end=3ms
)";

std::string simulated(const std::string& name, const std::string& trace_text,
                      const std::string& model, const std::string& extra = "") {
    const std::string trace = write_temp(name + ".trace", trace_text);
    const std::string out = temp_path(name + "-sim");
    fs::remove_all(out);
    const Result r =
        testing::run("run " + example(model) + " --app trace:" + trace + " --out " + out + extra);
    EXPECT_EQ(r.code, 0) << r.err;
    return out;
}

TEST(CliComparePrograms, ARecordingAndItsReplayCompare) {
    const std::string rec = write_temp("pp.trace", kPingPong);
    const Result r = testing::run("compare " + rec + " " + simulated("pp", kPingPong, "two-nodes.xml"));
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("total runtime"), std::string::npos) << r.out;
}

TEST(CliComparePrograms, OtherCallsAreRefusedNamingTheFirstDifference) {
    const std::string rec = write_temp("pp.trace", kPingPong);
    const std::string other = simulated("two", kTwoExchanges, "two-nodes.xml");
    expect_bad_input("compare " + rec + " " + other,
                     "not a simulation of " + rec +
                         ": rank 0 made 1 Send call in the recorded run, 2 in the simulated one");
}

TEST(CliComparePrograms, OtherRankCountsAreRefused) {
    // A 16-rank built-in app's simulation (its simulated trace) against the 2-rank recording.
    const std::string rec = write_temp("pp.trace", kPingPong);
    const std::string out = temp_path("ar-sim");
    fs::remove_all(out);
    const Result s =
        testing::run("run " + example("star-16.xml") + " --app allreduce:size=1KiB --ranks 16 --out " + out);
    ASSERT_EQ(s.code, 0) << s.err;
    expect_bad_input("compare " + rec + " " + out,
                     "the recorded run has 2 ranks, the simulated one 16");
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
