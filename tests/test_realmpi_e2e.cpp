// End to end on a real MPI (Open MPI, installed by .ci/install-deps.sh): a small MPI program
// (tests/mpi/traced_app.cpp, built with the project) runs under mpirun with the PMPI tracer
// preloaded; `clustersim trace merge` consolidates its rank files; the trace is checked
// against what the program does (record counts, bytes sent = bytes received, times in
// order); `clustersim run` replays it on the calibrated model of this kind of machine and
// `clustersim compare` sets the two side by side.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_fixtures.hpp"
#include "traces/reader.hpp"
#include "traces/trace.hpp"

namespace clustersim::testing {
namespace CLUSTERSIM_TEST_FILE {

namespace fs = std::filesystem;

constexpr int kRanks = 2;  // one per core of a 2-core CI machine: no oversubscription
constexpr int kIterations = 10;

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
        // A 4 KiB buffer (34 records): the run writes it out while it runs, and merge must
        // keep those writes out of the compute bursts. Every failed poll recorded
        // (CLUSTERSIM_TRACE_POLLS=all; folding them is test_realmpi_polling.cpp's).
        traced =
            shell(mpirun("-np " + std::to_string(kRanks) + " -x LD_PRELOAD=" + CLUSTERSIM_TRACER +
                         " -x CLUSTERSIM_TRACE_POLLS=all" +
                         " -x CLUSTERSIM_TRACE_BUFFER=4096 -x CLUSTERSIM_TRACE_DIR=" +
                         (dir / "ranks").string() + " " + CLUSTERSIM_TRACED_APP + " " +
                         std::to_string(kIterations) + " " + (dir / "ckpt.dat").string()));
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
    EXPECT_NE(traced.out.find("traced_app: 2 ranks, 10 iterations"), std::string::npos);
    for (int r = 0; r < kRanks; ++r)
        EXPECT_TRUE(fs::exists(dir / "ranks" / ("traced_app.r" + std::to_string(r) + ".csrank")));
    ASSERT_EQ(merged.code, 0) << merged.err;
    EXPECT_NE(merged.out.find("of traced_app (2 ranks"), std::string::npos) << merged.out;
    // Unmodeled calls, named and counted: MPI_Iprobe once per iteration and rank. The local
    // queries, once per rank, are folded (the `local` line). MPI_Comm_free is modeled (a
    // comm_free record per rank). (The `calls` line names every call.)
    const std::string unmodeled = merged.out.substr(merged.out.find("\n  unmodeled "));
    EXPECT_NE(unmodeled.find("unmodeled    20 calls"), std::string::npos) << merged.out;
    EXPECT_NE(unmodeled.find("MPI_Iprobe x20\n"), std::string::npos) << merged.out;
    EXPECT_NE(merged.out.find(
                  "(folded into the compute bursts): MPI_Comm_rank x2 MPI_Comm_size x2\n"),
              std::string::npos)
        << merged.out;
    EXPECT_EQ(unmodeled.find("MPI_Comm_free x"), std::string::npos) << merged.out;
    EXPECT_NE(merged.out.find(" MPI_Comm_free x2 "), std::string::npos) << merged.out;
    // The small buffer was written out while the program ran.
    std::smatch writes;
    ASSERT_TRUE(
        std::regex_search(merged.out, writes, std::regex(R"(tracer\s+(\d+) buffer writes)")))
        << merged.out;
    EXPECT_GE(std::stoi(writes[1]), kRanks) << merged.out;  // 184 records of 120 B: 2+ per rank
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
                          (std::vector<std::uint64_t>{8, 16}));  // r + 1 doubles
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
        EXPECT_EQ(n["scan"], 1);
        EXPECT_EQ(n["iexscan"], 1);
        EXPECT_EQ(n["wait"], 2);
        EXPECT_EQ(n["comm_split"], 1);
        EXPECT_EQ(n["barrier"], 1);
        EXPECT_EQ(n["file_open"], 1);
        EXPECT_EQ(n["file_write_at_all"], 1);
        EXPECT_EQ(n["file_close"], 1);
        EXPECT_EQ(n["comm_free"], 1);
        // MPI_Iprobe per iteration (MPI_Comm_free is modeled; MPI_Comm_rank and MPI_Comm_size
        // are local queries, folded into the compute).
        EXPECT_EQ(n["unmodeled"], kIterations);
        EXPECT_EQ(n["send"], rank == 0 ? kIterations : 0);
        EXPECT_EQ(n["recv"], rank == kRanks - 1 ? kIterations : 0);
        EXPECT_GT(n["compute"], 0);
    }
    EXPECT_EQ(sent, received);
    // 10 iterations x 2 ranks x (32 KiB sendrecv + 64 KiB isend) + 10 x 8 KiB send.
    EXPECT_EQ(sent, 10u * 2u * (32768u + 65536u) + 10u * 8192u);
}

TEST_F(RealMpi, ReplayOnTheCalibratedModelAndCompare) {
    ASSERT_EQ(merged.code, 0) << merged.err;
    const std::string model = example("calibrated-this-machine.xml");
    const Result sim =
        run("run " + model + " --app trace:" + trace_path + " --out " + (dir / "sim").string());
    ASSERT_EQ(sim.code, 0) << sim.err;
    const Result cmp = run("compare " + trace_path + " " + (dir / "sim").string() + " --out " +
                           (dir / "cmp").string());
    ASSERT_EQ(cmp.code, 0) << cmp.err;
    EXPECT_TRUE(fs::exists(dir / "cmp" / "compare_timeline.json"));
    EXPECT_TRUE(fs::exists(dir / "cmp" / "compare.csv"));
    // compare.csv: the compute bursts are replayed as recorded (the traced machine is the
    // target, one rank per core), so the Compute rows agree to rounding; the simulated
    // runtime holds at least every rank's compute, and (the calibrated model being a
    // best case of this machine; a run this short is dominated by first-call costs such as
    // MPI-IO's setup, docs/validation.md has real figures) does not exceed the recorded one
    // by much.
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
    // To rounding: each compute record is projected through whole instructions and back to
    // picoseconds (half an instruction per record each way); 1 ns of slack was once exceeded
    // by 0.3 ns on a run of a few hundred records, so 5 ns, still far below any modelled cost.
    EXPECT_NEAR(compute_sim, compute_rec, 1e-6 * compute_rec + 5e-9);
    EXPECT_GE(total_sim, compute_sim / kRanks);
    EXPECT_LE(total_sim, 1.5 * total_rec) << cmp.out;
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
    // Rank 1 missing.
    fs::remove(cut / "traced_app.r1.csrank");
    expect_bad_input("trace merge " + cut.string() + " -o " + (dir / "x.cstrace").string(),
                     "rank 1 of the run's 2 ranks is missing");
    // Rank 1 from a second run of the same program.
    const fs::path second = dir / "second";
    fs::create_directories(second);
    const Result again =
        shell(mpirun("-np 2 -x LD_PRELOAD=" + std::string(CLUSTERSIM_TRACER) +
                     " -x CLUSTERSIM_TRACE_DIR=" + second.string() + " " + CLUSTERSIM_TRACED_APP +
                     " 1 " + (dir / "ckpt2.dat").string()));
    ASSERT_EQ(again.code, 0) << again.err;
    fs::copy_file(second / "traced_app.r1.csrank", cut / "traced_app.r1.csrank");
    expect_bad_input("trace merge " + cut.string() + " -o " + (dir / "x.cstrace").string(),
                     "rank files of two different runs");
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::testing
