// Fortran programs traced (issue 54): Open MPI's Fortran bindings call PMPI_Name, not
// MPI_Name, so before tools/mpi/bindings.hpp a Fortran program under the tracer recorded
// nothing at all. Each of the three Fortran interfaces (`use mpi_f08`, `use mpi`,
// `include 'mpif.h'`; tests/mpi/halo_*.f90, the same halo exchange) runs under mpirun with
// the tracer preloaded: every call is recorded under its own name, in the numbers the
// program makes them, MPI_Cart_sub and MPI_Comm_split_type become the communicator splits
// they equal (so the collectives on their communicators are simulated, not unmodeled), the
// program prints the same result as untraced, and the trace replays. With the bindings
// turned off (CLUSTERSIM_TRACE_BINDINGS=none) the same run writes no rank file, which is
// what the tracer did before.
#include <gtest/gtest.h>

#include <filesystem>
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

constexpr int kRanks = 2;
constexpr int kIterations = 20;

std::vector<std::string> programs() {
    std::vector<std::string> out;
    std::stringstream in(CLUSTERSIM_FORTRAN_APPS);
    for (std::string p; std::getline(in, p, ':');) out.push_back(p);
    return out;
}

// One program's folder, its runs and its merge (a plain struct: run_shell names its output
// files after the running test, whose name must not hold a '/').
struct Traced {
    explicit Traced(std::string path) : program(std::move(path)) {
        name = fs::path(program).filename().string();
        dir = fs::temp_directory_path() /
              ("clustersim_fortran_" + name + "_" + std::to_string(::getpid()));
        fs::remove_all(dir);
        fs::create_directories(dir / "ranks");
    }
    ~Traced() { fs::remove_all(dir); }
    Traced(const Traced&) = delete;
    Traced& operator=(const Traced&) = delete;

    // Runs the program untraced and traced, and merges the rank files.
    void trace() {
        const std::string np = "-np " + std::to_string(kRanks) + " ";
        untraced = run_shell(mpirun(np + program + " " + std::to_string(kIterations)));
        traced = run_shell(mpirun(np + "-x LD_PRELOAD=" + CLUSTERSIM_TRACER +
                                  " -x CLUSTERSIM_TRACE_DIR=" + (dir / "ranks").string() + " " +
                                  program + " " + std::to_string(kIterations)));
        trace_path = (dir / "app.cstrace").string();
        merged = run("trace merge " + (dir / "ranks").string() + " -o " + trace_path);
    }

    std::string program, name;
    fs::path dir;
    Result untraced, traced, merged;
    std::string trace_path;
};

// The program (the path of one of the three) is found in CLUSTERSIM_FORTRAN_APPS by name.
std::string program(const std::string& name) {
    for (const std::string& p : programs())
        if (fs::path(p).filename() == name) return p;
    ADD_FAILURE() << name << " is not among " << CLUSTERSIM_FORTRAN_APPS;
    return name;
}

void expect_traced(const std::string& path) {
    Traced f(path);
    f.trace();
    const Result& untraced = f.untraced;
    const Result& traced = f.traced;
    const Result& merged = f.merged;
    const std::string& trace_path = f.trace_path;
    ASSERT_EQ(untraced.code, 0) << untraced.err;
    ASSERT_EQ(traced.code, 0) << traced.err;
    // The tracer does not change what the program computes.
    EXPECT_NE(untraced.out.find("halo: total"), std::string::npos) << untraced.out;
    EXPECT_EQ(traced.out, untraced.out);
    ASSERT_EQ(merged.code, 0) << merged.out << merged.err;
    const long n = kRanks;
    const long it = kIterations;
    const std::map<std::string, long> want{{"MPI_Irecv", 2 * it * n},
                                           {"MPI_Isend", 2 * it * n},
                                           {"MPI_Waitall", it * n},
                                           {"MPI_Sendrecv", it * n},
                                           {"MPI_Allreduce", (it + 1) * n},
                                           {"MPI_Cart_create", n},
                                           {"MPI_Cart_sub", n},
                                           {"MPI_Bcast", n},
                                           {"MPI_Comm_split_type", n},
                                           {"MPI_Barrier", n},
                                           {"MPI_Comm_free", 2 * n},
                                           {"MPI_Comm_rank", n},
                                           {"MPI_Comm_size", n}};
    EXPECT_EQ(merge_counts(merged.out, "calls"), want) << merged.out;
    // Nothing unmodeled: the collectives on the MPI_Cart_sub and MPI_Comm_split_type
    // communicators are simulated, and the two local queries are folded into the compute.
    EXPECT_NE(merged.out.find("unmodeled    none: every recorded call is simulated"),
              std::string::npos)
        << merged.out;
    EXPECT_NE(merged.out.find("  local        4 queries, "), std::string::npos) << merged.out;

    traces::ReadReport rep;
    const traces::Trace t = traces::load_trace(trace_path, "auto", {}, rep);
    ASSERT_EQ(t.ranks(), static_cast<std::uint32_t>(kRanks));
    for (std::uint32_t rank = 0; rank < t.ranks(); ++rank) {
        std::map<std::string, int> kinds;
        auto c = t.cursor(rank);
        traces::Record r;
        while (c.next(r)) ++kinds[traces::record_name(r)];
        // Cart_sub and Comm_split_type are the two splits; one Allreduce, the Bcast and the
        // Barrier run on the communicators they made.
        EXPECT_EQ(kinds["comm_split"], 2) << "rank " << rank;
        EXPECT_EQ(kinds["cart_create"], 1) << "rank " << rank;
        EXPECT_EQ(kinds["comm_free"], 2) << "rank " << rank;
    }

    const Result replay =
        run("run " + std::string(CLUSTERSIM_SOURCE_DIR) +
            "/topologies/examples/two-nodes.xml --app trace:" + trace_path + " --json");
    ASSERT_EQ(replay.code, 0) << replay.err;
    EXPECT_NE(replay.out.find("\"Allreduce\""), std::string::npos) << replay.out;
}

TEST(Fortran, TheMpiF08ModuleIsTraced) {
    expect_traced(program("halo_f08"));
}
TEST(Fortran, TheMpiModuleIsTraced) {
    expect_traced(program("halo_mpi"));
}
TEST(Fortran, MpifHIsTraced) {
    expect_traced(program("halo_mpif"));
}

// Before the bindings were followed, a Fortran run wrote nothing: the tracer's MPI_Init never
// ran. CLUSTERSIM_TRACE_BINDINGS=none turns the redirection off and shows it.
TEST(Fortran, WithoutTheBindingsNothingIsRecorded) {
    Traced f(program("halo_f08"));
    const fs::path off = f.dir / "off";
    fs::create_directories(off);
    const Result r =
        run_shell(mpirun("-np " + std::to_string(kRanks) +
                         " -x CLUSTERSIM_TRACE_BINDINGS=none -x LD_PRELOAD=" + CLUSTERSIM_TRACER +
                         " -x CLUSTERSIM_TRACE_DIR=" + off.string() + " " + f.program + " 2"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::is_empty(off));
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::testing
