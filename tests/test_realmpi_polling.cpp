// End to end on a real MPI with a polling program (tests/mpi/polling_app.cpp, issue 19): it
// waits with MPI_Testany / MPI_Test / MPI_Iprobe loops, cancels a posted any-source receive,
// calls MPI_Scan after an uneven compute phase, MPI_Comm_split and MPI_Cart_create, and
// writes collectively. Traced with the default tracer settings (failed polls folded):
// the trace holds one record per successful poll and the failed ones as counts; the replay
// completes (the cancelled receive matches nothing, so the later receive gets the message
// instead of waiting forever in Wait), the scan synchronises, and compare's error stays in
// the bounds of test_realmpi_e2e.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"
#include "traces/reader.hpp"
#include "traces/trace.hpp"

namespace clustersim::testing {
namespace CLUSTERSIM_TEST_FILE {

namespace fs = std::filesystem;

constexpr int kRanks = 2;
constexpr int kIterations = 20;

class Polling : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!dir.empty()) return;
        dir = fs::temp_directory_path() / ("clustersim_polling_" + std::to_string(::getpid()));
        fs::remove_all(dir);
        fs::create_directories(dir / "ranks");
        traced = run_shell(mpirun(
            "-np " + std::to_string(kRanks) + " -x LD_PRELOAD=" + CLUSTERSIM_TRACER +
            " -x CLUSTERSIM_TRACE_DIR=" + (dir / "ranks").string() + " " + CLUSTERSIM_POLLING_APP +
            " " + std::to_string(kIterations) + " " + (dir / "ckpt.dat").string()));
        trace_path = (dir / "app.cstrace").string();
        merged = run("trace merge " + (dir / "ranks").string() + " -o " + trace_path);
    }
    static void TearDownTestSuite() {
        if (!dir.empty()) fs::remove_all(dir);
    }

    static fs::path dir;
    static Result traced, merged;
    static std::string trace_path;
};
fs::path Polling::dir;
Result Polling::traced, Polling::merged;
std::string Polling::trace_path;

// The count the merge report prints for one folded MPI function (0 if absent).
std::uint64_t folded(const std::string& out, const std::string& call) {
    std::smatch m;
    if (!std::regex_search(out, m, std::regex(call + R"( x([\d,]+) )"))) return 0;
    std::string digits = m[1];
    digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
    return std::stoull(digits);
}

TEST_F(Polling, OneRecordPerSuccessfulPollAndTheFailedOnesCounted) {
    ASSERT_EQ(traced.code, 0) << traced.out << traced.err;
    // The program's own view: per rank 2 Testany per iteration, plus an MPI_Test (the last
    // rank) or an MPI_Iprobe (rank 0); the cancelled receive's status says cancelled.
    EXPECT_NE(traced.out.find("rank 0: 60 successful polls, receive cancelled yes"),
              std::string::npos)
        << traced.out;
    EXPECT_NE(traced.out.find("rank 1: 60 successful polls, receive cancelled yes"),
              std::string::npos)
        << traced.out;
    ASSERT_EQ(merged.code, 0) << merged.err;
    // Rank 1 polls MPI_Test and MPI_Testany while rank 0 computes 100 us before each send,
    // rank 0 MPI_Iprobe while rank 1 does: each kind fails many times.
    EXPECT_GT(folded(merged.out, "MPI_Test"), 0u) << merged.out;
    EXPECT_GT(folded(merged.out, "MPI_Testany"), 0u) << merged.out;
    EXPECT_GT(folded(merged.out, "MPI_Iprobe"), 0u) << merged.out;
    EXPECT_NE(merged.out.find("cancel       2 cancelled requests completed"), std::string::npos)
        << merged.out;
    // Recorded (the `calls` line), and not unmodeled: modelled now.
    EXPECT_NE(merged.out.find(" MPI_Comm_create x2 "), std::string::npos) << merged.out;
    EXPECT_EQ(merged.out.substr(merged.out.find("\n  unmodeled ")).find("MPI_Comm_create x"),
              std::string::npos)
        << "modelled now";

    traces::ReadReport rep;
    const traces::Trace t = traces::load_trace(trace_path, "auto", {}, rep);
    ASSERT_EQ(t.ranks(), static_cast<std::uint32_t>(kRanks));
    for (std::uint32_t rank = 0; rank < t.ranks(); ++rank) {
        std::map<std::string, int> n;
        auto c = t.cursor(rank);
        traces::Record r;
        while (c.next(r)) {
            std::string name = traces::record_name(r);
            if (r.kind == mpi::OpKind::Unmodeled)
                name = t.strings.at(static_cast<std::size_t>(r.path));
            ++n[name];
        }
        // Waits: the successful Testany (2 per iteration), MPI_Test (last rank, 1 per
        // iteration), the cancelled receive's MPI_Wait.
        EXPECT_EQ(n["wait"], 2 * kIterations + (rank == kRanks - 1 ? kIterations : 0) + 1)
            << "rank " << rank;
        EXPECT_EQ(n["MPI_Iprobe"], rank == 0 ? kIterations : 0) << "rank " << rank;
        EXPECT_EQ(n["MPI_Test"] + n["MPI_Testany"], 0) << "failed polls are not records";
        EXPECT_EQ(n["cancel"], 1);
        EXPECT_EQ(n["scan"], 1);
        EXPECT_EQ(n["comm_split"], 2);   // MPI_Comm_split, and MPI_Comm_create as a split
        EXPECT_EQ(n["cart_create"], 1);  // a communicator with its topology
        EXPECT_EQ(n["MPI_Cart_create"], 0) << "modeled, not unmodeled";
        EXPECT_EQ(n["MPI_Comm_create"], 0) << "recorded as a comm_split, not unmodeled";
        EXPECT_EQ(n["barrier"], 2 + (rank % 2 == 0 ? 1 : 0));  // world, half, evens
        EXPECT_EQ(n["file_write_at_all"], 1);
        EXPECT_EQ(n["irecv"], kIterations + (rank == kRanks - 1 ? kIterations : 0) + 1);
    }
}

