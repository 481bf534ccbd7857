// `clustersim compare --by-size` (issue 57): the table per operation and message size class on
// stdout, and with --out its rows in compare.csv, where names holding commas are quoted.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cli_fixtures.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::testing;
namespace fs = std::filesystem;

// Two ranks: messages of 8 B, 4 KiB and 1 MiB, with times.
const char* kThreeSizes = R"(clustersim-trace 1
name sizes
rank 0
send peer=1 tag=0 bytes=8B start=0s end=10us
send peer=1 tag=0 bytes=4KiB start=10us end=30us
send peer=1 tag=0 bytes=1MiB start=30us end=2ms
rank 1
recv peer=0 tag=0 bytes=8B start=0s end=12us
recv peer=0 tag=0 bytes=4KiB start=12us end=31us
recv peer=0 tag=0 bytes=1MiB start=31us end=2ms
)";

TEST(CliCompareBySize, TheTableAndTheCsvHaveOneRowPerOperationAndSizeClass) {
    const std::string rec = write_temp("sizes.trace", kThreeSizes);
    const std::string sim = temp_path("sizes-sim");
    fs::remove_all(sim);
    const Result r =
        testing::run("run " + example("two-nodes.xml") + " --app trace:" + rec + " --out " + sim);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string out = temp_path("sizes-cmp");
    fs::remove_all(out);
    const Result c = testing::run("compare " + rec + " " + sim + " --by-size --out " + out);
    ASSERT_EQ(c.code, 0) << c.err;
    for (const char* row : {"Send (0 B, 64 B]", "Send (1 KiB, 16 KiB]", "Send (256 KiB, 4 MiB]",
                            "Recv (0 B, 64 B]", "Recv (1 KiB, 16 KiB]", "Recv (256 KiB, 4 MiB]"})
        EXPECT_NE(c.out.find(row), std::string::npos) << row << "\n" << c.out;
    // Without the flag, no such table.
    const Result plain = testing::run("compare " + rec + " " + sim);
    ASSERT_EQ(plain.code, 0) << plain.err;
    EXPECT_EQ(plain.out.find("size class"), std::string::npos) << plain.out;
    // compare.csv: the rows, names quoted; every line has 7 fields outside quotes.
    std::ifstream csv(out + "/compare.csv");
    std::string line;
    int sized = 0;
    while (std::getline(csv, line)) {
        int fields = 1;
        bool quoted = false;
        for (const char ch : line) {
            if (ch == '"') quoted = !quoted;
            if (ch == ',' && !quoted) ++fields;
        }
        EXPECT_EQ(fields, 7) << line;
        if (line.rfind("operation_size,", 0) == 0) ++sized;
    }
    EXPECT_EQ(sized, 6);
    EXPECT_NE(slurp(out + "/compare.csv").find("operation_size,\"Send (0 B, 64 B]\",1,1,1e-05,"),
              std::string::npos)
        << slurp(out + "/compare.csv");
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
