// DERIVE: the statistics of the samples, and the model's figures from a `Measured` (no MPI).

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tools/mpi/calibrate/calibrate.hpp"

namespace clustersim::calibrate {

double median_sorted(const std::vector<double>& v) {
    const std::size_t n = v.size();
    if (n == 0) return 0;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void add_pass(Samples& s, std::vector<double> pass) {
    if (pass.empty()) return;
    s.all.insert(s.all.end(), pass.begin(), pass.end());
    std::sort(pass.begin(), pass.end());
    s.pass_medians.push_back(median_sorted(pass));
}

Stats summarize(const Samples& s) {
    Stats r;
    if (s.all.empty()) return r;
    std::vector<double> v = s.all;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    r.samples = static_cast<double>(n);
    r.passes = static_cast<double>(s.pass_medians.size());
    std::vector<double> medians = s.pass_medians;
    std::sort(medians.begin(), medians.end());
    r.value = median_sorted(medians);
    r.median_all = median_sorted(v);
    r.min = v.front();
    r.max = v.back();
    auto pct = [&](double q) {
        const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(n)));
        return v[std::min(n - 1, k == 0 ? 0 : k - 1)];
    };
    r.p10 = pct(0.10);
    r.p90 = pct(0.90);
    return r;
}

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return median_sorted(v);
}

// The simulator's one-way time of an m-byte message over a path of latency L and bandwidth B
// (cut-through): k L + m / B, k = 1 eager, 3 with rendezvous (request, clear-to-send, data).
double model_time(std::uint64_t m, double latency, double bandwidth, std::uint64_t eager) {
    return (m > eager ? 3 : 1) * latency + static_cast<double>(m) / bandwidth;
}

// The bandwidth whose model_time is closest to the measured one-way times of every size from
// 1 KiB up: least squares of log(model / measured), so each size counts by its relative error
// (a coarse scan of log B, then golden-section search around the best point).
double fit_bandwidth(const ClassResult& r, double latency, std::uint64_t eager) {
    std::vector<std::pair<std::uint64_t, double>> pts;
    for (const SizeResult& s : r.sizes)
        if (s.bytes >= KiB && s.pingpong.value > 0) pts.emplace_back(s.bytes, s.pingpong.value);
    if (pts.empty()) return 0;
    auto cost = [&](double log_b) {
        double sum = 0;
        for (const auto& [bytes, t] : pts) {
            const double e = std::log(model_time(bytes, latency, std::exp(log_b), eager) / t);
            sum += e * e;
        }
        return sum;
    };
    double lo = 1e300, hi = 0;
    for (const auto& [bytes, t] : pts) {
        lo = std::min(lo, static_cast<double>(bytes) / t);
        hi = std::max(hi, static_cast<double>(bytes) / t);
    }
    const double a = std::log(lo) - std::log(10.0), b = std::log(hi) + std::log(100.0);
    constexpr int kSteps = 400;
    double best = a;
    for (int i = 0; i <= kSteps; ++i) {
        const double x = a + (b - a) * i / kSteps;
        if (cost(x) < cost(best)) best = x;
    }
    double l = best - (b - a) / kSteps, h = best + (b - a) / kSteps;
    const double g = (std::sqrt(5.0) - 1) / 2;
    for (int i = 0; i < 60; ++i) {
        const double x1 = h - g * (h - l), x2 = l + g * (h - l);
        if (cost(x1) < cost(x2))
            h = x2;
        else
            l = x1;
    }
    return std::exp((l + h) / 2);
}

// A class's point-to-point curve, as <comm-model> <point-to-point> carries it: the analytic
// models time an s-byte message as s / B(s) of transfer, arriving the pair's latency L after
// it (B interpolated through the points), so a point's bandwidth is the TRANSFER bandwidth
// s / (t(s) - k L), t the measured one-way time, L the 0 B one, k = 1 for an eager message
// and 3 above the model's eager threshold: the simulated MPI runtime sends such a message as
// a request, a clear-to-send and the data, each a message of the analytic model, so it
// arrives 3 L + s / B(s) after the send (the ping-pong measures the protocol too). Sizes
// where t - k L is at most 2 % of t (or not positive) are pure latency, their bandwidth
// noise: left out.
//
// The two-way curve (<point-to-point direction="both">) is read the same way from the
// MPI_Sendrecv time per call, in which both directions move at once: s / (t2(s) - k L - o(s)),
// each rank paying o_s for its send and o_r for its receive as in the ping-pong. Where that
// transfer comes out shorter than the one-way one (noise: both directions cannot be faster
// than one), the one-way bandwidth is written.