TEST_F(Polling, ReplayCompletesTheScanSynchronisesAndCompareStaysInBounds) {
    ASSERT_EQ(merged.code, 0) << merged.err;
    const std::string model = example("calibrated-this-machine.xml");
    const Result sim =
        run("run " + model + " --app trace:" + trace_path + " --out " + (dir / "sim").string());
    ASSERT_EQ(sim.code, 0) << sim.err;  // no "2 of 2 ranks wait forever ... in Wait"

    // The scan: rank 0 computed 2 ms more before it, so rank 1 waits for it in the replay.
    std::ifstream tl(dir / "sim" / "timeline.json");
    ASSERT_TRUE(tl) << "no timeline.json";
    const nlohmann::json j = nlohmann::json::parse(tl);
    std::map<int, nlohmann::json> scans;
    const auto& events = j.is_array() ? j : j.at("traceEvents");
    for (const auto& e : events)
        if (e.value("name", "") == "Scan" && e.value("ph", "") == "X")
            scans[e.at("tid").get<int>()] = e;
    ASSERT_EQ(scans.size(), 2u) << "one Scan per rank";
    const double start0 = scans[0].at("ts").get<double>();
    const double end1 = scans[1].at("ts").get<double>() + scans[1].at("dur").get<double>();
    EXPECT_GE(end1, start0) << "rank 1's scan ends before rank 0 entered it";
    EXPECT_GT(scans[1].at("args").at("wait_us").get<double>(), 1000.0);

    const Result cmp = run("compare " + trace_path + " " + (dir / "sim").string() + " --out " +
                           (dir / "cmp").string());
    ASSERT_EQ(cmp.code, 0) << cmp.err;
    std::ifstream csv(dir / "cmp" / "compare.csv");
    std::string line;
    double compute_rec = -1, compute_sim = -1, total_rec = -1, total_sim = -1;
    while (std::getline(csv, line)) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
        if (f.size() != 7) continue;
        if (f[0] == "operation" && f[1] == "Compute") {
            compute_rec = std::stod(f[4]);
            compute_sim = std::stod(f[5]);
        } else if (f[0] == "total") {
            total_rec = std::stod(f[4]);
            total_sim = std::stod(f[5]);
        }
    }
    ASSERT_GT(compute_rec, 0) << "no Compute row in compare.csv";
    ASSERT_GT(total_rec, 0) << "no total row in compare.csv";
    // The bounds of test_realmpi_e2e.cpp's ReplayOnTheCalibratedModelAndCompare.
    EXPECT_NEAR(compute_sim, compute_rec, 1e-6 * compute_rec + 5e-9);
    EXPECT_GE(total_sim, compute_sim / kRanks);
    EXPECT_LE(total_sim, 1.5 * total_rec) << cmp.out;
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::testing
