// Ranks that disagree on a collective call are refused (issue 53, "MPI consistency checked
// across ranks", the hostile class of its "silent nonsense"): the operation, the root of
// rooted collectives, the size of those whose every rank passes one block (bcast, reduce,
// allreduce, ...), blocking or not, and the communicator must agree on every rank, as MPI
// requires. The run
// stops with one line naming both ranks, both records and what differs, exit 2. Calls MPI
// allows to differ (the counts of gatherv and alltoallv, calls on the different
// communicators a split gives each colour) still run. Hand-written native text traces
// (traces/README.md).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_fixtures.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using testing::example;
using testing::write_temp;

std::string trace(const std::string& header, const std::vector<std::string>& ranks) {
    std::string t = "clustersim-trace 1\nname consistency\n" + header;
    for (std::size_t r = 0; r < ranks.size(); ++r)
        t += "rank " + std::to_string(r) + "\n" + ranks[r] + "\n";
    return t;
}

testing::Result replay(const std::string& path) {
    return testing::run("run " + example("star-16.xml") + " --app trace:" + path);
}

// The whole error output: exactly `line`, one line, exit 2, nothing on stdout.
void expect_refused(const std::string& name, const std::string& text, const std::string& line) {
    const std::string path = write_temp(name, text);
    const testing::Result r = replay(path);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(r.err, "clustersim: error: " + path + ": " + line + "\n");
    EXPECT_EQ(r.out, "");
}

const std::string kSameCall = "(MPI requires the same call on every rank of the communicator)";

TEST(HostileMpiConsistency, DifferentOperationsNameBothRanksAndBothRecords) {
    // Rank 1 enters first (rank 0 computes first): rank 0 is the one that disagrees, at its
    // record 2; rank 1's call is its record 1.
    expect_refused("op.trace",
                   trace("", {"compute instructions=1000000\nbarrier", "allreduce bytes=8B"}),
                   "ranks disagree on collective call 1 on communicator 0: rank 0 calls "
                   "MPI_Barrier where rank 1 called MPI_Allreduce " +
                       kSameCall + " (record 2 of rank 0, record 1 of rank 1)");
}

TEST(HostileMpiConsistency, ABlockingCollectiveNeverMatchesItsNonBlockingForm) {
    // MPI 3.1, section 5.12: "nonblocking collective operations do not match with blocking
    // collective operations". Rank 1 enters MPI_Ibcast first.
    expect_refused("ibcast.trace",
                   trace("", {"compute instructions=1000000\nbcast bytes=8B root=0",
                              "ibcast bytes=8B root=0 handle=1\nwait handle=1"}),
                   "ranks disagree on collective call 1 on communicator 0: rank 0 calls "
                   "MPI_Bcast where rank 1 called MPI_Ibcast (a non-blocking collective never "
                   "matches a blocking one) " +
                       kSameCall + " (record 2 of rank 0, record 1 of rank 1)");
}

TEST(HostileMpiConsistency, DifferentRootsAreRefused) {
    expect_refused("root.trace",
                   trace("", {"reduce bytes=8B root=0",
                              "compute instructions=1000\nreduce "
                              "bytes=8B root=1"}),
                   "ranks disagree on collective call 1 on communicator 0: rank 1 gives root 1 "
                   "where rank 0 gave root 0 to MPI_Reduce " +
                       kSameCall + " (record 2 of rank 1, record 1 of rank 0)");
}

TEST(HostileMpiConsistency, DifferentSizesAreRefusedWhereMpiRequiresEqualOnes) {
    for (const std::string op : {"bcast", "reduce", "allreduce"}) {
        const std::string name = op == "bcast" ? "Bcast" : op == "reduce" ? "Reduce" : "Allreduce";
        expect_refused(op + "-size.trace",
                       trace("", {"barrier\n" + op + " bytes=1KiB",
                                  "barrier\ncompute instructions=1000\n" + op + " bytes=2KiB"}),
                       "ranks disagree on collective call 2 on communicator 0: rank 1 passes "
                       "2048 B where rank 0 passed 1024 B to MPI_" +
                           name + " " + kSameCall + " (record 3 of rank 1, record 2 of rank 0)");
    }
}

TEST(HostileMpiConsistency, TheFirstRankIsNamedAtTheRecordOfItsCallAfterItMovedOn) {
    // A non-blocking call: rank 0 enters it and goes on computing; rank 1 disagrees later.
    // Rank 0 is named at its ibcast (record 1), not at the compute it is in.
    expect_refused("moved-on.trace",
                   trace("", {"ibcast bytes=8B handle=1\ncompute instructions=1000000000\nwait "
                              "handle=1",
                              "compute instructions=1000\nibcast bytes=16B handle=1\nwait "
                              "handle=1"}),
                   "ranks disagree on collective call 1 on communicator 0: rank 1 passes 16 B "
                   "where rank 0 passed 8 B to MPI_Bcast " +
                       kSameCall + " (record 2 of rank 1, record 1 of rank 0)");
}

TEST(HostileMpiConsistency, DifferentCommunicatorsAreRefusedNotReportedAsADeadlock) {
    // Both ranks duplicate the world; rank 0 then calls the barrier on the world, rank 1 on
    // the duplicate: each waits for the other.
    expect_refused(
        "comm.trace",
        trace("", {"comm_dup newcomm=1\nbarrier", "comm_dup newcomm=1\nbarrier comm=1"}),
        "ranks disagree on the communicator of a collective call: rank 1 waits in MPI_Barrier "
        "on communicator 1 where rank 0 waits in MPI_Barrier on communicator 0 (its call 2 "
        "there), which rank 1 is a member of and never enters (MPI requires every rank of a "
        "communicator to make the same calls on it in the same order) (record 2 of rank 1, "
        "record 2 of rank 0)");
}

TEST(HostileMpiConsistency, CallsMpiAllowsToDifferStillRun) {
    // gatherv and alltoallv with counts that differ between ranks; a split whose two colours
    // call different collectives with different sizes on their own communicators.
    const std::string path = write_temp(
        "legal.trace",
        trace("counts 0 8B 16B 8B 16B\ncounts 1 8B 32B 0B 1KiB\n"
              "counts 2 1KiB 0B 4B 8B 1KiB 0B 4B 8B 1KiB 0B 4B 8B 1KiB 0B 4B 8B\n"
              "counts 3 0B 2KiB 16B 1B 0B 2KiB 16B 1B 0B 2KiB 16B 1B 0B 2KiB 16B 1B\n",
              {"gatherv counts=0\nalltoallv counts=2\ncomm_split color=0 key=0 newcomm=1\nbcast "
               "bytes=1KiB comm=1\nbarrier",
               "gatherv counts=1\nalltoallv counts=3\ncomm_split color=0 key=0 newcomm=1\nbcast "
               "bytes=1KiB comm=1\nbarrier",
               "gatherv counts=0\nalltoallv counts=2\ncomm_split color=1 key=0 newcomm=1\n"
               "allreduce bytes=64KiB comm=1\nbarrier",
               "gatherv counts=1\nalltoallv counts=3\ncomm_split color=1 key=0 newcomm=1\n"
               "allreduce bytes=64KiB comm=1\nbarrier"}));
    const testing::Result r = replay(path);
    EXPECT_EQ(r.code, 0) << r.err;
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
