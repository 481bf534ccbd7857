// `clustersim extrapolate`: traces at 2, 4 and 8 ranks written to files, the trace at 16 written
// and reported (grid, rank classes, the fit per parameter class), and every bad input one line
// with exit code 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "cli_fixtures.hpp"
#include "extrapolate_fixtures.hpp"
#include "trace_fixtures.hpp"

namespace clustersim::testing {
namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::traces;
using traces::testing::records;

// The synthetic traces at `scales`, as text files; "a@2 b@4 ..." for the command line.
std::string written(Trace (*make)(std::uint32_t), std::initializer_list<std::uint32_t> scales) {
    std::string args;
    for (std::uint32_t p : scales) {
        const std::string path = temp_path("in" + std::to_string(p) + ".txt");
        write_text(make(p), path);
        args += path + "@" + std::to_string(p) + " ";
    }
    return args;
}

Trace ring3(std::uint32_t p) {
    return traces::testing::ring(p);
}
Trace rows(std::uint32_t p) {
    return traces::testing::rows1d(p);
}
Trace square(std::uint32_t p) {
    Trace t;
    t.resize(p);
    for (std::uint32_t r = 0; r < p; ++r)
        t.append(r, traces::testing::coll(mpi::CollOp::Allreduce, p * p));
    return t;
}

TEST(CliExtrapolate, WritesTheTraceAtTheTargetAndReportsTheFit) {
    const std::string out = temp_path("rows16.cstrace");
    const Result r = run("extrapolate " + written(rows, {2, 4, 8}) + "--ranks 16 -o " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    const Trace got = read_binary(out), want = traces::testing::rows1d(16);
    ASSERT_EQ(got.ranks(), 16u);
    for (std::uint32_t k = 0; k < 16; ++k) EXPECT_TRUE(records(got, k) == records(want, k)) << k;
    EXPECT_NE(r.out.find("extrapolated rows1d from 3 traces (2, 4, 8 ranks) to 16 ranks: " + out +
                         " (binary, " + std::to_string(want.total_events()) + " records)"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("grid: 1-D, 2, 4, 8 -> 16; rank classes by grid position: first (1 "
                         "rank), interior (14 ranks), last (1 rank)"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("sizes:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("c/p"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("peers:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("compute:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("c/p (strong scaling)"), std::string::npos) << r.out;
    // .txt: the text format; a trace without @P is taken at its own rank count.
    const std::string text = temp_path("ring16.txt");
    std::string in = written(ring3, {2, 4});
    in = in.substr(0, in.find('@')) + in.substr(in.find(' '));
    const Result t = run("extrapolate " + in + "--ranks 16 -o " + text);
    ASSERT_EQ(t.code, 0) << t.err;
    const Trace ring = read_text(text);
    EXPECT_EQ(ring.ranks(), 16u);
    EXPECT_NE(t.out.find("(text, "), std::string::npos) << t.out;
}

// A rank's MPI calls (compute left out), their times cleared.
std::vector<Record> calls(const Trace& t, std::uint32_t rank) {
    std::vector<Record> out;
    for (Record r : records(t, rank)) {
        if (r.kind == mpi::OpKind::Compute) continue;
        r.timed = false;
        r.start = r.end = Time::zero();
        out.push_back(r);
    }
    return out;
}

// The simulated time of `t`'s calls alone on the calibrated model of this machine, in s.
double calls_replayed(const Trace& t, const std::string& name) {
    Trace only;
    only.name = t.name;
    only.strings = t.strings;
    only.resize(t.ranks());
    for (std::uint32_t r = 0; r < t.ranks(); ++r)
        for (const Record& c : calls(t, r)) only.append(r, c);
    const std::string path = temp_path(name);
    write_binary(only, path);
    const Result r = run("run " + example("calibrated-this-machine.xml") + " --app trace:" + path +
                         " --oversubscribe -q --json");
    EXPECT_EQ(r.code, 0) << r.err;
    std::smatch m;
    if (!std::regex_search(r.out, m, std::regex(R"re("simulated_time_s": ?([0-9.eE+-]+))re")))
        return 0;
    return std::stod(m[1]);
}

TEST(CliExtrapolate, TheRecordedJacobiAt16) {
    // tools/mpi/jacobi.cpp recorded at 2, 4, 8 and 16 ranks (traces/examples/extrapolate/):
    // from 2, 4 and 8, every MPI call of the 16 ranks with every field but its times, and the
    // calls' replayed time (traces/README.md, "Extrapolation").
    const std::string dir = std::string(CLUSTERSIM_SOURCE_DIR) + "/traces/examples/extrapolate/";
    const std::string out = temp_path("jacobi-16x.cstrace");
    const Result r = run("extrapolate " + dir + "jacobi-2.cstrace@2 " + dir +
                         "jacobi-4.cstrace@4 " + dir + "jacobi-8.cstrace@8 --ranks 16 -o " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    const Trace got = read_binary(out), want = read_binary(dir + "jacobi-16.cstrace");
    ASSERT_EQ(got.ranks(), 16u);
    std::size_t n = 0;
    for (std::uint32_t k = 0; k < 16; ++k) {
        const std::vector<Record> a = calls(got, k), b = calls(want, k);
        ASSERT_EQ(a.size(), b.size()) << "rank " << k;
        for (std::size_t i = 0; i < a.size(); ++i)
            ASSERT_TRUE(a[i] == b[i]) << "rank " << k << ", call " << i + 1;
        n += a.size();
    }
    EXPECT_EQ(n, 1712u);  // the figure traces/README.md states
    const double extrapolated = calls_replayed(got, "x.cstrace"),
                 recorded = calls_replayed(want, "r.cstrace");
    ASSERT_GT(recorded, 0);
    EXPECT_NEAR(extrapolated / recorded, 1.0, 0.05) << extrapolated << " s, " << recorded << " s";
    EXPECT_EQ(extrapolated, recorded);  // the same calls: the same replay
}

TEST(CliExtrapolate, BadInputIsOneLineAndExitTwo) {
    const std::string rows_in = written(rows, {2, 4, 8});
    const std::string out = temp_path("x.cstrace");
    const std::string two = temp_path("in2.txt");
    expect_bad_input(
        "extrapolate " + two + "@4 " + temp_path("in4.txt") + "@8 --ranks 16 -o " + out,
        two + "@4: the trace has 2 ranks, not 4");
    expect_bad_input("extrapolate " + rows_in + "--ranks 16 -o " + out + " --to xml",
                     "--to: 'xml': expected text or binary");
    expect_bad_input("extrapolate " + rows_in + "--ranks 16 -o " + out + " --dims 4",
                     "--dims: 4: expected 1, 2 or 3");
    expect_bad_input("extrapolate " + rows_in + "--ranks 0 -o " + out, "--ranks: 0: expected 1 to");
    expect_bad_input("extrapolate " + rows_in + "--ranks 16 -o /no/such/folder/x.cstrace",
                     "--out: folder '/no/such/folder' of");
    expect_bad_input("extrapolate " + rows_in + temp_path("none.txt") + " --ranks 16 -o " + out,
                     "none.txt: cannot open");
    expect_bad_input("extrapolate " + rows_in + temp_path("in2.txt") + "@0 --ranks 16 -o " + out,
                     "'@0': expected the trace's rank count");
    // A refusal: the input, the rank and the record, and why.
    expect_bad_input("extrapolate " + written(square, {2, 4, 8}) + "--ranks 16 -o " + out,
                     "in8.txt@8: rank 7 (all of 8), record 1 (allreduce): field bytes (4 at 2, 16 "
                     "at 4, 64 at 8) follows no law of p");
    EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::testing
