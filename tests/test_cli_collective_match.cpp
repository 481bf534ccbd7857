// Ranks that disagree on a collective call are refused (issue 53, "MPI consistency checked
// across ranks"): MPI_Barrier on one rank and MPI_Allreduce on the other completed together
// as if matched, predicting a program that cannot run. The operation, the root of rooted
// collectives and the count of those where every rank passes one block must agree on every
// rank of the communicator; the run stops with one line naming both ranks, the call and
// what differs, at the record of the rank that disagreed.
#include <string>

#include <gtest/gtest.h>

#include "cli_fixtures.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using testing::example;
using testing::expect_bad_input;
using testing::write_temp;

std::string two_ranks(const std::string& r0, const std::string& r1) {
    return "clustersim-trace 1\nname match\nrank 0\n" + r0 + "\nrank 1\n" + r1 + "\n";
}

std::string replay(const std::string& name, const std::string& trace) {
    return "run " + example("star-16.xml") + " --app trace:" + write_temp(name, trace);
}

TEST(CollectiveMatch, RanksCallingDifferentCollectivesAreRefused) {
    expect_bad_input(replay("op.trace", two_ranks("barrier", "allreduce bytes=8B")),
                     "ranks disagree on collective call 1 on communicator 0: rank 1 calls "
                     "MPI_Allreduce where rank 0 called MPI_Barrier");
    // The second call disagrees, the first matched: named as call 2 (whichever rank enters
    // it second is the one stopped, at its record 2).
    const testing::Result r =
        testing::run(replay("second.trace", two_ranks("barrier\nbcast bytes=1KiB root=0",
                                                      "barrier\nreduce bytes=1KiB root=0")));
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("ranks disagree on collective call 2 on communicator 0"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("MPI_Bcast"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("MPI_Reduce"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("(record 2 of rank "), std::string::npos) << r.err;
}

TEST(CollectiveMatch, DifferentRootsOrCountsAreRefused) {
    expect_bad_input(
        replay("root.trace", two_ranks("bcast bytes=8B root=0", "bcast bytes=8B root=1")),
        "rank 1 gives root 1 where rank 0 gave root 0");
    expect_bad_input(replay("count.trace", two_ranks("allreduce bytes=8B", "allreduce bytes=16B")),
                     "rank 1 passes 16 B where rank 0 passed 8 B");
}

TEST(CollectiveMatch, MatchingCallsStillRun) {
    const testing::Result r =
        testing::run(replay("ok.trace", two_ranks("barrier\nbcast bytes=8B root=1\nallreduce "
                                                  "bytes=8B",
                                                  "barrier\nbcast bytes=8B root=1\nallreduce "
                                                  "bytes=8B")));
    EXPECT_EQ(r.code, 0) << r.err;
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
