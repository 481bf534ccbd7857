// End to end on a real MPI (Open MPI, installed by .ci/install-deps.sh): a small MPI program
// (tests/mpi/traced_app.cpp, built with the project) runs under mpirun with the PMPI tracer
// preloaded; `clustersim trace merge` consolidates its rank files; the trace is checked
// against what the program does (record counts, bytes sent = bytes received, times in
// order); `clustersim run` replays it on the calibrated model of this kind of machine and
// `clustersim compare` sets the two side by side.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <filesystem>
#include <map>
#include <regex>
#include <string>

#include "cli_fixtures.hpp"
#include "traces/reader.hpp"
#include "traces/trace.hpp"

namespace clustersim::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kRanks = 3;
constexpr int kIterations = 10;

// mpirun as the machines this runs on need it: as root in CI containers, more ranks than
// cores on a 2-core machine.
std::string mpirun(const std::string& args) {
    return std::string(CLUSTERSIM_MPIEXEC) + " --allow-run-as-root --oversubscribe " + args;
}

Result shell(const std::string& cmd) {
    return run_shell(cmd);
}

// The traced run and its merge, done once (on first use: temp_path needs a running test)
// and shared by the tests below.
class RealMpi : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!dir.empty()) return;
        dir = fs::temp_directory_path() / ("clustersim_realmpi_" + std::to_string(::getpid()));
        fs::remove_all(dir);
        fs::create_directories(dir / "ranks");
        traced = shell(mpirun(
            "-np " + std::to_string(kRanks) + " -x LD_PRELOAD=" + CLUSTERSIM_TRACER +
            " -x CLUSTERSIM_TRACE_DIR=" + (dir / "ranks").string() + " " + CLUSTERSIM_TRACED_APP +
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
fs::path RealMpi::dir;
Result RealMpi::traced, RealMpi::merged;
std::string RealMpi::trace_path;

TEST_F(RealMpi, TracedRunWritesOneFilePerRankAndMergeCountsUnmodeledCalls) {
    ASSERT_EQ(traced.code, 0) << traced.out << traced.err;
    EXPECT_NE(traced.out.find("traced_app: 3 ranks, 10 iterations"), std::string::npos);
    for (int r = 0; r < kRanks; ++r)
        EXPECT_TRUE(fs::exists(dir / "ranks" / ("traced_app.r" + std::to_string(r) + ".csrank")));
    ASSERT_EQ(merged.code, 0) << merged.err;
    EXPECT_NE(merged.out.find("of traced_app (3 ranks"), std::string::npos) << merged.out;
    // Unmodeled calls, named and counted: MPI_Iprobe once per iteration and rank, the rest
    // once per rank.
    EXPECT_NE(merged.out.find("MPI_Iprobe x30"), std::string::npos) << merged.out;
    EXPECT_NE(merged.out.find("MPI_Comm_rank x3"), std::string::npos) << merged.out;
    EXPECT_NE(merged.out.find("MPI_Comm_size x3"), std::string::npos) << merged.out;
    EXPECT_NE(merged.out.find("MPI_Comm_free x3"), std::string::npos) << merged.out;
}

TEST_F(RealMpi, MergedTraceHoldsWhatTheProgramDid) {
    ASSERT_EQ(merged.code, 0) << merged.err;
    traces::ReadReport rep;
    const traces::Trace t = traces::load_trace(trace_path, "auto", {}, rep);
    ASSERT_EQ(t.ranks(), static_cast<std::uint32_t>(kRanks));
    std::uint64_t sent = 0, received = 0;
    for (std::uint32_t rank = 0; rank < t.ranks(); ++rank) {
        std::map<std::string, int> n;
        auto c = t.cursor(rank);
        traces::Record r;
        Time last_end = Time::zero();
        while (c.next(r)) {
            ++n[traces::record_name(r)];
            ASSERT_TRUE(r.timed);
            EXPECT_GE(r.start, last_end) << "rank " << rank << " " << traces::record_name(r);
            EXPECT_GE(r.end, r.start);
            last_end = r.end;
            if (r.kind == mpi::OpKind::Send || r.kind == mpi::OpKind::Isend) sent += r.bytes;
            if (r.kind == mpi::OpKind::Recv || r.kind == mpi::OpKind::Irecv) received += r.bytes;
            if (r.kind == mpi::OpKind::Sendrecv) {
                sent += r.bytes;
                received += r.bytes2;
            }
            if (r.kind == mpi::OpKind::Collective && r.coll == mpi::CollOp::Gatherv) {
                ASSERT_NE(r.counts, traces::kNone);
                EXPECT_EQ(t.count_lists[static_cast<std::size_t>(r.counts)],
                          (std::vector<std::uint64_t>{8, 16, 24}));  // r + 1 doubles
            }
        }
        EXPECT_EQ(n["sendrecv"], kIterations) << "rank " << rank;
        EXPECT_EQ(n["isend"], kIterations);
        EXPECT_EQ(n["irecv"], kIterations);
        EXPECT_EQ(n["waitall"], kIterations);
        EXPECT_EQ(n["allreduce"], kIterations);
        EXPECT_EQ(n["bcast"], kIterations);
        EXPECT_EQ(n["allgatherv"], 1);
        EXPECT_EQ(n["gatherv"], 1);
        EXPECT_EQ(n["ibarrier"], 1);
        EXPECT_EQ(n["wait"], 1);
        EXPECT_EQ(n["comm_split"], 1);
        EXPECT_EQ(n["barrier"], 1);
        EXPECT_EQ(n["file_open"], 1);
        EXPECT_EQ(n["file_write_at_all"], 1);
        EXPECT_EQ(n["file_close"], 1);
        EXPECT_EQ(n["unmodeled"], kIterations + 3);
        EXPECT_EQ(n["send"], rank == 0 ? kIterations : 0);
        EXPECT_EQ(n["recv"], rank == kRanks - 1 ? kIterations : 0);
        EXPECT_GT(n["compute"], 0);
    }
    EXPECT_EQ(sent, received);
    // 10 iterations x 3 ranks x (32 KiB sendrecv + 64 KiB isend) + 10 x 8 KiB send.
    EXPECT_EQ(sent, 10u * 3u * (32768u + 65536u) + 10u * 8192u);
}

TEST_F(RealMpi, ReplayOnTheCalibratedModelAndCompare) {
    ASSERT_EQ(merged.code, 0) << merged.err;
    const std::string model = example("calibrated-this-machine.xml");
    const Result sim = run("run " + model + " --oversubscribe --app trace:" + trace_path +
                           " --out " + (dir / "sim").string());
    ASSERT_EQ(sim.code, 0) << sim.err;
    const Result cmp = run("compare " + trace_path + " " + (dir / "sim").string() + " --out " +
                           (dir / "cmp").string());
    ASSERT_EQ(cmp.code, 0) << cmp.err;
    EXPECT_TRUE(fs::exists(dir / "cmp" / "compare_timeline.json"));
    EXPECT_TRUE(fs::exists(dir / "cmp" / "compare.csv"));
    // "total runtime: recorded 39.36 ms, simulated 41.2 ms, error +4.7%". The simulated run must be
    // the same program: its runtime within a factor of 3 of the recorded one on a 2-core machine
    // running 3 ranks (the recorded one is noisy; docs/validation.md has the real figures).
    std::smatch m;
    const std::regex runtime(
        R"(total runtime: recorded ([0-9.]+) (s|ms|us), simulated ([0-9.]+) (s|ms|us))");
    ASSERT_TRUE(std::regex_search(cmp.out, m, runtime)) << cmp.out;
    auto seconds = [](const std::string& v, const std::string& u) {
        return std::stod(v) * (u == "s" ? 1.0 : u == "ms" ? 1e-3 : 1e-6);
    };
    const double rec = seconds(m[1], m[2]), simulated = seconds(m[3], m[4]);
    EXPECT_GT(rec, 0.0);
    EXPECT_GT(simulated, rec / 3) << cmp.out;
    EXPECT_LT(simulated, rec * 3) << cmp.out;
}

TEST_F(RealMpi, MergeRefusesATruncatedRankFileAndFilesOfTwoRuns) {
    ASSERT_EQ(merged.code, 0) << merged.err;
    // A cut copy of rank 1's file.
    const fs::path cut = dir / "cut";
    fs::create_directories(cut);
    for (int r = 0; r < kRanks; ++r) {
        const std::string name = "traced_app.r" + std::to_string(r) + ".csrank";
        fs::copy_file(dir / "ranks" / name, cut / name);
    }
    fs::resize_file(cut / "traced_app.r1.csrank", fs::file_size(cut / "traced_app.r1.csrank") - 7);
    expect_bad_input("trace merge " + cut.string() + " -o " + (dir / "x.cstrace").string(),
                     "traced_app.r1.csrank: truncated");
    // Rank 2 missing.
    fs::remove(cut / "traced_app.r2.csrank");
    fs::remove(cut / "traced_app.r1.csrank");
    fs::copy_file(dir / "ranks" / "traced_app.r1.csrank", cut / "traced_app.r1.csrank");
    expect_bad_input("trace merge " + cut.string() + " -o " + (dir / "x.cstrace").string(),
                     "rank 2 of the run's 3 ranks is missing");
    // Rank 2 from a second run of the same program.
    const fs::path second = dir / "second";
    fs::create_directories(second);
    const Result again =
        shell(mpirun("-np 3 -x LD_PRELOAD=" + std::string(CLUSTERSIM_TRACER) +
                     " -x CLUSTERSIM_TRACE_DIR=" + second.string() + " " + CLUSTERSIM_TRACED_APP +
                     " 1 " + (dir / "ckpt2.dat").string()));
    ASSERT_EQ(again.code, 0) << again.err;
    fs::copy_file(second / "traced_app.r2.csrank", cut / "traced_app.r2.csrank");
    expect_bad_input("trace merge " + cut.string() + " -o " + (dir / "x.cstrace").string(),
                     "rank files of two different runs");
}

}  // namespace
}  // namespace clustersim::testing
