// clustersim-jitter-collect (jitSim's TraceCollector, issue 6): a short real collection on
// core 0 gives a readable trace with a frequency and a histogram that counts its events;
// every bad flag is one line on stderr and exit code 2. The binary's path comes from the
// CLUSTERSIM_COLLECTOR compile definition (tests/CMakeLists.txt); without it, the collector
// is looked for next to the clustersim binary (both are built in tools/), and the test fails
// if it is not there.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "models/jitter.hpp"
#include "traces/jitter_io.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

struct Result {
    int code = -1;
    std::string out, err;
};

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string temp_dir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const fs::path dir =
        fs::path(::testing::TempDir()) /
        ("clustersim_collect_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir.string();
}

std::string collector() {
#ifdef CLUSTERSIM_COLLECTOR
    return CLUSTERSIM_COLLECTOR;
#else
    return (fs::path(CLUSTERSIM_BINARY).parent_path() / "clustersim-jitter-collect").string();
#endif
}

TEST(JitterCollect, BinaryExists) {
    ASSERT_TRUE(fs::exists(collector())) << collector();
}

Result collect(const std::string& args) {
    const std::string dir = temp_dir();
    const std::string out = dir + "/stdout.txt", err = dir + "/stderr.txt";
    const std::string cmd = collector() + " " + args + " >" + out + " 2>" + err;
    const int status = std::system(cmd.c_str());
    Result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
}

void check_collection(const std::string& prefix, double seconds) {
    const auto t = traces::read_jitter_trace(prefix + ".core0.jtr");
    ASSERT_GT(t.frequency_hz, 0);
    const jitter::Timeline timeline(t);
    // The trace covers the recording pass: --duration, plus at most one late final reading
    // (the machine may be busy, so allow a generous upper bound).
    const double length_s = static_cast<double>(timeline.length()) / t.frequency_hz;
    EXPECT_GT(length_s, 0.9 * seconds);
    EXPECT_LT(length_s, seconds + 1.0);
    EXPECT_GT(timeline.compute_total(), 0u);
    // The histogram counts every jitter event once.
    std::istringstream hist(slurp(prefix + ".core0.hist.csv"));
    std::string line;
    ASSERT_TRUE(std::getline(hist, line));
    EXPECT_EQ(line, "lower_ns,upper_ns,count");
    std::uint64_t counted = 0, previous_upper = 0;
    while (std::getline(hist, line)) {
        std::uint64_t lower = 0, upper = 0, count = 0;
        char c1 = 0, c2 = 0;
        std::istringstream row(line);
        ASSERT_TRUE(row >> lower >> c1 >> upper >> c2 >> count) << line;
        EXPECT_EQ(c1, ',');
        EXPECT_EQ(c2, ',');
        EXPECT_EQ(upper, lower == 0 ? 2u : 2 * lower) << line;  // log2 bins
        if (previous_upper != 0) {
            EXPECT_EQ(lower, previous_upper) << line;
        }
        previous_upper = upper;
        counted += count;
    }
    const auto events = static_cast<std::uint64_t>(
        std::count_if(t.jitter.begin(), t.jitter.end(), [](std::uint64_t j) { return j > 0; }));
    EXPECT_EQ(counted, events);
}

TEST(JitterCollect, TscRunOnCoreZeroWritesTraceAndHistogram) {
    const std::string prefix = temp_dir() + "/m";
    const Result r = collect("--duration 0.2s --cores 0 --out " + prefix);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_THAT(r.out, HasSubstr("core 0:"));
    EXPECT_THAT(r.out, HasSubstr("t_min"));
    EXPECT_THAT(r.out, HasSubstr("jitter"));
    EXPECT_FALSE(fs::exists(prefix + ".core1.jtr"));  // only the cores asked for
    check_collection(prefix, 0.2);
    EXPECT_THAT(slurp(prefix + ".core0.jtr"), HasSubstr("# frequency: "));
}

TEST(JitterCollect, SteadyClockRunsInNanoseconds) {
    const std::string prefix = temp_dir() + "/s";
    const Result r =
        collect("--duration 100ms --cores 0 --clock steady --threshold 1us --out " + prefix);
    ASSERT_EQ(r.code, 0) << r.err;
    check_collection(prefix, 0.1);
    EXPECT_EQ(traces::read_jitter_trace(prefix + ".core0.jtr").frequency_hz, 1e9);
}

TEST(JitterCollect, BadFlagsAreOneLineAndExitCode2) {
    for (const auto& [args, needle] : std::initializer_list<std::pair<std::string, std::string>>{
             {"--duration abc", "--duration"},
             {"--duration 0s", "--duration"},
             {"--cores 0,x", "--cores"},
             {"--cores 4096", "core 4096 is not available"},
             {"--cores 0,0", "listed twice"},
             {"--threshold 0.5x", "--threshold"},
             {"--threshold fast", "--threshold"},
             {"--clock sundial", "--clock"},
             {"--bogus", "bogus"},
         }) {
        const Result r = collect(args);
        EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
        EXPECT_THAT(r.err, HasSubstr(needle)) << args;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
        EXPECT_EQ(r.out, "") << args;
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