namespace {

// The concurrency curve (<point-to-point direction="concurrent">, issue 23) from the group
// of kConcurrent messages of s bytes sent at once (one way, time tg(s) per group): what the
// group's transfers took together is tg - (t - transfer) - (kConcurrent - 1) o(s): the
// one-way time's latency and per-message costs taken once (the messages travel side by
// side), and the per-message costs o_s + o_r of the others, which the simulator charges on
// the ranks' cores; never less than one message's transfer. The receiver's shared bandwidth
// is kConcurrent s over that. A group that took as long as one message (plus the others'
// per-message costs) gives kConcurrent times the one-way bandwidth: the simulator then never
// slows a pair of messages (n s / Bc(s) = T(s) at n = kConcurrent).
double concurrent_bandwidth(const SizeResult& s, const Measured& m, double t, double transfer) {
    if (!(s.concurrent.samples > 0) || !(s.concurrent.value > 0)) return 0;
    const double together = std::max(
        transfer, s.concurrent.value - (t - transfer) - (kConcurrent - 1) * m.overhead(s.bytes));
    return static_cast<double>(kConcurrent) * static_cast<double>(s.bytes) / together;
}

}  // namespace

// The latency the model gives a class: the 0 B one-way time minus the per-message costs
// (o_s + o_r at the smallest size), which the simulator charges on the ranks' cores on top of
// the network's latency; at least a tenth of the measured one.
double net_latency(const ClassResult& r, const Measured& m) {
    return std::max(0.1 * r.latency.value, r.latency.value - m.overhead(0));
}

// With per-message costs measured, the transfer is what remains of the one-way time after
// the latency and o_s + o_r of that size: t - k L - o(s).
std::vector<CurvePoint> transfer_curve(const ClassResult& r, const Measured& m, std::uint64_t eager,
                                       std::vector<std::uint64_t>* skipped) {
    std::vector<CurvePoint> curve;
    const double latency = net_latency(r, m);
    for (const SizeResult& s : r.sizes) {
        if (s.bytes == 0) continue;
        const double t = s.pingpong.value;
        const double transfer = t - (s.bytes > eager ? 3 : 1) * latency - m.overhead(s.bytes);
        if (t <= 0 || transfer <= 0 || transfer <= 0.02 * t) {
            if (skipped != nullptr) skipped->push_back(s.bytes);
            continue;
        }
        double two_way = 0;
        if (s.sendrecv.value > 0) {
            const double both = std::max(transfer, s.sendrecv.value - (t - transfer));
            two_way = static_cast<double>(s.bytes) / both;
        }
        curve.push_back({s.bytes, static_cast<double>(s.bytes) / transfer, t, s.sendrecv.value,
                         two_way, s.concurrent.value, concurrent_bandwidth(s, m, t, transfer)});
    }
    return curve;
}

// The classes whose ping-pong becomes a <point-to-point> curve, with its scope: within a node
// the class the intra-latency comes from (intra-socket, else inter-socket), between nodes the
// inter-node one; absent classes are left out.
std::vector<std::pair<int, const char*>> curve_classes(const Derived& d) {
    std::vector<std::pair<int, const char*>> out;
    if (d.fig[kIntraSocket].present)
        out.emplace_back(kIntraSocket, "intra_node");
    else if (d.fig[kInterSocket].present)
        out.emplace_back(kInterSocket, "intra_node");
    if (d.fig[kInterNode].present) out.emplace_back(kInterNode, "inter_node");
    return out;
}

