// One-sided calls traced and replayed (issue 54): tests/mpi/onesided_app.cpp makes MPI_Cart_sub
// and one-sided communication under fence and lock/unlock. Before, none of the one-sided calls
// was wrapped: their time vanished into the compute bursts around them and nothing named
// them. Now each is recorded under its own name and count (merge's `calls` line) and
// simulated (mpi/onesided.cpp; tests/test_cli_onesided.cpp has the closed forms): nothing of
// it is `unmodeled`, and the replay shows the puts, gets, accumulates, fences and locks. The
// Cart_sub is the comm_split it equals, so the Allreduce on its communicator is simulated.
// The matched receives (MPI_Mprobe + MPI_Mrecv, MPI_Improbe + MPI_Imrecv) become the recv and
// irecv they equal, MPI_Comm_dup_with_info a comm_dup, MPI_Ireduce_scatter a reduce_scatter.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"

namespace clustersim::testing {
namespace CLUSTERSIM_TEST_FILE {

namespace fs = std::filesystem;

constexpr int kRanks = 2;
constexpr int kIterations = 10;

TEST(OneSided, EveryOneSidedCallIsRecordedByName) {
    const fs::path dir =
        fs::temp_directory_path() / ("clustersim_onesided_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "ranks");
    const Result traced =
        run_shell(mpirun("-np " + std::to_string(kRanks) + " -x LD_PRELOAD=" + CLUSTERSIM_TRACER +
                         " -x CLUSTERSIM_TRACE_DIR=" + (dir / "ranks").string() + " " +
                         CLUSTERSIM_ONESIDED_APP + " " + std::to_string(kIterations)));
    ASSERT_EQ(traced.code, 0) << traced.err;
    // Every rank adds 1 per iteration to rank 0's counter (the fetch-and-op).
    EXPECT_NE(traced.out.find("counter 20, row sum"), std::string::npos) << traced.out;
    const std::string trace = (dir / "app.cstrace").string();
    const Result merged = run("trace merge " + (dir / "ranks").string() + " -o " + trace);
    ASSERT_EQ(merged.code, 0) << merged.err;

    const long n = kRanks, it = kIterations;
    const std::map<std::string, long> one_sided{
        {"MPI_Win_allocate", n},      {"MPI_Win_fence", 3 * it * n}, {"MPI_Put", it * n},
        {"MPI_Get", it * n},          {"MPI_Win_lock", it * n},      {"MPI_Accumulate", it * n},
        {"MPI_Fetch_and_op", it * n}, {"MPI_Win_unlock", it * n},    {"MPI_Win_lock_all", n},
        {"MPI_Get_accumulate", n},    {"MPI_Win_flush_all", n},      {"MPI_Win_unlock_all", n},
        {"MPI_Win_free", n}};
    const std::map<std::string, long> calls = merge_counts(merged.out, "calls");
    const std::map<std::string, long> unmodeled = merge_counts(merged.out, "unmodeled");
    for (const auto& [name, count] : one_sided) {
        EXPECT_EQ(calls.count(name) ? calls.at(name) : 0, count) << name << "\n" << merged.out;
        EXPECT_EQ(unmodeled.count(name), 0u) << name << "\n" << merged.out;
    }
    // Only the matched probes are unmodeled (the simulator has no probe).
    EXPECT_EQ(unmodeled, (std::map<std::string, long>{{"MPI_Improbe", 1}, {"MPI_Mprobe", 1}}))
        << merged.out;
    // Cart_sub is a comm_split; the Allreduce on the row communicator is simulated.
    EXPECT_EQ(calls.at("MPI_Cart_sub"), n);
    EXPECT_EQ(unmodeled.count("MPI_Cart_sub"), 0u);
    EXPECT_EQ(unmodeled.count("MPI_Allreduce"), 0u) << merged.out;

    // Matched receives are the recv and irecv they equal, on the probe's communicator; the
    // duplicate with info a comm_dup; the reduce-scatter of equal counts simulated.
    EXPECT_EQ(calls.at("MPI_Mrecv"), 1);
    EXPECT_EQ(calls.at("MPI_Imrecv"), 1);
    EXPECT_EQ(calls.at("MPI_Mprobe"), 1);
    EXPECT_EQ(calls.at("MPI_Comm_dup_with_info"), n);
    EXPECT_EQ(calls.at("MPI_Ireduce_scatter"), n);
    for (const char* name :
         {"MPI_Mrecv", "MPI_Imrecv", "MPI_Comm_dup_with_info", "MPI_Ireduce_scatter"})
        EXPECT_EQ(unmodeled.count(name), 0u) << name << "\n" << merged.out;

    const Result replay =
        run("run " + std::string(CLUSTERSIM_SOURCE_DIR) +
            "/topologies/examples/two-nodes.xml --app trace:" + trace + " --json");
    ASSERT_EQ(replay.code, 0) << replay.err;
    const nlohmann::json ops = nlohmann::json::parse(replay.out).at("operations");
    // Per rank and iteration: a put, a get, an accumulate and a fetch-and-op (an accumulate
    // that fetches), three fences, a lock and an unlock; then the lock_all epoch.
    EXPECT_EQ(ops.at("Put").at("count").get<long>(), it * n);
    EXPECT_EQ(ops.at("Get").at("count").get<long>(), it * n);
    EXPECT_EQ(ops.at("Accumulate").at("count").get<long>(), it * n);
    EXPECT_EQ(ops.at("Get_accumulate").at("count").get<long>(), it * n + n);
    EXPECT_EQ(ops.at("Win_fence").at("count").get<long>(), 3 * it * n);
    EXPECT_EQ(ops.at("Win_lock").at("count").get<long>(), it * n + n);
    EXPECT_EQ(ops.at("Win_unlock").at("count").get<long>(), it * n + n);
    EXPECT_EQ(ops.at("Win_flush").at("count").get<long>(), n);
    EXPECT_EQ(ops.at("Win_create").at("count").get<long>(), n);
    EXPECT_EQ(ops.at("Win_free").at("count").get<long>(), n);
    EXPECT_TRUE(ops.contains("Allreduce"));
    fs::remove_all(dir);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::testing
