// Traces a replay should not be trusted for (issue 55): one with no MPI call the simulator
// models, and one whose ranks were cut before MPI_Finalize, are named in a one-line warning on
// stderr and again in the run's summary (text and --json); a whole trace gets none.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::testing;
namespace fs = std::filesystem;

// A SimGrid TI trace of 3 ranks in one file; `cut` leaves rank 2's finalize out.
std::string ti_trace(const std::string& name, bool cut) {
    std::string text =
        "0 init\n1 init\n2 init\n0 send 1 1e3\n1 recv 0 1e3\n0 compute 1e6\n"
        "1 compute 1e6\n2 compute 1e6\n0 finalize\n1 finalize\n";
    if (!cut) text += "2 finalize\n";
    return write_temp(name, text);
}

TEST(CliTraceWarnings, ATraceCutBeforeFinalizeIsNamedOnStderrAndInTheSummary) {
    const std::string cut = ti_trace("cut.txt", true);
    const Result r = testing::run("run " + example("star-16.xml") + " --app trace:" + cut);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string line =
        "1 of 3 ranks ends before MPI_Finalize (rank 2): the recording was cut";
    EXPECT_NE(r.err.find("clustersim: warning: " + cut + ": " + line), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("  warning            " + cut + ": " + line), std::string::npos) << r.out;
    const Result j =
        testing::run("run " + example("star-16.xml") + " --app trace:" + cut + " --json");
    ASSERT_EQ(j.code, 0) << j.err;
    const auto json = nlohmann::json::parse(j.out);
    ASSERT_EQ(json.at("warnings").size(), 1u);
    EXPECT_NE(json["warnings"][0].get<std::string>().find(line), std::string::npos);
    // The whole trace: no warning, no "warnings" key.
    const std::string whole = ti_trace("whole.txt", false);
    const Result w =
        testing::run("run " + example("star-16.xml") + " --app trace:" + whole + " --json");
    ASSERT_EQ(w.code, 0) << w.err;
    EXPECT_EQ(w.err.find("warning"), std::string::npos) << w.err;
    EXPECT_FALSE(nlohmann::json::parse(w.out).contains("warnings"));
}

TEST(CliTraceWarnings, ATraceWithoutModelledCallsSaysTheRunPredictsNothing) {
    const std::string compute = write_temp(
        "compute-only.trace",
        "clustersim-trace 1\nname c\nrank 0\ncompute time=1ms\nrank 1\ncompute time=2ms\n");
    const Result r = testing::run("run " + example("star-16.xml") + " --app trace:" + compute);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("clustersim: warning: " + compute +
                         ": no MPI call the simulator models (2 records"),
              std::string::npos)
        << r.err;
    // clustersim's own traces record no finalize: no cut is claimed for them.
    EXPECT_EQ(r.err.find("MPI_Finalize"), std::string::npos) << r.err;
    // A trace with a modelled call gets no such warning.
    const std::string sends = write_temp(
        "sends.trace",
        "clustersim-trace 1\nname s\nrank 0\nsend peer=1 tag=0 bytes=8B\nrank 1\nrecv peer=0 "
        "tag=0 bytes=8B\n");
    const Result s = testing::run("run " + example("star-16.xml") + " --app trace:" + sends);
    ASSERT_EQ(s.code, 0) << s.err;
    EXPECT_EQ(s.err.find("warning"), std::string::npos) << s.err;
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