Derived derive(const Measured& m, bool fit) {
    Derived d;
    d.fit = fit;
    // The eager threshold the model uses: the inter-node one when there are several nodes
    // (most of a cluster's messages), else the one measured inside the node.
    for (const int c : {kInterNode, kInterSocket, kIntraSocket}) {
        const ClassResult& r = m.classes[static_cast<std::size_t>(c)];
        if (!r.pair.present) continue;
        d.eager = r.eager.bytes;
        d.eager_source = std::string("measured ") + class_name(c);
        break;
    }
    for (int c = 0; c < kClasses; ++c) {
        const ClassResult& r = m.classes[static_cast<std::size_t>(c)];
        ClassFigures& f = d.fig[static_cast<std::size_t>(c)];
        if (!r.pair.present || r.sizes.empty()) continue;
        f.present = true;
        f.latency = net_latency(r, m);
        const SizeResult& top = r.sizes.back();
        f.at = top.bytes;
        const double t = top.pingpong.value;
        f.raw = t > 0 ? static_cast<double>(top.bytes) / t : 0;
        const double k = top.bytes > d.eager ? 3 : 1;  // rendezvous: request, clear, data
        const double pure = t - k * f.latency - m.overhead(top.bytes);
        f.largest = pure > 0.05 * t ? static_cast<double>(top.bytes) / pure : f.raw;
        f.fit = fit_bandwidth(r, f.latency, d.eager);
        f.bandwidth = fit && f.fit > 0 ? f.fit : f.largest;
        f.aggregate =
            top.sendrecv.value > 0 ? 2 * static_cast<double>(top.bytes) / top.sendrecv.value : 0;
    }
    const ClassFigures& is = d.fig[kIntraSocket];
    const ClassFigures& xs = d.fig[kInterSocket];
    const ClassFigures& xn = d.fig[kInterNode];
    double widest = 0;
    for (const ClassFigures& f : d.fig) widest = std::max(widest, f.bandwidth);

    if (is.present) {
        d.sm_latency = is.latency / 2;
        d.sm_bandwidth = is.bandwidth;
    } else {
        d.sm_bandwidth = widest;
        d.notes.push_back(
            "socket - memory node: no intra-socket pair; latency 0, bandwidth the "
            "widest measured (so it is no measured path's bottleneck)");
    }
    const bool multi_socket = std::any_of(m.hosts.begin(), m.hosts.end(),
                                          [](const Host& h) { return h.cores.size() > 1; });
    if (xs.present) {
        d.mq_latency = std::max(0.0, (xs.latency - 2 * d.sm_latency) / 2);
        if (xs.latency < 2 * d.sm_latency)
            d.notes.push_back(
                "memory node - qpi: the inter-socket latency is below the "
                "intra-socket one; the edge gets latency 0");
        d.mq_bandwidth = xs.bandwidth;
        d.qpi_relay = std::max(xs.aggregate, xs.bandwidth);
    } else if (multi_socket) {
        d.mq_bandwidth = d.sm_bandwidth;
        d.notes.push_back(
            "memory node - qpi: no inter-socket pair; latency 0, bandwidth as "
            "socket - memory node, relay unlimited");
    }
    if (m.hosts.size() > 1) {
        if (xn.present) {
            const double inside = 2 * d.sm_latency + (multi_socket ? 2 * d.mq_latency : 0);
            d.link_latency = std::max(0.0, (xn.latency - inside) / 2);
            if (xn.latency < inside)
                d.notes.push_back(
                    "nic - sw: the inter-node latency is below the node-internal "
                    "part; the links get latency 0");
            d.link_bandwidth = xn.bandwidth;
            d.nic_relay = std::max(xn.aggregate, xn.bandwidth);
        } else {
            d.link_bandwidth = widest;
            d.notes.push_back(
                "nic - sw: no inter-node pair; latency 0, bandwidth the widest "
                "measured");
        }
    }

    // Node types: hosts of one shape (cores per socket, memory) share one, whose speed is the
    // median of the speeds of the ranks on those hosts.
    std::map<std::pair<std::vector<int>, std::uint64_t>, std::size_t> by_shape;
    d.type_of_host.assign(m.hosts.size(), 0);
    for (std::size_t h = 0; h < m.hosts.size(); ++h) {
        const Host& host = m.hosts[h];
        const std::uint64_t mem_mib = host.memory / MiB;
        const auto key = std::make_pair(host.cores, mem_mib);
        auto it = by_shape.find(key);
        if (it == by_shape.end()) {
            it = by_shape.emplace(key, d.types.size()).first;
            NodeType t;
            t.cores = host.cores;
            t.memory = std::max<std::uint64_t>(1, mem_mib) * MiB;
            d.types.push_back(t);
        }
        d.types[it->second].hosts.push_back(h);
        d.type_of_host[h] = it->second;
    }
    std::vector<double> all;
    for (std::size_t t = 0; t < d.types.size(); ++t) {
        d.types[t].name = d.types.size() == 1 ? "node" : strf("node%zu", t);
        std::vector<double> speeds;
        for (const std::size_t h : d.types[t].hosts)
            for (const int r : m.hosts[h].ranks)
                if (m.speed(static_cast<std::size_t>(r)) > 0)
                    speeds.push_back(m.speed(static_cast<std::size_t>(r)));
        d.types[t].speed = median_of(speeds);
        all.insert(all.end(), speeds.begin(), speeds.end());
    }
    d.speed = median_of(all);

    // I/O: see IoMeasured and the README. A synced file's write + sync time is a fixed cost
    // (the sync's journal commit) plus its bytes at a rate: two files (io_transfer and io_size
    // bytes) give both.
    const IoMeasured& io = m.io;
    if (io.measured && io.error.empty()) {
        d.io = true;
        const auto size = static_cast<double>(io.size);
        const auto small = static_cast<double>(io.transfer);
        // The page cache's rate: both large files' writes put the same bytes into the page
        // cache in the same calls before any sync, so the faster of their medians (a slower
        // series met something else on the machine: at 09:16 on 2026-11-25, four of five
        // passes' unsynced writes ran at 510 MB/s while every synced one ran at 5,100 MB/s).
        const double cached = io.write_synced.value > 0
                                  ? std::min(io.write_cached.value, io.write_synced.value)
                                  : io.write_cached.value;
        d.io_cache_rate = cached > 0 ? size / cached : 0;
        // The model's write-behind cache flushes from the first write on, Linux only at the
        // sync (below the background threshold), so the rate the model's disk needs is the
        // one at which a whole synced file comes out right: from the two files' write + sync
        // times. The writeback rate (from the syncs alone) is reported.
        const double extra = io.synced.value - io.synced_small.value;
        const double extra_sync = io.sync.value - io.sync_small.value;
        d.io_writeback_rate = extra_sync > 0 ? (size - small) / extra_sync : 0;
        if (extra > 0) {
            d.io_disk_rate = (size - small) / extra;
        } else {
            d.io_disk_rate = d.io_cache_rate;
            d.notes.push_back(
                "disk: writing and syncing the large file took no longer than the small one (no "
                "disk behind the directory?); the disk gets the page cache's write rate");
        }
        d.io_sync_cost = std::max(0.0, io.synced_small.value - small / d.io_disk_rate);
        d.io_synced_rate = io.synced.value > 0 ? size / io.synced.value : 0;
        d.io_open = io.open.value;
        d.io_close = io.close.value;
        // A small write costs the simulator about three messages of the intra-node latency
        // (request, data, acknowledgement) and its copy at the page cache's rate; the rest of
        // the measured time per call is the request's software cost.
        const ClassFigures& near =
            d.fig[kIntraSocket].present ? d.fig[kIntraSocket] : d.fig[kInterSocket];
        d.io_request_overhead = std::max(
            0.0, io.small_write.value - 3 * near.latency -
                     (d.io_cache_rate > 0 ? static_cast<double>(kSmallWriteBytes) / d.io_cache_rate
                                          : 0));
        if (io.world > 1) {
            const double others = io.world - 1;
            d.io_open_per_rank = std::max(0.0, io.open_world.value - io.open.value) / others;
            d.io_close_per_rank = std::max(0.0, io.close_world.value - io.close.value) / others;
            d.io_close_collective = io.late_close.value > kLateClose / 2;
            d.io_sync_apart = std::max(0.0, io.sync_apart.value);
        }
        d.io_memory = io.dirty.setpoint / MiB * MiB;
        if (d.io_memory == 0) {
            d.io_memory = std::max<std::uint64_t>(MiB, io.dirty.mem_total / 5 / MiB * MiB);
            d.notes.push_back(
                "write-behind memory: the kernel's dirty limits are unknown; a fifth of the "
                "node's memory");
        }
    }
    return d;
}

