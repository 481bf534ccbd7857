// Trace replay as users run it: every external trace replays on an example model, outputs
// are valid and round-trip, `compare` works on the HDTrace recording, and each bad input of
// the replay path is one clear line with exit code 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"
#include "report/recorder.hpp"
#include "timeline_check.hpp"
#include "trace_fixtures.hpp"
#include "traces/reader.hpp"
#include "traces/trace.hpp"

namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::testing;
namespace fs = std::filesystem;
namespace traces = clustersim::traces;

std::string external(const std::string& rel) {
    return std::string(CLUSTERSIM_SHARED_DIR) + "/external/" + rel;
}

#define NEED_EXTERNAL() SKIP_WITHOUT_EXTERNAL()

std::string out_dir(const std::string& name) {
    const std::string d = temp_path(name);
    fs::remove_all(d);
    return d;
}

TEST(CliReplay, EverySimgridTraceReplaysOnAnExampleModel) {
    NEED_EXTERNAL();
    std::vector<std::string> inputs{external("simgrid-ti-traces/ti_traces_32_1.index.txt"),
                                    external("simgrid-ti-traces/actions01.index.txt")};
    for (const auto& e : fs::directory_iterator(external("simgrid-ti-traces/replay")))
        if (e.is_regular_file() && e.path().filename().string().rfind("actions_", 0) == 0)
            inputs.push_back(e.path().string());
    ASSERT_GE(inputs.size(), 10u);
    for (const auto& in : inputs) {
        const Result r = run("run " + example("figure1-westmere-10.xml") + " --app trace:" + in +
                             " --oversubscribe --json");
        EXPECT_EQ(r.code, 0) << in << "\n" << r.err;
        if (r.code != 0) continue;
        const auto j = nlohmann::json::parse(r.out);
        EXPECT_GT(j.at("simulated_time_s").get<double>(), 0.0) << in;
    }
}

TEST(CliReplay, TimelineOfARealRunPassesTheSchemaCheckAndTheTraceRoundTrips) {
    NEED_EXTERNAL();
    const std::string dir = out_dir("ti32");
    const Result r = run("run " + example("figure1-westmere-10.xml") + " --app trace:" +
                         external("simgrid-ti-traces/ti_traces_32_1.index.txt") + " --out " + dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("Operations"), std::string::npos) << r.out;  // statistics summary
    std::ifstream f(dir + "/timeline.json");
    const auto doc = nlohmann::json::parse(f);
    clustersim::expect_valid_timeline(doc);
    for (const char* csv : {"ranks.csv", "operations.csv", "histogram_sizes.csv",
                            "histogram_bandwidth.csv", "summary.txt"})
        EXPECT_TRUE(fs::exists(dir + "/" + csv)) << csv;
    // The simulated trace read back gives the same per-rank end times as the run's ranks.csv
    // and as the summary's simulated time.
    traces::ReadReport report;
    const traces::Trace sim =
        traces::load_trace(dir + "/simulated.cstrace", "auto", traces::ReadOptions{}, report);
    EXPECT_EQ(sim.ranks(), 32u);
    const traces::RunLog log = traces::run_log_from_trace(sim, "back");
    std::vector<clustersim::Time> end(32);
    for (const auto& e : log.ops) end[e.rank] = max(end[e.rank], e.end);
    std::ifstream ranks(dir + "/ranks.csv");
    std::string header, line;
    std::getline(ranks, header);
    ASSERT_EQ(header.rfind("rank,app,app_rank,node,total_s,", 0), 0u) << header;
    int n = 0;
    while (std::getline(ranks, line)) {
        // total_s (the rank's end) equals the end of its last record in the simulated trace.
        std::vector<std::string> cells;
        std::stringstream ss(line);
        for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
        ASSERT_GE(cells.size(), 5u) << line;
        const int rank = std::stoi(cells[0]);
        EXPECT_NEAR(std::stod(cells[4]), end[rank].seconds(), 1e-9) << line;
        ++n;
    }
    EXPECT_EQ(n, 32);
    clustersim::Time last;
    for (auto t : end) last = max(last, t);
    const Result again = run("run " + example("figure1-westmere-10.xml") +
                             " --json --app trace:" + dir + "/simulated.cstrace");
    ASSERT_EQ(again.code, 0) << again.err;
    // Replaying the simulated trace (compute kept as instructions) reproduces the run.
    const auto j = nlohmann::json::parse(again.out);
    EXPECT_EQ(j.at("simulated_time_ps").get<std::int64_t>(), last.ps());
}

