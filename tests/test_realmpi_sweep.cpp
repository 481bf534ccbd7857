// `mpirun -np 2 clustersim sweep FILE` (Open MPI): clustersim execs clustersim-sweep-mpi, rank 0
// hands out points to both ranks, and the results file is the one `--jobs 1` writes (measured
// fields aside); a failing point is recorded and the others complete.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"
#include "sweep/sweep_engine.hpp"

namespace clustersim::testing {
namespace CLUSTERSIM_TEST_FILE {

namespace fs = std::filesystem;

std::vector<nlohmann::json> deterministic_records(const std::string& dir) {
    std::vector<nlohmann::json> out;
    std::stringstream ss(slurp(dir + "/results.jsonl"));
    std::string line;
    while (std::getline(ss, line))
        if (!line.empty()) out.push_back(sweep::without_measured(nlohmann::json::parse(line)));
    return out;
}

TEST(RealMpiSweep, TwoRanksWriteTheResultsOfOneLocalJob) {
    // 18 points on a generated fat tree (one model file for all), 3 of them failing.
    const std::string file = write_temp("sweep.json", R"({
  "base": {"generate": {"topology": "fat-tree", "down": "4,4", "up": "1,2", "nic": "analytical"},
           "app": "bcast:iterations=1"},
  "axes": {"size": ["1KiB", "256KiB", "1XB"],
           "algorithm": ["bcast=binomial", "bcast=scatter_allgather", "bcast=pipelined_chain"],
           "ranks": [4, 16]}
})");
    const std::string mpi_out = temp_path("mpi"), local_out = temp_path("local");
    fs::remove_all(mpi_out);
    fs::remove_all(local_out);
    const Result m =
        run_shell(std::string(CLUSTERSIM_MPIEXEC) + " --allow-run-as-root --oversubscribe -np 2 " +
                  CLUSTERSIM_BINARY + " sweep " + file + " --out " + mpi_out);
    // Exit 1: some points failed (mpirun passes rank 0's code on).
    EXPECT_EQ(m.code, 1) << m.out << m.err;
    EXPECT_NE(m.out.find("18 points, 18 run now (MPI, 2 ranks x 1 job; points run by rank 0..1: "),
              std::string::npos)
        << m.out;
    EXPECT_NE(m.out.find("12 ok, 6 failed"), std::string::npos) << m.out;
    // Both ranks ran points.
    const auto at = m.out.find("points run by rank 0..1: ");
    ASSERT_NE(at, std::string::npos);
    int r0 = -1, r1 = -1;
    std::stringstream(m.out.substr(at + 25)) >> r0 >> r1;
    EXPECT_GT(r0, 0);
    EXPECT_GT(r1, 0);
    EXPECT_EQ(r0 + r1, 18);
    const Result l = run("sweep " + file + " --jobs 1 --out " + local_out);
    EXPECT_EQ(l.code, 1) << l.out << l.err;
    const auto a = deterministic_records(mpi_out), b = deterministic_records(local_out);
    ASSERT_EQ(a.size(), 18u);
    EXPECT_EQ(a, b);
    // Two points at a time per rank (the slots protocol), with progress lines (mpirun's
    // stderr is no terminal: whole lines, the last one at the end).
    const std::string two_out = temp_path("mpi_j2");
    fs::remove_all(two_out);
    const Result j2 =
        run_shell(std::string(CLUSTERSIM_MPIEXEC) +
                  " --allow-run-as-root --oversubscribe --bind-to none -np 2 " + CLUSTERSIM_BINARY +
                  " sweep " + file + " --jobs 2 --progress --out " + two_out);
    EXPECT_EQ(j2.code, 1) << j2.out << j2.err;
    EXPECT_NE(j2.out.find("(MPI, 2 ranks x 2 jobs; "), std::string::npos) << j2.out;
    EXPECT_NE(j2.err.find("  sweep: 18/18 points, 6 failed, "), std::string::npos) << j2.err;
    EXPECT_EQ(deterministic_records(two_out), b);
    fs::remove_all(two_out);
    // Resume under MPI: nothing left to run.
    const Result again =
        run_shell(std::string(CLUSTERSIM_MPIEXEC) + " --allow-run-as-root --oversubscribe -np 2 " +
                  CLUSTERSIM_BINARY + " sweep " + file + " --out " + mpi_out);
    // (the failed points failed on bad input: done too, unless --retry-failed)
    EXPECT_NE(again.out.find("18 points, 0 run now"), std::string::npos) << again.out;
    EXPECT_NE(again.out.find("18 done before"), std::string::npos) << again.out;
    fs::remove_all(mpi_out);
    fs::remove_all(local_out);
}

TEST(RealMpiSweep, ABadSweepFileIsOneErrorAndEveryRankEnds) {
    const std::string file = write_temp(
        "bad.json", "{\n  \"base\": {\"app\": \"pingpong\"},\n  \"axes\": {\"nodes\": [2]}\n}\n");
    const Result m =
        run_shell(std::string(CLUSTERSIM_MPIEXEC) + " --allow-run-as-root --oversubscribe -np 2 " +
                  CLUSTERSIM_BINARY + " sweep " + file + " --out " + temp_path("out"));
    EXPECT_EQ(m.code, 2) << m.out << m.err;
    EXPECT_NE(m.err.find("clustersim: error: " + file +
                         ":3: axes.nodes: a generator parameter needs base.generate"),
              std::string::npos)
        << m.err;
    fs::remove_all(temp_path("out"));
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::testing
