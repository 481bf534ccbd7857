// `clustersim compare --out DIR` draws compare_timeline.svg (both runs as Gantt charts on one
// time axis), `--timeline-window FROM,TO` draws an excerpt, and every bad window is one line
// naming the flag with exit code 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <pugixml.hpp>

#include "cli_fixtures.hpp"

namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::testing;
namespace fs = std::filesystem;

// A recorded ping-pong with times; rank 0 ends at 4 ms.
const char* kRecorded = R"(clustersim-trace 1
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

struct Runs {
    std::string recorded, simulated;
};

Runs simulate() {
    Runs r;
    r.recorded = write_temp("pp.trace", kRecorded);
    r.simulated = temp_path("sim");
    fs::remove_all(r.simulated);
    const Result run_result = run("run " + example("two-nodes.xml") + " --app trace:" + r.recorded +
                                  " --out " + r.simulated);
    EXPECT_EQ(run_result.code, 0) << run_result.err;
    return r;
}

std::size_t event_rects(const pugi::xml_document& doc) {
    return doc.select_nodes("//g[@class='events']/rect").size();
}

TEST(CliCompareSvg, WritesTheTimelinePictureOfBothRuns) {
    const Runs runs = simulate();
    const std::string out = temp_path("cmp");
    fs::remove_all(out);
    const Result r = run("compare " + runs.recorded + " " + runs.simulated + " --out " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("compare_timeline.svg (0 s \u2013 "), std::string::npos) << r.out;
    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_file((out + "/compare_timeline.svg").c_str()));
    const std::string svg = slurp(out + "/compare_timeline.svg");
    // Two panels of two ranks; the recorded run's 6 operations, and the simulated run's 6.
    EXPECT_EQ(doc.select_nodes("//g[@class='panel']").size(), 2u);
    EXPECT_NE(svg.find(">recorded</tspan>"), std::string::npos);
    EXPECT_NE(svg.find(">simulated</tspan>"), std::string::npos);
    EXPECT_NE(svg.find(">rank 1</text>"), std::string::npos);
    EXPECT_EQ(event_rects(doc), 12u);
    EXPECT_NE(svg.find("time (ms)"), std::string::npos);
    EXPECT_NE(svg.find("rank 0 Send: 1 ms at 1 ms"), std::string::npos);
}

TEST(CliCompareSvg, TheWindowDrawsAnExcerpt) {
    const Runs runs = simulate();
    const std::string out = temp_path("cmpw");
    fs::remove_all(out);
    const Result r = run("compare " + runs.recorded + " " + runs.simulated + " --out " + out +
                         " --timeline-window 1500us,2.5ms");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("compare_timeline.svg (1.5 ms \u2013 2.5 ms)"), std::string::npos)
        << r.out;
    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_file((out + "/compare_timeline.svg").c_str()));
    const std::string svg = slurp(out + "/compare_timeline.svg");
    EXPECT_NE(svg.find("1.5 ms \u2013 2.5 ms, 1 px = 1 us"), std::string::npos);
    EXPECT_NE(svg.find("time (\u00b5s)"), std::string::npos);  // a 1 ms window reads in µs
    // Recorded: Send [1, 2) ms and Compute [2, 4) ms on rank 0 are cut at the window's edges:
    // the Send from x = 84 to 584, the Compute from 584 to 1084.
    bool send = false, compute = false;
    for (const auto& n : doc.select_nodes("//g[@class='events']/rect")) {
        const auto e = n.node();
        const std::string title = e.child_value("title");
        const double x = e.attribute("x").as_double(), w = e.attribute("width").as_double();
        if (title.rfind("rank 0 Send: 1 ms at 1 ms", 0) == 0 && !send) {
            send = true;
            EXPECT_NEAR(x, 84, 0.006);
            EXPECT_NEAR(w, 500, 0.006);
        }
        if (title.rfind("rank 0 Compute: 2 ms at 2 ms", 0) == 0 && !compute) {
            compute = true;
            EXPECT_NEAR(x, 584, 0.006);
            EXPECT_NEAR(w, 500, 0.006);
        }
    }
    EXPECT_TRUE(send && compute) << svg;
}

TEST(CliCompareSvg, EveryBadWindowIsOneLineNamingTheFlag) {
    const Runs runs = simulate();
    const std::string out = temp_path("bad");
    const std::string base = "compare " + runs.recorded + " " + runs.simulated;
    const std::string w = " --out " + out + " --timeline-window ";
    expect_bad_input(base + w + "5ms", "--timeline-window: '5ms': expected FROM,TO");
    expect_bad_input(base + w + "0s,1ms,2ms", "--timeline-window: '0s,1ms,2ms': expected FROM,TO");
    expect_bad_input(base + w + "0s,5parsecs", "--timeline-window: '5parsecs': unknown unit");
    expect_bad_input(base + w + "0,5ms", "--timeline-window: '0': missing unit");
    expect_bad_input(base + w + ",5ms", "--timeline-window: '': expected a time");
    expect_bad_input(base + w + "-1ms,5ms", "--timeline-window: '-1ms'");
    expect_bad_input(base + w + "5ms,1ms", "--timeline-window: '5ms,1ms': TO must be later");
    expect_bad_input(base + w + "2ms,2ms", "TO must be later than FROM");
    expect_bad_input(base + w + "100s,200s", "--timeline-window: '100s,200s' starts after both");
    expect_bad_input(base + " --timeline-window 0s,1ms", "--timeline-window: needs --out");
    EXPECT_FALSE(fs::exists(out + "/compare_timeline.svg"));
}

}  // namespace CLUSTERSIM_TEST_FILE
