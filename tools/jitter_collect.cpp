// clustersim-jitter-collect: jitSim's TraceCollector (De & Mann, §3.1).
//
// One thread per core, pinned to it, spins in a tight loop reading the time-stamp counter
// (rdtsc on x86-64; std::chrono::steady_clock with `--clock steady` or on other CPUs) and
// looks at the delta between successive readings:
//
//  1. calibration pass (kCalibrationIterations readings): t_min = the smallest delta, i.e.
//     what one loop iteration costs when nothing interrupts it (the smallest delta seen in
//     at least 0.1 % of the readings: a virtualized TSC sometimes returns two readings a
//     cycle apart, which is no loop iteration);
//  2. recording pass (--duration): every delta above the threshold is a jitter event. The
//     default threshold is 10 × t_min (`--threshold 10x`): a few times the loop cost is
//     still ordinary micro-architectural variation (a branch miss, a cache line), an order of
//     magnitude is the OS or hypervisor taking the core (interrupt, timer tick, preemption,
//     VM exit). `--threshold 1us` sets an absolute threshold instead.
//
// An event of delta d starting at reading t_prev becomes jitter [t_prev, t_prev + d - t_min):
// the loop would have spent t_min anyway. The core's trace is then the jitSim tuple list
// <jitter_cycles, cycles_to_next_jitter>, covering the recording pass exactly. The TSC rate is
// calibrated per core against steady_clock over the whole run (calibration + recording);
// with `--clock steady` the "cycles" are steady_clock ticks (nanoseconds, 1 GHz).
//
// Outputs (with --out PREFIX): PREFIX.core<N>.jtr (jitSim text with a `# frequency:` header)
// and PREFIX.core<N>.hist.csv (jitter durations in log2 bins of nanoseconds:
// lower_ns,upper_ns,count; bin k holds durations in [2^k, 2^(k+1)) ns, bin 0 also the
// durations below 1 ns). A summary per core goes to stdout.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define CLUSTERSIM_HAVE_TSC 1
#else
#define CLUSTERSIM_HAVE_TSC 0
#endif

#include "models/jitter.hpp"
#include "simulator/error.hpp"
#include "simulator/suggest.hpp"
#include "simulator/units.hpp"
#include "traces/jitter_io.hpp"

namespace {

using clustersim::InputError;
constexpr int kBadInput = 2;
constexpr std::uint64_t kCalibrationIterations = 2'000'000;
constexpr std::uint64_t kTminShare = 1000;       // t_min must be seen in >= 1/1000 of readings
constexpr std::uint64_t kDeltaBins = 1 << 16;    // calibration histogram of deltas
constexpr std::size_t kInitialEvents = 1 << 20;  // preallocated and touched: 16 MiB/core

enum class ClockKind { Tsc, Steady };

struct TscClock {
    static std::uint64_t now() {
#if CLUSTERSIM_HAVE_TSC
        return __rdtsc();
#else
        return 0;
#endif
    }
};

struct SteadyClock {
    static std::uint64_t now() {
        return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                              std::chrono::steady_clock::now().time_since_epoch())
                                              .count());
    }
};

struct Threshold {
    double factor = 10;  // × t_min, when seconds == 0
    double seconds = 0;  // absolute threshold
};

struct Event {
    std::uint64_t start;  // reading before the long delta
    std::uint64_t delta;  // the delta, clock units
};

struct CoreResult {
    int core = 0;
    std::string error;
    std::uint64_t t_min = 0;      // clock units
    std::uint64_t threshold = 0;  // clock units
    std::uint64_t run_start = 0, run_end = 0;
    double frequency_hz = 0;  // clock units per second
    std::vector<Event> events;
};

double steady_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

