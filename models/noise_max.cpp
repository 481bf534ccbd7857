#include "models/noise_max.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace clustersim::jitter {

double ProcessDistribution::total() const {
    double s = 0;
    for (double c : count) s += c;
    return s;
}

double ProcessDistribution::mean() const {
    double s = 0, w = 0;
    for (std::size_t b = 0; b < count.size(); ++b) {
        s += count[b] * 0.5 * (lower[b] + upper[b]);
        w += count[b];
    }
    return w > 0 ? s / w : 0.0;
}

double ProcessDistribution::quantile(double q) const {
    if (count.empty()) throw std::invalid_argument("quantile of an empty distribution");
    q = std::clamp(q, 0.0, 1.0);
    const double target = q * total();
    double cum = 0;
    for (std::size_t b = 0; b < count.size(); ++b) {
        if (cum + count[b] >= target) {
            const double frac = count[b] > 0 ? (target - cum) / count[b] : 0.0;
            return lower[b] + std::clamp(frac, 0.0, 1.0) * (upper[b] - lower[b]);
        }
        cum += count[b];
    }
    return upper.back();
}

double ProcessDistribution::cdf(double x) const {
    const double tot = total();
    if (!(tot > 0)) return 0.0;
    double cum = 0;
    for (std::size_t b = 0; b < count.size(); ++b) {
        if (x < lower[b]) break;
        if (x >= upper[b]) {
            cum += count[b];
        } else {  // lower <= x < upper
            cum += count[b] * (x - lower[b]) / (upper[b] - lower[b]);
            break;
        }
    }
    return std::min(1.0, cum / tot);
}

double ProcessDistribution::min() const {
    return lower.empty() ? 0.0 : lower.front();
}
double ProcessDistribution::max() const {
    return upper.empty() ? 0.0 : upper.back();
}

double ProcessDistribution::sample(Rng& rng) const {
    double target = rng.uniform() * total();
    for (std::size_t b = 0; b < count.size(); ++b) {
        if (target < count[b] || b + 1 == count.size())
            return lower[b] + rng.uniform() * (upper[b] - lower[b]);
        target -= count[b];
    }
    return 0.0;
}

