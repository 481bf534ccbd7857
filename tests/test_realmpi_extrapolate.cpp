// `clustersim extrapolate` on recordings of the repository's own MPI programs: the Jacobi solver
// (a 1-D row decomposition with halo exchanges, residual allreduces and MPI-IO checkpoints) and
// the benchmark suite's ring and allreduce, recorded with the tracer at 2, 4, 8 and 16 ranks
// (oversubscribed on this machine's cores), extrapolated from 2, 4 and 8 to 16, and compared
// with the recording at 16: every MPI call, with every field but its times, is the same; the
// replayed time of the two traces' calls (compute left out of both: oversubscribed, a compute
// gap measures how the cores were shared, not the program) agrees to 5 %.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include "cli_fixtures.hpp"
#include "trace_fixtures.hpp"
#include "traces/trace.hpp"

namespace clustersim::testing {
namespace CLUSTERSIM_TEST_FILE {

namespace fs = std::filesystem;
using namespace clustersim::traces;

// A rank's MPI calls (compute left out), their times cleared.
std::vector<Record> calls(const Trace& t, std::uint32_t rank) {
    std::vector<Record> out;
    for (Record r : traces::testing::records(t, rank)) {
        if (r.kind == mpi::OpKind::Compute) continue;
        r.timed = false;
        r.start = r.end = Time::zero();
        out.push_back(r);
    }
    return out;
}

// The trace without its compute records, as a binary file beside it.
std::string without_compute(const Trace& t, const std::string& path) {
    Trace out;
    out.name = t.name;
    out.strings = t.strings;
    out.files = t.files;
    out.resize(t.ranks());
    for (std::uint32_t r = 0; r < t.ranks(); ++r)
        for (const Record& c : calls(t, r)) out.append(r, c);
    write_binary(out, path);
    return path;
}

double replayed_seconds(const std::string& trace) {
    const Result r = run("run " + example("calibrated-this-machine.xml") + " --app trace:" + trace +
                         " --oversubscribe -q --json");
    EXPECT_EQ(r.code, 0) << r.err;
    std::smatch m;
    if (!std::regex_search(r.out, m, std::regex(R"re("simulated_time_s": ?([0-9.eE+-]+))re"))) {
        ADD_FAILURE() << r.out;
        return 0;
    }
    return std::stod(m[1]);
}

// Records `program` at 2, 4, 8 and 16 ranks, extrapolates 2, 4, 8 to 16 and compares.
void recorded_and_extrapolated(const std::string& name, const std::string& program) {
    if (::access(CLUSTERSIM_MPIEXEC, X_OK) != 0)
        GTEST_SKIP() << CLUSTERSIM_MPIEXEC << " is not there: no MPI to record with";
    const fs::path dir = fs::path(temp_path(name));
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::string inputs;
    for (int p : {2, 4, 8, 16}) {
        const std::string trace = (dir / (name + "-" + std::to_string(p) + ".cstrace")).string();
        const Result r =
            run("record -o " + trace + " -- " + mpirun("-np " + std::to_string(p)) + " " + program);
        ASSERT_EQ(r.code, 0) << r.err << r.out;
        if (p < 16) inputs += trace + "@" + std::to_string(p) + " ";
    }
    const std::string out = (dir / (name + "-16x.cstrace")).string();
    const Result x = run("extrapolate " + inputs + "--ranks 16 -o " + out);
    ASSERT_EQ(x.code, 0) << x.err;
    std::cout << x.out;
    const Trace got = read_binary(out);
    const Trace want = read_binary((dir / (name + "-16.cstrace")).string());
    ASSERT_EQ(got.ranks(), 16u);
    std::uint64_t n = 0;
    for (std::uint32_t r = 0; r < 16; ++r) {
        const std::vector<Record> a = calls(got, r), b = calls(want, r);
        ASSERT_EQ(a.size(), b.size()) << "rank " << r;
        for (std::size_t k = 0; k < a.size(); ++k)
            ASSERT_TRUE(a[k] == b[k])
                << "rank " << r << ", call " << k + 1 << ": " << record_name(a[k]) << " (peer "
                << a[k].peer << ", " << a[k].bytes << " B), recorded " << record_name(b[k])
                << " (peer " << b[k].peer << ", " << b[k].bytes << " B)";
        n += a.size();
    }
    EXPECT_GT(n, 16u * 10u);
    const double extrapolated =
        replayed_seconds(without_compute(got, (dir / "calls-16x.cstrace").string()));
    const double recorded =
        replayed_seconds(without_compute(want, (dir / "calls-16.cstrace").string()));
    ASSERT_GT(recorded, 0);
    EXPECT_NEAR(extrapolated / recorded, 1.0, 0.05)
        << "calls replayed: extrapolated " << extrapolated << " s, recorded " << recorded << " s";
    // With compute: printed, not checked (the recordings' compute is the shared cores').
    std::cout << name << ": " << n << " MPI calls alike; replayed without compute "
              << extrapolated * 1e3 << " ms extrapolated, " << recorded * 1e3
              << " ms recorded; with compute " << replayed_seconds(out) * 1e3 << " ms and "
              << replayed_seconds((dir / (name + "-16.cstrace")).string()) * 1e3 << " ms\n";
    fs::remove_all(dir);
}

TEST(RealMpiExtrapolate, JacobiAt2_4_8IsItsRecordingAt16) {
    const std::string ckpt = temp_path("jacobi.ckpt");
    recorded_and_extrapolated("jacobi", std::string(CLUSTERSIM_MPI_JACOBI) +
                                            " --size 480 --iterations 40 --checkpoint-every 20 "
                                            "--residual-every 10 --checkpoint " +
                                            ckpt);
    fs::remove(ckpt);
}

TEST(RealMpiExtrapolate, RingAndAllreduceAt2_4_8AreTheirRecordingAt16) {
    recorded_and_extrapolated("ring", std::string(CLUSTERSIM_MPI_BENCH) +
                                          " --benchmarks ring,allreduce --sizes 64KiB "
                                          "--repeats 4 --small-repeats 4");
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::testing