template <typename Clock>
void collect(CoreResult& r, double duration_s, Threshold threshold, bool tsc) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(r.core, &set);
    if (const int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set); rc != 0) {
        r.error = fmt::format("cannot pin a thread to core {}: {}", r.core, std::strerror(rc));
        return;
    }
    const double wall0 = steady_seconds();
    const std::uint64_t c0 = Clock::now();
    // 1. calibration: the smallest delta is the cost of one undisturbed loop iteration. A
    // delta seen only in isolated readings (fewer than kTminShare of them) is a counter
    // artefact, not a loop iteration: a virtualized TSC occasionally returns readings 1 cycle
    // apart. So t_min is the smallest delta that occurs in at least 0.1 % of the readings.
    std::vector<std::uint32_t> counts(kDeltaBins, 0);
    std::uint64_t prev = Clock::now();
    for (std::uint64_t i = 0; i < kCalibrationIterations; ++i) {
        const std::uint64_t now = Clock::now();
        ++counts[std::min<std::uint64_t>(now - prev, kDeltaBins - 1)];
        prev = now;
    }
    std::uint64_t t_min = kDeltaBins - 1;
    for (std::uint64_t d = 0; d < kDeltaBins; ++d) {
        if (counts[d] >= kCalibrationIterations / kTminShare) {
            t_min = d;
            break;
        }
    }
    const double wall1 = steady_seconds();
    const std::uint64_t c1 = Clock::now();
    // A first rate estimate, to turn --duration and an absolute threshold into clock units.
    const double rate = tsc ? static_cast<double>(c1 - c0) / std::max(wall1 - wall0, 1e-9) : 1e9;
    // Steady clocks can return the same value twice: a loop costs at least one unit.
    r.t_min = std::max<std::uint64_t>(t_min, 1);
    r.threshold = threshold.seconds > 0
                      ? static_cast<std::uint64_t>(std::llround(threshold.seconds * rate))
                      : static_cast<std::uint64_t>(
                            std::llround(threshold.factor * static_cast<double>(r.t_min)));
    r.threshold = std::max(r.threshold, r.t_min);
    // The event buffer is allocated and touched before recording, so no page fault or
    // allocation of the collector's own lands in the trace unless a core sees more than
    // kInitialEvents events (then the buffer doubles, and that copy shows as one event).
    r.events.assign(kInitialEvents, Event{0, 0});
    std::size_t n = 0;
    // 2. recording.
    const std::uint64_t limit = r.threshold;
    r.run_start = Clock::now();
    const std::uint64_t end = r.run_start + static_cast<std::uint64_t>(duration_s * rate);
    prev = r.run_start;
    while (true) {
        const std::uint64_t now = Clock::now();
        const std::uint64_t d = now - prev;
        if (d > limit) [[unlikely]] {
            if (n == r.events.size()) r.events.resize(2 * n);
            r.events[n++] = {prev, d};
        }
        prev = now;
        if (now >= end) break;
    }
    r.run_end = prev;
    r.events.resize(n);
    const double wall2 = steady_seconds();
    const std::uint64_t c2 = Clock::now();
    r.frequency_hz = tsc ? static_cast<double>(c2 - c0) / (wall2 - wall0) : 1e9;
}

clustersim::jitter::JitterTrace to_trace(const CoreResult& r, const std::string& clock) {
    clustersim::jitter::JitterTrace t;
    t.frequency_hz = std::round(r.frequency_hz);
    t.source = fmt::format(
        "clustersim-jitter-collect core {}, clock {}, t_min {} cycles, threshold {} cycles", r.core,
        clock, r.t_min, r.threshold);
    std::uint64_t pos = r.run_start;  // end of the last jitter
    for (const Event& e : r.events) {
        const std::uint64_t jitter = e.delta - r.t_min;
        if (t.size() == 0) {
            t.jitter.push_back(0);
            t.compute.push_back(e.start - pos);
        } else {
            t.compute.back() += e.start - pos;
        }
        t.jitter.push_back(jitter);
        t.compute.push_back(0);
        pos = e.start + jitter;
    }
    if (t.size() == 0) {
        t.jitter.push_back(0);
        t.compute.push_back(r.run_end - pos);
    } else {
        t.compute.back() += r.run_end - pos;
    }
    // A leading (0, 0) tuple (an event at the very start) carries nothing: drop it.
    if (t.size() > 1 && t.jitter[0] == 0 && t.compute[0] == 0) {
        t.jitter.erase(t.jitter.begin());
        t.compute.erase(t.compute.begin());
    }
    return t;
}

