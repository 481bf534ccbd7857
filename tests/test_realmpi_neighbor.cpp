// The neighbourhood collectives end to end on a real MPI (Open MPI): tests/mpi/neighbor_app.cpp
// (MPI_Cart_create, MPI_Neighbor_alltoall, MPI_Ineighbor_allgather,
// MPI_Dist_graph_create_adjacent, MPI_Neighbor_alltoallv, MPI_Dist_graph_create,
// MPI_Neighbor_allgatherv, MPI_Alltoallw) runs on 4 ranks under mpirun with the tracer
// preloaded and checks the data it receives; `clustersim trace merge` turns its rank files
// into a trace in which every one of those calls is modelled (none unmodeled); the trace
// replays without deadlock, its neighbourhood calls run by the `linear` algorithm, and
// survives the text, binary and OTF2 round trips.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "cli_fixtures.hpp"
#include "traces/reader.hpp"
#include "traces/trace.hpp"

namespace clustersim::testing {
namespace CLUSTERSIM_TEST_FILE {

namespace fs = std::filesystem;

constexpr int kRanks = 4;
constexpr int kIterations = 3;

TEST(RealMpiNeighbor, TracedMergedAndReplayed) {
    const fs::path dir =
        fs::temp_directory_path() / ("clustersim_realmpi_neighbor_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "ranks");
    const Result traced =
        run_shell(std::string(CLUSTERSIM_MPIEXEC) + " --allow-run-as-root --oversubscribe -np " +
                  std::to_string(kRanks) + " -x LD_PRELOAD=" + CLUSTERSIM_TRACER +
                  " -x CLUSTERSIM_TRACE_DIR=" + (dir / "ranks").string() + " " +
                  CLUSTERSIM_NEIGHBOR_APP + " " + std::to_string(kIterations));
    ASSERT_EQ(traced.code, 0) << traced.out << traced.err;
    EXPECT_NE(traced.out.find("neighbor_app: 4 ranks, 3 iterations, data right"), std::string::npos)
        << traced.out;
    const std::string trace = (dir / "app.cstrace").string();
    const Result merged = run("trace merge " + (dir / "ranks").string() + " -o " + trace);
    ASSERT_EQ(merged.code, 0) << merged.err;
    // Its unmodeled calls are only the rank/size queries (the communicator frees are
    // comm_free records).
    const auto line = merged.out.find("unmodeled ");
    ASSERT_NE(line, std::string::npos) << merged.out;
    const std::string unmodeled = merged.out.substr(line, merged.out.find('\n', line) - line);
    for (const char* call : {"MPI_Cart_create", "MPI_Dist_graph_create", "MPI_Neighbor",
                             "MPI_Ineighbor", "MPI_Alltoallw", "MPI_Comm_free"})
        EXPECT_EQ(unmodeled.find(call), std::string::npos) << unmodeled;

    traces::ReadReport rep;
    const traces::Trace t = traces::load_trace(trace, "auto", {}, rep);
    ASSERT_EQ(t.ranks(), static_cast<std::uint32_t>(kRanks));
    for (std::uint32_t rank = 0; rank < t.ranks(); ++rank) {
        std::map<std::string, int> n;
        auto c = t.cursor(rank);
        for (traces::Record r; c.next(r);) {
            ++n[traces::record_name(r)];
            if (r.kind == mpi::OpKind::Unmodeled) {
                const std::string name = t.strings[static_cast<std::size_t>(r.path)];
                EXPECT_EQ(name.find("eighbor"), std::string::npos) << name;
                EXPECT_EQ(name.find("_create"), std::string::npos) << name;
                EXPECT_NE(name, "MPI_Alltoallw");
            }
            if (r.kind == mpi::OpKind::Collective && r.coll == mpi::CollOp::NeighborAlltoallv) {
                // the rank's own counts: 2 out-neighbours, 2 in-neighbours, doubles
                ASSERT_NE(r.counts, traces::kNone);
                EXPECT_EQ(t.count_lists[static_cast<std::size_t>(r.counts)].size(), 4u);
            }
        }
        EXPECT_EQ(n["cart_create"], 1) << "rank " << rank;
        EXPECT_EQ(n["dist_graph_create_adjacent"], 1);
        EXPECT_EQ(n["dist_graph_create"], 1);
        EXPECT_EQ(n["neighbor_alltoall"], kIterations);
        EXPECT_EQ(n["ineighbor_allgather"], kIterations);
        EXPECT_EQ(n["neighbor_alltoallv"], kIterations);
        EXPECT_EQ(n["neighbor_allgatherv"], 1);
        EXPECT_EQ(n["alltoallw"], 1);
    }

    // Replayed: every rank finishes (a deadlock is an error), the neighbourhood calls by
    // their algorithm.
    const std::string model = example("calibrated-this-machine.xml");
    const Result sim = run("run " + model + " --app trace:" + trace + " --oversubscribe");
    ASSERT_EQ(sim.code, 0) << sim.err;
    for (const char* line : {"neighbor_alltoall/linear", "neighbor_allgather/linear",
                             "neighbor_alltoallv/linear", "neighbor_allgatherv/linear"})
        EXPECT_NE(sim.out.find(line), std::string::npos) << sim.out;

    // The same simulated time after the text, binary and OTF2 round trips.
    auto simulated = [&](const std::string& path) {
        const Result r = run("run " + model + " --app trace:" + path + " --oversubscribe --json");
        EXPECT_EQ(r.code, 0) << r.err;
        const auto at = r.out.find("\"simulated_time_ps\":");
        return at == std::string::npos ? std::string() : r.out.substr(at, 40);
    };
    const std::string want = simulated(trace);
    ASSERT_FALSE(want.empty());
    for (const char* to : {"text", "binary", "otf2"}) {
        const std::string out =
            (dir / (std::string("conv_") + to + (std::string(to) == "otf2" ? ".otf2" : "")))
                .string();
        const Result conv = run("convert " + trace + " " + out + " --to " + to);
        ASSERT_EQ(conv.code, 0) << conv.err;
        EXPECT_EQ(simulated(out), want) << to;
    }
    fs::remove_all(dir);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::testing
