// Garg & De's model (§2–3.3): per-process distributions of w + δ (compute time of a fixed
// work quantum plus noise), the distribution of max over N processes, the bound
//   max_i(w_i + δ_i) ≤ θ ≤ max_i(w_i + δ_i) + 2τ·log2((N+1)/2)
// on the iteration time θ of a compute + binary-tree-barrier loop, and anomalous nodes.
// All values are seconds (doubles).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "simulator/rng.hpp"

namespace clustersim::jitter {

// One process's measured distribution: fixed-width histogram bins [lower, upper) with
// counts, or samples (lower == upper, count 1 each). Bins sorted by lower, counts > 0.
struct ProcessDistribution {
    std::uint32_t process = 0;
    std::string node;  // host name; processes of one node are grouped for anomalies
    std::vector<double> lower, upper, count;

    double total() const;             // sum of counts
    double mean() const;              // bins count as their midpoint
    double quantile(double q) const;  // linear within a bin; q in [0, 1]
    double cdf(double x) const;       // P(X <= x), linear within a bin
    double min() const;               // lower of the first bin
    double max() const;               // upper of the last bin
    double sample(Rng& rng) const;    // a bin by count, uniform within it
};

struct MaxConfig {
    std::uint64_t tasks = 1;           // N; process i uses distribution i mod P
    std::uint32_t iterations = 10000;  // samples of the max
    double tau = 0;                    // one-way latency τ, seconds
    std::uint32_t arity = 2;           // tree for the simulated θ (2 = the paper's)
    std::uint64_t seed = 1;
    bool keep_samples = false;  // fill MaxResult::max_samples / theta_samples
};

struct MaxResult {
    std::uint64_t tasks = 0;
    // Distribution of max_i(w_i + δ_i): mean and percentiles.
    double mean = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, min = 0, max = 0;
    double slack = 0;  // 2τ·D, D = depth of the deepest task (= log2((N+1)/2) for N = 2^k−1)
    double mean_upper = 0;  // mean + slack: the bound on E[θ]
    // θ of a simulated tree barrier fed with the same samples (zero CPU cost, latency τ per
    // message): mean over iterations; every iteration lies within the bounds.
    double theta_mean = 0;
    bool exact = false;  // true: computed from the product of CDFs (N × iterations large)
    std::vector<double> max_samples, theta_samples;
};

// Samples max over N processes `iterations` times (with θ from a tree barrier, one
// iteration's w + δ per process). When N × iterations exceeds 5×10^7 the max's
// distribution is computed exactly instead: P(max <= x) = Π_p F_p(x)^{n_p}, where n_p is the
// number of tasks using distribution p (θ and the samples are then left empty / 0), on a grid
// of 65,536 intervals over [max_p min_p, max_p max_p] (the max cannot lie below any used
// process's minimum); mean by integrating 1 − P(max <= x), percentiles by interpolation.
// Throws std::invalid_argument for no distributions, N = 0, iterations = 0.
MaxResult sample_max(const std::vector<ProcessDistribution>& dists, const MaxConfig& config);

// θ of one iteration: time from the root's start of a post-barrier to its start of the next
// one, when task i computes durations[i] and each message takes tau:
//   θ = max_i (durations[i] + 2·tau·depth(i)).
double tree_theta(const std::vector<double>& durations, double tau, std::uint32_t arity);

struct NodeAnomaly {
    std::string node;
    std::vector<std::uint32_t> processes;  // outlying processes on that node
    std::uint32_t node_processes = 0;      // processes the node has
    double p99_mean = 0;                   // mean 99th percentile of its outliers, seconds
    double median_p99 = 0;                 // median 99th percentile over all processes
};

// Per-process 99th percentiles; a process is an outlier when its p99 exceeds
// median + k·MAD (MAD: median absolute deviation of the p99s, k = `threshold`) and also
// exceeds the median by at least 1 %; outliers are grouped by node, nodes sorted by how
// many outliers they have (most first).
std::vector<double> p99_per_process(const std::vector<ProcessDistribution>& dists);
std::vector<NodeAnomaly> anomalous_nodes(const std::vector<ProcessDistribution>& dists,
                                         double threshold = 5.0);

}  // namespace clustersim::jitter