namespace {

// A distribution prepared for fast sampling: cumulative counts, searched by bisection.
struct Sampler {
    const ProcessDistribution* d = nullptr;
    std::vector<double> cum;  // cum[b] = counts of bins 0..b
    explicit Sampler(const ProcessDistribution& dist) : d(&dist) {
        double s = 0;
        cum.reserve(dist.count.size());
        for (double c : dist.count) cum.push_back(s += c);
    }
    double operator()(Rng& rng) const {
        const double target = rng.uniform() * cum.back();
        auto b = static_cast<std::size_t>(std::upper_bound(cum.begin(), cum.end(), target) -
                                          cum.begin());
        if (b >= cum.size()) b = cum.size() - 1;
        const double u = rng.uniform();
        return d->lower[b] + u * (d->upper[b] - d->lower[b]);
    }
};

void check_distribution(const ProcessDistribution& d) {
    if (d.count.empty() || d.lower.size() != d.count.size() || d.upper.size() != d.count.size())
        throw std::invalid_argument(fmt::format(
            "process {}: a distribution needs as many bin lowers, uppers and counts, at least one",
            d.process));
    for (std::size_t b = 0; b < d.count.size(); ++b) {
        if (!(d.count[b] > 0) || !(d.upper[b] >= d.lower[b]) || !std::isfinite(d.lower[b]) ||
            !std::isfinite(d.upper[b]))
            throw std::invalid_argument(
                fmt::format("process {}: bin {} must have lower <= upper (finite) and a count > 0",
                            d.process, b));
        if (b > 0 && d.lower[b] < d.lower[b - 1])
            throw std::invalid_argument(
                fmt::format("process {}: bins must be sorted by their lower bound", d.process));
    }
}

// Quantile of sorted samples, linear between order statistics.
double sorted_quantile(const std::vector<double>& s, double q) {
    const double h = q * static_cast<double>(s.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, s.size() - 1);
    return s[lo] + (h - static_cast<double>(lo)) * (s[hi] - s[lo]);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace

double tree_theta(const std::vector<double>& durations, double tau, std::uint32_t arity) {
    if (arity < 1) throw std::invalid_argument("tree arity must be at least 1");
    double theta = 0;
    std::uint64_t first = 0, depth = 0;
    const std::uint64_t n = durations.size();
    while (first < n) {
        // Level `depth` holds tasks [first, next).
        const std::uint64_t next =
            first > (n - 1) / arity ? n : std::min<std::uint64_t>(n, arity * first + 1);
        const double round_trip = 2.0 * tau * static_cast<double>(depth);
        for (std::uint64_t i = first; i < next; ++i)
            theta = std::max(theta, durations[i] + round_trip);
        first = next;
        ++depth;
    }
    return theta;
}

MaxResult sample_max(const std::vector<ProcessDistribution>& dists, const MaxConfig& config) {
    if (dists.empty()) throw std::invalid_argument("max of distributions: no distributions");
    if (config.tasks == 0) throw std::invalid_argument("max of distributions: N must be > 0");
    if (config.iterations == 0)
        throw std::invalid_argument("max of distributions: iterations must be > 0");
    if (config.arity < 1) throw std::invalid_argument("max of distributions: arity must be >= 1");
    for (const auto& d : dists) check_distribution(d);

    const std::uint64_t n = config.tasks;
    const std::uint64_t p_count = dists.size();
    MaxResult out;
    out.tasks = n;
    // The deepest task is the last one: D = its depth.
    std::uint64_t depth = 0;
    for (std::uint64_t i = n - 1; i > 0; i = (i - 1) / config.arity) ++depth;
    out.slack = 2.0 * config.tau * static_cast<double>(depth);

    const double work = static_cast<double>(n) * static_cast<double>(config.iterations);
    if (work > 5e7) {
        // Exact: P(max <= x) = prod_p F_p(x)^{n_p} on a grid over the max's support.
        out.exact = true;
        std::vector<double> used_n(p_count, 0.0);
        for (std::uint64_t p = 0; p < p_count && p < n; ++p)
            used_n[p] = static_cast<double>(n / p_count + (p < n % p_count ? 1 : 0));
        double lo = -INFINITY, hi = -INFINITY;
        for (std::uint64_t p = 0; p < p_count; ++p)
            if (used_n[p] > 0) {
                lo = std::max(lo, dists[p].min());  // no process can be below its own min
                hi = std::max(hi, dists[p].max());
            }
        out.min = lo;
        out.max = hi;
        if (!(hi > lo)) {
            out.mean = out.p50 = out.p90 = out.p99 = out.p999 = lo;
        } else {
            constexpr std::size_t G = 1u << 16;  // grid intervals
            const double step = (hi - lo) / static_cast<double>(G);
            std::vector<double> log_h(G + 1, 0.0);  // log P(max <= x_g)
            for (std::uint64_t p = 0; p < p_count; ++p) {
                if (used_n[p] == 0) continue;
                const ProcessDistribution& d = dists[p];
                const double tot = d.total();
                // Sweep the grid and the bins together.
                std::size_t b = 0;
                double cum = 0;  // counts of bins entirely <= x
                for (std::size_t g = 0; g <= G; ++g) {
                    const double x = g == G ? hi : lo + step * static_cast<double>(g);
                    while (b < d.count.size() && d.upper[b] <= x) cum += d.count[b++];
                    double c = cum;
                    // Bins that started at or before x and end after it: partial (at most one
                    // when bins do not overlap; handle any).
                    for (std::size_t e = b; e < d.count.size() && d.lower[e] <= x; ++e)
                        c += d.count[e] * (x - d.lower[e]) / (d.upper[e] - d.lower[e]);
                    const double f = std::min(1.0, c / tot);
                    log_h[g] += f > 0 ? used_n[p] * std::log(f) : -INFINITY;
                }
            }
            std::vector<double> h(G + 1);
            for (std::size_t g = 0; g <= G; ++g) h[g] = std::exp(log_h[g]);
            h[G] = 1.0;
            // E[max] = lo + integral over [lo, hi] of (1 - H(x)) dx (trapezoids).
            double integral = 0;
            for (std::size_t g = 0; g < G; ++g) integral += 0.5 * ((1 - h[g]) + (1 - h[g + 1]));
            out.mean = lo + integral * step;
            auto pct = [&](double q) {
                const auto it = std::lower_bound(h.begin(), h.end(), q);
                const auto g = static_cast<std::size_t>(it - h.begin());
                if (g == 0) return lo;
                const double x1 = lo + step * static_cast<double>(g);
                const double h0 = h[g - 1], h1 = h[g];
                const double frac = h1 > h0 ? (q - h0) / (h1 - h0) : 1.0;
                return std::min(hi, x1 - step + frac * step);
            };
            out.p50 = pct(0.5);
            out.p90 = pct(0.9);
            out.p99 = pct(0.99);
            out.p999 = pct(0.999);
        }
        out.mean_upper = out.mean + out.slack;
        return out;
    }

    std::vector<Sampler> samplers;
    samplers.reserve(p_count);
    for (const auto& d : dists) samplers.emplace_back(d);
    Rng rng(config.seed);
    std::vector<double> durations(n);
    std::vector<double> maxes(config.iterations);
    if (config.keep_samples) out.theta_samples.resize(config.iterations);
    double theta_sum = 0;
    for (std::uint32_t it = 0; it < config.iterations; ++it) {
        double mx = -INFINITY;
        for (std::uint64_t i = 0; i < n; ++i) {
            durations[i] = samplers[i % p_count](rng);
            mx = std::max(mx, durations[i]);
        }
        maxes[it] = mx;
        const double theta = tree_theta(durations, config.tau, config.arity);
        theta_sum += theta;
        if (config.keep_samples) out.theta_samples[it] = theta;
    }
    out.theta_mean = theta_sum / config.iterations;
    if (config.keep_samples) out.max_samples = maxes;
    // Mean as the first sample plus the mean deviation from it (exact for a constant).
    double dev = 0;
    for (double m : maxes) dev += m - maxes[0];
    out.mean = maxes[0] + dev / config.iterations;
    std::sort(maxes.begin(), maxes.end());
    out.min = maxes.front();
    out.max = maxes.back();
    out.p50 = sorted_quantile(maxes, 0.5);
    out.p90 = sorted_quantile(maxes, 0.9);
    out.p99 = sorted_quantile(maxes, 0.99);
    out.p999 = sorted_quantile(maxes, 0.999);
    out.mean_upper = out.mean + out.slack;
    return out;
}

std::vector<double> p99_per_process(const std::vector<ProcessDistribution>& dists) {
    std::vector<double> p99;
    p99.reserve(dists.size());
    for (const auto& d : dists) {
        check_distribution(d);
        p99.push_back(d.quantile(0.99));
    }
    return p99;
}

std::vector<NodeAnomaly> anomalous_nodes(const std::vector<ProcessDistribution>& dists,
                                         double threshold) {
    std::vector<NodeAnomaly> out;
    if (dists.empty()) return out;
    const std::vector<double> p99 = p99_per_process(dists);
    const double med = median(p99);
    std::vector<double> dev(p99.size());
    for (std::size_t i = 0; i < p99.size(); ++i) dev[i] = std::abs(p99[i] - med);
    const double mad = median(dev);
    std::map<std::string, std::uint32_t> node_size;
    for (const auto& d : dists) ++node_size[d.node];
    std::map<std::string, NodeAnomaly> by_node;
    for (std::size_t i = 0; i < p99.size(); ++i) {
        if (!(p99[i] > med + threshold * mad) || !(p99[i] - med >= 0.01 * std::abs(med))) continue;
        NodeAnomaly& a = by_node[dists[i].node];
        a.node = dists[i].node;
        a.processes.push_back(dists[i].process);
        a.p99_mean += p99[i];
    }
    for (auto& [node, a] : by_node) {
        a.node_processes = node_size[node];
        a.p99_mean /= static_cast<double>(a.processes.size());
        a.median_p99 = med;
        out.push_back(std::move(a));
    }
    std::stable_sort(out.begin(), out.end(), [](const NodeAnomaly& x, const NodeAnomaly& y) {
        return x.processes.size() > y.processes.size();
    });
    return out;
}

}  // namespace clustersim::jitter
