// SimGrid time-independent traces as SimGrid's own writer writes them (issue 55): SMPI 3.32's
// `smpirun -trace-ti` writes `waitall <count>` (the number of requests the call was given),
// which stopped the reader ("waitall: expected 'waitall', got 1 argument"), so no real trace
// of a program that calls MPI_Waitall could be read. tests/data/traces/smpi-3.32/ holds the
// trace SMPI 3.32 wrote for every-call.c there (4 ranks: blocking and non-blocking
// point-to-point, test, wait, waitall, every collective, v-collectives); where SimGrid is
// installed (Debian's libsimgrid-dev: smpicc and smpirun) the program is built and traced
// again here and that fresh trace is read too.
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "cli_fixtures.hpp"
#include "trace_fixtures.hpp"
#include "traces/reader.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces {
namespace CLUSTERSIM_TEST_FILE {

namespace fs = std::filesystem;
using mpi::OpKind;

const std::string kDir = std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/data/traces/smpi-3.32";

// Every rank's records by kind, and the replay's result.
void expect_every_call_read(const std::string& index) {
    ReadReport report;
    const Trace t = traces::testing::read_with(*make_simgrid_ti_reader(), index, report, false);
    ASSERT_EQ(t.ranks(), 4u);
    for (std::uint32_t r = 0; r < 4; ++r) {
        const std::map<std::string, int> k = traces::testing::kinds(t, r, true);
        // The closing Irecv/Isend pair and the waitall: one Waitall of two requests (or two
        // Waits); the Irecv/Isend pair before it completed by two waits.
        EXPECT_EQ(k.count("isend") ? k.at("isend") : 0, 2) << "rank " << r;
        EXPECT_EQ(k.count("irecv") ? k.at("irecv") : 0, 2) << "rank " << r;
        EXPECT_GE((k.count("wait") ? k.at("wait") : 0) + (k.count("waitall") ? k.at("waitall") : 0),
                  3)
            << "rank " << r;
    }
    const clustersim::testing::Result run = clustersim::testing::run(
        "run " + clustersim::testing::example("star-16.xml") + " --app trace:" + index);
    EXPECT_EQ(run.code, 0) << run.err;
    EXPECT_NE(run.out.find("simulated time"), std::string::npos) << run.out;
}

TEST(SmpiWrittenTi, TheTraceSmpiWroteIsReadAndReplayed) {
    expect_every_call_read(kDir + "/every-call.txt");
}

TEST(SmpiWrittenTi, WaitallWithAndWithoutItsCountAndABadCount) {
    const std::string dir = clustersim::testing::temp_path("waitall");
    fs::remove_all(dir);
    fs::create_directories(dir);
    auto trace = [&](const std::string& name, const std::string& waitall) {
        const std::string path = dir + "/" + name;
        std::ofstream(path) << "0 irecv 1 0 1024\n0 isend 1 0 1024\n0 " << waitall
                            << "\n1 irecv 0 0 1024\n1 isend 0 0 1024\n1 waitall 2\n";
        return path;
    };
    for (const char* w : {"waitall", "waitall 2", "waitall 6"}) {
        const clustersim::testing::Result r =
            clustersim::testing::run("run " + clustersim::testing::example("star-16.xml") +
                                     " --app trace:" + trace("ok.txt", w) + " --format simgrid_ti");
        EXPECT_EQ(r.code, 0) << w << ": " << r.err;
    }
    clustersim::testing::expect_bad_input("run " + clustersim::testing::example("star-16.xml") +
                                              " --app trace:" + trace("bad.txt", "waitall two") +
                                              " --format simgrid_ti",
                                          "waitall");
}

// SimGrid's own writer, where it is installed: every-call.c built with smpicc and traced with
// smpirun -trace-ti on SimGrid's crossbar cluster, then read and replayed.
TEST(SmpiWrittenTi, AFreshTraceFromSmpirunIsReadAndReplayed) {
    if (std::system("command -v smpirun >/dev/null 2>&1 && command -v smpicc >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "SimGrid's smpirun is not installed (apt-get install libsimgrid-dev)";
    const std::string platform =
        std::string(CLUSTERSIM_SHARED_DIR) + "/external/simgrid-platforms/cluster_crossbar.xml";
    if (!fs::exists(platform)) GTEST_SKIP() << platform << " is not there";
    const std::string dir = clustersim::testing::temp_path("smpi");
    fs::remove_all(dir);
    fs::create_directories(dir);
    {
        std::ofstream hosts(dir + "/hosts");
        for (int i = 0; i < 4; ++i) hosts << "node-" << i << ".simgrid.org\n";
    }
    const clustersim::testing::Result built = clustersim::testing::run_shell(
        "cd " + dir + " && smpicc -o every-call " + kDir + "/every-call.c");
    ASSERT_EQ(built.code, 0) << built.err;
    const clustersim::testing::Result traced = clustersim::testing::run_shell(
        "cd " + dir + " && timeout 120 smpirun -np 4 -platform " + platform +
        " -hostfile hosts -trace-ti --cfg=tracing/filename:fresh ./every-call");
    ASSERT_EQ(traced.code, 0) << traced.err;
    expect_every_call_read(dir + "/fresh");
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::traces
