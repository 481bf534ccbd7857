// The collective apps' OSU-style figures (issue 56): latency per call averaged, least and most
// over the ranks (each rank's finish / iterations), and NCCL-tests' algbw = S / latency and
// busbw = algbw x the operation's bus factor, checked against a closed form on a uniform star
// and against the run's own per-rank finish times.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::testing;

nlohmann::json run_json(const std::string& args) {
    const Result r =
        testing::run("run " + example("star-16.xml") + " " + args + " --json --per-rank");
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

TEST(CliOsuFigures, RingAllreduceOnAUniformStarMatchesItsClosedForm) {
    // n = 4 ranks, S = 4 MiB, links of B = 10^9 B/s without latency (the simple model), the
    // ring: 2(n-1) steps of S/n bytes, and n-1 reductions of S/n bytes at 1 instruction per
    // byte on the 2.5 G instructions/s cores: t = 6 x 1 MiB / B + 3 x 1 MiB / 2.5e9 per call.
    const nlohmann::json j = run_json(
        "--app allreduce:size=4MiB,iterations=4 --ranks 4 --algorithm allreduce=ring "
        "--network simple:latency=0s,bandwidth=1GB/s,intra-latency=0s,collectives=messages");
    const auto& s = j.at("app_summary");
    const double mib = 1048576.0, t = 6 * mib / 1e9 + 3 * mib / 2.5e9;
    EXPECT_NEAR(s.at("latency_avg_s").get<double>(), t, 1e-12);
    EXPECT_NEAR(s.at("latency_min_s").get<double>(), t, 1e-12);
    EXPECT_NEAR(s.at("latency_max_s").get<double>(), t, 1e-12);
    EXPECT_NEAR(s.at("algbw_bytes_per_s").get<double>(), 4 * mib / t, 1e-3);
    // busbw = algbw x 2(n-1)/n: without the reductions it would be the link's 10^9 B/s.
    EXPECT_NEAR(s.at("busbw_bytes_per_s").get<double>(), 4 * mib / t * 1.5, 1e-3);
    EXPECT_NEAR(4 * mib * 1.5 / (6 * mib / 1e9), 1e9, 1e-3);
}

TEST(CliOsuFigures, LatenciesAreEachRanksFinishOverTheCalls) {
    // A binomial bcast ends at different times on different ranks.
    const nlohmann::json j =
        run_json("--app bcast:size=1MiB,iterations=3 --ranks 8 --algorithm bcast=binomial");
    const auto& s = j.at("app_summary");
    double sum = 0, lo = 1e300, hi = 0;
    for (const auto& r : j.at("per_rank")) {
        const double f = r.at("finish_s").get<double>() / 3;
        sum += f, lo = std::min(lo, f), hi = std::max(hi, f);
    }
    EXPECT_NEAR(s.at("latency_avg_s").get<double>(), sum / 8, 1e-12);
    EXPECT_NEAR(s.at("latency_min_s").get<double>(), lo, 1e-12);
    EXPECT_NEAR(s.at("latency_max_s").get<double>(), hi, 1e-12);
    EXPECT_LT(lo, hi);
    // bcast: S = the root's buffer, bus factor 1.
    EXPECT_NEAR(s.at("algbw_bytes_per_s").get<double>(), 1048576.0 / (sum / 8), 1e-3);
    EXPECT_DOUBLE_EQ(s.at("busbw_bytes_per_s").get<double>(),
                     s.at("algbw_bytes_per_s").get<double>());
}

TEST(CliOsuFigures, TheSummaryNamesEachFigureWithItsDefinition) {
    const Result r = testing::run("run " + example("star-16.xml") +
                                  " --app alltoall:size=64KiB,iterations=2 --ranks 4");
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* text :
         {"latency avg", "per call: each rank's time / 2 calls, averaged over 4 ranks",
          "latency min", "latency max", "S / latency avg, S = 256 KiB", "algbw x (n-1)/n, n = 4"})
        EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
    // A barrier moves no data: latencies only.
    const Result b =
        testing::run("run " + example("star-16.xml") + " --app barrier:iterations=2 --ranks 4");
    ASSERT_EQ(b.code, 0) << b.err;
    EXPECT_NE(b.out.find("latency avg"), std::string::npos) << b.out;
    EXPECT_EQ(b.out.find("algbw"), std::string::npos) << b.out;
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