void write_histogram(const clustersim::jitter::JitterTrace& t, const std::string& path) {
    std::vector<std::uint64_t> bins;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t.jitter[i] == 0) continue;
        const double ns = static_cast<double>(t.jitter[i]) * 1e9 / t.frequency_hz;
        const int k = ns < 1 ? 0 : static_cast<int>(std::floor(std::log2(ns)));
        if (bins.size() <= static_cast<std::size_t>(k))
            bins.resize(static_cast<std::size_t>(k) + 1);
        ++bins[static_cast<std::size_t>(k)];
    }
    std::ofstream out(path, std::ios::trunc);
    if (!out) throw InputError(path, 0, "cannot open the file for writing");
    out << "lower_ns,upper_ns,count\n";
    std::size_t first = 0;
    while (first < bins.size() && bins[first] == 0) ++first;
    for (std::size_t k = first; k < bins.size(); ++k)
        out << (k == 0 ? 0ULL : 1ULL << k) << ',' << (1ULL << (k + 1)) << ',' << bins[k] << '\n';
    out.close();
    if (!out) throw InputError(path, 0, "cannot write the file");
}

Threshold parse_threshold(const std::string& text) {
    Threshold t;
    if (!text.empty() && (text.back() == 'x' || text.back() == 'X')) {
        const char* b = text.data();
        const char* e = text.data() + text.size() - 1;
        double f = 0;
        const auto r = std::from_chars(b, e, f);
        if (b == e || r.ec != std::errc() || r.ptr != e || !(f >= 1) || !std::isfinite(f))
            throw InputError("--threshold", 0,
                             fmt::format("'{}': expected a factor of t_min of at least 1 (e.g. "
                                         "10x) or a time (e.g. 1us)",
                                         text));
        t.factor = f;
        return t;
    }
    try {
        const clustersim::Time v = clustersim::parse_time(text);
        if (v.ps() <= 0) throw clustersim::UnitError("expected a positive time");
        t.seconds = v.seconds();
    } catch (const clustersim::UnitError& e) {
        throw InputError("--threshold", 0,
                         fmt::format("'{}': expected a factor of t_min (e.g. 10x) or a time "
                                     "(e.g. 1us): {}",
                                     text, e.what()));
    }
    return t;
}

std::vector<int> allowed_cores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> out;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) out.push_back(c);
    return out;
}

std::vector<int> parse_cores(const std::string& text, const std::vector<int>& allowed) {
    std::string list;
    for (const int c : allowed) list += (list.empty() ? "" : ",") + std::to_string(c);
    if (text.empty() || text == "all") return allowed;
    std::vector<int> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t comma = text.find(',', pos);
        if (comma == std::string::npos) comma = text.size();
        const std::string item = text.substr(pos, comma - pos);
        int core = -1;
        const auto r = std::from_chars(item.data(), item.data() + item.size(), core);
        if (item.empty() || r.ec != std::errc() || r.ptr != item.data() + item.size() || core < 0)
            throw InputError("--cores", 0,
                             fmt::format("'{}': expected a comma-separated list of core numbers "
                                         "(e.g. 0,1), got '{}'",
                                         text, item));
        if (std::find(allowed.begin(), allowed.end(), core) == allowed.end())
            throw InputError("--cores", 0,
                             fmt::format("core {} is not available; this process may run on "
                                         "cores {}",
                                         core, list));
        if (std::find(out.begin(), out.end(), core) != out.end())
            throw InputError("--cores", 0, fmt::format("core {} is listed twice", core));
        out.push_back(core);
        pos = comma + 1;
    }
    return out;
}