TEST(CliReplay, HdtraceReplaysWithItsMpiIoOnTheImportedModelAndCompares) {
    NEED_EXTERNAL();
    const std::string model = temp_path("pvs.xml");
    const Result imp =
        run("import piosimhd " + external("hdtrace-partdiff-mpi-io/pvs-cluster-model.xml") + " ");
    ASSERT_EQ(imp.code, 0) << imp.err;
    std::ofstream(model) << imp.out;
    const std::string dir = out_dir("partdiff");
    const std::string proj = external("hdtrace-partdiff-mpi-io/partdiff-par.proj");
    const Result r = run("run " + model + " --app trace:" + proj + " --out " + dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("File_write_at"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("file data"), std::string::npos) << r.out;
    const std::string cdir = out_dir("partdiff-compare");
    const Result c = run("compare " + proj + " " + dir + " --out " + cdir);
    ASSERT_EQ(c.code, 0) << c.err;
    EXPECT_NE(c.out.find("total runtime: recorded 3.928 s"), std::string::npos) << c.out;
    EXPECT_NE(c.out.find("File_write_at"), std::string::npos) << c.out;
    for (const char* f : {"compare_timeline.json", "compare.csv", "compare_ranks.svg"})
        EXPECT_TRUE(fs::exists(cdir + "/" + f)) << f;
    std::ifstream tl(cdir + "/compare_timeline.json");
    clustersim::expect_valid_timeline(nlohmann::json::parse(tl));
}

TEST(CliReplay, TwoApplicationsShareOneCluster) {
    // A trace and a built-in benchmark at once, each with its own MPI_COMM_WORLD.
    const std::string trace = write_temp("two.trace", R"(clustersim-trace 1
name two
rank 0
send peer=1 bytes=1MiB
rank 1
recv peer=0 bytes=1MiB
)");
    const Result r = run("run " + example("star-16.xml") + " --json --app trace:" + trace +
                         " --app bcast:size=1MiB,iterations=2 --ranks 4");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("ranks").get<int>(), 6);
    EXPECT_EQ(j.at("operations").at("Bcast").at("count").get<int>(), 8);
    EXPECT_EQ(j.at("operations").at("Send").at("count").get<int>(), 1);
}

TEST(CliReplay, ComputeIsProjectedByTheCpuSpeedRatio) {
    // 1 s of compute traced on a 1 GIPS core runs 2.5 s on... the example's cores run at
    // 2.8 G instructions/s: 1 s traced at 5.6 G instructions/s takes 2 s there.
    const std::string trace = write_temp("compute.trace", R"(clustersim-trace 1
name compute
rank 0
compute time=1s
)");
    const Result r = run("run " + example("figure1-westmere-10.xml") +
                         " --json --app trace:" + trace + " --traced-speed 5.6G");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out).at("simulated_time_ps").get<std::int64_t>(),
              2'000'000'000'000);
    const Result same = run("run " + example("figure1-westmere-10.xml") +
                            " --json --app trace:" + trace);  // unknown speed: time kept
    ASSERT_EQ(same.code, 0) << same.err;
    EXPECT_EQ(nlohmann::json::parse(same.out).at("simulated_time_ps").get<std::int64_t>(),
              1'000'000'000'000);
}

