// The engine's event queues side by side (simulator/README.md, "The event queue"): the
// classic hold model (pop the earliest event, push one a random increment later) with a
// fixed number of pending events, on the radix heap (EventQueue) and the ladder queue
// (LadderQueue), alternating their order, in CPU time per hold. Both see the same increments
// (one seeded generator each) and must pop the same events: the program checks it.
//
//   bench_queue [PENDING=100000] [HOLDS=10*PENDING] [REPEATS=3]
//
// Increments, in picoseconds: exponential (mean 1 us), uniform in [0, 2 us), batched (nine in
// ten at the time just popped, a tenth 1 us later: the equal-time events of a collective
// step), and bimodal (mostly 1-100 ns, one in 20 about 1 ms: packets and compute).
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/bench_args.hpp"
#include "simulator/engine.hpp"
#include "simulator/ladder_queue.hpp"
#include "simulator/memory.hpp"

using namespace clustersim;

namespace {

enum class Dist { Exponential, Uniform, Batched, Bimodal };
const char* name(Dist d) {
    switch (d) {
        case Dist::Exponential:
            return "exponential";
        case Dist::Uniform:
            return "uniform";
        case Dist::Batched:
            return "batched";
        case Dist::Bimodal:
            return "bimodal";
    }
    return "?";
}

std::int64_t increment(Dist d, std::mt19937_64& rng) {
    switch (d) {
        case Dist::Exponential:
            return static_cast<std::int64_t>(std::exponential_distribution<double>(1e-6)(rng));
        case Dist::Uniform:
            return static_cast<std::int64_t>(rng() % 2'000'000);
        case Dist::Batched:
            return rng() % 10 == 0 ? 1'000'000 : 0;
        case Dist::Bimodal:
            return rng() % 20 == 0 ? 1'000'000'000 + static_cast<std::int64_t>(rng() % 1'000'000)
                                   : 1'000 + static_cast<std::int64_t>(rng() % 99'000);
    }
    return 0;
}

struct Outcome {
    double cpu_s = 0;
    std::uint64_t checksum = 0;  // of the popped events' times and data, in order
};

template <typename Queue>
Outcome hold(Dist d, std::uint64_t pending, std::uint64_t holds) {
    std::mt19937_64 rng(42);
    Queue q;
    std::uint64_t next = 0;
    for (std::uint64_t i = 0; i < pending; ++i)
        q.push(Event{Time::ps(increment(d, rng)), 0, 0, next++});
    Outcome o;
    const double t0 = process_cpu_seconds();
    for (std::uint64_t k = 0; k < holds; ++k) {
        const Event e = q.pop();
        o.checksum = o.checksum * 1'000'003 + static_cast<std::uint64_t>(e.time.ps()) + e.data;
        q.push(Event{e.time + Time::ps(increment(d, rng)), 0, 0, next++});
    }
    o.cpu_s = process_cpu_seconds() - t0;
    return o;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int bench_main(int argc, char** argv) {
    const std::uint64_t pending = bench::count_arg(argc, argv, 1, "PENDING", 100'000, 1, 1u << 26);
    const std::uint64_t holds =
        bench::count_arg(argc, argv, 2, "HOLDS", 10 * pending, 1, std::uint64_t{1} << 32);
    const std::uint64_t repeats = bench::count_arg(argc, argv, 3, "REPEATS", 3, 1, 1000);
    fmt::print("hold model, {} pending events, {} holds, {} repeats (radix and ladder alternate)\n",
               pending, holds, repeats);
    fmt::print("{:<12} {:>22} {:>22} {:>8}\n", "increments", "radix heap ns/hold",
               "ladder queue ns/hold", "ratio");
    for (Dist d : {Dist::Exponential, Dist::Uniform, Dist::Batched, Dist::Bimodal}) {
        std::vector<double> radix, ladder;
        for (std::uint64_t r = 0; r < repeats; ++r) {
            Outcome a, b;
            if (r % 2 == 0) {
                a = hold<EventQueue>(d, pending, holds);
                b = hold<LadderQueue>(d, pending, holds);
            } else {
                b = hold<LadderQueue>(d, pending, holds);
                a = hold<EventQueue>(d, pending, holds);
            }
            if (a.checksum != b.checksum)
                throw std::runtime_error(
                    fmt::format("{}: the two queues popped different events", name(d)));
            radix.push_back(a.cpu_s * 1e9 / static_cast<double>(holds));
            ladder.push_back(b.cpu_s * 1e9 / static_cast<double>(holds));
        }
        const auto range = [](const std::vector<double>& v) {
            return fmt::format("{:.1f} ({:.1f}-{:.1f})", median(v),
                               *std::min_element(v.begin(), v.end()),
                               *std::max_element(v.begin(), v.end()));
        };
        fmt::print("{:<12} {:>22} {:>22} {:>8.2f}\n", name(d), range(radix), range(ladder),
                   median(ladder) / median(radix));
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return bench::guarded_main("bench_queue", [&] { return bench_main(argc, argv); });
}
