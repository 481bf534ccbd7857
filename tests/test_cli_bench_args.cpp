// The bench programs (bench/) on bad arguments: one line naming the program and the argument,
// exit code 2, nothing on stdout; never a signal. They read their arguments through
// bench/bench_args.hpp; before it, bench_models abort()ed on an uncaught InputError
// (`bench_models 16 allgather:size=0`) and std::atoi took "abc" for 0 ranks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_fixtures.hpp"

namespace clustersim::testing {
namespace CLUSTERSIM_TEST_FILE {

struct BadCall {
    std::string binary, args, program, names;  // `names`: what the one line must name
};

TEST(BenchArgs, EveryBadArgumentIsOneLineAndExitTwo) {
    const std::vector<BadCall> calls = {
        {CLUSTERSIM_BENCH_MODELS, "abc", "bench_models", "RANKS (argument 1)"},
        {CLUSTERSIM_BENCH_MODELS, "0", "bench_models", "RANKS (argument 1): must be 1 to"},
        {CLUSTERSIM_BENCH_MODELS, "99999999999", "bench_models", "got 99999999999"},
        {CLUSTERSIM_BENCH_MODELS, "16 allgather:size=0", "bench_models", "'size'"},
        {CLUSTERSIM_BENCH_MODELS, "16 allgather:size=1KiB nosuch", "bench_models", "'nosuch'"},
        {CLUSTERSIM_BENCH_BCAST, "-3", "bench_bcast", "RANKS (argument 1)"},
        {CLUSTERSIM_BENCH_BCAST, "4 1MiB binary_tree 7", "bench_bcast", "'7'"},
        {CLUSTERSIM_BENCH_REPLAY, "4 x", "bench_replay", "EVENTS (argument 2)"},
        {CLUSTERSIM_BENCH_REPLAY, "4 10 packet 1KiB xml", "bench_replay", "FORMAT"},
        {CLUSTERSIM_BENCH_STAR_BUILD, "1.5", "bench_star_build", "N (argument 1)"},
        {CLUSTERSIM_BENCH_QUEUE, "abc", "bench_queue", "PENDING (argument 1)"},
        {CLUSTERSIM_BENCH_QUEUE, "10 0", "bench_queue", "HOLDS (argument 2): must be 1 to"},
    };
    for (const BadCall& c : calls) {
        SCOPED_TRACE(c.program + " " + c.args);
        const Result r = run_shell(c.binary + " " + c.args);
        EXPECT_EQ(r.code, 2) << r.out << r.err;
        EXPECT_EQ(r.out, "");
        ASSERT_FALSE(r.err.empty());
        EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // one line
        EXPECT_EQ(r.err.rfind(c.program + ": ", 0), 0u) << r.err;
        EXPECT_NE(r.err.find(c.names), std::string::npos) << r.err;
    }
}

// A good call still runs and prints its figures (the wrapper passes the exit code through).
TEST(BenchArgs, AGoodCallRuns) {
    const Result r =
        run_shell(std::string(CLUSTERSIM_BENCH_MODELS) + " 8 allgather:size=1KiB fluid");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("8 ranks"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("simulated"), std::string::npos) << r.out;
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::testing