// A SimGrid Full zone that routes a <-> b and b <-> c only (WRENCH's xrootd_platform.xml
// style): imported with its real coverage (4 of 6 pairs), a trace whose message takes a given
// route runs (1 MB over link ab, 10 us and 1 GB/s, after the rendezvous handshake's two small
// messages: 3 x 10 us + 1 ms), one that sends a -> c stops with one line naming both hosts,
// exit 2, as SimGrid does.
TEST(CliReplay, AnUnroutedPairOfASimgridFullZoneStopsTheRunWithOneLine) {
    const std::string platform = write_temp("full.xml", R"(<?xml version='1.0'?>
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="a" speed="1Gf"/>
    <host id="b" speed="1Gf"/>
    <host id="c" speed="1Gf"/>
    <link id="ab" bandwidth="1GBps" latency="10us"/>
    <link id="bc" bandwidth="1GBps" latency="20us"/>
    <route src="a" dst="b"><link_ctn id="ab"/></route>
    <route src="b" dst="c"><link_ctn id="bc"/></route>
  </zone>
</platform>
)");
    const Result imported = run("import simgrid " + platform);
    ASSERT_EQ(imported.code, 0) << imported.err;
    const std::string model = write_temp("full-model.xml", imported.out);
    const Result v = run("validate " + model);
    EXPECT_NE(v.out.find("routes           4 of 6 ordered socket pairs (66.67%); some sockets "
                         "cannot reach each other"),
              std::string::npos)
        << v.out;
    const std::string ranks = "0 init\n1 init\n2 init\n";
    const std::string ok = write_temp("ab.txt", ranks + "0 send 1 1e6\n1 recv 0 1e6\n");
    const Result r = run("run " + model + " --app trace:" + ok + " --network fluid --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out).at("simulated_time_ps").get<std::int64_t>(),
              1'030'000'000)
        << "request and reply (10 us each), then 1 MB at 1 GB/s (1 ms) + 10 us";
    const std::string bad = write_temp("ac.txt", ranks + "0 send 2 1e6\n2 recv 0 1e6\n");
    expect_bad_input("run " + model + " --app trace:" + bad + " --network fluid",
                     ": no route from node 'a' to node 'c': this <routes> table (a SimGrid Full "
                     "zone's) gives none for the pair, which the run needs; SimGrid stops there "
                     "too");
}

TEST(CliReplay, BadInputs) {
    const std::string m = example("two-nodes.xml");
    // A receive with no matching send: a deadlock naming the ranks and operations.
    const std::string lonely = write_temp("lonely.trace", R"(clustersim-trace 1
name lonely
rank 0
recv peer=1 tag=7 bytes=1KiB
rank 1
compute time=1ms
)");
    expect_bad_input("run " + m + " --app trace:" + lonely,
                     "lonely.trace: deadlock at 1 ms: 1 of 2 ranks wait forever: rank 0 in Recv "
                     "from rank 1 (tag 7)");
    // More ranks than cores without --oversubscribe.
    const std::string wide = write_temp("wide.trace", R"(clustersim-trace 1
name wide
rank 0
rank 1
rank 2
)");
    expect_bad_input("run " + m + " --app trace:" + wide,
                     "--placement: 3 ranks need 3 cores but the model has 2; pass "
                     "--oversubscribe");
    // A truncated binary trace.
    const std::string bin = temp_path("cut.cstrace");
    ASSERT_EQ(run("convert " + lonely + " " + bin).code, 0);
    const auto size = fs::file_size(bin);
    fs::resize_file(bin, size - 3);
    expect_bad_input("run " + m + " --app trace:" + bin, "cut.cstrace");
    // A rank file missing from an index.
    const std::string dir = temp_path("idx");
    fs::create_directories(dir);
    std::ofstream(dir + "/r0.txt") << "0 init\n0 compute 1000\n";
    std::ofstream(dir + "/run.index.txt") << "r0.txt\nr1.txt\n";
    expect_bad_input("run " + m + " --app trace:" + dir + "/run.index.txt", "run.index.txt:2");
    // An unsupported record, and the same with --skip-unknown.
    const std::string odd = write_temp("odd.trace", R"(clustersim-trace 1
name odd
rank 0
teleport peer=1
)");
    expect_bad_input("run " + m + " --app trace:" + odd, "odd.trace:4");
    const Result skipped = run("run " + m + " --app trace:" + odd + " --skip-unknown");
    EXPECT_EQ(skipped.code, 0) << skipped.err;
    EXPECT_NE(skipped.err.find("skipped 1 'teleport'"), std::string::npos) << skipped.err;
    // Unknown --format, --timeline-detail.
    expect_bad_input("run " + m + " --app trace:" + lonely + " --format vampir",
                     "unknown trace format 'vampir'");
    expect_bad_input("run " + m + " --app trace:" + lonely + " --timeline-detail pixels",
                     "expected ranks or hardware");
    expect_bad_input("compare " + lonely + " " + lonely, "no times to compare");
}

TEST(CliReplay, ConvertRoundTripsAndReportsTheSizeRatio) {
    NEED_EXTERNAL();
    const std::string bin = temp_path("ti.cstrace"), txt = temp_path("ti.txt"),
                      bin2 = temp_path("ti2.cstrace");
    const Result a =
        run("convert " + external("simgrid-ti-traces/ti_traces_32_1.index.txt") + " " + bin);
    ASSERT_EQ(a.code, 0) << a.err;
    EXPECT_NE(a.out.find("x the input's size"), std::string::npos) << a.out;
    ASSERT_EQ(run("convert " + bin + " " + txt).code, 0);
    ASSERT_EQ(run("convert " + txt + " " + bin2).code, 0);
    std::ifstream x(bin, std::ios::binary), y(bin2, std::ios::binary);
    const std::string sx((std::istreambuf_iterator<char>(x)), {}),
        sy((std::istreambuf_iterator<char>(y)), {});
    EXPECT_EQ(sx, sy);
}

}  // namespace CLUSTERSIM_TEST_FILE
