// `clustersim record` on a real MPI: the tracer is preloaded through mpirun, makes the rank
// files' folder itself (two levels that do not exist yet), the rank files are merged, and
// the trace replays. And a failing program is reported without a merge.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_fixtures.hpp"

namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::testing;
namespace fs = std::filesystem;

std::string mpirun() {
    return std::string(CLUSTERSIM_MPIEXEC) + " --allow-run-as-root --oversubscribe -np 2 ";
}

TEST(RealMpiRecord, RecordsMergesAndReplays) {
    const fs::path dir = fs::path(temp_path("record"));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string trace = (dir / "app.cstrace").string();
    const std::string ranks = (dir / "not" / "yet" / "ranks").string();
    const Result r =
        run("record -o " + trace + " --dir " + ranks + " -- " + mpirun() + CLUSTERSIM_TRACED_APP);
    ASSERT_EQ(r.code, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("merged run"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(2 ranks on"), std::string::npos) << r.out;
    EXPECT_TRUE(fs::is_regular_file(fs::path(ranks) / "traced_app.r0.csrank"));
    EXPECT_TRUE(fs::is_regular_file(fs::path(ranks) / "traced_app.r1.csrank"));
    ASSERT_TRUE(fs::is_regular_file(trace));
    const Result replay =
        run("run " + example("calibrated-this-machine.xml") + " --app trace:" + trace + " --json");
    EXPECT_EQ(replay.code, 0) << replay.err;
    // A second record into the same folder would mix two runs: refused before running.
    expect_bad_input("record -o " + trace + " --dir " + ranks + " -- true",
                     "already holds rank files");
    fs::remove_all(dir);
}

TEST(RealMpiRecord, AFailingProgramIsReportedAndNothingIsMerged) {
    const fs::path dir = fs::path(temp_path("record-fail"));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string trace = (dir / "x.cstrace").string();
    const Result r = run("record -o " + trace + " -- " + mpirun() + " false");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("nothing merged"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(trace));
    fs::remove_all(dir);
}

}  // namespace CLUSTERSIM_TEST_FILE