PeerSetup peer_setup_of(const std::vector<double>& round_trips) {
    PeerSetup p;
    if (round_trips.size() != static_cast<std::size_t>(kSetupRoundTrips)) return p;
    std::vector<double> tail(round_trips.begin() + 32, round_trips.end());
    std::sort(tail.begin(), tail.end());
    p.steady = median_sorted(tail);
    const double threshold = std::max(kSetupSpikeFactor * p.steady, kSetupSpikeFloor);
    // Every round trip over the threshold is a candidate (round trip i + 1, 1-based; the
    // very first, cold, never is). A spike from other work on the machine looks the same, so
    // when there are several, the set-up is the one after which the round trip changes most:
    // the median of up to 8 round trips before it less the median of up to 8 after the two
    // it spans (Open MPI's fast box makes every later message cheaper; a disturbance
    // changes nothing), the earliest on a tie. Round trips over the threshold in a row are one
    // spike, starting at the first.
    const std::size_t n = round_trips.size();
    auto median_of = [&](std::size_t from, std::size_t to) {  // [from, to), clamped
        to = std::min(to, n);
        if (from >= to) return 0.0;
        std::vector<double> v(round_trips.begin() + static_cast<std::ptrdiff_t>(from),
                              round_trips.begin() + static_cast<std::ptrdiff_t>(to));
        std::sort(v.begin(), v.end());
        return median_sorted(v);
    };
    std::size_t best = 0;
    double best_drop = 0;
    auto over = [&](std::size_t i) { return round_trips[i] - p.steady > threshold; };
    for (std::size_t i = 1; i < n; ++i) {
        if (!over(i) || (i > 1 && over(i - 1))) continue;  // a spike starts here
        const double drop = median_of(i > 9 ? i - 8 : 1, i) - median_of(i + 2, i + 10);
        if (best == 0 || drop > best_drop) best = i, best_drop = drop;
    }
    if (best == 0) return p;
    p.found = true;
    p.after = static_cast<int>(best) + 1;
    p.excess = round_trips[best] - p.steady;
    for (std::size_t k = best; k < std::min(best + 4, n); ++k)
        p.spread += std::max(0.0, round_trips[k] - p.steady);
    p.time = p.spread / 2;
    return p;
}

SetupTotal setup_total_of(const std::vector<double>& round_trips) {
    SetupTotal t;
    const PeerSetup p = peer_setup_of(round_trips);  // the set-up's spike, as the model's
    if (!p.found) return t;
    t.found = true;
    t.steady = p.steady;
    const double threshold = std::max(kSetupSpikeFactor * p.steady, kSetupSpikeFloor);
    const std::size_t n = round_trips.size(), at = static_cast<std::size_t>(p.after) - 1;
    const std::size_t window = static_cast<std::size_t>(kSetupWindow);
    std::size_t first = at, last = at;
    for (std::size_t i = at > window ? at - window : 1; i < std::min(n, at + window + 1); ++i) {
        if (round_trips[i] - p.steady <= threshold) continue;
        first = std::min(first, i);
        last = std::max(last, i);
        ++t.spikes;
    }
    t.first = static_cast<int>(first) + 1;
    t.last = static_cast<int>(last) + 1;
    for (std::size_t k = first; k < std::min(last + 4, n); ++k)
        t.total += std::max(0.0, round_trips[k] - p.steady);
    return t;
}

}  // namespace clustersim::calibrate