int run(const std::string& duration_text, const std::string& cores_text,
        const std::string& out_prefix, const std::string& threshold_text,
        const std::string& clock_text) {
    clustersim::Time duration;
    try {
        duration = clustersim::parse_time(duration_text);
    } catch (const clustersim::UnitError& e) {
        throw InputError("--duration", 0, e.what());
    }
    if (duration.ps() <= 0) throw InputError("--duration", 0, "expected a positive time");
    if (duration > clustersim::Time::s(3600))
        throw InputError("--duration", 0, "expected at most 1 hour");
    const Threshold threshold = parse_threshold(threshold_text);
    ClockKind clock = CLUSTERSIM_HAVE_TSC ? ClockKind::Tsc : ClockKind::Steady;
    if (clock_text == "steady") {
        clock = ClockKind::Steady;
    } else if (clock_text == "tsc") {
        if (!CLUSTERSIM_HAVE_TSC)
            throw InputError("--clock", 0,
                             "this CPU has no time-stamp counter clustersim can read; use "
                             "--clock steady");
    } else if (!clock_text.empty()) {
        throw InputError("--clock", 0,
                         fmt::format("'{}'{}: expected tsc or steady", clock_text,
                                     clustersim::did_you_mean(clock_text, {"tsc", "steady"})));
    }
    const std::string clock_name = clock == ClockKind::Tsc ? "tsc" : "steady";
    const std::vector<int> cores = parse_cores(cores_text, allowed_cores());
    if (cores.empty()) throw InputError("--cores", 0, "no core to run on");

    std::vector<CoreResult> results(cores.size());
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < cores.size(); ++i) {
        results[i].core = cores[i];
        threads.emplace_back([&, i] {
            if (clock == ClockKind::Tsc)
                collect<TscClock>(results[i], duration.seconds(), threshold, true);
            else
                collect<SteadyClock>(results[i], duration.seconds(), threshold, false);
        });
    }
    for (auto& t : threads) t.join();
    for (const CoreResult& r : results)
        if (!r.error.empty()) throw InputError("--cores", 0, r.error);

    fmt::print("clustersim-jitter-collect: {} on {} core{}, clock {}, threshold {}\n",
               clustersim::format_time(duration), cores.size(), cores.size() == 1 ? "" : "s",
               clock_name,
               threshold.seconds > 0
                   ? clustersim::format_time(clustersim::Time::from_seconds(threshold.seconds))
                   : fmt::format("{:g} x t_min", threshold.factor));
    for (const CoreResult& r : results) {
        const clustersim::jitter::JitterTrace t = to_trace(r, clock_name);
        const double f = t.frequency_hz;
        std::uint64_t jitter = 0, largest = 0, total = 0;
        for (std::size_t i = 0; i < t.size(); ++i) {
            jitter += t.jitter[i];
            total += t.jitter[i] + t.compute[i];
            largest = std::max(largest, t.jitter[i]);
        }
        const auto ns = [f](double cycles) { return cycles * 1e9 / f; };
        fmt::print(
            "  core {}: clock {:.6g} GHz, t_min {:.1f} ns ({} cycles), threshold {:.1f} ns ({} "
            "cycles), {} events in {:.3f} s, jitter {:.4f} %, largest {:.1f} us ({} cycles)\n",
            r.core, f / 1e9, ns(static_cast<double>(r.t_min)), r.t_min,
            ns(static_cast<double>(r.threshold)), r.threshold, r.events.size(),
            static_cast<double>(total) / f,
            total > 0 ? 100.0 * static_cast<double>(jitter) / static_cast<double>(total) : 0.0,
            ns(static_cast<double>(largest)) / 1e3, largest);
        if (!out_prefix.empty()) {
            const std::string base = fmt::format("{}.core{}", out_prefix, r.core);
            clustersim::traces::write_jitter_trace(t, base + ".jtr",
                                                   clustersim::traces::JitterFormat::Text);
            write_histogram(t, base + ".hist.csv");
            fmt::print("    wrote {0}.jtr and {0}.hist.csv\n", base);
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "clustersim-jitter-collect: record the OS jitter of this machine as jitSim traces, one "
        "pinned spinning thread per core"};
    std::string duration = "2s", cores, out, threshold = "10x", clock;
    app.add_option("--duration", duration, "how long to record, a time (default 2s)");
    app.add_option("--cores", cores, "cores to run on, e.g. 0,1 (default: all available)");
    app.add_option("--out", out,
                   "write PREFIX.core<N>.jtr (jitSim text trace) and PREFIX.core<N>.hist.csv");
    app.add_option("--threshold", threshold,
                   "a delta above this is jitter: a factor of t_min (10x, the default) or a "
                   "time (1us)");
    app.add_option("--clock", clock, "tsc (default on x86-64) or steady");
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "clustersim-jitter-collect: error: " << e.what()
                  << " (see clustersim-jitter-collect --help)\n";
        return kBadInput;
    }
    try {
        return run(duration, cores, out, threshold, clock);
    } catch (const InputError& e) {
        std::cerr << "clustersim-jitter-collect: error: " << e.what() << "\n";
        return kBadInput;
    } catch (const std::exception& e) {
        std::cerr << "clustersim-jitter-collect: internal error: " << e.what() << "\n";
        return 1;
    }
}
