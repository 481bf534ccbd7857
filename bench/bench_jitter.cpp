// Issue 6's scale target for the fast jitter predictor (jitSim §3.3–3.6): 1,048,576 tasks ×
// 100 compute phases, each followed by a binary-tree barrier, on a measured trace.
//
//   bench_jitter [TRACE] [TASKS] [PHASES] [THREADS]
//     TRACE    jitter trace (jitSim text/binary or LogGOPSim); empty or absent:
//              traces/examples/jitter/this-machine.core0.jtr (relative to the working
//              directory: run from the source root, or give a path)
//     TASKS    default 1048576;  PHASES default 100;  THREADS default 0 (all cores)
//
// Work quantum: 1 ms at the trace's frequency (a trace without a frequency header is taken
// as 1 GHz: 1 ms = 10^6 cycles). Barrier: a binary tree, 8 tasks per node (placed
// sequentially), with costs in the range jitSim's §3.2 micro-benchmarks measure on an
// InfiniBand-class cluster: MPI stack latency 1 µs, halved into a 0.5 µs send and a 0.5 µs
// receive (CPU work, stretched by jitter); one-hop network latency 1.5 µs; shared-memory
// latency 0.3 µs. Unsynchronized start (seed 1).
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "models/jitsim.hpp"
#include "models/jitter.hpp"
#include "traces/jitter_io.hpp"

using namespace clustersim;

int main(int argc, char** argv) {
    const std::string path =
        argc > 1 && argv[1][0] != '\0' ? argv[1] : "traces/examples/jitter/this-machine.core0.jtr";
    const std::uint64_t tasks = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1048576;
    const auto phases =
        static_cast<std::uint32_t>(argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 100);
    const auto threads = static_cast<unsigned>(argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 0);
    if (!std::filesystem::exists(path)) {
        fmt::print(stderr,
                   "bench_jitter: trace '{}' not found. Run from the source root (the default is "
                   "the shipped trace traces/examples/jitter/this-machine.core0.jtr) or give a "
                   "trace file: bench_jitter TRACE [TASKS] [PHASES] [THREADS]\n",
                   path);
        return 2;
    }
    try {
        const auto r0 = std::chrono::steady_clock::now();
        const jitter::JitterTrace trace = traces::read_jitter_trace(path);
        const jitter::Timeline timeline(trace);
        const auto r1 = std::chrono::steady_clock::now();
        const double hz = trace.frequency_hz > 0 ? trace.frequency_hz : 1e9;
        auto cycles = [&](double seconds) {
            return static_cast<std::uint64_t>(std::llround(seconds * hz));
        };

        jitter::PredictConfig c;
        c.work = cycles(1e-3);
        c.phases = phases;
        c.threads = threads;
        c.barrier.kind = jitter::BarrierSpec::Kind::Tree;
        c.barrier.arity = 2;
        c.barrier.send = cycles(0.5e-6);
        c.barrier.recv = cycles(0.5e-6);
        c.barrier.network_latency = cycles(1.5e-6);
        c.barrier.shm_latency = cycles(0.3e-6);
        c.barrier.cores_per_node = 8;
        c.start.policy = jitter::StartPolicy::Unsynchronized;
        c.start.seed = 1;

        const auto t0 = std::chrono::steady_clock::now();
        const jitter::Prediction p = jitter::predict({&timeline}, tasks, c);
        const auto t1 = std::chrono::steady_clock::now();
        const double wall = std::chrono::duration<double>(t1 - t0).count();

        rusage ru{};
        getrusage(RUSAGE_SELF, &ru);
        const double rss_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;  // KiB on Linux
        const double us_per_cycle = 1e6 / hz;
        fmt::print(
            "trace {}: {} tuples, {:.3f} s at {:.3f} GHz{} (read in {:.3f} s), jitter {:.4f} %\n",
            path, timeline.tuples(), static_cast<double>(timeline.length()) / hz, hz / 1e9,
            trace.frequency_hz > 0 ? "" : " (no frequency header: 1 GHz assumed)",
            std::chrono::duration<double>(r1 - r0).count(),
            100.0 * static_cast<double>(timeline.jitter_total()) /
                static_cast<double>(timeline.length()));
        fmt::print(
            "{} tasks x {} phases, work {} cycles (1 ms), binary tree: send/recv {} cycles, "
            "network {} shm {} cycles, 8 tasks/node, threads {}\n",
            tasks, phases, c.work, c.barrier.send, c.barrier.network_latency, c.barrier.shm_latency,
            threads == 0 ? std::string("all") : std::to_string(threads));
        fmt::print("wall {:.3f} s  {:.3g} task-phases/s  peak RSS {:.1f} MiB\n", wall,
                   static_cast<double>(tasks) * phases / wall, rss_mib);
        fmt::print(
            "mean phase {:.1f} cycles ({:.2f} us)  noiseless {} cycles ({:.2f} us)  slowdown "
            "{:.3f} %  coverage mean {:.1f} % max {:.1f} %\n",
            p.mean_phase, p.mean_phase * us_per_cycle, p.noiseless_phase,
            static_cast<double>(p.noiseless_phase) * us_per_cycle, p.slowdown_percent,
            p.coverage_percent, p.coverage_max_percent);
    } catch (const std::exception& e) {
        fmt::print(stderr, "bench_jitter: {}\n", e.what());
        return 1;
    }
    return 0;
}
