// Garg & De's max_of_distributions model (models/noise_max.hpp): Theorem 1's bound on every
// sampled iteration, the tree's θ, the max of N uniforms, the exact path against sampling,
// histogram quantiles, and the SDSC anomalous-node case.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/noise_max.hpp"
#include "simulator/rng.hpp"

using namespace clustersim;
using namespace clustersim::jitter;

namespace CLUSTERSIM_TEST_FILE {

ProcessDistribution bins(std::vector<double> lower, std::vector<double> upper,
                         std::vector<double> count, std::uint32_t process = 0,
                         std::string node = "n") {
    ProcessDistribution d;
    d.process = process;
    d.node = std::move(node);
    d.lower = std::move(lower);
    d.upper = std::move(upper);
    d.count = std::move(count);
    return d;
}

ProcessDistribution uniform01() {
    return bins({0.0}, {1.0}, {1.0});
}

// Fixed-width histogram (the paper's fixed-bin distributions) of samples, empty bins left out.
ProcessDistribution histogram(const std::vector<double>& samples, double lo, double width,
                              std::uint32_t process, const std::string& node) {
    std::vector<double> counts;
    for (double s : samples) {
        const auto b = static_cast<std::size_t>(std::floor((s - lo) / width));
        if (b >= counts.size()) counts.resize(b + 1, 0.0);
        counts[b] += 1;
    }
    ProcessDistribution d;
    d.process = process;
    d.node = node;
    for (std::size_t b = 0; b < counts.size(); ++b)
        if (counts[b] > 0) {
            d.lower.push_back(lo + width * static_cast<double>(b));
            d.upper.push_back(lo + width * static_cast<double>(b + 1));
            d.count.push_back(counts[b]);
        }
    return d;
}

// Three different processes: uniform [1, 2); mostly [1, 1.5) with a tail to 3; a point at 1.2.
std::vector<ProcessDistribution> three() {
    return {bins({1.0}, {2.0}, {1.0}, 0), bins({1.0, 1.5}, {1.5, 3.0}, {9.0, 1.0}, 1),
            bins({1.2}, {1.2}, {4.0}, 2)};
}

TEST(JitterMax, HistogramQuantileAndCdfByHand) {
    // Bins [0,1) ×1 and [1,2) ×3: total 4, mean (0.5·1 + 1.5·3)/4 = 1.25.
    const ProcessDistribution d = bins({0.0, 1.0}, {1.0, 2.0}, {1.0, 3.0});
    EXPECT_DOUBLE_EQ(d.total(), 4.0);
    EXPECT_DOUBLE_EQ(d.mean(), 1.25);
    EXPECT_DOUBLE_EQ(d.min(), 0.0);
    EXPECT_DOUBLE_EQ(d.max(), 2.0);
    EXPECT_DOUBLE_EQ(d.quantile(0.0), 0.0);
    EXPECT_DOUBLE_EQ(d.quantile(0.125), 0.5);  // half of the first bin's count
    EXPECT_DOUBLE_EQ(d.quantile(0.25), 1.0);
    EXPECT_DOUBLE_EQ(d.quantile(0.5), 1.0 + 1.0 / 3.0);  // 1 of the 3 counts in [1,2)
    EXPECT_DOUBLE_EQ(d.quantile(1.0), 2.0);
    EXPECT_DOUBLE_EQ(d.cdf(-1.0), 0.0);
    EXPECT_DOUBLE_EQ(d.cdf(0.5), 0.125);
    EXPECT_DOUBLE_EQ(d.cdf(1.0), 0.25);
    EXPECT_DOUBLE_EQ(d.cdf(1.5), (1.0 + 1.5) / 4.0);
    EXPECT_DOUBLE_EQ(d.cdf(2.0), 1.0);
    EXPECT_DOUBLE_EQ(d.cdf(7.0), 1.0);
    // Samples (lower == upper): a step function.
    const ProcessDistribution s = bins({1.0, 2.0, 4.0}, {1.0, 2.0, 4.0}, {1.0, 1.0, 2.0});
    EXPECT_DOUBLE_EQ(s.cdf(0.99), 0.0);
    EXPECT_DOUBLE_EQ(s.cdf(1.0), 0.25);
    EXPECT_DOUBLE_EQ(s.cdf(3.0), 0.5);
    EXPECT_DOUBLE_EQ(s.quantile(0.5), 2.0);
    EXPECT_DOUBLE_EQ(s.quantile(0.9), 4.0);
    EXPECT_DOUBLE_EQ(s.mean(), 2.75);
    // Sampling follows the counts: P([0,1)) = 1/4. 40,000 draws: sd = sqrt(.25·.75/40000)
    // = 0.0022; 5 sd = 0.011.
    Rng rng(1);
    int low = 0;
    for (int i = 0; i < 40000; ++i) {
        const double x = d.sample(rng);
        ASSERT_GE(x, 0.0);
        ASSERT_LT(x, 2.0);
        low += x < 1.0;
    }
    EXPECT_NEAR(low / 40000.0, 0.25, 0.011);
}

TEST(JitterMax, TreeThetaByHand) {
    // θ = max_i (d_i + 2τ·depth(i)). Binary tree of 3: depths 0, 1, 1.
    EXPECT_DOUBLE_EQ(tree_theta({1, 2, 3}, 0.5, 2), 4.0);                 // 3 + 2·0.5·1
    EXPECT_DOUBLE_EQ(tree_theta({10, 1, 1, 1, 1, 1, 1}, 1.0, 2), 10.0);   // the root's work
    EXPECT_DOUBLE_EQ(tree_theta({0, 0, 0, 0, 0, 0, 5}, 1.0, 2), 9.0);     // leaf 6, depth 2
    EXPECT_DOUBLE_EQ(tree_theta({0, 0, 0, 0, 0, 0, 0, 0}, 1.0, 2), 6.0);  // task 7, depth 3
    EXPECT_DOUBLE_EQ(tree_theta({0, 0, 0, 0, 1}, 1.0, 3), 5.0);  // 3-ary: task 4 at depth 2
    EXPECT_DOUBLE_EQ(tree_theta({0, 0, 0, 0}, 1.0, 3), 2.0);     // 3-ary: all leaves depth 1
    EXPECT_DOUBLE_EQ(tree_theta({2.5}, 7.0, 2), 2.5);
}

TEST(JitterMax, TheoremOneBoundHoldsForEverySampledIteration) {
    const auto dists = three();
    const double tau = 0.01;
    for (int k : {1, 2, 3, 5, 8, 11}) {
        MaxConfig c;
        c.tasks = (1ULL << k) - 1;  // N = 2^k − 1
        c.iterations = 3000;
        c.tau = tau;
        c.seed = static_cast<std::uint64_t>(k);
        c.keep_samples = true;
        const MaxResult r = sample_max(dists, c);
        ASSERT_FALSE(r.exact);
        const double slack = 2 * tau * std::log2((static_cast<double>(c.tasks) + 1) / 2);
        EXPECT_NEAR(r.slack, slack, 1e-12) << k;
        ASSERT_EQ(r.max_samples.size(), c.iterations);
        ASSERT_EQ(r.theta_samples.size(), c.iterations);
        for (std::uint32_t j = 0; j < c.iterations; ++j) {
            ASSERT_LE(r.max_samples[j], r.theta_samples[j]) << k << " " << j;
            ASSERT_LE(r.theta_samples[j], r.max_samples[j] + slack + 1e-12) << k << " " << j;
        }
        EXPECT_LE(r.mean, r.theta_mean);
        EXPECT_LE(r.theta_mean, r.mean_upper + 1e-12);
        EXPECT_NEAR(r.mean_upper, r.mean + slack, 1e-12);
    }
}

TEST(JitterMax, PointMassMaxIsThatValue) {
    const std::vector<ProcessDistribution> d = {bins({0.3}, {0.3}, {5.0})};
    MaxConfig c;
    c.tasks = 100;
    c.iterations = 1000;
    MaxResult r = sample_max(d, c);
    EXPECT_FALSE(r.exact);
    for (double v : {r.mean, r.p50, r.p90, r.p99, r.p999, r.min, r.max}) EXPECT_DOUBLE_EQ(v, 0.3);
    c.tasks = 1000000;  // 10^9 draws: the exact path
    r = sample_max(d, c);
    EXPECT_TRUE(r.exact);
    for (double v : {r.mean, r.p50, r.p90, r.p99, r.p999, r.min, r.max}) EXPECT_DOUBLE_EQ(v, 0.3);
}

TEST(JitterMax, MaxOfUniformsHasMeanNOverNPlusOne) {
    // max of N uniform[0,1]: E = N/(N+1), Var = N / ((N+1)^2 (N+2)). With M iterations the
    // sample mean's sd is sqrt(Var/M); allow 5 sd (a false failure has probability < 10^-6).
    const std::vector<ProcessDistribution> d = {uniform01()};
    for (std::uint64_t n : {1, 2, 16, 255}) {
        MaxConfig c;
        c.tasks = n;
        c.iterations = 40000;
        c.seed = 3 + n;
        const MaxResult r = sample_max(d, c);
        const double nn = static_cast<double>(n);
        const double var = nn / ((nn + 1) * (nn + 1) * (nn + 2));
        EXPECT_NEAR(r.mean, nn / (nn + 1), 5 * std::sqrt(var / c.iterations)) << n;
        // Median of the max: 0.5^(1/N); its sampling sd is below 1/(2 f(m) sqrt(M)) with
        // f = N m^(N−1) the max's density at the median.
        const double m = std::pow(0.5, 1 / nn);
        const double sd = 1 / (2 * nn * std::pow(m, nn - 1) * std::sqrt(c.iterations));
        EXPECT_NEAR(r.p50, m, 5 * sd) << n;
    }
    // The exact path: N = 10^4, H(x) = x^N, E = N/(N+1), median 0.5^(1/N), p99 0.99^(1/N).
    MaxConfig c;
    c.tasks = 10000;
    c.iterations = 10000;
    const MaxResult r = sample_max(d, c);
    EXPECT_TRUE(r.exact);
    EXPECT_NEAR(r.mean, 10000.0 / 10001.0, 2e-5);
    EXPECT_NEAR(r.p50, std::pow(0.5, 1e-4), 3e-5);  // 2 grid steps
    EXPECT_NEAR(r.p99, std::pow(0.99, 1e-4), 3e-5);
    EXPECT_DOUBLE_EQ(r.max, 1.0);
    EXPECT_EQ(r.theta_mean, 0.0);
    EXPECT_TRUE(r.max_samples.empty());
}

TEST(JitterMax, ExactPathAgreesWithSampling) {
    const auto dists = three();
    MaxConfig c;
    c.tasks = 60;           // 20 tasks on each distribution
    c.iterations = 200000;  // 1.2·10^7 draws: sampling
    c.seed = 17;
    c.keep_samples = true;
    const MaxResult s = sample_max(dists, c);
    ASSERT_FALSE(s.exact);
    double var = 0;
    for (double x : s.max_samples) var += (x - s.mean) * (x - s.mean);
    var /= static_cast<double>(s.max_samples.size() - 1);
    c.iterations = 1000000;  // 6·10^7: exact
    c.keep_samples = false;
    const MaxResult e = sample_max(dists, c);
    ASSERT_TRUE(e.exact);
    // Sampling error of the mean (5 sd) plus the grid's (range 2 / 65536 per step).
    EXPECT_NEAR(e.mean, s.mean, 5 * std::sqrt(var / 200000) + 1e-4);
    EXPECT_NEAR(e.p50, s.p50, 0.01);
    EXPECT_NEAR(e.p90, s.p90, 0.01);
    EXPECT_NEAR(e.p99, s.p99, 0.03);
    // By hand: P(max <= x) = x−1 (uniform) · F_1(x) · 1 for x in [1.2, 2): the point mass at
    // 1.2 makes the minimum of the max 1.2 … and the tail of process 1 its maximum 3.
    EXPECT_DOUBLE_EQ(e.min, 1.2);
    EXPECT_DOUBLE_EQ(e.max, 3.0);
    // p50 by hand: H(1.2 <= x) = F_0^20 F_1^20 with F_0 = min(1, x − 1) and, for x >= 1.5,
    // F_1 = (9 + (x − 1.5)/1.5)/10. At x = 2, H = (9.333/10)^20 = 0.25 < 0.5, so the median is
    // in [2, 3): F_1 = 0.5^(1/20) = 0.965936 → x = 1.5 + 1.5·(9.65936 − 9) = 2.48904.
    const double median = 1.5 + 1.5 * (10 * std::pow(0.5, 1.0 / 20) - 9);
    EXPECT_NEAR(median, 2.48904, 1e-5);
    double lo = 1.5, hi = 3.0;  // the same by bisection on H
    for (int i = 0; i < 100; ++i) {
        const double x = 0.5 * (lo + hi);
        const double h = std::pow(std::min(1.0, x - 1) * (9 + (x - 1.5) / 1.5) / 10, 20);
        (h < 0.5 ? lo : hi) = x;
    }
    EXPECT_NEAR(lo, median, 1e-9);
    EXPECT_NEAR(e.p50, lo, 1e-4);
}

TEST(JitterMax, BadInputs) {
    MaxConfig c;
    EXPECT_THROW(sample_max({}, c), std::invalid_argument);
    c.tasks = 0;
    EXPECT_THROW(sample_max({uniform01()}, c), std::invalid_argument);
    c.tasks = 1;
    c.iterations = 0;
    EXPECT_THROW(sample_max({uniform01()}, c), std::invalid_argument);
    c.iterations = 10;
    EXPECT_THROW(sample_max({bins({1.0}, {0.5}, {1.0})}, c), std::invalid_argument);
    EXPECT_THROW(sample_max({bins({1.0}, {2.0}, {0.0})}, c), std::invalid_argument);
    EXPECT_THROW(sample_max({bins({1.0, 0.0}, {2.0, 1.0}, {1.0, 1.0})}, c), std::invalid_argument);
}

// 64 nodes × 8 processes; each process measured 20,000 iterations of w = 300 µs plus
// exponential noise (mean 5 µs), binned in 2 µs bins. On node `slow` (if any) every
// iteration takes 30 % longer.
std::vector<ProcessDistribution> sdsc(int slow) {
    std::vector<ProcessDistribution> out;
    Rng rng(2024);
    for (int node = 0; node < 64; ++node)
        for (int core = 0; core < 8; ++core) {
            std::vector<double> samples(20000);
            for (double& s : samples) {
                const double noise = -5e-6 * std::log(1 - rng.uniform());
                s = (node == slow ? 1.3 : 1.0) * 300e-6 + noise;
            }
            out.push_back(histogram(samples, 290e-6, 2e-6,
                                    static_cast<std::uint32_t>(node * 8 + core),
                                    "ds" + std::to_string(100 + node)));
        }
    return out;
}

TEST(JitterMax, AnomalousNodeLikeSdsc) {
    const auto dists = sdsc(11);  // processes 88 … 95 on node ds111
    const std::vector<double> p99 = p99_per_process(dists);
    ASSERT_EQ(p99.size(), 512u);
    // p99 of 300 µs + Exp(5 µs) = 300 + 5·ln 100 = 323.0 µs; the slow node: 390 + 23.0.
    EXPECT_NEAR(p99[0], 323.03e-6, 2e-6);
    EXPECT_NEAR(p99[90], 413.03e-6, 2e-6);
    const auto found = anomalous_nodes(dists);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].node, "ds111");
    EXPECT_EQ(found[0].processes, (std::vector<std::uint32_t>{88, 89, 90, 91, 92, 93, 94, 95}));
    EXPECT_EQ(found[0].node_processes, 8u);
    EXPECT_NEAR(found[0].p99_mean, 413.03e-6, 2e-6);
    EXPECT_NEAR(found[0].median_p99, 323.03e-6, 1e-6);
    // Homogeneous nodes: none.
    EXPECT_TRUE(anomalous_nodes(sdsc(-1)).empty());
}
}  // namespace CLUSTERSIM_TEST_FILE
